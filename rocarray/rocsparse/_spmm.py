"""CSR sparse matrix times dense matrix: :func:`csrmm`.

Design
------
Two kernels, chosen by B's layout:

* B's rows contiguous (C-order, or any B whose column stride is 1): a warp per row of A and
  warp-wide chunk of C's columns; the lanes read the row's (index, value) pairs once, coalesced,
  pass them around by shuffles, and each lane accumulates one column from B's contiguous rows. With
  32 columns a warp reads one 128-byte row of B per stored element.
* otherwise (column-major B): G lanes per row of A over its stored elements, four columns of B
  per pass (four SpMVs sharing each read of the row's indices and values), G from the mean row
  length.

``alpha`` and ``beta`` are applied where C is written; ``beta == 0`` never reads C. ``'T'``/``'C'``
run ``'N'`` on the CSR of the transpose (the analysis's cached structure and a gather of the
values, or :func:`rocarray.rocsparse.csr2csc` per call without one): no atomics, the same result
on every run.
"""

from rocarray._core import backend
from rocarray.rocsparse import _args, _spmv_kernels as _k
from rocarray.rocsparse._spmv_analysis import CsrmvAnalysis, mean_lanes


def _strides(a):
    return a.strides[0] // a.itemsize, a.strides[1] // a.itemsize


def cols_lanes(m, nnz, warp_size):
    """Lanes per row of the column-major kernel: 2, 8 or 32 (at most the warp), the one nearest
    above the mean row length's power of two."""
    mean = mean_lanes(nnz / m if m else 0, warp_size)
    return next(g for g in _k.SPMM_LANES if g >= min(mean, _k.SPMM_LANES[-1]))


def uses_rows_kernel(B):
    """Whether ``B`` takes the lanes-over-columns kernel (its rows are contiguous)."""
    return B.shape[1] == 1 or B.strides[1] == B.itemsize or B.shape[0] <= 1


def csrmm(alpha, m, n, indptr, indices, data, B, beta=0, C=None, *, trans="N", analysis=None):
    """``C := alpha op(A) B + beta C`` for an ``m x n`` CSR matrix A and dense B.

    Parameters
    ----------
    alpha, beta : scalar
        Host numbers (complex only for complex data). ``beta == 0`` never reads C (C may hold NaN).
    m, n : int
        Shape of A.
    indptr, indices, data : cupy.ndarray
        A's CSR parts (see :func:`rocarray.rocsparse.csrmv`); non-canonical A is fine.
    B : cupy.ndarray
        2-D, ``data``'s dtype, ``n`` rows (``m`` for ``'T'``/``'C'``), any strides.
    C : cupy.ndarray, optional
        2-D, ``data``'s dtype, ``m`` (``n``) rows and B's columns, any strides (none zero along an
        axis of more than one element); updated in place. ``None``: a new C-order array (``beta``
        ignored).
    trans : {'N', 'T', 'C'}
        ``op(A)``.
    analysis : CsrmvAnalysis, optional
        A's :func:`~rocarray.rocsparse.csrmv_analysis` (its ``m``, ``n``, ``nnz`` and index
        dtype must match): ``'T'``/``'C'`` reuse the transpose's structure it keeps
        (:meth:`~rocarray.rocsparse.CsrmvAnalysis.transpose`) instead of converting on every call.
        The kernel choice needs only B's layout and the mean row length.

    Returns
    -------
    cupy.ndarray
        C.

    Raises
    ------
    TypeError, ValueError
        As :func:`rocarray.rocsparse.csrmv`'s, for B and C: B 2-D with ``n`` (``m``) rows, C
        ``(m, B.shape[1])`` (``(n, B.shape[1])``) with no zero stride, both of ``data``'s dtype.

    Notes
    -----
    Sizes, dtypes and ``trans`` are checked; the index values are not (see
    :func:`~rocarray.rocsparse.check_matrix_csr`). Sums run in the data's dtype, in a fixed order:
    bitwise the same C on every run.
    """
    m, n = _args.size(m, "m", "csrmm"), _args.size(n, "n", "csrmm")
    trans = _args.trans(trans, "csrmm")
    _args.csr("csrmm", m, indptr, indices, data)
    dtype = data.dtype
    _args.scalars("csrmm", dtype, alpha=alpha, beta=beta)
    rows, inner = (m, n) if trans == "N" else (n, m)
    where = ("data", data)
    _args.dense(B, "B", "csrmm", (inner, None), "(n, B.shape[1])" if trans == "N" else "(m, B.shape[1])", dtype,
                where)
    ncols = B.shape[1]
    if C is not None:
        _args.dense(C, "C", "csrmm", (rows, ncols), "(m, B.shape[1])" if trans == "N" else "(n, B.shape[1])",
                    dtype, where, write=True)
    if analysis is not None:
        _args.analysis("csrmm", analysis, CsrmvAnalysis, m=m, n=n, nnz=data.size, index_dtype=indptr.dtype)
    cupy = backend.cupy()
    beta_zero = C is None or beta == 0
    if C is None:
        C = cupy.empty((rows, ncols), dtype=data.dtype)
    if rows == 0 or ncols == 0:
        return C
    nnz = int(data.size)
    if trans != "N":
        if m and nnz:
            if analysis is not None:
                t_indptr, t_indices, perm, _ = analysis.transpose(indices)
                t_data = _k.gather(data, perm)
            else:
                t_indptr, t_indices, t_data = _k.csr2csc(m, n, indptr, indices, data)
            _product_n(alpha, n, t_indptr, t_indices, t_data, nnz, B, beta, C, beta_zero,
                       trans == "C" and data.dtype.kind == "c")
            return C
    elif n and nnz:
        _product_n(alpha, m, indptr, indices, data, nnz, B, beta, C, beta_zero, False)
        return C
    _k.scale_matrix(C, beta, beta_zero)  # no stored elements
    return C


def _product_n(alpha, m, indptr, indices, data, nnz, B, beta, C, beta_zero, conj):
    ncols = int(B.shape[1])
    if uses_rows_kernel(B):
        _k.mm_rows(m, ncols, indptr, indices, data, B, _strides(B), C, _strides(C), alpha, beta, beta_zero, conj)
    else:
        lanes = cols_lanes(m, nnz, _k.warp_size(data.data.device_id))
        _k.mm_cols(lanes, m, ncols, indptr, indices, data, B, _strides(B), C, _strides(C), alpha, beta, beta_zero,
                   conj)
