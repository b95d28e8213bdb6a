"""rocblas batched gemm: ``gemm_strided_batched`` against ``cupy.matmul`` on the same stacks.

A C-ordered stack product ``a3 @ b3`` (shapes ``(batch, m, k)``, ``(batch, k, n)``) is, in
column-major terms, ``C^T = B^T A^T``: rocarray runs
``gemm_strided_batched('N', 'N', n, m, k, 1, b3, n, k*n, a3, k, m*k, 0, c3, n, m*n, batch)`` on
the very buffers ``cupy.matmul(a3, b3)`` (cuBLAS's strided-batched gemm) reads. Small matrices
(10^5 of 8^2 ... 64^2) are bound by memory bandwidth, 64 of 1024^2 by arithmetic.
"""

try:  # discovery must work without CuPy; every setup then skips (see _base.py)
    import cupy
except Exception:  # pragma: no cover - machines without CuPy
    cupy = None

import rocarray as ra

from ._base import GpuBenchmark, random_device, sync


class GemmStridedBatched(GpuBenchmark):
    params = ([(100000, 8), (100000, 16), (100000, 32), (100000, 64), (64, 1024)], ["float32", "float64"])
    param_names = ["batch_edge", "dtype"]

    def setup(self, batch_edge, dtype):
        batch, edge = batch_edge
        self.a3 = random_device((batch, edge, edge), dtype)
        self.b3 = random_device((batch, edge, edge), dtype)
        self.c3 = cupy.empty((batch, edge, edge), dtype)
        sync()

    def time_rocarray(self, batch_edge, dtype):
        batch, e = batch_edge
        ra.rocblas.gemm_strided_batched("N", "N", e, e, e, 1.0, self.b3, e, e * e, self.a3, e, e * e, 0.0,
                                        self.c3, e, e * e, batch)
        sync()

    def time_vendor(self, batch_edge, dtype):
        cupy.matmul(self.a3, self.b3)
        sync()


class GemmBatchedPointers(GpuBenchmark):
    """Pointer-array mode on 10^4 separate 32 x 32 matrices against cupy.matmul on a stack."""

    params = ([32], ["float32"])
    param_names = ["edge", "dtype"]
    batch = 10000

    def setup(self, edge, dtype):
        self.a3 = random_device((self.batch, edge, edge), dtype)
        self.b3 = random_device((self.batch, edge, edge), dtype)
        self.c3 = cupy.empty((self.batch, edge, edge), dtype)

        def ptrs(x):
            return cupy.asarray([x[i].data.ptr for i in range(self.batch)], dtype=cupy.uint64)

        self.pa, self.pb, self.pc = ptrs(self.a3), ptrs(self.b3), ptrs(self.c3)
        sync()

    def time_rocarray(self, edge, dtype):
        ra.rocblas.gemm_batched("N", "N", edge, edge, edge, 1.0, self.pb, edge, self.pa, edge, 0.0, self.pc, edge,
                                self.batch, dtype=dtype)
        sync()

    def time_vendor(self, edge, dtype):
        cupy.matmul(self.a3, self.b3)
        sync()
