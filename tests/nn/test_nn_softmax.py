"""rocarray.nn softmax/log_softmax: argument errors and dispatch on the CPU (launchfake arrays,
never run), values and gradients against torch in float64 on the GPU."""

import numpy as np
import pytest

from conftest import fake, random_array, to_device, to_host
from launchfake import fake_device  # noqa: F401 (the fixture)

import rocarray as ra
from rocarray.nn import _args


def test_dim_out_of_range_is_index_error():
    with pytest.raises(IndexError):
        ra.nn.softmax(fake((3, 4), "float32"), dim=2)
    with pytest.raises(IndexError):
        ra.nn.log_softmax_backward(fake((3, 4), "float32"), fake((3, 4), "float32", address=1 << 24), -3)


def test_bad_dtypes():
    with pytest.raises(TypeError, match="int64"):
        ra.nn.softmax(fake((3,), "int64"), 0)
    with pytest.raises(TypeError, match="dtype int32"):
        ra.nn.softmax(fake((3,), "float32"), 0, dtype=np.int32)
    with pytest.raises(TypeError, match="one dtype"):
        ra.nn.softmax_backward(fake((3,), "float32"), fake((3,), "float16", address=1 << 24), 0)


def test_backward_shape_mismatch():
    with pytest.raises(ValueError, match="shape"):
        ra.nn.softmax_backward(fake((3, 4), "float32"), fake((4, 3), "float32", address=1 << 24), 1)


def test_implicit_dim_warns_and_follows_torch(fake_device):
    with pytest.warns(UserWarning, match="Implicit dimension"):
        ra.nn.softmax(fake_device.array((2, 3, 4), "float32"))
    launch = fake_device.launches[-1]
    assert launch.name == "ra_miopen_softmax_strided<float, 0>"  # dim 0 for a 3-D tensor
    assert [int(v) for v in launch.args[3:]] == [1, 2, 12]


@pytest.mark.parametrize("shape,dim,name,sizes", [
    ((4, 100), -1, "ra_miopen_softmax_rows<float, 1, true, 32>", [4, 100]),
    ((3, 5000), 1, "ra_miopen_softmax_rows<float, 1, false, 8>", [3, 5000]),
    ((2, 3, 5), 1, "ra_miopen_softmax_strided<float, 1>", [2, 3, 5]),
    ((), 0, "ra_miopen_softmax_rows<float, 1, true, 32>", [1, 1]),
])
def test_log_softmax_dispatch(fake_device, shape, dim, name, sizes):
    y = ra.nn.log_softmax(fake_device.array(shape, "float32"), dim)
    assert y.shape == shape
    launch = fake_device.launches[-1]
    assert launch.name == name and [int(v) for v in launch.args[3:]] == sizes


def test_backward_dispatch(fake_device):
    g, y = fake_device.array((6, 7), "float64"), fake_device.array((6, 7), "float64")
    ra.nn.softmax_backward(g, y, 0)
    ra.nn.log_softmax_backward(g, y, 1)
    assert fake_device.names() == [
        "ra_miopen_softmax_strided<double, 2>", "ra_miopen_softmax_rows<double, 3, true, 32>"]
    assert fake_device.launches[0].args[0].data.ptr == y.data.ptr  # the kernel's x is the output
    assert fake_device.launches[0].args[1].data.ptr == g.data.ptr


# ---------------------------------------------------------------- GPU, against torch


def _dtypes():
    return [pytest.param(d, id=d.name) for d in _args.float_dtypes()]


def _normal(rng, shape, dtype, scale=1.0):
    """Random data in any floating dtype (bfloat16's kind is not 'f', so not conftest's helper)."""
    return (rng.standard_normal(shape) * scale).astype(dtype)


def _tol(dtype):
    return {"float16": 4e-3, "bfloat16": 3e-2, "float32": 5e-6, "float64": 1e-12}[np.dtype(dtype).name]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", _dtypes())
@pytest.mark.parametrize("shape,dim", [((1, 1), 1), ((3, 37), -1), ((5, 1024), 1), ((3, 2000), 1), ((2, 2049), 1),
                                       ((2, 3, 9000), 2), ((4, 7, 5), 1), ((6, 5), 0), ((2, 3, 4, 5), 1)])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_forward_backward_vs_torch(rng, dtype, shape, dim, log):
    torch = pytest.importorskip("torch")
    host = _normal(rng, shape, dtype, 3.0)
    grad = _normal(rng, shape, dtype)
    x = to_device(host)
    fn = ra.nn.log_softmax if log else ra.nn.softmax
    y = fn(x, dim)
    tx = torch.tensor(host.astype(np.float64), device="cuda", requires_grad=True)
    ty = (torch.log_softmax if log else torch.softmax)(tx, dim)
    ty.backward(torch.tensor(grad.astype(np.float64), device="cuda"))
    tol = _tol(dtype)
    assert y.dtype == host.dtype and y.shape == shape
    np.testing.assert_allclose(to_host(y).astype(np.float64), ty.detach().cpu().numpy(), rtol=tol, atol=tol)
    back = ra.nn.log_softmax_backward if log else ra.nn.softmax_backward
    dx = back(to_device(grad), y, dim)
    np.testing.assert_allclose(to_host(dx).astype(np.float64), tx.grad.cpu().numpy(), rtol=3 * tol, atol=3 * tol)


@pytest.mark.gpu
def test_dtype_argument_and_non_contiguous(rng):
    torch = pytest.importorskip("torch")
    host = random_array(rng, (64, 130), "float16")
    x = to_device(host)[:, ::2]
    y = ra.nn.softmax(x, 1, dtype=np.float32)
    assert y.dtype == np.float32
    want = torch.softmax(torch.tensor(host[:, ::2].astype(np.float64), device="cuda"), 1).cpu().numpy()
    np.testing.assert_allclose(to_host(y), want, rtol=5e-6, atol=5e-6)


@pytest.mark.gpu
def test_integer_input_with_dtype(rng):
    host = rng.integers(-5, 5, (7, 9))
    y = ra.nn.log_softmax(to_device(host), 1, dtype=np.float64)
    shifted = host - host.max(axis=1, keepdims=True)
    np.testing.assert_allclose(to_host(y), shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True)), rtol=1e-13)


@pytest.mark.gpu
def test_extreme_values_stay_finite_and_nan_propagates():
    x = to_device(np.array([[1000.0, 999.0, -np.inf], [np.nan, 1.0, 2.0]], np.float32))
    y = to_host(ra.nn.softmax(x, 1))
    np.testing.assert_allclose(y[0], [1 / (1 + np.exp(-1)), np.exp(-1) / (1 + np.exp(-1)), 0.0], rtol=1e-6)
    assert np.isnan(y[1]).all()
