"""The large LU's panel kernels (``rocarray/_kernels/rocsolver/lu.hip``) run on the CPU through the
kernel emulator (tests/kernel_emu.py), on the 32-lane (NVIDIA-like) and 64-lane (AMD wavefront)
targets.

* ``ra_rocsolver_laswp`` through :func:`rocsolver.laswp` and ``laswp_strided_batched`` against
  LAPACK's interchanges applied one after another in NumPy: random pivots of every kind (below,
  at and above their step, repeated, naming each other's rows), both directions, more than one
  32-interchange chunk, column counts that leave blocks part empty, batches; rows no interchange
  names (and the padding past them) must stay bit-for-bit unchanged.

CPU tests: skipped where g++ is missing.
"""

import numpy as np
import pytest

from conftest import random_array as rand
from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture the emulated devices build on)

import rocarray.rocsolver as rs

ALL = ["float32", "float64", "complex64", "complex128"]


@pytest.fixture(params=["cuda32", "hip64"])
def device(request):
    name = "emulated_device" if request.param == "cuda32" else "emulated_wave64_device"
    return request.getfixturevalue(name)


def swapped(a, k1, k2, piv, incx):
    """LAPACK laswp on a copy of ``a`` (rows), 1-based k1..k2."""
    a = a.copy()
    steps = range(k1 - 1, k2) if incx == 1 else range(k2 - 1, k1 - 2, -1)
    for k in steps:
        p = piv[k] - 1
        a[[k, p]] = a[[p, k]]
    return a


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("incx", [1, -1])
@pytest.mark.parametrize("k1, k2, n", [(1, 32, 37), (3, 9, 16), (2, 71, 5), (40, 40, 17)])
def test_laswp_matches_sequential_interchanges(device, rng, dtype, incx, k1, k2, n):
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
