#!/usr/bin/env python3
"""Run rocarray's self-checks under NVIDIA's compute-sanitizer and report each kernel's verdict.

    python3 scripts/sanitize.py --out DIR [--library NAME,...] [--filter TEXT]
                                [--tools memcheck,racecheck,...] [--per-library TOOLS]
                                [--per-check TOOLS] [--jobs N] [--sanitizer PATH]
                                [--timeout SECONDS]
    python3 scripts/sanitize.py --out DIR --reread [--library NAME,...]

The workload is ``python -m rocarray self-check --all`` (every library's self-checks: small fresh
random inputs through the public functions, so every kernel family the checks reach is launched),
or the checks of the libraries ``--library`` names (``prim``, ``rocblas``, ``rocsparse``, ...)
and of those the names contain ``--filter``. Each tool (memcheck, racecheck, initcheck,
synccheck) runs the workload in its own process, at most ``--jobs`` processes at once on the one
GPU. The tools ``--per-library`` names (racecheck by default: it is the slowest, by far) run one
process per library instead, each with its own ``--timeout``, so that a slow library does not
keep the others from being checked; their results are merged into the tool's column. The
tools ``--per-check`` names run one process per self-check (finer still: a library whose checks
take longer under a tool than one process may run). Inside
the workload the launch layer's observer records the name of every kernel launched; the
sanitizer's log attributes each error to the kernel it names. The report (``DIR/sanitize.md``,
also printed) has one row per kernel: ``clean`` where the tool saw the kernel run without an
error, the error count where it did not, ``-`` where that tool's run did not reach it (a
timeout), a verdict line per tool (and per library where it ran per library), and a last line
with the kernels of the sources that no self-check launched.

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
#: the last line of a tool's log: memcheck, initcheck and synccheck count errors; racecheck counts
#: hazards as errors and warnings (both are counted here)
_ERROR_SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) error|RACECHECK SUMMARY: \d+ hazards? displayed "
                            r"\((\d+) errors?, (\d+) warnings?\)")


def summary_errors(log_text):
    """The error count of a sanitizer log's last summary line, or None when it has none (a run
    that was stopped, or that died)."""
    found = _ERROR_SUMMARY.findall(log_text)
    if not found:
        return None
    plain, race_errors, race_warnings = found[-1]
    return int(plain) if plain else int(race_errors) + int(race_warnings)


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

class KernelNames:
    """A launch-layer observer keeping only the names of the kernels launched."""

    def __init__(self):
        self.names = set()

    def begin(self, name, grid, block, shared):
        self.names.add(str(name))

    def end(self, token):
        pass

    def note(self, nbytes, flops):
        pass


def selected_checks(name_filter=None, libraries=None, check=None):
    """The registered self-checks whose name contains ``name_filter`` and whose library is one of
    ``libraries`` (None: any); only the one named ``check`` when given."""
    from rocarray._cli.checks import registered_checks

    return [c for c in registered_checks(name_filter) if (not libraries or c.library in libraries)
            and (check is None or c.name == check)]


def check_libraries(name_filter=None, libraries=None):
    """The libraries of :func:`selected_checks`, sorted."""
    return sorted({c.library for c in selected_checks(name_filter, libraries)})


def workload(name_filter, names_path, libraries=None, check=None):
    """Run the self-checks with a name-recording observer; write the names as JSON."""
    from rocarray._cli.checks import run_self_checks
    from rocarray._core import launch

    names = KernelNames()

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

    checks = [dataclasses.replace(c, run=saving(c.run)) for c in selected_checks(name_filter, libraries, check)]
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
        if "ERROR SUMMARY" in block or "RACECHECK SUMMARY" in block or "=========" not in block:
            continue
        hit = next((b for b in bases if re.search(rf"\b{re.escape(b)}\b", block)), None)
        if hit is None and not re.search(r"(Invalid|Race|Uninitialized|Barrier|error|hazard)", block, re.I):
            continue
        key = hit or _foreign_api_error(block) or "(unattributed)"
        counts[key] = counts.get(key, 0) + 1
    return counts


#: Libraries whose own runtime API calls the sanitizer may report as failing while they probe
#: what the device supports (NCCL asks for the attributes of kernels it built for other
#: architectures); such a failure is not a rocarray kernel's error.
FOREIGN_LIBRARIES = ("libnccl",)


def _foreign_api_error(block):
    """``(API errors in <library>)`` when ``block`` is a failed runtime/driver API call whose
    innermost host frame lies in one of :data:`FOREIGN_LIBRARIES`, else None."""
    if not re.search(r"CUDA API Error|Program hit cuda", block):
        return None
    frame = re.search(r"Host Frame:.* in (lib[\w.+-]+\.so[\w.]*)", block)
    if frame and frame.group(1).startswith(FOREIGN_LIBRARIES):
        return f"(API errors in {frame.group(1)})"
    return None


def foreign_errors(result):
    """The errors of ``result`` that :func:`_foreign_api_error` charged to other libraries."""
    return sum(n for k, n in result["by_kernel"].items() if k.startswith("(API errors in "))


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


@dataclasses.dataclass
class Job:
    """One sanitized workload: a tool over the selected checks, over one library's (``library``),
    or over one self-check (``check``, with its library)."""

    tool: str
    library: str = None
    check: str = None

    @property
    def stem(self):
        return self.tool + (f".{self.check or self.library}" if self.library else "")

    @property
    def label(self):
        return self.check or self.library


def plan_jobs(tools, per_library, libraries, per_check=(), checks=()):
    """The jobs: one per tool, one per library for the tools in ``per_library``, or one per
    self-check (``checks``: ``(library, name)`` pairs) for the tools in ``per_check``."""
    jobs = []
    for tool in tools:
        if tool in per_check:
            jobs += [Job(tool, library, name) for library, name in checks]
        elif tool in per_library:
            jobs += [Job(tool, library) for library in libraries]
        else:
            jobs.append(Job(tool))
    return jobs


def _command(job, sanitizer, out, name_filter, libraries):
    log = os.path.join(out, f"{job.stem}.log")
    names = os.path.join(out, f"{job.stem}.kernels.json")
    cmd = [sanitizer, "--tool", job.tool, *TOOL_OPTIONS[job.tool], "--print-limit", "100", "--log-file", log,
           sys.executable, os.path.abspath(__file__), "--workload", names]
    if name_filter:
        cmd += ["--filter", name_filter]
    chosen = [job.library] if job.library else libraries
    if chosen:
        cmd += ["--library", ",".join(chosen)]
    if job.check:
        cmd += ["--check", job.check]
    return cmd, log, names


def collect(job, rc, timed_out, seconds, log, names):
    text = open(log, encoding="utf-8", errors="replace").read() if os.path.exists(log) else ""
    launched = json.load(open(names, encoding="utf-8")) if os.path.exists(names) else []
    return {"tool": job.tool, "library": job.library, "check": job.check, "label": job.label, "rc": rc, "timed_out": timed_out, "seconds": round(seconds, 1),
            "errors": summary_errors(text), "launched": launched,
            "by_kernel": errors_by_kernel(text, launched)}


def run_jobs(jobs, sanitizer, out, name_filter, libraries, timeout, max_jobs):
    """Run ``jobs`` (at most ``max_jobs`` at once), each killed after ``timeout`` seconds of its
    own; their results in the order of ``jobs``."""
    waiting, running, results = list(enumerate(jobs)), [], {}
    while waiting or running:
        while waiting and len(running) < max_jobs:
            index, job = waiting.pop(0)
            cmd, log, names = _command(job, sanitizer, out, name_filter, libraries)
            with open(os.path.join(out, f"{job.stem}.stdout"), "w", encoding="utf-8") as stdout:
                proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.STDOUT)
            running.append((index, job, proc, time.time(), log, names))
        time.sleep(0.2)
        for entry in list(running):
            index, job, proc, t0, log, names = entry
            rc, timed_out = proc.poll(), False
            if rc is None and time.time() - t0 > timeout:
                proc.kill()
                rc, timed_out = proc.wait(), True
            if rc is not None:
                running.remove(entry)
                results[index] = collect(job, rc, timed_out, time.time() - t0, log, names)
    return [results[i] for i in range(len(jobs))]


def merge_by_tool(results):
    """One result per tool: the per-library (or per-check) parts of a tool summed (errors: None when
    a part's tool wrote no summary), their kernels united, ``parts`` listing each part's own line."""
    merged = {}
    for r in results:
        m = merged.get(r["tool"])
        if m is None:
            merged[r["tool"]] = m = {"tool": r["tool"], "rc": 0, "timed_out": False, "seconds": 0.0, "errors": 0,
                                     "launched": [], "by_kernel": {}, "parts": []}
        m["rc"] = m["rc"] or r["rc"]
        m["timed_out"] = m["timed_out"] or r["timed_out"]
        m["seconds"] = max(m["seconds"], r["seconds"])
        m["errors"] = None if m["errors"] is None or r["errors"] is None else m["errors"] + r["errors"]
        m["launched"] = sorted(set(m["launched"]) | set(r["launched"]))
        for kernel, count in r["by_kernel"].items():
            m["by_kernel"][kernel] = m["by_kernel"].get(kernel, 0) + count
        if r.get("label") or r.get("library"):
            m["parts"].append(r)
    return list(merged.values())


def report(results, libraries=None):
    """The per-kernel table (markdown), a one-line verdict per tool (and per library where a tool
    ran per library), and the kernels of the sources (of ``libraries``' sources, ``ra_<library>_``,
    when given) that no check launched."""
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
        lines.append("| (unattributed) | " + " | ".join(str(unattributed[t]) for t in tools) + " |")
    foreign = sorted({k for r in results for k in r["by_kernel"] if k.startswith("(API errors in ")})
    for key in foreign:
        lines.append(f"| {key}, not rocarray's | " + " | ".join(
            str(next((r["by_kernel"].get(key, 0) for r in results if r["tool"] == t), 0)) for t in tools) + " |")
    lines.append("")
    for r in results:
        lines.append(_verdict(r["tool"], r))
        lines += ["  " + _verdict(p.get("label") or p["library"], p) for p in r.get("parts", ())]
    missing = sorted(k for k in known_kernels() - set(kernels)
                     if not libraries or any(k.startswith(f"ra_{lib}_") for lib in libraries))
    lines.append(f"- kernels in the sources that no self-check launched ({len(missing)}): "
                 + (", ".join(missing) if missing else "none"))
    return "\n".join(lines)


def _verdict(label, r):
    state = "timed out" if r["timed_out"] else f"exit {r['rc']}"
    return (f"- {label}: {r['errors']} error(s), {len({base_name(k) for k in r['launched']})} "
            f"kernel(s) launched, {r['seconds']} s, {state}")


def _names(text):
    return [t for t in (text or "").split(",") if t]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="folder for the logs and sanitize.md")
    parser.add_argument("--library", default=None, help="only the self-checks of these libraries (comma-separated)")
    parser.add_argument("--filter", default=None, help="only self-checks whose name contains this text")
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--per-library", default="racecheck",
                        help="tools run as one process per library (comma-separated; '' for none)")
    parser.add_argument("--per-check", default="",
                        help="tools run as one process per self-check (comma-separated)")
    parser.add_argument("--jobs", type=int, default=10, help="sanitized processes at once")
    parser.add_argument("--sanitizer", default=None, help="path of compute-sanitizer")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per process")
    parser.add_argument("--reread", action="store_true",
                        help="no new run: the report of the run in --out again, from its logs")
    parser.add_argument("--workload", metavar="NAMES_JSON", help=argparse.SUPPRESS)
    parser.add_argument("--check", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    libraries = _names(args.library)
    if args.workload:
        return workload(args.filter, args.workload, libraries, args.check)
    if not args.out:
        parser.error("--out is required")
    if args.reread:
        return write_report(args.out, reread(args.out), libraries)
    tools, per_library, per_check = _names(args.tools), _names(args.per_library), _names(args.per_check)
    unknown = sorted((set(tools) | set(per_library) | set(per_check)) - set(TOOLS))
    if unknown:
        parser.error(f"unknown tool(s) {unknown}; choose from {list(TOOLS)}")
    sanitizer = find_sanitizer(args.sanitizer)
    if sanitizer is None:
        print("sanitize: compute-sanitizer not found: pip install nvidia-cuda-sanitizer-api (13.x), "
              "or pass --sanitizer PATH", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    checks = [(c.library, c.name) for c in selected_checks(args.filter, libraries)] if per_check else []
    jobs = plan_jobs(tools, per_library, check_libraries(args.filter, libraries), per_check, checks)
    parts = run_jobs(jobs, sanitizer, args.out, args.filter, libraries, args.timeout, max(1, args.jobs))
    return write_report(args.out, merge_by_tool(parts), libraries)


def reread(out):
    """The results of the run whose folder is ``out``, each part's errors and kernels read again
    from its log and kernel list (its exit status, time and timeout from ``sanitize.json``)."""
    with open(os.path.join(out, "sanitize.json"), encoding="utf-8") as f:
        saved = json.load(f)
    parts = []
    for result in saved:
        for part in result.get("parts") or [result]:
            job = Job(part["tool"], part.get("library"), part.get("check"))
            parts.append(collect(job, part["rc"], part["timed_out"], part["seconds"],
                                 os.path.join(out, f"{job.stem}.log"), os.path.join(out, f"{job.stem}.kernels.json")))
    return merge_by_tool(parts)


def write_report(out, results, libraries):
    """Write ``sanitize.md`` and ``sanitize.json`` into ``out``, print the report; 0 when every
    tool finished with no error of rocarray's, else 1."""
    text = report(results, libraries)
    with open(os.path.join(out, "sanitize.md"), "w", encoding="utf-8") as f:
        f.write(text + "\n")
    with open(os.path.join(out, "sanitize.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
    print(text)
    clean = all(r["errors"] is not None and r["errors"] - foreign_errors(r) == 0 and not r["timed_out"]
                for r in results)
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
