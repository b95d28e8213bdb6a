"""CPU stand-ins for the sparse operations' tests (tests/sparse/test_arith.py, test_reduce_index.py,
test_construct.py): NumPy arrays as "device" arrays, format classes of the contract over SciPy, and
NumPy versions of the library calls the operations make.

``install(monkeypatch)`` points :func:`rocarray.sparse._opsdev.xp` at NumPy, replaces the library
calls of :mod:`rocarray.sparse._opsdev` (``csrgeam``, ``csr_multiply``, ``csr2csc``,
``segmented_sum``, ``segmented_sort``) by independent NumPy implementations of their contracts
(``csrgeam`` keeps zeros from cancellation, as the contract allows, so the façade's clean-up is
tested), and makes the construction functions build the stand-in classes. The
classes implement only what the contract names: ``_from_parts``, the parts, ``shape``/``dtype``/
``nnz``/``format``/``has_canonical_format``, ``tocsr``/``tocsc``/``tocoo``, ``toarray``, ``copy``,
``sum_duplicates`` and ``eliminate_zeros`` (in place). The operations then run unchanged on the CPU.
"""

import numpy as np
import scipy.sparse as sp

calls = []


class _Sparse:
    is_matrix = False

    @classmethod
    def _sibling(cls, fmt):
        return _CLASSES[(fmt, cls.is_matrix)]

    def __init__(self, arg, shape=None):
        s = arg if sp.issparse(arg) else sp.coo_array(np.asarray(arg), shape=shape)
        self._set(getattr(s, "to" + self.format)())

    def _set(self, s):
        s = getattr(s, "to" + self.format)()
        self.shape = s.shape
        self.data = np.asarray(s.data)
        if self.format == "coo":
            self.row, self.col = np.asarray(s.row), np.asarray(s.col)
            self.has_canonical_format = bool(s.has_canonical_format)
        else:
            self.indices, self.indptr = np.asarray(s.indices), np.asarray(s.indptr)
            s.has_sorted_indices = False
            self.has_canonical_format = _canonical(self.indptr, self.indices)
        return self

    @classmethod
    def _from_parts(cls, data, a, b, shape, *, canonical=False):
        obj = cls.__new__(cls)
        obj.shape, obj.data = tuple(shape), data
        if cls.format == "coo":
            obj.row, obj.col = a, b
            assert a.dtype == b.dtype and a.dtype in (np.int32, np.int64), (a.dtype, b.dtype)
        else:
            obj.indices, obj.indptr = a, b
            assert a.dtype == b.dtype and a.dtype in (np.int32, np.int64), (a.dtype, b.dtype)
            assert b.size == (shape[0] if cls.format == "csr" else shape[1]) + 1
            assert b[-1] == data.size
        obj.has_canonical_format = bool(canonical)
        if canonical:
            assert obj._check_canonical(), "a result flagged canonical is not canonical"
        return obj

    def _check_canonical(self):
        if self.format == "coo":
            key = self.row.astype(np.int64) * max(self.shape[1], 1) + self.col
            return bool(np.all(np.diff(key) > 0))
        return _canonical(self.indptr, self.indices)

    def _scipy(self):
        if self.format == "coo":
            return sp.coo_array((self.data, (self.row, self.col)), shape=self.shape)
        cls = sp.csr_array if self.format == "csr" else sp.csc_array
        return cls((self.data, self.indices, self.indptr), shape=self.shape)

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def nnz(self):
        return int(self.data.size)

    def toarray(self):
        return self._scipy().toarray()

    def copy(self):
        return type(self)._from_parts(self.data.copy(), *(p.copy() for p in self._parts()), self.shape,
                                      canonical=self.has_canonical_format)

    def _parts(self):
        return (self.row, self.col) if self.format == "coo" else (self.indices, self.indptr)

    def _convert(self, fmt):
        cls = self._sibling(fmt)
        return cls.__new__(cls)._set(self._scipy())

    def tocsr(self):
        return self if self.format == "csr" else self._convert("csr")

    def tocsc(self):
        return self if self.format == "csc" else self._convert("csc")

    def tocoo(self):
        return self if self.format == "coo" else self._convert("coo")

    def sum_duplicates(self):
        s = self._scipy()
        s.sum_duplicates()
        self._set(s)
        if self.format == "coo":
            self.has_canonical_format = True

    def eliminate_zeros(self):
        keep = self.data != 0
        if self.format == "coo":
            self.row, self.col, self.data = self.row[keep], self.col[keep], self.data[keep]
            return
        major = self.indptr.size - 1
        rows = np.repeat(np.arange(major), np.diff(self.indptr))
        counts = np.bincount(rows[keep], minlength=major)
        self.indptr = np.concatenate([[0], np.cumsum(counts)]).astype(self.indptr.dtype)
        self.indices, self.data = self.indices[keep], self.data[keep]


def _canonical(indptr, indices):
    for i in range(indptr.size - 1):
        seg = indices[indptr[i]:indptr[i + 1]]
        if np.any(np.diff(seg) <= 0):
            return False
    return True


def _make(fmt, matrix):
    return type(f"{fmt}_{'matrix' if matrix else 'array'}", (_Sparse,), {"format": fmt, "is_matrix": matrix})


_CLASSES = {(f, m): _make(f, m) for f in ("csr", "csc", "coo") for m in (False, True)}
csr_array, csc_array, coo_array = (_CLASSES[(f, False)] for f in ("csr", "csc", "coo"))
csr_matrix, csc_matrix, coo_matrix = (_CLASSES[(f, True)] for f in ("csr", "csc", "coo"))


def from_scipy(s, fmt=None, matrix=False):
    """A stand-in of a SciPy sparse object, in its format (or ``fmt``), keeping its parts as they are."""
    fmt = fmt or s.format
    s = getattr(s, "to" + fmt)(copy=True)  # SciPy canonicalizes in place: share no buffers
    cls = _CLASSES[(fmt, matrix)]
    if fmt == "coo":
        return cls._from_parts(np.asarray(s.data), np.asarray(s.row), np.asarray(s.col), s.shape,
                               canonical=False)
    return cls._from_parts(np.asarray(s.data), np.asarray(s.indices), np.asarray(s.indptr), s.shape,
                           canonical=_canonical(s.indptr, s.indices))


# ------------------------------------------------------------------------------------------
# library calls
# ------------------------------------------------------------------------------------------

def _check_canonical_claim(canonical, *parts):
    if canonical:
        for indptr, indices, _ in parts:
            assert _canonical(indptr, indices), "inputs claimed canonical are not"


def csrgeam(m, n, alpha, a_parts, beta, b_parts, canonical):
    calls.append(("csrgeam", m, n, alpha, beta, a_parts[0].dtype, b_parts[0].dtype, canonical))
    _check_canonical_claim(canonical, a_parts, b_parts)
    assert a_parts[0].dtype == b_parts[0].dtype == a_parts[1].dtype == b_parts[1].dtype
    assert a_parts[2].dtype == b_parts[2].dtype
    a = sp.csr_array(tuple(reversed(a_parts)), shape=(m, n)).tocoo()
    b = sp.csr_array(tuple(reversed(b_parts)), shape=(m, n)).tocoo()
    c = sp.coo_array((np.concatenate([alpha * a.data, beta * b.data]).astype(a.data.dtype),
                      (np.concatenate([a.row, b.row]), np.concatenate([a.col, b.col]))), shape=(m, n)).tocsr()
    c.sum_duplicates()  # keeps zeros from cancellation, as the contract allows
    idx = a_parts[0].dtype
    return c.indptr.astype(idx), c.indices.astype(idx), c.data


def csr_multiply(m, n, a_parts, b_parts, canonical):
    calls.append(("csr_multiply", m, n, canonical))
    _check_canonical_claim(canonical, a_parts, b_parts)
    a = sp.csr_array(tuple(reversed(a_parts)), shape=(m, n))
    b = sp.csr_array(tuple(reversed(b_parts)), shape=(m, n))
    c = a.multiply(b).tocsr()
    c.sum_duplicates()
    c.sort_indices()
    idx = a_parts[0].dtype
    return c.indptr.astype(idx), c.indices.astype(idx), c.data.astype(a_parts[2].dtype)


def csr2csc(m, n, indptr, indices, data):
    calls.append(("csr2csc", m, n))
    c = sp.csr_array((data, indices, indptr), shape=(m, n)).tocsc()
    c.has_sorted_indices = False
    c.sort_indices()
    return c.indptr.astype(indptr.dtype), c.indices.astype(indptr.dtype), c.data


def segmented_sum(x, heads, dtype):
    calls.append(("segmented_sum", x.size))
    assert heads.dtype == np.bool_ and heads.shape == x.shape
    out = np.empty(x.shape, dtype)
    acc = None
    for i in range(x.size):
        v = np.asarray(x[i]).astype(dtype)
        acc = v if (i == 0 or heads[i]) else acc + v
        out[i] = acc
    return out


def segmented_sort(keys, offsets):
    calls.append(("segmented_sort", keys.size))
    assert keys.dtype.kind != "c"
    out = keys.copy()
    for s, e in zip(offsets[:-1], offsets[1:]):
        out[s:e] = np.sort(keys[s:e])
    return out


def install(monkeypatch):
    """Route the sparse operations to NumPy and the stand-in classes (see the module docstring)."""
    from rocarray.sparse import _construct, _opsdev

    calls.clear()
    monkeypatch.setattr(_opsdev, "xp", lambda: np)
    monkeypatch.setattr(_opsdev, "require_device", lambda: None)
    for name in ("csrgeam", "csr_multiply", "csr2csc", "segmented_sum", "segmented_sort"):
        monkeypatch.setattr(_opsdev, name, globals()[name])
    monkeypatch.setattr(_construct, "_coo_class", lambda array: coo_array if array else coo_matrix)
