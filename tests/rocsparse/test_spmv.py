"""rocsparse csrmv and csrmv_analysis against SciPy.

CPU tests: the analysis heuristic on statistics computed on the host from real row-length
patterns (uniform, stencil, power-law, very short rows); ``csrmv`` run on host memory with the
NumPy stand-ins of ``spmv_host`` for every forced strategy, where the split strategy's stand-in
emulates the split and fix-up kernels block by block and asserts each row is written once; the
transposed products (on the CSR of the transpose: kept in the analysis, or converted per call);
and, on the recording fake device, which kernel each strategy launches with which grid, and which
strategy the bench's power-law (split, warp-per-chunk fix-up), uniform and Laplacian matrices take.

GPU tests run the kernels on fresh random data against ``scipy.sparse`` in float64/complex128:
every strategy forced, all four dtypes, both index widths, ``'N'``/``'T'``/``'C'``, alpha/beta with
beta 0 over a NaN y, empty rows, zero nnz, 0/1 shapes, unsorted and duplicate indices, strided x
and y, power-law rows longer than a split chunk, and the bench's power-law rows at a smaller size
(split by default, bitwise the same y on a second run).
"""

import numpy as np
import pytest
import scipy.sparse as sp

import spmv_host
from conftest import tolerance
from hostdev import dev, view
from launchfake import fake_device  # noqa: F401 (the fixture)

from rocarray import rocsparse
from rocarray.rocsparse import _spmv_analysis as _an
from rocarray.rocsparse import _spmv_kernels as _k

ALL = ["float32", "float64", "complex64", "complex128"]
INDEX = ["int32", "int64"]
STRATEGIES = ["scalar", "vector2", "vector4", "vector8", "vector16", "vector32", "split"]


# --------------------------------------------------------------------------------------------
# host matrices
# --------------------------------------------------------------------------------------------

def rand_values(rng, size, dtype):
    dtype = np.dtype(dtype)
    v = rng.standard_normal(size)
    if dtype.kind == "c":
        v = v + 1j * rng.standard_normal(size)
    return v.astype(dtype)


def from_lengths(rng, lengths, n, dtype, index="int32", unsorted=False):
    """A CSR matrix with these row lengths and random columns (duplicates possible)."""
    lengths = np.asarray(lengths, np.int64)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    nnz = int(indptr[-1])
    indices = rng.integers(0, max(n, 1), nnz) if n else np.zeros(0, np.int64)
    if not unsorted:
        rows = np.repeat(np.arange(len(lengths)), lengths)
        indices = indices[np.lexsort((indices, rows))]
    a = sp.csr_matrix((rand_values(rng, nnz, dtype), indices, indptr), shape=(len(lengths), n))
    return with_index(a, index)


def with_index(a, index):
    """``a`` with its index arrays in ``index`` (SciPy's constructor narrows them when they fit)."""
    a.indices, a.indptr = a.indices.astype(index), a.indptr.astype(index)
    return a


def power_law_lengths(rng, m, n, longest):
    """Pareto(1.2) row lengths capped at n, with one row of ``longest`` and some empty rows."""
    lengths = np.minimum(np.floor(rng.pareto(1.2, m) * 2).astype(np.int64), n)
    lengths[rng.integers(0, m)] = longest
    lengths[rng.integers(0, m, max(1, m // 20))] = 0
    return lengths


def stats(a, warp=32):
    m, nnz = a.shape[0], a.indptr[-1]
    return spmv_host.row_stats(m, dev(a.indptr), _an.long_threshold(m, nnz, warp)) if m else (0, 0, 0)


def wide(a):
    return a.astype(np.complex128 if np.dtype(a.dtype).kind == "c" else np.float64)


def reference(a, x, alpha, beta, y, trans):
    aw = wide(a)
    op = aw if trans == "N" else (aw.T if trans == "T" else aw.conj().T)
    r = alpha * (op @ wide(x))
    return r if beta == 0 else r + beta * wide(y)


# --------------------------------------------------------------------------------------------
# CPU: the heuristic
# --------------------------------------------------------------------------------------------

def heuristic_of(a, warp=32):
    longest, long_rows, long_nnz = stats(a, warp)
    return _an.heuristic(a.shape[0], a.indptr[-1], longest, long_rows, long_nnz, warp)


def test_heuristic_uniform_rows_take_a_group_of_half_the_mean_length(rng):
    assert heuristic_of(from_lengths(rng, np.full(20000, 16), 20000, "float32")) == "vector8"
    assert heuristic_of(from_lengths(rng, np.full(20000, 40), 20000, "float32")) == "vector16"
    assert heuristic_of(from_lengths(rng, np.full(20000, 200), 20000, "float32")) == "vector32"
    assert heuristic_of(from_lengths(rng, np.full(20000, 200), 20000, "float32"), warp=64) == "vector64"


def test_heuristic_laplacian_takes_two_lanes():
    k = 64
    t = sp.diags([-1, 2, -1], [-1, 0, 1], shape=(k, k), dtype=np.float64)
    lap = (sp.kron(sp.identity(k), t) + sp.kron(t, sp.identity(k))).tocsr()
    assert heuristic_of(lap) == "vector2"


def test_heuristic_power_law_rows_take_split(rng):
    a = from_lengths(rng, power_law_lengths(rng, 50000, 50000, 30000), 50000, "float32")
    assert heuristic_of(a) == "split"


def test_heuristic_one_long_row_takes_split_only_on_large_matrices(rng):
    lengths = np.full(40000, 4)
    lengths[7] = _an.SPLIT_ROW + 1
    assert heuristic_of(from_lengths(rng, lengths, 40000, "float32")) == "split"
    small = np.full(10, 4)
    small[3] = 600
    assert heuristic_of(from_lengths(rng, small, 1000, "float32")) != "split"


def test_heuristic_very_short_rows_take_a_thread_per_row(rng):
    lengths = rng.integers(0, 3, 30000)
    assert heuristic_of(from_lengths(rng, lengths, 30000, "float32")) == "scalar"
    lengths[5] = 40  # one longer row: a thread would walk it alone
    assert heuristic_of(from_lengths(rng, lengths, 30000, "float32")) == "vector2"


def test_heuristic_empty_matrix_is_scalar():
    assert _an.heuristic(0, 0, 0, 0, 0, 32) == "scalar"
    assert _an.heuristic(100, 0, 0, 0, 0, 32) == "scalar"


def test_strategy_names_and_lanes():
    assert _an.strategies(32) == ("scalar", "vector2", "vector4", "vector8", "vector16", "vector32", "split")
    assert _an.strategies(64)[-2:] == ("vector64", "split")
    for s in _an.strategies(64)[:-1]:
        assert _an.vector_strategy(_an.strategy_lanes(s)) == s
    assert _an.strategy_lanes("split") is None


def test_tuning_key_separates_regular_from_skewed(rng):
    a = from_lengths(rng, np.full(4096, 16), 4096, "float32")
    b = from_lengths(rng, power_law_lengths(rng, 4096, 4096, 3000), 4096, "float32")
    ka = _an.tuning_key(4096, a.indptr[-1], "int32", stats(a)[0], stats(a)[2])
    kb = _an.tuning_key(4096, b.indptr[-1], "int32", stats(b)[0], stats(b)[2])
    assert ka[0] == "int32" and ka != kb and ka[-1] == 0 and kb[-1] > 0


# --------------------------------------------------------------------------------------------
# CPU: csrmv on host memory with the kernel stand-ins
# --------------------------------------------------------------------------------------------

def host_parts(a):
    return dev(a.indptr), dev(a.indices), dev(a.data)


def host_analysis(a, strategy=None):
    an = rocsparse.csrmv_analysis(a.shape[0], a.shape[1], dev(a.indptr), a.indptr[-1])
    return an if strategy is None else an.forced_to(strategy)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", ["power_law", "empty_rows", "duplicates"])
def test_host_forced_strategy_matches_scipy(monkeypatch, rng, strategy, kind):
    spmv_host.install(monkeypatch)
    if kind == "power_law":
        a = from_lengths(rng, power_law_lengths(rng, 900, 900, 3 * _k.CHUNK + 17), 900, "float64")
    elif kind == "empty_rows":
        lengths = rng.integers(0, 30, 700)
        lengths[:40] = 0
        lengths[-60:] = 0
        lengths[300:420] = 0
        a = from_lengths(rng, lengths, 500, "float64")
    else:
        a = from_lengths(rng, rng.integers(0, 50, 400), 30, "float64", unsorted=True)
    ip, ix, d = host_parts(a)
    an = rocsparse.csrmv_analysis(a.shape[0], a.shape[1], ip, a.indptr[-1]).forced_to(strategy)
    x = rand_values(rng, a.shape[1], "float64")
    y0 = rand_values(rng, a.shape[0], "float64")
    y = dev(y0)
    out = rocsparse.csrmv(1.5, a.shape[0], a.shape[1], ip, ix, d, dev(x), -0.5, y, analysis=an)
    assert out is y
    np.testing.assert_allclose(view(y), reference(a, x, 1.5, -0.5, y0, "N"), rtol=1e-12, atol=1e-12)
    assert spmv_host.calls[-1][0] == ("split" if strategy == "split" else "vector")


def test_host_split_chunks_inside_one_long_row(monkeypatch, rng):
    spmv_host.install(monkeypatch)
    lengths = np.array([3, 0, 5 * _k.CHUNK + 100, 0, 0, 2 * _k.CHUNK, 1, _k.CHUNK - 3, 0])
    a = from_lengths(rng, lengths, 50, "float64")
    ip, ix, d = host_parts(a)
    x = rand_values(rng, 50, "float64")
    y = dev(np.full(len(lengths), np.nan))
    rocsparse.csrmv(1.0, a.shape[0], 50, ip, ix, d, dev(x), 0.0, y, analysis=host_analysis(a, "split"))
    np.testing.assert_allclose(view(y), reference(a, x, 1.0, 0, None, "N"), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("trans", ["T", "C"])
@pytest.mark.parametrize("kept", [False, True])
def test_host_transpose_runs_n_on_the_transpose(monkeypatch, rng, trans, kept):
    calls = spmv_host.install(monkeypatch)
    a = from_lengths(rng, rng.integers(0, 12, 300), 200, "complex128", unsorted=True)
    ip, ix, d = host_parts(a)
    an = rocsparse.csrmv_analysis(300, 200, ip, a.indptr[-1]) if kept else None
    for _ in range(2):
        x = rand_values(rng, 300, "complex128")
        y0 = rand_values(rng, 200, "complex128")
        y = dev(y0)
        rocsparse.csrmv(0.5 - 1j, 300, 200, ip, ix, d, dev(x), 2j, y, trans=trans, analysis=an)
        np.testing.assert_allclose(view(y), reference(a, x, 0.5 - 1j, 2j, y0, trans), rtol=1e-12, atol=1e-12)
        assert calls[-1][0] == "vector" and calls[-1][-1] is (trans == "C")  # the conj flag
    names = [c[0] for c in calls]
    # kept: the transpose's structure is made once, each call gathers the values; else converted per call
    assert names.count("csr2csc") == (1 if kept else 2) and names.count("gather") == (2 if kept else 0)


def test_host_transpose_plan_follows_the_values(monkeypatch, rng):
    spmv_host.install(monkeypatch)
    a = from_lengths(rng, rng.integers(0, 7, 80), 60, "float64", unsorted=True)
    ip, ix, d = host_parts(a)
    an = rocsparse.csrmv_analysis(80, 60, ip, a.indptr[-1])
    x = rand_values(rng, 80, "float64")
    rocsparse.csrmv(1.0, 80, 60, ip, ix, d, dev(x), trans="T", analysis=an)
    b = a.copy()
    b.data = rand_values(rng, b.nnz, "float64")  # new values, same structure: the plan still holds
    y = rocsparse.csrmv(1.0, 80, 60, ip, ix, dev(b.data), dev(x), trans="T", analysis=an)
    np.testing.assert_allclose(view(y), reference(b, x, 1.0, 0, None, "T"), rtol=1e-12, atol=1e-12)


def test_host_beta_zero_never_reads_y_and_y_none_allocates(monkeypatch, rng):
    spmv_host.install(monkeypatch)
    a = from_lengths(rng, rng.integers(0, 9, 100), 80, "float64")
    ip, ix, d = host_parts(a)
    x = rand_values(rng, 80, "float64")
    y = dev(np.full(100, np.nan))
    rocsparse.csrmv(2.0, 100, 80, ip, ix, d, dev(x), 0, y)
    np.testing.assert_allclose(view(y), reference(a, x, 2.0, 0, None, "N"), rtol=1e-12, atol=1e-12)
    out = rocsparse.csrmv(2.0, 100, 80, ip, ix, d, dev(x), 7.0, None)
    np.testing.assert_allclose(view(out), reference(a, x, 2.0, 0, None, "N"), rtol=1e-12)


def test_host_strided_vectors(monkeypatch, rng):
    spmv_host.install(monkeypatch)
    a = from_lengths(rng, rng.integers(0, 9, 60), 40, "float64")
    ip, ix, d = host_parts(a)
    xb = rand_values(rng, 120, "float64")
    yb = rand_values(rng, 180, "float64")
    x, y = dev(xb)[::-3], dev(yb)[1::3]
    rocsparse.csrmv(1.0, 60, 40, ip, ix, d, x, 1.0, y)
    np.testing.assert_allclose(view(y), reference(a, xb[::-3], 1.0, 1.0, yb[1::3], "N"), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (4, 4)])
@pytest.mark.parametrize("trans", ["N", "T"])
def test_host_no_stored_elements_scale_y(monkeypatch, shape, trans):
    calls = spmv_host.install(monkeypatch)
    m, n = shape
    a = sp.csr_matrix((m, n))
    ip, ix, d = host_parts(a)
    rows, cols = (m, n) if trans == "N" else (n, m)
    y = dev(np.arange(rows, dtype=np.float64))
    rocsparse.csrmv(1.0, m, n, ip, ix, d, dev(np.ones(cols)), 3.0, y, trans=trans)
    np.testing.assert_array_equal(view(y), 3.0 * np.arange(rows))
    assert all(c[0] in ("scale",) for c in calls) and len(calls) == (1 if rows else 0)


def test_host_analysis_launches_block_starts_for_split_only(monkeypatch, rng):
    calls = spmv_host.install(monkeypatch)
    a = from_lengths(rng, power_law_lengths(rng, 5000, 5000, 20000), 5000, "float32")
    an = rocsparse.csrmv_analysis(5000, 5000, dev(a.indptr), a.indptr[-1])
    assert an.strategy == "split" and [c[0] for c in calls] == ["row_stats", "block_starts"]
    calls.clear()
    b = from_lengths(rng, np.full(5000, 8), 5000, "float32")
    an = rocsparse.csrmv_analysis(5000, 5000, dev(b.indptr), b.indptr[-1])
    assert an.strategy == "vector4" and [c[0] for c in calls] == ["row_stats"]
    assert an.longest == 8 and an.long_rows == 0


def test_host_tuning_measures_once_and_stores_the_winner_by_key(monkeypatch, rng, tmp_path):
    from rocarray._core import tuning
    from rocarray.rocsparse import _spmv

    calls = spmv_host.install(monkeypatch)
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("ROCARRAY_TUNE", "1")
    monkeypatch.setattr(tuning, "_device_arch", lambda: "sm_90")
    timed = []

    def fake_measure(analysis, indptr, indices, data, x, incx):
        def measure(strategy):
            timed.append(strategy)
            return 1.0 if strategy != "vector32" else 0.5
        return measure

    monkeypatch.setattr(_spmv, "_measure", fake_measure)
    a = from_lengths(rng, np.full(300, 16), 300, "float64")
    ip, ix, d = host_parts(a)
    an = rocsparse.csrmv_analysis(300, 300, ip, a.indptr[-1])
    x = rand_values(rng, 300, "float64")
    for _ in range(2):
        y = rocsparse.csrmv(1.0, 300, 300, ip, ix, d, dev(x), analysis=an)
        assert calls[-1][:2] == ("vector", 32)
    np.testing.assert_allclose(view(y), a @ x, rtol=1e-12, atol=1e-12)
    assert sorted(timed) == sorted(_an.strategies(32))  # measured once, every candidate
    (key,) = tuning._read_file(tuning.db_path("sm_90")).keys()
    assert key.startswith("rocsparse.csrmv|" + "|".join(map(str, an.key)) + "|float64|N|src=")
    tuning.clear_cache()


def test_forced_to_rejects_unknown_and_empty_split():
    an = _an.CsrmvAnalysis(3, 3, 0, np.dtype("int32"), 0, 0, 0, "scalar", ())
    with pytest.raises(ValueError):
        an.forced_to("split")
    with pytest.raises(ValueError):
        an.forced_to("vector3")
    assert an.forced_to("vector8").forced and not an.forced


# --------------------------------------------------------------------------------------------
# CPU: launches on the recording fake device
# --------------------------------------------------------------------------------------------

def fake_csr(fake_device, a):
    return (fake_device.array(a.indptr.shape, a.indptr.dtype, a.indptr),
            fake_device.array(a.indices.shape, a.indices.dtype, a.indices),
            fake_device.array(a.data.shape, a.data.dtype, a.data))


def test_launch_vector_grid_and_flags(fake_device, monkeypatch, rng):
    monkeypatch.setenv("ROCARRAY_TUNE", "0")
    a = from_lengths(rng, np.full(1000, 16), 1000, "float32")
    ip, ix, d = fake_csr(fake_device, a)
    x = fake_device.array((1000,), "float32")
    rocsparse.csrmv(1.0, 1000, 1000, ip, ix, d, x)
    stats_launch, launch = fake_device.launches
    assert stats_launch.name == "ra_rocsparse_csrmv_stats<int>" and stats_launch.grid == (1, 1, 1)
    # the fake's statistics are zeros: the heuristic sees the mean alone
    assert launch.name == "ra_rocsparse_csrmv_vector<float, int, 8>"
    assert launch.grid == (-(-1000 // 32), 1, 1) and launch.block == (256, 1, 1)
    assert int(launch.args[-2]) == 1 and int(launch.args[-1]) == 0  # beta_zero, conj


@pytest.mark.parametrize("strategy,lanes", [("scalar", 1), ("vector2", 2), ("vector32", 32)])
def test_launch_forced_vector_strategies(fake_device, strategy, lanes, rng):
    a = from_lengths(rng, rng.integers(0, 5, 3000), 3000, "float64", index="int64")
    ip, ix, d = fake_csr(fake_device, a)
    an = rocsparse.csrmv_analysis(3000, 3000, ip, a.indptr[-1]).forced_to(strategy)
    fake_device.launches.clear()
    rocsparse.csrmv(1.0, 3000, 3000, ip, ix, d, fake_device.array((3000,), "float64"), analysis=an)
    (launch,) = fake_device.launches
    assert launch.name == f"ra_rocsparse_csrmv_vector<double, long long, {lanes}>"
    assert launch.grid[0] == -(-3000 // (256 // lanes))


def test_launch_split_then_fixup(fake_device, rng):
    a = from_lengths(rng, np.full(1000, 10), 1000, "complex64")
    ip, ix, d = fake_csr(fake_device, a)
    an = rocsparse.csrmv_analysis(1000, 1000, ip, 10000).forced_to("split")
    fake_device.launches.clear()
    rocsparse.csrmv(1.0, 1000, 1000, ip, ix, d, fake_device.array((1000,), "complex64"), analysis=an)
    names = fake_device.names()
    assert names == ["ra_rocsparse_csrmv_blocks<int>", "ra_rocsparse_csrmv_split<ra_c64, int>",
                     "ra_rocsparse_csrmv_fixup<ra_c64, int>"]
    blocks = -(-10000 // _k.CHUNK)
    assert fake_device.launches[1].grid == (blocks, 1, 1) and fake_device.launches[0].grid == (1, 1, 1)


def route(fake_device, monkeypatch, lengths, index="int32"):
    """The launches of ``csrmv`` (no analysis kept, tuning off) on a float32 square matrix of these
    row lengths, the analysis seeing the lengths' real statistics."""
    monkeypatch.setenv("ROCARRAY_TUNE", "0")
    lengths = np.asarray(lengths, np.int64)

    def row_stats(m, indptr, threshold):
        long = lengths > threshold
        return int(lengths.max(initial=0)), int(long.sum()), int(lengths[long].sum())

    monkeypatch.setattr(_k, "row_stats", row_stats)
    m, nnz = lengths.size, int(lengths.sum())
    ip = fake_device.array((m + 1,), index, np.concatenate([[0], np.cumsum(lengths)]).astype(index))
    ix, d = fake_device.array((nnz,), index), fake_device.array((nnz,), "float32")
    rocsparse.csrmv(1.0, m, m, ip, ix, d, fake_device.array((m,), "float32"))
    return fake_device.launches


@pytest.mark.parametrize("index,ctype", [("int32", "int"), ("int64", "long long")])
def test_route_bench_power_law_takes_split_and_warp_fixup(fake_device, monkeypatch, index, ctype):
    from rocarray._checks.rocsparse_spmv import power_law_lengths as bench_lengths

    lengths = bench_lengths(200_000)  # the bench's Pareto(1.2) rows, 20x fewer
    launches = route(fake_device, monkeypatch, lengths, index)
    assert [launch.name for launch in launches] == [
        f"ra_rocsparse_csrmv_blocks<{ctype}>", f"ra_rocsparse_csrmv_split<float, {ctype}>",
        f"ra_rocsparse_csrmv_fixup<float, {ctype}>"]
    blocks = -(-int(lengths.sum()) // _k.CHUNK)
    assert launches[1].grid == (blocks, 1, 1) and launches[1].block == (256, 1, 1)
    assert launches[2].grid == (-(-blocks // (256 // 32)), 1, 1)  # a warp per chunk


def test_route_uniform_and_laplacian_keep_their_vector_kernels(fake_device, monkeypatch):
    (launch,) = route(fake_device, monkeypatch, np.full(100_000, 16))
    assert launch.name == "ra_rocsparse_csrmv_vector<float, int, 8>"
    fake_device.launches.clear()
    k = 300
    t = sp.diags([-1, 2, -1], [-1, 0, 1], shape=(k, k), dtype=np.float64)
    lap = (sp.kron(sp.identity(k), t) + sp.kron(t, sp.identity(k))).tocsr()
    (launch,) = route(fake_device, monkeypatch, np.diff(lap.indptr))
    assert launch.name == "ra_rocsparse_csrmv_vector<float, int, 2>"


def test_launch_stats_grid_is_capped(fake_device):
    m = 3_000_000  # past STATS_GRID blocks of 1024 rows
    indptr = fake_device.array((m + 1,), "int64")
    _k.row_stats(m, indptr, 100)
    assert fake_device.launches[-1].grid == (_k.STATS_GRID, 1, 1)


def test_every_launched_name_is_registered():
    from rocarray._core import compile as _compile

    names = set(_compile.registered(_k.SPMV))
    for d in ALL:
        for i in INDEX:
            for g in _k.VECTOR_LANES:
                assert _k.vector_name(d, i, g) in names
            for k in ("csrmv_split", "csrmv_fixup"):
                assert _k.value_name(k, d, i) in names


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

def gpu_parts(a):
    import cupy

    return cupy.asarray(a.indptr), cupy.asarray(a.indices), cupy.asarray(a.data)


def check(a, strategy, dtype, trans, rng, alpha=1.5, beta=-0.5, nan_y=False, strided=False, keep=True):
    import cupy

    m, n = a.shape
    ip, ix, d = gpu_parts(a)
    an = rocsparse.csrmv_analysis(m, n, ip, a.indptr[-1]) if keep else None
    if strategy is not None and (strategy != "split" or a.nnz):
        an = an.forced_to(strategy)
    rows, cols = (m, n) if trans == "N" else (n, m)
    x = rand_values(rng, cols * (2 if strided else 1), dtype)
    y0 = np.full(rows * (3 if strided else 1), np.nan, dtype) if nan_y else rand_values(rng, rows * (3 if strided else 1), dtype)
    xd, yd = cupy.asarray(x), cupy.asarray(y0)
    if strided:
        x, y0, xd, yd = x[::-2], y0[::3], xd[::-2], yd[::3]
    beta = 0 if nan_y else beta
    out = rocsparse.csrmv(alpha, m, n, ip, ix, d, xd, beta, yd, trans=trans, analysis=an)
    want = reference(a, x, alpha, beta, y0, trans)
    longest = max(int(np.diff(a.indptr).max(initial=0)), 1)
    scale = max(float(np.abs(want).max(initial=0)), 1.0)
    np.testing.assert_allclose(cupy.asnumpy(out), want, rtol=tolerance(dtype, longest),
                               atol=tolerance(dtype, longest) * scale)


@pytest.mark.gpu
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("index", INDEX)
def test_gpu_strategies_match_scipy(strategy, dtype, index, rng):
    lengths = power_law_lengths(rng, 3000, 3000, 3 * _k.CHUNK + 5)
    a = from_lengths(rng, lengths, 3000, dtype, index=index, unsorted=True)
    check(a, strategy, dtype, "N", rng)
    check(a, strategy, dtype, "N", rng, nan_y=True)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["T", "C"])
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("kept", [False, True])
def test_gpu_transpose_matches_scipy(trans, dtype, kept, rng):
    a = from_lengths(rng, rng.integers(0, 40, 2000), 1500, dtype, index="int64", unsorted=True)
    check(a, None, dtype, trans, rng, alpha=0.75, beta=2.0, keep=kept)
    check(a, None, dtype, trans, rng, nan_y=True, strided=True, keep=kept)


@pytest.mark.gpu
@pytest.mark.parametrize("density", [1e-4, 1e-2, 0.1])
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_gpu_random_densities_default_strategy(density, dtype, rng):
    a = sp.random(1500, 1200, density=density, format="csr", random_state=rng, dtype=np.float64)
    a = sp.csr_matrix((rand_values(rng, a.nnz, dtype), a.indices, a.indptr), shape=a.shape)
    check(a, None, dtype, "N", rng, strided=True)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(0, 0), (0, 7), (7, 0), (1, 1), (1, 50), (50, 1)])
@pytest.mark.parametrize("trans", ["N", "T", "C"])
def test_gpu_small_and_empty_shapes(shape, trans, rng):
    a = sp.random(*shape, density=0.5, format="csr", random_state=rng, dtype=np.float64)
    check(a, None, "float64", trans, rng)
    check(sp.csr_matrix(shape, dtype=np.complex64), None, "complex64", trans, rng, nan_y=True)


@pytest.mark.gpu
def test_gpu_banded_and_large_power_law(rng):
    k = 200
    t = sp.diags([-1, 2, -1], [-1, 0, 1], shape=(k, k), dtype=np.float64)
    lap = (sp.kron(sp.identity(k), t) + sp.kron(t, sp.identity(k))).tocsr().astype(np.float32)
    check(lap, None, "float32", "N", rng)
    big = from_lengths(rng, power_law_lengths(rng, 200_000, 200_000, 50 * _k.CHUNK), 200_000, "float32")
    for strategy in (None, "split", "vector32"):
        check(big, strategy, "float32", "N", rng)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype,index", [("float32", "int32"), ("complex128", "int64")])
def test_gpu_bench_power_law_split_is_deterministic(dtype, index, rng):
    import cupy

    from rocarray._checks.rocsparse_spmv import power_law_lengths as bench_lengths

    lengths = bench_lengths(300_000, seed=int(rng.integers(1 << 30)))  # rows across > 64 chunks
    a = from_lengths(rng, lengths, 300_000, dtype, index=index)
    check(a, None, dtype, "N", rng, nan_y=True)
    ip, ix, d = gpu_parts(a)
    an = rocsparse.csrmv_analysis(*a.shape, ip, a.nnz)
    assert an.strategy == "split"
    x = cupy.asarray(rand_values(rng, a.shape[1], dtype))
    first = rocsparse.csrmv(1.0, *a.shape, ip, ix, d, x, analysis=an)
    again = rocsparse.csrmv(1.0, *a.shape, ip, ix, d, x, analysis=an)
    assert bool((first == again).all())
