"""Data and comparisons shared by the tests of prim's own functions (``tests/prim``) and of the
NumPy names on top of them (``tests/numpy_api``): random data of every dtype with repeats, NaN and
signed zeros, NumPy scan references, and exact or dtype-tolerance comparisons."""

import numpy as np

from conftest import random_array, to_host

from rocarray.prim import _scan


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


def data(rng, shape, dtype, span=40):
    """Random values with many repeats; floats get NaN and +-0.0; complex NaN parts."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    info_ok = dtype.kind != "u"
    x = rng.integers(-span if info_ok else 0, span, size=shape)
    if dtype.kind == "c":
        x = x + 1j * rng.integers(-2, 2, size=shape)
    x = np.asarray(x).astype(dtype)
    if dtype.kind in "fc" and x.size:
        flat = x.reshape(-1)
        flat[rng.random(flat.size) < 0.05] = np.nan
        if dtype.kind == "f":
            flat[rng.random(flat.size) < 0.05] = -0.0
        else:
            flat[rng.random(flat.size) < 0.03] = complex(2, np.nan)
    return x


def check(got, want):
    if not isinstance(want, tuple):
        got, want = (got,), (want,)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        g = to_host(g)
        assert g.shape == w.shape, (g.shape, w.shape)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_array_equal(g, w)


def sparse_data(rng, shape, dtype, density=0.5):
    """Random values with about ``1 - density`` zeros (floats: some -0.0, which is zero, and NaN)."""
    dtype = np.dtype(dtype)
    x = rng.integers(1, 100, size=shape) * (rng.random(shape) < density)
    if dtype.kind == "c":
        x = x + 1j * (rng.integers(0, 3, size=shape) * (rng.random(shape) < 0.3))
    x = x.astype(dtype)
    if dtype.kind == "f" and x.size:
        flat = x.reshape(-1)
        flat[rng.random(flat.size) < 0.05] = -0.0
        flat[rng.random(flat.size) < 0.02] = np.nan
    return x


def same(got, want):
    got = to_host(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)
