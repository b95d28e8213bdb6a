"""Self-checks and vendor-ratio benchmark cases of prim select/search/unique (walked by
``python -m rocarray``).

Self-checks run ``nonzero``/``argwhere``/``extract``/``searchsorted``/``unique`` on small fresh
random inputs (every dtype, NaN and signed zeros, multi-tile sizes) and compare with NumPy exactly;
they raise ``AssertionError`` on a mismatch. Benchmark cases time the rocarray call against the
CuPy call on the same data (``x[mask]`` for the boolean-mask helper
:func:`rocarray.prim.mask_select`).
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase
from rocarray.prim import _select
from rocarray._core.dtypes import ALL_DTYPES

_LIB = "prim"


def _api():
    from rocarray._numpy import searching as _select_api

    return _select_api


def _host(rng, n, dtype, zeros=0.5, span=50):
    dtype = numpy.dtype(dtype)
    if dtype.itemsize <= 2 or dtype.kind == "b":
        span = min(span, 100)  # int8/16, uint8/16 and float16 hold these exactly
    x = rng.integers(-span, span, n) * (rng.random(n) >= zeros)
    if dtype.kind == "c":
        x = x + 1j * rng.integers(-2, 2, n)
    x = x.astype(dtype)
    if dtype.kind in "fc":
        x[rng.random(n) < 0.05] = numpy.nan
        if dtype.kind == "f":
            x[rng.random(n) < 0.05] = -0.0
    return x


def _same(name, got, want):
    got = numpy.asarray(got)
    want = numpy.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        raise AssertionError(f"{name}: shape/dtype {got.shape} {got.dtype} != {want.shape} {want.dtype}")
    if not numpy.array_equal(got, want, equal_nan=want.dtype.kind in "fc"):
        raise AssertionError(f"{name}: differs from NumPy")


@harness.self_check(_LIB, "nonzero_extract")
def check_nonzero_extract(rng):
    cupy, api = backend.cupy(), _api()
    for dtype in ALL_DTYPES:
        for n in (1, 65, 10_007):
            x = _host(rng, n, dtype)
            dx = cupy.asarray(x)
            _same(f"flatnonzero {dtype} n={n}", cupy.asnumpy(api.flatnonzero(dx)), numpy.flatnonzero(x))
            c = rng.random(n) < 0.5
            _same(f"extract {dtype} n={n}", cupy.asnumpy(api.extract(cupy.asarray(c), dx)), numpy.extract(c, x))
    x = _host(rng, (3, 50, 7), "float32")
    got = api.nonzero(cupy.asarray(x))
    for g, w in zip(got, numpy.nonzero(x)):
        _same("nonzero 3-d", cupy.asnumpy(g), w)
    _same("argwhere 3-d", cupy.asnumpy(api.argwhere(cupy.asarray(x))), numpy.argwhere(x))


@harness.self_check(_LIB, "searchsorted")
def check_searchsorted(rng):
    cupy, api = backend.cupy(), _api()
    for dtype in ALL_DTYPES:
        a = numpy.sort(_host(rng, 5000, dtype, zeros=0.1))
        v = _host(rng, 777, dtype, zeros=0.1)
        for side in ("left", "right"):
            _same(f"searchsorted {dtype} {side}", cupy.asnumpy(api.searchsorted(cupy.asarray(a), cupy.asarray(v),
                                                                                side=side)),
                  numpy.searchsorted(a, v, side=side))


@harness.self_check(_LIB, "unique")
def check_unique(rng):
    cupy, api = backend.cupy(), _api()
    for dtype in ALL_DTYPES:
        for span in (5, 1 << 20):
            x = _host(rng, 20_011, dtype, zeros=0.1, span=span)
            got = api.unique(cupy.asarray(x), return_index=True, return_inverse=True, return_counts=True)
            want = numpy.unique(x, return_index=True, return_inverse=True, return_counts=True)
            for k, (g, w) in enumerate(zip(got, want)):
                _same(f"unique {dtype} span={span} part {k}", cupy.asnumpy(g), w)


# --------------------------------------------------------------------------------------------
# benchmark cases: rocarray against the CuPy call on the same data
# --------------------------------------------------------------------------------------------

def _register_benchmarks():
    n28 = 1 << 28
    n24 = 1 << 24
    side = 1 << 14

    def setup_unique_full():
        return (backend.cupy().random.randint(-(1 << 31), (1 << 31) - 1, n28, dtype=numpy.int32),)

    def setup_unique_small():
        return (backend.cupy().random.randint(0, 1 << 20, n28, dtype=numpy.int32),)

    def setup_mask():
        return (backend.cupy().random.random(n28, dtype=numpy.float32) < 0.5,)

    def setup_mask_2d():
        return (backend.cupy().random.random((side, side), dtype=numpy.float32) < 0.5,)

    def setup_extract():
        cupy = backend.cupy()
        return (cupy.random.random(n28, dtype=numpy.float32) < 0.5, cupy.random.random(n28, dtype=numpy.float32))

    def setup_search():
        cupy = backend.cupy()
        a = cupy.sort(cupy.random.random(n24, dtype=numpy.float32))
        return (a, cupy.random.random(n24, dtype=numpy.float32))

    def ra():
        import rocarray

        return rocarray

    harness.bench_case(BenchCase(name=f"{_LIB}.unique_int32_full_range", library=_LIB, setup=setup_unique_full,
                                 rocarray=lambda x: ra().unique(x), vendor=lambda x: backend.cupy().unique(x),
                                 bytes_moved=None, memory_bound=False))
    harness.bench_case(BenchCase(name=f"{_LIB}.unique_int32_small_range", library=_LIB, setup=setup_unique_small,
                                 rocarray=lambda x: ra().unique(x), vendor=lambda x: backend.cupy().unique(x),
                                 bytes_moved=2 * n28 * 4, memory_bound=True))
    harness.bench_case(BenchCase(name=f"{_LIB}.nonzero_bool", library=_LIB, setup=setup_mask,
                                 rocarray=lambda m: ra().nonzero(m), vendor=lambda m: backend.cupy().nonzero(m),
                                 bytes_moved=n28 + (n28 // 2) * 8))
    harness.bench_case(BenchCase(name=f"{_LIB}.extract_float32", library=_LIB, setup=setup_extract,
                                 rocarray=lambda c, x: ra().extract(c, x), vendor=lambda c, x: backend.cupy().extract(c, x),
                                 bytes_moved=n28 * (1 + 4 + 2)))
    harness.bench_case(BenchCase(name=f"{_LIB}.flatnonzero_bool", library=_LIB, setup=setup_mask,
                                 rocarray=lambda m: ra().flatnonzero(m), vendor=lambda m: backend.cupy().flatnonzero(m),
                                 bytes_moved=n28 + (n28 // 2) * 8))
    harness.bench_case(BenchCase(name=f"{_LIB}.argwhere_bool_16384^2", library=_LIB, setup=setup_mask_2d,
                                 rocarray=lambda m: ra().argwhere(m), vendor=lambda m: backend.cupy().argwhere(m),
                                 bytes_moved=n28 + (n28 // 2) * 2 * 8))
    harness.bench_case(BenchCase(name=f"{_LIB}.compress_float32", library=_LIB, setup=setup_extract,
                                 rocarray=lambda c, x: ra().compress(c, x), vendor=lambda c, x: backend.cupy().compress(c, x),
                                 bytes_moved=n28 * (1 + 4 + 2)))
    harness.bench_case(BenchCase(name=f"{_LIB}.mask_select_float32", library=_LIB, setup=setup_extract,
                                 rocarray=lambda c, x: _select.mask_select(x, c), vendor=lambda c, x: x[c],
                                 bytes_moved=n28 * (1 + 4 + 2)))
    harness.bench_case(BenchCase(name=f"{_LIB}.searchsorted_float32", library=_LIB, setup=setup_search,
                                 rocarray=lambda a, v: ra().searchsorted(a, v),
                                 vendor=lambda a, v: backend.cupy().searchsorted(a, v),
                                 bytes_moved=n24 * (4 + 8), memory_bound=False))


_register_benchmarks()
