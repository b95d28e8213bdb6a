"""Sparse additions and elementwise products of CSR matrices (rocSPARSE's ``csrgeam``, and the
pattern intersection ``A o B``).

Both canonicalize their inputs first (:func:`rocarray.rocsparse.csrsort` and
:func:`rocarray.rocsparse.csr_sum_duplicates`, skipped when the caller says the inputs are
canonical), then run one kernel twice (``geam.hip``): one thread per row merges the two sorted
rows, counting the stored entries of each result row, and after the scan to ``indptr`` writes
them. As in SciPy's ``csr_binop_csr``, an entry whose result is exactly zero (a cancellation, a
stored zero) is not stored, and for the product a column stored in one operand only gives
``a * 0``, stored when that is NaN.
"""

import numpy

from rocarray.rocsparse import _args, _spgemm_kernels as _k
from rocarray.rocsparse._spgemm import index_dtype


def _combine(kind, m, n, alpha, beta, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, canonical):
    fn = "csrgeam" if kind == "geam" else kind
    m, n = _args.size(m, "m", fn), _args.size(n, "n", fn)
    _args.csr(fn, m, a_indptr, a_indices, a_data, prefix="a_")
    _args.csr(fn, m, b_indptr, b_indices, b_data, prefix="b_")
    _args.same_device(fn, a_indptr, ("b_indptr", b_indptr))
    dtype = numpy.result_type(a_data.dtype, b_data.dtype)
    if kind == "geam":
        dtype = numpy.result_type(dtype, alpha, beta)
    index = index_dtype((a_indptr.dtype, b_indptr.dtype), max(a_indices.size + b_indices.size, m, n))
    a_indptr, a_indices, a_data = _k.astype(a_indptr, index), _k.astype(a_indices, index), _k.astype(a_data, dtype)
    b_indptr, b_indices, b_data = _k.astype(b_indptr, index), _k.astype(b_indices, index), _k.astype(b_data, dtype)
    if not canonical:
        a_indptr, a_indices, a_data = _k.canonicalize(m, n, a_indptr, a_indices, a_data)
        b_indptr, b_indices, b_data = _k.canonicalize(m, n, b_indptr, b_indices, b_data)
    a = (a_indptr, a_indices, a_data)
    b = (b_indptr, b_indices, b_data)
    counts = _k.zeros(m + 1, index, a_indptr)
    _k.merge(kind, m, alpha, beta, *a, *b, counts, None, None, None)
    indptr, nnz = _k.indptr_from_counts(counts, index)
    indices, data = _k.empty(nnz, index, a_indptr), _k.empty(nnz, dtype, a_indptr)
    if nnz:
        _k.merge(kind, m, alpha, beta, *a, *b, None, indptr, indices, data)
    return indptr, indices, data


def csrgeam(m, n, alpha, a_indptr, a_indices, a_data, beta, b_indptr, b_indices, b_data, *, canonical=False):
    """``C = alpha A + beta B`` for m x n CSR matrices (rocSPARSE's ``csrgeam``).

    Parameters
    ----------
    m, n : int
        Shape of A, B and C.
    alpha, beta : scalar
        Host numbers (complex ones promote the result to complex).
    a_indptr, a_indices, a_data, b_indptr, b_indices, b_data : cupy.ndarray
        CSR parts of A and B, contiguous 1-D: ``m + 1`` index pointers, indices (int32 or int64,
        one dtype per matrix) and values (float32, float64, complex64 or complex128) of one size.
        Duplicates and unsorted rows are allowed.
    canonical : bool, optional
        The caller guarantees both inputs are canonical (sorted, no duplicates): skips the
        canonicalization.

    Returns
    -------
    indptr, indices, data : cupy.ndarray
        Canonical CSR of C without exactly-zero values (SciPy's ``A + B`` drops them, stored
        zeros of the inputs included). Values in the promoted dtype of the inputs and scalars;
        indices in SciPy's index dtype of the sum (int64 when an input's is, or when
        ``nnz(A) + nnz(B)`` or a dimension passes the int32 range).

    Raises
    ------
    TypeError, ValueError
        As :func:`rocarray.rocsparse.csrgemm`'s (both ``indptr`` of ``m + 1`` elements); a scalar
        that is not a host number is a ``TypeError``.

    Notes
    -----
    Sizes and dtypes are checked; the index values are not (see
    :func:`~rocarray.rocsparse.check_matrix_csr`).
    """
    _args.scalars("csrgeam", alpha=alpha, beta=beta)
    return _combine("geam", m, n, alpha, beta, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, canonical)


def csr_multiply(m, n, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, *, canonical=False):
    """Elementwise product ``A o B`` of m x n CSR matrices (the intersection of the patterns).

    Parameters
    ----------
    m, n : int
        Shape of A, B and the result.
    a_indptr, a_indices, a_data, b_indptr, b_indices, b_data : cupy.ndarray
        CSR parts as in :func:`csrgeam`.
    canonical : bool, optional
        The caller guarantees both inputs are canonical.

    Returns
    -------
    indptr, indices, data : cupy.ndarray
        Canonical CSR of the product; like SciPy's ``multiply``, exactly-zero products are not
        stored and a column stored in one operand only gives ``a * 0`` (stored when NaN). Index
        dtype as in :func:`csrgeam`.

    Raises
    ------
    TypeError, ValueError
        As :func:`csrgeam`'s.
    """
    return _combine("csr_multiply", m, n, 1, 1, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data,
                    canonical)
