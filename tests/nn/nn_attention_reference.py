"""NumPy float64 reference of scaled dot-product attention, forward and backward, with torch's
semantics (grouped heads by ``repeat_interleave``, causal as the top-left ``tril`` over (L, S),
bool masks select, float masks add) and rocarray's for a query with no key taking part (output
0, log-sum-exp -inf, gradients 0)."""

import numpy as np


def _allowed_and_bias(L, S, mask, causal):
    allowed = np.ones((L, S), bool)
    if causal:
        allowed = np.tril(allowed)
    bias = 0.0
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype == np.bool_:
            allowed = allowed & mask
        else:
            bias = mask.astype(np.float64)
    return allowed, bias


def _heads(x):
    return x.shape[-3] if x.ndim >= 3 else 1


def _expand(x, h):
    """Key/value heads repeated to ``h`` query heads (torch's repeat_interleave on axis -3)."""
    return np.repeat(x, h // x.shape[-3], axis=-3) if x.ndim >= 3 else x


def probabilities(q, k, mask=None, causal=False, scale=None):
    """``(P, lse)``: softmax probabilities (..., H, L, S) and log-sum-exp (..., H, L), float64."""
    q, k = np.asarray(q, np.float64), np.asarray(k, np.float64)
    L, S, e = q.shape[-2], k.shape[-2], q.shape[-1]
    scale = 1.0 / np.sqrt(e) if scale is None else scale
    allowed, bias = _allowed_and_bias(L, S, mask, causal)
    s = q @ np.swapaxes(_expand(k, _heads(q)), -1, -2) * scale + bias
    s = np.where(allowed, s, -np.inf)
    m = s.max(axis=-1, keepdims=True) if S else np.full(s.shape[:-1] + (1,), -np.inf)
    m = np.where(np.isfinite(m), m, 0.0)
    p = np.exp(s - m)
    total = p.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        P = np.where(total > 0, p / np.where(total > 0, total, 1.0), 0.0)
        lse = np.where(total > 0, m + np.log(np.where(total > 0, total, 1.0)), -np.inf)[..., 0]
    return P, lse


def forward(q, k, v, mask=None, causal=False, scale=None):
    """``(out, lse)`` in float64."""
    P, lse = probabilities(q, k, mask, causal, scale)
    return P @ _expand(np.asarray(v, np.float64), _heads(P)), lse


def backward(dout, q, k, v, mask=None, causal=False, scale=None):
    """``(dq, dk, dv)`` in float64 (dk, dv summed over the query heads of each key/value head)."""
    q, k, v, dout = (np.asarray(a, np.float64) for a in (q, k, v, dout))
    scale = 1.0 / np.sqrt(q.shape[-1]) if scale is None else scale
    h, hkv = _heads(q), _heads(k)
    P, _ = probabilities(q, k, mask, causal, scale)
    ke, ve = _expand(k, h), _expand(v, h)
    dv = np.swapaxes(P, -1, -2) @ dout
    dp = dout @ np.swapaxes(ve, -1, -2)
    ds = P * (dp - (dp * P).sum(axis=-1, keepdims=True))
    dq = ds @ ke * scale
    dk = np.swapaxes(ds, -1, -2) @ q * scale

    def fold(g):
        if g.ndim < 3:
            return g
        return g.reshape(g.shape[:-3] + (hkv, h // hkv) + g.shape[-2:]).sum(axis=-3)

    return dq, fold(dk), fold(dv)
