"""Self-checks and vendor-ratio benchmark cases of the prim histograms (walked by ``python -m rocarray``).

Self-checks run ``bincount`` and ``histogram`` on small fresh random inputs (shared-memory and
global-atomic bin counts, weights, explicit edges, values on edges) and compare with NumPy: counts
exactly, weighted sums to rounding. Benchmark cases time rocarray against CuPy's ``bincount`` and
``histogram`` on the same int32 / float32 device data of 2^20 to 2^28 elements: 256 and 100000
bins, weighted counts, histograms over an explicit range and over the data's own range.
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
# benchmark cases: rocarray vs CuPy at 2^20 to 2^28 elements
# --------------------------------------------------------------------------------------------

def _bincount_data(n, bins, weighted=False):
    def make():
        cupy = backend.cupy()
        x = cupy.random.randint(0, bins, size=n, dtype=numpy.int32)
        return (x, cupy.random.standard_normal(n)) if weighted else (x,)
    return make


def _histogram_data(n):
    return lambda: (backend.cupy().random.standard_normal(n, dtype=numpy.float32),)


def _bincount(bins, n, suffix=""):
    harness.bench_case(BenchCase(
        name=f"{_LIB}.bincount_{bins}_int32{suffix}", library=_LIB, setup=_bincount_data(n, bins),
        rocarray=lambda x: _api().bincount(x), vendor=lambda x: backend.cupy().bincount(x),
        bytes_moved=4 * n,
    ))


def _bincount_weighted(bins, n, suffix):
    # int32 values and float64 weights read once
    harness.bench_case(BenchCase(
        name=f"{_LIB}.bincount_weighted_{bins}_int32{suffix}", library=_LIB, setup=_bincount_data(n, bins, True),
        rocarray=lambda x, w: _api().bincount(x, weights=w), vendor=lambda x, w: backend.cupy().bincount(x, weights=w),
        bytes_moved=(4 + 8) * n,
    ))


def _histogram(bins, n, suffix=""):
    # an explicit range: no min/max pass, one read of the data
    harness.bench_case(BenchCase(
        name=f"{_LIB}.histogram_{bins}_float32{suffix}", library=_LIB, setup=_histogram_data(n),
        rocarray=lambda x: _api().histogram(x, bins=bins, range=(-4.0, 4.0)),
        vendor=lambda x: backend.cupy().histogram(x, bins=bins, range=(-4.0, 4.0)),
        bytes_moved=4 * n,
    ))


def _histogram_auto(bins, n, suffix):
    # the range from the data (NumPy's default): a min/max read before the binning read
    harness.bench_case(BenchCase(
        name=f"{_LIB}.histogram_auto_{bins}_float32{suffix}", library=_LIB, setup=_histogram_data(n),
        rocarray=lambda x: _api().histogram(x, bins=bins), vendor=lambda x: backend.cupy().histogram(x, bins=bins),
        bytes_moved=2 * 4 * n,
    ))


def _register_benchmarks():
    # the headline size (the names carry no size: 2^28)
    _bincount(256, _BENCH_N)
    _histogram(1024, _BENCH_N)
    # the sweeps: 2^20 elements, 100000 bins, weights, the range from the data
    for log2 in (20, 28):
        n = 1 << log2
        if log2 < 28:
            _bincount(256, n, f"_2^{log2}")
            _histogram(1024, n, f"_2^{log2}")
        _bincount(100_000, n, f"_2^{log2}")
        _histogram(100_000, n, f"_2^{log2}")
        _histogram_auto(1024, n, f"_2^{log2}")
    for log2 in (20, 26):
        _bincount_weighted(256, 1 << log2, f"_2^{log2}")


_register_benchmarks()
