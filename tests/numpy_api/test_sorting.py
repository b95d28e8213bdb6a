"""The NumPy-named sorts (ra.sort, argsort, lexsort, partition, argpartition, sort_complex) against
NumPy's stable sort.

GPU tests (``@pytest.mark.gpu``) compare exactly with ``numpy.sort(kind='stable')`` /
``numpy.argsort(kind='stable')`` (keys bit for bit, so -0.0 and NaN payloads come back as they went
in), over every dtype and kind, complex NaN classes, N-D arrays along every axis, many short rows,
non-contiguous views, lexsort, partition contracts, the argument errors, 2^28 keys of every dtype
and more than 2^31 keys (``slow``). CPU tests check the façade's argument rules.
"""

import numpy as np
import pytest

import large
from conftest import to_device, to_host

from rocarray._checks.prim_sort import host_keys
import rocarray._numpy.sorting as api

KEY_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64"]
ALL_DTYPES = KEY_DTYPES + ["complex64", "complex128"]


def assert_same(got, want):
    """Equal shape, dtype and bits."""
    got = to_host(got)
    want = np.ascontiguousarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    if not np.array_equal(np.ascontiguousarray(got).view(np.uint8), want.view(np.uint8)):
        bad = np.flatnonzero(got.reshape(-1) != want.reshape(-1))[:5]
        raise AssertionError(f"differs at {bad}: {got.reshape(-1)[bad]} != {want.reshape(-1)[bad]}")


# --------------------------------------------------------------------------------------------
# CPU: argument rules
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", [None, "quicksort", "mergesort", "heapsort", "stable", "q", "S", "stablex"])
def test_check_kind_accepts_numpy_kinds(kind):
    np.sort(np.arange(3), kind=kind)  # NumPy accepts it too
    api.check_kind(kind)


def test_check_kind_errors_like_numpy():
    for kind in ("x", ""):
        with pytest.raises(ValueError):
            api.check_kind(kind)
    with pytest.raises(ValueError):
        np.sort(np.arange(3), kind="stable", stable=True)
    with pytest.raises(ValueError):
        api.check_kind("stable", True)
    with pytest.raises(ValueError):
        api.check_order("a")
    with pytest.raises(ValueError):
        api.check_select_kind("quicksort")


@pytest.mark.parametrize("kth, n, want", [(0, 3, [0]), (-1, 3, [2]), ([0, -1], 5, [0, 4]),
                                          (np.int64(2), 3, [2]), ((), 3, []), ([5, -3], 0, [])])
def test_normalize_kth(kth, n, want):
    assert api.normalize_kth(kth, n) == want


@pytest.mark.parametrize("kth, n, exc", [(3, 3, ValueError), (-4, 3, ValueError), ([0, 5], 3, ValueError),
                                         (1.5, 3, TypeError), (True, 3, ValueError), (1.5, 0, TypeError)])
def test_normalize_kth_errors_match_numpy(kth, n, exc):
    with pytest.raises(exc):
        np.partition(np.zeros(n), kth)
    with pytest.raises(exc):
        api.normalize_kth(kth, n)


def test_host_arrays_are_rejected():
    pytest.importorskip("cupy")
    for fn in (api.sort, api.argsort, api.sort_complex):
        with pytest.raises(TypeError, match="host"):
            fn(np.arange(3))
    with pytest.raises(TypeError, match="host"):
        api.partition(np.arange(3), 1)
    with pytest.raises(TypeError):
        api.lexsort(np.ones((2, 3)))


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("n", [0, 1, 31, 32, 33, 63, 64, 65, 4097, 1_000_003])
def test_sort_argsort_match_numpy(dtype, n, rng):
    if n == 1_000_003 and dtype not in ("float32", "int32", "complex64", "bool"):
        pytest.skip("large size on a subset of dtypes")
    x = host_keys(rng, n, dtype, 50 if n > 100 else None)
    dx = to_device(x)
    assert_same(api.sort(dx), np.sort(x, kind="stable"))
    assert_same(api.argsort(dx), np.argsort(x, kind="stable"))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_specials(dtype, rng):
    d = np.dtype(dtype)
    u = np.dtype(f"uint{8 * d.itemsize}")
    base = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 0.0, -0.0], d)
    odd_nan = (np.array([np.nan], d).view(u) | u.type(1)).view(d)
    for x in (base, np.concatenate([base, odd_nan]), rng.permutation(np.tile(base, 1000)),
              np.array([-0.0, 0.0, 1.0], d), np.array([np.nan, 2.0, np.nan], d)):
        dx = to_device(x)
        assert_same(api.sort(dx), np.sort(x, kind="stable"))
        assert_same(api.argsort(dx), np.argsort(x, kind="stable"))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_nan_order(dtype, rng):
    vals = np.array([1 + 1j, 1 + np.nan * 1j, np.nan + 1j, np.nan + np.nan * 1j, -1 + 2j, 1 - 1j,
                     complex(np.nan, -5), complex(-3, np.nan), 0 + 0j, complex(-0.0, 0.0)], dtype)
    x = vals[rng.integers(0, vals.size, 20_000)]
    dx = to_device(x)
    assert_same(api.argsort(dx), np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(to_host(api.sort(dx)), np.sort(x, kind="stable"))
    np.testing.assert_array_equal(to_host(api.sort_complex(dx)), np.sort_complex(x))


@pytest.mark.gpu
@pytest.mark.parametrize("kind", [None, "quicksort", "mergesort", "heapsort", "stable"])
def test_every_kind_is_the_stable_sort(kind, rng):
    x = host_keys(rng, 20_000, "int16", 5)
    assert_same(api.argsort(to_device(x), kind=kind), np.argsort(x, kind="stable"))
    assert_same(api.sort(to_device(x), stable=True), np.sort(x, kind="stable"))


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(7, 300, 5), (3000, 3), (3, 5000), (40, 1, 33), (1, 4097)])
@pytest.mark.parametrize("dtype", ["float32", "int8", "complex64"])
def test_sort_nd_every_axis(shape, dtype, rng):
    x = host_keys(rng, shape, dtype, 30)
    dx = to_device(x)
    for axis in list(range(-len(shape), len(shape))) + [None]:
        assert_same(api.sort(dx, axis=axis), np.sort(x, axis=axis, kind="stable"))
        assert_same(api.argsort(dx, axis=axis), np.argsort(x, axis=axis, kind="stable"))


@pytest.mark.gpu
def test_sort_many_short_rows(rng):
    x = host_keys(rng, (100_000, 7), "float64", 4)
    assert_same(api.sort(to_device(x)), np.sort(x, kind="stable"))
    assert_same(api.argsort(to_device(x)), np.argsort(x, kind="stable"))


@pytest.mark.gpu
def test_sort_non_contiguous_views(rng):
    x = host_keys(rng, (300, 200), "int32", 100)
    dx = to_device(x)
    for view, hview in ((dx[::2, 1::3], x[::2, 1::3]), (dx.T, x.T), (dx[::-1, ::-2], x[::-1, ::-2])):
        for axis in (0, 1, None):
            assert_same(api.sort(view, axis=axis), np.sort(hview, axis=axis, kind="stable"))
            assert_same(api.argsort(view, axis=axis), np.argsort(hview, axis=axis, kind="stable"))
    assert_same(dx, x)


@pytest.mark.gpu
def test_lexsort_matches_numpy(rng):
    a = host_keys(rng, 50_000, "int8", 3)
    b = host_keys(rng, 50_000, "float32", 5)
    c = host_keys(rng, 50_000, "uint16", 4)
    assert_same(api.lexsort((to_device(a), to_device(b), to_device(c))), np.lexsort((a, b, c)))
    assert_same(api.lexsort([to_device(c)]), np.lexsort([c]))
    k = host_keys(rng, (3, 20, 30), "int16", 3)
    assert_same(api.lexsort(to_device(k)), np.lexsort(k))
    assert_same(api.lexsort(to_device(k), axis=0), np.lexsort(k, axis=0))
    z = (host_keys(rng, 5000, "complex64", 3), host_keys(rng, 5000, "bool"))
    assert_same(api.lexsort([to_device(t) for t in z]), np.lexsort(z))


@pytest.mark.gpu
def test_lexsort_errors():
    with pytest.raises(TypeError):
        api.lexsort([])
    with pytest.raises(ValueError):
        api.lexsort([to_device(np.arange(3)), to_device(np.arange(4))])


def _check_partition(got, x, kth, axis):
    """NumPy's contract, NaN sorting last: a permutation of each line with the kth element in its
    sorted place, nothing larger before it (anything, when it is NaN) and nothing smaller after it
    (NaN may follow anything)."""
    got = to_host(got)
    s = np.sort(x, axis=axis, kind="stable")
    np.testing.assert_array_equal(np.sort(got, axis=axis, kind="stable"), s)
    for k in np.atleast_1d(kth):
        k = int(k) % x.shape[axis]
        gk = np.take(got, [k], axis=axis)
        np.testing.assert_array_equal(gk, np.take(s, [k], axis=axis))
        assert ((np.take(got, range(k), axis=axis) <= gk) | np.isnan(gk)).all()
        after = np.take(got, range(k + 1, x.shape[axis]), axis=axis)
        assert ((after >= gk) | np.isnan(after)).all()


@pytest.mark.gpu
@pytest.mark.parametrize("kth", [0, 5, -1, [1, 17, 40], (3, -3)])
@pytest.mark.parametrize("dtype", ["int32", "float32", "uint8"])
def test_partition_contract(kth, dtype, rng):
    x = host_keys(rng, (6, 50), dtype, 20)
    if x.dtype.kind == "f":  # NaNs of both signs, a row ending in them and one that is all NaN
        x[:, ::9] = np.nan
        x[1, 40:] = -np.nan
        x[4] = np.nan
    dx = to_device(x)
    for axis in (1, 0):
        k = kth if axis == 1 else np.asarray(kth) % 6  # axis 0 has 6 entries
        _check_partition(api.partition(dx, k, axis=axis), x, k, axis)
        idx = to_host(api.argpartition(dx, k, axis=axis))
        assert idx.dtype == np.int64
        np.testing.assert_array_equal(np.sort(idx, axis=axis), np.indices(x.shape)[axis])  # a permutation
        _check_partition(np.take_along_axis(x, idx, axis=axis), x, k, axis)
    assert_same(api.partition(dx, kth, axis=None), np.sort(x, axis=None, kind="stable"))


@pytest.mark.gpu
def test_facade_errors_match_numpy():
    x = to_device(np.arange(12.0).reshape(3, 4))
    with pytest.raises(np.exceptions.AxisError):
        api.sort(x, axis=2)
    with pytest.raises(np.exceptions.AxisError):
        api.argsort(to_device(np.float64(1.0)))
    with pytest.raises(ValueError):
        api.sort(x, kind="bogus")
    with pytest.raises(ValueError):
        api.sort(x, kind="stable", stable=True)
    with pytest.raises(ValueError):
        api.argsort(x, order="f")
    with pytest.raises(ValueError):
        api.partition(x, 4)
    with pytest.raises(ValueError):
        api.argpartition(x, -5)
    with pytest.raises(TypeError):
        api.partition(x, 1.5)
    with pytest.raises(ValueError):
        api.partition(x, 1, kind="quicksort")
    assert_same(api.sort(to_device(np.float64(3.0)), axis=None), np.sort(np.float64(3.0), axis=None))


@pytest.mark.gpu
def test_sort_2_28_float32(rng):
    import cupy

    n = 1 << 28
    if cupy.cuda.Device().mem_info[0] < 12 * n * 4:
        pytest.skip("not enough free device memory")
    x = cupy.random.random(n, dtype=np.float32)
    got = api.sort(x)
    assert bool((got[1:] >= got[:-1]).all())
    np.testing.assert_array_equal(to_host(got), np.sort(to_host(x)))
    idx = api.argsort(x)
    np.testing.assert_array_equal(to_host(idx), np.argsort(to_host(x), kind="stable"))


@pytest.mark.gpu
@pytest.mark.slow
def test_sort_more_than_2_31_keys():
    import cupy

    n = (1 << 31) + 5
    if cupy.cuda.Device().mem_info[0] < 6 * n + (1 << 30):
        pytest.skip("not enough free device memory")
    u = cupy.random.randint(0, 256, n, dtype=np.int16).astype(np.uint8)
    tail = int(u[-1])
    got = api.sort(u)
    assert bool((got[1:] >= got[:-1]).all()) and int(got[-1]) >= tail


@pytest.mark.gpu
@pytest.mark.slow
def test_partition_middle_2_28():
    import cupy

    x, d = large.floats()
    kth = large.N // 2 + 12345
    part = api.partition(d, kth)
    assert bool(cupy.array_equal(cupy.sort(part), cupy.sort(d)))  # a permutation of the input
    got = to_host(part)
    pivot = np.partition(x, kth)[kth]
    assert got[kth] == pivot
    assert np.all(got[:kth] <= pivot) and np.all(got[kth + 1:] >= pivot)


def _sort_input(dtype, seed):
    """2^28 keys of ``dtype`` with many repeats; floats: normal values (float16: about 2^14
    distinct) with NaNs, -0.0 and 0.0 planted; integers: the full range, and a narrow one in
    the second half (repeats)."""
    import cupy

    n = large.N
    cupy.random.seed(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        x = cupy.random.standard_normal(n, dtype=np.float32 if dtype == np.float16 else dtype).astype(dtype)
        x[cupy.random.randint(0, n, 1000)] = np.nan
        x[cupy.random.randint(0, n, 1000)] = -0.0
        x[cupy.random.randint(0, n, 1000)] = 0.0
        return x
    if dtype.kind == "b":
        return cupy.random.randint(0, 2, n).astype(dtype)
    bits = cupy.random.randint(0, 2**62, n, dtype=np.int64) * 3  # every bit random enough, wraps
    x = bits.astype(dtype)
    x[n // 2:] = cupy.random.randint(0, 50, n - n // 2).astype(dtype)
    return x


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("dtype", KEY_DTYPES)
def test_sort_and_argsort_every_dtype_2_28(dtype):
    # reference: CuPy's stable sort on keys for which its order is NumPy's (NaN -> +inf, the data
    # holding no infinity, and -0.0 -> 0.0), so NaN last and -0.0 == 0.0 in input order
    import cupy

    large.need(8 * large.N * max(np.dtype(dtype).itemsize, 4) + 3 * large.N * 8)
    x = _sort_input(dtype, 31)
    key = x
    if x.dtype.kind == "f":
        assert not bool(cupy.isinf(x).any())
        key = x.astype(np.float32) if x.dtype == np.float16 else x  # exact, same order
        key = cupy.where(cupy.isnan(key), np.inf, key).astype(key.dtype)
        key = cupy.where(key == 0, 0, key).astype(key.dtype)
    want_idx = cupy.argsort(key)
    idx = api.argsort(x)
    assert idx.dtype == np.int64 and idx.shape == (large.N,)
    assert bool(cupy.array_equal(idx, want_idx))
    del idx
    got = api.sort(x)
    want = x[want_idx]
    del want_idx
    same = (got == want) | (cupy.isnan(got) & cupy.isnan(want)) if x.dtype.kind == "f" else got == want
    assert bool(same.all())
    if x.dtype.kind == "f":  # -0.0 and 0.0 keep their input order: the sign bits match too
        assert bool((cupy.signbit(got) == cupy.signbit(want)).all())
