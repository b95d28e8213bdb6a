"""rocBLAS level 1 on hand-written HIP kernels (``rocarray/_kernels/rocblas/level1.hip``).

The functions take rocBLAS's arguments in rocBLAS's order, without the handle:
``axpy(n, alpha, x, incx, y, incy)`` and so on. ``x`` and ``y`` are ``cupy.ndarray`` buffers and
the semantics are the reference BLAS's:

* the array's data pointer is the BLAS pointer; element ``i`` of the BLAS vector is buffer element
  ``i * inc`` for ``inc >= 0`` and ``(n - 1 - i) * |inc|`` for ``inc < 0`` (a negative increment
  walks the vector from its far end);
* ``n <= 0`` is a no-op, and reductions then return 0;
* a buffer may be any 1-D CuPy view (strided, reversed, offset): buffer element ``k`` is the view's
  element ``k``, so a view with a stride of ``s`` elements behaves as a contiguous buffer walked with
  increment ``inc * s``. Nothing is copied.

Reductions (``dot``, ``dotc``, ``nrm2``, ``asum``, ``iamax``, ``iamin``) return 0-d device arrays:
the result stays on the device, like rocBLAS's device pointer mode, and no call synchronizes.

Every public function checks its arguments cheaply before it touches the device: ``TypeError`` for
non-CuPy buffers, unsupported or mismatched dtypes and non-integer ``n``/``inc``; ``ValueError`` for
buffers that are not 1-D, misaligned, or too short for ``(n - 1) * |inc| + 1`` elements (nothing
is ever read or written out of bounds), and for a zero increment on a vector that is written.
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch, plans, workspace
from rocarray._core.dtypes import real_dtype
from rocarray.rocblas._arguments import (C64, C128, COMPLEX, F16, F32, F64, STANDARD, WITH_HALF, any_scalar, as_int,
                                         check_buffer, dtype_names, is_complex_scalar, real_scalar,
                                         scalar_type, vector)

SOURCE = "rocblas/level1.hip"

#: Threads per block of every level-1 kernel (``RA_ROCBLAS_BLOCK`` in the source).
BLOCK = 256
#: 16-byte packs (or elements, on the strided path) per thread per loop trip (``RA_ROCBLAS_UNROLL``).
UNROLL = 4
#: Resident blocks per multiprocessor aimed for: 2048 threads per SM/CU on every target we support.
BLOCKS_PER_MULTIPROCESSOR = 2048 // BLOCK
#: Byte offset of the partials in a reduction workspace (``RA_ROCBLAS_PARTIALS_OFFSET``).
PARTIALS_OFFSET = 256
#: Largest partial a reduction stores per block (nrm2 of float64: 3 x 8 bytes; iamax: 16).
PARTIAL_BYTES = 32

#: Kernel type of the accumulation/scalar type of each dtype (float for float16).
ACC_CTYPES = {F16: "float", F32: "float", F64: "double", C64: "ra_c64", C128: "ra_c128"}
#: Kernel type of the real part of each dtype.
REAL_CTYPES = {F32: "float", F64: "double", C64: "float", C128: "double"}
#: copy and swap move bits: one kernel per element size.
BITS_CTYPES = {4: "ra_u32", 8: "ra_u64", 16: "ra_rocblas_b128"}

#: Supported dtypes per operation.
SUPPORTED = {
    "axpy": WITH_HALF,
    "scal": WITH_HALF,
    "dot": WITH_HALF,
    "copy": STANDARD,
    "swap": STANDARD,
    "rot": STANDARD,
    "dotc": STANDARD,
    "nrm2": STANDARD,
    "asum": STANDARD,
    "iamax": STANDARD,
    "iamin": STANDARD,
}


def kernel_name(op, dtype, scalar=None):
    """Name expression of the kernel running ``op`` on ``dtype``.

    Parameters
    ----------
    op : str
        One of the keys of :data:`SUPPORTED`.
    dtype : numpy.dtype
        Element dtype (assumed supported).
    scalar : {'real', 'complex'}, optional
        For ``scal`` and ``rot`` on complex vectors: whether ``alpha``/``s`` is real or complex.

    Returns
    -------
    str
        E.g. ``'ra_rocblas_axpy<ra_half, float>'``.
    """
    dtype = numpy.dtype(dtype)
    t = dtypes.ctype(dtype)
    if op == "axpy":
        return f"ra_rocblas_axpy<{t}, {ACC_CTYPES[dtype]}>"
    if op in ("scal", "rot"):
        s = REAL_CTYPES.get(dtype, "float") if scalar == "real" else ACC_CTYPES[dtype]
        return f"ra_rocblas_{op}<{t}, {s}>"
    if op in ("copy", "swap"):
        return f"ra_rocblas_{op}<{BITS_CTYPES[dtype.itemsize]}>"
    return f"ra_rocblas_{op}<{t}>"


def instantiations():
    """Every name expression this module launches (registered with the compile layer)."""
    names = set()
    for op, supported in SUPPORTED.items():
        for dtype in supported:
            if op in ("scal", "rot") and dtype in COMPLEX:
                names.add(kernel_name(op, dtype, "real"))
                names.add(kernel_name(op, dtype, "complex"))
            elif op == "dotc" and dtype not in COMPLEX:
                continue  # dotc of real vectors is dot
            else:
                names.add(kernel_name(op, dtype, "real"))
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
        raise TypeError(f"rocblas.{fn}: unsupported dtype {dtype.name}; supported: {dtype_names(supported)}")
    return dtype


def _check_pair(fn, x, y):
    check_buffer(x, "x", fn)
    check_buffer(y, "y", fn)
    dtype = check_dtype(fn, x.dtype)
    if y.dtype != dtype:
        raise TypeError(f"rocblas.{fn}: x and y must have the same dtype, got {x.dtype.name} and {y.dtype.name}")
    if x.data.device_id != y.data.device_id:
        raise ValueError(
            f"rocblas.{fn}: x is on device {x.data.device_id} but y is on device {y.data.device_id}"
        )
    return dtype


# --------------------------------------------------------------------------------------------
# launching: one plan per call signature
# --------------------------------------------------------------------------------------------

KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)
#: Name of the reduction workspace (:data:`rocarray._core.workspace.workspaces` counters): the
#: ticket at byte 0, which the kernel's last block resets, and the blocks' partials from
#: :data:`PARTIALS_OFFSET` on, which the kernels overwrite (so no other buffer shares the name).
WORKSPACE = "rocblas.level1.reduction"


def workspace_blocks(device_id):
    """Partials a reduction workspace holds: the largest grid any level-1 kernel uses."""
    return max(1, backend.device_info(device_id).multiprocessors * BLOCKS_PER_MULTIPROCESSOR)


def is_unit(a, b=None):
    """Whether the kernels take their 16-byte vector path for these vectors (mirrors the source)."""
    if a.step != 1:
        return False
    return b is None or (b.step == 1 and (a.address - b.address) % 16 == 0)


#: Most blocks an element-wise launch uses; past it the grid-stride loops take over.
MAX_MAP_BLOCKS = 1 << 20


def grid_size(n, itemsize, unit, wave, reduction=True):
    """Blocks for ``n`` elements: UNROLL packs (or elements) per thread.

    Every loop in the kernels is grid-stride, so any grid is correct. Reductions use at most one
    full wave of resident blocks (multiprocessors x occupancy): one partial per block, few partials.
    Element-wise kernels (which write) give every thread one batch of UNROLL packs: many
    short-lived blocks keep more writes in flight than a wave of long grid-stride loops.
    """
    work = -(-n // (16 // itemsize)) if unit else n
    blocks = -(-work // (BLOCK * UNROLL))
    return max(1, min(blocks, wave if reduction else MAX_MAP_BLOCKS))


def _prepare(name, device_id, n, itemsize, unit, args, reduction=False):
    """The prepared launch of kernel ``name`` over ``n`` elements (:func:`grid_size`)."""
    kernel = KERNELS[name]
    return kernel.prepare(device_id, grid_size(n, itemsize, unit, kernel.wave(device_id), reduction), args)


def _operand(x):
    """What the checks of a buffer and the plan of a call depend on: dtype, shape, strides, the
    data pointer's 16-byte alignment and its device."""
    mem = x.data
    return (x.dtype, x.shape, x.strides, mem.ptr % 16, mem.device_id)


def _key(op, n, incx, incy, scalars, x, y=None, result=None):
    """The plan-cache key of a level-1 call: everything its checks and its launches depend on
    besides the data addresses and the scalar values (sizes, increments, the scalars' types, the
    buffers' :func:`_operand`, the result buffer's kind), or None for a call the warm path does
    not take (buffers or results that are not plain CuPy arrays)."""
    ndarray = backend.cupy().ndarray
    if type(x) is not ndarray or (y is not None and type(y) is not ndarray):
        return None
    if result is None:
        kind = None
    elif type(result) is ndarray:
        kind = (result.shape, result.dtype)
    else:
        return None
    return (op, n, incx, incy, scalars, _operand(x), None if y is None else _operand(y), kind)


def _ints(fn, n, incx, incy=0):
    """``n`` and the increments as ints (``TypeError`` naming a non-integer)."""
    return (n if type(n) is int else as_int(n, "n", fn), incx if type(incx) is int else as_int(incx, "incx", fn),
            incy if type(incy) is int else as_int(incy, "incy", fn))


def _on_device(device_id, run):
    """``run`` made to run with ``device_id`` current (switching only when another one is)."""
    current = backend.cupy().cuda.runtime.getDevice

    def on_device(*args):
        if current() == device_id:
            return run(*args)
        with launch.on_device(device_id):
            return run(*args)
    return on_device


def _offset(v, x):
    """Byte offset of a checked vector's element 0 from its buffer's data pointer."""
    return v.address - x.data.ptr


def _result(result, dtype, fn):
    """The 0-d device array a reduction writes (``result`` checked, or a new one)."""
    cupy = backend.cupy()
    if result is None:
        return cupy.empty((), dtype=dtype)
    if not isinstance(result, cupy.ndarray):
        raise TypeError(f"rocblas.{fn}: result must be a cupy.ndarray, not {type(result).__name__}")
    if result.shape != () or result.dtype != dtype:
        raise ValueError(
            f"rocblas.{fn}: result must be a 0-d {numpy.dtype(dtype).name} device array, "
            f"got shape {result.shape} dtype {result.dtype.name}"
        )
    return result


def _zero_result(result, dtype, fn):
    out = _result(result, dtype, fn)
    out.fill(0)
    return out


def _reduction(go, device_id, out_dtype, fn):
    """``run(result, *addresses)`` of a prepared reduction launch ``go(*addresses, workspace,
    out)``: the result array (``result`` or a new one), the workspace, then the launch."""
    nbytes = PARTIALS_OFFSET + workspace_blocks(device_id) * PARTIAL_BYTES
    workspaces = workspace.workspaces
    empty = backend.cupy().empty

    def run(result, *addresses):
        out = empty((), dtype=out_dtype) if result is None else result
        ws = workspaces.counters(WORKSPACE, nbytes, device_id)
        go(*addresses, ws.data.ptr, out.data.ptr)
        return out
    return run


# --------------------------------------------------------------------------------------------
# element-wise operations
# --------------------------------------------------------------------------------------------

def axpy(n, alpha, x, incx, y, incy):
    """``y := alpha * x + y`` (``rocblas_?axpy``).

    Parameters
    ----------
    n : int
        Number of elements; ``n <= 0`` does nothing.
    alpha : scalar
        Host scalar (Python or NumPy number); complex only for complex vectors. ``alpha == 0``
        leaves ``y`` untouched, as in the reference BLAS. float16 vectors compute in float32.
    x : cupy.ndarray
        1-D buffer, float16, float32, float64, complex64 or complex128.
    incx : int
        Increment of x (negative walks from the far end; 0 repeats ``x[0]``).
    y : cupy.ndarray
        1-D buffer of x's dtype, updated in place.
    incy : int
        Increment of y, nonzero.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or different dtypes, complex alpha for real vectors.
    ValueError
        Buffers not 1-D, too short for ``n``/``inc``, or ``incy == 0``.

    Examples
    --------
    >>> import cupy, rocarray as ra
    >>> x = cupy.arange(4.0); y = cupy.ones(4)
    >>> ra.rocblas.axpy(4, 2.0, x, 1, y, 1)   # doctest: +SKIP
    >>> y                                      # doctest: +SKIP
    array([1., 3., 5., 7.])
    """
    fn = "axpy"
    n, incx, incy = _ints(fn, n, incx, incy)
    key = _key("rocblas.axpy", n, incx, incy, type(alpha), x, y)
    run = None if key is None else plans.cache.get(key)
    if run is None:
        dtype = _check_pair(fn, x, y)
        any_scalar(alpha, "alpha", fn)
        if dtype.kind != "c" and is_complex_scalar(alpha):
            raise TypeError(f"rocblas.{fn}: complex alpha needs complex vectors, got {dtype.name}")
        if n <= 0:
            return None
        vx = vector(x, n, incx, "x", fn)
        vy = vector(y, n, incy, "y", fn, write=True)
        if alpha == 0:
            return None
        if vx.step == vy.step and vx.step < 0:
            vx, vy = vx.reversed(), vy.reversed()
        device_id = x.data.device_id
        with launch.on_device(device_id):
            run = _axpy_plan(device_id, dtype, n, vx, vy, _offset(vx, x), _offset(vy, y))
        if key is not None:
            plans.cache.put(key, run)
    run(alpha, x, y)
    return None


def _axpy_plan(device_id, dtype, n, vx, vy, ox, oy):
    """``run(alpha, x, y)``: the axpy launch on the buffers' addresses (nothing for ``alpha == 0``)."""
    convert = scalar_type(dtype)
    go = _prepare(kernel_name("axpy", dtype), device_id, n, dtype.itemsize, is_unit(vx, vy),
                  (numpy.int64(n), launch.scalar(convert), launch.POINTER, numpy.int64(vx.step), launch.POINTER,
                   numpy.int64(vy.step)))

    def run(alpha, x, y):
        if alpha != 0:
            go(convert(alpha), x.data.ptr + ox, y.data.ptr + oy)
    return _on_device(device_id, run)


def scal(n, alpha, x, incx):
    """``x := alpha * x`` (``rocblas_?scal``, and csscal/zdscal for a real alpha on complex x).

    Parameters
    ----------
    n : int
        Number of elements; ``n <= 0`` does nothing.
    alpha : scalar
        Host scalar; real or complex for complex x, real for real x.
    x : cupy.ndarray
        1-D buffer (float16, float32, float64, complex64, complex128), scaled in place.
    incx : int
        Increment; ``incx <= 0`` does nothing, as in the reference BLAS.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffer, unsupported dtype, complex alpha for a real x.
    ValueError
        Buffer not 1-D or too short for ``n``/``incx``.

    Examples
    --------
    >>> x = cupy.arange(3.0)
    >>> ra.rocblas.scal(3, 2.0, x, 1)   # doctest: +SKIP
    >>> x                                # doctest: +SKIP
    array([0., 2., 4.])
    """
    fn = "scal"
    n, incx, _ = _ints(fn, n, incx)
    key = _key("rocblas.scal", n, incx, 0, type(alpha), x)
    run = None if key is None else plans.cache.get(key)
    if run is None:
        check_buffer(x, "x", fn)
        dtype = check_dtype(fn, x.dtype)
        any_scalar(alpha, "alpha", fn)
        complex_alpha = is_complex_scalar(alpha)
        if dtype.kind != "c" and complex_alpha:
            raise TypeError(f"rocblas.{fn}: complex alpha needs a complex x, got {dtype.name}")
        if n <= 0 or incx <= 0:
            return None
        vx = vector(x, n, incx, "x", fn, write=True)
        if vx.step < 0:
            vx = vx.reversed()
        device_id = x.data.device_id
        convert = scalar_type(dtype, real=not complex_alpha)
        with launch.on_device(device_id):
            go = _prepare(kernel_name(fn, dtype, "complex" if complex_alpha else "real"), device_id, n,
                          dtype.itemsize, is_unit(vx),
                          (numpy.int64(n), launch.scalar(convert), launch.POINTER, numpy.int64(vx.step)))
        ox = _offset(vx, x)
        run = _on_device(device_id, lambda alpha, x: go(convert(alpha), x.data.ptr + ox))
        if key is not None:
            plans.cache.put(key, run)
    run(alpha, x)
    return None


def _copy_or_swap(fn, n, x, incx, y, incy):
    n, incx, incy = _ints(fn, n, incx, incy)
    key = _key("rocblas." + fn, n, incx, incy, None, x, y)
    run = None if key is None else plans.cache.get(key)
    if run is None:
        dtype = _check_pair(fn, x, y)
        if n <= 0:
            return None
        vx = vector(x, n, incx, "x", fn, write=(fn == "swap"))
        vy = vector(y, n, incy, "y", fn, write=True)
        if vx.step == vy.step and vx.step < 0:
            vx, vy = vx.reversed(), vy.reversed()
        device_id = x.data.device_id
        with launch.on_device(device_id):
            run = _copy_plan(fn, device_id, dtype, n, vx, vy, _offset(vx, x), _offset(vy, y))
        if key is not None:
            plans.cache.put(key, run)
    run(x, y)
    return None


def _copy_plan(fn, device_id, dtype, n, vx, vy, ox, oy):
    """``run(x, y)``: the copy or swap launches on the buffers' addresses."""
    itemsize, i64, P = dtype.itemsize, numpy.int64, launch.POINTER
    if itemsize < 16 and vx.step == 1 and vy.step == 1 and vx.address % 16 == 0 and vy.address % 16 == 0:
        # contiguous and 16-byte aligned: the body moves as 16-byte words (the faster kernel), the
        # leftover elements (< 16 bytes) take the element kernel
        words = n * itemsize // 16
        body = words * 16 // itemsize
        launches = []
        if words:
            launches.append((_prepare(kernel_name(fn, numpy.dtype(numpy.complex128)), device_id, words, 16, True,
                                      (i64(words), P, i64(1), P, i64(1))), 0))
        if body < n:
            launches.append((_prepare(kernel_name(fn, dtype), device_id, n - body, itemsize, True,
                                      (i64(n - body), P, i64(1), P, i64(1))), body * itemsize))
        launches = tuple(launches)

        def run(x, y):
            a, b = x.data.ptr + ox, y.data.ptr + oy
            for go, offset in launches:
                go(a + offset, b + offset)
        return _on_device(device_id, run)
    go = _prepare(kernel_name(fn, dtype), device_id, n, itemsize, is_unit(vx, vy),
                  (i64(n), P, i64(vx.step), P, i64(vy.step)))
    return _on_device(device_id, lambda x, y: go(x.data.ptr + ox, y.data.ptr + oy))


def copy(n, x, incx, y, incy):
    """``y := x`` (``rocblas_?copy``); bits are copied exactly.

    Parameters
    ----------
    n : int
        Number of elements; ``n <= 0`` does nothing.
    x : cupy.ndarray
        1-D source buffer (float32, float64, complex64, complex128).
    incx : int
        Increment of x (0 repeats ``x[0]``).
    y : cupy.ndarray
        1-D destination buffer of x's dtype.
    incy : int
        Increment of y, nonzero.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or different dtypes.
    ValueError
        Buffers not 1-D, too short, or ``incy == 0``.

    Examples
    --------
    >>> x = cupy.arange(4.0); y = cupy.zeros(2)
    >>> ra.rocblas.copy(2, x, 2, y, 1)   # doctest: +SKIP
    >>> y                                 # doctest: +SKIP
    array([0., 2.])
    """
    return _copy_or_swap("copy", n, x, incx, y, incy)


def swap(n, x, incx, y, incy):
    """Exchange x and y (``rocblas_?swap``).

    Parameters
    ----------
    n : int
        Number of elements; ``n <= 0`` does nothing.
    x : cupy.ndarray
        1-D buffer, float32, float64, complex64 or complex128, updated in place.
    incx : int
        Increment of x, nonzero.
    y : cupy.ndarray
        1-D buffer of x's dtype, updated in place.
    incy : int
        Increment of y, nonzero.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or different dtypes.
    ValueError
        Buffers not 1-D, too short, or a zero increment.

    Examples
    --------
    >>> x = cupy.zeros(3); y = cupy.ones(3)
    >>> ra.rocblas.swap(3, x, 1, y, 1)   # doctest: +SKIP
    >>> x                                 # doctest: +SKIP
    array([1., 1., 1.])
    """
    return _copy_or_swap("swap", n, x, incx, y, incy)


def rot(n, x, incx, y, incy, c, s):
    """Apply a plane rotation (``rocblas_?rot``, csrot/zdrot and crot/zrot).

    ``x_i := c * x_i + s * y_i`` and ``y_i := c * y_i - conj(s) * x_i`` for every i.

    Parameters
    ----------
    n : int
        Number of elements; ``n <= 0`` does nothing.
    x : cupy.ndarray
        1-D buffer, float32, float64, complex64 or complex128, updated in place.
    incx : int
        Increment of x, nonzero.
    y : cupy.ndarray
        1-D buffer of x's dtype, updated in place.
    incy : int
        Increment of y, nonzero.
    c : real scalar
        Host scalar.
    s : scalar
        Host scalar; real, or complex for complex vectors.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or different dtypes, complex ``c``, complex ``s`` for real
        vectors.
    ValueError
        Buffers not 1-D, too short, or a zero increment.

    Examples
    --------
    >>> x = cupy.ones(2); y = cupy.zeros(2)
    >>> ra.rocblas.rot(2, x, 1, y, 1, 0.0, 1.0)   # doctest: +SKIP
    >>> y                                          # doctest: +SKIP
    array([-1., -1.])
    """
    fn = "rot"
    n, incx, incy = _ints(fn, n, incx, incy)
    key = _key("rocblas.rot", n, incx, incy, (type(c), type(s)), x, y)
    run = None if key is None else plans.cache.get(key)
    if run is None:
        dtype = _check_pair(fn, x, y)
        real_scalar(c, "c", fn)
        any_scalar(s, "s", fn)
        complex_s = is_complex_scalar(s)
        if dtype.kind != "c" and complex_s:
            raise TypeError(f"rocblas.{fn}: complex s needs complex vectors, got {dtype.name}")
        if n <= 0:
            return None
        vx = vector(x, n, incx, "x", fn, write=True)
        vy = vector(y, n, incy, "y", fn, write=True)
        if vx.step == vy.step and vx.step < 0:
            vx, vy = vx.reversed(), vy.reversed()
        device_id = x.data.device_id
        real, convert = scalar_type(dtype, real=True), scalar_type(dtype, real=not complex_s)
        with launch.on_device(device_id):
            go = _prepare(kernel_name(fn, dtype, "complex" if complex_s else "real"), device_id, n, dtype.itemsize,
                          is_unit(vx, vy), (numpy.int64(n), launch.POINTER, numpy.int64(vx.step), launch.POINTER,
                                            numpy.int64(vy.step), launch.scalar(real), launch.scalar(convert)))
        ox, oy = _offset(vx, x), _offset(vy, y)
        run = _on_device(device_id, lambda c, s, x, y: go(x.data.ptr + ox, y.data.ptr + oy, real(c), convert(s)))
        if key is not None:
            plans.cache.put(key, run)
    run(c, s, x, y)
    return None


# --------------------------------------------------------------------------------------------
# reductions
# --------------------------------------------------------------------------------------------

def _dot(fn, n, x, incx, y, incy, result):
    n, incx, incy = _ints(fn, n, incx, incy)
    key = _key("rocblas." + fn, n, incx, incy, None, x, y, result)
    run = None if key is None else plans.cache.get(key)
    if run is None:
        dtype = _check_pair(fn, x, y)
        device_id = x.data.device_id
        if n <= 0:
            with launch.on_device(device_id):
                return _zero_result(result, dtype, fn)
        vx = vector(x, n, incx, "x", fn)
        vy = vector(y, n, incy, "y", fn)
        if vx.step == vy.step and vx.step < 0:
            vx, vy = vx.reversed(), vy.reversed()
        with launch.on_device(device_id):
            if result is not None:
                _result(result, dtype, fn)  # checked before the plan
            name = kernel_name("dotc" if fn == "dotc" and dtype.kind == "c" else "dot", dtype)
            go = _prepare(name, device_id, n, dtype.itemsize, is_unit(vx, vy),
                          (numpy.int64(n), launch.POINTER, numpy.int64(vx.step), launch.POINTER, numpy.int64(vy.step),
                           launch.POINTER, launch.POINTER), reduction=True)
            reduce = _reduction(go, device_id, dtype, fn)
        ox, oy = _offset(vx, x), _offset(vy, y)
        run = _on_device(device_id, lambda x, y, result: reduce(result, x.data.ptr + ox, y.data.ptr + oy))
        if key is not None:
            plans.cache.put(key, run)
    return run(x, y, result)


def dot(n, x, incx, y, incy, *, result=None):
    """Dot product ``sum_i x_i * y_i`` (``rocblas_?dot``, ?dotu for complex), on the device.

    Parameters
    ----------
    n : int
        Number of elements; ``n <= 0`` gives 0.
    x : cupy.ndarray
        1-D buffer: float16 (accumulated in float32), float32, float64, complex64, complex128.
    incx : int
        Increment of x (negative walks from the far end; 0 repeats element 0).
    y : cupy.ndarray
        1-D buffer of x's dtype.
    incy : int
        Increment of y (negative walks from the far end; 0 repeats element 0).
    result : cupy.ndarray, optional
        0-d device array of x's dtype to write into (rocBLAS's result pointer).

    Returns
    -------
    cupy.ndarray
        0-d array of x's dtype (``result`` when given). The call does not synchronize.

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or different dtypes.
    ValueError
        Buffers not 1-D or too short for ``n``/``inc``; ``result`` of the wrong shape/dtype.

    Examples
    --------
    >>> x = cupy.arange(3.0)
    >>> ra.rocblas.dot(3, x, 1, x, 1)   # doctest: +SKIP
    array(5.)
    """
    return _dot("dot", n, x, incx, y, incy, result)


def dotc(n, x, incx, y, incy, *, result=None):
    """Conjugated dot product ``sum_i conj(x_i) * y_i`` (``rocblas_?dotc``), on the device.

    Real vectors give the plain dot product.

    Parameters
    ----------
    n : int
        Number of elements; ``n <= 0`` gives 0.
    x : cupy.ndarray
        1-D buffer, float32, float64, complex64 or complex128.
    incx : int
        Increment of x.
    y : cupy.ndarray
        1-D buffer of x's dtype.
    incy : int
        Increment of y.
    result : cupy.ndarray, optional
        0-d device array of x's dtype to write into.

    Returns
    -------
    cupy.ndarray
        0-d array of x's dtype.

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or different dtypes.
    ValueError
        Buffers not 1-D or too short for ``n``/``inc``.

    Examples
    --------
    >>> z = cupy.array([1j, 2])
    >>> ra.rocblas.dotc(2, z, 1, z, 1)   # doctest: +SKIP
    array(5.+0.j)
    """
    return _dot("dotc", n, x, incx, y, incy, result)


def _reduce_one(fn, n, x, incx, result, out_dtype, nonpositive_inc_is_zero):
    n, incx, _ = _ints(fn, n, incx)
    key = _key("rocblas." + fn, n, incx, 0, None, x, None, result)
    run = None if key is None else plans.cache.get(key)
    if run is None:
        check_buffer(x, "x", fn)
        dtype = check_dtype(fn, x.dtype)
        out_dtype = out_dtype(dtype)
        device_id = x.data.device_id
        if n <= 0 or (nonpositive_inc_is_zero and incx <= 0):
            with launch.on_device(device_id):
                return _zero_result(result, out_dtype, fn)
        vx = vector(x, n, incx, "x", fn)
        if vx.step < 0 and fn in ("nrm2", "asum"):
            vx = vx.reversed()
        with launch.on_device(device_id):
            if result is not None:
                _result(result, out_dtype, fn)  # checked before the plan
            go = _prepare(kernel_name(fn, dtype), device_id, n, dtype.itemsize, is_unit(vx),
                          (numpy.int64(n), launch.POINTER, numpy.int64(vx.step), launch.POINTER, launch.POINTER),
                          reduction=True)
            reduce = _reduction(go, device_id, out_dtype, fn)
        ox = _offset(vx, x)
        run = _on_device(device_id, lambda x, result: reduce(result, x.data.ptr + ox))
        if key is not None:
            plans.cache.put(key, run)
    return run(x, result)


def nrm2(n, x, incx, *, result=None):
    """Euclidean norm ``sqrt(sum_i |x_i|^2)`` without overflow or underflow (``rocblas_?nrm2``).

    Uses Blue's algorithm with LAPACK 3.10's fixed scaling constants (three accumulators for
    small, medium and big magnitudes), so values near the overflow and underflow thresholds give
    accurate norms. As in LAPACK 3.10, a negative ``incx`` walks from the far end and ``incx = 0``
    gives ``sqrt(n) * |x[0]|``. NaN anywhere gives NaN; otherwise an infinity gives inf.

    Parameters
    ----------
    n : int
        Number of elements; ``n <= 0`` gives 0.
    x : cupy.ndarray
        1-D buffer (float32, float64, complex64, complex128).
    incx : int
        Increment.
    result : cupy.ndarray, optional
        0-d device array of the real dtype to write into.

    Returns
    -------
    cupy.ndarray
        0-d array of the real dtype of x.

    Raises
    ------
    TypeError
        Non-CuPy buffer or unsupported dtype.
    ValueError
        Buffer not 1-D or too short.

    Examples
    --------
    >>> x = cupy.array([3.0, 4.0])
    >>> ra.rocblas.nrm2(2, x, 1)   # doctest: +SKIP
    array(5.)
    """
    return _reduce_one("nrm2", n, x, incx, result, real_dtype, False)


def asum(n, x, incx, *, result=None):
    """Sum of magnitudes ``sum_i |re(x_i)| + |im(x_i)|`` (``rocblas_?asum``).

    Parameters
    ----------
    n : int
        Number of elements; ``n <= 0`` gives 0.
    x : cupy.ndarray
        1-D buffer (float32, float64, complex64, complex128).
    incx : int
        Increment; ``incx <= 0`` gives 0, as in the reference BLAS.
    result : cupy.ndarray, optional
        0-d device array of the real dtype to write into.

    Returns
    -------
    cupy.ndarray
        0-d array of the real dtype of x.

    Raises
    ------
    TypeError
        Non-CuPy buffer or unsupported dtype.
    ValueError
        Buffer not 1-D or too short.

    Examples
    --------
    >>> x = cupy.array([1.0, -2.0])
    >>> ra.rocblas.asum(2, x, 1)   # doctest: +SKIP
    array(3.)
    """
    return _reduce_one("asum", n, x, incx, result, real_dtype, True)


def _index_dtype(_dtype):
    return numpy.dtype(numpy.int64)


def iamax(n, x, incx, *, result=None):
    """1-based index of the first element of largest ``|re| + |im|`` (``rocblas_i?amax``).

    NaN elements are skipped (never selected); when every element is NaN the result is 1. This
    matches the reference BLAS except when ``x[0]`` is NaN, where the reference returns 1.

    Parameters
    ----------
    n : int
        Number of elements; ``n < 1`` gives 0.
    x : cupy.ndarray
        1-D buffer (float32, float64, complex64, complex128).
    incx : int
        Increment; ``incx <= 0`` gives 0.
    result : cupy.ndarray, optional
        0-d int64 device array to write into.

    Returns
    -------
    cupy.ndarray
        0-d int64 array.

    Raises
    ------
    TypeError
        Non-CuPy buffer or unsupported dtype.
    ValueError
        Buffer not 1-D or too short.

    Examples
    --------
    >>> x = cupy.array([1.0, -3.0, 3.0])
    >>> ra.rocblas.iamax(3, x, 1)   # doctest: +SKIP
    array(2)
    """
    return _reduce_one("iamax", n, x, incx, result, _index_dtype, True)


def iamin(n, x, incx, *, result=None):
    """1-based index of the first element of smallest ``|re| + |im|`` (``rocblas_i?amin``).

    NaN elements are skipped; when every element is NaN the result is 1.

    Parameters
    ----------
    n : int
        Number of elements; ``n < 1`` gives 0.
    x : cupy.ndarray
        1-D buffer (float32, float64, complex64, complex128).
    incx : int
        Increment; ``incx <= 0`` gives 0.
    result : cupy.ndarray, optional
        0-d int64 device array to write into.

    Returns
    -------
    cupy.ndarray
        0-d int64 array.

    Raises
    ------
    TypeError
        Non-CuPy buffer or unsupported dtype.
    ValueError
        Buffer not 1-D or too short.

    Examples
    --------
    >>> x = cupy.array([2.0, -1.0, 1.0])
    >>> ra.rocblas.iamin(3, x, 1)   # doctest: +SKIP
    array(2)
    """
    return _reduce_one("iamin", n, x, incx, result, _index_dtype, True)
