"""Property-based comparisons of values on the GPU: for random shapes (0-sized, 1, primes, up to
three dimensions), layouts (C order, Fortran order, negative strides, broadcast views, a view
that starts one element into its buffer) and keyword values, reductions, sorts, ``matmul`` and the
FFTs give NumPy's result: the same dtype and shape and values within the dtype's tolerance, or an
exception of the kind NumPy raises.

Examples are derandomized (Hypothesis, :data:`EXAMPLES` examples a property, no example database):
every machine runs the same ones; array values come from ``numpy.random.default_rng(seed)`` with
``seed`` drawn by Hypothesis, so they are fixed too.
"""

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

from conftest import to_device, to_host, wide  # noqa: E402

import rocarray as ra  # noqa: E402

pytestmark = pytest.mark.gpu

EXAMPLES = 40
SETTINGS = settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[hypothesis.HealthCheck.filter_too_much, hypothesis.HealthCheck.too_slow])

sizes = st.sampled_from([0, 1, 2, 3, 5, 7, 17, 64])
shapes = st.lists(sizes, min_size=1, max_size=3).map(tuple)
layouts = st.sampled_from(["C", "F", "reversed", "broadcast", "offset"])
seeds = st.integers(0, 2**32 - 1)


def _values(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(-3 if dtype.kind == "i" else 0, 4, shape).astype(dtype)
    x = rng.uniform(0.5, 1.5, shape) * np.where(rng.random(shape) < 0.5, -1, 1)
    if dtype.kind == "c":
        x = x + 1j * rng.uniform(-1, 1, shape)
    return x.astype(dtype)


def _view(xp, a, layout):
    """The same view of host (``xp`` numpy) or device (``xp`` cupy) data ``a`` (C-contiguous)."""
    if layout == "F":
        return xp.asfortranarray(a)
    if layout == "reversed":
        return a[(slice(None, None, -1),) * a.ndim]
    if layout == "broadcast":  # the first row repeated 3 times, stride 0
        return xp.broadcast_to(a[:1], (3,) + a.shape[1:]) if a.ndim and a.shape[0] else a
    if layout == "offset":  # one element into the buffer: a misaligned start
        return a.reshape(-1)[1:]
    return a


def _pair(rng, shape, dtype, layout):
    """(host view, device view) of the same random values and layout."""
    import cupy

    if layout == "offset":
        shape = (int(np.prod(shape)) + 1,)
    host = _values(rng, shape, dtype)
    return _view(np, host, layout), _view(cupy, to_device(host), layout)


def _outcomes(call, host, dev):
    """``(NumPy's result, rocarray's on the host)`` of ``call(np, host)`` and ``call(ra, dev)``, or
    None when NumPy raises (rocarray must then raise an exception of the same kind)."""
    try:
        want = call(np, host)
    except Exception as exc:
        with pytest.raises(type(exc)):
            call(ra, dev)
        return None
    return np.asarray(want), to_host(call(ra, dev))


def _compare(call, host, dev, dtype, n_terms, exact=False):
    """NumPy's outcome of ``call(np, host)`` and rocarray's of ``call(ra, dev)`` agree."""
    outcomes = _outcomes(call, host, dev)
    if outcomes is None:
        return
    want, got = outcomes
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if exact or want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        tol = 16 * np.finfo(want.dtype).eps * max(1, n_terms)
        np.testing.assert_allclose(wide(got), wide(want), rtol=tol, atol=tol)


REDUCTIONS = ["sum", "prod", "min", "max", "mean", "argmin", "argmax", "nansum"]


@pytest.mark.parametrize("name", REDUCTIONS)
@SETTINGS
@given(shape=shapes, layout=layouts, dtype=st.sampled_from(["bool", "int32", "int64", "float32", "float64"]),
       axis=st.one_of(st.none(), st.integers(-3, 2)), keepdims=st.booleans(), seed=seeds)
def test_reductions_match_numpy(name, shape, layout, dtype, axis, keepdims, seed):
    host, dev = _pair(np.random.default_rng(seed), shape, dtype, layout)
    kwargs = {"axis": axis} if name.startswith("arg") else {"axis": axis, "keepdims": keepdims}
    if name == "prod" and dtype.startswith("float"):
        hypothesis.assume(host.size <= 64)  # products of up to 64 factors in [0.5, 1.5] stay in range
    _compare(lambda xp, x: getattr(xp, name)(x, **kwargs), host, dev, dtype, host.size,
             exact=name in ("min", "max", "argmin", "argmax"))


@SETTINGS
@given(shape=shapes, layout=layouts, dtype=st.sampled_from(["int32", "float32", "float64"]),
       axis=st.one_of(st.none(), st.integers(-3, 2)), seed=seeds)
def test_sort_and_argsort_match_numpy(shape, layout, dtype, axis, seed):
    host, dev = _pair(np.random.default_rng(seed), shape, dtype, layout)
    _compare(lambda xp, x: xp.sort(x, axis=axis), host, dev, dtype, 1, exact=True)
    try:
        want = np.argsort(host, axis=axis, kind="stable")
    except Exception as exc:
        with pytest.raises(type(exc)):
            ra.argsort(dev, axis=axis)
        return
    got = to_host(ra.argsort(dev, axis=axis))
    assert got.shape == want.shape and got.dtype == want.dtype
    flat = host.reshape(-1) if axis is None else host
    ax = -1 if axis is None else axis
    # ties may come in another order: a permutation that sorts like NumPy's
    np.testing.assert_array_equal(np.sort(got, axis=ax), np.sort(want, axis=ax))
    np.testing.assert_array_equal(np.take_along_axis(flat, got, axis=ax), np.take_along_axis(flat, want, axis=ax))


@SETTINGS
@given(m=sizes, n=sizes, k=sizes, batch=st.sampled_from([(), (1,), (3,), (2, 1)]),
       dtype=st.sampled_from(["float16", "float32", "float64", "complex64", "complex128"]),
       layout_a=st.sampled_from(["C", "F", "reversed", "transposed"]), layout_b=st.sampled_from(["C", "F", "broadcast"]),
       seed=seeds)
def test_matmul_matches_numpy(m, n, k, batch, dtype, layout_a, layout_b, seed):
    import cupy

    rng = np.random.default_rng(seed)
    a_shape = batch + ((k, m) if layout_a == "transposed" else (m, k))
    a = _values(rng, a_shape, dtype)
    b = _values(rng, (k, n), dtype)

    def views(xp, a, b):
        if layout_a == "transposed":
            a = xp.swapaxes(a, -1, -2)
        elif layout_a != "C":
            a = _view(xp, a, layout_a)
        if layout_b == "broadcast":
            b = xp.broadcast_to(b, batch + b.shape)  # one B for every batch entry (stride 0)
        elif layout_b != "C":
            b = _view(xp, b, layout_b)
        return a, b

    ha, hb = views(np, a, b)
    da, db = views(cupy, to_device(a), to_device(b))
    want = np.matmul(wide(ha), wide(hb))
    got = to_host(ra.matmul(da, db))
    assert got.dtype == np.result_type(ha, hb) and got.shape == want.shape
    # error bound of a k-term dot product in the dtype, against the magnitudes multiplied
    bound = np.matmul(np.abs(wide(ha)), np.abs(wide(hb))) * 4 * np.finfo(dtype).eps * max(1, k) + 1e-30
    if dtype == "float16":
        bound = bound + np.abs(want) * np.finfo(np.float16).eps  # the final rounding to float16
    assert (np.abs(wide(got) - want) <= bound).all(), np.abs(wide(got) - want).max()


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft"])
@SETTINGS
@given(shape=shapes, layout=st.sampled_from(["C", "F", "reversed", "broadcast"]),
       dtype=st.sampled_from(["float32", "float64", "complex64", "complex128"]),
       n=st.one_of(st.none(), st.sampled_from([0, 1, 2, 5, 8, 12, 17, 64])), axis=st.integers(-3, 2),
       norm=st.sampled_from([None, "backward", "ortho", "forward"]), seed=seeds)
def test_ffts_match_numpy(name, shape, layout, dtype, n, axis, norm, seed):
    host, dev = _pair(np.random.default_rng(seed), shape, dtype, layout)
    if name == "rfft":
        hypothesis.assume(host.dtype.kind == "f")  # NumPy 2 rejects complex input to rfft
    precision = np.float32 if dtype in ("float32", "complex64") else np.float64

    def call(xp, x):
        return getattr(xp.fft, name)(x, n=n, axis=axis, norm=norm)

    outcomes = _outcomes(call, host, dev)
    if outcomes is None:
        return
    want, got = outcomes
    # NumPy 2's pocketfft keeps single precision; the kind and shape must match, the width too
    assert got.shape == want.shape and got.dtype.kind == want.dtype.kind, (got.dtype, want.dtype)
    assert np.finfo(got.dtype).eps == np.finfo(precision).eps, got.dtype
    ref = getattr(np.fft, name)(wide(host), n=n, axis=axis, norm=norm)
    scale = max(np.linalg.norm(ref), np.finfo(np.float64).tiny)
    length = max(2, want.shape[axis] if want.ndim else 2, n or 2)
    assert np.linalg.norm(wide(got) - ref) <= 32 * np.finfo(precision).eps * np.log2(length) * scale
