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
This is the portable SIMT path: one kernel template per dtype (float32, float64, complex64,
complex128; the transposes are runtime flags), which compiles and runs everywhere. The
matrix-core paths (MFMA, mma.sync/wgmma) and the tuning DB's tile choice come later.

A block of 256 threads owns a 64 x 64 tile of C; each thread accumulates a 4 x 4 register
micro-tile (rows ``tx + 16 r``, columns ``ty + 16 c``) over k tiles of 16 (8 for complex) held in
double-buffered shared memory. Both operand tiles are read from global memory along their
contiguous dimension (for 'T'/'C' A and 'N' B the tile is transposed while it is stored) and the
next k tile is loaded into registers while the current one is multiplied. Registers (no spills):
sm_90 48-144 per thread; gfx90a 102-174 VGPRs (the k loop is unrolled by 4, not fully: a full
unroll took float to 246 VGPRs there).

Expected speed on an H200 (a prediction, to be measured): the tile reuses each loaded element
64 times, so global traffic is ``2 m n k / 64 * itemsize`` (8192^3 float32: 69 GB, 16 ms at
4.3 TB/s, mostly L2 hits) — not the bound. The bound is the inner loop: per k step a warp issues
16 FMA instructions and 8 shared-memory loads; the SM issues 4 FP32 FMA warp-instructions per clock
but about 1 shared-memory load, so float32 is held to about half the SIMT peak (67 TFLOP/s):
expect 15-25 TFLOP/s, 0.3-0.5x cuBLAS's 50.8 (the >= 0.9x target needs larger micro-tiles with
vector shared loads or the tensor-core path). float64: cuBLAS's 56 TFLOP/s uses the FP64 tensor
cores; the SIMT FP64 peak is 34, and this kernel should reach 10-20 TFLOP/s (0.2-0.35x).
Complex types do 4 FMAs per multiply-add for the same loads, so they come closer to the SIMT peak.
Small problems are bound by the number of 64 x 64 tiles: 1000^3 makes 256 blocks on 132 SMs.
"""

import numpy

from rocarray._core import compile as _compile, launch
from rocarray.rocblas import _level1
from rocarray.rocblas._level1 import _as_int, scalar_arg
from rocarray.rocblas._level2 import _STANDARD, _check_matrix_buffer, _scalars, _size

SOURCE = "rocblas/gemm.hip"

#: Threads per block (``RA_ROCBLAS3_BLOCK`` in the source).
BLOCK = 256
#: Rows and columns of C one block computes (``RA_ROCBLAS3_TILE``).
TILE = 64
#: Resident blocks per multiprocessor assumed for the occupancy query.
BLOCKS_PER_MULTIPROCESSOR = 2048 // BLOCK
#: Largest 1-D grid.
MAX_GRID = 2**31 - 1

# flag bits (``RA_ROCBLAS3_*`` in the source)
TRANS_A, CONJ_A, TRANS_B, CONJ_B = 1, 2, 4, 8

#: Kernel element type of each supported dtype.
CTYPES = {d: _level1.CTYPES[d] for d in _STANDARD}

_NOT_YET = ("float16", "bfloat16")


def kernel_name(dtype):
    """Name expression of the gemm kernel for ``dtype``, e.g. ``'ra_rocblas_gemm<float>'``."""
    return f"ra_rocblas_gemm<{CTYPES[numpy.dtype(dtype)]}>"


def instantiations():
    """Every name expression this module launches (registered with the compile layer)."""
    return sorted(kernel_name(d) for d in _STANDARD)


_compile.register(SOURCE, instantiations())


# --------------------------------------------------------------------------------------------
# argument checks (no device access)
# --------------------------------------------------------------------------------------------

_cupy = launch.cupy


def check_dtype(fn, dtype):
    """Raise ``TypeError`` unless ``dtype`` is float32/float64/complex64/complex128."""
    dtype = numpy.dtype(dtype)
    if dtype not in _STANDARD:
        supported = _level1._dtype_names(_STANDARD)
        if dtype.name in _NOT_YET:
            raise TypeError(f"rocblas.{fn}: {dtype.name} is not supported yet; supported: {supported}")
        raise TypeError(f"rocblas.{fn}: unsupported dtype {dtype.name}; supported: {supported}")
    return dtype


def option(value, name, fn):
    """``'N'``, ``'T'`` or ``'C'`` (case-insensitive) for ``transA``/``transB``; ``ValueError`` if invalid."""
    if isinstance(value, str) and value.upper() in ("N", "T", "C"):
        return value.upper()
    raise ValueError(f"rocblas.{fn}: {name} must be one of 'N', 'T', 'C', got {value!r}")


def _check_ld(ld, rows, name, fn):
    ld = _as_int(ld, name, fn)
    if ld < max(1, rows):
        raise ValueError(f"rocblas.{fn}: {name} must be >= max(1, {rows}), got {ld}")
    return ld


def _check_bounds(X, rows, cols, ld, name, fn):
    """An ``rows x cols`` column-major matrix (both > 0) fits in X, which is element-aligned."""
    need = (cols - 1) * ld + rows
    if need > X.size:
        raise ValueError(
            f"rocblas.{fn}: a {rows} x {cols} matrix with ld{name.lower()}={ld} needs {need} elements "
            f"of {name}, but the buffer has {X.size}"
        )
    align = _level1.ALIGNMENT[X.dtype]
    if X.data.ptr % align:
        raise ValueError(f"rocblas.{fn}: {name} is not aligned to {align} bytes (data pointer 0x{X.data.ptr:x})")


def flags(transA, transB, dtype):
    """Kernel flag bits for the transposes (conjugation only for complex data)."""
    complex_ = numpy.dtype(dtype).kind == "c"
    f = 0
    if transA != "N":
        f |= TRANS_A | (CONJ_A if transA == "C" and complex_ else 0)
    if transB != "N":
        f |= TRANS_B | (CONJ_B if transB == "C" and complex_ else 0)
    return f


def grid(m, n):
    """Blocks of the 1-D launch: one per 64 x 64 tile of C (tiles of m fastest)."""
    blocks = -(-m // TILE) * -(-n // TILE)
    if blocks > MAX_GRID:
        raise ValueError(f"rocblas.gemm: C of {m} x {n} needs {blocks} tiles, more than one launch takes")
    return blocks


# --------------------------------------------------------------------------------------------
# launching
# --------------------------------------------------------------------------------------------

_kernel_table = launch.KernelTable(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def _kernel(name, device_id):
    """``(kernel, blocks in one full wave)`` for a registered name on a device (memoized)."""
    return _kernel_table.get(name, device_id)


def _launch(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, flag_bits):
    """One gemm launch on checked operands (no checks); ``k == 0``: ``C := beta C``."""
    with _level1._on_device(device_id):
        kernel, _ = _kernel(kernel_name(dtype), device_id)
        kernel((grid(m, n),), (BLOCK,),
               (numpy.int64(m), numpy.int64(n), numpy.int64(k), alpha, A, numpy.int64(lda), B,
                numpy.int64(ldb), beta, C, numpy.int64(ldc), numpy.int32(flag_bits)))


# --------------------------------------------------------------------------------------------
# gemm
# --------------------------------------------------------------------------------------------

def gemm(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    """``C := alpha * op(A) op(B) + beta * C`` (rocblas_?gemm), op(X) = X, X^T or X^H.

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
        Fortran-ordered array), float32, float64, complex64 or complex128: m x k for
        ``transA='N'``, k x m otherwise.
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

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported (float16 and bfloat16 are not supported yet) or mismatched
        dtypes, complex scalars with real data, non-integer sizes.
    ValueError
        Invalid ``transA``/``transB``, negative sizes, a leading dimension too small, buffers too
        short or misaligned.

    Notes
    -----
    The portable tiled SIMT kernel (64 x 64 tiles of C, 4 x 4 per thread); see
    :mod:`rocarray.rocblas._level3` for its design and expected speed.

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
    fn = "gemm"
    transA = option(transA, "transA", fn)
    transB = option(transB, "transB", fn)
    m, n, k = _size(m, "m", fn), _size(n, "n", fn), _size(k, "k", fn)
    for name, X in (("A", A), ("B", B), ("C", C)):
        _check_matrix_buffer(X, fn, name)
    dtype = check_dtype(fn, A.dtype)
    device = A.data.device_id
    for name, X in (("B", B), ("C", C)):
        if X.dtype != dtype:
            raise TypeError(f"rocblas.{fn}: {name} must have the dtype of A ({dtype.name}), got {X.dtype.name}")
        if X.data.device_id != device:
            raise ValueError(f"rocblas.{fn}: {name} is on device {X.data.device_id} but A is on device {device}")
    a_rows, a_cols = (m, k) if transA == "N" else (k, m)
    b_rows, b_cols = (k, n) if transB == "N" else (n, k)
    lda = _check_ld(lda, a_rows, "lda", fn)
    ldb = _check_ld(ldb, b_rows, "ldb", fn)
    ldc = _check_ld(ldc, m, "ldc", fn)
    _scalars(fn, dtype, alpha=alpha, beta=beta)
    if m == 0 or n == 0:
        return None
    if k > 0:
        _check_bounds(A, a_rows, a_cols, lda, "A", fn)
        _check_bounds(B, b_rows, b_cols, ldb, "B", fn)
    _check_bounds(C, m, n, ldc, "C", fn)
    scale_only = alpha == 0 or k == 0
    if scale_only and beta == 1:
        return None
    _launch(device, dtype, m, n, 0 if scale_only else k, scalar_arg(alpha, dtype), A.data, lda, B.data, ldb,
            scalar_arg(beta, dtype), C.data, ldc, flags(transA, transB, dtype))
    return None
