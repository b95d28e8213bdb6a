"""Sphinx configuration for rocarray's documentation (Sphinx + numpydoc).

Build from the repository root with ``pip install -e .[docs]`` then
``sphinx-build -b html docs docs/_build/html``. CuPy is mocked, so the docs build on a machine
without a GPU or without CuPy.
"""

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
