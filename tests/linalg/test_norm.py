"""``ra.linalg.norm`` against ``numpy.linalg.norm``: rocblas paths (vector 2-norm, Frobenius,
real 1-norm), the CuPy fallback for everything else, overflow safety, and errors."""

import numpy as np
import pytest

from conftest import assert_close, fake, random_array, to_device, to_host, wide

import rocarray as ra
from rocarray.linalg import _norm
from rocarray._core.dtypes import real_dtype

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")

ALL = ["float32", "float64", "complex64", "complex128"]
SIZES = [0, 1, 2, 31, 32, 33, 63, 64, 65, 1009, 1_000_003]


def check_norm(got, x, n=None, **kwargs):
    """dtype and shape as NumPy's norm of ``x``; value as NumPy's norm of the float64 data."""
    want = np.linalg.norm(x, **kwargs)
    assert got.dtype == np.asarray(want).dtype, (got.dtype, np.asarray(want).dtype)
    assert got.shape == np.shape(want)
    exact = np.linalg.norm(wide(x), **kwargs)
    assert_close(to_host(got), exact, np.asarray(want).dtype, n if n is not None else max(np.size(x), 1))


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL)
def test_vector_norms_on_rocblas(rng, dtype, n):
    x = random_array(rng, n, dtype)
    dx = to_device(x)
    check_norm(ra.linalg.norm(dx), x)
    check_norm(ra.linalg.norm(dx, 2), x, ord=2)
    check_norm(ra.linalg.norm(dx, axis=0), x, axis=0)
    check_norm(ra.linalg.norm(dx, None, -1, True), x, axis=-1, keepdims=True)
    check_norm(ra.linalg.norm(dx, ord=1), x, ord=1)
    check_norm(ra.linalg.norm(dx, ord=1, axis=(0,)), x, ord=1, axis=(0,))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("view", [slice(None, None, 2), slice(None, None, -1), slice(3, None, 5)], ids=str)
def test_strided_vectors_are_not_copied(rng, dtype, view, monkeypatch):
    x = random_array(rng, 10_007, dtype)
    dx = to_device(x)[view]
    monkeypatch.setattr(cupy.linalg, "norm", None)  # the rocblas path only
    check_norm(ra.linalg.norm(dx), x[view])
    if np.dtype(dtype).kind == "f":
        check_norm(ra.linalg.norm(dx, 1), x[view], ord=1)


@pytest.mark.gpu
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("shape", [(3, 5), (64, 33), (7, 1, 9), (2, 3, 4, 5)], ids=str)
@pytest.mark.parametrize("dtype", ALL)
def test_frobenius_of_contiguous_data(rng, dtype, shape, order, monkeypatch):
    x = np.asarray(random_array(rng, shape, dtype), order=order)
    dx = to_device(x)
    dx = cupy.asfortranarray(dx) if order == "F" else dx
    monkeypatch.setattr(cupy.linalg, "norm", None)  # the rocblas path only
    check_norm(ra.linalg.norm(dx), x)
    check_norm(ra.linalg.norm(dx, keepdims=True), x, keepdims=True)
    if len(shape) == 2:
        check_norm(ra.linalg.norm(dx, "fro"), x, ord="fro")
        check_norm(ra.linalg.norm(dx, "fro", (1, 0), True), x, ord="fro", axis=(1, 0), keepdims=True)
        check_norm(ra.linalg.norm(dx, None, (0, -1)), x, axis=(0, -1))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_other_cases_delegate_to_cupy(rng, dtype):
    x2 = random_array(rng, (6, 9), dtype)
    d2 = to_device(x2)
    v = random_array(rng, 101, dtype)
    dv = to_device(v)
    check_norm(ra.linalg.norm(d2, axis=1), x2, 9, axis=1)
    check_norm(ra.linalg.norm(d2, axis=0, keepdims=True), x2, 6, axis=0, keepdims=True)
    check_norm(ra.linalg.norm(d2, 1), x2, 6, ord=1)
    check_norm(ra.linalg.norm(d2, np.inf), x2, 9, ord=np.inf)
    check_norm(ra.linalg.norm(d2, 2), x2, 54, ord=2)
    check_norm(ra.linalg.norm(d2[:, ::2]), x2[:, ::2])  # non-contiguous 2-D
    check_norm(ra.linalg.norm(dv, np.inf), v, ord=np.inf)
    check_norm(ra.linalg.norm(dv, 3), v, ord=3)
    check_norm(ra.linalg.norm(dv, 0), v, ord=0)
    if np.dtype(dtype).kind == "c":
        check_norm(ra.linalg.norm(dv, 1), v, ord=1)  # |z| sums, not asum's |re|+|im|


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint16", "bool", "float16"])
def test_integer_bool_and_half_inputs(rng, dtype):
    x = random_array(rng, 1000, dtype)
    check_norm(ra.linalg.norm(to_device(x)), x)
    x2 = random_array(rng, (10, 20), dtype)
    check_norm(ra.linalg.norm(to_device(x2)), x2)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype,scale", [("float64", 1e300), ("float64", 1e-300), ("complex128", 1e300),
                                         ("float32", 1e36), ("float32", 1e-30), ("complex64", 1e36)])
def test_norm_does_not_overflow_or_underflow(rng, dtype, scale):
    # Squares of these magnitudes overflow or underflow; the inputs themselves stay normal numbers,
    # because float32 kernels flush subnormal inputs to zero (CuPy compiles with -ftz=true on CUDA
    # and flush-denormals on HIP; see docs/core.rst).
    x = (wide(random_array(rng, 1000, dtype)) * scale).astype(dtype)
    x[0] = scale * (1 + 1j if np.dtype(dtype).kind == "c" else 1)  # never a subnormal-only vector
    got = ra.linalg.norm(to_device(x))
    m = np.max(np.abs(wide(x)))
    want = m * np.sqrt(np.sum(np.abs(wide(x) / m) ** 2))
    assert np.isfinite(to_host(got)) and to_host(got) > 0
    assert_close(to_host(got), want, real_dtype(dtype), 1000)


@pytest.mark.gpu
def test_errors():
    with pytest.raises(TypeError, match="host"):
        ra.linalg.norm(np.ones(3))
    with pytest.raises(ValueError):
        ra.linalg.norm(to_device(np.ones(3)), "fro")
    with pytest.raises(np.exceptions.AxisError):
        ra.linalg.norm(to_device(np.ones(3)), axis=1)


# --------------------------------------------------------------------------------------------
# CPU
# --------------------------------------------------------------------------------------------

@needs_cupy
def test_plan_picks_rocblas_for_vector_and_frobenius_norms():
    v = fake((10,), "float64")
    z = fake((10,), "complex64")
    m = fake((4, 5), "float32")
    f = fake((4, 5), "float32", order="F")
    t = fake((2, 3, 4), "complex128")
    plan = _norm._plan
    assert plan(v, None, None)[0] == "nrm2" and plan(v, None, None)[1] is v
    assert plan(v, 2, 0)[0] == "nrm2"
    assert plan(v, 2.0, (-1,))[0] == "nrm2"
    assert plan(v, 1, None)[0] == "asum"
    assert plan(v[::-3], None, None)[1].strides == v[::-3].strides  # a view, not a copy
    assert plan(z, 1, None) is None  # complex 1-norm sums |z|: CuPy
    assert plan(z, None, None)[0] == "nrm2"
    for x in (m, f, t):
        kind, flat = plan(x, None, None)
        assert kind == "nrm2" and flat.ndim == 1 and flat.size == x.size and flat.data.ptr == x.data.ptr
    assert plan(m, "fro", None)[0] == "nrm2"
    assert plan(m, "fro", (1, 0))[0] == "nrm2"
    assert plan(m, None, (0, 1))[0] == "nrm2"
    # everything else: CuPy
    assert plan(m[:, ::2], None, None) is None
    assert plan(m, 2, None) is None
    assert plan(m, None, 0) is None
    assert plan(m, "fro", (0, 0)) is None
    assert plan(m, "nuc", None) is None
    assert plan(v, np.inf, None) is None
    assert plan(v, 3, None) is None
    assert plan(v, "fro", None) is None
    assert plan(v, None, 1) is None
    assert plan(t, None, (0, 1)) is None
    assert plan(fake((10,), "float16"), None, None) is None


@needs_cupy
def test_axis_errors_like_numpy(monkeypatch):
    monkeypatch.setattr(cupy.linalg, "norm", None)  # raised by rocarray, before any device work
    with pytest.raises(np.exceptions.AxisError, match="axis 1 is out of bounds for array of dimension 1"):
        ra.linalg.norm(fake((3,), "float64"), axis=1)
    with pytest.raises(np.exceptions.AxisError):
        ra.linalg.norm(fake((3, 4), "float64"), axis=(0, -3))
    with pytest.raises(TypeError, match="'axis' must be None, an integer or a tuple of integers"):
        ra.linalg.norm(fake((3,), "float64"), axis="a")
    with pytest.raises(TypeError):
        ra.linalg.norm(fake((3, 4), "float64"), axis=(0.0, 1))
    assert _norm._normalize_axis(0.5, 1) == (0,)  # NumPy accepts what int() accepts
    assert _norm._normalize_axis((-1, 0), 2) == (-1, 0)


@needs_cupy
def test_host_input_is_rejected():
    with pytest.raises(TypeError, match="host \\(NumPy\\) array"):
        ra.linalg.norm(np.ones(3))


@needs_cupy
def test_other_linalg_names_fall_through_to_cupy():
    assert ra.linalg.matrix_transpose is cupy.linalg.matrix_transpose
    assert "matrix_transpose" in dir(ra.linalg) and "norm" in dir(ra.linalg)
    with pytest.raises(AttributeError):
        ra.linalg.not_a_linalg_function


def test_missing_cupy_raises_no_device_error(monkeypatch):
    from rocarray._core import backend

    monkeypatch.setattr(backend, "cupy_module", lambda: None)
    with pytest.raises(ra.NoDeviceError, match="CuPy is not installed"):
        ra.linalg.matrix_transpose
    with pytest.raises(ra.NoDeviceError):
        ra.linalg.norm(np.ones(3))
    assert ra.linalg.norm is _norm.norm  # the re-export itself needs no device


# --------------------------------------------------------------------------------------------
# matrix norms (prim reductions; singular values from cupy.linalg.svd)
# --------------------------------------------------------------------------------------------

MATRIX_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


@pytest.mark.parametrize("ord", MATRIX_ORDS + [3, "bad", 0])
@pytest.mark.parametrize("shape,axis", [((4, 5), None), ((3, 4, 5), (2, 0)), ((3, 4, 5), (1, 1)),
                                        ((3, 4, 5), None), ((3, 4, 5), (0, 1, 2)), ((5,), None)], ids=str)
def test_matrix_axes_and_errors_match_numpy(ord, shape, axis):
    x = np.ones(shape)
    try:
        np.linalg.norm(x, ord=ord, axis=axis)
        err = None
    except Exception as e:  # noqa: BLE001 - NumPy's exact type and message
        err = (type(e), str(e))
    axes = _norm._normalize_axis(axis, len(shape))
    if err is not None and "for vectors" not in err[1]:  # a matrix-norm error: raised by rocarray itself
        with pytest.raises(err[0], match=err[1].replace(".", r"\.")):
            _norm.matrix_axes(ord, axes, len(shape))
    elif err is None:
        is_matrix = (axis is not None and len(axis) == 2) or (axis is None and ord is not None and len(shape) == 2)
        assert (_norm.matrix_axes(ord, axes, len(shape)) is not None) == is_matrix


@pytest.mark.gpu
@pytest.mark.parametrize("ord", MATRIX_ORDS)
@pytest.mark.parametrize("dtype", ALL + ["int32"])
def test_matrix_norms_match_numpy(rng, dtype, ord):
    x = random_array(rng, (7, 5), dtype)
    dx = to_device(x)
    check_norm(ra.linalg.norm(dx, ord), x, 35, ord=ord)
    check_norm(ra.linalg.norm(dx.T, ord, keepdims=True), x.T, 35, ord=ord, keepdims=True)
    s = random_array(rng, (3, 6, 4), dtype)
    ds = to_device(s)
    for axis in [(1, 2), (2, 0), (-1, -3)]:
        check_norm(ra.linalg.norm(ds, ord, axis), s, 24, ord=ord, axis=axis)
    check_norm(ra.linalg.norm(ds[:, ::2], ord, (0, 2), keepdims=True), s[:, ::2], 12, ord=ord, axis=(0, 2),
               keepdims=True)
