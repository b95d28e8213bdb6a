"""rocSOLVER-style dense factorizations and solvers on hand-written HIP kernels.

Functions take rocSOLVER's arguments in rocSOLVER's order, without the handle, on ``cupy.ndarray``
buffers holding column-major matrices (element (i, j) at ``A[i + j * lda]``), and work in place as
LAPACK does. Status goes to a device ``info`` array (int32, one element per matrix): 0 for
success, ``i > 0`` for the failure LAPACK reports at step ``i`` (a zero pivot, a leading minor that
is not positive definite); nothing is synchronized, except in :func:`geev`, whose Hessenberg QR
iteration runs on the host. The ``_strided_batched`` forms take
``batch_count`` matrices ``strideA`` elements apart.
"""

from rocarray.rocsolver._geev import geev, gehrd, orghr, unghr

__all__ = ["gehrd", "orghr", "unghr", "geev"]
