"""softmax.hip through the kernel emulator against the NumPy float64 formulas of
tests/miopen/pointwise_reference.py: every mode on each variant (row per warp, row per block with
the row in registers and streamed in two passes, strided inner axes), -inf entries, and the 64-lane
wavefront with float16. CPU tests: skipped where g++ is missing."""

import numpy as np
import pytest

from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)
from miopen import pointwise_reference as ref

from rocarray import miopen
from rocarray.miopen import _softmax

SEED = 20261205


def _check(dev, x, axis, log, rtol, atol, variant):
    y = miopen.softmax_forward(dev.array(x), axis, log=log)
    assert dev.launches[-1].name.split("<")[0].endswith("strided" if variant == "strided" else "rows")
    if variant != "strided":
        assert (", true, " in dev.launches[-1].name) == (variant == "warp")
    want = ref.softmax(x.astype(np.float64), axis, log)
    np.testing.assert_allclose(np.asarray(y).astype(np.float64), want, rtol=rtol, atol=atol)
    rng = np.random.default_rng(SEED + 1)
    g = rng.standard_normal(x.shape).astype(x.dtype)
    dx = miopen.softmax_backward(dev.array(g), y, axis, log=log)
    want_dx = ref.softmax_grad(g.astype(np.float64), np.asarray(y).astype(np.float64), axis, log)
    np.testing.assert_allclose(np.asarray(dx).astype(np.float64), want_dx, rtol=rtol, atol=atol)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("shape,axis,variant", [
    ((5, 37), 1, "warp"),          # a row per warp, lanes partly idle
    ((2, 1500), 1, "block"),       # a row per block, in registers
    ((2, 2600), 1, "block"),       # a row per block, two passes
    ((3, 7, 5), 1, "strided"),     # inner axis
    ((6, 4), 0, "strided"),        # first axis
])
def test_every_variant_float64(emulated_device, shape, axis, variant, log):
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal(shape) * 4.0
    _check(emulated_device, x, axis, log, 1e-12, 1e-14, variant)


@pytest.mark.parametrize("shape,axis", [((3, 40), 1), ((2, 2600), 1), ((4, 9, 3), 1)])
def test_negative_infinity_entries(emulated_device, shape, axis):
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal(shape)
    x[(slice(None),) * axis + (0,)] = -np.inf  # the first entry of every row: the running max starts at -inf
    x[(slice(None),) * axis + (2,)] = -np.inf
    y = np.asarray(miopen.softmax_forward(emulated_device.array(x), axis))
    np.testing.assert_allclose(y, ref.softmax(x, axis), rtol=1e-12, atol=1e-15)
    ly = np.asarray(miopen.softmax_forward(emulated_device.array(x), axis, log=True))
    assert np.all(ly[np.isneginf(x)] == -np.inf)


def test_float32_warp_rows_full_warp(emulated_device):
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal((9, 1024)).astype(np.float32)  # 32 values per lane, 9 rows over two blocks
    _check(emulated_device, x, 1, False, 2e-6, 1e-8, "warp")


@pytest.mark.parametrize("shape,axis,variant", [((3, 100), 1, "warp"), ((2, 2600), 1, "block"),
                                                ((2, 5, 3), 1, "strided")])
def test_float16_wave64(emulated_wave64_device, shape, axis, variant):
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal(shape).astype(np.float16)
    _check(emulated_wave64_device, x, axis, True, 3e-3, 3e-3, variant)


def test_plan_choices():
    assert _softmax.plan((65536, 1024), 1, 32) == ("warp", 65536 // 8)
    assert _softmax.plan((4, 2048), 1, 64) == ("warp", 1)
    assert _softmax.plan((4, 2048), 1, 32) == ("block", 4)
    assert _softmax.plan((4, 5, 6), 1, 32) == ("strided", 1)
    assert _softmax.geometry((2, 3, 4, 5), 2) == (6, 4, 5)


def test_facade_scalar_non_contiguous_and_negative_dim(emulated_device):
    import rocarray as ra

    rng = np.random.default_rng(SEED)
    s = ra.nn.softmax(emulated_device.array(np.array(3.0)), 0)
    assert s.shape == () and float(np.asarray(s)) == 1.0
    x = rng.standard_normal((6, 10))
    view = emulated_device.array(x)[:, ::2]
    y = ra.nn.log_softmax(view, -1)
    np.testing.assert_allclose(np.asarray(y), ref.softmax(x[:, ::2], 1, log=True), rtol=1e-12)
    g = rng.standard_normal((6, 5))
    dx = ra.nn.log_softmax_backward(emulated_device.array(g), y, -1)
    np.testing.assert_allclose(np.asarray(dx), ref.softmax_grad(g, np.asarray(y), 1, log=True), rtol=1e-12,
                               atol=1e-14)
