"""The flash attention kernels (``attention.hip``) run on the CPU through the kernel emulator
(tests/kernel_emu.py), through :mod:`rocarray.miopen`'s functions, against the NumPy float64
reference on small sizes that are not multiples of the tiles (GQA, masks, causal, E != EV, every
head-dimension class, both warp widths). Skipped where g++ is missing."""

import numpy as np
import pytest

from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)
from nn import nn_attention_reference as ref

from rocarray import miopen
from rocarray.miopen import _attention

SEED = 20261205


def _dtype(name):
    if name == "bfloat16":
        return np.dtype(pytest.importorskip("ml_dtypes").bfloat16)
    return np.dtype(name)


def _inputs(rng, dtype, z, h, hkv, L, S, e, ev):
    q = rng.standard_normal((z, h, L, e)).astype(dtype)
    k = rng.standard_normal((z, hkv, S, e)).astype(dtype)
    v = rng.standard_normal((z, hkv, S, ev)).astype(dtype)
    return q, k, v


def _mask(rng, kind, shape, dtype):
    """A mask of ``shape`` (4-D, size-1 axes broadcast): bool with a few fully masked rows, or
    additive values of ``dtype`` with some -inf."""
    if kind is None:
        return None
    if kind == "bool":
        m = rng.random(shape) < 0.7
        if shape[-2] > 2:
            m[..., 1, :] = False  # a query with no key taking part
        return m
    m = rng.standard_normal(shape)
    m[rng.random(shape) < 0.2] = -np.inf
    return m.astype(dtype)


def _tol(dtype):
    return {"float64": 1e-12, "float32": 2e-5, "float16": 4e-3, "bfloat16": 3e-2}[np.dtype(dtype).name]


def _check(got, want, dtype, name):
    got = np.asarray(got).astype(np.float64)
    tol = _tol(dtype)
    scale = max(1.0, float(np.max(np.abs(want[np.isfinite(want)]), initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=name)


# (dtype, z, h, hkv, L, S, e, ev, mask kind, mask shape code, causal)
FORWARD = [
    ("float64", 2, 3, 3, 13, 37, 24, 40, "bool", "zhls", False),
    ("float64", 1, 4, 2, 40, 9, 70, 16, "add", "1hl1", True),
    ("float32", 1, 2, 1, 17, 33, 8, 100, None, None, True),
    ("float32", 1, 2, 2, 5, 29, 200, 160, "add", "11ls", False),
]


def _mask_shape(code, z, h, L, S):
    return tuple(n if c != "1" else 1 for c, n in zip(code, (z, h, L, S)))


def _run_forward(dev, case):
    dtype_name, z, h, hkv, L, S, e, ev, kind, code, causal = case
    dtype = _dtype(dtype_name)
    rng = np.random.default_rng(SEED)
    q, k, v = _inputs(rng, dtype, z, h, hkv, L, S, e, ev)
    mask = _mask(rng, kind, _mask_shape(code, z, h, L, S), dtype) if kind else None
    out, lse = miopen.attention_forward(dev.array(q), dev.array(k), dev.array(v),
                                        mask=None if mask is None else dev.array(mask), causal=causal, scale=0.3)
    want, want_lse = ref.forward(q, k, v, mask, causal, 0.3)
    _check(out, want, dtype, "out")
    assert np.asarray(lse).dtype == (np.float64 if dtype == np.float64 else np.float32)
    np.testing.assert_array_equal(np.isneginf(np.asarray(lse)), np.isneginf(want_lse))
    fin = np.isfinite(want_lse)
    _check(np.asarray(lse)[fin], want_lse[fin], np.float32 if dtype != np.float64 else dtype, "lse")


@pytest.mark.parametrize("case", FORWARD, ids=lambda c: f"{c[0]}-E{c[6]}-EV{c[7]}-{c[8]}-causal{c[10]}")
def test_forward_warp32(emulated_device, case):
    _run_forward(emulated_device, case)


@pytest.mark.parametrize("case", [("bfloat16", 1, 2, 1, 11, 19, 32, 32, "bool", "z1ls", False),
                                  ("float16", 1, 2, 2, 9, 23, 128, 96, None, None, True),
                                  ("float32", 1, 4, 2, 35, 41, 48, 48, "add", "zh1s", True)],
                         ids=lambda c: f"{c[0]}-E{c[6]}")
def test_forward_wave64(emulated_wave64_device, case):
    _run_forward(emulated_wave64_device, case)


BACKWARD = [
    ("float64", 2, 3, 3, 13, 37, 24, 40, "bool", "zhls", False),
    ("float64", 1, 4, 2, 40, 9, 70, 16, "add", "1hl1", True),
    ("float32", 1, 2, 1, 17, 33, 8, 100, None, None, True),
    ("float32", 1, 2, 2, 5, 19, 200, 160, "add", "11ls", False),
]


def _run_backward(dev, case):
    dtype_name, z, h, hkv, L, S, e, ev, kind, code, causal = case
    dtype = _dtype(dtype_name)
    rng = np.random.default_rng(SEED)
    q, k, v = _inputs(rng, dtype, z, h, hkv, L, S, e, ev)
    mask = _mask(rng, kind, _mask_shape(code, z, h, L, S), dtype) if kind else None
    dout = rng.standard_normal((z, h, L, ev)).astype(dtype)
    dq_, dk_, dv_ = (dev.array(x) for x in (q, k, v))
    dm = None if mask is None else dev.array(mask)
    out, lse = miopen.attention_forward(dq_, dk_, dv_, mask=dm, causal=causal, scale=0.3)
    grads = miopen.attention_backward(dev.array(dout), dq_, dk_, dv_, out, lse, mask=dm, causal=causal, scale=0.3)
    want = ref.backward(dout, q, k, v, mask, causal, 0.3)
    for name, got, w in zip(("dq", "dk", "dv"), grads, want):
        assert np.asarray(got).shape == w.shape and np.asarray(got).dtype == dtype
        _check(got, w, dtype, name)


@pytest.mark.parametrize("case", BACKWARD, ids=lambda c: f"{c[0]}-E{c[6]}-EV{c[7]}-{c[8]}-causal{c[10]}")
def test_backward_warp32(emulated_device, case):
    _run_backward(emulated_device, case)


@pytest.mark.parametrize("case", [("bfloat16", 1, 2, 1, 11, 19, 32, 32, "bool", "z1ls", False),
                                  ("float16", 1, 2, 2, 9, 23, 128, 96, None, None, True),
                                  ("float32", 1, 4, 2, 35, 41, 48, 48, "add", "zh1s", True)],
                         ids=lambda c: f"{c[0]}-E{c[6]}")
def test_backward_wave64(emulated_wave64_device, case):
    _run_backward(emulated_wave64_device, case)


def test_backward_matches_finite_differences(emulated_device):
    # the kernels' own forward differentiated numerically: loss = sum(out * w)
    rng = np.random.default_rng(SEED)
    z, h, hkv, L, S, e, ev = 1, 2, 1, 5, 7, 6, 5
    q, k, v = _inputs(rng, np.float64, z, h, hkv, L, S, e, ev)
    mask = rng.standard_normal((1, 1, L, S))
    w = rng.standard_normal((z, h, L, ev))
    dev = emulated_device

    def loss(q_, k_, v_):
        out, _ = miopen.attention_forward(dev.array(q_), dev.array(k_), dev.array(v_), mask=dev.array(mask))
        return float(np.sum(np.asarray(out) * w))

    out, lse = miopen.attention_forward(dev.array(q), dev.array(k), dev.array(v), mask=dev.array(mask))
    grads = miopen.attention_backward(dev.array(w), dev.array(q), dev.array(k), dev.array(v), out, lse,
                                      mask=dev.array(mask))
    step = 1e-6
    for which, grad in enumerate(grads):
        for index in [(0, 0, 0, 0), (0, 0, L - 1, 2), (0, 0, 3, 4)]:
            if index[2] >= (q, k, v)[which].shape[2] or index[3] >= (q, k, v)[which].shape[3]:
                continue
            args = [q, k, v]
            plus, minus = args[which].copy(), args[which].copy()
            plus[index] += step
            minus[index] -= step
            hi = loss(*[plus if i == which else a for i, a in enumerate(args)])
            lo = loss(*[minus if i == which else a for i, a in enumerate(args)])
            np.testing.assert_allclose(np.asarray(grad)[index], (hi - lo) / (2 * step), rtol=1e-6, atol=1e-8)


def test_self_check_runs_on_the_emulated_wave64_device(emulated_wave64_device, monkeypatch):
    from rocarray._checks import miopen_attention

    # the check's own cases are GPU-sized; smaller ones of the same kinds run here
    monkeypatch.setattr(miopen_attention, "CASES", [(2, 1, 9, 13, 16, 24, "bool", False),
                                                    (1, 1, 11, 5, 8, 8, None, True),
                                                    (1, 1, 3, 7, 8, 8, "add", False)])
    miopen_attention.check_attention(np.random.default_rng(SEED))


# the matrix-unit forward (forced): its tiles, fragment layouts, shared-memory ring, masks and
# softmax through the portable emulation of mma.sync, ldmatrix and cp.async (the instructions
# themselves run only on a GPU). L and S cross the 128-query blocks and 64-key tiles; the ring's
# depth follows the shared memory a block may take (2 at 48 KB, 3 or 4 with more).
# float16 runs on the wave64 target only (the 32-lane target's float16 conversions are inline PTX)
MMA_WARP32 = [
    # several blocks and key tiles, causal: whole tiles below the diagonal, partial ones on it
    ("bfloat16", 1, 1, 1, 200, 203, 128, 128, None, None, True),
    ("bfloat16", 1, 1, 1, 256, 256, 64, 64, None, None, True),
    # every tile whole (no per-score checks)
    ("bfloat16", 1, 1, 1, 128, 192, 64, 64, None, None, False),
    # grouped heads and a boolean mask with rows of no key
    ("bfloat16", 1, 2, 1, 131, 150, 64, 64, "bool", "z1ls", False),
    # head dimensions that are not multiples of 8 (element-wise copies), an additive mask
    ("bfloat16", 1, 2, 2, 67, 133, 100, 60, "add", "1hl1", True),
]
MMA_WAVE64 = [
    ("float16", 1, 1, 1, 150, 140, 128, 128, None, None, True),
    ("float16", 1, 2, 1, 131, 150, 64, 64, "bool", "z1ls", False),
    ("float16", 1, 1, 1, 129, 70, 36, 120, "add", "11ls", False),
    ("float16", 1, 1, 1, 128, 192, 64, 64, None, None, False),
    ("bfloat16", 1, 1, 1, 66, 131, 128, 128, "add", "11ls", True),
]
#: Dynamic shared memory a block may take -> the ring's depth for head-dimension class 64, 128.
MMA_LIMITS = {49152: (2, 2), 150000: (3, 3), 232448: (4, 2)}


def _run_mma(dev, case, limit, monkeypatch, scale=0.3):
    dtype_name, z, h, hkv, L, S, e, ev, kind, code, causal = case
    monkeypatch.setattr(_attention, "_shared_limit", lambda device_id: limit)
    dtype = _dtype(dtype_name)
    rng = np.random.default_rng(SEED)
    q, k, v = _inputs(rng, dtype, z, h, hkv, L, S, e, ev)
    mask = _mask(rng, kind, _mask_shape(code, z, h, L, S), dtype) if kind else None
    out, lse = miopen.attention_forward(dev.array(q), dev.array(k), dev.array(v),
                                        mask=None if mask is None else dev.array(mask), causal=causal, scale=scale,
                                        variant="mma")
    d = _attention.head_class(e, ev)
    stages = MMA_LIMITS[limit][d == 128]
    launch = dev.launches[-1]
    assert launch.name == _attention.kernel_name("fwd_mma", dtype_name, d)
    assert launch.block == (_attention.MMA_THREADS, 1, 1) and launch.args[-1] == stages
    assert launch.shared == _attention.mma_shared_bytes(d, stages)
    want, want_lse = ref.forward(q, k, v, mask, causal, scale)
    # the probabilities are rounded to the data's type before the product with v
    tol = 2 * _tol(dtype)
    got = np.asarray(out).astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()))
    fin = np.isfinite(want_lse)
    np.testing.assert_array_equal(np.isneginf(np.asarray(lse)), ~fin)
    np.testing.assert_allclose(np.asarray(lse)[fin], want_lse[fin], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("limit", list(MMA_LIMITS))
@pytest.mark.parametrize("case", MMA_WARP32, ids=lambda c: f"{c[0]}-L{c[4]}-S{c[5]}-E{c[6]}-EV{c[7]}-{c[8]}-causal{c[10]}")
def test_mma_forward_warp32(emulated_device, case, limit, monkeypatch):
    _run_mma(emulated_device, case, limit, monkeypatch)


def test_mma_forward_negative_scale(emulated_device, monkeypatch):
    # whole tiles keep their scores unscaled only for a positive scale (which keeps their order):
    # under a negative one the row maximum taken before scaling would be the minimum, and scores
    # spread over hundreds of binary orders would overflow the exponentials
    _run_mma(emulated_device, ("bfloat16", 1, 1, 1, 128, 128, 64, 64, None, None, False), 49152, monkeypatch,
             scale=-3.0)


@pytest.mark.parametrize("case", MMA_WAVE64, ids=lambda c: f"{c[0]}-L{c[4]}-S{c[5]}-E{c[6]}-EV{c[7]}-{c[8]}-causal{c[10]}")
def test_mma_forward_wave64(emulated_wave64_device, case, monkeypatch):
    _run_mma(emulated_wave64_device, case, 150000, monkeypatch)


def test_mma_variant_refuses_what_it_cannot_take(emulated_device):
    q = emulated_device.array(np.zeros((1, 1, 4, 8), np.float32))
    with pytest.raises(ValueError, match="mma"):
        miopen.attention_forward(q, q, q, variant="mma")
