"""The offline compile check's shipped binaries (rocarray/_core/offline_shipped.py; NVRTC's for
sm_90, hipcc's for the AMD targets): well formed, used only where the key matches, and a changed
text compiles."""

import hashlib
import lzma

import pytest

from rocarray._core import compile as ra_compile
from rocarray._core import offline, offline_shipped, prebuild

SHIPPED = [t for t in offline.OFFLINE_TARGETS if t.arch in offline_shipped.ARCHS]


@pytest.mark.parametrize("arch", offline_shipped.ARCHS)
def test_the_shipped_objects_are_well_formed(arch):
    meta = offline_shipped.read_manifest(arch)
    assert meta is not None, f"no offline objects ship for {arch}: python -m rocarray prebuild --arch {arch}"
    assert ("nvrtc" if arch.startswith("sm_") else "hipcc") in meta["compiler"] and meta["entries"]
    files = {p.name for p in offline_shipped.folder(arch).iterdir() if p.name.endswith(".o.xz")}
    assert files == {e["file"] for e in meta["entries"].values()}, "objects and manifest disagree"
    for key, entry in meta["entries"].items():
        assert entry["file"] == f"{key}.o.xz"
        binary = lzma.decompress((offline_shipped.folder(arch) / entry["file"]).read_bytes())
        assert len(binary) == entry["size"] and hashlib.sha256(binary).hexdigest() == entry["sha256"], entry["source"]
        if arch.startswith("sm_"):  # NVRTC's lowered name of every name expression, as the matrix checks them
            assert set(entry.get("lowered", {})) == set(entry["names"]), entry["source"]


@pytest.fixture
def compiles(monkeypatch, tmp_path):
    """An empty offline cache, and the compiler runs of :func:`offline.compile_text` counted (none
    really run: each returns a stand-in object)."""
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path / "cache"))
    calls = []

    def run(label, target, text, names, opts):
        calls.append(label)
        return {}, b"stand-in object"
    monkeypatch.setattr(offline, "_run_compiler", run)
    return calls


@pytest.mark.parametrize("target", SHIPPED, ids=lambda t: t.arch)
def test_a_current_shipped_compile_answers_the_check_and_an_edited_text_compiles(target, compiles):
    why = offline.missing_compiler(target)
    if why:
        pytest.skip(why)
    offline.import_all_libraries()
    current = {line.rsplit(": ", 1)[-1] for line in prebuild.offline_problems(target.arch)}
    sources = [s for s in ra_compile.source_files() if s not in current]
    if not sources:
        flag = "--offline " if target.arch.startswith("sm_") else ""
        pytest.skip(f"no shipped {target.arch} object is current with this compiler (rebuild: python -m rocarray "
                    f"prebuild {flag}--arch {target.arch})")
    source = min(sources, key=lambda s: len(ra_compile.read_text(s)) * (1 + len(ra_compile.registered(s))))
    shipped = offline.compile_source(source, target, fast_compile=True)
    assert shipped.cached and not compiles and shipped.binary != b"stand-in object"
    edited = offline.compile_text(source, ra_compile.full_source(source) + "\n// edited\n", target,
                                  ra_compile.registered(source), fast_compile=True)
    assert not edited.cached and compiles == [source]
    enabled, offline_shipped.ENABLED = offline_shipped.ENABLED, False
    try:  # the way back: every pair compiles
        assert not offline.compile_source(source, target, fast_compile=True).cached and len(compiles) == 2
    finally:
        offline_shipped.ENABLED = enabled


@pytest.mark.parametrize("target", SHIPPED, ids=lambda t: t.arch)
def test_a_rebuild_of_the_changed_sources_keeps_the_current_objects(target, compiles, monkeypatch):
    why = offline.missing_compiler(target)
    if why:
        pytest.skip(why)
    offline.import_all_libraries()
    stale = {line.rsplit(": ", 1)[-1] for line in prebuild.offline_problems(target.arch)}
    current = sorted((s for s in ra_compile.source_files() if s not in stale),
                     key=lambda s: len(ra_compile.read_text(s)) * (1 + len(ra_compile.registered(s))))
    if len(current) < 2:
        pytest.skip(f"fewer than two shipped {target.arch} objects are current with this compiler")
    kept, edited = current[:2]
    full_source = ra_compile.full_source
    monkeypatch.setattr(ra_compile, "source_files", lambda: [kept, edited])
    monkeypatch.setattr(ra_compile, "full_source",
                        lambda s: full_source(s) + ("\n// edited\n" if s == edited else ""))
    written = {}
    monkeypatch.setattr(offline_shipped, "write",
                        lambda arch, compiler, results: written.update({r[1]: r[3] for r in results}) or 1)
    done = prebuild.build_offline(target.arch, 1, lambda line: None, changed_only=True)
    assert compiles == [edited] and done["modules"] == 2
    assert written[edited] == b"stand-in object"
    assert written[kept] == offline.compile_source(kept, target, fast_compile=True).binary != b"stand-in object"
