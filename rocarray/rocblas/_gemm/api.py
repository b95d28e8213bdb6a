"""``rocblas.gemm``: the entry point, its argument checks and its warm path.

``gemm(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)`` takes rocBLAS's arguments
in rocBLAS's order, without the handle, with the reference BLAS's semantics:

* matrices are column-major: element ``(i, j)`` of a matrix stored with leading dimension ``ld``
  is buffer element ``i + j * ld``. A buffer is a contiguous ``cupy.ndarray``: 1-D, or a 2-D
  Fortran-ordered array taken as its flat memory. Nothing is copied. ``op(A)`` is ``m x k``, so
  ``A`` is stored ``m x k`` for ``'N'`` and ``k x m`` for ``'T'``/``'C'`` (``lda`` at least its
  stored rows); likewise ``op(B)`` is ``k x n``; ``C`` is ``m x n`` with ``ldc >= max(1, m)``.
* ``m == 0`` or ``n == 0`` does nothing; ``alpha == 0`` or ``k == 0`` does not read ``A`` or
  ``B`` (C is scaled by ``beta``; with ``beta == 1`` it is a no-op); ``beta == 0`` never reads
  ``C``, so NaN or garbage in ``C`` does not propagate.
* argument errors raise before the device is touched (:mod:`rocarray.rocblas._arguments`).
* ``C`` must not overlap ``A`` or ``B`` (as in BLAS; not checked).

Optional fused epilogue: ``C := act(alpha op(A) op(B) + beta C + bias)`` with a bias per row of C
and ``act`` one of :data:`~rocarray.rocblas._gemm.simt.ACTIVATIONS` (real data).

float16 and bfloat16 run on the matrix units (:mod:`rocarray.rocblas._gemm.half`); the other
dtypes on the kernels of ``gemm.hip`` (:mod:`rocarray.rocblas._gemm.simt`), or for float32 on
NVIDIA compute capability 9.0 the three-TF32 path (:mod:`rocarray.rocblas._gemm.tf32x3`), as the
tile choice (:mod:`rocarray.rocblas._gemm.plan`) decides.

Warm path: a repeated call with the same signature (:func:`_warm_key`: types, shapes, strides,
devices, 16-byte alignment, options, sizes) skips the checks and the launch choice, whose outcome
the signature determines, and runs the prepared launches on the new addresses and scalars.
"""

import numpy

from rocarray._core import backend, launch, plans
from rocarray.rocblas._arguments import (STANDARD as _STANDARD, check_bounds, check_ld, check_matrix_buffer,
                                         check_supported, option, scalar_arg, scalars, size)
from rocarray.rocblas._gemm import half, plan
from rocarray.rocblas._gemm.simt import ACT_SHIFT, ACTIVATIONS, BIAS, flags


def check_dtype(fn, dtype):
    """``TypeError`` unless ``dtype`` is one gemm takes: float16/bfloat16 (matrix units) or
    float32/float64/complex64/complex128."""
    dtype = numpy.dtype(dtype)
    if dtype in half.MMA_DTYPES:
        return dtype
    return check_supported(fn, dtype, _STANDARD)


# --------------------------------------------------------------------------------------------
# warm calls
# --------------------------------------------------------------------------------------------

#: Host scalar types whose checks depend on the type alone.
_WARM_SCALARS = frozenset((int, float, complex, numpy.float16, numpy.float32, numpy.float64, numpy.complex64,
                           numpy.complex128))


def _operand_key(X):
    mem = X.data
    return (X.dtype, X.shape, X.strides, mem.device_id, mem.ptr % 16)


def _warm_key(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, bias, activation):
    """The plan-cache key of a gemm call: what its checks and its launch choice depend on besides
    its data addresses and scalar values (types, shapes, strides, devices, 16-byte alignment,
    whether ``alpha == 0`` and ``beta == 1``), or None for a call the warm path does not take
    (subclassed arrays, other scalar or size types, unhashable options). The plan is
    ``run(alpha, beta, A, B, C, bias)`` on the call's arrays."""
    ndarray = backend.cupy().ndarray
    if type(A) is not ndarray or type(B) is not ndarray or type(C) is not ndarray or (
            bias is not None and type(bias) is not ndarray):
        return None
    if type(alpha) not in _WARM_SCALARS or type(beta) not in _WARM_SCALARS:
        return None
    if not (type(m) is int and type(n) is int and type(k) is int and type(lda) is int and type(ldb) is int
            and type(ldc) is int):
        return None
    key = ("rocblas.gemm", transA, transB, m, n, k, lda, ldb, ldc, type(alpha), type(beta), alpha == 0, beta == 1,
           _operand_key(A), _operand_key(B), _operand_key(C), None if bias is None else _operand_key(bias), activation)
    try:
        hash(key)
    except TypeError:
        return None
    return key


# --------------------------------------------------------------------------------------------
# gemm
# --------------------------------------------------------------------------------------------

def gemm(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, *, bias=None, activation=None):
    """``C := act(alpha * op(A) op(B) + beta * C + bias)`` (``rocblas_?gemm``), op(X) = X, X^T or X^H.

    Parameters
    ----------
    transA, transB : {'N', 'T', 'C'}
        op(A) and op(B): the matrix, its transpose, or its conjugate transpose (the transpose for
        real data). Case-insensitive.
    m, n, k : int
        op(A) is m x k, op(B) is k x n, C is m x n (all >= 0). ``m == 0`` or ``n == 0`` does
        nothing; ``k == 0`` scales C by beta.
    alpha : scalar
        Host scalar; complex only for complex data. ``alpha == 0`` does not read A or B.
    A : cupy.ndarray
        Column-major matrix (element (i, j) at ``A[i + j * lda]``; 1-D contiguous buffer or 2-D
        Fortran-ordered array), float16, bfloat16 (with ml_dtypes), float32, float64, complex64
        or complex128: m x k for ``transA='N'``, k x m otherwise. float16 and bfloat16 run on the
        matrix units with float32 accumulation (:mod:`rocarray.rocblas._gemm.half`; alpha,
        beta, the bias and the activation are applied in float32 before the one rounding).
    lda : int
        Leading dimension of A, ``>= max(1, m)`` for 'N', ``>= max(1, k)`` for 'T'/'C'.
    B : cupy.ndarray
        Column-major matrix of A's dtype: k x n for ``transB='N'``, n x k otherwise.
    ldb : int
        Leading dimension of B, ``>= max(1, k)`` for 'N', ``>= max(1, n)`` for 'T'/'C'.
    beta : scalar
        Host scalar; complex only for complex data. ``beta == 0`` does not read C.
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
    float32, float64, complex64 and complex128 run the tiled kernels of ``gemm.hip`` (SIMT, and the
    float64 matrix instructions where the device has them; split-K for long k and few tiles) or,
    for float32 on NVIDIA compute capability 9.0, three TF32 matrix products per product
    (:mod:`rocarray.rocblas._gemm.tf32x3`); :mod:`rocarray.rocblas._gemm.plan` picks the tile.
    float16 and bfloat16 run on the matrix units (:mod:`rocarray.rocblas._gemm.half`).

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
        run = plans.cache.get(key)
        if run is not None:
            run(alpha, beta, A, B, C, bias)
            if launch.observer is not None:
                _note_work(m, n, k, A.dtype.itemsize, A.dtype.kind == "c")
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
    if launch.observer is not None:
        _note_work(m, n, k, dtype.itemsize, dtype.kind == "c")
    if key is not None and run is not None:
        plans.cache.put(key, lambda alpha, beta, A, B, C, bias: run(
            alpha, beta, A.data.ptr, B.data.ptr, C.data.ptr, 0 if bias is None else bias.data.ptr))
    return None


def _note_work(m, n, k, itemsize, complex_):
    """A profiler's bytes and FLOPs of one gemm (A, B read once, C read and written; a complex
    multiply-add is 8 real operations), attached to its last launch."""
    launch.note_work(nbytes=(m * k + k * n + 2 * m * n) * itemsize, flops=(8 if complex_ else 2) * m * n * k)


def _launch_gemm(device, dtype, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, epilogue, bias):
    """The launches of a checked :func:`gemm` on memory pointers (``bias`` one or None): the
    matrix-core path for its dtypes, the SIMT kernels otherwise. Returns ``run(alpha, beta, a, b,
    c, bias)`` that repeats them on addresses (``bias`` 0 for none) on the right device, or None
    when they cannot be repeated that way (the call is then not remembered)."""
    if dtype in half.MMA_DTYPES:
        launches = half.launch(device, dtype, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                               bias=bias, activation=(epilogue >> ACT_SHIFT) & 0xF)
        return launches if callable(launches) else None  # half.launch switches devices itself
    launches = plan.launch(device, dtype, m, n, k, scalar_arg(alpha, dtype), A, lda, B, ldb, scalar_arg(beta, dtype),
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
    signature (sizes, leading dimensions, the pointers' 16-byte alignment) are its plan, kept in
    the plan cache as :func:`gemm`'s warm path keeps its own, so a repeated call costs one
    dictionary lookup and the launches.
    """
    device = A.device_id
    key = ("rocblas.gemm.checked", dtype, transA, transB, m, n, k, lda, ldb, ldc, device, A.ptr % 16, B.ptr % 16,
           C.ptr % 16)
    run = plans.cache.get(key)
    if run is not None:
        run(A.ptr, B.ptr, C.ptr)
        return
    run = _launch_gemm(device, dtype, transA, transB, m, n, k, 1.0, A, lda, B, ldb, 0.0, C, ldc, 0, None)
    if run is not None:
        plans.cache.put(key, lambda a, b, c: run(1.0, 0.0, a, b, c, 0))


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
