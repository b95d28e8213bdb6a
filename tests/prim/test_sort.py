"""prim radix sort (:mod:`rocarray.prim._sort`): radix_sort_keys/pairs, radix_argsort and the
segmented sorts against NumPy's stable sort.

GPU tests (``@pytest.mark.gpu``) compare exactly with ``numpy.sort(kind='stable')`` /
``numpy.argsort(kind='stable')`` (keys bit for bit, so -0.0 and NaN payloads must come back as they
went in), over sizes that cross warp and tile boundaries, every dtype, NaN/-0.0/inf, duplicate-heavy
data (stability), descending order, bit ranges, segmented sorts with empty segments, the device
histograms and slot table, passes queued without a read-back, a > 2**31-key case and the argument
errors. CPU tests check the key images (bit logic modelled in NumPy), pass planning, value
layouts, the registered kernel names and the plans on a recording stand-in device (the NumPy-named
sorts are tested in ``tests/numpy_api/test_sorting.py``).
"""

import re

import numpy as np
import pytest

from conftest import to_device, to_host
from launchfake import fake_device  # noqa: F401 (fixture)

from rocarray._core import compile as _compile
from rocarray._core import kernels, plans
from rocarray.prim import _sort
from rocarray._checks.prim_sort import host_keys

KEY_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64"]
ALL_DTYPES = KEY_DTYPES + ["complex64", "complex128"]
SIZES = [0, 1, 31, 32, 33, 63, 64, 65, 4095, 4096, 4097, 1_000_003]


def assert_same(got, want):
    """Equal shape, dtype and bits."""
    got = to_host(got)
    want = np.ascontiguousarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    if not np.array_equal(np.ascontiguousarray(got).view(np.uint8), want.view(np.uint8)):
        bad = np.flatnonzero(got.reshape(-1) != want.reshape(-1))[:5]
        raise AssertionError(f"differs at {bad}: {got.reshape(-1)[bad]} != {want.reshape(-1)[bad]}")


# --------------------------------------------------------------------------------------------
# CPU: key images, pass planning, names
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", KEY_DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_key_image_orders_like_numpy(dtype, descending, rng):
    x = host_keys(rng, 5000, dtype, None)
    x = np.concatenate([x, host_keys(rng, 2000, dtype, 5)])
    img = _sort.key_image(x, descending)
    assert img.dtype == _sort.UNSIGNED[np.dtype(dtype).itemsize]
    got = np.argsort(img, kind="stable")
    if not descending:
        np.testing.assert_array_equal(got, np.argsort(x, kind="stable"))
    else:  # reverse order of distinct keys, ties in input order
        inv = np.unique(_sort.key_image(x), return_inverse=True)[1]
        np.testing.assert_array_equal(got, np.lexsort((np.arange(x.size), -inv.astype(np.int64))))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_image_specials(dtype):
    d = np.dtype(dtype)
    u = _sort.UNSIGNED[d.itemsize]
    x = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0, -1.0], d)
    payload = np.array([np.nan], d).view(u) | u.type(1)  # a NaN with another payload
    x = np.concatenate([x, payload.view(d)])
    img = _sort.key_image(x)
    nan = np.isnan(x)
    assert (img[nan] == u.type(~u.type(0))).all()  # every NaN is all ones
    assert img[2] == img[3]  # -0.0 == 0.0
    assert img[5] < img[7] < img[2] < img[6] < img[4] < img[0]
    assert _sort.image_is_lossy(x).tolist() == [False, True, False, True, False, False, False, False, True]
    back = _sort.key_from_image(img, d)
    keep = ~_sort.image_is_lossy(x)
    np.testing.assert_array_equal(back[keep].view(u), x[keep].view(u))


@pytest.mark.parametrize("dtype", KEY_DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_key_image_round_trip(dtype, descending, rng):
    x = host_keys(rng, 3000, dtype, None)
    keep = ~_sort.image_is_lossy(x)
    back = _sort.key_from_image(_sort.key_image(x, descending), dtype, descending)
    assert back.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(back[keep], x[keep])


def test_digit_places_and_plan():
    assert _sort.digit_places(0, 32) == [(0, 8), (8, 8), (16, 8), (24, 8)]
    assert _sort.digit_places(3, 16) == [(3, 8), (11, 5)]
    assert _sort.digit_places(5, 5) == []
    hist = np.zeros((4, 256), np.uint64)
    hist[0, [1, 7]] = [3, 4]
    hist[1, 9] = 7          # constant digit: skipped
    hist[2, [0, 255]] = 1
    hist[3, 0] = 7
    assert _sort.plan_passes(hist, 0, 32) == [(0, 0, 8), (2, 16, 8)]


def test_plan_from_real_histograms(rng):
    # uint16 keys below 256 need one pass; int32 keys in a narrow range need the low passes only
    for x, want_places in ((rng.integers(0, 256, 1000).astype(np.uint16), [0]),
                           (rng.integers(-100, 100, 1000).astype(np.int32), [0, 1, 2, 3]),
                           (rng.integers(0, 1000, 1000).astype(np.int32), [0, 1])):
        img = _sort.key_image(x)
        bits = 8 * x.dtype.itemsize
        hist = np.array([np.bincount((img >> np.uint64(s)).astype(np.uint64) & np.uint64(255), minlength=256)
                         for s, _ in _sort.digit_places(0, bits)])
        assert [p for p, _, _ in _sort.plan_passes(hist, 0, bits)] == want_places


def test_value_plan():
    assert _sort.value_plan(10, 0, True) == (4, True)
    assert _sort.value_plan(1 << 32, 0, True) == (8, False)
    assert _sort.value_plan(10, 4, False) == (4, False)
    assert _sort.value_plan(10, 8, False) == (8, False)
    assert _sort.value_plan(10, 2, False) == (0, False)
    assert _sort.value_plan(10, 16, False) == (0, False)


def test_meta_layout_and_slot_table():
    lay = _sort.meta_layout(4)
    assert (lay["hist"], lay["starts"], lay["maybe"], lay["lossy"], lay["plan"], lay["size"]) == \
        (0, 1024, 2048, 2049, 2050, 2054)
    assert _sort.meta_layout(1)["size"] == 2 * 256 + 2 + 1
    A, L = _sort.SLOT_ACTIVE, _sort.SLOT_LAST
    hist = np.zeros((4, 256), np.uint64)
    hist[:, 3] = 9
    assert _sort.slot_table(hist, 0, 32) == [3 | A | L, 0, 0, 0]  # nothing varies: the top place
    hist[1, 4] = hist[2, 0] = 1
    assert _sort.slot_table(hist, 0, 32) == [1 | A, 2 | A | L, 0, 0]
    assert _sort.decode_plan(_sort.slot_table(hist, 0, 32)) == [(1, False), (2, True)]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("descending", [False, True])
def test_lossy_bins_hold_every_lossy_key(dtype, descending, rng):
    """The PLAIN upsweep skips the lossy check when the top place's lossy bins are empty: every
    lossy key (-0.0, NaNs of either sign and any payload) must land in them; ordinary keys
    mostly must not."""
    u = _sort.UNSIGNED[np.dtype(dtype).itemsize]
    bits = 8 * u.itemsize
    m = bits - (11 if bits == 64 else 8 if bits == 32 else 5) - 1  # mantissa bits
    payload = rng.integers(1, 1 << m, 2000, dtype=np.uint64) if m < 63 else None
    exp_ones = ((1 << (bits - 1 - m)) - 1) << m
    nans = np.concatenate([(exp_ones | payload), (exp_ones | payload) | (1 << (bits - 1))]).astype(u)
    lossy = np.concatenate([nans, np.array([1 << (bits - 1)], u)]).view(dtype)
    lossy = lossy[_sort.image_is_lossy(lossy)]  # (a drawn payload may be the canonical NaN's)
    assert lossy.size > 3000
    top = u.type(1) << u.type(bits - 1)
    plain = lambda x: np.where(x.view(u) & top, ~x.view(u), x.view(u) | top).astype(u)
    img = plain(lossy)
    if descending:
        img = ~img
    bins = set(_sort.lossy_bins(u.itemsize, descending, 0, bits))
    assert set((img >> u.type(bits - 8)).astype(int)) <= bins
    # ordinary keys away from zero: float16's -0.0 bin (top byte 0x80) also holds its smallest
    # negative subnormals, which are not lossy and only send the upsweep to its lossy check
    z = rng.standard_normal(5000)
    ordinary = (np.where(np.abs(z) < 1e-3, 1.0, z) * 10).astype(dtype)
    top_of = plain(ordinary)
    if descending:
        top_of = ~top_of
    assert not set((top_of >> u.type(bits - 8)).astype(int)) & bins
    assert _sort.lossy_bins(u.itemsize, descending, 1, bits) == list(range(256))  # cut top place
    assert _sort.lossy_bins(u.itemsize, descending, 0, bits - 1) == list(range(256))
    words = _sort.bin_mask_words(sorted(bins))
    assert [b for b in range(256) if words[b // 64] >> (b % 64) & 1] == sorted(bins)


def test_plain_float_image_orders_like_the_full_one_without_lossy_keys(rng):
    # The sign trick alone (the PLAIN mode of a sort returning keys) against the full image, on
    # keys with +0.0, infinities and the canonical NaN but no -0.0 or other NaN.
    for dtype in ("float16", "float32", "float64"):
        x = host_keys(rng, 20_000, dtype)
        x[np.isnan(x)] = np.nan
        x[(x == 0) & np.signbit(x)] = 0.0
        assert not _sort.image_is_lossy(x).any()
        u = _sort.UNSIGNED[x.dtype.itemsize]
        bits = x.view(u)
        top = u.type(1) << u.type(8 * u.itemsize - 1)
        plain = np.where(bits & top, ~bits, bits | top).astype(u)
        np.testing.assert_array_equal(np.argsort(plain, kind="stable"),
                                      np.argsort(_sort.key_image(x), kind="stable"))
        np.testing.assert_array_equal(x[np.argsort(plain, kind="stable")].view(u), np.sort(x, kind="stable").view(u))


def test_workspace_bytes():
    assert _sort.workspace_bytes(1) == 256 + 256 * 4
    assert _sort.workspace_bytes(_sort.TILE + 1) == 256 + 2 * 256 * 4
    assert _sort.workspace_bytes(1 << 30) == 256 + (1 << 30) // _sort.TILE * 256 * 8
    assert _sort.workspace_bytes(_sort.TILE + 1, _sort.tile_size(1, 0)) == 256 + 256 * 4
    assert _sort.tile_size(1, 0) == _sort.tile_size(2, 0) == 8192
    assert _sort.tile_size(1, 4) == _sort.tile_size(4, 0) == _sort.tile_size(8, 8) == 4096


def test_check_bits():
    assert _sort.check_bits(0, None, 4) == (0, 32)
    assert _sort.check_bits(4, 12, 2) == (4, 12)
    for b, e in ((-1, 8), (9, 8), (0, 33)):
        with pytest.raises(ValueError):
            _sort.check_bits(b, e, 4)


def test_key_dtypes_and_modes():
    for d in KEY_DTYPES:
        _sort.check_key_dtype(d)
    for d in ("complex64", "object", "U3"):
        with pytest.raises(TypeError):
            _sort.check_key_dtype(d)
    assert _sort.key_mode("float16") == _sort.MODE_FLOAT
    assert _sort.key_mode("int8", True) == _sort.MODE_SIGNED | _sort.MODE_DESC
    assert _sort.key_mode("bool") == 0 and _sort.key_mode("uint64") == 0


def test_kernel_names_are_registered_and_follow_the_rules():
    names = _compile.registered(_sort.SOURCE)
    assert names == tuple(_sort.instantiations())
    assert len(names) == 23
    assert all(re.match(r"ra_prim_radix_(upsweep|onesweep|lossy|segment_ids)<", n) for n in names)


# --------------------------------------------------------------------------------------------
# CPU: plans on a recording stand-in device
# --------------------------------------------------------------------------------------------

def test_a_warm_sort_builds_nothing(fake_device, monkeypatch):
    k = fake_device.array((100003,), "int32")
    _sort.radix_sort_keys(k)
    assert plans.cache.get(("prim.sort", np.dtype("int32"), 100003, None, False, 0, None, False, True, 0))
    size, first = plans.cache.get_curr_size(), fake_device.names()
    assert first == ["ra_prim_radix_upsweep<ra_u32, false>", "ra_prim_radix_starts"] + 4 * ["ra_prim_radix_onesweep<ra_u32, 0>"]
    for name in ("_plan", "_upsweep_plan"):
        monkeypatch.setattr(_sort, name, lambda *a: pytest.fail("a warm sort built a plan"))
    _sort.radix_sort_keys(k)
    assert plans.cache.get_curr_size() == size and fake_device.names() == 2 * first


def test_the_starts_kernel_takes_typed_mask_words(fake_device):
    _sort.radix_sort_keys(fake_device.array((5000,), "uint16"))
    starts = fake_device.launches[1]
    assert starts.name == "ra_prim_radix_starts" and starts.block == (_sort.RADIX, 1, 1)
    assert [type(w) for w in starts.args[-4:]] == [np.uint64] * 4 and not any(starts.args[-4:])


def test_pairs_and_argsort_move_their_values_through_every_pass(fake_device):
    k, v = fake_device.array((70001,), "uint32"), fake_device.array((70001,), "int64")
    keys, vals = _sort.radix_sort_pairs(k, v)
    passes = [launch for launch in fake_device.launches if "onesweep" in launch.name]
    assert [launch.name for launch in passes] == 4 * ["ra_prim_radix_onesweep<ra_u32, 8>"]
    assert int(passes[0].args[3]) == v.data.ptr and int(passes[-1].args[5]) == vals.data.ptr
    for before, after in zip(passes, passes[1:]):  # a pass reads what the one before wrote
        assert after.args[0] == before.args[1] and after.args[3] == before.args[4]
    fake_device.launches.clear()
    idx = _sort.radix_argsort(k)
    passes = [launch for launch in fake_device.launches if "onesweep" in launch.name]
    assert passes[0].name == "ra_prim_radix_onesweep<ra_u32, 4>"  # 32-bit indices, widened at the end
    assert int(passes[0].args[3]) == 0 and int(passes[1].args[3]) == int(passes[0].args[4])
    assert int(passes[-1].args[5]) == idx.data.ptr and idx.dtype == np.int64


# --------------------------------------------------------------------------------------------
# GPU: prim layer
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "float16"])
def test_radix_sort_keys_sizes(n, dtype, rng):
    x = host_keys(rng, n, dtype)
    assert_same(_sort.radix_sort_keys(to_device(x)), np.sort(x, kind="stable"))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", KEY_DTYPES)
@pytest.mark.parametrize("distinct", [None, 3])
def test_radix_sort_every_dtype(dtype, distinct, rng):
    x = host_keys(rng, 70_001, dtype, distinct)
    dx = to_device(x)
    perm = np.argsort(x, kind="stable")
    assert_same(_sort.radix_sort_keys(dx), x[perm])
    assert_same(_sort.radix_argsort(dx), perm)
    for vdtype in ("float32", "int64", "int16", "complex128"):
        v = host_keys(rng, x.size, vdtype)
        k2, v2 = _sort.radix_sort_pairs(dx, to_device(v))
        assert_same(k2, x[perm])
        assert_same(v2, v[perm])
    assert_same(dx, x)  # the input is untouched


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8"])
@pytest.mark.parametrize("distinct", [None, 7])
def test_radix_argsort_and_pairs_sizes(n, dtype, distinct, rng):
    # Indices and carried values (4- and 8-byte values ride the passes, 2-byte ones go through the
    # index sort) at every size; with 7 distinct keys ties show whether the order is stable.
    x = host_keys(rng, n, dtype, distinct)
    dx = to_device(x)
    perm = np.argsort(x, kind="stable")
    assert_same(_sort.radix_argsort(dx), perm)
    for vdtype in ("int32", "float64", "int16"):
        v = host_keys(rng, n, vdtype)
        k2, v2 = _sort.radix_sort_pairs(dx, to_device(v))
        assert_same(k2, x[perm])
        assert_same(v2, v[perm])
    assert_same(dx, x)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", KEY_DTYPES)
def test_radix_sort_descending_is_stable(dtype, rng):
    x = host_keys(rng, 30_000, dtype, 7)
    inv = np.unique(_sort.key_image(x), return_inverse=True)[1]
    want = np.lexsort((np.arange(x.size), -inv.astype(np.int64)))
    dx = to_device(x)
    assert_same(_sort.radix_argsort(dx, descending=True), want)
    assert_same(_sort.radix_sort_keys(dx, descending=True), x[want])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_specials(dtype, rng):
    d = np.dtype(dtype)
    u = _sort.UNSIGNED[d.itemsize]
    base = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 0.0, -0.0], d)
    odd_nan = (np.array([np.nan], d).view(u) | u.type(1)).view(d)
    for x in (base, np.concatenate([base, odd_nan]), rng.permutation(np.tile(base, 1000)),
              np.array([-0.0, 0.0, 1.0], d), np.array([np.nan, 2.0, np.nan], d)):
        dx = to_device(x)
        assert_same(_sort.radix_sort_keys(dx), np.sort(x, kind="stable"))
        assert_same(_sort.radix_argsort(dx), np.argsort(x, kind="stable"))


@pytest.mark.gpu
def test_radix_sort_bits_and_out(rng):
    x = rng.integers(0, 1 << 16, 50_000).astype(np.uint32)
    got = _sort.radix_sort_keys(to_device(x), begin_bit=4, end_bit=12)
    assert_same(got, x[np.argsort((x >> 4) & 255, kind="stable")])
    out = to_device(np.full(x.size, 7, np.uint32))
    res = _sort.radix_sort_keys(to_device(x), out=out)
    assert res is out
    assert_same(out, np.sort(x))
    dx = to_device(x)
    _sort.radix_sort_keys(dx, out=dx)  # in place
    assert_same(dx, np.sort(x))
    same = np.full(10_000, 5, np.int32)  # every digit constant: no pass at all
    assert_same(_sort.radix_argsort(to_device(same)), np.arange(same.size))
    assert_same(_sort.radix_sort_keys(to_device(same)), same)


def _host_histograms(x, descending, begin_bit, end_bit):
    """NumPy model of the upsweep: per digit place, the 256 counts of the key image's digit."""
    img = _sort.key_image(x, descending).astype(np.uint64)
    places = _sort.digit_places(begin_bit, end_bit)
    hist = np.zeros((len(places), 256), np.uint64)
    for p, (shift, nbits) in enumerate(places):
        d = (img >> np.uint64(shift)) & np.uint64((1 << nbits) - 1)
        hist[p] = np.bincount(d.astype(np.int64), minlength=256)
    return hist


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", KEY_DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_upsweep_histograms_and_lossy_flag(dtype, descending, rng):
    bits = 8 * np.dtype(dtype).itemsize
    for x in (host_keys(rng, 100_003, dtype), host_keys(rng, 50_001, dtype, 3)):
        for begin_bit, end_bit in ((0, bits), (1, min(bits, 6)), (3, max(4, bits - 2))):
            for offset in (0, 1):  # a view starting off the 16-byte boundary: scalar head keys
                dx = to_device(np.concatenate([x[:offset], x]))[offset:]
                kb = dx.view(np.uint8) if dx.dtype == np.bool_ else dx.view(_sort.UNSIGNED[dx.dtype.itemsize])
                mode = _sort.key_mode(dtype, descending)
                hist, lossy, starts, table = _sort._histograms(kb, mode, begin_bit, end_bit)
                want = _host_histograms(x, descending, begin_bit, end_bit)
                np.testing.assert_array_equal(hist, want)
                assert table == _sort.decode_plan(_sort.slot_table(want, begin_bit, end_bit))
                if mode & _sort.MODE_FLOAT:  # the PLAIN image still finds the lossy keys
                    assert _sort._histograms(kb, mode | _sort.MODE_PLAIN, begin_bit, end_bit)[1] == lossy
                assert lossy == bool(_sort.image_is_lossy(x).any())
                want_starts = np.cumsum(want, axis=1, dtype=np.uint64) - want
                np.testing.assert_array_equal(to_host(starts).reshape(want.shape), want_starts)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "uint64"])
def test_upsweep_one_block_many_equal_keys(dtype):
    # One block counting millions of equal keys: its 16-bit shared counters must be flushed in time.
    n = 3_000_001
    x = np.full(n, np.iinfo(dtype).max // 3, dtype)
    x[::7] = 5
    dx = to_device(x)
    bits = 8 * x.itemsize
    places = len(_sort.digit_places(0, bits))
    buf = to_device(np.zeros(places * 256 + 1, np.uint64))
    kernel = _sort._kernels[_sort.upsweep_name(x.itemsize)]
    kernel(dx.data.device_id, (1,), (dx, np.int64(n), np.int32(0), np.int32(0), np.int32(bits), buf,
                                     buf.data + places * 256 * 8))
    got = to_host(buf)[:places * 256].reshape(places, 256)
    np.testing.assert_array_equal(got, _host_histograms(x, False, 0, bits))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int32", "float64", "uint8", "float32", "int64", "float16"])
def test_segmented_sort_with_empty_segments(dtype, rng):
    x = host_keys(rng, 100_003, dtype, 40)
    cuts = np.sort(rng.integers(0, x.size, 200))
    offs = np.concatenate([[0, 0], cuts, cuts[:10], [x.size, x.size]])
    offs.sort()
    v = np.arange(x.size, dtype=np.int64)
    want_p = np.concatenate([a + np.argsort(x[a:b], kind="stable") for a, b in zip(offs[:-1], offs[1:])])
    k, vv = _sort.segmented_radix_sort_pairs(to_device(x), to_device(offs), to_device(v))
    assert_same(k, x[want_p])
    assert_same(vv, want_p)
    assert_same(_sort.segmented_radix_sort_keys(to_device(x), to_device(offs)), x[want_p])
    with pytest.raises(ValueError):
        _sort.segmented_radix_sort_keys(to_device(x), to_device(np.array([0, 5])))


def segment_offsets(rng, n, layout):
    """``nseg + 1`` non-decreasing offsets from 0 to ``n`` in one layout: a single segment, one
    segment per key, empty segments at both ends, lengths around the warp and tile sizes (with
    empty ones among them), or random cuts (some repeated)."""
    if layout == "one":
        return np.array([0, n])
    if layout == "singletons":
        return np.arange(n + 1)
    if layout == "empty ends":
        return np.array([0, 0, 0, n // 2, n, n, n])
    if layout == "warp edges":
        ends = np.cumsum(np.resize([31, 32, 33, 0, 63, 64, 65, 1, 4095, 4097], n + 1))
        return np.concatenate([[0], ends[ends < n], [n]])
    cuts = np.sort(rng.integers(0, n + 1, 50))
    return np.sort(np.concatenate([[0, n], cuts, cuts[:5]]))


def segmented_order(x, offsets):
    """Stable argsort within every segment: a stable sort by key, then a stable one by segment."""
    seg = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    perm = np.argsort(x, kind="stable")
    return perm[np.argsort(seg[perm], kind="stable")]


@pytest.mark.gpu
@pytest.mark.parametrize("layout", ["one", "singletons", "empty ends", "warp edges", "random cuts"])
@pytest.mark.parametrize("n", [0, 1, 33, 4097, 100_003])
@pytest.mark.parametrize("dtype", ["float32", "int64", "uint16"])
def test_segmented_sort_layouts(dtype, n, layout, rng):
    x = host_keys(rng, n, dtype, 40 if n > 100 else None)
    layouts = [segment_offsets(rng, n, layout)] + ([np.array([0])] if n == 0 else [])  # n = 0: no segment
    for offs in layouts:
        want_p = segmented_order(x, offs)
        v = np.arange(n, dtype=np.int64)
        k, vv = _sort.segmented_radix_sort_pairs(to_device(x), to_device(offs), to_device(v))
        assert_same(k, x[want_p])
        assert_same(vv, want_p)
        assert_same(_sort.segmented_radix_sort_keys(to_device(x), to_device(offs)), x[want_p])


@pytest.mark.gpu
@pytest.mark.parametrize("case", ["low digit constant", "only the low digit", "all equal", "lossy floats"])
@pytest.mark.parametrize("descending", [False, True])
def test_pass_plans_keys_values_and_indices(case, descending, rng):
    """Keys, pairs and indices through the plans the histograms give: the lowest digit constant,
    only the lowest digit varying, every digit constant, and lossy keys (the index sort takes
    over)."""
    n = 3 * _sort.TILE + 77
    if case == "low digit constant":
        x = (rng.integers(0, 1000, n) * 256).astype(np.int32)
    elif case == "only the low digit":
        x = rng.integers(0, 200, n).astype(np.uint32)
    elif case == "all equal":
        x = np.full(n, -7, np.int64)
    else:
        x = rng.standard_normal(n).astype(np.float32)
        x[::5] = -0.0
        x[::7] = 0.0
    order = np.argsort(-_sort.key_image(x).astype(np.float64) if descending else x, kind="stable")
    values = rng.standard_normal(n)
    dx = to_device(x)
    assert_same(_sort.radix_sort_keys(dx, descending=descending), x[order])
    keys, vals = _sort.radix_sort_pairs(dx, to_device(values), descending=descending)
    assert_same(keys, x[order])
    assert_same(vals, values[order])
    assert_same(_sort.radix_argsort(dx, descending=descending), order.astype(np.int64))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int32", "uint64", "float32", "float16"])
def test_passes_are_queued_without_waiting(dtype, rng, monkeypatch):
    """Nothing is read back mid-sort: only a sort returning float keys waits, for the lossy flag
    alone, after every pass is queued (one launch per digit place)."""
    n = 2 * _sort.TILE + 5
    if np.dtype(dtype).kind == "f":  # no -0.0 or NaN payloads: the PLAIN passes' keys are kept
        x = (rng.integers(-15, 15, n) + 0.5).astype(dtype)
        x[rng.integers(0, n, 40)] = rng.choice(np.array([np.nan, 0.0, np.inf, -np.inf], dtype), 40)
    else:
        x = host_keys(rng, n, dtype, 30)
    dx = to_device(x)
    waits, launches = [], []
    real_flags, real_prepare = _sort._HostFlags, kernels.Kernel.prepare

    class Flags(real_flags):
        def lossy(self):
            waits.append(len(launches))
            return super().lossy()

    def prepare(self, *args, **kwargs):
        go, name = real_prepare(self, *args, **kwargs), self.name

        def run(*values):
            launches.append(name)
            go(*values)
        return run

    def no_read(_):
        raise AssertionError("the sort read device memory back")

    plans.cache.clear()  # plans are built anew, with counting launches
    monkeypatch.setattr(_sort, "_HostFlags", Flags)
    monkeypatch.setattr(kernels.Kernel, "prepare", prepare)
    monkeypatch.setattr(_sort, "_to_host", no_read)
    got = _sort.radix_sort_keys(dx)
    idx = _sort.radix_argsort(dx)
    places = x.dtype.itemsize
    passes = [n for n in launches if "onesweep" in n]
    assert len(passes) == 2 * places
    # (upsweep, starts, the float keys' lossy check, then the passes)
    assert waits == ([3 + places] if x.dtype.kind == "f" else [])
    monkeypatch.undo()
    plans.cache.clear()
    assert_same(got, np.sort(x, kind="stable"))
    assert_same(idx, np.argsort(x, kind="stable"))


@pytest.mark.gpu
def test_prim_argument_errors():
    x = to_device(np.arange(10, dtype=np.int32))
    with pytest.raises(ValueError):
        _sort.radix_sort_keys(to_device(np.zeros((2, 2))))
    with pytest.raises(TypeError):
        _sort.radix_sort_keys(to_device(np.zeros(3, np.complex64)))
    with pytest.raises(TypeError):
        _sort.radix_sort_keys(np.arange(3))
    with pytest.raises(ValueError):
        _sort.radix_sort_pairs(x, to_device(np.arange(3)))
    with pytest.raises(ValueError):
        _sort.radix_sort_keys(x, begin_bit=0, end_bit=40)
    with pytest.raises(ValueError):
        _sort.radix_sort_keys(x, out=to_device(np.zeros(10, np.int64)))


# --------------------------------------------------------------------------------------------
# GPU: façade
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.slow
def test_sort_more_than_2_31_keys(rng):
    import cupy

    n = (1 << 31) + 5
    if cupy.cuda.Device().mem_info[0] < 6 * n + (1 << 30):
        pytest.skip("not enough free device memory")
    x = cupy.random.randint(-128, 128, n, dtype=np.int16).astype(np.int8)
    got = _sort.radix_sort_keys(x)
    counts = cupy.bincount((x.astype(np.int16) + 128).astype(np.int32), minlength=256)
    want = cupy.repeat(cupy.arange(-128, 128, dtype=np.int8), counts)
    assert bool((got == want).all())
