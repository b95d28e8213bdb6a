"""Registries that ``python -m rocarray`` walks: self-checks and vendor-ratio benchmarks.

Each library registers, next to its code (``rocarray/<library>/_checks.py``), small self-checks
(rocarray against NumPy on fresh random inputs) and benchmark cases (rocarray against the vendor
path CuPy takes, on the same data, in the same run). :func:`rocarray._core.compile.import_all_libraries`
imports every module, which fills these registries.
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
