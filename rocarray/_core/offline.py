"""Compile kernel sources without a GPU: NVRTC for ``sm_90`` and hipcc for ``gfx90a``/``gfx940``.

This is how AMD support and every template instantiation are proven on machines with no GPU (CI,
``python -m rocarray`` without a device). Each source file is one translation unit per target with
all its registered instantiations; targets compile in parallel processes.

* NVRTC comes from CuPy's bindings (``cupy_backends.cuda.libs.nvrtc``) and the
  ``nvidia-cuda-nvrtc`` wheel; it needs no driver. Options match what CuPy adds at run time.
* hipcc is Debian's (``hipcc libamdhip64-dev rocm-device-libs``) run with ``HIP_PLATFORM=amd``;
  the text is prefixed with ``#include <hip/hip_runtime.h>`` (what hiprtc provides implicitly),
  and each name expression is instantiated by taking its address, as hiprtc's name expressions do.

:func:`compile_text` compiles any pasted text (what :func:`rocarray.compile_check` does with a
user's source); :func:`compile_source` is it applied to one of rocarray's own sources. Successful
compiles are remembered between runs (:mod:`rocarray._core.offline_cache`), keyed by the exact text,
options, target and compiler, so an unchanged translation unit is not compiled again; the AMD
targets' compiles of the package's sources also ship with it (:mod:`rocarray._core.offline_shipped`).
"""

import os
import re
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from rocarray._core import compile as _compile
from rocarray._core import config
from rocarray._core import offline_cache
from rocarray._core.backend import Target
from rocarray._core.errors import KernelCompileError

OFFLINE_TARGETS = (
    Target("cuda", "sm_90", 32),
    Target("hip", "gfx90a", 64),
    Target("hip", "gfx940", 64),
)


@dataclass
class CompileResult:
    """Outcome of compiling one source file for one target."""

    source: str
    target: Target
    names: tuple
    lowered: dict = field(default_factory=dict)  # name expression -> mangled symbol (NVRTC)
    binary: bytes = b""
    seconds: float = 0.0
    cached: bool = False  # answered from the offline cache (seconds is then the lookup's)
    key: str = ""  # the offline cache's key of this compile ('' when the cache is off)


#: NVRTC's fast-compile mode (NVRTC 12.8 and later) for a check that a source compiles: the same front
#: end and every instantiation lowered to PTX and assembled by ptxas into the CUBIN, with fewer
#: optimizations (loops are not unrolled), so not the code a device runs.
NVRTC_FAST_COMPILE = "--Ofast-compile=mid"
NVRTC_FAST_COMPILE_SINCE = (12, 8)
#: hipcc's options for the same check: every kernel and instantiation through the front end, the
#: optimizer's basic passes and the target's code generator, without the heavier -O3 passes
#: (vectorization) and without the unroller's own choices (loops under ``#pragma unroll`` are still
#: unrolled, so private arrays still live in registers), so not the code a device runs. Not -O0:
#: without inlining and promotion to registers some kernels' private arrays exceed the 64 KiB
#: local-memory limit that their optimized code stays far under.
HIPCC_FAST_COMPILE = ("-O1", "-mllvm", "-unroll-threshold=0")

#: What to install for each offline compiler.
NVRTC_HINT = "pip install cupy-cuda13x nvidia-cuda-nvrtc (or, from a checkout, pip install \".[test]\")"
HIPCC_HINT = "as root: apt-get update && apt-get install hipcc libamdhip64-dev rocm-device-libs (Debian 12)"


def _nvrtc():
    try:
        from cupy_backends.cuda.libs import nvrtc
    except Exception:  # CuPy missing (its bindings are how NVRTC is reached)
        return None, f"NVRTC needs CuPy's bindings, and CuPy is not installed: {NVRTC_HINT}"
    try:
        nvrtc.getVersion()
    except Exception:
        return None, f"the NVRTC library is not installed: {NVRTC_HINT}"
    return nvrtc, None


def _hipcc():
    path = config.hipcc_path()
    if not path:
        return None, f"hipcc is not on PATH: {HIPCC_HINT}"
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return None, f"ROCARRAY_HIPCC={path} is not an executable file"
    return path, None


def missing_compiler(target):
    """Why ``target`` cannot be compiled here, or ``None`` when its compiler is present."""
    if target.is_hip:
        return _hipcc()[1]
    return _nvrtc()[1]


def _nvrtc_options(target, extra_options, fast_compile=False, version=None):
    # what CuPy adds at run time: flush-to-zero and its default execution space (without it some
    # NVRTC versions refuse the kernels' device lambdas)
    opts = list(_compile.options(target)) + [f"--gpu-architecture={target.arch}", "-ftz=true",
                                             "--device-as-default-execution-space"]
    extra = config.extra_cuda_include()
    if extra:
        opts.append(f"-I{extra}")
    if fast_compile and version is not None and tuple(version) >= NVRTC_FAST_COMPILE_SINCE:
        opts.append(NVRTC_FAST_COMPILE)
    opts.extend(extra_options)
    return opts


def _hip_text(text, names):
    lines = ["#include <hip/hip_runtime.h>", text]
    for i, name in enumerate(names):
        lines.append(f"static void* ra_offline_instance_{i} = (void*)&{name};")
    return "\n".join(lines) + "\n"


def _hipcc_options(target, extra_options, fast_compile=False):
    level = HIPCC_FAST_COMPILE if fast_compile else ("-O3",)
    return ["-x", "hip", f"--offload-arch={target.arch}", "--cuda-device-only", "-c", *level,
            "-fcuda-flush-denormals-to-zero", *_compile.options(target), *extra_options]


def _compile_hipcc(path, source, target, text, names, opts):
    env = dict(os.environ, HIP_PLATFORM="amd")
    with tempfile.TemporaryDirectory(prefix="rocarray-hipcc-") as tmp:
        src = os.path.join(tmp, re.sub(r"[^A-Za-z0-9_.-]", "_", source))
        obj = src + ".o"
        with open(src, "w", encoding="utf-8") as f:
            f.write(_hip_text(text, names))
        cmd = [path, *opts, src, "-o", obj]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            log = (proc.stdout + proc.stderr).strip()
            raise _compile.compile_error(source, ", ".join(names) or "module", target, log, text)
        with open(obj, "rb") as f:
            return f.read()


def compile_source(source, target, use_cache=None, fast_compile=False):
    """Compile one ``.hip`` file with all its registered instantiations for ``target``
    (:func:`compile_text` of its pasted text; ``use_cache`` and ``fast_compile`` as there).

    Raises
    ------
    KernelCompileError
        With the compiler's log when compilation fails.
    RuntimeError
        When the target's compiler is not installed (see :func:`missing_compiler`).
    """
    return compile_text(source, _compile.full_source(source), target, _compile.registered(source),
                        use_cache=use_cache, fast_compile=fast_compile)


def compile_text(label, text, target, names=(), extra_options=(), use_cache=None, fast_compile=False):
    """Compile ``text``, a complete translation unit (headers already pasted), for ``target``.

    Parameters
    ----------
    label : str
        What the text is called in messages and file names (a source path, or a user's label).
    text : str
        The text the compiler sees (:func:`rocarray._core.compile.full_source` for a kernel source).
    target : Target
        What to compile for (the compiler follows from its vendor).
    names : sequence of str
        Name expressions to instantiate.
    extra_options : sequence of str
        Options appended to :func:`rocarray._core.compile.options` (``-D`` defines, say).
    use_cache : bool, optional
        Answer an unchanged compile from the offline cache and remember a successful one
        (:mod:`rocarray._core.offline_cache`); default: ``ROCARRAY_OFFLINE_CACHE`` (on).
    fast_compile : bool, optional
        A check that the text compiles for the target, every instantiation included, at a
        fraction of the time: NVRTC in its fast-compile mode (:data:`NVRTC_FAST_COMPILE`, where
        the NVRTC version has it), hipcc at a lower level (:data:`HIPCC_FAST_COMPILE`); the
        binary is not the optimized code a device runs.

    Returns
    -------
    CompileResult
        The binary, the lowered names (NVRTC), the seconds it took and whether it came from the
        cache.

    Raises
    ------
    KernelCompileError
        With the compiler's log when compilation fails.
    RuntimeError
        When the target's compiler is not installed (see :func:`missing_compiler`).
    """
    names, extra_options = tuple(names), tuple(extra_options)
    start = time.perf_counter()
    result = CompileResult(label, target, names)
    # the compiler's presence is checked first: a cached answer never hides a missing compiler
    if target.is_hip:
        path, why = _hipcc()
        if path is None:
            raise RuntimeError(why)
        opts = _hipcc_options(target, extra_options, fast_compile)
    else:
        nvrtc, why = _nvrtc()
        if nvrtc is None:
            raise RuntimeError(why)
        opts = _nvrtc_options(target, extra_options, fast_compile, nvrtc.getVersion())
    if not offline_cache.enabled(use_cache):
        result.lowered, result.binary = _run_compiler(label, target, text, names, opts)
    else:
        compiler = offline_cache.hipcc_identity(path) if target.is_hip else offline_cache.nvrtc_identity(nvrtc)
        entry_key = result.key = offline_cache.key(compiler, target, text, names, opts)
        with offline_cache.once(entry_key):
            found = offline_cache.lookup(target, entry_key)
            if found is not None:
                result.binary, result.lowered = found
                result.cached = True
            else:
                result.lowered, result.binary = _run_compiler(label, target, text, names, opts)
                offline_cache.store(target, entry_key, result.binary, result.lowered)
    result.seconds = time.perf_counter() - start
    return result


def _run_compiler(label, target, text, names, opts):
    """``(lowered names, binary)`` from the target's compiler (no lowered names from hipcc)."""
    if target.is_hip:
        return {}, _compile_hipcc(_hipcc()[0], label, target, text, names, opts)
    return _compile.nvrtc_compile(label, target, text, opts, names)


def import_all_libraries():
    """Import every rocarray module, so every library has registered its instantiations; returns
    the registry (:func:`rocarray._core.compile.registered`)."""
    import importlib
    import pkgutil

    # The package's folder from this file's place, not from `import rocarray`: the package imports
    # the compile check (rocarray.compile_check), which reaches this module.
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for info in pkgutil.walk_packages([package], prefix="rocarray."):
        if ".tests" in info.name or info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)
    return _compile.registered()


def estimated_cost(source, target, fast_compile=False):
    """A rough relative cost of compiling ``source`` for ``target`` (its text times its
    instantiations; NVRTC's CUBIN path weighs double, a tenth of that in its fast-compile mode;
    hipcc at its fast level weighs 0.65), used to start the longest compiles first so a
    parallel matrix finishes soonest."""
    if target.is_hip:
        weight = 0.65 if fast_compile else 1
    else:
        weight = 0.2 if fast_compile else 2
    return weight * len(_compile.read_text(source)) * (1 + len(_compile.registered(source)))


def start_all(targets=OFFLINE_TARGETS, sources=None, workers=None, progress=None, use_cache=None,
              fast_compile=False):
    """Start compiling every source for every target whose compiler is present, in the background,
    the longest compiles first (``use_cache`` and ``fast_compile`` as in :func:`compile_text`).

    Returns
    -------
    futures : dict
        ``{(source, arch): Future}``; a future's result is ``(CompileResult, None)`` or ``(None,
        (source, Target, KernelCompileError))``.
    skipped : list of (Target, reason)
    pool : concurrent.futures.Executor
        Shut it down (``pool.shutdown(wait=False)``) when done.
    """
    import_all_libraries()
    sources = list(sources) if sources is not None else _compile.source_files()
    skipped = [(t, missing_compiler(t)) for t in targets if missing_compiler(t)]
    usable = [t for t in targets if not missing_compiler(t)]
    jobs = sorted(((s, t) for t in usable for s in sources), key=lambda job: -estimated_cost(*job, fast_compile))

    def run(job):
        start = time.perf_counter()
        try:
            outcome = compile_source(*job, use_cache=use_cache, fast_compile=fast_compile), None
        except KernelCompileError as exc:
            outcome = None, (job[0], job[1], exc)
        if progress is not None:
            progress(job[0], job[1], time.perf_counter() - start, outcome[1] is None)
        return outcome

    workers = workers or max(2, min(len(jobs), (os.cpu_count() or 2) + 1))
    pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="rocarray-compile")
    futures = {(s, t.arch): pool.submit(run, (s, t)) for s, t in jobs}
    return futures, skipped, pool


def compile_all(targets=OFFLINE_TARGETS, sources=None, workers=None, progress=None, use_cache=None,
                fast_compile=False):
    """Compile every source for every target whose compiler is present (:func:`start_all`, waited
    for; ``use_cache`` and ``fast_compile`` as in :func:`compile_text`).

    ``progress(source, target, seconds, ok)`` is called as each compile finishes (from the thread
    that ran it).

    Returns
    -------
    results : list of CompileResult
    failures : list of (source, Target, KernelCompileError)
    skipped : list of (Target, reason)
    """
    futures, skipped, pool = start_all(targets, sources, workers, progress, use_cache, fast_compile)
    results, failures = [], []
    try:
        for future in futures.values():
            result, failure = future.result()
            if failure:
                failures.append(failure)
            else:
                results.append(result)
    finally:
        pool.shutdown(wait=True)
    return results, failures, skipped
