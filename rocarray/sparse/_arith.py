"""Elementwise arithmetic of sparse arrays (``+ - * /``, ``multiply``), SciPy's semantics.

Functions take a sparse array first; they never import the format modules (results are built
with ``type(x)._from_parts`` or ``x.tocsr()`` of an argument).

The rules, as SciPy's (``scipy.sparse``, sparray and spmatrix alike):

* ``sparse ± sparse``: same shape (else ``ValueError('inconsistent shapes')``); the result has the
  first operand's format when it is CSR or CSC, else CSR, its kind (array or matrix) and the
  promoted dtype; zeros from cancellation are not stored. float32/64 and complex64/128 go through
  ``rocsparse.csrgeam``; integer and bool values are merged as COO and summed (bool subtraction
  raises ``TypeError``).
* ``sparse ± dense`` and ``dense - sparse``: a dense device array (broadcast to the sparse
  shape); spmatrix operands give a 2-D array where SciPy gives ``numpy.matrix``.
* ``sparse ± scalar``: a zero scalar returns a copy (``0 - a`` returns ``-a``); any other scalar
  raises ``NotImplementedError`` with SciPy's message.
* ``multiply``: a scalar keeps the format and structure (NumPy's dtype rule for ``data * scalar``);
  a sparse operand of the same shape gives the CSR (or CSC) elementwise product through
  ``rocsparse.csr_multiply`` for float and complex dtypes (integer and bool operands match their
  sorted positions by binary search instead); a sparse ``(1, 1)``, row or column operand
  broadcasts; a dense operand broadcastable to the sparse shape
  gives a COO result on the sparse pattern (explicit zeros kept, as SciPy); a sparse row
  (column) times a dense array with more rows (columns) repeats the pattern per dense row
  (column); a dense operand of more than two dimensions gives a dense product.
* ``divide``: by a scalar, float64 results for inputs castable to float64 (SciPy's rule); by a
  dense array, ``a.multiply(1 / b)``; by a sparse array, a dense array with NaN where neither
  operand stores a nonzero quotient and ``b`` is zero.

Dense operands must be device arrays: a host (NumPy) array or a SciPy sparse object raises
``TypeError``; other objects give ``NotImplemented`` so Python tries the reflected operation.
"""

import numpy

from rocarray.sparse import _opsdev
from rocarray.sparse._opsutil import (compressed, from_parts, index_of, index_parts, isdense,
                                      isscalarlike, issparse, major_shape, reject_host_array, row_ids,
                                      scalar_value, with_data)

_ADD_SCALAR = "adding a nonzero scalar to a sparse array is not supported"
_SUB_SCALAR = "subtracting a nonzero scalar from a sparse array is not supported"
_RSUB_SCALAR = "subtracting a sparse array from a nonzero scalar is not supported"


def _scalar_is_zero(b):
    return scalar_value(b) == 0


def _broadcast(a, b):
    return _opsdev.xp().broadcast_to(b, a.shape)


def add(a, b):
    """``a + b``: ``b`` sparse, dense or scalar.

    Parameters
    ----------
    a : sparse array or matrix
    b : sparse array, cupy.ndarray or scalar

    Returns
    -------
    sparse array or cupy.ndarray
        Sparse for a sparse or zero ``b``, dense for a dense ``b``.

    Raises
    ------
    NotImplementedError
        For a nonzero scalar.
    ValueError
        For operands of different shapes.
    """
    if isscalarlike(b):
        if _scalar_is_zero(b):
            return a.copy()
        raise NotImplementedError(_ADD_SCALAR)
    if issparse(b):
        return _add_sparse(a, b, 1)
    reject_host_array(b, "other")
    if isdense(b):
        return a.toarray() + _broadcast(a, b)
    return NotImplemented


def subtract(a, b):
    """``a - b``: ``b`` sparse, dense or scalar (see :func:`add`).

    Parameters
    ----------
    a : sparse array or matrix
    b : sparse array, cupy.ndarray or scalar

    Returns
    -------
    sparse array or cupy.ndarray
    """
    if isscalarlike(b):
        if _scalar_is_zero(b):
            return a.copy()
        raise NotImplementedError(_SUB_SCALAR)
    if issparse(b):
        return _add_sparse(a, b, -1)
    reject_host_array(b, "other")
    if isdense(b):
        return a.toarray() - _broadcast(a, b)
    return NotImplemented


def rsubtract(a, b):
    """``b - a`` for a dense or scalar ``b`` (see :func:`add`).

    Parameters
    ----------
    a : sparse array or matrix
    b : cupy.ndarray or scalar

    Returns
    -------
    sparse array or cupy.ndarray
    """
    if isscalarlike(b):
        if _scalar_is_zero(b):
            return negative(a)
        raise NotImplementedError(_RSUB_SCALAR)
    reject_host_array(b, "other")
    if isdense(b):
        return _broadcast(a, b) - a.toarray()
    return NotImplemented


def _sparse_dtype(a, b):
    return numpy.result_type(a.dtype, b.dtype)


def _common_index(a, b):
    m, n = a.shape
    return _opsdev.index_dtype(m, n, a.nnz + b.nnz, like=(index_of(a), index_of(b)))


def _both_canonical(ca, cb):
    return bool(ca.has_canonical_format and cb.has_canonical_format)


def _add_sparse(a, b, sign):
    if a.shape != b.shape:
        raise ValueError("inconsistent shapes")
    fmt = a.format if a.format in ("csr", "csc") else "csr"
    dtype = _sparse_dtype(a, b)
    if dtype in _opsdev.KERNEL_DTYPES:
        ca, cb = compressed(a, fmt), compressed(b, fmt)
        M, N = major_shape(ca)
        idx = _common_index(a, b)
        pa = (*index_parts(ca.indptr, ca.indices, idx), ca.data.astype(dtype, copy=False))
        pb = (*index_parts(cb.indptr, cb.indices, idx), cb.data.astype(dtype, copy=False))
        indptr, indices, data = _opsdev.csrgeam(M, N, 1, pa, sign, pb, _both_canonical(ca, cb))
        out = from_parts(ca, indices, indptr, data, a.shape, canonical=True)
        _drop_zeros(out)
        return out
    if dtype.kind == "b" and sign < 0:
        raise TypeError("sparse subtract: not supported for dtype bool")
    return _add_coo(a, b, sign, dtype, fmt)


def _add_coo(a, b, sign, dtype, fmt):
    """Integer and bool sums: both operands' entries as one COO array, duplicates summed."""
    xp = _opsdev.xp()
    ca, cb = a.tocoo(), b.tocoo()
    idx = _common_index(a, b)
    bdata = cb.data.astype(dtype, copy=False)
    if sign < 0:
        bdata = -bdata
    row = xp.concatenate([ca.row.astype(idx, copy=False), cb.row.astype(idx, copy=False)])
    col = xp.concatenate([ca.col.astype(idx, copy=False), cb.col.astype(idx, copy=False)])
    data = xp.concatenate([ca.data.astype(dtype, copy=False), bdata])
    out = compressed(from_parts(ca, row, col, data, a.shape), fmt)
    out.sum_duplicates()
    _drop_zeros(out)
    return out


def _drop_zeros(x):
    """``x.eliminate_zeros()`` (in place) when a stored value is exactly zero: one read of the
    values and one host read usually spare the compaction (the library results rarely hold any)."""
    if x.nnz and _opsdev.host_int((x.data == 0).any()):
        x.eliminate_zeros()


def _scalar_dtype(dtype, s):
    """NumPy's result dtype of ``data * s`` (``OverflowError`` for a Python int out of range)."""
    return (numpy.zeros(1, dtype) * s).dtype


def _mul_scalar(a, s):
    s = scalar_value(s)
    dtype = _scalar_dtype(a.dtype, s)
    return with_data(a, a.data.astype(dtype, copy=False) * dtype.type(s))


def multiply(a, b):
    """Elementwise ``a * b`` (``multiply``; ``*`` of sparse arrays).

    Parameters
    ----------
    a : sparse array or matrix
    b : sparse array, cupy.ndarray or scalar

    Returns
    -------
    sparse array or cupy.ndarray
        See the module's rules.

    Raises
    ------
    ValueError
        For shapes that do not broadcast.
    TypeError
        For a host array or a SciPy sparse object.
    """
    if isscalarlike(b):
        return _mul_scalar(a, b)
    if issparse(b):
        return _mul_sparse(a, b)
    reject_host_array(b, "other")
    if isdense(b):
        return _mul_dense(a, b)
    return NotImplemented


def _mul_sparse(a, b):
    if a.shape == b.shape:
        return _emul(a, b)
    if b.shape == (1, 1):
        return _mul_scalar(a, b.toarray()[0, 0])
    if a.shape == (1, 1):
        return _mul_scalar(b, a.toarray()[0, 0])
    m, n = a.shape
    if b.shape in ((1, n), (m, 1)):
        out = _scale(a.tocsr(), b.toarray(), numpy.result_type(a.dtype, b.dtype))
        _drop_zeros(out)
        return out
    if a.shape in ((1, b.shape[1]), (b.shape[0], 1)):
        out = _scale(b.tocsr(), a.toarray(), numpy.result_type(a.dtype, b.dtype))
        _drop_zeros(out)
        return out
    raise ValueError(f"inconsistent shapes {a.shape} and {b.shape}")


def _emul(a, b):
    fmt = a.format if a.format in ("csr", "csc") else "csr"
    dtype = _sparse_dtype(a, b)
    ca, cb = compressed(a, fmt), compressed(b, fmt)
    if dtype not in _opsdev.KERNEL_DTYPES:
        return _emul_merge(ca, cb, dtype)
    M, N = major_shape(ca)
    idx = _common_index(a, b)
    pa = (*index_parts(ca.indptr, ca.indices, idx), ca.data.astype(dtype, copy=False))
    pb = (*index_parts(cb.indptr, cb.indices, idx), cb.data.astype(dtype, copy=False))
    indptr, indices, data = _opsdev.csr_multiply(M, N, pa, pb, _both_canonical(ca, cb))
    out = from_parts(ca, indices, indptr, data, a.shape, canonical=True)
    _drop_zeros(out)
    return out


def _canonical_copy(x):
    if x.has_canonical_format:
        return x
    x = x.copy()
    x.sum_duplicates()
    return x


def _emul_merge(ca, cb, dtype):
    """Integer and bool products of two arrays of one compressed format: the stored positions as
    sorted keys ``major * minor_size + minor`` (canonical inputs), those of ``ca`` found in ``cb``
    by binary search."""
    xp = _opsdev.xp()
    ca, cb = _canonical_copy(ca), _canonical_copy(cb)
    M, N = major_shape(ca)
    i64 = numpy.dtype(numpy.int64)
    ka = row_ids(ca.indptr, ca.nnz).astype(i64) * N + ca.indices.astype(i64)
    kb = row_ids(cb.indptr, cb.nnz).astype(i64) * N + cb.indices.astype(i64)
    if ka.size == 0 or kb.size == 0:
        hit = xp.zeros(ka.size, dtype=bool)
        pos = xp.zeros(ka.size, dtype=i64)
    else:
        pos = xp.minimum(xp.searchsorted(kb, ka), kb.size - 1)
        hit = kb[pos] == ka
    data = ca.data[hit].astype(dtype) * cb.data[pos[hit]].astype(dtype)
    major = row_ids(ca.indptr, ca.nnz)[hit]
    idx = _opsdev.index_dtype(M, N, data.size, like=(ca.indptr.dtype, cb.indptr.dtype))
    indptr = xp.zeros(M + 1, dtype=idx)
    if M:
        indptr[1:] = xp.cumsum(xp.bincount(major, minlength=M)[:M]).astype(idx)
    out = from_parts(ca, ca.indices[hit].astype(idx), indptr, data, ca.shape, canonical=True)
    _drop_zeros(out)
    return out


def _scale(c, v, dtype):
    """CSR ``c`` times a dense ``(1, n)`` row or ``(m, 1)`` column ``v`` on ``c``'s pattern."""
    v = v.astype(dtype, copy=False)
    if v.shape[0] == 1:
        factors = v[0, c.indices]
    else:
        factors = v[row_ids(c.indptr, c.data.size), 0]
    return with_data(c, c.data.astype(dtype, copy=False) * factors)


def _mul_dense(a, b):
    xp = _opsdev.xp()
    if b.ndim > 2:
        return xp.multiply(a.toarray(), b)
    if b.size == 1:
        return _mul_scalar(a, b.reshape(()))
    if a.shape == (1, 1):
        return xp.multiply(a.toarray(), b)
    b2 = b.reshape((1,) * (2 - b.ndim) + b.shape)
    c = a.tocoo()
    if not _broadcasts_to(b.shape, a.shape):
        return _mul_vector_dense(a, c, b2, b.shape)
    rows = c.row if b2.shape[0] != 1 else xp.zeros_like(c.row)
    cols = c.col if b2.shape[1] != 1 else xp.zeros_like(c.col)
    data = xp.multiply(c.data, b2[rows, cols])
    return with_data(c, data)


def _mul_vector_dense(a, c, b2, bshape):
    """A sparse row (column) times a dense array with more rows (columns): SciPy's expansion to
    a COO result with one copy of the pattern per dense row (column)."""
    xp = _opsdev.xp()
    (m, n), nnz = a.shape, c.data.size
    if m == 1 and b2.shape[1] in (1, n):
        k = b2.shape[0]
        data = c.data[None, :] * (b2 if b2.shape[1] == 1 else b2[:, c.col])
        idx = _opsdev.index_dtype(k, n, nnz * k, like=(c.col.dtype,))
        row = xp.repeat(xp.arange(k, dtype=idx), nnz)
        col = xp.tile(c.col.astype(idx, copy=False), k)
        shape = (k, n)
    elif n == 1 and b2.shape[0] in (1, m):
        k = b2.shape[1]
        data = c.data[:, None] * (b2 if b2.shape[0] == 1 else b2[c.row])
        idx = _opsdev.index_dtype(m, k, nnz * k, like=(c.row.dtype,))
        row = xp.repeat(c.row.astype(idx, copy=False), k)
        col = xp.tile(xp.arange(k, dtype=idx), nnz)
        shape = (m, k)
    else:
        raise ValueError(f"inconsistent shapes {a.shape} and {bshape}")
    return from_parts(c, row, col, data.ravel(), shape)


def _broadcasts_to(s, target):
    try:
        return numpy.broadcast_shapes(s, target) == tuple(target)
    except ValueError:
        return False


def divide(a, b):
    """``a / b``.

    Parameters
    ----------
    a : sparse array or matrix
    b : sparse array, cupy.ndarray or scalar

    Returns
    -------
    sparse array or cupy.ndarray
        Sparse for a scalar or dense ``b``; dense for a sparse ``b``.

    Raises
    ------
    ZeroDivisionError
        For a Python zero scalar (as SciPy, which computes ``1 / b``).
    ValueError
        For operands of different shapes.
    """
    if isscalarlike(b):
        s = scalar_value(b)
        if numpy.can_cast(a.dtype, numpy.float64):
            return _mul_scalar(_as_float64(a), 1 / s)
        r = _mul_scalar(a, 1 / s)
        if a.dtype.kind in "iu" and numpy.asarray(s).dtype.kind in "iu":
            return with_data(r, r.data.astype(a.dtype), canonical=r.has_canonical_format)
        return r
    if issparse(b):
        return _div_sparse(a, b)
    reject_host_array(b, "other")
    if isdense(b):
        return multiply(a, _opsdev.xp().divide(1, b))
    return NotImplemented


def _as_float64(a):
    if a.dtype == numpy.float64:
        return a
    return with_data(a, a.data.astype(numpy.float64))


def _pattern(x):
    """Dense bool array: True where ``x`` stores an entry."""
    return with_data(x, _opsdev.xp().ones(x.data.shape, dtype=numpy.int8)).toarray() != 0


def _div_sparse(a, b):
    if a.shape != b.shape:
        raise ValueError(f"inconsistent shapes {a.shape} and {b.shape}")
    xp = _opsdev.xp()
    if numpy.can_cast(a.dtype, numpy.float64):
        a = _as_float64(a)
    ad, bd = a.toarray(), b.toarray()
    q = ad / bd
    stored = (_pattern(a) | _pattern(b)) & (q != 0)
    out = xp.full(q.shape, numpy.nan, dtype=q.dtype)
    out[bd != 0] = 0
    out[stored] = q[stored]
    return out


def negative(a):
    """``-a``.

    Parameters
    ----------
    a : sparse array or matrix

    Returns
    -------
    sparse array or matrix

    Raises
    ------
    NotImplementedError
        For a bool array, as SciPy.
    """
    if a.dtype.kind == "b":
        raise NotImplementedError("negating a boolean sparse array is not supported")
    return with_data(a, -a.data)
