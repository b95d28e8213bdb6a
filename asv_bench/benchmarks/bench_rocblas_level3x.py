"""rocblas level 3 beyond gemm (trsm, syrk, symm) against cuBLAS on the same device buffers.

Every matrix is an n x n column-major buffer. The vendor twins: ``dtrsm``/``strsm`` through
CuPy's cuBLAS binding (as ``cupyx.scipy.linalg.solve_triangular`` calls it), ``cupy.cublas.syrk``
(the column-major buffer seen row-major is the transpose, so ``M^T M`` is the same product), and
for symm cuBLAS gemm through ``cupy.matmul`` on the same bytes (the same flops; CuPy has no
symm). Each ``time_*`` runs once and synchronizes.
"""

try:  # discovery must work without CuPy; every setup then skips (see _base.py)
    import cupy
    import cupy.cublas
except Exception:  # pragma: no cover - machines without CuPy
    cupy = None

import numpy

import rocarray as ra

from ._base import GpuBenchmark, random_device, sync


class Trsm(GpuBenchmark):
    """Left, lower, no transpose: ``op(A) X = B`` with n right-hand sides (flops n^3)."""

    params = ([2048, 8192], ["float32", "float64"])
    param_names = ["n", "dtype"]

    def setup(self, n, dtype):
        # unit-size diagonal, small off-diagonal part: repeated in-place solves keep B's scale
        self.a = random_device(n * n, dtype) / n
        k = cupy.arange(n)
        self.a[k + k * n] = 1
        self.b = random_device(n * n, dtype)
        sync()

    def time_rocarray(self, n, dtype):
        ra.rocblas.trsm("L", "L", "N", "N", n, n, 1.0, self.a, n, self.b, n)
        sync()

    def time_vendor(self, n, dtype):
        from cupy_backends.cuda.libs import cublas

        handle = cupy.cuda.device.get_cublas_handle()
        one = numpy.array(1.0, dtype=dtype)
        cublas.setPointerMode(handle, cublas.CUBLAS_POINTER_MODE_HOST)
        fn = cublas.dtrsm if dtype == "float64" else cublas.strsm
        fn(handle, cublas.CUBLAS_SIDE_LEFT, cublas.CUBLAS_FILL_MODE_LOWER, cublas.CUBLAS_OP_N,
           cublas.CUBLAS_DIAG_NON_UNIT, n, n, one.ctypes.data, self.a.data.ptr, n, self.b.data.ptr, n)
        sync()


class Syrk(GpuBenchmark):
    """``C := A A^T`` (lower triangle), A n x n (flops n^3)."""

    params = ([2048, 8192], ["float32", "float64"])
    param_names = ["n", "dtype"]

    def setup(self, n, dtype):
        self.a = random_device(n * n, dtype)
        self.c = cupy.zeros(n * n, dtype)
        sync()

    def time_rocarray(self, n, dtype):
        ra.rocblas.syrk("L", "N", n, n, 1.0, self.a, n, 0.0, self.c, n)
        sync()

    def time_vendor(self, n, dtype):
        cupy.cublas.syrk("T", self.a.reshape(n, n), out=self.c.reshape(n, n), alpha=1.0, beta=0.0, lower=False)
        sync()


class Symm(GpuBenchmark):
    """``C := A B`` with A symmetric (upper triangle stored) against a gemm of the same size."""

    params = ([2048, 8192], ["float32"])
    param_names = ["n", "dtype"]

    def setup(self, n, dtype):
        self.a = random_device(n * n, dtype)
        self.b = random_device(n * n, dtype)
        self.c = cupy.zeros(n * n, dtype)
        sync()

    def time_rocarray(self, n, dtype):
        ra.rocblas.symm("L", "U", n, n, 1.0, self.a, n, self.b, n, 0.0, self.c, n)
        sync()

    def time_vendor(self, n, dtype):
        cupy.matmul(self.b.reshape(n, n), self.a.reshape(n, n), out=self.c.reshape(n, n))
        sync()
