"""Unique and run-length encoding on hand-written HIP kernels (``_kernels/prim/select.hip``).

Public functions (inputs are ``cupy.ndarray``, read in C order)
--------------------------------------------------------------
``unique_sorted(x, *, equal_nan=True, return_starts=False, return_counts=False)``
    Run-length encoding of adjacent equal elements (the unique values when ``x`` is sorted).
``run_length_encode(x)``
    ``(values, counts)`` of the runs of equal adjacent elements of ``x``.
``unique(x, *, return_index=False, return_inverse=False, return_counts=False, equal_nan=True)``
    ``numpy.unique`` of the flat ``x``: always ``(values, index, inverse, counts)`` (None where not
    asked), ``inverse`` flat.

Design
------
* Integers whose value range R (from one min/max pass) is small take a sort-free path: a
  histogram of ``x - min`` (shared-memory copies per block when R fits, global atomics
  otherwise, 32-bit counts), compaction of the nonzero bins (values + counts), first indices by
  64-bit ``atomicMin`` and the inverse from a rank table (an exclusive scan of the presence
  flags). Other inputs are sorted (``prim.radix_sort_keys``, or ``radix_sort_pairs`` with an
  index payload when the index or inverse is asked; complex through a stable ``cupy.argsort``)
  and one fused kernel (``ra_prim_unique_sorted``) flags the run heads, compacts the head values
  and positions and scatters the inverse through the sort permutation. The first index is the
  permutation at the head (the sort is stable), counts are differences of head positions.
* Unique of many 32/64-bit integers over a wider range (at least ``BITMAP_DENSITY`` elements per
  2^16 values on average), values only: a bitmap of the range instead of a full sort. A radix
  sort on the key bits from 16 up (two of the four passes for 32-bit keys) orders the elements
  by bucket of 2^16 values, so one block's keys fall into a few buckets: it sets their bits in a
  shared-memory window of 4 buckets (32 KiB) and ORs each window into the global bitmap once,
  with coalesced atomics. Per-chunk popcounts, their scan, and an emit kernel that writes the
  value of every set bit in order finish it.
* The run-head compaction shares the status workspace of :mod:`rocarray.prim._select`. The
  launches of the sorted and counting paths are prepared once per signature in
  :data:`rocarray._core.plans.cache` (``('prim.unique_sorted', ...)``, ``('prim.unique.minmax',
  ...)``, ``('prim.unique.count', ...)``, ``('prim.unique.rank', ...)``); the bitmap path, for a
  million elements and more, launches at once.
"""

import numpy

from rocarray._core import backend, dtypes, launch, plans
from rocarray._core import compile as _compile
from rocarray.prim import _scan, _select, _sort

#: Largest value range (bins) of the sort-free unique path, and the range always allowed for
#: large inputs (bins of 32-bit counts: 32 MiB at most).
COUNT_MAX_BINS = 1 << 23
COUNT_BASE_BINS = 1 << 22
#: The bitmap path of unique (``RA_PRIM_UNQ_*``): one bit per value, buckets of 2^16 values
#: (2048 words of 32 bits, also the chunk of the count and emit kernels); taken from this many
#: elements on, when they average at least ``BITMAP_DENSITY`` per bucket of their range.
BITMAP_BUCKET_BITS = 16
BITMAP_CHUNK_WORDS = 2048
BITMAP_MIN_SIZE = 1 << 20
BITMAP_DENSITY = 1024
#: Blocks per resident wave that the bitmap marking kernel's slices aim for.
BITMAP_SLICES_PER_WAVE = 4
_BITMAP_DTYPES = tuple(numpy.dtype(d) for d in ("int32", "int64", "uint32", "uint64"))

_I64 = numpy.dtype(numpy.int64)
_U32 = numpy.dtype(numpy.uint32)
_U64 = numpy.dtype(numpy.uint64)
_INT_DTYPES = tuple(d for d in _select.DTYPES if d.kind in "biu")

BLOCK, TILE = _select.BLOCK, _select.TILE


# --------------------------------------------------------------------------------------------
# kernel names and path choice (pure Python)
# --------------------------------------------------------------------------------------------

def unique_name(kind, dtype):
    """``kind`` is ``'sorted'`` (every dtype), ``'minmax'``/``'count'``/``'rank'`` (integers) or
    ``'mark'`` (32-bit integers), ``'offsets'`` (64-bit) or ``'bitemit'`` (32/64-bit)."""
    dtype = numpy.dtype(dtype)
    if kind == "sorted":
        ct = _select.flag_ctype(dtype)
    else:
        ct = dtypes.UNSIGNED[1] if dtype.kind == "b" else dtypes.ctype(dtype)
    return f"ra_prim_unique_{kind}<{ct}>"


def instantiations():
    """Every unique name expression this module launches."""
    names = set()
    for d in _select.DTYPES:
        names.add(unique_name("sorted", d))
        if d in _INT_DTYPES:
            for kind in ("minmax", "count", "rank"):
                names.add(unique_name(kind, d))
    for d in _BITMAP_DTYPES:
        names.add(unique_name("bitemit", d))
        names.add(unique_name("mark" if d.itemsize == 4 else "offsets", d))
    return sorted(names)


_compile.register(_select.SOURCE, instantiations())


def use_counting(dtype, n, value_range):
    """Whether unique of ``n`` integers spanning ``value_range`` values takes the sort-free path."""
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "biu" or n >= (1 << 32) or n == 0:
        return False
    limit = min(COUNT_MAX_BINS, max(n // 4, min(n, COUNT_BASE_BINS)))
    return value_range <= limit


def bitmap_buckets(lo_key, hi_key):
    """Buckets of ``2**BITMAP_BUCKET_BITS`` keys the bitmap of keys ``lo_key .. hi_key`` spans
    (aligned to a bucket, so a radix sort on the key bits from ``BITMAP_BUCKET_BITS`` on orders
    the elements by bucket)."""
    return (hi_key >> BITMAP_BUCKET_BITS) - (lo_key >> BITMAP_BUCKET_BITS) + 1


def use_bitmap(dtype, n, lo_key, hi_key):
    """Whether unique of ``n`` integers with keys ``lo_key .. hi_key`` takes the bitmap path: 32-
    and 64-bit integers (the 32-bit sort images and keys share their bucket boundaries; 64-bit keys
    are taken as 32-bit offsets, so their range must stay below 2^32), many elements, dense enough
    that the bitmap (``buckets * 8 KiB``) is at most twice the bytes of 32-bit elements."""
    dtype = numpy.dtype(dtype)
    if dtype not in _BITMAP_DTYPES or n < BITMAP_MIN_SIZE:
        return False
    buckets = bitmap_buckets(lo_key, hi_key)
    return n >= buckets * BITMAP_DENSITY and buckets <= 1 << (32 - BITMAP_BUCKET_BITS)


# --------------------------------------------------------------------------------------------
# sorted input: run heads
# --------------------------------------------------------------------------------------------

def _sorted_plan(dtype, n, equal_nan, outs, device_id):
    ptr, null = launch.POINTER, numpy.uint64(0)
    tiles = -(-n // TILE)
    kernel = _select.family[unique_name("sorted", dtype)]
    return tiles, kernel.prepare(device_id, tiles, (ptr, numpy.int64(n), numpy.int32(bool(equal_nan)))
                                 + tuple(ptr if o else null for o in outs)
                                 + (ptr, ptr, launch.scalar(numpy.uint32)))


def _launch_unique_sorted(keys, equal_nan, out_val, out_start, perm, inverse):
    """One ``ra_prim_unique_sorted`` launch over the flat contiguous ``keys``; returns the number of
    runs. Outputs that are None are not written."""
    n = keys.size
    device_id = keys.data.device_id
    given = [a for a in (out_val, out_start, perm, inverse) if a is not None]
    outs = (out_val is not None, out_start is not None, perm is not None, inverse is not None)
    equal_nan = bool(equal_nan)
    tiles, go = plans.cache.lookup(("prim.unique_sorted", keys.dtype, n, equal_nan, outs, device_id),
                                   lambda: _sorted_plan(keys.dtype, n, equal_nan, outs, device_id))
    buf, epoch = _select.status(device_id, tiles)
    count = backend.cupy().empty(1, dtype=_I64)  # the last tile's block writes it
    go(keys.data.ptr, *[a.data.ptr for a in given], count.data.ptr, buf.data.ptr, epoch)
    return _select.host_count(count)


def _counts_from_starts(starts, n):
    cupy = backend.cupy()
    return cupy.diff(starts, append=cupy.asarray(numpy.array([n], dtype=numpy.int64)))


def unique_sorted(x, *, equal_nan=True, return_starts=False, return_counts=False):
    """Run-length encoding of the adjacent equal elements of flat ``x`` (unique of sorted input).

    Parameters
    ----------
    x : cupy.ndarray
        Read flat in C order; when sorted (NumPy's order, NaN last) the result is its unique values.
    equal_nan : bool
        NaNs are equal to each other (complex: every value with a NaN part).
    return_starts, return_counts : bool
        Also return each run's first position / its length (int64).

    Returns
    -------
    cupy.ndarray or tuple
        ``values``, then ``starts`` and ``counts`` when asked.

    Examples
    --------
    >>> ra.prim.unique_sorted(cupy.array([1, 1, 2, 5, 5, 5]), return_counts=True)   # doctest: +SKIP
    (array([1, 2, 5]), array([2, 1, 3]))
    """
    cupy = backend.cupy()
    _select.check(x)
    xf = _select.flat(x)
    n = xf.size
    vals = cupy.empty(n, dtype=x.dtype)
    starts = cupy.empty(n, dtype=_I64) if (return_starts or return_counts) else None
    k = _launch_unique_sorted(xf, equal_nan, vals, starts, None, None) if n else 0
    res = [_select.trim(vals, k)]
    if return_starts:
        res.append(starts[:k])
    if return_counts:
        res.append(_counts_from_starts(starts[:k], n))
    return res[0] if len(res) == 1 else tuple(res)


def run_length_encode(x):
    """``(values, counts)`` of the runs of equal adjacent elements of flat ``x`` (NaNs equal).

    Parameters
    ----------
    x : cupy.ndarray
        Read flat in C order; NaNs are equal to each other (complex: every value with a NaN part).

    Returns
    -------
    values : cupy.ndarray
        The first element of each run, ``x.dtype``.
    counts : cupy.ndarray
        Each run's length (int64).

    Examples
    --------
    >>> ra.prim.run_length_encode(cupy.array([3, 3, 1, 3]))   # doctest: +SKIP
    (array([3, 1, 3]), array([2, 1, 1]))
    """
    return unique_sorted(x, equal_nan=True, return_counts=True)


# --------------------------------------------------------------------------------------------
# integers: the sort-free counting path and the bitmap path
# --------------------------------------------------------------------------------------------

def _for_each_grid(n, wave):
    """Blocks of a grid-stride ``ra_prim_sel_for_each`` kernel over ``n`` elements (16 a thread,
    at most one resident wave)."""
    return max(1, min(wave, -(-n // (BLOCK * 16))))


def _for_each_plan(kind, dtype, n, args, device_id):
    """A prepared ``ra_prim_unique_<kind>`` launch over ``n`` elements: ``args`` after the data and
    its length (slot markers and fixed values)."""
    kernel = _select.family[unique_name(kind, dtype)]
    return kernel.prepare(device_id, _for_each_grid(n, kernel.wave(device_id)),
                          (launch.POINTER, numpy.int64(n)) + args)


def _minmax_keys(xf):
    """``(lo_key, hi_key)``: the order-preserving 64-bit keys of the minimum and maximum of the flat
    integers ``xf`` (one pass, read back)."""
    cupy = backend.cupy()
    mm = cupy.asarray(numpy.array([numpy.iinfo(numpy.uint64).max, 0], dtype=numpy.uint64))
    n, dtype, device_id = xf.size, xf.dtype, xf.data.device_id
    go = plans.cache.lookup(("prim.unique.minmax", dtype, n, device_id),
                            lambda: _for_each_plan("minmax", dtype, n, (launch.POINTER,), device_id))
    go(xf.data.ptr, mm.data.ptr)
    h = cupy.asnumpy(mm)
    return int(h[0]), int(h[1])


def _decode_keys(bins, lo_key, dtype):
    """Values of ``dtype`` from bin numbers (int64) above the order-preserving uint64 key ``lo_key``."""
    keys_u64 = bins.astype(_U64) + numpy.uint64(lo_key)
    dtype = numpy.dtype(dtype)
    if dtype.kind == "i":
        return (keys_u64 ^ numpy.uint64(1 << 63)).view(numpy.int64).astype(dtype)
    if dtype.kind == "b":
        return keys_u64 != 0
    return keys_u64.astype(dtype)


def _unique_counting(xf, lo_key, nbins, return_index, return_inverse, return_counts):
    cupy = backend.cupy()
    n, dtype, device_id = xf.size, xf.dtype, xf.data.device_id
    ptr, u64, i64 = launch.POINTER, launch.scalar(numpy.uint64), launch.scalar(numpy.int64)
    counts = cupy.zeros(nbins, dtype=_U32)
    first = cupy.full(nbins, n, dtype=_U64) if return_index else None
    go = plans.cache.lookup(
        ("prim.unique.count", dtype, n, first is not None, device_id),
        lambda: _for_each_plan("count", dtype, n, (u64, i64, ptr, ptr if first is not None else numpy.uint64(0)),
                               device_id))
    if first is None:
        go(xf.data.ptr, lo_key, nbins, counts.data.ptr)
    else:
        go(xf.data.ptr, lo_key, nbins, counts.data.ptr, first.data.ptr)
    bins = cupy.empty(nbins, dtype=_I64)
    cvals = cupy.empty(nbins, dtype=_U32) if return_counts else None
    k = _select.launch_select(counts, counts, cvals, bins)
    bins = bins[:k]
    values = _decode_keys(bins, lo_key, dtype)
    index = first[bins].astype(_I64) if return_index else None
    cnt = cvals[:k].astype(_I64) if return_counts else None
    inverse = None
    if return_inverse:
        rank = _scan.exclusive_scan(counts != 0, axis=0, dtype=_I64)
        inverse = cupy.empty(n, dtype=_I64)
        go = plans.cache.lookup(("prim.unique.rank", dtype, n, device_id),
                                lambda: _for_each_plan("rank", dtype, n, (u64, ptr, ptr), device_id))
        go(xf.data.ptr, lo_key, rank.data.ptr, inverse.data.ptr)
    return values, index, inverse, cnt


def _mark_bitmap(keys, base, buckets):
    """Bitmap (uint32 words, ``buckets * BITMAP_CHUNK_WORDS``) with bit ``key - base`` set for the key
    of every element of the flat integers ``keys`` (right for any order; fast when ordered by bucket)."""
    n, device_id = keys.size, keys.data.device_id
    bitmap = backend.cupy().zeros(buckets * BITMAP_CHUNK_WORDS, dtype=_U32)
    mark = _select.family[unique_name("mark", keys.dtype)]
    slice_ = -(-n // (mark.wave(device_id) * BITMAP_SLICES_PER_WAVE))
    slice_ = max(TILE, -(-slice_ // TILE) * TILE)
    mark(device_id, -(-n // slice_), (keys, numpy.int64(n), numpy.int64(slice_), numpy.uint64(base), bitmap))
    return bitmap


def _emit_bitmap(bitmap, base, dtype):
    """The values (``dtype``) of the set bits of ``bitmap`` (bit b: key ``base + b``), in order."""
    cupy = backend.cupy()
    device_id = bitmap.data.device_id
    chunks = bitmap.size // BITMAP_CHUNK_WORDS
    counts = cupy.empty(chunks, dtype=_I64)
    _select.family["ra_prim_unique_bitcount"](device_id, chunks, (bitmap, counts))
    ends = _scan.inclusive_scan(counts, axis=0)
    out = cupy.empty(int(ends[-1].get()), dtype=dtype)
    emit = _select.family[unique_name("bitemit", dtype)]
    emit(device_id, min(chunks, emit.wave(device_id)),
         (bitmap, numpy.int64(chunks), counts, ends, numpy.uint64(base), out))
    return out


def _key_offsets(xf, base):
    """``key(xf) - base`` as uint32 (64-bit integers whose keys span less than 2^32 from ``base``)."""
    n, device_id = xf.size, xf.data.device_id
    out = backend.cupy().empty(n, dtype=_U32)
    kernel = _select.family[unique_name("offsets", xf.dtype)]
    kernel(device_id, _for_each_grid(n, kernel.wave(device_id)), (xf, numpy.int64(n), numpy.uint64(base), out))
    return out


def _unique_bitmap(xf, lo_key, hi_key):
    """Sorted unique values of the flat integers ``xf`` through a bitmap of their key range: a
    radix sort on the bucket bits only (two passes for 32-bit keys) orders the elements by bucket,
    ``ra_prim_unique_mark`` sets their bits (shared-memory windows of buckets), then the set bits
    are counted per chunk, scanned and written out as values in order. 64-bit integers go
    through their 32-bit offsets from the first bucket (4-byte sort passes)."""
    dtype = xf.dtype
    base = (lo_key >> BITMAP_BUCKET_BITS) << BITMAP_BUCKET_BITS
    mark_base = base
    if xf.dtype.itemsize == 8:
        xf, mark_base = _key_offsets(xf, base), 0
    keys = _sort.radix_sort_keys(xf, begin_bit=BITMAP_BUCKET_BITS)
    bitmap = _mark_bitmap(keys, mark_base, bitmap_buckets(lo_key, hi_key))
    del keys, xf
    return _emit_bitmap(bitmap, base, dtype)


def unique(x, *, return_index=False, return_inverse=False, return_counts=False, equal_nan=True):
    """``numpy.unique`` of the flat ``x`` (C order).

    Returns
    -------
    tuple
        ``(values, index, inverse, counts)``: sorted unique values; the first index of each
        (int64); the run number of every element (int64, flat); the count of each (int64).
        Entries not asked for are None.

    Examples
    --------
    >>> ra.prim.unique(cupy.array([3, 1, 3, 2]), return_counts=True)[::3]   # doctest: +SKIP
    (array([1, 2, 3]), array([1, 1, 2]))
    """
    cupy = backend.cupy()
    _select.check(x)
    xf = _select.flat(x)
    n = xf.size
    if n == 0:
        e = cupy.empty(0, dtype=_I64)
        return (cupy.empty(0, dtype=x.dtype), e if return_index else None, e if return_inverse else None,
                e if return_counts else None)
    if x.dtype.kind in "biu" and n < (1 << 32):
        lo_key, hi_key = _minmax_keys(xf)
        nbins = hi_key - lo_key + 1
        if use_counting(x.dtype, n, nbins):
            return _unique_counting(xf, lo_key, nbins, return_index, return_inverse, return_counts)
        if not (return_index or return_inverse or return_counts) and use_bitmap(x.dtype, n, lo_key, hi_key):
            return _unique_bitmap(xf, lo_key, hi_key), None, None, None
    need_perm = return_index or return_inverse
    perm = None
    if x.dtype.kind == "c":
        perm = cupy.argsort(xf)
        keys = xf[perm]
    elif need_perm:
        keys, perm = _sort.radix_sort_pairs(xf, cupy.arange(n, dtype=_I64))
    else:
        keys = _sort.radix_sort_keys(xf)
    vals = cupy.empty(n, dtype=x.dtype)
    starts = cupy.empty(n, dtype=_I64) if (return_index or return_counts) else None
    inverse = cupy.empty(n, dtype=_I64) if return_inverse else None
    k = _launch_unique_sorted(keys, equal_nan, vals, starts, perm if return_inverse else None, inverse)
    values = _select.trim(vals, k)
    index = perm[starts[:k]] if return_index else None
    cnt = _counts_from_starts(starts[:k], n) if return_counts else None
    return values, index, inverse, cnt
