"""The sm_90a warpgroup kernels of float16/bfloat16 gemm (``rocarray/_kernels/rocblas/gemm_wgmma.hip``).

Reached through :mod:`rocarray.rocblas._gemm.half`, which checks nothing either and falls back to
the ``mma.sync`` kernel (:mod:`rocarray.rocblas._gemm.mma`) where this one does not apply.

On compute capability 9.0 with aligned operands and ``k >= 1`` the warpgroup instructions take
over: ``ra_rocblas_gemm_wgmma<T, A_KMAJOR, B_KMAJOR, BN[, BM]>`` (32 instantiations), persistent
blocks of two consumer warpgroups (a 128 x ``BN`` tile, ``wgmma.mma_async`` m64n``BN``k16 reading
both operands from shared memory; ``BM = 64``: one warpgroup, a 64 x 64 tile for skinny products)
and one producer warp that streams k tiles of 64 through a ring of ``stages`` slots with TMA
copies (tensor maps from :mod:`rocarray.rocblas._gemm.tensor_maps`), synchronized by mbarriers
(:func:`choose_config`, :func:`shared_bytes`, :func:`prepare`). One m64n256k16 is 524 288 FLOPs
from 10 KiB of shared operands (128 clocks of the multiprocessor's 4096 dense 16-bit FLOPs per
clock against 80 clocks of its 128 bytes per clock of shared reads), so the shared reads keep up
with the matrix units; the producer warp keeps the copies off the consumers. The epilogue keeps
the activation out of each element's unrolled code (see the kernel's comments).

Long k on few tiles (the tiles fill at most half the device) is split (:func:`splits`): each
split writes its float32 sum to a workspace and ``ra_rocblas_gemm_wg_finish`` adds them and
applies alpha and beta. Operands whose columns are not 16-byte aligned take the ``mma.sync``
kernel's predicated copies, except past :data:`PACK_MIN_FLOPS`, where they are first copied into
padded buffers (``ra_rocblas_gemm_wg_pack``) for the wgmma kernel; past it, a matrix shared by
every batch entry (batch stride 0, which no tensor map holds) is copied once per entry the same
way (below it the ``mma.sync`` kernel reads it in place). The same kernel body serves
the float32 three-TF32 path (:mod:`rocarray.rocblas._gemm.tf32x3`, :func:`prepare_product`).
"""
import collections

import numpy

from rocarray._core import backend, compile as _compile, kernels, launch, workspace
from rocarray.rocblas._gemm import mma, tensor_maps
from rocarray.rocblas._gemm.mma import CHUNK, NAMES, TILE, TILE_WIDTHS, operand_aligned

#: The sm_90a warpgroup kernels, the split-k finish and the padded copy.
SOURCE = "rocblas/gemm_wgmma.hip"
#: k per shared-memory slot of the wgmma kernel (one 128-byte swizzle row of 16-bit elements).
BK = 64
#: Slot alignment (bytes) the swizzled layouts need; the kernel aligns its dynamic shared memory up.
ALIGN = 1024
#: Block tile widths of the wgmma kernel (its ``BN``): 64 for products with ``n <= 64`` (see
#: :func:`choose_config`), 128, and 256 for big ones.
WG_TILE_WIDTHS = (64,) + TILE_WIDTHS
#: The skinny tile, 64 x 64 (the kernel's ``BM = 64``: one consumer warpgroup): more than half a
#: wave of blocks and no k split where 128-row tiles would fill at most half the device (see
#: :func:`choose_config`).
SKINNY = 64
#: Ring depths of the wgmma kernel by tile width for 128-row tiles (about 192 KiB each; at least 3).
STAGES = {64: 8, 128: 6, 256: 4}
#: Ring depth of the 64 x 64 tile (16 KiB slots): the fastest depth timed, no slower than the
#: deeper rings that would fit.
STAGES_SKINNY = 8


class Config(collections.namedtuple("Config", "tile_n stages tile_m", defaults=(TILE,))):
    """A wgmma launch configuration: block tile ``tile_m`` x ``tile_n`` and ring depth ``stages``."""


def block_threads(tile_m=TILE):
    """Threads of a wgmma block: one consumer warpgroup (128 threads) per 64 rows of the tile and
    one producer warp."""
    return (int(tile_m) // 64) * 128 + 32


#: Threads of a 128-row wgmma block: two consumer warpgroups (4 warps of 32 each) and one producer
#: warp.
BLOCK = block_threads()


def kernel_name(dtype_name, transA, transB, tile_n=TILE, tile_m=TILE):
    """Name expression of the sm_90 kernel, e.g. ``'ra_rocblas_gemm_wgmma<ra_half, false, true, 256>'``
    (``tile_m`` 64 adds the template argument: ``'...<ra_half, false, true, 64, 64>'``)."""
    name = mma.kernel_name(dtype_name, transA, transB, tile_n).replace("gemm_mma<", "gemm_wgmma<")
    return name if int(tile_m) == TILE else f"{name[:-1]}, {int(tile_m)}>"


def instantiations():
    """Every name expression of the sm_90 kernel: 2 dtypes x 4 transposes x 4 tiles (128 x 64,
    128 x 128, 128 x 256, 64 x 64)."""
    tiles = [(w, TILE) for w in WG_TILE_WIDTHS] + [(SKINNY, SKINNY)]
    return sorted(kernel_name(d, ta, tb, w, h) for d in NAMES for ta in "NT" for tb in "NT"
                  for w, h in tiles)


_compile.register(SOURCE, instantiations() + [f"ra_rocblas_gemm_wg_finish<{c}>"
                                              for c in sorted(mma.ctype(d) for d in NAMES)])
#: The padded-copy kernel of unaligned operands (``extern "C"``, see :func:`pack_operands`).
PACK_KERNEL = "ra_rocblas_gemm_wg_pack"
#: Unaligned operands are copied to padded buffers for the wgmma kernel from this many FLOPs
#: (the copy reads and writes each operand once: small next to a gemm this size).
PACK_MIN_FLOPS = 2**31
#: Sizes (m, n, k, batch) the kernel takes: below the 32-bit TMA coordinates' limit.
MAX_COORDINATE = 2**31
#: k tiles of 64 each split of a split-k launch gets at least.
SPLIT_MIN_KTILES = 4
#: k tiles a problem needs before it is split (shorter k: the workspace round trip and the second
#: launch cost about what the split would save).
SPLIT_MIN_KTILES_TOTAL = 32


#: Bytes of one operand row of a slot (its k is ``ROW_BYTES // itemsize``: 64 for 16-bit data,
#: 32 for the float32 path's TF32 pieces).
ROW_BYTES = 128


def slot_k(itemsize=2):
    """k of one shared-memory slot for elements of ``itemsize`` bytes."""
    return ROW_BYTES // int(itemsize)


def shared_bytes(tile_n, stages, pieces=1, tile_m=TILE):
    """Dynamic shared memory of one wgmma block: two 8-byte mbarriers per slot, then (from the
    next 1024-byte boundary) ``stages`` slots of ``pieces`` x (``tile_m`` + ``tile_n``) rows of 128
    bytes (``pieces = 2``: the float32 path's TF32 high and low parts)."""
    return int(stages) * (int(pieces) * (int(tile_m) + int(tile_n)) * ROW_BYTES + 16) + ALIGN


def whole_lines(lda, ldb, itemsize=2):
    """Whether both operands' columns fill whole 128-byte lines (leading dimensions in elements of
    ``itemsize`` bytes): the 64 x 64 tile's condition (:func:`choose_config`)."""
    return (int(lda) * int(itemsize)) % ROW_BYTES == 0 and (int(ldb) * int(itemsize)) % ROW_BYTES == 0


def usable(aligned, *, is_hip, cc_major, cc_minor, k=1, sizes=()):
    """Whether the sm_90a warpgroup kernel runs: compute capability 9.0 exactly (its instructions
    exist only there), operands that move as 16-byte chunks, ``k >= 1`` (a tensor map needs a
    nonempty operand) and every size in ``sizes`` (m, n, k, batch) below 2^31 (TMA coordinates
    are 32-bit)."""
    return (bool(aligned) and k > 0 and not is_hip and (cc_major, cc_minor) == (9, 0)
            and all(int(v) < MAX_COORDINATE for v in sizes))


def _tiles(m, n, batch, tile_m, tile_n):
    return -(-int(m) // int(tile_m)) * -(-int(n) // int(tile_n)) * max(1, int(batch))


def choose_config(m, n, batch, *, multiprocessors, shared_limit, whole_lines=True):
    """The wgmma kernel's :class:`Config` (block tile and ring depth), or ``None`` when no ring of 3
    slots fits.

    The 128 x 256 tile when the problem has at least one per multiprocessor (the bigger tile halves
    the B-operand traffic per FLOP), else 128 x 128 so that more blocks spread over the device, and
    128 x 64 when ``n <= 64``: a wider tile would copy and multiply columns past n (with n > 64 the
    narrow tile is slower). Where those
    128-row tiles fill at most half the device (so a long k would be split, with a second launch
    to add the parts) and the 64 x 64 tiles fill more than half of it but no more than one wave,
    the 64 x 64 tile (:data:`SKINNY`) takes over: the blocks of the split without the split's
    partial sums and second launch. Where the 64 x 64 tiles would need a split themselves, 128 x 128
    with a deeper split is faster. The 64 x 64 tile also needs
    ``whole_lines``: both operands' columns (leading dimensions) in whole 128-byte lines. Its
    blocks copy the small operand's boxes twice as often, and rows that straddle lines cost more.
    The deepest ring (:data:`STAGES`; :data:`STAGES_SKINNY`) that ``shared_limit`` allows. (The
    timings behind these rules: docs/performance/rocblas.md.)
    """
    big_tiles = _tiles(m, n, batch, TILE, TILE_WIDTHS[1])
    if n <= WG_TILE_WIDTHS[0]:
        widths = (WG_TILE_WIDTHS[0],)
    else:
        widths = (TILE_WIDTHS[1], TILE) if big_tiles >= multiprocessors else (TILE,)
    candidates = [(tile_n, STAGES[tile_n], TILE) for tile_n in widths]
    if (whole_lines and 2 * _tiles(m, n, batch, TILE, widths[-1]) <= multiprocessors
            < 2 * _tiles(m, n, batch, SKINNY, SKINNY) <= 2 * multiprocessors):
        candidates.insert(0, (SKINNY, STAGES_SKINNY, SKINNY))
    for tile_n, deepest, tile_m in candidates:
        for stages in range(deepest, 2, -1):
            if shared_bytes(tile_n, stages, tile_m=tile_m) <= shared_limit:
                return Config(tile_n, stages, tile_m)
    return None


def splits(m, n, k, batch, tile_n, multiprocessors, bk=BK, tile_m=TILE):
    """``(splits, k tiles per split)`` of a wgmma launch with k tiles of ``bk``: k is split when the
    ``tile_m`` x ``tile_n`` tiles of C fill at most half the device and k has at least
    :data:`SPLIT_MIN_KTILES_TOTAL` tiles, into as many parts as one wave of blocks takes, each of
    at least :data:`SPLIT_MIN_KTILES` k tiles (the partial sums go to a float32 workspace)."""
    ktiles = -(-int(k) // int(bk))
    tiles = _tiles(m, n, batch, tile_m, tile_n)
    if 2 * tiles > multiprocessors or ktiles < SPLIT_MIN_KTILES_TOTAL:
        return 1, ktiles
    want = min(multiprocessors // tiles, ktiles // SPLIT_MIN_KTILES)
    per = -(-ktiles // want)
    return -(-ktiles // per), per


#: The kernels of the source (the warpgroup kernels' block by default; one resident block per
#: multiprocessor); the three-TF32 path (:mod:`rocarray.rocblas._gemm.tf32x3`) launches its
#: kernels from here too.
KERNELS = kernels.Family(SOURCE, BLOCK, 1)
#: Threads per block of the finish, the padded copy and the three-TF32 split pass.
AUX_BLOCK = 256
#: Name of the split-k partial sums' workspace (:data:`rocarray._core.workspace.workspaces`
#: scratch: float32 sums the splits write and the finish of the same call reads).
PARTIALS = "rocblas.gemm.wgmma.splitk"
#: The kernel's ``promote`` argument where the matrix units keep the whole sum (16-bit inputs).
_NO_PROMOTE = numpy.int32(0)


def _dependent(device_id):
    """Whether the kernel goes as a programmatic dependent on ``device_id`` (sm_90: it does), from
    the device facts of the gemm layer (:func:`rocarray.rocblas._gemm.mma.device_facts`)."""
    facts = mma.device_facts(device_id)
    return backend.grid_dependency(facts["is_hip"], facts["cc_major"])


def grid(m, n, batch, tile_n, multiprocessors, parts=1, tile_m=TILE):
    """Persistent grid of the wgmma kernel: one block per multiprocessor, fewer for fewer work
    items (``tile_m`` x ``tile_n`` tiles of C times k splits)."""
    tiles = _tiles(m, n, batch, tile_m, tile_n) * int(parts)
    return (max(1, min(tiles, int(multiprocessors))), 1)


def pack_operands(device_id, a, b, batch):
    """Padded copies (leading dimension and batch stride multiples of 8) of the operands that are
    not 16-byte aligned or that every batch entry shares (batch stride 0: copied once per entry):
    ``((A, lda, stride_a), (B, ldb, stride_b), buffers to keep alive)``.

    ``a``/``b`` are ``(pointer, ld, stride, rows of op(X), cols of op(X), op is identity)``; the
    stored matrix is rows x cols for an identity op and cols x rows otherwise."""
    cupy = backend.cupy()
    kernel = KERNELS[PACK_KERNEL]
    out, keep = [], []
    for ptr, ld, stride, r, c, identity in (a, b):
        if operand_aligned(ptr.ptr, ld, stride, batch) and (batch <= 1 or stride != 0):
            out.append((ptr, ld, stride))
            continue
        rows, cols = (r, c) if identity else (c, r)
        ld2 = -(-rows // CHUNK) * CHUNK
        stride2 = ld2 * cols
        buf = cupy.empty(stride2 * batch, numpy.uint16)
        total = rows * cols * batch
        blocks = max(1, min(-(-total // AUX_BLOCK), 65536))
        i64 = numpy.int64
        kernel(device_id, (blocks,), (i64(rows), i64(cols), i64(batch), ptr, i64(ld), i64(stride if batch > 1 else 0),
                                      buf, i64(ld2), i64(stride2)), block=AUX_BLOCK)
        out.append((buf.data, ld2, stride2))
        keep.append(buf)
    return out[0], out[1], keep


def prepare_product(device_id, name, finish_name, tile_n, stages, pieces, bk, m, n, k, ldc, batch, stride_c,
                    multiprocessors, act, promote, block=None, nbytes=None, tile_m=TILE):
    """The warpgroup kernel's launch and, when k is split, the finish's, everything but the call's
    values worked out: returns ``product(map_a, map_b, alpha, beta, C, bias)`` taking the operands'
    tensor maps, float32 scalars and the device addresses (ints) of C and the bias (0: none).

    ``name``/``finish_name``: the kernel and finish instantiations; ``pieces``/``bk``: operand tiles
    per slot and the k of a slot (:func:`shared_bytes`, :func:`splits`); ``promote``: the kernel's
    float32 promotion argument (0 for 16-bit data); ``block``/``nbytes``: the kernel's block and
    dynamic shared memory where they are not the warpgroup kernel's (:func:`block_threads`,
    :func:`shared_bytes`); ``tile_m``: rows of the block tile (128, or :data:`SKINNY`)."""
    block = block_threads(tile_m) if block is None else block
    nbytes = shared_bytes(tile_n, stages, pieces, tile_m) if nbytes is None else int(nbytes)
    parts, per = splits(m, n, k, batch, tile_n, multiprocessors, bk, tile_m)
    i64 = numpy.int64
    launch_grid = grid(m, n, batch, tile_n, multiprocessors, parts, tile_m)
    sizes = (i64(m), i64(n), i64(k), i64(batch))
    c_layout = (i64(ldc), i64(stride_c))
    tail = (numpy.int32(stages), i64(parts), i64(per))
    epilogue = (numpy.int32(act), numpy.int32(promote))
    F32, ARRAY, POINTER = launch.scalar(numpy.float32), launch.HOST_ARRAY, launch.POINTER
    main = KERNELS[name].prepare(
        device_id, launch_grid, (ARRAY, ARRAY) + sizes + (F32, F32, POINTER) + c_layout + tail
        + (POINTER if parts > 1 else i64(0), POINTER) + epilogue, block=int(block), shared=nbytes,
        dependent=_dependent(device_id))
    if parts == 1:
        return main
    per_thread = 4 if m * n % 4 == 0 else 1  # the finish's threads sum four elements when slices allow
    total = m * n * batch // per_thread
    finish_grid = (max(1, min(-(-total // AUX_BLOCK), 16 * int(multiprocessors))),)
    finish = KERNELS[finish_name].prepare(
        device_id, finish_grid, (i64(m), i64(n), i64(batch), i64(parts), POINTER, F32, F32, POINTER) + c_layout
        + (POINTER, epilogue[0]), block=AUX_BLOCK)
    partial_bytes = 4 * batch * parts * m * n  # float32 partial sums
    workspaces = workspace.workspaces

    def product(map_a, map_b, alpha, beta, C, bias):
        buffer = workspaces.scratch(PARTIALS, partial_bytes, device_id)  # held until the launches are queued
        partials = buffer.data.ptr
        main(map_a, map_b, alpha, beta, C, partials, bias)
        finish(partials, alpha, beta, C, bias)
    return product


def prepare(device_id, name, transA, transB, config, m, n, k, lda, ldb, ldc, batch, stride_a, stride_b, stride_c,
            multiprocessors, act=numpy.int32(0)):
    """The sm_90a launches (and the split-k finish when k is split) with everything but the
    call's values worked out: returns ``run(alpha, beta, A, B, C, bias)`` taking float32
    ``alpha``/``beta`` and the device addresses (ints) of A, B, C and the bias (0: none), on the
    current device, arguments checked and normalized as
    :func:`rocarray.rocblas._gemm.half.launch` does. ``run`` returns ``False`` when the driver
    refuses a tensor map (nothing was launched: the caller takes the mma kernel)."""
    tile_n, stages, tile_m = Config(*config)
    a_kmajor, b_kmajor = transA != "N", transB == "N"
    product = prepare_product(device_id, kernel_name(name, transA, transB, tile_n, tile_m),
                              f"ra_rocblas_gemm_wg_finish<{mma.ctype(name)}>", tile_n, stages, 1, BK, m, n, k,
                              ldc, batch, stride_c, multiprocessors, act, _NO_PROMOTE, tile_m=tile_m)

    def run(alpha, beta, A, B, C, bias):
        try:
            map_a = tensor_maps.operand_map(A, a_kmajor, m, k, lda, stride_a, batch, tile_m)
            map_b = tensor_maps.operand_map(B, b_kmajor, n, k, ldb, stride_b, batch, tile_n)
        except tensor_maps.TensorMapError:
            return False
        product(map_a, map_b, alpha, beta, C, bias)
        return True
    return run
