"""eigsh and svds (thick-restart Lanczos), norm, spsolve_triangular and spilu: the Lanczos logic on
the CPU with NumPy vector operations, everything against SciPy on the GPU."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import krylov_host
import rocarray.sparse.linalg as ral
from rocarray.sparse.linalg import _eigen


def host_op(A):
    return ral.LinearOperator(A.shape, matvec=lambda v: A @ v, rmatvec=lambda v: A.conj().T @ v, dtype=A.dtype)


def hermitian(rng, n, dtype):
    a = rng.standard_normal((n, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((n, n))
    return ((a + a.conj().T) / 2).astype(dtype)


def expected(w, k, which):
    if which == "LM":
        sel = w[np.argsort(-np.abs(w), kind="stable")[:k]]
    elif which == "SM":
        sel = w[np.argsort(np.abs(w), kind="stable")[:k]]
    elif which == "LA":
        sel = w[-k:]
    elif which == "SA":
        sel = w[:k]
    else:
        sel = np.concatenate([w[:k // 2], w[len(w) - (k - k // 2):]])
    return np.sort(sel)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("which", ["LM", "SM", "LA", "SA", "BE"])
@pytest.mark.parametrize("k,ncv", [(1, None), (4, None), (5, 12)])
def test_lanczos_eigenpairs_match_dense(monkeypatch, rng, dtype, which, k, ncv):
    krylov_host.install(monkeypatch)
    n = 80
    A = hermitian(rng, n, dtype)
    if which == "SM":
        # interior eigenvalues converge slowly without shift-invert (as with ARPACK): SM at an end
        A = A + (0.5 - np.linalg.eigvalsh(A)[0]) * np.eye(n)
    w_all = np.linalg.eigvalsh(A)
    tol = 0
    w, v = ral.eigsh(host_op(A), k=k, which=which, ncv=ncv, tol=tol)
    np.testing.assert_allclose(w, expected(w_all, k, which), rtol=1e-8, atol=1e-8)
    assert v.shape == (n, k) and v.dtype == dtype
    np.testing.assert_allclose(A @ v, v * w, atol=1e-6)
    np.testing.assert_allclose(v.conj().T @ v, np.eye(k), atol=1e-8)
    w2 = ral.eigsh(host_op(A), k=k, which=which, ncv=ncv, tol=tol, return_eigenvectors=False)
    np.testing.assert_allclose(w2, w, rtol=1e-9, atol=1e-9)


def test_lanczos_with_repeated_and_invariant_subspaces(monkeypatch, rng):
    krylov_host.install(monkeypatch)
    A = np.diag(np.r_[np.ones(5) * 3.0, np.arange(20.0)])  # a repeated eigenvalue: early invariant subspaces
    w, v = ral.eigsh(host_op(A), k=3, which="LA")
    np.testing.assert_allclose(w, [17.0, 18.0, 19.0], rtol=1e-9)
    np.testing.assert_allclose(A @ v, v * w, atol=1e-8)
    small = np.diag([1.0, 2.0, 3.0, 4.0])
    w = ral.eigsh(host_op(small), k=3, which="LM", return_eigenvectors=False)
    np.testing.assert_allclose(w, [2.0, 3.0, 4.0], rtol=1e-12)


def test_eigsh_no_convergence_raises(monkeypatch, rng):
    krylov_host.install(monkeypatch)
    A = hermitian(rng, 200, np.float64)
    with pytest.raises(ral.ArpackNoConvergence) as err:
        ral.eigsh(host_op(A), k=6, which="SM", ncv=8, maxiter=1)
    assert isinstance(err.value, RuntimeError)
    assert err.value.eigenvectors.shape == (200, len(err.value.eigenvalues))


def test_eigsh_argument_errors(monkeypatch, rng):
    krylov_host.install(monkeypatch)
    op = host_op(hermitian(rng, 10, np.float64))
    for kw, exc in [({"k": 0}, ValueError), ({"which": "XX"}, ValueError), ({"k": 3, "ncv": 3}, ValueError),
                    ({"sigma": 1.0}, NotImplementedError), ({"M": op}, NotImplementedError)]:
        with pytest.raises(exc):
            ral.eigsh(op, **kw)
    with pytest.warns(RuntimeWarning), pytest.raises(TypeError):
        ral.eigsh(op, k=10)


@pytest.mark.parametrize("shape", [(60, 25), (25, 60)])
@pytest.mark.parametrize("which", ["LM", "SM"])
def test_svds_matches_numpy(monkeypatch, rng, shape, which):
    krylov_host.install(monkeypatch)
    A = rng.standard_normal(shape)
    s_all = np.linalg.svd(A, compute_uv=False)
    u, s, vh = ral.svds(host_op(A), k=3, which=which)
    want = np.sort(s_all[:3] if which == "LM" else s_all[-3:])
    np.testing.assert_allclose(s, want, rtol=1e-7)
    np.testing.assert_allclose(u.T @ A @ vh.T, np.diag(s), atol=1e-7)
    assert u.shape == (shape[0], 3) and vh.shape == (3, shape[1])
    s2 = ral.svds(host_op(A), k=3, which=which, return_singular_vectors=False)
    np.testing.assert_allclose(s2, s, rtol=1e-9)
    uu, _, none = ral.svds(host_op(A), k=2, return_singular_vectors="u")
    assert none is None and uu.shape == (shape[0], 2)
    with pytest.raises(ValueError):
        ral.svds(host_op(A), k=min(shape))


def test_rank_orders_both_ends():
    theta = np.array([-3.0, 1.0, 5.0, -7.0, 2.0])
    assert list(_eigen._rank(theta, "BE")[:4]) == [2, 3, 4, 0]
    assert list(_eigen._rank(theta, "SM")[:2]) == [1, 4]


# ---------------------------------------------------------------- GPU

def _laplacian(k):
    """The 5-point 2-D Laplacian on a k x k grid (canonical CSR, float64)."""
    from rocarray._checks.rocsparse_solvers import _laplacian as laplacian

    return laplacian(k)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("which", ["LM", "SA", "BE"])
def test_gpu_eigsh_dense_matches_scipy(rng, dtype, which):
    import cupy

    A = hermitian(rng, 120, dtype)
    w, v = ral.eigsh(cupy.asarray(A), k=5, which=which)
    if which == "BE" and np.dtype(dtype).kind == "c":
        # SciPy refuses 'BE' for complex A; the reference is the dense spectrum's two ends (ARPACK's
        # rule: k // 2 from the low end, the rest from the high end)
        spectrum = np.linalg.eigvalsh(A.astype(np.complex128))
        ws = np.concatenate([spectrum[:2], spectrum[-3:]])
    else:
        ws, _ = sla.eigsh(A.astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64), k=5, which=which)
    tol = 1e-3 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-8
    np.testing.assert_allclose(w.get(), np.sort(ws), rtol=tol, atol=tol)
    np.testing.assert_allclose((cupy.asarray(A) @ v).get(), (v * w).get(), atol=tol * 100)


@pytest.mark.gpu
def test_gpu_eigsh_and_svds_sparse_match_scipy(rng):
    import rocarray.sparse as rs

    L = _laplacian(30)
    w, _ = ral.eigsh(rs.csr_array(L), k=6, which="LA")
    np.testing.assert_allclose(w.get(), np.sort(sla.eigsh(L, k=6, which="LA")[0]), rtol=1e-9)
    S = sp.random(80, 50, density=0.1, random_state=np.random.RandomState(3), format="csr")
    s = ral.svds(rs.csr_array(S), k=4, return_singular_vectors=False)
    np.testing.assert_allclose(s.get(), np.sort(sla.svds(S, k=4, return_singular_vectors=False)), rtol=1e-8)


@pytest.mark.gpu
@pytest.mark.parametrize("ord,axis", [(None, None), ("fro", None), (1, None), (-1, None), (np.inf, None),
                                      (-np.inf, None), (2, None), (1, 0), (2, 1), (np.inf, 1), (-np.inf, 0),
                                      (0, 1), (3, 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_gpu_norm_matches_scipy(rng, ord, axis, dtype):
    import rocarray.sparse as rs

    S = sp.random(40, 30, density=0.15, random_state=np.random.RandomState(int(rng.integers(1 << 30))),
                  format="csr", dtype=np.float64).astype(dtype)
    ours = ral.norm(rs.csr_array(S), ord=ord, axis=axis)
    theirs = sla.norm(sp.csr_array(S), ord=ord, axis=axis)  # a sparse array: 1-D along an axis (a matrix gives 2-D)
    ours = ours.get() if hasattr(ours, "get") else ours
    tol = 1e-4 if np.dtype(dtype) == np.float32 else 1e-9
    np.testing.assert_allclose(np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64), rtol=tol)


@pytest.mark.gpu
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("unit_diagonal", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_gpu_spsolve_triangular_matches_scipy(rng, lower, unit_diagonal, dtype):
    import cupy

    import rocarray.sparse as rs

    n = 60
    T = sp.random(n, n, density=0.1, random_state=np.random.RandomState(5), format="csr") + sp.eye(n) * 4
    T = (sp.tril(T) if lower else sp.triu(T)).tocsr().astype(dtype)
    b = rng.standard_normal((n, 2)).astype(dtype)
    x = ral.spsolve_triangular(rs.csr_array(T), cupy.asarray(b), lower=lower, unit_diagonal=unit_diagonal)
    y = sla.spsolve_triangular(T, b, lower=lower, unit_diagonal=unit_diagonal)
    tol = 1e-4 if np.dtype(dtype) == np.float32 else 1e-10
    np.testing.assert_allclose(x.get(), y, rtol=tol, atol=tol)
    Z = T.tolil()
    Z[3, 3] = 0
    with pytest.raises(np.linalg.LinAlgError):
        ral.spsolve_triangular(rs.csr_array(Z.tocsr()), cupy.asarray(b), lower=lower)


@pytest.mark.gpu
def test_gpu_spilu_is_ilu0_and_preconditions_gmres(rng):
    import cupy

    import rocarray.sparse as rs

    L = _laplacian(20).astype(np.float64)
    ilu = ral.spilu(rs.csr_array(L))
    b = rng.standard_normal(L.shape[0])
    # ILU(0) of a matrix whose pattern has no fill-in... check L U z = b on the pattern's factors
    z = ilu.solve(cupy.asarray(b)).get()
    assert np.isfinite(z).all()
    M = ral.LinearOperator(L.shape, matvec=ilu.solve, dtype=np.float64)
    x, info = ral.gmres(rs.csr_array(L), cupy.asarray(b), M=M, rtol=1e-10, callback_type="x")
    assert info == 0
    np.testing.assert_allclose(L @ x.get(), b, atol=1e-7)
    with pytest.raises(ValueError, match="ILU"):
        ral.spilu(rs.csr_array(L), drop_tol=1e-4)
