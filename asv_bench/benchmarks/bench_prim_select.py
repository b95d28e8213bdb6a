"""prim select/search/unique: ``ra.unique``, ``ra.nonzero``, ``ra.flatnonzero``, ``ra.argwhere``,
``ra.extract``, ``ra.compress``, ``ra.searchsorted`` against the CuPy calls (CUB/Thrust underneath), and
the boolean-mask helper ``ra.prim.mask_select`` against ``x[mask]``, on the same data.

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
    function = "nonzero"

    def setup(self, n):
        self.m = cupy.random.random(n, dtype=numpy.float32) < 0.5
        sync()

    def time_rocarray(self, n):
        getattr(ra, self.function)(self.m)
        sync()

    def time_vendor(self, n):
        getattr(cupy, self.function)(self.m)
        sync()


class FlatnonzeroBool(NonzeroBool):
    function = "flatnonzero"


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


class ArgwhereBool(GpuBenchmark):
    """(N, 2) coordinates of the true entries of a square bool mask (50 % true)."""

    params = ([2**12, 2**14],)
    param_names = ["side"]

    def setup(self, side):
        self.m = cupy.random.random((side, side), dtype=numpy.float32) < 0.5
        sync()

    def time_rocarray(self, side):
        ra.argwhere(self.m)
        sync()

    def time_vendor(self, side):
        cupy.argwhere(self.m)
        sync()


class CompressFloat32(GpuBenchmark):
    """50 % of a float32 array by a bool condition: flat (``axis=None``) on n elements, and along
    axis 0 of an (n // 1024, 1024) array (whole rows)."""

    params = ([2**24, 2**28], ["None", "0"])
    param_names = ["n", "axis"]

    def setup(self, n, axis):
        self.axis = None if axis == "None" else int(axis)
        rows = n if self.axis is None else n // 1024
        self.c = cupy.random.random(rows, dtype=numpy.float32) < 0.5
        self.x = cupy.random.random(n, dtype=numpy.float32)
        if self.axis is not None:
            self.x = self.x.reshape(rows, 1024)
        sync()

    def time_rocarray(self, n, axis):
        ra.compress(self.c, self.x, axis=self.axis)
        sync()

    def time_vendor(self, n, axis):
        cupy.compress(self.c, self.x, axis=self.axis)
        sync()


class MaskSelectFloat32(GpuBenchmark):
    """``ra.prim.mask_select(x, mask)`` against ``x[mask]``, 50 % true: a mask of x's shape (one
    value per true entry) and a mask of the leading axis of an (n // 1024, 1024) array (whole rows)."""

    params = ([2**24, 2**28], ["full", "rows"])
    param_names = ["n", "mask"]

    def setup(self, n, mask):
        self.x = cupy.random.random(n, dtype=numpy.float32)
        if mask == "rows":
            self.x = self.x.reshape(n // 1024, 1024)
        self.m = cupy.random.random(self.x.shape[0], dtype=numpy.float32) < 0.5
        sync()

    def time_rocarray(self, n, mask):
        ra.prim.mask_select(self.x, self.m)
        sync()

    def time_vendor(self, n, mask):
        self.x[self.m]
        sync()
