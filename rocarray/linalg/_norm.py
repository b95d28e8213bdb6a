"""``rocarray.linalg.norm``: vector and Frobenius norms on rocblas kernels, matrix norms on prim
reductions (and ``cupy.linalg.svd`` for the singular-value orders), other vector norms on CuPy."""

import operator

import numpy

from rocarray._core import backend
from rocarray._core.args import as_device_array
from rocarray import rocblas

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


_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, numpy.inf, -numpy.inf)


def matrix_axes(ord, axes, ndim):
    """``(row_axis, col_axis)`` when NumPy computes a matrix norm, None for a vector norm (pure).

    Matrix norms: a 2-tuple ``axis``, or ``axis=None`` with a 2-D input and an ``ord`` given.
    Raises NumPy's ValueErrors (duplicate axes, more than two axes, ``ord`` with ``axis=None`` on
    N-D input, an invalid matrix ``ord``).
    """
    if axes is None:
        if ord is None or ndim == 1:
            return None
        if ndim != 2:
            raise ValueError("Improper number of dimensions to norm.")
        axes = (0, 1)
    if len(axes) == 1:
        return None
    if len(axes) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    row, col = (a % ndim for a in axes)
    if row == col:
        raise ValueError("Duplicate axes given.")
    if ord is not None and not any(_same_ord(ord, o) for o in _MATRIX_ORDS):
        raise ValueError("Invalid norm order for matrices.")
    return row, col


def _same_ord(ord, o):
    if isinstance(o, str) or isinstance(ord, str):
        return isinstance(ord, str) and isinstance(o, str) and ord == o
    try:
        return bool(ord == o)
    except Exception:
        return False


def _matrix_norm(cupy, x, ord, row, col, keepdims):
    """Matrix norm over axes ``(row, col)``: prim reductions, or ``cupy.linalg.svd`` for 2, -2, 'nuc'."""
    from rocarray._numpy.reductions import max as _max, min as _min, sum as _sum

    if ord is None or _same_ord(ord, "fro"):
        result = cupy.sqrt(_sum(cupy.square(cupy.abs(x)), axis=(row, col)))
    elif _same_ord(ord, "nuc") or _same_ord(ord, 2) or _same_ord(ord, -2):
        # singular values: cupy.linalg.svd(compute_uv=False) (no rocsolver SVD in rocarray yet)
        s = cupy.linalg.svd(cupy.moveaxis(x, (row, col), (-2, -1)), compute_uv=False)
        result = _sum(s, axis=-1) if _same_ord(ord, "nuc") else (_max if ord == 2 else _min)(s, axis=-1)
    else:  # 1, -1: column sums (sum over rows); inf, -inf: row sums (sum over columns)
        reduce_ = _max if ord > 0 else _min
        if _same_ord(abs(ord), 1):
            sums = _sum(cupy.abs(x), axis=row)
            result = reduce_(sums, axis=col - 1 if col > row else col)
        else:
            sums = _sum(cupy.abs(x), axis=col)
            result = reduce_(sums, axis=row - 1 if row > col else row)
    if keepdims:
        shape = list(x.shape)
        shape[row] = shape[col] = 1
        result = result.reshape(shape)
    return result


def norm(x, ord=None, axis=None, keepdims=False):
    """Matrix or vector norm (``numpy.linalg.norm``).

    The 2-norm of a vector (``ord`` None or 2), the Frobenius norm (``ord`` None over all elements
    of contiguous data of any dimension, or ``'fro'`` of a 2-D array) and the 1-norm of a real
    vector run on rocarray's ``rocblas.nrm2`` / ``rocblas.asum`` kernels. ``nrm2`` scales like
    LAPACK 3.10 (Blue's algorithm), so it neither overflows nor underflows for entries near the
    limits of the dtype. Matrix norms (a 2-D input with ``ord`` given, or a pair of axes:
    ``'fro'``, ``'nuc'``, 1, -1, inf, -inf, 2, -2, batched over the other axes) are computed here:
    'fro', +-1 and +-inf by rocarray's prim reductions (:func:`rocarray.sum`, ``max``, ``min``) of
    ``|x|``; 2, -2 and 'nuc' from the singular values of ``cupy.linalg.svd(compute_uv=False)``
    (largest, smallest, sum). Every other case (vector norms along an axis, other vector orders,
    float16 data, non-contiguous N-D data) is computed by ``cupy.linalg.norm``.
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
    cupy = backend.cupy()
    x = as_device_array(x, "x")
    if x.dtype.kind not in "fc":
        x = x.astype(numpy.float64)
    axes = _normalize_axis(axis, x.ndim)
    plan = _plan(x, ord, axes)
    if plan is None:
        pair = matrix_axes(ord, axes, x.ndim)
        if pair is not None:
            return _matrix_norm(cupy, x, ord, pair[0], pair[1], keepdims)
        return cupy.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)
    op, v = plan
    fn = rocblas.nrm2 if op == "nrm2" else rocblas.asum
    result = fn(v.size, v, 1)
    if keepdims:
        result = result.reshape((1,) * x.ndim)
    return result
