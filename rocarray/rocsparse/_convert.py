"""Format conversions and canonical form of CSR/COO matrices (rocSPARSE's ``csr2coo``, ``coo2csr``,
``coosort``, ``csrsort``, ``csr2csc``, ``csr2dense``, ``dense2csr`` and friends).

Public functions
----------------
``csr2coo(indptr, nnz)``, ``coo2csr(row, m)``, ``coosort(m, n, row, col, data)``,
``csrsort(m, n, indptr, indices, data)``, ``csr2csc(m, n, indptr, indices, data)``,
``csr_sum_duplicates(m, n, indptr, indices, data)``, ``csr_eliminate_zeros(m, n, indptr, indices, data)``,
``csr2dense(m, n, indptr, indices, data, out)``, ``dense2csr(a)``; the structure checks
``check_matrix_csr(m, n, indptr, indices)`` and ``check_matrix_coo(m, n, row, col)`` (rocSPARSE's
``check_matrix_csr``/``check_matrix_coo``) for callers that do validate.

Arguments are raw parts (contiguous 1-D ``cupy.ndarray``): indices and index pointers of one
matrix share one dtype, int32 or int64; values are any dtype SciPy stores (bool, integers,
float32/64, complex64/128), as many as the indices. ``indptr`` has ``m + 1`` elements, starts at
0 and ends at ``nnz = indices.size``. Sizes and dtypes are checked (``TypeError``/``ValueError``
naming the argument, without reading the device: :mod:`rocarray.rocsparse._args`); the index
values are not (see :func:`check_matrix_csr`, which the ``rocarray.sparse`` constructors call).

Design
------
Built on :mod:`rocarray.prim`: sorts are stable LSD radix sorts (a COO or CSR sort sorts one
combined ``row * n + col`` key, 32-bit when ``m * n`` fits); row pointers of a sorted row list are
``lower_bound(row, 0..m)``; compaction (duplicates, zeros, dense nonzeros) is ``nonzero_indices``
and ``select_if_nonzero`` followed by gathers. ``convert.hip`` has only what prim lacks: the row
of each element, the structure checks, the head flags of runs of duplicates, the sum of each run,
and the scatter into a dense array (one thread per row: duplicates add without atomics, in
element order like SciPy). The row of each element and the CSR structure check walk the merge
path of row ends and elements (Merrill & Garland, SC 2016): tiles of a fixed number of rows plus
elements, so long rows and runs of empty rows cost only their bytes; a tile's row pointers are
staged in shared memory and its rows stored coalesced. ``csr2csc`` is one stable radix sort by
column on the bits a column index can use (``ceil(log2 n)``); with int32 indices and 4-byte values
the sort carries each element's row and value packed in one 64-bit word (then split in two),
else int positions whose permutation gathers the rows and values.
"""

import numpy

from rocarray import prim
from rocarray._core import backend
from rocarray.rocsparse import _args
from rocarray.rocsparse import _convert_kernels as _kernels

_I32_MAX = numpy.iinfo(numpy.int32).max


def _csr(fn, m, n, indptr, indices, data=None):
    """The checked sizes ``(m, n)`` of a CSR matrix whose parts are checked too (any stored value
    dtype)."""
    m, n = _args.size(m, "m", fn), _args.size(n, "n", fn)
    _args.csr(fn, m, indptr, indices, data, dtypes=_args.STORED_DTYPES)
    return m, n


def _index_dtype(*sizes):
    """SciPy's result index dtype: int32 when every size fits, else int64."""
    return numpy.dtype(numpy.int32 if max((int(s) for s in sizes), default=0) <= _I32_MAX else numpy.int64)


def csr2coo(indptr, nnz):
    """Row index of every stored element of a CSR matrix.

    Parameters
    ----------
    indptr : cupy.ndarray
        ``m + 1`` index pointers (int32 or int64), ``indptr[0] == 0``, ``indptr[m] == nnz``.
    nnz : int
        Stored elements.

    Returns
    -------
    cupy.ndarray
        ``nnz`` row indices of ``indptr.dtype``, non-decreasing.

    Raises
    ------
    TypeError, ValueError
        Arguments of the wrong type, dtype, shape or size (see the module docstring); the index
        values are not checked (see :func:`check_matrix_csr`).
    """
    nnz = _args.size(nnz, "nnz", "csr2coo")
    _args.pointers("csr2coo", None, indptr)
    return _kernels.csr2coo(indptr, indptr.size - 1, nnz)


def coo2csr(row, m):
    """Index pointers of a row index list sorted ascending.

    Parameters
    ----------
    row : cupy.ndarray
        Row indices (int32 or int64) in ``[0, m)``, sorted ascending.
    m : int
        Rows.

    Returns
    -------
    cupy.ndarray
        ``m + 1`` index pointers of ``row.dtype``.

    Raises
    ------
    TypeError, ValueError
        Arguments of the wrong type, dtype, shape or size (see the module docstring); the index
        values are not checked (see :func:`check_matrix_csr`).
    """
    m = _args.size(m, "m", "coo2csr")
    _args.flat(row, "row", "coo2csr")
    _args.dtype_in(row, "row", "coo2csr", _args.INDEX_DTYPES)
    cupy = backend.cupy()
    if row.size == 0:
        return cupy.zeros(m + 1, dtype=row.dtype)
    rows = cupy.arange(m + 1, dtype=row.dtype)
    return prim.lower_bound(row, rows).astype(row.dtype, copy=False)


def _coo_order(m, n, row, col):
    """Permutation (int32 or int64) that sorts ``(row, col)`` pairs stably by row, then column."""
    cupy = backend.cupy()
    span = int(m) * int(n)
    if span < 1 << 32:
        key_dtype = numpy.dtype(numpy.uint32)
    elif span < 1 << 63:
        key_dtype = numpy.dtype(numpy.int64)
    else:
        # no combined key fits: two stable passes, the minor key first
        perm = prim.radix_argsort(col)
        return perm.take(prim.radix_argsort(row.take(perm)))
    key = row.astype(key_dtype) * key_dtype.type(n) + col.astype(key_dtype)
    perm = cupy.arange(row.size, dtype=_index_dtype(row.size))
    return prim.radix_sort_pairs(key, perm)[1]


def coosort(m, n, row, col, data):
    """Sort COO elements by row, then column (stable: duplicates keep their order).

    Parameters
    ----------
    m, n : int
        Shape.
    row, col : cupy.ndarray
        Indices (one dtype, int32 or int64), in range.
    data : cupy.ndarray
        Values, ``row``'s length.

    Returns
    -------
    row, col, data : cupy.ndarray
        New sorted arrays.

    Raises
    ------
    TypeError, ValueError
        Arguments of the wrong type, dtype, shape or size (see the module docstring); the index
        values are not checked (see :func:`check_matrix_csr`).
    """
    m, n = _args.size(m, "m", "coosort"), _args.size(n, "n", "coosort")
    _args.coo("coosort", row, col, data)
    if row.size == 0:
        return row.copy(), col.copy(), data.copy()
    perm = _coo_order(m, n, row, col)
    return row.take(perm), col.take(perm), data.take(perm)


def csrsort(m, n, indptr, indices, data):
    """Sort the column indices within each row of a CSR matrix (stable).

    Parameters
    ----------
    m, n : int
        Shape.
    indptr, indices : cupy.ndarray
        Index pointers and column indices (one dtype, int32 or int64).
    data : cupy.ndarray
        Values.

    Returns
    -------
    indices, data : cupy.ndarray
        New arrays; ``indptr`` is unchanged.

    Raises
    ------
    TypeError, ValueError
        Arguments of the wrong type, dtype, shape or size (see the module docstring); the index
        values are not checked (see :func:`check_matrix_csr`).
    """
    m, n = _csr("csrsort", m, n, indptr, indices, data)
    if indices.size == 0:
        return indices.copy(), data.copy()
    # one sort of the combined (row, column) key: cheaper than a segmented sort's two
    perm = _coo_order(m, n, csr2coo(indptr, indices.size), indices)
    return indices.take(perm), data.take(perm)


def csr2csc(m, n, indptr, indices, data):
    """The CSR form of the transpose (the CSC form of the matrix).

    Parameters
    ----------
    m, n : int
        Shape of the CSR matrix.
    indptr, indices, data : cupy.ndarray
        Its parts (sorted or not, duplicates allowed).

    Returns
    -------
    indptr_t, indices_t, data_t : cupy.ndarray
        ``n + 1`` column pointers, row indices (sorted within each column; duplicates kept, in
        their CSR order) and values.

    Raises
    ------
    TypeError, ValueError
        Arguments of the wrong type, dtype, shape or size (see the module docstring); the index
        values are not checked (see :func:`check_matrix_csr`).
    """
    m, n = _csr("csr2csc", m, n, indptr, indices, data)
    cupy = backend.cupy()
    nnz = indices.size
    if nnz == 0:
        return cupy.zeros(n + 1, dtype=indptr.dtype), indices.copy(), data.copy()
    # a stable sort by column keeps the rows of a column in CSR (ascending) order; the keys are
    # in [0, n), so only their low bits are sorted on
    end_bit = (n - 1).bit_length()
    if indptr.dtype == numpy.int32 and indices.dtype == numpy.int32 and data.dtype.itemsize == 4:
        # row and value travel through the sort as one 64-bit word: no positions, no gathers
        pairs = _kernels.csr2coo_pairs(indptr, indptr.size - 1, cupy.ascontiguousarray(data))
        cols, pairs = prim.radix_sort_pairs(indices, pairs, end_bit=end_bit)
        row_t, data_t = _kernels.unpack_pairs(pairs, indptr.dtype, data.dtype)
        return coo2csr(cols, n), row_t, data_t
    row = csr2coo(indptr, nnz)
    cols, perm = prim.radix_sort_pairs(indices, cupy.arange(nnz, dtype=_index_dtype(nnz)), end_bit=end_bit)
    return coo2csr(cols, n), row.take(perm), data.take(perm)


def csr_sum_duplicates(m, n, indptr, indices, data):
    """Sum the duplicate elements of a CSR matrix with sorted indices.

    Parameters
    ----------
    m, n : int
        Shape.
    indptr, indices, data : cupy.ndarray
        Parts with column indices sorted within each row.

    Returns
    -------
    indptr, indices, data : cupy.ndarray
        The canonical matrix (new arrays); each duplicate group is summed in element order.

    Raises
    ------
    TypeError, ValueError
        Arguments of the wrong type, dtype, shape or size (see the module docstring); the index
        values are not checked (see :func:`check_matrix_csr`).
    """
    m, n = _csr("csr_sum_duplicates", m, n, indptr, indices, data)
    nnz = indices.size
    if nnz == 0:
        return indptr.copy(), indices.copy(), data.copy()
    row = csr2coo(indptr, nnz)
    starts = prim.nonzero_indices(_kernels.flag_heads(row, indices))
    if starts.size == nnz:
        return indptr.copy(), indices.copy(), data.copy()
    return coo2csr(row.take(starts), m), indices.take(starts), _kernels.sum_runs(data, starts)


def csr_eliminate_zeros(m, n, indptr, indices, data):
    """Drop the stored zeros of a CSR matrix.

    Parameters
    ----------
    m, n : int
        Shape.
    indptr, indices, data : cupy.ndarray
        Parts (any order, duplicates allowed).

    Returns
    -------
    indptr, indices, data : cupy.ndarray
        New arrays without the elements equal to zero (the order of the others kept).

    Raises
    ------
    TypeError, ValueError
        Arguments of the wrong type, dtype, shape or size (see the module docstring); the index
        values are not checked (see :func:`check_matrix_csr`).
    """
    m, n = _csr("csr_eliminate_zeros", m, n, indptr, indices, data)
    nnz = indices.size
    keep = prim.nonzero_indices(data) if nnz else None
    if nnz == 0 or keep.size == nnz:
        return indptr.copy(), indices.copy(), data.copy()
    row = csr2coo(indptr, nnz)
    return coo2csr(row.take(keep), m), indices.take(keep), data.take(keep)


def csr2dense(m, n, indptr, indices, data, out):
    """Add a CSR matrix into a zeroed dense array.

    Parameters
    ----------
    m, n : int
        Shape.
    indptr, indices, data : cupy.ndarray
        Parts (any order; duplicates add).
    out : cupy.ndarray
        Zeroed ``(m, n)`` array of ``data.dtype``, C or F order (any element strides).

    Returns
    -------
    cupy.ndarray
        ``out``.

    Raises
    ------
    TypeError, ValueError
        Arguments of the wrong type, dtype, shape or size (see the module docstring); the index
        values are not checked (see :func:`check_matrix_csr`).
    """
    m, n = _csr("csr2dense", m, n, indptr, indices, data)
    _args.dense(out, "out", "csr2dense", (m, n), "(m, n)", data.dtype, ("data", data), write=True)
    _kernels.csr2dense(m, indptr, indices, data, out)
    return out


def dense2csr(a):
    """The canonical CSR parts of a dense matrix's nonzero elements.

    Parameters
    ----------
    a : cupy.ndarray
        2-D, any dtype prim compacts, any order.

    Returns
    -------
    indptr, indices, data : cupy.ndarray
        Index dtype by SciPy's rule (int32 when nnz and both dimensions fit, else int64); data of
        ``a.dtype`` in row-major order.

    Raises
    ------
    TypeError, ValueError
        Arguments of the wrong type, dtype, shape or size (see the module docstring); the index
        values are not checked (see :func:`check_matrix_csr`).
    """
    _args.dense(a, "a", "dense2csr", (None, None), "(m, n)")
    m, n = a.shape
    flat = prim.nonzero_indices(a)
    idx = _index_dtype(m, n, flat.size)
    data = prim.select_if_nonzero(a)
    if flat.size == 0:
        return backend.cupy().zeros(m + 1, dtype=idx), flat.astype(idx), data
    row = (flat // n).astype(idx)
    col = (flat % n).astype(idx)
    return coo2csr(row, m), col, data


def check_matrix_csr(m, n, indptr, indices):
    """Check the structure of an m x n CSR matrix.

    Parameters
    ----------
    m, n : int
        Shape.
    indptr : cupy.ndarray
        ``m + 1`` index pointers with ``indptr[0] == 0`` and ``indptr[m] == indices.size`` (the
        caller checks these two first).
    indices : cupy.ndarray
        Column indices of ``indptr.dtype``.

    Returns
    -------
    frozenset of str
        The problems found: ``'indptr'`` (decreasing index pointers), ``'negative'`` /
        ``'too_large'`` (a column index outside ``[0, n)``), ``'unsorted'`` (columns not
        ascending within a row), ``'duplicates'`` (a column repeated next to itself in a row;
        with ``'unsorted'`` absent this finds every duplicate). Empty for a canonical matrix.
        Reading it waits for the device.

    Raises
    ------
    TypeError, ValueError
        Arguments of the wrong type, dtype, shape or size (see the module docstring).
    """
    m, n = _csr("check_matrix_csr", m, n, indptr, indices)
    return _kernels.check_csr(m, n, indptr, indices)


def check_matrix_coo(m, n, row, col):
    """Check the structure of an m x n COO matrix.

    Parameters
    ----------
    m, n : int
        Shape.
    row, col : cupy.ndarray
        Row and column indices (one dtype).

    Returns
    -------
    frozenset of str
        The problems found: ``'row_negative'`` / ``'row_too_large'`` (a row index outside
        ``[0, m)``), ``'negative'`` / ``'too_large'`` (a column index outside ``[0, n)``),
        ``'unsorted'`` (pairs not in row-major order), ``'duplicates'`` (a pair equal to the one
        before it). Empty for a canonical matrix. Reading it waits for the device.

    Raises
    ------
    TypeError, ValueError
        Arguments of the wrong type, dtype, shape or size (see the module docstring).
    """
    m, n = _args.size(m, "m", "check_matrix_coo"), _args.size(n, "n", "check_matrix_coo")
    _args.coo("check_matrix_coo", row, col)
    return _kernels.check_coo(m, n, row, col)
