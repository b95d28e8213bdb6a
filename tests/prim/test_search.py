"""prim binary search (:mod:`rocarray.prim._search`): lower_bound/upper_bound.

CPU tests cover the registered names, the launch size and the plan on a recording stand-in device (a
warm search builds nothing; the sorter's address takes its slot). GPU tests compare exactly with
``numpy.searchsorted`` across the 1024 cached samples, every dtype, with and without a sorter (the
NumPy-named ``searchsorted`` is tested in ``tests/numpy_api/test_searching.py``).
"""

import numpy as np
import pytest

from conftest import NUMERIC_DTYPES, to_device, to_host
from prim_data import values
from launchfake import fake_device  # noqa: F401 (fixture)

from rocarray._core import compile as _compile
from rocarray._core import plans
from rocarray.prim import _search

ALL_DTYPES = NUMERIC_DTYPES
SIZES = [0, 1, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, 1_000_003]


def same(got, want):
    got = to_host(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == np.int64 and want.dtype == np.int64
    np.testing.assert_array_equal(got, want)


# --------------------------------------------------------------------------------------------
# CPU
# --------------------------------------------------------------------------------------------

def test_registered_names_and_grid():
    assert _compile.registered(_search.SOURCE) == tuple(_search.instantiations())
    assert _search.grid_blocks(1, 1000) == 1
    assert _search.grid_blocks(256 * 5000, 1000) == 1000
    assert _search.grid_blocks(257, 1000) == 2


def test_bool_is_searched_as_bytes():
    assert _search.kernel_name("bool") == _search.kernel_name("uint8") == "ra_prim_search<ra_u8>"
    assert _search.kernel_name("complex64") == "ra_prim_search<ra_c64>"


def test_a_warm_search_builds_nothing(fake_device, monkeypatch):
    a, v = fake_device.array((30001,), "float32"), fake_device.array((700,), "float32")
    s = fake_device.array((30001,), "int64")
    _search.lower_bound(a, v)
    _search.upper_bound(a, v, sorter=s)
    assert plans.cache.get_curr_size() == 2
    monkeypatch.setattr(_search, "_plan", lambda *a: pytest.fail("a warm search built a plan"))
    _search.lower_bound(a, v)
    _search.upper_bound(a, v, sorter=s)
    left, right, left2, right2 = fake_device.launches
    assert left.args[:5] == left2.args[:5] and right.args[:6] == right2.args[:6]
    assert int(left.args[2]) == 0 and int(right.args[2]) == s.data.ptr  # the sorter, or none
    assert (int(left.args[5]), int(right.args[5])) == (0, 1)
    assert left.grid == ((700 + 255) // 256, 1, 1)


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_bounds_match_numpy(n, dtype, rng):
    a = np.sort(values(rng, n, dtype))
    v = values(rng, (3, 1001), dtype)
    da, dv = to_device(a), to_device(v)
    same(_search.lower_bound(da, dv), np.searchsorted(a, v, "left"))
    same(_search.upper_bound(da, dv), np.searchsorted(a, v, "right"))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int32", "float64", "complex128"])
def test_bounds_through_a_sorter(dtype, rng):
    a = values(rng, 70_001, dtype)
    sorter = np.argsort(a, kind="stable")
    v = values(rng, 999, dtype)
    da, dv, ds = to_device(a), to_device(v), to_device(sorter)
    same(_search.lower_bound(da, dv, sorter=ds), np.searchsorted(a, v, "left", sorter=sorter))
    same(_search.upper_bound(da, dv[::2], sorter=ds), np.searchsorted(a, v[::2], "right", sorter=sorter))


@pytest.mark.gpu
def test_errors():
    a = to_device(np.arange(10.0))
    with pytest.raises(ValueError):
        _search.lower_bound(to_device(np.zeros((2, 2))), a)
    with pytest.raises(TypeError):
        _search.lower_bound(a, to_device(np.arange(3)))
    with pytest.raises(TypeError):
        _search.lower_bound(np.arange(10.0), a)
