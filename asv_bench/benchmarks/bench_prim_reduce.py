"""prim reductions: ``ra.sum``/``prod``/``min``/``max``/``argmin``/``argmax``/``mean``, the NaN-aware
``nansum``/``nanmin``/``nanmax`` and ``all``/``any``/``count_nonzero`` against CuPy (CUB) on the same data.

Every class times ``time_rocarray`` and ``time_vendor`` on fresh random data; both synchronize so
asv measures the device work. Bytes moved: one read of the input (the result is tiny).
"""

try:  # discovery must work without CuPy; every setup then skips (see _base.py)
    import cupy
except Exception:  # pragma: no cover - machines without CuPy
    cupy = None

import rocarray as ra

from ._base import GpuBenchmark, random_device, sync


class ReduceFull(GpuBenchmark):
    params = ([2**20, 2**24, 2**28], ["sum", "prod", "min", "max", "argmin", "argmax", "mean"],
              ["float32", "float64", "int32"])
    param_names = ["n", "op", "dtype"]

    def setup(self, n, op, dtype):
        self.x = random_device(n, dtype)
        sync()

    def time_rocarray(self, n, op, dtype):
        getattr(ra, op)(self.x)
        sync()

    def time_vendor(self, n, op, dtype):
        getattr(cupy, op)(self.x)
        sync()


class ReduceNan(ReduceFull):
    """NaN-aware reductions of data with about 1 % NaNs (nanmin/nanmax read the result back on both
    sides, for the all-NaN warning)."""

    params = ([2**20, 2**24, 2**28], ["nansum", "nanmin", "nanmax"], ["float32", "float64"])

    def setup(self, n, op, dtype):
        self.x = random_device(n, dtype)
        self.x[cupy.random.random(n, dtype="float32") < 0.01] = float("nan")
        sync()


class ReduceLogical(ReduceFull):
    """``all``/``any``/``count_nonzero`` of a bool mask (fair coin flips) and of float32 data (never zero)."""

    params = ([2**20, 2**24, 2**28], ["all", "any", "count_nonzero"], ["bool", "float32"])


class ReduceAxis(GpuBenchmark):
    """Sum over axis 0 (strided, coalesced along rows) and axis 1 (contiguous rows) of 16384 x 16384 float32."""

    params = ([0, 1],)
    param_names = ["axis"]

    def setup(self, axis):
        self.x = random_device((16384, 16384), "float32")
        sync()

    def time_rocarray(self, axis):
        ra.sum(self.x, axis=axis)
        sync()

    def time_vendor(self, axis):
        cupy.sum(self.x, axis=axis)
        sync()
