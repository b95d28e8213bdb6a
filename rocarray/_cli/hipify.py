"""``hipify FILE [-o OUT] [--check]``: rewrite a CUDA source into rocarray's portable form."""

import os
import sys


def run_hipify(path, out, err, output=None, check=False, targets=None):
    """Rewrite ``path`` with :func:`rocarray.hipify`; print the result (or write it to ``output``)
    and the warnings, compiler-style (``FILE:LINE: warning: reason [rule]``).

    Parameters
    ----------
    path : str
        The CUDA source; ``'-'`` reads standard input.
    out, err : callable
        ``out(line)`` prints the rewritten source, ``err(line)`` the warnings and reports (kept apart
        so that the source can be redirected into a file).
    output : str, optional
        Write the rewritten source there instead of printing it.
    check : bool
        Also compile the result with :func:`rocarray.compile_check` and print its table.
    targets : list of rocarray._core.backend.Target, optional
        The targets of ``check`` (default: all three).

    Returns
    -------
    int
        0 done (warnings are not failures); 1 ``check`` found a target that does not compile; 2 the
        file could not be read or written.
    """
    from rocarray._user.compile_check import DEFAULT_TARGETS, compile_check
    from rocarray._user.hipify import hipify

    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        err(f"hipify: cannot read {name}: {exc}")
        return 2
    source, warnings = hipify(text)
    if output is None:
        out(source[:-1] if source.endswith("\n") else source)
    else:
        try:
            with open(output, "w", encoding="utf-8") as f:
                f.write(source)
        except OSError as exc:
            err(f"hipify: cannot write {output}: {exc}")
            return 2
    for w in warnings:
        err(f"{name}:{w.line}: warning: {w.reason} [{w.rule}]")
    wrote = f"; wrote {output}" if output is not None else ""
    err(f"hipify: {len(warnings)} warning(s){wrote}")
    if not check:
        return 0
    arches = [t.arch for t in targets] if targets else list(DEFAULT_TARGETS)
    result = compile_check(source, targets=arches, label=os.path.basename(output or name))
    for line in result.lines():
        err(line)
    return 0 if result.ok else 1
