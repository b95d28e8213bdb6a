"""``numpy.linalg`` names built on the singular value decomposition: :func:`svd`, :func:`svdvals`,
:func:`pinv`, :func:`matrix_rank`, :func:`cond` and :func:`lstsq`, all on
:func:`rocarray.rocsolver.gesvdj_strided_batched` (one-sided Jacobi; one call per stack)."""

import collections

import numpy

from rocarray._core import backend
from rocarray.linalg._stacked import LinAlgError, column_major_batch, linalg_dtype, stacked_2d
from rocarray import rocsolver
from rocarray.rocsolver import _info

class SVDResult(collections.namedtuple("SVDResult", ["U", "S", "Vh"])):
    """The result of :func:`svd` with vectors, as NumPy 2's ``SVDResult``.

    Parameters
    ----------
    U : cupy.ndarray
        Left singular vectors, ``(..., M, M)`` or ``(..., M, K)``.
    S : cupy.ndarray
        Singular values, ``(..., K)``, real, descending.
    Vh : cupy.ndarray
        Right singular vectors as rows, ``(..., N, N)`` or ``(..., K, N)``.
    """

    __slots__ = ()

#: Sweep limit of the façade's Jacobi iteration.
MAX_SWEEPS = 100


class _NoValue:
    """Marks an argument not given (NumPy's ``rtol`` of :func:`pinv`)."""

    def __repr__(self):
        return "<no value>"


_NOVALUE = _NoValue()


def _power_of_two_scale(a, rdtype):
    """Per matrix of the stack ``a``, ``2^-e`` with ``max |a| * 2^-e`` in [0.5, 1) (1 for a zero
    or non-finite matrix; e kept in the normal range), shaped ``(..., 1, 1)``: exact scaling that
    keeps the kernels' squared column norms away from overflow and underflow."""
    cupy = backend.cupy()
    amax = cupy.abs(a).max(axis=(-2, -1), keepdims=True).astype(rdtype)
    exponent = cupy.frexp(amax)[1]
    limit = numpy.finfo(rdtype).maxexp - 2
    scale = cupy.ldexp(cupy.ones_like(amax), cupy.clip(-exponent, -limit, limit))
    return cupy.where(cupy.isfinite(amax) & (amax > 0), scale, 1).astype(rdtype)


def _decompose(a, dtype, job):
    """``(U, S, Vh)`` of the stack ``a`` in ``dtype`` with NumPy's shapes; ``job`` 'A' (full),
    'S' (reduced) or 'N' (U and Vh None). ``LinAlgError`` when the iteration did not converge."""
    cupy = backend.cupy()
    *stack, m, n = a.shape
    stack = tuple(stack)
    q = min(m, n)
    batch = int(numpy.prod(stack, dtype=numpy.int64))
    rdtype = numpy.dtype(dtype.char.lower())
    ucols = m if job == "A" else q
    vrows = n if job == "A" else q
    if batch == 0 or q == 0:
        s = cupy.empty(stack + (q,), rdtype)
        if job == "N":
            return None, s, None
        u = cupy.zeros(stack + (m, ucols), dtype)
        vh = cupy.zeros(stack + (vrows, n), dtype)
        if job == "A":  # the whole space of the non-empty side
            u[...] = cupy.eye(m, dtype=dtype)
            vh[...] = cupy.eye(n, dtype=dtype)
        return u, s, vh
    A3 = column_major_batch(a, dtype)
    scale = _power_of_two_scale(A3, rdtype)
    A3 *= scale
    A = A3.reshape(-1)
    S = cupy.empty(stack + (q,), rdtype)
    U = cupy.empty(stack + (ucols, m), dtype) if job != "N" else None       # column-major m x ucols
    V = cupy.empty(stack + (n, vrows), dtype) if job != "N" else None       # V^H column-major vrows x n
    info = _info.new_info(batch)
    residual = cupy.empty(batch, rdtype)
    sweeps = cupy.empty(batch, numpy.int32)
    rocsolver.gesvdj_strided_batched(
        job, job, m, n, A, m, m * n, 0.0, residual, MAX_SWEEPS, sweeps, S.reshape(-1), q,
        None if U is None else U.reshape(-1), m, m * ucols,
        None if V is None else V.reshape(-1), max(vrows, 1), vrows * n, info, batch)
    if _info.failures(info, batch).any():
        raise LinAlgError("SVD did not converge")
    S /= scale[..., 0]
    if job == "N":
        return None, S, None
    return U.swapaxes(-1, -2), S, V.swapaxes(-1, -2)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """Singular value decomposition ``a = U @ diag(S) @ Vh`` of a stack of matrices (``numpy.linalg.svd``).

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, N)`` device array (host arrays raise ``TypeError``); integers and bools are
        computed in float64, float32/complex64 stay single precision.
    full_matrices : bool
        U is ``(..., M, M)`` and Vh ``(..., N, N)`` (True) or ``(..., M, K)`` and ``(..., K, N)``
        with ``K = min(M, N)``.
    compute_uv : bool
        Return the vectors (an :data:`SVDResult`) or only S.
    hermitian : bool
        Accepted as NumPy does; the general decomposition is computed either way (valid for
        Hermitian input too; the vectors' signs/phases may differ from NumPy's eigh-based ones).

    Returns
    -------
    SVDResult or cupy.ndarray
        ``(U, S, Vh)``, S real and descending along the last axis; or S alone.

    Raises
    ------
    numpy.linalg.LinAlgError
        Fewer than two dimensions, or the iteration did not converge (``"SVD did not converge"``,
        e.g. for NaN or inf input).
    TypeError
        Unsupported dtype or a host array.

    Notes
    -----
    One call of :func:`rocarray.rocsolver.gesvdj_strided_batched` for the whole stack (one-sided
    Jacobi) and one host read of its ``info``. Each matrix is scaled by a power of two first
    (exact), so very large or very small entries neither overflow nor underflow. Empty matrices give NumPy's shapes (the identity
    for the non-empty side of full vectors).

    Examples
    --------
    >>> u, s, vh = ra.linalg.svd(cupy.array([[3.0, 0.0], [0.0, 4.0]]))   # doctest: +SKIP
    >>> s                                                                 # doctest: +SKIP
    array([4., 3.])
    """
    a = stacked_2d(a)
    dtype = linalg_dtype(a.dtype)
    if not compute_uv:
        return _decompose(a, dtype, "N")[1]
    return SVDResult(*_decompose(a, dtype, "A" if full_matrices else "S"))


def svdvals(x, /):
    """Singular values of a stack of matrices, descending (``numpy.linalg.svdvals``).

    Parameters
    ----------
    x : cupy.ndarray
        ``(..., M, N)`` device array.

    Returns
    -------
    cupy.ndarray
        ``(..., min(M, N))`` real array.

    Raises
    ------
    numpy.linalg.LinAlgError
        As :func:`svd`.
    """
    return svd(x, compute_uv=False)


def pinv(a, rcond=None, hermitian=False, *, rtol=_NOVALUE):
    """Moore-Penrose pseudo-inverse of a stack of matrices (``numpy.linalg.pinv``).

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, N)`` device array.
    rcond : float or array_like, optional
        Singular values at or below ``rcond * max(S)`` are treated as zero; NumPy's default
        ``1e-15`` when neither ``rcond`` nor ``rtol`` is given.
    hermitian : bool
        As :func:`svd`.
    rtol : float or array_like or None, keyword-only
        NumPy 2's name for ``rcond``; ``None`` takes ``max(M, N) * eps``. Giving both is a
        ``ValueError``.

    Returns
    -------
    cupy.ndarray
        ``(..., N, M)``.

    Raises
    ------
    numpy.linalg.LinAlgError
        As :func:`svd`.
    ValueError
        Both ``rcond`` and ``rtol`` given.
    """
    cupy = backend.cupy()
    a = stacked_2d(a)
    dtype = linalg_dtype(a.dtype)
    if rcond is None:
        if rtol is _NOVALUE:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(a.shape[-2:]) * numpy.finfo(dtype).eps
        else:
            rcond = rtol
    elif rtol is not _NOVALUE:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    m, n = a.shape[-2:]
    if a.size == 0:
        return cupy.empty(a.shape[:-2] + (n, m), dtype)
    u, s, vh = _decompose(a, dtype, "S")
    rcond = cupy.asarray(rcond, dtype=s.dtype)
    cutoff = rcond[..., None] * s.max(axis=-1, keepdims=True)
    large = s > cutoff
    sinv = cupy.where(large, 1 / cupy.where(large, s, 1), 0).astype(s.dtype)
    return cupy.matmul(vh.conj().swapaxes(-1, -2), sinv[..., None] * u.conj().swapaxes(-1, -2))


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """Number of singular values above a tolerance (``numpy.linalg.matrix_rank``).

    Parameters
    ----------
    A : cupy.ndarray
        Device array; fewer than two dimensions give 1 unless all elements are zero (0).
    tol : float or array_like, optional
        Absolute threshold (per matrix of the stack).
    hermitian : bool
        As :func:`svd`.
    rtol : float or array_like, optional
        Relative threshold: ``rtol * max(S)``; default ``max(M, N) * eps``. Giving both ``tol``
        and ``rtol`` is a ``ValueError``.

    Returns
    -------
    cupy.ndarray or int
        Ranks of the stack (``(...)`` integers); an ``int`` for fewer than two dimensions.
    """
    cupy = backend.cupy()
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    from rocarray._core.args import as_device_array

    A = as_device_array(A, "A")
    if A.ndim < 2:
        return int(not bool(cupy.all(A == 0)))
    S = svd(A, compute_uv=False, hermitian=hermitian)
    if tol is None:
        if rtol is None:
            rtol = max(A.shape[-2:]) * numpy.finfo(S.dtype).eps
        else:
            rtol = cupy.asarray(rtol)[..., None]
        smax = S.max(axis=-1, keepdims=True) if S.shape[-1] else cupy.zeros(S.shape[:-1] + (1,), S.dtype)
        tol = smax * rtol
    else:
        tol = cupy.asarray(tol)[..., None]
    return cupy.count_nonzero(S > tol, axis=-1)


def cond(x, p=None):
    """Condition number of a stack of matrices (``numpy.linalg.cond``).

    Parameters
    ----------
    x : cupy.ndarray
        ``(..., M, N)`` device array (square for the norms other than 2 and -2).
    p : {None, 2, -2, 1, -1, inf, -inf, 'fro', 'nuc'}
        The norm. None, 2 and -2 use the singular values (``S[0] / S[-1]`` or its inverse); the
        others are computed by ``cupy.linalg.cond`` (``norm(x) * norm(inv(x))``).

    Returns
    -------
    cupy.ndarray
        Real, of shape ``(...)``; ``inf`` (not NaN) for a singular matrix without NaN entries.

    Raises
    ------
    numpy.linalg.LinAlgError
        Empty matrices (``"cond is not defined on empty arrays"``), fewer than two dimensions, or
        non-convergence as :func:`svd`.
    """
    cupy = backend.cupy()
    x = stacked_2d(x, "x")
    if x.size == 0 and x.shape[-1] * x.shape[-2] == 0:
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or (not isinstance(p, str) and p in (2, -2)):
        s = svd(x, compute_uv=False)
        first, last = s[..., 0], s[..., -1]
        r = last / first if p == -2 else first / last
        nan = cupy.isnan(r) & ~cupy.isnan(x).any(axis=(-2, -1))
        return cupy.where(nan, cupy.inf, r).astype(r.dtype)
    from rocarray._user.profile import fallthrough

    return fallthrough(cupy.linalg.cond, "linalg.cond")(x, p)


def lstsq(a, b, rcond=None):
    """Least-squares solution of ``a @ x = b`` (``numpy.linalg.lstsq``, NumPy 2 semantics).

    Parameters
    ----------
    a : cupy.ndarray
        ``(M, N)`` device array.
    b : cupy.ndarray
        ``(M,)`` or ``(M, K)`` device array.
    rcond : float, optional
        Singular values at or below ``rcond * max(S)`` count as zero; default
        ``eps * max(M, N)``; a negative value means machine epsilon.

    Returns
    -------
    x : cupy.ndarray
        ``(N,)`` or ``(N, K)``: the minimum-norm least-squares solution.
    residuals : cupy.ndarray
        Squared 2-norms of the columns of ``b - a @ x``, ``(1,)`` or ``(K,)``, when the rank is N
        and M > N; else empty.
    rank : int
        Number of singular values above the cutoff.
    s : cupy.ndarray
        Singular values of ``a``, ``(min(M, N),)``.

    Raises
    ------
    numpy.linalg.LinAlgError
        ``a`` or ``b`` of the wrong number of dimensions, ``"Incompatible dimensions"``, or
        non-convergence as :func:`svd`.

    Notes
    -----
    ``x = V diag(1 / s_i for s_i > cutoff) U^H b`` from the reduced SVD; the residuals are
    computed from ``b - a @ x``. One host read for the rank.
    """
    cupy = backend.cupy()
    from rocarray._core.args import as_device_array

    a = as_device_array(a, "a")
    b = as_device_array(b, "b")
    is_1d = b.ndim == 1
    if is_1d:
        b = b[:, None]
    for arr in (a, b):
        if arr.ndim != 2:
            raise LinAlgError(f"{arr.ndim}-dimensional array given. Array must be two-dimensional")
    m, n = a.shape
    m2, k = b.shape
    if m != m2:
        raise LinAlgError("Incompatible dimensions")
    dtype = linalg_dtype(a.dtype, b.dtype)
    rdtype = numpy.dtype(dtype.char.lower())
    eps = float(numpy.finfo(dtype).eps)
    if rcond is None:
        rcond = eps * max(n, m)
    elif rcond < 0:
        rcond = eps
    a = a.astype(dtype, copy=False)
    b = b.astype(dtype, copy=False)
    u, s, vh = _decompose(a, dtype, "S")
    if s.size:
        large = s > rcond * s.max()
        rank = int(cupy.count_nonzero(large))
        sinv = cupy.where(large, 1 / cupy.where(large, s, 1), 0).astype(rdtype)
        x = cupy.matmul(vh.conj().T, sinv[:, None] * cupy.matmul(u.conj().T, b))
    else:
        rank = 0
        x = cupy.zeros((n, k), dtype)
    if rank == n and m > n:
        resids = (cupy.abs(b - cupy.matmul(a, x)) ** 2).sum(axis=0).astype(rdtype)
    else:
        resids = cupy.empty(0, rdtype)
    if is_1d:
        x = x[:, 0]
    return x, resids, rank, s
