"""``ra.linalg.qr`` against ``numpy.linalg.qr``: every mode, stacked, empty, M < N and M > N,
NumPy's dtype rules and errors.

CPU: the façade's bookkeeping (buffers, views, the Q buffer, triu, mode results) with NumPy in
place of CuPy and the rocsolver drivers on NumPy stand-ins (``qr_host``), so its results equal
NumPy's to rounding without a GPU; argument errors on fake device arrays. GPU: the real thing.
"""

import types
import warnings

import numpy as np
import pytest

import qr_host
from conftest import fake, random_array, to_device, to_host

import rocarray as ra
from rocarray.linalg import _qr as facade, _stacked
from rocarray.rocsolver import _qr_blocked

DTYPES = ["float32", "float64", "complex64", "complex128"]
MODES = ["reduced", "complete", "r", "raw"]


def _result_parts(result):
    return list(result) if isinstance(result, tuple) else [result]


def _condition(a):
    """The largest 2-norm condition number of the stacked matrices of ``a`` (1 when empty): two QR
    algorithms' factors of the same matrix differ by about eps times it, element by element."""
    a = np.asarray(a)
    if a.size == 0:
        return 1.0
    return float(np.max(np.linalg.cond(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64))))


def _assert_like_numpy(got, want, dtype, n, cond=1.0):
    got, want = _result_parts(got), _result_parts(want)
    assert len(got) == len(want)
    tol = 50 * np.finfo(np.dtype(dtype)).eps * max(n, 1) * max(cond, 1.0)
    for g, w in zip(got, want):
        g = to_host(g) if not isinstance(g, np.ndarray) else g
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, atol=tol, rtol=tol)


# --------------------------------------------------------------------------------------------
# CPU: the façade on NumPy, the drivers on stand-ins
# --------------------------------------------------------------------------------------------

@pytest.fixture
def host_facade(monkeypatch):
    qr_host.install(monkeypatch)
    monkeypatch.setattr(_qr_blocked, "NB", 8)
    monkeypatch.setattr(_qr_blocked, "LEAF", 2)
    monkeypatch.setattr(_qr_blocked, "BATCHED_MAX", 4)

    def stacked_2d(a, name="a"):
        if a.ndim < 2:
            raise np.linalg.LinAlgError("at least two-dimensional")
        return a

    def orgqr(m, n, k, A, lda, sA, tau, sP, batch):
        _qr_blocked.orgqr(m, n, k, A, lda, sA, tau, sP, batch)

    monkeypatch.setattr(_stacked, "stacked_2d", stacked_2d)
    monkeypatch.setattr(facade, "backend", types.SimpleNamespace(cupy=lambda: np))
    monkeypatch.setattr(facade, "rocsolver", types.SimpleNamespace(
        geqrf_strided_batched=lambda m, n, A, lda, sA, tau, sP, b: _qr_blocked.geqrf(m, n, A, lda, sA, tau, sP, b),
        orgqr_strided_batched=orgqr, ungqr_strided_batched=orgqr))


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (13, 10), (10, 13), (3, 4, 2), (2, 3, 7, 5), (1, 1),
                                   (0, 0), (3, 0), (0, 3), (2, 3, 0), (2, 0, 3)])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", ["float32", "complex128", "int64"])
def test_facade_logic_matches_numpy(host_facade, rng, shape, mode, dtype):
    a = random_array(rng, shape, dtype)
    _assert_like_numpy(ra.linalg.qr(a, mode=mode), np.linalg.qr(a, mode=mode), dtype if dtype != "int64" else
                       "float64", max(shape[-2:]), _condition(a))


def test_facade_logic_non_contiguous_input(host_facade, rng):
    a = random_array(rng, (4, 12, 9), "float64")[::2, ::-1, 1::2]
    _assert_like_numpy(ra.linalg.qr(a), np.linalg.qr(a), "float64", 12)


def test_facade_result_is_a_named_tuple(host_facade, rng):
    a = random_array(rng, (6, 4), "float64")
    res = ra.linalg.qr(a)
    assert isinstance(res, facade.QRResult) and res.Q.shape == (6, 4) and res.R.shape == (4, 4)
    assert res._fields == np.linalg.qr(a)._fields


def test_deprecated_modes_warn_like_numpy(host_facade, rng):
    a = random_array(rng, (6, 4), "float64")
    for mode in ("full", "f", "economic", "e"):
        with pytest.warns(DeprecationWarning):
            got = ra.linalg.qr(a, mode=mode)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            want = np.linalg.qr(a, mode=mode)
        _assert_like_numpy(got, want, "float64", 6)


def test_errors_like_numpy():
    with pytest.raises(ValueError, match="Unrecognized mode 'bogus'"):
        ra.linalg.qr(fake((3, 3), np.float64), mode="bogus")
    with pytest.raises(np.linalg.LinAlgError, match="1-dimensional array given"):
        ra.linalg.qr(fake((3,), np.float64))
    with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
        ra.linalg.qr(fake((3, 3), np.float16))
    with pytest.raises(TypeError):
        ra.linalg.qr(np.eye(3))  # host arrays are not moved


def test_qr_is_rocarrays_own():
    assert ra.linalg.qr is facade.qr and "qr" in ra.linalg.__all__


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (3, 7), (130, 130), (300, 171), (171, 300), (5, 40, 30),
                                   (2, 3, 17, 17), (0, 4), (4, 0), (3, 0, 0)])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_qr_matches_numpy(rng, shape, mode, dtype):
    a = random_array(rng, shape, dtype)
    _assert_like_numpy(ra.linalg.qr(to_device(a), mode=mode), np.linalg.qr(a, mode=mode), dtype, max(shape[-2:]),
                       _condition(a))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_qr_backward_error_large(rng, dtype):
    n = 1100
    a = random_array(rng, (n, n - 37), dtype)
    q, r = ra.linalg.qr(to_device(a))
    q, r = to_host(q).astype(np.complex128), to_host(r).astype(np.complex128)
    eps = np.finfo(np.dtype(dtype)).eps
    assert np.allclose(r, np.triu(r))
    assert np.linalg.norm(q.conj().T @ q - np.eye(n - 37)) <= 10 * eps * n
    assert np.linalg.norm(q @ r - a) <= 10 * eps * n * np.linalg.norm(a)
    r_np = np.linalg.qr(a.astype(np.complex128), mode="r")
    np.testing.assert_allclose(np.abs(np.diagonal(r)), np.abs(np.diagonal(r_np)), rtol=1e3 * eps * n)


@pytest.mark.gpu
def test_qr_non_contiguous_and_integer_inputs(rng):
    a = random_array(rng, (3, 40, 26), "float32")[:, ::-1, ::2]
    _assert_like_numpy(ra.linalg.qr(to_device(a)[:, :, :]), np.linalg.qr(a), "float32", 40)
    d = to_device(random_array(rng, (6, 50, 30), "float32"))[::2, ::-1, 1::2]
    _assert_like_numpy(ra.linalg.qr(d, mode="r"), np.linalg.qr(to_host(d), mode="r"), "float32", 50)
    i = random_array(rng, (9, 6), "int32")
    _assert_like_numpy(ra.linalg.qr(to_device(i)), np.linalg.qr(i), "float64", 9)


@pytest.mark.gpu
def test_qr_rank_deficient_and_nan(rng):
    a = random_array(rng, (20, 8), "float64")
    a[:, 5] = a[:, 1]
    q, r = ra.linalg.qr(to_device(a))
    q, r = to_host(q), to_host(r)
    assert np.linalg.norm(q @ r - a) <= 1e-13 * np.linalg.norm(a)
    assert np.linalg.norm(q.T @ q - np.eye(8)) <= 1e-13
    a[3, 3] = np.nan
    q, r = ra.linalg.qr(to_device(a))
    assert np.isnan(to_host(r)).any()  # NaN propagates, no error, no hang


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_qr_ill_conditioned_is_backward_stable(rng, dtype):
    n = 200
    u = np.linalg.qr(random_array(rng, (n, n), dtype))[0]
    v = np.linalg.qr(random_array(rng, (n, n), dtype))[0]
    a = (u * np.logspace(0, -10, n)) @ v.conj().T  # condition number 1e10
    q, r = ra.linalg.qr(to_device(a))
    q, r = to_host(q), to_host(r)
    eps = np.finfo(np.dtype(dtype)).eps
    assert np.linalg.norm(q @ r - a) <= 10 * eps * n * np.linalg.norm(a)
    assert np.linalg.norm(q.conj().T @ q - np.eye(n)) <= 10 * eps * n
    assert np.array_equal(r, np.triu(r))
