"""SciPy's ``scipy.linalg.lu``, ``lu_factor`` and ``lu_solve`` on rocsolver's LU, stacked
``(..., M, N)`` inputs included (as SciPy's batch support).

The permutations come from getrf's LAPACK pivots by :func:`rocarray.rocsolver.laswp_strided_batched`
applied in reverse order: on identity matrices that gives P (``A = P L U``), on ``arange(M)`` the
row indices with ``A = L[p] U``, on L the product ``P L``. ``check_finite`` costs one host read.
"""

import warnings

import numpy

from rocarray import rocsolver
from rocarray._core import args as _args, backend
from rocarray.linalg import _stacked
from rocarray.rocsolver import _info


def _count(shape):
    return int(numpy.prod(shape, dtype=numpy.int64))


def _check_finite(*arrays):
    cupy = backend.cupy()
    for x in arrays:
        if x.size and not bool(cupy.isfinite(x).all()):
            raise ValueError("array must not contain infs or NaNs")


def _getrf(a, dtype):
    """``(LU, ipiv, info, batch)``: LU the ``(batch, N, M)`` column-major factors of the stack
    ``a`` (``(..., M, N)``), ipiv ``(batch, K)`` 1-based."""
    cupy = backend.cupy()
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = _count(a.shape[:-2])
    A = _stacked.column_major_batch(a, dtype).reshape(batch, n, m)
    ipiv = cupy.zeros((batch, max(k, 1)), numpy.int32)
    info = _info.new_info(batch)
    lda = max(m, 1)
    rocsolver.getrf_strided_batched(m, n, A.reshape(-1), lda, lda * n, ipiv.reshape(-1), max(k, 1), info, batch)
    return A, ipiv, info, batch


def _permute(X, rows, cols, ipiv, k, batch):
    """Apply ``P`` to the ``(batch, cols, rows)`` column-major matrices X in place: getrf's
    interchanges ``k .. 1`` in reverse order."""
    if k and cols and batch:
        rocsolver.laswp_strided_batched(cols, X.reshape(-1), rows, rows * cols, 1, k, ipiv.reshape(-1),
                                        ipiv.shape[1], -1, batch)


def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    """LU decomposition with partial pivoting, ``A = P L U`` (``scipy.linalg.lu``).

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, N)`` matrices.
    permute_l : bool, optional
        Return ``(P L, U)`` instead of ``(P, L, U)``.
    overwrite_a : bool, optional
        Accepted for SciPy compatibility; ``a`` is never overwritten.
    check_finite : bool, optional
        Raise ``ValueError`` if ``a`` has infs or NaNs (one host read).
    p_indices : bool, optional
        Return the permutation as row indices p (int32, ``A = L[p] U`` for one matrix) instead
        of matrices.

    Returns
    -------
    p : cupy.ndarray
        ``(..., M, M)`` permutation matrices of the real computation dtype, or ``(..., M)``
        int32 indices (not with ``permute_l``). As SciPy: ``1 x 1`` matrices give P of the
        computation dtype and int64 indices, empty matrices a ``0 x 0`` P.
    l : cupy.ndarray
        ``(..., M, K)`` unit lower trapezoidal, ``K = min(M, N)`` (``P L`` with ``permute_l``).
    u : cupy.ndarray
        ``(..., K, N)`` upper trapezoidal.

    Raises
    ------
    ValueError
        Fewer than two dimensions, non-finite input with ``check_finite``.
    TypeError
        Host arrays, unsupported dtypes.

    Examples
    --------
    >>> p, l, u = ra.linalg.lu(cupy.array([[1.0, 2.0], [3.0, 4.0]]))   # doctest: +SKIP
    >>> p @ l @ u                                                   # doctest: +SKIP
    array([[1., 2.],
           [3., 4.]])
    """
    del overwrite_a
    cupy = backend.cupy()
    a = _args.as_device_array(a, "a")
    if a.ndim < 2:
        raise ValueError("The input array must be at least two-dimensional.")
    dtype = _stacked.linalg_dtype(a.dtype)
    if check_finite:
        _check_finite(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    stack = a.shape[:-2]
    A, ipiv, _, batch = _getrf(a, dtype)
    LU = A.swapaxes(-1, -2)   # (batch, m, n)
    L = cupy.tril(LU[:, :, :k], -1) + cupy.eye(m, k, dtype=dtype)
    U = cupy.triu(LU[:, :k, :])
    if permute_l:
        PL = _stacked.column_major_batch(L, dtype)   # (batch, k, m)
        _permute(PL, m, k, ipiv, k, batch)
        return PL.swapaxes(-1, -2).reshape(stack + (m, k)), U.reshape(stack + (k, n))
    # SciPy's own special cases: 1 x 1 matrices give P of the computation dtype and int64
    # indices, empty ones a 0 x 0 P
    one = (m, n) == (1, 1)
    pm = 0 if a.size == 0 else m
    real = dtype if one else numpy.dtype(dtype.char.lower())
    if p_indices:
        rows = cupy.empty((batch, pm), numpy.float64)
        rows[...] = cupy.arange(pm, dtype=numpy.float64)
        _permute(rows, pm, 1, ipiv, k, batch)
        p = rows.astype(numpy.int64 if one else numpy.int32).reshape(stack + (pm,))
    else:
        P = cupy.zeros((batch, pm, pm), real)
        P.reshape(batch, pm * pm)[:, ::pm + 1] = 1
        _permute(P, pm, pm, ipiv, k, batch)
        p = P.swapaxes(-1, -2).reshape(stack + (pm, pm))
    return p, L.reshape(stack + (m, k)), U.reshape(stack + (k, n))


def lu_factor(a, overwrite_a=False, check_finite=True):
    """LU factorization in LAPACK's packed form (``scipy.linalg.lu_factor``).

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, N)`` matrices.
    overwrite_a : bool, optional
        Accepted for SciPy compatibility; ``a`` is never overwritten.
    check_finite : bool, optional
        Raise ``ValueError`` if ``a`` has infs or NaNs (one host read).

    Returns
    -------
    lu : cupy.ndarray
        ``(..., M, N)``: U on and above the diagonal, L's multipliers below (unit diagonal not
        stored); each matrix Fortran-ordered in memory.
    piv : cupy.ndarray
        ``(..., K)`` int32 pivot rows, 0-based: row i was interchanged with ``piv[i]``.

    Warns
    -----
    scipy.linalg.LinAlgWarning
        When a diagonal element of U is exactly zero (one host read of ``info``); RuntimeWarning
        without SciPy.

    Raises
    ------
    ValueError
        Fewer than two dimensions, non-finite input with ``check_finite``.
    TypeError
        Host arrays, unsupported dtypes.

    Examples
    --------
    >>> lu, piv = ra.linalg.lu_factor(cupy.array([[1.0, 2.0], [3.0, 4.0]]))   # doctest: +SKIP
    >>> piv                                                               # doctest: +SKIP
    array([1, 1], dtype=int32)
    """
    del overwrite_a
    a = _args.as_device_array(a, "a")
    if a.ndim < 2:
        raise ValueError("expected matrix")
    dtype = _stacked.linalg_dtype(a.dtype)
    if check_finite:
        _check_finite(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    A, ipiv, info, batch = _getrf(a, dtype)
    failed = _info.failures(info, batch)
    if (failed > 0).any():
        try:
            from scipy.linalg import LinAlgWarning as warning
        except ImportError:  # pragma: no cover - SciPy is optional
            warning = RuntimeWarning
        warnings.warn(f"Diagonal number {int(failed[failed > 0][0])} is exactly zero. Singular matrix.", warning,
                      stacklevel=2)
    return A.swapaxes(-1, -2).reshape(a.shape), (ipiv[:, :k] - 1).reshape(a.shape[:-2] + (k,))


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """Solve ``op(A) x = b`` from :func:`lu_factor`'s output (``scipy.linalg.lu_solve``).

    Parameters
    ----------
    lu_and_piv : tuple
        ``(lu, piv)`` from :func:`lu_factor`: ``(..., N, N)`` and ``(..., N)`` (0-based).
    b : cupy.ndarray
        ``(N,)`` or ``(..., N, K)``; stack dimensions broadcast with lu's.
    trans : {0, 1, 2, 'N', 'T', 'C'}, optional
        Solve ``A x = b``, ``A^T x = b`` or ``A^H x = b``.
    overwrite_b : bool, optional
        Accepted for SciPy compatibility; ``b`` is never overwritten.
    check_finite : bool, optional
        Raise ``ValueError`` if the inputs have infs or NaNs (one host read).

    Returns
    -------
    cupy.ndarray
        x, shaped like ``b`` (with the broadcast stack).

    Raises
    ------
    ValueError
        lu not square, shapes incompatible, an invalid ``trans``, non-finite input.
    TypeError
        Host arrays, unsupported dtypes.

    Examples
    --------
    >>> a = cupy.array([[1.0, 2.0], [3.0, 4.0]])
    >>> ra.linalg.lu_solve(ra.linalg.lu_factor(a), cupy.array([5.0, 11.0]))   # doctest: +SKIP
    array([1., 2.])
    """
    del overwrite_b
    cupy = backend.cupy()
    lu_, piv = lu_and_piv
    lu_ = _args.as_device_array(lu_, "lu")
    piv = _args.as_device_array(piv, "piv")
    b = _args.as_device_array(b, "b")
    codes = {0: "N", 1: "T", 2: "C", "N": "N", "T": "T", "C": "C"}
    if trans not in codes:
        raise ValueError("trans must be 0, 1, or 2")
    if lu_.ndim < 2 or lu_.shape[-1] != lu_.shape[-2]:
        raise ValueError(f"expected square matrix, got shape {lu_.shape}")
    n = lu_.shape[-1]
    vector = b.ndim == 1
    if b.ndim == 0 or b.shape[-1 if vector else -2] != n or piv.shape[-1:] != (n,):
        raise ValueError(f"Shapes of lu {lu_.shape} and b {b.shape} are incompatible")
    if check_finite:
        _check_finite(lu_, b)
    dtype = _stacked.linalg_dtype(lu_.dtype, b.dtype)
    b2 = b[:, None] if vector else b
    stack = numpy.broadcast_shapes(lu_.shape[:-2], piv.shape[:-1], b2.shape[:-2])
    nrhs = b2.shape[-1]
    batch = _count(stack)
    if batch == 0 or n == 0 or nrhs == 0:
        return cupy.empty(stack + b.shape[-1:] if vector else stack + b.shape[-2:], dtype)
    A = _stacked.column_major_batch(cupy.broadcast_to(lu_, stack + (n, n)), dtype)
    ipiv = (cupy.broadcast_to(piv, stack + (n,)) + 1).astype(numpy.int32).reshape(-1)
    B = _stacked.column_major_batch(cupy.broadcast_to(b2, stack + (n, nrhs)), dtype)
    rocsolver.getrs_strided_batched(codes[trans], n, nrhs, A.reshape(-1), n, n * n, ipiv, n, B.reshape(-1), n,
                                    n * nrhs, batch)
    x = B.swapaxes(-1, -2)
    return x[..., 0] if vector else x
