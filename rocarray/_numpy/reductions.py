"""NumPy-named reduction façade: ``sum``, ``prod``, ``min``/``amin``, ``max``/``amax``, ``argmin``,
``argmax``, ``mean``, ``all``, ``any``, ``nansum``, ``nanprod``, ``nanmin``, ``nanmax``,
``nanargmin``, ``nanargmax``, ``nanmean``, ``count_nonzero``.

Arguments are checked and normalized here, once, in NumPy's words; the work is one call of
:func:`rocarray.prim.reduce` or :func:`rocarray.prim.argreduce` (hand-written HIP kernels, one launch
per reduction). Semantics follow NumPy: ``axis`` None/int/tuple/negative (a duplicate axis raises
ValueError, an out-of-range one ``numpy.exceptions.AxisError``), ``keepdims``, ``dtype``, ``out``
(shape checked, the result cast into it unsafely like NumPy's reductions), ``initial`` for
sum/prod/min/max; result dtypes are NumPy's (sum/prod: bool and small signed integers -> int64,
small unsigned -> uint64; mean of integers -> float64; all/any -> bool). min/max/argmin/argmax
propagate NaN (the first NaN wins for arg*), complex values are ordered lexicographically, ties
give the first index; integer sums and products wrap like NumPy.

Differences, documented: float16 sums accumulate in float32 and round once (as or more accurate than
NumPy); float16 and float32 products accumulate in float64 and complex64 ones in complex128,
rounding once (a float32 product tree of factors near 1 drifts by far more than NumPy's sequential
product, and no overflow or underflow of an intermediate float32 product shows in the result);
``mean`` of float16 is computed in float32 and rounded once (as NumPy does). ``where=``
other than True raises ``NotImplementedError``. ``count_nonzero(a)`` with ``axis=None`` returns a
0-d int64 device array (as CuPy does; NumPy returns a host scalar), so it does not synchronize; like
every function here it returns device arrays (0-d for full reductions).
Results are bitwise identical run to run (no floating-point atomics). Host (NumPy) arrays raise
``TypeError`` (the project rule, see :mod:`rocarray._core.args`).
"""

import math
import warnings

import numpy

from rocarray._core import backend, dtypes
from rocarray._core.args import as_device_array, normalize_axes, normalize_axis
from rocarray.prim import _reduce as _red

_NO_VALUE = numpy._NoValue if hasattr(numpy, "_NoValue") else object()


# --------------------------------------------------------------------------------------------
# argument checks and result dtypes (pure Python)
# --------------------------------------------------------------------------------------------

def result_shape(shape, axes, keepdims):
    """Shape of a reduction of ``axes`` (normalized) of ``shape``."""
    if keepdims:
        return tuple(1 if a in axes else d for a, d in enumerate(shape))
    return tuple(d for a, d in enumerate(shape) if a not in axes)


def sum_result_dtype(in_dtype, dtype=None):
    """NumPy's result dtype of ``sum``/``prod`` (``dtype`` wins when given)."""
    if dtype is not None:
        return numpy.dtype(dtype)
    return _red.sum_dtype(in_dtype)


def mean_result_dtype(in_dtype, dtype=None):
    """NumPy's result dtype of ``mean``: ``dtype``, else float64 for bool/integers, else the input's."""
    if dtype is not None:
        return numpy.dtype(dtype)
    in_dtype = numpy.dtype(in_dtype)
    return numpy.dtype(numpy.float64) if in_dtype.kind in "biu" else in_dtype


def _check_dtype(dtype, name):
    if dtype is None:
        return None
    dtype = numpy.dtype(dtype)
    if dtype not in dtypes.CTYPES:
        raise TypeError(f"{name}: unsupported dtype {dtype.name}")
    return dtype


def _check_where(where, name):
    if where is not True and where is not _NO_VALUE:
        raise NotImplementedError(f"{name}: where= is not supported by rocarray (only where=True)")


def _check_out(out, shape):
    if out is None:
        return None
    cupy = backend.cupy()
    if not isinstance(out, cupy.ndarray):
        if isinstance(out, numpy.ndarray):
            as_device_array(out, "out")  # the project's host-array TypeError
        raise TypeError("output must be an array")
    if out.shape != shape:
        raise ValueError(f"output parameter for reduction operation has the wrong shape: "
                         f"expected {shape}, got {out.shape}")
    return out


def _input(a):
    if not isinstance(a, backend.cupy().ndarray):
        a = as_device_array(a, "a", allow_scalar=True)
    if a.dtype not in dtypes.CTYPES:
        raise TypeError(f"unsupported dtype {a.dtype.name}")
    return a


def _lines_and_n(shape, axes):
    lines = math.prod([d for i, d in enumerate(shape) if i not in axes])
    n = math.prod([shape[i] for i in axes])
    return lines, n


# --------------------------------------------------------------------------------------------
# sum / prod / min / max
# --------------------------------------------------------------------------------------------

def _reduce(name, op, a, axis, dtype, out, keepdims, initial, where, nan):
    _check_where(where, name)
    a = _input(a)
    axes = normalize_axes(axis, a.ndim, sort=True)
    dtype = _check_dtype(dtype, name)
    if out is not None:
        _check_out(out, result_shape(a.shape, axes, keepdims))
    minmax = op == "min" or op == "max"
    if minmax:
        rdtype = a.dtype
    else:
        rdtype = sum_result_dtype(a.dtype, dtype)
    has_initial = initial is not None and initial is not _NO_VALUE
    n = 1  # only empty min/max need the reduced extent
    if minmax and a.size == 0:
        _, n = _lines_and_n(a.shape, axes)
    if minmax and n == 0 and not has_initial:  # NumPy raises even when no line is left
        ufunc = {"min": "fmin" if nan else "minimum", "max": "fmax" if nan else "maximum"}[op]
        raise ValueError(f"zero-size array to reduction operation {ufunc} which has no identity")
    cupy = backend.cupy()
    if minmax and n == 0:
        res = cupy.full(result_shape(a.shape, axes, keepdims), initial, dtype=rdtype)
    else:
        res = _red.reduce(a, op=op, axis=axes, dtype=rdtype, keepdims=keepdims, nan=nan)
        if has_initial:
            init = cupy.asarray(initial).astype(rdtype)
            if op == "add":
                res = (res + init).astype(rdtype, copy=False)
            elif op == "mul":
                res = (res * init).astype(rdtype, copy=False)
            elif nan:
                res = (cupy.fmin if op == "min" else cupy.fmax)(res, init)
            else:
                res = (cupy.minimum if op == "min" else cupy.maximum)(res, init)
    if nan and op in ("min", "max") and a.dtype.kind in "fc" and n > 0 and not has_initial:
        if bool(cupy.isnan(res).any()):
            warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
    if out is not None:
        cupy.copyto(out, res, casting="unsafe")
        return out
    return res


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):  # noqa: A001
    """Sum of array elements over the given axes (``numpy.sum``).

    Parameters
    ----------
    a : cupy.ndarray
        Input (device) array; Python/NumPy scalars are accepted.
    axis : None, int or tuple of ints, optional
        Axes to sum over; None (default) sums all elements. Negative axes count from the end.
    dtype : dtype, optional
        Result and accumulator dtype; default ``a.dtype``, or int64/uint64 for narrower integers
        and bool. float16 accumulates in float32 internally and rounds once.
    out : cupy.ndarray, optional
        Output of the result's shape; the result is cast to its dtype.
    keepdims : bool, optional
        Keep reduced axes as size-1 dimensions.
    initial : scalar, optional
        Starting value of the sum.
    where : True
        Only ``True`` is supported (other values raise ``NotImplementedError``).

    Returns
    -------
    cupy.ndarray

    See Also
    --------
    nansum, mean, rocarray.prim.reduce

    Examples
    --------
    >>> ra.sum(ra.asarray([[1, 2], [3, 4]]), axis=0)   # doctest: +SKIP
    array([4, 6])
    """
    return _reduce("sum", "add", a, axis, dtype, out, keepdims, initial, where, False)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Product of array elements over the given axes (``numpy.prod``).

    Parameters
    ----------
    a : cupy.ndarray
        Input (device) array; Python/NumPy scalars are accepted.
    axis : None, int or tuple of ints, optional
        Axes to reduce over; None (default) reduces all elements. Negative axes count from the end.
    dtype : dtype, optional
        Result and accumulator dtype; default ``a.dtype``, or int64/uint64 for narrower integers
        and bool. float16 accumulates in float32 internally and rounds once.
    out : cupy.ndarray, optional
        Output of the result's shape; the result is cast to its dtype.
    keepdims : bool, optional
        Keep reduced axes as size-1 dimensions.
    initial : scalar, optional
        Starting value of the product.
    where : True
        Only ``True`` is supported (other values raise ``NotImplementedError``).

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.prod(ra.asarray([1, 2, 3, 4]))   # doctest: +SKIP
    array(24)
    """
    return _reduce("prod", "mul", a, axis, dtype, out, keepdims, initial, where, False)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Sum treating NaN as zero (``numpy.nansum``).

    Parameters
    ----------
    a : cupy.ndarray
        Input (device) array; Python/NumPy scalars are accepted.
    axis : None, int or tuple of ints, optional
        Axes to reduce over; None (default) reduces all elements. Negative axes count from the end.
    dtype : dtype, optional
        Result and accumulator dtype; default ``a.dtype``, or int64/uint64 for narrower integers
        and bool. float16 accumulates in float32 internally and rounds once.
    out : cupy.ndarray, optional
        Output of the result's shape; the result is cast to its dtype.
    keepdims : bool, optional
        Keep reduced axes as size-1 dimensions.
    initial : scalar, optional
        Starting value of the sum.
    where : True
        Only ``True`` is supported (other values raise ``NotImplementedError``).

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.nansum(ra.asarray([1.0, float("nan"), 2.0]))   # doctest: +SKIP
    array(3.)
    """
    return _reduce("nansum", "add", a, axis, dtype, out, keepdims, initial, where, True)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Product treating NaN as one (``numpy.nanprod``).

    Parameters
    ----------
    a : cupy.ndarray
        Input (device) array; Python/NumPy scalars are accepted.
    axis : None, int or tuple of ints, optional
        Axes to reduce over; None (default) reduces all elements. Negative axes count from the end.
    dtype : dtype, optional
        Result and accumulator dtype; default ``a.dtype``, or int64/uint64 for narrower integers
        and bool. float16 accumulates in float32 internally and rounds once.
    out : cupy.ndarray, optional
        Output of the result's shape; the result is cast to its dtype.
    keepdims : bool, optional
        Keep reduced axes as size-1 dimensions.
    initial : scalar, optional
        Starting value of the product.
    where : True
        Only ``True`` is supported (other values raise ``NotImplementedError``).

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.nanprod(ra.asarray([2.0, float("nan"), 3.0]))   # doctest: +SKIP
    array(6.)
    """
    return _reduce("nanprod", "mul", a, axis, dtype, out, keepdims, initial, where, True)


def max(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):  # noqa: A001
    """Maximum along the given axes (``numpy.max``); NaN propagates; complex values compare
    lexicographically.

    Parameters
    ----------
    a : cupy.ndarray
    axis : None, int or tuple of ints, optional
    out : cupy.ndarray, optional
    keepdims : bool, optional
    initial : scalar, optional
        Lower bound of the result; required for empty reductions (else ``ValueError``).
    where : True

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.max(ra.asarray([1.0, 5.0, 3.0]))   # doctest: +SKIP
    array(5.)
    """
    return _reduce("max", "max", a, axis, None, out, keepdims, initial, where, False)


def min(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):  # noqa: A001
    """Minimum along the given axes (``numpy.min``); NaN propagates; complex values compare
    lexicographically.

    Parameters
    ----------
    a : cupy.ndarray
    axis : None, int or tuple of ints, optional
    out : cupy.ndarray, optional
    keepdims : bool, optional
    initial : scalar, optional
        Upper bound of the result; required for empty reductions (else ``ValueError``).
    where : True

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.min(ra.asarray([1.0, 5.0, 3.0]))   # doctest: +SKIP
    array(1.)
    """
    return _reduce("min", "min", a, axis, None, out, keepdims, initial, where, False)


amax = max
amin = min


def nanmax(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Maximum ignoring NaN (``numpy.nanmax``); an all-NaN slice gives NaN and a RuntimeWarning.

    Parameters
    ----------
    a : cupy.ndarray
    axis : None, int or tuple of ints, optional
    out : cupy.ndarray, optional
    keepdims : bool, optional
    initial : scalar, optional
        Lower bound of the result; required for empty reductions (else ``ValueError``).
    where : True

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.nanmax(ra.asarray([1.0, float("nan"), 3.0]))   # doctest: +SKIP
    array(3.)
    """
    return _reduce("nanmax", "max", a, axis, None, out, keepdims, initial, where, True)


def nanmin(a, axis=None, out=None, keepdims=False, initial=_NO_VALUE, where=True):
    """Minimum ignoring NaN (``numpy.nanmin``); an all-NaN slice gives NaN and a RuntimeWarning.

    Parameters
    ----------
    a : cupy.ndarray
    axis : None, int or tuple of ints, optional
    out : cupy.ndarray, optional
    keepdims : bool, optional
    initial : scalar, optional
        Upper bound of the result; required for empty reductions (else ``ValueError``).
    where : True

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.nanmin(ra.asarray([1.0, float("nan"), 3.0]))   # doctest: +SKIP
    array(1.)
    """
    return _reduce("nanmin", "min", a, axis, None, out, keepdims, initial, where, True)


# --------------------------------------------------------------------------------------------
# argmin / argmax
# --------------------------------------------------------------------------------------------

def _arg(name, op, a, axis, out, keepdims, nan):
    a = _input(a)
    was_0d = a.ndim == 0
    if axis is not None:
        axis = normalize_axis(axis, a.ndim if a.ndim else 1)  # a 0-d array acts as shape (1,), like NumPy
    if was_0d:
        a = a.reshape(1)
        shape = ()
    else:
        shape = None
    if out is not None:
        if shape is None:
            shape = ((1,) * a.ndim if keepdims else ()) if axis is None else result_shape(a.shape, (axis,), keepdims)
        _check_out(out, shape)
    n = a.size if axis is None else a.shape[axis]
    if n == 0:
        raise ValueError(f"attempt to get {name.replace('nan', '')} of an empty sequence")
    cupy = backend.cupy()
    # the result comes in the shape computed above (0-d input: never with size-1 axes)
    res = _red.argreduce(a, op=op, axis=axis, keepdims=keepdims and not was_0d, nan=nan)
    if nan and a.dtype.kind in "fc" and res.size:
        if axis is None:
            picked = a.reshape(-1)[res.reshape(())]
        else:
            idx = res if keepdims else cupy.expand_dims(res, axis)
            picked = cupy.take_along_axis(a, idx, axis)
        if bool(cupy.isnan(picked).any()):
            raise ValueError("All-NaN slice encountered")
    if out is not None:
        cupy.copyto(out, res, casting="unsafe")
        return out
    return res


def argmax(a, axis=None, out=None, *, keepdims=False):
    """Indices of the maximum values along an axis (``numpy.argmax``); the first occurrence wins,
    the first NaN wins over numbers.

    Parameters
    ----------
    a : cupy.ndarray
    axis : int, optional
        None (default): index into the C-order flattened array.
    out : cupy.ndarray, optional
    keepdims : bool, optional

    Returns
    -------
    cupy.ndarray
        int64 indices.

    Examples
    --------
    >>> ra.argmax(ra.asarray([1, 7, 7, 2]))   # doctest: +SKIP
    array(1)
    """
    return _arg("argmax", "argmax", a, axis, out, keepdims, False)


def argmin(a, axis=None, out=None, *, keepdims=False):
    """Indices of the minimum values along an axis (``numpy.argmin``); the first occurrence wins,
    the first NaN wins over numbers.

    Parameters
    ----------
    a : cupy.ndarray
    axis : int, optional
        None (default): index into the C-order flattened array.
    out : cupy.ndarray, optional
    keepdims : bool, optional

    Returns
    -------
    cupy.ndarray
        int64 indices.

    Examples
    --------
    >>> ra.argmin(ra.asarray([3, 1, 1]))   # doctest: +SKIP
    array(1)
    """
    return _arg("argmin", "argmin", a, axis, out, keepdims, False)


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """argmax ignoring NaN (``numpy.nanargmax``); an all-NaN slice raises ``ValueError``.

    Parameters
    ----------
    a : cupy.ndarray
    axis : int, optional
        None (default): index into the C-order flattened array.
    out : cupy.ndarray, optional
    keepdims : bool, optional

    Returns
    -------
    cupy.ndarray
        int64 indices.

    Examples
    --------
    >>> ra.nanargmax(ra.asarray([1.0, float("nan"), 3.0]))   # doctest: +SKIP
    array(2)
    """
    return _arg("nanargmax", "argmax", a, axis, out, keepdims, True)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """argmin ignoring NaN (``numpy.nanargmin``); an all-NaN slice raises ``ValueError``.

    Parameters
    ----------
    a : cupy.ndarray
    axis : int, optional
        None (default): index into the C-order flattened array.
    out : cupy.ndarray, optional
    keepdims : bool, optional

    Returns
    -------
    cupy.ndarray
        int64 indices.

    Examples
    --------
    >>> ra.nanargmin(ra.asarray([1.0, float("nan"), 0.5]))   # doctest: +SKIP
    array(2)
    """
    return _arg("nanargmin", "argmin", a, axis, out, keepdims, True)


# --------------------------------------------------------------------------------------------
# mean, all, any, count_nonzero
# --------------------------------------------------------------------------------------------

def _mean(name, a, axis, dtype, out, keepdims, where, nan):
    _check_where(where, name)
    a = _input(a)
    axes = normalize_axes(axis, a.ndim, sort=True)
    dtype = _check_dtype(dtype, name)
    shape = result_shape(a.shape, axes, keepdims)
    _check_out(out, shape)
    rdtype = mean_result_dtype(a.dtype, dtype)
    if rdtype.kind not in "fc":
        raise TypeError(f"{name}: result dtype must be floating or complex, got {rdtype.name}")
    acc = numpy.dtype(numpy.float32) if rdtype == numpy.float16 else rdtype
    cupy = backend.cupy()
    lines, n = _lines_and_n(a.shape, axes)
    nan = nan and a.dtype.kind in "fc"
    total = _red.reduce(a, op="add", axis=axes, dtype=acc, keepdims=keepdims, nan=nan)
    if nan:
        count = _red.reduce(~cupy.isnan(a), op="nnz", axis=axes, keepdims=keepdims)
        if lines and bool((count == 0).any()):
            warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=3)
        real = numpy.dtype(acc.char.lower()) if acc.kind == "c" else acc
        with numpy.errstate(invalid="ignore", divide="ignore"):
            res = total / count.astype(real)
    else:
        if n == 0 and lines:
            warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=3)
        empty = complex(numpy.nan, numpy.nan) if acc.kind == "c" else numpy.nan  # NumPy's 0 / 0
        res = total / acc.type(n) if n else cupy.full(total.shape, empty, dtype=acc)
    res = res.astype(rdtype, copy=False)
    if out is not None:
        cupy.copyto(out, res, casting="unsafe")
        return out
    return res


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """Arithmetic mean along the given axes (``numpy.mean``).

    Parameters
    ----------
    a : cupy.ndarray
    axis : None, int or tuple of ints, optional
    dtype : dtype, optional
        Default float64 for bool/integer input, else ``a.dtype``; float16 is computed in float32.
    out : cupy.ndarray, optional
    keepdims : bool, optional
    where : True

    Returns
    -------
    cupy.ndarray
        NaN (with a RuntimeWarning) for empty slices.

    Examples
    --------
    >>> ra.mean(ra.asarray([1, 2, 3, 4]))   # doctest: +SKIP
    array(2.5)
    """
    return _mean("mean", a, axis, dtype, out, keepdims, where, False)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    """Mean ignoring NaN (``numpy.nanmean``); all-NaN slices give NaN and a RuntimeWarning.

    Parameters
    ----------
    a : cupy.ndarray
    axis : None, int or tuple of ints, optional
    dtype : dtype, optional
        Default float64 for bool/integer input, else ``a.dtype``; float16 is computed in float32.
    out : cupy.ndarray, optional
    keepdims : bool, optional
    where : True

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.nanmean(ra.asarray([1.0, float("nan"), 3.0]))   # doctest: +SKIP
    array(2.)
    """
    return _mean("nanmean", a, axis, dtype, out, keepdims, where, True)


def _logical(name, a, axis, out, keepdims, where, want_all):
    _check_where(where, name)
    a = _input(a)
    axes = normalize_axes(axis, a.ndim, sort=True)
    shape = result_shape(a.shape, axes, keepdims)
    _check_out(out, shape)
    cupy = backend.cupy()
    _, n = _lines_and_n(a.shape, axes)
    count = _red.reduce(a, op="nnz", axis=axes, keepdims=keepdims)
    res = (count == n) if want_all else (count != 0)
    if out is not None:
        cupy.copyto(out, res, casting="unsafe")
        return out
    return res


def all(a, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001
    """Whether all elements along the given axes are nonzero (``numpy.all``).

    Parameters
    ----------
    a : cupy.ndarray
    axis : None, int or tuple of ints, optional
    out : cupy.ndarray, optional
    keepdims : bool, optional
    where : True

    Returns
    -------
    cupy.ndarray
        bool.

    Examples
    --------
    >>> ra.all(ra.asarray([1, 2, 0]))   # doctest: +SKIP
    array(False)
    """
    return _logical("all", a, axis, out, keepdims, where, True)


def any(a, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001
    """Whether any element along the given axes is nonzero (``numpy.any``).

    Parameters
    ----------
    a : cupy.ndarray
    axis : None, int or tuple of ints, optional
    out : cupy.ndarray, optional
    keepdims : bool, optional
    where : True

    Returns
    -------
    cupy.ndarray
        bool.

    Examples
    --------
    >>> ra.any(ra.asarray([0, 0, 3]))   # doctest: +SKIP
    array(True)
    """
    return _logical("any", a, axis, out, keepdims, where, False)


def count_nonzero(a, axis=None, *, keepdims=False):
    """Number of nonzero values (``numpy.count_nonzero``).

    Parameters
    ----------
    a : cupy.ndarray
    axis : None, int or tuple of ints, optional
    keepdims : bool, optional

    Returns
    -------
    cupy.ndarray
        int64 (intp) counts; 0-d when ``axis`` is None (NumPy returns a scalar there; a 0-d device
        array, as CuPy returns, avoids a device synchronization and converts with ``int()``).

    Examples
    --------
    >>> int(ra.count_nonzero(ra.asarray([0, 1, 2])))   # doctest: +SKIP
    2
    """
    a = _input(a)
    axes = normalize_axes(axis, a.ndim, sort=True)
    return _red.reduce(a, op="nnz", axis=axes, keepdims=keepdims)
