"""SDDMM: a dense product sampled on a sparse pattern (rocSPARSE's ``sddmm`` for CSR).

``out[e] = alpha (A @ B)[i, j] + beta data[e]`` for every stored element ``e = (i, j)``: a group
of lanes per stored element reduces the length-k dot product of row i of A and column j of B
(``sddmm.hip``), so the work is ``nnz * k`` multiply-adds and no dense m x n product is formed.
"""

import numpy

from rocarray.rocsparse import _args, _spgemm_kernels as _k


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
        C's CSR pattern, contiguous 1-D (int32 or int64, one dtype; m + 1 and nnz entries).
        Duplicates and unsorted rows are allowed: every stored element gets its own value.
    data : cupy.ndarray
        C's values (contiguous 1-D, nnz entries).

    Returns
    -------
    cupy.ndarray
        The nnz new values, in the promoted dtype of A, B, data and the scalars (float32,
        float64, complex64 or complex128).

    Raises
    ------
    TypeError
        A non-device array, a scalar that is not a host number, index arrays not int32/int64 or
        of two dtypes, a promoted dtype outside the four.
    ValueError
        A or B not 2-D, ``B.shape[0] != A.shape[1]``, ``indptr`` not of ``m + 1`` elements,
        ``indices`` and ``data`` of different sizes, parts not contiguous, arrays on two devices.

    Notes
    -----
    Sizes and dtypes are checked; the index values are not (column indices must be below
    ``B.shape[1]``; see :func:`~rocarray.rocsparse.check_matrix_csr`).
    """
    fn = "sddmm"
    _args.scalars(fn, alpha=alpha, beta=beta)
    _args.dense(A, "A", fn, (None, None), "(m, k)")
    m, k = A.shape
    _args.dense(B, "B", fn, (k, None), "(k, n)", like=("A", A))
    _args.csr(fn, m, indptr, indices, data, dtypes=None, rows_name="A.shape[0]")
    _args.same_device(fn, A, ("indptr", indptr))
    dtype = numpy.result_type(A.dtype, B.dtype, data.dtype, alpha, beta)
    if dtype not in _args.VALUE_DTYPES:
        raise TypeError(f"rocsparse.{fn}: A, B, data and the scalars promote to {dtype.name}; supported: float32, "
                        f"float64, complex64, complex128")
    A, B, data = _k.astype(A, dtype), _k.astype(B, dtype), _k.astype(data, dtype)
    out = _k.empty(indices.size, dtype, indices)
    _k.sddmm(alpha, A, B, beta, indptr, indices, data, beta != 0, out)
    return out
