"""rocsolver getrf, getrs, getri and laswp against SciPy/NumPy (float64/complex128 references).

CPU tests run the drivers on host memory with the NumPy stand-ins of ``lu_host`` for the kernels
and rocblas calls: the recursive blocking (with a 4-column panel so that small matrices recurse
several levels), wide and tall shapes, the pivot and info bookkeeping, the batched strides and the
choice between the one-block and the blocked paths are proved against ``scipy.linalg`` without a
device. Argument errors use ``conftest.fake`` arrays never launched on.

GPU tests run the real kernels on fresh random data: buffers with spare leading-dimension rows
(NaN, which must stay NaN) and poisoned outputs (ipiv -7, info 99); the factorization is checked
by its backward error ``||P L U - A|| / (||A|| n eps)`` and the pivots against SciPy's where the
pivot choice is clear; solves by ``||op(A) X - B|| / (||A|| ||X|| n eps)``.
"""

import numpy as np
import pytest
import scipy.linalg as sl

from conftest import fake, random_array as rand
from hostdev import dev, view
import lu_host

import rocarray.rocsolver as rs
from rocarray._core import compile as _compile
from rocarray.rocsolver import _lu, _lu_blocked, _lu_kernels

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

ALL = ["float32", "float64", "complex64", "complex128"]
EPS = {np.dtype(d): np.finfo(d).eps for d in ALL}


def buffer(a, lda, batch_stride=None, fill=np.nan):
    """Column-major host buffer holding the matrices of ``a`` (shape (batch, m, n) or (m, n))."""
    a = np.asarray(a)
    stack = a[None] if a.ndim == 2 else a
    m, n = stack.shape[-2:]
    stride = batch_stride if batch_stride is not None else lda * n
    buf = np.full(max((len(stack) - 1) * stride + lda * n + 2, 1), fill, a.dtype)
    for b, mat in enumerate(stack):
        for j in range(n):
            buf[b * stride + j * lda:b * stride + j * lda + m] = mat[:, j]
    return buf


def unpack(buf, m, n, lda, b=0, stride=0):
    return np.lib.stride_tricks.as_strided(buf[b * stride:], (m, n), (buf.itemsize, lda * buf.itemsize)).copy()


# --------------------------------------------------------------------------------------------
# CPU: the drivers with stand-ins
# --------------------------------------------------------------------------------------------

@pytest.fixture
def host_lu(monkeypatch):
    log = lu_host.install(monkeypatch)
    monkeypatch.setattr(_lu_blocked, "PANEL", 4)
    monkeypatch.setattr(_lu, "SMALL_SINGLE", 0)
    monkeypatch.setattr(_lu, "SMALL_BATCHED", 0)
    monkeypatch.setattr(_lu, "WARP_MAX", 0)
    return log


def test_split_is_a_multiple_of_the_panel_and_about_half():
    for nb in (4, 32, 64):
        for width in range(nb + 1, 10 * nb):
            w1 = _lu_blocked.split(width, nb)
            assert w1 % nb == 0 and 0 < w1 < width and abs(2 * w1 - width) <= 2 * nb


def test_one_block_choice():
    assert _lu.one_block(128, 128, 1) and not _lu.one_block(129, 129, 1)
    assert _lu.one_block(512, 512, _lu.MANY) and not _lu.one_block(512, 512, _lu.MANY - 1)
    assert not _lu.one_block(513, 513, 10 ** 5)


def test_kernels_are_registered():
    names = _compile.registered(_lu_kernels.SOURCE)
    assert set(names) == set(_lu_kernels.instantiations())
    assert "ra_rocsolver_getf2<double, true>" in names and "ra_rocsolver_laswp<ra_c64>" in names
    assert "ra_rocsolver_getf2_grid<ra_c128>" in names and "ra_rocsolver_lu_inv<float>" in names
    assert "ra_rocsolver_getf2_rows<double>" in names
    assert "ra_rocsolver_getf2_cluster<double, 8, false>" in names and "ra_rocsolver_getf2_cluster<ra_c128, 16, true>" in names
    assert "ra_rocsolver_getf2_cluster<float, 16, false, true>" in names
    assert len(names) == 68


def test_block_size_is_whole_warps_within_limits():
    for work in (0, 1, 63, 64, 65, 1000, 10 ** 6):
        b = _lu_kernels.block_for(work)
        assert b % 64 == 0 and 64 <= b <= 1024 and (b >= work or b == 1024)


@pytest.mark.parametrize("m,n", [(1, 1), (2, 2), (7, 7), (13, 13), (16, 16), (20, 9), (9, 20), (33, 17), (5, 0)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_blocked_getrf_matches_scipy(host_lu, rng, m, n, dtype):
    a = rand(rng, (m, n), dtype)
    lda = m + 3
    A = dev(buffer(a, lda))
    ipiv, info = dev(np.full(max(min(m, n), 1), -7, np.int32)), dev(np.array([99], np.int32))
    rs.getrf(m, n, A, lda, ipiv, info)
    assert view(info)[0] == 0
    if min(m, n) == 0:
        return
    lu, piv = sl.lu_factor(a)
    np.testing.assert_array_equal(view(ipiv)[:min(m, n)] - 1, piv)
    np.testing.assert_allclose(unpack(view(A), m, n, lda), lu, rtol=1e-10, atol=1e-10)
    assert np.isnan(view(A)[m:lda]).all()   # spare rows untouched
    if max(m, n) > 4:
        assert any(c[0] == "gemm" for c in host_lu) and any(c[0] == "trsm" for c in host_lu)


def test_blocked_getrf_reports_the_first_zero_pivot_and_completes(host_lu, rng):
    n = 14
    a = rand(rng, (n, n), "float64")
    a[:, 5] = 0.0
    a[:, 9] = 0.0
    A, ipiv, info = dev(buffer(a, n)), dev(np.zeros(n, np.int32)), dev(np.array([99], np.int32))
    rs.getrf(n, n, A, n, ipiv, info)
    assert view(info)[0] == 6
    ref = a.copy()
    piv, inf = lu_host.getf2_ref(ref)
    assert inf == 6
    np.testing.assert_array_equal(view(ipiv), piv)
    np.testing.assert_allclose(unpack(view(A), n, n, n), ref, atol=1e-10)


def reversed_overlap(first, second, device_id):
    """The look-ahead's streams in the other order: the update beyond the next block before the
    next block's factorization (neither may read what the other writes)."""
    lu_host.calls.append(("overlap",))
    start = len(lu_host.calls)
    second()
    middle = len(lu_host.calls)
    first()
    staged = [{c[3] for c in part if c[0] == "lacpy"} for part in (lu_host.calls[start:middle], lu_host.calls[middle:])]
    assert not staged[0] & staged[1], "the two streams stage in the same place"


# (INVERSE, LOOKAHEAD, INVERSE_KERNEL)
MODES = {"trsm": (False, False, True), "inverse": (True, False, True), "inverse_by_trsm": (True, False, False),
         "lookahead": (True, True, True), "lookahead_reversed": (True, True, True),
         "lookahead_trsm": (False, True, True)}


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("m,n,outer,leaf", [(50, 50, 16, 8), (61, 37, 16, 8), (37, 61, 16, 8), (48, 48, 16, 8),
                                            (45, 45, 24, 8), (100, 100, 64, 32)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_outer_blocked_getrf_matches_scipy(host_lu, rng, monkeypatch, m, n, outer, leaf, mode, dtype):
    """The outer-blocked LU (blocks of ``outer`` columns, inverses of ``leaf``-column diagonal
    blocks joined up to the block, or trsm with the inverses off; with the look-ahead, the next
    block factored "on another stream", its interchanges deferred, in either order against the
    update beyond it): ragged last blocks, tall and wide shapes, LAPACK's pivots; the last
    block's inverse is never formed."""
    inverse, lookahead, kernel = MODES[mode]
    monkeypatch.setattr(_lu_blocked, "INVERSE_KERNEL", kernel)
    monkeypatch.setattr(_lu_blocked, "OUTER", outer)
    monkeypatch.setattr(_lu_blocked, "INVERSE_LEAF", leaf)
    monkeypatch.setattr(_lu_blocked, "INVERSE", inverse)
    monkeypatch.setattr(_lu_blocked, "LOOKAHEAD", lookahead)
    monkeypatch.setattr(_lu, "register_block", lambda m, n, A: False)
    if mode == "lookahead_reversed":
        monkeypatch.setattr(_lu_kernels, "overlap", reversed_overlap)
    if leaf == 32:
        monkeypatch.setattr(_lu_blocked, "PANEL", 32)
    a = rand(rng, (m, n), dtype)
    lda = m + 2
    A = dev(buffer(a, lda))
    ipiv, info = dev(np.full(min(m, n), -7, np.int32)), dev(np.array([99], np.int32))
    rs.getrf(m, n, A, lda, ipiv, info)
    assert view(info)[0] == 0
    lu, piv = sl.lu_factor(a)
    np.testing.assert_array_equal(view(ipiv) - 1, piv)
    np.testing.assert_allclose(unpack(view(A), m, n, lda), lu, rtol=1e-9, atol=1e-9)
    assert np.isnan(view(A)[m:lda]).all()
    k, blocks = min(m, n), -(-min(m, n) // outer)
    solves = [c for c in host_lu if c[0] == "trsm"]
    if inverse:
        assert ("set_identities", outer, blocks) in host_lu
        # trsm only for the leaves' own panels (and the leaves' inverses without the kernel)
        assert all(c[5] <= leaf and c[6] <= leaf for c in solves)
        inverted = [c for c in host_lu if c[0] == "unit_lower_inverse"]
        assert bool(inverted) == kernel and all(c[1] <= leaf for c in inverted)
        widest = max(c[2] for c in host_lu if c[0] == "lacpy")
        first = min(outer, k)
        ahead = min(outer, k - first) if lookahead else 0
        # the first block's update of the columns beyond (with the look-ahead: beyond the next block)
        assert widest == max(n - first - ahead, ahead, outer // 2)
    else:
        assert not any(c[0] in ("lacpy", "set_identities") for c in host_lu)
    # the look-ahead factors every block but the first on the side, one overlap each
    assert sum(c[0] == "overlap" for c in host_lu) == (blocks - 1 if lookahead else 0)
    trailing = [c for c in host_lu if c[0] == "gemm" and c[3] == outer]
    assert len(trailing) >= blocks - 1 - (m < n and k % outer == 0)   # one gemm per block of depth outer


def factor_matches_lapack(rng, m, n):
    """getrf of a fresh float64 m x n matrix (leading dimension m) against SciPy's: the pivots
    equal, the factors within rounding."""
    a = rand(rng, (m, n), "float64")
    A = dev(buffer(a, m))
    ipiv, info = dev(np.zeros(min(m, n), np.int32)), dev(np.array([99], np.int32))
    rs.getrf(m, n, A, m, ipiv, info)
    lu, piv = sl.lu_factor(a)
    np.testing.assert_array_equal(view(ipiv) - 1, piv)
    np.testing.assert_allclose(unpack(view(A), m, n, m), lu, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("deferred", [True, False])
@pytest.mark.parametrize("order", ["in_order", "reversed"])
def test_lookahead_defers_interchanges_off_the_chain(host_lu, rng, monkeypatch, deferred, order):
    """With LASWP_DEFERRED a look-ahead block's interchanges (the first block's too) reach the
    next block's columns alone right after the join (one composed laswp of OUTER columns) and the
    other columns inside the next overlap's update; the last block's reach every other column at
    once. Either order of the two streams gives LAPACK's factors and pivots."""
    monkeypatch.setattr(_lu_blocked, "OUTER", 16)
    monkeypatch.setattr(_lu_blocked, "INVERSE_LEAF", 8)
    monkeypatch.setattr(_lu_blocked, "LOOKAHEAD", True)
    monkeypatch.setattr(_lu_blocked, "LASWP_DEFERRED", deferred)
    monkeypatch.setattr(_lu, "register_block", lambda m, n, A: False)
    if order == "reversed":
        monkeypatch.setattr(_lu_kernels, "overlap", reversed_overlap)
    factor_matches_lapack(rng, 70, 64)   # blocks at 0, 16, 32, 48
    swaps = [(c[1], c[2]) for c in host_lu if c[0] == "laswp_composed"]
    if deferred:   # blocks 0, 16 and 32: 16 columns ahead, then the rest in the next overlap; block 48 at once
        expected = [(16, 0), (32, 0), (16, 16), (32, 16), (16, 32), (32, 32), (48, 48)]
    else:
        expected = [(48, 16), (48, 32), (48, 48)]
    assert sorted(swaps) == sorted(expected)


@pytest.mark.parametrize("lookahead", [False, True])
def test_outer_blocked_getrf_stages_wide_matrices_in_chunks(host_lu, rng, monkeypatch, lookahead):
    """A wide matrix's solves staged ``STAGE_BYTES`` at a time: no copy wider than the chunk,
    the factors and pivots LAPACK's."""
    monkeypatch.setattr(_lu_blocked, "OUTER", 16)
    monkeypatch.setattr(_lu_blocked, "INVERSE_LEAF", 8)
    monkeypatch.setattr(_lu_blocked, "LOOKAHEAD", lookahead)
    monkeypatch.setattr(_lu_blocked, "STAGE_BYTES", 16 * 8 * 40)   # 40 float64 columns
    monkeypatch.setattr(_lu, "register_block", lambda m, n, A: False)
    factor_matches_lapack(rng, 35, 150)
    widths = [c[2] for c in host_lu if c[0] == "lacpy"]
    assert max(widths) == 40 and widths.count(40) >= 3


def test_outer_blocked_getrf_singular_info(host_lu, rng, monkeypatch):
    """info names the first zero pivot across outer blocks; the factorization completes."""
    monkeypatch.setattr(_lu_blocked, "OUTER", 16)
    monkeypatch.setattr(_lu_blocked, "INVERSE_LEAF", 8)
    monkeypatch.setattr(_lu, "register_block", lambda m, n, A: False)
    n = 40
    a = rand(rng, (n, n), "float64")
    a[:, 21] = 0.0
    a[:, 33] = 0.0
    A, ipiv, info = dev(buffer(a, n)), dev(np.zeros(n, np.int32)), dev(np.array([99], np.int32))
    rs.getrf(n, n, A, n, ipiv, info)
    assert view(info)[0] == 22
    ref = a.copy()
    piv, inf = lu_host.getf2_ref(ref)
    np.testing.assert_array_equal(view(ipiv), piv)


@pytest.mark.parametrize("blocked", [False, True])
def test_batched_getrf_strides(monkeypatch, rng, blocked):
    log = lu_host.install(monkeypatch)
    if blocked:
        monkeypatch.setattr(_lu_blocked, "PANEL", 4)
        monkeypatch.setattr(_lu, "SMALL_SINGLE", 0)
        monkeypatch.setattr(_lu, "SMALL_BATCHED", 0)
    m, n, batch, lda, sa, sp = 11, 9, 3, 13, 13 * 9 + 5, 12
    a = rand(rng, (batch, m, n), "complex128")
    A = dev(buffer(a, lda, sa))
    ipiv, info = dev(np.full(batch * sp, -7, np.int32)), dev(np.full(batch, 99, np.int32))
    rs.getrf_strided_batched(m, n, A, lda, sa, ipiv, sp, info, batch)
    for b in range(batch):
        lu, piv = sl.lu_factor(a[b])
        np.testing.assert_array_equal(view(ipiv)[b * sp:b * sp + n] - 1, piv)
        np.testing.assert_allclose(unpack(view(A), m, n, lda, b, sa), lu, atol=1e-10)
        assert (view(ipiv)[b * sp + n:(b + 1) * sp] == -7).all()
    assert (view(info) == 0).all()
    one_launch = [c for c in log if c[0] == "getf2" and c[-1] == batch]
    assert bool(one_launch) != blocked


@pytest.mark.parametrize("trans", ["N", "T", "C"])
@pytest.mark.parametrize("blocked,nrhs", [(False, 3), (True, 3), (True, 1)])
def test_getrs_solves_op_a(monkeypatch, rng, trans, blocked, nrhs):
    """getrs against NumPy; the blocked path solves one right-hand side with trsv, more with
    trsm."""
    log = lu_host.install(monkeypatch)
    if blocked:
        monkeypatch.setattr(_lu, "SMALL_SINGLE", 0)
        monkeypatch.setattr(_lu, "SMALL_BATCHED", 0)
        monkeypatch.setattr(_lu_blocked, "GETRS_TRSV_RHS", 1)
        monkeypatch.setattr(_lu, "WARP_MAX", 0)
    n, batch = 10, 2
    a = rand(rng, (batch, n, n), "complex128")
    b = rand(rng, (batch, n, nrhs), "complex128")
    lda, ldb = n + 1, n + 2
    A, B = dev(buffer(a, lda)), dev(buffer(b, ldb))
    ipiv, info = dev(np.zeros(batch * n, np.int32)), dev(np.zeros(batch, np.int32))
    rs.getrf_strided_batched(n, n, A, lda, lda * n, ipiv, n, info, batch)
    rs.getrs_strided_batched(trans, n, nrhs, A, lda, lda * n, ipiv, n, B, ldb, ldb * nrhs, batch)
    for k in range(batch):
        op = {"N": a[k], "T": a[k].T, "C": a[k].conj().T}[trans]
        np.testing.assert_allclose(unpack(view(B), n, nrhs, ldb, k, ldb * nrhs), np.linalg.solve(op, b[k]),
                                   rtol=1e-9, atol=1e-9)
    assert any(c[0] == "getrs_warp" for c in log) != blocked
    if blocked:
        solves = [c[:3] for c in log if c[0] in ("trsv", "trsm")]
        order = [("U", trans, "N"), ("L", trans, "U")] if trans != "N" else [("L", "N", "U"), ("U", "N", "N")]
        if nrhs == 1:
            assert solves == [("trsv",) + o[:2] for o in order] * batch
        else:
            assert solves == [("trsm", "L", o[0]) for o in order] * batch


def test_getri_inverts_and_leaves_singular_matrices_alone(monkeypatch, rng):
    lu_host.install(monkeypatch)
    monkeypatch.setattr(_lu, "SMALL_SINGLE", 0)
    n, batch = 7, 3
    a = rand(rng, (batch, n, n), "float64")
    a[1, :, 2] = 0.0
    A, ipiv, info = dev(buffer(a, n)), dev(np.zeros(batch * n, np.int32)), dev(np.zeros(batch, np.int32))
    rs.getrf_strided_batched(n, n, A, n, n * n, ipiv, n, info, batch)
    factored = view(A).copy()
    rs.getri_strided_batched(n, A, n, n * n, ipiv, n, info, batch)
    np.testing.assert_array_equal(view(info), [0, 3, 0])
    for b in (0, 2):
        np.testing.assert_allclose(unpack(view(A), n, n, n, b, n * n), np.linalg.inv(a[b]), rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(view(A)[n * n:2 * n * n], factored[n * n:2 * n * n])


@pytest.mark.parametrize("incx", [1, -1])
def test_laswp_applies_pivots_in_order(monkeypatch, rng, incx):
    lu_host.install(monkeypatch)
    m, n = 6, 4
    a = rand(rng, (m, n), "float32")
    A = dev(buffer(a, m))
    piv = np.array([3, 3, 6, 4, 5], np.int32)
    rs.laswp(n, A, m, 2, 4, dev(piv), incx)
    want = a.copy()
    for k in ([1, 2, 3] if incx == 1 else [3, 2, 1]):
        want[[k, piv[k] - 1]] = want[[piv[k] - 1, k]]
    np.testing.assert_array_equal(unpack(view(A), m, n, m), want)


# --------------------------------------------------------------------------------------------
# CPU: argument errors
# --------------------------------------------------------------------------------------------

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")


@needs_cupy
def test_argument_errors():
    A = fake((100,), "float64")
    ipiv, info = fake((10,), "int32"), fake((4,), "int32")
    with pytest.raises(ValueError, match=r"rocsolver.getrf: lda must be >= max\(1, 10\)"):
        rs.getrf(10, 10, A, 9, ipiv, info)
    with pytest.raises(ValueError, match="rocsolver.getrf: m must be >= 0"):
        rs.getrf(-1, 10, A, 10, ipiv, info)
    with pytest.raises(ValueError, match="must be < 2\\^31"):
        rs.getrf(2 ** 31, 1, A, 2 ** 31, ipiv, info)
    with pytest.raises(TypeError, match="ipiv must be an int32"):
        rs.getrf(10, 10, A, 10, fake((10,), "int64"), info)
    with pytest.raises(ValueError, match="ipiv needs 10"):
        rs.getrf(10, 10, A, 10, fake((9,), "int32"), info)
    with pytest.raises(TypeError, match="info must be an int32"):
        rs.getrf(10, 10, A, 10, ipiv, fake((1,), "float32"))
    with pytest.raises(ValueError, match="needs 110 elements of A"):
        rs.getrf(11, 10, fake((100,), "float64"), 11, fake((10,), "int32"), info)
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        rs.getrf(2, 2, fake((4,), "int32"), 2, ipiv, info)
    with pytest.raises(TypeError, match="float16 is not supported"):
        rs.getrf(2, 2, fake((4,), "float16"), 2, ipiv, info)
    with pytest.raises(TypeError, match="A"):
        rs.getrf(2, 2, np.zeros(4), 2, ipiv, info)
    with pytest.raises(ValueError, match="strideA must be >= 100"):
        rs.getrf_strided_batched(10, 10, A, 10, 99, ipiv, 10, info, 1)
    with pytest.raises(ValueError, match="info needs 5"):
        rs.getrf_strided_batched(2, 2, A, 2, 4, fake((20,), "int32"), 2, info, 5)
    with pytest.raises(ValueError, match="trans must be one of"):
        rs.getrs("X", 10, 1, A, 10, ipiv, fake((10,), "float64"), 10)
    with pytest.raises(TypeError, match="B must have the dtype of A"):
        rs.getrs("N", 10, 1, A, 10, ipiv, fake((10,), "float32"), 10)
    with pytest.raises(ValueError, match="needs 20 elements of B"):
        rs.getrs("N", 10, 2, A, 10, ipiv, fake((19,), "float64"), 10)
    with pytest.raises(ValueError, match="strideB must be >= 20"):
        rs.getrs_strided_batched("N", 10, 2, A, 10, 100, ipiv, 10, fake((40,), "float64"), 10, 19, 1)
    with pytest.raises(ValueError, match="incx must be 1 or -1"):
        rs.laswp(10, A, 10, 1, 2, ipiv, 2)
    with pytest.raises(ValueError, match="1 <= k1 <= k2"):
        rs.laswp(10, A, 10, 0, 2, ipiv, 1)
    with pytest.raises(ValueError, match="Fortran-ordered"):
        rs.getri(3, fake((3, 3), "float64"), 3, ipiv, info)


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

def _backward_error_lu(a, lu, ipiv):
    m, n = a.shape
    k = min(m, n)
    L = np.tril(lu[:, :k], -1) + np.eye(m, k)
    U = np.triu(lu[:k, :])
    pa = a.astype(np.complex128).copy()
    for i in range(k):
        p = ipiv[i] - 1
        pa[[i, p]] = pa[[p, i]]
    eps = np.finfo(a.dtype).eps
    return np.linalg.norm(L @ U - pa) / (max(np.linalg.norm(a), 1e-300) * max(m, n) * eps)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("m,n", [(1, 1), (2, 2), (3, 5), (31, 31), (64, 64), (65, 65), (97, 61), (61, 97),
                                 (129, 129), (300, 300), (521, 200)])
def test_getrf_backward_error(rng, dtype, m, n):
    a = rand(rng, (m, n), dtype)
    lda = m + 2
    A = cupy.asarray(buffer(a, lda))
    ipiv, info = cupy.full(min(m, n), -7, cupy.int32), cupy.full(1, 99, cupy.int32)
    rs.getrf(m, n, A, lda, ipiv, info)
    h = cupy.asnumpy(A)
    assert int(info[0]) == 0
    assert np.isnan(np.lib.stride_tricks.as_strided(h[m:], (2, n), (h.itemsize, lda * h.itemsize))).all()
    piv = cupy.asnumpy(ipiv)
    assert ((piv >= np.arange(1, min(m, n) + 1)) & (piv <= m)).all()
    assert _backward_error_lu(a, unpack(h, m, n, lda), piv) < 4


@pytest.mark.gpu
def test_getrf_large_uses_the_blocked_path(rng):
    n = 1100
    a = rand(rng, (n, n), "float64")
    A = cupy.asarray(a.T.reshape(-1))
    ipiv, info = cupy.zeros(n, cupy.int32), cupy.full(1, 99, cupy.int32)
    rs.getrf(n, n, A, n, ipiv, info)
    lu, piv = sl.lu_factor(a)
    assert int(info[0]) == 0
    assert (cupy.asnumpy(ipiv) - 1 == piv).mean() > 0.99   # near-ties may pick differently
    assert _backward_error_lu(a, unpack(cupy.asnumpy(A), n, n, n), cupy.asnumpy(ipiv)) < 8


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n", [5, 64, 200])
def test_getrf_singular_info_and_completion(rng, dtype, n):
    a = rand(rng, (n, n), dtype)
    a[:, 3] = 0
    A = cupy.asarray(a.T.reshape(-1))
    ipiv, info = cupy.zeros(n, cupy.int32), cupy.full(1, 99, cupy.int32)
    rs.getrf(n, n, A, n, ipiv, info)
    assert int(info[0]) == 4
    h = cupy.asnumpy(A)
    assert np.isfinite(h).all()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n,batch", [(1, 5), (7, 3), (32, 200), (128, 70), (130, 3), (200, 64)])
def test_batched_getrf_getrs(rng, dtype, n, batch):
    nrhs = 2
    a = rand(rng, (batch, n, n), dtype)
    b = rand(rng, (batch, n, nrhs), dtype)
    lda, sa, ldb, sb, sp = n + 1, (n + 1) * n + 3, n, n * nrhs + 1, n + 2
    A = cupy.asarray(buffer(a, lda, sa))
    B = cupy.asarray(buffer(b, ldb, sb))
    ipiv, info = cupy.full(batch * sp, -7, cupy.int32), cupy.full(batch, 99, cupy.int32)
    rs.getrf_strided_batched(n, n, A, lda, sa, ipiv, sp, info, batch)
    for trans in ("N", "C"):
        X = B.copy()
        rs.getrs_strided_batched(trans, n, nrhs, A, lda, sa, ipiv, sp, X, ldb, sb, batch)
        hx = cupy.asnumpy(X)
        eps = EPS[np.dtype(dtype)]
        for k in range(0, batch, max(1, batch // 7)):
            op = a[k] if trans == "N" else a[k].conj().T
            x = unpack(hx, n, nrhs, ldb, k, sb)
            r = np.linalg.norm(op.astype(np.complex128) @ x - b[k]) / (np.linalg.norm(op) * np.linalg.norm(x) * n * eps)
            assert r < 8, (k, r)
    assert (cupy.asnumpy(info) == 0).all()
    assert (cupy.asnumpy(ipiv).reshape(batch, sp)[:, n:] == -7).all()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n,nrhs", [(1, 1), (50, 3), (150, 1), (150, 170)])
@pytest.mark.parametrize("trans", ["N", "T", "C"])
def test_getrs_backward_error(rng, dtype, n, nrhs, trans):
    a = rand(rng, (n, n), dtype)
    b = rand(rng, (n, nrhs), dtype)
    A = cupy.asarray(a.T.reshape(-1))
    B = cupy.asarray(b.T.reshape(-1))
    ipiv, info = cupy.zeros(n, cupy.int32), cupy.zeros(1, cupy.int32)
    rs.getrf(n, n, A, n, ipiv, info)
    rs.getrs(trans, n, nrhs, A, n, ipiv, B, n)
    x = cupy.asnumpy(B).reshape(nrhs, n).T
    op = {"N": a, "T": a.T, "C": a.conj().T}[trans].astype(np.complex128)
    eps = EPS[np.dtype(dtype)]
    assert np.linalg.norm(op @ x - b) / (np.linalg.norm(op) * np.linalg.norm(x) * n * eps) < 8


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n", [1, 33, 140])
def test_getri(rng, dtype, n):
    a = rand(rng, (n, n), dtype) + 2 * n ** 0.5 * np.eye(n, dtype=dtype)
    A = cupy.asarray(a.T.reshape(-1))
    ipiv, info = cupy.zeros(n, cupy.int32), cupy.full(1, 99, cupy.int32)
    rs.getrf(n, n, A, n, ipiv, info)
    rs.getri(n, A, n, ipiv, info)
    assert int(info[0]) == 0
    inv = cupy.asnumpy(A).reshape(n, n).T
    eps = EPS[np.dtype(dtype)]
    assert np.linalg.norm(a.astype(np.complex128) @ inv - np.eye(n)) / (np.linalg.cond(a) * n * eps) < 8


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_laswp_gpu(rng, dtype):
    m, n = 9, 300
    a = rand(rng, (m, n), dtype)
    A = cupy.asarray(a.T.reshape(-1))
    piv = np.array([4, 2, 9, 4, 7, 6], np.int32)
    rs.laswp(n, A, m, 1, 6, cupy.asarray(piv), -1)
    want = a.copy()
    for k in range(5, -1, -1):
        want[[k, piv[k] - 1]] = want[[piv[k] - 1, k]]
    np.testing.assert_array_equal(cupy.asnumpy(A).reshape(n, m).T, want)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n", [1, 7, 16, 31, 32, 33])
def test_small_batched_getrf_warp_pivots_and_backward_error(rng, dtype, n):
    batch = 1001
    a = rand(rng, (batch, n, n), dtype)
    a[5][:, min(2, n - 1)] = 0
    lda, sa, sp = n + 1, (n + 1) * n + 3, n + 2
    A = cupy.asarray(buffer(a, lda, sa))
    ipiv, info = cupy.full(batch * sp, -7, cupy.int32), cupy.full(batch, 99, cupy.int32)
    rs.getrf_strided_batched(n, n, A, lda, sa, ipiv, sp, info, batch)
    h, p, inf = cupy.asnumpy(A), cupy.asnumpy(ipiv).reshape(batch, sp), cupy.asnumpy(info)
    assert inf[5] == min(3, n) and (np.delete(inf, 5) == 0).all()
    assert (p[:, n:] == -7).all()
    for k in range(0, batch, 97):
        lu = unpack(h, n, n, lda, k, sa)
        assert _backward_error_lu(a[k], lu, p[k, :n]) < 4
        if k != 5:
            _, piv = sl.lu_factor(a[k].astype(np.complex128 if a.dtype.kind == "c" else np.float64))
            assert (p[k, :n] - 1 == piv).mean() > 0.9   # near-ties may pick differently in single precision


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n", [8, 17, 32])
def test_gesv_warp_flat_matches_gesv_warp_gpu(rng, monkeypatch, dtype, n):
    """The flat kernel's warp-wide rank reductions (REDUX on sm_80+, a path the CPU emulator never
    takes) and 16-byte loads pick gesv_warp's pivots: X and info bit for bit on matrices full of
    ties, with a NaN and a zero column."""
    batch = 999
    a = rng.integers(-3, 4, size=(batch, n, n)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = (a + 1j * rng.integers(-2, 3, size=(batch, n, n))).astype(dtype)
    a[1][n // 2, 0] = np.nan
    a[2][:, n - 2] = 0
    b = rand(rng, (batch, n, 2), dtype)
    got = {}
    for flat in (True, False):
        monkeypatch.setattr(_lu_kernels, "GESV_WARP_FLAT", flat)
        X = cupy.full((batch, n, 2), np.nan, dtype)
        info = cupy.full(batch, 99, cupy.int32)
        rs.gesv_small_batched(cupy.asarray(a), cupy.asarray(b), X, info)
        got[flat] = cupy.asnumpy(X), cupy.asnumpy(info)
    np.testing.assert_array_equal(got[True][1], got[False][1])
    assert got[True][1][2] > 0
    np.testing.assert_array_equal(got[True][0], got[False][0])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n,k", [(1, 1), (8, 3), (17, 1), (32, 2)])
def test_gesv_small_batched_gpu(rng, dtype, n, k):
    batch = 999
    a, b = rand(rng, (batch, n, n), dtype), rand(rng, (batch, n, k), dtype)
    A, B = cupy.asarray(a), cupy.asarray(b)
    X = cupy.full((batch, n, k), np.nan, dtype)
    info = cupy.full(batch, 99, cupy.int32)
    rs.gesv_small_batched(A, B, X, info)
    assert (cupy.asnumpy(info) == 0).all()
    x = cupy.asnumpy(X)
    eps = EPS[np.dtype(dtype)]
    r = np.linalg.norm(a.astype(np.complex128) @ x - b, axis=(1, 2)) / (
        np.linalg.norm(a, axis=(1, 2)) * np.linalg.norm(x, axis=(1, 2)) * n * eps)
    assert r.max() < 8
    rs.gesv_small_batched(cupy.asarray(np.asfortranarray(a)), B, B, info)   # F-ordered A, in place
    np.testing.assert_allclose(cupy.asnumpy(B), x, rtol=0, atol=0)
