"""pooling.hip through the kernel emulator, reached through the rocarray.nn façade, against the
brute-force NumPy float64 pooling of tests/miopen/pointwise_reference.py: every mode forward and
backward, 1-D to 3-D, both layouts, padding, dilation, ceil_mode, count_include_pad,
divisor_override, overlapping windows (gradients that sum), and float16 on the 64-lane target.
CPU tests: skipped where g++ is missing."""

import numpy as np
import pytest

from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)
from miopen import pointwise_reference as ref

import rocarray as ra
from rocarray.nn._pooling import output_size

SEED = 20261205


def _to_layout(a, layout):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1)) if layout == "NHWC" else a


def _from_layout(a, layout):
    return np.moveaxis(np.asarray(a), -1, 1) if layout == "NHWC" else np.asarray(a)


def _window_sizes(spatial, kernel, stride, padding, dilation, ceil_mode):
    return tuple(output_size(*a, ceil_mode) for a in zip(spatial, kernel, padding, stride, dilation))


CASES = [  # (nd, spatial, kernel, stride, padding, dilation, ceil_mode)
    (2, (7, 9), (3, 3), (2, 2), (1, 1), (1, 1), False),   # ResNet's stem pool shape, odd sizes
    (2, (6, 5), (2, 3), (2, 1), (1, 1), (2, 1), True),    # dilation, ceil_mode, a partial last window
    (1, (11,), (4,), (3,), (2,), (1,), True),
    (3, (4, 5, 3), (2, 3, 2), (1, 2, 2), (1, 1, 0), (1, 1, 1), False),
]


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}d-{i}" for i, c in enumerate(CASES)])
def test_max_pool(emulated_device, case, layout):
    nd, spatial, kernel, stride, padding, dilation, ceil_mode = case
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal((2, 3, *spatial))
    x[0, 1].flat[3] = np.nan  # a NaN is its window's maximum
    fwd = getattr(ra.nn, f"max_pool{nd}d")
    y, idx = fwd(emulated_device.array(_to_layout(x, layout)), kernel, stride, padding, dilation, ceil_mode,
                 return_indices=True, layout=layout)
    out = _window_sizes(spatial, kernel, stride, padding, dilation, ceil_mode)
    want, want_idx, windows = ref.pool(x, "max", out, kernel, stride, padding, dilation)
    np.testing.assert_array_equal(_from_layout(y, layout), want)
    np.testing.assert_array_equal(_from_layout(idx, layout), want_idx)
    g = rng.standard_normal(want.shape)
    bwd = getattr(ra.nn, f"max_pool{nd}d_backward")
    dx = bwd(emulated_device.array(_to_layout(g, layout)), emulated_device.array(_to_layout(x, layout)), kernel,
             stride, padding, dilation, ceil_mode, idx, layout=layout)
    np.testing.assert_allclose(_from_layout(dx, layout), ref.pool_grad(g, x.shape, "max", want_idx, windows),
                               rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("include,divisor", [(True, None), (False, None), (True, 5)])
@pytest.mark.parametrize("case", [CASES[0], CASES[2], CASES[3]], ids=["2d", "1d", "3d"])
def test_avg_pool(emulated_device, case, include, divisor, layout):
    nd, spatial, kernel, stride, padding, _, ceil_mode = case
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal((2, 3, *spatial))
    fwd = getattr(ra.nn, f"avg_pool{nd}d")
    y = fwd(emulated_device.array(_to_layout(x, layout)), kernel, stride, padding, ceil_mode, include, divisor,
            layout=layout)
    out = _window_sizes(spatial, kernel, stride, padding, (1,) * nd, ceil_mode)
    want, _, windows = ref.pool(x, "avg", out, kernel, stride, padding, None, include, divisor)
    np.testing.assert_allclose(_from_layout(y, layout), want, rtol=1e-14, atol=1e-15)
    g = rng.standard_normal(want.shape)
    bwd = getattr(ra.nn, f"avg_pool{nd}d_backward")
    dx = bwd(emulated_device.array(_to_layout(g, layout)), emulated_device.array(_to_layout(x, layout)), kernel,
             stride, padding, ceil_mode, include, divisor, layout=layout)
    np.testing.assert_allclose(_from_layout(dx, layout), ref.pool_grad(g, x.shape, "avg", None, windows),
                               rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("kind", ["avg", "max"])
@pytest.mark.parametrize("spatial,out", [((10,), (4,)), ((7, 5), (3, 4)), ((5, 4, 3), (2, 3, 3))])
def test_adaptive_pool(emulated_device, kind, spatial, out, layout):
    # overlapping windows where the output does not divide the input, and more outputs than inputs
    nd = len(spatial)
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal((2, 3, *spatial))
    dev_x = emulated_device.array(_to_layout(x, layout))
    fwd = getattr(ra.nn, f"adaptive_{kind}_pool{nd}d")
    mode = f"adaptive_{kind}"
    want, want_idx, windows = ref.pool(x, mode, out)
    g = rng.standard_normal(want.shape)
    dev_g = emulated_device.array(_to_layout(g, layout))
    if kind == "max":
        y, idx = fwd(dev_x, out, True, layout=layout)
        np.testing.assert_array_equal(_from_layout(idx, layout), want_idx)
        dx = getattr(ra.nn, f"adaptive_max_pool{nd}d_backward")(dev_g, dev_x, idx, layout=layout)
    else:
        y = fwd(dev_x, out, layout=layout)
        dx = getattr(ra.nn, f"adaptive_avg_pool{nd}d_backward")(dev_g, dev_x, layout=layout)
    np.testing.assert_allclose(_from_layout(y, layout), want, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(_from_layout(dx, layout), ref.pool_grad(g, x.shape, mode, want_idx, windows),
                               rtol=1e-13, atol=1e-15)


def test_global_pools(emulated_device):
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal((2, 4, 3, 5))
    y = ra.nn.global_avg_pool(emulated_device.array(x))
    np.testing.assert_allclose(np.asarray(y), x.mean(axis=(2, 3), keepdims=True), rtol=1e-14)
    m, idx = ra.nn.global_max_pool(emulated_device.array(x), True)
    np.testing.assert_array_equal(np.asarray(m), x.max(axis=(2, 3), keepdims=True))
    np.testing.assert_array_equal(np.asarray(idx)[..., 0, 0], x.reshape(2, 4, -1).argmax(axis=2))


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_float16_wave64(emulated_wave64_device, layout):
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal((1, 8, 9, 8)).astype(np.float16)  # NHWC: a pack of 8 channels per thread
    dev = emulated_wave64_device
    y = ra.nn.max_pool2d(dev.array(_to_layout(x, layout)), 3, 2, 1, layout=layout)
    want, _, _ = ref.pool(x.astype(np.float64), "max", (5, 4), (3, 3), (2, 2), (1, 1), (1, 1))
    np.testing.assert_array_equal(_from_layout(y, layout).astype(np.float64), want)
    a = ra.nn.avg_pool2d(dev.array(_to_layout(x, layout)), 3, 2, 1, layout=layout)
    want, _, _ = ref.pool(x.astype(np.float64), "avg", (5, 4), (3, 3), (2, 2), (1, 1))
    np.testing.assert_allclose(_from_layout(a, layout).astype(np.float64), want, rtol=1e-3, atol=1e-3)



@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_channel_packs_nhwc(emulated_device, dtype):
    # 8 channels: packs of 2 (float64) or 4 (float32) channels per thread
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal((2, 8, 7, 6)).astype(dtype)
    dev_x = emulated_device.array(_to_layout(x, "NHWC"))
    y, idx = ra.nn.max_pool2d(dev_x, 3, 2, 1, dilation=(1, 1), return_indices=True, layout="NHWC")
    assert emulated_device.names()[-1].startswith("ra_miopen_pooling_max2d_nhwc<")  # the run kernel
    a = ra.nn.max_pool2d(dev_x, 3, 2, 1, dilation=(2, 2), layout="NHWC")
    assert emulated_device.names()[-1].endswith(f", {16 // x.itemsize}>")         # the packed general one
    want, _, _ = ref.pool(x, "max", (3, 2), (3, 3), (2, 2), (1, 1), (2, 2))
    np.testing.assert_array_equal(_from_layout(a, "NHWC"), want)
    want, want_idx, _ = ref.pool(x, "max", (4, 3), (3, 3), (2, 2), (1, 1), (1, 1))
    np.testing.assert_array_equal(_from_layout(y, "NHWC"), want)
    np.testing.assert_array_equal(_from_layout(idx, "NHWC"), want_idx)
    a = ra.nn.avg_pool2d(dev_x, 3, 2, 1, count_include_pad=False, layout="NHWC")
    want, _, _ = ref.pool(x.astype(np.float64), "avg", (4, 3), (3, 3), (2, 2), (1, 1), None, False)
    np.testing.assert_allclose(_from_layout(a, "NHWC"), want, rtol=1e-6, atol=1e-6)
    m = ra.nn.adaptive_max_pool2d(dev_x, (3, 2), layout="NHWC")
    np.testing.assert_array_equal(_from_layout(m, "NHWC"), ref.pool(x, "adaptive_max", (3, 2))[0])
