"""The documentation builds with zero warnings (Sphinx ``-W``: every warning is an error), and every
public function's docstring passes numpydoc's structural checks.

The whole site is built once per test session (:func:`whole_docs`: reading every page and
docstring is most of a build's time); the published-asv-report case builds the real ``conf.py``
and ``benchmarks.rst`` in a small project of their own (:func:`_build_benchmarks_page`)."""

import importlib.util
import json
import inspect
import os
import re
import subprocess
import sys

import pytest

import rocarray as ra

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NAMESPACES = {"rocarray": ra, "rocarray.fft": ra.fft, "rocarray.linalg": ra.linalg, "rocarray.prim": ra.prim,
              "rocarray.rocblas": ra.rocblas, "rocarray.rocfft": ra.rocfft,
              "rocarray.distributed": ra.distributed, "rocarray.distributed.fft": ra.distributed.fft}
#: numpydoc's checks of structure (what a reader relies on): a docstring, the parameters documented
#: in order with their types, no parameter that does not exist, a summary line that ends in a
#: period. (Style checks such as See Also and Examples sections are not enforced.)
STRUCTURAL = ("GL08", "PR01", "PR02", "PR03", "PR04", "PR06", "PR10", "SS01", "SS03")


def _have(*modules):
    return all(importlib.util.find_spec(m) is not None for m in modules)


DOCS_TOOLS = _have("sphinx", "numpydoc", "myst_parser")
NO_DOCS_TOOLS = "the docs tools are not installed (pip install -e \".[test]\")"


def _sphinx(source, out, env=None):
    """A fresh (``-E``) HTML build of ``source`` into ``out`` that fails on any warning."""
    return subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-E", "-b", "html",
                           str(source), str(out)], capture_output=True, text=True, env=env)


@pytest.fixture(scope="session")
def whole_docs(tmp_path_factory):
    """``(process, html folder)`` of one build of the whole site, as committed (docs/_asv included)."""
    out = tmp_path_factory.mktemp("docs") / "html"
    return _sphinx(os.path.join(REPO, "docs"), out), out


@pytest.mark.skipif(not DOCS_TOOLS, reason=NO_DOCS_TOOLS)
def test_the_docs_build_without_a_warning(whole_docs):
    proc, out = whole_docs
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    if os.path.isfile(os.path.join(REPO, "docs", "_asv", "asv", "index.html")):  # the committed report is linked
        assert (out / "asv" / "index.html").is_file()
        assert 'href="asv/index.html"' in (out / "benchmarks.html").read_text()


def _public_functions():
    seen = set()
    for prefix, namespace in NAMESPACES.items():
        for name in getattr(namespace, "__all__", ()):
            obj = getattr(namespace, name)
            module = getattr(obj, "__module__", "") or ""
            if not callable(obj) or inspect.ismodule(obj) or not module.startswith("rocarray"):
                continue
            qualname = f"{module}.{obj.__qualname__}"
            if qualname not in seen:
                seen.add(qualname)
                yield qualname


@pytest.mark.skipif(not _have("numpydoc"), reason="numpydoc is not installed (pip install -e \".[test]\")")
def test_every_public_docstring_passes_numpydocs_structural_checks():
    from numpydoc.validate import validate

    problems = []
    for qualname in _public_functions():
        for code, message in validate(qualname)["errors"]:
            if code in STRUCTURAL:
                problems.append(f"{qualname}: {code} {message}")
    assert not problems, "\n".join(problems)


def _build_benchmarks_page(tmp_path, env):
    """The real ``conf.py`` and ``benchmarks.rst`` built as a project of their own (an index that
    lists the page and a stand-in for each page it links to), so that a configuration's facts
    are rendered without reading the whole site again."""
    source = tmp_path / "src"
    source.mkdir()
    real_conf = os.path.join(REPO, "docs", "conf.py")
    # the real configuration, run as itself (its __file__ names docs/, as in the whole build)
    (source / "conf.py").write_text(f"__file__ = {real_conf!r}\n"
                                    f"exec(compile(open(__file__, encoding='utf-8').read(), __file__, 'exec'))\n")
    page = open(os.path.join(REPO, "docs", "benchmarks.rst"), encoding="utf-8").read()
    (source / "benchmarks.rst").write_text(page)
    linked = sorted(set(re.findall(r":doc:`([^`<>]+)`", page)))
    (source / "index.rst").write_text("Index\n=====\n\n.. toctree::\n\n" +
                                      "".join(f"   {name}\n" for name in ["benchmarks", *linked]))
    for name in linked:
        (source / f"{name}.rst").write_text(f"{name}\n{'=' * len(name)}\n")
    out = tmp_path / "html"
    return _sphinx(source, out, env), out


@pytest.mark.skipif(not DOCS_TOOLS, reason=NO_DOCS_TOOLS)
def test_a_published_asv_report_is_linked_without_a_warning(tmp_path):
    # scripts/asv_gpu.sh's docs_asv folder (here a stand-in, with markup characters in its facts)
    report = tmp_path / "docs_asv" / "asv"
    report.mkdir(parents=True)
    (report / "index.html").write_text("<html><body>asv</body></html>\n")
    run = {"source": "a copy *without* .git (set ASV_COMMIT_TO|name it)", "commit": "0123456789abcdef0123",
           "machine": "NVIDIA_H100_80GB_HBM3", "date": "2026-12-05 21:00 UTC", "selection": "headline",
           "measured": 24}
    (report / "rocarray-run.json").write_text(json.dumps(run))
    env = dict(os.environ, ROCARRAY_DOCS_ASV=str(tmp_path / "docs_asv"))
    proc, out = _build_benchmarks_page(tmp_path, env)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert (out / "asv" / "index.html").read_text() == "<html><body>asv</body></html>\n"
    page = (out / "benchmarks.html").read_text()
    assert 'href="asv/index.html"' in page and "0123456789ab" in page and "NVIDIA_H100_80GB_HBM3" in page
    assert "a copy *without* .git (set ASV_COMMIT_TO|name it)" in page and "has no published asv run" not in page
