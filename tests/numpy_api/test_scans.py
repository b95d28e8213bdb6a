"""The NumPy-named scans (ra.cumsum, cumprod, nancumsum, nancumprod) against NumPy.

GPU tests (``@pytest.mark.gpu``) compare with NumPy references computed in float64/complex128 (exact
for integers, which wrap like NumPy), over sizes that cross warp and tile boundaries, every dtype,
N-D arrays along every axis, non-contiguous views, ``out=`` (pre-filled with a sentinel so a missed
element shows), ``dtype=``, NaN handling, determinism, the argument errors and 2^28 elements
(``slow``), on both row kernels. CPU tests cover the argument errors raised before any launch and
that a warm call reuses its plan.
"""

import numpy as np
import pytest

import large
from conftest import NUMERIC_DTYPES, fake, to_device, to_host
from prim_data import assert_scan, reference, scan_data
from launchfake import fake_device  # noqa: F401 (fixture)

from rocarray._core import plans
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


# --------------------------------------------------------------------------------------------
# CPU: pure-Python rules
# --------------------------------------------------------------------------------------------

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


def test_a_warm_cumsum_builds_nothing(fake_device, monkeypatch):
    x = fake_device.array((1000,), "float32")
    api.cumsum(x)
    size = plans.cache.get_curr_size()
    for name in ("_plan", "_into_plan", "_rows_plan", "_lines_plan"):
        monkeypatch.setattr(_scan, name, lambda *a: pytest.fail("a warm cumsum built a plan"))
    r = api.cumsum(x)
    assert r.shape == (1000,) and r.dtype == np.float32
    assert plans.cache.get_curr_size() == size
    first, second = fake_device.launches
    assert (first.name, first.grid) == (second.name, second.grid)
    assert int(second.args[-3]) == int(first.args[-3]) + 1  # a new epoch per launch


# --------------------------------------------------------------------------------------------
# GPU: 1-D, every dtype and size
# --------------------------------------------------------------------------------------------

@pytest.fixture(params=["register", "staged"])
def row_kernel(request):
    """Plain row scans forced onto one row kernel. A device takes one of them (the staged one on
    NVIDIA from sm_90, the register one elsewhere), and both must be right on every device: on
    sm_90 the staged kernel moves aligned tiles with the bulk copy engine and unaligned ones with
    its portable copy."""
    _scan.force_row_kernel(request.param)
    yield request.param
    _scan.force_row_kernel(None)


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
def test_nancumsum_of_integers_is_cumsum(rng):
    x = scan_data(rng, 1000, "int16")
    assert_scan(api.nancumsum(to_device(x)), np.nancumsum(x), np.int64, 1000)


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


@pytest.mark.gpu
@pytest.mark.slow
def test_cumprod_signs_are_exact_2_28():
    large.need(3 * large.N * 4)
    rng = np.random.default_rng(3)
    x = np.where(rng.random(large.N) < 0.5, -1.0, 1.0).astype(np.float32)
    got = to_host(api.cumprod(to_device(x)))
    np.testing.assert_array_equal(got, np.cumprod(x))
