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
