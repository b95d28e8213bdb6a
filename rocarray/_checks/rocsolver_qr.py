"""Self-checks and vendor-ratio benchmark cases of rocsolver's Householder QR (``python -m rocarray``).

The self-check factors small fresh random matrices (sizes crossing the 32-column leaves and the
128-column panels, a stack for the one-launch batched kernel, and a 1100 x 40 matrix whose leaves
are tall enough for the thread-block cluster leaf on NVIDIA sm_90+ and, factored again with that
leaf off, for the device-wide leaf) with ``ra.linalg.qr`` in every dtype and checks
``||Q R - A|| / ||A||``, ``||Q^H Q - I||`` and R against NumPy (LAPACK), and ``gels`` against
``numpy.linalg.lstsq``. Benchmark cases time ``ra.linalg.qr`` against
``cupy.linalg.qr`` (cuSOLVER geqrf/orgqr) on the same float64 4096^2 array, modes ``'reduced'``
and ``'r'``, and ``geqrf_strided_batched`` on 10^4 32 x 32 float64 matrices against
``cupy.linalg.qr(mode='r')`` on the same stack.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "rocsolver"
_DTYPES = ("float32", "float64", "complex64", "complex128")


def _check_qr(name, a, q, r, dtype):
    eps = harness.machine_epsilon(dtype)
    m, n = a.shape[-2:]
    k = min(m, n)
    tol = 30 * eps * max(m, n)
    wide = a.astype(numpy.complex128)
    q, r = q.astype(numpy.complex128), r.astype(numpy.complex128)
    err = numpy.linalg.norm(q @ r - wide) / max(numpy.linalg.norm(wide), 1e-300)
    orth = numpy.linalg.norm(q.conj().swapaxes(-1, -2) @ q - numpy.eye(k))
    if err > tol or orth > tol:
        raise AssertionError(f"{name}: ||QR - A||/||A|| = {err:.2e}, ||Q^H Q - I|| = {orth:.2e} > {tol:.2e}")
    if not numpy.allclose(r, numpy.triu(r)):
        raise AssertionError(f"{name}: R is not upper triangular")
    want = numpy.abs(numpy.diagonal(numpy.linalg.qr(wide, mode="r"), axis1=-2, axis2=-1))
    got = numpy.abs(numpy.diagonal(r, axis1=-2, axis2=-1))
    if not numpy.allclose(got, want, rtol=100 * tol, atol=100 * tol * float(numpy.abs(wide).max())):
        raise AssertionError(f"{name}: |diag(R)| differs from LAPACK's")


@harness.self_check(_LIB, "qr")
def check_qr(rng):
    import rocarray as ra
    from rocarray.rocsolver import _qr_kernels

    cupy = backend.cupy()
    for dtype in _DTYPES:
        for shape in ((45, 30), (30, 45), (300, 161), (50, 12, 12), (1100, 40)):
            a = harness.standard_normal(rng, shape, dtype)
            q, r = ra.linalg.qr(cupy.asarray(a))
            _check_qr(f"qr {shape} {dtype}", a, cupy.asnumpy(q), cupy.asnumpy(r), dtype)
    # the tall leaves again with the cluster leaf off, so that the device-wide leaf runs on
    # NVIDIA sm_90+ too (where the cluster leaf takes them first)
    saved = _qr_kernels.CLUSTER_LEAF
    _qr_kernels.CLUSTER_LEAF = False
    try:
        for dtype in _DTYPES:
            a = harness.standard_normal(rng, (1100, 40), dtype)
            q, r = ra.linalg.qr(cupy.asarray(a))
            _check_qr(f"qr (1100, 40) {dtype}, no cluster leaf", a, cupy.asnumpy(q), cupy.asnumpy(r), dtype)
    finally:
        _qr_kernels.CLUSTER_LEAF = saved


def _larft_inputs(rng, k, batch, dtype):
    """(S, tau) of ``batch`` k x k block reflectors from LAPACK's geqrf (``numpy.linalg.qr(mode='raw')``)
    of (k + 7) x k random matrices, every third tau zero (H_i = I)."""
    S = numpy.zeros((batch, k, k), dtype)
    tau = numpy.zeros((batch, k), dtype)
    for b in range(batch):
        a = harness.standard_normal(rng, (k + 7, k), dtype).astype(numpy.result_type(dtype, numpy.float64))
        h, t = numpy.linalg.qr(a, mode="raw")
        v = numpy.tril(h.T, -1) + numpy.eye(k + 7, k)
        S[b] = (v.conj().T @ v).T  # column-major k x k in C order
        tau[b] = t
        tau[b, ::3] = 0
    return S, tau


@harness.self_check(_LIB, "qr_larft_paths")
def check_qr_larft_paths(rng):
    """The block reflector's T by ``larft_inv`` (the default: its work matrix in shared memory,
    and in T with ``LARFT_INVERSE_SHARED`` off) against the column recurrence ``larft`` (the way
    back, ``LARFT_INVERSE`` off) on stacks of 3 for k = 1, 31, 64, 128, every dtype; then
    ``ra.linalg.qr`` through the recurrence."""
    import rocarray as ra
    from rocarray.rocsolver import _qr_kernels

    cupy = backend.cupy()
    saved = _qr_kernels.LARFT_INVERSE, _qr_kernels.LARFT_INVERSE_SHARED
    try:
        for dtype in _DTYPES:
            for k in (1, 31, 64, 128):
                S, tau = _larft_inputs(rng, k, 3, dtype)
                dS, dtau = cupy.asarray(S.reshape(-1)), cupy.asarray(tau.reshape(-1))
                out = {}
                for inverse, shared in ((False, True), (True, True), (True, False)):
                    _qr_kernels.LARFT_INVERSE, _qr_kernels.LARFT_INVERSE_SHARED = inverse, shared
                    T = cupy.full(3 * k * k, numpy.nan, dtype)
                    _qr_kernels.larft(k, dS, k, k * k, dtau, k, T, k, k * k, 3)
                    out[inverse, shared] = cupy.asnumpy(T).reshape(3, k, k)
                want = out[False, True]
                tol = 30 * harness.machine_epsilon(dtype) * k * float(numpy.abs(want).max())
                for key in ((True, True), (True, False)):
                    err = float(numpy.abs(out[key] - want).max())
                    if not err <= tol:
                        raise AssertionError(f"larft_inv k={k} {dtype} (shared={key[1]}): "
                                             f"max |T - T_recurrence| {err:.2e} > {tol:.2e}")
        _qr_kernels.LARFT_INVERSE = False
        for dtype in _DTYPES:
            a = harness.standard_normal(rng, (300, 161), dtype)
            q, r = ra.linalg.qr(cupy.asarray(a))
            _check_qr(f"qr (300, 161) {dtype} (larft recurrence)", a, cupy.asnumpy(q), cupy.asnumpy(r), dtype)
    finally:
        _qr_kernels.LARFT_INVERSE, _qr_kernels.LARFT_INVERSE_SHARED = saved


@harness.self_check(_LIB, "gels")
def check_gels(rng):
    from rocarray import rocsolver

    cupy = backend.cupy()
    for dtype in _DTYPES:
        for m, n in ((150, 40), (40, 150)):
            a = harness.standard_normal(rng, (m, n), dtype)
            b = harness.standard_normal(rng, (max(m, n), 3), dtype)
            b[m:] = 0
            A, B = cupy.asarray(numpy.asfortranarray(a)), cupy.asarray(numpy.asfortranarray(b))
            info = cupy.zeros(1, numpy.int32)
            rocsolver.gels("N", m, n, 3, A, m, B, max(m, n), info)
            want = numpy.linalg.lstsq(a.astype(numpy.complex128), b[:m].astype(numpy.complex128), rcond=None)[0]
            got = cupy.asnumpy(B)[:n]
            tol = 1e3 * harness.machine_epsilon(dtype) * max(m, n)
            if int(cupy.asnumpy(info)[0]) != 0 or not numpy.allclose(got, want, rtol=tol, atol=tol):
                raise AssertionError(f"gels {m}x{n} {dtype}: differs from numpy.linalg.lstsq")


# --------------------------------------------------------------------------------------------
# benchmark cases
# --------------------------------------------------------------------------------------------

def _qr(n, mode):
    def setup():
        return (backend.cupy().random.standard_normal((n, n), dtype=numpy.float64),)

    def ours(a):
        import rocarray as ra

        ra.linalg.qr(a, mode=mode)

    def vendor(a):
        backend.cupy().linalg.qr(a, mode=mode)

    # geqrf 4/3 n^3; orgqr another 4/3 n^3 for Q
    flops = (4 * n ** 3 // 3) * (1 if mode == "r" else 2)
    harness.bench_case(BenchCase(name=f"{_LIB}.qr_{mode}_{n}_float64", library=_LIB, setup=setup, rocarray=ours,
                                 vendor=vendor, flops=flops, memory_bound=False))


def _geqrf_batched(batch, n):
    def setup():
        return (backend.cupy().random.standard_normal((batch, n, n), dtype=numpy.float64),
                backend.cupy().empty((batch, n), dtype=numpy.float64))

    def ours(a, tau):
        from rocarray import rocsolver

        rocsolver.geqrf_strided_batched(n, n, a.reshape(-1), n, n * n, tau.reshape(-1), n, batch)

    def vendor(a, tau):
        backend.cupy().linalg.qr(a, mode="r")

    # geqrf works in place: each timed call factors the previous output (the same work; orthogonal
    # transforms keep the column norms, which grow only by the stored reflectors' norms)
    harness.bench_case(BenchCase(name=f"{_LIB}.geqrf_batched_{batch}x{n}x{n}_float64", library=_LIB, setup=setup,
                                 rocarray=ours, vendor=vendor, flops=batch * 4 * n ** 3 // 3, memory_bound=False))


_qr(4096, "reduced")
_qr(4096, "r")
_geqrf_batched(10_000, 32)
