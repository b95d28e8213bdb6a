"""Shared pieces of the sparse operations: argument kinds, compressed parts, results built from parts.

Duck typing only (``format`` in ``'csr'``, ``'csc'``, ``'coo'``): the format modules are never
imported here; a result's class is the class of an argument already in the result's format
(``type(x)._from_parts``). Array work goes through :func:`rocarray.sparse._opsdev.xp`.
"""

import numbers

import numpy

from rocarray.sparse import _opsdev

FORMATS = ("csr", "csc", "coo")


def issparse(x):
    """True for a rocarray sparse array or matrix (any of the three formats).

    Raises
    ------
    TypeError
        For a SciPy sparse object (host memory).
    """
    if not (getattr(x, "format", None) in FORMATS and hasattr(x, "tocsr")):
        return False
    if type(x).__module__.startswith("scipy."):
        raise TypeError("argument 'other' is a host (SciPy) sparse array; move it to the GPU with "
                        "ra.sparse.csr_array() first")
    return True


def isdense(x):
    """True for a device array."""
    return isinstance(x, _opsdev.xp().ndarray)


def isscalarlike(x):
    """A Python/NumPy scalar or a 0-d (host or device) array, as SciPy's ``isscalarlike``."""
    if isinstance(x, (numbers.Number, numpy.generic)):
        return True
    return isinstance(x, (numpy.ndarray, _opsdev.xp().ndarray)) and x.ndim == 0


def scalar_value(x):
    """A scalar-like argument as a NumPy scalar (0-d device arrays are read back)."""
    if isinstance(x, (numpy.ndarray, _opsdev.xp().ndarray)):
        return x.dtype.type(x.item())
    return x


def reject_host_array(x, name):
    """``TypeError`` for a NumPy array where a device array is expected (``_core.args``' rule)."""
    if isinstance(x, numpy.ndarray) and not isinstance(x, _opsdev.xp().ndarray):
        raise TypeError(f"argument '{name}' is a host (NumPy) array; move it to the GPU with ra.asarray() first")


def compressed(x, fmt):
    """``x`` in ``fmt`` ('csr' or 'csc'), converting only when needed."""
    if x.format == fmt:
        return x
    return x.tocsr() if fmt == "csr" else x.tocsc()


def major_shape(x):
    """``(major, minor)`` sizes of a CSR/CSC array: rows × columns for CSR, swapped for CSC."""
    m, n = x.shape
    return (m, n) if x.format == "csr" else (n, m)


def with_data(x, data, canonical=None):
    """A new array of ``x``'s class and structure (index arrays copied) holding ``data``."""
    canon = x.has_canonical_format if canonical is None else canonical
    if x.format == "coo":
        return type(x)._from_parts(data, x.row.copy(), x.col.copy(), x.shape, canonical=canon)
    return type(x)._from_parts(data, x.indices.copy(), x.indptr.copy(), x.shape, canonical=canon)


def from_parts(like, a, b, data, shape, canonical=False):
    """A new array of ``like``'s class (format and kind) from raw parts: ``(indices, indptr)`` for
    CSR/CSC, ``(row, col)`` for COO."""
    return type(like)._from_parts(data, a, b, shape, canonical=canonical)


def index_of(x):
    """The index dtype of a sparse array's parts."""
    return (x.row if x.format == "coo" else x.indptr).dtype


def row_ids(indptr, nnz):
    """Major index of every stored element of a compressed array (dtype of ``indptr``)."""
    xp = _opsdev.xp()
    k = xp.arange(nnz, dtype=indptr.dtype)
    return xp.searchsorted(indptr[1:], k, side="right").astype(indptr.dtype, copy=False)


def segment_sums(data, indptr, dtype):
    """Sum of every segment ``data[indptr[i]:indptr[i + 1]]`` in ``dtype`` (0 for empty segments)."""
    xp = _opsdev.xp()
    m = indptr.size - 1
    out = xp.zeros(m, dtype=dtype)
    if data.size == 0 or m == 0:
        return out
    starts, ends = indptr[:-1], indptr[1:]
    full = ends > starts
    heads = xp.zeros(data.size, dtype=bool)
    heads[starts[full]] = True
    scanned = _opsdev.segmented_sum(data, heads, dtype)
    out[full] = scanned[ends[full] - 1]
    return out


def index_parts(indptr, indices, dtype):
    """``indptr`` and ``indices`` in the index dtype ``dtype``."""
    return indptr.astype(dtype, copy=False), indices.astype(dtype, copy=False)
