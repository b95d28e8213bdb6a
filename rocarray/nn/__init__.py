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

# --- attention (attention) ---------------------------------------------------------------------------
from rocarray.nn._attention import (  # noqa: E402
    scaled_dot_product_attention, scaled_dot_product_attention_backward)

__all__ += ["scaled_dot_product_attention", "scaled_dot_product_attention_backward"]
