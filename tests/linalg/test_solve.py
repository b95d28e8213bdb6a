"""``ra.linalg`` solve, inv, det, slogdet, tensorsolve, tensorinv and SciPy's lu, lu_factor,
lu_solve against NumPy/SciPy.

Every semantic test runs twice: on the CPU (``host``: the façade and the rocsolver drivers run
unchanged on NumPy arrays standing in for CuPy's, with the NumPy stand-ins of ``lu_host`` for the
kernels and rocblas calls, which proves shapes, broadcasting, dtypes, layouts, pivots and errors
without a device) and on the GPU (``device``: the real kernels, compared by backward errors and
against NumPy/SciPy in float64/complex128).
"""

import warnings

import numpy as np
import pytest
import scipy.linalg as sl

import lu_host

from conftest import random_array as rand
import rocarray.linalg as la

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

ALL = ["float32", "float64", "complex64", "complex128"]


class Env:
    """Moves test data to the arrays the façade takes and back."""

    def __init__(self, kind):
        self.kind = kind

    def dev(self, x):
        return lu_host.to_host_array(x) if self.kind == "host" else cupy.asarray(x)

    @staticmethod
    def host(x):
        return np.asarray(x) if not hasattr(x, "get") else x.get()


@pytest.fixture(params=["host", pytest.param("device", marks=pytest.mark.gpu)])
def env(request, monkeypatch):
    if request.param == "host":
        lu_host.install_facade(monkeypatch)
    return Env(request.param)


def tol(dtype, n):
    return 50 * max(n, 1) * np.finfo(np.dtype(dtype)).eps


def residual(a, x, b):
    """``||a x - b|| / (||a|| ||x|| n eps)``-style relative residual in float64/complex128."""
    a, x, b = (np.asarray(v, np.complex128) for v in (a, x, b))
    if x.ndim == b.ndim and x.ndim == a.ndim - 1:
        ax = np.einsum("...ij,...j->...i", a, x)
    else:
        ax = a @ x
    return np.linalg.norm(ax - b) / max(np.linalg.norm(a) * np.linalg.norm(x), 1e-300)


@pytest.mark.parametrize("ashape,bshape", [
    ((3, 3), (3,)), ((1, 1), (1,)), ((2, 4, 4), (4,)), ((2, 4, 4), (2, 4, 3)), ((4, 4), (5, 4, 2)),
    ((3, 1, 5, 5), (2, 5, 1)), ((70, 70), (70, 3)),
])
@pytest.mark.parametrize("dtype", ALL)
def test_solve_matches_numpy(env, rng, ashape, bshape, dtype):
    a, b = rand(rng, ashape, dtype), rand(rng, bshape, dtype)
    x = la.solve(env.dev(a), env.dev(b))
    want = np.linalg.solve(a, b)
    assert x.shape == want.shape and x.dtype == want.dtype
    assert residual(np.broadcast_to(a, want.shape[:-1 if len(bshape) == 1 else -2] + ashape[-2:]),
                    env.host(x), np.broadcast_to(b, want.shape)) < tol(dtype, ashape[-1])


def test_solve_dtype_rules_and_empty(env, rng):
    a = rng.integers(-5, 5, (3, 3)) + 10 * np.eye(3, dtype=np.int64)
    x = la.solve(env.dev(a), env.dev(np.arange(3)))
    assert x.dtype == np.float64
    np.testing.assert_allclose(env.host(x), np.linalg.solve(a, np.arange(3)))
    x = la.solve(env.dev(rand(rng, (3, 3), "float32")), env.dev(rand(rng, (3,), "complex128")))
    assert x.dtype == np.complex128
    for ashape, bshape in (((0, 0), (0,)), ((2, 0, 0), (2, 0, 4)), ((0, 3, 3), (3,)), ((3, 3), (3, 0))):
        a = np.broadcast_to(np.eye(ashape[-1]), ashape)
        got = la.solve(env.dev(a), env.dev(np.zeros(bshape)))
        assert got.shape == np.linalg.solve(a, np.zeros(bshape)).shape
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):   # as NumPy, with no right-hand side
        la.solve(env.dev(np.zeros((3, 3))), env.dev(np.zeros((3, 0))))


def test_solve_errors(env, rng):
    a = env.dev(rand(rng, (4, 4), "float64"))
    with pytest.raises(ValueError, match="mismatch in its core dimension"):
        la.solve(a, env.dev(np.ones(3)))
    with pytest.raises(ValueError, match="mismatch in its core dimension"):
        la.solve(a, env.dev(np.ones((3, 2))))
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        la.solve(env.dev(np.ones((3, 4))), env.dev(np.ones(3)))
    with pytest.raises(np.linalg.LinAlgError, match="at least two-dimensional"):
        la.solve(env.dev(np.ones(3)), env.dev(np.ones(3)))
    with pytest.raises(ValueError):
        la.solve(env.dev(np.ones((2, 3, 3))), env.dev(np.ones((4, 3, 1))))
    s = rand(rng, (3, 5, 5), "float64")
    s[1, :, 2] = 0.0
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        la.solve(env.dev(s), env.dev(np.ones(5)))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        la.inv(env.dev(s))
    with pytest.raises(TypeError):
        la.solve(np.eye(3), np.ones(3))
    with pytest.raises(TypeError):
        la.inv(env.dev(np.eye(3, dtype=np.float16)))


@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (2, 3, 6, 6), (0, 0), (2, 0, 0), (0, 3, 3)])
@pytest.mark.parametrize("dtype", ALL)
def test_inv_det_slogdet(env, rng, shape, dtype):
    a = rand(rng, shape, dtype)
    got = la.inv(env.dev(a))
    want = np.linalg.inv(a)
    assert got.shape == want.shape and got.dtype == want.dtype
    if a.size:
        n = shape[-1]
        eye = np.broadcast_to(np.eye(n), shape)
        assert np.linalg.norm(a.astype(np.complex128) @ env.host(got) - eye) / (
            np.linalg.norm(a) * np.linalg.norm(env.host(got))) < tol(dtype, n)
    d = la.det(env.dev(a))
    wd = np.linalg.det(a)
    assert d.shape == np.shape(wd) and d.dtype == np.asarray(wd).dtype
    sign, logdet = la.slogdet(env.dev(a))
    ws, wl = np.linalg.slogdet(a)
    assert sign.dtype == np.asarray(ws).dtype and logdet.dtype == np.asarray(wl).dtype
    assert sign.shape == np.shape(ws) and logdet.shape == np.shape(wl)
    if a.size == 0:
        np.testing.assert_array_equal(env.host(d), wd)
        np.testing.assert_array_equal(env.host(sign), ws)
        np.testing.assert_array_equal(env.host(logdet), wl)
        return
    # references in float64/complex128; errors relative to the determinant grow with cond(a)
    wide = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    scale = 10 * tol(dtype, shape[-1]) * max(1.0, float(np.max(np.linalg.cond(wide))))
    np.testing.assert_allclose(env.host(d), np.linalg.det(wide), rtol=scale, atol=0)
    ws, wl = np.linalg.slogdet(wide)
    np.testing.assert_allclose(env.host(sign), ws, rtol=0, atol=scale)
    np.testing.assert_allclose(env.host(logdet), wl, rtol=0, atol=scale)


def test_det_and_slogdet_of_singular_matrices(env, rng):
    a = rand(rng, (3, 6, 6), "float64")
    a[0, :, 1] = 0.0
    a[2, 4, :] = 0.0
    d = env.host(la.det(env.dev(a)))
    assert d[0] == 0 and d[2] == 0 and d[1] != 0
    sign, logdet = (env.host(v) for v in la.slogdet(env.dev(a)))
    np.testing.assert_array_equal(sign[[0, 2]], 0)
    assert np.isneginf(logdet[[0, 2]]).all() and np.isfinite(logdet[1])
    c = rand(rng, (4, 4), "complex128")
    c[:, 0] = 0
    sign, logdet = la.slogdet(env.dev(c))
    assert env.host(sign) == 0 and np.isneginf(env.host(logdet))


def test_slogdet_avoids_overflow(env, rng):
    a = rand(rng, (40, 40), "float64") * 1e20
    sign, logdet = la.slogdet(env.dev(a))
    ws, wl = np.linalg.slogdet(a)
    assert env.host(sign) == ws
    np.testing.assert_allclose(env.host(logdet), wl, rtol=1e-12)


def test_tensorsolve_and_tensorinv(env, rng):
    a = rand(rng, (6, 2, 3), "float64")
    b = rand(rng, (6,), "float64")
    np.testing.assert_allclose(env.host(la.tensorsolve(env.dev(a), env.dev(b))), np.linalg.tensorsolve(a, b),
                               rtol=1e-10, atol=1e-10)
    t = rand(rng, (4, 6, 8, 3), "float64")
    got = la.tensorinv(env.dev(t), ind=2)
    np.testing.assert_allclose(env.host(got), np.linalg.tensorinv(t, ind=2), rtol=1e-9, atol=1e-9)
    with pytest.raises(ValueError, match="Invalid ind"):
        la.tensorinv(env.dev(t), ind=0)
    with pytest.raises(np.linalg.LinAlgError):
        la.tensorsolve(env.dev(rand(rng, (6, 5), "float64")), env.dev(np.ones(6)))


def test_tensorsolve_axes_matches_numpy(env, rng):
    a = rand(rng, (3, 6, 2), "complex128")
    b = rand(rng, (6,), "complex128")
    got = la.tensorsolve(env.dev(a), env.dev(b), axes=(0,))
    np.testing.assert_allclose(env.host(got), np.linalg.tensorsolve(a, b, axes=(0,)), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("shape", [(1, 1), (5, 5), (7, 4), (4, 7), (2, 3, 5, 5), (2, 6, 3), (0, 3), (3, 0)])
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_lu_matches_scipy(env, rng, shape, dtype):
    a = rand(rng, shape, dtype)
    p, l, u = la.lu(env.dev(a))
    wp, wl, wu = sl.lu(a)
    for got, want in ((p, wp), (l, wl), (u, wu)):
        assert got.shape == want.shape and got.dtype == want.dtype
    r = 10 * tol(dtype, max(shape[-2:]) if a.size else 1)
    np.testing.assert_allclose(env.host(p), wp)
    np.testing.assert_allclose(env.host(l), wl, rtol=r, atol=r)
    np.testing.assert_allclose(env.host(u), wu, rtol=r, atol=r * max(1, np.abs(a).max(initial=0)))
    pl, u2 = la.lu(env.dev(a), permute_l=True)
    wpl, _ = sl.lu(a, permute_l=True)
    assert pl.shape == wpl.shape
    np.testing.assert_allclose(env.host(pl), wpl, rtol=r, atol=r)
    pi, _, _ = la.lu(env.dev(a), p_indices=True)
    wpi, _, _ = sl.lu(a, p_indices=True)
    assert pi.dtype == wpi.dtype and pi.shape == wpi.shape
    np.testing.assert_array_equal(env.host(pi), wpi)


def test_lu_check_finite(env):
    with pytest.raises(ValueError, match="infs or NaNs"):
        la.lu(env.dev(np.array([[1.0, np.nan], [1.0, 2.0]])))
    with pytest.raises(ValueError, match="infs or NaNs"):
        la.lu_factor(env.dev(np.array([[1.0, np.inf], [1.0, 2.0]])))


@pytest.mark.parametrize("shape", [(5, 5), (6, 4), (3, 4, 4)])
@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_lu_factor_and_lu_solve(env, rng, shape, dtype):
    a = rand(rng, shape, dtype)
    lu, piv = la.lu_factor(env.dev(a))
    wlu, wpiv = sl.lu_factor(a)
    assert lu.shape == wlu.shape and lu.dtype == wlu.dtype and piv.dtype == wpiv.dtype
    np.testing.assert_array_equal(env.host(piv), wpiv)
    r = 10 * tol(dtype, shape[-1])
    np.testing.assert_allclose(env.host(lu), wlu, rtol=r, atol=r)
    if shape[-1] != shape[-2]:
        return
    n = shape[-1]
    for trans in (0, 1, 2):
        for bshape in ((n,), (n, 3)) + (((shape[0], n, 2),) if len(shape) == 3 else ()):
            b = rand(rng, bshape, dtype)
            x = la.lu_solve((lu, piv), env.dev(b), trans=trans)
            want = sl.lu_solve((wlu, wpiv), b, trans=trans)
            assert x.shape == want.shape and x.dtype == want.dtype
            np.testing.assert_allclose(env.host(x), want, rtol=100 * r, atol=100 * r * np.abs(want).max())


def test_lu_factor_warns_on_singular(env):
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        la.lu_factor(env.dev(a))
    assert any("exactly zero" in str(w.message) for w in caught)
    with pytest.raises(ValueError, match="incompatible"):
        la.lu_solve(la.lu_factor(env.dev(np.eye(3))), env.dev(np.ones(4)))
    with pytest.raises(ValueError, match="trans"):
        la.lu_solve(la.lu_factor(env.dev(np.eye(3))), env.dev(np.ones(3)), trans=3)


# --------------------------------------------------------------------------------------------
# GPU only: sizes, layouts and conditioning the stand-ins would not tell anything about
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n", [2, 31, 64, 65, 127, 128, 129, 257, 600])
def test_solve_backward_error(rng, dtype, n):
    a, b = rand(rng, (n, n), dtype), rand(rng, (n, 2), dtype)
    x = la.solve(cupy.asarray(a), cupy.asarray(b)).get()
    eps = np.finfo(np.dtype(dtype)).eps
    r = np.linalg.norm(a.astype(np.complex128) @ x - b) / (np.linalg.norm(a) * np.linalg.norm(x) * n * eps)
    assert r < 8


@pytest.mark.gpu
def test_solve_large_f64():
    n = 2000
    rng = np.random.default_rng()
    a, b = rng.standard_normal((n, n)), rng.standard_normal(n)
    x = la.solve(cupy.asarray(a), cupy.asarray(b)).get()
    assert np.linalg.norm(a @ x - b) / (np.linalg.norm(a) * np.linalg.norm(x) * n * np.finfo(float).eps) < 8


@pytest.mark.gpu
@pytest.mark.parametrize("dtype,n,batch", [("float32", 32, 3000), ("float64", 128, 300), ("complex64", 17, 100),
                                           ("complex128", 100, 70), ("float64", 300, 65)])
def test_batched_solve_backward_error(rng, dtype, n, batch):
    a, b = rand(rng, (batch, n, n), dtype), rand(rng, (batch, n), dtype)
    # NumPy 2: a stack of vectors is a stack of one-column matrices (a 2-D b is one matrix)
    x = la.solve(cupy.asarray(a), cupy.asarray(b)[..., None]).get()[..., 0]
    ax = np.einsum("bij,bj->bi", a.astype(np.complex128), x)
    eps = np.finfo(np.dtype(dtype)).eps
    r = np.linalg.norm(ax - b, axis=1) / (np.linalg.norm(a, axis=(1, 2)) * np.linalg.norm(x, axis=1) * n * eps)
    assert r.max() < 8


@pytest.mark.gpu
def test_solve_non_contiguous_and_ill_conditioned(rng):
    n = 150
    u, _ = np.linalg.qr(rng.standard_normal((n, n)))
    v, _ = np.linalg.qr(rng.standard_normal((n, n)))
    a = (u * np.logspace(0, -10, n)) @ v.T     # cond 1e10
    big = np.zeros((2 * n, 2 * n))
    big[::2, ::2] = a
    b = rng.standard_normal(n)
    x = la.solve(cupy.asarray(big)[::2, ::2], cupy.asarray(b)).get()
    assert np.linalg.norm(a @ x - b) / (np.linalg.norm(a) * np.linalg.norm(x) * n * np.finfo(float).eps) < 8
    xt = la.solve(cupy.asarray(a).T, cupy.asarray(b)).get()
    assert np.linalg.norm(a.T @ xt - b) / (np.linalg.norm(a) * np.linalg.norm(xt) * n * np.finfo(float).eps) < 8


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_inv_larger(rng, dtype):
    n = 300
    a = rand(rng, (n, n), dtype) + 3 * np.sqrt(n) * np.eye(n, dtype=dtype)
    inv = la.inv(cupy.asarray(a)).get()
    eps = np.finfo(np.dtype(dtype)).eps
    assert np.linalg.norm(a.astype(np.complex128) @ inv - np.eye(n)) / (np.linalg.cond(a) * n * eps) < 8


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_small_stacks_layouts_and_broadcasting(rng, dtype):
    n, batch = 32, 500
    a, b = rand(rng, (batch, n, n), dtype), rand(rng, (batch, n, 1), dtype)
    eps = np.finfo(np.dtype(dtype)).eps

    def check(x, a, b):
        x = x.get()
        r = np.linalg.norm(a.astype(np.complex128) @ x - b, axis=(-2, -1)) / (
            np.linalg.norm(a, axis=(-2, -1)) * np.linalg.norm(x, axis=(-2, -1)) * n * eps)
        assert r.max() < 8

    check(la.solve(cupy.asarray(a), cupy.asarray(b)), a, b)
    check(la.solve(cupy.asfortranarray(cupy.asarray(a)), cupy.asarray(b)), a, b)
    check(la.solve(cupy.asarray(a).transpose(0, 2, 1), cupy.asarray(b)), a.transpose(0, 2, 1), b)
    big = cupy.asarray(np.repeat(a, 2, axis=0))[::2]
    check(la.solve(big, cupy.asarray(b)), a, b)
    v = rand(rng, (n,), dtype)
    x = la.solve(cupy.asarray(a), cupy.asarray(v)).get()
    assert x.shape == (batch, n)
    check(cupy.asarray(x[..., None]), a, np.broadcast_to(v[:, None], (batch, n, 1)))
    one = rand(rng, (n, n), dtype)
    check(la.solve(cupy.asarray(one), cupy.asarray(b)), np.broadcast_to(one, (batch, n, n)), b)
    inv = la.inv(cupy.asarray(a[:50])).get()
    assert (np.linalg.norm(a[:50].astype(np.complex128) @ inv - np.eye(n), axis=(1, 2))
            / (np.linalg.cond(a[:50]) * n * eps)).max() < 8


@pytest.mark.gpu
def test_bench_sized_small_solve(rng):
    batch, n = 100000, 32
    a = cupy.random.standard_normal((batch, n, n), dtype=cupy.float32)
    b = cupy.random.standard_normal((batch, n, 1), dtype=cupy.float32)
    x = la.solve(a, b)
    r = cupy.linalg.norm(a @ x - b, axis=(1, 2)) / (cupy.linalg.norm(a, axis=(1, 2)) * cupy.linalg.norm(x, axis=(1, 2))
                                                    * n * np.finfo(np.float32).eps)
    assert float(r.max()) < 16
