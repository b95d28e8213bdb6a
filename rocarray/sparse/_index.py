"""Indexing of sparse arrays (``a[i]``, ``a[i, j]``, row and column slices, fancy row indexing).

Functions take a sparse array first and never import the format modules.

Keys, as SciPy's: integers (negative ones count from the end), slices with any step, 1-D integer
arrays or lists (device or host; negative entries count from the end), 1-D boolean masks of the
axis length, ``...``; a pair of them for rows and columns. Out-of-range integers raise
``IndexError('index (i) out of range')``; more than two indices raise ``IndexError``, and so does
``None`` (SciPy adds an axis for some such keys; these classes are 2-D).

Results, as SciPy's except where noted:

* ``a[i, j]``: the element (duplicates summed) as a 0-d device array (SciPy: a NumPy scalar).
* One integer and one slice or array (``a[i]``, ``a[i, :]``, ``a[:, j]``): for a ``*_matrix``, a
  ``(1, n)`` or ``(m, 1)`` sparse matrix; for a ``*_array``, a dense 1-D device array (SciPy gives
  a 1-D ``coo_array``; the format classes here are 2-D).
* Two integer arrays: the elements at the pairs, a 1-D device array (2-D ``(1, k)`` for matrices).
  Index arrays are 1-D (SciPy's 2-D outer-indexing arrays raise ``IndexError``).
* Otherwise a sparse array of ``a``'s format and kind: CSR and CSC select in their compressed
  layout (a CSC key is the transposed CSR key), COO through CSR.

Design: selected rows are gathered with a scan of their lengths and one gather of the stored
entries (contiguous slices of rows are copied directly); column slices keep the entries in range
and renumber them; column arrays gather rows of the transpose (``rocsparse.csr2csc``, twice).
"""

import numbers
import operator

import numpy

from rocarray.sparse import _opsdev
from rocarray.sparse._opsutil import from_parts, row_ids, segment_sums

_I64 = numpy.dtype(numpy.int64)
_BAD_INDEX = ("only integers, slices (`:`), ellipsis (`...`), and integer or boolean arrays are valid "
              "indices")


# ------------------------------------------------------------------------------------------
# key normalization (host logic; device arrays are checked with one read-back of their bounds)
# ------------------------------------------------------------------------------------------

def _isint(x):
    return isinstance(x, (numbers.Integral, numpy.integer)) and not isinstance(x, (bool, numpy.bool_))


def split_key(key, fmt):
    """``key`` as a pair ``(row_key, col_key)`` (``...`` expanded; SciPy's errors for ``None``,
    a repeated ellipsis and too many indices)."""
    if key is Ellipsis:
        return slice(None), slice(None)
    parts = list(key) if isinstance(key, tuple) else [key]
    if any(p is None for p in parts):
        raise IndexError(f"Indexing that leads to >2D is not supported by {fmt} format. "
                         f"Try converting to COO format")
    ellipses = [k for k, p in enumerate(parts) if p is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis")
    dims = [p for p in parts if p is not Ellipsis]
    if len(dims) > 2:
        raise IndexError(f"Too many indices for array or tuple index out of range. Key {key} needs "
                         f"{len(dims)}D. Array is 2D")
    fill = [slice(None)] * (2 - len(dims))
    if ellipses:
        at = ellipses[0]
        dims = dims[:at] + fill + dims[at:]
    else:
        dims = dims + fill
    return dims[0], dims[1]


def normalize_index(idx, length, axis):
    """One axis' key as ``('int', i)``, ``('slice', range)`` or ``('array', device int64 array)``.

    Raises
    ------
    IndexError
        Out of range, a mask of the wrong length, or a key of another kind.
    """
    xp = _opsdev.xp()
    if _isint(idx):
        i = operator.index(idx)
        if not -length <= i < length:
            raise IndexError(f"index ({i}) out of range")
        return "int", i + length if i < 0 else i
    if isinstance(idx, slice):
        return "slice", range(*idx.indices(length))
    if isinstance(idx, xp.ndarray):
        arr = idx
    elif isinstance(idx, (list, tuple, numpy.ndarray)):
        arr = numpy.asarray(idx)
        if arr.size == 0:
            arr = arr.astype(_I64)
    else:
        raise IndexError(_BAD_INDEX)
    if arr.ndim != 1:
        raise IndexError(f"Index dimension must be 1 or 2. Got {arr.ndim}")
    if arr.dtype.kind == "b":
        if arr.shape[0] != length:
            raise IndexError(f"bool index {axis} has shape ({length},) instead of {arr.shape}")
        arr = xp.asarray(arr)
        return "array", xp.nonzero(arr)[0].astype(_I64)
    if arr.dtype.kind not in "iu":
        raise IndexError(_BAD_INDEX)
    lo = hi = 0
    if arr.size:
        # host keys are checked before they move; device keys cost one read of their bounds
        lo, hi = (int(arr.min()), int(arr.max())) if isinstance(arr, numpy.ndarray) else \
            (_opsdev.host_int(arr.min()), _opsdev.host_int(arr.max()))
        if hi >= length:
            raise IndexError(f"index ({hi}) out of range")
        if lo < -length:
            raise IndexError(f"index ({lo}) out of range")
    arr = xp.asarray(arr).astype(_I64)
    if lo < 0:
        arr = xp.where(arr < 0, arr + length, arr)
    return "array", arr


# ------------------------------------------------------------------------------------------
# selections on raw CSR parts
# ------------------------------------------------------------------------------------------

def _host_pair(indptr, i, j):
    s, e = _opsdev.host_ints(indptr[[i, j]])
    return s, e


def gather_rows(indptr, indices, data, rows):
    """CSR parts of the rows ``rows`` (device int64, any order, repeats allowed): the scan of the
    selected row lengths gives the new ``indptr``, and every output entry finds its source."""
    xp = _opsdev.xp()
    starts = indptr[rows].astype(_I64)
    lens = indptr[rows + 1].astype(_I64) - starts
    new_indptr = xp.zeros(rows.size + 1, dtype=_I64)
    if rows.size:
        new_indptr[1:] = xp.cumsum(lens)
    total = _opsdev.host_int(new_indptr[-1])
    k = xp.arange(total, dtype=_I64)
    owner = xp.searchsorted(new_indptr[1:], k, side="right")
    src = starts[owner] + (k - new_indptr[owner])
    return new_indptr, indices[src], data[src]


def select_rows(indptr, indices, data, kind, sel):
    """CSR parts of the row selection ``(kind, sel)`` (every row copied whole)."""
    xp = _opsdev.xp()
    if kind == "int":
        sel = range(sel, sel + 1)
        kind = "slice"
    if kind == "slice" and (sel.step == 1 or len(sel) <= 1):
        lo = sel.start if len(sel) else 0
        hi = lo + len(sel)
        s, e = _host_pair(indptr, lo, hi)
        new_indptr = indptr[lo:hi + 1].astype(_I64) - s
        return (new_indptr, indices[s:e].copy(), data[s:e].copy())
    rows = xp.arange(sel.start, sel.stop, sel.step, dtype=_I64) if kind == "slice" else sel
    return gather_rows(indptr, indices, data, rows)


def select_column_range(indptr, indices, data, cols):
    """CSR parts keeping the columns of ``range`` ``cols``, renumbered ``0 .. len(cols) - 1``.
    A negative step reverses the order within each row."""
    xp = _opsdev.xp()
    c = indices.astype(_I64)
    start, step = cols.start, cols.step
    if len(cols) == 0:
        keep = xp.zeros(c.shape, dtype=bool)
        newcol = c
    elif step > 0:
        keep = (c >= start) & (c < cols.stop) & ((c - start) % step == 0)
        newcol = (c - start) // step
    else:
        keep = (c <= start) & (c > cols.stop) & ((start - c) % (-step) == 0)
        newcol = (start - c) // (-step)
    counts = segment_sums(keep, indptr, _I64)
    new_indptr = xp.zeros(counts.size + 1, dtype=_I64)
    if counts.size:
        new_indptr[1:] = xp.cumsum(counts)
    return new_indptr, newcol[keep], data[keep]


def _finish_parts(parts, shape, like):
    """Parts in SciPy's index dtype for ``shape``, their stored count and the source's index dtype
    ``like``."""
    indptr, indices, data = parts
    idx = _opsdev.index_dtype(shape[0], shape[1], data.size, like=(like,))
    return indptr.astype(idx, copy=False), indices.astype(idx, copy=False), data


def _transpose(m, n, parts):
    return _opsdev.csr2csc(m, n, *parts)


def select(indptr, indices, data, shape, rkey, ckey):
    """CSR parts, shape and order flag of ``A[rkey, ckey]`` for normalized row and column keys
    (not both integers, not both arrays). The flag says whether every row keeps its column order
    (rows are copied whole, so only a negative column step reverses it)."""
    m, n = shape
    parts = select_rows(indptr, indices, data, *rkey)
    rk, rsel = rkey
    rows = 1 if rk == "int" else len(rsel) if rk == "slice" else rsel.size
    ordered = True
    ck, csel = ckey
    if ck == "int":
        ck, csel = "slice", range(csel, csel + 1)
    if ck == "slice":
        if len(csel) == n and csel.step == 1:
            return parts, (rows, n), ordered
        parts = select_column_range(*parts, csel)
        return parts, (rows, len(csel)), ordered and csel.step > 0
    # a column array: gather rows of the transpose, then transpose back (sorted rows again)
    like = indptr.dtype
    t = _transpose(rows, n, _finish_parts(parts, (rows, n), like))
    tsel = gather_rows(*t, csel)
    out = _transpose(csel.size, rows, _finish_parts(tsel, (csel.size, rows), like))
    return out, (rows, csel.size), True


def lookup(indptr, indices, data, n, rows, cols):
    """Values at the pairs ``(rows[k], cols[k])`` of canonical CSR parts (0 where not stored)."""
    xp = _opsdev.xp()
    nnz = data.size
    out = xp.zeros(rows.size, dtype=data.dtype)
    if nnz == 0 or rows.size == 0:
        return out
    keys = row_ids(indptr, nnz).astype(_I64) * n + indices.astype(_I64)
    q = rows.astype(_I64) * n + cols.astype(_I64)
    pos = xp.searchsorted(keys, q)
    pos_c = xp.minimum(pos, nnz - 1)
    found = (pos < nnz) & (keys[pos_c] == q)
    out[found] = data[pos_c[found]]
    return out


def scalar(indptr, indices, data, i, j):
    """``A[i, j]`` of CSR parts (duplicates summed) as a 0-d device array."""
    xp = _opsdev.xp()
    s, e = _host_pair(indptr, i, i + 1)
    hit = indices[s:e] == j
    return xp.where(hit, data[s:e], xp.zeros((), dtype=data.dtype)).sum(dtype=data.dtype)


# ------------------------------------------------------------------------------------------
# the façade entry
# ------------------------------------------------------------------------------------------

def _canonical(x):
    if x.has_canonical_format:
        return x
    x = x.copy()
    x.sum_duplicates()
    return x


def getitem(a, key):
    """``a[key]``.

    Parameters
    ----------
    a : sparse array or matrix
    key : int, slice, array, list, bool mask, Ellipsis, or a pair of them

    Returns
    -------
    sparse array or cupy.ndarray
        See the module's rules.

    Raises
    ------
    IndexError
        As SciPy.
    """
    xp = _opsdev.xp()
    fmt = a.format
    rk, ck = split_key(key, fmt)
    m, n = a.shape
    rkey = normalize_index(rk, m, 0)
    ckey = normalize_index(ck, n, 1)
    base = a if fmt in ("csr", "csc") else a.tocsr()
    if base.format == "csc":
        rkey, ckey = ckey, rkey
        major, minor = n, m
    else:
        major, minor = m, n
    matrix = _opsdev.is_matrix(a)
    kinds = (rkey[0], ckey[0])
    if kinds == ("int", "int"):
        return scalar(base.indptr, base.indices, base.data, rkey[1], ckey[1])
    if kinds == ("array", "array"):
        r, c = rkey[1], ckey[1]
        if r.size != c.size and 1 not in (r.size, c.size):
            raise IndexError(f"shape mismatch: indexing arrays could not be broadcast together with "
                             f"shapes {tuple(r.shape)} {tuple(c.shape)}")
        r, c = xp.broadcast_arrays(r, c)
        cb = _canonical(base)
        vals = lookup(cb.indptr, cb.indices, cb.data, minor, r, c)
        return vals.reshape(1, -1) if matrix else vals
    parts, shape, ordered = select(base.indptr, base.indices, base.data, (major, minor), rkey, ckey)
    parts = _finish_parts(parts, shape, base.indptr.dtype)
    canonical = bool(base.has_canonical_format and ordered)
    out_shape = shape if base.format == "csr" else shape[::-1]
    out = from_parts(base, parts[1], parts[0], parts[2], out_shape, canonical=canonical)
    if "int" in kinds and not matrix:
        return out.toarray().reshape(-1)
    return out if fmt != "coo" else out.tocoo()
