"""rocBLAS level 3 on hand-written HIP kernels (``rocarray/_kernels/rocblas/gemm.hip``).

``gemm(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)`` takes rocBLAS's arguments
in rocBLAS's order, without the handle, with the reference BLAS's semantics (as level 2,
:mod:`rocarray.rocblas._level2`):

* matrices are column-major: element ``(i, j)`` of a matrix stored with leading dimension ``ld``
  is buffer element ``i + j * ld``. A buffer is a contiguous ``cupy.ndarray``: 1-D, or a 2-D
  Fortran-ordered array taken as its flat memory. Nothing is copied. ``op(A)`` is ``m x k``, so
  ``A`` is stored ``m x k`` for ``'N'`` and ``k x m`` for ``'T'``/``'C'`` (``lda`` at least its
  stored rows); likewise ``op(B)`` is ``k x n``; ``C`` is ``m x n`` with ``ldc >= max(1, m)``.
* ``m == 0`` or ``n == 0`` does nothing; ``alpha == 0`` or ``k == 0`` does not read ``A`` or
  ``B`` (C is scaled by ``beta``; with ``beta == 1`` it is a no-op); ``beta == 0`` never reads
  ``C``, so NaN or garbage in ``C`` does not propagate.
* argument errors raise before the device is touched: ``ValueError`` for an invalid
  ``transA``/``transB`` (naming it), negative sizes, a leading dimension too small, buffers too
  short or misaligned; ``TypeError`` for non-CuPy buffers, unsupported (float16, bfloat16: not
  supported yet) or mismatched dtypes and complex scalars with real data.
* ``C`` must not overlap ``A`` or ``B`` (as in BLAS; not checked).

Design (and the speed it is built for)
--------------------------------------
This is the portable SIMT path: one kernel template (``gemm.hip``) instantiated per dtype and tile
shape; the transposes are runtime flags. A block of 256 threads owns a ``BM x BN`` tile of C and
each thread a ``TM x TN`` register micro-tile whose rows and columns are 16-byte vectors in shared
memory; the operand tiles are double-buffered in shared memory and the next k tile is loaded into
registers while the current one is multiplied, or (the "direct" float32 tiles, NVIDIA sm_80+)
copied straight into shared memory with ``cp.async``. Tile shapes (:data:`TILES`): float32
128 x 128 of 8 x 8 (64 FMAs per four 16-byte shared loads; k tiles of 8 or 16) and 64 x 64 of
4 x 4, float64 and complex 64 x 64 of 4 x 4. float32 variants the tuning compares: a warp-tiled
thread layout (each warp owns a compact 64 x 32 or 32 x 64 piece of C), a ring of three k tiles
in flight (dynamic shared memory), a 64 x 256 tile for skinny problems and a 256 x 128 tile of
16 x 8 (one block per multiprocessor). The grid's y dimension runs strided batches and z split-K
parts (partials in a per-stream workspace, added in order by a finish kernel: deterministic).

Which tile and how many split-K parts (:func:`choose_plan`): a heuristic fills the device (the
largest tile that still gives about a wave of blocks; split-K when even the small tile leaves
multiprocessors idle and k is long, e.g. 256 x 256 x 65536 or 64 x 8192 x 8192, with as many parts
as one wave of resident blocks holds: a grid just over a wave takes two); for problems of
``2mnk`` at least :data:`TUNE_MIN_FLOPS` the candidates (each tile, unsplit and split to fill a
wave at one and at two blocks per multiprocessor) are timed once per problem class and
architecture through :func:`rocarray._core.tuning.choose` and the winner is kept in the tuning DB.

float32 on NVIDIA compute capability 9.0 has one more candidate from 2^30 flops (the untuned
choice there too): three TF32 matrix-unit products per product on the warpgroup kernel
(:mod:`rocarray.rocblas._level3_tf32x3`, a plan whose tile has ``x3 = True``; about twice
cuBLAS's SGEMM at 8192^3 with float32 accuracy), unless ``ROCARRAY_GEMM_FLOAT32=simt``.

Optional fused epilogue: ``C := act(alpha op(A) op(B) + beta C + bias)`` with a bias per row of C
and ``act`` one of :data:`ACTIVATIONS` (real data).

Speed on an H200 (measured 2026-11-30, see ``docs/performance.md``): the first 64 x 64 kernel ran
8192^3 float32 at 23.6 TFLOP/s (cuBLAS 50.8) and float64 at 13.4 (cuBLAS 56.2 with the FP64
tensor cores). The SIMT float32 peak is about 67 TFLOP/s; the 8 x 8 micro-tile halves the shared
loads per FMA, which is what limited the 4 x 4 tile. float64 on SIMT peaks at about 34 TFLOP/s, so
0.8x cuBLAS needs the FP64 matrix path.
"""

import numpy

from rocarray._core import backend, compile as _compile, launch, prepared_launch, tuning
from rocarray.rocblas import _level1
from rocarray.rocblas._arguments import (STANDARD as _STANDARD, check_bounds, check_ld, check_matrix_buffer, check_supported,
                                         option, scalar_arg, scalars, size)
from rocarray.rocblas import _level3_mma, _level3_tf32x3

SOURCE = "rocblas/gemm.hip"

#: Threads per block (``RA_ROCBLAS3_BLOCK`` in the source).
BLOCK = 256
#: Resident blocks per multiprocessor assumed for the occupancy query.
BLOCKS_PER_MULTIPROCESSOR = 2048 // BLOCK
#: Largest 1-D grid, and the largest grid y (batch) and z (split-K) dimensions.
MAX_GRID = 2**31 - 1
MAX_GRID_YZ = 65535

# flag bits (``RA_ROCBLAS3_*`` in the source)
TRANS_A, CONJ_A, TRANS_B, CONJ_B, BIAS = 1, 2, 4, 8, 16
ACT_SHIFT = 8
#: Fused activations and their codes (``RA_ROCBLAS3_ACT_*``).
ACTIVATIONS = {"relu": 1, "gelu": 2, "silu": 3, "sigmoid": 4, "tanh": 5}

#: Kernel element type of each supported dtype.
CTYPES = {d: _level1.CTYPES[d] for d in _STANDARD}

_F32 = numpy.dtype("float32")
_F64 = numpy.dtype("float64")


class Tile(tuple):
    """A tile shape ``(BM, BN, BK, TM, TN, DIRECT, LM, LN, STAGES)`` of the SIMT kernel template.

    ``DIRECT = 1``: the operand tiles are copied straight into shared memory (``cp.async`` on
    NVIDIA sm_80+, real data only) instead of being staged in registers; named ``'BMxBNxBKd'``.
    The register-staged tiles keep their names ``'BMxBN'`` (tuning DB entries stay valid).
    ``LM, LN > 0``: the warp-tiled thread layout (groups of ``LM x LN`` threads own compact warp
    tiles of C), name suffix ``'wLMxLN'``; ``STAGES >= 3`` (direct only): a ring of that many k
    tiles in dynamic shared memory, suffix ``'rSTAGES'``. Defaults (0, 0, 2) are left out of the
    name expression, so the existing instantiations keep their names.
    """

    __slots__ = ()
    mma = False
    threads = BLOCK  # the launch's block

    def __new__(cls, bm, bn, bk, tm, tn, direct=0, lm=0, ln=0, stages=2):
        return super().__new__(cls, (bm, bn, bk, tm, tn, int(direct), int(lm), int(ln), int(stages)))

    @property
    def direct(self):
        return bool(self[5])

    @property
    def stages(self):
        return self[8]

    @property
    def name(self):
        if not self.direct:
            return f"{self[0]}x{self[1]}"
        warp = f"w{self[6]}x{self[7]}" if self[6] else ""
        ring = f"r{self[8]}" if self[8] > 2 else ""
        return f"{self[0]}x{self[1]}x{self[2]}d{warp}{ring}"

    def template_args(self):
        """The template arguments after the element type, trailing defaults left out."""
        args = list(self)
        defaults = (0, 0, 0, 2)  # DIRECT, LM, LN, STAGES
        while len(args) > 5 and args[-1] == defaults[len(args) - 6]:
            args.pop()
        return tuple(args)


class MmaTile(tuple):
    """A tile shape ``(BM, BN, BK, STAGES, K16, THREADS)`` of the float64 matrix-instruction kernel.

    ``STAGES = 0``: two k tiles in shared memory, the next one staged through registers; named
    ``'mmaBMxBNxBK'`` (tuning DB entries stay valid). ``STAGES >= 2`` (direct, NVIDIA sm_80+): a
    ring of ``STAGES`` k tiles filled by ``cp.async`` copies, ``STAGES - 1`` ahead; named
    ``'mmaBMxBNxBKdSTAGES'``. ``K16 = 1``: the sm_90 instruction of k 16 (m16n8k16, half the
    issue slots of m16n8k8; elsewhere the usual one), name suffix ``'k16'``. ``THREADS``: the
    block (:data:`BLOCK` by default; 128 gives each of four warps a quarter of a 64 x 64 tile),
    name suffix ``'tTHREADS'`` when not the default.
    """

    __slots__ = ()
    mma = True

    def __new__(cls, bm, bn, bk, stages=0, k16=0, threads=BLOCK):
        return super().__new__(cls, (bm, bn, bk, int(stages), int(k16), int(threads)))

    @property
    def threads(self):
        return self[5]

    def template_args(self, vec=False):
        """The kernel's template arguments ``BM, BN, BK, STAGES, K16, VEC, THREADS`` with ``VEC``
        from ``vec``, trailing defaults (0, 0, 0, :data:`BLOCK`) left out."""
        args = list(self[:5]) + [int(vec), self.threads]
        defaults = (0, 0, 0, BLOCK)  # STAGES, K16, VEC, THREADS
        while len(args) > 3 and args[-1] == defaults[len(args) - 4]:
            args.pop()
        return tuple(args)

    @property
    def direct(self):
        return self[3] >= 2

    @property
    def name(self):
        return (f"mma{self[0]}x{self[1]}x{self[2]}" + (f"d{self[3]}" if self.direct else "") + ("k16" if self[4] else "")
                + (f"t{self.threads}" if self.threads != BLOCK else ""))


#: SIMT tile shapes per dtype, the largest first (the heuristic's preference order). float32:
#: the direct-copy tiles first (no registers hold the next k tile: 128 x 128 fits two blocks per
#: multiprocessor without a spill; 128x128x16d, 42.0 TFLOP/s at 8192^3 on the H200, is the
#: default), the register-staged ones (AMD, older NVIDIA) and a 64 x 256 tile for skinny problems
#: (64x8192x8192 with 8 split parts: 31.5 against 24.6 for 64x64x16d). The template also takes
#: warp-tiled layouts (LM x LN threads per warp tile) and rings of k tiles (STAGES); on the H200
#: none beat 128x128x16d (8x4 / 4x8 warp tiles 41.2, a ring of three 42.5 with a 48-byte spill,
#: 256 x 128 of 16 x 8 39.0), so they are not offered.
TILES = {
    numpy.dtype("float32"): (Tile(128, 128, 16, 8, 8, 1), Tile(128, 128, 8, 8, 8),
                             Tile(64, 64, 16, 4, 4, 1), Tile(64, 64, 16, 4, 4), Tile(64, 256, 16, 8, 8, 1)),
    numpy.dtype("float64"): (Tile(64, 64, 16, 4, 4),),
    numpy.dtype("complex64"): (Tile(64, 64, 8, 4, 4),),
    numpy.dtype("complex128"): (Tile(64, 64, 8, 4, 4),),
}
#: float64 matrix-instruction tiles (NVIDIA sm_80+ DMMA, AMD gfx90a/gfx94x MFMA), largest first.
#: (On the H200 at 8192^3: 128x128x16 32.6 TFLOP/s, 128x128x8 31.4, 64x64x16 27.6; 64x64x16 is
#: the better one for mid sizes; 128x64x8 (20.0) and a SIMT 128x64 float64 tile (14.2) never won.)
#: The direct tiles (NVIDIA only, listed first) keep a ring of 3 k tiles copied with ``cp.async``
#: (at most 99 KB of shared memory, the opt-in limit of every sm_80+ part); ``k16`` uses sm_90's
#: m16n8k16 DMMA. H200, TFLOP/s: 8192^3 128x128x16d3 42.8 (the old 128x128x16 32.8), 4097^3 and
#: 256x256x65536 128x128x16d3k16 34.2 / 31.7, 64x8192x8192 64x64x16d3 26.3; 128x128x8d4 (40.8 at
#: 8192^3) and 64x64x16d3k16 never won. The 64 x 64 direct tile runs on 128 threads (four warps
#: of 32 x 32, a ring of 4): 64x8192x8192 in two parts 203 us against 240 for the same tile on
#: 256 threads (16 x 32 warp tiles; cuBLAS 231), equal at 1000^3. AMD keeps the register-staged
#: tiles after them. Each direct tile also has a 16-byte-layout instance (:func:`has_vec`), taken
#: per call for aligned operands: 64 x 64 1.05-1.6x faster than its 8-byte instance, 128 x 128
#: 1.0-1.1x (H200). 128 x 64 on 256 threads (eight 32 x 32 warp tiles, one block per
#: multiprocessor, cuBLAS's shape at 1000^3) runs 1000^3 in 48.4 us against 52.2 for the 64 x 64
#: tile (cuBLAS 41.4) since the kernel shifts edge tiles inside C (before: 57.3).
#: The big, the wide and the small of these direct tiles are the choices of :func:`direct_f64_tile`.
F64_BIG, F64_WIDE, F64_SMALL = MmaTile(128, 128, 16, 3), MmaTile(128, 64, 16, 3), MmaTile(64, 64, 16, 4, threads=128)
MMA_TILES = {numpy.dtype("float64"): (F64_BIG, MmaTile(128, 128, 16, 3, 1), F64_WIDE, F64_SMALL,
                                      MmaTile(128, 128, 16), MmaTile(128, 128, 8), MmaTile(64, 64, 16))}
#: Shared memory a block may use on AMD (64 KB of LDS); NVIDIA sm_80+ takes more with the opt-in.
HIP_SHARED_LIMIT = 64 * 1024


def mma_shared_bytes(tile):
    """Dynamic shared memory of the float64 matrix kernel: two k tiles of A and B (``STAGES`` for
    a direct tile ``(BM, BN, BK, STAGES)``), rows padded by 4."""
    bm, bn, bk = tile[:3]
    stages = tile[3] if len(tile) > 3 and tile[3] >= 2 else 2
    return stages * bk * (bm + 4 + bn + 4) * 8


def simt_shared_bytes(dtype, tile):
    """Dynamic shared memory of a SIMT tile: 0 (static) except for a ring of k tiles
    (``STAGES >= 3``): ``STAGES`` k tiles of A and B, rows padded by one 16-byte vector."""
    bm, bn, bk, tm, tn = tile[:5]
    if tile.stages <= 2:
        return 0
    itemsize = numpy.dtype(dtype).itemsize
    fit = max(1, 16 // itemsize)
    return tile.stages * bk * (bm + min(fit, tm) + bn + min(fit, tn)) * itemsize


def has_f64_mma(info):
    """``'cuda'`` or ``'hip'`` when a device (:class:`rocarray._core.backend.DeviceInfo`) has float64
    matrix instructions (NVIDIA sm_80+, AMD gfx90a/gfx94x), else ``False``. (``'cuda'`` also means
    asynchronous global-to-shared copies, which the direct SIMT tiles use.)"""
    if info.is_hip:
        return "hip" if info.arch.startswith(("gfx90a", "gfx94")) else False
    try:
        return "cuda" if int(str(info.compute_capability).replace(".", "")) >= 80 else False
    except ValueError:
        return False


def tiles_for(dtype, mma):
    """The tile shapes for ``dtype`` in preference order: the matrix-instruction tiles first when
    ``mma`` is ``'cuda'`` or ``'hip'`` (on AMD only those within its 64 KB of LDS), then SIMT.
    The direct-copy SIMT tiles only with ``'cuda'`` (NVIDIA sm_80+, which has ``cp.async``):
    elsewhere their copies would be synchronous loads."""
    dtype = numpy.dtype(dtype)
    fast = MMA_TILES.get(dtype, ()) if mma else ()
    if mma == "hip":  # no cp.async: the direct tiles are NVIDIA's
        fast = tuple(t for t in fast if mma_shared_bytes(t) <= HIP_SHARED_LIMIT and not t.direct)
    elif mma == "cuda":  # every NVIDIA matrix-unit part (sm_80+) has cp.async: the direct tiles won
        fast = tuple(t for t in fast if t.direct)
    simt = tuple(t for t in TILES[dtype] if mma == "cuda" or not t.direct)
    return fast + simt


#: Problems of at least this many flops (2 m n k) are tuned (timed once per class and arch):
#: from about 800^3 up, where a wrong tile or split costs more than the tuning once does.
TUNE_MIN_FLOPS = 2**30
#: Split-K only when one part still has at least this much k.
MIN_SPLIT_K = 256
#: Most split-K parts.
MAX_SPLITS = 64


def kernel_name(dtype, tile=None, vec=False):
    """Name expression of the gemm kernel, e.g. ``'ra_rocblas_gemm<float, 128, 128, 8, 8, 8>'``.

    ``vec``: the 16-byte layout of a direct float64 matrix tile (``VEC = 1``, for operands whose
    addresses and leading dimensions are 16-byte aligned; see :func:`vec_strides`)."""
    dtype = numpy.dtype(dtype)
    tile = TILES[dtype][0] if tile is None else tile
    if tile.mma:
        args = tile.template_args(vec)
        return f"ra_rocblas_gemm_f64mma<{', '.join(str(v) for v in args)}>"
    return f"ra_rocblas_gemm<{CTYPES[dtype]}, {', '.join(str(v) for v in tile.template_args())}>"


def finish_name(dtype):
    """Name expression of the split-K finish kernel for ``dtype``."""
    return f"ra_rocblas_gemm_splitk_finish<{CTYPES[numpy.dtype(dtype)]}>"


def has_vec(tile):
    """Whether a tile has a 16-byte-layout instance (the direct float64 matrix tiles)."""
    return tile.mma and tile.direct


def vec_strides(itemsize, lda, ldb, strides):
    """Whether the 16-byte copies of :func:`has_vec` tiles may read A and B at 16-byte aligned
    addresses: every leading dimension and batch stride of A and B is a multiple of 16 bytes
    (the addresses themselves are checked per call)."""
    return not (((lda | ldb | strides[0] | strides[1]) * itemsize) & 15)


def instantiations():
    """Every name expression this module launches (registered with the compile layer)."""
    names = [kernel_name(d, t) for d in _STANDARD for t in tiles_for(d, "cuda")]
    names += [kernel_name(d, t, vec=True) for d in _STANDARD for t in tiles_for(d, "cuda") if has_vec(t)]
    return sorted(names + [finish_name(d) for d in _STANDARD])


_compile.register(SOURCE, instantiations())


# --------------------------------------------------------------------------------------------
# argument checks (no device access)
# --------------------------------------------------------------------------------------------

_cupy = launch.cupy


def check_dtype(fn, dtype):
    """``TypeError`` unless ``dtype`` is one gemm takes: float16/bfloat16 (matrix units) or
    float32/float64/complex64/complex128."""
    dtype = numpy.dtype(dtype)
    if dtype in _level3_mma.MMA_DTYPES:
        return dtype
    return check_supported(fn, dtype, _STANDARD)


def flags(transA, transB, dtype):
    """Kernel flag bits for the transposes (conjugation only for complex data)."""
    complex_ = numpy.dtype(dtype).kind == "c"
    f = 0
    if transA != "N":
        f |= TRANS_A | (CONJ_A if transA == "C" and complex_ else 0)
    if transB != "N":
        f |= TRANS_B | (CONJ_B if transB == "C" and complex_ else 0)
    return f


def tiles_of(m, n, tile):
    """Blocks of C's tiles for one matrix (tiles of m fastest)."""
    blocks = -(-m // tile[0]) * -(-n // tile[1])
    if blocks > MAX_GRID:
        raise ValueError(f"rocblas.gemm: C of {m} x {n} needs {blocks} tiles, more than one launch takes")
    return blocks


def grid(m, n, tile=None):
    """Blocks of the 1-D tile grid of one m x n C (default: the float32 large tile)."""
    return tiles_of(m, n, TILES[numpy.dtype("float32")][0] if tile is None else tile)


class Plan(tuple):
    """``(tile, splits)``: a tile shape and the number of split-K parts."""

    __slots__ = ()

    def __new__(cls, tile, splits):
        return super().__new__(cls, (tile, splits))

    @property
    def name(self):
        return f"{self[0].name}.s{self[1]}"


def residency(dtype, tile):
    """Blocks of a tile's kernel resident per multiprocessor (an estimate from its registers on
    sm_90: float32 tiles are bound to two, except one for a 16 x 8 micro-tile; float64 SIMT and
    complex128 need more than 128 registers a thread, so one; the float64 matrix tiles follow the
    kernel's launch bounds, ``ra_rocblas3_f64mma_blocks``: more than 16 accumulators a thread
    take 256 threads per multiprocessor, else two blocks)."""
    dtype = numpy.dtype(dtype)
    if tile.mma:
        return max(1, 256 // tile.threads) if tile[0] * tile[1] // tile.threads > 16 else 2
    if tile[3] * tile[4] > 64:  # float 16 x 8: 128 accumulators, one block (ra_rocblas3_fat)
        return 1
    return 2 if dtype in (numpy.dtype("float32"), numpy.dtype("complex64")) else 1


def split_count(m, n, k, tile, multiprocessors, per_multiprocessor=2):
    """Split-K parts for a problem whose tiles leave the device partly idle (1 = no split): as
    many parts as fit in one wave of ``per_multiprocessor`` blocks on every multiprocessor (a
    grid just over a wave would take two), each at least :data:`MIN_SPLIT_K` deep."""
    blocks = tiles_of(m, n, tile)
    slots = per_multiprocessor * multiprocessors
    if 2 * blocks > slots or k < 2 * MIN_SPLIT_K:
        return 1
    return max(1, min(slots // blocks, k // MIN_SPLIT_K, MAX_SPLITS))


#: A last wave of tiles that would fill at most this share of the device's block slots is split
#: along k instead (:func:`tail_split`).
TAIL_MAX_SHARE = 0.25


def tail_split(blocks, slots, k):
    """``(first, parts)`` for a grid of ``blocks`` equal tiles on ``slots`` resident blocks: the
    first ``first`` tiles run as whole tiles and the rest, when they would make a last wave that
    leaves most of the device idle (at most :data:`TAIL_MAX_SHARE` of ``slots``, after at least one
    full wave), in ``parts`` split-K parts each (at most ``slots`` blocks in all, each part at least
    :data:`MIN_SPLIT_K` deep). ``(blocks, 1)``: no tail split. At 8192^3 with 128 x 128 tiles on
    132 multiprocessors, 4096 tiles are 31 waves and 4 tiles: the 4 tiles alone would take a
    32nd tile time (3 % of the run)."""
    waves, rest = divmod(blocks, slots)
    if waves == 0 or rest == 0 or rest > TAIL_MAX_SHARE * slots or k < 2 * MIN_SPLIT_K:
        return blocks, 1
    parts = min(slots // rest, k // MIN_SPLIT_K, MAX_SPLITS)
    return (waves * slots, parts) if parts > 1 else (blocks, 1)


def tile_rectangles(tiles_m, first, blocks):
    """Tiles ``first .. blocks - 1`` of a grid numbered with m fastest (``tiles_m`` tiles per
    column), as rectangles ``(tm0, tm1, tn0, tn1)`` of whole tiles: the end of one tile column
    and the whole columns after it (a grid of ``tiles_m x tiles_n`` ends with a whole column)."""
    rects = []
    b = first
    while b < blocks:
        tn, tm = divmod(b, tiles_m)
        if tm == 0 and blocks - b >= tiles_m:
            cols = (blocks - b) // tiles_m
            rects.append((0, tiles_m, tn, tn + cols))
            b += cols * tiles_m
        else:
            end = min(blocks, (tn + 1) * tiles_m)
            rects.append((tm, tm + end - b, tn, tn + 1))
            b = end
    return rects


#: A tile whose grid covers less than this share of the best-covering tile's useful fraction of
#: its elements (m n over the grid's elements) is not the untuned choice for a problem no tile
#: fills a wave of (128-row tiles on m = 64 compute as much padding as data).
MIN_COVERAGE = 0.9


def coverage(m, n, tile):
    """The share of a tile grid's elements inside the ``m x n`` result."""
    return m * n / (tiles_of(m, n, tile) * tile[0] * tile[1])


#: A one-block tile is the untuned choice only where its waves are this full (tiles over the
#: wave slots they take, :func:`waves_taken`) ...
ONE_BLOCK_MIN_FILL = 0.9
#: ... and each multiprocessor runs at least this many steps of k (k times the waves): the
#: tile's pipeline fill and epilogue, which no second block hides, are then a small part of the
#: run. (H200: about 18 us a wave for the 128 x 128 tile, 7 for the 128 x 64; the 128 x 64 tile
#: does the 64 x 64 tile's work about 5 % faster, so it needs the longer runs.)
ONE_BLOCK_MIN_DEPTH = {F64_BIG: 3000, F64_WIDE: 6000}


def waves_taken(blocks, slots, k, batch=1):
    """The waves a grid of ``blocks`` tiles takes on ``slots`` resident blocks: whole waves rounded
    up, or ``waves + 1/2`` where :func:`tail_split` splits the last one along k."""
    if batch == 1 and tail_split(blocks, slots, k)[1] > 1:
        return blocks // slots + 0.5
    return -(-blocks // slots)


def direct_f64_tile(tiles, m, n, k, multiprocessors, batch=1):
    """The untuned float64 tile among NVIDIA's direct matrix tiles (``None`` when ``tiles`` lacks
    them, or when even the 64 x 64 tiles leave multiprocessors idle: the coverage and split-K rule
    of :func:`heuristic` then decides).

    The 64 x 64 tile (two blocks per multiprocessor, each hiding the other's pipeline fill and
    epilogue) unless a one-block tile, the 128 x 128 first, then the 128 x 64, fills its waves
    (:data:`ONE_BLOCK_MIN_FILL`) over a long enough run (:data:`ONE_BLOCK_MIN_DEPTH`). Fitted to
    58 problems timed with every tile on the H200 (docs/performance.md, 2026-12-03): within 10 %
    of the fastest plan timed (whole tiles and splits) on each, 0.6 % on average, where the rule
    of the other dtypes (the largest tile whose grid fills a wave) lost up to 1.6x. The big and
    the wide tile run one block per multiprocessor (their wave slots by :func:`residency`), the
    64 x 64 tile (128 threads) two."""
    if F64_SMALL not in tiles:  # tiles_for offers the three direct tiles together (NVIDIA) or none
        return None
    if tiles_of(m, n, F64_SMALL) * batch < multiprocessors:
        return None
    for tile in (F64_BIG, F64_WIDE):
        blocks = tiles_of(m, n, tile) * batch
        slots = residency(_F64, tile) * multiprocessors
        waves = waves_taken(blocks, slots, k, batch)
        if blocks >= ONE_BLOCK_MIN_FILL * slots * waves and k * waves >= ONE_BLOCK_MIN_DEPTH[tile]:
            return tile
    return F64_SMALL


def heuristic(dtype, m, n, k, multiprocessors, batch=1, mma=False, x3=False):
    """The untuned choice: the float32 three-TF32-product path where ``x3`` says it may run
    (:func:`rocarray.rocblas._level3_tf32x3.usable`; its tile by
    :func:`rocarray.rocblas._level3_tf32x3.heuristic_tile`: skinny products split inside the
    kernel, H200 256 x 256 x 65536 126 us against 246 for the best SIMT plan), else the largest
    tile giving about a wave of blocks, then split-K.
    When no tile gives a wave, the largest tile that covers the result about as tightly as any
    (:data:`MIN_COVERAGE`) and whose split-K parts fill a wave (H200, 256 x 256 x 65536: 128 x
    128 tiles in 64 / 33 parts 246 / 218 us for float32 / float64, 64 x 64 in 16 parts 330 /
    272 us; 64 x 8192^2 float32: 64 x 256 in 8 parts 259 us, 64 x 64 in 2 parts 333), else the
    smallest. float64 on NVIDIA's direct matrix tiles, where the 64 x 64 tiles fill a wave, takes
    the measured rule of :func:`direct_f64_tile` instead."""
    if x3:
        return Plan(_level3_tf32x3.heuristic_tile(m, n, batch, multiprocessors), 1)
    tiles = tiles_for(dtype, mma)
    direct = direct_f64_tile(tiles, m, n, k, multiprocessors, batch)
    if direct is not None:
        return Plan(direct, 1)
    area = lambda t: t[0] * t[1]
    for tile in tiles:
        if tiles_of(m, n, tile) * batch >= multiprocessors:
            break
    else:
        tile = min(tiles, key=area)
        if batch == 1:
            best = max(coverage(m, n, t) for t in tiles)
            fill = [t for t in tiles if coverage(m, n, t) >= MIN_COVERAGE * best and
                    tiles_of(m, n, t) * split_count(m, n, k, t, multiprocessors, residency(dtype, t)) >= multiprocessors]
            if fill:
                tile = max(fill, key=area)  # the first of the largest: the preference order
    if batch > 1:
        return Plan(tile, 1)
    return Plan(tile, split_count(m, n, k, tile, multiprocessors, residency(dtype, tile)))


def candidates(dtype, m, n, k, multiprocessors, mma=False, x3=False):
    """Every plan worth timing for a single (unbatched) problem: the three-TF32-product tiles
    when ``x3`` (they split k themselves), then each SIMT or matrix tile without a split and with
    the splits that fill one wave at one and at two blocks per multiprocessor."""
    plans = [Plan(t, 1) for t in _level3_tf32x3.candidate_tiles(m, n)] if x3 else []
    for t in tiles_for(dtype, mma):
        splits = {1}
        for per in (1, 2):
            splits.add(split_count(m, n, k, t, multiprocessors, per))
        plans.extend(Plan(t, s) for s in sorted(splits))
    return plans


def size_class(v):
    """The half-octave class of a size (the tuning DB keys problems by class, not exact size):
    sizes in ``(2^b, 1.5 * 2^b]`` share one class, those in ``(1.5 * 2^b, 2^(b + 1)]`` the next.
    (Whole octaves put 4097^3 and 8192^3 in one class; float64 on the H200 wants the k16 tile for
    the first, 1 % ahead, and is 12 % slower with it on the second.)"""
    c = max(0, int(v) - 1)
    b = c.bit_length()
    return 2 * b + ((c >> (b - 2)) & 1 if b >= 2 else 0)


# --------------------------------------------------------------------------------------------
# launching
# --------------------------------------------------------------------------------------------

_kernel_table = launch.KernelTable(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)
#: A null device pointer argument.
_NULL = numpy.uint64(0)


def _kernel(name, device_id):
    """``(kernel, blocks in one full wave)`` for a registered name on a device (memoized)."""
    return _kernel_table.get(name, device_id)


def _device_facts(device_id):
    """``(multiprocessors, has float64 matrix instructions)`` of a device."""
    info = backend.device_info(device_id)
    return info.multiprocessors, has_f64_mma(info)


def _address(pointer):
    """The device address of a ``cupy.cuda.MemoryPointer`` (or of an address given as an int)."""
    return pointer.ptr if hasattr(pointer, "ptr") else int(pointer)


def _prepare_run(device_id, dtype, plan, m, n, k, lda, ldb, ldc, flag_bits, batch, strides):
    """The launches of one plan with everything but the call's values worked out: returns
    ``run(alpha, beta, A, B, C, bias)``, taking the kernel scalars ``alpha``/``beta`` and the
    device addresses (ints) of A, B, C and the bias (0: none), on the current device. ``batch``
    matrices go in the grid's y dimension, at most :data:`MAX_GRID_YZ` per launch."""
    tile, splits = plan
    if getattr(tile, "x3", False):
        return _level3_tf32x3.prepare_run(device_id, tile, m, n, k, lda, ldb, ldc, bool(flag_bits & TRANS_A),
                                          bool(flag_bits & TRANS_B), (flag_bits >> ACT_SHIFT) & 0xF, batch, strides)
    itemsize = numpy.dtype(dtype).itemsize
    kernel, _ = _kernel(kernel_name(dtype, tile), device_id)
    blocks = tiles_of(m, n, tile)
    tail_runs = ()  # the last wave's tiles split along k, launched first (tail_split)
    if splits == 1 and batch == 1:
        slots = residency(dtype, tile) * _device_facts(device_id)[0]
        whole, tail_parts = tail_split(blocks, slots, k)
        if tail_parts > 1:
            tail_runs = _prepare_tail(device_id, dtype, tile, tail_parts, m, n, k, lda, ldb, ldc, flag_bits,
                                      tile_rectangles(-(-m // tile[0]), whole, blocks))
            blocks = whole
    shared = mma_shared_bytes(tile) if tile.mma else simt_shared_bytes(dtype, tile)
    launch.allow_shared(kernel, shared)
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
    SCALAR, POINTER = prepared_launch.scalar(type(scalar_arg(0, dtype))), prepared_launch.POINTER
    block = (tile.threads,)
    # the float64 matrix-core tiles go as programmatic dependents (launch.dependent_launches), about
    # 1 us less a call back to back; the SIMT tiles and the finish do not: launched so, a split-k
    # 512^3 float32 product took 25.6 us a call against 21.0 (H200, docs/performance.md 2026-12-04)
    dependent = bool(tile.mma) and launch.dependent_launches(device_id)

    def chunks_of(kernel):
        return tuple((prepared_launch.PreparedLaunch(
            kernel, (blocks, min(MAX_GRID_YZ, batch - first), parts), block,
            sizes + (SCALAR, POINTER, lda_, POINTER, ldb_, SCALAR, POINTER, ldc_, flags_) + tail
            + (POINTER if parts > 1 else _NULL, POINTER), shared_mem=shared, dependent=dependent),
            first * stride_a * itemsize, first * stride_b * itemsize, first * stride_c * itemsize)
            for first in range(0, batch, MAX_GRID_YZ))
    plain = chunks_of(kernel)
    if has_vec(tile) and vec_strides(itemsize, lda, ldb, strides):
        # the 16-byte layout, taken by the calls whose A and B are 16-byte aligned
        vec_kernel, _ = _kernel(kernel_name(dtype, tile, vec=True), device_id)
        launch.allow_shared(vec_kernel, shared)
        vec = chunks_of(vec_kernel)

        def chunks_for(A, B):
            return plain if (A | B) & 15 else vec
    else:
        def chunks_for(A, B):
            return plain
    if parts > 1:  # the parts' partials, added in order, then beta, bias and the activation
        finish_kernel, wave = _kernel(finish_name(dtype), device_id)
        finish = prepared_launch.PreparedLaunch(
            finish_kernel, (min(wave, -(-m * n // BLOCK)),), (BLOCK,),
            (i64(m), i64(n), numpy.int32(parts), POINTER, SCALAR, POINTER, ldc_, flags_, POINTER))

        def run(alpha, beta, A, B, C, bias):
            for run_tail, off_a, off_b, off_c, off_bias in tail_runs:
                run_tail(alpha, beta, A + off_a, B + off_b, C + off_c, bias + off_bias if bias else 0)
            ws = launch.partials_buffer(device_id, ws_bytes).data.ptr
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


def _prepare_tail(device_id, dtype, tile, parts, m, n, k, lda, ldb, ldc, flag_bits, rects):
    """The split-K launches of the tail tiles (:func:`tail_split`): one sub-problem per rectangle
    of tiles, as ``(run, A, B, C and bias byte offsets)``."""
    itemsize = numpy.dtype(dtype).itemsize
    out = []
    for tm0, tm1, tn0, tn1 in rects:
        i0, j0 = tm0 * tile[0], tn0 * tile[1]
        sub_m, sub_n = min(m, tm1 * tile[0]) - i0, min(n, tn1 * tile[1]) - j0
        run = _prepare_run(device_id, dtype, Plan(tile, parts), sub_m, sub_n, k, lda, ldb, ldc, flag_bits, 1,
                           (0, 0, 0))
        off_a = i0 * (lda if flag_bits & TRANS_A else 1) * itemsize
        off_b = j0 * (1 if flag_bits & TRANS_B else ldb) * itemsize
        out.append((run, off_a, off_b, (i0 + j0 * ldc) * itemsize, i0 * itemsize))
    return tuple(out)


def _run(device_id, dtype, plan, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, flag_bits,
         batch, strides, bias):
    """Launch one plan (no checks); ``A``, ``B``, ``C``, ``bias`` are device pointers
    (``x.data``) or addresses, ``bias`` may be None."""
    run = _prepare_run(device_id, dtype, plan, m, n, k, lda, ldb, ldc, flag_bits, batch, strides)
    run(alpha, beta, _address(A), _address(B), _address(C), 0 if bias is None else _address(bias))


#: Launches of one plan per timed sample when tuning: small problems are timed over several back
#: to back, as repeated calls run (their launches' host time then overlaps the device work).
TIME_CALLS_SMALL = 4
#: Problems of at least this many flops are timed one call per sample.
TIME_ONE_CALL_FLOPS = 2**34
#: Device seconds of untimed calls before a plan's samples. Each candidate is compiled just before
#: it is timed, and the GPU lowers its clocks while the host compiles: a plan timed at once ran at
#: the idle clocks (on the H200 a 1000^3 float32 plan once timed at 73.7 us against its 45, and the
#: tuner chose a slower plan). Running the plan first lets the clocks come back up.
TIME_WARM_SECONDS = 0.02
#: Most untimed warm-up calls of one plan.
TIME_WARM_CALLS_MAX = 2000


def _time_plan(device_id, dtype, plan, m, n, k, alpha, A, lda, B, ldb, flag_bits):
    """Seconds per call of one plan's prepared launches (as a repeated gemm call runs them) on the
    caller's A and B and a scratch C: the median of three samples, after :data:`TIME_WARM_SECONDS`
    of untimed calls. Each sample starts behind one untimed call, so its start event fires behind
    queued work rather than on an idle device."""
    cupy = _cupy()
    scratch = cupy.empty(m * n, dtype=dtype)
    run = _prepare_run(device_id, dtype, plan, m, n, k, lda, ldb, m, flag_bits, 1, (0, 0, 0))
    args = (alpha, scalar_arg(0, dtype), _address(A), _address(B), scratch.data.ptr, 0)
    calls = 1 if 2 * m * n * k >= TIME_ONE_CALL_FLOPS else TIME_CALLS_SMALL
    once = launch.per_call_seconds(cupy, run, args, 1)   # the first call also compiles
    for _ in range(min(TIME_WARM_CALLS_MAX, int(TIME_WARM_SECONDS / max(once, 1e-7)))):
        run(*args)
    return sorted(launch.per_call_seconds(cupy, run, args, calls) for _ in range(3))[1]


_plans = {}  # (device, dtype, m, n, k, transposes, batch, tuning.state_token()) -> plan
_PLANS_KEPT = 4096


def choose_plan(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, flag_bits, batch=1):
    """The plan for one launch: the heuristic, or for large problems the tuning DB's choice.

    Decisions are remembered per problem for the process (a repeated call costs one dictionary
    lookup of host time instead of building the candidates and reading the DB's key)."""
    memo = (device_id, numpy.dtype(dtype), m, n, k, flag_bits & (TRANS_A | TRANS_B), batch, tuning.state_token())
    return _remembered(_plans, _PLANS_KEPT, memo,
                       lambda: _choose_plan(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, flag_bits, batch))


def _remembered(table, kept, key, make):
    """``table[key]``, made by ``make()`` on a miss; a table past ``kept`` entries starts over."""
    value = table.get(key)
    if value is None:
        value = make()
        if len(table) >= kept:
            table.clear()
        table[key] = value
    return value


def _choose_plan(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, flag_bits, batch):
    sms, mma = _device_facts(device_id)
    x3 = numpy.dtype(dtype) == _F32 and _level3_tf32x3.usable(device_id, m, n, k, batch)
    default = heuristic(dtype, m, n, k, sms, batch, mma, x3)
    if batch > 1 or k == 0 or 2 * m * n * k < TUNE_MIN_FLOPS:
        return default
    plans = candidates(dtype, m, n, k, sms, mma, x3)
    if len(plans) == 1:
        return plans[0]
    key = (numpy.dtype(dtype), flag_bits & (TRANS_A | TRANS_B), size_class(m), size_class(n), size_class(k), mma)
    if x3:  # a key of its own: entries tuned without the path keep their meaning
        key += ("x3",)
    return tuning.choose("rocblas.gemm", key, plans,
                         lambda p: _time_plan(device_id, dtype, p, m, n, k, alpha, A, lda, B, ldb, flag_bits),
                         default.name)


def _launch(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, flag_bits,
            batch=1, stride_a=0, stride_b=0, stride_c=0, bias=None):
    """gemm launches on checked operands (no checks); ``k == 0``: ``C := beta C`` (+ epilogue).

    ``A``, ``B``, ``C`` (and ``bias``) are device pointers (``x.data``); ``batch`` matrices, each
    ``stride_*`` elements after the previous one, run in the grid's y dimension. Returns the
    prepared launches (:func:`_prepare_run`'s ``run``) for a repeated call of the same shape.
    """
    run = _prepare_launch(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, ldc, flag_bits, batch,
                          (stride_a, stride_b, stride_c))
    with launch.on_device(device_id):
        run(alpha, beta, _address(A), _address(B), _address(C), 0 if bias is None else _address(bias))
    return run


#: ``(device, dtype, plan, sizes, leading dimensions, flags, batch, strides)`` -> the prepared
#: launches of :func:`_prepare_run`: callers that launch through :func:`_launch` (trsm, trmm, the
#: symmetric routines: hundreds of sub-matrix products per call) prepare each shape once.
_runs = {}
_RUNS_KEPT = 1024


def _prepare_launch(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, ldc, flag_bits, batch=1, strides=(0, 0, 0)):
    """The plan (:func:`choose_plan`, which may time candidates on A and B) and its launches
    (:func:`_prepare_run`, remembered per shape) for a problem, on the current device. The plan is
    chosen without the epilogue's bits: candidates are timed without a bias."""
    with launch.on_device(device_id):
        plan = choose_plan(device_id, dtype, m, n, k, alpha, A, lda, B, ldb,
                           flag_bits & (TRANS_A | CONJ_A | TRANS_B | CONJ_B), batch)
        key = (device_id, numpy.dtype(dtype), plan, m, n, k, lda, ldb, ldc, flag_bits, batch, tuple(strides))
        return _remembered(_runs, _RUNS_KEPT, key, lambda: _prepare_run(device_id, dtype, plan, m, n, k, lda, ldb,
                                                                         ldc, flag_bits, batch, strides))


# --------------------------------------------------------------------------------------------
# warm calls
# --------------------------------------------------------------------------------------------

#: A gemm call's signature (:func:`_warm_key`) -> its prepared launches ``run(alpha, beta, A, B,
#: C, bias)``: a repeated call skips the checks and the launch choice, whose outcome the
#: signature determines.
_warm = {}
_WARM_KEPT = 1024
#: Host scalar types whose checks depend on the type alone.
_WARM_SCALARS = frozenset((int, float, complex, numpy.float16, numpy.float32, numpy.float64, numpy.complex64,
                           numpy.complex128))


def _operand_key(X):
    mem = X.data
    return (X.dtype, X.shape, X.strides, mem.device_id, mem.ptr % 16)


def _warm_key(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, bias, activation):
    """What the checks and the launch choice of a gemm call depend on besides its data
    addresses and scalar values (types, shapes, strides, devices, 16-byte alignment, whether
    ``alpha == 0`` and ``beta == 1``, the tuning state), or None for a call the warm path does
    not take (subclassed arrays, other scalar or size types, unhashable options)."""
    ndarray = _cupy().ndarray
    if type(A) is not ndarray or type(B) is not ndarray or type(C) is not ndarray or (
            bias is not None and type(bias) is not ndarray):
        return None
    if type(alpha) not in _WARM_SCALARS or type(beta) not in _WARM_SCALARS:
        return None
    if not (type(m) is int and type(n) is int and type(k) is int and type(lda) is int and type(ldb) is int
            and type(ldc) is int):
        return None
    key = (transA, transB, m, n, k, lda, ldb, ldc, type(alpha), type(beta), alpha == 0, beta == 1, _operand_key(A),
           _operand_key(B), _operand_key(C), None if bias is None else _operand_key(bias), activation,
           tuning.state_token())
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _remember(key, run):
    if len(_warm) >= _WARM_KEPT:
        _warm.clear()
    _warm[key] = run


# --------------------------------------------------------------------------------------------
# gemm
# --------------------------------------------------------------------------------------------

def gemm(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, *, bias=None, activation=None):
    """``C := act(alpha * op(A) op(B) + beta * C + bias)`` (rocblas_?gemm), op(X) = X, X^T or X^H.

    Parameters
    ----------
    transA, transB : {'N', 'T', 'C'}
        op(A) and op(B): the matrix, its transpose, or its conjugate transpose (the transpose for
        real data). Case-insensitive.
    m, n, k : int
        op(A) is m x k, op(B) is k x n, C is m x n (all >= 0). ``m == 0`` or ``n == 0`` does
        nothing; ``k == 0`` scales C by beta.
    alpha, beta : scalar
        Host scalars; complex only for complex data. ``alpha == 0`` does not read A or B;
        ``beta == 0`` does not read C.
    A : cupy.ndarray
        Column-major matrix (element (i, j) at ``A[i + j * lda]``; 1-D contiguous buffer or 2-D
        Fortran-ordered array), float16, bfloat16 (with ml_dtypes), float32, float64, complex64
        or complex128: m x k for ``transA='N'``, k x m otherwise. float16 and bfloat16 run on the
        matrix units with float32 accumulation (:mod:`rocarray.rocblas._level3_mma`; alpha,
        beta, the bias and the activation are applied in float32 before the one rounding).
    lda : int
        Leading dimension of A, ``>= max(1, m)`` for 'N', ``>= max(1, k)`` for 'T'/'C'.
    B : cupy.ndarray
        Column-major matrix of A's dtype: k x n for ``transB='N'``, n x k otherwise.
    ldb : int
        Leading dimension of B, ``>= max(1, k)`` for 'N', ``>= max(1, n)`` for 'T'/'C'.
    C : cupy.ndarray
        Column-major m x n matrix of A's dtype, updated in place; must not overlap A or B.
    ldc : int
        Leading dimension of C, ``>= max(1, m)``.
    bias : cupy.ndarray, optional
        Contiguous 1-D vector of ``m`` elements of A's dtype added to every column of C (one value
        per row of C: per output feature when C holds a layer's outputs column by column), fused
        into the kernel's epilogue.
    activation : {None, 'relu', 'gelu', 'silu', 'sigmoid', 'tanh'}, optional
        Applied last, element-wise, fused into the epilogue (real dtypes only). ``'gelu'`` is the
        exact form ``x / 2 * (1 + erf(x / sqrt(2)))``.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or mismatched dtypes, complex scalars with real data,
        non-integer sizes.
    ValueError
        Invalid ``transA``/``transB``, negative sizes, a leading dimension too small, buffers too
        short or misaligned, an unknown activation, an activation with complex data, or a bias
        that is not a contiguous vector of m elements.

    Notes
    -----
    The portable tiled SIMT kernel (128 x 128 or 64 x 64 tiles of C, split-K for long k and few
    tiles); see :mod:`rocarray.rocblas._level3` for its design, the tile choice and its speed.

    Examples
    --------
    >>> A = cupy.asfortranarray(cupy.arange(6.0).reshape(2, 3))   # [[0, 1, 2], [3, 4, 5]]
    >>> B = cupy.asfortranarray(cupy.ones((3, 2)))
    >>> C = cupy.zeros((2, 2), order='F')
    >>> ra.rocblas.gemm('N', 'N', 2, 2, 3, 1.0, A, 2, B, 3, 0.0, C, 2)   # doctest: +SKIP
    >>> C                                                                 # doctest: +SKIP
    array([[ 3.,  3.],
           [12., 12.]])
    """
    key = _warm_key(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, bias, activation)
    if key is not None:
        run = _warm.get(key)
        if run is not None:
            run(alpha, beta, A, B, C, bias)
            return None
    fn = "gemm"
    transA = option(transA, "transA", fn)
    transB = option(transB, "transB", fn)
    m, n, k = size(m, "m", fn), size(n, "n", fn), size(k, "k", fn)
    for name, X in (("A", A), ("B", B), ("C", C)):
        check_matrix_buffer(X, fn, name)
    dtype = check_dtype(fn, A.dtype)
    device = A.data.device_id
    for name, X in (("B", B), ("C", C)):
        if X.dtype != dtype:
            raise TypeError(f"rocblas.{fn}: {name} must have the dtype of A ({dtype.name}), got {X.dtype.name}")
        if X.data.device_id != device:
            raise ValueError(f"rocblas.{fn}: {name} is on device {X.data.device_id} but A is on device {device}")
    a_rows, a_cols = (m, k) if transA == "N" else (k, m)
    b_rows, b_cols = (k, n) if transB == "N" else (n, k)
    lda = check_ld(lda, a_rows, "lda", fn)
    ldb = check_ld(ldb, b_rows, "ldb", fn)
    ldc = check_ld(ldc, m, "ldc", fn)
    scalars(fn, dtype, alpha=alpha, beta=beta)
    epilogue = epilogue_flags(fn, dtype, m, device, bias, activation)
    if m == 0 or n == 0:
        return None
    if k > 0:
        check_bounds(A, a_rows, a_cols, lda, "A", fn)
        check_bounds(B, b_rows, b_cols, ldb, "B", fn)
    check_bounds(C, m, n, ldc, "C", fn)
    scale_only = alpha == 0 or k == 0
    if scale_only and beta == 1 and not epilogue:
        return None
    k = 0 if scale_only else k
    run = _launch_gemm(device, dtype, transA, transB, m, n, k, alpha, A.data, lda, B.data, ldb, beta, C.data, ldc,
                       epilogue, None if bias is None else bias.data)
    if key is not None and run is not None:
        _remember(key, lambda alpha, beta, A, B, C, bias: run(
            alpha, beta, A.data.ptr, B.data.ptr, C.data.ptr, 0 if bias is None else bias.data.ptr))
    return None


def _launch_gemm(device, dtype, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, epilogue, bias):
    """The launches of a checked :func:`gemm` on memory pointers (``bias`` one or None): the
    matrix-core path for its dtypes, the SIMT kernels otherwise. Returns ``run(alpha, beta, a, b,
    c, bias)`` that repeats them on addresses (``bias`` 0 for none) on the right device, or None
    when they cannot be repeated that way (the call is then not remembered)."""
    if dtype in _level3_mma.MMA_DTYPES:
        launches = _level3_mma.gemm_mma(device, dtype, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C,
                                        ldc, bias=bias, activation=(epilogue >> ACT_SHIFT) & 0xF)
        return launches if callable(launches) else None  # gemm_mma switches devices itself
    launches = _launch(device, dtype, m, n, k, scalar_arg(alpha, dtype), A, lda, B, ldb, scalar_arg(beta, dtype),
                       C, ldc, flags(transA, transB, dtype) | epilogue, bias=bias)
    if not callable(launches):
        return None
    scalar = type(scalar_arg(0, dtype))

    def run(alpha, beta, a, b, c, bias):
        with launch.on_device(device):
            launches(scalar(alpha), scalar(beta), a, b, c, bias)
    return run


def launch_checked(dtype, transA, transB, m, n, k, A, lda, B, ldb, C, ldc):
    """``C := op(A) op(B)`` (alpha 1, beta 0) on operands valid by construction: the launches of
    :func:`gemm` after its checks, for callers that build every argument themselves
    (:mod:`rocarray._numpy.gemm_route`). No checks.

    ``dtype`` is one :func:`gemm` takes; ``transA``/``transB`` are ``'N'`` or ``'T'``; ``m``, ``n``,
    ``k`` > 0; ``A``, ``B``, ``C`` are memory pointers on one device to column-major matrices with
    valid leading dimensions, C not overlapping A or B. The prepared launches of a repeated
    signature (sizes, leading dimensions, the pointers' 16-byte alignment, the tuning state) are
    remembered as :func:`gemm`'s warm path remembers them, so a repeated call costs one dictionary
    lookup and the launches.
    """
    device = A.device_id
    key = ("launch_checked", dtype, transA, transB, m, n, k, lda, ldb, ldc, device, A.ptr % 16, B.ptr % 16,
           C.ptr % 16, tuning.state_token())
    run = _warm.get(key)
    if run is not None:
        run(A.ptr, B.ptr, C.ptr)
        return
    run = _launch_gemm(device, dtype, transA, transB, m, n, k, 1.0, A, lda, B, ldb, 0.0, C, ldc, 0, None)
    if run is not None:
        _remember(key, lambda a, b, c: run(1.0, 0.0, a, b, c, 0))


def epilogue_flags(fn, dtype, m, device, bias, activation):
    """Flag bits of a fused epilogue after checking ``bias`` and ``activation`` (0: none)."""
    bits = 0
    if activation is not None:
        if not isinstance(activation, str) or activation.lower() not in ACTIVATIONS:
            raise ValueError(f"rocblas.{fn}: activation must be None or one of {sorted(ACTIVATIONS)}, "
                             f"got {activation!r}")
        if numpy.dtype(dtype).kind == "c":
            raise ValueError(f"rocblas.{fn}: activation {activation!r} needs real data, got {numpy.dtype(dtype).name}")
        bits |= ACTIVATIONS[activation.lower()] << ACT_SHIFT
    if bias is not None:
        check_matrix_buffer(bias, fn, "bias")
        if bias.dtype != dtype:
            raise TypeError(f"rocblas.{fn}: bias must have the dtype of A ({numpy.dtype(dtype).name}), "
                            f"got {bias.dtype.name}")
        if bias.ndim != 1 or bias.size != m:
            raise ValueError(f"rocblas.{fn}: bias must be a 1-D vector of m={m} elements, got shape {bias.shape}")
        if bias.data.device_id != device:
            raise ValueError(f"rocblas.{fn}: bias is on device {bias.data.device_id} but A is on device {device}")
        bits |= BIAS
    return bits
