"""rocsparse csrsv_analysis / csrsv_solve against SciPy (``spsolve_triangular``) and the level sets'
definition.

CPU tests run the drivers on host memory with the NumPy stand-ins of ``trisolve_host`` (the
kernels' loops, the frontier visited in a random order as the device's atomics may, SciPy's
transpose for ``csr2csc``): the level pointer, the rows by level, the diagonal positions and the
structural zero against the definition; solves (lower/upper, unit diagonal, trans N/T/C, several
right-hand sides, alpha) against SciPy, which fails if any level were solved before a row it
depends on; the number of host synchronizations (one per level). Launch tests use the recording
fake device (``launchfake``): every launched name expression is registered, grids and chunks of
right-hand sides are what the drivers say.

GPU tests run the real kernels on fresh random data, all four dtypes and both index widths
(trans 'T'/'C' need the formats owner's ``rocsparse.csr2csc``).
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import spsolve_triangular

import trisolve_host
from hostdev import dev, view
from launchfake import fake_device  # noqa: F401 (the fixture)
from trisolve_data import (ALL, INDEX, banded, chain, laplacian_2d, levels_reference, random_triangular, triangle,
                           values, with_index)

from rocarray import rocsparse
from rocarray._core import harness
from rocarray.rocsparse import _csrsv, _csrsv_kernels

TRANS = ["N", "T", "C"]


def wide(x):
    x = np.asarray(x)
    return x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)


def reference(a, b, *, lower, trans="N", unit=False, alpha=1):
    """alpha op(T)^{-1} b with SciPy, T the ``lower`` triangle of ``a`` (ones on the diagonal when ``unit``)."""
    t = triangle(a, lower, unit)
    op = t if trans == "N" else (t.T if trans == "T" else t.conj().T)
    op = sp.csr_matrix(op, dtype=np.complex128 if np.iscomplexobj(a.data) or np.iscomplexobj(b) else np.float64)
    return spsolve_triangular(op, alpha * wide(b), lower=lower if trans == "N" else not lower)


def tolerance(dtype, m):
    return harness.tolerance(dtype, max(m, 1), factor=16)


# --------------------------------------------------------------------------------------------
# CPU: the drivers with stand-ins
# --------------------------------------------------------------------------------------------

@pytest.fixture
def host(monkeypatch, rng):
    return trisolve_host.install(monkeypatch, seed=int(rng.integers(1 << 30)))


def host_parts(a):
    return dev(a.indptr), dev(a.indices), dev(a.data)


def test_group_size_grows_with_row_length_up_to_a_warp():
    assert _csrsv.group_size(0, 0, 32) == 1
    assert _csrsv.group_size(3 * 100, 100, 32) == 1
    assert _csrsv.group_size(5 * 100, 100, 32) == 2
    assert _csrsv.group_size(16 * 100, 100, 32) == 4
    assert _csrsv.group_size(17 * 100, 100, 32) == 8
    assert _csrsv.group_size(10_000 * 100, 100, 32) == 32
    assert _csrsv.group_size(10_000 * 100, 100, 64) == 64


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("trans", TRANS)
@pytest.mark.parametrize("index_dtype", INDEX)
def test_levels_follow_the_definition(host, rng, lower, trans, index_dtype):
    m = 120
    a = random_triangular(rng, m, 0.05, "float64", lower=lower, index_dtype=index_dtype, other=0.02)
    an = rocsparse.csrsv_analysis(m, *host_parts(a)[:2], lower=lower, trans=trans)
    solved = a if trans == "N" else a.T.tocsr()
    solved.sort_indices()
    solve_lower = lower if trans == "N" else not lower
    level = levels_reference(solved, solve_lower)
    assert an.levels == level.max() + 1
    np.testing.assert_array_equal(an.level_ptr, np.concatenate([[0], np.cumsum(np.bincount(level))]))
    np.testing.assert_array_equal(view(an.order), np.argsort(level, kind="stable"))
    assert view(an.order).dtype == np.dtype(index_dtype) and view(an.diag).dtype == np.dtype(index_dtype)
    pos = [np.flatnonzero(solved.indices[solved.indptr[i]:solved.indptr[i + 1]] == i) for i in range(m)]
    np.testing.assert_array_equal(view(an.diag), [solved.indptr[i] + p[0] if p.size else -1 for i, p in enumerate(pos)])
    assert an.structural_zero == -1 and an.trans == trans and an.lower == lower
    if trans != "N":
        np.testing.assert_array_equal(view(an.indptr), solved.indptr)
        np.testing.assert_array_equal(view(an.indices), solved.indices)
        np.testing.assert_array_equal(a.data[view(an.perm)], solved.data)


def test_analysis_synchronizes_once_per_level(host, rng):
    a = chain(rng, 40, "float64")
    an = rocsparse.csrsv_analysis(40, *host_parts(a)[:2], lower=True)
    assert an.levels == 40
    # level 0's size, one read per further level, the structural zero
    assert sum(1 for c in host if c[0] == "read") == 40 + 1
    assert [c[0] for c in host].count("frontier") == 39


@pytest.mark.parametrize("lower", [True, False])
def test_chain_diagonal_one_by_one_and_empty_level_counts(host, rng, lower):
    m = 30
    a = chain(rng, m, "float64", lower=lower)
    assert rocsparse.csrsv_analysis(m, *host_parts(a)[:2], lower=lower).levels == m
    d = sp.diags(values(rng, m, "float64") + 3).tocsr()
    assert rocsparse.csrsv_analysis(m, *host_parts(d)[:2], lower=lower).levels == 1
    one = sp.csr_matrix(np.array([[2.0]]))
    an = rocsparse.csrsv_analysis(1, *host_parts(one)[:2], lower=lower)
    assert an.levels == 1 and list(view(an.order)) == [0]
    for trans in TRANS:
        host.clear()
        an = rocsparse.csrsv_analysis(0, dev(np.zeros(1, np.int32)), dev(np.zeros(0, np.int32)), lower=lower,
                                      trans=trans)
        assert an.levels == 0 and an.zero_pivot(dev(np.zeros(0))) == -1
        assert host == []  # no device work, no synchronization
    x = rocsparse.csrsv_solve(an, dev(np.zeros(1, np.int32)), dev(np.zeros(0, np.int32)), dev(np.zeros(0)),
                              dev(np.zeros((0, 3))))
    assert view(x).shape == (0, 3)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("trans", TRANS)
@pytest.mark.parametrize("unit", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_solve_matches_scipy(host, rng, lower, trans, unit, dtype):
    m = 70
    a = random_triangular(rng, m, 0.06, dtype, lower=lower, other=0.03)
    ptr, ind, data = host_parts(a)
    an = rocsparse.csrsv_analysis(m, ptr, ind, lower=lower, trans=trans)
    b = values(rng, m, dtype)
    alpha = 1.5 - 0.5j if dtype.startswith("complex") else -2.0
    x = rocsparse.csrsv_solve(an, ptr, ind, data, dev(b), alpha=alpha, unit_diagonal=unit)
    np.testing.assert_allclose(view(x), reference(a, b, lower=lower, trans=trans, unit=unit, alpha=alpha),
                               rtol=1e-10, atol=1e-12)
    assert view(data).tobytes() == a.data.tobytes()  # A untouched


@pytest.mark.parametrize("trans", TRANS)
def test_several_right_hand_sides_in_any_layout(host, rng, trans):
    m = 50
    a = banded(rng, m, 2, 0, "complex128")
    ptr, ind, data = host_parts(a)
    an = rocsparse.csrsv_analysis(m, ptr, ind, lower=True, trans=trans)
    b = values(rng, m * 4, "complex128").reshape(m, 4)
    for layout in (b, np.asfortranarray(b), b[:, ::-1]):
        x = rocsparse.csrsv_solve(an, ptr, ind, data, dev(layout))
        assert view(x).shape == (m, 4)
        np.testing.assert_allclose(view(x), reference(a, layout, lower=True, trans=trans), rtol=1e-10, atol=1e-12)
    launches = [c for c in host if c[0] == "solve_level"]
    assert all(c[3:5] == (0, 4) for c in launches) and len(launches) == 3 * an.levels
    assert [c for c in host if c[0] == "solve_levels"] == [("solve_levels", an.levels, 0, 4)]  # one plan


def test_right_hand_sides_past_the_grid_limit_go_in_chunks(host, rng, monkeypatch):
    monkeypatch.setattr(_csrsv_kernels, "MAX_GRID_Y", 3)
    m = 12
    a = chain(rng, m, "float64")
    ptr, ind, data = host_parts(a)
    an = rocsparse.csrsv_analysis(m, ptr, ind, lower=True)
    b = values(rng, m * 7, "float64").reshape(m, 7)
    x = rocsparse.csrsv_solve(an, ptr, ind, data, dev(b))
    np.testing.assert_allclose(view(x), reference(a, b, lower=True), rtol=1e-10)
    chunks = sorted({c[3:5] for c in host if c[0] == "solve_level"})
    assert chunks == [(0, 3), (3, 3), (6, 1)]


def without_diagonal(a, row):
    """``a`` (CSR) without the stored diagonal entry of ``row``."""
    index_dtype = a.indptr.dtype
    a = a.tolil()
    a[row, row] = 0  # LIL drops an entry set to zero
    return with_index(a.tocsr(), index_dtype)


def zero_diagonal(a, row):
    """``a`` with its stored diagonal entry of ``row`` set to an explicit zero (kept stored)."""
    a = a.copy()
    start = a.indptr[row]
    a.data[start + np.flatnonzero(a.indices[start:a.indptr[row + 1]] == row)[0]] = 0
    return a


def test_zero_pivot_structural_and_numerical(host, rng):
    m = 20
    a = without_diagonal(random_triangular(rng, m, 0.2, "float64", lower=True), 7)
    a = zero_diagonal(a, 12)
    ptr, ind, data = host_parts(a)
    for trans in TRANS:
        an = rocsparse.csrsv_analysis(m, ptr, ind, lower=True, trans=trans)
        assert an.structural_zero == 7 and an.zero_pivot(data) == 7
    b = zero_diagonal(random_triangular(rng, m, 0.2, "complex128", lower=True), 3)
    ptr, ind, data = host_parts(b)
    an = rocsparse.csrsv_analysis(m, ptr, ind, lower=True, trans="C")
    assert an.structural_zero == -1 and an.zero_pivot(data) == 3
    x = view(rocsparse.csrsv_solve(an, ptr, ind, data, dev(np.ones(m, complex))))
    assert not np.all(np.isfinite(x))  # divided by the zero
    assert np.all(np.isfinite(view(rocsparse.csrsv_solve(an, ptr, ind, data, dev(np.ones(m, complex)),
                                                         unit_diagonal=True))))


def test_solve_reads_only_its_triangle(host, rng):
    m = 40
    a = random_triangular(rng, m, 0.1, "float64", lower=False, other=0.3)
    ptr, ind, data = host_parts(a)
    an = rocsparse.csrsv_analysis(m, ptr, ind, lower=False)
    b = values(rng, m, "float64")
    x = rocsparse.csrsv_solve(an, ptr, ind, data, dev(b))
    np.testing.assert_allclose(view(x), reference(a, b, lower=False), rtol=1e-10)


def test_bad_trans_is_value_error(host):
    with pytest.raises(ValueError, match="trans"):
        rocsparse.csrsv_analysis(1, dev(np.array([0, 1], np.int32)), dev(np.array([0], np.int32)), lower=True,
                                 trans="X")


# --------------------------------------------------------------------------------------------
# CPU: launches on the recording fake device
# --------------------------------------------------------------------------------------------

def _fake_analysis(fd, m, index_dtype, level_ptr, group=1):
    order = fd.array((m,), index_dtype, np.arange(m))
    diag = fd.array((m,), index_dtype, np.arange(m))
    return _csrsv.CsrsvAnalysis(m, True, "N", index_dtype, level_ptr, order, diag, -1, group=group)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("index_dtype", INDEX)
def test_solve_launches_one_registered_kernel_per_level(fake_device, monkeypatch, dtype, index_dtype):
    fd = fake_device
    monkeypatch.setattr(_csrsv_kernels, "rhs_copy", lambda b, dt: fd.array(b.shape, dt))
    m = 1000
    an = _fake_analysis(fd, m, index_dtype, [0, 1, 600, 1000], group=4)
    ptr, ind = fd.array((m + 1,), index_dtype), fd.array((m,), index_dtype)
    data = fd.array((m,), dtype)
    x = rocsparse.csrsv_solve(an, ptr, ind, data, fd.array((m, 5), dtype), alpha=2)
    assert x.shape == (m, 5)
    launches = fd.launches
    assert [ln.name for ln in launches] == [_csrsv_kernels.kernel_name("level", index_dtype, dtype)] * 3
    assert [ln.grid for ln in launches] == [(1, 5, 1), (-(-599 * 4 // 256), 5, 1), (-(-400 * 4 // 256), 5, 1)]
    assert all(ln.block == (256, 1, 1) for ln in launches)
    first = launches[1].args
    assert int(first[0]) == 599 and int(first[-1]) == 4 and first[9] == np.dtype(dtype).type(2)
    # the level's rows start at its offset in order; the matrix, x and diag are the call's
    assert int(first[1]) == an.order.data.ptr + 1 * np.dtype(index_dtype).itemsize
    assert [int(v) for v in first[2:7]] == [ptr.data.ptr, ind.data.ptr, data.data.ptr, an.diag.data.ptr, x.data.ptr]
    fd.launches.clear()
    rocsparse.csrsv_solve(an, ptr, ind, data, fd.array((m, 5), dtype), alpha=3)
    assert len(fd.launches) == 3 and fd.launches[0].args[9] == np.dtype(dtype).type(3)


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("index_dtype", INDEX)
def test_analysis_and_pivot_kernels_are_registered(fake_device, dtype, index_dtype):
    fd = fake_device
    m = 300
    ptr, ind = fd.array((m + 1,), index_dtype), fd.array((m,), index_dtype)
    deps, level = fd.array((m,), "int32"), fd.array((m,), index_dtype)
    order, diag = fd.array((m,), index_dtype), fd.array((m,), index_dtype)
    counters, word = fd.array((m + 1,), "uint64"), fd.array((1,), "uint64")
    _csrsv_kernels.rows(m, ptr, ind, True, deps, diag, level, order, counters, word)
    _csrsv_kernels.frontier(17, order, 3, 20, ptr, ind, False, deps, level, 2, counters)
    _csrsv_kernels.zero_pivot(m, diag, fd.array((m,), dtype), word)
    names = [ln.name for ln in fd.launches]
    assert names == [_csrsv_kernels.kernel_name("rows", index_dtype), _csrsv_kernels.kernel_name("frontier", index_dtype),
                     _csrsv_kernels.kernel_name("zero_pivot", index_dtype, dtype)]
    assert [ln.grid[0] for ln in fd.launches] == [2, 1, 2]
    frontier = fd.launches[1].args
    isz = np.dtype(index_dtype).itemsize
    assert frontier[1].data.ptr == order.data.ptr + 3 * isz and frontier[8].data.ptr == order.data.ptr + 20 * isz
    assert frontier[9].data.ptr == counters.data.ptr + 2 * 8 and int(frontier[7]) == 2


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

def device_parts(a):
    import cupy

    return cupy.asarray(a.indptr), cupy.asarray(a.indices), cupy.asarray(a.data)


def gpu_check(a, b, *, lower, trans="N", unit=False, alpha=1, dtype=None):
    import cupy

    m = a.shape[0]
    ptr, ind, data = device_parts(a)
    an = rocsparse.csrsv_analysis(m, ptr, ind, lower=lower, trans=trans)
    x = rocsparse.csrsv_solve(an, ptr, ind, data, cupy.asarray(b), alpha=alpha, unit_diagonal=unit)
    assert x.shape == b.shape and x.dtype == a.dtype
    want = reference(a, b, lower=lower, trans=trans, unit=unit, alpha=alpha)
    harness.assert_close(x, want, a.dtype, max(m, 1), factor=16)
    return an


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("index_dtype", INDEX)
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("trans", TRANS)
def test_gpu_random_matches_scipy(rng, dtype, index_dtype, lower, trans):
    m = 500
    a = random_triangular(rng, m, 0.01, dtype, lower=lower, index_dtype=index_dtype, other=0.005)
    gpu_check(a, values(rng, m, dtype), lower=lower, trans=trans)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("unit", [False, True])
@pytest.mark.parametrize("density", [1e-4, 1e-2, 0.1])
def test_gpu_densities_unit_diagonal_and_alpha(rng, dtype, unit, density):
    m = 700
    a = random_triangular(rng, m, density, dtype, lower=True)
    alpha = (0.5 + 2j) if dtype.startswith("complex") else 3.0
    gpu_check(a, values(rng, m, dtype), lower=True, unit=unit, alpha=alpha)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
@pytest.mark.parametrize("trans", TRANS)
@pytest.mark.parametrize("k", [1, 3, 33])
def test_gpu_multiple_right_hand_sides(rng, dtype, trans, k):
    m = 400
    a = random_triangular(rng, m, 0.02, dtype, lower=False)
    b = values(rng, m * k, dtype).reshape(m, k)
    gpu_check(a, b, lower=False, trans=trans)
    gpu_check(a, np.asfortranarray(b), lower=False, trans=trans)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("index_dtype", INDEX)
def test_gpu_banded_long_rows_use_lane_groups(rng, dtype, index_dtype):
    m = 1500
    a = banded(rng, m, 90, 0, dtype, index_dtype)  # 91 entries a row: 32 lanes per row on NVIDIA
    an = gpu_check(a, values(rng, m, dtype), lower=True)
    assert an.group > 1


@pytest.mark.gpu
@pytest.mark.parametrize("lower", [True, False])
def test_gpu_chain_diagonal_one_by_one_and_empty(rng, lower):
    import cupy

    m = 2000
    an = gpu_check(chain(rng, m, "float64", lower), values(rng, m, "float64"), lower=lower)
    assert an.levels == m
    d = with_index(sp.diags(values(rng, m, "float32") + 4).tocsr(), "int32")
    assert gpu_check(d, values(rng, m, "float32"), lower=lower).levels == 1
    gpu_check(sp.csr_matrix(np.array([[3.0 - 1j]])), np.array([2.0 + 0j]), lower=lower)
    empty = with_index(sp.csr_matrix((0, 0), dtype=np.float64), "int32")
    ptr, ind, data = device_parts(empty)
    an = rocsparse.csrsv_analysis(0, ptr, ind, lower=lower)
    assert an.levels == 0 and rocsparse.csrsv_solve(an, ptr, ind, data, cupy.zeros(0)).shape == (0,)


@pytest.mark.gpu
@pytest.mark.parametrize("index_dtype", INDEX)
def test_gpu_levels_follow_the_definition(rng, index_dtype):
    import cupy

    a = laplacian_2d(40, "float64", index_dtype)
    ptr, ind, _ = device_parts(a)
    for lower in (True, False):
        an = rocsparse.csrsv_analysis(a.shape[0], ptr, ind, lower=lower)
        level = levels_reference(a, lower)
        assert an.levels == 2 * 40 - 1
        np.testing.assert_array_equal(cupy.asnumpy(an.order), np.argsort(level, kind="stable"))
        np.testing.assert_array_equal(an.level_ptr, np.concatenate([[0], np.cumsum(np.bincount(level))]))


@pytest.mark.gpu
@pytest.mark.parametrize("trans", TRANS)
def test_gpu_zero_pivot(rng, trans):
    m = 300
    a = zero_diagonal(without_diagonal(random_triangular(rng, m, 0.02, "complex64", lower=True), 100), 50)
    a = with_index(a, "int64")
    ptr, ind, data = device_parts(a)
    an = rocsparse.csrsv_analysis(m, ptr, ind, lower=True, trans=trans)
    assert an.structural_zero == 100 and an.zero_pivot(data) == 50
    data[:] = data + (data == 0)  # the stored zero becomes one; the missing diagonal stays
    assert an.zero_pivot(data) == 100


# --------------------------------------------------------------------------------------------
# CPU: the self-check and the benchmark's matrix
# --------------------------------------------------------------------------------------------

def test_benchmark_laplacian_is_scipys(rng):
    from rocarray._checks import rocsparse_trisolve as checks

    a = laplacian_2d(9)
    indptr, indices, data = checks.laplacian_2d(9)
    np.testing.assert_array_equal(indptr, a.indptr)
    np.testing.assert_array_equal(indices, a.indices)
    np.testing.assert_array_equal(data, a.data)
    low = sp.tril(a).tocsr()
    low.sort_indices()
    indptr, indices, data = checks.laplacian_2d(9, lower_only=True)
    np.testing.assert_array_equal(indptr, low.indptr)
    np.testing.assert_array_equal(indices, low.indices)
    np.testing.assert_array_equal(data, low.data)


def test_self_check_passes_and_catches_a_wrong_solve(monkeypatch, rng):
    from rocarray._checks import rocsparse_trisolve as checks

    trisolve_host.install_checks(monkeypatch, seed=int(rng.integers(1 << 30)))
    checks.check_csrsv(rng)
    monkeypatch.setattr(_csrsv_kernels, "run_solve", lambda *args: None)  # x would stay b
    with pytest.raises(AssertionError, match="csrsv"):
        checks.check_csrsv(rng)
