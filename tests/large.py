"""Shared data of the 2^28-element GPU tests (``@pytest.mark.slow``): the free-memory guard and
one set of 2^28 float32 values per process."""

import functools

import numpy as np
import pytest

from conftest import to_device

N = 1 << 28


def need(nbytes):
    """Skip the test unless the device has ``nbytes`` free."""
    import cupy

    free, _ = cupy.cuda.runtime.memGetInfo()
    if free < nbytes:
        pytest.skip(f"needs {nbytes / 2**30:.0f} GiB free on the device, {free / 2**30:.0f} GiB free")


@functools.lru_cache(maxsize=1)
def _floats():
    rng = np.random.default_rng(0x2_28)
    x = rng.random(N, dtype=np.float32)
    x[rng.integers(0, N, 5)] = x.max()
    x[rng.integers(0, N, 5)] = x.min()
    return x, to_device(x)


def floats():
    """``(host, device)``: 2^28 float32 values in [0, 1) with repeats of the extremes (ties for
    argmin/argmax), made once per process."""
    need(6 * N * 4)
    return _floats()
