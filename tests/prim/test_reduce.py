"""Reductions (rocarray.prim.reduce/argreduce and ra.sum, prod, min, max, argmin, argmax, mean, all,
any, nan*, count_nonzero) against NumPy.

GPU tests compare with NumPy references in float64/complex128 (exact for integers, which wrap like
NumPy) over sizes that cross warp/block boundaries, every dtype, N-D arrays over every axis
combination (tuples, negative axes), keepdims, ``out=`` (poisoned so an unwritten element shows),
``dtype=``, non-contiguous views, NaN handling, ties, empty inputs, determinism and argument errors.
CPU tests cover the pure-Python rules: result dtypes against NumPy, axis normalization, the layout
planner and kernel choice, registered kernel names.
"""

import itertools
import re
import warnings

import numpy as np
import pytest

from conftest import random_array, to_device, to_host, wide

from rocarray._core import compile as _compile
from rocarray.prim import _reduce
import rocarray._reduce_api as api

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

ALL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64", "complex64", "complex128"]
SIZES = [0, 1, 31, 32, 33, 63, 64, 65, 1_000_003]


def _check(got, want, n=1, dtype=None):
    got = to_host(got) if not isinstance(got, (int, np.ndarray, np.generic)) else np.asarray(got)
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
        return
    dt = np.dtype(dtype) if dtype is not None and np.dtype(dtype).kind in "fc" else want.dtype
    eps = {"e": 2.0**-10, "f": 2.0**-23, "d": 2.0**-52}[dt.char.lower()]
    rtol = 8 * eps * max(1.0, np.sqrt(max(n, 1)))
    g, w = wide(got), wide(want)
    assert np.array_equal(np.isnan(g), np.isnan(w))
    scale = float(np.nanmax(np.abs(w))) if w.size and not np.all(np.isnan(w)) else 0.0
    ok = ~np.isnan(w)
    np.testing.assert_allclose(g[ok], w[ok], rtol=rtol, atol=rtol * max(scale, 1.0) * np.sqrt(max(n, 1)))


def _ref_sum(x, axis=None, keepdims=False):
    """NumPy's sum in the reference precision, cast to NumPy's result dtype."""
    rd = np.sum(x[:0] if x.ndim == 1 else x, axis=axis, keepdims=keepdims).dtype if x.size else np.sum(x).dtype
    if x.dtype.kind in "fc":
        return np.asarray(np.sum(wide(x), axis=axis, keepdims=keepdims)).astype(rd)
    return np.asarray(np.sum(x, axis=axis, keepdims=keepdims))


# ------------------------------------------------------------------------------------------
# CPU: dtype rules, axes, layout, registration
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_result_dtypes_follow_numpy(dtype):
    z = np.zeros(3, dtype)
    assert api.sum_result_dtype(z.dtype) == np.sum(z).dtype
    assert api.sum_result_dtype(z.dtype) == np.prod(z).dtype
    assert api.mean_result_dtype(z.dtype) == np.mean(z).dtype
    op, kin, kout = _reduce.kernel_dtypes("add", z.dtype, np.sum(z).dtype)
    assert (kin, kout) in _reduce.PAIRS[op]
    for op in ("min", "max", "argmin", "argmax", "mul", "nnz"):
        res = np.dtype(np.int64) if op.startswith("arg") or op == "nnz" else (
            api.sum_result_dtype(z.dtype) if op == "mul" else z.dtype)
        op2, kin, kout = _reduce.kernel_dtypes(op, z.dtype, res)
        assert (kin, kout) in _reduce.PAIRS[op2], (op, dtype, kin, kout)


def test_nnz_masks_clear_sign_bits():
    assert _reduce.nnz_mask(np.float32) == 0x7FFFFFFF
    assert _reduce.nnz_mask(np.float16) == 0x7FFF
    assert _reduce.nnz_mask(np.int8) == 0xFF
    assert _reduce.nnz_mask(np.complex64) == 0x7FFFFFFF7FFFFFFF


def test_normalize_axes_like_numpy():
    assert api.normalize_axes(None, 3) == (0, 1, 2)
    assert api.normalize_axes(-1, 3) == (2,)
    assert api.normalize_axes((2, -3), 3) == (0, 2)
    with pytest.raises(np.exceptions.AxisError):
        api.normalize_axes(3, 3)
    with pytest.raises(ValueError, match="duplicate"):
        api.normalize_axes((0, -3), 3)
    with pytest.raises(TypeError):
        api.normalize_axes(1.5, 3)
    with pytest.raises(TypeError):
        api.normalize_arg_axis((0, 1), 2)
    assert api.result_shape((2, 3, 4), (0, 2), True) == (1, 3, 1)


def _estr(x):
    return tuple(s // x.itemsize for s in x.strides)


@pytest.mark.parametrize("shape,axes,kind", [
    ((1000,), (0,), "rows"), ((64, 5000), (1,), "rows"), ((5000, 64), (0,), "cols"),
    ((4, 5, 6), (1,), "lines"), ((30, 400, 40), (1,), "cols"), ((30, 400, 40), (0, 1), "cols"),
    ((30, 40, 400), (1, 2), "rows"), ((7, 3), (0, 1), "rows"), ((3, 5), (0, 1), "lines"), ((300, 20, 40), (0, 2), "copy"),
])
def test_plan_kinds(shape, axes, kind):
    x = np.empty(shape, np.float32)
    assert _reduce.plan(x.shape, _estr(x), axes, False).kind == kind


def test_plan_views_need_no_copy():
    x = np.empty((300, 500), np.float32)
    p = _reduce.plan(x.T.shape, _estr(x.T), (0,), False)  # transposed: rows of the original
    assert p.kind == "rows" and (p.outer, p.n, p.so) == (300, 500, 500)
    p = _reduce.plan(x.shape, _estr(x), (0, 1), False)
    assert p.kind == "rows" and (p.outer, p.n) == (1, 150000)
    p = _reduce.plan(x.T.shape, _estr(x.T), (0, 1), False)  # any order for order-free ops
    assert p.kind == "rows" and p.n == 150000
    r = x[::-1]
    p = _reduce.plan(r.shape, _estr(r), (0, 1), False)
    assert p.kind == "rows" and p.offset == -299 * 500
    p = _reduce.plan(x.T.shape, _estr(x.T), (0, 1), True)  # arg ops keep C order: copy
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


def test_host_arrays_are_rejected():
    pytest.importorskip("cupy")
    with pytest.raises(TypeError, match="host"):
        api.sum(np.ones(3))


# ------------------------------------------------------------------------------------------
# GPU
# ------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "uint16", "int64", "float16", "float32",
                                   "float64", "complex64", "complex128"])
def test_full_reductions_match_numpy(n, dtype, rng):
    x = random_array(rng, n, dtype)
    d = to_device(x)
    _check(api.sum(d), _ref_sum(x), n, dtype)
    _check(api.mean(d), np.asarray(np.mean(wide(x))).astype(np.mean(x[:1]).dtype) if n else np.asarray(np.nan), n,
           dtype) if n else None
    _check(api.count_nonzero(d), np.asarray(np.count_nonzero(x)))
    _check(api.all(d), np.asarray(np.all(x)))
    _check(api.any(d), np.asarray(np.any(x)))
    if n:
        for f in ("min", "max", "argmin", "argmax"):
            _check(getattr(api, f)(d), np.asarray(getattr(np, f)(x)))
        xs = x[:16]
        _check(api.prod(to_device(xs)), np.asarray(np.prod(xs)) if x.dtype.kind not in "fc"
               else np.asarray(np.prod(wide(xs))).astype(np.prod(xs).dtype), 16, dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_every_dtype_on_axes(dtype, rng):
    x = random_array(rng, (5, 37, 66), dtype)
    d = to_device(x)
    for axis in [None, 0, 1, 2, -1, (0, 1), (1, 2), (0, 2), (0, 1, 2), ()]:
        _check(api.sum(d, axis=axis), _ref_sum(x, axis), x.size, dtype)
        _check(api.max(d, axis=axis), np.asarray(np.max(x, axis=axis)))
        _check(api.min(d, axis=axis, keepdims=True), np.asarray(np.min(x, axis=axis, keepdims=True)))
        _check(api.any(d, axis=axis), np.asarray(np.any(x, axis=axis)))
        _check(api.all(d, axis=axis, keepdims=True), np.asarray(np.all(x, axis=axis, keepdims=True)))
        _check(api.count_nonzero(d, axis=axis), np.asarray(np.count_nonzero(x, axis=axis)))
    for axis in [None, 0, 1, 2, -2]:
        _check(api.argmax(d, axis=axis), np.asarray(np.argmax(x, axis=axis)))
        _check(api.argmin(d, axis=axis, keepdims=True), np.asarray(np.argmin(x, axis=axis, keepdims=True)))


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(3000, 7), (7, 3000), (64, 4100), (4100, 64), (2, 3, 4, 5), (1, 70000), (70000, 1)])
def test_all_axis_combinations_and_views(shape, rng):
    x = random_array(rng, shape, "float32")
    d = to_device(x)
    views = [(x, d), (x.T, d.T), (x[::2], d[::2]), (x[..., ::-1], d[..., ::-1])]
    for hv, dv in views:
        nd = hv.ndim
        for r in range(nd + 1):
            for axis in itertools.combinations(range(nd), r):
                _check(api.sum(dv, axis=axis), _ref_sum(hv, axis), hv.size, "float32")
                _check(api.max(dv, axis=axis), np.asarray(np.max(hv, axis=axis)))
        for axis in list(range(-nd, nd)) + [None]:
            _check(api.argmin(dv, axis=axis), np.asarray(np.argmin(hv, axis=axis)))


@pytest.mark.gpu
def test_big_axis_reductions_rows_and_columns(rng):
    x = random_array(rng, (1500, 3000), "float64")
    d = to_device(x)
    for axis in (0, 1):
        _check(api.sum(d, axis=axis), np.sum(x, axis=axis), 3000, "float64")
        _check(api.argmax(d, axis=axis), np.argmax(x, axis=axis))
        _check(api.mean(d, axis=axis), np.mean(x, axis=axis), 3000, "float64")


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_nan_semantics(dtype, rng):
    x = random_array(rng, (40, 300), dtype)
    x[rng.random(x.shape) < 0.05] = np.nan
    x[3] = np.nan  # an all-NaN row
    d = to_device(x)
    for axis in (None, 0, 1):
        for f in ("max", "min", "argmax", "argmin"):
            _check(getattr(api, f)(d, axis=axis), np.asarray(getattr(np, f)(x, axis=axis)))
        _check(api.nansum(d, axis=axis), np.asarray(np.nansum(wide(x), axis=axis)).astype(x.dtype), 300, dtype)
    with pytest.warns(RuntimeWarning, match="All-NaN"):
        got = api.nanmax(d, axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check(got, np.asarray(np.nanmax(x, axis=1)))
        _check(api.nanmin(d, axis=0), np.asarray(np.nanmin(x, axis=0)))
        _check(api.nanmean(d, axis=1), np.asarray(np.nanmean(x, axis=1)), 300, dtype)
    _check(api.nanargmin(d, axis=0), np.asarray(np.nanargmin(x, axis=0)))
    _check(api.nanargmax(d[4:], axis=1), np.asarray(np.nanargmax(x[4:], axis=1)))
    with pytest.raises(ValueError, match="All-NaN"):
        api.nanargmin(d, axis=1)


@pytest.mark.gpu
def test_ties_first_index_and_complex_order():
    x = np.array([3, 1, 7, 1, 7, 0, 0], np.int64)
    _check(api.argmin(to_device(x)), np.asarray(np.argmin(x)))
    _check(api.argmax(to_device(x)), np.asarray(np.argmax(x)))
    big = np.zeros(1_000_003, np.float32)
    big[[5, 700_000, 999_999]] = 9
    _check(api.argmax(to_device(big)), np.asarray(5))
    c = np.array([2 + 1j, 2 + 0j, 1 + 5j, 1 + 5j, 2 + 1j], np.complex128)
    for f in ("min", "max", "argmin", "argmax"):
        _check(getattr(api, f)(to_device(c)), np.asarray(getattr(np, f)(c)))


@pytest.mark.gpu
def test_out_dtype_initial_keepdims(rng):
    x = random_array(rng, (33, 65), "int16")
    d = to_device(x)
    out = cupy.full((65,), 777, dtype=np.float32)
    r = api.sum(d, axis=0, out=out)
    assert r is out
    _check(out, np.sum(x, axis=0).astype(np.float32))
    out = cupy.full((33, 1), -5, dtype=np.int8)
    api.max(d, axis=1, keepdims=True, out=out)
    _check(out, np.max(x, axis=1, keepdims=True).astype(np.int8))
    _check(api.sum(d, dtype=np.int8), np.asarray(np.sum(x, dtype=np.int8)))
    _check(api.sum(d, axis=1, dtype=np.float64), np.sum(x, axis=1, dtype=np.float64))
    _check(api.sum(d, initial=10), np.asarray(np.sum(x, initial=10)))
    _check(api.max(d, axis=0, initial=50), np.max(x, axis=0, initial=50))
    _check(api.min(to_device(np.zeros((0, 3), np.int16)), axis=0, initial=4), np.min(np.zeros((0, 3), np.int16), axis=0,
                                                                                      initial=4))
    _check(api.sum(to_device(np.array([True, True])), dtype=bool), np.asarray(np.sum(np.array([True, True]), dtype=bool)))
    out = cupy.full((), 9, dtype=np.int32)
    api.argmax(d, out=out)
    _check(out, np.asarray(np.argmax(x), dtype=np.int32))


@pytest.mark.gpu
def test_integer_overflow_wraps():
    x = np.full(1000, 2**62, np.int64)
    _check(api.sum(to_device(x)), np.asarray(np.sum(x)))
    y = np.full(70, 3, np.int8)
    _check(api.prod(to_device(y)), np.asarray(np.prod(y)))
    u = np.full(100, 2**63, np.uint64)
    _check(api.sum(to_device(u)), np.asarray(np.sum(u)))


@pytest.mark.gpu
def test_empty_reductions():
    e = to_device(np.zeros((0, 4), np.float32))
    _check(api.sum(e), np.asarray(np.sum(np.zeros((0, 4), np.float32))))
    _check(api.prod(e, axis=0), np.prod(np.zeros((0, 4), np.float32), axis=0))
    _check(api.max(e, axis=1), np.max(np.zeros((0, 4), np.float32), axis=1))
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        api.max(e)
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum"):
        api.min(e, axis=0)
    with pytest.raises(ValueError, match="attempt to get argmin of an empty sequence"):
        api.argmin(e)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        r = api.mean(e)
    assert np.isnan(to_host(r))
    _check(api.all(e), np.asarray(True))
    _check(api.any(e), np.asarray(False))


@pytest.mark.gpu
def test_float16_and_mean_dtypes(rng):
    x = random_array(rng, 100_003, "float16")
    d = to_device(x)
    r = api.sum(d)
    assert r.dtype == np.float16
    _check(r, np.asarray(np.sum(wide(x))).astype(np.float16), 100_003, "float16")
    m = api.mean(d)
    assert m.dtype == np.float16
    _check(m, np.asarray(np.mean(wide(x))).astype(np.float16), 4, "float16")
    i = random_array(rng, 1000, "int32")
    assert api.mean(to_device(i)).dtype == np.float64
    _check(api.mean(to_device(i)), np.asarray(np.mean(i)), 1000, "float64")


@pytest.mark.gpu
def test_argument_errors():
    d = to_device(np.ones((3, 4), np.float32))
    with pytest.raises(np.exceptions.AxisError):
        api.sum(d, axis=2)
    with pytest.raises(ValueError, match="duplicate"):
        api.max(d, axis=(1, -1))
    with pytest.raises(TypeError):
        api.argmax(d, axis=(0, 1))
    with pytest.raises(ValueError):
        api.sum(d, axis=0, out=cupy.empty(3, np.float32))
    with pytest.raises(TypeError):
        api.sum(d, out=np.empty((), np.float32))
    with pytest.raises(NotImplementedError):
        api.sum(d, where=cupy.ones((3, 4), bool))
    with pytest.raises(TypeError):
        api.sum(np.ones(3))


@pytest.mark.gpu
def test_deterministic_bitwise(rng):
    x = to_device(random_array(rng, 3_000_017, "float32"))
    a = [to_host(api.sum(x)) for _ in range(3)]
    assert a[0].tobytes() == a[1].tobytes() == a[2].tobytes()
    m = to_device(random_array(rng, (4000, 3000), "float32"))
    b = [to_host(api.sum(m, axis=0)) for _ in range(2)]
    assert b[0].tobytes() == b[1].tobytes()


@pytest.mark.gpu
def test_sum_2_28_float32():
    n = 1 << 28
    free, _ = cupy.cuda.runtime.memGetInfo()
    if free < n * 8:
        pytest.skip("not enough free device memory")
    x = cupy.random.random(n, dtype=np.float32)
    want = float(cupy.sum(x.astype(np.float64)))
    got = float(api.sum(x))
    assert abs(got - want) <= 1e-5 * abs(want)
    assert int(api.argmax(x)) == int(cupy.argmax(x))


@pytest.mark.gpu
@pytest.mark.slow
def test_sum_past_2_31_elements_int8():
    n = (1 << 31) + 7
    free, _ = cupy.cuda.runtime.memGetInfo()
    if free < n * 6:
        pytest.skip(f"needs {n * 6 / 2**30:.0f} GiB free on the device, {free / 2**30:.0f} GiB free")
    x = cupy.ones(n, dtype=np.bool_)
    x[n - 3] = False
    assert api.count_nonzero(x) == n - 1
    _check(api.sum(x), np.asarray(n - 1, np.int64))
    del x
    y = cupy.ones(n, dtype=np.int8)
    y[-1] = 5
    _check(api.sum(y), np.asarray(n + 4, np.int64))
