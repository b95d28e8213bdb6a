"""The Householder QR's tall leaves on the GPU: across the device (``ra_rocsolver_geqr2_grid``)
and on one thread-block cluster (``ra_rocsolver_geqr2_cluster``, NVIDIA sm_90+).

The decisive check first: one 4096 x 32 float64 leaf factored by the device-wide kernel (a
cooperative launch must happen) equals the one-block geqr2 up to rounding and LAPACK's
``numpy.linalg.qr(mode='raw')`` (R, reflectors, tau). Then: geqrf of tall matrices in the four
dtypes (float64 with three leaves between gemms) with the tall leaves across the device against
the same geqrf with every leaf on one block and against LAPACK; a zero column (tau = 0); the barrier's words left zeroed; ``linalg.qr`` of
4096^2 float64 with its backward error and orthogonality on the device; per-leaf times of both
kernels printed (the crossover sets ``GRID_LEAF_ROWS``). The cluster leaf against the
device-wide one and LAPACK in the four dtypes (odd heights, the last block short, a zero column,
lda > m; Q R = A and Q^H Q = I from the reflectors), and ``linalg.qr`` of 4096^2 with every tall
leaf on a cluster. Fresh random inputs; tau poisoned with NaN before each call.
"""

import numpy as np
import pytest

from conftest import device_random

import rocarray as ra
import rocarray.rocsolver as rs
from rocarray._core import backend
from rocarray.rocsolver import _qr_kernels

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None


def geqrf(a, grid_rows, monkeypatch):
    """geqrf of the device matrix ``a`` (a column-major copy) with leaves of at least ``grid_rows``
    rows across the device (the cluster leaf off): (factors as an m x n array, tau, device-wide
    leaves run)."""
    m, n = a.shape
    A = cupy.asfortranarray(a).reshape(-1, order="F").copy()
    tau = cupy.full(min(m, n), np.nan, a.dtype)
    ran = []
    real = _qr_kernels.geqr2_grid

    def counting(*args, **kwargs):
        sync = real(*args, **kwargs)
        ran.append(sync is not None)
        return sync

    with monkeypatch.context() as mp:
        mp.setattr(_qr_kernels, "CLUSTER_LEAF", False)  # the device-wide leaf's tests
        mp.setattr(_qr_kernels, "GRID_LEAF_ROWS", grid_rows)
        mp.setattr(_qr_kernels, "geqr2_grid", counting)
        rs.geqrf(m, n, A, m, tau)
    return A.reshape(n, m).T, tau, sum(ran)


def check_reference(h, tau, a):
    """h and tau against LAPACK's (float64 / complex128), R's scale and the reflectors' (|v| <= 1)."""
    m, n = a.shape
    eps = np.finfo(a.dtype).eps
    want_h, want_t = np.linalg.qr(cupy.asnumpy(a).astype(np.complex128), mode="raw")
    want_h = want_h.T
    got = cupy.asnumpy(h).astype(np.complex128)
    scale = float(np.abs(want_h).max())
    np.testing.assert_allclose(np.triu(got), np.triu(want_h), rtol=0, atol=30 * m * eps * scale)
    np.testing.assert_allclose(np.tril(got, -1), np.tril(want_h, -1), rtol=0, atol=30 * m * eps)
    np.testing.assert_allclose(cupy.asnumpy(tau), want_t, rtol=0, atol=30 * m * eps)


@pytest.mark.gpu
def test_grid_leaf_4096_matches_one_block_and_lapack_float64(rng):
    m, n = 4096, 32
    a = device_random(rng, (m, n), "float64")
    out = []
    for grid in (True, False):
        A = cupy.asfortranarray(a).reshape(-1, order="F").copy()
        tau = cupy.full(n, np.nan, a.dtype)
        if grid:
            sync = _qr_kernels.geqr2_grid(m, n, A, m, tau)
            assert sync is not None, "no cooperative launch of the device-wide leaf"
            _qr_kernels.check_grid_barrier(sync)
        else:
            _qr_kernels.geqr2(m, n, A, m, 0, tau, 0, 1)
        out.append((A.reshape(n, m).T, tau))
    (h, t), (h1, t1) = out
    eps = np.finfo(np.float64).eps
    assert float(cupy.abs(h - h1).max()) <= 30 * m * eps * float(cupy.abs(h1).max())
    assert float(cupy.abs(t - t1).max()) <= 30 * m * eps
    check_reference(h, t, a)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, n", [("float64", 70), ("float32", 32), ("complex64", 32), ("complex128", 29)])
def test_geqrf_tall_leaves_match_one_block_leaves(monkeypatch, rng, dtype, n):
    """float64: three leaves (columns 0, 32, 64) between block-reflector gemms; the other dtypes
    one leaf, the whole matrix (their gemm kernels would compile first)."""
    m = 2100
    a = device_random(rng, (m, n), dtype)
    h, t, ran = geqrf(a, _qr_kernels.GRID_LEAF_ROWS, monkeypatch)
    h1, t1, ran1 = geqrf(a, 10 ** 9, monkeypatch)
    assert ran == -(-n // 32) and ran1 == 0
    eps = np.finfo(a.dtype).eps
    assert float(cupy.abs(h - h1).max()) <= 30 * m * eps * float(cupy.abs(h1).max())
    assert float(cupy.abs(t - t1).max()) <= 30 * m * eps
    check_reference(h, t, a)


@pytest.mark.gpu
def test_zero_column_and_barrier_words_zeroed(monkeypatch, rng):
    m, n = 3001, 32
    a = device_random(rng, (m, n), "complex128")
    a[:, 5] = 0
    h, t, ran = geqrf(a, _qr_kernels.GRID_LEAF_ROWS, monkeypatch)
    assert ran == 1 and complex(t[5]) == 0 and not cupy.asnumpy(h[5:, 5]).any()
    check_reference(h, t, a)
    from rocarray._core.workspace import workspaces

    sync = workspaces.counters("rocsolver.qr.grid_barrier", 16, a.data.device_id)
    assert not cupy.asnumpy(sync[:16]).any()


@pytest.mark.gpu
def test_qr_4096_backward_error(rng):
    n = 4096
    a = device_random(rng, (n, n), "float64")
    q, r = ra.linalg.qr(a)
    eps = np.finfo(np.float64).eps
    assert float(cupy.linalg.norm(q @ r - a) / (cupy.linalg.norm(a) * n * eps)) < 1.0
    assert float(cupy.linalg.norm(q.T @ q - cupy.eye(n)) / (n * eps)) < 1.0
    assert float(cupy.abs(cupy.tril(r, -1)).max()) == 0


@pytest.mark.gpu
def test_leaf_times_for_the_threshold(rng, capsys):
    """Times one 32-column float64 leaf of 4096 down to 128 rows on each kernel (the cluster one
    where the device has clusters) and prints them (the crossovers set ``GRID_LEAF_ROWS`` and
    ``CLUSTER_LEAF_ROWS``); checks only that tau agrees."""
    lines = []
    clusters = _qr_kernels.cluster_available(cupy.cuda.runtime.getDevice())
    kinds = ("cluster", "grid", "one block") if clusters else ("grid", "one block")
    for m in (4096, 2048, 1024, 512, 256, 128):
        a = device_random(rng, (m, 32), "float64")
        times, taus = [], []
        for kind in kinds:
            A = cupy.asfortranarray(a).reshape(-1, order="F").copy()
            tau = cupy.zeros(32, a.dtype)
            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            for rep in range(4):   # the last three timed after a warm-up
                B = A.copy()
                if rep == 1:
                    start.record()
                if kind == "cluster":   # forced: shorter leaves than CLUSTER_LEAF_ROWS run too
                    assert _qr_kernels.geqr2_cluster(m, 32, B, m, tau, force=True)
                elif kind == "grid":   # the blocks named: shorter leaves than GRID_LEAF_ROWS run too
                    blocks = _qr_kernels.grid_leaf_shape(m, 32, B.dtype, B.data.device_id)[0]
                    sync = _qr_kernels.geqr2_grid(m, 32, B, m, tau, blocks=blocks)
                    assert sync is not None
                else:
                    _qr_kernels.geqr2(m, 32, B, m, 0, tau, 0, 1)
            stop.record()
            stop.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, stop) / 3 * 1000)
            taus.append(cupy.asnumpy(tau))
        _qr_kernels.check_grid_barrier(sync)
        for t in taus[1:]:
            np.testing.assert_allclose(taus[0], t, rtol=0, atol=1e-12)
        lines.append(f"leaf {m} x 32 float64: " + ", ".join(f"{k} {t:.1f} us" for k, t in zip(kinds, times))
                     + f" (each with a {m} x 32 copy)")
    with capsys.disabled():
        print("\n" + "\n".join(lines))


def needs_clusters():
    if not _qr_kernels.cluster_available(cupy.cuda.runtime.getDevice()):
        pytest.skip("the device has no thread-block clusters (NVIDIA sm_90+)")


def apply_q(h, tau, x):
    """Q x with Q = H_0 ... H_{k-1} from the reflectors below h's diagonal (host, complex128)."""
    x = x.astype(np.complex128)
    for i in reversed(range(len(tau))):
        v = np.concatenate(([1], h[i + 1:, i])).astype(np.complex128)
        x[i:] -= complex(tau[i]) * np.outer(v, v.conj() @ x[i:])
    return x


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 17, 32])
@pytest.mark.parametrize("m", [512, 1031, 4097, 4103])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_cluster_leaf_matches_grid_leaf_and_lapack(rng, dtype, m, n):
    """One m x n leaf inside a taller buffer (lda = m + 5) on one cluster against the device-wide
    leaf (the same arithmetic, both exact up to rounding) and LAPACK; rows past the leaf
    untouched; Q R = A and Q^H Q = I. Column 5 of the 17-column leaves is zero (tau = 0). A leaf
    whose rows do not fit in the blocks' shared memory (complex128 4097 x 32) is refused."""
    needs_clusters()
    lda = m + 5
    a = device_random(rng, (m, n), dtype)
    if n == 17:
        a[:, 5] = 0
    share, lds, shared = _qr_kernels.cluster_leaf_shape(m, n, a.dtype)
    fits = shared + _qr_kernels.CLUSTER_STATIC_SHARED <= backend.shared_memory_limit(a.data.device_id)
    out = []
    for cluster in (True, False):
        buf = cupy.full((n, lda), np.nan, a.dtype)
        buf[:, :m] = a.T
        A = buf.reshape(-1)
        tau = cupy.full(n + 1, np.nan, a.dtype)
        if cluster:
            assert _qr_kernels.geqr2_cluster(m, n, A, lda, tau) == fits
            if not fits:
                return
        else:
            sync = _qr_kernels.geqr2_grid(m, n, A, lda, tau)
            assert sync is not None
            _qr_kernels.check_grid_barrier(sync)
        got = A.reshape(n, lda).T
        assert bool(cupy.isnan(got[m:]).all()) and bool(cupy.isnan(tau[n:]).all())
        out.append((got[:m], tau[:n]))
    (h, t), (h1, t1) = out
    eps = np.finfo(a.dtype).eps
    assert float(cupy.abs(h - h1).max()) <= 30 * m * eps * float(cupy.abs(h1).max())
    assert float(cupy.abs(t - t1).max()) <= 30 * m * eps
    check_reference(h, t, a)
    if n == 17:
        assert complex(t[5]) == 0
    hh, th, ah = cupy.asnumpy(h), cupy.asnumpy(t), cupy.asnumpy(a).astype(np.complex128)
    r = np.zeros((m, n), np.complex128)
    r[:n] = np.triu(hh[:n])
    assert np.linalg.norm(apply_q(hh, th, r) - ah) <= 30 * m * eps * np.linalg.norm(ah)
    q = apply_q(hh, th, np.eye(m, n))
    assert np.linalg.norm(q.conj().T @ q - np.eye(n)) <= 30 * m * eps


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, m, n", [("float64", 4096, 32), ("complex128", 1031, 32), ("float32", 512, 17),
                                         ("complex64", 4103, 32)])
def test_cluster_leaf_t_matches_larft(rng, dtype, m, n):
    """The T the cluster leaf forms against larft's from S = V^H V (a cuBLAS product) of the
    same reflectors; the factors against LAPACK."""
    needs_clusters()
    a = device_random(rng, (m, n), dtype)
    A = cupy.asfortranarray(a).reshape(-1, order="F").copy()
    tau = cupy.full(n, np.nan, a.dtype)
    T = cupy.full(n * n, np.nan, a.dtype)
    assert _qr_kernels.geqr2_cluster(m, n, A, m, tau, T=T)
    h = A.reshape(n, m).T
    check_reference(h, tau, a)
    V = cupy.tril(h, -1) + cupy.eye(m, n, dtype=a.dtype)
    S = cupy.asfortranarray(V.conj().T @ V).reshape(-1, order="F")
    want = cupy.full(n * n, np.nan, a.dtype)
    _qr_kernels.larft(n, S, n, n * n, tau, n, want, n, n * n, 1)
    got, want = T.reshape(n, n).T, want.reshape(n, n).T
    eps = np.finfo(a.dtype).eps
    assert not bool(cupy.tril(got, -1).any())
    assert float(cupy.abs(got - want).max()) <= 100 * m * eps * float(cupy.abs(want).max())


@pytest.mark.gpu
def test_qr_4096_on_cluster_leaves(rng, monkeypatch):
    """``linalg.qr`` of 4096^2 float64 with its leaves of CLUSTER_LEAF_ROWS rows or more on one
    cluster each: backward error and orthogonality as above."""
    needs_clusters()
    ran = []
    real = _qr_kernels.geqr2_cluster

    def counting(*args, **kwargs):
        ran.append(real(*args, **kwargs))
        return ran[-1]

    monkeypatch.setattr(_qr_kernels, "geqr2_cluster", counting)
    n = 4096
    a = device_random(rng, (n, n), "float64")
    q, r = ra.linalg.qr(a)
    assert sum(ran) == (n - _qr_kernels.CLUSTER_LEAF_ROWS) // 32 + 1
    eps = np.finfo(np.float64).eps
    assert float(cupy.linalg.norm(q @ r - a) / (cupy.linalg.norm(a) * n * eps)) < 1.0
    assert float(cupy.linalg.norm(q.T @ q - cupy.eye(n)) / (n * eps)) < 1.0
