"""Incomplete factorizations in the pattern of A: :func:`csrilu0` (ILU(0)) and :func:`csric0` (IC(0)).

Design
------
Both are the classic row algorithms restricted to A's sparsity pattern (Saad, *Iterative Methods
for Sparse Linear Systems*, 2nd ed., ch. 10: ILU(0) as the IKJ variant of Gaussian elimination,
IC(0) as its symmetric counterpart). Row i reads only rows k < i with ``A[i, k]`` stored, which is
exactly the dependency of a lower triangular solve with A's pattern, so the rows are processed
level by level with the levels of :func:`rocarray.rocsparse.csrsv_analysis` (``lower=True``,
``trans='N'``): one launch per level, one thread per row (``ra_rocsparse_csrilu0_level``,
``ra_rocsparse_csric0_level``). The same analysis serves the triangular solves with the factor
afterwards (L of ILU(0), IC(0)'s L).

Zero pivots
-----------
A row whose pivot is zero or missing (IC(0): missing or not positive, so A is not positive
definite in the pattern) is reported as ``zero_pivot``, the first such row; the factorization
goes on past it, with inf/NaN in the rows that depend on it. Reading ``zero_pivot`` is the one
host synchronization after the level launches (besides the analysis's, when it is built here).
"""

import numpy

from rocarray._core import plans
from rocarray.rocsparse import _args, _csrsv, _csrsv_kernels as _k, _ilu_kernels as _ik


def _lower_analysis(m, indptr, indices, data, analysis, fn):
    """The checked arguments' analysis: the given one (of this pattern's lower triangle, for
    ``trans='N'``), or a new one."""
    m = _args.size(m, "m", fn)
    if analysis is None:
        _args.csr(fn, m, indptr, indices, data)
        return _csrsv.csrsv_analysis(m, indptr, indices, lower=True, trans="N")
    _args.analysis(fn, analysis, _csrsv.CsrsvAnalysis,
                   " (make it with csrsv_analysis(m, indptr, indices, lower=True, trans='N'))",
                   m=m, lower=True, trans="N")
    _csrsv.check_parts(fn, analysis, indptr, indices, data)
    return analysis


def _factor(kind, levels, m, indptr, indices, data, analysis):
    out = _k.copy(data)
    if m == 0:
        return out, -1
    a = analysis
    key = ("rocsparse." + kind, a.token, numpy.dtype(data.dtype).str)
    plan = plans.cache.lookup(key, lambda: levels(a.order, a.level_ptr, a.diag, data.dtype))
    pivot = _k.pivot_word(data)
    _k.run_factor(plan, indptr, indices, out, pivot)
    row = _k.read_word(pivot, 0)
    return out, (-1 if row >= m else row)


def csrilu0(m, indptr, indices, data, analysis=None):
    """Incomplete LU factorization with zero fill-in, ILU(0) (``rocsparse_csrilu0``).

    Parameters
    ----------
    m : int
        Order of the square matrix A.
    indptr, indices, data : cupy.ndarray
        A in canonical CSR (sorted columns, no duplicates); int32 or int64 indices; float32,
        float64, complex64 or complex128 values.
    analysis : CsrsvAnalysis, optional
        ``csrsv_analysis(m, indptr, indices, lower=True)`` of this pattern (built when None).

    Returns
    -------
    data_lu : cupy.ndarray
        New values in A's pattern: L (unit lower triangular, its diagonal not stored) strictly
        below the diagonal, U on and above it, ``L U = A`` on the pattern.
    zero_pivot : int
        -1, or the first row whose pivot ``U[i, i]`` is zero or not stored.

    Raises
    ------
    TypeError
        A non-device array, index arrays not int32/int64 or of two dtypes (or not the analysis'),
        an unsupported value dtype, a non-integer ``m``, an analysis that is not a
        :class:`~rocarray.rocsparse.CsrsvAnalysis`.
    ValueError
        A negative ``m``, ``indptr`` not of ``m + 1`` elements, ``indices`` and ``data`` of
        different sizes, parts not contiguous 1-D or on two devices, an analysis of another
        pattern, triangle or ``trans``.

    Notes
    -----
    Sizes and dtypes are checked; the index values are not (see
    :func:`~rocarray.rocsparse.check_matrix_csr`).
    """
    analysis = _lower_analysis(m, indptr, indices, data, analysis, "csrilu0")
    return _factor("csrilu0", _ik.ilu0_levels, analysis.m, indptr, indices, data, analysis)


def csric0(m, indptr, indices, data, analysis=None):
    """Incomplete Cholesky factorization with zero fill-in, IC(0) (``rocsparse_csric0``).

    Parameters
    ----------
    m : int
        Order of the Hermitian positive definite matrix A.
    indptr, indices, data : cupy.ndarray
        A in canonical CSR; only the lower triangle and the diagonal are read (A's upper
        triangle may be stored or not).
    analysis : CsrsvAnalysis, optional
        ``csrsv_analysis(m, indptr, indices, lower=True)`` of this pattern (built when None).

    Returns
    -------
    data_l : cupy.ndarray
        New values in A's pattern: L (lower triangular, real positive diagonal) on and below the
        diagonal, ``L L^H = A`` on the lower pattern; entries above the diagonal are copied from
        ``data`` unchanged.
    zero_pivot : int
        -1, or the first row whose diagonal is not stored or whose pivot is not positive.

    Raises
    ------
    TypeError, ValueError
        As :func:`csrilu0`'s.
    """
    analysis = _lower_analysis(m, indptr, indices, data, analysis, "csric0")
    return _factor("csric0", _ik.ic0_levels, analysis.m, indptr, indices, data, analysis)
