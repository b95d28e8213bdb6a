"""Deterministic mode on the GPU: each covered operation run twice — the second time on another
stream, behind queued work, after the workspaces were given back and refilled with garbage —
gives the same bits."""

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


def _bits(value):
    import cupy

    host = cupy.asnumpy(value)
    return host.dtype, host.shape, host.tobytes()


def test_each_operation_gives_the_same_bits_twice(rng):
    import cupy

    with ra.config.deterministic(True):
        ops = _operations(rng)
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

