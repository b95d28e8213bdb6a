"""``ra.nn.scaled_dot_product_attention`` and its backward on the CPU: argument errors with torch's
rules (fake device arrays, never launched), the launches a call plans (launchfake), and the façade
end to end through the kernel emulator (batch shapes, broadcast masks, grouped heads,
non-contiguous input) against the NumPy float64 reference."""

import math

import numpy as np
import pytest

from conftest import fake
from kernel_emu import emulated_device  # noqa: F401 (the fixture)
from launchfake import fake_device  # noqa: F401 (the fixture)
from nn import nn_attention_reference as ref

import rocarray as ra
from rocarray.miopen import _attention

SDPA = ra.nn.scaled_dot_product_attention
SDPA_BWD = ra.nn.scaled_dot_product_attention_backward


def _qkv(b=2, h=4, hkv=4, L=5, S=7, e=8, ev=8, dtype="float32"):
    return fake((b, h, L, e), dtype), fake((b, hkv, S, e), dtype), fake((b, hkv, S, ev), dtype)


def test_host_arrays_are_refused():
    q = np.zeros((1, 1, 2, 4), np.float32)
    with pytest.raises(TypeError, match="query"):
        SDPA(q, q, q)


def test_unsupported_and_mixed_dtypes():
    q, k, v = _qkv(dtype="int32")
    with pytest.raises(TypeError, match="int32"):
        SDPA(q, k, v)
    q, k, v = _qkv()
    with pytest.raises(TypeError, match="same dtype"):
        SDPA(q, fake(k.shape, "float64"), v)


@pytest.mark.parametrize("shapes", [
    ((2, 4, 5, 8), (2, 4, 7, 6), (2, 4, 7, 8)),     # E differs
    ((2, 4, 5, 8), (2, 4, 7, 8), (2, 4, 6, 8)),     # S differs
    ((2, 4, 5, 8), (3, 4, 7, 8), (3, 4, 7, 8)),     # batch differs
    ((2, 4, 5, 8), (4, 7, 8), (4, 7, 8)),           # ndim differs
    ((8,), (8,), (8,)),                             # too few dimensions
    ((2, 4, 5, 8), (2, 2, 7, 8), (2, 4, 7, 8)),     # key/value heads differ
])
def test_shapes_that_do_not_fit(shapes):
    q, k, v = (fake(s, "float32") for s in shapes)
    with pytest.raises(ValueError):
        SDPA(q, k, v)


def test_heads_need_enable_gqa_and_must_divide():
    q, k, v = _qkv(h=6, hkv=2)
    with pytest.raises(ValueError, match="enable_gqa"):
        SDPA(q, k, v)
    q, k, v = _qkv(h=6, hkv=4)
    with pytest.raises(ValueError, match="must divide"):
        SDPA(q, k, v, enable_gqa=True)


def test_head_dimension_limit():
    q, k, v = _qkv(e=8, ev=300)
    with pytest.raises(ValueError, match="256"):
        SDPA(q, k, v)


def test_dropout_is_not_implemented():
    q, k, v = _qkv()
    with pytest.raises(NotImplementedError, match="dropout_p"):
        SDPA(q, k, v, dropout_p=0.1)


def test_mask_rules():
    q, k, v = _qkv()
    with pytest.raises(ValueError, match="is_causal"):
        SDPA(q, k, v, attn_mask=fake((5, 7), "bool"), is_causal=True)
    with pytest.raises(TypeError, match="attn_mask"):
        SDPA(q, k, v, attn_mask=fake((5, 7), "float64"))
    with pytest.raises(TypeError, match="attn_mask"):
        SDPA(q, k, v, attn_mask=np.ones((5, 7), bool))
    for shape in [(5, 6), (3, 5, 7), (1, 2, 4, 5, 7)]:
        with pytest.raises(ValueError, match="broadcast"):
            SDPA(q, k, v, attn_mask=fake(shape, "bool"))


def test_scale_must_be_a_number():
    q, k, v = _qkv()
    with pytest.raises(TypeError, match="scale"):
        SDPA(q, k, v, scale="0.5")


def test_backward_checks_its_extra_tensors():
    q, k, v = _qkv(ev=6)
    out, lse = fake((2, 4, 5, 6), "float32"), fake((2, 4, 5), "float32")
    with pytest.raises(ValueError, match="grad_output"):
        SDPA_BWD(fake((2, 4, 5, 8), "float32"), q, k, v, out, lse)
    with pytest.raises(ValueError, match="lse"):
        SDPA_BWD(out, q, k, v, out, fake((2, 4, 6), "float32"))
    with pytest.raises(TypeError, match="lse"):
        SDPA_BWD(out, q, k, v, out, fake((2, 4, 5), "float16"))
    with pytest.raises(TypeError, match="output"):
        SDPA_BWD(out, q, k, v, fake((2, 4, 5, 6), "float64"), lse)


def test_tiles_fit_shared_memory_and_warps():
    for name in ("float16", "bfloat16", "float32", "float64"):
        for d in _attention.HEAD_DIMS:
            n = _attention.tile_rows(d, name)
            assert 2 * n * d * _attention.acc_itemsize(name) <= _attention.TILE_BYTES
            assert n >= 8 and 32 % (d // 16) == 0
    assert _attention.head_class(1, 64) == 64 and _attention.head_class(65, 3) == 128
    assert _attention.head_class(256, 200) == 256


def test_a_call_plans_one_launch_forward_and_three_backward(fake_device):
    b, h, hkv, L, S, e = 2, 6, 2, 37, 50, 96
    q = fake_device.array((b, h, L, e), "float32")
    k = fake_device.array((b, hkv, S, e), "float32")
    v = fake_device.array((b, hkv, S, e), "float32")
    out, lse = SDPA(q, k, v, is_causal=True, enable_gqa=True, return_lse=True)
    assert out.shape == (b, h, L, e) and lse.shape == (b, h, L) and lse.dtype == np.float32
    (fwd,) = fake_device.launches
    rows = _attention.block_rows(128)
    assert fwd.name == "ra_miopen_attention_fwd<float, float, 128, 32>"
    assert fwd.grid == (b * h * math.ceil(L / rows), 1, 1) and fwd.block == (_attention.THREADS, 1, 1)
    geom = fwd.args[6]
    assert geom["causal"] == 1 and geom["kind"] == 0 and geom["L"] == L and geom["S"] == S
    assert fwd.args[-1] == pytest.approx(1 / math.sqrt(e))
    SDPA(q, k, v, is_causal=True, enable_gqa=True)
    assert len(fake_device.launches) == 2  # the plan is reused
    fake_device.launches.clear()
    grads = SDPA_BWD(out, q, k, v, out, lse, is_causal=True, enable_gqa=True)
    assert [g.shape for g in grads] == [q.shape, k.shape, v.shape]
    names = [launch.name.split("<")[0] for launch in fake_device.launches]
    assert names == ["ra_miopen_attention_bwd_dot", "ra_miopen_attention_bwd_dq", "ra_miopen_attention_bwd_dkdv"]
    assert fake_device.launches[2].grid == (b * hkv * math.ceil(S / rows), 1, 1)


# ---- the façade end to end through the kernel emulator -------------------------------------------

SEED = 20261206


def _check(got, want, tol=1e-11):
    np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol)


def test_batch_shapes_key_padding_mask_and_backward(emulated_device):
    dev = emulated_device
    rng = np.random.default_rng(SEED)
    q = rng.standard_normal((2, 3, 2, 9, 16))
    k = rng.standard_normal((2, 3, 2, 11, 16))
    v = rng.standard_normal((2, 3, 2, 11, 12))
    mask = rng.random((2, 3, 1, 1, 11)) < 0.6
    mask[0, 1] = False  # a batch entry whose queries all see no key
    out, lse = SDPA(dev.array(q), dev.array(k), dev.array(v), attn_mask=dev.array(mask), scale=0.25,
                    return_lse=True)
    want, want_lse = ref.forward(q, k, v, mask, False, 0.25)
    _check(out, want)
    np.testing.assert_array_equal(np.asarray(out)[0, 1], 0.0)
    assert np.isneginf(np.asarray(lse)[0, 1]).all()
    dout = rng.standard_normal(want.shape)
    grads = SDPA_BWD(dev.array(dout), dev.array(q), dev.array(k), dev.array(v), out, lse, attn_mask=dev.array(mask),
                     scale=0.25)
    for got, w in zip(grads, ref.backward(dout, q, k, v, mask, False, 0.25)):
        _check(got, w)


def test_three_dimensional_gqa_with_float_mask_and_strided_query(emulated_device):
    dev = emulated_device
    rng = np.random.default_rng(SEED + 1)
    q = rng.standard_normal((4, 13, 20))[:, ::2, ::2]  # (4, 7, 10), not contiguous
    k = rng.standard_normal((2, 5, 10))
    v = rng.standard_normal((2, 5, 3))
    mask = rng.standard_normal((7, 5))
    out = SDPA(dev.array(q), dev.array(k), dev.array(v), attn_mask=dev.array(mask), enable_gqa=True)
    _check(out, ref.forward(q, k, v, mask)[0])


def test_two_dimensional_causal_with_more_queries_than_keys(emulated_device):
    dev = emulated_device
    rng = np.random.default_rng(SEED + 2)
    q, k, v = rng.standard_normal((9, 4)), rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    out, lse = SDPA(dev.array(q), dev.array(k), dev.array(v), is_causal=True, return_lse=True)
    want, want_lse = ref.forward(q, k, v, causal=True)
    _check(out, want)
    _check(lse, want_lse)
    assert out.shape == (9, 4) and lse.shape == (9,)


def test_the_heuristic_takes_the_matrix_units_where_they_exist(monkeypatch):
    import dataclasses

    from launchfake import PROFILE

    assert _attention.choose_variant("float16", 128, 64, PROFILE) == ("wgmma" if _attention.WGMMA else "mma")
    monkeypatch.setattr(_attention, "WGMMA", True)

    amd = dataclasses.replace(PROFILE, is_hip=True, arch="gfx942", warp_size=64)
    turing = dataclasses.replace(PROFILE, arch="sm_75")
    for name in ("float16", "bfloat16"):
        assert _attention.choose_variant(name, 128, 64, PROFILE) == "wgmma"
        assert _attention.choose_variant(name, 128, 64, PROFILE, masked=True) == "mma"
        assert _attention.choose_variant(name, 256, 64, PROFILE) == "portable"
        assert _attention.choose_variant(name, 64, 64, amd) == "portable"
        assert _attention.choose_variant(name, 64, 64, turing) == "portable"
    for name in ("float32", "float64"):
        assert _attention.choose_variant(name, 64, 64, PROFILE) == "portable"
    # a block with the shallowest ring must fit the shared memory a block may take (99 KB on sm_86)
    sm86 = dataclasses.replace(PROFILE, arch="sm_86")
    assert _attention.choose_variant("float16", 128, 128, sm86, 101376) == "portable"
    assert _attention.choose_variant("float16", 64, 64, sm86, 101376) == "mma"
    assert _attention.choose_variant("float16", 128, 128, PROFILE, 232448) == "wgmma"
    assert _attention.choose_variant("float16", 128, 128, PROFILE, 232448, masked=True) == "mma"


def test_the_ring_depth_fits_two_blocks_where_it_can():
    # sm_90 (227 KB a block): two blocks of 4 (D 64) or 2 (D 128) stages; sm_80 (163 KB): one of 3
    assert _attention.mma_stages(64, 232448) == 4 and _attention.mma_stages(128, 232448) == 2
    assert _attention.mma_stages(128, 166912) == 3
    for d in (64, 128):
        assert 2 * _attention.mma_shared_bytes(d, _attention.mma_stages(d, 232448)) <= 232448
        assert _attention.mma_stages(d, 1024) == min(_attention.MMA_STAGES)


@pytest.mark.parametrize("d", [64, 128])
def test_a_half_precision_call_on_sm90_launches_the_mma_kernel(fake_device, monkeypatch, d):
    monkeypatch.setattr(_attention, "_shared_limit", lambda device_id: 232448)  # H100's opt-in maximum
    monkeypatch.setattr(_attention, "WGMMA", False)  # the way back
    q = fake_device.array((1, 2, 300, d), "float16")
    SDPA(q, q, q)
    (fwd,) = fake_device.launches
    stages = _attention.mma_stages(d, 232448)
    assert fwd.name == f"ra_miopen_attention_fwd_mma<ra_half, {d}, {_attention.MMA_GROUP_TILES}>"
    assert fwd.grid == (2 * math.ceil(300 / _attention.MMA_ROWS), 1, 1) and fwd.block == (_attention.MMA_THREADS, 1, 1)
    assert fwd.args[-2:] == (1, stages)  # 16-byte rows, the ring's depth
    assert fwd.shared == _attention.mma_shared_bytes(d, stages)
