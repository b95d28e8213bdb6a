"""prim histograms (:mod:`rocarray.prim._histogram`): bincount and its pieces, uniform-bin and
edge-array histograms.

CPU tests cover kernel registration, NumPy's binning dtypes, launch sizing, the fast binning
choice, the uniform-bin setup as a plan (keys, read-only edges, the bin bound) and the launch plans
on a recording stand-in device (a warm call builds nothing; weighted calls merge their partials).
GPU tests run the library functions against NumPy (the NumPy-named ``bincount`` and
``histogram`` are tested in ``tests/numpy_api/test_histograms.py``).
"""

import numpy as np
import pytest

from conftest import to_device, to_host
from launchfake import fake_device  # noqa: F401 (fixture)

from rocarray._core import compile as _compile
from rocarray._core import plans
from rocarray.prim import _histogram


# --------------------------------------------------------------------------------------------
# CPU: pure-Python rules
# --------------------------------------------------------------------------------------------

def test_every_instantiation_is_registered():
    names = _compile.registered(_histogram.SOURCE)
    assert names == tuple(_histogram.instantiations())
    assert all(n.startswith("ra_prim_") for n in names)
    assert "ra_prim_bincount<ra_i32>" in names
    assert "ra_prim_histogram_even<float, float>" in names
    assert "ra_prim_histogram_even_weighted<ra_half, float>" in names
    assert len(names) == len(set(names))


def test_even_binning_follows_numpy_dtypes():
    f32, f16 = np.float32, np.float16
    binning = _histogram.even_binning(f32(-1), f32(2), 10, np.dtype(f32))  # autodetected: float32 quotient
    assert binning["cmp"] == np.float32 and binning["q_mode"] == 1 and not binning["sub_half"]
    binning = _histogram.even_binning(-1.0, 2.0, 10, np.dtype(f32))  # Python range: float64 quotient
    assert binning["cmp"] == np.float32 and binning["q_mode"] == 0
    binning = _histogram.even_binning(f16(-1), f16(2), 10, np.dtype(f16))
    assert binning["sub_half"] and binning["q_mode"] == 2
    binning = _histogram.even_binning(np.int32(0), np.int32(9), 10, np.dtype(np.int32))
    assert binning["cmp"] == np.float64 and binning["q_mode"] == 0 and binning["denom"] == 9.0


def test_launch_sizing():
    assert _histogram.grid_size(1 << 28, 4, True, 1000) == 1000
    assert _histogram.grid_size(100, 4, True, 1000) == 1
    assert _histogram.replicas_for(256, False, 32) == 8
    assert _histogram.replicas_for(1024, False, 32) == 8
    assert _histogram.replicas_for(8192, False, 32) == 1
    assert _histogram.replicas_for(100_000, False, 32) == 0
    assert _histogram.replicas_for(1024, True, 64) == 4
    in_shared, grid, rows = _histogram.weighted_layout(256, False, 32, 1000)
    assert (in_shared, grid, rows) == (1, 1000, 1000)
    in_shared, grid, rows = _histogram.weighted_layout(100_000, False, 32, 1000)
    assert in_shared == 0 and rows == grid * 8 and rows * 100_000 <= _histogram.PARTIALS_BUDGET
    assert _histogram.merge_kernel(7, 1000) == ("ra_prim_hist_merge_wide", 7)
    assert _histogram.merge_kernel(7, 3) == ("ra_prim_hist_merge", 1)
    assert _histogram.merge_kernel(100_000, 160) == ("ra_prim_hist_merge", 391)


def test_kernel_binning_takes_the_fast_form_only_where_it_is_exact():
    f32, f16 = np.float32, np.float16
    binning = _histogram.even_binning(-4.0, 4.0, 1024, np.dtype(f32))
    mode, scale = _histogram.kernel_binning(binning, 1024)
    assert mode == _histogram.FAST_Q_MODE and scale == pytest.approx(128.0)
    binning = _histogram.even_binning(f16(-1), f16(2), 10, np.dtype(f16))  # float16 steps: NumPy's own
    assert _histogram.kernel_binning(binning, 10) == (binning["q_mode"], binning["nbins_q"])
    many = _histogram.FAST_MAX_BINS + 1
    binning = _histogram.even_binning(0.0, 1.0, many, np.dtype(np.float64))
    assert _histogram.kernel_binning(binning, many)[0] == binning["q_mode"]
    # float32 edges that collapse (a range narrower than the bins can resolve) are not strictly
    # increasing: the true bin is ambiguous, so NumPy's steps are kept.
    binning = _histogram.even_binning(f32(1), f32(1.0000001), 64, np.dtype(f32))
    assert not _histogram.estimate_is_exact(binning, 64)


def test_even_setup_is_a_plan_keyed_by_endpoint_types_and_zero_signs():
    """The uniform-bin setup keys on the endpoints' types and zero signs, its host edges are
    read-only, and setups of more than EVEN_CACHE_BINS bins are not kept."""
    plans.cache.clear()
    f32 = np.dtype(np.float32)
    neg = _histogram.even_setup(-1.0, -0.0, 8, f32)
    pos = _histogram.even_setup(-1.0, 0.0, 8, f32)
    assert neg is not pos and np.signbit(neg.edges[-1]) and not np.signbit(pos.edges[-1])
    assert _histogram.even_setup(-1.0, 0.0, 8, f32) is pos
    assert plans.cache.get(("prim.histogram_even", (float, -1.0, False), (float, 0.0, False), 8, f32)) is pos
    typed = _histogram.even_setup(np.float32(-1), np.float32(0), 8, f32)  # NumPy scalars: other dtypes
    assert typed is not pos
    for even, rg in ((neg, (-1.0, -0.0)), (typed, (np.float32(-1), np.float32(0)))):
        want = np.histogram_bin_edges(np.zeros(1, f32), 8, rg)
        assert even.edges.dtype == want.dtype
        np.testing.assert_array_equal(even.edges, want)
        assert np.array_equal(np.signbit(even.edges), np.signbit(want))
    assert not pos.edges.flags.writeable
    many = _histogram.EVEN_CACHE_BINS + 1
    assert _histogram.even_setup(0.0, 1.0, many, f32) is not _histogram.even_setup(0.0, 1.0, many, f32)
    plans.cache.clear()


# --------------------------------------------------------------------------------------------
# CPU: plans on a recording stand-in device
# --------------------------------------------------------------------------------------------

def test_a_warm_bincount_builds_nothing(fake_device, monkeypatch):
    x = fake_device.array((100003,), "int32")
    counts, largest, negative = _histogram.bincount_counts(x, 1024)
    assert (counts.shape, largest, negative) == ((1024,), 0, False)
    size = plans.cache.get_curr_size()
    monkeypatch.setattr(_histogram, "_plan", lambda *a: pytest.fail("a warm bincount built a plan"))
    _histogram.bincount_counts(x, 1024)
    assert plans.cache.get_curr_size() == size
    first, second = fake_device.launches
    assert first.name == "ra_prim_bincount<ra_i32>" and first.args[1:4] == second.args[1:4]
    assert (int(first.args[3]), int(first.args[4])) == (1024, _histogram.replicas_for(1024, False, 32))


def test_weighted_histograms_merge_their_partials(fake_device):
    x, w = fake_device.array((5000,), "float32"), fake_device.array((5000,), "float64")
    even = _histogram.even_setup(0.0, 1.0, 3000, np.dtype(np.float32))
    cmp_edges, _ = even.device_edges(0)
    # (histogram_even itself ends in a copy of the edges: a CuPy kernel)
    _histogram._run("histogram_even", even.tname, x, 3000, (cmp_edges.data.ptr,) + even.extra, w, cmp=even.cmp)
    count, merge = fake_device.launches
    assert count.name == "ra_prim_histogram_even_weighted<float, float>"
    assert merge.name.startswith("ra_prim_hist_merge") and merge.args[0] == count.args[-1]
    assert int(count.args[5]) == cmp_edges.data.ptr and count.args[6:12] == even.extra
    assert int(count.args[3]) == w.data.ptr


def test_edge_arrays_are_compared_in_float64(fake_device):
    _histogram.histogram_range(fake_device.array((9000,), "int16"), np.array([0.0, 1.0, 2.5, 9.0]))
    launch = fake_device.launches[-1]
    assert launch.name == "ra_prim_histogram_range<ra_i16, double>" and int(launch.args[4]) == 3


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "int32", "uint64"])
@pytest.mark.parametrize("nbins", [7, 1024, 100_000])
def test_bincount_pieces_match_numpy(dtype, nbins, rng):
    x = rng.integers(0, min(nbins, np.iinfo(dtype).max + 1), 100_003).astype(dtype)
    xr = x.astype(np.int64)  # (numpy.bincount refuses uint64)
    w = rng.standard_normal(x.size)
    dx = to_device(x)
    np.testing.assert_array_equal(to_host(_histogram.bincount(dx, nbins)), np.bincount(xr, minlength=nbins))
    np.testing.assert_allclose(to_host(_histogram.bincount(dx, nbins, to_device(w))),
                               np.bincount(xr, w, minlength=nbins), rtol=1e-12, atol=1e-9)
    assert _histogram.bincount_bounds(dx) == (int(x.max()), False)
    counts, largest, negative = _histogram.bincount_counts(dx[::3], 1024)
    assert (largest, negative) == (int(x[::3].max()), False)
    if largest < 1024:
        np.testing.assert_array_equal(to_host(counts)[:largest + 1], np.bincount(xr[::3]))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "int16"])
def test_histograms_match_numpy(dtype, rng):
    x = (rng.standard_normal(70_001) * 3).astype(dtype)
    hist, edges = _histogram.histogram_even(to_device(x), 65, -4.0, 4.0)
    want, want_edges = np.histogram(x, bins=64, range=(-4.0, 4.0))
    np.testing.assert_array_equal(to_host(hist), want)
    np.testing.assert_array_equal(to_host(edges), want_edges)
    e = np.array([-5.0, -1.0, 0.0, 0.5, 7.0])
    np.testing.assert_array_equal(to_host(_histogram.histogram_range(to_device(x), e)), np.histogram(x, bins=e)[0])
