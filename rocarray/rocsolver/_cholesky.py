"""rocSOLVER Cholesky routines: potrf, potrs and potri, plain and strided batched.

Design
------
potrf is recursive (Gustavson's and Toledo's recursive Cholesky): a matrix of order n splits at
``n1`` (about half, a multiple of the diagonal block order ``nb``); for ``A = L L^H`` (lower)::

    L11 = potrf(A11);  L21 = A21 L11^{-H} (panel);  A22 -= L21 L21^H (trailing update);
    L22 = potrf(A22)

and for ``A = U^H U`` (upper) ``U12 = U11^{-H} A12``, ``A22 -= U12^H U12``. Every diagonal
block (a leaf: order ``<= nb``) is factored by one launch of ``ra_rocsolver_potf2_inv`` (the
block in the registers of 256 threads, one barrier per column), which also writes the inverse
of its factor into a workspace (:func:`inverse_workspace`); ``nb`` is 128 (complex128: 64,
:func:`~._cholesky_kernels.inverse_leaf_order`). Pairs of leaves form the blocks of order
``P = 2 nb`` whose inverses the panels use: above P the recursion splits at multiples of P, and
a node of order P joins its leaves' inverses by two gemms (:func:`merge`). The panel solve
(:func:`panel`) is a recursive triangular solve whose leaves are gemms with those inverses
(``B := S inv(L_kk)^H`` with S a copy of B's right-hand sides: gemm cannot write its input, so
the panel is staged in the workspace, one copy for a whole panel up to :data:`STAGE_BYTES`, and
its inner updates run on the staged copy) and whose inner steps are gemm updates, so potrf
launches no trsm: leaves, copies, gemms and the trailing updates only. The trailing update is
rocblas syrk/herk, or, where the caller lets the other triangle be scratch (``keep_other=False``,
as ``ra.linalg.cholesky`` does), gemms straight into A that also write that triangle inside
their diagonal squares (:func:`trailing_update`: no workspace and no merge of the squares).
Half of the ``n^3 / 3`` flops are in the top-level trailing update and panel of order ``n / 2``,
so the speed follows rocblas gemm; the diagonal blocks are on the critical path only.

Accuracy of the inverse-based panel. The leaf step replaces the substitution ``X L_kk^H = B``
by ``X = B inv(L_kk)^H`` with a computed inverse: this is how rocBLAS's and cuBLAS's own trsm
treat their diagonal blocks, and LAPACK-style block methods with explicitly inverted diagonal
blocks are analysed by Du Croz and Higham (Stability of methods for matrix inversion, IMA J.
Numer. Anal. 12, 1992) and Demmel, Higham and Schreiber (Stability of block LU factorization,
Numer. Linear Algebra Appl. 2, 1995). The inverse of a triangular block computed column by
column (here: forward substitution for ``L X = I``, in right-looking order; each column of X
is a substitution) has a small right residual, ``|L X - I| <= c nb u |L| |X|`` (Du Croz and
Higham; Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., ch. 14), and the gemm
adds ``E``, ``|E| <= gamma_nb |B| |X^H|``. The panel's residual is then
``L21 L_kk^H - B = B (L_kk X - I)^H + E L_kk^H``, bounded by ``c nb u |B| |X^H| |L_kk^H|``, i.e.
``c nb u kappa(L_kk) |B|`` in norm instead of substitution's ``c nb u |L21| |L_kk^H|``: larger at
most by the condition of a diagonal block of the factor, which
is ``sqrt(kappa)`` of that diagonal block of A (or of a Schur complement) and, for an SPD
matrix, at most ``sqrt(kappa(A))``. The joined inverse of a block of order P,
``X21 = -X22 (S21 X11)``, multiplies by the half blocks' computed inverses where a substitution
would solve with ``L22`` (a block variant of the methods Du Croz and Higham analyse), which can
add up to ``kappa`` of a half block to its residual; the panel's bound keeps its form with
``L_kk`` of order P. With blocks of order 256 the growth stays within a few times the
substitution's in practice; the GPU tests compare the backward error with NumPy's (LAPACK's
substitution-based) potrf and with cuSOLVER's on matrices of condition 1e10.

A strided batch of matrices of order up to 128 (complex128: 64) is factored by one launch of
``ra_rocsolver_potrf_block`` (each matrix in the registers of a group of threads, one barrier
per column; :mod:`._cholesky_block`); a batch of larger matrices that fit one block's shared
memory by one launch of ``ra_rocsolver_potf2`` (a thread block per matrix); larger matrices go
one by one through the recursion. ``info`` is zeroed first; a leaf that finds a non-positive (or NaN) pivot writes its
global column where ``info`` is still 0, so the first failure is what stays; the steps after it
run on to the end (their values, the inverses' included, are then meaningless, as LAPACK's
matrix after a failure is) without any iteration that could hang.

potrs solves with two rocblas trsm per matrix (``L Y = B, L^H X = Y`` or ``U^H Y = B, U X = Y``);
a batch of factors that fit one block is solved by one launch of ``ra_rocsolver_potrs_small``.
potri is trtri of the factor followed by lauum (:mod:`._trtri`).

The drivers reach rocblas through :data:`blas` and their kernels through :data:`kern` (module
attributes), which the CPU tests replace with NumPy stand-ins.
"""

import numpy

from rocarray import rocblas as blas
from rocarray._core import args as _args, matrix_args as _ma
from rocarray.rocsolver import _cholesky_block as block
from rocarray.rocsolver import _cholesky_kernels as kern
from rocarray.rocsolver import _info
from rocarray.rocsolver import _trtri


# --------------------------------------------------------------------------------------------
# shared argument handling
# --------------------------------------------------------------------------------------------

def flat(A):
    """A contiguous 1-D view of a checked matrix buffer (a Fortran-ordered 2-D array's columns)."""
    if A.ndim == 2:
        return A.T.reshape(-1)
    return A.reshape(-1)


def check_matrix(fn, A, name, dtype=None):
    """A matrix buffer of a supported dtype (and of ``dtype`` when given); returns its dtype."""
    _ma.matrix_buffer(A, name, fn)
    got = _ma.supported_dtype(A.dtype, _ma.STANDARD, fn)
    if dtype is not None and got != dtype:
        raise TypeError(f"{fn}: {name} must have the dtype of A ({dtype.name}), got {got.name}")
    return got


def split(n, nb):
    """Order of the first half of a recursive step: about ``n / 2``, a multiple of ``nb``, ``0 < n1 < n``."""
    return max(1, (-(-n // nb) // 2)) * nb


def rank_k(dtype):
    """The rocblas update ``C := alpha op(A) op(A)^H + C`` of ``dtype`` and its conjugate-transpose flag."""
    return (blas.herk, "C") if numpy.dtype(dtype).kind == "c" else (blas.syrk, "T")


def conj_trans(dtype):
    return "C" if numpy.dtype(dtype).kind == "c" else "T"


# --------------------------------------------------------------------------------------------
# drivers on 1-D buffers (no checks)
# --------------------------------------------------------------------------------------------

#: Largest panel staged whole in the workspace (bytes; :func:`panel`): a larger one is split
#: by the recursion until its parts fit.
STAGE_BYTES = 32 << 20


#: The panel solves use the inverses of diagonal blocks of this many leaves (of order
#: ``MERGED_LEAVES * nb``, :func:`factor_inv`): fewer and wider panel gemms.
MERGED_LEAVES = 2


def inverse_workspace(n, nb, A):
    """Scratch for :func:`factor_inv` of order ``n`` with leaves of ``nb``: the inverses of the
    diagonal blocks of order ``P = MERGED_LEAVES * nb`` (block q at ``q * P * P``, leading
    dimension P; zeroed here, as the blocks' upper parts are never written) and the staging area
    of :func:`panel` (room for the largest panel up to :data:`STAGE_BYTES`, and for at least
    ``n * P`` elements)."""
    P = MERGED_LEAVES * nb
    blocks = -(-n // P)
    n1 = split(n, P) if n > P else 0
    stage = max(n * P, min(STAGE_BYTES // numpy.dtype(A.dtype).itemsize, n1 * (n - n1)))
    buf = kern.scratch(A, blocks * P * P + stage)
    inv = buf[:blocks * P * P]
    kern.zero(inv)
    return inv, buf[blocks * P * P:]


def factor_inv(uplo, n, A, lda, info, nb, inv, tmp, j0=0, keep_other=True, need_inverse=False):
    """The recursion of the module's Design: the diagonal blocks by ``potf2_inv`` (order
    ``<= nb``), the panel solves through inverses of diagonal blocks of order
    ``P = MERGED_LEAVES * nb`` (:func:`panel`).

    Above P the recursion splits at multiples of P, inside a block of order ``<= P`` at multiples
    of nb, so the blocks of P are aligned at multiples of P from the top. ``inv`` points at this
    node's place on the diagonal of its block's inverse (leading dimension P; the block at column
    c has its inverse at ``(c // P) * P * P``, zero above the diagonal): a leaf writes its inverse
    there, and a node of order ``<= P`` joins its halves' inverses into its own (:func:`merge`)
    where a panel will read it (``need_inverse``: every left half, not the matrix's last block).
    ``keep_other=False``: the trailing updates may write the strict other triangle
    (:func:`trailing_update`)."""
    P = MERGED_LEAVES * nb
    if n <= nb:
        if n > 0:
            kern.potf2_inv(uplo, n, A, lda, inv, P, info, j0)
        return
    n1 = split(n, P if n > P else nb)
    n2 = n - n1
    factor_inv(uplo, n1, A, lda, info, nb, inv, tmp, j0, keep_other, True)
    w = A[n1:] if uplo == "L" else A[n1 * lda:]   # L21 (n2 x n1) or U12 (n1 x n2)
    panel(uplo, n2, n1, A, lda, w, lda, inv, P, tmp)
    a22 = A[n1 + n1 * lda:]
    if keep_other:
        herk, ct = rank_k(A.dtype)
        herk(uplo, "N" if uplo == "L" else ct, n2, n1, -1, w, lda, 1, a22, lda)
    else:
        trailing_update(uplo, n2, n1, w, lda, a22, lda)
    inv2 = inv[(n1 // P) * P * P:] if n > P else inv[n1 + n1 * P:]
    factor_inv(uplo, n2, a22, lda, info, nb, inv2, tmp, j0 + n1, keep_other, need_inverse)
    if n <= P and need_inverse:
        merge(uplo, n1, n2, w, lda, inv, P, tmp)


def merge(uplo, n1, n2, W, ldw, X, ldx, tmp):
    """The inverse of a factor's lower normal form S (L, or U^H) of order ``n1 + n2`` from its
    halves' inverses X11, X22 (on X's diagonal, leading dimension ``ldx``; X12 is zero):
    ``X21 := -X22 (S21 X11)``, S21 = L21 (lower; W is L21, n2 x n1) or U12^H (upper; W is U12,
    n1 x n2), the product staged in ``tmp``."""
    ct = conj_trans(W.dtype)
    if uplo == "L":
        blas.gemm("N", "N", n2, n1, n1, 1, W, ldw, X, ldx, 0, tmp, n2)
    else:
        blas.gemm(ct, "N", n2, n1, n1, 1, W, ldw, X, ldx, 0, tmp, n2)
    blas.gemm("N", "N", n2, n1, n2, -1, X[n1 + n1 * ldx:], ldx, tmp, n2, 0, X[n1:], ldx)


#: Order of the diagonal squares of :func:`trailing_update`.
UPDATE_DIAGONAL = 512


def trailing_update(uplo, n, k, W, ldw, C, ldc):
    """``C := C - W W^H`` (lower; W is n x k) or ``C := C - W^H W`` (upper; W is k x n) on C's
    ``uplo`` triangle, by gemms that also write C's strict other triangle inside the diagonal
    squares (leaving meaningless values there): the rank-k update of a factorization whose caller
    discards that triangle.

    C splits into diagonal squares of :data:`UPDATE_DIAGONAL` (one gemm of the whole square up to
    that order). The strict triangle outside them is covered level by level, as rocblas syrk
    covers it: at level h = 1, 2, 4, ... the block pairs (rows ``[i+h, i+2h)``, columns
    ``[i, i+h)`` of squares, i = 0, 2h, 4h, ...) are equal-sized, one strided batched gemm (and
    one for a ragged last pair); the diagonal squares are one more strided batched gemm straight
    into C. So syrk's launches, without its workspace and the merge of the squares' triangles."""
    ct = conj_trans(W.dtype)
    ta, tb = ("N", ct) if uplo == "L" else (ct, "N")
    row = 1 if uplo == "L" else ldw    # elements from row i of op(W) to row i + 1

    def product(r0, c0, rows, cols, count=1, step=0):
        # C[r0:r0+rows, c0:c0+cols] -= op(W)[r0:] op(W)[c0:]^H, ``count`` times ``step`` further
        a, b, c = W[r0 * row:], W[c0 * row:], C[r0 + c0 * ldc:]
        if count == 1:
            blas.gemm(ta, tb, rows, cols, k, -1, a, ldw, b, ldw, 1, c, ldc)
        else:
            blas.gemm_strided_batched(ta, tb, rows, cols, k, -1, a, ldw, step * row, b, ldw, step * row, 1, c,
                                      ldc, step * (1 + ldc), count)

    D = UPDATE_DIAGONAL
    blocks = -(-n // D)
    h = 1
    while h < blocks:
        span = 2 * h
        full = sum(1 for i in range(0, blocks, span) if (i + span) * D <= n)
        parts = [(0, full, h * D)] if full else []
        parts += [(i, 1, n - (i + h) * D) for i in range(full * span, blocks, span) if i + h < blocks]
        for first, count, rows in parts:
            r0, c0 = (first + h) * D, first * D   # rows r0.., columns c0.. (lower); the mirror (upper)
            if uplo == "L":
                product(r0, c0, rows, h * D, count, span * D)
            else:
                product(c0, r0, h * D, rows, count, span * D)
        h *= 2
    full = n // D
    if full:
        product(0, 0, D, D, full, D)
    if full * D < n:
        product(full * D, full * D, n - full * D, n - full * D)


def panel(uplo, m, k, T, ldt, B, ldb, inv, nb, tmp, staged=None):
    """The panel solve of the recursion with the factor T (order k, a multiple of nb or at most
    nb) whose diagonal blocks' inverses are in ``inv``: ``B := B T^{-H}`` (lower; B is m x k) or
    ``B := T^{-H} B`` (upper; B is k x m). Recursive as a trsm, with each leaf one gemm with the
    block's inverse instead of a triangular solve.

    A gemm cannot write its input, so the right-hand sides are staged: the first call whose panel
    fits ``tmp`` copies it there (one copy for the whole panel), its leaves' gemms read the staged
    block and write B, and its updates run on the staged copy. ``staged`` is ``(S, lds)``, where
    B's current right-hand sides are (None: in B itself, not staged yet)."""
    ct = conj_trans(B.dtype)
    rows, cols = (m, k) if uplo == "L" else (k, m)
    if staged is None and (k <= nb or rows * cols <= tmp.size):
        kern.lacpy(rows, cols, B, ldb, tmp, rows)
        staged = (tmp, rows)
    if k <= nb:
        S, lds = staged
        if uplo == "L":   # B := S inv(L)^H
            blas.gemm("N", ct, m, k, k, 1, S, lds, inv, nb, 0, B, ldb)
        else:             # B := inv(U^H) S
            blas.gemm("N", "N", k, m, k, 1, inv, nb, S, lds, 0, B, ldb)
        return
    k1 = split(k, nb)
    k2 = k - k1
    panel(uplo, m, k1, T, ldt, B, ldb, inv, nb, tmp, staged)
    # the second half's right-hand sides (in B, or staged) less the solved first half's part
    if uplo == "L":   # B2 -= X1 T21^H
        b2 = B[k1 * ldb:]
        c2, ldc = (b2, ldb) if staged is None else (staged[0][k1 * staged[1]:], staged[1])
        blas.gemm("N", ct, m, k2, k1, -1, B, ldb, T[k1:], ldt, 1, c2, ldc)
    else:             # B2 -= T12^H X1
        b2 = B[k1:]
        c2, ldc = (b2, ldb) if staged is None else (staged[0][k1:], staged[1])
        blas.gemm(ct, "N", k2, m, k1, -1, T[k1 * ldt:], ldt, B, ldb, 1, c2, ldc)
    panel(uplo, m, k2, T[k1 + k1 * ldt:], ldt, b2, ldb, inv[(k1 // nb) * nb * nb:], nb, tmp,
          None if staged is None else (c2, ldc))


def factor_batch(uplo, n, A, lda, stride, info, batch, limit, keep_other=True):
    """potrf of ``batch`` matrices: one launch of the register-tile kernel for a batch of orders it
    takes (:mod:`._cholesky_block`), else one launch of potf2 when a batch fits one block's shared
    memory, else one recursion each (:func:`factor_inv`; ``keep_other=False`` lets its trailing
    updates write the other triangle)."""
    if batch > 1 and block.takes(n, A.dtype):
        block.potrf(uplo, n, A, lda, stride, info, batch)   # writes every info
        return
    kern.clear_info(info, batch)
    if n == 0 or batch == 0:
        return
    if batch > 1 and kern.fits(n, A.dtype, limit):
        kern.potf2(uplo, n, A, lda, stride, info, batch)
        return
    nbi = kern.inverse_leaf_order(A.dtype)
    inv, tmp = inverse_workspace(n, nbi, A)
    for b in range(batch):
        factor_inv(uplo, n, A[b * stride:], lda, info[b:], nbi, inv, tmp, keep_other=keep_other)


def solve(uplo, n, nrhs, A, lda, B, ldb):
    """``B := inv(A) B`` with A's Cholesky factor (two triangular solves)."""
    if n == 0 or nrhs == 0:
        return
    ct = conj_trans(A.dtype)
    if uplo == "L":
        blas.trsm("L", "L", "N", "N", n, nrhs, 1, A, lda, B, ldb)
        blas.trsm("L", "L", ct, "N", n, nrhs, 1, A, lda, B, ldb)
    else:
        blas.trsm("L", "U", ct, "N", n, nrhs, 1, A, lda, B, ldb)
        blas.trsm("L", "U", "N", "N", n, nrhs, 1, A, lda, B, ldb)


def solve_batch(uplo, n, nrhs, A, lda, stride_a, B, ldb, stride_b, batch, limit):
    """potrs of ``batch`` systems: one launch when the factors fit one block, else two trsm each."""
    if n == 0 or nrhs == 0 or batch == 0:
        return
    if batch > 1 and kern.fits(n, A.dtype, limit):
        kern.potrs_small(uplo, n, nrhs, A, lda, stride_a, B, ldb, stride_b, batch)
        return
    for b in range(batch):
        solve(uplo, n, nrhs, A[b * stride_a:], lda, B[b * stride_b:], ldb)


# --------------------------------------------------------------------------------------------
# public routines
# --------------------------------------------------------------------------------------------

def _potrf_args(fn, uplo, n, A, lda, info, batch=1, stride=None):
    uplo = _ma.option(uplo, "uplo", fn)
    n = _ma.size(n, "n", fn)
    batch = _ma.size(batch, "batch_count", fn)
    dtype = check_matrix(fn, A, "A")
    lda = _ma.leading_dimension(lda, n, "lda", fn)
    stride = 0 if stride is None else _ma.size(stride, "strideA", fn)
    _info.info_buffer(info, batch, fn)
    if n > 0 and batch > 0:
        _ma.matrix_bounds(A, n, n, lda, "A", fn, batch, stride)
    return uplo, n, dtype, lda, stride, batch


def potrf(uplo, n, A, lda, info):
    """Cholesky factorization of a Hermitian positive definite matrix (``rocsolver_?potrf``).

    ``A = L L^H`` (``uplo='L'``) or ``A = U^H U`` (``'U'``; ``^H`` is ``^T`` for real data); the
    factor overwrites the ``uplo`` triangle of A, the other triangle is neither read nor written.

    Parameters
    ----------
    uplo : {'U', 'L'}
        Which triangle of A is stored and factored. Case-insensitive.
    n : int
        Order of A (>= 0).
    A : cupy.ndarray
        Column-major matrix (element (i, j) at ``A[i + j * lda]``; 1-D contiguous buffer or 2-D
        Fortran-ordered array), float32, float64, complex64 or complex128. For complex data the
        imaginary parts of the diagonal are taken as zero.
    lda : int
        Leading dimension, ``>= max(1, n)``.
    info : cupy.ndarray
        int32 device array of at least one element: 0 on success, ``k > 0`` when the leading
        minor of order k is not positive definite (its pivot is <= 0 or NaN); the factorization
        then is not complete. Written on the device, never synchronized.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-device buffers, an unsupported dtype, an info array that is not int32, non-integer sizes.
    ValueError
        Invalid ``uplo``, a negative size, a leading dimension too small, buffers too short.

    Notes
    -----
    Recursive: one kernel launch per diagonal block of order <= 128 (factor and inverse), gemm
    and syrk/herk of rocblas for the off-diagonal blocks; see :mod:`rocarray.rocsolver._cholesky`.

    Examples
    --------
    >>> A = cupy.array([4.0, 2.0, 2.0, 3.0])           # [[4, 2], [2, 3]]
    >>> info = cupy.zeros(1, cupy.int32)
    >>> ra.rocsolver.potrf('L', 2, A, 2, info)         # doctest: +SKIP
    >>> A[[0, 1, 3]]                                   # doctest: +SKIP
    array([2.        , 1.        , 1.41421356])
    """
    fn = "rocsolver.potrf"
    uplo, n, dtype, lda, _, _ = _potrf_args(fn, uplo, n, A, lda, info)
    factor_batch(uplo, n, flat(A), lda, 0, info, 1, kern.shared_limit(A))


def potrf_strided_batched(uplo, n, A, lda, strideA, info, batch_count, *, keep_other=True):
    """Cholesky factorization of ``batch_count`` matrices ``strideA`` elements apart
    (``rocsolver_?potrf_strided_batched``).

    Matrix b starts at ``A[b * strideA]``; ``info[b]`` is its status, as in :func:`potrf`.
    A batch of matrices of order up to 128 (complex128: 64) is factored by one kernel launch,
    each matrix in the registers of a group of threads (16 matrices a thread block up to order
    32, 4 up to 64, 1 up to 128); larger matrices that fit one block's shared memory by one
    launch, a thread block per matrix; larger ones one after another by :func:`potrf`'s
    recursion.

    Parameters
    ----------
    uplo : {'U', 'L'}
        Which triangle is stored and factored.
    n : int
        Order of each matrix (>= 0).
    A : cupy.ndarray
        Column-major matrices in one buffer (1-D contiguous or 2-D Fortran-ordered), float32,
        float64, complex64 or complex128.
    lda : int
        Leading dimension, ``>= max(1, n)``.
    strideA : int
        Elements from one matrix to the next (>= 0; matrices should not overlap).
    info : cupy.ndarray
        int32 device array of at least ``batch_count`` elements (see :func:`potrf`).
    batch_count : int
        Number of matrices (>= 0).
    keep_other : bool, optional
        True (rocSOLVER's contract): the strict other triangle is neither read nor written.
        False: it is scratch, left with meaningless values (a caller that zeroes it, as
        ``ra.linalg.cholesky`` does, saves the trailing updates' merge of their diagonal blocks).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        As :func:`potrf`.
    ValueError
        As :func:`potrf`; an info array shorter than ``batch_count``.

    Examples
    --------
    >>> A = cupy.array([4.0, 0.0, 0.0, 9.0] * 3)
    >>> info = cupy.zeros(3, cupy.int32)
    >>> ra.rocsolver.potrf_strided_batched('U', 2, A, 2, 4, info, 3)   # doctest: +SKIP
    """
    fn = "rocsolver.potrf_strided_batched"
    uplo, n, dtype, lda, stride, batch = _potrf_args(fn, uplo, n, A, lda, info, batch_count, strideA)
    limit = kern.shared_limit(A)
    factor_batch(uplo, n, flat(A), lda, stride, info, batch, limit, bool(keep_other))


def potrf_small_supported(n, dtype):
    """Whether :func:`potrf_small_batched` takes matrices of order ``n`` and ``dtype``.

    Parameters
    ----------
    n : int
        Order.
    dtype : numpy.dtype
        float32, float64, complex64 or complex128.

    Returns
    -------
    bool
        True for orders 1 to 128 (complex128: 64).
    """
    dtype = numpy.dtype(dtype)
    return dtype in _ma.STANDARD and block.takes(int(n), dtype)


def potrf_small_batched(A, F, info, uplo="L"):
    """Cholesky factors of a batch of small matrices given as strided arrays (a rocarray extension:
    rocSOLVER's potrf takes column-major buffers and works in place).

    Parameters
    ----------
    A : cupy.ndarray
        ``(batch, n, n)`` Hermitian positive definite matrices, float32, float64, complex64 or
        complex128, any whole-element strides, with ``n`` as :func:`potrf_small_supported`
        allows. Only its ``uplo`` triangle (``A[b, i, k]`` with ``i >= k`` for ``'L'``) is read;
        the imaginary parts of the diagonal are taken as zero.
    F : cupy.ndarray
        Array of A's shape and dtype, any strides; written: ``A[b] = L L^H`` with L in and below
        the diagonal (``'L'``), or ``A[b] = U^H U`` with U in and above it (``'U'``), zeros in
        the other triangle. It may be A itself, and must not otherwise overlap it. A matrix whose
        ``info`` is not 0 is left as LAPACK's potf2 leaves its triangle.
    info : cupy.ndarray
        int32, at least ``batch`` elements (contiguous): 0, or ``k > 0`` when the leading minor
        of order k is the first that is not positive definite (its pivot <= 0 or NaN).
    uplo : {'L', 'U'}, optional
        The triangle read and the factor's.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy arrays, unsupported or mismatched dtypes.
    ValueError
        Shapes that are not ``(batch, n, n)`` alike, an order :func:`potrf_small_supported`
        refuses, another device, strides that are not whole elements, an invalid ``uplo``.

    Notes
    -----
    One launch (:mod:`rocarray.rocsolver._cholesky_block`): each matrix in the registers of a
    group of 16, 64 or 256 threads, one barrier per column; the input is read where it lies and
    the factor written with its zeros in the same pass. Nothing is synchronized.

    Examples
    --------
    >>> a = cupy.asarray(numpy.eye(3) * 4).reshape(1, 3, 3)
    >>> f, info = cupy.empty_like(a), cupy.zeros(1, cupy.int32)
    >>> ra.rocsolver.potrf_small_batched(a, f, info)   # doctest: +SKIP
    """
    where = "rocsolver.potrf_small_batched"
    uplo = _ma.option(uplo, "uplo", where)
    for name, x in (("A", A), ("F", F)):
        _args.device_array(x, name, where)
        if x.ndim != 3 or x.shape[1] != x.shape[2]:
            raise ValueError(f"{where}: {name} must be (batch, n, n), got shape {x.shape}")
        if any(s % x.dtype.itemsize for s in x.strides):
            raise ValueError(f"{where}: {name}'s strides must be whole elements, got {x.strides}")
    dtype = _ma.supported_dtype(A.dtype, _ma.STANDARD, where)
    if F.dtype != dtype:
        raise TypeError(f"{where}: F must have the dtype of A ({dtype.name}), got {F.dtype.name}")
    if F.shape != A.shape:
        raise ValueError(f"{where}: F must have A's shape {A.shape}, got {F.shape}")
    if F.data.device_id != A.data.device_id:
        raise ValueError(f"{where}: F is on device {F.data.device_id} but A is on device {A.data.device_id}")
    batch, n = A.shape[0], A.shape[1]
    if not potrf_small_supported(n, dtype):
        raise ValueError(f"{where}: matrices of order {n} of {dtype.name} are not taken (1 to "
                         f"{block.max_order(dtype)})")
    info = _info.info_buffer(info, batch, where).ravel()
    block.factor_stack(uplo, A, F, info)


def _potrs_args(fn, uplo, n, nrhs, A, lda, B, ldb, batch=1, stride_a=None, stride_b=None):
    uplo = _ma.option(uplo, "uplo", fn)
    n = _ma.size(n, "n", fn)
    nrhs = _ma.size(nrhs, "nrhs", fn)
    batch = _ma.size(batch, "batch_count", fn)
    dtype = check_matrix(fn, A, "A")
    check_matrix(fn, B, "B", dtype)
    if B.data.device_id != A.data.device_id:
        raise ValueError(f"{fn}: B is on device {B.data.device_id} but A is on device {A.data.device_id}")
    lda = _ma.leading_dimension(lda, n, "lda", fn)
    ldb = _ma.leading_dimension(ldb, n, "ldb", fn)
    stride_a = 0 if stride_a is None else _ma.size(stride_a, "strideA", fn)
    stride_b = 0 if stride_b is None else _ma.size(stride_b, "strideB", fn)
    if n > 0 and batch > 0:
        _ma.matrix_bounds(A, n, n, lda, "A", fn, batch, stride_a)
        if nrhs > 0:
            _ma.matrix_bounds(B, n, nrhs, ldb, "B", fn, batch, stride_b)
    return uplo, n, nrhs, lda, ldb, stride_a, stride_b, batch


def potrs(uplo, n, nrhs, A, lda, B, ldb):
    """Solve ``A X = B`` with A's Cholesky factor from :func:`potrf` (``rocsolver_?potrs``).

    ``B`` (n x nrhs) is overwritten with X. Two triangular solves (rocblas trsm):
    ``L L^H X = B`` or ``U^H U X = B``. No test for singularity is made.

    Parameters
    ----------
    uplo : {'U', 'L'}
        The triangle holding the factor.
    n, nrhs : int
        Order of A and number of right-hand sides (>= 0).
    A : cupy.ndarray
        The factor from :func:`potrf` (column-major, float32, float64, complex64 or complex128).
    lda : int
        Leading dimension of A, ``>= max(1, n)``.
    B : cupy.ndarray
        Column-major n x nrhs right-hand sides of A's dtype, overwritten with the solution.
    ldb : int
        Leading dimension of B, ``>= max(1, n)``.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-device buffers, unsupported or mismatched dtypes, non-integer sizes.
    ValueError
        Invalid ``uplo``, negative sizes, leading dimensions too small, buffers too short.

    Examples
    --------
    >>> ra.rocsolver.potrs('L', n, 1, A, n, b, n)   # doctest: +SKIP
    """
    fn = "rocsolver.potrs"
    uplo, n, nrhs, lda, ldb, _, _, _ = _potrs_args(fn, uplo, n, nrhs, A, lda, B, ldb)
    solve(uplo, n, nrhs, flat(A), lda, flat(B), ldb)


def potrs_strided_batched(uplo, n, nrhs, A, lda, strideA, B, ldb, strideB, batch_count):
    """:func:`potrs` for ``batch_count`` systems (``rocsolver_?potrs_strided_batched``).

    Factor b starts at ``A[b * strideA]``, its right-hand sides at ``B[b * strideB]``. Factors
    that fit one block's shared memory (order up to 128 in float64) are solved by one launch for
    the whole batch (a thread block per system, a thread per right-hand side); larger ones by two
    rocblas trsm each.

    Parameters
    ----------
    uplo : {'U', 'L'}
        The triangle holding the factors.
    n, nrhs : int
        Order of each A and right-hand sides per system (>= 0).
    A : cupy.ndarray
        Factors from :func:`potrf_strided_batched`.
    lda : int
        Leading dimension of each A.
    strideA : int
        Elements from one factor to the next.
    B : cupy.ndarray
        Right-hand sides of A's dtype, overwritten with the solutions.
    ldb : int
        Leading dimension of each B.
    strideB : int
        Elements from one B to the next.
    batch_count : int
        Number of systems (>= 0).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        As :func:`potrs`.
    ValueError
        As :func:`potrs`.

    Examples
    --------
    >>> ra.rocsolver.potrs_strided_batched('L', n, 1, A, n, n * n, B, n, n, batch)   # doctest: +SKIP
    """
    fn = "rocsolver.potrs_strided_batched"
    uplo, n, nrhs, lda, ldb, sa, sb, batch = _potrs_args(fn, uplo, n, nrhs, A, lda, B, ldb, batch_count, strideA,
                                                         strideB)
    solve_batch(uplo, n, nrhs, flat(A), lda, sa, flat(B), ldb, sb, batch, kern.shared_limit(A))


def potri(uplo, n, A, lda, info):
    """Inverse of a Hermitian positive definite matrix from its Cholesky factor (``rocsolver_?potri``).

    A holds the factor from :func:`potrf` in its ``uplo`` triangle; that triangle is overwritten
    with the same triangle of ``inv(A)``: ``inv(U) inv(U)^H`` or ``inv(L)^H inv(L)``.

    Parameters
    ----------
    uplo : {'U', 'L'}
        The triangle holding the factor.
    n : int
        Order of A (>= 0).
    A : cupy.ndarray
        Column-major factor (float32, float64, complex64 or complex128), overwritten.
    lda : int
        Leading dimension, ``>= max(1, n)``.
    info : cupy.ndarray
        int32 device array: 0, or ``k > 0`` when the factor's k-th diagonal element is zero (the
        inverse does not exist; A then holds meaningless values).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        As :func:`potrf`.
    ValueError
        As :func:`potrf`.

    Notes
    -----
    trtri (recursive, rocblas trsm) followed by lauum (recursive, rocblas herk/syrk and trmm),
    each with one kernel per diagonal block; see :mod:`rocarray.rocsolver._trtri`.

    Examples
    --------
    >>> ra.rocsolver.potrf('L', n, A, n, info); ra.rocsolver.potri('L', n, A, n, info)   # doctest: +SKIP
    """
    fn = "rocsolver.potri"
    uplo, n, dtype, lda, _, _ = _potrf_args(fn, uplo, n, A, lda, info)
    a = flat(A)
    nb = kern.leaf_order(dtype, kern.shared_limit(A))
    _trtri.invert(uplo, "N", n, a, lda, info, nb)
    _trtri.lauum(uplo, n, a, lda, nb)
