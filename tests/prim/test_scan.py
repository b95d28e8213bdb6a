"""prim scans (:mod:`rocarray.prim._scan`): inclusive, exclusive and segmented scans.

CPU tests cover the accumulation dtype against NumPy, the kernel dtype choice, the registered kernel
names and tile sizes, the row-kernel choice, and the plans on a recording stand-in device: a warm
call builds nothing, each launch takes a new workspace epoch, every layout takes its kernel,
the line scan's segment totals come from the workspace. GPU tests run the exclusive, segmented and
min/max scans against NumPy on both row kernels, and check the staged kernels' registers (the
NumPy-named scans are tested in ``tests/numpy_api/test_scans.py``).
"""

import re

import numpy as np
import pytest

from conftest import NUMERIC_DTYPES, random_array, to_device, to_host
from prim_data import assert_scan, reference, scan_data
from launchfake import fake_device  # noqa: F401 (fixture)

from rocarray._core import compile as _compile
from rocarray._core import plans, workspace
from rocarray.prim import _scan

ALL_DTYPES = NUMERIC_DTYPES


# --------------------------------------------------------------------------------------------
# references and comparisons
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# CPU: pure-Python rules
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_accumulation_dtype_follows_numpy(dtype):
    assert _scan.accumulation_dtype(np.dtype(dtype)) == np.cumsum(np.zeros(1, dtype)).dtype
    assert _scan.accumulation_dtype(np.dtype(dtype)) == np.cumprod(np.zeros(1, dtype)).dtype


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_accumulation_dtype_override(dtype):
    assert _scan.accumulation_dtype(np.dtype("int8"), dtype) == np.dtype(dtype)


@pytest.mark.parametrize("op", ["add", "mul"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_every_dtype_has_a_kernel_pair(op, dtype):
    out = _scan.accumulation_dtype(np.dtype(dtype))
    kin = _scan.kernel_input_dtype(dtype, out, op)
    kout = _scan.kernel_result_dtype(out)
    assert kin == np.dtype(dtype)  # the natural pair never casts the input
    assert (kin, kout) in _scan.PAIRS[op]


def test_kernel_names_are_registered_and_follow_the_rules():
    names = _compile.registered(_scan.SOURCE)
    assert names == tuple(_scan.instantiations())
    assert all(re.match(r"ra_prim_scan_(rows|rows_staged|rows_seg|lines|lines_totals)<", n) for n in names)
    for op, pairs in _scan.PAIRS.items():
        for a, b in pairs:
            assert _scan.kernel_name("rows", op, a, b) in names
            staged = op == "add" and np.dtype(a).itemsize >= 4
            assert (_scan.kernel_name("rows_staged", op, a, b) in names) == staged
            assert _scan.kernel_name("lines", op, a, b) in names


def test_tile_items_match_the_source_rule():
    assert _scan.tile_items("float32", "float32") == 32
    assert _scan.tile_items("float16", "float16") == 32  # accumulates in float32
    assert _scan.tile_items("int8", "int64") == 16
    assert _scan.tile_items("float64", "float64") == 16
    assert _scan.tile_items("complex128", "complex128") == 8
    assert _scan.tile_size("float32", "float32") == 8192
    # the staged kernel's tile: 52 KiB of input where input and result have one width of at most
    # 8 bytes, else 40 KiB (ra_prim_stage_plan)
    assert _scan.tile_size("float32", "float32", "rows_staged") == 13312
    assert _scan.tile_size("float64", "float64", "rows_staged") == 6656
    assert _scan.tile_size("complex64", "complex64", "rows_staged") == 6656
    assert _scan.tile_size("int64", "int64", "rows_staged") == 6656
    assert _scan.tile_size("int32", "int64", "rows_staged") == 10240
    assert _scan.tile_size("uint32", "uint64", "rows_staged") == 10240
    assert _scan.tile_size("complex128", "complex128", "rows_staged") == 2560
    assert _scan.staged_blocks("float32", "float32") == 4
    assert _scan.staged_blocks("int32", "int64") == _scan.staged_blocks("complex128", "complex128") == 5
    source = _compile.read_text(_scan.SOURCE)
    assert f"#define RA_PRIM_STAGE_BYTES_WIDE {_scan.STAGE_BYTES_WIDE}" in source
    assert f"#define RA_PRIM_STAGE_BYTES_NARROW {_scan.STAGE_BYTES_NARROW}" in source
    assert f"#define RA_PRIM_STAGE_ALIGN {_scan.STAGE_ALIGN}" in source
    assert "sizeof(TIn) == sizeof(TOut) && sizeof(TIn) <= 8" in source
    assert "BLOCKS = WIDE ? 4 : 5" in source


def test_staged_row_kernel_is_chosen_on_nvidia_sm_90_and_later():
    assert _scan.staged_rows(is_hip=False, cc_major=9)
    assert _scan.staged_rows(is_hip=False, cc_major=10)
    assert not _scan.staged_rows(is_hip=False, cc_major=8)
    assert not _scan.staged_rows(is_hip=True, cc_major=9)


@pytest.mark.parametrize("lines, length, mps, want", [(16384, 16384, 132, 33), (1, 10, 132, 1),
                                                     (10**6, 10**4, 132, 1), (3, 100_000, 132, 1562)])
def test_lines_segments(lines, length, mps, want):
    assert _scan.lines_segments(lines, length, mps) == want


def test_check_op_rejects_unknown_ops_and_complex_min():
    with pytest.raises(ValueError):
        _scan.check_op("sub", np.float32)
    with pytest.raises(TypeError):
        _scan.check_op("max", np.complex64)


# --------------------------------------------------------------------------------------------
# CPU: plans on a recording stand-in device
# --------------------------------------------------------------------------------------------

@pytest.fixture(params=["register", "staged"])
def row_kernel(request):
    """Plain row scans forced onto one row kernel: both must be right on every device."""
    _scan.force_row_kernel(request.param)
    yield request.param
    _scan.force_row_kernel(None)


def test_forcing_a_row_kernel_drops_the_plans_made_for_the_other(fake_device):
    x = fake_device.array((5000,), "float32")
    _scan.inclusive_scan(x)  # an sm_90 device: the staged kernel
    assert plans.cache.get_curr_size() > 0
    _scan.force_row_kernel("register")
    try:
        assert plans.cache.get_curr_size() == 0
        _scan.inclusive_scan(x)
    finally:
        _scan.force_row_kernel(None)
    staged, register = fake_device.launches
    assert staged.name == "ra_prim_scan_rows_staged<float, float, ra_prim_op_add>"
    assert staged.shared == _scan.stage_bytes("float32", "float32") + _scan.STAGE_ALIGN
    assert register.name == "ra_prim_scan_rows<float, float, ra_prim_op_add>" and register.shared == 0
    with pytest.raises(ValueError):
        _scan.force_row_kernel("fast")


def test_a_warm_scan_passes_addresses_and_a_new_epoch(fake_device, monkeypatch):
    x = fake_device.array((3, 50000), "int64")
    _scan.inclusive_scan(x)
    size = plans.cache.get_curr_size()
    for name in ("_plan", "_into_plan", "_rows_plan", "_lines_plan"):
        monkeypatch.setattr(_scan, name, lambda *a: pytest.fail("a warm scan built a plan"))
    _scan.inclusive_scan(x)
    assert plans.cache.get_curr_size() == size
    first, second = fake_device.launches
    status, cap, epoch = workspace.workspaces.epochs("prim.scan.status", 0, 1, _scan.workspace_bytes,
                                                      _scan.EPOCH_LIMIT)
    assert int(first.args[6]) == int(second.args[6]) == status.data.ptr
    assert int(first.args[7]) == cap and [int(first.args[8]), int(second.args[8])] == [epoch - 2, epoch - 1]
    assert first.args[:2] == second.args[:2] and first.args[3:6] == second.args[3:6]


@pytest.mark.parametrize("shape, axis, kinds", [
    ((40000,), 0, ["rows_staged"]), ((5000, 9), 1, ["lines"]), ((3000, 40), 0, ["lines_totals", "lines"]),
    ((100, 20000), 0, ["lines"]), ((9, 5, 3000), 1, ["lines"]),
])
def test_every_layout_takes_its_kernel(fake_device, shape, axis, kinds):  # (an sm_90 device: staged rows)
    _scan.inclusive_scan(fake_device.array(shape, "int64"), axis=axis)
    assert [n.split("<")[0] for n in fake_device.names()] == [f"ra_prim_scan_{k}" for k in kinds]


def test_line_totals_come_from_the_workspace(fake_device):
    x = fake_device.array((3000, 40), "float32")
    _scan.inclusive_scan(x, axis=0)
    _scan.inclusive_scan(x, axis=0)
    totals = workspace.workspaces.scratch("prim.scan.line_totals", 1, 0)
    t1, s1, t2, s2 = fake_device.launches
    assert int(t1.args[1]) == int(s1.args[2]) == int(t2.args[1]) == totals.data.ptr


def test_padded_rows_are_scanned_in_place(fake_device):
    x = fake_device.array((40, 1200), "float64")
    _scan.inclusive_scan(x[:, 5:1005])
    launch = fake_device.launches[-1]
    assert int(launch.args[0]) == x.data.ptr + 5 * 8 and int(launch.args[1]) == 1200  # row stride


def test_segmented_scans_pass_the_heads(fake_device):
    x, h = fake_device.array((100000,), "float32"), fake_device.array((100000,), "bool")
    _scan.segmented_inclusive_scan(x, h)
    launch = fake_device.launches[-1]
    assert launch.name == "ra_prim_scan_rows_seg<float, float, ra_prim_op_add>"
    assert int(launch.args[0]) == x.data.ptr and int(launch.args[2]) == h.data.ptr


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_staged_row_kernels_keep_every_value_in_registers_at_their_resident_blocks():
    from cupy.cuda import driver

    # Each staged kernel is built for staged_blocks resident blocks (ra_prim_stage_plan::BLOCKS): a
    # spill to local memory or a block fewer than planned would leave it slower than measured
    # (docs/performance/prim.md).
    if not _scan._staged(0):
        pytest.skip("this device takes the register row kernel")
    pairs = sorted(((a, b) for a, b in _scan.PAIRS["add"] if _scan.staged_pair("add", a)), key=str)
    names = {n for n in _scan.instantiations() if n.startswith("ra_prim_scan_rows_staged")}
    assert len(pairs) == len(names) == 8
    for a, b in pairs:
        name = _scan.kernel_name("rows_staged", "add", a, b)
        assert name in names
        handle = _scan._kernels[name]
        kernel = handle.function(0)
        blocks = _scan.staged_blocks(a, b)
        attributes = kernel.attributes
        assert attributes["local_size_bytes"] == 0, (name, attributes)
        assert attributes["num_regs"] <= 65536 // (blocks * _scan.BLOCK), (name, attributes)
        shared = _scan.stage_bytes(a, b) + _scan.STAGE_ALIGN
        handle.allow_shared(0, shared)
        resident = driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, _scan.BLOCK, shared)
        assert resident == blocks, (name, resident)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [0, 1, 33, 4097, 100_003])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "complex64"])
def test_exclusive_scan(n, dtype, rng, row_kernel):
    x = scan_data(rng, (3, n), dtype)
    inc = reference(x, 1)
    want = np.concatenate([np.zeros((3, 1), inc.dtype), inc[:, :-1]], axis=1)[:, :n]  # (3, 0) at n = 0
    assert_scan(_scan.exclusive_scan(to_device(x), axis=1), want, _scan.accumulation_dtype(x.dtype), n)
    wantc = np.concatenate([np.zeros((1, n), inc.dtype), reference(x, 0)[:-1]], axis=0)
    assert_scan(_scan.exclusive_scan(to_device(x), axis=0), wantc, _scan.accumulation_dtype(x.dtype), 3)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 65, 4097, 1_000_003])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "complex128"])
@pytest.mark.parametrize("density", [0.0, 0.001, 0.3])
def test_segmented_inclusive_scan(n, dtype, density, rng):
    x = scan_data(rng, n, dtype)
    heads = rng.random(n) < density
    starts = np.flatnonzero(heads | (np.arange(n) == 0))
    inc = reference(x, 0)
    base = np.concatenate([[0], inc])[starts]  # prefix before each segment
    seg = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, n)))
    want = inc - base[seg]
    got = _scan.segmented_inclusive_scan(to_device(x), to_device(heads))
    if np.dtype(dtype).kind in "fc":  # compare per segment against a direct float64 segment scan
        wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
        want = np.concatenate([np.cumsum(wide[s:e]) for s, e in zip(starts, np.append(starts[1:], n))])
    assert_scan(got, want, _scan.accumulation_dtype(x.dtype), n)


@pytest.mark.gpu
@pytest.mark.parametrize("op", ["min", "max"])
@pytest.mark.parametrize("dtype", ["int8", "int64", "uint32", "float16", "float32", "float64"])
def test_min_max_scans(op, dtype, rng, row_kernel):
    x = random_array(rng, (4, 5000), dtype)
    if np.dtype(dtype).kind == "f":
        x[1, 700] = np.nan
    fn = np.minimum if op == "min" else np.maximum
    for axis in (0, 1):
        got = to_host(_scan.inclusive_scan(to_device(x), axis=axis, op=op))
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got, fn.accumulate(x, axis=axis))


@pytest.mark.gpu
def test_errors():
    d = to_device(np.ones((3, 4), np.float32))
    with pytest.raises(TypeError):
        _scan.inclusive_scan(d, axis=0, op="max", dtype=np.complex64)
    with pytest.raises(ValueError):
        _scan.inclusive_scan(d, op="sub")
    with pytest.raises(np.exceptions.AxisError):
        _scan.exclusive_scan(d, axis=2)
    with pytest.raises(ValueError):
        _scan.inclusive_scan(d, out=to_device(np.empty((4, 3), np.float32)))
    with pytest.raises(ValueError):
        _scan.segmented_inclusive_scan(d, to_device(np.ones((3, 4), bool)))


def test_a_float_axis_is_refused_after_a_warm_integer_axis(fake_device):
    x = fake_device.array((3, 5000), "float32")
    _scan.inclusive_scan(x, axis=1)
    with pytest.raises(TypeError):
        _scan.inclusive_scan(x, axis=1.0)  # 1.0 == 1: the plan's key tells them apart


@pytest.mark.gpu
def test_a_captured_scan_replays_on_new_data():
    # a graph replay repeats the launch's epoch: the look-back words of the previous replay must
    # not be taken for this one's (the workspace is cleared in the graph before the launch)
    import cupy

    n = 1_000_003  # hundreds of tiles: the look-back crosses tiles
    x = cupy.ones(n, cupy.float64)
    out = cupy.empty(n, cupy.float64)
    _scan.inclusive_scan(x, out=out)  # plans and kernels made outside the capture
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        _scan.inclusive_scan(x, out=out)
        graph = stream.end_capture()
    for value in (2.0, 3.0, -1.0):
        with stream:
            x.fill(value)
            out.fill(cupy.nan)
        graph.launch(stream)
        stream.synchronize()
        np.testing.assert_array_equal(cupy.asnumpy(out), value * np.arange(1, n + 1))
