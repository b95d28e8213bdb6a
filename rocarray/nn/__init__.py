"""Neural-network functions in the style of ``torch.nn.functional`` on ``cupy.ndarray`` tensors.

Channels-first (``"NCHW"``) is the default layout; ``layout="NHWC"`` (channels last) is accepted by
every function with a channel axis. There is no autograd: each forward function has an explicit
backward function next to it. The kernels live in :mod:`rocarray.miopen`; this package checks and
normalizes arguments with torch's rules and messages, then makes one library call.
"""

__all__ = []

# --- convolution (conv) -------------------------------------------------------------------------------
from rocarray.miopen._conv_find import find_mode
from rocarray.nn._conv import (conv1d, conv1d_input, conv1d_weight, conv2d, conv2d_input, conv2d_weight, conv3d,
                               conv3d_input, conv3d_weight, fold_batchnorm)

__all__ += ["conv1d", "conv2d", "conv3d", "conv1d_input", "conv2d_input", "conv3d_input", "conv1d_weight",
            "conv2d_weight", "conv3d_weight", "find_mode", "fold_batchnorm"]

# --- convolution algorithms (convalgos) ---------------------------------------------------------------

# --- pooling, activations, softmax (pointwise) -----------------------------------------------------

# --- normalization (norm) -------------------------------------------------------------------------------

# --- attention (attention) ---------------------------------------------------------------------------
