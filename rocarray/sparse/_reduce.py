"""Reductions of sparse arrays (``sum``, ``mean``, ``max``, ``min``, ``diagonal``, ...), SciPy's semantics.

Functions take a sparse array first and never import the format modules.

Results, as SciPy's except where noted:

* ``axis``: ``None``, ``0``, ``1``, ``-1``, ``-2`` or a tuple of them (``ValueError`` out of range,
  ``TypeError`` for a non-integer). A reduction over the whole array returns a 0-d device array
  (SciPy returns a NumPy scalar). Along an axis, a ``*_array`` gives a 1-D device array and a
  ``*_matrix`` a 2-D ``(1, n)`` or ``(m, 1)`` one (SciPy: ``numpy.matrix``).
* ``sum``: NumPy's accumulation dtype (bool and signed integers narrower than int64 sum in int64,
  unsigned ones in uint64); ``dtype=`` casts the result. Over the whole array, duplicates of
  integer arrays are first summed in place in the data dtype, as SciPy; along an axis every
  format accumulates in the wide dtype (SciPy's CSR row sums and CSC column sums of narrow
  integers wrap in the data dtype). Row sums are segmented scans
  (``rocarray.prim.segmented_inclusive_scan``) over the CSR (column sums over the CSC) data.
* ``mean``: integer and bool inputs average in float64.
* ``max``/``min``: implicit zeros count unless ``explicit=True``; NaN propagates. Along an axis a
  ``*_matrix`` gives a COO matrix as SciPy; a ``*_array`` gives a dense 1-D device array (SciPy
  gives a 1-D ``coo_array``; the format classes here are 2-D). Along an axis they sort every row
  (``rocarray.prim.segmented_radix_sort_keys``; complex values: the real parts, then the imaginary
  parts of the entries tied for the real extreme). Non-canonical inputs are canonicalized in place first, as SciPy does.
* ``diagonal``: a 1-D device array, duplicates summed.
* ``count_nonzero``: stored values that are nonzero after summing duplicates; an ``int`` for the
  whole array, int64 device arrays along an axis.
"""

import builtins
import math
import operator

import numpy

from rocarray.sparse import _opsdev
from rocarray.sparse._opsutil import compressed, from_parts, row_ids, segment_sums


def validate_axis(axis):
    """SciPy's ``validateaxis`` for 2-D: ``None`` (whole array), ``0`` or ``1``."""
    if axis is None:
        return None
    if axis == ():
        raise ValueError("sparse does not accept 0D axis (). Either use toarray (for dense) "
                         "or copy (for sparse).")
    axes = axis if isinstance(axis, tuple) else (axis,)
    if not isinstance(axis, tuple) and not numpy.issubdtype(numpy.dtype(type(axis)), numpy.integer):
        raise TypeError(f"axis must be an integer/tuple of ints, not {type(axis)}")
    canon = []
    for ax in axes:
        try:
            ax = operator.index(ax)
        except TypeError:
            raise TypeError(f"axis must be an integer. (given {ax})") from None
        if ax < 0:
            ax += 2
        if ax < 0 or ax >= 2:
            raise ValueError("axis out of range for ndim")
        canon.append(ax)
    if len(canon) != len(set(canon)):
        raise ValueError("duplicate value in axis")
    if len(canon) == 2:
        return None
    return canon[0]


def sum_dtype(dtype):
    """SciPy's ``get_sum_dtype``: NumPy's accumulation dtype of ``sum``."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "u" and numpy.can_cast(dtype, numpy.uint):
        return numpy.dtype(numpy.uint)
    if numpy.can_cast(dtype, numpy.int_):
        return numpy.dtype(numpy.int_)
    return dtype


def reduced_shape(shape, axis, matrix):
    """Shape of a reduction along ``axis`` (0 or 1): 1-D for arrays, 2-D for matrices."""
    m, n = shape
    if matrix:
        return (1, n) if axis == 0 else (m, 1)
    return (n,) if axis == 0 else (m,)


def _finish(res, out):
    if out is None:
        return res
    if out.shape != res.shape:
        raise ValueError("out dimensions do not match shape")
    out[...] = res
    return out


def _own(a):
    """``a`` in its own compressed format (COO as CSR)."""
    return compressed(a, a.format if a.format != "coo" else "csr")


def _along(a, axis):
    """The compressed form whose major axis survives a reduction along ``axis``."""
    return compressed(a, "csc" if axis == 0 else "csr")


def sum(a, axis=None, dtype=None, out=None):  # noqa: A001  (SciPy's name)
    """``a.sum(axis)``.

    Parameters
    ----------
    a : sparse array or matrix
    axis : {None, 0, 1, -1, -2}
    dtype : dtype, optional
        Result dtype (default: NumPy's accumulation dtype of ``a.dtype``).
    out : cupy.ndarray, optional
        Result array of the reduced shape.

    Returns
    -------
    cupy.ndarray
    """
    xp = _opsdev.xp()
    axis = validate_axis(axis)
    res_dtype = sum_dtype(a.dtype)
    if axis is None:
        if a.nnz == 0:
            return _finish(xp.zeros((), dtype=dtype or res_dtype), out)
        # duplicates are summed in the data dtype first (SciPy's deduplicated data)
        c = _canonical(_own(a)) if a.dtype.kind in "biu" else a
        return _finish(xp.sum(c.data, dtype=dtype), out)
    c = _along(a, axis)
    sums = segment_sums(c.data, c.indptr, res_dtype).astype(dtype or res_dtype, copy=False)
    return _finish(sums.reshape(reduced_shape(a.shape, axis, _opsdev.is_matrix(a))), out)


def mean(a, axis=None, dtype=None, out=None):
    """``a.mean(axis)``: the sum divided by the number of elements reduced (float64 for integers).

    Parameters
    ----------
    a : sparse array or matrix
    axis : {None, 0, 1, -1, -2}
    dtype : dtype, optional
        Result dtype.
    out : cupy.ndarray, optional

    Returns
    -------
    cupy.ndarray

    Raises
    ------
    ZeroDivisionError
        Over an empty axis, as SciPy.
    """
    axis = validate_axis(axis)
    integral = a.dtype.kind in "biu"
    inter = numpy.dtype(numpy.float64) if integral else a.dtype
    denom = math.prod(a.shape) if axis is None else a.shape[axis]
    scale = 1.0 / denom
    res = sum(a, axis=axis, dtype=inter) * inter.type(scale)
    if dtype is not None and out is None:
        return res.astype(dtype, copy=False)
    return _finish(res, out)


def _canonical(c):
    if not c.has_canonical_format:
        c.sum_duplicates()
    return c


def _extreme(a, axis, explicit, is_max):
    xp = _opsdev.xp()
    axis = validate_axis(axis)
    fold = xp.maximum if is_max else xp.minimum
    if axis is None:
        if 0 in a.shape:
            raise ValueError("zero-size array to reduction operation")
        c = _canonical(_own(a))
        if c.nnz == 0:
            return xp.zeros((), dtype=a.dtype)
        m = xp.amax(c.data) if is_max else xp.amin(c.data)
        if not explicit and c.nnz != math.prod(a.shape):
            m = fold(m, xp.zeros((), dtype=a.dtype))
        return m
    if a.shape[axis] == 0:
        raise ValueError("zero-size array to reduction operation")
    c = _canonical(_along(a, axis))
    value = _segment_extremes(c, a.shape[axis], explicit, is_max)
    if not _opsdev.is_matrix(a):
        return value
    # a (1, n) CSC or (m, 1) CSR of c's class holds the nonzero extremes; its COO is the result
    nonzero = value != 0
    idx = c.indptr.dtype
    indptr = xp.zeros(value.size + 1, dtype=idx)
    if value.size:
        indptr[1:] = xp.cumsum(nonzero)
    kept = value[nonzero]
    out = from_parts(c, xp.zeros(kept.size, dtype=idx), indptr, kept, reduced_shape(a.shape, axis, True),
                     canonical=True)
    return out.tocoo()


def _sorted_extremes(data, indptr, is_max):
    """Max or min of every segment of real ``data`` (0 for empty segments; NaN propagates), from one
    segmented ascending sort: the last element is the max and says whether a NaN is present."""
    xp = _opsdev.xp()
    value = xp.zeros(indptr.size - 1, dtype=data.dtype)
    s = _opsdev.segmented_sort(data, indptr)
    starts, ends = indptr[:-1], indptr[1:]
    full = ends > starts
    last = s[ends[full] - 1]
    if is_max:
        ext = last
    else:
        ext = s[starts[full]]
        if data.dtype.kind == "f":
            ext = xp.where(xp.isnan(last), last, ext)
    value[full] = ext
    return value


def _segment_extremes(c, length, explicit, is_max):
    """Max or min of every major segment of canonical ``c`` (0 for empty segments); segments with
    fewer than ``length`` entries fold in the implicit zero unless ``explicit``. Complex values
    order as NumPy's (real part, then imaginary part among the ties)."""
    xp = _opsdev.xp()
    indptr = c.indptr
    if c.nnz == 0:
        return xp.zeros(indptr.size - 1, dtype=c.dtype)
    if c.dtype.kind == "c":
        re = _sorted_extremes(xp.ascontiguousarray(c.data.real), indptr, is_max)
        ties = c.data.real == re[row_ids(indptr, c.nnz)]
        fill = numpy.array(-numpy.inf if is_max else numpy.inf, dtype=re.dtype)
        im = _sorted_extremes(xp.where(ties, c.data.imag, fill.item()).astype(re.dtype), indptr, is_max)
        value = (re + 1j * im).astype(c.dtype)
    else:
        value = _sorted_extremes(c.data, indptr, is_max)
    if not explicit:
        starts, ends = indptr[:-1], indptr[1:]
        short = (ends > starts) & ((ends - starts) < length)
        zero = xp.zeros((), dtype=c.dtype)
        fold = xp.maximum if is_max else xp.minimum
        value = xp.where(short, fold(value, zero), value)
    return value


def max(a, axis=None, explicit=False):  # noqa: A001
    """``a.max(axis)``: the largest element, implicit zeros included unless ``explicit``.

    Parameters
    ----------
    a : sparse array or matrix
    axis : {None, 0, 1, -1, -2}
    explicit : bool
        Only the stored values count.

    Returns
    -------
    cupy.ndarray or coo_matrix
        See the module's rules.

    Raises
    ------
    ValueError
        For an empty array (or an empty reduced axis).
    """
    return _extreme(a, axis, explicit, True)


def min(a, axis=None, explicit=False):  # noqa: A001
    """``a.min(axis)``: the smallest element, implicit zeros included unless ``explicit``.

    Parameters
    ----------
    a : sparse array or matrix
    axis : {None, 0, 1, -1, -2}
    explicit : bool
        Only the stored values count.

    Returns
    -------
    cupy.ndarray or coo_matrix
        See :func:`max`.
    """
    return _extreme(a, axis, explicit, False)


def diagonal(a, k=0):
    """``a.diagonal(k)``: the ``k``-th diagonal as a 1-D device array (duplicates summed).

    Parameters
    ----------
    a : sparse array or matrix
    k : int
        Diagonal: 0 the main one, positive above, negative below.

    Returns
    -------
    cupy.ndarray
    """
    xp = _opsdev.xp()
    k = operator.index(k)
    rows, cols = a.shape
    if k <= -rows or k >= cols:
        return xp.empty(0, dtype=a.dtype)
    r0 = builtins.max(0, -k)
    length = builtins.min(rows + builtins.min(k, 0), cols - builtins.max(k, 0))
    out = xp.zeros(length, dtype=a.dtype)
    c = compressed(a, "csr")
    if not c.has_canonical_format:
        c = c.copy()
        c.sum_duplicates()
    if c.nnz == 0:
        return out
    r = row_ids(c.indptr, c.nnz)
    on = (c.indices.astype(numpy.int64) - r.astype(numpy.int64)) == k
    out[r[on] - r0] = c.data[on]
    return out


def count_nonzero(a, axis=None):
    """``a.count_nonzero(axis)``: nonzero values after summing duplicates (in place, as SciPy).

    Parameters
    ----------
    a : sparse array or matrix
    axis : {None, 0, 1, -1, -2}

    Returns
    -------
    int or cupy.ndarray
        An ``int`` for ``axis=None``, else int64 counts (1-D for arrays and matrices alike).

    Raises
    ------
    ValueError
        For an axis out of bounds.
    """
    xp = _opsdev.xp()
    if axis is None:
        c = _canonical(_own(a))
        return _opsdev.host_int(xp.count_nonzero(c.data))
    axis = operator.index(axis)
    if axis < 0:
        axis += 2
    if axis not in (0, 1):
        raise ValueError("axis out of bounds")
    c = _canonical(_along(a, axis))
    return segment_sums(c.data != 0, c.indptr, numpy.dtype(numpy.int64))
