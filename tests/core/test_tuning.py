"""The tuning DB (rocarray._core.tuning): modes (the DB by default, tuning only when asked),
persistence, content-hashed keys, the shipped DB, export/import, atomic writes, corrupt files. CPU
only."""

import json
import sys
from dataclasses import dataclass

import numpy as np
import pytest

from rocarray._core import plans, tuning

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
    """Every test gets its own cache dir, an empty in-memory cache and tuning asked for
    (``ROCARRAY_TUNE=1``); the tests of the default mode delete it."""
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("ROCARRAY_TUNE", "1")
    monkeypatch.setattr(tuning, "shipped_db_path", lambda arch: tmp_path / "shipped" / f"{arch}.json")
    tuning.clear_cache()
    yield tmp_path
    tuning.clear_cache()


def choose(measure, key=(np.float32, "large"), candidates=VARIANTS, default="items1", **kw):
    return tuning.choose("prim.scan", key, candidates, measure, default, arch=ARCH, **kw)


def test_db_path_is_one_file_per_arch(isolated_db):
    assert tuning.db_path(ARCH) == isolated_db / "tune" / f"{ARCH}.json"
    assert tuning.db_path("sm_90").parts[-2:] == ("tune", "sm_90.json")


def test_db_path_without_arch_asks_the_device(monkeypatch):
    monkeypatch.setattr(tuning, "_device_arch", lambda: "sm_90")
    assert tuning.db_path().name == "sm_90.json"


def test_by_default_nothing_is_timed_the_db_answers_else_the_heuristic(monkeypatch, isolated_db):
    monkeypatch.delenv("ROCARRAY_TUNE")
    rec = Recorder()
    assert tuning.mode() == "db"
    assert choose(rec, default="items8") is VARIANTS[2] and rec.calls == []
    assert not (isolated_db / "tune").exists()
    monkeypatch.setenv("ROCARRAY_TUNE", "1")
    assert choose(rec) is VARIANTS[1] and len(rec.calls) == 3            # tuned when asked
    monkeypatch.delenv("ROCARRAY_TUNE")
    assert choose(Recorder(), default="items8") is VARIANTS[1]           # then the DB answers
    assert choose(rec, key=(np.float64, "new"), default="items1") is VARIANTS[0] and len(rec.calls) == 3


def test_tune_context_tunes_the_calls_inside_it_only(monkeypatch):
    monkeypatch.delenv("ROCARRAY_TUNE")
    rec = Recorder()
    plans.cache.put(("test.plan", 1), "old plan")
    with tuning.tune():
        assert tuning.mode() == "1" and plans.cache.get(("test.plan", 1)) is None   # plans chosen again
        assert choose(rec) is VARIANTS[1] and len(rec.calls) == 3
        with tuning.tune(force=True):
            assert tuning.mode() == "force"
        assert tuning.mode() == "1"
    assert tuning.mode() == "db"
    assert choose(rec, key="unseen") is VARIANTS[0] and len(rec.calls) == 3


def test_the_tune_context_is_per_thread(monkeypatch):
    import threading

    monkeypatch.delenv("ROCARRAY_TUNE")
    seen = []
    with tuning.tune():
        worker = threading.Thread(target=lambda: seen.append(tuning.mode()))
        worker.start()
        worker.join()
    assert seen == ["db"]


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


def test_state_token_follows_mode_and_cache_dir(monkeypatch, tmp_path):  # (through config.refresh)
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
    assert data["format"] == tuning.FORMAT == 2 and data["arch"] == ARCH
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
    assert [p for p in folder.iterdir() if p.suffix == ".tmp"] == []
    assert choose(Recorder()) is VARIANTS[1]  # still remembered in memory


@pytest.mark.parametrize("content", ["{not json", "[]", '{"format": 99, "entries": {}}',
                                     '{"format": 2, "entries": {"k": 3}}', '{"format": 1, "entries": {}}'])
def test_corrupt_file_is_ignored_with_a_warning_and_replaced(content):
    path = tuning.db_path(ARCH)
    path.parent.mkdir(parents=True, exist_ok=True)
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


def test_each_arch_has_its_own_file():
    choose(Recorder())
    rec = Recorder()
    tuning.choose("prim.scan", (np.float32, "large"), VARIANTS, rec, "items1", arch="sm_90")
    assert len(rec.calls) == 3
    root = tuning.db_path(ARCH).parent
    assert sorted(p.name for p in root.glob("*.json")) == sorted([f"{ARCH}.json", "sm_90.json"])


def test_an_edited_kernel_drops_only_its_own_entries(monkeypatch):
    from rocarray._core import compile as _compile

    texts = {"lib/a.hip": "kernel a v1", "lib/b.hip": "kernel b v1"}
    monkeypatch.setattr(_compile, "full_source", lambda source: texts[source])
    monkeypatch.setattr(tuning, "_source_digests", {})
    rec = Recorder()
    choose(rec, sources=("lib/a.hip",))
    choose(rec, key="b", sources=("lib/b.hip",))
    assert len(rec.calls) == 6
    keys = json.loads(tuning.db_path(ARCH).read_text())["entries"]
    assert all("|src=" in k for k in keys)
    texts["lib/a.hip"] = "kernel a v2"                     # a's kernel changes in a new version
    monkeypatch.setattr(tuning, "_source_digests", {})
    tuning.clear_cache()
    choose(rec, key="b", sources=("lib/b.hip",))
    assert len(rec.calls) == 6                             # b's entry still holds
    choose(rec, sources=("lib/a.hip",))
    assert len(rec.calls) == 9                             # a's is tuned again


def test_the_shipped_db_answers_where_the_users_has_no_entry(monkeypatch, isolated_db):
    monkeypatch.delenv("ROCARRAY_TUNE")
    shipped = isolated_db / "shipped" / f"{ARCH}.json"
    shipped.parent.mkdir()
    shipped.write_text(json.dumps({"format": 2, "arch": ARCH, "entries": {
        "prim.scan|float32|large": {"choice": "items8", "seconds": {}, "tuned": "x"}}}))
    assert choose(Recorder()) is VARIANTS[2]
    assert tuning.lookup("prim.scan", (np.float32, "large"), arch=ARCH)["choice"] == "items8"
    monkeypatch.setenv("ROCARRAY_TUNE", "force")
    assert choose(Recorder()) is VARIANTS[1]               # the user's own tuning wins from then on
    monkeypatch.delenv("ROCARRAY_TUNE")
    assert choose(Recorder()) is VARIANTS[1]


def test_export_and_import_move_entries_between_machines(isolated_db, tmp_path, monkeypatch):
    choose(Recorder())
    exported = tmp_path / "h200.json"
    assert tuning.export_db(exported, arch=ARCH) == 1
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path / "elsewhere"))   # another machine
    monkeypatch.delenv("ROCARRAY_TUNE")
    assert choose(Recorder(), default="items1") is VARIANTS[0]
    assert tuning.import_db(exported) == (ARCH, 1)
    assert choose(Recorder(), default="items1") is VARIANTS[1]
    bad = tmp_path / "bad.json"
    for content in ("{", '{"format": 2, "entries": {}}', '{"format": 1, "arch": "x", "entries": {"k": {}}}',
                    '{"format": 2, "arch": "../x", "entries": {}}'):
        bad.write_text(content)
        with pytest.raises(ValueError):
            tuning.import_db(bad)


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


def test_deterministic_mode_takes_the_heuristic_over_every_db_and_tuning(monkeypatch, isolated_db):
    from rocarray._core import config

    monkeypatch.delenv("ROCARRAY_TUNE")
    shipped = isolated_db / "shipped" / f"{ARCH}.json"
    shipped.parent.mkdir()
    shipped.write_text(json.dumps({"format": 2, "arch": ARCH, "entries": {
        "prim.scan|float32|large": {"choice": "items8", "seconds": {}, "tuned": "x"}}}))
    assert choose(Recorder()) is VARIANTS[2]                # the shipped DB answers
    generation = config.generation()
    with config.deterministic(True):
        assert config.generation() > generation             # every plan dropped
        assert tuning.mode() == "0"
        rec = Recorder()
        assert choose(rec) is VARIANTS[0]                   # the heuristic: no DB
        with tuning.tune():
            assert choose(rec) is VARIANTS[0] and rec.calls == []   # nor measurements
    assert choose(Recorder()) is VARIANTS[2]
    monkeypatch.setenv("ROCARRAY_DETERMINISTIC", "1")
    assert config.is_deterministic() and choose(Recorder()) is VARIANTS[0]
    with config.deterministic(False):                       # the setting wins over the environment
        assert choose(Recorder()) is VARIANTS[2]
    with pytest.raises(TypeError, match="True or False"):
        config.deterministic(1)
