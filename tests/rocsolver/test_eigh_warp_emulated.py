"""The one-warp-per-matrix Jacobi kernel (``ra_rocsolver_syevj_warp``, ``eigh_warp.hip``) run on
the CPU through the kernel emulator (tests/kernel_emu.py), for NVIDIA's 32-lane warps and AMD's
64-lane wavefronts, through ``rocsolver.syevj_strided_batched``/``heevj_strided_batched`` and
``ra.linalg.eigh``, against NumPy in float64: eigenvalues within ``30 n eps ||A||``, the backward
error ``||A V - V diag(w)||`` and ``||V^H V - I||``. Also which kernel each order is routed to
(launchfake: recorded, not run). CPU tests: skipped where g++ is missing.
"""

import numpy as np
import pytest

from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture the emulated ones build on)

import rocarray as ra
import rocarray.rocsolver as rocsolver
from rocarray.rocsolver import _eigh_kernels

SEED = 20261205
DTYPES = ["float32", "float64", "complex64", "complex128"]


def _real(dtype):
    return np.dtype(np.dtype(dtype).char.lower())


def _eps(dtype):
    return np.finfo(_real(dtype)).eps


def hermitian(rng, n, dtype, spread=None):
    """A random Hermitian (symmetric) matrix in float64/complex128; ``spread``: its eigenvalues."""
    a = rng.standard_normal((n, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((n, n))
    a = (a + a.conj().T) / 2
    if spread is not None:
        q, _ = np.linalg.qr(a)
        a = (q * spread) @ q.conj().T
        a = (a + a.conj().T) / 2
    return a.astype(dtype).astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64)


def check_eigenpairs(a, w, v, dtype, factor=30):
    """Eigenvalues against NumPy's, ||A V - V diag(w)|| / (||A|| n eps), ||V^H V - I|| / (n eps)."""
    a = np.asarray(a, np.complex128 if np.dtype(dtype).kind == "c" else np.float64)
    n = a.shape[0]
    e = _eps(dtype)
    scale = max(np.linalg.norm(a), np.finfo(np.float64).tiny)
    w = np.asarray(w, np.float64)
    assert np.all(np.diff(w) >= 0)
    assert np.max(np.abs(w - np.linalg.eigvalsh(a))) <= factor * n * e * scale
    if v is not None:
        v = np.asarray(v, a.dtype)
        assert np.linalg.norm(a @ v - v * w) <= factor * n * e * scale
        assert np.linalg.norm(v.conj().T @ v - np.eye(n)) <= factor * n * e


def _stored(a, uplo, dtype, garbage=np.nan):
    """The uplo triangle of ``a`` as ``dtype``, garbage in the other one and in the diagonal's
    imaginary part (neither may be read)."""
    keep = np.tril(np.ones(a.shape, bool)) if uplo == "L" else np.triu(np.ones(a.shape, bool))
    out = np.where(keep, a, garbage).astype(dtype)
    if np.dtype(dtype).kind == "c":
        out[np.diag_indices(a.shape[0])] += 1j * 0.5
    return out


def _prefix(dtype="float64", n=16):
    """The name of the Jacobi kernel launched now for order ``n`` of ``dtype`` (on 32 lanes), up to
    its template arguments."""
    return _eigh_kernels.warp_kernel_name(dtype, 16 if n <= 16 else 32 if n <= 32 else 64).split("<")[0] + "<"


def _run(dev, mats, dtype, uplo="L", evect="V", lda=None, extra=0, max_sweeps=100):
    """syevj/heevj_strided_batched on the emulator with poisoned outputs and padding; returns
    (A after, W, info, residual, n_sweeps) on the host, with A's padding checked untouched."""
    n, batch = mats[0].shape[0], len(mats)
    lda = lda or n
    stride = lda * n + extra
    host = np.full(batch * stride, np.nan, dtype=dtype)
    for b, a in enumerate(mats):
        host[b * stride:b * stride + lda * n].reshape(n, lda).T[:n] = _stored(a, uplo, dtype)
    real = _real(dtype)
    A = dev.array(host)
    W = dev.array(np.full(batch * (n + 1), np.nan, real))
    info = dev.array(np.full(batch, -7, np.int32))
    residual = dev.array(np.full(batch, np.nan, real))
    sweeps = dev.array(np.full(batch, -1, np.int32))
    fn = rocsolver.heevj_strided_batched if np.dtype(dtype).kind == "c" else rocsolver.syevj_strided_batched
    fn(evect, uplo, n, A, lda, stride, 0.0, residual, max_sweeps, sweeps, W, n + 1, info, batch)
    assert dev.names()[-1].startswith(_prefix(dtype, n))
    out = np.asarray(A)
    for b in range(batch):  # rows past n of each column, and the gap between matrices, untouched
        block = out[b * stride:(b + 1) * stride]
        assert np.all(np.isnan(block[:lda * n].reshape(n, lda)[:, n:])) and np.all(np.isnan(block[lda * n:]))
    w = np.asarray(W).reshape(batch, n + 1)
    assert np.all(np.isnan(w[:, n]))  # past each matrix's n eigenvalues: untouched
    return out, w[:, :n], np.asarray(info), np.asarray(residual), np.asarray(sweeps)


def _vectors(out, b, n, lda, extra):
    stride = lda * n + extra
    return out[b * stride:b * stride + lda * n].reshape(n, lda).T[:n]


@pytest.mark.parametrize("dtype", DTYPES)
def test_warp_kernel_every_order_32_lanes(emulated_device, dtype):
    rng = np.random.default_rng(SEED)
    for n, batch in [(1, 1), (2, 5), (3, 1), (5, 3), (16, 1), (17, 1), (31, 1), (32, 3)]:
        mats = [hermitian(rng, n, dtype) for _ in range(batch)]
        uplo = "U" if n % 2 else "L"
        out, w, info, residual, sweeps = _run(emulated_device, mats, dtype, uplo=uplo, lda=n + 2, extra=3)
        assert list(info) == [0] * batch
        assert np.all(sweeps >= 0) and np.all(sweeps <= 15) and np.all(np.isfinite(residual))
        for b, a in enumerate(mats):
            check_eigenpairs(a, w[b], _vectors(out, b, n, n + 2, 3), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_warp_kernel_64_lanes(emulated_wave64_device, dtype):
    rng = np.random.default_rng(SEED + 1)
    # (33 runs the order-64 kernel with a dummy index: float64 only, to keep the emulation short)
    orders = [(1, 1), (5, 3), (20, 1), (32, 3)] + ([(64, 1)] if dtype != "complex128" else []) + (
        [(33, 1)] if dtype == "float64" else [])
    for n, batch in orders:
        mats = [hermitian(rng, n, dtype) for _ in range(batch)]
        out, w, info, _, _ = _run(emulated_wave64_device, mats, dtype, uplo="L", lda=n + 1)
        assert list(info) == [0] * batch
        assert emulated_wave64_device.names()[-1].endswith(f", {64 if n > 32 else 32 if n > 16 else 16}>")
        for b, a in enumerate(mats):
            check_eigenpairs(a, w[b], _vectors(out, b, n, n + 1, 0), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_warp_kernel_graded_spectrum_and_negative_couplings(emulated_device, dtype):
    # eigenvalues of both signs over six decades, and a matrix whose couplings are all negative
    # (the rotation's sine takes the sign of a_pq): orders 31 and 32 (the row split for float32)
    rng = np.random.default_rng(SEED + 7)
    for n in (31, 32):
        spread = np.geomspace(1.0, 1e-6, n) * np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
        negative = -np.abs(hermitian(rng, n, "float64")) + np.diag(rng.standard_normal(n))
        wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
        mats = [hermitian(rng, n, dtype, spread), negative.astype(dtype).astype(wide)]
        out, w, info, residual, sweeps = _run(emulated_device, mats, dtype, lda=n)
        assert list(info) == [0, 0] and np.all(sweeps <= 15)
        for b, a in enumerate(mats):
            check_eigenpairs(a, w[b], _vectors(out, b, n, n, 0), dtype)


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_warp_kernel_degenerate_identity_and_upper(emulated_device, dtype):
    rng = np.random.default_rng(SEED + 2)
    n = 12
    spread = np.repeat([1.0, -2.0, 3.0], 4)
    mats = [hermitian(rng, n, dtype, spread), np.eye(n), hermitian(rng, n, dtype, np.full(n, 2.5))]
    out, w, info, residual, sweeps = _run(emulated_device, mats, dtype, uplo="U")
    assert list(info) == [0, 0, 0]
    assert sweeps[1] == 0 and residual[1] == 0 and np.array_equal(w[1], np.ones(n))
    assert np.array_equal(_vectors(out, 1, n, n, 0), np.eye(n))
    for b, a in enumerate(mats):
        check_eigenpairs(a, w[b], _vectors(out, b, n, n, 0), dtype)


@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_warp_kernel_nan_and_inf_report_info_nan_last(emulated_device, dtype):
    rng = np.random.default_rng(SEED + 3)
    n = 7
    nan = hermitian(rng, n, dtype)
    nan[2, 4] = nan[4, 2] = np.nan
    inf = np.eye(n)
    inf[3, 3] = np.inf
    good = hermitian(rng, n, dtype)
    with np.errstate(invalid="ignore"):
        out, w, info, residual, sweeps = _run(emulated_device, [nan, good, inf], dtype, uplo="L", max_sweeps=20,
                                              lda=n, extra=0)
    assert list(info) == [1, 0, 1] and sweeps[0] == 20 and sweeps[2] == 20
    assert np.isnan(residual[0])
    for b in (0, 2):
        isnan = np.isnan(w[b])
        assert not np.any(isnan[:-1] & ~isnan[1:])  # NaN last
        finite = w[b][~isnan]
        assert np.all(np.diff(finite) >= 0)
    check_eigenpairs(good, w[1], _vectors(out, 1, n, n, 0), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_warp_kernel_values_only_leaves_a(emulated_device, dtype):
    rng = np.random.default_rng(SEED + 4)
    n = 9
    mats = [hermitian(rng, n, dtype) for _ in range(3)]
    stride = n * n
    host = np.concatenate([_stored(a, "L", dtype).T.ravel() for a in mats])
    A = emulated_device.array(host)
    W = emulated_device.array(np.full(3 * n, np.nan, _real(dtype)))
    info = emulated_device.array(np.full(3, -7, np.int32))
    fn = rocsolver.heevj_strided_batched if np.dtype(dtype).kind == "c" else rocsolver.syevj_strided_batched
    fn("N", "L", n, A, n, stride, 0.0, None, 100, None, W, n, info, 3)
    assert emulated_device.names()[-1].startswith(_prefix())
    np.testing.assert_array_equal(np.asarray(A), host)
    assert list(np.asarray(info)) == [0, 0, 0]
    for b, a in enumerate(mats):
        check_eigenpairs(a, np.asarray(W)[b * n:(b + 1) * n], None, dtype)


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_facade_eigh_on_the_warp_kernel(emulated_device, dtype):
    rng = np.random.default_rng(SEED + 5)
    a = rng.standard_normal((2, 32, 32))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((2, 32, 32))
    a = a.astype(dtype)  # not Hermitian: only the UPLO triangle counts
    for uplo in ("L", "U"):
        w, v = ra.linalg.eigh(emulated_device.array(a), UPLO=uplo)
        assert emulated_device.names()[-1] == _eigh_kernels.warp_kernel_name(dtype, 32)
        w, v = np.asarray(w), np.asarray(v)
        assert w.dtype == _real(dtype) and v.dtype == np.dtype(dtype) and v.shape == a.shape
        for k in range(2):
            full = np.linalg.eigh(a[k].astype(np.complex128 if dtype == "complex128" else np.float64), UPLO=uplo)
            herm = (full.eigenvectors * full.eigenvalues) @ full.eigenvectors.conj().T
            check_eigenpairs(herm, w[k], v[k], dtype)
    w_only = np.asarray(ra.linalg.eigvalsh(emulated_device.array(a), UPLO=uplo))
    np.testing.assert_allclose(w_only, w, rtol=0, atol=30 * 32 * _eps(dtype) * np.abs(w).max())


@pytest.mark.parametrize("dtype,shape", [("float64", (2, 3, 17, 17)), ("complex64", (3, 5, 5))])
def test_facade_stack_path_and_the_way_back_agree_bit_for_bit(emulated_device, monkeypatch, dtype, shape):
    """``eigh`` hands the C-ordered stack to the kernel as it is (``_eigh.WARP_STACK``) and gets
    the eigenvectors in NumPy's layout; the way back (a transposing copy, the vectors written over
    it) gives the same bits: both fill A's slice of shared memory with the same elements. A
    non-contiguous input and dummy indices (order 17) on the way."""
    from rocarray.linalg import _eigh

    rng = np.random.default_rng(SEED + 29)
    n = shape[-1]
    mats = np.stack([hermitian(rng, n, dtype) for _ in range(int(np.prod(shape[:-2])))]).astype(dtype)
    a = np.swapaxes(mats.reshape(shape), -1, -2)  # the transposes, a non-contiguous view
    out = {}
    for stack in (True, False):
        monkeypatch.setattr(_eigh, "WARP_STACK", stack)
        w, v = ra.linalg.eigh(emulated_device.array(a), UPLO="U")
        out[stack] = (np.asarray(w), np.asarray(v))
        assert emulated_device.names()[-1] == _eigh_kernels.warp_kernel_name(dtype, 32 if n > 16 else 16)
    np.testing.assert_array_equal(out[True][0], out[False][0])
    np.testing.assert_array_equal(out[True][1], out[False][1])
    w, v = out[True]
    assert w.shape == shape[:-1] and v.shape == shape
    ws, vs = ra.linalg.eigh(emulated_device.array(a), UPLO="U", subset_by_index=(1, 3))
    np.testing.assert_array_equal(np.asarray(ws), w[..., 1:4])
    np.testing.assert_array_equal(np.asarray(vs), v[..., 1:4])
    flat_a, flat_w, flat_v = a.reshape(-1, n, n), w.reshape(-1, n), v.reshape(-1, n, n)
    for k in range(flat_a.shape[0]):
        full = np.triu(flat_a[k]) + np.triu(flat_a[k], 1).conj().T
        check_eigenpairs(full, flat_w[k], flat_v[k], dtype)


# --------------------------------------------------------------------------------------------
# routing (recorded launches, nothing runs)
# --------------------------------------------------------------------------------------------

def _route(fake, n, dtype, batch=3):
    real = _real(dtype)
    A = fake.array((n * n * batch,), dtype)
    W = fake.array((n * batch,), real)
    info = fake.array((batch,), np.int32)
    fn = rocsolver.heevj_strided_batched if np.dtype(dtype).kind == "c" else rocsolver.syevj_strided_batched
    fn("V", "L", n, A, n, n * n, 0.0, None, 100, None, W, n, info, batch)
    return fake.launches[-1]


@pytest.mark.parametrize("dtype", DTYPES)
def test_orders_up_to_the_warp_take_the_warp_kernel(fake_device, dtype):
    ctype = {"float32": "float", "float64": "double", "complex64": "ra_c64", "complex128": "ra_c128"}[dtype]
    for n in (1, 2, 16, 17, 32):
        launch = _route(fake_device, n, dtype, batch=9)
        order = 16 if n <= 16 else 32
        per_warp = _eigh_kernels.warp_shared_bytes(order, dtype)
        warps = min(4, 49152 // per_warp)
        assert launch.name == _eigh_kernels.warp_kernel_name(dtype, order)
        assert launch.block == (32 * warps, 1, 1) and launch.grid == (-(-9 // warps), 1, 1)
        assert launch.shared == warps * per_warp
        assert int(launch.args[-1]) == 9 and int(launch.args[0]) == n
    assert _route(fake_device, 33, dtype).name == f"ra_rocsolver_syevj_small<{ctype}, false>"


@pytest.mark.parametrize("dtype", DTYPES)
def test_wave64_routes_up_to_64_but_complex128_to_32(fake_device, monkeypatch, dtype):
    from kernel_emu import WAVE64_PROFILE

    monkeypatch.setattr(_eigh_kernels.backend, "device_info", lambda device_id=None: WAVE64_PROFILE)
    limit = 64 if dtype != "complex128" else 32
    assert _route(fake_device, limit, dtype).name.startswith(_prefix())
    assert _route(fake_device, limit, dtype).name.endswith(f", {limit}>")
    assert _route(fake_device, 20, dtype).name.endswith(", 32>")
    assert _route(fake_device, 16, dtype).name.endswith(", 16>")
    assert _route(fake_device, limit + 1, dtype).name.startswith("ra_rocsolver_syevj_small<")
    assert _eigh_kernels.warp_order(limit + 1, dtype, 0) is None


def test_warp_kernels_registered():
    names = _eigh_kernels.warp_instantiations()
    assert len(names) == 34 and "ra_rocsolver_syevj_warp<ra_c128, 32>" in names
    assert "ra_rocsolver_syevj_warp_fast<float, 32>" in names
    assert "ra_rocsolver_syevj_warp<float, 16>" in names and "ra_rocsolver_syevj_warp_half<float, 32>" in names
    assert "ra_rocsolver_syevj_warp_xor<double, 64>" in names
    assert "ra_rocsolver_syevj_warp<ra_c128, 64>" not in names
    assert "ra_rocsolver_syevj_warp_half<ra_c128, 64>" not in names
    assert "ra_rocsolver_syevj_warp_xor<ra_c128, 64>" not in names
    # f64 at order 32: A (32 x 33; 32 x 32 in the XOR layout), 16 pairs of 32 bytes, 64 reals, 32 ranks
    padded, xor = "syevj_warp", "syevj_warp_xor"
    assert _eigh_kernels.warp_shared_bytes(32, "float64", padded) == 8448 + 16 * 32 + 64 * 8 + 32 * 4
    assert _eigh_kernels.warp_shared_bytes(32, "float32", padded) == 4224 + 16 * 16 + 64 * 4 + 32 * 4
    assert _eigh_kernels.warp_shared_bytes(32, "float64", xor) == 8192 + 16 * 32 + 64 * 8 + 32 * 4
    assert _eigh_kernels.warp_shared_bytes(32, "float32", xor) == 4096 + 16 * 16 + 64 * 4 + 32 * 4
    assert _eigh_kernels.warp_shared_bytes(32, "float32", "syevj_warp_half") == \
        _eigh_kernels.warp_shared_bytes(32, "float32", padded)


def _scaled_pair(rng, n, dtype):
    """Two random Hermitian matrices of order n, one scaled far up and one far down."""
    big = 1e15 if np.finfo(np.dtype(dtype)).bits <= 32 else 1e150
    return [(hermitian(rng, n, dtype) * big).astype(dtype), (hermitian(rng, n, dtype) / big).astype(dtype)]


@pytest.mark.parametrize("dtype,n", [("float32", 32), ("float64", 31), ("complex64", 16), ("complex128", 32)])
def test_warp_kernel_xor_and_the_way_back_agree(emulated_device, monkeypatch, dtype, n):
    """The XOR layout and tournament (``SYEVJ_WARP_XOR``) and the padded circle kernel (the way
    back) both give the eigenpairs, in sweep counts at most one apart: the row split (float32 at
    32), the block split with its rows reordered (float64 with a dummy index, complex128 at 32),
    groups of 16 (complex64); one matrix scaled far up, one far down."""
    rng = np.random.default_rng(SEED + 23)
    mats = _scaled_pair(rng, n, dtype)
    sweeps = {}
    for xor in (True, False):
        monkeypatch.setattr(_eigh_kernels, "SYEVJ_WARP_XOR", xor)
        out, w, info, _, sweeps[xor] = _run(emulated_device, mats, dtype, uplo="U", lda=n + 1)
        assert emulated_device.names()[-1].startswith(
            _prefix(dtype, n) if xor else "ra_rocsolver_syevj_warp<")
        assert list(info) == [0, 0]
        for b, a in enumerate(mats):
            check_eigenpairs(a, w[b], _vectors(out, b, n, n + 1, 0), dtype)
    assert np.all(np.abs(sweeps[True] - sweeps[False]) <= 1), sweeps


@pytest.mark.parametrize("n", [32, 17])
def test_warp_kernel_fast_rotations_and_the_way_back_agree(emulated_device, monkeypatch, n):
    """Scaled rotations (``FAST_ROTATIONS``: ``syevj_warp_fast``, float32 in the XOR kernel of
    order 32) and the XOR kernel (the way back) both give the eigenpairs, in sweep counts at most
    one apart: random matrices, one scaled far up and one far down, a graded spectrum; and a
    repeated eigenvalue, whose last sweeps work at the rounding floor (either may take a few
    more); n = 17 with dummy indices."""
    rng = np.random.default_rng(SEED + 29)
    mats = [hermitian(rng, n, "float32") for _ in range(2)] + _scaled_pair(rng, n, "float32")
    mats.append(hermitian(rng, n, "float32", spread=np.repeat([1.0, 2.0], [n // 2, n - n // 2])))
    mats.append(hermitian(rng, n, "float32", spread=np.logspace(-6, 0, n)))
    sweeps = {}
    for fast in (True, False):
        monkeypatch.setattr(_eigh_kernels, "FAST_ROTATIONS", fast)
        out, w, info, residual, sweeps[fast] = _run(emulated_device, mats, "float32", uplo="U", lda=n + 1)
        assert emulated_device.names()[-1] == (
            "ra_rocsolver_syevj_warp_fast<float, 32>" if fast else "ra_rocsolver_syevj_warp_xor<float, 32>")
        assert list(info) == [0] * len(mats) and np.all(np.isfinite(residual))
        for b, a in enumerate(mats):
            check_eigenpairs(a, w[b], _vectors(out, b, n, n + 1, 0), "float32")
    distinct = [0, 1, 2, 3, 5]
    assert np.all(np.abs(sweeps[True] - sweeps[False])[distinct] <= 1), sweeps
    assert max(sweeps[True][4], sweeps[False][4]) <= 20, sweeps


@pytest.mark.parametrize("dtype,n", [("float32", 32), ("float64", 31), ("complex64", 16)])
def test_warp_kernel_half_blocks_and_the_way_back_agree(emulated_device, monkeypatch, dtype, n):
    """Rotating half of the blocks (``SYEVJ_WARP_HALF``, A kept exactly Hermitian, the angle from
    a scaled hypotenuse) and every block (the way back) both give the eigenpairs, in sweep counts
    at most one apart: the row split (float32 at 32), the block split with a dummy index, and
    groups of 16; one matrix scaled far up, one far down."""
    rng = np.random.default_rng(SEED + 21)
    mats = _scaled_pair(rng, n, dtype)
    sweeps = {}
    for half in (True, False):
        monkeypatch.setattr(_eigh_kernels, "SYEVJ_WARP_HALF", half)
        out, w, info, _, sweeps[half] = _run(emulated_device, mats, dtype, uplo="L")
        assert list(info) == [0, 0]
        for b, a in enumerate(mats):
            check_eigenpairs(a, w[b], _vectors(out, b, n, n, 0), dtype)
    assert np.all(np.abs(sweeps[True] - sweeps[False]) <= 1), sweeps


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_facade_stack_is_one_launch_on_the_input(fake_device, dtype):
    """``ra.linalg.eigh`` of a C-ordered ``(batch, 32, 32)`` stack of the computation dtype: one
    launch, reading the input where it is (no copy: the way back made a transposing copy and a
    zero fill of ``info`` first), row-major flag set, the eigenvectors into a new array."""
    from rocarray.rocsolver._eigh_kernels import ROWS, UPPER, VECTORS

    a = fake_device.array((5, 32, 32), dtype)
    w, v = ra.linalg.eigh(a)
    assert fake_device.names() == [_eigh_kernels.warp_kernel_name(dtype, 32)]
    args = fake_device.launches[0].args
    assert args[1].data.ptr == a.data.ptr and args[4].data.ptr == v.data.ptr != a.data.ptr
    assert int(args[2]) == 32 and int(args[3]) == int(args[5]) == 32 * 32
    assert int(args[-2]) == ROWS | VECTORS and int(args[-2]) & UPPER == 0
    assert v.shape == (5, 32, 32) and v.flags.c_contiguous and w.shape == (5, 32)
    ra.linalg.eigvalsh(a, UPLO="U")
    assert len(fake_device.launches) == 2 and int(fake_device.launches[1].args[-2]) == ROWS | UPPER
