"""SpGEMM: ``C = A @ B`` for CSR matrices (rocSPARSE's ``csrgemm``): rows merged or hashed, in two
phases.

Design
------
Rows of C with few products are merged: one thread walks the rows of B that A's row selects with
one cursor each (in registers) and emits the columns in order, so the row is counted and written
sorted without tables, atomics or ranking. The other rows use Nagasaka, Nukada and Matsuoka's hash
SpGEMM ("High-performance and memory-saving sparse general matrix-matrix multiplication for NVIDIA
Pascal GPU", ICPP 2017). Both follow the two-phase shape of rocSPARSE's and cuSPARSE's APIs (sizes
first, then values):

1. **Rows.** For every row of C (``ra_rocsparse_spgemm_rows``) the number of products that land in
   it, the sum over A's row of the lengths of the matching rows of B: an upper bound on the row's
   nonzeros, and SciPy's ``maxnnz`` for the index dtype. A row of at most ``MERGE_WAYS[-1]``
   entries of A and :data:`~rocarray.rocsparse._spgemm_kernels.MERGE_PRODUCTS` products is a merge
   row (table need 0); the others need a table of ``min(products, n)`` slots.
2. **Count.** One summary read (bin sizes, the product total, the widest merge row) plans the
   launches. The merge rows go to one merge kernel, with the fewest cursors
   (:data:`~rocarray.rocsparse._spgemm_kernels.MERGE_WAYS`) that fit the widest of them; it
   counts each row's distinct columns and reports a row of B that is not sorted. The other rows
   are binned by need (:func:`plan_bins`): a row goes to the smallest hash table that holds it,
   from 32 slots per 8 lanes up to the largest table of one block that fits the device's shared
   memory; longer rows use tables in global scratch
   (:data:`~rocarray.rocsparse._spgemm_kernels.GLOBAL`), binned by powers of two like the shared
   ones (a row never clears a table sized by a longer row). A kernel per non-empty bin inserts
   every product's column into the row's table and counts the new keys. When the merge found an
   unsorted row of B, the merge rows are counted again in hash tables and take the hash path from
   then on (the merge needs B's rows sorted; duplicates are fine).
3. **Scan.** ``indptr`` is the exclusive scan of the counts (:func:`rocarray.prim.exclusive_scan`).
4. **Fill.** The merge kernel writes its rows in column order. The hash rows are binned again by
   ``min(products, n, 2 * nnz)`` (a table at most half full where products overcount), and the
   same hashing adds the products into the slots; each row is written sorted (a slot's position
   is the number of smaller keys in its table). Rows of the global bin are written unsorted and
   then sorted by a segmented sort of the whole result.
5. **Zeros.** Like SciPy's ``csr_matmat``, values that come out exactly zero are not stored: the
   fills count them, and only when there are some does
   :func:`rocarray.rocsparse.csr_eliminate_zeros` compact the result.

Inputs may be non-canonical (duplicates hash to one slot, or are summed by the merge; order does
not matter to the tables). The output is canonical. Host synchronizations: the summary, ``nnz``
(read with the unsorted flag), one more summary when hash rows exist (the fill's bins), and the
zero count.
"""

import numpy

from rocarray.rocsparse import _args, _spgemm_kernels as _k

INT32_MAX = numpy.iinfo(numpy.int32).max


def index_dtype(dtypes, maxval):
    """SciPy's index dtype of a sparse array result (``get_index_dtype`` without content checks):
    int64 when any input index dtype is int64 or ``maxval`` (the result's largest possible nnz or
    dimension) passes the int32 range, else int32."""
    wide = any(numpy.dtype(d) == numpy.int64 for d in dtypes) or int(maxval) > INT32_MAX
    return numpy.dtype(numpy.int64 if wide else numpy.int32)


def plan_bins(counts, bins, order, largest):
    """The launches over binned rows.

    Parameters
    ----------
    counts : sequence of int
        Rows per bin as :func:`~rocarray.rocsparse._spgemm_kernels.classify` gives them: bin 0
        (rows needing nothing, skipped), one bin per entry of ``bins``, then the rows above them all.
    bins : sequence of (Variant, int)
        The bins (variant, table slots) in increasing table size: the shared-memory ones, then the
        global ones (:func:`~rocarray.rocsparse._spgemm_kernels.global_bins`).
    order : array or None
        The rows grouped by bin (None: all rows in one bin, ``0 .. m-1``).
    largest : int
        Largest need of any row (sizes the tables of the rows above every bin).

    Returns
    -------
    list of (Variant, table, rows, nrows)
        ``rows`` is a slice of ``order`` (None when ``order`` is).
    """
    counts = [int(c) for c in counts]
    tables = list(bins) + [(_k.GLOBAL, _k.global_table(largest))]
    plan, start = [], counts[0]
    for (variant, table), nrows in zip(tables, counts[1:]):
        if nrows:
            rows = None if order is None else order[start:start + nrows]
            plan.append((variant, table, rows, nrows))
            start += nrows
    return plan


def _binned(need, slot_bytes, index, like, n, total_of=None, widest_of=None):
    """Bins and launches for per-row table needs ``need`` (at most ``n``); also the sum of
    ``total_of`` and the maximum of ``widest_of``."""
    bins = _k.shared_bins(_k.shared_limit(like), slot_bytes)
    bins += _k.global_bins(bins[-1][1] if bins else 0, n)
    order, counts, total, largest, widest = _k.classify(need, [t for _, t in bins], index, total_of, widest_of)
    return plan_bins(counts, bins, order, largest), total, widest


def csrgemm(m, k, n, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data):
    """Sparse matrix product ``C = A @ B`` of CSR matrices (rocSPARSE's ``csrgemm``).

    Parameters
    ----------
    m, k, n : int
        A is m x k, B is k x n.
    a_indptr, a_indices, a_data : cupy.ndarray
        CSR parts of A, contiguous 1-D: ``m + 1`` index pointers and ``nnz(A)`` indices (int32
        or int64, one dtype), ``nnz(A)`` values float32, float64, complex64 or complex128.
        Duplicates and unsorted rows are allowed.
    b_indptr, b_indices, b_data : cupy.ndarray
        CSR parts of B (``k + 1`` index pointers), likewise (B's index dtype may differ from A's).

    Returns
    -------
    indptr, indices, data : cupy.ndarray
        Canonical CSR of C (sorted rows, no duplicates, no stored zeros, like SciPy's product).
        Values in the promoted dtype of A's and B's; indices in SciPy's index dtype for the
        product (:func:`index_dtype` of the inputs' index dtypes and the larger of the number of
        products, m and n).

    Raises
    ------
    TypeError
        A non-device array, index arrays not int32/int64 or of two dtypes within a matrix, an
        unsupported value dtype, a non-integer size.
    ValueError
        A negative size, parts of the wrong length (``a_indptr`` not ``m + 1``, ``b_indptr`` not
        ``k + 1``, indices and values of different sizes) or not contiguous 1-D, arrays on two
        devices.

    Notes
    -----
    Sizes and dtypes are checked; the index values are not (see
    :func:`~rocarray.rocsparse.check_matrix_csr`). A merge row adds the products
    of one entry of C in the order of A's entries, like SciPy; a hashed row adds them with
    shared-memory atomics, so their order (and the last bits of a sum) may differ between runs.
    See the module docstring for the algorithm.
    """
    fn = "csrgemm"
    m, k, n = _args.size(m, "m", fn), _args.size(k, "k", fn), _args.size(n, "n", fn)
    _args.csr(fn, m, a_indptr, a_indices, a_data, prefix="a_")
    _args.csr(fn, k, b_indptr, b_indices, b_data, prefix="b_", rows_name="k")
    _args.same_device(fn, a_indptr, ("b_indptr", b_indptr))
    dtype = numpy.result_type(a_data.dtype, b_data.dtype)
    a_data, b_data = _k.astype(a_data, dtype), _k.astype(b_data, dtype)
    inputs = index_dtype((a_indptr.dtype, b_indptr.dtype), 0)
    a_indptr, a_indices = _k.astype(a_indptr, inputs), _k.astype(a_indices, inputs)
    b_indptr, b_indices = _k.astype(b_indptr, inputs), _k.astype(b_indices, inputs)

    products, need, ways = _k.row_work(m, n, a_indptr, a_indices, b_indptr)
    plan, total, widest = _binned(need, inputs.itemsize, inputs, a_indptr, n, products, ways)
    index = index_dtype((inputs,), max(total, m, n))
    if index != inputs:
        a_indptr, a_indices = _k.astype(a_indptr, index), _k.astype(a_indices, index)
        b_indptr, b_indices = _k.astype(b_indptr, index), _k.astype(b_indices, index)
        plan, _, _ = _binned(need, index.itemsize, index, a_indptr, n)
    if total == 0:
        return _k.zeros(m + 1, index, a_indptr), _k.empty(0, index, a_indptr), _k.empty(0, dtype, a_indptr)

    merge = _k.merge_ways(widest)
    row_nnz = _k.zeros(m + 1, index, a_indptr)
    if merge is not None:
        unsorted = _k.zeros(1, numpy.uint64, a_indptr)
        _k.merge_count(merge, m, need, a_indptr, a_indices, b_indptr, b_indices, row_nnz, unsorted)
    for variant, table, rows, nrows in plan:
        _k.count(variant, table, rows, nrows, a_indptr, a_indices, b_indptr, b_indices, row_nnz)
    if merge is None:
        indptr, nnz = _k.indptr_from_counts(row_nnz, index)
    else:
        indptr, nnz, flagged = _k.indptr_from_counts_and_flag(row_nnz, index, unsorted)
        if flagged:
            # a row of B the merge read is unsorted: the merge rows go to the hash tables too
            plan, _, _ = _binned(_k.merged_need(products, need, n), index.itemsize, index, a_indptr, n)
            for variant, table, rows, nrows in plan:
                _k.count(variant, table, rows, nrows, a_indptr, a_indices, b_indptr, b_indices, row_nnz)
            merge, need = None, _k.table_need(products, n)
            indptr, nnz = _k.indptr_from_counts(row_nnz, index)

    indices, data = _k.empty(nnz, index, a_indptr), _k.empty(nnz, dtype, a_indptr)
    zeros_found = _k.zeros(1, numpy.uint64, a_indptr)
    if merge is not None:
        _k.merge_fill(merge, m, need, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, indptr, indices, data,
                      zeros_found)
    if plan:
        # merge rows keep need 0 (bin 0, skipped)
        plan, _, _ = _binned(_k.table_need(need, n, indptr), index.itemsize + dtype.itemsize, index, a_indptr, n)
    for variant, table, rows, nrows in plan:
        _k.fill(variant, table, rows, nrows, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, indptr,
                indices, data, zeros_found)
    if any(variant.in_global for variant, _, _, _ in plan):
        indices, data = _k.sort_rows(indptr, indices, data)
    if int(_k.to_host(zeros_found)[0]):
        indptr, indices, data = _k.eliminate_zeros(m, n, indptr, indices, data)
    return indptr, indices, data
