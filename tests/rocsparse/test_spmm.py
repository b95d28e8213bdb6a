"""rocsparse csrmm against SciPy.

CPU tests run ``csrmm`` on host memory with the NumPy stand-ins of ``spmv_host`` (the kernel
choice by B's layout, the strides handed to the kernels, ``'T'``/``'C'`` through the CSR of the
transpose, beta 0 over a NaN C, no stored elements) and check the launches on the recording fake
device. GPU tests compare the kernels with ``scipy.sparse`` for C- and F-order and strided B and
C, all dtypes and index widths, unsorted and duplicate indices, empty rows and power-law rows.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import spmv_host
from conftest import tolerance
from hostdev import dev, view
from launchfake import fake_device  # noqa: F401 (the fixture)

from rocarray import rocsparse
from rocarray.rocsparse import _spmm

from test_spmv import ALL, INDEX, from_lengths, power_law_lengths, rand_values, wide


def reference(a, B, alpha, beta, C, trans):
    aw = wide(a)
    op = aw if trans == "N" else (aw.T if trans == "T" else aw.conj().T)
    r = alpha * (op @ wide(B))
    return r if beta == 0 else r + beta * wide(C)


def dev_order(a, order):
    """A host-memory device array of ``a`` in ``order`` (``hostdev.dev`` copies C-order)."""
    return dev(a) if order == "C" else dev(np.ascontiguousarray(a.T)).T


def rand_matrix(rng, shape, dtype, order="C"):
    return np.asarray(rand_values(rng, int(np.prod(shape)), dtype).reshape(shape), order=order)


# --------------------------------------------------------------------------------------------
# CPU
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("trans", ["N", "T", "C"])
@pytest.mark.parametrize("kept", [False, True])
def test_host_layouts_and_trans(monkeypatch, rng, order, trans, kept):
    calls = spmv_host.install(monkeypatch)
    a = from_lengths(rng, rng.integers(0, 20, 120), 90, "complex128", unsorted=True)
    m, n = a.shape
    inner, rows = (n, m) if trans == "N" else (m, n)
    B = rand_matrix(rng, (inner, 7), "complex128", order)
    C0 = rand_matrix(rng, (rows, 7), "complex128", "F")
    C = dev_order(C0, "F")
    ip = dev(a.indptr)
    an = rocsparse.csrmv_analysis(m, n, ip, a.nnz) if kept else None
    out = rocsparse.csrmm(1 - 2j, m, n, ip, dev(a.indices), dev(a.data), dev_order(B, order), 0.5j, C,
                          trans=trans, analysis=an)
    assert out is C
    np.testing.assert_allclose(view(C), reference(a, B, 1 - 2j, 0.5j, C0, trans), rtol=1e-12, atol=1e-12)
    kernel = [c for c in calls if c[0].startswith("mm_")][-1]
    assert kernel[0] == ("mm_rows" if order == "C" else "mm_cols")
    assert kernel[-1] is (trans == "C")
    assert ("csr2csc" in [c[0] for c in calls]) is (trans != "N")
    assert ("gather" in [c[0] for c in calls]) is (trans != "N" and kept)


def test_host_strided_b_and_c_and_beta_zero(monkeypatch, rng):
    spmv_host.install(monkeypatch)
    a = from_lengths(rng, rng.integers(0, 6, 50), 40, "float64")
    Bb = rand_matrix(rng, (80, 9), "float64")
    B = dev(Bb)[::2, ::3]
    C = dev(np.full((50, 6), np.nan))[:, ::2]
    rocsparse.csrmm(2.0, 50, 40, dev(a.indptr), dev(a.indices), dev(a.data), B, 0.0, C)
    np.testing.assert_allclose(view(C), reference(a, Bb[::2, ::3], 2.0, 0, None, "N"), rtol=1e-12)
    out = rocsparse.csrmm(2.0, 50, 40, dev(a.indptr), dev(a.indices), dev(a.data), B)
    assert view(out).flags.c_contiguous
    np.testing.assert_allclose(view(out), reference(a, Bb[::2, ::3], 2.0, 0, None, "N"), rtol=1e-12)


@pytest.mark.parametrize("shape", [(0, 4), (4, 0), (5, 5)])
def test_host_no_stored_elements(monkeypatch, shape):
    calls = spmv_host.install(monkeypatch)
    m, n = shape
    a = sp.csr_matrix(shape)
    C0 = np.arange(m * 3, dtype=np.float64).reshape(m, 3)
    C = dev(C0)
    rocsparse.csrmm(1.0, m, n, dev(a.indptr), dev(a.indices), dev(a.data), dev(np.ones((n, 3))), 2.0, C)
    np.testing.assert_array_equal(view(C), 2 * C0)
    assert [c[0] for c in calls] == (["scale_matrix"] if m else [])


def test_cols_lanes_follow_the_mean_row_length():
    assert _spmm.cols_lanes(100, 150, 32) == 2
    assert _spmm.cols_lanes(100, 800, 32) == 8
    assert _spmm.cols_lanes(100, 5000, 32) == 32
    assert _spmm.cols_lanes(100, 50000, 64) == 32


def test_launch_rows_kernel_grid(fake_device, rng):
    a = from_lengths(rng, np.full(1000, 4), 500, "float32")
    parts = [fake_device.array(v.shape, v.dtype, v) for v in (a.indptr, a.indices, a.data)]
    B = fake_device.array((500, 40), "float32")
    rocsparse.csrmm(1.0, 1000, 500, *parts, B)
    (launch,) = fake_device.launches
    assert launch.name == "ra_rocsparse_csrmm_rows<float, int>"
    assert launch.grid[0] == -(-1000 * 2 // 8)  # two 32-column chunks a row, eight warps a block
    assert [int(v) for v in launch.args[6:8]] == [40, 1]


def test_launch_cols_kernel_for_column_major_b(fake_device, rng):
    a = from_lengths(rng, np.full(1000, 20), 500, "float64", index="int64")
    parts = [fake_device.array(v.shape, v.dtype, v) for v in (a.indptr, a.indices, a.data)]
    B = fake_device.array((6, 500), "float64").T
    rocsparse.csrmm(1.0, 1000, 500, *parts, B)
    (launch,) = fake_device.launches
    assert launch.name == "ra_rocsparse_csrmm_cols<double, long long, 32>"
    assert [int(v) for v in launch.args[6:8]] == [1, 500]


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

def check(a, B, dtype, trans, rng, alpha=1.25, beta=-0.5, nan_c=False, c_order="C", keep=False):
    import cupy

    m, n = a.shape
    ip = cupy.asarray(a.indptr)
    an = rocsparse.csrmv_analysis(m, n, ip, a.nnz) if keep else None
    rows = m if trans == "N" else n
    C0 = np.full((rows, B.shape[1]), np.nan, dtype, order=c_order) if nan_c else \
        rand_matrix(rng, (rows, B.shape[1]), dtype, c_order)
    beta = 0 if nan_c else beta
    Cd = cupy.asarray(C0, order=c_order)
    out = rocsparse.csrmm(alpha, m, n, ip, cupy.asarray(a.indices), cupy.asarray(a.data),
                          cupy.asarray(B, order="F" if B.flags.f_contiguous else "C"), beta, Cd, trans=trans,
                          analysis=an)
    want = reference(a, B, alpha, beta, C0, trans)
    longest = max(int(np.diff(a.indptr).max(initial=0)), 1)
    scale = max(float(np.abs(want).max(initial=0)), 1.0)
    np.testing.assert_allclose(cupy.asnumpy(out), want, rtol=tolerance(dtype, longest),
                               atol=tolerance(dtype, longest) * scale)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("index", INDEX)
@pytest.mark.parametrize("order", ["C", "F"])
def test_gpu_matches_scipy(dtype, index, order, rng):
    a = from_lengths(rng, power_law_lengths(rng, 1500, 1200, 3000), 1200, dtype, index=index, unsorted=True)
    for ncols in (1, 5, 32, 70):
        B = rand_matrix(rng, (1200, ncols), dtype, order)
        check(a, B, dtype, "N", rng)
    check(a, rand_matrix(rng, (1200, 33), dtype, order), dtype, "N", rng, nan_c=True, c_order="F")


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["T", "C"])
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_gpu_transpose(trans, dtype, rng):
    a = from_lengths(rng, rng.integers(0, 30, 800), 600, dtype, unsorted=True)
    check(a, rand_matrix(rng, (800, 12), dtype), dtype, trans, rng)
    check(a, rand_matrix(rng, (800, 5), dtype, "F"), dtype, trans, rng, keep=True)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (1, 1), (40, 1)])
def test_gpu_small_shapes(shape, rng):
    a = sp.random(*shape, density=0.6, format="csr", random_state=rng, dtype=np.float64)
    check(a, rand_matrix(rng, (shape[1], 4), "float64"), "float64", "N", rng)
    check(sp.csr_matrix(shape, dtype=np.float32), rand_matrix(rng, (shape[1], 3), "float32", "F"), "float32", "N",
          rng, nan_c=True)
