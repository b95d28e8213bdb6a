"""NumPy stand-ins for the device interface of the QR drivers (:mod:`rocarray.rocsolver._qr_kernels`).

Each stand-in does on host buffers (flat NumPy arrays, column-major, batches ``stride`` apart)
what its kernel or rocblas call does on the device; ``geqr2`` follows the kernel's algorithm
(LAPACK xGEQR2 with xLARFG). :func:`install` swaps them in with ``monkeypatch`` and returns the
list of calls made, so the tests prove the blocked drivers' logic without a GPU.
"""

import numpy as np

from rocarray.rocsolver import _qr_kernels


def mat(X, rows, cols, ld):
    """The writable rows x cols column-major view of the flat buffer X."""
    isz = X.dtype.itemsize
    if rows == 0 or cols == 0:
        return np.zeros((rows, cols), X.dtype)
    assert (cols - 1) * ld + rows <= X.size
    return np.lib.stride_tricks.as_strided(X, shape=(rows, cols), strides=(isz, ld * isz))


def _larfg(alpha, x):
    """LAPACK xLARFG without rescaling: (beta, tau, v) with v = x / (alpha - beta)."""
    ssq = float(np.sum(np.abs(x) ** 2))
    if ssq == 0 and np.imag(alpha) == 0:
        return alpha, 0.0, x
    norm = np.sqrt(abs(alpha) ** 2 + ssq)
    beta = -norm if np.real(alpha) >= 0 else norm
    tau = (beta - np.real(alpha)) / beta - 1j * np.imag(alpha) / beta if np.iscomplexobj(x) else (beta - alpha) / beta
    return beta, tau, x / (alpha - beta)


def geqr2(m, n, A, lda, stride_a, tau, stride_p, batch):
    for b in range(batch):
        a = mat(A[b * stride_a:], m, n, lda)
        for k in range(min(m, n)):
            beta, t, v = _larfg(a[k, k], a[k + 1:, k].copy())
            tau[b * stride_p + k] = t
            if t == 0:
                continue
            a[k, k] = beta
            a[k + 1:, k] = v
            vv = np.concatenate([[1], v]).astype(A.dtype)
            w = vv.conj() @ a[k:, k + 1:]
            a[k:, k + 1:] -= np.conj(t) * np.outer(vv, w)


def copy_v(rows, cols, A, lda, stride_a, V, ldv, stride_v, batch):
    for b in range(batch):
        a = mat(A[b * stride_a:], rows, cols, lda)
        v = np.tril(a, -1)
        v[np.arange(cols), np.arange(cols)] = 1
        mat(V[b * stride_v:], rows, cols, ldv)[...] = v


def set_identity(rows, cols, d, A, lda, stride_a, batch):
    for b in range(batch):
        mat(A[b * stride_a:], rows, cols, lda)[...] = np.eye(rows, cols, -d)


def conj_transpose(rows, cols, X, ldx, Y, ldy):
    mat(Y, cols, rows, ldy)[...] = mat(X, rows, cols, ldx).conj().T


def larft(k, S, lds, stride_s, tau, stride_p, T, ldt, stride_t, batch):
    for b in range(batch):
        s = mat(S[b * stride_s:], k, k, lds)
        t = np.zeros((k, k), S.dtype)
        for i in range(k):
            ti = tau[b * stride_p + i]
            t[i, i] = ti
            t[:i, i] = -ti * (t[:i, :i] @ s[:i, i])
        mat(T[b * stride_t:], k, k, ldt)[...] = t


def diag_info(n, A, lda, stride_a, info, batch):
    for b in range(batch):
        d = np.diagonal(mat(A[b * stride_a:], n, n, lda)) if n else np.zeros(0)
        zeros = np.flatnonzero(d == 0)
        info[b] = zeros[0] + 1 if zeros.size else 0


def _op(x, t):
    return x if t == "N" else (x.T if t == "T" else x.conj().T)


def gemm(transA, transB, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch):
    ar, ac = (m, k) if transA == "N" else (k, m)
    br, bc = (k, n) if transB == "N" else (n, k)
    for b in range(batch):
        c = mat(C[b * stride_c:], m, n, ldc)
        prod = _op(mat(A[b * stride_a:], ar, ac, lda), transA) @ _op(mat(B[b * stride_b:], br, bc, ldb), transB)
        c[...] = alpha * prod + (beta * c if beta != 0 else 0)


def trsm(side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb):
    assert side == "L" and uplo == "U" and diag == "N"
    a = np.triu(mat(A, m, m, lda))
    b = mat(B, m, n, ldb)
    t = _op(a, transA)  # upper for 'N', lower otherwise
    x = alpha * b.copy()
    order = range(m - 1, -1, -1) if transA == "N" else range(m)
    with np.errstate(all="ignore"):  # a zero diagonal gives inf/NaN, as the BLAS does
        for i in order:
            others = [j for j in range(m) if j != i and t[i, j] != 0]
            x[i] = (x[i] - t[i, others] @ x[others]) / t[i, i]
    b[...] = x


def empty(elements, dtype, like):
    return np.full(max(int(elements), 1), np.nan, dtype)


def geqr2_grid(m, n, A, lda, tau, blocks=None):
    """The device-wide leaf declines (no cooperative launch here): the drivers fall back to geqr2."""
    return None


#: Whether the cluster-leaf stand-in takes leaves (a test sets it); by default it declines, as on a
#: device without thread-block clusters.
CLUSTER = False


def geqr2_cluster(m, n, A, lda, tau, force=False, T=None):
    """The cluster leaf (with :data:`CLUSTER`): geqr2's algorithm, and with ``T`` the leaf's T
    (xLARFT from S = V^H V, leading dimension n); declines without it, or for T with m < n."""
    if not CLUSTER or (T is not None and m < n):
        return False
    geqr2(m, n, A, lda, 0, tau, 0, 1)
    if T is not None:
        v = np.tril(mat(A, m, n, lda), -1) + np.eye(m, n)
        s = np.ascontiguousarray((v.conj().T @ v).T).reshape(-1)  # column-major n x n
        larft(n, s, n, 0, tau, 0, T, n, 0, 1)
    return True


def check_grid_barrier(sync):
    """Never called: no device-wide leaf runs on the stand-ins."""
    raise AssertionError("no device-wide leaf ran, so there is no barrier to check")


NAMES = ("geqr2", "geqr2_grid", "geqr2_cluster", "check_grid_barrier", "copy_v", "set_identity", "conj_transpose", "larft", "diag_info", "gemm", "trsm", "empty")


def install(monkeypatch):
    """Replace the device interface by these stand-ins; returns the list of (name, args) calls."""
    calls = []
    for name in NAMES:
        fn = globals()[name]

        def recorded(*args, _fn=fn, _name=name, **kwargs):
            calls.append((_name, args + tuple(kwargs.values())))
            return _fn(*args, **kwargs)

        monkeypatch.setattr(_qr_kernels, name, recorded)
    return calls
