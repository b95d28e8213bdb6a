"""activation.hip through the kernel emulator (tests/kernel_emu.py) against the NumPy float64
formulas of tests/miopen/pointwise_reference.py: every operation forward and backward in float64,
the 16-bit and float32 instantiations on a few, a tail that is not a whole pack, an unaligned
view. CPU tests: skipped where g++ is missing."""

import numpy as np
import pytest

from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)
from miopen import pointwise_reference as ref

from rocarray import miopen
from rocarray.miopen import _activation

SEED = 20261205
PARAMS = {"leaky_relu": (0.13, 0.0), "elu": (0.7, 0.0), "softplus": (1.5, 2.0)}


def _data(rng, n, dtype):
    # wide enough to cross every branch: hardswish's +-3, softplus's threshold, sigmoid's tails
    return (rng.standard_normal(n) * 3.0).astype(dtype)


def _tol(dtype):
    return {"float64": 1e-12, "float32": 2e-6, "float16": 2e-3, "bfloat16": 1.6e-2}[np.dtype(dtype).name]


@pytest.mark.parametrize("mode", list(_activation.OPS))
def test_every_activation_float64(emulated_device, mode):
    rng = np.random.default_rng(SEED)
    n = 517  # 258 packs of two and a tail of one
    x = _data(rng, n, np.float64)
    g = rng.standard_normal(n)
    alpha, beta = PARAMS.get(mode, (0.0, 0.0))
    y = miopen.activation_forward(emulated_device.array(x), mode, alpha=alpha, beta=beta)
    want = ref.activation(mode, x, alpha, beta)
    np.testing.assert_allclose(np.asarray(y), want, rtol=1e-12, atol=1e-13)
    z = want if mode in _activation.FROM_OUTPUT else x
    dx = miopen.activation_backward(emulated_device.array(g), emulated_device.array(z), mode, alpha=alpha, beta=beta)
    np.testing.assert_allclose(np.asarray(dx), ref.activation_grad(mode, g, x, alpha, beta), rtol=1e-10, atol=1e-12)


def test_hardswish_gradient_boundaries_are_torchs(emulated_device):
    x = np.array([-3.0, -3.0 + 2 ** -20, 3.0 - 2 ** -20, 3.0, -4.0, 4.0], np.float64)
    g = np.full_like(x, 2.0)
    dx = np.asarray(miopen.activation_backward(emulated_device.array(g), emulated_device.array(x), "hardswish"))
    np.testing.assert_allclose(dx, [0.0, 2 * ((-3.0 + 2 ** -20) / 3 + 0.5), 2 * ((3.0 - 2 ** -20) / 3 + 0.5), 2.0, 0.0, 2.0],
                               rtol=1e-15)


@pytest.mark.parametrize("mode", ["gelu", "hardswish"])
def test_float32_packs_and_tail(emulated_device, mode):
    rng = np.random.default_rng(SEED)
    x = _data(rng, 1031, np.float32)  # prime: 257 packs of four and a tail of three
    y = miopen.activation_forward(emulated_device.array(x), mode)
    np.testing.assert_allclose(np.asarray(y), ref.activation(mode, x), rtol=_tol(np.float32), atol=1e-6)


def test_unaligned_view_is_copied(emulated_device):
    rng = np.random.default_rng(SEED)
    base = emulated_device.array(_data(rng, 40, np.float32))
    view = base[1:]  # 4 bytes past a 16-byte boundary
    y = miopen.activation_forward(view, "relu")
    np.testing.assert_array_equal(np.asarray(y), np.maximum(np.asarray(view), 0))
    out = emulated_device.array(np.full(40, np.nan, np.float32))[1:]
    miopen.activation_forward(view, "relu", out=out)
    np.testing.assert_array_equal(np.asarray(out), np.maximum(np.asarray(view), 0))


def test_bfloat16_silu(emulated_device):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(SEED)
    x = _data(rng, 45, ml_dtypes.bfloat16)  # five packs of eight and a tail of five
    g = rng.standard_normal(45).astype(ml_dtypes.bfloat16)
    y = miopen.activation_forward(emulated_device.array(x), "silu")
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(np.asarray(y).astype(np.float64), ref.activation("silu", x64), rtol=_tol(x.dtype),
                               atol=1e-2)
    dx = miopen.activation_backward(emulated_device.array(g), emulated_device.array(x), "silu")
    np.testing.assert_allclose(np.asarray(dx).astype(np.float64),
                               ref.activation_grad("silu", g.astype(np.float64), x64), rtol=_tol(x.dtype), atol=1e-2)


def test_float16_gelu_tanh_wave64(emulated_wave64_device):
    rng = np.random.default_rng(SEED)
    x = _data(rng, 77, np.float16)
    g = rng.standard_normal(77).astype(np.float16)
    dev = emulated_wave64_device
    y = miopen.activation_forward(dev.array(x), "gelu_tanh")
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(np.asarray(y).astype(np.float64), ref.activation("gelu_tanh", x64), rtol=2e-3,
                               atol=2e-3)
    dx = miopen.activation_backward(dev.array(g), dev.array(x), "gelu_tanh")
    np.testing.assert_allclose(np.asarray(dx).astype(np.float64),
                               ref.activation_grad("gelu_tanh", g.astype(np.float64), x64), rtol=4e-3, atol=4e-3)
