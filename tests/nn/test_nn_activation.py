"""rocarray.nn activations: argument errors and dispatch on the CPU (launchfake arrays, never
run), values against torch on the GPU (float64 torch on the same inputs)."""

import numpy as np
import pytest

from conftest import fake, random_array, to_device, to_host
from launchfake import fake_device  # noqa: F401 (the fixture)

import rocarray as ra
from rocarray.nn import _args

FORWARD = {  # name -> (kwargs, torch's functional name)
    "relu": {}, "leaky_relu": {"negative_slope": 0.2}, "elu": {"alpha": 0.8}, "sigmoid": {}, "tanh": {},
    "gelu": {"approximate": "none"}, "silu": {}, "softplus": {"beta": 2.0, "threshold": 3.0}, "hardswish": {},
}
FROM_OUTPUT = ("sigmoid", "tanh")


def test_host_array_is_type_error():
    with pytest.raises(TypeError, match="host"):
        ra.nn.relu(np.zeros(3, np.float32))


def test_integer_dtype_is_type_error():
    with pytest.raises(TypeError, match="relu.*int32"):
        ra.nn.relu(fake((4,), "int32"))


def test_bad_gelu_approximate_is_value_error():
    with pytest.raises(ValueError, match="none or tanh"):
        ra.nn.gelu(fake((4,), "float32"), approximate="erf")


def test_backward_shape_and_dtype_mismatch():
    with pytest.raises(ValueError, match="shape"):
        ra.nn.relu_backward(fake((4,), "float32"), fake((5,), "float32", address=1 << 24))
    with pytest.raises(TypeError, match="one dtype"):
        ra.nn.silu_backward(fake((4,), "float32"), fake((4,), "float64", address=1 << 24))


@pytest.mark.parametrize("name,code", [("relu", 0), ("gelu", 5), ("softplus", 8)])
def test_forward_dispatch(fake_device, name, code):
    x = fake_device.array((3, 5), "float32")
    y = getattr(ra.nn, name)(x)
    assert y.shape == (3, 5) and y.dtype == np.float32
    assert fake_device.names() == [f"ra_miopen_activation_forward<float, {code}>"]
    launch = fake_device.launches[0]
    assert int(launch.args[2]) == 15


def test_gelu_tanh_and_backward_dispatch(fake_device):
    x = fake_device.array((8,), "float64")
    ra.nn.gelu(x, approximate="tanh")
    ra.nn.sigmoid_backward(x, x)
    assert fake_device.names() == [
        "ra_miopen_activation_forward<double, 6>", "ra_miopen_activation_backward<double, 3>"]


def test_inplace_returns_input(fake_device):
    x = fake_device.array((16,), "float32")
    assert ra.nn.relu(x, inplace=True) is x
    args = fake_device.launches[0].args
    assert args[0].data.ptr == args[1].data.ptr == x.data.ptr


# ---------------------------------------------------------------- GPU, against torch


def _dtypes():
    return [pytest.param(d, id=d.name) for d in _args.float_dtypes()]


def _normal(rng, shape, dtype, scale=1.0):
    """Random data in any floating dtype (bfloat16's kind is not 'f', so not conftest's helper)."""
    return (rng.standard_normal(shape) * scale).astype(dtype)


def _tol(dtype):
    return {"float16": 3e-3, "bfloat16": 2e-2, "float32": 3e-6, "float64": 1e-12}[np.dtype(dtype).name]


def _torch_fn(torch, name):
    return getattr(torch.nn.functional, name)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", _dtypes())
@pytest.mark.parametrize("shape", [(1,), (7, 13), (2, 3, 257)])
@pytest.mark.parametrize("name", list(FORWARD) + ["gelu_tanh"])
def test_activation_forward_backward_vs_torch(rng, name, shape, dtype):
    torch = pytest.importorskip("torch")
    kwargs = FORWARD.get(name, {"approximate": "tanh"})
    fn = "gelu" if name == "gelu_tanh" else name
    host = _normal(rng, shape, dtype, 3.0)
    grad = _normal(rng, shape, dtype)
    x, g = to_device(host), to_device(grad)
    y = getattr(ra.nn, fn)(x, **kwargs)
    assert y.dtype == x.dtype and y.shape == x.shape
    tx = torch.tensor(host.astype(np.float64), device="cuda", requires_grad=True)
    ty = _torch_fn(torch, fn)(tx, **kwargs)
    ty.backward(torch.tensor(grad.astype(np.float64), device="cuda"))
    tol = _tol(dtype)
    want = ty.detach().cpu().numpy()
    if fn == "hardswish" and np.dtype(dtype) == np.float64:
        # torch scales by a single-precision 1/6 (relative error 3e-8); the exact formula is the reference
        np.testing.assert_allclose(want, host * np.clip(host + 3, 0, 6) / 6, rtol=1e-7, atol=1e-12)
        want = host * np.clip(host + 3, 0, 6) / 6
    np.testing.assert_allclose(to_host(y).astype(np.float64), want, rtol=tol, atol=tol)
    saved = y if fn in FROM_OUTPUT else x
    dx = getattr(ra.nn, fn + "_backward")(g, saved, **kwargs)
    assert dx.dtype == x.dtype
    # from a rounded output the 16-bit gradients carry one more rounding
    np.testing.assert_allclose(to_host(dx).astype(np.float64), tx.grad.cpu().numpy(), rtol=2 * tol, atol=2 * tol)


@pytest.mark.gpu
def test_non_contiguous_and_large_vs_torch(rng):
    torch = pytest.importorskip("torch")
    host = random_array(rng, (301, 1031), "float32")
    x = to_device(host)[:, ::2]
    y = ra.nn.gelu(x)
    want = torch.nn.functional.gelu(torch.tensor(host[:, ::2].astype(np.float64), device="cuda")).cpu().numpy()
    np.testing.assert_allclose(to_host(y), want, rtol=3e-6, atol=3e-6)
    big = to_device(random_array(rng, (1 << 22) + 3, "float32"))
    z = ra.nn.relu(big)
    np.testing.assert_array_equal(to_host(z), np.maximum(to_host(big), 0))


@pytest.mark.gpu
def test_relu_keeps_nan_and_inplace(rng):
    host = random_array(rng, (33,), "float32")
    host[5] = np.nan
    x = to_device(host)
    out = ra.nn.relu(x, inplace=True)
    assert out is x
    got = to_host(x)
    assert np.isnan(got[5])
    np.testing.assert_array_equal(np.delete(got, 5), np.maximum(np.delete(host, 5), 0))


@pytest.mark.gpu
def test_library_out_argument_is_fully_written(rng):
    # the out= of the library functions, poisoned with NaN first: every element must be written
    import cupy

    from rocarray import miopen

    for dtype in ("float16", "float32", "float64"):
        host = _normal(rng, (3, 1021), dtype)
        out = cupy.full(host.shape, np.nan, dtype)
        miopen.activation_forward(to_device(host), "silu", out=out)
        x64 = host.astype(np.float64)
        np.testing.assert_allclose(to_host(out).astype(np.float64), x64 / (1 + np.exp(-x64)), rtol=_tol(dtype),
                                   atol=_tol(dtype))
        out = cupy.full(host.shape, np.nan, dtype)
        miopen.softmax_forward(to_device(host), 1, log=True, out=out)
        shifted = x64 - x64.max(axis=1, keepdims=True)
        want = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        np.testing.assert_allclose(to_host(out).astype(np.float64), want, rtol=4 * _tol(dtype), atol=4 * _tol(dtype))
