"""The tuning DB (rocarray._core.tuning): modes, persistence, atomic writes, corrupt files. CPU only."""

import json
import sys
from dataclasses import dataclass

import numpy as np
import pytest

from rocarray._core import tuning
from rocarray._version import __version__

ARCH = "gfx942"


@dataclass(frozen=True)
class Variant:
    name: str
    items: int


VARIANTS = [Variant("items1", 1), Variant("items4", 4), Variant("items8", 8)]
TIMES = {"items1": 3e-3, "items4": 1e-3, "items8": 2e-3}


class Recorder:
    """A ``measure`` callback that returns fixed times and counts its calls."""

    def __init__(self, times=TIMES):
        self.times = dict(times)
        self.calls = []

    def __call__(self, candidate):
        name = tuning.candidate_name(candidate)
        self.calls.append(name)
        return self.times[name]


@pytest.fixture(autouse=True)
def isolated_db(tmp_path, monkeypatch):
    """Every test gets its own cache dir and an empty in-memory cache."""
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ROCARRAY_TUNE", raising=False)
    tuning.clear_cache()
    yield tmp_path
    tuning.clear_cache()


def choose(measure, key=(np.float32, "large"), candidates=VARIANTS, default="items1", **kw):
    return tuning.choose("prim.scan", key, candidates, measure, default, arch=ARCH, **kw)


def test_db_path_has_arch_and_version(isolated_db):
    path = tuning.db_path(ARCH)
    assert path == isolated_db / "tune" / ARCH / f"{__version__}.json"
    assert tuning.db_path("sm_90", "9.9").parts[-3:] == ("tune", "sm_90", "9.9.json")


def test_db_path_without_arch_asks_the_device(monkeypatch):
    monkeypatch.setattr(tuning, "_device_arch", lambda: "sm_90")
    assert tuning.db_path().parent.name == "sm_90"


def test_make_key_names_dtypes_and_nests_tuples():
    assert tuning.make_key("rocblas.dot", (np.float32, np.dtype("complex64"), (2, 3), "c")) == \
        "rocblas.dot|float32|complex64|(2,3)|c"
    assert tuning.make_key("op", 7) == "op|7"
    assert tuning.make_key("op", (np.int64(5),)) == "op|5"


def test_candidate_name_accepts_str_and_named_objects():
    assert tuning.candidate_name("a") == "a"
    assert tuning.candidate_name(Variant("b", 1)) == "b"
    with pytest.raises(TypeError, match="name"):
        tuning.candidate_name(3)


def test_mode_1_measures_once_and_returns_the_fastest_object(isolated_db):
    rec = Recorder()
    chosen = choose(rec)
    assert chosen is VARIANTS[1]
    assert sorted(rec.calls) == sorted(TIMES)
    assert choose(rec) is VARIANTS[1]  # in-memory hit: nothing measured again
    assert len(rec.calls) == len(TIMES)


def test_mode_0_returns_default_without_measuring_or_writing(monkeypatch, isolated_db):
    monkeypatch.setenv("ROCARRAY_TUNE", "0")
    rec = Recorder()
    assert choose(rec, default="items8") is VARIANTS[2]
    assert choose(rec, default=VARIANTS[0]) is VARIANTS[0]
    assert choose(rec, default=lambda: VARIANTS[2]) is VARIANTS[2]
    assert rec.calls == []
    assert not (isolated_db / "tune").exists()


def test_mode_0_ignores_a_stored_winner(monkeypatch):
    choose(Recorder())
    monkeypatch.setenv("ROCARRAY_TUNE", "0")
    assert choose(Recorder(), default="items8") is VARIANTS[2]


def test_bad_default_is_value_error():
    with pytest.raises(ValueError, match="default"):
        choose(Recorder(), default="nope")


def test_force_remeasures_once_per_process(monkeypatch):
    choose(Recorder())
    monkeypatch.setenv("ROCARRAY_TUNE", "force")
    rec = Recorder({"items1": 1e-4, "items4": 1e-3, "items8": 2e-3})
    assert choose(rec) is VARIANTS[0]
    assert choose(rec) is VARIANTS[0]
    assert len(rec.calls) == 3  # the second call is a hit on the forced result
    assert tuning.lookup("prim.scan", (np.float32, "large"), arch=ARCH)["choice"] == "items1"


def test_a_decision_is_remembered_without_the_file_until_the_cache_is_cleared(isolated_db):
    # repeated calls skip the path and file work (host time of small launches); clear_cache,
    # another cache dir or another mode forget the remembered decision
    first = tuning.state_token()
    assert choose(Recorder()) is VARIANTS[1]
    for f in isolated_db.rglob("*.json"):
        f.unlink()
    rec = Recorder({"items1": 1e-9, "items4": 1.0, "items8": 1.0})
    assert choose(rec) is VARIANTS[1] and rec.calls == []
    tuning.clear_cache()
    assert tuning.state_token() != first
    assert choose(rec) is VARIANTS[0] and sorted(rec.calls) == sorted(TIMES)


def test_state_token_follows_mode_and_cache_dir(monkeypatch, tmp_path):
    token = tuning.state_token()
    monkeypatch.setenv("ROCARRAY_TUNE", "force")
    assert tuning.state_token() != token
    monkeypatch.delenv("ROCARRAY_TUNE")
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path / "other"))
    assert tuning.state_token() != token


def test_winner_persists_across_a_cleared_cache():
    choose(Recorder())
    tuning.clear_cache()
    rec = Recorder({"items1": 1e-9, "items4": 1.0, "items8": 1.0})  # would change the answer
    assert choose(rec) is VARIANTS[1]
    assert rec.calls == []


def test_file_content_and_atomic_write_leaves_no_temp_files(isolated_db):
    choose(Recorder())
    choose(Recorder(), key=(np.float64, "small"))
    path = tuning.db_path(ARCH)
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
    data = json.loads(path.read_text())
    assert data["format"] == tuning.FORMAT and data["arch"] == ARCH and data["version"] == __version__
    entry = data["entries"]["prim.scan|float32|large"]
    assert entry["choice"] == "items4"
    assert entry["seconds"] == TIMES
    assert "prim.scan|float64|small" in data["entries"]


def test_write_failure_cleans_up_the_temp_file(isolated_db, monkeypatch):
    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(tuning.os, "replace", boom)
    with pytest.warns(tuning.TuningDBWarning, match="disk full"):
        assert choose(Recorder()) is VARIANTS[1]
    folder = tuning.db_path(ARCH).parent
    assert list(folder.iterdir()) == []
    assert choose(Recorder()) is VARIANTS[1]  # still remembered in memory


@pytest.mark.parametrize("content", ["{not json", "[]", '{"format": 99, "entries": {}}',
                                     '{"format": 1, "entries": {"k": 3}}'])
def test_corrupt_file_is_ignored_with_a_warning_and_replaced(content):
    path = tuning.db_path(ARCH)
    path.parent.mkdir(parents=True)
    path.write_text(content)
    rec = Recorder()
    with pytest.warns(tuning.TuningDBWarning, match="corrupt"):
        assert choose(rec) is VARIANTS[1]
    assert len(rec.calls) == 3
    assert json.loads(path.read_text())["entries"]["prim.scan|float32|large"]["choice"] == "items4"


def test_entries_from_another_process_are_merged_not_lost():
    choose(Recorder())
    path = tuning.db_path(ARCH)
    # another process adds a key after this one read the file
    data = json.loads(path.read_text())
    data["entries"]["other|key"] = {"choice": "x", "seconds": {"x": 1.0}, "tuned": "2026-01-01"}
    path.write_text(json.dumps(data))
    choose(Recorder(), key=(np.float64, "large"))
    entries = json.loads(path.read_text())["entries"]
    assert {"other|key", "prim.scan|float32|large", "prim.scan|float64|large"} <= set(entries)


def test_arch_and_version_have_separate_files():
    choose(Recorder())
    rec = Recorder()
    choose(rec, version="0.0.1")
    tuning.choose("prim.scan", (np.float32, "large"), VARIANTS, rec, "items1", arch="sm_90")
    assert len(rec.calls) == 6
    root = tuning.db_path(ARCH).parents[1]
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*.json")) == sorted(
        [f"{ARCH}/{__version__}.json", f"{ARCH}/0.0.1.json", f"sm_90/{__version__}.json"])


def test_stale_choice_not_among_candidates_is_retuned():
    choose(Recorder())
    fewer = [VARIANTS[0], VARIANTS[2]]
    rec = Recorder()
    assert choose(rec, candidates=fewer) is VARIANTS[2]
    assert sorted(rec.calls) == ["items1", "items8"]


def test_string_candidates():
    rec = Recorder()
    assert choose(rec, candidates=["items1", "items4", "items8"]) == "items4"


def test_failing_candidate_is_skipped_and_all_failing_raises():
    def measure(c):
        if c.name == "items4":
            raise RuntimeError("too many registers")
        return TIMES[c.name]

    with pytest.warns(tuning.TuningDBWarning, match="too many registers"):
        assert choose(measure) is VARIANTS[2]
    assert tuning.lookup("prim.scan", (np.float32, "large"), arch=ARCH)["seconds"]["items4"] is None

    def never(c):
        raise RuntimeError("no")

    with pytest.warns(tuning.TuningDBWarning), pytest.raises(RuntimeError, match="no"):
        choose(never, key="other")


def test_argument_errors():
    with pytest.raises(ValueError, match="no candidates"):
        choose(Recorder(), candidates=[])
    with pytest.raises(ValueError, match="not unique"):
        choose(Recorder(), candidates=[Variant("a", 1), Variant("a", 2)])


def test_single_candidate_needs_no_measurement(isolated_db):
    rec = Recorder()
    assert choose(rec, candidates=[VARIANTS[1]], default="items4") is VARIANTS[1]
    assert rec.calls == [] and not (isolated_db / "tune").exists()


def test_many_candidates_use_a_progress_bar_when_tqdm_is_present(monkeypatch):
    many = [Variant(f"v{i}", i) for i in range(tuning.PROGRESS_MIN_CANDIDATES)]
    seen = []

    class FakeTqdm:
        def __init__(self, iterable, **kw):
            seen.append(kw.get("desc"))
            self.iterable = iterable

        def __iter__(self):
            return iter(self.iterable)

    fake = type(sys)("tqdm.auto")
    fake.tqdm = FakeTqdm
    monkeypatch.setitem(sys.modules, "tqdm.auto", fake)
    assert choose(lambda c: 1.0 / (1 + c.items), candidates=many, default="v0") is many[-1]
    assert seen and "prim.scan" in seen[0]


def test_without_tqdm_tuning_still_works(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # import raises ImportError
    many = [Variant(f"v{i}", i) for i in range(tuning.PROGRESS_MIN_CANDIDATES)]
    assert choose(lambda c: float(c.items + 1), candidates=many, default="v0") is many[0]
