"""rocsolver's symmetric/Hermitian eigensolvers: syevj/heevj (batched Jacobi), sytrd/hetrd, syevd/heevd.

CPU: the Jacobi kernel's algorithm (:func:`eigh_host.jacobi_model`), the blocked reduction and the
back-transformation on NumPy stand-ins for rocblas and the two small kernels (against LAPACK's
sytrd/hetrd through SciPy and NumPy's eigh), shared-memory sizing, argument errors on fake arrays.
GPU: every routine against NumPy in float64 with backward-error bounds.
"""

import numpy as np
import pytest
import scipy.linalg
import scipy.linalg.lapack as lapack

from conftest import fake, random_array, to_device, to_host
import eigh_host

import rocarray.rocsolver as rocsolver
from rocarray.rocsolver import _eigh, _eigh_kernels, _sytrd

DTYPES = ["float32", "float64", "complex64", "complex128"]


def hermitian(rng, n, dtype, spread=None):
    """A random Hermitian (symmetric) matrix of ``dtype``; ``spread`` gives its eigenvalues."""
    a = random_array(rng, (n, n), dtype).astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64)
    a = (a + a.conj().T) / 2
    if spread is not None:
        q, _ = np.linalg.qr(a)
        a = (q * spread) @ q.conj().T
        a = (a + a.conj().T) / 2
    return a.astype(dtype)


def eps(dtype):
    return np.finfo(np.dtype(dtype).char.lower() if np.dtype(dtype).kind == "c" else dtype).eps


def check_eigenpairs(a, w, v, dtype, factor=30):
    """‖A V − V Λ‖ / (‖A‖ n ε), ‖VᴴV − I‖ / (n ε) and the eigenvalues against NumPy's."""
    a = np.asarray(a, dtype=np.complex128 if np.iscomplexobj(a) else np.float64)
    n = a.shape[0]
    e = eps(dtype)
    scale = max(np.linalg.norm(a), np.finfo(np.float64).tiny)
    ref = np.linalg.eigvalsh(a)
    assert np.max(np.abs(np.asarray(w, np.float64) - ref)) <= factor * n * e * scale
    if v is not None:
        v = np.asarray(v, dtype=a.dtype)
        assert np.linalg.norm(a @ v - v * np.asarray(w, np.float64)) <= factor * n * e * scale
        assert np.linalg.norm(v.conj().T @ v - np.eye(v.shape[1])) <= factor * n * e


# --------------------------------------------------------------------------------------------
# CPU: the Jacobi kernel's algorithm
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("m", [2, 4, 6, 8, 10, 32, 34, 64, 128])
def test_tournament_meets_every_pair_once_per_sweep_in_disjoint_rounds(m):
    seen = set()
    for r in range(m - 1):
        players = []
        for k in range(m // 2):
            p, q = eigh_host.pair(r, k, m)
            assert 0 <= p < q < m
            players += [p, q]
            seen.add((p, q))
        assert len(set(players)) == m
    assert len(seen) == m * (m - 1) // 2


@pytest.mark.parametrize("beta", [0.7, -0.7, 0.3 + 0.4j, -2e-9 - 1e-9j, 1e200, 1e-300])
@pytest.mark.parametrize("a, d", [(1.0, 2.0), (2.0, 1.0), (1.0, 1.0), (-3.0, 1e-12), (1e150, -1e150)])
def test_rotation_annihilates_the_pair(a, d, beta):
    c, s, newp, newq = eigh_host.rotation(a, d, beta)
    J = np.array([[c, s], [-np.conj(s), c]])
    B = np.array([[a, beta], [np.conj(beta), d]])
    R = J.conj().T @ B @ J
    scale = np.abs(B).max()
    assert np.allclose(J.conj().T @ J, np.eye(2), atol=4e-16)
    assert abs(R[0, 1]) <= 8e-16 * scale
    assert abs(newp - R[0, 0].real) <= 8e-16 * scale and abs(newq - R[1, 1].real) <= 8e-16 * scale


@pytest.mark.parametrize("n", [1, 2, 3, 7, 16, 21])
@pytest.mark.parametrize("kind", ["float64", "complex128"])
def test_jacobi_model_converges_sorted_and_orthonormal(n, kind, rng):
    a = hermitian(rng, n, kind)
    w, v, info, off, sweeps = eigh_host.jacobi_model(a)
    assert info == 0 and sweeps <= 15
    assert np.all(np.diff(w) >= 0)
    check_eigenpairs(a, w, v, kind, factor=10)


def test_jacobi_model_degenerate_and_identity(rng):
    spread = np.array([1.0, 1.0, 1.0, 2.0, 2.0, -1.0, 5.0])
    a = hermitian(rng, 7, "complex128", spread)
    w, v, info, _, _ = eigh_host.jacobi_model(a)
    assert info == 0
    check_eigenpairs(a, w, v, "complex128", factor=10)
    w, v, info, _, sweeps = eigh_host.jacobi_model(np.eye(5))
    assert info == 0 and sweeps == 0 and np.array_equal(w, np.ones(5)) and np.array_equal(v, np.eye(5))


def test_jacobi_model_nan_stops_at_max_sweeps_with_info():
    a = np.eye(4)
    a[1, 2] = a[2, 1] = np.nan
    w, _, info, off, sweeps = eigh_host.jacobi_model(a, max_sweeps=3)
    assert info == 1 and sweeps == 3 and np.isnan(off)
    assert sorted(range(4), key=lambda i: (np.isnan(w[i]), i)) == list(range(4))  # NaN last
    b = np.eye(4)
    b[2, 2] = np.inf  # off(A) = 0 <= tol = inf must not count as converged
    with np.errstate(invalid="ignore"):
        assert eigh_host.jacobi_model(b, max_sweeps=2)[2] == 1


# --------------------------------------------------------------------------------------------
# CPU: reduction and back-transformation on the NumPy stand-ins
# --------------------------------------------------------------------------------------------

def _lapack_trd(dtype):
    return lapack.get_lapack_funcs("hetrd" if np.dtype(dtype).kind == "c" else "sytrd", dtype=np.dtype(dtype))


def _tridiagonal_q(c, tau, lower):
    """Q = H(1) ... H(n-1) ('L') or H(n-1) ... H(1) ('U') from reflectors stored as LAPACK's
    sytrd/hetrd stores them (H(i) = I - tau_i v v^H, v's unit element implicit), in complex128."""
    n = c.shape[0]
    c = np.asarray(c, np.complex128)
    hs = []
    for i in range(n - 1):
        v = np.zeros(n, np.complex128)
        if lower:
            v[i + 1] = 1
            v[i + 2:] = c[i + 2:, i]
        else:
            v[i] = 1
            v[:i] = c[:i, i + 1]
        hs.append(np.eye(n) - tau[i] * np.outer(v, v.conj()))
    q = np.eye(n, dtype=np.complex128)
    for h in (hs if lower else hs[::-1]):
        q = q @ h
    return q


def _flat_matrix(a, lda):
    n = a.shape[0]
    buf = np.full(lda * max(n, 1), 7.0, dtype=a.dtype)
    buf.reshape(max(n, 1), lda).T[:n, :n] = a
    return buf


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("n, nb", [(1, 4), (2, 4), (3, 2), (9, 4), (10, 4), (23, 5), (40, 8)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_reduce_matches_lapack_sytrd_hetrd(monkeypatch, dtype, n, nb, uplo, rng):
    eigh_host.install(monkeypatch)
    monkeypatch.setattr(_sytrd, "NB", nb)
    monkeypatch.setattr(_sytrd.reduce_lower, "__defaults__", (nb,))
    a = hermitian(rng, n, dtype)
    lda = n + 3
    buf = _flat_matrix(a, lda)
    real = np.float32 if np.dtype(dtype).char in "fF" else np.float64
    D, E, tau = np.empty(n, real), np.empty(max(n - 1, 1), real), np.empty(max(n - 1, 1), dtype)
    _sytrd.reduce(np.dtype(dtype), uplo, n, buf, lda, D, E, tau)
    _, d, _, _, info = _lapack_trd(dtype)(a, lower=int(uplo == "L"))
    assert info == 0
    tol = 50 * n * eps(dtype) * max(np.linalg.norm(a), 1)
    out = _eigh_kernels.view(buf, 0, n, n, lda)
    # Element-wise agreement with LAPACK is not a property of a backward-stable reduction (a late
    # off-diagonal element can carry a cancellation's error); A = Q T Q^H with Q built from our
    # reflectors and tau by LAPACK's conventions is, and it checks D, E, tau and the reflectors.
    lower = uplo == "L"
    q = _tridiagonal_q(out, tau[:n - 1], lower)
    t_mat = np.diag(D.astype(np.float64)) + np.diag(E[:n - 1], 1) + np.diag(E[:n - 1], -1)
    assert np.linalg.norm(q @ t_mat @ q.conj().T - a) <= tol
    assert np.linalg.norm(q.conj().T @ q - np.eye(n)) <= 50 * n * eps(dtype)
    # the same conventions as LAPACK's: the diagonal of T agrees where both are well determined
    # (T's first diagonal element is A's, untouched by any reflector)
    assert abs(D[0] - d[0]) <= tol
    tri = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
    assert np.array_equal(out[~tri], np.asarray(a)[~tri]) or n == 1  # the other triangle untouched


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("n", [1, 2, 5, 30, 71])
@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_eigenpairs_on_host_stand_ins(monkeypatch, dtype, n, uplo, rng):
    eigh_host.install(monkeypatch)
    monkeypatch.setattr(_sytrd.reduce_lower, "__defaults__", (8,))
    monkeypatch.setattr(_eigh.apply_q, "__defaults__", (16,))
    a = hermitian(rng, n, dtype)
    stored = np.tril(a) if uplo == "L" else np.triu(a)  # only the uplo triangle may be read
    buf = _flat_matrix(stored, n + 1)
    w, Z = _eigh.solve(np.dtype(dtype), True, uplo, n, buf, n + 1, 0, n - 1)
    assert w.dtype == np.dtype(dtype).char.lower() or w.dtype == np.float64
    check_eigenpairs(a, w, _eigh_kernels.view(Z, 0, n, n, n), dtype)
    w_only, none = _eigh.solve(np.dtype(dtype), False, uplo, n, _flat_matrix(stored, n), n, 0, n - 1)
    assert none is None
    assert np.allclose(w_only, w, atol=30 * n * eps(dtype) * np.linalg.norm(a))


def test_solve_subset_and_nonfinite(monkeypatch, rng):
    eigh_host.install(monkeypatch)
    a = hermitian(rng, 12, "float64")
    w, Z = _eigh.solve(np.dtype(np.float64), True, "L", 12, _flat_matrix(a, 12), 12, 3, 6)
    ref_w, ref_v = np.linalg.eigh(a)
    assert np.allclose(w, ref_w[3:7])
    v = _eigh_kernels.view(Z, 0, 12, 4, 12)
    assert np.allclose(np.abs(np.sum(v * ref_v[:, 3:7], axis=0)), 1)
    a[4, 2] = np.inf
    with np.errstate(invalid="ignore"):
        assert _eigh.solve(np.dtype(np.float64), True, "L", 12, _flat_matrix(a, 12), 12, 0, 11) is None


@pytest.mark.parametrize("evect, uplo", [("V", "L"), ("V", "U"), ("N", "U")])
def test_syevj_past_the_kernel_limit_solves_each_matrix(monkeypatch, evect, uplo, rng):
    from rocarray.rocsolver import _syevj

    eigh_host.install(monkeypatch)
    n, lda, batch = 9, 11, 3
    mats = [hermitian(rng, n, "complex128") for _ in range(batch)]
    A = _device_batch([np.triu(a) if uplo == "U" else np.tril(a) for a in mats], lda)
    stride_a = lda * n + 5
    A = np.concatenate([np.concatenate([A[b * lda * n:(b + 1) * lda * n], np.zeros(5)]) for b in range(batch)])
    before = A.copy()
    W, info = np.full(batch * (n + 2), 7.0), np.full(batch, -1, np.int32)
    residual, sweeps = np.full(batch, 5.0), np.full(batch, 5, np.int32)
    checked = (evect == "V", uplo, n, np.dtype(np.complex128), lda, stride_a, 0.0, residual, 10, sweeps, n + 2,
               info, batch)
    monkeypatch.setattr(_syevj, "_check", lambda *args: checked)
    monkeypatch.setattr(_eigh_kernels, "warp_order", lambda *args: None)
    monkeypatch.setattr(_eigh_kernels, "small_variant", lambda *args: None)
    _syevj._run("heevj_strided_batched", evect, uplo, n, A, lda, stride_a, 0.0, residual, 10, sweeps, W, n + 2, info,
                batch)
    assert list(info) == [0] * batch and list(residual) == [0] * batch and list(sweeps) == [0] * batch
    for b, a in enumerate(mats):
        v = _eigh_kernels.view(A, b * stride_a, n, n, lda) if evect == "V" else None
        check_eigenpairs(a, W[b * (n + 2):b * (n + 2) + n], v, "complex128")
        assert np.all(W[b * (n + 2) + n:(b + 1) * (n + 2)] == 7.0)
    if evect == "N":
        np.testing.assert_array_equal(A, before)


def test_larft_gives_the_block_reflector(rng):
    n, k = 9, 4
    V = np.tril(rng.standard_normal((n, k)) + 1j * rng.standard_normal((n, k)), -1) + np.eye(n, k)
    tau = 2 / np.sum(np.abs(V) ** 2, axis=0) * (1 + 0.1j)
    Q = np.eye(n, dtype=complex)
    for j in range(k):
        Q = Q @ (np.eye(n) - tau[j] * np.outer(V[:, j], V[:, j].conj()))
    T = _eigh.larft(tau, V.conj().T @ V)
    assert np.allclose(np.eye(n) - V @ T @ V.conj().T, Q)


def test_tridiagonal_eigen_without_scipy_matches(monkeypatch, rng):
    d, e = rng.standard_normal(7), rng.standard_normal(6)
    w, Y = _eigh.tridiagonal_eigen(d, e, True, 0, 6)
    T = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    assert np.allclose(T @ Y, Y * w)
    ref = scipy.linalg.eigvalsh(T)
    assert np.allclose(_eigh.tridiagonal_eigen(d, e, False, 2, 4), ref[2:5])


# --------------------------------------------------------------------------------------------
# CPU: sizing and argument errors (fake arrays, never launched)
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_small_kernel_variants_by_shared_memory(dtype, monkeypatch):
    assert _eigh_kernels.small_shared_bytes(32, dtype, True) <= 48 * 1024
    for limit in (48 * 1024, 64 * 1024, 227 * 1024):
        monkeypatch.setattr(_eigh_kernels.backend, "shared_memory_limit", lambda device_id: limit)
        assert _eigh_kernels.small_variant(32, dtype, True, 0) is False
        assert _eigh_kernels.small_variant(129, dtype, False, 0) is None
        for n in range(1, 129):
            variant = _eigh_kernels.small_variant(n, dtype, True, 0)
            with_v = _eigh_kernels.small_shared_bytes(n, dtype, True)
            alone = _eigh_kernels.small_shared_bytes(n, dtype, False)
            assert variant is (False if with_v <= limit else True if alone <= limit else None)
            assert _eigh_kernels.small_variant(n, dtype, False, 0) is (False if alone <= limit else None)
    # the H200's 227 KB: order 128 in one launch for every dtype but complex128 (A alone is 264 KB)
    assert (_eigh_kernels.small_variant(128, dtype, True, 0) is None) == (dtype == "complex128")


def test_kernels_registered_for_every_dtype():
    names = _eigh_kernels.instantiations()
    assert len(names) == 16 and "ra_rocsolver_syevj_small<ra_c128, true>" in names


def _batched_args(**over):
    n, batch = 4, 3
    args = dict(evect="V", uplo="L", n=n, A=fake((n * n * batch,), np.float64), lda=n, strideA=n * n, abstol=0.0,
                residual=None, max_sweeps=20, n_sweeps=None, W=fake((n * batch,), np.float64), strideW=n,
                info=fake((batch,), np.int32), batch_count=batch)
    args.update(over)
    return args


@pytest.mark.parametrize("over, error, match", [
    (dict(evect="X"), ValueError, "evect"),
    (dict(uplo="X"), ValueError, "uplo"),
    (dict(n=-1), ValueError, "n must be"),
    (dict(lda=3), ValueError, "lda"),
    (dict(strideA=15), ValueError, "strideA"),
    (dict(strideW=3), ValueError, "strideW"),
    (dict(max_sweeps=0), ValueError, "max_sweeps"),
    (dict(abstol=1j), TypeError, "abstol"),
    (dict(A=fake((48,), np.complex128)), TypeError, "heevj"),
    (dict(W=fake((12,), np.float32)), TypeError, "W must be float64"),
    (dict(W=fake((11,), np.float64)), ValueError, "W needs"),
    (dict(info=fake((3,), np.int64)), TypeError, "int32"),
    (dict(info=fake((2,), np.int32)), ValueError, "info"),
    (dict(residual=fake((3,), np.float32)), TypeError, "residual"),
    (dict(n_sweeps=fake((2,), np.int32)), ValueError, "n_sweeps"),
    (dict(A=fake((47,), np.float64)), ValueError, "needs 48"),
    (dict(A=np.zeros(48)), TypeError, "host"),
])
def test_syevj_strided_batched_argument_errors(over, error, match):
    with pytest.raises(error, match=match):
        rocsolver.syevj_strided_batched(**_batched_args(**over))


def test_heevj_rejects_real_and_syevj_single_checks():
    with pytest.raises(TypeError, match="syevj"):
        rocsolver.heevj_strided_batched(**_batched_args())
    with pytest.raises(ValueError, match="W needs"):
        rocsolver.syevj("V", "L", 4, fake((16,), np.float64), 4, 0.0, None, 10, None, fake((3,), np.float64),
                        fake((1,), np.int32))


@pytest.mark.parametrize("fn, args, error, match", [
    ("syevd", ("X", "L", 4, fake((16,), np.float64), 4, fake((4,), np.float64), fake((1,), np.int32)),
     ValueError, "evect"),
    ("syevd", ("V", "L", 4, fake((16,), np.complex128), 4, fake((4,), np.float64), fake((1,), np.int32)),
     TypeError, "heevd"),
    ("heevd", ("V", "L", 4, fake((16,), np.complex64), 4, fake((4,), np.float64), fake((1,), np.int32)),
     TypeError, "W must be float32"),
    ("syevd", ("V", "L", 4, fake((16,), np.float64), 3, fake((4,), np.float64), fake((1,), np.int32)),
     ValueError, "lda"),
    ("syevd", ("V", "L", 4, fake((16,), np.float64), 4, fake((3,), np.float64), fake((1,), np.int32)),
     ValueError, "W needs"),
    ("sytrd", ("L", 4, fake((16,), np.float64), 4, fake((4,), np.float64), fake((3,), np.float64),
               fake((3,), np.float64)), None, None),
    ("sytrd", ("L", 4, fake((16,), np.complex128), 4, fake((4,), np.float64), fake((3,), np.float64),
               fake((3,), np.complex128)), TypeError, "hetrd"),
    ("hetrd", ("U", 4, fake((16,), np.complex128), 4, fake((4,), np.float64), fake((2,), np.float64),
               fake((3,), np.complex128)), ValueError, "E needs"),
    ("hetrd", ("U", 4, fake((16,), np.complex128), 4, fake((4,), np.float64), fake((3,), np.float64),
               fake((3,), np.complex64)), TypeError, "tau must be complex128"),
])
def test_syevd_sytrd_argument_errors(fn, args, error, match, monkeypatch):
    if error is None:  # valid: stops at the first device step
        monkeypatch.setattr(_sytrd, "reduce", lambda *a: (_ for _ in ()).throw(RuntimeError("reached")))
        with pytest.raises(RuntimeError, match="reached"):
            getattr(rocsolver, fn)(*args)
        return
    with pytest.raises(error, match=match):
        getattr(rocsolver, fn)(*args)


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

def _device_batch(mats, lda):
    """Column-major matrices with leading dimension lda, one after another, poisoned padding."""
    batch, n = len(mats), mats[0].shape[0]
    buf = np.full(max(batch * lda * n, 1), np.nan, dtype=mats[0].dtype)
    for b, a in enumerate(mats):
        buf[b * lda * n:(b + 1) * lda * n].reshape(n, lda).T[:n] = a
    return buf


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 2, 3, 17, 32, 33, 64, 100, 128])
@pytest.mark.parametrize("dtype", DTYPES)
def test_syevj_strided_batched_matches_numpy(dtype, n, rng):
    batch, lda = 3, n + 2
    mats = [hermitian(rng, n, dtype) for _ in range(batch)]
    uplo = "U" if n % 2 else "L"
    host = _device_batch([np.triu(a) if uplo == "U" else np.tril(a) for a in mats], lda)
    A = to_device(host)
    real = np.float32 if np.dtype(dtype).char in "fF" else np.float64
    W = to_device(np.full(batch * (n + 1), np.nan, real))
    info = to_device(np.full(batch, -7, np.int32))
    residual = to_device(np.full(batch, np.nan, real))
    sweeps = to_device(np.full(batch, -1, np.int32))
    fn = rocsolver.heevj_strided_batched if np.dtype(dtype).kind == "c" else rocsolver.syevj_strided_batched
    fn("V", uplo, n, A, lda, lda * n, 0, residual, 100, sweeps, W, n + 1, info, batch)
    assert np.all(to_host(info) == 0)
    assert np.all(to_host(sweeps) >= 0) and np.all(np.isfinite(to_host(residual)))
    out, w = to_host(A), to_host(W)
    for b, a in enumerate(mats):
        v = out[b * lda * n:(b + 1) * lda * n].reshape(n, lda).T[:n]
        wb = w[b * (n + 1):b * (n + 1) + n]
        assert np.all(np.diff(wb) >= 0)
        check_eigenpairs(a, wb, v, dtype)
        assert np.all(np.isnan(out[b * lda * n:(b + 1) * lda * n].reshape(n, lda)[:, n:]))  # padding untouched


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_syevj_values_only_degenerate_and_nan(dtype, rng):
    n = 12
    spread = np.repeat([1.0, -2.0, 3.0], 4)
    a = hermitian(rng, n, dtype, spread)
    inf = np.eye(n, dtype=dtype)
    inf[3, 3] = np.inf
    mats = [a, np.eye(n, dtype=dtype), np.full((n, n), np.nan, dtype), inf]
    A = to_device(np.concatenate([m.T.ravel() for m in mats]))
    real = np.float32 if np.dtype(dtype).char in "fF" else np.float64
    W = to_device(np.full(4 * n, 5.0, real))
    info = to_device(np.zeros(4, np.int32))
    fn = rocsolver.heevj_strided_batched if np.dtype(dtype).kind == "c" else rocsolver.syevj_strided_batched
    before = to_host(A)
    fn("N", "L", n, A, n, n * n, 0, None, 30, None, W, n, info, 4)  # clusters of 4 take more sweeps
    assert list(to_host(info)) == [0, 0, 1, 1]
    w = to_host(W)
    check_eigenpairs(a, w[:n], None, dtype)
    assert np.array_equal(w[n:2 * n], np.ones(n))
    np.testing.assert_array_equal(to_host(A), before)  # values only: A unchanged


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 2, 5, 70, 130, 301])
@pytest.mark.parametrize("dtype", DTYPES)
def test_syevd_matches_numpy(dtype, n, rng):
    a = hermitian(rng, n, dtype)
    uplo = "U" if n % 2 else "L"
    lda = n + 1
    A = to_device(_flat_matrix(np.triu(a) if uplo == "U" else np.tril(a), lda))
    real = np.float32 if np.dtype(dtype).char in "fF" else np.float64
    W = to_device(np.full(n, np.nan, real))
    info = to_device(np.full(1, -7, np.int32))
    fn = rocsolver.heevd if np.dtype(dtype).kind == "c" else rocsolver.syevd
    fn("V", uplo, n, A, lda, W, info)
    assert to_host(info)[0] == 0
    check_eigenpairs(a, to_host(W), _eigh_kernels.view(to_host(A), 0, n, n, lda), dtype)


@pytest.mark.gpu
def test_syevd_large_and_nan(rng):
    n = 600
    a = hermitian(rng, n, "float64")
    A = to_device(_flat_matrix(a, n))
    W, info = to_device(np.empty(n)), to_device(np.full(1, -7, np.int32))
    rocsolver.syevd("V", "L", n, A, n, W, info)
    assert to_host(info)[0] == 0
    check_eigenpairs(a, to_host(W), _eigh_kernels.view(to_host(A), 0, n, n, n), "float64")
    a[3, 1] = np.nan
    A = to_device(_flat_matrix(a, n))
    rocsolver.syevd("N", "L", n, A, n, W, info)
    assert to_host(info)[0] == 1 and np.all(np.isnan(to_host(W)))


@pytest.mark.gpu
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("n", [1, 2, 33, 97])
@pytest.mark.parametrize("dtype", DTYPES)
def test_sytrd_hetrd_reduce_with_a_small_backward_error(dtype, n, uplo, rng):
    a = hermitian(rng, n, dtype)
    A = to_device(_flat_matrix(a, n))
    real = np.float32 if np.dtype(dtype).char in "fF" else np.float64
    D, E = to_device(np.full(n, np.nan, real)), to_device(np.full(max(n - 1, 1), np.nan, real))
    tau = to_device(np.full(max(n - 1, 1), np.nan, dtype))
    (rocsolver.hetrd if np.dtype(dtype).kind == "c" else rocsolver.sytrd)(uplo, n, A, n, D, E, tau)
    tol = 50 * n * eps(dtype) * max(np.linalg.norm(a), 1)
    out = to_host(A).reshape(n, n).T  # column-major
    q = _tridiagonal_q(out, to_host(tau)[:n - 1], uplo == "L")
    e = to_host(E)[:n - 1]
    t_mat = np.diag(to_host(D).astype(np.float64)) + np.diag(e, 1) + np.diag(e, -1)
    assert np.linalg.norm(q @ t_mat @ q.conj().T - a) <= tol
    assert np.linalg.norm(q.conj().T @ q - np.eye(n)) <= 50 * n * eps(dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("fused, warp_tiles, staged, dependent", [(True, True, True, False), (True, True, True, True),
                                                                 (True, True, False, False), (True, False, True, False),
                                                                 (False, False, True, False)])
@pytest.mark.parametrize("n, dtype, uplo", [(1000, "complex128", "L"), (1001, "float64", "U"),
                                            (2049, "float32", "L"), (4096, "float64", "L")])
def test_syevd_large_orders_through_either_panel_path(monkeypatch, fused, warp_tiles, staged, dependent, n, dtype,
                                                      uplo, rng):
    # the fused panel columns (warp-tile kernels with the staged or the butterfly symv, as plain
    # or dependent launches; block-tile kernels) and the per-column path, their way back, at the
    # bench's orders: eigenpairs with backward-error bounds, T's eigenvalues from sytrd/hetrd alone
    from rocarray.rocsolver import _sytrd_kernels

    monkeypatch.setattr(_sytrd, "FUSED_PANEL", fused)
    monkeypatch.setattr(_sytrd_kernels, "WARP_TILES", warp_tiles)
    monkeypatch.setattr(_sytrd_kernels, "STAGED", staged)
    monkeypatch.setattr(_sytrd_kernels, "DEPENDENT", dependent)
    a = hermitian(rng, n, dtype)
    stored = np.tril(a) if uplo == "L" else np.triu(a)
    A = to_device(_flat_matrix(stored, n))
    real = np.float32 if np.dtype(dtype).char in "fF" else np.float64
    D, E = to_device(np.full(n, np.nan, real)), to_device(np.full(n - 1, np.nan, real))
    tau = to_device(np.full(n - 1, np.nan, dtype))
    (rocsolver.hetrd if np.dtype(dtype).kind == "c" else rocsolver.sytrd)(uplo, n, A, n, D, E, tau)
    d, e = to_host(D).astype(np.float64), to_host(E).astype(np.float64)
    assert np.all(np.isfinite(d)) and np.all(np.isfinite(e)) and np.all(np.isfinite(to_host(tau)))
    ref = np.linalg.eigvalsh(a.astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64))
    tol = 30 * n * eps(dtype) * np.linalg.norm(a)
    assert np.max(np.abs(scipy.linalg.eigvalsh_tridiagonal(d, e) - ref)) <= tol
    A = to_device(_flat_matrix(stored, n))
    W, info = to_device(np.full(n, np.nan, real)), to_device(np.full(1, -7, np.int32))
    (rocsolver.heevd if np.dtype(dtype).kind == "c" else rocsolver.syevd)("V", uplo, n, A, n, W, info)
    assert to_host(info)[0] == 0
    check_eigenpairs(a, to_host(W), _eigh_kernels.view(to_host(A), 0, n, n, n), dtype)


@pytest.mark.gpu
def test_syevj_large_order_takes_the_tridiagonal_path(rng):
    n = 160
    a = hermitian(rng, n, "float32")
    A = to_device(_flat_matrix(a, n))
    W, info = to_device(np.empty(n, np.float32)), to_device(np.full(1, -7, np.int32))
    residual, sweeps = to_device(np.full(1, np.nan, np.float32)), to_device(np.full(1, -1, np.int32))
    rocsolver.syevj("V", "L", n, A, n, 0.0, residual, 50, sweeps, W, info)
    assert to_host(info)[0] == 0 and to_host(sweeps)[0] == 0
    check_eigenpairs(a, to_host(W), _eigh_kernels.view(to_host(A), 0, n, n, n), "float32")


def _batched_residuals(mats, w, v):
    """Per matrix: max |w - NumPy's|, ||A V - V diag(w)||, ||V^H V - I|| (vectorized over the stack)."""
    ref = np.linalg.eigvalsh(mats)
    err_w = np.max(np.abs(w - ref), axis=-1)
    res = np.linalg.norm(mats @ v - v * w[:, None, :], axis=(-2, -1))
    orth = np.linalg.norm(np.swapaxes(v, -1, -2).conj() @ v - np.eye(mats.shape[-1]), axis=(-2, -1))
    return err_w, res, orth


@pytest.mark.gpu
@pytest.mark.parametrize("kernel", ["syevj_warp_half", "syevj_warp_fast", "syevj_warp_xor", "syevj_warp"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_syevj_warp_kernel_bench_stack_converges_in_few_sweeps(dtype, kernel, rng, monkeypatch):
    # the bench case's stack (10^4 random symmetric 32 x 32, one launch, batched loads of each
    # round): every matrix converges in a handful of sweeps and meets the residual bounds; a
    # matrix needing many more sweeps than the CPU emulator's 6-8 would cost time in proportion.
    # Every kernel: the half-block one, the XOR one with scaled rotations (the float32 default)
    # and without (the float64 default), and the padded circle one.
    if kernel == "syevj_warp_fast" and dtype != "float32":
        pytest.skip("scaled rotations: float32 alone")
    monkeypatch.setattr(_eigh_kernels, "SYEVJ_WARP_HALF", kernel == "syevj_warp_half")
    monkeypatch.setattr(_eigh_kernels, "SYEVJ_WARP_XOR", kernel in ("syevj_warp_xor", "syevj_warp_fast"))
    monkeypatch.setattr(_eigh_kernels, "FAST_ROTATIONS", kernel == "syevj_warp_fast")
    assert _eigh_kernels.warp_kernel(dtype=dtype, order=32) == kernel
    batch, n = 10_000, 32
    a = rng.standard_normal((batch, n, n))
    mats = ((a + np.swapaxes(a, 1, 2)) / 2).astype(dtype).astype(np.float64)
    A = to_device(np.ascontiguousarray(np.swapaxes(mats.astype(dtype), 1, 2)).ravel())
    W = to_device(np.full(batch * n, np.nan, dtype))
    info = to_device(np.full(batch, -7, np.int32))
    residual = to_device(np.full(batch, np.nan, dtype))
    sweeps = to_device(np.full(batch, -1, np.int32))
    rocsolver.syevj_strided_batched("V", "L", n, A, n, n * n, 0, residual, 100, sweeps, W, n, info, batch)
    s = to_host(sweeps)
    assert np.all(to_host(info) == 0) and np.all(np.isfinite(to_host(residual)))
    assert s.min() >= 4 and s.max() <= 12, ("sweeps min, mean, max", s.min(), s.mean(), s.max())
    w = to_host(W).reshape(batch, n).astype(np.float64)
    v = np.swapaxes(to_host(A).reshape(batch, n, n), 1, 2).astype(np.float64)
    assert np.all(np.diff(w, axis=-1) >= 0)
    err_w, res, orth = _batched_residuals(mats, w, v)
    scale = np.linalg.norm(mats, axis=(-2, -1))
    assert np.all(err_w <= 30 * n * eps(dtype) * scale)
    assert np.all(res <= 30 * n * eps(dtype) * scale)
    assert np.all(orth <= 30 * n * eps(dtype))


@pytest.mark.gpu
def test_syevj_warp_fast_rotations_sweeps_and_accuracy_match_the_way_back(rng, monkeypatch):
    # scaled rotations (syevj_warp_fast) against the XOR kernel on the bench stack (10^4 random
    # symmetric float32 32 x 32, row-major through the façade): the mean sweep count within 0.02,
    # the worst eigenvalue error, residual and orthogonality within 1.5x of the way back's
    batch, n = 10_000, 32
    a = rng.standard_normal((batch, n, n))
    mats = ((a + np.swapaxes(a, 1, 2)) / 2).astype(np.float32)
    stats = {}
    for fast in (True, False):
        monkeypatch.setattr(_eigh_kernels, "FAST_ROTATIONS", fast)
        A = to_device(np.ascontiguousarray(np.swapaxes(mats, 1, 2)).ravel())
        W = to_device(np.full(batch * n, np.nan, np.float32))
        info = to_device(np.full(batch, -7, np.int32))
        sweeps = to_device(np.full(batch, -1, np.int32))
        rocsolver.syevj_strided_batched("V", "L", n, A, n, n * n, 0, None, 100, sweeps, W, n, info, batch)
        assert np.all(to_host(info) == 0)
        w = to_host(W).reshape(batch, n).astype(np.float64)
        v = np.swapaxes(to_host(A).reshape(batch, n, n), 1, 2).astype(np.float64)
        err_w, res, orth = _batched_residuals(mats.astype(np.float64), w, v)
        scale = np.linalg.norm(mats.astype(np.float64), axis=(-2, -1))
        stats[fast] = (to_host(sweeps).mean(), np.max(err_w / scale), np.max(res / scale), np.max(orth))
    print("fast / xor: sweeps mean, max |dw|/||A||, max residual/||A||, max orthogonality", stats)
    assert stats[True][0] <= stats[False][0] + 0.02, stats
    for k in (1, 2, 3):
        assert stats[True][k] <= 1.5 * stats[False][k], stats


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 2, 3, 5, 16, 17, 31, 32, 33])
@pytest.mark.parametrize("dtype", DTYPES)
def test_syevj_warp_kernel_stack_garbage_triangle_and_poison(dtype, n, rng):
    # orders up to the warp size run one warp per matrix (33: the one-block kernel); a batch that
    # does not fill the last block; the unreferenced triangle and the diagonal's imaginary part
    # hold garbage; every output poisoned before the call
    batch, uplo = 1001, "U" if n % 2 else "L"
    wide_t = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    mats = np.stack([hermitian(rng, n, dtype) for _ in range(batch)]).astype(wide_t)
    keep = np.triu(np.ones((n, n), bool)) if uplo == "U" else np.tril(np.ones((n, n), bool))
    stored = np.where(keep, mats, np.nan).astype(dtype)
    if np.dtype(dtype).kind == "c":
        stored[:, np.arange(n), np.arange(n)] += 3j
    lda = n + 1
    host = np.full((batch, n, lda), np.nan, dtype)  # column j of matrix b at host[b, j, :n]
    host[:, :, :n] = np.swapaxes(stored, 1, 2)
    A = to_device(host.ravel())
    real = np.float32 if np.dtype(dtype).char in "fF" else np.float64
    W = to_device(np.full(batch * n, np.nan, real))
    info = to_device(np.full(batch, -7, np.int32))
    residual = to_device(np.full(batch, np.nan, real))
    sweeps = to_device(np.full(batch, -1, np.int32))
    fn = rocsolver.heevj_strided_batched if np.dtype(dtype).kind == "c" else rocsolver.syevj_strided_batched
    fn("V", uplo, n, A, lda, lda * n, 0, residual, 100, sweeps, W, n, info, batch)
    assert np.all(to_host(info) == 0) and np.all(to_host(sweeps) <= 20) and np.all(np.isfinite(to_host(residual)))
    out = to_host(A).reshape(batch, n, lda)
    assert np.all(np.isnan(out[:, :, n:]))  # padding rows untouched
    w = to_host(W).reshape(batch, n).astype(np.float64)
    v = np.swapaxes(out[:, :, :n], 1, 2).astype(wide_t)
    assert np.all(np.diff(w, axis=-1) >= 0)
    err_w, res, orth = _batched_residuals(mats, w, v)
    scale = np.linalg.norm(mats, axis=(-2, -1))
    assert np.all(err_w <= 30 * n * eps(dtype) * scale)
    assert np.all(res <= 30 * n * eps(dtype) * scale)
    assert np.all(orth <= 30 * n * eps(dtype))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
def test_syevj_warp_kernel_values_only_degenerate_and_nan(dtype, rng):
    n = 32
    spread = np.repeat([1.0, -2.0, 3.0, 0.5], 8)
    a = hermitian(rng, n, dtype, spread)
    nan = hermitian(rng, n, dtype)
    nan[5, 9] = nan[9, 5] = np.nan
    mats = [a, np.eye(n, dtype=dtype), nan, hermitian(rng, n, dtype)]
    host = np.concatenate([m.T.ravel() for m in mats])
    A = to_device(host)
    real = np.float32 if np.dtype(dtype).char in "fF" else np.float64
    W = to_device(np.full(4 * n, 5.0, real))
    info = to_device(np.full(4, -7, np.int32))
    sweeps = to_device(np.full(4, -1, np.int32))
    fn = rocsolver.heevj_strided_batched if np.dtype(dtype).kind == "c" else rocsolver.syevj_strided_batched
    fn("N", "L", n, A, n, n * n, 0, None, 40, sweeps, W, n, info, 4)
    assert list(to_host(info)) == [0, 0, 1, 0] and to_host(sweeps)[2] == 40 and to_host(sweeps)[1] == 0
    w = to_host(W)
    check_eigenpairs(a, w[:n], None, dtype)
    assert np.array_equal(w[n:2 * n], np.ones(n))
    isnan = np.isnan(w[2 * n:3 * n])
    assert not np.any(isnan[:-1] & ~isnan[1:])  # NaN last
    check_eigenpairs(mats[3], w[3 * n:], None, dtype)
    np.testing.assert_array_equal(to_host(A), host)  # values only: A unchanged
