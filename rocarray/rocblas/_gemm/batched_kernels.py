"""Kernel choice and launches of batched gemm (``rocarray/_kernels/rocblas/gemm_batched.hip``).

The public functions live in :mod:`rocarray.rocblas._gemm.batched`; this module knows the kernels:
which one a problem takes, the geometry of each, and how it is launched. Nothing here checks
user input.

Kernel choice (:func:`choose`)
------------------------------
* Packed square float32 products of 32 or 64 in strided mode on NVIDIA from compute capability
  9.0 (:func:`bulk_fits`, :func:`bulk_device`) run, whatever :func:`choose` says,
  ``ra_rocblas_gemm_batched_team<B_TRANS>`` (32: one team of 32 threads a product) or
  ``ra_rocblas_gemm_batched_bulk<S, B_TRANS>`` (64: a persistent ring of bulk copies); below.
* ``'small'``: ``ra_rocblas_gemm_batched<T, S>`` with S the smallest of 8, 16, 32, 64 that holds
  ``max(m, n)``. One block of 256 threads computes whole matrices, several at a time, so every
  matrix is read once and written once with its operands staged in shared memory; k of any
  length is walked in chunks. Taken for ``max(m, n) <= 64`` in both modes, except a single
  strided product with ``k > 512`` (:data:`LONG_K`), which the level-3 gemm splits over blocks
  (one block walking a k of 4096 took 490 µs for 64 x 64, the split gemm 33 µs).
* ``'tiled'`` (strided mode, ``max(m, n) > 64`` or that long single product): the level-3 tiled
  gemm (:func:`rocarray.rocblas._gemm.plan.launch`) with its batch grid (matrices in the grid's y
  dimension), one launch per 65535 matrices.
* ``'pointer-loop'`` (pointer-array mode, ``max(m, n) > 64``, at most 64 products
  (:data:`LOOP_MAX_BATCH`) of at least ``m n k = 2^27`` (:data:`LOOP_MIN_WORK`, 512^3) each):
  the pointers are copied to the host (synchronizing copies of at most 3 x 512 bytes) and the
  level-3 gemm runs once per product, tuned and split like any large gemm. Each product then takes
  several tens of microseconds, so the copy and the launches cost a few percent.
* ``'pointer-tiled'`` (pointer-array mode, other ``max(m, n) > 64``): the S = 64 kernel with a
  64 x 64 tile per block and several tiles per matrix: one launch, the pointer arrays stay on the
  device, no synchronization.

Why 64: above it a matrix has more than one tile and the tiled gemm's larger tiles, double
buffering and tuning pay; at or below it a matrix fits one block of the batched kernel (S = 64:
64 x 64 of C, 4 x 4 per thread), while the tiled gemm would also give it one block but with its
k tiles of 8-16 elements, a barrier each. The smaller S keep small matrices from idling most of a
block: 8 x 8 matrices go 16 to a block (2 x 2 per thread), 16 x 16 four (2 x 2), 32 x 32 four
(4 x 4).

Configurations (R x R register micro-tile per thread, MB matrices per block, KC elements of k
per shared-memory chunk for float32 / float64 and complex64 / complex128, static shared memory
per block in KiB for float32 / float64 and complex64 / complex128):

==  ==  ==  ===========  ==================
S   R   MB  KC           shared KiB
==  ==  ==  ===========  ==================
8   2   16  8 / 8 / 8    12 / 20 / 36
16  2   4   16 / 16 / 8  10 / 18 / 17
32  4   4   32 / 16 / 8  36 / 34 / 33
64  4   1   32 / 16 / 8  17 / 16.5 / 16.2
==  ==  ==  ===========  ==================

Two kernels run these configurations. ``ra_rocblas_gemm_batched<T, S>`` (one-shot) gives each
block one group of MB matrices (one tile of C): load the group's operands into registers, store
them to shared memory, multiply, write C, exit. ``ra_rocblas_gemm_batched_stream<T, S>`` (the
:data:`STREAM` tiles: float32 with S = 32, ``k > 0``) launches about one resident wave
(``min(work items, multiprocessors x resident blocks)``) and each block walks the work items
``blockIdx.x + i * gridDim.x`` and their k chunks, issuing the global loads of the NEXT step into
registers right after the current chunk is stored to shared memory: they are in flight while the
block multiplies and writes C.

Why streaming: a group of small matrices costs more memory time than FMA time on a
multiprocessor, and the one-shot kernel has a block's loads in flight only between its start
and its barrier, so the bytes in flight swing and average about what the bandwidth needs
(Little's law); the streaming kernel keeps the next group's loads in flight through the multiply
and the C stores. The other tiles (S = 8, S = 16 float32, float64, complex) stay on the one-shot
kernel; each is one ``STREAM`` entry away, and the table stays short because every registered
name compiles for each CI target. The arithmetic, the registers and the timings:
docs/performance/rocblas.md.

Packed square float32 products (``m = n = k = lda = ldb = S``, op(A) = A, op(B) = B or B^T, A and
B matrices 16-byte aligned) have two kernels of their own on sm_90, both launched as programmatic
dependents of the previous kernel in their stream (``dependent=True``,
:class:`rocarray._core.driver.DependentLaunch`: the driver places their blocks while the previous
kernel ends):

* S = 32: ``ra_rocblas_gemm_batched_team<B_TRANS>``, one block of 32 threads a product (a grid
  of ``batch`` blocks): load both operands into registers (eight float4 of each a thread), store
  them to shared memory, a barrier, multiply (4 x 8 of C a thread), write C, leave. Many such
  teams are resident on a multiprocessor and the hardware starts a new one as each leaves, so the
  loads, multiplies and stores of different products interleave finely, with no ramp and no
  ragged end. The loads pass through L1, which shares its 256 KB with shared memory: the launch
  sets the carveout to :data:`TEAM_CARVEOUT` percent, which leaves room for
  :data:`TEAM_RESIDENT` teams and the rest to L1.
* S = 64: the bulk-copy kernel ``ra_rocblas_gemm_batched_bulk<S, B_TRANS>``: each operand matrix
  is one contiguous block, which thread 0 hands to the bulk copy engine, into a ring of 32 KB
  stages (one 64^2 pair) in dynamic shared memory; no registers hold loads, so the next groups'
  loads are in flight while a block multiplies (4 x 4 register tiles from shared memory) and
  writes C from registers, in a ring of :func:`bulk_stages` stages with :func:`bulk_blocks`
  blocks per multiprocessor. An untransposed B is read along k with the four columns a warp reads
  in one bank group.

A product moves ``(m k + k n + m n [+ m n when beta != 0]) * itemsize`` bytes and does
``2 m n k`` flops: small products are bound by memory bandwidth (the smallest by launch time),
large ones run at the tiled gemm's speed.
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch, plans
from rocarray.rocblas._arguments import STANDARD
from rocarray.rocblas._gemm import plan, simt

SOURCE = "rocblas/gemm_batched.hip"

#: Threads per block (``RA_ROCBLAS_GB_BLOCK`` in the source).
BLOCK = 256
#: Tile sizes (S) of the small kernel, smallest first.
TILES = (8, 16, 32, 64)
#: Largest ``max(m, n)`` the small kernel takes in strided mode (one block per matrix tile).
SMALL_MAX = TILES[-1]
#: Inner dimension above which a single strided product goes to the level-3 gemm (split k).
LONG_K = 512
#: Most products (pointer mode) that run as one level-3 gemm each.
LOOP_MAX_BATCH = 64
#: Fewest ``m * n * k`` per product (pointer mode) that runs as one level-3 gemm each.
LOOP_MIN_WORK = 1 << 27
#: Resident blocks per multiprocessor assumed for the occupancy query.
BLOCKS_PER_MULTIPROCESSOR = 2048 // BLOCK
#: Largest 1-D grid.
MAX_GRID = 2**31 - 1

# flag bits (``RA_ROCBLAS_GB_*`` in the source; the same values as the level-3 gemm's)
TRANS_A, CONJ_A, TRANS_B, CONJ_B = simt.TRANS_A, simt.CONJ_A, simt.TRANS_B, simt.CONJ_B

#: Element dtypes of the batched kernels (float32, float64, complex64, complex128).
DTYPES = STANDARD

flags = simt.flags


def micro(tile):
    """Register micro-tile edge R of tile size S (``ra_rocblas_gb_cfg::R``)."""
    return 2 if tile <= 16 else 4


def matrices_per_block(tile):
    """Matrices one block computes (``ra_rocblas_gb_cfg::MB``)."""
    return BLOCK // (tile // micro(tile)) ** 2


def k_chunk(tile, dtype):
    """Elements of k per shared-memory chunk (``ra_rocblas_gb_cfg::KC``)."""
    return min(tile, 128 // numpy.dtype(dtype).itemsize)


def shared_bytes(tile, dtype):
    """Static shared memory of one block (both operand tiles; the pointer table not counted)."""
    size = numpy.dtype(dtype).itemsize
    return 2 * matrices_per_block(tile) * k_chunk(tile, dtype) * (tile + 16 // size) * size


def kernel_name(dtype, tile):
    """Name expression of the batched kernel, e.g. ``'ra_rocblas_gemm_batched<float, 32>'``."""
    return f"ra_rocblas_gemm_batched<{dtypes.ctype(dtype)}, {int(tile)}>"


#: Tiles of each dtype that run the streaming kernel when ``k > 0`` (see the module docstring);
#: the others, and ``k == 0``, run the one-shot kernel (S = 64 streams no faster). Every entry is
#: a registered (compiled) instantiation; ``STREAM.clear()`` before the first launch runs the
#: one-shot kernel only.
STREAM = {numpy.dtype(numpy.float32): (32,)}


def stream_name(dtype, tile):
    """Name expression of the streaming kernel, e.g. ``'ra_rocblas_gemm_batched_stream<float, 32>'``."""
    return f"ra_rocblas_gemm_batched_stream<{dtypes.ctype(dtype)}, {int(tile)}>"


def streams(dtype, tile, k):
    """Whether a launch of ``tile`` for ``dtype`` with inner dimension ``k`` runs the streaming kernel."""
    return k > 0 and int(tile) in STREAM.get(numpy.dtype(dtype), ())


#: Square float32 tiles with kernels of their own for packed operands on NVIDIA from compute
#: capability 9.0 (:func:`bulk_fits`, :func:`bulk_device`): :data:`TEAM_TILE` by the team kernel,
#: the others by the bulk-copy kernel.
BULK_TILES = (32, 64)
#: The tile of the team kernel ``ra_rocblas_gemm_batched_team<B_TRANS>``: one block of
#: :data:`TEAM` threads a product.
TEAM_TILE = 32
#: Threads of the team kernel's block (``RA_ROCBLAS_GB_TEAM``).
TEAM = 32
#: The team kernel's preferred shared-memory carveout, in percent of the most a multiprocessor
#: has: room for :data:`TEAM_RESIDENT` teams (8 KB each), the rest left to L1 for the loads in
#: flight (the fastest carveout timed: docs/performance/rocblas.md).
TEAM_CARVEOUT = 65
#: Resident teams per multiprocessor under that carveout (on sm_90's 228 KB).
TEAM_RESIDENT = 18
# The bulk-copy kernel ``ra_rocblas_gemm_batched_bulk<S, B_TRANS>`` (``ra_rocblas_gb_bulk_cfg`` in
# the source) takes the other tiles of BULK_TILES: groups of ``matrices_per_block(S)`` matrices
# (32 KB of operands) in a ring of :func:`bulk_stages` stages of dynamic shared memory,
# :func:`bulk_blocks` resident blocks per multiprocessor.

#: Alignment of the ring in dynamic shared memory (``RA_ROCBLAS_GB_BULK_ALIGN``; the fastest timed).
BULK_ALIGN = 1024
#: Bytes of one ring stage (the A and the B matrices of a group; the same for every tile).
BULK_STAGE_BYTES = 2 * matrices_per_block(BULK_TILES[-1]) * BULK_TILES[-1] ** 2 * 4
_F32 = numpy.dtype(numpy.float32)


def bulk_stages(tile):
    """Ring stages of the bulk-copy kernel: 4 for groups of several matrices, 3 for one."""
    return 4 if matrices_per_block(tile) > 1 else 3


def bulk_blocks(tile):
    """Resident blocks per multiprocessor the bulk-copy kernel is built for: 1 or 2."""
    return 1 if matrices_per_block(tile) > 1 else 2


def bulk_shared(tile):
    """Dynamic shared memory of one block: the ring, plus the slack that aligns it to BULK_ALIGN."""
    return bulk_stages(tile) * BULK_STAGE_BYTES + BULK_ALIGN


def bulk_name(tile, b_trans):
    """Name expression of the bulk-copy kernel, e.g. ``'ra_rocblas_gemm_batched_bulk<64, false>'``."""
    return f"ra_rocblas_gemm_batched_bulk<{int(tile)}, {'true' if b_trans else 'false'}>"


def team_name(b_trans):
    """Name expression of the team kernel, e.g. ``'ra_rocblas_gemm_batched_team<true>'``."""
    return f"ra_rocblas_gemm_batched_team<{'true' if b_trans else 'false'}>"


def _address(x):
    """The device address of a memory pointer (or of an address itself)."""
    return int(getattr(x, "ptr", x))


def bulk_fits(dtype, m, n, k, lda, stride_a, ldb, stride_b, flag_bits, a_address, b_address):
    """Whether a strided problem has the layout of the bulk-copy kernel: float32, m = n = k = S of
    :data:`BULK_TILES`, op(A) = A with lda = S, op(B) = B or B^T with ldb = S, every A and B matrix
    16-byte aligned (addresses and strides; a stride of 0 broadcasts as elsewhere). C is free (the
    kernel's stores check their alignment)."""
    return (numpy.dtype(dtype) == _F32 and m in BULK_TILES and m == n == k == lda == ldb
            and not flag_bits & TRANS_A and stride_a % 4 == 0 and stride_b % 4 == 0
            and int(a_address) % 16 == 0 and int(b_address) % 16 == 0)


def bulk_device(is_hip, cc_major):
    """Whether a device runs the bulk-copy and team kernels: NVIDIA from compute capability 9.0
    (the copy engine, :func:`rocarray._core.backend.bulk_copy_engine`)."""
    return backend.bulk_copy_engine(is_hip, cc_major)


def _bulk(device_id):
    """:func:`bulk_device` for a device."""
    return backend.has_bulk_copy(device_id)


def instantiations():
    """Every name expression this module launches (registered with the compile layer)."""
    names = [kernel_name(d, s) for d in DTYPES for s in TILES]
    names += [stream_name(d, s) for d, tiles in STREAM.items() for s in tiles]
    names += [bulk_name(s, t) for s in BULK_TILES if s != TEAM_TILE for t in (False, True)]
    names += [team_name(t) for t in (False, True)]
    return sorted(names)


_compile.register(SOURCE, instantiations())


def tile_for(m, n):
    """The smallest tile S of :data:`TILES` holding ``max(m, n)``; the largest for bigger ones."""
    edge = max(m, n)
    for tile in TILES:
        if edge <= tile:
            return tile
    return TILES[-1]


def choose(m, n, pointers, batch=2, k=0):
    """The path of ``batch`` products with an ``m x n`` C: ``'small'``, ``'tiled'``, ``'pointer-loop'``
    or ``'pointer-tiled'`` (see the module docstring).

    Parameters
    ----------
    m, n : int
        Rows and columns of each C (> 0).
    pointers : bool
        Pointer-array mode (``gemm_batched``) rather than strided mode.
    batch, k : int
        Products and their inner dimension: one strided product with ``k > LONG_K`` goes to the
        level-3 gemm, which splits long k over several blocks (the batched kernel would walk it
        in one block); a few large products in pointer mode run the level-3 gemm one by one.
    """
    if pointers:
        if max(m, n) <= SMALL_MAX:
            return "small"
        return "pointer-loop" if batch <= LOOP_MAX_BATCH and m * n * k >= LOOP_MIN_WORK else "pointer-tiled"
    if max(m, n) > SMALL_MAX or (batch == 1 and k > LONG_K):
        return "tiled"
    return "small"


def grid(m, n, batch, tile):
    """Blocks of a batched-kernel launch: tiles of each matrix times groups of matrices."""
    tiles = -(-m // tile) * -(-n // tile)
    blocks = tiles * -(-batch // matrices_per_block(tile))
    if blocks > MAX_GRID:
        raise ValueError(f"rocblas.gemm_batched: {batch} matrices of {m} x {n} need {blocks} blocks, "
                         "more than one launch takes")
    return blocks


KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)
_NULL = numpy.uint64(0)


def launch_small(device_id, dtype, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c, ldc, stride_c,
                 batch, flag_bits, tile=None):
    """One launch of the batched kernel on checked operands (no checks).

    ``a``/``b``/``c`` are ``(base, pointers)`` pairs: strided mode passes the matrix-0 memory
    pointer and ``None``; pointer-array mode passes ``None`` and the device array of pointers
    (strides are then ignored). ``alpha``/``beta`` are kernel scalars; ``k == 0``: C := beta C.
    Strided mode returns ``again(alpha, beta, A, B, C)`` (device addresses) that repeats the
    launch, prepared once per signature (:func:`_small_run`); pointer mode returns None.
    """
    tile = tile_for(m, n) if tile is None else tile

    def pair(x):
        base, ptrs = x
        return (_NULL if base is None else base), (_NULL if ptrs is None else ptrs.data)

    (pa, qa), (pb, qb), (pc, qc) = pair(a), pair(b), pair(c)
    with launch.on_device(device_id):
        kernel, blocks = _small_kernel(device_id, dtype, m, n, k, batch, tile)
        kernel(device_id, (blocks,),
               (numpy.int64(m), numpy.int64(n), numpy.int64(k), alpha,
                pa, numpy.int64(lda), numpy.int64(stride_a), qa,
                pb, numpy.int64(ldb), numpy.int64(stride_b), qb,
                beta, pc, numpy.int64(ldc), numpy.int64(stride_c), qc,
                numpy.int64(batch), numpy.int32(flag_bits)))
    if a[1] is not None:
        return None

    prepared = []

    def again(alpha, beta, a, b, c):
        with launch.on_device(device_id):
            if not prepared:
                prepared.append(_small_run(device_id, dtype, m, n, k, lda, stride_a, ldb, stride_b, ldc, stride_c,
                                           batch, flag_bits, tile))
            prepared[0](alpha, beta, a, b, c)
    return again


def _small_kernel(device_id, dtype, m, n, k, batch, tile):
    """``(kernel, blocks)`` of a batched-kernel launch: the streaming kernel on one resident wave
    of blocks walking the work items where it applies (:func:`streams`), else the one-shot kernel
    on its whole grid."""
    blocks = grid(m, n, batch, tile)
    if streams(dtype, tile, k):
        kernel = KERNELS[stream_name(dtype, tile)]
        return kernel, min(blocks, kernel.wave(device_id))
    return KERNELS[kernel_name(dtype, tile)], blocks


def _bulk_run(device_id, tile, b_trans, stride_a, stride_b, ldc, stride_c, batch):
    """The bulk-copy kernel's launch for one signature, prepared once: ``run(alpha, beta, A, B, C)``
    on device addresses, on the current device."""
    def make():
        kernel = KERNELS[bulk_name(tile, b_trans)]
        shared = bulk_shared(tile)
        kernel.allow_shared(device_id, shared)
        per_mp = kernels.occupancy(kernel.function(device_id), BLOCK, bulk_blocks(tile), shared)
        wave = backend.device_info(device_id).multiprocessors * per_mp
        blocks = min(-(-batch // matrices_per_block(tile)), wave)
        f32, ptr, i64 = launch.scalar(numpy.float32), launch.POINTER, numpy.int64
        prepared = kernel.prepare(
            device_id, (blocks,), (f32, ptr, i64(stride_a), ptr, i64(stride_b), f32, ptr, i64(ldc), i64(stride_c),
                                   i64(batch)), shared=shared, dependent=True)
        return lambda alpha, beta, A, B, C: prepared(alpha, A, B, beta, C)
    key = ("rocblas.gemm_strided_batched.bulk", device_id, tile, b_trans, stride_a, stride_b, ldc, stride_c, batch)
    return plans.cache.lookup(key, make)


def _team_run(device_id, b_trans, stride_a, stride_b, ldc, stride_c, batch):
    """The team kernel's launch for one signature, prepared once: ``run(alpha, beta, A, B, C)`` on
    device addresses, on the current device. One block of :data:`TEAM` threads a product; the
    kernel's shared-memory carveout is set to :data:`TEAM_CARVEOUT` first."""
    def make():
        kernel = KERNELS[team_name(b_trans)]
        kernel.prefer_carveout(device_id, TEAM_CARVEOUT)
        f32, ptr, i64 = launch.scalar(numpy.float32), launch.POINTER, numpy.int64
        prepared = kernel.prepare(
            device_id, (batch,), (f32, ptr, i64(stride_a), ptr, i64(stride_b), f32, ptr, i64(ldc), i64(stride_c)),
            block=TEAM, dependent=True)
        return lambda alpha, beta, A, B, C: prepared(alpha, A, B, beta, C)
    key = ("rocblas.gemm_strided_batched.team", device_id, b_trans, stride_a, stride_b, ldc, stride_c, batch)
    return plans.cache.lookup(key, make)


def launch_bulk(device_id, tile, b_trans, alpha, A, stride_a, B, stride_b, beta, C, ldc, stride_c, batch):
    """One launch of a packed square float32 problem (:func:`bulk_fits`, on a :func:`bulk_device`,
    that device current): the team kernel for :data:`TEAM_TILE` (a block a product; ``batch`` at
    most :data:`MAX_GRID`), else the bulk-copy kernel (about one resident wave of blocks walking
    the groups of ``matrices_per_block(tile)`` matrices). Returns ``again(alpha, beta, A, B, C)``
    (addresses) that repeats the launch for new operands of the same signature."""
    if int(tile) == TEAM_TILE:
        run = _team_run(device_id, b_trans, stride_a, stride_b, ldc, stride_c, batch)
    else:
        run = _bulk_run(device_id, tile, b_trans, stride_a, stride_b, ldc, stride_c, batch)
    run(alpha, beta, _address(A), _address(B), _address(C))

    def again(alpha, beta, a, b, c):
        with launch.on_device(device_id):
            run(alpha, beta, a, b, c)
    return again


def _small_run(device_id, dtype, m, n, k, lda, stride_a, ldb, stride_b, ldc, stride_c, batch, flag_bits, tile):
    """The batched kernel's strided launch for one signature, prepared once (the launch of
    :func:`launch_small` with memory pointers): ``run(alpha, beta, A, B, C)`` on device addresses,
    on the current device."""
    def make():
        kernel, blocks = _small_kernel(device_id, dtype, m, n, k, batch, tile)
        s, ptr, i64 = launch.scalar(dtype), launch.POINTER, numpy.int64
        prepared = kernel.prepare(
            device_id, (blocks,),
            (i64(m), i64(n), i64(k), s, ptr, i64(lda), i64(stride_a), _NULL, ptr, i64(ldb), i64(stride_b), _NULL,
             s, ptr, i64(ldc), i64(stride_c), _NULL, i64(batch), numpy.int32(flag_bits)))
        return lambda alpha, beta, A, B, C: prepared(alpha, A, B, beta, C)
    key = ("rocblas.gemm_strided_batched.small", device_id, numpy.dtype(dtype), m, n, k, lda, stride_a, ldb, stride_b,
           ldc, stride_c, batch, flag_bits, tile)
    return plans.cache.lookup(key, make)


def launch_strided(device_id, dtype, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c,
                   batch, flag_bits):
    """Strided-batched gemm on checked operands (memory pointers to matrix 0), by :func:`choose`
    (packed square float32 problems of :data:`BULK_TILES` on sm_90 by the team or the bulk-copy kernel).

    Returns ``again(alpha, beta, A, B, C)`` that repeats the launches on new device addresses of
    the same signature (sizes, leading dimensions, strides, batch, flags, the operands' 16-byte
    alignment): a caller may keep it in the plan cache under those (a tuning change clears it)."""
    if (bulk_fits(dtype, m, n, k, lda, stride_a, ldb, stride_b, flag_bits, A.ptr, B.ptr) and batch <= MAX_GRID
            and _bulk(device_id)):
        with launch.on_device(device_id):
            return launch_bulk(device_id, m, bool(flag_bits & TRANS_B), alpha, A, stride_a, B, stride_b, beta, C,
                               ldc, stride_c, batch)
    if choose(m, n, False, batch, k) == "tiled":
        run = plan.launch(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, flag_bits,
                          batch=batch, stride_a=stride_a, stride_b=stride_b, stride_c=stride_c)
        if not callable(run):
            return None

        def again(alpha, beta, a, b, c):
            with launch.on_device(device_id):
                run(alpha, beta, a, b, c, 0)
        return again
    return launch_small(device_id, dtype, m, n, k, alpha, (A, None), lda, stride_a, (B, None), ldb, stride_b,
                        beta, (C, None), ldc, stride_c, batch, flag_bits)


def _pointer(address, rows, cols, ld, dtype, device_id):
    """A ``cupy.cuda.MemoryPointer`` to a column-major matrix at a raw device address."""
    cuda = backend.cupy().cuda
    nbytes = ((cols - 1) * ld + rows) * numpy.dtype(dtype).itemsize
    return cuda.MemoryPointer(cuda.UnownedMemory(int(address), max(nbytes, 1), None, device_id), 0)


def _host_pointers(arrays, batch):
    """The first ``batch`` pointers of each device array, on the host (synchronizing copies)."""
    cupy = backend.cupy()
    return [cupy.asnumpy(P[:batch]).astype(numpy.uint64) for P in arrays]


def launch_pointers(device_id, dtype, m, n, k, alpha, A_array, lda, B_array, ldb, beta, C_array, ldc, batch,
                    flag_bits):
    """Pointer-array batched gemm on checked operands (device arrays of 64-bit pointers), by :func:`choose`."""
    if choose(m, n, True, batch, k) == "pointer-loop":
        a_shape = (k, m) if flag_bits & TRANS_A else (m, k)
        b_shape = (n, k) if flag_bits & TRANS_B else (k, n)
        for pa, pb, pc in zip(*_host_pointers((A_array, B_array, C_array), batch)):
            plan.launch(device_id, dtype, m, n, k, alpha, _pointer(pa, *a_shape, lda, dtype, device_id), lda,
                        _pointer(pb, *b_shape, ldb, dtype, device_id), ldb, beta,
                        _pointer(pc, m, n, ldc, dtype, device_id), ldc, flag_bits)
        return
    launch_small(device_id, dtype, m, n, k, alpha, (None, A_array), lda, 0, (None, B_array), ldb, 0,
                 beta, (None, C_array), ldc, 0, batch, flag_bits)
