"""float32 gemm from three TF32 matrix products on the sm_90a warpgroup kernel.

The SIMT float32 kernel is bound by the FMA pipes; the TF32 matrix units run several times
faster but keep only 11 significant bits of each operand. The "3xTF32" scheme (used for
float32 emulation on tensor cores, e.g. CUTLASS's ``OpMultiplyAddFastF32``) recovers float32
accuracy from three of their products: each operand is split as ``X = X_hi + X_lo`` with
``X_hi`` its TF32 truncation and ``X_lo = X - X_hi`` (exact, below 2^-10 |X|), and
``A B ~ A_lo B_hi + A_hi B_lo + A_hi B_hi`` summed in float32. The dropped ``A_lo B_lo`` and the
TF32 rounding of the low parts are at most 3 * 2^-20 |a b| per product and of either sign, so
over a sum they stay under the accumulation error of float32 gemm itself
(docs/performance/rocblas.md).

Path (``rocblas/gemm_wgmma.hip``):

1. ``ra_rocblas_gemm_wg_split`` writes op(B), then op(A), as their hi and lo pieces, k-major, in
   a float32 workspace (``2 (m + n) ceil4(k)`` elements per batch entry); any
   transposes and leading dimensions are absorbed here, so the gemm sees one layout. Each split
   notes whether its operand holds an infinity; where the other one does, zero low pieces are
   guarded (``ra_rocblas_gemm_wg_guard`` for B, whose split ran first; a no-op launch otherwise).
2. ``ra_rocblas_gemm_wgmma<float, true, true, 128>`` (the 16-bit kernel's persistent, TMA-fed,
   warp-specialized body) loads the four pieces of each 32-deep k tile and issues three
   ``wgmma`` m64n128k8 TF32 instructions per 8-deep step. The matrix units add with truncation
   (a bias toward zero that grows with k when they sum the whole k), so the products of
   :data:`PROMOTE_SLOTS` k tiles at a time are summed by them from zero and then added to the
   float32 sums by the threads, rounding to nearest.
   k splits and the fused epilogue (alpha, beta, bias, activation) are the 16-bit path's.

The split inside the kernel (``ra_rocblas_gemm_wgmma_x3<A_KMAJOR, B_KMAJOR, BM, BN, BLOCKED>``,
the tiles ``'x3f_128x128'``, and ``'x3f_64x128'`` / ``'x3f_128x64'`` for products with a short
side): TMA copies op(A) and op(B) themselves as float32 (any transposes) and the block's threads split each
k tile in shared memory, so the gemm moves float32 gemm's bytes, not the split pass's three times
as many, and has no workspace; its guard is decided per k tile.
It needs 16-byte aligned operands (addresses, leading dimensions and batch strides); a call
whose operands are not takes the split pass (step 1) with the same results. A matrix shared by
every batch entry (a zero batch stride, which no tensor map holds: a convolution's weights over
its images) is first copied once per entry into a workspace (``ra_rocblas_gemm_wg_pack``, batch
times its bytes, less than the split pass would write for it) and the kernel reads the copies.

Infinities and NaNs give float32 gemm's results (the split's special cases in the kernel
source); without infinities the pieces are exact, so sums that float32 gets exactly (small
integers) come out exact. float32 subnormal inputs may be flushed to zero by the matrix units.

:data:`rocarray._core.config.gemm_float32` (``ROCARRAY_GEMM_FLOAT32=simt``) turns the path off.
It runs on compute capability 9.0 only, for problems of at least :data:`MIN_FLOPS` whose
workspace stays under :data:`MAX_WORKSPACE_BYTES`; the tuning DB then times it against the
SIMT tiles (:func:`rocarray.rocblas._gemm.plan.candidates`).
"""

import numpy

from rocarray._core import backend, compile as _compile, config, launch, plans, workspace
from rocarray.rocblas._gemm import tensor_maps, wgmma as wg
from rocarray.rocblas._gemm.mma import TILE, device_facts

#: Bytes per element of the pieces, and pieces per operand (hi, lo).
ITEMSIZE = 4
PIECES = 2
#: k per shared-memory slot (one 128-byte row of float32).
BK = wg.slot_k(ITEMSIZE)
#: Ring depth by tile width: 3 slots of 64 KiB (128 x 128).
STAGES = {128: 3}
#: k tiles of 32 whose products the matrix units sum before the threads add that sum to the
#: float32 accumulators (see the kernel: the units' truncating adds bias long sums). Each
#: promotion drains the warpgroup's instructions: fewer tiles are more accurate and slower; with
#: promotion the error does not grow with k (the trade, timed: docs/performance/rocblas.md).
PROMOTE_SLOTS = 2
#: Smallest problem (2 m n k batch flops) the path is offered for: below it the split pass and
#: its launch are a large part of the time.
MIN_FLOPS = 2**30
#: Largest pieces workspace (bytes) the path allocates; bigger problems take the SIMT kernel.
MAX_WORKSPACE_BYTES = 2**32
#: The split kernel (``extern "C"``) and its block.
SPLIT_KERNEL = "ra_rocblas_gemm_wg_split"
GUARD_KERNEL = "ra_rocblas_gemm_wg_guard"
SPLIT_BLOCK = 256
#: Rows and k of the split's tiles (``RA_GEMM_WG_SPLIT_TILE`` and ``_TILE_K``).
SPLIT_TILE = 32
SPLIT_TILE_K = 64
#: The split's ``mode`` bits: k contiguous in the source; and its rows start on 16 bytes.
SPLIT_K_CONTIGUOUS = 1
SPLIT_ROWS_ALIGNED = 2
FINISH_KERNEL = "ra_rocblas_gemm_wg_finish<float>"


def kernel_name(tile_n):
    """Name expression of the float32 kernel with a 128 x ``tile_n`` tile."""
    return f"ra_rocblas_gemm_wgmma<float, true, true, {int(tile_n)}>"


def fused_kernel_name(trans_a, trans_b, tile_m=TILE, tile_n=TILE, blocked_maps=False):
    """Name expression of the kernel that splits inside (op(A) k-major when ``trans_a``, op(B)
    when not ``trans_b``) with a ``tile_m`` x ``tile_n`` block tile; ``blocked_maps``: its mn-major
    operands come through 4-D maps (:func:`blocked`)."""
    return (f"ra_rocblas_gemm_wgmma_x3<{str(bool(trans_a)).lower()}, {str(not trans_b).lower()}, "
            f"{int(tile_m)}, {int(tile_n)}, {str(bool(blocked_maps)).lower()}>")


def fused_kernel_names():
    """Every instantiation of the kernel that splits inside: each transpose pair and tile, and
    the blocked form where an operand is mn-major (all but 'T', 'N')."""
    return [fused_kernel_name(ta, tb, tm, tn, bl) for ta in (False, True) for tb in (False, True)
            for tm, tn in FUSED_SHAPES for bl in ((False, True) if not (ta and not tb) else (False,))]


#: Block tile widths: 128 only (each thread holds 64 float32 sums and the 64 of the slot being
#: summed by the matrix units; a 256-wide tile would need 256 registers for them).
TILE_WIDTHS_X3 = (128,)
#: Block tiles ``(tile_m, tile_n)`` of the kernel that splits inside: 128 x 128, and for products
#: with a short side 64 x 128 (m <= 64) and 128 x 64 (n <= 64), whose two warpgroups each take a
#: 64 x 64 quarter instead of multiplying 64 rows or columns of nothing (see the kernel).
FUSED_SHAPES = ((TILE, TILE), (64, TILE), (TILE, 64))
#: Raw slots of the kernel that splits inside, by tile: the deepest ring that fits next to its two
#: pieces buffers (128 x 128: 3 x 32 KiB and 128 KiB; the short tiles: 5 x 24 KiB and 96 KiB). The
#: short tiles hardly depend on it: the split and the products bound them, not the copies.
FUSED_STAGES = {(TILE, TILE): 3, (64, TILE): 5, (TILE, 64): 5}
#: Threads of its block: two warpgroups, no producer warp.
FUSED_BLOCK = 256

_compile.register(wg.SOURCE, [kernel_name(w) for w in TILE_WIDTHS_X3] + [FINISH_KERNEL]
                  + fused_kernel_names())


class Tf32x3Tile(tuple):
    """The float32 three-TF32-product kernel as a gemm tile ``(BM, BN, 32, fused)``, named
    ``'x3_128xBN'`` (the split pass, then the pieces kernel) or ``'x3f_BMxBN'`` (``fused``: the
    split inside the kernel), the tuning DB's candidate names."""

    __slots__ = ()
    mma = False
    x3 = True
    direct = False

    def __new__(cls, tile_n, fused=False, tile_m=TILE):
        return super().__new__(cls, (int(tile_m), int(tile_n), BK, int(bool(fused))))

    @property
    def fused(self):
        return bool(self[3])

    @property
    def name(self):
        return f"x3{'f' if self.fused else ''}_{self[0]}x{self[1]}"


#: The tiles the tuning compares: the square tile split inside the kernel and by the split pass,
#: then the short tiles (split inside).
TILES = (tuple(Tf32x3Tile(w, fused) for fused in (True, False) for w in TILE_WIDTHS_X3)
         + tuple(Tf32x3Tile(tn, True, tm) for tm, tn in FUSED_SHAPES[1:]))


def leading(k):
    """Leading dimension of a piece: k rounded up to 4 elements (rows of 16 bytes for TMA)."""
    return -(-int(k) // 4) * 4


def workspace_bytes(m, n, k, batch=1):
    """Bytes of the pieces of op(A) and op(B)."""
    return PIECES * ITEMSIZE * (int(m) + int(n)) * leading(k) * max(1, int(batch))


def enabled():
    """Whether the setting allows the path (``ROCARRAY_GEMM_FLOAT32``, default ``tf32x3``)."""
    return config.gemm_float32() == "tf32x3"


def usable(device_id, m, n, k, batch=1):
    """Whether a float32 problem may take the path on ``device_id``: the setting allows it, the
    device is NVIDIA compute capability 9.0, ``k >= 1``, ``2 m n k batch >= MIN_FLOPS``, every
    size and the piece coordinates below 2^31, and the workspace at most
    :data:`MAX_WORKSPACE_BYTES`."""
    if not enabled() or k < 1 or 2 * m * n * k * max(1, batch) < MIN_FLOPS:
        return False
    facts = device_facts(device_id)
    if not wg.usable(True, is_hip=facts["is_hip"], cc_major=facts["cc_major"], cc_minor=facts["cc_minor"], k=k,
                     sizes=(m, n, leading(k), PIECES * max(1, batch))):
        return False
    if any(wg.shared_bytes(t[1], STAGES[t[1]], PIECES) > facts["shared_limit"] for t in TILES if not t.fused):
        return False
    return workspace_bytes(m, n, k, batch) <= MAX_WORKSPACE_BYTES


#: The untuned choice splits inside the kernel below this ``m n / (m + n)`` and takes the split
#: pass above it (the faster of the two on each side of it: docs/performance/rocblas.md).
FUSED_MAX_HARMONIC = 1024


def heuristic_tile(m, n, batch, multiprocessors):
    """The untuned tile: the split inside the kernel for products with a short side
    (:data:`FUSED_MAX_HARMONIC`), where the split pass's traffic weighs most, else the split pass
    (128 x 128). Inside the kernel the 64 x 128 tile where ``m <= 64 < n``, the 128 x 64 tile where
    ``n <= 64 < m``, else 128 x 128."""
    if m * n >= FUSED_MAX_HARMONIC * (m + n):
        return TILES[1]
    if m <= 64 < n:
        return fused_tile(64, TILE)
    if n <= 64 < m:
        return fused_tile(TILE, 64)
    return TILES[0]


def candidate_tiles(m, n):
    """The tiles the tuning times for an ``m`` x ``n`` product: :data:`TILES`, the 64 x 128 tile
    only where ``m <= 128`` and the 128 x 64 only where ``n <= 128`` (one square tile covers that
    side; past it the short tiles only add blocks that re-read the other operand)."""
    short = {(64, TILE): m <= TILE, (TILE, 64): n <= TILE}
    return tuple(t for t in TILES if short.get((t[0], t[1]), True))


def fused_tile(tile_m, tile_n):
    """The tile of :data:`TILES` that splits inside the kernel with a ``tile_m`` x ``tile_n`` block."""
    return next(t for t in TILES if t.fused and (t[0], t[1]) == (tile_m, tile_n))


def fused_shared_bytes(stages=None, tile_m=TILE, tile_n=TILE):
    """Dynamic shared memory of the kernel that splits inside with a ``tile_m`` x ``tile_n`` block
    and ``stages`` raw slots (default :data:`FUSED_STAGES`): an 8-byte mbarrier per raw slot, then
    (from the next 1024-byte boundary) the raw slots (op(A)'s ``tile_m`` x 32 and op(B)'s
    ``tile_n`` x 32 float32 tiles) and two pieces buffers (A_hi, A_lo, B_hi, B_lo)."""
    stages = FUSED_STAGES[(int(tile_m), int(tile_n))] if stages is None else int(stages)
    raw = (int(tile_m) + int(tile_n)) * wg.ROW_BYTES
    return stages * (raw + 8) + 2 * PIECES * raw + wg.ALIGN


def fused_aligned(address, ld, stride, batch):
    """Whether TMA can copy an operand as float32: its address, leading dimension and (for
    batches) batch stride on 16 bytes, the batch stride positive (a tensor map has no zero
    stride: a matrix shared by every batch entry is copied per entry first, see
    :func:`shared_copies`)."""
    return address % 16 == 0 and ld % 4 == 0 and (batch <= 1 or (stride > 0 and stride % 4 == 0))


#: Workspace of the per-entry copies of a matrix shared by every batch entry
#: (:data:`rocarray._core.workspace.workspaces` scratch, held until the call's launches are queued).
SHARED_COPIES = "rocblas.gemm.x3.shared"


def stored_shape(trans, rows, cols):
    """``(rows, cols)`` of the stored column-major matrix whose op is ``rows`` x ``cols``."""
    return (int(cols), int(rows)) if trans else (int(rows), int(cols))


def shared_copies(shapes, lds, strides, batch):
    """The per-entry copies that give each operand shared by every batch entry (``batch > 1``,
    stride 0) a positive batch stride: ``(new strides, [(operand index, stored rows, cols, ld,
    workspace offset in bytes)], workspace bytes)``. ``shapes``: the stored ``(rows, cols)`` of A
    and B; ``lds``: their leading dimensions. A copy keeps the leading dimension; entry ``b``
    starts ``ld * cols`` elements after entry 0 (16-byte steps when ``ld`` is a multiple of 4)."""
    out, copies, offset = list(strides[:2]), [], 0
    if batch > 1:
        for i, ((rows, cols), ld) in enumerate(zip(shapes, lds)):
            if strides[i] == 0:
                out[i] = int(ld) * int(cols)
                copies.append((i, int(rows), int(cols), int(ld), offset))
                offset += ITEMSIZE * out[i] * int(batch)
    return tuple(out) + tuple(strides[2:]), copies, offset


def operand_strides(trans, ld, is_a):
    """``(s_r, s_c, k contiguous)`` of op(X) read as rows x k (rows = m for A, n for B) from the
    column-major X with leading dimension ``ld``: op(A)(i, kk) is A[i + kk ld] ('N') or
    A[kk + i ld] ('T'); op(B)(kk, j) is B[kk + j ld] ('N') or B[j + kk ld] ('T')."""
    k_contiguous = trans if is_a else not trans
    return (int(ld), 1, True) if k_contiguous else (1, int(ld), False)


def prepare_run(device_id, tile, m, n, k, lda, ldb, ldc, trans_a, trans_b, act, batch=1, strides=(0, 0, 0)):
    """The launches of one float32 problem on the path, everything but the call's values worked
    out: returns ``run(alpha, beta, A, B, C, bias)`` taking float32 ``alpha``/``beta`` and the
    device addresses (ints) of A, B, C and the bias (0: none), on the current device.

    ``trans_a``/``trans_b``: op is a transpose; ``act``: the epilogue's activation code; ``batch``
    entries ``strides`` (elements of A, B, C) apart. The caller has checked the arguments and
    :func:`usable`.
    """
    if tile.fused:
        return _prepare_fused_run(device_id, tile, m, n, k, lda, ldb, ldc, trans_a, trans_b, act, batch, strides)
    return _prepare_split_run(device_id, tile, m, n, k, lda, ldb, ldc, trans_a, trans_b, act, batch, strides)


def _prepare_fused_run(device_id, tile, m, n, k, lda, ldb, ldc, trans_a, trans_b, act, batch, strides):
    """:func:`prepare_run` for the split inside the kernel; calls whose operands TMA cannot copy
    as float32 (:func:`fused_aligned`) take the split pass's launches instead, except that a
    matrix shared by every batch entry is copied per entry first (:func:`shared_copies`)."""
    tile_m, tile_n = int(tile[0]), int(tile[1])
    stages = FUSED_STAGES[(tile_m, tile_n)]
    sms = device_facts(device_id)["multiprocessors"]
    a_kmajor, b_kmajor = bool(trans_a), not trans_b
    blocked_maps = blocked(a_kmajor, b_kmajor, m, n)
    product = wg.prepare_product(device_id, fused_kernel_name(trans_a, trans_b, tile_m, tile_n, blocked_maps),
                                 FINISH_KERNEL, tile_n, stages, PIECES, BK, m, n, k, ldc, batch, strides[2], sms, act,
                                 PROMOTE_SLOTS, block=FUSED_BLOCK, nbytes=fused_shared_bytes(stages, tile_m, tile_n),
                                 tile_m=tile_m)
    # the split pass multiplies its pieces with the square tile's kernel
    # (prepared when a call first needs it: most calls never do)
    fallback = plans.on_first_use(lambda: _prepare_split_run(device_id, TILES[1], m, n, k, lda, ldb, ldc, trans_a,
                                                             trans_b, act, batch, strides))
    shapes = (stored_shape(trans_a, m, k), stored_shape(trans_b, k, n))
    used, copies, copy_bytes = shared_copies(shapes, (lda, ldb), strides, batch)
    lds_aligned = fused_aligned(0, lda, used[0], batch) and fused_aligned(0, ldb, used[1], batch)
    copy_launches = [(i, offset, _prepare_shared_copy(device_id, rows, cols, ld, batch))
                     for i, rows, cols, ld, offset in copies]
    shared = [False, False]
    for i, _, _ in copy_launches:
        shared[i] = True

    def run(alpha, beta, A, B, C, bias):
        # a shared matrix's own address does not reach a tensor map (its copies' does)
        if not (lds_aligned and (shared[0] or A % 16 == 0) and (shared[1] or B % 16 == 0)):
            return fallback()(alpha, beta, A, B, C, bias)
        keep = None
        if copy_launches:
            keep = workspace.workspaces.scratch(SHARED_COPIES, copy_bytes, device_id)  # held until queued
            operands = [A, B]
            for i, offset, copy in copy_launches:
                operands[i] = keep.data.ptr + offset
                copy(A if i == 0 else B, operands[i])
            A, B = operands
        map_a = fused_operand_map(A, a_kmajor, m, k, lda, used[0], batch, tile_m, blocked_maps)
        map_b = fused_operand_map(B, b_kmajor, n, k, ldb, used[1], batch, tile_n, blocked_maps)
        product(map_a, map_b, alpha, beta, C, bias)
        del keep
    return run


def _prepare_shared_copy(device_id, rows, cols, ld, batch):
    """The launch copying one float32 matrix (stored ``rows`` x ``cols``, leading dimension ``ld``)
    to ``batch`` entries ``ld * cols`` elements apart: ``copy(source, destination)`` on device
    addresses. The padded-copy kernel of the 16-bit path moves the matrix's span (``ld (cols - 1)
    + rows`` elements, columns and the gaps between them) as one column of 16-bit halves from a
    zero batch stride."""
    span = 2 * (int(ld) * (int(cols) - 1) + int(rows))  # 16-bit halves
    total = span * int(batch)
    i64, POINTER = numpy.int64, launch.POINTER
    go = wg.KERNELS[wg.PACK_KERNEL].prepare(
        device_id, (max(1, min(-(-total // wg.AUX_BLOCK), 65536)),),
        (i64(span), i64(1), i64(batch), POINTER, i64(span), i64(0), POINTER, i64(span),
         i64(2 * int(ld) * int(cols))), block=wg.AUX_BLOCK)

    def copy(source, destination):
        go(source, destination)
    return copy


def blocked(a_kmajor, b_kmajor, m, n):
    """Whether the kernel that splits inside copies its mn-major operands through 4-D maps, one
    box a tile (the kernel's ``BLOCKED``): there is one, and each has its m (op(A)) or n (op(B)) a
    multiple of 32 (one box is faster than a box per 32 rows)."""
    mn_major = [mn for kmajor, mn in ((a_kmajor, m), (b_kmajor, n)) if not kmajor]
    return bool(mn_major) and all(int(mn) % 32 == 0 for mn in mn_major)


def fused_operand_map(address, kmajor, mn, k, ld, stride, batch, rows, blocked_maps):
    """The tensor map through which the kernel that splits inside copies an operand: for an
    mn-major one under ``blocked_maps`` (:func:`blocked`) the 4-D map of
    :func:`rocarray.rocblas.tensor_maps.blocked_operand_map`, else the 3-D map of
    :func:`rocarray.rocblas.tensor_maps.operand_map`."""
    if blocked_maps and not kmajor:
        return tensor_maps.blocked_operand_map(address, mn, k, ld, stride, batch, rows)
    return tensor_maps.operand_map(address, kmajor, mn, k, ld, stride, batch, rows, ITEMSIZE)


def _prepare_split_run(device_id, tile, m, n, k, lda, ldb, ldc, trans_a, trans_b, act, batch, strides):
    """:func:`prepare_run` for the split pass and the pieces kernel."""
    cupy = backend.cupy()
    tile_n = int(tile[1])
    sms = device_facts(device_id)["multiprocessors"]
    product = wg.prepare_product(device_id, kernel_name(tile_n), FINISH_KERNEL, tile_n, STAGES[tile_n], PIECES, BK,
                                 m, n, k, ldc, batch, strides[2], sms, act, PROMOTE_SLOTS)
    split, guard = wg.KERNELS[SPLIT_KERNEL], wg.KERNELS[GUARD_KERNEL]
    ld = leading(k)
    i64, i32 = numpy.int64, numpy.int32
    POINTER, MODE = launch.POINTER, launch.scalar(numpy.int32)
    a_elems, b_elems = PIECES * m * ld * batch, PIECES * n * ld * batch

    def split_launch(rows, trans, ld_src, stride, is_a):
        s_r, s_c, k_contiguous = operand_strides(trans, ld_src, is_a)
        tiles = -(-rows // SPLIT_TILE) * -(-k // SPLIT_TILE_K) * batch
        grid = (max(1, min(tiles, 32 * sms)),)
        stride = stride if batch > 1 else 0
        # the mode for a source address on 16 bytes, and for one that is not
        mode = SPLIT_K_CONTIGUOUS if k_contiguous else 0
        aligned_mode = mode | SPLIT_ROWS_ALIGNED if k_contiguous and s_r % 4 == 0 and stride % 4 == 0 else mode
        go = split.prepare(device_id, grid, (i64(rows), i64(k), i64(batch), POINTER, i64(s_r), i64(s_c), i64(stride),
                                             MODE, POINTER, i64(ld), POINTER, POINTER), block=SPLIT_BLOCK)
        return go, i32(aligned_mode), i32(mode)
    a_split = split_launch(m, trans_a, lda, strides[0], True)
    b_split = split_launch(n, trans_b, ldb, strides[1], False)
    guard_launch = guard.prepare(device_id, (max(1, min(-(-n * ld * batch // SPLIT_BLOCK), 16 * sms)),),
                                 (POINTER, i64(n * ld), i64(batch), POINTER), block=SPLIT_BLOCK)

    def run(alpha, beta, A, B, C, bias):
        # the pieces, then two flags: op(A) holds an infinity, op(B) does
        work = cupy.empty(a_elems + b_elems + 2, numpy.float32)
        a_pieces = work.data.ptr
        b_pieces = a_pieces + ITEMSIZE * a_elems
        a_inf = b_pieces + ITEMSIZE * b_elems
        b_inf = a_inf + ITEMSIZE
        cupy.cuda.runtime.memsetAsync(a_inf, 0, 2 * ITEMSIZE, cupy.cuda.get_current_stream().ptr)
        for (go, aligned_mode, mode), src, dst, other, seen in ((b_split, B, b_pieces, a_inf, b_inf),
                                                                (a_split, A, a_pieces, b_inf, a_inf)):
            go(src, mode if src % 16 else aligned_mode, dst, other, seen)
        guard_launch(b_pieces, a_inf)
        map_a = tensor_maps.operand_map(a_pieces, True, m, k, ld, m * ld, PIECES * batch, TILE, ITEMSIZE)
        map_b = tensor_maps.operand_map(b_pieces, True, n, k, ld, n * ld, PIECES * batch, tile_n, ITEMSIZE)
        product(map_a, map_b, alpha, beta, C, bias)
    return run
