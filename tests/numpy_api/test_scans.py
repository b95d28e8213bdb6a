"""Scans (rocarray.prim inclusive/exclusive/segmented, ra.cumsum/cumprod/nancumsum/nancumprod) against NumPy.

GPU tests (``@pytest.mark.gpu``) compare with NumPy references computed in float64/complex128 (exact
for integers, which wrap like NumPy), over sizes that cross warp and tile boundaries, every dtype,
N-D arrays along every axis, non-contiguous views, ``out=`` (pre-filled with a sentinel so a missed
element shows), ``dtype=``, NaN handling, determinism and the argument errors. CPU tests cover the
pure-Python rules: the accumulation dtype against NumPy, axis normalization, kernel dtype choice and
the registered kernel names.
"""

import re

import numpy as np
import pytest

from conftest import NUMERIC_DTYPES, fake, random_array, to_device, to_host

from rocarray._core import compile as _compile, launch
from rocarray.prim import _scan
import rocarray._numpy.scans as api

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

ALL_DTYPES = NUMERIC_DTYPES
SIZES = [0, 1, 31, 32, 33, 63, 64, 65, 4095, 4096, 4097, 1_000_003]


# --------------------------------------------------------------------------------------------
# references and comparisons
# --------------------------------------------------------------------------------------------

def scan_data(rng, shape, dtype, op="add"):
    """Random data; floats positive for sums (no cancellation), near 1 for products."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        if op == "mul":
            return rng.uniform(0.999, 1.001, shape).astype(dtype)
        scale = min(1.0, 30000.0 / max(int(np.prod(shape)), 1)) if dtype == np.float16 else 1.0
        return (rng.random(shape) * scale).astype(dtype)
    if dtype.kind == "c":
        if op == "mul":
            z = np.exp(1j * rng.uniform(-0.01, 0.01, shape)) * rng.uniform(0.999, 1.001, shape)
            return z.astype(dtype)
        return (rng.random(shape) + 1j * rng.random(shape)).astype(dtype)
    return random_array(rng, shape, dtype)


def reference(x, axis, op="add", dtype=None, nan=False):
    """NumPy's scan, float64/complex128 for floats, NumPy's own integer wrap-around for integers."""
    x = np.asarray(x)
    out_dtype = _scan.accumulation_dtype(x.dtype, dtype)
    if nan and x.dtype.kind in "fc":
        x = np.where(np.isnan(x), 0 if op == "add" else 1, x)
    if out_dtype.kind in "fc":
        wide = np.complex128 if out_dtype.kind == "c" else np.float64
        src = x.astype(out_dtype).astype(wide)
        return (np.cumsum if op == "add" else np.cumprod)(src, axis=axis)
    return (np.cumsum if op == "add" else np.cumprod)(x, axis=axis, dtype=out_dtype)


def assert_scan(got, want, dtype, n, op="add"):
    """Integers exactly; floats to a tolerance scaled by the running magnitude and log2(n) for sums
    of positive data, by sqrt(n) for products (every product's relative error is a random walk)."""
    got = to_host(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    dtype = np.dtype(dtype)
    if dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
        return
    eps = {2: 2.0**-10, 4: 2.0**-23, 8: 2.0**-52}[dtype.itemsize // (2 if dtype.kind == "c" else 1)]
    rtol = 16 * eps * max(1.0, np.log2(max(n, 2)))
    if op == "mul":
        rtol = 16 * eps * max(1.0, np.sqrt(n))
    if dtype == np.float16:
        rtol = 4 * eps  # accumulated in float32, rounded once
    g = got.astype(np.complex128 if dtype.kind == "c" else np.float64)
    np.testing.assert_allclose(g, want, rtol=rtol, atol=rtol * (np.max(np.abs(want)) if want.size else 0))


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


@pytest.mark.parametrize("axis, ndim", [(3, 3), (-4, 3), (1, 1), (0, 0)])
def test_normalize_axis_raises_axis_error(axis, ndim):
    with pytest.raises(np.exceptions.AxisError):
        _scan.normalize_axis(axis, ndim)


def test_normalize_axis_non_integer_is_type_error():
    with pytest.raises(TypeError):
        _scan.normalize_axis(1.0, 2)


@pytest.mark.parametrize("axis, ndim, want", [(-1, 3, 2), (0, 3, 0), (-3, 3, 0), (np.int64(1), 2, 1)])
def test_normalize_axis_values(axis, ndim, want):
    assert _scan.normalize_axis(axis, ndim) == want


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


FACADE_ERRORS = [(fn, kwargs, exc) for fn in ("cumsum", "cumprod", "nancumsum", "nancumprod")
                 for kwargs, exc in (({"dtype": "not-a-dtype"}, TypeError), ({"dtype": "U3"}, TypeError),
                                     ({"axis": 2}, np.exceptions.AxisError),
                                     ({"axis": -3}, np.exceptions.AxisError), ({"axis": 1.0}, TypeError))]


@pytest.mark.parametrize("fn, kwargs, exc", FACADE_ERRORS)
def test_facade_argument_errors_match_numpy(fn, kwargs, exc, monkeypatch):
    """Bad dtypes and axes raise NumPy's exception before any launch (on an array over a made-up
    address, which the refusing scan stub guards)."""
    pytest.importorskip("cupy")
    with pytest.raises(exc):
        getattr(np, fn)(np.ones((3, 4), np.float32), **kwargs)

    def refuse(*args, **kwargs):
        raise AssertionError("the scan was launched")

    monkeypatch.setattr(_scan, "inclusive_scan", refuse)
    with pytest.raises(exc):
        getattr(api, fn)(fake((3, 4), np.float32), **kwargs)


def test_check_op_rejects_unknown_ops_and_complex_min():
    with pytest.raises(ValueError):
        _scan.check_op("sub", np.float32)
    with pytest.raises(TypeError):
        _scan.check_op("max", np.complex64)


# --------------------------------------------------------------------------------------------
# GPU: 1-D, every dtype and size
# --------------------------------------------------------------------------------------------

@pytest.fixture(params=["register", "staged"])
def row_kernel(request, monkeypatch):
    """Plain row scans forced onto one row kernel. A device takes one of them (the staged one on
    NVIDIA from sm_90, the register one elsewhere), and both must be right on every device: on the
    H200 the staged kernel moves aligned tiles with the bulk copy engine and unaligned ones with
    its portable copy."""
    staged = request.param == "staged"

    class Forced(dict):
        def get(self, key, default=None):
            return staged

    monkeypatch.setattr(_scan, "_staged_by_device", Forced())
    return request.param


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_cumsum_matches_numpy(n, dtype, rng, row_kernel):
    x = scan_data(rng, n, dtype)
    assert_scan(api.cumsum(to_device(x)), reference(x, 0), _scan.accumulation_dtype(x.dtype), n)


# Every dtype over the tile-crossing sizes; the float dtypes and one integer dtype also at the warp
# edges and over many tiles (the near-1 data keeps a product of a million terms finite and normal).
CUMPROD_CASES = ([(n, d) for d in ALL_DTYPES for n in (0, 1, 33, 65, 4097, 100_003)]
                 + [(n, d) for d in ("float16", "float32", "float64", "complex64", "complex128", "int32")
                    for n in (31, 32, 63, 64, 1_000_003)])


@pytest.mark.gpu
@pytest.mark.parametrize("n, dtype", CUMPROD_CASES)
def test_cumprod_matches_numpy(n, dtype, rng, row_kernel):
    x = scan_data(rng, n, dtype, op="mul")
    assert_scan(api.cumprod(to_device(x)), reference(x, 0, "mul"), _scan.accumulation_dtype(x.dtype), n, "mul")


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_cumsum_2_24(dtype, rng):
    n = 1 << 24
    x = scan_data(rng, n, dtype)
    assert_scan(api.cumsum(to_device(x)), reference(x, 0), _scan.accumulation_dtype(x.dtype), n)


@pytest.mark.gpu
def test_float32_cumsum_is_deterministic(rng, row_kernel):
    x = to_device(rng.standard_normal(1 << 24).astype(np.float32))
    a = to_host(api.cumsum(x))
    b = to_host(api.cumsum(x))
    assert np.array_equal(a.view(np.uint32), b.view(np.uint32))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint64"])
def test_integer_overflow_wraps_like_numpy(dtype, rng, row_kernel):
    info = np.iinfo(dtype)
    x = rng.integers(info.max // 2, info.max, 100_003, endpoint=True, dtype=dtype)
    assert_scan(api.cumsum(to_device(x)), np.cumsum(x), np.cumsum(x).dtype, x.size)
    assert_scan(api.cumsum(to_device(x), dtype=dtype), np.cumsum(x, dtype=dtype), dtype, x.size)
    assert_scan(api.cumprod(to_device(x), dtype=dtype), np.cumprod(x, dtype=dtype), dtype, x.size)


# --------------------------------------------------------------------------------------------
# GPU: N-D, every axis, layouts
# --------------------------------------------------------------------------------------------

SHAPES_AXES = [((5, 7, 9), a) for a in (0, 1, 2, -1, None)] + [
    ((3, 5000, 4), 1), ((64, 3000), 1), ((64, 3000), 0), ((20000, 3), 0), ((3, 20000), 0),
    ((100_000, 3), 0), ((2, 70_000), 1), ((16384, 17), 1), ((1000, 16), 1), ((4, 3, 2, 5000), 2),
    ((9000, 2), 1), ((1, 1, 1), 1), ((0, 5), 1), ((5, 0), 0),
]


@pytest.mark.gpu
@pytest.mark.parametrize("shape, axis", SHAPES_AXES)
@pytest.mark.parametrize("dtype", ["float32", "int16", "complex128"])
def test_cumsum_nd_every_axis(shape, axis, dtype, rng):
    x = scan_data(rng, shape, dtype)
    n = x.size if axis is None else x.shape[axis]
    want = reference(x.ravel(), 0) if axis is None else reference(x, axis)
    assert_scan(api.cumsum(to_device(x), axis=axis), want, _scan.accumulation_dtype(x.dtype), n)


@pytest.mark.gpu
@pytest.mark.parametrize("view", ["step2", "transpose", "padded_rows", "reversed", "middle_slice"])
@pytest.mark.parametrize("axis", [0, 1])
def test_cumsum_non_contiguous_views(view, axis, rng, row_kernel):
    base = scan_data(rng, (300, 500), "float64")
    d = to_device(base)
    views = {
        "step2": (base[::2, ::3], d[::2, ::3]),
        "transpose": (base.T, d.T),
        "padded_rows": (base[:, :333], d[:, :333]),
        "reversed": (base[::-1, ::-1], d[::-1, ::-1]),
        "middle_slice": (base[10:200, 7:450], d[10:200, 7:450]),
    }
    h, v = views[view]
    assert_scan(api.cumsum(v, axis=axis), reference(h, axis), np.float64, h.shape[axis])
    assert np.array_equal(to_host(d), base)  # input untouched


@pytest.mark.gpu
def test_cumsum_zero_d_and_axis_rules(rng):
    x = np.float64(2.5)
    d = to_device(np.array(x))
    for axis in (None, 0, -1):
        got = to_host(api.cumsum(d, axis=axis))
        assert got.shape == (1,) and got[0] == 2.5
    with pytest.raises(np.exceptions.AxisError):
        api.cumsum(d, axis=1)


# --------------------------------------------------------------------------------------------
# GPU: out=, dtype=, NaN
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("layout", ["c", "strided", "other_dtype", "in_place"])
def test_cumsum_out(layout, rng, row_kernel):
    x = scan_data(rng, (70, 130), "float32")
    want = reference(x, 1)
    if layout == "c":
        out = to_device(np.full(x.shape, -777, np.float32))
    elif layout == "strided":
        out = to_device(np.full((70, 260), -777, np.float32))[:, ::2]
    elif layout == "other_dtype":
        out = to_device(np.full(x.shape, -777, np.float64))
    else:
        out = to_device(x)
    src = out if layout == "in_place" else to_device(x)
    r = api.cumsum(src, axis=1, out=out)
    assert r is out
    assert_scan(out, want, np.float32, 130)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "int64", "complex128"])
def test_in_place_scan_over_many_tiles(dtype, rng, row_kernel):
    """out is the input: every tile must be read before any block writes it."""
    x = scan_data(rng, 1_000_003, dtype)
    d = to_device(x)
    r = api.cumsum(d, out=d)
    assert r is d
    assert_scan(d, reference(x, 0), np.dtype(dtype), x.size)


@pytest.mark.gpu
@pytest.mark.parametrize("src, dtype", [("int8", "int8"), ("float32", "float64"), ("int32", "float32"),
                                        ("int64", "bool"), ("float64", "float16"), ("uint16", "int32"),
                                        ("bool", "uint8"), ("float32", "complex64")])
def test_cumsum_dtype_argument(src, dtype, rng):
    x = scan_data(rng, 4097, src)
    got = api.cumsum(to_device(x), dtype=dtype)
    assert got.dtype == np.dtype(dtype)
    want = np.cumsum(x, dtype=dtype)
    if np.dtype(dtype).kind in "fc":
        want = np.cumsum(x.astype(dtype).astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64))
    assert_scan(got, want, dtype, x.size)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [5000, 100_003])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_nan_behaviour(n, dtype, rng, row_kernel):
    # 100_003 elements span many tiles of either row kernel and end in a partial one.
    x = scan_data(rng, n, dtype)
    x[rng.random(n) < 0.01] = np.nan
    if x.dtype.kind == "c":
        x[rng.random(n) < 0.005] = complex(1.0, np.nan)  # NaN in the imaginary part only
    d = to_device(x)
    got = to_host(api.cumsum(d))
    first = np.argmax(np.isnan(x))
    assert not np.isnan(got[:first]).any() and np.isnan(got[first:]).all()
    assert_scan(api.nancumsum(d), np.nancumsum(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)),
                dtype, x.size)
    y = scan_data(rng, n, dtype, op="mul")
    y[rng.random(n) < 0.01] = np.nan
    assert_scan(api.nancumprod(to_device(y)),
                np.nancumprod(y.astype(np.complex128 if y.dtype.kind == "c" else np.float64)), dtype, y.size, "mul")


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_nancumsum_and_nancumprod_sizes(n, dtype, rng, row_kernel):
    # NaN at the first element, the last one, every seventh and at random (complex: also NaN in
    # the imaginary part alone), at every size: the identity must replace it in every tile.
    def with_nans(x):
        x[rng.random(n) < 0.01] = np.nan
        x[::7] = np.nan
        x[-1:] = np.nan
        if x.dtype.kind == "c":
            x[3::11] = complex(1.0, np.nan)
        return x

    acc = _scan.accumulation_dtype(np.dtype(dtype))
    x = with_nans(scan_data(rng, n, dtype))
    assert_scan(api.nancumsum(to_device(x)), reference(x, 0, nan=True), acc, n)
    y = with_nans(scan_data(rng, n, dtype, op="mul"))
    assert_scan(api.nancumprod(to_device(y)), reference(y, 0, "mul", nan=True), acc, n, "mul")


@pytest.mark.gpu
def test_staged_row_kernels_keep_every_value_in_registers_at_their_resident_blocks():
    from cupy.cuda import driver

    # Each staged kernel is built for staged_blocks resident blocks (ra_prim_stage_plan::BLOCKS):
    # a spill to local memory cost 20 % at 2^28 float32 on the H200 (docs/performance.md), and
    # a block fewer than planned would leave the tile-size choice unmeasured.
    if not _scan._staged(0):
        pytest.skip("this device takes the register row kernel")
    pairs = sorted(((a, b) for a, b in _scan.PAIRS["add"] if _scan.staged_pair("add", a)), key=str)
    names = {n for n in _scan.instantiations() if n.startswith("ra_prim_scan_rows_staged")}
    assert len(pairs) == len(names) == 8
    for a, b in pairs:
        name = _scan.kernel_name("rows_staged", "add", a, b)
        assert name in names
        kernel = _scan._kernel(name, 0)
        blocks = _scan.staged_blocks(a, b)
        attributes = kernel.attributes
        assert attributes["local_size_bytes"] == 0, (name, attributes)
        assert attributes["num_regs"] <= 65536 // (blocks * _scan.BLOCK), (name, attributes)
        shared = _scan.stage_bytes(a, b) + _scan.STAGE_ALIGN
        launch.allow_shared(kernel, shared)
        resident = driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, _scan.BLOCK, shared)
        assert resident == blocks, (name, resident)


@pytest.mark.gpu
def test_nancumsum_of_integers_is_cumsum(rng):
    x = scan_data(rng, 1000, "int16")
    assert_scan(api.nancumsum(to_device(x)), np.nancumsum(x), np.int64, 1000)


# --------------------------------------------------------------------------------------------
# GPU: low-level API (exclusive, segmented, min/max)
# --------------------------------------------------------------------------------------------

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


# --------------------------------------------------------------------------------------------
# GPU: errors
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_errors():
    d = to_device(np.ones((3, 4), np.float32))
    with pytest.raises(np.exceptions.AxisError):
        api.cumsum(d, axis=2)
    with pytest.raises(np.exceptions.AxisError):
        api.cumprod(d, axis=-3)
    with pytest.raises(ValueError):
        api.cumsum(d, axis=1, out=to_device(np.empty((4, 3), np.float32)))
    with pytest.raises(ValueError):
        api.cumsum(d, out=to_device(np.empty((3, 4), np.float32)))  # axis=None: out must be (12,)
    with pytest.raises(TypeError):
        api.cumsum(d, out=[0] * 12)
    with pytest.raises(TypeError):
        api.cumsum(np.ones(3))
    with pytest.raises(TypeError):
        api.cumsum(d, out=np.empty(12, np.float32))
    with pytest.raises(TypeError):
        _scan.inclusive_scan(d, axis=0, op="max", dtype=np.complex64)


# --------------------------------------------------------------------------------------------
# GPU: large
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.slow
def test_cumsum_2_28_float32(rng):
    n = 1 << 28
    x = rng.random(n, dtype=np.float32)
    assert_scan(api.cumsum(to_device(x)), np.cumsum(x, dtype=np.float64), np.float32, n)


@pytest.mark.gpu
@pytest.mark.slow
def test_cumsum_past_2_31_elements_int8():
    n = (1 << 31) + 4099
    free, _ = cupy.cuda.runtime.memGetInfo()
    if free < n * 40:
        pytest.skip(f"needs {n * 40 / 2**30:.0f} GiB free on the device, {free / 2**30:.0f} GiB free")
    x = cupy.ones(n, dtype=np.int8)
    x[n // 3] = 5
    r = api.cumsum(x)
    assert r.dtype == np.int64
    del x
    idx = cupy.asarray([0, n // 3 - 1, n // 3, (1 << 31) - 1, 1 << 31, n - 1], dtype=np.int64)
    got = to_host(r[idx])
    i = to_host(idx)
    want = i + 1 + np.where(i >= n // 3, 4, 0)
    np.testing.assert_array_equal(got, want)
    step = r[1:] - r[:-1]  # every increment is the input: 1, except the 5
    assert int(step.min()) == 1 and int(step.max()) == 5 and int((step == 5).sum()) == 1
