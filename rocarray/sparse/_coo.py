"""COOrdinate arrays (``coo_array``): one row and one column index per stored value.

Canonical COO is row-major order without duplicates; ``tocsr``/``tocsc`` sort (a stable radix
sort of one combined key) and sum duplicates like SciPy.
"""

from rocarray import prim, rocsparse
from rocarray._core import backend
from rocarray.sparse import _validate
from rocarray.sparse._base import _spbase, sparray


class _coo_base(_spbase):
    _format = "coo"

    def __init__(self, arg1, shape=None, dtype=None, copy=False):
        if isinstance(arg1, tuple) and len(arg1) == 2 and not _validate.is_shape(arg1):
            self._init_coords(arg1, shape, dtype, copy)
            return
        x, fresh = self._source(arg1, shape, dtype, copy)
        x = x.asformat("coo", copy=copy and not fresh)
        self._set(x.data, x.row, x.col, x.shape, x._canonical)

    def _init_coords(self, arg1, shape, dtype, copy):
        """``(data, (row, col))``: checked by :mod:`rocarray.sparse._validate`."""
        cupy = backend.cupy()
        data, coords = arg1
        coords = list(coords)
        if len(coords) != 2:
            raise ValueError(f"coords must have 2 index arrays (rocarray.sparse arrays are 2-D), got {len(coords)}")
        data = _validate.as_device(data, "data")
        row, col = (_validate.as_device(c, "coords") for c in coords)
        if shape is not None:
            shape = _validate.check_shape(shape)
        if dtype is not None:
            data = data.astype(_validate.check_dtype(dtype), copy=False)
        _validate.check_dtype(data.dtype)
        if data.ndim != 1 or row.ndim != 1 or col.ndim != 1:
            raise ValueError("coordinates and data arrays must be 1-D")
        row, col = _validate.as_index_arrays([row, col], (max(shape or (0,)), row.size))
        if copy:
            data, row, col = data.copy(), row.copy(), col.copy()
        data, row, col = (cupy.ascontiguousarray(a) for a in (data, row, col))
        shape, canonical = _validate.coo(data, row, col, shape)
        self._set(data, row, col, tuple(shape), canonical)

    @classmethod
    def _from_parts(cls, data, row, col, shape, *, canonical=False):
        """An instance over these arrays: no checks, no copies. ``canonical``: known row-major
        sorted without duplicates."""
        obj = cls.__new__(cls)
        obj._set(data, row, col, tuple(int(s) for s in shape), canonical)
        return obj

    def _set(self, data, row, col, shape, canonical):
        self._data, self._row, self._col, self._shape = data, row, col, shape
        self._canonical = bool(canonical)

    # ---- parts and flags -------------------------------------------------------------------------

    @property
    def data(self):
        """Stored values."""
        return self._data

    @data.setter
    def data(self, value):
        self._data = value

    @property
    def row(self):
        """Row index of each stored value."""
        return self._row

    @row.setter
    def row(self, value):
        self._row, self._canonical = value, False

    @property
    def col(self):
        """Column index of each stored value."""
        return self._col

    @col.setter
    def col(self, value):
        self._col, self._canonical = value, False

    @property
    def coords(self):
        """``(row, col)``."""
        return (self._row, self._col)

    @coords.setter
    def coords(self, value):
        self._row, self._col = value
        self._canonical = False

    @property
    def has_canonical_format(self):
        """Whether the elements are known to be in row-major order without duplicates."""
        return self._canonical

    @has_canonical_format.setter
    def has_canonical_format(self, value):
        self._canonical = bool(value)

    @property
    def has_sorted_indices(self):
        """Whether the elements are known to be in row-major order (here: known canonical)."""
        return self._canonical

    @property
    def _sorted(self):
        return self._canonical

    # ---- values and structure ----------------------------------------------------------------------

    def _with_data(self, data, copy=True):
        row, col = (self._row.copy(), self._col.copy()) if copy else (self._row, self._col)
        return type(self)._from_parts(data, row, col, self.shape, canonical=self._canonical)

    def _transpose(self, copy):
        arrays = (self._data, self._col, self._row)
        if copy:
            arrays = tuple(a.copy() for a in arrays)
        return type(self)._from_parts(*arrays, self.shape[::-1], canonical=False)

    def _compressed(self, by_column):
        """Canonical CSR parts of the matrix (``by_column``: of its transpose, i.e. CSC parts)."""
        m, n = self.shape
        major, minor = (self._col, self._row) if by_column else (self._row, self._col)
        if by_column:
            m, n = n, m
        data = self._data
        if not (self._canonical and not by_column):
            major, minor, data = rocsparse.coosort(m, n, major, minor, data)
            indptr = rocsparse.coo2csr(major, m)
            return rocsparse.csr_sum_duplicates(m, n, indptr, minor, data)
        return rocsparse.coo2csr(major, m), minor.copy(), data.copy()

    def tocsr(self, copy=False):
        """Canonical CSR form (duplicates summed; always new arrays).

        Parameters
        ----------
        copy : bool
            Ignored, like SciPy's: the result never shares arrays.
        """
        indptr, indices, data = self._compressed(False)
        return self._csr_container._from_parts(data, indices, indptr, self.shape, canonical=True)

    def tocsc(self, copy=False):
        """Canonical CSC form (duplicates summed; always new arrays).

        Parameters
        ----------
        copy : bool
            Ignored, like SciPy's: the result never shares arrays.
        """
        indptr, indices, data = self._compressed(True)
        return self._csc_container._from_parts(data, indices, indptr, self.shape, canonical=True)

    def tocoo(self, copy=False):
        """This array (or a copy with ``copy``).

        Parameters
        ----------
        copy : bool
        """
        return self.copy() if copy else self

    def toarray(self, order=None, out=None):
        """Dense device array (``cupy.ndarray``); duplicates add.

        Parameters
        ----------
        order : {'C', 'F'}, optional
        out : cupy.ndarray, optional
            Result of this shape and dtype (zeroed first).
        """
        return self.tocsr().toarray(order=order, out=out)

    def sum_duplicates(self):
        """Sort in row-major order and add up duplicates, in place."""
        if self._canonical:
            return
        indptr, col, data = self._compressed(False)
        self._set(data, rocsparse.csr2coo(indptr, data.size), col, self.shape, True)

    def sort_indices(self):
        """Sort the elements in row-major order (duplicates kept, in their order), in place."""
        if self._canonical:
            return
        m, n = self.shape
        self._row, self._col, self._data = rocsparse.coosort(m, n, self._row, self._col, self._data)

    def eliminate_zeros(self):
        """Remove the stored zeros, in place."""
        keep = prim.nonzero_indices(self._data)
        if keep.size != self.nnz:
            self._set(self._data.take(keep), self._row.take(keep), self._col.take(keep), self.shape,
                      self._canonical)

    def _product_kernel(self, x, kd, transpose):
        return self.tocsr()._product_kernel(x, kd, transpose)


class coo_array(sparray, _coo_base):
    """COOrdinate sparse array on the device (``scipy.sparse.coo_array``).

    Parameters
    ----------
    arg1 : object
        ``(data, (row, col))`` (duplicates allowed, kept until :meth:`sum_duplicates` or a
        conversion); a dense CuPy or NumPy 2-D array; another sparse array or matrix; a SciPy or
        ``cupyx.scipy.sparse`` object; or a shape ``(M, N)``. Host inputs are copied to the device.
    shape : tuple of int, optional
        Inferred from the largest indices when omitted.
    dtype : dtype, optional
    copy : bool

    Notes
    -----
    With ``rocarray.config.sparse_checks`` on (the default), indices out of range raise SciPy's
    ``ValueError`` and a row-major, duplicate-free input is marked canonical.

    Examples
    --------
    >>> row, col = cupy.array([0, 0]), cupy.array([1, 1])
    >>> a = ra.sparse.coo_array((cupy.ones(2), (row, col)), shape=(2, 2))   # doctest: +SKIP
    >>> a.tocsr().data                                # doctest: +SKIP
    array([2.])
    """
