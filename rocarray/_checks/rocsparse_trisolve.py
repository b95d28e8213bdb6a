"""Self-checks and vendor-ratio benchmark cases of rocsparse's triangular solve and ILU(0)/IC(0)
(``python -m rocarray``).

Self-checks: ``csrsv_analysis``/``csrsv_solve`` on fresh random triangular matrices (lower and
upper, trans 'N' and 'T', unit diagonal, two right-hand sides) in all four dtypes against a dense
NumPy solve of the same triangle; ``csrilu0`` and ``csric0`` by their defining property, ``L U = A``
(``L L^H = A``) at every stored position of A (of its lower triangle), on the 2-D Laplacian and a
random matrix.

Benchmark cases, on the 5-point 2-D Laplacian of a 1024 x 1024 grid (float64): the lower
triangular solve with A's lower triangle and with the unit lower factor L of its ILU(0), against
``cupyx.scipy.sparse.linalg.spsolve_triangular`` (cuSPARSE SpSV, whose analysis runs inside each
call: the rocarray side keeps its analysis with the matrix, as ``spsolve_triangular`` of the
façade does); and ILU(0) against ``cupyx.scipy.sparse.linalg.spilu(A, fill_factor=1)`` (cuSPARSE
csrilu02; a CUDA without csrilu02 makes that row report the error).
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "rocsparse"
_DTYPES = ("float32", "float64", "complex64", "complex128")
_GRID = 1024


def _csr(dense):
    """Canonical CSR parts (host) of a dense host matrix's nonzeros."""
    rows, cols = numpy.nonzero(dense)
    indptr = numpy.concatenate([[0], numpy.cumsum(numpy.bincount(rows, minlength=dense.shape[0]))])
    return indptr.astype(numpy.int32), cols.astype(numpy.int32), dense[rows, cols]


def laplacian_2d(n, lower_only=False):
    """Host CSR parts (int32, float64) of the 5-point Laplacian on an n x n grid, canonical;
    ``lower_only``: its lower triangle with the diagonal."""
    i, j = numpy.divmod(numpy.arange(n * n), n)
    offsets = numpy.array([-n, -1, 0, 1, n])
    vals = numpy.array([-1.0, -1.0, 4.0, -1.0, -1.0])
    keep = numpy.stack([i > 0, j > 0, numpy.ones_like(i, bool), j < n - 1, i < n - 1], axis=1)
    if lower_only:
        keep[:, 3:] = False
    cols = (numpy.arange(n * n)[:, None] + offsets)[keep]
    data = numpy.broadcast_to(vals, keep.shape)[keep]
    indptr = numpy.concatenate([[0], numpy.cumsum(keep.sum(axis=1))])
    return indptr.astype(numpy.int32), cols.astype(numpy.int32), data.copy()


def _values(rng, shape, dtype):
    return harness.standard_normal(rng, shape, dtype)


def _dominant_triangle(rng, m, density, dtype, lower):
    # off-diagonal rows sum to about 1/2 in magnitude: unit-diagonal solves stay well conditioned
    a = _values(rng, (m, m), dtype) * (rng.random((m, m)) < density) * (0.5 / (1 + density * m))
    a = numpy.tril(a, -1) if lower else numpy.triu(a, 1)
    numpy.fill_diagonal(a, numpy.abs(a).sum(axis=1) + 1)
    return a


def _device(*arrays):
    cupy = backend.cupy()
    return tuple(cupy.asarray(a) for a in arrays)


@harness.self_check(_LIB, "csrsv")
def check_csrsv(rng):
    from rocarray import rocsparse

    cupy = backend.cupy()
    m = 150
    for dtype in _DTYPES:
        for lower in (True, False):
            a = _dominant_triangle(rng, m, 0.02, dtype, lower)
            ptr, ind, data = _device(*_csr(a))
            b = _values(rng, (m, 2), dtype)
            for trans in ("N", "T"):
                an = rocsparse.csrsv_analysis(m, ptr, ind, lower=lower, trans=trans)
                for unit in (False, True):
                    t = a.copy()
                    if unit:
                        numpy.fill_diagonal(t, 1)
                    op = t if trans == "N" else t.T
                    want = numpy.linalg.solve(op.astype(numpy.complex128), b.astype(numpy.complex128))
                    x = rocsparse.csrsv_solve(an, ptr, ind, data, cupy.asarray(b), unit_diagonal=unit)
                    harness.assert_close(x, want, dtype, m, factor=16, growth="linear",
                                         name=f"csrsv {dtype} lower={lower} trans={trans} unit={unit}")
            # the first row whose diagonal is zero, for the values of a nonsingular triangle and for
            # the same values with two diagonal entries zeroed
            an = rocsparse.csrsv_analysis(m, ptr, ind, lower=lower)
            if an.zero_pivot(data) != -1:
                raise AssertionError(f"csrsv {dtype} lower={lower}: zero_pivot of a nonsingular triangle")
            host_ptr, host_ind, host_data = _csr(a)
            diagonal = numpy.nonzero(numpy.repeat(numpy.arange(m), numpy.diff(host_ptr)) == host_ind)[0]
            rows = rng.choice(m, 2, replace=False)
            zeroed = host_data.copy()
            zeroed[diagonal[rows]] = 0
            pivot = an.zero_pivot(cupy.asarray(zeroed))
            if pivot != rows.min():
                raise AssertionError(f"csrsv {dtype} lower={lower}: zero_pivot {pivot}, expected {rows.min()}")


def _on_pattern(dense, indptr, indices):
    rows = numpy.repeat(numpy.arange(len(indptr) - 1), numpy.diff(indptr))
    return dense[rows, indices]


def _factor_parts(indptr, indices, values, m):
    f = numpy.zeros((m, m), values.dtype)
    f[numpy.repeat(numpy.arange(m), numpy.diff(indptr)), indices] = values
    return f


@harness.self_check(_LIB, "ilu0_ic0")
def check_ilu(rng):
    from rocarray import rocsparse

    cupy = backend.cupy()
    n = 24
    lap = laplacian_2d(n)
    for dtype in _DTYPES:
        g = _values(rng, (200, 200), dtype) * (rng.random((200, 200)) < 0.03)
        numpy.fill_diagonal(g, numpy.abs(g).sum(axis=1) + 1)
        for indptr, indices, data in (lap, _csr(g)):
            m = len(indptr) - 1
            data = data.astype(dtype)
            ptr, ind, vals = _device(indptr, indices, data)
            lu, pivot = rocsparse.csrilu0(m, ptr, ind, vals)
            if pivot != -1:
                raise AssertionError(f"csrilu0 {dtype}: zero pivot {pivot} on a dominant matrix")
            f = _factor_parts(indptr, indices, cupy.asnumpy(lu).astype(numpy.complex128), m)
            product = (numpy.tril(f, -1) + numpy.eye(m)) @ numpy.triu(f)
            harness.assert_close(_on_pattern(product, indptr, indices), data, dtype, m, factor=16,
                                 name=f"csrilu0 {dtype}: L U on A's pattern")
        h = g + g.conj().T
        numpy.fill_diagonal(h, numpy.abs(h).sum(axis=1) + 1)
        indptr, indices, data = _csr(h)
        ptr, ind, vals = _device(indptr, indices, data)
        low, pivot = rocsparse.csric0(len(indptr) - 1, ptr, ind, vals)
        if pivot != -1:
            raise AssertionError(f"csric0 {dtype}: pivot {pivot} on a positive definite matrix")
        f = numpy.tril(_factor_parts(indptr, indices, cupy.asnumpy(low).astype(numpy.complex128), h.shape[0]))
        product = numpy.tril(f @ f.conj().T)
        lower = numpy.tril(h) != 0
        harness.assert_close(product[lower], h[lower], dtype, h.shape[0], factor=16,
                             name=f"csric0 {dtype}: L L^H on A's lower pattern")


# --------------------------------------------------------------------------------------------
# benchmark cases
# --------------------------------------------------------------------------------------------

def _solve_bytes(m, nnz, itemsize, index_size=4):
    """Bytes one lower solve moves at best: the triangle's values and column indices, the row
    pointer, the level order and diagonal positions, b read, x written, and x read once per
    stored off-diagonal entry."""
    return nnz * (itemsize + index_size) + (m + 1) * index_size + 2 * m * index_size + 2 * m * itemsize \
        + (nnz - m) * itemsize


def _cupyx_csr(indptr, indices, data, m):
    import cupyx.scipy.sparse as cs

    ptr, ind, vals = _device(indptr, indices, data)
    return cs.csr_matrix((vals, ind, ptr), shape=(m, m))


def _lower_case(name, use_ilu_factor):
    m = _GRID * _GRID

    def setup():
        from rocarray import rocsparse

        cupy = backend.cupy()
        indptr, indices, data = laplacian_2d(_GRID, lower_only=True)
        if use_ilu_factor:
            full = laplacian_2d(_GRID)
            fptr, find, fdata = _device(*full)
            lu, _ = rocsparse.csrilu0(m, fptr, find, fdata)
            rows = numpy.repeat(numpy.arange(m), numpy.diff(full[0]))
            data = cupy.asnumpy(lu)[full[1] <= rows]  # L's strictly lower part, and U's diagonal (unused)
        ptr, ind, vals = _device(indptr, indices, data)
        an = rocsparse.csrsv_analysis(m, ptr, ind, lower=True)
        b = cupy.asarray(numpy.random.default_rng().standard_normal(m))
        return an, ptr, ind, vals, b, _cupyx_csr(indptr, indices, data, m)

    def ours(an, ptr, ind, vals, b, vendor_a):
        from rocarray import rocsparse

        rocsparse.csrsv_solve(an, ptr, ind, vals, b, unit_diagonal=use_ilu_factor)

    def vendor(an, ptr, ind, vals, b, vendor_a):
        from cupyx.scipy.sparse.linalg import spsolve_triangular

        spsolve_triangular(vendor_a, b, lower=True, unit_diagonal=use_ilu_factor)

    nnz = 3 * m - 2 * _GRID
    harness.bench_case(BenchCase(name=f"{_LIB}.{name}", library=_LIB, setup=setup, rocarray=ours, vendor=vendor,
                                 bytes_moved=_solve_bytes(m, nnz, 8), flops=2 * nnz))


def _ilu_case():
    m = _GRID * _GRID

    def setup():
        from rocarray import rocsparse

        indptr, indices, data = laplacian_2d(_GRID)
        ptr, ind, vals = _device(indptr, indices, data)
        an = rocsparse.csrsv_analysis(m, ptr, ind, lower=True)
        return an, ptr, ind, vals, _cupyx_csr(indptr, indices, data, m)

    def ours(an, ptr, ind, vals, vendor_a):
        from rocarray import rocsparse

        rocsparse.csrilu0(m, ptr, ind, vals, an)

    def vendor(an, ptr, ind, vals, vendor_a):
        from cupyx import cusparse
        from cupyx.scipy.sparse.linalg import spilu

        if not cusparse.check_availability("csrilu02"):
            raise RuntimeError("this CUDA's cuSPARSE has no csrilu02: no vendor ILU(0) to compare with")
        spilu(vendor_a, fill_factor=1)

    nnz = 5 * m - 4 * _GRID
    # values read and written, column indices and row pointers of row i and of the rows it reads
    nbytes = 2 * nnz * 8 + 2 * nnz * 4 + 3 * (m + 1) * 4
    harness.bench_case(BenchCase(name=f"{_LIB}.csrilu0_laplacian_1024_float64", library=_LIB, setup=setup,
                                 rocarray=ours, vendor=vendor, bytes_moved=nbytes))


def _register_benchmarks():
    _lower_case("csrsv_laplacian_1024_lower_float64", False)
    _lower_case("csrsv_laplacian_1024_ilu0_l_float64", True)
    _ilu_case()


_register_benchmarks()
