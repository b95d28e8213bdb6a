"""The batched register-tile Cholesky (``ra_rocsolver_potrf_block`` in
``rocsolver/cholesky_block.hip``) on the kernel emulator (tests/kernel_emu.py), and its routing.

The real kernel runs on the CPU for the 32-lane (NVIDIA-like) and 64-lane (AMD wavefront)
targets through :func:`rocarray.rocsolver._cholesky_block.potrf` against NumPy in
float64/complex128: a strided batch of a few matrices (lda > n, gaps between the matrices, the
other triangle, the spare rows and the gaps poisoned NaN and checked untouched), the factor of
each, ``info`` per matrix (every element written: it starts at garbage) at the first
non-positive or NaN pivot with the failed matrix's stored triangle equal to the reference
potf2's (``cholesky_host``). Orders 1, 2, 3, 31, 32, 33, 64, 65, 127, 128 (complex128 to 64:
every tile shape and both sides of each shape's limit), both triangles, all four dtypes.
"""

import numpy as np
import pytest

import cholesky_host as host
from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture the emulator builds on)

from rocarray.rocsolver import _cholesky_block as block

ALL = ["float32", "float64", "complex64", "complex128"]


@pytest.fixture(params=["cuda32", "hip64"])
def emu(request):
    dev = request.getfixturevalue("emulated_device" if request.param == "cuda32" else "emulated_wave64_device")
    dev.target = request.param
    return dev


def spd(rng, n, dtype):
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    x = rng.standard_normal((n, n)).astype(wide)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal((n, n))
    return (x @ x.conj().T / max(n, 1) + np.eye(n)).astype(wide)


def tol(dtype, n):
    return 50 * max(n, 1) * np.finfo(np.dtype(dtype)).eps


def layout(n, batch):
    """(lda, stride, buffer length): spare rows, a gap after each matrix, a tail."""
    lda = n + 2
    stride = lda * n + 5
    return lda, stride, (batch - 1) * stride + lda * n + 7


def run(dev, mats, uplo, dtype):
    """potrf_block of the stack ``mats`` (their ``uplo`` triangles, everything else NaN): (the
    whole buffer after the launch, info)."""
    batch, n = mats.shape[0], mats.shape[-1]
    lda, stride, size = layout(n, batch)
    buf = np.full(size, np.nan, dtype)
    for b in range(batch):
        host.put_triangle(host.view(buf[b * stride:], n, n, lda), mats[b].astype(dtype), uplo)
    A = dev.array(buf)
    info = dev.array(np.full(batch + 1, -5, np.int32))
    block.potrf(uplo, n, A, lda, stride, info, batch)
    info = np.asarray(info)
    assert info[batch] == -5   # past the batch: untouched
    return np.asarray(A), info[:batch]


def check_untouched(buf, n, batch, uplo):
    """Everything but the stored triangles is still NaN."""
    lda, stride, size = layout(n, batch)
    mask = np.ones(size, bool)
    i, k = np.indices((n, n))
    stored = (i >= k) if uplo == "L" else (i <= k)
    for b in range(batch):
        idx = b * stride + i[stored] + k[stored] * lda
        mask[idx] = False
    assert np.isnan(buf[mask]).all()


def reference(a, uplo, dtype):
    """The reference potf2 of ``a``'s ``uplo`` triangle: (the stored triangle, info)."""
    n = a.shape[0]
    ref = np.full(n * n + 1, np.nan, dtype)
    host.put_triangle(host.view(ref, n, n, n), a.astype(dtype), uplo)
    info = np.zeros(1, np.int32)
    host.Kernels().potf2(uplo, n, ref, n, 0, info, 1)
    return host.tri(host.view(ref, n, n, n), uplo), int(info[0])


def orders(dtype):
    top = block.max_order(dtype)
    return [n for n in (1, 2, 3, 31, 32, 33, 64, 65, 127, 128) if n <= top]


CASES = [(d, n, u) for d in ALL for n in orders(d) for u in "LU"]


@pytest.mark.parametrize("dtype,n,uplo", CASES)
def test_factor_of_each_matrix(emu, rng, dtype, n, uplo):
    batch = 3
    mats = np.stack([spd(rng, n, dtype) for _ in range(batch)])
    fail = None
    if n >= 3:   # the middle matrix fails at a column inside its tile
        fail = 1 + (n * 2) // 3
        mats[1, fail - 1, fail - 1] -= 1e3
    buf, info = run(emu, mats, uplo, dtype)
    check_untouched(buf, n, batch, uplo)
    lda, stride, _ = layout(n, batch)
    t = tol(dtype, n)
    for b in range(batch):
        got = host.tri(host.view(buf[b * stride:], n, n, lda), uplo)
        if b == 1 and fail is not None:
            want, want_info = reference(mats[b], uplo, dtype)
            assert want_info == fail and info[b] == fail
            np.testing.assert_allclose(got, want, rtol=t, atol=t * np.abs(want).max())
            continue
        assert info[b] == 0
        s = got if uplo == "L" else got.conj().T
        assert np.all(np.diag(s).imag == 0) and np.all(np.diag(s).real > 0)
        want = np.linalg.cholesky(mats[b].astype(dtype).astype(mats.dtype))
        np.testing.assert_allclose(s, want, rtol=t, atol=t * np.abs(want).max())


@pytest.mark.parametrize("dtype,n,uplo", [("float32", 5, "L"), ("float64", 17, "U"), ("complex128", 9, "U")])
def test_batch_over_several_blocks(emulated_device, rng, dtype, n, uplo):
    # 16 (complex128: 4) matrices a block: 21 of them fill blocks and leave the last one partial;
    # failures at the first column, at the last one and at a NaN pivot
    batch = 21
    mats = np.stack([spd(rng, n, dtype) for _ in range(batch)])
    mats[0, 0, 0] = -1.0
    mats[16, n - 1, n - 1] -= 1e3
    mats[20, 2, 2] = np.nan
    buf, info = run(emulated_device, mats, uplo, dtype)
    check_untouched(buf, n, batch, uplo)
    want_info = np.zeros(batch, np.int32)
    want_info[[0, 16, 20]] = [1, n, 3]
    np.testing.assert_array_equal(info, want_info)
    lda, stride, _ = layout(n, batch)
    t = tol(dtype, n)
    for b in range(batch):
        got = host.tri(host.view(buf[b * stride:], n, n, lda), uplo)
        want, _ = reference(mats[b], uplo, dtype)
        np.testing.assert_allclose(got, want, rtol=t, atol=t * np.nanmax(np.abs(want)))


def test_registered_shapes_cover_the_orders():
    for d in ALL:
        top = block.max_order(d)
        assert top == (64 if d == "complex128" else 128)
        assert block.takes(1, d) and block.takes(top, d) and not block.takes(top + 1, d)
        for n in range(1, top + 1):
            m, side = block.shape(n, d)
            assert n <= m * side and 256 % (side * side) == 0
            assert block.kernel_name(d, m, side) in block.instantiations()


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype, shape, view", [
    ("float32", (3, 5, 5), "c"), ("float64", (2, 33, 33), "transposed"), ("complex64", (2, 2, 17, 17), "sliced"),
    ("complex128", (3, 40, 40), "c"), ("float64", (1, 1), "c"), ("int32", (2, 6, 6), "c")])
def test_linalg_cholesky_reads_the_stack_where_it_lies(emulated_device, rng, dtype, shape, view, upper):
    import rocarray as ra

    n = shape[-1]
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    mats = np.stack([spd(rng, n, dtype) for _ in range(int(np.prod(shape[:-2], dtype=int)))]).reshape(shape)
    if dtype == "int32":
        mats = np.rint(mats * 10) + 10 * n * np.eye(n)
    host_in = mats.astype(dtype)
    other = np.triu(np.ones((n, n), bool), 1)
    if upper:
        other = other.T
    poisoned = host_in.copy()
    if np.dtype(dtype).kind in "fc":
        poisoned[..., other] = np.nan   # the triangle that must not be read
    if view == "transposed":    # column-major matrices (a real dtype here)
        dev = np.swapaxes(emulated_device.array(np.ascontiguousarray(np.swapaxes(poisoned, -1, -2))), -1, -2)
        assert dev.strides[-2] < dev.strides[-1]
    elif view == "sliced":      # every other matrix of a longer stack
        big = np.repeat(poisoned, 2, axis=-3)
        dev = emulated_device.array(big)[..., ::2, :, :]
        assert not dev.flags.c_contiguous
    else:
        dev = emulated_device.array(poisoned)
    got = np.asarray(ra.linalg.cholesky(dev, upper=upper))
    names = emulated_device.names()
    assert any("potrf_block" in x for x in names) and not any("potf2" in x for x in names)
    want = np.linalg.cholesky(host_in.astype(wide), upper=upper)
    t = tol(dtype if dtype != "int32" else "float64", n)
    assert got.shape == shape and got.dtype == np.linalg.cholesky(host_in).dtype
    np.testing.assert_allclose(got, want, rtol=t, atol=t * np.abs(want).max())
    assert (got[..., other] == 0).all()


def test_linalg_cholesky_not_positive_definite(emulated_device, rng):
    import rocarray as ra

    mats = np.stack([spd(rng, 9, "float64") for _ in range(4)])
    mats[2, 5, 5] = -1.0
    with pytest.raises(np.linalg.LinAlgError):
        ra.linalg.cholesky(emulated_device.array(mats))
