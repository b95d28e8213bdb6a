"""The large LU's panel kernels (``rocarray/_kernels/rocsolver/lu.hip``) run on the CPU through the
kernel emulator (tests/kernel_emu.py), on the 32-lane (NVIDIA-like) and 64-lane (AMD wavefront)
targets.

* ``ra_rocsolver_laswp`` through :func:`rocsolver.laswp` and ``laswp_strided_batched`` against
  LAPACK's interchanges applied one after another in NumPy: random pivots of every kind (below,
  at and above their step, repeated, naming each other's rows), both directions, more than one
  32-interchange chunk, column counts that leave blocks part empty, batches; rows no interchange
  names (and the padding past them) must stay bit-for-bit unchanged.
* ``ra_rocsolver_lu_inv`` (the blocked getrf's inverses of unit lower diagonal blocks) against
  NumPy's inverse, the block's diagonal and upper part never read.

CPU tests: skipped where g++ is missing.
"""

import numpy as np
import pytest

from conftest import random_array as rand
import lu_host
from kernel_emu import (emulated_device, emulated_either_device, emulated_target_device,  # noqa: F401 (fixtures)
                        emulated_wave64_device, spread)
from launchfake import fake_device  # noqa: F401 (the fixture the emulated devices build on)
from lu_host import getf2_rule

import rocarray.rocsolver as rs
from rocarray.rocsolver import _lu, _lu_blocked, _lu_kernels

ALL = ["float32", "float64", "complex64", "complex128"]


@pytest.fixture
def device(emulated_either_device):
    return emulated_either_device


def swapped(a, k1, k2, piv, incx):
    """LAPACK laswp on a copy of ``a`` (rows), 1-based k1..k2."""
    a = a.copy()
    steps = range(k1 - 1, k2) if incx == 1 else range(k2 - 1, k1 - 2, -1)
    for k in steps:
        p = piv[k] - 1
        a[[k, p]] = a[[p, k]]
    return a


@pytest.mark.parametrize("emulated_target_device, dtype, incx, k1, k2, n",
                         spread([(incx,) + c for c in [(1, 32, 37), (3, 9, 16), (2, 71, 5), (40, 40, 17)]
                                 for incx in (1, -1)], ALL), indirect=["emulated_target_device"])
def test_laswp_matches_sequential_interchanges(emulated_target_device, rng, dtype, incx, k1, k2, n):
    device = emulated_target_device
    m, lda = 90, 93
    a = rand(rng, (lda, n), dtype)
    piv = rng.integers(1, m + 1, size=k2).astype(np.int32)
    piv[k1 - 1] = k1                     # a step that keeps its row
    if k2 - k1 > 4:
        piv[k1 + 1] = piv[k1 + 2]        # two steps naming the same row
        piv[k1 + 3] = k1                 # a pivot row among the chunk's own rows, above its step
    A = device.array(np.asfortranarray(a))
    rs.laswp(n, A, lda, k1, k2, device.array(piv), incx)
    np.testing.assert_array_equal(np.asarray(A), swapped(a, k1, k2, piv, incx))
    assert device.names()[-1].startswith("ra_rocsolver_laswp")


def test_laswp_with_a_gap(device, rng):
    """Both sides of a panel in one launch: the columns before and after the gap get the
    interchanges, the gap's columns are left alone."""
    m, lda, left, gap, right = 70, 72, 21, 8, 30
    a = rand(rng, (lda, left + gap + right), "float64")
    piv = rng.integers(1, m + 1, size=40).astype(np.int32)
    A = device.array(np.asfortranarray(a).T.reshape(-1).copy())
    _lu_kernels.laswp(left + right, A, lda, 0, 3, 40, device.array(piv), 0, False, 1, gap=(left, gap))
    got = np.asarray(A).reshape(-1, lda).T
    want = swapped(a, 4, 40, piv, 1)
    np.testing.assert_array_equal(got[:, :left], want[:, :left])
    np.testing.assert_array_equal(got[:, left:left + gap], a[:, left:left + gap])
    np.testing.assert_array_equal(got[:, left + gap:], want[:, left + gap:])


@pytest.mark.parametrize("emulated_target_device, dtype", [("cuda32", "float64"), ("hip64", "complex64")],
                         indirect=["emulated_target_device"])
def test_laswp_composed_matches_sequential_interchanges(emulated_target_device, rng, dtype):
    """The interchanges composed into one permutation (plan, then gather), with a gap: pivots
    below, inside and above the range, repeated, naming each other's rows; rows nothing names
    stay bit-for-bit."""
    device = emulated_target_device
    m, lda, left, gap, right, k1, k2 = 90, 93, 13, 6, 12, 3, 50
    a = rand(rng, (lda, left + gap + right), dtype)
    piv = rng.integers(k1 + 1, m + 1, size=k2).astype(np.int32)
    piv[k1] = k1 + 1                     # a step that keeps its row
    piv[k1 + 1] = piv[k1 + 2]            # two steps naming the same row
    piv[k1 + 5] = k1 + 9                 # a row of the range, named before its own step
    piv[k2 - 1] = k1 + 2                 # the last step names an earlier row of the range
    A = device.array(np.asfortranarray(a).T.reshape(-1).copy())
    _lu_kernels.laswp_composed(left + right, A, lda, k1, k2, device.array(piv), gap=(left, gap))
    assert [x.name.split("<")[0] for x in device.launches[-2:]] == ["ra_rocsolver_laswp_plan",
                                                                   "ra_rocsolver_laswp_gather"]
    got = np.asarray(A).reshape(-1, lda).T
    want = swapped(a, k1 + 1, k2, piv, 1)
    np.testing.assert_array_equal(got[:, :left], want[:, :left])
    np.testing.assert_array_equal(got[:, left:left + gap], a[:, left:left + gap])
    np.testing.assert_array_equal(got[:, left + gap:], want[:, left + gap:])


def test_laswp_strided_batched(device, rng):
    batch, m, n, k2 = 3, 40, 21, 33
    lda, strideA, strideP = m + 1, (m + 1) * n + 5, k2 + 2
    a = rand(rng, (batch, lda, n), "float64")
    buf = np.full((batch - 1) * strideA + lda * n + 3, np.nan)
    for b in range(batch):
        buf[b * strideA:b * strideA + lda * n] = a[b].T.reshape(-1)
    piv = rng.integers(1, m + 1, size=(batch, strideP)).astype(np.int32)
    A = device.array(buf)
    rs.laswp_strided_batched(n, A, lda, strideA, 1, k2, device.array(piv.reshape(-1)), strideP, 1, batch)
    got = np.asarray(A)
    for b in range(batch):
        want = swapped(a[b], 1, k2, piv[b], 1)
        np.testing.assert_array_equal(got[b * strideA:b * strideA + lda * n].reshape(n, lda).T, want)
    gaps = [got[b * strideA + lda * n:(b + 1) * strideA] for b in range(batch - 1)]
    assert all(np.isnan(g).all() for g in gaps)


@pytest.mark.parametrize("dtype,nb", [("float64", 64), ("float64", 37), ("float32", 33), ("complex64", 64),
                                      ("complex128", 1)])
def test_unit_lower_inverse_matches_numpy(device, rng, dtype, nb):
    """W := inv(L) as a full square (zeros above, ones on the diagonal, bit-exact), for orders
    that fill one or two lane slots; A's diagonal and upper part (NaN here) are not read, W's
    spare rows are left alone."""
    lda, ldw = nb + 3, nb + 2
    a = rand(rng, (lda, nb), dtype) / nb            # small multipliers, as partial pivoting gives
    a[np.triu_indices(nb)] = np.nan
    A = device.array(np.asfortranarray(a).T.reshape(-1).copy())
    W = device.array(np.full(ldw * nb + 3, np.nan, dtype))
    _lu_kernels.unit_lower_inverse(nb, A, lda, W, ldw)
    assert device.names()[-1].startswith("ra_rocsolver_lu_inv")
    w = np.asarray(W)
    X = w[:ldw * nb].reshape(nb, ldw).T
    L = np.tril(np.nan_to_num(a[:nb]), -1) + np.eye(nb)
    assert np.isnan(X[nb:]).all() and np.isnan(w[ldw * nb:]).all()
    np.testing.assert_array_equal(np.triu(X[:nb], 1), 0)
    np.testing.assert_array_equal(np.diag(X[:nb]), 1)
    tol = 50 * nb * np.finfo(dtype).eps
    np.testing.assert_allclose(L.astype(lu_host.wide(dtype)) @ X[:nb], np.eye(nb), atol=tol)


# --------------------------------------------------------------------------------------------
# the device-wide panel (cooperative launch)
# --------------------------------------------------------------------------------------------

def panel_buffer(a, lda):
    """Column-major buffer of ``a`` with NaN in the spare rows of each column and after it."""
    m, n = a.shape
    buf = np.full(lda * n + 3, np.nan, a.dtype)
    for j in range(n):
        buf[j * lda:j * lda + m] = a[:, j]
    return buf


def factor_against_one_block(device, a, offset, factor):
    """The panel factored by ``factor(m, n, A, lda, ipiv, info)`` (a device-wide kernel, which
    also checks its launch) and by the one-block getf2: (buffer, ipiv, info) of each."""
    m, n = a.shape
    lda = m + 3
    out = []
    for wide in (True, False):
        A = device.array(panel_buffer(a, lda))
        ipiv = device.array(np.full(min(m, n), -7, np.int32))
        info = device.array(np.zeros(1, np.int32))
        if wide:
            factor(m, n, A, lda, ipiv, info)
        else:
            _lu_kernels.getf2(m, n, A, lda, 0, ipiv, 0, info, offset, 1)
        out.append((np.asarray(A).copy(), np.asarray(ipiv).copy(), int(np.asarray(info)[0])))
    return out


def factor_both(device, a, offset, blocks, rows_block=None):
    """The panel factored by the device-wide kernel (``blocks`` blocks of ``getf2_grid``, or
    ``getf2_rows`` with blocks of ``rows_block`` threads) and by the one-block getf2:
    (buffer, ipiv, info) of each."""
    def factor(m, n, A, lda, ipiv, info):
        if rows_block:
            sync = _lu_kernels.getf2_rows(m, n, A, lda, ipiv, info, offset, block=rows_block)
        else:
            sync = _lu_kernels.getf2_grid(m, n, A, lda, ipiv, info, offset, blocks=blocks)
        assert sync is not None
        _lu_kernels.check_grid_barrier(sync)
        assert not np.asarray(sync)[:16].any()     # the last block out zeroed the barrier's words
        launch = device.launches[-1]
        assert launch.cooperative
        if rows_block:
            assert launch.name.startswith("ra_rocsolver_getf2_rows")
            assert launch.grid[0] == -(-m // rows_block) and launch.block[0] == rows_block
        else:
            assert launch.name.startswith("ra_rocsolver_getf2_grid") and launch.grid[0] == blocks
    return factor_against_one_block(device, a, offset, factor)


def assert_like_one_block(a, offset, mine, one_block):
    """A device-wide panel's factors (``mine``: buffer, pivots, info) against the one-block
    kernel's (the same operations in the same order: the same bits) and LAPACK's rule; returns
    the factors as an ``m + 3`` by ``n`` array and the rule's factors."""
    m, n = a.shape
    lda = m + 3
    (buf, got_piv, got_info), (o_buf, o_piv, o_info) = mine, one_block
    np.testing.assert_array_equal(got_piv, o_piv)
    assert got_info == o_info
    np.testing.assert_array_equal(buf, o_buf)
    lu, piv, info = getf2_rule(a)
    np.testing.assert_array_equal(got_piv, piv + offset)
    assert got_info == (info + offset if info else 0)
    got = buf[:lda * n].reshape(n, lda).T
    assert np.isnan(got[m:]).all() and np.isnan(buf[lda * n:]).all()
    return got, lu


def check_panel(device, a, offset, blocks, rows_block=None):
    m = a.shape[0]
    got, lu = assert_like_one_block(a, offset, *factor_both(device, a, offset, blocks, rows_block))
    finite = np.isfinite(lu)
    eps = np.finfo(np.dtype(a.dtype)).eps
    atol = 60 * max(m, 1) * eps * max(1, abs(lu[finite]).max())
    np.testing.assert_allclose(got[:m][finite], lu[finite], rtol=0, atol=atol)


@pytest.mark.parametrize("emulated_target_device, dtype, m, n, blocks",
                         spread([(200, 32, 7), (90, 17, 5), (64, 1, 4), (33, 8, 33), (5, 12, 8), (130, 31, 3)], ALL),
                         indirect=["emulated_target_device"])
def test_grid_panel_matches_one_block_getf2(emulated_target_device, rng, dtype, m, n, blocks):
    check_panel(emulated_target_device, rand(rng, (m, n), dtype), 5, blocks)


@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_grid_panel_zero_columns_nan_and_ties(device, rng, dtype):
    m, n, blocks = 70, 8, 5    # 14 rows per block
    a = rand(rng, (m, n), dtype)
    a[:, 0] = 0
    a[3, 0], a[44, 0], a[60, 0] = -3, 3, 3      # a tie across blocks: the lowest row wins
    a[:, 2] = 0                                  # a zero column: info, the column left unscaled
    a[50, 4] = np.nan                            # a NaN never wins the pivot search
    a[:, 6] = np.nan                             # only NaN (after the update): the row stays
    check_panel(device, a, 0, blocks)
    (_, piv, info), _ = factor_both(device, a, 0, blocks)
    assert piv[0] == 4 and info == 3


@pytest.mark.parametrize("emulated_target_device, dtype, m, n, block",
                         spread([(200, 32, 64), (90, 17, 64), (33, 8, 64), (5, 12, 64), (130, 31, 128)], ALL),
                         indirect=["emulated_target_device"])
def test_rows_panel_matches_one_block_getf2(emulated_target_device, rng, dtype, m, n, block):
    """``getf2_rows`` (a thread per row, flags per block) against the one-block getf2, bit for
    bit, and LAPACK's rule: panels over 1 to 4 blocks, the last part empty, wider than tall."""
    check_panel(emulated_target_device, rand(rng, (m, n), dtype), 5, None, block)


def tied_panel(rng, m, n, dtype):
    """A random m x n panel (n >= 7, m > 140): column 0 zero but for -3, 3, 3 at rows 3, 70 and
    140 (a tie of magnitudes: row 3, the lowest, is the pivot), column 2 zero (info 3), a NaN in
    column 4, column 6 all NaN."""
    a = rand(rng, (m, n), dtype)
    a[:, 0] = 0
    a[3, 0], a[70, 0], a[140, 0] = -3, 3, 3
    a[:, 2] = 0
    a[50, 4] = np.nan
    a[:, 6] = np.nan
    return a


@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_rows_panel_zero_columns_nan_ties_and_epochs(device, rng, dtype):
    """Ties across blocks (the lowest row), a zero column (info, left unscaled), NaN never
    chosen, an all-NaN column (the row stays); then more launches on the same publication
    buffer (the next epochs' flags: no stale flag is taken for a new one), one of the widest type."""
    m, n, block = 150, 8, 64    # 3 blocks
    a = tied_panel(rng, m, n, dtype)
    check_panel(device, a, 0, None, block)
    (_, piv, info), _ = factor_both(device, a, 0, None, block)
    assert piv[0] == 4 and info == 3
    check_panel(device, rand(rng, (m, n), dtype), 0, None, block)
    check_panel(device, rand(rng, (m, 32), "complex128"), 0, None, block)


def test_rows_panel_routing(fake_device, monkeypatch):
    """With ROWS_KERNEL on, getf2_grid sends real panels of ROWS_PANEL_ROWS rows and more (default:
    all) to getf2_rows (256-thread blocks, one row each, cooperative, with sm_90's shared memory;
    halved blocks where it is short, none where even 64 do not fit), complex ones to its own shares;
    ROWS_KERNEL off (the default) keeps getf2_grid's shares for every panel."""
    from launchfake import SM90_SHARED
    from rocarray._core import backend

    monkeypatch.setattr(_lu_kernels, "ROWS_KERNEL", True)
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    A = fake_device.array((8192 * 32,), "float64")
    ipiv, info = fake_device.array((32,), "int32"), fake_device.array((1,), "int32")
    assert _lu_kernels.getf2_grid(_lu_kernels.ROWS_PANEL_ROWS - 1, 32, A, 8192, ipiv, info, 0) is None
    assert _lu_kernels.getf2_grid(8192, 33, A, 8192, ipiv, info, 0) is None
    assert not fake_device.launches
    assert _lu_kernels.getf2_grid(_lu_kernels.ROWS_PANEL_ROWS, 32, A, 8192, ipiv, info, 0) is not None
    assert _lu_kernels.getf2_grid(8192, 32, A, 8192, ipiv, info, 0) is not None
    small, tall = fake_device.launches[-2:]
    assert small.name == tall.name == "ra_rocsolver_getf2_rows<double>" and small.cooperative and tall.cooperative
    assert (small.grid[0], tall.grid[0]) == (1, 32) and tall.block[0] == 256
    assert tall.shared == _lu_kernels.rows_panel_shape(8192, 32, np.float64)[2]
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: 64 * 1024)
    assert _lu_kernels.getf2_rows(8192, 32, A, 8192, ipiv, info, 0) is not None
    assert fake_device.launches[-1].block[0] == 128 and fake_device.launches[-1].grid[0] == 64
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: 16 * 1024)
    assert _lu_kernels.getf2_rows(8192, 32, A, 8192, ipiv, info, 0) is None
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    Z = fake_device.array((8192 * 32,), "complex128")
    assert _lu_kernels.getf2_grid(8192, 32, Z, 8192, ipiv, info, 0) is not None
    assert fake_device.launches[-1].name == "ra_rocsolver_getf2_grid<ra_c128>"
    monkeypatch.setattr(_lu_kernels, "ROWS_KERNEL", False)
    assert _lu_kernels.getf2_grid(8192, 32, A, 8192, ipiv, info, 0) is not None
    assert fake_device.launches[-1].name == "ra_rocsolver_getf2_grid<double>"


def test_grid_panel_takes_tall_panels_only(fake_device, monkeypatch):
    monkeypatch.setattr(_lu_kernels, "ROWS_KERNEL", False)
    A = fake_device.array((4096 * 32,), "float64")
    ipiv, info = fake_device.array((32,), "int32"), fake_device.array((1,), "int32")
    assert _lu_kernels.getf2_grid(_lu_kernels.GRID_PANEL_ROWS - 1, 32, A, 4096, ipiv, info, 0) is None
    assert _lu_kernels.getf2_grid(4096, 33, A, 4096, ipiv, info, 0) is None
    assert not fake_device.launches
    assert _lu_kernels.getf2_grid(4096, 32, A, 4096, ipiv, info, 0) is not None
    launch = fake_device.launches[-1]
    blocks, share, shared = _lu_kernels.grid_panel_shape(4096, 32, np.float64, 0)
    assert launch.cooperative and launch.grid[0] == blocks == 128 and share == 32
    assert launch.shared == shared and launch.block[0] == _lu_kernels.GRID_BLOCK


def test_grid_barrier_gives_up_and_raises(emulated_device, rng, monkeypatch):
    """Blocks run one after another (not co-resident): the first gives up at its barrier after
    the spin limit, the next sees the flag and returns; the host raises and resets the state."""
    import kernel_emu

    monkeypatch.setattr(_lu_kernels, "GRID_SPIN_LIMIT", 2_000_000)  # 2 ms of the emulator's clock
    call = kernel_emu.EmulatedKernel.__call__
    monkeypatch.setattr(kernel_emu.EmulatedKernel, "__call__",
                        lambda self, grid, block, args, shared_mem=0, cooperative=False:
                        call(self, grid, block, args, shared_mem, False))
    m, n = 40, 4
    A = emulated_device.array(panel_buffer(rand(rng, (m, n), "float64"), m))
    ipiv, info = emulated_device.array(np.zeros(n, np.int32)), emulated_device.array(np.zeros(1, np.int32))
    sync = _lu_kernels.getf2_grid(m, n, A, m, ipiv, info, 0, blocks=3)
    assert np.asarray(sync).view(np.uint32)[2] == 1
    with pytest.raises(_lu_kernels.GridBarrierError, match="grid barrier"):
        _lu_kernels.check_grid_barrier(sync)
    assert not np.asarray(sync).any()


def test_rows_panel_gives_up_and_raises(emulated_device, rng, monkeypatch):
    """getf2_rows's blocks run one after another (not co-resident): the first gives up waiting
    for the others' flags, the rest see the error word and return; the host raises."""
    import kernel_emu

    monkeypatch.setattr(_lu_kernels, "GRID_SPIN_LIMIT", 2_000_000)
    call = kernel_emu.EmulatedKernel.__call__
    monkeypatch.setattr(kernel_emu.EmulatedKernel, "__call__",
                        lambda self, grid, block, args, shared_mem=0, cooperative=False:
                        call(self, grid, block, args, shared_mem, False))
    m, n = 150, 4
    A = emulated_device.array(panel_buffer(rand(rng, (m, n), "float64"), m))
    ipiv, info = emulated_device.array(np.zeros(n, np.int32)), emulated_device.array(np.zeros(1, np.int32))
    sync = _lu_kernels.getf2_rows(m, n, A, m, ipiv, info, 0, block=64)
    assert np.asarray(sync).view(np.uint32)[2] == 1
    with pytest.raises(_lu_kernels.GridBarrierError, match="grid barrier"):
        _lu_kernels.check_grid_barrier(sync)
    assert not np.asarray(sync).any()


@pytest.mark.parametrize("outer,lookahead,rows", [(0, False, False), (16, False, False), (16, True, False),
                                                  (16, True, True), (16, True, "cluster"), (16, False, "cluster")])
def test_blocked_getrf_with_grid_panels(device, rng, monkeypatch, outer, lookahead, rows):
    """The recursive LU with every panel factored across the device (8-column panels of 16-row
    blocks of getf2_grid, or with ``rows`` getf2_rows's 64-thread blocks) and the emulated laswp,
    plain (``outer`` 0) and in outer blocks of 16 columns with
    inverses of 16-column diagonal blocks (and with the look-ahead: the next block factored
    before the update beyond it, as a second stream may run it); trsm, gemm and the copies are
    lu_host's NumPy stand-ins (the rocblas kernels have tests of their own): LAPACK's pivots and
    a small backward error."""
    from rocarray import rocblas

    monkeypatch.setattr(rocblas, "trsm", lu_host.trsm)
    monkeypatch.setattr(rocblas, "gemm", lu_host.gemm)
    for name in ("inverse_workspace", "set_identities", "lacpy"):
        monkeypatch.setattr(_lu_kernels, name, getattr(lu_host, name))
    monkeypatch.setattr(_lu_blocked, "OUTER", outer)
    monkeypatch.setattr(_lu_blocked, "INVERSE_LEAF", 16)
    monkeypatch.setattr(_lu_blocked, "LOOKAHEAD", lookahead)
    monkeypatch.setattr(_lu_kernels, "overlap", lambda first, second, device_id: (first(), second()))
    monkeypatch.setattr(_lu_kernels, "GRID_PANEL_ROWS", 1)
    monkeypatch.setattr(_lu_kernels, "GRID_MIN_SHARE", 16)
    monkeypatch.setattr(_lu_kernels, "ROWS_KERNEL", rows is True)
    monkeypatch.setattr(_lu_kernels, "CLUSTER_PANEL", rows == "cluster")
    monkeypatch.setattr(_lu_kernels, "CLUSTER_PANEL_ROWS", 1)
    monkeypatch.setattr(_lu_kernels, "cluster_available", lambda device_id: True)
    # without the look-ahead the panels (37 other columns) keep the laswp launch; with it every
    # block's (at most 8 other columns) apply their interchanges themselves
    monkeypatch.setattr(_lu_kernels, "CLUSTER_SWAP_COLUMNS", 20)
    monkeypatch.setattr(_lu_kernels, "ROWS_PANEL_ROWS", 1)
    monkeypatch.setattr(_lu_kernels, "ROWS_BLOCK", 64)
    monkeypatch.setattr(_lu_blocked, "PANEL", 8)
    monkeypatch.setattr(_lu, "SMALL_SINGLE", 0)
    monkeypatch.setattr(_lu, "WARP_MAX", 0)
    monkeypatch.setattr(_lu, "register_block", lambda m, n, A: False)
    m, n = 70, 45
    a = rand(rng, (m, n), "float64")
    A = device.array(panel_buffer(a, m + 1))
    ipiv, info = device.array(np.full(n, -7, np.int32)), device.array(np.full(1, 99, np.int32))
    rs.getrf(m, n, A, m + 1, ipiv, info)
    names = device.names()
    kernel = {True: "ra_rocsolver_getf2_rows<double>", False: "ra_rocsolver_getf2_grid<double>",
              "cluster": "ra_rocsolver_getf2_cluster<double, 8, false>"}[rows]
    assert names.count(kernel) == 6 and not any("getf2<" in x for x in names)
    # one launch per panel for both its sides; a look-ahead block's panels keep their swaps to
    # the block's own columns and one composed permutation (plan, gather) applies them to the
    # other columns (blocks 0's and 16's in two parts, the next block's columns and then the
    # rest: LASWP_DEFERRED; the last block's at once)
    assert names.count("ra_rocsolver_laswp<double>") == (0 if rows == "cluster" and lookahead else 6)
    assert names.count("ra_rocsolver_laswp_plan<double>") == names.count("ra_rocsolver_laswp_gather<double>") == (
        5 if lookahead else 0)
    lu = np.asarray(A)[:(m + 1) * n].reshape(n, m + 1).T[:m]
    piv = np.asarray(ipiv)
    assert int(np.asarray(info)[0]) == 0
    np.testing.assert_array_equal(piv, getf2_rule(a)[1])
    L = np.tril(lu, -1)[:, :n] + np.eye(m, n)
    U = np.triu(lu[:n])
    perm = np.arange(m)
    for j, p in enumerate(piv):
        perm[[j, p - 1]] = perm[[p - 1, j]]
    assert np.linalg.norm(L @ U - a[perm]) / (np.linalg.norm(a) * m * np.finfo(float).eps) < 4


def _outer_blocks(monkeypatch):
    """The outer-block design with the panel threshold it was planned with, and sm_90's shared
    memory (the H100's routing of the panels: every panel of ROWS_PANEL_ROWS rows or more to
    getf2_rows)."""
    from launchfake import SM90_SHARED
    from rocarray._core import backend

    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    monkeypatch.setattr(_lu_blocked, "OUTER", 256)
    monkeypatch.setattr(_lu_kernels, "GRID_PANEL_ROWS", 1024)


def test_getrf_8192_launch_counts(fake_device, monkeypatch):
    """Which kernels one getrf of 8192 x 8192 float64 launches with ROWS_KERNEL on (recorded, not
    run): 256 panels of 32 columns, those of at least ROWS_PANEL_ROWS rows across the device
    (getf2_rows, cooperatively; by default every panel, the short ones in one block); one laswp per panel
    (both sides, the panel's columns skipped); the barrier checked once. The solves for U12 go
    through inverses of the 64-column diagonal blocks: the only trsm leaves are the 32 x 32
    solves inside each 64-column block (128, one block of 32 vectors each), and one ``lu_inv``
    launch inverts each 64-column block (all but the last: 127); each of the 31 outer
    blocks with columns on its right stages them once (lacpy) and updates the trailing matrix
    with ONE gemm of depth 256 (was 576 leaves, on up to 8160 right-hand sides)."""
    checks = []
    _outer_blocks(monkeypatch)
    monkeypatch.setattr(_lu_kernels, "ROWS_KERNEL", True)   # (off by default)
    monkeypatch.setattr(_lu_kernels, "CLUSTER_PANEL", False)   # the cluster would take the panels first
    monkeypatch.setattr(_lu_blocked, "LOOKAHEAD", False)   # one stream (the next test has the look-ahead)
    monkeypatch.setattr(_lu_kernels, "clear_info", lambda info, batch: None)   # CuPy's fill: no kernel here
    monkeypatch.setattr(_lu_kernels, "check_grid_barrier", checks.append)
    identities = []
    monkeypatch.setattr(_lu_kernels, "set_identities", lambda X, nb, count: identities.append((nb, count)))
    n = 8192
    A = fake_device.array((n * n,), "float64")
    ipiv, info = fake_device.array((n,), "int32"), fake_device.array((1,), "int32")
    rs.getrf(n, n, A, n, ipiv, info)
    names = fake_device.names()
    grid = [x for x in fake_device.launches if x.name.startswith("ra_rocsolver_getf2_rows")]
    tall = sum(1 for j0 in range(0, n, 32) if n - j0 >= _lu_kernels.ROWS_PANEL_ROWS)
    assert len(grid) == tall == 256 and all(x.cooperative for x in grid)
    assert "ra_rocsolver_getf2_grid<double>" not in names
    assert not any(x.startswith("ra_rocsolver_getf2<") for x in names)
    assert names.count("ra_rocsolver_laswp<double>") == 256         # both sides of a panel in one launch
    assert sum(x.cooperative for x in fake_device.launches) == 256
    assert grid[0].grid[0] == 32 and grid[-1].grid[0] == 1      # 8192 rows: 32 blocks of 256; 32: one
    assert all(x.block[0] == 256 for x in grid)
    assert len(checks) == 1
    assert identities == [(256, 32)]
    leaves = [x for x in fake_device.launches if x.name == "ra_rocblas_trsm_leaf<double>"]
    assert len(leaves) == 128 and all(x.grid[0] == 1 for x in leaves)
    inverses = [x for x in fake_device.launches if x.name == "ra_rocsolver_lu_inv<double>"]
    assert len(inverses) == 127 and all(x.grid[0] == 16 and x.block[0] == 128 for x in inverses)
    assert names.count("ra_rocsolver_lacpy<double>") == 127                     # 96 inner, 31 outer
    gemms = [x for x in names if x.startswith("ra_rocblas_gemm_f64mma")]
    assert len(gemms) == 570 and not any("splitk" in x for x in names)
    assert len(fake_device.launches) == 1718 - 254
    counts = {}
    for name in names:
        counts[name.split("<")[0]] = counts.get(name.split("<")[0], 0) + 1
    print("getrf 8192 float64 launches:", dict(sorted(counts.items())))


def test_getrf_8192_lookahead_launch_counts(fake_device, monkeypatch):
    """The look-ahead's launches at 8192 float64 (recorded, not run; the two streams' launches in
    issue order): the same kernels as without it, 31 blocks factored beside the update of the
    columns beyond them, each with its interchanges on the other columns as composed permutations
    (laswp_plan and laswp_gather: the next block's columns after the join, the rest in the next
    overlap's update, the last block's at once; the first block's as a look-ahead block's; the
    panels' laswp launches cover the block's own columns) and one more copy and
    two more gemms (the next block's columns solved and updated apart from the rest)."""
    overlaps = []
    _outer_blocks(monkeypatch)
    monkeypatch.setattr(_lu_kernels, "ROWS_KERNEL", True)   # (off by default)
    monkeypatch.setattr(_lu_kernels, "CLUSTER_PANEL", False)
    monkeypatch.setattr(_lu_blocked, "LOOKAHEAD", True)
    monkeypatch.setattr(_lu_kernels, "clear_info", lambda info, batch: None)
    monkeypatch.setattr(_lu_kernels, "check_grid_barrier", lambda sync: None)
    monkeypatch.setattr(_lu_kernels, "set_identities", lambda X, nb, count: None)
    monkeypatch.setattr(_lu_kernels, "overlap", lambda first, second, device_id: (overlaps.append(1), first(),
                                                                                 second()))
    n = 8192
    A = fake_device.array((n * n,), "float64")
    ipiv, info = fake_device.array((n,), "int32"), fake_device.array((1,), "int32")
    rs.getrf(n, n, A, n, ipiv, info)
    names = fake_device.names()
    assert len(overlaps) == 31
    assert names.count("ra_rocsolver_getf2_rows<double>") == 256
    assert names.count("ra_rocsolver_laswp<double>") == 256
    assert names.count("ra_rocsolver_laswp_plan<double>") == names.count("ra_rocsolver_laswp_gather<double>") == 63
    assert names.count("ra_rocblas_trsm_leaf<double>") == 128 and names.count("ra_rocsolver_lu_inv<double>") == 127
    assert names.count("ra_rocsolver_lacpy<double>") == 127 + 30
    assert sum(x.startswith("ra_rocblas_gemm_f64mma") for x in names) == 570 + 2 * 30


@pytest.mark.parametrize("one_launch", [True, False])
def test_getrs_8192_one_rhs_launch_counts(fake_device, monkeypatch, one_launch):
    """getrs of 8192 float64 with one right-hand side (recorded, not run): laswp and two trsv
    instead of two trsm (541 launches: 256 leaves, 254 gemms and 30 split-k finishes); a trsv is
    one launch, or (``TRSV_ONE_LAUNCH = False``) 64 diagonal-block solves and 63 gemv."""
    from rocarray.rocblas import _level2

    monkeypatch.setattr(_lu_blocked, "GETRS_TRSV_RHS", 1)
    monkeypatch.setattr(_level2, "TRSV_ONE_LAUNCH", one_launch)
    n = 8192
    A = fake_device.array((n * n,), "float64")
    B = fake_device.array((n,), "float64")
    ipiv = fake_device.array((n,), "int32")
    rs.getrs("N", n, 1, A, n, ipiv, B, n)
    names = [x.split("<")[0] for x in fake_device.names()]
    assert names.count("ra_rocsolver_laswp") == 1
    if one_launch:
        assert names == ["ra_rocsolver_laswp", "ra_rocblas_trsv_one", "ra_rocblas_trsv_one"]
        return
    assert names.count("ra_rocblas_trsv_block") == 128 and names.count("ra_rocblas_gemv_n") == 126
    assert len(names) == 255


# --------------------------------------------------------------------------------------------
# the panel on one thread-block cluster (rows in registers)
# --------------------------------------------------------------------------------------------

def factor_cluster_and_one_block(device, a, offset, block, blocks=8):
    """The panel factored by ``getf2_cluster`` (``blocks`` blocks of ``block`` threads, one row
    each) and by the one-block getf2: (buffer, ipiv, info) of each."""
    def factor(m, n, A, lda, ipiv, info):
        assert _lu_kernels.getf2_cluster(m, n, A, lda, ipiv, info, offset, block=block, blocks=blocks)
        launch = device.launches[-1]
        assert launch.name.startswith("ra_rocsolver_getf2_cluster") and not launch.cooperative
        look = _lu_kernels.CLUSTER_LOOKAHEAD
        fence = ", true" if _lu_kernels.CLUSTER_ONE_FENCE and not look else ""
        assert launch.name.endswith(f", {blocks}, {'true' if look else 'false'}{fence}>")
        assert launch.grid[0] == blocks and launch.block[0] == block
    return factor_against_one_block(device, a, offset, factor)


#: The cluster panel's steps: plain (every warp's release arrive), the look-ahead, and the plain
#: step with one fence a block.
STEPS = ["plain", "lookahead", "onefence"]


def set_step(monkeypatch, step):
    monkeypatch.setattr(_lu_kernels, "CLUSTER_LOOKAHEAD", step == "lookahead")
    monkeypatch.setattr(_lu_kernels, "CLUSTER_ONE_FENCE", step == "onefence")


def check_cluster_panel(device, a, offset, block, blocks=8):
    mine, one_block = factor_cluster_and_one_block(device, a, offset, block, blocks)
    assert_like_one_block(a, offset, mine, one_block)
    return mine[1], mine[2]


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("emulated_target_device, dtype, m, n, block",
                         spread([(1000, 32, 128), (250, 17, 64), (5, 12, 64), (130, 31, 64)], ALL),
                         indirect=["emulated_target_device"])
def test_cluster_panel_matches_one_block_getf2(emulated_target_device, rng, monkeypatch, dtype, m, n, block, step):
    """``getf2_cluster`` (8 blocks reading each other's publications through the emulator's
    cluster model) against the one-block getf2, bit for bit, and LAPACK's rule: 1000 rows in 8
    blocks of 128, a short last block and empty blocks (250 and 130 rows in blocks of 64), wider
    than tall. The 64-lane target runs the same body (only NVIDIA has clusters: the host is told
    the emulated AMD device has them, to prove the kernel free of a warp size). Both steps:
    the plain one and the look-ahead (column j + 1 searched and published before the rest of the
    update), and the plain step with one fence a block."""
    monkeypatch.setattr(_lu_kernels, "cluster_available", lambda device_id: True)
    set_step(monkeypatch, step)
    check_cluster_panel(emulated_target_device, rand(rng, (m, n), dtype), 5, block)


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_cluster_panel_zero_columns_nan_and_ties(device, rng, monkeypatch, dtype, step):
    """Ties across blocks (the lowest row wins), a zero column (info, the column left unscaled),
    a NaN never chosen, an all-NaN column (the row stays); 300 rows in blocks of 64 (5 blocks
    with rows, the fifth short); both steps."""
    monkeypatch.setattr(_lu_kernels, "cluster_available", lambda device_id: True)
    set_step(monkeypatch, step)
    m, n = 300, 8
    a = tied_panel(rng, m, n, dtype)
    piv, info = check_cluster_panel(device, a, 0, 64)
    assert piv[0] == 4 and info == 3


@pytest.mark.parametrize("step", STEPS)
def test_wide_cluster_panel_matches_one_block_getf2(emulated_device, rng, monkeypatch, step):
    """The 16-block cluster (a non-portable size): 500 rows in 16 blocks of 32, the last short."""
    monkeypatch.setattr(_lu_kernels, "cluster_available", lambda device_id: True)
    set_step(monkeypatch, step)
    check_cluster_panel(emulated_device, rand(rng, (500, 32), "float64"), 2, 32, blocks=16)


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("emulated_target_device, dtype, m, n, block, blocks, left, right",
                         [("cuda32", "float64", 300, 32, 64, 8, 7, 150), ("cuda32", "complex128", 250, 17, 32, 8, 0, 41),
                          ("cuda32", "float32", 5, 12, 32, 8, 3, 0), ("cuda32", "float64", 500, 32, 32, 16, 40, 9),
                          ("hip64", "complex64", 130, 31, 128, 8, 19, 70), ("hip64", "float64", 300, 32, 64, 8, 1, 1)],
                         indirect=["emulated_target_device"])
def test_cluster_panel_swaps_the_other_columns(emulated_target_device, rng, monkeypatch, dtype, m, n, block, blocks,
                                               left, right, step):
    """``getf2_cluster`` with ``others = (left, right)``: the panel as the one-block getf2 gives
    it, bit for bit, and the columns on both sides with the panel's interchanges applied, as
    LAPACK's laswp does (pure moves: equal exactly), the NaN rows below them untouched. Blocks
    of 32 threads (two row slots a thread), of 64 (one) and of 128 (two column lanes); more
    columns than one round takes (150 right of 8 blocks of one lane: five rounds), one column
    on each side, none on one side, fewer rows than columns, 16 blocks."""
    device = emulated_target_device
    monkeypatch.setattr(_lu_kernels, "cluster_available", lambda device_id: True)
    set_step(monkeypatch, step)
    width = left + n + right
    full = rand(rng, (m, width), dtype)
    lda = m + 3
    A = device.array(panel_buffer(full, lda))
    ipiv, info = device.array(np.full(min(m, n), -7, np.int32)), device.array(np.zeros(1, np.int32))
    assert _lu_kernels.getf2_cluster(m, n, A[left * lda:], lda, ipiv, info, 4, block=block, blocks=blocks,
                                     other=A, others=(left, right))
    got = np.asarray(A).copy()
    piv = np.asarray(ipiv).copy()
    # the panel alone on the one-block getf2
    B = device.array(panel_buffer(full[:, left:left + n], lda))
    ipiv1, info1 = device.array(np.full(min(m, n), -7, np.int32)), device.array(np.zeros(1, np.int32))
    _lu_kernels.getf2(m, n, B, lda, 0, ipiv1, 0, info1, 4, 1)
    np.testing.assert_array_equal(piv, np.asarray(ipiv1))
    assert int(np.asarray(info)[0]) == int(np.asarray(info1)[0])
    np.testing.assert_array_equal(got[left * lda:(left + n) * lda], np.asarray(B)[:n * lda])
    expected = full.copy()
    for j, p in enumerate(piv - 4 - 1):
        expected[[j, p], :] = expected[[p, j], :]
    for c in list(range(left)) + list(range(left + n, width)):
        np.testing.assert_array_equal(got[c * lda:c * lda + m], expected[:, c], err_msg=f"column {c}")
        assert np.isnan(got[c * lda + m:(c + 1) * lda]).all()


def test_cluster_panel_swaps_need_a_warp_of_rows(fake_device, monkeypatch):
    """Blocks narrower than 32 threads cannot hold the 64 row slots: a clear error, no launch."""
    monkeypatch.setattr(_lu_kernels, "cluster_available", lambda device_id: True)
    A = fake_device.array((300 * 40,), "float64")
    ipiv, info = fake_device.array((32,), "int32"), fake_device.array((1,), "int32")
    with pytest.raises(ValueError, match="at least 32 threads"):
        _lu_kernels.getf2_cluster(100, 32, A, 300, ipiv, info, 0, block=16, blocks=8, others=(0, 8))
    assert not fake_device.launches


def test_cluster_panel_routing(fake_device, monkeypatch):
    """``getf2_cluster`` launches one cluster of 8 blocks, each of ``ceil(m / 8)`` threads in whole
    warps: only with CLUSTER_PANEL on (unless a block is given), from CLUSTER_PANEL_ROWS rows up to
    8 x 512 (16-byte types: 8 x 256), n <= 32, on a device with clusters; taller panels (with
    CLUSTER_WIDE) one cluster of 16 blocks, up to 16 x 512."""
    A = fake_device.array((8192 * 32,), "float64")
    Z = fake_device.array((4096 * 32,), "complex128")
    monkeypatch.setattr(_lu_kernels, "CLUSTER_WIDE", False)
    ipiv, info = fake_device.array((32,), "int32"), fake_device.array((1,), "int32")
    monkeypatch.setattr(_lu_kernels, "CLUSTER_PANEL", False)
    assert not _lu_kernels.getf2_cluster(4096, 32, A, 4096, ipiv, info, 0)
    monkeypatch.setattr(_lu_kernels, "CLUSTER_PANEL", True)
    monkeypatch.setattr(_lu_kernels, "cluster_available", lambda device_id: False)
    assert not _lu_kernels.getf2_cluster(4096, 32, A, 4096, ipiv, info, 0)
    monkeypatch.setattr(_lu_kernels, "cluster_available", lambda device_id: True)
    assert not _lu_kernels.getf2_cluster(_lu_kernels.CLUSTER_PANEL_ROWS - 1, 32, A, 4096, ipiv, info, 0)
    assert not _lu_kernels.getf2_cluster(4097, 32, A, 4097, ipiv, info, 0)
    assert not _lu_kernels.getf2_cluster(4096, 33, A, 4096, ipiv, info, 0)
    assert not _lu_kernels.getf2_cluster(2049, 32, Z, 2049, ipiv, info, 0)
    assert not fake_device.launches
    assert _lu_kernels.getf2_cluster(4096, 32, A, 4096, ipiv, info, 0)
    assert _lu_kernels.getf2_cluster(1000, 32, A, 4096, ipiv, info, 0)
    assert _lu_kernels.getf2_cluster(2048, 32, Z, 2048, ipiv, info, 0)
    tall, short, wide = fake_device.launches
    assert tall.name == "ra_rocsolver_getf2_cluster<double, 8, false>" and not tall.cooperative
    assert (tall.grid[0], tall.block[0]) == (8, 512) and (short.grid[0], short.block[0]) == (8, 128)
    assert wide.name == "ra_rocsolver_getf2_cluster<ra_c128, 8, false>" and wide.block[0] == 256
    monkeypatch.setattr(_lu_kernels, "CLUSTER_WIDE", True)
    assert not _lu_kernels.getf2_cluster(8193, 32, A, 8193, ipiv, info, 0)
    assert _lu_kernels.getf2_cluster(4097, 32, A, 4097, ipiv, info, 0)
    assert _lu_kernels.getf2_cluster(8192, 32, A, 8192, ipiv, info, 0)
    assert _lu_kernels.getf2_cluster(4096, 32, Z, 4096, ipiv, info, 0)
    low, high, z = fake_device.launches[-3:]
    assert low.name == high.name == "ra_rocsolver_getf2_cluster<double, 16, false>"
    assert (low.grid[0], low.block[0]) == (16, 288) and (high.grid[0], high.block[0]) == (16, 512)
    assert z.name == "ra_rocsolver_getf2_cluster<ra_c128, 16, false>" and (z.grid[0], z.block[0]) == (16, 256)


@pytest.mark.parametrize("wide", [True, False])
def test_getrf_8192_cluster_panel_counts(fake_device, monkeypatch, wide):
    """With CLUSTER_PANEL on, a getrf of 8192 float64 (recorded, not run) factors the panels of
    256 to 4096 rows on a cluster of 8 (121), the taller ones on a cluster of 16 (128; with
    CLUSTER_WIDE off across the device) and the shorter ones in one block (7)."""
    from launchfake import SM90_SHARED
    from rocarray._core import backend

    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    monkeypatch.setattr(_lu_kernels, "CLUSTER_PANEL", True)
    monkeypatch.setattr(_lu_kernels, "ROWS_KERNEL", False)
    monkeypatch.setattr(_lu_kernels, "cluster_available", lambda device_id: True)
    monkeypatch.setattr(_lu_kernels, "CLUSTER_WIDE", wide)
    monkeypatch.setattr(_lu_kernels, "clear_info", lambda info, batch: None)
    monkeypatch.setattr(_lu_kernels, "check_grid_barrier", lambda sync: None)
    monkeypatch.setattr(_lu_kernels, "set_identities", lambda X, nb, count: None)
    monkeypatch.setattr(_lu_kernels, "overlap", lambda first, second, device_id: (first(), second()))
    n = 8192
    A = fake_device.array((n * n,), "float64")
    ipiv, info = fake_device.array((n,), "int32"), fake_device.array((1,), "int32")
    rs.getrf(n, n, A, n, ipiv, info)
    names = fake_device.names()
    assert names.count("ra_rocsolver_getf2_cluster<double, 8, false>") == 121
    assert names.count("ra_rocsolver_getf2_cluster<double, 16, false>") == (128 if wide else 0)
    assert names.count("ra_rocsolver_getf2_grid<double>") == (0 if wide else 128)
    assert sum(x.startswith("ra_rocsolver_getf2<") for x in names) == 7
