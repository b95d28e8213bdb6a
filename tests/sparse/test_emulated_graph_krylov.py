"""The graph and Krylov kernels (``rocsparse/graph.hip``, ``rocsparse/krylov.hip``) run on the CPU
through the kernel emulator (tests/kernel_emu.py), from the ``rocarray.sparse`` façade, against
SciPy on small random matrices. CPU tests: skipped where g++ is missing."""

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import rocarray as ra
from kernel_emu import emulated_device  # noqa: F401 (the fixture)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)

SEED = 20261205


def _matrix(device, a):
    a = sp.csr_array(a)
    return ra.sparse.csr_matrix((device.array(a.data), device.array(a.indices), device.array(a.indptr)),
                                shape=a.shape)


def test_connected_components(emulated_device):
    a = sp.random_array((60, 60), density=0.02, rng=np.random.default_rng(SEED), format="csr")
    count, labels = ra.sparse.csgraph.connected_components(_matrix(emulated_device, a), directed=False)
    want_count, want = csgraph.connected_components(a, directed=False)
    assert count == want_count
    assert len(set(zip(np.asarray(labels), want))) == want_count  # the same partition


def test_breadth_first_order(emulated_device):
    a = sp.random_array((50, 50), density=0.06, rng=np.random.default_rng(SEED), format="csr")
    order, pred = ra.sparse.csgraph.breadth_first_order(_matrix(emulated_device, a), 0)
    want, want_pred = csgraph.breadth_first_order(a, 0)
    assert sorted(np.asarray(order)) == sorted(want)
    depth = {0: 0}
    for v in want:  # BFS levels agree (the order within a level may differ)
        if v:
            depth[v] = depth[want_pred[v]] + 1
    assert all(depth[v] == depth[int(p)] + 1 for v, p in zip(want, np.asarray(pred)[want]) if v)


def test_cg(emulated_device):
    rng = np.random.default_rng(SEED)
    n = 40
    a = sp.random_array((n, n), density=0.05, rng=rng, format="csr")
    a = sp.csr_array(a + a.T + sp.diags_array(np.full(n, 6.0)))
    b = rng.standard_normal(n)
    x, info = ra.sparse.linalg.cg(_matrix(emulated_device, a), emulated_device.array(b), rtol=1e-10)
    assert info == 0
    np.testing.assert_allclose(a @ np.asarray(x), b, atol=1e-8)
