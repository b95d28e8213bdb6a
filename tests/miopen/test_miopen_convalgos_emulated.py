"""The convolution algorithms of the convalgos modules (implicit GEMM, Winograd, FFT) run on the
CPU: kernels through the kernel emulator (tests/kernel_emu.py), checked against the float64
reference (tests/miopen/conv_reference.py). Small sizes that still cross tile edges. CPU tests:
skipped where g++ is missing."""

import numpy as np
import pytest

from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)
from miopen import conv_reference as ref

from rocarray.miopen import _conv_fft, _conv_implicit_gemm, _conv_registry, _conv_winograd

SEED = 20261205


def _run(device, algorithm_run, p, rng, dtype=None, **kwargs):
    x, w, _ = ref.random_operands(rng, p, dtype)
    y = device.cupy.empty(p.y_shape(), p.dtype)  # 0xff bytes: NaN where a kernel leaves a gap
    algorithm_run(p, device.array(x), device.array(w), y, **kwargs)
    return x, w, y


IGEMM_CASES = [
    # dtype, layout, tile, problem arguments
    ("float64", "NCHW", "small", dict(n=2, c=4, k=6, input_size=(7, 6), filter_size=3, stride=(2, 1), pad=1,
                                      dilation=(1, 2), groups=2)),
    ("float64", "NHWC", "small", dict(n=3, c=19, k=70, input_size=(5, 4), filter_size=(2, 3), pad=(0, 1), dilation=(2, 1))),
    ("float32", "NHWC", "narrow", dict(n=1, c=6, k=9, input_size=(3, 4, 5), filter_size=(2, 1, 3), stride=2,
                                       pad=(1, 0, 1), dilation=(2, 1, 1), groups=3)),
    ("float32", "NCHW", "large", dict(n=2, c=21, k=131, input_size=(67,), filter_size=(4,), pad=2, dilation=3,
                                      pad_after=1)),
]


@pytest.mark.parametrize("dtype,layout,tile,args", IGEMM_CASES)
def test_implicit_gemm_forward(emulated_device, dtype, layout, tile, args):
    rng = np.random.default_rng(SEED)
    p = ref.make_problem(dtype=dtype, layout=layout, **args)
    x, w, y = _run(emulated_device, _conv_implicit_gemm.forward, p, rng, tile=tile)
    ref.assert_conv_close(y, p, x, w)


def test_implicit_gemm_half_wave64(emulated_wave64_device):
    rng = np.random.default_rng(SEED)
    p = ref.make_problem(n=2, c=6, k=10, input_size=(6, 5), filter_size=3, pad=1, groups=2, dtype="float16")
    x, w, y = _run(emulated_wave64_device, _conv_implicit_gemm.ImplicitGemm().run, p, rng)
    assert emulated_wave64_device.names()[-1] == _conv_implicit_gemm.kernel_name("float16", False, "narrow")
    ref.assert_conv_close(y, p, x, w)


WINOGRAD_CASES = [
    # m, dtype, layout, problem arguments
    (2, "float64", "NCHW", dict(n=2, c=4, k=6, input_size=(7, 6), pad=1, groups=2)),
    (4, "float64", "NHWC", dict(n=1, c=3, k=5, input_size=(9, 11), pad=(2, 0), pad_after=(1, 2))),
    (4, "float32", "NCHW", dict(n=2, c=5, k=3, input_size=(6, 7), pad=1)),
    (2, "float32", "NHWC", dict(n=1, c=4, k=4, input_size=(5, 3), pad=(0, 1), groups=4)),
]


@pytest.mark.parametrize("m,dtype,layout,args", WINOGRAD_CASES)
def test_winograd_forward(emulated_device, monkeypatch, m, dtype, layout, args):
    monkeypatch.setattr(_conv_winograd, "MAX_GEMM_BATCH", 7)  # the products in several calls
    rng = np.random.default_rng(SEED)
    p = ref.make_problem(dtype=dtype, layout=layout, filter_size=3, **args)
    algorithm = _conv_registry.algorithms()[f"winograd_f{m}x3"]
    assert algorithm.applicable(p)
    x, w, y = _run(emulated_device, algorithm.run, p, rng)
    ref.assert_conv_close(y, p, x, w, slack=8 if m == 4 else 2)


def test_winograd_half_wave64(emulated_wave64_device):
    rng = np.random.default_rng(SEED)
    p = ref.make_problem(n=2, c=6, k=4, input_size=(6, 9), filter_size=3, pad=1, groups=2, dtype="float16")
    x, w, y = _run(emulated_wave64_device, _conv_registry.algorithms()["winograd_f4x3"].run, p, rng)
    assert "ra_miopen_winograd_output<ra_half, 4, false>" in emulated_wave64_device.names()
    ref.assert_conv_close(y, p, x, w, slack=8)


FFT_CASES = [
    # dtype, layout, problem arguments
    ("float64", "NCHW", dict(n=2, c=4, k=6, input_size=(9, 8), filter_size=(5, 4), pad=(2, 1), groups=2)),
    ("float64", "NHWC", dict(n=1, c=3, k=2, input_size=(13,), filter_size=(7,), stride=2, dilation=2, pad=4,
                             pad_after=0)),
    ("float32", "NCHW", dict(n=1, c=2, k=3, input_size=(5, 4, 6), filter_size=(3, 2, 3), stride=(1, 2, 1),
                             pad=(1, 0, 2))),
    ("float16", "NHWC", dict(n=2, c=3, k=4, input_size=(7, 9), filter_size=(5, 5), pad=2)),
]


class NumpyFft:
    """rocfft's r2c/c2r contract on NumPy's FFT (the emulator cannot run the rocfft library's
    host side): unnormalized transforms times ``scale``, results as device arrays."""

    def __init__(self, device):
        self.device = device

    def r2c(self, x, axes, *, scale=1.0):
        return self.device.array(np.fft.rfftn(np.asarray(x), axes=axes) * scale)

    def c2r(self, x, axes, n, *, scale=1.0):
        s = [x.shape[a] for a in axes[:-1]] + [n]
        return self.device.array(np.fft.irfftn(np.asarray(x), s=s, axes=axes, norm="forward") * scale)


@pytest.mark.parametrize("dtype,layout,args", FFT_CASES)
def test_fft_forward(emulated_device, monkeypatch, dtype, layout, args):
    monkeypatch.setattr(_conv_fft, "rocfft", NumpyFft(emulated_device))
    monkeypatch.setattr(_conv_fft, "MAX_GEMM_BATCH", 50)  # the products in several calls
    rng = np.random.default_rng(SEED)
    p = ref.make_problem(dtype=dtype, layout=layout, **args)
    algorithm = _conv_registry.algorithms()["fft"]
    assert algorithm.applicable(p)
    x, w, y = _run(emulated_device, algorithm.run, p, rng)
    ref.assert_conv_close(y, p, x, w, slack=8)


def test_bfloat16_bits_round_to_nearest_even(emulated_device):
    one = 1.0
    values = np.array([one, one + 2.0 ** -8, one + 3 * 2.0 ** -8, one + 2.0 ** -8 + 2.0 ** -20, -2.5, np.inf,
                       -np.nan, 3.0e38], np.float32)
    bits = np.asarray(_conv_fft.bfloat16_bits(emulated_device.array(values)))
    assert bits.dtype == np.uint16
    assert [hex(b) for b in bits[:6]] == ["0x3f80", "0x3f80", "0x3f82", "0x3f81", "0xc020", "0x7f80"]
    assert bits[6] & 0x7FC0 == 0x7FC0 and bits[6] >> 15 == np.signbit(values[6])
    widened = np.asarray(_conv_fft.bfloat16_widen(emulated_device.array(bits)))
    np.testing.assert_allclose(widened[7], 3.0e38, rtol=2.0 ** -8)
    assert widened[0] == 1.0 and widened[2] == one + 2 * 2.0 ** -7 and np.isnan(widened[6])


BACKWARD_CASES = [
    # direction, dtype, layout, problem arguments
    ("backward_data", "float64", "NCHW", dict(n=2, c=4, k=6, input_size=(7, 6), filter_size=3, stride=(2, 1), pad=1,
                                              dilation=(1, 2), groups=2)),
    ("backward_data", "float32", "NHWC", dict(n=1, c=6, k=9, input_size=(3, 5, 4), filter_size=(2, 1, 3),
                                              stride=(2, 1, 2), pad=(1, 0, 1), dilation=(2, 1, 1), groups=3)),
    ("backward_data", "float32", "NCHW", dict(n=2, c=5, k=19, input_size=(9, 8), filter_size=(3, 4), stride=3,
                                              pad=2, dilation=(1, 2))),
    ("backward_weights", "float64", "NHWC", dict(n=3, c=4, k=6, input_size=(9, 7), filter_size=(3, 2), stride=2,
                                                 pad=(1, 0), dilation=(1, 2), groups=2)),
    ("backward_weights", "float32", "NCHW", dict(n=2, c=3, k=5, input_size=(31,), filter_size=(4,), pad=2,
                                                 dilation=3, pad_after=1)),
]


@pytest.mark.parametrize("direction,dtype,layout,args", BACKWARD_CASES)
def test_implicit_gemm_backward(emulated_device, monkeypatch, direction, dtype, layout, args):
    # a short least split length, so that backward weights splits its reduction across blocks
    monkeypatch.setattr(_conv_implicit_gemm, "MIN_SPLIT_STEPS", 1)
    rng = np.random.default_rng(SEED)
    p = ref.make_problem(direction=direction, dtype=dtype, layout=layout, **args)
    x, w, dy = ref.random_operands(rng, p)
    cupy = emulated_device.cupy
    if direction == "backward_data":
        out = cupy.empty(p.x_shape(), p.dtype)
        _conv_implicit_gemm.ImplicitGemm().run(p, out, emulated_device.array(w), emulated_device.array(dy))
        ref.assert_conv_close(out, p, None, w, dy)
    else:
        out = cupy.empty(p.w_shape(), p.dtype)
        _conv_implicit_gemm.ImplicitGemm().run(p, emulated_device.array(x), out, emulated_device.array(dy))
        assert emulated_device.launches[-2].grid[2] > p.groups  # the reduction was split
        ref.assert_conv_close(out, p, x, None, dy)


@pytest.mark.parametrize("direction", ["backward_data", "backward_weights"])
def test_implicit_gemm_backward_half_wave64(emulated_wave64_device, direction):
    rng = np.random.default_rng(SEED)
    p = ref.make_problem(direction=direction, n=2, c=4, k=6, input_size=(5, 6), filter_size=3, pad=1, groups=2,
                         dtype="float16", layout="NHWC")
    x, w, dy = ref.random_operands(rng, p)
    dev, cupy = emulated_wave64_device, emulated_wave64_device.cupy
    if direction == "backward_data":
        out = cupy.empty(p.x_shape(), p.dtype)
        _conv_implicit_gemm.ImplicitGemm().run(p, out, dev.array(w), dev.array(dy))
        ref.assert_conv_close(out, p, None, w, dy)
    else:
        out = cupy.empty(p.w_shape(), p.dtype)
        _conv_implicit_gemm.ImplicitGemm().run(p, dev.array(x), out, dev.array(dy))
        ref.assert_conv_close(out, p, x, None, dy)


BF16_CASES = [
    # algorithm, layout, problem arguments (float32 arithmetic on bfloat16 data, on the warp-32 target)
    ("implicit_gemm", "NCHW", dict(n=2, c=5, k=7, input_size=(6, 7), filter_size=3, stride=2, pad=1)),
    ("implicit_gemm", "NHWC", dict(n=1, c=40, k=9, input_size=(7, 6), filter_size=3, pad=1)),  # matrix-unit kernel
    ("winograd_f4x3", "NHWC", dict(n=1, c=3, k=4, input_size=(9, 6), filter_size=3, pad=1)),
    ("fft", "NCHW", dict(n=2, c=2, k=3, input_size=(10, 9), filter_size=5, pad=2)),
]


@pytest.mark.parametrize("name,layout,args", BF16_CASES)
def test_bfloat16(emulated_device, monkeypatch, name, layout, args):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    monkeypatch.setattr(_conv_fft, "rocfft", NumpyFft(emulated_device))
    rng = np.random.default_rng(SEED)
    p = ref.make_problem(dtype=np.dtype(ml_dtypes.bfloat16), layout=layout, **args)
    algorithm = _conv_registry.algorithms()[name]
    x, w, y = _run(emulated_device, algorithm.run, p, rng)
    ref.assert_conv_close(y, p, x, w, slack=8 if name != "implicit_gemm" else 1)
