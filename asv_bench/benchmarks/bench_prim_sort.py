"""prim radix sort: ``ra.sort``/``ra.argsort`` against ``cupy.sort``/``cupy.argsort`` (CUB) on the same data.

Every class times ``time_rocarray`` and ``time_vendor`` on fresh random data; both synchronize so
asv measures the device work. Bytes moved per pass: one read and one write of the keys (and
values); 32-bit keys take 4 passes (fewer when a digit is constant), 8/16-bit keys 1/2.
"""

try:  # discovery must work without CuPy; every setup then skips (see _base.py)
    import cupy
except Exception:  # pragma: no cover - machines without CuPy
    cupy = None

import rocarray as ra

from ._base import GpuBenchmark, random_device, sync


def _full_range(n, dtype):
    """Uniform keys over the whole range of an integer dtype (every digit varies)."""
    import numpy

    info = numpy.iinfo(dtype)
    return cupy.random.randint(int(info.min), int(info.max), n, dtype=numpy.int64).astype(dtype)


class Sort1D(GpuBenchmark):
    params = ([2**20, 2**24, 2**28], ["float32", "int32", "uint8", "uint16", "float64"])
    param_names = ["n", "dtype"]

    def setup(self, n, dtype):
        self.x = random_device(n, dtype) if dtype.startswith("float") else _full_range(n, dtype)
        sync()

    def time_rocarray(self, n, dtype):
        ra.sort(self.x)
        sync()

    def time_vendor(self, n, dtype):
        cupy.sort(self.x)
        sync()


class Argsort1D(GpuBenchmark):
    params = ([2**20, 2**24, 2**28], ["int32", "float32"])
    param_names = ["n", "dtype"]

    def setup(self, n, dtype):
        self.x = random_device(n, dtype) if dtype.startswith("float") else _full_range(n, dtype)
        sync()

    def time_rocarray(self, n, dtype):
        ra.argsort(self.x)
        sync()

    def time_vendor(self, n, dtype):
        cupy.argsort(self.x)
        sync()


class SortRows(GpuBenchmark):
    """Sort along the last axis of a (rows, n) float32 array of 2**24 elements."""

    params = ([2**4, 2**10, 2**16],)
    param_names = ["n"]

    def setup(self, n):
        self.x = random_device(2**24, "float32").reshape(-1, n)
        sync()

    def time_rocarray(self, n):
        ra.sort(self.x, axis=-1)
        sync()

    def time_vendor(self, n):
        cupy.sort(self.x, axis=-1)
        sync()
