"""The direct convolution and epilogue kernels run on the CPU through the kernel emulator
(tests/kernel_emu.py), through the library entry points with ``algo='direct'``, against the NumPy
float64 reference (miopen_conv_host.py): every direction, both layouts, 1-3 spatial axes, groups,
stride, dilation, asymmetric padding; float16 on the wave64 target (its conversions need it).
CPU tests: skipped where g++ is missing."""

import numpy as np
import pytest

import miopen_conv_host as host
from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)

from rocarray import miopen

SEED = 20261205

# (dtype, layout, n, c, k, input size, filter size, stride, pad, pad after, dilation, groups);
# each (dtype, layout) pair is one set of kernel instantiations, shared by its 1-D to 3-D cases
CASES = [
    ("float64", "NCHW", 2, 4, 6, (7, 6), (3, 2), (2, 1), (1, 0), (2, 1), (1, 2), 2),
    ("float64", "NCHW", 1, 3, 2, (9,), (3,), (2,), (2,), (0,), (2,), 1),
    ("float32", "NHWC", 2, 4, 6, (5, 7), (2, 3), (1, 2), (0, 1), (1, 1), (2, 1), 2),
    ("float32", "NHWC", 1, 2, 3, (4, 5, 3), (2, 3, 2), (1, 2, 1), (1, 1, 0), (0, 1, 1), (2, 1, 1), 1),
]


def _problem(direction, case):
    dtype, layout, n, c, k, size, flt, stride, pad, after, dil, groups = case
    return host.problem(direction, n, c, k, size, flt, stride=stride, pad=pad, pad_after=after, dilation=dil,
                        groups=groups, dtype=dtype, layout=layout)


def _tol(dtype):
    return {"float64": 1e-12, "float32": 1e-5, "float16": 2e-2}[np.dtype(dtype).name]


def _run_all_directions(dev, case):
    rng = np.random.default_rng(SEED)
    fwd = _problem("forward", case)
    x, w, dy = host.inputs(rng, fwd)
    tol = _tol(fwd.dtype)
    y = miopen.convolution_forward(fwd, dev.array(x), dev.array(w), algo="direct")
    np.testing.assert_allclose(np.asarray(y, np.float64), host.forward(fwd, x, w), rtol=tol, atol=tol)
    bd = _problem("backward_data", case)
    dx = miopen.convolution_backward_data(bd, dev.array(dy), dev.array(w), algo="direct")
    np.testing.assert_allclose(np.asarray(dx, np.float64), host.backward_data(bd, dy, w), rtol=tol, atol=tol)
    bw = _problem("backward_weights", case)
    dw = miopen.convolution_backward_weights(bw, dev.array(x), dev.array(dy), algo="direct")
    np.testing.assert_allclose(np.asarray(dw, np.float64), host.backward_weights(bw, x, dy), rtol=tol, atol=tol)
    assert {name.split("<")[0] for name in dev.names()} == {
        "ra_miopen_conv_direct_fwd", "ra_miopen_conv_direct_bwd_data", "ra_miopen_conv_direct_bwd_weights"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{len(c[5])}d")
def test_direct_every_direction(emulated_device, case):
    _run_all_directions(emulated_device, case)


def test_direct_float16_wave64(emulated_wave64_device):
    _run_all_directions(emulated_wave64_device,
                        ("float16", "NHWC", 2, 6, 4, (5, 6), (3, 3), (2, 1), (1, 1), (1, 0), (1, 2), 2))


def test_bias_and_activation_fused(emulated_device):
    rng = np.random.default_rng(SEED)
    p = _problem("forward", CASES[0])
    x, w, _ = host.inputs(rng, p)
    bias = rng.standard_normal(p.k)
    want = host.forward(p, x, w) + bias[:, None, None]
    y = miopen.convolution_forward(p, emulated_device.array(x), emulated_device.array(w),
                                   bias=emulated_device.array(bias), activation="leaky_relu", algo="direct")
    np.testing.assert_allclose(np.asarray(y), np.where(want < 0, 0.01 * want, want), rtol=1e-12, atol=1e-12)
    y = miopen.convolution_forward(p, emulated_device.array(x), emulated_device.array(w), activation="silu",
                                   algo="direct")
    plain = host.forward(p, x, w)
    np.testing.assert_allclose(np.asarray(y), plain / (1 + np.exp(-plain)), rtol=1e-12, atol=1e-12)
    assert emulated_device.names() == ["ra_miopen_conv_direct_fwd<double, false>"] * 2  # one launch each


def test_epilogue_kernel(emulated_device):
    # after an algorithm that does not fuse (the gemm channels first): one pass over y
    from rocarray.miopen import _conv_epilogue

    rng = np.random.default_rng(SEED)
    for layout, act in (("NCHW", "gelu"), ("NHWC", "tanh")):
        p = host.problem("forward", 2, 3, 5, (4, 6), (3, 3), layout=layout)
        y0 = rng.standard_normal(p.y_shape())
        bias = rng.standard_normal(p.k)
        y = emulated_device.array(y0)
        _conv_epilogue.apply(p, y, emulated_device.array(bias), act)
        z = y0 + (bias if layout == "NHWC" else bias[:, None, None])
        want = {"gelu": lambda v: 0.5 * v * (1 + np.vectorize(__import__("math").erf)(v / np.sqrt(2))),
                "tanh": np.tanh}[act](z)
        np.testing.assert_allclose(np.asarray(y), want, rtol=1e-12, atol=1e-12)
    assert emulated_device.names() == ["ra_miopen_conv_epilogue<double>"] * 2
