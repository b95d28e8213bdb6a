"""Stream compaction and unique on hand-written HIP kernels (``_kernels/prim/select.hip``).

Public functions (hipCUB-like names; inputs are ``cupy.ndarray``, read in C order)
----------------------------------------------------------------------------------
``select_flagged(x, flags)``
    The elements of ``x`` whose flag is nonzero, in order (``x[flags != 0]`` on the flat arrays).
``select_if_nonzero(x)``
    The nonzero elements of ``x``, in order.
``nonzero_indices(x)``
    Flat int64 indices of the nonzero elements of ``x`` (``numpy.flatnonzero``).
``nonzero_coords(x, layout='rows')``
    Their C-order coordinates: ``(ndim, N)`` (``layout='rows'``, numpy.nonzero) or ``(N, ndim)``
    (``layout='columns'``, numpy.argwhere).
``mask_select(x, mask)``
    ``x[mask]`` for a bool ``mask`` whose shape is the leading part of ``x.shape``.
``unique_sorted(x, *, equal_nan=True, return_starts=False, return_counts=False)``
    Run-length encoding of adjacent equal elements (the unique values when ``x`` is sorted).
``run_length_encode(x)``
    ``(values, counts)`` of the runs of equal adjacent elements of ``x``.
``unique(x, *, return_index=False, return_inverse=False, return_counts=False, equal_nan=True)``
    ``numpy.unique`` of the flat ``x``: always ``(values, index, inverse, counts)`` (None where not
    asked), ``inverse`` flat.

Design
------
* Compaction: ``ra_prim_select<F, V>`` is single-pass with decoupled look-back over per-tile
  counts of selected elements (Merrill & Garland 2016): 256 threads x 16 elements per tile, the
  selected positions staged in shared memory so the outputs are written with coalesced stores,
  the count into a device scalar. Bytes moved: the flags (+ the selected values) read, the selected
  values/indices written. Outputs are allocated for the worst case (every element selected); the
  count is read back (one sync, needed for the result's shape anyway) and the result is a view of
  the buffer when at least a quarter was used, else a compact copy.
* Unique: integers whose value range R (from one min/max pass) is small take a sort-free path:
  a histogram of ``x - min`` (shared-memory copies per block when R fits, global atomics
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
  value of every set bit in order finish it. Bytes for 2^28 int32 keys over the full range: the
  two sort passes and their histogram read (~5 GB), the keys read once more (1 GB), the bitmap
  (512 MiB) zeroed, ORed, read twice, and the values written.
* Workspace: one buffer per (device, stream), grown on demand and zeroed only when allocated: the
  64-bit status words carry a per-launch epoch, the ticket counter resets itself.
"""

import numpy

from rocarray._core import compile as _compile, launch
from rocarray.prim._args import device_array
from rocarray.prim._workspace import EpochWorkspaces

SOURCE = "prim/select.hip"

#: Threads per block (``RA_PRIM_SEL_BLOCK``) and elements per tile (``RA_PRIM_SEL_TILE``).
BLOCK = 256
TILE = 256 * 16
#: Byte offset of the tile status words in the workspace (``RA_PRIM_SEL_STATUS_OFFSET``).
STATUS_OFFSET = 256
#: Epochs run 1 .. EPOCH_LIMIT - 1 (22 bits in the status words); on wrap the workspace is zeroed.
EPOCH_LIMIT = 1 << 22
#: Most tiles one launch takes.
MAX_TILES = (1 << 31) - 1
#: Largest value range (bins) of the sort-free unique path, and the range always allowed for
#: large inputs (bins of 32-bit counts: 32 MiB at most, resident in the H200's 50 MiB L2).
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

_B = numpy.dtype(numpy.bool_)
_I64 = numpy.dtype(numpy.int64)
_U32 = numpy.dtype(numpy.uint32)
_U64 = numpy.dtype(numpy.uint64)

_DTYPES = tuple(numpy.dtype(d) for d in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128"))
_BITS = {1: "ra_u8", 2: "ra_u16", 4: "ra_u32", 8: "ra_u64", 16: "ra_c128"}
_VALUE_CTYPES = {numpy.dtype("float16"): "ra_half", numpy.dtype("float32"): "float",
                 numpy.dtype("float64"): "double", numpy.dtype("complex64"): "ra_c64",
                 numpy.dtype("complex128"): "ra_c128"}
_INT_CTYPES = {_B: "ra_u8", numpy.dtype("int8"): "ra_i8", numpy.dtype("int16"): "ra_i16",
               numpy.dtype("int32"): "ra_i32", numpy.dtype("int64"): "ra_i64", numpy.dtype("uint8"): "ra_u8",
               numpy.dtype("uint16"): "ra_u16", numpy.dtype("uint32"): "ra_u32", numpy.dtype("uint64"): "ra_u64"}


# --------------------------------------------------------------------------------------------
# kernel names and path choice (pure Python)
# --------------------------------------------------------------------------------------------

def flag_ctype(dtype):
    """Kernel type the nonzero test reads ``dtype`` as (integers and bool by their bits)."""
    dtype = numpy.dtype(dtype)
    return _VALUE_CTYPES.get(dtype) or _BITS[dtype.itemsize]


def bits_ctype(dtype):
    """Kernel type that copies one ``dtype`` element (by size)."""
    return _BITS[numpy.dtype(dtype).itemsize]


def select_name(flag_dtype, value_dtype):
    """``'ra_prim_select<F, V>'``: flags read as ``flag_dtype``, values copied as ``value_dtype``."""
    return f"ra_prim_select<{flag_ctype(flag_dtype)}, {bits_ctype(value_dtype)}>"


def unique_name(kind, dtype):
    """``kind`` is ``'sorted'`` (every dtype), ``'minmax'``/``'count'``/``'rank'`` (integers) or
    ``'mark'`` (32-bit integers), ``'offsets'`` (64-bit) or ``'bitemit'`` (32/64-bit)."""
    dtype = numpy.dtype(dtype)
    if kind == "sorted":
        ct = _VALUE_CTYPES.get(dtype) or _BITS[dtype.itemsize]
    else:
        ct = _INT_CTYPES[dtype]
    return f"ra_prim_unique_{kind}<{ct}>"


def instantiations():
    """Every name expression this module launches."""
    names = set()
    for d in _DTYPES:
        names.add(select_name(d, d))             # nonzero / select_if_nonzero of d
        names.add(select_name(_B, d))            # select_flagged with bool flags
        names.add(unique_name("sorted", d))
        if d in _INT_CTYPES:
            for kind in ("minmax", "count", "rank"):
                names.add(unique_name(kind, d))
    for d in _BITMAP_DTYPES:
        names.add(unique_name("bitemit", d))
        names.add(unique_name("mark" if d.itemsize == 4 else "offsets", d))
    return sorted(names)


_compile.register(SOURCE, instantiations())


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


def key_bounds(dtype, lo_key, hi_key):
    """Decode the order-preserving 64-bit keys of the min/max kernel into Python ints."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "i":
        return lo_key - (1 << 63), hi_key - (1 << 63)
    return lo_key, hi_key


def keep_view(count, capacity):
    """Whether a result of ``count`` elements stays a view of its ``capacity`` buffer (at least a
    quarter used: a copy would cost more than the memory it frees is worth)."""
    return 4 * count >= capacity


# --------------------------------------------------------------------------------------------
# device side
# --------------------------------------------------------------------------------------------

_cupy = launch.cupy
_table = launch.KernelTable(SOURCE, BLOCK, 8)


def _kernel(name, device_id):
    return _table.get(name, device_id)


def workspace_bytes(capacity):
    """Bytes of a workspace for ``capacity`` tiles (ticket counter, 64-bit status words)."""
    return STATUS_OFFSET + capacity * 8


_workspaces = EpochWorkspaces(workspace_bytes, EPOCH_LIMIT)


def _workspace(device_id, tiles):
    """``(buffer, epoch)`` for a launch of ``tiles`` tiles on the current stream."""
    buf, _, epoch = _workspaces.get(device_id, tiles)
    return buf, epoch


def _flat(x):
    """C-order 1-D contiguous view or copy of ``x``."""
    cupy = _cupy()
    if not x.flags.c_contiguous:
        x = cupy.ascontiguousarray(x)
    return x.reshape(-1)


def _null():
    return numpy.uint64(0)


def _host_count(count):
    return int(count.get()[0]) if hasattr(count, "get") else int(_cupy().asnumpy(count)[0])


def _launch_select(flags, src, out_val, out_idx, shape=None, ndim=0, pos_stride=1, dim_stride=0):
    """One ``ra_prim_select`` launch over the flat, contiguous ``flags``; returns the count."""
    cupy = _cupy()
    n = flags.size
    if n == 0:
        return 0
    tiles = -(-n // TILE)
    if tiles > MAX_TILES:
        raise ValueError(f"prim select: {n} elements is more than one launch takes")
    device_id = flags.data.device_id
    vdtype = src.dtype if src is not None else flags.dtype
    kernel, _ = _kernel(select_name(flags.dtype, vdtype), device_id)
    buf, epoch = _workspace(device_id, tiles)
    count = cupy.empty(1, dtype=_I64)  # the last tile's block writes it
    kernel((tiles,), (BLOCK,), (flags, src if src is not None else flags, numpy.int64(n),
                                out_val if out_val is not None else _null(),
                                out_idx if out_idx is not None else _null(),
                                shape if shape is not None else _null(), numpy.int32(ndim),
                                numpy.int64(pos_stride), numpy.int64(dim_stride), count, buf,
                                numpy.uint32(epoch)))
    return _host_count(count)


def _trim(a, count):
    """First ``count`` elements (along axis 0) of the worst-case buffer ``a``."""
    res = a[:count]
    return res if keep_view(count, a.shape[0]) else res.copy()


def _check(x, name="x"):
    return device_array(x, name, "prim select", _DTYPES)


def _as_bool_flags(flags):
    """Flat contiguous bool flags (``flags != 0`` for other dtypes)."""
    f = _flat(flags)
    return f if f.dtype == _B else f != 0


def select_flagged(x, flags):
    """Elements of ``x`` whose flag is nonzero, in C order.

    Parameters
    ----------
    x : cupy.ndarray
        Values, any shape and dtype.
    flags : cupy.ndarray
        Same number of elements as ``x``; any dtype (nonzero selects).

    Returns
    -------
    cupy.ndarray
        1-D, ``x.dtype``.

    Examples
    --------
    >>> ra.prim.select_flagged(cupy.arange(5), cupy.array([1, 0, 1, 0, 1], bool))   # doctest: +SKIP
    array([0, 2, 4])
    """
    cupy = _cupy()
    _check(x)
    _check(flags, "flags")
    if flags.size != x.size:
        raise ValueError(f"prim select: flags has {flags.size} elements, x has {x.size}")
    xf = _flat(x)
    f = _as_bool_flags(flags)
    out = cupy.empty(xf.size, dtype=x.dtype)
    count = _launch_select(f, xf, out, None)
    return _trim(out, count)


def select_if_nonzero(x):
    """The nonzero elements of ``x`` in C order (1-D).

    Examples
    --------
    >>> ra.prim.select_if_nonzero(cupy.array([0., 2., -0., 3.]))   # doctest: +SKIP
    array([2., 3.])
    """
    cupy = _cupy()
    _check(x)
    xf = _flat(x)
    out = cupy.empty(xf.size, dtype=x.dtype)
    count = _launch_select(xf, xf, out, None)
    return _trim(out, count)


def nonzero_indices(x):
    """Flat (C-order) int64 indices of the nonzero elements of ``x`` (``numpy.flatnonzero``).

    Examples
    --------
    >>> ra.prim.nonzero_indices(cupy.array([0, 3, 0, 1]))   # doctest: +SKIP
    array([1, 3])
    """
    cupy = _cupy()
    _check(x)
    xf = _flat(x)
    idx = cupy.empty(xf.size, dtype=_I64)
    count = _launch_select(xf, xf, None, idx)
    return _trim(idx, count)


def nonzero_coords(x, layout="rows"):
    """C-order coordinates of the nonzero elements of ``x`` (``x.ndim >= 1``).

    Parameters
    ----------
    x : cupy.ndarray
    layout : {'rows', 'columns'}
        ``'rows'``: a tuple of ``x.ndim`` int64 arrays (``numpy.nonzero``); ``'columns'``: one
        ``(N, ndim)`` int64 array (``numpy.argwhere``).
    """
    cupy = _cupy()
    _check(x)
    ndim = x.ndim
    xf = _flat(x)
    n = xf.size
    shape = cupy.asarray(numpy.array(x.shape, dtype=numpy.int64)) if ndim > 1 else None
    if layout == "rows":
        buf = cupy.empty((ndim, n), dtype=_I64)
        count = _launch_select(xf, xf, None, buf, shape, ndim, 1, n)
        rows = [buf[d, :count] for d in range(ndim)]
        if not keep_view(count, n):
            rows = [r.copy() for r in rows]
        return tuple(rows)
    if layout == "columns":
        buf = cupy.empty((n, ndim), dtype=_I64)
        count = _launch_select(xf, xf, None, buf, shape, ndim, ndim, 1)
        return _trim(buf, count)
    raise ValueError(f"prim select: layout must be 'rows' or 'columns', got {layout!r}")


def mask_select(x, mask):
    """``x[mask]`` for a bool ``mask`` whose shape equals the first ``mask.ndim`` dims of ``x``.

    Returns
    -------
    cupy.ndarray
        Shape ``(N,) + x.shape[mask.ndim:]``.

    Examples
    --------
    >>> x = cupy.arange(6).reshape(3, 2)
    >>> ra.prim.mask_select(x, cupy.array([True, False, True]))   # doctest: +SKIP
    array([[0, 1],
           [4, 5]])
    """
    cupy = _cupy()
    _check(x)
    _check(mask, "mask")
    if mask.dtype != _B:
        raise TypeError(f"prim select: mask must be bool, not {mask.dtype.name}")
    k = mask.ndim
    if x.shape[:k] != mask.shape:
        raise IndexError(f"boolean index of shape {mask.shape} does not match the indexed array's "
                         f"leading dimensions {x.shape[:k]}")
    if k == x.ndim:
        return select_flagged(x, mask)
    rows = int(numpy.prod(mask.shape, dtype=numpy.int64))
    rest = x.shape[k:]
    idx = nonzero_indices(mask)
    return cupy.take(x.reshape((rows,) + rest), idx, axis=0)


def _launch_unique_sorted(keys, equal_nan, out_val, out_start, perm, inverse):
    cupy = _cupy()
    n = keys.size
    tiles = -(-n // TILE)
    device_id = keys.data.device_id
    kernel, _ = _kernel(unique_name("sorted", keys.dtype), device_id)
    buf, epoch = _workspace(device_id, tiles)
    count = cupy.empty(1, dtype=_I64)  # the last tile's block writes it
    kernel((tiles,), (BLOCK,), (keys, numpy.int64(n), numpy.int32(bool(equal_nan)),
                                out_val if out_val is not None else _null(),
                                out_start if out_start is not None else _null(),
                                perm if perm is not None else _null(),
                                inverse if inverse is not None else _null(), count, buf, numpy.uint32(epoch)))
    return _host_count(count)


def _counts_from_starts(starts, n):
    cupy = _cupy()
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
    cupy = _cupy()
    _check(x)
    xf = _flat(x)
    n = xf.size
    vals = cupy.empty(n, dtype=x.dtype)
    starts = cupy.empty(n, dtype=_I64) if (return_starts or return_counts) else None
    k = _launch_unique_sorted(xf, equal_nan, vals, starts, None, None) if n else 0
    res = [_trim(vals, k)]
    if return_starts:
        res.append(starts[:k])
    if return_counts:
        res.append(_counts_from_starts(starts[:k], n))
    return res[0] if len(res) == 1 else tuple(res)


def run_length_encode(x):
    """``(values, counts)`` of the runs of equal adjacent elements of flat ``x`` (NaNs equal).

    Examples
    --------
    >>> ra.prim.run_length_encode(cupy.array([3, 3, 1, 3]))   # doctest: +SKIP
    (array([3, 1, 3]), array([2, 1, 1]))
    """
    return unique_sorted(x, equal_nan=True, return_counts=True)


def _sort_funcs():
    """``(radix_sort_keys, radix_sort_pairs)`` of ``prim._sort`` (imported on first use)."""
    from rocarray.prim import _sort

    return _sort.radix_sort_keys, _sort.radix_sort_pairs


def _for_each_grid(n, wave):
    """Blocks of a grid-stride ``ra_prim_sel_for_each`` kernel over ``n`` elements (16 a thread,
    at most one resident wave)."""
    return (max(1, min(wave, -(-n // (BLOCK * 16)))),)


def _minmax_keys(xf):
    cupy = _cupy()
    mm = cupy.asarray(numpy.array([numpy.iinfo(numpy.uint64).max, 0], dtype=numpy.uint64))
    device_id = xf.data.device_id
    kernel, wave = _kernel(unique_name("minmax", xf.dtype), device_id)
    kernel(_for_each_grid(xf.size, wave), (BLOCK,), (xf, numpy.int64(xf.size), mm))
    h = cupy.asnumpy(mm)
    return int(h[0]), int(h[1])


def _decode_keys(keys_u64, dtype):
    """Values of ``dtype`` from order-preserving uint64 keys."""
    dtype = numpy.dtype(dtype)
    if dtype.kind == "i":
        return (keys_u64 ^ numpy.uint64(1 << 63)).view(numpy.int64).astype(dtype)
    if dtype.kind == "b":
        return keys_u64 != 0
    return keys_u64.astype(dtype)


def _unique_counting(xf, lo_key, nbins, return_index, return_inverse, return_counts):
    cupy = _cupy()
    n = xf.size
    device_id = xf.data.device_id
    counts = cupy.zeros(nbins, dtype=_U32)
    first = cupy.full(nbins, n, dtype=_U64) if return_index else None
    kernel, wave = _kernel(unique_name("count", xf.dtype), device_id)
    grid = _for_each_grid(n, wave)
    kernel(grid, (BLOCK,), (xf, numpy.int64(n), numpy.uint64(lo_key), numpy.int64(nbins), counts,
                                 first if first is not None else _null()))
    bins = cupy.empty(nbins, dtype=_I64)
    cvals = cupy.empty(nbins, dtype=_U32) if return_counts else None
    k = _launch_select(counts, counts, cvals, bins)
    bins = bins[:k]
    values = _decode_keys(bins.astype(_U64) + numpy.uint64(lo_key), xf.dtype)
    index = first[bins].astype(_I64) if return_index else None
    cnt = cvals[:k].astype(_I64) if return_counts else None
    inverse = None
    if return_inverse:
        from rocarray.prim._scan import exclusive_scan

        rank = exclusive_scan(counts != 0, axis=0, dtype=_I64)
        inverse = cupy.empty(n, dtype=_I64)
        rk, _ = _kernel(unique_name("rank", xf.dtype), device_id)
        rk(grid, (BLOCK,), (xf, numpy.int64(n), numpy.uint64(lo_key), rank, inverse))
    return values, index, inverse, cnt


def _mark_bitmap(keys, base, buckets):
    """Bitmap (uint32 words, ``buckets * BITMAP_CHUNK_WORDS``) with bit ``key - base`` set for the key
    of every element of the flat integers ``keys`` (right for any order; fast when ordered by bucket)."""
    cupy = _cupy()
    n = keys.size
    bitmap = cupy.zeros(buckets * BITMAP_CHUNK_WORDS, dtype=_U32)
    mark, wave = _kernel(unique_name("mark", keys.dtype), keys.data.device_id)
    slice_ = -(-n // (wave * BITMAP_SLICES_PER_WAVE))
    slice_ = max(TILE, -(-slice_ // TILE) * TILE)
    mark((-(-n // slice_),), (BLOCK,), (keys, numpy.int64(n), numpy.int64(slice_), numpy.uint64(base), bitmap))
    return bitmap


def _emit_bitmap(bitmap, base, dtype):
    """The values (``dtype``) of the set bits of ``bitmap`` (bit b: key ``base + b``), in order."""
    cupy = _cupy()
    from rocarray.prim._scan import inclusive_scan

    device_id = bitmap.data.device_id
    chunks = bitmap.size // BITMAP_CHUNK_WORDS
    counts = cupy.empty(chunks, dtype=_I64)
    bitcount, _ = _kernel("ra_prim_unique_bitcount", device_id)
    bitcount((chunks,), (BLOCK,), (bitmap, counts))
    ends = inclusive_scan(counts, axis=0)
    out = cupy.empty(int(ends[-1].get()), dtype=dtype)
    emit, wave = _kernel(unique_name("bitemit", dtype), device_id)
    emit((min(chunks, wave),), (BLOCK,), (bitmap, numpy.int64(chunks), counts, ends, numpy.uint64(base), out))
    return out


def _key_offsets(xf, base):
    """``key(xf) - base`` as uint32 (64-bit integers whose keys span less than 2^32 from ``base``)."""
    cupy = _cupy()
    n = xf.size
    out = cupy.empty(n, dtype=_U32)
    kernel, wave = _kernel(unique_name("offsets", xf.dtype), xf.data.device_id)
    kernel(_for_each_grid(n, wave), (BLOCK,), (xf, numpy.int64(n), numpy.uint64(base), out))
    return out


def _unique_bitmap(xf, lo_key, hi_key):
    """Sorted unique values of the flat integers ``xf`` through a bitmap of their key range: a
    radix sort on the bucket bits only (two passes for 32-bit keys) orders the elements by bucket,
    ``ra_prim_unique_mark`` sets their bits (shared-memory windows of buckets), then the set bits
    are counted per chunk, scanned and written out as values in order. 64-bit integers go
    through their 32-bit offsets from the first bucket (4-byte sort passes)."""
    dtype = xf.dtype
    sort_keys, _ = _sort_funcs()
    base = (lo_key >> BITMAP_BUCKET_BITS) << BITMAP_BUCKET_BITS
    mark_base = base
    if xf.dtype.itemsize == 8:
        xf, mark_base = _key_offsets(xf, base), 0
    keys = sort_keys(xf, begin_bit=BITMAP_BUCKET_BITS)
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
    cupy = _cupy()
    _check(x)
    xf = _flat(x)
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
    else:
        sort_keys, sort_pairs = _sort_funcs()
        if need_perm:
            keys, perm = sort_pairs(xf, cupy.arange(n, dtype=_I64))
        else:
            keys = sort_keys(xf)
    vals = cupy.empty(n, dtype=x.dtype)
    starts = cupy.empty(n, dtype=_I64) if (return_index or return_counts) else None
    inverse = cupy.empty(n, dtype=_I64) if return_inverse else None
    k = _launch_unique_sorted(keys, equal_nan, vals, starts, perm if return_inverse else None, inverse)
    values = _trim(vals, k)
    index = perm[starts[:k]] if return_index else None
    cnt = _counts_from_starts(starts[:k], n) if return_counts else None
    return values, index, inverse, cnt
