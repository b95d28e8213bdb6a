"""Unique (ra.unique; rocarray.prim unique_sorted / run_length_encode) against NumPy 2.

GPU tests compare exactly with ``numpy.unique`` on fresh random data: every dtype, sizes across warp
and tile boundaries, every ``return_*`` combination, ``equal_nan`` both ways with NaN and signed
zeros, N-D and non-contiguous inputs (the inverse keeps the input's shape), both paths (sort-free
counting for small integer ranges, sort + fused head compaction otherwise), ``axis`` (routed to
``cupy.unique``) and a 2^28-element int32 case. CPU tests cover the path choice and the result form.
The sort is ``prim.radix_sort_keys``/``radix_sort_pairs`` (imported lazily).
"""

import itertools

import numpy as np
import pytest

from conftest import NUMERIC_DTYPES, fake, to_device, to_host

from rocarray.prim import _select
import rocarray._numpy.searching as api

ALL_DTYPES = NUMERIC_DTYPES
SIZES = [0, 1, 31, 32, 33, 63, 64, 65, 4097, 1_000_003]
FLAGS = list(itertools.product([False, True], repeat=3))


def data(rng, shape, dtype, span=40):
    """Random values with many repeats; floats get NaN and +-0.0; complex NaN parts."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    info_ok = dtype.kind != "u"
    x = rng.integers(-span if info_ok else 0, span, size=shape)
    if dtype.kind == "c":
        x = x + 1j * rng.integers(-2, 2, size=shape)
    x = np.asarray(x).astype(dtype)
    if dtype.kind in "fc" and x.size:
        flat = x.reshape(-1)
        flat[rng.random(flat.size) < 0.05] = np.nan
        if dtype.kind == "f":
            flat[rng.random(flat.size) < 0.05] = -0.0
        else:
            flat[rng.random(flat.size) < 0.03] = complex(2, np.nan)
    return x


def check(got, want):
    if not isinstance(want, tuple):
        got, want = (got,), (want,)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        g = to_host(g)
        assert g.shape == w.shape, (g.shape, w.shape)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_array_equal(g, w)


def run(x, dx, ri, rv, rc, equal_nan=True):
    # NumPy sorts with a stable sort only when return_index is asked; otherwise the order among
    # NaNs (distinct when equal_nan=False) is unspecified. The reference is always the stable one.
    full = np.unique(x, return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan)
    want = tuple(p for p, keep in zip(full, (True, ri, rv, rc)) if keep)
    want = want[0] if len(want) == 1 else want
    got = api.unique(dx, return_index=ri, return_inverse=rv, return_counts=rc, equal_nan=equal_nan)
    check(got, want)


# --------------------------------------------------------------------------------------------
# CPU
# --------------------------------------------------------------------------------------------

def test_counting_path_choice():
    assert _select.use_counting("int32", 1 << 28, 1 << 20)
    assert _select.use_counting("int32", 1 << 28, 1 << 22)
    assert not _select.use_counting("int32", 1 << 28, 1 << 32)
    assert not _select.use_counting("int32", 1 << 28, _select.COUNT_MAX_BINS + 1)
    assert _select.use_counting("bool", 1, 1) and _select.use_counting("bool", 2, 2)
    assert _select.use_counting("uint8", 1000, 250)
    assert not _select.use_counting("int64", 1000, 1001)       # more bins than elements
    assert not _select.use_counting("float32", 1 << 28, 10)     # floats always sort
    assert not _select.use_counting("int32", 1 << 32, 10)       # 32-bit counters
    assert not _select.use_counting("int32", 0, 1)


def test_bitmap_path_choice():
    key = _select.BITMAP_DENSITY * (1 << _select.BITMAP_BUCKET_BITS)
    n = 1 << 26
    assert _select.bitmap_buckets(0, (1 << 16) - 1) == 1
    assert _select.bitmap_buckets((1 << 16) - 1, 1 << 16) == 2          # buckets are aligned
    assert _select.use_bitmap("int32", n, 0, (1 << 32) - 1)             # 2^26 over the int32 range
    assert not _select.use_bitmap("int32", n - 1, 0, (1 << 32) - 1)
    assert _select.use_bitmap("uint64", 1 << 20, 5, 5 + key // 1024 - 1)
    assert not _select.use_bitmap("uint64", (1 << 20) - 1, 0, 10)      # small inputs sort
    for dtype in ("int8", "int16", "uint16", "float32", "bool"):       # only 32/64-bit integers
        assert not _select.use_bitmap(dtype, n, 0, 1 << 20)
    assert _select.use_bitmap("int64", n, 0, (1 << 32) - 1)
    assert not _select.use_bitmap("int64", 1 << 31, 0, 1 << 32)         # 64-bit: offsets are 32-bit
    names = _select.instantiations()
    for dtype in ("int32", "int64", "uint32", "uint64"):
        assert _select.unique_name("bitemit", dtype) in names
    assert {"ra_prim_unique_mark<ra_i32>", "ra_prim_unique_mark<ra_u32>", "ra_prim_unique_offsets<ra_i64>",
            "ra_prim_unique_offsets<ra_u64>"} <= set(names)


def test_key_bounds_decode():
    assert _select.key_bounds("int32", (1 << 63) - 5, (1 << 63) + 7) == (-5, 7)
    assert _select.key_bounds("uint64", 3, 9) == (3, 9)


def test_result_form():
    assert api.unique_result("v", "i", "r", "c", False, False, False) == "v"
    assert api.unique_result("v", "i", "r", "c", True, False, True) == ("v", "i", "c")
    assert api.unique_result("v", "i", "r", "c", False, True, False) == ("v", "r")


@pytest.mark.parametrize("shape, axis, exc", [((3, 4), 2, np.exceptions.AxisError),
                                              ((3, 4), -3, np.exceptions.AxisError),
                                              ((5,), 1, np.exceptions.AxisError),
                                              ((), 0, np.exceptions.AxisError),
                                              ((3, 4), 1.5, TypeError)])
def test_axis_errors_match_numpy(shape, axis, exc):
    """A bad ``axis`` raises NumPy's exception (from the axis route) before anything is launched:
    the array lies over a made-up address."""
    pytest.importorskip("cupy")
    with pytest.raises(exc):
        np.unique(np.zeros(shape, np.int32), axis=axis)
    with pytest.raises(exc):
        api.unique(fake(shape, np.int32), axis=axis)
    with pytest.raises(exc):
        api.unique(fake(shape, np.int32), return_index=True, return_inverse=True, return_counts=True, axis=axis)


def test_unique_registered_names():
    for d in ALL_DTYPES:
        assert _select.unique_name("sorted", d) in _select.instantiations()
    assert _select.unique_name("count", "bool") == "ra_prim_unique_count<ra_u8>"
    assert _select.unique_name("minmax", "int16") == "ra_prim_unique_minmax<ra_i16>"


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_unique_all_returns_match_numpy(n, dtype, rng):
    x = data(rng, n, dtype)
    dx = to_device(x)
    run(x, dx, True, True, True)
    run(x, dx, False, False, False)


@pytest.mark.gpu
@pytest.mark.parametrize("flags", FLAGS)
@pytest.mark.parametrize("dtype", ["int16", "int64", "uint32", "float16", "float32", "float64", "complex64"])
@pytest.mark.parametrize("equal_nan", [True, False])
def test_every_return_combination(flags, dtype, equal_nan, rng):
    if equal_nan is False and np.dtype(dtype).kind == "c":
        pytest.skip("complex with equal_nan=False: the order of values with NaN parts rests on cupy.argsort")
    x = data(rng, 9001, dtype)
    run(x, to_device(x), *flags, equal_nan=equal_nan)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint64"])
@pytest.mark.parametrize("span", [3, 1000, 50_000, 1 << 20, 1 << 40])
def test_counting_and_sort_paths(dtype, span, rng):
    info = np.iinfo(dtype)
    lo = max(info.min, -span)
    hi = min(info.max, span)
    x = rng.integers(lo, hi, size=200_003, endpoint=True).astype(dtype)
    if dtype == "uint64" and span == 1 << 40:
        x[::97] = np.uint64(info.max)
    run(x, to_device(x), True, True, True)
    run(x, to_device(x), False, False, False)


def bitmap_cases(rng, dtype, n):
    """Inputs that take the bitmap path: wide, dense ranges across sign and digit boundaries,
    skewed data (one value half the time, the rest spread thinly), extreme values."""
    info = np.iinfo(dtype)
    span = (n // 2048) << 16                      # about 2048 elements per bucket
    lo = max(info.min, -span // 2) if info.min < 0 else 0
    yield rng.integers(lo, lo + span, size=n, dtype=dtype)
    mid = 1 << 40 if info.bits == 64 else 1 << 28  # a digit boundary inside the range
    yield rng.integers(mid - span // 2, mid + span // 2, size=n, dtype=dtype)
    x = rng.integers(info.max - span, info.max, size=n, dtype=dtype, endpoint=True)
    x[rng.random(n) < 0.5] = info.max
    x[::1001] = info.max - span
    yield x
    x = rng.integers(lo, lo + span, size=n, dtype=dtype)
    x[: n // 2] = lo + span // 3
    yield rng.permutation(x)
    yield rng.integers(lo, lo + 2 * n, size=n, dtype=dtype)   # dense: chunks of more values than the stage


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint32", "uint64"])
def test_bitmap_path_matches_numpy(dtype, rng):
    import cupy

    n = (1 << 21) + 13
    for x in bitmap_cases(rng, dtype, n):
        dx = cupy.asarray(x)
        lo, hi = _select._minmax_keys(dx)
        assert _select.use_bitmap(dtype, n, lo, hi)
        check(api.unique(dx), np.unique(x))
        check(api.unique(dx[::-1]), np.unique(x))


@pytest.mark.gpu
@pytest.mark.parametrize("order", ["random", "sorted", "reversed"])
def test_bitmap_marks_every_key_in_any_order(order, rng):
    """The marking kernel alone, against a bitmap built on the host: unsorted keys (no window
    locality), sorted, and descending order (every tile below the window)."""
    import cupy

    n = 3 * _select.TILE * 7 + 5
    x = rng.integers(-(1 << 22), 1 << 22, size=n, dtype=np.int32)
    x = {"random": x, "sorted": np.sort(x), "reversed": np.sort(x)[::-1].copy()}[order]
    keys = x.astype(np.int64).view(np.uint64) ^ np.uint64(1 << 63)
    base = (int(keys.min()) >> 16) << 16
    buckets = _select.bitmap_buckets(int(keys.min()), int(keys.max()))
    bits = (keys - np.uint64(base)).astype(np.int64)
    want = np.zeros(buckets * _select.BITMAP_CHUNK_WORDS, np.uint32)
    np.bitwise_or.at(want, bits >> 5, (np.uint32(1) << (bits & 31).astype(np.uint32)))
    got = _select._mark_bitmap(cupy.asarray(x), base, buckets)
    np.testing.assert_array_equal(cupy.asnumpy(got), want)
    check(_select._emit_bitmap(got, base, np.dtype(np.int32)), np.unique(x))


@pytest.mark.gpu
def test_nd_inverse_shape_and_views(rng):
    x = data(rng, (30, 40, 5), "float32")
    dx = to_device(x)
    run(x, dx, True, True, True)
    run(x.transpose(2, 0, 1), dx.transpose(2, 0, 1), True, True, True)
    run(x[::2, 3], dx[::2, 3], False, True, False)
    xi = data(rng, (50, 60), "int32")
    run(xi.T, to_device(xi).T, True, True, True)


@pytest.mark.gpu
def test_zero_d_and_empty(rng):
    for v in (np.array(5), np.array(2.5), np.array(True)):
        run(v, to_device(v), True, True, True)
    e = np.zeros((0, 3), np.float32)
    run(e, to_device(e), True, True, True)


@pytest.mark.gpu
def test_nan_and_signed_zero_collapse():
    x = np.array([np.nan, 0.0, -0.0, 1.0, np.nan, -0.0, np.inf, -np.inf, np.nan])
    for dt in ("float16", "float32", "float64"):
        for en in (True, False):
            run(x.astype(dt), to_device(x.astype(dt)), True, True, True, equal_nan=en)
    c = np.array([complex(np.nan, 1), complex(1, np.nan), 1, complex(np.nan, np.nan), 1])
    run(c, to_device(c), True, True, True)


@pytest.mark.gpu
def test_axis_routes_to_cupy(rng):
    x = rng.integers(0, 3, (40, 4)).astype(np.int32)
    for axis in (0, 1, -1):
        check(api.unique(to_device(x), axis=axis, return_index=True, return_inverse=True, return_counts=True),
              np.unique(x, axis=axis, return_index=True, return_inverse=True, return_counts=True))
    check(api.unique(to_device(x), axis=0), np.unique(x, axis=0))


@pytest.mark.gpu
def test_run_length_encode_and_unique_sorted(rng):
    import rocarray as ra

    x = np.repeat(rng.integers(0, 5, 3000), rng.integers(1, 9, 3000)).astype(np.int16)
    starts = np.flatnonzero(np.r_[True, x[1:] != x[:-1]])
    counts = np.diff(np.r_[starts, x.size])
    v, c = ra.prim.run_length_encode(to_device(x))
    check((v, c), (x[starts], counts))
    s = np.sort(x)
    check(ra.prim.unique_sorted(to_device(s), return_starts=True),
          tuple(np.unique(s, return_index=True)))


@pytest.mark.gpu
def test_host_array_is_type_error():
    with pytest.raises(TypeError):
        api.unique(np.arange(4))


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("span", [1 << 20, 1 << 31])
def test_unique_int32_2_28(span):
    import cupy

    n = 1 << 28
    free, _ = cupy.cuda.runtime.memGetInfo()
    if free < n * 40:
        pytest.skip("not enough free device memory")
    x = cupy.random.randint(-span, span - 1, n, dtype=np.int32)
    got = api.unique(x, return_counts=True)
    want = cupy.unique(x, return_counts=True)
    for g, w in zip(got, want):
        assert g.shape == w.shape and bool((g == w).all())


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64"])
def test_unique_2_28_full_range_bitmap(dtype):
    import cupy

    n = 1 << 28
    free, _ = cupy.cuda.runtime.memGetInfo()
    if free < n * 24:
        pytest.skip("not enough free device memory")
    info = np.iinfo(dtype if dtype != "int64" else "int32")
    x = cupy.random.randint(info.min, info.max, n, dtype=np.int64).astype(dtype)
    m = x[1::3].size
    x[0 : 3 * m : 3] = x[1::3]                         # many repeats as well
    lo, hi = _select._minmax_keys(x)
    assert _select.use_bitmap(dtype, n, lo, hi)
    got = api.unique(x)
    want = cupy.unique(x)
    assert got.shape == want.shape and bool((got == want).all())


def test_sort_is_the_prim_radix_sort():
    from rocarray.prim import _sort

    assert _select._sort_funcs() == (_sort.radix_sort_keys, _sort.radix_sort_pairs)
