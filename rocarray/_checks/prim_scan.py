"""Self-checks and vendor-ratio benchmark cases of the prim scans (walked by ``python -m rocarray``).

Self-checks run the scans on small fresh random inputs (every dtype, N-D along every axis,
exclusive and segmented forms, NaN variants) and compare with NumPy in float64/complex128 (exactly
for integers); they raise ``AssertionError`` on a mismatch. Benchmark cases time ``ra.cumsum``,
``ra.cumprod`` and ``ra.nancumsum`` against the CuPy call of the same name (CUB underneath), and the
exclusive and segmented scans of :mod:`rocarray.prim` against the nearest CuPy formulation, on the
same data.
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

def _register_benchmarks():
    n32 = 1 << 28
    n26 = 1 << 26

    def setup_f32():
        return (backend.cupy().random.random(n32, dtype=numpy.float32),)

    def setup_i32():
        return (backend.cupy().random.randint(-1000, 1000, n26, dtype=numpy.int32),)

    def setup_mul():
        # factors near 1, so the running product stays in range
        return (0.99 + 0.02 * backend.cupy().random.random(n32, dtype=numpy.float32),)

    def setup_nan():
        x = backend.cupy().random.random(n32, dtype=numpy.float32)
        x[x < 0.01] = numpy.nan
        return (x,)

    def setup_segments():
        # a segment head about every 1000 elements; x[0] starts a segment anyway, and its head is
        # set so the CuPy formulation below sees the same segments
        cupy = backend.cupy()
        heads = cupy.random.random(n26, dtype=numpy.float32) < 0.001
        heads[0] = True
        return (cupy.random.randint(-1000, 1000, n26, dtype=numpy.int32), heads)

    def segmented_vendor(x, heads):
        # CuPy has no segmented scan: scan everything, then subtract from every element the total
        # before its segment's head (found through the segment number, a scan of the heads)
        cupy = backend.cupy()
        total = cupy.cumsum(x, dtype=numpy.int64)
        starts = cupy.flatnonzero(heads)
        before = total[starts] - x[starts]
        return total - before[cupy.cumsum(heads, dtype=numpy.int32) - 1]

    harness.bench_case(BenchCase(name=f"{_LIB}.cumsum_float32", library=_LIB, setup=setup_f32,
                                 rocarray=lambda x: _api().cumsum(x), vendor=lambda x: backend.cupy().cumsum(x),
                                 bytes_moved=2 * n32 * 4))
    harness.bench_case(BenchCase(name=f"{_LIB}.cumsum_int32_int64", library=_LIB, setup=setup_i32,
                                 rocarray=lambda x: _api().cumsum(x), vendor=lambda x: backend.cupy().cumsum(x),
                                 bytes_moved=n26 * (4 + 8)))
    harness.bench_case(BenchCase(name=f"{_LIB}.cumprod_float32", library=_LIB, setup=setup_mul,
                                 rocarray=lambda x: _api().cumprod(x), vendor=lambda x: backend.cupy().cumprod(x),
                                 bytes_moved=2 * n32 * 4))
    harness.bench_case(BenchCase(name=f"{_LIB}.nancumsum_float32", library=_LIB, setup=setup_nan,
                                 rocarray=lambda x: _api().nancumsum(x), vendor=lambda x: backend.cupy().nancumsum(x),
                                 bytes_moved=2 * n32 * 4))
    # CuPy has no exclusive scan; its inclusive cumsum reads and writes the same bytes
    harness.bench_case(BenchCase(name=f"{_LIB}.exclusive_scan_float32", library=_LIB, setup=setup_f32,
                                 rocarray=lambda x: _scan.exclusive_scan(x, axis=0),
                                 vendor=lambda x: backend.cupy().cumsum(x),
                                 bytes_moved=2 * n32 * 4))
    harness.bench_case(BenchCase(name=f"{_LIB}.segmented_inclusive_scan_int32_int64", library=_LIB,
                                 setup=setup_segments,
                                 rocarray=lambda x, h: _scan.segmented_inclusive_scan(x, h),
                                 vendor=segmented_vendor, bytes_moved=n26 * (4 + 1 + 8)))


_register_benchmarks()
