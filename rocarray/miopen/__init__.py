"""MIOpen-style deep-learning primitives on hand-written HIP kernels.

Functions take ``cupy.ndarray`` tensors with explicit layouts (``"NCHW"`` style, channels first, or
``"NHWC"`` style, channels last; 1-D and 3-D problems use the same two names), do not validate
user input (the :mod:`rocarray.nn` façade does), and choose among algorithms through the one
tuning DB (:mod:`rocarray._core.tuning`), MIOpen's find-db.
"""

__all__ = []

# --- convolution: problem, algorithm search, forward/backward (conv) ---------------------------
from rocarray.miopen._conv import (convolution_backward_data, convolution_backward_weights,
                                   convolution_forward)
from rocarray.miopen._conv_epilogue import FUSED_ACTIVATIONS
from rocarray.miopen._conv_find import conv_algorithms, find_convolution, find_mode
from rocarray.miopen._conv_problem import ConvProblem

__all__ += ["ConvProblem", "convolution_forward", "convolution_backward_data", "convolution_backward_weights",
            "find_convolution", "conv_algorithms", "find_mode", "FUSED_ACTIVATIONS"]

# --- convolution algorithms: implicit GEMM, Winograd, FFT (convalgos) -----------------------------

# --- pooling, activations, softmax (pointwise) -----------------------------------------------------
from rocarray.miopen._activation import activation_backward, activation_forward
from rocarray.miopen._pooling import PoolingGeometry, pooling_backward, pooling_forward
from rocarray.miopen._softmax import softmax_backward, softmax_forward

__all__ += ["activation_forward", "activation_backward", "softmax_forward", "softmax_backward", "PoolingGeometry",
            "pooling_forward", "pooling_backward"]

# --- batch, layer and group normalization (norm) ----------------------------------------------------
from rocarray.miopen._batchnorm import (batchnorm_backward, batchnorm_forward_inference,  # noqa: E402
                                        batchnorm_forward_training)

from rocarray.miopen._groupnorm import groupnorm_backward, groupnorm_forward  # noqa: E402
from rocarray.miopen._layernorm import layernorm_backward, layernorm_forward  # noqa: E402

__all__ += ["batchnorm_forward_training", "batchnorm_forward_inference", "batchnorm_backward", "layernorm_forward",
            "layernorm_backward", "groupnorm_forward", "groupnorm_backward"]

# --- attention (attention) ---------------------------------------------------------------------------
from rocarray.miopen._attention import MAX_HEAD_DIM as ATTENTION_MAX_HEAD_DIM  # noqa: E402
from rocarray.miopen._attention import attention_backward, attention_forward  # noqa: E402

__all__ += ["attention_forward", "attention_backward", "ATTENTION_MAX_HEAD_DIM"]
