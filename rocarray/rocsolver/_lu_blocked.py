"""The blocked LU of one large matrix and its solves (the drivers behind
:func:`rocarray.rocsolver.getrf` / ``getrs`` past the one-block and register-tile sizes).

With :data:`OUTER` set (512 by default; 0 is the plain recursion below over all columns), the LU is
right-looking over outer blocks of OUTER columns (:func:`_getrf_outer`). Each block's columns are
factored by the recursion below, then ``U12 := L11^{-1} A12`` for every column on the block's right
(one lacpy and one gemm with the block's inverse) and the whole trailing matrix is updated by ONE
gemm ``A22 -= L21 U12`` of depth OUTER. Inside a block the column range is halved (the left part a
multiple of :data:`INVERSE_LEAF`, then of :data:`PANEL` columns) until a panel of at most
:data:`PANEL` columns is left. A panel of at least ``_lu_kernels.GRID_PANEL_ROWS`` rows is factored
across the device by ``ra_rocsolver_getf2_grid`` (about one block per multiprocessor holding a share
of the rows, a counting grid barrier per column). With ``_lu_kernels.ROWS_KERNEL`` on (off by
default), a real panel goes to ``ra_rocsolver_getf2_rows`` first: a cooperative launch of blocks of
256 threads (one for a panel of at most 256 rows), a thread per panel row (its row in shared
memory), one device-wide exchange per column (each block's candidate with its row, and the diagonal
row, published in global memory behind a per-block flag; every block reads all of them at once and
reduces them to the same pivot). With ``_lu_kernels.CLUSTER_PANEL`` on (the default), a panel of
``CLUSTER_PANEL_ROWS`` to 8192 rows goes to ``ra_rocsolver_getf2_cluster`` before both: one
thread-block cluster of 8 blocks (16, a non-portable size, past 4096 rows; NVIDIA sm_90+), a thread
per panel row holding it in registers, one cluster barrier and one distributed-shared-memory round
trip per column. Where the device has no cooperative launch or the blocks would not
all be resident, and for shorter panels, ``ra_rocsolver_getf2`` factors it in one block. All give
the same pivots and factors. The panel's row swaps then go to every other column of the matrix at
once, both sides of the panel in one launch (``ra_rocsolver_laswp``: the <= 32 interchanges as one
permutation of the rows they touch; :data:`LASWP_ONE_LAUNCH`), or, where at most
``_lu_kernels.CLUSTER_SWAP_COLUMNS`` columns remain (a look-ahead block's), the cluster panel
applies them itself after its last column (``_lu_kernels.CLUSTER_SWAP``). Between the halves: ``U12 := L11^{-1}
A12`` and ``A22 -= L21 U12`` (rocblas gemm), then the right half recursively (Toledo's recursive LU;
the same pivots and, up to rounding, the same factors as LAPACK's getrf). The solves use explicit
inverses of the unit lower diagonal blocks (:func:`_rgetrf_inv`): a block of at most INVERSE_LEAF
columns is inverted by one launch of ``ra_rocsolver_lu_inv`` (a warp per column of the inverse,
forward substitution with shuffles; with :data:`INVERSE_KERNEL` off, rocblas trsm on an identity
square), a larger node joins its halves' inverses (``X21 := -X22 (L21 X11)``, two gemms), and a
solve is a copy of the right-hand sides and one gemm; only the solves inside an INVERSE_LEAF block
(between its PANEL-column panels) stay trsm. So each diagonal block is solved with once, where the
plain recursion ran a trsm leaf for it at every level on up to n right-hand sides. Accuracy:
``|l_ij| <= 1`` under partial pivoting, so a unit lower block of order b is well conditioned in
practice (its condition can approach ``2^b`` only in contrived cases, as LAPACK's growth factor
can); multiplying by its computed inverse (small right residual, Du Croz and Higham, IMA J. Numer.
Anal. 12, 1992) gives a solve whose residual exceeds substitution's at most by that condition, the
argument of the Cholesky panels (:mod:`rocarray.rocsolver._cholesky`) and of rocBLAS's own trsm; the
GPU tests bound the backward error of getrf and solve at 8192. With :data:`INVERSE` off the solves
are rocblas trsm, and with :data:`OUTER` 0 the recursion covers all columns (the earlier design).
Wide matrices take their columns past ``m`` in the outer blocks' solves (plain recursion: one trsm
at the end). With :data:`LOOKAHEAD` the next outer block's columns are updated first and the block
is factored on a second, high-priority stream while the update of the columns beyond it runs on the
current one (CuPy events order the two; the block's interchanges stay within its columns until both
are done, then they reach the rest as one composed permutation, :data:`LASWP_COMPOSED`). The
device-wide panel's cooperative launch keeps its residency rule (all blocks resident on an idle
device): beside a running gemm its blocks start as the gemm's retire, so the overlap is what the
hardware gives, never a hang (the barrier's spin is bounded). getrs is laswp and two trsm calls
(trsv per column for a single right-hand side).
"""

from rocarray import rocblas
from rocarray.rocsolver import _lu_kernels as _k

#: Columns of the panels the recursive LU hands to the one-block kernel.
PANEL = 32
#: Columns of the outer blocks of the blocked LU (:func:`_getrf_outer`): each block's trailing
#: update is one gemm of depth OUTER. 0: the plain recursion over all columns (the way back).
OUTER = 512
#: Solves for U12 through inverses of the unit lower diagonal blocks and gemm instead of trsm
#: (:func:`_rgetrf_inv`). False: rocblas trsm (the way back).
INVERSE = True
#: Order of the diagonal blocks inverted directly, one launch each (a multiple of :data:`PANEL`,
#: at most ``_lu_kernels.INV_MAX`` for the kernel; larger blocks join two halves' inverses).
INVERSE_LEAF = 64
#: Invert the diagonal blocks with ``ra_rocsolver_lu_inv`` (a warp per column, no block
#: barrier). False: rocblas trsm on an identity square (the way back).
INVERSE_KERNEL = True
#: Factor the next outer block on a second stream while the trailing update of the columns
#: beyond it runs (look-ahead, :func:`_getrf_outer`). False: one stream (the way back).
LOOKAHEAD = True
#: Most bytes of right-hand sides an outer block's solve stages at once (:class:`_Outer`: wide
#: matrices are solved in chunks of columns, so the staging area stays this small).
STAGE_BYTES = 64 << 20
#: getrs of a large matrix solves up to this many right-hand sides column by column with rocblas
#: trsv instead of trsm. 0: trsm always (the way back).
GETRS_TRSV_RHS = 1
#: A panel's interchanges reach the columns on both of its sides in one laswp launch (the
#: columns between skipped). False: one launch per side (the way back).
LASWP_ONE_LAUNCH = True
#: A look-ahead block's interchanges reach the other columns as ONE composed permutation
#: (``_lu_kernels.laswp_composed``: each row moved once) instead of 32-interchange chunks.
#: False: laswp (the way back).
LASWP_COMPOSED = True
#: With the look-ahead, a block's interchanges reach the next block's columns at once (the
#: factorization's chain waits for those alone) and the columns on both sides of the two blocks on
#: the update's stream, before that stream's trailing update, while the next block is factored.
#: False: every other column at once (the way back).
LASWP_DEFERRED = True


def _swap_sides(A, lda, c0, j0, j1, c1, ipiv, k1, k2):
    """Interchanges ``k1 .. k2-1`` on columns ``c0 .. j0-1`` and ``j1 .. c1-1`` of A."""
    if LASWP_ONE_LAUNCH:
        _k.laswp(j0 - c0 + c1 - j1, A[c0 * lda:], lda, 0, k1, k2, ipiv, 0, False, 1, gap=(j0 - c0, j1 - j0))
    else:
        _k.laswp(j0 - c0, A[c0 * lda:], lda, 0, k1, k2, ipiv, 0, False, 1)
        _k.laswp(c1 - j1, A[j1 * lda:], lda, 0, k1, k2, ipiv, 0, False, 1)


def split(width, nb=None):
    """Columns of the left half of a recursive step on ``width > nb`` columns (``nb`` defaults to
    :data:`PANEL`): about half, a multiple of ``nb``."""
    nb = PANEL if nb is None else nb
    return (-(-width // nb) // 2) * nb


def _rgetrf(m, n, A, lda, j0, width, ipiv, info, barriers=None, cols=None):
    """Factor columns ``j0 .. j0+width-1`` over rows ``j0 .. m-1``, every earlier column's row
    swaps and updates already applied to them. Each panel's swaps reach all n columns (or the
    columns ``cols = (c0, c1)``; the caller applies them to the rest later) as soon as the panel
    is factored (the columns on its left are not read again above the panel's rows until the
    end, and those on its right not before their turn), so every laswp applies at most
    :data:`PANEL` interchanges. Tall panels are factored across the device; ``barriers`` (a
    dict) receives the grid barrier's state, by address, when one was."""
    c0, c1 = cols if cols is not None else (0, n)
    if width <= PANEL:
        panel = A[j0 + j0 * lda:]
        end = j0 + width
        others = (j0 - c0, c1 - end)
        own_swaps = _k.CLUSTER_SWAP and 0 < others[0] + others[1] <= _k.CLUSTER_SWAP_COLUMNS
        if _k.getf2_cluster(m - j0, width, panel, lda, ipiv[j0:], info, j0,
                            other=A[j0 + c0 * lda:] if own_swaps else None, others=others if own_swaps else (0, 0)):
            if own_swaps:   # the panel applied its interchanges to the other columns itself
                return
        else:
            sync = _k.getf2_grid(m - j0, width, panel, lda, ipiv[j0:], info, j0)
            if sync is None:
                _k.getf2(m - j0, width, panel, lda, 0, ipiv[j0:], 0, info, j0, 1)
            elif barriers is not None:
                barriers[sync.data.ptr] = sync
        _swap_sides(A, lda, c0, j0, end, c1, ipiv, j0, end)
        return
    w1 = split(width)
    w2, j1 = width - w1, j0 + w1
    _rgetrf(m, n, A, lda, j0, w1, ipiv, info, barriers, cols)
    rocblas.trsm("L", "L", "N", "U", w1, w2, 1, A[j0 + j0 * lda:], lda, A[j0 + j1 * lda:], lda)
    if m > j1:
        rocblas.gemm("N", "N", m - j1, w2, w1, -1, A[j1 + j0 * lda:], lda, A[j0 + j1 * lda:], lda, 1,
                     A[j1 + j1 * lda:], lda)
    _rgetrf(m, n, A, lda, j1, w2, ipiv, info, barriers, cols)


def _apply_inverse(w, cols, X, ldx, B, ldb, T):
    """``B := X B`` for the ``w x cols`` block B and the ``w x w`` square X (a unit lower inverse,
    zeros above its diagonal): B staged in ``T`` first (gemm cannot write its input)."""
    _k.lacpy(w, cols, B, ldb, T, w)
    rocblas.gemm("N", "N", w, cols, w, 1, X, ldx, T, w, 0, B, ldb)


def _rgetrf_inv(m, n, A, lda, j0, width, ipiv, info, barriers, X, ldx, need_inverse, T, cols=None):
    """:func:`_rgetrf` of the ``width <= OUTER`` columns from ``j0``, with its solves for U12
    through inverses of the unit lower diagonal blocks: the inverse of each block of at most
    :data:`INVERSE_LEAF` columns comes from one triangular solve on an identity square, and a node
    joins its halves' inverses, ``X21 := -X22 (L21 X11)``, where a solve will read it
    (``need_inverse``). ``X`` (leading dimension ``ldx``) points at this node's place on the
    diagonal of its outer block's inverse, which holds the identity until written; ``T`` is
    staging for ``OUTER * OUTER`` elements."""
    if width <= INVERSE_LEAF:
        _rgetrf(m, n, A, lda, j0, width, ipiv, info, barriers, cols)
        if need_inverse and INVERSE_KERNEL and width <= _k.INV_MAX:
            _k.unit_lower_inverse(width, A[j0 + j0 * lda:], lda, X, ldx)
        elif need_inverse:
            rocblas.trsm("L", "L", "N", "U", width, width, 1, A[j0 + j0 * lda:], lda, X, ldx)
        return
    w1 = split(width, INVERSE_LEAF)
    w2, j1 = width - w1, j0 + w1
    _rgetrf_inv(m, n, A, lda, j0, w1, ipiv, info, barriers, X, ldx, True, T, cols)
    _apply_inverse(w1, w2, X, ldx, A[j0 + j1 * lda:], lda, T)
    if m > j1:
        rocblas.gemm("N", "N", m - j1, w2, w1, -1, A[j1 + j0 * lda:], lda, A[j0 + j1 * lda:], lda, 1,
                     A[j1 + j1 * lda:], lda)
    X22 = X[w1 + w1 * ldx:]
    _rgetrf_inv(m, n, A, lda, j1, w2, ipiv, info, barriers, X22, ldx, need_inverse, T, cols)
    if need_inverse:   # L21 is final now (the right half's interchanges reached it)
        rocblas.gemm("N", "N", w2, w1, w1, 1, A[j1 + j0 * lda:], lda, X, ldx, 0, T, w2)
        rocblas.gemm("N", "N", w2, w1, w2, -1, X22, ldx, T, w2, 0, X[w1:], ldx)


class _Outer:
    """One factorization by :func:`_getrf_outer`: the matrix, its outer blocks, their inverses
    and the staging areas (one for the main stream's solves, one for the look-ahead's)."""

    def __init__(self, m, n, A, lda, ipiv, info, barriers):
        self.m, self.n, self.A, self.lda, self.ipiv, self.info = m, n, A, lda, ipiv, info
        self.barriers = barriers
        self.k = min(m, n)
        blocks = -(-self.k // OUTER)
        self.square = OUTER * OUTER
        if INVERSE:
            self.chunk = max(OUTER, STAGE_BYTES // (OUTER * A.dtype.itemsize))
            main = OUTER * max(min(n - min(OUTER, self.k), self.chunk), OUTER)
            work = _k.inverse_workspace(blocks * self.square + main + self.square, A)
            self.inverses = work[:blocks * self.square]
            self.T = work[blocks * self.square:blocks * self.square + main]
            self.T_ahead = work[blocks * self.square + main:]
            _k.set_identities(self.inverses, OUTER, blocks)

    def width(self, j0):
        return min(OUTER, self.k - j0)

    def factor(self, j0, cols=None, T=None):
        """Block ``j0``'s columns (its swaps over ``cols``, default all)."""
        w = self.width(j0)
        if INVERSE:
            X = self.inverses[(j0 // OUTER) * self.square:]
            _rgetrf_inv(self.m, self.n, self.A, self.lda, j0, w, self.ipiv, self.info, self.barriers, X, OUTER,
                        self.n > j0 + w, self.T if T is None else T, cols)
        else:
            _rgetrf(self.m, self.n, self.A, self.lda, j0, w, self.ipiv, self.info, self.barriers, cols)

    def update(self, j0, c0, c1):
        """Columns ``c0 .. c1-1`` (right of block ``j0``) by the block: ``U12 := L11^{-1} A12``,
        ``A22 -= L21 U12``."""
        if c1 <= c0:
            return
        A, lda, w = self.A, self.lda, self.width(j0)
        j1 = j0 + w
        U12 = A[j0 + c0 * lda:]
        if INVERSE:
            X = self.inverses[(j0 // OUTER) * self.square:]
            for c in range(c0, c1, self.chunk):   # the staging area holds ``chunk`` columns
                _apply_inverse(w, min(self.chunk, c1 - c), X, OUTER, A[j0 + c * lda:], lda, self.T)
        else:
            rocblas.trsm("L", "L", "N", "U", w, c1 - c0, 1, A[j0 + j0 * lda:], lda, U12, lda)
        if self.m > j1:
            rocblas.gemm("N", "N", self.m - j1, c1 - c0, w, -1, A[j1 + j0 * lda:], lda, U12, lda, 1,
                         A[j1 + c0 * lda:], lda)

    def swap(self, j0, c0, g0, g1, c1):
        """Block ``j0``'s interchanges on columns ``c0 .. g0-1`` and ``g1 .. c1-1``."""
        j1 = j0 + self.width(j0)
        count = (g0 - c0) + (c1 - g1)
        if count <= 0:
            return
        if LASWP_COMPOSED and j1 - j0 <= _k.LASWP_PLAN_MAX:
            _k.laswp_composed(count, self.A[c0 * self.lda:], self.lda, j0, j1, self.ipiv, gap=(g0 - c0, g1 - g0))
        else:
            _swap_sides(self.A, self.lda, c0, g0, g1, c1, self.ipiv, j0, j1)

    def swap_outside(self, j0):
        """Block ``j0``'s interchanges on the columns outside it (deferred by the look-ahead)."""
        self.swap(j0, 0, j0, j0 + self.width(j0), self.n)


def _getrf_outer(m, n, A, lda, ipiv, info, barriers):
    """Right-looking LU over blocks of :data:`OUTER` columns: each block's columns by the
    recursion (:func:`_rgetrf_inv`, or :func:`_rgetrf` with :data:`INVERSE` off), then
    ``U12 := L11^{-1} A12`` for every column on its right (one gemm with the block's inverse, or
    trsm) and ONE gemm ``A22 -= L21 U12`` for the trailing matrix.

    With :data:`LOOKAHEAD`, the next block's columns are updated first and the block is factored
    on a second stream (:func:`rocarray.rocsolver._lu_kernels.overlap`; its interchanges kept to
    its own columns) while the update of the columns beyond it runs; the block's interchanges
    then reach the other columns (one composed permutation) once both are done. With
    :data:`LASWP_DEFERRED`, only the columns of the block after it at once: the rest (the columns
    on both sides of those two blocks) on the update's stream during the next overlap, before its
    trailing update, so that the factorization's chain does not wait for them; the first block is
    then factored within its own columns too and its interchanges go the same way."""
    out = _Outer(m, n, A, lda, ipiv, info, barriers)
    k = out.k
    pending = None   # (block, c0, g0, g1, c1): interchanges still to reach columns c0..g0-1, g1..c1-1
    w0 = out.width(0)
    if LOOKAHEAD and LASWP_DEFERRED and w0 < k:
        # the first block as the look-ahead's: its interchanges within it, then the next block's
        # columns, the rest in the first overlap
        w1 = out.width(w0)
        out.factor(0, (0, w0))
        out.swap(0, w0, w0 + w1, w0 + w1, w0 + w1)
        pending = (0, 0, 0, w0 + w1, n)
    else:
        out.factor(0)
    for j0 in range(0, k, OUTER):
        j1 = j0 + out.width(j0)
        if j1 >= n:
            break
        if not LOOKAHEAD or j1 >= k:
            out.update(j0, j1, n)
            if j1 < k:
                out.factor(j1)
            continue
        j2 = j1 + out.width(j1)
        out.update(j0, j1, j2)

        def beyond(j0=j0, j2=j2, pending=pending):
            if pending is not None:   # block j0's interchanges beyond the block now factored aside
                out.swap(*pending)
            out.update(j0, j2, n)

        _k.overlap(lambda: out.factor(j1, (j1, j2), out.T_ahead if INVERSE else None), beyond, A.data.device_id)
        if LASWP_DEFERRED and j2 < k:
            # the next iteration takes the look-ahead branch: its first update reads columns j2..j3-1
            j3 = j2 + out.width(j2)
            out.swap(j1, j2, j3, j3, j3)
            pending = (j1, 0, j1, j3, n)
        else:
            out.swap_outside(j1)
            pending = None


def getrf(m, n, A, lda, ipiv, info):
    """Blocked LU of one m x n matrix (``info`` zeroed by the caller): outer blocks of
    :data:`OUTER` columns (:func:`_getrf_outer`) where ``min(m, n)`` exceeds one, else the
    plain recursion."""
    k = min(m, n)
    barriers = {}
    outer = OUTER and k > OUTER
    if outer:
        _getrf_outer(m, n, A, lda, ipiv, info, barriers)
    else:
        _rgetrf(m, n, A, lda, 0, k, ipiv, info, barriers)
    for sync in barriers.values():  # device-wide panels ran: one wait for their barrier's verdict
        _k.check_grid_barrier(sync)
    if n > k and not outer:
        # wide: U's right part, L11^{-1} P^T A[:, k:] (the swaps are applied already)
        rocblas.trsm("L", "L", "N", "U", k, n - k, 1, A, lda, A[k * lda:], lda)


def getrs(trans, n, nrhs, A, lda, ipiv, B, ldb):
    """``op(A) X = B`` for one factored matrix with laswp and two triangular solves: rocblas
    trsm, or trsv per column for at most :data:`GETRS_TRSV_RHS` right-hand sides (half the
    launches of trsm on one vector: one solve per diagonal block of 128 and one gemv between)."""
    if nrhs <= GETRS_TRSV_RHS:
        def solve(uplo, op, diag):
            for c in range(nrhs):
                rocblas.trsv(uplo, op, diag, n, A, lda, B[c * ldb:], 1)
    else:
        def solve(uplo, op, diag):
            rocblas.trsm("L", uplo, op, diag, n, nrhs, 1, A, lda, B, ldb)
    if trans == "N":
        _k.laswp(nrhs, B, ldb, 0, 0, n, ipiv, 0, False, 1)
        solve("L", "N", "U")
        solve("U", "N", "N")
    else:
        solve("U", trans, "N")
        solve("L", trans, "U")
        _k.laswp(nrhs, B, ldb, 0, 0, n, ipiv, 0, True, 1)
