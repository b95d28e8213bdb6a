"""prim select/search/unique: ``ra.unique``, ``ra.nonzero``, ``ra.extract``, ``ra.searchsorted`` against
the CuPy calls (CUB/Thrust underneath) on the same data.

Every class times ``time_rocarray`` and ``time_vendor`` on fresh random data; both synchronize so asv
measures the device work (the result's size is read back by both sides anyway).
"""

try:  # discovery must work without CuPy; every setup then skips (see _base.py)
    import cupy
except Exception:  # pragma: no cover - machines without CuPy
    cupy = None

import numpy

import rocarray as ra

from ._base import GpuBenchmark, sync


class UniqueInt32(GpuBenchmark):
    """int32 over the full range (bitmap of the range after a two-pass bucket sort) and over 2^20
    values (sort-free counting)."""

    params = ([2**24, 2**28], ["full", "small"])
    param_names = ["n", "range"]

    def setup(self, n, span):
        lo, hi = (-(2**31), 2**31 - 1) if span == "full" else (0, 2**20)
        self.x = cupy.random.randint(lo, hi, n, dtype=numpy.int32)
        sync()

    def time_rocarray(self, n, span):
        ra.unique(self.x)
        sync()

    def time_vendor(self, n, span):
        cupy.unique(self.x)
        sync()


class NonzeroBool(GpuBenchmark):
    params = ([2**24, 2**28],)
    param_names = ["n"]

    def setup(self, n):
        self.m = cupy.random.random(n, dtype=numpy.float32) < 0.5
        sync()

    def time_rocarray(self, n):
        ra.nonzero(self.m)
        sync()

    def time_vendor(self, n):
        cupy.nonzero(self.m)
        sync()


class ExtractFloat32(GpuBenchmark):
    """50% of a float32 array by a bool mask: reads 5 bytes, writes 2 bytes per element."""

    params = ([2**24, 2**28],)
    param_names = ["n"]

    def setup(self, n):
        self.c = cupy.random.random(n, dtype=numpy.float32) < 0.5
        self.x = cupy.random.random(n, dtype=numpy.float32)
        sync()

    def time_rocarray(self, n):
        ra.extract(self.c, self.x)
        sync()

    def time_vendor(self, n):
        cupy.extract(self.c, self.x)
        sync()


class SearchsortedFloat32(GpuBenchmark):
    params = ([2**20, 2**24],)
    param_names = ["n"]

    def setup(self, n):
        self.a = cupy.sort(cupy.random.random(n, dtype=numpy.float32))
        self.v = cupy.random.random(n, dtype=numpy.float32)
        sync()

    def time_rocarray(self, n):
        ra.searchsorted(self.a, self.v)
        sync()

    def time_vendor(self, n):
        cupy.searchsorted(self.a, self.v)
        sync()
