"""``ra.linalg.eigh`` / ``eigvalsh`` against NumPy (SciPy for ``subset_by_index``).

CPU: argument errors on fake arrays, and the façade's layout logic (stacking, UPLO, subsets, the
dtype rule, the convergence error) with NumPy standing in for CuPy and a host solver standing in
for rocsolver's Jacobi. GPU: the real thing against NumPy in float64.
"""

import types

import numpy as np
import pytest
import scipy.linalg

from conftest import fake, random_array, to_device, to_host

import rocarray as ra
from rocarray.linalg import _eigh as facade

DTYPES = ["float32", "float64", "complex64", "complex128"]


def hermitian(rng, shape, dtype):
    a = random_array(rng, shape, dtype)
    return ((a + np.swapaxes(a, -1, -2).conj()) / 2).astype(dtype)


def eps(dtype):
    return np.finfo(np.dtype(dtype).char.lower()).eps


def check(a, w, v, dtype, uplo="L", factor=30):
    """Backward error and orthogonality per matrix, eigenvalues against NumPy's."""
    a = np.asarray(a, np.complex128 if np.iscomplexobj(a) else np.float64)
    ref = np.linalg.eigvalsh(a, UPLO=uplo)
    n = a.shape[-1]
    full = np.linalg.eigh(a, UPLO=uplo)  # the matrix NumPy sees, from the same triangle
    herm = full.eigenvectors @ (full.eigenvalues[..., None] * np.swapaxes(full.eigenvectors, -1, -2).conj())
    scale = np.linalg.norm(herm, axis=(-2, -1))[..., None] + 1e-300
    assert np.all(np.abs(np.asarray(w, np.float64) - ref) <= factor * n * eps(dtype) * scale)
    if v is not None:
        v = np.asarray(v, herm.dtype)
        res = np.linalg.norm(herm @ v - v * np.asarray(w, np.float64)[..., None, :], axis=(-2, -1))
        assert np.all(res <= factor * n * eps(dtype) * scale[..., 0])
        orth = np.linalg.norm(np.swapaxes(v, -1, -2).conj() @ v - np.eye(v.shape[-1]), axis=(-2, -1))
        assert np.all(orth <= factor * n * eps(dtype))


# --------------------------------------------------------------------------------------------
# CPU
# --------------------------------------------------------------------------------------------

def test_host_array_is_type_error():
    with pytest.raises(TypeError, match="host"):
        ra.linalg.eigh(np.eye(3))


@pytest.mark.parametrize("call, error, match", [
    (lambda: ra.linalg.eigh(fake((3,), np.float64)), np.linalg.LinAlgError, "at least two-dimensional"),
    (lambda: ra.linalg.eigvalsh(fake((3, 4), np.float64)), np.linalg.LinAlgError, "square"),
    (lambda: ra.linalg.eigh(fake((3, 3), np.float64), UPLO="X"), ValueError, "UPLO"),
    (lambda: ra.linalg.eigh(fake((3, 3), np.float16)), TypeError, "float16"),
    (lambda: ra.linalg.eigh(fake((3, 3), np.float64), subset_by_index=(2, 1)), ValueError, "indices"),
    (lambda: ra.linalg.eigh(fake((3, 3), np.float64), subset_by_index=(0, 3)), ValueError, "indices"),
    (lambda: ra.linalg.eigh(fake((3, 3), np.float64), subset_by_index=(0.5, 1)), ValueError, "pair"),
])
def test_argument_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_eigh_takes_subset_only_as_keyword():
    with pytest.raises(TypeError):
        ra.linalg.eigh(fake((3, 3), np.float64), "L", (0, 1))


def _host_jacobi(evect, uplo, n, A, lda, strideA, abstol, residual, max_sweeps, n_sweeps, W, strideW, info,
                 batch_count):
    """syevj_strided_batched on host buffers through NumPy (the stand-in of the façade test)."""
    for b in range(batch_count):
        m = A[b * strideA:b * strideA + lda * n].reshape(n, lda).T[:n]
        tri = np.tril(m) if uplo == "L" else np.triu(m)
        full = tri + np.swapaxes(tri, 0, 1).conj() - np.diag(np.diag(tri))
        full[np.diag_indices(n)] = full.diagonal().real
        if not np.all(np.isfinite(full)):
            info[b] = 1
            continue
        w, v = np.linalg.eigh(full)
        W[b * strideW:b * strideW + n] = w
        if evect == "V":
            m[...] = v


@pytest.fixture
def on_host(monkeypatch):
    # the façade's column-major path (its stack path launches the kernel on the arrays as they
    # are: tests/rocsolver/test_eigh_warp_emulated.py runs it against this path on the emulator)
    monkeypatch.setattr(facade, "WARP_STACK", False)
    shim = types.SimpleNamespace(ndarray=np.ndarray, empty=np.empty, zeros=np.zeros, asnumpy=np.asarray)
    monkeypatch.setattr(facade.backend, "cupy", lambda: shim)
    monkeypatch.setattr(facade._stacked._args.backend, "cupy", lambda: shim)
    monkeypatch.setattr(facade.rocsolver, "syevj_strided_batched", _host_jacobi)
    monkeypatch.setattr(facade.rocsolver, "heevj_strided_batched", _host_jacobi)


@pytest.mark.parametrize("uplo", ["L", "U", "l"])
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5, 5), (0, 3, 3), (2, 0, 0), (1, 1)])
@pytest.mark.parametrize("dtype", DTYPES + ["int64"])
def test_facade_layout_on_host(on_host, dtype, shape, uplo, rng):
    a = random_array(rng, shape, dtype)  # not Hermitian: only the UPLO triangle may count
    res = ra.linalg.eigh(a, UPLO=uplo)
    ref = np.linalg.eigh(a, UPLO=uplo)
    assert res.eigenvalues.dtype == ref.eigenvalues.dtype and res.eigenvectors.dtype == ref.eigenvectors.dtype
    assert res.eigenvalues.shape == ref.eigenvalues.shape and res.eigenvectors.shape == ref.eigenvectors.shape
    np.testing.assert_allclose(res.eigenvalues, ref.eigenvalues, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.abs(res.eigenvectors), np.abs(ref.eigenvectors), rtol=1e-3, atol=1e-3)
    w = ra.linalg.eigvalsh(a, UPLO=uplo)
    assert w.dtype == ref.eigenvalues.dtype
    np.testing.assert_allclose(w, ref.eigenvalues, rtol=1e-4, atol=1e-4)


def test_facade_subset_and_nonconvergence_on_host(on_host, rng):
    a = hermitian(rng, (3, 6, 6), "float64")
    w, v = ra.linalg.eigh(a, subset_by_index=(2, 4))
    for k in range(3):
        rw, rv = scipy.linalg.eigh(a[k], subset_by_index=(2, 4))
        np.testing.assert_allclose(w[k], rw)
        np.testing.assert_allclose(np.abs(v[k]), np.abs(rv), atol=1e-10)
    a[1, 3, 2] = np.nan
    with pytest.raises(np.linalg.LinAlgError, match="did not converge"):
        ra.linalg.eigh(a)


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(5, 32, 32), (2, 3, 17, 17), (1, 1), (2, 2), (2, 70, 70), (200, 200)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_eigh_matches_numpy(dtype, shape, rng):
    a = random_array(rng, shape, dtype)  # the lower triangle defines the matrix
    uplo = "U" if shape[-1] % 2 else "L"
    w, v = ra.linalg.eigh(to_device(a), UPLO=uplo)
    assert w.dtype == np.linalg.eigvalsh(a).dtype and v.dtype == a.dtype and v.shape == a.shape
    check(a, to_host(w), to_host(v), dtype, uplo)
    check(a, to_host(ra.linalg.eigvalsh(to_device(a), UPLO=uplo)), None, dtype, uplo)


@pytest.mark.gpu
def test_eigh_non_contiguous_int_and_empty(rng):
    base = hermitian(rng, (4, 24, 24), "float64")
    d = to_device(base)[:, ::2, ::2]
    w, v = ra.linalg.eigh(d)
    check(base[:, ::2, ::2], to_host(w), to_host(v), "float64")
    ints = rng.integers(-5, 5, (3, 3))
    w = ra.linalg.eigvalsh(to_device(ints))
    assert w.dtype == np.float64
    np.testing.assert_allclose(to_host(w), np.linalg.eigvalsh(ints), atol=1e-12)
    w, v = ra.linalg.eigh(to_device(np.zeros((2, 0, 0), np.float32)))
    assert w.shape == (2, 0) and v.shape == (2, 0, 0) and w.dtype == np.float32


@pytest.mark.gpu
@pytest.mark.parametrize("n", [8, 150])
def test_eigh_degenerate_identity_and_subset(n, rng):
    eye = to_device(np.eye(n))
    w, v = ra.linalg.eigh(eye)
    np.testing.assert_allclose(to_host(w), np.ones(n), atol=1e-14)
    check(np.eye(n), to_host(w), to_host(v), "float64")
    a = hermitian(rng, (n, n), "complex128")
    w, v = ra.linalg.eigh(to_device(a), subset_by_index=(1, 4))
    rw = scipy.linalg.eigh(a, subset_by_index=(1, 4), eigvals_only=True)
    np.testing.assert_allclose(to_host(w), rw, atol=1e-12 * n)
    vh = to_host(v)
    assert np.linalg.norm(a @ vh - vh * rw) <= 30 * n * 2.2e-16 * np.linalg.norm(a)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [6, 140])
def test_eigh_nan_raises(n, rng):
    a = hermitian(rng, (2, n, n), "float64")
    a[1, 4, 2] = np.nan
    with pytest.raises(np.linalg.LinAlgError, match="did not converge"):
        ra.linalg.eigh(to_device(a))
    with pytest.raises(np.linalg.LinAlgError, match="did not converge"):
        ra.linalg.eigvalsh(to_device(a))


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1000, 32, 32), (2, 9, 17, 17)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_eigh_small_stack_path_matches_the_way_back(dtype, shape, rng, monkeypatch):
    # the stack read and the eigenvectors written in NumPy's layout (WARP_STACK) against the
    # transposing copy (the way back): the same kernel on the same elements, the same bits;
    # a non-contiguous input (a transposed view) on the way
    a = to_device(random_array(rng, shape, dtype))
    a = a.swapaxes(-1, -2) if shape[-1] == 17 else a
    out = {}
    for stack in (True, False):
        monkeypatch.setattr(facade, "WARP_STACK", stack)
        out[stack] = [to_host(x) for x in ra.linalg.eigh(a, UPLO="U")]
    np.testing.assert_array_equal(out[True][0], out[False][0])
    np.testing.assert_array_equal(out[True][1], out[False][1])
    check(to_host(a), out[True][0], out[True][1], dtype, "U")


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1000, 32, 32), (9, 31, 31), (7, 12, 12), (3, 1, 1), (5, 33, 33)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_eigh_stack_of_small_matrices(dtype, shape, rng):
    # orders up to the warp size: one warp per matrix; 33: the one-block kernel
    a = random_array(rng, shape, dtype)  # not Hermitian: only the UPLO triangle counts
    for uplo in ("L", "U"):
        w, v = ra.linalg.eigh(to_device(a), UPLO=uplo)
        assert w.shape == shape[:-1] and v.shape == shape
        check(a, to_host(w), to_host(v), dtype, uplo)
