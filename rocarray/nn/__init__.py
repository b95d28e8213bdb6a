"""Neural-network functions in the style of ``torch.nn.functional`` on ``cupy.ndarray`` tensors.

Channels-first (``"NCHW"``) is the default layout; ``layout="NHWC"`` (channels last) is accepted by
every function with a channel axis. There is no autograd: each forward function has an explicit
backward function next to it. The kernels live in :mod:`rocarray.miopen`; this package checks and
normalizes arguments with torch's rules and messages, then makes one library call.
"""

__all__ = []

# --- convolution (conv) -------------------------------------------------------------------------------

# --- convolution algorithms (convalgos) ---------------------------------------------------------------

# --- pooling, activations, softmax (pointwise) -----------------------------------------------------

# --- normalization (norm) -------------------------------------------------------------------------------
from rocarray.nn._norm import (batch_norm, batch_norm_backward, group_norm, group_norm_backward,  # noqa: E402
                              instance_norm, layer_norm, layer_norm_backward)

__all__ += ["batch_norm", "batch_norm_backward", "layer_norm", "layer_norm_backward", "group_norm",
            "group_norm_backward", "instance_norm"]

# --- attention (attention) ---------------------------------------------------------------------------
