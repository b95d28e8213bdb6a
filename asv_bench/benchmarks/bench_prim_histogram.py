"""prim histograms: rocarray's ``bincount``/``histogram`` against CuPy's, on the same device data.

Every class times ``time_rocarray`` and ``time_vendor`` on fresh random data of ``n`` elements;
both synchronize so asv measures the device work. ``bincount`` reads int32 values in ``[0, bins)``;
``histogram`` reads standard-normal float32 values with an explicit range (no min/max pass) or,
in ``HistogramAutoRange``, with the range found from the data (NumPy's default).
"""

try:  # discovery must work without CuPy; every setup then skips (see _base.py)
    import cupy
except Exception:  # pragma: no cover - machines without CuPy
    cupy = None

import rocarray._numpy.histograms as _hist

from ._base import GpuBenchmark, sync


class Bincount(GpuBenchmark):
    params = ([2**20, 2**28], [256, 100_000])
    param_names = ["n", "bins"]

    def setup(self, n, bins):
        self.x = cupy.random.randint(0, bins, size=n, dtype="int32")
        sync()

    def time_rocarray(self, n, bins):
        _hist.bincount(self.x)
        sync()

    def time_vendor(self, n, bins):
        cupy.bincount(self.x)
        sync()


class BincountWeighted(GpuBenchmark):
    params = ([2**20, 2**26], [256])
    param_names = ["n", "bins"]

    def setup(self, n, bins):
        self.x = cupy.random.randint(0, bins, size=n, dtype="int32")
        self.w = cupy.random.standard_normal(n)
        sync()

    def time_rocarray(self, n, bins):
        _hist.bincount(self.x, weights=self.w)
        sync()

    def time_vendor(self, n, bins):
        cupy.bincount(self.x, weights=self.w)
        sync()


class Histogram(GpuBenchmark):
    params = ([2**20, 2**28], [1024, 100_000])
    param_names = ["n", "bins"]

    def setup(self, n, bins):
        self.a = cupy.random.standard_normal(n, dtype="float32")
        sync()

    def time_rocarray(self, n, bins):
        _hist.histogram(self.a, bins=bins, range=(-4.0, 4.0))
        sync()

    def time_vendor(self, n, bins):
        cupy.histogram(self.a, bins=bins, range=(-4.0, 4.0))
        sync()


class HistogramAutoRange(GpuBenchmark):
    params = ([2**20, 2**28], [1024])
    param_names = ["n", "bins"]

    def setup(self, n, bins):
        self.a = cupy.random.standard_normal(n, dtype="float32")
        sync()

    def time_rocarray(self, n, bins):
        _hist.histogram(self.a, bins=bins)
        sync()

    def time_vendor(self, n, bins):
        cupy.histogram(self.a, bins=bins)
        sync()
