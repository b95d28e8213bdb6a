"""Building the kernel binaries shipped with the package (:mod:`rocarray._core.prebuilt`), and
checking that they still match the sources: ``python -m rocarray prebuild --arch sm_90
[--families ...] [--check]``. Needs NVRTC, no GPU. For an AMD architecture (``--arch gfx90a``),
and for ``--offline --arch sm_90``, the offline compile check's binaries instead
(:mod:`rocarray._core.offline_shipped`, built by :func:`build_offline`; needs hipcc or NVRTC).
"""

import hashlib
import json
import os
import time

from rocarray._core import backend, offline
from rocarray._core import compile as _compile
from rocarray._core import prebuilt as _prebuilt


def options(arch):
    """The run-time NVRTC options of a device of ``arch`` (``'sm_90'``), as the shipped keys hold them."""
    return _compile.nvrtc_options(backend.Target("cuda", arch, 32), arch.split("_")[1])


def entry_key(arch, source, name, opts=None):
    """The shipped key of one module as the sources are now."""
    opts = options(arch) if opts is None else opts
    return _compile.module_key(arch, opts, [name] if name else [], _compile.full_source(source))


def problems(arch, families=None):
    """Why the shipped binaries of ``arch`` no longer match the sources: a list of lines (empty when
    they match), each naming a module that is missing, stale (its source, a header or the options
    changed) or shipped without a family."""
    meta = _prebuilt.read_manifest(arch)
    wanted = _prebuilt.modules(families)
    if meta is None:
        return [f"no shipped manifest for {arch}"]
    opts = options(arch)
    shipped = {(e.get("source"), e.get("name")): k for k, e in meta["entries"].items() if isinstance(e, dict)}
    lines = []
    for (source, name), key in sorted(shipped.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1]))):
        if (source, name) not in wanted:
            if families is None:
                lines.append(f"shipped but in no family: {source} {name}")
        elif key != entry_key(arch, source, name, opts):
            lines.append(f"stale (the source, a header or the options changed): {source} {name or '(extern C)'}")
    for source, name in wanted:
        if (source, name) not in shipped:
            lines.append(f"missing: {source} {name or '(extern C)'}")
    return lines


def _compile_job(source, name, arch, opts):
    """One module compiled in a worker process: ``(source, name, lowered, binary, seconds)``."""
    offline.import_all_libraries()
    t0 = time.perf_counter()
    lowered, binary = _compile.nvrtc_compile(source, backend.Target("cuda", arch, 32), _compile.full_source(source),
                                             opts, [name] if name else [])
    return source, name, lowered, bytes(binary), time.perf_counter() - t0


def build(arch, families=None, workers=None, out=print):
    """Compile the modules of ``families`` (default: all) for ``arch`` with the installed NVRTC and
    write them, with their manifest, to :func:`rocarray._core.prebuilt.folder`. Entries of other
    families stay when a subset is built and they are still current; binaries the manifest no
    longer lists are deleted.
    Returns ``{"modules": n, "bytes": total, "seconds":
    compile seconds}``.

    Raises
    ------
    RuntimeError
        When NVRTC is missing or cannot build ``arch``.
    KernelCompileError
        With NVRTC's log for a module that does not compile.
    """
    from concurrent.futures import ProcessPoolExecutor
    import multiprocessing

    bindings = _compile.nvrtc()
    if bindings is None:
        raise RuntimeError("NVRTC is not available (pip install nvidia-cuda-nvrtc)")
    if int(arch.split("_")[1]) not in {int(a) for a in bindings.getSupportedArchs()}:
        raise RuntimeError(f"this NVRTC cannot build {arch}")
    wanted = _prebuilt.modules(families)
    opts = options(arch)
    major, minor = bindings.getVersion()
    target = _prebuilt.folder(arch)
    target.mkdir(parents=True, exist_ok=True)
    entries, seconds = {}, 0.0
    kept = _prebuilt.read_manifest(arch) if families else None  # a partial build keeps the other current entries
    if kept is not None and kept["cuda_major"] == int(major):
        current = _prebuilt.modules()
        for key, entry in kept["entries"].items():
            module = (entry.get("source"), entry.get("name")) if isinstance(entry, dict) else None
            if module in current and module not in wanted and key == entry_key(arch, *module, opts):
                entries[key] = dict(entry, families=sorted(current[module]))
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1, mp_context=context) as pool:
        futures = [pool.submit(_compile_job, source, name, arch, opts) for source, name in wanted]
        for future in futures:
            source, name, lowered, binary, took = future.result()
            key = entry_key(arch, source, name, opts)
            (target / f"{key}.cubin").write_bytes(binary)
            entries[key] = {"file": f"{key}.cubin", "size": len(binary), "sha256": hashlib.sha256(binary).hexdigest(),
                            "names": dict(lowered), "source": source, "name": name,
                            "families": sorted(wanted[(source, name)])}
            seconds += took
            out(f"  {took:6.2f} s {len(binary) / 1024:7.0f} KiB  {source} {name or '(extern C)'}")
    meta = {"format": _prebuilt.FORMAT, "arch": arch, "cuda_major": int(major), "compiler": f"{major}.{minor}",
            "entries": dict(sorted(entries.items()))}
    (target / _prebuilt.MANIFEST).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for path in target.iterdir():
        if path.suffix == ".cubin" and path.stem not in entries:
            path.unlink()
    _prebuilt.forget(arch)
    return {"modules": len(wanted), "bytes": sum(e["size"] for e in entries.values()), "seconds": seconds}


def _offline_compiler(target):
    """``(identity, fast-check options)`` of ``target``'s offline compiler, or ``(None, why)``
    where it is not installed."""
    from rocarray._core import config, offline_cache

    if target.is_hip:
        path = config.hipcc_path()
        if not path:
            return None, f"hipcc is not installed: {offline.HIPCC_HINT}"
        return offline_cache.hipcc_identity(path), offline._hipcc_options(target, (), fast_compile=True)
    nvrtc, why = offline._nvrtc()
    if nvrtc is None:
        return None, why
    return (offline_cache.nvrtc_identity(nvrtc),
            offline._nvrtc_options(target, (), fast_compile=True, version=nvrtc.getVersion()))


def offline_problems(arch):
    """The sources whose offline compile for ``arch`` (``sm_90`` or an AMD architecture) is not
    shipped as they are now: a list of lines, empty when every one is (then the compile matrix's
    column of ``arch`` compiles nothing)."""
    from rocarray._core import offline_cache, offline_shipped

    meta = offline_shipped.read_manifest(arch)
    if meta is None:
        return [f"no shipped offline manifest for {arch}"]
    target = next(t for t in offline.OFFLINE_TARGETS if t.arch == arch)
    compiler, opts = _offline_compiler(target)
    if compiler is None:
        return [opts]
    lines = []
    for source in _compile.source_files():
        key = offline_cache.key(compiler, target, _compile.full_source(source), _compile.registered(source), opts)
        if key not in meta["entries"]:
            lines.append(f"not shipped as it is now (source, header, instantiations or compiler changed): {source}")
    return lines


def build_offline(arch, workers=None, out=print, changed_only=False):
    """Compile every source of the package for ``arch`` (``sm_90`` or an AMD architecture) as the
    compile matrix does (NVRTC or hipcc, fast check) and write the binaries with their manifest to
    :func:`rocarray._core.offline_shipped.folder`, replacing what was there. Compiles come from
    hipcc or the user's offline cache, never from the shipped objects being replaced; with
    ``changed_only``, a source whose shipped object is current (the same compile key: source text,
    instantiations, compiler and options) keeps that object and only the others are compiled.
    Returns ``{"modules": n, "bytes": compressed total, "seconds": compile seconds}``.

    Raises
    ------
    RuntimeError
        When the compiler is missing.
    KernelCompileError
        With the compiler's log for the first source that does not compile.
    """
    from rocarray._core import offline_shipped

    if arch not in offline_shipped.ARCHS:
        raise ValueError(f"offline objects ship for {', '.join(offline_shipped.ARCHS)}, not {arch}")
    target = next(t for t in offline.OFFLINE_TARGETS if t.arch == arch)
    if offline.missing_compiler(target):
        raise RuntimeError(offline.missing_compiler(target))
    sources = _compile.source_files()
    kept = []
    if changed_only:
        from rocarray._core import offline_cache

        compiler, opts = _offline_compiler(target)
        for source in list(sources):
            names = _compile.registered(source)
            key = offline_cache.key(compiler, target, _compile.full_source(source), names, opts)
            hit = offline_shipped.lookup(target, key)
            if hit is not None:
                kept.append((key, source, names, hit[0], hit[1]))
                sources.remove(source)
        out(f"  {len(kept)} source(s) current, {len(sources)} to compile")

    def progress(source, _target, seconds, ok):
        out(f"  {seconds:6.1f} s {'ok  ' if ok else 'FAIL'} {source}")

    enabled, offline_shipped.ENABLED = offline_shipped.ENABLED, False
    try:
        results, failures, _skipped = offline.compile_all([target], sources, workers, progress, use_cache=True,
                                                          fast_compile=True)
    finally:
        offline_shipped.ENABLED = enabled
    if failures:
        raise failures[0][2]
    labelled = [(r.key, r.source, r.names, r.binary, r.lowered) for r in results] + kept
    total = offline_shipped.write(arch, _offline_compiler(target)[0], labelled)
    return {"modules": len(labelled), "bytes": total, "seconds": sum(r.seconds for r in results)}
