"""``ra.linalg.svd, svdvals, pinv, matrix_rank, cond, lstsq`` against NumPy: shapes and dtypes as
NumPy's, backward errors in float64, stacked / non-contiguous / empty inputs, and NumPy's errors
(the errors raised before any launch are CPU tests on fake device arrays)."""

import numpy as np
import pytest

from conftest import fake, to_device, to_host

import rocarray as ra

ALL = ["float32", "float64", "complex64", "complex128"]


def eps(dtype):
    return float(np.finfo(np.dtype(dtype)).eps)


def random_matrices(rng, shape, dtype):
    dtype = np.dtype(dtype)
    a = rng.standard_normal(shape)
    if dtype.kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


# --------------------------------------------------------------------------------------------
# CPU: errors before any launch
# --------------------------------------------------------------------------------------------

def test_svd_needs_two_dimensions():
    with pytest.raises(np.linalg.LinAlgError, match="1-dimensional array given"):
        ra.linalg.svd(fake((4,), "float64"))


def test_svd_rejects_float16_and_host_arrays():
    with pytest.raises(TypeError, match="float16"):
        ra.linalg.svd(fake((3, 3), "float16"))
    with pytest.raises(TypeError):
        ra.linalg.svd(np.eye(3))


def test_pinv_rcond_and_rtol_together_is_value_error():
    with pytest.raises(ValueError, match="can't be both set"):
        ra.linalg.pinv(fake((3, 3), "float64"), rcond=1e-3, rtol=1e-3)


def test_matrix_rank_tol_and_rtol_together_is_value_error():
    with pytest.raises(ValueError, match="can't be both set"):
        ra.linalg.matrix_rank(fake((3, 3), "float64"), tol=1.0, rtol=1e-3)


def test_cond_of_empty_is_linalg_error():
    with pytest.raises(np.linalg.LinAlgError, match="cond is not defined on empty arrays"):
        ra.linalg.cond(fake((0, 0), "float64"))


def test_lstsq_dimension_errors_as_numpy():
    with pytest.raises(np.linalg.LinAlgError, match="3-dimensional array given"):
        ra.linalg.lstsq(fake((2, 3, 3), "float64"), fake((3,), "float64"))
    with pytest.raises(np.linalg.LinAlgError, match="Incompatible dimensions"):
        ra.linalg.lstsq(fake((4, 3), "float64"), fake((5,), "float64"))


def test_names_are_rocarrays_own():
    from rocarray.linalg import _svd

    for name in ("svd", "svdvals", "pinv", "matrix_rank", "cond", "lstsq"):
        assert getattr(ra.linalg, name) is getattr(_svd, name)


# --------------------------------------------------------------------------------------------
# CPU: the façade's logic with NumPy in CuPy's place and the NumPy model of the kernels
# --------------------------------------------------------------------------------------------

@pytest.fixture
def on_host(monkeypatch):
    """NumPy stands in for CuPy (same API), host arrays pass as device arrays, and
    gesvdj_strided_batched runs the driver on the kernel model (tests/svd_model.py)."""
    from svd_model import Model

    from rocarray._core import args, backend
    from rocarray.rocsolver import _info, _svd as lib

    monkeypatch.setattr(backend, "cupy", lambda: np)
    monkeypatch.setattr(args, "as_device_array", lambda x, name, allow_scalar=False: np.asarray(x))
    monkeypatch.setattr(_info, "failures", lambda info, batch: np.asarray(info[:batch]))
    monkeypatch.setattr(lib, "_kern", Model())

    def gesvdj_strided_batched(left, right, m, n, A, lda, sa, abstol, *rest):
        lib.run(left, right, m, n, A, lda, sa, lib.default_tolerance(A.dtype, max(m, n)), *rest)

    monkeypatch.setattr(ra.rocsolver, "gesvdj_strided_batched", gesvdj_strided_batched)


@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (5, 3), (3, 5), (2, 3, 6, 4), (2, 1, 4, 7)])
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
@pytest.mark.parametrize("full", [True, False])
def test_host_svd_shapes_dtypes_and_factors(on_host, rng, shape, dtype, full):
    a = random_matrices(rng, shape, dtype)
    u, s, vh = ra.linalg.svd(a, full_matrices=full)
    check_factors(a, u, s, vh, full)
    assert ra.linalg.svdvals(a).shape == s.shape
    strided = random_matrices(rng, (2, 8, 10), dtype)[:, ::2, 1::3]
    check_factors(strided, *ra.linalg.svd(strided, full_matrices=full), full)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (0, 2, 2), (2, 0, 4)])
@pytest.mark.parametrize("full", [True, False])
def test_host_svd_of_empty_matches_numpy(on_host, shape, full):
    a = np.zeros(shape)
    for g, w in zip(ra.linalg.svd(a, full_matrices=full), np.linalg.svd(a, full_matrices=full)):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype, magnitude", [("float32", 1e-25), ("float32", 1e25), ("float64", 1e-200),
                                              ("float64", 1e200), ("complex64", 1e30)])
def test_host_svd_of_extreme_magnitudes(on_host, rng, dtype, magnitude):
    unit = random_matrices(rng, (2, 5, 4), dtype)
    u, s, vh = ra.linalg.svd((unit * magnitude).astype(dtype))
    assert np.all(np.isfinite(s)) and np.all(s > 0)
    check_factors(unit, u, (s / magnitude).astype(s.dtype), vh, True)


def test_host_svd_nan_is_linalg_error(on_host, rng):
    a = rng.standard_normal((2, 4, 4))
    a[0, 1, 2] = np.nan
    with pytest.raises(np.linalg.LinAlgError, match="SVD did not converge"):
        ra.linalg.svd(a)


def test_host_pinv_matrix_rank_cond_lstsq_match_numpy(on_host, rng):
    a = rng.standard_normal((2, 6, 4))
    a[1, :, 3] = a[1, :, 0]
    for kwargs in ({}, {"rcond": 1e-6}, {"rtol": 1e-6}, {"rtol": None}):
        np.testing.assert_allclose(ra.linalg.pinv(a, **kwargs), np.linalg.pinv(a, **kwargs), atol=1e-10)
    assert ra.linalg.pinv(np.zeros((2, 0, 3))).shape == (2, 3, 0)
    np.testing.assert_array_equal(ra.linalg.matrix_rank(a), np.linalg.matrix_rank(a))
    np.testing.assert_array_equal(ra.linalg.matrix_rank(a, rtol=0.5), np.linalg.matrix_rank(a, rtol=0.5))
    np.testing.assert_array_equal(ra.linalg.matrix_rank(a, tol=1.0), np.linalg.matrix_rank(a, tol=1.0))
    assert ra.linalg.matrix_rank(np.zeros(3)) == 0 and ra.linalg.matrix_rank(np.ones(3)) == 1
    sq = rng.standard_normal((3, 5, 5))
    for p in (None, 2, -2, "fro", 1):
        np.testing.assert_allclose(ra.linalg.cond(sq, p), np.linalg.cond(sq, p), rtol=1e-9)
    assert np.isinf(ra.linalg.cond(np.zeros((3, 3))))
    for m, n, k in ((7, 4, None), (7, 4, 2), (4, 7, 3), (8, 4, 2)):
        x = rng.standard_normal((m, n))
        if (m, n) == (8, 4):
            x[:, 3] = x[:, 1]   # rank deficient: no residuals
        b = rng.standard_normal((m,) if k is None else (m, k))
        got, want = ra.linalg.lstsq(x, b), np.linalg.lstsq(x, b)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, atol=1e-10)
            assert np.shape(g) == np.shape(w)
    for a_shape, b_shape in (((0, 3), (0, 2)), ((4, 0), (4, 2)), ((4, 3), (4, 0))):
        a0, b0 = np.ones(a_shape), np.ones(b_shape)
        got, want = ra.linalg.lstsq(a0, b0), np.linalg.lstsq(a0, b0)
        for g, w in zip(got, want):
            assert np.shape(g) == np.shape(w)
            np.testing.assert_allclose(g, w, atol=1e-12)


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

def check_factors(a, u, s, vh, full):
    """NumPy's shapes and dtypes; backward error, orthonormality, values against float64."""
    want = np.linalg.svd(a, full_matrices=full)
    assert u.shape == want.U.shape and s.shape == want.S.shape and vh.shape == want.Vh.shape
    assert u.dtype == want.U.dtype and s.dtype == want.S.dtype and vh.dtype == want.Vh.dtype
    u, s, vh = (np.asarray(to_host(x) if not isinstance(x, np.ndarray) else x) for x in (u, s, vh))
    u, s, vh = u.astype(np.complex128), s.astype(np.float64), vh.astype(np.complex128)
    m, n = a.shape[-2:]
    k, p, e = min(m, n), max(m, n, 16), eps(a.dtype)
    wide = a.astype(np.complex128)
    exact = np.linalg.svd(wide, compute_uv=False)
    scale = np.max(exact, axis=-1, keepdims=True, initial=1e-300)
    assert np.all(np.abs(s - exact) <= 30 * p * e * scale)
    eye_u = np.eye(u.shape[-1])
    eye_v = np.eye(vh.shape[-2])
    assert np.max(np.abs(np.swapaxes(u.conj(), -1, -2) @ u - eye_u), initial=0) <= 10 * p * e
    assert np.max(np.abs(vh @ np.swapaxes(vh.conj(), -1, -2) - eye_v), initial=0) <= 10 * p * e
    if k:
        rebuilt = (u[..., :k] * s[..., None, :]) @ vh[..., :k, :]
        err = np.linalg.norm(rebuilt - wide, axis=(-2, -1)) / (np.linalg.norm(wide, axis=(-2, -1)) * p * e + 1e-300)
        assert np.all(err <= 10), err


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", [(1, 1), (5, 5), (7, 3), (3, 7), (2, 3, 33, 20), (4, 20, 33), (90, 70)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_matches_numpy(rng, dtype, shape, full):
    a = random_matrices(rng, shape, dtype)
    u, s, vh = ra.linalg.svd(to_device(a), full_matrices=full)
    check_factors(a, u, s, vh, full)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, shape", [("float64", (2048, 2048)), ("complex64", (1100, 1000)),
                                          ("float32", (1000, 1300))])
def test_svd_of_large_matrices_block_path(rng, dtype, shape):
    a = random_matrices(rng, shape, dtype)
    u, s, vh = ra.linalg.svd(to_device(a), full_matrices=True)
    check_factors(a, u, s, vh, True)


@pytest.mark.gpu
def test_svd_non_contiguous_integer_and_hermitian_inputs(rng):
    a = random_matrices(rng, (3, 12, 18), "float64")
    view = to_device(a)[:, ::2, 1::2]   # (3, 6, 9), strided
    check_factors(a[:, ::2, 1::2], *ra.linalg.svd(view), True)
    ints = rng.integers(-5, 5, (6, 4))
    u, s, vh = ra.linalg.svd(to_device(ints))
    assert s.dtype == np.float64
    check_factors(ints.astype(np.float64), u, s, vh, True)
    h = random_matrices(rng, (8, 8), "complex128")
    h = h + h.conj().T
    u, s, vh = ra.linalg.svd(to_device(h), hermitian=True)
    check_factors(h, u, s, vh, True)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (0, 2, 2), (2, 0, 4)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_of_empty_matches_numpy(shape, full):
    a = np.zeros(shape)
    want = np.linalg.svd(a, full_matrices=full)
    got = ra.linalg.svd(to_device(a), full_matrices=full)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_array_equal(to_host(g), w)
    assert ra.linalg.svd(to_device(a), compute_uv=False).shape == np.linalg.svd(a, compute_uv=False).shape


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_svdvals_and_compute_uv_false(rng, dtype):
    a = random_matrices(rng, (3, 9, 6), dtype)
    want = np.linalg.svd(a.astype(np.complex128), compute_uv=False)
    for got in (ra.linalg.svdvals(to_device(a)), ra.linalg.svd(to_device(a), compute_uv=False)):
        assert got.dtype == np.linalg.svd(a, compute_uv=False).dtype and got.shape == want.shape
        assert np.all(np.abs(to_host(got) - want) <= 30 * 16 * eps(dtype) * want[..., :1])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, magnitude", [("float32", 1e-25), ("float32", 1e25), ("float64", 1e-200),
                                              ("complex128", 1e200)])
def test_svd_of_extreme_magnitudes(rng, dtype, magnitude):
    unit = random_matrices(rng, (2, 70, 66), dtype)   # both kernel paths: q > 64 and
    small = unit[:, :9, :7]                            # q <= 64
    for x in (unit, small):
        u, s, vh = ra.linalg.svd(to_device((x * magnitude).astype(dtype)))
        s = to_host(s)
        assert np.all(np.isfinite(s)) and np.all(s > 0)
        check_factors(x, u, (s / magnitude).astype(s.dtype), vh, True)


@pytest.mark.gpu
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_svd_of_non_finite_input_raises_linalg_error(rng, bad):
    a = rng.standard_normal((2, 5, 5))
    a[1, 0, 0] = bad
    with pytest.raises(np.linalg.LinAlgError, match="SVD did not converge"):
        ra.linalg.svd(to_device(a))


@pytest.mark.gpu
def test_rank_deficient_and_ill_conditioned(rng):
    q = 40
    u = np.linalg.qr(rng.standard_normal((q, q)))[0]
    v = np.linalg.qr(rng.standard_normal((q, q)))[0]
    graded = (u * np.logspace(0, -10, q)) @ v.T
    low = (u[:, :3] * [5.0, 2.0, 1.0]) @ v[:, :3].T
    a = np.stack([graded, low])
    uu, s, vh = ra.linalg.svd(to_device(a))
    check_factors(a, uu, s, vh, True)
    np.testing.assert_array_equal(to_host(ra.linalg.matrix_rank(to_device(a))), np.linalg.matrix_rank(a))
    c = to_host(ra.linalg.cond(to_device(graded)))
    assert abs(c / np.linalg.cond(graded) - 1) < 1e-2   # both carry ~ p eps cond relative error


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", [(6, 6), (9, 4), (4, 9), (2, 7, 5)])
def test_pinv_matches_numpy(rng, dtype, shape):
    a = random_matrices(rng, shape, dtype)
    got = ra.linalg.pinv(to_device(a))
    want = np.linalg.pinv(a.astype(np.complex128))
    assert got.shape == want.shape and got.dtype == np.linalg.pinv(a).dtype
    cond = np.linalg.cond(a.astype(np.complex128))
    tol = 100 * max(shape) * eps(dtype) * np.max(cond)
    assert np.max(np.abs(to_host(got) - want)) <= tol * np.max(np.abs(want))


@pytest.mark.gpu
def test_pinv_rcond_rtol_and_empty(rng):
    a = rng.standard_normal((5, 5))
    a[:, 4] = a[:, 3] * (1 + 1e-9)   # a singular value near 1e-9 relative
    for kwargs in ({}, {"rcond": 1e-6}, {"rtol": 1e-6}, {"rtol": None}):
        got = to_host(ra.linalg.pinv(to_device(a), **kwargs))
        want = np.linalg.pinv(a, **kwargs)
        assert np.allclose(got, want, rtol=1e-4, atol=1e-4 * np.max(np.abs(want))), kwargs
    for shape in ((0, 3), (2, 3, 0)):
        got = ra.linalg.pinv(to_device(np.zeros(shape)))
        assert got.shape == np.linalg.pinv(np.zeros(shape)).shape


@pytest.mark.gpu
def test_matrix_rank_matches_numpy(rng):
    a = rng.standard_normal((3, 8, 6))
    a[1, :, 5] = a[1, :, 0]
    a[2] = 0
    np.testing.assert_array_equal(to_host(ra.linalg.matrix_rank(to_device(a))), np.linalg.matrix_rank(a))
    np.testing.assert_array_equal(to_host(ra.linalg.matrix_rank(to_device(a), tol=0.5)),
                                  np.linalg.matrix_rank(a, tol=0.5))
    np.testing.assert_array_equal(to_host(ra.linalg.matrix_rank(to_device(a), rtol=0.3)),
                                  np.linalg.matrix_rank(a, rtol=0.3))
    assert ra.linalg.matrix_rank(to_device(np.zeros(4))) == 0
    assert ra.linalg.matrix_rank(to_device(np.ones(4))) == 1


@pytest.mark.gpu
@pytest.mark.parametrize("p", [None, 2, -2, 1, "fro", np.inf])
def test_cond_matches_numpy(rng, p):
    a = rng.standard_normal((3, 6, 6))
    got = to_host(ra.linalg.cond(to_device(a), p))
    np.testing.assert_allclose(got, np.linalg.cond(a, p), rtol=1e-8)
    singular = np.ones((4, 4))
    assert np.isinf(to_host(ra.linalg.cond(to_device(np.zeros((3, 3))))))
    assert to_host(ra.linalg.cond(to_device(singular))) > 1e14


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("m, n, k", [(9, 4, None), (9, 4, 3), (4, 9, 2), (6, 6, 1)])
def test_lstsq_matches_numpy(rng, dtype, m, n, k):
    a = random_matrices(rng, (m, n), dtype)
    b = random_matrices(rng, (m,) if k is None else (m, k), dtype)
    x, res, rank, s = ra.linalg.lstsq(to_device(a), to_device(b))
    wx, wres, wrank, ws = np.linalg.lstsq(a, b)
    assert x.shape == wx.shape and x.dtype == wx.dtype
    assert res.shape == wres.shape and res.dtype == wres.dtype
    assert rank == wrank and s.shape == ws.shape and s.dtype == ws.dtype
    ex = np.linalg.lstsq(a.astype(np.complex128), b.astype(np.complex128))[0]
    tol = 100 * max(m, n) * eps(dtype) * np.linalg.cond(a.astype(np.complex128))
    assert np.max(np.abs(to_host(x) - ex)) <= tol * max(np.max(np.abs(ex)), 1)
    if res.size:
        np.testing.assert_allclose(to_host(res), wres, rtol=1e3 * eps(dtype) * max(m, n))


@pytest.mark.gpu
def test_lstsq_rank_deficient_and_empty(rng):
    a = rng.standard_normal((8, 4))
    a[:, 3] = a[:, 2]
    b = rng.standard_normal((8, 2))
    x, res, rank, s = ra.linalg.lstsq(to_device(a), to_device(b))
    wx, wres, wrank, ws = np.linalg.lstsq(a, b)
    assert rank == wrank == 3 and res.shape == wres.shape == (0,)
    np.testing.assert_allclose(to_host(x), wx, atol=1e-10)
    for a_shape, b_shape in (((0, 3), (0, 2)), ((4, 0), (4, 2)), ((4, 3), (4, 0))):
        a0, b0 = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
        got = ra.linalg.lstsq(to_device(a0), to_device(b0))
        want = np.linalg.lstsq(a0, b0)
        assert got[0].shape == want[0].shape and got[1].shape == want[1].shape and got[2] == want[2]
        np.testing.assert_allclose(to_host(got[0]), want[0], atol=1e-12)
        np.testing.assert_allclose(to_host(got[1]), want[1], atol=1e-12)
