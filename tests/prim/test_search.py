"""Binary search (rocarray.prim lower_bound/upper_bound, ra.searchsorted) against NumPy.

GPU tests compare exactly with ``numpy.searchsorted`` on fresh random sorted arrays (with duplicates,
NaN and signed zeros for floats, complex values with NaN parts) over sizes that cross the 1024
cached samples, both sides, ``sorter=``, N-D and scalar queries, mixed dtypes (NumPy's common
dtype) and NumPy's errors. CPU tests cover the side check, the comparison dtype and the launch size.
"""

import numpy as np
import pytest

from conftest import NUMERIC_DTYPES, to_device, to_host

from rocarray._core import compile as _compile
from rocarray.prim import _search
import rocarray._numpy.searching as api

ALL_DTYPES = NUMERIC_DTYPES
SIZES = [0, 1, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, 1_000_003]


def values(rng, shape, dtype, special=True):
    """Random values with duplicates; floats get NaN and +-0.0, complex NaN parts."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    x = rng.integers(-30, 30, size=shape)
    if dtype.kind == "u":
        x = np.abs(x)
    if dtype.kind == "c":
        x = x + 1j * rng.integers(-2, 2, size=shape)
    x = np.asarray(x).astype(dtype)
    if special and dtype.kind in "fc" and x.size:
        flat = x.reshape(-1)
        flat[rng.random(flat.size) < 0.05] = np.nan
        if dtype.kind == "f":
            flat[rng.random(flat.size) < 0.05] = 0.0
            flat[rng.random(flat.size) < 0.05] = -0.0
        else:
            flat[rng.random(flat.size) < 0.05] = complex(1, np.nan)
            flat[rng.random(flat.size) < 0.05] = complex(np.nan, 1)
    return x


def same(got, want):
    got = to_host(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == np.int64 and want.dtype == np.int64
    np.testing.assert_array_equal(got, want)


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


def test_registered_names_and_grid():
    assert _compile.registered(_search.SOURCE) == tuple(_search.instantiations())
    assert _search.grid_blocks(1, 1000) == 1
    assert _search.grid_blocks(256 * 5000, 1000) == 1000
    assert _search.grid_blocks(257, 1000) == 2


# --------------------------------------------------------------------------------------------
# GPU
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
    import rocarray as ra

    same(ra.prim.lower_bound(da, dv), np.searchsorted(a, v, "left"))
    same(ra.prim.upper_bound(da, dv), np.searchsorted(a, v, "right"))


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
