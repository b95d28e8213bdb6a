"""CPU stand-ins for the sparse formats (tests/sparse, tests/rocsparse): NumPy arrays play device arrays.

``install(monkeypatch)`` makes ``backend.cupy()`` return NumPy (plus ``asnumpy``), replaces the
kernels of :mod:`rocarray.rocsparse._convert_kernels` and the prim functions the conversions use
by NumPy implementations of the same contracts, and gives ``rocarray.rocsparse`` SciPy stand-ins
of the other owners' ``csrmv_analysis``/``csrmv``/``csrmm``/``csrgemm`` that record their calls.
The library and façade code then runs unchanged on the CPU, so its orchestration (which parts go
where, flags, dtypes, trans flags) is checked against SciPy without a device.
"""

import types

import numpy as np
import scipy.sparse as sp

from rocarray import rocsparse
from rocarray._core import backend
from rocarray.rocsparse import _convert, _convert_kernels
from rocarray.sparse import _coo

calls = []


class _NumpyDevice(types.SimpleNamespace):
    """NumPy as the ``cupy`` module."""

    def __getattr__(self, name):
        return getattr(np, name)


XP = _NumpyDevice(asnumpy=np.asarray)


# ---- convert.hip stand-ins -------------------------------------------------------------------

def csr2coo(indptr, m, nnz):
    assert indptr.size == m + 1 and indptr[-1] == nnz
    return np.repeat(np.arange(m), np.diff(indptr)).astype(indptr.dtype)


def csr2coo_pairs(indptr, m, data):
    assert indptr.dtype == np.int32 and data.dtype.itemsize == 4
    row = csr2coo(indptr, m, data.size).astype(np.uint64)
    return row | (data.view(np.uint32).astype(np.uint64) << np.uint64(32))


def unpack_pairs(pairs, low_dtype, high_dtype):
    assert pairs.dtype == np.uint64
    return ((pairs & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(low_dtype),
            (pairs >> np.uint64(32)).astype(np.uint32).view(high_dtype))


def _radix_sort_pairs(keys, values, begin_bit=0, end_bit=None):
    """prim's contract: a stable sort on bits [begin_bit, end_bit) of the keys' order-preserving
    unsigned image (integer keys here)."""
    bits = keys.dtype.itemsize * 8
    if keys.dtype.kind != "i":
        image = keys.astype(np.uint64)
    elif bits == 64:
        image = keys.view(np.uint64) ^ np.uint64(1 << 63)
    else:
        image = (keys.astype(np.int64) + (1 << (bits - 1))).astype(np.uint64)
    end_bit = bits if end_bit is None else end_bit
    image = (image >> np.uint64(begin_bit)) & np.uint64((1 << (end_bit - begin_bit)) - 1)
    order = np.argsort(image, kind="stable")
    return keys[order], values[order]


def flag_heads(row, col):
    head = np.ones(row.size, bool)
    head[1:] = (row[1:] != row[:-1]) | (col[1:] != col[:-1])
    return head


def sum_runs(data, starts):
    assert starts.dtype == np.int64
    return np.add.reduceat(data, starts).astype(data.dtype)


def csr2dense(m, indptr, indices, data, out):
    assert out.shape[0] == m
    rows = np.repeat(np.arange(m), np.diff(indptr))
    np.add.at(out, (rows, indices), data)


def _order_problems(row, col):
    problems = set()
    same = row[1:] == row[:-1]
    if np.any(same & (col[1:] < col[:-1])) or np.any(row[1:] < row[:-1]):
        problems.add("unsorted")
    if np.any(same & (col[1:] == col[:-1])):
        problems.add("duplicates")
    return problems


def check_csr(m, n, indptr, indices):
    problems = set()
    if np.any(np.diff(indptr) < 0):
        return frozenset({"indptr"})
    if indices.size and indices.min() < 0:
        problems.add("negative")
    if indices.size and indices.max() >= n:
        problems.add("too_large")
    row = np.repeat(np.arange(m), np.diff(indptr))
    return frozenset(problems | _order_problems(row, indices))


def check_coo(m, n, row, col):
    problems = set()
    for idx, size, neg, big in ((row, m, "row_negative", "row_too_large"), (col, n, "negative", "too_large")):
        if idx.size and idx.min() < 0:
            problems.add(neg)
        if idx.size and idx.max() >= size:
            problems.add(big)
    return frozenset(problems | _order_problems(row, col))


# ---- prim stand-ins ----------------------------------------------------------------------------

PRIM = types.SimpleNamespace(
    lower_bound=lambda a, v: np.searchsorted(a, v, "left").astype(np.int64),
    radix_argsort=lambda k: np.argsort(k, kind="stable"),
    radix_sort_pairs=_radix_sort_pairs,
    nonzero_indices=lambda x: np.flatnonzero(x),
    select_if_nonzero=lambda x: x.ravel()[np.flatnonzero(x)],
)


# ---- other owners' products ----------------------------------------------------------------------

class Analysis:
    def __init__(self, m, n, nnz):
        self.m, self.n, self.nnz = m, n, nnz


def _op(m, n, indptr, indices, data, trans):
    a = sp.csr_array((data, indices, indptr), shape=(m, n))
    return {"N": a, "T": a.T, "C": a.conj().T}[trans]


def csrmv_analysis(m, n, indptr, nnz):
    calls.append(("csrmv_analysis", m, n, nnz))
    return Analysis(m, n, nnz)


def csrmv(alpha, m, n, indptr, indices, data, x, beta=0, y=None, *, trans="N", analysis=None):
    calls.append(("csrmv", trans, analysis, data.dtype, x.dtype))
    assert x.dtype == data.dtype and x.ndim == 1
    assert analysis is None or (analysis.m, analysis.n) == (m, n)
    return (alpha * (_op(m, n, indptr, indices, data, trans) @ x)).astype(data.dtype)


def csrmm(alpha, m, n, indptr, indices, data, B, beta=0, C=None, *, trans="N", analysis=None):
    calls.append(("csrmm", trans, analysis, data.dtype, B.dtype))
    assert B.dtype == data.dtype and B.ndim == 2
    return np.ascontiguousarray(alpha * (_op(m, n, indptr, indices, data, trans) @ B)).astype(data.dtype)


def csrgemm(m, k, n, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data):
    calls.append(("csrgemm", a_data.dtype, b_data.dtype))
    assert a_data.dtype == b_data.dtype and a_indices.dtype == b_indices.dtype
    c = sp.csr_array((a_data, a_indices, a_indptr), shape=(m, k)) @ sp.csr_array((b_data, b_indices, b_indptr),
                                                                               shape=(k, n))
    c.sum_duplicates()
    return c.indptr, c.indices, c.data.astype(a_data.dtype)


def install(monkeypatch):
    """Run the sparse formats on NumPy (see the module docstring); ``calls`` records products."""
    calls.clear()
    monkeypatch.setattr(backend, "cupy_module", lambda: XP)
    monkeypatch.setattr(backend, "_cupy", [])
    monkeypatch.setattr(backend, "device_info", lambda device_id=None: None)
    for name in ("csr2coo", "csr2coo_pairs", "unpack_pairs", "flag_heads", "sum_runs", "csr2dense", "check_csr", "check_coo"):
        monkeypatch.setattr(_convert_kernels, name, globals()[name])
    monkeypatch.setattr(_convert, "prim", PRIM)
    monkeypatch.setattr(_coo, "prim", PRIM)
    for fn in (csrmv_analysis, csrmv, csrmm, csrgemm):
        monkeypatch.setattr(rocsparse, fn.__name__, fn, raising=False)
