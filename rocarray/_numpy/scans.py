"""NumPy-named scan façade: ``cumsum``, ``cumprod``, ``nancumsum``, ``nancumprod``.

Arguments are checked and normalized here, once, in NumPy's words; the work is one call of
:func:`rocarray.prim.inclusive_scan` (hand-written decoupled look-back kernels). Semantics follow
NumPy: ``axis=None`` scans the C-order flattening; a 0-d input acts as shape ``(1,)``; the result
dtype is ``dtype``, else ``out.dtype`` when ``out`` is given (NumPy's accumulate rule), else
NumPy's accumulation rule (bool and small signed integers -> int64, small unsigned -> uint64);
integer overflow wraps; ``cumsum``/``cumprod`` propagate NaN, ``nancumsum``/``nancumprod`` treat
NaN as 0/1. float16 accumulates in float32 internally (more accurate than NumPy). Results are
bitwise identical run to run. Host (NumPy) arrays raise ``TypeError`` (the project rule, see
:mod:`rocarray._core.args`).
"""

import numpy

from rocarray._core import backend, dtypes
from rocarray._core.args import as_device_array, normalize_axis
from rocarray.prim import _scan


def _check_out(out, shape):
    cupy = backend.cupy()
    if not isinstance(out, cupy.ndarray):
        if isinstance(out, numpy.ndarray):
            as_device_array(out, "out")  # the project's host-array TypeError
        raise TypeError("output must be an array")
    if out.shape != shape and not (out.size == 1 and shape == (1,) and out.ndim <= 1):
        raise ValueError("provided out is the wrong size for the accumulation.")
    return out


def _accumulate(a, axis, dtype, out, op, nan):
    a = as_device_array(a, "a", allow_scalar=True)
    if axis is None or a.ndim == 0:
        if axis is not None:
            normalize_axis(axis, 1)  # a 0-d array scans as shape (1,): axis 0 or -1 only
        if a.ndim != 1:
            a = a.reshape(-1)
        axis = 0
    else:
        axis = normalize_axis(axis, a.ndim)
    if out is not None:
        _check_out(out, a.shape)
    if dtype is not None:
        dtype = numpy.dtype(dtype)
    elif out is not None:
        dtype = out.dtype
    else:
        dtype = _scan.accumulation_dtype(a.dtype)
    if dtype not in dtypes.CTYPES:
        raise TypeError(f"{'nan' if nan else ''}cum{'sum' if op == 'add' else 'prod'}: unsupported dtype {dtype.name}")
    target = out.reshape(a.shape) if out is not None and out.shape != a.shape else out
    nan = nan and a.dtype.kind in "fc"
    if nan and dtype.kind not in "fc":  # NaN must become the identity before a cast to integers
        cupy = backend.cupy()
        a = cupy.where(cupy.isnan(a), a.dtype.type(0 if op == "add" else 1), a)
        nan = False
    res = _scan.inclusive_scan(a, axis=axis, op=op, dtype=dtype, out=target, nan_as_identity=nan)
    return out if out is not None else res


def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum of the elements along an axis (``numpy.cumsum``).

    Parameters
    ----------
    a : cupy.ndarray
        Input (device) array.
    axis : int, optional
        Axis to sum along; None (default) sums the flattened array.
    dtype : dtype, optional
        Result and accumulator dtype; default ``a.dtype``, or int64/uint64 for narrower integers.
    out : cupy.ndarray, optional
        Output of the result's shape; the result is cast to its dtype.

    Returns
    -------
    cupy.ndarray

    See Also
    --------
    cumprod, nancumsum, rocarray.prim.inclusive_scan

    Examples
    --------
    >>> ra.cumsum(ra.asarray([1, 2, 3]))   # doctest: +SKIP
    array([1, 3, 6])
    """
    return _accumulate(a, axis, dtype, out, "add", False)


def cumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product of the elements along an axis (``numpy.cumprod``).

    Parameters
    ----------
    a : cupy.ndarray
        Input (device) array.
    axis : int, optional
        Axis to multiply along; None (default) multiplies the flattened array.
    dtype : dtype, optional
        Result and accumulator dtype; default ``a.dtype``, or int64/uint64 for narrower integers.
    out : cupy.ndarray, optional
        Output of the result's shape; the result is cast to its dtype.

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.cumprod(ra.asarray([1, 2, 3]))   # doctest: +SKIP
    array([1, 2, 6])
    """
    return _accumulate(a, axis, dtype, out, "mul", False)


def nancumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum treating NaN as zero (``numpy.nancumsum``).

    Parameters
    ----------
    a : cupy.ndarray
        Input (device) array.
    axis : int, optional
        Axis to sum along; None (default) sums the flattened array.
    dtype : dtype, optional
        Result and accumulator dtype; default ``a.dtype``, or int64/uint64 for narrower integers.
    out : cupy.ndarray, optional
        Output of the result's shape; the result is cast to its dtype.

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.nancumsum(ra.asarray([1.0, float("nan"), 2.0]))   # doctest: +SKIP
    array([1., 1., 3.])
    """
    return _accumulate(a, axis, dtype, out, "add", True)


def nancumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product treating NaN as one (``numpy.nancumprod``).

    Parameters
    ----------
    a : cupy.ndarray
        Input (device) array.
    axis : int, optional
        Axis to multiply along; None (default) multiplies the flattened array.
    dtype : dtype, optional
        Result and accumulator dtype; default ``a.dtype``, or int64/uint64 for narrower integers.
    out : cupy.ndarray, optional
        Output of the result's shape; the result is cast to its dtype.

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.nancumprod(ra.asarray([2.0, float("nan"), 2.0]))   # doctest: +SKIP
    array([2., 2., 4.])
    """
    return _accumulate(a, axis, dtype, out, "mul", True)
