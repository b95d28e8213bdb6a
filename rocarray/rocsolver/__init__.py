"""rocSOLVER-style dense factorizations and solvers on hand-written HIP kernels.

Functions take rocSOLVER's arguments in rocSOLVER's order, without the handle, on ``cupy.ndarray``
buffers holding column-major matrices (element (i, j) at ``A[i + j * lda]``), and work in place as
LAPACK does. Status goes to a device ``info`` array (int32, one element per matrix): 0 for
success, ``i > 0`` for the failure LAPACK reports at step ``i`` (a zero pivot, a leading minor that
is not positive definite); nothing is synchronized. The ``_strided_batched`` forms take
``batch_count`` matrices ``strideA`` elements apart.

LU: :func:`getrf`, :func:`getrs`, :func:`getri`, their ``_strided_batched`` forms, :func:`laswp`
(and :func:`laswp_strided_batched`, a rocarray extension).
"""

from rocarray.rocsolver._lu import (getrf, getrf_strided_batched, getri, getri_strided_batched, getrs,
                                    getrs_strided_batched, laswp, laswp_strided_batched)

__all__ = ["getrf", "getrf_strided_batched", "getrs", "getrs_strided_batched", "getri", "getri_strided_batched",
           "laswp", "laswp_strided_batched"]
