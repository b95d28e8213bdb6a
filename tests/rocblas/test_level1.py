"""rocblas level 1 against NumPy references (float64/complex128) and the reference BLAS rules.

GPU tests (``@pytest.mark.gpu``) build device buffers — plain, offset (misaligned for the 16-byte
vector path), strided and reversed views — run one rocblas call, and compare the whole parent
buffer with a host twin: the BLAS elements to a tolerance, every other element exactly (so a
write out of place or out of bounds shows up). CPU tests cover the pure-Python layer: dtype and
kernel-name mapping, registration, grid sizing, the view/increment arithmetic and every argument
error, on fake device arrays that are never launched on.
"""

import re

import numpy as np
import pytest

from conftest import assert_close, fake, random_array, to_device, to_host, wide

from rocblas_fixtures import fresh_prepared_launches, record_launches  # noqa: F401  (autouse)

from rocarray._core import compile as _compile
from rocarray.rocblas import _level1
from rocarray.rocblas._arguments import scalar_arg
import rocarray.rocblas as rocblas

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")

ALL = ["float32", "float64", "complex64", "complex128"]
WITH_HALF = ["float16"] + ALL
SIZES = [0, 1, 2, 31, 32, 33, 63, 64, 65, 1009, 1_000_003]
INCS = [(1, 1), (3, -2), (-1, -1), (-2, 3)]
LAYOUTS = ["plain", "offset", "mixed_offset", "view2", "reversed"]
LAYOUT_SIZES = [1, 33, 1009, 65537]
BIG = 1 << 26


# --------------------------------------------------------------------------------------------
# host references
# --------------------------------------------------------------------------------------------

def blas_index(n, inc):
    """Buffer positions of BLAS elements 0..n-1 (a negative inc walks from the far end)."""
    i = np.arange(max(n, 0))
    return i * inc if inc >= 0 else (n - 1 - i) * (-inc)


def ref_nrm2(v):
    """Scaled float64 Euclidean norm (no overflow/underflow in the reference either)."""
    v = wide(v)
    if v.size == 0:
        return 0.0
    parts = np.concatenate([v.real, v.imag]) if v.dtype.kind == "c" else v
    m = np.max(np.abs(parts))
    if m == 0 or not np.isfinite(m):
        return float(np.sqrt(np.sum(parts * parts))) if np.isnan(m) else float(m)
    return float(m * np.sqrt(np.sum((parts / m) ** 2)))


def ref_abs1(v):
    """|re| + |im| in the real precision of v (the kernels compute it in that precision)."""
    v = np.asarray(v)
    return np.abs(v.real) + np.abs(v.imag) if v.dtype.kind == "c" else np.abs(v)


def ref_iamax(x, n, inc, largest=True):
    """1-based index of the first max (min) of |re|+|im|; NaNs skipped; all NaN -> 1; 0 if n<1 or inc<=0."""
    if n < 1 or inc <= 0:
        return 0
    mag = ref_abs1(np.asarray(x)[blas_index(n, inc)])
    ok = ~np.isnan(mag)
    if not ok.any():
        return 1
    best = mag[ok].max() if largest else mag[ok].min()
    return int(np.flatnonzero(ok & (mag == best))[0]) + 1


def buffer_length(n, inc, pad=2):
    """Elements a buffer needs for n elements at inc, plus pad untouched elements at the end."""
    return (max(n, 1) - 1) * abs(inc) + 1 + pad


class Buf:
    """A device buffer (a view of a device parent, by layout) and its host twin."""

    def __init__(self, rng, length, dtype, layout="plain", which="x", fill=None):
        dtype = np.dtype(dtype)
        if layout == "plain":
            parent_len, sl = length, slice(None)
        elif layout == "offset":
            parent_len, sl = length + 1, slice(1, None)
        elif layout == "mixed_offset":
            k = 1 if which == "x" else 2
            parent_len, sl = length + k, slice(k, None)
        elif layout == "view2":
            parent_len, sl = 2 * length + 1, slice(1, None, 2)
        elif layout == "reversed":
            parent_len, sl = length, slice(None, None, -1)
        else:
            raise ValueError(layout)
        if fill is None:
            parent = random_array(rng, parent_len, dtype)
        else:
            parent = np.full(parent_len, fill, dtype)
        self.dtype = dtype
        self.slice = sl
        self.parent0 = parent.copy()
        self.dev_parent = to_device(parent)
        self.dev = self.dev_parent[sl]
        self.host = self.parent0[sl]
        self.positions = np.arange(parent_len)[sl]
        assert self.dev.shape == (length,) and self.host.shape == (length,)

    def elements(self, n, inc):
        """Host values of the BLAS vector (n, inc) over this buffer, before the call."""
        return self.host[blas_index(n, inc)]

    def check(self, n, inc, expected, exact=False, rtol_n=1, atol_scale=None):
        """The BLAS elements equal ``expected``; every other parent element is unchanged."""
        got = to_host(self.dev_parent)
        touched = np.zeros(got.shape, bool)
        pos = self.positions[blas_index(n, inc)]
        touched[pos] = True
        np.testing.assert_array_equal(got[~touched], self.parent0[~touched], err_msg="untouched elements changed")
        if n <= 0:
            return
        if exact:
            np.testing.assert_array_equal(got[pos], np.asarray(expected, self.dtype))
        else:
            assert_close(got[pos], expected, self.dtype, rtol_n, atol_scale=atol_scale)

    def unchanged(self):
        np.testing.assert_array_equal(to_host(self.dev_parent), self.parent0)


def _alpha(dtype):
    return 0.3 - 1.1j if np.dtype(dtype).kind == "c" else 1.7


def as_passed(value, dtype, real=False):
    """A host scalar as the kernel receives it (rounded to the compute precision), widened."""
    v = scalar_arg(value, dtype, real)
    return complex(v) if np.iscomplexobj(v) else float(v)


def input_scale(*terms):
    """max_i sum_k |term_k[i]|: the absolute error scale of an element-wise sum (cancellation)."""
    total = sum(np.abs(t) for t in terms)
    return float(np.max(total)) if np.size(total) else 0.0


def _ids(v):
    return str(v)


# --------------------------------------------------------------------------------------------
# element-wise operations
# --------------------------------------------------------------------------------------------

def _run_axpy(rng, dtype, n, incx, incy, layout="plain", alpha=None):
    alpha = _alpha(dtype) if alpha is None else alpha
    x = Buf(rng, buffer_length(n, incx), dtype, layout, "x")
    y = Buf(rng, buffer_length(n, incy), dtype, layout, "y")
    a = as_passed(alpha, dtype)
    xs, ys = wide(x.elements(n, incx)), wide(y.elements(n, incy))
    assert rocblas.axpy(n, alpha, x.dev, incx, y.dev, incy) is None
    y.check(n, incy, ys + a * xs, atol_scale=input_scale(ys, a * xs))
    x.unchanged()


@pytest.mark.gpu
@pytest.mark.parametrize("incx,incy", INCS, ids=_ids)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", WITH_HALF)
def test_axpy_matches_numpy(rng, dtype, n, incx, incy):
    _run_axpy(rng, dtype, n, incx, incy)


@pytest.mark.gpu
@pytest.mark.parametrize("n", LAYOUT_SIZES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", WITH_HALF)
def test_axpy_views(rng, dtype, layout, n):
    _run_axpy(rng, dtype, n, 1, 1, layout)
    _run_axpy(rng, dtype, n, 2, -1, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("alpha", [2, np.float32(0.5), np.float64(-3.25), 1 + 2j, np.complex64(0.5j)], ids=_ids)
def test_axpy_scalar_types(rng, alpha):
    dtype = "complex64" if isinstance(alpha, (complex, np.complexfloating)) else "float32"
    _run_axpy(rng, dtype, 1009, 1, 1, alpha=alpha)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", WITH_HALF)
def test_axpy_alpha_zero_leaves_y_untouched(rng, dtype):
    x = Buf(rng, 100, dtype, fill=np.nan)
    y = Buf(rng, 100, dtype)
    rocblas.axpy(100, 0.0, x.dev, 1, y.dev, 1)
    y.unchanged()


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_axpy_2_26(rng, dtype):
    _run_axpy(rng, dtype, BIG, 1, 1)


def _run_scal(rng, dtype, n, inc, alpha, layout="plain"):
    x = Buf(rng, buffer_length(n, inc), dtype, layout)
    a = as_passed(alpha, dtype, real=not isinstance(alpha, complex))
    xs = wide(x.elements(n, inc))
    assert rocblas.scal(n, alpha, x.dev, inc) is None
    x.check(n, inc, a * xs, atol_scale=input_scale(np.abs(a) * np.abs(xs.real) + np.abs(a) * np.abs(xs.imag)))


@pytest.mark.gpu
@pytest.mark.parametrize("inc", [1, 3, 2])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", WITH_HALF)
def test_scal_matches_numpy(rng, dtype, n, inc):
    _run_scal(rng, dtype, n, inc, 1.25)
    if np.dtype(dtype).kind == "c":
        _run_scal(rng, dtype, n, inc, -0.5 + 0.75j)


@pytest.mark.gpu
@pytest.mark.parametrize("n", LAYOUT_SIZES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", WITH_HALF)
def test_scal_views(rng, dtype, layout, n):
    _run_scal(rng, dtype, n, 1, 0.75, layout)
    if np.dtype(dtype).kind == "c":
        _run_scal(rng, dtype, n, 1, 0.75 - 2j, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("inc", [0, -1, -3])
@pytest.mark.parametrize("dtype", ALL)
def test_scal_nonpositive_inc_is_noop(rng, dtype, inc):
    x = Buf(rng, 50, dtype)
    rocblas.scal(10, 2.0, x.dev, inc)
    x.unchanged()


def _run_copy(rng, dtype, n, incx, incy, layout="plain"):
    x = Buf(rng, buffer_length(n, incx), dtype, layout, "x")
    y = Buf(rng, buffer_length(n, incy), dtype, layout, "y", fill=np.nan)  # poisoned output
    expected = x.elements(n, incx)
    assert rocblas.copy(n, x.dev, incx, y.dev, incy) is None
    y.check(n, incy, expected, exact=True)
    x.unchanged()


@pytest.mark.gpu
@pytest.mark.parametrize("incx,incy", INCS, ids=_ids)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL)
def test_copy_matches_numpy(rng, dtype, n, incx, incy):
    _run_copy(rng, dtype, n, incx, incy)


@pytest.mark.gpu
@pytest.mark.parametrize("n", LAYOUT_SIZES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL)
def test_copy_views(rng, dtype, layout, n):
    _run_copy(rng, dtype, n, 1, 1, layout)
    _run_copy(rng, dtype, n, -3, 2, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_copy_incx_zero_broadcasts_first_element(rng, dtype):
    x = Buf(rng, 4, dtype)
    y = Buf(rng, 40, dtype, fill=np.nan)
    rocblas.copy(37, x.dev, 0, y.dev, 1)
    y.check(37, 1, np.repeat(x.host[:1], 37), exact=True)


def _run_swap(rng, dtype, n, incx, incy, layout="plain"):
    x = Buf(rng, buffer_length(n, incx), dtype, layout, "x")
    y = Buf(rng, buffer_length(n, incy), dtype, layout, "y")
    ex, ey = y.elements(n, incy).copy(), x.elements(n, incx).copy()
    assert rocblas.swap(n, x.dev, incx, y.dev, incy) is None
    x.check(n, incx, ex, exact=True)
    y.check(n, incy, ey, exact=True)


@pytest.mark.gpu
@pytest.mark.parametrize("incx,incy", INCS, ids=_ids)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL)
def test_swap_matches_numpy(rng, dtype, n, incx, incy):
    _run_swap(rng, dtype, n, incx, incy)


@pytest.mark.gpu
@pytest.mark.parametrize("n", LAYOUT_SIZES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL)
def test_swap_views(rng, dtype, layout, n):
    _run_swap(rng, dtype, n, 1, 1, layout)


def _run_rot(rng, dtype, n, incx, incy, c, s, layout="plain"):
    x = Buf(rng, buffer_length(n, incx), dtype, layout, "x")
    y = Buf(rng, buffer_length(n, incy), dtype, layout, "y")
    xs, ys = wide(x.elements(n, incx)), wide(y.elements(n, incy))
    assert rocblas.rot(n, x.dev, incx, y.dev, incy, c, s) is None
    c, s = as_passed(c, dtype, real=True), as_passed(s, dtype, real=not isinstance(s, complex))
    abs1 = lambda v: np.abs(v.real) + np.abs(v.imag)  # noqa: E731
    x.check(n, incx, c * xs + s * ys, atol_scale=input_scale(c * xs, np.abs(s) * abs1(ys)))
    y.check(n, incy, c * ys - np.conj(s) * xs, atol_scale=input_scale(c * ys, np.abs(s) * abs1(xs)))


@pytest.mark.gpu
@pytest.mark.parametrize("incx,incy", INCS, ids=_ids)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL)
def test_rot_matches_numpy(rng, dtype, n, incx, incy):
    _run_rot(rng, dtype, n, incx, incy, 0.6, 0.8)
    if np.dtype(dtype).kind == "c":
        _run_rot(rng, dtype, n, incx, incy, 0.6, 0.48 - 0.64j)  # crot/zrot: complex s


@pytest.mark.gpu
@pytest.mark.parametrize("n", LAYOUT_SIZES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL)
def test_rot_views(rng, dtype, layout, n):
    _run_rot(rng, dtype, n, 1, 1, np.float32(0.28), np.float64(0.96), layout)


# --------------------------------------------------------------------------------------------
# reductions
# --------------------------------------------------------------------------------------------

def _check_scalar(got, dtype):
    assert got.shape == ()
    assert got.dtype == np.dtype(dtype)
    return to_host(got)


def _run_dot(rng, dtype, n, incx, incy, layout="plain", conj=False):
    x = Buf(rng, buffer_length(n, incx), dtype, layout, "x")
    y = Buf(rng, buffer_length(n, incy), dtype, layout, "y")
    xs, ys = wide(x.elements(n, incx)), wide(y.elements(n, incy))
    if conj:
        xs = np.conj(xs)
    fn = rocblas.dotc if conj else rocblas.dot
    got = _check_scalar(fn(n, x.dev, incx, y.dev, incy), dtype)
    assert_close(got, np.sum(xs * ys), dtype, n, atol_scale=np.sum(np.abs(xs * ys)))
    x.unchanged()
    y.unchanged()


@pytest.mark.gpu
@pytest.mark.parametrize("incx,incy", INCS, ids=_ids)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", WITH_HALF)
def test_dot_matches_numpy(rng, dtype, n, incx, incy):
    _run_dot(rng, dtype, n, incx, incy)


@pytest.mark.gpu
@pytest.mark.parametrize("n", LAYOUT_SIZES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", WITH_HALF)
def test_dot_views(rng, dtype, layout, n):
    _run_dot(rng, dtype, n, 1, 1, layout)
    _run_dot(rng, dtype, n, -2, 1, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("incx,incy", INCS, ids=_ids)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL)
def test_dotc_matches_numpy(rng, dtype, n, incx, incy):
    _run_dot(rng, dtype, n, incx, incy, conj=True)


@pytest.mark.gpu
@pytest.mark.parametrize("n", LAYOUT_SIZES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_dotc_views(rng, dtype, layout, n):
    _run_dot(rng, dtype, n, 1, 1, layout, conj=True)


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dot_2_26(rng, dtype):
    _run_dot(rng, dtype, BIG, 1, 1)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_dot_is_deterministic(rng, dtype):
    n = (1 << 20) + 3
    x = to_device(random_array(rng, n, dtype))
    y = to_device(random_array(rng, n, dtype))
    first = to_host(rocblas.dot(n, x, 1, y, 1))
    for _ in range(3):
        assert to_host(rocblas.dot(n, x, 1, y, 1)).tobytes() == first.tobytes()


@pytest.mark.gpu
def test_dot_incx_zero_repeats_first_element(rng):
    x = to_device(np.array([2.5, 99.0]))
    yh = random_array(rng, 1000, "float64")
    got = to_host(rocblas.dot(1000, x, 0, to_device(yh), 1))
    assert_close(got, 2.5 * np.sum(yh), "float64", 1000, atol_scale=2.5 * np.sum(np.abs(yh)))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", WITH_HALF)
def test_dot_writes_result_array(rng, dtype):
    xh, yh = random_array(rng, 333, dtype), random_array(rng, 333, dtype)
    result = to_device(np.zeros((), dtype))
    got = rocblas.dot(333, to_device(xh), 1, to_device(yh), 1, result=result)
    assert got is result
    assert_close(to_host(result), np.sum(wide(xh) * wide(yh)), dtype, 333,
                 atol_scale=np.sum(np.abs(wide(xh) * wide(yh))))


@pytest.mark.gpu
def test_reductions_on_another_stream(rng):
    n = 3_000_001
    xh = random_array(rng, n, "float32")
    with cupy.cuda.Stream(non_blocking=True) as stream:
        x = to_device(xh)
        got = [rocblas.nrm2(n, x, 1), rocblas.asum(n, x, 1), rocblas.iamax(n, x, 1), rocblas.dot(n, x, 1, x, 1)]
        stream.synchronize()
    assert_close(to_host(got[0]), ref_nrm2(xh), "float32", n)
    assert_close(to_host(got[1]), np.sum(np.abs(wide(xh))), "float32", n)
    assert int(to_host(got[2])) == ref_iamax(xh, n, 1)
    assert_close(to_host(got[3]), np.sum(wide(xh) ** 2), "float32", n)


def _run_nrm2(rng, dtype, n, inc, layout="plain"):
    x = Buf(rng, buffer_length(n, abs(inc) if inc else 1), dtype, layout)
    got = _check_scalar(rocblas.nrm2(n, x.dev, inc), _level1.real_dtype(dtype))
    expected = ref_nrm2(x.elements(n, inc)) if inc else np.sqrt(max(n, 0)) * ref_nrm2(x.host[:1])
    assert_close(got, expected if n > 0 else 0.0, _level1.real_dtype(dtype), max(n, 1))
    x.unchanged()


@pytest.mark.gpu
@pytest.mark.parametrize("inc", [1, 3, -1, -2])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL)
def test_nrm2_matches_numpy(rng, dtype, n, inc):
    _run_nrm2(rng, dtype, n, inc)


@pytest.mark.gpu
@pytest.mark.parametrize("n", LAYOUT_SIZES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL)
def test_nrm2_views(rng, dtype, layout, n):
    _run_nrm2(rng, dtype, n, 1, layout)
    _run_nrm2(rng, dtype, n, -3, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_nrm2_incx_zero_is_sqrt_n_times_first(rng, dtype):
    _run_nrm2(rng, dtype, 1000, 0)


def _extreme_scales(dtype, n):
    """Magnitudes near the overflow/underflow limits whose norm is still representable.

    float32: up to ~1e38 (the norm of n values in [1, 2) * 1e38 / sqrt(2 n) stays below 2e38)
    and 1.2e-38 (just above the smallest normal float32, 1.18e-38); float64: ~1e300 and 1e-300.
    """
    if np.dtype(dtype) in (np.dtype("float64"), np.dtype("complex128")):
        return [1e300 / max(1.0, np.sqrt(n) / 4), 1e-300]
    return [1e38 / np.sqrt(2 * n), 1.2e-38]


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 2, 7, 33, 1009, 1_000_003])
@pytest.mark.parametrize("dtype", ALL)
def test_nrm2_does_not_overflow_or_underflow(rng, dtype, n):
    real = _level1.real_dtype(dtype)
    for scale in _extreme_scales(dtype, n):
        # magnitudes in [1, 2) * scale: squares overflow (or underflow) in the dtype, the norm does not
        re = rng.uniform(1.0, 2.0, n) * scale * rng.choice([-1.0, 1.0], n)
        if np.dtype(dtype).kind == "c":
            h = (re + 1j * rng.uniform(1.0, 2.0, n) * scale).astype(dtype)
        else:
            h = re.astype(dtype)
        assert np.all(np.isfinite(h)) and np.all(np.abs(wide(h)) > 0)
        got = _check_scalar(rocblas.nrm2(n, to_device(h), 1), real)
        assert np.isfinite(got) and got > 0
        assert_close(got, ref_nrm2(h), real, n)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nrm2_mixes_big_medium_and_small(rng, dtype):
    big, small = (1e300, 1e-300) if dtype == "float64" else (1e35, 1e-35)
    h = random_array(rng, 10_001, dtype)
    h[::3] *= big
    h[1::3] *= small
    got = _check_scalar(rocblas.nrm2(h.size, to_device(h), 1), dtype)
    assert_close(got, ref_nrm2(h), dtype, h.size)
    h = random_array(rng, 10_001, dtype)
    h[1::2] *= small  # small and medium only
    got = _check_scalar(rocblas.nrm2(h.size, to_device(h), 1), dtype)
    assert_close(got, ref_nrm2(h), dtype, h.size)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_nrm2_inf_nan_and_zero(rng, dtype):
    real = _level1.real_dtype(dtype)
    h = random_array(rng, 1000, dtype)
    h[17] = np.inf
    assert np.isinf(_check_scalar(rocblas.nrm2(1000, to_device(h), 1), real))
    h[500] = np.nan
    assert np.isnan(_check_scalar(rocblas.nrm2(1000, to_device(h), 1), real))
    assert _check_scalar(rocblas.nrm2(1000, to_device(np.zeros(1000, dtype)), 1), real) == 0


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nrm2_2_26(rng, dtype):
    _run_nrm2(rng, dtype, BIG, 1)


def _run_asum(rng, dtype, n, inc, layout="plain"):
    x = Buf(rng, buffer_length(n, abs(inc) if inc else 1), dtype, layout)
    real = _level1.real_dtype(dtype)
    got = _check_scalar(rocblas.asum(n, x.dev, inc), real)
    if n <= 0 or inc <= 0:
        assert got == 0
    else:
        v = wide(x.elements(n, inc))
        assert_close(got, np.sum(np.abs(v.real) + np.abs(v.imag)), real, n)
    x.unchanged()


@pytest.mark.gpu
@pytest.mark.parametrize("inc", [1, 3, -1, 0])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL)
def test_asum_matches_numpy(rng, dtype, n, inc):
    _run_asum(rng, dtype, n, inc)


@pytest.mark.gpu
@pytest.mark.parametrize("n", LAYOUT_SIZES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL)
def test_asum_views(rng, dtype, layout, n):
    _run_asum(rng, dtype, n, 1, layout)
    _run_asum(rng, dtype, n, 2, layout)


def _run_iamax(rng, dtype, n, inc, layout="plain", host=None):
    x = Buf(rng, buffer_length(n, abs(inc) if inc else 1), dtype, layout)
    if host is not None:  # given values for the BLAS elements (plain layout, inc 1)
        assert layout == "plain" and inc == 1
        x.parent0[:n] = host
        x.dev_parent = to_device(x.parent0)
        x.dev, x.host = x.dev_parent[x.slice], x.parent0[x.slice]
    for fn, largest in ((rocblas.iamax, True), (rocblas.iamin, False)):
        got = int(_check_scalar(fn(n, x.dev, inc), np.int64))
        assert got == ref_iamax(x.host, n, inc, largest), fn.__name__
    x.unchanged()


@pytest.mark.gpu
@pytest.mark.parametrize("inc", [1, 3, -1, 0])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL)
def test_iamax_iamin_match_reference(rng, dtype, n, inc):
    _run_iamax(rng, dtype, n, inc)


@pytest.mark.gpu
@pytest.mark.parametrize("n", LAYOUT_SIZES)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL)
def test_iamax_iamin_views(rng, dtype, layout, n):
    _run_iamax(rng, dtype, n, 1, layout)
    _run_iamax(rng, dtype, n, 2, layout)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n", [5, 64, 1009, 1_000_003])
def test_iamax_iamin_ties_go_to_the_first_index(rng, dtype, n):
    h = (random_array(rng, n, dtype) * 0.1).astype(dtype)
    idx = np.sort(rng.choice(n, size=min(n, 4), replace=False))
    h[idx] = 7.0  # several equal maxima
    small = np.sort(rng.choice(np.setdiff1d(np.arange(n), idx), size=min(n - len(idx), 3), replace=False))
    h[small] = 0.0  # several equal minima
    _run_iamax(rng, dtype, n, 1, host=h)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_iamax_iamin_nan_semantics(rng, dtype):
    """NaNs are never selected; all-NaN gives 1 (documented; reference BLAS except x[0] NaN)."""
    nan = np.nan
    cases = [
        ([nan, 1.0, 3.0, -3.0, nan, 0.5], 3, 6),
        ([1.0, nan, nan], 1, 1),
        ([nan, nan, nan], 1, 1),
        ([nan, 2.0], 2, 2),
        ([np.inf, 1.0, -np.inf, nan], 1, 2),
    ]
    for values, want_max, want_min in cases:
        h = np.array(values, dtype=dtype)
        x = to_device(h)
        assert int(to_host(rocblas.iamax(h.size, x, 1))) == want_max == ref_iamax(h, h.size, 1, True)
        assert int(to_host(rocblas.iamin(h.size, x, 1))) == want_min == ref_iamax(h, h.size, 1, False)
    if np.dtype(dtype).kind == "c":
        h = np.array([1 + 1j, complex(0.0, nan), -3 + 0.5j, 0.25 - 0.25j], dtype=dtype)
        x = to_device(h)
        assert int(to_host(rocblas.iamax(4, x, 1))) == 3
        assert int(to_host(rocblas.iamin(4, x, 1))) == 4


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_iamax_uses_abs_re_plus_abs_im(dtype):
    if np.dtype(dtype).kind != "c":
        h = np.array([1.0, -4.0, 3.0], dtype)
        want = 2
    else:
        h = np.array([3 + 0j, 2 + 2j, -2.5 - 0.1j], dtype)  # |z| picks 0, |re|+|im| picks 1
        want = 2
    assert int(to_host(rocblas.iamax(3, to_device(h), 1))) == want


@pytest.mark.gpu
def test_reductions_repeat_across_many_blocks(rng):
    """The last-block ticket is reset: back-to-back multi-block reductions stay right."""
    n = 5_000_011
    h = random_array(rng, n, "float64")
    x = to_device(h)
    want = ref_nrm2(h)
    for _ in range(5):
        assert_close(to_host(rocblas.nrm2(n, x, 1)), want, "float64", n)
        assert int(to_host(rocblas.iamax(n, x, 1))) == ref_iamax(h, n, 1)


@pytest.mark.gpu
@pytest.mark.parametrize("fn,args", [
    ("dot", (5, "x", 1, "y", 1)), ("nrm2", (5, "x", 1)), ("asum", (5, "x", 1)), ("iamax", (5, "x", 1)),
])
def test_zero_n_returns_zero(fn, args):
    x = to_device(np.ones(5))
    call = [x if a in ("x", "y") else a for a in args]
    call[0] = 0
    got = to_host(getattr(rocblas, fn)(*call))
    assert got == 0


# --------------------------------------------------------------------------------------------
# errors on real device arrays
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_errors_on_device_arrays():
    x = to_device(np.ones(10, np.float32))
    y = to_device(np.ones(10, np.float64))
    with pytest.raises(TypeError, match="same dtype"):
        rocblas.dot(10, x, 1, y, 1)
    with pytest.raises(TypeError, match="host"):
        rocblas.axpy(10, 1.0, np.ones(10, np.float32), 1, x, 1)
    with pytest.raises(ValueError, match="1-D"):
        rocblas.nrm2(4, to_device(np.ones((2, 2))), 1)
    with pytest.raises(ValueError, match="needs 11 elements"):
        rocblas.asum(11, x, 1)
    with pytest.raises(ValueError, match="needs 13 elements"):
        rocblas.copy(5, x, 3, to_device(np.ones(10, np.float32)), 1)
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        rocblas.dot(3, to_device(np.ones(3, np.int32)), 1, to_device(np.ones(3, np.int32)), 1)
    with pytest.raises(TypeError, match="supported: float32"):
        rocblas.nrm2(3, to_device(np.ones(3, np.float16)), 1)


# --------------------------------------------------------------------------------------------
# CPU: the pure-Python layer, on fake device arrays (never launched)
# --------------------------------------------------------------------------------------------

@pytest.fixture
def no_launch(monkeypatch):
    """Fail (instead of launching on fake memory) if anything reaches a kernel or the device."""

    def refuse(*args, **kwargs):
        raise AssertionError("a kernel launch was attempted")

    monkeypatch.setattr(_level1, "_prepare", refuse)
    monkeypatch.setattr(_level1, "_result", refuse)
    monkeypatch.setattr(_level1, "_zero_result", refuse)


def test_dtype_to_kernel_type_mapping():
    # the element types are _core.dtypes's; level 1's own tables: accumulation, real part, bits
    for dtype, element in [("float16", "ra_half"), ("float32", "float"), ("float64", "double"),
                           ("complex64", "ra_c64"), ("complex128", "ra_c128")]:
        assert _level1.kernel_name("dot", dtype) == f"ra_rocblas_dot<{element}>"
    assert _level1.kernel_name("axpy", np.float16) == "ra_rocblas_axpy<ra_half, float>"
    assert _level1.kernel_name("axpy", np.complex64) == "ra_rocblas_axpy<ra_c64, ra_c64>"
    assert _level1.kernel_name("scal", np.complex128, "real") == "ra_rocblas_scal<ra_c128, double>"
    assert _level1.kernel_name("scal", np.complex64, "complex") == "ra_rocblas_scal<ra_c64, ra_c64>"
    assert _level1.kernel_name("rot", np.float64, "real") == "ra_rocblas_rot<double, double>"
    assert _level1.kernel_name("copy", np.complex64) == "ra_rocblas_copy<ra_u64>"
    assert _level1.kernel_name("swap", np.complex128) == "ra_rocblas_swap<ra_rocblas_b128>"
    assert _level1.kernel_name("nrm2", np.complex64) == "ra_rocblas_nrm2<ra_c64>"
    assert _level1.kernel_name("iamin", np.float32) == "ra_rocblas_iamin<float>"
    for dtype, real in [("float32", "float32"), ("complex64", "float32"), ("complex128", "float64")]:
        assert _level1.real_dtype(dtype) == np.dtype(real)


def test_every_launched_kernel_is_registered_and_exists():
    registered = set(_compile.registered(_level1.SOURCE))
    assert registered == set(_level1.instantiations())
    source = _compile.read_text(_level1.SOURCE)
    for op, dtypes in _level1.SUPPORTED.items():
        for dtype in dtypes:
            kinds = ("real", "complex") if op in ("scal", "rot") and dtype.kind == "c" else ("real",)
            for kind in kinds:
                name = _level1.kernel_name("dot" if op == "dotc" and dtype.kind != "c" else op, dtype, kind)
                assert name in registered, name
    for name in registered:
        assert f"{name.split('<')[0]}(" in source, name
    assert "#include" not in source
    assert re.search(r"(?<![\w.])32(?![\w.])", source) is None, "literal 32 (use RA_WARP_SIZE)"


def test_registration_is_minimal():
    # 5 axpy + 7 scal + 3 copy + 3 swap + 6 rot + 5 dot + 2 dotc + 4 x (nrm2, asum, iamax, iamin)
    assert len(_compile.registered(_level1.SOURCE)) == 47


def test_unsupported_dtypes_name_the_supported_ones():
    supported = "float16, float32, float64, complex64, complex128"
    with pytest.raises(TypeError, match=f"unsupported dtype int32; supported: {supported}"):
        _level1.check_dtype("dot", np.int32)
    with pytest.raises(TypeError, match=r"^rocblas.nrm2: unsupported dtype float16; supported: float32, float64, "
                                        r"complex64, complex128$"):
        _level1.check_dtype("nrm2", np.float16)
    assert _level1.check_dtype("axpy", "float16") == np.dtype("float16")


def test_grid_size_reductions_fill_one_wave_at_most_maps_cover_the_work():
    wave = 132 * 6
    assert _level1.grid_size(1 << 26, 4, True, wave, reduction=False) == (1 << 24) // (256 * 4)
    assert _level1.grid_size(1 << 26, 8, False, wave, reduction=False) == (1 << 26) // (256 * 4)
    assert _level1.grid_size(1 << 40, 8, False, wave, reduction=False) == _level1.MAX_MAP_BLOCKS
    assert _level1.grid_size(1, 4, True, wave, reduction=False) == 1
    assert _level1.grid_size(1, 4, True, wave) == 1
    assert _level1.grid_size(4 * 256 * 4, 4, True, wave) == 1
    assert _level1.grid_size(4 * 256 * 4 + 1, 4, True, wave) == 2
    assert _level1.grid_size(1 << 26, 4, True, wave) == wave
    assert _level1.grid_size(1 << 26, 8, False, wave) == wave
    assert _level1.grid_size(1000, 8, False, wave) == 1


@needs_cupy
def test_unit_path_detection():
    a = fake((100,), np.float32, address=1 << 24)
    b = fake((100,), np.float32, address=1 << 25)
    V = _level1.vector
    assert _level1.is_unit(V(a, 10, 1, "x", "t"), V(b, 10, 1, "y", "t"))
    assert _level1.is_unit(V(a[1:], 10, 1, "x", "t"), V(b[1:], 10, 1, "y", "t"))  # same misalignment
    assert not _level1.is_unit(V(a[1:], 10, 1, "x", "t"), V(b[2:], 10, 1, "y", "t"))
    assert not _level1.is_unit(V(a, 10, 2, "x", "t"), V(b, 10, 1, "y", "t"))
    assert not _level1.is_unit(V(a[::-1], 10, 1, "x", "t"))
    assert _level1.is_unit(V(a[::-1], 10, 1, "x", "t").reversed())


@needs_cupy
def test_argument_errors_raise_before_the_device(no_launch):
    x = fake((10,), np.float32)
    y = fake((10,), np.float32, address=1 << 21)
    with pytest.raises(TypeError, match="host"):
        rocblas.dot(10, np.ones(10, np.float32), 1, y, 1)
    with pytest.raises(TypeError, match="cupy.ndarray"):
        rocblas.nrm2(3, [1.0, 2.0, 3.0], 1)
    with pytest.raises(TypeError, match="same dtype"):
        rocblas.axpy(10, 1.0, x, 1, fake((10,), np.float64), 1)
    with pytest.raises(TypeError, match="unsupported dtype int64"):
        rocblas.scal(10, 2, fake((10,), np.int64), 1)
    with pytest.raises(TypeError, match="unsupported dtype float16"):
        rocblas.copy(10, fake((10,), np.float16), 1, fake((10,), np.float16), 1)
    with pytest.raises(ValueError, match="1-D"):
        rocblas.asum(4, fake((2, 2), np.float32), 1)
    with pytest.raises(ValueError, match="needs 11 elements"):
        rocblas.dot(11, x, 1, y, 1)
    with pytest.raises(ValueError, match="needs 13 elements"):
        rocblas.swap(5, x, -3, y, 1)
    with pytest.raises(ValueError, match="needs"):
        rocblas.iamax(2, x[::2], 5)  # the view has 5 elements
    with pytest.raises(ValueError, match="nonzero"):
        rocblas.axpy(3, 1.0, x, 1, y, 0)
    with pytest.raises(ValueError, match="nonzero"):
        rocblas.rot(3, x, 0, y, 1, 1.0, 0.0)
    with pytest.raises(TypeError, match="complex alpha"):
        rocblas.axpy(3, 1j, x, 1, y, 1)
    with pytest.raises(TypeError, match="complex alpha"):
        rocblas.scal(3, 1 + 1j, x, 1)
    with pytest.raises(TypeError, match="must be real"):
        rocblas.rot(3, fake((3,), np.complex64), 1, fake((3,), np.complex64), 1, 1j, 0.0)
    with pytest.raises(TypeError, match="complex s"):
        rocblas.rot(3, x, 1, y, 1, 1.0, 0.5j)
    with pytest.raises(TypeError, match="host"):
        rocblas.scal(3, fake((), np.float32), x, 1)  # device alpha would need a sync
    with pytest.raises(TypeError, match="integer"):
        rocblas.dot(3.0, x, 1, y, 1)
    with pytest.raises(TypeError, match="integer"):
        rocblas.nrm2(3, x, 1.5)
    with pytest.raises(ValueError, match="aligned"):
        rocblas.dot(2, fake((4,), np.complex128, address=(1 << 20) + 8), 1, fake((4,), np.complex128), 1)


# --------------------------------------------------------------------------------------------
# warm calls: one plan per call signature, only pointers and scalars written per call
# --------------------------------------------------------------------------------------------

@pytest.fixture
def stand_ins(monkeypatch):
    """Level-1 kernels on recording stand-ins, a current device, a stand-in workspace owner, and
    the plans the calls put in the cache and the launches they prepare."""
    import types

    from rocarray._core import plans, workspace

    calls, _ = record_launches(monkeypatch, _level1, wave=1056)
    monkeypatch.setattr(cupy.cuda.runtime, "getDevice", lambda: 0)
    asked = []
    ws = types.SimpleNamespace(data=types.SimpleNamespace(ptr=1 << 40))
    monkeypatch.setattr(workspace, "workspaces",
                        types.SimpleNamespace(counters=lambda name, nbytes, device_id: asked.append(name) or ws))
    put, prepared = plans.cache.put, []
    keys = []
    monkeypatch.setattr(plans.cache, "put", lambda key, plan: keys.append(key) or put(key, plan))
    real = _level1._prepare
    monkeypatch.setattr(_level1, "_prepare", lambda *a, **kw: prepared.append(a[0]) or real(*a, **kw))
    return types.SimpleNamespace(calls=calls, keys=keys, prepared=prepared, workspaces=asked)


def _pointers(args):
    return [int(a) for a in args if isinstance(a, np.uint64)]


@needs_cupy
def test_a_repeated_call_runs_its_plan(stand_ins):
    x, y = fake((100,), np.float32, address=1 << 24), fake((100,), np.float32, address=1 << 25)
    rocblas.axpy(100, 2.0, x, 1, y, 1)
    assert stand_ins.prepared == ["ra_rocblas_axpy<float, float>"] and len(stand_ins.calls) == 1
    assert [k[0] for k in stand_ins.keys] == ["rocblas.axpy"]
    # new buffers of the same layout, a new alpha: no checks, no new plan, the prepared launch
    x2, y2 = fake((100,), np.float32, address=1 << 26), fake((100,), np.float32, address=1 << 27)
    rocblas.axpy(100, 0.5, x2, 1, y2, 1)
    rocblas.axpy(100, 0.0, x2, 1, y2, 1)   # alpha == 0: nothing launched
    assert len(stand_ins.prepared) == 1 and len(stand_ins.keys) == 1 and len(stand_ins.calls) == 2
    name, grid, block, args, shared = stand_ins.calls[-1]
    assert name == "ra_rocblas_axpy<float, float>" and _pointers(args) == [1 << 26, 1 << 27]
    assert args[1].dtype == np.float32 and args[1] == 0.5
    # a reversed increment walks from the far end: the plan keeps the offset, the call the base
    rocblas.scal(10, 3.0, x, 2)
    rocblas.scal(10, 3.0, x2, 2)
    assert _pointers(stand_ins.calls[-1][3]) == [1 << 26]
    rocblas.copy(10, x, -2, y, 1)
    rocblas.copy(10, x2, -2, y2, 1)
    assert _pointers(stand_ins.calls[-1][3]) == [(1 << 26) + 18 * 4, 1 << 27]
    assert [k[0] for k in stand_ins.keys] == ["rocblas.axpy", "rocblas.scal", "rocblas.copy"]


@needs_cupy
def test_a_warm_reduction_writes_its_result_through_the_workspace(stand_ins):
    x, y = fake((100,), np.float64, address=1 << 24), fake((100,), np.float64, address=1 << 25)
    r1, r2 = fake((), np.float64, address=1 << 28), fake((), np.float64, address=1 << 29)
    assert rocblas.dot(100, x, 1, y, 1, result=r1) is r1
    assert rocblas.dot(100, x, 1, y, 1, result=r2) is r2
    assert len(stand_ins.prepared) == 1 and len(stand_ins.calls) == 2
    assert stand_ins.workspaces == [_level1.WORKSPACE] * 2   # asked per call (per stream)
    assert _pointers(stand_ins.calls[-1][3]) == [1 << 24, 1 << 25, 1 << 40, 1 << 29]
    rocblas.nrm2(100, x, 1, result=r1)
    rocblas.nrm2(100, x, 1, result=r2)
    assert len(stand_ins.prepared) == 2 and _pointers(stand_ins.calls[-1][3]) == [1 << 24, 1 << 40, 1 << 29]


@needs_cupy
def test_a_changed_signature_is_checked_again(stand_ins):
    x, y = fake((100,), np.float32, address=1 << 24), fake((100,), np.float32, address=1 << 25)
    rocblas.axpy(100, 2.0, x, 1, y, 1)
    with pytest.raises(ValueError, match="needs 100 elements"):   # another shape
        rocblas.axpy(100, 2.0, x, 1, fake((40,), np.float32, address=1 << 25), 1)
    with pytest.raises(TypeError, match="complex alpha"):          # another scalar type
        rocblas.axpy(100, 2j, x, 1, y, 1)
    with pytest.raises(TypeError, match="integer"):                # a float size equal to the int one
        rocblas.axpy(100.0, 2.0, x, 1, y, 1)
    with pytest.raises(ValueError, match="aligned"):               # another alignment
        rocblas.axpy(100, 2.0, fake((100,), np.float32, address=(1 << 26) + 2), 1, y, 1)
    with pytest.raises(TypeError, match="result"):                 # a result of another kind
        rocblas.dot(100, x, 1, y, 1, result=np.zeros(()))
    rocblas.axpy(np.int64(100), np.float32(2), x, 1, y, 1)         # NumPy integers and scalars: their own plan
    assert len(stand_ins.keys) == 2 and len(stand_ins.calls) == 2
    big = [fake((1 << 16,), np.float32, address=a) for a in (1 << 26, (1 << 27) + 4, 1 << 28)]
    rocblas.axpy(1 << 16, 2.0, big[0], 1, big[2], 1)
    rocblas.axpy(1 << 16, 2.0, big[1], 1, big[2], 1)   # x 4 bytes off y's alignment: no 16-byte path
    assert len(stand_ins.keys) == 4 and [c[1] for c in stand_ins.calls[-2:]] == [16, 64]


@needs_cupy
def test_noops_never_reach_the_device(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a kernel launch was attempted")

    monkeypatch.setattr(_level1, "_prepare", refuse)
    x = fake((10,), np.float32)
    y = fake((10,), np.float32, address=1 << 21)
    assert rocblas.axpy(0, 1.0, x, 1, y, 1) is None
    assert rocblas.axpy(-3, 1.0, x, 1, y, 1) is None
    assert rocblas.axpy(10, 0.0, x, 1, y, 1) is None  # alpha == 0: reference BLAS returns early
    assert rocblas.scal(10, 2.0, x, 0) is None
    assert rocblas.scal(10, 2.0, x, -1) is None
    assert rocblas.copy(0, x, 1, y, 1) is None
    assert rocblas.swap(0, x, 1, y, 1) is None
    assert rocblas.rot(0, x, 1, y, 1, 1.0, 0.0) is None
    # even a no-op rejects a buffer that is too short once n > 0
    with pytest.raises(ValueError):
        rocblas.axpy(11, 0.0, x, 1, y, 1)


# --------------------------------------------------------------------------------------------
# self-checks and benchmark cases (rocarray/rocblas/_checks.py)
# --------------------------------------------------------------------------------------------

def _rocblas_checks():
    from rocarray._core import harness

    harness.load_all()  # the command line loads them; a test run on its own must too
    return [c for c in harness.self_checks() if c.library == "rocblas"]


def _rocblas_cases():
    from rocarray._core import harness

    harness.load_all()  # the command line loads them; a test run on its own must too
    return [c for c in harness.bench_cases() if c.library == "rocblas"]


def test_self_checks_and_bench_cases_are_registered():
    names = {c.name for c in _rocblas_checks()}
    assert {"rocblas.axpy", "rocblas.scal", "rocblas.copy_swap", "rocblas.rot", "rocblas.dot",
            "rocblas.nrm2_asum", "rocblas.iamax_iamin"} <= names
    cases = {c.name: c for c in _rocblas_cases()}
    for name in ("dot_float32", "dot_float64", "axpy_float32", "axpy_float64", "nrm2_float32",
                 "asum_float32", "iamax_float32", "scal_float32", "copy_float32"):
        case = cases[f"rocblas.{name}"]
        assert case.bytes_moved and case.memory_bound


@pytest.mark.gpu
def test_self_checks_pass(rng):
    for check in _rocblas_checks():
        check.run(rng)


@pytest.mark.gpu
@pytest.mark.slow
def test_bench_cases_run():
    for case in _rocblas_cases():
        args = case.setup()
        case.rocarray(*args)
        case.vendor(*args)
        cupy.cuda.Device().synchronize()
        del args


# --------------------------------------------------------------------------------------------
# beyond 2^31 elements: 64-bit indexing end to end (about 17 GB of device memory)
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.slow
def test_more_than_2_31_elements(rng):
    import cupy

    n = 2**31 + 17
    free, _ = cupy.cuda.runtime.memGetInfo()
    if free < 3 * n * 4:
        pytest.skip(f"needs {3 * n * 4 / 2**30:.0f} GiB of free device memory")
    x = cupy.full(n, 0.5, dtype=np.float32)
    far = n - 5 - int(rng.integers(0, 10))  # an index past 2^31
    x[far] = -3.0
    x[7] = 2.0
    # iamax must report the element past 2^31, 1-based
    assert int(rocblas.iamax(n, x, 1)) == far + 1
    assert int(rocblas.iamin(n, x, 1)) == 1
    want = 0.5 * (n - 2) + 3.0 + 2.0
    np.testing.assert_allclose(float(rocblas.asum(n, x, 1)), want, rtol=1e-5)
    y = cupy.ones(n, dtype=np.float32)
    rocblas.axpy(n, 2.0, x, 1, y, 1)
    for i in (0, 7, 2**31 - 1, 2**31, far, n - 1):
        assert float(y[i]) == 1.0 + 2.0 * float(x[i]), i
    np.testing.assert_allclose(float(rocblas.dot(n, x, 1, y, 1)),
                               float(cupy.dot(x.astype(np.float64), y.astype(np.float64))), rtol=1e-5)
    del y
    # a strided view whose last element sits past 2^31
    m = (n + 1) // 2
    np.testing.assert_allclose(float(rocblas.asum(m, x, 2)),
                               float(cupy.abs(x[::2].astype(np.float64)).sum()), rtol=1e-5)
