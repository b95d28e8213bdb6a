"""The tile choice of a gemm problem (heuristic, candidates, the tuner's timing) and its plan.

Which tile and how many split-K parts (:func:`choose`): the heuristic (:func:`heuristic`) fills the
device: the largest tile that still gives about a wave of blocks, split-K when even the small tile
leaves multiprocessors idle and k is long (as many parts as one wave of resident blocks holds),
float64 on NVIDIA's direct matrix tiles by :func:`direct_f64_tile`, and float32 on NVIDIA
compute capability 9.0 by the three-TF32-product path (:mod:`rocarray.rocblas._gemm.tf32x3`)
unless ``ROCARRAY_GEMM_FLOAT32=simt``. Problems of ``2 m n k`` at least :data:`TUNE_MIN_FLOPS`
time the candidates (:func:`candidates`: each tile, unsplit and split to fill a wave at one and
at two blocks per multiprocessor) once per problem class and architecture through
:func:`rocarray._core.tuning.choose`; the winner is kept in the tuning DB.

The plan of a problem (:func:`prepare_launch`) is its tile choice worked out down to prepared
launches (:func:`prepare`), kept in the one plan cache (:data:`rocarray._core.plans.cache`) under
``('rocblas.gemm.launches', ...)``: the level-3 routines (trsm, trmm, the symmetric ones: hundreds
of sub-matrix products a call) and the batched gemm launch through :func:`launch` and prepare
each shape once.
"""

import numpy

from rocarray._core import backend, launch as _launch, plans, timing, tuning
from rocarray.rocblas._arguments import scalar_arg
from rocarray.rocblas._gemm import simt, tf32x3, tiles
from rocarray.rocblas._gemm.simt import ACT_SHIFT, CONJ_A, CONJ_B, TRANS_A, TRANS_B
from rocarray.rocblas._gemm.tiles import F64_BIG, F64_SMALL, F64_WIDE, TileChoice

_F32 = numpy.dtype("float32")
_F64 = numpy.dtype("float64")

#: Problems of at least this many flops (2 m n k) are tuned (timed once per class and arch):
#: from about 800^3 up, where a wrong tile or split costs more than the tuning once does.
TUNE_MIN_FLOPS = 2**30


# --------------------------------------------------------------------------------------------
# the heuristic
# --------------------------------------------------------------------------------------------

#: A tile whose grid covers less than this share of the best-covering tile's useful fraction of
#: its elements (m n over the grid's elements) is not the untuned choice for a problem no tile
#: fills a wave of (128-row tiles on m = 64 compute as much padding as data).
MIN_COVERAGE = 0.9


def coverage(m, n, tile):
    """The share of a tile grid's elements inside the ``m x n`` result."""
    return m * n / (tiles.tiles_of(m, n, tile) * tile[0] * tile[1])


#: A one-block tile is the untuned choice only where its waves are this full (tiles over the
#: wave slots they take, :func:`waves_taken`) ...
ONE_BLOCK_MIN_FILL = 0.9
#: ... and each multiprocessor runs at least this many steps of k (k times the waves): the
#: tile's pipeline fill and epilogue, which no second block hides, are then a small part of the
#: run. The 128 x 64 tile gains less over the 64 x 64 one than the 128 x 128 tile, so it needs
#: the longer runs.
ONE_BLOCK_MIN_DEPTH = {F64_BIG: 3000, F64_WIDE: 6000}


def waves_taken(blocks, slots, k, batch=1):
    """The waves a grid of ``blocks`` tiles takes on ``slots`` resident blocks: whole waves rounded
    up, or ``waves + 1/2`` where :func:`tail_split` splits the last one along k."""
    if batch == 1 and tiles.tail_split(blocks, slots, k)[1] > 1:
        return blocks // slots + 0.5
    return -(-blocks // slots)


def direct_f64_tile(offered, m, n, k, multiprocessors, batch=1):
    """The untuned float64 tile among NVIDIA's direct matrix tiles (``None`` when ``offered`` lacks
    them, or when even the 64 x 64 tiles leave multiprocessors idle: the coverage and split-K rule
    of :func:`heuristic` then decides).

    The 64 x 64 tile (two blocks per multiprocessor, each hiding the other's pipeline fill and
    epilogue) unless a one-block tile, the 128 x 128 first, then the 128 x 64, fills its waves
    (:data:`ONE_BLOCK_MIN_FILL`) over a long enough run (:data:`ONE_BLOCK_MIN_DEPTH`): a rule
    fitted to problems timed with every tile (docs/performance/rocblas.md). The big and the wide
    tile run one block per multiprocessor (their wave slots by
    :func:`~rocarray.rocblas._gemm.tiles.residency`), the 64 x 64 tile (128 threads) two."""
    if F64_SMALL not in offered:  # tiles_for offers the three direct tiles together (NVIDIA) or none
        return None
    if tiles.tiles_of(m, n, F64_SMALL) * batch < multiprocessors:
        return None
    for tile in (F64_BIG, F64_WIDE):
        blocks = tiles.tiles_of(m, n, tile) * batch
        slots = tiles.residency(_F64, tile) * multiprocessors
        waves = waves_taken(blocks, slots, k, batch)
        if blocks >= ONE_BLOCK_MIN_FILL * slots * waves and k * waves >= ONE_BLOCK_MIN_DEPTH[tile]:
            return tile
    return F64_SMALL


def heuristic(dtype, m, n, k, multiprocessors, batch=1, mma=False, x3=False):
    """The untuned :class:`~rocarray.rocblas._gemm.tiles.TileChoice`: the float32
    three-TF32-product path where ``x3`` says it may run
    (:func:`rocarray.rocblas._gemm.tf32x3.usable`; its tile by
    :func:`rocarray.rocblas._gemm.tf32x3.heuristic_tile`), else the largest tile giving about a
    wave of blocks, then split-K.

    When no tile gives a wave: the largest tile that covers the result about as tightly as any
    (:data:`MIN_COVERAGE`) and whose split-K parts fill a wave, else the smallest. float64 on
    NVIDIA's direct matrix tiles, where the 64 x 64 tiles fill a wave, takes the rule of
    :func:`direct_f64_tile` instead."""
    if x3:
        return TileChoice(tf32x3.heuristic_tile(m, n, batch, multiprocessors), 1)
    offered = tiles.tiles_for(dtype, mma)
    direct = direct_f64_tile(offered, m, n, k, multiprocessors, batch)
    if direct is not None:
        return TileChoice(direct, 1)
    area = lambda t: t[0] * t[1]
    for tile in offered:
        if tiles.tiles_of(m, n, tile) * batch >= multiprocessors:
            break
    else:
        tile = min(offered, key=area)
        if batch == 1:
            best = max(coverage(m, n, t) for t in offered)
            fill = [t for t in offered if coverage(m, n, t) >= MIN_COVERAGE * best
                    and tiles.tiles_of(m, n, t) * tiles.split_count(m, n, k, t, multiprocessors,
                                                                    tiles.residency(dtype, t)) >= multiprocessors]
            if fill:
                tile = max(fill, key=area)  # the first of the largest: the preference order
    if batch > 1:
        return TileChoice(tile, 1)
    return TileChoice(tile, tiles.split_count(m, n, k, tile, multiprocessors, tiles.residency(dtype, tile)))


def candidates(dtype, m, n, k, multiprocessors, mma=False, x3=False):
    """Every :class:`~rocarray.rocblas._gemm.tiles.TileChoice` worth timing for a single
    (unbatched) problem: the three-TF32-product tiles when ``x3`` (they split k themselves), then
    each SIMT or matrix tile without a split and with the splits that fill one wave at one and at
    two blocks per multiprocessor."""
    choices = [TileChoice(t, 1) for t in tf32x3.candidate_tiles(m, n)] if x3 else []
    for t in tiles.tiles_for(dtype, mma):
        splits = {1}
        for per in (1, 2):
            splits.add(tiles.split_count(m, n, k, t, multiprocessors, per))
        choices.extend(TileChoice(t, s) for s in sorted(splits))
    return choices


def size_class(v):
    """The half-octave class of a size (the tuning DB keys problems by class, not exact size):
    sizes in ``(2^b, 1.5 * 2^b]`` share one class, those in ``(1.5 * 2^b, 2^(b + 1)]`` the next.
    (Whole octaves would put 4097^3 and 8192^3, which want different float64 tiles, in one class.)"""
    c = max(0, int(v) - 1)
    b = c.bit_length()
    return 2 * b + ((c >> (b - 2)) & 1 if b >= 2 else 0)


# --------------------------------------------------------------------------------------------
# the tuned choice
# --------------------------------------------------------------------------------------------

#: Launches of one choice per timed sample when tuning: small problems are timed over several back
#: to back, as repeated calls run (their launches' host time then overlaps the device work).
TIME_CALLS_SMALL = 4
#: Problems of at least this many flops are timed one call per sample.
TIME_ONE_CALL_FLOPS = 2**34
#: Device seconds of untimed calls before a choice's samples. Each candidate is compiled just
#: before it is timed, and the GPU lowers its clocks while the host compiles: a choice timed at
#: once would run at the idle clocks. Running it first lets the clocks come back up.
TIME_WARM_SECONDS = 0.02
#: Most untimed warm-up calls of one choice.
TIME_WARM_CALLS_MAX = 2000


def address(pointer):
    """The device address of a ``cupy.cuda.MemoryPointer`` (or of an address given as an int)."""
    return pointer.ptr if hasattr(pointer, "ptr") else int(pointer)


def time_choice(device_id, dtype, choice, m, n, k, alpha, A, lda, B, ldb, flag_bits):
    """Seconds per call of one choice's prepared launches (as a repeated gemm call runs them) on
    the caller's A and B and a scratch C: the median of three samples, after
    :data:`TIME_WARM_SECONDS` of untimed calls. Each sample starts behind one untimed call, so its
    start event fires behind queued work rather than on an idle device."""
    cupy = backend.cupy()
    scratch = cupy.empty(m * n, dtype=dtype)
    run = prepare(device_id, dtype, choice, m, n, k, lda, ldb, m, flag_bits, 1, (0, 0, 0))
    args = (alpha, scalar_arg(0, dtype), address(A), address(B), scratch.data.ptr, 0)
    calls = 1 if 2 * m * n * k >= TIME_ONE_CALL_FLOPS else TIME_CALLS_SMALL
    once = timing.per_call_seconds(cupy, run, args, 1)   # the first call also compiles
    for _ in range(min(TIME_WARM_CALLS_MAX, int(TIME_WARM_SECONDS / max(once, 1e-7)))):
        run(*args)
    return sorted(timing.per_call_seconds(cupy, run, args, calls) for _ in range(3))[1]


def choose(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, flag_bits, batch=1):
    """The :class:`~rocarray.rocblas._gemm.tiles.TileChoice` of one launch: the heuristic, or for
    large problems the tuning DB's choice (which may time the candidates on A and B).

    A decision is kept in the plan cache (``('rocblas.gemm.choice', ...)``), shared by every
    layout of the problem: a repeated problem costs one dictionary lookup of host time instead of
    building the candidates and reading the DB's key."""
    key = ("rocblas.gemm.choice", device_id, numpy.dtype(dtype), m, n, k, flag_bits & (TRANS_A | TRANS_B), batch)
    return plans.cache.lookup(key, lambda: _choose(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, flag_bits, batch))


#: The kernel sources the gemm candidates run: their digest is part of every tuning DB key, so an
#: edited kernel drops only gemm's entries.
TUNED_SOURCES = ("rocblas/gemm.hip", "rocblas/gemm_mma.hip", "rocblas/gemm_wgmma.hip")


def _choose(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, flag_bits, batch):
    sms, mma = tiles.device_facts(device_id)
    x3 = numpy.dtype(dtype) == _F32 and tf32x3.usable(device_id, m, n, k, batch)
    default = heuristic(dtype, m, n, k, sms, batch, mma, x3)
    if batch > 1 or k == 0 or 2 * m * n * k < TUNE_MIN_FLOPS:
        return default
    choices = candidates(dtype, m, n, k, sms, mma, x3)
    if len(choices) == 1:
        return choices[0]
    key = (numpy.dtype(dtype), flag_bits & (TRANS_A | TRANS_B), size_class(m), size_class(n), size_class(k), mma)
    if x3:  # a key of its own: entries tuned without the path keep their meaning
        key += ("x3",)
    return tuning.choose("rocblas.gemm", key, choices,
                         lambda c: time_choice(device_id, dtype, c, m, n, k, alpha, A, lda, B, ldb, flag_bits),
                         default.name, sources=TUNED_SOURCES)


# --------------------------------------------------------------------------------------------
# the plan: prepared launches
# --------------------------------------------------------------------------------------------

def prepare(device_id, dtype, choice, m, n, k, lda, ldb, ldc, flag_bits, batch, strides):
    """The launches of one :class:`~rocarray.rocblas._gemm.tiles.TileChoice` with everything but
    the call's values worked out: ``run(alpha, beta, A, B, C, bias)`` taking the kernel scalars and
    the device addresses (ints; bias 0: none), on the current device
    (:func:`rocarray.rocblas._gemm.simt.prepare`, or the three-TF32 path's
    :func:`rocarray.rocblas._gemm.tf32x3.prepare_run`)."""
    tile = choice[0]
    if getattr(tile, "x3", False):
        return tf32x3.prepare_run(device_id, tile, m, n, k, lda, ldb, ldc, bool(flag_bits & TRANS_A),
                                  bool(flag_bits & TRANS_B), (flag_bits >> ACT_SHIFT) & 0xF, batch, strides)
    return simt.prepare(device_id, dtype, choice, m, n, k, lda, ldb, ldc, flag_bits, batch, strides)


def prepare_launch(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, ldc, flag_bits, batch=1, strides=(0, 0, 0)):
    """The plan of a problem, on the current device: its choice (:func:`choose`, which may time
    candidates on A and B) and the launches of that choice (:func:`prepare`), kept in the plan
    cache under ``('rocblas.gemm.launches', ...)``. The tile is chosen without the epilogue's bits:
    candidates are timed without a bias."""
    with _launch.on_device(device_id):
        choice = choose(device_id, dtype, m, n, k, alpha, A, lda, B, ldb,
                        flag_bits & (TRANS_A | CONJ_A | TRANS_B | CONJ_B), batch)
        key = ("rocblas.gemm.launches", device_id, numpy.dtype(dtype), choice, m, n, k, lda, ldb, ldc, flag_bits, batch,
               tuple(strides))
        return plans.cache.lookup(key, lambda: prepare(device_id, dtype, choice, m, n, k, lda, ldb, ldc, flag_bits,
                                                       batch, strides))


def launch(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, flag_bits,
           batch=1, stride_a=0, stride_b=0, stride_c=0, bias=None):
    """gemm launches on checked operands (no checks); ``k == 0``: ``C := beta C`` (+ epilogue).

    ``A``, ``B``, ``C`` (and ``bias``) are device pointers (``x.data``) or addresses; ``batch``
    matrices, each ``stride_*`` elements after the previous one, run in the grid's y dimension;
    ``alpha``/``beta`` are kernel scalars. Returns the prepared launches (:func:`prepare`'s
    ``run``) for a repeated call of the same shape.
    """
    run = prepare_launch(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, ldc, flag_bits, batch,
                         (stride_a, stride_b, stride_c))
    with _launch.on_device(device_id):
        run(alpha, beta, address(A), address(B), address(C), 0 if bias is None else address(bias))
    return run
