"""The base of every sparse format: shape, dtype and flags, printing, conversions between formats,
products with dense and sparse operands, and the one-line delegations to ``_arith``, ``_reduce``
and ``_index``.

Products (``@``, ``dot``; ``*`` of the matrix classes) follow SciPy's dtype rule
(``result_type(A.dtype, x.dtype)``): the operands are cast to the kernels' dtype first (the
result dtype itself for float32/64 and complex64/128; float32 for float16; float64 for bool and
integers, cast back to the result dtype after the product: exact while the sums fit in 53 bits).
A dense operand must be a device array (``cupy.ndarray``; host arrays raise ``TypeError``, as
everywhere outside the constructors).
"""

import numbers

import numpy

from rocarray import rocsparse
from rocarray._core import args as _args
from rocarray._core import backend
from rocarray.sparse import _arith, _index, _reduce, _validate

_FORMAT_NAMES = {"csr": "Compressed Sparse Row", "csc": "Compressed Sparse Column", "coo": "COOrdinate"}
_KERNEL_DTYPES = tuple(numpy.dtype(d) for d in ("float32", "float64", "complex64", "complex128"))


def compute_dtype(dtype):
    """The dtype a product of result dtype ``dtype`` is computed in (see the module docstring)."""
    dtype = numpy.dtype(dtype)
    if dtype in _KERNEL_DTYPES:
        return dtype
    if dtype.kind == "f":
        return numpy.dtype(numpy.float32) if dtype.itemsize < 4 else numpy.dtype(numpy.float64)
    if dtype.kind == "c":
        return numpy.dtype(numpy.complex128)
    return numpy.dtype(numpy.float64)


def is_scalar(x):
    """Whether ``x`` is a Python/NumPy scalar or a 0-d array."""
    return isinstance(x, (numbers.Number, numpy.generic)) or getattr(x, "ndim", None) == 0


def _is_foreign_sparse(x):
    """Whether ``x`` is a SciPy or cupyx.scipy.sparse array or matrix."""
    module = type(x).__module__ or ""
    return (module.startswith("scipy.sparse") or module.startswith("cupyx.scipy.sparse")) and hasattr(x, "tocsr")


def issparse(x):
    """Whether ``x`` is a ``rocarray.sparse`` array or matrix.

    Parameters
    ----------
    x : object

    Returns
    -------
    bool
    """
    return isinstance(x, _spbase)


class _spbase:
    """Shared behavior of every sparse format (not instantiated directly)."""

    # above CuPy's and SciPy's, so ``ndarray @ sparse`` defers to __rmatmul__
    __array_priority__ = 101
    _format = None
    #: sparray semantics (``*`` elementwise); the matrix classes set False
    _is_array = False
    # the classes of results, per kind (array or matrix); wired by rocarray.sparse._matrix
    _csr_container = _csc_container = _coo_container = None

    ndim = 2

    @property
    def format(self):
        """``'csr'``, ``'csc'`` or ``'coo'``."""
        return self._format

    @property
    def shape(self):
        """``(rows, columns)``."""
        return self._shape

    @property
    def dtype(self):
        """The dtype of the stored values."""
        return self.data.dtype

    @property
    def nnz(self):
        """Stored elements (explicit zeros and duplicates included)."""
        return int(self.data.size)

    @property
    def size(self):
        """Stored elements, as SciPy's ``size`` of a sparse array."""
        return self.nnz

    @property
    def T(self):
        """The transpose (:meth:`transpose`)."""
        return self.transpose()

    def __len__(self):
        raise TypeError("sparse array length is ambiguous; use getnnz() or shape[0]")

    def __bool__(self):
        if self.shape == (1, 1):
            return self.nnz != 0
        raise ValueError("The truth value of an array with more than one element is ambiguous. "
                         "Use a.any() or a.all().")

    def __repr__(self):
        kind = "array" if self._is_array else "matrix"
        return (f"<{_FORMAT_NAMES[self.format]} sparse {kind} of dtype '{self.dtype}'\n"
                f"\twith {self.nnz} stored elements and shape {self.shape}>")

    # ---- construction --------------------------------------------------------------------------

    def _source(self, arg1, shape, dtype, copy):
        """The constructor input as a sparse array of any format (format-specific tuples aside).

        Returns
        -------
        x : sparse array or matrix
        fresh : bool
            Whether ``x`` owns new arrays (so ``copy`` needs no further copy).
        """
        cupy = backend.cupy()
        if shape is not None:
            shape = _validate.check_shape(shape)
        if issparse(arg1):
            x, fresh = arg1, False
        elif _is_foreign_sparse(arg1):
            x, fresh = self._from_foreign(arg1), type(arg1).__module__.startswith("scipy")
        elif _validate.is_shape(arg1):
            m, n = _validate.check_shape(arg1)
            backend.device_info()
            idx = _validate.index_dtype(m, n)
            data = cupy.zeros(0, dtype=_validate.check_dtype(numpy.float64 if dtype is None else dtype))
            x = self._csr_container._from_parts(data, cupy.zeros(0, dtype=idx), cupy.zeros(m + 1, dtype=idx),
                                                (m, n), canonical=True)
            fresh = True
        elif isinstance(arg1, tuple) and len(arg1) == 2:
            x, fresh = self._coo_container(arg1, shape=shape, dtype=dtype, copy=copy), True
        elif isinstance(arg1, tuple):
            raise ValueError(f"unrecognized {type(self).__name__} constructor input: {arg1}")
        else:
            x, fresh = self._from_dense(arg1, dtype), True
        if shape is not None and x.shape != shape:
            raise ValueError(f"shape {shape} does not match the shape {x.shape} of the input")
        if dtype is not None and x.dtype != numpy.dtype(dtype):
            x, fresh = x.astype(dtype), True
        _validate.check_dtype(x.dtype)
        return x, fresh

    def _from_dense(self, arg1, dtype):
        """Canonical CSR of a dense (host or device) 2-D input (1-D: one row, matrix classes only)."""
        try:
            a = _validate.as_device(arg1, "arg1")
        except (TypeError, ValueError):
            raise TypeError(f"unrecognized {type(self).__name__} constructor input: {type(arg1).__name__}") from None
        if a.ndim == 0:
            raise ValueError("scipy sparse array classes do not support instantiation from a scalar")
        if a.ndim == 1 and not self._is_array:
            a = a.reshape(1, -1)
        if a.ndim != 2:
            raise ValueError(f"rocarray.sparse arrays are 2-D; got a {a.ndim}-D input")
        if dtype is not None:
            a = a.astype(_validate.check_dtype(dtype), copy=False)
        _validate.check_dtype(a.dtype)
        indptr, indices, data = rocsparse.dense2csr(a)
        return self._csr_container._from_parts(data, indices, indptr, a.shape, canonical=True)

    def _from_foreign(self, x):
        """One of our arrays over the parts of a SciPy or cupyx.scipy.sparse object (host parts are
        copied to the device; device parts are shared)."""
        cupy = backend.cupy()
        if x.format not in _FORMAT_NAMES:
            x = x.tocsr()
        move = cupy.asarray
        backend.device_info()
        canonical = bool(getattr(x, "has_canonical_format", False))
        if x.format == "coo":
            return self._coo_container._from_parts(move(x.data), move(x.row), move(x.col), x.shape, canonical=canonical)
        cls = self._csr_container if x.format == "csr" else self._csc_container
        sorted_ = bool(getattr(x, "has_sorted_indices", False))
        return cls._from_parts(move(x.data), move(x.indices), move(x.indptr), x.shape, canonical=canonical,
                               sorted_indices=sorted_ or canonical)

    # ---- conversions -------------------------------------------------------------------------

    def asformat(self, format, copy=False):  # noqa: A002  (SciPy's name)
        """This matrix in ``format`` (``'csr'``, ``'csc'``, ``'coo'`` or None: unchanged).

        Parameters
        ----------
        format : str or None
        copy : bool
            Copy even when no conversion is needed.

        Returns
        -------
        sparse array or matrix
        """
        if format is None or format == self.format:
            return self.copy() if copy else self
        if format not in _FORMAT_NAMES:
            raise ValueError(f"Format {format} is unknown.")
        return getattr(self, "to" + format)(copy=copy)

    def todense(self, order=None, out=None):
        """Dense device array (``cupy.ndarray``, also for the matrix classes): as :meth:`toarray`.

        Parameters
        ----------
        order : {'C', 'F'}, optional
        out : cupy.ndarray, optional
        """
        return self.toarray(order=order, out=out)

    def _dense_out(self, order, out):
        """The zeroed dense result of :meth:`toarray` (SciPy's ``order``/``out`` rules)."""
        cupy = backend.cupy()
        if out is None:
            return cupy.zeros(self.shape, dtype=self.dtype, order=order or "C")
        if order is not None:
            raise ValueError("order cannot be specified if out is not None")
        if out.shape != self.shape or out.dtype != self.dtype:
            raise ValueError("out array must be same dtype and shape as sparse array")
        out.fill(0)
        return out

    def get(self, stream=None):
        """The SciPy object of this format and kind (``csr_array`` or ``csr_matrix``, ...), on the host.

        Parameters
        ----------
        stream : cupy.cuda.Stream, optional
            Unused (CuPy's signature); the copies wait for the device.

        Returns
        -------
        scipy.sparse.sparray or scipy.sparse.spmatrix
        """
        import scipy.sparse

        cupy = backend.cupy()
        kind = "array" if self._is_array else "matrix"
        cls = getattr(scipy.sparse, f"{self.format}_{kind}")
        data = cupy.asnumpy(self.data)
        if self.format == "coo":
            obj = cls((data, (cupy.asnumpy(self.row), cupy.asnumpy(self.col))), shape=self.shape)
        else:
            obj = cls((data, cupy.asnumpy(self.indices), cupy.asnumpy(self.indptr)), shape=self.shape)
        obj.has_canonical_format = self.has_canonical_format
        return obj

    # ---- values --------------------------------------------------------------------------------

    def copy(self):
        """A copy (values and structure)."""
        return self._with_data(self.data.copy(), copy=True)

    def astype(self, dtype, casting="unsafe", copy=True):
        """The matrix with values cast to ``dtype`` (a dtype sparse arrays store).

        Parameters
        ----------
        dtype : dtype
        casting : str
            NumPy's casting rule.
        copy : bool
            Copy even when ``dtype`` is the current dtype.
        """
        dtype = _validate.check_dtype(dtype)
        if not numpy.can_cast(self.dtype, dtype, casting=casting):
            raise TypeError(f"Cannot cast array data from {self.dtype!r} to {dtype!r} according to the rule {casting!r}")
        if dtype == self.dtype:
            return self.copy() if copy else self
        # CuPy's astype takes no casting rule: it is checked above, CuPy casts unsafely
        return self._with_data(self.data.astype(dtype), copy=True)

    def conjugate(self, copy=True):
        """Complex conjugate (the matrix itself, or a copy, for real dtypes).

        Parameters
        ----------
        copy : bool
            Copy the structure (and real values) instead of sharing it.
        """
        if self.dtype.kind == "c":
            return self._with_data(self.data.conj(), copy=copy)
        return self.copy() if copy else self

    def conj(self, copy=True):
        """Complex conjugate (:meth:`conjugate`).

        Parameters
        ----------
        copy : bool
        """
        return self.conjugate(copy=copy)

    @property
    def real(self):
        """The real parts (a new sparse matrix of the real dtype, same structure)."""
        return self._with_data(self.data.real.copy(), copy=True)

    @property
    def imag(self):
        """The imaginary parts (a new sparse matrix, same structure; zeros for real dtypes)."""
        return self._with_data(self.data.imag.copy(), copy=True)

    # ---- transpose -----------------------------------------------------------------------------

    def transpose(self, axes=None, copy=False):
        """The transpose: CSR <-> CSC sharing the arrays (copied with ``copy``), COO with rows and
        columns swapped.

        Parameters
        ----------
        axes : None or (1, 0)
        copy : bool
        """
        if axes is not None and tuple(axes) != (1, 0):
            raise ValueError("Sparse arrays/matrices do not support an 'axes' parameter because swapping "
                             "dimensions is the only logical permutation.")
        return self._transpose(copy)

    # ---- products ------------------------------------------------------------------------------

    def _dense_operand(self, other):
        if is_scalar(other):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return _args.as_device_array(other, "other")

    def _matmul(self, other):
        """``self @ other`` for a sparse or dense (device) ``other``."""
        if issparse(other):
            return self._matmul_sparse(other)
        x = self._dense_operand(other)
        m, n = self.shape
        if x.ndim == 1:
            if x.shape[0] != n:
                raise ValueError(f"matmul: dimension mismatch with signature (n,k={n}),(k={x.shape[0]},1?)->(n,1?)")
            return self._product(x, False)
        if x.ndim == 2:
            if x.shape[0] != n:
                raise ValueError(f"matmul: dimension mismatch with signature (n,k={n}),(k={x.shape[0]},m)->(n,m)")
            return self._product(x, False)
        raise ValueError("could not interpret dimensions")

    def _rmatmul(self, other):
        """``other @ self`` for a dense (device) ``other``: ``(self.T @ other.T).T`` without
        building the transpose."""
        x = self._dense_operand(other)
        m, n = self.shape
        if x.ndim == 1:
            if x.shape[0] != m:
                raise ValueError(f"matmul: dimension mismatch with signature (n?,k={x.shape[0]}),(k={m},m)->(n?,m)")
            return self._product(x, True)
        if x.ndim == 2:
            if x.shape[1] != m:
                raise ValueError(f"matmul: dimension mismatch with signature (n,k={x.shape[1]}),(k={m},m)->(n,m)")
            return self._product(x.T, True).T
        raise ValueError("could not interpret dimensions")

    def _product(self, x, transpose):
        """``op(self) @ x`` (op: transpose or not) for a dense 1-D or 2-D ``x`` of matching size."""
        result = numpy.result_type(self.dtype, x.dtype)
        kd = compute_dtype(result)
        y = self._product_kernel(x.astype(kd, copy=False), kd, transpose)
        return y if y.dtype == result else y.astype(result)

    def _matmul_sparse(self, other):
        m, k = self.shape
        if other.shape[0] != k:
            raise ValueError(f"matmul: dimension mismatch with signature (n,k={k}),(k={other.shape[0]},m)->(n,m)")
        n = other.shape[1]
        result = numpy.result_type(self.dtype, other.dtype)
        kd = compute_dtype(result)
        a, b = self.tocsr(), other.tocsr()
        a_ptr, a_ind, b_ptr, b_ind = a.indptr, a.indices, b.indptr, b.indices
        if a_ind.dtype != b_ind.dtype:
            i64 = numpy.dtype(numpy.int64)
            a_ptr, a_ind, b_ptr, b_ind = (v.astype(i64, copy=False) for v in (a_ptr, a_ind, b_ptr, b_ind))
        indptr, indices, data = rocsparse.csrgemm(m, k, n, a_ptr, a_ind, a.data.astype(kd, copy=False),
                                                  b_ptr, b_ind, b.data.astype(kd, copy=False))
        if data.dtype != result:
            data = data.astype(result)
        return self._csr_container._from_parts(data, indices, indptr, (m, n), canonical=True)

    def __matmul__(self, other):
        if is_scalar(other):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return self._matmul(other)

    def __rmatmul__(self, other):
        if is_scalar(other):
            raise ValueError("Scalar operands are not allowed, use '*' instead")
        return self._rmatmul(other)

    def dot(self, other):
        """Matrix product with a sparse or dense (device) operand; a scalar multiplies.

        Parameters
        ----------
        other : sparse array, cupy.ndarray or scalar
        """
        if is_scalar(other):
            return _arith.multiply(self, other)
        return self._matmul(other)

    # ---- delegations ---------------------------------------------------------------------------

    def __mul__(self, other):
        return _arith.multiply(self, other)

    def __rmul__(self, other):
        return _arith.multiply(self, other)

    def multiply(self, other):
        """Elementwise product (``rocarray.sparse._arith.multiply``).

        Parameters
        ----------
        other : sparse array, cupy.ndarray or scalar
        """
        return _arith.multiply(self, other)

    def __add__(self, other):
        return _arith.add(self, other)

    def __radd__(self, other):
        return _arith.add(self, other)

    def __sub__(self, other):
        return _arith.subtract(self, other)

    def __rsub__(self, other):
        return _arith.rsubtract(self, other)

    def __truediv__(self, other):
        return _arith.divide(self, other)

    def __neg__(self):
        return _arith.negative(self)

    def sum(self, axis=None, dtype=None, out=None):  # noqa: A003
        """Sum of the elements (``rocarray.sparse._reduce.sum``).

        Parameters
        ----------
        axis : int, optional
        dtype : dtype, optional
        out : cupy.ndarray, optional
        """
        return _reduce.sum(self, axis=axis, dtype=dtype, out=out)

    def mean(self, axis=None, dtype=None, out=None):
        """Mean of the elements (``rocarray.sparse._reduce.mean``).

        Parameters
        ----------
        axis : int, optional
        dtype : dtype, optional
        out : cupy.ndarray, optional
        """
        return _reduce.mean(self, axis=axis, dtype=dtype, out=out)

    def max(self, axis=None, out=None, *, explicit=False):  # noqa: A003
        """Largest element (``rocarray.sparse._reduce.max``).

        Parameters
        ----------
        axis : int, optional
        out : None
            Not supported (SciPy's ``ValueError``).
        explicit : bool
            Only the stored values.
        """
        if out is not None:
            raise ValueError("Sparse types do not support an 'out' parameter.")
        return _reduce.max(self, axis=axis, explicit=explicit)

    def min(self, axis=None, out=None, *, explicit=False):  # noqa: A003
        """Smallest element (``rocarray.sparse._reduce.min``).

        Parameters
        ----------
        axis : int, optional
        out : None
            Not supported (SciPy's ``ValueError``).
        explicit : bool
            Only the stored values.
        """
        if out is not None:
            raise ValueError("Sparse types do not support an 'out' parameter.")
        return _reduce.min(self, axis=axis, explicit=explicit)

    def diagonal(self, k=0):
        """The k-th diagonal (``rocarray.sparse._reduce.diagonal``).

        Parameters
        ----------
        k : int
        """
        return _reduce.diagonal(self, k=k)

    def count_nonzero(self, axis=None):
        """Nonzero stored values (``rocarray.sparse._reduce.count_nonzero``).

        Parameters
        ----------
        axis : int, optional
        """
        return _reduce.count_nonzero(self, axis=axis)

    def __getitem__(self, key):
        return _index.getitem(self, key)


class sparray:
    """The marker base of the sparse array classes (``csr_array``, ``csc_array``, ``coo_array``):
    ``*`` is elementwise, reductions over an axis return 1-D arrays."""

    _is_array = True
