"""rocarray.rocsparse conversions against SciPy.

Every test runs twice through the ``mode`` fixture: on the GPU (``gpu`` marker: the real kernels
and prim) and on the CPU with the NumPy stand-ins of ``sparse_host`` (the orchestration of
``_convert.py``: which arrays are sorted, gathered and compacted, index dtypes, empty cases).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from rocarray import rocsparse
from rocarray._core import compile as _compile
from rocarray.rocsparse import _convert, _convert_kernels
from sparse_data import (CASES, DENSE_CASES, FLOAT_DTYPES, INDEX_DTYPES, MODES, SHAPES, VALUE_DTYPES, csr_parts,
                         setup_mode, triplets)


@pytest.fixture(params=MODES)
def mode(request, monkeypatch):
    return setup_mode(request.param, monkeypatch)


def _ref(row, col, data, m, n):
    return sp.csr_array((data, (row, col)), shape=(m, n))


def _exact(actual, expected):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    np.testing.assert_array_equal(actual, expected)


def _close(actual, expected):
    actual = np.asarray(actual)
    tol = 1e-5 if actual.dtype in (np.float32, np.complex64) else 1e-12
    if actual.dtype.kind in "fc":
        np.testing.assert_allclose(actual, expected, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("idx", INDEX_DTYPES)
@pytest.mark.parametrize("m, n, density, kind", SHAPES)
def test_csr2coo_and_coo2csr_round_trip(mode, rng, m, n, density, kind, idx):
    dev, host = mode
    row, col, data = triplets(rng, m, n, density, kind)
    indptr, _, _ = csr_parts(row, col, data, m, idx)
    r = rocsparse.csr2coo(dev(indptr), row.size)
    _exact(host(r), row.astype(idx))
    _exact(host(rocsparse.coo2csr(r, m)), indptr)


@pytest.mark.parametrize("idx", INDEX_DTYPES)
@pytest.mark.parametrize("m, n, density, kind", SHAPES)
def test_coosort_is_stable_row_major(mode, rng, m, n, density, kind, idx):
    dev, host = mode
    row, col, data = triplets(rng, m, n, density, kind, duplicates=True, unsorted=True)
    data = np.arange(row.size, dtype=np.float64)           # tells duplicates apart
    r, c, d = rocsparse.coosort(m, n, dev(row.astype(idx)), dev(col.astype(idx)), dev(data))
    order = np.lexsort((col, row))
    _exact(host(r), row[order].astype(idx))
    _exact(host(c), col[order].astype(idx))
    _exact(host(d), data[order])


@pytest.mark.parametrize("idx", INDEX_DTYPES)
@pytest.mark.parametrize("m, n, density, kind", SHAPES)
def test_csrsort_sorts_each_row(mode, rng, m, n, density, kind, idx):
    dev, host = mode
    row, col, _ = triplets(rng, m, n, density, kind, duplicates=True, unsorted=True)
    data = np.arange(row.size, dtype=np.complex128)
    indptr, indices, data = csr_parts(row, col, data, m, idx)
    ind, dat = rocsparse.csrsort(m, n, dev(indptr), dev(indices), dev(data))
    order = np.lexsort((indices, np.repeat(np.arange(m), np.diff(indptr))))
    _exact(host(ind), indices[order])
    _exact(host(dat), data[order])


@pytest.mark.parametrize("idx", INDEX_DTYPES)
@pytest.mark.parametrize("m, n, density, kind, dtype", CASES)
def test_csr2csc_matches_scipy_tocsc(mode, rng, m, n, density, kind, idx, dtype):
    dev, host = mode
    row, col, data = triplets(rng, m, n, density, kind, dtype=dtype, duplicates=True, unsorted=True)
    indptr, indices, data = csr_parts(row, col, data, m, idx)
    ref = sp.csr_array((data, indices, indptr), shape=(m, n), copy=True).tocsc()   # keeps duplicates, stable by row
    ptr, ind, dat = rocsparse.csr2csc(m, n, dev(indptr), dev(indices), dev(data))
    _exact(host(ptr), ref.indptr.astype(idx))
    _exact(host(ind), ref.indices.astype(idx))
    _exact(host(dat), ref.data)


@pytest.mark.parametrize("idx", INDEX_DTYPES)
@pytest.mark.parametrize("m, n, density, kind, dtype", CASES)
def test_csr_sum_duplicates_matches_scipy(mode, rng, m, n, density, kind, idx, dtype):
    dev, host = mode
    row, col, data = triplets(rng, m, n, density, kind, dtype=dtype, duplicates=True)
    indptr, indices, data = csr_parts(row, col, data, m, idx)
    ref = sp.csr_array((data, indices, indptr), shape=(m, n), copy=True)
    ref.sum_duplicates()
    ptr, ind, dat = rocsparse.csr_sum_duplicates(m, n, dev(indptr), dev(indices), dev(data))
    _exact(host(ptr), ref.indptr.astype(idx))
    _exact(host(ind), ref.indices.astype(idx))
    assert host(dat).dtype == np.dtype(dtype)
    _close(host(dat), ref.data)


@pytest.mark.parametrize("idx", INDEX_DTYPES)
@pytest.mark.parametrize("m, n, density, kind, dtype", CASES)
def test_csr_eliminate_zeros_matches_scipy(mode, rng, m, n, density, kind, idx, dtype):
    dev, host = mode
    row, col, data = triplets(rng, m, n, density, kind, dtype=dtype, unsorted=True)
    data[rng.random(data.size) < 0.4] = 0
    indptr, indices, data = csr_parts(row, col, data, m, idx)
    ref = sp.csr_array((data, indices, indptr), shape=(m, n), copy=True)
    ref.eliminate_zeros()
    ptr, ind, dat = rocsparse.csr_eliminate_zeros(m, n, dev(indptr), dev(indices), dev(data))
    _exact(host(ptr), ref.indptr.astype(idx))
    _exact(host(ind), ref.indices.astype(idx))
    _exact(host(dat), ref.data)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("idx", INDEX_DTYPES)
@pytest.mark.parametrize("m, n, density, kind, dtype", DENSE_CASES)
def test_csr2dense_adds_duplicates(mode, rng, m, n, density, kind, idx, dtype, order):
    dev, host = mode
    row, col, data = triplets(rng, m, n, density, kind, dtype=dtype, duplicates=True, unsorted=True)
    indptr, indices, data = csr_parts(row, col, data, m, idx)
    out = dev(np.zeros((m, n), dtype, order=order))
    res = rocsparse.csr2dense(m, n, dev(indptr), dev(indices), dev(data), out)
    assert res is out
    _close(host(out), sp.csr_array((data, indices, indptr), shape=(m, n), copy=True).toarray())


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("m, n, density, kind, dtype", DENSE_CASES)
def test_dense2csr_matches_scipy(mode, rng, m, n, density, kind, order, dtype):
    dev, host = mode
    row, col, data = triplets(rng, m, n, density, kind, dtype=dtype)
    a = np.asarray(_ref(row, col, data, m, n).toarray(), order=order)
    ref = sp.csr_array(a)
    ptr, ind, dat = rocsparse.dense2csr(dev(a))
    _exact(host(ptr), ref.indptr.astype(np.int32))
    _exact(host(ind), ref.indices.astype(np.int32))
    _exact(host(dat), ref.data)


def test_dense2csr_drops_negative_zero_keeps_nan(mode):
    dev, host = mode
    a = np.array([[0.0, -0.0, np.nan], [1.0, 0.0, 0.0]])
    ptr, ind, dat = rocsparse.dense2csr(dev(a))
    _exact(host(ptr), np.array([0, 1, 2], np.int32))
    _exact(host(ind), np.array([2, 0], np.int32))
    np.testing.assert_array_equal(host(dat), [np.nan, 1.0])


@pytest.mark.parametrize("idx", INDEX_DTYPES)
def test_check_matrix_csr_finds_each_problem(mode, idx):
    dev, _ = mode

    def check(indptr, indices, n=4):
        return rocsparse.check_matrix_csr(len(indptr) - 1, n, dev(np.array(indptr, idx)), dev(np.array(indices, idx)))

    assert check([0, 2, 3], [0, 3, 1]) == frozenset()
    assert check([0, 0, 0], []) == frozenset()
    assert check([0, 2, 3], [3, 1, 1]) == {"unsorted"}
    assert check([0, 2, 3], [1, 1, 0]) == {"duplicates"}
    assert check([0, 2, 3], [1, 4, 0]) == {"too_large"}
    assert check([0, 2, 3], [-1, 2, 0]) == {"negative"}
    assert "indptr" in check([0, 3, 2, 3], [0, 1, 2])
    # the last element of a row and the first of the next are not compared
    assert check([0, 2, 4], [0, 3, 0, 3]) == frozenset()


@pytest.mark.parametrize("idx", INDEX_DTYPES)
def test_check_matrix_coo_finds_each_problem(mode, idx):
    dev, _ = mode

    def check(row, col, m=3, n=4):
        return rocsparse.check_matrix_coo(m, n, dev(np.array(row, idx)), dev(np.array(col, idx)))

    assert check([0, 0, 2], [1, 3, 0]) == frozenset()
    assert check([], []) == frozenset()
    assert check([1, 0], [0, 3]) == {"unsorted"}
    assert check([0, 0], [2, 1]) == {"unsorted"}
    assert check([0, 0], [2, 2]) == {"duplicates"}
    assert check([0, 3], [0, 0]) == {"row_too_large"}
    assert check([-1, 0], [0, 0]) == {"row_negative"}
    assert check([0, 1], [4, 0]) == {"too_large"}
    assert check([0, 1], [0, -2]) == {"negative"}


@pytest.mark.parametrize("idx", INDEX_DTYPES)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_conversions_chain_back_to_scipy(mode, rng, idx, dtype):
    dev, host = mode
    m, n = 700, 900
    row, col, data = triplets(rng, m, n, 5e-3, dtype=dtype, duplicates=True, unsorted=True)
    r, c, d = rocsparse.coosort(m, n, dev(row.astype(idx)), dev(col.astype(idx)), dev(data))
    ptr = rocsparse.coo2csr(r, m)
    ptr, ind, dat = rocsparse.csr_sum_duplicates(m, n, ptr, c, d)
    tptr, tind, tdat = rocsparse.csr2csc(m, n, ptr, ind, dat)
    out = dev(np.zeros((n, m), dtype))
    rocsparse.csr2dense(n, m, tptr, tind, tdat, out)
    _close(host(out), _ref(row, col, data, m, n).toarray().T)


# ---- GPU only: the merge-path kernels on large adversarial structures -------------------------------

def _gpu_structures(rng):
    """name -> row lengths: many tiles and blocks of the merge-path kernels."""
    sparse_rows = np.zeros(1_000_000, np.int64)
    sparse_rows[rng.choice(sparse_rows.size, 10, replace=False)] = 1
    return {
        "random ~10 per row": rng.integers(0, 21, 300_000),
        "power law": np.minimum(rng.pareto(1.2, 200_000).astype(np.int64), 50_000),
        "1e6 rows, 10 elements": sparse_rows,
        "one row": np.array([3_000_001]),
        "middle row": np.array([0, 5, 2_000_000, 0, 3]),
    }


@pytest.mark.gpu
@pytest.mark.parametrize("idx", INDEX_DTYPES)
def test_gpu_csr2coo_and_check_on_large_structures(rng, idx):
    import cupy

    for name, lengths in _gpu_structures(rng).items():
        indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(idx)
        m, nnz = lengths.size, int(indptr[-1])
        d_indptr = cupy.asarray(indptr)
        rows = np.repeat(np.arange(m), lengths)
        _exact(cupy.asnumpy(rocsparse.csr2coo(d_indptr, nnz)), rows.astype(idx))
        # strictly increasing columns in each row: position in row times a stride, plus jitter
        position = np.arange(nnz) - np.repeat(indptr[:-1].astype(np.int64), lengths)
        stride = 4
        n = stride * int(lengths.max())
        cols = (position * stride + rng.integers(0, stride, nnz)).astype(idx)
        assert rocsparse.check_matrix_csr(m, n, d_indptr, cupy.asarray(cols)) == frozenset(), name
        inner = np.flatnonzero(position > 0)  # elements that do not start their row
        for k in (rng.choice(inner, 2) if inner.size else ()):
            bad = cols.copy()
            bad[k] = bad[k - 1]
            assert rocsparse.check_matrix_csr(m, n, d_indptr, cupy.asarray(bad)) == {"duplicates"}, name
            if bad[k - 1] > 0:
                bad[k] = bad[k - 1] - 1
                assert rocsparse.check_matrix_csr(m, n, d_indptr, cupy.asarray(bad)) == {"unsorted"}, name
        bad = cols.copy()
        bad[-1] = -1
        assert "negative" in rocsparse.check_matrix_csr(m, n, d_indptr, cupy.asarray(bad)), name
        if m > 2:
            p = indptr.copy()
            p[m // 2] = p[m // 2 + 1] + 1 if p[m // 2 + 1] < nnz else nnz + 1
            assert "indptr" in rocsparse.check_matrix_csr(m, n, cupy.asarray(p), cupy.asarray(cols)), name


@pytest.mark.gpu
def test_gpu_csr2coo_past_two_to_the_31_elements():
    # 64-bit element offsets: a row ending past 2**31 and one after it (17 GB of int64 rows)
    import cupy

    lengths = [5, 2**31 - 3, 0, 2**20 - 2]
    nnz = sum(lengths)
    if cupy.cuda.Device().mem_info[0] < 24 << 30:
        pytest.skip("needs 24 GB of free device memory")
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    row = rocsparse.csr2coo(cupy.asarray(indptr), nnz)
    assert row.dtype == np.int64 and row.size == nnz
    for r in range(len(lengths)):
        part = row[int(indptr[r]):int(indptr[r + 1])]
        assert int(cupy.count_nonzero(part != r)) == 0, r
    del row


@pytest.mark.gpu
@pytest.mark.parametrize("idx, dtype", [(np.int32, np.float32), (np.int32, np.int32), (np.int32, np.complex64),
                                        (np.int64, np.float32), (np.int64, np.float64)])
def test_gpu_csr2csc_on_large_structures(rng, idx, dtype):
    import cupy

    for name, lengths in _gpu_structures(rng).items():
        indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(idx)
        m, nnz = lengths.size, int(indptr[-1])
        for n in (1, 1_000_003):
            cols = rng.integers(0, n, nnz).astype(idx)
            data = rng.standard_normal(nnz) * 100
            data = (data + 1j * rng.standard_normal(nnz) if np.dtype(dtype).kind == "c" else data).astype(dtype)
            got = rocsparse.csr2csc(m, n, cupy.asarray(indptr), cupy.asarray(cols), cupy.asarray(data))
            order = np.argsort(cols, kind="stable")
            want_ptr = np.concatenate([[0], np.cumsum(np.bincount(cols, minlength=n))]).astype(idx)
            want_row = np.repeat(np.arange(m), lengths)[order].astype(idx)
            _exact(cupy.asnumpy(got[0]), want_ptr)
            _exact(cupy.asnumpy(got[1]), want_row)
            _exact(cupy.asnumpy(got[2]), data[order])


# ---- CPU only: rules and registration --------------------------------------------------------------

def test_every_launched_kernel_is_registered():
    names = set(_compile.registered(_convert_kernels.SOURCE))
    for idx in INDEX_DTYPES:
        for op in ("csr2coo", "flag_heads", "check_csr", "check_coo"):
            assert _convert_kernels.kernel_name(op, idx) in names
        for dtype in VALUE_DTYPES:
            assert _convert_kernels.kernel_name("csr2dense", dtype, idx) in names
    for dtype in VALUE_DTYPES:
        assert _convert_kernels.kernel_name("sum_runs", dtype) in names
    assert _convert_kernels.kernel_name("csr2coo_pairs", "int32") in names
    assert _convert_kernels.kernel_name("csr2dense", "complex64", "int64") == "ra_rocsparse_csr2dense<ra_c64, ra_i64>"


def test_index_dtype_follows_scipy():
    big = np.iinfo(np.int32).max
    assert _convert._index_dtype(3, 4, 5) == np.int32
    assert _convert._index_dtype(big, 1) == np.int32
    assert _convert._index_dtype(big + 1, 1) == np.int64
    assert _convert._index_dtype() == np.int32


@pytest.mark.parametrize("m, n", [(3, 5), (1, (1 << 32) - 1), (1 << 16, 1 << 16), (1 << 17, 1 << 17),
                                  (1 << 40, 1 << 40)])
def test_coo_order_for_every_key_width(monkeypatch, rng, m, n):
    # uint32 combined key below 2**32, int64 below 2**63, two passes above
    setup_mode("host", monkeypatch)
    row = rng.integers(0, min(m, 5), 200)
    col = rng.integers(0, min(n, 5), 200) * (n // min(n, 5))
    perm = _convert._coo_order(m, n, row, col)
    np.testing.assert_array_equal(perm, np.lexsort((col, row)))


def test_self_check_passes_on_the_stand_ins(monkeypatch, rng):
    setup_mode("host", monkeypatch)
    from rocarray._checks import rocsparse_convert

    rocsparse_convert.check_convert(rng)
