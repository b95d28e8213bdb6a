"""rocsparse.csrgeam, csr_multiply and sddmm against SciPy/NumPy.

CPU tests run the drivers (dtype and index rules, canonicalization, the count/scan/fill passes)
on NumPy stand-ins of the kernel interface (``spgemm_host``; its merge insists on canonical rows);
launch tests check the kernels' arguments on the recording fake device. GPU tests compare the
kernels with SciPy.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import spgemm_host
from launchfake import fake_device  # noqa: F401 (fixture)
from spgemm_data import INDEX_DTYPES, VALUE_DTYPES, assert_csr_equal, from_coo, random_parts, scipy_of, values

import rocarray.rocsparse as rs
from rocarray.rocsparse import _spgemm_kernels as _k

CASES = {
    "random": dict(m=23, n=19, density=0.2),
    "empty_rows": dict(m=20, n=18, density=0.3, empty_rows=0.4),
    "one_row": dict(m=1, n=9, density=0.5),
    "one_column": dict(m=14, n=1, density=0.5),
    "duplicates_unsorted": dict(m=16, n=15, density=0.3, duplicates=True, unsorted=True),
    "zero_nnz": dict(m=7, n=6, density=0.0),
    "no_rows": dict(m=0, n=6, density=0.3),
}


def _pair(rng, case, dtype, index):
    c = dict(CASES[case])
    m, n, density = c.pop("m"), c.pop("n"), c.pop("density")
    return m, n, random_parts(rng, m, n, density, dtype, index, **c), random_parts(rng, m, n, density, dtype, index,
                                                                                  **c)


def _geam_ref(alpha, a, beta, b, shape):
    return alpha * scipy_of(a, shape) + beta * scipy_of(b, shape)


def _multiply_ref(a, b, shape):
    return scipy_of(a, shape).multiply(scipy_of(b, shape))


def _cancelling(rng, dtype, index):
    """A and B = -A on half of A's entries plus entries of their own, and a stored zero."""
    m, n = 6, 7
    a = from_coo(rng, m, n, [0, 0, 1, 2, 3, 5], [1, 4, 2, 6, 0, 3], dtype, index, data=[1, 2, 3, 4, 0, 6])
    b = from_coo(rng, m, n, [0, 1, 2, 4], [1, 2, 5, 0], dtype, index, data=[-1, -3, 7, 8])
    return m, n, a, b


# --------------------------------------------------------------------------------------------
# CPU: the drivers on NumPy stand-ins
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("index", INDEX_DTYPES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_host_csrgeam_matches_scipy(monkeypatch, rng, case, index, dtype):
    spgemm_host.install(monkeypatch)
    m, n, a, b = _pair(rng, case, dtype, index)
    out = rs.csrgeam(m, n, 2.0, *a, -0.5, *b)
    assert out[1].dtype == np.dtype(index) and out[2].dtype == np.dtype(dtype)
    assert_csr_equal(out, _geam_ref(2.0, a, -0.5, b, (m, n)), dtype, 4)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_host_csr_multiply_matches_scipy(monkeypatch, rng, case, dtype):
    spgemm_host.install(monkeypatch)
    m, n, a, b = _pair(rng, case, dtype, "int32")
    assert_csr_equal(rs.csr_multiply(m, n, *a, *b), _multiply_ref(a, b, (m, n)), dtype, 4)


@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_host_cancellation_and_stored_zeros_are_dropped_like_scipy(monkeypatch, rng, dtype):
    spgemm_host.install(monkeypatch)
    m, n, a, b = _cancelling(rng, dtype, "int32")
    ref = _geam_ref(1, a, 1, b, (m, n))
    assert ref.nnz == 5  # 10 stored entries, 2 cancelled pairs, 1 stored zero
    assert_csr_equal(rs.csrgeam(m, n, 1, *a, 1, *b), ref, dtype)
    assert rs.csrgeam(m, n, 1, *a, -1, *a)[1].size == 0


def test_host_multiply_keeps_nan_from_inf_times_a_missing_zero(monkeypatch, rng):
    spgemm_host.install(monkeypatch)
    a = from_coo(rng, 2, 3, [0, 1], [0, 2], "float64", "int32", data=[np.inf, 2.0])
    b = from_coo(rng, 2, 3, [1, 1], [1, 2], "float64", "int32", data=[5.0, 3.0])
    ref = _multiply_ref(a, b, (2, 3))
    out = rs.csr_multiply(2, 3, *a, *b)
    assert np.isnan(ref.toarray()[0, 0])
    assert_csr_equal(out, ref, "float64")


def test_host_canonical_inputs_skip_canonicalization(monkeypatch, rng):
    spgemm_host.install(monkeypatch)
    calls = []
    real = _k.canonicalize
    monkeypatch.setattr(_k, "canonicalize", lambda *args: calls.append(1) or real(*args))
    m, n, a, b = _pair(rng, "random", "float64", "int32")
    rs.csrgeam(m, n, 1, *a, 1, *b, canonical=True)
    assert calls == []
    rs.csrgeam(m, n, 1, *a, 1, *b)
    assert calls == [1, 1]
    # a non-canonical input given as canonical is a caller error the merge would see
    m, n, a, b = _pair(rng, "duplicates_unsorted", "float64", "int32")
    with pytest.raises(AssertionError):
        rs.csrgeam(m, n, 1, *a, 1, *b, canonical=True)


def test_host_geam_dtypes_follow_numpy_promotion(monkeypatch, rng):
    spgemm_host.install(monkeypatch)
    m, n, a, _ = _pair(rng, "random", "float32", "int32")
    _, _, b, _ = _pair(rng, "random", "float64", "int64")
    out = rs.csrgeam(m, n, 1, *a, 1, *b)
    assert out[1].dtype == np.int64 and out[2].dtype == np.float64
    out = rs.csrgeam(m, n, 1j, *a, 1, *a)
    assert out[2].dtype == np.complex64
    assert_csr_equal(out, _geam_ref(1j, a, 1, a, (m, n)), "complex64")


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_host_sddmm_matches_dense(monkeypatch, rng, order, dtype):
    spgemm_host.install(monkeypatch)
    m, k, n = 9, 5, 7
    pattern = random_parts(rng, m, n, 0.4, dtype, "int32", duplicates=True, unsorted=True)
    A = np.asarray(values(rng, m * k, dtype).reshape(m, k), order=order)
    B = np.asarray(values(rng, k * n, dtype).reshape(k, n), order=order)
    rows = np.repeat(np.arange(m), np.diff(pattern[0]))
    out = rs.sddmm(1.5, A, B, -2.0, *pattern)
    ref = 1.5 * (A.astype(np.complex128) @ B)[rows, pattern[1]] - 2.0 * pattern[2]
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    poisoned = np.full_like(pattern[2], np.nan)
    assert not np.isnan(rs.sddmm(1.0, A, B, 0.0, pattern[0], pattern[1], poisoned)).any()


# --------------------------------------------------------------------------------------------
# CPU: launches on the recording fake device
# --------------------------------------------------------------------------------------------

def test_geam_launch_passes_scalars_in_the_value_type(fake_device):
    ip = fake_device.array((301,), "int64")
    ix = fake_device.array((40,), "int64")
    v = fake_device.array((40,), "complex64")
    counts = fake_device.array((301,), "int64")
    _k.merge("geam", 300, 2 + 1j, -1, ip, ix, v, ip, ix, v, counts, None, None, None)
    (launch,) = fake_device.launches
    assert launch.name == "ra_rocsparse_geam<ra_c64, ra_i64>" and launch.grid == (2, 1, 1)
    assert launch.args[1] == np.complex64(2 + 1j) and launch.args[1].dtype == np.complex64
    assert launch.args[5] == np.complex64(-1)
    assert [int(x) for x in launch.args[-3:]] == [0, 0, 0]


def test_sddmm_launch_strides_and_lanes(fake_device):
    A = fake_device.array((64, 3), "float64")
    B = fake_device.array((5, 3), "float64").T  # F-order (3, 5)
    ip = fake_device.array((65,), "int32")
    ix = fake_device.array((100,), "int32")
    data = fake_device.array((100,), "float64")
    out = fake_device.array((100,), "float64")
    _k.sddmm(1.0, A, B, 0.0, ip, ix, data, False, out)
    (launch,) = fake_device.launches
    assert launch.name == "ra_rocsparse_sddmm<double, ra_i32, 8>"
    assert [int(launch.args[i]) for i in (0, 1, 2, 5, 6, 8, 9)] == [64, 100, 3, 3, 1, 1, 3]
    assert launch.grid == (-(-100 // (256 // 8)), 1, 1)
    assert int(launch.args[13]) == 0 and int(launch.args[14]) == 0


# --------------------------------------------------------------------------------------------
# GPU: the kernels against SciPy
# --------------------------------------------------------------------------------------------

def _dev(parts):
    import cupy

    return tuple(cupy.asarray(p) for p in parts)


def _host(parts):
    import cupy

    return tuple(cupy.asnumpy(p) for p in parts)


GPU_CASES = dict(CASES, large=dict(m=3000, n=2000, density=1e-2), sparse=dict(m=5000, n=4000, density=1e-4),
                 dense=dict(m=60, n=50, density=0.1))


def _gpu_pair(rng, case, dtype, index):
    c = dict(GPU_CASES[case])
    m, n, density = c.pop("m"), c.pop("n"), c.pop("density")
    return m, n, random_parts(rng, m, n, density, dtype, index, **c), random_parts(rng, m, n, density, dtype, index,
                                                                                  **c)


@pytest.mark.gpu
@pytest.mark.parametrize("case", sorted(GPU_CASES))
@pytest.mark.parametrize("index", INDEX_DTYPES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_csrgeam_matches_scipy(rng, case, index, dtype):
    m, n, a, b = _gpu_pair(rng, case, dtype, index)
    out = _host(rs.csrgeam(m, n, 1.5, *_dev(a), -1.0, *_dev(b)))
    assert out[1].dtype == np.dtype(index) and out[2].dtype == np.dtype(dtype)
    assert_csr_equal(out, _geam_ref(1.5, a, -1.0, b, (m, n)), dtype, 4)


@pytest.mark.gpu
@pytest.mark.parametrize("case", sorted(GPU_CASES))
@pytest.mark.parametrize("index", INDEX_DTYPES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_csr_multiply_matches_scipy(rng, case, index, dtype):
    m, n, a, b = _gpu_pair(rng, case, dtype, index)
    out = _host(rs.csr_multiply(m, n, *_dev(a), *_dev(b)))
    assert_csr_equal(out, _multiply_ref(a, b, (m, n)), dtype, 4)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_geam_cancellation_and_nan_products_match_scipy(rng, dtype):
    m, n, a, b = _cancelling(rng, dtype, "int64")
    assert_csr_equal(_host(rs.csrgeam(m, n, 1, *_dev(a), 1, *_dev(b))), _geam_ref(1, a, 1, b, (m, n)), dtype)
    indptr, indices, data = _host(rs.csrgeam(m, n, 1, *_dev(a), -1, *_dev(a)))
    assert indptr.tolist() == [0] * (m + 1) and indices.size == data.size == 0
    a = from_coo(rng, 2, 3, [0, 1], [0, 2], dtype, "int32", data=[np.inf, 2.0])
    b = from_coo(rng, 2, 3, [1, 1], [1, 2], dtype, "int32", data=[5.0, 3.0])
    assert_csr_equal(_host(rs.csr_multiply(2, 3, *_dev(a), *_dev(b))), _multiply_ref(a, b, (2, 3)), dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(300, 64, 200), (50, 3, 40), (1, 100, 1), (0, 4, 5), (20, 0, 30)])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("index", INDEX_DTYPES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_sddmm_matches_dense(rng, shape, order, index, dtype):
    import cupy

    m, k, n = shape
    pattern = random_parts(rng, m, n, 0.05 if m > 1 else 1.0, dtype, index, duplicates=True, unsorted=True)
    A = np.asarray(values(rng, m * k, dtype).reshape(m, k), order=order)
    B = np.asarray(values(rng, k * n, dtype).reshape(k, n), order=order)
    rows = np.repeat(np.arange(m), np.diff(pattern[0]))
    out = cupy.asnumpy(rs.sddmm(0.5, cupy.asarray(A, order=order), cupy.asarray(B, order=order), 2.0,
                                *_dev(pattern)))
    ref = 0.5 * (A.astype(np.complex128) @ B)[rows, pattern[1]] + 2.0 * pattern[2]
    eps = np.finfo(np.dtype(dtype)).eps
    np.testing.assert_allclose(out, ref, rtol=16 * eps * np.sqrt(max(k, 1)), atol=16 * eps * np.sqrt(max(k, 1)) * 4)
    poisoned = cupy.full(pattern[2].size, np.nan, dtype)
    out = cupy.asnumpy(rs.sddmm(1.0, cupy.asarray(A), cupy.asarray(B), 0.0, *_dev(pattern[:2]), poisoned))
    assert not np.isnan(out).any()


def test_scipy_reference_drops_cancelled_sums():
    # the rule the library follows: SciPy's sum stores no exact zeros, stored zeros included
    a = sp.csr_array(np.array([[1.0, 0.0]]))
    a.data[:] = [1.0]
    z = a + sp.csr_array(np.array([[-1.0, 0.0]]))
    assert z.nnz == 0
