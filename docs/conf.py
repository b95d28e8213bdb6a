"""Sphinx configuration for rocarray's documentation (Sphinx + numpydoc).

Build from the repository root with ``pip install -e .[docs]`` then
``sphinx-build -b html docs docs/_build/html``. CuPy is mocked, so the docs build on a machine
without a GPU or without CuPy.
"""

import json
import os
import sys

sys.path.insert(0, os.path.abspath(".."))

project = "rocarray"
author = "the rocarray developers"
copyright = "2026, the rocarray developers"

try:
    from rocarray._version import __version__ as release
except Exception:  # pragma: no cover - the docs still build from a bare checkout
    release = "unknown"
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",  # docs/performance/*.md (Markdown) are included by performance.rst
]

autodoc_mock_imports = ["cupy", "cupy_backends", "cupyx"]
autosummary_generate = False  # pages list autofunction entries themselves: no generated stubs
autodoc_default_options = {"members": True, "undoc-members": False}

numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
# performance/*.md are pulled into performance.rst, not pages of their own.
exclude_patterns = ["_build", "performance/*.md", "**.ipynb_checkpoints"]
templates_path = []
html_theme = "alabaster"
html_static_path = []
html_title = f"rocarray {release}"

# The published asv report (scripts/asv_gpu.sh leaves it as DEST/docs_asv; copied to docs/_asv, or
# named by ROCARRAY_DOCS_ASV): _asv/asv/ goes to the built site as asv/, and benchmarks.rst says
# which run it is. Without it the page says how to make one.
_asv_root = os.environ.get("ROCARRAY_DOCS_ASV") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "_asv")
_asv_run = {}
_asv_published = os.path.isfile(os.path.join(_asv_root, "asv", "index.html"))
if _asv_published:
    html_extra_path = [_asv_root]
    try:
        with open(os.path.join(_asv_root, "asv", "rocarray-run.json"), encoding="utf-8") as _f:
            _asv_run = json.load(_f)
    except (OSError, ValueError):
        _asv_run = {}
exclude_patterns.append("_asv")


def _asv_fact(key, default="not recorded"):
    """A fact of the run's rocarray-run.json as reStructuredText (markup characters escaped)."""
    value = " ".join(str(_asv_run.get(key, default)).split()) or default
    return "".join("\\" + c if c in "\\*`_|[]<>:" else c for c in value)


rst_epilog = "\n".join([
    f".. |asv_source| replace:: {_asv_fact('source')}",
    f".. |asv_commit| replace:: {_asv_fact('commit')[:12]}",
    f".. |asv_machine| replace:: {_asv_fact('machine')}",
    f".. |asv_date| replace:: {_asv_fact('date')}",
    f".. |asv_selection| replace:: {_asv_fact('selection')}",
    f".. |asv_measured| replace:: {_asv_fact('measured', '0')}",
])


def setup(app):
    """The ``asv_published`` tag (benchmarks.rst's ``only`` blocks) where a report was found."""
    if _asv_published:
        app.tags.add("asv_published")
