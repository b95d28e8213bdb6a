"""Self-checks and vendor-ratio benchmark cases of rocsparse's format conversions (``python -m rocarray``).

The self-check builds fresh random COO matrices (duplicates, unsorted order, empty rows) in the
four dtypes and both index widths, converts them through ``rocarray.sparse`` (COO -> CSR -> CSC
-> dense, ``sum_duplicates``, ``eliminate_zeros``, dense -> CSR) and compares with SciPy.
Benchmark cases time, on the same arrays, ``csr2csc`` (``csr_array.tocsc``) against
``cupyx.scipy.sparse.csr_matrix.tocsc`` (cuSPARSE ``csr2cscEx2``) and an unsorted COO with
duplicates to canonical CSR (``coo_array.tocsr``) against ``cupyx``'s ``coo_matrix.tocsr``
(cuSPARSE ``coosort`` + ``coo2csr``), both with 4e7 stored float32 values and int32 indices.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "rocsparse"
_DTYPES = ("float32", "float64", "complex64", "complex128")


def _host_coo(rng, m, n, nnz, dtype):
    row = rng.integers(0, m, nnz)
    col = rng.integers(0, n, nnz)
    data = rng.standard_normal(nnz)
    if numpy.dtype(dtype).kind == "c":
        data = data + 1j * rng.standard_normal(nnz)
    row[rng.random(nnz) < 0.2] = 0        # a crowded first row; other rows stay empty
    return row, col, data.astype(dtype)


@harness.self_check(_LIB, "convert")
def check_convert(rng):
    import scipy.sparse as sp

    import rocarray.sparse as rs

    cupy = backend.cupy()
    for dtype in _DTYPES:
        tol = 1e-5 if dtype in ("float32", "complex64") else 1e-12
        for idx in ("int32", "int64"):
            m, n = 3000, 1700
            row, col, data = _host_coo(rng, m, n, 20_000, dtype)
            data[rng.random(data.size) < 0.1] = 0
            ref = sp.coo_array((data, (row, col)), shape=(m, n))
            a = rs.coo_array((cupy.asarray(data), (cupy.asarray(row.astype(idx)), cupy.asarray(col.astype(idx)))),
                             shape=(m, n))
            csr = a.tocsr()
            csc = csr.tocsc()
            steps = (("coo.toarray", a.toarray()), ("tocsr", csr.toarray()), ("tocsc", csc.toarray()),
                     ("dense2csr", rs.csr_array(csr.toarray()).toarray()))
            dense = ref.toarray()
            for name, got in steps:
                if not numpy.allclose(cupy.asnumpy(got), dense, rtol=tol, atol=tol):
                    raise AssertionError(f"{name} {dtype} {idx}: differs from SciPy")
            ref_csr = ref.tocsr()
            ref_csr.eliminate_zeros()
            csr.eliminate_zeros()
            for name, ours, theirs in (("indptr", csr.indptr, ref_csr.indptr), ("indices", csr.indices,
                                                                                ref_csr.indices)):
                if not numpy.array_equal(cupy.asnumpy(ours), theirs):
                    raise AssertionError(f"tocsr + eliminate_zeros {dtype} {idx}: {name} differs from SciPy")


_NNZ = 40_000_000
_ROWS = 4_000_000


def _device_csr(canonical):
    cupy = backend.cupy()
    rng = cupy.random.default_rng(1)
    row = cupy.sort(rng.integers(0, _ROWS, _NNZ, dtype=cupy.int32)) if canonical else \
        rng.integers(0, _ROWS, _NNZ, dtype=cupy.int32)
    col = rng.integers(0, _ROWS, _NNZ, dtype=cupy.int32)
    data = rng.standard_normal(_NNZ, dtype=cupy.float32)
    return row, col, data


def _csr2csc_case():
    def setup():
        import cupyx.scipy.sparse as csp

        import rocarray.sparse as rs

        cupy = backend.cupy()
        row, col, data = _device_csr(True)
        indptr = cupy.searchsorted(row, cupy.arange(_ROWS + 1, dtype=cupy.int32)).astype(cupy.int32)
        ours = rs.csr_array._from_parts(data, col, indptr, (_ROWS, _ROWS))
        theirs = csp.csr_matrix((data, col, indptr), shape=(_ROWS, _ROWS))
        return ours, theirs

    def ours(a, _):
        a.tocsc()

    def vendor(_, b):
        b.tocsc()

    # read indices and values, write row indices and values: the floor of any transpose
    bytes_moved = 16 * _NNZ + 8 * _ROWS
    harness.bench_case(BenchCase(name=f"{_LIB}.csr2csc_40M_float32", library=_LIB, setup=setup, rocarray=ours,
                                 vendor=vendor, bytes_moved=bytes_moved))


def _coo2csr_case():
    def setup():
        import cupyx.scipy.sparse as csp

        import rocarray.sparse as rs

        row, col, data = _device_csr(False)
        ours = rs.coo_array._from_parts(data, row, col, (_ROWS, _ROWS))
        theirs = csp.coo_matrix((data, (row, col)), shape=(_ROWS, _ROWS))
        return ours, theirs

    def ours(a, _):
        a.tocsr()

    def vendor(_, b):
        b.tocsr()

    bytes_moved = 24 * _NNZ + 4 * _ROWS
    harness.bench_case(BenchCase(name=f"{_LIB}.coo_tocsr_40M_float32", library=_LIB, setup=setup, rocarray=ours,
                                 vendor=vendor, bytes_moved=bytes_moved))


_csr2csc_case()
_coo2csr_case()
