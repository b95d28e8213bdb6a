"""Self-checks and vendor-ratio benchmark cases of rocblas batched gemm (walked by ``python -m rocarray``).

Self-checks run ``gemm_strided_batched`` and ``gemm_batched`` on small fresh random stacks (every
dtype, every kernel tile and the tiled path, transposes, a broadcast operand) and compare with
NumPy in float64/complex128; they raise ``AssertionError`` on a mismatch. Benchmark cases time
the strided-batched call against ``cupy.matmul`` on the same C-ordered float32 and float64 stacks
(10^5 products of 8^2 to 64^2, 64 of 1024^2): ``a3 @ b3`` with shapes ``(batch, m, k)`` and
``(batch, k, n)`` is, column-major, ``C^T = B^T A^T``, so rocarray runs
``gemm_strided_batched('N', 'N', n, m, k, 1, b3, n, k*n, a3, k, m*k, 0, c3, n, m*n, batch)`` on
the very same buffers (no copies on either side); and ``gemm_batched`` on pointers to 10^4
matrices of one stack, against ``cupy.matmul`` on the stack.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase
from rocarray import rocblas

_LIB = "rocblas"
_DTYPES = ("float32", "float64", "complex64", "complex128")
_host = harness.standard_normal


def _rtol(dtype, n=1):
    return harness.tolerance(dtype, n, factor=16)


def _wide(a):
    return a.astype(numpy.complex128 if a.dtype.kind == "c" else numpy.float64)


def _op(a, trans):
    if trans == "N":
        return a
    t = numpy.swapaxes(a, 1, 2)
    return t.conj() if trans == "C" else t


def _case(rng, dtype, trans, m, n, k, batch, pointers, broadcast_a=False):
    """One batched call on fresh column-major stacks against the host reference."""
    cupy = backend.cupy()
    ta, tb = trans
    complex_ = numpy.dtype(dtype).kind == "c"
    alpha = 0.75 - 0.5j if complex_ else 0.75
    beta = -0.5 + 0.25j if complex_ else -0.5
    ar, ac = (m, k) if ta == "N" else (k, m)
    br, bc = (k, n) if tb == "N" else (n, k)
    a = _host(rng, (1 if broadcast_a else batch, ac, ar), dtype)   # C order: column-major matrices
    b = _host(rng, (batch, bc, br), dtype)
    c = _host(rng, (batch, n, m), dtype)
    da, db, dc = cupy.asarray(a), cupy.asarray(b), cupy.asarray(c)
    if pointers:
        size = numpy.dtype(dtype).itemsize

        def ptrs(x, count, stride):
            return cupy.asarray([x.data.ptr + (i if count > 1 else 0) * stride * size for i in range(batch)],
                                dtype=cupy.uint64)

        rocblas.gemm_batched(ta, tb, m, n, k, alpha, ptrs(da, a.shape[0], ar * ac), ar,
                             ptrs(db, batch, br * bc), br, beta, ptrs(dc, batch, m * n), m, batch, dtype=dtype)
    else:
        rocblas.gemm_strided_batched(ta, tb, m, n, k, alpha, da, ar, 0 if broadcast_a else ar * ac, db, br,
                                     br * bc, beta, dc, m, m * n, batch)
    oa = _op(numpy.swapaxes(_wide(a), 1, 2), ta)
    ob = _op(numpy.swapaxes(_wide(b), 1, 2), tb)
    want = alpha * numpy.matmul(oa, ob) + beta * numpy.swapaxes(_wide(c), 1, 2)
    scale = abs(alpha) * numpy.matmul(numpy.abs(oa), numpy.abs(ob)) + abs(beta) * numpy.abs(c).max()
    got = numpy.swapaxes(_wide(cupy.asnumpy(dc)), 1, 2)
    rtol = _rtol(dtype, k)
    if not numpy.allclose(got, want, rtol=rtol, atol=rtol * float(scale.max())):
        err = float(numpy.max(numpy.abs(got - want)))
        mode = "gemm_batched" if pointers else "gemm_strided_batched"
        raise AssertionError(f"{mode} {trans} {m}x{n}x{k} batch {batch} {dtype}: max error {err:.3e} "
                             f"(rtol {rtol:.1e})")


@harness.self_check(_LIB, "gemm_strided_batched")
def check_gemm_strided_batched(rng):
    for dtype in _DTYPES:
        for (m, n, k, batch), trans in zip([(8, 8, 8, 50), (16, 11, 20, 9), (32, 32, 32, 40), (64, 50, 70, 5),
                                            (100, 70, 33, 3)], ["NN", "TC", "CN", "NT", "TT"]):
            _case(rng, dtype, trans, m, n, k, batch, pointers=False)
        _case(rng, dtype, "NN", 30, 20, 10, 7, pointers=False, broadcast_a=True)


@harness.self_check(_LIB, "gemm_batched")
def check_gemm_batched(rng):
    for dtype in _DTYPES:
        for (m, n, k, batch), trans in zip([(7, 8, 9, 30), (32, 31, 33, 10), (90, 70, 20, 3)], ["NN", "CT", "TN"]):
            _case(rng, dtype, trans, m, n, k, batch, pointers=True)


# --------------------------------------------------------------------------------------------
# benchmark cases: rocarray vs cupy.matmul (cuBLAS strided-batched gemm) on the same stacks
# --------------------------------------------------------------------------------------------

def _register_benchmarks():
    for dtype in ("float32", "float64"):
        size = numpy.dtype(dtype).itemsize
        for batch, edge in ((10**5, 8), (10**5, 16), (10**5, 32), (10**5, 64), (64, 1024)):
            m = n = k = edge

            def setup(batch=batch, m=m, n=n, k=k, dtype=dtype):
                cupy = backend.cupy()
                a3 = cupy.random.standard_normal((batch, m, k), dtype=dtype)
                b3 = cupy.random.standard_normal((batch, k, n), dtype=dtype)
                return a3, b3, cupy.empty((batch, m, n), dtype=dtype)

            def ours(a3, b3, c3, batch=batch, m=m, n=n, k=k):
                rocblas.gemm_strided_batched("N", "N", n, m, k, 1.0, b3, n, k * n, a3, k, m * k, 0.0, c3, n, m * n,
                                             batch)

            def vendor(a3, b3, c3):
                backend.cupy().matmul(a3, b3)

            label = f"1e5x{edge}" if batch == 10**5 else f"{batch}x{edge}"
            big = edge > 64
            harness.bench_case(BenchCase(
                name=f"{_LIB}.gemm_strided_batched_{label}_{dtype}", library=_LIB, setup=setup, rocarray=ours,
                vendor=vendor, bytes_moved=None if big else batch * (m * k + k * n + m * n) * size,
                flops=2 * batch * m * n * k, memory_bound=not big))

    # pointer-array mode: 10^4 separate 32 x 32 float32 products (the matrices of one stack, one
    # pointer each) against cupy.matmul on the stack
    batch, edge = 10**4, 32

    def setup_pointers():
        cupy = backend.cupy()
        a3, b3, c3 = (cupy.random.standard_normal((batch, edge, edge), dtype=numpy.float32) for _ in range(3))

        def pointers(x):
            return x.data.ptr + x.strides[0] * cupy.arange(batch, dtype=numpy.uint64)

        # the stacks stay in the arguments: the pointer arrays point into them
        return a3, b3, c3, pointers(a3), pointers(b3), pointers(c3)

    def ours_pointers(a3, b3, c3, pa, pb, pc):
        # C_b^T = B_b^T A_b^T in column-major terms, as for the strided call
        rocblas.gemm_batched("N", "N", edge, edge, edge, 1.0, pb, edge, pa, edge, 0.0, pc, edge, batch,
                             dtype=numpy.float32)

    def vendor_pointers(a3, b3, c3, pa, pb, pc):
        backend.cupy().matmul(a3, b3)

    harness.bench_case(BenchCase(
        name=f"{_LIB}.gemm_batched_1e4x{edge}_float32", library=_LIB, setup=setup_pointers, rocarray=ours_pointers,
        vendor=vendor_pointers, bytes_moved=batch * 3 * edge * edge * 4, flops=2 * batch * edge ** 3))


_register_benchmarks()
