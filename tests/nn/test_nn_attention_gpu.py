"""``ra.nn.scaled_dot_product_attention`` on the GPU against torch's SDPA in float64 (the shapes
and masks of nn_attention_gpu_data.py, causal, every dtype), both forward kernels forced for the
16-bit types; queries with no key taking part and empty lengths against the NumPy reference
(zeros)."""

import numpy as np
import pytest

from conftest import to_device, to_host
from nn import nn_attention_reference as ref
from nn.nn_attention_gpu_data import DTYPES, SHAPES, TOL, close, inputs, mask_for, np_dtype, torch_reference

import rocarray as ra
from rocarray.miopen import _attention

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s[0])) + "-" + "-".join(map(str, s[1:])))
@pytest.mark.parametrize("variant", ["plain", "causal", "bool", "float"])
def test_forward_matches_torch(dtype, shape, variant, rng):
    torch = pytest.importorskip("torch")
    dt = np_dtype(dtype)
    q, k, v = inputs(rng, dt, shape)
    mask = mask_for(rng, variant, shape, dt)
    causal = variant == "causal"
    scale = None if variant != "float" else 0.7
    out, lse = ra.nn.scaled_dot_product_attention(to_device(q), to_device(k), to_device(v),
                                                  attn_mask=None if mask is None else to_device(mask),
                                                  is_causal=causal, scale=scale, enable_gqa=shape[1] != shape[2],
                                                  return_lse=True)
    assert out.dtype == dt and out.shape == q.shape[:-1] + (v.shape[-1],)
    want = torch_reference(torch, q, k, v, mask, causal, scale)
    close(out, want, TOL[dtype][0], "out")
    want_lse = ref.forward(q, k, v, mask, causal, scale)[1]
    close(lse, want_lse, 1e-11 if dtype == "float64" else 2e-5 * max(1.0, np.abs(want_lse).max()), "lse")


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d in _attention.MMA_DTYPES])
@pytest.mark.parametrize("variant", ["portable", "mma"])
@pytest.mark.parametrize("causal", [False, True])
def test_both_forward_variants_match_torch(dtype, variant, causal, rng):
    torch = pytest.importorskip("torch")
    dt = np_dtype(dtype)
    shape = ((2,), 4, 2, 131, 97, 72, 128)
    q, k, v = inputs(rng, dt, shape)
    mask = None if causal else mask_for(rng, "bool", shape, dt)
    q4, k4, v4 = (to_device(x) for x in (q, k, v))
    out, lse = ra.miopen.attention_forward(q4, k4, v4, mask=None if mask is None else to_device(mask),
                                           causal=causal, variant=variant)
    close(out, torch_reference(torch, q, k, v, mask, causal, None), TOL[dtype][0], f"out {variant}")
    close(lse, ref.forward(q, k, v, mask, causal)[1], 2e-5 * 8, f"lse {variant}")


# the matrix-unit forward's shared-memory ring at each depth (the shared memory a block may take
# decides it: 48 KB -> 2, 150 KB -> 3, H100's 227 KB -> 4 for D 64, 2 for D 128), over many key
# tiles and several 128-query blocks, L and S not multiples of the tiles
MMA_RING = [((1,), 4, 2, 1000, 1100, 128, 128, None, True), ((2,), 2, 2, 517, 1283, 64, 64, "bool", False),
            ((1,), 2, 1, 777, 640, 120, 128, "float", False), ((1,), 2, 2, 1024, 1024, 64, 64, None, True)]


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d in _attention.MMA_DTYPES])
@pytest.mark.parametrize("limit", [49152, 150000, 232448])
@pytest.mark.parametrize("case", MMA_RING, ids=lambda c: f"L{c[3]}-S{c[4]}-E{c[5]}-{c[7]}-causal{c[8]}")
def test_mma_forward_ring_matches_torch(dtype, limit, case, rng, monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(_attention, "_shared_limit", lambda device_id: limit)
    dt = np_dtype(dtype)
    shape, kind, causal = case[:7], case[7], case[8]
    q, k, v = inputs(rng, dt, shape)
    mask = mask_for(rng, kind, shape, dt)
    if mask is not None and mask.ndim == 3:
        mask = mask[None]  # miopen.attention_forward takes 4-D masks
    out, lse = ra.miopen.attention_forward(*(to_device(x) for x in (q, k, v)),
                                           mask=None if mask is None else to_device(mask), causal=causal,
                                           variant="mma")
    close(out, torch_reference(torch, q, k, v, mask, causal, None), TOL[dtype][0], "out")
    close(lse, ref.forward(q, k, v, mask, causal)[1], 2e-5 * 8, "lse")


@pytest.mark.parametrize("dtype", DTYPES)
def test_queries_without_keys_get_zeros(dtype, rng):
    dt = np_dtype(dtype)
    q, k, v = inputs(rng, dt, ((2,), 2, 2, 19, 23, 64, 64))
    mask = rng.random((2, 1, 19, 23)) < 0.5
    mask[:, :, 3] = False
    out, lse = ra.nn.scaled_dot_product_attention(to_device(q), to_device(k), to_device(v), attn_mask=to_device(mask),
                                                  return_lse=True)
    want, want_lse = ref.forward(q, k, v, mask)
    close(out, want, TOL[dtype][0], "out")
    assert (to_host(out)[:, :, 3] == 0).all() and np.isneginf(to_host(lse)[:, :, 3]).all()
    dout = rng.standard_normal(want.shape).astype(dt)
    grads = ra.nn.scaled_dot_product_attention_backward(to_device(dout), to_device(q), to_device(k), to_device(v),
                                                        out, lse, attn_mask=to_device(mask))
    for name, got, w in zip(("dq", "dk", "dv"), grads, ref.backward(dout, q, k, v, mask)):
        close(got, w, TOL[dtype][1], name)


def test_lengths_of_zero():
    q = to_device(np.ones((1, 2, 0, 64), np.float32))
    k = to_device(np.ones((1, 2, 5, 64), np.float32))
    assert ra.nn.scaled_dot_product_attention(q, k, k).shape == (1, 2, 0, 64)
    q = to_device(np.ones((1, 2, 3, 64), np.float32))
    k = to_device(np.ones((1, 2, 0, 64), np.float32))
    out = ra.nn.scaled_dot_product_attention(q, k, k)
    assert out.shape == (1, 2, 3, 64) and (to_host(out) == 0).all()
