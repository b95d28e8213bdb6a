"""Host stand-ins for the eigensolvers' device pieces, for CPU tests of the drivers' logic.

* :func:`install` replaces the rocblas functions the drivers call and the two one-block kernels
  (``larfg``, ``latrd_w``) with NumPy versions on flat host buffers and selects the reduction's
  per-column path, so
  :func:`rocarray.rocsolver._sytrd.reduce` and :func:`rocarray.rocsolver._eigh.solve` run on the
  CPU unchanged (their array glue follows the array given).
* :func:`jacobi_model` is the one-block Jacobi kernel's algorithm step by step (tournament,
  rotation formulas, exact 2 x 2 blocks, convergence test, ranking) in NumPy, to test the
  mathematics the kernel implements.
"""

import types

import numpy as np

from rocarray.rocsolver import _eigh, _eigh_kernels, _sytrd


def _mat(buf, rows, cols, ld):
    return _eigh_kernels.view(buf, 0, rows, cols, ld)


def _op(a, trans):
    return a if trans == "N" else (a.T if trans == "T" else a.conj().T)


def gemm(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    if m == 0 or n == 0:
        return
    Cv = _mat(C, m, n, ldc)
    a = _op(_mat(A, *((m, k) if transA == "N" else (k, m)), lda), transA)
    b = _op(_mat(B, *((k, n) if transB == "N" else (n, k)), ldb), transB)
    prod = alpha * (a @ b)
    Cv[...] = prod if beta == 0 else prod + beta * Cv


def gemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy):
    assert incx == 1 and incy == 1
    a = _op(_mat(A, m, n, lda), trans)
    rows, cols = a.shape
    prod = alpha * (a @ x[:cols])
    y[:rows] = prod if beta == 0 else prod + beta * y[:rows]


def _mv(herm):
    def mv(uplo, n, alpha, A, lda, x, incx, beta, y, incy):
        assert uplo == "L" and incx == 1 and incy == 1
        M = _mat(A, n, n, lda)
        strict = np.tril(M, -1)
        diag = M.diagonal().real if herm else M.diagonal()
        full = strict + (strict.conj().T if herm else strict.T) + np.diag(diag)
        prod = alpha * (full @ x[:n])
        y[:n] = prod if beta == 0 else prod + beta * y[:n]
    return mv


def _r2k(herm):
    def r2k(uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
        assert uplo == "L" and trans == "N"
        a, b = _mat(A, n, k, lda), _mat(B, n, k, ldb)
        if herm:
            upd = alpha * (a @ b.conj().T) + np.conj(alpha) * (b @ a.conj().T)
        else:
            upd = alpha * (a @ b.T + b @ a.T)
        Cv = _mat(C, n, n, ldc)
        new = upd + beta * Cv
        if herm:
            new[np.diag_indices(n)] = new.diagonal().real
        low = np.tril(np.ones((n, n), bool))
        Cv[low] = new[low]
    return r2k


def larfg(dtype, m, v, E, tau, k):
    alpha = v[0]
    x = v[1:m]
    xnorm = np.linalg.norm(x) if m > 1 else 0.0
    ar, ai = alpha.real, alpha.imag
    if xnorm == 0 and ai == 0:
        E[k], tau[k], v[0] = ar, 0, 1
        return
    norm = np.sqrt(ar * ar + ai * ai + xnorm * xnorm)
    beta = -norm if ar >= 0 else norm
    tau[k] = (beta - ar) / beta - 1j * ai / beta if np.iscomplexobj(v) else (beta - ar) / beta
    x *= 1 / (alpha - beta)
    E[k], v[0] = beta, 1


def latrd_w(dtype, m, w, u, tau, k):
    dot = np.vdot(w[:m], u[:m])
    tk = tau[k]
    alpha = -0.5 * (tk * (np.conj(tk) * dot))
    w[:m] = tk * w[:m] + alpha * u[:m]


def install(monkeypatch):
    """Route the drivers' rocblas calls and kernels to the NumPy stand-ins (the reduction's
    per-column path, the one these stand-ins serve)."""
    monkeypatch.setattr(_sytrd, "FUSED_PANEL", False)
    blas = types.SimpleNamespace(gemm=gemm, gemv=gemv, symv=_mv(False), hemv=_mv(True), syr2k=_r2k(False),
                                 her2k=_r2k(True))
    monkeypatch.setattr(_sytrd, "rocblas", blas)
    monkeypatch.setattr(_eigh, "rocblas", blas)
    monkeypatch.setattr(_eigh_kernels, "larfg", larfg)
    monkeypatch.setattr(_eigh_kernels, "latrd_w", latrd_w)


# --------------------------------------------------------------------------------------------
# the one-block Jacobi kernel's algorithm
# --------------------------------------------------------------------------------------------

def pair(r, k, m):
    """``ra_eig_pair``: pair k of round r of the circle tournament on m players."""
    c = m - 1
    if k == 0:
        a, b = 0, 1 + r % c
    else:
        a, b = 1 + (r + k) % c, 1 + (r - k + c) % c
    return min(a, b), max(a, b)


def rotation(a, d, beta):
    """(c, s, new a, new d) of the kernel's step 1 for the block [[a, beta], [conj(beta), d]]."""
    bm = abs(beta)
    if bm == 0:
        return 1.0, 0 * beta, a, d
    tau = (d - a) / (2 * bm)
    sgn = 1.0 if tau >= 0 else -1.0
    at = abs(tau)
    if at > 1:
        inv = 1 / at
        t = sgn / (at * (1 + np.sqrt(1 + inv * inv)))
    else:
        t = sgn / (at + np.sqrt(1 + at * at))
    c = 1 / np.sqrt(1 + t * t)
    return c, (t * c / bm) * beta, a - t * bm, d + t * bm


def before(wj, j, wi, i):
    """``ra_eig_before``: j sorts before i (ascending, NaN last, ties by index)."""
    nj, ni = np.isnan(wj), np.isnan(wi)
    if nj != ni:
        return ni
    if wj < wi:
        return True
    if wi < wj:
        return False
    return j < i


def jacobi_model(A, abstol=0.0, max_sweeps=100, eps=np.finfo(np.float64).eps):
    """The kernel on the full Hermitian matrix A (host): (W ascending, V, info, off, sweeps)."""
    A = np.array(A, dtype=np.complex128 if np.iscomplexobj(A) else np.float64)
    n = A.shape[0]
    A[np.diag_indices(n)] = A.diagonal().real
    V = np.eye(n, dtype=A.dtype)
    m = n + (n & 1)
    frob = np.sqrt(np.sum(np.abs(A) ** 2))

    def offnorm():
        return np.sqrt(np.sum(np.abs(A - np.diag(A.diagonal())) ** 2))

    off = offnorm()
    tol = abstol if abstol > 0 else eps * frob
    finite = np.isfinite(frob * frob)
    sweeps = 0
    while not (finite and off <= tol) and sweeps < max_sweeps:
        for r in range(m - 1):
            rots = []
            for k in range(m // 2):
                p, q = pair(r, k, m)
                if q < n:
                    rots.append((p, q) + rotation(A[p, p].real, A[q, q].real, A[p, q]))
            for p, q, c, s, _, _ in rots:
                for X in (A, V):
                    xp, xq = X[:, p].copy(), X[:, q].copy()
                    X[:, p] = c * xp - np.conj(s) * xq
                    X[:, q] = s * xp + c * xq
            for p, q, c, s, _, _ in rots:
                ap, aq = A[p, :].copy(), A[q, :].copy()
                A[p, :] = c * ap - s * aq
                A[q, :] = np.conj(s) * ap + c * aq
            for p, q, _, _, newp, newq in rots:
                A[p, p], A[q, q], A[p, q], A[q, p] = newp, newq, 0, 0
        sweeps += 1
        off = offnorm()
    w = A.diagonal().real.copy()
    rank = [sum(before(w[j], j, w[i], i) for j in range(n)) for i in range(n)]
    W = np.empty(n)
    Vs = np.empty_like(V)
    for i in range(n):
        W[rank[i]] = w[i]
        Vs[:, rank[i]] = V[:, i]
    return W, Vs, int(not (finite and off <= tol)), off, sweeps
