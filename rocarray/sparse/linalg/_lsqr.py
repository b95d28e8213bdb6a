"""``lsqr``: least squares by Golub-Kahan bidiagonalization (Paige and Saunders, ACM TOMS 8, 1982),
SciPy's iteration, stopping rules and return tuple."""

import math

import numpy

from rocarray.sparse.linalg import _vecops
from rocarray.sparse.linalg._interface import aslinearoperator
from rocarray.sparse.linalg._isolve import as_vector

_EPS = float(numpy.finfo(numpy.float64).eps)


def sym_ortho(a, b):
    """A stable Givens rotation ``(c, s, r)`` with ``[c s; -s c] [a; b] = [r; 0]`` (real a, b)."""
    if b == 0:
        return float(numpy.sign(a)), 0.0, abs(a)
    if a == 0:
        return 0.0, float(numpy.sign(b)), abs(b)
    if abs(b) > abs(a):
        tau = a / b
        s = math.copysign(1.0, b) / math.sqrt(1 + tau * tau)
        return s * tau, s, b / s
    tau = b / a
    c = math.copysign(1.0, a) / math.sqrt(1 + tau * tau)
    return c, c * tau, a / c


def lsqr(A, b, damp=0.0, atol=1e-6, btol=1e-6, conlim=1e8, iter_lim=None, show=False, calc_var=False, x0=None):
    """Least-squares solution of ``A x = b`` (or of the damped problem) (``scipy.sparse.linalg.lsqr``).

    Parameters
    ----------
    A : sparse array, cupy.ndarray or LinearOperator
        ``(M, N)``; needs ``A @ x`` and ``A^H @ y``.
    b : cupy.ndarray
        Right-hand side, ``(M,)`` or ``(M, 1)``.
    damp : float, optional
        Damping: minimize ``||A x - b||^2 + damp^2 ||x - x0||^2``.
    atol, btol : float, optional
        Stopping tolerances (SciPy's tests 1 and 2).
    conlim : float, optional
        Stop when the condition estimate exceeds it.
    iter_lim : int, optional
        Most iterations (default ``2 N``).
    show : bool, optional
        Accepted for SciPy compatibility; nothing is printed.
    calc_var : bool, optional
        Estimate the diagonal of ``(A^H A + damp^2 I)^{-1}``.
    x0 : cupy.ndarray, optional
        Starting guess.

    Returns
    -------
    x : cupy.ndarray
        The solution, ``(N,)``.
    istop : int
        SciPy's reason for stopping (0 .. 7).
    itn : int
        Iterations done.
    r1norm, r2norm, anorm, acond, arnorm, xnorm : float
        SciPy's residual, norm and condition estimates.
    var : cupy.ndarray
        The variance estimate (zeros unless ``calc_var``), float64 ``(N,)``.
    """
    ops = _vecops.select()
    A = aslinearoperator(A)
    b = ops.vector(b, "b")
    if b.ndim > 1:
        b = b.squeeze()
    b = b.reshape(-1) if b.ndim == 0 else b
    m, n = A.shape
    if iter_lim is None:
        iter_lim = 2 * n
    dtype = numpy.result_type(A.dtype if A.dtype is not None else numpy.float64, b.dtype)
    if dtype.char not in "fdFD":
        dtype = numpy.dtype(numpy.float64)
    var = ops.zeros(n, numpy.float64)
    itn = istop = 0
    ctol = 1 / conlim if conlim > 0 else 0
    anorm = acond = 0.0
    dampsq = damp ** 2
    ddnorm = res2 = xnorm = xxnorm = z = 0.0
    cs2, sn2 = -1.0, 0.0
    u = ops.array(b, dtype)
    bnorm = ops.norm(u)
    if x0 is None:
        x = ops.zeros(n, dtype)
        beta = bnorm
    else:
        x = ops.array(ops.vector(x0, "x0"), dtype)
        u = ops.sub(u, as_vector(ops, A.matvec(x), dtype))
        beta = ops.norm(u)
    if beta > 0:
        ops.scale(1 / beta, u)
        v = ops.copy(as_vector(ops, A.rmatvec(u), dtype))
        alfa = ops.norm(v)
    else:
        v = ops.copy(x)
        alfa = 0.0
    if alfa > 0:
        ops.scale(1 / alfa, v)
    w = ops.copy(v)
    rhobar, phibar = alfa, beta
    rnorm = r1norm = r2norm = beta
    arnorm = alfa * beta
    if arnorm == 0:
        return x, istop, itn, r1norm, r2norm, anorm, acond, arnorm, xnorm, var
    while itn < iter_lim:
        itn += 1
        # next step of the bidiagonalization: beta u = A v - alfa u, alfa v = A^H u - beta v
        t = ops.copy(as_vector(ops, A.matvec(v), dtype))
        ops.axpy(-alfa, u, t)
        u = t
        beta = ops.norm(u)
        if beta > 0:
            ops.scale(1 / beta, u)
            anorm = math.sqrt(anorm ** 2 + alfa ** 2 + beta ** 2 + dampsq)
            t = ops.copy(as_vector(ops, A.rmatvec(u), dtype))
            ops.axpy(-beta, v, t)
            v = t
            alfa = ops.norm(v)
            if alfa > 0:
                ops.scale(1 / alfa, v)
        if damp > 0:
            rhobar1 = math.sqrt(rhobar ** 2 + dampsq)
            cs1, sn1 = rhobar / rhobar1, damp / rhobar1
            psi = sn1 * phibar
            phibar = cs1 * phibar
        else:
            rhobar1, psi = rhobar, 0.0
        cs, sn, rho = sym_ortho(rhobar1, beta)
        theta = sn * alfa
        rhobar = -cs * alfa
        phi = cs * phibar
        phibar = sn * phibar
        tau = sn * phi
        t1, t2 = phi / rho, -theta / rho
        ddnorm += (ops.norm(w) / abs(rho)) ** 2
        if calc_var:
            ops.add_abs2(var, w, 1 / rho)
        ops.axpy(t1, w, x)
        ops.scale(t2, w)
        ops.axpy(1, v, w)
        # a rotation on the right estimates norm(x)
        delta = sn2 * rho
        gambar = -cs2 * rho
        rhs = phi - delta * z
        zbar = rhs / gambar
        xnorm = math.sqrt(xxnorm + zbar ** 2)
        gamma = math.sqrt(gambar ** 2 + theta ** 2)
        cs2, sn2 = gambar / gamma, theta / gamma
        z = rhs / gamma
        xxnorm += z ** 2
        acond = anorm * math.sqrt(ddnorm)
        res1 = phibar ** 2
        res2 += psi ** 2
        rnorm = math.sqrt(res1 + res2)
        arnorm = alfa * abs(tau)
        if damp > 0:
            r1sq = rnorm ** 2 - dampsq * xxnorm
            r1norm = math.copysign(math.sqrt(abs(r1sq)), r1sq) if r1sq < 0 else math.sqrt(r1sq)
        else:
            r1norm = rnorm
        r2norm = rnorm
        test1 = rnorm / bnorm
        test2 = arnorm / (anorm * rnorm + _EPS)
        test3 = 1 / (acond + _EPS)
        t1 = test1 / (1 + anorm * xnorm / bnorm)
        rtol = btol + atol * anorm * xnorm / bnorm
        if itn >= iter_lim:
            istop = 7
        if 1 + test3 <= 1:
            istop = 6
        if 1 + test2 <= 1:
            istop = 5
        if 1 + t1 <= 1:
            istop = 4
        if test3 <= ctol:
            istop = 3
        if test2 <= atol:
            istop = 2
        if test1 <= rtol:
            istop = 1
        if istop != 0:
            break
    return x, istop, itn, r1norm, r2norm, anorm, acond, arnorm, xnorm, var
