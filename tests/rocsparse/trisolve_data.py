"""Test matrices and references for the triangular solve and the incomplete factorizations.

Matrices are SciPy CSR (canonical) on the host; values are random with a dominant diagonal, so
solves and factorizations are well conditioned and a tolerance of a few ulps times the row
length holds. References: level sets by their definition, ILU(0)/IC(0) by dense NumPy loops
restricted to the pattern (Saad's IKJ algorithm; the row-wise Cholesky).
"""

import numpy as np
import scipy.sparse as sp

ALL = ["float32", "float64", "complex64", "complex128"]
INDEX = ["int32", "int64"]


def values(rng, n, dtype):
    dtype = np.dtype(dtype)
    x = rng.standard_normal(n)
    if dtype.kind == "c":
        x = x + 1j * rng.standard_normal(n)
    return x.astype(dtype)


def with_index(a, index_dtype):
    """``a`` (CSR) with int32 or int64 index arrays."""
    a = a.tocsr(copy=True)
    a.indptr = a.indptr.astype(index_dtype)
    a.indices = a.indices.astype(index_dtype)
    return a


def _finish(pattern, rng, dtype, diag=True, index_dtype="int32"):
    """Random values on ``pattern`` (a boolean/0-1 sparse matrix), diagonal made dominant."""
    pattern = sp.csr_matrix(pattern, dtype=np.float64)
    pattern.sum_duplicates()
    m = pattern.shape[0]
    pattern.data[:] = 1.0
    a = pattern.astype(np.dtype(dtype))
    # off-diagonal rows sum to about 1/2 in magnitude: unit-diagonal solves stay well conditioned too
    a.data[:] = values(rng, a.nnz, dtype) * (0.5 / (1.0 + a.nnz / max(m, 1)))
    a = a.tolil()
    if diag:
        rows = np.abs(a.toarray()).sum(axis=1)
        a.setdiag((rows + 1.0).astype(np.dtype(dtype)))
    a = a.tocsr()
    a.sort_indices()
    return with_index(a, index_dtype)


def random_triangular(rng, m, density, dtype, *, lower=True, diag=True, index_dtype="int32", other=0.0):
    """A random m x m triangular matrix (``other``: density of stray entries in the other triangle,
    which the solve must ignore)."""
    p = sp.random(m, m, density=density, random_state=rng, format="csr")
    p = sp.tril(p, -1) if lower else sp.triu(p, 1)
    if other:
        q = sp.random(m, m, density=other, random_state=rng, format="csr")
        p = p + (sp.triu(q, 1) if lower else sp.tril(q, -1))
    return _finish(p, rng, dtype, diag, index_dtype)


def banded(rng, m, lo, hi, dtype, index_dtype="int32"):
    """Band matrix with ``lo`` sub- and ``hi`` superdiagonals (all stored)."""
    offsets = list(range(-lo, hi + 1))
    p = sp.diags([np.ones(m - abs(k)) for k in offsets], offsets, shape=(m, m), format="csr")
    return _finish(p, rng, dtype, True, index_dtype)


def chain(rng, m, dtype, lower=True, index_dtype="int32"):
    """Bidiagonal: row i depends on row i-1 (lower) or i+1 (upper): m levels."""
    return banded(rng, m, 1, 0, dtype, index_dtype) if lower else banded(rng, m, 0, 1, dtype, index_dtype)


def laplacian_2d(n, dtype="float64", index_dtype="int32"):
    """The 5-point Laplacian on an n x n grid (n^2 rows), canonical CSR."""
    one = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1], shape=(n, n))
    a = (sp.kron(sp.identity(n), one) + sp.kron(one, sp.identity(n))).tocsr().astype(dtype)
    a.sort_indices()
    return with_index(a, index_dtype)


def general(rng, m, density, dtype, index_dtype="int32"):
    """A random square matrix with a full, dominant diagonal (for ILU(0))."""
    p = sp.random(m, m, density=density, random_state=rng, format="csr")
    return _finish(p, rng, dtype, True, index_dtype)


def hpd(rng, m, density, dtype, index_dtype="int32"):
    """A random Hermitian positive definite matrix (symmetric pattern, dominant real diagonal)."""
    p = sp.random(m, m, density=density, random_state=rng, format="csr")
    low = _finish(sp.tril(p, -1), rng, dtype, False, index_dtype)
    a = low + low.conj().T
    rows = np.abs(a.toarray()).sum(axis=1)
    a = (a + sp.diags(rows + 1.0)).tocsr().astype(np.dtype(dtype))
    a.sort_indices()
    return with_index(a, index_dtype)


# --------------------------------------------------------------------------------------------
# references
# --------------------------------------------------------------------------------------------

def levels_reference(a, lower):
    """Level of each row of the ``lower`` (or upper) triangle of CSR ``a``, by the definition."""
    m = a.shape[0]
    level = np.zeros(m, np.int64)
    rows = range(m) if lower else range(m - 1, -1, -1)
    for i in rows:
        cols = a.indices[a.indptr[i]:a.indptr[i + 1]]
        deps = cols[cols < i] if lower else cols[cols > i]
        level[i] = 1 + level[deps].max() if deps.size else 0
    return level


def triangle(a, lower, unit=False):
    """The ``lower`` (or upper) triangle of ``a`` with its diagonal (ones when ``unit``), CSR."""
    t = sp.tril(a, -1 if unit else 0) if lower else sp.triu(a, 1 if unit else 0)
    if unit:
        t = t + sp.identity(a.shape[0], dtype=a.dtype)
    return t.tocsr()


def ilu0_reference(a):
    """Dense ILU(0) of CSR ``a``: Saad's IKJ elimination on the pattern (complex128/float64),
    returned as a dense matrix holding L (strict lower) and U."""
    w = a.toarray().astype(np.complex128 if np.iscomplexobj(a.data) else np.float64)
    stored = np.zeros(w.shape, bool)
    coo = a.tocoo()
    stored[coo.row, coo.col] = True
    m = w.shape[0]
    for i in range(1, m):
        for k in range(i):
            if not stored[i, k]:
                continue
            w[i, k] /= w[k, k]
            both = np.flatnonzero(stored[i, k + 1:] & stored[k, k + 1:]) + k + 1
            w[i, both] -= w[i, k] * w[k, both]
    return w, stored


def ic0_reference(a):
    """Dense IC(0) of the lower triangle of CSR ``a`` (``L L^H`` on the lower pattern)."""
    m = a.shape[0]
    stored = np.zeros((m, m), bool)
    coo = a.tocoo()
    stored[coo.row, coo.col] = True
    stored = np.tril(stored)
    w = np.tril(a.toarray()).astype(np.complex128 if np.iscomplexobj(a.data) else np.float64)
    low = np.zeros_like(w)
    for i in range(m):
        for k in range(i):
            if stored[i, k]:
                low[i, k] = (w[i, k] - low[i, :k] @ low[k, :k].conj()) / low[k, k]
        low[i, i] = np.sqrt(w[i, i].real - np.sum(np.abs(low[i, :i]) ** 2))
    return low, stored
