"""The gemm tile choice (heuristic, candidates, the tuner's timing) and its plan (``_gemm/plan.py``)."""

import contextlib

import numpy as np
import pytest

from conftest import assert_close, random_array, to_device, to_host, wide
from level3_host import GEMM_DTYPES as ALL, every_choice, run_gemm

from rocblas_fixtures import fresh_prepared_launches  # noqa: F401  (autouse)

from rocarray._core import launch as _launch, plans
from rocarray.rocblas._gemm import api as _api, plan as _plan, simt as _simt, tiles as _tiles

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_launch_runs_strided_batches(rng, dtype):
    # the batch grid dimension: A advances by stride_a, B is shared (stride 0), C has gaps
    m, n, k, batch = 13, 5, 7, 70000  # more matrices than one grid dimension takes
    sa, sc = m * k + 3, m * n + 5
    a = random_array(rng, sa * batch, dtype)
    b = random_array(rng, k * n, dtype)
    c = random_array(rng, sc * batch, dtype)
    dc = to_device(c)
    _plan.launch(dc.data.device_id, np.dtype(dtype), m, n, k, _api.scalar_arg(1.0, dtype),
                 to_device(a).data, m, to_device(b).data, k, _api.scalar_arg(0.5, dtype), dc.data, m, 0,
                 batch=batch, stride_a=sa, stride_b=0, stride_c=sc)
    got = to_host(dc)
    bm = wide(b).reshape(n, k).T
    for i in [0, 1, 65534, 65535, 65536, batch - 1]:
        am = wide(a[i * sa:i * sa + m * k]).reshape(k, m).T
        cm = wide(c[i * sc:i * sc + m * n]).reshape(n, m).T
        want = am @ bm + 0.5 * cm
        assert_close(wide(got[i * sc:i * sc + m * n]).reshape(n, m).T, want, dtype, k,
                     atol_scale=float(np.max(np.abs(am) @ np.abs(bm) + 0.5 * np.abs(cm))))
        np.testing.assert_array_equal(got[i * sc + m * n:(i + 1) * sc], c[i * sc + m * n:(i + 1) * sc])


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["NN", "NT", "TN", "TT", "CC"])
def test_every_tile_and_split_matches_numpy(rng, monkeypatch, trans):
    # each tile choice forced (the heuristic picks the large tiles only for large problems): sizes
    # below, at and across the 64 and 128 tiles and the 8/16-deep k tiles, padded leading dims
    for dtype, choice in list(every_choice()):
        monkeypatch.setattr(_plan, "choose", lambda *args, **kwargs: choice)
        monkeypatch.setattr(plans, "cache", plans.PlanCache())  # the calls of the previous choice planned theirs
        for m, n, k, extra in [(1, 1, 1, (0, 0, 0)), (7, 33, 129, (1, 2, 3)), (129, 200, 33, (0, 0, 0)),
                               (200, 129, 777, (3, 0, 1))]:
            run_gemm(rng, dtype, trans, m, n, k, extra)
        run_gemm(rng, dtype, trans, 65, 33, 20, beta=0, poison=True)


def test_prepared_launches_are_remembered_per_shape(monkeypatch):
    # callers of plan.launch (trsm, trmm, symm: hundreds of sub-matrix products) prepare a shape once
    prepared = []
    choice = _tiles.TileChoice(_tiles.TILES[np.dtype("float64")][0], 1)
    monkeypatch.setattr(_plan, "choose", lambda *args, **kwargs: choice)
    monkeypatch.setattr(_plan, "prepare", lambda *args: prepared.append(args) or (lambda *values: None))
    monkeypatch.setattr(_launch, "on_device", lambda device_id: contextlib.nullcontext())
    for _ in range(3):
        _plan.prepare_launch(0, "float64", 64, 32, 16, 1.0, 0, 64, 0, 16, 64, 0)
    assert len(prepared) == 1
    _plan.prepare_launch(0, "float64", 64, 32, 16, 1.0, 0, 64, 0, 16, 128, 0)  # another ldc
    _plan.prepare_launch(0, "float64", 64, 32, 16, 1.0, 0, 64, 0, 16, 64, _simt.TRANS_A)
    assert len(prepared) == 3


def test_heuristic_fills_the_device_then_splits_k():
    big, small = _tiles.tiles_for("float32", False)  # the register-staged tiles
    sms = 132
    assert _plan.heuristic("float32", 8192, 8192, 8192, sms) == (big, 1)
    assert _plan.heuristic("float32", 1000, 1000, 1000, sms) == (small, 1)  # 64 big tiles < 132
    # 256 x 256 x 65536: no tile fills a wave; the 4 big tiles split along k into 64 parts fill
    # the 264 slots of two blocks per multiprocessor (parts of at least MIN_SPLIT_K)
    assert _plan.heuristic("float32", 256, 256, 65536, sms) == (big, 64)
    assert _plan.heuristic("float32", 256, 256, 300, sms) == (small, 1)  # k too short to split
    assert _plan.heuristic("float32", 100, 100, 100, sms) == (small, 1)  # nothing fills: smallest
    # m = 64: 128-row tiles would be half padding, so the 64-row tile, in 2 parts
    assert _plan.heuristic("float32", 64, 8192, 8192, sms) == (small, 2)
    assert _plan.heuristic("float32", 32, 32, 32, sms, batch=100000) == (big, 1)  # batches fill
    assert _plan.heuristic("complex128", 8192, 8192, 8192, sms) == (_tiles.TILES[np.dtype("complex128")][0], 1)
    plans = _plan.candidates("float32", 256, 256, 65536, sms)
    assert {p.name for p in plans} >= {"128x128.s64", "64x64.s16", "64x64.s1"}
    assert len({p.name for p in plans}) == len(plans)
    for mma in (False, "cuda", "hip"):  # the tuning DB needs unique candidate names
        for dtype in _tiles.TILES:
            names = [p.name for p in _plan.candidates(dtype, 64, 8192, 8192, 132, mma)]
            assert len(set(names)) == len(names), (dtype, mma, names)
    # half octaves: (4096, 6144] and (6144, 8192] are two classes, and classes never decrease
    classes = [_plan.size_class(v) for v in range(1, 20000)]
    assert classes == sorted(classes) and _plan.size_class(1) == 0
    assert _plan.size_class(4097) == _plan.size_class(6144) != _plan.size_class(6145) == _plan.size_class(8192)
    assert _plan.size_class(8192) != _plan.size_class(8193)


def test_direct_tiles_only_where_copies_are_asynchronous():
    for mma in (False, "hip"):  # AMD and NVIDIA before sm_80: register-staged tiles only
        for dtype in _tiles.TILES:
            assert not any(getattr(t, "direct", False) for t in _tiles.tiles_for(dtype, mma))
    cuda = _tiles.tiles_for("float32", "cuda")
    assert cuda == _tiles.TILES[np.dtype("float32")] and cuda[0].direct
    sms = 132
    assert _plan.heuristic("float32", 8192, 8192, 8192, sms, mma="cuda") == (cuda[0], 1)
    assert _plan.heuristic("float32", 1000, 1000, 1000, sms, mma="cuda")[0].name == "64x64x16d"
    # few tiles, long k: the largest tile that covers the result as tightly as any, split into
    # as many parts as one wave holds (H200: 246 / 218 us against 330 / 272 for 64 x 64 tiles)
    assert _plan.heuristic("float32", 256, 256, 65536, sms, mma="cuda").name == "128x128x16d.s64"
    assert _plan.heuristic("float64", 256, 256, 65536, sms, mma="cuda").name == "mma128x128x16d3.s33"
    # m = 64: the 64 x 256 tile in 8 parts (259 us; 64 x 64 in 2 parts 333), float64's 64 x 64
    assert _plan.heuristic("float32", 64, 8192, 8192, sms, mma="cuda").name == "64x256x16d.s8"
    assert _plan.heuristic("float64", 64, 8192, 8192, sms, mma="cuda").name == "mma64x64x16d4t128.s2"
    assert _plan.coverage(64, 8192, _tiles.Tile(128, 128, 8, 8, 8)) == 0.5
    # the three-product path is the untuned choice where it runs: split inside the kernel for
    # products with a short side, the split pass for the others
    for m, n, k in [(1000, 1000, 1000), (256, 256, 65536), (2047, 2047, 512)]:
        assert _plan.heuristic("float32", m, n, k, sms, mma="cuda", x3=True).name == "x3f_128x128.s1"
    # with a side of at most 64, the short tile along it
    assert _plan.heuristic("float32", 64, 8192, 8192, sms, mma="cuda", x3=True).name == "x3f_64x128.s1"
    assert _plan.heuristic("float32", 8192, 64, 8192, sms, mma="cuda", x3=True).name == "x3f_128x64.s1"
    for m, n, k in [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192)]:
        assert _plan.heuristic("float32", m, n, k, sms, mma="cuda", x3=True).name == "x3_128x128.s1"


def test_float64_direct_tiles_follow_the_measured_wave_rule():
    # H200 (132 multiprocessors), every tile timed (docs/performance.md, 2026-12-03): the untuned
    # float64 tile on NVIDIA's direct matrix tiles
    sms = 132
    big, wide, small = _tiles.F64_BIG, _tiles.F64_WIDE, _tiles.F64_SMALL
    tiles = _tiles.tiles_for("float64", "cuda")
    assert {big, wide, small} <= set(tiles)
    assert _tiles.residency("float64", big) == _tiles.residency("float64", wide) == 1
    assert _tiles.residency("float64", small) == 2
    cases = {  # (m, n, k, batch): tile; the comment gives the times in us (chosen / the old choice)
        (2048, 2048, 2048, 1): big,      # 256 tiles, two full waves: 335 (64 x 64 361)
        (8192, 8192, 8192, 1): big,      # 31 waves and a split tail
        (2800, 2800, 2800, 1): big,      # 484 tiles: 3.7 of 4 waves
        (5000, 5000, 1000, 1): big,      # 12 waves and a split tail, 12500 k steps: 1123 (64 x 64 1393)
        (2200, 2200, 2200, 1): wide,     # 128 x 128: 2.45 of 3 waves; 128 x 64 4.8 of 5: 476 (524)
        (1024, 1024, 8192, 1): wide,     # one wave of 128 tiles, 8192 k steps
        (1000, 1000, 1000, 1): small,    # too short a run for one block a multiprocessor (tuned anyway)
        (1536, 1536, 1536, 1): small,    # 144 big tiles, a second wave of 12: 163 (198)
        (1700, 1700, 1700, 1): small,    # 229 (292)
        (960, 1056, 1000, 1): small,     # 136 wide tiles, just over a wave: 48.4 (74.3)
        (4096, 1024, 1024, 1): small,    # two waves of 1024 k steps: 192 (211)
        (2048, 2048, 256, 1): small,     # 65.9 (82.9)
        (768, 768, 768, 4): small,       # batched: 98.6 (152)
        (384, 384, 384, 16): small,      # 63.1 (100.3)
    }
    for (m, n, k, batch), tile in cases.items():
        assert _plan.direct_f64_tile(tiles, m, n, k, sms, batch) == tile, (m, n, k, batch)
        assert _plan.heuristic("float64", m, n, k, sms, batch, mma="cuda") == (tile, 1), (m, n, k, batch)
    # the 64 x 64 tiles leave multiprocessors idle: the coverage and split rule decides
    assert _plan.direct_f64_tile(tiles, 64, 8192, 8192, sms) is None
    assert _plan.direct_f64_tile(tiles, 640, 640, 640, sms) is None
    assert _plan.heuristic("float64", 640, 640, 640, sms, mma="cuda").name == "mma64x64x16d4t128.s2"
    # AMD and devices without float64 matrix instructions keep the rule of the other dtypes
    for mma in ("hip", False):
        assert _plan.direct_f64_tile(_tiles.tiles_for("float64", mma), 2048, 2048, 2048, sms) is None
    # 256 tiles on 132 slots take two waves; 400 take three and a split tail (a batch is not split)
    assert _plan.waves_taken(256, sms, 2048) == 2
    assert _plan.waves_taken(400, sms, 2500) == 3.5
    assert _plan.waves_taken(400, sms, 2500, batch=2) == 4
    assert _plan.waves_taken(100, sms, 2048) == 1


def test_split_k_fills_one_wave_and_candidates_cover_skinny_shapes():
    sms = 132
    t64 = _tiles.Tile(64, 64, 16, 4, 4)
    for m, n, k in [(256, 256, 65536), (64, 8192, 8192), (70, 65, 5000), (1000, 1000, 1000)]:
        for per in (1, 2):
            s = _tiles.split_count(m, n, k, t64, sms, per)
            blocks = _tiles.tiles_of(m, n, t64)
            assert s == 1 or blocks * s <= per * sms  # never a second, nearly empty wave
            assert s == 1 or k // s >= _tiles.MIN_SPLIT_K
    assert _tiles.split_count(64, 8192, 8192, t64, sms, 2) == 2  # 128 tiles: two parts fill 264 slots
    names = {p.name for p in _plan.candidates("float32", 64, 8192, 8192, sms, "cuda")}
    assert {"64x64x16d.s1", "64x64x16d.s2", "128x128x16d.s2", "128x128x16d.s4", "128x128.s1",
            "64x256x16d.s8"} <= names
    names = {p.name for p in _plan.candidates("float64", 256, 256, 65536, sms, "cuda")}
    assert {"mma64x64x16d4t128.s8", "mma64x64x16d4t128.s16", "mma128x128x16d3.s33", "mma128x128x16d3k16.s33",
            "64x64.s8"} <= names
    assert _tiles.residency("float32", t64) == 2 and _tiles.residency("float64", t64) == 1
    for mma in (False, "cuda", "hip"):  # the heuristic's plan is always a candidate (the DB's default)
        for dtype in _tiles.TILES:
            for m, n, k in [(1000, 1000, 1000), (4097, 4097, 4097), (64, 8192, 8192), (256, 256, 65536),
                            (8192, 8192, 8192), (70, 65, 5000), (3000, 20, 9000)]:
                names = [p.name for p in _plan.candidates(dtype, m, n, k, sms, mma)]
                assert _plan.heuristic(dtype, m, n, k, sms, mma=mma).name in names
                assert len(set(names)) == len(names)
    # 1000^3 (2e9 flops) is tuned: its tile and split are measured, not guessed
    assert 2 * 1000**3 >= _plan.TUNE_MIN_FLOPS


def test_plan_timing_warms_the_device_before_its_samples(monkeypatch):
    """A plan is run for TIME_WARM_SECONDS untimed before its three samples, each of which starts
    behind one untimed call; the median sample is returned. A fake device runs a call in 1 ms
    while cold (its first 10 calls) and in 0.25 ms after: a tuner that timed at once would see
    the cold time."""
    import types

    clock = {"calls": 0, "now": 0.0}

    def run(*args):
        clock["now"] += 1e-3 if clock["calls"] < 10 else 0.25e-3
        clock["calls"] += 1

    class Event:
        def record(self):
            self.at = clock["now"]

        def synchronize(self):
            pass

    cuda = types.SimpleNamespace(Event=Event, get_elapsed_time=lambda a, b: (b.at - a.at) * 1e3)
    fake_cupy = types.SimpleNamespace(cuda=cuda, empty=lambda n, dtype: types.SimpleNamespace(
        data=types.SimpleNamespace(ptr=1 << 20)))
    monkeypatch.setattr(_plan.backend, "cupy", lambda: fake_cupy)
    monkeypatch.setattr(_plan, "prepare", lambda *a: run)
    monkeypatch.setattr(_plan, "TIME_WARM_SECONDS", 0.02)
    t = _plan.time_choice(0, np.float32, None, 1000, 1000, 1000, np.float32(1), 1, 1000, 2, 1000, 0)
    assert t == pytest.approx(0.25e-3)
    # the first timed call (1 untimed + 1, the cold 1 ms), 20 warm-up calls (0.02 / 1e-3), then
    # three samples of TIME_CALLS_SMALL calls behind one untimed call each
    assert clock["calls"] == 2 + 20 + 3 * (1 + _plan.TIME_CALLS_SMALL)
    clock.update(calls=0, now=0.0)
    monkeypatch.setattr(_plan, "TIME_WARM_SECONDS", 10.0)   # 10^4 calls: capped
    _plan.time_choice(0, np.float32, None, 1000, 1000, 1000, np.float32(1), 1, 1000, 2, 1000, 0)
    assert clock["calls"] == 2 + _plan.TIME_WARM_CALLS_MAX + 3 * (1 + _plan.TIME_CALLS_SMALL)


def test_the_shipped_gemm_tuning_entries_are_keyed_by_the_sources_as_they_are():
    # An entry answers only while its key's digest matches the gemm sources as compiled (headers
    # pasted in): a change to any of them (or to a header) silently retires the shipped tuning.
    # After such a change, tune again on the GPU, or re-key once the kernels' code is shown to
    # be unchanged (SASS), and say which in docs/performance/rocblas.md.
    import json
    import pathlib

    from rocarray._core import tuning
    from rocarray.rocblas._gemm.plan import TUNED_SOURCES

    shipped = pathlib.Path(tuning.shipped_db_path("sm_90"))
    keys = [k for k in json.loads(shipped.read_text())["entries"] if k.startswith("rocblas.gemm|")]
    assert keys
    digest = tuning.sources_digest(TUNED_SOURCES)
    assert {k.rsplit("|src=", 1)[1] for k in keys} == {digest}
