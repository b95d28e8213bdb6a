"""Random sparse test matrices on the host (tests/sparse, tests/rocsparse): COO triplets with the
structures the sparse tests sweep (uniform, power-law rows, banded, empty rows, duplicates,
unsorted order), and the mode fixture that runs a test on the GPU or on the CPU stand-ins."""

import numpy as np
import pytest

VALUE_DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32",
                "float64", "complex64", "complex128"]
FLOAT_DTYPES = ["float32", "float64", "complex64", "complex128"]
INDEX_DTYPES = ["int32", "int64"]

#: (m, n, density, kind): empty shapes, one row/column, 1x1, empty rows, power-law, banded.
SHAPES = [(0, 5, 0.0, "uniform"), (4, 0, 0.0, "uniform"), (1, 1, 1.0, "uniform"), (1, 40, 0.3, "uniform"),
          (40, 1, 0.3, "uniform"), (30, 20, 0.0, "uniform"), (60, 50, 0.1, "uniform"), (300, 200, 1e-2, "uniform"),
          (400, 400, 0.0, "powerlaw"), (300, 300, 0.0, "banded"), (2000, 3000, 1e-4, "uniform"),
          (40_000, 5_000, 1e-3, "uniform")]
#: ``(m, n, density, kind, dtype)``: every shape in the four float dtypes, one shape in the others.
CASES = [s + (d,) for s in SHAPES for d in FLOAT_DTYPES] + [SHAPES[6] + (d,) for d in VALUE_DTYPES
                                                            if d not in FLOAT_DTYPES]
#: The shapes small enough for dense operands.
DENSE_SHAPES = [s for s in SHAPES if s[0] * s[1] <= 1 << 20]
#: :data:`CASES` with :data:`DENSE_SHAPES`.
DENSE_CASES = [c for c in CASES if c[:4] in DENSE_SHAPES]


def values(rng, size, dtype):
    """Random nonzero values of ``dtype`` (bool: all True)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.ones(size, bool)
    if dtype.kind in "iu":
        return rng.integers(1, 50, size).astype(dtype)
    v = rng.uniform(0.5, 2.0, size) * rng.choice([-1, 1], size)
    if dtype.kind == "c":
        v = v + 1j * rng.uniform(-1, 1, size)
    return v.astype(dtype)


def triplets(rng, m, n, density, kind="uniform", dtype="float64", duplicates=False, unsorted=False):
    """``(row, col, data)`` (int64 indices) of a random m x n matrix, row-major order unless ``unsorted``."""
    if m == 0 or n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), values(rng, 0, dtype)
    if kind == "powerlaw":
        lengths = np.minimum(n, (rng.pareto(1.2, m) * 2).astype(np.int64))
        lengths[rng.integers(0, m, max(1, m // 20))] = 0          # empty rows
        row = np.repeat(np.arange(m), lengths)
        col = np.concatenate([rng.choice(n, k, replace=False) for k in lengths]) if lengths.sum() else \
            np.zeros(0, np.int64)
    elif kind == "banded":
        r, c = np.meshgrid(np.arange(m), np.arange(-2, 3), indexing="ij")
        c = r + c
        keep = (c >= 0) & (c < n)
        row, col = r[keep], c[keep]
    else:
        flat = np.unique(rng.integers(0, m * n, int(round(density * m * n))))
        row, col = flat // n, flat % n
    order = np.lexsort((col, row))
    row, col = row[order].astype(np.int64), col[order].astype(np.int64)
    if duplicates and row.size:
        pick = rng.integers(0, row.size, max(1, row.size // 3))
        row, col = np.concatenate([row, row[pick]]), np.concatenate([col, col[pick]])
        order = np.lexsort((col, row))
        row, col = row[order], col[order]
    if unsorted and row.size:
        perm = rng.permutation(row.size)
        row, col = row[perm], col[perm]
    return row, col, values(rng, row.size, dtype)


def csr_parts(row, col, data, m, idx="int32"):
    """CSR parts of triplets in row-major-by-row order (column order within a row kept)."""
    order = np.argsort(row, kind="stable")
    indptr = np.zeros(m + 1, np.int64)
    np.cumsum(np.bincount(row, minlength=m), out=indptr[1:])
    return indptr.astype(idx), col[order].astype(idx), data[order]


#: The params of each test file's ``mode`` fixture: the CPU stand-ins, and the GPU.
MODES = ["host", pytest.param("gpu", marks=pytest.mark.gpu)]


def setup_mode(name, monkeypatch):
    """``(to_device, to_host)``: the GPU, or the CPU stand-ins of ``sparse_host`` on NumPy."""
    if name == "host":
        import sparse_host

        sparse_host.install(monkeypatch)
        return np.asarray, np.asarray
    import cupy

    return cupy.asarray, cupy.asnumpy
