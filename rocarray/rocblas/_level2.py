"""rocBLAS level 2 on hand-written HIP kernels (``rocarray/_kernels/rocblas/level2.hip``).

The functions take rocBLAS's arguments in rocBLAS's order, without the handle:
``gemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy)`` and so on, with the reference BLAS's
semantics:

* ``A`` is column-major: element ``(i, j)`` is buffer element ``i + j * lda`` with
  ``lda >= max(1, m)``. The buffer is a contiguous ``cupy.ndarray``: a 1-D buffer, or a 2-D
  Fortran-ordered array (``cupy.asfortranarray(M)`` with ``lda = M.shape[0]``), taken as its flat
  memory. Nothing is copied.
* vectors follow level 1 (:mod:`rocarray.rocblas._level1`): element ``i`` is buffer element
  ``i * inc`` for ``inc > 0`` and ``(len - 1 - i) * |inc|`` for ``inc < 0``; any 1-D view works;
  a zero increment is an error, as in the reference BLAS.
* ``m == 0`` or ``n == 0`` does nothing; ``alpha == 0`` does not read ``A`` or ``x`` (``y`` is
  scaled by ``beta``; ``alpha == 0, beta == 1`` is a no-op); ``beta == 0`` never reads ``y``, so
  NaN or garbage in ``y`` does not propagate.
* argument errors raise before the device is touched: ``ValueError`` for an invalid
  ``trans``/``uplo``/``diag`` (naming it), negative sizes, ``lda`` too small, zero increments,
  buffers too short or misaligned; ``TypeError`` for non-CuPy buffers, unsupported (float16) or
  mismatched dtypes and complex scalars with real data.

Design
------
gemv is memory-bound: it reads the ``m x n`` matrix once, so its floor is ``m * n * itemsize``
bytes at copy bandwidth (docs/performance/rocblas.md). Two kernels do all of level 2's
matrix-vector work:

* ``gemv_n`` (``y_i = sum_j A[i + j*lda] x_j``): consecutive threads take consecutive rows, so
  every warp reads contiguous memory; when ``A`` is 16-byte aligned and ``lda * itemsize`` is a
  multiple of 16, each thread owns one 16-byte pack of rows (4 float32) and loads it with one
  vector load per column, issuing 8 columns' loads before using them. A block owns a slab of
  256 threads' rows; the columns are cut into splits (grid y) so that the grid fills about one
  wave of resident blocks even for few slabs (with ``W`` resident blocks on the device and ``S``
  slabs there are ``W // S`` splits). x of the current column chunk is staged in shared memory.
  Splits store partial sums; the last block of each slab (integer ticket, as
  ``prim/reduce.hip``'s last-block finish) adds them in split order: deterministic, no float
  atomics, and the extra traffic is ``2 * splits * m * itemsize`` (small next to the matrix).
* ``gemv_t`` (``y_j = sum_i A[i + j*lda] x_i``, ``'C'`` conjugated): each column is contiguous. A
  block owns 16 columns, each warp 16 / warps of them; lanes stride down the rows with 16-byte
  packs against the x chunk in shared memory (one x pack feeds every column of the warp), then
  ``ra_warp_reduce`` sums each column. Row splits (grid y) with the same last-block finish cover
  short-and-wide shapes.

Both thus read ``A`` once with full-width coalesced loads. The masked instantiations serve the
other routines, one row (or element) per thread, never reading the unreferenced triangle:

* ``symv``/``hemv``: ``gemv_n`` over the referenced triangle with the diagonal, then ``gemv_t``
  over the strict triangle (conjugated for hemv; the Hermitian diagonal's imaginary part is
  ignored) accumulating into y. Each pass reads half the matrix: one matrix of traffic in all.
* ``trmv``: x is copied to a workspace (level 1 ``copy``) and ``x := op(A) tmp`` is one masked
  gemv with ``beta = 0`` (unit diagonal: 1, never read).
* ``trsv`` (:data:`TRSV_ONE_LAUNCH`): one launch, ``ra_rocblas_trsv_one``. Each thread block
  draws a ticket and solves block-row ``ticket`` of the unknowns in solve order (block-rows of
  :data:`TRSV_ONE_NB` rows), so a block only waits for blocks that started before it: no
  co-residency is needed. It stages its diagonal block in shared memory, accumulates the products
  with the earlier block-rows as each one's flag (``'rocblas.level2.trsv_ready'``, cleared by
  the last block to finish: no reset launch, and a replayed graph works) shows its solution stored,
  reading A with coalesced loads (the next tile's loads issued before the wait for the current
  one), then one warp substitutes through the diagonal block, its rows scaled by the diagonal's
  reciprocals when staged: four unknowns a round (their residuals broadcast by shuffles, the
  round's small triangle solved by every lane, the later rows updated), no barrier. The block
  then raises its flag. The triangle is read once; the critical path is ``n / TRSV_ONE_NB``
  hand-offs and ``n / 4`` substitution rounds. A wait is bounded (:data:`TRSV_SPIN_LIMIT`): a block that gives up writes
  NaN for its unknowns and sets an error word that :func:`check_trsv` reads.
  The way back (``TRSV_ONE_LAUNCH = False``): blocked substitution from the host. Diagonal blocks
  of :data:`TRSV_NB` rows are solved by one thread block (``ra_rocblas_trsv_block``: one unknown
  per step, one barrier per step, the triangle's columns staged in shared memory 16 steps at a
  time), and each solved block updates the rest of x with one gemv (``alpha = -1, beta = 1``) on
  the off-diagonal panel: ``2 n / TRSV_NB`` dependent launches.
* ``ger``/``geru``/``gerc``: one pass over A (read and write), 16-byte packs along columns when
  aligned, 8 columns per block.
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch, workspace
from rocarray.rocblas import _level1
from rocarray.rocblas._arguments import (COMPLEX, REAL, STANDARD, check_buffer, check_ld, check_matrix_buffer,
                                         dtype_names, inc, matrix, option, scalar_arg, scalars, size, vector)

SOURCE = "rocblas/level2.hip"

#: Threads per block of every level-2 kernel (``RA_ROCBLAS2_BLOCK`` in the source).
BLOCK = 256
#: Columns a gemv 'T' block owns (``RA_ROCBLAS2_TCOLS``).
TCOLS = 16
#: Columns each ger block updates (per group of its grid-stride loop).
GER_COLS = 8
#: Rows of a trsv diagonal block, solved by one thread block (``RA_ROCBLAS2_TRSV_NB``, <= BLOCK).
TRSV_NB = 128
#: trsv in one launch (``ra_rocblas_trsv_one``); False: blocked substitution driven from the host,
#: ``2 n / TRSV_NB`` launches (the way back).
TRSV_ONE_LAUNCH = True
#: Rows of a one-launch trsv block-row, by itemsize: its diagonal block (``NB^2`` elements) sits in
#: static shared memory, at most 32 KiB.
TRSV_ONE_NB = {4: 64, 8: 64, 16: 32}
#: Clock cycles a one-launch trsv block waits for one earlier block-row before it gives up.
TRSV_SPIN_LIMIT = 1 << 32
#: Fewest columns (gemv 'N') a split is given; fewer splits than that would only add traffic.
MIN_SPLIT_COLS = 64
#: Resident blocks per multiprocessor aimed for (2048 threads per SM/CU).
BLOCKS_PER_MULTIPROCESSOR = 2048 // BLOCK
#: Largest grid y dimension.
MAX_GRID_Y = 65535

# flag bits (``RA_ROCBLAS2_*`` in the source)
VEC, UPPER, STRICT, UNIT, HERM, CONJ, TRANS = 1, 2, 4, 8, 16, 32, 64


#: Supported dtypes per operation.
SUPPORTED = {
    "gemv": STANDARD,
    "ger": REAL,
    "geru": COMPLEX,
    "gerc": COMPLEX,
    "symv": STANDARD,
    "hemv": COMPLEX,
    "trmv": STANDARD,
    "trsv": STANDARD,
    "gbmv": STANDARD,   # the banded products (_level2_banded.py)
    "sbmv": REAL,
    "hbmv": COMPLEX,
}


def kernel_name(kernel, dtype, masked=False):
    """Name expression of a level-2 kernel.

    Parameters
    ----------
    kernel : {'gemv_n', 'gemv_t', 'ger', 'trsv_block', 'trsv_one'}
        Kernel template.
    dtype : numpy.dtype
        Element dtype (float32, float64, complex64, complex128).
    masked : bool
        For ``gemv_n``/``gemv_t``: the triangle-masked instantiation (symv, hemv, trmv).

    Returns
    -------
    str
        E.g. ``'ra_rocblas_gemv_n<float, false>'``, ``'ra_rocblas_trsv_one<double, 64>'``.
    """
    t = dtypes.ctype(dtype)
    if kernel in ("gemv_n", "gemv_t"):
        return f"ra_rocblas_{kernel}<{t}, {'true' if masked else 'false'}>"
    if kernel == "trsv_one":
        return f"ra_rocblas_trsv_one<{t}, {TRSV_ONE_NB[numpy.dtype(dtype).itemsize]}>"
    return f"ra_rocblas_{kernel}<{t}>"


def instantiations():
    """Every name expression this module launches (registered with the compile layer)."""
    names = set()
    for dtype in STANDARD:
        for masked in (False, True):
            names.add(kernel_name("gemv_n", dtype, masked))
            names.add(kernel_name("gemv_t", dtype, masked))
        names.add(kernel_name("ger", dtype))
        names.add(kernel_name("trsv_block", dtype))
        names.add(kernel_name("trsv_one", dtype))
    return sorted(names)


_compile.register(SOURCE, instantiations())


# --------------------------------------------------------------------------------------------
# argument checks (no device access)
# --------------------------------------------------------------------------------------------

def check_dtype(fn, dtype):
    """Raise ``TypeError`` unless ``fn`` supports ``dtype``; returns the ``numpy.dtype``."""
    dtype = numpy.dtype(dtype)
    supported = SUPPORTED[fn]
    if dtype not in supported:
        hint = ""
        if fn == "ger" and dtype in COMPLEX:
            hint = " (use geru or gerc for complex data)"
        elif fn in ("geru", "gerc", "hemv") and dtype in REAL:
            hint = " (use ger or symv for real data)" if fn != "hemv" else " (use symv for real data)"
        elif fn == "sbmv" and dtype in COMPLEX:
            hint = " (use hbmv for Hermitian complex data)"
        elif fn == "hbmv" and dtype in REAL:
            hint = " (use sbmv for real data)"
        raise TypeError(
            f"rocblas.{fn}: unsupported dtype {dtype.name}; supported: "
            f"{dtype_names(supported)}{hint}"
        )
    return dtype


def check_operands(fn, A, vectors):
    """Types, dtype and device of A (or None) and the named vectors; returns the dtype."""
    if A is not None:
        check_matrix_buffer(A, fn)
    for name, v in vectors:
        check_buffer(v, name, fn)
    first = A if A is not None else vectors[0][1]
    dtype = check_dtype(fn, first.dtype)
    device = first.data.device_id
    for name, v in vectors:
        if v.dtype != dtype:
            raise TypeError(f"rocblas.{fn}: {name} must have the dtype of A ({dtype.name}), got {v.dtype.name}"
                            if A is not None else
                            f"rocblas.{fn}: x and {name} must have the same dtype, got {dtype.name} and {v.dtype.name}")
        if v.data.device_id != device:
            raise ValueError(f"rocblas.{fn}: {name} is on device {v.data.device_id} but A is on device {device}")
    return dtype


# --------------------------------------------------------------------------------------------
# launching
# --------------------------------------------------------------------------------------------

KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)
#: Smallest ticket area of a split launch's workspace, in bytes (the partials follow it).
TICKET_BYTES = 1 << 12


def _workspace(device_id, tickets, partial_bytes):
    """``(buffer, partials byte offset)``: the per (device, stream) workspace of a split launch.

    The buffer starts with a ticket area of ``tickets`` 4-byte counters or more (zeroed when it is
    allocated; every launch leaves its counters zero) and has ``partial_bytes`` after it, where
    the kernels write their partial sums. Each size of ticket area (a power of two from
    :data:`TICKET_BYTES`) is a workspace of its own (:data:`rocarray._core.workspace.workspaces`
    counters named by it), so the partials of one launch never lie where a later launch reads
    tickets.
    """
    ticket_bytes = max(TICKET_BYTES, 1 << (tickets * 4 - 1).bit_length())
    buf = workspace.workspaces.counters(f"rocblas.level2.tickets{ticket_bytes}", ticket_bytes + partial_bytes,
                                        device_id)
    return buf, ticket_bytes


def pack(dtype):
    """Elements per 16-byte pack."""
    return 16 // numpy.dtype(dtype).itemsize


def is_vec(a, dtype):
    """Whether the kernels may load 16-byte packs down the columns of matrix ``a``."""
    return a.address % 16 == 0 and (a.lda * numpy.dtype(dtype).itemsize) % 16 == 0


def gemv_n_grid(m, n, vec, itemsize, wave):
    """``(row slabs, splits, columns per split)`` of a gemv 'N' launch (see the module docstring)."""
    rows = BLOCK * (16 // itemsize if vec else 1)
    tiles = -(-m // rows)
    if n <= 0:
        return tiles, 1, 0
    splits = max(1, min(wave // tiles, -(-n // MIN_SPLIT_COLS), MAX_GRID_Y))
    cols = -(-n // splits)
    return tiles, -(-n // cols), cols


def gemv_t_grid(m, n, itemsize, wave):
    """``(column groups, splits, rows per split)`` of a gemv 'T' launch."""
    chunk = BLOCK * (16 // itemsize)
    tiles = -(-n // TCOLS)
    splits = max(1, min(wave // tiles, -(-m // chunk), MAX_GRID_Y))
    rows = -(-(-(-m // splits)) // chunk) * chunk
    return tiles, max(1, -(-m // rows)), rows


def _launch_gemv(device_id, trans, m, n, alpha, a, vx, beta, vy, flags=0, masked=False, conj=False):
    """One gemv kernel on checked operands (no checks): ``y := alpha op(A) x + beta y``.

    ``trans`` is ``'N'`` (x has n elements, y m) or ``'T'`` (x m, y n); ``alpha``/``beta`` are
    kernel scalars; ``flags`` carries the mask bits for the masked instantiations.
    """
    dtype = a.dtype
    itemsize = dtype.itemsize
    if not masked and is_vec(a, dtype):
        flags |= VEC
    if conj:
        flags |= CONJ
    name = kernel_name("gemv_n" if trans == "N" else "gemv_t", dtype, masked)
    kernel = KERNELS[name]
    with launch.on_device(device_id):
        wave = kernel.wave(device_id)
        if trans == "N":
            tiles, splits, per_split = gemv_n_grid(m, n, bool(flags & VEC), itemsize, wave)
            out_len = m
        else:
            tiles, splits, per_split = gemv_t_grid(m, n, itemsize, wave)
            out_len = n
        ws, part_offset = _workspace(device_id, tiles, splits * out_len * itemsize if splits > 1 else 0)
        kernel(device_id, (tiles, splits),
               (numpy.int64(m), numpy.int64(n), alpha, a.ptr, numpy.int64(a.lda), vx.ptr,
                numpy.int64(vx.step), beta, vy.ptr, numpy.int64(vy.step), numpy.int32(flags),
                numpy.int64(per_split), ws, numpy.int64(part_offset)))


def _scale_y(device_id, length, beta, a, vy):
    """``y := beta * y`` (zero fill for ``beta == 0``, y not read): a gemv 'N' with no columns."""
    dtype = a.dtype
    zero = scalar_arg(0, dtype)
    _launch_gemv(device_id, "N", length, 0, zero, a, vy, scalar_arg(beta, dtype), vy, masked=False)


# --------------------------------------------------------------------------------------------
# gemv
# --------------------------------------------------------------------------------------------

def gemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy):
    """``y := alpha * op(A) x + beta * y`` (``rocblas_?gemv``), op(A) = A, A^T or A^H.

    Parameters
    ----------
    trans : {'N', 'T', 'C'}
        op(A) = A, A^T, or A^H (conjugate transpose; A^T for real data). Case-insensitive.
    m, n : int
        Rows and columns of A (>= 0); either 0 does nothing.
    alpha : scalar
        Host scalar; complex only for complex data. ``alpha == 0`` does not read A or x.
    A : cupy.ndarray
        Column-major matrix: element (i, j) at ``A[i + j * lda]`` (1-D contiguous buffer or 2-D
        Fortran-ordered array), float32, float64, complex64 or complex128.
    lda : int
        Leading dimension, ``>= max(1, m)``.
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
        Invalid ``trans``, negative ``m``/``n``, ``lda`` too small, zero increments, buffers too
        short or misaligned.

    Examples
    --------
    >>> A = cupy.asfortranarray(cupy.arange(6.0).reshape(2, 3))   # [[0, 1, 2], [3, 4, 5]]
    >>> x = cupy.ones(3); y = cupy.zeros(2)
    >>> ra.rocblas.gemv('N', 2, 3, 1.0, A, 2, x, 1, 0.0, y, 1)     # doctest: +SKIP
    >>> y                                                           # doctest: +SKIP
    array([ 3., 12.])
    """
    fn = "gemv"
    trans = option(trans, "trans", fn)
    m, n = size(m, "m", fn), size(n, "n", fn)
    dtype = check_operands(fn, A, (("x", x), ("y", y)))
    lda = check_ld(lda, m, "lda", fn)
    incx, incy = inc(incx, "incx", fn), inc(incy, "incy", fn)
    scalars(fn, dtype, alpha=alpha, beta=beta)
    if m == 0 or n == 0:
        return None
    lenx, leny = (n, m) if trans == "N" else (m, n)
    a = matrix(A, m, n, lda, fn)
    vx = vector(x, lenx, incx, "x", fn)
    vy = vector(y, leny, incy, "y", fn, write=True)
    device_id = A.data.device_id
    if alpha == 0:
        if beta != 1:
            _scale_y(device_id, leny, beta, a, vy)
        return None
    _launch_gemv(device_id, "N" if trans == "N" else "T", m, n, scalar_arg(alpha, dtype), a, vx,
                 scalar_arg(beta, dtype), vy, conj=(trans == "C" and dtype.kind == "c"))
    return None


# --------------------------------------------------------------------------------------------
# ger, geru, gerc
# --------------------------------------------------------------------------------------------

def _ger(fn, m, n, alpha, x, incx, y, incy, A, lda, conj):
    m, n = size(m, "m", fn), size(n, "n", fn)
    dtype = check_operands(fn, A, (("x", x), ("y", y)))
    lda = check_ld(lda, m, "lda", fn)
    incx, incy = inc(incx, "incx", fn), inc(incy, "incy", fn)
    scalars(fn, dtype, alpha=alpha)
    if m == 0 or n == 0:
        return None
    a = matrix(A, m, n, lda, fn)
    vx = vector(x, m, incx, "x", fn)
    vy = vector(y, n, incy, "y", fn)
    if alpha == 0:
        return None
    device_id = A.data.device_id
    vec = is_vec(a, dtype)
    flags = (VEC if vec else 0) | (CONJ if conj else 0)
    rows = BLOCK * (pack(dtype) if vec else 1)
    groups = -(-n // GER_COLS)
    with launch.on_device(device_id):
        KERNELS[kernel_name("ger", dtype)](
            device_id, (-(-m // rows), min(groups, MAX_GRID_Y)),
            (numpy.int64(m), numpy.int64(n), scalar_arg(alpha, dtype), vx.ptr, numpy.int64(vx.step), vy.ptr,
             numpy.int64(vy.step), a.ptr, numpy.int64(lda), numpy.int32(flags), numpy.int64(GER_COLS)))
    return None


_GER_DOC = """``A := A + alpha * x * {op}`` (``rocblas_{name}``).

    Parameters
    ----------
    m, n : int
        Rows and columns of A (>= 0); either 0 does nothing.
    alpha : scalar
        Host scalar{alpha_note}; ``alpha == 0`` does nothing.
    x : cupy.ndarray
        1-D buffer of m elements ({dtypes}).
    incx : int
        Increment of x, nonzero.
    y : cupy.ndarray
        1-D buffer of n elements, x's dtype.
    incy : int
        Increment of y, nonzero.
    A : cupy.ndarray
        Column-major matrix (element (i, j) at ``A[i + j * lda]``), updated in place.
    lda : int
        Leading dimension, ``>= max(1, m)``.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or mismatched dtypes{type_note}.
    ValueError
        Negative sizes, ``lda`` too small, zero increments, buffers too short or misaligned.

    Examples
    --------
    >>> A = cupy.zeros(4); x = cupy.array([1.0, 2.0]); y = cupy.array([3.0, 4.0])
    >>> ra.rocblas.{example}(2, 2, 1.0, x, 1, y, 1, A, 2)   # doctest: +SKIP
    >>> A                                                 # doctest: +SKIP
    array({result})
    """


def ger(m, n, alpha, x, incx, y, incy, A, lda):
    return _ger("ger", m, n, alpha, x, incx, y, incy, A, lda, False)


def geru(m, n, alpha, x, incx, y, incy, A, lda):
    return _ger("geru", m, n, alpha, x, incx, y, incy, A, lda, False)


def gerc(m, n, alpha, x, incx, y, incy, A, lda):
    return _ger("gerc", m, n, alpha, x, incx, y, incy, A, lda, True)


ger.__doc__ = _GER_DOC.format(op="y^T", name="?ger, real data", alpha_note="", dtypes="float32 or float64",
                              type_note=" (complex data: use geru or gerc)", example="ger",
                              result="[3., 6., 4., 8.]")
geru.__doc__ = _GER_DOC.format(op="y^T", name="?geru, complex data", alpha_note=", real or complex",
                               dtypes="complex64 or complex128", type_note="", example="geru",
                               result="[3.+0.j, 6.+0.j, 4.+0.j, 8.+0.j]").replace(
    "cupy.array([1.0, 2.0])", "cupy.array([1.0, 2.0], complex)").replace(
    "cupy.array([3.0, 4.0])", "cupy.array([3.0, 4.0], complex)").replace("cupy.zeros(4)", "cupy.zeros(4, complex)")
gerc.__doc__ = _GER_DOC.format(op="y^H (conjugated y)", name="?gerc, complex data",
                               alpha_note=", real or complex", dtypes="complex64 or complex128", type_note="",
                               example="gerc", result="[3.+0.j, 6.+0.j, 4.+0.j, 8.+0.j]").replace(
    "cupy.array([1.0, 2.0])", "cupy.array([1.0, 2.0], complex)").replace(
    "cupy.array([3.0, 4.0])", "cupy.array([3.0, 4.0], complex)").replace("cupy.zeros(4)", "cupy.zeros(4, complex)")


# --------------------------------------------------------------------------------------------
# symv, hemv
# --------------------------------------------------------------------------------------------

def _symv(fn, uplo, n, alpha, A, lda, x, incx, beta, y, incy, herm):
    uplo = option(uplo, "uplo", fn)
    n = size(n, "n", fn)
    dtype = check_operands(fn, A, (("x", x), ("y", y)))
    lda = check_ld(lda, n, "lda", fn)
    incx, incy = inc(incx, "incx", fn), inc(incy, "incy", fn)
    scalars(fn, dtype, alpha=alpha, beta=beta)
    if n == 0:
        return None
    a = matrix(A, n, n, lda, fn)
    vx = vector(x, n, incx, "x", fn)
    vy = vector(y, n, incy, "y", fn, write=True)
    device_id = A.data.device_id
    if alpha == 0:
        if beta != 1:
            _scale_y(device_id, n, beta, a, vy)
        return None
    tri = UPPER if uplo == "U" else 0
    al = scalar_arg(alpha, dtype)
    # the referenced triangle with its diagonal, then the strict triangle transposed into y
    _launch_gemv(device_id, "N", n, n, al, a, vx, scalar_arg(beta, dtype), vy,
                 flags=tri | (HERM if herm else 0), masked=True)
    if n > 1:
        _launch_gemv(device_id, "T", n, n, al, a, vx, scalar_arg(1, dtype), vy, flags=tri | STRICT,
                     masked=True, conj=herm)
    return None


_SYMV_DOC = """``y := alpha * A x + beta * y`` with A {kind} (``rocblas_?{name}``).

    Only the ``uplo`` triangle of A is read{diag_note}.

    Parameters
    ----------
    uplo : {{'U', 'L'}}
        Which triangle of A is stored and referenced. Case-insensitive.
    n : int
        Order of A (>= 0); 0 does nothing.
    alpha : scalar
        Host scalar; complex only for complex data. ``alpha == 0`` does not read A or x.
    A : cupy.ndarray
        Column-major matrix (element (i, j) at ``A[i + j * lda]``), {dtypes}.
    lda : int
        Leading dimension, ``>= max(1, n)``.
    x : cupy.ndarray
        1-D buffer of n elements, A's dtype.
    incx : int
        Increment of x, nonzero.
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
        Invalid ``uplo``, negative ``n``, ``lda`` too small, zero increments, buffers too short.

    Examples
    --------
    >>> A = cupy.array([2.0, 99.0, 1.0, 3.0])   # upper triangle of [[2, 1], [1, 3]]; 99 unread
    >>> x = cupy.ones(2); y = cupy.zeros(2)
    >>> ra.rocblas.symv('U', 2, 1.0, A, 2, x, 1, 0.0, y, 1)   # doctest: +SKIP
    >>> y                                                      # doctest: +SKIP
    array([3., 4.])
    """


def symv(uplo, n, alpha, A, lda, x, incx, beta, y, incy):
    return _symv("symv", uplo, n, alpha, A, lda, x, incx, beta, y, incy, False)


def hemv(uplo, n, alpha, A, lda, x, incx, beta, y, incy):
    return _symv("hemv", uplo, n, alpha, A, lda, x, incx, beta, y, incy, True)


symv.__doc__ = _SYMV_DOC.format(kind="symmetric (complex symmetric too: no conjugation)", name="symv",
                                diag_note="", dtypes="float32, float64, complex64 or complex128")
hemv.__doc__ = _SYMV_DOC.format(kind="Hermitian", name="hemv",
                                diag_note="; the imaginary parts of its diagonal are taken as zero",
                                dtypes="complex64 or complex128").replace("cupy.array([2.0, 99.0, 1.0, 3.0])",
                                                                          "cupy.array([2, 99, 1, 3], complex)")


# --------------------------------------------------------------------------------------------
# trmv, trsv
# --------------------------------------------------------------------------------------------

def _triangular_args(fn, uplo, transA, diag, n, A, lda, x, incx):
    uplo = option(uplo, "uplo", fn)
    transA = option(transA, "transA", fn)
    diag = option(diag, "diag", fn)
    n = size(n, "n", fn)
    dtype = check_operands(fn, A, (("x", x),))
    lda = check_ld(lda, n, "lda", fn)
    incx = inc(incx, "incx", fn)
    if n == 0:
        return None
    a = matrix(A, n, n, lda, fn)
    vx = vector(x, n, incx, "x", fn, write=True)
    conj = transA == "C" and dtype.kind == "c"
    return uplo, transA, diag, n, dtype, a, vx, conj


def trmv(uplo, transA, diag, n, A, lda, x, incx):
    """``x := op(A) x`` with A triangular (``rocblas_?trmv``), op(A) = A, A^T or A^H.

    Parameters
    ----------
    uplo : {'U', 'L'}
        A is upper or lower triangular; the other triangle is never read.
    transA : {'N', 'T', 'C'}
        op(A) = A, A^T, A^H.
    diag : {'N', 'U'}
        Non-unit diagonal, or unit diagonal (taken as 1 and never read).
    n : int
        Order of A (>= 0); 0 does nothing.
    A : cupy.ndarray
        Column-major matrix (element (i, j) at ``A[i + j * lda]``), float32, float64, complex64
        or complex128.
    lda : int
        Leading dimension, ``>= max(1, n)``.
    x : cupy.ndarray
        1-D buffer of n elements, A's dtype, overwritten with the product.
    incx : int
        Increment of x, nonzero.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or mismatched dtypes.
    ValueError
        Invalid ``uplo``/``transA``/``diag``, negative ``n``, ``lda`` too small, ``incx == 0``,
        buffers too short.

    Examples
    --------
    >>> A = cupy.array([1.0, 0.0, 2.0, 3.0])   # [[1, 2], [0, 3]]
    >>> x = cupy.ones(2)
    >>> ra.rocblas.trmv('U', 'N', 'N', 2, A, 2, x, 1)   # doctest: +SKIP
    >>> x                                               # doctest: +SKIP
    array([3., 3.])
    """
    fn = "trmv"
    args = _triangular_args(fn, uplo, transA, diag, n, A, lda, x, incx)
    if args is None:
        return None
    uplo, transA, diag, n, dtype, a, vx, conj = args
    device_id = A.data.device_id
    cupy = backend.cupy()
    with launch.on_device(device_id):
        tmp = cupy.empty(n, dtype=dtype)
        _level1.copy(n, x, incx, tmp, 1)
        vt = vector(tmp, n, 1, "x", fn)
        flags = (UPPER if uplo == "U" else 0) | (UNIT if diag == "U" else 0)
        _launch_gemv(device_id, "N" if transA == "N" else "T", n, n, scalar_arg(1, dtype), a, vt,
                     scalar_arg(0, dtype), vx, flags=flags, masked=True, conj=conj)
    return None


def trsv(uplo, transA, diag, n, A, lda, x, incx):
    """Solve ``op(A) z = x`` in place (``x := z``) with A triangular (``rocblas_?trsv``).

    No test for singularity is made (as in the reference BLAS): a zero on a non-unit diagonal
    gives inf/NaN. One launch (see the module docstring): block-rows of :data:`TRSV_ONE_NB`
    unknowns, each solved by one thread block after the products with the block-rows before it;
    each diagonal block's rows are scaled by the reciprocal of their diagonal element (within an
    ulp or two of dividing). With
    ``TRSV_ONE_LAUNCH = False``: diagonal blocks of :data:`TRSV_NB` solved by one launch each, the
    rest of x updated by gemv.

    Parameters
    ----------
    uplo : {'U', 'L'}
        A is upper or lower triangular; the other triangle is never read.
    transA : {'N', 'T', 'C'}
        op(A) = A, A^T, A^H.
    diag : {'N', 'U'}
        Non-unit diagonal, or unit diagonal (taken as 1 and never read).
    n : int
        Order of A (>= 0); 0 does nothing.
    A : cupy.ndarray
        Column-major matrix (element (i, j) at ``A[i + j * lda]``), float32, float64, complex64
        or complex128.
    lda : int
        Leading dimension, ``>= max(1, n)``.
    x : cupy.ndarray
        1-D buffer of n elements, A's dtype: the right-hand side, overwritten with the solution.
    incx : int
        Increment of x, nonzero.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or mismatched dtypes.
    ValueError
        Invalid ``uplo``/``transA``/``diag``, negative ``n``, ``lda`` too small, ``incx == 0``,
        buffers too short.

    Examples
    --------
    >>> A = cupy.array([2.0, 0.0, 1.0, 4.0])   # [[2, 1], [0, 4]]
    >>> x = cupy.array([4.0, 8.0])
    >>> ra.rocblas.trsv('U', 'N', 'N', 2, A, 2, x, 1)   # doctest: +SKIP
    >>> x                                               # doctest: +SKIP
    array([1., 2.])
    """
    fn = "trsv"
    args = _triangular_args(fn, uplo, transA, diag, n, A, lda, x, incx)
    if args is None:
        return None
    uplo, transA, diag, n, dtype, a, vx, conj = args
    upper, trans = uplo == "U", transA != "N"
    forward = upper == trans
    flags = (UPPER if upper else 0) | (UNIT if diag == "U" else 0) | (TRANS if trans else 0)
    flags |= CONJ if conj else 0
    device_id = A.data.device_id
    if TRSV_ONE_LAUNCH:
        _trsv_one(device_id, n, dtype, a, vx, flags)
        return None
    minus_one, one = scalar_arg(-1, dtype), scalar_arg(1, dtype)
    nblocks = -(-n // TRSV_NB)
    order = range(nblocks) if forward else range(nblocks - 1, -1, -1)
    solve = KERNELS[kernel_name("trsv_block", dtype)]
    with launch.on_device(device_id):
        for k in order:
            k0 = k * TRSV_NB
            k1 = min(n, k0 + TRSV_NB)
            nb = k1 - k0
            xk = vx.sub(k0, nb)
            solve(device_id, (1,), (numpy.int64(nb), a.at(k0, k0).ptr, numpy.int64(lda), xk.ptr,
                                    numpy.int64(xk.step), numpy.int32(flags)))
            # the solved block updates the unknowns still to come
            if forward and k1 < n:
                rest = vx.sub(k1, n - k1)
                if not trans:   # lower 'N': x[k1:] -= A[k1:, k0:k1] x_k
                    _launch_gemv(device_id, "N", n - k1, nb, minus_one, a.at(k1, k0), xk, one, rest)
                else:           # upper 'T'/'C': x[k1:] -= A[k0:k1, k1:]^T x_k
                    _launch_gemv(device_id, "T", nb, n - k1, minus_one, a.at(k0, k1), xk, one, rest,
                                 conj=conj)
            elif not forward and k0 > 0:
                rest = vx.sub(0, k0)
                if not trans:   # upper 'N': x[:k0] -= A[:k0, k0:k1] x_k
                    _launch_gemv(device_id, "N", k0, nb, minus_one, a.at(0, k0), xk, one, rest)
                else:           # lower 'T'/'C': x[:k0] -= A[k0:k1, :k0]^T x_k
                    _launch_gemv(device_id, "T", nb, k0, minus_one, a.at(k0, 0), xk, one, rest,
                                 conj=conj)
    return None


def _trsv_state(device_id):
    """The one-launch trsv's four words on the current stream: the ticket counter, the finished
    blocks and the launch's gave-up flag (all left 0 by every launch), and the error word (1 once
    a wait gave up, until :func:`check_trsv`)."""
    return workspace.workspaces.counters("rocblas.level2.trsv_state", 16, device_id)[:16].view(numpy.uint32)


def _trsv_one(device_id, n, dtype, a, vx, flags):
    """``ra_rocblas_trsv_one`` on checked operands: one block per block-row of
    :data:`TRSV_ONE_NB` unknowns."""
    grid = -(-n // TRSV_ONE_NB[dtype.itemsize])
    with launch.on_device(device_id):
        ready = workspace.workspaces.counters("rocblas.level2.trsv_ready", 4 * grid, device_id)
        KERNELS[kernel_name("trsv_one", dtype)](
            device_id, (grid,),
            (numpy.int64(n), a.ptr, numpy.int64(a.lda), vx.ptr, numpy.int64(vx.step), numpy.int32(flags),
             _trsv_state(device_id), ready, numpy.int64(TRSV_SPIN_LIMIT)))


def check_trsv(device_id=None):
    """Raise ``RuntimeError`` if a one-launch trsv on the current stream gave up waiting.

    A block of ``ra_rocblas_trsv_one`` that waits longer than :data:`TRSV_SPIN_LIMIT` clock cycles
    for an earlier block-row writes NaN for its unknowns and records the launch in an error word;
    this reads the word (waiting for the stream) and clears it.

    Parameters
    ----------
    device_id : int, optional
        The device (default: the current one).

    Returns
    -------
    None

    Raises
    ------
    RuntimeError
        A launch since the last check gave up (its solution holds NaN).
    """
    cupy = backend.cupy()
    device_id = cupy.cuda.runtime.getDevice() if device_id is None else int(device_id)
    with launch.on_device(device_id):
        words = _trsv_state(device_id)
        if int(words[3]):
            words[3:4].fill(0)
            raise RuntimeError("rocblas.trsv: a block waited too long for an earlier block-row; the solution "
                               "holds NaN")
