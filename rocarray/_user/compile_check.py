"""Compile a user's kernel source offline for every target (:func:`compile_check`).

The source goes through the same offline compilers as rocarray's own kernels
(:func:`rocarray._core.offline.compile_text`: NVRTC for ``sm_90``, Debian's hipcc for ``gfx90a`` and
``gfx940``), with rocarray's portability headers pasted in front and the target's ``-D`` defines.
"""

import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from rocarray._user._source_text import _mask

__all__ = ["compile_check", "CompileCheckResult", "TargetResult"]

#: The targets :func:`compile_check` knows: those of the offline compile matrix.
DEFAULT_TARGETS = ("sm_90", "gfx90a", "gfx940")


@dataclass(frozen=True)
class TargetResult:
    """How one source compiled for one target.

    Attributes
    ----------
    target : str
        ``'sm_90'``, ``'gfx90a'`` or ``'gfx940'``.
    vendor : str
        ``'cuda'`` (NVRTC) or ``'hip'`` (hipcc).
    warp_size : int
        The ``RA_WARP_SIZE`` the source was compiled with.
    status : str
        ``'ok'``, ``'error'`` or ``'skipped'`` (the target's compiler is not installed).
    seconds : float
        Compile time (0 when nothing was compiled).
    log : str
        The compiler's log for an error, the reason for a skip, else empty.
    lowered : dict
        Name expression to mangled symbol (NVRTC only).
    """

    target: str
    vendor: str
    warp_size: int
    status: str
    seconds: float = 0.0
    log: str = ""
    lowered: dict = field(default_factory=dict)

    @property
    def ok(self):
        """Whether the source compiled for this target."""
        return self.status == "ok"


class CompileCheckResult(Sequence):
    """The :class:`TargetResult` of each target, in the order asked for; ``str()`` (and ``repr()``)
    is a small table followed by each error log and skip reason.

    Index it by position or by target name (``result['gfx90a']``). ``ok`` is true when no target
    failed; a skipped target (no compiler) is not a failure, so check ``compiled`` to know which
    targets were really built.
    """

    def __init__(self, label, results):
        self.label = label
        self._results = tuple(results)

    def __len__(self):
        return len(self._results)

    def __getitem__(self, key):
        if isinstance(key, str):
            for r in self._results:
                if r.target == key:
                    return r
            raise KeyError(key)
        return self._results[key]

    @property
    def ok(self):
        """True when no target failed to compile (skipped targets do not count as failures)."""
        return not self.failed

    @property
    def compiled(self):
        """Targets the source compiled for."""
        return tuple(r.target for r in self._results if r.status == "ok")

    @property
    def failed(self):
        """Targets the source failed to compile for."""
        return tuple(r.target for r in self._results if r.status == "error")

    @property
    def skipped(self):
        """Targets whose compiler is not installed here."""
        return tuple(r.target for r in self._results if r.status == "skipped")

    def lines(self, log_lines=40):
        """The report as lines: a summary, the table, then each error log (its first ``log_lines``
        lines) and each skip reason."""
        parts = [f"ok: {', '.join(self.compiled) or 'none'}"]
        if self.failed:
            parts.append(f"FAILED: {', '.join(self.failed)}")
        if self.skipped:
            parts.append(f"skipped: {', '.join(self.skipped)}")
        out = [f"compile check of {self.label}: {'; '.join(parts)}"]
        rows = [("target", "vendor", "warp", "status", "time")]
        rows += [(r.target, r.vendor, str(r.warp_size), r.status,
                  f"{r.seconds:.2f} s" if r.status != "skipped" else "-") for r in self._results]
        widths = [max(len(row[i]) for row in rows) for i in range(5)]
        out += ["  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
        for r in self._results:
            if r.status == "error":
                lines = r.log.strip().splitlines() or [""]
                out.append(f"{r.target} error:")
                out += ["    " + line for line in lines[:log_lines]]
                if len(lines) > log_lines:
                    out.append(f"    ... ({len(lines) - log_lines} more lines)")
            elif r.status == "skipped":
                out.append(f"{r.target} skipped: {' '.join(r.log.split())}")
        return out

    def __str__(self):
        return "\n".join(self.lines())

    __repr__ = __str__


def _include_lines(text):
    """``(line number, directive)`` of each ``#include`` outside comments and string literals."""
    code, _ = _mask(text)
    return [(code.count("\n", 0, m.start()) + 1, text[m.start():m.end()].strip())
            for m in re.finditer(r"^[ \t]*#[ \t]*include\b.*$", code, re.M)]


def _as_tuple(value, what):
    if isinstance(value, str):
        return (value,)
    try:
        out = tuple(value)
    except TypeError:
        raise TypeError(f"{what} must be a string or a sequence of strings") from None
    if not all(isinstance(v, str) for v in out):
        raise TypeError(f"{what} must be a string or a sequence of strings")
    return out


def compile_check(source, targets=DEFAULT_TARGETS, name_expressions=(), options=(), *, label=None):
    """Compile a kernel source offline for each target, without a GPU.

    The source is compiled the way rocarray compiles its own kernels: its portability headers
    (``ra_prelude.cuh``, ``ra_types.cuh``, ``ra_math.cuh``, ``ra_warp.cuh``, ``ra_async.cuh``,
    ``ra_wgmma.cuh``) pasted in front, and the target's defines (``RA_WARP_SIZE``, ``RA_HIP`` or ``RA_CUDA``,
    ``RA_ARCH_<ARCH>``, ...). ``sm_90`` compiles with NVRTC, ``gfx90a`` and ``gfx940`` with hipcc
    (HIP_PLATFORM=amd), in parallel. A target whose compiler is not installed is skipped, with the
    reason and what to install.

    Parameters
    ----------
    source : str or os.PathLike
        The source text (a path object: the text of that file). It follows rocarray's kernel rules:
        no ``#include`` (the headers are pasted), ``RA_WARP_SIZE`` and the ``ra_*`` warp helpers
        instead of 32 and CUDA's warp intrinsics (:func:`rocarray.hipify` rewrites those).
    targets : str or sequence of str, optional
        Among ``'sm_90'``, ``'gfx90a'``, ``'gfx940'`` (default: all three).
    name_expressions : str or sequence of str, optional
        Template instantiations to build (``'my_kernel<float, 256>'``); ``extern "C"`` kernels need
        none.
    options : str or sequence of str, optional
        Extra compiler options for every target, typically ``-D`` defines.
    label : str, optional
        The source's name in the compilers' logs and the report (default: the file's name for a
        path, else ``'source'``). Line numbers in the logs are the source's own.

    Returns
    -------
    CompileCheckResult
        One :class:`TargetResult` per target (``ok``, ``error`` with the compiler's log, or
        ``skipped`` with the reason, and the seconds taken); printing it shows a table.

    Raises
    ------
    ValueError
        For a target other than those above.
    TypeError
        For a ``source`` that is neither text nor a path, or options that are not strings.

    See Also
    --------
    hipify : Rewrite CUDA idioms into the form this check expects.

    Notes
    -----
    An ``#include`` line outside a comment is reported as an error for every target without
    compiling: CuPy's hiprtc path would silently drop it, so a source that relies on one works on
    NVIDIA and breaks on AMD.

    Examples
    --------
    >>> import rocarray as ra
    >>> result = ra.compile_check('''
    ... extern "C" __global__ void scale(float* x, float a, long long n) {
    ...     long long i = ra_global_thread_id();
    ...     if (i < n) x[i] *= a;
    ... }''')
    >>> result.ok
    True
    """
    from concurrent.futures import ThreadPoolExecutor

    from rocarray._core import compile as _compile
    from rocarray._core import offline
    from rocarray._core.errors import KernelCompileError

    if isinstance(source, os.PathLike):
        label = label or os.path.basename(os.fspath(source))
        with open(source, encoding="utf-8") as f:
            source = f.read()
    elif not isinstance(source, str):
        raise TypeError(f"source must be the source text (str) or a path, not {type(source).__name__}")
    label = " ".join((label or "source").split())  # one line: it goes into a comment and a #line
    known = {t.arch: t for t in offline.OFFLINE_TARGETS}
    chosen = []
    for name in _as_tuple(targets, "targets"):
        if name not in known:
            raise ValueError(f"unknown target {name!r}: compile_check knows {', '.join(known)}")
        if known[name] not in chosen:
            chosen.append(known[name])
    names = _as_tuple(name_expressions, "name_expressions")
    extra = _as_tuple(options, "options")

    includes = _include_lines(source)
    if includes:
        log = "\n".join(f"{label}:{line}: {directive}: rocarray sources never #include (hiprtc drops the line, so "
                        f"the source would compile for NVIDIA and break on AMD); the compile layer pastes "
                        f"rocarray's headers in front, and the toolkit's headers are not available"
                        for line, directive in includes)
        return CompileCheckResult(label, [TargetResult(t.arch, t.vendor, t.warp_size, "error", 0.0, log)
                                          for t in chosen])

    quoted = label.replace("\\", "\\\\").replace('"', '\\"')
    text = f'{_compile.header_text()}// ---- {label} ----\n#line 1 "{quoted}"\n{source}'

    def run(target):
        why = offline.missing_compiler(target)
        if why:
            return TargetResult(target.arch, target.vendor, target.warp_size, "skipped", 0.0, why)
        start = time.perf_counter()
        try:
            done = offline.compile_text(label, text, target, names, extra)
        except KernelCompileError as exc:
            log = exc.log + (f"\n(full source written to {exc.source_path})" if exc.source_path else "")
            status, lowered = "error", {}
        except (RuntimeError, OSError) as exc:  # the compiler vanished or could not be run
            log, status, lowered = f"{type(exc).__name__}: {exc}", "error", {}
        else:
            log, status, lowered = "", "ok", dict(done.lowered)
        return TargetResult(target.arch, target.vendor, target.warp_size, status, time.perf_counter() - start,
                            log, lowered)

    if len(chosen) <= 1:
        return CompileCheckResult(label, [run(t) for t in chosen])
    with ThreadPoolExecutor(max_workers=len(chosen), thread_name_prefix="rocarray-compile-check") as pool:
        return CompileCheckResult(label, list(pool.map(run, chosen)))
