"""``spsolve_triangular`` and ``spilu`` on rocsparse's level-scheduled triangular solve and ILU(0)."""

import warnings

import numpy

from rocarray._core import args
from rocarray.sparse.linalg._interface import _is_sparse


def _canonical_csr(A):
    """A canonical CSR copy (or A itself, when it already is one and ``copy`` is False)."""
    A = A.tocsr()
    if not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()
    return A


def _as_csr(A, name):
    if not _is_sparse(A):
        raise TypeError(f"{name}: A must be a sparse array or matrix of rocarray.sparse")
    if A.format not in ("csr", "csc"):
        warnings.warn("CSC or CSR matrix format is required. Converting to CSR matrix.", RuntimeWarning,
                      stacklevel=3)
    return _canonical_csr(A)


def _check_rhs(b, m, A_shape):
    b = args.as_device_array(b, "b")
    if b.ndim not in (1, 2):
        raise ValueError(f"b must have 1 or 2 dims but its shape is {b.shape}.")
    if m != b.shape[0]:
        raise ValueError("The size of the dimensions of A must be equal to the size of the first dimension of b "
                         f"but the shape of A is {A_shape} and the shape of b is {b.shape}.")
    return b


def spsolve_triangular(A, b, lower=True, overwrite_A=False, overwrite_b=False, unit_diagonal=False):
    """Solve ``A x = b`` for a triangular sparse A (``scipy.sparse.linalg.spsolve_triangular``).

    Parameters
    ----------
    A : sparse array or matrix
        Square, lower (``lower=True``) or upper triangular; CSR is used as is, CSC is converted
        (other formats too, with a warning); duplicates are summed first. Entries of the other
        triangle are ignored.
    b : cupy.ndarray
        ``(M,)`` or ``(M, K)``. Host (NumPy) arrays raise ``TypeError``.
    lower : bool, optional
        Whether A is lower triangular.
    overwrite_A, overwrite_b : bool, optional
        Accepted for SciPy compatibility; A and b are never modified.
    unit_diagonal : bool, optional
        Take the diagonal as ones (stored diagonal entries are not read).

    Returns
    -------
    x : cupy.ndarray
        The solution, b's shape, dtype ``promote_types(promote_types(A.dtype, float32), b.dtype)``.

    Raises
    ------
    numpy.linalg.LinAlgError
        A zero or missing diagonal entry (unless ``unit_diagonal``).
    ValueError
        Non-square A, or b of the wrong shape.

    Notes
    -----
    Level scheduling: :func:`rocarray.rocsparse.csrsv_analysis` groups rows that can be solved
    together, its ``zero_pivot`` finds a missing or zero diagonal entry (one host read), then
    :func:`rocarray.rocsparse.csrsv_solve` solves level by level.
    """
    from rocarray import rocsparse

    A_shape = getattr(A, "shape", None)
    A = _as_csr(A, "spsolve_triangular")
    m, n = A.shape
    if m != n:
        raise ValueError(f"A must be a square matrix but its shape is {A.shape}.")
    b = _check_rhs(b, m, A_shape)
    dtype = numpy.promote_types(numpy.promote_types(A.dtype, numpy.float32), b.dtype)
    data = A.data if A.data.dtype == dtype else A.data.astype(dtype)
    analysis = rocsparse.csrsv_analysis(m, A.indptr, A.indices, lower=bool(lower))
    if not unit_diagonal and analysis.zero_pivot(data) >= 0:
        raise numpy.linalg.LinAlgError("A is singular: zero entry on diagonal.")
    return rocsparse.csrsv_solve(analysis, A.indptr, A.indices, data, b, unit_diagonal=bool(unit_diagonal))


class SpILU:
    """An incomplete LU factorization ``A ~ L U`` with ILU(0)'s pattern (returned by :func:`spilu`).

    ``L`` (unit lower) and ``U`` (upper) are stored together in A's pattern.

    Attributes
    ----------
    shape : tuple of int
        ``(N, N)``.
    nnz : int
        Stored entries of the combined factors (A's).
    """

    def __init__(self, indptr, indices, data, shape):
        from rocarray import rocsparse

        self.shape, self.nnz = shape, int(data.size)
        self.dtype = data.dtype
        self._indptr, self._indices, self._data = indptr, indices, data
        self._lower = rocsparse.csrsv_analysis(shape[0], indptr, indices, lower=True)
        self._upper = rocsparse.csrsv_analysis(shape[0], indptr, indices, lower=False)

    def solve(self, rhs, trans="N"):
        """``x = U^{-1} L^{-1} rhs``: the preconditioner applied to ``rhs``.

        Parameters
        ----------
        rhs : cupy.ndarray
            ``(N,)`` or ``(N, K)``.
        trans : {'N'}, optional
            Only the plain solve is provided (``ValueError`` otherwise).

        Returns
        -------
        cupy.ndarray
        """
        from rocarray import rocsparse

        if trans != "N":
            raise ValueError("spilu: only trans='N' is provided")
        rhs = _check_rhs(rhs, self.shape[0], self.shape)
        dtype = numpy.promote_types(self.dtype, rhs.dtype)
        data = self._data if self._data.dtype == dtype else self._data.astype(dtype)
        y = rocsparse.csrsv_solve(self._lower, self._indptr, self._indices, data, rhs.astype(dtype, copy=True),
                                  unit_diagonal=True)
        return rocsparse.csrsv_solve(self._upper, self._indptr, self._indices, data, y)


def spilu(A, drop_tol=None, fill_factor=None, drop_rule=None, permc_spec=None, diag_pivot_thresh=None,
          relax=None, panel_size=None, options=None):
    """Incomplete LU factorization for preconditioning (``scipy.sparse.linalg.spilu``), as ILU(0).

    The factors keep exactly A's sparsity pattern (no fill-in, no pivoting, no permutation), from
    :func:`rocarray.rocsparse.csrilu0`. SciPy's threshold ILU options would change the factors,
    so they are refused rather than ignored.

    Parameters
    ----------
    A : sparse array or matrix
        Square; converted to canonical CSR. Its diagonal must be structurally present.
    drop_tol, fill_factor, drop_rule, permc_spec, diag_pivot_thresh, relax, panel_size, options : None
        Must be None (``ValueError`` otherwise): ILU(0) has no such options.

    Returns
    -------
    SpILU
        The factorization; ``.solve(b)`` applies ``(L U)^{-1}``. As a preconditioner:
        ``LinearOperator(A.shape, ilu.solve)``.

    Raises
    ------
    RuntimeError
        A zero pivot ("Factor is exactly singular").
    ValueError
        Non-square A or an option that is not None.
    """
    from rocarray import rocsparse

    given = {"drop_tol": drop_tol, "fill_factor": fill_factor, "drop_rule": drop_rule, "permc_spec": permc_spec,
             "diag_pivot_thresh": diag_pivot_thresh, "relax": relax, "panel_size": panel_size, "options": options}
    bad = [k for k, v in given.items() if v is not None]
    if bad:
        raise ValueError(f"spilu computes ILU(0) (no fill-in, no pivoting): {', '.join(bad)} must be None")
    A = _as_csr(A, "spilu")
    if A.shape[0] != A.shape[1]:
        raise ValueError("can only factor square matrices")
    if A.dtype.char not in "fdFD":
        A = A.astype(numpy.float64)
    data_lu, zero_pivot = rocsparse.csrilu0(A.shape[0], A.indptr, A.indices, A.data)
    if int(zero_pivot) >= 0:
        raise RuntimeError("Factor is exactly singular")
    return SpILU(A.indptr, A.indices, data_lu, A.shape)
