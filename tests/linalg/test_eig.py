"""ra.linalg.eig / eigvals against numpy.linalg.

CPU: the façade's logic (NumPy's output dtype rule, stacking, shapes, errors) with rocsolver geev's
orchestration on host arrays (tests/geev_host.py's stand-ins). GPU: the same on the device.
"""

import numpy as np
import pytest

from conftest import fake, random_array, to_device, to_host
from geev_host import DTYPES, EPS, assert_same_eigenvalues, residual, use_host_standins

from rocarray._core import backend
from rocarray.linalg import _eig, _stacked
from rocarray.rocsolver import _geev

LinAlgError = np.linalg.LinAlgError


class _NumpyAsCupy:
    """NumPy standing in for CuPy in the façade (``asnumpy`` included)."""

    ndarray = np.ndarray

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def asnumpy(x):
        return np.asarray(x)


def _host_geev(jobvl, jobvr, n, A, lda, W, VL, ldvl, VR, ldvr, info):
    _geev._geev(n, A, lda, A.dtype, W, None, (VR, ldvr) if VR is not None else None, info, None)


@pytest.fixture
def on_host(monkeypatch):
    use_host_standins(monkeypatch)
    monkeypatch.setattr(backend, "cupy", lambda: _NumpyAsCupy())
    monkeypatch.setattr(_stacked._args, "as_device_array", lambda a, name: a)
    monkeypatch.setattr(_eig.rocsolver, "geev", _host_geev)


def check_eig(a, w, v):
    """w, v against numpy.linalg.eig of a: dtypes, shapes, eigenvalues, residuals, unit norms."""
    w_ref, v_ref = np.linalg.eig(a)
    assert w.dtype == w_ref.dtype and v.dtype == v_ref.dtype
    assert w.shape == w_ref.shape and v.shape == v_ref.shape
    dtype = np.linalg.eigvals(np.zeros((1, 1), a.dtype)).dtype
    dtype = {"float32": "float32", "complex64": "complex64"}.get(dtype.name, "float64" if dtype.kind == "f"
                                                                  else "complex128")
    n = a.shape[-1]
    for idx in np.ndindex(a.shape[:-2]):
        assert_same_eigenvalues(w[idx], w_ref[idx], dtype)
        if n:
            assert residual(a[idx].astype(dtype), v[idx].astype(np.complex128), w[idx]) < 30
            np.testing.assert_allclose(np.linalg.norm(v[idx], axis=0), 1, atol=30 * n * EPS[np.dtype(dtype)])


# --------------------------------------------------------------------------------------------
# CPU
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES + ["int64", "bool"])
@pytest.mark.parametrize("shape", [(5, 5), (3, 4, 4), (2, 0, 0), (0, 3, 3), (1, 1), (2, 2, 7, 7)])
def test_eig_on_host(shape, dtype, rng, on_host):
    a = random_array(rng, shape, dtype)
    if dtype == "bool":
        # random 0/1 matrices are mostly defective (eigenvalue 0 in Jordan blocks, split by
        # rounding either way); a triangular one has exact eigenvalues that balancing isolates
        a = np.triu(a) | np.eye(shape[-1], dtype=bool)
    w, v = _eig.eig(a)
    check_eig(a, w, v)
    wv = _eig.eigvals(a)
    assert wv.dtype == np.linalg.eigvals(a).dtype and wv.shape == w.shape


def test_eig_dtype_rule_on_host(on_host):
    # real eigenvalues of a real matrix: real results, as NumPy
    T = np.array([[2.0, 1.0], [0.0, 3.0]])
    w, v = _eig.eig(T)
    assert w.dtype == v.dtype == np.linalg.eig(T)[0].dtype  # float64, or complex128 from NumPy 2.5
    # a rotation: complex
    R = np.array([[0.0, -1.0], [1.0, 0.0]], np.float32)
    w, v = _eig.eig(R)
    assert w.dtype == np.complex64 and v.dtype == np.complex64
    np.testing.assert_allclose(w, np.linalg.eigvals(R), atol=1e-6)
    # one complex matrix in a stack makes the whole stack complex
    stack = np.stack([T, R.astype(np.float64)])
    assert _eig.eigvals(stack).dtype == np.linalg.eigvals(stack).dtype == np.complex128
    # complex input stays complex with real eigenvalues
    assert _eig.eigvals(T.astype(np.complex128)).dtype == np.complex128


def test_eig_defective_on_host(on_host):
    J = np.array([[1.0, 1.0], [0.0, 1.0]])
    w, v = _eig.eig(J)
    np.testing.assert_allclose(w, [1, 1])
    assert residual(J, v.astype(complex), w) < 10


def test_eig_nonfinite_raises_on_host(on_host):
    for bad in (np.nan, np.inf):
        a = np.eye(3)
        a[1, 2] = bad
        with pytest.raises(LinAlgError, match="Array must not contain infs or NaNs"):
            _eig.eig(a)
        with pytest.raises(LinAlgError, match="Array must not contain infs or NaNs"):
            _eig.eigvals(a)
        with pytest.raises(LinAlgError, match="Array must not contain infs or NaNs"):
            np.linalg.eig(a)


def test_eig_nonconvergence_raises_on_host(monkeypatch, on_host):
    monkeypatch.setattr(_geev._host_lapack, "hseqr", lambda H, want, ilo, ihi: (np.zeros(len(H), complex), None, 1))
    with pytest.raises(LinAlgError, match="Eigenvalues did not converge"):
        _eig.eig(np.diag([1.0, 2.0]))


def test_eig_shape_errors():
    with pytest.raises(LinAlgError, match="Last 2 dimensions of the array must be square"):
        _eig.eig(fake((3, 4), "float64"))
    with pytest.raises(LinAlgError, match="1-dimensional array given"):
        _eig.eigvals(fake((3,), "float64"))
    with pytest.raises(TypeError, match="float16"):
        _eig.eig(fake((3, 3), "float16"))


def test_eig_host_array_is_type_error():
    with pytest.raises(TypeError):
        _eig.eig(np.eye(2))


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES + ["int32"])
@pytest.mark.parametrize("shape", [(0, 0), (1, 1), (2, 2), (37, 37), (3, 9, 9), (2, 0, 4, 4)])
def test_eig_gpu(shape, dtype, rng):
    import rocarray as ra

    a = random_array(rng, shape, dtype)
    w, v = ra.linalg.eig(to_device(a))
    check_eig(a, to_host(w), to_host(v))
    wv = ra.linalg.eigvals(to_device(a))
    assert wv.dtype == np.linalg.eigvals(a).dtype
    assert_same_eigenvalues(to_host(wv).ravel(), np.linalg.eigvals(a).ravel(),
                            "float32" if dtype in ("float32", "complex64") else "float64")


@pytest.mark.gpu
def test_eig_real_results_and_rotation_gpu():
    import rocarray as ra

    T = np.array([[2.0, 1.0, 0.0], [0.0, 3.0, 1.0], [0.0, 0.0, -1.0]])
    w, v = ra.linalg.eig(to_device(T))
    w_ref, v_ref = np.linalg.eig(T)  # real before NumPy 2.5, complex from 2.5 on
    assert w.dtype == w_ref.dtype and v.dtype == v_ref.dtype
    R = np.array([[0.0, -1.0], [1.0, 0.0]])
    w, v = ra.linalg.eig(to_device(R))
    w_ref, v_ref = np.linalg.eig(R)
    assert w.dtype == np.complex128
    np.testing.assert_allclose(to_host(w), w_ref, atol=1e-15)
    np.testing.assert_allclose(to_host(v), v_ref, atol=1e-15)


@pytest.mark.gpu
def test_eig_noncontiguous_gpu(rng):
    import rocarray as ra

    d = to_device(random_array(rng, (2, 12, 24), "float64"))
    view = d[:, :, ::2]
    w, v = ra.linalg.eig(view)
    check_eig(to_host(view), to_host(w), to_host(v))


@pytest.mark.gpu
def test_eig_ill_conditioned_gpu(rng):
    import rocarray as ra

    n = 40
    # eigenvalues spread over 10 decades, eigenvectors far from orthogonal
    X = random_array(rng, (n, n), "float64") + 5 * np.eye(n)
    a = X @ np.diag(np.logspace(0, 10, n)) @ np.linalg.inv(X)
    w, v = ra.linalg.eig(to_device(a))
    assert residual(a, to_host(v).astype(complex), to_host(w)) < 1e3


@pytest.mark.gpu
def test_eig_errors_gpu():
    import rocarray as ra

    a = np.eye(3)
    a[0, 2] = np.nan
    with pytest.raises(LinAlgError, match="Array must not contain infs or NaNs"):
        ra.linalg.eig(to_device(a))
    with pytest.raises(LinAlgError, match="square"):
        ra.linalg.eigvals(to_device(np.zeros((2, 3))))
