"""Convolution forward and both gradients on the GPU against torch in float64 (on the same inputs,
rounded to the tested dtype): the issue's grid (odd sizes, stride 2, dilation 2, groups, 1x1, 7x7,
depthwise, batch 1, 1-D and 3-D), every dtype and layout, every algorithm that applies, outputs
poisoned with NaN first; the façade's torch rules (padding 'same', unbatched, bias + fused
activation) too."""

import numpy as np
import pytest

from conftest import assert_close, to_device, to_host
from miopen import miopen_conv_host as host

import rocarray as ra
from rocarray import miopen
from rocarray.nn._args import float_dtypes

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.gpu

DTYPES = [d.name for d in float_dtypes()]

# (name, n, c, k, size, filter, stride, pad, dilation, groups)
GRID = [
    ("odd", 1, 3, 5, (13, 11), (3, 3), 1, 1, 1, 1),
    ("stride2", 2, 4, 8, (15, 16), (3, 3), 2, 1, 1, 1),
    ("dilation2", 2, 3, 4, (12, 9), (3, 3), 1, 2, 2, 1),
    ("groups", 2, 8, 12, (9, 10), (3, 3), 1, 1, 1, 4),
    ("1x1", 3, 16, 24, (7, 7), (1, 1), 1, 0, 1, 1),
    ("7x7", 1, 3, 8, (23, 19), (7, 7), 2, 3, 1, 1),
    ("depthwise", 2, 12, 24, (10, 9), (3, 3), 1, 1, 1, 12),
    ("depthwise_m1", 3, 264, 264, (7, 9), (3, 3), 1, 1, 1, 264),  # channels last: 16-byte packs, two chunks
    ("1d", 2, 5, 7, (31,), (5,), 2, 2, 1, 1),
    ("3d", 1, 3, 4, (6, 7, 5), (3, 3, 3), 1, 1, 1, 1),
]


def _dtype(name):
    return next(d for d in float_dtypes() if d.name == name)


def _torch_nchw(a, p):
    a = np.asarray(a, np.float64)
    return torch.from_numpy(np.ascontiguousarray(np.moveaxis(a, -1, 1) if p.channels_last else a)).cuda()


def _back(t, p):
    a = t.cpu().numpy()
    return np.moveaxis(a, 1, -1) if p.channels_last else a


def _references(p, x, w, dy):
    tx, tw, tdy = _torch_nchw(x, p), _torch_nchw(w, p), _torch_nchw(dy, p)
    conv = getattr(torch.nn.functional, f"conv{p.nd}d")
    kw = dict(stride=p.stride, padding=p.pad, dilation=p.dilation, groups=p.groups)
    y = conv(tx, tw, **kw)
    dx = getattr(torch.nn.grad, f"conv{p.nd}d_input")(tuple(tx.shape), tw, tdy, **kw)
    dw = getattr(torch.nn.grad, f"conv{p.nd}d_weight")(tx, tuple(tw.shape), tdy, **kw)
    return _back(y, p), _back(dx, p), _back(dw, p)


def _terms(dtype, n):
    """Terms the tolerance grows with: 16-bit data sums in float32, so only its one rounding counts."""
    return 1 if dtype.itemsize == 2 else n


def _poisoned(shape, dtype):
    return to_device(np.full(shape, np.nan, np.float32).astype(dtype))


@pytest.mark.parametrize("case", GRID, ids=lambda c: c[0])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_algorithm_matches_torch(rng, case, layout, dtype):
    name, n, c, k, size, flt, stride, pad, dil, groups = case
    dt = _dtype(dtype)

    def problem(direction):
        return host.problem(direction, n, c, k, size, flt, stride=stride, pad=pad, dilation=dil, groups=groups,
                            dtype=dt, layout=layout)

    fwd, bd, bw = problem("forward"), problem("backward_data"), problem("backward_weights")
    x, w, dy = host.inputs(rng, fwd, dtype=dt)
    y_ref, dx_ref, dw_ref = _references(fwd, x, w, dy)
    xd, wd, dyd = to_device(x), to_device(w), to_device(dy)
    reduce_fwd = fwd.c_per_group * int(np.prod(flt))
    for algo in [None] + miopen.conv_algorithms(fwd):
        y = miopen.convolution_forward(fwd, xd, wd, algo=algo, out=_poisoned(fwd.y_shape(), dt))
        assert_close(y, y_ref, dt, _terms(dt, reduce_fwd))
    for algo in [None] + miopen.conv_algorithms(bd):
        dx = miopen.convolution_backward_data(bd, dyd, wd, algo=algo, out=_poisoned(bd.x_shape(), dt))
        assert_close(dx, dx_ref, dt, _terms(dt, fwd.k_per_group * int(np.prod(flt))))
    for algo in [None] + miopen.conv_algorithms(bw):
        dw = miopen.convolution_backward_weights(bw, xd, dyd, algo=algo, out=_poisoned(bw.w_shape(), dt))
        assert_close(dw, dw_ref, dt, _terms(dt, n * int(np.prod(fwd.output_size))))


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("activation", [None, "relu", "leaky_relu", "gelu", "silu", "sigmoid", "tanh"])
def test_facade_bias_activation_and_same_padding_match_torch(rng, layout, activation):
    x = rng.standard_normal((2, 6, 11, 12)).astype(np.float32)
    w = rng.standard_normal((8, 3, 4, 3)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    tx, tw, tb = (torch.from_numpy(v.astype(np.float64)).cuda() for v in (x, w, b))
    want = torch.nn.functional.conv2d(tx, tw, tb, padding="same", dilation=(1, 2), groups=2)
    if activation is not None:
        want = getattr(torch.nn.functional, activation)(want)
    want = want.cpu().numpy()
    if layout == "NHWC":
        x, w, want = np.moveaxis(x, 1, -1), np.moveaxis(w, 1, -1), np.moveaxis(want, 1, -1)
    y = ra.nn.conv2d(to_device(np.ascontiguousarray(x)), to_device(np.ascontiguousarray(w)), to_device(b),
                     padding="same", dilation=(1, 2), groups=2, layout=layout, activation=activation)
    assert_close(y, want, np.float32, 3 * 12)


def test_facade_unbatched_and_non_contiguous_inputs(rng):
    x = rng.standard_normal((5, 18))
    w = rng.standard_normal((4, 5, 3))
    want = torch.nn.functional.conv1d(torch.from_numpy(x[:, ::2].copy()).cuda()[None], torch.from_numpy(w).cuda(),
                                      stride=2)[0].cpu().numpy()
    y = ra.nn.conv1d(to_device(x)[:, ::2], to_device(w), stride=2)  # (C, L) unbatched, not contiguous
    assert y.shape == want.shape
    assert_close(y, want, np.float64, 15)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_gradients_by_finite_differences(rng, layout):
    # float64, small: d<y, g>/dx and d<y, g>/dw by central differences against the explicit gradients
    p = host.problem("forward", 2, 4, 6, (5, 6), (3, 2), stride=(2, 1), pad=1, dilation=(1, 2), groups=2,
                     layout=layout)
    x, w, g = host.inputs(rng, p)
    xd, wd, gd = to_device(x), to_device(w), to_device(g)
    kw = dict(stride=(2, 1), padding=1, dilation=(1, 2), groups=2, layout=layout)

    def objective(xv, wv):
        return float(np.vdot(to_host(ra.nn.conv2d(to_device(xv), to_device(wv), **kw)), g))

    dx = to_host(ra.nn.conv2d_input(x.shape, wd, gd, **kw))
    dw = to_host(ra.nn.conv2d_weight(xd, w.shape, gd, **kw))
    h = 1e-6
    for array, grad in ((x, dx), (w, dw)):
        for index in [tuple(rng.integers(0, s) for s in array.shape) for _ in range(6)]:
            plus, minus = array.copy(), array.copy()
            plus[index] += h
            minus[index] -= h
            args_plus = (plus, w) if array is x else (x, plus)
            args_minus = (minus, w) if array is x else (x, minus)
            numeric = (objective(*args_plus) - objective(*args_minus)) / (2 * h)
            assert abs(numeric - grad[index]) <= 1e-6 * max(1.0, abs(numeric))


def test_fold_batchnorm_matches_torch(rng):
    w = rng.standard_normal((8, 4, 3, 3))
    b, mean, gamma, beta = (rng.standard_normal(8) for _ in range(4))
    var = rng.uniform(0.5, 2.0, 8)
    from torch.nn.utils.fusion import fuse_conv_bn_weights

    tw, tb = fuse_conv_bn_weights(*(torch.from_numpy(v) for v in (w, b, mean, var)), 1e-5,
                                  *(torch.from_numpy(v) for v in (gamma, beta)))
    w2, b2 = ra.nn.fold_batchnorm(*(to_device(v) for v in (w, b, mean, var, gamma, beta)))
    assert_close(w2, tw.detach().numpy(), np.float64)
    assert_close(b2, tb.detach().numpy(), np.float64)
