"""CPU stand-ins for the façade's product routing tests: CuPy arrays over host memory, a NumPy
``gemm``/``gemm_strided_batched`` that checks and records its arguments.

``install(monkeypatch)`` makes ``backend.cupy()`` return a small namespace whose array
functions run NumPy on host views, and replaces ``rocblas.gemm`` and
``rocblas.gemm_strided_batched`` by column-major reference implementations reading the
same host memory. The façade code runs unchanged (its views, strides, trans flags and leading
dimensions are real), so a wrong layout mapping gives a wrong product, caught against NumPy
without a GPU. Only metadata operations of ``cupy.ndarray`` are used (no kernel is launched).
"""

import ctypes
import types

import numpy as np

import cupy

_keep = []
calls = []


def dev(a, dtype=None):
    """A ``cupy.ndarray`` over a copy of host data (aligned to 256 bytes)."""
    a = np.asarray(a, dtype=dtype)
    raw = np.zeros(a.nbytes + 512, np.uint8)
    off = (-raw.ctypes.data) % 256
    buf = raw[off:off + a.nbytes].view(a.dtype).reshape(a.shape)
    buf[...] = a
    _keep.append(raw)
    mem = cupy.cuda.UnownedMemory(buf.ctypes.data, max(a.nbytes, 1), raw, device_id=0)
    return cupy.ndarray(a.shape, a.dtype, memptr=cupy.cuda.MemoryPointer(mem, 0), strides=buf.strides)


def view(x):
    """The host memory behind a device-shaped array, as a NumPy view with the same strides."""
    if isinstance(x, np.ndarray):
        return x
    mem = x.data.mem
    base = (ctypes.c_char * max(mem.size, 1)).from_address(mem.ptr)
    return np.ndarray(x.shape, x.dtype, buffer=base, offset=x.data.ptr - mem.ptr, strides=x.strides)


def host(x):
    return view(x).copy()


def _np(fn):
    def call(*args, **kwargs):
        args = [view(a) if isinstance(a, cupy.ndarray) else a for a in args]
        out = kwargs.pop("out", None)
        r = fn(*args, **kwargs)
        if out is not None:
            view(out)[...] = r
            return out
        return dev(r)
    return call


def _poisoned(shape, dtype=np.float64):
    dtype = np.dtype(dtype)
    fill = np.nan if dtype.kind in "fc" else 77
    return dev(np.full(shape, fill, dtype))


shim = types.SimpleNamespace(
    ndarray=cupy.ndarray,
    empty=_poisoned,
    empty_like=lambda a: _poisoned(a.shape, a.dtype),
    zeros=lambda shape, dtype=np.float64: dev(np.zeros(shape, dtype)),
    eye=lambda n, dtype=np.float64: dev(np.eye(n, dtype=dtype)),
    ascontiguousarray=lambda a: dev(np.ascontiguousarray(view(a))),
    broadcast_to=cupy.broadcast_to,
    moveaxis=cupy.moveaxis,
    lib=cupy.lib,
    may_share_memory=lambda a, b: bool(np.may_share_memory(view(a), view(b))),
    multiply=_np(np.multiply),
    sum=_np(np.sum),
    einsum=_np(np.einsum),
    matmul=_np(np.matmul),
    dot=_np(np.dot),
    abs=_np(np.abs),
    sqrt=_np(np.sqrt),
    square=_np(np.square),
    linalg=types.SimpleNamespace(inv=_np(np.linalg.inv),
                                 svd=_np(lambda x, compute_uv=False: np.linalg.svd(x, compute_uv=compute_uv))),
)


def _stored(buf, rows, cols, ld, offset=0):
    """The column-major ``rows x cols`` matrix at ``offset`` of a 1-D host buffer."""
    v = view(buf)
    assert v.ndim == 1 and (v.size <= 1 or v.strides[0] == v.itemsize), "buffer must be flat"
    need = offset + (cols - 1) * ld + rows
    assert need <= v.size, f"matrix needs {need} elements, buffer has {v.size}"
    return np.lib.stride_tricks.as_strided(v[offset:], (rows, cols), (v.itemsize, ld * v.itemsize))


def _one(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, oa=0, ob=0, oc=0):
    assert transA in "NT" and transB in "NT", (transA, transB)
    ar, ac = (m, k) if transA == "N" else (k, m)
    br, bc = (k, n) if transB == "N" else (n, k)
    assert lda >= max(1, ar) and ldb >= max(1, br) and ldc >= max(1, m), (lda, ldb, ldc)
    a = _stored(A, ar, ac, lda, oa)
    b = _stored(B, br, bc, ldb, ob)
    c = _stored(C, m, n, ldc, oc)
    opa = a if transA == "N" else a.T
    opb = b if transB == "N" else b.T
    assert beta == 0
    c[...] = alpha * (opa.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
                      @ opb.astype(np.complex128 if a.dtype.kind == "c" else np.float64))


def gemm(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc):
    calls.append(("gemm", transA, transB, m, n, k, lda, ldb, ldc))
    assert A.dtype == B.dtype == C.dtype
    _one(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)


def gemm_strided_batched(transA, transB, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batch):
    calls.append(("batched", transA, transB, m, n, k, lda, ldb, ldc, sa, sb, sc, batch))
    assert min(sa, sb, sc) >= 0 and (batch == 1 or sc >= ldc * n)
    for i in range(batch):
        _one(transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, i * sa, i * sb, i * sc)


def _route_to_shim(monkeypatch, backend):
    """``cupy`` is the shim for this test only (the accessor's cache holds it; the test's
    monkeypatch restores the cache afterwards)."""
    from rocarray._core import plans

    monkeypatch.setattr(backend, "_cupy", [shim])
    monkeypatch.setattr(plans, "cache", plans.PlanCache())  # no plan prepared against device memory stands in


def public_calls_only(monkeypatch):
    """The façade's products through the public ``gemm``/``gemm_strided_batched`` (with their
    checks) instead of the unchecked launches it takes by default (``gemm_route._unchecked_launch``)."""
    from rocarray._numpy import gemm_route

    monkeypatch.setattr(gemm_route, "_unchecked_launch", lambda single: None)


def install(monkeypatch):
    """Route the façade to the shim and the reference gemms; returns the list of recorded calls."""
    from rocarray import rocblas
    from rocarray._core import backend
    _route_to_shim(monkeypatch, backend)
    public_calls_only(monkeypatch)
    monkeypatch.setattr(rocblas, "gemm", gemm)
    monkeypatch.setattr(rocblas, "gemm_strided_batched", gemm_strided_batched)
    calls.clear()
    return calls


def _at(ptr, dtype, rows, cols, ld, offset):
    """Host view of the column-major ``rows x cols`` matrix at device pointer ``ptr`` + ``offset`` elements."""
    dtype = np.dtype(dtype)
    nbytes = ((cols - 1) * ld + rows + offset) * dtype.itemsize
    base = (ctypes.c_char * nbytes).from_address(ptr.ptr)
    return np.ndarray((rows, cols), dtype, buffer=base, offset=offset * dtype.itemsize,
                      strides=(dtype.itemsize, ld * dtype.itemsize))


def _launch_ref(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, flag_bits,
                batch=1, stride_a=0, stride_b=0, stride_c=0, bias=None):
    from rocarray.rocblas._gemm import simt

    ta, tb = bool(flag_bits & simt.TRANS_A), bool(flag_bits & simt.TRANS_B)
    calls.append(("launch", "T" if ta else "N", "T" if tb else "N", m, n, k, lda, ldb, ldc,
                  stride_a, stride_b, stride_c, batch))
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    for i in range(batch):
        a = _at(A, dtype, *((k, m) if ta else (m, k)), lda, i * stride_a)
        b = _at(B, dtype, *((n, k) if tb else (k, n)), ldb, i * stride_b)
        c = _at(C, dtype, m, n, ldc, i * stride_c)
        opa, opb = (a.T if ta else a).astype(wide), (b.T if tb else b).astype(wide)
        assert beta == 0
        c[...] = (complex(alpha) if np.iscomplexobj(alpha) else float(alpha)) * (opa @ opb) if k else 0


def _launch_strided_ref(device_id, dtype, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc,
                        stride_c, batch, flag_bits):
    _launch_ref(device_id, dtype, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, flag_bits, batch,
                stride_a, stride_b, stride_c)


def install_checked(monkeypatch, public=True):
    """Like :func:`install`, but the real public ``rocblas.gemm``/``gemm_strided_batched`` run
    (every argument check: buffer kinds, leading dimensions, bounds, alignment, strides); only the
    kernel launch underneath is replaced by a host reference. ``public=False`` keeps the façade's
    unchecked launch of stacks (what runs outside the tests)."""
    from rocarray._core import backend
    from rocarray.rocblas._gemm import batched_kernels, plan

    _route_to_shim(monkeypatch, backend)
    if public:
        public_calls_only(monkeypatch)
    monkeypatch.setattr(plan, "launch", _launch_ref)
    monkeypatch.setattr(batched_kernels, "launch_strided", _launch_strided_ref)
    calls.clear()
    return calls
