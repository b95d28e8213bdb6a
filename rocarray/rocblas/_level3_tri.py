"""rocBLAS level 3 triangular routines: trmm and trsm, on gemm plus one small kernel.

``trsm(side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb)`` and ``trmm`` (same arguments)
take rocBLAS's arguments in rocBLAS's order, without the handle, with the reference BLAS's
semantics (column-major buffers as :func:`rocarray.rocblas.gemm`):

* ``B`` is m x n and is overwritten: trsm solves ``op(A) X = alpha B`` (``side='L'``) or
  ``X op(A) = alpha B`` (``side='R'``) for X; trmm computes ``alpha op(A) B`` or ``alpha B op(A)``.
  A is triangular of order ``m`` (left) or ``n`` (right); only its ``uplo`` triangle is read, and
  with ``diag='U'`` its diagonal is taken as 1 and never read. No test for singularity is made.
* trmm is the classic in-place BLAS form. (rocBLAS 6 changed ``rocblas_?trmm`` to an out-of-place
  ``C := alpha op(A) B`` with an extra ``C, ldc``; with ``C = B`` it is this routine.)
* ``m == 0`` or ``n == 0`` does nothing; ``alpha == 0`` sets B to zero without reading A or B.
* argument errors raise before the device is touched, in gemm's words.

Design
------
Recursive: the triangle of order s is halved (the first part a multiple of the leaf size), so
trsm is two half-size trsm and one gemm, e.g. for ``side='L'`` and lower op(A)::

    X1 = op(A)11^{-1} (alpha B1);  B2 := alpha B2 - op(A)21 X1 (gemm);  X2 = op(A)22^{-1} B2

(alpha rides on gemm's beta, so it is applied exactly once). trmm likewise: each half is a
half-size trmm plus one gemm with ``beta = 1`` ordered so that every gemm reads the other half
before it is overwritten. Recursion stops at diagonal blocks of
:func:`~rocarray.rocblas._level3_kernels.leaf_nb` rows (64; 32 for complex128), which one
launch of ``ra_rocblas_trsm_leaf`` / ``ra_rocblas_trmm_leaf`` solves or multiplies against all
right-hand sides at once (64 per block of 256 threads, rows in registers; see
``level3_tri.hip``). Right-side calls pass the rows of B as the vectors and
``op(A)^T`` as the block's matrix.

Flops: trsm/trmm do ``m^2 n / 2`` multiply-adds (left side). All but the leaves' ``m * nb * n / 2``
(a fraction ``nb / m``) run in gemm, and half of them in the top-level gemm of size
``m/2 x n x m/2``, so the speed follows gemm's. Launches: ``2 m / nb - 1``; the deep levels are
small gemms (k = 64 .. 512) bound by launch latency, and each leaf reads and writes its rows of B
once in ``nb`` barrier steps (the costs: docs/performance/rocblas.md).
"""

from rocarray.rocblas._arguments import check_bounds, check_ld, option, scalars, size
from rocarray.rocblas import _level3_kernels as _k

_OP_DOC = """

    Parameters
    ----------
    side : {{'L', 'R'}}
        op(A) multiplies B from the left (``'L'``) or from the right (``'R'``). Case-insensitive.
    uplo : {{'U', 'L'}}
        A is upper or lower triangular; the other triangle is never read.
    transA : {{'N', 'T', 'C'}}
        op(A) = A, A^T or A^H (A^T for real data).
    diag : {{'N', 'U'}}
        Non-unit diagonal, or unit diagonal (taken as 1 and never read).
    m, n : int
        B is m x n (>= 0); either 0 does nothing. A is m x m for ``side='L'``, n x n for ``'R'``.
    alpha : scalar
        Host scalar; complex only for complex data. ``alpha == 0`` sets B to zero (A and B not read).
    A : cupy.ndarray
        Column-major triangular matrix (element (i, j) at ``A[i + j * lda]``; 1-D contiguous
        buffer or 2-D Fortran-ordered array), float32, float64, complex64 or complex128.
    lda : int
        Leading dimension of A, ``>= max(1, m)`` (left) or ``>= max(1, n)`` (right).
    B : cupy.ndarray
        Column-major m x n matrix of A's dtype, overwritten with the result; must not overlap A.
    ldb : int
        Leading dimension of B, ``>= max(1, m)``.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or mismatched dtypes, complex alpha with real data,
        non-integer sizes.
    ValueError
        Invalid ``side``/``uplo``/``transA``/``diag``, negative sizes, a leading dimension too
        small, buffers too short or misaligned.

    Notes
    -----
    Recursive halving onto gemm with a small kernel for the diagonal blocks; see
    :mod:`rocarray.rocblas._level3_tri`.{notes}

    Examples
    --------
    >>> A = cupy.array([2.0, 0.0, 1.0, 4.0])   # [[2, 1], [0, 4]], upper
    >>> B = cupy.array([{b}])   # 2 x 1
    >>> ra.rocblas.{name}('L', 'U', 'N', 'N', 2, 1, 1.0, A, 2, B, 2)   # doctest: +SKIP
    >>> B                                                             # doctest: +SKIP
    array([{result}])
    """


def _args(fn, side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb):
    """Checked arguments, or None for a quick return (no device work)."""
    side = option(side, "side", fn)
    uplo = option(uplo, "uplo", fn)
    transA = option(transA, "transA", fn)
    diag = option(diag, "diag", fn)
    m, n = size(m, "m", fn), size(n, "n", fn)
    dtype = _k.check_operands(fn, (("A", A), ("B", B)))
    ka = m if side == "L" else n
    lda = check_ld(lda, ka, "lda", fn)
    ldb = check_ld(ldb, m, "ldb", fn)
    scalars(fn, dtype, alpha=alpha)
    if m == 0 or n == 0:
        return None
    check_bounds(A, ka, ka, lda, "A", fn)
    check_bounds(B, m, n, ldb, "B", fn)
    return side, uplo, transA, diag, m, n, dtype, lda, ldb


class _Tri:
    """One trsm/trmm call: pointers, options and the recursion over the triangle's index range."""

    def __init__(self, solve, side, uplo, transA, diag, m, n, dtype, A, lda, B, ldb):
        self.solve, self.side, self.transA = solve, side, transA
        self.m, self.n, self.dtype = m, n, dtype
        self.A, self.lda, self.B, self.ldb = A.data, lda, B.data, ldb
        self.device = A.data.device_id
        self.isz = dtype.itemsize
        self.nb = _k.leaf_nb(dtype)
        # op(A) lower triangular?
        self.lower = (uplo == "L") == (transA == "N")
        # the leaf's matrix: op(A) for the left side, op(A)^T for the right side
        conj = transA == "C" and dtype.kind == "c"
        trans = (transA != "N") if side == "L" else (transA == "N")
        self.flags = ((_k.UPPER if uplo == "U" else 0) | (_k.TRANS if trans else 0) | (_k.CONJ if conj else 0)
                      | (_k.UNIT if diag == "U" else 0))

    # op(A)[r0:r1, c0:c1] as a gemm operand: (pointer, trans)
    def op_a(self, r0, c0):
        if self.transA == "N":
            return _k.at(self.A, r0, c0, self.lda, self.isz), "N"
        return _k.at(self.A, c0, r0, self.lda, self.isz), self.transA

    def b(self, i, j):
        return _k.at(self.B, i, j, self.ldb, self.isz)

    def split(self, size):
        return (-(-size // self.nb) // 2) * self.nb

    def leaf(self, lo, hi, alpha):
        diag_block = _k.at(self.A, lo, lo, self.lda, self.isz)
        if self.side == "L":
            _k.leaf(self.device, self.dtype, self.solve, hi - lo, self.n, alpha, diag_block, self.lda,
                    self.b(lo, 0), 1, self.ldb, self.flags)
        else:
            _k.leaf(self.device, self.dtype, self.solve, hi - lo, self.m, alpha, diag_block, self.lda,
                    self.b(0, lo), self.ldb, 1, self.flags)

    def update(self, dst, src, alpha, beta):
        """``B[dst] := alpha * (op(A) coupling) B[src] + beta * B[dst]`` for index ranges dst, src."""
        (d0, d1), (s0, s1) = dst, src
        dt, dev, ldb = self.dtype, self.device, self.ldb
        if self.side == "L":  # B[d] (rows) += op(A)[d, s] B[s]
            a, ta = self.op_a(d0, s0)
            _k.gemm_ptrs(dev, dt, ta, "N", d1 - d0, self.n, s1 - s0, alpha, a, self.lda, self.b(s0, 0), ldb, beta,
                         self.b(d0, 0), ldb)
        else:  # B[:, d] += B[:, s] op(A)[s, d]
            a, ta = self.op_a(s0, d0)
            _k.gemm_ptrs(dev, dt, "N", ta, self.m, d1 - d0, s1 - s0, alpha, self.b(0, s0), ldb, a, self.lda, beta,
                         self.b(0, d0), ldb)

    def trsm(self, lo, hi, alpha):
        if hi - lo <= self.nb:
            self.leaf(lo, hi, alpha)
            return
        mid = lo + self.split(hi - lo)
        first, second = ((lo, mid), (mid, hi))
        # forward (first half solved first) for a lower op(A) on the left, an upper one on the right
        if self.lower != (self.side == "R"):
            self.trsm(lo, mid, alpha)
            self.update(second, first, -1, alpha)
            self.trsm(mid, hi, 1)
        else:
            self.trsm(mid, hi, alpha)
            self.update(first, second, -1, alpha)
            self.trsm(lo, mid, 1)

    def trmm(self, lo, hi, alpha):
        if hi - lo <= self.nb:
            self.leaf(lo, hi, alpha)
            return
        mid = lo + self.split(hi - lo)
        first, second = ((lo, mid), (mid, hi))
        # the half that is written from the other first, while the other still holds its input
        if self.lower != (self.side == "R"):   # left lower / right upper: the second half depends on the first
            self.trmm(mid, hi, alpha)
            self.update(second, first, alpha, 1)
            self.trmm(lo, mid, alpha)
        else:
            self.trmm(lo, mid, alpha)
            self.update(first, second, alpha, 1)
            self.trmm(mid, hi, alpha)


def _run(fn, solve, side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb):
    args = _args(fn, side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb)
    if args is None:
        return None
    side, uplo, transA, diag, m, n, dtype, lda, ldb = args
    if alpha == 0:  # B := 0, nothing read
        _k.gemm_ptrs(B.data.device_id, dtype, "N", "N", m, n, 0, 0, B.data, ldb, B.data, ldb, 0, B.data, ldb)
        return None
    tri = _Tri(solve, side, uplo, transA, diag, m, n, dtype, A, lda, B, ldb)
    size = m if side == "L" else n
    (tri.trsm if solve else tri.trmm)(0, size, alpha)
    return None


def trsm(side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb):
    return _run("trsm", True, side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb)


def trmm(side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb):
    return _run("trmm", False, side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb)


trsm.__doc__ = ("Solve ``op(A) X = alpha B`` or ``X op(A) = alpha B`` with A triangular, ``B := X`` "
                "(``rocblas_?trsm``)." + _OP_DOC.format(
                    name="trsm", b="4.0, 8.0", result="1., 2.",
                    notes=" No test for singularity is made (as in the reference BLAS): a zero on a non-unit "
                          "diagonal gives inf/NaN."))
trmm.__doc__ = ("``B := alpha op(A) B`` or ``B := alpha B op(A)`` with A triangular (``rocblas_?trmm``, the "
                "classic in-place form)." + _OP_DOC.format(
                    name="trmm", b="1.0, 2.0", result="4., 8.",
                    notes=" rocBLAS 6's out-of-place ``rocblas_?trmm(..., B, ldb, C, ldc)`` is this routine "
                          "with C = B (copy B to C first for the out-of-place result)."))
