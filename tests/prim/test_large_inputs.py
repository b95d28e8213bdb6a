"""2^28-element inputs for the primitives that other files test only at smaller sizes.

Each test draws fresh random data on the host, copies it to the device once and compares the
whole result with NumPy (float64 references where rounding matters). The every-dtype tests at the
end (sum, min/max, argmin/argmax, sort, argsort for each dtype of the reductions and the sort) make
their data on the device and compare with references whose result does not depend on the order
of the operations: exact sums of integer-valued data, first indices of the extremes, CuPy's stable
sort on keys mapped so that its order is NumPy's. They need about 8 GiB of
free device memory and a few seconds of host time each for NumPy, hence ``slow``.
"""

import numpy as np
import pytest

from conftest import NUMERIC_DTYPES, to_device, to_host

import rocarray as ra

N = 1 << 28

pytestmark = [pytest.mark.gpu, pytest.mark.slow]


def _need(bytes_):
    import cupy

    free, _ = cupy.cuda.runtime.memGetInfo()
    if free < bytes_:
        pytest.skip(f"needs {bytes_ / 2**30:.0f} GiB free on the device, {free / 2**30:.0f} GiB free")


@pytest.fixture(scope="module")
def floats():
    """2^28 float32 values in [0, 1) with repeats of the extremes (ties for argmin/argmax)."""
    _need(6 * N * 4)
    rng = np.random.default_rng(0x2_28)
    x = rng.random(N, dtype=np.float32)
    x[rng.integers(0, N, 5)] = x.max()
    x[rng.integers(0, N, 5)] = x.min()
    return x, to_device(x)


def test_min_max_argmin_argmax_mean(floats):
    x, d = floats
    for f in ("min", "max", "argmin", "argmax"):
        assert to_host(getattr(ra, f)(d)) == getattr(np, f)(x), f
    want = np.mean(x, dtype=np.float64)
    got = to_host(ra.mean(d))
    assert got.dtype == np.float32
    assert abs(float(got) - want) <= 1e-6 * want


def test_prod_float64_near_one():
    _need(3 * N * 8)
    rng = np.random.default_rng(1)
    x = 1.0 + 1e-8 * (rng.random(N) - 0.5)
    got = float(to_host(ra.prod(to_device(x))))
    want = float(np.exp(np.sum(np.log(x))))
    # within the bound of any multiplication order, (N - 1) 2^-53 = 3e-8 (a tree of products of
    # factors near 1 drifts by a good part of it: 1.8e-9 measured on the H200)
    assert abs(got - want) <= (N - 1) * 2.0**-53 * abs(want)


def test_all_any_one_odd_element():
    _need(4 * N)
    rng = np.random.default_rng(2)
    for pos in (0, N - 1, int(rng.integers(1, N - 1))):
        ones = np.ones(N, bool)
        ones[pos] = False
        d = to_device(ones)
        assert not bool(to_host(ra.all(d))) and bool(to_host(ra.any(d)))
        del d
        zeros = np.zeros(N, bool)
        zeros[pos] = True
        d = to_device(zeros)
        assert bool(to_host(ra.any(d))) and not bool(to_host(ra.all(d)))
        assert int(to_host(ra.count_nonzero(d))) == 1
        del d


def test_cumprod_signs_are_exact():
    _need(3 * N * 4)
    rng = np.random.default_rng(3)
    x = np.where(rng.random(N) < 0.5, -1.0, 1.0).astype(np.float32)
    got = to_host(ra.cumprod(to_device(x)))
    np.testing.assert_array_equal(got, np.cumprod(x))


def test_compress_and_argwhere(floats):
    x, d = floats
    keep = x < 0.5
    np.testing.assert_array_equal(to_host(ra.compress(to_device(keep), d)), np.compress(keep, x))
    m = (x < 0.01).reshape(1 << 14, 1 << 14)
    np.testing.assert_array_equal(to_host(ra.argwhere(to_device(m))), np.argwhere(m))


def test_bincount_and_histogram(floats):
    x, d = floats
    rng = np.random.default_rng(4)
    v = rng.integers(0, 256, N, dtype=np.int32)
    np.testing.assert_array_equal(to_host(ra.bincount(to_device(v), minlength=300)), np.bincount(v, minlength=300))
    counts, edges = ra.histogram(d, bins=1024, range=(0.0, 1.0))
    want_counts, want_edges = np.histogram(x, bins=1024, range=(0.0, 1.0))
    np.testing.assert_array_equal(to_host(counts), want_counts)
    np.testing.assert_array_equal(to_host(edges), want_edges)


def test_searchsorted_into_2_28(floats):
    import cupy

    x, d = floats
    hay = to_host(cupy.sort(d))  # any sorted haystack will do (NumPy's sort takes ~20 s here)
    rng = np.random.default_rng(5)
    needles = np.concatenate([rng.random(1 << 20, dtype=np.float32), x[rng.integers(0, N, 1 << 10)]])
    dh, dn = to_device(hay), to_device(needles)
    for side in ("left", "right"):
        np.testing.assert_array_equal(to_host(ra.searchsorted(dh, dn, side=side)),
                                      np.searchsorted(hay, needles, side=side))


def test_nan_reductions(floats):
    x, _ = floats
    y = x.copy()
    y[np.random.default_rng(6).integers(0, N, N // 100)] = np.nan
    d = to_device(y)
    want = np.nansum(y, dtype=np.float64)
    assert abs(float(to_host(ra.nansum(d))) - want) <= 1e-5 * want
    assert to_host(ra.nanmax(d)) == np.nanmax(y) and to_host(ra.nanmin(d)) == np.nanmin(y)
    assert np.isnan(to_host(ra.max(d)))


def test_extract_and_flatnonzero(floats):
    x, d = floats
    keep = x > 0.75
    dk = to_device(keep)
    np.testing.assert_array_equal(to_host(ra.extract(dk, d)), np.extract(keep, x))
    np.testing.assert_array_equal(to_host(ra.flatnonzero(dk)), np.flatnonzero(keep))


def test_partition_middle(floats):
    import cupy

    x, d = floats
    kth = N // 2 + 12345
    part = ra.partition(d, kth)
    assert bool(cupy.array_equal(cupy.sort(part), cupy.sort(d)))  # a permutation of the input
    got = to_host(part)
    pivot = np.partition(x, kth)[kth]
    assert got[kth] == pivot
    assert np.all(got[:kth] <= pivot) and np.all(got[kth + 1:] >= pivot)


# ---- every dtype at 2^28: sums that must come out exact, extremes, sort and argsort ----------
# (data and references on the device: CuPy generates the inputs and computes what NumPy would
# give through operations whose result does not depend on their order)

ALL_DTYPES = NUMERIC_DTYPES
SORTABLE = [d for d in ALL_DTYPES if not d.startswith("complex")]


def _small_integers(dtype, seed):
    """2^28 integer values of ``dtype``: 0/1 for bool, -1..1 for float16 (its sum must fit float16),
    0..100 unsigned, else -100..100 (complex: both parts)."""
    import cupy

    cupy.random.seed(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return cupy.random.randint(0, 2, N).astype(dtype)
    low, high = (0, 101) if dtype.kind == "u" else (-1, 2) if dtype == np.float16 else (-100, 101)
    x = cupy.random.randint(low, high, N).astype(dtype)
    if dtype.kind == "c":
        x.imag = cupy.random.randint(low, high, N)
    return x


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_sum_and_extremes_every_dtype(dtype):
    # integer-valued data: every partial sum is an integer below 2^24 in magnitude (the walk's
    # spread is 58 * 2^14 = 1e6), exact in every accumulation type, so the sum must equal the
    # int64 sum exactly, whatever the order of the adds; float16 accumulates in float32 and
    # rounds once (its values are -1..1 so the sum, about 1.3e4, fits)
    import cupy

    _need(6 * N * np.dtype(dtype).itemsize + N * 8)
    x = _small_integers(dtype, 28)
    got = to_host(ra.sum(x))
    want_dtype = np.sum(np.zeros(1, dtype)).dtype
    assert got.dtype == want_dtype
    if np.dtype(dtype).kind == "c":
        want = complex(int(x.real.astype(np.int64).sum()), int(x.imag.astype(np.int64).sum()))
    else:
        want = int(x.astype(np.int64).sum())
    assert got == np.asarray(want).astype(want_dtype), (got, want)
    if np.dtype(dtype).kind == "c":
        return
    lo, hi = x.min(), x.max()
    assert to_host(ra.min(x)) == to_host(lo) and to_host(ra.max(x)) == to_host(hi)
    # NumPy's tie-break: the first index of the extreme (about N / 201 ties here)
    assert int(ra.argmin(x)) == int(cupy.flatnonzero(x == lo)[0])
    assert int(ra.argmax(x)) == int(cupy.flatnonzero(x == hi)[0])


def _sort_input(dtype, seed):
    """2^28 keys of ``dtype`` with many repeats; floats: normal values (float16: about 2^14
    distinct) with NaNs, -0.0 and 0.0 planted; integers: the full range, and a narrow one in
    the second half (repeats)."""
    import cupy

    cupy.random.seed(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        x = cupy.random.standard_normal(N, dtype=np.float32 if dtype == np.float16 else dtype).astype(dtype)
        x[cupy.random.randint(0, N, 1000)] = np.nan
        x[cupy.random.randint(0, N, 1000)] = -0.0
        x[cupy.random.randint(0, N, 1000)] = 0.0
        return x
    if dtype.kind == "b":
        return cupy.random.randint(0, 2, N).astype(dtype)
    bits = cupy.random.randint(0, 2**62, N, dtype=np.int64) * 3  # every bit random enough, wraps
    x = bits.astype(dtype)
    x[N // 2:] = cupy.random.randint(0, 50, N - N // 2).astype(dtype)
    return x


@pytest.mark.parametrize("dtype", SORTABLE)
def test_sort_and_argsort_every_dtype(dtype):
    # reference: CuPy's stable sort on keys for which its order is NumPy's (NaN -> +inf, the data
    # holding no infinity, and -0.0 -> 0.0), so NaN last and -0.0 == 0.0 in input order
    import cupy

    _need(8 * N * max(np.dtype(dtype).itemsize, 4) + 3 * N * 8)
    x = _sort_input(dtype, 31)
    key = x
    if x.dtype.kind == "f":
        assert not bool(cupy.isinf(x).any())
        key = x.astype(np.float32) if x.dtype == np.float16 else x  # exact, same order
        key = cupy.where(cupy.isnan(key), np.inf, key).astype(key.dtype)
        key = cupy.where(key == 0, 0, key).astype(key.dtype)
    want_idx = cupy.argsort(key)
    idx = ra.argsort(x)
    assert idx.dtype == np.int64 and idx.shape == (N,)
    assert bool(cupy.array_equal(idx, want_idx))
    del idx
    got = ra.sort(x)
    want = x[want_idx]
    del want_idx
    same = (got == want) | (cupy.isnan(got) & cupy.isnan(want)) if x.dtype.kind == "f" else got == want
    assert bool(same.all())
    if x.dtype.kind == "f":  # -0.0 and 0.0 keep their input order: the sign bits match too
        assert bool((cupy.signbit(got) == cupy.signbit(want)).all())
