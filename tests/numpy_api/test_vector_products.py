"""The NumPy-named BLAS façade (``ra.dot``, ``ra.vdot``, ``ra.inner``) against NumPy.

1-D float/complex products run on rocblas kernels (including strided and reversed views, without
copies); scalars, N-D operands and integer/bool dtypes are delegated to CuPy. Both paths must give
NumPy's values, dtypes and errors.
"""

import numpy as np
import pytest

from conftest import assert_close, fake, random_array, to_device, to_host, wide

import rocarray as ra
from rocarray._numpy import vector_products
from rocarray.rocblas import _level1

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")

FLOATS = ["float16", "float32", "float64", "complex64", "complex128"]
SIZES = [0, 1, 2, 31, 33, 64, 1009, 1_000_003]
MIXED = [
    ("float16", "float32"), ("float32", "float64"), ("float32", "complex64"), ("complex64", "float64"),
    ("int32", "float32"), ("int64", "complex64"), ("float16", "float64"), ("bool", "float32"),
]


def check_product(got, a, b, want_fn, conj=False):
    """``got`` has NumPy's dtype and shape for want_fn(a, b) and its value (computed in float64)."""
    want = want_fn(a, b)
    got_h = to_host(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == np.shape(want)
    aw, bw = wide(a).ravel(), wide(b).ravel()
    if conj:
        aw = np.conj(aw)
    exact = want_fn(wide(a), wide(b))
    n = max(aw.size, 1)
    assert_close(got_h, exact, want.dtype, n, atol_scale=float(np.sum(np.abs(aw * bw))) if aw.size else 0.0)


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_dot_inner_vdot_1d(rng, dtype, n):
    a, b = random_array(rng, n, dtype), random_array(rng, n, dtype)
    da, db = to_device(a), to_device(b)
    check_product(ra.dot(da, db), a, b, np.dot)
    check_product(ra.inner(da, db), a, b, np.inner)
    check_product(ra.vdot(da, db), a, b, np.vdot, conj=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("view", ["step2", "reversed", "offset_step3", "mixed"])
def test_views_are_read_in_place(rng, dtype, view, monkeypatch):
    n = 3001
    a, b = random_array(rng, 3 * n, dtype), random_array(rng, 3 * n, dtype)
    slices = {
        "step2": (slice(None, 2 * n, 2), slice(1, 2 * n, 2)),
        "reversed": (slice(n - 1, None, -1), slice(None, n)),
        "offset_step3": (slice(1, None, 3), slice(2, None, 3)),
        "mixed": (slice(3 * n - 1, None, -3), slice(5, 5 + n)),
    }[view]
    ha, hb = a[slices[0]], b[slices[1]]
    assert ha.shape == hb.shape
    da, db = to_device(a)[slices[0]], to_device(b)[slices[1]]
    # the kernel path takes views as they are: no copy, no cupy fallback
    for name in ("dot", "inner", "vdot"):
        monkeypatch.setattr(cupy, name, None)
    check_product(ra.dot(da, db), ha, hb, np.dot)
    check_product(ra.inner(da, db), ha, hb, np.inner)
    check_product(ra.vdot(da, db), ha, hb, np.vdot, conj=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dta,dtb", MIXED)
def test_mixed_dtypes_follow_numpy_promotion(rng, dta, dtb):
    a, b = random_array(rng, 777, dta), random_array(rng, 777, dtb)
    da, db = to_device(a), to_device(b)
    check_product(ra.dot(da, db), a, b, np.dot)
    check_product(ra.dot(db, da), b, a, np.dot)
    check_product(ra.inner(da, db), a, b, np.inner)
    check_product(ra.vdot(da, db), a, b, np.vdot, conj=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint16", "bool"])
def test_integer_and_bool_products_delegate_to_cupy(rng, dtype):
    a, b = random_array(rng, 1000, dtype), random_array(rng, 1000, dtype)
    da, db = to_device(a), to_device(b)
    for fn in ("dot", "inner", "vdot"):
        got = getattr(ra, fn)(da, db)
        want = getattr(np, fn)(a, b)
        assert got.dtype == np.asarray(want).dtype
        assert to_host(got) == want


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_nd_and_scalar_operands_delegate_to_cupy(rng, dtype):
    a = random_array(rng, (5, 7), dtype)
    b = random_array(rng, (7, 3), dtype)
    v = random_array(rng, 7, dtype)
    c = random_array(rng, (4, 7), dtype)
    da, db, dv, dc = to_device(a), to_device(b), to_device(v), to_device(c)
    assert_close(to_host(ra.dot(da, db)), wide(a) @ wide(b), dtype, 7)
    assert_close(to_host(ra.dot(da, dv)), wide(a) @ wide(v), dtype, 7)
    assert_close(to_host(ra.inner(da, dc)), np.inner(wide(a), wide(c)), dtype, 7)
    assert_close(to_host(ra.dot(2.5, dv)), 2.5 * wide(v), dtype)
    x = random_array(rng, (3, 4), dtype)
    y = random_array(rng, (4, 3), dtype)
    # vdot flattens in C order, also for non-contiguous operands
    got = ra.vdot(to_device(x), to_device(y).T)
    assert_close(to_host(got), np.vdot(wide(x), wide(y).T), dtype, 12,
                 atol_scale=np.sum(np.abs(wide(x).ravel() * wide(y).T.ravel())))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", FLOATS)
def test_dot_out(rng, dtype):
    a, b = random_array(rng, 100, dtype), random_array(rng, 100, dtype)
    da, db = to_device(a), to_device(b)
    out = to_device(np.zeros((), dtype))
    assert ra.dot(da, db, out=out) is out
    check_product(out, a, b, np.dot)
    other = "float64" if dtype != "float64" else "float32"
    with pytest.raises(ValueError, match="output array is not acceptable"):
        ra.dot(da, db, out=to_device(np.zeros((), other)))
    with pytest.raises(ValueError, match="output array is not acceptable"):
        ra.dot(da, db, out=to_device(np.zeros((1,), dtype)))
    with pytest.raises(TypeError, match="host"):
        ra.dot(da, db, out=np.zeros((), dtype))


@pytest.mark.gpu
def test_errors_on_device_arrays():
    x3, x4 = to_device(np.ones(3)), to_device(np.ones(4))
    for fn in (ra.dot, ra.inner):
        with pytest.raises(ValueError, match=r"^shapes \(3,\) and \(4,\) not aligned: 3 \(dim 0\) != 4 \(dim 0\)$"):
            fn(x3, x4)
        with pytest.raises(TypeError, match="host"):
            fn(np.ones(3), x3)
        with pytest.raises(TypeError, match="host"):
            fn(x3, np.ones(3))
    with pytest.raises(ValueError, match="cannot reshape array of size 4 into shape"):
        ra.vdot(x3, x4)
    with pytest.raises(TypeError, match="host"):
        ra.vdot(np.ones(3), x3)


# --------------------------------------------------------------------------------------------
# CPU: façade logic that needs no device
# --------------------------------------------------------------------------------------------

@pytest.fixture
def no_device(monkeypatch):
    """Fail if anything reaches a kernel launch or CuPy's own products."""

    def refuse(*args, **kwargs):
        raise AssertionError("the device was used")

    monkeypatch.setattr(_level1, "_prepare", refuse)
    monkeypatch.setattr(_level1, "_result", refuse)
    monkeypatch.setattr(_level1, "_zero_result", refuse)
    for name in ("dot", "vdot", "inner"):
        monkeypatch.setattr(cupy, name, refuse)


def test_kernel_dtypes_follow_numpy_result_type():
    names = ["bool", "int8", "uint8", "int32", "int64", "float16", "float32", "float64", "complex64", "complex128"]
    for a in names:
        for b in names:
            want = np.result_type(np.dtype(a), np.dtype(b))
            got = vector_products._kernel_dtype(np.empty(0, a), np.empty(0, b))
            if want.kind in "fc":
                assert got == want, (a, b)
            else:
                assert got is None, (a, b)


@needs_cupy
def test_host_arrays_are_rejected():
    for fn in (ra.dot, ra.inner, ra.vdot):
        with pytest.raises(TypeError, match="host \\(NumPy\\) array"):
            fn(np.ones(3), np.ones(3))


@needs_cupy
def test_mismatched_lengths_raise_numpy_messages(no_device):
    a, b = fake((3,), "float32"), fake((4,), "float32", address=1 << 21)
    for fn in (ra.dot, ra.inner):
        with pytest.raises(ValueError, match=r"^shapes \(3,\) and \(4,\) not aligned: 3 \(dim 0\) != 4 \(dim 0\)$"):
            fn(a, b)
    with pytest.raises(ValueError, match=r"cannot reshape array of size 4 into shape \(3,\)"):
        ra.vdot(a, b)
    with pytest.raises(ValueError, match=r"cannot reshape array of size 6 into shape \(5,\)"):
        ra.vdot(fake((5,), "float64"), fake((2, 3), "float64", address=1 << 21))


@needs_cupy
def test_bad_out_raises_before_the_device(no_device):
    a, b = fake((3,), "float32"), fake((3,), "float32", address=1 << 21)
    with pytest.raises(ValueError, match="output array is not acceptable"):
        ra.dot(a, b, out=fake((), "float64", address=1 << 22))
    with pytest.raises(ValueError, match="output array is not acceptable"):
        ra.dot(a, b, out=fake((1,), "float32", address=1 << 22))
    with pytest.raises(TypeError, match="host"):
        ra.dot(a, b, out=np.zeros((), np.float32))
    with pytest.raises(TypeError, match="'out' must be an array"):
        ra.dot(a, b, out=[0.0])
    with pytest.raises(TypeError, match="'out' must be an array"):
        ra.dot(fake((2, 3), "float32"), fake((3,), "float32", address=1 << 21), out=[0.0])
