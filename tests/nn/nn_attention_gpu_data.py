"""Data and torch references shared by the GPU attention tests (test_nn_attention_gpu.py,
test_nn_attention_bwd_gpu.py): shapes with odd L and S (1, primes, not multiples of the tiles),
L != S both ways, grouped heads, E != Ev and every head-dimension class; masks broadcast over batch
or heads; torch's SDPA in float64 on the same inputs rounded to each dtype."""

import numpy as np

from conftest import to_host

try:
    import ml_dtypes

    DTYPES = ["float16", "bfloat16", "float32", "float64"]
except ImportError:  # bfloat16 needs ml_dtypes
    ml_dtypes = None
    DTYPES = ["float16", "float32", "float64"]

#: Tolerance relative to the largest reference magnitude: output, gradients.
TOL = {"float16": (6e-3, 2e-2), "bfloat16": (5e-2, 1.2e-1), "float32": (5e-5, 2e-4), "float64": (1e-11, 1e-10)}

# (batch, H, Hkv, L, S, E, Ev)
SHAPES = [
    ((1,), 1, 1, 1, 1, 64, 64),
    ((2,), 4, 4, 17, 31, 64, 64),
    ((1,), 8, 2, 97, 131, 128, 128),
    ((2,), 2, 2, 7, 257, 256, 256),
    ((1,), 3, 3, 61, 64, 40, 72),
    ((2, 3), 2, 1, 53, 11, 96, 80),
]


def np_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def inputs(rng, dtype, shape):
    batch, h, hkv, L, S, e, ev = shape
    q = rng.standard_normal(batch + (h, L, e)).astype(dtype)
    k = rng.standard_normal(batch + (hkv, S, e)).astype(dtype)
    v = rng.standard_normal(batch + (hkv, S, ev)).astype(dtype)
    return q, k, v


def mask_for(rng, kind, shape, dtype):
    batch, h, _, L, S = shape[:5]
    if kind == "bool":  # broadcast over heads; every query keeps key 0
        m = rng.random(batch + (1, L, S)) < 0.6
        m[..., 0] = True
        return m
    if kind == "float":  # broadcast over the batch
        m = rng.standard_normal((h, L, S))
        m[rng.random((h, L, S)) < 0.1] = -np.inf
        m[..., 0] = 0.0
        return m.astype(dtype)
    return None


def _torch(x, torch):
    return torch.from_numpy(np.asarray(x, np.float64 if np.asarray(x).dtype != np.bool_ else np.bool_)).cuda()


def torch_reference(torch, q, k, v, mask, causal, scale, dout=None):
    tq, tk, tv = (_torch(x, torch).requires_grad_(dout is not None) for x in (q, k, v))
    tm = None if mask is None else _torch(mask, torch)
    gqa = q.shape[-3] != k.shape[-3]
    out = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, is_causal=causal, scale=scale,
                                                           enable_gqa=gqa)
    if dout is None:
        return out.detach().cpu().numpy()
    out.backward(_torch(dout, torch))
    return [t.grad.cpu().numpy() for t in (tq, tk, tv)]


def close(got, want, tol, name):
    got = to_host(got).astype(np.float64)
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=name)


