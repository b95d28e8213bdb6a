"""rocsolver gehrd / orghr / unghr / geev.

CPU: the orchestration of rocarray/rocsolver/_geev.py runs on host arrays with NumPy stand-ins for
its three kernels (written to the kernels' formulas, which are checked against LAPACK's own
``?larfg`` and ``numpy.linalg.eig``'s normalization) and for the rocblas calls; argument errors on
fake device arrays. GPU: the same against NumPy/SciPy on the device.
"""

import numpy as np
import pytest
import scipy.linalg

from conftest import fake, random_array, to_device, to_host
from launchfake import fake_device  # noqa: F401  (the fixture)
from geev_host import (DTYPES, EPS, _mat, assert_same_eigenvalues, host_larfg, host_normalize, padded, residual,
                       sort_key, use_host_standins, wide)

from rocarray.rocsolver import _geev, _geev_kernels, _host_lapack


@pytest.fixture
def on_host(monkeypatch):
    use_host_standins(monkeypatch)


# --------------------------------------------------------------------------------------------
# CPU: the kernels' formulas against LAPACK
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("case", ["random", "zero_x", "zero_x_complex_alpha", "negative", "tiny", "huge"])
def test_larfg_formula_matches_lapack(case, dtype, rng):
    m = 7
    x = random_array(rng, m, dtype)
    alpha = random_array(rng, 1, dtype)
    if case == "zero_x":
        x[:] = 0
        alpha = alpha.real.astype(dtype)
    elif case == "zero_x_complex_alpha":
        x[:] = 0
        if dtype == "float64":
            pytest.skip("real data")
    elif case == "negative":
        alpha = -np.abs(alpha)
    elif case == "tiny":
        x *= 1e-200
        alpha *= 1e-200
    elif case == "huge":
        x *= 1e200
        alpha *= 1e200
    lapack = scipy.linalg.lapack.dlarfg if dtype == "float64" else scipy.linalg.lapack.zlarfg
    beta, xr, taur = lapack(m + 1, alpha[0], x.copy())
    a, xx, tau = alpha.copy(), x.copy(), np.zeros(1, dtype)
    v, u = np.zeros(m + 1, dtype), np.zeros(m + 1, dtype)
    host_larfg(a, xx, m, tau, v, u)
    scale = max(abs(beta), 1e-300)
    assert abs(a[0] - beta) <= 1e-14 * scale
    assert abs(tau[0] - taur) <= 1e-14
    np.testing.assert_allclose(xx, xr, rtol=1e-13, atol=1e-300)
    # H^H [alpha; x] = [beta; 0] with H = I - tau v v^H
    H = np.eye(m + 1) - tau[0] * np.outer(v, v.conj())
    np.testing.assert_allclose(H.conj().T @ np.concatenate([alpha, x]), np.r_[beta, np.zeros(m)],
                               atol=1e-13 * max(abs(beta), 1e-300))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_normalize_formula_matches_numpy_eig(dtype, rng):
    n = 9
    A = random_array(rng, (n, n), dtype)
    w_ref, V_ref = np.linalg.eig(A)
    # any other scaling of numpy's vectors normalizes back to numpy's (up to the real pair's
    # sign, which LAPACK versions choose alike for the dlartg rule)
    phases = np.exp(1j * rng.uniform(0, 2 * np.pi, n)) * rng.uniform(0.5, 3, n)
    if dtype == "float64":
        # LAPACK's real layout: a pair's real and imaginary parts in two real columns
        X = np.zeros((n, n))
        kinds = _host_lapack.pair_kinds(w_ref, True)
        for j in range(n):
            if kinds[j] == 0:
                X[:, j] = V_ref[:, j].real * rng.uniform(0.5, 3)
            elif kinds[j] == 1:
                z = V_ref[:, j] * phases[j]
                X[:, j], X[:, j + 1] = z.real, z.imag
    else:
        X = V_ref * phases
        kinds = np.zeros(n, np.int32)
    V = np.zeros((n, n), np.complex128, order="F")
    host_normalize(np.asfortranarray(X).reshape(-1, order="F"), n, kinds, n, n, V.reshape(-1, order="F"), n)
    # real-eigenvalue vectors keep their sign (a positive scale is undone); a real pair's sign
    # follows the unnormalized vector's (dlartg), which the random phase here changed
    for j in range(n):
        same = np.abs(V[:, j] - V_ref[:, j]).max()
        if dtype == "float64" and w_ref[j].imag != 0:
            same = min(same, np.abs(V[:, j] + V_ref[:, j]).max())
        assert same < 1e-12, j


def test_pair_kinds():
    w = np.array([1, 2 + 1j, 2 - 1j, 3, 4j, -4j])
    assert list(_host_lapack.pair_kinds(w, True)) == [0, 1, 2, 0, 1, 2]
    assert list(_host_lapack.pair_kinds(w, False)) == [0] * 6


# --------------------------------------------------------------------------------------------
# CPU: the orchestration on host arrays
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n,ilo,ihi", [(1, 1, 1), (2, 1, 2), (3, 1, 3), (8, 1, 8), (13, 1, 13), (9, 3, 7),
                                       (6, 2, 6), (6, 1, 4)])
def test_gehrd_orghr_on_host(n, ilo, ihi, dtype, rng, on_host):
    A = random_array(rng, (n, n), dtype)
    # the range's contract: rows/columns outside ilo..ihi already triangular (as gebal leaves them)
    A[:, :ilo - 1] = np.triu(A[:, :ilo - 1])
    A[ihi:, :] = np.triu(A[ihi:, :], ihi)
    lda = n + 2
    a = padded(A, lda)
    tau = np.full(max(n - 1, 1), np.nan, dtype)
    dt = np.dtype(dtype)
    _geev._gehrd(n, ilo, ihi, a, lda, tau, dt, None)
    Hfull = _mat(a, n, n, lda).copy()
    H = np.triu(Hfull, -1)
    q = a.copy()
    _geev._orghr_in_place(n, ilo, ihi, q, lda, tau, dt, None)
    Q = _mat(q, n, n, lda).astype(wide(dtype))
    tol = 50 * EPS[dt] * n
    np.testing.assert_allclose(Q.conj().T @ Q, np.eye(n), atol=tol)
    np.testing.assert_allclose(Q @ H @ Q.conj().T, A, atol=tol * max(np.abs(A).max(), 1))
    assert np.all(tau[:ilo - 1] == 0) and np.all(tau[max(ihi - 1, 0):n - 1] == 0)
    if dt.kind == "c":
        assert np.all(np.diag(H, -1).imag == 0)  # LAPACK's real subdiagonal
    # against LAPACK's gehrd (same reflectors)
    lapack = scipy.linalg.lapack.get_lapack_funcs("gehrd", (A.astype(wide(dtype)),))
    ref, tau_ref, info = lapack(A.astype(wide(dtype)), lo=ilo - 1, hi=ihi - 1)
    assert info == 0
    np.testing.assert_allclose(Hfull, ref, atol=tol * max(np.abs(A).max(), 1) * 10)
    np.testing.assert_allclose(tau[:n - 1], tau_ref[:n - 1], atol=tol * 10)


def run_geev_on_host(A, left=True, right=True, lda=None, ld=None):
    n = A.shape[0]
    dt = A.dtype
    lda = lda or n + 1
    ld = ld or n + 3
    cdt = _geev.COMPLEX_OF[dt]
    a = padded(A, lda)
    W = np.full(n, np.nan, cdt)
    VL = (np.full(max(n * ld, 1), np.nan, cdt), ld) if left else None
    VR = (np.full(max(n * ld, 1), np.nan, cdt), ld) if right else None
    info = np.full(1, -7, np.int32)
    _geev._geev(n, a, lda, dt, W, VL, VR, info, None)
    mats = [_mat(V[0], n, n, ld).copy() if V else None for V in (VL, VR)]
    return W, mats[0], mats[1], int(info[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 31])
def test_geev_on_host(n, dtype, rng, on_host):
    A = random_array(rng, (n, n), dtype)
    W, VL, VR, info = run_geev_on_host(A)
    assert info == 0
    assert W.dtype == _geev.COMPLEX_OF[np.dtype(dtype)]
    if n == 0:
        return
    assert_same_eigenvalues(W, np.linalg.eigvals(A.astype(wide(dtype))), dtype)
    assert residual(A, VR, W) < 10
    assert residual(A.conj().T, VL, W.conj()) < 10
    np.testing.assert_allclose(np.linalg.norm(VR, axis=0), 1, atol=10 * EPS[np.dtype(dtype)] * n)
    k = np.argmax(np.abs(VR) ** 2 - 1e-3 * EPS[np.dtype(dtype)] * np.arange(n)[:, None], axis=0)
    assert np.all(VR[k, np.arange(n)].imag == 0)
    if np.dtype(dtype).kind == "f":
        real = W.imag == 0
        assert np.all(VR[:, real].imag == 0)
        kinds = _host_lapack.pair_kinds(W, True)
        for j in np.flatnonzero(kinds == 1):
            assert W[j] == np.conj(W[j + 1]) and W[j].imag > 0
            np.testing.assert_array_equal(VR[:, j + 1], np.conj(VR[:, j]))


def test_geev_matches_numpy_vectors_on_host(rng, on_host):
    A = random_array(rng, (12, 12), "float64")
    W, _, VR, info = run_geev_on_host(A, left=False)
    w_ref, V_ref = np.linalg.eig(A)
    order, order_ref = sort_key(W), sort_key(w_ref)
    np.testing.assert_allclose(W[order], w_ref[order_ref], atol=1e-12)
    # same normalization as LAPACK up to the sign of real vectors (no balancing here)
    for j, jr in zip(order, order_ref):
        v, vr = VR[:, j], V_ref[:, jr]
        assert min(np.abs(v - vr).max(), np.abs(v + vr).max()) < 1e-9


@pytest.mark.parametrize("dtype", DTYPES)
def test_geev_defective_and_repeated_on_host(dtype, on_host):
    J = np.array([[2, 1, 0], [0, 2, 1], [0, 0, 2]], dtype)   # one Jordan block
    W, VL, VR, info = run_geev_on_host(J)
    assert info == 0
    np.testing.assert_allclose(W, 2, atol=1e-4 if np.dtype(dtype).itemsize <= 8 else 1e-5)
    D = np.diag(np.array([1, 1, 3, 3, 3], dtype))            # repeated, diagonalizable
    W, VL, VR, info = run_geev_on_host(D)
    assert info == 0
    assert_same_eigenvalues(W, [1, 1, 3, 3, 3], dtype)
    assert residual(D, VR, W) < 10


def test_geev_rotation_is_complex_pair_on_host(on_host):
    R = np.array([[0.0, -1.0], [1.0, 0.0]])
    W, VL, VR, info = run_geev_on_host(R)
    np.testing.assert_allclose(W, [1j, -1j], atol=1e-15)
    w_ref, V_ref = np.linalg.eig(R)
    np.testing.assert_allclose(VR, V_ref, atol=1e-15)


def test_geev_values_only_on_host(rng, on_host):
    A = random_array(rng, (7, 7), "complex128")
    W, VL, VR, info = run_geev_on_host(A, left=False, right=False)
    assert info == 0 and VL is None and VR is None
    assert_same_eigenvalues(W, np.linalg.eigvals(A), "complex128")


def test_geev_nonfinite_reports_info_on_host(on_host):
    A = np.eye(4)
    A[2, 1] = np.nan
    W, VL, VR, info = run_geev_on_host(A)
    assert info == 4 and np.all(np.isnan(W))
    A = np.eye(4)
    A[0, 0] = np.inf
    assert run_geev_on_host(A)[3] == 4


def test_geev_no_convergence_reports_info_on_host(monkeypatch, on_host):
    def failing(H, want, ilo, ihi):
        w = np.arange(len(H), dtype=complex)
        return w, None, 2
    monkeypatch.setattr(_geev._host_lapack, "hseqr", failing)
    W, VL, VR, info = run_geev_on_host(np.diag([1.0, 2, 3, 4]))
    assert info == 2
    assert np.all(np.isnan(W[:2])) and list(W[2:]) == [2, 3]
    assert np.all(np.isnan(VR))  # not written


# --------------------------------------------------------------------------------------------
# CPU: arguments (fake device arrays, never launched)
# --------------------------------------------------------------------------------------------

def test_gehrd_argument_errors():
    A, tau = fake(16, "float64"), fake(3, "float64")
    with pytest.raises(ValueError, match="ilo"):
        _geev.gehrd(4, 0, 4, A, 4, tau)
    with pytest.raises(ValueError, match="ihi"):
        _geev.gehrd(4, 2, 5, A, 4, tau)
    with pytest.raises(ValueError, match="lda"):
        _geev.gehrd(4, 1, 4, A, 3, tau)
    with pytest.raises(ValueError, match="n must be >= 0"):
        _geev.gehrd(-1, 1, 0, A, 1, tau)
    with pytest.raises(TypeError, match="tau"):
        _geev.gehrd(4, 1, 4, A, 4, fake(3, "float32"))
    with pytest.raises(ValueError, match="tau"):
        _geev.gehrd(4, 1, 4, A, 4, fake(2, "float64"))
    with pytest.raises(TypeError, match="float16"):
        _geev.gehrd(4, 1, 4, fake(16, "float16"), 4, fake(3, "float16"))
    with pytest.raises(TypeError, match="host"):
        _geev.gehrd(4, 1, 4, np.zeros(16), 4, tau)
    with pytest.raises(ValueError, match="needs"):
        _geev.gehrd(4, 1, 4, fake(15, "float64"), 4, tau)


def test_orghr_unghr_dtype_split():
    with pytest.raises(TypeError, match="complex128"):
        _geev.orghr(2, 1, 2, fake(4, "complex128"), 2, fake(1, "complex128"))
    with pytest.raises(TypeError, match="float64"):
        _geev.unghr(2, 1, 2, fake(4, "float64"), 2, fake(1, "float64"))


def test_geev_argument_errors():
    A, W, V, info = fake(9, "float64"), fake(3, "complex128"), fake(9, "complex128"), fake(1, "int32")
    with pytest.raises(ValueError, match="jobvl"):
        _geev.geev("X", "N", 3, A, 3, W, None, 1, None, 1, info)
    with pytest.raises(ValueError, match="jobvr"):
        _geev.geev("N", "Q", 3, A, 3, W, None, 1, None, 1, info)
    with pytest.raises(TypeError, match="W must be complex128"):
        _geev.geev("N", "N", 3, A, 3, fake(3, "float64"), None, 1, None, 1, info)
    with pytest.raises(ValueError, match="W needs"):
        _geev.geev("N", "N", 3, A, 3, fake(2, "complex128"), None, 1, None, 1, info)
    with pytest.raises(TypeError, match="VR must be complex128"):
        _geev.geev("N", "V", 3, A, 3, W, None, 1, fake(9, "float64"), 3, info)
    with pytest.raises(ValueError, match="ldvl"):
        _geev.geev("V", "N", 3, A, 3, W, V, 2, None, 1, info)
    with pytest.raises(ValueError, match="VR"):
        _geev.geev("N", "V", 3, A, 3, W, None, 1, fake(8, "complex128"), 3, info)
    with pytest.raises(TypeError, match="info"):
        _geev.geev("N", "N", 3, A, 3, W, None, 1, None, 1, fake(1, "int64"))
    with pytest.raises(TypeError, match="complex64"):
        _geev.geev("N", "N", 3, fake(9, "float32"), 3, W, None, 1, None, 1, info)


def test_kernel_names_registered():
    names = _geev_kernels.instantiations()
    assert "ra_rocsolver_geev_normalize<float, ra_c64>" in names
    assert "ra_rocsolver_geev_larfg<ra_c128>" in names
    assert len(names) == 12


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

def device_matrix(A, lda):
    import cupy

    return cupy.asarray(padded(A, lda)) if A.shape[0] else cupy.zeros(1, A.dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 2, 5, 67, 130])
def test_gehrd_orghr_gpu(n, dtype, rng):
    import rocarray as ra

    A = random_array(rng, (n, n), dtype)
    lda = n + 3
    a = device_matrix(A, lda)
    tau = to_device(np.full(max(n - 1, 1), np.nan, dtype))
    ra.rocsolver.gehrd(n, 1, n, a, lda, tau)
    if n == 0:
        return
    Hfull = _mat(to_host(a), n, n, lda).copy()
    H = np.triu(Hfull, -1)
    q = a.copy()
    (ra.rocsolver.unghr if np.dtype(dtype).kind == "c" else ra.rocsolver.orghr)(n, 1, n, q, lda, tau)
    Q = _mat(to_host(q), n, n, lda).astype(wide(dtype))
    eps = EPS[np.dtype(dtype)]
    assert np.abs(Q.conj().T @ Q - np.eye(n)).max() < 20 * n * eps
    err = np.abs(Q.conj().T @ A.astype(wide(dtype)) @ Q - H).max() / (np.linalg.norm(A, 2) * n * eps)
    assert err < 20
    # Q^H A Q vanishes below the subdiagonal
    assert np.abs(np.tril(Q.conj().T @ A.astype(wide(dtype)) @ Q, -2)).max() <= 20 * n * eps * np.linalg.norm(A, 2)
    if np.dtype(dtype).kind == "c":
        assert np.all(np.diag(Hfull, -1).imag == 0)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 64, 131])
def test_geev_gpu(n, dtype, rng):
    import cupy

    import rocarray as ra

    A = random_array(rng, (n, n), dtype)
    lda, ld = n + 1, n + 2
    cdt = _geev.COMPLEX_OF[np.dtype(dtype)]
    a = device_matrix(A, lda)
    W = cupy.full(max(n, 1), np.nan, cdt)
    VL = cupy.full(max(n * ld, 1), np.nan, cdt)
    VR = cupy.full(max(n * ld, 1), np.nan, cdt)
    info = cupy.full(1, -7, np.int32)
    ra.rocsolver.geev("V", "V", n, a, lda, W, VL, max(ld, 1), VR, max(ld, 1), info)
    assert int(info[0]) == 0
    if n == 0:
        return
    w = to_host(W)[:n]
    vr, vl = _mat(to_host(VR), n, n, ld), _mat(to_host(VL), n, n, ld)
    assert_same_eigenvalues(w, np.linalg.eigvals(A.astype(wide(dtype))), dtype)
    assert residual(A, vr, w) < 30
    assert residual(A.conj().T, vl, w.conj()) < 30
    np.testing.assert_allclose(np.linalg.norm(vr, axis=0), 1, atol=20 * n * EPS[np.dtype(dtype)])
    if np.dtype(dtype).kind == "f":
        assert np.all(vr[:, w.imag == 0].imag == 0)


@pytest.mark.gpu
def test_geev_f64_large_gpu(rng):
    import cupy

    import rocarray as ra

    n = 400
    A = random_array(rng, (n, n), "float64")
    a = cupy.asfortranarray(cupy.asarray(A))
    W = cupy.empty(n, np.complex128)
    VR = cupy.empty((n, n), np.complex128, order="F")
    info = cupy.zeros(1, np.int32)
    ra.rocsolver.geev("N", "V", n, a, n, W, None, 1, VR, n, info)
    assert int(info[0]) == 0
    w = to_host(W)
    assert_same_eigenvalues(w, np.linalg.eigvals(A), "float64")
    assert residual(A, to_host(VR), w) < 30


@pytest.mark.gpu
def test_geev_nonfinite_gpu():
    import cupy

    import rocarray as ra

    A = np.eye(5)
    A[3, 1] = np.nan
    a = cupy.asfortranarray(cupy.asarray(A))
    W, info = cupy.empty(5, np.complex128), cupy.zeros(1, np.int32)
    ra.rocsolver.geev("N", "N", 5, a, 5, W, None, 1, None, 1, info)
    assert int(info[0]) == 5


# --------------------------------------------------------------------------------------------
# CPU: the launch sequence of gehrd on a recording fake device (nothing runs)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_gehrd_launch_sequence(dtype, fake_device):
    n, lda = 5, 6
    A = fake_device.array((n * lda,), dtype)
    tau = fake_device.array((n - 1,), dtype)
    _geev.gehrd(n, 1, n, A, lda, tau)
    names = fake_device.names()
    larfg = [i for i, name in enumerate(names) if name.startswith("ra_rocsolver_geev_larfg")]
    assert len(larfg) == n - 1
    item = np.dtype(dtype).itemsize
    for j, i in enumerate(larfg):
        launch = fake_device.launches[i]
        assert launch.grid == (1, 1, 1) and launch.block == (_geev_kernels.BLOCK, 1, 1)
        alpha, x, m, t = launch.args[:4]
        alpha, x, t = (a.data.ptr for a in (alpha, x, t))  # device arrays, as the kernel gets them
        assert alpha == A.data.ptr + (j * lda + j + 1) * item
        assert int(m) == n - j - 2
        assert t == tau.data.ptr + j * item
        if m:
            assert x == alpha + item
    # each reflector is followed by rocblas level-2 work only
    assert all(name.startswith(("ra_rocsolver_geev_larfg", "ra_rocblas_")) for name in names)


@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_form_q_launch_sequence(dtype, fake_device):
    n, lda = 6, 6
    A = fake_device.array((n * lda,), dtype)
    tau = fake_device.array((n - 1,), dtype)
    _geev._form_q(n, 1, n, A, lda, tau, np.dtype(dtype), 0)
    names = fake_device.names()
    loads = [fake_device.launches[i] for i, name in enumerate(names) if name.startswith("ra_rocsolver_geev_reflector")]
    item = np.dtype(dtype).itemsize
    # last reflector first
    assert [int(launch.args[1]) for launch in loads] == [n - j - 2 for j in range(n - 2, -1, -1)]
    assert [launch.args[2].data.ptr for launch in loads] == [tau.data.ptr + j * item for j in range(n - 2, -1, -1)]
    assert all(name.startswith(("ra_rocsolver_geev_reflector", "ra_rocblas_")) for name in names)
