"""gemm on the matrix cores for float16 and bfloat16 (``rocarray/_kernels/rocblas/gemm_mma.hip``).

This module owns the 16-bit gemm path: kernel names and registration, the choice of kernel
variant, and the launch. :func:`rocarray.rocblas.gemm` checks the arguments and calls
:func:`gemm_mma` for the dtypes in :data:`MMA_DTYPES`.

Semantics (rocBLAS's ``rocblas_gemm_ex`` with ``compute_type = f32``): ``A``, ``B`` and ``C`` have
one 16-bit dtype; products are summed in float32 and ``alpha``/``beta`` are float32 host scalars;
the result ``alpha * op(A) op(B) + beta * C`` is computed in float32 and rounded once (to nearest
even) to C's dtype. ``op(X)`` is ``X`` or ``X^T`` ('C' is 'T' for real data). ``alpha == 0`` or
``k == 0`` does not read A or B; ``beta == 0`` does not read C.

bfloat16 is the ``ml_dtypes.bfloat16`` NumPy dtype, which CuPy 14 arrays carry when ``ml_dtypes``
is installed; without ``ml_dtypes`` no CuPy array can have that dtype and :data:`MMA_DTYPES` is
float16 alone (the bfloat16 kernels are still compiled by the compile matrix).

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

Arithmetic (per block tile of 128 x BN, one k step of 32; float16/bfloat16 = 2 bytes):

============================  ======================  ======================
                              128 x 128 (8 x 64x32)   128 x 256 (8 x 64x64)
============================  ======================  ======================
L2 -> shared bytes per step   (128+128)*32*2 = 16 KB  (128+256)*32*2 = 24 KB
FLOPs per step                2*128*128*32 = 1.05 M   2*128*256*32 = 2.10 M
FLOP per L2 byte              64                      85
L2 bandwidth at 700 TFLOP/s   10.9 TB/s               8.2 TB/s
shared bytes per stage        16 KB (x4 = 64 KB)      24 KB (x4 = 96 KB)
ldmatrix.x4 per 16 mma.sync   6 per 16 (A 4, B 2)     8 per 32 (A 4, B 4)
FLOP per shared byte read     21                      32
accumulators per thread       64                      128 (+ 2 x 32 fragments)
============================  ======================  ======================

The 128 x 128 tile needed about 11 TB/s of L2 bandwidth and 33 TB/s of shared-memory reads
(132 SMs x 128 B/clk x ~1.98 GHz is ~33 TB/s) to run at 700 TFLOP/s, both at or past the H200's
limits, which is where the measured 234 TFLOP/s (0.31x cuBLAS) sat, with 2 blocks (16 warps)
per SM to hide the latency of 3 stages. The 128 x 256 tile cuts L2 traffic by 25% and shared
reads per FLOP by 1/3, and the register double buffering of the ldmatrix fragments and a fourth
stage hide more latency; the rasterization (groups of 16 tile rows, ``RA_GEMM_MMA_GROUP``)
keeps each wave's A and B panels in L2 (a 2048 x ~2100 window of C for 8192^3 instead of all
of A). Registers: 128 accumulators + 64 fragment registers + ~30 addresses, under the 255 a
256-thread block allows (one block per SM). Prediction for 8192^3 float16 on the H200 (a
prediction to be measured): ``mma.sync`` issues at about 2/3 of the ``wgmma`` dense peak (990),
so 450-600 TFLOP/s (0.6-0.8x of cuBLAS's 738); problems below one wave of big tiles stay with
the 128 x 128 tile (4 stages now, expected somewhat above the old 234 TFLOP/s). Measured: 227-231
TFLOP/s for both tiles, so ``mma.sync`` issue was the bound, not the tile.

sm_90 (compute capability 9.0): aligned operands with ``k >= 1`` take the warpgroup (wgmma) kernel
of :mod:`rocarray.rocblas._level3_wgmma` instead (TMA copies, split k, padded copies of unaligned
operands past a size); :func:`gemm_mma` is the entry of both.
"""

import numpy

from rocarray._core import compile as _compile, launch, prepared_launch

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
DEFAULT_SHARED = launch.DEFAULT_SHARED
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

#: Kernel element type by dtype name (both are compiled; bfloat16 runs only with ml_dtypes).
CTYPE_BY_NAME = {"float16": "ra_half", "bfloat16": "ra_bfloat16"}

#: The dtypes :func:`gemm_mma` takes: float16, and bfloat16 where CuPy arrays can carry it.
MMA_DTYPES = (_F16,) if _BF16 is None else (_F16, _BF16)

#: Byte alignment rocBLAS-level checks require of a 16-bit buffer (one element).
ALIGNMENT = {d: 2 for d in MMA_DTYPES}


def kernel_name(dtype_name, transA, transB, tile_n=TILE):
    """Name expression of the kernel, e.g. ``'ra_rocblas_gemm_mma<ra_half, false, true, 128>'`` for
    'N', 'N' with the 128 x 128 tile."""
    a_kmajor = "true" if transA != "N" else "false"
    b_kmajor = "true" if transB == "N" else "false"
    return f"ra_rocblas_gemm_mma<{CTYPE_BY_NAME[dtype_name]}, {a_kmajor}, {b_kmajor}, {int(tile_n)}>"


def instantiations():
    """Every name expression this module launches: 2 dtypes x 4 transposes x 2 tile widths."""
    return sorted(kernel_name(d, ta, tb, w) for d in CTYPE_BY_NAME for ta in "NT" for tb in "NT"
                  for w in TILE_WIDTHS)


_compile.register(SOURCE, instantiations())


# --------------------------------------------------------------------------------------------
# variant and grid (pure Python)
# --------------------------------------------------------------------------------------------

def _dtype_name(dtype):
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


def _norm_trans(t):
    t = str(t).upper()
    return "N" if t == "N" else "T"


# --------------------------------------------------------------------------------------------
# launching
# --------------------------------------------------------------------------------------------

_kernel_table = launch.KernelTable(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def _kernel(name, device_id):
    """``(kernel, blocks in one full wave)`` for a registered name on a device (memoized)."""
    return _kernel_table.get(name, device_id)


_facts = {}


def _device_facts(device_id):
    """``dict`` of the :func:`choose_config` device arguments for ``device_id`` (memoized)."""
    facts = _facts.get(device_id)
    if facts is None:
        from rocarray._core import backend

        info = backend.device_info(device_id)
        limit = launch.shared_memory_limit(device_id)
        major, minor = backend.compute_capability_version(info)
        facts = _facts[device_id] = dict(is_hip=bool(info.is_hip), cc_major=major, cc_minor=minor,
                                         multiprocessors=int(info.multiprocessors), shared_limit=limit)
    return facts


def gemm_mma(device_id, dtype, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
             batch=1, stride_a=0, stride_b=0, stride_c=0, bias=None, activation=0):
    """``C := act(alpha op(A) op(B) + beta C + bias)`` on the matrix cores, unchecked (the caller
    has checked).

    Parameters
    ----------
    device_id : int
        Device of A, B and C.
    dtype : numpy.dtype
        One of :data:`MMA_DTYPES` (``TypeError`` otherwise, naming why bfloat16 is missing).
    transA, transB : {'N', 'T', 'C'}
        'C' is 'T' (real data).
    m, n, k : int
        Sizes (>= 0); ``m == 0`` or ``n == 0`` does nothing.
    alpha, beta : real scalar
        Converted to float32 (rocblas_gemm_ex with f32 compute). ``alpha == 0`` or ``k == 0``
        does not read A or B; ``beta == 0`` does not read C.
    A, B, C : cupy.cuda.MemoryPointer
        Element (0, 0) of each matrix (``x.data`` or ``x[off:].data``), 2-byte aligned, with every
        element the sizes and leading dimensions reach inside the allocation.
    lda, ldb, ldc : int
        Leading dimensions (elements).
    batch : int, optional
        Independent gemms in one launch; entry ``b`` uses ``A + b * stride_a`` etc. (elements).
    stride_a, stride_b, stride_c : int, optional
        Batch strides in elements.
    bias : cupy.cuda.MemoryPointer, optional
        ``m`` elements of ``dtype`` added to the rows of C (the same for every batch entry).
    activation : int, optional
        Code of the fused activation (``rocblas._level3.ACTIVATIONS``; 0: none). With a bias or an
        activation, ``alpha == 0`` or ``k == 0`` with ``beta == 1`` still runs.

    Returns
    -------
    callable or None
        The prepared launches (:func:`prepare_gemm_mma`'s ``run``, taking device addresses) for
        a repeated call with the same sizes, layout and alignment; None when nothing ran or the
        operands were first copied into padded buffers.
    """
    _dtype_name(dtype)  # TypeError first for a dtype the matrix cores do not take
    if m == 0 or n == 0 or batch == 0:
        return None
    key = (device_id, dtype, transA, transB, m, n, k, alpha == 0, beta == 1, lda, ldb, ldc, batch, stride_a, stride_b,
           stride_c, bias is not None, activation, A.ptr % CHUNK_BYTES, B.ptr % CHUNK_BYTES)
    launches = _prepared.get(key)
    if launches is None:
        launches = prepare_gemm_mma(device_id, dtype, transA, transB, m, n, k, alpha, A.ptr, lda, B.ptr, ldb, beta,
                                    ldc, batch, stride_a, stride_b, stride_c, bias is not None, activation)
        if launches is not None:
            if len(_prepared) >= _PREPARED_KEPT:
                _prepared.clear()
            _prepared[key] = launches
    bias_address = 0 if bias is None else bias.ptr
    if launches is not None:
        launches(alpha, beta, A.ptr, B.ptr, C.ptr, bias_address)
        return launches
    # sm_90a, operands not 16-byte aligned, a large problem: padded copies for the wgmma kernel
    from rocarray.rocblas import _level3_wgmma as wg  # here: it imports this module

    transA, transB = _norm_trans(transA), _norm_trans(transB)
    with launch.on_device(device_id):
        (A, lda, stride_a), (B, ldb, stride_b), keep = wg.pack_operands(
            device_id, (A, lda, stride_a, m, k, transA == "N"), (B, ldb, stride_b, k, n, transB == "N"), batch)
        launches = prepare_gemm_mma(device_id, dtype, transA, transB, m, n, k, alpha, A.ptr, lda, B.ptr, ldb, beta,
                                    ldc, batch, stride_a, stride_b, stride_c, bias is not None, activation,
                                    packed=True)
        launches(alpha, beta, A.ptr, B.ptr, C.ptr, bias_address)
        del keep  # the padded copies live until their launches are queued
    return None


#: gemm_mma's prepared launches by what :func:`prepare_gemm_mma` decides from (the sizes, layout,
#: ``alpha == 0``, ``beta == 1``, epilogue and the operands' 16-byte alignment), per device.
_prepared = {}
_PREPARED_KEPT = 1024


def _nothing(alpha, beta, A, B, C, bias):
    return None


def prepare_gemm_mma(device_id, dtype, transA, transB, m, n, k, alpha, a_address, lda, b_address, ldb, beta, ldc,
                     batch=1, stride_a=0, stride_b=0, stride_c=0, has_bias=False, activation=0, packed=False):
    """The launches of :func:`gemm_mma` with everything but the call's values worked out.

    The choice depends on the sizes, the leading dimensions and strides, whether ``alpha == 0``
    and ``beta == 1``, and the operands' 16-byte alignment (``a_address``, ``b_address``).

    Returns
    -------
    callable or None
        ``run(alpha, beta, A, B, C, bias)`` taking host scalars and device addresses (ints; bias
        0: none) and launching on ``device_id``; None when the operands first need padded copies
        (unaligned on sm_90a past :data:`rocarray.rocblas._level3_wgmma.PACK_MIN_FLOPS`), which
        ``packed=True`` says were made.
    """
    name = _dtype_name(dtype)
    if m == 0 or n == 0 or batch == 0:
        return _nothing
    if alpha == 0:
        k = 0
    act = numpy.int32(activation)
    if k == 0 and beta == 1 and not has_bias and act == 0:
        return _nothing
    transA, transB = _norm_trans(transA), _norm_trans(transB)
    aligned = packed or use_aligned(a_address, lda, b_address, ldb, k, stride_a, stride_b, batch)
    from rocarray.rocblas import _level3_wgmma as wg  # here: it imports this module

    facts = _device_facts(device_id)
    sm90 = wg.usable(True, is_hip=facts["is_hip"], cc_major=facts["cc_major"], cc_minor=facts["cc_minor"], k=k,
                     sizes=(m, n, k, batch))
    if sm90 and not aligned and 2 * m * n * k * batch >= wg.PACK_MIN_FLOPS:
        return None
    fast = None
    if sm90 and aligned:
        config = wg.choose_config(m, n, batch, multiprocessors=facts["multiprocessors"],
                                  shared_limit=facts["shared_limit"], whole_lines=wg.whole_lines(lda, ldb))
        if config is not None:
            fast = wg.prepare(device_id, name, transA, transB, config, m, n, k, lda, ldb, ldc, batch, stride_a,
                              stride_b, stride_c, facts["multiprocessors"], act)
    fallback = []  # the mma.sync launch, worked out when first needed

    def mma_launch():
        tile_n, stages = choose_config(m, n, batch, is_hip=facts["is_hip"], cc_major=facts["cc_major"],
                                       multiprocessors=facts["multiprocessors"], shared_limit=facts["shared_limit"])
        blocks = grid(m, n, batch, tile_n)
        kernel, _ = _kernel(kernel_name(name, transA, transB, tile_n), device_id)
        nbytes = shared_bytes(tile_n, stages)
        launch.allow_shared(kernel, nbytes)
        i64 = numpy.int64
        sizes = (i64(m), i64(n), i64(k))
        a_layout, b_layout, c_layout = (i64(lda), i64(stride_a)), (i64(ldb), i64(stride_b)), (i64(ldc), i64(stride_c))
        tail = (numpy.int32(aligned), numpy.int32(stages))
        F32, POINTER = prepared_launch.scalar(numpy.float32), prepared_launch.POINTER
        prepared = prepared_launch.PreparedLaunch(
            kernel, blocks, (BLOCK,), sizes + (F32, POINTER) + a_layout + (POINTER,) + b_layout + (F32, POINTER)
            + c_layout + tail + (POINTER, act), shared_mem=nbytes,
            dependent=launch.grid_dependency(facts["is_hip"], facts["cc_major"]))

        def mma(alpha, beta, A, B, C, bias):
            prepared(alpha, A, B, beta, C, bias)
        fallback.append(mma)
        return mma

    if fast is None:
        mma_launch()
    f32 = numpy.float32

    def run(alpha, beta, A, B, C, bias):
        alpha, beta = f32(alpha), f32(beta)
        with launch.on_device(device_id):
            if fast is not None and fast(alpha, beta, A, B, C, bias):
                return
            (fallback[0] if fallback else mma_launch())(alpha, beta, A, B, C, bias)
    return run
