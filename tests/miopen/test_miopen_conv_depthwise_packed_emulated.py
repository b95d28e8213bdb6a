"""The packed channels-last depthwise kernels (``ra_miopen_conv_depthwise_fwd2d_vec``, ``..._run``,
``..._tile`` and ``..._bwd_data2d_vec``: a 16-byte pack of channels per thread, or half a pack of the tiled
kernel) run on the CPU through the kernel
emulator against the NumPy float64 reference and against the one-channel kernels bit for bit (a
view one element off the 16-byte alignment takes those); float16/bfloat16 on the wave64 target. Routing (which kernel a
problem and its pointers get) on launchfake. CPU tests: skipped where g++ is missing."""

import dataclasses

import numpy as np
import pytest

import miopen_conv_host as host
from kernel_emu import emulated_device, emulated_either_device, emulated_wave64_device  # noqa: F401
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)

from rocarray import miopen
from rocarray._core import kernels
from rocarray.miopen import _conv_depthwise
from rocarray.miopen._conv_direct import LEAKY_RELU_SLOPE

SEED = 20261205
VEC = "ra_miopen_conv_depthwise_fwd2d_vec"
ONE = "ra_miopen_conv_depthwise_fwd2d<"
VEC_BD = "ra_miopen_conv_depthwise_bwd_data2d_vec"
ONE_BD = "ra_miopen_conv_depthwise_bwd_data<"
TOL = {"float64": 1e-12, "float32": 1e-5, "float16": 2e-2, "bfloat16": 5e-2}


def _problem(n, c, size, flt, dtype, *, k=None, stride=1, pad=1, dilation=1):
    return host.problem("forward", n, c, c if k is None else k, size, flt, stride=stride, pad=pad, dilation=dilation,
                        groups=c, dtype=dtype, layout="NHWC")


def _misaligned(dev, a):
    """``a`` on the device one element past a 16-byte boundary (contiguous)."""
    flat = dev.array(np.concatenate([np.zeros(1, a.dtype), a.ravel()]))
    view = flat[1:].reshape(a.shape)
    assert view.data.ptr % 16 != 0
    return view


def _poisoned(dev, p):
    return dev.array(np.full(p.y_shape(), np.nan, p.dtype))


def _run(dev, p, x, w, *, bias=None, activation=None, aligned=True):
    xd = dev.array(x) if aligned else _misaligned(dev, x)
    y = _poisoned(dev, p) if aligned else _misaligned(dev, np.full(p.y_shape(), np.nan, p.dtype))
    before = len(dev.names())
    miopen.convolution_forward(p, xd, dev.array(w), bias=None if bias is None else dev.array(bias),
                               activation=activation, algo="depthwise", out=y)
    return np.asarray(y), dev.names()[before:]


def _run_backward_data(dev, bd, dy, w, aligned=True):
    dyd = dev.array(dy) if aligned else _misaligned(dev, dy)
    dx = _poisoned_x(dev, bd, aligned)
    before = len(dev.names())
    miopen.convolution_backward_data(bd, dyd, dev.array(w), algo="depthwise", out=dx)
    return np.asarray(dx), dev.names()[before:]


def _poisoned_x(dev, p, aligned):
    nan = np.full(p.x_shape(), np.nan, p.dtype)
    return dev.array(nan) if aligned else _misaligned(dev, nan)


def _check_backward_data(dev, p):
    """The packed data gradient against the float64 reference and the one-channel kernel's bits."""
    bd = dataclasses.replace(p, direction="backward_data")
    _, w, dy = host.inputs(np.random.default_rng(SEED + 1), bd)
    dx, names = _run_backward_data(dev, bd, dy, w)
    assert names == [f"{VEC_BD}<{_conv_depthwise.ctype(p.dtype)}>"]
    tol = TOL[p.dtype.name]
    np.testing.assert_allclose(dx.astype(np.float64), host.backward_data(bd, dy, w), rtol=tol, atol=tol)
    one, names = _run_backward_data(dev, bd, dy, w, aligned=False)
    assert names[0].startswith(ONE_BD)
    np.testing.assert_array_equal(dx.view(np.uint8), one.view(np.uint8))


def _packed_name(p):
    """The packed forward kernel ``p`` takes: the tiled kernel for a 3x3 window at stride 1, the run
    kernel for its window width and stride along W where it has one, else ``fwd2d_vec``."""
    if _conv_depthwise.tile_applies(p):
        return _conv_depthwise.tile_name(p.dtype)
    shape = _conv_depthwise._run_shape(p)
    return f"{VEC}<{_conv_depthwise.ctype(p.dtype)}>" if shape is None else _conv_depthwise.run_name(p.dtype, *shape)


def _check(dev, p, *, bias=None, activation=None):
    """The packed kernel's y against the float64 reference and the one-channel kernel's bits."""
    rng = np.random.default_rng(SEED)
    x, w, _ = host.inputs(rng, p)
    if bias is not None:
        bias = rng.standard_normal(p.k).astype(p.dtype)
    y, names = _run(dev, p, x, w, bias=bias, activation=activation)
    assert names == [_packed_name(p)]
    want = host.forward(p, x, w) + (0 if bias is None else bias.astype(np.float64))
    if activation == "relu":
        want = np.maximum(want, 0)
    elif activation == "leaky_relu":
        want = np.where(want < 0, want * LEAKY_RELU_SLOPE, want)
    tol = TOL[p.dtype.name]
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=tol, atol=tol)
    one, names = _run(dev, p, x, w, bias=bias, activation=activation, aligned=False)
    assert names[0].startswith(ONE)
    np.testing.assert_array_equal(y.view(np.uint8), one.view(np.uint8))
    _check_backward_data(dev, p)


CASES = [  # (n, c, size, filter, stride, pad, dilation): odd sizes, partial row tiles, chunks
    (3, 8, (5, 7), (3, 3), 1, 1, 1),
    (1, 12, (6, 9), (3, 3), 2, 1, 1),       # 3 packs: 85 slots of 3 lanes, one thread idle
    (2, 4, (7, 5), (3, 2), (1, 2), (2, 0), (2, 1)),
    (1, 132, (3, 5), (3, 3), 1, 1, 1),      # 33 packs: two chunks, the second of one pack
    (2, 8, (11,), (5,), 1, 2, 1),           # 1-D
]
RUN_CASES = [  # the run kernel's shapes (3 wide, stride 1 or 2 along W): W not a multiple of the run
    (2, 8, (5, 13), (3, 3), 1, 1, 1),       # 13 columns: a partial last run
    (2, 16, (8, 9), (3, 3), 1, 1, 1),       # 8 output rows: bands of 4 rows
    (1, 264, (6, 7), (3, 3), 1, 1, 1),      # bands of 2 rows, two chunks of packs
    (1, 4, (7, 1), (3, 3), 1, 1, 1),        # one column: every run's other columns clamped
    (3, 8, (6, 11), (3, 3), (2, 2), 0, 1),  # stride 2, no padding
    (1, 8, (9, 10), (3, 3), (1, 2), (2, 2), (2, 1)),  # stride 2 along W, vertical dilation, wide pad
    (2, 4, (5, 7), (5, 3), (2, 1), (1, 1), 1),        # 5 rows, vertical stride
    (1, 16, (17,), (3,), 2, 1, 1),          # 1-D, stride 2
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"n{c[0]}-c{c[1]}-{'x'.join(map(str, c[2]))}")
def test_packed_forward_float32(emulated_device, case):
    n, c, size, flt, stride, pad, dil = case
    _check(emulated_device, _problem(n, c, size, flt, "float32", stride=stride, pad=pad, dilation=dil),
           bias=True, activation="relu")


@pytest.fixture
def run_kernel(monkeypatch):
    """The tiled kernel switched off: 3x3 windows at stride 1 take the run kernel."""
    monkeypatch.setattr(_conv_depthwise, "TILED", False)


@pytest.mark.parametrize("case", RUN_CASES, ids=lambda c: f"n{c[0]}-c{c[1]}-{'x'.join(map(str, c[2]))}")
def test_run_kernel_forward_float32(emulated_device, run_kernel, case):
    n, c, size, flt, stride, pad, dil = case
    p = _problem(n, c, size, flt, "float32", stride=stride, pad=pad, dilation=dil)
    assert _conv_depthwise._run_shape(p) is not None and not _conv_depthwise.tile_applies(p)
    _check(emulated_device, p, bias=True, activation="relu")


TILE_CASES = [  # (n, c, size, pad): 3x3 windows at stride 1; tiles of 8 x 8 outputs, chunks of 8 packs
    (2, 8, (5, 13), 1),        # one pack: 7 of 8 packs of the chunk idle; a partial second tile column
    (1, 32, (9, 8), 1),        # 8 packs (float32 4 channels a pack): a full chunk; a partial tile row
    (3, 40, (8, 17), 1),       # 10 packs: a full chunk and one of 2 packs; three tile columns
    (1, 4, (1, 7), 1),         # one input row: every strip's other rows outside
    (2, 8, (11, 3), 0),        # no padding: 9 x 1 outputs
    (1, 8, (6, 5), 2),         # padding 2: outputs whose whole window lies outside
    (2, 16, (17, 19), 1),      # several tiles per block: the walk and its prefetch
]


@pytest.mark.parametrize("case", TILE_CASES, ids=lambda c: f"n{c[0]}-c{c[1]}-{c[2][0]}x{c[2][1]}-p{c[3]}")
def test_tiled_forward_float32(emulated_device, case):
    n, c, size, pad = case
    p = _problem(n, c, size, (3, 3), "float32", pad=pad)
    assert _conv_depthwise.tile_applies(p)
    _check(emulated_device, p, bias=True, activation="relu")


@pytest.mark.parametrize("case", [(2, 16, (17, 19), 1), (3, 40, (8, 17), 1)], ids=["one-chunk", "two-chunks"])
def test_tiled_forward_one_block_walks_every_tile(emulated_either_device, monkeypatch, case):
    """A wave of one block per chunk: each block walks all tiles, the next halos copied while it
    computes (NVIDIA: the ring of three halo buffers; wave64: the register prefetch)."""
    monkeypatch.setattr(kernels.Kernel, "wave", lambda self, device_id: 1)
    n, c, size, pad = case
    p = _problem(n, c, size, (3, 3), "float32", pad=pad)
    dev = emulated_either_device
    _check(dev, p, bias=True)
    grids = [tuple(lc.grid)[:2] for lc in dev.launches if lc.name == _conv_depthwise.tile_name(p.dtype)]
    assert grids == [(1, -(-c // 32))]


def test_tiled_forward_float16_wave64(emulated_wave64_device):
    _check(emulated_wave64_device, _problem(2, 72, (10, 9), (3, 3), "float16"), bias=True)


def test_tiled_forward_float16_no_bias_leaky_wave64(emulated_wave64_device):
    _check(emulated_wave64_device, _problem(1, 16, (9, 11), (3, 3), "float16"), activation="leaky_relu")


def test_tiled_forward_float64(emulated_device):
    _check(emulated_device, _problem(1, 6, (9, 10), (3, 3), "float64"), bias=True)


def test_tiled_forward_bfloat16_wave64(emulated_wave64_device):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    _check(emulated_wave64_device, _problem(2, 8, (5, 9), (3, 3), np.dtype(ml_dtypes.bfloat16)), bias=True)


def test_tiled_route():
    applies = _conv_depthwise.tile_applies
    assert applies(_problem(64, 256, (56, 56), (3, 3), "float16"))
    assert applies(_problem(1, 8, (8, 8), (3, 3), "float16", pad=0))
    assert not applies(_problem(1, 8, (8, 8), (3, 3), "float16", stride=2))
    assert not applies(_problem(1, 8, (8, 8), (3, 3), "float16", stride=(1, 2)))
    assert not applies(_problem(1, 8, (8, 8), (3, 3), "float16", dilation=(2, 1)))
    assert not applies(_problem(1, 8, (8, 8), (5, 5), "float16", pad=2))
    assert not applies(_problem(1, 8, (8, 8), (3, 1), "float16"))
    assert not applies(_problem(1, 16, (9,), (3,), "float16"))


def test_run_kernel_forward_float16_wave64_stride2(emulated_wave64_device):
    _check(emulated_wave64_device, _problem(2, 16, (7, 9), (3, 3), "float16", stride=2), bias=True)


@pytest.mark.parametrize("tiled", [False, True])
def test_packed_kernels_skip_taps_outside_the_input(emulated_device, monkeypatch, tiled):
    """Columns outside the input are loaded clamped (run kernel) or left zero (tiled kernel) but
    never added: an infinite left-column weight leaves the first output column (whose left tap is
    padding) finite and makes the rest infinite; an infinite top row does the same for the first
    output row."""
    monkeypatch.setattr(_conv_depthwise, "TILED", tiled)
    p = _problem(2, 8, (4, 10), (3, 3), "float32")
    x = np.random.default_rng(SEED).uniform(0.5, 1.0, p.x_shape()).astype(np.float32)
    w = np.ones(p.w_shape(), np.float32)
    w[:, :, 0] = np.inf  # (K, KH, KW, 1): the left column of every row
    y, names = _run(emulated_device, p, x, w)
    assert names == [_conv_depthwise.tile_name(p.dtype) if tiled else _conv_depthwise.run_name(p.dtype, 3, 1)]
    assert np.isfinite(y[:, :, 0, :]).all() and np.isposinf(y[:, :, 1:, :]).all()
    w = np.ones(p.w_shape(), np.float32)
    w[:, 0] = np.inf  # the top row
    y, _ = _run(emulated_device, p, x, w)
    assert np.isfinite(y[:, 0]).all() and np.isposinf(y[:, 1:]).all()


def test_dilated_width_takes_the_vector_kernel():
    assert _conv_depthwise._run_shape(_problem(1, 8, (8, 8), (3, 3), "float16", dilation=(1, 2))) is None
    assert _conv_depthwise._run_shape(_problem(1, 8, (8, 8), (3, 5), "float16")) is None
    assert _conv_depthwise._run_shape(_problem(1, 8, (8, 8), (3, 3), "float16", stride=3)) is None
    assert _conv_depthwise._run_shape(_problem(1, 8, (8, 8), (3, 3), "float16", stride=(1, 2))) == (3, 2)


def test_packed_forward_float64_no_bias(emulated_device):
    _check(emulated_device, _problem(2, 6, (5, 3), (3, 3), "float64"))


def test_packed_forward_float16_wave64(emulated_wave64_device):
    _check(emulated_wave64_device, _problem(3, 24, (5, 7), (3, 3), "float16"), bias=True, activation="relu")


def test_packed_forward_bfloat16_wave64(emulated_wave64_device):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    _check(emulated_wave64_device, _problem(1, 16, (4, 5), (3, 3), np.dtype(ml_dtypes.bfloat16)), bias=True)


def test_float16_channels_not_a_multiple_of_8_take_one_channel(emulated_wave64_device):
    dev = emulated_wave64_device
    p = _problem(2, 12, (5, 6), (3, 3), "float16")
    x, w, _ = host.inputs(np.random.default_rng(SEED), p)
    y, names = _run(dev, p, x, w)
    assert names[0].startswith(ONE)
    np.testing.assert_allclose(y.astype(np.float64), host.forward(p, x, w), rtol=2e-2, atol=2e-2)


def test_packed_route():
    applies = _conv_depthwise.vector_applies
    assert applies(_problem(64, 256, (56, 56), (3, 3), "float16"))
    assert applies(_problem(1, 16, (9,), (3,), "float16"))                             # 1-D
    assert applies(_problem(1, 4, (7, 7), (7, 7), "float32", pad=3))                  # 49 taps
    assert not applies(_problem(1, 12, (8, 8), (3, 3), "float16"))                    # 12 % 8
    assert not applies(_problem(1, 8, (8, 8), (3, 3), "float16", k=16))               # multiplier 2
    assert not applies(_problem(1, 8, (9, 9), (5, 10), "float16", pad=2))             # 50 taps
    assert not applies(_problem(1, 8, (4, 4, 4), (3, 3, 3), "float16"))               # 3-D
    assert not applies(host.problem("forward", 1, 8, 8, (8, 8), (3, 3), groups=8, dtype="float16"))  # NCHW
    assert applies(host.problem("backward_data", 1, 8, 8, (8, 8), (3, 3), groups=8, dtype="float16",
                                layout="NHWC"))
    assert not applies(host.problem("backward_weights", 1, 8, 8, (8, 8), (3, 3), groups=8, dtype="float16",
                                    layout="NHWC"))


def test_tiled_launch_geometry(fake_device):
    p = _problem(64, 256, (56, 56), (3, 3), "float16")
    x, w = fake_device.array(p.x_shape(), p.dtype), fake_device.array(p.w_shape(), p.dtype)
    miopen.convolution_forward(p, x, w, algo="depthwise")
    launch = fake_device.launches[-1]
    assert launch.name == "ra_miopen_conv_depthwise_fwd2d_tile<ra_half>"
    # 32 packs in 4 chunks of 8; one wave of blocks in all walking the 64 * 7 * 7 tiles
    wave = _conv_depthwise.KERNELS[launch.name].wave(0)
    assert tuple(launch.grid)[:2] == (-(-wave // 4), 4) and tuple(launch.block)[0] == 256
    small = _problem(1, 40, (3, 9), (3, 3), "float16")  # 5 packs: one chunk; 2 tiles
    miopen.convolution_forward(small, fake_device.array(small.x_shape(), small.dtype),
                               fake_device.array(small.w_shape(), small.dtype), algo="depthwise")
    assert tuple(fake_device.launches[-1].grid)[:2] == (2, 1)


def test_packed_launch_geometry(fake_device, run_kernel):
    p = _problem(64, 256, (56, 56), (3, 3), "float16")
    x, w = fake_device.array(p.x_shape(), p.dtype), fake_device.array(p.w_shape(), p.dtype)
    miopen.convolution_forward(p, x, w, algo="depthwise")
    launch = fake_device.launches[-1]
    assert launch.name == "ra_miopen_conv_depthwise_fwd2d_run<ra_half, 3, 1>"
    # 32 packs of 8 channels a block, 8 row tiles of 4 outputs per block: 64 * 56 * 14 / 8 blocks
    assert tuple(launch.grid)[:2] == (64 * 56 * 14 // 8, 1)
    small = _problem(1, 40, (3, 9), (3, 3), "float16")  # 5 packs: 51 row tiles per block
    miopen.convolution_forward(small, fake_device.array(small.x_shape(), small.dtype),
                               fake_device.array(small.w_shape(), small.dtype), algo="depthwise")
    assert tuple(fake_device.launches[-1].grid)[:2] == (1, 1)


def test_packed_data_gradient_launch_geometry(fake_device):
    p = host.problem("backward_data", 64, 256, 256, (56, 56), (3, 3), pad=1, groups=256, dtype="float16",
                     layout="NHWC")
    dy, w = fake_device.array(p.y_shape(), p.dtype), fake_device.array(p.w_shape(), p.dtype)
    miopen.convolution_backward_data(p, dy, w, algo="depthwise")
    launch = fake_device.launches[-1]
    # a pixel's 32 packs of 8 channels a warp, 8 pixels a block
    assert launch.name == f"{VEC_BD}<ra_half>" and tuple(launch.grid)[:2] == (64 * 56 * 56 // 8, 1)
