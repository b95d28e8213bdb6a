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


def representative_sources():
    """One kernel source per library: its cheapest to compile (the quick offline check)."""
    offline.import_all_libraries()
    cheapest = {}
    for source in _compile.source_files():
        library = source.split("/")[0]
        cost = offline.estimated_cost(source, offline.OFFLINE_TARGETS[0])
        if library not in cheapest or cost < cheapest[library][0]:
            cheapest[library] = (cost, source)
    return sorted(source for _, source in cheapest.values())


def run_compile_check(targets, out, workers=None, source_filter=None, sources=None, use_cache=None):
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
    sources : list of str, optional
        Exactly these sources (instead of a filter).
    use_cache : bool, optional
        False: compile everything again; default: ``ROCARRAY_OFFLINE_CACHE`` (on), so unchanged
        compiles are answered from :mod:`rocarray._core.offline_cache`.

    Returns
    -------
    int
        0 when everything compiled (or nothing could be), 1 on a compile failure.
    """
    sources = chosen_sources(source_filter) if sources is None else list(sources)
    if source_filter is not None and not sources:
        out(f"offline compile check: no kernel source matches {source_filter!r}")
        return 1
    start = time.perf_counter()
    usable = [t for t in targets if not offline.missing_compiler(t)]
    if usable and sources:
        out(f"offline compile check: {len(sources)} source(s) x {', '.join(t.arch for t in usable)} ...")
    step, close = progress(len(sources) * len(usable), "compiling", out, "source")
    results, failures, skipped = offline.compile_all(
        targets=tuple(targets), sources=sources, workers=workers, use_cache=use_cache,
        progress=lambda source, target, took, ok: step(f"{target.arch} {source} {'ok' if ok else 'FAIL'} "
                                                       f"{took:.1f} s"))
    cached = sum(r.cached for r in results)
    close()
    elapsed = time.perf_counter() - start
    skipped_arches = {t.arch for t, _ in skipped}
    used = [t for t in targets if t.arch not in skipped_arches]

    out(f"offline compile check: {len(sources)} source(s) x {len(used)} target(s), {elapsed:.1f} s"
        + (f" ({cached} unchanged compile(s) from the offline cache; --no-cache compiles them again)" if cached else ""))
    if not sources:
        out("  no kernel sources under rocarray/_kernels/ yet: nothing to compile")
    elif used:
        cell = {(r.source, r.target.arch): "ok cached" if r.cached else f"ok {r.seconds:.1f}s" for r in results}
        cell.update({(s, t.arch): "FAIL" for s, t, _ in failures})
        rows = [[s, len(_compile.registered(s))] + [cell.get((s, t.arch), "-") for t in used]
                for s in sources]
        for line in table(["source", "templates"] + [t.arch for t in used], rows):
            out("  " + line)
    for target, why in skipped:
        out(f"  skipped {target.arch}: {' '.join(str(why).split())}")
    if not used and targets:
        out("  no offline compiler is installed: nothing was compiled. For sm_90: "
            f"{offline.NVRTC_HINT}; for gfx90a/gfx940: {offline.HIPCC_HINT}")
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
        done = f"compile check: all compiled for {', '.join(t.arch for t in used)}"
        if skipped:
            done += f"; not checked: {', '.join(t.arch for t, _ in skipped)} (no compiler, see above)"
        out(done)
    return 0


def progress(total, desc, out, unit="item"):
    """A progress reporter for ``total`` items: a tqdm bar when tqdm is installed and the output is
    a terminal, else one plain line per item. Returns ``(step, close)``: ``step(label)`` after each
    item, ``close()`` at the end."""
    import sys

    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None
    if tqdm is not None and sys.stderr.isatty():
        bar = tqdm(total=total, desc=desc, unit=unit, leave=False)

        def step(label):
            bar.set_postfix_str(label, refresh=False)
            bar.update(1)
        return step, bar.close
    import threading

    done, lock = [0], threading.Lock()

    def step(label):
        with lock:
            done[0] += 1
            out(f"  [{done[0]}/{total}] {label}")
    return step, lambda: None


def _precompile_job(source, name, arch, opts):
    """One warm-up compile in a worker process: ``(source, name, seconds, error text or None)``."""
    t0 = time.perf_counter()
    try:
        offline.import_all_libraries()
        _compile.precompile(source, name, arch, opts)
        return source, name, time.perf_counter() - t0, None
    except Exception as exc:  # a compile error: its log, reported by the parent
        return source, name, time.perf_counter() - t0, getattr(exc, "log", None) or f"{type(exc).__name__}: {exc}"


def library_sources(libraries):
    """The kernel sources of ``libraries`` (``['rocblas', 'prim']``; None: every source).

    Raises
    ------
    ValueError
        For a name that is no library with kernel sources.
    """
    sources = _compile.source_files()
    if not libraries:
        return sources
    known = sorted({s.split("/")[0] for s in sources})
    unknown = [lib for lib in libraries if lib not in known]
    if unknown:
        raise ValueError(f"no kernel sources for {', '.join(unknown)}; libraries: {', '.join(known)}")
    return [s for s in sources if s.split("/")[0] in libraries]


def run_warmup(out, libraries=None, workers=None):
    """Compile every kernel of ``libraries`` (default: all) for the current device, so later
    processes load them from the binary cache without compiling.

    On NVIDIA devices the compiles run in parallel worker processes (NVRTC needs no device) straight
    into rocarray's binary cache; on ROCm devices this process compiles them one by one through
    CuPy (hiprtc), which fills CuPy's cache.

    Parameters
    ----------
    out : callable
        ``out(line)`` prints one line.
    libraries : list of str, optional
        Library names (``'rocblas'``, ``'prim'``, ``'rocfft'``).
    workers : int, optional
        Worker processes (default: the CPU count).

    Returns
    -------
    int
        0 when every kernel compiled, 1 otherwise.

    Raises
    ------
    NoDeviceError
        Without a usable GPU.
    ValueError
        For an unknown library name.
    """
    import os
    from concurrent.futures import ProcessPoolExecutor, as_completed
    import multiprocessing

    info = backend.device_info()
    offline.import_all_libraries()
    sources = library_sources(libraries)
    jobs = [(s, None) for s in sources] + [(s, n) for s in sources for n in _compile.registered(s)]
    opts = None if info.is_hip else _compile.runtime_options(info)
    how = (f"{workers or os.cpu_count() or 1} worker processes into {_compile.kernel_cache.root()}" if opts
           else "this process, through CuPy")
    out(f"warmup: {len(jobs)} module(s) of {len(sources)} source(s) for {info.target} on {info.name}, {how}")
    t_start = time.perf_counter()
    seconds, failures = {s: 0.0 for s in sources}, []
    step, close = progress(len(jobs), "compiling", out, "module")
    if opts is not None:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1, mp_context=context) as pool:
            futures = [pool.submit(_precompile_job, s, n, info.arch, opts) for s, n in jobs]
            for future in as_completed(futures):
                source, name, took, error = future.result()
                seconds[source] += took
                if error is not None:
                    failures.append((source, name, error))
                step(f"{source} {name or '(extern C)'}")
    else:
        for source, name in jobs:
            t0 = time.perf_counter()
            try:
                if name is None:
                    _compile.get_module(source)
                else:
                    _compile.get_kernel(source, name)
            except KernelCompileError as exc:
                failures.append((source, name, exc.log))
            seconds[source] += time.perf_counter() - t0
            step(f"{source} {name or '(extern C)'}")
    close()
    failed_sources = {f[0] for f in failures}
    rows = [[s, len(_compile.registered(s)), "FAIL" if s in failed_sources else "ok", f"{seconds[s]:.1f} s"]
            for s in sources]
    for line in table(["source", "templates", "status", "compile time"], rows):
        out("  " + line)
    for source, name, log in failures:
        out(f"FAIL {source} {name or '(extern C)'}:")
        for line in first_lines(log, 25):
            out(line)
    out(f"warmup: {len(jobs) - len(failures)} compiled, {len(failures)} failed in {time.perf_counter() - t_start:.1f} s")
    return 1 if failures else 0
