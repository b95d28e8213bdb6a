"""NumPy-named products on rocblas GEMM (``ra.matmul``, ``ra.einsum``) against CuPy's on the same arrays.

``ra.matmul`` maps C-ordered and transposed operands onto column-major GEMM without copies
(``C^T = B^T A^T``); the vendor twin is ``cupy.matmul`` (cuBLAS). Large squares are bound by
arithmetic (4096^3 float32: 137 GFLOP), stacks of 64^2 products by both (4096 x 64^3 x 2 =
2.1 GFLOP over 200 MB); small products (a 256^2 square, 64 products of 16^2 .. 64^2) are bound
by host time per call; the einsum is an attention score ``QK^T`` (8 x 16 heads of 1024 x 64).
"""

try:  # discovery must work without CuPy; every setup then skips (see _base.py)
    import cupy
except Exception:  # pragma: no cover - machines without CuPy
    cupy = None

import rocarray as ra

from ._base import GpuBenchmark, random_device, sync


class Matmul(GpuBenchmark):
    params = ([(1, 4096), (4096, 64)], ["float32", "float64"], ["C", "T"])
    param_names = ["batch_edge", "dtype", "layout"]

    def setup(self, batch_edge, dtype, layout):
        batch, e = batch_edge
        shape = (e, e) if batch == 1 else (batch, e, e)
        self.a = random_device(shape, dtype)
        self.b = random_device(shape, dtype)
        if layout == "T":
            self.a = self.a.swapaxes(-1, -2)
        sync()

    def time_rocarray(self, batch_edge, dtype, layout):
        ra.matmul(self.a, self.b)
        sync()

    def time_vendor(self, batch_edge, dtype, layout):
        cupy.matmul(self.a, self.b)
        sync()


class MatmulSmall(GpuBenchmark):
    """Products small enough that host time decides: 20 calls back to back, then one sync (the
    time over 20 is the cost of a call)."""

    params = ([(1, 256), (64, 64), (64, 32), (64, 16)], ["float32", "float16"])
    param_names = ["batch_edge", "dtype"]
    calls = 20

    def setup(self, batch_edge, dtype):
        batch, e = batch_edge
        shape = (e, e) if batch == 1 else (batch, e, e)
        self.a = random_device(shape, dtype)
        self.b = random_device(shape, dtype)
        sync()

    def time_rocarray(self, batch_edge, dtype):
        for _ in range(self.calls):
            ra.matmul(self.a, self.b)
        sync()

    def time_vendor(self, batch_edge, dtype):
        for _ in range(self.calls):
            cupy.matmul(self.a, self.b)
        sync()


class EinsumAttention(GpuBenchmark):
    params = (["float32"],)
    param_names = ["dtype"]

    def setup(self, dtype):
        self.q = random_device((8, 16, 1024, 64), dtype)
        self.k = random_device((8, 16, 1024, 64), dtype)
        sync()

    def time_rocarray(self, dtype):
        ra.einsum("bhqd,bhkd->bhqk", self.q, self.k)
        sync()

    def time_vendor(self, dtype):
        cupy.einsum("bhqd,bhkd->bhqk", self.q, self.k)
        sync()
