"""``ra.nn.scaled_dot_product_attention_backward`` on the GPU against torch's SDPA autograd in
float64 (the shapes and masks of nn_attention_gpu_data.py, causal, every dtype)."""

import pytest

from conftest import to_device
from nn.nn_attention_gpu_data import DTYPES, SHAPES, TOL, close, inputs, mask_for, np_dtype, torch_reference

import rocarray as ra

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES[1:], ids=lambda s: "x".join(map(str, s[0])) + "-" + "-".join(map(str, s[1:])))
@pytest.mark.parametrize("variant", ["plain", "causal", "bool", "float"])
def test_backward_matches_torch_autograd(dtype, shape, variant, rng):
    torch = pytest.importorskip("torch")
    dt = np_dtype(dtype)
    q, k, v = inputs(rng, dt, shape)
    mask = mask_for(rng, variant, shape, dt)
    causal = variant == "causal"
    gqa = shape[1] != shape[2]
    dout = rng.standard_normal(q.shape[:-1] + (v.shape[-1],)).astype(dt)
    dq_, dk_, dv_ = (to_device(x) for x in (q, k, v))
    dm = None if mask is None else to_device(mask)
    out, lse = ra.nn.scaled_dot_product_attention(dq_, dk_, dv_, attn_mask=dm, is_causal=causal, enable_gqa=gqa,
                                                  return_lse=True)
    grads = ra.nn.scaled_dot_product_attention_backward(to_device(dout), dq_, dk_, dv_, out, lse, attn_mask=dm,
                                                        is_causal=causal, enable_gqa=gqa)
    want = torch_reference(torch, q, k, v, mask, causal, None, dout)
    for name, got, w, x in zip(("dq", "dk", "dv"), grads, want, (q, k, v)):
        assert got.dtype == dt and got.shape == x.shape
        close(got, w, TOL[dtype][1], name)
