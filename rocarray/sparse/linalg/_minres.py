"""``minres``: MINRES for symmetric (Hermitian) systems, SciPy's iteration and stopping tests."""

import math

import numpy

from rocarray.sparse.linalg import _vecops
from rocarray.sparse.linalg._isolve import as_vector, make_system


def _fresh(ops, v, dtype):
    """A solver-owned copy of an operator's result (an identity operator returns its argument)."""
    v = as_vector(ops, v, dtype)
    return ops.copy(v)


def _check_symmetric(ops, matvec, psolve, r1, y, eps, dtype):
    w = _fresh(ops, matvec(y), dtype)
    r2 = as_vector(ops, matvec(w), dtype)
    s, t = ops.dot(w, w).real, ops.dot(y, r2).real
    if abs(s - t) > (s + eps) * eps ** (1.0 / 3.0):
        raise ValueError("non-symmetric matrix")
    r2 = as_vector(ops, psolve(y), dtype)
    s, t = ops.dot(y, y).real, ops.dot(r1, r2).real
    if abs(s - t) > (s + eps) * eps ** (1.0 / 3.0):
        raise ValueError("non-symmetric preconditioner")


def minres(A, b, x0=None, *, rtol=1e-5, shift=0.0, maxiter=None, M=None, callback=None, show=False, check=False):
    """Solve ``(A - shift I) x = b`` with MINRES (``scipy.sparse.linalg.minres``).

    Parameters
    ----------
    A : sparse array, cupy.ndarray or LinearOperator
        Real symmetric or complex Hermitian ``(N, N)``.
    b : cupy.ndarray
        Right-hand side, ``(N,)`` or ``(N, 1)``.
    x0 : cupy.ndarray, optional
        Starting guess.
    rtol : float, optional
        Relative tolerance of SciPy's tests ``||r|| / (||A|| ||x||)`` and
        ``||A r|| / (||A|| ||r||)``.
    shift : float, optional
        Solve with ``A - shift I``.
    maxiter : int, optional
        Most iterations (default ``5 N``).
    M : sparse array, cupy.ndarray or LinearOperator, optional
        Symmetric positive definite preconditioner approximating ``A^{-1}``.
    callback : callable, optional
        ``callback(xk)`` after each iteration.
    show : bool, optional
        Accepted for SciPy compatibility; nothing is printed.
    check : bool, optional
        Test that A and M are symmetric first (``ValueError`` otherwise).

    Returns
    -------
    x : cupy.ndarray
        The solution.
    info : int
        0 when a stopping test passed, ``maxiter`` when the iteration limit was reached.

    Raises
    ------
    ValueError
        Indefinite preconditioner, or a non-symmetric A or M detected on the way.

    Notes
    -----
    Inner products are conjugated (``x^H y``); they are real for Hermitian A and M, and the real
    part is used.
    """
    ops = _vecops.select()
    A, M, x, b = make_system(A, M, x0, b)
    matvec, psolve = A.matvec, M.matvec
    n = A.shape[0]
    dtype = x.dtype
    if maxiter is None:
        maxiter = 5 * n
    istop = itn = 0
    eps = float(numpy.finfo(dtype).eps)
    r1 = ops.copy(b) if x0 is None else ops.sub(b, as_vector(ops, matvec(x), dtype))
    y = as_vector(ops, psolve(r1), dtype)
    beta1 = ops.dot(r1, y).real
    if beta1 < 0:
        raise ValueError("indefinite preconditioner")
    elif beta1 == 0:
        return x, 0
    if ops.norm(b) == 0:
        return b, 0
    beta1 = math.sqrt(beta1)
    if check:
        _check_symmetric(ops, matvec, psolve, r1, y, eps, dtype)
    oldb, beta, dbar, epsln = 0.0, beta1, 0.0, 0.0
    phibar, rhs1, rhs2, tnorm2 = beta1, beta1, 0.0, 0.0
    gmax, gmin = 0.0, float(numpy.finfo(dtype).max)
    cs, sn = -1.0, 0.0
    w, w2 = ops.zeros(n, dtype), ops.zeros(n, dtype)
    r2 = r1
    while itn < maxiter:
        itn += 1
        v = ops.copy(y)
        ops.scale(1.0 / beta, v)
        y = _fresh(ops, matvec(v), dtype)
        if shift != 0:
            ops.axpy(-shift, v, y)
        if itn >= 2:
            ops.axpy(-(beta / oldb), r1, y)
        alfa = ops.dot(v, y).real
        ops.axpy(-(alfa / beta), r2, y)
        r1, r2 = r2, y
        y = as_vector(ops, psolve(r2), dtype)
        oldb = beta
        beta = ops.dot(r2, y).real
        if beta < 0:
            raise ValueError("non-symmetric matrix")
        beta = math.sqrt(beta)
        tnorm2 += alfa ** 2 + oldb ** 2 + beta ** 2
        if itn == 1 and beta / beta1 <= 10 * eps:
            istop = -1
        # previous rotation, then the next one (Paige and Saunders, SIAM J. Numer. Anal. 12, 1975)
        oldeps = epsln
        delta = cs * dbar + sn * alfa
        gbar = sn * dbar - cs * alfa
        epsln = sn * beta
        dbar = -cs * beta
        root = math.hypot(gbar, dbar)
        gamma = max(math.hypot(gbar, beta), eps)
        cs, sn = gbar / gamma, beta / gamma
        phi = cs * phibar
        phibar = sn * phibar
        w1, w2 = w2, w
        w = ops.copy(v)
        ops.axpy(-oldeps, w1, w)
        ops.axpy(-delta, w2, w)
        ops.scale(1.0 / gamma, w)
        ops.axpy(phi, w, x)
        gmax, gmin = max(gmax, gamma), min(gmin, gamma)
        z = rhs1 / gamma
        rhs1 = rhs2 - delta * z
        rhs2 = -epsln * z
        Anorm = math.sqrt(tnorm2)
        ynorm = ops.norm(x)
        epsx = Anorm * ynorm * eps
        rnorm = phibar
        test1 = math.inf if (ynorm == 0 or Anorm == 0) else rnorm / (Anorm * ynorm)
        test2 = math.inf if Anorm == 0 else root / Anorm
        Acond = gmax / gmin
        if istop == 0:
            if 1 + test2 <= 1:
                istop = 2
            if 1 + test1 <= 1:
                istop = 1
            if itn >= maxiter:
                istop = 6
            if Acond >= 0.1 / eps:
                istop = 4
            if epsx >= beta1:
                istop = 3
            if test2 <= rtol:
                istop = 2
            if test1 <= rtol:
                istop = 1
        if callback is not None:
            callback(x)
        if istop != 0:
            break
    return x, (maxiter if istop == 6 else 0)
