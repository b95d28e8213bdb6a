"""CPU stand-ins for the SpMV/SpMM kernels (``rocarray.rocsparse._spmv_kernels``) and ``csr2csc``.

``install(monkeypatch)`` replaces the kernel launches by NumPy implementations of the same
contracts that read and write the host memory behind :func:`hostdev.dev` arrays, and routes
``backend.cupy()`` to the host shim, so ``csrmv``/``csrmm`` run unchanged on the CPU. The split
strategy's stand-in is a block-by-block emulation of ``ra_rocsparse_csrmv_split`` and
``ra_rocsparse_csrmv_fixup`` (chunk bounds, head and tail partials, the rows each block writes, the
fix-up's sums) that asserts every row of y is written exactly once: the bookkeeping of the kernels
is proved against SciPy without a device.
"""

import numpy as np
import scipy.sparse as sp

from hostdev import dev, view

from rocarray.rocsparse import _spmv_kernels as _k

calls = []


def _vec(a, inc):
    v = view(a)
    assert v.ndim == 1
    assert v.size <= 1 or v.strides[0] == inc * v.itemsize, (v.strides, inc)
    return v


def _store(yv, r, acc, alpha, beta, beta_zero):
    yv[r] = alpha * acc + (0 if beta_zero else beta * yv[r])


def _prod(indices, data, x, incx, conj):
    d = view(data)
    return (d.conj() if conj else d) * _vec(x, incx)[view(indices)]


def row_stats(m, indptr, threshold):
    calls.append(("row_stats", m, threshold))
    lengths = np.diff(view(indptr).astype(np.int64))
    long = lengths > threshold
    return int(lengths.max(initial=0)), int(long.sum()), int(lengths[long].sum())


def block_starts(m, indptr, nnz):
    calls.append(("block_starts", m, nnz))
    nblocks = -(-nnz // _k.CHUNK)
    ip = view(indptr).astype(np.int64)
    starts = np.searchsorted(ip, np.arange(nblocks, dtype=np.int64) * _k.CHUNK, side="left")
    return dev(np.append(starts, m).astype(np.int64))


def vector(lanes, m, indptr, indices, data, x, incx, y, incy, alpha, beta, beta_zero, conj):
    calls.append(("vector", lanes, m, bool(beta_zero), bool(conj)))
    assert lanes in _k.VECTOR_LANES
    ip = view(indptr).astype(np.int64)
    prod = _prod(indices, data, x, incx, conj)
    yv = _vec(y, incy)
    for r in range(m):
        _store(yv, r, prod[ip[r]:ip[r + 1]].sum(), alpha, beta, beta_zero)


def split(m, nnz, indptr, indices, data, starts, x, incx, y, incy, alpha, beta, beta_zero, conj):
    """Block-by-block emulation of the split and fix-up kernels."""
    calls.append(("split", m, nnz, bool(beta_zero), bool(conj)))
    C = _k.CHUNK
    ip = view(indptr).astype(np.int64)
    assert ip[m] == nnz
    st = view(starts)
    nblocks = -(-nnz // C)
    assert st.shape == (nblocks + 1,) and st[nblocks] == m
    prod = _prod(indices, data, x, incx, conj)
    yv = _vec(y, incy)
    partials = np.full(2 * nblocks, np.nan, prod.dtype)
    written = np.zeros(m, np.int64)

    def write(r, acc):
        written[r] += 1
        _store(yv, r, acc, alpha, beta, beta_zero)

    for b in range(nblocks):
        lo, hi = b * C, min(b * C + C, nnz)
        r0, r1 = int(st[b]), int(st[b + 1])
        head_end = ip[r0] if r0 > 0 else lo
        has_head = head_end > lo
        partials[2 * b] = prod[lo:min(head_end, hi)].sum() if has_head else 0
        has_tail = r1 > r0 and ip[r1] > hi
        partials[2 * b + 1] = prod[ip[r1 - 1]:hi].sum() if has_tail else 0
        for r in range(r0, r1 - 1 if has_tail else r1):
            assert lo <= ip[r] and ip[r + 1] <= hi, (b, r)
            write(r, prod[ip[r]:ip[r + 1]].sum())
    for b in range(nblocks):
        lo, hi = b * C, min(b * C + C, nnz)
        r0 = int(st[b])
        if r0 == 0 or not lo < ip[r0] <= hi:
            continue
        first = ip[r0 - 1] // C
        acc = partials[2 * first + 1]
        for k in range(first + 1, b + 1):
            acc = acc + partials[2 * k]
        write(r0 - 1, acc)
    assert (written == 1).all(), np.flatnonzero(written != 1)[:10]


def scale(n, y, incy, beta, beta_zero):
    calls.append(("scale", n, bool(beta_zero)))
    yv = _vec(y, incy)
    yv[:n] = 0 if beta_zero else beta * yv[:n]


def scale_matrix(C, beta, beta_zero):
    calls.append(("scale_matrix", bool(beta_zero)))
    c = view(C)
    c[...] = 0 if beta_zero else beta * c


def positions(nnz, like):
    calls.append(("positions", nnz))
    return dev(np.arange(nnz, dtype=np.int32))


def gather(data, perm):
    calls.append(("gather",))
    return dev(view(data)[view(perm)])


def _mm(m, indptr, indices, data, B, sb, C, sc, alpha, beta, beta_zero, conj):
    b, c = view(B), view(C)
    assert b.strides == (sb[0] * b.itemsize, sb[1] * b.itemsize) or b.shape[0] * b.shape[1] <= 1
    assert c.strides == (sc[0] * c.itemsize, sc[1] * c.itemsize) or c.shape[0] * c.shape[1] <= 1
    ip = view(indptr).astype(np.int64)
    d, ix = view(data), view(indices)
    d = d.conj() if conj else d
    for r in range(m):
        acc = (d[ip[r]:ip[r + 1], None] * b[ix[ip[r]:ip[r + 1]]]).sum(axis=0)
        c[r] = alpha * acc + (0 if beta_zero else beta * c[r])


def mm_rows(m, ncols, indptr, indices, data, B, sb, C, sc, alpha, beta, beta_zero, conj):
    calls.append(("mm_rows", m, ncols, bool(conj)))
    _mm(m, indptr, indices, data, B, sb, C, sc, alpha, beta, beta_zero, conj)


def mm_cols(lanes, m, ncols, indptr, indices, data, B, sb, C, sc, alpha, beta, beta_zero, conj):
    calls.append(("mm_cols", lanes, m, ncols, bool(conj)))
    assert lanes in _k.SPMM_LANES
    _mm(m, indptr, indices, data, B, sb, C, sc, alpha, beta, beta_zero, conj)


def warp_size(device_id):
    return 32


def csr2csc(m, n, indptr, indices, data):
    """The formats owner's ``rocsparse.csr2csc`` through SciPy (duplicates kept, rows sorted)."""
    calls.append(("csr2csc", m, n))
    a = sp.csr_matrix((view(data).copy(), view(indices).copy(), view(indptr).copy()), shape=(m, n))
    t = a.T.tocsr()  # the CSR of the transpose; SciPy's conversion keeps duplicates
    t.has_sorted_indices = False
    t.sort_indices()
    index = view(indptr).dtype
    return dev(t.indptr.astype(index)), dev(t.indices.astype(index)), dev(t.data.astype(view(data).dtype))


def install(monkeypatch):
    """Kernels, ``csr2csc`` and ``backend.cupy()`` to the host; returns the recorded calls."""
    import hostdev

    from rocarray._core import backend

    hostdev._route_to_shim(monkeypatch, backend)
    for name in ("row_stats", "block_starts", "vector", "split", "scale", "scale_matrix", "positions", "gather",
                 "mm_rows", "mm_cols", "warp_size", "csr2csc"):
        monkeypatch.setattr(_k, name, globals()[name])
    monkeypatch.setenv("ROCARRAY_TUNE", "0")
    calls.clear()
    return calls
