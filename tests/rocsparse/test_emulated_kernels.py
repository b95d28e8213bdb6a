"""The sparse kernels run on the CPU through the kernel emulator (tests/kernel_emu.py), through
their library functions, against SciPy on small random matrices (empty rows, duplicates, both
index widths). CPU tests: skipped where g++ is missing."""

import numpy as np
import pytest
import scipy.sparse as sp

from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)
from rocsparse.spgemm_data import from_coo, random_parts, scipy_of

from rocarray import rocsparse
from rocarray.rocsparse import _spgemm_kernels

SEED = 20261205


def _tol(dtype):
    return 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-11


def _device_parts(dev, parts):
    return tuple(dev.array(p) for p in parts)


def _matrix(rng, m, n, dtype, index, density=0.15):
    parts = random_parts(rng, m, n, density, dtype, index, duplicates=True, unsorted=True, empty_rows=0.2)
    return parts, scipy_of(parts, (m, n))


def _vector(rng, n, dtype):
    v = rng.standard_normal(n)
    if np.dtype(dtype).kind == "c":
        v = v + 1j * rng.standard_normal(n)
    return v.astype(dtype)


def _forced(m, n, indptr, indices, nnz, strategy, trans):
    """The analysis forced to ``strategy`` (for the 'T'/'C' products too)."""
    analysis = rocsparse.csrmv_analysis(m, n, indptr, nnz).forced_to(strategy)
    if trans != "N":
        forced_t = analysis.transpose(indices)[3]
        assert forced_t.forced and forced_t.strategy == strategy
    return analysis


SPMV_CASES = [("float64", "int32"), ("float32", "int64"), ("complex128", "int32")]


@pytest.mark.parametrize("dtype,index", SPMV_CASES)
@pytest.mark.parametrize("trans", ["N", "T"])
@pytest.mark.parametrize("strategy", ["scalar", "vector4", "vector32", "split"])
def test_csrmv_every_strategy(emulated_device, dtype, index, trans, strategy):
    rng = np.random.default_rng(SEED)
    m, n = 37, 29
    parts, a = _matrix(rng, m, n, dtype, index)
    indptr, indices, data = _device_parts(emulated_device, parts)
    rows, cols = (m, n) if trans == "N" else (n, m)
    x = _vector(rng, cols, dtype)
    y0 = _vector(rng, rows, dtype)
    analysis = _forced(m, n, indptr, indices, data.size, strategy, trans)
    y = emulated_device.array(y0)
    rocsparse.csrmv(2.0, m, n, indptr, indices, data, emulated_device.array(x), 0.5, y, trans=trans,
                    analysis=analysis)
    op = a if trans == "N" else a.T
    np.testing.assert_allclose(np.asarray(y), 2.0 * (op @ x) + 0.5 * y0, rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("dtype,index", [("float64", "int64"), ("complex64", "int32")])
@pytest.mark.parametrize("strategy", ["split", "vector32", None])
def test_csrmv_rows_across_blocks(emulated_device, dtype, index, strategy):
    # rows longer than the split kernel's chunk of 2048 elements cross block boundaries; one
    # spans a whole block (no row starts there); empty rows between them
    rng = np.random.default_rng(SEED)
    m, n = 12, 300
    lengths = np.array([5, 0, 2500, 3, 0, 4400, 7, 1, 0, 2100, 0, 9])
    rows = np.repeat(np.arange(m), lengths)
    parts = from_coo(rng, m, n, rows, rng.integers(0, n, rows.size), dtype, index, unsorted=True)
    a = scipy_of(parts, (m, n))
    indptr, indices, data = _device_parts(emulated_device, parts)
    analysis = rocsparse.csrmv_analysis(m, n, indptr, data.size)
    if strategy is not None:
        analysis = analysis.forced_to(strategy)
    x = _vector(rng, n, dtype)
    y = rocsparse.csrmv(1.0, m, n, indptr, indices, data, emulated_device.array(x), analysis=analysis)
    np.testing.assert_allclose(np.asarray(y), a @ x, rtol=_tol(dtype) * 10, atol=_tol(dtype) * 10)


@pytest.mark.parametrize("dtype,index", [("float64", "int32"), ("complex128", "int64")])
@pytest.mark.parametrize("trans", ["N", "T"])
@pytest.mark.parametrize("layout", ["C", "F"])
def test_csrmm(emulated_device, dtype, index, trans, layout):
    rng = np.random.default_rng(SEED)
    m, n, k = 23, 19, 5
    parts, a = _matrix(rng, m, n, dtype, index)
    rows, inner = (m, n) if trans == "N" else (n, m)
    b = np.asarray(_vector(rng, inner * k, dtype).reshape(inner, k), order=layout)
    c0 = _vector(rng, rows * k, dtype).reshape(rows, k)
    c = emulated_device.array(c0)
    rocsparse.csrmm(1.5, m, n, *_device_parts(emulated_device, parts), emulated_device.array(b), -1.0, c,
                    trans=trans)
    op = a if trans == "N" else a.T
    np.testing.assert_allclose(np.asarray(c), 1.5 * (op @ b) - c0, rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("dtype,index", [("float32", "int32"), ("complex128", "int64")])
def test_conversions(emulated_device, dtype, index):
    rng = np.random.default_rng(SEED)
    m, n = 31, 26
    parts, a = _matrix(rng, m, n, dtype, index)
    indptr, indices, data = _device_parts(emulated_device, parts)
    nnz = parts[2].size
    row = rocsparse.csr2coo(indptr, nnz)
    want_row = np.repeat(np.arange(m), np.diff(parts[0]))
    np.testing.assert_array_equal(np.asarray(row), want_row)
    np.testing.assert_array_equal(np.asarray(rocsparse.coo2csr(row, m)), parts[0])
    t_indptr, t_indices, t_data = rocsparse.csr2csc(m, n, indptr, indices, data)
    t = sp.csr_array((np.asarray(t_data), np.asarray(t_indices), np.asarray(t_indptr)), shape=(n, m))
    np.testing.assert_allclose(t.toarray(), a.T.toarray(), rtol=_tol(dtype), atol=_tol(dtype))
    out = emulated_device.cupy.zeros((m, n), dtype)
    rocsparse.csr2dense(m, n, indptr, indices, data, out)
    np.testing.assert_allclose(np.asarray(out), a.toarray(), rtol=_tol(dtype), atol=_tol(dtype))
    s_indices, s_data = rocsparse.csrsort(m, n, indptr, indices, data)
    d_indptr, d_indices, d_data = rocsparse.csr_sum_duplicates(m, n, indptr, s_indices, s_data)
    ref = a.copy()
    ref.sum_duplicates()
    np.testing.assert_array_equal(np.asarray(d_indptr), ref.indptr)
    np.testing.assert_array_equal(np.asarray(d_indices), ref.indices)
    np.testing.assert_allclose(np.asarray(d_data), ref.data, rtol=_tol(dtype), atol=_tol(dtype))


def _assert_canonical(parts, ref, dtype):
    indptr, indices, data = (np.asarray(p) for p in parts)
    ref = sp.csr_array(ref)
    ref.sum_duplicates()
    ref.eliminate_zeros()
    ref.sort_indices()
    np.testing.assert_array_equal(indptr, ref.indptr)
    np.testing.assert_array_equal(indices, ref.indices)
    np.testing.assert_allclose(data, ref.data, rtol=_tol(dtype), atol=_tol(dtype))


@pytest.mark.parametrize("dtype,index", [("float32", "int32"), ("float64", "int64"), ("complex128", "int32")])
def test_csrgemm(emulated_device, dtype, index):
    rng = np.random.default_rng(SEED)
    m, k, n = 27, 21, 24
    a_parts, a = _matrix(rng, m, k, dtype, index, 0.2)
    b_parts, b = _matrix(rng, k, n, dtype, index, 0.2)
    c = rocsparse.csrgemm(m, k, n, *_device_parts(emulated_device, a_parts), *_device_parts(emulated_device, b_parts))
    _assert_canonical(c, a @ b, dtype)


def test_csrgemm_every_bin_and_the_global_tables(emulated_device, monkeypatch):
    # 20 KB of shared memory: count tables up to 4096 slots, fill tables up to 1024; rows of C
    # needing 3, 60, 200 and 4500 slots go to the 8-lane, 32-lane, block and global-table kernels
    monkeypatch.setattr(_spgemm_kernels, "shared_limit", lambda like: 20 * 1024)
    rng = np.random.default_rng(SEED)
    k, n = 60, 6000
    b_len = np.full(k, 3)
    b_len[:3] = [4500, 1500, 200]
    b_cols = np.concatenate([rng.choice(n, size=int(c), replace=False) for c in b_len])
    b_parts = from_coo(rng, k, n, np.repeat(np.arange(k), b_len), b_cols, "float64", "int32", unsorted=True)
    explicit = [[3], list(range(3, 23)), [2], [0], [1, 5, 9]]
    rows = np.concatenate([np.full(len(c), i) for i, c in enumerate(explicit)])
    a_parts = from_coo(rng, len(explicit), k, rows, np.concatenate(explicit), "float64", "int32")
    m = len(explicit)
    c = rocsparse.csrgemm(m, k, n, *_device_parts(emulated_device, a_parts), *_device_parts(emulated_device, b_parts))
    _assert_canonical(c, scipy_of(a_parts, (m, k)) @ scipy_of(b_parts, (k, n)), "float64")
    fills = {name for name in emulated_device.names() if name.startswith("ra_rocsparse_spgemm_fill")}
    assert len(fills) == len(_spgemm_kernels.VARIANTS), fills


@pytest.mark.parametrize("dtype,index", [("float64", "int32"), ("complex128", "int64")])
def test_csrgeam(emulated_device, dtype, index):
    rng = np.random.default_rng(SEED)
    m, n = 25, 22
    a_parts, a = _matrix(rng, m, n, dtype, index)
    b_parts, b = _matrix(rng, m, n, dtype, index)
    c = rocsparse.csrgeam(m, n, 2.0, *_device_parts(emulated_device, a_parts), -0.5,
                          *_device_parts(emulated_device, b_parts))
    _assert_canonical(c, 2.0 * a - 0.5 * b, dtype)


def _triangular(rng, m, dtype, index, lower):
    """A canonical well-conditioned triangular matrix with some empty off-diagonal rows."""
    a = sp.random_array((m, m), density=0.15, rng=rng, format="csr")
    a = sp.tril(a, -1) if lower else sp.triu(a, 1)
    a = sp.csr_array(a.astype(dtype) + sp.diags_array(np.full(m, 4.0), dtype=dtype))
    if np.dtype(dtype).kind == "c":
        a = a + 0.5j * sp.csr_array((a != 0).astype(dtype))
    a.sum_duplicates()
    a.sort_indices()
    return (a.indptr.astype(index), a.indices.astype(index), a.data.astype(dtype)), a


@pytest.mark.parametrize("dtype,index", [("float64", "int32"), ("float32", "int64"), ("complex128", "int32")])
@pytest.mark.parametrize("lower,trans", [(True, "N"), (False, "N"), (True, "T")])
def test_csrsv(emulated_device, dtype, index, lower, trans):
    rng = np.random.default_rng(SEED)
    m = 33
    parts, a = _triangular(rng, m, dtype, index, lower)
    indptr, indices, data = _device_parts(emulated_device, parts)
    analysis = rocsparse.csrsv_analysis(m, indptr, indices, lower=lower, trans=trans)
    b = _vector(rng, m, dtype)
    x = rocsparse.csrsv_solve(analysis, indptr, indices, data, emulated_device.array(b), alpha=2.0)
    op = a if trans == "N" else a.T
    np.testing.assert_allclose(op @ np.asarray(x), 2.0 * b, rtol=_tol(dtype) * 10, atol=_tol(dtype) * 10)


@pytest.mark.parametrize("dtype,index", [("float64", "int32"), ("complex128", "int64")])
def test_csrilu0_and_csric0(emulated_device, dtype, index):
    rng = np.random.default_rng(SEED)
    m = 30
    a = sp.random_array((m, m), density=0.12, rng=rng, format="csr")
    a = sp.csr_array(a + a.T + sp.diags_array(np.full(m, 8.0))).astype(dtype)
    a.sum_duplicates()
    a.sort_indices()
    parts = (a.indptr.astype(index), a.indices.astype(index), a.data)
    lu, pivot = rocsparse.csrilu0(m, *_device_parts(emulated_device, parts))
    assert pivot == -1
    f = sp.csr_array((np.asarray(lu), a.indices, a.indptr), shape=(m, m)).toarray()
    lower, upper = np.tril(f, -1) + np.eye(m), np.triu(f)
    mask = a.toarray() != 0
    np.testing.assert_allclose((lower @ upper)[mask], a.toarray()[mask], rtol=1e-10, atol=1e-10)
    l_data, pivot = rocsparse.csric0(m, *_device_parts(emulated_device, parts))
    assert pivot == -1
    low = np.tril(sp.csr_array((np.asarray(l_data), a.indices, a.indptr), shape=(m, m)).toarray())
    lmask = np.tril(mask)
    np.testing.assert_allclose((low @ low.conj().T)[lmask], a.toarray()[lmask], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype,index", [("complex128", "int64"), ("float32", "int32")])
def test_csrsv_many_rhs_unit_diagonal_conjugate(emulated_device, dtype, index):
    rng = np.random.default_rng(SEED)
    m, k = 40, 3
    parts, a = _triangular(rng, m, dtype, index, lower=False)
    indptr, indices, data = _device_parts(emulated_device, parts)
    analysis = rocsparse.csrsv_analysis(m, indptr, indices, lower=False, trans="C")
    b = _vector(rng, m * k, dtype).reshape(m, k)
    x = rocsparse.csrsv_solve(analysis, indptr, indices, data, emulated_device.array(b), unit_diagonal=True)
    unit = sp.triu(a, 1) + sp.eye_array(m, dtype=dtype)
    np.testing.assert_allclose(unit.conj().T @ np.asarray(x), b, rtol=_tol(dtype) * 10, atol=_tol(dtype) * 10)


def test_zero_pivots_are_found(emulated_device):
    rng = np.random.default_rng(SEED)
    m = 20
    parts, _ = _triangular(rng, m, "float64", "int32", lower=True)
    data = parts[2].copy()
    diag = parts[0][1:] - 1  # the diagonal is each row's last entry (lower, sorted)
    data[diag[[7, 12]]] = 0.0
    indptr, indices = _device_parts(emulated_device, parts[:2])
    analysis = rocsparse.csrsv_analysis(m, indptr, indices, lower=True)
    assert analysis.zero_pivot(emulated_device.array(data)) == 7
    _, pivot = rocsparse.csrilu0(m, indptr, indices, emulated_device.array(data))
    assert pivot == 7


def test_csrmm_many_columns(emulated_device):
    rng = np.random.default_rng(SEED)
    m, n, k = 21, 17, 70
    parts, a = _matrix(rng, m, n, "float64", "int32")
    b = _vector(rng, n * k, "float64").reshape(n, k)
    c = rocsparse.csrmm(1.0, m, n, *_device_parts(emulated_device, parts), emulated_device.array(b))
    np.testing.assert_allclose(np.asarray(c), a @ b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype,index", [("float32", "int64"), ("complex128", "int32")])
def test_csr_multiply_and_sddmm(emulated_device, dtype, index):
    rng = np.random.default_rng(SEED)
    m, n, k = 19, 23, 6
    a_parts, a = _matrix(rng, m, n, dtype, index, 0.3)
    b_parts, b = _matrix(rng, m, n, dtype, index, 0.3)
    c = rocsparse.csr_multiply(m, n, *_device_parts(emulated_device, a_parts), *_device_parts(emulated_device, b_parts))
    _assert_canonical(c, a.multiply(b), dtype)
    dense_a = _vector(rng, m * k, dtype).reshape(m, k)
    dense_b = np.asarray(_vector(rng, k * n, dtype).reshape(k, n), order="F")
    indptr, indices, data = _device_parts(emulated_device, a_parts)
    out = rocsparse.sddmm(2.0, emulated_device.array(dense_a), emulated_device.array(dense_b), 0.5, indptr, indices,
                          data)
    rows = np.repeat(np.arange(m), np.diff(a_parts[0]))
    want = 2.0 * (dense_a @ dense_b)[rows, a_parts[1]] + 0.5 * a_parts[2]
    np.testing.assert_allclose(np.asarray(out), want, rtol=_tol(dtype), atol=_tol(dtype))


# ---- AMD's 64-lane wavefronts (the RA_HIP target): lane groups and reductions span 64 lanes ----

@pytest.mark.parametrize("strategy", ["vector16", "vector64", "split"])
def test_wave64_csrmv(emulated_wave64_device, strategy):
    dev = emulated_wave64_device
    rng = np.random.default_rng(SEED)
    m, n = 12, 300
    lengths = np.array([5, 0, 2500, 3, 0, 70, 7, 1, 0, 2100, 0, 9])
    rows = np.repeat(np.arange(m), lengths)
    parts = from_coo(rng, m, n, rows, rng.integers(0, n, rows.size), "complex128", "int32", unsorted=True)
    indptr, indices, data = _device_parts(dev, parts)
    analysis = _forced(m, n, indptr, indices, data.size, strategy, "C")
    x = _vector(rng, m, "complex128")
    y = rocsparse.csrmv(1.0, m, n, indptr, indices, data, dev.array(x), trans="C", analysis=analysis)
    np.testing.assert_allclose(np.asarray(y), scipy_of(parts, (m, n)).conj().T @ x, rtol=1e-10, atol=1e-10)


def test_wave64_csrmm_csrgemm_sddmm(emulated_wave64_device):
    dev = emulated_wave64_device
    rng = np.random.default_rng(SEED)
    m, n, k = 23, 19, 40
    a_parts, a = _matrix(rng, m, n, "float64", "int64", 0.3)
    b_parts, b = _matrix(rng, n, m, "float64", "int64", 0.3)
    dense = np.asarray(_vector(rng, n * k, "float64").reshape(n, k), order="F")
    c = rocsparse.csrmm(1.0, m, n, *_device_parts(dev, a_parts), dev.array(dense))
    np.testing.assert_allclose(np.asarray(c), a @ dense, rtol=1e-12, atol=1e-12)
    _assert_canonical(rocsparse.csrgemm(m, n, m, *_device_parts(dev, a_parts), *_device_parts(dev, b_parts)), a @ b,
                      "float64")
    left = _vector(rng, m * k, "float64").reshape(m, k)
    indptr, indices, data = _device_parts(dev, a_parts)
    out = rocsparse.sddmm(1.0, dev.array(left), dev.array(dense.T), 0.0, indptr, indices, data)
    rows = np.repeat(np.arange(m), np.diff(a_parts[0]))
    np.testing.assert_allclose(np.asarray(out), (left @ dense.T)[rows, a_parts[1]], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_wave64_csrsv_and_ilu0(emulated_wave64_device, dtype):
    dev = emulated_wave64_device
    rng = np.random.default_rng(SEED)
    m = 70
    parts, a = _triangular(rng, m, dtype, "int32", lower=True)
    indptr, indices, data = _device_parts(dev, parts)
    analysis = rocsparse.csrsv_analysis(m, indptr, indices, lower=True)
    b = _vector(rng, m, dtype)
    x = rocsparse.csrsv_solve(analysis, indptr, indices, data, dev.array(b))
    np.testing.assert_allclose(a @ np.asarray(x), b, rtol=_tol(dtype) * 10, atol=_tol(dtype) * 10)
    lu, pivot = rocsparse.csrilu0(m, indptr, indices, data, analysis)
    assert pivot == -1
    f = sp.csr_array((np.asarray(lu), parts[1], parts[0]), shape=(m, m)).toarray()
    product = (np.tril(f, -1) + np.eye(m)) @ np.triu(f)
    np.testing.assert_allclose(product[a.toarray() != 0], a.data, rtol=_tol(dtype), atol=_tol(dtype))
