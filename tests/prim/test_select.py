"""prim stream compaction (:mod:`rocarray.prim._select`): select_flagged, select_if_nonzero,
nonzero_indices, nonzero_coords, mask_select.

CPU tests cover the kernel types and names, the view-or-copy choice of results, the tile against the
kernel source, and the plans on a recording stand-in device (a warm call builds nothing, every
launch takes a new status epoch, coordinates read the shape from the plan's device copy). GPU tests
compare exactly with NumPy over sizes that cross warp and tile boundaries and every dtype (the
NumPy-named nonzero, flatnonzero, argwhere, extract and compress are tested in
``tests/numpy_api/test_searching.py``).
"""

import numpy as np
import pytest

from conftest import NUMERIC_DTYPES, to_device
from prim_data import same, sparse_data
from launchfake import fake_device  # noqa: F401 (fixture)

from rocarray._core import compile as _compile
from rocarray._core import plans
from rocarray.prim import _select, _unique

ALL_DTYPES = NUMERIC_DTYPES
SIZES = [0, 1, 31, 32, 33, 63, 64, 65, 4095, 4096, 4097, 1_000_003]


# --------------------------------------------------------------------------------------------
# CPU: pure-Python rules
# --------------------------------------------------------------------------------------------

def test_registered_names_are_the_launched_ones():
    names = _compile.registered(_select.SOURCE)
    assert names == tuple(sorted(_select.instantiations() + _unique.instantiations()))
    for d in ALL_DTYPES:
        assert _select.select_name(d, d) in names
        assert _select.select_name("bool", d) in names


def test_flag_and_bits_types():
    assert _select.flag_ctype("int32") == "ra_u32"
    assert _select.flag_ctype("bool") == "ra_u8"
    assert _select.flag_ctype("float16") == "ra_half"  # -0.0 must test as zero: not by bits
    assert _select.flag_ctype("float64") == "double"
    assert _select.bits_ctype("complex64") == "ra_u64"
    assert _select.bits_ctype("complex128") == "ra_c128"


def test_results_stay_views_only_when_a_quarter_used():
    assert _select.keep_view(25, 100)
    assert not _select.keep_view(24, 100)
    assert _select.keep_view(0, 0)


def test_tile_matches_kernel_source():
    text = _compile.read_text(_select.SOURCE)
    assert f"#define RA_PRIM_SEL_BLOCK {_select.BLOCK}" in text
    assert f"#define RA_PRIM_SEL_STATUS_OFFSET {_select.STATUS_OFFSET}" in text
    assert _select.TILE == _select.BLOCK * 16 and "#define RA_PRIM_SEL_ITEMS 16" in text


# --------------------------------------------------------------------------------------------
# CPU: plans on a recording stand-in device
# --------------------------------------------------------------------------------------------

def test_a_warm_compaction_builds_nothing_and_takes_a_new_epoch(fake_device, monkeypatch):
    x = fake_device.array((100003,), "float32")
    _select.nonzero_indices(x)
    size = plans.cache.get_curr_size()
    monkeypatch.setattr(_select, "_plan", lambda *a: pytest.fail("a warm compaction built a plan"))
    _select.nonzero_indices(x)
    assert plans.cache.get_curr_size() == size
    first, second = fake_device.launches
    assert first.name == "ra_prim_select<float, ra_u32>" and first.grid == (-(-100003 // _select.TILE), 1, 1)
    status, epoch = _select.status(0, 1)
    assert int(first.args[-2]) == int(second.args[-2]) == status.data.ptr
    assert [int(first.args[-1]), int(second.args[-1])] == [epoch - 2, epoch - 1]
    assert first.args[:3] == second.args[:3] and first.args[5:9] == second.args[5:9]


def test_coordinates_read_the_shape_from_the_plan(fake_device):
    x = fake_device.array((30, 40, 50), "int16")
    _select.nonzero_coords(x, "rows")
    _select.nonzero_coords(x, "columns")
    _select.nonzero_coords(x[0, 0], "rows")
    _select.nonzero_coords(x, "rows")
    rows, columns, flat, again = fake_device.launches
    assert again.args[5:9] == rows.args[5:9]  # one upload of the shape per plan
    shape = int(rows.args[5])
    assert shape and fake_device.host(_device_view(shape, 3)).tolist() == [30, 40, 50]
    assert int(rows.args[6]) == 3 and (int(rows.args[7]), int(rows.args[8])) == (1, 60000)
    assert fake_device.host(_device_view(int(columns.args[5]), 3)).tolist() == [30, 40, 50]
    assert (int(columns.args[7]), int(columns.args[8])) == (3, 1)
    assert int(flat.args[5]) == 0 and int(flat.args[6]) == 1  # 1-D: no shape needed


def _device_view(ptr, n):
    import cupy

    mem = cupy.cuda.UnownedMemory(ptr, 8 * n, None, device_id=0)
    return cupy.ndarray((n,), np.int64, memptr=cupy.cuda.MemoryPointer(mem, 0))


def test_select_flagged_copies_values_by_their_bits(fake_device):
    x, f = fake_device.array((9000,), "complex64"), fake_device.array((9000,), "bool")
    _select.select_flagged(x, f)
    launch = fake_device.launches[-1]
    assert launch.name == "ra_prim_select<ra_u8, ra_u64>"
    assert int(launch.args[0]) == f.data.ptr and int(launch.args[1]) == x.data.ptr


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_compaction_matches_numpy(n, dtype, rng):
    x = sparse_data(rng, n, dtype)
    dx = to_device(x)
    mask = rng.random(n) < 0.5
    same(_select.select_if_nonzero(dx), x[x != 0])
    same(_select.select_flagged(dx, to_device(mask)), x[mask])
    same(_select.select_flagged(dx, to_device(mask.astype(np.int32))), x[mask])
    same(_select.mask_select(dx, to_device(mask)), x[mask])
    same(_select.nonzero_indices(dx), np.flatnonzero(x))


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 700), (4097, 3), (0, 4)])
def test_coordinates_match_numpy(shape, rng):
    x = sparse_data(rng, shape, "float32")
    dx = to_device(x)
    for got, want in zip(_select.nonzero_coords(dx, "rows"), np.nonzero(x)):
        same(got, want)
    same(_select.nonzero_coords(dx, "columns"), np.argwhere(x))
    with pytest.raises(ValueError):
        _select.nonzero_coords(dx, "diagonal")


@pytest.mark.gpu
def test_mask_select_leading_dims(rng):
    x = rng.standard_normal((40, 3, 5)).astype(np.float32)
    m = rng.random(40) < 0.5
    same(_select.mask_select(to_device(x), to_device(m)), x[m])
    m2 = rng.random((40, 3)) < 0.5
    same(_select.mask_select(to_device(x), to_device(m2)), x[m2])
    with pytest.raises(IndexError):
        _select.mask_select(to_device(x), to_device(m[:10]))
    with pytest.raises(TypeError):
        _select.mask_select(to_device(x), to_device(m.astype(np.int8)))


@pytest.mark.gpu
def test_repeated_launches_reuse_the_workspace(rng):
    # epochs: stale status words of earlier launches must read as unpublished
    for _ in range(5):
        x = sparse_data(rng, 70_001, "int32", density=rng.random())
        same(_select.nonzero_indices(to_device(x)), np.flatnonzero(x))


