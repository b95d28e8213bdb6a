"""Binary search of many queries in a sorted array (``_kernels/prim/search.hip``).

Public functions
----------------
``lower_bound(a, v, *, sorter=None)``
    For every query ``v[j]`` the first ``i`` with ``not a[i] < v[j]`` (``searchsorted`` side left).
``upper_bound(a, v, *, sorter=None)``
    The first ``i`` with ``v[j] < a[i]`` (side right).

``a`` is 1-D and sorted in NumPy's order (NaN last; complex lexicographic with NaNs last), or read
through ``sorter`` (int64 indices that sort it). ``v`` has ``a``'s dtype, any shape; the result
is int64 of ``v``'s shape.

Design
------
``ra_prim_search<T>``: one thread per query over about one wave of blocks; each block caches
1024 evenly spaced samples of ``a`` (the top ten levels of the implicit search tree) in shared
memory, so a query makes ~log2(n / 1024) dependent global loads instead of log2(n).
"""

import numpy

from rocarray._core import args as _args
from rocarray._core import backend, dtypes, kernels, launch, plans
from rocarray._core import compile as _compile

SOURCE = "prim/search.hip"

#: Threads per block (``RA_PRIM_SEARCH_BLOCK``).
BLOCK = 256

#: The dtypes of ``a`` (and ``v``) the kernels take.
DTYPES = tuple(numpy.dtype(d) for d in dtypes.ALL_DTYPES)


def element_type(dtype):
    """The kernel element type of ``dtype``: its C type, bool read as ``ra_u8``."""
    dtype = numpy.dtype(dtype)
    return dtypes.UNSIGNED[1] if dtype.kind == "b" else dtypes.ctype(dtype)


def kernel_name(dtype):
    """``'ra_prim_search<T>'`` for ``dtype``."""
    return f"ra_prim_search<{element_type(dtype)}>"


def instantiations():
    """Every name expression this module launches."""
    return sorted({kernel_name(d) for d in DTYPES})


_compile.register(SOURCE, instantiations())

_kernels = kernels.Family(SOURCE, BLOCK, 8)


def grid_blocks(m, wave):
    """Blocks for ``m`` queries: one per 256 queries, at most ``wave`` (every block loads the
    samples once, so fewer, longer-lived blocks cost less)."""
    return max(1, min(-(-m // BLOCK), wave))


def _plan(dtype, n, m, right, sorted_by, device_id):
    """The prepared search of ``m`` queries in ``n`` elements of ``dtype`` (``sorted_by``: through
    a sorter): called with the addresses of ``a``, the sorter (when given), ``v`` and the result."""
    kernel = _kernels[kernel_name(dtype)]
    ptr = launch.POINTER
    return kernel.prepare(device_id, grid_blocks(m, kernel.wave(device_id)),
                          (ptr, numpy.int64(n), ptr if sorted_by else numpy.uint64(0), ptr, numpy.int64(m),
                           numpy.int32(bool(right)), ptr))


def search_sorted(a, v, *, right=False, sorter=None):
    """Insertion points of ``v`` in the sorted 1-D ``a`` (``right``: after equal elements).

    Parameters
    ----------
    a : cupy.ndarray
        1-D, sorted in NumPy's order (or through ``sorter``).
    v : cupy.ndarray
        Queries of ``a.dtype``, any shape.
    right : bool
        Side 'right' (upper bound) instead of 'left' (lower bound).
    sorter : cupy.ndarray, optional
        int64 indices of ``a.size`` elements (all in range) that sort ``a``.

    Returns
    -------
    cupy.ndarray
        int64, ``v.shape``.

    Notes
    -----
    The prepared launch is kept in :data:`rocarray._core.plans.cache` under ``('prim.search', dtype,
    len(a), v.size, right, sorter given, device)``.
    """
    cupy = backend.cupy()
    _args.device_array(a, "a", "prim search", DTYPES)
    _args.device_array(v, "v", "prim search", DTYPES)
    if a.ndim != 1:
        raise ValueError(f"prim search: a must be 1-D, got {a.ndim} dims")
    if v.dtype != a.dtype:
        raise TypeError(f"prim search: v has dtype {v.dtype.name}, a has {a.dtype.name}")
    out = cupy.empty(v.shape, dtype=numpy.int64)
    m = v.size
    n = a.size
    if m == 0:
        return out
    if n == 0:
        out.fill(0)
        return out
    ac = a if a.flags.c_contiguous else cupy.ascontiguousarray(a)
    vc = v if v.flags.c_contiguous else cupy.ascontiguousarray(v)
    device_id = ac.data.device_id
    right = bool(right)
    sorted_by = sorter is not None
    go = plans.cache.lookup(("prim.search", a.dtype, n, m, right, sorted_by, device_id),
                            lambda: _plan(a.dtype, n, m, right, sorted_by, device_id))
    if sorted_by:
        sorter = cupy.ascontiguousarray(sorter.astype(numpy.int64, copy=False))
        go(ac.data.ptr, sorter.data.ptr, vc.data.ptr, out.data.ptr)
    else:
        go(ac.data.ptr, vc.data.ptr, out.data.ptr)
    return out


def lower_bound(a, v, *, sorter=None):
    """First ``i`` with ``not a[i] < v`` for every query (``searchsorted(a, v, 'left')``).

    Parameters
    ----------
    a : cupy.ndarray
        1-D, sorted in NumPy's order (or through ``sorter``).
    v : cupy.ndarray
        Queries of ``a.dtype``, any shape.
    sorter : cupy.ndarray, optional
        int64 indices of ``a.size`` elements (all in range) that sort ``a``.

    Returns
    -------
    cupy.ndarray
        int64, ``v.shape``.

    Examples
    --------
    >>> ra.prim.lower_bound(cupy.array([1., 2., 2., 3.]), cupy.array([2., 9.]))   # doctest: +SKIP
    array([1, 4])
    """
    return search_sorted(a, v, right=False, sorter=sorter)


def upper_bound(a, v, *, sorter=None):
    """First ``i`` with ``v < a[i]`` for every query (``searchsorted(a, v, 'right')``).

    Parameters
    ----------
    a : cupy.ndarray
        1-D, sorted in NumPy's order (or through ``sorter``).
    v : cupy.ndarray
        Queries of ``a.dtype``, any shape.
    sorter : cupy.ndarray, optional
        int64 indices of ``a.size`` elements (all in range) that sort ``a``.

    Returns
    -------
    cupy.ndarray
        int64, ``v.shape``.

    Examples
    --------
    >>> ra.prim.upper_bound(cupy.array([1., 2., 2., 3.]), cupy.array([2., 9.]))   # doctest: +SKIP
    array([3, 4])
    """
    return search_sorted(a, v, right=True, sorter=sorter)
