"""prim unique (:mod:`rocarray.prim._unique`): unique, unique_sorted, run_length_encode.

GPU tests compare exactly with ``numpy.unique`` on fresh random data along each path (sort-free
counting for small integer ranges, the bitmap of wide dense ranges, sort + fused head compaction
otherwise), the bitmap marking kernel alone, run-length encoding and 2^28-element bitmap cases
(``slow``). CPU tests cover the path choice, the registered names and the plans on a recording
stand-in device (the NumPy-named ``unique`` is tested in ``tests/numpy_api/test_searching.py``).
"""

import numpy as np
import pytest

from conftest import NUMERIC_DTYPES, to_device
from prim_data import check
from launchfake import fake_device  # noqa: F401 (fixture)

from rocarray._core import plans
from rocarray.prim import _select, _unique

ALL_DTYPES = NUMERIC_DTYPES


def unique(x, return_index=False, return_inverse=False, return_counts=False, equal_nan=True):
    """``_unique.unique`` in ``numpy.unique``'s return form (the inverse flat)."""
    values, index, inverse, counts = _unique.unique(x, return_index=return_index, return_inverse=return_inverse,
                                                    return_counts=return_counts, equal_nan=equal_nan)
    res = [values] + [r for r, asked in ((index, return_index), (inverse, return_inverse),
                                         (counts, return_counts)) if asked]
    return res[0] if len(res) == 1 else tuple(res)


def run(x, dx, ri, rv, rc, equal_nan=True):
    full = np.unique(x.reshape(-1), return_index=True, return_inverse=True, return_counts=True, equal_nan=equal_nan)
    want = tuple(p for p, keep in zip(full, (True, ri, rv, rc)) if keep)
    want = want[0] if len(want) == 1 else want
    check(unique(dx, ri, rv, rc, equal_nan), want)


# --------------------------------------------------------------------------------------------
# CPU
# --------------------------------------------------------------------------------------------

def test_counting_path_choice():
    assert _unique.use_counting("int32", 1 << 28, 1 << 20)
    assert _unique.use_counting("int32", 1 << 28, 1 << 22)
    assert not _unique.use_counting("int32", 1 << 28, 1 << 32)
    assert not _unique.use_counting("int32", 1 << 28, _unique.COUNT_MAX_BINS + 1)
    assert _unique.use_counting("bool", 1, 1) and _unique.use_counting("bool", 2, 2)
    assert _unique.use_counting("uint8", 1000, 250)
    assert not _unique.use_counting("int64", 1000, 1001)       # more bins than elements
    assert not _unique.use_counting("float32", 1 << 28, 10)     # floats always sort
    assert not _unique.use_counting("int32", 1 << 32, 10)       # 32-bit counters
    assert not _unique.use_counting("int32", 0, 1)


def test_bitmap_path_choice():
    key = _unique.BITMAP_DENSITY * (1 << _unique.BITMAP_BUCKET_BITS)
    n = 1 << 26
    assert _unique.bitmap_buckets(0, (1 << 16) - 1) == 1
    assert _unique.bitmap_buckets((1 << 16) - 1, 1 << 16) == 2          # buckets are aligned
    assert _unique.use_bitmap("int32", n, 0, (1 << 32) - 1)             # 2^26 over the int32 range
    assert not _unique.use_bitmap("int32", n - 1, 0, (1 << 32) - 1)
    assert _unique.use_bitmap("uint64", 1 << 20, 5, 5 + key // 1024 - 1)
    assert not _unique.use_bitmap("uint64", (1 << 20) - 1, 0, 10)      # small inputs sort
    for dtype in ("int8", "int16", "uint16", "float32", "bool"):       # only 32/64-bit integers
        assert not _unique.use_bitmap(dtype, n, 0, 1 << 20)
    assert _unique.use_bitmap("int64", n, 0, (1 << 32) - 1)
    assert not _unique.use_bitmap("int64", 1 << 31, 0, 1 << 32)         # 64-bit: offsets are 32-bit
    names = _unique.instantiations()
    for dtype in ("int32", "int64", "uint32", "uint64"):
        assert _unique.unique_name("bitemit", dtype) in names
    assert {"ra_prim_unique_mark<ra_i32>", "ra_prim_unique_mark<ra_u32>", "ra_prim_unique_offsets<ra_i64>",
            "ra_prim_unique_offsets<ra_u64>"} <= set(names)


def test_unique_registered_names():
    for d in ALL_DTYPES:
        assert _unique.unique_name("sorted", d) in _unique.instantiations()
    assert _unique.unique_name("count", "bool") == "ra_prim_unique_count<ra_u8>"
    assert _unique.unique_name("minmax", "int16") == "ra_prim_unique_minmax<ra_i16>"


def test_unique_of_small_integer_ranges_counts_without_sorting(fake_device, monkeypatch):
    x = fake_device.array((50000,), "int32")
    monkeypatch.setattr(_unique, "_minmax_keys", lambda xf: ((1 << 31) + 10, (1 << 31) + 300))
    monkeypatch.setattr(_unique, "_decode_keys", lambda bins, lo, dtype: bins)  # (a CuPy kernel)
    _unique.unique(x)
    assert fake_device.names() == ["ra_prim_unique_count<ra_i32>", "ra_prim_select<ra_u32, ra_u32>"]
    count = fake_device.launches[0]
    assert int(count.args[2]) == (1 << 31) + 10 and int(count.args[3]) == 291 and int(count.args[5]) == 0
    size = plans.cache.get_curr_size()
    monkeypatch.setattr(_unique, "_for_each_plan", lambda *a: pytest.fail("a warm unique built a plan"))
    _unique.unique(x)
    assert plans.cache.get_curr_size() == size and fake_device.launches[2].args[:4] == count.args[:4]


def test_min_and_max_come_from_one_prepared_pass(fake_device):
    x = fake_device.array((100003,), "int16")
    lo, hi = _unique._minmax_keys(x)
    assert (lo, hi) == (2**64 - 1, 0)  # the stand-in kernel leaves the starting values
    launch = fake_device.launches[-1]
    assert launch.name == "ra_prim_unique_minmax<ra_i16>" and int(launch.args[0]) == x.data.ptr


def test_run_heads_share_the_compaction_workspace(fake_device):
    x = fake_device.array((9000,), "float64")
    _unique.unique_sorted(x, return_starts=True)
    launch = fake_device.launches[-1]
    assert launch.name == "ra_prim_unique_sorted<double>"
    status, epoch = _select.status(0, 1)
    assert int(launch.args[-2]) == status.data.ptr and int(launch.args[-1]) == epoch - 1
    assert int(launch.args[5]) == int(launch.args[6]) == 0  # no permutation, no inverse


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

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
        lo, hi = _unique._minmax_keys(dx)
        assert _unique.use_bitmap(dtype, n, lo, hi)
        check(unique(dx), np.unique(x))
        check(unique(dx[::-1]), np.unique(x))


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
    buckets = _unique.bitmap_buckets(int(keys.min()), int(keys.max()))
    bits = (keys - np.uint64(base)).astype(np.int64)
    want = np.zeros(buckets * _unique.BITMAP_CHUNK_WORDS, np.uint32)
    np.bitwise_or.at(want, bits >> 5, (np.uint32(1) << (bits & 31).astype(np.uint32)))
    got = _unique._mark_bitmap(cupy.asarray(x), base, buckets)
    np.testing.assert_array_equal(cupy.asnumpy(got), want)
    check(_unique._emit_bitmap(got, base, np.dtype(np.int32)), np.unique(x))


@pytest.mark.gpu
def test_run_length_encode_and_unique_sorted(rng):
    x = np.repeat(rng.integers(0, 5, 3000), rng.integers(1, 9, 3000)).astype(np.int16)
    starts = np.flatnonzero(np.r_[True, x[1:] != x[:-1]])
    counts = np.diff(np.r_[starts, x.size])
    v, c = _unique.run_length_encode(to_device(x))
    check((v, c), (x[starts], counts))
    s = np.sort(x)
    check(_unique.unique_sorted(to_device(s), return_starts=True),
          tuple(np.unique(s, return_index=True)))


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
    lo, hi = _unique._minmax_keys(x)
    assert _unique.use_bitmap(dtype, n, lo, hi)
    got = unique(x)
    want = cupy.unique(x)
    assert got.shape == want.shape and bool((got == want).all())
