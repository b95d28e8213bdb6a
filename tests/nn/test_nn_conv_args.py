"""rocarray.nn convolution façade on the CPU: torch's argument rules (shapes, padding 'same' and
'valid', unbatched tensors, layouts) through launchfake's recording device (kernels never run),
and its errors on made-up device arrays that are never launched."""

import numpy as np
import pytest

from conftest import fake
from launchfake import fake_device  # noqa: F401 (the fixture)

import rocarray as ra
from rocarray.miopen import _conv_direct


def _geometry(launch):
    g = launch.args[0]
    assert g.dtype == _conv_direct.GEOMETRY
    return g[0]


@pytest.mark.parametrize("flt,dil,before", [(3, 1, 1), (4, 1, 1), (2, 3, 1), (5, 2, 4), (1, 1, 0)])
def test_padding_same_keeps_the_size_and_splits_like_torch(fake_device, flt, dil, before):
    x = fake_device.array((2, 3, 11, 8), "float32")
    w = fake_device.array((5, 3, flt, 1), "float32")
    y = ra.nn.conv2d(x, w, padding="same", dilation=(dil, 1))
    assert y.shape == (2, 5, 11, 8)
    g = _geometry(fake_device.launches[-1])
    assert (g["pad1"], g["pad2"], g["out1"], g["out2"]) == (before, 0, 11, 8)


def test_output_shapes_follow_torch(fake_device):
    x = fake_device.array((1, 4, 9, 10), "float64")
    w = fake_device.array((6, 2, 3, 3), "float64")
    assert ra.nn.conv2d(x, w, stride=2, padding=1, dilation=(1, 2), groups=2).shape == (1, 6, 5, 4)
    assert ra.nn.conv2d(x, fake_device.array((6, 2, 1, 1), "float64"), padding="valid", groups=2).shape == (1, 6, 9, 10)
    assert ra.nn.conv1d(fake_device.array((3, 7), "float32"), fake_device.array((2, 3, 3), "float32")).shape == (2, 5)
    x3 = fake_device.array((2, 5, 4, 6, 3), "float16")
    w3 = fake_device.array((4, 2, 3, 5, 3), "float16")
    y3 = ra.nn.conv3d(x3, w3, stride=(1, 2, 1), padding=(1, 0, 2), layout="NHWC")
    assert y3.shape == (2, 6, 1, 6, 4) and y3.dtype == np.float16


def test_unbatched_and_channels_last(fake_device):
    x = fake_device.array((7, 9, 3), "float32")  # (H, W, C)
    w = fake_device.array((4, 3, 3, 3), "float32")  # (K, kH, kW, C)
    y = ra.nn.conv2d(x, w, padding=1, layout="NHWC")
    assert y.shape == (7, 9, 4)
    g = _geometry(fake_device.launches[-1])
    assert (g["n"], g["c"], g["k"], g["in1"], g["in2"]) == (1, 3, 4, 7, 9)
    assert fake_device.launches[-1].name == "ra_miopen_conv_direct_fwd<float, true>"


def test_gradients_shapes_and_directions(fake_device):
    w = fake_device.array((6, 2, 3, 3), "float32")
    dy = fake_device.array((2, 6, 4, 5), "float32")
    dx = ra.nn.conv2d_input((2, 4, 8, 10), w, dy, stride=2, padding=1, groups=2)
    assert dx.shape == (2, 4, 8, 10)
    assert fake_device.launches[-1].name.startswith("ra_miopen_conv_direct_bwd_data")
    x = fake_device.array((2, 4, 8, 10), "float32")
    dw = ra.nn.conv2d_weight(x, (6, 2, 3, 3), dy, stride=2, padding=1, groups=2)
    assert dw.shape == (6, 2, 3, 3)
    assert fake_device.launches[-1].name.startswith("ra_miopen_conv_direct_bwd_weights")


def test_bias_and_activation_are_fused_into_the_direct_launch(fake_device):
    x = fake_device.array((1, 3, 5, 5), "float32")
    w = fake_device.array((2, 3, 3, 3), "float32")
    b = fake_device.array((2,), "float32")
    ra.nn.conv2d(x, w, b, activation="relu", algo="direct")
    (launch,) = fake_device.launches
    assert launch.name == "ra_miopen_conv_direct_fwd<float, false>"
    assert int(launch.args[4]) == b.data.ptr and int(launch.args[5]) == 1  # bias pointer, relu


def _xw(dtype="float32"):
    return fake((2, 4, 8, 8), dtype), fake((6, 2, 3, 3), dtype)


@pytest.mark.parametrize("kwargs,message", [
    ({"groups": 0}, "non-positive groups"),
    ({"groups": 4}, "divisible by 4 at dimension 0"),
    ({"groups": 3}, "to have 6 channels, but got 4"),
    ({"groups": 1}, "to have 2 channels, but got 4 channels"),
    ({"stride": 0}, "'stride' must be >= 1"),
    ({"dilation": (1, 0)}, "'dilation' must be >= 1"),
    ({"padding": -1}, "'padding' must be >= 0"),
    ({"padding": (1, 1, 1)}, "tuple of 2 ints"),
    ({"padding": "full"}, "Invalid padding string 'full'"),
    ({"padding": "same", "stride": 2}, "not supported for strided convolutions"),
    ({"dilation": 5}, "Kernel size can't be greater than actual input size"),
    ({"layout": "NCWH"}, "layout must be"),
    ({"activation": "softmax"}, "activation must be None or one of"),
])
def test_bad_arguments_are_value_errors(kwargs, message):
    x, w = _xw()
    kwargs = {"groups": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        ra.nn.conv2d(x, w, **kwargs)


def test_bad_tensors():
    x, w = _xw()
    with pytest.raises(TypeError, match="host \\(NumPy\\) array"):
        ra.nn.conv2d(np.zeros((2, 4, 8, 8), np.float32), w, groups=2)
    with pytest.raises(TypeError, match="int32"):
        ra.nn.conv2d(fake((2, 4, 8, 8), "int32"), w, groups=2)
    with pytest.raises(TypeError, match="one dtype"):
        ra.nn.conv2d(x, _xw("float64")[1], groups=2)
    with pytest.raises(ValueError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\) input"):
        ra.nn.conv2d(fake((4, 8), "float32"), w, groups=2)
    with pytest.raises(ValueError, match="Expected 4D weight"):
        ra.nn.conv2d(x, fake((6, 2, 3), "float32"), groups=2)
    with pytest.raises(ValueError, match="expected bias to be 1-dimensional with 6 elements"):
        ra.nn.conv2d(x, w, fake((5,), "float32"), groups=2)
    with pytest.raises(TypeError, match="'algo'"):
        ra.nn.conv2d(x, w, groups=2, algo=3)
    with pytest.raises(TypeError, match="'groups'"):
        ra.nn.conv2d(x, w, groups=2.0)


def test_an_algorithm_that_cannot_run_is_named(fake_device):
    x = fake_device.array((1, 3, 5, 5), "float32")
    w = fake_device.array((2, 3, 3, 3), "float32")
    with pytest.raises(ValueError, match="algo='winograd_f9x9' cannot run this convolution; .*direct"):
        ra.nn.conv2d(x, w, algo="winograd_f9x9")


def test_gradient_shape_errors():
    w = fake((6, 2, 3, 3), "float32")
    with pytest.raises(ValueError, match="expected grad_output of size \\[2, 6, 6, 6\\], got \\[2, 6, 5, 6\\]"):
        ra.nn.conv2d_input((2, 4, 8, 8), w, fake((2, 6, 5, 6), "float32"), groups=2)
    with pytest.raises(ValueError, match="'input_size' must hold 4 sizes"):
        ra.nn.conv2d_input((4, 8, 8), w, fake((2, 6, 6, 6), "float32"), groups=2)
    with pytest.raises(ValueError, match="'weight_size' must hold 4 sizes"):
        ra.nn.conv2d_weight(fake((2, 4, 8, 8), "float32"), (6, 2, 3), fake((2, 6, 6, 6), "float32"), groups=2)
    with pytest.raises(TypeError, match="one dtype"):
        ra.nn.conv2d_weight(fake((2, 4, 8, 8), "float32"), (6, 2, 3, 3), fake((2, 6, 6, 6), "float64"), groups=2)
