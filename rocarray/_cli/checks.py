"""``self-check``: run every registered self-check on fresh random data, PASS/FAIL per check."""

import os
import time

import numpy

from rocarray._cli._fmt import first_lines
from rocarray._core import backend
from rocarray._core import harness


def registered_checks(name_filter=None):
    """Registered self-checks (after loading :mod:`rocarray._checks`), optionally filtered by substring."""
    harness.load_all()
    checks = harness.self_checks()
    if name_filter:
        checks = [c for c in checks if name_filter in c.name]
    return checks


def _sync():
    cupy = backend.cupy_module()
    if cupy is not None:
        cupy.cuda.Device().synchronize()


def run_self_checks(checks, out):
    """Run ``checks``, each with a fresh ``numpy.random.Generator``, and print one line per check.

    An exception from a check (an ``AssertionError`` mismatch, or any error such as a compile
    failure) makes it FAIL, :class:`~rocarray._core.harness.Unavailable` (a reference that is not
    installed here) makes it SKIP; the seed is printed so the failure can be reproduced with
    ``numpy.random.default_rng(seed)``. The device is synchronized after each check so that an
    asynchronous launch error is charged to the check that caused it.

    Parameters
    ----------
    checks : list of rocarray._core.harness.SelfCheck
    out : callable
        ``out(line)`` prints one line.

    Returns
    -------
    tuple of int
        ``(passed, failed)``.
    """
    passed = failed = skipped = 0
    width = max((len(c.name) for c in checks), default=0)
    for check in checks:
        seed = int.from_bytes(os.urandom(4), "little")
        t0 = time.perf_counter()
        try:
            check.run(numpy.random.default_rng(seed))
            _sync()
        except harness.Unavailable as exc:
            skipped += 1
            out(f"SKIP  {check.name.ljust(width)}  ({exc})")
            continue
        except Exception as exc:  # report every failure, keep going
            failed += 1
            out(f"FAIL  {check.name.ljust(width)}  (seed {seed})")
            message = f"{type(exc).__name__}: {exc}".rstrip()
            for line in first_lines(message, 12, indent="      "):
                out(line)
            continue
        passed += 1
        out(f"PASS  {check.name.ljust(width)}  {time.perf_counter() - t0:.2f} s")
    if not checks:
        out("no self-checks registered (libraries register them with rocarray._core.harness.self_check)")
    out(f"self-check: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return passed, failed
