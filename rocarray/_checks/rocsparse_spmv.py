"""Self-checks and vendor-ratio benchmark cases of rocsparse's SpMV and SpMM (``python -m rocarray``).

The self-check runs :func:`rocarray.rocsparse.csrmv` with every strategy forced, and
:func:`rocarray.rocsparse.csrmm` on C- and F-order B, on small random matrices with power-law rows
(one longer than a split chunk, some empty) against SciPy in float64/complex128.

The benchmark cases are the issue's, float32, each against ``A @ x`` of a
``cupyx.scipy.sparse.csr_matrix`` (cuSPARSE) on the same arrays, x random; rocarray's call uses
the matrix's analysis made once in the setup and allocates y like the vendor's:

* ``spmv_uniform_4M_x16``: 4M x 4M, 16 stored elements per row at random columns;
* ``spmv_power_law_4M``: 4M x 4M, row lengths ``ceil(1.7 (1 + Pareto(1.2)))`` capped at 4M
  (NumPy, seed 0: about 41M stored elements), random columns;
* ``spmv_laplacian_4096``: the 5-point 2-D Laplacian on a 4096 x 4096 grid (16.8M rows);
* ``spmm_uniform_2_5M_x16_32cols``: 2.5M x 2.5M with 16 per row (4e7 stored elements) times a
  C-order 2.5M x 32 B.

Columns are sorted within rows. Bytes counted: values + indices + indptr + one element of x (B's
row for SpMM) per stored element + y (C) written: the issue's bandwidth floor.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "rocsparse"


def _values(cupy, n, seed):
    return cupy.random.RandomState(seed).standard_normal(n, dtype=numpy.float32)


def _sorted_columns(cupy, indptr, m, n, seed):
    """Random columns in ``[0, n)`` for the rows of ``indptr``, sorted within each row."""
    nnz = int(indptr[-1])
    rows = cupy.searchsorted(indptr, cupy.arange(nnz, dtype=indptr.dtype), side="right") - 1
    cols = cupy.random.RandomState(seed).randint(0, n, nnz, dtype=numpy.int64)
    keys = cupy.sort(rows.astype(numpy.int64) * n + cols)
    return (keys % n).astype(indptr.dtype)


def uniform(m, per_row, seed=1):
    """``(indptr, indices, data)`` on the device: ``per_row`` random sorted columns in each of
    ``m`` rows of an ``m x m`` matrix, float32 values."""
    cupy = backend.cupy()
    indptr = cupy.arange(m + 1, dtype=numpy.int32) * per_row
    return indptr, _sorted_columns(cupy, indptr, m, m, seed), _values(cupy, m * per_row, seed + 1)


def power_law_lengths(m, seed=0):
    """Row lengths ``ceil(1.7 (1 + Pareto(1.2)))`` capped at m (host NumPy, int64)."""
    rng = numpy.random.default_rng(seed)
    return numpy.minimum(numpy.ceil(1.7 * (1.0 + rng.pareto(1.2, m))), m).astype(numpy.int64)


def power_law(m, seed=0):
    """``(indptr, indices, data)`` on the device for the ``m x m`` power-law matrix."""
    cupy = backend.cupy()
    lengths = power_law_lengths(m, seed)
    indptr = cupy.asarray(numpy.concatenate([[0], numpy.cumsum(lengths)]).astype(numpy.int32))
    nnz = int(lengths.sum())
    return indptr, _sorted_columns(cupy, indptr, m, m, seed + 1), _values(cupy, nnz, seed + 2)


def laplacian(k):
    """``(indptr, indices, data)`` of the 5-point Laplacian on a k x k grid (4 on the diagonal)."""
    cupy = backend.cupy()
    m = k * k
    r = cupy.arange(m, dtype=numpy.int64)
    i, j = r // k, r % k
    cols = cupy.stack([r - k, r - 1, r, r + 1, r + k], axis=1)
    valid = cupy.stack([i > 0, j > 0, cupy.ones(m, bool), j < k - 1, i < k - 1], axis=1)
    indptr = cupy.concatenate([cupy.zeros(1, numpy.int64), cupy.cumsum(valid.sum(axis=1))]).astype(numpy.int32)
    indices = cols[valid].astype(numpy.int32)
    data = cupy.where(cols == r[:, None], numpy.float32(4), numpy.float32(-1))[valid]
    return indptr, indices, data


def spmv_bytes(m, nnz, itemsize=4, index=4):
    """Bytes of one SpMV: values, indices, indptr, one x element per stored element, y."""
    return nnz * (itemsize + index + itemsize) + (m + 1) * index + m * itemsize


def spmm_bytes(m, nnz, ncols, itemsize=4, index=4):
    """Bytes of one SpMM: values, indices, indptr, one row of B per stored element, C."""
    return nnz * (itemsize + index + ncols * itemsize) + (m + 1) * index + m * ncols * itemsize


# --------------------------------------------------------------------------------------------
# self-check
# --------------------------------------------------------------------------------------------

def _host_matrix(rng, m, n, dtype):
    import scipy.sparse as sp

    from rocarray.rocsparse._spmv_kernels import CHUNK

    lengths = numpy.minimum(numpy.floor(rng.pareto(1.2, m) * 2), n).astype(numpy.int64)
    lengths[m // 2] = 2 * CHUNK + 3
    lengths[:: 17] = 0
    indptr = numpy.concatenate([[0], numpy.cumsum(lengths)])
    nnz = int(indptr[-1])
    data = harness.standard_normal(rng, nnz, dtype)
    return sp.csr_matrix((data, rng.integers(0, n, nnz), indptr), shape=(m, n))


@harness.self_check(_LIB, "csrmv_csrmm")
def check_products(rng):
    from rocarray import rocsparse
    from rocarray.rocsparse._spmv_analysis import strategies

    cupy = backend.cupy()
    for dtype in ("float32", "float64", "complex64", "complex128"):
        a = _host_matrix(rng, 700, 9000, dtype)
        wide = a.astype(numpy.complex128)
        ip, ix, d = (cupy.asarray(v) for v in (a.indptr, a.indices, a.data))
        analysis = rocsparse.csrmv_analysis(700, 9000, ip, a.nnz)
        x = harness.standard_normal(rng, 9000, dtype)
        n = int(numpy.diff(a.indptr).max())
        for strategy in strategies(backend.device_info().warp_size):
            y = rocsparse.csrmv(1.0, 700, 9000, ip, ix, d, cupy.asarray(x), analysis=analysis.forced_to(strategy))
            harness.assert_close(y, wide @ x, dtype, n, name=f"csrmv {strategy} {dtype}")
        xt = harness.standard_normal(rng, 700, dtype)
        y = rocsparse.csrmv(1.0, 700, 9000, ip, ix, d, cupy.asarray(xt), trans="C")
        harness.assert_close(y, wide.conj().T @ xt, dtype, n, name=f"csrmv C {dtype}")
        for order in ("C", "F"):
            B = numpy.asarray(harness.standard_normal(rng, (9000, 20), dtype), order=order)
            C = rocsparse.csrmm(1.0, 700, 9000, ip, ix, d, cupy.asarray(B, order=order))
            harness.assert_close(C, wide @ B, dtype, n, name=f"csrmm {order} {dtype}")
        # a matrix without entries only scales y: by beta, or to zeros without reading it
        empty = (cupy.zeros(701, numpy.int32), cupy.zeros(0, numpy.int32), cupy.zeros(0, dtype))
        y0 = harness.standard_normal(rng, 700, dtype)
        y = rocsparse.csrmv(1.0, 700, 9000, *empty, cupy.asarray(x), beta=0.5, y=cupy.asarray(y0))
        harness.assert_close(y, 0.5 * y0.astype(numpy.complex128), dtype, 1, name=f"csrmv empty beta {dtype}")
        y = rocsparse.csrmv(1.0, 700, 9000, *empty, cupy.asarray(x), beta=0,
                            y=cupy.full(700, numpy.nan, dtype))
        harness.assert_close(y, numpy.zeros(700), dtype, 1, name=f"csrmv empty beta=0 {dtype}")


# --------------------------------------------------------------------------------------------
# benchmark cases
# --------------------------------------------------------------------------------------------

def _spmv_case(name, build, m, nnz):
    def setup():
        import cupyx.scipy.sparse as cusp

        from rocarray import rocsparse

        cupy = backend.cupy()
        indptr, indices, data = build()
        x = _values(cupy, m, 7)
        analysis = rocsparse.csrmv_analysis(m, m, indptr, int(data.size))
        vendor = cusp.csr_matrix((data, indices, indptr), shape=(m, m))
        return indptr, indices, data, x, analysis, vendor

    def ours(indptr, indices, data, x, analysis, vendor):
        from rocarray import rocsparse

        rocsparse.csrmv(1.0, m, m, indptr, indices, data, x, analysis=analysis)

    def theirs(indptr, indices, data, x, analysis, vendor):
        vendor @ x

    harness.bench_case(BenchCase(name=f"{_LIB}.{name}", library=_LIB, setup=setup, rocarray=ours, vendor=theirs,
                                 bytes_moved=spmv_bytes(m, nnz), flops=2 * nnz))


def _spmm_case(name, m, per_row, ncols):
    nnz = m * per_row

    def setup():
        import cupyx.scipy.sparse as cusp

        cupy = backend.cupy()
        indptr, indices, data = uniform(m, per_row, seed=11)
        B = _values(cupy, m * ncols, 13).reshape(m, ncols)
        vendor = cusp.csr_matrix((data, indices, indptr), shape=(m, m))
        return indptr, indices, data, B, vendor

    def ours(indptr, indices, data, B, vendor):
        from rocarray import rocsparse

        rocsparse.csrmm(1.0, m, m, indptr, indices, data, B)

    def theirs(indptr, indices, data, B, vendor):
        vendor @ B

    harness.bench_case(BenchCase(name=f"{_LIB}.{name}", library=_LIB, setup=setup, rocarray=ours, vendor=theirs,
                                 bytes_moved=spmm_bytes(m, nnz, ncols), flops=2 * nnz * ncols))


def _register_benchmarks():
    m = 4_000_000
    _spmv_case("spmv_uniform_4M_x16", lambda: uniform(m, 16), m, 16 * m)
    _spmv_case("spmv_power_law_4M", lambda: power_law(m), m, int(power_law_lengths(m).sum()))
    k = 4096
    _spmv_case("spmv_laplacian_4096", lambda: laplacian(k), k * k, 5 * k * k - 4 * k)
    _spmm_case("spmm_uniform_2_5M_x16_32cols", 2_500_000, 16, 32)


_register_benchmarks()
