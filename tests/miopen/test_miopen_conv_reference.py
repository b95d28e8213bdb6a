"""The NumPy reference of the convolution tests is right: its three directions are adjoint to
each other (<conv(x, w), dy> = <x, dx> = <w, dw>) and its forward matches SciPy's correlation."""

import numpy as np
import pytest
import scipy.signal

import miopen_conv_host as host


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("size,flt,stride,pad,dil,groups", [
    ((7, 6), (3, 2), (2, 1), (1, 0), (1, 2), 2), ((9,), (4,), (3,), (2,), (2,), 1),
    ((4, 5, 3), (2, 3, 2), (1, 2, 1), (1, 1, 0), (2, 1, 1), 3)])
def test_directions_are_adjoint(rng, layout, size, flt, stride, pad, dil, groups):
    p = host.problem("forward", 2, 3 * groups, 2 * groups, size, flt, stride=stride, pad=pad, dilation=dil,
                     groups=groups, layout=layout)
    x, w, dy = host.inputs(rng, p)
    lhs = np.vdot(host.forward(p, x, w), dy)
    assert np.isclose(lhs, np.vdot(x, host.backward_data(p, dy, w)), rtol=1e-10)
    assert np.isclose(lhs, np.vdot(w, host.backward_weights(p, x, dy)), rtol=1e-10)


def test_forward_matches_scipy(rng):
    p = host.problem("forward", 1, 1, 1, (8, 9), (3, 4), pad=(1, 2))
    x, w, _ = host.inputs(rng, p)
    padded = np.pad(x[0, 0], ((1, 1), (2, 2)))
    np.testing.assert_allclose(host.forward(p, x, w)[0, 0], scipy.signal.correlate2d(padded, w[0, 0], "valid"),
                               rtol=1e-12, atol=1e-12)


def test_the_self_check_reference_matches_this_one(rng):
    from rocarray._checks import miopen_conv

    for case in miopen_conv._CASES:
        for layout in ("NCHW", "NHWC"):
            p = miopen_conv._problem("forward", *case, "float64", layout)
            x, w, _ = host.inputs(rng, p)
            np.testing.assert_allclose(miopen_conv._reference(p, x, w), host.forward(p, x, w), rtol=1e-12, atol=1e-12)


def test_the_bench_cases_are_registered():
    import importlib

    from rocarray._core import harness

    importlib.import_module("rocarray._checks.miopen_conv")  # registers its cases

    names = {c.name for c in harness.bench_cases() if c.library == "miopen"}
    assert {"miopen.conv3x3_n64_c256_56_f16_nhwc", "miopen.conv3x3_n64_c256_56_f32_nchw",
            "miopen.depthwise3x3_n64_c256_56_f16_nhwc"} <= names
