"""The kernels of ``rocblas/gemm.hip``: the SIMT tiles, the float64 matrix-instruction tiles and
the split-K finish.

One kernel template, ``ra_rocblas_gemm<T, BM, BN, BK, TM, TN[, DIRECT, LM, LN, STAGES]>``, is
instantiated per dtype and SIMT tile shape (:class:`rocarray.rocblas._gemm.tiles.Tile`); the
transposes and the fused epilogue are runtime flags. A block of 256 threads owns a ``BM x BN``
tile of C and each thread a ``TM x TN`` register micro-tile whose rows and columns are 16-byte
vectors in shared memory; the operand tiles are double-buffered in shared memory and the next k
tile is loaded into registers while the current one is multiplied, or (the "direct" float32
tiles, NVIDIA sm_80+) copied straight into shared memory with ``cp.async``. float64 on NVIDIA
sm_80+ and AMD gfx90a/gfx94x runs ``ra_rocblas_gemm_f64mma<BM, BN, BK[, STAGES, K16, VEC,
THREADS]>`` on the matrix instructions (:class:`rocarray.rocblas._gemm.tiles.MmaTile`).

The grid's x dimension holds the tiles of C, y the strided batch (at most :data:`MAX_GRID_YZ`
matrices a launch) and z the split-K parts, whose partial sums go to a per-stream workspace and
are added in order by ``ra_rocblas_gemm_splitk_finish`` (deterministic), which then applies
beta, the bias and the activation. :func:`prepare` works out the launches of one
:class:`~rocarray.rocblas._gemm.tiles.TileChoice`.
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch, plans, workspace
from rocarray.rocblas._arguments import STANDARD as _STANDARD, scalar_type
from rocarray.rocblas._gemm import tiles
from rocarray.rocblas._gemm.tiles import BLOCK

SOURCE = "rocblas/gemm.hip"

#: Resident blocks per multiprocessor assumed for the occupancy query.
BLOCKS_PER_MULTIPROCESSOR = 2048 // BLOCK
#: The largest grid y (batch) and z (split-K) dimensions.
MAX_GRID_YZ = 65535

# flag bits (``RA_ROCBLAS3_*`` in the source)
TRANS_A, CONJ_A, TRANS_B, CONJ_B, BIAS = 1, 2, 4, 8, 16
ACT_SHIFT = 8
#: Fused activations and their codes (``RA_ROCBLAS3_ACT_*``).
ACTIVATIONS = {"relu": 1, "gelu": 2, "silu": 3, "sigmoid": 4, "tanh": 5}



def kernel_name(dtype, tile=None, vec=False):
    """Name expression of the gemm kernel, e.g. ``'ra_rocblas_gemm<float, 128, 128, 8, 8, 8>'``.

    ``vec``: the 16-byte layout of a direct float64 matrix tile (``VEC = 1``, for operands whose
    addresses and leading dimensions are 16-byte aligned; see :func:`vec_strides`)."""
    dtype = numpy.dtype(dtype)
    tile = tiles.TILES[dtype][0] if tile is None else tile
    if tile.mma:
        args = tile.template_args(vec)
        return f"ra_rocblas_gemm_f64mma<{', '.join(str(v) for v in args)}>"
    return f"ra_rocblas_gemm<{dtypes.ctype(dtype)}, {', '.join(str(v) for v in tile.template_args())}>"


def finish_name(dtype):
    """Name expression of the split-K finish kernel for ``dtype``."""
    return f"ra_rocblas_gemm_splitk_finish<{dtypes.ctype(dtype)}>"


def instantiations():
    """Every name expression this module launches (registered with the compile layer)."""
    names = [kernel_name(d, t) for d in _STANDARD for t in tiles.tiles_for(d, "cuda")]
    names += [kernel_name(d, t) for d in _STANDARD for t in tiles.tiles_for(d, "hip")]  # AMD's matrix tiles
    names += [kernel_name(d, t, vec=True) for d in _STANDARD for t in tiles.tiles_for(d, "cuda") if tiles.has_vec(t)]
    return sorted(set(names + [finish_name(d) for d in _STANDARD]))


_compile.register(SOURCE, instantiations())


def flags(transA, transB, dtype):
    """Kernel flag bits for the transposes (conjugation only for complex data)."""
    complex_ = numpy.dtype(dtype).kind == "c"
    f = 0
    if transA != "N":
        f |= TRANS_A | (CONJ_A if transA == "C" and complex_ else 0)
    if transB != "N":
        f |= TRANS_B | (CONJ_B if transB == "C" and complex_ else 0)
    return f


# --------------------------------------------------------------------------------------------
# launching
# --------------------------------------------------------------------------------------------

KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)
#: Name of the split-K partial sums' workspace (:data:`rocarray._core.workspace.workspaces`
#: scratch: the parts write it, the finish of the same call reads it).
PARTIALS = "rocblas.gemm.splitk"
#: A null device pointer argument.
_NULL = numpy.uint64(0)


def prepare(device_id, dtype, choice, m, n, k, lda, ldb, ldc, flag_bits, batch, strides):
    """The launches of one :class:`~rocarray.rocblas._gemm.tiles.TileChoice` of a SIMT or float64
    matrix-instruction tile, with everything but the call's values worked out: returns
    ``run(alpha, beta, A, B, C, bias)``, taking the kernel scalars ``alpha``/``beta`` and the
    device addresses (ints) of A, B, C and the bias (0: none), on the current device. ``batch``
    matrices go in the grid's y dimension, at most :data:`MAX_GRID_YZ` per launch."""
    tile, splits = choice
    itemsize = numpy.dtype(dtype).itemsize
    kernel = KERNELS[kernel_name(dtype, tile)]
    blocks = tiles.tiles_of(m, n, tile)
    tail_runs = ()  # the last wave's tiles split along k, launched first (tail_split)
    if splits == 1 and batch == 1:
        slots = tiles.residency(dtype, tile) * tiles.device_facts(device_id)[0]
        whole, tail_parts = tiles.tail_split(blocks, slots, k)
        if tail_parts > 1:
            tail_runs = prepare_tail(device_id, dtype, tile, tail_parts, m, n, k, lda, ldb, ldc, flag_bits,
                                     tiles.tile_rectangles(-(-m // tile[0]), whole, blocks))
            blocks = whole
    shared = tiles.mma_shared_bytes(tile) if tile.mma else tiles.simt_shared_bytes(dtype, tile)
    stride_a, stride_b, stride_c = strides
    parts, per = 1, max(k, 1)
    if splits > 1 and k > 0 and batch == 1:
        per = -(-k // splits)
        per = -(-per // tile[2]) * tile[2]  # whole k tiles per part
        parts = -(-k // per)
    ws_bytes = parts * m * n * itemsize
    i64 = numpy.int64
    sizes = (i64(m), i64(n), i64(k))
    lda_, ldb_, ldc_, flags_ = i64(lda), i64(ldb), i64(ldc), numpy.int32(flag_bits)
    tail = (i64(stride_a), i64(stride_b), i64(stride_c), i64(per))
    SCALAR, POINTER = launch.scalar(scalar_type(dtype)), launch.POINTER
    # the float64 matrix-core tiles go as programmatic dependents where the device can (the SIMT
    # tiles and the finish do not: docs/performance/rocblas.md)
    dependent = bool(tile.mma) and backend.dependent_launches(device_id)

    def chunks_of(kernel):
        return tuple((kernel.prepare(
            device_id, (blocks, min(MAX_GRID_YZ, batch - first), parts),
            sizes + (SCALAR, POINTER, lda_, POINTER, ldb_, SCALAR, POINTER, ldc_, flags_) + tail
            + (POINTER if parts > 1 else _NULL, POINTER), block=tile.threads, shared=shared, dependent=dependent),
            first * stride_a * itemsize, first * stride_b * itemsize, first * stride_c * itemsize)
            for first in range(0, batch, MAX_GRID_YZ))
    # each layout's kernel is compiled when a call first takes it, not when the plan is made: a
    # cold call compiles only the instantiation it launches
    plain = plans.on_first_use(lambda: chunks_of(kernel))
    if tiles.has_vec(tile) and tiles.vec_strides(itemsize, lda, ldb, strides):
        # the 16-byte layout, taken by the calls whose A and B are 16-byte aligned
        vec = plans.on_first_use(lambda: chunks_of(KERNELS[kernel_name(dtype, tile, vec=True)]))

        def chunks_for(A, B):
            return plain() if (A | B) & 15 else vec()
    else:
        def chunks_for(A, B):
            return plain()
    if parts > 1:  # the parts' partials, added in order, then beta, bias and the activation
        finish_kernel = KERNELS[finish_name(dtype)]
        finish = finish_kernel.prepare(
            device_id, (min(finish_kernel.wave(device_id), -(-m * n // BLOCK)),),
            (i64(m), i64(n), numpy.int32(parts), POINTER, SCALAR, POINTER, ldc_, flags_, POINTER))
        workspaces = workspace.workspaces

        def run(alpha, beta, A, B, C, bias):
            for run_tail, off_a, off_b, off_c, off_bias in tail_runs:
                run_tail(alpha, beta, A + off_a, B + off_b, C + off_c, bias + off_bias if bias else 0)
            partials = workspaces.scratch(PARTIALS, ws_bytes, device_id)  # held until the launches are queued
            ws = partials.data.ptr
            for go, off_a, off_b, off_c in chunks_for(A, B):
                go(alpha, A + off_a, B + off_b, beta, C + off_c, ws, bias)
            finish(ws, beta, C, bias)
    else:
        def run(alpha, beta, A, B, C, bias):
            for run_tail, off_a, off_b, off_c, off_bias in tail_runs:
                run_tail(alpha, beta, A + off_a, B + off_b, C + off_c, bias + off_bias if bias else 0)
            for go, off_a, off_b, off_c in chunks_for(A, B):
                go(alpha, A + off_a, B + off_b, beta, C + off_c, bias)
    return run


def prepare_tail(device_id, dtype, tile, parts, m, n, k, lda, ldb, ldc, flag_bits, rects):
    """The split-K launches of the tail tiles (:func:`tail_split`): one sub-problem per rectangle
    of tiles, as ``(run, A, B, C and bias byte offsets)``."""
    itemsize = numpy.dtype(dtype).itemsize
    out = []
    for tm0, tm1, tn0, tn1 in rects:
        i0, j0 = tm0 * tile[0], tn0 * tile[1]
        sub_m, sub_n = min(m, tm1 * tile[0]) - i0, min(n, tn1 * tile[1]) - j0
        run = prepare(device_id, dtype, tiles.TileChoice(tile, parts), sub_m, sub_n, k, lda, ldb, ldc, flag_bits, 1,
                      (0, 0, 0))
        off_a = i0 * (lda if flag_bits & TRANS_A else 1) * itemsize
        off_b = j0 * (1 if flag_bits & TRANS_B else ldb) * itemsize
        out.append((run, off_a, off_b, (i0 + j0 * ldc) * itemsize, i0 * itemsize))
    return tuple(out)
