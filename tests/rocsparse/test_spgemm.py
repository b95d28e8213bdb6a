"""rocsparse.csrgemm: C = A @ B against SciPy.

CPU tests run the driver (binning, table sizing, the index dtype rule, the two phases' bookkeeping,
zero removal) on NumPy stand-ins of the kernel interface (``spgemm_host``), which emulate the
kernels' hash tables and fail when a table would overflow; launch tests check kernel names, grids
and shared memory on the recording fake device. GPU tests compare the real kernels with SciPy.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse._sputils import get_index_dtype

import spgemm_host
from launchfake import fake_device  # noqa: F401 (fixture)
from spgemm_data import (INDEX_DTYPES, VALUE_DTYPES, assert_csr_equal, banded_parts, from_coo, laplacian_2d_parts,
                         power_law_parts, random_parts, scipy_of)

import rocarray.rocsparse as rs
from rocarray._core import compile as _compile
from rocarray.rocsparse import _spgemm, _spgemm_kernels as _k


def _gemm_ref(a, b, ashape, bshape):
    return scipy_of(a, ashape) @ scipy_of(b, bshape)


# --------------------------------------------------------------------------------------------
# CPU: the driver on NumPy stand-ins
# --------------------------------------------------------------------------------------------

CASES = {
    "random": dict(m=23, k=17, n=19, density=0.2),
    "empty_rows": dict(m=20, k=15, n=18, density=0.3, empty_rows=0.4),
    "one_row": dict(m=1, k=12, n=9, density=0.5),
    "one_column": dict(m=14, k=11, n=1, density=0.5),
    "duplicates_unsorted": dict(m=16, k=13, n=15, density=0.3, duplicates=True, unsorted=True),
    "zero_nnz": dict(m=7, k=5, n=6, density=0.0),
    "no_rows": dict(m=0, k=5, n=6, density=0.3),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("index", INDEX_DTYPES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_host_csrgemm_matches_scipy(monkeypatch, rng, case, index, dtype):
    spgemm_host.install(monkeypatch)
    c = dict(CASES[case])
    m, k, n, density = c.pop("m"), c.pop("k"), c.pop("n"), c.pop("density")
    a = random_parts(rng, m, k, density, dtype, index, **c)
    b = random_parts(rng, k, n, density, dtype, index, **c)
    out = rs.csrgemm(m, k, n, *a, *b)
    assert out[0].dtype == np.dtype(index) and out[1].dtype == np.dtype(index) and out[2].dtype == np.dtype(dtype)
    assert_csr_equal(out, _gemm_ref(a, b, (m, k), (k, n)), dtype, k)


def test_host_long_rows_cross_every_bin_and_the_global_tables(monkeypatch, rng):
    # 20 KB of shared memory: count tables up to 4096 slots (4-byte keys) and fill tables up to
    # 1024 slots (12-byte slots) fit; longer rows go to global tables
    host = spgemm_host.install(monkeypatch, shared_limit=20 * 1024)
    k, n = 60, 6000
    # B: rows 0-2 long (4500, 1500, 200 columns), the others 3 columns
    b_len = np.full(k, 3)
    b_len[:3] = [4500, 1500, 200]
    b_rows = np.repeat(np.arange(k), b_len)
    b_cols = np.concatenate([rng.choice(n, size=int(c), replace=False) for c in b_len])
    b = from_coo(rng, k, n, b_rows, b_cols, "float64", "int32", unsorted=True)
    # A: random rows of Pareto-like lengths over every column, then one row per bin for certain:
    # 3 products (8 lanes), 60 (32 lanes), 200 (a block, shared tables), 4500 (global tables)
    lengths = rng.permutation(np.array([1, 3, 10, 40, 300, 1500, 3000, 5000] + [2] * 32))
    rows = np.repeat(np.arange(40), lengths)
    cols = rng.integers(0, k, rows.size)
    explicit = [[3], list(range(3, 23)), [2], [0]]
    rows = np.concatenate([rows] + [np.full(len(c), 40 + i) for i, c in enumerate(explicit)])
    cols = np.concatenate([cols] + [np.array(c) for c in explicit])
    m = 40 + len(explicit)
    a = from_coo(rng, m, k, rows, cols, "float64", "int32", unsorted=True)
    out = rs.csrgemm(m, k, n, *a, *b)
    assert_csr_equal(out, _gemm_ref(a, b, (m, k), (k, n)), "float64", k)
    for phase in ("count", "fill"):
        variants = {v for kind, v, _, _ in host.log if kind == phase}
        assert variants == set(_k.VARIANTS), (phase, variants)
    busy = np.flatnonzero(np.diff(a[0]))
    assert sorted(host.counted) == sorted(r for r in busy if spgemm_host.products(m, *a[:2], b[0])[r])
    assert sorted(host.filled) == sorted(host.counted)


def test_host_global_tables_are_sized_by_their_own_rows(monkeypatch, rng):
    # one row needs ~6000 slots and a hundred ~1200: with 20 KB of shared memory both go to global
    # tables in the fill (beyond 1024 slots), but the short ones must not each clear and probe an
    # 8192-slot table sized by the longest row
    host = spgemm_host.install(monkeypatch, shared_limit=20 * 1024)
    k, n = 8, 20000
    b_len = np.array([6000, 1200, 3, 3, 3, 3, 3, 3])
    b_rows = np.repeat(np.arange(k), b_len)
    b_cols = np.concatenate([rng.choice(n, size=int(c), replace=False) for c in b_len])
    b = from_coo(rng, k, n, b_rows, b_cols, "float64", "int32")
    m = 101
    a = from_coo(rng, m, k, np.arange(m), np.r_[0, np.ones(m - 1, int)], "float64", "int32")
    out = rs.csrgemm(m, k, n, *a, *b)
    assert_csr_equal(out, _gemm_ref(a, b, (m, k), (k, n)), "float64", k)
    row_nnz = np.diff(np.asarray(out[0]))
    products = spgemm_host.products(m, *a[:2], b[0])
    for kind, variant, table, rows in host.log:
        if variant.in_global:
            need = np.minimum(products[rows], n)
            if kind == "fill":
                need = np.minimum(need, 2 * row_nnz[rows])
            assert need.max() <= table < 2 * need.min(), (kind, table, need.min(), need.max())
    assert {(kind, table) for kind, v, table, _ in host.log if v.in_global} == {("fill", 2048), ("fill", 8192),
                                                                              ("count", 8192)}


def test_host_exact_cancellation_is_not_stored_like_scipy(monkeypatch, rng):
    host = spgemm_host.install(monkeypatch)
    # row 0 of A @ B: 1*1 + 1*(-1) = 0 in column 0, 1*2 in column 1; row 1 has no products
    a = from_coo(rng, 2, 2, [0, 0], [0, 1], "float64", "int32", data=[1.0, 1.0])
    b = from_coo(rng, 2, 2, [0, 0, 1], [0, 1, 0], "float64", "int32", data=[1.0, 2.0, -1.0])
    ref = _gemm_ref(a, b, (2, 2), (2, 2))
    assert ref.nnz == 1
    out = rs.csrgemm(2, 2, 2, *a, *b)
    assert_csr_equal(out, ref, "float64")
    assert host.log == [] and host.merge_counted == host.merge_filled == [0, 1]


def test_host_mixed_index_widths_widen_to_int64(monkeypatch, rng):
    spgemm_host.install(monkeypatch)
    a = random_parts(rng, 9, 8, 0.4, "float32", "int32")
    b = random_parts(rng, 8, 7, 0.4, "float64", "int64")
    out = rs.csrgemm(9, 8, 7, *a, *b)
    assert out[1].dtype == np.int64 and out[2].dtype == np.float64
    assert_csr_equal(out, _gemm_ref(a, b, (9, 8), (8, 7)), "float32", 8)


def test_host_product_count_past_int32_widens_indices_and_rebins(monkeypatch, rng):
    host = spgemm_host.install(monkeypatch)
    monkeypatch.setattr(_spgemm, "INT32_MAX", 50)
    a = random_parts(rng, 12, 10, 0.5, "float64", "int32")
    b = random_parts(rng, 10, 11, 0.5, "float64", "int32")
    ref = _gemm_ref(a, b, (12, 10), (10, 11))
    assert spgemm_host.products(12, *a[:2], b[0]).sum() > 50
    out = rs.csrgemm(12, 10, 11, *a, *b)
    assert out[0].dtype == out[1].dtype == np.int64
    assert_csr_equal(out, ref, "float64", 10)
    assert all(rows is None or rows.dtype == np.int64 for kind, _, _, rows in host.log)


@pytest.mark.parametrize("dtypes", [("int32", "int32"), ("int32", "int64"), ("int64", "int64")])
@pytest.mark.parametrize("maxval", [0, 2**31 - 1, 2**31])
def test_index_dtype_is_scipys_rule(dtypes, maxval):
    arrays = tuple(np.zeros(1, d) for d in dtypes)
    assert _spgemm.index_dtype(dtypes, maxval) == get_index_dtype(arrays, maxval=maxval)


def test_plan_bins_slices_rows_in_bin_order():
    bins = ((_k.SMALL, 32), (_k.MEDIUM, 128), (_k.LARGE, 512))
    order = np.array([5, 0, 2, 7, 1, 3, 4, 6])
    plan = _spgemm.plan_bins([1, 2, 0, 3, 2], bins, order, 900)
    assert [(v, t, list(r), c) for v, t, r, c in plan] == [
        (_k.SMALL, 32, [0, 2], 2), (_k.LARGE, 512, [7, 1, 3], 3), (_k.GLOBAL, 1024, [4, 6], 2)]
    one = _spgemm.plan_bins([0, 10, 0, 0, 0], bins, None, 20)
    assert [(v, t, r, c) for v, t, r, c in one] == [(_k.SMALL, 32, None, 10)]


def test_bin_edges_agree_with_the_bin_rule(rng):
    limits = [32, 128, 512, 4096]
    need = np.concatenate([[0, 1, 32, 33, 128, 129, 512, 513, 4096, 4097, 10**9], rng.integers(0, 6000, 500)])
    _, ref, _, _, _ = spgemm_host.classify(need, limits, np.int32)
    edges = _k.bin_edges(limits)
    counts, _ = np.histogram(need, edges)
    np.testing.assert_array_equal(counts, ref)
    bins = np.searchsorted(edges[1:-1].astype(np.int64), need, side="right")
    np.testing.assert_array_equal(np.bincount(bins, minlength=len(limits) + 2), ref)


@pytest.mark.parametrize("largest, table", [(1, 1), (2, 2), (3, 4), (8192, 8192), (8193, 16384)])
def test_global_tables_are_the_next_power_of_two(largest, table):
    assert _k.global_table(largest) == table


@pytest.mark.parametrize("limit", [48 * 1024, 64 * 1024, 227 * 1024])
@pytest.mark.parametrize("slot_bytes", [4, 8, 12, 24])
def test_shared_bins_fit_the_device_and_grow(limit, slot_bytes):
    bins = _k.shared_bins(limit, slot_bytes)
    assert bins[:2] == ((_k.SMALL, 32), (_k.MEDIUM, 128))
    tables = [t for _, t in bins]
    assert tables == sorted(tables)
    assert all(_k.table_bytes(v, t, slot_bytes) + _k.STATIC_SHARED <= limit for v, t in bins)
    dropped = [b for b in _k.SHARED_BINS if b not in bins]
    assert all(_k.table_bytes(v, t, slot_bytes) + _k.STATIC_SHARED > limit for v, t in dropped)


def test_global_launches_stay_within_their_memory_budget():
    for table in (16384, 1 << 20, 1 << 26):
        blocks = _k.global_blocks(10**6, table, 24)
        assert blocks >= 1 and (blocks == 1 or blocks * table * 24 <= _k.GLOBAL_TABLE_BYTES)
    assert _k.global_blocks(3, 16384, 4) == 3


def test_kernels_are_registered():
    for source, names in _k.instantiations().items():
        assert set(names) <= set(_compile.registered(source))
    assert "ra_rocsparse_spgemm_fill<ra_c128, ra_i64, 256, 32, true>" in _compile.registered(_k.SPGEMM)


# --------------------------------------------------------------------------------------------
# CPU: launches on the recording fake device
# --------------------------------------------------------------------------------------------

def test_count_launch_shape(fake_device):
    ip = fake_device.array((101,), "int32")
    ix = fake_device.array((50,), "int32")
    nnz = fake_device.array((101,), "int32")
    _k.count(_k.SMALL, 32, None, 100, ip, ix, ip, ix, nnz)
    (launch,) = fake_device.launches
    assert launch.name == "ra_rocsparse_spgemm_count<ra_i32, 8, 1, false>"
    assert launch.grid == (4, 1, 1) and launch.block == (256, 1, 1)
    assert launch.shared == _k.table_bytes(_k.SMALL, 32, 4) >= 32 * 33 * 4
    assert int(launch.args[0]) == 100 and int(launch.args[1]) == 0 and int(launch.args[7]) == 32


def test_global_fill_launch_takes_scratch_not_shared_memory(fake_device):
    ip = fake_device.array((11,), "int64")
    ix = fake_device.array((30,), "int64")
    v = fake_device.array((30,), "complex128")
    rows = fake_device.array((3,), "int64")
    zeros = fake_device.array((1,), "uint64")
    _k.fill(_k.GLOBAL, 1 << 15, rows, 3, ip, ix, v, ip, ix, v, ip, ix, v, zeros)
    (launch,) = fake_device.launches
    assert launch.name == "ra_rocsparse_spgemm_fill<ra_c128, ra_i64, 256, 32, true>"
    assert launch.grid == (3, 1, 1) and launch.shared == 0
    keys, vals = launch.args[13:15]
    assert int(launch.args[12]) == 1 << 15
    assert keys.nbytes >= 3 * (1 << 15) * 8 and vals.nbytes >= 3 * (1 << 15) * 16


def test_merge_launches_one_thread_per_row(fake_device):
    ip = fake_device.array((1001,), "int32")
    ix = fake_device.array((50,), "int32")
    need = fake_device.array((1000,), "int64")
    flag = fake_device.array((1,), "uint64")
    v = fake_device.array((50,), "float32")
    _k.merge_count(8, 1000, need, ip, ix, ip, ix, ip, flag)
    _k.merge_fill(32, 1000, need, ip, ix, v, ip, ix, v, ip, ix, v, flag)
    count, fill = fake_device.launches
    assert count.name == "ra_rocsparse_spgemm_merge_count<ra_i32, 8>"
    assert fill.name == "ra_rocsparse_spgemm_merge_fill<float, ra_i32, 32>"
    for launch in (count, fill):
        assert launch.grid == (4, 1, 1) and launch.block == (256, 1, 1) and launch.shared == 0
        assert int(launch.args[0]) == 1000 and launch.args[1] is need
    assert int(fill.args[-1]) == 0
    _k.merge_fill(8, 1000, need, ip, ix, v, ip, ix, v, ip, ix, v, flag)
    staged = fake_device.launches[-1]
    assert staged.name == "ra_rocsparse_spgemm_merge_fill<float, ra_i32, 8>"
    assert int(staged.args[-1]) == _k.MERGE_STAGE_BYTES and staged.shared == _k.MERGE_STAGE_BYTES + 16


@pytest.mark.parametrize("widest, ways", [(0, None), (1, 8), (8, 8), (9, 32), (32, 32)])
def test_merge_width_is_the_narrowest_that_fits(widest, ways):
    assert _k.merge_ways(widest) == ways


def test_host_merge_rows_stop_at_the_cursor_and_product_limits(monkeypatch, rng):
    host = spgemm_host.install(monkeypatch)
    k, n = 40, 700
    b_len = np.r_[600, 512, 1, np.full(k - 3, 2)]
    b_cols = np.concatenate([rng.choice(n, size=int(c), replace=False) for c in b_len])
    b = from_coo(rng, k, n, np.repeat(np.arange(k), b_len), b_cols, "float64", "int32")
    explicit = [[3] * 32, [3] * 33, [1], [1, 2], [0], []]
    rows = np.concatenate([np.full(len(c), i) for i, c in enumerate(explicit)])
    a = from_coo(rng, len(explicit), k, rows, np.concatenate(explicit), "float64", "int32")
    m = len(explicit)
    out = rs.csrgemm(m, k, n, *a, *b)
    assert_csr_equal(out, _gemm_ref(a, b, (m, k), (k, n)), "float64", k)
    # 32 entries of A / 512 products merge; 33 entries / 513 or 600 products hash; no products: both
    assert host.merge_counted == host.merge_filled == [0, 2, 5]
    assert sorted(host.counted) == sorted(host.filled) == [1, 3, 4]


def test_host_unsorted_rows_of_b_send_only_the_merge_rows_to_the_tables(monkeypatch, rng):
    host = spgemm_host.install(monkeypatch)
    k, n = 12, 900
    b_len = np.r_[600, np.full(k - 1, 4)]
    b_cols = np.concatenate([rng.choice(n, size=int(c), replace=False) for c in b_len])
    b = from_coo(rng, k, n, np.repeat(np.arange(k), b_len), b_cols, "float64", "int32", unsorted=True)
    explicit = [[0], [1, 2, 3], [4], []]
    rows = np.concatenate([np.full(len(c), i) for i, c in enumerate(explicit)])
    a = from_coo(rng, len(explicit), k, rows, np.concatenate(explicit), "float64", "int32")
    out = rs.csrgemm(4, k, n, *a, *b)
    assert_csr_equal(out, _gemm_ref(a, b, (4, k), (k, n)), "float64", k)
    assert host.merge_filled == []
    assert sorted(host.counted) == sorted(host.filled) == [0, 1, 2]


# --------------------------------------------------------------------------------------------
# GPU: the kernels against SciPy
# --------------------------------------------------------------------------------------------

def _device_parts(parts):
    import cupy

    return tuple(cupy.asarray(p) for p in parts)


def _run(a, b, m, k, n):
    out = rs.csrgemm(m, k, n, *_device_parts(a), *_device_parts(b))
    import cupy

    return tuple(cupy.asnumpy(x) for x in out)


GPU_CASES = ["random_1e-4", "random_1e-2", "random_0.1", "empty_rows", "one_row", "one_column", "one_by_one",
             "zero_nnz", "no_rows", "duplicates_unsorted", "banded", "power_law"]


def _gpu_case(rng, case, dtype, index):
    if case.startswith("random_"):
        density = float(case.split("_")[1])
        m, k, n = (3000, 2000, 2500) if density < 1e-3 else (400, 300, 350)
        return m, k, n, random_parts(rng, m, k, density, dtype, index), random_parts(rng, k, n, density, dtype, index)
    if case == "empty_rows":
        return (200, 150, 170, random_parts(rng, 200, 150, 0.05, dtype, index, empty_rows=0.5),
                random_parts(rng, 150, 170, 0.05, dtype, index, empty_rows=0.5))
    if case == "one_row":
        return 1, 90, 80, random_parts(rng, 1, 90, 0.3, dtype, index), random_parts(rng, 90, 80, 0.1, dtype, index)
    if case == "one_column":
        return 70, 60, 1, random_parts(rng, 70, 60, 0.1, dtype, index), random_parts(rng, 60, 1, 0.5, dtype, index)
    if case == "one_by_one":
        return 1, 1, 1, random_parts(rng, 1, 1, 1.0, dtype, index), random_parts(rng, 1, 1, 1.0, dtype, index)
    if case == "zero_nnz":
        return 50, 40, 30, random_parts(rng, 50, 40, 0.0, dtype, index), random_parts(rng, 40, 30, 0.1, dtype, index)
    if case == "no_rows":
        return 0, 40, 30, random_parts(rng, 0, 40, 0.1, dtype, index), random_parts(rng, 40, 30, 0.1, dtype, index)
    if case == "duplicates_unsorted":
        kw = dict(duplicates=True, unsorted=True)
        return (150, 120, 140, random_parts(rng, 150, 120, 0.05, dtype, index, **kw),
                random_parts(rng, 120, 140, 0.05, dtype, index, **kw))
    if case == "banded":
        return 500, 500, 500, banded_parts(rng, 500, [-3, 0, 2, 7], dtype, index), banded_parts(
            rng, 500, [-1, 0, 1], dtype, index)
    # power law: a few rows of A and B are long, so rows of C cross every shared bin and some
    # pass the largest shared table (global tables)
    m, k, n = 300, 400, 40000
    return (m, k, n, power_law_parts(rng, m, k, dtype, index, alpha=0.8, cap=k),
            power_law_parts(rng, k, n, dtype, index, alpha=0.6, cap=n))


@pytest.mark.gpu
@pytest.mark.parametrize("case", GPU_CASES)
@pytest.mark.parametrize("index", INDEX_DTYPES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_csrgemm_matches_scipy(rng, case, index, dtype):
    m, k, n, a, b = _gpu_case(rng, case, dtype, index)
    out = _run(a, b, m, k, n)
    ref = _gemm_ref(a, b, (m, k), (k, n))
    assert out[1].dtype == np.dtype(index) and out[2].dtype == np.dtype(dtype)
    assert_csr_equal(out, ref, dtype, k)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_csrgemm_cancellation_leaves_no_stored_zeros(rng, dtype):
    # integer-valued entries cancel exactly in any summation order
    m = 300
    rows = np.repeat(np.arange(m), 2)
    a = from_coo(rng, m, 2, rows, np.tile([0, 1], m), dtype, "int32", data=np.ones(2 * m))
    b = from_coo(rng, 2, 5, [0, 0, 1, 1], [0, 3, 0, 4], dtype, "int32", data=[1.0, 2.0, -1.0, 3.0])
    out = _run(a, b, m, 2, 5)
    ref = _gemm_ref(a, b, (m, 2), (2, 5))
    assert ref.nnz == 2 * m
    assert_csr_equal(out, ref, dtype, 2)


def _colliding(rng, dtype, index, full):
    """Row 0 of C has columns that all hash to one slot of its 32-slot table (multiples of 32):
    31 of them when ``full`` (a nearly full table, the longest probes), else 9; row 1 is short."""
    keys = 31 if full else 9
    b = from_coo(rng, 3, 32 * keys, [0] * keys + [1, 1, 2], list(range(0, 32 * keys, 32)) + [5, 37, 69], dtype,
                 index, unsorted=True)
    a = from_coo(rng, 2, 3, [0, 1, 1], [0, 1, 2], dtype, index)
    return a, b, (2, 3), (3, 32 * keys)


@pytest.mark.parametrize("full", [False, True])
def test_host_colliding_columns(monkeypatch, rng, full):
    spgemm_host.install(monkeypatch)
    a, b, sa, sb = _colliding(rng, "float64", "int32", full)
    assert_csr_equal(rs.csrgemm(sa[0], sa[1], sb[1], *a, *b), _gemm_ref(a, b, sa, sb), "float64", 2)


@pytest.mark.gpu
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("index", INDEX_DTYPES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_csrgemm_colliding_columns(rng, full, index, dtype):
    a, b, sa, sb = _colliding(rng, dtype, index, full)
    assert_csr_equal(_run(a, b, sa[0], sa[1], sb[1]), _gemm_ref(a, b, sa, sb), dtype, 2)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_csrgemm_laplacian_square(dtype):
    a = laplacian_2d_parts(64, dtype, "int32")
    n = 64 * 64
    assert_csr_equal(_run(a, a, n, n, n), _gemm_ref(a, a, (n, n), (n, n)), dtype, 5)


def test_scipy_reference_drops_cancelled_products():
    # the rule the library follows: SciPy's product stores no exact zeros
    z = sp.csr_array(np.array([[1.0, -1.0]])) @ sp.csr_array(np.ones((2, 1)))
    assert z.nnz == 0


def _merge_case(rng, m, k, n, widest, dtype, index, unsorted=False):
    """Rows of A with 0..widest entries (repeats), B rows of 0..12 entries with repeats, sorted
    unless ``unsorted``: merge rows of ``widest`` cursors, a few rows of C across many blocks."""
    a_len = rng.integers(0, widest + 1, m)
    a_rows = np.repeat(np.arange(m), a_len)
    a = from_coo(rng, m, k, a_rows, rng.integers(0, k, a_rows.size), dtype, index, unsorted=True)
    b_len = rng.integers(0, 13, k)
    b_rows = np.repeat(np.arange(k), b_len)
    b = from_coo(rng, k, n, b_rows, rng.integers(0, n, b_rows.size), dtype, index, unsorted=unsorted)
    return a, b


@pytest.mark.gpu
@pytest.mark.parametrize("widest", [5, 8, 20, 32])
@pytest.mark.parametrize("index", INDEX_DTYPES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_csrgemm_merge_rows_match_scipy(rng, widest, index, dtype):
    m, k, n = 20000, 3000, 5000
    a, b = _merge_case(rng, m, k, n, widest, dtype, index)
    out = _run(a, b, m, k, n)
    assert out[1].dtype == np.dtype(index) and out[2].dtype == np.dtype(dtype)
    assert_csr_equal(out, _gemm_ref(a, b, (m, k), (k, n)), dtype, k)


@pytest.mark.gpu
@pytest.mark.parametrize("index", INDEX_DTYPES)
def test_csrgemm_unsorted_b_after_the_merge_count(rng, index):
    m, k, n = 5000, 800, 900
    a, b = _merge_case(rng, m, k, n, 8, "float64", index, unsorted=True)
    assert_csr_equal(_run(a, b, m, k, n), _gemm_ref(a, b, (m, k), (k, n)), "float64", k)


@pytest.mark.gpu
def test_csrgemm_laplacian_square_crosses_many_blocks():
    a = laplacian_2d_parts(300, "float64", "int64")
    n = 300 * 300
    assert_csr_equal(_run(a, a, n, n, n), _gemm_ref(a, a, (n, n), (n, n)), "float64", 5)

