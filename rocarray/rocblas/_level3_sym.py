"""rocBLAS level 3 symmetric/Hermitian routines on gemm: symm, hemm, syrk, herk, syr2k, her2k.

The functions take rocBLAS's arguments in rocBLAS's order, without the handle, with the
reference BLAS's semantics (column-major buffers as :func:`rocarray.rocblas.gemm`)::

    symm/hemm(side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc)
    syrk/herk(uplo, transA, n, k, alpha, A, lda, beta, C, ldc)
    syr2k/her2k(uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc)

* symm/hemm: ``C := alpha A B + beta C`` (``side='L'``, A m x m) or ``alpha B A + beta C``
  (``'R'``, A n x n), A symmetric (hemm: Hermitian, the imaginary parts of its diagonal taken as
  zero); only its ``uplo`` triangle is read.
* syrk/herk: ``C := alpha op(A) op(A)^T + beta C`` (herk: ``op(A) op(A)^H``, real alpha and
  beta) with op(A) = A (n x k, ``'N'``) or A^T (A^H for herk; A is k x n). syr2k/her2k:
  ``C := alpha op(A) op(B)^T + alpha op(B) op(A)^T + beta C`` (her2k: ``alpha op(A) op(B)^H +
  conj(alpha) op(B) op(A)^H``, real beta). Only the ``uplo`` triangle of C is read and written;
  herk/her2k set the imaginary parts of its diagonal to zero. trans: ``'N'``/``'T'`` (real data
  also ``'C'``, meaning ``'T'``) for syrk/syr2k, ``'N'``/``'C'`` for herk/her2k.
* ``alpha == 0`` (or ``k == 0``) reads neither A nor B; ``beta == 0`` never reads C; with
  ``beta == 1`` as well they return at once (like the reference BLAS, which then leaves even a
  Hermitian diagonal's imaginary parts alone).
* argument errors raise before the device is touched, in gemm's words; hemm/herk/her2k on real
  data raise ``TypeError`` (rocBLAS has no real hemm either: use symm/syrk/syr2k).

Design
------
* symm/hemm expand the symmetric matrix, one panel of :data:`SYMM_PANEL_BYTES` at most (full
  columns ``j0 .. j0+P``), into a workspace (``ra_rocblas_symm_expand``, one read of the triangle
  and one write: memory speed), and multiply the panel with one gemm each: left
  ``C (+)= alpha W B[j0:j0+P, :]``, right ``C (+)= alpha B[:, j0:j0+P] W^T`` (``W^H`` for hemm,
  since those are rows ``j0 .. j0+P`` of the full matrix). So symm runs at gemm speed plus the
  expansion (one write of the full matrix) and C traffic per extra panel.
* syrk and friends split C into diagonal blocks of :data:`DIAG_NB` (256). The strictly
  lower (upper) part is covered by rectangles, level by level: at level h = 1, 2, 4, ... the block
  pairs ``rows [i+h, i+2h), columns [i, i+h)`` for ``i = 0, 2h, 4h, ...`` are equal-sized, so a
  level is one strided batched gemm (plus one for a ragged last group): about ``log2(n / 256)``
  launches whose tile counts stay large.
  The diagonal blocks are computed in full by one batched gemm into a workspace (``n / 256`` blocks
  of 256^2) and ``ra_rocblas_tri_merge`` writes only their triangles into C (``C := W + beta C``).
  The full squares cost ``128 n k`` extra multiply-adds against syrk's ``n^2 k / 2``.
  syr2k/her2k do two gemms per rectangle (the second with ``beta = 1``).
"""

from rocarray.rocblas._arguments import check_bounds, check_ld, option, scalars, size
from rocarray.rocblas import _level3_kernels as _k

#: Order of the diagonal blocks of syrk/herk/syr2k/her2k, computed in full into a workspace.
DIAG_NB = 256
#: Largest syrk diagonal-block workspace (more blocks run in chunks).
DIAG_WORKSPACE_BYTES = 64 << 20
#: Largest symm/hemm panel workspace (wider matrices are expanded one panel at a time).
SYMM_PANEL_BYTES = 128 << 20

_REAL_HINT = {"hemm": " (use symm for real data)", "herk": " (use syrk for real data)",
              "her2k": " (use syr2k for real data)"}


def _conj(value):
    return value.conjugate() if hasattr(value, "conjugate") else value


# --------------------------------------------------------------------------------------------
# symm, hemm
# --------------------------------------------------------------------------------------------

def symm_panel(ka, itemsize, limit=None):
    """Columns of the symmetric matrix expanded per gemm: all ``ka``, or a multiple of 64."""
    limit = SYMM_PANEL_BYTES if limit is None else limit
    if ka * ka * itemsize <= limit:
        return ka
    return max(_k.EXPAND_TILE, (limit // (ka * itemsize)) // _k.EXPAND_TILE * _k.EXPAND_TILE)


def _symm(fn, herm, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc):
    side = option(side, "side", fn)
    uplo = option(uplo, "uplo", fn)
    m, n = size(m, "m", fn), size(n, "n", fn)
    dtype = _k.check_operands(fn, (("A", A), ("B", B), ("C", C)), complex_only=herm, hint=_REAL_HINT.get(fn, ""))
    ka = m if side == "L" else n
    lda = check_ld(lda, ka, "lda", fn)
    ldb = check_ld(ldb, m, "ldb", fn)
    ldc = check_ld(ldc, m, "ldc", fn)
    scalars(fn, dtype, alpha=alpha, beta=beta)
    if m == 0 or n == 0:
        return None
    check_bounds(A, ka, ka, lda, "A", fn)
    check_bounds(B, m, n, ldb, "B", fn)
    check_bounds(C, m, n, ldc, "C", fn)
    device, isz = A.data.device_id, dtype.itemsize
    if alpha == 0:  # C := beta C
        _k.gemm_ptrs(device, dtype, "N", "N", m, n, 0, 0, C.data, ldc, C.data, ldc, beta, C.data, ldc)
        return None
    P = symm_panel(ka, isz)
    W = _k.workspace(device, ka * P, dtype)
    flags = (_k.UPPER if uplo == "U" else 0) | (_k.HERM if herm else 0)
    for j0 in range(0, ka, P):
        p = min(P, ka - j0)
        _k.expand(device, dtype, ka, j0, p, A.data, lda, W.data, ka, flags)
        b = beta if j0 == 0 else 1
        if side == "L":  # C (+)= alpha S[:, j0:j0+p] B[j0:j0+p, :]
            _k.gemm_ptrs(device, dtype, "N", "N", m, n, p, alpha, W.data, ka, _k.at(B.data, j0, 0, ldb, isz), ldb,
                         b, C.data, ldc)
        else:            # C (+)= alpha B[:, j0:j0+p] S[j0:j0+p, :]  (= W^T, W^H for hemm)
            _k.gemm_ptrs(device, dtype, "N", "C" if herm else "T", m, n, p, alpha, _k.at(B.data, 0, j0, ldb, isz),
                         ldb, W.data, ka, b, C.data, ldc)
    return None


_SYMM_DOC = """``C := alpha A B + beta C`` or ``alpha B A + beta C`` with A {kind} (``rocblas_?{name}``).

    Only the ``uplo`` triangle of A is read{diag_note}.

    Parameters
    ----------
    side : {{'L', 'R'}}
        A on the left (``C := alpha A B + beta C``, A m x m) or the right (``alpha B A``, A n x n).
    uplo : {{'U', 'L'}}
        Which triangle of A is stored and referenced. Case-insensitive.
    m, n : int
        B and C are m x n (>= 0); either 0 does nothing.
    alpha : scalar
        Host scalar; complex only for complex data. ``alpha == 0`` does not read A or B.
    A : cupy.ndarray
        Column-major matrix (element (i, j) at ``A[i + j * lda]``; 1-D contiguous buffer or 2-D
        Fortran-ordered array), {dtypes}.
    lda : int
        Leading dimension of A, ``>= max(1, m)`` (left) or ``>= max(1, n)`` (right).
    B : cupy.ndarray
        Column-major m x n matrix of A's dtype.
    ldb : int
        Leading dimension of B, ``>= max(1, m)``.
    beta : scalar
        Host scalar; complex only for complex data. ``beta == 0`` does not read C.
    C : cupy.ndarray
        Column-major m x n matrix of A's dtype, updated in place; must not overlap A or B.
    ldc : int
        Leading dimension of C, ``>= max(1, m)``.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or mismatched dtypes{type_note}, complex scalars with real
        data, non-integer sizes.
    ValueError
        Invalid ``side``/``uplo``, negative sizes, a leading dimension too small, buffers too short
        or misaligned.

    Notes
    -----
    The symmetric matrix is expanded panel by panel into a workspace (at most
    :data:`SYMM_PANEL_BYTES`) and multiplied by gemm; see :mod:`rocarray.rocblas._level3_sym`.

    Examples
    --------
    >>> A = cupy.array({a})   # upper triangle of [[2, 1], [1, 3]]; 99 unread
    >>> B = cupy.array({b}); C = cupy.zeros(2{ctype})
    >>> ra.rocblas.{name}('L', 'U', 2, 1, 1.0, A, 2, B, 2, 0.0, C, 2)   # doctest: +SKIP
    >>> C                                                              # doctest: +SKIP
    array({result})
    """


def symm(side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc):
    return _symm("symm", False, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc)


def hemm(side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc):
    return _symm("hemm", True, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C, ldc)


symm.__doc__ = _SYMM_DOC.format(kind="symmetric (complex symmetric too: no conjugation)", name="symm",
                                diag_note="", dtypes="float32, float64, complex64 or complex128", type_note="",
                                a="[2.0, 99.0, 1.0, 3.0]", b="[1.0, 1.0]", ctype="", result="[3., 4.]")
hemm.__doc__ = _SYMM_DOC.format(kind="Hermitian", name="hemm",
                                diag_note="; the imaginary parts of its diagonal are taken as zero",
                                dtypes="complex64 or complex128", type_note=" (real data: use symm)",
                                a="[2, 99, 1, 3], complex", b="[1, 1], complex", ctype=", complex",
                                result="[3.+0.j, 4.+0.j]")


# --------------------------------------------------------------------------------------------
# syrk, herk, syr2k, her2k
# --------------------------------------------------------------------------------------------

class _RankK:
    """``C := sum_t alpha_t op(X_t) op(Y_t)^T (^H) + beta C`` on C's uplo triangle, by blocks.

    ``terms`` are ``(alpha_t, X_t, ldx_t, Y_t, ldy_t)``: device pointers of buffers holding X_t and
    Y_t as A is held (n x k for ``trans='N'``, else k x n) and their leading dimensions.
    """

    def __init__(self, dtype, herm, upper, trans, n, k, terms, beta, C, ldc, device):
        self.dtype, self.herm, self.upper = dtype, herm, upper
        self.tr = trans != "N"
        self.n, self.k, self.terms = n, k, terms
        self.beta, self.C, self.ldc, self.device = beta, C, ldc, device
        self.isz = dtype.itemsize
        self.D = min(DIAG_NB, n)

    def _x(self, X, ld, r0):
        """op(X)[r0:, :] as gemm's A operand: (pointer, trans, elements per row step)."""
        if self.tr:
            return _k.at(X, 0, r0, ld, self.isz), ("C" if self.herm else "T"), ld
        return _k.at(X, r0, 0, ld, self.isz), "N", 1

    def _y(self, Y, ld, c0):
        """op(Y)[c0:, :]^T (^H) as gemm's B operand: (pointer, trans, elements per row step)."""
        if self.tr:
            return _k.at(Y, 0, c0, ld, self.isz), "N", ld
        return _k.at(Y, c0, 0, ld, self.isz), ("C" if self.herm else "T"), 1

    def product(self, r0, rows, c0, cols, C, ldc, beta, batch=1, step=0, c_stride=0):
        """``C := sum_t alpha_t op(X_t)[r0:r0+rows] op(Y_t)[c0:c0+cols]^T + beta C``, ``batch``
        times, each with the row and column starts ``step`` further and C ``c_stride`` elements further."""
        for t, (alpha, X, ldx, Y, ldy) in enumerate(self.terms):
            a, ta, sa = self._x(X, ldx, r0)
            b, tb, sb = self._y(Y, ldy, c0)
            _k.gemm_ptrs(self.device, self.dtype, ta, tb, rows, cols, self.k, alpha, a, ldx, b, ldy,
                         beta if t == 0 else 1, C, ldc, batch=batch, strides=(sa * step, sb * step, c_stride))

    def off_diagonal(self):
        """The strict triangle outside the diagonal blocks, one batched gemm per level."""
        n, D, ldc, isz = self.n, self.D, self.ldc, self.isz
        nblk = -(-n // D)
        h = 1
        while h < nblk:
            span = 2 * h
            full = sum(1 for i in range(0, nblk, span) if (i + span) * D <= n)
            ragged = [i for i in range(full * span, nblk, span) if i + h < nblk]
            launches = [(0, full, h * D)] if full else []
            launches += [(i, 1, n - (i + h) * D) for i in ragged]
            for first, count, rows in launches:
                r0, c0, cols = (first + h) * D, first * D, h * D
                if self.upper:  # the mirror block C[c0:c0+cols, r0:r0+rows]
                    self.product(c0, cols, r0, rows, _k.at(self.C, c0, r0, ldc, isz), ldc, self.beta,
                                 count, span * D, span * D * (1 + ldc))
                else:
                    self.product(r0, rows, c0, cols, _k.at(self.C, r0, c0, ldc, isz), ldc, self.beta,
                                 count, span * D, span * D * (1 + ldc))
            h *= 2

    def diagonal(self, flags):
        """The diagonal blocks: full squares into a workspace (batched gemm), then their triangles."""
        n, D, isz = self.n, self.D, self.isz
        nblk = -(-n // D)
        chunk = max(1, min(nblk, DIAG_WORKSPACE_BYTES // (D * D * isz)))
        W = _k.workspace(self.device, chunk * D * D, self.dtype)
        for b0 in range(0, nblk, chunk):
            b1 = min(nblk, b0 + chunk)
            full = sum(1 for b in range(b0, b1) if (b + 1) * D <= n)
            if full:
                self.product(b0 * D, D, b0 * D, D, W.data, D, 0, full, D, D * D)
            if b0 + full < b1:  # the ragged last block
                b = b0 + full
                s = n - b * D
                self.product(b * D, s, b * D, s, W.data + full * D * D * isz, D, 0)
            _k.merge(self.device, self.dtype, min(n, b1 * D) - b0 * D, D, W.data, self.beta,
                     _k.at(self.C, b0 * D, b0 * D, self.ldc, isz), self.ldc, flags)


def _rank_k(fn, herm, two, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    tname = "trans" if two else "transA"
    uplo = option(uplo, "uplo", fn)
    trans = option(trans, tname, fn)
    n, k = size(n, "n", fn), size(k, "k", fn)
    named = (("A", A), ("B", B), ("C", C)) if two else (("A", A), ("C", C))
    dtype = _k.check_operands(fn, named, complex_only=herm, hint=_REAL_HINT.get(fn, ""))
    if dtype.kind == "c" and trans == ("T" if herm else "C"):
        allowed = "'N' or 'C'" if herm else "'N' or 'T'"
        raise ValueError(f"rocblas.{fn}: {tname} must be {allowed} for complex data, got {trans!r}")
    rows = n if trans == "N" else k
    lda = check_ld(lda, rows, "lda", fn)
    if two:
        ldb = check_ld(ldb, rows, "ldb", fn)
    ldc = check_ld(ldc, n, "ldc", fn)
    if herm:
        _k.real_scalars(fn, **({"beta": beta} if two else {"alpha": alpha, "beta": beta}))
    scalars(fn, dtype, alpha=alpha, beta=beta)
    if n == 0:
        return None
    if k > 0:
        cols = k if trans == "N" else n
        check_bounds(A, rows, cols, lda, "A", fn)
        if two:
            check_bounds(B, rows, cols, ldb, "B", fn)
    check_bounds(C, n, n, ldc, "C", fn)
    device = C.data.device_id
    flags = (_k.UPPER if uplo == "U" else 0) | (_k.HERM if herm else 0)
    if alpha == 0 or k == 0:
        if beta != 1:  # the triangle scaled by beta (zeroed without reading for beta == 0)
            _k.merge(device, dtype, n, n, None, beta, C.data, ldc, flags)
        return None
    if two:
        terms = [(alpha, A.data, lda, B.data, ldb), (_conj(alpha) if herm else alpha, B.data, ldb, A.data, lda)]
    else:
        terms = [(alpha, A.data, lda, A.data, lda)]
    run = _RankK(dtype, herm, uplo == "U", trans, n, k, terms, beta, C.data, ldc, device)
    run.off_diagonal()
    run.diagonal(flags)
    return None


_RANK_DOC = """{summary}

    Only the ``uplo`` triangle of C is read and written{diag_note}.

    Parameters
    ----------
    uplo : {{'U', 'L'}}
        Which triangle of C is stored and updated. Case-insensitive.
    {tname} : {{{trans_values}}}
        ``'N'``: op(X) = X, stored n x k; otherwise op(X) = {op_t}, X stored k x n.{trans_note}
    n, k : int
        C is n x n, op(A){and_b} n x k (>= 0). ``n == 0`` does nothing; ``k == 0`` scales C by beta.
    alpha : scalar
        Host scalar{alpha_note}. ``alpha == 0`` reads neither A{nor_b}.
    A : cupy.ndarray
        Column-major matrix (element (i, j) at ``A[i + j * lda]``; 1-D contiguous buffer or 2-D
        Fortran-ordered array), {dtypes}.
    lda : int
        Leading dimension of A, ``>= max(1, n)`` for ``'N'``, else ``>= max(1, k)``.{b_params}
    beta : scalar
        Host scalar{beta_note}. ``beta == 0`` does not read C.
    C : cupy.ndarray
        Column-major n x n matrix of A's dtype, its ``uplo`` triangle updated in place; must not
        overlap the inputs.
    ldc : int
        Leading dimension of C, ``>= max(1, n)``.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or mismatched dtypes{type_note}, complex scalars with real
        data{real_note}, non-integer sizes.
    ValueError
        Invalid ``uplo``/``{tname}``, negative sizes, a leading dimension too small, buffers too
        short or misaligned.

    Notes
    -----
    Batched gemms over C's blocks; diagonal blocks of :data:`DIAG_NB` go through a workspace and
    only their triangles are written. See :mod:`rocarray.rocblas._level3_sym`.

    Examples
    --------
    >>> A = cupy.array({a})   # 2 x 1
    >>> C = cupy.zeros(4{ctype})
    >>> ra.rocblas.{name}('L', 'N', 2, 1, 1.0, A, 2, {b_arg}0.0, C, 2)   # doctest: +SKIP
    >>> C                      # the upper element (index 2) stays untouched   # doctest: +SKIP
    array({result})
    """

_B_PARAMS = """
    B : cupy.ndarray
        Column-major matrix of A's dtype and shape.
    ldb : int
        Leading dimension of B, the same rule as lda."""


def syrk(uplo, transA, n, k, alpha, A, lda, beta, C, ldc):
    return _rank_k("syrk", False, False, uplo, transA, n, k, alpha, A, lda, None, None, beta, C, ldc)


def herk(uplo, transA, n, k, alpha, A, lda, beta, C, ldc):
    return _rank_k("herk", True, False, uplo, transA, n, k, alpha, A, lda, None, None, beta, C, ldc)


def syr2k(uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    return _rank_k("syr2k", False, True, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc)


def her2k(uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    return _rank_k("her2k", True, True, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc)


_SY = dict(diag_note="", op_t="X^T", trans_values="'N', 'T', 'C'",
           trans_note=" ``'C'`` is ``'T'`` for real data and invalid for complex data.",
           alpha_note="; complex only for complex data", beta_note="; complex only for complex data",
           dtypes="float32, float64, complex64 or complex128", type_note="", real_note="", ctype="",
           a="[1.0, 2.0]")
_HE = dict(diag_note="; the imaginary parts of its diagonal are set to zero", op_t="X^H",
           trans_values="'N', 'C'", trans_note="", dtypes="complex64 or complex128",
           type_note=" (real data: use the symmetric routine)", ctype=", complex", a="[1, 2], complex")
syrk.__doc__ = _RANK_DOC.format(
    summary="``C := alpha op(A) op(A)^T + beta C`` with C symmetric (``rocblas_?syrk``).", tname="transA",
    and_b=" is", nor_b="", b_params="", name="syrk", b_arg="", result="[1., 2., 0., 4.]", **_SY)
herk.__doc__ = _RANK_DOC.format(
    summary="``C := alpha op(A) op(A)^H + beta C`` with C Hermitian, alpha and beta real (``rocblas_?herk``).",
    tname="transA", and_b=" is", nor_b="", b_params="", alpha_note="; real", beta_note="; real",
    real_note=" or complex alpha/beta", name="herk", b_arg="", result="[1.+0.j, 2.+0.j, 0.+0.j, 4.+0.j]", **_HE)
syr2k.__doc__ = _RANK_DOC.format(
    summary="``C := alpha op(A) op(B)^T + alpha op(B) op(A)^T + beta C`` with C symmetric (``rocblas_?syr2k``).",
    tname="trans", and_b=" and op(B) are", nor_b=" nor B", b_params=_B_PARAMS, name="syr2k", b_arg="A, 2, ",
    result="[2., 4., 0., 8.]", **_SY)
her2k.__doc__ = _RANK_DOC.format(
    summary="``C := alpha op(A) op(B)^H + conj(alpha) op(B) op(A)^H + beta C`` with C Hermitian, beta real "
            "(``rocblas_?her2k``).",
    tname="trans", and_b=" and op(B) are", nor_b=" nor B", b_params=_B_PARAMS, alpha_note="; real or complex",
    beta_note="; real", real_note=" or a complex beta", name="her2k", b_arg="A, 2, ",
    result="[2.+0.j, 4.+0.j, 0.+0.j, 8.+0.j]", **_HE)
