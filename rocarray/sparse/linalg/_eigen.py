"""``eigsh`` and ``svds``: thick-restart Lanczos with full reorthogonalization.

The Krylov basis lives on the device as the rows of one array; each new vector is orthogonalized
against the whole basis twice (classical Gram-Schmidt with one reorthogonalization, two gemv
pairs through :mod:`._vecops`). The small projected matrix ``T = V^H A V`` (order ``ncv``) is kept
and solved on the host with NumPy. At a restart the wanted Ritz vectors, and as many again of the
next best ones, replace the basis, with the last Lanczos vector appended, so ``T`` becomes a
diagonal block with one coupling row (thick restart: K. Wu and H. Simon, "Thick-restart Lanczos
method for large symmetric eigenvalue problems", SIAM J. Matrix Anal. Appl. 22, 2000).
"""

import warnings

import numpy

from rocarray.sparse.linalg import _vecops
from rocarray.sparse.linalg._interface import LinearOperator, aslinearoperator, _is_dense_device, _is_sparse
from rocarray.sparse.linalg._isolve import as_vector

_WHICH = ("LM", "SM", "LA", "SA", "BE")


class ArpackError(RuntimeError):
    """An eigensolver failure (``scipy.sparse.linalg.ArpackError``)."""


class ArpackNoConvergence(ArpackError):
    """The Lanczos iteration did not converge within ``maxiter`` restarts.

    Parameters
    ----------
    msg : str
        The message.
    eigenvalues : numpy.ndarray
        The converged Ritz values.
    eigenvectors : cupy.ndarray
        Their vectors.

    Attributes
    ----------
    eigenvalues : numpy.ndarray
        The Ritz values that did converge (host).
    eigenvectors : cupy.ndarray
        Their vectors, one per column.
    """

    def __init__(self, msg, eigenvalues, eigenvectors):
        super().__init__(msg)
        self.eigenvalues, self.eigenvectors = eigenvalues, eigenvectors


def _rank(theta, which):
    """Indices of the Ritz values, most wanted first."""
    if which == "LM":
        return numpy.argsort(-numpy.abs(theta), kind="stable")
    if which == "SM":
        return numpy.argsort(numpy.abs(theta), kind="stable")
    if which == "LA":
        return numpy.argsort(-theta, kind="stable")
    if which == "SA":
        return numpy.argsort(theta, kind="stable")
    # BE: alternate between the two ends, starting at the high end
    order = numpy.argsort(theta, kind="stable")
    lo, hi, out = 0, len(order) - 1, []
    while lo <= hi:
        out.append(order[hi])
        hi -= 1
        if lo <= hi:
            out.append(order[lo])
            lo += 1
    return numpy.array(out, dtype=numpy.int64)


def _orthogonalize(ops, V, count, w):
    """``w`` minus its projection on ``V[:count]`` (twice); returns the coefficients."""
    h = ops.gemv_h(V, count, w)
    ops.gemv_n(V, count, h, w, -1)
    h2 = ops.gemv_h(V, count, w)
    ops.gemv_n(V, count, h2, w, -1)
    return h + h2


def _start_vector(ops, n, dtype, rng, V=None, count=0):
    """A random unit vector (orthogonal to ``V[:count]``)."""
    x = rng.standard_normal(n)
    if numpy.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(n)
    v = ops.array(x, dtype)
    if count:
        _orthogonalize(ops, V, count, v)
    ops.scale(1 / ops.norm(v), v)
    return v


def _combine(ops, V, m, C, dtype):
    """The rows ``sum_i C[i, j] V[i]`` for each column j of the host matrix C."""
    out = ops.zeros((C.shape[1], V.shape[1]), dtype)
    for j in range(C.shape[1]):
        ops.gemv_n(V, m, C[:, j], out[j], 1)
    return out


def lanczos(op, k, which, ncv, maxiter, tol, v0, want_vectors):
    """``(theta, Y)``: the k wanted eigenvalues of the Hermitian operator (ascending) and, with
    ``want_vectors``, their vectors as the rows of a device array."""
    ops = _vecops.select()
    n = op.shape[0]
    dtype = numpy.dtype(op.dtype)
    rdtype = numpy.finfo(dtype).dtype
    eps = float(numpy.finfo(dtype).eps)
    tol = eps if tol <= 0 else tol
    rng = numpy.random.default_rng(0)
    m = ncv
    V = ops.zeros((m + 1, n), dtype)
    T = numpy.zeros((m, m), dtype=dtype)
    if v0 is None:
        ops.assign(V[0], _start_vector(ops, n, dtype, rng))
    else:
        v = ops.array(ops.vector(v0, "v0"), dtype)
        ops.scale(1 / ops.norm(v), v)
        ops.assign(V[0], v)
    start, beta = 0, 0.0
    for _ in range(maxiter):
        for i in range(start, m):
            w = ops.copy(as_vector(ops, op.matvec(V[i]), dtype))
            h = _orthogonalize(ops, V, i + 1, w)
            T[:i + 1, i] = h
            T[i, :i + 1] = numpy.conj(h)
            T[i, i] = h[i].real
            beta = ops.norm(w)
            scale = max(numpy.abs(T[:i + 1, :i + 1]).max(), eps)
            if beta <= eps * scale:
                # invariant subspace: continue with a fresh direction, coupled by 0
                beta = 0.0
                if i + 1 < n:
                    w = _start_vector(ops, n, dtype, rng, V, i + 1)
                else:
                    w = ops.zeros(n, dtype)
            else:
                ops.scale(1 / beta, w)
            ops.assign(V[i + 1], w)
            if i + 1 < m:
                T[i + 1, i] = T[i, i + 1] = beta
        theta, S = numpy.linalg.eigh(T)
        order = _rank(theta, which)
        wanted = order[:k]
        resid = beta * numpy.abs(S[m - 1, wanted])
        # the estimate cannot fall below the rounding of the projected problem, eps ||T||
        bound = numpy.maximum(tol * numpy.abs(theta[wanted]), eps * numpy.abs(theta).max())
        if numpy.all(resid <= bound) or m >= n and beta == 0:
            return _finish(ops, V, m, theta, S, wanted, dtype, want_vectors)
        keep = min(m - 1, k + (m - k) // 2)
        kept = order[:keep]
        Y = _combine(ops, V, m, S[:, kept], dtype)
        for j in range(keep):
            ops.assign(V[j], Y[j])
        ops.assign(V[keep], V[m])
        T[:] = 0
        T[numpy.arange(keep), numpy.arange(keep)] = theta[kept]
        coupling = beta * S[m - 1, kept]
        T[keep, :keep] = coupling
        T[:keep, keep] = numpy.conj(coupling)
        start = keep
    # not converged: the wanted Ritz pairs of the last cycle are V[:k] after its restart
    good = numpy.flatnonzero(resid <= bound)
    good = good[numpy.argsort(theta[wanted][good], kind="stable")]
    vecs = ops.zeros((len(good), n), dtype)
    for row, j in enumerate(good):
        ops.assign(vecs[row], V[j])
    raise ArpackNoConvergence(f"ARPACK error -1: No convergence ({maxiter} iterations, {len(good)}/{k} "
                              "eigenvectors converged)", theta[wanted][good].astype(rdtype), vecs.T)


def _finish(ops, V, m, theta, S, wanted, dtype, want_vectors):
    wanted = numpy.asarray(wanted)[numpy.argsort(theta[wanted], kind="stable")]
    vals = theta[wanted].astype(numpy.finfo(dtype).dtype)
    if not want_vectors:
        return vals, None
    Y = _combine(ops, V, m, S[:, wanted].astype(dtype), dtype)
    return vals, Y.T


def _hermitian_operator(A):
    op = aslinearoperator(A)
    if op.shape[0] != op.shape[1]:
        raise ValueError(f"expected square matrix (shape={op.shape})")
    if op.dtype is None or op.dtype.char not in "fdFD":
        dtype = numpy.result_type(op.dtype if op.dtype is not None else numpy.float64, numpy.float32)
        dtype = dtype if dtype.char in "fdFD" else numpy.dtype(numpy.float64)
        op = LinearOperator(op.shape, matvec=lambda v, o=op: o.matvec(v), dtype=dtype)
    return op


def _dense(A):
    """A dense device copy of a sparse or dense matrix (the k >= n path)."""
    if _is_sparse(A):
        return A.toarray()
    if _is_dense_device(A):
        return A
    raise TypeError("Cannot use scipy.linalg.eigh for LinearOperator A with k >= N.")


def eigsh(A, k=6, M=None, sigma=None, which="LM", v0=None, ncv=None, maxiter=None, tol=0,
          return_eigenvectors=True, Minv=None, OPinv=None, mode="normal"):
    """k eigenvalues and eigenvectors of a Hermitian matrix (``scipy.sparse.linalg.eigsh``).

    Parameters
    ----------
    A : sparse array, cupy.ndarray or LinearOperator
        Real symmetric or complex Hermitian ``(N, N)``.
    k : int, optional
        Number of eigenvalues, ``0 < k < N`` (``k >= N`` on a matrix: all of them, from a dense
        eigensolver, with SciPy's warning).
    M, sigma : None
        Generalized and shift-invert modes are not provided: anything but None raises
        ``NotImplementedError``.
    which : {'LM', 'SM', 'LA', 'SA', 'BE'}, optional
        Largest/smallest magnitude, largest/smallest algebraic, both ends (ARPACK's rule: k // 2
        from the low end, the rest from the high end). 'BE' is taken for complex A too, where
        SciPy refuses it.
    v0 : cupy.ndarray, optional
        Starting vector (default: a fixed pseudo-random vector).
    ncv : int, optional
        Basis size, ``k < ncv <= N`` (default ``min(N, max(2k + 1, 20))``).
    maxiter : int, optional
        Most restarts (default ``10 N``).
    tol : float, optional
        Relative accuracy of the Ritz values (0: machine precision): a Ritz pair is converged when
        its residual estimate is below ``max(tol |theta|, eps ||T||)``, T the projected matrix.
    return_eigenvectors : bool, optional
        Also return the eigenvectors.
    Minv, OPinv : None
        As ``M`` and ``sigma``: only None.
    mode : str, optional
        Only ``'normal'``.

    Returns
    -------
    w : cupy.ndarray
        The k eigenvalues in ascending order (real dtype of A). SciPy returns ARPACK's
        internal order when ``return_eigenvectors=False``; here the order is always ascending.
    v : cupy.ndarray
        ``(N, k)`` eigenvectors, column j for ``w[j]``.

    Raises
    ------
    ArpackNoConvergence
        When the Ritz values do not converge within ``maxiter`` restarts.
    ValueError
        For bad ``k``, ``which``, ``ncv`` or a non-square A.
    """
    if M is not None or sigma is not None or Minv is not None or OPinv is not None or mode != "normal":
        raise NotImplementedError("eigsh: only the standard problem (M=None, sigma=None, mode='normal') is provided")
    if which not in _WHICH:
        raise ValueError(f"which must be one of {' '.join(_WHICH)}")
    n = aslinearoperator(A).shape[0]
    if k <= 0:
        raise ValueError("k must be greater than 0.")
    if k >= n:
        warnings.warn("k >= N for N * N square matrix. Attempting to use scipy.linalg.eigh instead.",
                      RuntimeWarning, stacklevel=2)
        import rocarray.linalg as la

        dense = _dense(A)
        if return_eigenvectors:
            return la.eigh(dense)
        return la.eigvalsh(dense)
    op = _hermitian_operator(A)
    if ncv is None:
        ncv = min(n, max(2 * k + 1, 20))
    if not (k < ncv <= n):
        raise ValueError(f"ncv must be k<ncv<=n, ncv={ncv}")
    if maxiter is None:
        maxiter = n * 10
    if maxiter <= 0:
        raise ValueError("maxiter must be positive, maxiter=%d" % maxiter)
    vals, vecs = lanczos(op, k, which, ncv, maxiter, tol, v0, return_eigenvectors)
    vals = _vecops.select().array(vals, vals.dtype)
    if return_eigenvectors:
        return vals, vecs
    return vals


def svds(A, k=6, ncv=None, tol=0, which="LM", v0=None, maxiter=None, return_singular_vectors=True,
         solver="arpack", rng=None, options=None):
    """k singular values and vectors of a matrix (``scipy.sparse.linalg.svds``).

    Computed by :func:`eigsh` on ``A^H A`` (or ``A A^H`` when A is wide), so singular values far
    below ``sqrt(eps) * s_max`` lose relative accuracy (their squares are what the Lanczos
    iteration resolves).

    Parameters
    ----------
    A : sparse array, cupy.ndarray or LinearOperator
        ``(M, N)``; needs ``A @ x`` and ``A^H @ y``.
    k : int, optional
        Number of singular values, ``1 <= k < min(M, N)``.
    ncv, tol : optional
        Passed to the Lanczos iteration on the Gram operator.
    which : {'LM', 'SM'}, optional
        Largest or smallest singular values.
    v0 : cupy.ndarray, optional
        Starting vector of length ``min(M, N)``.
    maxiter : int, optional
        Most restarts of the Lanczos iteration (default ``10 min(M, N)``).
    return_singular_vectors : {True, False, 'u', 'vh'}, optional
        Which singular vectors to return.
    solver : str, optional
        Accepted: ``'arpack'`` and ``'lobpcg'``/``'propack'`` all run the Lanczos iteration.
    rng, options : optional
        Accepted for SciPy compatibility; the start vector is fixed unless ``v0`` is given.

    Returns
    -------
    u : cupy.ndarray or None
        ``(M, k)`` left singular vectors.
    s : cupy.ndarray
        The k singular values in ascending order.
    vh : cupy.ndarray or None
        ``(k, N)`` right singular vectors.
    """
    if which not in ("LM", "SM"):
        raise ValueError("`which` must be either 'LM' or 'SM'.")
    if return_singular_vectors not in (True, False, "u", "vh"):
        raise ValueError("`return_singular_vectors` must be True, False, 'u', or 'vh'.")
    op = aslinearoperator(A)
    m, n = op.shape
    if not (isinstance(k, (int, numpy.integer)) and 1 <= k < min(m, n)):
        raise ValueError("`k` must be an integer satisfying `0 < k < min(A.shape)`.")
    dtype = op.dtype if op.dtype is not None and op.dtype.char in "fdFD" else numpy.dtype(numpy.float64)
    tall = m >= n
    size = n if tall else m
    if tall:
        gram = LinearOperator((n, n), matvec=lambda x: op.rmatvec(op.matvec(x)), dtype=dtype)
    else:
        gram = LinearOperator((m, m), matvec=lambda x: op.matvec(op.rmatvec(x)), dtype=dtype)
    if ncv is None:
        ncv = min(size, max(2 * k + 1, 20))
    ncv = min(ncv, size)
    if maxiter is None:
        maxiter = size * 10
    vals, vecs = lanczos(gram, k, "LA" if which == "LM" else "SA", ncv, maxiter, tol, v0,
                         return_singular_vectors is not False)
    s = numpy.sqrt(numpy.maximum(vals, 0))
    ops = _vecops.select()
    if return_singular_vectors is False:
        return ops.array(s, s.dtype)
    # the other side's vectors: A v / s (or A^H u / s), column by column
    other = ops.zeros((k, m if tall else n), dtype)
    for j in range(k):
        col = as_vector(ops, (op.matvec if tall else op.rmatvec)(ops.array(vecs[:, j], dtype)), dtype)
        ops.assign(other[j], col)
        if s[j] > 0:
            ops.scale(1 / s[j], other[j])
    if tall:
        u, vh = other.T, vecs.T.conj()
    else:
        u, vh = vecs, other.conj()
    u = u if return_singular_vectors in (True, "u") else None
    vh = vh if return_singular_vectors in (True, "vh") else None
    return u, ops.array(s, s.dtype), vh
