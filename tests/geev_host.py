"""Host stand-ins for the geev tests: NumPy versions of rocsolver geev's three kernels (the
kernels' formulas) and of the rocblas calls it makes, on flat column-major host buffers, and the
error measures of an eigendecomposition."""

import numpy as np
from numpy.lib.stride_tricks import as_strided

from rocarray.rocsolver import _geev

DTYPES = ["float32", "float64", "complex64", "complex128"]
EPS = {np.dtype(d): np.finfo(d).eps for d in DTYPES}


# --------------------------------------------------------------------------------------------
def _mat(a, rows, cols, ld):
    return as_strided(a, (rows, cols), (a.itemsize, ld * a.itemsize))


def host_larfg(alpha, x, m, tau, v, u):
    """The kernel's formula: scaled norm, beta = -sign(re alpha) norm, Smith's reciprocal."""
    a = alpha[0]
    xs = x[:m].copy()
    big = max(np.abs(xs.real).max(initial=0), np.abs(xs.imag).max(initial=0))
    ssq = np.sum(np.abs(xs / big) ** 2) if big > 0 else 0.0
    identity = not big > 0 and a.imag == 0
    if identity:
        t, scale = 0, 1
    else:
        s = max(big, abs(a.real), abs(a.imag))
        norm = s * np.sqrt((a.real / s) ** 2 + (a.imag / s) ** 2 + (big / s) ** 2 * ssq)
        beta = norm if a.real < 0 else -norm
        t = complex((beta - a.real) / beta, -a.imag / beta)
        dr, di = a.real - beta, a.imag
        r = di / dr
        den = dr + di * r
        scale = complex(1 / den, -r / den)
        alpha[0] = beta
        xs = xs * scale
        x[:m] = xs.real if x.dtype.kind == "f" else xs
    tau[0] = t.real if tau.dtype.kind == "f" else t
    v[0] = 1
    v[1:m + 1] = x[:m]
    u[:m + 1] = np.conj(tau[0]) * v[:m + 1]


def host_reflector(x, m, tau, v, u):
    v[0] = 1
    v[1:m + 1] = x[:m]
    u[:m + 1] = tau[0] * v[:m + 1]


def host_normalize(X, ldx, kinds, n, ncols, V, ldv):
    """The kernel's formula (first largest-modulus component; a real pair's sign rule)."""
    Xm, Vm = _mat(X, n, ncols, ldx), _mat(V, n, ncols, ldv)
    for j in range(ncols):
        if kinds[j] == 2:
            continue
        pair = kinds[j] == 1
        z = Xm[:, j] + 1j * Xm[:, j + 1] if pair else Xm[:, j].astype(V.dtype)
        mag2 = np.abs(z) ** 2
        k = int(np.argmax(mag2))
        nrm = np.sqrt(mag2.sum())
        f = 1 / nrm if nrm > 0 else 1
        if (X.dtype.kind == "c" or pair) and mag2[k] > 0:
            f = f * np.conj(z[k]) / np.sqrt(mag2[k]) * (-1 if pair and z[k].real < 0 else 1)
        y = z * f
        y[k] = y[k].real
        Vm[:, j] = y
        if pair:
            Vm[:, j + 1] = np.conj(y)


def host_gemv(trans, m, n, alpha, A, lda, x, incx, beta, y, incy):
    if m == 0 or n == 0:
        return
    M = _mat(A, m, n, lda)
    op = M if trans == "N" else M.conj().T
    y[:op.shape[0]] = alpha * (op @ x[:op.shape[1]]) + (beta * y[:op.shape[0]] if beta else 0)


def host_ger(conj):
    def ger(m, n, alpha, x, incx, y, incy, A, lda):
        if m == 0 or n == 0:
            return
        M = _mat(A, m, n, lda)
        M += alpha * np.outer(x[:m], np.conj(y[:n]) if conj else y[:n])
    return ger


def host_gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    Cm = _mat(C, m, n, ldc)
    Cm[:, :] = alpha * (_mat(A, m, k, lda) @ _mat(B, k, n, ldb)) + (beta * Cm if beta else 0)


def use_host_standins(monkeypatch):
    """Run _geev's orchestration on host arrays (for a test's ``on_host`` fixture)."""
    monkeypatch.setattr(_geev._kernels, "larfg", host_larfg)
    monkeypatch.setattr(_geev._kernels, "reflector", host_reflector)
    monkeypatch.setattr(_geev._kernels, "normalize", host_normalize)
    monkeypatch.setattr(_geev.rocblas, "gemv", host_gemv)
    monkeypatch.setattr(_geev.rocblas, "ger", host_ger(False))
    monkeypatch.setattr(_geev.rocblas, "gerc", host_ger(True))
    monkeypatch.setattr(_geev.rocblas, "gemm", host_gemm)
    monkeypatch.setattr(_geev, "_xp", lambda: np)
    monkeypatch.setattr(_geev, "_to_host", lambda x: np.array(x))
    monkeypatch.setattr(_geev, "_to_device", lambda x: np.array(x))
    monkeypatch.setattr(_geev, "_vectors", lambda n, dtype, dev: tuple(np.full(n + 1, np.nan, dtype) for _ in range(3)))


def padded(A, lda):
    """A's column-major flat buffer with leading dimension lda (NaN padding), length (n-1)*lda+n."""
    n = A.shape[0]
    flat = np.full(max(n * lda, 1), np.nan, A.dtype)
    _mat(flat, n, n, lda)[:, :] = A
    return flat[:(n - 1) * lda + n] if n else flat[:0]


def wide(dtype):
    return np.complex128 if np.dtype(dtype).kind == "c" else np.float64


def residual(A, V, w):
    """max_j ||A v_j - w_j v_j|| / (||A|| n eps) in float64, vectors of unit norm."""
    n = A.shape[0]
    A64 = A.astype(np.complex128)
    r = np.linalg.norm(A64 @ V - V * w, axis=0).max(initial=0)
    return r / (max(np.linalg.norm(A64, 2), 1e-300) * max(n, 1) * EPS[np.dtype(A.dtype)])


def sort_key(w):
    """A stable multiset order for eigenvalues: rounded real part, then imaginary part."""
    w = np.asarray(w, np.complex128)
    scale = max(np.abs(w).max(initial=0), 1)
    return np.lexsort((np.round(w.imag / scale, 6), np.round(w.real / scale, 6)))


def assert_same_eigenvalues(w, ref, dtype):
    w, ref = np.asarray(w, np.complex128), np.asarray(ref, np.complex128)
    assert w.shape == ref.shape
    scale = max(np.abs(ref).max(initial=0), 1)
    tol = 1e3 * EPS[np.dtype(dtype)] * len(ref) * scale
    # greedy matching: robust to near-ties that a sort could order differently
    left = list(ref)
    for x in w[sort_key(w)]:
        i = int(np.argmin([abs(x - y) for y in left]))
        assert abs(x - left[i]) <= max(tol, 1e-4 * scale if np.dtype(dtype) in (np.float32, np.complex64) else tol), \
            (x, left[i])
        left.pop(i)
