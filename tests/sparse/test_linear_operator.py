"""LinearOperator and aslinearoperator: SciPy's algebra of operators, on host vectors (CPU) and on
device arrays (GPU)."""

import numpy as np
import pytest
import scipy.sparse.linalg as sla

import rocarray.sparse.linalg as ral
from rocarray.sparse.linalg import _interface


def pair(A):
    """The same matrix as a rocarray and a SciPy operator (NumPy products)."""
    ours = ral.LinearOperator(A.shape, matvec=lambda v: A @ v, rmatvec=lambda v: A.conj().T @ v,
                              matmat=lambda X: A @ X, dtype=A.dtype)
    return ours, sla.aslinearoperator(A)


@pytest.fixture
def mats(rng):
    A = rng.standard_normal((5, 4)) + 1j * rng.standard_normal((5, 4))
    B = rng.standard_normal((4, 3))
    C = rng.standard_normal((5, 4))
    return A, B, C


def test_products_adjoints_and_transposes_match_scipy(rng, mats):
    A, B, C = mats
    (a, sa), (b, sb), (c, sc) = pair(A), pair(B), pair(C)
    x4, x5 = rng.standard_normal(4), rng.standard_normal(5) + 1j * rng.standard_normal(5)
    X4 = rng.standard_normal((4, 2))
    cases = [
        (a @ x4, sa @ x4), (a.matvec(x4.reshape(4, 1)), sa.matvec(x4.reshape(4, 1))),
        (a.rmatvec(x5), sa.rmatvec(x5)), (a.H @ x5, sa.H @ x5), (a.T @ x5, sa.T @ x5),
        (a.adjoint().matvec(x5), sa.adjoint().matvec(x5)), (a.matmat(X4), sa.matmat(X4)),
        ((a + c) @ x4, (sa + sc) @ x4), ((a - c) @ x4, (sa - sc) @ x4), ((2.5 * a) @ x4, (2.5 * sa) @ x4),
        ((a * 3) @ x4, (sa * 3) @ x4), ((a / 2) @ x4, (sa / 2) @ x4), ((-a) @ x4, (-sa) @ x4),
        ((a @ b) @ X4[:3], (sa @ sb) @ X4[:3]), ((a * b).H @ x5, (sa * sb).H @ x5),
        ((a + c).H @ x5, (sa + sc).H @ x5), ((2j * a).H @ x5, (2j * sa).H @ x5), (a.dot(X4), sa.dot(X4)),
        (a(x4), sa(x4)), (a.rmatmat(X4[:, :1].repeat(5, 0)[:5]), sa.rmatmat(X4[:, :1].repeat(5, 0)[:5])),
    ]
    for ours, theirs in cases:
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_power_and_dtype_and_repr(rng):
    S = rng.standard_normal((4, 4))
    s, ss = pair(S)
    x = rng.standard_normal(4)
    np.testing.assert_allclose((s ** 3) @ x, (ss ** 3) @ x)
    np.testing.assert_allclose((s ** 0) @ x, x)
    assert (s + s).dtype == np.float64 and (1j * s).dtype == np.complex128
    assert repr(s) == "<4x4 _CustomLinearOperator with dtype=float64>"
    assert s.shape == (4, 4) and s.ndim == 2


def test_errors_match_scipy():
    A = np.ones((3, 2))
    a, sa = pair(A)
    for fn, exc in [(lambda o: o.matvec(np.ones(3)), ValueError), (lambda o: o.rmatvec(np.ones(2)), ValueError),
                    (lambda o: o.matmat(np.ones(2)), ValueError), (lambda o: o.matmat(np.ones((3, 1))), ValueError),
                    (lambda o: o @ 2, ValueError), (lambda o: o / np.ones(2), ValueError),
                    (lambda o: o ** 2, ValueError), (lambda o: o + o.T, ValueError),
                    (lambda o: o.dot(np.ones((2, 2, 2))), ValueError)]:
        with pytest.raises(exc):
            fn(sa)
        with pytest.raises(exc):
            fn(a)
    with pytest.raises(ValueError, match="2-d"):
        ral.LinearOperator((3,), matvec=lambda v: v)
    with pytest.raises(NotImplementedError):
        ral.LinearOperator((2, 2), matvec=lambda v: v, dtype=float).rmatvec(np.ones(2))


def test_subclass_with_matmat_only(rng):
    class Twice(ral.LinearOperator):
        def __init__(self):
            super().__init__(np.float64, (3, 3))

        def _matmat(self, X):
            return 2 * X

    x = rng.standard_normal(3)
    np.testing.assert_allclose(Twice().matvec(x), 2 * x)
    np.testing.assert_allclose(Twice() @ x.reshape(3, 1), 2 * x.reshape(3, 1))


def test_aslinearoperator_rules():
    op = ral.LinearOperator((2, 2), matvec=lambda v: v, dtype=np.float64)
    assert ral.aslinearoperator(op) is op
    with pytest.raises(TypeError, match="host"):
        ral.aslinearoperator(np.eye(2))
    with pytest.raises(TypeError, match="not understood"):
        ral.aslinearoperator("A")

    class Duck:
        shape, dtype = (2, 2), np.dtype(np.float32)

        def matvec(self, v):
            return 3 * v

    d = ral.aslinearoperator(Duck())
    assert d.dtype == np.float32
    np.testing.assert_allclose(d @ np.ones(2), 3 * np.ones(2))

    class Sparse:  # duck-typed sparse array of the façade
        format, shape, dtype = "csr", (2, 2), np.dtype(np.float64)

        def __matmul__(self, x):
            return 5 * x

    s = ral.aslinearoperator(Sparse())
    assert isinstance(s, _interface.MatrixLinearOperator)
    np.testing.assert_allclose(s @ np.ones(2), 5 * np.ones(2))


def test_identity_operator_returns_its_argument():
    ident = _interface.IdentityOperator((3, 3), dtype=np.float64)
    x = np.ones(3)
    assert ident._matvec(x) is x and ident.H is ident


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_gpu_dense_matrix_operator_matches_scipy(rng, dtype):
    import cupy

    A = (rng.standard_normal((7, 5)) + (1j * rng.standard_normal((7, 5)) if np.dtype(dtype).kind == "c" else 0))
    A = A.astype(dtype)
    x, y = rng.standard_normal(5).astype(dtype), rng.standard_normal(7).astype(dtype)
    op, sop = ral.aslinearoperator(cupy.asarray(A)), sla.aslinearoperator(A)
    tol = 1e-5 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose((op @ cupy.asarray(x)).get(), sop @ x, rtol=tol)
    np.testing.assert_allclose(op.rmatvec(cupy.asarray(y)).get(), sop.rmatvec(y), rtol=tol)
    np.testing.assert_allclose(op.T.matvec(cupy.asarray(y)).get(), sop.T.matvec(y), rtol=tol)
    np.testing.assert_allclose((op.H * 2).matvec(cupy.asarray(y)).get(), (sop.H * 2).matvec(y), rtol=tol)
    assert op.dtype == dtype
    # dtype inference from a device matvec
    inferred = ral.LinearOperator((5, 5), matvec=lambda v: v.astype(dtype) * 2)
    assert inferred.dtype == dtype


@pytest.mark.gpu
def test_gpu_sparse_array_operator_matches_scipy(rng):
    import cupy
    import scipy.sparse as sp

    import rocarray.sparse as rs

    S = sp.random(30, 20, density=0.2, random_state=np.random.RandomState(1), format="csr")
    op = ral.aslinearoperator(rs.csr_array(S))
    x, y = rng.standard_normal(20), rng.standard_normal(30)
    np.testing.assert_allclose((op @ cupy.asarray(x)).get(), S @ x, rtol=1e-12)
    np.testing.assert_allclose(op.rmatvec(cupy.asarray(y)).get(), S.T @ y, rtol=1e-12)
