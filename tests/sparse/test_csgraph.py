"""csgraph: connected components and breadth-first order against SciPy (host orchestration on the CPU
with NumPy kernel stand-ins; the device kernels on the GPU)."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as scg

import graph_host
from launchfake import fake_device  # noqa: F401 (the fixture)
import rocarray.sparse.csgraph as rcg
from rocarray._core import compile as _compile
from rocarray.sparse.csgraph import _graph_kernels


def random_graph(rng, n, density, kind="random"):
    if kind == "chain":  # long directed paths and cycles: many trim and coloring rounds
        rows = np.arange(n - 1)
        S = sp.coo_array((np.ones(n - 1), (rows, rows + 1)), shape=(n, n)).tocsr()
        S = S + sp.coo_array(([1.0, 1.0], ([n // 2, n - 1], [0, n // 3])), shape=(n, n)).tocsr()
        return S.tocsr()
    if kind == "powerlaw":
        deg = np.minimum((rng.pareto(1.2, n) + 1).astype(int), n)
        rows = np.repeat(np.arange(n), deg)
        cols = rng.integers(0, n, rows.size)
        return sp.coo_array((np.ones(rows.size), (rows, cols)), shape=(n, n)).tocsr()
    return sp.random_array((n, n), density=density, random_state=np.random.RandomState(int(rng.integers(1 << 30))),
                           format="csr")


def same_partition(a, b):
    a, b = np.asarray(a), np.asarray(b)
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


CASES = [(1, 0.0, "random"), (7, 0.0, "random"), (30, 0.03, "random"), (60, 0.05, "random"), (80, 0.2, "random"),
         (40, 0.0, "chain"), (70, 0.0, "powerlaw")]


@pytest.mark.parametrize("n,density,kind", CASES)
@pytest.mark.parametrize("directed,connection", [(True, "weak"), (True, "strong"), (False, "weak"), (False, "strong")])
def test_components_match_scipy(monkeypatch, rng, n, density, kind, directed, connection):
    graph_host.install(monkeypatch)
    S = random_graph(rng, n, density, kind)
    count, labels = rcg.connected_components(graph_host.Graph(S), directed=directed, connection=connection)
    want, wlabels = scg.connected_components(S, directed=directed, connection=connection)
    assert count == want
    assert labels.dtype == np.int32 and labels.shape == (n,)
    assert same_partition(labels, wlabels)
    if not directed or connection == "weak":
        np.testing.assert_array_equal(labels, wlabels)  # numbered by smallest vertex, like SciPy
    assert rcg.connected_components(graph_host.Graph(S), directed, connection, return_labels=False) == want


@pytest.mark.parametrize("n,density,kind", CASES)
@pytest.mark.parametrize("directed", [True, False])
def test_breadth_first_order_matches_scipy_exactly(monkeypatch, rng, n, density, kind, directed):
    graph_host.install(monkeypatch)
    S = random_graph(rng, n, density, kind)
    for start in {0, n // 2, n - 1}:
        order, pred = rcg.breadth_first_order(graph_host.Graph(S), start, directed=directed)
        worder, wpred = scg.breadth_first_order(S, start, directed=directed)
        np.testing.assert_array_equal(order, worder)
        np.testing.assert_array_equal(pred, wpred)
        only = rcg.breadth_first_order(graph_host.Graph(S), start, directed, return_predecessors=False)
        np.testing.assert_array_equal(only, worder)


def test_argument_errors(monkeypatch):
    graph_host.install(monkeypatch)
    G = graph_host.Graph(sp.eye_array(3, format="csr"))
    with pytest.raises(ValueError, match="connection"):
        rcg.connected_components(G, connection="medium")
    with pytest.raises(ValueError, match="i_start"):
        rcg.breadth_first_order(G, 3)
    with pytest.raises(ValueError, match="shape"):
        rcg.connected_components(graph_host.Graph(sp.random_array((3, 4), density=0.5)))
    with pytest.raises(TypeError, match="host"):
        rcg.connected_components(np.eye(3))


def test_graph_kernels_registered_for_both_index_types():
    names = _compile.registered(_graph_kernels.SOURCE)
    for k in ("cc_hook", "scc_propagate", "scc_backward", "scc_trim", "bfs_expand"):
        assert f"ra_rocsparse_{k}<int>" in names and f"ra_rocsparse_{k}<long long>" in names


# ---------------------------------------------------------------- GPU

@pytest.mark.gpu
@pytest.mark.parametrize("n,density,kind", CASES + [(20000, 1e-4, "random"), (5000, 0.0, "powerlaw"),
                                                    (3000, 0.0, "chain")])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_gpu_components_and_bfs_match_scipy(rng, n, density, kind, index_dtype):
    import rocarray.sparse as rs

    S = random_graph(rng, n, density, kind)
    S.indices, S.indptr = S.indices.astype(index_dtype), S.indptr.astype(index_dtype)
    G = rs.csr_array(S)
    for directed, connection in [(True, "weak"), (True, "strong"), (False, "weak")]:
        count, labels = rcg.connected_components(G, directed=directed, connection=connection)
        want, wlabels = scg.connected_components(S, directed=directed, connection=connection)
        assert count == want
        assert same_partition(labels.get(), wlabels)
    for directed in (True, False):
        order, pred = rcg.breadth_first_order(G, 0, directed=directed)
        worder, wpred = scg.breadth_first_order(S, 0, directed=directed)
        np.testing.assert_array_equal(order.get(), worder)
        np.testing.assert_array_equal(pred.get(), wpred)


@pytest.mark.gpu
def test_gpu_dense_graph_input(rng):
    import cupy

    D = (rng.random((30, 30)) < 0.05).astype(np.float64)
    count, labels = rcg.connected_components(cupy.asarray(D), directed=True, connection="strong")
    want, wlabels = scg.connected_components(D, directed=True, connection="strong")
    assert count == want and same_partition(labels.get(), wlabels)


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_graph_launches_on_a_recording_device(fake_device, index_dtype):
    n = 1000
    indptr = fake_device.array((n + 1,), index_dtype, np.zeros(n + 1))
    indices = fake_device.array((1,), index_dtype, np.zeros(1))
    labels = fake_device.array((n,), "int32", np.arange(n))
    assert _graph_kernels.cc_hook(indptr, indices, labels) is False  # the flag stays 0: nothing ran
    ct = "int" if index_dtype == "int32" else "long long"
    hook = fake_device.launches[-1]
    assert hook.name == f"ra_rocsparse_cc_hook<{ct}>" and len(hook.args) == 5 and int(hook.args[0]) == n
    order = fake_device.array((n,), "int32", np.zeros(n))
    state = fake_device.array((n,), "int32", np.zeros(n))
    keys = fake_device.array((n,), "uint64", np.full(n, _graph_kernels.NO_KEY))
    pred = fake_device.array((n,), "int32", np.full(n, -9999))
    before = len(fake_device.launches)
    found = _graph_kernels.bfs_level([(indptr, indices, None), (indptr, indices, indptr)], state, keys, order, pred,
                                     0, 1, 2)
    expand = fake_device.launches[before:]
    assert found == 0 and [e.name for e in expand] == [f"ra_rocsparse_bfs_expand<{ct}>"] * 2
    assert isinstance(expand[0].args[5], np.uint64) and expand[1].args[5] is indptr  # out-edge indptr: second
