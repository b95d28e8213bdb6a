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


class Unavailable(Exception):
    """Raised by a self-check whose reference is not installed here (e.g. torch): reported as
    skipped, not as a failure."""


def require(module):
    """Import and return ``module`` (a reference a check compares with), or raise
    :class:`Unavailable` naming it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise Unavailable(f"{module} is not installed (the reference of this check)") from None


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


# --------------------------------------------------------------------------------------------
# tolerances (self-checks and tests share them)
# --------------------------------------------------------------------------------------------

#: Machine epsilon of the dtypes results are computed in (complex: of its parts).
_EPS = {"e": 2.0**-10, "f": 2.0**-23, "d": 2.0**-52}

#: How the error bound grows with the number of terms a result accumulates.
GROWTH = {"sqrt": lambda n: n ** 0.5, "log2": lambda n: __import__("math").log2(max(n, 2)), "linear": float,
          "none": lambda n: 1.0}


def machine_epsilon(dtype):
    """The machine epsilon of ``dtype``'s (real) precision: 2^-10 float16, 2^-7 bfloat16, 2^-23 float32,
    2^-52 float64 (and complex64/complex128 by their parts)."""
    import numpy

    dtype = numpy.dtype(dtype)
    if dtype.name == "bfloat16":
        return 2.0**-7
    return _EPS[dtype.char.lower()] if dtype.char.lower() in _EPS else _EPS["d"]


def tolerance(dtype, n=1, *, factor=8, growth="sqrt"):
    """Relative tolerance of a ``dtype`` result accumulated over ``n`` terms:
    ``factor * eps * max(1, growth(n))`` (``growth``: ``'sqrt'`` for sums of random rounding errors,
    ``'log2'`` for pairwise trees, ``'linear'`` for recurrences such as triangular solves,
    ``'none'``)."""
    return factor * machine_epsilon(dtype) * max(1.0, GROWTH[growth](max(int(n), 1)))


def assert_close(actual, expected, dtype, n=1, *, factor=8, growth="sqrt", atol_scale=None, name="result"):
    """Raise ``AssertionError`` unless ``actual`` (device or host) matches the float64/complex128
    reference ``expected`` within :func:`tolerance`, relative to each element and to
    ``atol_scale`` (default: the largest magnitude of ``expected``) for elements near zero."""
    import numpy

    from rocarray._numpy.transfer import asnumpy

    got = numpy.asarray(asnumpy(actual))
    want = numpy.asarray(expected)
    if got.shape != want.shape:
        raise AssertionError(f"{name}: shape {got.shape}, expected {want.shape}")
    rtol = tolerance(dtype, n, factor=factor, growth=growth)
    scale = atol_scale if atol_scale is not None else (float(numpy.max(numpy.abs(want))) if want.size else 0.0)
    wide = numpy.complex128 if got.dtype.kind == "c" or want.dtype.kind == "c" else numpy.float64
    numpy.testing.assert_allclose(got.astype(wide), want.astype(wide), rtol=rtol, atol=rtol * float(scale),
                                  err_msg=name)
