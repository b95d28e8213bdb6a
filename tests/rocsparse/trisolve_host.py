"""CPU stand-ins for the triangular solve's and the incomplete factorizations' device steps.

``install(monkeypatch, seed)`` replaces the functions of :mod:`rocarray.rocsparse._csrsv_kernels`
and :mod:`rocarray.rocsparse._ilu_kernels`, ``prim.radix_argsort`` and the formats owner's
``csr2csc`` (``rocarray.rocsparse._convert``) by
NumPy implementations of the same contracts that read and write the host memory behind
:func:`hostdev.dev` arrays. The kernel stand-ins follow the kernels' loops (one row per thread,
the same merges), and the frontier stand-in visits its rows in a random order, as the device's
atomics may. The drivers then run unchanged on the CPU: their offsets, level pointers, counters,
transposes and gathers are real, so a wrong one gives wrong levels or a wrong solution, caught
against independent references.
"""

import sys
import types

import numpy as np

from hostdev import dev, view

calls = []

_NO_ROW = np.uint64(2 ** 64 - 1)


def _poison(n, dtype):
    dtype = np.dtype(dtype)
    fill = np.nan if dtype.kind in "fc" else (77 if dtype.kind == "u" else -77)
    return dev(np.full(int(n), fill, dtype))


# --------------------------------------------------------------------------------------------
# plain device steps
# --------------------------------------------------------------------------------------------

def warp_size(like):
    return 32


def empty(n, dtype, like):
    return _poison(n, dtype)


def zeros(n, dtype, like):
    return dev(np.zeros(int(n), dtype))


def pivot_word(like):
    return dev(np.full(1, _NO_ROW, np.uint64))


def positions(nnz, like):
    return dev(np.arange(int(nnz), dtype=np.float64))


def as_index(x, dtype):
    return x if x.dtype == dtype else dev(view(x).astype(dtype))


def gather(data, perm, conj):
    out = view(data)[view(perm)]
    return dev(out.conj() if conj else out)


def copy(x):
    return dev(view(x).copy())


def rhs_copy(b, dtype):
    x = view(b).astype(dtype)
    return dev(x.T).T  # Fortran order, as the device's


def read_word(words, index):
    calls.append(("read",))
    return int(view(words)[index])


# --------------------------------------------------------------------------------------------
# kernels (one row per "thread", as the kernels)
# --------------------------------------------------------------------------------------------

def _tri(i, j, lower):
    return j < i if lower else j > i


def rows(m, indptr, indices, lower, deps, diag, level, order, counter, missing):
    calls.append(("rows", m))
    ptr, ind = view(indptr), view(indices)
    for i in range(m):
        count, d = 0, -1
        for k in range(ptr[i], ptr[i + 1]):
            if ind[k] == i:
                d = k
            elif _tri(i, ind[k], lower):
                count += 1
        view(deps)[i], view(diag)[i] = count, d
        if d < 0:
            view(missing)[0] = min(view(missing)[0], np.uint64(i))
        if count == 0:
            view(order)[view(counter)[0]] = i
            view(counter)[0] += 1
            view(level)[i] = 0


_order_rng = {0: np.random.default_rng(0)}


def frontier(count, order, start, end, dptr, dind, lower, deps, level, next_level, counters):
    calls.append(("frontier", count, start, end, next_level))
    o, ptr, ind = view(order), view(dptr), view(dind)
    for slot in _order_rng[0].permutation(count):
        j = o[start + slot]
        for k in range(ptr[j], ptr[j + 1]):
            i = ind[k]
            if not _tri(i, j, lower):
                continue
            view(deps)[i] -= 1
            if view(deps)[i] == 0:
                o[end + view(counters)[next_level]] = i
                view(counters)[next_level] += 1
                view(level)[i] = next_level


def solve_level(count, order, start, indptr, indices, data, diag, x, ldx, col0, ncols, alpha, lower, unit, group):
    calls.append(("solve_level", count, start, col0, ncols, group))
    o, ptr, ind, val, dg = view(order), view(indptr), view(indices), view(data), view(diag)
    xs = view(x).reshape(-1, order="F")
    assert np.shares_memory(xs, view(x)), "the solution buffer must be Fortran-ordered"
    assert xs.size >= (col0 + ncols - 1) * ldx + 1
    for c in range(col0, col0 + ncols):
        col = xs[c * ldx:]
        for slot in range(count):
            i = o[start + slot]
            s = 0
            for k in range(ptr[i], ptr[i + 1]):
                if _tri(i, ind[k], lower):
                    s = s + val[k] * col[ind[k]]
            v = alpha * col[i] - s
            if not unit:
                with np.errstate(divide="ignore", invalid="ignore"):
                    v = v / (val[dg[i]] if dg[i] >= 0 else val.dtype.type(0))
            col[i] = v


def solve_levels(order, level_ptr, diag, index_dtype, dtype, ldx, col0, ncols, lower, unit, group):
    calls.append(("solve_levels", len(level_ptr) - 1, col0, ncols))
    return [dict(count=int(level_ptr[k + 1] - level_ptr[k]), order=order, start=int(level_ptr[k]), diag=diag,
                 ldx=ldx, col0=col0, ncols=ncols, lower=lower, unit=unit, group=group, dtype=np.dtype(dtype))
            for k in range(len(level_ptr) - 1)]


def run_solve(plan, indptr, indices, data, x, alpha):
    for level in plan:
        assert data.dtype == level["dtype"]
        kw = {k: v for k, v in level.items() if k != "dtype"}
        solve_level(indptr=indptr, indices=indices, data=data, x=x, alpha=alpha, **kw)


def factor_levels(step, order, level_ptr, diag):
    return [(step, int(level_ptr[k + 1] - level_ptr[k]), order, int(level_ptr[k]), diag)
            for k in range(len(level_ptr) - 1)]


def run_factor(plan, indptr, indices, data, pivot):
    for step, count, order, start, diag in plan:
        step(count, order, start, indptr, indices, data, diag, pivot)


def ilu0_levels(order, level_ptr, diag, dtype):
    calls.append(("ilu0_levels", len(level_ptr) - 1))
    return factor_levels(ilu0_level, order, level_ptr, diag)


def ic0_levels(order, level_ptr, diag, dtype):
    calls.append(("ic0_levels", len(level_ptr) - 1))
    return factor_levels(ic0_level, order, level_ptr, diag)


def zero_pivot(m, diag, data, pivot):
    calls.append(("zero_pivot", m))
    for i in range(m):
        d = view(diag)[i]
        if d < 0 or view(data)[d] == 0:
            view(pivot)[0] = min(view(pivot)[0], np.uint64(i))


def ilu0_level(count, order, start, indptr, indices, data, diag, pivot):
    calls.append(("ilu0_level", count, start))
    o, ptr, ind, a, dg = view(order), view(indptr), view(indices), view(data), view(diag)
    with np.errstate(divide="ignore", invalid="ignore"):
        for slot in range(count):
            i = o[start + slot]
            end = ptr[i + 1]
            for p in range(ptr[i], end):
                k = ind[p]
                if k >= i:
                    break
                dk = dg[k]
                if dk < 0:
                    a[p] = a[p] / a.dtype.type(0)
                    continue
                lik = a[p] / a[dk]
                a[p] = lik
                q, r, rend = p + 1, dk + 1, ptr[k + 1]
                while q < end and r < rend:
                    if ind[q] == ind[r]:
                        a[q] -= lik * a[r]
                        q, r = q + 1, r + 1
                    elif ind[q] < ind[r]:
                        q += 1
                    else:
                        r += 1
            d = dg[i]
            if d < 0 or a[d] == 0:
                view(pivot)[0] = min(view(pivot)[0], np.uint64(i))


def ic0_level(count, order, start, indptr, indices, data, diag, pivot):
    calls.append(("ic0_level", count, start))
    o, ptr, ind, a, dg = view(order), view(indptr), view(indices), view(data), view(diag)
    with np.errstate(divide="ignore", invalid="ignore"):
        for slot in range(count):
            i = o[start + slot]
            begin, end = ptr[i], ptr[i + 1]
            p = begin
            while p < end and ind[p] < i:
                k = ind[p]
                s = a[p]
                q, r, rend = begin, ptr[k], ptr[k + 1]
                while q < p and r < rend and ind[r] < k:
                    if ind[q] == ind[r]:
                        s = s - a[q] * np.conj(a[r])
                        q, r = q + 1, r + 1
                    elif ind[q] < ind[r]:
                        q += 1
                    else:
                        r += 1
                a[p] = s / (a[dg[k]] if dg[k] >= 0 else a.dtype.type(0))
                p += 1
            d = dg[i]
            if d < 0:
                view(pivot)[0] = min(view(pivot)[0], np.uint64(i))
                continue
            t = a[d].real - sum(abs(a[q]) ** 2 for q in range(begin, p))
            if not t > 0:
                view(pivot)[0] = min(view(pivot)[0], np.uint64(i))
            a[d] = np.sqrt(t)


# --------------------------------------------------------------------------------------------
# the other owners' functions the drivers call
# --------------------------------------------------------------------------------------------

def csr2csc(m, n, indptr, indices, data):
    """The formats owner's ``csr2csc`` contract: the CSR of the transpose, row indices sorted
    within each column, from SciPy."""
    import scipy.sparse as sp

    calls.append(("csr2csc", m, n))
    ptr, ind, val = view(indptr), view(indices), view(data)
    a = sp.csr_matrix((val.copy(), ind.copy(), ptr.copy()), shape=(m, n))
    t = a.T.tocsr()
    t.has_sorted_indices = False
    t.sort_indices()
    return dev(t.indptr.astype(ptr.dtype)), dev(t.indices.astype(ind.dtype)), dev(t.data.astype(val.dtype))


def radix_argsort(keys, **kwargs):
    assert not kwargs
    return dev(np.argsort(view(keys), kind="stable").astype(np.int64))


def install(monkeypatch, seed=0):
    """Stand-ins for every device step of the triangular solve and the factorizations; returns
    the call log. ``seed`` orders the frontier stand-in's visits."""
    from rocarray import prim, rocsparse
    from rocarray._core import plans
    from rocarray.rocsparse import _csrsv_kernels, _ilu_kernels

    for name in ("warp_size", "empty", "zeros", "pivot_word", "positions", "as_index", "gather", "copy",
                 "rhs_copy", "read_word", "rows", "frontier", "solve_levels", "run_solve", "run_factor",
                 "zero_pivot"):
        monkeypatch.setattr(_csrsv_kernels, name, globals()[name])
    monkeypatch.setattr(_ilu_kernels, "ilu0_levels", ilu0_levels)
    monkeypatch.setattr(_ilu_kernels, "ic0_levels", ic0_levels)
    monkeypatch.setattr(plans, "cache", plans.PlanCache())
    monkeypatch.setattr(prim, "radix_argsort", radix_argsort)
    try:
        from rocarray.rocsparse import _convert
    except ImportError:  # the formats owner's module is not on this branch: a stand-in module
        _convert = types.ModuleType("rocarray.rocsparse._convert")
        monkeypatch.setitem(sys.modules, _convert.__name__, _convert)
        monkeypatch.setattr(rocsparse, "_convert", _convert, raising=False)
    monkeypatch.setattr(_convert, "csr2csc", csr2csc, raising=False)
    monkeypatch.setitem(_order_rng, 0, np.random.default_rng(seed))
    calls.clear()
    return calls


def install_checks(monkeypatch, seed=0):
    """:func:`install`, and ``backend.cupy()`` a namespace moving host arrays to :func:`hostdev.dev`
    arrays and back, so the self-checks of ``rocarray._checks.rocsparse_trisolve`` run on the CPU."""
    from rocarray._core import backend

    log = install(monkeypatch, seed)
    import cupy

    # ndarray: the library's argument checks ask what a device array is
    shim = types.SimpleNamespace(asarray=lambda a: dev(np.asarray(a)), asnumpy=lambda x, **kw: view(x).copy(),
                                 ndarray=cupy.ndarray)
    monkeypatch.setattr(backend, "_cupy", [shim])
    monkeypatch.setattr(backend, "cupy_module", lambda: shim)
    return log
