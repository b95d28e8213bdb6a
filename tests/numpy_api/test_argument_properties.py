"""Property-based checks of the façade's argument handling, on the CPU: for random shapes,
dtypes, axes (negative, out of range, repeated, tuples) and keyword values, every call that NumPy
rejects is rejected by rocarray with an exception of NumPy's kind, before any device work (the
arrays live at made-up device addresses and are never launched on). Calls NumPy accepts are the
GPU suite's to compare by value. Examples are derandomized: the same ones run on every machine."""

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

from conftest import fake  # noqa: E402

import rocarray as ra  # noqa: E402

pytest.importorskip("cupy")

EXAMPLES = settings(max_examples=150, derandomize=True, deadline=None, database=None)

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "float16", "float32", "float64",
          "complex64", "complex128"]
shapes = st.lists(st.sampled_from([0, 1, 2, 3, 5, 7]), min_size=0, max_size=3).map(tuple)
single_axes = st.one_of(st.none(), st.integers(-4, 4))
axes = st.one_of(single_axes, st.lists(st.integers(-4, 4), min_size=0, max_size=3).map(tuple))


def _numpy_outcome(fn, shape, dtype, kwargs):
    try:
        fn(np.zeros(shape, dtype), **kwargs)
    except Exception as exc:  # the kind NumPy raises is what rocarray must raise
        return exc
    return None


def _same_kind(rejected, shape, dtype, call):
    """NumPy rejected the call with ``rejected``: rocarray must raise an exception of its type."""
    with pytest.raises(type(rejected)):
        call(fake(shape, dtype))


REDUCTIONS = ["sum", "prod", "min", "max", "amin", "amax", "mean", "any", "all", "nansum", "nanprod", "nanmin",
              "nanmax", "nanmean"]


@pytest.mark.parametrize("name", REDUCTIONS)
@EXAMPLES
@given(shape=shapes, dtype=st.sampled_from(DTYPES), axis=axes, keepdims=st.booleans())
def test_reductions_reject_what_numpy_rejects(name, shape, dtype, axis, keepdims):
    kwargs = {"axis": axis, "keepdims": keepdims}
    rejected = _numpy_outcome(getattr(np, name), shape, dtype, kwargs)
    hypothesis.assume(rejected is not None and not isinstance(rejected, RuntimeWarning))
    _same_kind(rejected, shape, dtype, lambda x: getattr(ra, name)(x, **kwargs))


@pytest.mark.parametrize("name", ["argmin", "argmax", "nanargmin", "nanargmax"])
@EXAMPLES
@given(shape=shapes, dtype=st.sampled_from(DTYPES), axis=single_axes, keepdims=st.booleans())
def test_arg_reductions_reject_what_numpy_rejects(name, shape, dtype, axis, keepdims):
    kwargs = {"axis": axis, "keepdims": keepdims}
    rejected = _numpy_outcome(getattr(np, name), shape, dtype, kwargs)
    hypothesis.assume(rejected is not None)
    _same_kind(rejected, shape, dtype, lambda x: getattr(ra, name)(x, **kwargs))


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "nancumsum", "nancumprod", "sort", "argsort"])
@EXAMPLES
@given(shape=shapes, dtype=st.sampled_from(DTYPES), axis=single_axes)
def test_axis_functions_reject_what_numpy_rejects(name, shape, dtype, axis):
    kwargs = {"axis": axis}
    rejected = _numpy_outcome(getattr(np, name), shape, dtype, kwargs)
    hypothesis.assume(rejected is not None)
    _same_kind(rejected, shape, dtype, lambda x: getattr(ra, name)(x, **kwargs))


@EXAMPLES
@given(shape=shapes, dtype=st.sampled_from(DTYPES), side=st.sampled_from(["left", "right", "middle", "", "LEFT"]))
def test_searchsorted_rejects_what_numpy_rejects(shape, dtype, side):
    rejected = _numpy_outcome(lambda a, **kw: np.searchsorted(a.ravel(), a, **kw), shape, dtype, {"side": side})
    hypothesis.assume(rejected is not None)
    _same_kind(rejected, shape, dtype, lambda x: ra.searchsorted(x.ravel(), x, side=side))


@EXAMPLES
@given(shape=shapes, dtype=st.sampled_from(DTYPES), minlength=st.integers(-3, 3))
def test_bincount_rejects_what_numpy_rejects(shape, dtype, minlength):
    rejected = _numpy_outcome(np.bincount, shape, dtype, {"minlength": minlength})
    hypothesis.assume(rejected is not None)
    _same_kind(rejected, shape, dtype, lambda x: ra.bincount(x, minlength=minlength))


@EXAMPLES
@given(shape=shapes, dtype=st.sampled_from(["float32", "float64", "complex64", "int64", "bool"]),
       n=st.one_of(st.none(), st.integers(-2, 9)), axis=st.integers(-4, 4),
       norm=st.sampled_from([None, "backward", "ortho", "forward", "bad"]))
def test_fft_rejects_what_numpy_rejects(shape, dtype, n, axis, norm):
    kwargs = {"n": n, "axis": axis, "norm": norm}
    rejected = _numpy_outcome(np.fft.fft, shape, dtype, kwargs)
    hypothesis.assume(rejected is not None)
    _same_kind(rejected, shape, dtype, lambda x: ra.fft.fft(x, **kwargs))


@EXAMPLES
@given(shape=st.lists(st.sampled_from([0, 1, 2, 3, 5]), min_size=0, max_size=4).map(tuple),
       dtype=st.sampled_from(DTYPES))
def test_linalg_rejects_what_numpy_rejects(shape, dtype):
    # identity matrices where the shape is a stack of square ones: what NumPy rejects then is the
    # shape or the dtype, never the values (a singular matrix is the GPU suite's case)
    def numpy_on_identities(fn):
        def call(a, **kwargs):
            if a.ndim >= 2 and a.shape[-1] == a.shape[-2]:
                a = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
            return fn(a, **kwargs)
        return call

    for name in ("inv", "det", "slogdet", "cholesky", "eigvalsh", "svd", "qr", "solve", "eigh", "pinv"):
        fn = getattr(np.linalg, name)
        if name == "solve":
            fn, ours = (lambda a: np.linalg.solve(a, a)), (lambda x: ra.linalg.solve(x, x))
        else:
            ours = getattr(ra.linalg, name)
        rejected = _numpy_outcome(numpy_on_identities(fn), shape, dtype, {})
        if rejected is not None:
            _same_kind(rejected, shape, dtype, ours)
