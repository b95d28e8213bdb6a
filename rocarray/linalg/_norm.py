"""``rocarray.linalg.norm``: vector and Frobenius norms on rocblas kernels, the rest on CuPy."""

import operator

import numpy

from rocarray._core import backend
from rocarray._facade_util import as_device_array
from rocarray.rocblas import _level1

_NRM2_DTYPES = frozenset(numpy.dtype(d) for d in ("float32", "float64", "complex64", "complex128"))
_ASUM_DTYPES = frozenset(numpy.dtype(d) for d in ("float32", "float64"))


def _flat_view(x):
    """A 1-D view of all elements of ``x`` without copying, or None (any order: for sums of |x|^2)."""
    if x.ndim == 1:
        return x
    if x.flags.c_contiguous:
        return x.reshape(-1)
    if x.flags.f_contiguous:
        return x.T.reshape(-1)
    return None


def _vector_axis(axis, ndim):
    """For a 1-D array, whether ``axis`` names its only axis (an int or a 1-tuple, 0 or -1)."""
    if axis is None:
        return True
    if isinstance(axis, tuple):
        if len(axis) != 1:
            return False
        axis = axis[0]
    try:
        axis = operator.index(axis)
    except TypeError:
        return False
    return ndim == 1 and axis in (0, -1)


def _whole_matrix_axes(axis, ndim):
    """Whether ``axis`` is a 2-tuple naming both axes of a 2-D array."""
    if ndim != 2 or not isinstance(axis, tuple) or len(axis) != 2:
        return False
    try:
        axes = sorted(operator.index(a) % 2 for a in axis if -2 <= operator.index(a) < 2)
    except TypeError:
        return False
    return axes == [0, 1]


def _axis_error(axis, ndim):
    errors = getattr(numpy, "exceptions", numpy)  # numpy.exceptions since NumPy 1.25
    return errors.AxisError(axis, ndim)


def _normalize_axis(axis, ndim):
    """``axis`` checked like ``numpy.linalg.norm`` does: None, or a tuple of ints in ``[-ndim, ndim)``.

    A non-tuple goes through ``int()`` (NumPy accepts ``axis=0.0``), tuple entries must be
    integers; out-of-range axes raise ``AxisError``.
    """
    if axis is None:
        return None
    if isinstance(axis, tuple):
        axes = tuple(operator.index(a) for a in axis)  # TypeError for non-integers, like NumPy
    else:
        try:
            axes = (int(axis),)
        except Exception:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from None
    for a in axes:
        if not -ndim <= a < ndim:
            raise _axis_error(a, ndim)
    return axes


def _plan(x, ord, axis):
    """``('nrm2' | 'asum', 1-D view)`` when a rocblas kernel computes the norm, else None."""
    if x.dtype not in _NRM2_DTYPES:
        return None
    frobenius_ord = ord is None or (isinstance(ord, str) and ord in ("fro", "f"))
    if (axis is None and ord is None) or (
        frobenius_ord and x.ndim == 2 and (axis is None or _whole_matrix_axes(axis, x.ndim))
    ):
        flat = _flat_view(x)
        return None if flat is None else ("nrm2", flat)
    if x.ndim == 1 and _vector_axis(axis, x.ndim) and not isinstance(ord, str):
        if ord is None or ord == 2:
            return "nrm2", x
        if ord == 1 and x.dtype in _ASUM_DTYPES:
            return "asum", x
    return None


def norm(x, ord=None, axis=None, keepdims=False):
    """Matrix or vector norm (``numpy.linalg.norm``).

    The 2-norm of a vector (``ord`` None or 2), the Frobenius norm (``ord`` None over all elements
    of contiguous data of any dimension, or ``'fro'`` of a 2-D array) and the 1-norm of a real
    vector run on rocarray's ``rocblas.nrm2`` / ``rocblas.asum`` kernels. ``nrm2`` scales like
    LAPACK 3.10 (Blue's algorithm), so it neither overflows nor underflows for entries near the
    limits of the dtype. Every other case (batched norms along an axis, other orders, matrix
    2-norms, float16 data, non-contiguous N-D data) is computed by ``cupy.linalg.norm``.
    Integer and bool inputs are converted to float64 first, like NumPy.

    Parameters
    ----------
    x : cupy.ndarray
        Input device array (host NumPy arrays are rejected).
    ord : {None, int, float, inf, -inf, 'fro', 'nuc'}, optional
        Order of the norm, as in NumPy.
    axis : None, int or tuple of ints, optional
        Axis or axes along which to compute norms, as in NumPy.
    keepdims : bool, optional
        Keep the normed axes as size-1 dimensions.

    Returns
    -------
    cupy.ndarray
        The norm(s), in the real dtype of ``x`` (float64 for integer input); a 0-d device array
        for a single norm (no synchronization).

    Raises
    ------
    TypeError
        A host (NumPy) array or another non-device object as ``x``.
    ValueError
        An invalid ``ord`` for the input (raised by CuPy, as NumPy does).
    numpy.exceptions.AxisError
        An axis out of range.

    See Also
    --------
    rocarray.rocblas.nrm2, rocarray.rocblas.asum

    Examples
    --------
    >>> import rocarray as ra
    >>> x = ra.asarray([3.0, 4.0])   # doctest: +SKIP
    >>> ra.linalg.norm(x)             # doctest: +SKIP
    array(5.)
    """
    cupy = backend.require_cupy()
    x = as_device_array(x, "x")
    if x.dtype.kind not in "fc":
        x = x.astype(numpy.float64)
    axes = _normalize_axis(axis, x.ndim)
    plan = _plan(x, ord, axes)
    if plan is None:
        return cupy.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
    op, v = plan
    fn = _level1.nrm2 if op == "nrm2" else _level1.asum
    result = fn(v.size, v, 1)
    if keepdims:
        result = result.reshape((1,) * x.ndim)
    return result
