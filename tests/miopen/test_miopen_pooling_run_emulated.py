"""The channels-last max-pool run kernels (``ra_miopen_pooling_max2d_nhwc``: a row of outputs per
thread for one 16-byte pack of channels; ``..._h2``: the same for float16 without indices, two
channels per comparison) on the CPU through the kernel emulator, against the
brute-force NumPy float64 pooling of tests/miopen/pointwise_reference.py, values and indices
bit for bit: odd widths (a partial last run, one column), padding, ceil_mode, vertical stride and
dilation, 1-D, ties (the first index wins), NaNs (the last NaN wins), -inf windows, outputs
poisoned before the launch; routing (which kernel a problem takes) on launchfake. CPU tests:
skipped where g++ is missing."""

import numpy as np
import pytest

from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)
from miopen import pointwise_reference as ref

import rocarray as ra
from rocarray.miopen import _pointwise_common, _pooling
from rocarray.nn._pooling import output_size

SEED = 20261205
RUN = "ra_miopen_pooling_max2d_nhwc"


@pytest.fixture
def poisoned(monkeypatch):
    """Every array the pooling forward allocates starts as NaN (floats) or -7 (indices)."""
    empty = _pointwise_common.empty

    def filled(shape, dtype, like):
        out = empty(shape, dtype, like)
        out[...] = np.nan if np.dtype(dtype).kind == "f" else -7
        return out

    monkeypatch.setattr(_pointwise_common, "empty", filled)


def _nhwc(a):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1))


def _nchw(a):
    return np.moveaxis(np.asarray(a), -1, 1)


def _pool(dev, x, kernel, stride, padding, dilation, ceil_mode, dtype):
    """Max-pool ``x`` (NCHW float64 values) as NHWC ``dtype`` on ``dev``: ``(y, indices, kernel
    names launched)`` in NCHW order, and the reference ``(y, indices)``."""
    nd = x.ndim - 2
    before = len(dev.names())
    y, idx = getattr(ra.nn, f"max_pool{nd}d")(dev.array(_nhwc(x.astype(dtype))), kernel, stride, padding, dilation,
                                             ceil_mode, return_indices=True, layout="NHWC")
    names = dev.names()[before:]
    out = tuple(output_size(*a, ceil_mode) for a in zip(x.shape[2:], kernel, padding, stride, dilation))
    want, want_idx, _ = ref.pool(x.astype(dtype).astype(np.float64), "max", out, kernel, stride, padding, dilation)
    return _nchw(y), _nchw(idx), names, want, want_idx


def _check(dev, x, kernel, stride, padding, dilation=None, ceil_mode=False, dtype="float32"):
    nd = x.ndim - 2
    dilation = dilation or (1,) * nd
    y, idx, names, want, want_idx = _pool(dev, x, kernel, stride, padding, dilation, ceil_mode, dtype)
    assert len(names) == 1 and names[0].startswith(RUN) and names[0].endswith("true>")
    np.testing.assert_array_equal(y.astype(np.float64), want)
    np.testing.assert_array_equal(idx, want_idx)


def _ties_and_nans(rng, shape):
    """Small integers (many ties), a NaN, a second NaN in one window, and an all -inf plane."""
    x = rng.integers(-3, 4, shape).astype(np.float64)
    x[0, 0].flat[1] = np.nan
    x[0, 0].flat[2] = np.nan
    x[-1, -1] = -np.inf
    return x


CASES = [  # (spatial, kernel, stride, padding, dilation, ceil_mode): the run shapes 3/2, 2/2, 3/1 along W
    ((7, 9), (3, 3), (2, 2), (1, 1), (1, 1), False),    # ResNet's stem pool, odd sizes
    ((6, 13), (3, 3), (2, 2), (0, 1), (1, 1), True),    # ceil_mode: a partial last window, partial run
    ((5, 1), (3, 3), (1, 2), (1, 1), (1, 1), False),    # one column (clamped loads only)
    ((9, 11), (3, 2), (3, 2), (1, 0), (2, 1), True),    # vertical stride 3, dilation 2
    ((4, 10), (2, 2), (2, 2), (0, 0), (1, 1), False),
    ((5, 7), (2, 2), (1, 2), (1, 1), (1, 1), True),
    ((3, 6), (3, 3), (1, 1), (1, 1), (1, 1), False),    # stride 1: overlapping runs
    ((4, 17), (1, 3), (1, 1), (0, 1), (1, 1), False),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-k{c[1]}-s{c[2]}" for c in CASES])
def test_max_pool_run_float32(emulated_device, poisoned, case):
    spatial, kernel, stride, padding, dilation, ceil_mode = case
    x = _ties_and_nans(np.random.default_rng(SEED), (2, 8, *spatial))
    _check(emulated_device, x, kernel, stride, padding, dilation, ceil_mode)


def test_max_pool_run_1d(emulated_device, poisoned):
    x = _ties_and_nans(np.random.default_rng(SEED), (2, 4, 23))
    _check(emulated_device, x, (3,), (2,), (1,), ceil_mode=True)


def test_max_pool_run_float64_random(emulated_device, poisoned):
    x = np.random.default_rng(SEED).standard_normal((3, 6, 11, 9))
    _check(emulated_device, x, (3, 3), (2, 2), (1, 1), dtype="float64")


def test_max_pool_run_float16_wave64(emulated_wave64_device, poisoned):
    x = _ties_and_nans(np.random.default_rng(SEED), (2, 16, 9, 15))
    _check(emulated_wave64_device, x, (3, 3), (2, 2), (1, 1), dtype="float16")


H2 = "ra_miopen_pooling_max2d_nhwc_h2"


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-k{c[1]}-s{c[2]}" for c in CASES])
def test_max_pool_half2_float16_wave64(emulated_wave64_device, poisoned, case):
    """float16 without indices: two channels per comparison; values equal the reference's, and
    the bits (zeros' signs: the first maximum wins) equal the run kernel's with indices."""
    spatial, kernel, stride, padding, dilation, ceil_mode = case
    dev = emulated_wave64_device
    x = _ties_and_nans(np.random.default_rng(SEED), (2, 16, *spatial))
    x[0, 1] = np.where(np.random.default_rng(SEED + 1).random(spatial) < 0.5, -0.0, 0.0)  # signed zeros
    nd = len(spatial)
    xd = dev.array(_nhwc(x.astype(np.float16)))
    kw = dict(kernel_size=kernel, stride=stride, padding=padding, dilation=dilation, ceil_mode=ceil_mode,
              layout="NHWC")
    before = len(dev.names())
    y = ra.nn.max_pool2d(xd, **kw)
    assert dev.names()[before:] == [f"{H2}<{kernel[-1]}, {stride[-1]}>"]
    y_run, _ = ra.nn.max_pool2d(xd, **kw, return_indices=True)
    assert dev.names()[-1].startswith(RUN)
    out = tuple(output_size(*a, ceil_mode) for a in zip(spatial, kernel, padding, stride, dilation))
    want, _, _ = ref.pool(x.astype(np.float16).astype(np.float64), "max", out, kernel, stride, padding, dilation)
    np.testing.assert_array_equal(_nchw(y).astype(np.float64), want)
    y, y_run = np.asarray(y), np.asarray(y_run)
    assert nd == 2 and (np.isnan(y) == np.isnan(y_run)).all()
    np.testing.assert_array_equal(y.view(np.uint16)[~np.isnan(y)], y_run.view(np.uint16)[~np.isnan(y_run)])
    assert (np.signbit(y) & (y == 0)).any()  # the data reach a -0 maximum


def test_max_pool_half2_switch(emulated_wave64_device, poisoned, monkeypatch):
    monkeypatch.setattr(_pooling, "HALF2", False)
    dev = emulated_wave64_device
    x = _ties_and_nans(np.random.default_rng(SEED), (2, 16, 7, 9))
    ra.nn.max_pool2d(dev.array(_nhwc(x.astype(np.float16))), 3, 2, 1, layout="NHWC")
    assert dev.names()[-1] == "ra_miopen_pooling_max2d_nhwc<ra_half, 3, 2, false>"


def test_max_pool_run_without_indices(emulated_device, poisoned):
    x = np.random.default_rng(SEED).standard_normal((2, 8, 7, 10)).astype(np.float32)
    dev = emulated_device
    y = ra.nn.max_pool2d(dev.array(_nhwc(x)), 3, 2, 1, layout="NHWC")
    assert dev.names()[-1] == "ra_miopen_pooling_max2d_nhwc<float, 3, 2, false>"
    want, _, _ = ref.pool(x, "max", (4, 5), (3, 3), (2, 2), (1, 1), (1, 1))
    np.testing.assert_array_equal(_nchw(y), want)


def test_max_pool_general_kernel_elsewhere(emulated_device, poisoned):
    """Dilation along W, a window width without an instantiation and channels that do not fill a
    pack take the general kernel, with the same results as the reference."""
    rng = np.random.default_rng(SEED)
    dev = emulated_device
    for shape, kernel, stride, padding, dilation in [((2, 8, 7, 9), (3, 3), (2, 2), (1, 1), (1, 2)),
                                                      ((2, 8, 7, 9), (3, 4), (2, 2), (1, 1), (1, 1)),
                                                      ((2, 6, 7, 9), (3, 3), (2, 2), (1, 1), (1, 1))]:
        x = _ties_and_nans(rng, shape)
        y, idx, names, want, want_idx = _pool(dev, x, kernel, stride, padding, dilation, False, "float32")
        assert names[0].startswith("ra_miopen_pooling_forward<")
        np.testing.assert_array_equal(y, want)
        np.testing.assert_array_equal(idx, want_idx)


def _geometry(shape, kernel, stride, padding=(0, 0), dilation=(1, 1), mode="max"):
    spatial = shape[1:-1]
    out = tuple(output_size(*a, False) for a in zip(spatial, kernel, padding, stride, dilation))
    return _pooling.PoolingGeometry(mode, "NHWC", shape, out, kernel, stride, padding, dilation)


def test_max_run_route():
    shape = _pooling.max_run_shape
    assert shape(_geometry((64, 112, 112, 64), (3, 3), (2, 2), (1, 1)), 8) == (3, 2)
    assert shape(_geometry((1, 9, 9, 8), (2, 2), (2, 2)), 8) == (2, 2)
    assert shape(_geometry((1, 9, 9, 8), (3, 3), (1, 1), (1, 1)), 4) == (3, 1)
    assert shape(_geometry((1, 9, 9, 8), (3, 3), (2, 2), (1, 1)), 1) is None             # no packs
    assert shape(_geometry((1, 9, 9, 8), (3, 3), (2, 2), (1, 1), (1, 2)), 8) is None     # dilated along W
    assert shape(_geometry((1, 9, 9, 8), (3, 5), (2, 2), (1, 1)), 8) is None             # width 5
    assert shape(_geometry((1, 9, 9, 8), (3, 3), (2, 2), (1, 1), mode="avg"), 8) is None
    assert shape(_geometry((1, 5, 9, 9, 8), (3, 3, 3), (2, 2, 2)), 8) is None            # 3-D
    assert shape(_geometry((2 ** 31 // 64, 1, 8, 64), (1, 3), (1, 2)), 8) is None        # 2^31 elements


def test_max_run_launch_geometry(fake_device):
    x = fake_device.array((64, 112, 112, 64), np.float16)
    ra.nn.max_pool2d(x, 3, 2, 1, layout="NHWC")
    launch = fake_device.launches[-1]
    assert launch.name == "ra_miopen_pooling_max2d_nhwc_h2<3, 2>"
    # 8 packs of 8 channels, 14 runs of 4 outputs in a row of 56, 64 * 56 rows; 256 threads a block
    assert tuple(launch.grid)[:1] == (64 * 56 * 14 * 8 // 256,)
