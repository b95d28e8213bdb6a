"""Self-checks and vendor-ratio benchmark cases of the façade products on rocblas GEMM
(``ra.matmul``, ``ra.einsum``, ``ra.tensordot``; walked by ``python -m rocarray``).

Self-checks run the façade on small fresh random operands (C-ordered, transposed and sliced views,
broadcast stacks, 1-D promotion, every GEMM dtype) and compare with NumPy in float64/complex128.
Benchmark cases time the façade against the CuPy function of the same name on the same device
arrays (cuBLAS underneath): large square products and a stack of 4096 64^2 products (float32 and
float64), each also with a transposed operand (read in place by rocarray through the 'T' flag; a
layout cuBLAS also reads in place), an attention-style einsum, and products small enough that
host time per call decides (a 256^2 square, stacks of 64 products of 16^2 to 64^2; float32 and
float16).
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "rocblas"
_DTYPES = ("float32", "float64", "complex64", "complex128")
_host = harness.standard_normal


def _wide(a):
    return numpy.asarray(a).astype(numpy.complex128 if numpy.asarray(a).dtype.kind == "c" else numpy.float64)


def _compare(name, got, want, dtype, k):
    got = backend.cupy().asnumpy(got)
    rtol = harness.tolerance(dtype, k, factor=16)
    scale = max(1.0, float(numpy.max(numpy.abs(want), initial=0.0)))
    if got.shape != want.shape or not numpy.allclose(got, want, rtol=rtol, atol=rtol * scale):
        raise AssertionError(f"{name} {dtype}: shape {got.shape} vs {want.shape} or values off "
                             f"(max error {float(numpy.max(numpy.abs(got - want), initial=0)):.3e})")


@harness.self_check(_LIB, "facade_products")
def check_facade_products(rng):
    import rocarray as ra

    cupy = backend.cupy()
    for dtype in _DTYPES:
        a = _host(rng, (3, 37, 41), dtype)
        b = _host(rng, (41, 29), dtype)
        da, db = cupy.asarray(a), cupy.asarray(b)
        _compare("matmul stack", ra.matmul(da, db), _wide(a) @ _wide(b), dtype, 41)
        _compare("matmul views", ra.matmul(da[1].T[::2], da[0][:, 1::3]),
                 _wide(a[1].T[::2]) @ _wide(a[0][:, 1::3]), dtype, 37)
        _compare("matmul 1-D", ra.matmul(da[0, 0], db), _wide(a[0, 0]) @ _wide(b), dtype, 41)
        _compare("einsum", ra.einsum("bij,jk->bki", da, db), numpy.einsum("bij,jk->bki", _wide(a), _wide(b)),
                 dtype, 41)
        _compare("tensordot", ra.tensordot(da, da, axes=([0, 2], [0, 2])),
                 numpy.tensordot(_wide(a), _wide(a), axes=([0, 2], [0, 2])), dtype, 123)


def _bench(name, setup, ours, vendor, flops):
    harness.bench_case(BenchCase(name=f"{_LIB}.{name}", library=_LIB, setup=setup, rocarray=ours,
                                 vendor=vendor, flops=flops, memory_bound=False))


def _random(shape, dtype):
    dtype = numpy.dtype(dtype)
    if dtype.itemsize == 2:  # CuPy draws float32 and float64 only
        return backend.cupy().random.standard_normal(shape, dtype=numpy.float32).astype(dtype)
    return backend.cupy().random.standard_normal(shape, dtype=dtype)


def _register_benchmarks():
    import rocarray as ra

    n = 4096
    for dtype in ("float32", "float64"):
        _bench(f"matmul_{n}_{dtype}", lambda d=dtype: (_random((n, n), d), _random((n, n), d)),
               lambda a, b: ra.matmul(a, b), lambda a, b: backend.cupy().matmul(a, b), 2 * n ** 3)
        _bench(f"matmul_T_{n}_{dtype}", lambda d=dtype: (_random((n, n), d), _random((n, n), d)),
               lambda a, b: ra.matmul(a.T, b), lambda a, b: backend.cupy().matmul(a.T, b), 2 * n ** 3)
    batch, e = 4096, 64
    _bench(f"matmul_stack_{batch}x{e}_float32", lambda: (_random((batch, e, e), "float32"),
                                                         _random((batch, e, e), "float32")),
           lambda a, b: ra.matmul(a, b), lambda a, b: backend.cupy().matmul(a, b), 2 * batch * e ** 3)
    # small products, bound by host time per call (the façade's layout mapping and launches)
    _bench("matmul_256_float32", lambda: (_random((256, 256), "float32"), _random((256, 256), "float32")),
           lambda a, b: ra.matmul(a, b), lambda a, b: backend.cupy().matmul(a, b), 2 * 256 ** 3)
    _bench("matmul_stack_64x32_float32", lambda: (_random((64, 32, 32), "float32"), _random((64, 32, 32), "float32")),
           lambda a, b: ra.matmul(a, b), lambda a, b: backend.cupy().matmul(a, b), 2 * 64 * 32 ** 3)
    shape_q, shape_k = (8, 16, 1024, 64), (8, 16, 1024, 64)
    _bench("einsum_attention_float32", lambda: (_random(shape_q, "float32"), _random(shape_k, "float32")),
           lambda q, k: ra.einsum("bhqd,bhkd->bhqk", q, k), lambda q, k: backend.cupy().einsum("bhqd,bhkd->bhqk", q, k),
           2 * 8 * 16 * 1024 * 1024 * 64)

    # the sweeps: float64 and transposed stacks, more small products, float16
    def pair(shape, dtype):
        return lambda: (_random(shape, dtype), _random(shape, dtype))

    for dtype in ("float32", "float64"):
        if dtype != "float32":
            _bench(f"matmul_stack_{batch}x{e}_{dtype}", pair((batch, e, e), dtype), lambda a, b: ra.matmul(a, b),
                   lambda a, b: backend.cupy().matmul(a, b), 2 * batch * e ** 3)
        _bench(f"matmul_T_stack_{batch}x{e}_{dtype}", pair((batch, e, e), dtype),
               lambda a, b: ra.matmul(a.swapaxes(-1, -2), b),
               lambda a, b: backend.cupy().matmul(a.swapaxes(-1, -2), b), 2 * batch * e ** 3)
    _bench("matmul_256_float16", pair((256, 256), "float16"), lambda a, b: ra.matmul(a, b),
           lambda a, b: backend.cupy().matmul(a, b), 2 * 256 ** 3)
    for edge in (64, 32, 16):
        for dtype in ("float32", "float16"):
            if (edge, dtype) != (32, "float32"):
                _bench(f"matmul_stack_64x{edge}_{dtype}", pair((64, edge, edge), dtype), lambda a, b: ra.matmul(a, b),
                       lambda a, b: backend.cupy().matmul(a, b), 2 * 64 * edge ** 3)


_register_benchmarks()
