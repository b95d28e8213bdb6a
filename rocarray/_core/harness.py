"""Registries that ``python -m rocarray`` and the asv benchmarks walk: self-checks and
vendor-ratio benchmark cases.

The modules of :mod:`rocarray._checks` (one per library area) register small self-checks
(rocarray against NumPy on fresh random inputs) and benchmark cases (rocarray against the vendor
path CuPy takes, on the same data, in the same run). ``import rocarray`` does not import them;
:func:`load_all` does.
"""

from dataclasses import dataclass
from typing import Callable, Optional

_self_checks = {}
_bench_cases = {}


@dataclass(frozen=True)
class SelfCheck:
    """One correctness check: ``run(rng)`` raises ``AssertionError`` on a mismatch."""

    name: str
    library: str
    run: Callable


@dataclass(frozen=True)
class BenchCase:
    """One rocarray-vs-vendor timing pair.

    ``setup()`` returns the arguments (device arrays, fresh random data); ``rocarray(*args)`` and
    ``vendor(*args)`` each run the operation once. ``bytes_moved``/``flops`` (of one call, for the
    default size) turn times into GB/s or TFLOP/s; ``floor_gbs`` is the bandwidth ceiling used for
    the "fraction of copy bandwidth" column (None: not memory-bound).
    """

    name: str
    library: str
    setup: Callable
    rocarray: Callable
    vendor: Callable
    bytes_moved: Optional[int] = None
    flops: Optional[int] = None
    memory_bound: bool = True


def self_check(library, name=None):
    """Decorator registering ``fn(rng)`` as a self-check of ``library``."""

    def wrap(fn):
        key = f"{library}.{name or fn.__name__}"
        _self_checks[key] = SelfCheck(key, library, fn)
        return fn

    return wrap


def bench_case(case):
    """Register a :class:`BenchCase` (returns it)."""
    _bench_cases[case.name] = case
    return case


def load_all():
    """Import every module of :mod:`rocarray._checks`, which registers the checks and cases."""
    import importlib
    import pkgutil

    import rocarray._checks as package

    for info in pkgutil.iter_modules(package.__path__, prefix=package.__name__ + "."):
        importlib.import_module(info.name)


def self_checks():
    """All registered self-checks, sorted by name."""
    return [_self_checks[k] for k in sorted(_self_checks)]


def bench_cases():
    """All registered benchmark cases, sorted by name."""
    return [_bench_cases[k] for k in sorted(_bench_cases)]


def standard_normal(rng, shape, dtype):
    """Host data for self-checks and benchmarks: standard normal values (real and imaginary parts
    for complex dtypes) in ``dtype``; never zeros."""
    import numpy

    dtype = numpy.dtype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)
