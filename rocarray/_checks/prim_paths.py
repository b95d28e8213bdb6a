"""Self-checks of prim's paths that only larger or special inputs take (``python -m rocarray``).

Small enough for the sanitizers: ``unique`` of 2^20 int32 and int64 values spread over 2^24 (the
bitmap path: mark or offsets, count and emit), a weighted histogram over uneven edges (the range-search weighted
kernel) and one whose per-block partials are many (the wide merge), and a scan along the middle
axis of a few long lines (each line cut into segments: the segment totals pass). Each result is
compared with NumPy's.
"""

import numpy

from rocarray._core import backend, harness

_LIB = "prim"


def _weighted_histograms(rng):
    import rocarray as ra

    cupy = backend.cupy()
    v = harness.standard_normal(rng, 100_003, "float64")
    w = rng.random(100_003)
    edges = numpy.sort(rng.uniform(-3, 3, 41))
    counts, _ = ra.histogram(cupy.asarray(v), bins=cupy.asarray(edges), weights=cupy.asarray(w))
    want, _ = numpy.histogram(v, bins=edges, weights=w)
    harness.assert_close(counts, want, "float64", 100_003, name="histogram, uneven edges, weighted")

    big = harness.standard_normal(rng, 1 << 22, "float32")
    wb = rng.random(1 << 22).astype(numpy.float32)
    counts, _ = ra.histogram(cupy.asarray(big), bins=64, range=(-4, 4), weights=cupy.asarray(wb))
    want, _ = numpy.histogram(big.astype(numpy.float64), bins=64, range=(-4, 4), weights=wb.astype(numpy.float64))
    harness.assert_close(counts, want, "float32", 1 << 22, name="histogram, 64 bins, weighted, many partials")


def _line_scan(rng):
    import rocarray as ra

    lines = harness.standard_normal(rng, (2, 200_003, 8), "float32")
    got = ra.cumsum(backend.cupy().asarray(lines), axis=1)
    harness.assert_close(got, numpy.cumsum(lines.astype(numpy.float64), axis=1), "float32", 200_003,
                         name="cumsum of 16 long lines along the middle axis")


def _unique_bitmap(rng):
    import rocarray as ra

    cupy = backend.cupy()
    for dtype in ("int32", "int64"):
        x = rng.integers(-(1 << 23), 1 << 23, 1 << 20).astype(dtype)
        got = cupy.asnumpy(ra.unique(cupy.asarray(x)))
        if not numpy.array_equal(got, numpy.unique(x)):
            raise AssertionError(f"unique {dtype} (bitmap path): differs from NumPy")


@harness.self_check(_LIB, "rare_paths")
def check_rare_paths(rng):
    _weighted_histograms(rng)
    _line_scan(rng)
    # last: the path is chosen from the data's minimum and maximum, read back from the device
    _unique_bitmap(rng)
