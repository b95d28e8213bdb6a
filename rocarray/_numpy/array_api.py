"""The Python Array API standard (2024.12) on top of the NumPy-named façade.

``rocarray`` is an Array API namespace: every name the standard specifies is reachable from
``rocarray``, ``rocarray.linalg`` and ``rocarray.fft``. Most come from rocarray's kernels or fall
through to CuPy unchanged; this module holds the ones where CuPy's function disagrees with the
standard, each keeping NumPy 2.x's signature and behaviour and adding what the standard asks for:

==========================  ==================================================================
``__array_api_version__``   ``"2024.12"``
``__array_namespace_info__``  the inspection namespace (:class:`ArrayNamespaceInfo`)
``arange`` ``empty`` ...    the creation functions take the keyword-only ``device=``
``astype``                  ``device=``
``clip``                    ``min``/``max`` as the second and third parameters, both optional
``reshape``                 the parameter is ``shape``; ``copy=`` is honoured
``take_along_axis``         ``axis`` defaults to -1
``repeat``                  ``repeats`` may be a device array
shapes                      a 0-d integer device array counts as an int (NumPy takes such
                            arrays through ``__index__``, which CuPy's array lacks)
``std`` ``var``             ``correction=``
``meshgrid``                inspectable ``indexing=``, ``sparse=``, ``copy=``
``from_dlpack``             ``device=`` takes an array-API device (a ``cupy.cuda.Device``)
``vecdot`` ``unstack``      missing from CuPy
==========================  ==================================================================

Devices are ``cupy.cuda.Device`` objects (what ``x.device`` returns). ``device=None`` means the
current CuPy device; ``"cpu"``, NumPy's only value, is accepted and also gives an array on the
current device (as :func:`rocarray.fft.fftfreq` does); anything else raises ``ValueError``.
"""

import contextlib
import operator

import numpy

from rocarray._core import backend
from rocarray._core.args import as_device_array, normalize_axis
from rocarray._user import profile as _profile

__array_api_version__ = "2024.12"

# The standard's dtypes, in the order NumPy's inspection namespace lists them.
_KIND_NAMES = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KIND_NAMES["integral"] = _KIND_NAMES["signed integer"] + _KIND_NAMES["unsigned integer"]
_KIND_NAMES["numeric"] = (_KIND_NAMES["integral"] + _KIND_NAMES["real floating"]
                          + _KIND_NAMES["complex floating"])
_ALL_NAMES = _KIND_NAMES["bool"] + _KIND_NAMES["numeric"]

# CuPy's limit on array dimensions (``cupy.ndarray`` stores strides in a fixed-size table).
_MAX_DIMENSIONS = 64


def device_scope(device, name="device"):
    """A context manager that makes ``device`` current (``None`` or ``"cpu"``: no change).

    Parameters
    ----------
    device : None, "cpu" or cupy.cuda.Device
        An array-API device of this namespace.
    name : str
        The argument's name, for the error message.

    Returns
    -------
    contextlib.AbstractContextManager

    Raises
    ------
    ValueError
        For any other value.
    """
    if device is None or (isinstance(device, str) and device == "cpu"):
        return contextlib.nullcontext()
    device_type = getattr(getattr(backend.cupy_module(), "cuda", None), "Device", None)
    if isinstance(device_type, type) and isinstance(device, device_type):
        return device
    raise ValueError(f"{name} must be None or a cupy.cuda.Device (see "
                     f"rocarray.__array_namespace_info__().devices()), got {device!r}")


def _dtype_kinds(kind):
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = []
    for k in kinds:
        if isinstance(k, str) and k in _KIND_NAMES:
            names += [n for n in _KIND_NAMES[k] if n not in names]
        else:
            raise ValueError(f"kind must be None, one of {sorted(_KIND_NAMES)} or a tuple of "
                             f"them, got {k!r}")
    return names


class ArrayNamespaceInfo:
    """The standard's inspection namespace of ``rocarray`` (``ra.__array_namespace_info__()``).

    Devices are ``cupy.cuda.Device`` objects. Every device supports the same dtypes: the standard's
    boolean, integer, real and complex floating dtypes (rocarray also has ``float16``, which the
    standard does not list).

    Examples
    --------
    >>> info = ra.__array_namespace_info__()
    >>> info.default_dtypes()["real floating"]
    dtype('float64')
    """

    __module__ = "rocarray"

    def capabilities(self):
        """What the namespace supports beyond the required API.

        Returns
        -------
        dict
            ``"boolean indexing"`` and ``"data-dependent shapes"``: True (CuPy supports both);
            ``"max dimensions"``: 64 (CuPy's limit).
        """
        return {"boolean indexing": True, "data-dependent shapes": True,
                "max dimensions": _MAX_DIMENSIONS}

    def default_device(self):
        """The device arrays are created on when ``device=None``: CuPy's current device.

        Returns
        -------
        cupy.cuda.Device

        Raises
        ------
        NoDeviceError
            Without CuPy or a GPU.
        """
        backend.device_info()  # NoDeviceError saying what is missing
        return backend.cupy().cuda.Device()

    def devices(self):
        """Every visible GPU.

        Returns
        -------
        list of cupy.cuda.Device
            Empty on a machine without CuPy or a GPU.
        """
        count = backend.device_count()
        if count == 0:
            return []
        cupy = backend.cupy()
        return [cupy.cuda.Device(i) for i in range(count)]

    def default_dtypes(self, *, device=None):
        """The default dtypes (NumPy's: float64, complex128, the platform integer ``intp``).

        Parameters
        ----------
        device : None or cupy.cuda.Device, optional
            The same on every device.

        Returns
        -------
        dict
            Keys ``"real floating"``, ``"complex floating"``, ``"integral"``, ``"indexing"``.
        """
        device_scope(device)
        return {"real floating": numpy.dtype(numpy.float64),
                "complex floating": numpy.dtype(numpy.complex128),
                "integral": numpy.dtype(numpy.intp), "indexing": numpy.dtype(numpy.intp)}

    def dtypes(self, *, device=None, kind=None):
        """The standard's dtypes the namespace supports, by name.

        Parameters
        ----------
        device : None or cupy.cuda.Device, optional
            The same on every device.
        kind : None, str or tuple of str, optional
            ``"bool"``, ``"signed integer"``, ``"unsigned integer"``, ``"integral"``,
            ``"real floating"``, ``"complex floating"``, ``"numeric"``, or a tuple of these
            (the union); None: every dtype.

        Returns
        -------
        dict
            Name (``"float32"``, ...) to ``numpy.dtype``.

        Raises
        ------
        ValueError
            For an unknown ``kind`` or ``device``.
        """
        device_scope(device)
        names = _ALL_NAMES if kind is None else _dtype_kinds(kind)
        return {n: numpy.dtype(n) for n in names}


def __array_namespace_info__():
    """The Array API inspection namespace of ``rocarray``.

    Returns
    -------
    ArrayNamespaceInfo
        With ``capabilities()``, ``default_device()``, ``default_dtypes()``, ``dtypes()`` and
        ``devices()``; works on a machine without a GPU (``devices()`` is then empty and
        ``default_device()`` raises :class:`~rocarray.NoDeviceError`).
    """
    return ArrayNamespaceInfo()


# ------------------------------------------------------------------------------------------------
# creation functions: NumPy's signatures with a device= that means a CuPy device
# ------------------------------------------------------------------------------------------------

def _cupy():
    cupy = backend.cupy()
    backend.device_info()  # a clear NoDeviceError before CuPy's own error
    return cupy


def _call(name):
    """CuPy's function ``name``, which does the work of the façade function of that name: inside
    a :func:`rocarray.profile` region each call is one ``cupy.<name>`` row, as a fall-through is."""
    return _profile.fallthrough(getattr(_cupy(), name), name)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """Evenly spaced values in ``[start, stop)`` (``numpy.arange``).

    Parameters
    ----------
    start : int or float
        Start, or the stop when ``stop`` is None.
    stop, step : int or float, optional
    dtype : data-type, optional
    device : None or cupy.cuda.Device, optional
        Where the result lives (default: the current device).

    Returns
    -------
    cupy.ndarray
    """
    with device_scope(device):
        return _call("arange")(start, stop, step, dtype=dtype)


def empty(shape, dtype=float, order="C", *, device=None):
    """An uninitialized array (``numpy.empty``) on ``device``.

    Parameters
    ----------
    shape : int or tuple of int
    dtype : data-type, optional
        Default float64.
    order : {'C', 'F'}, optional
    device : None or cupy.cuda.Device, optional

    Returns
    -------
    cupy.ndarray
    """
    with device_scope(device):
        return _call("empty")(_shape_arg(shape), dtype=_default_float(dtype), order=order)


def zeros(shape, dtype=float, order="C", *, device=None):
    """An array of zeros (``numpy.zeros``) on ``device``.

    Parameters
    ----------
    shape : int or tuple of int
    dtype : data-type, optional
        Default float64.
    order : {'C', 'F'}, optional
    device : None or cupy.cuda.Device, optional

    Returns
    -------
    cupy.ndarray
    """
    with device_scope(device):
        return _call("zeros")(_shape_arg(shape), dtype=_default_float(dtype), order=order)


def ones(shape, dtype=float, order="C", *, device=None):
    """An array of ones (``numpy.ones``) on ``device``.

    Parameters
    ----------
    shape : int or tuple of int
    dtype : data-type, optional
        Default float64.
    order : {'C', 'F'}, optional
    device : None or cupy.cuda.Device, optional

    Returns
    -------
    cupy.ndarray
    """
    with device_scope(device):
        return _call("ones")(_shape_arg(shape), dtype=_default_float(dtype), order=order)


def full(shape, fill_value, dtype=None, order="C", *, device=None):
    """An array filled with ``fill_value`` (``numpy.full``) on ``device``.

    Parameters
    ----------
    shape : int or tuple of int
    fill_value : scalar or array_like
    dtype : data-type, optional
        Default: NumPy's dtype of ``fill_value`` (a Python float gives float64).
    order : {'C', 'F'}, optional
    device : None or cupy.cuda.Device, optional

    Returns
    -------
    cupy.ndarray
    """
    with device_scope(device):
        out = _call("full")(_shape_arg(shape), fill_value, dtype=dtype, order=order)
        return _keep_negative_zero(out, fill_value)


def _negative_zero(value):
    """Whether the scalar ``value`` has a zero part with the sign bit set (-0.0, complex(-0.0, x))."""
    if not isinstance(value, (float, complex, numpy.floating, numpy.complexfloating)):
        return False
    parts = (value.real, value.imag) if isinstance(value, (complex, numpy.complexfloating)) else (value,)
    return any(p == 0 and numpy.signbit(p) for p in parts)


def _keep_negative_zero(out, fill_value):
    """``out`` filled with ``fill_value`` bit for bit: CuPy fills a value that compares equal to zero
    with a memset, which turns -0.0 into +0.0; such a value is copied from a host scalar instead."""
    if out.size and out.dtype.kind in "fc" and _negative_zero(fill_value):
        out[...] = device_scalar(fill_value, out.dtype)
    return out


def device_scalar(value, dtype=None):
    """A 0-d device array holding ``value`` (converted to ``dtype`` as NumPy would) bit for bit.

    CuPy fills a new 0-d array with ``fill``, which writes a value equal to zero with a memset and
    so turns -0.0 into +0.0; a one-element array is copied from the host and keeps the sign.
    """
    host = numpy.asarray(value, dtype=dtype)
    return _cupy().asarray(host.reshape(1)).reshape(())


def _index_value(value):
    """``value``, or the int a 0-d integer device array holds (NumPy reads such an array through
    ``__index__``, which CuPy's array does not have)."""
    if isinstance(value, _cupy().ndarray):
        if value.ndim != 0 or value.dtype.kind not in "iu":
            raise TypeError(f"only integer scalar arrays can be converted to a scalar index "
                            f"(got a {value.ndim}-d {value.dtype} array)")
        return int(value)
    return value


def _shape_arg(shape):
    """A shape argument with device integers (0-d arrays, or a 1-d array as the whole shape) read
    back as ints, as NumPy accepts them; anything else is passed on unchanged."""
    cupy = _cupy()
    if isinstance(shape, cupy.ndarray) and shape.ndim == 1:
        if shape.dtype.kind not in "iu":
            raise TypeError(f"expected a sequence of integers or a single integer, got a {shape.dtype} array")
        return tuple(int(v) for v in shape.tolist())
    if isinstance(shape, (tuple, list)):
        return tuple(_index_value(v) for v in shape)
    return _index_value(shape)


def _like(name, a, dtype, order, subok, shape, device, *fill):
    if device is None:
        device = getattr(a, "device", None)
    if shape is not None:
        shape = _shape_arg(shape)
    with device_scope(device):
        out = _call(name)(a, *fill, dtype=dtype, order=order, subok=subok, shape=shape)
        return _keep_negative_zero(out, fill[0]) if fill else out


def empty_like(prototype, /, dtype=None, order="K", subok=None, shape=None, *, device=None):
    """An uninitialized array like ``prototype`` (``numpy.empty_like``).

    Parameters
    ----------
    prototype : cupy.ndarray
    dtype : data-type, optional
    order : {'C', 'F', 'A', 'K'}, optional
    subok : None
        Must be None (CuPy has no subclasses).
    shape : int or tuple of int, optional
    device : None or cupy.cuda.Device, optional
        Default: ``prototype``'s device.

    Returns
    -------
    cupy.ndarray
    """
    return _like("empty_like", prototype, dtype, order, subok, shape, device)


def zeros_like(a, dtype=None, order="K", subok=None, shape=None, *, device=None):
    """An array of zeros like ``a`` (``numpy.zeros_like``).

    Parameters
    ----------
    a : cupy.ndarray
    dtype : data-type, optional
    order : {'C', 'F', 'A', 'K'}, optional
    subok : None
        Must be None (CuPy has no subclasses).
    shape : int or tuple of int, optional
    device : None or cupy.cuda.Device, optional
        Default: ``a``'s device.

    Returns
    -------
    cupy.ndarray
    """
    return _like("zeros_like", a, dtype, order, subok, shape, device)


def ones_like(a, dtype=None, order="K", subok=None, shape=None, *, device=None):
    """An array of ones like ``a`` (``numpy.ones_like``).

    Parameters
    ----------
    a : cupy.ndarray
    dtype : data-type, optional
    order : {'C', 'F', 'A', 'K'}, optional
    subok : None
        Must be None (CuPy has no subclasses).
    shape : int or tuple of int, optional
    device : None or cupy.cuda.Device, optional
        Default: ``a``'s device.

    Returns
    -------
    cupy.ndarray
    """
    return _like("ones_like", a, dtype, order, subok, shape, device)


def full_like(a, fill_value, dtype=None, order="K", subok=None, shape=None, *, device=None):
    """An array like ``a`` filled with ``fill_value`` (``numpy.full_like``).

    Parameters
    ----------
    a : cupy.ndarray
    fill_value : scalar
    dtype : data-type, optional
    order : {'C', 'F', 'A', 'K'}, optional
    subok : None
        Must be None (CuPy has no subclasses).
    shape : int or tuple of int, optional
    device : None or cupy.cuda.Device, optional
        Default: ``a``'s device.

    Returns
    -------
    cupy.ndarray
    """
    return _like("full_like", a, dtype, order, subok, shape, device, fill_value)


def eye(N, M=None, k=0, dtype=float, order="C", *, device=None):
    """A 2-D array with ones on the ``k``-th diagonal (``numpy.eye``).

    Parameters
    ----------
    N : int
        Rows.
    M : int, optional
        Columns (default ``N``).
    k : int, optional
        Diagonal offset.
    dtype : data-type, optional
        Default float64.
    order : {'C', 'F'}, optional
    device : None or cupy.cuda.Device, optional

    Returns
    -------
    cupy.ndarray
    """
    with device_scope(device):
        return _call("eye")(N, M, k=k, dtype=_default_float(dtype), order=order)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    """``num`` evenly spaced samples over ``[start, stop]`` (``numpy.linspace``).

    Parameters
    ----------
    start, stop : scalar or array_like
    num : int, optional
    endpoint : bool, optional
    retstep : bool, optional
    dtype : data-type, optional
    axis : int, optional
    device : None or cupy.cuda.Device, optional

    Returns
    -------
    cupy.ndarray or (cupy.ndarray, float)
    """
    with device_scope(device):
        return _call("linspace")(start, stop, num, endpoint=endpoint, retstep=retstep,
                                dtype=dtype, axis=axis)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from 1-D coordinate vectors (``numpy.meshgrid``).

    Parameters
    ----------
    *xi : cupy.ndarray
        1-D arrays.
    copy : bool, optional
    sparse : bool, optional
    indexing : {'xy', 'ij'}, optional

    Returns
    -------
    tuple of cupy.ndarray
    """
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    return tuple(_call("meshgrid")(*xi, copy=copy, sparse=sparse, indexing=indexing))


def from_dlpack(x, /, *, device=None, copy=None):
    """A device array sharing (or copying) the memory of a DLPack-exporting object.

    Parameters
    ----------
    x : object
        Implements ``__dlpack__`` and ``__dlpack_device__``.
    device : None or cupy.cuda.Device, optional
        Where the result lives; default: where ``x`` lives (a host array is copied to the current
        device, as CuPy does).
    copy : bool, optional
        ``True``: always copy; ``False``: never copy (``BufferError`` where the data would have to
        move); ``None``: copy only when needed.

    Returns
    -------
    cupy.ndarray
    """
    cupy = _cupy()
    device_scope(device)  # ValueError for anything but None / "cpu" / a CuPy device
    # CuPy's exporters copy only to the host: a copy on the device is made here
    if isinstance(device, cupy.cuda.Device):
        with device:
            result = _call("from_dlpack")(x, copy=None if copy else copy)
        if result.device != device or copy:
            if copy is False:
                raise BufferError(f"from_dlpack(copy=False): the data is on {result.device}, "
                                  f"not {device}")
            with device:
                result = result.copy()
        return result
    result = _call("from_dlpack")(x, copy=None if copy else copy)
    return result.copy() if copy and result.data.ptr == getattr(getattr(x, "data", None), "ptr", None) else result


def _default_float(dtype):
    return numpy.float64 if dtype is None else dtype


# ------------------------------------------------------------------------------------------------
# data type functions
# ------------------------------------------------------------------------------------------------

def astype(x, dtype, /, *, copy=True, device=None):
    """Copy of ``x`` cast to ``dtype`` (``numpy.astype``), optionally on another device.

    Parameters
    ----------
    x : cupy.ndarray
    dtype : data-type
    copy : bool, optional
        False returns ``x`` itself when nothing changes.
    device : None or cupy.cuda.Device, optional
        Default: ``x``'s device.

    Returns
    -------
    cupy.ndarray
    """
    x = as_device_array(x, "x")
    device_scope(device)
    if device is None or isinstance(device, str) or device == x.device:
        return x.astype(dtype, copy=copy)
    with device:
        return _cupy().array(x, dtype=dtype, copy=True)


# ------------------------------------------------------------------------------------------------
# elementwise, manipulation, indexing, statistics
# ------------------------------------------------------------------------------------------------

_NO_VALUE = numpy._NoValue


def _bound(std_value, numpy_value, std_name, numpy_name):
    if numpy_value is not _NO_VALUE:
        if std_value is not None:
            raise TypeError(f"clip() got both {std_name!r} and {numpy_name!r}")
        return numpy_value
    return std_value


def clip(a, /, min=None, max=None, out=None, *, a_min=_NO_VALUE, a_max=_NO_VALUE):  # noqa: A002
    """Limit the values of an array to ``[min, max]`` (``numpy.clip``).

    Parameters
    ----------
    a : cupy.ndarray
    min, max : scalar, cupy.ndarray or None, optional
        Bounds; None leaves that side open.
    out : cupy.ndarray, optional
    a_min, a_max : scalar, cupy.ndarray or None, optional
        NumPy's older keywords for the same bounds (giving both spellings is a ``TypeError``).

    Returns
    -------
    cupy.ndarray
        With both bounds None, a copy of ``a`` (or ``out`` filled with it).
    """
    a = as_device_array(a, "a")
    lo = _bound(min, a_min, "min", "a_min")
    hi = _bound(max, a_max, "max", "a_max")
    if lo is None and hi is None:
        if out is None:
            return a.copy()
        out[...] = a
        return out
    return _call("clip")(a, lo, hi, out=out)


def reshape(a, /, shape, order="C", *, copy=None):
    """A view (or copy) of ``a`` with a new shape (``numpy.reshape``).

    Parameters
    ----------
    a : cupy.ndarray
    shape : int or tuple of int
        One entry may be -1.
    order : {'C', 'F', 'A'}, optional
    copy : bool, optional
        True: always copy; False: never copy (``ValueError`` where a view is impossible);
        None: copy only when needed.

    Returns
    -------
    cupy.ndarray
    """
    a = as_device_array(a, "a")
    return _call("reshape")(a, _shape_arg(shape), order=order, copy=copy)


def take_along_axis(arr, indices, axis=-1):
    """Take values from ``arr`` at ``indices`` along ``axis`` (``numpy.take_along_axis``).

    Parameters
    ----------
    arr : cupy.ndarray
    indices : cupy.ndarray
        Integer indices, broadcast against ``arr`` except along ``axis``.
    axis : int or None, optional
        Default -1; None works on the flattened array.

    Returns
    -------
    cupy.ndarray
    """
    return _call("take_along_axis")(arr, indices, axis)


def repeat(a, repeats, axis=None):
    """Repeat elements of an array (``numpy.repeat``).

    Parameters
    ----------
    a : cupy.ndarray
    repeats : int, sequence of int or cupy.ndarray
        A device array of integers is read back to the host (its values decide the result's
        shape).
    axis : int, optional
        Default: repeat the flattened array.

    Returns
    -------
    cupy.ndarray
    """
    cupy = _cupy()
    if isinstance(repeats, (cupy.ndarray, numpy.ndarray)):
        repeats = int(repeats) if repeats.ndim == 0 else repeats.tolist()
    return _call("repeat")(a, repeats, axis)


def _ddof(ddof, correction):
    if correction is None:
        return ddof
    if ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None):
    """Standard deviation along axes (``numpy.std``).

    Parameters
    ----------
    a : cupy.ndarray
    axis : int or tuple of int, optional
    dtype : data-type, optional
    out : cupy.ndarray, optional
    ddof : int or float, optional
        Divisor ``N - ddof``.
    keepdims : bool, optional
    correction : int or float, optional
        The standard's name for ``ddof`` (giving both is a ``ValueError``).

    Returns
    -------
    cupy.ndarray
    """
    return _call("std")(a, axis=axis, dtype=dtype, out=out, ddof=_ddof(ddof, correction),
                       keepdims=keepdims)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None):
    """Variance along axes (``numpy.var``).

    Parameters
    ----------
    a : cupy.ndarray
    axis : int or tuple of int, optional
    dtype : data-type, optional
    out : cupy.ndarray, optional
    ddof : int or float, optional
        Divisor ``N - ddof``.
    keepdims : bool, optional
    correction : int or float, optional
        The standard's name for ``ddof`` (giving both is a ``ValueError``).

    Returns
    -------
    cupy.ndarray
    """
    return _call("var")(a, axis=axis, dtype=dtype, out=out, ddof=_ddof(ddof, correction),
                       keepdims=keepdims)


def vecdot(x1, x2, /, *, axis=-1):
    """Vector dot product ``sum(conj(x1) * x2)`` along ``axis`` (``numpy.vecdot``).

    Parameters
    ----------
    x1, x2 : cupy.ndarray
        Numeric; broadcast against each other except along ``axis``, where their sizes must be
        equal.
    axis : int, optional
        The axis of each operand holding the vectors (default -1).

    Returns
    -------
    cupy.ndarray
        The broadcast shape without ``axis``; dtype ``result_type(x1, x2)``.

    Raises
    ------
    ValueError
        When an operand is 0-D or the vector lengths differ.
    numpy.exceptions.AxisError
        When ``axis`` is out of range.
    """
    from rocarray._numpy.reductions import sum as _sum

    x1 = as_device_array(x1, "x1")
    x2 = as_device_array(x2, "x2")
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("vecdot: x1 and x2 must have at least one dimension")
    axis = operator.index(axis)
    cupy = _cupy()
    a = cupy.moveaxis(x1, normalize_axis(axis, x1.ndim), -1)
    b = cupy.moveaxis(x2, normalize_axis(axis, x2.ndim), -1)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"vecdot: x1 has {a.shape[-1]} elements along axis {axis}, "
                         f"x2 has {b.shape[-1]}")
    dtype = cupy.result_type(a, b)
    if dtype.kind == "c":
        a = cupy.conj(a)
    return _sum(cupy.multiply(a, b, dtype=dtype), axis=-1, dtype=dtype)


def unstack(x, /, *, axis=0):
    """Split an array into a tuple of views along ``axis`` (``numpy.unstack``).

    Parameters
    ----------
    x : cupy.ndarray
    axis : int, optional

    Returns
    -------
    tuple of cupy.ndarray
        ``x.shape[axis]`` arrays of ``x.ndim - 1`` dimensions.

    Raises
    ------
    ValueError
        For a 0-D ``x``.
    """
    x = as_device_array(x, "x")
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    moved = backend.cupy().moveaxis(x, normalize_axis(axis, x.ndim), 0)
    return tuple(moved[i] for i in range(moved.shape[0]))
