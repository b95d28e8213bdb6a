"""rocBLAS level 2 for band matrices: gbmv, sbmv, hbmv (``rocarray/_kernels/rocblas/level2_banded.hip``).

The functions take rocBLAS's arguments in rocBLAS's order, without the handle, with the reference
BLAS's semantics; vectors, scalars, options and errors follow :mod:`rocarray.rocblas._level2`.

Band storage (column-major, as the reference BLAS): the ``m x n`` band matrix with ``kl``
sub-diagonals and ``ku`` super-diagonals has element ``(i, j)`` at ``A[(ku + i - j) + j * lda]``
for ``max(0, j - ku) <= i <= min(m - 1, j + kl)``, with ``lda >= kl + ku + 1``. Column ``j`` of
the storage holds column ``j`` of the band; the other storage entries (the corners) are never
read. sbmv/hbmv store one triangle with ``k`` off-diagonals: ``'U'``: ``A(i, j)``, ``i <= j``, at
``A[(k + i - j) + j * lda]``; ``'L'``: ``A(i, j)``, ``i >= j``, at ``A[(i - j) + j * lda]``. The
buffer is a contiguous 1-D ``cupy.ndarray`` or a Fortran-ordered 2-D one (``(lda, n)``), taken as
its flat memory and never copied; it needs ``(n - 1) * lda + kl + ku + 1`` elements.

Design
------
Banded matrix-vector products are memory-bound: the floor is the band bytes,
``(kl + ku + 1) * n * itemsize`` at copy bandwidth, for common sizes of the order of one launch,
so launch count matters as much as bandwidth here.

* ``gbmv_n`` (``'N'``): a block owns one warp-width of rows (lane ``l``: row ``r0 + l``); its
  warps take the columns that meet those rows in turn, and at column ``j`` every lane loads its
  row's element, so one warp load is one contiguous piece of band-storage column ``j`` and each
  stored element is read once. The warps' sums meet in shared memory and are added in warp order.
  A thin band (``kl + ku + 1 <= THIN_MAX``) would leave most lanes idle at each column: there one
  thread owns one row and walks its few diagonals (a warp's loads, lda apart, together cover one
  short contiguous stretch of the storage, so the cache lines are used in full).
* ``gbmv_t`` (``'T'``/``'C'``): a group of ``S`` lanes owns band-storage column ``j`` (contiguous),
  strides down it and reduces with xor shuffles inside the group; ``S`` is a power of two near
  ``(kl + ku + 1) / UNROLL`` (at most a warp), so every lane has about ``UNROLL`` loads in flight
  (a tridiagonal matrix: one thread per column).
* ``sbmv``/``hbmv``: one ``gbmv_n`` launch (flag ``SYM``). With ``A = D + U + U^T`` (upper
  storage; ``U^H`` for hbmv, lower alike), the row walk above over the stored triangle gives
  ``(D + U) x``, and row ``i`` of ``U^T`` is the strict part of band-storage column ``i``: each
  block also reduces its own rows' storage columns, one warp per column (contiguous loads),
  and adds them in shared memory. Those columns' elements are thus read twice, but by the same
  block or by neighbouring blocks running at the same time, so the second read hits the caches
  and DRAM sees the band about once.

Both kernels sum in a fixed order (no floating-point atomics): results are bitwise reproducible.
``alpha == 0`` scales y by beta without reading A or x (``beta == 1``: nothing); ``beta == 0``
never reads y.
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch
from rocarray.rocblas import _level2
from rocarray.rocblas._arguments import (ALIGNMENT, STANDARD, Matrix, as_int, inc, option, scalar_arg, scalars, size,
                                         vector)

SOURCE = "rocblas/level2_banded.hip"

#: Threads per block of both kernels (``RA_ROCBLAS2B_BLOCK`` in the source).
BLOCK = 256
#: Resident blocks per multiprocessor aimed for (2048 threads per SM/CU).
BLOCKS_PER_MULTIPROCESSOR = 2048 // BLOCK

# flag bits (``RA_ROCBLAS2B_*`` in the source)
SYM, CONJ, HERM, THIN = 1, 2, 4, 8
#: Loads each thread issues together (``RA_ROCBLAS2B_UNROLL``).
UNROLL = 4
#: Tallest band (kl + ku + 1) that gbmv_n walks one row per thread (the THIN path).
THIN_MAX = 2 * UNROLL



def kernel_name(kernel, dtype):
    """Name expression of a banded kernel, e.g. ``'ra_rocblas_gbmv_n<float>'``.

    Parameters
    ----------
    kernel : {'gbmv_n', 'gbmv_t'}
    dtype : numpy.dtype
        float32, float64, complex64 or complex128.

    Returns
    -------
    str
    """
    return f"ra_rocblas_{kernel}<{dtypes.ctype(dtype)}>"


def instantiations():
    """Every name expression this module launches (registered with the compile layer)."""
    return sorted(kernel_name(k, d) for k in ("gbmv_n", "gbmv_t") for d in STANDARD)


_compile.register(SOURCE, instantiations())


# --------------------------------------------------------------------------------------------
# argument checks (no device access)
# --------------------------------------------------------------------------------------------

def _check_band_lda(lda, height, fn, what):
    lda = as_int(lda, "lda", fn)
    if lda < height:
        raise ValueError(f"rocblas.{fn}: lda must be >= {what} = {height}, got {lda}")
    return lda


def band(A, n, height, lda, fn):
    """The checked band storage: ``height`` rows of ``n`` columns at leading dimension ``lda``."""
    need = (n - 1) * lda + height
    if need > A.size:
        raise ValueError(f"rocblas.{fn}: band storage of {height} rows x {n} columns with lda={lda} needs "
                         f"{need} elements of A, but the buffer has {A.size}")
    if A.data.ptr % ALIGNMENT[A.dtype]:
        raise ValueError(f"rocblas.{fn}: A is not aligned to {ALIGNMENT[A.dtype]} bytes "
                         f"(data pointer 0x{A.data.ptr:x})")
    return Matrix(A.data, lda, A.dtype)


# --------------------------------------------------------------------------------------------
# launching
# --------------------------------------------------------------------------------------------

KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def group_width(height, warp_size):
    """Lanes per column of ``gbmv_t``: a power of two near ``height / UNROLL`` (each lane then
    has about :data:`UNROLL` loads in flight), at least 1 and at most a warp."""
    want = -(-height // UNROLL)
    s = 1
    while s < want and s < warp_size:
        s *= 2
    return s


def _warp_size(device_id):
    return backend.device_info(device_id).warp_size


def _launch(device_id, kernel, m, n, kl, ku, alpha, a, vx, beta, vy, flags=0):
    """One banded kernel on checked operands (no checks). ``'n'``: y has m elements, x n;
    ``'t'``: x has m, y n. ``alpha``/``beta`` are kernel scalars."""
    dtype = a.dtype
    if kernel == "n" and kl + ku + 1 <= THIN_MAX:
        flags |= THIN
    args = (numpy.int64(m), numpy.int64(n), numpy.int64(kl), numpy.int64(ku), alpha, a.ptr,
            numpy.int64(a.lda), vx.ptr, numpy.int64(vx.step), beta, vy.ptr, numpy.int64(vy.step),
            numpy.int32(flags))
    fn = KERNELS[kernel_name("gbmv_" + kernel, dtype)]
    with launch.on_device(device_id):
        if kernel == "n":
            rows = BLOCK if flags & THIN else _warp_size(device_id)
            fn(device_id, (-(-m // rows),), args)
        else:
            group = group_width(min(kl + ku + 1, m), _warp_size(device_id))
            per_block = BLOCK // group
            fn(device_id, (-(-n // per_block),), args + (numpy.int32(group),))


def _scale_y(device_id, length, beta, a, vy):
    """``y := beta * y`` (zero fill for ``beta == 0``, y not read): gbmv 'N' with no columns."""
    dtype = a.dtype
    _launch(device_id, "n", length, 0, 0, 0, scalar_arg(0, dtype), a, vy, scalar_arg(beta, dtype), vy)


# --------------------------------------------------------------------------------------------
# gbmv
# --------------------------------------------------------------------------------------------

def gbmv(trans, m, n, kl, ku, alpha, A, lda, x, incx, beta, y, incy):
    """``y := alpha * op(A) x + beta * y`` with A an m x n band matrix (``rocblas_?gbmv``).

    Parameters
    ----------
    trans : {'N', 'T', 'C'}
        op(A) = A, A^T, or A^H (conjugate transpose; A^T for real data). Case-insensitive.
    m, n : int
        Rows and columns of A (>= 0); either 0 does nothing.
    kl, ku : int
        Sub- and super-diagonals of the band (>= 0; may exceed m or n).
    alpha : scalar
        Host scalar; complex only for complex data. ``alpha == 0`` does not read A or x.
    A : cupy.ndarray
        Band storage: element (i, j) at ``A[(ku + i - j) + j * lda]`` for
        ``max(0, j - ku) <= i <= min(m - 1, j + kl)`` (1-D contiguous buffer or 2-D
        Fortran-ordered ``(lda, n)`` array), float32, float64, complex64 or complex128. Other
        entries are never read.
    lda : int
        Leading dimension, ``>= kl + ku + 1``.
    x : cupy.ndarray
        1-D buffer of A's dtype: n elements for 'N', m for 'T'/'C'.
    incx : int
        Increment of x, nonzero (negative walks from the far end).
    beta : scalar
        Host scalar; complex only for complex data. ``beta == 0`` does not read y.
    y : cupy.ndarray
        1-D buffer of A's dtype, updated in place: m elements for 'N', n for 'T'/'C'.
    incy : int
        Increment of y, nonzero.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported (float16) or mismatched dtypes, complex scalars with real data.
    ValueError
        Invalid ``trans``, negative ``m``/``n``/``kl``/``ku``, ``lda`` too small, zero increments,
        buffers too short or misaligned.

    Examples
    --------
    >>> # the tridiagonal [[2, 1, 0], [1, 2, 1], [0, 1, 2]], kl = ku = 1, lda = 3; 0s are unread
    >>> A = cupy.array([0.0, 2, 1, 1, 2, 1, 1, 2, 0])
    >>> x = cupy.ones(3); y = cupy.zeros(3)
    >>> ra.rocblas.gbmv('N', 3, 3, 1, 1, 1.0, A, 3, x, 1, 0.0, y, 1)   # doctest: +SKIP
    >>> y                                                               # doctest: +SKIP
    array([3., 4., 3.])
    """
    fn = "gbmv"
    trans = option(trans, "trans", fn)
    m, n = size(m, "m", fn), size(n, "n", fn)
    kl, ku = size(kl, "kl", fn), size(ku, "ku", fn)
    dtype = _level2.check_operands(fn, A, (("x", x), ("y", y)))
    lda = _check_band_lda(lda, kl + ku + 1, fn, "kl + ku + 1")
    incx, incy = inc(incx, "incx", fn), inc(incy, "incy", fn)
    scalars(fn, dtype, alpha=alpha, beta=beta)
    if m == 0 or n == 0:
        return None
    lenx, leny = (n, m) if trans == "N" else (m, n)
    a = band(A, n, kl + ku + 1, lda, fn)
    vx = vector(x, lenx, incx, "x", fn)
    vy = vector(y, leny, incy, "y", fn, write=True)
    device_id = A.data.device_id
    if alpha == 0:
        if beta != 1:
            _scale_y(device_id, leny, beta, a, vy)
        return None
    flags = CONJ if (trans == "C" and dtype.kind == "c") else 0
    _launch(device_id, "n" if trans == "N" else "t", m, n, kl, ku, scalar_arg(alpha, dtype), a, vx,
            scalar_arg(beta, dtype), vy, flags)
    return None


# --------------------------------------------------------------------------------------------
# sbmv, hbmv
# --------------------------------------------------------------------------------------------

def _sbmv(fn, uplo, n, k, alpha, A, lda, x, incx, beta, y, incy, herm):
    uplo = option(uplo, "uplo", fn)
    n, k = size(n, "n", fn), size(k, "k", fn)
    dtype = _level2.check_operands(fn, A, (("x", x), ("y", y)))
    lda = _check_band_lda(lda, k + 1, fn, "k + 1")
    incx, incy = inc(incx, "incx", fn), inc(incy, "incy", fn)
    scalars(fn, dtype, alpha=alpha, beta=beta)
    if n == 0:
        return None
    a = band(A, n, k + 1, lda, fn)
    vx = vector(x, n, incx, "x", fn)
    vy = vector(y, n, incy, "y", fn, write=True)
    device_id = A.data.device_id
    if alpha == 0:
        if beta != 1:
            _scale_y(device_id, n, beta, a, vy)
        return None
    kl, ku = (0, k) if uplo == "U" else (k, 0)
    flags = SYM | (HERM if herm else 0)
    _launch(device_id, "n", n, n, kl, ku, scalar_arg(alpha, dtype), a, vx, scalar_arg(beta, dtype), vy, flags)
    return None


_SBMV_DOC = """``y := alpha * A x + beta * y`` with A an n x n {kind} band matrix (``rocblas_?{name}``).

    Only the ``uplo`` triangle's band is stored and read{diag_note}.

    Parameters
    ----------
    uplo : {{'U', 'L'}}
        Which triangle is stored: ``'U'``: A(i, j), i <= j, at ``A[(k + i - j) + j * lda]``;
        ``'L'``: A(i, j), i >= j, at ``A[(i - j) + j * lda]``. Case-insensitive.
    n : int
        Order of A (>= 0); 0 does nothing.
    k : int
        Off-diagonals of the band (>= 0; may exceed n).
    alpha : scalar
        Host scalar; complex only for complex data. ``alpha == 0`` does not read A or x.
    A : cupy.ndarray
        Band storage (1-D contiguous buffer or 2-D Fortran-ordered ``(lda, n)`` array), {dtypes}.
        Entries outside the band are never read.
    lda : int
        Leading dimension, ``>= k + 1``.
    x : cupy.ndarray
        1-D buffer of n elements, A's dtype.
    incx : int
        Increment of x, nonzero (negative walks from the far end).
    beta : scalar
        Host scalar; complex only for complex data. ``beta == 0`` does not read y.
    y : cupy.ndarray
        1-D buffer of n elements, A's dtype, updated in place.
    incy : int
        Increment of y, nonzero.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or mismatched dtypes, complex scalars with real data.
    ValueError
        Invalid ``uplo``, negative ``n``/``k``, ``lda`` too small, zero increments, buffers too
        short or misaligned.

    Examples
    --------
    >>> # upper band storage (k = 1, lda = 2) of [[2, 1, 0], [1, 2, 1], [0, 1, 2]]; 0 is unread
    >>> A = cupy.array([0.0, 2, 1, 2, 1, 2])
    >>> x = cupy.ones(3); y = cupy.zeros(3)
    >>> ra.rocblas.{name}('U', 3, 1, 1.0, A, 2, x, 1, 0.0, y, 1)   # doctest: +SKIP
    >>> y                                                          # doctest: +SKIP
    array([3., 4., 3.])
    """


def sbmv(uplo, n, k, alpha, A, lda, x, incx, beta, y, incy):
    return _sbmv("sbmv", uplo, n, k, alpha, A, lda, x, incx, beta, y, incy, False)


def hbmv(uplo, n, k, alpha, A, lda, x, incx, beta, y, incy):
    return _sbmv("hbmv", uplo, n, k, alpha, A, lda, x, incx, beta, y, incy, True)


sbmv.__doc__ = _SBMV_DOC.format(kind="symmetric", name="sbmv", diag_note="", dtypes="float32 or float64")
hbmv.__doc__ = _SBMV_DOC.format(kind="Hermitian", name="hbmv",
                                diag_note="; the imaginary parts of its diagonal are taken as zero",
                                dtypes="complex64 or complex128").replace(
    "cupy.array([0.0, 2, 1, 2, 1, 2])", "cupy.array([0, 2, 1, 2, 1, 2], complex)").replace(
    "cupy.ones(3); y = cupy.zeros(3)", "cupy.ones(3, complex); y = cupy.zeros(3, complex)").replace(
    "array([3., 4., 3.])", "array([3.+0.j, 4.+0.j, 3.+0.j])")
