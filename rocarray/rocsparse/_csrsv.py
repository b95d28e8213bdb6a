"""Sparse triangular solve with level scheduling: :func:`csrsv_analysis`, :func:`csrsv_solve`.

Design
------
The rows of a triangular matrix fall into *levels*: row i's level is one more than the highest
level among the rows it depends on (the columns of its entries inside the triangle), level 0
for rows without dependencies. The rows of one level are independent, so the solve is one launch
per level (``ra_rocsparse_csrsv_level``), a group of lanes per row, in order of levels.

The analysis builds the levels on the device by Kahn's topological order: one launch counts each
row's dependencies and finds its diagonal (``ra_rocsparse_csrsv_rows``), the rows with none form
level 0, and each further launch (``ra_rocsparse_csrsv_frontier``) walks the *dependents* of
the rows of the level just finished (the transposed pattern, from
:func:`rocarray.rocsparse.csr2csc`), decrementing their counts; a row whose count reaches zero
joins the next level. The host reads each level's size once (one synchronization per level; a
chain of m rows takes m), which is also what it needs to size the next launch and the level
pointer. The rows are then sorted by level (stable: ascending within a level) with
:func:`rocarray.prim.radix_argsort`. Work is O(nnz) in all.

``trans='T'``/``'C'`` solve with A^T/A^H: the analysis builds its CSR (the CSC of A) once with
:func:`rocarray.rocsparse.csr2csc` and remembers where each of its elements sits in A's values,
so a solve only gathers (and for ``'C'`` conjugates) the values. A^T of a lower triangular A is
upper triangular, and the levels are those of A^T.

Singular matrices
-----------------
A missing or zero diagonal entry makes the solve divide by zero (inf/NaN in the rows that
depend on it); it is not an error here. :attr:`CsrsvAnalysis.structural_zero` gives the first
row without a stored diagonal entry (found by the analysis, no extra cost), and
:meth:`CsrsvAnalysis.zero_pivot` the first row whose diagonal is missing or zero for given
values (one launch and one synchronization). The façade (``spsolve_triangular``) asks
``zero_pivot`` and raises SciPy's ``LinAlgError`` before solving. With ``unit_diagonal`` the
diagonal is never read.

(Liu et al. 2016's synchronization-free solve needs no levels but spins on flags set by other
blocks; level scheduling needs no forward-progress guarantee across blocks, which is what makes
it safe on both vendors.)
"""

import importlib
import itertools

import numpy

from rocarray import prim
from rocarray._core import plans
from rocarray.rocsparse import _args, _csrsv_kernels as _k

_tokens = itertools.count()

#: Stored entries per lane that the solve aims for when it picks the lanes per row.
ENTRIES_PER_LANE = 4


def group_size(nnz, m, warp):
    """Lanes that share one row in the solve: the smallest power of two with at most
    :data:`ENTRIES_PER_LANE` of the average row's entries per lane, at most a warp."""
    avg = nnz / m if m else 0.0
    group = 1
    while group < warp and group * ENTRIES_PER_LANE < avg:
        group *= 2
    return group


class CsrsvAnalysis:
    """The level sets of one triangular sparsity pattern, kept with the matrix and reused by
    every :func:`csrsv_solve` (and :func:`rocarray.rocsparse.csrilu0`/``csric0``) with it.

    Attributes
    ----------
    m : int
        Order of the matrix.
    lower : bool
        Which triangle of A is used (the solve reads only that triangle and the diagonal).
    trans : {'N', 'T', 'C'}
        The operation solved with: A, A^T or A^H.
    index_dtype : numpy.dtype
        int32 or int64, the dtype of A's ``indptr``/``indices`` and of the arrays below.
    level_ptr : numpy.ndarray
        Host int64 array of ``levels + 1`` offsets: the rows of level L are
        ``order[level_ptr[L]:level_ptr[L + 1]]``.
    order : cupy.ndarray
        The m rows sorted by level, ascending within a level.
    diag : cupy.ndarray
        For each row of op(A) (in CSR), the position of its diagonal entry, or -1.
    structural_zero : int
        -1, or the first row without a stored diagonal entry (a structural zero pivot).
    indptr, indices, perm : cupy.ndarray or None
        For ``'T'``/``'C'``: the CSR pattern of A^T and, for each of its elements, its position in
        A's ``data``; None for ``'N'``.
    group : int
        Lanes per row in the solve.
    token : int
        This analysis' number in the process, never reused: the key of its solve plans (the
        prepared per-level launches, which hold the addresses of :attr:`order` and :attr:`diag`)
        in :data:`rocarray._core.plans.cache`.
    nnz : int or None
        Stored elements of the pattern analysed (what the solves check ``indices`` against), or
        None when not known.
    """

    def __init__(self, m, lower, trans, index_dtype, level_ptr, order, diag, structural_zero, indptr=None,
                 indices=None, perm=None, group=1, nnz=None):
        self.m, self.lower, self.trans = int(m), bool(lower), trans
        self.nnz = None if nnz is None else int(nnz)
        self.index_dtype = numpy.dtype(index_dtype)
        self.level_ptr = numpy.asarray(level_ptr, dtype=numpy.int64)
        self.order, self.diag, self.structural_zero = order, diag, int(structural_zero)
        self.indptr, self.indices, self.perm = indptr, indices, perm
        self.group = int(group)
        self.token = next(_tokens)

    def __repr__(self):
        return (f"CsrsvAnalysis(m={self.m}, lower={self.lower}, trans={self.trans!r}, levels={self.levels}, "
                f"index_dtype={self.index_dtype.name})")

    @property
    def levels(self):
        """Number of levels."""
        return len(self.level_ptr) - 1

    @property
    def solve_lower(self):
        """Whether op(A) is lower triangular (A^T of a lower A is upper)."""
        return self.lower if self.trans == "N" else not self.lower

    def values(self, data, conj=None):
        """The values of op(A) in its CSR order: ``data`` itself for ``'N'``, else gathered
        through :attr:`perm` (conjugated for ``'C'``, or as ``conj`` says)."""
        if self.trans == "N":
            return data
        return _k.gather(data, self.perm, self.trans == "C" if conj is None else conj)

    def zero_pivot(self, data):
        """The first row whose diagonal entry is missing or zero for the values ``data`` (A's,
        in A's order), or -1. One launch and one host synchronization.

        Parameters
        ----------
        data : cupy.ndarray
            A's values (float32, float64, complex64 or complex128).

        Returns
        -------
        int
        """
        if self.m == 0:
            return -1
        pivot = _k.pivot_word(self.diag)
        _k.zero_pivot(self.m, self.diag, self.values(data, conj=False), pivot)
        row = _k.read_word(pivot, 0)
        return -1 if row >= self.m else row


def _levels(m, s_ptr, s_ind, d_ptr, d_ind, lower, index_dtype):
    """(level_ptr, order, diag, structural_zero) of the CSR pattern S (its ``lower`` triangle),
    given D = S^T for the dependents."""
    deps = _k.empty(m, numpy.int32, s_ptr)
    diag = _k.empty(m, index_dtype, s_ptr)
    level = _k.empty(m, index_dtype, s_ptr)
    order = _k.empty(m, index_dtype, s_ptr)
    counters = _k.zeros(m + 1, numpy.uint64, s_ptr)  # counters[L]: rows appended to level L
    missing = _k.pivot_word(s_ptr)
    _k.rows(m, s_ptr, s_ind, lower, deps, diag, level, order, counters, missing)
    level_ptr = [0, _k.read_word(counters, 0)]
    while level_ptr[-1] < m:
        start, end = level_ptr[-2], level_ptr[-1]
        if end == start:
            raise RuntimeError("csrsv_analysis: the pattern's triangle has a cycle (indices out of range?)")
        nxt = len(level_ptr) - 1
        _k.frontier(end - start, order, start, end, d_ptr, d_ind, lower, deps, level, nxt, counters)
        level_ptr.append(end + _k.read_word(counters, nxt))
    # the appends within a level come in the atomics' order: sort stably by level
    order = _k.as_index(prim.radix_argsort(level), index_dtype)
    missing = _k.read_word(missing, 0)
    return level_ptr, order, diag, (-1 if missing >= m else missing)


def _transpose(m, indptr, indices, data):
    """The CSR of A^T through ``csr2csc`` of the conversions module, a sibling of this one in
    :mod:`rocarray.rocsparse` (looked up when called, after the package has loaded)."""
    return importlib.import_module("rocarray.rocsparse._convert").csr2csc(m, m, indptr, indices, data)


def csrsv_analysis(m, indptr, indices, *, lower, trans="N"):
    """Level sets of a sparse triangular matrix for :func:`csrsv_solve` (``rocsparse_csrsv_analysis``).

    Parameters
    ----------
    m : int
        Order of the square matrix A.
    indptr, indices : cupy.ndarray
        A's CSR pattern, canonical (sorted columns, no duplicates), contiguous 1-D, int32 or int64
        (one dtype), ``m + 1`` index pointers. Only the ``lower`` (or upper) triangle and the
        diagonal take part; other entries are ignored.
    lower : bool
        Solve with A's lower triangle (True) or its upper triangle (False).
    trans : {'N', 'T', 'C'}
        Analyse for solves with A, A^T or A^H (the pattern of A^T comes from
        :func:`rocarray.rocsparse.csr2csc`).

    Returns
    -------
    CsrsvAnalysis
        To keep with the matrix: every solve with this pattern, triangle and ``trans`` reuses it.

    Raises
    ------
    TypeError
        A non-device array, index arrays not int32/int64 or of two dtypes, a non-integer ``m``.
    ValueError
        A negative ``m``, a bad ``trans``, ``indptr`` not of ``m + 1`` elements, parts not
        contiguous 1-D or on two devices.

    Notes
    -----
    Sizes and dtypes are checked; the index values are not (see
    :func:`~rocarray.rocsparse.check_matrix_csr`). Runs on the device with one host
    synchronization per level (a chain of m dependent rows has m levels); see the module
    documentation for the algorithm and for zero pivots.
    """
    m = _args.size(m, "m", "csrsv_analysis")
    trans = _args.trans(trans, "csrsv_analysis")
    index_dtype = _args.csr("csrsv_analysis", m, indptr, indices)
    nnz = int(indices.size)
    if m == 0:
        none = _k.empty(0, index_dtype, indptr)
        if trans == "N":
            return CsrsvAnalysis(0, lower, trans, index_dtype, [0], none, none, -1, nnz=nnz)
        # the transpose of a 0 x 0 pattern is itself
        return CsrsvAnalysis(0, lower, trans, index_dtype, [0], none, none, -1, indptr=indptr, indices=indices,
                             perm=none, nnz=nnz)
    positions = _k.positions(nnz, indptr)
    t_ptr, t_ind, t_pos = _transpose(m, indptr, indices, positions)
    t_ptr, t_ind = _k.as_index(t_ptr, index_dtype), _k.as_index(t_ind, index_dtype)
    group = group_size(nnz, m, _k.warp_size(indptr))
    if trans == "N":
        level_ptr, order, diag, missing = _levels(m, indptr, indices, t_ptr, t_ind, bool(lower), index_dtype)
        return CsrsvAnalysis(m, lower, trans, index_dtype, level_ptr, order, diag, missing, group=group, nnz=nnz)
    level_ptr, order, diag, missing = _levels(m, t_ptr, t_ind, indptr, indices, not lower, index_dtype)
    return CsrsvAnalysis(m, lower, trans, index_dtype, level_ptr, order, diag, missing, indptr=t_ptr, indices=t_ind,
                         perm=_k.as_index(t_pos, index_dtype), group=group, nnz=nnz)


def check_parts(fn, a, indptr, indices, data):
    """Check A's CSR parts against the analysis ``a`` of its pattern: ``a.m + 1`` index pointers
    of ``a.index_dtype``, as many indices as the pattern analysed, values of one of the four
    dtypes."""
    if not _args.ENABLED:
        return
    index = _args.csr(fn, a.m, indptr, indices, data)
    if index != a.index_dtype:
        raise TypeError(f"rocsparse.{fn}: indptr has dtype {index.name}, but the analysis was made for "
                        f"{a.index_dtype.name}")
    if a.nnz is not None and indices.size != a.nnz:
        raise ValueError(f"rocsparse.{fn}: indices has {indices.size} elements, but the analysed pattern has "
                         f"{a.nnz}")


def _check_solve(a, indptr, indices, data, b, alpha):
    if not _args.ENABLED:
        return
    fn = "csrsv_solve"
    check_parts(fn, a, indptr, indices, data)
    _args.scalars(fn, data.dtype, alpha=alpha)
    _args.array(b, "b", fn)
    if b.ndim not in (1, 2) or b.shape[0] != a.m:
        raise ValueError(f"rocsparse.{fn}: b has shape {b.shape}, expected (m,) or (m, k) with m = {a.m}")
    if b.dtype.kind not in "biufc" or (b.dtype.kind == "c" and data.dtype.kind != "c"):
        raise TypeError(f"rocsparse.{fn}: b has dtype {b.dtype.name}, which does not convert to data's "
                        f"{data.dtype.name}")
    _args.same_device(fn, indptr, ("b", b))


def _solve_plan(a, dtype, unit, col0, ncols):
    """The per-level launches of one solve configuration, from the plan cache."""
    key = ("rocsparse.csrsv_solve", a.token, numpy.dtype(dtype).str, bool(unit), col0, ncols)
    return plans.cache.lookup(key, lambda: _k.solve_levels(a.order, a.level_ptr, a.diag, a.index_dtype, dtype, a.m,
                                                           col0, ncols, a.solve_lower, unit, a.group))


def csrsv_solve(analysis, indptr, indices, data, b, *, alpha=1, unit_diagonal=False):
    """Solve ``op(A) x = alpha b`` for a sparse triangular A (``rocsparse_csrsv_solve``).

    Parameters
    ----------
    analysis : CsrsvAnalysis
        From :func:`csrsv_analysis` of this pattern (it says the triangle and ``trans``).
    indptr, indices, data : cupy.ndarray
        A in canonical CSR (the pattern analysed); ``data`` float32, float64, complex64 or
        complex128.
    b : cupy.ndarray
        Right-hand sides, ``(m,)`` or ``(m, k)``, any layout; read in ``data``'s dtype.
    alpha : scalar
        Scale of the right-hand side (a number of ``data``'s kind).
    unit_diagonal : bool
        Take the diagonal as ones without reading it.

    Returns
    -------
    cupy.ndarray
        x, of ``b``'s shape and ``data``'s dtype (Fortran-ordered when 2-D).

    Raises
    ------
    TypeError
        ``analysis`` not a :class:`CsrsvAnalysis`, a non-device array, index arrays not of the
        analysis' index dtype, an unsupported ``data`` dtype, a non-numeric ``b``, a complex ``b``
        or ``alpha`` with real data.
    ValueError
        ``indptr`` not of ``m + 1`` elements, ``indices`` not of the analysed pattern's size,
        ``data`` not of ``indices``' size, ``b`` not ``(m,)`` or ``(m, k)``, parts not contiguous
        1-D or on two devices.

    Notes
    -----
    Sizes and dtypes are checked; the index values are not (see
    :func:`~rocarray.rocsparse.check_matrix_csr`). One launch per level and per 65535 right-hand
    sides, prepared once per analysis and configuration (dtype, unit diagonal, right-hand sides)
    and kept in the plan cache; nothing is synchronized. A missing or zero diagonal gives inf/NaN,
    not an error: ask :meth:`CsrsvAnalysis.zero_pivot` first.
    """
    a = _args.analysis("csrsv_solve", analysis, CsrsvAnalysis)
    _check_solve(a, indptr, indices, data, b, alpha)
    x = _k.rhs_copy(b, data.dtype)
    nrhs = 1 if x.ndim == 1 else x.shape[1]
    if a.m == 0 or nrhs == 0:
        return x
    if a.trans != "N":
        indptr, indices = a.indptr, a.indices
    values = a.values(data)
    for col0 in range(0, nrhs, _k.MAX_GRID_Y):
        ncols = min(_k.MAX_GRID_Y, nrhs - col0)
        _k.run_solve(_solve_plan(a, values.dtype, unit_diagonal, col0, ncols), indptr, indices, values, x, alpha)
    return x
