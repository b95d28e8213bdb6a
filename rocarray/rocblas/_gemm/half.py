"""float16 and bfloat16 gemm on the matrix units: the sm_90a warpgroup kernel where it runs, the
``mma.sync`` kernel elsewhere.

Semantics (rocBLAS's ``rocblas_gemm_ex`` with ``compute_type = f32``): ``A``, ``B`` and ``C`` have
one 16-bit dtype; products are summed in float32 and ``alpha``/``beta`` are float32 host scalars;
the result ``alpha * op(A) op(B) + beta * C`` is computed in float32 and rounded once (to nearest
even) to C's dtype. ``op(X)`` is ``X`` or ``X^T`` ('C' is 'T' for real data). ``alpha == 0`` or
``k == 0`` does not read A or B; ``beta == 0`` does not read C.

bfloat16 is the ``ml_dtypes.bfloat16`` NumPy dtype, which CuPy 14 arrays carry when ``ml_dtypes``
is installed; without ``ml_dtypes`` no CuPy array can have that dtype and :data:`MMA_DTYPES` is
float16 alone (the bfloat16 kernels are still compiled by the compile matrix).

Which kernel (:func:`prepare`): on compute capability 9.0, operands that move as 16-byte chunks
and ``k >= 1`` take the warpgroup kernel (:mod:`rocarray.rocblas._gemm.wgmma`: TMA copies, split
k); unaligned operands past :data:`rocarray.rocblas._gemm.wgmma.PACK_MIN_FLOPS` are first copied
into padded buffers for it, and so is a matrix shared by every batch entry (a zero batch stride,
which no tensor map holds), once per entry; everything else, and a driver that refuses a tensor
map, takes the ``mma.sync`` kernel (:mod:`rocarray.rocblas._gemm.mma`). :func:`launch` is the entry of both,
called by :func:`rocarray.rocblas.gemm` and the strided-batched gemm after their checks.
"""

import numpy

from rocarray._core import launch as _launch, plans
from rocarray.rocblas._gemm import mma, wgmma
from rocarray.rocblas._gemm.mma import MMA_DTYPES, CHUNK_BYTES, dtype_name, use_aligned

__all__ = ["MMA_DTYPES", "launch", "prepare"]


def launch(device_id, dtype, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
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
        Code of the fused activation (:data:`rocarray.rocblas._gemm.simt.ACTIVATIONS`; 0: none). With a bias or an
        activation, ``alpha == 0`` or ``k == 0`` with ``beta == 1`` still runs.

    Returns
    -------
    callable or None
        The prepared launches (:func:`prepare`'s ``run``, taking device addresses) for
        a repeated call with the same sizes, layout and alignment; None when nothing ran or the
        operands were first copied into padded buffers.
    """
    dtype_name(dtype)  # TypeError first for a dtype the matrix cores do not take
    if m == 0 or n == 0 or batch == 0:
        return None
    key = ("rocblas.gemm.half", device_id, dtype, transA, transB, m, n, k, alpha == 0, beta == 1, lda, ldb, ldc, batch,
           stride_a, stride_b, stride_c, bias is not None, activation, A.ptr % CHUNK_BYTES, B.ptr % CHUNK_BYTES)
    launches = plans.cache.lookup(key, lambda: prepare(
        device_id, dtype, transA, transB, m, n, k, alpha, A.ptr, lda, B.ptr, ldb, beta, ldc, batch, stride_a, stride_b,
        stride_c, bias is not None, activation))
    bias_address = 0 if bias is None else bias.ptr
    if launches is not None:
        launches(alpha, beta, A.ptr, B.ptr, C.ptr, bias_address)
        return launches
    # sm_90a, operands not 16-byte aligned or shared by the batch, a large problem: padded copies
    # for the wgmma kernel
    transA, transB = _norm_trans(transA), _norm_trans(transB)
    with _launch.on_device(device_id):
        (A, lda, stride_a), (B, ldb, stride_b), keep = wgmma.pack_operands(
            device_id, (A, lda, stride_a, m, k, transA == "N"), (B, ldb, stride_b, k, n, transB == "N"), batch)
        packed = ("rocblas.gemm.half.packed", device_id, dtype, transA, transB, m, n, k, alpha == 0, beta == 1, lda,
                  ldb, ldc, batch, stride_a, stride_b, stride_c, bias is not None, activation)
        launches = plans.cache.lookup(packed, lambda: prepare(
            device_id, dtype, transA, transB, m, n, k, alpha, A.ptr, lda, B.ptr, ldb, beta, ldc, batch, stride_a,
            stride_b, stride_c, bias is not None, activation, packed=True))
        launches(alpha, beta, A.ptr, B.ptr, C.ptr, bias_address)
        del keep  # the padded copies live until their launches are queued
    return None


def _nothing(alpha, beta, A, B, C, bias):
    return None


def prepare(device_id, dtype, transA, transB, m, n, k, alpha, a_address, lda, b_address, ldb, beta, ldc,
            batch=1, stride_a=0, stride_b=0, stride_c=0, has_bias=False, activation=0, packed=False):
    """The launches of :func:`launch` with everything but the call's values worked out.

    The choice depends on the sizes, the leading dimensions and strides, whether ``alpha == 0``
    and ``beta == 1``, and the operands' 16-byte alignment (``a_address``, ``b_address``).

    Returns
    -------
    callable or None
        ``run(alpha, beta, A, B, C, bias)`` taking host scalars and device addresses (ints; bias
        0: none) and launching on ``device_id``; None when the operands first need padded copies
        (unaligned, or shared by the batch, on sm_90a past
        :data:`rocarray.rocblas._gemm.wgmma.PACK_MIN_FLOPS`), which ``packed=True`` says were made.
    """
    name = dtype_name(dtype)
    if m == 0 or n == 0 or batch == 0:
        return _nothing
    if alpha == 0:
        k = 0
    act = numpy.int32(activation)
    if k == 0 and beta == 1 and not has_bias and act == 0:
        return _nothing
    transA, transB = _norm_trans(transA), _norm_trans(transB)
    aligned = packed or use_aligned(a_address, lda, b_address, ldb, k, stride_a, stride_b, batch)
    # a tensor map needs aligned operands and a positive batch stride
    mappable = packed or (aligned and (batch <= 1 or (stride_a != 0 and stride_b != 0)))
    facts = mma.device_facts(device_id)
    sm90 = wgmma.usable(True, is_hip=facts["is_hip"], cc_major=facts["cc_major"], cc_minor=facts["cc_minor"], k=k,
                        sizes=(m, n, k, batch))
    if sm90 and not mappable and 2 * m * n * k * batch >= wgmma.PACK_MIN_FLOPS:
        return None
    fast = None
    if sm90 and mappable:
        config = wgmma.choose_config(m, n, batch, multiprocessors=facts["multiprocessors"],
                                     shared_limit=facts["shared_limit"], whole_lines=wgmma.whole_lines(lda, ldb))
        if config is not None:
            fast = wgmma.prepare(device_id, name, transA, transB, config, m, n, k, lda, ldb, ldc, batch, stride_a,
                                 stride_b, stride_c, facts["multiprocessors"], act)
    fallback = []  # the mma.sync launch, worked out when first needed

    def mma_launch():
        fallback.append(mma.prepare(device_id, name, transA, transB, m, n, k, lda, ldb, ldc, batch, stride_a,
                                    stride_b, stride_c, aligned, act, facts))
        return fallback[0]

    if fast is None:
        mma_launch()
    f32 = numpy.float32

    def run(alpha, beta, A, B, C, bias):
        alpha, beta = f32(alpha), f32(beta)
        with _launch.on_device(device_id):
            if fast is not None and fast(alpha, beta, A, B, C, bias):
                return
            (fallback[0] if fallback else mma_launch())(alpha, beta, A, B, C, bias)
    return run


def _norm_trans(t):
    t = str(t).upper()
    return "N" if t == "N" else "T"
