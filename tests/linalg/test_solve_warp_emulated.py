"""``ra.linalg.solve``, ``inv``, ``det`` and ``slogdet`` of small matrices through the real
warp-per-matrix kernels (``lu_warp.hip``) on the CPU kernel emulator (tests/kernel_emu.py),
32-lane and 64-lane targets, against NumPy in float64/complex128: C-ordered, F-ordered,
non-contiguous and broadcast stacks (``b`` of shape ``(n,)`` and ``(n, k)`` against a stack, ``a``
broadcast against ``b``), the dtype rule, singular stacks (``LinAlgError``), NaN inputs, and that
the small path launches only the fused kernel (no column-major copy, no getrs) while the first
order past it takes getf2 and getrs. CPU tests: skipped where g++ is missing.
"""

import numpy as np
import pytest

from conftest import random_array as rand
from kernel_emu import emulated_device, emulated_wave64_device, emulated_either_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture the emulated devices build on)

import rocarray.linalg as la

SEED = 20261206


@pytest.fixture
def device(emulated_either_device):
    return emulated_either_device


def close(got, want, dtype, a):
    """``got`` within a condition-scaled tolerance of the float64 solution ``want``."""
    got = np.asarray(got)
    assert got.shape == want.shape
    cond = float(np.max(np.linalg.cond(np.asarray(a, np.complex128))))
    t = 40 * a.shape[-1] * np.finfo(np.dtype(dtype)).eps * cond
    np.testing.assert_allclose(got, want, rtol=t, atol=t * np.abs(want).max())


@pytest.mark.parametrize("dtype,n", [("float32", 1), ("float32", 32), ("float64", 2), ("complex64", 16),
                                     ("complex128", 7)])
def test_solve_stacks_match_numpy(device, dtype, n):
    rng = np.random.default_rng(SEED + n)
    batch = 5
    a = rand(rng, (batch, n, n), dtype)
    for bshape in ((batch, n, 1), (n,), (n, 3), (batch, n, 2)):
        b = rand(rng, bshape, dtype)
        x = la.solve(device.array(a), device.array(b))
        want = np.linalg.solve(a.astype(np.complex128), b)
        assert x.dtype == np.linalg.solve(a, b).dtype
        close(x, want, dtype, a)
    names = device.names()
    assert all("gesv_warp" in name for name in names), names


def test_solve_layouts_and_broadcasting(device):
    rng = np.random.default_rng(SEED)
    n = 7
    a = rand(rng, (3, n, n), "float64")
    b = rand(rng, (3, n, 2), "float64")
    want = np.linalg.solve(a, b)
    fa = device.array(np.asfortranarray(a))                                  # F-ordered stack
    close(la.solve(fa, device.array(b)), want, "float64", a)
    big = device.array(np.repeat(np.repeat(a, 2, axis=1), 2, axis=2))
    close(la.solve(big[:, ::2, ::2], device.array(b)), want, "float64", a)   # non-contiguous
    close(la.solve(device.array(a).transpose(0, 2, 1), device.array(b)),     # transposed views
          np.linalg.solve(a.transpose(0, 2, 1), b), "float64", a)
    one = rand(rng, (n, n), "float64")                                        # a broadcast against b
    bb = rand(rng, (4, n, 3), "float64")
    close(la.solve(device.array(one), device.array(bb)), np.linalg.solve(one, bb), "float64", one[None])
    a4 = rand(rng, (3, 1, n, n), "float64")                                   # stacks that do not merge
    b4 = rand(rng, (2, n, 1), "float64")
    close(la.solve(device.array(a4), device.array(b4)), np.linalg.solve(a4, b4), "float64", a4)
    x = la.solve(device.array(a.astype(np.float32)), device.array(b))        # float32 with float64: float64
    assert x.dtype == np.float64
    close(x, np.linalg.solve(a.astype(np.float32).astype(np.float64), b), "float64", a)


def test_solve_singular_and_nan(device):
    rng = np.random.default_rng(SEED + 1)
    n = 5
    a = rand(rng, (3, n, n), "float64")
    s = a.copy()
    s[1][:, 2] = 0
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        la.solve(device.array(s), device.array(np.ones(n)))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        la.solve(device.array(s), device.array(np.ones((n, 0))))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        la.inv(device.array(s))
    z = a.copy()
    z[2][1, 3] = np.nan
    x = np.asarray(la.solve(device.array(z), device.array(np.ones(n))))
    assert np.isnan(x[2]).any()
    close(x[:2], np.linalg.solve(a[:2], np.ones(n)), "float64", a[:2])


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_inv_det_slogdet(device, dtype):
    rng = np.random.default_rng(SEED + 2)
    a = rand(rng, (3, 6, 6), dtype)
    inv = la.inv(device.array(a))
    assert inv.dtype == np.linalg.inv(a).dtype
    close(inv, np.linalg.inv(a.astype(np.complex128)), dtype, a)
    t = 400 * np.finfo(np.dtype(dtype)).eps * float(np.max(np.linalg.cond(a)))
    np.testing.assert_allclose(np.asarray(la.det(device.array(a))), np.linalg.det(a.astype(np.complex128)), rtol=t)
    sign, logdet = la.slogdet(device.array(a))
    ws, wl = np.linalg.slogdet(a.astype(np.complex128))
    np.testing.assert_allclose(np.asarray(sign), ws, atol=t)
    np.testing.assert_allclose(np.asarray(logdet), wl, atol=t)
    assert any("getrf_warp" in name for name in device.names())


def test_first_order_past_the_warp_kernels_takes_the_register_tile(emulated_device):
    rng = np.random.default_rng(SEED + 3)
    n = 33
    a = rand(rng, (2, n, n), "float32")
    b = rand(rng, (2, n, 1), "float32")
    close(la.solve(emulated_device.array(a), emulated_device.array(b)), np.linalg.solve(a.astype(np.float64), b),
          "float32", a)
    names = emulated_device.names()
    assert any("getrf_block" in name for name in names)
    assert not any("warp" in name for name in names)
