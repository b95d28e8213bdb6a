"""The NumPy-named reductions (ra.sum, prod, min, max, argmin, argmax, mean, all, any, nan*,
count_nonzero) against NumPy.

GPU tests compare with NumPy references in float64/complex128 (exact for integers, which wrap like
NumPy) over sizes that cross warp/block boundaries, every dtype, N-D arrays over every axis
combination (tuples, negative axes), keepdims, ``out=`` (poisoned so an unwritten element shows),
``dtype=``, non-contiguous views, NaN handling, ties, empty inputs, determinism, argument errors and
2^28-element inputs (``slow``). CPU tests cover the result dtypes against NumPy, the argument
errors raised before any launch, and that a warm call reuses its plan.
"""

import itertools
import warnings

import numpy as np
import pytest

import large
from conftest import NUMERIC_DTYPES, fake, random_array, to_device, to_host, wide
from launchfake import fake_device  # noqa: F401 (fixture)

from rocarray._core import plans
from rocarray.prim import _reduce
import rocarray._numpy.reductions as api

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

ALL_DTYPES = NUMERIC_DTYPES
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


def _prod_data(rng, shape, dtype):
    """Host data whose product stays finite and accurate at any size: floats within 5e-4 of +-1
    (float16: 1 and its neighbours 1 +- 2**-10, any sign), complex ones with a small imaginary
    part, signed integers +-1 and unsigned 1 with at most 30 twos, bool all True but at most one."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape))
    if dtype.kind == "b":
        x = np.ones(size, bool)
        if size and rng.random() < 0.5:
            x[rng.integers(size)] = False
        return x.reshape(shape)
    if dtype.kind in "iu":
        x = np.ones(size, dtype) if dtype.kind == "u" else rng.choice(np.array([-1, 1], dtype), size)
        x[rng.choice(size, rng.integers(0, min(size, 30), endpoint=True), replace=False)] *= 2
        return x.reshape(shape)
    if dtype == np.float16:
        re = 1 + 2.0**-10 * rng.integers(-1, 1, size=size, endpoint=True)
    else:
        re = 1 + 1e-3 * (rng.random(size) - 0.5)
    re = np.where(rng.random(size) < 0.01, -re, re)
    x = re + 1e-3j * (rng.random(size) - 0.5) if dtype.kind == "c" else re
    return x.astype(dtype).reshape(shape)


def _ref_prod(x, axis=None, keepdims=False, dtype=None):
    """NumPy's prod (exact for integer results; floating ones in the reference precision, cast to
    NumPy's result dtype)."""
    want = np.asarray(np.prod(x, axis=axis, keepdims=keepdims, dtype=dtype))
    if want.dtype.kind in "fc":
        return np.asarray(np.prod(wide(x), axis=axis, keepdims=keepdims)).astype(want.dtype)
    return want


def _prod_exact_data(rng, n, dtype):
    """Floats +-1 (complex: 1, -1, 1j, -1j) of random sign, with a few factors 2 and 1/2
    (complex: 1 + 1j and 1 - 1j) among them, so every partial product is exact in the dtype."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        x = rng.choice(np.array([1, -1, 1j, -1j]), n)
        special = np.array([1 + 1j, 1 - 1j])
        count = 20
    else:
        x = rng.choice(np.array([1.0, -1.0]), n)
        special = np.array([2.0, 0.5, -2.0])
        count = 10 if dtype == np.float16 else 40
    where = rng.choice(n, min(n, count), replace=False)
    x[where] = rng.choice(special, where.size)
    return x.astype(dtype)


def _prod_rtol(dtype, n):
    """Relative error bound of a product of ``n`` factors multiplied in any order in the
    accumulation dtype (float32 for float16 data, then one rounding to float16): gamma_(n-1) =
    (n - 1) u / (1 - (n - 1) u) (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
    section 3.1), with a complex product's error of at most 2 sqrt(2) u each. A tree of products
    of factors near 1 does drift by a good part of it: its rounding errors are not independent
    (a blocked product of 10^6 float32 factors within 5e-4 of 1 is off by about 4e-4 in NumPy too,
    against 1e-5 for a sequential one)."""
    dtype = np.dtype(dtype)
    u = {"e": 2.0**-24, "f": 2.0**-24, "d": 2.0**-53}[dtype.char.lower()]
    per = 2 * np.sqrt(2) * u if dtype.kind == "c" else u
    gamma = max(n - 1, 1) * per / (1 - max(n - 1, 1) * per)
    return gamma + (2.0**-11 if dtype == np.float16 else 0.0)


def _ref_mean(x, axis=None, keepdims=False, dtype=None):
    """NumPy's mean in the reference precision, cast to NumPy's result dtype."""
    rd = np.asarray(np.mean(x, axis=axis, keepdims=keepdims, dtype=dtype)).dtype
    return np.asarray(np.mean(wide(x), axis=axis, keepdims=keepdims)).astype(rd)


# ------------------------------------------------------------------------------------------
# CPU: result dtypes, argument errors, warm calls
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_result_dtypes_follow_numpy(dtype):
    z = np.zeros(3, dtype)
    assert api.sum_result_dtype(z.dtype) == np.sum(z).dtype
    assert api.sum_result_dtype(z.dtype) == np.prod(z).dtype
    assert api.mean_result_dtype(z.dtype) == np.mean(z).dtype
    assert api.result_shape((2, 3, 4), (0, 2), True) == (1, 3, 1)
    assert api.result_shape((2, 3, 4), (0, 2), False) == (3,)


_AXIS_ERRORS = [("sum", 2, np.exceptions.AxisError), ("sum", (0, -2), ValueError), ("max", 1.5, TypeError),
                ("mean", (0, 3), np.exceptions.AxisError), ("argmax", (0, 1), TypeError),
                ("argmin", -3, np.exceptions.AxisError), ("count_nonzero", (1, 1), ValueError)]


@pytest.mark.parametrize("name, axis, exc", _AXIS_ERRORS)
def test_bad_axes_raise_numpys_errors_before_any_launch(name, axis, exc, monkeypatch):
    pytest.importorskip("cupy")
    with pytest.raises(exc):
        getattr(np, name)(np.ones((3, 4), np.float32), axis=axis)

    def refuse(*args, **kwargs):
        raise AssertionError("the reduction was launched")

    monkeypatch.setattr(_reduce, "reduce", refuse)
    monkeypatch.setattr(_reduce, "argreduce", refuse)
    with pytest.raises(exc):
        getattr(api, name)(fake((3, 4), np.float32), axis=axis)


def test_zero_d_argmax_takes_axis_0_and_minus_1_like_numpy(fake_device):
    x = fake_device.array((), "float32")
    for axis in (None, 0, -1):
        assert api.argmax(x, axis=axis).shape == np.argmax(np.float32(0), axis=axis).shape == ()
    with pytest.raises(np.exceptions.AxisError, match="dimension 1"):
        np.argmax(np.array(1.0), axis=1)
    with pytest.raises(np.exceptions.AxisError, match="dimension 1"):
        api.argmax(x, axis=1)


def test_a_warm_sum_builds_nothing(fake_device, monkeypatch):
    x = fake_device.array((1000,), "float32")
    api.sum(x)
    size = plans.cache.get_curr_size()
    monkeypatch.setattr(_reduce, "_plan", lambda *a: pytest.fail("a warm sum built a plan"))
    monkeypatch.setattr(_reduce, "launch_plan", lambda *a: pytest.fail("a warm sum built a launch"))
    r = api.sum(x)
    assert r.shape == () and r.dtype == np.float32
    assert plans.cache.get_curr_size() == size
    first, second = fake_device.launches[-2:]
    assert (first.name, first.grid, first.block) == (second.name, second.grid, second.block)
    assert first.args[:4] == second.args[:4] and first.args[5:] == second.args[5:]  # all but the result


def test_host_arrays_are_rejected():
    pytest.importorskip("cupy")
    with pytest.raises(TypeError, match="host"):
        api.sum(np.ones(3))


# ------------------------------------------------------------------------------------------
# GPU
# ------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_full_reductions_match_numpy(n, dtype, rng):
    x = random_array(rng, n, dtype)
    d = to_device(x)
    _check(api.sum(d), _ref_sum(x), n, dtype)
    if n:
        _check(api.mean(d), np.asarray(np.mean(wide(x))).astype(np.mean(x[:1]).dtype), n, dtype)
    else:
        # NumPy: NaN of the result dtype (in both parts for complex) and a RuntimeWarning
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = np.asarray(np.mean(x))
        with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
            got = to_host(api.mean(d))
        assert got.shape == () and got.dtype == want.dtype, (got.dtype, want.dtype)
        assert (np.isnan(got.real), np.isnan(got.imag)) == (np.isnan(want.real), np.isnan(want.imag)), got
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
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_prod_whole_arrays(n, dtype, rng):
    x = _prod_data(rng, n, dtype)
    got = to_host(api.prod(to_device(x)))
    assert got.shape == () and got.dtype == np.prod(x[:0]).dtype, got.dtype
    if x.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, np.prod(x))
        return
    np.testing.assert_allclose(wide(got), np.prod(wide(x)), rtol=_prod_rtol(dtype, n))
    # factors whose products are exact in any order: a lost or repeated factor shows exactly
    e = _prod_exact_data(rng, n, dtype)
    np.testing.assert_array_equal(to_host(api.prod(to_device(e))), np.prod(wide(e)).astype(got.dtype))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_prod_and_mean_axes_dtype_out(dtype, rng):
    kind = np.dtype(dtype).kind
    wider = np.complex128 if kind == "c" else np.float64
    narrower = np.complex64 if kind == "c" else np.float32
    p = _prod_data(rng, (4, 5, 6), dtype)
    x = random_array(rng, (4, 5, 6), dtype)
    dp, dx = to_device(p), to_device(x)
    for axis in [None, 0, -1, (0, 2), (1, 2), (0, 1, 2), ()]:
        for keepdims in (False, True):
            # prod of bool/integers accumulates in int64/uint64 (int8 wraps when asked for)
            for dt in (None, wider, np.int8 if kind in "biu" else narrower):
                _check(api.prod(dp, axis=axis, keepdims=keepdims, dtype=dt), _ref_prod(p, axis, keepdims, dt), p.size)
            # mean of bool/integers is float64
            for dt in (None, wider, narrower):
                _check(api.mean(dx, axis=axis, keepdims=keepdims, dtype=dt), _ref_mean(x, axis, keepdims, dt), x.size)
    # out= is poisoned; the result (in its own dtype) is cast into it, so compare at the coarser one
    coarse = np.prod(p[:0]).dtype if kind in "fc" else None
    out = cupy.full((4, 6), np.nan, dtype=wider)
    assert api.prod(dp, axis=1, out=out) is out
    _check(out, _ref_prod(p, 1, False, wider), 5, coarse)
    if kind in "biu":
        out = cupy.full((1, 5, 1), -5, dtype=np.int8)
        assert api.prod(dp, axis=(0, 2), keepdims=True, out=out) is out
        _check(out, np.prod(p, axis=(0, 2), keepdims=True).astype(np.int8))
    out = cupy.full((1, 5, 1), np.nan, dtype=narrower)
    assert api.mean(dx, axis=(0, 2), keepdims=True, out=out) is out
    _check(out, _ref_mean(x, (0, 2), True, narrower), 24, "float16" if dtype == "float16" else None)
    out = cupy.full((), np.nan, dtype=wider)
    assert api.mean(dx, out=out) is out
    _check(out, _ref_mean(x, None, False, wider), x.size, np.mean(x).dtype if kind in "fc" else None)


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
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64"])
def test_nan_functions_over_axes(dtype, rng):
    x = random_array(rng, (6, 35, 40), dtype)
    x[1:][rng.random((5, 35, 40)) < 0.05] = np.nan  # x[0] stays finite: no all-NaN slice through axis 0
    x[2, 3] = np.nan  # one all-NaN line along the last axis
    d = to_device(x)
    for axis, keepdims in [(None, False), (0, True), ((0, 2), False), ((1, 0), True), ((0, 1, 2), False)]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _check(api.nansum(d, axis=axis, keepdims=keepdims),
                   np.asarray(np.nansum(wide(x), axis=axis, keepdims=keepdims)).astype(x.dtype), x.size, dtype)
            for f in ("nanmin", "nanmax"):
                _check(getattr(api, f)(d, axis=axis, keepdims=keepdims),
                       np.asarray(getattr(np, f)(x, axis=axis, keepdims=keepdims)))
            _check(api.nanmean(d, axis=axis, keepdims=keepdims),
                   np.asarray(np.nanmean(wide(x), axis=axis, keepdims=keepdims)).astype(x.dtype), x.size, dtype)
        assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], axis
    # the all-NaN line: NaN from nanmin/nanmax/nanmean (with NumPy's warnings), zero from nansum
    with pytest.warns(RuntimeWarning, match="All-NaN"):
        got = api.nanmin(d, axis=-1, keepdims=True)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        mean = api.nanmean(d, axis=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _check(got, np.asarray(np.nanmin(x, axis=-1, keepdims=True)))
        _check(mean, np.asarray(np.nanmean(wide(x), axis=2)).astype(x.dtype), 40, dtype)
    _check(api.nansum(d, axis=-1), np.asarray(np.nansum(wide(x), axis=-1)).astype(x.dtype), 40, dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "uint8", "uint32", "int64", "uint64"])
def test_nan_functions_on_integers_and_bool(dtype, rng):
    # no NaN to skip: NumPy gives the plain reductions' values and dtypes, and no warning
    x = random_array(rng, (6, 35, 40), dtype)
    d = to_device(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for axis in [None, 0, -1, (0, 2)]:
            for keepdims in (False, True):
                for f in ("nansum", "nanprod", "nanmin", "nanmax"):
                    _check(getattr(api, f)(d, axis=axis, keepdims=keepdims),
                           np.asarray(getattr(np, f)(x, axis=axis, keepdims=keepdims)))
                want = np.asarray(np.nanmean(x, axis=axis, keepdims=keepdims))
                _check(api.nanmean(d, axis=axis, keepdims=keepdims),
                       np.asarray(np.mean(wide(x), axis=axis, keepdims=keepdims)).astype(want.dtype), x.size)
        for axis in (None, 1):
            for f in ("nanargmin", "nanargmax"):
                _check(getattr(api, f)(d, axis=axis), np.asarray(getattr(np, f)(x, axis=axis)))
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]


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


_AXIS_FUNCS = ["sum", "prod", "mean", "all", "any", "min", "max", "argmin", "argmax", "nansum", "nanprod",
               "nanmin", "nanmax", "nanmean", "nanargmin", "nanargmax", "count_nonzero"]
_DTYPE_FUNCS = ["sum", "prod", "mean", "nansum", "nanprod", "nanmean"]


@pytest.mark.gpu
def test_bad_axis_and_dtype_errors():
    # every case is checked against NumPy first: only NumPy's own errors are asserted
    x = np.ones((3, 4), np.float32)
    d = to_device(x)
    for name in _AXIS_FUNCS:
        bad = [2, 3, -3] + ([] if "arg" in name else [(0, 3), (-3, 1)])  # arg* take one axis
        for axis in bad:
            with pytest.raises(np.exceptions.AxisError):
                getattr(np, name)(x, axis=axis)
            with pytest.raises(np.exceptions.AxisError):
                getattr(api, name)(d, axis=axis)
    for name in _DTYPE_FUNCS:
        with pytest.raises(TypeError):
            getattr(np, name)(x, dtype="not-a-dtype")
        with pytest.raises(TypeError):
            getattr(api, name)(d, dtype="not-a-dtype")


@pytest.mark.gpu
def test_deterministic_bitwise(rng):
    x = to_device(random_array(rng, 3_000_017, "float32"))
    a = [to_host(api.sum(x)) for _ in range(3)]
    assert a[0].tobytes() == a[1].tobytes() == a[2].tobytes()
    m = to_device(random_array(rng, (4000, 3000), "float32"))
    b = [to_host(api.sum(m, axis=0)) for _ in range(2)]
    assert b[0].tobytes() == b[1].tobytes()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_deterministic_bitwise_wide(dtype, rng):
    x = to_device(random_array(rng, 3_000_017, dtype))
    a = [to_host(api.sum(x)).tobytes() for _ in range(3)]
    assert a[0] == a[1] == a[2]
    # columns (split along the reduced axis) and a few long rows (split across blocks)
    for shape, axis in [((3000, 2000), 0), ((8, 400_003), 1)]:
        m = to_device(random_array(rng, shape, dtype))
        b = [to_host(api.sum(m, axis=axis)).tobytes() for _ in range(3)]
        assert b[0] == b[1] == b[2], (shape, axis)


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


# ------------------------------------------------------------------------------------------
# GPU: 2^28 elements (data on the device; references that do not depend on the order of the adds)
# ------------------------------------------------------------------------------------------

N = large.N


@pytest.mark.gpu
@pytest.mark.slow
def test_min_max_argmin_argmax_mean_2_28():
    x, d = large.floats()
    for f in ("min", "max", "argmin", "argmax"):
        assert to_host(getattr(api, f)(d)) == getattr(np, f)(x), f
    want = np.mean(x, dtype=np.float64)
    got = to_host(api.mean(d))
    assert got.dtype == np.float32
    assert abs(float(got) - want) <= 1e-6 * want


@pytest.mark.gpu
@pytest.mark.slow
def test_prod_float64_near_one_2_28():
    large.need(3 * N * 8)
    rng = np.random.default_rng(1)
    x = 1.0 + 1e-8 * (rng.random(N) - 0.5)
    got = float(to_host(api.prod(to_device(x))))
    want = float(np.exp(np.sum(np.log(x))))
    # within the bound of any multiplication order, (N - 1) 2^-53 = 3e-8 (a tree of products of
    # factors near 1 drifts by a good part of it)
    assert abs(got - want) <= (N - 1) * 2.0**-53 * abs(want)


@pytest.mark.gpu
@pytest.mark.slow
def test_all_any_one_odd_element_2_28():
    large.need(4 * N)
    rng = np.random.default_rng(2)
    for pos in (0, N - 1, int(rng.integers(1, N - 1))):
        ones = np.ones(N, bool)
        ones[pos] = False
        d = to_device(ones)
        assert not bool(to_host(api.all(d))) and bool(to_host(api.any(d)))
        del d
        zeros = np.zeros(N, bool)
        zeros[pos] = True
        d = to_device(zeros)
        assert bool(to_host(api.any(d))) and not bool(to_host(api.all(d)))
        assert int(to_host(api.count_nonzero(d))) == 1
        del d


@pytest.mark.gpu
@pytest.mark.slow
def test_nan_reductions_2_28():
    x, _ = large.floats()
    y = x.copy()
    y[np.random.default_rng(6).integers(0, N, N // 100)] = np.nan
    d = to_device(y)
    want = np.nansum(y, dtype=np.float64)
    assert abs(float(to_host(api.nansum(d))) - want) <= 1e-5 * want
    assert to_host(api.nanmax(d)) == np.nanmax(y) and to_host(api.nanmin(d)) == np.nanmin(y)
    assert np.isnan(to_host(api.max(d)))


def _small_integers(dtype, seed):
    """2^28 integer values of ``dtype``: 0/1 for bool, -1..1 for float16 (its sum must fit float16),
    0..100 unsigned, else -100..100 (complex: both parts)."""
    cupy.random.seed(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return cupy.random.randint(0, 2, N).astype(dtype)
    low, high = (0, 101) if dtype.kind == "u" else (-1, 2) if dtype == np.float16 else (-100, 101)
    x = cupy.random.randint(low, high, N).astype(dtype)
    if dtype.kind == "c":
        x.imag = cupy.random.randint(low, high, N)
    return x


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_sum_and_extremes_every_dtype_2_28(dtype):
    # integer-valued data: every partial sum is an integer below 2^24 in magnitude (the walk's
    # spread is 58 * 2^14 = 1e6), exact in every accumulation type, so the sum must equal the
    # int64 sum exactly, whatever the order of the adds; float16 accumulates in float32 and
    # rounds once (its values are -1..1 so the sum, about 1.3e4, fits)
    large.need(6 * N * np.dtype(dtype).itemsize + N * 8)
    x = _small_integers(dtype, 28)
    got = to_host(api.sum(x))
    want_dtype = np.sum(np.zeros(1, dtype)).dtype
    assert got.dtype == want_dtype
    if np.dtype(dtype).kind == "c":
        want = complex(int(x.real.astype(np.int64).sum()), int(x.imag.astype(np.int64).sum()))
    else:
        want = int(x.astype(np.int64).sum())
    assert got == np.asarray(want).astype(want_dtype), (got, want)
    if np.dtype(dtype).kind == "c":
        return
    lo, hi = x.min(), x.max()
    assert to_host(api.min(x)) == to_host(lo) and to_host(api.max(x)) == to_host(hi)
    # NumPy's tie-break: the first index of the extreme (about N / 201 ties here)
    assert int(api.argmin(x)) == int(cupy.flatnonzero(x == lo)[0])
    assert int(api.argmax(x)) == int(cupy.flatnonzero(x == hi)[0])


@pytest.mark.gpu
@pytest.mark.parametrize("n", [255, 256, 257, 4095, 4097, 65535, 65537, (1 << 20) + 3, (1 << 22) - 1, (1 << 24) + 5])
@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_float32_products_of_factors_near_one_are_accurate_at_every_size(n, dtype, rng):
    # float32 products in a balanced tree drift by about -u/16 per product (-0.7 % at 2^20
    # factors); accumulated in float64 they stay within a few float32 ulps of the exact product
    x = 1 + 1e-4 * rng.standard_normal(n)
    if dtype == "complex64":
        x = x + 1e-4j * rng.standard_normal(n)
    x = x.astype(dtype)
    want = np.prod(wide(x))
    got = to_host(api.prod(to_device(x)))
    assert got.dtype == x.dtype
    assert abs(complex(got) - want) <= 4 * np.finfo(np.float32).eps * abs(want), (complex(got), want)
    got_nan = to_host(api.nanprod(to_device(np.where(rng.random(n) < 0.01, np.nan, x).astype(dtype))))
    assert np.isfinite(complex(got_nan))
