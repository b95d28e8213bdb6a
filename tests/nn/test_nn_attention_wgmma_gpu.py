"""The ``wgmma`` forward of ``rocarray.miopen.attention_forward`` (sm_90a warpgroup matrix
instructions fed by TMA) on the GPU against torch's SDPA in float64 on the same inputs rounded to
each 16-bit type: L and S of 1, odd and not multiples of the 128-row tiles, grouped heads, E != Ev,
causal and not, the output poisoned with NaN first, each schedule (``WGMMA_OVERLAP``,
``WGMMA_PINGPONG``), ring depth and grid (persistent blocks of several units, one unit a block);
that the heuristic chooses it on compute capability 9.0 and the way back
(``_attention.WGMMA = False``) and masks keep ``mma``; the backward fed by it."""

import numpy as np
import pytest

from conftest import to_device, to_host
from nn import nn_attention_reference as ref
from nn.nn_attention_gpu_data import DTYPES, TOL, close, inputs, np_dtype, torch_reference

import rocarray as ra
from rocarray._core import backend
from rocarray.miopen import _attention

pytestmark = pytest.mark.gpu

HALF = [d for d in DTYPES if d in _attention.MMA_DTYPES]


@pytest.fixture(autouse=True)
def _wgmma_chosen(monkeypatch):
    """The variant under test in the heuristic's choices (it is off by default until measured on
    a GPU); the way-back tests set it back."""
    monkeypatch.setattr(_attention, "WGMMA", True)

# (batch, H, Hkv, L, S, E, Ev)
SHAPES = [
    ((1,), 1, 1, 1, 1, 64, 64),
    ((2,), 3, 3, 17, 29, 64, 64),
    ((1,), 2, 2, 1000, 777, 128, 128),
    ((2,), 4, 4, 256, 256, 128, 128),
    ((2,), 8, 2, 300, 513, 128, 128),   # grouped queries: 4 query heads per key/value head
    ((1,), 2, 1, 129, 1000, 64, 64),    # grouped, L just past one block, S past several rings
    ((1,), 3, 3, 61, 200, 40, 72),      # head dimensions below their class, E != Ev
    ((1,), 2, 2, 700, 300, 128, 128),   # causal with more queries than keys
]


def _sm90():
    info = backend.device_info()
    if not _attention.wgmma_device(info):
        pytest.skip(f"the wgmma variant runs on compute capability 9.0 only (this device: {info.arch})")


def _run(dtype, shape, causal, rng, monkeypatch, scale=None):
    torch = pytest.importorskip("torch")
    dt = np_dtype(dtype)
    q, k, v = inputs(rng, dt, shape)
    cupy = backend.cupy()
    real_empty = cupy.empty

    def poisoned(shape_, dtype_=float, order="C"):
        x = real_empty(shape_, dtype_, order)
        x.view(np.uint8).fill(0xFF)  # NaN in float16, bfloat16 and float32: a value not written shows
        return x

    monkeypatch.setattr(cupy, "empty", poisoned)
    out, lse = _attention.attention_forward(*(to_device(x) for x in (q, k, v)), causal=causal, scale=scale,
                                            variant="wgmma")
    monkeypatch.setattr(cupy, "empty", real_empty)
    assert np.isfinite(to_host(out).astype(np.float64)).all() and np.isfinite(to_host(lse)).all()
    want = torch_reference(torch, q, k, v, None, causal, scale)
    close(out, want, TOL[dtype][0], "out")
    want_lse = ref.forward(q, k, v, None, causal, scale)[1]
    close(lse, want_lse, 2e-5 * max(1.0, np.abs(want_lse).max()), "lse")


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s[0])) + "-" + "-".join(map(str, s[1:])))
@pytest.mark.parametrize("causal", [False, True])
def test_wgmma_forward_matches_torch(dtype, shape, causal, rng, monkeypatch):
    _sm90()
    _run(dtype, shape, causal, rng, monkeypatch)


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("scale", [0.05, -0.3])
def test_wgmma_forward_other_scales(dtype, scale, rng, monkeypatch):
    _sm90()
    _run(dtype, ((1,), 2, 2, 333, 401, 128, 128), True, rng, monkeypatch, scale=scale)


@pytest.mark.parametrize("overlap,pingpong", [(False, False), (True, True)], ids=["sequential", "pingpong"])
@pytest.mark.parametrize("causal", [False, True])
def test_the_other_schedules(overlap, pingpong, causal, rng, monkeypatch):
    _sm90()
    monkeypatch.setattr(_attention, "WGMMA_OVERLAP", overlap)
    monkeypatch.setattr(_attention, "WGMMA_PINGPONG", pingpong)
    for shape in (SHAPES[0], SHAPES[2], SHAPES[4], SHAPES[7]):
        _run(HALF[-1], shape, causal, rng, monkeypatch)


@pytest.mark.parametrize("persistent", [True, False])
@pytest.mark.parametrize("causal", [False, True])
def test_blocks_that_take_several_units(persistent, causal, rng, monkeypatch):
    """288 units of 128 queries (more than twice the multiprocessors): without a causal mask each
    persistent block computes two or three in turn, the ring and the Q buffer carried from one to
    the next; the way back and causal calls take one block per unit."""
    _sm90()
    monkeypatch.setattr(_attention, "WGMMA_PERSISTENT", persistent)
    _run(HALF[0], ((3,), 8, 4, 1500, 700, 64, 64), causal, rng, monkeypatch)
    _run(HALF[-1], ((1,), 16, 16, 2200, 333, 128, 128), causal, rng, monkeypatch)


@pytest.mark.parametrize("limit", [170000, 232448])  # rings of 2 and 3 slots for D 128
def test_wgmma_ring_depths(limit, rng, monkeypatch):
    _sm90()
    monkeypatch.setattr(_attention, "_shared_limit", lambda device_id: limit)
    _run(HALF[-1], ((1,), 2, 2, 260, 1100, 128, 128), False, rng, monkeypatch)


def test_the_heuristic_chooses_wgmma_on_sm90(rng):
    _sm90()
    info = backend.device_info()
    limit = backend.shared_memory_limit(info.id)
    for dtype in HALF:
        for d in (64, 128):
            assert _attention.choose_variant(dtype, d, d, info, limit) == "wgmma"
            assert _attention.choose_variant(dtype, d, d, info, limit, masked=True) == "mma"


def test_the_backward_takes_the_wgmma_forward(rng):
    _sm90()
    torch = pytest.importorskip("torch")
    dtype = HALF[0]
    dt = np_dtype(dtype)
    shape = ((1,), 4, 2, 200, 300, 64, 64)
    q, k, v = inputs(rng, dt, shape)
    dout = rng.standard_normal(q.shape).astype(dt)
    qd, kd, vd = (to_device(x) for x in (q, k, v))
    out, lse = ra.nn.scaled_dot_product_attention(qd, kd, vd, is_causal=True, enable_gqa=True, return_lse=True)
    grads = ra.nn.scaled_dot_product_attention_backward(to_device(dout), qd, kd, vd, out, lse, is_causal=True,
                                                        enable_gqa=True)
    for name, got, want in zip(("dq", "dk", "dv"), grads, torch_reference(torch, q, k, v, None, True, None, dout)):
        close(got, want, TOL[dtype][1], name)


def test_the_way_back_keeps_mma(monkeypatch):
    _sm90()
    info = backend.device_info()
    monkeypatch.setattr(_attention, "WGMMA", False)
    assert _attention.choose_variant("bfloat16", 128, 128, info, backend.shared_memory_limit(info.id)) == "mma"
