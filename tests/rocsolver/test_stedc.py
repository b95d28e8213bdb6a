"""rocsolver.stedc (device divide and conquer for the symmetric tridiagonal eigenproblem) and the
syevd/heevd path through it.

CPU: argument errors on fake arrays. GPU: against SciPy's ``eigh_tridiagonal`` in float64 at
orders 256-4096 (random, glued Wilkinson, clustered), ``evect='V'``/``'N'``, non-finite input,
and syevd/heevd past the device crossover against NumPy. The emulated kernels' tests are in
``test_stedc_emulated.py``.
"""

import numpy as np
import pytest
import scipy.linalg

from conftest import fake, to_device, to_host
from test_stedc_emulated import check, tridiagonal

import rocarray.rocsolver as rocsolver
from rocarray.rocsolver import _eigh


@pytest.mark.parametrize("args, error, match", [
    (("X", 4, "f8", "f8", "f8", 4), ValueError, "evect"),
    (("I", -1, "f8", "f8", "f8", 4), ValueError, "n must be"),
    (("I", 4, "c16", "c16", "c16", 4), TypeError, "unsupported dtype"),
    (("I", 4, "f8", "f4", "f8", 4), TypeError, "E must be float64"),
    (("I", 4, "f8", "f8", "f4", 4), TypeError, "C must be float64"),
    (("I", 4, "f8", "f8", "f8", 3), ValueError, "ldc"),
])
def test_stedc_argument_errors(args, error, match):
    evect, n, dd, de, dc, ldc = args
    with pytest.raises(error, match=match):
        rocsolver.stedc(evect, n, fake((4,), dd), fake((3,), de), fake((16,), dc), ldc, fake((1,), "int32"))


@pytest.mark.gpu
@pytest.mark.parametrize("n", [256, 1024, 4096])
@pytest.mark.parametrize("kind", ["random", "wilkinson", "clustered"])
def test_stedc_large_matches_scipy(kind, n, rng):
    d, e = tridiagonal(kind, n, rng)
    D, E = to_device(d), to_device(np.append(e, 0))
    C, info = to_device(np.full(n * n, np.nan)), to_device(np.full(1, -7, np.int32))
    rocsolver.stedc("I", n, D, E, C, n, info)
    assert to_host(info)[0] == 0
    check(d, e, to_host(D), to_host(C), np.float64)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [300, 1024])
def test_stedc_float32(n, rng):
    d, e = (x.astype(np.float32) for x in tridiagonal("random", n, rng))
    D, E = to_device(d), to_device(np.append(e, np.float32(0)))
    C, info = to_device(np.full(n * n, np.nan, np.float32)), to_device(np.full(1, -7, np.int32))
    rocsolver.stedc("I", n, D, E, C, n, info)
    assert to_host(info)[0] == 0
    check(d.astype(np.float64), e.astype(np.float64), to_host(D), to_host(C), np.float32)


@pytest.mark.gpu
def test_stedc_evect_v_n_and_nonfinite(rng):
    n, ldc = 300, 303
    d, e = tridiagonal("random", n, rng)
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    buf = np.full(ldc * n, 5.0)
    buf.reshape(n, ldc).T[:n] = q
    D, E, C, info = to_device(d), to_device(e), to_device(buf), to_device(np.full(1, -7, np.int32))
    rocsolver.stedc("V", n, D, E, C, ldc, info)
    assert to_host(info)[0] == 0
    w, y = scipy.linalg.eigh_tridiagonal(d, e)
    out = to_host(C).reshape(n, ldc).T[:n]
    assert np.allclose(np.abs(out.T @ q @ y), np.eye(n), atol=1e-9)  # columns q y, up to sign
    assert np.all(to_host(C).reshape(n, ldc).T[n:] == 5.0)
    D, E = to_device(d), to_device(e)
    rocsolver.stedc("N", n, D, E, C, ldc, info)
    assert np.max(np.abs(to_host(D) - w)) <= 20 * n * 2.2e-16 * np.abs(w).max()
    d[7] = np.nan
    D, E = to_device(d), to_device(e)
    rocsolver.stedc("I", n, D, E, C, ldc, info)
    assert to_host(info)[0] == 1 and np.all(np.isnan(to_host(D)))


@pytest.mark.gpu
@pytest.mark.parametrize("n", [_eigh.STEDC_MIN_ORDER, 1024])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_syevd_heevd_through_stedc(dtype, n, rng):
    from test_eigh import check_eigenpairs, hermitian
    a = hermitian(rng, n, dtype)
    A = to_device(np.asfortranarray(np.tril(a)).ravel(order="F"))
    W = to_device(np.full(n, np.nan, np.dtype(dtype).char.lower()))
    info = to_device(np.full(1, -7, np.int32))
    (rocsolver.heevd if np.dtype(dtype).kind == "c" else rocsolver.syevd)("V", "L", n, A, n, W, info)
    assert to_host(info)[0] == 0
    check_eigenpairs(a, to_host(W), to_host(A).reshape(n, n).T, dtype)
