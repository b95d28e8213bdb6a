"""NumPy stand-ins for :mod:`rocarray.rocsparse._spgemm_kernels` (tests/rocsparse).

``install(monkeypatch, shared_limit=...)`` replaces every function of the kernel interface by a
NumPy implementation of the same contract over plain NumPy arrays, so the SpGEMM, geam and SDDMM
drivers run unchanged on the CPU. The stand-ins check the preconditions the kernels rely on and
could not check themselves: a hash table never fills (the count and fill stand-ins run the
kernel's linear probing with the kernel's hash and fail when a row has more distinct columns than
its table), tables are powers of two, every row is counted and filled exactly once, each row's
slice of the output has exactly its size, and merges see canonical rows. Unwritten outputs are
poisoned (NaN, or -7 for indices) so a row the driver forgets shows up. ``log`` records the
(kind, variant, table, rows) of every hash launch; ``merge_counted`` / ``merge_filled`` the rows
the merge stand-ins ran (which, like the kernels, flag unsorted rows of B they read).
"""

import numpy as np
import scipy.sparse as sp

import sparse_host
from rocarray._core import backend
from rocarray.rocsparse import _spgemm_kernels as _k

HASH_SCALE = 107


def _poison(n, dtype):
    dtype = np.dtype(dtype)
    return np.full(int(n), np.nan if dtype.kind in "fc" else -7, dtype)


def _listed(rows, nrows):
    return np.arange(nrows) if rows is None else np.asarray(rows)


def _probe(table, key, mask):
    """Slot of key in the table (list), inserting it; fails when the table is full."""
    h = (key * HASH_SCALE) & mask
    for _ in range(mask + 1):
        if table[h] == key:
            return h, False
        if table[h] == -1:
            table[h] = key
            return h, True
        h = (h + 1) & mask
    raise AssertionError(f"hash table of {mask + 1} slots overflowed")


def _row_products(row, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data):
    for p in range(a_indptr[row], a_indptr[row + 1]):
        c = a_indices[p]
        for q in range(b_indptr[c], b_indptr[c + 1]):
            yield b_indices[q], (None if a_data is None else a_data[p] * b_data[q])


class Host:
    def __init__(self, shared_limit):
        self.limit = shared_limit
        self.log = []
        self.counted = []
        self.filled = []
        self.merge_counted = []
        self.merge_filled = []

    def _table_ok(self, variant, table, slot_bytes):
        assert table & (table - 1) == 0 and table > 0, table
        if not variant.in_global:
            assert _k.table_bytes(variant, table, slot_bytes) + _k.STATIC_SHARED <= self.limit

    def count(self, variant, table, rows, nrows, a_indptr, a_indices, b_indptr, b_indices, row_nnz):
        self._table_ok(variant, table, a_indptr.dtype.itemsize)
        assert a_indptr.dtype == a_indices.dtype == b_indptr.dtype == b_indices.dtype == row_nnz.dtype
        listed = _listed(rows, nrows)
        assert len(listed) == nrows
        self.log.append(("count", variant, table, listed.copy()))
        for row in listed:
            keys = [-1] * table
            row_nnz[row] = sum(_probe(keys, int(c), table - 1)[1]
                               for c, _ in _row_products(row, a_indptr, a_indices, None, b_indptr, b_indices, None))
            self.counted.append(int(row))

    def fill(self, variant, table, rows, nrows, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, c_indptr,
             c_indices, c_data, zeros_found):
        self._table_ok(variant, table, a_indptr.dtype.itemsize + c_data.dtype.itemsize)
        assert a_data.dtype == b_data.dtype == c_data.dtype and c_indices.dtype == c_indptr.dtype == a_indptr.dtype
        listed = _listed(rows, nrows)
        self.log.append(("fill", variant, table, listed.copy()))
        for row in listed:
            keys = [-1] * table
            vals = np.zeros(table, c_data.dtype)
            for c, v in _row_products(row, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data):
                vals[_probe(keys, int(c), table - 1)[0]] += v
            slots = [s for s in range(table) if keys[s] != -1]
            if not variant.in_global:
                slots.sort(key=lambda s: keys[s])
            start, end = int(c_indptr[row]), int(c_indptr[row + 1])
            assert end - start == len(slots), "row size differs from its count"
            c_indices[start:end] = [keys[s] for s in slots]
            c_data[start:end] = vals[slots]
            zeros_found[0] += int(np.count_nonzero(vals[slots] == 0))
            self.filled.append(int(row))


    def _merge_rows(self, ways, m, need, a_indptr):
        lengths = np.diff(a_indptr)
        assert ways in _k.MERGE_WAYS
        return [r for r in range(m) if need[r] == 0 and lengths[r] <= ways]

    def merge_count(self, ways, m, need, a_indptr, a_indices, b_indptr, b_indices, row_nnz, unsorted):
        assert a_indptr.dtype == a_indices.dtype == b_indptr.dtype == b_indices.dtype == row_nnz.dtype
        assert unsorted.dtype == np.uint64
        for row in self._merge_rows(ways, m, need, a_indptr):
            cols = [int(c) for c, _ in _row_products(row, a_indptr, a_indices, None, b_indptr, b_indices, None)]
            for p in range(a_indptr[row], a_indptr[row + 1]):
                seg = b_indices[b_indptr[a_indices[p]]:b_indptr[a_indices[p] + 1]]
                if np.any(np.diff(seg) < 0):
                    unsorted[0] = 1
            row_nnz[row] = len(set(cols))
            self.merge_counted.append(int(row))

    def merge_fill(self, ways, m, need, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, c_indptr, c_indices,
                   c_data, zeros_found):
        assert a_data.dtype == b_data.dtype == c_data.dtype and c_indices.dtype == c_indptr.dtype == a_indptr.dtype
        for row in self._merge_rows(ways, m, need, a_indptr):
            sums = {}
            for c, v in _row_products(row, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data):
                sums[int(c)] = sums.get(int(c), c_data.dtype.type(0)) + v
            start, end = int(c_indptr[row]), int(c_indptr[row + 1])
            assert end - start == len(sums), "row size differs from its count"
            cols = sorted(sums)
            c_indices[start:end] = cols
            c_data[start:end] = [sums[c] for c in cols]
            zeros_found[0] += sum(1 for c in cols if sums[c] == 0)
            self.merge_filled.append(int(row))


def row_work(m, n, a_indptr, a_indices, b_indptr):
    prods = products(m, a_indptr, a_indices, b_indptr)
    lengths = np.diff(a_indptr).astype(np.int64)[:m]
    merged = (lengths <= _k.MERGE_WAYS[-1]) & (prods <= _k.MERGE_PRODUCTS)
    need = np.where(merged, 0, np.minimum(prods, n)).astype(np.int64)
    ways = np.where(merged & (prods > 0), lengths, 0).astype(np.int32)
    return prods, need, ways


def products(m, a_indptr, a_indices, b_indptr):
    lengths = np.diff(b_indptr).astype(np.int64)
    return np.array([lengths[a_indices[a_indptr[r]:a_indptr[r + 1]]].sum() for r in range(m)], np.int64)


def table_need(products_per_row, n, indptr=None):
    need = np.minimum(products_per_row, n)
    if indptr is not None:
        need = np.minimum(need, 2 * np.diff(indptr).astype(np.int64))
    return need


def classify(need, limits, index_dtype, total_of=None, widest_of=None):
    nbins = len(limits) + 2
    bins = np.array([0 if x == 0 else next((b + 1 for b, t in enumerate(limits) if x <= t), nbins - 1)
                     for x in need], np.int64)
    counts = np.bincount(bins, minlength=nbins)
    total = int((need if total_of is None else total_of).sum())
    largest = int(need.max()) if need.size else 0
    widest = int(widest_of.max()) if widest_of is not None and need.size else 0
    if need.size == 0 or counts.max() == need.size:
        return None, counts, total, largest, widest
    return np.argsort(bins, kind="stable").astype(index_dtype), counts, total, largest, widest


def merged_need(products_per_row, need, n):
    return np.where(need == 0, np.minimum(products_per_row, n), 0)


def indptr_from_counts(counts, index_dtype):
    assert counts[-1] == 0
    indptr = np.concatenate([[0], np.cumsum(counts[:-1])]).astype(index_dtype)
    return indptr, int(indptr[-1])


def indptr_from_counts_and_flag(counts, index_dtype, flag):
    assert flag.dtype == np.uint64 and flag.size == 1
    return indptr_from_counts(counts, index_dtype) + (int(flag[0]),)


def sort_rows(indptr, indices, data):
    indices, data = indices.copy(), data.copy()
    for r in range(len(indptr) - 1):
        s, e = indptr[r], indptr[r + 1]
        o = np.argsort(indices[s:e], kind="stable")
        indices[s:e], data[s:e] = indices[s:e][o], data[s:e][o]
    return indices, data


def eliminate_zeros(m, n, indptr, indices, data):
    keep = data != 0
    rows = np.repeat(np.arange(m), np.diff(indptr))
    counts = np.bincount(rows[keep], minlength=m)
    return np.concatenate([[0], np.cumsum(counts)]).astype(indptr.dtype), indices[keep], data[keep]


def canonicalize(m, n, indptr, indices, data):
    a = sp.csr_array((data, indices, indptr), shape=(m, n))
    a.sum_duplicates()
    return a.indptr.astype(indptr.dtype), a.indices.astype(indptr.dtype), a.data


def merge(kind, m, alpha, beta, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, counts, c_indptr,
          c_indices, c_data):
    for row in range(m):
        a = dict(zip(a_indices[a_indptr[row]:a_indptr[row + 1]], a_data[a_indptr[row]:a_indptr[row + 1]]))
        b = dict(zip(b_indices[b_indptr[row]:b_indptr[row + 1]], b_data[b_indptr[row]:b_indptr[row + 1]]))
        assert len(a) == a_indptr[row + 1] - a_indptr[row] and len(b) == b_indptr[row + 1] - b_indptr[row]
        assert list(a) == sorted(a) and list(b) == sorted(b), "merge needs sorted rows"
        zero = a_data.dtype.type(0)
        out = []
        for c in sorted(set(a) | set(b)):
            if kind == "geam":
                v = alpha * a[c] + beta * b[c] if c in a and c in b else alpha * a[c] if c in a else beta * b[c]
            else:
                with np.errstate(invalid="ignore"):
                    v = a.get(c, zero) * b.get(c, zero)
            if v != 0:
                out.append((c, v))
        if c_indptr is None:
            counts[row] = len(out)
        else:
            s = c_indptr[row]
            assert c_indptr[row + 1] - s == len(out)
            for i, (c, v) in enumerate(out):
                c_indices[s + i], c_data[s + i] = c, v


def sddmm(alpha, A, B, beta, indptr, indices, data, use_data, out):
    rows = np.repeat(np.arange(A.shape[0]), np.diff(indptr))
    dots = np.einsum("ek,ke->e", A[rows, :], B[:, indices]) if out.size else np.zeros(0, out.dtype)
    out[...] = alpha * dots + (beta * data if use_data else 0)


def install(monkeypatch, shared_limit=48 * 1024):
    """Replace the kernel interface by these stand-ins and make NumPy arrays count as device arrays
    (``backend.cupy()`` is NumPy, so the drivers' argument checks take them); returns the
    :class:`Host` recording launches."""
    host = Host(shared_limit)
    monkeypatch.setattr(backend, "cupy_module", lambda: sparse_host.XP)
    monkeypatch.setattr(backend, "_cupy", [])
    fns = dict(astype=lambda x, d: x if x.dtype == d else x.astype(d),
               empty=lambda n, dtype, like: _poison(n, dtype),
               zeros=lambda n, dtype, like: np.zeros(int(n), dtype),
               to_host=lambda x: np.array(x), shared_limit=lambda like: host.limit,
               row_work=row_work, table_need=table_need, classify=classify, count=host.count, fill=host.fill,
               merge_count=host.merge_count, merge_fill=host.merge_fill, merged_need=merged_need,
               indptr_from_counts=indptr_from_counts, indptr_from_counts_and_flag=indptr_from_counts_and_flag,
               sort_rows=sort_rows, eliminate_zeros=eliminate_zeros,
               canonicalize=canonicalize, merge=merge, sddmm=sddmm)
    for name, fn in fns.items():
        assert hasattr(_k, name), name
        monkeypatch.setattr(_k, name, fn)
    return host

