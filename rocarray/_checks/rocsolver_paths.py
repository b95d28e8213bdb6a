"""Self-checks of rocsolver's paths that only batches take (``python -m rocarray``).

Small enough for the sanitizers: a batch of Cholesky solves whose factors fit one block (one
``potrs_small`` launch for the batch) and batched LU factorizations and inverses of orders 24 and
40 (a group of lanes, or a block, per matrix; ``getri``: the zero-pivot scan of the diagonal,
then the solve against identities), checked by their residuals.
"""

import numpy

from rocarray._core import backend, harness

_LIB = "rocsolver"


def _spd(rng, batch, n, dtype):
    a = harness.standard_normal(rng, (batch, n, n), dtype).astype(numpy.complex128)
    return (a @ a.conj().transpose(0, 2, 1) / n + numpy.eye(n)).astype(dtype)


@harness.self_check(_LIB, "batched_paths")
def check_batched_paths(rng):
    from rocarray import rocsolver

    cupy = backend.cupy()
    for dtype in ("float32", "float64", "complex64", "complex128"):
        eps = numpy.finfo(numpy.dtype(dtype)).eps
        batch, n, nrhs = 6, 40, 3
        a = _spd(rng, batch, n, dtype)
        b = harness.standard_normal(rng, (batch, nrhs, n), dtype)  # column-major n x nrhs per system
        da = cupy.asarray(a.transpose(0, 2, 1).ravel())  # column-major factors per system
        info = cupy.zeros(batch, numpy.int32)
        rocsolver.potrf_strided_batched("L", n, da, n, n * n, info, batch)
        db = cupy.asarray(b.ravel())
        rocsolver.potrs_strided_batched("L", n, nrhs, da, n, n * n, db, n, n * nrhs, batch)
        x = cupy.asnumpy(db).reshape(batch, nrhs, n).transpose(0, 2, 1).astype(numpy.complex128)
        rhs = b.transpose(0, 2, 1).astype(numpy.complex128)
        err = numpy.abs(a.astype(numpy.complex128) @ x - rhs).max() / (numpy.abs(rhs).max() * n * eps)
        if not err < 64:
            raise AssertionError(f"potrs_strided_batched {dtype}: residual {err:.1f} n eps")

        for n in (24, 40):  # a group of lanes per matrix; a block per matrix
            # eigenvalues within about 1 of 2: condition number below about 10
            g = harness.standard_normal(rng, (batch, n, n), dtype) / numpy.sqrt(n) + 2 * numpy.eye(n, dtype=dtype)
            dg = cupy.asarray(g.transpose(0, 2, 1).ravel())
            ipiv = cupy.zeros(batch * n, numpy.int32)
            rocsolver.getrf_strided_batched(n, n, dg, n, n * n, ipiv, n, info, batch)
            rocsolver.getri_strided_batched(n, dg, n, n * n, ipiv, n, info, batch)
            inv = cupy.asnumpy(dg).reshape(batch, n, n).transpose(0, 2, 1).astype(numpy.complex128)
            err = numpy.abs(g.astype(numpy.complex128) @ inv - numpy.eye(n)).max() / (n * eps * 64)
            if not err < 1:
                raise AssertionError(f"getri_strided_batched {dtype} n={n}: |A inv(A) - I| too large")
