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
from rocarray.nn._activation import (elu, elu_backward, gelu, gelu_backward, hardswish, hardswish_backward,
                                    leaky_relu, leaky_relu_backward, relu, relu_backward, sigmoid,
                                    sigmoid_backward, silu, silu_backward, softplus, softplus_backward, tanh,
                                    tanh_backward)

__all__ += ["relu", "leaky_relu", "elu", "sigmoid", "tanh", "gelu", "silu", "softplus", "hardswish",
            "relu_backward", "leaky_relu_backward", "elu_backward", "sigmoid_backward", "tanh_backward",
            "gelu_backward", "silu_backward", "softplus_backward", "hardswish_backward"]

from rocarray.nn._softmax import log_softmax, log_softmax_backward, softmax, softmax_backward

__all__ += ["softmax", "log_softmax", "softmax_backward", "log_softmax_backward"]

from rocarray.nn._pooling import (adaptive_avg_pool1d, adaptive_avg_pool1d_backward, adaptive_avg_pool2d,
                                  adaptive_avg_pool2d_backward, adaptive_avg_pool3d,
                                  adaptive_avg_pool3d_backward, adaptive_max_pool1d,
                                  adaptive_max_pool1d_backward, adaptive_max_pool2d,
                                  adaptive_max_pool2d_backward, adaptive_max_pool3d,
                                  adaptive_max_pool3d_backward, avg_pool1d, avg_pool1d_backward, avg_pool2d,
                                  avg_pool2d_backward, avg_pool3d, avg_pool3d_backward, global_avg_pool,
                                  global_avg_pool_backward, global_max_pool, global_max_pool_backward,
                                  max_pool1d, max_pool1d_backward, max_pool2d, max_pool2d_backward, max_pool3d,
                                  max_pool3d_backward)

__all__ += ["max_pool1d", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d", "max_pool2d",
            "avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "max_pool3d", "avg_pool3d",
            "adaptive_avg_pool3d", "adaptive_max_pool3d", "global_avg_pool", "global_max_pool",
            "max_pool1d_backward", "avg_pool1d_backward", "adaptive_avg_pool1d_backward",
            "adaptive_max_pool1d_backward", "max_pool2d_backward", "avg_pool2d_backward",
            "adaptive_avg_pool2d_backward", "adaptive_max_pool2d_backward", "max_pool3d_backward",
            "avg_pool3d_backward", "adaptive_avg_pool3d_backward", "adaptive_max_pool3d_backward",
            "global_avg_pool_backward", "global_max_pool_backward"]

# --- normalization (norm) -------------------------------------------------------------------------------
from rocarray.nn._norm import (batch_norm, batch_norm_backward, group_norm, group_norm_backward,  # noqa: E402
                              instance_norm, layer_norm, layer_norm_backward)

__all__ += ["batch_norm", "batch_norm_backward", "layer_norm", "layer_norm_backward", "group_norm",
            "group_norm_backward", "instance_norm"]

# --- attention (attention) ---------------------------------------------------------------------------
from rocarray.nn._attention import (  # noqa: E402
    scaled_dot_product_attention, scaled_dot_product_attention_backward)

__all__ += ["scaled_dot_product_attention", "scaled_dot_product_attention_backward"]
