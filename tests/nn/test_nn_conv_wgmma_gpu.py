"""The sm_90a warpgroup convolution (``rocarray/miopen/_conv_wgmma.py``) on an H100/H200 against
torch's conv2d in float64 on the same (rounded) inputs, outputs poisoned with NaN first: float16
and bfloat16, odd sizes that leave partial pixel rectangles, dilation, 1x1 and 5x5 filters,
asymmetric padding, batch 1, channel counts that leave partial k tiles, fused bias and
activations; and the calls it must leave to the older kernels (stride 2, channels not a multiple
of 8, an output not 4-byte aligned) still right. Each test also checks whether the warpgroup
kernel ran. Skipped unless the device has compute capability 9.0."""

import numpy as np
import pytest

from conftest import assert_close, to_device
from miopen import miopen_conv_host as host

import rocarray as ra
from rocarray import miopen
from rocarray._core import backend
from rocarray.miopen import _conv_wgmma as wg
from rocarray.nn._args import float_dtypes

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.gpu

DTYPES = [d.name for d in float_dtypes() if d.itemsize == 2]


@pytest.fixture
def launched(monkeypatch):
    """Skips off compute capability 9.0; records what each warpgroup forward call returned (True:
    the kernel was launched)."""
    if not wg.device_applies(backend.cupy().cuda.Device().id):
        pytest.skip("the warpgroup convolution runs on compute capability 9.0 only")
    calls = []
    original = wg.forward

    def recording(*args, **kwargs):
        calls.append(original(*args, **kwargs))
        return calls[-1]
    monkeypatch.setattr(wg, "forward", recording)
    return calls


def _dtype(name):
    return next(d for d in float_dtypes() if d.name == name)


def _reference(x, w, b, p, activation):
    """torch conv2d in float64 of NHWC x and KRSC w (host arrays) for problem ``p``, NHWC result."""
    tx = torch.from_numpy(np.ascontiguousarray(np.moveaxis(x.astype(np.float64), -1, 1))).cuda()
    tw = torch.from_numpy(np.ascontiguousarray(np.moveaxis(w.astype(np.float64), -1, 1))).cuda()
    tb = None if b is None else torch.from_numpy(b.astype(np.float64)).cuda()
    pads = []  # torch.nn.functional.pad's order: last axis first, (before, after)
    for i, before, d, f, s, o in reversed(list(zip(p.input_size, p.pad, p.dilation, p.filter_size, p.stride,
                                                    p.output_size))):
        pads += [before, (o - 1) * s + d * (f - 1) + 1 - i - before]
    tx = torch.nn.functional.pad(tx, [max(v, 0) for v in pads])
    y = torch.nn.functional.conv2d(tx, tw, tb, stride=p.stride, dilation=p.dilation)
    if activation is not None:
        y = getattr(torch.nn.functional, activation)(y)
    return np.moveaxis(y.cpu().numpy(), 1, -1)


def _poisoned(shape, dtype):
    return to_device(np.full(shape, np.nan, np.float32).astype(dtype))


def _check(rng, dtype, n, c, k, size, flt, *, stride=1, pad=0, pad_after=None, dilation=1, bias=False,
           activation=None, algo="implicit_gemm"):
    """miopen.convolution_forward (NHWC, into a NaN-poisoned output) against torch (``pad`` and
    ``pad_after``: before and after each axis, torch's zero padding of the input)."""
    dt = _dtype(dtype)
    p = host.problem("forward", n, c, k, size, flt, stride=stride, pad=pad, pad_after=pad_after, dilation=dilation,
                     dtype=dt, layout="NHWC")
    x, w, _ = host.inputs(rng, p)
    b = rng.standard_normal(k).astype(dt) if bias else None
    want = _reference(x, w, b, p, activation)
    y = miopen.convolution_forward(p, to_device(x), to_device(w), bias=None if b is None else to_device(b),
                                   activation=activation, algo=algo, out=_poisoned(p.y_shape(), dt))
    assert_close(y, want, dt)


def test_small_3x3_runs_on_the_warpgroup_kernel(rng, launched):
    # the decisive case first: one partial tile of each kind, 64 channels (one k tile per tap)
    _check(rng, "float16", 2, 64, 128, (12, 12), (3, 3), pad=1)
    assert launched == [True]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", [
    ("bench_n2", 2, 256, 256, (56, 56), (3, 3), 1, 1),
    ("13x17", 3, 64, 72, (13, 17), (3, 3), 1, 1),
    ("dilation2", 2, 24, 40, (15, 12), (3, 3), 2, 2),
    ("1x1", 2, 200, 256, (9, 7), (1, 1), 0, 1),
    ("5x5", 1, 8, 40, (11, 14), (5, 5), 2, 1),
    ("n1_c200", 1, 200, 256, (10, 9), (3, 3), 1, 1),
    ("c8_k72", 4, 8, 72, (7, 31), (3, 3), 1, 1),
    ("asymmetric_pad", 2, 16, 40, (9, 10), (3, 2), ((1, 0), (1, 1)), 1),  # torch's 'same' for 3 x 2
    ("k42_unstaged", 2, 16, 42, (9, 7), (3, 3), 1, 1),  # K not a multiple of 8: stores from the fragment
    ("k41_odd", 1, 8, 41, (5, 6), (1, 1), 0, 1),
    ("1x1_k264", 3, 64, 264, (7, 9), (1, 1), 0, 1),  # two 256-wide tiles, the second mostly past K
], ids=lambda c: c[0])
def test_matches_torch(rng, launched, dtype, case):
    name, n, c, k, size, flt, pad, dil = case
    before, after = pad if isinstance(pad, tuple) else (pad, pad)
    _check(rng, dtype, n, c, k, size, flt, pad=before, pad_after=after, dilation=dil)
    assert launched == [True]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation", ["relu", "gelu", "leaky_relu"])
def test_bias_and_activation_are_fused(rng, launched, dtype, activation):
    _check(rng, dtype, 2, 32, 72, (13, 9), (3, 3), pad=1, bias=True, activation=activation)
    assert launched == [True]


def test_default_choice_of_a_3x3_is_the_warpgroup_kernel(rng, launched):
    with ra.nn.find_mode("fast"):
        _check(rng, "float16", 2, 64, 64, (14, 14), (3, 3), pad=1, bias=True, activation="relu", algo=None)
    assert launched == [True]


@pytest.mark.parametrize("kw", [dict(stride=2, c=16), dict(c=12)], ids=["stride2", "c12"])
def test_problems_it_does_not_take_stay_right(rng, launched, kw):
    _check(rng, "float16", 2, kw["c"], 40, (11, 13), (3, 3), stride=kw.get("stride", 1), pad=1, bias=True,
           activation="relu")
    assert launched == [False]


def test_non_contiguous_input_and_misaligned_output(rng, launched):
    p = host.problem("forward", 2, 16, 24, (9, 11), (3, 3), pad=1, dtype=np.dtype(np.float16), layout="NHWC")
    x, w, _ = host.inputs(rng, p)
    want = _reference(x, w, None, p, None)
    wide = to_device(np.concatenate([x, x], axis=-1))[..., :16]  # channels every other 16: a strided view
    y = ra.nn.conv2d(wide, to_device(w), padding=1, layout="NHWC", algo="implicit_gemm")
    assert_close(y, want, np.float16)
    assert launched == [True]
    # an output 2 bytes past a 4-byte boundary: the kernel's paired stores would not be aligned
    flat = to_device(np.full(want.size + 1, np.nan, np.float16))
    out = flat[1:].reshape(want.shape)
    miopen.convolution_forward(p, to_device(x), to_device(w), algo="implicit_gemm", out=out)
    assert_close(out, want, np.float16)
    assert launched == [True, False]


def test_output_4_byte_aligned_only_takes_the_unstaged_stores(rng, launched):
    # K % 8 == 0 asks for the staged epilogue's 16-byte stores; y 4 bytes past a 16-byte boundary
    # makes the kernel store from the fragment instead (paired 4-byte stores)
    p = host.problem("forward", 2, 16, 32, (9, 11), (3, 3), pad=1, dtype=np.dtype(np.float16), layout="NHWC")
    x, w, _ = host.inputs(rng, p)
    want = _reference(x, w, None, p, None)
    flat = to_device(np.full(want.size + 8, np.nan, np.float16))
    for offset in (2, 0):  # 4 bytes, then 16 bytes
        out = flat[offset:offset + want.size].reshape(want.shape)
        miopen.convolution_forward(p, to_device(x), to_device(w), algo="implicit_gemm", out=out)
        assert_close(out, want, np.float16)
    assert launched == [True, True]
