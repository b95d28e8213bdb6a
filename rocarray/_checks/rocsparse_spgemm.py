"""Self-checks and vendor-ratio benchmark cases of rocsparse's SpGEMM, sparse additions and SDDMM
(``python -m rocarray``).

The self-checks compare :func:`rocarray.rocsparse.csrgemm`, :func:`~rocarray.rocsparse.csrgeam`,
:func:`~rocarray.rocsparse.csr_multiply` and :func:`~rocarray.rocsparse.sddmm` with SciPy on fresh
random matrices (duplicates and unsorted rows included, rows long enough to use every hash bin) in
all four dtypes and both index widths. Benchmark cases time them against cuSPARSE through
``cupyx.scipy.sparse`` on the same matrices: ``A @ A`` for the 2-D 5-point Laplacian on a 2048^2
grid (float64 and float32, the issue's target), ``A @ B`` for random 10^5 x 10^5 matrices with
about 10 entries per row, ``A + B`` for random 10^6 x 10^6 matrices with about 10 per row, and
SDDMM for m = n = 4096, k = 64, density 1e-2. cupyx has no SDDMM, so that case's vendor is the
dense product ``A @ B`` (cuBLAS) gathered at the pattern.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "rocsparse"
_DTYPES = ("float32", "float64", "complex64", "complex128")


def _random_csr(rng, m, n, per_row, dtype, index, *, duplicates=False, unsorted=False):
    """Host CSR parts of an m x n matrix with about ``per_row`` entries per row."""
    import scipy.sparse as sp

    nnz = int(m * per_row)
    rows, cols = rng.integers(0, m, nnz), rng.integers(0, n, nnz)
    if not duplicates:
        keys = numpy.unique(rows * n + cols)
        rows, cols = keys // n, keys % n
    vals = harness.standard_normal(rng, rows.size, dtype)
    order = numpy.lexsort((rng.random(rows.size) if unsorted else cols, rows))
    indptr = numpy.concatenate([[0], numpy.cumsum(numpy.bincount(rows, minlength=m))])
    parts = (indptr.astype(index), cols[order].astype(index), vals[order])
    return parts, sp.csr_array((parts[2], parts[1].astype(numpy.int64), parts[0].astype(numpy.int64)), shape=(m, n))


def _device(parts):
    cupy = backend.cupy()
    return tuple(cupy.asarray(p) for p in parts)


def _check_csr(name, got, ref, dtype, n):
    cupy = backend.cupy()
    indptr, indices, data = (cupy.asnumpy(x) for x in got)
    ref = ref.tocsr()
    ref.sort_indices()
    if not (numpy.array_equal(indptr, ref.indptr) and numpy.array_equal(indices, ref.indices)):
        raise AssertionError(f"{name} {dtype}: pattern differs from SciPy's")
    harness.assert_close(data, ref.data, dtype, n, name=f"{name} {dtype}")


def _laplacian_2d(side, dtype, index="int32"):
    import scipy.sparse as sp

    one = sp.diags_array([-numpy.ones(side - 1), 2 * numpy.ones(side), -numpy.ones(side - 1)], offsets=[-1, 0, 1])
    a = (sp.kron(sp.identity(side), one) + sp.kron(one, sp.identity(side))).tocsr()
    a.sum_duplicates()
    return a.indptr.astype(index), a.indices.astype(index), a.data.astype(dtype)


@harness.self_check(_LIB, "csrgemm")
def check_csrgemm(rng):
    import rocarray.rocsparse as rs

    for dtype in _DTYPES:
        for index in ("int32", "int64"):
            a, sa = _random_csr(rng, 500, 300, 6, dtype, index, duplicates=True, unsorted=True)
            b, sb = _random_csr(rng, 300, 20000, 40, dtype, index)
            # a few long rows of A: their rows of C pass the small bins
            a2, sa2 = _random_csr(rng, 4, 300, 150, dtype, index)
            for name, (x, sx) in (("csrgemm", (a, sa)), ("csrgemm long rows", (a2, sa2))):
                got = rs.csrgemm(sx.shape[0], 300, 20000, *_device(x), *_device(b))
                _check_csr(name, got, sx @ sb, dtype, 300)
    side = 32
    lap = _laplacian_2d(side, "float64")
    import scipy.sparse as sp

    s = sp.csr_array((lap[2], lap[1], lap[0]), shape=(side * side,) * 2)
    _check_csr("csrgemm laplacian", rs.csrgemm(side * side, side * side, side * side, *_device(lap), *_device(lap)),
               s @ s, "float64", 5)


@harness.self_check(_LIB, "csrgeam")
def check_csrgeam(rng):
    import rocarray.rocsparse as rs

    for dtype in _DTYPES:
        for index in ("int32", "int64"):
            a, sa = _random_csr(rng, 700, 600, 5, dtype, index, duplicates=True, unsorted=True)
            b, sb = _random_csr(rng, 700, 600, 5, dtype, index)
            _check_csr("csrgeam", rs.csrgeam(700, 600, 2.0, *_device(a), -1.0, *_device(b)), 2.0 * sa - sb, dtype, 4)
            _check_csr("csr_multiply", rs.csr_multiply(700, 600, *_device(a), *_device(a)), sa.multiply(sa), dtype,
                       4)


@harness.self_check(_LIB, "sddmm")
def check_sddmm(rng):
    import rocarray.rocsparse as rs

    cupy = backend.cupy()
    for dtype in _DTYPES:
        for order in ("C", "F"):
            (indptr, indices, data), s = _random_csr(rng, 200, 150, 8, dtype, "int32", duplicates=True)
            A = numpy.asarray(harness.standard_normal(rng, (200, 40), dtype), order=order)
            B = numpy.asarray(harness.standard_normal(rng, (40, 150), dtype), order=order)
            got = rs.sddmm(0.5, cupy.asarray(A, order=order), cupy.asarray(B, order=order), 2.0,
                           *_device((indptr, indices, data)))
            rows = numpy.repeat(numpy.arange(200), numpy.diff(indptr))
            ref = 0.5 * (A.astype(numpy.complex128) @ B)[rows, indices] + 2.0 * data
            harness.assert_close(got, ref, dtype, 40, name=f"sddmm {dtype} {order}")


# --------------------------------------------------------------------------------------------
# benchmarks
# --------------------------------------------------------------------------------------------

def _cupyx_csr(parts, shape):
    import cupyx.scipy.sparse as cs

    indptr, indices, data = parts
    return cs.csr_matrix((data, indices, indptr), shape=shape)


def _gemm_case(name, make, flops_of):
    def setup():
        a, b, shape_a, shape_b = make()
        da, db = _device(a), _device(b)
        return shape_a, shape_b, da, db, _cupyx_csr(da, shape_a), _cupyx_csr(db, shape_b)

    def ours(shape_a, shape_b, da, db, va, vb):
        import rocarray.rocsparse as rs

        rs.csrgemm(shape_a[0], shape_a[1], shape_b[1], *da, *db)

    def vendor(shape_a, shape_b, da, db, va, vb):
        va @ vb

    harness.bench_case(BenchCase(name=f"{_LIB}.{name}", library=_LIB, setup=setup, rocarray=ours, vendor=vendor,
                                 flops=flops_of, memory_bound=False))


def _laplacian_pair(dtype):
    def make():
        side = 2048
        a = _laplacian_2d(side, dtype)
        n = side * side
        return a, a, (n, n), (n, n)
    return make


def _random_pair(n, per_row, dtype):
    def make():
        rng = numpy.random.default_rng()
        a, _ = _random_csr(rng, n, n, per_row, dtype, "int32")
        b, _ = _random_csr(rng, n, n, per_row, dtype, "int32")
        return a, b, (n, n), (n, n)
    return make


def _geam_case(name, n, per_row, dtype):
    def setup():
        a, b, shape, _ = _random_pair(n, per_row, dtype)()
        da, db = _device(a), _device(b)
        return shape, da, db, _cupyx_csr(da, shape), _cupyx_csr(db, shape)

    def ours(shape, da, db, va, vb):
        import rocarray.rocsparse as rs

        rs.csrgeam(shape[0], shape[1], 1.0, *da, 1.0, *db, canonical=True)

    def vendor(shape, da, db, va, vb):
        va + vb

    isz = numpy.dtype(dtype).itemsize
    nnz = 2 * n * per_row
    harness.bench_case(BenchCase(name=f"{_LIB}.{name}", library=_LIB, setup=setup, rocarray=ours, vendor=vendor,
                                 bytes_moved=2 * nnz * (4 + isz), memory_bound=True))


def _sddmm_case(name, m, n, k, density, dtype):
    def setup():
        rng = numpy.random.default_rng()
        parts, _ = _random_csr(rng, m, n, density * n, dtype, "int32")
        cupy = backend.cupy()
        A = cupy.asarray(harness.standard_normal(rng, (m, k), dtype))
        B = cupy.asarray(harness.standard_normal(rng, (k, n), dtype))
        indptr, indices, data = _device(parts)
        rows = cupy.asarray(numpy.repeat(numpy.arange(m), numpy.diff(parts[0])))
        return A, B, indptr, indices, data, rows

    def ours(A, B, indptr, indices, data, rows):
        import rocarray.rocsparse as rs

        rs.sddmm(1.0, A, B, 0.0, indptr, indices, data)

    def vendor(A, B, indptr, indices, data, rows):
        (A @ B)[rows, indices]

    nnz = int(m * n * density)
    harness.bench_case(BenchCase(name=f"{_LIB}.{name}", library=_LIB, setup=setup, rocarray=ours, vendor=vendor,
                                 flops=2 * nnz * k, memory_bound=False))


def _register_benchmarks():
    side = 2048
    interior = side * side
    # products of A @ A for the 5-point Laplacian: 5 per entry of A, 5 entries per row (fewer on
    # the boundary); two flops each
    lap_flops = 2 * 25 * interior
    _gemm_case("spgemm_laplacian_2048_float64", _laplacian_pair("float64"), lap_flops)
    _gemm_case("spgemm_laplacian_2048_float32", _laplacian_pair("float32"), lap_flops)
    _gemm_case("spgemm_random_100000x10_float64", _random_pair(100_000, 10, "float64"), 2 * 100_000 * 10 * 10)
    _geam_case("geam_random_1000000x10_float64", 1_000_000, 10, "float64")
    _sddmm_case("sddmm_4096x4096_k64_float32_vs_dense", 4096, 4096, 64, 1e-2, "float32")


_register_benchmarks()
