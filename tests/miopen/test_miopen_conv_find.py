"""The convolution algorithm search on the CPU (launchfake's recording device, a stand-in
algorithm next to "direct", a stand-in timer): find modes, the find-db across a restart and a
corrupt file, ``algo=`` forcing, ``find_convolution``, and the host cost of a find-db hit."""

import time

import pytest

import miopen_conv_host as host
from launchfake import fake_device  # noqa: F401 (the fixture)

import rocarray as ra
from rocarray import miopen
from rocarray._core import plans, tuning
from rocarray.miopen import _conv_direct, _conv_find, _conv_registry


class _Other:
    """A stand-in algorithm that records its runs."""

    name = "other"
    fuses_epilogue = True
    sources = ()

    def __init__(self):
        self.runs = 0

    def applicable(self, problem):
        return True

    def run(self, problem, x, w, y, *, bias=None, activation=None):
        self.runs += 1


@pytest.fixture
def search(fake_device, monkeypatch, tmp_path):  # noqa: F811 (the imported fixture)
    """Two candidates (direct, other), a timer saying ``times``, an empty find-db; yields
    ``(device, other, measured names, times)``."""
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ROCARRAY_TUNE", raising=False)
    monkeypatch.delenv(_conv_find.ENV, raising=False)
    other = _Other()
    monkeypatch.setattr(_conv_registry, "applicable", lambda problem: [_conv_direct.ALGORITHMS[0], other])
    measured, times = [], {"direct": 2e-3, "other": 1e-3}

    def measure(problem, arrays):
        def timed(algorithm):
            measured.append(algorithm.name)
            return times[algorithm.name]
        return timed
    monkeypatch.setattr(_conv_find, "_measure", measure)
    yield fake_device, other, measured, times
    tuning.clear_cache()


def _call(dev, p, algo=None):
    x, w, y = (dev.array(s, p.dtype) for s in (p.x_shape(), p.w_shape(), p.y_shape()))
    miopen.convolution_forward(p, x, w, out=y, algo=algo)
    return x, w, y


P = host.problem("forward", 2, 4, 6, (9, 9), (3, 3), pad=1, dtype="float32")


def _restart():
    """What a new process sees: no memo, no plans (the find-db file stays)."""
    tuning.clear_cache()
    plans.cache.clear()


def test_fast_mode_never_times_and_takes_the_heuristic(search):
    dev, other, measured, _ = search
    assert ra.nn.find_mode() == "fast"
    _call(dev, P)
    assert measured == [] and other.runs == 0
    assert dev.names() == ["ra_miopen_conv_direct_fwd<float, false>"]


def test_normal_mode_times_once_and_the_find_db_survives_a_restart(search):
    dev, other, measured, _ = search
    with ra.nn.find_mode("normal"):
        _call(dev, P)
        _call(dev, P)
    assert sorted(measured) == ["direct", "other"] and other.runs == 2
    assert ra.nn.find_mode() == "fast"
    _restart()
    _call(dev, P)
    assert other.runs == 3 and len(measured) == 2  # the stored winner, untimed
    assert tuning.lookup(_conv_find.OP, P.key(), sources=_conv_find._sources([_conv_direct.ALGORITHMS[0]]))


def test_force_mode_times_again_once_per_process(search):
    dev, other, measured, times = search
    with ra.nn.find_mode("normal"):
        _call(dev, P)
    times["direct"] = 1e-4
    with ra.nn.find_mode("force"):
        _call(dev, P)
        _call(dev, P)
    assert len(measured) == 4
    runs = other.runs
    _call(dev, P)  # fast mode now reads the new winner
    assert other.runs == runs and dev.names()[-1].startswith("ra_miopen_conv_direct_fwd")


def test_a_corrupt_find_db_is_ignored_with_a_warning(search, tmp_path):
    dev, other, measured, _ = search
    with ra.nn.find_mode("normal"):
        _call(dev, P)
    (db,) = (tmp_path / "tune").glob("*.json")
    db.write_text("{not json")
    _restart()
    with pytest.warns(tuning.TuningDBWarning, match="corrupt"):
        _call(dev, P)
    assert dev.names()[-1].startswith("ra_miopen_conv_direct_fwd")  # the heuristic again


def test_algo_forces_one_and_names_the_others(search):
    dev, other, measured, _ = search
    with ra.nn.find_mode("normal"):
        _call(dev, P, algo="direct")
    assert measured == [] and other.runs == 0
    with pytest.raises(ValueError, match="'winograd'.*direct, other"):
        _call(dev, P, algo="winograd")


def test_the_environment_sets_the_mode(search, monkeypatch):
    monkeypatch.setenv(_conv_find.ENV, "force")
    assert ra.nn.find_mode() == "force"
    with pytest.warns(RuntimeWarning, match="ROCARRAY_FIND_MODE"):
        monkeypatch.setenv(_conv_find.ENV, "sometimes")
    assert ra.nn.find_mode() == "fast"
    with pytest.raises(ValueError, match="mode must be one of"):
        ra.nn.find_mode("always")


def test_a_set_mode_outlives_the_call_until_restored(search):
    token = ra.nn.find_mode("normal")
    try:
        assert ra.nn.find_mode() == "normal"
    finally:
        token.__exit__(None, None, None)
    assert ra.nn.find_mode() == "fast"


def test_find_convolution_times_every_algorithm_and_stores_the_winner(search, monkeypatch):
    dev, other, measured, _ = search
    monkeypatch.setattr(_conv_find, "_random", lambda shape, dtype: dev.array(shape, dtype))
    found = miopen.find_convolution(P)
    assert found == [("other", 1e-3), ("direct", 2e-3)]
    _restart()
    _call(dev, P)
    assert other.runs == 1
    assert miopen.conv_algorithms(P) == ["direct", "other"]
    with pytest.raises(TypeError, match="ConvProblem"):
        miopen.find_convolution("conv")


def test_a_find_db_hit_costs_at_most_20_microseconds_of_host_time(search):
    dev, other, measured, _ = search
    search[3]["direct"] = 1e-4  # direct wins: the hit runs a real (recorded) launch
    with ra.nn.find_mode("normal"):
        x, w, y = _call(dev, P)
    _restart()
    miopen.convolution_forward(P, x, w, out=y)  # the plan: built once
    best = float("inf")
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(200):
            miopen.convolution_forward(P, x, w, out=y)
        best = min(best, (time.perf_counter() - start) / 200)
    print(f"find-db hit: {best * 1e6:.1f} us per call")
    assert best <= 20e-6, f"{best * 1e6:.1f} us per call"
    assert measured == ["direct", "other"]


def test_the_heuristic_and_the_applicable_algorithms():
    # this branch's algorithms (others registered later may join the lists)
    big = host.problem("forward", 8, 64, 64, (32, 32), (3, 3), pad=1, dtype="float16", layout="NHWC")
    small = host.problem("forward", 1, 3, 4, (8, 8), (3, 3), dtype="float32")
    depthwise = host.problem("forward", 8, 64, 128, (32, 32), (3, 3), pad=1, groups=64, dtype="float32")
    ours = ("gemm", "depthwise", "direct")

    def names(p):
        return [n for n in miopen.conv_algorithms(p) if n in ours]

    assert names(big) == ["gemm", "direct"]
    assert names(depthwise) == ["gemm", "depthwise", "direct"]

    def pick(p):
        return _conv_find.heuristic(p, [a for a in _conv_registry.applicable(p) if a.name in ours]).name

    assert (pick(big), pick(small), pick(depthwise)) == ("gemm", "direct", "depthwise")
    # 16-bit weight gradients channels first would sum rounded chunks in the gemm: direct takes them
    bw = host.problem("backward_weights", 8, 64, 64, (32, 32), (3, 3), pad=1, dtype="float16")
    assert names(bw) == ["direct"]
    with pytest.raises(TypeError, match="ConvProblem"):
        miopen.conv_algorithms(None)
