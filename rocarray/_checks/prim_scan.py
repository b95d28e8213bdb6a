"""Self-checks and vendor-ratio benchmark cases of the prim scans (walked by ``python -m rocarray``).

Self-checks run the scans on small fresh random inputs (every dtype, N-D along every axis,
exclusive and segmented forms, NaN variants) and compare with NumPy in float64/complex128 (exactly
for integers); they raise ``AssertionError`` on a mismatch. Benchmark cases time ``ra.cumsum``,
``ra.cumprod`` and ``ra.nancumsum`` against the CuPy call of the same name (CUB underneath), and the
exclusive and segmented scans of :mod:`rocarray.prim` against the nearest CuPy formulation, on the
same data: 1-D scans of 2^20 to 2^28 elements (float32, float64, int32 into int64; complex64
products), both axes of a 16384 x 16384 float32 array, and segments of 32 to 100000 elements on
average; bytes moved = one read of the input and one write of the result.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase
from rocarray._core.dtypes import ALL_DTYPES
from rocarray.prim import _scan

_LIB = "prim"


def _api():
    from rocarray._numpy import scans as _scan_api

    return _scan_api


def _host(rng, shape, dtype, op="add"):
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(0, 100, size=shape).astype(dtype)
    if dtype.kind == "f":
        return (rng.uniform(0.99, 1.01, shape) if op == "mul" else rng.random(shape)).astype(dtype)
    re = rng.uniform(0.99, 1.01, shape) if op == "mul" else rng.random(shape)
    return (re + 0.01j * rng.random(shape)).astype(dtype)


def _compare(name, got, want, dtype, n):
    got = numpy.asarray(got)
    dtype = numpy.dtype(dtype)
    if got.shape != want.shape or got.dtype != dtype:
        raise AssertionError(f"{name}: shape/dtype {got.shape} {got.dtype} != {want.shape} {dtype}")
    if dtype.kind in "biu":
        if not numpy.array_equal(got, want):
            raise AssertionError(f"{name}: integer scan differs from NumPy")
        return
    rtol = harness.tolerance(dtype, n, factor=16, growth="log2")
    scale = float(numpy.max(numpy.abs(want))) if want.size else 0.0
    g = got.astype(numpy.complex128)
    if not numpy.allclose(g, want, rtol=rtol, atol=rtol * scale):
        raise AssertionError(f"{name}: max error {numpy.max(numpy.abs(g - want)):.3g} (rtol {rtol:.1e})")


def _ref(x, axis, op, nan=False):
    dtype = _scan.accumulation_dtype(x.dtype)
    if nan and x.dtype.kind in "fc":
        x = numpy.where(numpy.isnan(x), 0 if op == "add" else 1, x)
    fn = numpy.cumsum if op == "add" else numpy.cumprod
    if dtype.kind in "fc":
        return fn(x.astype(numpy.complex128), axis=axis)
    return fn(x, axis=axis, dtype=dtype)


@harness.self_check(_LIB, "cumsum_cumprod")
def check_cumsum_cumprod(rng):
    cupy, api = backend.cupy(), _api()
    for dtype in ALL_DTYPES:
        for op, fn in (("add", api.cumsum), ("mul", api.cumprod)):
            for n in (1, 65, 10_007):
                x = _host(rng, n, dtype, op)
                _compare(f"{fn.__name__} {dtype} n={n}", cupy.asnumpy(fn(cupy.asarray(x))), _ref(x, 0, op),
                         _scan.accumulation_dtype(x.dtype), n)


@harness.self_check(_LIB, "scan_axes")
def check_scan_axes(rng):
    cupy, api = backend.cupy(), _api()
    for shape in ((7, 300, 5), (9000, 3), (3, 9000), (20, 17)):
        x = _host(rng, shape, "float32")
        dx = cupy.asarray(x)
        for axis in range(len(shape)):
            _compare(f"cumsum {shape} axis {axis}", cupy.asnumpy(api.cumsum(dx, axis=axis)),
                     _ref(x, axis, "add"), numpy.float32, shape[axis])
            _compare(f"cumsum {shape} axis {axis} transposed", cupy.asnumpy(api.cumsum(dx.T, axis=axis)),
                     _ref(x.T, axis, "add"), numpy.float32, shape[::-1][axis])


@harness.self_check(_LIB, "nancumsum_nancumprod")
def check_nan(rng):
    cupy, api = backend.cupy(), _api()
    for dtype in ("float16", "float32", "float64", "complex64", "complex128"):
        for op, fn in (("add", api.nancumsum), ("mul", api.nancumprod)):
            x = _host(rng, 5000, dtype, op)
            x[rng.random(5000) < 0.02] = numpy.nan
            _compare(f"{fn.__name__} {dtype}", cupy.asnumpy(fn(cupy.asarray(x))), _ref(x, 0, op, nan=True),
                     dtype, 5000)


@harness.self_check(_LIB, "exclusive_segmented")
def check_exclusive_segmented(rng):
    cupy = backend.cupy()
    for dtype in ("int32", "float64"):
        x = _host(rng, 50_001, dtype)
        inc = _ref(x, 0, "add")
        want = numpy.concatenate([numpy.zeros(1, inc.dtype), inc[:-1]])
        got = cupy.asnumpy(_scan.exclusive_scan(cupy.asarray(x), axis=0))
        _compare(f"exclusive_scan {dtype}", got, want, _scan.accumulation_dtype(x.dtype), x.size)
        heads = rng.random(x.size) < 0.001
        starts = numpy.flatnonzero(heads | (numpy.arange(x.size) == 0))
        ends = numpy.append(starts[1:], x.size)
        want = numpy.concatenate([_ref(x[s:e], 0, "add") for s, e in zip(starts, ends)])
        got = cupy.asnumpy(_scan.segmented_inclusive_scan(cupy.asarray(x), cupy.asarray(heads)))
        _compare(f"segmented_inclusive_scan {dtype}", got, want, _scan.accumulation_dtype(x.dtype), x.size)


# --------------------------------------------------------------------------------------------
# benchmark cases: rocarray's scans against cupy.cumsum/cumprod/nancumsum (CUB) on the same data
# --------------------------------------------------------------------------------------------

def _scan_data(n, dtype, op="add"):
    """Fresh device data for a scan of ``n`` elements: floats uniform in [0, 1) (factors near 1
    for products, so the running product stays in range longer), int32 uniform in [-1000, 1000)."""
    cupy = backend.cupy()
    dtype = numpy.dtype(dtype)
    if dtype.kind in "iu":
        return cupy.random.randint(-1000, 1000, n, dtype=dtype)
    real = numpy.float32 if dtype in (numpy.float32, numpy.complex64) else numpy.float64
    re = cupy.random.random(n, dtype=real)
    if op == "mul":
        re = 0.99 + 0.02 * re
    if dtype.kind != "c":
        return re
    return (re + 0.01j * (cupy.random.random(n, dtype=real) - 0.5)).astype(dtype, copy=False)


def _register_benchmarks():
    n32 = 1 << 28
    n26 = 1 << 26
    side = 16384

    def setup(n, dtype, op="add"):
        return lambda: (_scan_data(n, dtype, op),)

    def setup_nan(n, dtype):
        def make():
            x = _scan_data(n, dtype)
            x[x < 0.01] = numpy.nan
            return (x,)
        return make

    def setup_segments(n, seg):
        def make():
            # a segment head about every ``seg`` elements; x[0] starts a segment anyway, and its
            # head is set so the CuPy formulation below sees the same segments
            cupy = backend.cupy()
            heads = cupy.random.random(n, dtype=numpy.float32) < 1.0 / seg
            heads[0] = True
            return (cupy.random.randint(-1000, 1000, n, dtype=numpy.int32), heads)
        return make

    def segmented_vendor(x, heads):
        # CuPy has no segmented scan: scan everything, then subtract from every element the total
        # before its segment's head (found through the segment number, a scan of the heads)
        cupy = backend.cupy()
        total = cupy.cumsum(x, dtype=numpy.int64)
        starts = cupy.flatnonzero(heads)
        before = total[starts] - x[starts]
        return total - before[cupy.cumsum(heads, dtype=numpy.int32) - 1]

    def bytes_of(n, dtype):
        """One read of the input and one write of the result (int32 scans accumulate in int64)."""
        size = numpy.dtype(dtype).itemsize
        return n * (size + (8 if numpy.dtype(dtype).kind in "iu" else size))

    def scan(name, fn, vendor, n, dtype, make):
        harness.bench_case(BenchCase(name=f"{_LIB}.{name}", library=_LIB, setup=make, rocarray=fn, vendor=vendor,
                                     bytes_moved=bytes_of(n, dtype)))

    cumsum = (lambda x: _api().cumsum(x), lambda x: backend.cupy().cumsum(x))
    cumprod = (lambda x: _api().cumprod(x), lambda x: backend.cupy().cumprod(x))
    nancumsum = (lambda x: _api().nancumsum(x), lambda x: backend.cupy().nancumsum(x))
    # CuPy has no exclusive scan; its inclusive cumsum reads and writes the same bytes
    exclusive = (lambda x: _scan.exclusive_scan(x, axis=0), lambda x: backend.cupy().cumsum(x))

    # the headline sizes (their names carry no size: 2^28, and 2^26 for int32)
    scan("cumsum_float32", *cumsum, n32, "float32", setup(n32, "float32"))
    scan("cumsum_int32_int64", *cumsum, n26, "int32", setup(n26, "int32"))
    scan("cumprod_float32", *cumprod, n32, "float32", setup(n32, "float32", "mul"))
    scan("nancumsum_float32", *nancumsum, n32, "float32", setup_nan(n32, "float32"))
    scan("exclusive_scan_float32", *exclusive, n32, "float32", setup(n32, "float32"))
    harness.bench_case(BenchCase(name=f"{_LIB}.segmented_inclusive_scan_int32_int64", library=_LIB,
                                 setup=setup_segments(n26, 1000),
                                 rocarray=lambda x, h: _scan.segmented_inclusive_scan(x, h),
                                 vendor=segmented_vendor, bytes_moved=n26 * (4 + 1 + 8)))

    # the sweeps: other sizes and dtypes
    for log2 in (20, 24, 28):
        n = 1 << log2
        for dtype in ("float32", "float64", "int32"):
            if log2 < 28 or dtype != "float32":
                label = "int32_int64" if dtype == "int32" else dtype
                scan(f"cumsum_{label}_2^{log2}", *cumsum, n, dtype, setup(n, dtype))
        for dtype in ("float32", "float64"):
            if log2 < 28 or dtype != "float32":
                scan(f"nancumsum_{dtype}_2^{log2}", *nancumsum, n, dtype, setup_nan(n, dtype))
        for dtype in ("float32", "int32"):
            if log2 < 28 or dtype != "float32":
                label = "int32_int64" if dtype == "int32" else dtype
                scan(f"exclusive_scan_{label}_2^{log2}", *exclusive, n, dtype, setup(n, dtype))
    for dtype in ("float32", "complex64"):
        scan(f"cumprod_{dtype}_2^24", *cumprod, 1 << 24, dtype, setup(1 << 24, dtype, "mul"))
    for axis in (0, 1):  # a strided axis (0) and many contiguous rows (1)
        harness.bench_case(BenchCase(
            name=f"{_LIB}.cumsum_axis{axis}_float32_16384^2", library=_LIB,
            setup=lambda: (backend.cupy().random.random((side, side), dtype=numpy.float32),),
            rocarray=(lambda a: lambda x: _api().cumsum(x, axis=a))(axis),
            vendor=(lambda a: lambda x: backend.cupy().cumsum(x, axis=a))(axis),
            bytes_moved=2 * side * side * 4))
    for log2 in (24, 26):
        n = 1 << log2
        for seg in (32, 1000, 100_000):
            if (log2, seg) != (26, 1000):
                harness.bench_case(BenchCase(name=f"{_LIB}.segmented_inclusive_scan_int32_int64_2^{log2}_seg{seg}",
                                             library=_LIB, setup=setup_segments(n, seg),
                                             rocarray=lambda x, h: _scan.segmented_inclusive_scan(x, h),
                                             vendor=segmented_vendor, bytes_moved=n * (4 + 1 + 8)))


_register_benchmarks()
