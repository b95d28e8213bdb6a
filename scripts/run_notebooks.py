"""Run every notebook in ``notebooks/`` top to bottom on this machine's GPU and report.

Usage::

    python scripts/run_notebooks.py [--out DIR] [--timeout SECONDS] [NAME_SUBSTRING ...]

Each notebook runs in a fresh Python kernel (nbclient; ``python -m pip install ".[notebooks]"``
brings it) with the repository root as the working directory and on ``PYTHONPATH``; a cell that
raises stops that notebook. The executed copies, outputs included, are written to ``--out``
(default ``notebooks/executed``). A table of notebook, status, seconds and the first error is
printed last; the exit status is 1 when any notebook failed.
"""

import argparse
import importlib.util
import os
import re
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOKS = os.path.join(REPO, "notebooks")


def _run_one(path, out_dir, timeout):
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": REPO}})
    start = time.perf_counter()
    error = ""
    try:
        client.execute()
    except CellExecutionError as exc:
        cell = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"
                     and any(o.get("output_type") == "error" for o in c.get("outputs", []))), None)
        message = re.sub(r"\x1b\[[0-9;]*m", "", f"{exc.ename}: {exc.evalue}").strip().splitlines()
        error = f"cell {cell}: " + " ".join(line.strip() for line in message[:3])
    except Exception as exc:  # a kernel that died or timed out: reported, the other notebooks still run
        error = f"{type(exc).__name__}: {exc}".splitlines()[0]
    seconds = time.perf_counter() - start
    nbformat.write(nb, os.path.join(out_dir, os.path.basename(path)))
    return seconds, error


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="only notebooks whose file name contains one of these")
    parser.add_argument("--out", default=os.path.join(NOTEBOOKS, "executed"), help="where executed copies go")
    parser.add_argument("--timeout", type=int, default=600, help="seconds a cell may run")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("nbclient") is None or importlib.util.find_spec("nbformat") is None:
        print('run_notebooks: nbclient and nbformat are needed: python -m pip install ".[notebooks]"',
              file=sys.stderr)
        return 2
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (REPO, os.environ.get("PYTHONPATH", "")) if p)
    os.makedirs(args.out, exist_ok=True)
    paths = sorted(os.path.join(NOTEBOOKS, f) for f in os.listdir(NOTEBOOKS) if f.endswith(".ipynb"))
    if args.names:
        paths = [p for p in paths if any(n in os.path.basename(p) for n in args.names)]
    rows = []
    for path in paths:
        seconds, error = _run_one(path, args.out, args.timeout)
        rows.append((os.path.basename(path), "ok" if not error else "FAILED", seconds, error))
        print(f"{rows[-1][0]}: {rows[-1][1]} in {seconds:.1f} s {error}", flush=True)
    print()
    print(f"{'notebook':28s} {'status':7s} {'seconds':>8s}  first error")
    for name, status, seconds, error in rows:
        print(f"{name:28s} {status:7s} {seconds:8.1f}  {error[:100]}")
    return 1 if any(r[1] != "ok" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
