"""MIOpen-style deep-learning primitives on hand-written HIP kernels.

Functions take ``cupy.ndarray`` tensors with explicit layouts (``"NCHW"`` style, channels first, or
``"NHWC"`` style, channels last; 1-D and 3-D problems use the same two names), do not validate
user input (the :mod:`rocarray.nn` façade does), and choose among algorithms through the one
tuning DB (:mod:`rocarray._core.tuning`), MIOpen's find-db.
"""

__all__ = []

# --- convolution: problem, algorithm search, forward/backward (conv) ---------------------------

# --- convolution algorithms: implicit GEMM, Winograd, FFT (convalgos) -----------------------------

# --- pooling, activations, softmax (pointwise) -----------------------------------------------------

# --- batch, layer and group normalization (norm) ----------------------------------------------------
from rocarray.miopen._batchnorm import (batchnorm_backward, batchnorm_forward_inference,  # noqa: E402
                                        batchnorm_forward_training)

from rocarray.miopen._groupnorm import groupnorm_backward, groupnorm_forward  # noqa: E402
from rocarray.miopen._layernorm import layernorm_backward, layernorm_forward  # noqa: E402

__all__ += ["batchnorm_forward_training", "batchnorm_forward_inference", "batchnorm_backward", "layernorm_forward",
            "layernorm_backward", "groupnorm_forward", "groupnorm_backward"]

# --- attention (attention) ---------------------------------------------------------------------------
