"""``compile-check`` (offline, no GPU) and ``warmup`` (precompile for this device)."""

import time

from rocarray._cli._fmt import first_lines, table
from rocarray._core import backend
from rocarray._core import compile as _compile
from rocarray._core import offline
from rocarray._core.errors import KernelCompileError


def parse_targets(text):
    """Offline targets named in a comma-separated list (``'sm_90,gfx940'``; ``'all'``: every one).

    Raises
    ------
    ValueError
        For a name that is not an offline target.
    """
    known = {t.arch: t for t in offline.OFFLINE_TARGETS}
    if text is None or text.strip() in ("", "all"):
        return list(offline.OFFLINE_TARGETS)
    chosen = []
    for name in (p.strip() for p in text.split(",") if p.strip()):
        if name not in known:
            raise ValueError(f"unknown target {name!r}; choose from {', '.join(known)} or 'all'")
        if known[name] not in chosen:
            chosen.append(known[name])
    return chosen


def chosen_sources(source_filter=None):
    """The kernel sources whose name contains ``source_filter`` (every one when it is ``None``)."""
    sources = _compile.source_files()
    if source_filter is None:
        return sources
    return [s for s in sources if source_filter in s]


def run_compile_check(targets, out, workers=None, source_filter=None):
    """Compile the kernel sources offline for ``targets`` and print a table.

    Targets whose compiler is missing are skipped (and said so); that is not a failure.

    Parameters
    ----------
    targets : list of rocarray._core.backend.Target
    out : callable
        ``out(line)`` prints one line.
    workers : int, optional
        Parallel compiles (default: :func:`rocarray._core.offline.compile_all`'s).
    source_filter : str, optional
        Only the sources whose name (``'prim/scan.hip'``) contains it; a filter that matches
        none is a failure, so a typo cannot pass as a clean check.

    Returns
    -------
    int
        0 when everything compiled (or nothing could be), 1 on a compile failure.
    """
    sources = chosen_sources(source_filter)
    if source_filter is not None and not sources:
        out(f"offline compile check: no kernel source matches {source_filter!r}")
        return 1
    start = time.perf_counter()
    results, failures, skipped = offline.compile_all(targets=tuple(targets), sources=sources,
                                                     workers=workers)
    elapsed = time.perf_counter() - start
    skipped_arches = {t.arch for t, _ in skipped}
    used = [t for t in targets if t.arch not in skipped_arches]

    out(f"offline compile check: {len(sources)} source(s) x {len(used)} target(s), {elapsed:.1f} s")
    if not sources:
        out("  no kernel sources under rocarray/_kernels/ yet: nothing to compile")
    elif used:
        cell = {(r.source, r.target.arch): f"ok {r.seconds:.1f}s" for r in results}
        cell.update({(s, t.arch): "FAIL" for s, t, _ in failures})
        rows = [[s, len(_compile.registered(s))] + [cell.get((s, t.arch), "-") for t in used]
                for s in sources]
        for line in table(["source", "templates"] + [t.arch for t in used], rows):
            out("  " + line)
    for target, why in skipped:
        out(f"  skipped {target.arch}: {why}")
    if not used and targets:
        out("  no offline compiler is installed: nothing was compiled")
    for source, target, exc in failures:
        out(f"FAIL {source} for {target.arch}:")
        for line in first_lines(getattr(exc, "log", exc), 25):
            out(line)
        if getattr(exc, "source_path", None):
            out(f"    full source: {exc.source_path}")
    if failures:
        out(f"compile check: {len(failures)} failure(s)")
        return 1
    if sources and used:
        out("compile check: all compiled")
    return 0


def _progress(items, desc):
    try:
        from tqdm import tqdm
    except ImportError:
        return items, False
    return tqdm(items, desc=desc, unit="file", leave=False), True


def run_warmup(out):
    """Compile every kernel source for the current device (fills the in-process and CuPy caches).

    Parameters
    ----------
    out : callable
        ``out(line)`` prints one line.

    Returns
    -------
    int
        0 when every source compiled, 1 otherwise.

    Raises
    ------
    NoDeviceError
        Without a usable GPU.
    """
    info = backend.device_info()
    _compile.import_all_libraries()
    sources = _compile.source_files()
    out(f"warmup: {len(sources)} source(s) for {info.target} on {info.name}")
    if not sources:
        out("  no kernel sources under rocarray/_kernels/ yet: nothing to compile")
        return 0
    items, has_bar = _progress(sources, "compiling")
    rows, failures = [], []
    for source in items:
        if not has_bar:
            out(f"  compiling {source} ...")
        t0 = time.perf_counter()
        try:
            _compile.get_module(source)  # the extern "C" kernels
            for name in _compile.registered(source):
                _compile.get_kernel(source, name)  # one module per instantiation
            status = "ok"
        except KernelCompileError as exc:
            failures.append((source, exc))
            status = "FAIL"
        rows.append([source, len(_compile.registered(source)), status, f"{time.perf_counter() - t0:.2f} s"])
    for line in table(["source", "templates", "status", "time"], rows):
        out("  " + line)
    for source, exc in failures:
        out(f"FAIL {source}:")
        for line in first_lines(exc.log, 25):
            out(line)
    out(f"warmup: {len(sources) - len(failures)} compiled, {len(failures)} failed")
    return 1 if failures else 0
