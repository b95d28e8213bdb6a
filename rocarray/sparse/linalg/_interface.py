"""``LinearOperator`` and ``aslinearoperator`` with SciPy's semantics, over device arrays.

An operator only calls the methods of the vectors it is given (``reshape``, ``conj``, ``@``) and of
the products it wraps, so it works on whatever array type its ``matvec`` takes: CuPy arrays for
the solvers, NumPy arrays in the CPU tests of the iteration logic.
"""

import numbers

import numpy

from rocarray._core import backend


def _xp(x):
    """The array module of ``x`` (CuPy for device arrays, NumPy otherwise)."""
    return backend.cupy() if type(x).__module__.split(".")[0] == "cupy" else numpy


def _isscalar(x):
    return isinstance(x, (numbers.Number, numpy.generic))


def _is_sparse(A):
    """A sparse array or matrix of the façade (or SciPy/cupyx), recognized by its ``format``."""
    return isinstance(getattr(A, "format", None), str) and hasattr(A, "shape") and hasattr(A, "dtype")


def _is_dense_device(A):
    return type(A).__module__.split(".")[0] == "cupy" and type(A).__name__ == "ndarray"


def _dense_product(A, x):
    """``A @ x`` of a dense matrix: rocarray's matmul for device arrays."""
    if _is_dense_device(A):
        from rocarray._numpy.matrix_products import matmul

        return matmul(A, x)
    return A @ x


class LinearOperator:
    """Common interface for performing matrix-vector products (``scipy.sparse.linalg.LinearOperator``).

    ``LinearOperator(shape, matvec, rmatvec=None, matmat=None, dtype=None, rmatmat=None)`` builds
    an operator from functions; a subclass implements ``_matvec`` or ``_matmat`` (and
    ``_rmatvec``/``_rmatmat`` or ``_adjoint`` for the adjoint). Operators add (``A + B``),
    subtract, multiply (``A @ B``, ``A * B``, ``A.dot(B)``), scale (``alpha * A``, ``A / alpha``),
    power (``A ** p``), transpose (``A.T``) and take adjoints (``A.H``, ``A.adjoint()``) lazily.

    Parameters
    ----------
    shape : tuple of int
        ``(M, N)``.
    matvec : callable
        ``matvec(x)`` returns ``A @ x`` for x of shape ``(N,)`` or ``(N, 1)``.
    rmatvec, matmat, rmatmat : callable, optional
        ``A^H @ x``, ``A @ X`` and ``A^H @ X``.
    dtype : dtype, optional
        The operator's dtype. When omitted it is the dtype of ``matvec`` applied to a device vector
        of zeros (int8), as SciPy does with a host vector.

    Notes
    -----
    Vectors are not converted: a ``matvec`` receives the array it is applied to (a ``cupy.ndarray``
    in the solvers). ``matvec``/``rmatvec`` raise ``ValueError('dimension mismatch')`` for a
    vector of the wrong shape and reshape the result to ``(M,)`` or ``(M, 1)``, as SciPy does.
    """

    ndim = 2

    def __new__(cls, *args, **kwargs):
        if cls is LinearOperator:
            return super().__new__(_CustomLinearOperator)
        return super().__new__(cls)

    def __init__(self, dtype, shape):
        if dtype is not None:
            dtype = numpy.dtype(dtype)
        shape = tuple(shape)
        if not (len(shape) == 2 and all(isinstance(s, (int, numpy.integer)) and s >= 0 for s in shape)):
            raise ValueError(f"invalid shape {shape!r} (must be 2-d)")
        self.dtype = dtype
        self.shape = (int(shape[0]), int(shape[1]))

    def _init_dtype(self):
        if self.dtype is None:
            v = backend.cupy().zeros(self.shape[-1], dtype=numpy.int8)
            self.dtype = self.matvec(v).dtype

    def _matmat(self, X):
        xp = _xp(X)
        return xp.hstack([self.matvec(X[:, j].reshape(-1, 1)) for j in range(X.shape[1])])

    def _matvec(self, x):
        return self.matmat(x.reshape(-1, 1))

    def _rmatvec(self, x):
        if type(self)._adjoint == LinearOperator._adjoint:
            raise NotImplementedError
        return self.H.matvec(x)

    def _rmatmat(self, X):
        if type(self)._adjoint == LinearOperator._adjoint:
            xp = _xp(X)
            return xp.hstack([self.rmatvec(X[:, j].reshape(-1, 1)) for j in range(X.shape[1])])
        return self.H.matmat(X)

    def _vector(self, x, n, y, m, what):
        if x.shape != (n,) and x.shape != (n, 1):
            raise ValueError("dimension mismatch")
        if x.ndim == 1:
            return y.reshape(m)
        if x.ndim == 2:
            return y.reshape(m, 1)
        raise ValueError(f"invalid shape returned by user-defined {what}()")

    def matvec(self, x):
        """``A @ x`` for x of shape ``(N,)`` or ``(N, 1)`` (result ``(M,)`` or ``(M, 1)``).

        Parameters
        ----------
        x : array
            Vector of shape ``(N,)`` or ``(N, 1)``.

        Returns
        -------
        array
        """
        M, N = self.shape
        if x.shape != (N,) and x.shape != (N, 1):
            raise ValueError("dimension mismatch")
        return self._vector(x, N, self._matvec(x), M, "matvec")

    def rmatvec(self, x):
        """``A^H @ x`` for x of shape ``(M,)`` or ``(M, 1)``.

        Parameters
        ----------
        x : array
            Vector of shape ``(M,)`` or ``(M, 1)``.

        Returns
        -------
        array
        """
        M, N = self.shape
        if x.shape != (M,) and x.shape != (M, 1):
            raise ValueError("dimension mismatch")
        return self._vector(x, M, self._rmatvec(x), N, "rmatvec")

    def matmat(self, X):
        """``A @ X`` for a 2-D X of shape ``(N, K)``.

        Parameters
        ----------
        X : array
            Matrix of shape ``(N, K)``.

        Returns
        -------
        array
        """
        if X.ndim != 2:
            raise ValueError(f"expected 2-d ndarray or matrix, not {X.ndim}-d")
        if X.shape[0] != self.shape[1]:
            raise ValueError(f"dimension mismatch: {self.shape}, {X.shape}")
        return self._matmat(X)

    def rmatmat(self, X):
        """``A^H @ X`` for a 2-D X of shape ``(M, K)``.

        Parameters
        ----------
        X : array
            Matrix of shape ``(M, K)``.

        Returns
        -------
        array
        """
        if X.ndim != 2:
            raise ValueError(f"expected 2-d ndarray or matrix, not {X.ndim}-d")
        if X.shape[0] != self.shape[0]:
            raise ValueError(f"dimension mismatch: {self.shape}, {X.shape}")
        return self._rmatmat(X)

    def __call__(self, x):
        return self @ x

    def __mul__(self, x):
        return self.dot(x)

    def __truediv__(self, other):
        if not _isscalar(other):
            raise ValueError("Can only divide a linear operator by a scalar.")
        return _ScaledLinearOperator(self, 1.0 / other)

    def dot(self, x):
        """``A @ x``: an operator for an operator or a scalar, an array for a 1-D or 2-D array.

        Parameters
        ----------
        x : LinearOperator, scalar or array
            The right operand.

        Returns
        -------
        LinearOperator or array
        """
        if isinstance(x, LinearOperator):
            return _ProductLinearOperator(self, x)
        if _isscalar(x):
            return _ScaledLinearOperator(self, x)
        if x.ndim == 1 or (x.ndim == 2 and x.shape[1] == 1):
            return self.matvec(x)
        if x.ndim == 2:
            return self.matmat(x)
        raise ValueError(f"expected 1-d or 2-d array or matrix, got {x!r}")

    def __matmul__(self, other):
        if _isscalar(other):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return self.__mul__(other)

    def __rmatmul__(self, other):
        if _isscalar(other):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return self.__rmul__(other)

    def __rmul__(self, x):
        if _isscalar(x):
            return _ScaledLinearOperator(self, x)
        return self._rdot(x)

    def _rdot(self, x):
        if isinstance(x, LinearOperator):
            return _ProductLinearOperator(x, self)
        if x.ndim == 1 or (x.ndim == 2 and x.shape[0] == 1):
            return self.T.matvec(x.T).T
        if x.ndim == 2:
            return self.T.matmat(x.T).T
        raise ValueError(f"expected 1-d or 2-d array or matrix, got {x!r}")

    def __pow__(self, p):
        if _isscalar(p):
            return _PowerLinearOperator(self, p)
        return NotImplemented

    def __add__(self, x):
        if isinstance(x, LinearOperator):
            return _SumLinearOperator(self, x)
        return NotImplemented

    def __neg__(self):
        return _ScaledLinearOperator(self, -1)

    def __sub__(self, x):
        return self.__add__(-x)

    def __repr__(self):
        M, N = self.shape
        dt = "unspecified dtype" if self.dtype is None else f"dtype={self.dtype}"
        return f"<{M}x{N} {self.__class__.__name__} with {dt}>"

    def adjoint(self):
        """The Hermitian adjoint ``A^H`` (lazy)."""
        return self._adjoint()

    H = property(adjoint)

    def transpose(self):
        """The transpose ``A^T`` (lazy)."""
        return self._transpose()

    T = property(transpose)

    def _adjoint(self):
        return _AdjointLinearOperator(self)

    def _transpose(self):
        return _TransposedLinearOperator(self)


class _CustomLinearOperator(LinearOperator):
    """An operator from user functions."""

    def __init__(self, shape, matvec, rmatvec=None, matmat=None, dtype=None, rmatmat=None):
        super().__init__(dtype, shape)
        self.args = ()
        self.__matvec_impl, self.__rmatvec_impl = matvec, rmatvec
        self.__matmat_impl, self.__rmatmat_impl = matmat, rmatmat
        self._init_dtype()

    def _matmat(self, X):
        if self.__matmat_impl is not None:
            return self.__matmat_impl(X)
        return super()._matmat(X)

    def _matvec(self, x):
        return self.__matvec_impl(x)

    def _rmatvec(self, x):
        if self.__rmatvec_impl is None:
            raise NotImplementedError("rmatvec is not defined")
        return self.__rmatvec_impl(x)

    def _rmatmat(self, X):
        if self.__rmatmat_impl is not None:
            return self.__rmatmat_impl(X)
        return super()._rmatmat(X)

    def _adjoint(self):
        return _CustomLinearOperator((self.shape[1], self.shape[0]), matvec=self.__rmatvec_impl,
                                     rmatvec=self.__matvec_impl, matmat=self.__rmatmat_impl,
                                     rmatmat=self.__matmat_impl, dtype=self.dtype)


class _AdjointLinearOperator(LinearOperator):
    def __init__(self, A):
        super().__init__(A.dtype, (A.shape[1], A.shape[0]))
        self.A, self.args = A, (A,)

    def _matvec(self, x):
        return self.A._rmatvec(x)

    def _rmatvec(self, x):
        return self.A._matvec(x)

    def _matmat(self, X):
        return self.A._rmatmat(X)

    def _rmatmat(self, X):
        return self.A._matmat(X)


class _TransposedLinearOperator(LinearOperator):
    """``A^T x = conj(A^H conj(x))``."""

    def __init__(self, A):
        super().__init__(A.dtype, (A.shape[1], A.shape[0]))
        self.A, self.args = A, (A,)

    def _matvec(self, x):
        return self.A._rmatvec(x.conj()).conj()

    def _rmatvec(self, x):
        return self.A._matvec(x.conj()).conj()

    def _matmat(self, X):
        return self.A._rmatmat(X.conj()).conj()

    def _rmatmat(self, X):
        return self.A._matmat(X.conj()).conj()


def _get_dtype(operators, dtypes=()):
    found = list(dtypes)
    for obj in operators:
        if obj is not None and getattr(obj, "dtype", None) is not None:
            found.append(obj.dtype)
    return numpy.result_type(*found)


class _SumLinearOperator(LinearOperator):
    def __init__(self, A, B):
        if not isinstance(A, LinearOperator) or not isinstance(B, LinearOperator):
            raise ValueError("both operands have to be a LinearOperator")
        if A.shape != B.shape:
            raise ValueError(f"cannot add {A} and {B}: shape mismatch")
        super().__init__(_get_dtype([A, B]), A.shape)
        self.args = (A, B)

    def _matvec(self, x):
        return self.args[0].matvec(x) + self.args[1].matvec(x)

    def _rmatvec(self, x):
        return self.args[0].rmatvec(x) + self.args[1].rmatvec(x)

    def _matmat(self, X):
        return self.args[0].matmat(X) + self.args[1].matmat(X)

    def _rmatmat(self, X):
        return self.args[0].rmatmat(X) + self.args[1].rmatmat(X)

    def _adjoint(self):
        A, B = self.args
        return A.H + B.H


class _ProductLinearOperator(LinearOperator):
    def __init__(self, A, B):
        if not isinstance(A, LinearOperator) or not isinstance(B, LinearOperator):
            raise ValueError("both operands have to be a LinearOperator")
        if A.shape[1] != B.shape[0]:
            raise ValueError(f"cannot multiply {A} and {B}: shape mismatch")
        super().__init__(_get_dtype([A, B]), (A.shape[0], B.shape[1]))
        self.args = (A, B)

    def _matvec(self, x):
        return self.args[0].matvec(self.args[1].matvec(x))

    def _rmatvec(self, x):
        return self.args[1].rmatvec(self.args[0].rmatvec(x))

    def _matmat(self, X):
        return self.args[0].matmat(self.args[1].matmat(X))

    def _rmatmat(self, X):
        return self.args[1].rmatmat(self.args[0].rmatmat(X))

    def _adjoint(self):
        A, B = self.args
        return B.H * A.H


class _ScaledLinearOperator(LinearOperator):
    def __init__(self, A, alpha):
        if not isinstance(A, LinearOperator):
            raise ValueError("LinearOperator expected as A")
        if not _isscalar(alpha):
            raise ValueError("scalar expected as alpha")
        if isinstance(A, _ScaledLinearOperator):
            A, first = A.args
            alpha = alpha * first
        super().__init__(_get_dtype([A], [type(alpha)]), A.shape)
        self.args = (A, alpha)

    def _matvec(self, x):
        return self.args[1] * self.args[0].matvec(x)

    def _rmatvec(self, x):
        return numpy.conj(self.args[1]) * self.args[0].rmatvec(x)

    def _matmat(self, X):
        return self.args[1] * self.args[0].matmat(X)

    def _rmatmat(self, X):
        return numpy.conj(self.args[1]) * self.args[0].rmatmat(X)

    def _adjoint(self):
        A, alpha = self.args
        return A.H * numpy.conj(alpha)


class _PowerLinearOperator(LinearOperator):
    def __init__(self, A, p):
        if not isinstance(A, LinearOperator):
            raise ValueError("LinearOperator expected as A")
        if A.shape[0] != A.shape[1]:
            raise ValueError(f"square LinearOperator expected, got {A!r}")
        if not isinstance(p, (numbers.Integral, numpy.integer)) or p < 0:
            raise ValueError("non-negative integer expected as p")
        super().__init__(_get_dtype([A]), A.shape)
        self.args = (A, int(p))

    def _power(self, fun, x):
        res = x.copy()
        for _ in range(self.args[1]):
            res = fun(res)
        return res

    def _matvec(self, x):
        return self._power(self.args[0].matvec, x)

    def _rmatvec(self, x):
        return self._power(self.args[0].rmatvec, x)

    def _matmat(self, X):
        return self._power(self.args[0].matmat, X)

    def _rmatmat(self, X):
        return self._power(self.args[0].rmatmat, X)

    def _adjoint(self):
        A, p = self.args
        return A.H ** p


class MatrixLinearOperator(LinearOperator):
    """The operator of a matrix: a dense device array or a sparse array (products through ``@``)."""

    def __init__(self, A):
        super().__init__(A.dtype, A.shape)
        self.A, self.args = A, (A,)
        self.__adj = None

    def _matmat(self, X):
        return _dense_product(self.A, X)

    def _matvec(self, x):
        return _dense_product(self.A, x)

    def _adjoint(self):
        if self.__adj is None:
            self.__adj = _AdjointMatrixOperator(self.A)
        return self.__adj


class _AdjointMatrixOperator(MatrixLinearOperator):
    """``A^H`` of a matrix, as ``A.conj().T`` (a sparse transpose is a view of the structure)."""

    def __init__(self, A):
        LinearOperator.__init__(self, A.dtype, (A.shape[1], A.shape[0]))
        self.A = A.conj().T
        self.args = (A,)

    def _adjoint(self):
        return MatrixLinearOperator(self.args[0])


class IdentityOperator(LinearOperator):
    """The identity: ``matvec`` returns its argument itself, as SciPy's does."""

    def __init__(self, shape, dtype=None):
        super().__init__(dtype, shape)

    def _matvec(self, x):
        return x

    def _rmatvec(self, x):
        return x

    def _matmat(self, X):
        return X

    def _rmatmat(self, X):
        return X

    def _adjoint(self):
        return self


def aslinearoperator(A):
    """Return ``A`` as a :class:`LinearOperator` (``scipy.sparse.linalg.aslinearoperator``).

    Parameters
    ----------
    A : LinearOperator, cupy.ndarray, sparse array, or object with ``shape`` and ``matvec``
        A dense device array (1-D or 2-D; a 1-D array is one row), a sparse array or matrix of
        :mod:`rocarray.sparse` (recognized by its ``format`` attribute), an operator (returned
        as is), or any object with ``shape`` and ``matvec`` (``rmatvec``, ``rmatmat``, ``dtype``
        used when present).

    Returns
    -------
    LinearOperator

    Raises
    ------
    TypeError
        For a host (NumPy) array (move it to the device first, the rule of
        :func:`rocarray._core.args.as_device_array`) and for anything else not understood.
    ValueError
        For a dense array with more than two dimensions.
    """
    if isinstance(A, LinearOperator):
        return A
    if _is_dense_device(A):
        if A.ndim > 2:
            raise ValueError("array must have ndim <= 2")
        return MatrixLinearOperator(A.reshape(1, -1) if A.ndim == 1 else A.reshape(1, 1) if A.ndim == 0 else A)
    if isinstance(A, numpy.ndarray):
        raise TypeError("argument 'A' is a host (NumPy) array; move it to the GPU with ra.asarray() first")
    if _is_sparse(A):
        return MatrixLinearOperator(A)
    if hasattr(A, "shape") and hasattr(A, "matvec"):
        return LinearOperator(A.shape, A.matvec, rmatvec=getattr(A, "rmatvec", None),
                              rmatmat=getattr(A, "rmatmat", None), dtype=getattr(A, "dtype", None))
    raise TypeError("type not understood")
