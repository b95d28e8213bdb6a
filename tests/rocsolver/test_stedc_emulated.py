"""The divide-and-conquer tridiagonal eigensolver (``rocsolver.stedc``, ``stedc.hip``) run on the
CPU through the kernel emulator (tests/kernel_emu.py), against SciPy's ``eigh_tridiagonal`` in
float64: eigenvalues within ``c n eps ||T||``, the residual ``||T Q - Q diag(w)||`` and
``||Q^T Q - I||`` within ``c n eps``. The merge gemms run on a NumPy stand-in except where a test
says otherwise (the emulated gemm is slow). Matrices: random, glued Wilkinson, repeated and
clustered eigenvalues, zero off-diagonals, tiny orders. CPU tests: skipped where g++ is missing.
"""

import types

import numpy as np
import pytest
import scipy.linalg

from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture the emulated ones build on)

import rocarray.rocsolver as rocsolver
from rocarray.rocsolver import _eigh_kernels, _stedc


def _gemm_strided_batched(ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, count):
    assert (ta, tb) == ("N", "N")
    for i in range(count):
        a = np.asarray(_eigh_kernels.view(A, i * sa, m, k, lda))
        b = np.asarray(_eigh_kernels.view(B, i * sb, k, n, ldb))
        c = _eigh_kernels.view(C, i * sc, m, n, ldc)
        c[...] = alpha * (a @ b) + (beta * np.asarray(c) if beta else 0)


def _gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    _gemm_strided_batched(ta, tb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1)


@pytest.fixture
def host_gemm(monkeypatch):
    monkeypatch.setattr(_stedc, "rocblas", types.SimpleNamespace(gemm=_gemm,
                                                                 gemm_strided_batched=_gemm_strided_batched))


def wilkinson_glued(n, glue=1e-8):
    """Copies of Wilkinson's W21+ glued by ``glue`` (pairs of very close eigenvalues)."""
    m = 21
    w = np.abs(np.arange(m) - (m - 1) / 2.0)
    d = np.tile(w, -(-n // m))[:n]
    e = np.ones(max(n - 1, 0))
    e[m - 1::m] = glue
    return d, e


def tridiagonal(kind, n, rng):
    if kind == "random":
        return rng.standard_normal(n), rng.standard_normal(max(n - 1, 0))
    if kind == "wilkinson":
        return wilkinson_glued(n)
    if kind == "repeated":  # direct sum of equal blocks: every eigenvalue repeated
        block = rng.standard_normal(5), rng.standard_normal(4)
        d = np.tile(block[0], -(-n // 5))[:n]
        e = np.tile(np.append(block[1], 0.0), -(-n // 5))[:max(n - 1, 0)]
        return d, e
    if kind == "clustered":  # eigenvalues 1 +- tiny and one far away
        d = 1 + 1e-12 * rng.standard_normal(n)
        d[0] = 10.0
        return d, 1e-13 * rng.standard_normal(max(n - 1, 0))
    if kind == "zero_offdiagonal":
        return rng.standard_normal(n), np.zeros(max(n - 1, 0))
    if kind == "graded":
        return 10.0 ** rng.uniform(-8, 3, n), 10.0 ** rng.uniform(-8, 3, max(n - 1, 0))
    raise ValueError(kind)


def check(d, e, w, Q, dtype, factor=20):
    n = d.size
    eps = np.finfo(dtype).eps
    T = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    norm = max(np.linalg.norm(T, 2), np.finfo(np.float64).tiny)
    ref = scipy.linalg.eigh_tridiagonal(d, e, eigvals_only=True) if n > 1 else d.copy()
    w = np.asarray(w, np.float64)
    assert np.all(np.diff(w) >= 0)
    assert np.max(np.abs(w - ref)) <= factor * n * eps * norm
    Q = np.asarray(Q, np.float64).reshape(n, n, order="F")
    assert np.linalg.norm(T @ Q - Q * w) <= factor * n * eps * norm
    assert np.linalg.norm(Q.T @ Q - np.eye(n)) <= factor * n * eps


def run(dev, d, e, dtype):
    n = d.size
    D = dev.array(d.astype(dtype))
    E = dev.array(np.append(e, 0).astype(dtype))
    C = dev.array(np.full(n * n, np.nan, dtype))
    info = dev.array(np.full(1, -7, np.int32))
    rocsolver.stedc("I", n, D, E, C, n, info)
    assert np.asarray(info)[0] == 0
    return np.asarray(D).copy(), np.asarray(C).copy()


def test_tree_leaves_levels_and_runs():
    for n in (1, 2, 31, 32, 33, 64, 65, 300, 4096, 4097):
        blocks = _stedc.leaves(n)
        assert sum(s for _, s in blocks) == n and max(s for _, s in blocks) <= _stedc.LEAF_MAX
        assert len(blocks) & (len(blocks) - 1) == 0
        assert all(o2 == o1 + s1 for (o1, s1), (o2, _) in zip(blocks, blocks[1:]))
        tree = _stedc.levels(blocks)
        assert len(tree) == int(np.log2(len(blocks)))
        if tree:
            assert tree[-1] == [(0, tree[-1][0][1], n - tree[-1][0][1])]
            for merges in tree:
                runs = _stedc.gemm_runs(merges)
                assert sum(r[3] for r in runs) == len(merges) and len(runs) <= 3
    assert _stedc.leaves(4096) == [(32 * i, 32) for i in range(128)]


@pytest.mark.parametrize("n", [1, 2, 3, 17, 33, 64, 97, 150])
@pytest.mark.parametrize("kind", ["random", "wilkinson", "repeated", "clustered", "zero_offdiagonal", "graded"])
def test_stedc_float64_matches_scipy(emulated_device, host_gemm, kind, n, rng):
    d, e = tridiagonal(kind, n, rng)
    w, Q = run(emulated_device, d, e, np.float64)
    check(d, e, w, Q, np.float64)


@pytest.mark.parametrize("n", [300])
@pytest.mark.parametrize("kind", ["random", "wilkinson", "clustered"])
def test_stedc_float64_order_300(emulated_device, host_gemm, kind, n, rng):
    d, e = tridiagonal(kind, n, rng)
    w, Q = run(emulated_device, d, e, np.float64)
    check(d, e, w, Q, np.float64)


@pytest.mark.parametrize("n", [5, 70, 129])
@pytest.mark.parametrize("kind", ["random", "wilkinson", "repeated"])
def test_stedc_float32_matches_scipy(emulated_device, host_gemm, kind, n, rng):
    d, e = tridiagonal(kind, n, rng)
    d32, e32 = d.astype(np.float32), e.astype(np.float32)
    w, Q = run(emulated_device, d32, e32, np.float32)
    check(d32.astype(np.float64), e32.astype(np.float64), w, Q, np.float32)


@pytest.mark.parametrize("n", [40, 64])  # merged orders up to 64: the batched small-gemm kernel
def test_stedc_on_the_emulated_gemm_and_wave64(emulated_wave64_device, n, rng):
    d, e = tridiagonal("random", n, rng)
    w, Q = run(emulated_wave64_device, d, e, np.float64)
    check(d, e, w, Q, np.float64)


@pytest.mark.parametrize("n", [33, 64])
def test_stedc_on_the_emulated_gemm_warp32(emulated_device, n, rng):
    d, e = tridiagonal("wilkinson", n, rng)
    w, Q = run(emulated_device, d, e, np.float64)
    check(d, e, w, Q, np.float64)


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_syevd_takes_stedc_from_the_crossover(emulated_device, host_gemm, monkeypatch, dtype, uplo, rng):
    import eigh_host
    from test_eigh import _flat_matrix, check_eigenpairs, hermitian
    from rocarray.rocsolver import _eigh, _sytrd

    eigh_host.install(monkeypatch)
    monkeypatch.setattr(_sytrd.reduce_lower, "__defaults__", (8,))
    monkeypatch.setattr(_eigh, "STEDC_MIN_ORDER", 60)
    n = 71
    a = hermitian(rng, n, dtype)
    buf = _flat_matrix(np.tril(a) if uplo == "L" else np.triu(a), n + 1)
    w, Z = _eigh.solve(np.dtype(dtype), True, uplo, n, buf, n + 1, 0, n - 1)
    assert any(name.startswith("ra_rocsolver_stedc_vectors") for name in emulated_device.names())
    assert Z.dtype == np.dtype(dtype)
    check_eigenpairs(a, np.asarray(w), _eigh_kernels.view(np.asarray(Z), 0, n, n, n), dtype)


def test_stedc_evect_v_n_empty_and_nonfinite(emulated_device, host_gemm, rng):
    dev = emulated_device
    n, ldc = 50, 53
    d, e = tridiagonal("random", n, rng)
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    buf = np.full(ldc * n, 5.0)
    buf.reshape(n, ldc).T[:n] = q
    D, E, C, info = dev.array(d), dev.array(e), dev.array(buf), dev.array(np.full(1, -7, np.int32))
    rocsolver.stedc("V", n, D, E, C, ldc, info)
    assert np.asarray(info)[0] == 0
    w, y = scipy.linalg.eigh_tridiagonal(d, e)
    out = np.asarray(C).reshape(n, ldc).T
    assert np.allclose(np.abs(out[:n].T @ q @ y), np.eye(n), atol=1e-10)  # the columns q y, up to sign
    assert np.all(out[n:] == 5.0)  # the padding rows untouched
    assert np.max(np.abs(np.asarray(D) - w)) <= 20 * n * np.finfo(np.float64).eps * np.abs(w).max()
    before = np.asarray(C).copy()
    D = dev.array(d)
    rocsolver.stedc("N", n, D, dev.array(e), C, ldc, info)
    assert np.max(np.abs(np.asarray(D) - w)) <= 20 * n * np.finfo(np.float64).eps * np.abs(w).max()
    np.testing.assert_array_equal(np.asarray(C), before)  # 'N' does not reference C
    d[7] = np.inf
    D = dev.array(d)
    rocsolver.stedc("I", n, D, dev.array(e), C, ldc, info)
    assert np.asarray(info)[0] == 1 and np.all(np.isnan(np.asarray(D)))
    assert np.all(np.isnan(np.asarray(C).reshape(n, ldc).T[:n]))
    info = dev.array(np.full(1, -7, np.int32))
    rocsolver.stedc("I", 0, dev.array(np.zeros(1)), dev.array(np.zeros(1)), dev.array(np.zeros(1)), 1, info)
    assert np.asarray(info)[0] == 0


def test_stedc_zero_matrix_gives_identity(emulated_device, host_gemm):
    n = 40
    w, Q = run(emulated_device, np.zeros(n), np.zeros(n - 1), np.float64)
    assert np.all(w == 0) and np.array_equal(Q.reshape(n, n, order="F"), np.eye(n))
