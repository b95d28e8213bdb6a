"""rocsparse csrilu0 / csric0 against dense NumPy ILU(0)/IC(0) restricted to the pattern.

CPU tests run the drivers with the NumPy stand-ins of ``trisolve_host`` (the kernels' row loops and
merges, the levels of the lower pattern built through the analysis' stand-ins): values against
``trisolve_data.ilu0_reference``/``ic0_reference`` (Saad's IKJ loop and the row-wise Cholesky on
dense arrays), exactness where ILU(0)/IC(0) have no fill to drop (tridiagonal), zero pivots
(structural and numerical; IC(0) of an indefinite matrix), the pass-through of IC(0)'s upper
entries, reuse of a given analysis, and the launches on the recording fake device.

GPU tests run the real kernels on fresh random matrices, all four dtypes and both index widths.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import trisolve_host
from hostdev import dev, view
from launchfake import fake_device  # noqa: F401 (the fixture)
from trisolve_data import ALL, INDEX, banded, general, hpd, ic0_reference, ilu0_reference, laplacian_2d, with_index

from rocarray import rocsparse
from rocarray._core import harness
from rocarray.rocsparse import _csrsv, _ilu_kernels


def at_pattern(dense, a):
    """The entries of ``dense`` at the stored positions of CSR ``a``, in ``a``'s order."""
    rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
    return dense[rows, a.indices]


def ilu_expected(a):
    w, _ = ilu0_reference(a)
    return at_pattern(w, a)


def ic_expected(a):
    low, _ = ic0_reference(a)
    out = at_pattern(low, a).astype(np.result_type(low.dtype, a.dtype))
    rows = np.repeat(np.arange(a.shape[0]), np.diff(a.indptr))
    upper = a.indices > rows
    out[upper] = a.data[upper]
    return out


# --------------------------------------------------------------------------------------------
# CPU: the drivers with stand-ins
# --------------------------------------------------------------------------------------------

@pytest.fixture
def host(monkeypatch, rng):
    return trisolve_host.install(monkeypatch, seed=int(rng.integers(1 << 30)))


def parts(a):
    return dev(a.indptr), dev(a.indices), dev(a.data)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("index_dtype", INDEX)
def test_ilu0_matches_the_dense_reference(host, rng, dtype, index_dtype):
    m = 60
    a = general(rng, m, 0.08, dtype, index_dtype)
    ptr, ind, data = parts(a)
    lu, pivot = rocsparse.csrilu0(m, ptr, ind, data)
    assert pivot == -1 and view(lu).dtype == np.dtype(dtype)
    np.testing.assert_allclose(view(lu), ilu_expected(a), rtol=1e-12, atol=1e-13)
    assert view(data).tobytes() == a.data.tobytes()  # A untouched


def test_ilu0_of_the_laplacian_and_a_tridiagonal(host, rng):
    a = laplacian_2d(7)
    lu, pivot = rocsparse.csrilu0(49, *parts(a))
    np.testing.assert_allclose(view(lu), ilu_expected(a), rtol=1e-13)
    t = banded(rng, 40, 1, 1, "float64")
    lu, pivot = rocsparse.csrilu0(40, *parts(t))
    f = sp.csr_matrix((view(lu).copy(), t.indices, t.indptr), shape=t.shape).toarray()
    low, up = np.tril(f, -1) + np.eye(40), np.triu(f)
    np.testing.assert_allclose(low @ up, t.toarray(), rtol=1e-12, atol=1e-12)  # no fill to drop: exact


def test_ilu0_zero_pivots(host, rng):
    a = with_index(sp.csr_matrix(np.array([[1.0, 2, 0], [1, 2, 1], [0, 1, 3]])), "int32")
    lu, pivot = rocsparse.csrilu0(3, *parts(a))
    assert pivot == 1  # U[1, 1] = 2 - 1 * 2
    b = general(rng, 30, 0.1, "float64").tolil()
    b[11, 11] = 0  # no stored diagonal
    b[20, 20] = 0
    b = with_index(b.tocsr(), "int64")
    assert rocsparse.csrilu0(30, *parts(b))[1] == 11


def test_given_analysis_is_reused_and_checked(host, rng):
    m = 25
    a = general(rng, m, 0.1, "float64")
    ptr, ind, data = parts(a)
    an = rocsparse.csrsv_analysis(m, ptr, ind, lower=True)
    host.clear()
    lu, _ = rocsparse.csrilu0(m, ptr, ind, data, an)
    assert [c[0] for c in host] == ["ilu0_levels"] + ["ilu0_level"] * an.levels + ["read"]
    np.testing.assert_allclose(view(lu), ilu_expected(a), rtol=1e-12)
    for wrong in (rocsparse.csrsv_analysis(m, ptr, ind, lower=False),
                  rocsparse.csrsv_analysis(m, ptr, ind, lower=True, trans="T")):
        with pytest.raises(ValueError, match="analysis"):
            rocsparse.csrilu0(m, ptr, ind, data, wrong)
        with pytest.raises(ValueError, match="analysis"):
            rocsparse.csric0(m, ptr, ind, data, wrong)


def test_empty_and_one_by_one(host):
    ptr0, ind0 = dev(np.zeros(1, np.int32)), dev(np.zeros(0, np.int32))
    for fn in (rocsparse.csrilu0, rocsparse.csric0):
        lu, pivot = fn(0, ptr0, ind0, dev(np.zeros(0)))
        assert view(lu).shape == (0,) and pivot == -1
    one = parts(with_index(sp.csr_matrix(np.array([[4.0]])), "int32"))
    assert view(rocsparse.csrilu0(1, *one)[0]).tolist() == [4.0]
    assert view(rocsparse.csric0(1, *one)[0]).tolist() == [2.0]


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("index_dtype", INDEX)
def test_ic0_matches_the_dense_reference_and_keeps_the_upper_entries(host, rng, dtype, index_dtype):
    m = 50
    a = hpd(rng, m, 0.1, dtype, index_dtype)
    l, pivot = rocsparse.csric0(m, *parts(a))
    assert pivot == -1
    np.testing.assert_allclose(view(l), ic_expected(a), rtol=1e-12, atol=1e-13)
    low = sp.tril(a).tocsr()  # the lower triangle alone gives the same factor
    low.sort_indices()
    low = with_index(low, index_dtype)
    np.testing.assert_allclose(view(rocsparse.csric0(m, *parts(low))[0]), ic_expected(low), rtol=1e-12, atol=1e-13)


def test_ic0_of_a_tridiagonal_is_its_cholesky_factor(host, rng):
    t = hpd(rng, 30, 0.0, "float64") + sp.diags([np.full(29, 0.5)], [-1]) + sp.diags([np.full(29, 0.5)], [1])
    t = with_index(t.tocsr(), "int32")
    t.sort_indices()
    l, pivot = rocsparse.csric0(30, *parts(t))
    f = np.tril(sp.csr_matrix((view(l).copy(), t.indices, t.indptr), shape=t.shape).toarray())
    np.testing.assert_allclose(f, np.linalg.cholesky(t.toarray()), rtol=1e-12, atol=1e-13)


def test_ic0_reports_a_matrix_that_is_not_positive_definite(host):
    a = with_index(sp.csr_matrix(np.array([[1.0, 2, 0], [2, 1, 0], [0, 0, 1]])), "int32")
    assert rocsparse.csric0(3, *parts(a))[1] == 1
    b = with_index(sp.csr_matrix(np.array([[1.0, 0], [0.5, 0]])), "int32")
    b.eliminate_zeros()
    assert rocsparse.csric0(2, *parts(b))[1] == 1  # no stored diagonal in row 1


# --------------------------------------------------------------------------------------------
# CPU: launches on the recording fake device
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("index_dtype", INDEX)
def test_factor_launches_are_registered(fake_device, monkeypatch, dtype, index_dtype):
    from rocarray.rocsparse import _csrsv_kernels

    fd = fake_device
    monkeypatch.setattr(_csrsv_kernels, "copy", lambda x: fd.array(x.shape, x.dtype))
    monkeypatch.setattr(_csrsv_kernels, "pivot_word", lambda like: fd.array((1,), "uint64", [2 ** 64 - 1]))
    m = 600
    order = fd.array((m,), index_dtype, np.arange(m))
    an = _csrsv.CsrsvAnalysis(m, True, "N", index_dtype, [0, 300, 599, 600], order, fd.array((m,), index_dtype), -1)
    ptr, ind, data = fd.array((m + 1,), index_dtype), fd.array((m,), index_dtype), fd.array((m,), dtype)
    for fn, kernel in ((rocsparse.csrilu0, "csrilu0_level"), (rocsparse.csric0, "csric0_level")):
        fd.launches.clear()
        _, pivot = fn(m, ptr, ind, data, an)
        assert pivot == -1
        assert [ln.name for ln in fd.launches] == [_ilu_kernels.kernel_name(kernel, dtype, index_dtype)] * 3
        assert [ln.grid[0] for ln in fd.launches] == [2, 2, 1]
        assert [int(ln.args[0]) for ln in fd.launches] == [300, 299, 1]
        assert int(fd.launches[1].args[1]) == order.data.ptr + 300 * np.dtype(index_dtype).itemsize
        assert int(fd.launches[1].args[4]) != data.data.ptr  # a copy is factored


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

def device_parts(a):
    import cupy

    return cupy.asarray(a.indptr), cupy.asarray(a.indices), cupy.asarray(a.data)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("index_dtype", INDEX)
@pytest.mark.parametrize("density", [1e-3, 0.02, 0.1])
def test_gpu_ilu0_matches_the_dense_reference(rng, dtype, index_dtype, density):
    m = 300
    a = general(rng, m, density, dtype, index_dtype)
    lu, pivot = rocsparse.csrilu0(m, *device_parts(a))
    assert pivot == -1 and lu.dtype == a.dtype
    harness.assert_close(lu, ilu_expected(a), dtype, m, factor=16)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("index_dtype", INDEX)
def test_gpu_ic0_matches_the_dense_reference(rng, dtype, index_dtype):
    m = 300
    a = hpd(rng, m, 0.03, dtype, index_dtype)
    l, pivot = rocsparse.csric0(m, *device_parts(a))
    assert pivot == -1
    harness.assert_close(l, ic_expected(a), dtype, m, factor=16)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gpu_laplacian_ilu0_and_ic0_and_their_solves(rng, dtype):
    import cupy

    n = 30
    a = laplacian_2d(n, dtype)
    ptr, ind, data = device_parts(a)
    an = rocsparse.csrsv_analysis(n * n, ptr, ind, lower=True)
    lu, pivot = rocsparse.csrilu0(n * n, ptr, ind, data, an)
    assert pivot == -1
    harness.assert_close(lu, ilu_expected(a), dtype, n, factor=16)
    l, pivot = rocsparse.csric0(n * n, ptr, ind, data, an)
    assert pivot == -1
    harness.assert_close(l, ic_expected(a), dtype, n, factor=16)
    # (L U)^{-1} b with the two triangular solves the preconditioner runs
    b = rng.standard_normal(n * n).astype(dtype)
    y = rocsparse.csrsv_solve(an, ptr, ind, lu, cupy.asarray(b), unit_diagonal=True)
    up = rocsparse.csrsv_analysis(n * n, ptr, ind, lower=False)
    x = rocsparse.csrsv_solve(up, ptr, ind, lu, y)
    f = sp.csr_matrix((cupy.asnumpy(lu).astype(np.float64), a.indices, a.indptr), shape=a.shape).toarray()
    want = np.linalg.solve(np.triu(f), np.linalg.solve(np.tril(f, -1) + np.eye(n * n), b.astype(np.float64)))
    harness.assert_close(x, want, dtype, n * n, factor=16)


@pytest.mark.gpu
def test_gpu_zero_pivots(rng):
    a = with_index(sp.csr_matrix(np.array([[1.0, 2, 0], [1, 2, 1], [0, 1, 3]])), "int64")
    assert rocsparse.csrilu0(3, *device_parts(a))[1] == 1
    b = general(rng, 200, 0.02, "complex64").tolil()
    b[150, 150] = 0
    b = with_index(b.tocsr(), "int32")
    assert rocsparse.csrilu0(200, *device_parts(b))[1] == 150
    c = with_index(sp.csr_matrix(np.array([[1.0, 2, 0], [2, 1, 0], [0, 0, 1]])), "int32")
    assert rocsparse.csric0(3, *device_parts(c))[1] == 1
    one = with_index(sp.csr_matrix(np.array([[9.0]])), "int32")
    lu, pivot = rocsparse.csric0(1, *device_parts(one))
    assert pivot == -1 and float(lu[0]) == 3.0


def test_self_check_passes_and_catches_a_wrong_factor(monkeypatch, rng):
    from rocarray._checks import rocsparse_trisolve as checks
    from rocarray.rocsparse import _csrsv_kernels

    trisolve_host.install_checks(monkeypatch, seed=int(rng.integers(1 << 30)))
    checks.check_ilu(rng)
    monkeypatch.setattr(_csrsv_kernels, "run_factor", lambda *args: None)  # A itself is no factor of A
    with pytest.raises(AssertionError, match="csrilu0"):
        checks.check_ilu(rng)
