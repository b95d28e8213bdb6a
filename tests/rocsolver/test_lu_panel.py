"""The large LU's device-wide panels and permutation laswp on the GPU.

The decisive check first: getrf of n = 8192, 4097 and 1000 (float64 first; float32, complex64
and complex128 last, as their rocblas kernels compile on first use) with its tall panels
factored across the device must give the pivots of the same getrf with every panel factored by
the one-block getf2 (``ipiv`` equal: the panel kernels do the
same operations in the same order), factors that agree with those, and a LAPACK-size backward error
``||P L U - A|| / (||A|| n eps)`` (computed on the device). Then: a singular matrix (``info`` where
a zero column meets the diagonal), NaN input (the same pivots and NaN pattern as the one-block
panels, no hang), the grid barrier's words left zeroed, ``linalg.solve``'s backward error at
n = 8192, the cluster panel (``getf2_cluster``) against the one-block getf2 bit for bit and
inside getrf and solve, the outer-blocked LU's variants (inverse-based solves, trsm solves, the look-ahead on
a second stream, the plain recursion) by their backward error and singular info, and laswp with
more than one 32-interchange chunk against NumPy. Every input is fresh
random data; outputs are poisoned (ipiv -7, info 99) before the calls.
"""

import numpy as np
import pytest

from conftest import device_random

import rocarray as ra
import rocarray.rocsolver as rs
from rocarray.rocsolver import _lu_kernels

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None


def factor(a, grid_rows, monkeypatch, cluster=False):
    """getrf of the square device matrix ``a`` (column-major copy) with panels of at least
    ``grid_rows`` rows across the device (and, with ``cluster``, the panels getf2_cluster takes
    on one cluster first): (factors, ipiv, info, device-wide or cluster panels run)."""
    n = a.shape[0]
    A = cupy.asfortranarray(a).copy(order="F")
    ipiv, info = cupy.full(n, -7, cupy.int32), cupy.full(1, 99, cupy.int32)
    ran = []
    real, real_cluster = _lu_kernels.getf2_grid, _lu_kernels.getf2_cluster

    def counting(*args, **kwargs):
        sync = real(*args, **kwargs)
        ran.append(sync is not None)
        return sync

    def counting_cluster(*args, **kwargs):
        launched = real_cluster(*args, **kwargs)
        ran.append(launched)
        return launched

    with monkeypatch.context() as mp:
        mp.setattr(_lu_kernels, "GRID_PANEL_ROWS", grid_rows)
        mp.setattr(_lu_kernels, "ROWS_PANEL_ROWS", grid_rows)
        mp.setattr(_lu_kernels, "CLUSTER_PANEL", cluster)
        mp.setattr(_lu_kernels, "getf2_grid", counting)
        mp.setattr(_lu_kernels, "getf2_cluster", counting_cluster)
        rs.getrf(n, n, A, n, ipiv, info)
    return A, cupy.asnumpy(ipiv), int(info[0]), sum(ran)


def backward_error(a, lu, ipiv):
    n = a.shape[0]
    L = cupy.tril(lu, -1) + cupy.eye(n, dtype=lu.dtype)
    U = cupy.triu(lu)
    perm = np.arange(n)
    for j, p in enumerate(ipiv):
        perm[[j, p - 1]] = perm[[p - 1, j]]
    eps = np.finfo(a.dtype).eps
    r = L @ U - a[cupy.asarray(perm)]
    return float(cupy.linalg.norm(r) / (cupy.linalg.norm(a) * n * eps))


def check_against_one_block_panels(monkeypatch, rng, dtype, n, cluster=False):
    a = device_random(rng, (n, n), dtype)
    grid_rows = 256 if n < 2048 else _lu_kernels.GRID_PANEL_ROWS
    lu, piv, info, ran = factor(a, grid_rows, monkeypatch, cluster)
    lu1, piv1, info1, ran1 = factor(a, 10 ** 9, monkeypatch)
    assert ran > 0 and ran1 == 0, "the device-wide panel did not run (no cooperative launch?)"
    assert info == info1 == 0
    np.testing.assert_array_equal(piv, piv1)
    eps = np.finfo(a.dtype).eps
    scale = float(cupy.abs(lu1).max())
    assert float(cupy.abs(lu - lu1).max()) <= 16 * n * eps * scale
    assert backward_error(a, lu, piv) < 1.0


@pytest.mark.gpu
@pytest.mark.parametrize("rows_kernel", [True, False])
@pytest.mark.parametrize("n", [8192, 4097, 1000])
def test_grid_panels_match_one_block_panels_float64(monkeypatch, rng, n, rows_kernel):
    """getf2_rows (default) and, with ROWS_KERNEL off, getf2_grid against the one-block panels."""
    monkeypatch.setattr(_lu_kernels, "ROWS_KERNEL", rows_kernel)
    check_against_one_block_panels(monkeypatch, rng, "float64", n)


def needs_clusters():
    if not _lu_kernels.cluster_available(cupy.cuda.runtime.getDevice()):
        pytest.skip("the device has no thread-block clusters (NVIDIA sm_90+)")


def cluster_panel(monkeypatch, m, n, A, ipiv, info, offset, skip=True):
    """``getf2_cluster`` through its routing (CLUSTER_PANEL on, any height): 8 blocks up to 4096
    rows (complex128 2048), else 16; where the driver finds no room for 16, the test skips
    (``skip``) or this returns False."""
    with monkeypatch.context() as mp:
        mp.setattr(_lu_kernels, "CLUSTER_PANEL", True)
        mp.setattr(_lu_kernels, "CLUSTER_PANEL_ROWS", 1)
        launched = _lu_kernels.getf2_cluster(m, n, A, m, ipiv, info, offset)
    wide = m > _lu_kernels.CLUSTER_BLOCKS * _lu_kernels.cluster_block_limit(A.dtype)
    if not launched and wide and skip:
        pytest.skip("the driver finds no room for a cluster of 16 blocks (a non-portable size)")
    assert launched or wide
    return launched


@pytest.mark.gpu
@pytest.mark.parametrize("dtype,m,n", [("float64", 8192, 32), ("float64", 4097, 32), ("float64", 4096, 32),
                                       ("float64", 4001, 32), ("float64", 300, 17), ("float32", 4096, 32),
                                       ("complex64", 3000, 32), ("complex128", 4096, 32), ("complex128", 2048, 32),
                                       ("complex128", 1031, 29)])
@pytest.mark.parametrize("step", ["plain", "lookahead", "onefence"])
def test_cluster_panel_matches_one_block_getf2(monkeypatch, rng, dtype, m, n, step):
    """``getf2_cluster`` (a row a thread in registers; 8 blocks, or 16 past 8 x 512 rows,
    complex128 8 x 256; its plain step, its look-ahead step and the plain step with one fence a block) against the one-block getf2 on the
    same panel: pivots, info and factors bit for bit (the same operations in the same order), at
    each cluster's most rows and with short last blocks."""
    needs_clusters()
    monkeypatch.setattr(_lu_kernels, "CLUSTER_LOOKAHEAD", step == "lookahead")
    monkeypatch.setattr(_lu_kernels, "CLUSTER_ONE_FENCE", step == "onefence")
    a = device_random(rng, (m, n), dtype)
    out = []
    for cluster in (True, False):
        A = cupy.asfortranarray(a).copy(order="F").reshape(-1, order="F")
        ipiv, info = cupy.full(n, -7, cupy.int32), cupy.zeros(1, cupy.int32)
        if cluster:
            cluster_panel(monkeypatch, m, n, A, ipiv, info, 3)
        else:
            _lu_kernels.getf2(m, n, A, m, 0, ipiv, 0, info, 3, 1)
        out.append((cupy.asnumpy(A), cupy.asnumpy(ipiv), int(info[0])))
    (c_a, c_piv, c_info), (o_a, o_piv, o_info) = out
    np.testing.assert_array_equal(c_piv, o_piv)
    assert c_info == o_info == 0
    np.testing.assert_array_equal(c_a, o_a)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype,m,n,left,right", [("float64", 8192, 32, 96, 384), ("float64", 4001, 32, 0, 480),
                                                  ("complex128", 2048, 32, 480, 0), ("float32", 300, 17, 5, 3)])
@pytest.mark.parametrize("step", ["plain", "onefence"])
def test_cluster_panel_swaps_the_other_columns(monkeypatch, rng, dtype, m, n, left, right, step):
    """``getf2_cluster`` applying its interchanges to ``left`` columns before the panel and
    ``right`` after it (``others``, as a look-ahead block's panels do): the panel as the one-block
    getf2 gives it, bit for bit, and the other columns exactly as the pivots move them."""
    needs_clusters()
    monkeypatch.setattr(_lu_kernels, "CLUSTER_ONE_FENCE", step == "onefence")
    width = left + n + right
    full = device_random(rng, (m, width), dtype)
    A = cupy.asfortranarray(full).reshape(-1, order="F").copy()
    ipiv, info = cupy.full(n, -7, cupy.int32), cupy.zeros(1, cupy.int32)
    with monkeypatch.context() as mp:
        mp.setattr(_lu_kernels, "CLUSTER_PANEL_ROWS", 1)
        launched = _lu_kernels.getf2_cluster(m, n, A[left * m:], m, ipiv, info, 3, other=A, others=(left, right))
    if not launched:
        pytest.skip("the driver finds no room for a cluster of 16 blocks (a non-portable size)")
    B = cupy.asfortranarray(full[:, left:left + n]).reshape(-1, order="F").copy()
    ipiv1, info1 = cupy.full(n, -7, cupy.int32), cupy.zeros(1, cupy.int32)
    _lu_kernels.getf2(m, n, B, m, 0, ipiv1, 0, info1, 3, 1)
    np.testing.assert_array_equal(cupy.asnumpy(ipiv), cupy.asnumpy(ipiv1))
    got = cupy.asnumpy(A).reshape(width, m).T
    np.testing.assert_array_equal(got[:, left:left + n], cupy.asnumpy(B).reshape(n, m).T)
    expected = cupy.asnumpy(full)
    for j, p in enumerate(cupy.asnumpy(ipiv) - 3 - 1):
        expected[[j, p], :] = expected[[p, j], :]
    np.testing.assert_array_equal(got[:, :left], expected[:, :left])
    np.testing.assert_array_equal(got[:, left + n:], expected[:, left + n:])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype,n", [("float64", 8192), ("float64", 4097), ("complex128", 3000)])
def test_cluster_panels_in_getrf(monkeypatch, rng, dtype, n):
    """getrf with CLUSTER_PANEL on (the panels of 256 to 4096 rows on a cluster of 8, complex128
    to 2048; the taller ones on a cluster of 16 where the driver finds room, else across the
    device) against every panel on the one-block getf2: the same pivots, factors within
    rounding, LAPACK-size backward error."""
    needs_clusters()
    check_against_one_block_panels(monkeypatch, rng, dtype, n, cluster=True)


@pytest.mark.gpu
def test_cluster_panels_singular_info(monkeypatch, rng):
    needs_clusters()
    n = 3000
    a = device_random(rng, (n, n), "float64")
    a[:, 100] = 0     # stays zero through the updates: U(101, 101) == 0 in a cluster panel
    lu, piv, info, ran = factor(a, 10 ** 9, monkeypatch, cluster=True)
    _, piv1, info1, _ = factor(a, 10 ** 9, monkeypatch)
    assert ran > 0 and info == info1 == 101
    np.testing.assert_array_equal(piv, piv1)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_cluster_solve_8192_backward_error(monkeypatch, rng, dtype):
    """``ra.linalg.solve`` of the bench's order with CLUSTER_PANEL on (complex128 at 4096): every
    panel of 256 rows or more on a cluster (of 16 blocks past 4096 rows, complex128 2048)."""
    needs_clusters()
    monkeypatch.setattr(_lu_kernels, "CLUSTER_PANEL", True)
    n = 8192 if dtype == "float64" else 4096
    a = device_random(rng, (n, n), dtype)
    b = device_random(rng, (n, 1), dtype)
    x = ra.linalg.solve(a, b)
    eps = np.finfo(a.dtype).eps
    r = cupy.linalg.norm(a @ x - b) / (cupy.linalg.norm(a) * cupy.linalg.norm(x) * n * eps)
    assert float(r) < 1.0


@pytest.mark.gpu
def test_barrier_words_are_left_zeroed(monkeypatch, rng):
    a = device_random(rng, (4097, 4097), "float64")
    factor(a, _lu_kernels.GRID_PANEL_ROWS, monkeypatch)
    from rocarray._core.workspace import workspaces

    sync = workspaces.counters("rocsolver.lu.grid_barrier", 16, a.data.device_id)
    assert not cupy.asnumpy(sync[:16]).any()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_singular_matrix_info(monkeypatch, rng, dtype):
    n = 4097
    a = device_random(rng, (n, n), dtype)
    a[:, 100] = 0     # stays zero through the updates: U(101, 101) == 0 in a device-wide panel
    lu, piv, info, ran = factor(a, _lu_kernels.GRID_PANEL_ROWS, monkeypatch)
    _, piv1, info1, _ = factor(a, 10 ** 9, monkeypatch)
    assert ran > 0 and info == info1 == 101
    np.testing.assert_array_equal(piv, piv1)


@pytest.mark.gpu
def test_nan_input_same_pivots_no_hang(monkeypatch, rng):
    n = 4097
    a = device_random(rng, (n, n), "float64")
    a[5, 7] = np.nan
    a[3000, 40] = np.nan
    lu, piv, info, ran = factor(a, _lu_kernels.GRID_PANEL_ROWS, monkeypatch)
    lu1, piv1, info1, _ = factor(a, 10 ** 9, monkeypatch)
    assert ran > 0 and info == info1
    np.testing.assert_array_equal(piv, piv1)
    np.testing.assert_array_equal(cupy.asnumpy(cupy.isnan(lu)), cupy.asnumpy(cupy.isnan(lu1)))


MODES = {"inverse": dict(OUTER=256, INVERSE=True, LOOKAHEAD=False),
         "trsm": dict(OUTER=256, INVERSE=False, LOOKAHEAD=False),
         "lookahead": dict(OUTER=256, INVERSE=True, LOOKAHEAD=True), "plain": dict(OUTER=0)}


@pytest.mark.gpu
@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("dtype,n", [("float64", 8192), ("float64", 4097), ("float32", 4097), ("complex128", 1500)])
def test_outer_blocks_backward_error(monkeypatch, rng, mode, dtype, n):
    """The outer-blocked getrf (inverse-based solves, trsm solves, the look-ahead on a second
    stream) and the plain recursion: LAPACK-size backward error, info 0, every pivot a valid row
    (the grid barrier is checked inside getrf, for both streams' panels with the look-ahead)."""
    from rocarray.rocsolver import _lu_blocked

    for name, value in MODES[mode].items():
        monkeypatch.setattr(_lu_blocked, name, value)
    a = device_random(rng, (n, n), dtype)
    lu, piv, info, _ = factor(a, _lu_kernels.GRID_PANEL_ROWS, monkeypatch)
    assert info == 0
    assert ((piv >= np.arange(1, n + 1)) & (piv <= n)).all()
    assert backward_error(a, lu, piv) < 1.0


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["inverse", "lookahead"])
def test_outer_blocks_singular_info(monkeypatch, rng, mode):
    """Zero columns in the second and fourth outer blocks: info names the first; the
    factorization completes with valid pivots."""
    from rocarray.rocsolver import _lu_blocked

    for name, value in MODES[mode].items():
        monkeypatch.setattr(_lu_blocked, name, value)
    n = 1200
    a = device_random(rng, (n, n), "float64")
    a[:, 300] = 0
    a[:, 900] = 0
    lu, piv, info, _ = factor(a, _lu_kernels.GRID_PANEL_ROWS, monkeypatch)
    assert info == 301
    assert ((piv >= np.arange(1, n + 1)) & (piv <= n)).all()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("nrhs", [3, 1])
def test_solve_8192_backward_error(rng, dtype, nrhs):
    """The bench's system (one right-hand side: getrs by trsv) and three (trsm)."""
    n = 8192
    a = device_random(rng, (n, n), dtype)
    b = device_random(rng, (n, nrhs), dtype)
    x = ra.linalg.solve(a, b)
    eps = np.finfo(a.dtype).eps
    r = cupy.linalg.norm(a @ x - b) / (cupy.linalg.norm(a) * cupy.linalg.norm(x) * n * eps)
    assert float(r) < 1.0


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("incx", [1, -1])
def test_laswp_chunks_against_numpy(rng, dtype, incx):
    m, n, k1, k2 = 500, 1003, 3, 75
    a = (rng.standard_normal((m, n)) + (1j * rng.standard_normal((m, n)) if dtype == "complex128" else 0)).astype(dtype)
    piv = rng.integers(1, m + 1, size=k2).astype(np.int32)
    A = cupy.asarray(a.T.reshape(-1))
    rs.laswp(n, A, m, k1, k2, cupy.asarray(piv), incx)
    want = a.copy()
    for k in (range(k1 - 1, k2) if incx == 1 else range(k2 - 1, k1 - 2, -1)):
        want[[k, piv[k] - 1]] = want[[piv[k] - 1, k]]
    np.testing.assert_array_equal(cupy.asnumpy(A).reshape(n, m).T, want)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "complex64", "complex128"])
@pytest.mark.parametrize("n", [8192, 4097, 1000])
def test_grid_panels_match_one_block_panels_other_dtypes(monkeypatch, rng, dtype, n):
    check_against_one_block_panels(monkeypatch, rng, dtype, n)


@pytest.mark.gpu
def test_panel_times_for_the_threshold(monkeypatch, rng, capsys):
    """Times one 32-column float64 panel of 8192 down to 256 rows on the kernels (``getf2_rows``,
    ``getf2_grid``, one block, and ``getf2_cluster`` where the device has clusters: 8 blocks up to
    4096 rows, 16 past that) and prints them (the crossovers set ``ROWS_PANEL_ROWS``, ``GRID_PANEL_ROWS`` and
    ``CLUSTER_PANEL_ROWS``); checks that the pivots and factors agree."""
    lines = []
    clusters = _lu_kernels.cluster_available(cupy.cuda.runtime.getDevice())
    for m in (8192, 4096, 2048, 1024, 512, 256):
        a = device_random(rng, (m, 32), "float64")
        times, pivots, factors = [], [], []
        for grid in ("rows", True, False) + (("cluster",) if clusters else ()):
            A = cupy.asfortranarray(a).copy(order="F").reshape(-1, order="F")
            ipiv, info = cupy.zeros(32, cupy.int32), cupy.zeros(1, cupy.int32)
            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            for rep in range(4):   # the last three timed after a warm-up
                B = A.copy()
                if rep == 1:
                    start.record()
                if grid == "rows":
                    sync = _lu_kernels.getf2_rows(m, 32, B, m, ipiv, info, 0, block=_lu_kernels.ROWS_BLOCK)
                    assert sync is not None
                elif grid == "cluster":
                    ran = cluster_panel(monkeypatch, m, 32, B, ipiv, info, 0, skip=False)
                elif grid:   # the blocks named: shorter panels than GRID_PANEL_ROWS run too
                    blocks = _lu_kernels.grid_panel_shape(m, 32, B.dtype, B.data.device_id)[0]
                    sync = _lu_kernels.getf2_grid(m, 32, B, m, ipiv, info, 0, blocks=blocks)
                    assert sync is not None
                else:
                    _lu_kernels.getf2(m, 32, B, m, 0, ipiv, 0, info, 0, 1)
            stop.record()
            stop.synchronize()
            times.append(cupy.cuda.get_elapsed_time(start, stop) / 3 * 1000)
            pivots.append(cupy.asnumpy(ipiv))
            factors.append(cupy.asnumpy(B))
        _lu_kernels.check_grid_barrier(sync)
        np.testing.assert_array_equal(pivots[0], pivots[2])
        np.testing.assert_array_equal(pivots[1], pivots[2])
        np.testing.assert_array_equal(factors[0], factors[2])   # the same operations in the same order
        cluster = ""
        if clusters and ran:
            np.testing.assert_array_equal(pivots[3], pivots[2])
            np.testing.assert_array_equal(factors[3], factors[2])
            cluster = f", cluster {times[3]:.1f} us"
        elif clusters:
            cluster = ", cluster: no room for 16 blocks"
        lines.append(f"panel {m} x 32 float64: getf2_rows {times[0]:.1f} us, device-wide {times[1]:.1f} us, "
                     f"one block {times[2]:.1f} us{cluster} (each with a {m} x 32 copy)")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
