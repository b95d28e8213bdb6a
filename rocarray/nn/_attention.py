"""Scaled dot-product attention (``torch.nn.functional.scaled_dot_product_attention``) and its
explicit backward, on :mod:`rocarray.miopen`'s flash attention kernels."""

import math
import numbers
from dataclasses import dataclass

import numpy

from rocarray import miopen
from rocarray._core import args, backend
from rocarray.nn import _args

_FWD = "scaled_dot_product_attention"
_BWD = "scaled_dot_product_attention_backward"


@dataclass
class _Problem:
    """The checked call as the library takes it: 4-D contiguous tensors (Z, heads, rows, dim),
    the mask as 4-D with broadcast axes of size 1, and the shapes to give results back in."""

    q: object
    k: object
    v: object
    mask: object
    causal: bool
    scale: float
    batch: tuple
    heads: int
    ndim: int


def _heads_axis(x):
    return x.shape[-3] if x.ndim >= 3 else 1


def _as4(x, batch):
    """``x`` (batch..., [heads,] rows, dim) as C-contiguous (Z, heads, rows, dim)."""
    z = math.prod(batch)
    x = backend.cupy().ascontiguousarray(x)
    return x.reshape((z, _heads_axis(x)) + tuple(x.shape[-2:]))


def _mask4(mask, fn, batch, h, L, S):
    """The mask as 4-D (Z or 1, H or 1, L or 1, S or 1) over the broadcast of its own data."""
    mask = args.as_device_array(mask, "attn_mask")
    full = tuple(batch) + ((h,) if h is not None else ()) + (L, S)
    if mask.ndim > len(full) or any(m not in (1, f) for m, f in zip(mask.shape[::-1], full[::-1])):
        raise ValueError(f"{fn}: attn_mask of shape {tuple(mask.shape)} does not broadcast to the attention "
                         f"shape {full}")
    cupy = backend.cupy()
    shape = (1,) * (len(full) - mask.ndim) + tuple(mask.shape)
    mask = cupy.ascontiguousarray(mask).reshape(shape)
    nb = len(batch)
    inner = shape[nb:] if h is not None else (1,) + shape[nb:]
    if all(n == 1 for n in shape[:nb]):
        return mask.reshape((1,) + inner)
    expanded = cupy.broadcast_to(mask.reshape(shape[:nb] + inner), tuple(batch) + inner)
    return cupy.ascontiguousarray(expanded).reshape((math.prod(batch),) + inner)


def _problem(fn, query, key, value, attn_mask, is_causal, scale, enable_gqa):
    query = _args.tensor(query, "query", fn)
    key = _args.tensor(key, "key", fn)
    value = _args.tensor(value, "value", fn)
    if not query.dtype == key.dtype == value.dtype:
        raise TypeError(f"{fn}: Expected query, key, and value to have the same dtype, but got query.dtype: "
                        f"{query.dtype.name} key.dtype: {key.dtype.name} and value.dtype: {value.dtype.name} "
                        "instead.")
    if query.ndim < 2 or not query.ndim == key.ndim == value.ndim:
        raise ValueError(f"{fn}: query, key and value must have one number of dimensions, at least 2; got shapes "
                         f"{tuple(query.shape)}, {tuple(key.shape)} and {tuple(value.shape)}")
    nb = max(query.ndim - 3, 0)
    batch = tuple(query.shape[:nb])
    if tuple(key.shape[:nb]) != batch or tuple(value.shape[:nb]) != batch:
        raise ValueError(f"{fn}: query, key and value must share their batch dimensions; got shapes "
                         f"{tuple(query.shape)}, {tuple(key.shape)} and {tuple(value.shape)}")
    h, hkv = _heads_axis(query), _heads_axis(key)
    L, E = query.shape[-2:]
    S = key.shape[-2]
    if key.shape[-1] != E:
        raise ValueError(f"{fn}: key's last dimension ({key.shape[-1]}) must equal query's ({E})")
    if value.shape[-2] != S or _heads_axis(value) != hkv:
        raise ValueError(f"{fn}: key {tuple(key.shape)} and value {tuple(value.shape)} must have the same number "
                         "of heads and sequence length")
    if h != hkv:
        if enable_gqa and h % hkv != 0:
            raise ValueError(f"{fn}: number of heads in key and value ({hkv}) must divide the number of heads in "
                             f"query ({h})")
        if not enable_gqa and hkv != 1:
            raise ValueError(f"{fn}: query has {h} heads and key/value {hkv}: pass enable_gqa=True for grouped "
                             "query attention")
    if max(E, value.shape[-1]) > miopen.ATTENTION_MAX_HEAD_DIM:
        raise ValueError(f"{fn}: head dimensions up to {miopen.ATTENTION_MAX_HEAD_DIM} are supported, got "
                         f"{max(E, value.shape[-1])}")
    if scale is not None:
        if not isinstance(scale, numbers.Real) or isinstance(scale, bool):
            raise TypeError(f"{fn}: scale must be a float or None, got {type(scale).__name__}")
        scale = float(scale)
    mask = None
    if attn_mask is not None:
        if is_causal:
            raise ValueError(f"{fn}: Explicit attn_mask should not be set when is_causal=True")
        attn_mask = args.as_device_array(attn_mask, "attn_mask")
        if attn_mask.dtype != numpy.bool_ and attn_mask.dtype != query.dtype:
            raise TypeError(f"{fn}: Expected attn_mask dtype to be bool or to match query dtype, but got "
                            f"attn_mask.dtype: {attn_mask.dtype.name} and query.dtype: {query.dtype.name} instead.")
        mask = _mask4(attn_mask, fn, batch, h if query.ndim >= 3 else None, L, S)
    return _Problem(_as4(query, batch), _as4(key, batch), _as4(value, batch), mask, bool(is_causal), scale, batch,
                    h, query.ndim)


def _shaped(x, p, heads, *tail):
    """A library result (Z, heads, ...) in the caller's batch shape (no head axis for 2-D input)."""
    lead = p.batch + ((heads,) if p.ndim >= 3 else ())
    return x.reshape(lead + tuple(tail))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False, *, return_lse=False):
    """Attention ``softmax(query @ key^T * scale + mask) @ value`` as one fused flash kernel.

    torch's ``scaled_dot_product_attention`` with its arguments and semantics, without the
    (L, S) score matrix in memory (:func:`rocarray.miopen.attention_forward`).

    Parameters
    ----------
    query : cupy.ndarray
        (..., H, L, E): float16, bfloat16, float32 or float64.
    key : cupy.ndarray
        (..., Hkv, S, E), query's dtype and batch dimensions.
    value : cupy.ndarray
        (..., Hkv, S, Ev), query's dtype. ``max(E, Ev) <= 256``.
    attn_mask : cupy.ndarray, optional
        Broadcastable to (..., H, L, S): bool (True: the key takes part) or query's dtype (added to
        the scaled scores).
    dropout_p : float
        Must be 0.0 (dropout is not implemented).
    is_causal : bool
        Query i attends to keys ``j <= i`` (torch's top-left ``tril`` over (L, S)); not together
        with ``attn_mask``.
    scale : float, optional
        Default ``1 / sqrt(E)``.
    enable_gqa : bool
        Grouped-query attention: H a multiple of Hkv, query head h reads key/value head
        ``h // (H // Hkv)``. Without it Hkv must equal H (or be 1, broadcast as torch does).
    return_lse : bool, keyword-only
        Also return the log-sum-exp of every query's scores, (..., H, L), which
        :func:`scaled_dot_product_attention_backward` takes.

    Returns
    -------
    out : cupy.ndarray
        (..., H, L, Ev), query's dtype. A query whose keys are all masked out gets zeros.
    lse : cupy.ndarray
        Only with ``return_lse``: float32 (float64 for float64 input); -inf where no key takes part.

    Raises
    ------
    TypeError
        Host arrays, unsupported or mixed dtypes, a mask of another float dtype.
    ValueError
        Shapes that do not fit together, a mask that does not broadcast, a mask with
        ``is_causal``, heads that do not group, head dimensions past 256.
    NotImplementedError
        ``dropout_p`` other than 0.0.

    Notes
    -----
    Scores and the softmax accumulate in float32 for 16-bit and float32 input, float64 for
    float64 input. Flash attention: Dao et al. 2022, FlashAttention-2: Dao 2023.

    Examples
    --------
    >>> import rocarray as ra
    >>> q = ra.random.standard_normal((2, 8, 128, 64)).astype("float16")   # doctest: +SKIP
    >>> out = ra.nn.scaled_dot_product_attention(q, q, q, is_causal=True)  # doctest: +SKIP
    """
    if not isinstance(dropout_p, numbers.Real) or dropout_p != 0.0:
        raise NotImplementedError(f"{_FWD}: dropout_p={dropout_p!r} is not supported (only 0.0)")
    p = _problem(_FWD, query, key, value, attn_mask, is_causal, scale, enable_gqa)
    out, lse = miopen.attention_forward(p.q, p.k, p.v, mask=p.mask, causal=p.causal, scale=p.scale)
    out = _shaped(out, p, p.heads, *out.shape[-2:])
    if return_lse:
        return out, _shaped(lse, p, p.heads, lse.shape[-1])
    return out


def scaled_dot_product_attention_backward(grad_output, query, key, value, output, lse, attn_mask=None,
                                          is_causal=False, scale=None, enable_gqa=False):
    """Gradients of :func:`scaled_dot_product_attention` with respect to query, key and value.

    Parameters
    ----------
    grad_output : cupy.ndarray
        Gradient of the output, (..., H, L, Ev), query's dtype.
    query, key, value : cupy.ndarray
        As given to the forward call.
    output : cupy.ndarray
        The forward's output (..., H, L, Ev).
    lse : cupy.ndarray
        The forward's log-sum-exp (``return_lse=True``), (..., H, L), float32 or float64.
    attn_mask : cupy.ndarray, optional
        As given to the forward call.
    is_causal : bool
        As given to the forward call.
    scale : float, optional
        As given to the forward call.
    enable_gqa : bool
        As given to the forward call.

    Returns
    -------
    grad_query, grad_key, grad_value : cupy.ndarray
        Of query's, key's and value's shapes and dtype; with grouped heads, grad_key and
        grad_value sum over the query heads that share a key/value head.

    Raises
    ------
    TypeError, ValueError
        As the forward, and for grad_output, output or lse of another shape or dtype.
    """
    p = _problem(_BWD, query, key, value, attn_mask, is_causal, scale, enable_gqa)
    want = tuple(query.shape[:-1]) + (value.shape[-1],)
    grad_output = _args.tensor(grad_output, "grad_output", _BWD, dtypes=(query.dtype,))
    output = _args.tensor(output, "output", _BWD, dtypes=(query.dtype,))
    lse = _args.tensor(lse, "lse", _BWD, dtypes=("float32", "float64"))
    for name, x, shape in (("grad_output", grad_output, want), ("output", output, want),
                           ("lse", lse, tuple(query.shape[:-1]))):
        if tuple(x.shape) != shape:
            raise ValueError(f"{_BWD}: '{name}' must have shape {shape}, got {tuple(x.shape)}")
    z = math.prod(p.batch)
    cupy = backend.cupy()
    dout4 = cupy.ascontiguousarray(grad_output).reshape((z,) + p.q.shape[1:3] + (want[-1],))
    out4 = cupy.ascontiguousarray(output).reshape(dout4.shape)
    lse3 = cupy.ascontiguousarray(lse).reshape(p.q.shape[:3])
    dq, dk, dv = miopen.attention_backward(dout4, p.q, p.k, p.v, out4, lse3, mask=p.mask, causal=p.causal,
                                           scale=p.scale)
    return dq.reshape(query.shape), dk.reshape(key.shape), dv.reshape(value.shape)
