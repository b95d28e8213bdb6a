"""The register-tile Cholesky leaf with its inverse (``ra_rocsolver_potf2_inv`` in
``rocsolver/cholesky.hip``), on the kernel emulator (tests/kernel_emu.py).

The real kernel runs on the CPU for the 32-lane (NVIDIA-like) and 64-lane (AMD wavefront) targets
through :func:`rocarray.rocsolver._cholesky_kernels.potf2_inv`, one block at a time, against NumPy
float64/complex128: the factor in the stored triangle (the other triangle and the spare rows
stay NaN, as poisoned), the inverse of the factor's lower normal form in the whole n x n square
of W (poisoned NaN before; zeros above its diagonal), ``info`` at the first non-positive or NaN
pivot (1-based, plus the block's global column offset, written only where it was 0) with the
stored triangle then equal to the reference potf2's (``cholesky_host``). Orders 1, 2, 3, 31, 64,
127, 128 (complex128's tile takes 64 at most), both triangles, all four dtypes; the 64-lane target
runs a subset (the emulator runs one OS thread per GPU thread and compiles each instantiation
once).
"""

import numpy as np
import pytest

import cholesky_host as host
from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture the emulator builds on)

from rocarray.rocsolver import _cholesky_kernels as kern

ALL = ["float32", "float64", "complex64", "complex128"]


@pytest.fixture(params=["cuda32", "hip64"])
def emu(request):
    dev = request.getfixturevalue("emulated_device" if request.param == "cuda32" else "emulated_wave64_device")
    dev.target = request.param
    return dev


def spd(rng, n, dtype, shift=1.0):
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    x = rng.standard_normal((n, n)).astype(wide)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal((n, n))
    return (x @ x.conj().T / max(n, 1) + shift * np.eye(n)).astype(wide)


def tol(dtype, n):
    return 50 * max(n, 1) * np.finfo(np.dtype(dtype)).eps


def run(dev, a, uplo, dtype, info0=0, j0=0):
    """potf2_inv of ``a``'s ``uplo`` triangle (lda n + 2, ldw n + 1; everything else NaN):
    (the stored n x n block, W's n x n square, the whole A and W buffers, info)."""
    n = a.shape[0]
    lda, ldw = n + 2, n + 1
    buf = np.full(lda * n + 3, np.nan, dtype)
    host.put_triangle(host.view(buf, n, n, lda), a.astype(dtype), uplo)
    A = dev.array(buf)
    W = dev.array(np.full(ldw * n + 3, np.nan, dtype))
    info = dev.array(np.full(1, info0, np.int32))
    kern.potf2_inv(uplo, n, A, lda, W, ldw, info, j0)
    A, W = np.asarray(A), np.asarray(W)
    return host.view(A, n, n, lda).copy(), host.view(W, n, n, ldw).copy(), A, W, int(np.asarray(info)[0])


def check_untouched(block, A, W, n, uplo):
    i, j = np.indices((n, n))
    other = (i > j) if uplo == "U" else (i < j)
    assert np.isnan(block[other]).all()
    lda, ldw = n + 2, n + 1
    spare = np.lib.stride_tricks.as_strided(A[n:], (lda - n, n), (A.itemsize, lda * A.itemsize))
    assert np.isnan(spare).all() and np.isnan(A[lda * n:]).all()
    assert np.isnan(W[ldw * n:]).all()


def orders(dtype):
    top = kern.inverse_leaf_order(dtype)
    return [n for n in (1, 2, 3, 31, 64, 127, 128) if n <= top]


CASES = [(d, n, u) for d in ALL for n in orders(d) for u in "LU"]
WAVE64 = {("float64", 1, "L"), ("float64", 31, "U"), ("float64", 128, "L"), ("float32", 127, "U"),
          ("complex64", 64, "U"), ("complex128", 64, "L"), ("complex128", 3, "U")}


@pytest.mark.parametrize("dtype,n,uplo", CASES)
def test_factor_and_inverse(emu, rng, dtype, n, uplo):
    if emu.target == "hip64" and (dtype, n, uplo) not in WAVE64:
        pytest.skip("the 64-lane target runs a subset (emulator time)")
    a = spd(rng, n, dtype)
    block, w, A, W, info = run(emu, a, uplo, dtype)
    assert info == 0
    check_untouched(block, A, W, n, uplo)
    want = np.linalg.cholesky(a.astype(dtype).astype(a.dtype))   # lower L; S = L for both triangles
    got = host.tri(block, uplo)
    s = got if uplo == "L" else got.conj().T
    assert np.all(np.diag(s).imag == 0) and np.all(np.diag(s).real > 0)
    t = tol(dtype, n)
    np.testing.assert_allclose(s, want, rtol=t, atol=t * np.abs(want).max())
    inv = np.linalg.inv(want)
    assert np.all(np.triu(w, 1) == 0)
    np.testing.assert_allclose(w, np.tril(inv), rtol=t, atol=t * np.abs(inv).max())
    # the inverse of the factor actually stored, to its working precision
    eye = w.astype(a.dtype) @ s.astype(a.dtype)
    assert np.abs(eye - np.eye(n)).max() < t * max(1.0, np.abs(inv).max() * np.abs(want).max())


FAIL_CASES = [("float64", 64, "L", 1), ("float64", 64, "U", 17), ("float64", 128, "L", 128),
              ("float32", 31, "U", 5), ("complex64", 127, "L", 100), ("complex128", 64, "U", 33)]


@pytest.mark.parametrize("dtype,n,uplo,k", FAIL_CASES)
def test_not_positive_definite_info_and_stop(emu, rng, dtype, n, uplo, k):
    if emu.target == "hip64" and n > 64:
        pytest.skip("the 64-lane target runs a subset (emulator time)")
    a = spd(rng, n, dtype)
    a[k - 1, k - 1] -= 1e3     # the leading minor of order k is the first not positive definite
    j0 = 256
    block, w, A, W, info = run(emu, a, uplo, dtype, j0=j0)
    assert info == j0 + k
    check_untouched(block, A, W, n, uplo)
    # the stored triangle is the reference potf2's: columns before k factored, the rest updated
    ref = np.full(n * n + 1, np.nan, dtype)
    host.put_triangle(host.view(ref, n, n, n), a.astype(dtype), uplo)
    ref_info = np.zeros(1, np.int32)
    host.Kernels().potf2(uplo, n, ref, n, 0, ref_info, 1)
    assert ref_info[0] == k
    want = host.tri(host.view(ref, n, n, n), uplo)
    t = tol(dtype, n)
    np.testing.assert_allclose(host.tri(block, uplo), want, rtol=t, atol=t * np.abs(want).max())


@pytest.mark.parametrize("k", [1, 20, 31])
def test_nan_pivot_fails_at_its_column(emulated_device, rng, k):
    n = 31
    a = spd(rng, n, "complex64")
    a[k - 1, k - 1] = np.nan
    _, _, _, _, info = run(emulated_device, a, "L", "complex64")
    assert info == k


def test_info_already_set_stays(emulated_device, rng):
    a = spd(rng, 9, "float64")
    a[3, 3] = -1.0
    _, _, _, _, info = run(emulated_device, a, "U", "float64", info0=2)
    assert info == 2


def test_registered():
    names = kern.instantiations()
    for d in ALL:
        assert kern.inverse_kernel_name(d) in names
    assert kern.inverse_leaf_order("float64") == 128 and kern.inverse_leaf_order("complex128") == 64


def test_lacpy_copies_the_block_only(emulated_device, rng):
    m, n, lds, ldd = 300, 5, 303, 301
    src = rng.standard_normal(lds * n)
    S = emulated_device.array(src)
    D = emulated_device.array(np.full(ldd * n + 2, np.nan))
    kern.lacpy(m, n, S, lds, D, ldd)
    d = np.asarray(D)
    np.testing.assert_array_equal(host.view(d, m, n, ldd), host.view(src, m, n, lds))
    assert np.isnan(np.lib.stride_tricks.as_strided(d[m:], (ldd - m, n), (8, ldd * 8))).all()
    assert np.isnan(d[ldd * n:]).all()


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype, n", [("float32", 150), ("complex128", 300)])
def test_potrf_end_to_end(emulated_device, rng, uplo, dtype, n):
    # the whole recursion on the emulator: potf2_inv leaves, lacpy, rocblas gemm and syrk/herk;
    # complex128 (leaves of 64) at 300 has panels of two leaves, whose second leaf reads the
    # staged copy after a gemm update of it
    import rocarray.rocsolver as rs

    lda = n + 1
    a = spd(rng, n, dtype)
    buf = np.full(lda * n + 3, np.nan, dtype)
    host.put_triangle(host.view(buf, n, n, lda), a.astype(dtype), uplo)
    A, info = emulated_device.array(buf), emulated_device.array(np.full(1, 9, np.int32))
    rs.potrf(uplo, n, A, lda, info)
    assert int(np.asarray(info)[0]) == 0
    t = host.tri(host.view(np.asarray(A), n, n, lda), uplo).astype(a.dtype)
    s = t if uplo == "L" else t.conj().T
    err = np.linalg.norm(s @ s.conj().T - a) / (np.linalg.norm(a) * n * np.finfo(np.dtype(dtype)).eps)
    assert err < 10


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_potrf_scratch_other_triangle_end_to_end(emulated_device, rng, monkeypatch, uplo):
    # keep_other=False with diagonal squares of 64: the trailing update of order 172 runs a level
    # of block pairs, a ragged pair, the batched squares (rocblas gemm_strided_batched) and a
    # ragged square on the real gemm kernels; the spare rows and the buffer's tail stay NaN
    import rocarray.rocsolver as rs
    from rocarray.rocsolver import _cholesky

    monkeypatch.setattr(_cholesky, "UPDATE_DIAGONAL", 64)
    n, dtype = 300, "float32"
    lda = n + 1
    a = spd(rng, n, dtype)
    buf = np.full(lda * n + 3, np.nan, dtype)
    host.put_triangle(host.view(buf, n, n, lda), a.astype(dtype), uplo)
    A, info = emulated_device.array(buf), emulated_device.array(np.full(1, 9, np.int32))
    rs.potrf_strided_batched(uplo, n, A, lda, lda * n, info, 1, keep_other=False)
    assert int(np.asarray(info)[0]) == 0
    out = np.asarray(A)
    t = host.tri(host.view(out, n, n, lda), uplo).astype(a.dtype)
    s = t if uplo == "L" else t.conj().T
    err = np.linalg.norm(s @ s.conj().T - a) / (np.linalg.norm(a) * n * np.finfo(np.dtype(dtype)).eps)
    assert err < 10
    assert np.isnan(host.view(out, lda, n, lda)[n:]).all() and np.isnan(out[lda * n:]).all()
    names = emulated_device.names()
    assert not any("tri_merge" in x for x in names) and sum("potf2_inv" in x for x in names) == 3
