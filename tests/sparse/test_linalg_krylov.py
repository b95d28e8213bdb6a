"""Krylov solvers: the iteration logic on the CPU against SciPy (NumPy vector operations), and the
device solvers against SciPy on the GPU."""

import numpy as np
import pytest
import scipy.sparse.linalg as sla

import krylov_host
from launchfake import fake_device  # noqa: F401 (the fixture)
import rocarray.sparse.linalg as ral
from rocarray.sparse.linalg import _isolve, _krylov_kernels
from rocarray._core import compile as _compile


def host_op(A):
    """A rocarray LinearOperator over a host matrix (NumPy products)."""
    return ral.LinearOperator(A.shape, matvec=lambda v: A @ v, rmatvec=lambda v: A.conj().T @ v, dtype=A.dtype)


def spd(rng, n, dtype, cond=30.0):
    """A Hermitian positive definite matrix with eigenvalues in [1, cond]."""
    q, _ = np.linalg.qr(rng.standard_normal((n, n)) + (1j * rng.standard_normal((n, n)) if np.dtype(dtype).kind == "c"
                                                       else 0))
    w = np.linspace(1, cond, n)
    return ((q * w) @ q.conj().T).astype(dtype)


def nonsym(rng, n, dtype):
    a = np.eye(n) * 4 + rng.standard_normal((n, n)) / np.sqrt(n)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((n, n)) / np.sqrt(n)
    return a.astype(dtype)


def rhs(rng, n, dtype):
    b = rng.standard_normal(n)
    if np.dtype(dtype).kind == "c":
        b = b + 1j * rng.standard_normal(n)
    return b.astype(dtype)


def run_both(name, A, b, M=None, **kw):
    """(ours x, info, iterates), (SciPy's) for one solver on host data."""
    ours, theirs = [], []
    Mo = None if M is None else host_op(M)
    x, info = getattr(ral, name)(host_op(A), b, M=Mo, callback=lambda v: ours.append(np.array(v, copy=True)), **kw)
    y, jnfo = getattr(sla, name)(A, b, M=M, callback=lambda v: theirs.append(np.array(v, copy=True)), **kw)
    return (x, info, ours), (y, jnfo, theirs)


def close(dtype):
    return 1e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-9


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("name", ["cg", "bicgstab"])
def test_iterates_info_and_callbacks_match_scipy(monkeypatch, rng, name, dtype):
    krylov_host.install(monkeypatch)
    n = 40
    A = spd(rng, n, dtype) if name == "cg" else nonsym(rng, n, dtype)
    b = rhs(rng, n, dtype)
    (x, info, ours), (y, jnfo, theirs) = run_both(name, A, b)
    assert info == jnfo == 0
    assert len(ours) == len(theirs) > 2
    tol = close(dtype)
    for a, c in zip(ours, theirs):
        np.testing.assert_allclose(a, c, rtol=tol * 100, atol=tol * 100 * np.abs(c).max())
    assert x.dtype == y.dtype
    np.testing.assert_allclose(x, y, rtol=tol * 100, atol=tol * 100 * np.abs(y).max())


@pytest.mark.parametrize("name", ["cg", "bicgstab"])
def test_preconditioned_and_x0_paths_match_scipy(monkeypatch, rng, name):
    krylov_host.install(monkeypatch)
    n = 50
    A = spd(rng, n, np.float64, 300.0) if name == "cg" else nonsym(rng, n, np.float64)
    A = A + np.diag(np.linspace(1, 50, n))
    M = np.diag(1 / np.diag(A))
    b, x0 = rhs(rng, n, np.float64), rhs(rng, n, np.float64)
    for kw in ({}, {"x0": x0}, {"x0": "Mb"}, {"rtol": 1e-9, "atol": 1e-12}):
        (x, info, ours), (y, jnfo, theirs) = run_both(name, A, b, M=M, **kw)
        assert (info, len(ours)) == (jnfo, len(theirs))
        np.testing.assert_allclose(x, y, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", ["cg", "bicgstab", "gmres"])
def test_maxiter_reached_reports_maxiter(monkeypatch, rng, name):
    krylov_host.install(monkeypatch)
    n = 60
    A = spd(rng, n, np.float64, 1e4) if name == "cg" else nonsym(rng, n, np.float64)
    b = rhs(rng, n, np.float64)
    kw = {"callback_type": "x"} if name == "gmres" else {}
    if name == "gmres":
        kw["restart"] = 2
    (x, info, ours), (y, jnfo, theirs) = run_both(name, A, b, maxiter=3, rtol=1e-14, **kw)
    assert info == jnfo == 3
    assert len(ours) == len(theirs) == 3
    np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-12)


def test_cg_syncs_once_per_iteration_and_never_with_zero_tolerance(monkeypatch, rng):
    n = 80
    A, b = spd(rng, n, np.float64, 1e5), rhs(rng, n, np.float64)
    ops = krylov_host.install(monkeypatch)
    x, info = ral.cg(host_op(A), b, rtol=0.0, maxiter=50)
    y, jnfo = sla.cg(A, b, rtol=0.0, maxiter=50)
    assert info == jnfo == 50
    np.testing.assert_allclose(x, y, rtol=1e-7, atol=1e-9)
    assert ops.calls["sync"] == 2  # norm(b) and x.any(), none inside the loop
    ops = krylov_host.install(monkeypatch)
    x, info = ral.cg(host_op(A), b, rtol=1e-30, atol=1e-300, maxiter=20)
    assert info == 20 and ops.calls["sync"] == 2 + 20


def test_cg_zero_rhs_returns_zero(monkeypatch):
    krylov_host.install(monkeypatch)
    A = np.eye(5)
    x, info = ral.cg(host_op(A), np.zeros(5))
    assert info == 0 and not x.any()


def test_bicgstab_breakdown_code_matches_scipy(monkeypatch):
    krylov_host.install(monkeypatch)
    A = np.array([[0.0, 1.0], [-1.0, 0.0]])
    b = np.array([1.0, 0.0])
    x, info = ral.bicgstab(host_op(A), b)
    y, jnfo = sla.bicgstab(A, b)
    assert info == jnfo == -11
    np.testing.assert_array_equal(x, y)


def test_invalid_atol_and_shapes_raise(monkeypatch):
    krylov_host.install(monkeypatch)
    op = host_op(np.eye(4))
    with pytest.raises(ValueError, match="atol"):
        ral.cg(op, np.ones(4), atol=-1)
    with pytest.raises(ValueError, match="incompatible"):
        ral.cg(op, np.ones(5))
    with pytest.raises(ValueError, match="square"):
        ral.gmres(host_op(np.ones((3, 4))), np.ones(3))
    with pytest.raises(ValueError, match="incompatible"):
        ral.bicgstab(op, np.ones(4), x0=np.ones(3))
    with pytest.raises(ValueError, match="preconditioner"):
        ral.cg(op, np.ones(4), M=host_op(np.eye(3)))


def test_host_rhs_is_a_type_error_on_the_device_path():
    op = ral.LinearOperator((3, 3), matvec=lambda v: v, dtype=np.float64)
    with pytest.raises(TypeError, match="host"):
        ral.cg(op, np.ones(3))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
@pytest.mark.parametrize("callback_type", ["x", "pr_norm", "legacy"])
@pytest.mark.parametrize("restart", [None, 5])
def test_gmres_matches_scipy(monkeypatch, rng, dtype, callback_type, restart):
    krylov_host.install(monkeypatch)
    n = 45
    A, b = nonsym(rng, n, dtype), rhs(rng, n, dtype)
    (x, info, ours), (y, jnfo, theirs) = run_both("gmres", A, b, restart=restart, callback_type=callback_type,
                                                  rtol=1e-10)
    assert info == jnfo
    assert len(ours) == len(theirs)
    for a, c in zip(ours, theirs):
        np.testing.assert_allclose(a, c, rtol=1e-6, atol=1e-10)
    np.testing.assert_allclose(x, y, rtol=1e-8, atol=1e-11)


def test_gmres_warns_without_callback_type_and_rejects_unknown(monkeypatch, rng):
    krylov_host.install(monkeypatch)
    A, b = nonsym(rng, 10, np.float64), rhs(rng, 10, np.float64)
    with pytest.warns(DeprecationWarning):
        ral.gmres(host_op(A), b, callback=lambda r: None)
    with pytest.raises(ValueError, match="callback_type"):
        ral.gmres(host_op(A), b, callback_type="y")


def test_gmres_preconditioned_matches_scipy(monkeypatch, rng):
    krylov_host.install(monkeypatch)
    n = 40
    A = nonsym(rng, n, np.float64) + np.diag(np.linspace(1, 100, n))
    M = np.diag(1 / np.diag(A))
    b = rhs(rng, n, np.float64)
    (x, info, ours), (y, jnfo, theirs) = run_both("gmres", A, b, M=M, restart=4, callback_type="pr_norm")
    assert info == jnfo and len(ours) == len(theirs)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    np.testing.assert_allclose(x, y, rtol=1e-8, atol=1e-11)


@pytest.mark.parametrize("shift", [0.0, 0.7])
@pytest.mark.parametrize("use_m", [False, True])
def test_minres_matches_scipy(monkeypatch, rng, shift, use_m):
    krylov_host.install(monkeypatch)
    n = 50
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    A = (q * np.linspace(-5, 20, n)) @ q.T  # symmetric indefinite
    b = rhs(rng, n, np.float64)
    M = np.diag(np.linspace(0.5, 2, n)) if use_m else None
    (x, info, ours), (y, jnfo, theirs) = run_both("minres", A, b, M=M, shift=shift, rtol=1e-10)
    assert info == jnfo and len(ours) == len(theirs)
    np.testing.assert_allclose(x, y, rtol=1e-7, atol=1e-9)
    (x, info, ours), (y, jnfo, theirs) = run_both("minres", A, b, maxiter=5)
    assert info == jnfo == 5 and len(ours) == len(theirs) == 5


def test_minres_check_detects_nonsymmetric(monkeypatch, rng):
    krylov_host.install(monkeypatch)
    A = nonsym(rng, 20, np.float64)
    with pytest.raises(ValueError, match="non-symmetric"):
        ral.minres(host_op(A), rhs(rng, 20, np.float64), check=True)


@pytest.mark.parametrize("shape", [(60, 30), (30, 30), (20, 45)])
@pytest.mark.parametrize("damp", [0.0, 0.3])
def test_lsqr_tuple_matches_scipy(monkeypatch, rng, shape, damp):
    krylov_host.install(monkeypatch)
    A = rng.standard_normal(shape)
    b = rhs(rng, shape[0], np.float64)
    ours = ral.lsqr(host_op(A), b, damp=damp, atol=1e-10, btol=1e-10, calc_var=True)
    theirs = sla.lsqr(A, b, damp=damp, atol=1e-10, btol=1e-10, calc_var=True)
    assert ours[1:3] == theirs[1:3]  # istop, itn
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(ours[3:9], theirs[3:9], rtol=1e-6)
    np.testing.assert_allclose(ours[9], theirs[9], rtol=1e-6)


def test_lsqr_x0_and_iteration_limit_match_scipy(monkeypatch, rng):
    krylov_host.install(monkeypatch)
    A = rng.standard_normal((40, 25))
    b, x0 = rhs(rng, 40, np.float64), rhs(rng, 25, np.float64)
    ours = ral.lsqr(host_op(A), b, x0=x0, iter_lim=4)
    theirs = sla.lsqr(A, b, x0=x0, iter_lim=4)
    assert ours[1:3] == theirs[1:3] == (7, 4)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-9)


def test_krylov_kernels_registered_for_every_dtype():
    names = _compile.registered(_krylov_kernels.SOURCE)
    for dt, ct, rt in [("float32", "float", "float"), ("complex128", "ra_c128", "double")]:
        assert f"ra_rocsparse_cg_update<{ct}, {rt}>" in names
        assert f"ra_rocsparse_krylov_finish<{ct}, {rt}>" in names
        assert f"ra_rocsparse_cg_direction<{ct}>" in names
    assert _isolve._coerce("f", "D") == "D" and _isolve._coerce("i", "f") == "d"


# ---------------------------------------------------------------- GPU

def _device(x):
    import cupy

    return cupy.asarray(x)


def _laplacian(k):
    """The 5-point 2-D Laplacian on a k x k grid (canonical CSR, float64)."""
    from rocarray._checks.rocsparse_solvers import _laplacian as laplacian

    return laplacian(k)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("name", ["cg", "bicgstab", "gmres", "minres"])
def test_gpu_dense_operator_matches_scipy(rng, name, dtype):
    n = 70
    if name == "minres" and np.dtype(dtype).kind == "c":
        pytest.skip("SciPy's minres is real")
    A = spd(rng, n, dtype) if name in ("cg", "minres") else nonsym(rng, n, dtype)
    b = rhs(rng, n, dtype)
    Ad = _device(A)
    count = []
    kw = {"callback_type": "x"} if name == "gmres" else {}
    x, info = getattr(ral, name)(Ad, _device(b), callback=lambda v: count.append(1), **kw)
    y, jnfo = getattr(sla, name)(A, b, **kw)
    assert info == jnfo == 0
    tol = 1e-3 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-7
    np.testing.assert_allclose(x.get(), y, rtol=tol, atol=tol * np.abs(y).max())
    assert count
    # the same through a LinearOperator over the device matrix
    op = ral.LinearOperator(A.shape, matvec=lambda v: Ad @ v, dtype=dtype)
    x2, info2 = getattr(ral, name)(op, _device(b), **kw)
    assert info2 == 0
    np.testing.assert_allclose(x2.get(), y, rtol=tol, atol=tol * np.abs(y).max())


@pytest.mark.gpu
def test_gpu_cg_counts_and_preconditioner_match_scipy(rng):
    n = 200
    A = spd(rng, n, np.float64, 1e3)
    b = rhs(rng, n, np.float64)
    M = np.diag(1 / np.diag(A))
    mine, theirs = [], []
    x, info = ral.cg(_device(A), _device(b), M=_device(M), callback=lambda v: mine.append(1), rtol=1e-10)
    y, jnfo = sla.cg(A, b, M=M, callback=lambda v: theirs.append(1), rtol=1e-10)
    assert info == jnfo == 0 and len(mine) == len(theirs)
    np.testing.assert_allclose(x.get(), y, rtol=1e-8, atol=1e-10)
    x, info = ral.cg(_device(A), _device(b), rtol=0.0, maxiter=7)
    y, jnfo = sla.cg(A, b, rtol=0.0, maxiter=7)
    assert info == jnfo == 7
    np.testing.assert_allclose(x.get(), y, rtol=1e-9, atol=1e-12)


@pytest.mark.gpu
def test_gpu_lsqr_dense_matches_scipy(rng):
    A = rng.standard_normal((90, 40))
    b = rhs(rng, 90, np.float64)
    ours = ral.lsqr(_device(A), _device(b), atol=1e-12, btol=1e-12)
    theirs = sla.lsqr(A, b, atol=1e-12, btol=1e-12)
    assert ours[1] == theirs[1]
    np.testing.assert_allclose(ours[0].get(), theirs[0], rtol=1e-8, atol=1e-10)


@pytest.mark.gpu
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_gpu_sparse_laplacian_cg_and_gmres(rng, dtype, index_dtype):
    import rocarray.sparse as rs

    L = _laplacian(40).astype(dtype)
    L.indices, L.indptr = L.indices.astype(index_dtype), L.indptr.astype(index_dtype)
    A = rs.csr_array(L)
    b = rhs(rng, L.shape[0], dtype)
    tol = 1e-3 if np.dtype(dtype) == np.float32 else 1e-7
    for name in ("cg", "gmres", "bicgstab"):
        x, info = getattr(ral, name)(A, _device(b), rtol=1e-8 if tol < 1e-4 else 1e-5)
        y, jnfo = getattr(sla, name)(L, b, rtol=1e-8 if tol < 1e-4 else 1e-5)
        assert info == jnfo
        np.testing.assert_allclose(x.get(), y, rtol=tol * 10, atol=tol * 10 * np.abs(y).max())


def test_fused_cg_launches_on_a_recording_device(fake_device):
    n = 100_000
    x, r, p, q = (fake_device.array((n,), "float64") for _ in range(4))
    S = fake_device.array((4,), "float64")
    _krylov_kernels.cg_update(x, r, p, q, S, 0, 2, 1)
    _krylov_kernels.cg_direction(p, r, S, 1, 0)
    update, finish, direction = fake_device.launches[-3:]
    assert update.name == "ra_rocsparse_cg_update<double, double>"
    assert finish.name == "ra_rocsparse_krylov_finish<double, double>"
    assert direction.name == "ra_rocsparse_cg_direction<double>"
    assert update.block == finish.block == (_krylov_kernels.BLOCK, 1, 1)
    assert finish.grid == (1, 1, 1)
    parts = update.grid[0]
    assert 1 <= parts <= min(_krylov_kernels.MAX_PARTS, -(-n // _krylov_kernels.BLOCK))
    assert int(finish.args[1]) == parts          # the finishing block adds every partial
    assert [int(a) for a in update.args[6:8]] == [0, 2] and int(finish.args[3]) == 1
    assert [int(a) for a in direction.args[4:6]] == [1, 0]
