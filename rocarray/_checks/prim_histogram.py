"""Self-checks and vendor-ratio benchmark cases of the prim histograms (walked by ``python -m rocarray``).

Self-checks run ``bincount`` and ``histogram`` on small fresh random inputs (shared-memory and
global-atomic bin counts, weights, explicit edges, values on edges) and compare with NumPy: counts
exactly, weighted sums to rounding. Benchmark cases time rocarray against CuPy's ``bincount`` and
``histogram`` on the same 2**28-element int32 / float32 device data.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "prim"
_BENCH_N = 1 << 28


def _api():
    from rocarray._numpy import histograms as _histogram_api

    return _histogram_api


def _exact(name, got, want):
    got = backend.cupy().asnumpy(got)
    if got.dtype != want.dtype or got.shape != want.shape or not numpy.array_equal(got, want):
        raise AssertionError(f"{name}: rocarray {got[:8]}... ({got.dtype}) != NumPy {want[:8]}... ({want.dtype})")


def _close(name, got, want, n):
    got = backend.cupy().asnumpy(got)
    rtol = harness.tolerance(numpy.float64, n, factor=16)
    scale = float(numpy.max(numpy.abs(want))) if want.size else 0.0
    if got.shape != want.shape or not numpy.allclose(got, want, rtol=rtol, atol=rtol * max(scale, 1.0)):
        raise AssertionError(f"{name}: rocarray {got[:8]}... != NumPy {want[:8]}...")


@harness.self_check(_LIB, "bincount")
def check_bincount(rng):
    cupy, api = backend.cupy(), _api()
    for dtype in ("uint8", "int16", "int32", "int64"):
        for nbins in (7, 256, 100_000):
            n = 10_007
            high = min(nbins, numpy.iinfo(dtype).max + 1)
            x = rng.integers(0, high, size=n).astype(dtype)
            _exact(f"bincount {dtype} {nbins}", api.bincount(cupy.asarray(x)), numpy.bincount(x))
            _exact(f"bincount {dtype} minlength", api.bincount(cupy.asarray(x), minlength=nbins + 3),
                   numpy.bincount(x, minlength=nbins + 3))
            w = rng.standard_normal(n)
            _close(f"bincount {dtype} weighted", api.bincount(cupy.asarray(x), weights=cupy.asarray(w)),
                   numpy.bincount(x, weights=w), n)
    bad = numpy.array([0, 3, -1], numpy.int32)
    try:
        api.bincount(cupy.asarray(bad))
    except ValueError:
        pass
    else:
        raise AssertionError("bincount of a negative value did not raise ValueError")


@harness.self_check(_LIB, "histogram")
def check_histogram(rng):
    cupy, api = backend.cupy(), _api()
    n = 10_007
    for dtype in ("float16", "float32", "float64", "int32"):
        a = (rng.standard_normal(n) * 20).astype(dtype)
        # float16 cannot hold 100000 distinct edges over this range (NumPy raises, and so do we).
        for bins in (1, 10, 1024) if dtype == "float16" else (1, 10, 1024, 100_000):
            for rg in (None, (-10.5, 20.0)):
                hist, edges = api.histogram(cupy.asarray(a), bins=bins, range=rg)
                want, want_edges = numpy.histogram(a, bins=bins, range=rg)
                _exact(f"histogram {dtype} bins={bins} range={rg}", hist, want)
                _exact(f"histogram edges {dtype} bins={bins}", edges, want_edges)
        ed = numpy.sort(rng.standard_normal(17) * 10)
        _exact(f"histogram {dtype} explicit edges", api.histogram(cupy.asarray(a), bins=ed)[0],
               numpy.histogram(a, bins=ed)[0])
        w = rng.standard_normal(n)
        _close(f"histogram {dtype} weighted", api.histogram(cupy.asarray(a), bins=33, weights=cupy.asarray(w))[0],
               numpy.histogram(a, bins=33, weights=w)[0], n)
    a = rng.integers(0, 101, size=n).astype(numpy.int64)  # every value on an edge
    _exact("histogram values on edges", api.histogram(cupy.asarray(a), bins=20, range=(0, 100))[0],
           numpy.histogram(a, bins=20, range=(0, 100))[0])


# --------------------------------------------------------------------------------------------
# benchmark cases: rocarray vs CuPy at 2^28 elements
# --------------------------------------------------------------------------------------------

def _bincount_data():
    cupy = backend.cupy()
    return (cupy.random.randint(0, 256, size=_BENCH_N, dtype=numpy.int32),)


def _histogram_data():
    cupy = backend.cupy()
    return (cupy.random.standard_normal(_BENCH_N, dtype=numpy.float32),)


harness.bench_case(BenchCase(
    name=f"{_LIB}.bincount_256_int32", library=_LIB, setup=_bincount_data,
    rocarray=lambda x: _api().bincount(x), vendor=lambda x: backend.cupy().bincount(x),
    bytes_moved=4 * _BENCH_N,
))

harness.bench_case(BenchCase(
    name=f"{_LIB}.histogram_1024_float32", library=_LIB, setup=_histogram_data,
    rocarray=lambda x: _api().histogram(x, bins=1024, range=(-4.0, 4.0)),
    vendor=lambda x: backend.cupy().histogram(x, bins=1024, range=(-4.0, 4.0)),
    bytes_moved=4 * _BENCH_N,
))
