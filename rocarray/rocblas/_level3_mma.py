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
One kernel template, ``ra_rocblas_gemm_mma<T, A_KMAJOR, B_KMAJOR>`` (8 instantiations): the
transposes decide which operand tiles are k-major in memory (``A_KMAJOR``: transA != 'N';
``B_KMAJOR``: transB == 'N'). The last kernel argument picks the copy variant at run time (one
uniform branch, so it costs no instantiations): aligned (16-byte chunks, ``cp.async`` on NVIDIA)
needs both A and B 16-byte aligned with ``lda``, ``ldb`` (and the batch strides) multiples of 8
elements; otherwise the predicated element-by-element copies run (slower, same results).

Expected speed (H200, a prediction to be measured): 128 x 128 x 32 block tiles with 8 warps of
``mma.sync.m16n8k16`` and a 3-stage ``cp.async`` pipeline. The dense FP16 tensor peak (990
TFLOP/s) needs Hopper's ``wgmma``; ``mma.sync`` issues at about 60-70% of it, and this kernel's
per-warp 64 x 32 tile reads 6 ldmatrix.x4 per 16 mma, so expect 350-550 TFLOP/s on 8192^3
(0.5-0.75x of cuBLAS's 738). Global traffic per block tile: (128 + 128) x 32 x 2 bytes per
2 x 128 x 128 x 32 FLOPs = 64 FLOP/byte of L2 traffic, far from the memory floor.
"""

import numpy

from rocarray._core import compile as _compile, launch
from rocarray.rocblas import _level1

SOURCE = "rocblas/gemm_mma.hip"

#: Threads per block (``RA_GEMM_MMA_BLOCK``).
BLOCK = 256
#: Rows and columns of C one block computes (``RA_GEMM_MMA_BM`` = ``RA_GEMM_MMA_BN``).
TILE = 128
#: k per shared-memory stage (``RA_GEMM_MMA_BK``).
BK = 32
#: Elements per 16-byte chunk: aligned copies need leading dimensions (and strides) that are multiples.
CHUNK = 8
#: Byte alignment of A and B for aligned copies.
CHUNK_BYTES = 16
#: Resident blocks per multiprocessor assumed for the occupancy query (48 KB shared each).
BLOCKS_PER_MULTIPROCESSOR = 2
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


def kernel_name(dtype_name, transA, transB):
    """Name expression of the kernel, e.g. ``'ra_rocblas_gemm_mma<ra_half, false, true>'`` for 'N', 'N'."""
    a_kmajor = "true" if transA != "N" else "false"
    b_kmajor = "true" if transB == "N" else "false"
    return f"ra_rocblas_gemm_mma<{CTYPE_BY_NAME[dtype_name]}, {a_kmajor}, {b_kmajor}>"


def instantiations():
    """Every name expression this module launches: 2 dtypes x 4 transposes."""
    return sorted(kernel_name(d, ta, tb) for d in CTYPE_BY_NAME for ta in "NT" for tb in "NT")


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


def grid(m, n, batch=1):
    """``(tiles, batch)``: one block per 128 x 128 tile of C (tiles of m fastest) per batch entry."""
    blocks = -(-m // TILE) * -(-n // TILE)
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


def gemm_mma(device_id, dtype, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
             batch=1, stride_a=0, stride_b=0, stride_c=0):
    """``C := alpha op(A) op(B) + beta C`` on the matrix cores, unchecked (the caller has checked).

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

    Returns
    -------
    None
    """
    name = _dtype_name(dtype)
    if m == 0 or n == 0 or batch == 0:
        return None
    alpha = numpy.float32(alpha)
    beta = numpy.float32(beta)
    if alpha == 0:
        k = 0
    if k == 0 and beta == 1:
        return None
    transA, transB = _norm_trans(transA), _norm_trans(transB)
    aligned = use_aligned(A.ptr, lda, B.ptr, ldb, k, stride_a, stride_b, batch)
    i64 = numpy.int64
    with _level1._on_device(device_id):
        kernel, _ = _kernel(kernel_name(name, transA, transB), device_id)
        kernel(grid(m, n, batch), (BLOCK,),
               (i64(m), i64(n), i64(k), alpha, A, i64(lda), i64(stride_a), B, i64(ldb), i64(stride_b),
                beta, C, i64(ldc), i64(stride_c), numpy.int32(aligned)))
    return None
