"""The NumPy-named search, compaction and unique functions (ra.searchsorted, nonzero, flatnonzero,
argwhere, extract, compress, unique) against NumPy.

GPU tests compare exactly with NumPy on fresh random data: ``searchsorted`` over sorted arrays with
duplicates, NaN and signed zeros (complex with NaN parts) across the 1024 cached samples, both sides,
``sorter=``, N-D and scalar queries, mixed dtypes; compaction over sizes that cross warp and tile
boundaries, every dtype, all-true and all-false masks, N-D and non-contiguous inputs; ``unique``
with every ``return_*`` combination, ``equal_nan`` both ways, N-D inputs (the inverse keeps the
input's shape) and ``axis`` (routed to ``cupy.unique``); NumPy's errors; 2^28 elements (``slow``).
CPU tests cover the side check, the comparison dtype, ``unique``'s result form and its axis errors.
"""

import itertools

import numpy as np
import pytest

import large
from conftest import NUMERIC_DTYPES, fake, to_device, to_host
from prim_data import check, data, same, sparse_data, values

import rocarray._numpy.searching as api

ALL_DTYPES = NUMERIC_DTYPES
SIZES = [0, 1, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, 4095, 4096, 4097, 1_000_003]
FLAGS = list(itertools.product([False, True], repeat=3))


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

def test_side_check():
    assert api.check_side("left") is False
    assert api.check_side("right") is True
    for bad in ("x", "L", None, 1, "LEFT"):
        with pytest.raises(ValueError):
            api.check_side(bad)
    with pytest.raises(ValueError):
        np.searchsorted(np.arange(3), 1, side="x")


def test_search_dtype_is_numpys_common_type():
    for a in ALL_DTYPES:
        for v in ("int64", "float64", "int8", "uint64", "float16"):
            np.searchsorted(np.zeros(2, a), np.zeros(1, v))  # NumPy accepts the pair
            assert api.search_dtype(a, v) == np.result_type(np.dtype(a), np.dtype(v))


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


# --------------------------------------------------------------------------------------------
# GPU: searchsorted
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_searchsorted_matches_numpy(n, dtype, rng):
    a = np.sort(values(rng, n, dtype))
    v = values(rng, 3001, dtype)
    da, dv = to_device(a), to_device(v)
    for side in ("left", "right"):
        same(api.searchsorted(da, dv, side=side), np.searchsorted(a, v, side=side))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "complex64"])
@pytest.mark.parametrize("n", [1, 1000, 70_001])
def test_sorter(dtype, n, rng):
    a = values(rng, n, dtype)
    sorter = np.argsort(a, kind="stable")
    v = values(rng, 999, dtype)
    for side in ("left", "right"):
        same(api.searchsorted(to_device(a), to_device(v), side=side, sorter=to_device(sorter)),
             np.searchsorted(a, v, side=side, sorter=sorter))
    s32 = sorter.astype(np.int32)
    same(api.searchsorted(to_device(a), to_device(v), sorter=to_device(s32)), np.searchsorted(a, v, sorter=s32))


@pytest.mark.gpu
def test_query_shapes_and_views(rng):
    a = np.sort(rng.standard_normal(5000))
    v = rng.standard_normal((7, 11, 3))
    same(api.searchsorted(to_device(a), to_device(v)), np.searchsorted(a, v))
    dv = to_device(v)
    same(api.searchsorted(to_device(a), dv.transpose(2, 0, 1)), np.searchsorted(a, v.transpose(2, 0, 1)))
    da = to_device(np.repeat(a, 2))
    same(api.searchsorted(da[::2], dv[:, 3]), np.searchsorted(a, v[:, 3]))
    r = api.searchsorted(to_device(a), 0.25, side="right")
    assert r.shape == () and int(to_host(r)) == np.searchsorted(a, 0.25, side="right")
    same(api.searchsorted(to_device(a), to_device(np.zeros(0))), np.searchsorted(a, np.zeros(0)))
    same(api.searchsorted(to_device(np.zeros(0)), to_device(v)), np.searchsorted(np.zeros(0), v))


@pytest.mark.gpu
def test_mixed_dtypes_promote_like_numpy(rng):
    a = np.sort(rng.integers(-50, 50, 1000).astype(np.int32))
    v = rng.uniform(-60, 60, 500)
    same(api.searchsorted(to_device(a), to_device(v)), np.searchsorted(a, v))
    au = np.sort(rng.integers(0, 1 << 62, 1000, dtype=np.uint64))
    vi = rng.integers(-5, 1 << 62, 500, dtype=np.int64)
    same(api.searchsorted(to_device(au), to_device(vi)), np.searchsorted(au, vi))
    same(api.searchsorted(to_device(a), 7), np.searchsorted(a, 7))


@pytest.mark.gpu
def test_nan_and_signed_zero_ordering():
    a = np.array([-np.inf, -1.0, -0.0, 0.0, 0.0, 2.0, np.inf, np.nan, np.nan])
    v = np.array([np.nan, 0.0, -0.0, np.inf, -np.inf, 5.0])
    for dt in ("float16", "float32", "float64"):
        for side in ("left", "right"):
            same(api.searchsorted(to_device(a.astype(dt)), to_device(v.astype(dt)), side=side),
                 np.searchsorted(a.astype(dt), v.astype(dt), side=side))
    c = np.sort(np.array([1 + 1j, 1 + np.nan * 1j, complex(np.nan, 0), complex(np.nan, np.nan), 1 - 1j, 0j]))
    for side in ("left", "right"):
        same(api.searchsorted(to_device(c), to_device(c), side=side), np.searchsorted(c, c, side=side))


@pytest.mark.gpu
def test_errors_match_numpy(rng):
    a = to_device(np.arange(10.0))
    with pytest.raises(ValueError):
        api.searchsorted(a, to_device(np.ones(3)), side="middle")
    with pytest.raises(ValueError):
        api.searchsorted(to_device(np.zeros((2, 2))), to_device(np.ones(3)))
    with pytest.raises(ValueError):
        api.searchsorted(a, to_device(np.ones(3)), sorter=to_device(np.arange(5)))
    with pytest.raises(ValueError):
        api.searchsorted(a, to_device(np.ones(3)), sorter=to_device(np.arange(10) + 1))
    with pytest.raises(TypeError):
        api.searchsorted(a, to_device(np.ones(3)), sorter=to_device(np.arange(10.0)))
    with pytest.raises(TypeError):
        api.searchsorted(np.arange(10.0), to_device(np.ones(3)))


@pytest.mark.gpu
@pytest.mark.slow
def test_searchsorted_2_24_queries_float32():
    import cupy

    n = 1 << 24
    a = cupy.sort(cupy.random.random(n, dtype=np.float32))
    v = cupy.random.random(n, dtype=np.float32)
    for side in ("left", "right"):
        assert bool((api.searchsorted(a, v, side=side) == cupy.searchsorted(a, v, side=side)).all())


# --------------------------------------------------------------------------------------------
# GPU: compaction
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_flat_compaction_matches_numpy(n, dtype, rng):
    x = sparse_data(rng, n, dtype)
    dx = to_device(x)
    same(api.flatnonzero(dx), np.flatnonzero(x))
    (nz,) = api.nonzero(dx)
    same(nz, np.nonzero(x)[0])
    same(api.argwhere(dx), np.argwhere(x))
    mask = rng.random(n) < 0.5
    same(api.extract(to_device(mask), dx), np.extract(mask, x))


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 4097, 1_000_003])
@pytest.mark.parametrize("fill", [True, False])
def test_all_true_and_all_false_masks(n, fill, rng):
    x = rng.standard_normal(n).astype(np.float32)
    mask = np.full(n, fill)
    same(api.extract(to_device(mask), to_device(x)), np.extract(mask, x))
    same(api.flatnonzero(to_device(mask)), np.flatnonzero(mask))
    same(api.compress(to_device(mask), to_device(x)), np.compress(mask, x))


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 700), (1, 1, 1, 9), (4097, 3), (0, 4)])
@pytest.mark.parametrize("dtype", ["bool", "int16", "float32", "complex128"])
def test_nd_nonzero_argwhere(shape, dtype, rng):
    x = sparse_data(rng, shape, dtype)
    dx = to_device(x)
    got = api.nonzero(dx)
    want = np.nonzero(x)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        same(g, w)
    same(api.argwhere(dx), np.argwhere(x))
    same(api.flatnonzero(dx), np.flatnonzero(x))


@pytest.mark.gpu
def test_non_contiguous_views(rng):
    x = sparse_data(rng, (300, 41), "float64")
    dx = to_device(x)
    for view, hview in ((dx.T, x.T), (dx[::3, 1::2], x[::3, 1::2]), (dx[:, 5], x[:, 5])):
        for g, w in zip(api.nonzero(view), np.nonzero(hview)):
            same(g, w)
        same(api.argwhere(view), np.argwhere(hview))
        m = rng.random(hview.shape) < 0.5
        same(api.extract(to_device(m).T.T, view), np.extract(m, hview))


@pytest.mark.gpu
def test_zero_d_inputs(rng):
    with pytest.raises(ValueError):
        api.nonzero(to_device(np.array(3.0)))
    for v in (0, 7):
        same(api.argwhere(to_device(np.array(v))), np.argwhere(np.array(v)))
        same(api.flatnonzero(to_device(np.array(v))), np.flatnonzero(np.array(v)))


@pytest.mark.gpu
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_compress_matches_numpy(axis, rng):
    a = rng.standard_normal((37, 5000)).astype(np.float32)
    length = a.size if axis is None else a.shape[axis]
    for clen in (length, length // 2, 0):
        cond = rng.random(clen) < 0.4
        same(api.compress(to_device(cond), to_device(a), axis=axis), np.compress(cond, a, axis=axis))
    # a longer condition is fine while its extra entries are zero
    cond = np.concatenate([rng.random(length) < 0.4, np.zeros(3, bool)])
    same(api.compress(to_device(cond), to_device(a), axis=axis), np.compress(cond, a, axis=axis))
    cond[-1] = True
    with pytest.raises(IndexError):
        np.compress(cond, a, axis=axis)
    with pytest.raises(IndexError):
        api.compress(to_device(cond), to_device(a), axis=axis)


@pytest.mark.gpu
@pytest.mark.parametrize("shape, axis", [((0,), None), ((1,), 0), ((4097,), None), ((4097,), -1),
                                         ((33, 65), None), ((33, 65), 0), ((33, 65), 1), ((3, 4097), -1)])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_compress_every_dtype(dtype, shape, axis, rng):
    # Full-length, short and integer (nonzero selects) conditions; 1-D inputs go through the
    # select kernel, N-D ones along an axis through the take of the nonzero indices.
    a = sparse_data(rng, shape, dtype)
    length = a.size if axis is None else a.shape[axis]
    for cond in (rng.random(length) < 0.4, rng.random(length // 2) < 0.4, rng.integers(0, 3, length)):
        same(api.compress(to_device(cond), to_device(a), axis=axis), np.compress(cond, a, axis=axis))


@pytest.mark.gpu
def test_compress_out_and_errors(rng):
    a = rng.standard_normal(100)
    cond = rng.random(100) < 0.5
    want = np.compress(cond, a, out=np.full(int(cond.sum()), -7, np.int64))
    out = to_device(np.full(int(cond.sum()), -7, np.int64))
    res = api.compress(to_device(cond), to_device(a), out=out)
    assert res is out
    same(out, want)
    with pytest.raises(ValueError):
        api.compress(to_device(cond), to_device(a), out=to_device(np.zeros(3)))
    with pytest.raises(ValueError):
        api.compress(to_device(cond.reshape(10, 10)), to_device(a))
    with pytest.raises(np.exceptions.AxisError):
        api.compress(to_device(cond), to_device(a), axis=1)
    float_cond = np.array([1.5, 0, -2.0])
    same(api.compress(to_device(float_cond), to_device(a[:3])), np.compress(float_cond, a[:3]))


@pytest.mark.gpu
def test_extract_condition_lengths(rng):
    arr = rng.integers(0, 9, 50)
    short = rng.random(20) < 0.5
    same(api.extract(to_device(short), to_device(arr)), np.extract(short, arr))
    long_ok = np.concatenate([rng.random(50) < 0.5, np.zeros(5, bool)])
    same(api.extract(to_device(long_ok), to_device(arr)), np.extract(long_ok, arr))
    long_bad = long_ok.copy()
    long_bad[52] = True
    with pytest.raises(IndexError):
        api.extract(to_device(long_bad), to_device(arr))
    cond2d = rng.integers(0, 3, (5, 10))
    same(api.extract(to_device(cond2d), to_device(arr.reshape(5, 10))), np.extract(cond2d, arr.reshape(5, 10)))


@pytest.mark.gpu
def test_host_arrays_are_type_errors():
    with pytest.raises(TypeError):
        api.nonzero(np.arange(3))
    with pytest.raises(TypeError):
        api.extract(np.ones(3, bool), to_device(np.arange(3)))
    with pytest.raises(TypeError):
        api.compress(to_device(np.ones(3, bool)), np.arange(3))


# --------------------------------------------------------------------------------------------
# GPU: unique
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
def test_host_array_is_type_error():
    with pytest.raises(TypeError):
        api.unique(np.arange(4))


# --------------------------------------------------------------------------------------------
# GPU: large
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.slow
def test_nonzero_2_28_bool():
    import cupy

    n = 1 << 28
    free, _ = cupy.cuda.runtime.memGetInfo()
    if free < n * 12:
        pytest.skip("not enough free device memory")
    m = cupy.random.random(n, dtype=np.float32) < 0.5
    (idx,) = api.nonzero(m)
    assert idx.size == int(m.sum())
    ref = cupy.nonzero(m)[0]
    assert bool((idx == ref).all())


@pytest.mark.gpu
@pytest.mark.slow
def test_flatnonzero_past_2_31_elements():
    import cupy

    n = (1 << 31) + 4099
    free, _ = cupy.cuda.runtime.memGetInfo()
    if free < n * 12:
        pytest.skip(f"needs {n * 12 / 2**30:.0f} GiB free on the device, {free / 2**30:.0f} GiB free")
    m = cupy.zeros(n, dtype=bool)
    want = np.array([0, 4095, 4096, (1 << 31) - 1, 1 << 31, n - 1], dtype=np.int64)
    m[cupy.asarray(want)] = True
    same(api.flatnonzero(m), want)
    x = cupy.zeros(n, dtype=np.int8)
    x[cupy.asarray(want)] = 3
    same(api.extract(m, x), np.full(want.size, 3, np.int8))


@pytest.mark.gpu
@pytest.mark.slow
def test_compress_and_argwhere_2_28():
    x, d = large.floats()
    keep = x < 0.5
    np.testing.assert_array_equal(to_host(api.compress(to_device(keep), d)), np.compress(keep, x))
    m = (x < 0.01).reshape(1 << 14, 1 << 14)
    np.testing.assert_array_equal(to_host(api.argwhere(to_device(m))), np.argwhere(m))


@pytest.mark.gpu
@pytest.mark.slow
def test_extract_and_flatnonzero_2_28():
    x, d = large.floats()
    keep = x > 0.75
    dk = to_device(keep)
    np.testing.assert_array_equal(to_host(api.extract(dk, d)), np.extract(keep, x))
    np.testing.assert_array_equal(to_host(api.flatnonzero(dk)), np.flatnonzero(keep))


@pytest.mark.gpu
@pytest.mark.slow
def test_searchsorted_into_2_28():
    import cupy

    x, d = large.floats()
    hay = to_host(cupy.sort(d))  # any sorted haystack will do (NumPy's sort takes long here)
    rng = np.random.default_rng(5)
    needles = np.concatenate([rng.random(1 << 20, dtype=np.float32), x[rng.integers(0, large.N, 1 << 10)]])
    dh, dn = to_device(hay), to_device(needles)
    for side in ("left", "right"):
        np.testing.assert_array_equal(to_host(api.searchsorted(dh, dn, side=side)),
                                      np.searchsorted(hay, needles, side=side))


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
