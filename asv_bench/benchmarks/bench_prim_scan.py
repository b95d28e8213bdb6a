"""prim scans: ``ra.cumsum``/``cumprod``/``nancumsum`` (decoupled look-back kernels) against the CuPy
call of the same name (CUB), and the exclusive and segmented scans of ``ra.prim`` against the nearest
CuPy formulation, on the same data.

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


class Nancumsum1D(GpuBenchmark):
    """Data with about 1 % NaNs (CuPy replaces them by zeros in a pass of its own, then scans)."""

    params = ([2**20, 2**24, 2**28], ["float32", "float64"])
    param_names = ["n", "dtype"]

    def setup(self, n, dtype):
        self.x = random_device(n, dtype)
        self.x[cupy.random.random(n, dtype="float32") < 0.01] = float("nan")
        sync()

    def time_rocarray(self, n, dtype):
        ra.nancumsum(self.x)
        sync()

    def time_vendor(self, n, dtype):
        cupy.nancumsum(self.x)
        sync()


class ExclusiveScan1D(GpuBenchmark):
    """``ra.prim.exclusive_scan`` against ``cupy.cumsum``: CuPy has no exclusive scan, and its
    inclusive one reads and writes the same bytes."""

    params = ([2**20, 2**24, 2**28], ["float32", "int32"])
    param_names = ["n", "dtype"]

    def setup(self, n, dtype):
        self.x = random_device(n, dtype)
        sync()

    def time_rocarray(self, n, dtype):
        ra.prim.exclusive_scan(self.x, axis=0)
        sync()

    def time_vendor(self, n, dtype):
        cupy.cumsum(self.x)
        sync()


class SegmentedScan1D(GpuBenchmark):
    """``ra.prim.segmented_inclusive_scan`` of int32 (int64 sums) with a segment head every ``seg``
    elements on average. CuPy has no segmented scan; the vendor side scans everything and subtracts
    from every element the total before its segment's head (found through a scan of the heads)."""

    params = ([2**24, 2**26], [32, 1000, 100_000])
    param_names = ["n", "seg"]

    def setup(self, n, seg):
        self.x = cupy.random.randint(-1000, 1000, n, dtype="int32")
        self.heads = cupy.random.random(n, dtype="float32") < 1.0 / seg
        self.heads[0] = True  # x[0] starts a segment anyway; the CuPy formulation needs the head
        sync()

    def time_rocarray(self, n, seg):
        ra.prim.segmented_inclusive_scan(self.x, self.heads)
        sync()

    def time_vendor(self, n, seg):
        total = cupy.cumsum(self.x, dtype="int64")
        starts = cupy.flatnonzero(self.heads)
        before = total[starts] - self.x[starts]
        total - before[cupy.cumsum(self.heads, dtype="int32") - 1]
        sync()
