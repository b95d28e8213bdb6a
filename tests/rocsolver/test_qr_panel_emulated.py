"""The device-wide QR leaf ``ra_rocsolver_geqr2_grid`` (``rocarray/_kernels/rocsolver/qr.hip``) run
on the CPU through the kernel emulator (tests/kernel_emu.py, a cooperative launch's blocks all
running together), on the 32-lane (NVIDIA-like) and 64-lane (AMD wavefront) targets.

* Against the one-block ``ra_rocsolver_geqr2`` (the same algorithm, the sums in another order) and
  against LAPACK through ``numpy.linalg.qr(mode='raw')`` (the same sign conventions: R, the
  reflectors and tau compare directly): odd row counts, blocks without rows, a row count that is
  not a multiple of a block's share, zero columns, complex dtypes, tiny and huge scales; Q^H Q = I
  and A = Q R in float64.
* The barrier: its words left zeroed, a launch whose blocks are not co-resident gives up and the
  host raises; the blocked geqrf with every leaf across the device; the launches of a 4096 x 4096
  geqrf (recorded, not run).

CPU tests: skipped where g++ is missing.
"""

import dataclasses

import numpy as np
import pytest

from conftest import random_array as rand
import qr_host
from kernel_emu import (emulated_device, emulated_either_device, emulated_target_device,  # noqa: F401 (fixtures)
                        emulated_wave64_device, spread)
from launchfake import PROFILE, fake_device  # noqa: F401 (the fixture the emulated devices build on)

import rocarray.rocsolver as rs
from rocarray.rocsolver import _qr_blocked, _qr_kernels

ALL = ["float32", "float64", "complex64", "complex128"]


@pytest.fixture
def device(emulated_either_device):
    return emulated_either_device


def eps(dtype):
    return np.finfo(np.dtype(dtype)).eps


def leaf_buffer(a, lda):
    """Column-major buffer of ``a`` with NaN in the spare rows of each column and after it."""
    m, n = a.shape
    buf = np.full(lda * n + 3, np.nan, a.dtype)
    for j in range(n):
        buf[j * lda:j * lda + m] = a[:, j]
    return buf


def factor_both(device, a, blocks):
    """(buffer, tau) of the device-wide kernel (``blocks`` blocks; None: the cluster kernel) and of
    the one-block geqr2."""
    m, n = a.shape
    lda = m + 3
    k = min(m, n)
    out = []
    for grid in (True, False):
        A = device.array(leaf_buffer(a, lda))
        tau = device.array(np.full(k + 2, np.nan, a.dtype))
        if grid and blocks is None:
            assert _qr_kernels.geqr2_cluster(m, n, A, lda, tau, force=True)
            launch = device.launches[-1]
            assert launch.name.startswith("ra_rocsolver_geqr2_cluster") and not launch.cooperative
            assert launch.grid[0] == _qr_kernels.CLUSTER_BLOCKS and launch.block[0] == _qr_kernels.CLUSTER_BLOCK
        elif grid:
            sync = _qr_kernels.geqr2_grid(m, n, A, lda, tau, blocks=blocks)
            assert sync is not None
            _qr_kernels.check_grid_barrier(sync)
            assert not np.asarray(sync)[:16].any()     # the last block out zeroed the barrier's words
            launch = device.launches[-1]
            assert launch.name.startswith("ra_rocsolver_geqr2_grid") and launch.cooperative
            assert launch.grid[0] == blocks
        else:
            _qr_kernels.geqr2(m, n, A, lda, 0, tau, 0, 1)
            assert device.launches[-1].name.startswith("ra_rocsolver_geqr2<")
        out.append((np.asarray(A).copy(), np.asarray(tau).copy()))
    return out


def q_of(h, tau):
    """Q = H_0 ... H_{k-1} (m x m, complex128) from LAPACK's reflectors below h's diagonal."""
    m = h.shape[0]
    q = np.eye(m, dtype=np.complex128)
    for i in range(len(tau)):
        v = np.zeros(m, np.complex128)
        v[i], v[i + 1:] = 1, h[i + 1:, i]
        q -= complex(tau[i]) * np.outer(q @ v, v.conj())
    return q


def check_leaf(device, a, blocks):
    m, n = a.shape
    lda, k = m + 3, min(m, n)
    (g_buf, g_tau), (o_buf, o_tau) = factor_both(device, a, blocks)
    got = g_buf[:lda * n].reshape(n, lda).T
    # nothing past the leaf's rows, or past tau, is written
    assert np.isnan(got[m:]).all() and np.isnan(g_buf[lda * n:]).all() and np.isnan(g_tau[k:]).all()
    h, t = got[:m], g_tau[:k]
    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    scale = float(np.abs(a).max())
    e = eps(a.dtype)
    # the one-block kernel: the same algorithm, sums in another order
    one = o_buf[:lda * n].reshape(n, lda).T[:m]
    np.testing.assert_allclose(np.triu(h), np.triu(one), rtol=0, atol=30 * m * e * scale)
    np.testing.assert_allclose(np.tril(h, -1), np.tril(one, -1), rtol=0, atol=30 * m * e)
    np.testing.assert_allclose(t, o_tau[:k], rtol=0, atol=30 * m * e)
    # LAPACK (float64 / complex128 reference on the same input)
    want_h, want_t = np.linalg.qr(a.astype(wide), mode="raw")
    want_h = want_h.T
    np.testing.assert_allclose(np.triu(h), np.triu(want_h), rtol=0, atol=30 * m * e * scale)
    np.testing.assert_allclose(np.tril(h, -1), np.tril(want_h, -1), rtol=0, atol=30 * m * e)
    np.testing.assert_allclose(t, want_t, rtol=0, atol=30 * m * e)
    # Q^H Q = I and A = Q R
    q = q_of(h.astype(wide), t.astype(wide))
    r = np.triu(h.astype(wide))
    assert np.linalg.norm(q.conj().T @ q - np.eye(m)) <= 20 * m * e
    assert np.linalg.norm(q[:, :k] @ r[:k] - a.astype(wide)) <= 20 * m * e * np.linalg.norm(a.astype(wide))
    return h, t


@pytest.mark.parametrize("emulated_target_device, dtype, m, n, blocks",
                         spread([(200, 32, 7), (93, 17, 5), (64, 1, 4), (33, 32, 33), (5, 3, 8), (131, 31, 3)], ALL),
                         indirect=["emulated_target_device"])
def test_grid_leaf_matches_one_block_geqr2_and_lapack(emulated_target_device, rng, dtype, m, n, blocks):
    check_leaf(emulated_target_device, rand(rng, (m, n), dtype), blocks)


@pytest.mark.parametrize("emulated_target_device, dtype, m, n",
                         [("cuda32", "float32", 61, 13), ("hip64", "complex64", 61, 13),
                          ("cuda32", "float64", 7, 5), ("hip64", "complex128", 20, 32),
                          ("cuda32", "float64", 130, 32)],
                         indirect=["emulated_target_device"])
def test_cluster_leaf_matches_one_block_geqr2_and_lapack(emulated_target_device, rng, monkeypatch, dtype, m, n):
    """The cluster kernel (8 blocks reading each other's slots through the emulator's cluster
    model): rows not a multiple of 8 (the last block short), blocks without rows (7 rows: one row
    a block, the eighth block empty), m < n, 32 columns. The 64-lane target runs the same body
    (only NVIDIA has clusters: the host is told the emulated AMD device has them, to prove the
    kernel free of a warp size)."""
    monkeypatch.setattr(_qr_kernels, "cluster_available", lambda device_id: True)
    check_leaf(emulated_target_device, rand(rng, (m, n), dtype), None)


@pytest.mark.parametrize("emulated_target_device, dtype, m, n",
                         [("cuda32", "float64", 130, 32), ("hip64", "complex64", 61, 13)],
                         indirect=["emulated_target_device"])
def test_cluster_leaf_forms_t(emulated_target_device, rng, monkeypatch, dtype, m, n):
    """With T asked for: the same factors, and T equal to xLARFT of S = V^H V of the leaf's own
    reflectors (qr_host's larft), zeros below the diagonal."""
    monkeypatch.setattr(_qr_kernels, "cluster_available", lambda device_id: True)
    device = emulated_target_device
    a = rand(rng, (m, n), dtype)
    lda = m + 3
    A = device.array(leaf_buffer(a, lda))
    tau = device.array(np.full(n, np.nan, a.dtype))
    T = device.array(np.full(n * n, np.nan, a.dtype))
    assert _qr_kernels.geqr2_cluster(m, n, A, lda, tau, force=True, T=T)
    h = np.asarray(A)[:lda * n].reshape(n, lda).T[:m]
    want_h, want_t = np.linalg.qr(a.astype(np.complex128), mode="raw")
    e = eps(dtype)
    np.testing.assert_allclose(h, want_h.T, rtol=0, atol=30 * m * e * float(np.abs(a).max()))
    np.testing.assert_allclose(np.asarray(tau), want_t, rtol=0, atol=30 * m * e)
    v = np.tril(h, -1) + np.eye(m, n)
    s = np.ascontiguousarray((v.conj().T @ v).T).reshape(-1)
    want = np.full(n * n, np.nan, a.dtype)
    qr_host.larft(n, s, n, 0, np.asarray(tau), 0, want, n, 0, 1)
    got = np.asarray(T).reshape(n, n).T
    want = want.reshape(n, n).T
    assert not np.tril(got, -1).any()
    np.testing.assert_allclose(got, want, rtol=0, atol=100 * m * e * float(np.abs(want).max()))


def test_blocked_geqrf_with_cluster_leaves(emulated_device, rng, monkeypatch):
    """The blocked geqrf (8-column panels, 4-column leaves) with every leaf on the emulated
    cluster kernel, the left halves' T from the leaf; the rest on qr_host's NumPy stand-ins:
    LAPACK's R, reflectors and tau."""
    qr_host.install(monkeypatch)
    monkeypatch.setattr(_qr_kernels, "geqr2_cluster", TRUE_GEQR2_CLUSTER)
    monkeypatch.setattr(_qr_kernels, "empty", lambda elements, dtype, like: emulated_device.array(
        np.full(max(int(elements), 1), np.nan, dtype)))   # scratch the kernel can write (the leaf's T)
    monkeypatch.setattr(_qr_kernels, "CLUSTER_LEAF_ROWS", 1)
    monkeypatch.setattr(_qr_blocked, "NB", 8)
    monkeypatch.setattr(_qr_blocked, "LEAF", 4)
    m, n, lda = 45, 19, 47
    a = rand(rng, (m, n), "float64")
    A = emulated_device.array(leaf_buffer(a, lda))
    tau = emulated_device.array(np.full(n, np.nan, np.float64))
    _qr_blocked.geqrf(m, n, A, lda, 0, tau, 0, 1)
    leaves = [x for x in emulated_device.launches if x.name.startswith("ra_rocsolver_geqr2_cluster")]
    with_t = [x for x in leaves if np.ndim(x.args[-2]) and np.size(x.args[-2]) > 1]   # a buffer, not null
    assert len(leaves) == 5 and len(with_t) == 2                                      # T of columns 0 and 8
    h, t = np.linalg.qr(a, mode="raw")
    got = np.asarray(A)[:lda * n].reshape(n, lda).T[:m]
    np.testing.assert_allclose(got, h.T, atol=1e-12 * m)
    np.testing.assert_allclose(np.asarray(tau), t, atol=1e-13 * m)


def test_cluster_leaf_zero_column(emulated_device, rng):
    """A zero column: tau = 0 in every block, the column left as it is, no update."""
    a = rand(rng, (40, 6), "complex128")
    a[:, 2] = 0
    h, t = check_leaf(emulated_device, a, None)
    assert t[2] == 0 and (h[2:, 2] == 0).all()


@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_grid_leaf_zero_columns(device, rng, dtype):
    """A zero column (tau = 0, the column left as it is, no update), and a column zero below its
    diagonal (real diagonal: tau = 0; complex diagonal: a reflection all the same)."""
    m, n, blocks = 70, 8, 5    # 14 rows per block
    a = rand(rng, (m, n), dtype)
    a[:, 2] = 0
    h, t = check_leaf(device, a, blocks)
    assert t[2] == 0 and (h[2:, 2] == 0).all()
    b = np.zeros((m, 3), dtype)
    b[0, 0] = 2.5 if dtype == "float64" else 2.5 + 1j
    b[:, 1] = rand(rng, m, dtype)
    h, t = check_leaf(device, b, 4)
    assert (t[0] == 0) == (dtype == "float64")


@pytest.mark.parametrize("dtype, scale", [("float64", 1e-140), ("float64", 1e140), ("float32", 1e-17),
                                          ("float32", 1e17), ("complex128", 1e-140), ("complex64", 1e17)])
def test_grid_leaf_tiny_and_huge_scales(device, rng, dtype, scale):
    """Sums of squares that stay in range (the kernels, like the one-block geqr2, do not rescale)."""
    a = (rand(rng, (90, 6), dtype) * scale).astype(dtype)
    check_leaf(device, a, 6)


def test_grid_barrier_gives_up_and_raises(emulated_device, rng, monkeypatch):
    """Blocks run one after another (not co-resident): the first gives up at its barrier after
    the spin limit, the next sees the flag and returns; the host raises and resets the state."""
    import kernel_emu

    monkeypatch.setattr(_qr_kernels, "GRID_SPIN_LIMIT", 2_000_000)  # 2 ms of the emulator's clock
    call = kernel_emu.EmulatedKernel.__call__
    monkeypatch.setattr(kernel_emu.EmulatedKernel, "__call__",
                        lambda self, grid, block, args, shared_mem=0, cooperative=False:
                        call(self, grid, block, args, shared_mem, False))
    m, n = 40, 4
    A = emulated_device.array(leaf_buffer(rand(rng, (m, n), "float64"), m))
    tau = emulated_device.array(np.zeros(n))
    sync = _qr_kernels.geqr2_grid(m, n, A, m, tau, blocks=3)
    assert np.asarray(sync).view(np.uint32)[2] == 1
    with pytest.raises(_qr_kernels.GridBarrierError, match="grid barrier"):
        _qr_kernels.check_grid_barrier(sync)
    assert not np.asarray(sync).any()


def test_blocked_geqrf_with_grid_leaves(device, rng, monkeypatch):
    """The blocked geqrf (8-column panels, 4-column leaves) with every leaf factored across the
    device by the emulated kernel (blocks of 8 rows); the rest on qr_host's NumPy stand-ins:
    LAPACK's R, reflectors and tau, and the barrier checked once."""
    qr_host.install(monkeypatch)
    monkeypatch.setattr(_qr_kernels, "geqr2_grid", TRUE_GEQR2_GRID)
    checks = []
    monkeypatch.setattr(_qr_kernels, "check_grid_barrier", lambda sync: checks.append(TRUE_CHECK(sync)))
    monkeypatch.setattr(_qr_kernels, "GRID_LEAF_ROWS", 1)
    monkeypatch.setattr(_qr_kernels, "GRID_MIN_SHARE", 8)
    monkeypatch.setattr(_qr_blocked, "NB", 8)
    monkeypatch.setattr(_qr_blocked, "LEAF", 4)
    m, n, lda = 45, 19, 47
    a = rand(rng, (m, n), "complex128")
    A = device.array(leaf_buffer(a, lda))
    tau = device.array(np.full(n, np.nan, np.complex128))
    _qr_blocked.geqrf(m, n, A, lda, 0, tau, 0, 1)
    grid = [x for x in device.launches if x.name.startswith("ra_rocsolver_geqr2_grid")]
    assert len(grid) == 5 and all(x.cooperative for x in grid)      # leaves at columns 0, 4, 8, 12, 16
    assert grid[0].grid[0] == 6 and grid[-1].grid[0] == 4           # 45 rows: 6 blocks; 29: 4
    assert not any(x.name.startswith("ra_rocsolver_geqr2<") for x in device.launches)
    assert len(checks) == 1
    h, t = np.linalg.qr(a, mode="raw")
    got = np.asarray(A)[:lda * n].reshape(n, lda).T[:m]
    np.testing.assert_allclose(got, h.T, atol=1e-12 * m)
    np.testing.assert_allclose(np.asarray(tau), t, atol=1e-13 * m)


TRUE_GEQR2_GRID = _qr_kernels.geqr2_grid
TRUE_GEQR2_CLUSTER = _qr_kernels.geqr2_cluster
TRUE_CHECK = _qr_kernels.check_grid_barrier


def test_cluster_leaf_routing(fake_device, monkeypatch):
    """The cluster leaf takes single leaves of CLUSTER_LEAF_ROWS rows or more whose rows fit in the
    blocks' shared memory, on NVIDIA sm_90+ only, and not when CLUSTER_LEAF is off."""
    from launchfake import SM90_SHARED

    from rocarray._core import backend

    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    A = fake_device.array((8192 * 32,), "complex128")
    tau = fake_device.array((32,), "complex128")
    Af, tauf = A.view(np.float64), tau.view(np.float64)
    assert not _qr_kernels.geqr2_cluster(_qr_kernels.CLUSTER_LEAF_ROWS - 1, 32, Af, 8192, tauf)
    assert not _qr_kernels.geqr2_cluster(4096, 33, Af, 8192, tauf)
    assert not _qr_kernels.geqr2_cluster(8192, 32, Af, 8192, tauf)         # 1024 rows a block: too many
    assert not _qr_kernels.geqr2_cluster(4096, 32, A, 8192, tau)           # complex128: 256 KB a block
    assert not fake_device.launches
    assert _qr_kernels.geqr2_cluster(4096, 32, Af, 8192, tauf)
    launch = fake_device.launches[-1]
    share, lds, shared = _qr_kernels.cluster_leaf_shape(4096, 32, np.float64)
    assert (share, lds) == (512, 520) and launch.shared == shared and not launch.cooperative
    assert launch.grid[0] == _qr_kernels.CLUSTER_BLOCKS and launch.block[0] == _qr_kernels.CLUSTER_BLOCK
    assert _qr_kernels.geqr2_cluster(2048, 32, A, 8192, tau)               # complex128 2048 x 32 fits
    monkeypatch.setattr(_qr_kernels, "CLUSTER_LEAF", False)
    assert not _qr_kernels.geqr2_cluster(4096, 32, Af, 8192, tauf)
    monkeypatch.setattr(_qr_kernels, "CLUSTER_LEAF", True)
    amd = dataclasses.replace(PROFILE, is_hip=True, arch="gfx942", warp_size=64, compute_capability="")
    monkeypatch.setattr(backend, "device_info", lambda device_id=None: amd)
    assert not _qr_kernels.geqr2_cluster(4096, 32, Af, 8192, tauf)
    assert len(fake_device.launches) == 2


def test_geqrf_4096_cluster_launch_counts(fake_device, monkeypatch):
    """One geqrf of 4096 x 4096 float64 on sm_90 with its opt-in shared memory (recorded, not
    run): the leaves of CLUSTER_LEAF_ROWS rows or more on one cluster each (125 of the 128 at
    128 rows), the shorter ones by one block, no device-wide leaf and no barrier to check; the
    left halves' T from the leaf."""
    from launchfake import SM90_SHARED

    from rocarray._core import backend

    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    checks = []
    monkeypatch.setattr(_qr_kernels, "check_grid_barrier", checks.append)
    n = 4096
    rs.geqrf(n, n, fake_device.array((n * n,), "float64"), n, fake_device.array((n,), "float64"))
    names = [x.split("<")[0] for x in fake_device.names()]
    clusters = (n - _qr_kernels.CLUSTER_LEAF_ROWS) // 32 + 1
    assert names.count("ra_rocsolver_geqr2_cluster") == clusters
    assert names.count("ra_rocsolver_geqr2") == 128 - clusters and "ra_rocsolver_geqr2_grid" not in names
    assert not checks
    # 127 block reflectors (32 panels of 3, 31 trailing updates): the 63 left halves that are one
    # cluster leaf bring their T (the 64-row one of the last panel is not), the rest go to larft
    with_t = [x for x in fake_device.launches if x.name.startswith("ra_rocsolver_geqr2_cluster")
              and np.ndim(x.args[-2]) and np.size(x.args[-2]) > 1]
    assert len(with_t) == 63 and names.count("ra_rocsolver_larft") + names.count("ra_rocsolver_larft_inv") == 127 - 63


def test_grid_leaf_takes_tall_leaves_only(fake_device):
    A = fake_device.array((4096 * 32,), "float64")
    tau = fake_device.array((32,), "float64")
    assert _qr_kernels.geqr2_grid(_qr_kernels.GRID_LEAF_ROWS - 1, 32, A, 4096, tau) is None
    assert _qr_kernels.geqr2_grid(4096, 33, A, 4096, tau) is None
    assert not fake_device.launches
    assert _qr_kernels.geqr2_grid(4096, 32, A, 4096, tau) is not None
    launch = fake_device.launches[-1]
    blocks, share, shared = _qr_kernels.grid_leaf_shape(4096, 32, np.float64, 0)
    assert launch.cooperative and launch.grid[0] == blocks == 128 and share == 32
    assert launch.shared == shared and launch.block[0] == _qr_kernels.GRID_BLOCK


def test_geqrf_4096_launch_counts(fake_device, monkeypatch):
    """Which kernels one geqrf of 4096 x 4096 float64 launches (recorded, not run) without the
    cluster leaf: 128 leaves of 32 columns, those of at least GRID_LEAF_ROWS rows across the
    device (cooperatively), the rest by one block; the barrier checked once."""
    monkeypatch.setattr(_qr_kernels, "CLUSTER_LEAF", False)
    checks = []
    monkeypatch.setattr(_qr_kernels, "check_grid_barrier", checks.append)
    n = 4096
    A = fake_device.array((n * n,), "float64")
    tau = fake_device.array((n,), "float64")
    rs.geqrf(n, n, A, n, tau)
    names = fake_device.names()
    grid = [x for x in fake_device.launches if x.name.startswith("ra_rocsolver_geqr2_grid")]
    tall = sum(1 for j in range(0, n, 32) if n - j >= _qr_kernels.GRID_LEAF_ROWS)
    assert len(grid) == tall == 113 and all(x.cooperative for x in grid)
    assert sum(x.cooperative for x in fake_device.launches) == 113
    one = [x for x in names if x.startswith("ra_rocsolver_geqr2<")]
    assert len(one) == 128 - 113
    assert grid[0].grid[0] == 128 and grid[-1].grid[0] == 16    # 4096 rows: 128 blocks of 32; 512: 16
    assert len(checks) == 1
    counts = {}
    for name in names:
        counts[name.split("<")[0]] = counts.get(name.split("<")[0], 0) + 1
    print("geqrf 4096 float64 launches:", dict(sorted(counts.items())))


@pytest.mark.parametrize("dtype, k", [("float64", 37), ("complex128", 19)])
def test_larft_against_the_host_recurrence(device, rng, dtype, k):
    """larft's partial sums (eight products a round, then the remainder) against the host's
    column recurrence, for two matrices of a batch with padded leading dimensions; T's lower
    triangle comes back zero over the NaN it was poisoned with."""
    batch, lds, ldt = 2, k + 2, k + 1
    v = np.tril(rand(rng, (batch, 3 * k, k), dtype), -1) + np.eye(3 * k, k, dtype=dtype)
    s_full = np.einsum("bri,brj->bij", v.conj(), v)
    S = np.full(batch * lds * k, np.nan, dtype)
    for b in range(batch):
        for j in range(k):
            S[b * lds * k + j * lds:b * lds * k + j * lds + k] = s_full[b][:, j]
    tau = (1 + rng.random(batch * k)).astype(dtype)
    want = np.full(batch * ldt * k, np.nan, dtype)
    qr_host.larft(k, S, lds, lds * k, tau, k, want, ldt, ldt * k, batch)
    T = device.array(np.full(batch * ldt * k, np.nan, dtype))
    _qr_kernels.larft(k, device.array(S), lds, lds * k, device.array(tau), k, T, ldt, ldt * k, batch)
    got = T.get()
    for b in range(batch):
        g = qr_host.mat(got[b * ldt * k:], k, k, ldt)
        w = qr_host.mat(want[b * ldt * k:], k, k, ldt)
        assert np.all(np.tril(g, -1) == 0)
        np.testing.assert_allclose(g, w, rtol=1e-12 * k, atol=1e-12 * k * np.abs(w).max())
