"""Self-checks and vendor-ratio benchmark cases of prim select/search/unique (walked by
``python -m rocarray``).

Self-checks run ``nonzero``/``argwhere``/``extract``/``searchsorted``/``unique`` on small fresh
random inputs (every dtype, NaN and signed zeros, multi-tile sizes) and compare with NumPy exactly;
they raise ``AssertionError`` on a mismatch. Benchmark cases time the rocarray call against the
CuPy call on the same data (``x[mask]`` for the boolean-mask helper
:func:`rocarray.prim.mask_select`), at 2^24 and 2^28 elements (searchsorted: 2^20 and 2^24
queries into as many keys; argwhere: 4096^2 and 16384^2 masks), flat and by whole rows.
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

    def random(count):
        return backend.cupy().random.random(count, dtype=numpy.float32)

    def setup_unique(count, high):
        low = -(1 << 31) if high == (1 << 31) - 1 else 0
        return lambda: (backend.cupy().random.randint(low, high, count, dtype=numpy.int32),)

    def setup_mask(count):
        return lambda: (random(count) < 0.5,)

    def setup_mask_2d(edge):
        return lambda: (backend.cupy().random.random((edge, edge), dtype=numpy.float32) < 0.5,)

    def setup_extract(count):
        return lambda: (random(count) < 0.5, random(count))

    def setup_rows(count):
        # 50 % of the rows of a (count / 1024, 1024) array
        return lambda: (random(count // 1024) < 0.5, random(count).reshape(count // 1024, 1024))

    def setup_search(count):
        def make():
            a = backend.cupy().sort(random(count))
            return (a, random(count))
        return make

    def ra():
        import rocarray

        return rocarray

    def case(name, setup, ours, vendor, bytes_moved, memory_bound=True):
        harness.bench_case(BenchCase(name=f"{_LIB}.{name}", library=_LIB, setup=setup, rocarray=ours, vendor=vendor,
                                     bytes_moved=bytes_moved, memory_bound=memory_bound))

    def unique(count, suffix=""):
        case(f"unique_int32_full_range{suffix}", setup_unique(count, (1 << 31) - 1), lambda x: ra().unique(x),
             lambda x: backend.cupy().unique(x), None, False)
        case(f"unique_int32_small_range{suffix}", setup_unique(count, 1 << 20), lambda x: ra().unique(x),
             lambda x: backend.cupy().unique(x), 2 * count * 4)

    def nonzero(count, suffix=""):
        case(f"nonzero_bool{suffix}", setup_mask(count), lambda m: ra().nonzero(m),
             lambda m: backend.cupy().nonzero(m), count + (count // 2) * 8)
        case(f"flatnonzero_bool{suffix}", setup_mask(count), lambda m: ra().flatnonzero(m),
             lambda m: backend.cupy().flatnonzero(m), count + (count // 2) * 8)

    def flat_selections(count, suffix=""):
        case(f"extract_float32{suffix}", setup_extract(count), lambda c, x: ra().extract(c, x),
             lambda c, x: backend.cupy().extract(c, x), count * (1 + 4 + 2))
        case(f"compress_float32{suffix}", setup_extract(count), lambda c, x: ra().compress(c, x),
             lambda c, x: backend.cupy().compress(c, x), count * (1 + 4 + 2))
        case(f"mask_select_float32{suffix}", setup_extract(count), lambda c, x: _select.mask_select(x, c),
             lambda c, x: x[c], count * (1 + 4 + 2))

    def row_selections(count):
        # whole rows: the condition (one byte a row) read, the kept half of the rows read and written
        label = f"2^{(count // 1024).bit_length() - 1}x1024"
        case(f"compress_axis0_float32_{label}", setup_rows(count), lambda c, x: ra().compress(c, x, axis=0),
             lambda c, x: backend.cupy().compress(c, x, axis=0), count // 1024 + count * 4)
        case(f"mask_select_rows_float32_{label}", setup_rows(count), lambda c, x: _select.mask_select(x, c),
             lambda c, x: x[c], count // 1024 + count * 4)

    def argwhere(edge):
        case(f"argwhere_bool_{edge}^2", setup_mask_2d(edge), lambda m: ra().argwhere(m),
             lambda m: backend.cupy().argwhere(m), edge * edge + (edge * edge // 2) * 2 * 8)

    def searchsorted(count, suffix=""):
        case(f"searchsorted_float32{suffix}", setup_search(count), lambda a, v: ra().searchsorted(a, v),
             lambda a, v: backend.cupy().searchsorted(a, v), count * (4 + 8), False)

    # the headline sizes (their names carry no size: 2^28, and 2^24 for searchsorted)
    unique(n28)
    nonzero(n28)
    flat_selections(n28)
    argwhere(side)
    searchsorted(n24)
    # the sweeps: smaller sizes, and whole rows selected
    unique(n24, "_2^24")
    nonzero(n24, "_2^24")
    flat_selections(n24, "_2^24")
    argwhere(1 << 12)
    searchsorted(1 << 20, "_2^20")
    row_selections(n24)
    row_selections(n28)


_register_benchmarks()
