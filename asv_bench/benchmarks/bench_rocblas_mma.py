"""rocblas matrix-core gemm (float16; bfloat16 with ml_dtypes) against ``cupy.matmul`` (cuBLAS).

``C = A B`` on n x n column-major buffers is, for CuPy's row-major view of the same bytes,
``C^T = B^T A^T``: the vendor twin runs ``cupy.matmul(b, a, out=c)`` on the very buffers rocarray
reads (cuBLAS on the tensor cores, float32 accumulation). 8192^3 is bound by the tensor cores
(2 n^3 = 1.1 PFLOP; H200 dense f16 peak ~990 TFLOP/s, cuBLAS measured 738), 2048^3 partly by
the number of 128 x 128 tiles (256 blocks on 132 SMs).
"""

try:  # discovery must work without CuPy; every setup then skips (see _base.py)
    import cupy
except Exception:  # pragma: no cover - machines without CuPy
    cupy = None

from ._base import GpuBenchmark, random_device, sync


def _dtypes():
    import importlib.util

    # CuPy carries bfloat16 arrays (the ml_dtypes dtype) only where ml_dtypes is installed
    return ["float16", "bfloat16"] if importlib.util.find_spec("ml_dtypes") else ["float16"]


class GemmMma(GpuBenchmark):
    params = ([2048, 8192], _dtypes())
    param_names = ["n", "dtype"]

    def setup(self, n, dtype):
        import numpy

        from rocarray.rocblas._gemm import half, mma

        dt = numpy.dtype(numpy.float16) if dtype == "float16" else mma.bfloat16_dtype()
        self.dt = dt
        self.gemm = half.launch
        self.a = random_device(n * n, "float32").astype(dt)
        self.b = random_device(n * n, "float32").astype(dt)
        self.c = cupy.zeros(n * n, dt)
        sync()

    def time_rocarray(self, n, dtype):
        self.gemm(self.a.data.device_id, self.dt, "N", "N", n, n, n, 1.0, self.a.data, n, self.b.data, n, 0.0,
                  self.c.data, n)
        sync()

    def time_vendor(self, n, dtype):
        cupy.matmul(self.b.reshape(n, n), self.a.reshape(n, n), out=self.c.reshape(n, n))
        sync()
