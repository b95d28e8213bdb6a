"""rocsolver Householder QR: geqrf (single and strided-batched), orgqr/ungqr, ormqr/unmqr, gels.

CPU: the blocked drivers with NumPy stand-ins for the kernels and rocblas (``qr_host``) against
LAPACK through NumPy (geqrf's h and tau equal ``numpy.linalg.qr(mode='raw')``), with small block
sizes so every path (leaves, recursive panels, trailing updates, backward orgqr, the four ormqr
orders, gels' four cases) runs; the kernel registration and source rules; argument errors on fake
device arrays. GPU: the same routines against NumPy with backward-error bounds.
"""

import re

import numpy as np
import pytest

import qr_host
from conftest import fake, random_array, to_device, to_host
from rocblas_fixtures import refuse_launches

import rocarray.rocsolver as rocsolver
from rocarray._core import compile as _compile
from rocarray.rocsolver import _qr_blocked, _qr_kernels

DTYPES = ["float32", "float64", "complex64", "complex128"]


def eps(dtype):
    return np.finfo(np.dtype(dtype)).eps


def host_matrix(rng, m, n, ld, dtype, extra=3):
    """A flat column-major buffer (ld, NaN padding) and its m x n matrix."""
    a = random_array(rng, (m, n), dtype)
    buf = np.full(max(ld * max(n, 1), 1) + extra, np.nan, dtype)
    if m and n:
        qr_host.mat(buf, m, n, ld)[...] = a
    return buf, a


def q_from_reflectors(h, tau, k):
    """Q = H_0 ... H_{k-1} (m x m, complex128) from LAPACK's reflectors below h's diagonal."""
    m = h.shape[0]
    q = np.eye(m, dtype=np.complex128)
    for i in range(k):
        v = np.zeros(m, np.complex128)
        v[i], v[i + 1:] = 1, h[i + 1:, i]
        q -= complex(tau[i]) * np.outer(q @ v, v.conj())
    return q


# --------------------------------------------------------------------------------------------
# CPU: the blocked drivers on NumPy stand-ins
# --------------------------------------------------------------------------------------------

@pytest.fixture
def host(monkeypatch):
    """The stand-ins installed and small blocks (NB 8, LEAF 2), so little matrices cross them all."""
    monkeypatch.setattr(_qr_blocked, "NB", 8)
    monkeypatch.setattr(_qr_blocked, "LEAF", 2)
    monkeypatch.setattr(_qr_blocked, "BATCHED_MAX", 6)
    return qr_host.install(monkeypatch)


def _blocked_geqrf_matches_lapack(rng, m, n, dtype):
    """geqrf of a random m x n matrix (leading dimension m + 2) through the blocked driver, checked
    against LAPACK's R, reflectors and tau; returns the buffer."""
    lda = m + 2
    buf, a = host_matrix(rng, m, n, lda, dtype)
    tau = np.full(min(m, n), np.nan, dtype)
    _qr_blocked.geqrf(m, n, buf, lda, 0, tau, 0, 1)
    h, t = np.linalg.qr(a, mode="raw")
    scale = 64 * eps(dtype) * max(1.0, np.abs(a).max() * max(m, n))
    np.testing.assert_allclose(qr_host.mat(buf, m, n, lda), h.T, atol=scale)
    np.testing.assert_allclose(tau, t, atol=64 * eps(dtype))
    return buf


SHAPES = [(1, 1), (2, 1), (1, 3), (5, 5), (17, 11), (11, 17), (24, 24), (31, 9), (9, 31), (40, 25)]


@pytest.mark.parametrize("m,n", SHAPES)
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_geqrf_driver_matches_lapack(host, rng, m, n, dtype):
    buf = _blocked_geqrf_matches_lapack(rng, m, n, dtype)
    assert np.isnan(buf[-3:]).all()  # nothing past the matrix is written
    if n > 2:
        assert any(name == "gemm" for name, _ in host)  # the blocked path ran


@pytest.mark.parametrize("m,n", [(5, 3), (12, 12), (30, 7), (30, 22)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_batched_geqrf_driver(host, rng, m, n, dtype):
    batch, stride = 3, m * n + 5
    bufs = np.full(batch * stride, np.nan, dtype)
    mats = []
    for b in range(batch):
        a = random_array(rng, (m, n), dtype)
        qr_host.mat(bufs[b * stride:], m, n, m)[...] = a
        mats.append(a)
    k = min(m, n)
    tau = np.full(batch * (k + 1), np.nan, dtype)
    _qr_blocked.geqrf(m, n, bufs, m, stride, tau, k + 1, batch)
    for b, a in enumerate(mats):
        h, t = np.linalg.qr(a, mode="raw")
        np.testing.assert_allclose(qr_host.mat(bufs[b * stride:], m, n, m), h.T, atol=1e-12 * m * n)
        np.testing.assert_allclose(tau[b * (k + 1):b * (k + 1) + k], t, atol=1e-13)
    geqr2 = [args for name, args in host if name == "geqr2"]
    if n <= _qr_blocked.BATCHED_MAX:
        assert len(geqr2) == 1 and geqr2[0][-1] == batch and len(host) == 1  # one launch for the stack
    else:
        assert all(args[-1] == batch for args in geqr2)


@pytest.mark.parametrize("m,n,k", [(6, 6, 6), (17, 11, 11), (17, 11, 5), (20, 20, 13), (9, 4, 0), (25, 25, 25)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_orgqr_driver_forms_q(host, rng, m, n, k, dtype):
    a = random_array(rng, (m, max(n, 1)), dtype)
    buf = np.zeros(m * max(n, 1), dtype)
    qr_host.mat(buf, m, max(n, 1), m)[...] = a
    tau = np.zeros(max(min(m, n), 1), dtype)
    _qr_blocked.geqrf(m, n, buf, m, 0, tau, 0, 1)
    h = qr_host.mat(buf, m, n, m).copy()
    _qr_blocked.orgqr(m, n, k, buf, m, 0, tau, 0, 1)
    q_full = q_from_reflectors(h, tau, k)
    np.testing.assert_allclose(qr_host.mat(buf, m, n, m), q_full[:, :n], atol=1e-12 * m)


@pytest.mark.parametrize("side", ["L", "R"])
@pytest.mark.parametrize("trans", ["N", "C"])
@pytest.mark.parametrize("nq,k", [(7, 7), (23, 17), (23, 9), (12, 0)])
def test_ormqr_driver_applies_q(host, rng, side, trans, nq, k):
    dtype = "complex128"
    a = random_array(rng, (nq, max(k, 1)), dtype)
    buf = np.zeros(nq * max(k, 1), dtype)
    qr_host.mat(buf, nq, max(k, 1), nq)[...] = a
    tau = np.zeros(max(k, 1), dtype)
    _qr_blocked.geqrf(nq, k, buf, nq, 0, tau, 0, 1)
    q = np.linalg.qr(a[:, :k], mode="complete")[0] if k else np.eye(nq)
    other = 5
    m, n = (nq, other) if side == "L" else (other, nq)
    ldc = m + 1
    cbuf, c = host_matrix(rng, m, n, ldc, dtype)
    _qr_blocked.ormqr(side, trans, m, n, k, buf, nq, 0, tau, 0, cbuf, ldc, 0, 1)
    op = q if trans == "N" else q.conj().T
    want = op @ c if side == "L" else c @ op
    np.testing.assert_allclose(qr_host.mat(cbuf, m, n, ldc), want, atol=1e-12 * nq)


@pytest.mark.parametrize("trans", ["N", "C"])
@pytest.mark.parametrize("m,n", [(30, 13), (13, 30), (9, 9), (1, 4), (4, 1)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gels_driver_matches_lstsq(host, rng, trans, m, n, dtype):
    nrhs, p = 3, max(m, n)
    a = random_array(rng, (m, n), dtype)
    op = a if trans == "N" else a.conj().T
    b = random_array(rng, (op.shape[0], nrhs), dtype)
    abuf = np.zeros(m * n, dtype)
    qr_host.mat(abuf, m, n, m)[...] = a
    bbuf = np.full(p * nrhs, np.nan, dtype)
    qr_host.mat(bbuf, op.shape[0], nrhs, p)[...] = b
    info = np.full(1, -7, np.int32)
    _qr_blocked.gels(trans, m, n, nrhs, abuf, m, bbuf, p, info)
    want = np.linalg.lstsq(op, b, rcond=None)[0]
    np.testing.assert_allclose(qr_host.mat(bbuf, op.shape[1], nrhs, p), want, atol=1e-10)
    assert info[0] == 0


def test_gels_driver_reports_a_zero_diagonal(host, rng):
    m, n = 8, 5
    a = np.zeros((m, n))
    a[:, [0, 1, 3, 4]] = random_array(rng, (m, 4), "float64")  # column 2 is zero: R(2, 2) == 0
    abuf = np.asfortranarray(a).T.reshape(-1).copy()
    bbuf = random_array(rng, m * 2, "float64")
    info = np.zeros(1, np.int32)
    _qr_blocked.gels("N", m, n, 2, abuf, m, bbuf, m, info)
    assert info[0] == 3


@pytest.mark.parametrize("m,n,nrhs", [(0, 3, 2), (3, 0, 2), (4, 3, 0)])
def test_gels_driver_quick_returns(host, m, n, nrhs):
    p = max(m, n, 1)
    bbuf = np.full(p * max(nrhs, 1), 5.0)
    info = np.full(1, -1, np.int32)
    _qr_blocked.gels("N", m, n, nrhs, np.zeros(max(m * n, 1)), max(m, 1), bbuf, p, info)
    assert info[0] == 0
    if nrhs and min(m, n) == 0:
        assert (bbuf[:max(m, n) * nrhs] == 0).all()


@pytest.mark.parametrize("m,n", [(40, 25), (24, 24), (9, 31)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("leaf_t", [True, False])
def test_geqrf_driver_with_cluster_leaves(host, rng, monkeypatch, m, n, dtype, leaf_t):
    """Every leaf on the cluster stand-in; a panel's left half that is one leaf takes its T from
    the leaf (no S gemm, no larft for it) unless CLUSTER_LEAF_T is off: LAPACK's factors either
    way."""
    monkeypatch.setattr(qr_host, "CLUSTER", True)
    monkeypatch.setattr(_qr_kernels, "CLUSTER_LEAF_T", leaf_t)
    buf = _blocked_geqrf_matches_lapack(rng, m, n, dtype)
    leaves = [args for name, args in host if name == "geqr2_cluster"]
    with_t = [args for args in leaves if args[-1] is not None]
    assert leaves and not any(name == "geqr2" for name, _ in host)
    # NB 8, LEAF 2: each 8-column panel splits 4 + 4 and each 4 into 2 + 2, so two of a full
    # panel's four leaves are left halves (their T from the leaf) and 3 reflectors a panel
    # (2 leaf-level, the 4-wide) go through larft without it
    larfts = [args[0] for name, args in host if name == "larft"]
    if leaf_t:
        assert with_t and 2 not in larfts
    else:
        assert not with_t and 2 in larfts


def test_panel_splits_into_leaf_multiples(host, rng):
    m, n = 40, 8
    buf, _ = host_matrix(rng, m, n, m, "float64")
    _qr_blocked.geqrf(m, n, buf, m, 0, np.zeros(n), 0, 1)
    widths = [args[1] for name, args in host if name == "geqr2"]
    assert widths == [2, 2, 2, 2]  # NB 8 panel: 4 + 4, each 2 + 2


# --------------------------------------------------------------------------------------------
# CPU: kernel registration, source rules, argument errors (fake device arrays, never launched)
# --------------------------------------------------------------------------------------------

def test_geqr2_block_follows_the_rows(monkeypatch):
    got = []
    monkeypatch.setattr(_qr_kernels, "KERNELS", {f"ra_rocsolver_geqr2<double, {b}>": (
        lambda device, grid, args, block, _b=b: got.append((int(args[0]), block))) for b in (64, 256, 512)})
    monkeypatch.setattr(_qr_kernels.launch, "on_device", lambda device: __import__("contextlib").nullcontext())
    monkeypatch.setattr(_qr_kernels, "_device", lambda X: 0)
    A = np.zeros(1)
    for m in (1, 64, 65, 1024, 1025, 5000):
        _qr_kernels.geqr2(m, 3, A, m, 0, A, 0, 2)
    assert got == [(1, 64), (64, 64), (65, 256), (1024, 256), (1025, 512), (5000, 512)]


def test_kernels_are_registered_and_follow_the_rules():
    registered = set(_compile.registered(_qr_kernels.SOURCE))
    assert registered == set(_qr_kernels.instantiations())
    assert len(registered) == 4 * 6 + 4 * 3 + 4 + 4
    source = _compile.read_text(_qr_kernels.SOURCE)
    assert "#include" not in source
    assert re.search(r"(?<![\w.])32(?![\w.])", source) is None, "literal 32 (use RA_WARP_SIZE)"
    assert re.search(rf"#define RA_ROCSOLVER_QR_BLOCK {_qr_kernels.BLOCK}\b", source)
    assert re.search(rf"#define RA_ROCSOLVER_QR_GRID_BLOCK {_qr_kernels.GRID_BLOCK}\b", source)
    assert re.search(r"#define RA_ROCSOLVER_QR_GRID_COLUMNS 0x20\b", source) and _qr_kernels.GRID_LEAF_COLUMNS == 0x20
    assert re.search(rf"#define RA_ROCSOLVER_QR_CLUSTER_BLOCKS {_qr_kernels.CLUSTER_BLOCKS}\b", source)
    assert re.search(rf"#define RA_ROCSOLVER_QR_CLUSTER_BLOCK {_qr_kernels.CLUSTER_BLOCK}\b", source)
    for name in ("geqr2", "geqr2_grid", "geqr2_cluster", "qr_copy_v", "qr_set_identity", "qr_conj_transpose", "larft", "larft_inv",
                 "qr_diag_info"):
        assert f"ra_rocsolver_{name}(" in source


@pytest.fixture
def no_launch(monkeypatch):
    refuse_launches(monkeypatch)

    def refuse(*args, **kwargs):
        raise AssertionError("a kernel launch was attempted")

    for name in qr_host.NAMES:
        monkeypatch.setattr(_qr_kernels, name, refuse)


def test_geqrf_argument_errors(no_launch):
    A, tau = fake((20,), np.float64), fake((4,), np.float64)
    with pytest.raises(ValueError, match="m must be >= 0"):
        rocsolver.geqrf(-1, 2, A, 4, tau)
    with pytest.raises(ValueError, match="lda"):
        rocsolver.geqrf(4, 4, A, 3, tau)
    with pytest.raises(ValueError, match="needs 24 elements"):
        rocsolver.geqrf(4, 6, A, 4, tau)
    with pytest.raises(TypeError, match="ipiv must have the dtype"):
        rocsolver.geqrf(4, 4, A, 4, fake((4,), np.float32))
    with pytest.raises(ValueError, match="ipiv needs 4"):
        rocsolver.geqrf(4, 4, fake((16,), np.float64), 4, fake((3,), np.float64))
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        rocsolver.geqrf(2, 2, fake((4,), np.int32), 2, fake((2,), np.int32))
    with pytest.raises(TypeError):
        rocsolver.geqrf(2, 2, np.zeros(4), 2, tau)
    rocsolver.geqrf(0, 3, A, 1, tau)  # empty: no launch


def test_batched_and_orgqr_ormqr_gels_argument_errors(no_launch):
    A, tau = fake((64,), np.float64), fake((8,), np.float64)
    with pytest.raises(ValueError, match="batch_count"):
        rocsolver.geqrf_strided_batched(2, 2, A, 2, 4, tau, 2, -1)
    with pytest.raises(ValueError, match="need"):
        rocsolver.geqrf_strided_batched(4, 4, A, 4, 16, tau, 2, 5)
    with pytest.raises(ValueError, match="n must be <= m"):
        rocsolver.orgqr(3, 4, 2, A, 3, tau)
    with pytest.raises(ValueError, match="k must be <= n"):
        rocsolver.orgqr(4, 2, 3, A, 4, tau)
    with pytest.raises(TypeError, match="unsupported dtype complex128"):
        rocsolver.orgqr(2, 2, 2, fake((4,), np.complex128), 2, fake((2,), np.complex128))
    with pytest.raises(TypeError, match="unsupported dtype float64"):
        rocsolver.ungqr(2, 2, 2, A, 2, tau)
    C = fake((64,), np.float64)
    with pytest.raises(ValueError, match="trans must be one of 'N', 'T'"):
        rocsolver.ormqr("L", "C", 4, 4, 2, A, 4, tau, C, 4)
    with pytest.raises(ValueError, match="trans must be one of 'N', 'C'"):
        rocsolver.unmqr("L", "T", 2, 2, 2, fake((4,), np.complex64), 2, fake((2,), np.complex64),
                        fake((4,), np.complex64), 2)
    with pytest.raises(ValueError, match="side"):
        rocsolver.ormqr("X", "N", 4, 4, 2, A, 4, tau, C, 4)
    with pytest.raises(ValueError, match="k must be <= n"):
        rocsolver.ormqr("R", "N", 8, 3, 4, A, 8, tau, C, 8)
    with pytest.raises(TypeError, match="C must have the dtype"):
        rocsolver.ormqr("L", "N", 4, 4, 2, A, 4, tau, fake((16,), np.float32), 4)
    info = fake((1,), np.int32)
    with pytest.raises(ValueError, match="ldb"):
        rocsolver.gels("N", 6, 4, 1, A, 6, C, 5, info)
    with pytest.raises(TypeError, match="info must be an int32"):
        rocsolver.gels("N", 4, 4, 1, A, 4, C, 4, fake((1,), np.int64))
    with pytest.raises(ValueError, match="trans"):
        rocsolver.gels("T", 2, 2, 1, fake((4,), np.complex128), 2, fake((4,), np.complex128), 2, info)


# --------------------------------------------------------------------------------------------
# GPU: the kernels against NumPy
# --------------------------------------------------------------------------------------------

def _device_matrix(rng, m, n, ld, dtype):
    buf, a = host_matrix(rng, m, n, ld, dtype)
    return to_device(buf), a


def _check_factorization(h, tau, a, dtype):
    """||Q R - A|| / ||A||, ||Q^H Q - I|| and R against NumPy's (|diag| equal), in float64."""
    m, n = a.shape
    k = min(m, n)
    q = q_from_reflectors(h, tau, k)
    r = np.triu(h.astype(np.complex128))
    tol = 30 * eps(dtype) * max(m, n)
    assert np.linalg.norm(q @ r - a) <= tol * max(np.linalg.norm(a), 1e-300)
    assert np.linalg.norm(q.conj().T @ q - np.eye(m)) <= tol
    r_np = np.linalg.qr(a.astype(np.complex128), mode="r")
    np.testing.assert_allclose(np.abs(np.diagonal(r)), np.abs(np.diagonal(r_np)), rtol=tol * 10,
                               atol=tol * np.abs(a).max())


@pytest.mark.gpu
@pytest.mark.parametrize("m,n", [(1, 1), (2, 3), (33, 31), (67, 130), (300, 157), (157, 300), (420, 420)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_geqrf_gpu(rng, m, n, dtype):
    lda = m + 3
    A, a = _device_matrix(rng, m, n, lda, dtype)
    tau = to_device(np.full(min(m, n) + 2, np.nan, dtype))
    rocsolver.geqrf(m, n, A, lda, tau)
    h = qr_host.mat(to_host(A), m, n, lda)
    t = to_host(tau)
    assert np.isnan(t[-2:]).all() and np.isnan(to_host(A)[-3:]).all()
    _check_factorization(h, t[:min(m, n)], a, dtype)
    if dtype in ("float64", "complex128"):
        want_h, want_t = np.linalg.qr(a, mode="raw")
        np.testing.assert_allclose(h, want_h.T, atol=1e-10 * max(m, n))
        np.testing.assert_allclose(t[:min(m, n)], want_t, atol=1e-10)


@pytest.mark.gpu
@pytest.mark.parametrize("m,n,batch", [(32, 32, 500), (5, 3, 7), (100, 128, 3), (130, 70, 2), (40, 140, 2)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_geqrf_strided_batched_gpu(rng, m, n, batch, dtype):
    stride = m * n + 1
    host = random_array(rng, batch * stride, dtype)
    A = to_device(host)
    k = min(m, n)
    tau = to_device(np.full(batch * k, np.nan, dtype))
    rocsolver.geqrf_strided_batched(m, n, A, m, stride, tau, k, batch)
    out, t = to_host(A), to_host(tau)
    for b in sorted({0, batch // 2, batch - 1}):
        a = qr_host.mat(host[b * stride:], m, n, m)
        _check_factorization(qr_host.mat(out[b * stride:], m, n, m), t[b * k:(b + 1) * k], a, dtype)
    gaps = np.arange(batch - 1) * stride + stride - 1  # the element between matrices is untouched
    np.testing.assert_array_equal(out[gaps], host[gaps])


@pytest.mark.gpu
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (50, 50, 50), (300, 150, 150), (200, 133, 61), (9, 9, 0)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_orgqr_ungqr_gpu(rng, m, n, k, dtype):
    A, a = _device_matrix(rng, m, n, m, dtype)
    tau = to_device(np.zeros(max(n, 1), dtype))
    rocsolver.geqrf(m, n, A, m, tau)
    fn = rocsolver.ungqr if np.dtype(dtype).kind == "c" else rocsolver.orgqr
    fn(m, n, k, A, m, tau)
    q = qr_host.mat(to_host(A), m, n, m).astype(np.complex128)
    tol = 30 * eps(dtype) * m
    assert np.linalg.norm(q.conj().T @ q - np.eye(n)) <= tol
    if k == n:
        want = np.linalg.qr(a.astype(np.complex128))[0]
        # LAPACK's Q up to rounding: same reflectors, same signs
        np.testing.assert_allclose(q, want, atol=tol * 10)


@pytest.mark.gpu
@pytest.mark.parametrize("side", ["L", "R"])
@pytest.mark.parametrize("trans", ["N", "T", "C"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_ormqr_unmqr_gpu(rng, side, trans, dtype):
    complex_ = np.dtype(dtype).kind == "c"
    if trans == ("T" if complex_ else "C"):
        pytest.skip("not a valid trans for this dtype")
    nq, k, other = 190, 141, 37
    A, a = _device_matrix(rng, nq, k, nq, dtype)
    tau = to_device(np.zeros(k, dtype))
    rocsolver.geqrf(nq, k, A, nq, tau)
    q = np.linalg.qr(a.astype(np.complex128), mode="complete")[0]
    m, n = (nq, other) if side == "L" else (other, nq)
    C, c = _device_matrix(rng, m, n, m, dtype)
    (rocsolver.unmqr if complex_ else rocsolver.ormqr)(side, trans, m, n, k, A, nq, tau, C, m)
    op = q if trans == "N" else q.conj().T
    want = op @ c if side == "L" else c @ op
    got = qr_host.mat(to_host(C), m, n, m)
    assert np.linalg.norm(got - want) <= 30 * eps(dtype) * nq * np.linalg.norm(c)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["N", "C"])
@pytest.mark.parametrize("m,n", [(200, 61), (61, 200), (1, 1), (150, 150)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_gels_gpu(rng, trans, m, n, dtype):
    if trans == "C" and np.dtype(dtype).kind == "f":
        trans = "T"
    nrhs, p = 4, max(m, n)
    a = random_array(rng, (m, n), dtype)
    op = a if trans == "N" else a.conj().T
    b = random_array(rng, (op.shape[0], nrhs), dtype)
    bbuf = np.full(p * nrhs, np.nan, dtype)
    qr_host.mat(bbuf, op.shape[0], nrhs, p)[...] = b
    A, B = to_device(np.asfortranarray(a)), to_device(bbuf)
    info = to_device(np.full(1, -5, np.int32))
    rocsolver.gels(trans, m, n, nrhs, A, m, B, p, info)
    assert to_host(info)[0] == 0
    x = qr_host.mat(to_host(B), op.shape[1], nrhs, p).astype(np.complex128)
    want = np.linalg.lstsq(op.astype(np.complex128), b.astype(np.complex128), rcond=None)[0]
    cond = np.linalg.cond(op.astype(np.complex128))
    assert np.linalg.norm(x - want) <= 100 * eps(dtype) * cond * max(m, n) * np.linalg.norm(want)


@pytest.mark.gpu
def test_gels_rank_deficient_sets_info(rng):
    a = random_array(rng, (12, 5), "float64")
    a[:, 3] = 0
    A, B = to_device(np.asfortranarray(a)), to_device(random_array(rng, 12, "float64"))
    info = to_device(np.zeros(1, np.int32))
    rocsolver.gels("N", 12, 5, 1, A, 12, B, 12, info)
    assert to_host(info)[0] == 4
