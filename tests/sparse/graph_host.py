"""NumPy stand-ins for :mod:`rocarray.sparse.csgraph._graph_kernels`, kernel by kernel.

Each function follows its kernel's contract sequentially (a valid schedule of the parallel
kernel), so the CPU tests check the host orchestration (fixed-point loops, trimming, coloring
rounds, relabelling, level order) against SciPy.
"""

import numpy as np
import scipy.sparse as sp

from rocarray.sparse.csgraph import _graph, _graph_kernels


def int_array(n, fill):
    return np.full(n, fill, dtype=np.int32)


def cc_hook(indptr, indices, labels):
    changed = False
    for u in range(labels.size):
        for e in range(indptr[u], indptr[u + 1]):
            lu, lv = labels[u], labels[indices[e]]
            if lu != lv:
                hi, lo = max(lu, lv), min(lu, lv)
                labels[hi] = min(labels[hi], lo)
                changed = True
    return changed


def cc_compress(labels):
    for v in range(labels.size):
        r = labels[v]
        while labels[r] != r:
            r = labels[r]
        labels[v] = r


def relabel(labels):
    flags = (labels == np.arange(labels.size)).astype(np.int32)
    ids = np.concatenate([[0], np.cumsum(flags)[:-1]]).astype(np.int32)
    return int(flags.sum()), ids[labels]


def scc_trim(indptr, indices, scc):
    n = scc.size
    has_in, has_out = np.zeros(n, bool), np.zeros(n, bool)
    for u in range(n):
        if scc[u] >= 0:
            continue
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if v != u and scc[v] < 0:
                has_out[u] = has_in[v] = True
    trim = (scc < 0) & ~(has_in & has_out)
    scc[trim] = np.flatnonzero(trim)
    return bool(trim.any())


def scc_color_init(colors):
    colors[:] = np.arange(colors.size)


def scc_propagate(indptr, indices, scc, colors):
    changed = False
    for u in range(scc.size):
        if scc[u] >= 0:
            continue
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if scc[v] < 0 and colors[u] < colors[v]:
                colors[v] = colors[u]
                changed = True
    return changed


def scc_roots(scc, colors, mark):
    mark[:] = ((scc < 0) & (colors == np.arange(scc.size))).astype(np.int32)


def scc_backward(indptr, indices, scc, colors, mark):
    changed = False
    for u in range(scc.size):
        if scc[u] >= 0 or mark[u]:
            continue
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if scc[v] < 0 and colors[v] == colors[u] and mark[v]:
                mark[u] = 1
                changed = True
                break
    return changed


def scc_assign(scc, colors, mark):
    active = scc < 0
    take = active & (mark == 1)
    scc[take] = colors[take]
    return bool((active & ~take).any())


def bfs_init(n, start):
    state = np.zeros(n, np.int32)
    state[start] = 1
    order = np.zeros(n, np.int32)
    order[0] = start
    return state, np.full(n, _graph_kernels.NO_KEY, np.uint64), order, np.full(n, -9999, np.int32)


def bfs_level(graphs, state, keys, order, pred, base, count, tag):
    found = []
    # a deliberately scrambled schedule: the frontier walked backwards
    for indptr, indices, before in graphs:
        for i in reversed(range(count)):
            u = order[base + i]
            skip = 0 if before is None else before[u + 1] - before[u]
            for e in range(indptr[u], indptr[u + 1]):
                v = indices[e]
                old = state[v]
                if old == 0:
                    state[v] = tag
                    found.append(v)
                if old == 0 or old == tag:
                    key = np.uint64(((int(base) + i) << 32) | int(skip + e - indptr[u]))
                    keys[v] = min(keys[v], key)
    if not found:
        return 0
    found = np.array(found, np.int32)
    k = keys[found]
    sorted_next = found[np.argsort(k, kind="stable")]
    sorted_keys = np.sort(k, kind="stable")
    order[base + count:base + count + len(found)] = sorted_next
    pred[sorted_next] = order[(sorted_keys >> np.uint64(32)).astype(np.int64)]
    return len(found)


class Graph:
    """A duck-typed CSR sparse array over host arrays."""

    format = "csr"
    ndim = 2

    def __init__(self, S):
        S = S.tocsr()
        self.shape, self.indptr, self.indices, self.data = S.shape, S.indptr, S.indices, S.data
        self._S = S

    def tocsr(self):
        return self


def install(monkeypatch):
    for name in ("int_array", "cc_hook", "cc_compress", "relabel", "scc_trim", "scc_color_init", "scc_propagate",
                 "scc_roots", "scc_backward", "scc_assign", "bfs_init", "bfs_level"):
        monkeypatch.setattr(_graph_kernels, name, globals()[name])

    def transpose(n, indptr, indices):
        T = sp.csr_array((np.ones(indices.size), indices, indptr), shape=(n, n)).T.tocsr()
        return T.indptr, T.indices

    monkeypatch.setattr(_graph, "transpose_adjacency", transpose)
