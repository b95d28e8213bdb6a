"""Self-checks and vendor-ratio benchmark cases of the sparse operations (``python -m rocarray``).

The self-check builds random CSR arrays with duplicates-free random patterns and empty rows in all
four dtypes and compares ``A + B``, ``A - B``, ``A.multiply(B)``, ``A * 2``, sums along both axes,
``max`` along rows, ``diagonal``, row slices with a step, fancy rows, column slices, ``kron``,
``vstack`` and ``random_array``'s stored count against SciPy on the host.
Benchmark cases time, against ``cupyx.scipy.sparse`` (cuSPARSE) on the same parts: ``A + B`` of
two float32 CSR arrays of 10^6 x 10^6 with 10 entries per row (10^7 each), a contiguous row slice
of most of the rows, and a fancy-row gather of 10^5 random rows.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "rocsparse"
_DTYPES = ("float32", "float64", "complex64", "complex128")


def _parts(m, n, per_row, dtype, rng=None):
    """Canonical CSR parts: ``per_row`` entries per row in distinct column bands, as device arrays."""
    cupy = backend.cupy()
    nnz = m * per_row
    band = max(n // per_row, 1)
    if rng is not None:
        offs = cupy.asarray(rng.integers(0, band, size=nnz))
        vals = rng.standard_normal(nnz) + (1j * rng.standard_normal(nnz) if numpy.dtype(dtype).kind == "c" else 0)
        data = cupy.asarray(vals.astype(dtype))
    else:
        offs = cupy.random.randint(0, band, size=nnz)
        data = cupy.random.standard_normal(nnz).astype(dtype)
    indices = ((cupy.arange(nnz) % per_row) * band + offs).astype(numpy.int32)
    indptr = (cupy.arange(m + 1) * per_row).astype(numpy.int32)
    return data, indices, indptr


def _host(x):
    cupy = backend.cupy()
    if hasattr(x, "get") and hasattr(x, "format"):
        return x.get().toarray()
    if hasattr(x, "toarray"):
        x = x.toarray()
    return cupy.asnumpy(x)


def _check(what, got, want, dtype):
    tol = 1e-4 if numpy.dtype(dtype) in (numpy.float32, numpy.complex64) else 1e-10
    got, want = _host(got), numpy.asarray(want.toarray() if hasattr(want, "toarray") else want)
    if got.shape != want.shape or not numpy.allclose(got, want, rtol=tol, atol=tol):
        raise AssertionError(f"sparse {what} {dtype}: differs from SciPy")


@harness.self_check(_LIB, "ops")
def check_ops(rng):
    import scipy.sparse as sp

    import rocarray.sparse as ras

    for dtype in _DTYPES:
        a_p = _parts(300, 200, 5, dtype, rng)
        b_p = _parts(300, 200, 5, dtype, rng)
        a = ras.csr_array(a_p, shape=(300, 200))
        b = ras.csr_array(b_p, shape=(300, 200))
        a_s, b_s = a.get(), b.get()
        _check("add", a + b, a_s + b_s, dtype)
        _check("subtract", a - b, a_s - b_s, dtype)
        _check("multiply", a.multiply(b), a_s.multiply(b_s), dtype)
        _check("scale", a * 2, a_s * 2, dtype)
        _check("sum axis 0", a.sum(axis=0), a_s.sum(axis=0), dtype)
        _check("sum axis 1", a.sum(axis=1), a_s.sum(axis=1), dtype)
        _check("diagonal", a.diagonal(3), a_s.diagonal(3), dtype)
        _check("row slice", a[7:290:3], a_s[7:290:3], dtype)
        rows = rng.integers(0, 300, size=50)
        _check("fancy rows", a[rows], a_s[rows], dtype)
        _check("column slice", a[:, 10:150], a_s[:, 10:150], dtype)
        _check("kron", ras.kron(a[:20, :10], b[:5, :5]), sp.kron(a_s[:20, :10], b_s[:5, :5]), dtype)
        _check("vstack", ras.vstack([a, b]), sp.vstack([a_s, b_s]), dtype)
        if dtype[0] == "f":
            _check("max axis 1", a.max(axis=1), a_s.max(axis=1).toarray(), dtype)
    r = ras.random_array((1000, 700), density=0.003, format="csr", rng=rng)
    if r.nnz != round(0.003 * 1000 * 700):
        raise AssertionError("random_array: wrong number of stored entries")


_M = 1_000_000
_PER_ROW = 10


def _pair_setup():
    import cupyx.scipy.sparse as cps

    import rocarray.sparse as ras

    a_p, b_p = _parts(_M, _M, _PER_ROW, "float32"), _parts(_M, _M, _PER_ROW, "float32")
    ours = (ras.csr_array(a_p, shape=(_M, _M)), ras.csr_array(b_p, shape=(_M, _M)))
    vendor = (cps.csr_matrix(a_p, shape=(_M, _M)), cps.csr_matrix(b_p, shape=(_M, _M)))
    return ours, vendor


def _register_benchmarks():
    nnz = _M * _PER_ROW
    entry = 4 + 4  # float32 value + int32 column

    def add_setup():
        return _pair_setup()

    harness.bench_case(BenchCase(
        name=f"{_LIB}.add_csr_1e7_float32", library=_LIB, setup=add_setup,
        rocarray=lambda ours, vendor: ours[0] + ours[1],
        vendor=lambda ours, vendor: vendor[0] + vendor[1],
        bytes_moved=2 * nnz * entry + 2 * nnz * entry + 3 * 4 * (_M + 1)))

    lo, hi = 1000, _M - 1000
    harness.bench_case(BenchCase(
        name=f"{_LIB}.row_slice_csr_1e7_float32", library=_LIB, setup=add_setup,
        rocarray=lambda ours, vendor: ours[0][lo:hi],
        vendor=lambda ours, vendor: vendor[0][lo:hi],
        bytes_moved=2 * (hi - lo) * _PER_ROW * entry + 2 * 4 * (hi - lo)))

    def gather_setup():
        ours, vendor = _pair_setup()
        rows = backend.cupy().random.randint(0, _M, size=100_000)
        return ours[0], vendor[0], rows

    harness.bench_case(BenchCase(
        name=f"{_LIB}.fancy_rows_csr_1e5_of_1e6_float32", library=_LIB, setup=gather_setup,
        rocarray=lambda ours, vendor, rows: ours[rows],
        vendor=lambda ours, vendor, rows: vendor[rows],
        bytes_moved=2 * 100_000 * _PER_ROW * entry + 4 * 4 * 100_000))


_register_benchmarks()
