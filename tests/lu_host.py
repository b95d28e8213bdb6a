"""CPU stand-ins for the LU drivers' kernels and rocblas calls (tests/rocsolver, tests/linalg).

``install(monkeypatch)`` replaces the functions of :mod:`rocarray.rocsolver._lu_kernels`, the
launches of :mod:`rocarray.rocsolver._lu_block` and ``rocblas.trsm``/``trsv``/``gemm`` by NumPy implementations of the same contracts that read and
write the host memory behind :func:`hostdev.dev` arrays. The drivers then run unchanged on the
CPU: their views, offsets, leading dimensions, strides and pivot bookkeeping are real, so a
wrong one gives a wrong factorization, caught against SciPy. The stand-in of the one-block LU is
an independent textbook getf2 (first row of largest ``|re| + |im|``). The blocked getrf's
look-ahead (``overlap``) runs its two streams' work one after the other.
"""

import types

import numpy as np
from scipy.linalg import solve_triangular

from hostdev import view

calls = []


def _mat(buf, rows, cols, ld, offset=0):
    v = view(buf)
    assert v.ndim == 1
    assert rows == 0 or cols == 0 or offset + (cols - 1) * ld + rows <= v.size, "out of bounds"
    return np.lib.stride_tricks.as_strided(v[offset:], (rows, cols), (v.itemsize, ld * v.itemsize))


def _abs1(x):
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def getf2_ref(a, offset=0):
    """Unblocked LU of the host matrix view ``a`` in place; returns (pivots 1-based + offset,
    info relative to offset or 0)."""
    m, n = a.shape
    piv, info = [], 0
    for j in range(min(m, n)):
        p = j + int(np.argmax(_abs1(a[j:, j])))
        piv.append(offset + p + 1)
        if p != j:
            a[[j, p], :] = a[[p, j], :]
        if a[j, j] == 0:
            info = info or j + 1
            continue
        a[j + 1:, j] /= a[j, j]
        a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
    return piv, info


def getf2(m, n, A, lda, strideA, ipiv, strideP, info, offset, batch):
    calls.append(("getf2", m, n, lda, offset, batch))
    for b in range(batch):
        a = _mat(A, m, n, lda, b * strideA)
        piv, inf = getf2_ref(a, offset)
        p = view(ipiv)
        p[b * strideP:b * strideP + len(piv)] = piv
        i = view(info)
        if inf and i[b] == 0:
            i[b] = offset + inf


def _square_getrf(name):
    """The stand-in of a square-matrix getrf kernel: getf2's pivots and factors, recorded as ``name``."""
    def getrf(n, A, lda, strideA, ipiv, strideP, info, batch):
        calls.append((name, n, lda, batch))
        for b in range(batch):
            piv, inf = getf2_ref(_mat(A, n, n, lda, b * strideA))
            view(ipiv)[b * strideP:b * strideP + n] = piv
            view(info)[b] = inf
    return getrf


getrf_warp = _square_getrf("getrf_warp")


def gesv_warp(A, B, X, info):
    calls.append(("gesv_warp", A.shape, B.shape[2]))
    A, B, X = (np.asarray(v).view(np.ndarray) for v in (A, B, X))
    for b in range(A.shape[0]):
        lu = A[b].copy()
        piv, inf = getf2_ref(lu)
        view(info)[b] = inf
        x = B[b].copy()
        for j, p in enumerate(piv):
            x[[j, p - 1]] = x[[p - 1, j]]
        with np.errstate(all="ignore"):
            x = solve_triangular(lu, x, lower=True, unit_diagonal=True, check_finite=False)
            x = solve_triangular(lu, x, lower=False, check_finite=False) if not inf else x * np.nan
        X[b] = x


def laswp(n, A, lda, strideA, k1, k2, ipiv, strideP, reverse, batch, gap=(0, 0)):
    calls.append(("laswp", n, k1, k2, reverse, batch))
    if gap[1]:   # the columns before the gap, then those after it
        first = min(gap[0], n)
        _laswp(first, A, lda, strideA, k1, k2, ipiv, strideP, reverse, batch)
        _laswp(n - first, A[(gap[0] + gap[1]) * lda:], lda, strideA, k1, k2, ipiv, strideP, reverse, batch)
    else:
        _laswp(n, A, lda, strideA, k1, k2, ipiv, strideP, reverse, batch)


def getf2_grid(m, n, A, lda, ipiv, info, offset, blocks=None):
    """No device-wide panel here (those have emulated tests of their own): getf2 takes every panel."""
    return None


def laswp_composed(n, A, lda, k1, k2, ipiv, gap=(0, 0)):
    calls.append(("laswp_composed", n, k1, k2))
    laswp(n, A, lda, 0, k1, k2, ipiv, 0, False, 1, gap)
    calls.pop(-1)   # the laswp entry: this call is recorded as laswp_composed


def _laswp(n, A, lda, strideA, k1, k2, ipiv, strideP, reverse, batch):
    if n == 0:
        return
    p = view(ipiv)
    for b in range(batch):
        rows = max([int(p[b * strideP + k]) for k in range(k1, k2)] + [k2])
        a = _mat(A, rows, n, lda, b * strideA)
        for k in (range(k2 - 1, k1 - 1, -1) if reverse else range(k1, k2)):
            q = int(p[b * strideP + k]) - 1
            a[[k, q], :] = a[[q, k], :]


def getrs_small(trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB, batch):
    calls.append(("getrs_small", trans, n, nrhs, batch))
    from scipy.linalg import lu_solve

    for b in range(batch):
        lu = _mat(A, n, n, lda, b * strideA).copy()
        piv = view(ipiv)[b * strideP:b * strideP + n] - 1
        x = _mat(B, n, nrhs, ldb, b * strideB)
        x[...] = lu_solve((lu, piv), x.copy(), trans={"N": 0, "T": 1, "C": 2}[trans])


def getrs_warp(trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB, batch):
    getrs_small(trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB, batch)
    calls[-1] = ("getrs_warp",) + calls[-1][1:]


def diag_zero(n, A, lda, strideA, info, batch):
    calls.append(("diag_zero", n, batch))
    for b in range(batch):
        d = np.diagonal(_mat(A, n, n, lda, b * strideA))
        zero = np.flatnonzero(d == 0)
        view(info)[b] = zero[0] + 1 if zero.size else 0


def clear_info(info, batch):
    view(info)[:batch] = 0


def identities(n, batch, like):
    from hostdev import dev

    x = np.tile(np.eye(n, dtype=like.dtype).reshape(-1), batch)
    return x.view(HostArray) if isinstance(like, HostArray) else dev(x)


def copy_where_ok(n, X, A, lda, strideA, info, batch):
    for b in range(batch):
        if view(info)[b] == 0:
            _mat(A, n, n, lda, b * strideA)[...] = _mat(X, n, n, n, b * n * n)


getrf_block = _square_getrf("getrf_block")


def gesv_block(A, B, X, info):
    """The register-tile solve's contract on (batch, n, n) and (batch, n, nrhs) host stacks."""
    from scipy.linalg import lu_solve

    calls.append(("gesv_block",) + tuple(B.shape))
    for b in range(B.shape[0]):
        lu = np.array(view(A)[b])
        piv, inf = getf2_ref(lu)
        view(info)[b] = inf
        view(X)[b] = np.nan if inf else lu_solve((lu, np.array(piv) - 1), np.array(view(B)[b]))


def inverse_workspace(count, like):
    """Host scratch (NaN, so that a read before a write shows) of ``like``'s dtype."""
    from hostdev import dev

    x = np.full(max(count, 1), np.nan, like.dtype)
    return x.view(HostArray) if isinstance(like, HostArray) else dev(x)


def set_identities(X, nb, count):
    calls.append(("set_identities", nb, count))
    squares = view(X)[:count * nb * nb].reshape(count, nb * nb)
    squares[...] = 0
    squares[:, ::nb + 1] = 1


def unit_lower_inverse(nb, A, lda, W, ldw):
    calls.append(("unit_lower_inverse", nb))
    L = np.tril(_mat(A, nb, nb, lda), -1) + np.eye(nb)
    _mat(W, nb, nb, ldw)[...] = np.linalg.inv(L)


def lacpy(m, n, src, lds, dst, ldd):
    calls.append(("lacpy", m, n, dst.data.ptr))
    if m and n:
        _mat(dst, m, n, ldd)[...] = _mat(src, m, n, lds)


def overlap(first, second, device_id):
    """The look-ahead's two streams in one order: ``first`` then ``second`` (tests that want the
    other order replace this)."""
    calls.append(("overlap",))
    first()
    second()


def trsm(side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb):
    calls.append(("trsm", side, uplo, transA, diag, m, n))
    assert side == "L" and alpha == 1
    a = _mat(A, m, m, lda)
    op = a if transA == "N" else (a.T if transA == "T" else a.conj().T)
    lower = (uplo == "L") == (transA == "N")
    t = np.tril(op) if lower else np.triu(op)
    if diag == "U":
        np.fill_diagonal(t, 1)
    x = _mat(B, m, n, ldb)
    try:
        x[...] = solve_triangular(t, x.copy(), lower=lower)
    except np.linalg.LinAlgError:   # a zero on the diagonal: the device gives inf/NaN
        x[...] = np.nan


def trsv(uplo, transA, diag, n, A, lda, x, incx):
    calls.append(("trsv", uplo, transA, diag, n))
    assert incx == 1
    trsm("L", uplo, transA, diag, n, 1, 1, A, lda, x, n)
    calls.pop()   # the trsm entry: this call is recorded as trsv


def gemm(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    calls.append(("gemm", m, n, k))
    assert transA == transB == "N"
    c = _mat(C, m, n, ldc)
    c[...] = alpha * (_mat(A, m, k, lda) @ _mat(B, k, n, ldb)) + beta * c


def install(monkeypatch):
    """Stand-ins for every kernel and rocblas call of the LU drivers; returns the call log."""
    from rocarray import rocblas
    from rocarray.rocsolver import _lu_block, _lu_kernels

    for name in ("getf2", "getf2_grid", "getrf_warp", "getrs_warp", "gesv_warp", "laswp", "laswp_composed",
                 "getrs_small", "diag_zero", "clear_info", "identities", "copy_where_ok", "inverse_workspace",
                 "set_identities", "lacpy", "overlap", "unit_lower_inverse"):
        monkeypatch.setattr(_lu_kernels, name, globals()[name])
    monkeypatch.setattr(_lu_block, "getrf", getrf_block)
    monkeypatch.setattr(_lu_block, "gesv", gesv_block)
    monkeypatch.setattr(_lu_block, "_fits", lambda n, nrhs, dtype, device_id: True)   # no device to ask
    monkeypatch.setattr(rocblas, "trsm", trsm)
    monkeypatch.setattr(rocblas, "gemm", gemm)
    monkeypatch.setattr(rocblas, "trsv", trsv)
    calls.clear()
    return calls


# --------------------------------------------------------------------------------------------
# the façade on the CPU: NumPy arrays standing in for CuPy's
# --------------------------------------------------------------------------------------------

class HostArray(np.ndarray):
    """A NumPy array standing in for ``cupy.ndarray`` (what the argument checks read: ``data.ptr``
    and ``data.device_id``)."""

    @property
    def data(self):
        return types.SimpleNamespace(ptr=self.__array_interface__["data"][0], device_id=0)


def to_host_array(x):
    """``x`` (array-like) as a :class:`HostArray` (a copy)."""
    return np.array(x).view(HostArray)


def _wrap(value):
    if isinstance(value, np.ndarray) and not isinstance(value, HostArray):
        return value.view(HostArray)
    if isinstance(value, tuple):
        return tuple(_wrap(v) for v in value)
    return value


class NumpyCupy:
    """``backend.cupy()`` for the façade's CPU tests: NumPy's functions, results as :class:`HostArray`."""

    ndarray = HostArray
    lib = np.lib

    @staticmethod
    def asnumpy(x):
        return np.array(x).view(np.ndarray)

    def __getattr__(self, name):
        fn = getattr(np, name)
        if not callable(fn):
            return fn

        def call(*args, **kwargs):
            return _wrap(fn(*args, **kwargs))
        return call


def install_facade(monkeypatch):
    """The façade and the drivers on NumPy arrays, with the kernel and rocblas stand-ins."""
    from rocarray._core import backend, plans

    log = install(monkeypatch)
    monkeypatch.setattr(backend, "_cupy", [NumpyCupy()])
    monkeypatch.setattr(plans, "cache", plans.PlanCache())
    return log


def wide(dtype):
    return np.complex128 if np.dtype(dtype).kind == "c" else np.float64


def getf2_rule(a):
    """LU of the m x n ``a`` in float64/complex128 with getf2's rules: (lu, ipiv 1-based, info):
    the first row of largest ``|re| + |im|``, a NaN never chosen, a column of NaNs keeping its row,
    a zero pivot leaving its column unscaled."""
    a = np.array(a, dtype=wide(a.dtype))
    m, n = a.shape
    piv, info = [], 0
    for j in range(min(m, n)):
        col = a[j:, j]
        v = np.abs(col.real) + np.abs(col.imag) if a.dtype.kind == "c" else np.abs(col)
        p = j + int(np.argmax(np.where(np.isnan(v), -0.5, v)))
        piv.append(p + 1)
        a[[j, p]] = a[[p, j]]
        if a[j, j] == 0:
            info = info or j + 1
            continue
        with np.errstate(all="ignore"):
            a[j + 1:, j] /= a[j, j]
            a[j + 1:, j + 1:] -= np.outer(a[j + 1:, j], a[j, j + 1:])
    return a, np.array(piv, np.int32), info
