"""rocblas level 1: rocarray's kernels against the vendor path CuPy takes, on the same device data.

Every class times ``time_rocarray`` and ``time_vendor`` on fresh random data of ``n`` elements;
both synchronize so asv measures the device work. The vendor is cuBLAS (``cupy.dot``,
``cupy.cublas``) where CuPy uses it, else CuPy's own kernels (``cupy.linalg.norm``,
``abs(x).sum()``, ``argmax(abs(x))``, ``y[...] = x``).
"""

try:  # discovery must work without CuPy; every setup then skips (see _base.py)
    import cupy
    import cupy.cublas
except Exception:  # pragma: no cover - machines without CuPy
    cupy = None

import rocarray as ra

from ._base import GpuBenchmark, random_device, sync

_PARAMS = ([2**20, 2**26], ["float32", "float64"])
_NAMES = ["n", "dtype"]


class _Level1(GpuBenchmark):
    params = _PARAMS
    param_names = _NAMES
    vectors = 1

    def setup(self, n, dtype):
        self.x = random_device(n, dtype)
        self.y = random_device(n, dtype) if self.vectors == 2 else None
        sync()


class Dot(_Level1):
    vectors = 2

    def time_rocarray(self, n, dtype):
        ra.rocblas.dot(n, self.x, 1, self.y, 1)
        sync()

    def time_vendor(self, n, dtype):
        cupy.dot(self.x, self.y)
        sync()


class Axpy(_Level1):
    vectors = 2

    def time_rocarray(self, n, dtype):
        ra.rocblas.axpy(n, 0.5, self.x, 1, self.y, 1)
        sync()

    def time_vendor(self, n, dtype):
        cupy.cublas.axpy(0.5, self.x, self.y)
        sync()


class Scal(_Level1):
    def time_rocarray(self, n, dtype):
        ra.rocblas.scal(n, 0.999, self.x, 1)
        sync()

    def time_vendor(self, n, dtype):
        cupy.cublas.scal(0.999, self.x)
        sync()


class Copy(_Level1):
    vectors = 2

    def time_rocarray(self, n, dtype):
        ra.rocblas.copy(n, self.x, 1, self.y, 1)
        sync()

    def time_vendor(self, n, dtype):
        self.y[...] = self.x
        sync()


class Nrm2(_Level1):
    def time_rocarray(self, n, dtype):
        ra.rocblas.nrm2(n, self.x, 1)
        sync()

    def time_vendor(self, n, dtype):
        cupy.linalg.norm(self.x)
        sync()


class Asum(_Level1):
    def time_rocarray(self, n, dtype):
        ra.rocblas.asum(n, self.x, 1)
        sync()

    def time_vendor(self, n, dtype):
        cupy.abs(self.x).sum()
        sync()


class Iamax(_Level1):
    def time_rocarray(self, n, dtype):
        ra.rocblas.iamax(n, self.x, 1)
        sync()

    def time_vendor(self, n, dtype):
        cupy.argmax(cupy.abs(self.x))
        sync()


class Norm(_Level1):
    """The façade: ``ra.linalg.norm`` against ``cupy.linalg.norm``."""

    def time_rocarray(self, n, dtype):
        ra.linalg.norm(self.x)
        sync()

    def time_vendor(self, n, dtype):
        cupy.linalg.norm(self.x)
        sync()


class _Gemv(GpuBenchmark):
    """gemv on a column-major n x n float32 buffer (lda = n) against cuBLAS through ``cupy.matmul``
    on the same memory seen row-major (M = A^T: 'N' is ``M.T @ x``, 'T' is ``M @ x``)."""

    params = ([4096, 16384], ["float32"])
    param_names = ["n", "dtype"]
    trans = "N"

    def setup(self, n, dtype):
        self.a = random_device(n * n, dtype)
        self.x = random_device(n, dtype)
        self.y = cupy.zeros(n, dtype)
        self.m = self.a.reshape(n, n)
        sync()

    def time_rocarray(self, n, dtype):
        ra.rocblas.gemv(self.trans, n, n, 1.0, self.a, n, self.x, 1, 0.0, self.y, 1)
        sync()

    def time_vendor(self, n, dtype):
        cupy.matmul(self.m.T if self.trans == "N" else self.m, self.x, out=self.y)
        sync()


class GemvN(_Gemv):
    trans = "N"


class GemvT(_Gemv):
    trans = "T"


class _Gbmv(GpuBenchmark):
    """gbmv on band storage of n columns, kl = ku = 64 (lda = 129). CuPy exposes no gbmv: the
    vendor twin is a device memcpy moving the same bytes (band + x + y), i.e. the copy floor."""

    params = ([16384], ["float32"])
    param_names = ["n", "dtype"]
    trans = "N"
    k = 64

    def setup(self, n, dtype):
        rows = 2 * self.k + 1
        self.a = random_device(rows * n, dtype)
        self.x = random_device(n, dtype)
        self.y = cupy.zeros(n, dtype)
        self.scratch = cupy.empty((rows * n + 2 * n) * self.a.itemsize // 2, "uint8")
        sync()

    def time_rocarray(self, n, dtype):
        k = self.k
        ra.rocblas.gbmv(self.trans, n, n, k, k, 1.0, self.a, 2 * k + 1, self.x, 1, 0.0, self.y, 1)
        sync()

    def time_vendor(self, n, dtype):
        self.scratch.data.copy_from_device_async(self.a.data, self.scratch.nbytes)
        sync()


class GbmvN(_Gbmv):
    trans = "N"


class GbmvT(_Gbmv):
    trans = "T"


class Sbmv(GpuBenchmark):
    """sbmv 'U' on band storage of n columns, k = 64 (lda = 65), against cuBLAS ssbmv/dsbmv
    through ``cupy.cublas.sbmv`` on the same memory as an (lda, n) Fortran-ordered array."""

    params = ([16384], ["float32"])
    param_names = ["n", "dtype"]
    k = 64

    def setup(self, n, dtype):
        self.a = random_device((self.k + 1) * n, dtype)
        self.x = random_device(n, dtype)
        self.y = cupy.zeros(n, dtype)
        self.band = self.a.reshape(n, self.k + 1).T
        sync()

    def time_rocarray(self, n, dtype):
        ra.rocblas.sbmv("U", n, self.k, 1.0, self.a, self.k + 1, self.x, 1, 0.0, self.y, 1)
        sync()

    def time_vendor(self, n, dtype):
        cupy.cublas.sbmv(self.k, 1.0, self.band, self.x, 0.0, self.y)
        sync()


class Gemm(GpuBenchmark):
    """gemm 'N','N' on column-major buffers (C = A B) against cuBLAS through ``cupy.matmul`` on the
    same memory seen row-major (``C^T = B^T A^T``); the issue's square and awkward shapes."""

    params = (["1000x1000x1000", "4097x4097x4097", "8192x8192x8192", "64x8192x8192", "256x256x65536"],
              ["float32", "float64"])
    param_names = ["mnk", "dtype"]

    def setup(self, mnk, dtype):
        self.m, self.n, self.k = (int(v) for v in mnk.split("x"))
        self.a = random_device(self.m * self.k, dtype)
        self.b = random_device(self.k * self.n, dtype)
        self.c = cupy.zeros(self.m * self.n, dtype)
        sync()

    def time_rocarray(self, mnk, dtype):
        m, n, k = self.m, self.n, self.k
        ra.rocblas.gemm("N", "N", m, n, k, 1.0, self.a, m, self.b, k, 0.0, self.c, m)
        sync()

    def time_vendor(self, mnk, dtype):
        m, n, k = self.m, self.n, self.k
        cupy.matmul(self.b.reshape(n, k), self.a.reshape(k, m), out=self.c.reshape(n, m))
        sync()


class GemmBiasGelu(GpuBenchmark):
    """gemm with the fused bias + GELU epilogue against cuBLAS plus CuPy element-wise bias and
    GELU (the unfused path a NumPy-style script takes)."""

    params = ([4096], ["float32", "float16"])
    param_names = ["n", "dtype"]

    def setup(self, n, dtype):
        self.a = random_device(n * n, dtype)
        self.b = random_device(n * n, dtype)
        self.bias = random_device(n, dtype)
        self.c = cupy.zeros(n * n, dtype)
        sync()

    def time_rocarray(self, n, dtype):
        ra.rocblas.gemm("N", "N", n, n, n, 1.0, self.a, n, self.b, n, 0.0, self.c, n, bias=self.bias,
                        activation="gelu")
        sync()

    def time_vendor(self, n, dtype):
        import cupyx.scipy.special

        y = cupy.matmul(self.b.reshape(n, n), self.a.reshape(n, n)) + self.bias
        0.5 * y * (1 + cupyx.scipy.special.erf(y * 0.7071067811865476))
        sync()
