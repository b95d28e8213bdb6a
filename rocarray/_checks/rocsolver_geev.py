"""Self-checks and benchmark cases of rocsolver's general eigenproblem (``python -m rocarray``).

The self-check runs gehrd + orghr/unghr and geev on small fresh random matrices of every dtype
(sizes crossing no block, the reduction being unblocked) and checks ``Q^H Q = I``,
``Q^H A Q = H`` and the eigen-residual ``||A V - V diag(w)||`` against the LAPACK-like bound.
Benchmark cases time ``ra.linalg.eig`` of a float64 1024 x 1024 matrix against NumPy's LAPACK on
the host (the issue's comparison) and against ``cupy.linalg.eig`` (cuSOLVER's ``Xgeev``) when
the installed CuPy has it.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase
from rocarray.rocsolver import _geev

_LIB = "rocsolver"
_DTYPES = ("float32", "float64", "complex64", "complex128")


def _colmajor(buf, n, ld):
    return numpy.lib.stride_tricks.as_strided(buf, (n, n), (buf.itemsize, ld * buf.itemsize)).astype(
        numpy.complex128)


@harness.self_check(_LIB, "gehrd_geev")
def check_gehrd_geev(rng):
    cupy = backend.cupy()
    n, lda = 45, 47
    for dtype in _DTYPES:
        eps = numpy.finfo(dtype).eps
        a = harness.standard_normal(rng, n * lda, dtype)
        A = _colmajor(a, n, lda)
        norm = numpy.linalg.norm(A, 2)
        d, tau = cupy.asarray(a), cupy.empty(n - 1, dtype)
        _geev.gehrd(n, 1, n, d, lda, tau)
        H = numpy.triu(_colmajor(cupy.asnumpy(d), n, lda), -1)
        (_geev.unghr if numpy.dtype(dtype).kind == "c" else _geev.orghr)(n, 1, n, d, lda, tau)
        Q = _colmajor(cupy.asnumpy(d), n, lda)
        if numpy.abs(Q.conj().T @ Q - numpy.eye(n)).max() > 30 * n * eps:
            raise AssertionError(f"orghr/unghr {dtype}: Q is not unitary")
        if numpy.abs(Q.conj().T @ A @ Q - H).max() > 30 * n * eps * norm:
            raise AssertionError(f"gehrd {dtype}: Q^H A Q != H")
        cdtype = _geev.COMPLEX_OF[numpy.dtype(dtype)]
        W, VR = cupy.empty(n, cdtype), cupy.empty(n * n, cdtype)
        info = cupy.zeros(1, numpy.int32)
        _geev.geev("N", "V", n, cupy.asarray(a), lda, W, None, 1, VR, n, info)
        if int(info[0]):
            raise AssertionError(f"geev {dtype}: info {int(info[0])}")
        w, V = cupy.asnumpy(W).astype(numpy.complex128), _colmajor(cupy.asnumpy(VR), n, n)
        err = numpy.linalg.norm(A @ V - V * w, axis=0).max() / (norm * n * eps)
        if err > 30:
            raise AssertionError(f"geev {dtype}: residual {err:.1f} n eps ||A||")
        # each of NumPy's eigenvalues matched to its nearest unused one of ours
        left = list(w)
        for ref in numpy.linalg.eigvals(A):
            i = int(numpy.argmin(numpy.abs(numpy.array(left) - ref)))
            if abs(left.pop(i) - ref) > 1e3 * n * eps * norm:
                raise AssertionError(f"geev {dtype}: eigenvalue {ref} of numpy.linalg.eigvals missing")


# --------------------------------------------------------------------------------------------
# benchmark cases: eig f64 1024
# --------------------------------------------------------------------------------------------

def _eig_cases(n, dtype):
    def setup():
        host = numpy.random.default_rng().standard_normal((n, n)).astype(dtype)
        return backend.cupy().asarray(host), host

    def ours(a, host):
        from rocarray import linalg

        linalg.eig(a)

    def numpy_eig(a, host):
        numpy.linalg.eig(host)

    # LAPACK geev's count: about 10 n^3 for the Hessenberg QR with vectors plus 10/3 n^3 for the
    # reduction and 4 n^3 for the vectors; 25 n^3 is the customary total
    flops = 25 * n ** 3
    harness.bench_case(BenchCase(name=f"{_LIB}.eig_{n}_{dtype}_vs_numpy", library=_LIB, setup=setup,
                                 rocarray=ours, vendor=numpy_eig, flops=flops, memory_bound=False))
    cupy = backend.cupy_module()
    if cupy is not None and hasattr(cupy.linalg, "eig"):
        def cupy_eig(a, host):
            backend.cupy().linalg.eig(a)

        harness.bench_case(BenchCase(name=f"{_LIB}.eig_{n}_{dtype}", library=_LIB, setup=setup,
                                     rocarray=ours, vendor=cupy_eig, flops=flops, memory_bound=False))


_eig_cases(1024, "float64")
