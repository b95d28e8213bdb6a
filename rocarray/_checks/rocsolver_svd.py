"""Self-check and vendor-ratio benchmark cases of the Jacobi SVD (``python -m rocarray``).

The self-check decomposes small fresh random stacks (the one-launch path), one matrix past the
64-column limit (the per-round path) and one past ``BLOCK_Q`` (the block path) in every dtype through :func:`rocarray.linalg.svd` and
compares with NumPy in float64: singular values, ``U S V^H = A``, orthonormal U and V. The
benchmark cases time ``ra.linalg.svd`` against ``cupy.linalg.svd`` (cuSOLVER) on the same device
arrays: one 2048 x 2048 float64 matrix, and 10^4 stacked 32 x 32 float32 matrices.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "rocsolver"
_DTYPES = ("float32", "float64", "complex64", "complex128")


def _check_one(a, got, dtype):
    u, s, vh = (backend.cupy().asnumpy(x).astype(numpy.complex128) for x in got)
    wide = a.astype(numpy.complex128)
    m, n = a.shape[-2:]
    k = min(m, n)
    eps = float(numpy.finfo(numpy.dtype(dtype)).eps) * max(m, n, 16)
    want = numpy.linalg.svd(wide, compute_uv=False)
    scale = numpy.max(want, axis=-1, keepdims=True)
    err = float(numpy.max(numpy.abs(s - want) / scale))
    if err > 30 * eps:
        raise AssertionError(f"svd {a.shape} {dtype}: singular values off by {err:.3e} (relative)")
    rebuilt = (u[..., :k] * s[..., None, :]) @ vh[..., :k, :]
    err = float(numpy.max(numpy.linalg.norm(rebuilt - wide, axis=(-2, -1)) / numpy.linalg.norm(wide, axis=(-2, -1))))
    if err > 10 * eps:
        raise AssertionError(f"svd {a.shape} {dtype}: |U S V^H - A| / |A| = {err:.3e}")
    for name, q, gram in (("U", u, numpy.swapaxes(u.conj(), -1, -2) @ u),
                          ("V", vh, vh @ numpy.swapaxes(vh.conj(), -1, -2))):
        err = float(numpy.max(numpy.abs(gram - numpy.eye(gram.shape[-1]))))
        if err > 10 * eps:
            raise AssertionError(f"svd {a.shape} {dtype}: {name} not orthonormal ({err:.3e})")


@harness.self_check(_LIB, "svd")
def check_svd(rng):
    import rocarray as ra

    cupy = backend.cupy()
    for dtype in _DTYPES:
        for shape in ((3, 20, 13), (2, 9, 30), (70, 90), (300, 260)):
            a = harness.standard_normal(rng, shape, dtype)
            _check_one(a, ra.linalg.svd(cupy.asarray(a)), dtype)


# --------------------------------------------------------------------------------------------
# benchmark cases against cuSOLVER (cupy.linalg.svd) on the same device arrays
# --------------------------------------------------------------------------------------------

def _svd_case(shape, dtype, flops):
    def setup():
        cupy = backend.cupy()
        return (cupy.random.standard_normal(shape, dtype=numpy.dtype(dtype)),)

    def ours(a):
        import rocarray as ra

        ra.linalg.svd(a)

    def vendor(a):
        backend.cupy().linalg.svd(a)

    label = "x".join(map(str, shape))
    harness.bench_case(BenchCase(name=f"{_LIB}.svd_{label}_{dtype}", library=_LIB, setup=setup, rocarray=ours,
                                 vendor=vendor, flops=flops, memory_bound=False))


# Nominal flops of a full SVD with both vector sets, 4 m^2 n + 8 m n^2 + 9 n^3 (Golub and Van Loan,
# "Matrix Computations", table 8.6.1; 21 n^3 for a square matrix).
_svd_case((2048, 2048), "float64", 21 * 2048 ** 3)
_svd_case((10_000, 32, 32), "float32", 10_000 * 21 * 32 ** 3)
