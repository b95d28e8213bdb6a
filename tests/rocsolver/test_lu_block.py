"""The register-tile LU of mid-size matrices (``rocsolver/lu_block.hip``, ``_lu_block``).

CPU tests run the real kernels on the kernel emulator (tests/kernel_emu.py), 32-lane (NVIDIA-like)
and 64-lane (AMD wavefront) targets, through the library's routes: ``getrf_strided_batched``
against ``scipy.linalg.lu_factor`` (pivots exactly, factors to dtype-fit tolerances), zero pivots
and their ``info``, NaN columns, outputs poisoned before the launch; and ``ra.linalg.solve`` (the
fused factor + solve launch reading C-, F-ordered, strided and broadcast stacks in place) against
NumPy; the panel kernel against the register tile, and the register tile's one-barrier step
against its two-barrier step, bit for bit. The emulator is given sm_90's opt-in shared memory (the
launch layer's profile reports the 48 KB default), and runs one OS thread per GPU thread, so sizes
and batches are small and the instantiations few. Routing tests record launches with
``launchfake`` (nothing runs). GPU tests (marked gpu) check backward errors on fresh random data.
"""

import numpy as np
import pytest
import scipy.linalg as sl

from conftest import random_array as rand
from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture the emulator builds on)

import rocarray.linalg as la
import rocarray.rocsolver as rs
from rocarray._core import backend, compile as _compile
from rocarray.rocsolver import _lu_block, _lu_kernels

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

ALL = ["float32", "float64", "complex64", "complex128"]
#: sm_90's opt-in shared memory per block (the emulator's limit too)
SM90_SHARED = 232448


def tol(dtype, n):
    return 20 * n * np.finfo(np.dtype(dtype)).eps


@pytest.fixture(params=[("cuda32", False), ("cuda32", True), ("hip64", False), ("hip64", True)],
                ids=["cuda32", "cuda32-panel", "hip64", "hip64-panel"])
def emu(request, monkeypatch):
    target, panel = request.param
    dev = request.getfixturevalue("emulated_device" if target == "cuda32" else "emulated_wave64_device")
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    monkeypatch.setattr(_lu_block, "PANEL", panel)
    dev.target = target
    return dev


def col_major(dev, a, lda, stride, fill=np.nan):
    """A flat device buffer holding the (batch, n, n) stack column-major, spare entries ``fill``."""
    batch, m, n = a.shape
    buf = np.full((batch - 1) * stride + lda * n + 3, fill, a.dtype)
    for b in range(batch):
        for j in range(n):
            buf[b * stride + j * lda:b * stride + j * lda + m] = a[b, :, j]
    return dev.array(buf)


def factor(dev, a, lda=None, stride=None):
    """getrf_strided_batched of the stack ``a`` on the emulator: (buffer, ipiv, info, lda, stride)."""
    batch, n, _ = a.shape
    lda = lda or n + 2
    stride = stride or lda * n + 5
    A = col_major(dev, a, lda, stride)
    ipiv, info = dev.array(np.full(batch * (n + 1), -7, np.int32)), dev.array(np.full(batch, 99, np.int32))
    rs.getrf_strided_batched(n, n, A, lda, stride, ipiv, n + 1, info, batch)
    return np.asarray(A), np.asarray(ipiv).reshape(batch, n + 1), np.asarray(info), lda, stride


def unpack(buf, n, lda, b, stride):
    return np.lib.stride_tricks.as_strided(buf[b * stride:], (n, n), (buf.itemsize, lda * buf.itemsize)).copy()


def route(dev):
    return [name for name in dev.names() if "getrf_block" in name or "getrf_panel" in name]


def named(kernel):
    """A routing test's expected (part of a) kernel name, its ``getrf_block<`` read as the
    register-tile kernel that :data:`_lu_block.ONE_BARRIER` selects."""
    return kernel if _lu_block.ONE_BARRIER else kernel.replace("getrf_block<", "getrf_block_2sync<")


def kernel(dtype, n, solve, nrhs=None):
    """The kernel the routes should take for order n with nrhs right-hand sides (with PANEL on,
    the panel kernel from PANEL_LOWEST; with SPLIT on, the split kernel for its orders and dtypes;
    with WIDE on, the wide kernel for its orders and dtypes on 32-lane devices)."""
    if _lu_block.PANEL and _lu_block.PANEL_LOWEST <= n <= _lu_block.PANEL_ORDER:
        return _lu_block.panel_kernel_name(dtype, solve)
    nrhs = (1 if solve else 0) if nrhs is None else nrhs
    if _lu_block._split(n, nrhs, dtype, 0):
        return _lu_block.split_kernel_name(dtype, solve)
    if _lu_block._wide(n, nrhs, dtype, 0):
        return _lu_block.wide_kernel_name(dtype, solve)
    return _lu_block.kernel_name(dtype, _lu_block.tile(n, dtype), solve)


# --------------------------------------------------------------------------------------------
# CPU: the kernels on the emulator
# --------------------------------------------------------------------------------------------

FACTOR_CASES = {
    "cuda32": [("float64", 33, 3), ("float64", 128, 1), ("float32", 65, 1), ("complex64", 97, 1),
               ("complex128", 96, 1)],
    "hip64": [("float64", 64, 1), ("complex128", 65, 1)],
}


@pytest.mark.parametrize("case", range(5))
def test_getrf_matches_scipy(emu, rng, case):
    cases = FACTOR_CASES[emu.target]
    if case >= len(cases):
        pytest.skip("no further case for this target")
    dtype, n, batch = cases[case]
    a = rand(rng, (batch, n, n), dtype)
    A, ipiv, info, lda, stride = factor(emu, a)
    assert route(emu) == [kernel(dtype, n, False)]
    assert (info == 0).all()
    for b in range(batch):
        lu, piv = sl.lu_factor(a[b].astype(np.complex128 if a.dtype.kind == "c" else np.float64))
        np.testing.assert_array_equal(ipiv[b, :n] - 1, piv)
        assert ipiv[b, n] == -7
        got = unpack(A, n, lda, b, stride)
        np.testing.assert_allclose(got, lu, rtol=tol(dtype, n), atol=tol(dtype, n) * np.abs(lu).max())
        spare = np.lib.stride_tricks.as_strided(A[b * stride + n:], (lda - n, n), (A.itemsize, lda * A.itemsize))
        assert np.isnan(spare).all()


@pytest.mark.parametrize("n,dtype", [(1, "float64"), (2, "float64"), (3, "complex128"), (7, "complex128"),
                                     (31, "float64")])
def test_small_orders_through_the_kernel(emulated_device, rng, n, dtype):
    # orders below the route's range still run correctly in the smallest tile
    a = rand(rng, (2, n, n), dtype)
    A = col_major(emulated_device, a, n, n * n)
    ipiv, info = emulated_device.array(np.full(2 * n, -7, np.int32)), emulated_device.array(np.full(2, 99, np.int32))
    _lu_block.getrf(n, A, n, n * n, ipiv, n, info, 2)
    assert (np.asarray(info) == 0).all()
    for b in range(2):
        lu, piv = sl.lu_factor(a[b])
        np.testing.assert_array_equal(np.asarray(ipiv)[b * n:(b + 1) * n] - 1, piv)
        np.testing.assert_allclose(unpack(np.asarray(A), n, n, b, n * n), lu, rtol=1e-12, atol=1e-12)


def test_zero_pivots_report_the_first_and_complete(emulated_device, monkeypatch, rng):
    import lu_host

    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    emu = emulated_device
    n = 41
    a = rand(rng, (2, n, n), "float64")
    a[0, :, 5] = 0.0
    a[0, :, 30] = 0.0
    a[1, 17, :] = 0.0
    A, ipiv, info, lda, stride = factor(emu, a)
    for b, want in ((0, 6), (1, None)):
        ref = a[b].copy()
        piv, inf = lu_host.getf2_ref(ref)
        assert info[b] == inf and (want is None or inf == want)
        np.testing.assert_array_equal(ipiv[b, :n], piv)
        np.testing.assert_allclose(unpack(A, n, lda, b, stride), ref, rtol=1e-11, atol=1e-11)
    assert info[1] > 0


def test_nan_never_wins_a_pivot(emulated_device, monkeypatch, rng):
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    n = 37
    a = rand(rng, (2, n, n), "float64")
    a[0, 0, 0] = np.nan          # column 0: the largest finite entry wins
    a[1, :, 0] = np.nan          # only NaN: row 0 stays
    A, ipiv, info, lda, stride = factor(emulated_device, a)
    assert ipiv[0, 0] - 1 == 1 + np.argmax(np.abs(a[0, 1:, 0]))
    assert ipiv[1, 0] == 1
    assert (info == 0).all()


def test_tiny_pivots_divide(emulated_device, monkeypatch, rng):
    # a pivot below the safe minimum divides its column (its reciprocal would overflow)
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    n = 34
    a = rand(rng, (1, n, n), "float64")
    a[0, :, 0] *= 1e-310
    import lu_host

    A, ipiv, info, lda, stride = factor(emulated_device, a)
    lu = a[0].copy()
    piv, _ = lu_host.getf2_ref(lu)   # the reference getf2 divides (OpenBLAS's getrf differs here)
    got = unpack(A, n, lda, 0, stride)
    assert info[0] == 0 and np.isfinite(got).all()
    np.testing.assert_array_equal(ipiv[0, :n], piv)
    np.testing.assert_array_equal(got[:, 0], lu[:, 0])   # divided: the same quotients, bit for bit
    np.testing.assert_allclose(got, lu, rtol=1e-12, atol=1e-12 * np.abs(lu).max())


def tricky_stack(rng, n, dtype):
    """Matrices that exercise every pivot rule: small integers (ties everywhere), zero columns
    (zero pivots inside a panel and at the last step), a NaN, a zero row (singular), and a
    column far below the safe minimum's reciprocal range (pivots that divide)."""
    def ints(shape):
        x = rng.integers(-3, 4, shape).astype(dtype)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.integers(-3, 4, shape)
        return x.astype(dtype)
    a = ints((5, n, n))
    a[1, :, min(3, n - 1)] = 0
    a[1, :, n - 1] = 0
    a[2, n // 2, min(1, n - 1)] = np.nan
    a[3, n // 3, :] = 0
    tiny = 1e-310 if np.dtype(dtype) in (np.float64, np.complex128) else 1e-38
    a[4, :, 0] *= tiny
    return a


def same_bits(x, y):
    """x and y hold the same bits, except that a NaN may be any NaN (its sign and payload depend
    on how a compiler ordered the operations that made it)."""
    x, y = np.ascontiguousarray(x), np.ascontiguousarray(y)
    real = x.view(x.real.dtype) if x.dtype.kind == "c" else x
    other = y.view(y.real.dtype) if y.dtype.kind == "c" else y
    nan = np.isnan(real)
    if not (nan == np.isnan(other)).all():
        return False
    ints = {4: np.uint32, 8: np.uint64}[real.itemsize]
    return bool((real.view(ints)[~nan] == other.view(ints)[~nan]).all())


PANEL_BITS = {
    "cuda32": [("float64", 17), ("float32", 24), ("complex64", 13), ("complex128", 11), ("float64", 70)],
    "hip64": [("float64", 9), ("complex128", 21)],
}


@pytest.mark.parametrize("case", range(5))
def test_panel_kernel_matches_the_register_tile_bit_for_bit(emu, monkeypatch, rng, case):
    # the panel kernel (every order here, several panels, a short last one) against the
    # register-tile kernel: the same factors, pivots, info and solutions, bit for bit; the odd
    # cases take the register tile's one-barrier step, the even ones its two-barrier step
    cases = PANEL_BITS[emu.target]
    if case >= len(cases):
        pytest.skip("no further case for this target")
    dtype, n = cases[case]
    monkeypatch.setattr(_lu_block, "PANEL_LOWEST", 1)
    monkeypatch.setattr(_lu_block, "ONE_BARRIER", case % 2 == 1)
    a = tricky_stack(rng, n, dtype)
    b = tricky_stack(rng, n, dtype)[:, :, :3]
    got = {}
    for panel in (True, False):
        monkeypatch.setattr(_lu_block, "PANEL", panel)
        lda, stride = n + 2, (n + 2) * n + 5
        A = col_major(emu, a, lda, stride)
        ipiv = emu.array(np.full(len(a) * (n + 1), -7, np.int32))
        info = emu.array(np.full(len(a), 99, np.int32))
        _lu_block.getrf(n, A, lda, stride, ipiv, n + 1, info, len(a))
        A, ipiv, info = np.asarray(A), np.asarray(ipiv), np.asarray(info)
        cp = emu.cupy
        X, xinfo = cp.asarray(np.full(b.shape, np.nan, dtype)), cp.asarray(np.full(len(a), 99, np.int32))
        _lu_block.gesv(cp.asarray(a), cp.asarray(b), X, xinfo)
        got[panel] = (A, ipiv, info, np.asarray(X), np.asarray(xinfo))
    names = route(emu)
    assert names.count(_lu_block.panel_kernel_name(dtype, False)) == 1
    assert names.count(_lu_block.panel_kernel_name(dtype, True)) == 1 and len(names) == 4
    (A1, p1, i1, X1, xi1), (A0, p0, i0, X0, xi0) = got[True], got[False]
    np.testing.assert_array_equal(p1, p0)
    np.testing.assert_array_equal(i1, i0)
    np.testing.assert_array_equal(xi1, xi0)
    assert i1[0] == 0 and i1[1] == min(4, n) and i1[3] > 0
    assert same_bits(A1, A0)
    assert same_bits(X1, X0)


SOLVE_CASES = [
    # (dtype, a shape, b shape, layout of a)
    ("float64", (1, 128, 128), (1, 128, 1), "C"),   # the benchmark's shapes
    ("float64", (3, 37, 37), (3, 37, 2), "F"),
    ("complex64", (65, 65), (65, 16), "C"),
    ("float32", (2, 33, 33), (33,), "T"),           # a transposed view; b one vector for both
    ("complex128", (1, 96, 96), (1, 96, 1), "strided"),
]


@pytest.mark.parametrize("case", range(len(SOLVE_CASES)))
def test_solve_in_one_launch_matches_numpy(emu, rng, case):
    dtype, ashape, bshape, layout = SOLVE_CASES[case]
    if emu.target == "hip64" and case in (0, 2, 4):
        pytest.skip("the largest cases run on the 32-lane target only (emulator time)")
    a, b = rand(rng, ashape, dtype), rand(rng, bshape, dtype)
    if layout == "F":
        d = emu.cupy.asarray(np.asfortranarray(a))
    elif layout == "T":
        d = emu.cupy.asarray(np.ascontiguousarray(a.swapaxes(-1, -2))).swapaxes(-1, -2)
    elif layout == "strided":
        big = np.zeros(ashape[:-2] + (2 * ashape[-2], 3 * ashape[-1]), dtype)
        big[..., ::2, ::3] = a
        d = emu.cupy.asarray(big)[..., ::2, ::3]
    else:
        d = emu.cupy.asarray(a)
    x = la.solve(d, emu.cupy.asarray(b))
    want = np.linalg.solve(a, b if len(bshape) > 1 else b[:, None])
    want = want if len(bshape) > 1 else want[..., 0]
    assert route(emu) == [kernel(dtype, ashape[-1], True, bshape[-1] if len(bshape) > 1 else 1)]
    assert x.shape == want.shape and x.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(x), want, rtol=50 * tol(dtype, ashape[-1]),
                               atol=50 * tol(dtype, ashape[-1]) * np.abs(want).max())


@pytest.mark.parametrize("n", [33, 127])
def test_fused_solve_ill_conditioned_backward_error(emulated_device, monkeypatch, rng, n):
    # cond 1e10, orders at both ends of the range (127: the 8-row tile with a padding row); the
    # backward error stays at LAPACK's level; X poisoned before the launch
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    u, _ = np.linalg.qr(rng.standard_normal((n, n)))
    v, _ = np.linalg.qr(rng.standard_normal((n, n)))
    a = ((u * np.geomspace(1.0, 1e-10, n)) @ v.T)[None]
    b = rng.standard_normal((1, n, 2))
    cp = emulated_device.cupy
    X, info = cp.asarray(np.full((1, n, 2), np.nan)), cp.asarray(np.full(1, 99, np.int32))
    _lu_block.gesv(cp.asarray(a), cp.asarray(b), X, info)
    x = np.asarray(X)[0]
    assert int(np.asarray(info)[0]) == 0 and np.isfinite(x).all()
    eps = np.finfo(np.float64).eps
    r = np.linalg.norm(a[0] @ x - b[0]) / (np.linalg.norm(a[0]) * np.linalg.norm(x) * n * eps)
    assert r < 8


def test_solve_of_a_singular_matrix_raises(emulated_device, monkeypatch, rng):
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    a = rand(rng, (2, 40, 40), "float64")
    a[1, :, 11] = 0.0
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        la.solve(emulated_device.cupy.asarray(a), emulated_device.cupy.asarray(rand(rng, (2, 40, 1), "float64")))
    assert len(route(emulated_device)) == 1


def test_facade_det_and_lu_factor_take_the_kernel(emulated_device, monkeypatch, rng):
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    a = rand(rng, (2, 45, 45), "complex64")
    d = la.det(emulated_device.cupy.asarray(a))
    want = np.linalg.det(a.astype(np.complex128))
    np.testing.assert_allclose(np.asarray(d), want, rtol=1e-3)
    lu, piv = la.lu_factor(emulated_device.cupy.asarray(a[0]))
    wlu, wpiv = sl.lu_factor(a[0].astype(np.complex128))
    np.testing.assert_array_equal(np.asarray(piv), wpiv)
    np.testing.assert_allclose(np.asarray(lu), wlu, rtol=1e-4, atol=1e-4 * np.abs(wlu).max())
    assert route(emulated_device) == [_lu_block.kernel_name("complex64", 4, False)] * 2


def test_gesv_writes_only_x_and_info(emulated_device, monkeypatch, rng):
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    n, k = 40, 3
    a, b = rand(rng, (2, n, n), "float64"), rand(rng, (2, n, k), "float64")
    A, B = emulated_device.array(a), emulated_device.array(b)
    X = emulated_device.array(np.full((2, n, k), np.nan))
    info = emulated_device.array(np.full(2, 99, np.int32))
    _lu_block.gesv(A, B, X, info)
    np.testing.assert_array_equal(np.asarray(A), a)
    np.testing.assert_array_equal(np.asarray(B), b)
    np.testing.assert_allclose(np.asarray(X), np.linalg.solve(a, b), rtol=1e-11, atol=1e-11)
    np.testing.assert_array_equal(np.asarray(info), [0, 0])


# (target, dtype, n, solve): every instantiated tile height (M = 4, 8; 6 for complex128), one
# launch each, the factorization or the fused solve; the bench's order first
ONE_BARRIER_CASES = [
    ("cuda32", "float64", 128, True), ("cuda32", "float64", 50, False), ("cuda32", "float32", 33, True),
    ("cuda32", "float32", 120, False), ("cuda32", "complex64", 64, False), ("cuda32", "complex64", 100, True),
    ("cuda32", "complex128", 40, True), ("cuda32", "complex128", 96, False), ("hip64", "float64", 70, True),
    ("hip64", "complex128", 65, False),
]


def _tied_stack(rng, dtype, n):
    """Four matrices of small integers (ties in every pivot search): plain, a NaN, a zero column
    (info, and a step without an update), a zero row (singular: the last pivot exactly zero)."""
    a = rng.integers(-3, 4, size=(4, n, n)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = (a + 1j * rng.integers(-2, 3, size=(4, n, n))).astype(dtype)
    a[1][n // 2, 1] = np.nan
    a[2][:, n // 3] = 0
    a[3][5] = 0
    return a


@pytest.mark.parametrize("case", ONE_BARRIER_CASES, ids=lambda c: "-".join(map(str, c)))
def test_one_barrier_step_matches_the_two_barrier_step_bit_for_bit(request, monkeypatch, case):
    """The one-barrier step (rows j and p exchanged by shuffles) against the two-barrier step
    (ONE_BARRIER False): factors, pivots and info, or X and info, bit for bit."""
    target, dtype, n, solve = case
    dev = request.getfixturevalue("emulated_device" if target == "cuda32" else "emulated_wave64_device")
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    monkeypatch.setattr(_lu_block, "WIDE", False)
    monkeypatch.setattr(_lu_block, "SPLIT", False)
    rng = np.random.default_rng(n)
    a = _tied_stack(rng, dtype, n)
    b = rng.integers(-5, 6, size=(4, n, 3)).astype(dtype)
    got = {}
    for one in (True, False):
        monkeypatch.setattr(_lu_block, "ONE_BARRIER", one)
        info = dev.array(np.full(4, 99, np.int32))
        if solve:
            X = dev.array(np.full((4, n, 3), 7, dtype))
            _lu_block.gesv(dev.array(a), dev.array(b), X, info)
            got[one] = np.asarray(X).copy(), np.asarray(info).copy()
        else:
            A = dev.array(np.ascontiguousarray(a.swapaxes(1, 2)).reshape(-1))   # column-major, lda n
            ipiv = dev.array(np.full(4 * n, -7, np.int32))
            _lu_block.getrf(n, A, n, n * n, ipiv, n, info, 4)
            got[one] = np.asarray(A).copy(), np.asarray(ipiv).copy(), np.asarray(info).copy()
        assert dev.names()[-1] == _lu_block.kernel_name(dtype, _lu_block.tile(n, dtype), solve, one)
    new, old = got[True], got[False]
    for x, y in zip(new, old):
        if x.dtype.kind in "fc":
            assert same_bits(x, y)
        else:
            np.testing.assert_array_equal(x, y)
    info = new[-1]
    assert info[0] == 0 and info[2] == n // 3 + 1 and info[3] == n


# (target, dtype, n, look-ahead): the wide layout's instantiations (N = 128) at the bench's order,
# a prime order (padding rows and columns in every register row and column), on both lane widths,
# with the plain step and the look-ahead step
# (the step: "plain", "look" for WIDE_LOOKAHEAD, "redux" for WIDE_REDUX, "flow" for WIDE_FLOW,
# "flowredux" for both; the emulator's NVIDIA target has no sm_80 path, so "redux" checks the
# kernel's plumbing there and the GPU its search)
WIDE_CASES = [("cuda32", "float64", 128, "plain"), ("cuda32", "float64", 128, "look"),
              ("cuda32", "float64", 128, "redux"), ("cuda32", "float64", 128, "flow"),
              ("cuda32", "float32", 100, "plain"), ("cuda32", "complex64", 71, "look"),
              ("cuda32", "complex64", 71, "redux"), ("cuda32", "complex64", 71, "flow"),
              ("cuda32", "float64", 97, "flowredux"),
              ("hip64", "float64", 97, "look"), ("hip64", "float64", 97, "redux"),
              ("hip64", "float64", 97, "flow")]


@pytest.mark.parametrize("case", WIDE_CASES, ids=lambda c: "-".join(map(str, c)))
def test_wide_kernel_matches_the_register_tile_bit_for_bit(request, monkeypatch, case):
    """getrf_block_wide (WIDE on; its look-ahead step with WIDE_LOOKAHEAD, its redux search with
    WIDE_REDUX, its flow step with WIDE_FLOW) against getrf_block on tied stacks (ties, a NaN, a zero column, a zero row) and a
    random matrix: factors, pivots and info, and X and info, bit for bit."""
    target, dtype, n, step = case
    dev = request.getfixturevalue("emulated_device" if target == "cuda32" else "emulated_wave64_device")
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    monkeypatch.setattr(_lu_block, "WIDE_WAVE64", True)
    monkeypatch.setattr(_lu_block, "WIDE_FACTOR", True)
    monkeypatch.setattr(_lu_block, "SPLIT", False)
    monkeypatch.setattr(_lu_block, "WIDE_LOOKAHEAD", step == "look")
    monkeypatch.setattr(_lu_block, "WIDE_REDUX", step in ("redux", "flowredux"))
    monkeypatch.setattr(_lu_block, "WIDE_FLOW", step in ("flow", "flowredux"))
    assert_switch_matches_the_register_tile(dev, monkeypatch, "WIDE", dtype, n, _lu_block.wide_kernel_name)


# (target, dtype, n, window): the split kernel's instantiations (N = 128) at the bench's order,
# orders whose last panel is partial (a prime among them), on both lane widths, with and without
# the windowed step
SPLIT_CASES = [("cuda32", "float64", 128, False), ("cuda32", "float64", 97, False),
               ("cuda32", "float32", 100, False), ("cuda32", "float32", 71, False),
               ("hip64", "float64", 128, False), ("hip64", "float32", 83, False),
               ("cuda32", "float64", 128, True), ("cuda32", "float64", 101, True),
               ("cuda32", "float32", 79, True), ("hip64", "float64", 113, True)]


@pytest.mark.parametrize("case", SPLIT_CASES, ids=lambda c: "-".join(map(str, c[:3])) + ("-window" if c[3] else ""))
def test_split_kernel_matches_the_register_tile_bit_for_bit(request, monkeypatch, case):
    """getrf_block_split (SPLIT on, SPLIT_WINDOW as the case says) against getrf_block on tied
    stacks (ties, a NaN, a zero column, a zero row) and a random matrix: factors, pivots and info,
    and X and info, bit for bit."""
    target, dtype, n, window = case
    dev = _split_emulator(request, monkeypatch, target, window)
    assert_switch_matches_the_register_tile(dev, monkeypatch, "SPLIT", dtype, n, _lu_block.split_kernel_name)


def _split_emulator(request, monkeypatch, target, window):
    """The emulated device of ``target`` with sm_90's shared memory, the split kernel on both lane
    widths and for the factorization of both dtypes, SPLIT_WINDOW as given, the wide kernel off."""
    monkeypatch.setattr(_lu_block, "SPLIT_WINDOW", window)
    dev = request.getfixturevalue("emulated_device" if target == "cuda32" else "emulated_wave64_device")
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    monkeypatch.setattr(_lu_block, "SPLIT_WAVE64", True)
    monkeypatch.setattr(_lu_block, "SPLIT_FACTOR_DTYPES", _lu_block.SPLIT_DTYPES)
    monkeypatch.setattr(_lu_block, "WIDE", False)
    return dev


# (target, dtype, n, window, grid): the compact kernel at the bench's order (its last panel
# spilled to the global scratch), an order whose last panel is partial and spilled (121), orders
# that fit whole (101, float32's 128), one whose last panels leave crew warps without rows (70:
# their counted barriers fall behind unless restarted for each system), both lane widths, with
# and without the windowed step; grid blocks for the 5 systems (fewer: a block solves several in
# turn)
COMPACT_CASES = [("cuda32", "float64", 128, False, 2), ("cuda32", "float64", 121, False, 3),
                 ("cuda32", "float64", 101, False, 5), ("cuda32", "float32", 128, False, 2),
                 ("cuda32", "float64", 128, True, 3), ("cuda32", "float64", 113, True, 2),
                 ("hip64", "float64", 125, False, 2), ("hip64", "float32", 90, True, 4),
                 ("cuda32", "float32", 70, False, 2)]


@pytest.mark.parametrize("case", COMPACT_CASES,
                         ids=lambda c: "-".join(map(str, c[:3])) + ("-window" if c[3] else "") + f"-grid{c[4]}")
def test_compact_kernel_matches_the_register_tile_bit_for_bit(request, monkeypatch, case):
    """getrf_block_compact (COMPACT on; the factorization alone stays on the split kernel) against
    getrf_block on tied stacks and a random matrix, bit for bit, with fewer blocks than systems."""
    target, dtype, n, window, grid = case
    dev = _split_emulator(request, monkeypatch, target, window)
    monkeypatch.setattr(_lu_block, "COMPACT", True)
    monkeypatch.setattr(_lu_block, "COMPACT_DTYPES", _lu_block.SPLIT_DTYPES)
    monkeypatch.setattr(_lu_block, "COMPACT_ORDER", _lu_block.SPLIT_ORDER)
    monkeypatch.setattr(_lu_block, "COMPACT_BATCH_PER_SM", 0)
    monkeypatch.setattr(_lu_block, "COMPACT_MAX_GRID", grid)
    spilled = n > 116 and dtype == "float64"
    assert (_lu_block.compact_columns(n, 3, dtype, 0) == (96 if spilled else n))
    name = lambda d, solve: _lu_block.compact_kernel_name(d) if solve else _lu_block.split_kernel_name(d, False)
    assert_switch_matches_the_register_tile(dev, monkeypatch, "SPLIT", dtype, n, name)


def assert_switch_matches_the_register_tile(dev, monkeypatch, switch, dtype, n, name):
    """Tied stacks (ties, a NaN, a zero column, a zero row) and a random matrix factored and solved
    on the emulator with ``_lu_block.<switch>`` on (kernels ``name(dtype, solve)``) and off
    (getrf_block): factors, pivots and info, and X and info, bit for bit."""
    rng = np.random.default_rng(n)
    a = np.concatenate([_tied_stack(rng, dtype, n), rand(rng, (1, n, n), dtype)])
    b = np.concatenate([rng.integers(-5, 6, size=(4, n, 3)).astype(dtype), rand(rng, (1, n, 3), dtype)])
    got = {}
    for on in (True, False):
        monkeypatch.setattr(_lu_block, switch, on)
        info = dev.array(np.full(5, 99, np.int32))
        A = dev.array(np.ascontiguousarray(a.swapaxes(1, 2)).reshape(-1))   # column-major, lda n
        ipiv = dev.array(np.full(5 * n, -7, np.int32))
        _lu_block.getrf(n, A, n, n * n, ipiv, n, info, 5)
        X, xinfo = dev.array(np.full((5, n, 3), 7, dtype)), dev.array(np.full(5, 99, np.int32))
        _lu_block.gesv(dev.array(a), dev.array(b), X, xinfo)
        got[on] = [np.asarray(v).copy() for v in (A, ipiv, info, X, xinfo)]
        want = ([name(dtype, s) for s in (False, True)] if on
                else [_lu_block.kernel_name(dtype, 8, s) for s in (False, True)])
        assert dev.names()[-2:] == want
    for x, y in zip(got[True], got[False]):
        if x.dtype.kind in "fc":
            assert same_bits(x, y)
        else:
            np.testing.assert_array_equal(x, y)
    for info in (got[True][2], got[True][4]):
        assert info[0] == 0 and info[2] == n // 3 + 1 and info[3] == n and info[4] == 0


# --------------------------------------------------------------------------------------------
# CPU: routing (launches recorded, nothing runs)
# --------------------------------------------------------------------------------------------

@pytest.fixture
def recorded(fake_device, monkeypatch):
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    monkeypatch.setattr(_lu_kernels, "clear_info", lambda info, batch: None)   # a CuPy fill
    return fake_device


def test_compact_columns_fit_two_blocks_or_none(monkeypatch):
    # the compact kernel keeps every column in shared memory where that fits half of sm_90's,
    # else columns 0 .. 95 with at most one panel spilled; past that (many right-hand sides), none
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    assert _lu_block.compact_budget(0) == 115712
    assert _lu_block.compact_columns(128, 1, "float32", 0) == 128
    assert _lu_block.compact_columns(110, 1, "float64", 0) == 110
    assert _lu_block.compact_columns(128, 1, "float64", 0) == 96
    assert _lu_block.compact_columns(110, 16, "float64", 0) == 96
    assert _lu_block.compact_columns(90, 80, "float64", 0) is None   # never more columns than n
    assert _lu_block.compact_columns(128, 40, "float64", 0) is None


def test_compact_grid_is_the_resident_blocks_at_most_one_a_system(monkeypatch):
    assert _lu_block.compact_grid(10_000, 264) == 264
    assert _lu_block.compact_grid(5, 264) == 5
    assert _lu_block.compact_grid(10_000, 132) == 132   # one block a multiprocessor: no second wave
    monkeypatch.setattr(_lu_block, "COMPACT_MAX_GRID", 7)
    assert _lu_block.compact_grid(10_000, 264) == 7 and _lu_block.compact_grid(3, 264) == 3


def test_instantiations_are_registered():
    names = _compile.registered(_lu_block.SOURCE)
    assert set(names) == set(_lu_block.instantiations()) and len(names) == 82
    assert "ra_rocsolver_getrf_block_compact<double, 128, false>" in names
    assert "ra_rocsolver_getrf_block_compact<float, 128, true>" in names
    assert "ra_rocsolver_getrf_block<double, 8, false>" in names
    assert "ra_rocsolver_getrf_block<ra_c128, 6, true>" in names
    assert "ra_rocsolver_getrf_block_2sync<double, 8, true>" in names
    assert "ra_rocsolver_getrf_panel<ra_c128, 128, true>" in names
    assert "ra_rocsolver_getrf_block_wide<double, 128, true, false>" in names
    assert "ra_rocsolver_getrf_block_wide<double, 128, true, true>" in names
    assert "ra_rocsolver_getrf_block_wide<ra_c64, 128, false, true>" in names
    assert "ra_rocsolver_getrf_block_wide_flow<double, 128, true, false>" in names
    assert "ra_rocsolver_getrf_block_wide_flow<double, 128, true, true>" in names
    assert "ra_rocsolver_getrf_block_split<double, 128, true, false>" in names
    assert "ra_rocsolver_getrf_block_split<float, 128, false, true>" in names


@pytest.mark.parametrize("dtype,n,kernel", [
    ("float64", 32, "ra_rocsolver_getrf_warp"), ("float64", 33, "getrf_block<double, 4, false>"),
    ("float64", 64, "getrf_block<double, 4, false>"), ("float64", 65, "getrf_panel<double, 128, false>"),
    ("float64", 128, "getrf_panel<double, 128, false>"), ("float64", 129, "ra_rocsolver_getf2"),
    ("float32", 128, "getrf_panel<float, 128, false>"), ("complex64", 100, "getrf_panel<ra_c64, 128, false>"),
    ("complex128", 96, "getrf_panel<ra_c128, 128, false>"), ("complex128", 114, "getrf_panel<ra_c128, 128, false>"),
    ("complex128", 118, "ra_rocsolver_getf2"),
])
def test_getrf_routes_by_order(recorded, monkeypatch, dtype, n, kernel):
    monkeypatch.setattr(_lu_block, "PANEL", True)
    batch = 64   # the one-block paths' batch size up to 512 x 512
    A = recorded.array((batch * n * n,), dtype)
    rs.getrf_strided_batched(n, n, A, n, n * n, recorded.array((batch * n,), "int32"), n,
                             recorded.array((batch,), "int32"), batch)
    assert len(recorded.launches) == 1 and named(kernel) in recorded.launches[0].name
    if "block" in kernel or "panel" in kernel:
        launch = recorded.launches[0]
        assert launch.grid == (batch, 1, 1) and launch.block == (_lu_block.THREADS, 1, 1)


@pytest.mark.parametrize("wide_factor,dtype,n,kernel", [
    # the defaults (SPLIT, WIDE and WIDE_FACTOR on): orders 65 .. 128 of float64 take the split
    # kernel as the solve does, of float32 and complex64 the 512-thread layout; other orders and
    # complex128 stay on getrf_block
    (True, "float64", 128, "getrf_block_split<double, 128, false, false>"),
    (True, "float64", 65, "getrf_block_split<double, 128, false, false>"),
    (True, "float32", 100, "getrf_block_wide_redux<float, 128, false>"),
    (True, "complex64", 100, "getrf_block_wide_redux<ra_c64, 128, false>"),
    (True, "float64", 64, "getrf_block<double, 4, false>"), (True, "complex128", 96, "getrf_block<ra_c128, 6, false>"),
    # WIDE_FACTOR off: getrf_block (one block's getf2 past its tiles) where the split kernel does not apply
    (False, "float64", 64, "getrf_block<double, 4, false>"),
    (False, "float64", 65, "getrf_block_split<double, 128, false, false>"),
    (False, "complex64", 100, "getrf_block<ra_c64, 8, false>"),
    (False, "complex128", 96, "getrf_block<ra_c128, 6, false>"), (False, "complex128", 97, "ra_rocsolver_getf2"),
])
def test_getrf_routes(recorded, monkeypatch, wide_factor, dtype, n, kernel):
    assert _lu_block.WIDE and _lu_block.WIDE_FACTOR and not _lu_block.PANEL and not _lu_block.WIDE_LOOKAHEAD
    assert _lu_block.WIDE_REDUX and not _lu_block.WIDE_FLOW and _lu_block.SPLIT
    assert _lu_block.ONE_BARRIER
    monkeypatch.setattr(_lu_block, "WIDE_FACTOR", wide_factor)
    A = recorded.array((4 * n * n,), dtype)
    rs.getrf_strided_batched(n, n, A, n, n * n, recorded.array((4 * n,), "int32"), n,
                             recorded.array((4,), "int32"), 4)
    assert len(recorded.launches) == 1 and named(kernel) in recorded.launches[0].name


@pytest.mark.parametrize("one", [True, False])
def test_one_barrier_switch_picks_the_kernel(recorded, monkeypatch, one):
    monkeypatch.setattr(_lu_block, "WIDE", False)
    monkeypatch.setattr(_lu_block, "SPLIT", False)
    monkeypatch.setattr(_lu_block, "ONE_BARRIER", one)
    a, b = recorded.array((4, 128, 128), "float64"), recorded.array((4, 128, 1), "float64")
    la.solve(a, b)
    A = recorded.array((4 * 100 * 100,), "complex64")
    rs.getrf_strided_batched(100, 100, A, 100, 100 * 100, recorded.array((400,), "int32"), 100,
                             recorded.array((4,), "int32"), 4)
    base = "ra_rocsolver_getrf_block" if one else "ra_rocsolver_getrf_block_2sync"
    assert recorded.names() == [f"{base}<double, 8, true>", f"{base}<ra_c64, 8, false>"]


@pytest.mark.parametrize("wave64", [False, True], ids=["warp32", "wave64"])
def test_wide_switch_routes_orders_65_to_128(recorded, monkeypatch, wave64):
    # WIDE on: orders 65 .. 128 of float32, float64 and complex64 with up to 512 / warp size
    # right-hand sides take the wide kernel on 512 threads; the rest go where they go without it
    # (more right-hand sides: getrf_block; complex128, order 64: getrf_block; PANEL on: the panel);
    # on 64-lane devices only with WIDE_WAVE64 (the split kernel off)
    monkeypatch.setattr(_lu_block, "SPLIT", False)
    monkeypatch.setattr(_lu_block, "WIDE", True)
    monkeypatch.setattr(_lu_block, "WIDE_FACTOR", True)
    if wave64:
        from kernel_emu import WAVE64_PROFILE

        monkeypatch.setattr(backend, "device_info", lambda device_id=None: WAVE64_PROFILE)
        la.solve(recorded.array((4, 128, 128), "float64"), recorded.array((4, 128, 1), "float64"))
        assert recorded.names() == ["ra_rocsolver_getrf_block<double, 8, true>"]
        recorded.launches.clear()
        monkeypatch.setattr(_lu_block, "WIDE_WAVE64", True)
    most = 512 // (64 if wave64 else 32)
    # (with 32 lanes, most + 1 = 17 right-hand sides leave the one-launch solve: not recorded here)
    ks = (1, most, most + 1) if most < _lu_block.MAX_RHS else (1, most)
    for k in ks:
        la.solve(recorded.array((4, 128, 128), "float64"), recorded.array((4, 128, k), "float64"))
    for dtype, n in (("complex64", 65), ("float32", 100), ("complex128", 96), ("float64", 64)):
        A = recorded.array((4 * n * n,), dtype)
        rs.getrf_strided_batched(n, n, A, n, n * n, recorded.array((4 * n,), "int32"), n,
                                 recorded.array((4,), "int32"), 4)
    monkeypatch.setattr(_lu_block, "PANEL", True)
    la.solve(recorded.array((4, 100, 100), "float64"), recorded.array((4, 100, 1), "float64"))
    monkeypatch.setattr(_lu_block, "WIDE_LOOKAHEAD", True)
    la.solve(recorded.array((4, 100, 100), "float32"), recorded.array((4, 100, 1), "float32"))
    more = ["ra_rocsolver_getrf_block<double, 8, true>"] if len(ks) == 3 else []
    assert recorded.names() == (
        ["ra_rocsolver_getrf_block_wide_redux<double, 128, true>"] * 2 + more
        + ["ra_rocsolver_getrf_block_wide_redux<ra_c64, 128, false>",
           "ra_rocsolver_getrf_block_wide_redux<float, 128, false>",
           "ra_rocsolver_getrf_block<ra_c128, 6, false>", "ra_rocsolver_getrf_block<double, 4, false>",
           "ra_rocsolver_getrf_panel<double, 128, true>", "ra_rocsolver_getrf_panel<float, 128, true>"])
    blocks = [launch.block[0] for launch in recorded.launches]
    assert blocks == [512, 512] + [256] * len(more) + [512, 512, 256, 256, 256, 256]
    monkeypatch.setattr(_lu_block, "PANEL", False)
    la.solve(recorded.array((4, 100, 100), "float32"), recorded.array((4, 100, 1), "float32"))
    assert recorded.names()[-1] == "ra_rocsolver_getrf_block_wide<float, 128, true, true>"


def test_getrf_routes_rectangular_and_small_shared_memory_to_getf2(recorded, monkeypatch):
    monkeypatch.setattr(_lu_block, "PANEL", True)
    A = recorded.array((100 * 100,), "float64")
    rs.getrf_strided_batched(80, 70, A, 80, 80 * 70, recorded.array((70,), "int32"), 70,
                             recorded.array((1,), "int32"), 1)
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: 65536)   # AMD's LDS
    for n in (76, 100):
        rs.getrf_strided_batched(n, n, A, n, n * n, recorded.array((n,), "int32"), n, recorded.array((1,), "int32"), 1)
    names = recorded.names()
    assert "getf2" in names[0] and "getrf_panel" in names[1] and "getf2" in names[2]


@pytest.mark.parametrize("dtype,n,batch,compact", [
    # the defaults: float64 solves of orders up to COMPACT_ORDER take the compact kernel for stacks
    # of more than one system a multiprocessor (132 here), the split kernel otherwise
    ("float64", 121, 133, True), ("float64", 65, 300, True), ("float64", 100, 132, False),
    ("float64", 122, 300, False), ("float64", 128, 300, False), ("float32", 100, 300, False),
])
def test_solve_routes_to_the_compact_kernel(recorded, dtype, n, batch, compact):
    assert _lu_block.COMPACT and _lu_block.COMPACT_ORDER == 121 and _lu_block.COMPACT_BATCH_PER_SM == 1
    la.solve(recorded.array((batch, n, n), dtype), recorded.array((batch, n, 1), dtype))
    want = _lu_block.compact_kernel_name(dtype) if compact else _lu_block.split_kernel_name(dtype, True)
    assert recorded.names() == [want]
    if compact:
        launch = recorded.launches[0]
        assert launch.block == (_lu_block.COMPACT_THREADS, 1, 1) and launch.grid[0] <= 2 * 132


@pytest.mark.parametrize("n,k,fused", [(32, 1, False), (33, 1, True), (128, 1, True), (128, 16, True),
                                       (128, 17, False), (129, 1, False)])
def test_solve_routes_to_one_launch(recorded, n, k, fused):
    assert _lu_block.solves(n, k, "float64", 0) == fused
    if not fused:
        return   # the getrf + getrs path copies with CuPy kernels, which launchfake cannot run
    a = recorded.array((4, n, n), "float64")
    b = recorded.array((4, n, k), "float64")
    x = la.solve(a, b)
    assert x.shape == (4, n, k)
    assert recorded.names() == [kernel("float64", n, True, k)]
    args = recorded.launches[0].args
    # a and b read in place, C-ordered: (row, column, matrix) element strides
    assert [int(v) for v in args[3:6]] == [n, 1, n * n] and args[2].data.ptr == a.data.ptr
    assert [int(v) for v in args[13:16]] == [k, 1, n * k] and args[12].data.ptr == b.data.ptr


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
def test_gpu_solve_bench_shape_ill_conditioned_and_poisoned():
    # the bench's order (128, float64, one right-hand side) on a stack of cond-1e10 matrices and
    # random ones, C-ordered as linalg.solve gets them; X poisoned before the launch
    rng = np.random.default_rng()
    batch, n = 2000, 128
    q1 = np.linalg.qr(rng.standard_normal((batch // 2, n, n)))[0]
    q2 = np.linalg.qr(rng.standard_normal((batch // 2, n, n)))[0]
    ill = (q1 * np.geomspace(1.0, 1e-10, n)[None, None, :]) @ q2
    a = np.concatenate([ill, rng.standard_normal((batch // 2, n, n))])
    b = rng.standard_normal((batch, n, 1))
    X, info = cupy.full((batch, n, 1), cupy.nan), cupy.full(batch, 99, cupy.int32)
    _lu_block.gesv(cupy.asarray(a), cupy.asarray(b), X, info)
    x = cupy.asnumpy(X)
    assert (cupy.asnumpy(info) == 0).all() and np.isfinite(x).all()
    eps = np.finfo(np.float64).eps
    r = np.linalg.norm(a @ x - b, axis=(1, 2)) / (np.linalg.norm(a, axis=(1, 2)) * np.linalg.norm(x, axis=(1, 2)) * n * eps)
    assert r.max() < 8


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n,batch", [(33, 5), (64, 3), (65, 200), (97, 3), (128, 300), (129, 2)])
def test_gpu_getrf_strided_batched(rng, dtype, n, batch):
    a = rand(rng, (batch, n, n), dtype)
    lda, stride = n + 1, (n + 1) * n + 3
    A = cupy.asarray(col_major(_Host(), a, lda, stride))
    ipiv, info = cupy.full(batch * (n + 1), -7, cupy.int32), cupy.full(batch, 99, cupy.int32)
    rs.getrf_strided_batched(n, n, A, lda, stride, ipiv, n + 1, info, batch)
    h, piv = cupy.asnumpy(A), cupy.asnumpy(ipiv).reshape(batch, n + 1)
    assert (cupy.asnumpy(info) == 0).all() and (piv[:, n] == -7).all()
    eps = np.finfo(np.dtype(dtype)).eps
    for b in range(0, batch, max(1, batch // 5)):
        lu = unpack(h, n, lda, b, stride)
        L, U = np.tril(lu, -1) + np.eye(n), np.triu(lu)
        pa = a[b].astype(np.complex128)
        for i in range(n):
            p = piv[b, i] - 1
            pa[[i, p]] = pa[[p, i]]
        assert np.linalg.norm(L @ U - pa) / (np.linalg.norm(a[b]) * n * eps) < 4
        if dtype in ("float64", "complex128"):
            np.testing.assert_array_equal(piv[b, :n] - 1, sl.lu_factor(a[b])[1])


class _Host:
    """col_major's device for host buffers."""

    @staticmethod
    def array(x):
        return x


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n,k,batch,layout", [(33, 1, 7, "C"), (64, 16, 5, "F"), (100, 3, 50, "T"),
                                              (128, 1, 1000, "C"), (96, 1, 3, "strided"),
                                              (113, 2, 300, "strided")])   # float64: the compact kernel
def test_gpu_solve_backward_error(rng, dtype, n, k, batch, layout):
    a, b = rand(rng, (batch, n, n), dtype), rand(rng, (batch, n, k), dtype)
    if layout == "F":
        d = cupy.asfortranarray(cupy.asarray(a))
    elif layout == "T":
        d = cupy.ascontiguousarray(cupy.asarray(a).swapaxes(-1, -2)).swapaxes(-1, -2)
    elif layout == "strided":
        big = cupy.zeros((batch, 2 * n, 2 * n), dtype)
        big[:, ::2, ::2] = cupy.asarray(a)
        d = big[:, ::2, ::2]
    else:
        d = cupy.asarray(a)
    x = la.solve(d, cupy.asarray(b)).get()
    eps = np.finfo(np.dtype(dtype)).eps
    ax = np.einsum("bij,bjk->bik", a.astype(np.complex128), x)
    r = np.linalg.norm(ax - b, axis=(1, 2)) / (np.linalg.norm(a, axis=(1, 2)) * np.linalg.norm(x, axis=(1, 2)) * n * eps)
    assert r.max() < 8


@pytest.mark.gpu
def test_gpu_solve_singular_and_nan():
    rng = np.random.default_rng()
    a = rng.standard_normal((20, 128, 128))
    a[13, :, 70] = 0.0
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        la.solve(cupy.asarray(a), cupy.asarray(rng.standard_normal((20, 128, 1))))
    a[13, :, 70] = np.nan
    x = la.solve(cupy.asarray(a), cupy.asarray(rng.standard_normal((20, 128, 1)))).get()
    assert np.isnan(x[13]).all() and np.isfinite(np.delete(x, 13, axis=0)).all()


def assert_same_results_both_ways(monkeypatch, switch, dtype, n):
    """Tricky stacks (ties, zero pivots, NaN, singular, dividing pivots) and random ones factored
    and solved on the device with ``_lu_block.<switch>`` on and off: the same pivots and info,
    and factors and solutions bit for bit in real arithmetic (complex products may be contracted
    differently in the two kernels)."""
    rng = np.random.default_rng()
    a = np.concatenate([tricky_stack(rng, n, dtype), rand(rng, (20, n, n), dtype)])
    b = rand(rng, (len(a), n, 2), dtype)
    got = {}
    for on in (True, False):
        monkeypatch.setattr(_lu_block, switch, on)
        A = cupy.asarray(col_major(_Host(), a, n, n * n))
        ipiv, info = cupy.full(len(a) * n, -7, cupy.int32), cupy.full(len(a), 99, cupy.int32)
        _lu_block.getrf(n, A, n, n * n, ipiv, n, info, len(a))
        X, xinfo = cupy.full(b.shape, cupy.nan, dtype), cupy.full(len(a), 99, cupy.int32)
        _lu_block.gesv(cupy.asarray(a), cupy.asarray(b), X, xinfo)
        got[on] = [cupy.asnumpy(v) for v in (A, ipiv, info, X, xinfo)]
    (A1, p1, i1, X1, xi1), (A0, p0, i0, X0, xi0) = got[True], got[False]
    np.testing.assert_array_equal(p1, p0)
    np.testing.assert_array_equal(i1, i0)
    np.testing.assert_array_equal(xi1, xi0)
    assert (i1[5:] == 0).all() and np.isfinite(X1[5:]).all()
    if np.dtype(dtype).kind == "f":
        assert same_bits(A1, A0) and same_bits(X1, X0)
    else:
        eps = np.finfo(np.dtype(dtype)).eps
        np.testing.assert_allclose(X1[5:], X0[5:], rtol=1e4 * eps, atol=1e4 * eps * np.abs(X0[5:]).max())


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n", [65, 100, 128])
def test_gpu_panel_kernel_matches_the_register_tile(monkeypatch, dtype, n):
    # on the device: the panel kernel against the register tile
    if dtype == "complex128" and n > 96:
        pytest.skip("the register-tile kernel takes complex128 up to order 96")
    assert_same_results_both_ways(monkeypatch, "PANEL", dtype, n)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("n", [40, 128])
def test_gpu_one_barrier_step_matches_the_two_barrier_step(monkeypatch, dtype, n):
    # on the device, with the panel and wide kernels off: the one-barrier step against the
    # two-barrier step
    monkeypatch.setattr(_lu_block, "PANEL", False)
    monkeypatch.setattr(_lu_block, "WIDE", False)
    monkeypatch.setattr(_lu_block, "SPLIT", False)
    assert_same_results_both_ways(monkeypatch, "ONE_BARRIER", dtype, min(n, 96) if dtype == "complex128" else n)


@pytest.mark.gpu
@pytest.mark.parametrize("step", ["plain", "lookahead", "redux", "flow", "flowredux"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("n", [65, 97, 128])
def test_gpu_wide_kernel_matches_the_register_tile(monkeypatch, dtype, n, step):
    # on the device, with the panel kernel off: getrf_block_wide (WIDE on, the factorization too:
    # WIDE_FACTOR; its look-ahead step with WIDE_LOOKAHEAD, its redux search with WIDE_REDUX, its
    # flow step with WIDE_FLOW) against getrf_block
    monkeypatch.setattr(_lu_block, "PANEL", False)
    monkeypatch.setattr(_lu_block, "SPLIT", False)
    monkeypatch.setattr(_lu_block, "WIDE_FACTOR", True)
    monkeypatch.setattr(_lu_block, "WIDE_LOOKAHEAD", step == "lookahead")
    monkeypatch.setattr(_lu_block, "WIDE_REDUX", step in ("redux", "flowredux"))
    monkeypatch.setattr(_lu_block, "WIDE_FLOW", step in ("flow", "flowredux"))
    assert_same_results_both_ways(monkeypatch, "WIDE", dtype, n)


@pytest.mark.gpu
def test_gpu_wide_and_split_kernels_bench_shape_bit_for_bit(monkeypatch):
    # the bench's stack (order 128, float64, one right-hand side) and 16 right-hand sides (a
    # register column in every warp): X from the wide kernel (each step and search) and from the
    # split kernel equals getrf_block's bit for bit
    monkeypatch.setattr(_lu_block, "PANEL", False)
    rng = np.random.default_rng()
    a = cupy.asarray(rng.standard_normal((1000, 128, 128)))
    for k in (1, 16):
        b = cupy.asarray(rng.standard_normal((1000, 128, k)))
        x = {}
        for setting in ((True, False, False, False, False), (True, True, False, False, False),
                        (True, False, True, False, False), (True, False, False, True, False),
                        (True, False, True, True, False), (False, False, False, False, True),
                        (False, False, False, False, False)):
            for switch, value in zip(("WIDE", "WIDE_LOOKAHEAD", "WIDE_REDUX", "WIDE_FLOW", "SPLIT"), setting):
                monkeypatch.setattr(_lu_block, switch, value)
            x[setting] = la.solve(a, b).get()
        want = x[False, False, False, False, False]
        assert all(same_bits(got, want) for got in x.values())


@pytest.mark.gpu
@pytest.mark.parametrize("window", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [65, 97, 128])
def test_gpu_split_kernel_matches_the_register_tile(monkeypatch, dtype, n, window):
    # on the device, with the panel and wide kernels off: getrf_block_split (SPLIT on, with and
    # without the windowed step) against getrf_block (the factorization alone through it for every
    # dtype it has)
    monkeypatch.setattr(_lu_block, "SPLIT_WINDOW", window)
    monkeypatch.setattr(_lu_block, "PANEL", False)
    monkeypatch.setattr(_lu_block, "WIDE", False)
    monkeypatch.setattr(_lu_block, "SPLIT_FACTOR_DTYPES", _lu_block.SPLIT_DTYPES)
    assert_same_results_both_ways(monkeypatch, "SPLIT", dtype, n)


@pytest.mark.gpu
@pytest.mark.parametrize("grid", [7, None])
@pytest.mark.parametrize("window", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [97, 121, 128])
def test_gpu_compact_kernel_matches_the_register_tile(monkeypatch, dtype, n, window, grid):
    # on the device: the solves through getrf_block_compact (COMPACT on for both dtypes; float64's
    # orders 121 and 128 spill their last panel) against getrf_block, with its own grid or 7 blocks
    # (each solving several systems in turn); the factorization alone takes the split kernel
    monkeypatch.setattr(_lu_block, "SPLIT_WINDOW", window)
    monkeypatch.setattr(_lu_block, "COMPACT", True)
    monkeypatch.setattr(_lu_block, "COMPACT_DTYPES", _lu_block.SPLIT_DTYPES)
    monkeypatch.setattr(_lu_block, "COMPACT_ORDER", _lu_block.SPLIT_ORDER)
    monkeypatch.setattr(_lu_block, "COMPACT_BATCH_PER_SM", 0)
    monkeypatch.setattr(_lu_block, "COMPACT_MAX_GRID", grid)
    monkeypatch.setattr(_lu_block, "PANEL", False)
    monkeypatch.setattr(_lu_block, "WIDE", False)
    monkeypatch.setattr(_lu_block, "SPLIT_FACTOR_DTYPES", _lu_block.SPLIT_DTYPES)
    assert_same_results_both_ways(monkeypatch, "SPLIT", dtype, n)
