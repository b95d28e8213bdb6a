"""The matrix classes (``csr_matrix``, ``csc_matrix``, ``coo_matrix``: spmatrix semantics, ``*``
is the matrix product), the predicates, and the wiring of result classes per kind."""

from rocarray.sparse import _arith
from rocarray.sparse._base import is_scalar
from rocarray.sparse._coo import _coo_base, coo_array
from rocarray.sparse._csc import _csc_base, csc_array
from rocarray.sparse._csr import _csr_base, csr_array


class spmatrix:
    """The marker base of the sparse matrix classes: ``*`` is the matrix product (a scalar
    multiplies), reductions over an axis keep two dimensions, 1-D dense input becomes one row."""

    _is_array = False

    def __mul__(self, other):
        if is_scalar(other):
            return _arith.multiply(self, other)
        return self._matmul(other)

    def __rmul__(self, other):
        if is_scalar(other):
            return _arith.multiply(self, other)
        return self._rmatmul(other)


_PARAMETERS = """

    Parameters
    ----------
    arg1 : object
        As for the array class; 1-D dense input becomes one row.
    shape : tuple of int, optional
    dtype : dtype, optional
    copy : bool
    """


class csr_matrix(spmatrix, _csr_base):
    __doc__ = """Compressed Sparse Row matrix (``scipy.sparse.csr_matrix``): :class:`csr_array` with spmatrix
    semantics. ``get()`` returns a ``scipy.sparse.csr_matrix``.""" + _PARAMETERS


class csc_matrix(spmatrix, _csc_base):
    __doc__ = """Compressed Sparse Column matrix (``scipy.sparse.csc_matrix``): :class:`csc_array` with
    spmatrix semantics.""" + _PARAMETERS


class coo_matrix(spmatrix, _coo_base):
    __doc__ = """COOrdinate matrix (``scipy.sparse.coo_matrix``): :class:`coo_array` with spmatrix
    semantics.""" + _PARAMETERS


for _kind in ((csr_array, csc_array, coo_array), (csr_matrix, csc_matrix, coo_matrix)):
    for _cls in _kind:
        _cls._csr_container, _cls._csc_container, _cls._coo_container = _kind


def isspmatrix(x):
    """Whether ``x`` is a sparse matrix (not a sparse array), like SciPy's.

    Parameters
    ----------
    x : object

    Returns
    -------
    bool
    """
    return isinstance(x, spmatrix)


def isspmatrix_csr(x):
    """Whether ``x`` is a :class:`csr_matrix`.

    Parameters
    ----------
    x : object

    Returns
    -------
    bool
    """
    return isinstance(x, csr_matrix)


def isspmatrix_csc(x):
    """Whether ``x`` is a :class:`csc_matrix`.

    Parameters
    ----------
    x : object

    Returns
    -------
    bool
    """
    return isinstance(x, csc_matrix)


def isspmatrix_coo(x):
    """Whether ``x`` is a :class:`coo_matrix`.

    Parameters
    ----------
    x : object

    Returns
    -------
    bool
    """
    return isinstance(x, coo_matrix)

