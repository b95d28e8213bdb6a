"""rocSOLVER triangular inverse (trtri) and the product of a triangle with its conjugate transpose
(lauum, potri's second half).

Design
------
Both are recursive over a split ``n1`` (about half, a multiple of the diagonal block order ``nb``),
with one kernel launch per diagonal block of order ``<= nb`` and rocblas for the rest.

trtri, upper ``T = [[T11, T12], [0, T22]]``: ``inv(T)12 = -inv(T11) T12 inv(T22)``, two rocblas
trsm with the still unchanged T11 and T22, then both halves recursively (lower: ``inv(T)21 =
-inv(T22) T21 inv(T11)``). The diagonal blocks go to ``ra_rocsolver_trti2``. ``n^3 / 6``
multiply-adds, as LAPACK's, nearly all in trsm's gemm. ``info`` comes from one scan of the
diagonal (``ra_rocsolver_zero_diag``) before the inversion, which runs regardless (a zero pivot
gives inf/NaN in A, as the reference's would).

lauum, upper: ``U U^H = [[U11 U11^H + U12 U12^H, U12 U22^H], [., U22 U22^H]]``, computed in
place as ``lauum(U11)``, ``A11 += U12 U12^H`` (herk/syrk), ``A12 := U12 U22^H`` (trmm, before U22
is overwritten), ``lauum(U22)``; lower likewise for ``L^H L``. Diagonal blocks go to
``ra_rocsolver_lauu2``.

The drivers reach rocblas through :data:`blas` and their kernels through :data:`kern`.
"""

import numpy

from rocarray import rocblas as blas
from rocarray._core import matrix_args as _ma
from rocarray.rocsolver import _cholesky_kernels as kern
from rocarray.rocsolver import _info


def _split(n, nb):
    return max(1, (-(-n // nb) // 2)) * nb


def _tri_inverse(uplo, diag, n, A, lda, nb):
    if n <= nb:
        if n > 0:
            kern.trti2(uplo, diag, n, A, lda)
        return
    n1 = _split(n, nb)
    n2 = n - n1
    a22 = A[n1 + n1 * lda:]
    if uplo == "U":
        a12 = A[n1 * lda:]
        blas.trsm("L", "U", "N", diag, n1, n2, -1, A, lda, a12, lda)
        blas.trsm("R", "U", "N", diag, n1, n2, 1, a22, lda, a12, lda)
    else:
        a21 = A[n1:]
        blas.trsm("L", "L", "N", diag, n2, n1, -1, a22, lda, a21, lda)
        blas.trsm("R", "L", "N", diag, n2, n1, 1, A, lda, a21, lda)
    _tri_inverse(uplo, diag, n1, A, lda, nb)
    _tri_inverse(uplo, diag, n2, a22, lda, nb)


def invert(uplo, diag, n, A, lda, info, nb):
    """``A := inv(A)`` (triangle ``uplo`` of the order-``n`` matrix at ``A[0]``); ``info[0]`` := 1 +
    the first zero diagonal element, else 0 (``diag='U'``: 0)."""
    if diag == "N" and n > 0:
        kern.zero_diagonal(n, A, lda, 0, info, 1)
    else:
        info[:1].fill(0)
    _tri_inverse(uplo, diag, n, A, lda, nb)


def lauum(uplo, n, A, lda, nb):
    """``A := U U^H`` (upper) or ``L^H L`` (lower) in the ``uplo`` triangle, in place."""
    if n <= nb:
        if n > 0:
            kern.lauu2(uplo, n, A, lda)
        return
    n1 = _split(n, nb)
    n2 = n - n1
    a22 = A[n1 + n1 * lda:]
    complex_ = numpy.dtype(A.dtype).kind == "c"
    herk, ct = (blas.herk, "C") if complex_ else (blas.syrk, "T")
    lauum(uplo, n1, A, lda, nb)
    if uplo == "U":
        a12 = A[n1 * lda:]
        herk("U", "N", n1, n2, 1, a12, lda, 1, A, lda)
        blas.trmm("R", "U", ct, "N", n1, n2, 1, a22, lda, a12, lda)
    else:
        a21 = A[n1:]
        herk("L", ct, n1, n2, 1, a21, lda, 1, A, lda)
        blas.trmm("L", "L", ct, "N", n2, n1, 1, a22, lda, a21, lda)
    lauum(uplo, n2, a22, lda, nb)


def trtri(uplo, diag, n, A, lda, info):
    """Inverse of a triangular matrix, in place (``rocsolver_?trtri``).

    Parameters
    ----------
    uplo : {'U', 'L'}
        A is upper or lower triangular; the other triangle is neither read nor written.
    diag : {'N', 'U'}
        Non-unit diagonal, or unit diagonal (taken as 1, never read or written).
    n : int
        Order of A (>= 0).
    A : cupy.ndarray
        Column-major matrix (element (i, j) at ``A[i + j * lda]``; 1-D contiguous buffer or 2-D
        Fortran-ordered array), float32, float64, complex64 or complex128; overwritten with the
        inverse.
    lda : int
        Leading dimension, ``>= max(1, n)``.
    info : cupy.ndarray
        int32 device array of at least one element: 0, or ``k > 0`` when ``A(k-1, k-1)`` (0-based)
        is the first exact zero of the diagonal; A then holds meaningless values (inf/NaN).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-device buffers, an unsupported dtype, an info array that is not int32, non-integer sizes.
    ValueError
        Invalid ``uplo`` or ``diag``, a negative size, a leading dimension too small, a buffer too short.

    Notes
    -----
    Recursive halving onto rocblas trsm, one kernel per diagonal block; see
    :mod:`rocarray.rocsolver._trtri`.

    Examples
    --------
    >>> A = cupy.array([2.0, 0.0, 1.0, 4.0])   # [[2, 1], [0, 4]]
    >>> info = cupy.zeros(1, cupy.int32)
    >>> ra.rocsolver.trtri('U', 'N', 2, A, 2, info)   # doctest: +SKIP
    >>> A                                              # doctest: +SKIP
    array([ 0.5  ,  0.   , -0.125,  0.25 ])
    """
    fn = "rocsolver.trtri"
    uplo = _ma.option(uplo, "uplo", fn)
    diag = _ma.option(diag, "diag", fn)
    n = _ma.size(n, "n", fn)
    _ma.matrix_buffer(A, "A", fn)
    dtype = _ma.supported_dtype(A.dtype, _ma.STANDARD, fn)
    lda = _ma.leading_dimension(lda, n, "lda", fn)
    _info.info_buffer(info, 1, fn)
    if n > 0:
        _ma.matrix_bounds(A, n, n, lda, "A", fn)
    a = A.T.reshape(-1) if A.ndim == 2 else A.reshape(-1)
    invert(uplo, diag, n, a, lda, info, kern.leaf_order(dtype, kern.shared_limit(A)))
