"""CSR sparse matrix times dense vector: :func:`csrmv`.

Design
------
``trans='N'`` runs the strategy of the matrix's :class:`~rocarray.rocsparse.CsrmvAnalysis`
(row per thread, G lanes per row, or the load-balanced split; see
:mod:`rocarray.rocsparse._spmv_analysis`), or the tuning DB's measured choice for its key when
there is one. Every strategy reads each stored element once, gathers ``x`` through the read-only
path, sums in the data's dtype and applies ``alpha`` and ``beta`` in the kernel that writes y.

``trans='T'``/``'C'`` run ``'N'`` on the CSR of the transpose, so no sum uses atomics and y is
bitwise the same on every run. With the matrix's analysis the transpose's structure, the position
of each of its elements in A's ``data`` and its own analysis are made once
(:meth:`CsrmvAnalysis.transpose`: :func:`rocarray.rocsparse.csr2csc` of the positions, one wait
for the device) and each product gathers the values in that order first (one pass over the
values); without an analysis every call converts with :func:`rocarray.rocsparse.csr2csc` and
analyses the result.
"""

import numpy

from rocarray._core import backend, timing, tuning
from rocarray.rocsparse import _args, _spmv_kernels as _k
from rocarray.rocsparse._spmv_analysis import CsrmvAnalysis, csrmv_analysis, strategies, strategy_lanes

#: Calls per timing sample when the tuner measures a strategy.
TUNE_CALLS = 10


def _inc(v):
    return v.strides[0] // v.itemsize if v.ndim == 1 and v.size > 1 else 1


def _run(strategy, analysis, indptr, indices, data, x, incx, y, incy, alpha, beta, beta_zero, conj):
    lanes = strategy_lanes(strategy)
    if lanes is None:
        _k.split(analysis.m, analysis.nnz, indptr, indices, data, analysis.starts(), x, incx, y, incy, alpha, beta,
                 beta_zero, conj)
    else:
        _k.vector(lanes, analysis.m, indptr, indices, data, x, incx, y, incy, alpha, beta, beta_zero, conj)


def _measure(analysis, indptr, indices, data, x, incx):
    """``measure(strategy)`` for the tuner: seconds per call into a scratch y, median of three."""
    cupy = backend.cupy()

    def run(strategy, scratch):
        _run(strategy, analysis, indptr, indices, data, x, incx, scratch, 1, 1, 0, True, False)

    def measure(strategy):
        scratch = cupy.empty(analysis.m, dtype=data.dtype)
        return sorted(timing.per_call_seconds(cupy, run, (strategy, scratch), TUNE_CALLS) for _ in range(3))[1]

    return measure


def choose_strategy(analysis, dtype, trans, indptr, indices, data, x, incx):
    """The strategy of a product: a forced one, the tuning DB's for the analysis key completed by
    ``dtype`` and ``trans``, or the heuristic's (timing the candidates only when tuning is asked for)."""
    if analysis.forced or analysis.nnz == 0:
        return analysis.strategy
    warp = _k.warp_size(data.data.device_id)
    key = analysis.key + (numpy.dtype(dtype), trans)
    return tuning.choose("rocsparse.csrmv", key, strategies(warp),
                         _measure(analysis, indptr, indices, data, x, incx), analysis.strategy,
                         sources=(_k.SPMV,))


def _product_n(alpha, m, n, indptr, indices, data, x, beta, y, beta_zero, conj, analysis, trans):
    incx, incy = _inc(x), _inc(y)
    nnz = analysis.nnz if analysis is not None else int(data.size)
    if n == 0 or nnz == 0:
        _k.scale(m, y, incy, beta, beta_zero)
        return
    if analysis is None:
        analysis = csrmv_analysis(m, n, indptr, nnz)
    strategy = choose_strategy(analysis, data.dtype, trans, indptr, indices, data, x, incx)
    _run(strategy, analysis, indptr, indices, data, x, incx, y, incy, alpha, beta, beta_zero, conj)


def csrmv(alpha, m, n, indptr, indices, data, x, beta=0, y=None, *, trans="N", analysis=None):
    """``y := alpha op(A) x + beta y`` for an ``m x n`` CSR matrix A.

    Parameters
    ----------
    alpha, beta : scalar
        Host numbers (complex only for complex data). ``beta == 0`` never reads y (y may hold NaN).
    m, n : int
        Shape of A.
    indptr, indices, data : cupy.ndarray
        A's CSR parts, contiguous 1-D: ``indptr`` (``m + 1`` elements) and ``indices`` of one
        integer type (int32 or int64), ``data`` float32, float64, complex64 or complex128 of
        ``indices``' size, with ``indptr[m] == data.size`` stored elements. Non-canonical A is
        fine (duplicates add, any order within a row).
    x : cupy.ndarray
        1-D, ``data``'s dtype, ``n`` elements (``m`` for ``'T'``/``'C'``), any stride.
    y : cupy.ndarray, optional
        1-D, ``data``'s dtype, ``m`` elements (``n`` for ``'T'``/``'C'``), any nonzero stride;
        updated in place. ``None``: a new array (``beta`` ignored).
    trans : {'N', 'T', 'C'}
        ``op(A)`` is A, its transpose or its conjugate transpose.
    analysis : CsrmvAnalysis, optional
        :func:`csrmv_analysis` of A (its ``m``, ``n``, ``nnz`` and index dtype must match), kept
        by the caller; made here when needed otherwise (one wait for the device). ``'T'``/``'C'``
        keep their plan in it (see the module docstring).

    Returns
    -------
    cupy.ndarray
        y.

    Raises
    ------
    TypeError
        A non-device array, index arrays not int32/int64 or of two dtypes, an unsupported value
        dtype, ``x``/``y`` not of ``data``'s dtype, a complex scalar with real data, a non-integer
        size, an analysis that is not a :class:`CsrmvAnalysis`.
    ValueError
        A negative size, a bad ``trans``, ``indptr``/``indices``/``data``/``x``/``y`` of the wrong
        shape (or CSR parts not contiguous, a zero-stride y, arrays on two devices), an analysis
        of another matrix.

    Notes
    -----
    Sizes, dtypes and ``trans`` are checked (``ValueError``/``TypeError`` naming the argument,
    before any device work); the index values are not (see
    :func:`~rocarray.rocsparse.check_matrix_csr`). Sums run in the data's dtype (float32 in float32,
    as cuSPARSE), in an order fixed by the strategy: bitwise the same y on every run.
    """
    m, n = _args.size(m, "m", "csrmv"), _args.size(n, "n", "csrmv")
    trans = _args.trans(trans, "csrmv")
    _args.csr("csrmv", m, indptr, indices, data)
    dtype = data.dtype
    _args.scalars("csrmv", dtype, alpha=alpha, beta=beta)
    rows, cols = (m, n) if trans == "N" else (n, m)
    where = ("data", data)
    _args.dense(x, "x", "csrmv", (cols,), "(n,)" if trans == "N" else "(m,)", dtype, where)
    if y is not None:
        _args.dense(y, "y", "csrmv", (rows,), "(m,)" if trans == "N" else "(n,)", dtype, where, write=True)
    if analysis is not None:
        _args.analysis("csrmv", analysis, CsrmvAnalysis, m=m, n=n, nnz=data.size, index_dtype=indptr.dtype)
    beta_zero = y is None or beta == 0
    if y is None:
        y = backend.cupy().empty(rows, dtype=data.dtype)
    if rows == 0:
        return y
    if trans == "N":
        _product_n(alpha, m, n, indptr, indices, data, x, beta, y, beta_zero, False, analysis, trans)
        return y
    conj = trans == "C" and data.dtype.kind == "c"
    nnz = analysis.nnz if analysis is not None else int(data.size)
    if m == 0 or nnz == 0:
        _k.scale(n, y, _inc(y), beta, beta_zero)
        return y
    if analysis is not None:
        t_indptr, t_indices, perm, t_analysis = analysis.transpose(indices)
        t_data = _k.gather(data, perm)
    else:
        t_indptr, t_indices, t_data = _k.csr2csc(m, n, indptr, indices, data)
        t_analysis = None
    _product_n(alpha, n, m, t_indptr, t_indices, t_data, x, beta, y, beta_zero, conj, t_analysis, trans)
    return y
