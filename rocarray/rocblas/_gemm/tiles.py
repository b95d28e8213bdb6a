"""The gemm tile catalog and its geometry (pure Python, no device access).

A *tile* is one instantiation shape of a gemm kernel: :class:`Tile` for the SIMT kernel and
:class:`MmaTile` for the float64 matrix-instruction kernel (both in ``gemm.hip``), and
:class:`rocarray.rocblas._gemm.tf32x3.Tf32x3Tile` for the float32 three-TF32 path. A
:class:`TileChoice` is a tile and a number of split-K parts: what the heuristic or the tuning DB
picks for a problem (:mod:`rocarray.rocblas._gemm.plan`). Tiles and choices are named by
:attr:`name`; the tuning DB stores those names (``'128x128x16d.s1'``), so they never change.

The grid of one C matrix has one block per tile (m fastest); split-K runs its parts in the grid's
z dimension, and the last, nearly empty wave of a big grid may be split along k instead
(:func:`tail_split`).
"""

import numpy

from rocarray._core import backend

#: Threads per block of the SIMT tiles (``RA_ROCBLAS3_BLOCK`` in ``gemm.hip``).
BLOCK = 256
#: Largest 1-D grid.
MAX_GRID = 2**31 - 1
#: Split-K only when one part still has at least this much k.
MIN_SPLIT_K = 256
#: Most split-K parts.
MAX_SPLITS = 64

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
        return (f"mma{self[0]}x{self[1]}x{self[2]}" + (f"d{self[3]}" if self.direct else "")
                + ("k16" if self[4] else "") + (f"t{self.threads}" if self.threads != BLOCK else ""))


#: SIMT tile shapes per dtype, the largest first (the heuristic's preference order). float32:
#: the direct-copy tiles first (no registers hold the next k tile: 128 x 128 fits two blocks per
#: multiprocessor without a spill; 128x128x16d is the default), the register-staged ones (AMD,
#: older NVIDIA) and a 64 x 256 tile for skinny problems. The template also takes warp-tiled
#: layouts (LM x LN threads per warp tile) and rings of k tiles (STAGES); none was faster than
#: 128x128x16d (docs/performance/rocblas.md), so they are not offered.
TILES = {
    numpy.dtype("float32"): (Tile(128, 128, 16, 8, 8, 1), Tile(128, 128, 8, 8, 8),
                             Tile(64, 64, 16, 4, 4, 1), Tile(64, 64, 16, 4, 4), Tile(64, 256, 16, 8, 8, 1)),
    numpy.dtype("float64"): (Tile(64, 64, 16, 4, 4),),
    numpy.dtype("complex64"): (Tile(64, 64, 8, 4, 4),),
    numpy.dtype("complex128"): (Tile(64, 64, 8, 4, 4),),
}
#: float64 matrix-instruction tiles (NVIDIA sm_80+ DMMA, AMD gfx90a/gfx94x MFMA), largest first.
#: The direct tiles (NVIDIA only, listed first) keep a ring of k tiles copied with ``cp.async``
#: (at most 99 KB of shared memory, the opt-in limit of every sm_80+ part); ``k16`` uses sm_90's
#: m16n8k16 DMMA. The 64 x 64 direct tile runs on 128 threads (four warps of 32 x 32, a ring of
#: 4), the 128 x 64 one on 256 threads (eight 32 x 32 warp tiles, one block per multiprocessor).
#: AMD keeps the register-staged tiles after them. Each direct tile also has a 16-byte-layout
#: instance (:func:`has_vec`), taken per call for aligned operands. The big, the wide and the small
#: of these direct tiles are the choices of :func:`rocarray.rocblas._gemm.plan.direct_f64_tile`.
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


def device_facts(device_id):
    """``(multiprocessors, has float64 matrix instructions)`` of a device (:func:`has_f64_mma`)."""
    info = backend.device_info(device_id)
    return info.multiprocessors, has_f64_mma(info)


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


def has_vec(tile):
    """Whether a tile has a 16-byte-layout instance (the direct float64 matrix tiles)."""
    return tile.mma and tile.direct


def vec_strides(itemsize, lda, ldb, strides):
    """Whether the 16-byte copies of :func:`has_vec` tiles may read A and B at 16-byte aligned
    addresses: every leading dimension and batch stride of A and B is a multiple of 16 bytes
    (the addresses themselves are checked per call)."""
    return not (((lda | ldb | strides[0] | strides[1]) * itemsize) & 15)


def tiles_of(m, n, tile):
    """Blocks of C's tiles for one matrix (tiles of m fastest)."""
    blocks = -(-m // tile[0]) * -(-n // tile[1])
    if blocks > MAX_GRID:
        raise ValueError(f"rocblas.gemm: C of {m} x {n} needs {blocks} tiles, more than one launch takes")
    return blocks


def grid(m, n, tile=None):
    """Blocks of the 1-D tile grid of one m x n C (default: the float32 large tile)."""
    return tiles_of(m, n, TILES[numpy.dtype("float32")][0] if tile is None else tile)


class TileChoice(tuple):
    """``(tile, splits)``: a tile shape and the number of split-K parts, named
    ``'<tile name>.s<splits>'`` (the tuning DB's candidate names)."""

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
