"""The block Jacobi path of gesvdj (``ra_rocsolver_gesvdj_block_gram/_eig/_rotate``, ``svd.hip``)
run on the CPU through the kernel emulator (tests/kernel_emu.py), for NVIDIA's 32-lane warps and
AMD's 64-lane wavefronts, through ``rocsolver.gesvdj_strided_batched`` and ``ra.linalg.svd``,
against NumPy in float64: singular values within ``30 p eps ||A||``, ``||U S V^H - A||``,
orthonormal U and V. ``BLOCK_Q`` is lowered so that orders 65..200 take the block path (its
default sends only larger ones there). CPU tests: skipped where g++ is missing.
"""

import numpy as np
import pytest

from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture the emulated ones build on)

import rocarray as ra
import rocarray.rocsolver as rocsolver
from rocarray.rocsolver import _svd

from test_gesvdj import Layout, check_svd, random_matrices

SEED = 20261206


@pytest.fixture
def block_path(monkeypatch):
    monkeypatch.setattr(_svd, "BLOCK_Q", 65)


def _run(dev, a, left, right, max_sweeps=100):
    """gesvdj_strided_batched on the emulator with NaN-poisoned, padded outputs; (u, s, vh, info,
    residual, n_sweeps) on the host, after checking the block launches ran and A is unchanged."""
    lay = Layout(a, left, right)
    host_a = lay.A.copy()
    for name in ("A", "S", "U", "V", "residual", "n_sweeps", "info"):
        value = getattr(lay, name)
        if value is not None:
            setattr(lay, name, dev.array(value))
    rocsolver.gesvdj_strided_batched(*lay.args(0.0, max_sweeps))
    names = dev.names()
    assert any(n.startswith("ra_rocsolver_gesvdj_block_eig<") for n in names)
    assert not any(n.startswith("ra_rocsolver_gesvdj_round<") for n in names)
    np.testing.assert_array_equal(np.asarray(lay.A), host_a)
    u, s, vh = lay.results(np.asarray)
    return u, s, vh, np.asarray(lay.info), np.asarray(lay.residual), np.asarray(lay.n_sweeps)


# (dtype, shape, vectors): each dtype with one choice of vectors, every choice at least once
@pytest.mark.parametrize("dtype, shape, left, right", [
    ("float32", (67, 71), "A", "A"), ("float64", (71, 67), "S", "N"), ("complex64", (71, 67), "N", "S"),
    ("complex128", (67, 71), "A", "A")])
def test_block_path_matches_numpy_32_lanes(emulated_device, block_path, dtype, shape, left, right):
    # 67 columns: 5 blocks (the last one 3 wide) and a pad block, 3 pairs a round; A^H for m < n
    rng = np.random.default_rng(SEED)
    a = random_matrices(rng, (1,) + shape, dtype)
    u, s, vh, info, residual, sweeps = _run(emulated_device, a, left, right)
    assert list(info) == [0]
    assert 1 <= sweeps[0] < 30
    assert residual[0] <= _svd.default_tolerance(dtype, 71)
    check_svd(a, u, s, vh)


@pytest.mark.parametrize("dtype, left, right", [("float32", "A", "S"), ("float64", "N", "N"), ("complex64", "N", "N"),
                                                ("complex128", "A", "S")])
def test_block_path_64_lanes_batch_and_no_vectors(emulated_wave64_device, block_path, dtype, left, right):
    # a batch of two 73 x 66 matrices (5 blocks, the last one 2 wide), with vectors or values only
    rng = np.random.default_rng(SEED + 1)
    a = random_matrices(rng, (2, 73, 66), dtype)
    u, s, vh, info, residual, sweeps = _run(emulated_wave64_device, a, left, right)
    assert list(info) == [0, 0]
    assert np.all(sweeps >= 1) and np.all(sweeps < 30)
    check_svd(a, u, s, vh)


@pytest.mark.slow
def test_block_path_order_200_float64(emulated_device, block_path):
    # 13 blocks: 7 pairs a round, 13 rounds a sweep
    rng = np.random.default_rng(SEED + 2)
    a = random_matrices(rng, (1, 200, 200), "float64")
    u, s, vh, info, residual, sweeps = _run(emulated_device, a, "A", "A")
    assert list(info) == [0] and 1 <= sweeps[0] < 30
    check_svd(a, u, s, vh)


@pytest.mark.parametrize("dtype", ["float64"])
def test_block_path_rank_deficient_graded_and_zero_columns(emulated_device, block_path, dtype):
    rng = np.random.default_rng(SEED + 3)
    m, q = 83, 70
    uq = np.linalg.qr(rng.standard_normal((m, q)))[0]
    vq = np.linalg.qr(rng.standard_normal((q, q)))[0]
    graded = (uq * np.logspace(0, -6 if dtype == "complex64" else -10, q)) @ vq.T   # cond 1e6 / 1e10
    lowrank = (uq[:, :3] * [3.0, 2.0, 1.0]) @ vq[:, :3].T                             # rank 3
    zero_cols = random_matrices(rng, (m, q), dtype)
    zero_cols[:, 1] = 0
    zero_cols[:, 40] = 0
    zero_cols[:, 3] = zero_cols[:, 2]      # a repeated column, in the same block
    zero_cols[:, 50] = zero_cols[:, 20]    # and one in another block
    a = np.stack([graded, lowrank, zero_cols]).astype(dtype)
    u, s, vh, info, residual, sweeps = _run(emulated_device, a, "A", "A")
    assert list(info) == [0, 0, 0]
    assert np.all(np.isfinite(u)) and np.all(np.isfinite(vh))
    check_svd(a, u, s, vh)
    want = np.linalg.svd(a[0].astype(np.complex128), compute_uv=False)
    assert np.max(np.abs(s[0] - want)) <= 30 * m * np.finfo(dtype).eps * want[0]
    assert np.count_nonzero(s[2] <= 1e-5 * s[2][0]) == 4    # two zero columns and two repeats


def test_block_path_already_orthogonal_columns_take_one_sweep(emulated_device, block_path):
    # columns orthogonal from the start (a scaled diagonal, a permuted orthonormal matrix): every
    # pair is at the tolerance in the first sweep, nothing rotates, and V stays a permutation
    rng = np.random.default_rng(SEED + 4)
    q = 66
    diag = np.zeros((70, q))
    diag[np.arange(q), np.arange(q)] = rng.uniform(0.5, 4.0, q)
    ortho = np.linalg.qr(rng.standard_normal((70, q)))[0] * rng.uniform(0.5, 4.0, q)
    a = np.stack([diag, ortho])
    u, s, vh, info, residual, sweeps = _run(emulated_device, a, "S", "S")
    assert list(info) == [0, 0] and list(sweeps) == [1, 1]
    np.testing.assert_array_equal(s[0], np.sort(diag.diagonal())[::-1])
    assert np.array_equal(np.abs(vh[0]) > 0, np.abs(vh[0]) == 1)     # a permutation
    check_svd(a, u, s, vh)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_block_path_non_finite_input_stops_after_one_sweep(emulated_device, block_path, bad):
    rng = np.random.default_rng(SEED + 5)
    a = random_matrices(rng, (2, 70, 68), "float64")
    a[0, 5, 40] = bad
    with np.errstate(invalid="ignore"):
        u, s, vh, info, residual, sweeps = _run(emulated_device, a, "N", "N")
    assert list(info) == [1, 0] and sweeps[0] == 1
    check_svd(a[1:], None, s[1:], None)


def test_block_path_too_few_sweeps_report_info_1(emulated_device, block_path):
    rng = np.random.default_rng(SEED + 6)
    a = random_matrices(rng, (1, 70, 70), "float32")
    u, s, vh, info, residual, sweeps = _run(emulated_device, a, "N", "N", max_sweeps=1)
    assert list(info) == [1] and list(sweeps) == [1]
    assert residual[0] > _svd.default_tolerance("float32", 70)


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_linalg_svd_on_the_block_path(emulated_device, block_path, dtype):
    rng = np.random.default_rng(SEED + 7)
    a = random_matrices(rng, (75, 69), dtype)
    u, s, vh = ra.linalg.svd(emulated_device.array(a))
    assert any(n.startswith("ra_rocsolver_gesvdj_block_rotate<") for n in emulated_device.names())
    check_svd(a[None], np.asarray(u)[None], np.asarray(s)[None], np.asarray(vh)[None])
    s_only = ra.linalg.svd(emulated_device.array(a), compute_uv=False)
    np.testing.assert_allclose(np.asarray(s_only), np.asarray(s), rtol=0, atol=30 * 75 * np.finfo(dtype).eps * s[0])


def test_block_path_is_taken_from_block_q_on(emulated_device, monkeypatch):
    # SMALL_Q lowered too, so that both large-matrix paths run on 20 columns
    monkeypatch.setattr(_svd, "SMALL_Q", 16)
    rng = np.random.default_rng(SEED + 8)
    a = random_matrices(rng, (1, 23, 20), "float32")
    for block_q, kernel in ((21, "ra_rocsolver_gesvdj_round<"), (20, "ra_rocsolver_gesvdj_block_gram<")):
        monkeypatch.setattr(_svd, "BLOCK_Q", block_q)
        lay = Layout(a, "S", "S")
        for name in ("A", "S", "U", "V", "residual", "n_sweeps", "info"):
            setattr(lay, name, emulated_device.array(getattr(lay, name)))
        rocsolver.gesvdj_strided_batched(*lay.args(0.0, 100))
        assert any(n.startswith(kernel) for n in emulated_device.names())
        assert list(np.asarray(lay.info)) == [0]
        check_svd(a, *lay.results(np.asarray))
