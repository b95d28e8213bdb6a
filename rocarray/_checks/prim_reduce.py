"""Self-checks and vendor-ratio benchmark cases of the prim reductions (walked by ``python -m rocarray``).

Self-checks run the reductions on small fresh random inputs (every dtype, N-D over every axis,
NaN variants, arg reductions) and compare with NumPy (float64/complex128 references, exact for
integers); they raise ``AssertionError`` on a mismatch. Benchmark cases time the full reductions
(``ra.sum``/``prod``/``min``/``max``/``argmin``/``argmax``/``mean`` of float32, float64 and int32;
the NaN-aware ``nansum``/``nanmin``/``nanmax`` of float32 and float64 on data with NaNs;
``all``/``any``/``count_nonzero`` of a bool mask and of float32 data half zeros) of 2^20, 2^24 and
2^28 elements, and axis sums of a 16384 x 16384 float32 matrix, against the CuPy call of the same
name on the same data; bytes moved = one read of the input.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase
from rocarray._core.dtypes import ALL_DTYPES

_LIB = "prim"


def _api():
    from rocarray._numpy import reductions as _reduce_api

    return _reduce_api


def _host(rng, shape, dtype):
    dtype = numpy.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(0, 100, size=shape).astype(dtype)
    if dtype.kind == "f":
        return rng.random(shape).astype(dtype)
    return (rng.random(shape) + 1j * rng.random(shape)).astype(dtype)


def _compare(name, got, want, n):
    got = numpy.asarray(got)
    if got.shape != want.shape or got.dtype != want.dtype:
        raise AssertionError(f"{name}: shape/dtype {got.shape} {got.dtype} != {want.shape} {want.dtype}")
    if want.dtype.kind in "biu":
        if not numpy.array_equal(got, want):
            raise AssertionError(f"{name}: differs from NumPy")
        return
    rtol = harness.tolerance(want.dtype, n, growth="log2")
    if not numpy.allclose(got.astype(numpy.complex128), want.astype(numpy.complex128), rtol=rtol, atol=rtol,
                          equal_nan=True):
        raise AssertionError(f"{name}: max error {numpy.max(numpy.abs(got - want)):.3g} (rtol {rtol:.1e})")


@harness.self_check(_LIB, "reduce_dtypes")
def check_reduce_dtypes(rng):
    cupy, api = backend.cupy(), _api()
    for dtype in ALL_DTYPES:
        for n in (1, 65, 10_007):
            x = _host(rng, n, dtype)
            dx = cupy.asarray(x)
            for name in ("sum", "prod", "min", "max", "argmin", "argmax", "all", "any"):
                if name == "prod":
                    xs = x[:20]
                    _compare(f"prod {dtype} n={n}", cupy.asnumpy(api.prod(cupy.asarray(xs))), numpy.prod(xs), 20)
                    continue
                want = getattr(numpy, name)(x)
                _compare(f"{name} {dtype} n={n}", cupy.asnumpy(getattr(api, name)(dx)), numpy.asarray(want), n)


@harness.self_check(_LIB, "reduce_axes")
def check_reduce_axes(rng):
    cupy, api = backend.cupy(), _api()
    for shape in ((7, 300, 5), (9000, 3), (3, 9000), (20, 17), (64, 2048)):
        x = _host(rng, shape, "float32")
        for view in (x, x.T):
            dx = cupy.asarray(x)
            dv = dx if view is x else dx.T
            for axis in list(range(view.ndim)) + [None, (0, view.ndim - 1)]:
                want = numpy.sum(view.astype(numpy.float64), axis=axis).astype(numpy.float32)
                _compare(f"sum {view.shape} axis {axis}", cupy.asnumpy(api.sum(dv, axis=axis)), numpy.asarray(want),
                         view.size)
                if not isinstance(axis, tuple):
                    _compare(f"argmax {view.shape} axis {axis}", cupy.asnumpy(api.argmax(dv, axis=axis)),
                             numpy.asarray(numpy.argmax(view, axis=axis)), 1)


@harness.self_check(_LIB, "reduce_nan")
def check_reduce_nan(rng):
    cupy, api = backend.cupy(), _api()
    for dtype in ("float16", "float32", "float64", "complex64", "complex128"):
        x = _host(rng, 5000, dtype)
        x[rng.random(5000) < 0.02] = numpy.nan
        dx = cupy.asarray(x)
        for name in ("nansum", "nanmax", "nanmin", "nanargmin", "nanargmax", "max", "argmin", "nanmean"):
            _compare(f"{name} {dtype}", cupy.asnumpy(getattr(api, name)(dx)), numpy.asarray(getattr(numpy, name)(x)),
                     5000)


#: Sizes of the full-reduction sweeps (log2 of the element count).
_BENCH_LOG2 = (20, 24, 28)


def _uniform(n, dtype):
    """Fresh device data: floats uniform in [0, 1), integers uniform in [1, 100)."""
    cupy = backend.cupy()
    dtype = numpy.dtype(dtype)
    if dtype.kind == "f":
        return cupy.random.random(n, dtype=dtype)
    return cupy.random.randint(1, 100, n, dtype=dtype)


def _register_benchmarks():
    side = 16384

    def setup_flat(n, dtype):
        return lambda: (_uniform(n, dtype),)

    def setup_matrix():
        return (backend.cupy().random.random((side, side), dtype=numpy.float32),)

    def setup_nan(n, dtype):
        def make():
            # about 1 % NaNs, which the NaN-aware reductions skip
            x = _uniform(n, dtype)
            x[x < 0.01] = numpy.nan
            return (x,)
        return make

    def setup_mask(n, dtype):
        def make():
            if dtype == "bool":  # fair coin flips
                return (backend.cupy().random.random(n, dtype=numpy.float32) < 0.5,)
            # half the values are exact zeros
            x = _uniform(n, dtype)
            x[x < 0.5] = 0
            return (x,)
        return make

    grid = [(("sum", "prod", "min", "max", "argmin", "argmax", "mean"), ("float32", "float64", "int32"), setup_flat),
            # nanmin/nanmax read the result back on both sides (the all-NaN warning), one sync per call
            (("nansum", "nanmin", "nanmax"), ("float32", "float64"), setup_nan),
            (("all", "any", "count_nonzero"), ("bool", "float32"), setup_mask)]
    for names, dtypes, setup in grid:
        for log2 in _BENCH_LOG2:
            n = 1 << log2
            for name in names:
                for dtype in dtypes:
                    harness.bench_case(BenchCase(
                        name=f"{_LIB}.{name}_{dtype}_2^{log2}", library=_LIB, setup=setup(n, dtype),
                        rocarray=(lambda f: lambda x: getattr(_api(), f)(x))(name),
                        vendor=(lambda f: lambda x: getattr(backend.cupy(), f)(x))(name),
                        bytes_moved=n * numpy.dtype(dtype).itemsize))
    for axis in (0, 1):
        harness.bench_case(BenchCase(name=f"{_LIB}.sum_axis{axis}_float32_16384^2", library=_LIB, setup=setup_matrix,
                                     rocarray=(lambda a: lambda x: _api().sum(x, axis=a))(axis),
                                     vendor=(lambda a: lambda x: backend.cupy().sum(x, axis=a))(axis),
                                     bytes_moved=side * side * 4))


_register_benchmarks()
