"""rocSOLVER-style dense factorizations and solvers on hand-written HIP kernels.

Functions take rocSOLVER's arguments in rocSOLVER's order, without the handle, on ``cupy.ndarray``
buffers holding column-major matrices (element (i, j) at ``A[i + j * lda]``), and work in place as
LAPACK does. Status goes to a device ``info`` array (int32, one element per matrix): 0 for
success, ``i > 0`` for the failure LAPACK reports at step ``i`` (a zero pivot, a leading minor that
is not positive definite); nothing is synchronized, except in :func:`syevd`/:func:`heevd` and
:func:`geev`, whose tridiagonal and Hessenberg steps run on the host. The ``_strided_batched``
forms take ``batch_count`` matrices ``strideA`` elements apart.

LU: :func:`getrf`, :func:`getrs`, :func:`getri`, their ``_strided_batched`` forms, :func:`laswp`
(and :func:`laswp_strided_batched`, a rocarray extension), :func:`gesv_small_batched` (a rocarray
extension: factor and solve a batch of small systems given as strided arrays, in one launch;
:func:`gesv_small_supported` says which orders and right-hand sides it takes).

Cholesky and triangular inverses: :func:`potrf`, :func:`potrs` (and their ``_strided_batched``
forms), :func:`potri`, :func:`trtri`, :func:`potrf_small_batched` (a rocarray extension: the
factors of a batch of small matrices given as strided arrays, in one launch;
:func:`potrf_small_supported` says which orders it takes).

Householder QR: :func:`geqrf`, :func:`geqrf_strided_batched`, :func:`orgqr`/:func:`ungqr` (and
their strided-batched forms), :func:`ormqr`/:func:`unmqr`, :func:`gels`.

Symmetric/Hermitian eigenproblem: :func:`syevj`, :func:`heevj`, :func:`syevj_strided_batched`,
:func:`heevj_strided_batched` (Jacobi, one launch for a batch of small matrices); :func:`syevd`,
:func:`heevd` (any order, by tridiagonal reduction); :func:`sytrd`, :func:`hetrd` (the reduction);
:func:`stedc` (the symmetric tridiagonal eigenproblem by divide and conquer).

Singular values: :func:`gesvdj`, :func:`gesvd` (and their ``_strided_batched`` forms).

General eigenproblem: :func:`gehrd`, :func:`orghr`/:func:`unghr`, :func:`geev`.
"""

from rocarray.rocsolver._lu import (GESV_SMALL_MAX, gesv_small_batched, gesv_small_supported, getrf,
                                    getrf_strided_batched, getri, getri_strided_batched, getrs,
                                    getrs_strided_batched, laswp, laswp_strided_batched)
from rocarray.rocsolver._cholesky import (potrf, potrf_small_batched, potrf_small_supported, potrf_strided_batched,
                                          potri, potrs, potrs_strided_batched)
from rocarray.rocsolver._trtri import trtri
from rocarray.rocsolver._qr import (gels, geqrf, geqrf_strided_batched, orgqr, orgqr_strided_batched, ormqr, ungqr,
                                    ungqr_strided_batched, unmqr)
from rocarray.rocsolver._eigh import heevd, syevd
from rocarray.rocsolver._stedc import stedc
from rocarray.rocsolver._syevj import heevj, heevj_strided_batched, syevj, syevj_strided_batched
from rocarray.rocsolver._sytrd import hetrd, sytrd
from rocarray.rocsolver._geev import geev, gehrd, orghr, unghr
from rocarray.rocsolver._svd import gesvd, gesvd_strided_batched, gesvdj, gesvdj_strided_batched

__all__ = ["getrf", "getrf_strided_batched", "getrs", "getrs_strided_batched", "getri", "getri_strided_batched",
           "laswp", "laswp_strided_batched", "gesv_small_batched", "gesv_small_supported", "GESV_SMALL_MAX",
           "potrf", "potrf_strided_batched", "potrf_small_batched", "potrf_small_supported", "potrs", "potrs_strided_batched", "potri", "trtri",
           "geqrf", "geqrf_strided_batched", "orgqr", "ungqr", "orgqr_strided_batched", "ungqr_strided_batched",
           "ormqr", "unmqr", "gels",
           "syevj", "heevj", "syevj_strided_batched", "heevj_strided_batched", "syevd", "heevd", "sytrd", "hetrd",
           "stedc",
           "gesvdj", "gesvdj_strided_batched", "gesvd", "gesvd_strided_batched",
           "gehrd", "orghr", "unghr", "geev"]
