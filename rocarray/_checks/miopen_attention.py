"""Self-check and vendor-ratio benchmark cases of flash attention (``ra.nn.scaled_dot_product_attention``).

The self-check runs the forward and backward passes for every dtype on small fresh random inputs
(lengths that are not multiples of the tiles, grouped heads, a boolean mask broadcast over heads,
an additive mask, causal with more queries than keys, E != Ev) against NumPy in float64.

The benchmark cases are the issue's: B8 H16 L = S = 4096 E = Ev = 128 in bfloat16 and float16,
causal and not, against ``torch.nn.functional.scaled_dot_product_attention`` on the same device
memory (torch's fused flash kernel); without torch (or ml_dtypes for bfloat16) the setup raises
``harness.Unavailable``. FLOPs: ``4 B H L S D`` (the two products), half of it when
causal, as torch counts them.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "miopen"
_B, _H, _S, _D = 8, 16, 4096, 128


def _reference(q, k, v, mask, causal, scale, dout):
    """``(out, dq, dk, dv)`` in float64 (grouped heads repeated; no fully masked rows here)."""
    group = q.shape[1] // k.shape[1]
    ke, ve = numpy.repeat(k, group, axis=1), numpy.repeat(v, group, axis=1)
    s = q @ ke.swapaxes(-1, -2) * scale
    L, S = s.shape[-2:]
    allowed = numpy.tril(numpy.ones((L, S), bool)) if causal else numpy.ones((L, S), bool)
    if mask is not None and mask.dtype == numpy.bool_:
        allowed = allowed & mask
    elif mask is not None:
        s = s + mask
    s = numpy.where(allowed, s, -numpy.inf)
    p = numpy.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    dp = dout @ ve.swapaxes(-1, -2)
    ds = p * (dp - (dp * p).sum(axis=-1, keepdims=True))

    def fold(g):
        return g.reshape(g.shape[0], k.shape[1], group, *g.shape[2:]).sum(axis=2)

    return p @ ve, ds @ ke * scale, fold(ds.swapaxes(-1, -2) @ q * scale), fold(p.swapaxes(-1, -2) @ dout)


#: The self-check's problems: (H, Hkv, L, S, E, Ev, mask kind, causal), batch 2.
CASES = [(4, 2, 37, 53, 64, 64, "bool", False), (2, 2, 70, 19, 128, 96, None, True),
         (3, 1, 9, 131, 40, 200, "add", False)]




def _check_case(rng, dt, case):
    from rocarray import nn

    cupy = backend.cupy()
    dtype = dt.name
    h, hkv, L, S, e, ev, kind, causal = case
    q = harness.standard_normal(rng, (2, h, L, e), dt)
    k = harness.standard_normal(rng, (2, hkv, S, e), dt)
    v = harness.standard_normal(rng, (2, hkv, S, ev), dt)
    dout = harness.standard_normal(rng, (2, h, L, ev), dt)
    mask = None
    if kind == "bool":
        mask = rng.random((2, 1, L, S)) < 0.7
        mask[..., 0] = True
    elif kind == "add":
        mask = harness.standard_normal(rng, (L, S), dt)
    wide = [x.astype(numpy.float64) for x in (q, k, v, dout)]
    wide_mask = mask if kind != "add" else mask.astype(numpy.float64)
    want = _reference(*wide[:3], wide_mask, causal, 1.0 / numpy.sqrt(e), wide[3])
    dq_, dk_, dv_ = (cupy.asarray(x) for x in (q, k, v))
    dm = None if mask is None else cupy.asarray(mask)
    out, lse = nn.scaled_dot_product_attention(dq_, dk_, dv_, attn_mask=dm, is_causal=causal,
                                               enable_gqa=h != hkv, return_lse=True)
    grads = nn.scaled_dot_product_attention_backward(cupy.asarray(dout), dq_, dk_, dv_, out, lse,
                                                     attn_mask=dm, is_causal=causal, enable_gqa=h != hkv)
    label = f"attention {dtype} H{h}/{hkv} L{L} S{S} E{e}/{ev} {kind} causal={causal}"
    # 16-bit: the inputs are exact in the reference, the results round once (float32 sums)
    growth = "none" if dtype in ("float16", "bfloat16") else "sqrt"
    for name, got, w in zip(("out", "dq", "dk", "dv"), (out,) + tuple(grads), want):
        harness.assert_close(got, w, dt, max(S, L, e, ev), growth=growth, name=f"{label} {name}")


@harness.self_check(_LIB, "attention")
def check_attention(rng):
    """Every case in every dtype with the heuristic's variants (the ``wgmma`` forward among them; it
    applies on sm_90 only), then the unmasked cases again with ``wgmma`` out of the choices, so
    the ``mma`` forward is checked on sm_90 too."""
    from rocarray.miopen import _attention
    from rocarray.nn import _args

    for dt in _args.float_dtypes():
        for case in CASES:
            _check_case(rng, dt, case)
    saved = _attention.WGMMA
    try:
        _attention.WGMMA = not saved
        for dt in _args.float_dtypes():
            if dt.name in _attention.MMA_DTYPES:
                for case in CASES:
                    if case[6] is None:
                        _check_case(rng, dt, case)
    finally:
        _attention.WGMMA = saved


def _register_benchmarks():
    for dtype in ("bfloat16", "float16"):
        for causal in (False, True):
            def setup(dtype=dtype):
                torch = harness.require("torch")
                cupy = backend.cupy()
                tdt = getattr(torch, dtype)
                tensors = [torch.randn((_B, _H, _S, _D), dtype=tdt, device="cuda") for _ in range(3)]
                if dtype == "bfloat16":
                    ndt = numpy.dtype(harness.require("ml_dtypes").bfloat16)
                else:
                    ndt = numpy.dtype(numpy.float16)
                views = []
                for t in tensors:  # the same device memory seen by CuPy
                    mem = cupy.cuda.UnownedMemory(t.data_ptr(), t.numel() * t.element_size(), t)
                    views.append(cupy.ndarray(tuple(t.shape), ndt, cupy.cuda.MemoryPointer(mem, 0)))
                return tuple(views) + tuple(tensors)

            def ours(q, k, v, tq, tk, tv, causal=causal):
                from rocarray import nn

                nn.scaled_dot_product_attention(q, k, v, is_causal=causal)

            def vendor(q, k, v, tq, tk, tv, causal=causal):
                import torch

                torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=causal)

            flops = 4 * _B * _H * _S * _S * _D // (2 if causal else 1)
            name = f"{_LIB}.sdpa_{dtype}_B{_B}_H{_H}_S{_S}_D{_D}" + ("_causal" if causal else "")
            harness.bench_case(BenchCase(name=name, library=_LIB, setup=setup, rocarray=ours, vendor=vendor,
                                         flops=flops, memory_bound=False))


_register_benchmarks()
