"""rocSOLVER-style dense factorizations and solvers on hand-written HIP kernels.

Functions take rocSOLVER's arguments in rocSOLVER's order, without the handle, on ``cupy.ndarray``
buffers holding column-major matrices (element (i, j) at ``A[i + j * lda]``), and work in place as
LAPACK does. Status goes to a device ``info`` array (int32, one element per matrix): 0 for
success, ``i > 0`` for the failure LAPACK reports at step ``i`` (a zero pivot, a leading minor that
is not positive definite); nothing is synchronized, except in :func:`geev`, whose Hessenberg QR
iteration runs on the host. The ``_strided_batched`` forms take
``batch_count`` matrices ``strideA`` elements apart.

Householder QR: :func:`geqrf`, :func:`geqrf_strided_batched`, :func:`orgqr`/:func:`ungqr` (and
their strided-batched forms), :func:`ormqr`/:func:`unmqr`, :func:`gels`.
"""

from rocarray.rocsolver._qr import (gels, geqrf, geqrf_strided_batched, orgqr, orgqr_strided_batched, ormqr, ungqr,
                                    ungqr_strided_batched, unmqr)

__all__ = ["geqrf", "geqrf_strided_batched", "orgqr", "ungqr", "orgqr_strided_batched", "ungqr_strided_batched",
           "ormqr", "unmqr", "gels"]
Symmetric/Hermitian eigenproblem: :func:`syevj`, :func:`heevj`, :func:`syevj_strided_batched`,
:func:`heevj_strided_batched` (Jacobi, one launch for a batch of small matrices); :func:`syevd`,
:func:`heevd` (any order, by tridiagonal reduction; synchronizes for its host step);
:func:`sytrd`, :func:`hetrd` (the reduction).
"""

from rocarray.rocsolver._eigh import heevd, syevd
from rocarray.rocsolver._syevj import heevj, heevj_strided_batched, syevj, syevj_strided_batched
from rocarray.rocsolver._sytrd import hetrd, sytrd

__all__ = ["syevj", "heevj", "syevj_strided_batched", "heevj_strided_batched", "syevd", "heevd", "sytrd",
           "hetrd"]
from rocarray.rocsolver._geev import geev, gehrd, orghr, unghr

__all__ = ["gehrd", "orghr", "unghr", "geev"]
LU: :func:`getrf`, :func:`getrs`, :func:`getri`, their ``_strided_batched`` forms, :func:`laswp`
(and :func:`laswp_strided_batched`, a rocarray extension).
"""

from rocarray.rocsolver._lu import (getrf, getrf_strided_batched, getri, getri_strided_batched, getrs,
                                    getrs_strided_batched, laswp, laswp_strided_batched)

__all__ = ["getrf", "getrf_strided_batched", "getrs", "getrs_strided_batched", "getri", "getri_strided_batched",
           "laswp", "laswp_strided_batched"]
Cholesky and triangular inverses: :func:`potrf`, :func:`potrf_strided_batched`, :func:`potrs`,
:func:`potrs_strided_batched`, :func:`potri`, :func:`trtri`.
"""

from rocarray.rocsolver._cholesky import potrf, potrf_strided_batched, potri, potrs, potrs_strided_batched
from rocarray.rocsolver._trtri import trtri

__all__ = ["potrf", "potrf_strided_batched", "potrs", "potrs_strided_batched", "potri", "trtri"]
