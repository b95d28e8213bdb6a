"""The ``wgmma`` flash-attention forward (``ra_miopen_attention_fwd_wgmma`` in
``rocarray/_kernels/miopen/attention.hip``, planned by ``rocarray/miopen/_attention.py``) on the
CPU: what it takes and when the heuristic chooses it, its shared memory and ring depth, its tensor
maps, what ``ra.nn.scaled_dot_product_attention`` launches on launchfake's recording sm_90 device
(tensor maps are stand-ins) and when it falls back to ``mma``; the accumulator-to-A-fragment
mapping of P; and a NumPy model of the kernel's tile walk and softmax (block and warpgroup rows,
128-key tiles, the causal end, unmasked tiles scaled in the exponent, P rounded to 16 bits)
against the float64 reference. The kernel itself (wgmma, TMA) runs only on a GPU:
``tests/nn/test_nn_attention_wgmma_gpu.py``."""

import dataclasses
import math

import numpy as np
import pytest

import launchfake
from nn import nn_attention_reference as ref

import rocarray as ra
from rocarray._core import tensor_maps
from rocarray.miopen import _attention as A

fake_device = launchfake.fake_device  # the fixture
PROFILE = launchfake.PROFILE
H100_SHARED = 232448  # the opt-in shared memory a block may take on sm_90
SDPA = ra.nn.scaled_dot_product_attention


@pytest.fixture(autouse=True)
def _wgmma_chosen(monkeypatch):
    """The variant under test in the heuristic's choices (it is off by default until measured on
    a GPU); the way-back tests set it back."""
    monkeypatch.setattr(A, "WGMMA", True)


# --------------------------------------------------------------------------------------------
# what it takes, and the heuristic
# --------------------------------------------------------------------------------------------

def test_it_takes_16_bit_heads_of_multiples_of_8_up_to_128():
    for name in A.MMA_DTYPES:
        for e, ev in ((64, 64), (128, 128), (8, 8), (40, 72), (128, 64), (96, 80)):
            assert A.wgmma_applies(name, e, ev), (name, e, ev)
        for e, ev in ((256, 256), (136, 64), (100, 128), (64, 12), (1, 1)):
            assert not A.wgmma_applies(name, e, ev), (name, e, ev)
    assert not A.wgmma_applies("float32", 64, 64) and not A.wgmma_applies("float64", 64, 64)


def test_the_heuristic_takes_wgmma_on_compute_capability_9_0_only():
    sm86 = dataclasses.replace(PROFILE, arch="sm_86", compute_capability="8.6")
    sm100 = dataclasses.replace(PROFILE, arch="sm_100", compute_capability="10.0")
    amd = dataclasses.replace(PROFILE, is_hip=True, arch="gfx942", warp_size=64, compute_capability="9.4")
    for name in A.MMA_DTYPES:
        for d in (64, 128):
            assert A.choose_variant(name, d, d, PROFILE) == "wgmma"
            assert A.choose_variant(name, d, d, PROFILE, H100_SHARED) == "wgmma"
            assert A.choose_variant(name, d, d, PROFILE, H100_SHARED, masked=True) == "mma"
            assert A.choose_variant(name, d, d, sm86, 101376) == ("mma" if d == 64 else "portable")
            assert A.choose_variant(name, d, d, sm100) == "mma"
            assert A.choose_variant(name, d, d, amd) == "portable"
        assert A.choose_variant(name, 100, 64, PROFILE) == "mma"  # rows not 16 bytes: no tensor map
        assert A.choose_variant(name, 256, 64, PROFILE) == "portable"
        assert A.choose_variant(name, 128, 128, PROFILE, 150000) == "mma"  # no ring fits
    assert A.choose_variant("float32", 64, 64, PROFILE) == "portable"


def test_the_way_back_keeps_mma(monkeypatch):
    monkeypatch.setattr(A, "WGMMA", False)
    assert A.choose_variant("bfloat16", 128, 128, PROFILE, H100_SHARED) == "mma"


# --------------------------------------------------------------------------------------------
# shared memory, ring, tensor maps
# --------------------------------------------------------------------------------------------

def test_shared_memory_and_ring_depth():
    # D 128: Q 32 KiB, slots of K and V 64 KiB: 3 slots in H100's 227 KB, 2 in 170 KB; mbarriers:
    # Q full and empty, full and empty per slot
    assert A.wgmma_shared_bytes(128, 3) == 8 * 8 + 1024 + 32768 + 3 * 65536
    assert A.wgmma_shared_bytes(64, 2) == 8 * 6 + 1024 + 16384 + 2 * 32768
    assert A.wgmma_stages(128, H100_SHARED) == 3 and A.wgmma_stages(64, H100_SHARED) == 4
    assert A.wgmma_stages(128, 170000) == 2
    assert A.wgmma_stages(128, 150000) is None
    for d in A.WGMMA_HEAD_DIMS:
        assert A.wgmma_shared_bytes(d, A.wgmma_stages(d, H100_SHARED)) <= H100_SHARED


def test_tensor_map_geometry():
    z, h, hkv, L, S, e, ev = 2, 8, 2, 1000, 777, 40, 72
    g = A.wgmma_map_geometry(z, h, hkv, L, S, e, ev)
    assert g["q"] == ((e, L, z * h), (2 * e, 2 * e * L), (64, A.WGMMA_ROWS, 1))
    assert g["k"] == ((e, S, z * hkv), (2 * e, 2 * e * S), (64, A.WGMMA_KEYS, 1))
    assert g["v"] == ((ev, S, z * hkv), (2 * ev, 2 * ev * S), (64, 64, 1))
    for dims, strides, box in g.values():
        assert all(s % 16 == 0 for s in strides) and box[0] * 2 == 128 and max(box) <= 256


def test_the_kernels_are_registered():
    names = A.instantiations()
    for t in ("ra_half", "ra_bfloat16"):
        for d in (64, 128):
            for sched in (0, 1, 2):
                assert f"ra_miopen_attention_fwd_wgmma<{t}, {d}, {sched}>" in names


# --------------------------------------------------------------------------------------------
# launches (launchfake: nothing runs)
# --------------------------------------------------------------------------------------------

@pytest.fixture
def sm90(fake_device, monkeypatch):
    monkeypatch.setattr(A, "_shared_limit", lambda device_id: H100_SHARED)
    maps = []

    def stand_in(kind, address, geometry):
        maps.append((kind, address, geometry))
        return np.zeros(1, tensor_maps.TENSOR_MAP)

    monkeypatch.setattr(A, "_wgmma_map", stand_in)
    fake_device.maps = maps
    return fake_device


@pytest.mark.parametrize("d,causal,overlap,pingpong", [(64, False, True, False), (128, True, True, False),
                                                       (128, False, False, False), (128, True, True, True)])
def test_a_half_precision_call_launches_the_wgmma_kernel(sm90, monkeypatch, d, causal, overlap, pingpong):
    monkeypatch.setattr(A, "WGMMA_OVERLAP", overlap)
    monkeypatch.setattr(A, "WGMMA_PINGPONG", pingpong)
    sched = 2 if overlap and pingpong else int(overlap)
    q = sm90.array((2, 4, 300, d), "float16")
    k = sm90.array((2, 2, 500, d), "float16")
    SDPA(q, k, k, is_causal=causal, enable_gqa=True)
    (fwd,) = sm90.launches
    stages = A.wgmma_stages(d, H100_SHARED)
    assert fwd.name == f"ra_miopen_attention_fwd_wgmma<ra_half, {d}, {sched}>"
    assert fwd.grid == (2 * 4 * math.ceil(300 / A.WGMMA_ROWS), 1, 1)
    assert fwd.block == ((384 if overlap else 288), 1, 1)
    assert fwd.shared == A.wgmma_shared_bytes(d, stages)
    geom = fwd.args[5]
    assert int(geom["causal"][0]) == causal and int(geom["L"][0]) == 300 and int(geom["S"][0]) == 500
    assert int(geom["kind"][0]) == A.NO_MASK
    assert [int(a) for a in fwd.args[6:9]] == [4, 2, d] and fwd.args[-2] == stages
    assert fwd.args[-1] == 2 * 4 * math.ceil(300 / A.WGMMA_ROWS)  # units: fewer than the multiprocessors
    assert math.isclose(float(fwd.args[9]), 1 / math.sqrt(d))
    assert [(kind, address) for kind, address, _ in sm90.maps] == [("q", q.data.ptr), ("k", k.data.ptr),
                                                                    ("v", k.data.ptr)]
    assert sm90.maps[0][2] == A.wgmma_map_geometry(2, 4, 2, 300, 500, d, d)["q"]


@pytest.mark.parametrize("persistent", [True, False])
@pytest.mark.parametrize("causal", [False, True])
def test_the_persistent_grid(sm90, monkeypatch, persistent, causal):
    """160 units of 128 queries: one block per multiprocessor (132) taking them in turn, or one
    block per unit (the way back, and every causal call)."""
    monkeypatch.setattr(A, "WGMMA_PERSISTENT", persistent)
    q = sm90.array((2, 4, 20 * A.WGMMA_ROWS, 64), "float16")
    SDPA(q, q, q, is_causal=causal)
    (fwd,) = sm90.launches
    assert fwd.name.startswith("ra_miopen_attention_fwd_wgmma<")
    assert fwd.grid == ((132 if persistent and not causal else 160), 1, 1) and fwd.args[-1] == 160


def test_a_mask_keeps_the_mma_kernel(sm90):
    q = sm90.array((1, 2, 100, 64), "float16")
    SDPA(q, q, q, attn_mask=sm90.array((100, 100), "bool"))
    (fwd,) = sm90.launches
    assert fwd.name.startswith("ra_miopen_attention_fwd_mma<")


def test_a_refused_tensor_map_falls_back_to_mma(sm90, monkeypatch):
    def refused(kind, address, geometry):
        raise tensor_maps.TensorMapError("refused")

    monkeypatch.setattr(A, "_wgmma_map", refused)
    q = sm90.array((1, 2, 100, 128), "float16")
    SDPA(q, q, q)
    (fwd,) = sm90.launches
    assert fwd.name.startswith("ra_miopen_attention_fwd_mma<")


def test_an_unaligned_tensor_falls_back_to_mma(sm90):
    raw = sm90.array((1 * 2 * 100 * 64 + 8,), "float16")
    q = raw[8:].reshape(1, 2, 100, 64)  # 16-byte aligned
    k = raw[4:4 + 2 * 100 * 64].reshape(1, 2, 100, 64)  # 8-byte aligned
    A.attention_forward(q, k, q)
    (fwd,) = sm90.launches
    assert fwd.name.startswith("ra_miopen_attention_fwd_mma<")


def test_no_keys_fall_back_to_mma(sm90):
    q = sm90.array((1, 2, 3, 64), "float16")
    k = sm90.array((1, 2, 0, 64), "float16")
    A.attention_forward(q, k, k)
    (fwd,) = sm90.launches
    assert fwd.name.startswith("ra_miopen_attention_fwd_mma<") and not sm90.maps


def test_forcing_it_where_it_does_not_apply_is_a_value_error(sm90):
    q = sm90.array((1, 1, 4, 12), "float16")
    with pytest.raises(ValueError, match="wgmma"):
        A.attention_forward(q, q, q, variant="wgmma")
    q = sm90.array((1, 1, 4, 64), "float16")
    with pytest.raises(ValueError, match="wgmma"):
        A.attention_forward(q, q, q, mask=sm90.array((1, 1, 4, 4), "bool"), variant="wgmma")


# --------------------------------------------------------------------------------------------
# index math and a model of the kernel
# --------------------------------------------------------------------------------------------

def _accumulator(w, lane, reg):
    """(row, column) of accumulator register ``reg`` of warp ``w``, lane ``lane`` (gemm_wgmma.hip)."""
    j, c = divmod(reg, 4)
    return 16 * w + lane // 4 + 8 * (c // 2), 8 * j + 2 * (lane % 4) + c % 2


def _a_fragment(w, lane, reg, half):
    """(row, k) of element ``half`` of A-fragment register ``reg`` (ra_wgmma.cuh's register form)."""
    g, t = divmod(lane, 4)
    return 16 * w + g + 8 * (reg % 2), 2 * t + 8 * (reg // 2) + half


def test_p_goes_from_accumulators_to_a_fragments_in_place():
    # the kernel packs accumulators 8 kk + 2 r and 8 kk + 2 r + 1 into register r of k step kk
    for w in range(4):
        for lane in range(32):
            for kk in range(A.WGMMA_KEYS // 16):
                for r in range(4):
                    for half in range(2):
                        row, col = _accumulator(w, lane, 8 * kk + 2 * r + half)
                        frow, fk = _a_fragment(w, lane, r, half)
                        assert (row, col) == (frow, 16 * kk + fk)


def _round(x, dtype):
    return np.asarray(x, np.float32).astype(dtype).astype(np.float64)


def _model(q, k, v, causal, scale, dtype):
    """The kernel's walk in NumPy: blocks of 128 queries (heaviest first: order is irrelevant
    here), warpgroups of 64, 128-key tiles up to the causal end, base-2 online softmax with the
    unmasked-tile shortcut, P rounded to the data's type for P V; out and lse per query."""
    z, h, L, e = q.shape
    hkv, S, ev = k.shape[1], k.shape[2], v.shape[3]
    BM, BN, log2e = A.WGMMA_ROWS, A.WGMMA_KEYS, 1.4426950408889634
    sc2 = np.float32(scale * log2e)
    out = np.zeros((z, h, L, ev))
    lse = np.zeros((z, h, L))
    for zz in range(z):
        for hh in range(h):
            kv = hh // (h // hkv)
            for i0 in range(0, L, BM):
                end = min(S, i0 + BM) if causal else S
                for wg in range(2):
                    r_first = i0 + 64 * wg
                    rows = np.arange(r_first, r_first + 64)
                    qt = np.zeros((64, e))
                    ok_rows = rows < L
                    qt[ok_rows] = q[zz, hh, rows[ok_rows]]
                    m = np.full(64, -np.inf)
                    l = np.zeros(64)
                    acc = np.zeros((64, ev))
                    for j0 in range(0, end, BN):
                        keys = np.arange(j0, j0 + BN)
                        kt = np.zeros((BN, e))
                        vt = np.zeros((BN, ev))
                        kt[keys < S] = k[zz, kv, keys[keys < S]]
                        vt[keys < S] = v[zz, kv, keys[keys < S]]
                        s = (qt @ kt.T).astype(np.float32)
                        whole = sc2 > 0 and j0 + BN <= S and (not causal or j0 + BN - 1 <= r_first)
                        f = sc2 if whole else np.float32(1)
                        if not whole:
                            ok = (keys[None, :] < S) & ~(causal & (keys[None, :] > rows[:, None]))
                            s = np.where(ok, s * sc2, -np.inf).astype(np.float32)
                        m_new = np.maximum(m, s.max(axis=1) * f)
                        alpha = np.where(m_new == -np.inf, 1.0, np.exp2(m - m_new))
                        base = np.where(m_new == -np.inf, 0.0, m_new)
                        p = np.exp2(s * f - base[:, None])
                        l = l * alpha + p.sum(axis=1)
                        acc = acc * alpha[:, None] + _round(p, dtype) @ vt
                        m = m_new
                    for r in np.nonzero(ok_rows)[0]:
                        out[zz, hh, rows[r]] = acc[r] / l[r] if l[r] > 0 else 0.0
                        lse[zz, hh, rows[r]] = m[r] * math.log(2) + math.log(l[r]) if l[r] > 0 else -np.inf
    return out, lse


@pytest.mark.parametrize("shape,causal,scale", [
    ((1, 1, 1, 1, 1, 64, 64), False, None),
    ((2, 3, 3, 17, 29, 16, 24), True, None),
    ((1, 2, 1, 300, 140, 16, 16), True, None),     # more queries than keys, grouped heads
    ((1, 1, 1, 130, 300, 8, 8), False, -0.4),      # a negative scale masks every tile's way
], ids=str)
def test_a_model_of_the_kernel_matches_the_reference(shape, causal, scale):
    z, h, hkv, L, S, e, ev = shape
    rng = np.random.default_rng(7)
    dtype = np.float16
    q = rng.standard_normal((z, h, L, e)).astype(dtype).astype(np.float64)
    k = rng.standard_normal((z, hkv, S, e)).astype(dtype).astype(np.float64)
    v = rng.standard_normal((z, hkv, S, ev)).astype(dtype).astype(np.float64)
    sc = 1 / math.sqrt(e) if scale is None else scale
    got, got_lse = _model(q, k, v, causal, sc, dtype)
    want, want_lse = ref.forward(q, k, v, None, causal, sc)
    np.testing.assert_allclose(got, want, atol=4e-3 * max(1.0, np.abs(want).max()))
    np.testing.assert_allclose(got_lse, want_lse, rtol=1e-5, atol=1e-5)
