"""NumPy-named compaction, search and unique façade: ``nonzero``, ``flatnonzero``, ``argwhere``,
``extract``, ``compress``, ``searchsorted``, ``unique``.

Arguments are checked here, once, in NumPy's words; the work is done by :mod:`rocarray.prim`'s
select/search/unique kernels (``_kernels/prim/select.hip``, ``search.hip``). Semantics follow
NumPy 2: index results are int64; ``nonzero`` of a 0-d array raises ``ValueError``;
``searchsorted`` orders NaN last (complex: lexicographic, NaNs last) and compares in the common
dtype of ``a`` and ``v``; ``unique`` returns the first occurrence as ``return_index``, an inverse
of the input's shape (``axis=None``) and collapses NaNs when ``equal_nan``. ``unique`` with an
``axis`` is routed to ``cupy.unique`` (sorting whole sub-arrays lexicographically is not a prim
kernel); its inverse is made 1-D like NumPy 2's. Host (NumPy) arrays raise ``TypeError`` (the
project rule, see :mod:`rocarray._core.args`); Python scalars are accepted where NumPy accepts
them.
"""


import numpy

from rocarray._core import backend
from rocarray._core.args import as_device_array, normalize_axis
from rocarray.prim import _search, _select, _unique


def check_side(side):
    """``True`` for ``'right'``, ``False`` for ``'left'``; NumPy's ValueError otherwise."""
    if isinstance(side, str) and side in ("left", "right"):
        return side == "right"
    raise ValueError(f"search side must be 'left' or 'right' (got {side!r})")


def search_dtype(a_dtype, v_dtype):
    """The dtype ``searchsorted`` compares in (NumPy promotes ``a`` and ``v`` to a common dtype)."""
    return numpy.result_type(numpy.dtype(a_dtype), numpy.dtype(v_dtype))


def unique_result(values, index, inverse, counts, return_index, return_inverse, return_counts):
    """NumPy's return form of ``unique``: the values alone, or a tuple with the asked extras."""
    res = [values]
    if return_index:
        res.append(index)
    if return_inverse:
        res.append(inverse)
    if return_counts:
        res.append(counts)
    return res[0] if len(res) == 1 else tuple(res)


def nonzero(a):
    """Indices of the nonzero elements, one int64 array per dimension (C order).

    Parameters
    ----------
    a : cupy.ndarray
        At least 1-D.

    Returns
    -------
    tuple of cupy.ndarray

    See Also
    --------
    flatnonzero, argwhere

    Examples
    --------
    >>> ra.nonzero(ra.asarray([[0, 1], [2, 0]]))   # doctest: +SKIP
    (array([0, 1]), array([1, 0]))
    """
    a = as_device_array(a, "a", allow_scalar=True)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() "
                         "instead. If the context of this error is of the form `arr[nonzero(cond)]`, just "
                         "use `arr[cond]`.")
    if a.ndim == 1:
        return (_select.nonzero_indices(a),)
    return _select.nonzero_coords(a, "rows")


def flatnonzero(a):
    """Indices of the nonzero elements of ``a.ravel()`` (int64).

    Parameters
    ----------
    a : cupy.ndarray
        Device array of any shape; Python/NumPy scalars are accepted.

    Returns
    -------
    cupy.ndarray
        1-D int64 indices.

    Examples
    --------
    >>> ra.flatnonzero(ra.asarray([[0, 1], [2, 0]]))   # doctest: +SKIP
    array([1, 2])
    """
    a = as_device_array(a, "a", allow_scalar=True)
    return _select.nonzero_indices(a)


def argwhere(a):
    """Coordinates of the nonzero elements as an ``(N, a.ndim)`` int64 array.

    A 0-d input gives shape ``(N, 0)`` (NumPy's rule).

    Parameters
    ----------
    a : cupy.ndarray
        Device array of any shape; Python/NumPy scalars are accepted.

    Returns
    -------
    cupy.ndarray
        int64 coordinates, one row per nonzero element in C order.

    Examples
    --------
    >>> ra.argwhere(ra.asarray([[0, 1], [2, 0]]))   # doctest: +SKIP
    array([[0, 1],
           [1, 0]])
    """
    a = as_device_array(a, "a", allow_scalar=True)
    if a.ndim == 0:
        return _select.nonzero_coords(a.reshape(1), "columns")[:, :0]
    return _select.nonzero_coords(a, "columns")


def _out_of_bounds(cond, length, axis):
    """IndexError like ``take`` when ``cond`` selects an index at or past ``length``."""
    extra = _select.nonzero_indices(cond[length:])
    if extra.size:
        raise IndexError(f"index {int(backend.cupy().asnumpy(extra[:1])[0]) + length} is out of bounds for axis {axis} "
                         f"with size {length}")


def extract(condition, arr):
    """``arr.ravel()[condition.ravel() != 0]`` (``condition`` may be shorter than ``arr``).

    Parameters
    ----------
    condition : cupy.ndarray
        Flattened; may be shorter than ``arr`` (missing entries are False); a longer one may only
        have zeros past ``arr.size`` (else ``IndexError``, as NumPy).
    arr : cupy.ndarray
        Flattened.

    Returns
    -------
    cupy.ndarray
        1-D, of ``arr``'s dtype.

    Examples
    --------
    >>> ra.extract(ra.asarray([1, 0, 1]), ra.asarray([5, 6, 7]))   # doctest: +SKIP
    array([5, 7])
    """
    c = as_device_array(condition, "condition", allow_scalar=True).reshape(-1)
    a = as_device_array(arr, "arr", allow_scalar=True).reshape(-1)
    if c.size > a.size:
        _out_of_bounds(c, a.size, 0)
        c = c[:a.size]
    return _select.select_flagged(a[:c.size], c)


def compress(condition, a, axis=None, out=None):
    """Slices of ``a`` along ``axis`` where the 1-D ``condition`` is nonzero.

    Parameters
    ----------
    condition : cupy.ndarray
        1-D; may be shorter than the axis (missing entries are False); a longer one may only
        have zeros past the axis length (else ``IndexError``, as NumPy).
    a : cupy.ndarray
    axis : int, optional
        None: the flattened array.
    out : cupy.ndarray, optional
        Result array of the right shape (values cast into it).

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.compress(ra.asarray([0, 1]), ra.asarray([[1, 2], [3, 4]]), axis=0)   # doctest: +SKIP
    array([[3, 4]])
    """
    cupy = backend.cupy()
    c = as_device_array(condition, "condition", allow_scalar=True)
    a = as_device_array(a, "a", allow_scalar=True)
    if c.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    if axis is None:
        a = a.reshape(-1)
        axis = 0
    else:
        axis = normalize_axis(axis, a.ndim)
    length = a.shape[axis]
    if c.size > length:
        _out_of_bounds(c, length, axis)
        c = c[:length]
    if a.ndim == 1:
        res = _select.select_flagged(a[:c.size], c)
    else:
        idx = _select.nonzero_indices(c)
        res = cupy.take(a, idx, axis=axis)
    if out is None:
        return res
    if not isinstance(out, cupy.ndarray):
        as_device_array(out, "out")
    if out.shape != res.shape:
        raise ValueError("output array does not match result of ndarray.take")
    cupy.copyto(out, res, casting="unsafe")
    return out


def searchsorted(a, v, side="left", sorter=None):
    """Indices where ``v`` would be inserted into the sorted 1-D ``a`` to keep it sorted.

    Parameters
    ----------
    a : cupy.ndarray
        1-D, sorted ascending in NumPy's order (NaN last), unless ``sorter`` is given.
    v : cupy.ndarray or scalar
        Queries, any shape.
    side : {'left', 'right'}
        'left': first suitable index; 'right': last.
    sorter : cupy.ndarray, optional
        Integer indices of ``a.size`` that sort ``a`` (e.g. from ``argsort``).

    Returns
    -------
    cupy.ndarray
        int64 of ``v``'s shape (0-d for a scalar ``v``).

    Examples
    --------
    >>> ra.searchsorted(ra.asarray([1, 2, 3, 4, 5]), ra.asarray([-10, 3, 10]))   # doctest: +SKIP
    array([0, 2, 5])
    """
    cupy = backend.cupy()
    right = check_side(side)
    a = as_device_array(a, "a", allow_scalar=True)
    v = as_device_array(v, "v", allow_scalar=True)
    if a.ndim > 1:
        raise ValueError("object too deep for desired array")
    if a.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    dt = search_dtype(a.dtype, v.dtype)
    if dt not in _search.DTYPES:
        raise TypeError(f"searchsorted: unsupported dtype {dt.name}")
    if sorter is not None:
        sorter = as_device_array(sorter, "sorter")
        if sorter.dtype.kind not in "iu":
            raise TypeError("sorter must only contain integers")
        if sorter.ndim != 1 or sorter.size != a.size:
            raise ValueError("sorter.size must equal a.size")
        if sorter.size:
            lo, hi = (int(cupy.asnumpy(r)) for r in (sorter.min(), sorter.max()))
            if lo < 0 or hi >= a.size:
                raise ValueError("Sorter index out of range.")
    return _search.search_sorted(a.astype(dt, copy=False), v.astype(dt, copy=False), right=right,
                                 sorter=sorter)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           sorted=True):
    """Sorted unique elements of an array, optionally with first indices, inverse and counts.

    Parameters
    ----------
    ar : cupy.ndarray
        Flattened unless ``axis`` is given.
    return_index : bool
        Also return the index of the first occurrence of each unique value (int64).
    return_inverse : bool
        Also return the indices that rebuild ``ar`` from the unique values (int64, ``ar``'s shape
        when ``axis`` is None, 1-D otherwise: NumPy 2's rule).
    return_counts : bool
        Also return how often each unique value occurs (int64).
    axis : int, optional
        Unique sub-arrays along this axis: routed to ``cupy.unique`` (documented choice).
    equal_nan : bool
        Collapse all NaNs into one (complex: every value with a NaN part).
    sorted : bool
        Accepted for NumPy compatibility; the result is always sorted.

    Returns
    -------
    cupy.ndarray or tuple of cupy.ndarray

    Examples
    --------
    >>> ra.unique(ra.asarray([3, 1, 3, 2]), return_counts=True)   # doctest: +SKIP
    (array([1, 2, 3]), array([1, 1, 2]))
    """
    cupy = backend.cupy()
    ar = as_device_array(ar, "ar", allow_scalar=True)
    if axis is not None:
        res = cupy.unique(ar, return_index=return_index, return_inverse=return_inverse,
                          return_counts=return_counts, axis=axis, equal_nan=equal_nan)
        if return_inverse:
            res = list(res)
            k = 2 if return_index else 1
            res[k] = res[k].reshape(-1)
            res = tuple(res)
        return res
    values, index, inverse, counts = _unique.unique(ar, return_index=bool(return_index),
                                                    return_inverse=bool(return_inverse),
                                                    return_counts=bool(return_counts),
                                                    equal_nan=bool(equal_nan))
    if inverse is not None:
        inverse = inverse.reshape(ar.shape)
    return unique_result(values, index, inverse, counts, return_index, return_inverse, return_counts)
