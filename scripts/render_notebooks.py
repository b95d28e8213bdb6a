"""Turn executed notebooks (outputs saved on a GPU machine) into pages of the documentation.

Usage::

    python scripts/run_notebooks.py --out notebooks/executed       # on the GPU machine
    python scripts/render_notebooks.py [--src notebooks/executed] [--dest docs/notebooks]

Each ``NAME.ipynb`` becomes ``DEST/NAME.md`` (Markdown that Sphinx reads through myst-parser, so
no pandoc is needed): markdown cells as they are, code cells as Python blocks, text outputs and
tracebacks as plain blocks (ANSI colours removed, long outputs cut), PNG images as files
``DEST/NAME_<cell>_<n>.png`` shown in place. ``DEST/index.rst`` lists the pages in file order with
the date of the run. Only the standard library is used; nbformat is not needed.
"""

import argparse
import base64
import datetime
import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
#: Lines of one text output kept in a page (a longer one is cut with a note).
MAX_LINES = 60


def _text(value):
    return "".join(value) if isinstance(value, list) else str(value)


def _fence(body, info=""):
    """A fenced block holding ``body`` whatever backticks it contains."""
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{body.rstrip()}\n{ticks}\n"


def _cut(text):
    lines = text.rstrip("\n").splitlines()
    if len(lines) <= MAX_LINES:
        return "\n".join(lines)
    return "\n".join(lines[:MAX_LINES] + [f"... ({len(lines) - MAX_LINES} more lines)"])


def _outputs(outputs, stem, index, dest):
    """Markdown for one code cell's outputs; images are written next to the page."""
    parts, images = [], 0
    for out in outputs:
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(_fence(_cut(ANSI.sub("", _text(out.get("text", ""))))))
        elif kind == "error":
            trace = ANSI.sub("", "\n".join(out.get("traceback", [])) or f"{out.get('ename')}: {out.get('evalue')}")
            parts.append(_fence(_cut(trace)))
        elif kind in ("execute_result", "display_data"):
            data = out.get("data", {})
            if "image/png" in data:
                name = f"{stem}_{index}_{images}.png"
                images += 1
                with open(os.path.join(dest, name), "wb") as f:
                    f.write(base64.b64decode(_text(data["image/png"])))
                parts.append(f"![output of cell {index}]({name})\n")
            elif "text/plain" in data:
                parts.append(_fence(_cut(ANSI.sub("", _text(data["text/plain"])))))
    return parts


def _first_error(nb):
    """``(cell index, "Name: message")`` of the first error output, or None."""
    for index, cell in enumerate(nb.get("cells", [])):
        for out in cell.get("outputs", []) if cell.get("cell_type") == "code" else ():
            if out.get("output_type") == "error":
                return index, ANSI.sub("", f"{out.get('ename')}: {out.get('evalue')}")
    return None


def render(path, dest):
    """Write ``dest/<stem>.md`` (and its images) for the notebook at ``path``; returns its title."""
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    stem = os.path.splitext(os.path.basename(path))[0]
    blocks, title = [], None
    for index, cell in enumerate(nb.get("cells", [])):
        source = _text(cell.get("source", ""))
        if cell.get("cell_type") == "markdown":
            if title is None:
                heading = re.search(r"^#\s+(.+)$", source, re.MULTILINE)
                title = heading.group(1).strip() if heading else None
            blocks.append(source.rstrip() + "\n")
        elif cell.get("cell_type") == "code":
            blocks.append(_fence(source, "python"))
            blocks.extend(_outputs(cell.get("outputs", []), stem, index, dest))
    if title is None:
        title = stem.replace("_", " ")
        blocks.insert(0, f"# {title}\n")
    stopped = _first_error(nb)
    if stopped:
        at = 1 if blocks[0].lstrip().startswith("# ") else 0
        blocks.insert(at, f"```{{note}}\nThis run stopped at cell {stopped[0]}: {stopped[1]}\n```\n")
    with open(os.path.join(dest, f"{stem}.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(blocks))
    return title


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", default=os.path.join(REPO, "notebooks", "executed"))
    parser.add_argument("--dest", default=os.path.join(REPO, "docs", "notebooks"))
    parser.add_argument("--machine", default="", help="the GPU the notebooks ran on, for the index page")
    args = parser.parse_args(argv)
    paths = sorted(os.path.join(args.src, f) for f in os.listdir(args.src) if f.endswith(".ipynb"))
    if not paths:
        print(f"render_notebooks: no executed notebooks in {args.src}", file=sys.stderr)
        return 1
    os.makedirs(args.dest, exist_ok=True)
    for old in os.listdir(args.dest):
        if old.endswith((".md", ".png")):
            os.remove(os.path.join(args.dest, old))
    stems = []
    for path in paths:
        title = render(path, args.dest)
        stems.append(os.path.splitext(os.path.basename(path))[0])
        print(f"{os.path.basename(path)}: {title}")
    ran = f" on {args.machine}" if args.machine else ""
    with open(os.path.join(args.dest, "index.rst"), "w", encoding="utf-8") as f:
        f.write("Notebooks\n=========\n\n"
                f"The notebooks of ``notebooks/``, with the outputs of one run{ran} "
                f"({datetime.date.today().isoformat()}, ``scripts/run_notebooks.py``; rendered by "
                "``scripts/render_notebooks.py``).\n\n.. toctree::\n   :maxdepth: 1\n\n")
        f.writelines(f"   {stem}\n" for stem in stems)
    return 0


if __name__ == "__main__":
    sys.exit(main())
