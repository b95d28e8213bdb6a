"""Self-checks and vendor-ratio benchmark cases of rocblas level 3 beyond gemm (``python -m rocarray``).

Self-checks run trsm, trmm, symm, hemm, syrk, herk, syr2k and her2k on small fresh random
column-major matrices (sizes crossing the 64-row leaves and the 256-row diagonal blocks) and
compare with NumPy in float64/complex128, including that the unreferenced triangle of C is left
alone. Benchmark cases time rocarray against cuBLAS on the same 2048^2 and 8192^2 buffers:
``strsm``/``dtrsm`` (called through ``cupy_backends``' cuBLAS binding, as
``cupyx.scipy.linalg.solve_triangular`` does), ``ssyrk``/``dsyrk`` (``cupy.cublas.syrk``), and
symm against a gemm of the same size (``cupy.matmul``; CuPy has no symm).
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase
from rocarray.rocblas import _level3_sym, _level3_tri

_LIB = "rocblas"
_DTYPES = ("float32", "float64", "complex64", "complex128")


def _check(name, got, want, dtype, n, scale):
    got = numpy.asarray(got, dtype=numpy.complex128)
    want = numpy.asarray(want, dtype=numpy.complex128)
    rtol = harness.tolerance(dtype, n, factor=16, growth="linear")
    if not numpy.allclose(got, want, rtol=rtol, atol=rtol * scale):
        err = float(numpy.max(numpy.abs(got - want)))
        raise AssertionError(f"{name}: max error {err:.3e} > {rtol * scale:.3e}")


def _colmajor(buf, rows, cols, ld):
    return buf.reshape(cols, ld).T[:rows].astype(numpy.complex128)


@harness.self_check(_LIB, "trsm_trmm")
def check_trsm_trmm(rng):
    cupy = backend.cupy()
    m, n = 130, 45
    for dtype in _DTYPES:
        for side, uplo, trans, diag in (("L", "L", "N", "N"), ("L", "U", "T", "U"), ("R", "U", "C", "N"),
                                        ("R", "L", "N", "U")):
            ka = m if side == "L" else n
            a = harness.standard_normal(rng, ka * ka, dtype) / ka
            k = numpy.arange(ka)
            a[k + k * ka] = 2.0
            full = _colmajor(a, ka, ka, ka)
            t = numpy.triu(full) if uplo == "U" else numpy.tril(full)
            if diag == "U":
                numpy.fill_diagonal(t, 1)
            op = t if trans == "N" else (t.T if trans == "T" else t.conj().T)
            b = harness.standard_normal(rng, m * n, dtype)
            bm = _colmajor(b, m, n, m)
            for fn in ("trsm", "trmm"):
                db = cupy.asarray(b)
                getattr(_level3_tri, fn)(side, uplo, trans, diag, m, n, 1.5, cupy.asarray(a), ka, db, m)
                if fn == "trmm":
                    want = 1.5 * (op @ bm if side == "L" else bm @ op)
                else:
                    want = numpy.linalg.solve(op, 1.5 * bm) if side == "L" else numpy.linalg.solve(op.T, 1.5 * bm.T).T
                got = _colmajor(cupy.asnumpy(db), m, n, m)
                _check(f"{fn} {side}{uplo}{trans}{diag} {dtype}", got, want, dtype, ka,
                       float(numpy.max(numpy.abs(want))))


@harness.self_check(_LIB, "symm_hemm")
def check_symm(rng):
    cupy = backend.cupy()
    m, n = 70, 33
    for dtype in _DTYPES:
        for fn in (("symm", "hemm") if numpy.dtype(dtype).kind == "c" else ("symm",)):
            for side, uplo in (("L", "U"), ("R", "L")):
                ka = m if side == "L" else n
                a = harness.standard_normal(rng, ka * ka, dtype)
                full = _colmajor(a, ka, ka, ka)
                t = numpy.triu(full) if uplo == "U" else numpy.tril(full)
                s = t - numpy.diag(numpy.diag(t))
                d = numpy.diag(t).real if fn == "hemm" else numpy.diag(t)
                sym = s + (s.conj().T if fn == "hemm" else s.T) + numpy.diag(d)
                b, c = harness.standard_normal(rng, m * n, dtype), harness.standard_normal(rng, m * n, dtype)
                bm, cm = _colmajor(b, m, n, m), _colmajor(c, m, n, m)
                dc = cupy.asarray(c)
                getattr(_level3_sym, fn)(side, uplo, m, n, 1.5, cupy.asarray(a), ka, cupy.asarray(b), m, -0.5, dc, m)
                want = 1.5 * (sym @ bm if side == "L" else bm @ sym) - 0.5 * cm
                _check(f"{fn} {side}{uplo} {dtype}", _colmajor(cupy.asnumpy(dc), m, n, m), want, dtype, ka,
                       float(numpy.max(numpy.abs(sym))) * ka * 4)


@harness.self_check(_LIB, "syrk_herk_syr2k_her2k")
def check_rank_k(rng):
    cupy = backend.cupy()
    n, k = 300, 40   # two diagonal blocks of 256 and a ragged one
    for dtype in _DTYPES:
        fns = ("syrk", "syr2k", "herk", "her2k") if numpy.dtype(dtype).kind == "c" else ("syrk", "syr2k")
        for fn in fns:
            herm = fn.startswith("her")
            for uplo, trans in (("L", "N"), ("U", "C" if herm else "T")):
                rows, cols = (n, k) if trans == "N" else (k, n)
                a = harness.standard_normal(rng, rows * cols, dtype)
                b = harness.standard_normal(rng, rows * cols, dtype)
                c = harness.standard_normal(rng, n * n, dtype)
                am, bm = _colmajor(a, rows, cols, rows), _colmajor(b, rows, cols, rows)
                if trans != "N":
                    am, bm = (am.conj().T, bm.conj().T) if herm else (am.T, bm.T)
                tr = (lambda x: x.conj().T) if herm else (lambda x: x.T)
                alpha = 1.5 if fn == "herk" else (1.5 - 0.5j if numpy.dtype(dtype).kind == "c" else 1.5)
                dc = cupy.asarray(c)
                args = (cupy.asarray(a), rows) + ((cupy.asarray(b), rows) if fn.endswith("2k") else ())
                getattr(_level3_sym, fn)(uplo, trans, n, k, alpha, *args, -0.5, dc, n)
                if fn.endswith("2k"):
                    want = alpha * am @ tr(bm) + (numpy.conj(alpha) if herm else alpha) * bm @ tr(am)
                else:
                    want = alpha * am @ tr(am)
                cm = _colmajor(c, n, n, n)
                if herm:
                    cm = cm - 1j * numpy.diag(numpy.diag(cm).imag)
                want = want - 0.5 * cm
                got = _colmajor(cupy.asnumpy(dc), n, n, n)
                tri = numpy.tri(n, dtype=bool) if uplo == "L" else numpy.tri(n, dtype=bool).T
                _check(f"{fn} {uplo}{trans} {dtype}", got[tri], want[tri], dtype, k,
                       float(numpy.max(numpy.abs(am))) ** 2 * k * 4)
                if not numpy.array_equal(got[~tri], _colmajor(c, n, n, n)[~tri]):
                    raise AssertionError(f"{fn} {uplo}{trans} {dtype}: the other triangle of C changed")


# --------------------------------------------------------------------------------------------
# benchmark cases: 2048^3 and 8192^3 against cuBLAS on the same buffers
# --------------------------------------------------------------------------------------------

_N = 8192


def _random(n, dtype):
    return backend.cupy().random.standard_normal(n, dtype=numpy.dtype(dtype))


def _trsm(n, dtype):
    def setup():
        # lower triangular, unit-size diagonal and small off-diagonal part: repeated in-place
        # solves keep B's magnitude (no overflow or denormals over many timed calls)
        cupy = backend.cupy()
        a = _random(n * n, dtype) / n
        k = cupy.arange(n)
        a[k + k * n] = 1.0
        return a, _random(n * n, dtype)

    def ours(a, b):
        _level3_tri.trsm("L", "L", "N", "N", n, n, 1.0, a, n, b, n)

    def vendor(a, b):
        from cupy_backends.cuda.libs import cublas

        cupy = backend.cupy()
        handle = cupy.cuda.device.get_cublas_handle()
        one = numpy.array(1.0, dtype=dtype)
        cublas.setPointerMode(handle, cublas.CUBLAS_POINTER_MODE_HOST)
        fn = cublas.dtrsm if dtype == "float64" else cublas.strsm
        fn(handle, cublas.CUBLAS_SIDE_LEFT, cublas.CUBLAS_FILL_MODE_LOWER, cublas.CUBLAS_OP_N,
           cublas.CUBLAS_DIAG_NON_UNIT, n, n, one.ctypes.data, a.data.ptr, n, b.data.ptr, n)

    harness.bench_case(BenchCase(name=f"{_LIB}.trsm_{n}_{dtype}", library=_LIB, setup=setup,
                                 rocarray=ours, vendor=vendor, flops=n ** 3, memory_bound=False))


def _syrk(n, dtype):
    def setup():
        return _random(n * n, dtype), backend.cupy().zeros(n * n, dtype)

    def ours(a, c):
        _level3_sym.syrk("L", "N", n, n, 1.0, a, n, 0.0, c, n)

    def vendor(a, c):
        import cupy.cublas

        # the column-major n x n A is the row-major M = A^T: A A^T = M^T M; C's bytes likewise
        cupy.cublas.syrk("T", a.reshape(n, n), out=c.reshape(n, n), alpha=1.0, beta=0.0, lower=False)

    harness.bench_case(BenchCase(name=f"{_LIB}.syrk_{n}_{dtype}", library=_LIB, setup=setup,
                                 rocarray=ours, vendor=vendor, flops=n * n * n, memory_bound=False))


def _symm(n, dtype):
    def setup():
        return _random(n * n, dtype), _random(n * n, dtype), backend.cupy().zeros(n * n, dtype)

    def ours(a, b, c):
        _level3_sym.symm("L", "U", n, n, 1.0, a, n, b, n, 0.0, c, n)

    def vendor(a, b, c):
        # CuPy has no symm: a cuBLAS gemm of the same size on the same bytes (the same flops)
        backend.cupy().matmul(b.reshape(n, n), a.reshape(n, n), out=c.reshape(n, n))

    harness.bench_case(BenchCase(name=f"{_LIB}.symm_{n}_{dtype}", library=_LIB, setup=setup,
                                 rocarray=ours, vendor=vendor, flops=2 * n ** 3, memory_bound=False))


def _register_benchmarks():
    for n in (2048, _N):
        for dtype in ("float32", "float64"):
            _trsm(n, dtype)
            _syrk(n, dtype)
        _symm(n, "float32")


_register_benchmarks()
