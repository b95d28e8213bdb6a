"""The channels-last depthwise 3x3 packed kernels on the GPU: the run kernel
(``ra_miopen_conv_depthwise_fwd2d_run``, stride 1 and 2) and the tiled kernel (``..._fwd2d_tile``,
stride 1; cp.async ring on sm_80+) against torch in float64 (on the same inputs, rounded to the
tested dtype), outputs poisoned with NaN first: odd sizes, a partial last run or tile, two chunks of
packs, bias and relu; and bit for bit against the one-channel kernel the same problem takes one
element off the 16-byte alignment, and (the bench shape) the tiled kernel against the run kernel."""

import numpy as np
import pytest

from conftest import assert_close, to_device, to_host
from miopen import miopen_conv_host as host

from rocarray import miopen
from rocarray.miopen import _conv_depthwise
from rocarray.nn._args import float_dtypes

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.gpu

DTYPES = [d.name for d in float_dtypes()]


def _dtype(name):
    return next(d for d in float_dtypes() if d.name == name)


def _misaligned(a):
    """``a`` (host) on the device one element past a 16-byte boundary, contiguous."""
    flat = to_device(np.concatenate([np.zeros(1, a.dtype), a.ravel()]))
    view = flat[1:].reshape(a.shape)
    assert view.data.ptr % 16 != 0
    return view


def _nan_like(shape, dtype):
    return np.full(shape, np.nan, np.float32).astype(dtype)


DW_CASES = [  # (n, c, size, stride, pad): 3x3 windows, channels in 16-byte packs
    (2, 64, (23, 29), 1, 1),        # a partial last run of 4 outputs, partial tiles
    (1, 264, (9, 13), 1, 1),        # two chunks of packs (33 packs of 8 16-bit channels)
    (3, 72, (31, 17), 1, 0),        # no padding; tiled: chunks of 8 and 1 packs (16-bit)
    (1, 40, (12, 10), 1, 2),        # padding 2: output rows and columns of padding alone
    (3, 32, (17, 15), 2, 1),
    (2, 16, (10, 11), (1, 2), (0, 2)),
]


@pytest.fixture(params=[True, False], ids=["tiled", "run"])
def tiled(request, monkeypatch):
    """Each test with the tiled kernel on (3x3 at stride 1 takes it) and off (the run kernel)."""
    monkeypatch.setattr(_conv_depthwise, "TILED", request.param)
    return request.param


def _kernel_of(p):
    if _conv_depthwise.tile_applies(p):
        return _conv_depthwise.tile_name(p.dtype)
    return _conv_depthwise.run_name(p.dtype, *_conv_depthwise._run_shape(p))


@pytest.mark.parametrize("case", DW_CASES, ids=lambda c: f"c{c[1]}-{c[2][0]}x{c[2][1]}-s{c[3]}-p{c[4]}")
@pytest.mark.parametrize("dtype", DTYPES)
def test_depthwise_run_kernel_matches_torch(rng, tiled, case, dtype):
    n, c, size, stride, pad = case
    dt = _dtype(dtype)
    p = host.problem("forward", n, c, c, size, (3, 3), stride=stride, pad=pad, groups=c, dtype=dt, layout="NHWC")
    assert _conv_depthwise.vector_applies(p) and _conv_depthwise._run_shape(p) is not None
    assert _conv_depthwise.tile_applies(p) == (tiled and p.stride == (1, 1))
    x, w, _ = host.inputs(rng, p, dtype=dt)
    b = rng.standard_normal(c).astype(dt)
    tx = torch.from_numpy(np.ascontiguousarray(np.moveaxis(x.astype(np.float64), -1, 1))).cuda()
    tw = torch.from_numpy(np.ascontiguousarray(np.moveaxis(w.astype(np.float64), -1, 1))).cuda()
    want = torch.relu(torch.nn.functional.conv2d(tx, tw, torch.from_numpy(b.astype(np.float64)).cuda(),
                                                 stride=p.stride, padding=p.pad, groups=c))
    want = np.moveaxis(want.cpu().numpy(), 1, -1)
    y = miopen.convolution_forward(p, to_device(x), to_device(w), bias=to_device(b), activation="relu",
                                   algo="depthwise", out=to_device(_nan_like(p.y_shape(), dt)))
    assert_close(y, want, dt, 1 if dt.itemsize == 2 else 9)


@pytest.mark.parametrize("dtype", DTYPES)
def test_depthwise_run_kernel_bits_equal_the_one_channel_kernel(rng, tiled, dtype):
    dt = _dtype(dtype)
    p = host.problem("forward", 2, 64, 64, (19, 21), (3, 3), stride=1, pad=1, groups=64, dtype=dt, layout="NHWC")
    x, w, _ = host.inputs(rng, p, dtype=dt)
    y = miopen.convolution_forward(p, to_device(x), to_device(w), algo="depthwise",
                                   out=to_device(_nan_like(p.y_shape(), dt)))
    one = _misaligned(_nan_like(p.y_shape(), dt))
    miopen.convolution_forward(p, _misaligned(x), to_device(w), algo="depthwise", out=one)
    np.testing.assert_array_equal(to_host(y).view(np.uint8), to_host(one).view(np.uint8))


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_depthwise_tiled_kernel_bench_shape(rng, monkeypatch, dtype):
    """The bench problem (N64 C256 56x56, padding 1): the tiled kernel's bits equal the run
    kernel's, and both match torch; every block walks many tiles of the cp.async ring."""
    dt = _dtype(dtype)
    p = host.problem("forward", 64, 256, 256, (56, 56), (3, 3), stride=1, pad=1, groups=256, dtype=dt, layout="NHWC")
    x = rng.standard_normal(p.x_shape()).astype(dt)
    w = (rng.standard_normal(p.w_shape()) / 3).astype(dt)
    b = rng.standard_normal(256).astype(dt)
    xd, wd, bd = to_device(x), to_device(w), to_device(b)
    outs = {}
    for on in (True, False):
        monkeypatch.setattr(_conv_depthwise, "TILED", on)
        assert _kernel_of(p).startswith("ra_miopen_conv_depthwise_fwd2d_tile" if on else
                                        "ra_miopen_conv_depthwise_fwd2d_run")
        outs[on] = to_host(miopen.convolution_forward(p, xd, wd, bias=bd, activation="relu", algo="depthwise",
                                                      out=to_device(_nan_like(p.y_shape(), dt))))
    np.testing.assert_array_equal(outs[True].view(np.uint8), outs[False].view(np.uint8))
    tx = torch.from_numpy(np.ascontiguousarray(np.moveaxis(x.astype(np.float64), -1, 1))).cuda()
    tw = torch.from_numpy(np.ascontiguousarray(np.moveaxis(w.astype(np.float64), -1, 1))).cuda()
    want = torch.relu(torch.nn.functional.conv2d(tx, tw, torch.from_numpy(b.astype(np.float64)).cuda(),
                                                 padding=1, groups=256))
    assert_close(outs[True], np.moveaxis(want.cpu().numpy(), 1, -1), dt, 1 if dt.itemsize == 2 else 9)
