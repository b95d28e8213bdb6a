"""The NumPy-named ra.bincount and ra.histogram (``rocarray/_numpy/histograms.py``) against NumPy.

GPU tests (``@pytest.mark.gpu``) run on fresh random data of sizes that cross warp, block and
16-byte-pack boundaries, with bin counts that take the shared-memory path (1..1024) and the
global-atomic path (100000), and compare with NumPy: counts exactly, weighted sums to rounding,
bin edges exactly, also at 2^28 elements (``slow``). CPU tests cover NumPy's edge and dtype rules
(against ``numpy.histogram_bin_edges``) and every argument error, raised before anything reaches
the device (on fake device arrays that are never launched on).
"""

import numpy as np
import pytest

import large
from rocarray.prim import _histogram
from rocarray._numpy import histograms as api

from conftest import fake, to_device, to_host

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")

INT_DTYPES = ["bool", "uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64"]
DATA_DTYPES = ["float16", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
               "uint64"]
SIZES = [0, 1, 31, 32, 33, 63, 64, 65, 1_000_003, 1 << 24]
NBINS = [1, 7, 256, 1024, 100_000]


def random_bins_data(rng, n, nbins, dtype):
    """Random non-negative integers below nbins (bool: 0/1) of dtype."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(n) < 0.5
    high = min(nbins, np.iinfo(dtype).max + 1)
    return rng.integers(0, high, size=n).astype(dtype)


def random_floats(rng, n, dtype, scale=3.0):
    return (rng.standard_normal(n) * scale).astype(dtype)


def assert_equal_exact(got, want):
    got = to_host(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got, want)


def assert_weighted(got, want, n):
    got = to_host(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    eps = np.finfo(want.dtype).eps if want.dtype.kind in "fc" else 2.0**-52
    scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
    np.testing.assert_allclose(got, want, rtol=16 * eps * np.sqrt(max(n, 1)), atol=16 * eps * scale * np.sqrt(max(n, 1)))


# --------------------------------------------------------------------------------------------
# GPU: bincount
# --------------------------------------------------------------------------------------------

def size_cases(first, others):
    """``(n, dtype)``: ``first`` over every size, ``others`` over the sizes up to a million."""
    return [(n, first) for n in SIZES] + [(n, d) for d in others for n in SIZES if n <= 1_000_003]


@pytest.mark.gpu
@pytest.mark.parametrize("n, dtype", size_cases("int32", ["uint8", "int64"]))
@pytest.mark.parametrize("nbins", NBINS)
def test_bincount_matches_numpy(n, nbins, dtype, rng):
    x = random_bins_data(rng, n, nbins, dtype)
    assert_equal_exact(api.bincount(to_device(x)), np.bincount(x))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("n", [0, 33, 65, 1_000_003])
def test_bincount_every_integer_dtype(dtype, n, rng):
    x = random_bins_data(rng, n, 200, dtype)
    assert_equal_exact(api.bincount(to_device(x)), np.bincount(x))
    assert_equal_exact(api.bincount(to_device(x), minlength=300), np.bincount(x, minlength=300))


@pytest.mark.gpu
@pytest.mark.parametrize("wdtype", ["float32", "float64", "int32", "int64", "bool"])
@pytest.mark.parametrize("nbins", [7, 1024, 100_000])
def test_bincount_weights(wdtype, nbins, rng):
    n = 100_003
    x = random_bins_data(rng, n, nbins, np.int64)
    w = random_floats(rng, n, wdtype) if wdtype.startswith("float") else random_bins_data(rng, n, 50, wdtype)
    assert_weighted(api.bincount(to_device(x), weights=to_device(w)), np.bincount(x, weights=w), n)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [0, 1, 65, 5000])
def test_bincount_minlength(n, rng):
    x = random_bins_data(rng, n, 10, np.int16)
    for minlength in (0, 1, 5, 10, 11, 1000):
        assert_equal_exact(api.bincount(to_device(x), minlength=minlength), np.bincount(x, minlength=minlength))
    w = rng.standard_normal(n)
    assert_weighted(api.bincount(to_device(x), weights=to_device(w), minlength=20),
                    np.bincount(x, weights=w, minlength=20), n)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_bincount_negative_is_value_error(dtype, rng):
    x = random_bins_data(rng, 100_000, 100, dtype)
    x[rng.integers(0, x.size)] = -1
    with pytest.raises(ValueError, match="'list' argument must have no negative elements"):
        np.bincount(x)
    with pytest.raises(ValueError, match="'list' argument must have no negative elements"):
        api.bincount(to_device(x))


@pytest.mark.gpu
def test_bincount_non_contiguous(rng):
    x = random_bins_data(rng, 200_001, 300, np.int32)
    w = rng.standard_normal(x.size)
    for sl in (slice(None, None, 3), slice(None, None, -1), slice(1, None, 2)):
        assert_equal_exact(api.bincount(to_device(x)[sl]), np.bincount(x[sl]))
        assert_weighted(api.bincount(to_device(x)[sl], weights=to_device(w)[sl]),
                        np.bincount(x[sl], weights=w[sl]), x.size)


@pytest.mark.gpu
@pytest.mark.parametrize("nbins", [7, 1024, 100_000])
def test_bincount_weighted_is_deterministic(nbins, rng):
    n = 1_000_003
    x = to_device(random_bins_data(rng, n, nbins, np.int32))
    w = to_device(rng.standard_normal(n) * 1e3)
    first = to_host(api.bincount(x, weights=w))
    for _ in range(2):
        again = to_host(api.bincount(x, weights=w))
        assert first.tobytes() == again.tobytes()


@pytest.mark.gpu
def test_bincount_errors_like_numpy():
    with pytest.raises(TypeError, match="according to the rule 'safe'"):
        api.bincount(to_device(np.ones(3)))
    with pytest.raises(TypeError, match="according to the rule 'safe'"):
        api.bincount(to_device(np.arange(3)), weights=to_device(np.ones(3, np.complex128)))
    with pytest.raises(TypeError, match="host"):
        api.bincount(np.arange(3))


# --------------------------------------------------------------------------------------------
# GPU: histogram
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("n, dtype", size_cases("float32", ["float64", "int32"]))
@pytest.mark.parametrize("nbins", NBINS)
def test_histogram_int_bins_matches_numpy(n, nbins, dtype, rng):
    a = random_floats(rng, n, dtype)
    hist, edges = api.histogram(to_device(a), bins=nbins)
    want, want_edges = np.histogram(a, bins=nbins)
    assert_equal_exact(hist, want)
    assert_equal_exact(edges, want_edges)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DATA_DTYPES)
@pytest.mark.parametrize("nbins", [1, 7, 256, 1024])
def test_histogram_dtypes(dtype, nbins, rng):
    n = 100_003
    a = random_floats(rng, n, dtype, 20.0) if dtype.startswith("float") else \
        rng.integers(max(np.iinfo(dtype).min, -100), 100, size=n, endpoint=True).astype(dtype)
    for kwargs in ({}, {"range": (-7.5, 12.25)}, {"range": (-3, 40)}):
        hist, edges = api.histogram(to_device(a), bins=nbins, **kwargs)
        want, want_edges = np.histogram(a, bins=nbins, **kwargs)
        assert_equal_exact(hist, want)
        assert_equal_exact(edges, want_edges)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "float16"])
def test_histogram_values_exactly_on_edges(dtype, rng):
    # Integer data with integer-valued edges: every value sits on an edge.
    a = rng.integers(0, 101, size=300_007).astype(dtype)
    for bins, rg in ((10, (0, 100)), (100, (0, 100)), (50, None), (25, (0.0, 100.0)), (7, (1, 99))):
        hist, edges = api.histogram(to_device(a), bins=bins, range=rg)
        want, want_edges = np.histogram(a, bins=bins, range=rg)
        assert_equal_exact(hist, want)
        assert_equal_exact(edges, want_edges)


@pytest.mark.gpu
def test_histogram_edges_at_one_ulp(rng):
    # Values at and one ulp around every edge exercise NumPy's index fix-ups.
    for dtype in (np.float32, np.float64):
        edges = np.linspace(-1.3, 2.9, 1025, dtype=dtype)
        a = np.concatenate([edges, np.nextafter(edges, -np.inf), np.nextafter(edges, np.inf)]).astype(dtype)
        a = a[rng.permutation(a.size)]
        for rg in (None, (-1.3, 2.9)):
            hist, e = api.histogram(to_device(a), bins=1024, range=rg)
            want, want_e = np.histogram(a, bins=1024, range=rg)
            assert_equal_exact(hist, want)
            assert_equal_exact(e, want_e)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [0, 1, 33, 1_000_003])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "float16"])
def test_histogram_explicit_edges(n, dtype, rng):
    a = random_floats(rng, n, dtype) if dtype.startswith("float") else rng.integers(-5, 6, size=n).astype(dtype)
    edges = np.sort(rng.standard_normal(20) * 2)
    edges[5] = edges[6]  # an empty bin of zero width
    for bins in (edges, list(edges), np.array([-5, -1, 0, 0, 2, 5]), (-2.5, 0.0, 0.1, 3)):
        hist, e = api.histogram(to_device(a), bins=bins)
        want, want_e = np.histogram(a, bins=bins)
        assert_equal_exact(hist, want)
        assert_equal_exact(e, want_e)
    hist, _ = api.histogram(to_device(a), bins=to_device(edges))
    assert_equal_exact(hist, np.histogram(a, bins=edges)[0])


@pytest.mark.gpu
@pytest.mark.parametrize("wdtype", ["float32", "float64", "int64", "complex128"])
@pytest.mark.parametrize("nbins", [7, 1024, 100_000])
def test_histogram_weights(wdtype, nbins, rng):
    n = 200_003
    a = random_floats(rng, n, np.float64)
    if wdtype == "complex128":
        w = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(wdtype)
    elif wdtype.startswith("float"):
        w = random_floats(rng, n, wdtype, 1.0)
    else:
        w = rng.integers(-10, 10, size=n).astype(wdtype)
    hist, edges = api.histogram(to_device(a), bins=nbins, weights=to_device(w))
    want, want_edges = np.histogram(a, bins=nbins, weights=w)
    assert_weighted(hist, want, n)
    assert_equal_exact(edges, want_edges)
    ed = np.sort(rng.standard_normal(30))
    hist, _ = api.histogram(to_device(a), bins=ed, weights=to_device(w))
    assert_weighted(hist, np.histogram(a, bins=ed, weights=w)[0], n)


@pytest.mark.gpu
def test_histogram_weighted_is_deterministic(rng):
    a = to_device(random_floats(rng, 1_000_003, np.float32))
    w = to_device(rng.standard_normal(1_000_003) * 1e3)
    for bins in (256, 100_000):
        first = to_host(api.histogram(a, bins=bins, weights=w)[0])
        again = to_host(api.histogram(a, bins=bins, weights=w)[0])
        assert first.tobytes() == again.tobytes()


@pytest.mark.gpu
@pytest.mark.parametrize("weighted", [False, True])
def test_histogram_density(weighted, rng):
    a = random_floats(rng, 10_007, np.float32)
    w = rng.random(a.size) if weighted else None
    for bins in (13, np.array([-3.0, -1, 0, 0.5, 4])):
        got, e = api.histogram(to_device(a), bins=bins, density=True,
                               weights=None if w is None else to_device(w))
        want, want_e = np.histogram(a, bins=bins, density=True, weights=w)
        assert_weighted(got, want, a.size)
        assert_equal_exact(e, want_e)


@pytest.mark.gpu
def test_histogram_non_contiguous_and_2d(rng):
    a = random_floats(rng, (300, 701), np.float32)
    d = to_device(a)
    views = [(a, d), (a[:, ::3], d[:, ::3]), (a[::-1], d[::-1]), (a.T, d.T)]
    flat = a.ravel()
    views += [(flat[::5], d.ravel()[::5]), (flat[::-2], d.ravel()[::-2])]
    for host_view, device_view in views:
        for bins in (64, np.array([-2.0, -0.5, 0.0, 0.25, 3.0])):
            hist, e = api.histogram(device_view, bins=bins)
            want, want_e = np.histogram(host_view, bins=bins)
            assert_equal_exact(hist, want)
            assert_equal_exact(e, want_e)


@pytest.mark.gpu
def test_histogram_nan_handling(rng):
    a = random_floats(rng, 1000, np.float64)
    a[::17] = np.nan
    with pytest.raises(ValueError, match="autodetected range of"):
        api.histogram(to_device(a))
    hist, e = api.histogram(to_device(a), bins=10, range=(-1, 1))
    want, want_e = np.histogram(a, bins=10, range=(-1, 1))
    assert_equal_exact(hist, want)
    hist, _ = api.histogram(to_device(a), bins=np.array([-1.0, 0.0, 1.0]))
    assert_equal_exact(hist, np.histogram(a, bins=np.array([-1.0, 0.0, 1.0]))[0])


@pytest.mark.gpu
def test_histogram_bool_and_constant(rng):
    b = rng.random(1000) < 0.3
    with pytest.warns(RuntimeWarning):
        got = api.histogram(to_device(b))
    with pytest.warns(RuntimeWarning):
        want = np.histogram(b)
    assert_equal_exact(got[0], want[0])
    c = np.full(100, 3.0, np.float32)
    assert_equal_exact(api.histogram(to_device(c))[0], np.histogram(c)[0])
    assert_equal_exact(api.histogram(to_device(c))[1], np.histogram(c)[1])


@pytest.mark.gpu
def test_histogram_host_data_is_type_error():
    with pytest.raises(TypeError, match="host"):
        api.histogram(np.arange(3.0))
    with pytest.raises(TypeError, match="host"):
        api.histogram(to_device(np.arange(3.0)), weights=np.ones(3))


# --------------------------------------------------------------------------------------------
# CPU: pure-Python layer
# --------------------------------------------------------------------------------------------

@pytest.fixture
def no_launch(monkeypatch):
    """Fail (instead of launching on fake memory) if anything reaches a kernel or the device."""

    def refuse(*args, **kwargs):
        raise AssertionError("the device was reached")

    for name in ("_run", "bincount_bounds", "bincount_counts", "bincount", "histogram_even", "histogram_range"):
        monkeypatch.setattr(_histogram, name, refuse)
    monkeypatch.setattr(api, "_minmax", lambda a: refuse)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "uint16", "int32", "uint64", "int64"])
@pytest.mark.parametrize("nbins", [1, 7, 1024])
def test_even_edges_match_numpy(dtype, nbins):
    rng = np.random.default_rng(nbins)
    a = (rng.standard_normal(1000) * 50).astype(dtype) if dtype[0] == "f" else \
        rng.integers(0, 100, 1000).astype(dtype)
    for rg in (None, (-7.5, 12.25), (0, 10), (3, 3)):
        first, last = api.outer_edges(rg, lambda: (a.min(), a.max()), a.size)
        got = _histogram.even_edges(first, last, nbins, a.dtype)
        try:
            want = np.histogram_bin_edges(a, bins=nbins, range=rg)
        except ValueError as exc:  # NumPy: too many bins for a float16 range
            with pytest.raises(ValueError, match=str(exc)):
                api.check_uniform_edges(got, nbins)
            continue
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_outer_edges_errors_like_numpy():
    with pytest.raises(ValueError, match="max must be larger than min in range parameter."):
        api.outer_edges((2, 1))
    with pytest.raises(ValueError, match=r"supplied range of \[0, inf\] is not finite"):
        api.outer_edges((0, np.inf))
    with pytest.raises(ValueError, match="autodetected range of"):
        api.outer_edges(None, lambda: (np.float64(np.nan), np.float64(np.nan)), 3)
    assert api.outer_edges(None, None, 0) == (0, 1)
    assert api.outer_edges((1, 1)) == (0.5, 1.5)


def test_bins_argument_errors_like_numpy():
    with pytest.raises(ValueError, match="`bins` must be positive, when an integer"):
        api.bin_count_arg(0)
    with pytest.raises(TypeError, match="`bins` must be an integer, a string, or an array"):
        api.bin_count_arg(2.5)
    with pytest.raises(ValueError, match="`bins` must increase monotonically, when an array"):
        api.edges_arg([1, 0])
    with pytest.raises(ValueError, match="`bins` must be 1d, when an array"):
        api.edges_arg(np.ones((2, 2)))
    with pytest.raises(ValueError, match="Too many bins for data range"):
        api.check_uniform_edges(_histogram.even_edges(1.0, 1.0 + 1e-15, 100, np.dtype(np.float64)), 100)


@needs_cupy
def test_bincount_argument_errors(no_launch):
    with pytest.raises(TypeError, match=r"Cannot cast array data from dtype\('float64'\) to dtype\('int64'\)"):
        api.bincount(fake((3,), np.float64))
    with pytest.raises(ValueError, match="object too deep for desired array"):
        api.bincount(fake((2, 2), np.int64))
    with pytest.raises(ValueError, match="object of too small depth for desired array"):
        api.bincount(fake((), np.int64))
    with pytest.raises(ValueError, match="'minlength' must not be negative"):
        api.bincount(fake((3,), np.int64), minlength=-1)
    with pytest.raises(TypeError):
        api.bincount(fake((3,), np.int64), minlength=1.5)
    with pytest.raises(TypeError, match=r"dtype\('complex128'\) to dtype\('float64'\)"):
        api.bincount(fake((3,), np.int64), weights=fake((3,), np.complex128))
    with pytest.raises(ValueError, match="The weights and list don't have the same length."):
        api.bincount(fake((3,), np.int64), weights=fake((4,), np.float64))
    with pytest.raises(TypeError, match="host"):
        api.bincount(np.arange(3))
    with pytest.raises(TypeError, match="host"):
        api.bincount(fake((3,), np.int64), weights=np.ones(3))


@needs_cupy
def test_histogram_argument_errors(no_launch):
    a = fake((10,), np.float32)
    with pytest.raises(TypeError, match="host"):
        api.histogram(np.ones(3))
    with pytest.raises(ValueError, match="weights should have the same shape as a."):
        api.histogram(a, weights=fake((9,), np.float32))
    with pytest.raises(ValueError, match="`bins` must be positive"):
        api.histogram(a, bins=0, range=(0, 1))
    with pytest.raises(TypeError, match="`bins` must be an integer"):
        api.histogram(a, bins=2.5, range=(0, 1))
    with pytest.raises(ValueError, match="monotonically"):
        api.histogram(a, bins=[3, 1, 2])
    with pytest.raises(ValueError, match="max must be larger than min"):
        api.histogram(a, bins=4, range=(1, 0))
    with pytest.raises(ValueError, match="not finite"):
        api.histogram(a, bins=4, range=(0, np.nan))
    with pytest.raises(TypeError, match="unsupported dtype"):
        api.histogram(fake((10,), np.complex64), bins=4, range=(0, 1))
    with pytest.raises(NotImplementedError):
        api.histogram(a, bins="auto")


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
@pytest.mark.parametrize("bins", [1, 7, 1024, 4099])
def test_fast_binning_matches_numpy_on_edges_and_neighbours(rng, dtype, bins):
    """Values on every edge and one ulp either side: where an estimate would be off by one.

    Subnormal neighbours of a 0.0 edge are left out: float32 kernels flush them to zero (CuPy's
    -ftz=true, documented), so they land in the bin of 0.0 where NumPy keeps their sign.
    """
    lo, hi = -3.0, 5.0
    if np.dtype(dtype).kind in "iu":
        lo, hi = 0.0, 200.0
        x = rng.integers(0, 201, 100_003).astype(dtype)
    else:
        edges = np.linspace(lo, hi, bins + 1).astype(dtype)
        x = np.concatenate([edges, np.nextafter(edges, -np.inf), np.nextafter(edges, np.inf),
                            rng.uniform(lo - 1, hi + 1, 100_003).astype(dtype)]).astype(dtype)
        x = x[(x == 0) | (np.abs(x) >= np.finfo(dtype).tiny)]
    got, got_edges = api.histogram(to_device(x), bins=bins, range=(lo, hi))
    want, want_edges = np.histogram(x, bins=bins, range=(lo, hi))
    np.testing.assert_array_equal(to_host(got), want)
    np.testing.assert_array_equal(to_host(got_edges), want_edges)


@pytest.mark.gpu
def test_histogram_edges_are_fresh_copies(rng):
    """Edges come from a per-(range, bins, dtype) device cache: each call returns its own copy."""
    x = rng.standard_normal(10_001).astype(np.float32)
    d = to_device(x)
    want_hist, want_edges = np.histogram(x, bins=1024, range=(-4.0, 4.0))
    _, e1 = api.histogram(d, bins=1024, range=(-4.0, 4.0))
    e1[...] = 7  # a user write must not reach the cache
    hist, e2 = api.histogram(d, bins=1024, range=(-4.0, 4.0))
    np.testing.assert_array_equal(to_host(hist), want_hist)
    np.testing.assert_array_equal(to_host(e2), want_edges)
    assert e2.data.ptr != e1.data.ptr


@pytest.mark.gpu
@pytest.mark.slow
def test_bincount_and_histogram_2_28():
    x, d = large.floats()
    rng = np.random.default_rng(4)
    v = rng.integers(0, 256, large.N, dtype=np.int32)
    np.testing.assert_array_equal(to_host(api.bincount(to_device(v), minlength=300)), np.bincount(v, minlength=300))
    counts, edges = api.histogram(d, bins=1024, range=(0.0, 1.0))
    want_counts, want_edges = np.histogram(x, bins=1024, range=(0.0, 1.0))
    np.testing.assert_array_equal(to_host(counts), want_counts)
    np.testing.assert_array_equal(to_host(edges), want_edges)
