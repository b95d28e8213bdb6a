"""Self-checks and vendor-ratio benchmark cases of rocblas level 1 (walked by ``python -m rocarray``).

Self-checks run every level-1 operation on small fresh random inputs (unit and non-unit, negative
increments) and compare with NumPy in float64/complex128; they raise ``AssertionError`` on a
mismatch. Benchmark cases time rocarray against the path CuPy takes for the same operation
(cuBLAS through ``cupy.cublas``/``cupy.dot``, or CuPy's element-wise kernels) on the same data:
level 1 on float32 and float64 vectors of 2^20 and 2^26 elements (and the façade's
``ra.linalg.norm``), level 2 on 4096^2 and 16384^2 matrices and 16384-column bands, level 3 gemm
on square and awkward shapes.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase
from rocarray.rocblas import _level1, _level2

_LIB = "rocblas"
_N = 1000
_BENCH_N = 1 << 26
_DTYPES = ("float32", "float64", "complex64", "complex128")


# --------------------------------------------------------------------------------------------
# helpers (host references)
# --------------------------------------------------------------------------------------------

def _cublas():
    backend.cupy()
    import cupy.cublas  # a submodule CuPy does not import by itself

    return cupy.cublas


_host = harness.standard_normal


def _index(n, inc):
    """Buffer positions of a BLAS vector's elements 0..n-1 (negative inc walks from the far end)."""
    i = numpy.arange(n)
    return i * inc if inc >= 0 else (n - 1 - i) * (-inc)


def _rtol(dtype, n=1):
    return harness.tolerance(dtype, n, factor=16)


def _check(name, got, want, dtype, n=1, scale=None):
    got = numpy.asarray(got, dtype=numpy.complex128)
    want = numpy.asarray(want, dtype=numpy.complex128)
    rtol = _rtol(dtype, n)
    scale = float(numpy.max(numpy.abs(want))) if scale is None and want.size else (scale or 0.0)
    if not numpy.allclose(got, want, rtol=rtol, atol=rtol * scale):
        raise AssertionError(f"{name}: rocarray {got} != reference {want} (rtol {rtol:.1e})")


def _cases():
    return ((_N, 1, 1), (_N // 3, 3, -2), (_N // 2, -1, -1))


# --------------------------------------------------------------------------------------------
# self-checks
# --------------------------------------------------------------------------------------------

@harness.self_check(_LIB, "axpy")
def check_axpy(rng):
    cupy = backend.cupy()
    for dtype in ("float16",) + _DTYPES:
        for n, incx, incy in _cases():
            x = _host(rng, _N, dtype)
            y = _host(rng, _N, dtype)
            alpha = 0.75 - 0.5j if numpy.dtype(dtype).kind == "c" else 0.75
            want = y.astype(numpy.complex128)
            ix, iy = _index(n, incx), _index(n, incy)
            want[iy] = want[iy] + alpha * x[ix].astype(numpy.complex128)
            dy = cupy.asarray(y)
            _level1.axpy(n, alpha, cupy.asarray(x), incx, dy, incy)
            _check(f"axpy {dtype} inc {incx},{incy}", cupy.asnumpy(dy), want, dtype)


@harness.self_check(_LIB, "scal")
def check_scal(rng):
    cupy = backend.cupy()
    for dtype in ("float16",) + _DTYPES:
        alphas = (1.5, 0.5 + 2j) if numpy.dtype(dtype).kind == "c" else (1.5,)
        for alpha in alphas:
            for n, inc in ((_N, 1), (_N // 3, 3)):
                x = _host(rng, _N, dtype)
                want = x.astype(numpy.complex128)
                ix = _index(n, inc)
                want[ix] *= alpha
                dx = cupy.asarray(x)
                _level1.scal(n, alpha, dx, inc)
                _check(f"scal {dtype} alpha {alpha} inc {inc}", cupy.asnumpy(dx), want, dtype)


@harness.self_check(_LIB, "copy_swap")
def check_copy_swap(rng):
    cupy = backend.cupy()
    for dtype in _DTYPES:
        for n, incx, incy in _cases():
            x, y = _host(rng, _N, dtype), _host(rng, _N, dtype)
            ix, iy = _index(n, incx), _index(n, incy)
            want = y.copy()
            want[iy] = x[ix]
            dy = cupy.asarray(y)
            _level1.copy(n, cupy.asarray(x), incx, dy, incy)
            if not numpy.array_equal(cupy.asnumpy(dy), want):
                raise AssertionError(f"copy {dtype} inc {incx},{incy}: mismatch")
            wx, wy = x.copy(), y.copy()
            wx[ix], wy[iy] = y[iy], x[ix]
            dx, dy = cupy.asarray(x), cupy.asarray(y)
            _level1.swap(n, dx, incx, dy, incy)
            if not (numpy.array_equal(cupy.asnumpy(dx), wx) and numpy.array_equal(cupy.asnumpy(dy), wy)):
                raise AssertionError(f"swap {dtype} inc {incx},{incy}: mismatch")


@harness.self_check(_LIB, "rot")
def check_rot(rng):
    cupy = backend.cupy()
    c = 0.6
    for dtype in _DTYPES:
        ss = (0.8, 0.48 + 0.64j) if numpy.dtype(dtype).kind == "c" else (0.8,)
        for s in ss:
            for n, incx, incy in _cases():
                x, y = _host(rng, _N, dtype), _host(rng, _N, dtype)
                ix, iy = _index(n, incx), _index(n, incy)
                xs, ys = x[ix].astype(numpy.complex128), y[iy].astype(numpy.complex128)
                wx, wy = x.astype(numpy.complex128), y.astype(numpy.complex128)
                wx[ix] = c * xs + s * ys
                wy[iy] = c * ys - numpy.conj(s) * xs
                dx, dy = cupy.asarray(x), cupy.asarray(y)
                _level1.rot(n, dx, incx, dy, incy, c, s)
                _check(f"rot {dtype} s {s}", cupy.asnumpy(dx), wx, dtype)
                _check(f"rot {dtype} s {s}", cupy.asnumpy(dy), wy, dtype)


@harness.self_check(_LIB, "dot")
def check_dot(rng):
    cupy = backend.cupy()
    for dtype in ("float16",) + _DTYPES:
        for n, incx, incy in _cases():
            x, y = _host(rng, _N, dtype), _host(rng, _N, dtype)
            xs = x[_index(n, incx)].astype(numpy.complex128)
            ys = y[_index(n, incy)].astype(numpy.complex128)
            scale = float(numpy.sum(numpy.abs(xs * ys)))
            got = _level1.dot(n, cupy.asarray(x), incx, cupy.asarray(y), incy)
            _check(f"dot {dtype}", cupy.asnumpy(got), numpy.sum(xs * ys), dtype, n, scale)
            if dtype != "float16":
                got = _level1.dotc(n, cupy.asarray(x), incx, cupy.asarray(y), incy)
                _check(f"dotc {dtype}", cupy.asnumpy(got), numpy.sum(numpy.conj(xs) * ys), dtype, n, scale)


def _nrm2_scales(dtype):
    """Magnitudes where a naive sum of squares overflows or underflows (kept normal, not subnormal)."""
    if numpy.dtype(dtype) in (numpy.dtype(numpy.float64), numpy.dtype(numpy.complex128)):
        return (1.0, 1e300, 1e-300)
    return (1.0, 1e36, 1e-30)  # 1e36: the norm of 2000 such values still fits in float32


@harness.self_check(_LIB, "nrm2_asum")
def check_nrm2_asum(rng):
    cupy = backend.cupy()
    for dtype in _DTYPES:
        for n, inc, _ in _cases():
            for scale in _nrm2_scales(dtype):
                x = (_host(rng, _N, dtype) * scale).astype(dtype)
                xs = x[_index(n, abs(inc))].astype(numpy.complex128)
                m = float(numpy.max(numpy.abs(xs)))
                want = m * numpy.sqrt(numpy.sum(numpy.abs(xs / m) ** 2))
                got = _level1.nrm2(n, cupy.asarray(x), inc)
                _check(f"nrm2 {dtype} scale {scale:g}", cupy.asnumpy(got), want, dtype, n)
            x = _host(rng, _N, dtype)
            xs = x[_index(n, inc)] if inc > 0 else x[:0]
            want = numpy.sum(numpy.abs(xs.real.astype(numpy.float64)) + numpy.abs(xs.imag.astype(numpy.float64)))
            got = _level1.asum(n, cupy.asarray(x), inc)
            _check(f"asum {dtype} inc {inc}", cupy.asnumpy(got), want, dtype, n)


def iamax_reference(x, n, inc, largest=True):
    """1-based BLAS index of the first max (min) of |re|+|im| over x's BLAS vector; NaNs skipped.

    Computes the magnitudes in x's real precision, as the kernel does. 0 for ``n < 1`` or
    ``inc <= 0``; 1 when every element is NaN.
    """
    if n < 1 or inc <= 0:
        return 0
    v = x[_index(n, inc)]
    mag = numpy.abs(v.real) + numpy.abs(v.imag) if v.dtype.kind == "c" else numpy.abs(v)
    ok = ~numpy.isnan(mag)
    if not ok.any():
        return 1
    best = mag[ok].max() if largest else mag[ok].min()
    return int(numpy.flatnonzero(ok & (mag == best))[0]) + 1


@harness.self_check(_LIB, "iamax_iamin")
def check_iamax(rng):
    cupy = backend.cupy()
    for dtype in _DTYPES:
        for n, inc in ((_N, 1), (_N // 3, 3)):
            x = _host(rng, _N, dtype)
            x[rng.integers(0, _N, 3)] = numpy.nan
            dx = cupy.asarray(x)
            for fn, largest in ((_level1.iamax, True), (_level1.iamin, False)):
                got = int(cupy.asnumpy(fn(n, dx, inc)))
                want = iamax_reference(x, n, inc, largest)
                if got != want:
                    raise AssertionError(f"{fn.__name__} {dtype} inc {inc}: {got} != {want}")


# --------------------------------------------------------------------------------------------
# benchmark cases: rocarray vs the path CuPy takes, at 2^20 and 2^26 elements
# --------------------------------------------------------------------------------------------

def _random(n, dtype):
    """Fresh standard-normal device data (float32/float64 drawn directly, 16-bit types rounded
    from float32)."""
    dtype = numpy.dtype(dtype)
    if dtype.itemsize == 2:
        return backend.cupy().random.standard_normal(n, dtype=numpy.float32).astype(dtype)
    return backend.cupy().random.standard_normal(n, dtype=dtype)


def _bench(name, setup, ours, vendor, bytes_moved):
    harness.bench_case(BenchCase(name=f"{_LIB}.{name}", library=_LIB, setup=setup, rocarray=ours,
                                 vendor=vendor, bytes_moved=bytes_moved))


def _register_benchmarks():
    def vendor_axpy(x, y):
        _cublas().axpy(0.5, x, y)

    def vendor_scal(x):
        _cublas().scal(0.999, x)

    def one(n, dtype):
        return lambda: (_random(n, dtype),)

    def two(n, dtype):
        return lambda: (_random(n, dtype), _random(n, dtype))

    def register(n, dtype, suffix, ops):
        size = numpy.dtype(dtype).itemsize
        cases = {
            "dot": (two, lambda x, y: _level1.dot(n, x, 1, y, 1), lambda x, y: backend.cupy().dot(x, y), 2),
            "axpy": (two, lambda x, y: _level1.axpy(n, 0.5, x, 1, y, 1), vendor_axpy, 3),
            "nrm2": (one, lambda x: _level1.nrm2(n, x, 1), lambda x: backend.cupy().linalg.norm(x), 1),
            "asum": (one, lambda x: _level1.asum(n, x, 1), lambda x: backend.cupy().abs(x).sum(), 1),
            "iamax": (one, lambda x: _level1.iamax(n, x, 1), lambda x: backend.cupy().argmax(backend.cupy().abs(x)), 1),
            # 0.999 (not 1.0, which a library may skip) keeps repeated runs finite and normal.
            "scal": (one, lambda x: _level1.scal(n, 0.999, x, 1), vendor_scal, 2),
            "copy": (two, lambda x, y: _level1.copy(n, x, 1, y, 1), lambda x, y: y.__setitem__(Ellipsis, x), 2),
            # the façade: ra.linalg.norm (rocblas nrm2 underneath) against cupy.linalg.norm
            "norm": (one, lambda x: _linalg().norm(x), lambda x: backend.cupy().linalg.norm(x), 1),
        }
        for op in ops:
            setup, ours, vendor, vectors = cases[op]
            _bench(f"{op}_{dtype}{suffix}", setup(n, dtype), ours, vendor, vectors * n * size)

    # the headline size (the names carry no size: 2^26)
    register(_BENCH_N, "float32", "", ("dot", "axpy", "nrm2", "asum", "iamax", "scal", "copy"))
    register(_BENCH_N, "float64", "", ("dot", "axpy"))
    # the sweeps: 2^20 elements, float64, the façade's norm
    for dtype in ("float32", "float64"):
        register(1 << 20, dtype, "_2^20", ("dot", "axpy", "nrm2", "asum", "iamax", "scal", "copy", "norm"))
    register(_BENCH_N, "float32", "_2^26", ("norm",))
    register(_BENCH_N, "float64", "_2^26", ("nrm2", "asum", "iamax", "scal", "copy", "norm"))


def _linalg():
    from rocarray import linalg

    return linalg


_register_benchmarks()


# --------------------------------------------------------------------------------------------
# level 2: self-checks on small column-major matrices, benchmark cases at 4096^2 and 16384^2
# --------------------------------------------------------------------------------------------

_M2, _N2 = 67, 45  # small, odd, crossing warp and pack boundaries


def _matrix_host(rng, m, n, lda, dtype):
    """A column-major buffer (lda * n elements) and its m x n complex128 matrix."""
    buf = _host(rng, lda * n, dtype)
    return buf, buf.reshape(n, lda).T[:m].astype(numpy.complex128)


def _scalars2(dtype):
    return (1.5 - 0.5j, 0.25 + 1j) if numpy.dtype(dtype).kind == "c" else (1.5, -0.75)


@harness.self_check(_LIB, "gemv")
def check_gemv(rng):
    cupy = backend.cupy()
    for dtype in _DTYPES:
        alpha, beta = _scalars2(dtype)
        for trans, incx, incy in (("N", 1, 1), ("T", -2, 1), ("C", 1, -3)):
            lda = _M2 + 3
            buf, a = _matrix_host(rng, _M2, _N2, lda, dtype)
            op = a if trans == "N" else (a.T if trans == "T" else a.conj().T)
            lx, ly = op.shape[1], op.shape[0]
            x, y = _host(rng, lx * abs(incx), dtype), _host(rng, ly * abs(incy), dtype)
            want = y.astype(numpy.complex128)
            iy = _index(ly, incy)
            xs = x[_index(lx, incx)].astype(numpy.complex128)
            want[iy] = alpha * (op @ xs) + beta * want[iy]
            dy = cupy.asarray(y)
            _level2.gemv(trans, _M2, _N2, alpha, cupy.asarray(buf), lda, cupy.asarray(x), incx, beta, dy, incy)
            _check(f"gemv {trans} {dtype}", cupy.asnumpy(dy), want, dtype, lx,
                   scale=float(numpy.max(numpy.abs(op) @ numpy.abs(xs))) * 2)


@harness.self_check(_LIB, "ger")
def check_ger(rng):
    cupy = backend.cupy()
    for dtype in _DTYPES:
        fns = ("geru", "gerc") if numpy.dtype(dtype).kind == "c" else ("ger",)
        for fn in fns:
            buf, a = _matrix_host(rng, _M2, _N2, _M2, dtype)
            x, y = _host(rng, _M2, dtype), _host(rng, 2 * _N2, dtype)
            ys = y[_index(_N2, -2)].astype(numpy.complex128)
            if fn == "gerc":
                ys = ys.conj()
            alpha = _scalars2(dtype)[0]
            want = (a + alpha * numpy.outer(x.astype(numpy.complex128), ys)).T.ravel()
            da = cupy.asarray(buf)
            getattr(_level2, fn)(_M2, _N2, alpha, cupy.asarray(x), 1, cupy.asarray(y), -2, da, _M2)
            _check(f"{fn} {dtype}", cupy.asnumpy(da), want, dtype, 2)


@harness.self_check(_LIB, "symv_hemv")
def check_symv(rng):
    cupy = backend.cupy()
    n = _M2
    for dtype in _DTYPES:
        fns = ("symv", "hemv") if numpy.dtype(dtype).kind == "c" else ("symv",)
        alpha, beta = _scalars2(dtype)
        for fn in fns:
            for uplo in "UL":
                buf, a = _matrix_host(rng, n, n, n, dtype)
                t = numpy.triu(a) if uplo == "U" else numpy.tril(a)
                s = t - numpy.diag(numpy.diag(t))
                d = numpy.diag(a).real if fn == "hemv" else numpy.diag(a)
                full = s + (s.conj().T if fn == "hemv" else s.T) + numpy.diag(d)
                x, y = _host(rng, n, dtype), _host(rng, n, dtype)
                want = alpha * (full @ x.astype(numpy.complex128)) + beta * y.astype(numpy.complex128)
                dy = cupy.asarray(y)
                getattr(_level2, fn)(uplo, n, alpha, cupy.asarray(buf), n, cupy.asarray(x), 1, beta, dy, 1)
                _check(f"{fn} {uplo} {dtype}", cupy.asnumpy(dy), want, dtype, n,
                       scale=float(numpy.max(numpy.abs(full) @ numpy.abs(x))) * 2)


@harness.self_check(_LIB, "trmv_trsv")
def check_trmv_trsv(rng):
    cupy = backend.cupy()
    n = 2 * _level2.TRSV_NB + 5  # three diagonal blocks; block-rows of the one launch: five, or nine (complex128)
    for dtype in _DTYPES:
        for uplo, trans, diag in (("U", "N", "N"), ("L", "T", "U"), ("U", "C", "N"), ("L", "N", "N")):
            buf, a = _matrix_host(rng, n, n, n, dtype)
            buf = buf / n  # small off-diagonal part: well conditioned with either diagonal
            k = numpy.arange(n)
            buf[k + k * n] = 2.0
            a = buf.reshape(n, n).T.astype(numpy.complex128)
            t = numpy.triu(a) if uplo == "U" else numpy.tril(a)
            if diag == "U":
                numpy.fill_diagonal(t, 1)
            op = t if trans == "N" else (t.T if trans == "T" else t.conj().T)
            x = _host(rng, n, dtype)
            dx = cupy.asarray(x)
            _level2.trmv(uplo, trans, diag, n, cupy.asarray(buf), n, dx, 1)
            _check(f"trmv {uplo}{trans}{diag} {dtype}", cupy.asnumpy(dx), op @ x.astype(numpy.complex128),
                   dtype, n)
            xs = x[::-1].astype(numpy.complex128)
            # both forms: the one launch and the way back (diagonal blocks and gemv from the host)
            saved = _level2.TRSV_ONE_LAUNCH
            try:
                for one in (True, False):
                    _level2.TRSV_ONE_LAUNCH = one
                    dx = cupy.asarray(x)
                    _level2.trsv(uplo, trans, diag, n, cupy.asarray(buf), n, dx, -1)
                    _check(f"trsv {uplo}{trans}{diag} {dtype} {'one launch' if one else 'blocked'}",
                           cupy.asnumpy(dx)[::-1], numpy.linalg.solve(op, xs), dtype, n)
            finally:
                _level2.TRSV_ONE_LAUNCH = saved
            _level2.check_trsv()


_GEMV_N = 16384


def _register_level2_benchmarks():
    # A is one n x n float32 column-major buffer (lda = n). CuPy sees the same memory as the
    # row-major (n, n) array M = A^T: gemv 'N' (y = A x) is M.T @ x and 'T' (y = A^T x) is M @ x,
    # so the vendor (cuBLAS sgemv through cupy.matmul) reads exactly the same bytes.
    size = 4
    for n, suffix in ((_GEMV_N, ""), (4096, "_4096")):  # the headline size's names carry no size
        def setup(n=n):
            return _random(n * n, "float32"), _random(n, "float32"), backend.cupy().zeros(n, numpy.float32)

        def vendor_n(a, x, y, n=n):
            backend.cupy().matmul(a.reshape(n, n).T, x, out=y)

        def vendor_t(a, x, y, n=n):
            backend.cupy().matmul(a.reshape(n, n), x, out=y)

        _bench(f"gemv_n_float32{suffix}", setup,
               lambda a, x, y, n=n: _level2.gemv("N", n, n, 1.0, a, n, x, 1, 0.0, y, 1), vendor_n, n * n * size)
        _bench(f"gemv_t_float32{suffix}", setup,
               lambda a, x, y, n=n: _level2.gemv("T", n, n, 1.0, a, n, x, 1, 0.0, y, 1), vendor_t, n * n * size)


_register_level2_benchmarks()


def _register_trsv_benchmarks():
    # x := A^-1 x with A an n x n column-major triangle of unit diagonal (off-diagonal part / n,
    # so that repeated solves in place neither grow nor shrink x): float64 8192 is getrs's shape,
    # float32 16384 the level-2 table's. CuPy has no trsv: the vendor is cuBLAS trsm with one
    # right-hand side (cupyx.scipy.linalg.solve_triangular on the Fortran-ordered view, no copy).
    # Bytes: the referenced triangle once, x read and written.
    for n, dtype, uplo in ((8192, "float64", "L"), (16384, "float32", "U")):
        size = numpy.dtype(dtype).itemsize

        def setup(n=n, dtype=dtype):
            a = _random(n * n, dtype)
            a /= n
            return a, _random(n, dtype)

        def vendor(a, x, n=n, uplo=uplo):
            import cupyx.scipy.linalg

            cupyx.scipy.linalg.solve_triangular(a.reshape(n, n).T, x, lower=uplo == "L", unit_diagonal=True,
                                                overwrite_b=True)

        _bench(f"trsv_{uplo.lower()}_{dtype}_{n}", setup,
               lambda a, x, n=n, uplo=uplo: _level2.trsv(uplo, "N", "U", n, a, n, x, 1), vendor,
               (n * (n - 1) // 2 + 2 * n) * size)


_register_trsv_benchmarks()


_BAND_N, _BAND_K = 16384, 64


def _register_banded_benchmarks():
    # Band storage of n = 16384 columns, kl = ku = 64 (gbmv: 129 rows, 8.6 MB of float32) and
    # k = 64 (sbmv: 65 rows). Bytes moved: the band once, x once, y written once.
    # CuPy exposes no gbmv, so gbmv's "vendor" is a device memcpy moving the same bytes (reads
    # half, writes half): its speedup column is our time against the copy-bandwidth floor.
    # sbmv's vendor is cuBLAS ssbmv through cupy.cublas.sbmv on the same memory as an (lda, n)
    # Fortran-ordered array.
    from rocarray.rocblas import _level2_banded

    n, k = _BAND_N, _BAND_K
    size = 4
    gb_rows = 2 * k + 1
    gb_bytes = (gb_rows * n + 2 * n) * size

    def gb_setup():
        cupy = backend.cupy()
        return (_random(gb_rows * n, "float32"), _random(n, "float32"), cupy.zeros(n, numpy.float32),
                cupy.empty(gb_bytes // 2, numpy.uint8))

    def copy_same_bytes(a, x, y, scratch):
        scratch.data.copy_from_device_async(a.data, scratch.nbytes)

    for trans in "NT":
        _bench(f"gbmv_{trans.lower()}_float32", gb_setup,
               lambda a, x, y, s, t=trans: _level2_banded.gbmv(t, n, n, k, k, 1.0, a, gb_rows, x, 1, 0.0, y, 1),
               copy_same_bytes, gb_bytes)

    sb_rows = k + 1

    def sb_setup():
        return _random(sb_rows * n, "float32"), _random(n, "float32"), backend.cupy().zeros(n, numpy.float32)

    def vendor_sbmv(a, x, y):
        _cublas().sbmv(k, 1.0, a.reshape(n, sb_rows).T, x, 0.0, y)  # (lda, n), Fortran order: no copy

    _bench("sbmv_float32", sb_setup,
           lambda a, x, y: _level2_banded.sbmv("U", n, k, 1.0, a, sb_rows, x, 1, 0.0, y, 1),
           vendor_sbmv, (sb_rows * n + 2 * n) * size)


_register_banded_benchmarks()


_GEMM_N = 8192


def _register_gemm_benchmarks():
    # C = A B on 8192^3 column-major buffers. CuPy sees each buffer as the row-major transpose,
    # so the vendor computes C^T = B^T A^T with cupy.matmul (cuBLAS) on the same bytes.
    n = _GEMM_N
    for dtype in ("float32", "float64"):
        def setup(dtype=dtype):
            return _random(n * n, dtype), _random(n * n, dtype), backend.cupy().zeros(n * n, dtype)

        def ours(a, b, c):
            from rocarray import rocblas

            rocblas.gemm("N", "N", n, n, n, 1.0, a, n, b, n, 0.0, c, n)

        def vendor(a, b, c):
            backend.cupy().matmul(b.reshape(n, n), a.reshape(n, n), out=c.reshape(n, n))

        harness.bench_case(BenchCase(name=f"{_LIB}.gemm_{n}_{dtype}", library=_LIB, setup=setup, rocarray=ours,
                                     vendor=vendor, flops=2 * n ** 3, memory_bound=False))


_register_gemm_benchmarks()


def _register_awkward_gemm_benchmarks():
    # The non-square and awkward shapes (C = A B, column-major; vendor as above).
    for m, n, k in ((1000, 1000, 1000), (4097, 4097, 4097), (64, 8192, 8192), (256, 256, 65536)):
        for dtype in ("float32", "float64", "float16"):
            def setup(dtype=dtype, m=m, n=n, k=k):
                return _random(m * k, dtype), _random(k * n, dtype), backend.cupy().zeros(m * n, dtype)

            def ours(a, b, c, m=m, n=n, k=k):
                from rocarray import rocblas

                rocblas.gemm("N", "N", m, n, k, 1.0, a, m, b, k, 0.0, c, m)

            def vendor(a, b, c, m=m, n=n, k=k):
                backend.cupy().matmul(b.reshape(n, k), a.reshape(k, m), out=c.reshape(n, m))

            harness.bench_case(BenchCase(name=f"{_LIB}.gemm_{m}x{n}x{k}_{dtype}", library=_LIB, setup=setup,
                                         rocarray=ours, vendor=vendor, flops=2 * m * n * k, memory_bound=False))


_register_awkward_gemm_benchmarks()
