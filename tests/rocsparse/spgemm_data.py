"""Random CSR test matrices as host parts (tests/rocsparse): duplicates, unsorted rows, empty
rows, banded and power-law patterns, in any value and index dtype; SciPy references."""

import numpy as np
import scipy.sparse as sp

VALUE_DTYPES = ["float32", "float64", "complex64", "complex128"]
INDEX_DTYPES = ["int32", "int64"]


def values(rng, n, dtype):
    dtype = np.dtype(dtype)
    v = rng.standard_normal(n)
    if dtype.kind == "c":
        v = v + 1j * rng.standard_normal(n)
    return v.astype(dtype)


def from_coo(rng, m, n, rows, cols, dtype, index, *, unsorted=False, data=None):
    """CSR parts (indptr, indices, data) of the entries (rows, cols), kept in their multiplicity;
    rows in column order unless ``unsorted`` (then shuffled within each row)."""
    rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
    data = values(rng, rows.size, dtype) if data is None else np.asarray(data, dtype)
    second = rng.random(rows.size) if unsorted else cols
    order = np.lexsort((second, rows))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=m))]) if m else np.zeros(1)
    return indptr.astype(index), cols[order].astype(index), data[order]


def random_parts(rng, m, n, density, dtype, index, *, duplicates=False, unsorted=False, empty_rows=0.0):
    """A random m x n CSR matrix of about ``density * m * n`` entries."""
    nnz = int(round(density * m * n)) if m and n else 0
    rows, cols = rng.integers(0, max(m, 1), nnz), rng.integers(0, max(n, 1), nnz)
    if empty_rows and m:
        keep = rng.random(m) >= empty_rows
        rows, cols = rows[keep[rows]], cols[keep[rows]]
    if not duplicates and rows.size:
        pairs = np.unique(rows * max(n, 1) + cols)
        rows, cols = pairs // max(n, 1), pairs % max(n, 1)
    elif duplicates and rows.size:
        twice = rng.integers(0, rows.size, max(1, rows.size // 4))
        rows, cols = np.concatenate([rows, rows[twice]]), np.concatenate([cols, cols[twice]])
    return from_coo(rng, m, n, rows, cols, dtype, index, unsorted=unsorted)


def banded_parts(rng, m, offsets, dtype, index):
    rows, cols = [], []
    for k in offsets:
        r = np.arange(max(0, -k), min(m, m - k))
        rows.append(r)
        cols.append(r + k)
    return from_coo(rng, m, m, np.concatenate(rows), np.concatenate(cols), dtype, index)


def power_law_parts(rng, m, n, dtype, index, alpha=1.2, cap=None):
    """Row lengths from a Pareto law (a few very long rows), distinct random columns."""
    lengths = np.minimum((rng.pareto(alpha, m) + 1).astype(np.int64), cap or n)
    rows = np.repeat(np.arange(m), lengths)
    cols = np.concatenate([rng.choice(n, size=int(k), replace=False) for k in lengths]) if m else []
    return from_coo(rng, m, n, rows, cols, dtype, index, unsorted=True)


def laplacian_2d_parts(side, dtype, index):
    """The 5-point Laplacian on a side x side grid as CSR parts (canonical)."""
    one = sp.diags_array([-np.ones(side - 1), 2 * np.ones(side), -np.ones(side - 1)], offsets=[-1, 0, 1])
    a = (sp.kron(sp.identity(side), one) + sp.kron(one, sp.identity(side))).tocsr()
    a.sum_duplicates()
    return a.indptr.astype(index), a.indices.astype(index), a.data.astype(dtype)


def scipy_of(parts, shape):
    indptr, indices, data = (np.asarray(p) for p in parts)
    return sp.csr_array((data, indices.astype(np.int64), indptr.astype(np.int64)), shape=shape)


def canonical(a):
    """SciPy's result with sorted rows (SciPy's products and sums leave rows unsorted)."""
    a = sp.csr_array(a)
    a.sort_indices()
    return a


def assert_csr_equal(parts, ref, dtype, n=1):
    """Our canonical CSR parts against a SciPy reference: same pattern exactly, values within the
    dtype's tolerance for sums of ``n`` terms."""
    indptr, indices, data = (np.asarray(p) for p in parts)
    ref = canonical(ref)
    np.testing.assert_array_equal(indptr, ref.indptr)
    np.testing.assert_array_equal(indices, ref.indices)
    eps = np.finfo(np.dtype(dtype)).eps
    finite = np.abs(ref.data[np.isfinite(ref.data)])
    scale = finite.max() if finite.size else 1.0
    np.testing.assert_allclose(data, ref.data, rtol=8 * eps * np.sqrt(n), atol=8 * eps * np.sqrt(n) * scale)
