"""CSR and CSC: one implementation over the stored CSR parts.

A CSR array stores the CSR parts of the matrix, a CSC array the CSR parts of its transpose
(``indptr`` over columns, ``indices`` are row indices), so every library call takes the stored
parts as an m' x n' CSR matrix with ``(m', n') = (rows, columns)`` for CSR and
``(columns, rows)`` for CSC. Products of a CSC array use ``trans='T'`` on the stored parts (the
transpose trick), so neither format is converted for ``@``; ``A.T`` of either format shares the
arrays.
"""

import numpy

from rocarray import rocsparse
from rocarray._core import backend
from rocarray.sparse import _validate
from rocarray.sparse._base import _spbase


class _cs_base(_spbase):
    """Shared CSR/CSC behavior (not instantiated directly)."""

    def __init__(self, arg1, shape=None, dtype=None, copy=False):
        if isinstance(arg1, tuple) and len(arg1) == 3:
            self._init_parts(arg1, shape, dtype, copy)
            return
        x, fresh = self._source(arg1, shape, dtype, copy)
        x = x.asformat(self.format, copy=copy and not fresh)
        self._set(x.data, x.indices, x.indptr, x.shape, x._sorted, x._canonical)

    def _init_parts(self, arg1, shape, dtype, copy):
        """``(data, indices, indptr)``: checked by :mod:`rocarray.sparse._validate`."""
        cupy = backend.cupy()
        data, indices, indptr = (_validate.as_device(a, name) for a, name in zip(arg1, ("data", "indices", "indptr")))
        if data.ndim != 1 or indices.ndim != 1 or indptr.ndim != 1:
            raise ValueError("data, indices, and indptr should be 1-D")
        if shape is None:
            minor = int(cupy.asnumpy(indices.max())) + 1 if indices.size else 0
            shape = self._swap((indptr.size - 1, minor))
        shape = _validate.check_shape(shape)
        if dtype is not None:
            data = data.astype(_validate.check_dtype(dtype), copy=False)
        _validate.check_dtype(data.dtype)
        indices, indptr = _validate.as_index_arrays([indices, indptr], (max(shape), indices.size))
        if copy:
            data, indices, indptr = data.copy(), indices.copy(), indptr.copy()
        data, indices, indptr = (cupy.ascontiguousarray(a) for a in (data, indices, indptr))
        data, indices, indptr, sorted_, canonical = _validate.compressed(data, indices, indptr, shape, self.format)
        self._set(data, indices, indptr, shape, sorted_, canonical)

    @classmethod
    def _from_parts(cls, data, indices, indptr, shape, *, canonical=False, sorted_indices=None):
        """An instance over these arrays: no checks, no copies. ``canonical``: known sorted and
        free of duplicates; ``sorted_indices`` (default ``canonical``): known sorted."""
        obj = cls.__new__(cls)
        obj._set(data, indices, indptr, tuple(int(s) for s in shape),
                 canonical if sorted_indices is None else sorted_indices, canonical)
        return obj

    def _set(self, data, indices, indptr, shape, sorted_, canonical):
        self._data, self._indices, self._indptr, self._shape = data, indices, indptr, shape
        self._sorted, self._canonical = bool(sorted_ or canonical), bool(canonical)
        # [analysis or None], a new holder: a transpose sharing the old arrays keeps the old one
        self._analysis = [None]

    def _swap(self, pair):
        """``(rows, columns)`` <-> ``(major, minor)`` of the stored parts."""
        return tuple(pair) if self.format == "csr" else (pair[1], pair[0])

    # ---- parts and flags -------------------------------------------------------------------------

    @property
    def data(self):
        """Stored values."""
        return self._data

    @data.setter
    def data(self, value):
        self._data = value

    @property
    def indices(self):
        """Column (CSR) or row (CSC) index of each stored value."""
        return self._indices

    @indices.setter
    def indices(self, value):
        self._indices = value
        self._structure_changed(False, False)

    @property
    def indptr(self):
        """Row (CSR) or column (CSC) pointers into ``indices`` and ``data``."""
        return self._indptr

    @indptr.setter
    def indptr(self, value):
        self._indptr = value
        self._structure_changed(False, False)

    def _structure_changed(self, sorted_, canonical):
        self._sorted, self._canonical = bool(sorted_ or canonical), bool(canonical)
        # [analysis or None], a new holder: a transpose sharing the old arrays keeps the old one
        self._analysis = [None]

    @property
    def has_sorted_indices(self):
        """Whether the indices are known to be sorted within each row (CSR) or column (CSC)."""
        return self._sorted

    @has_sorted_indices.setter
    def has_sorted_indices(self, value):
        self._sorted = bool(value)
        self._canonical = self._canonical and self._sorted

    @property
    def has_canonical_format(self):
        """Whether the indices are known to be sorted and free of duplicates."""
        return self._canonical

    @has_canonical_format.setter
    def has_canonical_format(self, value):
        self._canonical = bool(value)
        self._sorted = self._sorted or self._canonical

    # ---- values and structure ----------------------------------------------------------------------

    def _with_data(self, data, copy=True):
        ind, ptr = (self._indices.copy(), self._indptr.copy()) if copy else (self._indices, self._indptr)
        return type(self)._from_parts(data, ind, ptr, self.shape, canonical=self._canonical,
                                      sorted_indices=self._sorted)

    def _other_container(self):
        return self._csc_container if self.format == "csr" else self._csr_container

    def _transpose(self, copy):
        arrays = (self._data, self._indices, self._indptr)
        if copy:
            arrays = tuple(a.copy() for a in arrays)
        out = self._other_container()._from_parts(*arrays, self.shape[::-1], canonical=self._canonical,
                                                  sorted_indices=self._sorted)
        if not copy:
            out._analysis = self._analysis  # the same stored parts: ``A.T @ x`` reuses A's analysis
        return out

    def _converted(self):
        """This matrix in the other compressed format (``csr2csc`` of the stored parts)."""
        major, minor = self._swap(self.shape)
        ptr, ind, dat = rocsparse.csr2csc(major, minor, self._indptr, self._indices, self._data)
        return self._other_container()._from_parts(dat, ind, ptr, self.shape, canonical=self._canonical,
                                                   sorted_indices=True)

    def tocsr(self, copy=False):
        """CSR form (this array, or a copy with ``copy``, when already CSR).

        Parameters
        ----------
        copy : bool
        """
        if self.format == "csr":
            return self.copy() if copy else self
        return self._converted()

    def tocsc(self, copy=False):
        """CSC form (this array, or a copy with ``copy``, when already CSC).

        Parameters
        ----------
        copy : bool
        """
        if self.format == "csc":
            return self.copy() if copy else self
        return self._converted()

    def tocoo(self, copy=False):
        """COO form: the stored row (column) pointers expanded; values shared unless ``copy``.

        Parameters
        ----------
        copy : bool
        """
        data, ind = (self._data.copy(), self._indices.copy()) if copy else (self._data, self._indices)
        major = rocsparse.csr2coo(self._indptr, self.nnz)
        if self.format == "csr":
            return self._coo_container._from_parts(data, major, ind, self.shape, canonical=self._canonical)
        return self._coo_container._from_parts(data, ind, major, self.shape, canonical=False)

    def toarray(self, order=None, out=None):
        """Dense device array (``cupy.ndarray``); duplicates add.

        Parameters
        ----------
        order : {'C', 'F'}, optional
        out : cupy.ndarray, optional
            Result of this shape and dtype (zeroed first).
        """
        out = self._dense_out(order, out)
        major, minor = self._swap(self.shape)
        target = out if self.format == "csr" else out.T
        rocsparse.csr2dense(major, minor, self._indptr, self._indices, self._data, target)
        return out

    def sort_indices(self):
        """Sort the indices within each row (CSR) or column (CSC), in place."""
        if self._sorted:
            return
        major, minor = self._swap(self.shape)
        self._indices, self._data = rocsparse.csrsort(major, minor, self._indptr, self._indices, self._data)
        self._structure_changed(True, False)

    def sorted_indices(self):
        """A copy with sorted indices."""
        x = self.copy()
        x.sort_indices()
        return x

    def sum_duplicates(self):
        """Sort the indices and add up duplicates, in place (canonical format)."""
        if self._canonical:
            return
        self.sort_indices()
        major, minor = self._swap(self.shape)
        self._indptr, self._indices, self._data = rocsparse.csr_sum_duplicates(major, minor, self._indptr,
                                                                               self._indices, self._data)
        self._structure_changed(True, True)

    def eliminate_zeros(self):
        """Remove the stored zeros, in place."""
        major, minor = self._swap(self.shape)
        self._indptr, self._indices, self._data = rocsparse.csr_eliminate_zeros(major, minor, self._indptr,
                                                                                self._indices, self._data)
        self._structure_changed(self._sorted, self._canonical)

    # ---- products ----------------------------------------------------------------------------------

    def _spmv_analysis(self):
        """The cached ``csrmv_analysis`` of the stored parts (made on the first product)."""
        if self._analysis[0] is None:
            major, minor = self._swap(self.shape)
            self._analysis[0] = rocsparse.csrmv_analysis(major, minor, self._indptr, self.nnz)
        return self._analysis[0]

    def _product_kernel(self, x, kd, transpose):
        """``op(A) @ x`` with values and ``x`` in the kernel dtype ``kd``; ``transpose``: op = A^T.
        The stored parts are A (CSR) or A^T (CSC), so the library's op is ``'T'`` exactly when one
        of the two transposes applies."""
        major, minor = self._swap(self.shape)
        data = self._data.astype(kd, copy=False)
        trans = transpose != (self.format == "csc")
        analysis = self._spmv_analysis()  # for op = A^T it also keeps the transposed structure
        op = "T" if trans else "N"
        one = numpy.dtype(kd).type(1)
        if x.ndim == 1:
            return rocsparse.csrmv(one, major, minor, self._indptr, self._indices, data, x, trans=op,
                                   analysis=analysis)
        return rocsparse.csrmm(one, major, minor, self._indptr, self._indices, data, x, trans=op,
                               analysis=analysis)
