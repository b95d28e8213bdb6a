"""The ``mma.sync`` kernel of float16/bfloat16 gemm (``rocarray/_kernels/rocblas/gemm_mma.hip``).

Kernel names and registration, the kernel variant and its launch; :mod:`rocarray.rocblas._gemm.half`
decides when it runs (everywhere but where the sm_90a warpgroup kernel does).

Variants
--------
One kernel template, ``ra_rocblas_gemm_mma<T, A_KMAJOR, B_KMAJOR, BN>`` (16 instantiations): the
transposes decide which operand tiles are k-major in memory (``A_KMAJOR``: transA != 'N';
``B_KMAJOR``: transB == 'N'); ``BN`` is the block tile's width, 128 or 256 (the height is 128).
Two runtime arguments cost no instantiations: ``aligned`` picks the copy variant (16-byte
chunks, ``cp.async`` on NVIDIA, need both A and B 16-byte aligned with ``lda``, ``ldb`` and the
batch strides multiples of 8 elements; otherwise predicated element copies, slower, same
results) and ``stages`` the depth of the shared-memory ring (dynamic shared memory of
``stages * (128 + BN) * 32 * 2`` bytes, see :func:`shared_bytes`).

Tile choice (:func:`choose_config`): NVIDIA sm_80+ takes the 128 x 256 tile with 4 stages (96 KB,
one block of 256 threads per multiprocessor) when the problem has at least one such tile per
multiprocessor (``ceil(m/128) ceil(n/256) batch >= multiprocessors``: the big tile still fills
one wave); smaller problems take the 128 x 128 tile with 4 stages (64 KB, two blocks per
multiprocessor), so that twice as many blocks spread over the device. AMD (64 KB of LDS per
workgroup) and older NVIDIA always take 128 x 128 with 3 stages (48 KB).

Per block tile of 128 x BN and k step of 32 (2-byte elements), the 128 x 256 tile moves 24 KB
from L2 to shared memory for 2.1 MFLOP (85 FLOP per byte, against 64 for 128 x 128) and reads a
third fewer shared bytes per FLOP; the register double buffering of the ldmatrix fragments and a
fourth stage hide latency, and the rasterization (groups of 16 tile rows, ``RA_GEMM_MMA_GROUP``)
keeps each wave's A and B panels in L2. Registers: 128 accumulators + 64 fragment registers + ~30
addresses, under the 255 a 256-thread block allows (one block per multiprocessor).
"""
import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch

SOURCE = "rocblas/gemm_mma.hip"

#: Threads per block (``RA_GEMM_MMA_BLOCK``).
BLOCK = 256
#: Rows of C one block computes (``RA_GEMM_MMA_BM``); also the narrow tile's width.
TILE = 128
#: Block tile widths (the ``BN`` template argument): 128 for small problems, 256 for big ones.
TILE_WIDTHS = (128, 256)
#: k per shared-memory stage (``RA_GEMM_MMA_BK``).
BK = 32
#: Elements per 16-byte chunk: aligned copies need leading dimensions (and strides) that are multiples.
CHUNK = 8
#: Byte alignment of A and B for aligned copies.
CHUNK_BYTES = 16
#: Resident blocks per multiprocessor assumed for the occupancy query.
BLOCKS_PER_MULTIPROCESSOR = 2
#: Shared-memory ring depth on NVIDIA sm_80+ (both tiles) and elsewhere (48 KB for 128 x 128).
STAGES_MMA = 4
STAGES_OTHER = 3
#: Bytes of shared memory a block may have without opting in (CUDA's static limit).
DEFAULT_SHARED = backend.DEFAULT_SHARED
#: Largest grid x and y (batch) dimensions.
MAX_GRID = 2**31 - 1
MAX_BATCH = 65535

_F16 = numpy.dtype(numpy.float16)


def bfloat16_dtype():
    """The ``ml_dtypes.bfloat16`` NumPy dtype, or ``None`` when ``ml_dtypes`` is not installed."""
    try:
        import ml_dtypes
    except ImportError:
        return None
    return numpy.dtype(ml_dtypes.bfloat16)


_BF16 = bfloat16_dtype()

#: The 16-bit dtypes by name: both are compiled; bfloat16 runs only with ml_dtypes.
NAMES = ("float16", "bfloat16")


def ctype(dtype_name):
    """The kernel element type of a 16-bit dtype named ``dtype_name`` (:mod:`rocarray._core.dtypes`;
    bfloat16 by name, as NumPy knows it only with ml_dtypes)."""
    return dtypes.BFLOAT16 if dtype_name == "bfloat16" else dtypes.ctype(dtype_name)

#: The dtypes :func:`gemm_mma` takes: float16, and bfloat16 where CuPy arrays can carry it.
MMA_DTYPES = (_F16,) if _BF16 is None else (_F16, _BF16)


def kernel_name(dtype_name, transA, transB, tile_n=TILE):
    """Name expression of the kernel, e.g. ``'ra_rocblas_gemm_mma<ra_half, false, true, 128>'`` for
    'N', 'N' with the 128 x 128 tile."""
    a_kmajor = "true" if transA != "N" else "false"
    b_kmajor = "true" if transB == "N" else "false"
    return f"ra_rocblas_gemm_mma<{ctype(dtype_name)}, {a_kmajor}, {b_kmajor}, {int(tile_n)}>"


def instantiations():
    """Every name expression this module launches: 2 dtypes x 4 transposes x 2 tile widths."""
    return sorted(kernel_name(d, ta, tb, w) for d in NAMES for ta in "NT" for tb in "NT"
                  for w in TILE_WIDTHS)


_compile.register(SOURCE, instantiations())


# --------------------------------------------------------------------------------------------
# variant and grid (pure Python)
# --------------------------------------------------------------------------------------------

def dtype_name(dtype):
    dtype = numpy.dtype(dtype)
    if dtype not in MMA_DTYPES:
        if dtype.name == "bfloat16":  # pragma: no cover  (an ml_dtypes that appeared after import)
            return "bfloat16"
        names = ", ".join(d.name for d in MMA_DTYPES)
        why = "" if _BF16 is not None else " (bfloat16 needs the ml_dtypes package, which is not installed)"
        raise TypeError(f"rocblas.gemm: the matrix-core gemm takes {names}{why}; got {dtype.name}")
    return dtype.name


def operand_aligned(address, ld, stride=0, batch=1):
    """Whether an operand can move as 16-byte chunks: address 16-byte aligned, ld (and the batch
    stride, when ``batch > 1``) multiples of 8 elements."""
    return (int(address) % CHUNK_BYTES == 0 and int(ld) % CHUNK == 0
            and (batch <= 1 or int(stride) % CHUNK == 0))


def use_aligned(a_address, lda, b_address, ldb, k, stride_a=0, stride_b=0, batch=1):
    """The variant: ``True`` (16-byte chunk copies) when both A and B allow it; with ``k == 0``
    neither is read and the aligned variant runs."""
    if k == 0:
        return True
    return (operand_aligned(a_address, lda, stride_a, batch)
            and operand_aligned(b_address, ldb, stride_b, batch))


def shared_bytes(tile_n, stages):
    """Dynamic shared memory of one block: ``stages`` x (A tile 128 x 32 + B tile ``tile_n`` x 32) x 2 bytes."""
    return int(stages) * (TILE + int(tile_n)) * BK * 2


def choose_config(m, n, batch, *, is_hip, cc_major, multiprocessors, shared_limit):
    """``(tile_n, stages)`` for a launch: the block tile's width and the shared-memory ring depth.

    NVIDIA sm_80+ (the ``mma.sync`` path): the 128 x 256 tile (one block per multiprocessor) when
    the problem has at least one such tile per multiprocessor, else 128 x 128 (two blocks per
    multiprocessor); 4 stages where the opt-in shared memory allows (else 3). AMD (64 KB of LDS
    per workgroup, the MFMA path is written for 128 x 128) and older NVIDIA (the portable path):
    128 x 128 with 3 stages (48 KB).

    Parameters
    ----------
    m, n, batch : int
        Sizes of C and the number of independent products (all >= 1).
    is_hip : bool
        AMD (ROCm) device.
    cc_major : int
        NVIDIA compute capability major (ignored for AMD).
    multiprocessors : int
        Multiprocessors (CUs) of the device.
    shared_limit : int
        Largest dynamic shared memory one block may opt into, in bytes.
    """
    if is_hip or cc_major < 8:
        return TILE, STAGES_OTHER
    big_tiles = -(-m // TILE) * -(-n // TILE_WIDTHS[1]) * max(1, batch)
    if big_tiles >= multiprocessors:
        for stages in (STAGES_MMA, STAGES_OTHER):
            if shared_bytes(TILE_WIDTHS[1], stages) <= shared_limit:
                return TILE_WIDTHS[1], stages
    for stages in (STAGES_MMA, STAGES_OTHER):
        if shared_bytes(TILE, stages) <= max(shared_limit, DEFAULT_SHARED):
            return TILE, stages
    return TILE, STAGES_OTHER  # pragma: no cover  (every CUDA device has 48 KB)


def grid(m, n, batch=1, tile_n=TILE):
    """``(tiles, batch)``: one block per 128 x ``tile_n`` tile of C per batch entry (the kernel orders
    the tiles in groups of 16 tile rows, m fastest inside a group)."""
    blocks = -(-m // TILE) * -(-n // int(tile_n))
    if blocks > MAX_GRID:
        raise ValueError(f"rocblas.gemm: C of {m} x {n} needs {blocks} tiles, more than one launch takes")
    if batch > MAX_BATCH:
        raise ValueError(f"rocblas.gemm: batch {batch} is more than one launch takes ({MAX_BATCH})")
    return (blocks, batch)


# --------------------------------------------------------------------------------------------
# launching
# --------------------------------------------------------------------------------------------

KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def device_facts(device_id):
    """``dict`` of the :func:`choose_config` device arguments for ``device_id`` (read when a plan is
    built: :mod:`rocarray._core.backend` keeps the device facts)."""
    info = backend.device_info(device_id)
    major, minor = backend.compute_capability_version(info)
    return dict(is_hip=bool(info.is_hip), cc_major=major, cc_minor=minor, multiprocessors=int(info.multiprocessors),
                shared_limit=backend.shared_memory_limit(device_id))


def prepare(device_id, name, transA, transB, m, n, k, lda, ldb, ldc, batch, stride_a, stride_b, stride_c, aligned,
            act, facts):
    """The ``mma.sync`` kernel's launch with everything but the call's values worked out:
    ``mma(alpha, beta, A, B, C, bias)`` taking float32 scalars and device addresses (bias 0: none),
    on the current device. ``name``: the dtype's name; ``transA``/``transB``: ``'N'`` or ``'T'``;
    ``aligned``: the 16-byte copy variant (:func:`use_aligned`); ``act``: the activation code
    (``numpy.int32``); ``facts``: :func:`device_facts`."""
    tile_n, stages = choose_config(m, n, batch, is_hip=facts["is_hip"], cc_major=facts["cc_major"],
                                   multiprocessors=facts["multiprocessors"], shared_limit=facts["shared_limit"])
    blocks = grid(m, n, batch, tile_n)
    nbytes = shared_bytes(tile_n, stages)
    i64 = numpy.int64
    sizes = (i64(m), i64(n), i64(k))
    a_layout, b_layout, c_layout = (i64(lda), i64(stride_a)), (i64(ldb), i64(stride_b)), (i64(ldc), i64(stride_c))
    tail = (numpy.int32(aligned), numpy.int32(stages))
    F32, POINTER = launch.scalar(numpy.float32), launch.POINTER
    prepared = KERNELS[kernel_name(name, transA, transB, tile_n)].prepare(
        device_id, blocks, sizes + (F32, POINTER) + a_layout + (POINTER,) + b_layout + (F32, POINTER) + c_layout + tail
        + (POINTER, act), shared=nbytes, dependent=backend.grid_dependency(facts["is_hip"], facts["cc_major"]))

    def mma(alpha, beta, A, B, C, bias):
        prepared(alpha, A, B, beta, C, bias)
    return mma
