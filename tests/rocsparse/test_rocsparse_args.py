"""The argument checks of every public rocarray.rocsparse function, on the CPU.

Arrays live in host memory behind ``cupy.ndarray`` objects (``hostdev.dev``) and are never
launched on: each rejected call must raise NumPy's kind of error (``TypeError`` for types and
dtypes, ``ValueError`` for sizes, shapes and options) naming the function and the argument,
before any device work. Valid calls must pass the checks: they run until their first device
step, which the ``stop_at_device_work`` fixture turns into :class:`Reached`.
"""

import inspect

import numpy as np
import pytest

import cupy
from hostdev import dev

from rocarray import rocsparse
from rocarray._core import backend
from rocarray.rocsparse import (_convert, _convert_kernels, _csrsv, _csrsv_kernels, _spgemm_kernels, _spmm, _spmv,
                                _spmv_kernels)
from rocarray.rocsparse._spmv_analysis import CsrmvAnalysis

I32, I64, F32, F64, C128 = np.int32, np.int64, np.float32, np.float64, np.complex128
M, N = 4, 3
# a 4 x 3 CSR matrix with an empty row: [[a, 0, 0], [0, 0, b], [0, 0, 0], [c, d, 0]]
INDPTR = np.array([0, 1, 2, 2, 4], I32)
INDICES = np.array([0, 2, 0, 1], I32)
DATA = np.array([1.0, 2.0, 3.0, 4.0])
# a 4 x 4 lower triangular pattern for the solves and factorizations
TRI_PTR = np.array([0, 1, 3, 4, 6], I32)
TRI_IND = np.array([0, 0, 1, 2, 0, 3], I32)
TRI_DATA = np.array([2.0, 1.0, 3.0, 4.0, 1.0, 5.0])


def on_device_1(a):
    """A device array over a copy of ``a`` that says it lives on device 1."""
    a = np.ascontiguousarray(a)
    raw = np.zeros(a.nbytes + 256, np.uint8)
    start = raw.ctypes.data + (-raw.ctypes.data) % 256
    np.ndarray(a.shape, a.dtype, buffer=raw, offset=start - raw.ctypes.data)[...] = a
    mem = cupy.cuda.UnownedMemory(start, max(a.nbytes, 1), raw, device_id=1)
    return cupy.ndarray(a.shape, a.dtype, memptr=cupy.cuda.MemoryPointer(mem, 0))


def zero_stride(n, dtype=F64):
    """A writable-looking 1-D view of ``n`` elements that all share one address."""
    return cupy.ndarray((n,), dtype, memptr=dev(np.zeros(1, dtype)).data, strides=(0,))


def parts(indptr=INDPTR, indices=INDICES, data=DATA):
    return dev(indptr), dev(indices), dev(data)


def tri(indptr=TRI_PTR, indices=TRI_IND, data=TRI_DATA):
    return dev(indptr), dev(indices), dev(data)


def tri_analysis(lower=True, trans="N", index=I32, nnz=TRI_IND.size, m=4):
    """A CsrsvAnalysis object as csrsv_analysis returns it (only its attributes are read here)."""
    return _csrsv.CsrsvAnalysis(m, lower, trans, index, [0, m], None, None, -1, nnz=nnz)


def spmv_analysis(m=M, n=N, nnz=DATA.size, index=I32):
    return CsrmvAnalysis(m, n, nnz, np.dtype(index), 1, 0, 0, "scalar", ())


def csrmv(**kw):
    a = dict(alpha=1.0, m=M, n=N, indptr=dev(INDPTR), indices=dev(INDICES), data=dev(DATA), x=dev(np.ones(N)))
    a.update(kw)
    first = ("alpha", "m", "n", "indptr", "indices", "data", "x")
    rest = {k: v for k, v in a.items() if k not in first}
    return lambda: rocsparse.csrmv(*(a[k] for k in first), **rest)


def csrmm(**kw):
    a = dict(alpha=1.0, m=M, n=N, indptr=dev(INDPTR), indices=dev(INDICES), data=dev(DATA), B=dev(np.ones((N, 2))))
    a.update(kw)
    first = ("alpha", "m", "n", "indptr", "indices", "data", "B")
    rest = {k: v for k, v in a.items() if k not in first}
    return lambda: rocsparse.csrmm(*(a[k] for k in first), **rest)


def csrgemm(m=M, k=N, n=2, a=None, b=None):
    a = a or parts()
    b = b or parts(np.array([0, 1, 2, 4], I32), np.array([0, 1, 0, 1], I32), DATA)
    return lambda: rocsparse.csrgemm(m, k, n, *a, *b)


def csrgeam(m=M, n=N, alpha=1.0, beta=2.0, a=None, b=None, canonical=False):
    a, b = a or parts(), b or parts()
    return lambda: rocsparse.csrgeam(m, n, alpha, *a, beta, *b, canonical=canonical)


def csr_multiply(m=M, n=N, a=None, b=None):
    a, b = a or parts(), b or parts()
    return lambda: rocsparse.csr_multiply(m, n, *a, *b)


def sddmm(A=None, B=None, alpha=1.0, beta=0.5, csr=None):
    A = dev(np.ones((M, 5))) if A is None else A
    B = dev(np.ones((5, N))) if B is None else B
    return lambda: rocsparse.sddmm(alpha, A, B, beta, *(csr or parts()))


def csrsv_solve(analysis=None, csr=None, b=None, alpha=1):
    analysis = tri_analysis() if analysis is None else analysis
    b = dev(np.ones(4)) if b is None else b
    return lambda: rocsparse.csrsv_solve(analysis, *(csr or tri()), b, alpha=alpha)


# (id, call, error, part of the message)
REJECTED = [
    # csrmv
    ("csrmv-m-negative", csrmv(m=-1), ValueError, "rocsparse.csrmv: m must be >= 0"),
    ("csrmv-n-float", csrmv(n=3.0), TypeError, "rocsparse.csrmv: n must be an integer"),
    ("csrmv-trans", csrmv(trans="X"), ValueError, "rocsparse.csrmv: trans must be one of"),
    ("csrmv-trans-type", csrmv(trans=1), ValueError, "trans must be one of"),
    ("csrmv-indptr-short", csrmv(indptr=dev(INDPTR[:3])), ValueError,
     "rocsparse.csrmv: indptr has 3 elements, expected m + 1 = 5"),
    ("csrmv-indptr-2d", csrmv(indptr=dev(INDPTR[:4].reshape(2, 2))), ValueError, "indptr must be 1-D"),
    ("csrmv-indptr-float", csrmv(indptr=dev(INDPTR.astype(F64))), TypeError, "indptr has dtype float64"),
    ("csrmv-indptr-uint32", csrmv(indptr=dev(INDPTR.astype(np.uint32))), TypeError, "indptr has dtype uint32"),
    ("csrmv-indices-int64", csrmv(indices=dev(INDICES.astype(I64))), TypeError,
     "indices has dtype int64, but indptr has int32"),
    ("csrmv-indices-host", csrmv(indices=INDICES), TypeError, "indices is a host (NumPy) array"),
    ("csrmv-indices-list", csrmv(indices=[0, 2, 0, 1]), TypeError, "indices must be a cupy.ndarray"),
    ("csrmv-data-short", csrmv(data=dev(DATA[:3])), ValueError, "data has 3 elements, but indices has 4"),
    ("csrmv-data-int", csrmv(data=dev(DATA.astype(I32)), x=dev(np.ones(N, I32))), TypeError,
     "data has dtype int32; supported: float32, float64, complex64, complex128"),
    ("csrmv-data-float16", csrmv(data=dev(DATA.astype(np.float16))), TypeError, "data has dtype float16"),
    ("csrmv-data-strided", csrmv(data=dev(np.repeat(DATA, 2))[::2]), ValueError, "data must be contiguous"),
    ("csrmv-data-reversed", csrmv(data=dev(DATA)[::-1]), ValueError, "data must be contiguous"),
    ("csrmv-x-short", csrmv(x=dev(np.ones(N - 1))), ValueError, "x has shape (2,), expected (n,) = (3,)"),
    ("csrmv-x-trans", csrmv(trans="T"), ValueError, "x has shape (3,), expected (m,) = (4,)"),
    ("csrmv-x-2d", csrmv(x=dev(np.ones((N, 1)))), ValueError, "x must be 1-D"),
    ("csrmv-x-dtype", csrmv(x=dev(np.ones(N, F32))), TypeError, "x has dtype float32, expected data's float64"),
    ("csrmv-x-host", csrmv(x=np.ones(N)), TypeError, "x is a host (NumPy) array"),
    ("csrmv-y-long", csrmv(y=dev(np.ones(M + 1))), ValueError, "y has shape (5,), expected (m,) = (4,)"),
    ("csrmv-y-trans", csrmv(trans="C", x=dev(np.ones(M)), y=dev(np.ones(M))), ValueError,
     "y has shape (4,), expected (n,) = (3,)"),
    ("csrmv-y-dtype", csrmv(y=dev(np.ones(M, C128))), TypeError, "y has dtype complex128"),
    ("csrmv-y-zero-stride", csrmv(y=zero_stride(M)), ValueError, "y is written, so it cannot have a zero stride"),
    ("csrmv-alpha-complex", csrmv(alpha=1j), TypeError, "rocsparse.csrmv: complex alpha needs complex data"),
    ("csrmv-beta-complex", csrmv(beta=np.complex64(1)), TypeError, "complex beta needs complex data"),
    ("csrmv-alpha-array", csrmv(alpha=dev(np.ones(1))), TypeError, "alpha must be a host (Python or NumPy) number"),
    ("csrmv-analysis-type", csrmv(analysis="scalar"), TypeError, "analysis must be a CsrmvAnalysis, not str"),
    ("csrmv-analysis-other-m", csrmv(analysis=spmv_analysis(m=5)), ValueError, "analysis has m=5, but this call"),
    ("csrmv-analysis-other-nnz", csrmv(analysis=spmv_analysis(nnz=3)), ValueError, "analysis has nnz=3"),
    ("csrmv-analysis-other-index", csrmv(analysis=spmv_analysis(index=I64)), ValueError, "analysis has index_dtype"),
    ("csrmv-other-device-data", csrmv(data=on_device_1(DATA)), ValueError, "data is on device 1"),
    ("csrmv-other-device-x", csrmv(x=on_device_1(np.ones(N))), ValueError, "x is on device 1, data on device 0"),
    # the GPU robustness test's entry (tests/core/test_robustness.py BAD_CALLS), without a device
    ("csrmv-robustness-entry",
     lambda: rocsparse.csrmv(1.0, 4, 4, dev(np.array([0, 1, 2], I32)), dev(np.array([0, 1], I32)), dev(np.ones(2)),
                             dev(np.ones(4))),
     ValueError, "indptr has 3 elements, expected m + 1 = 5"),
    # csrmm
    ("csrmm-trans", csrmm(trans="H"), ValueError, "rocsparse.csrmm: trans must be one of"),
    ("csrmm-indptr", csrmm(indptr=dev(INDPTR[:-1])), ValueError, "rocsparse.csrmm: indptr has 4 elements"),
    ("csrmm-B-1d", csrmm(B=dev(np.ones(N))), ValueError, "B must be 2-D"),
    ("csrmm-B-rows", csrmm(B=dev(np.ones((M, 2)))), ValueError, "B has shape (4, 2), expected (n, B.shape[1])"),
    ("csrmm-B-trans", csrmm(trans="t"), ValueError, "B has shape (3, 2), expected (m, B.shape[1]) = (4, 2)"),
    ("csrmm-B-dtype", csrmm(B=dev(np.ones((N, 2), F32))), TypeError, "B has dtype float32, expected data's float64"),
    ("csrmm-C-shape", csrmm(C=dev(np.ones((M, 3)))), ValueError, "C has shape (4, 3), expected (m, B.shape[1])"),
    ("csrmm-C-dtype", csrmm(C=dev(np.ones((M, 2), C128))), TypeError, "C has dtype complex128"),
    ("csrmm-C-broadcast", csrmm(C=cupy.broadcast_to(dev(np.ones(2)), (M, 2))), ValueError,
     "C is written, so it cannot have a zero stride"),
    ("csrmm-alpha-complex", csrmm(alpha=2 + 0j), TypeError, "complex alpha needs complex data"),
    ("csrmm-analysis", csrmm(analysis=spmv_analysis(n=7)), ValueError, "analysis has n=7"),
    # csrmv_analysis
    ("csrmv_analysis-indptr",
     lambda: rocsparse.csrmv_analysis(M, N, dev(INDPTR[:2]), 4), ValueError,
     "rocsparse.csrmv_analysis: indptr has 2 elements, expected m + 1 = 5"),
    ("csrmv_analysis-indptr-dtype",
     lambda: rocsparse.csrmv_analysis(M, N, dev(INDPTR.astype(np.int16)), 4), TypeError, "indptr has dtype int16"),
    ("csrmv_analysis-nnz", lambda: rocsparse.csrmv_analysis(M, N, dev(INDPTR), -4), ValueError,
     "rocsparse.csrmv_analysis: nnz must be >= 0"),
    ("csrmv_analysis-host", lambda: rocsparse.csrmv_analysis(M, N, INDPTR, 4), TypeError,
     "indptr is a host (NumPy) array"),
    # csrgemm
    ("csrgemm-k", csrgemm(k=-3), ValueError, "rocsparse.csrgemm: k must be >= 0"),
    ("csrgemm-b-indptr", csrgemm(k=5), ValueError, "rocsparse.csrgemm: b_indptr has 4 elements, expected k + 1 = 6"),
    ("csrgemm-a-indptr", csrgemm(m=2), ValueError, "a_indptr has 5 elements, expected m + 1 = 3"),
    ("csrgemm-a-data", csrgemm(a=parts(data=DATA.astype(I64))), TypeError, "a_data has dtype int64"),
    ("csrgemm-b-indices", csrgemm(b=(dev(np.array([0, 1, 2, 4], I32)), dev(np.array([0, 1, 0, 1], I64)),
                                     dev(DATA))), TypeError, "b_indices has dtype int64, but b_indptr has int32"),
    ("csrgemm-devices", csrgemm(b=(on_device_1(np.array([0, 1, 2, 4], I32)), on_device_1(np.array([0, 1, 0, 1], I32)),
                                   on_device_1(DATA))), ValueError, "b_indptr is on device 1"),
    # csrgeam, csr_multiply
    ("csrgeam-b-indptr", csrgeam(b=parts(indptr=INDPTR[:-1], data=DATA)), ValueError,
     "rocsparse.csrgeam: b_indptr has 4 elements, expected m + 1 = 5"),
    ("csrgeam-alpha", csrgeam(alpha="1"), TypeError,
     "rocsparse.csrgeam: alpha must be a host (Python or NumPy) number"),
    ("csrgeam-beta", csrgeam(beta=None), TypeError, "beta must be a host"),
    ("csrgeam-a-data-size", csrgeam(a=parts(data=DATA[:2])), ValueError, "a_data has 2 elements, but a_indices has 4"),
    ("csrgeam-b-data-bool", csrgeam(b=parts(data=DATA.astype(bool))), TypeError, "b_data has dtype bool"),
    ("csrgeam-n", csrgeam(n=1.5), TypeError, "rocsparse.csrgeam: n must be an integer"),
    ("csr_multiply-a-indices", csr_multiply(a=parts(indices=INDICES.astype(I64))), TypeError,
     "rocsparse.csr_multiply: a_indices has dtype int64"),
    ("csr_multiply-m", csr_multiply(m=-2), ValueError, "rocsparse.csr_multiply: m must be >= 0"),
    # sddmm
    ("sddmm-A-1d", sddmm(A=dev(np.ones(5))), ValueError, "rocsparse.sddmm: A must be 2-D"),
    ("sddmm-B-rows", sddmm(B=dev(np.ones((4, N)))), ValueError, "B has shape (4, 3), expected (k, n) = (5, 3)"),
    ("sddmm-indptr", sddmm(A=dev(np.ones((M + 1, 5)))), ValueError,
     "indptr has 5 elements, expected A.shape[0] + 1 = 6"),
    ("sddmm-data-size", sddmm(csr=parts(data=DATA[:3])), ValueError, "data has 3 elements, but indices has 4"),
    ("sddmm-int", sddmm(A=dev(np.ones((M, 5), I32)), B=dev(np.ones((5, N), I32)), alpha=1, beta=0,
                        csr=parts(data=DATA.astype(I32))), TypeError, "promote to int32"),
    ("sddmm-alpha", sddmm(alpha=[1.0]), TypeError, "alpha must be a host"),
    ("sddmm-B-host", sddmm(B=np.ones((5, N))), TypeError, "B is a host (NumPy) array"),
    # csrsv_analysis, csrsv_solve
    ("csrsv_analysis-trans",
     lambda: rocsparse.csrsv_analysis(4, *tri()[:2], lower=True, trans="X"), ValueError,
     "rocsparse.csrsv_analysis: trans must be one of"),
    ("csrsv_analysis-indptr",
     lambda: rocsparse.csrsv_analysis(5, *tri()[:2], lower=True), ValueError,
     "rocsparse.csrsv_analysis: indptr has 5 elements, expected m + 1 = 6"),
    ("csrsv_analysis-indices",
     lambda: rocsparse.csrsv_analysis(4, dev(TRI_PTR), dev(TRI_IND.astype(F32)), lower=True), TypeError,
     "indices has dtype float32"),
    ("csrsv_solve-analysis-type", csrsv_solve(analysis=object()), TypeError,
     "rocsparse.csrsv_solve: analysis must be a CsrsvAnalysis"),
    ("csrsv_solve-index", csrsv_solve(analysis=tri_analysis(index=I64)), TypeError,
     "indptr has dtype int32, but the analysis was made for int64"),
    ("csrsv_solve-nnz", csrsv_solve(analysis=tri_analysis(nnz=5)), ValueError,
     "indices has 6 elements, but the analysed pattern has 5"),
    ("csrsv_solve-indptr", csrsv_solve(analysis=tri_analysis(m=3)), ValueError,
     "indptr has 5 elements, expected m + 1 = 4"),
    ("csrsv_solve-b-rows", csrsv_solve(b=dev(np.ones(3))), ValueError, "b has shape (3,), expected (m,) or (m, k)"),
    ("csrsv_solve-b-3d", csrsv_solve(b=dev(np.ones((4, 1, 1)))), ValueError, "b has shape (4, 1, 1)"),
    ("csrsv_solve-b-complex", csrsv_solve(b=dev(np.ones(4, C128))), TypeError, "b has dtype complex128"),
    ("csrsv_solve-b-host", csrsv_solve(b=np.ones(4)), TypeError, "b is a host (NumPy) array"),
    ("csrsv_solve-alpha", csrsv_solve(alpha=1j), TypeError, "complex alpha needs complex data"),
    ("csrsv_solve-data", csrsv_solve(csr=tri(data=TRI_DATA.astype(np.float16))), TypeError, "data has dtype float16"),
    # csrilu0, csric0
    ("csrilu0-analysis-upper", lambda: rocsparse.csrilu0(4, *tri(), tri_analysis(lower=False)), ValueError,
     "rocsparse.csrilu0: analysis has lower=False, but this call needs True"),
    ("csrilu0-analysis-trans", lambda: rocsparse.csrilu0(4, *tri(), tri_analysis(trans="T")), ValueError,
     "analysis has trans='T'"),
    ("csrilu0-analysis-m", lambda: rocsparse.csrilu0(3, *tri(), tri_analysis()), ValueError, "analysis has m=4"),
    ("csrilu0-indptr", lambda: rocsparse.csrilu0(3, *tri()), ValueError, "rocsparse.csrilu0: indptr has 5 elements"),
    ("csrilu0-data", lambda: rocsparse.csrilu0(4, *tri(data=TRI_DATA.astype(I64))), TypeError, "data has dtype int64"),
    ("csric0-data", lambda: rocsparse.csric0(4, *tri(data=TRI_DATA[:5])), ValueError,
     "rocsparse.csric0: data has 5 elements, but indices has 6"),
    ("csric0-analysis-type", lambda: rocsparse.csric0(4, *tri(), analysis=3), TypeError,
     "analysis must be a CsrsvAnalysis"),
    # conversions
    ("csr2coo-indptr-empty", lambda: rocsparse.csr2coo(dev(np.zeros(0, I32)), 0), ValueError,
     "rocsparse.csr2coo: indptr has no elements"),
    ("csr2coo-indptr-float", lambda: rocsparse.csr2coo(dev(INDPTR.astype(F32)), 4), TypeError,
     "indptr has dtype float32"),
    ("csr2coo-nnz", lambda: rocsparse.csr2coo(dev(INDPTR), -1), ValueError, "nnz must be >= 0"),
    ("csr2coo-host", lambda: rocsparse.csr2coo(INDPTR, 4), TypeError, "rocsparse.csr2coo: indptr is a host"),
    ("coo2csr-row-float", lambda: rocsparse.coo2csr(dev(np.zeros(3)), 4), TypeError,
     "rocsparse.coo2csr: row has dtype float64"),
    ("coo2csr-m", lambda: rocsparse.coo2csr(dev(np.zeros(3, I32)), -1), ValueError, "m must be >= 0"),
    ("coo2csr-row-2d", lambda: rocsparse.coo2csr(dev(np.zeros((3, 1), I32)), 4), ValueError, "row must be 1-D"),
    ("coosort-col-size", lambda: rocsparse.coosort(4, 3, dev(np.zeros(3, I32)), dev(np.zeros(2, I32)),
                                                   dev(np.zeros(3))), ValueError,
     "rocsparse.coosort: col has 2 elements, but row has 3"),
    ("coosort-col-dtype", lambda: rocsparse.coosort(4, 3, dev(np.zeros(3, I32)), dev(np.zeros(3, I64)),
                                                    dev(np.zeros(3))), TypeError,
     "col has dtype int64, but row has int32"),
    ("coosort-data-size", lambda: rocsparse.coosort(4, 3, dev(np.zeros(3, I32)), dev(np.zeros(3, I32)),
                                                    dev(np.zeros(4))), ValueError,
     "data has 4 elements, but row has 3"),
    ("coosort-data-float16", lambda: rocsparse.coosort(4, 3, dev(np.zeros(3, I32)), dev(np.zeros(3, I32)),
                                                       dev(np.zeros(3, np.float16))), TypeError,
     "data has dtype float16; supported: bool, int8"),
    ("csrsort-indptr", lambda: rocsparse.csrsort(5, N, *parts()), ValueError,
     "rocsparse.csrsort: indptr has 5 elements, expected m + 1 = 6"),
    ("csr2csc-data-size", lambda: rocsparse.csr2csc(M, N, *parts(data=DATA[:1])), ValueError,
     "rocsparse.csr2csc: data has 1 elements, but indices has 4"),
    ("csr2csc-n", lambda: rocsparse.csr2csc(M, -N, *parts()), ValueError, "rocsparse.csr2csc: n must be >= 0"),
    ("csr_sum_duplicates-indptr-2d", lambda: rocsparse.csr_sum_duplicates(M, N, dev(INDPTR[:4].reshape(2, 2)),
                                                                          *parts()[1:]), ValueError,
     "rocsparse.csr_sum_duplicates: indptr must be 1-D"),
    ("csr_eliminate_zeros-data-strided",
     lambda: rocsparse.csr_eliminate_zeros(M, N, *parts()[:2], dev(np.repeat(DATA, 3))[::3]), ValueError,
     "rocsparse.csr_eliminate_zeros: data must be contiguous"),
    ("csr2dense-out-shape", lambda: rocsparse.csr2dense(M, N, *parts(), dev(np.zeros((N, M)))), ValueError,
     "rocsparse.csr2dense: out has shape (3, 4), expected (m, n) = (4, 3)"),
    ("csr2dense-out-dtype", lambda: rocsparse.csr2dense(M, N, *parts(), dev(np.zeros((M, N), F32))), TypeError,
     "out has dtype float32, expected data's float64"),
    ("csr2dense-out-broadcast",
     lambda: rocsparse.csr2dense(M, N, *parts(), cupy.broadcast_to(dev(np.zeros(N)), (M, N))), ValueError,
     "out is written, so it cannot have a zero stride"),
    ("csr2dense-out-host", lambda: rocsparse.csr2dense(M, N, *parts(), np.zeros((M, N))), TypeError,
     "out is a host (NumPy) array"),
    ("dense2csr-1d", lambda: rocsparse.dense2csr(dev(np.ones(3))), ValueError, "rocsparse.dense2csr: a must be 2-D"),
    ("dense2csr-host", lambda: rocsparse.dense2csr(np.ones((2, 2))), TypeError, "a is a host (NumPy) array"),
    ("check_matrix_csr-indptr", lambda: rocsparse.check_matrix_csr(M + 2, N, *parts()[:2]), ValueError,
     "rocsparse.check_matrix_csr: indptr has 5 elements, expected m + 1 = 7"),
    ("check_matrix_csr-indices", lambda: rocsparse.check_matrix_csr(M, N, dev(INDPTR), dev(INDICES.astype(I64))),
     TypeError, "indices has dtype int64"),
    ("check_matrix_coo-sizes", lambda: rocsparse.check_matrix_coo(M, N, dev(np.zeros(2, I32)), dev(np.zeros(3, I32))),
     ValueError, "rocsparse.check_matrix_coo: col has 3 elements, but row has 2"),
    ("check_matrix_coo-m", lambda: rocsparse.check_matrix_coo(-1, N, dev(np.zeros(2, I32)), dev(np.zeros(2, I32))),
     ValueError, "m must be >= 0"),
]


class Reached(Exception):
    """A valid call got past its argument checks to its first device step."""


def _stop(*args, **kwargs):
    raise Reached


class _NoDevice:
    """``backend.cupy()`` that knows what a device array is and stops at anything else."""

    ndarray = cupy.ndarray

    def __getattr__(self, name):
        raise Reached(name)


@pytest.fixture
def stop_at_device_work(monkeypatch):
    monkeypatch.setattr(backend, "_cupy", [_NoDevice()])
    monkeypatch.setattr(_convert, "prim", _NoDevice())
    steps = {_spmv: ["_product_n"], _spmm: ["_product_n"],
             _spmv_kernels: ["row_stats", "csr2csc", "scale", "scale_matrix", "gather"],
             _spgemm_kernels: ["astype", "row_work", "canonicalize", "zeros", "empty"],
             _convert: ["_coo_order"],
             _csrsv_kernels: ["positions", "rhs_copy", "copy", "empty"]}
    for module, names in steps.items():
        for name in names:
            monkeypatch.setattr(module, name, _stop)
    for name in ("csr2coo", "csr2dense", "check_csr", "check_coo"):
        monkeypatch.setattr(_convert_kernels, name, _stop)


VALID = [
    ("csrmv", csrmv()),
    ("csrmv", csrmv(trans="n", y=dev(np.ones(M)), beta=np.float64(0.5), analysis=spmv_analysis())),
    ("csrmv", csrmv(trans="C", x=dev(np.ones((M, 2)))[:, 1], y=dev(np.ones(2 * N))[::-2], alpha=np.float32(2))),
    ("csrmv", csrmv(data=dev(DATA.astype(C128)), x=dev(np.ones(N, C128)), alpha=1j, beta=2 + 0j)),
    ("csrmv", csrmv(indptr=dev(INDPTR.astype(I64)), indices=dev(INDICES.astype(I64)), data=dev(DATA.astype(F32)),
                    x=cupy.broadcast_to(dev(np.ones(1, F32)), (N,)))),
    ("csrmm", csrmm()),
    ("csrmm", csrmm(trans="T", B=dev(np.ones((2, M))).T, C=dev(np.ones((N, 2)), ), beta=1)),
    ("csrmv_analysis", lambda: rocsparse.csrmv_analysis(M, N, dev(INDPTR), 4)),
    ("csrgemm", csrgemm()),
    ("csrgemm", csrgemm(a=parts(indptr=INDPTR.astype(I64), indices=INDICES.astype(I64)))),
    ("csrgeam", csrgeam(alpha=np.complex64(1j))),
    ("csr_multiply", csr_multiply()),
    ("sddmm", sddmm(A=dev(np.ones((5, M), F32)).T)),
    ("csrsv_analysis", lambda: rocsparse.csrsv_analysis(4, *tri()[:2], lower=True, trans="c")),
    ("csrsv_solve", csrsv_solve(b=dev(np.ones((4, 3), F32)))),
    ("csrsv_solve", csrsv_solve(csr=tri(data=TRI_DATA.astype(C128)), b=dev(np.ones(4, C128)), alpha=1j)),
    ("csrilu0", lambda: rocsparse.csrilu0(4, *tri())),
    ("csrilu0", lambda: rocsparse.csrilu0(4, *tri(), tri_analysis())),
    ("csric0", lambda: rocsparse.csric0(4, *tri(), analysis=tri_analysis())),
    ("csr2coo", lambda: rocsparse.csr2coo(dev(INDPTR), 4)),
    ("coo2csr", lambda: rocsparse.coo2csr(dev(np.array([0, 1, 3, 3], I64)), M)),
    ("coosort", lambda: rocsparse.coosort(M, N, dev(np.zeros(3, I32)), dev(np.zeros(3, I32)),
                                          dev(np.zeros(3, np.uint16)))),
    ("csrsort", lambda: rocsparse.csrsort(M, N, *parts(data=DATA.astype(bool)))),
    ("csr2csc", lambda: rocsparse.csr2csc(M, N, *parts(data=DATA.astype(np.int8)))),
    ("csr_sum_duplicates", lambda: rocsparse.csr_sum_duplicates(M, N, *parts())),
    ("csr_eliminate_zeros", lambda: rocsparse.csr_eliminate_zeros(M, N, *parts())),
    ("csr2dense", lambda: rocsparse.csr2dense(M, N, *parts(), dev(np.zeros((N, M))).T)),
    ("dense2csr", lambda: rocsparse.dense2csr(dev(np.ones((2, 3)))[:, ::-1])),
    ("check_matrix_csr", lambda: rocsparse.check_matrix_csr(M, N, *parts()[:2])),
    ("check_matrix_coo", lambda: rocsparse.check_matrix_coo(M, N, dev(np.zeros(2, I64)), dev(np.zeros(2, I64)))),
]


@pytest.mark.parametrize("call, error, message", [c[1:] for c in REJECTED], ids=[c[0] for c in REJECTED])
def test_a_bad_argument_is_rejected_before_any_device_work(stop_at_device_work, call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


@pytest.mark.parametrize("call", [c[1] for c in VALID], ids=[f"{c[0]}-{i}" for i, c in enumerate(VALID)])
def test_a_valid_call_passes_the_checks(stop_at_device_work, call):
    with pytest.raises(Reached):
        call()


def _public_functions():
    return sorted(name for name in rocsparse.__all__
                  if inspect.isfunction(getattr(rocsparse, name)) and not isinstance(getattr(rocsparse, name), type))


def test_every_public_function_has_rejections_and_a_valid_call():
    rejected = {case[0].split("-")[0] for case in REJECTED}
    valid = {case[0] for case in VALID}
    assert set(_public_functions()) <= rejected, set(_public_functions()) - rejected
    assert set(_public_functions()) <= valid, set(_public_functions()) - valid



def test_the_way_back_skips_the_checks(stop_at_device_work, monkeypatch):
    from rocarray.rocsparse import _args

    monkeypatch.setattr(_args, "ENABLED", False)
    for case in ("csrmv-indptr-short", "csrmm-B-dtype", "csrsv_solve-nnz", "csr2dense-out-shape"):
        call = next(c[1] for c in REJECTED if c[0] == case)
        with pytest.raises(Reached):
            call()
