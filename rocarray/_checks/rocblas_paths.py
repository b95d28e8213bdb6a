"""Self-checks of rocblas's paths that only special shapes take (``python -m rocarray``).

Small enough for the sanitizers: the banded gemv (both orientations), packed square float32
batches (the team kernel for 32 x 32, the bulk-copy kernel for 64 x 64 on sm_90), a float32 gemm
whose grid ends in a nearly empty wave (split along k: the split-K finish pass), half-precision
gemms for the wgmma kernel (aligned; long k on one tile, split along k and finished by a second
pass; unaligned columns, packed first), and float32 gemms on the three-TF32 wgmma path (the split
pass with its guard, and the kernel that splits inside). Each result is
compared with a float64 NumPy product.
"""

import numpy

from rocarray._core import backend, harness

_LIB = "rocblas"


def _band(rng, m, n, kl, ku):
    """Band storage (column-major, ``kl + ku + 1`` rows) of a random m x n band matrix, and the
    dense matrix."""
    lda = kl + ku + 1
    band = rng.standard_normal((n, lda))  # column j of the band storage is row j here
    dense = numpy.zeros((m, n))
    for j in range(n):
        for i in range(max(0, j - ku), min(m, j + kl + 1)):
            dense[i, j] = band[j, ku + i - j]
    return band, dense, lda


def _gbmv(rng):
    from rocarray import rocblas

    cupy = backend.cupy()
    m, n, kl, ku = 301, 257, 5, 3
    band, dense, lda = _band(rng, m, n, kl, ku)
    for trans in ("N", "T"):
        lx, ly = (n, m) if trans == "N" else (m, n)
        x = harness.standard_normal(rng, lx, "float32")
        y = harness.standard_normal(rng, ly, "float32")
        dy = cupy.asarray(y)
        rocblas.gbmv(trans, m, n, kl, ku, 1.5, cupy.asarray(band.astype(numpy.float32).ravel()), lda,
                     cupy.asarray(x), 1, -0.5, dy, 1)
        a = dense.astype(numpy.float32).astype(numpy.float64)
        op = a if trans == "N" else a.T
        want = 1.5 * op @ x.astype(numpy.float64) - 0.5 * y
        harness.assert_close(dy, want, "float32", max(m, n), name=f"gbmv {trans}")


def _packed_batches(rng):
    from rocarray import rocblas

    cupy = backend.cupy()
    for size, batch in ((32, 9), (64, 5)):
        a = harness.standard_normal(rng, (batch, size, size), "float32")
        b = harness.standard_normal(rng, (batch, size, size), "float32")
        c = cupy.full((batch, size, size), numpy.nan, numpy.float32)
        s = size * size
        # row-major batches are the column-major products with A and B swapped
        rocblas.gemm_strided_batched("N", "N", size, size, size, 1.0, cupy.asarray(b), size, s,
                                     cupy.asarray(a), size, s, 0.0, c, size, s, batch)
        harness.assert_close(c, a.astype(numpy.float64) @ b, "float32", size, name=f"packed batch {size}")


def _matmul(rng, m, n, k, dtype, name):
    import rocarray as ra

    cupy = backend.cupy()
    a = harness.standard_normal(rng, (m, k), dtype)
    b = harness.standard_normal(rng, (k, n), dtype)
    got = ra.matmul(cupy.asarray(a), cupy.asarray(b))
    harness.assert_close(got, a.astype(numpy.float64) @ b.astype(numpy.float64), dtype, k, name=name)


@harness.self_check(_LIB, "rare_paths")
def check_rare_paths(rng):
    _gbmv(rng)
    _packed_batches(rng)
    # a grid of a few tiles on 132 multiprocessors: its last wave is split along k
    _matmul(rng, 131, 97, 3001, "float32", "float32 gemm, split along k")
    _matmul(rng, 1024, 1024, 512, "float16", "float16 gemm (wgmma)")
    _matmul(rng, 128, 128, 16384, "float16", "float16 gemm, long k on one tile (wgmma split along k)")
    _matmul(rng, 1030, 1030, 1031, "float16", "float16 gemm, unaligned columns (packed for wgmma)")
    _matmul(rng, 1030, 1025, 1031, "float32", "float32 gemm, three-TF32 (split pass)")
    _matmul(rng, 4096, 256, 1024, "float32", "float32 gemm, three-TF32 (split inside the kernel)")
