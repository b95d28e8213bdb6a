"""prim radix sort: ``ra.sort``/``argsort``/``lexsort``/``partition`` against the CuPy call of the same
name (CUB/Thrust), and the key-value and segmented sorts of ``ra.prim`` against the nearest CuPy
formulation, on the same data.

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


class SortPairs1D(GpuBenchmark):
    """``ra.prim.radix_sort_pairs`` of full-range int32 keys with float32 or int64 values. CuPy has no
    key-value sort: the vendor side is ``cupy.argsort`` of the keys, then keys and values gathered."""

    params = ([2**20, 2**24, 2**28], ["float32", "int64"])
    param_names = ["n", "values"]

    def setup(self, n, values):
        self.k = _full_range(n, "int32")
        self.v = random_device(n, values)
        sync()

    def time_rocarray(self, n, values):
        ra.prim.radix_sort_pairs(self.k, self.v)
        sync()

    def time_vendor(self, n, values):
        perm = cupy.argsort(self.k)
        self.k[perm], self.v[perm]
        sync()


class SegmentedSort(GpuBenchmark):
    """``ra.prim.segmented_radix_sort_keys`` of 2**26 float32 keys in equal segments of ``seg`` keys,
    against ``cupy.sort`` along the last axis of the (segments, seg) view (the same sort)."""

    params = ([2**4, 2**10, 2**16],)
    param_names = ["seg"]

    def setup(self, seg):
        n = 2**26
        self.x = random_device(n, "float32")
        self.offsets = cupy.arange(0, n + 1, seg, dtype="int64")
        sync()

    def time_rocarray(self, seg):
        ra.prim.segmented_radix_sort_keys(self.x, self.offsets)
        sync()

    def time_vendor(self, seg):
        cupy.sort(self.x.reshape(-1, seg), axis=-1)
        sync()


class Lexsort(GpuBenchmark):
    """``k`` int32 keys as one (k, n) array: full range, except the primary (last) key, which takes
    1024 values so that ties are common."""

    params = ([2**20, 2**24, 2**26], [2, 3])
    param_names = ["n", "k"]

    def setup(self, n, k):
        self.keys = cupy.empty((k, n), dtype="int32")
        for i in range(k - 1):
            self.keys[i] = _full_range(n, "int32")
        self.keys[k - 1] = cupy.random.randint(0, 1024, n, dtype="int32")
        sync()

    def time_rocarray(self, n, k):
        ra.lexsort(self.keys)
        sync()

    def time_vendor(self, n, k):
        cupy.lexsort(self.keys)
        sync()


class Partition(GpuBenchmark):
    """float32 partitioned at a small ``kth`` (CuPy's selection kernel) and at the middle (CuPy then
    sorts the whole array); rocarray always returns the full sort."""

    params = ([2**20, 2**24, 2**26], ["100", "middle"])
    param_names = ["n", "kth"]

    def setup(self, n, kth):
        self.x = random_device(n, "float32")
        self.kth = 100 if kth == "100" else n // 2
        sync()

    def time_rocarray(self, n, kth):
        ra.partition(self.x, self.kth)
        sync()

    def time_vendor(self, n, kth):
        cupy.partition(self.x, self.kth)
        sync()
