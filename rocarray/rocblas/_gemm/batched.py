"""rocBLAS batched gemm (hipBLASLt's role): many independent gemms in one call.

``gemm_strided_batched`` and ``gemm_batched`` take rocBLAS's arguments in rocBLAS's order, without
the handle, with the reference BLAS's semantics for every matrix (as :func:`rocblas.gemm
<rocarray.rocblas._gemm.api.gemm>`): column-major matrices (element ``(i, j)`` of a matrix with
leading dimension ``ld`` at element ``i + j * ld``), ``alpha == 0`` or ``k == 0`` reads neither A
nor B, ``beta == 0`` never reads C, argument errors raise before the device is touched.

* Strided mode: matrix ``b`` of an operand starts ``b * stride`` elements after matrix 0 in one
  buffer (a 1-D ``cupy.ndarray`` or any contiguous array, taken as its flat memory). A stride of 0
  broadcasts one A or B to every product. C matrices must not overlap:
  ``stride_c >= ldc * n`` when ``batch_count > 1``, else ``ValueError``, as rocBLAS requires.
* Pointer-array mode: ``A_array``, ``B_array``, ``C_array`` are device arrays of 64-bit device
  pointers (``uint64`` or ``int64``), one per matrix, like rocBLAS's arrays of pointers. Build them
  from cupy arrays with ``cupy.asarray([x.data.ptr for x in mats], dtype=cupy.uint64)``; the
  matrices they point to must stay alive, be on the arrays' device, hold the matrices described
  by the sizes and leading dimensions, and be aligned to their element size (a complex128 matrix
  to 16 bytes). Nothing behind the pointers can be checked on the host.

How it runs: see :mod:`rocarray.rocblas._gemm.batched_kernels`. Small matrices
(``max(m, n) <= 64``) run one kernel in which a block computes whole matrices, several at a time
(16 of 8 x 8, 4 of 32 x 32), staging each operand tile in shared memory once: every matrix is read
once and written once, so the kernel is bound by memory bandwidth (small products do few flops a
byte). Larger matrices in strided mode run the level-3 tiled gemm with its batch grid; in
pointer-array mode the batched kernel's 64 x 64 tiles, or, for at most 64 products of
``m n k >= 512^3``, the level-3 gemm once per product on host copies of the pointers.
"""

import numpy

from rocarray._core import plans
from rocarray.rocblas._gemm import batched_kernels, half
from rocarray.rocblas._arguments import (ALIGNMENT, check_ld, check_supported, option, require_device_array, scalar_arg,
                                         scalars, size)


#: Element dtypes of the batched routines.
SUPPORTED = batched_kernels.DTYPES

#: Integer dtypes accepted for the pointer arrays of :func:`gemm_batched`.
POINTER_DTYPES = (numpy.dtype(numpy.uint64), numpy.dtype(numpy.int64))


# --------------------------------------------------------------------------------------------
# argument checks (no device access)
# --------------------------------------------------------------------------------------------

def check_dtype(fn, dtype, sixteen_bit=False):
    """The ``numpy.dtype`` if it is float32/float64/complex64/complex128 (and, with ``sixteen_bit``,
    float16/bfloat16 on the matrix units), else ``TypeError``.

    :func:`gemm_strided_batched` takes the 16-bit types (the matrix-core kernel's batch grid);
    :func:`gemm_batched` (pointer arrays) does not: ``TypeError`` says so.
    """
    dtype = numpy.dtype(dtype)
    if sixteen_bit and dtype in half.MMA_DTYPES:
        return dtype
    return check_supported(fn, dtype, SUPPORTED)


def _check_flat_buffer(X, fn, name):
    """``X`` if it is a device array whose elements are one contiguous run (C or Fortran order)."""
    require_device_array(X, name, fn)
    if not (X.flags.c_contiguous or X.flags.f_contiguous):
        raise ValueError(
            f"rocblas.{fn}: {name} must be a contiguous buffer (C or Fortran order), got shape {X.shape} "
            f"with strides {X.strides}"
        )
    return X


def _check_stride(stride, name, fn):
    return size(stride, name, fn)  # a non-negative integer, as sizes


def _check_strided_bounds(X, rows, cols, ld, stride, batch, name, fn):
    """``batch`` ``rows x cols`` matrices ``stride`` apart fit in X, which is element-aligned."""
    need = (batch - 1) * stride + (cols - 1) * ld + rows
    if need > X.size:
        raise ValueError(
            f"rocblas.{fn}: {batch} matrices of {rows} x {cols} with ld{name.lower()}={ld} and "
            f"stride_{name.lower()}={stride} need {need} elements of {name}, but the buffer has {X.size}"
        )
    align = ALIGNMENT.get(X.dtype, X.dtype.itemsize)
    if X.data.ptr % align:
        raise ValueError(f"rocblas.{fn}: {name} is not aligned to {align} bytes (data pointer 0x{X.data.ptr:x})")


def _check_pointer_array(P, batch, name, fn):
    """``P`` if it is a device array of at least ``batch`` 64-bit pointers with unit stride."""
    require_device_array(
        P, name, fn, kind="a cupy.ndarray of device pointers",
        host_hint="the pointer arrays live on the device (cupy.asarray([x.data.ptr for x in mats], dtype=cupy.uint64))")
    if P.dtype not in POINTER_DTYPES:
        raise TypeError(f"rocblas.{fn}: {name} must hold 64-bit pointers (uint64 or int64), got {P.dtype.name}")
    if P.ndim != 1 or (P.size > 1 and P.strides[0] != P.dtype.itemsize):
        raise ValueError(f"rocblas.{fn}: {name} must be a contiguous 1-D array, got shape {P.shape} "
                         f"with strides {P.strides}")
    if P.size < batch:
        raise ValueError(f"rocblas.{fn}: {name} has {P.size} pointers, fewer than batch_count={batch}")
    return P


def _check_same(fn, first, others, what):
    """The dtype (``what='dtype'``) or device of every named array matches ``first``'s."""
    for name, X in others:
        if what == "dtype" and X.dtype != first.dtype:
            raise TypeError(f"rocblas.{fn}: {name} must have the dtype of A ({first.dtype.name}), "
                            f"got {X.dtype.name}")
        if X.data.device_id != first.data.device_id:
            raise ValueError(f"rocblas.{fn}: {name} is on device {X.data.device_id} but A is on device "
                             f"{first.data.device_id}")


def _common(fn, transA, transB, m, n, k, batch_count, lda, ldb, ldc):
    """Options, sizes and leading dimensions shared by both modes, checked in rocBLAS's order."""
    transA = option(transA, "transA", fn)
    transB = option(transB, "transB", fn)
    m, n, k = size(m, "m", fn), size(n, "n", fn), size(k, "k", fn)
    batch = size(batch_count, "batch_count", fn)
    a_rows, a_cols = (m, k) if transA == "N" else (k, m)
    b_rows, b_cols = (k, n) if transB == "N" else (n, k)
    lda = check_ld(lda, a_rows, "lda", fn)
    ldb = check_ld(ldb, b_rows, "ldb", fn)
    ldc = check_ld(ldc, m, "ldc", fn)
    return transA, transB, m, n, k, batch, (a_rows, a_cols), (b_rows, b_cols), lda, ldb, ldc


def _nothing_to_do(m, n, k, batch, alpha, beta):
    """``(skip, scale_only)``: whether no matrix changes, and whether C is only scaled by beta."""
    scale_only = alpha == 0 or k == 0
    return (m == 0 or n == 0 or batch == 0 or (scale_only and beta == 1)), scale_only


# --------------------------------------------------------------------------------------------
# gemm_strided_batched
# --------------------------------------------------------------------------------------------

def gemm_strided_batched(transA, transB, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc,
                         stride_c, batch_count):
    """``C_b := alpha * op(A_b) op(B_b) + beta * C_b`` for ``b < batch_count`` (``rocblas_?gemm_strided_batched``).

    Matrix ``b`` of each operand starts ``b * stride`` elements after matrix 0 in its buffer.

    Parameters
    ----------
    transA, transB : {'N', 'T', 'C'}
        op(A) and op(B): the matrix, its transpose, or its conjugate transpose (the transpose for
        real data). Case-insensitive.
    m, n, k : int
        op(A_b) is m x k, op(B_b) is k x n, C_b is m x n (all >= 0). ``m == 0`` or ``n == 0`` does
        nothing; ``k == 0`` scales every C_b by beta.
    alpha : scalar
        Host scalar; complex only for complex data. ``alpha == 0`` does not read A or B.
    A : cupy.ndarray
        Contiguous buffer (1-D, or any C- or Fortran-ordered array taken as its flat memory) of
        float16, bfloat16 (matrix units, float32 accumulation), float32, float64, complex64 or
        complex128 holding the column-major matrices A_b:
        m x k for ``transA='N'``, k x m otherwise.
    lda : int
        Leading dimension of each A_b, ``>= max(1, m)`` for 'N', ``>= max(1, k)`` for 'T'/'C'.
    stride_a : int
        Elements from A_b to A_(b+1), ``>= 0``; 0 uses one A for every product.
    B : cupy.ndarray
        Buffer of A's dtype holding the matrices B_b: k x n for ``transB='N'``, n x k otherwise.
    ldb : int
        Leading dimension of each B_b, ``>= max(1, k)`` for 'N', ``>= max(1, n)`` for 'T'/'C'.
    stride_b : int
        Elements from B_b to B_(b+1), ``>= 0``; 0 uses one B for every product.
    beta : scalar
        Host scalar; complex only for complex data. ``beta == 0`` does not read C.
    C : cupy.ndarray
        Buffer of A's dtype holding the m x n matrices C_b, updated in place; must not overlap A
        or B. Elements between the matrices are left untouched.
    ldc : int
        Leading dimension of each C_b, ``>= max(1, m)``.
    stride_c : int
        Elements from C_b to C_(b+1); ``>= ldc * n`` when ``batch_count > 1`` (the C matrices must
        not overlap).
    batch_count : int
        Number of products (>= 0); 0 does nothing.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or mismatched
        dtypes, complex scalars with real data, non-integer sizes, strides or batch_count.
    ValueError
        Invalid ``transA``/``transB``, negative sizes, strides or batch_count, a leading dimension
        too small, ``stride_c < ldc * n`` with more than one matrix, non-contiguous, too short
        or misaligned buffers.

    Notes
    -----
    A C-ordered stack ``a3 @ b3`` (shapes ``(batch, m, k)`` and ``(batch, k, n)``, result
    ``(batch, m, n)``) is, column-major, ``C^T = B^T A^T``: the same buffers run without copies as
    ``gemm_strided_batched('N', 'N', n, m, k, 1, b3, n, k * n, a3, k, m * k, 0, c3, n, m * n, batch)``.
    See :mod:`rocarray.rocblas._gemm.batched_kernels` for the kernels.

    Examples
    --------
    >>> a3 = cupy.random.standard_normal((1000, 8, 4), dtype=cupy.float32)
    >>> b3 = cupy.random.standard_normal((1000, 4, 6), dtype=cupy.float32)
    >>> c3 = cupy.empty((1000, 8, 6), dtype=cupy.float32)
    >>> ra.rocblas.gemm_strided_batched('N', 'N', 6, 8, 4, 1.0, b3, 6, 24, a3, 4, 32,
    ...                                 0.0, c3, 6, 48, 1000)              # doctest: +SKIP
    >>> bool(cupy.allclose(c3, a3 @ b3, atol=1e-5))                         # doctest: +SKIP
    True
    """
    fn = "gemm_strided_batched"
    transA, transB, m, n, k, batch, (ar, ac), (br, bc), lda, ldb, ldc = _common(
        fn, transA, transB, m, n, k, batch_count, lda, ldb, ldc)
    stride_a = _check_stride(stride_a, "stride_a", fn)
    stride_b = _check_stride(stride_b, "stride_b", fn)
    stride_c = _check_stride(stride_c, "stride_c", fn)
    if batch > 1 and stride_c < ldc * n:
        raise ValueError(f"rocblas.{fn}: stride_c must be >= ldc * n = {ldc * n} when batch_count > 1 "
                         f"(C matrices must not overlap), got {stride_c}")
    for name, X in (("A", A), ("B", B), ("C", C)):
        _check_flat_buffer(X, fn, name)
    dtype = check_dtype(fn, A.dtype, sixteen_bit=True)
    _check_same(fn, A, (("B", B), ("C", C)), "dtype")
    scalars(fn, dtype, alpha=alpha, beta=beta)
    skip, scale_only = _nothing_to_do(m, n, k, batch, alpha, beta)
    if m == 0 or n == 0 or batch == 0:
        return None
    if k > 0:
        _check_strided_bounds(A, ar, ac, lda, stride_a, batch, "A", fn)
        _check_strided_bounds(B, br, bc, ldb, stride_b, batch, "B", fn)
    _check_strided_bounds(C, m, n, ldc, stride_c, batch, "C", fn)
    if skip:
        return None
    launch_checked(dtype, transA, transB, m, n, 0 if scale_only else k, alpha, A.data, lda, stride_a, B.data, ldb,
                   stride_b, beta, C.data, ldc, stride_c, batch)
    return None


def launch_checked(dtype, transA, transB, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc,
                   stride_c, batch):
    """The launches of :func:`gemm_strided_batched` for arguments that already passed its checks
    (or that a caller built valid by construction, as the façade's layout mapping does): ``A``,
    ``B``, ``C`` memory pointers to matrix 0, normalized options, ``m, n, batch >= 1``. Nothing is
    checked here.

    The launches of a repeated signature (options, sizes, scalars, leading dimensions, strides,
    batch, device, the pointers' 16-byte alignment) are its plan in the plan cache, as
    :func:`rocarray.rocblas.gemm` keeps its own: a repeat costs a dictionary lookup and the
    prepared launches."""
    device = A.device_id
    key = ("rocblas.gemm_strided_batched.checked", dtype, transA, transB, m, n, k, alpha, beta, lda, ldb, ldc, stride_a,
           stride_b, stride_c, batch, device, A.ptr % 16, B.ptr % 16, C.ptr % 16)
    try:
        run = plans.cache.get(key)
    except TypeError:  # an unhashable scalar: not remembered
        key = run = None
    if run is not None:
        run(A.ptr, B.ptr, C.ptr)
        return
    if dtype in half.MMA_DTYPES:  # float32 accumulation on the matrix units
        launches = half.launch(device, dtype, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                               batch=batch, stride_a=stride_a, stride_b=stride_b, stride_c=stride_c)
        if key is not None and callable(launches):  # half.launch switches devices itself
            plans.cache.put(key, lambda a, b, c: launches(alpha, beta, a, b, c, 0))
        return
    kernel_alpha, kernel_beta = scalar_arg(alpha, dtype), scalar_arg(beta, dtype)
    again = batched_kernels.launch_strided(
        device, dtype, m, n, k, kernel_alpha, A, lda, stride_a, B, ldb, stride_b, kernel_beta, C, ldc, stride_c, batch,
        batched_kernels.flags(transA, transB, dtype))
    if key is not None and callable(again):
        plans.cache.put(key, lambda a, b, c: again(kernel_alpha, kernel_beta, a, b, c))


# --------------------------------------------------------------------------------------------
# gemm_batched (arrays of pointers)
# --------------------------------------------------------------------------------------------

def gemm_batched(transA, transB, m, n, k, alpha, A_array, lda, B_array, ldb, beta, C_array, ldc, batch_count,
                 *, dtype):
    """``C_b := alpha * op(A_b) op(B_b) + beta * C_b`` for ``b < batch_count`` (``rocblas_?gemm_batched``).

    The matrices are given by device arrays of device pointers, one per matrix: ``A_array``,
    ``B_array`` and ``C_array`` are 1-D contiguous device arrays (uint64 or int64) of at least
    ``batch_count`` device pointers to the column-major matrices A_b, B_b, C_b, e.g.
    ``cupy.asarray([x.data.ptr for x in mats], dtype=cupy.uint64)``. The matrices must be on the
    arrays' device, aligned to their element size, hold what the sizes and leading dimensions
    describe (not checkable on the host), and stay alive until the work is done; distinct C_b
    must not overlap each other or any A or B.

    Parameters
    ----------
    transA, transB : {'N', 'T', 'C'}
        op(A) and op(B), as in :func:`gemm_strided_batched`.
    m, n, k : int
        op(A_b) is m x k, op(B_b) is k x n, C_b is m x n (all >= 0).
    alpha : scalar
        Host scalar; complex only for complex data. ``alpha == 0`` does not read A or B.
    A_array : cupy.ndarray
        Pointers to the matrices A_b (see above).
    lda : int
        Leading dimension of each A_b, as in :func:`gemm_strided_batched`.
    B_array : cupy.ndarray
        Pointers to the matrices B_b (see above).
    ldb : int
        Leading dimension of each B_b, as in :func:`gemm_strided_batched`.
    beta : scalar
        Host scalar; complex only for complex data. ``beta == 0`` does not read C.
    C_array : cupy.ndarray
        Pointers to the matrices C_b (see above), updated in place.
    ldc : int
        Leading dimension of each C_b, as in :func:`gemm_strided_batched`.
    batch_count : int
        Number of products (>= 0); 0 does nothing.
    dtype : dtype
        Element type of every matrix (float32, float64, complex64 or complex128): rocBLAS's
        type prefix (``rocblas_sgemm_batched`` is ``dtype=numpy.float32``), which the pointer
        arrays cannot carry.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Pointer arrays that are not CuPy arrays of uint64/int64, an unsupported dtype, complex
        scalars with real data, non-integer sizes or batch_count.
    ValueError
        Invalid ``transA``/``transB``, negative sizes or batch_count, a leading dimension too
        small, pointer arrays that are not 1-D contiguous, hold fewer than ``batch_count``
        pointers or live on different devices.

    Notes
    -----
    Usually one launch, with the pointer arrays read on the device only (no copy to the host, no
    synchronization). Only for at most 64 products of ``m n k >= 512^3`` each are the pointers
    copied to the host (a synchronizing copy of at most 1.5 KB) to run the tuned level-3 gemm
    once per product. See :mod:`rocarray.rocblas._gemm.batched_kernels`.

    Examples
    --------
    >>> mats = [cupy.asfortranarray(cupy.random.standard_normal((5, 5))) for _ in range(3)]
    >>> outs = [cupy.zeros((5, 5), order='F') for _ in range(3)]
    >>> ptrs = lambda xs: cupy.asarray([x.data.ptr for x in xs], dtype=cupy.uint64)
    >>> ra.rocblas.gemm_batched('N', 'T', 5, 5, 5, 1.0, ptrs(mats), 5, ptrs(mats), 5, 0.0,
    ...                         ptrs(outs), 5, 3, dtype=cupy.float64)      # doctest: +SKIP
    """
    fn = "gemm_batched"
    transA, transB, m, n, k, batch, _, _, lda, ldb, ldc = _common(
        fn, transA, transB, m, n, k, batch_count, lda, ldb, ldc)
    for name, P in (("A_array", A_array), ("B_array", B_array), ("C_array", C_array)):
        _check_pointer_array(P, batch, name, fn)
    dtype = check_dtype(fn, dtype)
    for name, P in (("B_array", B_array), ("C_array", C_array)):
        if P.data.device_id != A_array.data.device_id:
            raise ValueError(f"rocblas.{fn}: {name} is on device {P.data.device_id} but A_array is on device "
                             f"{A_array.data.device_id}")
    scalars(fn, dtype, alpha=alpha, beta=beta)
    skip, scale_only = _nothing_to_do(m, n, k, batch, alpha, beta)
    if skip:
        return None
    batched_kernels.launch_pointers(
        A_array.data.device_id, dtype, m, n, 0 if scale_only else k, scalar_arg(alpha, dtype), A_array, lda,
        B_array, ldb, scalar_arg(beta, dtype), C_array, ldc, batch, batched_kernels.flags(transA, transB, dtype))
    return None
