"""Self-checks and vendor-ratio benchmark cases of rocfft (walked by ``python -m rocarray``).

Self-checks run ``rocarray.fft`` (``fft``/``ifft``, ``rfft``/``irfft``, ``fftn``/``ifftn``) and a
strided :class:`~rocarray.rocfft.Plan` on small fresh random inputs (Stockham, four-step and
Bluestein lengths, single and double precision) and compare with ``numpy.fft`` in
float64/complex128 by relative L2 error, within ``4.5 eps log2(N)`` (the harness's tolerance with
``log2`` growth); they raise ``AssertionError`` on a mismatch. Benchmark cases time ``rocarray.fft``
against ``cupy.fft`` (cuFFT/hipFFT underneath) on the same data; bytes moved count one read and
one write of the data of each call.
"""

import math

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "rocfft"


def _api():
    from rocarray import fft

    return fft


_host = harness.standard_normal


def _bound(dtype, points):
    return harness.tolerance(dtype, points, factor=4.5, growth="log2")


def _compare(name, got, want, dtype, points):
    got = numpy.asarray(got)
    if got.shape != want.shape:
        raise AssertionError(f"{name}: shape {got.shape} != {want.shape}")
    diff = numpy.linalg.norm((got.astype(numpy.complex128) - want).ravel())
    ref = numpy.linalg.norm(want.ravel())
    err = diff / ref if ref else diff
    limit = _bound(dtype, points)
    if not err <= limit:
        raise AssertionError(f"{name}: relative L2 error {err:.3g} > {limit:.3g} (N={points})")


def _wide(x):
    return x.astype(numpy.complex128 if x.dtype.kind == "c" else numpy.float64)


@harness.self_check(_LIB, "fft_ifft")
def check_fft_ifft(rng):
    cupy, api = backend.cupy(), _api()
    for dtype in ("complex64", "complex128"):
        for n in (1, 7, 64, 100, 1009, 4096, 1 << 16):
            x = _host(rng, (3, n), dtype)
            dx = cupy.asarray(x)
            _compare(f"fft {dtype} n={n}", cupy.asnumpy(api.fft(dx)), numpy.fft.fft(_wide(x)), dtype, n)
            _compare(f"ifft {dtype} n={n}", cupy.asnumpy(api.ifft(dx)), numpy.fft.ifft(_wide(x)), dtype, n)
        x = _host(rng, (40, 6), dtype)
        _compare(f"fft {dtype} axis 0", cupy.asnumpy(api.fft(cupy.asarray(x), axis=0)),
                 numpy.fft.fft(_wide(x), axis=0), dtype, 40)


@harness.self_check(_LIB, "rfft_irfft")
def check_rfft_irfft(rng):
    cupy, api = backend.cupy(), _api()
    for dtype in ("float32", "float64"):
        for n in (2, 15, 64, 1000, 4097):
            x = _host(rng, (2, n), dtype)
            _compare(f"rfft {dtype} n={n}", cupy.asnumpy(api.rfft(cupy.asarray(x))), numpy.fft.rfft(_wide(x)),
                     dtype, n)
            spectrum = numpy.fft.rfft(x.astype(numpy.float64)).astype(numpy.result_type(dtype, 1j))
            _compare(f"irfft {dtype} n={n}", cupy.asnumpy(api.irfft(cupy.asarray(spectrum), n)),
                     numpy.fft.irfft(_wide(spectrum), n), dtype, n)


@harness.self_check(_LIB, "fftn")
def check_fftn(rng):
    cupy, api = backend.cupy(), _api()
    for dtype in ("complex64", "complex128"):
        for shape, axes in (((8, 12, 5), None), ((16, 16), None), ((6, 7, 9), (0, 2)), ((33, 20), (0,))):
            x = _host(rng, shape, dtype)
            dx = cupy.asarray(x)
            points = math.prod(shape[a] for a in (axes if axes is not None else range(len(shape))))
            _compare(f"fftn {dtype} {shape} axes {axes}", cupy.asnumpy(api.fftn(dx, axes=axes)),
                     numpy.fft.fftn(_wide(x), axes=axes), dtype, points)
            _compare(f"ifftn {dtype} {shape} axes {axes}", cupy.asnumpy(api.ifftn(dx, axes=axes)),
                     numpy.fft.ifftn(_wide(x), axes=axes), dtype, points)
        x = _host(rng, (10, 12), "float32" if dtype == "complex64" else "float64")
        _compare(f"rfftn {dtype}", cupy.asnumpy(api.rfftn(cupy.asarray(x))), numpy.fft.rfftn(_wide(x)), dtype, 120)


@harness.self_check(_LIB, "plan_strided")
def check_plan_strided(rng):
    from rocarray.rocfft import Plan

    cupy = backend.cupy()
    for precision, dtype in (("single", "complex64"), ("double", "complex128")):
        batch, n = 3, 24
        x = _host(rng, batch * n, dtype)          # batches interleaved: element j of batch b at b + 3j
        got = Plan(n, precision=precision, batch=batch, in_strides=(batch,), in_distance=1).execute(cupy.asarray(x))
        want = numpy.fft.fft(_wide(x).reshape(n, batch).T, axis=-1)
        _compare(f"Plan c2c {precision} interleaved", cupy.asnumpy(got).reshape(batch, n), want, dtype, n)


# --------------------------------------------------------------------------------------------
# benchmark cases: rocarray.fft against cupy.fft (cuFFT/hipFFT) on the same data
# --------------------------------------------------------------------------------------------

def _random(shape, dtype):
    """Fresh standard-normal device data (complex: independent real and imaginary parts)."""
    cupy = backend.cupy()
    dtype = numpy.dtype(dtype)
    if dtype.kind == "c":
        part = numpy.float32 if dtype == numpy.complex64 else numpy.float64
        out = cupy.random.standard_normal(shape, dtype=part).astype(dtype)
        out += cupy.random.standard_normal(shape, dtype=part).astype(dtype) * dtype.type(1j)
        return out
    return cupy.random.standard_normal(shape, dtype=dtype)


def _bench(name, shape, dtype, ours, vendor, bytes_moved):
    harness.bench_case(BenchCase(name=f"{_LIB}.{name}", library=_LIB, setup=lambda: (_random(shape, dtype),),
                                 rocarray=ours, vendor=vendor, bytes_moved=bytes_moved, memory_bound=True))


def _register_benchmarks():
    rows, n1, side, prime, cube = 4096, 1 << 24, 4096, 1_000_003, 512
    for dtype in ("complex64", "complex128"):
        item = numpy.dtype(dtype).itemsize
        _bench(f"fft_rows_{rows}x{rows}_{dtype}", (rows, rows), dtype, lambda x: _api().fft(x),
               lambda x: backend.cupy().fft.fft(x), 2 * rows * rows * item)
        _bench(f"fft_1d_{n1}_{dtype}", (n1,), dtype, lambda x: _api().fft(x), lambda x: backend.cupy().fft.fft(x),
               2 * n1 * item)
        _bench(f"fft2_{side}x{side}_{dtype}", (side, side), dtype, lambda x: _api().fft2(x),
               lambda x: backend.cupy().fft.fft2(x), 2 * side * side * item)
        _bench(f"fft_1d_{prime}_{dtype}", (prime,), dtype, lambda x: _api().fft(x),
               lambda x: backend.cupy().fft.fft(x), 2 * prime * item)
        # 512^3 is 1 GiB (complex64) or 2 GiB in and as much out: allocated only when the case runs
        _bench(f"fftn_{cube}x{cube}x{cube}_{dtype}", (cube, cube, cube), dtype, lambda x: _api().fftn(x),
               lambda x: backend.cupy().fft.fftn(x), 2 * cube**3 * item)
    # r2c: the real input (n/2 complex values' worth) read once, n/2 + 1 complex values written
    for real in ("float32", "float64"):
        item = numpy.dtype(real).itemsize
        _bench(f"rfft_1d_{n1}_{real}", (n1,), real, lambda x: _api().rfft(x), lambda x: backend.cupy().fft.rfft(x),
               n1 * item + (n1 // 2 + 1) * 2 * item)
        # rows of 8192 real points: one launch each way (the half-length transform in shared memory)
        rows_in, rows_out = rows * 2 * side * item, rows * (side + 1) * 2 * item
        _bench(f"rfft_rows_{rows}x{2 * side}_{real}", (rows, 2 * side), real, lambda x: _api().rfft(x),
               lambda x: backend.cupy().fft.rfft(x), rows_in + rows_out)
        cplx = "complex64" if real == "float32" else "complex128"
        _bench(f"irfft_rows_{rows}x{side + 1}_{cplx}", (rows, side + 1), cplx, lambda x: _api().irfft(x),
               lambda x: backend.cupy().fft.irfft(x), rows_in + rows_out)
        # rows of 65536 real points: two launches each way (the untangling or folding fused into
        # a four-step pass)
        long_rows, long_n = 256, 1 << 16
        long_in, long_out = long_rows * long_n * item, long_rows * (long_n // 2 + 1) * 2 * item
        _bench(f"rfft_rows_{long_rows}x{long_n}_{real}", (long_rows, long_n), real, lambda x: _api().rfft(x),
               lambda x: backend.cupy().fft.rfft(x), long_in + long_out)
        _bench(f"irfft_rows_{long_rows}x{long_n // 2 + 1}_{cplx}", (long_rows, long_n // 2 + 1), cplx,
               lambda x: _api().irfft(x), lambda x: backend.cupy().fft.irfft(x), long_in + long_out)


_register_benchmarks()
