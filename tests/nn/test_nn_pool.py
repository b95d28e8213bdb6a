"""rocarray.nn pooling: torch's output-size rules and argument errors on the CPU (launchfake
arrays, never run), the kernel each call launches, and values, indices and gradients against
torch on the GPU."""

import numpy as np
import pytest

from conftest import fake, to_device, to_host
from launchfake import fake_device  # noqa: F401 (the fixture)

import rocarray as ra
from rocarray.miopen import _pooling
from rocarray.nn import _args
from rocarray.nn._pooling import output_size


@pytest.mark.parametrize("args,want", [
    ((112, 3, 1, 2, 1, False), 56),   # ResNet's stem
    ((5, 2, 0, 2, 1, False), 2),
    ((5, 2, 0, 2, 1, True), 3),       # a partial last window
    ((6, 2, 1, 2, 1, True), 4),
    ((4, 2, 1, 2, 1, True), 3),       # the ceil window would start in the right padding: dropped
    ((10, 3, 0, 1, 2, False), 6),     # dilation
    ((7, 3, 1, 3, 1, True), 3),
])
def test_output_size_follows_torch(args, want):
    # (size, kernel, pad, stride, dilation, ceil_mode); values from torch's pooling_output_shape
    assert output_size(*args) == want


def test_errors_follow_torch():
    x = fake((1, 2, 5, 5), "float32")
    with pytest.raises(ValueError, match="pad should be smaller than or equal to half of kernel size"):
        ra.nn.max_pool2d(x, 2, padding=2)
    with pytest.raises(ValueError, match="half of kernel size"):
        ra.nn.avg_pool2d(x, 3, padding=2)
    with pytest.raises(ValueError, match="Output size is too small"):
        ra.nn.max_pool2d(x, 6)
    with pytest.raises(ValueError, match="stride should be greater than zero"):
        ra.nn.max_pool2d(x, 2, stride=0)
    with pytest.raises(ValueError, match="kernel size should be greater than zero"):
        ra.nn.avg_pool2d(x, 0)
    with pytest.raises(ValueError, match="dilation should be greater than zero"):
        ra.nn.max_pool2d(x, 2, dilation=0)
    with pytest.raises(ValueError, match="divisor must be not zero"):
        ra.nn.avg_pool2d(x, 2, divisor_override=0)
    with pytest.raises(ValueError, match=r"must have \(3, 4\) dimensions"):
        ra.nn.max_pool2d(fake((5, 5), "float32"), 2)
    with pytest.raises(ValueError, match="kernel_size"):
        ra.nn.max_pool2d(x, (2, 2, 2))
    with pytest.raises(ValueError, match="non-zero"):
        ra.nn.max_pool2d(fake((1, 2, 0, 5), "float32"), 2)
    with pytest.raises(ValueError, match="layout"):
        ra.nn.max_pool2d(x, 2, layout="CHWN")
    with pytest.raises(TypeError, match="int32"):
        ra.nn.avg_pool1d(fake((1, 2, 5), "int32"), 2)
    with pytest.raises(TypeError, match="host"):
        ra.nn.adaptive_avg_pool2d(np.zeros((1, 2, 5, 5), np.float32), 2)
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        ra.nn.adaptive_max_pool2d(x, (2, -1))
    with pytest.raises(ValueError, match="output_size"):
        ra.nn.adaptive_avg_pool3d(fake((1, 2, 5, 5, 5), "float32"), (2, 2))


def test_padding_is_bounded_by_the_kernel_not_the_dilated_kernel(fake_device):
    ra.nn.max_pool1d(fake_device.array((1, 2, 9), "float32"), 3, padding=1, dilation=2)
    for fn, shape in ((ra.nn.max_pool1d, (1, 2, 9)), (ra.nn.max_pool2d, (1, 2, 9, 9))):
        with pytest.raises(ValueError, match="half of kernel size"):
            fn(fake_device.array(shape, "float32"), 3, padding=2, dilation=2)  # 2 <= (2 * 2 + 1) // 2 but > 3 // 2


def test_backward_argument_errors(fake_device):
    x = fake_device.array((1, 2, 6, 6), "float32")
    g = fake_device.array((1, 2, 3, 3), "float32")
    with pytest.raises(ValueError, match="grad_output' must have shape"):
        ra.nn.avg_pool2d_backward(fake_device.array((1, 2, 2, 3), "float32"), x, 2)
    with pytest.raises(TypeError, match="indices"):
        ra.nn.max_pool2d_backward(g, x, 2)
    with pytest.raises(ValueError, match="int64"):
        ra.nn.max_pool2d_backward(g, x, 2, indices=fake_device.array((1, 2, 3, 3), "int32"))
    with pytest.raises(TypeError, match="dtype"):
        ra.nn.avg_pool2d_backward(fake_device.array((1, 2, 3, 3), "float64"), x, 2)


def test_max_pool_nhwc_geometry_and_launch(fake_device):
    x = fake_device.array((2, 112, 112, 64), "float16")
    y = ra.nn.max_pool2d(x, 3, 2, 1, layout="NHWC")
    assert y.shape == (2, 56, 56, 64) and y.dtype == np.float16
    launch = fake_device.launches[-1]
    # 16-byte channel packs, a run of outputs per thread; no indices asked for: the float16 kernel
    # of two channels per comparison, which takes no indices pointer
    assert launch.name == "ra_miopen_pooling_max2d_nhwc_h2<3, 2>"
    assert len(launch.args) == 3
    g = launch.args[2][0]
    assert (g["n"], g["c"]) == (2, 64)
    assert list(g["in"]) == [1, 112, 112] and list(g["out"]) == [1, 56, 56]
    assert list(g["kernel"]) == [1, 3, 3] and list(g["stride"]) == [1, 2, 2] and list(g["pad"]) == [0, 1, 1]
    assert launch.grid[0] == -(-(2 * 56 * 14 * 8) // _pooling.BLOCK)  # 14 runs of 4 in a row of 56


def test_unbatched_and_adaptive_none(fake_device):
    y, idx = ra.nn.adaptive_max_pool2d(fake_device.array((3, 10, 7), "float32"), (4, None), return_indices=True)
    assert y.shape == idx.shape == (3, 4, 7) and idx.dtype == np.int64
    assert fake_device.names() == ["ra_miopen_pooling_forward<float, 3, false, 1>"]
    z = ra.nn.avg_pool1d(fake_device.array((8, 5), "float64"), 2, layout="NLC")
    assert z.shape == (4, 5)
    assert fake_device.names()[-1] == "ra_miopen_pooling_forward<double, 1, true, 1>"  # 5 channels: no pairs
    gl = ra.nn.global_avg_pool(fake_device.array((2, 4, 4, 4, 3), "float32"), layout="NHWC")
    assert gl.shape == (2, 1, 1, 1, 3)


def test_backward_launches(fake_device):
    x = fake_device.array((2, 3, 8, 8), "float32")
    g = fake_device.array((2, 3, 4, 4), "float32")
    idx = fake_device.array((2, 3, 4, 4), "int64")
    dx = ra.nn.max_pool2d_backward(g, x, 2, indices=idx)
    assert dx.shape == x.shape
    ra.nn.adaptive_avg_pool2d_backward(fake_device.array((2, 3, 3, 5), "float32"), x)
    assert fake_device.names() == ["ra_miopen_pooling_backward<float, 0, false>",
                                   "ra_miopen_pooling_backward<float, 2, false>"]
    assert list(fake_device.launches[-1].args[3][0]["out"]) == [1, 3, 5]
    assert fake_device.launches[0].args[1].data.ptr == idx.data.ptr


# ---------------------------------------------------------------- GPU, against torch


def _dtypes():
    return [pytest.param(d, id=d.name) for d in _args.float_dtypes()]


def _tol(dtype):
    return {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 2e-6, "float64": 1e-12}[np.dtype(dtype).name]


def _torch_in(torch, host, layout):
    """float64 NCHW leaf tensor of the host data (torch's reference runs channels first)."""
    return torch.tensor(host.astype(np.float64), device="cuda", requires_grad=True)


def _to_layout(a, layout):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1)) if layout == "NHWC" else a


def _from_layout(a, layout):
    return np.moveaxis(a, -1, 1) if layout == "NHWC" else a


GPU_CASES = [  # (nd, shape NCHW, kwargs of max/avg)
    (1, (2, 3, 17), dict(kernel_size=3, stride=2, padding=1)),
    (2, (1, 5, 13, 11), dict(kernel_size=3, stride=2, padding=1)),
    (2, (3, 2, 9, 10), dict(kernel_size=(2, 3), stride=(2, 1), padding=(1, 0), ceil_mode=True)),
    (3, (2, 3, 5, 6, 7), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", _dtypes())
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("case", GPU_CASES, ids=[f"{c[0]}d-{i}" for i, c in enumerate(GPU_CASES)])
def test_max_and_avg_pool_vs_torch(rng, case, layout, dtype):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    nd, shape, kwargs = case
    host = rng.standard_normal(shape).astype(dtype)
    x = to_device(_to_layout(host, layout))
    # max, with dilation 2 where the kernel allows it
    mk = dict(kwargs, dilation=2 if nd == 2 else 1)
    y, idx = getattr(ra.nn, f"max_pool{nd}d")(x, **mk, return_indices=True, layout=layout)
    tx = _torch_in(torch, host, layout)
    ty, tidx = getattr(F, f"max_pool{nd}d")(tx, **mk, return_indices=True)
    np.testing.assert_array_equal(_from_layout(to_host(y), layout).astype(np.float64), ty.detach().cpu().numpy())
    np.testing.assert_array_equal(_from_layout(to_host(idx), layout), tidx.cpu().numpy())
    g = rng.standard_normal(tuple(ty.shape)).astype(dtype)
    ty.backward(torch.tensor(g.astype(np.float64), device="cuda"))
    dx = getattr(ra.nn, f"max_pool{nd}d_backward")(to_device(_to_layout(g, layout)), x, **mk, indices=idx,
                                                    layout=layout)
    tol = _tol(dtype)
    np.testing.assert_allclose(_from_layout(to_host(dx), layout).astype(np.float64), tx.grad.cpu().numpy(),
                               rtol=tol, atol=tol)
    # avg, both divisor rules
    for include in (True, False):
        a = getattr(ra.nn, f"avg_pool{nd}d")(x, **kwargs, count_include_pad=include, layout=layout)
        tx = _torch_in(torch, host, layout)
        ta = getattr(F, f"avg_pool{nd}d")(tx, **kwargs, count_include_pad=include)
        np.testing.assert_allclose(_from_layout(to_host(a), layout).astype(np.float64), ta.detach().cpu().numpy(),
                                   rtol=tol, atol=tol)
        ga = rng.standard_normal(tuple(ta.shape)).astype(dtype)
        ta.backward(torch.tensor(ga.astype(np.float64), device="cuda"))
        da = getattr(ra.nn, f"avg_pool{nd}d_backward")(to_device(_to_layout(ga, layout)), x, **kwargs,
                                                        count_include_pad=include, layout=layout)
        np.testing.assert_allclose(_from_layout(to_host(da), layout).astype(np.float64), tx.grad.cpu().numpy(),
                                   rtol=tol, atol=tol)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", _dtypes())
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("shape,out", [((2, 3, 10), 4), ((1, 4, 7, 9), (3, 5)), ((2, 2, 5, 6, 4), (2, 4, 3)),
                                       ((2, 3, 8, 8), 1)])
def test_adaptive_pools_vs_torch(rng, shape, out, layout, dtype):
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    nd = len(shape) - 2
    host = rng.standard_normal(shape).astype(dtype)
    x = to_device(_to_layout(host, layout))
    tol = _tol(dtype)
    y, idx = getattr(ra.nn, f"adaptive_max_pool{nd}d")(x, out, True, layout=layout)
    tx = _torch_in(torch, host, layout)
    ty, tidx = getattr(F, f"adaptive_max_pool{nd}d")(tx, out, True)
    np.testing.assert_array_equal(_from_layout(to_host(y), layout).astype(np.float64), ty.detach().cpu().numpy())
    np.testing.assert_array_equal(_from_layout(to_host(idx), layout), tidx.cpu().numpy())
    g = rng.standard_normal(tuple(ty.shape)).astype(dtype)
    ty.backward(torch.tensor(g.astype(np.float64), device="cuda"))
    dx = getattr(ra.nn, f"adaptive_max_pool{nd}d_backward")(to_device(_to_layout(g, layout)), x, idx, layout=layout)
    np.testing.assert_allclose(_from_layout(to_host(dx), layout).astype(np.float64), tx.grad.cpu().numpy(),
                               rtol=tol, atol=tol)
    a = getattr(ra.nn, f"adaptive_avg_pool{nd}d")(x, out, layout=layout)
    tx = _torch_in(torch, host, layout)
    ta = getattr(F, f"adaptive_avg_pool{nd}d")(tx, out)
    np.testing.assert_allclose(_from_layout(to_host(a), layout).astype(np.float64), ta.detach().cpu().numpy(),
                               rtol=tol, atol=tol)
    ta.backward(torch.tensor(g.astype(np.float64), device="cuda"))
    da = getattr(ra.nn, f"adaptive_avg_pool{nd}d_backward")(to_device(_to_layout(g, layout)), x, layout=layout)
    np.testing.assert_allclose(_from_layout(to_host(da), layout).astype(np.float64), tx.grad.cpu().numpy(),
                               rtol=tol, atol=tol)


@pytest.mark.gpu
def test_divisor_override_and_resnet_stem_vs_torch(rng):
    torch = pytest.importorskip("torch")
    host = rng.standard_normal((4, 8, 112, 112)).astype(np.float32)
    x = to_device(host)
    tx = torch.tensor(host, device="cuda")
    a = ra.nn.avg_pool2d(x, 3, 2, 1, divisor_override=7)
    want = torch.nn.functional.avg_pool2d(tx, 3, 2, 1, divisor_override=7).cpu().numpy()
    np.testing.assert_allclose(to_host(a), want, rtol=2e-6, atol=2e-6)
    y = ra.nn.max_pool2d(to_device(_to_layout(host, "NHWC")), 3, 2, 1, layout="NHWC")
    np.testing.assert_array_equal(_from_layout(to_host(y), "NHWC"),
                                  torch.nn.functional.max_pool2d(tx, 3, 2, 1).cpu().numpy())


def test_channel_packs_need_divisible_channels_and_alignment(fake_device):
    base = fake_device.array((1 * 6 * 6 * 8 + 1,), "float32")
    # stride 1 along W with a 2-wide window: no run kernel, the general one with or without packs
    ra.nn.max_pool2d(base[:-1].reshape(1, 6, 6, 8), 2, 1, layout="NHWC")
    ra.nn.max_pool2d(base[1:].reshape(1, 6, 6, 8), 2, 1, layout="NHWC")  # 4 bytes off 16-byte alignment
    ra.nn.max_pool2d(fake_device.array((1, 6, 6, 6), "float32"), 2, 1, layout="NHWC")
    ra.nn.max_pool2d(fake_device.array((1, 8, 6, 6), "float32"), 2, 1)
    assert [n.split(", ")[-1] for n in fake_device.names()] == ["4>", "1>", "1>", "1>"]
    ra.nn.max_pool2d(base[1:].reshape(1, 6, 6, 8), 2, layout="NHWC")  # misaligned: not the run kernel either
    assert fake_device.names()[-1] == "ra_miopen_pooling_forward<float, 0, true, 1>"
