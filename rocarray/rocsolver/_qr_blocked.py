"""Blocked Householder QR: the drivers of geqrf, orgqr/ungqr, ormqr/unmqr and gels.

Everything here works on flat column-major buffers (matrix 0 at element 0, ``batch`` matrices
``stride`` elements apart) and calls the device only through :mod:`._qr_kernels`.

Algorithms (LAPACK's, with the block reflectors on gemm; Schreiber and Van Loan's compact WY form
``H_j ... H_{j+b-1} = I - V T V^H``):

* geqrf: panels of :data:`NB` columns; a panel is factored recursively (halves of multiples of
  :data:`LEAF` columns, Elmroth and Gustavson's splitting), each leaf by one ``geqr2`` launch (a
  tall leaf of a single matrix by ``geqr2_cluster``, one thread-block cluster on NVIDIA sm_90+
  where its rows fit in the blocks' shared memory, else by ``geqr2_grid``, a cooperative launch
  across the device, where it can run; its grid barrier is checked once, at the end of the
  factorization) and
  each left half applied to its right half as a block reflector; then the panel's reflector
  updates the trailing columns, ``C := (I - V T V^H)^H C``. Stacks of matrices with at most
  :data:`BATCHED_MAX` columns are one ``geqr2`` launch (one block per matrix).
* A block reflector: V is copied out of the factored panel as an explicit unit lower trapezoid
  (``copy_v``), ``S = V^H V`` by gemm, and T from S and tau (``larft``), except for a panel's
  left half that is one leaf factored by ``geqr2_cluster``, which forms its T itself
  (``_qr_kernels.CLUSTER_LEAF_T``); applying it from the left
  is ``W = V^H C``, ``W := op(T) W``, ``C -= V W`` (three gemms), from the right likewise.
* orgqr: the columns past k start as identity columns; the blocks are applied backwards, each to
  its own columns (reset to identity columns first) and every column right of them.
* ormqr: the blocks of Q (or Q^H) applied to C in the order the product needs.
* gels: QR of A (m >= n) or of A^H (m < n); least squares ``R X = Q^H B`` or the minimum-norm
  ``X = Q R^{-H} B`` (rocblas trsm for the triangle).
"""

from rocarray.rocsolver import _qr_kernels as _k

#: Columns per panel (and per block reflector of the trailing update).
NB = 128
#: Columns one geqr2 launch factors inside a panel.
LEAF = 32
#: Stacks of matrices with at most this many columns are factored by one geqr2 launch.
BATCHED_MAX = 128


def _at(X, i, j, ld):
    """The view of a flat column-major buffer starting at element (i, j) of matrix 0."""
    return X[i + j * ld:]


class _Scratch:
    """Named scratch buffers of one driver call, grown on demand (stream order keeps reuse safe)."""

    def __init__(self, like):
        self.like, self.dtype, self.bufs = like, like.dtype, {}
        self.barrier = None  # the grid barrier's state of the last device-wide leaf

    def get(self, name, elements):
        buf = self.bufs.get(name)
        if buf is None or buf.size < elements:
            buf = self.bufs[name] = _k.empty(elements, self.dtype, self.like)
        return buf


def _reflector(A, lda, sA, r0, c0, rows, jb, tau, sP, batch, ws, T=None):
    """(V, T) of the block reflector of the jb reflectors stored at A(r0:, c0:c0+jb) with tau(c0:);
    ``T`` given: the leaf kernel formed it already (then only V is copied out)."""
    V = ws.get("v", batch * rows * jb)
    _k.copy_v(rows, jb, _at(A, r0, c0, lda), lda, sA, V, rows, rows * jb, batch)
    if T is None:
        S = ws.get("s", batch * jb * jb)
        T = ws.get("t", batch * jb * jb)
        _k.gemm("C", "N", jb, jb, rows, 1, V, rows, rows * jb, V, rows, rows * jb, 0, S, jb, jb * jb, batch)
        _k.larft(jb, S, jb, jb * jb, tau[c0:], sP, T, jb, jb * jb, batch)
    return V, T


def _larfb(side, trans, V, T, rows, jb, C, ldc, sC, other, batch, ws):
    """C := H C (``side='L'``, C rows x other) or C H (``'R'``, C other x rows) with
    H = I - V T V^H (``trans='N'``) or its conjugate transpose (``'C'``)."""
    if other == 0:
        return
    sv, st, sw = rows * jb, jb * jb, jb * other
    W = ws.get("w", batch * sw)
    W2 = ws.get("w2", batch * sw)
    if side == "L":
        _k.gemm("C", "N", jb, other, rows, 1, V, rows, sv, C, ldc, sC, 0, W, jb, sw, batch)
        _k.gemm(trans, "N", jb, other, jb, 1, T, jb, st, W, jb, sw, 0, W2, jb, sw, batch)
        _k.gemm("N", "N", rows, other, jb, -1, V, rows, sv, W2, jb, sw, 1, C, ldc, sC, batch)
    else:
        _k.gemm("N", "N", other, jb, rows, 1, C, ldc, sC, V, rows, sv, 0, W, other, sw, batch)
        _k.gemm("N", trans, other, jb, jb, 1, W, other, sw, T, jb, st, 0, W2, other, sw, batch)
        _k.gemm("N", "C", other, rows, jb, -1, W2, other, sw, V, rows, sv, 1, C, ldc, sC, batch)


def _leaf(m, n, A, lda, sA, tau, sP, batch, ws, want_t=False):
    """geqr2 of an m x n leaf: one tall matrix on one thread-block cluster where the device has
    them and the rows fit (``geqr2_cluster``), else across the device where it can
    (``geqr2_grid``), else one block per matrix. Returns the leaf's T (n x n) where ``want_t`` and
    the cluster kernel formed it (:data:`._qr_kernels.CLUSTER_LEAF_T`), else None."""
    if batch == 1:
        T = ws.get("leaf_t", n * n) if want_t and _k.CLUSTER_LEAF_T and m >= n else None
        if _k.geqr2_cluster(m, n, A, lda, tau, T=T):
            return T
        sync = _k.geqr2_grid(m, n, A, lda, tau)
        if sync is not None:
            ws.barrier = sync
            return None
    _k.geqr2(m, n, A, lda, sA, tau, sP, batch)
    return None


def _panel(m, j, w, A, lda, sA, tau, sP, batch, ws, want_t=False):
    """Factor columns j .. j+w-1 (rows j .. m-1) in place; tau(j .. j+w-1). Returns the T of
    these w reflectors where ``want_t`` and they were one leaf whose kernel formed it, else None."""
    if w <= LEAF:
        return _leaf(m - j, w, _at(A, j, j, lda), lda, sA, tau[j:], sP, batch, ws, want_t)
    w1 = -(-(w // 2) // LEAF) * LEAF  # a multiple of LEAF, < w
    T1 = _panel(m, j, w1, A, lda, sA, tau, sP, batch, ws, want_t=True)
    V, T = _reflector(A, lda, sA, j, j, m - j, w1, tau, sP, batch, ws, T=T1)
    _larfb("L", "C", V, T, m - j, w1, _at(A, j, j + w1, lda), lda, sA, w - w1, batch, ws)
    _panel(m, j + w1, w - w1, A, lda, sA, tau, sP, batch, ws)
    return None


def geqrf(m, n, A, lda, sA, tau, sP, batch):
    """QR of ``batch`` m x n matrices in place (LAPACK xGEQRF): R on and above the diagonal, the
    reflectors below it, tau(0 .. min(m, n) - 1)."""
    k = min(m, n)
    if k == 0 or batch == 0:
        return
    ws = _Scratch(A)
    if n <= LEAF or (batch > 1 and n <= BATCHED_MAX):
        _leaf(m, n, A, lda, sA, tau, sP, batch, ws)
    else:
        for j in range(0, k, NB):
            jb = min(NB, k - j)
            _panel(m, j, jb, A, lda, sA, tau, sP, batch, ws)
            if j + jb < n:
                V, T = _reflector(A, lda, sA, j, j, m - j, jb, tau, sP, batch, ws)
                _larfb("L", "C", V, T, m - j, jb, _at(A, j, j + jb, lda), lda, sA, n - j - jb, batch, ws)
    if ws.barrier is not None:
        _k.check_grid_barrier(ws.barrier)


def orgqr(m, n, k, A, lda, sA, tau, sP, batch):
    """The first n columns of Q = H_0 ... H_{k-1} in place of the reflectors (m >= n >= k)."""
    if n == 0 or batch == 0:
        return
    if k < n:
        _k.set_identity(m, n - k, k, _at(A, 0, k, lda), lda, sA, batch)
    ws = _Scratch(A)
    for j in reversed(range(0, k, NB)):
        jb = min(NB, k - j)
        V, T = _reflector(A, lda, sA, j, j, m - j, jb, tau, sP, batch, ws)
        _k.set_identity(m, jb, j, _at(A, 0, j, lda), lda, sA, batch)
        _larfb("L", "N", V, T, m - j, jb, _at(A, j, j, lda), lda, sA, n - j, batch, ws)


def ormqr(side, trans, m, n, k, A, lda, sA, tau, sP, C, ldc, sC, batch):
    """C := op(Q) C (``side='L'``) or C op(Q) (``'R'``), Q = H_0 ... H_{k-1} (``trans`` 'N' or 'C')."""
    if m == 0 or n == 0 or k == 0 or batch == 0:
        return
    nq = m if side == "L" else n
    blocks = range(0, k, NB)
    forward = (side == "L") != (trans == "N")
    ws = _Scratch(A)
    for j in (blocks if forward else reversed(blocks)):
        jb = min(NB, k - j)
        V, T = _reflector(A, lda, sA, j, j, nq - j, jb, tau, sP, batch, ws)
        if side == "L":
            _larfb("L", trans, V, T, m - j, jb, _at(C, j, 0, ldc), ldc, sC, n, batch, ws)
        else:
            _larfb("R", trans, V, T, n - j, jb, _at(C, 0, j, ldc), ldc, sC, m, batch, ws)


def zero(rows, cols, A, lda):
    """A(0:rows, 0:cols) := 0 (set_identity with its diagonal offset past the last row)."""
    if rows and cols:
        _k.set_identity(rows, cols, rows, A, lda, 0, 1)


def gels(trans, m, n, nrhs, A, lda, B, ldb, info):
    """LAPACK xGELS for one full-rank matrix: B(0:max(m, n), :) := the least-squares solution of
    ``op(A) X = B`` (overdetermined) or its minimum-norm solution (underdetermined); ``info[0]`` :=
    the first 1-based i with R(i, i) == 0, else 0 (then X is not meaningful)."""
    p, q = max(m, n), min(m, n)
    if q == 0 or nrhs == 0:
        zero(p, nrhs, B, ldb)
        _k.diag_info(0, A, lda, 0, info, 1)
        return
    if m >= n:
        F, ldf = A, lda
    else:
        F, ldf = _k.empty(n * m, A.dtype, A), n
        _k.conj_transpose(m, n, A, lda, F, ldf)
    tau = _k.empty(q, A.dtype, A)
    geqrf(p, q, F, ldf, 0, tau, 0, 1)
    _k.diag_info(q, F, ldf, 0, info, 1)
    if (trans == "N") == (m >= n):  # op(A) = Q R is p x q: least squares
        ormqr("L", "C", p, nrhs, q, F, ldf, 0, tau, 0, B, ldb, 0, 1)
        _k.trsm("L", "U", "N", "N", q, nrhs, 1, F, ldf, B, ldb)
    else:  # op(A) = R^H Q^H is q x p: minimum norm
        _k.trsm("L", "U", "C", "N", q, nrhs, 1, F, ldf, B, ldb)
        zero(p - q, nrhs, _at(B, q, 0, ldb), ldb)
        ormqr("L", "N", p, nrhs, q, F, ldf, 0, tau, 0, B, ldb, 0, 1)
