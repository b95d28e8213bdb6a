"""The device work of SpGEMM, sparse additions and SDDMM: the kernels of
``rocarray/_kernels/rocsparse/spgemm.hip``, ``geam.hip`` and ``sddmm.hip``, and the few array steps
around them (casts, allocation, scans, sorts, reading a count back).

This is the one small interface through which :mod:`rocarray.rocsparse._spgemm`,
:mod:`~rocarray.rocsparse._geam` and :mod:`~rocarray.rocsparse._sddmm` reach the device: the
drivers only slice what these functions return, so the CPU tests replace them with NumPy stand-ins
of the same contracts and check the drivers' binning, sizing and bookkeeping without a device.
Nothing here checks arguments; launches go to the current stream.
"""

from dataclasses import dataclass

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch
from rocarray._core.workspace import workspaces

SPGEMM = "rocsparse/spgemm.hip"
GEAM = "rocsparse/geam.hip"
SDDMM = "rocsparse/sddmm.hip"

#: Threads per block of every kernel here (``RA_ROCSPARSE_SPGEMM_BLOCK`` in spgemm.hip).
BLOCK = 256
#: Resident blocks per multiprocessor assumed for grid-stride launches.
BLOCKS_PER_MULTIPROCESSOR = 8
#: Most blocks of a grid-stride launch.
MAX_GRID = 1 << 20
#: Shared memory kept for the kernels' static arrays (per-group counters).
STATIC_SHARED = 1024
#: Bytes of global hash tables one launch of the global-table bin may take.
GLOBAL_TABLE_BYTES = 256 << 20

VALUE_DTYPES = tuple(numpy.dtype(d) for d in ("float32", "float64", "complex64", "complex128"))
INDEX_DTYPES = (numpy.dtype(numpy.int32), numpy.dtype(numpy.int64))


@dataclass(frozen=True)
class Variant:
    """One hash-kernel shape: ``group`` lanes per row, split into ``group // blanes`` lanes over
    A's entries times ``blanes`` over each row of B; ``in_global``: tables in global scratch."""

    group: int
    blanes: int
    in_global: bool = False

    @property
    def groups(self):
        """Rows (tables) per block."""
        return BLOCK // self.group


#: A row per 8 lanes, lanes over A's entries (short rows of B: the Laplacian's).
SMALL = Variant(8, 1)
#: A row per 32 lanes, 8 entries of A at a time, 4 lanes over each row of B.
MEDIUM = Variant(32, 4)
#: A row per block, 8 entries of A at a time, 32 lanes over each row of B.
LARGE = Variant(BLOCK, 32)
#: As LARGE with the tables in global memory.
GLOBAL = Variant(BLOCK, 32, True)
VARIANTS = (SMALL, MEDIUM, LARGE, GLOBAL)
#: Candidate (variant, table slots) bins in increasing size; those whose tables do not fit the
#: device's shared memory are dropped (:func:`shared_bins`).
SHARED_BINS = ((SMALL, 32), (MEDIUM, 128), (LARGE, 512), (LARGE, 1024), (LARGE, 2048), (LARGE, 4096),
               (LARGE, 8192))
#: Entries of A a merge kernel takes per row (its cursors, in registers): the smallest that fits the
#: widest merge row is launched.
MERGE_WAYS = (8, 32)
#: Most products of a merge row (one thread runs the row; longer rows spread over lanes in tables).
MERGE_PRODUCTS = 512
#: Dynamic shared memory of the narrowest merge fill, where a block's rows of C are staged and
#: written coalesced (the wider merge rows rarely fit, and their fill is register-bound already).
MERGE_STAGE_BYTES = 40 * 1024
#: SDDMM lanes per stored element: few for short products, a whole 32 otherwise.
SDDMM_LANES = (8, 32)


def _ct(dtype):
    return dtypes.ctype(numpy.dtype(dtype))


def _flag(v):
    return "true" if v else "false"


def count_name(variant, index_dtype):
    """e.g. ``'ra_rocsparse_spgemm_count<int, 8, 1, false>'``."""
    return (f"ra_rocsparse_spgemm_count<{_ct(index_dtype)}, {variant.group}, {variant.blanes}, "
            f"{_flag(variant.in_global)}>")


def fill_name(variant, dtype, index_dtype):
    """e.g. ``'ra_rocsparse_spgemm_fill<double, int, 8, 1, false>'``."""
    return (f"ra_rocsparse_spgemm_fill<{_ct(dtype)}, {_ct(index_dtype)}, {variant.group}, {variant.blanes}, "
            f"{_flag(variant.in_global)}>")


def rows_name(index_dtype):
    return f"ra_rocsparse_spgemm_rows<{_ct(index_dtype)}>"


def merge_count_name(ways, index_dtype):
    """e.g. ``'ra_rocsparse_spgemm_merge_count<int, 8>'``."""
    return f"ra_rocsparse_spgemm_merge_count<{_ct(index_dtype)}, {ways}>"


def merge_fill_name(ways, dtype, index_dtype):
    """e.g. ``'ra_rocsparse_spgemm_merge_fill<double, int, 8>'``."""
    return f"ra_rocsparse_spgemm_merge_fill<{_ct(dtype)}, {_ct(index_dtype)}, {ways}>"


def merge_ways(widest):
    """The merge kernel's cursors for merge rows of at most ``widest`` entries of A (None for no
    merge rows)."""
    return next((w for w in MERGE_WAYS if widest <= w), None) if widest > 0 else None


def geam_name(kind, dtype, index_dtype):
    """``kind``: ``'geam'`` or ``'csr_multiply'``."""
    return f"ra_rocsparse_{kind}<{_ct(dtype)}, {_ct(index_dtype)}>"


def sddmm_name(dtype, index_dtype, lanes):
    return f"ra_rocsparse_sddmm<{_ct(dtype)}, {_ct(index_dtype)}, {lanes}>"


def instantiations():
    """Every name expression launched, by source."""
    spgemm = [rows_name(i) for i in INDEX_DTYPES]
    spgemm += [merge_count_name(w, i) for w in MERGE_WAYS for i in INDEX_DTYPES]
    spgemm += [merge_fill_name(w, d, i) for w in MERGE_WAYS for d in VALUE_DTYPES for i in INDEX_DTYPES]
    spgemm += [count_name(v, i) for v in VARIANTS for i in INDEX_DTYPES]
    spgemm += [fill_name(v, d, i) for v in VARIANTS for d in VALUE_DTYPES for i in INDEX_DTYPES]
    geam = [geam_name(k, d, i) for k in ("geam", "csr_multiply") for d in VALUE_DTYPES for i in INDEX_DTYPES]
    sddmm = [sddmm_name(d, i, n) for d in VALUE_DTYPES for i in INDEX_DTYPES for n in SDDMM_LANES]
    return {SPGEMM: sorted(spgemm), GEAM: sorted(geam), SDDMM: sorted(sddmm)}


for _source, _names in instantiations().items():
    _compile.register(_source, _names)

_FAMILIES = {s: kernels.Family(s, BLOCK, BLOCKS_PER_MULTIPROCESSOR) for s in (SPGEMM, GEAM, SDDMM)}


# --------------------------------------------------------------------------------------------
# sizing (pure functions of sizes)
# --------------------------------------------------------------------------------------------

def table_bytes(variant, table, slot_bytes):
    """Dynamic shared memory of a launch with ``table``-slot tables of ``slot_bytes`` per slot (key
    and value bytes): one table per group, each padded by one slot, keys and values 16-aligned."""
    if variant.in_global:
        return 0
    slots = variant.groups * (table + 1)
    return -(-slots * slot_bytes // 16) * 16 + 16 + 16


def shared_bins(limit, slot_bytes):
    """The :data:`SHARED_BINS` whose launches fit ``limit`` bytes of shared memory with
    ``slot_bytes`` (key and value bytes) per slot."""
    return tuple((v, t) for v, t in SHARED_BINS if table_bytes(v, t, slot_bytes) + STATIC_SHARED <= limit)


def global_table(largest):
    """Slots of the global tables for rows needing up to ``largest`` slots: the next power of two."""
    return 1 << max(0, int(largest - 1).bit_length())


def global_bins(above, n):
    """The global-table bins for rows needing more than ``above`` slots (the largest shared
    table, 0 for none) and at most ``n`` (a row's columns): one per power of two, so that a row
    clears and probes a table of less than twice its need, not one sized by the longest row."""
    bins, table = [], 2 * int(above) if above else 1
    while table // 2 < n:
        bins.append((GLOBAL, table))
        table *= 2
    return tuple(bins)


def global_blocks(nrows, table, slot_bytes):
    """Blocks (and global tables) of a global-table launch over ``nrows`` rows."""
    return int(max(1, min(nrows, GLOBAL_TABLE_BYTES // (table * slot_bytes), MAX_GRID)))


def grid_for(variant, nrows):
    """Blocks of a shared-table launch over ``nrows`` rows."""
    return int(max(1, min(-(-nrows // variant.groups), MAX_GRID)))


def sddmm_lanes(k):
    """Lanes per stored element of SDDMM for inner dimension ``k``."""
    return SDDMM_LANES[0] if k <= SDDMM_LANES[0] else SDDMM_LANES[1]


# --------------------------------------------------------------------------------------------
# array steps
# --------------------------------------------------------------------------------------------

def _dev(x):
    return x.data.device_id


def _i64(v):
    return numpy.int64(v)


_NULL = numpy.uint64(0)


def shared_limit(like):
    """Dynamic shared memory one block may take on ``like``'s device."""
    return int(backend.shared_memory_limit(_dev(like)))


def astype(x, dtype):
    """``x`` as ``dtype`` (itself when it already is)."""
    return x if x.dtype == dtype else x.astype(dtype)


def empty(n, dtype, like):
    with launch.on_device(_dev(like)):
        return backend.cupy().empty(int(n), dtype)


def zeros(n, dtype, like):
    with launch.on_device(_dev(like)):
        return backend.cupy().zeros(int(n), dtype)


def to_host(x):
    """Device -> NumPy (synchronizes)."""
    return backend.cupy().asnumpy(x)


def row_work(m, n, a_indptr, a_indices, b_indptr):
    """The work of each row of A B: ``(products, need, ways)``.

    ``products`` (int64): the row's products (sum of B's row lengths over A's row). Rows of at most
    ``MERGE_WAYS[-1]`` entries of A and :data:`MERGE_PRODUCTS` products are merge rows: ``need`` 0
    and ``ways`` (int32) their entries of A (0 when they have no products); the others have
    ``need = min(products, n)`` (the hash table they need) and ``ways`` 0.
    """
    dev = _dev(a_indptr)
    products = empty(m, numpy.int64, a_indptr)
    need = empty(m, numpy.int64, a_indptr)
    ways = empty(m, numpy.int32, a_indptr)
    if m:
        kernel = _FAMILIES[SPGEMM][rows_name(a_indptr.dtype)]
        with launch.on_device(dev):
            kernel(dev, (int(min(-(-m // BLOCK), MAX_GRID)),),
                   (_i64(m), _i64(n), _i64(MERGE_WAYS[-1]), _i64(MERGE_PRODUCTS), a_indptr, a_indices, b_indptr,
                    products, need, ways))
    return products, need, ways


def _grid_rows(m):
    return int(max(1, min(-(-m // BLOCK), MAX_GRID)))


def merge_count(ways, m, need, a_indptr, a_indices, b_indptr, b_indices, row_nnz, unsorted):
    """``row_nnz[row]`` := distinct columns of each merge row of A B (``need[row] == 0`` and at most
    ``ways`` entries of A); ``unsorted[0]`` (uint64) := nonzero when a row of B they read is not
    sorted (their counts are then meaningless)."""
    dev = _dev(a_indptr)
    kernel = _FAMILIES[SPGEMM][merge_count_name(ways, a_indptr.dtype)]
    with launch.on_device(dev):
        kernel(dev, (_grid_rows(m),), (_i64(m), need, a_indptr, a_indices, b_indptr, b_indices, row_nnz, unsorted))


def merge_fill(ways, m, need, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, c_indptr, c_indices, c_data,
               zeros_found):
    """Write each merge row of A B (as :func:`merge_count`) at ``c_indptr[row]``, sorted by column,
    adding the number of exactly-zero values to ``zeros_found[0]`` (uint64). The narrowest merge
    stages a block's rows in :data:`MERGE_STAGE_BYTES` of shared memory to write them coalesced."""
    dev = _dev(a_indptr)
    kernel = _FAMILIES[SPGEMM][merge_fill_name(ways, c_data.dtype, a_indptr.dtype)]
    stage = MERGE_STAGE_BYTES if ways == MERGE_WAYS[0] else 0
    with launch.on_device(dev):
        kernel(dev, (_grid_rows(m),), (_i64(m), need, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data,
                                       c_indptr, c_indices, c_data, zeros_found, _i64(stage)),
               shared=stage + 16 if stage else 0)


def bin_edges(limits):
    """float64 edges of :func:`classify`'s bins for ``prim.histogram_range``: needs are integers,
    so bin b > 0 is ``[limits[b-2] + 1, limits[b-1] + 1)``; the last edge is past any need. The
    inner edges ``edges[1:-1]`` give a row's bin as ``searchsorted(inner, need, side='right')``."""
    return numpy.array([0, 1] + [t + 1 for t in limits] + [1 << 62], numpy.float64)


def classify(need, limits, index_dtype, total_of=None, widest_of=None):
    """Bin the rows by ``need`` (int64 per row): bin 0 holds rows needing nothing, bin b > 0 rows
    with ``limits[b-2] < need <= limits[b-1]``, the last bin rows above every limit.

    Returns
    -------
    order : cupy.ndarray or None
        The row numbers (``index_dtype``) grouped by bin in ascending bin order, ascending within a
        bin; None when all rows are in one bin (then the rows are ``0 .. m-1``).
    counts : numpy.ndarray
        Rows per bin (``len(limits) + 2`` entries).
    total, largest, widest : int
        Sum of ``total_of`` (an int64 array of the rows; default ``need``), maximum of ``need``
        and maximum of ``widest_of`` (an integer array of the rows; 0 when None), 0 for no rows.
    The counts come from :func:`rocarray.prim.histogram_range` (per-block counts merged, no
    single-address atomics); bin numbers and the sort by bin only when rows fall in several bins.
    """
    cupy = backend.cupy()
    from rocarray import prim

    m = need.size
    nbins = len(limits) + 2
    if m == 0:
        return None, numpy.zeros(nbins, numpy.int64), 0, 0, 0
    edges = bin_edges(limits)
    with launch.on_device(_dev(need)):
        parts = [prim.histogram_range(need, edges), (need if total_of is None else total_of).sum(keepdims=True),
                 need.max(keepdims=True)]
        if widest_of is not None:
            parts.append(widest_of.max(keepdims=True).astype(numpy.int64))
        host = cupy.asnumpy(cupy.concatenate(parts))
        counts = host[:nbins]
        total, largest = int(host[nbins]), int(host[nbins + 1])
        widest = int(host[nbins + 2]) if widest_of is not None else 0
        if counts.max() == m:
            return None, counts, total, largest, widest
        inner = cupy.asarray(edges[1:-1].astype(numpy.int64))
        bins = cupy.searchsorted(inner, need, side="right").astype(numpy.int32)
        rows = cupy.arange(m, dtype=index_dtype)
        _, order = prim.radix_sort_pairs(bins, rows, end_bit=max(1, int(nbins - 1).bit_length()))
    return order, counts, total, largest, widest


def count(variant, table, rows, nrows, a_indptr, a_indices, b_indptr, b_indices, row_nnz):
    """``row_nnz[row]`` := distinct columns of each listed row of A B (``rows`` None: rows
    ``0 .. nrows-1``), with ``table``-slot hash tables (at least each row's products)."""
    dev = _dev(a_indptr)
    kernel = _FAMILIES[SPGEMM][count_name(variant, a_indptr.dtype)]
    isz = a_indptr.dtype.itemsize
    with launch.on_device(dev):
        if variant.in_global:
            blocks = global_blocks(nrows, table, isz)
            scratch = workspaces.scratch("rocsparse.spgemm.keys", blocks * table * isz, dev)
            kernel(dev, (blocks,), (_i64(nrows), _NULL if rows is None else rows, a_indptr, a_indices, b_indptr,
                                    b_indices, row_nnz, _i64(table), scratch))
        else:
            kernel(dev, (grid_for(variant, nrows),),
                   (_i64(nrows), _NULL if rows is None else rows, a_indptr, a_indices, b_indptr, b_indices, row_nnz,
                    _i64(table), _NULL), shared=table_bytes(variant, table, isz))


def fill(variant, table, rows, nrows, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, c_indptr,
         c_indices, c_data, zeros_found):
    """Write each listed row of A B at ``c_indptr[row]`` (sorted by column unless the variant is
    global), adding the number of exactly-zero values to ``zeros_found[0]`` (uint64)."""
    dev = _dev(a_indptr)
    kernel = _FAMILIES[SPGEMM][fill_name(variant, c_data.dtype, a_indptr.dtype)]
    isz, vsz = a_indptr.dtype.itemsize, c_data.dtype.itemsize
    head = (_i64(nrows), _NULL if rows is None else rows, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data,
            c_indptr, c_indices, c_data, zeros_found, _i64(table))
    with launch.on_device(dev):
        if variant.in_global:
            blocks = global_blocks(nrows, table, isz + vsz)
            keys = workspaces.scratch("rocsparse.spgemm.keys", blocks * table * isz, dev)
            vals = workspaces.scratch("rocsparse.spgemm.values", blocks * table * vsz, dev)
            kernel(dev, (blocks,), head + (keys, vals))
        else:
            kernel(dev, (grid_for(variant, nrows),), head + (_NULL, _NULL),
                   shared=table_bytes(variant, table, isz + vsz))


def table_need(products_per_row, n, indptr=None):
    """Table slots each row needs: at least its distinct columns, so ``min(products, n)`` when
    counting, and ``min(products, n, 2 * nnz)`` when filling with the row sizes ``indptr`` known
    (then at most half full where products overcount the row)."""
    cupy = backend.cupy()
    with launch.on_device(_dev(products_per_row)):
        need = cupy.minimum(products_per_row, n)
        if indptr is not None:
            need = cupy.minimum(need, 2 * cupy.diff(indptr).astype(numpy.int64))
        return need


def merged_need(products_per_row, need, n):
    """The table need of the merge rows (``need`` 0) alone, ``min(products, n)``; 0 for the others."""
    cupy = backend.cupy()
    with launch.on_device(_dev(need)):
        return cupy.where(need == 0, cupy.minimum(products_per_row, n), 0)


def indptr_from_counts(counts, index_dtype):
    """``(indptr, nnz)``: the exclusive scan of ``counts`` (``m + 1`` entries, the last 0) in
    ``index_dtype``, and its last entry read back."""
    from rocarray import prim

    with launch.on_device(_dev(counts)):
        indptr = prim.exclusive_scan(counts, axis=0, dtype=index_dtype)
        return indptr, int(indptr[-1].get())


def indptr_from_counts_and_flag(counts, index_dtype, flag):
    """:func:`indptr_from_counts` and ``flag[0]`` (a uint64 device scalar, as an int) in one read."""
    from rocarray import prim

    cupy = backend.cupy()
    with launch.on_device(_dev(counts)):
        indptr = prim.exclusive_scan(counts, axis=0, dtype=index_dtype)
        host = cupy.asnumpy(cupy.concatenate([indptr[-1:].astype(numpy.uint64), flag]))
        return indptr, int(host[0]), int(host[1])


def sort_rows(indptr, indices, data):
    """Sort every row's entries by column (a segmented sort over the whole matrix)."""
    from rocarray import prim

    with launch.on_device(_dev(indptr)):
        return prim.segmented_radix_sort_pairs(indices, indptr, data)


def eliminate_zeros(m, n, indptr, indices, data):
    """:func:`rocarray.rocsparse.csr_eliminate_zeros` (the formats module's)."""
    from rocarray.rocsparse._convert import csr_eliminate_zeros

    return csr_eliminate_zeros(m, n, indptr, indices, data)


def canonicalize(m, n, indptr, indices, data):
    """Sorted, duplicate-free CSR through :func:`rocarray.rocsparse.csrsort` and
    :func:`rocarray.rocsparse.csr_sum_duplicates` (the formats module's)."""
    from rocarray.rocsparse._convert import csr_sum_duplicates, csrsort

    indices, data = csrsort(m, n, indptr, indices, data)
    return csr_sum_duplicates(m, n, indptr, indices, data)


def merge(kind, m, alpha, beta, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, counts, c_indptr,
          c_indices, c_data):
    """One pass of ``kind`` (``'geam'``: alpha A + beta B, ``'csr_multiply'``: A o B) over canonical
    rows: with ``c_indptr`` None, ``counts[row]`` := stored entries of each row of the result;
    otherwise the rows are written at ``c_indptr[row]``."""
    if m == 0:
        return
    dev = _dev(a_indptr)
    dtype = a_data.dtype
    kernel = _FAMILIES[GEAM][geam_name(kind, dtype, a_indptr.dtype)]
    tail = (b_indptr, b_indices, b_data, _NULL if counts is None else counts, _NULL if c_indptr is None else c_indptr,
            _NULL if c_indices is None else c_indices, _NULL if c_data is None else c_data)
    if kind == "geam":
        args = (_i64(m), dtype.type(alpha), a_indptr, a_indices, a_data, dtype.type(beta)) + tail
    else:
        args = (_i64(m), a_indptr, a_indices, a_data) + tail
    with launch.on_device(dev):
        kernel(dev, (int(min(-(-m // BLOCK), MAX_GRID)),), args)


def sddmm(alpha, A, B, beta, indptr, indices, data, use_data, out):
    """``out[e] := alpha (A B)[i, j] + beta data[e]`` (``data`` unread when not ``use_data``) over
    the stored elements ``e = (i, j)`` of the CSR pattern; A, B dense of out's dtype, any strides."""
    nnz = out.size
    if nnz == 0:
        return
    m, k = A.shape
    dev = _dev(out)
    dtype = out.dtype
    lanes = sddmm_lanes(k)
    kernel = _FAMILIES[SDDMM][sddmm_name(dtype, indptr.dtype, lanes)]
    isz = dtype.itemsize
    per_block = BLOCK // lanes
    args = (_i64(m), _i64(nnz), _i64(k), dtype.type(alpha), A, _i64(A.strides[0] // isz), _i64(A.strides[1] // isz),
            B, _i64(B.strides[0] // isz), _i64(B.strides[1] // isz), dtype.type(beta), indptr, indices,
            data if use_data else _NULL, numpy.int32(1 if use_data else 0), out)
    with launch.on_device(dev):
        kernel(dev, (int(min(-(-nnz // per_block), MAX_GRID)),), args)
