"""The depthwise convolution kernels run on the CPU through the kernel emulator, through the
library entry points with ``algo='depthwise'``, against the NumPy float64 reference: every
direction, both layouts, channel multipliers 1 and 3, stride, dilation, 1-3 spatial axes;
float16 on the wave64 target. CPU tests: skipped where g++ is missing."""

import numpy as np
import pytest

import miopen_conv_host as host
from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)

from rocarray import miopen
from rocarray.miopen import _conv_depthwise

SEED = 20261207

CASES = [  # (dtype, layout, n, c, multiplier, size, filter, stride, pad, dilation)
    ("float64", "NCHW", 2, 3, 1, (7, 6), (3, 3), (2, 1), (1, 1), (1, 2)),
    ("float64", "NCHW", 1, 2, 3, (9,), (5,), (1,), (2,), (1,)),
    ("float32", "NHWC", 2, 4, 3, (5, 6), (3, 2), (1, 2), (1, 0), (2, 1)),
    ("float32", "NHWC", 1, 2, 1, (4, 3, 5), (2, 2, 3), (1, 1, 2), (1, 0, 1), 1),
    ("float64", "NHWC", 1, 3, 2, (3, 13), (2, 4), (1, 2), (0, 3), (1, 2)),
]


def _check(dev, case):
    dtype, layout, n, c, m, size, flt, stride, pad, dil = case
    rng = np.random.default_rng(SEED)

    def problem(direction):
        return host.problem(direction, n, c, c * m, size, flt, stride=stride, pad=pad, dilation=dil, groups=c,
                            dtype=dtype, layout=layout)

    tol = {"float64": 1e-12, "float32": 1e-5, "float16": 2e-2}[dtype]
    fwd = problem("forward")
    assert _conv_depthwise.ALGORITHMS[0].applicable(fwd)
    x, w, dy = host.inputs(rng, fwd)
    y = miopen.convolution_forward(fwd, dev.array(x), dev.array(w), algo="depthwise")
    np.testing.assert_allclose(np.asarray(y, np.float64), host.forward(fwd, x, w), rtol=tol, atol=tol)
    bd = problem("backward_data")
    dx = miopen.convolution_backward_data(bd, dev.array(dy), dev.array(w), algo="depthwise")
    np.testing.assert_allclose(np.asarray(dx, np.float64), host.backward_data(bd, dy, w), rtol=tol, atol=tol)
    bw = problem("backward_weights")
    dw = miopen.convolution_backward_weights(bw, dev.array(x), dev.array(dy), algo="depthwise")
    np.testing.assert_allclose(np.asarray(dw, np.float64), host.backward_weights(bw, x, dy), rtol=tol, atol=tol)
    names = dev.names()
    assert all(name.startswith("ra_miopen_conv_depthwise_") for name in names)
    assert names[0].startswith("ra_miopen_conv_depthwise_fwd2d" if len(size) <= 2 else "ra_miopen_conv_depthwise_fwd<")


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{len(c[5])}d-m{c[4]}")
def test_depthwise_every_direction(emulated_device, case):
    _check(emulated_device, case)


def test_depthwise_float16_wave64(emulated_wave64_device):
    _check(emulated_wave64_device, ("float16", "NHWC", 2, 3, 2, (5, 5), (3, 3), (2, 2), (1, 1), (1, 1)))


def test_depthwise_applies_only_to_one_channel_per_group():
    algorithm = _conv_depthwise.ALGORITHMS[0]
    assert not algorithm.applicable(host.problem("forward", 1, 4, 4, (5, 5), (3, 3), groups=2))
    assert algorithm.applicable(host.problem("forward", 1, 4, 8, (5, 5), (3, 3), groups=4))


def test_depthwise_fused_bias_and_activation(emulated_device):
    rng = np.random.default_rng(SEED)
    for layout in ("NCHW", "NHWC"):
        p = host.problem("forward", 2, 3, 6, (4, 9), (3, 3), pad=1, groups=3, layout=layout)
        x, w, _ = host.inputs(rng, p)
        bias = rng.standard_normal(6)
        y = miopen.convolution_forward(p, emulated_device.array(x), emulated_device.array(w),
                                       bias=emulated_device.array(bias), activation="tanh", algo="depthwise")
        want = host.forward(p, x, w) + (bias if layout == "NHWC" else bias[:, None, None])
        np.testing.assert_allclose(np.asarray(y), np.tanh(want), rtol=1e-12, atol=1e-12)
