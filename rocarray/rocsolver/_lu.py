"""rocSOLVER's LU family: getrf, getrs, getri (single and strided batched) and laswp.

Arguments are rocSOLVER's, in rocSOLVER's order, without the handle (see :mod:`rocarray.rocsolver`).
Pivots are LAPACK's: ``ipiv`` (int32, 1-based) says row ``i`` was interchanged with row
``ipiv[i] - 1`` at step ``i``, so ``A = P L U``.

Design
------
Four algorithms, chosen per call by size:

* **A group of lanes per matrix** (square matrices up to :data:`WARP_MAX`, any batch): the kernels
  of ``lu_warp.hip`` give each matrix ``N`` lanes of a warp (N = 8, 16 or 32, the smallest that
  holds n), one row per lane in registers; the pivot search is a butterfly argmax of shuffles,
  the pivot row is broadcast by shuffles, rows never move between lanes (each lane tracks its
  row's position in LAPACK's order), and nothing waits on a block barrier.
  ``ra_rocsolver_getrf_warp`` is getrf of the column-major batch, ``ra_rocsolver_getrs_warp``
  getrs with the factors in registers (a lane holds row i of ``op(L \\ U)``);
  ``ra_rocsolver_gesv_warp`` (:func:`gesv_small_batched`) factors and solves in one launch,
  reading A and B through any element strides (the façade's C-ordered stacks, broadcast ones
  with zero batch strides) without a copy. The same pivots, info and arithmetic as getf2.
* **Register tile** (square matrices of mid-size order, :func:`register_block`): one block of
  256 threads per matrix holds the matrix in registers (:mod:`rocarray.rocsolver._lu_block`), two
  barriers per column; a batch is one launch.
* **One block per matrix** (small matrices, and batches of up to 512 x 512): the kernel
  ``ra_rocsolver_getf2`` factors a whole matrix in one thread block, in shared memory when it fits
  (global memory otherwise), and ``ra_rocsolver_getrs_small`` applies the pivots and both
  substitutions for all right-hand sides in one block. A batch is one launch of each.
* **Blocked LU** (larger matrices): with :data:`OUTER` set (0 by default: the plain recursion
  below over all columns), right-looking over outer blocks of OUTER columns
  (:func:`_getrf_outer`). Each block's columns are factored by the recursion below, then
  ``U12 := L11^{-1} A12`` for every column on the block's right (one lacpy and one gemm with the
  block's inverse) and the whole trailing matrix is updated by ONE gemm ``A22 -= L21 U12`` of
  depth OUTER. Inside a block the column range is halved (the left part a multiple of
  :data:`INVERSE_LEAF`, then of :data:`PANEL` columns) until a panel of at most :data:`PANEL`
  columns is left. A tall panel (at least ``_lu_kernels.GRID_PANEL_ROWS`` rows) is factored
  across the device by ``ra_rocsolver_getf2_grid``: a cooperative launch of about one block per
  multiprocessor, each block holding a share of the panel's rows in shared memory, one
  grid-wide barrier per column (the candidates' rows and the diagonal row published in global
  memory, every block reducing them to the same pivot); where the device has no cooperative
  launch or the blocks would not all be resident, and for shorter panels,
  ``ra_rocsolver_getf2`` factors it in one block. Both give the same pivots and factors. The
  panel's row swaps then go to every other column of the matrix at once
  (``ra_rocsolver_laswp``: the <= 32 interchanges as one permutation of the rows they touch).
  Between the halves: ``U12 := L11^{-1} A12`` and ``A22 -= L21 U12`` (rocblas gemm), then the
  right half recursively (Toledo's recursive LU; the same pivots and, up to rounding, the same
  factors as LAPACK's getrf). The solves use explicit inverses of the unit lower diagonal blocks
  (:func:`_rgetrf_inv`): a block of at most INVERSE_LEAF columns is inverted by one launch of
  ``ra_rocsolver_lu_inv`` (a warp per column of the inverse, forward substitution with
  shuffles; with :data:`INVERSE_KERNEL` off, rocblas trsm on an identity square), a larger node
  joins its halves' inverses (``X21 := -X22 (L21 X11)``, two gemms), and a solve is a copy of
  the right-hand sides and one gemm; only the solves inside an INVERSE_LEAF block (between its
  PANEL-column panels) stay trsm. So each diagonal block is solved with once, where the plain
  recursion ran a trsm leaf for it at every level on up to n right-hand sides. Accuracy:
  ``|l_ij| <= 1`` under partial pivoting, so a unit lower block of order b is well conditioned
  in practice (its condition can approach ``2^b`` only in contrived cases, as LAPACK's growth
  factor can); multiplying by its computed inverse (small right residual, Du Croz and Higham,
  IMA J. Numer. Anal. 12, 1992) gives a solve whose residual exceeds substitution's at most by that condition, the argument of
  the Cholesky panels (:mod:`rocarray.rocsolver._cholesky`) and of rocBLAS's own trsm; the GPU
  tests bound the backward error of getrf and solve at 8192. With :data:`INVERSE` off the solves
  are rocblas trsm, and with :data:`OUTER` 0 the recursion covers all columns (the earlier
  design). Wide matrices take their columns past ``m`` in the outer blocks' solves (plain
  recursion: one trsm at the end). With :data:`LOOKAHEAD` (off by default) the next outer
  block's columns are updated first and the block is factored on a second, high-priority stream
  while the update of the columns beyond it runs on the current one (CuPy events order the two;
  the block's interchanges stay within its columns until both are done, then two laswp apply
  them to the rest). The device-wide panel's cooperative launch keeps its residency rule (all
  blocks resident on an idle device): beside a running gemm its blocks start as the gemm's
  retire, so the overlap is what the hardware gives, never a hang (the barrier's spin is
  bounded). getrs is laswp and two trsm calls (trsv per column for a single right-hand side).

getri computes ``A^{-1}`` by solving ``A X = I`` (getrs on an identity workspace) rather than
LAPACK's triangular inversion (trtri) followed by ``X L = U^{-1}``: the same result to rounding,
twice the flops of getri's ``4/3 n^3``, all of them in trsm.

Batches that do not take the one-block path run the blocked algorithm matrix by matrix.
"""

import numpy

from rocarray import rocblas
from rocarray._core import args as _args, backend, matrix_args as _m
from rocarray.rocsolver import _info, _lu_block, _lu_kernels as _k

#: Columns of the panels the recursive LU hands to the one-block kernel.
PANEL = 32
#: Columns of the outer blocks of the blocked LU (:func:`_getrf_outer`): each block's trailing
#: update is one gemm of depth OUTER (256 is the size it was planned for). 0: the plain
#: recursion over all columns.
OUTER = 0
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
LOOKAHEAD = False
#: Most bytes of right-hand sides an outer block's solve stages at once (:class:`_Outer`: wide
#: matrices are solved in chunks of columns, so the staging area stays this small).
STAGE_BYTES = 64 << 20
#: getrs of a large matrix solves up to this many right-hand sides column by column with rocblas
#: trsv instead of trsm (1 is the count it was planned for). 0: trsm always.
GETRS_TRSV_RHS = 0
#: Largest order a single matrix is factored or solved in one block.
SMALL_SINGLE = 128
#: Largest order a batch is factored or solved with one block per matrix.
SMALL_BATCHED = 512
#: Batches at least this long take the one-block path up to :data:`SMALL_BATCHED`.
MANY = 64
#: Largest order of square matrices factored with a group of lanes per matrix (the largest n
#: :func:`gesv_small_batched` takes).
WARP_MAX = _k.WARP_ORDERS[-1]
GESV_SMALL_MAX = WARP_MAX
#: Largest m and n (pivots are int32).
INT32_MAX = 2 ** 31 - 1


def one_block(rows, cols, batch):
    """Whether ``batch`` matrices of ``rows x cols`` take the one-block-per-matrix kernels."""
    largest = max(rows, cols)
    return largest <= SMALL_SINGLE or (batch >= MANY and largest <= SMALL_BATCHED)


def register_block(m, n, A):
    """Whether square ``m x n`` matrices like ``A`` take the register-tile kernel of
    :mod:`rocarray.rocsolver._lu_block` (mid-size orders, any batch)."""
    return m == n and _lu_block.takes(n, A.dtype, A.data.device_id)


def split(width, nb=None):
    """Columns of the left half of a recursive step on ``width > nb`` columns (``nb`` defaults to
    :data:`PANEL`): about half, a multiple of ``nb``."""
    nb = PANEL if nb is None else nb
    return (-(-width // nb) // 2) * nb


# --------------------------------------------------------------------------------------------
# argument checks
# --------------------------------------------------------------------------------------------

def _flat(A):
    """The 1-D view of a checked matrix buffer (contiguous 1-D, or Fortran-ordered 2-D)."""
    return A if A.ndim == 1 else A.reshape(-1, order="F")


def _dtype(where, A):
    _m.matrix_buffer(A, "A", where)
    return _m.supported_dtype(A.dtype, _m.STANDARD, where)


def _same(where, dtype, device, name, X):
    _m.matrix_buffer(X, name, where)
    if X.dtype != dtype:
        raise TypeError(f"{where}: {name} must have the dtype of A ({dtype.name}), got {X.dtype.name}")
    if X.data.device_id != device:
        raise ValueError(f"{where}: {name} is on device {X.data.device_id} but A is on device {device}")


def _ipiv(where, ipiv, count, batch=1, stride=0):
    """``ipiv`` as a 1-D int32 device view holding ``batch`` runs of ``count`` pivots."""
    _args.device_array(ipiv, "ipiv", where)
    if ipiv.dtype != _info.INFO_DTYPE:
        raise TypeError(f"{where}: ipiv must be an int32 array, got {ipiv.dtype.name}")
    if not ipiv.flags.c_contiguous:
        raise ValueError(f"{where}: ipiv must be contiguous")
    need = (batch - 1) * stride + count if batch and count else 0
    if ipiv.size < need:
        raise ValueError(f"{where}: ipiv needs {need} element(s), got {ipiv.size}")
    return ipiv.ravel()


def _stride(value, least, name, where):
    value = _m.size(value, name, where)
    if value < least:
        raise ValueError(f"{where}: {name} must be >= {least}, got {value}")
    return value


# --------------------------------------------------------------------------------------------
# drivers (1-D views; no checks)
# --------------------------------------------------------------------------------------------

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
        sync = _k.getf2_grid(m - j0, width, panel, lda, ipiv[j0:], info, j0)
        if sync is None:
            _k.getf2(m - j0, width, panel, lda, 0, ipiv[j0:], 0, info, j0, 1)
        elif barriers is not None:
            barriers[sync.data.ptr] = sync
        end = j0 + width
        _k.laswp(j0 - c0, A[c0 * lda:], lda, 0, j0, end, ipiv, 0, False, 1)
        _k.laswp(c1 - end, A[end * lda:], lda, 0, j0, end, ipiv, 0, False, 1)
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

    def swap_outside(self, j0):
        """Block ``j0``'s interchanges on the columns outside it (deferred by the look-ahead)."""
        j1 = j0 + self.width(j0)
        _k.laswp(j0, self.A, self.lda, 0, j0, j1, self.ipiv, 0, False, 1)
        _k.laswp(self.n - j1, self.A[j1 * self.lda:], self.lda, 0, j0, j1, self.ipiv, 0, False, 1)


def _getrf_outer(m, n, A, lda, ipiv, info, barriers):
    """Right-looking LU over blocks of :data:`OUTER` columns: each block's columns by the
    recursion (:func:`_rgetrf_inv`, or :func:`_rgetrf` with :data:`INVERSE` off), then
    ``U12 := L11^{-1} A12`` for every column on its right (one gemm with the block's inverse, or
    trsm) and ONE gemm ``A22 -= L21 U12`` for the trailing matrix.

    With :data:`LOOKAHEAD`, the next block's columns are updated first and the block is factored
    on a second stream (:func:`rocarray.rocsolver._lu_kernels.overlap`; its interchanges kept to
    its own columns) while the update of the columns beyond it runs; the block's interchanges
    then reach the other columns (two laswp) once both are done."""
    out = _Outer(m, n, A, lda, ipiv, info, barriers)
    k = out.k
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
        _k.overlap(lambda: out.factor(j1, (j1, j2), out.T_ahead if INVERSE else None),
                   lambda: out.update(j0, j2, n), A.data.device_id)
        out.swap_outside(j1)


def _getrf_blocked(m, n, A, lda, ipiv, info):
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


def _getrs_blocked(trans, n, nrhs, A, lda, ipiv, B, ldb):
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


def _getrf_batch(m, n, A, lda, strideA, ipiv, strideP, info, batch):
    if 0 < n == m <= WARP_MAX and batch:
        # warp per matrix for every batch: even one matrix finishes sooner without block barriers
        _k.getrf_warp(n, A, lda, strideA, ipiv, strideP, info, batch)
        return
    _k.clear_info(info, batch)
    if m == 0 or n == 0:
        return
    if register_block(m, n, A):
        _lu_block.getrf(n, A, lda, strideA, ipiv, strideP, info, batch)
        return
    if one_block(m, n, batch):
        _k.getf2(m, n, A, lda, strideA, ipiv, strideP, info, 0, batch)
        return
    for b in range(batch):
        _getrf_blocked(m, n, A[b * strideA:], lda, ipiv[b * strideP:], info[b:b + 1])


def _getrs_batch(trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB, batch):
    if n == 0 or nrhs == 0 or batch == 0:
        return
    if n <= WARP_MAX:
        _k.getrs_warp(trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB, batch)
        return
    if one_block(n, nrhs, batch) or (batch >= MANY and n <= SMALL_BATCHED):
        _k.getrs_small(trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB, batch)
        return
    for b in range(batch):
        _getrs_blocked(trans, n, nrhs, A[b * strideA:], lda, ipiv[b * strideP:], B[b * strideB:], ldb)


def _getri_batch(n, A, lda, strideA, ipiv, strideP, info, batch):
    """Inverse by ``A X = I`` into a workspace, copied back where ``info`` is 0."""
    if n == 0 or batch == 0:
        _k.clear_info(info, batch)
        return
    _k.diag_zero(n, A, lda, strideA, info, batch)
    X = _k.identities(n, batch, A)
    _getrs_batch("N", n, n, A, lda, strideA, ipiv, strideP, X, n, n * n, batch)
    _k.copy_where_ok(n, X, A, lda, strideA, info, batch)


# --------------------------------------------------------------------------------------------
# public functions
# --------------------------------------------------------------------------------------------

def getrf(m, n, A, lda, ipiv, info):
    """LU factorization with partial pivoting, ``A = P L U`` (``rocsolver_?getrf``).

    Parameters
    ----------
    m, n : int
        A is m x n (>= 0).
    A : cupy.ndarray
        Column-major matrix (element (i, j) at ``A[i + j * lda]``; 1-D contiguous buffer or 2-D
        Fortran-ordered array), float32, float64, complex64 or complex128. Overwritten with L
        (unit lower triangle, not stored) below the diagonal and U on and above it.
    lda : int
        Leading dimension of A, ``>= max(1, m)``.
    ipiv : cupy.ndarray
        int32 device array of at least ``min(m, n)`` elements; ``ipiv[i]`` (1-based) is the row
        interchanged with row ``i + 1`` at step ``i``.
    info : cupy.ndarray
        int32 device array of at least one element: 0, or ``i > 0`` when ``U(i, i)`` (1-based) is
        exactly zero (the first such i). The factorization is completed either way, as LAPACK
        does; a solve with it would divide by zero.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or mismatched dtypes, non-integer sizes.
    ValueError
        Negative sizes, a leading dimension too small, buffers too short or misaligned.
    RuntimeError
        ``GridBarrierError``: the blocks of a panel factored across the device waited too long
        for each other (the factorization is incomplete).

    Notes
    -----
    Partial pivoting takes the first row of largest ``|re| + |im|`` (LAPACK's ``i?amax``). Square
    matrices up to 32 x 32 are factored by a group of lanes of one warp, the rows in registers; up
    to 128 x 128 one thread block factors the matrix; larger ones run the blocked LU on rocblas
    gemm (trsm only inside 64-column diagonal blocks; see :mod:`rocarray.rocsolver._lu`), its
    tall panels across the device.
    Nothing is synchronized, except that a factorization whose panels ran across the device waits
    for the device once at its end to check their grid barrier
    (:class:`rocarray.rocsolver._lu_kernels.GridBarrierError` if its blocks waited too long).

    Examples
    --------
    >>> A = cupy.array([1.0, 4.0, 2.0, 3.0])   # [[1, 2], [4, 3]]
    >>> ipiv, info = cupy.empty(2, cupy.int32), cupy.empty(1, cupy.int32)
    >>> ra.rocsolver.getrf(2, 2, A, 2, ipiv, info)   # doctest: +SKIP
    >>> ipiv, A                                      # doctest: +SKIP
    (array([2, 2], dtype=int32), array([4.  , 0.25, 3.  , 1.25]))
    """
    _getrf("getrf", False, m, n, A, lda, 0, ipiv, 0, info, 1)


def getrf_strided_batched(m, n, A, lda, strideA, ipiv, strideP, info, batch_count):
    """:func:`getrf` of ``batch_count`` matrices (``rocsolver_?getrf_strided_batched``).

    Parameters
    ----------
    m, n : int
        Each matrix is m x n (>= 0).
    A : cupy.ndarray
        Matrix b starts at element ``b * strideA`` (column-major, leading dimension lda).
    lda : int
        ``>= max(1, m)``.
    strideA : int
        Elements between matrices, ``>= lda * n``.
    ipiv : cupy.ndarray
        int32; matrix b's ``min(m, n)`` pivots start at ``b * strideP``.
    strideP : int
        ``>= min(m, n)``.
    info : cupy.ndarray
        int32, at least ``batch_count`` elements: matrix b's info as in :func:`getrf`.
    batch_count : int
        Number of matrices (>= 0).

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`getrf`; strides too small.

    Notes
    -----
    Square matrices up to 32 x 32 take one launch with a group of 8, 16 or 32 lanes of a warp per
    matrix (the rows in registers, no block barriers). Other batches of matrices up to 512 x 512
    (128 x 128 for fewer than 64 matrices) take one launch with one thread block per matrix:
    square ones of mid-size order (:func:`register_block`) in registers, the others in shared
    memory where the matrix fits; larger matrices run the blocked LU one after another.
    """
    _getrf("getrf_strided_batched", True, m, n, A, lda, strideA, ipiv, strideP, info, batch_count)


def _getrf(fn, batched, m, n, A, lda, strideA, ipiv, strideP, info, batch_count):
    where = f"rocsolver.{fn}"
    m, n = _m.size(m, "m", where), _m.size(n, "n", where)
    if max(m, n) > INT32_MAX:   # pivots are int32 row numbers
        raise ValueError(f"{where}: m and n must be < 2^31, got m={m}, n={n}")
    batch = _m.size(batch_count, "batch_count", where)
    _dtype(where, A)
    lda = _m.leading_dimension(lda, m, "lda", where)
    k = min(m, n)
    if batched:
        strideA = _stride(strideA, lda * n, "strideA", where)
        strideP = _stride(strideP, k, "strideP", where)
    info = _info.info_buffer(info, batch, where).ravel()
    piv = _ipiv(where, ipiv, k, batch, strideP)
    if batch and m and n:
        _m.matrix_bounds(A, m, n, lda, "A", where, batch, strideA)
    _getrf_batch(m, n, _flat(A), lda, strideA, piv, strideP, info, batch)


def getrs(trans, n, nrhs, A, lda, ipiv, B, ldb):
    """Solve ``op(A) X = B`` with A factored by :func:`getrf` (``rocsolver_?getrs``).

    Parameters
    ----------
    trans : {'N', 'T', 'C'}
        op(A) = A, A^T or A^H. Case-insensitive.
    n : int
        Order of A (>= 0).
    nrhs : int
        Columns of B (>= 0).
    A : cupy.ndarray
        The n x n factors from :func:`getrf` (column-major, leading dimension lda).
    lda : int
        ``>= max(1, n)``.
    ipiv : cupy.ndarray
        int32, the n pivots from :func:`getrf`.
    B : cupy.ndarray
        Column-major n x nrhs right-hand sides of A's dtype, overwritten with X.
    ldb : int
        ``>= max(1, n)``.

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`getrf`; an invalid ``trans``.

    Notes
    -----
    No test for singularity is made (LAPACK's rule): check getrf's info first. Up to 32 x 32 a
    group of lanes of one warp applies the pivots and both substitutions with the factors in
    registers; otherwise the pivots are applied with laswp and the substitutions run in
    :func:`rocarray.rocblas.trsm` (one thread block for matrices up to 128 x 128 with few
    right-hand sides).

    Examples
    --------
    >>> # A, ipiv from the getrf example; B = [[5], [11]]
    >>> ra.rocsolver.getrs('N', 2, 1, A, 2, ipiv, B, 2)   # doctest: +SKIP
    """
    _getrs("getrs", False, trans, n, nrhs, A, lda, 0, ipiv, 0, B, ldb, 0, 1)


def getrs_strided_batched(trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB, batch_count):
    """:func:`getrs` for ``batch_count`` systems (``rocsolver_?getrs_strided_batched``).

    Parameters
    ----------
    trans : {'N', 'T', 'C'}
        op(A) = A, A^T or A^H.
    n, nrhs : int
        Order of each A and columns of each B (>= 0).
    A : cupy.ndarray
        Factors of matrix b at ``b * strideA``.
    lda : int
        ``>= max(1, n)``.
    strideA : int
        ``>= lda * n``.
    ipiv : cupy.ndarray
        int32, matrix b's pivots at ``b * strideP``.
    strideP : int
        ``>= n``.
    B : cupy.ndarray
        Right-hand sides of system b at ``b * strideB``, overwritten with the solutions.
    ldb : int
        ``>= max(1, n)``.
    strideB : int
        ``>= ldb * nrhs``.
    batch_count : int
        Number of systems (>= 0).

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`getrs`; strides too small.

    Notes
    -----
    Systems up to 32 x 32 take one launch with a group of lanes of a warp per system. Other
    batches of systems up to 512 x 512 (128 x 128 for fewer than 64 systems) take one launch with
    one thread block per system; larger ones run laswp and trsm system by system.
    """
    _getrs("getrs_strided_batched", True, trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB,
           batch_count)


def _getrs(fn, batched, trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB, batch_count):
    where = f"rocsolver.{fn}"
    trans = _m.option(trans, "trans", where)
    n, nrhs = _m.size(n, "n", where), _m.size(nrhs, "nrhs", where)
    batch = _m.size(batch_count, "batch_count", where)
    dtype = _dtype(where, A)
    _same(where, dtype, A.data.device_id, "B", B)
    lda = _m.leading_dimension(lda, n, "lda", where)
    ldb = _m.leading_dimension(ldb, n, "ldb", where)
    if batched:
        strideA = _stride(strideA, lda * n, "strideA", where)
        strideP = _stride(strideP, n, "strideP", where)
        strideB = _stride(strideB, ldb * nrhs, "strideB", where)
    piv = _ipiv(where, ipiv, n, batch, strideP)
    if batch and n:
        _m.matrix_bounds(A, n, n, lda, "A", where, batch, strideA)
        if nrhs:
            _m.matrix_bounds(B, n, nrhs, ldb, "B", where, batch, strideB)
    _getrs_batch(trans, n, nrhs, _flat(A), lda, strideA, piv, strideP, _flat(B), ldb, strideB, batch)


def gesv_small_supported(n, nrhs, dtype, device_id=None):
    """Whether :func:`gesv_small_batched` takes systems of order ``n`` with ``nrhs`` right-hand
    sides of ``dtype`` on the device ``device_id`` (default: the current one).

    Parameters
    ----------
    n, nrhs : int
        Order and number of right-hand sides.
    dtype : numpy.dtype
        float32, float64, complex64 or complex128.
    device_id : int, optional
        The device (its shared memory bounds the mid-size orders).

    Returns
    -------
    bool
        True for ``n <= WARP_MAX`` (32), and for orders 33 to 128 (96 for complex128) with 1 to 16
        right-hand sides where the device's shared memory holds the kernel's staging.
    """
    if n <= WARP_MAX:
        return True
    if device_id is None:
        device_id = backend.cupy().cuda.get_device_id()
    return _lu_block.solves(n, nrhs, numpy.dtype(dtype), device_id)


def gesv_small_batched(A, B, X, info):
    """Solve ``A[b] X[b] = B[b]`` for a batch of small systems given as strided arrays (a rocarray
    extension: rocSOLVER's gesv takes column-major buffers and overwrites A).

    Parameters
    ----------
    A : cupy.ndarray
        ``(batch, n, n)``, float32, float64, complex64 or complex128, any strides (a zero batch
        stride shares one matrix), with ``(n, k)`` as :func:`gesv_small_supported` allows. Only
        read.
    B : cupy.ndarray
        ``(batch, n, k)`` right-hand sides of A's dtype, any strides.
    X : cupy.ndarray
        ``(batch, n, k)`` of A's dtype, written with the solutions; it may be ``B`` itself, and
        must not otherwise overlap A or B. Not defined for systems whose info is not 0.
    info : cupy.ndarray
        int32, at least ``batch`` elements (contiguous): 0, or the first column (1-based) with a
        zero pivot.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy arrays, unsupported or mismatched dtypes.
    ValueError
        Shapes that do not match, ``(n, k)`` that :func:`gesv_small_supported` refuses, devices
        that differ, strides that are not whole elements.

    Notes
    -----
    One launch (see :mod:`rocarray.rocsolver._lu`): up to order 32 a group of 8, 16 or 32 lanes
    per system, above it one thread block per system, the matrix in registers either way; LU with
    partial pivoting as :func:`getrf` (the same pivots) and both substitutions with the factors
    in registers. Nothing is synchronized.
    """
    where = "rocsolver.gesv_small_batched"
    for name, x in (("A", A), ("B", B), ("X", X)):
        _args.device_array(x, name, where)
        if x.ndim != 3:
            raise ValueError(f"{where}: {name} must be 3-D (batch, n, columns), got shape {x.shape}")
        if any(s % x.dtype.itemsize for s in x.strides):
            raise ValueError(f"{where}: {name}'s strides must be whole elements, got {x.strides}")
    dtype = _m.supported_dtype(A.dtype, _m.STANDARD, where)
    batch, n = A.shape[0], A.shape[1]
    if A.shape[2] != n:
        raise ValueError(f"{where}: A must be (batch, n, n), got {A.shape}")
    if B.shape[:2] != (batch, n) or X.shape != B.shape:
        raise ValueError(f"{where}: B and X must be ({batch}, {n}, k) alike, got {B.shape} and {X.shape}")
    for name, x in (("B", B), ("X", X)):
        _same_array(where, dtype, A.data.device_id, name, x)
    if not gesv_small_supported(n, B.shape[2], dtype, A.data.device_id):
        raise ValueError(f"{where}: systems of order {n} with {B.shape[2]} right-hand sides of {dtype.name} are "
                         f"not taken (order <= {WARP_MAX}, or up to 128 with 1 to 16 right-hand sides)")
    info = _info.info_buffer(info, batch, where).ravel()
    if batch and n <= WARP_MAX and n:
        _k.gesv_warp(A, B, X, info)
    elif batch and n:
        _lu_block.gesv(A, B, X, info)
    elif batch:
        _k.clear_info(info, batch)


def _same_array(where, dtype, device, name, X):
    if X.dtype != dtype:
        raise TypeError(f"{where}: {name} must have the dtype of A ({dtype.name}), got {X.dtype.name}")
    if X.data.device_id != device:
        raise ValueError(f"{where}: {name} is on device {X.data.device_id} but A is on device {device}")


def getri(n, A, lda, ipiv, info):
    """Inverse of a matrix factored by :func:`getrf` (``rocsolver_?getri``).

    Parameters
    ----------
    n : int
        Order of A (>= 0).
    A : cupy.ndarray
        The factors from :func:`getrf` (column-major, leading dimension lda), overwritten with
        ``A^{-1}``; left unchanged when info is not 0.
    lda : int
        ``>= max(1, n)``.
    ipiv : cupy.ndarray
        int32, the n pivots from :func:`getrf`.
    info : cupy.ndarray
        int32, at least one element: 0, or ``i > 0`` when ``U(i, i)`` is exactly zero (singular).

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`getrf`.

    Notes
    -----
    Solves ``A X = I`` with :func:`getrs` into a workspace and copies X into A (no trtri):
    ``2 n^3`` flops against LAPACK getri's ``4/3 n^3``, all in trsm.
    """
    _getri("getri", False, n, A, lda, 0, ipiv, 0, info, 1)


def getri_strided_batched(n, A, lda, strideA, ipiv, strideP, info, batch_count):
    """:func:`getri` of ``batch_count`` matrices (``rocsolver_?getri_strided_batched``).

    Parameters
    ----------
    n : int
        Order of each matrix (>= 0).
    A : cupy.ndarray
        Factors of matrix b at ``b * strideA``, overwritten with its inverse (unchanged where
        info is not 0).
    lda : int
        ``>= max(1, n)``.
    strideA : int
        ``>= lda * n``.
    ipiv : cupy.ndarray
        int32, matrix b's pivots at ``b * strideP``.
    strideP : int
        ``>= n``.
    info : cupy.ndarray
        int32, at least ``batch_count`` elements, as in :func:`getri`.
    batch_count : int
        Number of matrices (>= 0).

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`getri`; strides too small.
    """
    _getri("getri_strided_batched", True, n, A, lda, strideA, ipiv, strideP, info, batch_count)


def _getri(fn, batched, n, A, lda, strideA, ipiv, strideP, info, batch_count):
    where = f"rocsolver.{fn}"
    n = _m.size(n, "n", where)
    batch = _m.size(batch_count, "batch_count", where)
    _dtype(where, A)
    lda = _m.leading_dimension(lda, n, "lda", where)
    if batched:
        strideA = _stride(strideA, lda * n, "strideA", where)
        strideP = _stride(strideP, n, "strideP", where)
    info = _info.info_buffer(info, batch, where).ravel()
    piv = _ipiv(where, ipiv, n, batch, strideP)
    if batch and n:
        _m.matrix_bounds(A, n, n, lda, "A", where, batch, strideA)
    _getri_batch(n, _flat(A), lda, strideA, piv, strideP, info, batch)


def laswp(n, A, lda, k1, k2, ipiv, incx):
    """Row interchanges of LAPACK's laswp (``rocsolver_?laswp``).

    Parameters
    ----------
    n : int
        Columns of A (>= 0).
    A : cupy.ndarray
        Column-major matrix (leading dimension lda) whose rows are interchanged in place.
    lda : int
        ``>= 1`` and greater than every row index in ipiv.
    k1, k2 : int
        The 1-based range of pivots applied, ``1 <= k1 <= k2``.
    ipiv : cupy.ndarray
        int32 pivots (1-based row numbers); element ``k - 1`` is applied at step k.
    incx : {1, -1}
        1 applies ``k = k1 .. k2`` in order, -1 from k2 down to k1.

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        Bad buffers or sizes, ``k1``/``k2`` out of range, ``incx`` not 1 or -1.

    Notes
    -----
    Row numbers in ipiv are not checked against lda on the device (as in LAPACK).
    """
    _laswp("laswp", False, n, A, lda, 0, k1, k2, ipiv, 0, incx, 1)


def laswp_strided_batched(n, A, lda, strideA, k1, k2, ipiv, strideP, incx, batch_count):
    """:func:`laswp` on ``batch_count`` matrices, matrix b at ``b * strideA`` with its pivots at
    ``b * strideP`` (a rocarray extension: rocSOLVER has no batched laswp).

    Parameters
    ----------
    n : int
        Columns of each matrix.
    A : cupy.ndarray
        The matrices, column-major, leading dimension lda.
    lda : int
        ``>= 1``.
    strideA : int
        ``>= lda * n``.
    k1, k2 : int
        1-based pivot range, ``1 <= k1 <= k2``.
    ipiv : cupy.ndarray
        int32 pivots.
    strideP : int
        ``>= k2``.
    incx : {1, -1}
        Forward or reverse order.
    batch_count : int
        Number of matrices (>= 0).

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`laswp`; strides too small.
    """
    _laswp("laswp_strided_batched", True, n, A, lda, strideA, k1, k2, ipiv, strideP, incx, batch_count)


def _laswp(fn, batched, n, A, lda, strideA, k1, k2, ipiv, strideP, incx, batch_count):
    where = f"rocsolver.{fn}"
    n = _m.size(n, "n", where)
    batch = _m.size(batch_count, "batch_count", where)
    _dtype(where, A)
    lda = _m.leading_dimension(lda, 1, "lda", where)
    k1, k2 = _m.size(k1, "k1", where), _m.size(k2, "k2", where)
    if k1 < 1 or k2 < k1:
        raise ValueError(f"{where}: k1 and k2 must satisfy 1 <= k1 <= k2, got k1={k1}, k2={k2}")
    if incx not in (1, -1):
        raise ValueError(f"{where}: incx must be 1 or -1, got {incx!r}")
    if batched:
        strideA = _stride(strideA, lda * n, "strideA", where)
        strideP = _stride(strideP, k2, "strideP", where)
    piv = _ipiv(where, ipiv, k2, batch, strideP)
    if batch and n:
        _m.matrix_bounds(A, lda, n, lda, "A", where, batch, strideA)
    _k.laswp(n, _flat(A), lda, strideA, k1 - 1, k2, piv, strideP, incx == -1, batch)
