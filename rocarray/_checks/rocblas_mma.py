"""Self-check and vendor-ratio benchmark cases of the matrix-core gemm (float16, bfloat16).

The self-check runs every transpose on small fresh random 16-bit matrices (sizes that cross the
128 x 128 x 32 tiles, one padded leading dimension that is not a multiple of 8, so both copy
variants run), plus one product of at least 144 128 x 256 tiles (the wide tile on NVIDIA devices
with up to 144 SMs), and compares with NumPy in float64. The benchmarks time 2048^3 and 8192^3
products against ``cupy.matmul`` on the same bytes (cuBLAS with tensor cores), and products with a
fused bias and activation (float16 at 4096^3 and 8192^3, float32 at 4096^3) against cuBLAS plus
CuPy's element-wise bias and activation.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase
from rocarray.rocblas._gemm import half

_LIB = "rocblas"
_GEMM_N = 8192


def _device(host):
    return backend.cupy().asarray(host)


@harness.self_check(_LIB, "gemm_mma")
def check_gemm_mma(rng):
    for dtype in half.MMA_DTYPES:
        for ta in "NT":
            for tb in "NT":
                for m, n, k, pad in ((130, 70, 50, 0), (33, 129, 40, 3)):
                    _check_one(rng, dtype, ta, tb, m, n, k, pad)
        for ta, tb in (("N", "N"), ("T", "T")):
            _check_one(rng, dtype, ta, tb, 2048, 2304, 40, 0)


def _check_one(rng, dtype, ta, tb, m, n, k, pad):
    ar, ac = (m, k) if ta == "N" else (k, m)
    br, bc = (k, n) if tb == "N" else (n, k)
    lda, ldb, ldc = ar + pad, br + pad, m + pad
    a = rng.standard_normal(lda * ac).astype(dtype)
    b = rng.standard_normal(ldb * bc).astype(dtype)
    c = rng.standard_normal(ldc * n).astype(dtype)
    da, db, dc = _device(a), _device(b), _device(c)
    alpha, beta = 1.5, -0.5
    half.launch(da.data.device_id, numpy.dtype(dtype), ta, tb, m, n, k, alpha, da.data, lda, db.data,
                ldb, beta, dc.data, ldc)
    A = a.astype(numpy.float64).reshape(ac, lda).T[:ar]
    B = b.astype(numpy.float64).reshape(bc, ldb).T[:br]
    C = c.astype(numpy.float64).reshape(n, ldc).T[:m]
    oa = A if ta == "N" else A.T
    ob = B if tb == "N" else B.T
    want = alpha * (oa @ ob) + beta * C
    scale = abs(alpha) * (numpy.abs(oa) @ numpy.abs(ob)) + abs(beta) * numpy.abs(C)
    got = backend.cupy().asnumpy(dc).astype(numpy.float64).reshape(n, ldc).T[:m]
    eps = harness.machine_epsilon(dtype)
    tol = eps * numpy.abs(want) + (k + 4) * 2.0**-23 * scale + 1e-7
    if not numpy.all(numpy.abs(got - want) <= tol):
        raise AssertionError(f"gemm_mma {numpy.dtype(dtype).name} {ta}{tb} {m}x{n}x{k}: "
                             f"max error {float(numpy.max(numpy.abs(got - want))):.3g}")


def _random(count, dtype):
    """``count`` standard normal values of ``dtype`` (float16, bfloat16 or float32) on the device."""
    return backend.cupy().random.standard_normal(count, dtype=numpy.float32).astype(dtype)


def _register_benchmarks():
    # C = A B on n^3 column-major buffers. CuPy sees each buffer as the row-major transpose, so the
    # vendor computes C^T = B^T A^T with cupy.matmul (cuBLAS, tensor cores) on the same bytes.
    # 8192^3 is bound by the matrix units, 2048^3 partly by the number of output tiles.
    for n in (2048, _GEMM_N):
        for dtype in half.MMA_DTYPES:
            def setup(dtype=dtype, n=n):
                return _random(n * n, dtype), _random(n * n, dtype), backend.cupy().zeros(n * n, dtype)

            def ours(a, b, c, dtype=dtype, n=n):
                half.launch(a.data.device_id, numpy.dtype(dtype), "N", "N", n, n, n, 1.0, a.data, n, b.data,
                            n, 0.0, c.data, n)

            def vendor(a, b, c, n=n):
                backend.cupy().matmul(b.reshape(n, n), a.reshape(n, n), out=c.reshape(n, n))

            harness.bench_case(BenchCase(name=f"{_LIB}.gemm_{n}_{numpy.dtype(dtype).name}", library=_LIB,
                                         setup=setup, rocarray=ours, vendor=vendor, flops=2 * n ** 3,
                                         memory_bound=False))


_register_benchmarks()

#: Fused epilogues timed: rocarray's bias + activation inside gemm against cuBLAS followed by
#: CuPy's element-wise bias and activation (the unfused path a script takes), as (n, dtype,
#: activation) of an n^3 product.
_EPILOGUES = ((_GEMM_N, "float16", "relu"), (_GEMM_N, "float16", "gelu"), (4096, "float16", "gelu"),
              (4096, "float32", "gelu"))


def _vendor_activation(name, y):
    if name == "relu":
        return backend.cupy().maximum(y, 0)
    import cupyx.scipy.special

    return 0.5 * y * (1 + cupyx.scipy.special.erf(y * 0.7071067811865476))


def _register_epilogue_benchmarks():
    for n, dtype, activation in _EPILOGUES:
        def setup(n=n, dtype=dtype):
            return _random(n * n, dtype), _random(n * n, dtype), _random(n, dtype), backend.cupy().zeros(n * n, dtype)

        def ours(a, b, bias, c, n=n, activation=activation):
            from rocarray import rocblas

            rocblas.gemm("N", "N", n, n, n, 1.0, a, n, b, n, 0.0, c, n, bias=bias, activation=activation)

        def vendor(a, b, bias, c, n=n, activation=activation):
            # C^T in CuPy's row-major view: the bias of C's row i runs along the last axis
            y = backend.cupy().matmul(b.reshape(n, n), a.reshape(n, n)) + bias
            c.reshape(n, n)[...] = _vendor_activation(activation, y)

        harness.bench_case(BenchCase(name=f"{_LIB}.gemm_{n}_{dtype}_bias_{activation}", library=_LIB, setup=setup,
                                     rocarray=ours, vendor=vendor, flops=2 * n ** 3, memory_bound=False))


_register_epilogue_benchmarks()
