"""``ra.linalg.cholesky`` (NumPy) and ``cho_factor``, ``cho_solve``, ``solve_triangular`` (SciPy).

(Named ``test_cholesky_facade.py``: ``tests/rocsolver/test_cholesky.py`` takes the plain name,
and test files share one namespace without package ``__init__`` files.)

CPU tests: SciPy's dtype rule, the C-ordered layout trick (potrf with the opposite ``uplo`` on
the C-ordered copy leaves NumPy's factor; checked with the host stand-in of the potf2 kernel), and
every error raised before the device is touched. GPU tests compare with NumPy/SciPy in
float64/complex128 by backward error, on stacked, non-contiguous, integer, empty and failing
inputs.
"""

import numpy as np
import pytest
import scipy.linalg

import cholesky_host as host
from conftest import fake, random_array, to_device, to_host

import rocarray as ra
from rocarray.linalg import _cholesky as facade

ALL = ["float32", "float64", "complex64", "complex128"]
EPS = {np.dtype(d): np.finfo(d).eps for d in ALL}


def spd(rng, shape, dtype):
    n = shape[-1]
    x = random_array(rng, shape, dtype)
    return (x @ np.swapaxes(x, -1, -2).conj() / n + np.eye(n)).astype(dtype)


# --------------------------------------------------------------------------------------------
# CPU
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("first", ["bool", "int8", "uint8", "int16", "uint16", "int32", "int64", "uint32",
                                   "float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("second", [None, "float32", "float64", "complex64", "int16"])
def test_scipy_dtype_rule(first, second):
    a = np.eye(2, dtype=first)
    b = np.ones(2, dtype=second or first)
    want = scipy.linalg.solve_triangular(a, b).dtype
    assert facade.scipy_dtype(a.dtype, b.dtype) == want


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_c_order_buffer_with_opposite_uplo_holds_numpys_factor(rng, dtype, lower):
    n = 9
    a = spd(rng, (n, n), dtype)
    buf = np.ascontiguousarray(a).reshape(-1).copy()
    info = np.zeros(1, np.int32)
    host.Kernels().potf2("U" if lower else "L", n, buf, n, 0, info, 1)   # column-major view: the transpose
    got = buf.reshape(n, n)
    want = np.linalg.cholesky(a, upper=not lower)
    keep = np.tri(n, dtype=bool) if lower else np.tri(n, dtype=bool).T
    np.testing.assert_allclose(got[keep], want[keep], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(got[~keep], a[~keep])   # SciPy's cho_factor keeps the other triangle


@pytest.mark.parametrize("call, error, match", [
    (lambda: ra.linalg.cholesky(fake((3,), "float64")), np.linalg.LinAlgError, "at least two-dimensional"),
    (lambda: ra.linalg.cholesky(fake((3, 4), "float64")), np.linalg.LinAlgError, "square"),
    (lambda: ra.linalg.cholesky(fake((3, 3), "float16")), TypeError, "float16"),
    (lambda: ra.linalg.cholesky(np.eye(3)), TypeError, "host"),
    (lambda: ra.linalg.cho_factor(fake((2, 3), "float64")), ValueError, "expected to be square"),
    (lambda: ra.linalg.cho_factor(np.eye(3)), TypeError, "host"),
    (lambda: ra.linalg.cho_solve((fake((3, 3), "float64"), False), fake((4,), "float64")), ValueError,
     "incompatible dimensions"),
    (lambda: ra.linalg.cho_solve((fake((2, 3, 3), "float64"), False), fake((4, 3, 1), "float64")), ValueError,
     "incompatible dimensions"),
    (lambda: ra.linalg.solve_triangular(fake((2, 3), "float64"), fake((2,), "float64")), ValueError,
     "expected square matrix"),
    (lambda: ra.linalg.solve_triangular(fake((3, 3), "float64"), fake((2,), "float64")), ValueError,
     "incompatible"),
    (lambda: ra.linalg.solve_triangular(fake((3, 3), "float64"), fake((3,), "float64"), trans=3), ValueError,
     "trans"),
    (lambda: ra.linalg.solve_triangular(fake((3, 3), "float64"), fake((3,), "float64"), trans="X"), ValueError,
     "trans"),
    (lambda: ra.linalg.solve_triangular(fake((3, 3), "float64"), np.ones(3)), TypeError, "host"),
])
def test_errors_before_the_device(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_names_are_exported():
    for name in ("cholesky", "cho_factor", "cho_solve", "solve_triangular"):
        assert name in ra.linalg.__all__ and callable(getattr(ra.linalg, name))


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

def _backward(a, factor, upper, dtype):
    rebuilt = np.swapaxes(factor, -1, -2).conj() @ factor if upper else factor @ np.swapaxes(factor, -1, -2).conj()
    n = a.shape[-1]
    return np.max(np.linalg.norm(rebuilt - a, axis=(-2, -1)) / (np.linalg.norm(a, axis=(-2, -1)) * n
                                                              * EPS[np.dtype(dtype)]))


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (37, 37), (128, 128), (131, 131), (5, 20, 20), (2, 3, 129, 129),
                                   (400, 400), (40, 32, 32), (3, 3, 64, 64), (6, 100, 100), (4, 128, 128)],
                         ids=str)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", ALL)
def test_cholesky_matches_numpy(rng, dtype, upper, shape):
    a = spd(rng, shape, dtype)
    got = to_host(ra.linalg.cholesky(to_device(a), upper=upper))
    assert got.dtype == np.linalg.cholesky(a).dtype and got.shape == a.shape
    assert _backward(a.astype(np.complex128), got.astype(np.complex128), upper, dtype) < 10
    tri = np.triu if upper else np.tril
    np.testing.assert_array_equal(got, tri(got))


@pytest.mark.gpu
def test_cholesky_non_contiguous_integer_and_empty(rng):
    a = spd(rng, (6, 6), "float64")
    big = np.zeros((12, 12))
    big[::2, ::2] = a
    got = ra.linalg.cholesky(to_device(big)[::2, ::2])
    np.testing.assert_allclose(to_host(got), np.linalg.cholesky(a), rtol=1e-12, atol=1e-12)
    ints = np.array([[4, 2], [2, 3]])
    assert ra.linalg.cholesky(to_device(ints)).dtype == np.float64
    assert ra.linalg.cholesky(to_device(np.zeros((3, 0, 0), np.float32))).shape == (3, 0, 0)


@pytest.mark.gpu
@pytest.mark.parametrize("bad", ["indefinite", "nan", "one_of_a_stack"])
def test_cholesky_not_positive_definite(rng, bad):
    a = spd(rng, (4, 150, 150), "float64")
    if bad == "indefinite":
        a[:, 70, 70] = -1.0
    elif bad == "nan":
        a[0, 3, 3] = np.nan
    else:
        a[2, 149, 149] = -5.0
    with pytest.raises(np.linalg.LinAlgError, match="Matrix is not positive definite"):
        ra.linalg.cholesky(to_device(a))


@pytest.mark.gpu
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("b_shape", [(None,), (None, 3), (4, None, 2), (2, None, 3)], ids=str)
@pytest.mark.parametrize("n", [1, 33, 200])
@pytest.mark.parametrize("dtype", ALL)
def test_cho_factor_and_solve(rng, dtype, n, b_shape, lower):
    batch = (4,) if b_shape[0] == 4 else ()   # (2, M, 3): one factor for a stack of right-hand sides
    a = spd(rng, batch + (n, n), dtype)
    b = random_array(rng, tuple(n if s is None else s for s in b_shape), dtype)
    c, low = ra.linalg.cho_factor(to_device(a), lower=lower)
    assert low is lower
    want_c, _ = scipy.linalg.cho_factor(a, lower=lower)
    keep = np.tri(n, dtype=bool) if lower else np.tri(n, dtype=bool).T
    np.testing.assert_array_equal(to_host(c)[..., ~keep], a[..., ~keep])
    tol = 10 * n * EPS[np.dtype(dtype)] * 100
    np.testing.assert_allclose(to_host(c)[..., keep], want_c[..., keep], rtol=tol, atol=tol)
    x = ra.linalg.cho_solve((c, low), to_device(b))
    want = scipy.linalg.cho_solve((want_c, lower), b)
    assert x.shape == want.shape and x.dtype == want.dtype
    xs = to_host(x).astype(np.complex128)
    xs2 = xs if b.ndim > 1 else xs[..., None]
    b2 = b if b.ndim > 1 else b[..., None]
    resid = np.linalg.norm(a.astype(np.complex128) @ xs2 - b2) / (np.linalg.norm(a) * np.linalg.norm(xs2) * n
                                                                   * EPS[np.dtype(dtype)])
    assert resid < 10


@pytest.mark.gpu
def test_cho_factor_errors(rng):
    a = spd(rng, (50, 50), "float64")
    a[20, 20] = -1.0
    with pytest.raises(np.linalg.LinAlgError, match="21-th leading minor"):
        ra.linalg.cho_factor(to_device(a), lower=True)
    a[20, 20] = np.inf
    with pytest.raises(ValueError, match="infs or NaNs"):
        ra.linalg.cho_factor(to_device(a))
    with pytest.raises(ValueError, match="infs or NaNs"):
        ra.linalg.cho_solve((to_device(np.eye(3)), False), to_device(np.array([1.0, np.nan, 0.0])))


@pytest.mark.gpu
@pytest.mark.parametrize("trans, unit", [(0, False), (1, True), (2, False), ("C", True), ("T", False)])
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("shape, b_shape", [((1, 1), (1,)), ((70, 70), (70,)), ((130, 130), (130, 5)),
                                            ((3, 40, 40), (40, 2)), ((2, 1, 9, 9), (3, 9, 4)),
                                            ((17, 17), (5, 17, 3))], ids=str)
@pytest.mark.parametrize("dtype", ALL)
def test_solve_triangular_matches_scipy(rng, dtype, shape, b_shape, lower, trans, unit):
    n = shape[-1]
    a = (random_array(rng, shape, dtype) * (0.5 / n) + 2 * np.eye(n)).astype(dtype)
    b = random_array(rng, b_shape, dtype)
    x = ra.linalg.solve_triangular(to_device(a), to_device(b), trans=trans, lower=lower, unit_diagonal=unit)
    want = scipy.linalg.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit)
    assert x.shape == want.shape and x.dtype == want.dtype
    tol = 50 * n * EPS[np.dtype(dtype)]
    np.testing.assert_allclose(to_host(x), want, rtol=tol, atol=tol * np.max(np.abs(want)))


@pytest.mark.gpu
def test_solve_triangular_errors_and_mixed_dtypes(rng):
    a = np.triu(random_array(rng, (6, 6), "float64")) + 4 * np.eye(6)
    a[3, 3] = 0
    with pytest.raises(np.linalg.LinAlgError, match="singular matrix: resolution failed at diagonal 3"):
        ra.linalg.solve_triangular(to_device(a), to_device(np.ones(6)))
    ra.linalg.solve_triangular(to_device(a), to_device(np.ones(6)), unit_diagonal=True)  # diagonal not read
    a[3, 3] = 1
    a[5, 0] = np.nan   # the unreferenced triangle is checked too, like SciPy
    with pytest.raises(ValueError, match="infs or NaNs"):
        ra.linalg.solve_triangular(to_device(a), to_device(np.ones(6)))
    x = ra.linalg.solve_triangular(to_device(a), to_device(np.ones(6, np.float32)), check_finite=False)
    assert x.dtype == np.float64
    a32 = np.triu(random_array(rng, (5, 5), "float32")) + 3 * np.eye(5, dtype=np.float32)
    y = ra.linalg.solve_triangular(to_device(a32), to_device(np.ones(5, np.complex64)))
    assert y.dtype == np.complex64
    np.testing.assert_allclose(to_host(y), scipy.linalg.solve_triangular(a32, np.ones(5, np.complex64)),
                               rtol=1e-5)
