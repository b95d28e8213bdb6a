"""The warp-per-matrix LU kernels (``rocarray/_kernels/rocsolver/lu_warp.hip``) run on the CPU
through the kernel emulator (tests/kernel_emu.py), on the 32-lane (NVIDIA-like) and the 64-lane
(AMD wavefront) targets, through :func:`rocsolver.getrf_strided_batched`,
``getrs_strided_batched`` ('N', 'T', 'C') and :func:`rocsolver.gesv_small_batched`, against a float64/complex128 getf2 with LAPACK's pivot
rule written here (first row of largest ``|re| + |im|``, a NaN never chosen, a column of NaNs
keeping its row) and against NumPy's solve: pivots equal, factors and solutions within
dtype-fit tolerances, ``info`` of singular matrices, NaN inputs, poisoned outputs (NaN, ipiv -7,
info 99) and padding that must stay untouched, batches that leave groups and blocks part empty.
Launch routing (which kernel runs for which order) is checked on launchfake's recording device.
CPU tests: skipped where g++ is missing.
"""

import numpy as np
import pytest

from conftest import random_array as rand
from kernel_emu import emulated_device, emulated_wave64_device, emulated_either_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture the emulated devices build on)
from lu_host import getf2_rule, wide

import rocarray.rocsolver as rs
from rocarray._core import compile as _compile
from rocarray.rocsolver import _lu, _lu_block, _lu_kernels

SEED = 20261205
ALL = ["float32", "float64", "complex64", "complex128"]


@pytest.fixture
def device(emulated_either_device):
    return emulated_either_device


def tol(dtype, n):
    return 40 * max(n, 1) * np.finfo(np.dtype(dtype)).eps


def buffer(stack, lda, stride):
    """Column-major buffer of the (batch, n, n) stack, NaN outside the matrices."""
    batch, n = stack.shape[:2]
    buf = np.full((batch - 1) * stride + lda * n + 3, np.nan, stack.dtype)
    for b in range(batch):
        for j in range(n):
            buf[b * stride + j * lda:b * stride + j * lda + n] = stack[b][:, j]
    return buf


def matrix(buf, n, lda, b, stride):
    return np.lib.stride_tricks.as_strided(buf[b * stride:], (n, n), (buf.itemsize, lda * buf.itemsize)).copy()


def check_factors(got, piv, info, a, dtype):
    lu, want_piv, want_info = getf2_rule(a)
    n = a.shape[0]
    np.testing.assert_array_equal(piv, want_piv)
    assert info == want_info
    np.testing.assert_array_equal(np.isnan(got), np.isnan(lu))
    t = tol(dtype, n)
    finite = ~np.isnan(lu)
    np.testing.assert_allclose(got[finite], lu[finite], rtol=t, atol=t * max(1.0, np.abs(lu[finite]).max(initial=0)))


# (dtype, n): every dtype in two order classes, n = 1, 2, 3, 7, 16, 31, 32 among them
GETRF_CASES = [("float32", 1), ("float32", 3), ("float32", 32), ("float64", 2), ("float64", 31),
               ("complex64", 7), ("complex64", 16), ("complex128", 3), ("complex128", 32)]


@pytest.mark.parametrize("dtype,n", GETRF_CASES)
def test_getrf_warp_matches_getf2(device, dtype, n):
    rng = np.random.default_rng(SEED + n)
    batch = 1 if n in (2, 16) else 5   # 5: the last group of lanes or the last block is part empty
    a = rand(rng, (batch, n, n), dtype)
    singular = n > 4 and batch > 1
    if singular:
        a[1][:, 3] = 0                      # info 4, the column left unscaled
        a[2][4, 0] = np.nan                 # a NaN never becomes the pivot
    lda, stride, sp = n + 2, (n + 2) * n + 5, n + 3
    A = device.array(buffer(a, lda, stride))
    ipiv = device.array(np.full(batch * sp, -7, np.int32))
    info = device.array(np.full(batch, 99, np.int32))
    rs.getrf_strided_batched(n, n, A, lda, stride, ipiv, sp, info, batch)
    assert device.names()[-1] == _lu_kernels.warp_kernel_name("getrf_warp", dtype, _lu_kernels.warp_order(n))
    h, p, inf = np.asarray(A), np.asarray(ipiv).reshape(batch, sp), np.asarray(info)
    for b in range(batch):
        check_factors(matrix(h, n, lda, b, stride), p[b, :n], inf[b], a[b], dtype)
    assert (p[:, n:] == -7).all()
    assert not singular or inf[1] == 4
    mask = np.ones(h.size, bool)
    for b in range(batch):
        for j in range(n):
            mask[b * stride + j * lda:b * stride + j * lda + n] = False
    assert np.isnan(h[mask]).all()          # leading-dimension rows and gaps untouched


def test_getrf_warp_nan_column_and_ties(device):
    """A column of NaNs keeps the row at its position; equal magnitudes go to the lower row."""
    n = 6
    a = np.array(np.arange(1, n * n + 1).reshape(n, n) % 7 + 1, np.float64)
    t = a.copy()
    t[:, 0] = [1, -3, 2, 3, -3, 0]           # ties: rows 1, 3 and 4 (|3|): row 1
    t[2, 1] = 40
    z = a.copy()
    z[:, 2] = np.nan
    z[:, 0] = 0                               # zero pivot first: info 1, then NaNs
    stack = np.stack([t, z])
    A = device.array(buffer(stack, n, n * n))
    ipiv = device.array(np.full(2 * n, -7, np.int32))
    info = device.array(np.full(2, 99, np.int32))
    rs.getrf_strided_batched(n, n, A, n, n * n, ipiv, n, info, 2)
    for b in range(2):
        check_factors(matrix(np.asarray(A), n, n, b, n * n), np.asarray(ipiv)[b * n:(b + 1) * n],
                      np.asarray(info)[b], stack[b], "float64")
    assert np.asarray(ipiv)[0] == 2 and np.asarray(info)[1] == 1


GESV_CASES = [("float32", 3, 1), ("float32", 32, 2), ("float64", 16, 3), ("complex64", 7, 1),
              ("complex128", 31, 2)]


@pytest.mark.parametrize("dtype,n,k", GESV_CASES)
def test_gesv_small_batched_matches_numpy(device, dtype, n, k):
    rng = np.random.default_rng(SEED + 7 * n + k)
    batch = 5
    a = rand(rng, (batch, n, n), dtype)
    b = rand(rng, (batch, n, k), dtype)
    a[3][:, n - 1] = 0                       # info n
    A = device.array(a)                      # C-ordered, as the façade passes it
    B = device.array(b)
    X = device.array(np.full((batch, n, k), np.nan, dtype))
    info = device.array(np.full(batch, 99, np.int32))
    rs.gesv_small_batched(A, B, X, info)
    assert device.names()[-1] == _lu_kernels.warp_kernel_name("gesv_warp_flat", dtype, _lu_kernels.warp_order(n))
    np.testing.assert_array_equal(np.asarray(info), [0, 0, 0, n, 0])
    np.testing.assert_array_equal(np.asarray(A), a)      # A is only read
    x = np.asarray(X)
    for i in (0, 1, 2, 4):
        want = np.linalg.solve(a[i].astype(wide(dtype)), b[i].astype(wide(dtype)))
        t = tol(dtype, n) * np.linalg.cond(a[i].astype(wide(dtype)))
        np.testing.assert_allclose(x[i], want, rtol=t, atol=t * np.abs(want).max())


# (dtype, n): one matrix per warp (rank reductions on 32 lanes) with n = N and n < N, and groups
# of 8 lanes whose last warp is part empty (16-byte loads, then the element-wise tail)
FLAT_CASES = [("float32", 32), ("float64", 31), ("complex64", 32), ("float32", 8)]


@pytest.mark.parametrize("dtype,n", FLAT_CASES)
def test_gesv_warp_flat_matches_gesv_warp_bit_for_bit(device, monkeypatch, dtype, n):
    """The flat kernel takes the same pivots and arithmetic as the way back: on matrices full of
    ties (small integers), a NaN, a zero column and an exactly singular one, X and info agree
    bit for bit."""
    rng = np.random.default_rng(SEED + 11 * n)
    batch = 5
    a = rng.integers(-3, 4, size=(batch, n, n)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = (a + 1j * rng.integers(-2, 3, size=(batch, n, n))).astype(dtype)
    a[1][n // 2, 0] = np.nan
    a[2][:, n - 2] = 0
    a[3][1] = a[3][0]
    b = rand(rng, (batch, n, 2), dtype)
    got = {}
    for flat in (True, False):
        monkeypatch.setattr(_lu_kernels, "GESV_WARP_FLAT", flat)
        X = device.array(np.full((batch, n, 2), 7, dtype))
        info = device.array(np.full(batch, 99, np.int32))
        rs.gesv_small_batched(device.array(a), device.array(b), X, info)
        assert device.names()[-1].startswith("ra_rocsolver_gesv_warp" + ("_flat<" if flat else "<"))
        got[flat] = np.asarray(X).copy(), np.asarray(info).copy()
    np.testing.assert_array_equal(got[True][1], got[False][1])
    assert got[True][1][2] == n - 1 and got[True][1][3] > 0
    np.testing.assert_array_equal(got[True][0], got[False][0])
    assert np.isnan(got[True][0][1]).any()


def test_gesv_small_batched_strides_broadcast_and_in_place(device):
    rng = np.random.default_rng(SEED)
    n, k, batch = 7, 3, 4
    big = rand(rng, (2 * batch, n, 2 * n), "float64")
    a = big[::2, :, ::2]                     # non-contiguous: every stride odd
    fa = np.asfortranarray(rand(rng, (batch, n, n), "float64"))
    one = rand(rng, (n, n), "float64")
    b = rand(rng, (batch, n, k), "float64")
    for A_host, A_dev in ((a, device.array(big)[::2, :, ::2]), (fa, device.array(fa)),
                          (np.broadcast_to(one, (batch, n, n)), device.cupy.broadcast_to(device.array(one), (batch, n, n)))):
        B = device.array(b)
        info = device.array(np.full(batch, 99, np.int32))
        rs.gesv_small_batched(A_dev, B, B, info)          # X is B: in place
        assert (np.asarray(info) == 0).all()
        np.testing.assert_allclose(np.asarray(B), np.linalg.solve(A_host, b), rtol=1e-10, atol=1e-10)
    Bt = device.array(np.ascontiguousarray(b.transpose(0, 2, 1))).transpose(0, 2, 1)   # F-ordered B
    X = device.array(np.full((batch, n, k), np.nan))[:, :, :]
    rs.gesv_small_batched(device.array(a), Bt, X, device.array(np.zeros(batch, np.int32)))
    np.testing.assert_allclose(np.asarray(X), np.linalg.solve(a, b), rtol=1e-10, atol=1e-10)


GETRS_CASES = [("float32", 7, 3), ("float64", 32, 1), ("complex64", 16, 2), ("complex128", 31, 2)]


@pytest.mark.parametrize("dtype,n,k", GETRS_CASES)
def test_getrs_warp_solves_op_a(device, dtype, n, k):
    rng = np.random.default_rng(SEED + 3 * n + k)
    batch = 3
    a = rand(rng, (batch, n, n), dtype)
    b = rand(rng, (batch, n, k), dtype)
    lda, sa, sp, ldb, sb = n + 1, (n + 1) * n + 2, n + 1, n + 2, (n + 2) * k + 3
    A = device.array(buffer(a, lda, sa))
    ipiv, info = device.array(np.zeros(batch * sp, np.int32)), device.array(np.zeros(batch, np.int32))
    rs.getrf_strided_batched(n, n, A, lda, sa, ipiv, sp, info, batch)
    factored = np.asarray(A).copy()
    for trans in ("N", "T", "C"):
        hb = np.full((batch - 1) * sb + ldb * k + 3, np.nan, b.dtype)
        for i in range(batch):
            for c in range(k):
                hb[i * sb + c * ldb:i * sb + c * ldb + n] = b[i][:, c]
        B = device.array(hb)
        rs.getrs_strided_batched(trans, n, k, A, lda, sa, ipiv, sp, B, ldb, sb, batch)
        assert device.names()[-1] == _lu_kernels.warp_kernel_name("getrs_warp", dtype, _lu_kernels.warp_order(n))
        x = np.asarray(B)
        for i in range(batch):
            ai = a[i].astype(wide(dtype))
            op = {"N": ai, "T": ai.T, "C": ai.conj().T}[trans]
            want = np.linalg.solve(op, b[i].astype(wide(dtype)))
            got = np.lib.stride_tricks.as_strided(x[i * sb:], (n, k), (x.itemsize, ldb * x.itemsize))
            t = tol(dtype, n) * np.linalg.cond(ai)
            np.testing.assert_allclose(got, want, rtol=t, atol=t * np.abs(want).max())
        mask = np.ones(x.size, bool)
        for i in range(batch):
            for c in range(k):
                mask[i * sb + c * ldb:i * sb + c * ldb + n] = False
        assert np.isnan(x[mask]).all()       # leading-dimension rows and gaps untouched
    np.testing.assert_array_equal(np.asarray(A), factored)   # the factors are only read


def test_gesv_small_batched_argument_errors(emulated_device):
    dev = emulated_device
    a, b, info = dev.array(np.eye(3)[None]), dev.array(np.ones((1, 3, 1))), dev.array(np.zeros(1, np.int32))
    for n, k in ((129, 1), (33, 17)):   # past the register tile's orders, or its right-hand sides
        assert not rs.gesv_small_supported(n, k, np.float64, 0)
        with pytest.raises(ValueError, match="not taken"):
            rs.gesv_small_batched(dev.array(np.zeros((1, n, n))), dev.array(np.ones((1, n, k))),
                                  dev.array(np.ones((1, n, k))), info)
    assert rs.gesv_small_supported(32, 100, np.float64, 0) and rs.gesv_small_supported(33, 16, np.float64, 0)
    with pytest.raises(ValueError, match="3-D"):
        rs.gesv_small_batched(dev.array(np.eye(3)), b, b, info)
    with pytest.raises(ValueError, match="alike"):
        rs.gesv_small_batched(a, b, dev.array(np.ones((1, 3, 2))), info)
    with pytest.raises(TypeError, match="dtype of A"):
        rs.gesv_small_batched(a, dev.array(np.ones((1, 3, 1), np.float32)), b, info)
    with pytest.raises(TypeError):
        rs.gesv_small_batched(dev.array(np.eye(3, dtype=np.int32)[None]), b, b, info)


# --------------------------------------------------------------------------------------------
# routing (launchfake: recorded, not run)
# --------------------------------------------------------------------------------------------

def test_warp_kernels_are_registered():
    names = _compile.registered(_lu_kernels.WARP_SOURCE)
    assert set(names) == set(_lu_kernels.warp_instantiations()) and len(names) == 48
    assert "ra_rocsolver_gesv_warp<float, 32>" in names and "ra_rocsolver_getrf_warp<ra_c128, 8>" in names
    assert [_lu_kernels.warp_order(n) for n in (1, 8, 9, 16, 17, 32, 33)] == [8, 8, 16, 16, 32, 32, None]
    assert _lu.WARP_MAX == rs.GESV_SMALL_MAX == 32


def test_warp_geometry_fits_the_shared_budget(fake_device):
    for dtype in ALL:
        for order in _lu_kernels.WARP_ORDERS:
            for batch in (1, 5, 100000):
                grid, block, shared = _lu_kernels.warp_geometry(order, dtype, batch, None)
                per_block = block // 32 * (32 // order)
                assert block % 32 == 0 and 32 <= block <= 128 and shared <= 48 * 1024 + 16
                assert grid * per_block >= batch > (grid - 1) * per_block


@pytest.mark.parametrize("n,getrf,getrs", [(1, "getrf_warp<double, 8>", "getrs_warp<double, 8>"),
                                           (32, "getrf_warp<double, 32>", "getrs_warp<double, 32>"),
                                           (33, "block", "getrs_small<double, false>")])
def test_getrf_and_getrs_route_by_order(fake_device, monkeypatch, n, getrf, getrs):
    monkeypatch.setattr(_lu_kernels, "clear_info", lambda info, batch: None)   # a CuPy fill: no kernel here
    A, B = fake_device.array((n * n * 3,), "float64"), fake_device.array((n * 3,), "float64")
    ipiv, info = fake_device.array((n * 3,), "int32"), fake_device.array((3,), "int32")
    rs.getrf_strided_batched(n, n, A, n, n * n, ipiv, n, info, 3)
    # "block": the register-tile kernel that _lu_block.ONE_BARRIER selects
    want = _lu_block.kernel_name("float64", 4, False) if getrf == "block" else "ra_rocsolver_" + getrf
    assert fake_device.names()[-1] == want
    rs.getrs_strided_batched("T", n, 1, A, n, n * n, ipiv, n, B, n, n, 3)
    assert fake_device.names()[-1] == "ra_rocsolver_" + getrs


def test_getrf_non_square_small_keeps_getf2(fake_device, monkeypatch):
    monkeypatch.setattr(_lu_kernels, "clear_info", lambda info, batch: None)
    A = fake_device.array((5 * 4,), "float32")
    ipiv, info = fake_device.array((4,), "int32"), fake_device.array((1,), "int32")
    rs.getrf_strided_batched(5, 4, A, 5, 20, ipiv, 4, info, 1)
    assert fake_device.names()[-1].startswith("ra_rocsolver_getf2<float")
