"""``ra.remainder`` / ``ra.mod``: NumPy's floating-point results (fmod moved into the divisor's
sign, signed zeros, infinite divisors), CuPy's ufunc for integers and extra ufunc keywords.

The routing and the dtype/``out`` handling run on the CPU with NumPy standing in for CuPy and the
kernel replaced by a recorder; the kernel itself is checked on the GPU, bit for bit against
NumPy (every step of NumPy's definition is exactly rounded, so the results are identical).
"""

import numpy as np
import pytest

import rocarray as ra
from rocarray._core import backend
from rocarray._numpy import array_api
from rocarray._numpy import remainder as remainder_module

SPECIALS = [0.0, -0.0, 1.5, -1.5, 7.0, -7.0, 1e-310, -1e-310, 3.0e38, -3.0e38, np.inf, -np.inf, np.nan]


@pytest.fixture
def numpy_device(monkeypatch):
    """``backend.cupy()`` is NumPy and the kernel is a recorder computing NumPy's result."""
    monkeypatch.setattr(backend, "_cupy", [np])
    monkeypatch.setattr(backend, "device_info", lambda device_id=None: None)
    calls = []

    def kernel(*args):
        calls.append(tuple(np.asarray(a).dtype for a in args))
        if len(args) == 3:
            return np.remainder(args[0], args[1], out=args[2])
        return np.asarray(np.remainder(*args))

    monkeypatch.setattr(remainder_module, "_FLOAT_REMAINDER", kernel)
    return calls


def test_mod_is_remainder():
    assert ra.mod is ra.remainder


def test_float_calls_take_the_kernel_in_their_working_dtype(numpy_device):
    x32 = np.array([5.5, -2.0], np.float32)
    got = ra.remainder(x32, 2.0)  # a Python float is weak: float32 stays
    assert got.dtype == np.float32 and numpy_device[-1] == (np.float32, np.float32)
    x16 = np.array([5.5, -2.0], np.float16)
    got = ra.remainder(x16, np.float16(-3))
    assert got.dtype == np.float16 and numpy_device[-1] == (np.float32, np.float32)
    np.testing.assert_array_equal(got, np.remainder(x16, np.float16(-3)))
    got = ra.remainder(np.arange(3, dtype=np.int32), x32[:1])
    assert got.dtype == np.float64 and numpy_device[-1] == (np.float64, np.float64)


def test_integer_and_keyword_calls_are_cupys(numpy_device):
    a, b = np.array([7, -7, 0], np.int64), np.array([3, 3, 0], np.int64)
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(ra.remainder(a, b), np.remainder(a, b))
    x = np.array([1.0, 2.0])
    out = np.full(2, 9.0)
    ra.remainder(x, 1.5, out=out, where=np.array([True, False]))
    np.testing.assert_array_equal(out, [1.0, 9.0])
    assert numpy_device == []


def test_out_argument(numpy_device):
    x = np.array([[5.5], [-2.0]], np.float32)
    out = np.empty((2, 3), np.float32)
    assert ra.remainder(x, np.array([1.0, 2.0, 3.0], np.float32), out=(out,)) is out
    np.testing.assert_array_equal(out, np.remainder(x, np.array([1.0, 2.0, 3.0], np.float32)))
    wide = np.empty(2, np.float64)
    assert ra.remainder(x[:, 0], 2.0, out=wide) is wide
    np.testing.assert_array_equal(wide, np.remainder(x[:, 0], 2.0))
    with pytest.raises(TypeError, match="same_kind"):
        ra.remainder(x, 2.0, out=np.empty((2, 1), np.int32))
    with pytest.raises(ValueError):
        ra.remainder(x, 2.0, out=(out, out))
    with pytest.raises(ValueError):
        ra.remainder(x, np.ones(3, np.float32), out=np.empty((3,), np.float32))


@pytest.mark.usefixtures("numpy_device")
def test_shapes_take_zero_dimensional_integer_arrays():
    assert array_api.zeros((np.array(2), 3)).shape == (2, 3)
    assert array_api.full(np.array(4), 1.5).shape == (4,)
    assert array_api.ones(np.array([2, 5], np.uint8)).shape == (2, 5)
    assert array_api.empty_like(np.ones(3), subok=False, shape=(np.int64(1), np.array(2))).shape == (1, 2)
    assert array_api.reshape(np.arange(6), (np.array(3), -1)).shape == (3, 2)
    for bad in (np.array(2.0), np.array([2, 3]) > 2):
        with pytest.raises(TypeError):
            array_api.zeros(bad if bad.ndim == 0 else (bad,))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_special_values_match_numpy_bit_for_bit(dtype):
    import cupy

    with np.errstate(all="ignore"):
        values = np.array(SPECIALS, dtype=dtype)
        a, b = np.meshgrid(values, values, indexing="ij")
        want = np.remainder(a, b)
    got = cupy.full(a.shape, np.nan, dtype)  # poisoned
    ra.remainder(cupy.asarray(a), cupy.asarray(b), out=got)
    got = cupy.asnumpy(got)
    np.testing.assert_array_equal(got, want)
    numbers = ~np.isnan(want)  # a NaN's sign bit is the hardware's (x86 makes -NaN), not a result
    np.testing.assert_array_equal(np.signbit(got)[numbers], np.signbit(want)[numbers])
    np.testing.assert_array_equal(cupy.asnumpy(ra.mod(cupy.asarray(a), cupy.asarray(b))), want)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_random_values_match_numpy_bit_for_bit(rng, dtype):
    import cupy

    a = (rng.standard_normal((37, 129)) * 1e3).astype(dtype)
    b = (rng.standard_normal(129) * 10).astype(dtype)
    got = ra.remainder(cupy.asarray(a)[:, ::-2], cupy.asarray(b)[::-2])
    want = np.remainder(a[:, ::-2], b[::-2])
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(cupy.asnumpy(got), want)
    np.testing.assert_array_equal(cupy.asnumpy(ra.remainder(cupy.asarray(a), -2.5)), np.remainder(a, -2.5))


@pytest.mark.gpu
def test_integer_remainder_and_shapes_on_the_gpu():
    import cupy

    a = np.array([7, -7, 7, -7, 0], np.int32)
    b = np.array([3, 3, -3, -3, 5], np.int32)
    np.testing.assert_array_equal(cupy.asnumpy(ra.remainder(cupy.asarray(a), cupy.asarray(b))), np.remainder(a, b))
    n = cupy.asarray(np.array([3], np.int32))[0]  # a 0-d device integer
    assert ra.zeros((n, 2)).shape == (3, 2) and ra.full((n,), 1.0).shape == (3,)
