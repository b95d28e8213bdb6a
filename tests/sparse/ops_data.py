"""Random SciPy sparse inputs of the sparse-operation tests: canonical or messy (duplicates,
unsorted rows, explicit zeros), empty rows, chosen index widths, every value dtype."""

import numpy as np
import scipy.sparse as sp

VALUE_DTYPES = ["float32", "float64", "complex64", "complex128"]
INDEX_DTYPES = ["int32", "int64"]


def values(rng, k, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(k) + 1j * rng.standard_normal(k)).astype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(k).astype(dtype)
    if dtype.kind == "b":
        return rng.random(k) < 0.7
    # small values: sums of a few never wrap, so every accumulation order agrees
    return rng.integers(0 if dtype.kind == "u" else -9, 10, size=k).astype(dtype)


def csr(rng, m, n, density=0.2, dtype="float64", index="int32", messy=False, empty_rows=True):
    """A SciPy ``csr_array``; ``messy`` adds duplicates, shuffles rows and stores some zeros."""
    a = sp.random_array((m, n), density=density, format="csr", rng=rng)
    a.data = values(rng, a.nnz, dtype)
    if empty_rows and m > 2:
        keep = np.repeat(np.arange(m) % 3 != 1, np.diff(a.indptr))
        row = np.repeat(np.arange(m), np.diff(a.indptr))[keep]
        a = sp.csr_array((a.data[keep], (row, a.indices[keep])), shape=(m, n))
    if messy and a.nnz:
        c = a.tocoo()
        dup = rng.integers(0, c.nnz, size=max(1, c.nnz // 3))
        row = np.concatenate([c.row, c.row[dup]])
        col = np.concatenate([c.col, c.col[dup]])
        data = np.concatenate([c.data, values(rng, dup.size, dtype)])
        data[rng.integers(0, data.size, size=max(1, data.size // 10))] = 0
        perm = rng.permutation(row.size)
        order = np.argsort(row[perm], kind="stable")
        row, col, data = row[perm][order], col[perm][order], data[perm][order]
        indptr = np.concatenate([[0], np.cumsum(np.bincount(row, minlength=m))])
        a = sp.csr_array((data, col, indptr), shape=(m, n))
        a.has_canonical_format = False
    idx = np.dtype(index)
    a.indices, a.indptr = a.indices.astype(idx), a.indptr.astype(idx)
    return a


def dense(x):
    """Host dense array of a SciPy, stand-in or device result (matrices as plain arrays)."""
    if sp.issparse(x) or hasattr(x, "toarray"):
        x = x.toarray()
    if hasattr(x, "get"):
        x = x.get()
    return np.asarray(x)
