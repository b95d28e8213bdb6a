"""The fused panel columns of the tridiagonal reduction (``rocarray/_kernels/rocsolver/sytrd.hip``)
run on the CPU through the kernel emulator (tests/kernel_emu.py), on the 32-lane (NVIDIA-like) and
64-lane (AMD wavefront) targets, with the trailing syr2k/her2k on NumPy stand-ins.

* :func:`rocarray.rocsolver._sytrd.reduce` against LAPACK's sytrd/hetrd conventions: ``A = Q T Q^H``
  with Q built from the kernels' reflectors and tau, Q unitary, T's eigenvalues A's, the other
  triangle untouched; odd orders, orders below the panel width, the panel width plus one, several
  panels, both triangles, every dtype; many blocks sharing a column's rows and blocks looping over
  the tiles. Each order runs on both targets and every dtype and triangle on each target, in
  pairs (:data:`CASES`) rather than the whole product: the emulator runs a block's threads one
  after another, so the product took minutes of the CPU suite for no path it does not reach.
* Against the per-column path on the same input (the same algorithm, sums in another order): the
  first reflector to rounding, T's eigenvalues.
* The launch count: two a column and one a panel, nothing else from the kernels' source, for
  both kernel pairs (:data:`rocarray.rocsolver._sytrd_kernels.WARP_TILES`) and both warp-tile
  symv kernels (:data:`rocarray.rocsolver._sytrd_kernels.STAGED`); the other tests run the
  default (warp tiles, the staged symv), and one runs the butterfly symv and the block-tile pair too.
* The row-block sum kernel alone on sums longer than the batch of loads it keeps in flight (a
  trailing matrix of order 4100), against NumPy on the same partials.

CPU tests: skipped where g++ is missing.
"""

import types

import numpy as np
import pytest
import scipy.linalg

import eigh_host
import kernel_emu
from launchfake import fake_device  # noqa: F401 (the fixture the emulated device builds on)
from test_eigh import _flat_matrix, _tridiagonal_q, eps, hermitian

from rocarray.rocsolver import _eigh_kernels, _sytrd, _sytrd_kernels

# (target, dtype, n, nb, uplo): one element, below the panel, panel + 1, odd orders over several
# panels; every order on both targets, every dtype and triangle on each target
CASES = [("cuda32", "float64", 1, 4, "L"), ("hip64", "complex128", 1, 4, "U"),
         ("cuda32", "complex64", 2, 4, "U"), ("hip64", "float32", 2, 4, "L"),
         ("cuda32", "float32", 3, 8, "L"), ("hip64", "complex64", 3, 8, "U"),
         ("cuda32", "complex128", 9, 8, "U"), ("hip64", "float64", 9, 8, "L"),
         ("cuda32", "float64", 9, 4, "U"), ("hip64", "complex128", 9, 4, "L"),
         ("cuda32", "complex64", 17, 16, "L"), ("hip64", "float32", 17, 16, "U"),
         ("cuda32", "float32", 40, 8, "U"), ("hip64", "complex128", 40, 8, "L"),
         ("cuda32", "float64", 70, 32, "L"), ("hip64", "complex64", 70, 32, "U"),
         ("cuda32", "complex128", 17, 16, "L"), ("hip64", "float64", 40, 8, "U")]
#: (target, dtype) pairs of the tests that need one case per dtype: every dtype, both targets
PAIRS = [("cuda32", "float32"), ("hip64", "float64"), ("cuda32", "complex64"), ("hip64", "complex128")]


def _real(dtype):
    return np.float32 if np.dtype(dtype).char in "fF" else np.float64


def _stand_in_blas(monkeypatch):
    blas = types.SimpleNamespace(syr2k=eigh_host._r2k(False), her2k=eigh_host._r2k(True), symv=None, hemv=None)
    monkeypatch.setattr(_sytrd, "rocblas", blas)


def _reduce(device, dtype, uplo, a, lda, nb):
    n = a.shape[0]
    buf = device.array(_flat_matrix(a, lda))
    real = _real(dtype)
    D = device.array(np.full(n, np.nan, real))
    E = device.array(np.full(max(n - 1, 1), np.nan, real))
    tau = device.array(np.full(max(n - 1, 1), np.nan, dtype))
    _sytrd.reduce_lower.__defaults__ = (nb,)
    _sytrd.reduce(np.dtype(dtype), uplo, n, buf, lda, D, E, tau)
    return np.asarray(buf).copy(), np.asarray(D).copy(), np.asarray(E).copy(), np.asarray(tau).copy()


def _check_reduction(a, lda, out, D, E, tau, dtype, uplo):
    n = a.shape[0]
    tol = 50 * n * eps(dtype) * max(np.linalg.norm(a), 1)
    M = _eigh_kernels.view(out, 0, n, n, lda)
    lower = uplo == "L"
    q = _tridiagonal_q(M, tau[:n - 1], lower)
    e = E[:n - 1].astype(np.float64)
    t_mat = np.diag(D.astype(np.float64)) + np.diag(e, 1) + np.diag(e, -1)
    assert np.all(np.isfinite(D)) and np.all(np.isfinite(e)) and np.all(np.isfinite(tau[:n - 1]))
    assert np.linalg.norm(q @ t_mat @ q.conj().T - a) <= tol
    assert np.linalg.norm(q.conj().T @ q - np.eye(n)) <= 50 * n * eps(dtype)
    ref = np.linalg.eigvalsh(np.asarray(a, np.complex128 if np.iscomplexobj(a) else np.float64))
    assert np.max(np.abs(np.linalg.eigvalsh(t_mat) - ref)) <= tol
    first = 0 if lower else n - 1  # the diagonal element no reflector touches
    assert abs(D[first] - a[first, first].real) <= tol
    tri = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
    assert np.array_equal(M[~tri], a[~tri])  # the other triangle untouched


def _device(fake_device, monkeypatch, target):
    device = kernel_emu._emulate(fake_device, monkeypatch, target)
    _stand_in_blas(monkeypatch)
    monkeypatch.setattr(_sytrd.reduce_lower, "__defaults__", _sytrd.reduce_lower.__defaults__)
    monkeypatch.setattr(_sytrd, "FUSED_PANEL", True)
    return device


@pytest.fixture(params=["cuda32", "hip64"])
def device(request, fake_device, monkeypatch):  # noqa: F811 (the imported fixture)
    """The emulated device of each target in turn."""
    return _device(fake_device, monkeypatch, request.param)


@pytest.fixture
def device_of(request, fake_device, monkeypatch):  # noqa: F811 (the imported fixture)
    """The emulated device of the target a test's parameters name (indirect parametrization)."""
    return _device(fake_device, monkeypatch, request.param)


@pytest.mark.parametrize("device_of, dtype, n, nb, uplo", CASES, indirect=["device_of"])
def test_fused_reduction_matches_lapack_conventions(device_of, monkeypatch, dtype, n, nb, uplo, rng):
    # small row shares: a column's rows spread over several blocks of the column and sum kernels
    monkeypatch.setattr(_sytrd_kernels, "ROWS_PER_BLOCK", 8)
    a = hermitian(rng, n, dtype)
    lda = n + 3
    out, D, E, tau = _reduce(device_of, dtype, uplo, a, lda, nb)
    _check_reduction(a, lda, out, D, E, tau, dtype, uplo)


#: The symv kernel each (WARP_TILES, STAGED) pair launches.
SYMV = {(True, True): "sytrd_symv_stage", (True, False): "sytrd_symv_warp", (False, True): "sytrd_symv",
        (False, False): "sytrd_symv"}


@pytest.mark.parametrize("device_of, dtype, warp_tiles, staged",
                         [("cuda32", "float64", True, True), ("hip64", "complex128", True, True),
                          ("hip64", "complex64", True, False), ("hip64", "float64", False, True)],
                         indirect=["device_of"])
def test_symv_blocks_loop_over_tiles_and_one_block_takes_all_rows(device_of, monkeypatch, dtype, warp_tiles, staged,
                                                                  rng):
    # warp tiles: two blocks' warps loop over the tiles (panel products of up to 62 columns in
    # the diagonal tiles); block tiles: two blocks loop over the tiles, one block takes all rows
    device = device_of
    monkeypatch.setattr(_sytrd_kernels, "WARP_TILES", warp_tiles)
    monkeypatch.setattr(_sytrd_kernels, "STAGED", staged)
    monkeypatch.setattr(_sytrd_kernels, "symv_blocks", lambda n, wave: 2)
    monkeypatch.setattr(_sytrd_kernels, "warp_symv_blocks", lambda m, warps, wave, panel_cols=0: 2)
    monkeypatch.setattr(_sytrd_kernels, "ROWS_PER_BLOCK", 1 << 20)
    n, lda = 75, 77
    a = hermitian(rng, n, dtype)
    out, D, E, tau = _reduce(device, dtype, "L", a, lda, 32)
    _check_reduction(a, lda, out, D, E, tau, dtype, "L")
    symv = [g for g in device.launches if "sytrd_symv" in g.name]
    assert symv and all(g.grid[0] == 2 for g in symv)
    assert {g.name for g in symv} == {_sytrd_kernels.kernel_name(SYMV[warp_tiles, staged], dtype)}


@pytest.mark.parametrize("device_of, dtype", PAIRS, indirect=["device_of"])
def test_fused_agrees_with_the_per_column_path(device_of, monkeypatch, dtype, rng):
    device = device_of
    n, nb, lda = 37, 8, 40
    a = hermitian(rng, n, dtype)
    out, D, E, tau = _reduce(device, dtype, "L", a, lda, nb)
    # the per-column path on host stand-ins, same input
    eigh_host.install(monkeypatch)
    buf = _flat_matrix(a, lda)
    real = _real(dtype)
    D2, E2, tau2 = np.empty(n, real), np.empty(n - 1, real), np.empty(n - 1, dtype)
    _sytrd.reduce_lower(np.dtype(dtype), n, buf, lda, D2, E2, tau2, nb)
    scale = max(np.linalg.norm(a), 1)
    tol = 50 * n * eps(dtype) * scale
    # the first reflector depends on A's first column alone: the same to rounding
    assert abs(E[0] - E2[0]) <= tol and abs(tau[0] - tau2[0]) <= 50 * n * eps(dtype)
    tail, tail2 = _eigh_kernels.view(out, 0, n, n, lda)[2:, 0], _eigh_kernels.view(buf, 0, n, n, lda)[2:, 0]
    assert np.max(np.abs(tail - tail2)) <= 50 * n * eps(dtype)
    # later elements may differ past rounding where a column's cancellation amplifies the order
    # of the sums (both reductions are backward stable); T's eigenvalues agree
    t1 = scipy.linalg.eigvalsh_tridiagonal(D.astype(np.float64), E[:n - 1].astype(np.float64))
    t2 = scipy.linalg.eigvalsh_tridiagonal(D2.astype(np.float64), E2.astype(np.float64))
    assert np.max(np.abs(t1 - t2)) <= tol


@pytest.mark.parametrize("warp_tiles, staged, symv, total", [(True, True, "sytrd_symv_stage", "sytrd_sum_rows"),
                                                             (True, False, "sytrd_symv_warp", "sytrd_sum_rows"),
                                                             (False, True, "sytrd_symv", "sytrd_sum")])
def test_launches_two_a_column_and_one_a_panel(device, monkeypatch, warp_tiles, staged, symv, total, rng):
    monkeypatch.setattr(_sytrd_kernels, "WARP_TILES", warp_tiles)
    monkeypatch.setattr(_sytrd_kernels, "STAGED", staged)
    n, nb, lda = 21, 8, 21
    a = hermitian(rng, n, "float64")
    _reduce(device, "float64", "L", a, lda, nb)
    names = [g.name for g in device.launches if "sytrd_" in g.name]
    panels = -(-(n - 1) // nb)
    assert len(names) == 2 * (n - 1) + panels
    assert names[:5] == [_sytrd_kernels.kernel_name(k, np.float64) for k in
                         ("sytrd_norms", symv, total, symv, total)]
    assert not any("larfg" in g.name or "latrd_w" in g.name for g in device.launches)


def test_zero_column_and_nonfinite_input(device, rng):
    n, lda = 12, 12
    a = hermitian(rng, n, "float64")
    a[2:, 0] = a[0, 2:] = 0  # x = 0 in the first column: H = I, tau = 0
    out, D, E, tau = _reduce(device, "float64", "L", a, lda, 4)
    _check_reduction(a, lda, out, D, E, tau, "float64", "L")
    assert tau[0] == 0
    a[5, 3] = a[3, 5] = np.nan
    with np.errstate(invalid="ignore"):
        _, D, E, _ = _reduce(device, "float64", "L", a, lda, 4)
    assert not (np.all(np.isfinite(D)) and np.all(np.isfinite(E[:n - 1])))


@pytest.mark.parametrize("device_of, dtype", [("hip64", "complex64")], indirect=["device_of"])
def test_default_grids_past_several_tile_rows(device_of, dtype, rng):
    device = device_of
    # the shipped sizing (32 rows a block, one wave of symv blocks, panels of NB): five tile rows
    n, lda = 131, 131
    a = hermitian(rng, n, dtype)
    out, D, E, tau = _reduce(device, dtype, "U", a, lda, _sytrd.NB)
    _check_reduction(a, lda, out, D, E, tau, dtype, "U")
    # the sum kernel's grid covers the first column's rows (blocks past a column's rows return);
    # the symv grid follows the column's tiles and panel blocks, and the norms grid the panel's
    # first column
    assert {g.grid[0] for g in device.launches if "sytrd_sum_rows" in g.name} == {-(-n // _sytrd_kernels.TILE)}
    grids = [g.grid[0] for g in device.launches if "sytrd_symv_stage" in g.name]
    assert len(grids) == n - 1 and grids[-1] == 1
    for c in range(_sytrd.NB):  # among the columns with the same panel products: shrinking
        same = grids[c::_sytrd.NB]
        assert same == sorted(same, reverse=True)
    assert [g.grid[0] for g in device.launches if "sytrd_norms" in g.name] == [
        _sytrd_kernels.norm_blocks(n - j0) for j0 in range(0, n - 1, _sytrd.NB)]


@pytest.mark.parametrize("device_of", ["cuda32"], indirect=True)
def test_sum_rows_adds_the_batches_past_the_first(device_of, rng):
    # sums longer than the first batch the kernel keeps in flight: 129 tile rows of slots, 33
    # panel partials a thread, 1100 block dots; W's column and v against NumPy on the same partials
    device = device_of
    j0, c = 0, 31
    k = j0 + c
    m = 4100
    n = lda = k + 1 + m
    nt, outs, nsymv = -(-m // _sytrd_kernels.TILE), 2 * c, 1100
    a = rng.standard_normal(lda * (k + 2))
    W = rng.standard_normal(n * (c + 1))
    partial, ypart, dotp = rng.standard_normal(nt * m), rng.standard_normal(nt * outs), rng.standard_normal(nsymv)
    tk, sc = 1.3, 0.7
    tau = np.zeros(n - 1)
    tau[k] = tk
    bufs = {name: device.array(v) for name, v in (("a", a), ("W", W), ("partial", partial), ("ypart", ypart),
                                                  ("dotp", dotp), ("tau", tau), ("scale", np.array([sc])),
                                                  ("norms", np.zeros(2 * nt + 2)))}
    kernel_emu.kernel(_sytrd_kernels.SOURCE, _sytrd_kernels.kernel_name("sytrd_sum_rows", np.float64), "cuda32")(
        (nt,), (_sytrd_kernels.THREADS,),
        (np.int64(n), bufs["a"], np.int64(lda), bufs["W"], np.int64(j0), np.int64(k), np.int64(c), np.int32(0),
         np.int64(nsymv), bufs["dotp"], bufs["scale"], bufs["tau"], bufs["partial"], bufs["ypart"], bufs["norms"]))
    A, Wm = a.reshape(k + 2, lda).T, W.reshape(c + 1, n).T
    ys = ypart.reshape(nt, outs).sum(axis=0)
    d = dotp.sum() - 2 * ys[:c] @ ys[c:]
    rows = slice(k + 1, k + 1 + m)
    v = sc * A[rows, k]
    v[0] = 1
    want = tk * (partial.reshape(nt, m).sum(axis=0) - A[rows, j0:j0 + c] @ ys[:c] - Wm[rows, :c] @ ys[c:])
    want += -0.5 * tk * tk * d * v
    got_a, got_w = np.asarray(bufs["a"]).reshape(k + 2, lda).T, np.asarray(bufs["W"]).reshape(c + 1, n).T
    np.testing.assert_allclose(got_w[rows, c], want, rtol=1e-10, atol=1e-10 * np.abs(want).max())
    np.testing.assert_array_equal(got_a[rows, k], v)
