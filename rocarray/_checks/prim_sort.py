"""Self-checks and vendor-ratio benchmark cases of the prim radix sort (walked by ``python -m rocarray``).

Self-checks sort small fresh random inputs (every key dtype, NaN/-0.0/inf, duplicate-heavy data,
descending, segmented, N-D along every axis, complex, lexsort) and compare with NumPy's stable
sort exactly (bit for bit for keys, equal indices for argsorts); they raise ``AssertionError`` on a
mismatch. Benchmark cases time ``ra.sort``/``ra.argsort``/``ra.lexsort``/``ra.partition`` against
the CuPy call of the same name (CUB/Thrust radix sort underneath), and the key-value and segmented
sorts of :mod:`rocarray.prim` against the nearest CuPy formulation, on the same data: 2^20 to
2^28 keys, rows of 16 to 65536 keys, segments of 16 to 65536 keys, two and three lexsort keys,
a partition at a small kth and at the middle. Bytes moved per pass: one read and one write of the
keys (and values).
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase
from rocarray.prim import _sort

_LIB = "prim"
_KEY_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
               "float16", "float32", "float64")


def _api():
    from rocarray._numpy import sorting as _sort_api

    return _sort_api


def host_keys(rng, shape, dtype, distinct=None):
    """Random keys; floats include NaN (both signs), +-0.0 and +-inf; ``distinct`` limits the
    number of distinct values (duplicate-heavy data where stability shows)."""
    dtype = numpy.dtype(dtype)
    size = int(numpy.prod(shape))
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind == "c":
        part = numpy.float32 if dtype == numpy.complex64 else numpy.float64
        with numpy.errstate(invalid="ignore"):
            return (host_keys(rng, shape, part, distinct) + 1j * host_keys(rng, shape, part, distinct)).astype(dtype)
    if distinct is not None:
        pool = host_keys(rng, distinct, dtype)
        return pool[rng.integers(0, distinct, size)].reshape(shape)
    if dtype.kind == "f":
        x = (rng.standard_normal(size) * 100).astype(dtype)
        specials = numpy.array([numpy.nan, -numpy.nan, 0.0, -0.0, numpy.inf, -numpy.inf], dtype)
        pick = rng.random(size) < 0.05
        x[pick] = specials[rng.integers(0, len(specials), int(pick.sum()))]
        return x.reshape(shape)
    info = numpy.iinfo(dtype)
    return rng.integers(int(info.min), int(info.max), size=size, endpoint=True, dtype=dtype).reshape(shape)


def _same(name, got, want):
    got = numpy.asarray(got)
    if got.shape != want.shape or got.dtype != want.dtype:
        raise AssertionError(f"{name}: shape/dtype {got.shape} {got.dtype} != {want.shape} {want.dtype}")
    if not numpy.array_equal(got.view(numpy.uint8), numpy.ascontiguousarray(want).view(numpy.uint8)):
        raise AssertionError(f"{name}: differs from NumPy's stable sort")


@harness.self_check(_LIB, "sort_argsort")
def check_sort_argsort(rng):
    cupy, api = backend.cupy(), _api()
    for dtype in _KEY_DTYPES + ("complex64", "complex128"):
        for n in (1, 65, 10_007):
            for distinct in (None, 3):
                x = host_keys(rng, n, dtype, distinct)
                dx = cupy.asarray(x)
                _same(f"sort {dtype} n={n}", cupy.asnumpy(api.sort(dx)), numpy.sort(x, kind="stable"))
                _same(f"argsort {dtype} n={n}", cupy.asnumpy(api.argsort(dx)), numpy.argsort(x, kind="stable"))


@harness.self_check(_LIB, "radix_sort_prim")
def check_prim(rng):
    cupy = backend.cupy()
    for dtype in ("int32", "float32", "uint64"):
        x = host_keys(rng, 20_001, dtype, 50)
        dx = cupy.asarray(x)
        perm = numpy.argsort(x, kind="stable")
        v = rng.integers(0, 1 << 40, x.size)
        k2, v2 = _sort.radix_sort_pairs(dx, cupy.asarray(v))
        _same(f"radix_sort_pairs {dtype}", cupy.asnumpy(k2), x[perm])
        _same(f"radix_sort_pairs values {dtype}", cupy.asnumpy(v2), v[perm])
        # descending: reverse order of distinct keys, ties in input order
        want = numpy.lexsort((numpy.arange(x.size), -_sort.key_image(x).astype(numpy.float64)))
        if dtype != "uint64":
            _same(f"radix_argsort descending {dtype}", cupy.asnumpy(_sort.radix_argsort(dx, descending=True)), want)
        offs = numpy.unique(numpy.concatenate([[0, x.size], rng.integers(0, x.size, 30)]))
        offs = numpy.insert(offs, 3, offs[2])  # an empty segment
        want = numpy.concatenate([numpy.sort(x[a:b], kind="stable") for a, b in zip(offs[:-1], offs[1:])])
        got = _sort.segmented_radix_sort_keys(dx, cupy.asarray(offs))
        _same(f"segmented_radix_sort_keys {dtype}", cupy.asnumpy(got), want)


@harness.self_check(_LIB, "sort_axes_lexsort")
def check_axes(rng):
    cupy, api = backend.cupy(), _api()
    for shape in ((7, 300, 5), (3000, 3), (20, 17)):
        x = host_keys(rng, shape, "float32", 20)
        dx = cupy.asarray(x)
        for axis in list(range(len(shape))) + [None]:
            _same(f"sort {shape} axis {axis}", cupy.asnumpy(api.sort(dx, axis=axis)),
                  numpy.sort(x, axis=axis, kind="stable"))
            _same(f"argsort {shape} axis {axis}", cupy.asnumpy(api.argsort(dx, axis=axis)),
                  numpy.argsort(x, axis=axis, kind="stable"))
    keys = [host_keys(rng, (4, 500), d, 4) for d in ("int8", "float64", "uint16")]
    _same("lexsort", cupy.asnumpy(api.lexsort([cupy.asarray(k) for k in keys])), numpy.lexsort(keys))


# --------------------------------------------------------------------------------------------
# benchmark cases: rocarray's sorts against cupy.sort / argsort / lexsort / partition on the same data
# --------------------------------------------------------------------------------------------

def _keys(n, dtype):
    """Fresh device keys: floats uniform in [0, 1), integers uniform over the dtype's whole range
    (every digit varies)."""
    cupy = backend.cupy()
    dtype = numpy.dtype(dtype)
    if dtype.kind == "f":
        return cupy.random.random(n, dtype=dtype)
    info = numpy.iinfo(dtype)
    return cupy.random.randint(int(info.min), int(info.max), n, dtype=numpy.int64).astype(dtype)


def _register_benchmarks():
    n = 1 << 28
    n26 = 1 << 26
    seg = 1 << 10  # segment length of the segmented sort: 2^26 keys in 2^16 segments

    def setup(dtype, count=n):
        return lambda: (_keys(count, dtype),)

    def sort_case(name, dtype, count, suffix=""):
        harness.bench_case(BenchCase(name=f"{_LIB}.{name}_{dtype}{suffix}", library=_LIB, setup=setup(dtype, count),
                                     rocarray=lambda x: _api().sort(x), vendor=lambda x: backend.cupy().sort(x),
                                     bytes_moved=2 * count * numpy.dtype(dtype).itemsize))

    def argsort_case(dtype, count, suffix=""):
        harness.bench_case(BenchCase(name=f"{_LIB}.argsort_{dtype}{suffix}", library=_LIB, setup=setup(dtype, count),
                                     rocarray=lambda x: _api().argsort(x), vendor=lambda x: backend.cupy().argsort(x),
                                     bytes_moved=count * (numpy.dtype(dtype).itemsize + 8)))

    for dtype in ("float32", "int32", "uint8", "uint16"):
        sort_case("sort", dtype, n)
    argsort_case("int32", n)

    def setup_pairs(values, count=n):
        def make():
            cupy = backend.cupy()
            if numpy.dtype(values).kind == "f":
                return _keys(count, "int32"), cupy.random.random(count, dtype=values)
            return _keys(count, "int32"), cupy.random.randint(-1000, 1000, count, dtype=values)
        return make

    def pairs_vendor(keys, values):
        # CuPy has no key-value sort: the argsort of the keys, then keys and values gathered through it
        perm = backend.cupy().argsort(keys)
        return keys[perm], values[perm]

    def pairs_case(values, count, suffix=""):
        harness.bench_case(BenchCase(name=f"{_LIB}.radix_sort_pairs_int32_{values}{suffix}", library=_LIB,
                                     setup=setup_pairs(values, count),
                                     rocarray=lambda k, v: _sort.radix_sort_pairs(k, v), vendor=pairs_vendor,
                                     bytes_moved=2 * count * (4 + numpy.dtype(values).itemsize)))

    def segmented_case(length, suffix=""):
        # equal segments, so CuPy's sort along the last axis of the (segments, length) view is the same sort
        def make():
            cupy = backend.cupy()
            return cupy.random.random(n26, dtype=numpy.float32), cupy.arange(0, n26 + 1, length, dtype=numpy.int64)

        harness.bench_case(BenchCase(name=f"{_LIB}.segmented_radix_sort_keys_float32_2^26{suffix}", library=_LIB,
                                     setup=make,
                                     rocarray=lambda x, offs: _sort.segmented_radix_sort_keys(x, offs),
                                     vendor=lambda x, offs: backend.cupy().sort(x.reshape(-1, length), axis=-1),
                                     bytes_moved=2 * n26 * 4))

    def lexsort_case(count, k, name):
        def make():
            # k int32 keys as one (k, count) array; the primary (last) one takes 1024 values, so
            # ties are common and the secondary keys decide among them
            cupy = backend.cupy()
            keys = cupy.empty((k, count), dtype=numpy.int32)
            for i in range(k - 1):
                keys[i] = cupy.random.randint(-(1 << 31), (1 << 31) - 1, count, dtype=numpy.int32)
            keys[k - 1] = cupy.random.randint(0, 1024, count, dtype=numpy.int32)
            return (keys,)

        harness.bench_case(BenchCase(name=f"{_LIB}.{name}", library=_LIB, setup=make,
                                     rocarray=lambda keys: _api().lexsort(keys),
                                     vendor=lambda keys: backend.cupy().lexsort(keys),
                                     bytes_moved=count * (k * 4 + 8)))

    def partition_case(count, kth, name):
        harness.bench_case(BenchCase(name=f"{_LIB}.{name}", library=_LIB, setup=setup("float32", count),
                                     rocarray=lambda x: _api().partition(x, kth),
                                     vendor=lambda x: backend.cupy().partition(x, kth),
                                     bytes_moved=2 * count * 4))

    pairs_case("float32", n)
    segmented_case(seg)
    lexsort_case(n26, 2, "lexsort_int32_2^26")
    # kth at the middle: CuPy's partition then sorts the whole array (its selection kernel is for a
    # small kth), as rocarray's always does
    partition_case(n26, n26 // 2, "partition_float32_2^26")

    # the sweeps: other sizes, dtypes, row lengths, segment lengths, key counts and kth
    for log2 in (20, 24, 28):
        count = 1 << log2
        for dtype in ("float32", "int32", "uint8", "uint16", "float64"):
            if log2 < 28 or dtype == "float64":
                sort_case("sort", dtype, count, f"_2^{log2}")
        for dtype in ("int32", "float32"):
            if log2 < 28 or dtype == "float32":
                argsort_case(dtype, count, f"_2^{log2}")
        for values in ("float32", "int64"):
            if log2 < 28 or values == "int64":
                pairs_case(values, count, f"_2^{log2}")
    for row in (1 << 4, 1 << 10, 1 << 16):  # 2^24 float32 keys as (2^24 / row, row), sorted along the rows
        rows = (1 << 24) // row
        harness.bench_case(BenchCase(
            name=f"{_LIB}.sort_rows_float32_2^{rows.bit_length() - 1}x{row}", library=_LIB,
            setup=(lambda r: lambda: (_keys(1 << 24, "float32").reshape(-1, r),))(row),
            rocarray=lambda x: _api().sort(x, axis=-1), vendor=lambda x: backend.cupy().sort(x, axis=-1),
            bytes_moved=2 * (1 << 24) * 4))
    for length in (1 << 4, 1 << 16):
        segmented_case(length, f"_seg{length}")
    for log2 in (20, 24, 26):
        count = 1 << log2
        if log2 < 26:
            lexsort_case(count, 2, f"lexsort_int32_2^{log2}")
            partition_case(count, count // 2, f"partition_float32_2^{log2}")
        lexsort_case(count, 3, f"lexsort_3keys_int32_2^{log2}")
        partition_case(count, 100, f"partition_kth100_float32_2^{log2}")


_register_benchmarks()
