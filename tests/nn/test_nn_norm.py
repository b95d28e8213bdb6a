"""rocarray.nn normalization on the CPU: argument errors (fake device arrays, never launched),
the launches each call makes (launchfake), the grid sizing, and the façade end to end through
the kernel emulator against the NumPy float64 references (running statistics, dtypes of the
parameters and gradients, torch's statistic shapes)."""

import numpy as np
import pytest

from conftest import fake
from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture)
from miopen import norm_reference as ref

import rocarray as ra
from rocarray.miopen import _batchnorm, _groupnorm, _layernorm

cupy = pytest.importorskip("cupy")
F32 = "float32"


# ------------------------------------------------------------------------------------------------
# argument errors
# ------------------------------------------------------------------------------------------------

def test_batch_norm_argument_errors():
    x = fake((4, 3, 5), F32)
    rm, rv = fake((3,), F32), fake((3,), F32)
    with pytest.raises(TypeError, match="host"):
        ra.nn.batch_norm(np.zeros((4, 3)), rm, rv)
    with pytest.raises(TypeError, match="int32"):
        ra.nn.batch_norm(fake((4, 3), "int32"), rm, rv)
    with pytest.raises(ValueError, match="dimensions"):
        ra.nn.batch_norm(fake((4,), F32), rm, rv)
    with pytest.raises(ValueError, match="running_mean should contain 3 elements not 4"):
        ra.nn.batch_norm(x, fake((4,), F32), rv)
    with pytest.raises(ValueError, match="weight should contain 3 elements not 2"):
        ra.nn.batch_norm(x, rm, rv, fake((2,), F32))
    with pytest.raises(ValueError, match="must be given when training=False"):
        ra.nn.batch_norm(x, None, None)
    with pytest.raises(ValueError, match="both"):
        ra.nn.batch_norm(x, rm, None, training=True)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        ra.nn.batch_norm(fake((1, 3), F32), None, None, training=True)
    with pytest.raises(ValueError, match="layout"):
        ra.nn.batch_norm(x, rm, rv, layout="NCWH")
    with pytest.raises(ValueError, match="running_mean should contain 5 elements"):
        ra.nn.batch_norm(x, rm, rv, layout="NHWC")  # channels last: C = 5
    with pytest.raises(TypeError, match="momentum"):
        ra.nn.batch_norm(x, rm, rv, training=True, momentum="fast")


def test_backward_argument_errors():
    x, dy = fake((4, 3, 5), F32), fake((4, 3, 5), F32)
    with pytest.raises(ValueError, match="grad_output has shape"):
        ra.nn.batch_norm_backward(fake((4, 3, 6), F32), x, None, fake((3,), F32), fake((3,), F32))
    with pytest.raises(TypeError, match="one dtype"):
        ra.nn.batch_norm_backward(fake((4, 3, 5), "float64"), x, None, fake((3,), F32), fake((3,), F32))
    with pytest.raises(ValueError, match="mean should contain 3 elements not 2"):
        ra.nn.batch_norm_backward(dy, x, None, fake((2,), F32), fake((3,), F32))
    with pytest.raises(ValueError, match="invstd should contain 12 elements not 20"):
        ra.nn.layer_norm_backward(dy, x, 5, fake((12,), F32), fake((20,), F32))
    with pytest.raises(ValueError, match="invstd should contain 8"):
        ra.nn.group_norm_backward(fake((4, 6), F32), fake((4, 6), F32), 2, fake((8,), F32), fake((4,), F32))


def test_layer_and_group_norm_argument_errors():
    x = fake((4, 3, 5), F32)
    with pytest.raises(ValueError, match=r"normalized_shape=\[4\]"):
        ra.nn.layer_norm(x, 4)
    with pytest.raises(ValueError, match="expected input with shape"):
        ra.nn.layer_norm(x, (4, 3, 5, 1))
    with pytest.raises(TypeError, match="normalized_shape"):
        ra.nn.layer_norm(x, 5.0)
    with pytest.raises(ValueError, match=r"weight must have shape \(3, 5\)"):
        ra.nn.layer_norm(x, (3, 5), fake((15,), F32))
    with pytest.raises(ValueError, match="divisible by num_groups"):
        ra.nn.group_norm(x, 2)
    with pytest.raises(ValueError, match="divisible by num_groups"):
        ra.nn.group_norm(x, 0)
    with pytest.raises(TypeError, match="num_groups"):
        ra.nn.group_norm(x, 1.5)
    with pytest.raises(ValueError, match="weight should contain 3 elements"):
        ra.nn.group_norm(x, 3, fake((5,), F32))
    with pytest.raises(ValueError, match="dimensions"):
        ra.nn.instance_norm(fake((4, 3), F32))
    with pytest.raises(ValueError, match="use_input_stats"):
        ra.nn.instance_norm(x, use_input_stats=False)


# ------------------------------------------------------------------------------------------------
# launches and grids
# ------------------------------------------------------------------------------------------------

def test_batch_norm_launches(fake_device):
    x = fake_device.array((8, 16, 7, 7), F32)
    rm, rv = fake_device.array((16,), F32), fake_device.array((16,), F32)
    ra.nn.batch_norm(x, rm, rv, training=True)
    assert fake_device.names() == ["ra_miopen_bn_stats_nchw<float>", "ra_miopen_bn_apply_nchw<float>"]
    assert fake_device.launches[0].grid == fake_device.launches[1].grid
    assert fake_device.launches[0].grid[0] == 16
    fake_device.launches.clear()
    ra.nn.batch_norm(fake_device.array((8, 7, 7, 16), F32), rm, rv, layout="NHWC")
    assert fake_device.names() == ["ra_miopen_bn_inference_coefs<float>", "ra_miopen_bn_apply_nhwc<float>"]
    fake_device.launches.clear()
    ra.nn.batch_norm(fake_device.array((8, 16), "float64"), None, None, training=True)
    assert fake_device.names() == ["ra_miopen_bn_stats_nhwc<double>", "ra_miopen_bn_apply_nhwc<double>"]


def test_layer_and_group_norm_launches(fake_device):
    ra.nn.layer_norm(fake_device.array((10, 128), F32), 128)
    ra.nn.layer_norm(fake_device.array((10, 4096), F32), (4096,))
    assert fake_device.names() == ["ra_miopen_ln_forward<float, 32, true>", "ra_miopen_ln_forward<float, 256, true>"]
    assert fake_device.launches[0].grid[0] == 2 and fake_device.launches[1].grid[0] == 10
    fake_device.launches.clear()
    ra.nn.group_norm(fake_device.array((2, 8, 5, 5), F32), 4)
    assert fake_device.names() == ["ra_miopen_gn_stats<float>", "ra_miopen_gn_apply<float, false>"]
    assert fake_device.launches[0].grid[0] == 8


@pytest.mark.parametrize("shape,layout", [((64, 256, 56, 56), "NCHW"), ((64, 56, 56, 256), "NHWC"), ((3, 5), "NCHW"),
                                          ((1, 2048, 1, 1), "NCHW"), ((7, 3000, 3), "NHWC")])
def test_batch_norm_grid_covers_each_channel_once(shape, layout):
    geo = _batchnorm.geometry(shape, layout, np.dtype(F32), 132 * 8)
    assert geo.splits * geo.chunk >= (geo.count if geo.view == "nchw" else geo.outer)
    assert (geo.splits - 1) * geo.chunk < (geo.count if geo.view == "nchw" else geo.outer)
    blocks, wave = geo.grid[0] * geo.grid[1], 132 * _batchnorm.BLOCKS_PER_MULTIPROCESSOR
    assert blocks <= wave or geo.splits == 1  # one wave: no tail of a partial second wave
    if geo.view == "nhwc":
        assert geo.cols & (geo.cols - 1) == 0 and geo.cols * geo.grid[1] >= geo.C and geo.cols <= 32
    if shape[0] == 64:
        assert (geo.view == "nhwc" or geo.chunk % 4 == 0) and blocks >= 0.9 * wave


def test_row_group_choice():
    # the narrowest group whose registers (4 vectors of 16 bytes a thread) hold the row
    assert _layernorm.row_group(512, np.dtype(F32)) == 32
    assert _layernorm.row_group(513, np.dtype(F32)) == 128
    assert _layernorm.row_group(2048, np.dtype(F32)) == 128
    assert _layernorm.row_group(2049, np.dtype(F32)) == 256
    assert _layernorm.row_group(1024, np.dtype("float16")) == 32
    assert _layernorm.row_group(4096, np.dtype("float16")) == 128
    assert _layernorm.row_group(8193, np.dtype("float16")) == 256


def test_layer_norm_block_of_a_wide_group_is_the_group(fake_device):
    # the bench row (8192 x 4096 float16): blocks of 128 threads, a row each, the 16-byte
    # kernel with the weight and bias in 16-byte loads (params16 = 1); a misaligned weight: 0
    x = fake_device.array((8192, 4096), "float16")
    w, b = fake_device.array((4096,), F32), fake_device.array((4096,), F32)
    _layernorm.layernorm_forward(x, w, b, 1e-5, norm_size=4096)
    launch = fake_device.launches[-1]
    assert launch.name == "ra_miopen_ln_forward<ra_half, 128, true>"
    assert launch.grid[0] == 8192 and launch.block[0] == 128 and int(launch.args[4]) == 1
    odd = fake_device.array((4097,), F32)[1:]
    _layernorm.layernorm_forward(x, odd, b, 1e-5, norm_size=4096)
    assert fake_device.launches[-1].name == launch.name and int(fake_device.launches[-1].args[4]) == 0
    # rows of 300: 32-thread groups, 8 a block; x one element off alignment: the one-element kernel
    xs = fake_device.array((3001,), F32)[1:].reshape(10, 300)
    _layernorm.layernorm_forward(xs, w[:300], None, 1e-5, norm_size=300)
    launch = fake_device.launches[-1]
    assert launch.name == "ra_miopen_ln_forward<float, 32, false>"
    assert (launch.block[0], launch.grid[0], int(launch.args[4])) == (256, 2, 0)


def test_group_norm_runs():
    geo = _groupnorm.geometry((2, 4, 5, 6), "NHWC", 3, np.dtype(F32), 132 * 8)
    assert (geo.bn, geo.bg, geo.reps, geo.len, geo.stride) == (120, 2, 20, 2, 6)
    geo = _groupnorm.geometry((2, 6, 3, 5), "NCHW", 3, np.dtype(F32), 132 * 8)
    assert (geo.bn, geo.bg, geo.reps, geo.len) == (90, 30, 1, 30) and not geo.vec_ok  # S = 15
    assert _groupnorm.geometry((2, 8, 4, 4), "NCHW", 2, np.dtype(F32), 132 * 8).vec_ok


# ------------------------------------------------------------------------------------------------
# end to end through the kernel emulator
# ------------------------------------------------------------------------------------------------

def _close(got, want, tol):
    np.testing.assert_allclose(np.asarray(got).astype(np.float64), want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()))


def test_batch_norm_facade_float16_running_stats(emulated_wave64_device):
    dev = emulated_wave64_device
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4, 10)).astype(np.float16)
    rm, rv = rng.standard_normal(4).astype(np.float16), (1 + rng.random(4)).astype(np.float16)
    w = rng.standard_normal(4).astype(np.float16)
    d_rm, d_rv = dev.array(rm), dev.array(rv)
    y, mean, invstd = ra.nn.batch_norm(dev.array(x), d_rm, d_rv, dev.array(w), None, True, 0.2, return_stats=True)
    want = ref.batch_norm_training(x, w, None, rm, rv, 0.2, 1e-5)
    assert y.dtype == np.float16 and mean.dtype == np.float32 and d_rm.dtype == np.float16
    _close(y, want[0], 4e-3)
    _close(d_rm, want[3], 2e-3)
    _close(d_rv, want[4], 2e-3)
    dy = rng.standard_normal(x.shape).astype(np.float16)
    dx, dw, db = ra.nn.batch_norm_backward(dev.array(dy), dev.array(x), dev.array(w), mean, invstd)
    assert dw.dtype == np.float16 and db.dtype == np.float16
    want = ref.batch_norm_backward(dy, x, w, np.asarray(mean), np.asarray(invstd))
    _close(dx, want[0], 4e-3)
    _close(dw, want[1], 4e-3)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_batch_norm_facade_inference_stats_feed_the_backward(emulated_device, layout):
    dev = emulated_device
    rng = np.random.default_rng(4)
    shape = (2, 3, 4, 5) if layout == "NCHW" else (2, 4, 5, 3)
    x, dy = rng.standard_normal(shape), rng.standard_normal(shape)
    rm, rv, w, b = rng.standard_normal(3), 1 + rng.random(3), rng.standard_normal(3), rng.standard_normal(3)
    y, mean, invstd = ra.nn.batch_norm(dev.array(x), dev.array(rm), dev.array(rv), dev.array(w), dev.array(b),
                                       layout=layout, return_stats=True)
    want, want_invstd = ref.batch_norm_inference(x, w, b, rm, rv, 1e-5, layout)
    _close(y, want, 1e-12)
    _close(mean, rm, 0)
    dx, dw, db = ra.nn.batch_norm_backward(dev.array(dy), dev.array(x), dev.array(w), mean, invstd, training=False,
                                           layout=layout)
    want = ref.batch_norm_backward(dy, x, w, rm, want_invstd, False, layout)
    for got, expected in zip((dx, dw, db), want):
        _close(got, expected, 1e-12)


def test_layer_norm_facade_two_axes(emulated_device):
    dev = emulated_device
    rng = np.random.default_rng(5)
    x, dy = rng.standard_normal((2, 3, 4, 6)), rng.standard_normal((2, 3, 4, 6))
    w, b = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    y, mean, invstd = ra.nn.layer_norm(dev.array(x), (4, 6), dev.array(w), dev.array(b), 1e-5, return_stats=True)
    want = ref.layer_norm(x, 2, w, b, 1e-5)
    assert mean.shape == (2, 3, 1, 1) == want[1].shape
    _close(y, want[0], 1e-12)
    _close(invstd, want[2], 1e-12)
    dx, dw, db = ra.nn.layer_norm_backward(dev.array(dy), dev.array(x), (4, 6), mean, invstd, dev.array(w), None)
    want = ref.layer_norm_backward(dy, x, 2, np.asarray(mean), np.asarray(invstd), w)
    assert db is None and dw.shape == (4, 6)
    _close(dx, want[0], 1e-12)
    _close(dw, want[1], 1e-12)


def test_group_and_instance_norm_facade(emulated_device):
    dev = emulated_device
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 4, 5, 2)).astype(np.float32)
    w, b = rng.standard_normal(2).astype(np.float32), rng.standard_normal(2).astype(np.float32)
    y, mean, invstd = ra.nn.group_norm(dev.array(x), 1, dev.array(w), dev.array(b), layout="NHWC", return_stats=True)
    want = ref.group_norm(x, 1, w, b, 1e-5, "NHWC")
    assert mean.shape == (3, 1)
    _close(y, want[0], 2e-5)
    rm, rv = np.zeros(4, np.float32), np.ones(4, np.float32)
    d_rm, d_rv = dev.array(rm), dev.array(rv)
    xi = rng.standard_normal((3, 4, 5)).astype(np.float32)
    got = ra.nn.instance_norm(dev.array(xi), d_rm, d_rv, momentum=0.5)
    want = ref.group_norm(xi, 4, None, None, 1e-5)
    _close(got, want[0], 2e-5)
    _close(d_rm, 0.5 * xi.astype(np.float64).mean(axis=2).mean(axis=0), 2e-5)
    _close(d_rv, 0.5 + 0.5 * xi.astype(np.float64).var(axis=2, ddof=1).mean(axis=0), 2e-5)
