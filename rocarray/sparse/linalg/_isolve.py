"""Krylov solvers for square systems: ``cg``, ``bicgstab``, ``gmres`` (SciPy's signatures, defaults,
info codes and callbacks).

Each solver follows the iteration of ``scipy.sparse.linalg`` step for step, so that the iterates,
the iteration counts and the info codes are SciPy's up to rounding; all vector work goes through
:mod:`._vecops`. ``cg`` keeps its step sizes on the device (fused kernels, see :func:`cg`); the
others read their scalars on the host, where SciPy's breakdown tests need them.
"""

import math

import numpy

from rocarray.sparse.linalg import _vecops
from rocarray.sparse.linalg._interface import IdentityOperator, LinearOperator, aslinearoperator


def _coerce(x, y):
    """SciPy's solver dtype rule: float32/float64/complex64/complex128, anything else as float64."""
    x = x if x in "fdFD" else "d"
    y = y if y in "fdFD" else "d"
    return numpy.result_type(x, y).char


def make_system(A, M, x0, b):
    """``(A, M, x, b)``: the operator, the preconditioner, a new starting vector and a new
    right-hand side of the solver's dtype (SciPy's ``make_system``)."""
    ops = _vecops.select()
    A_ = A
    A = aslinearoperator(A)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"expected square matrix, but got shape={(A.shape,)}")
    N = A.shape[0]
    b = ops.vector(b, "b")
    if not (b.shape == (N, 1) or b.shape == (N,)):
        raise ValueError(f"shapes of A {A.shape} and b {b.shape} are incompatible")
    if b.dtype.char not in "fdFD":
        b = b.astype("d")
    xtype = A.dtype.char if A.dtype is not None else A.matvec(b).dtype.char
    xtype = _coerce(xtype, b.dtype.char)
    b = ops.array(b, xtype)
    if M is None:
        psolve = getattr(A_, "psolve", None)
        rpsolve = getattr(A_, "rpsolve", None)
        if psolve is None and rpsolve is None:
            M = IdentityOperator(shape=A.shape, dtype=A.dtype)
        else:
            ident = (lambda v: v)
            M = LinearOperator(A.shape, matvec=psolve or ident, rmatvec=rpsolve or ident, dtype=A.dtype)
    else:
        M = aslinearoperator(M)
        if A.shape != M.shape:
            raise ValueError("matrix and preconditioner have different shapes")
    if x0 is None:
        x = ops.zeros(N, xtype)
    elif isinstance(x0, str):
        if x0 != "Mb":
            raise ValueError(f"x0 must be an array, None or 'Mb', not {x0!r}")
        x = ops.array(M.matvec(ops.copy(b)), xtype)
    else:
        x0 = ops.vector(x0, "x0")
        if x0.shape not in ((N,), (N, 1)):
            raise ValueError(f"shapes of A {A.shape} and x0 {x0.shape} are incompatible")
        x = ops.array(x0, xtype)
    return A, M, x, b


def get_atol_rtol(name, b_norm, atol=0.0, rtol=1e-5):
    """The absolute tolerance ``max(atol, rtol * ||b||)`` and rtol (SciPy's check of ``atol``)."""
    if atol is None or isinstance(atol, str) or atol < 0:
        raise ValueError(f"'scipy.sparse.linalg.{name}' called with invalid `atol`={atol}; "
                         "if set, `atol` must be a real, non-negative number.")
    return max(float(atol), float(rtol) * float(b_norm)), rtol


def as_vector(ops, v, dtype):
    """A solver vector from an operator's result: 1-D, contiguous, of ``dtype``."""
    if v.dtype != dtype or v.ndim != 1 or not v.flags.c_contiguous:
        return ops.array(v, dtype)
    return v


def _residual(ops, A, x, b):
    """``b - A x``, or a copy of b when x is zero (as SciPy, without a product)."""
    return ops.sub(b, as_vector(ops, A.matvec(x), b.dtype)) if ops.any(x) else ops.copy(b)


# slots of cg's device scalars: rho of even and odd iterations, p.q, and |r|^2 (preconditioned)
_RHO, _PQ, _RR = (0, 1), 2, 3


def cg(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None):
    """Solve ``A x = b`` with the conjugate gradient method (``scipy.sparse.linalg.cg``).

    Parameters
    ----------
    A : sparse array, cupy.ndarray or LinearOperator
        Hermitian positive definite, ``(N, N)``.
    b : cupy.ndarray
        Right-hand side, shape ``(N,)`` or ``(N, 1)``. Host (NumPy) arrays raise ``TypeError``.
    x0 : cupy.ndarray or 'Mb', optional
        Starting guess (default zeros; ``'Mb'``: ``M @ b``).
    rtol, atol : float, optional
        Convergence when ``norm(b - A @ x) < max(rtol * norm(b), atol)`` (the recurrence's
        residual, as SciPy).
    maxiter : int, optional
        Most iterations (default ``10 N``).
    M : sparse array, cupy.ndarray or LinearOperator, optional
        Hermitian positive definite preconditioner approximating ``A^{-1}``.
    callback : callable, optional
        ``callback(xk)`` after each iteration with the current iterate (a device array).

    Returns
    -------
    x : cupy.ndarray
        The solution, shape ``(N,)``.
    info : int
        0 on convergence, else the number of iterations (``maxiter``).

    Notes
    -----
    The step sizes stay on the device: an iteration is the product ``A @ p``, a dot product
    ``p . q`` into a device scalar, one fused kernel for ``x += alpha p``, ``r -= alpha q`` and
    ``|r|^2``, and one for ``p = z + beta p`` (plus ``M @ r`` and ``r . z`` with a
    preconditioner). The convergence test reads ``|r|`` on the host once per iteration, exactly
    where SciPy tests, so iterates and counts are SciPy's; when the tolerance resolves to 0
    (``rtol=0, atol=0``) the test can never pass and no iteration waits for the device.
    """
    ops = _vecops.select()
    A, M, x, b = make_system(A, M, x0, b)
    bnrm2 = ops.norm(b)
    atol, _ = get_atol_rtol("cg", bnrm2, atol, rtol)
    if bnrm2 == 0:
        return b, 0
    n = b.size
    if maxiter is None:
        maxiter = n * 10
    dtype = x.dtype
    matvec, psolve = A.matvec, M.matvec
    identity = isinstance(M, IdentityOperator)
    check = atol > 0  # norm(r) < 0 never holds: the test needs no device value
    r = _residual(ops, A, x, b)
    S = ops.scalars(4, dtype)
    # with M = I, z is r and rho = |r|^2, which the update kernel leaves in the next rho slot
    rr_first = _RHO[0] if identity else _RR
    if check or identity:
        ops.dot_to(r, r, S, rr_first)
    p = None
    for iteration in range(maxiter):
        new, old = _RHO[iteration % 2], _RHO[(iteration + 1) % 2]
        rr = new if identity else _RR
        if check and math.sqrt(abs(ops.value(S, rr))) < atol:
            return x, 0
        if identity:
            z = r
        else:
            z = as_vector(ops, psolve(r), dtype)
            ops.dot_to(r, z, S, new)
        if iteration > 0:
            ops.cg_direction(p, z, S, new, old)
        else:
            p = ops.copy(z)
        q = as_vector(ops, matvec(p), dtype)
        ops.dot_to(p, q, S, _PQ)
        ops.cg_update(x, r, p, q, S, new, _PQ, old if identity else _RR)
        if callback:
            callback(x)
    return x, maxiter


def bicgstab(A, b, x0=None, *, rtol=1e-5, atol=0.0, maxiter=None, M=None, callback=None):
    """Solve ``A x = b`` with BiCGSTAB (``scipy.sparse.linalg.bicgstab``).

    Parameters
    ----------
    A : sparse array, cupy.ndarray or LinearOperator
        ``(N, N)``.
    b : cupy.ndarray
        Right-hand side, ``(N,)`` or ``(N, 1)``.
    x0 : cupy.ndarray or 'Mb', optional
        Starting guess.
    rtol, atol : float, optional
        Convergence when ``norm(r) < max(rtol * norm(b), atol)``.
    maxiter : int, optional
        Most iterations (default ``10 N``).
    M : sparse array, cupy.ndarray or LinearOperator, optional
        Preconditioner approximating ``A^{-1}``.
    callback : callable, optional
        ``callback(xk)`` after each full iteration.

    Returns
    -------
    x : cupy.ndarray
        The solution.
    info : int
        0 converged; ``maxiter`` not converged; -10 breakdown of rho (``|rho| < eps^2``); -11
        breakdown of omega or of ``rtilde . v == 0``.
    """
    ops = _vecops.select()
    A, M, x, b = make_system(A, M, x0, b)
    bnrm2 = ops.norm(b)
    atol, _ = get_atol_rtol("bicgstab", bnrm2, atol, rtol)
    if bnrm2 == 0:
        return b, 0
    n = b.size
    if maxiter is None:
        maxiter = n * 10
    dtype = x.dtype
    matvec, psolve = A.matvec, M.matvec
    rhotol = numpy.finfo(dtype).eps ** 2
    omegatol = rhotol
    rho_prev = omega = alpha = p = v = None
    r = _residual(ops, A, x, b)
    rtilde = ops.copy(r)
    for iteration in range(maxiter):
        if ops.norm(r) < atol:
            return x, 0
        rho = ops.dot(rtilde, r)
        if abs(rho) < rhotol:
            return x, -10
        if iteration > 0:
            if abs(omega) < omegatol:
                return x, -11
            beta = (rho / rho_prev) * (alpha / omega)
            ops.axpy(-omega, v, p)
            ops.scale(beta, p)
            ops.axpy(1, r, p)
        else:
            p = ops.copy(r)
        phat = as_vector(ops, psolve(p), dtype)
        v = as_vector(ops, matvec(phat), dtype)
        rv = ops.dot(rtilde, v)
        if rv == 0:
            return x, -11
        alpha = rho / rv
        ops.axpy(-alpha, v, r)
        s = ops.copy(r)
        if ops.norm(s) < atol:
            ops.axpy(alpha, phat, x)
            return x, 0
        shat = as_vector(ops, psolve(s), dtype)
        t = as_vector(ops, matvec(shat), dtype)
        omega = ops.dot(t, s) / ops.dot(t, t)
        ops.axpy(alpha, phat, x)
        ops.axpy(omega, shat, x)
        ops.axpy(-omega, t, r)
        rho_prev = rho
        if callback:
            callback(x)
    return x, maxiter


def lartg(f, g):
    """A plane rotation ``(c, s, r)`` with ``[c s; -conj(s) c] [f; g] = [r; 0]``, c real
    (LAPACK's ``lartg`` convention: r has the sign (phase) of f)."""
    if g == 0:
        return 1.0, 0.0 * g, f
    if f == 0:
        return 0.0, numpy.conj(g) / abs(g), abs(g)
    d = math.hypot(abs(f), abs(g))
    phase = f / abs(f)
    return abs(f) / d, phase * numpy.conj(g) / d, phase * d


def gmres(A, b, x0=None, *, rtol=1e-5, atol=0.0, restart=None, maxiter=None, M=None, callback=None,
          callback_type=None):
    """Solve ``A x = b`` with restarted GMRES (``scipy.sparse.linalg.gmres``).

    Parameters
    ----------
    A : sparse array, cupy.ndarray or LinearOperator
        ``(N, N)``.
    b : cupy.ndarray
        Right-hand side.
    x0 : cupy.ndarray or 'Mb', optional
        Starting guess.
    rtol, atol : float, optional
        Convergence when ``norm(b - A @ x) <= max(rtol * norm(b), atol)``.
    restart : int, optional
        Krylov dimension between restarts (default 20, at most N).
    maxiter : int, optional
        Most restart cycles (default ``10 N``); with ``callback_type='legacy'``, inner iterations.
    M : sparse array, cupy.ndarray or LinearOperator, optional
        Left preconditioner approximating ``A^{-1}``.
    callback : callable, optional
        Called as selected by ``callback_type``.
    callback_type : {'x', 'pr_norm', 'legacy'}, optional
        ``'x'``: ``callback(xk)`` after each restart cycle; ``'pr_norm'``: ``callback(presid /
        norm(b))`` (preconditioned residual) after each inner iteration; ``'legacy'`` (default,
        as SciPy): like ``'pr_norm'`` and maxiter counts inner iterations.

    Returns
    -------
    x : cupy.ndarray
        The solution.
    info : int
        0 converged, else ``maxiter``.

    Notes
    -----
    Modified Gram-Schmidt on the device (one dot product per basis vector, read on the host);
    the Hessenberg least-squares problem and its Givens rotations are solved on the host.
    """
    if callback is not None and callback_type is None:
        import warnings

        warnings.warn("scipy.sparse.linalg.gmres called without specifying `callback_type`. The default value "
                      "will be changed in a future release. For compatibility, specify a value for "
                      "`callback_type` explicitly, e.g., ``gmres(..., callback_type='pr_norm')``, or to retain "
                      "the old behavior ``gmres(..., callback_type='legacy')``", category=DeprecationWarning,
                      stacklevel=2)
    if callback_type is None:
        callback_type = "legacy"
    if callback_type not in ("x", "pr_norm", "legacy"):
        raise ValueError(f"Unknown callback_type: {callback_type!r}")
    if callback is None:
        callback_type = None
    ops = _vecops.select()
    A, M, x, b = make_system(A, M, x0, b)
    matvec, psolve = A.matvec, M.matvec
    n = b.size
    bnrm2 = ops.norm(b)
    atol, _ = get_atol_rtol("gmres", bnrm2, atol, rtol)
    if bnrm2 == 0:
        return b, 0
    dtype = x.dtype
    eps = numpy.finfo(dtype).eps
    if maxiter is None:
        maxiter = n * 10
    restart = min(20 if restart is None else restart, n)
    Mb_nrm2 = ops.norm(as_vector(ops, psolve(b), dtype))
    # tolerance of the inner iteration on the preconditioned residual, adapted per cycle (gh-8400)
    ptol_max_factor = 1.0
    ptol = Mb_nrm2 * min(ptol_max_factor, atol / bnrm2)
    presid = 0.0
    V = ops.empty((restart + 1, n), dtype)
    w = ops.empty(n, dtype)
    h = numpy.zeros((restart, restart + 1), dtype=dtype)
    givens = numpy.zeros((restart, 2), dtype=dtype)
    inner_iter = 0
    rnorm = None
    r = None
    for iteration in range(maxiter):
        if iteration == 0:
            r = _residual(ops, A, x, b)
            if ops.norm(r) < atol:
                return x, 0
        v0 = V[0]
        ops.assign(v0, as_vector(ops, psolve(r), dtype))
        tmp = ops.norm(v0)
        ops.scale(1 / tmp, v0)
        S = numpy.zeros(restart + 1, dtype=dtype)
        S[0] = tmp
        breakdown = False
        for col in range(restart):
            # w gets its own buffer: an identity operator or preconditioner returns its argument
            ops.assign(w, as_vector(ops, psolve(as_vector(ops, matvec(V[col]), dtype)), dtype))
            h0 = ops.norm(w)
            for k in range(col + 1):
                tmp = ops.dot(V[k], w)
                h[col, k] = tmp
                ops.axpy(-tmp, V[k], w)
            h1 = ops.norm(w)
            h[col, col + 1] = h1
            ops.assign(V[col + 1], w)
            if h1 <= eps * h0:
                h[col, col + 1] = 0
                breakdown = True
            else:
                ops.scale(1 / h1, V[col + 1])
            for k in range(col):
                c, s = givens[k, 0], givens[k, 1]
                n0, n1 = h[col, k], h[col, k + 1]
                h[col, k], h[col, k + 1] = c * n0 + s * n1, -numpy.conj(s) * n0 + c * n1
            c, s, mag = lartg(h[col, col], h[col, col + 1])
            givens[col, 0], givens[col, 1] = c, s
            h[col, col], h[col, col + 1] = mag, 0
            tmp = -numpy.conj(s) * S[col]
            S[col], S[col + 1] = c * S[col], tmp
            presid = abs(tmp)
            inner_iter += 1
            if callback_type in ("legacy", "pr_norm"):
                callback(presid / bnrm2)
            if callback_type == "legacy" and inner_iter == maxiter:
                break
            if presid <= ptol or breakdown:
                break
        if h[col, col] == 0:
            S[col] = 0
        y = numpy.zeros(col + 1, dtype=dtype)
        y[:] = S[:col + 1]
        for k in range(col, 0, -1):
            if y[k] != 0:
                y[k] /= h[k, k]
                y[:k] -= y[k] * h[k, :k]
        if y[0] != 0:
            y[0] /= h[0, 0]
        ops.gemv_n(V, col + 1, y, x, 1)
        r = ops.sub(b, as_vector(ops, matvec(x), dtype))
        rnorm = ops.norm(r)
        if callback_type == "legacy" and inner_iter == maxiter:
            return x, 0 if rnorm <= atol else maxiter
        if callback_type == "x":
            callback(x)
        if rnorm <= atol:
            break
        elif breakdown:
            break
        elif presid <= ptol:
            ptol_max_factor = max(eps, 0.25 * ptol_max_factor)
        else:
            ptol_max_factor = min(1.0, 1.5 * ptol_max_factor)
        ptol = presid * min(ptol_max_factor, atol / rnorm)
    info = 0 if (rnorm is not None and rnorm <= atol) else maxiter
    return x, info
