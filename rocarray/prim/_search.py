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

from rocarray._core import compile as _compile, launch
from rocarray.prim._args import device_array

SOURCE = "prim/search.hip"

#: Threads per block (``RA_PRIM_SEARCH_BLOCK``) and cached samples (``RA_PRIM_SEARCH_SAMPLES``).
BLOCK = 256
SAMPLES = 1024

_CTYPES = {
    numpy.dtype("bool"): "ra_u8", numpy.dtype("int8"): "ra_i8", numpy.dtype("int16"): "ra_i16",
    numpy.dtype("int32"): "ra_i32", numpy.dtype("int64"): "ra_i64", numpy.dtype("uint8"): "ra_u8",
    numpy.dtype("uint16"): "ra_u16", numpy.dtype("uint32"): "ra_u32", numpy.dtype("uint64"): "ra_u64",
    numpy.dtype("float16"): "ra_half", numpy.dtype("float32"): "float", numpy.dtype("float64"): "double",
    numpy.dtype("complex64"): "ra_c64", numpy.dtype("complex128"): "ra_c128",
}
DTYPES = tuple(_CTYPES)


def kernel_name(dtype):
    """``'ra_prim_search<T>'`` for ``dtype``."""
    return f"ra_prim_search<{_CTYPES[numpy.dtype(dtype)]}>"


def instantiations():
    """Every name expression this module launches."""
    return sorted({kernel_name(d) for d in DTYPES})


_compile.register(SOURCE, instantiations())

_cupy = launch.cupy
_table = launch.KernelTable(SOURCE, BLOCK, 8)


def grid_blocks(m, wave):
    """Blocks for ``m`` queries: one per 256 queries, at most ``wave`` (every block loads the
    samples once, so fewer, longer-lived blocks cost less)."""
    return max(1, min(-(-m // BLOCK), wave))


def _check(x, name):
    device_array(x, name, "prim search", _CTYPES)


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
    """
    cupy = _cupy()
    _check(a, "a")
    _check(v, "v")
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
    if sorter is not None:
        sorter = cupy.ascontiguousarray(sorter.astype(numpy.int64, copy=False))
    device_id = ac.data.device_id
    kernel, wave = _table.get(kernel_name(a.dtype), device_id)
    kernel((grid_blocks(m, wave),), (BLOCK,),
           (ac, numpy.int64(n), sorter if sorter is not None else numpy.uint64(0), vc, numpy.int64(m),
            numpy.int32(bool(right)), out))
    return out


def lower_bound(a, v, *, sorter=None):
    """First ``i`` with ``not a[i] < v`` for every query (``searchsorted(a, v, 'left')``).

    Examples
    --------
    >>> ra.prim.lower_bound(cupy.array([1., 2., 2., 3.]), cupy.array([2., 9.]))   # doctest: +SKIP
    array([1, 4])
    """
    return search_sorted(a, v, right=False, sorter=sorter)


def upper_bound(a, v, *, sorter=None):
    """First ``i`` with ``v < a[i]`` for every query (``searchsorted(a, v, 'right')``).

    Examples
    --------
    >>> ra.prim.upper_bound(cupy.array([1., 2., 2., 3.]), cupy.array([2., 9.]))   # doctest: +SKIP
    array([3, 4])
    """
    return search_sorted(a, v, right=True, sorter=sorter)
