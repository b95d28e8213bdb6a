"""prim scans: ``ra.cumsum`` (decoupled look-back kernels) against ``cupy.cumsum`` (CUB) on the same data.

Every class times ``time_rocarray`` and ``time_vendor`` on fresh random data; both synchronize so
asv measures the device work. Bytes moved: one read of the input and one write of the result.
"""

try:  # discovery must work without CuPy; every setup then skips (see _base.py)
    import cupy
except Exception:  # pragma: no cover - machines without CuPy
    cupy = None

import rocarray as ra

from ._base import GpuBenchmark, random_device, sync


class Cumsum1D(GpuBenchmark):
    params = ([2**20, 2**24, 2**28], ["float32", "float64", "int32"])
    param_names = ["n", "dtype"]

    def setup(self, n, dtype):
        self.x = random_device(n, dtype)
        sync()

    def time_rocarray(self, n, dtype):
        ra.cumsum(self.x)
        sync()

    def time_vendor(self, n, dtype):
        cupy.cumsum(self.x)
        sync()


class CumsumRows(GpuBenchmark):
    """Many short rows (last axis) and a strided axis (axis 0) of a 16384 x 16384 float32 array."""

    params = ([0, 1],)
    param_names = ["axis"]

    def setup(self, axis):
        self.x = random_device(16384 * 16384, "float32").reshape(16384, 16384)
        sync()

    def time_rocarray(self, axis):
        ra.cumsum(self.x, axis=axis)
        sync()

    def time_vendor(self, axis):
        cupy.cumsum(self.x, axis=axis)
        sync()


class Cumprod1D(GpuBenchmark):
    params = ([2**24], ["float32", "complex64"])
    param_names = ["n", "dtype"]

    def setup(self, n, dtype):
        self.x = random_device(n, dtype)
        sync()

    def time_rocarray(self, n, dtype):
        ra.cumprod(self.x)
        sync()

    def time_vendor(self, n, dtype):
        cupy.cumprod(self.x)
        sync()
