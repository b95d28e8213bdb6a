"""prim reductions (:mod:`rocarray.prim._reduce`).

CPU tests cover the kernel dtype rules, the layout planner and kernel choice, the launch sizing, the
registered names, and the plans on a recording stand-in device: a warm call builds nothing, split
reductions take their partials and tickets from the workspace, vector reads follow the base
address, views start at their lowest address. GPU tests run ``reduce``/``argreduce`` themselves
against NumPy (the NumPy-named functions are tested in ``tests/numpy_api/test_reductions.py``).
"""

import re

import numpy as np
import pytest

from conftest import NUMERIC_DTYPES, random_array, to_device, to_host, wide
from launchfake import fake_device  # noqa: F401 (fixture)

from rocarray._core import compile as _compile
from rocarray._core import plans, workspace
from rocarray.prim import _reduce

ALL_DTYPES = NUMERIC_DTYPES


# ------------------------------------------------------------------------------------------
# CPU: dtype rules, layout, launch sizing, registration
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_every_result_dtype_has_a_kernel_pair(dtype):
    z = np.zeros(3, dtype)
    op, kin, kout = _reduce.kernel_dtypes("add", z.dtype, np.sum(z).dtype)
    assert (kin, kout) in _reduce.PAIRS[op]
    assert _reduce.sum_dtype(z.dtype) == np.sum(z).dtype
    for op in ("min", "max", "argmin", "argmax", "mul", "nnz"):
        res = np.dtype(np.int64) if op.startswith("arg") or op == "nnz" else (
            np.prod(z).dtype if op == "mul" else z.dtype)
        op2, kin, kout = _reduce.kernel_dtypes(op, z.dtype, res)
        assert (kin, kout) in _reduce.PAIRS[op2], (op, dtype, kin, kout)


def test_nnz_masks_clear_sign_bits():
    assert _reduce.nnz_mask(np.float32) == 0x7FFFFFFF
    assert _reduce.nnz_mask(np.float16) == 0x7FFF
    assert _reduce.nnz_mask(np.int8) == 0xFF
    assert _reduce.nnz_mask(np.complex64) == 0x7FFFFFFF7FFFFFFF


def _estr(x):
    return tuple(s // x.itemsize for s in x.strides)


@pytest.mark.parametrize("shape,axes,kind", [
    ((1000,), (0,), "rows"), ((64, 5000), (1,), "rows"), ((5000, 64), (0,), "cols"),
    ((4, 5, 6), (1,), "lines"), ((30, 400, 40), (1,), "cols"), ((30, 400, 40), (0, 1), "cols"),
    ((30, 40, 400), (1, 2), "rows"), ((7, 3), (0, 1), "rows"), ((3, 5), (0, 1), "lines"), ((300, 20, 40), (0, 2), "copy"),
])
def test_layout_kinds(shape, axes, kind):
    x = np.empty(shape, np.float32)
    assert _reduce.kernel_layout(x.shape, _estr(x), axes, False).kind == kind


def test_layouts_of_views_need_no_copy():
    x = np.empty((300, 500), np.float32)
    p = _reduce.kernel_layout(x.T.shape, _estr(x.T), (0,), False)  # transposed: rows of the original
    assert p.kind == "rows" and (p.outer, p.n, p.so) == (300, 500, 500)
    p = _reduce.kernel_layout(x.shape, _estr(x), (0, 1), False)
    assert p.kind == "rows" and (p.outer, p.n) == (1, 150000)
    p = _reduce.kernel_layout(x.T.shape, _estr(x.T), (0, 1), False)  # any order for order-free ops
    assert p.kind == "rows" and p.n == 150000
    r = x[::-1]
    p = _reduce.kernel_layout(r.shape, _estr(r), (0, 1), False)
    assert p.kind == "rows" and p.offset == -299 * 500
    p = _reduce.kernel_layout(x.T.shape, _estr(x.T), (0, 1), True)  # arg ops keep C order: copy
    assert p.kind == "copy"


def test_launch_shapes():
    grid, splits, warp = _reduce.rows_launch(1, 1 << 28, 1056, 32)
    assert warp == 0 and splits == 1056 and grid == 1056
    grid, splits, warp = _reduce.rows_launch(16384, 16384, 1056, 32)
    assert (grid, splits, warp) == (16384, 1, 0)
    assert _reduce.rows_launch(100, 50, 1056, 64) == (25, 1, 1)
    grid, ct, splits, chunk, txl = _reduce.cols_launch(1, 16384, 16384, 4, 1056)
    assert ct == 64 and txl == 6 and splits * chunk >= 16384 and grid == 64 * splits and grid >= 1000


def test_registered_names_are_lean():
    names = _compile.registered(_reduce.SOURCE)
    assert set(names) == set(_reduce.instantiations())
    assert len(names) <= 150
    for n in names:
        assert re.fullmatch(r"ra_prim_reduce_(rows|cols|lines)<[\w ,]+>", n), n


# ------------------------------------------------------------------------------------------
# CPU: plans on a recording stand-in device
# ------------------------------------------------------------------------------------------

def test_a_warm_reduction_reuses_its_plan(fake_device, monkeypatch):
    x = fake_device.array((64, 3000), "float32")
    _reduce.reduce(x, op="add", axis=(1,))
    _reduce.argreduce(x, op="argmax", axis=0)
    f32, i64 = np.dtype("float32"), np.dtype("int64")
    assert plans.cache.get(("prim.reduce", "add", (64, 3000), (12000, 4), f32, (1,), None, False, False, 0))
    assert plans.cache.get(("prim.argreduce", "argmax", (64, 3000), (12000, 4), f32, 0, False, False, 0))
    size = plans.cache.get_curr_size()
    for name in ("_plan", "_arg_plan", "launch_plan"):
        monkeypatch.setattr(_reduce, name, lambda *a: pytest.fail("a warm reduction built a plan"))
    r = _reduce.reduce(x, op="add", axis=(1,))
    i = _reduce.argreduce(x, op="argmax", axis=0)
    assert (r.shape, r.dtype, i.shape, i.dtype) == ((64,), f32, (3000,), i64)
    assert plans.cache.get_curr_size() == size
    first, _, again, _ = fake_device.launches
    assert first.name == again.name == "ra_prim_reduce_rows<float, float, ra_prim_red_op_add>"
    assert first.args[:4] == again.args[:4] and first.args[5:] == again.args[5:]


def test_an_axis_list_reduces_without_a_plan_kept(fake_device):
    x = fake_device.array((64, 3000), "float32")
    _reduce.reduce(x, op="max", axis=[1])
    assert plans.cache.get_curr_size() == 0  # a list is not a key
    _reduce.reduce(x, op="max", axis=(1,))
    assert plans.cache.get_curr_size() == 1
    a, b = fake_device.launches
    assert a.name == b.name and a.args[:4] == b.args[:4] and a.args[5:] == b.args[5:]


def test_split_reductions_take_partials_and_tickets_from_the_workspace(fake_device):
    x = fake_device.array((3, 1 << 20), "float32")
    _reduce.reduce(x, op="add", axis=(1,))
    launch = fake_device.launches[-1]
    assert launch.name.startswith("ra_prim_reduce_rows") and launch.grid[0] > 3  # rows split across blocks
    partials = workspace.workspaces.scratch("prim.reduce.partials", 1, 0)
    tickets = workspace.workspaces.counters("prim.reduce.tickets", 1, 0)
    assert int(launch.args[5]) == partials.data.ptr and int(launch.args[6]) == tickets.data.ptr
    assert not fake_device.host(tickets).any()  # zeroed at allocation
    _reduce.reduce(x, op="add", axis=(1,))
    assert fake_device.launches[-1].args[5:7] == launch.args[5:7]  # the same buffers


def test_columns_read_vectors_only_from_aligned_addresses(fake_device):
    aligned = fake_device.array((4000, 256), "float32")
    off = fake_device.array((4000 * 256 + 1,), "float32")[1:].reshape(4000, 256)  # 4 bytes off
    _reduce.reduce(aligned, op="add", axis=(0,))
    _reduce.reduce(off, op="add", axis=(0,))
    a, b = fake_device.launches
    assert a.name == b.name and a.name.startswith("ra_prim_reduce_cols")
    assert int(a.args[-2]) == 1 and int(b.args[-2]) == 0  # the vector flag, per call: one plan
    assert plans.cache.get_curr_size() == 1
    assert a.args[1:6] == b.args[1:6] and a.args[7:-2] == b.args[7:-2]


def test_flipped_views_start_at_their_lowest_address(fake_device):
    x = fake_device.array((500, 600), "float32")
    _reduce.reduce(x[::-1], op="add")
    assert int(fake_device.launches[-1].args[0]) == x.data.ptr


# ------------------------------------------------------------------------------------------
# GPU
# ------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "complex64"])
def test_reduce_and_argreduce_match_numpy(dtype, rng):
    x = random_array(rng, (37, 5000), dtype)
    d = to_device(x)
    for axis in (None, 0, 1, -1, (0, 1), [1]):
        want = np.sum(wide(x), axis=tuple(axis) if isinstance(axis, list) else axis)
        got = to_host(_reduce.reduce(d, op="add", axis=axis, dtype=wide(x[:1]).dtype))
        np.testing.assert_allclose(got, want, rtol=1e-9 if x.dtype.kind in "fc" else 0)
    np.testing.assert_array_equal(to_host(_reduce.reduce(d, op="max", axis=1, keepdims=True)),
                                  np.max(x, axis=1, keepdims=True))
    np.testing.assert_array_equal(to_host(_reduce.reduce(d, op="nnz", axis=0)), np.count_nonzero(x, axis=0))
    for axis in (None, 0, 1):
        np.testing.assert_array_equal(to_host(_reduce.argreduce(d, op="argmin", axis=axis)), np.argmin(x, axis=axis))
    if x.dtype.kind != "c":
        out = to_device(np.full((37,), -1, np.float64))
        assert _reduce.reduce(d[:, ::3], op="min", axis=1, out=out) is out
        np.testing.assert_array_equal(to_host(out), np.min(x[:, ::3], axis=1).astype(np.float64))
