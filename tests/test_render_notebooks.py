"""``scripts/render_notebooks.py``: an executed notebook becomes a Markdown page with its code,
text outputs, tracebacks (colours removed) and images."""

import base64
import importlib.util
import json
import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nnot really an image").decode()


def _load():
    spec = importlib.util.spec_from_file_location("render_notebooks", os.path.join(REPO, "scripts", "render_notebooks.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _notebook(path):
    cells = [
        {"cell_type": "markdown", "source": ["# Sorting on the GPU\n", "Some text."]},
        {"cell_type": "code", "source": "x = 1\nprint('```', x)", "outputs": [
            {"output_type": "stream", "name": "stdout", "text": ["``` 1\n"]}]},
        {"cell_type": "code", "source": "plot()", "outputs": [
            {"output_type": "display_data", "data": {"image/png": PNG, "text/plain": "<Figure>"}},
            {"output_type": "execute_result", "data": {"text/plain": "\n".join(str(i) for i in range(100))}}]},
        {"cell_type": "code", "source": "1 / 0", "outputs": [
            {"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero",
             "traceback": ["\x1b[31mZeroDivisionError\x1b[0m: division by zero"]}]},
    ]
    with open(path, "w") as f:
        json.dump({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, f)


def test_a_notebook_becomes_a_page(tmp_path):
    src, dest = tmp_path / "src", tmp_path / "dest"
    src.mkdir()
    _notebook(src / "02_sorting.ipynb")
    assert _load().main(["--src", str(src), "--dest", str(dest), "--machine", "an H100"]) == 0
    page = (dest / "02_sorting.md").read_text()
    assert page.startswith("# Sorting on the GPU")
    assert "This run stopped at cell 3: ZeroDivisionError: division by zero" in page
    assert "````\n``` 1\n````" in page  # a fence longer than the backticks inside
    assert "```python\n1 / 0\n```" in page
    assert "ZeroDivisionError: division by zero" in page and "\x1b" not in page
    assert "![output of cell 2](02_sorting_2_0.png)" in page
    assert (dest / "02_sorting_2_0.png").read_bytes() == base64.b64decode(PNG)
    assert "... (40 more lines)" in page and "<Figure>" not in page
    index = (dest / "index.rst").read_text()
    assert "an H100" in index and "   02_sorting\n" in index


def test_no_executed_notebooks_is_an_error(tmp_path):
    (tmp_path / "src").mkdir()
    assert _load().main(["--src", str(tmp_path / "src"), "--dest", str(tmp_path / "dest")]) == 1
