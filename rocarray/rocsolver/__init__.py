"""rocSOLVER-style dense factorizations and solvers on hand-written HIP kernels.

Functions take rocSOLVER's arguments in rocSOLVER's order, without the handle, on ``cupy.ndarray``
buffers holding column-major matrices (element (i, j) at ``A[i + j * lda]``), and work in place as
LAPACK does. Status goes to a device ``info`` array (int32, one element per matrix): 0 for
success, ``i > 0`` for the failure LAPACK reports at step ``i`` (a zero pivot, a leading minor that
is not positive definite); nothing is synchronized. The ``_strided_batched`` forms take
``batch_count`` matrices ``strideA`` elements apart.

Cholesky and triangular inverses: :func:`potrf`, :func:`potrf_strided_batched`, :func:`potrs`,
:func:`potrs_strided_batched`, :func:`potri`, :func:`trtri`.
"""

from rocarray.rocsolver._cholesky import potrf, potrf_strided_batched, potri, potrs, potrs_strided_batched
from rocarray.rocsolver._trtri import trtri

__all__ = ["potrf", "potrf_strided_batched", "potrs", "potrs_strided_batched", "potri", "trtri"]
