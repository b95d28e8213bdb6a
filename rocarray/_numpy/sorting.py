"""NumPy-named sort façade: ``sort``, ``argsort``, ``lexsort``, ``partition``, ``argpartition``, ``sort_complex``.

Arguments are checked here, once, in NumPy's words; the work is the stable LSD radix sort of
:mod:`rocarray.prim._sort`. Semantics follow NumPy:

* every ``kind`` ('quicksort', 'mergesort', 'heapsort', 'stable', and NumPy's one-letter
  spellings) and ``stable=`` give NumPy's *stable* sort, so results equal
  ``numpy.sort(kind='stable')``/``numpy.argsort(kind='stable')`` element for element;
* ``axis=None`` sorts the flattening; any axis (the axis is moved last with a copy when needed);
* floats: -0.0 == 0.0 (input order kept), every NaN last; complex: NumPy's lexicographic order
  (real part, then imaginary part; values with a NaN part after all others, in NumPy's classes);
* ``argsort``/``argpartition``/``lexsort`` return int64 (``numpy.intp``) indices;
* ``partition``/``argpartition`` return a full stable sort, which satisfies NumPy's contract (the
  ``kth`` element in its sorted place, no larger one before it, no smaller one after it);
* ``order=`` raises ``ValueError`` (rocarray arrays have no fields). Host (NumPy) arrays raise
  ``TypeError`` (the project rule, see :mod:`rocarray._core.args`).
"""


import numpy

from rocarray._core import backend
from rocarray._core.args import as_device_array, normalize_axis
from rocarray.prim import _sort

_KIND_LETTERS = "qhms"


def check_kind(kind, stable=None):
    """NumPy's checks of ``kind`` and ``stable`` (every accepted kind sorts stably here)."""
    if stable is not None and kind is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same time. "
                         "Use only one of them.")
    if kind is None:
        return
    if not isinstance(kind, str):
        raise TypeError(f"sort kind must be str or None, not {type(kind).__name__}")
    if not kind or kind[0].lower() not in _KIND_LETTERS:
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")


def check_order(order):
    """``order=`` needs a structured dtype, which device arrays never have."""
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")


def check_select_kind(kind):
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got {kind!r})")


def normalize_kth(kth, n):
    """``kth`` as a list of non-negative ints, with NumPy's errors (bool: ValueError, non-int:
    TypeError, out of range: ValueError ``kth(=k) out of bounds (n)``)."""
    if backend.cupy_module() is not None and isinstance(kth, backend.cupy_module().ndarray):
        kth = kth.get()
    arr = numpy.asarray(kth)
    if arr.dtype == numpy.bool_:
        raise ValueError("Booleans unacceptable as partition index")
    if arr.ndim > 1:
        raise ValueError("object too deep for desired array")
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    out = []
    if n == 0:  # NumPy does not check kth against an empty axis
        return out
    for k in arr.reshape(-1).tolist():
        k = int(k)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")
        out.append(k)
    return out


# --------------------------------------------------------------------------------------------
# rows engine
# --------------------------------------------------------------------------------------------

def _complex_keys(x2):
    """Keys of NumPy's complex order, least significant first: imaginary part, real part, NaN class
    (0: no NaN, 1: NaN imaginary part only, 2: NaN real part only, 3: both)."""
    cupy = backend.cupy()
    re, im = cupy.ascontiguousarray(x2.real), cupy.ascontiguousarray(x2.imag)
    cls = (cupy.isnan(re).astype(numpy.uint8) << 1) | cupy.isnan(im).astype(numpy.uint8)
    return [im, re, cls]


def _lex_rows(keys2):
    """int64 stable lexicographic argsort of every row; ``keys2``: list of (rows, n) C-contiguous
    arrays, least significant first (complex keys expand to their parts)."""
    cupy = backend.cupy()
    expanded = []
    for k in keys2:
        expanded.extend(_complex_keys(k) if k.dtype.kind == "c" else [k])
    perm = _sort.sort_rows(expanded[0], indices=True)
    for k in expanded[1:]:
        g = cupy.ascontiguousarray(cupy.take_along_axis(k, perm, axis=1))
        p = _sort.sort_rows(g, indices=True)
        perm = cupy.take_along_axis(perm, p, axis=1)
    return perm


def _check_dtype(a, name):
    if a.dtype.kind == "c":
        return
    if a.dtype not in _sort.KEY_DTYPES:
        raise TypeError(f"{name}: unsupported dtype {a.dtype.name}")


def _sort_along(a, axis, indices):
    """Stable sort (or argsort) of device array ``a`` along ``axis`` (normalized)."""
    cupy = backend.cupy()
    if a.size == 0:
        return cupy.empty(a.shape, dtype=numpy.int64 if indices else a.dtype)
    n = a.shape[axis]
    moved = cupy.moveaxis(a, axis, -1)
    x2 = cupy.ascontiguousarray(moved).reshape(-1, n)
    if a.dtype.kind == "c":
        perm = _lex_rows([x2])
        res2 = perm if indices else cupy.take_along_axis(x2, perm, axis=1)
    else:
        res2 = _sort.sort_rows(x2, indices=indices)
    res = res2.reshape(moved.shape)
    if axis == a.ndim - 1:
        return res
    return cupy.ascontiguousarray(cupy.moveaxis(res, -1, axis))


def _sort_descending(a, axis, indices):
    """Stable descending sort (or argsort): the reversed ascending sort of the reversed input,
    which keeps equal values in input order."""
    cupy = backend.cupy()
    res = _sort_along(cupy.flip(a, axis), axis, indices)
    if indices:
        res = (a.shape[axis] - 1) - res
    return cupy.ascontiguousarray(cupy.flip(res, axis))


def _prepare(a, axis, name):
    a = as_device_array(a, "a")
    _check_dtype(a, name)
    if axis is None:
        return a.reshape(-1), 0
    return a, normalize_axis(axis, a.ndim)


# --------------------------------------------------------------------------------------------
# public functions
# --------------------------------------------------------------------------------------------

def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """Return a sorted copy of an array (``numpy.sort``); always NumPy's stable sort.

    Parameters
    ----------
    a : cupy.ndarray
        Device array: bool, integers, float16/32/64, complex64/128.
    axis : int or None
        Axis to sort along (default last); None sorts the flattened array.
    kind : {None, 'quicksort', 'mergesort', 'heapsort', 'stable'}
        Accepted for compatibility; every kind gives the stable result.
    order : None
        Must be None (device arrays have no fields): ``ValueError`` otherwise.
    stable : bool, optional
        Accepted for compatibility (NumPy 2); may not be combined with ``kind``.
    descending : bool, optional
        The Array API standard's keyword (NumPy has none): largest first, equal values still in
        input order, NaNs first.

    Returns
    -------
    cupy.ndarray
        Same shape and dtype as ``a``. NaNs sort last; -0.0 and 0.0 tie (input order kept).

    See Also
    --------
    argsort, rocarray.prim.radix_sort_keys

    Examples
    --------
    >>> ra.sort(ra.asarray([3, 1, 2]))   # doctest: +SKIP
    array([1, 2, 3])
    """
    check_kind(kind, stable)
    check_order(order)
    a, axis = _prepare(a, axis, "sort")
    if descending:
        return _sort_descending(a, axis, False)
    return _sort_along(a, axis, False)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """Indices that sort an array (``numpy.argsort``); always NumPy's stable argsort.

    Parameters
    ----------
    a : cupy.ndarray
        Device array: bool, integers, float16/32/64, complex64/128.
    axis : int or None
        Axis to sort along (default last); None sorts the flattened array.
    kind : {None, 'quicksort', 'mergesort', 'heapsort', 'stable'}
        Accepted for compatibility; every kind gives the stable result.
    order : None
        Must be None (device arrays have no fields): ``ValueError`` otherwise.
    stable : bool, optional
        Accepted for compatibility (NumPy 2); may not be combined with ``kind``.
    descending : bool, optional
        The Array API standard's keyword (NumPy has none): indices of the largest first, equal
        values still in input order, NaNs first.

    Returns
    -------
    cupy.ndarray
        int64 (``numpy.intp``) indices of ``a``'s shape (flattened for ``axis=None``). NaNs sort
        last; -0.0 and 0.0 tie (input order kept).

    Examples
    --------
    >>> ra.argsort(ra.asarray([3, 1, 2, 1]))   # doctest: +SKIP
    array([1, 3, 2, 0])
    """
    check_kind(kind, stable)
    check_order(order)
    a, axis = _prepare(a, axis, "argsort")
    if descending:
        return _sort_descending(a, axis, True)
    return _sort_along(a, axis, True)


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """Partitioned copy of an array (``numpy.partition``).

    The ``kth`` element(s) are in their sorted place, no larger element before, no smaller one
    after. rocarray returns the full stable sort, which meets that contract.

    Parameters
    ----------
    a : cupy.ndarray
    kth : int or sequence of int
        Position(s) to place; negative values count from the end.
    axis : int or None
    kind : 'introselect'
    order : None

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.partition(ra.asarray([3, 4, 2, 1]), 2)   # doctest: +SKIP
    array([1, 2, 3, 4])
    """
    check_select_kind(kind)
    check_order(order)
    a, axis = _prepare(a, axis, "partition")
    normalize_kth(kth, a.shape[axis])
    return _sort_along(a, axis, False)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Indices that partition an array (``numpy.argpartition``); the stable argsort, which meets
    NumPy's contract.

    Parameters
    ----------
    a : cupy.ndarray
    kth : int or sequence of int
        Position(s) to place; negative values count from the end.
    axis : int or None
    kind : 'introselect'
    order : None

    Returns
    -------
    cupy.ndarray
        int64 indices.

    Examples
    --------
    >>> ra.argpartition(ra.asarray([3, 4, 2, 1]), 2)   # doctest: +SKIP
    array([3, 2, 0, 1])
    """
    check_select_kind(kind)
    check_order(order)
    a, axis = _prepare(a, axis, "argpartition")
    normalize_kth(kth, a.shape[axis])
    return _sort_along(a, axis, True)


def lexsort(keys, axis=-1):
    """Indirect stable sort on several keys (``numpy.lexsort``): the last key is the primary one.

    Parameters
    ----------
    keys : cupy.ndarray or sequence of cupy.ndarray
        ``k`` keys of one shape (a device array's first axis indexes the keys).
    axis : int
        Axis to sort along (default last).

    Returns
    -------
    cupy.ndarray
        int64 indices of the keys' shape.

    Examples
    --------
    >>> first = ra.asarray([1, 1, 0]); last = ra.asarray([2, 1, 1])
    >>> ra.lexsort((first, last))   # doctest: +SKIP
    array([2, 1, 0])
    """
    cupy = backend.cupy()
    if isinstance(keys, cupy.ndarray):
        if keys.ndim == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        keys = [keys[i] for i in range(keys.shape[0])]
    elif isinstance(keys, numpy.ndarray):
        as_device_array(keys, "keys")
    else:
        try:
            keys = list(keys)
        except TypeError:
            raise TypeError("need sequence of keys with len > 0 in lexsort") from None
        keys = [as_device_array(k, f"keys[{i}]", allow_scalar=True) for i, k in enumerate(keys)]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    shape = keys[0].shape
    if any(k.shape != shape for k in keys):
        raise ValueError("all keys need to be the same shape")
    for k in keys:
        _check_dtype(k, "lexsort")
    if len(shape) == 0:
        return cupy.zeros((), dtype=numpy.int64)
    if axis is None:
        keys = [k.reshape(-1) for k in keys]
        shape = keys[0].shape
        axis = 0
    axis = normalize_axis(axis, len(shape))
    if keys[0].size == 0:
        return cupy.empty(shape, dtype=numpy.int64)
    n = shape[axis]
    moved_shape = cupy.moveaxis(keys[0], axis, -1).shape
    keys2 = [cupy.ascontiguousarray(cupy.moveaxis(k, axis, -1)).reshape(-1, n) for k in keys]
    perm = _lex_rows(keys2).reshape(moved_shape)
    if axis == len(shape) - 1:
        return perm
    return cupy.ascontiguousarray(cupy.moveaxis(perm, -1, axis))


def sort_complex(a):
    """Sort a complex array by real part, then imaginary part (``numpy.sort_complex``), along the
    last axis.

    Parameters
    ----------
    a : cupy.ndarray
        Device array (host arrays raise ``TypeError``).

    Returns
    -------
    cupy.ndarray
        complex64 for int8/int16/uint8/uint16 input and complex64 input, else complex128 (NumPy's
        rule).

    Examples
    --------
    >>> ra.sort_complex(ra.asarray([5, 3, 6, 2, 1]))   # doctest: +SKIP
    array([1.+0.j, 2.+0.j, 3.+0.j, 5.+0.j, 6.+0.j])
    """
    a = as_device_array(a, "a")
    b = sort(a)
    if b.dtype.kind != "c":
        b = b.astype(numpy.complex64 if b.dtype.char in "bhBH" else numpy.complex128)
    return b
