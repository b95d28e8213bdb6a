"""``ra.linalg.cholesky`` at large orders (the bench's 8192 included), GPU only.

The façade factors with ``keep_other=False`` (its trailing updates write the other triangle,
which it zeroes afterwards): these tests check the backward error
``||L L^H - A||_F / (||A||_F n eps)`` against cuSOLVER's (through CuPy) on random and
ill-conditioned SPD matrices built on the device, and that the returned other triangle is zero.
The 8192 cases come first: they are the bench's shape.
"""

import numpy as np
import pytest

import rocarray as ra

EPS = {np.dtype(d): np.finfo(d).eps for d in ("float32", "float64", "complex64", "complex128")}


def _device_spd(seed, n, dtype, cond=None):
    """A Hermitian positive definite n x n matrix of ``dtype`` built on the device in float64
    (complex128): ``X X^H / n + I``, or ``Q diag(logspace(0, -log10 cond)) Q^H``."""
    import cupy

    rs = cupy.random.RandomState(seed)
    x = rs.standard_normal((n, n))
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rs.standard_normal((n, n))
    if cond is None:
        a = x @ x.conj().T / n + cupy.eye(n)
    else:
        q, _ = cupy.linalg.qr(x)
        a = (q * cupy.logspace(0, -np.log10(cond), n)) @ q.conj().T
        a = (a + a.conj().T) / 2
    return a.astype(dtype)


def _backward(a, factor, upper):
    import cupy

    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    f, a = factor.astype(wide), a.astype(wide)
    rebuilt = f.conj().T @ f if upper else f @ f.conj().T
    n = a.shape[-1]
    return float(cupy.linalg.norm(rebuilt - a) / (cupy.linalg.norm(a) * n * EPS[np.dtype(factor.dtype)]))


@pytest.mark.gpu
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cholesky_8192(dtype, upper):
    import cupy

    n = 8192
    a = _device_spd(8192, n, dtype)
    got = ra.linalg.cholesky(a, upper=upper)
    assert got.dtype == a.dtype and got.shape == a.shape
    assert _backward(a, got, upper) < 10
    tri = cupy.triu if upper else cupy.tril
    assert bool((got == tri(got)).all())


@pytest.mark.gpu
@pytest.mark.parametrize("dtype, n, cond", [("float64", 1000, None), ("float64", 1100, 1e10), ("float64", 4097, None),
                                            ("float64", 4097, 1e10), ("complex128", 1100, 1e10),
                                            ("float32", 4097, None), ("complex64", 1100, None)])
def test_cholesky_backward_error_near_cusolvers(dtype, n, cond):
    # against cuSOLVER's factor of the same matrix: within 10 of the bound, or of 10x its error
    import cupy

    a = _device_spd(n, n, dtype, cond)
    ours = _backward(a, ra.linalg.cholesky(a), False)
    theirs = _backward(a, cupy.linalg.cholesky(a), False)
    assert ours < max(10.0, 10 * theirs), (ours, theirs)
