"""SDDMM: a dense product sampled on a sparse pattern (rocSPARSE's ``sddmm`` for CSR).

``out[e] = alpha (A @ B)[i, j] + beta data[e]`` for every stored element ``e = (i, j)``: a group
of lanes per stored element reduces the length-k dot product of row i of A and column j of B
(``sddmm.hip``), so the work is ``nnz * k`` multiply-adds and no dense m x n product is formed.
"""

import numpy

from rocarray.rocsparse import _spgemm_kernels as _k


def sddmm(alpha, A, B, beta, indptr, indices, data):
    """Sampled dense-dense product ``C_ij = alpha (A @ B)_ij + beta C_ij`` on C's CSR pattern.

    Parameters
    ----------
    alpha, beta : scalar
        Host numbers. With ``beta == 0``, ``data`` is not read (NaNs in it do not propagate).
    A : cupy.ndarray
        Dense (m, k), any strides (C- or F-order).
    B : cupy.ndarray
        Dense (k, n), any strides.
    indptr, indices : cupy.ndarray
        C's CSR pattern (int32 or int64, one dtype; m + 1 and nnz entries). Duplicates and
        unsorted rows are allowed: every stored element gets its own value.
    data : cupy.ndarray
        C's values (nnz entries).

    Returns
    -------
    cupy.ndarray
        The nnz new values, in the promoted dtype of A, B, data and the scalars (float32,
        float64, complex64 or complex128).
    """
    dtype = numpy.result_type(A.dtype, B.dtype, data.dtype, alpha, beta)
    A, B, data = _k.astype(A, dtype), _k.astype(B, dtype), _k.astype(data, dtype)
    out = _k.empty(indices.size, dtype, indices)
    _k.sddmm(alpha, A, B, beta, indptr, indices, data, beta != 0, out)
    return out
