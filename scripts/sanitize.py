#!/usr/bin/env python3
"""Run rocarray's self-checks under NVIDIA's compute-sanitizer and report each kernel's verdict.

    python3 scripts/sanitize.py --out DIR [--filter TEXT] [--tools memcheck,racecheck,...]
                                [--sanitizer PATH] [--timeout SECONDS]

The workload is ``python -m rocarray self-check --all`` (every library's self-checks: small fresh
random inputs through the public functions, so every kernel family the checks reach is launched).
Each tool (memcheck, racecheck, initcheck, synccheck) runs the workload in its own process, all
tools at once on the one GPU. Inside the workload the launch layer's observer records the name of
every kernel launched; the sanitizer's log attributes each error to the kernel it names. The
report (``DIR/sanitize.md``, also printed) has one row per kernel: ``clean`` where the tool saw the
kernel run without an error, the error count where it did not, ``-`` where that tool's run did not
reach it (a timeout), and a last line with the kernels of the sources that no self-check launched.

Where the tool comes from, first found wins: ``--sanitizer``, ``$COMPUTE_SANITIZER``,
``compute-sanitizer`` on the PATH, the ``nvidia-cuda-sanitizer-api`` wheel's binary
(``nvidia/cu13/compute-sanitizer/compute-sanitizer``) in an installed ``nvidia`` package. Compile
the kernels first (``python -m rocarray warmup`` or any earlier run with the same
``ROCARRAY_CACHE_DIR``) so that the sanitized processes spend their time running, not compiling.
Exit status: 0 when every tool finished with no error, 1 otherwise.
"""

import argparse
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import time

TOOLS = ("memcheck", "racecheck", "initcheck", "synccheck")
#: options of each tool beyond ``--tool``: racecheck reports hazards of shared memory only;
#: initcheck looks at reads of global memory never written
TOOL_OPTIONS = {"memcheck": ("--leak-check", "no"), "racecheck": ("--racecheck-report", "hazard"),
                "initcheck": (), "synccheck": ()}
_ERROR_SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) error")


def find_sanitizer(explicit=None):
    """The compute-sanitizer executable, or None."""
    for candidate in (explicit, os.environ.get("COMPUTE_SANITIZER"), shutil.which("compute-sanitizer")):
        if candidate and os.path.isfile(candidate):
            return candidate
    try:
        import nvidia
    except ImportError:
        return None
    for root in getattr(nvidia, "__path__", []):
        for sub in ("cu13", "cu12"):
            path = os.path.join(root, sub, "compute-sanitizer", "compute-sanitizer")
            if os.path.isfile(path):
                return path
    return None


# ------------------------------------------------------------------------------ the workload

class _Names:
    """A launch-layer observer keeping only the names of the kernels launched."""

    def __init__(self):
        self.names = set()

    def begin(self, name, grid, block, shared):
        self.names.add(str(name))

    def end(self, token):
        pass

    def note(self, nbytes, flops):
        pass


def workload(name_filter, names_path):
    """Run the self-checks with a name-recording observer; write the names as JSON."""
    from rocarray._cli.checks import registered_checks, run_self_checks
    from rocarray._core import launch

    names = _Names()

    def save():
        with open(names_path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(sorted(names.names), f)
        os.replace(names_path + ".tmp", names_path)

    def saving(run):
        # the names so far are on disk after every check, so a run cut by its timeout still tells
        # which kernels it covered
        def run_and_save(rng):
            try:
                return run(rng)
            finally:
                save()
        return run_and_save

    checks = [dataclasses.replace(c, run=saving(c.run)) for c in registered_checks(name_filter)]
    launch.observer = names
    try:
        _, failed = run_self_checks(checks, print)
    finally:
        launch.observer = None
        save()
    return 1 if failed else 0


# ------------------------------------------------------------------------------ the driver

def base_name(name):
    """``ra_x_y`` for ``ra_x_y<float, 64>`` or ``void ra_x_y<float>(...)``."""
    name = name.split("(", 1)[0].split("<", 1)[0].strip()
    return name.split()[-1] if name else name


def errors_by_kernel(log_text, kernels):
    """``{kernel base name: errors}`` from a sanitizer log: each error block (starting at a line
    ``========= <description>``, ended by a blank ``=========`` line) is charged to the first
    known kernel it names."""
    counts = {}
    bases = sorted({base_name(k) for k in kernels}, key=len, reverse=True)
    for block in re.split(r"\n=========\s*\n", log_text):
        if "ERROR SUMMARY" in block or "=========" not in block:
            continue
        hit = next((b for b in bases if re.search(rf"\b{re.escape(b)}\b", block)), None)
        if hit is None and not re.search(r"(Invalid|Race|Uninitialized|Barrier|error|hazard)", block, re.I):
            continue
        key = hit or "(unattributed)"
        counts[key] = counts.get(key, 0) + 1
    return counts


def known_kernels():
    """Base names of every kernel in the package's sources (``ra_<library>_...`` definitions)."""
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "rocarray", "_kernels")
    names = set()
    for folder, _, files in os.walk(root):
        for file in files:
            if file.endswith(".hip"):
                with open(os.path.join(folder, file), encoding="utf-8") as f:
                    text = f.read()
                for start in re.finditer(r"__global__|RA_KERNEL\b", text):
                    # the kernel's name: the first lower-case ra_ identifier called after the keyword
                    name = re.search(r"\b(ra_[a-z0-9]+_\w+)\s*\(", text[start.end():start.end() + 400])
                    if name:
                        names.add(name.group(1))
    return names


def run_tool(tool, sanitizer, out, name_filter, timeout):
    log = os.path.join(out, f"{tool}.log")
    names = os.path.join(out, f"{tool}.kernels.json")
    cmd = [sanitizer, "--tool", tool, *TOOL_OPTIONS[tool], "--print-limit", "100", "--log-file", log,
           sys.executable, os.path.abspath(__file__), "--workload", names]
    if name_filter:
        cmd += ["--filter", name_filter]
    t0 = time.time()
    with open(os.path.join(out, f"{tool}.stdout"), "w", encoding="utf-8") as stdout:
        proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.STDOUT)
    return tool, proc, t0, log, names, timeout


def collect(tool, proc, t0, log, names, timeout):
    try:
        rc = proc.wait(timeout=max(1.0, timeout - (time.time() - t0)))
        timed_out = False
    except subprocess.TimeoutExpired:
        proc.kill()
        rc, timed_out = proc.wait(), True
    text = open(log, encoding="utf-8", errors="replace").read() if os.path.exists(log) else ""
    launched = json.load(open(names, encoding="utf-8")) if os.path.exists(names) else []
    summary = _ERROR_SUMMARY.findall(text)
    return {"tool": tool, "rc": rc, "timed_out": timed_out, "seconds": round(time.time() - t0, 1),
            "errors": int(summary[-1]) if summary else None, "launched": launched,
            "by_kernel": errors_by_kernel(text, launched)}


def report(results):
    """The per-kernel table (markdown) and a one-line verdict per tool."""
    tools = [r["tool"] for r in results]
    kernels = sorted({base_name(k) for r in results for k in r["launched"]})
    lines = ["| kernel | " + " | ".join(tools) + " |", "| --- |" + " --- |" * len(tools)]
    for k in kernels:
        cells = []
        for r in results:
            launched = {base_name(n) for n in r["launched"]}
            errors = r["by_kernel"].get(k, 0)
            cells.append(f"{errors} error(s)" if errors else ("clean" if k in launched else "-"))
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    unattributed = {r["tool"]: r["by_kernel"].get("(unattributed)", 0) for r in results}
    if any(unattributed.values()):
        lines.append(f"| (unattributed) | " + " | ".join(str(unattributed[t]) for t in tools) + " |")
    lines.append("")
    for r in results:
        state = "timed out" if r["timed_out"] else f"exit {r['rc']}"
        lines.append(f"- {r['tool']}: {r['errors']} error(s), {len({base_name(k) for k in r['launched']})} "
                     f"kernel(s) launched, {r['seconds']} s, {state}")
    missing = sorted(known_kernels() - set(kernels))
    lines.append(f"- kernels in the sources that no self-check launched ({len(missing)}): "
                 + (", ".join(missing) if missing else "none"))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="folder for the logs and sanitize.md")
    parser.add_argument("--filter", default=None, help="only self-checks whose name contains this text")
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--sanitizer", default=None, help="path of compute-sanitizer")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per tool")
    parser.add_argument("--workload", metavar="NAMES_JSON", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.workload:
        return workload(args.filter, args.workload)
    if not args.out:
        parser.error("--out is required")
    tools = [t for t in args.tools.split(",") if t]
    unknown = sorted(set(tools) - set(TOOLS))
    if unknown:
        parser.error(f"unknown tool(s) {unknown}; choose from {list(TOOLS)}")
    sanitizer = find_sanitizer(args.sanitizer)
    if sanitizer is None:
        print("sanitize: compute-sanitizer not found: pip install nvidia-cuda-sanitizer-api (13.x), "
              "or pass --sanitizer PATH", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    started = [run_tool(t, sanitizer, args.out, args.filter, args.timeout) for t in tools]
    results = [collect(*s) for s in started]
    text = report(results)
    with open(os.path.join(args.out, "sanitize.md"), "w", encoding="utf-8") as f:
        f.write(text + "\n")
    with open(os.path.join(args.out, "sanitize.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
    print(text)
    clean = all(r["errors"] == 0 and not r["timed_out"] for r in results)
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
