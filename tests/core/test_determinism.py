"""Deterministic mode on the GPU: each covered operation run twice — the second time on another
stream, behind queued work, after the workspaces were given back and refilled with garbage —
gives the same bits. One list per library: the core families (prim, rocblas, rocfft) and the
libraries built on them (rocsolver, rocsparse, miopen)."""

import numpy as np
import pytest

from conftest import random_array, to_device

import rocarray as ra

pytestmark = pytest.mark.gpu


def _operations(rng):
    x32 = to_device(random_array(rng, 10_000_019, "float32"))
    x64 = to_device(random_array(rng, 1_000_003, "float64"))
    w = to_device(random_array(rng, 1_000_003, "float64"))
    a = to_device(random_array(rng, (64, 20_000), "float32"))
    b = to_device(random_array(rng, (20_000, 64), "float32"))
    m = to_device(random_array(rng, (1000, 1000), "float64"))
    z = to_device(random_array(rng, 1 << 20, "complex64"))
    return {
        "sum float32": lambda: ra.sum(x32),
        "sum float64 axis": lambda: ra.sum(x64[: 1009 * 991].reshape(1009, 991)[:, :990], axis=0),
        "prod float64": lambda: ra.prod(1 + 1e-6 * x64),
        "cumsum float32": lambda: ra.cumsum(x32),
        "histogram weighted": lambda: ra.histogram(x64, bins=100, weights=w)[0],
        "bincount weighted": lambda: ra.bincount((ra.abs(x64) * 10).astype(np.int64), weights=w),
        "matmul float32 split-K": lambda: ra.matmul(a, b),
        "matmul float64": lambda: ra.matmul(m, m),
        "fft": lambda: ra.fft.fft(z),
        "rfft": lambda: ra.fft.rfft(x32[: 1 << 20]),
        "norm": lambda: ra.linalg.norm(x32),
        "dot": lambda: ra.dot(x64, w),
    }


def _solver_operations(rng):
    spd = random_array(rng, (300, 300), "float64")
    spd = to_device(spd @ spd.T + 300 * np.eye(300))
    g = to_device(random_array(rng, (257, 129), "float64"))
    batch = to_device(random_array(rng, (64, 12, 12), "float32") + 12 * np.eye(12, dtype=np.float32))
    rhs = to_device(random_array(rng, (64, 12, 3), "float32"))
    return {
        "cholesky": lambda: ra.linalg.cholesky(spd),
        "qr": lambda: ra.linalg.qr(g)[1],
        "solve": lambda: ra.linalg.solve(spd, spd[:, :7]),
        "solve batched": lambda: ra.linalg.solve(batch, rhs),
        "eigh": lambda: ra.linalg.eigh(spd)[0],
        "eigh batched": lambda: ra.linalg.eigvalsh(batch + batch.transpose(0, 2, 1)),
        "svd": lambda: ra.linalg.svd(g, compute_uv=False),
    }


def _sparse_operations(rng):
    import scipy.sparse

    def csr(m, n, density, seed):
        host = scipy.sparse.random(m, n, density=density, format="csr", dtype=np.float64,
                                   random_state=np.random.default_rng(seed))
        return ra.sparse.csr_matrix(host)

    lengths = np.minimum(np.ceil(1.7 * (1.0 + rng.pareto(1.2, 20_000))), 20_000).astype(np.int64)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    cols = np.concatenate([np.sort(rng.choice(20_000, n, replace=False)) for n in lengths])
    skewed = ra.sparse.csr_matrix((to_device(random_array(rng, cols.size, "float32")), to_device(cols.astype(np.int32)),
                                   to_device(indptr.astype(np.int32))), shape=(20_000, 20_000))
    a = csr(5000, 4000, 0.01, int(rng.integers(1 << 30)))
    x = to_device(random_array(rng, 4000, "float64"))
    xs = to_device(random_array(rng, 20_000, "float32"))
    dense = to_device(random_array(rng, (4000, 32), "float64"))
    k = 64
    lap = ra.sparse.diags([-1.0, 4.0, -1.0], [-1, 0, 1], shape=(k * k, k * k), format="csr")
    b = to_device(random_array(rng, k * k, "float64"))
    return {
        "spmv": lambda: a @ x,
        "spmv power law (split rows)": lambda: skewed @ xs,
        "spmm": lambda: a @ dense,
        "transpose to csr": lambda: a.T.tocsr().data,
        "sum over rows": lambda: a.sum(axis=1),
        "cg": lambda: ra.sparse.linalg.cg(lap, b, rtol=1e-10, maxiter=50)[0],
    }


def _nn_operations(rng):
    x = to_device(random_array(rng, (4, 16, 23, 23), "float32"))
    w = to_device(random_array(rng, (32, 16, 3, 3), "float32"))
    dy = to_device(random_array(rng, (4, 32, 23, 23), "float32"))
    q, k, v = (to_device(random_array(rng, (2, 4, 200, 64), "float16")) for _ in range(3))
    do = to_device(random_array(rng, (2, 4, 200, 64), "float16"))
    h = to_device(random_array(rng, (512, 1000), "float32"))
    ops = {f"conv2d {algo}": (lambda algo=algo: ra.nn.conv2d(x, w, padding=1, algo=algo))
           for algo in ("implicit_gemm", "winograd_f4x3", "gemm", "fft", "direct")}

    def attention_backward():
        o, lse = ra.nn.scaled_dot_product_attention(q, k, v, is_causal=True, return_lse=True)
        return ra.nn.scaled_dot_product_attention_backward(do, q, k, v, o, lse, is_causal=True)

    ops.update({
        "conv2d input gradient": lambda: ra.nn.conv2d_input(x.shape, w, dy, padding=1),
        "conv2d weight gradient": lambda: ra.nn.conv2d_weight(x, w.shape, dy, padding=1),
        "batch norm training": lambda: ra.nn.batch_norm(x, None, None, training=True),
        "layer norm": lambda: ra.nn.layer_norm(h, (1000,)),
        "softmax": lambda: ra.nn.softmax(h, -1),
        "attention": lambda: ra.nn.scaled_dot_product_attention(q, k, v, is_causal=True),
        "attention backward": attention_backward,
    })
    return ops


def _bits(value):
    """dtype, shape and bytes of an array, or of each array of a tuple of results."""
    import cupy

    if isinstance(value, (tuple, list)):
        return tuple(_bits(v) for v in value)
    host = cupy.asnumpy(value)
    return host.dtype, host.shape, host.tobytes()


@pytest.mark.parametrize("library", ["core", "rocsolver", "rocsparse", "miopen"])
def test_each_operation_gives_the_same_bits_twice(rng, library):
    import cupy

    make = {"core": _operations, "rocsolver": _solver_operations, "rocsparse": _sparse_operations,
            "miopen": _nn_operations}[library]
    with ra.config.deterministic(True):
        ops = make(rng)
        first = {name: _bits(op()) for name, op in ops.items()}
        ra.free_workspaces()
        junk = cupy.full(1 << 26, np.nan, np.float32)  # the pool hands this memory out again
        del junk
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            busy = cupy.ones((4096, 4096), np.float32)
            busy @ busy  # queued work ahead of the operations
            second = {name: _bits(op()) for name, op in reversed(list(ops.items()))}
        stream.synchronize()
    differ = [name for name in first if first[name] != second[name]]
    assert not differ, f"not bitwise reproducible: {differ}"

