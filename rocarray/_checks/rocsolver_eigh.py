"""Self-checks and vendor-ratio benchmark cases of rocsolver's symmetric/Hermitian eigensolvers
(``python -m rocarray``).

Self-checks run the batched Jacobi (``syevj_strided_batched``/``heevj_strided_batched``) on
small stacks (order 21: one warp per matrix; 40: one block per matrix) and ``syevd``/``heevd``
on a matrix past the Jacobi limit (through either panel path of the reduction), every dtype,
against NumPy's ``eigvalsh`` in float64 with the backward error ``||A V - V W|| / (||A|| n eps)``
and ``||V^H V - I||``; ``stedc`` (device divide and conquer) on random and glued-Wilkinson
tridiagonal matrices of order 1000, and ``syevd`` at order 300 (its device tridiagonal path).
Benchmark cases time ``ra.linalg.eigh`` against ``cupy.linalg.eigh`` (cuSOLVER) on the same
arrays: one 4096^2 float64 matrix, and stacks of 10^4 matrices of 32^2 in float32 and float64;
and ``stedc`` of a random tridiagonal matrix of order 4096 (float64) against cuSOLVER's ``syevd``
of the same matrix stored dense.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "rocsolver"
_DTYPES = ("float32", "float64", "complex64", "complex128")


def _hermitian(rng, n, dtype):
    a = harness.standard_normal(rng, (n, n), dtype).astype(numpy.complex128)
    return ((a + a.conj().T) / 2).astype(dtype)


def _verify(name, a, w, v, dtype):
    a = a.astype(numpy.complex128)
    n = a.shape[0]
    eps = harness.machine_epsilon(dtype)
    bound = 30 * n * eps * numpy.linalg.norm(a)
    err_w = float(numpy.max(numpy.abs(w - numpy.linalg.eigvalsh(a))))
    if err_w > bound:
        raise AssertionError(f"{name}: eigenvalue error {err_w:.3e} > {bound:.3e}")
    res = float(numpy.linalg.norm(a @ v - v * w))
    if res > bound:
        raise AssertionError(f"{name}: ||A V - V W|| = {res:.3e} > {bound:.3e}")
    orth = float(numpy.linalg.norm(v.conj().T @ v - numpy.eye(n)))
    if orth > 30 * n * eps:
        raise AssertionError(f"{name}: ||V^H V - I|| = {orth:.3e}")


def _columns(buf, n, ld):
    return buf[:n * ld].reshape(n, ld).T[:n]


@harness.self_check(_LIB, "syevj_strided_batched")
def check_syevj(rng):
    from rocarray.rocsolver import _eigh_kernels

    # a warp per matrix (every warp kernel: the XOR one with scaled rotations (float32) and
    # without, the padded circle one, the half-block one; then the façade's stack path on the
    # default kernel), then a block per matrix
    # (SYEVJ_WARP_XOR, SYEVJ_WARP_HALF, FAST_ROTATIONS)
    kernels = ((True, False, True), (True, False, False), (False, False, True), (False, True, True))
    cases = [(21, d, k) for k in kernels for d in _DTYPES if k[2] or d == "float32"]
    cases += [(40, d, kernels[0]) for d in _DTYPES]
    saved = _eigh_kernels.SYEVJ_WARP_XOR, _eigh_kernels.SYEVJ_WARP_HALF, _eigh_kernels.FAST_ROTATIONS
    try:
        for n, dtype, (xor, half, fast) in cases:
            _eigh_kernels.SYEVJ_WARP_XOR, _eigh_kernels.SYEVJ_WARP_HALF, _eigh_kernels.FAST_ROTATIONS = xor, half, fast
            _check_syevj_case(rng, n, dtype, batch=5)
    finally:
        _eigh_kernels.SYEVJ_WARP_XOR, _eigh_kernels.SYEVJ_WARP_HALF, _eigh_kernels.FAST_ROTATIONS = saved
    for dtype in _DTYPES:
        _check_eigh_stack(rng, 21, dtype, batch=5)


def _check_eigh_stack(rng, n, dtype, batch):
    """``linalg.eigh`` of a C-ordered stack of ``batch`` Hermitian matrices of order n (the kernel
    reads the stack and writes the eigenvectors in NumPy's layout)."""
    from rocarray import linalg

    cupy = backend.cupy()
    mats = numpy.stack([_hermitian(rng, n, dtype) for _ in range(batch)])
    w, v = linalg.eigh(cupy.asarray(mats))
    w, v = cupy.asnumpy(w), cupy.asnumpy(v)
    for b in range(batch):
        _verify(f"eigh stack {dtype} n={n} matrix {b}", mats[b], w[b].astype(numpy.float64),
                v[b].astype(numpy.complex128), dtype)


def _check_syevj_case(rng, n, dtype, batch):
    """syevj/heevj of ``batch`` random Hermitian matrices of order n, the lower triangle stored."""
    from rocarray import rocsolver

    cupy = backend.cupy()
    mats = [_hermitian(rng, n, dtype) for _ in range(batch)]
    host = numpy.concatenate([numpy.tril(a).T.ravel() for a in mats])  # column-major, lower
    A = cupy.asarray(host)
    real = numpy.dtype(dtype).char.lower()
    W = cupy.full(batch * n, numpy.nan, real)
    info = cupy.full(batch, -1, numpy.int32)
    fn = rocsolver.heevj_strided_batched if numpy.dtype(dtype).kind == "c" else rocsolver.syevj_strided_batched
    fn("V", "L", n, A, n, n * n, 0.0, None, 100, None, W, n, info, batch)
    if numpy.any(cupy.asnumpy(info) != 0):
        raise AssertionError(f"syevj {dtype} n={n}: info {cupy.asnumpy(info)}")
    out, w = cupy.asnumpy(A), cupy.asnumpy(W)
    for b, a in enumerate(mats):
        _verify(f"syevj {dtype} n={n} matrix {b}", a, w[b * n:(b + 1) * n].astype(numpy.float64),
                _columns(out[b * n * n:], n, n).astype(numpy.complex128), dtype)


def _check_syevd_once(rng, n, label, uplo="U"):
    """syevd/heevd of one order, every dtype, the triangle ``uplo`` stored column-major."""
    from rocarray import rocsolver

    cupy = backend.cupy()
    for dtype in _DTYPES:
        a = _hermitian(rng, n, dtype)
        A = cupy.asarray((numpy.triu(a) if uplo == "U" else numpy.tril(a)).T.ravel())  # column-major
        W = cupy.full(n, numpy.nan, numpy.dtype(dtype).char.lower())
        info = cupy.full(1, -1, numpy.int32)
        (rocsolver.heevd if numpy.dtype(dtype).kind == "c" else rocsolver.syevd)("V", uplo, n, A, n, W, info)
        if int(cupy.asnumpy(info)[0]) != 0:
            raise AssertionError(f"syevd {dtype} ({label}): info {int(cupy.asnumpy(info)[0])}")
        _verify(f"syevd {dtype} ({label})", a, cupy.asnumpy(W).astype(numpy.float64),
                _columns(cupy.asnumpy(A), n, n).astype(numpy.complex128), dtype)


@harness.self_check(_LIB, "syevd_heevd")
def check_syevd(rng):
    """The fused panel columns (warp-tile kernels with the staged symv, with the butterfly symv,
    then block-tile kernels), then the per-column path they can be switched back to."""
    from rocarray.rocsolver import _sytrd, _sytrd_kernels

    saved = _sytrd.FUSED_PANEL, _sytrd_kernels.WARP_TILES, _sytrd_kernels.STAGED
    try:
        for path, warp, staged, label in ((True, True, True, "fused panel, warp tiles, staged symv"),
                                          (True, True, False, "fused panel, warp tiles, butterfly symv"),
                                          (True, False, True, "fused panel, block tiles"),
                                          (False, saved[1], saved[2], "per-column panel")):
            _sytrd.FUSED_PANEL, _sytrd_kernels.WARP_TILES, _sytrd_kernels.STAGED = path, warp, staged
            _check_syevd_once(rng, 150, label)
    finally:
        _sytrd.FUSED_PANEL, _sytrd_kernels.WARP_TILES, _sytrd_kernels.STAGED = saved


@harness.self_check(_LIB, "stedc")
def check_stedc(rng):
    from rocarray import rocsolver

    cupy = backend.cupy()
    n = 1000
    glued = numpy.tile(numpy.abs(numpy.arange(21) - 10.0), n // 21 + 1)[:n], numpy.ones(n - 1)
    glued[1][20::21] = 1e-8
    for kind, (d, e) in (("random", (rng.standard_normal(n), rng.standard_normal(n - 1))), ("glued", glued)):
        for dtype in ("float32", "float64"):
            d, e = d.astype(dtype).astype(numpy.float64), e.astype(dtype).astype(numpy.float64)
            D, E = cupy.asarray(d.astype(dtype)), cupy.asarray(e.astype(dtype))
            C = cupy.full(n * n, numpy.nan, dtype)
            info = cupy.full(1, -1, numpy.int32)
            rocsolver.stedc("I", n, D, E, C, n, info)
            if int(cupy.asnumpy(info)[0]) != 0:
                raise AssertionError(f"stedc {kind} {dtype}: info {int(cupy.asnumpy(info)[0])}")
            t = numpy.diag(d) + numpy.diag(e, 1) + numpy.diag(e, -1)
            _verify(f"stedc {kind} {dtype}", t, cupy.asnumpy(D).astype(numpy.float64),
                    _columns(cupy.asnumpy(C), n, n).astype(numpy.complex128), dtype)
    _check_syevd_once(rng, 300, "n=300, device tridiagonal path", "L")


# --------------------------------------------------------------------------------------------
# benchmark cases against cuSOLVER through cupy.linalg.eigh, same arrays
# --------------------------------------------------------------------------------------------

def _symmetric_stack(shape, dtype):
    cupy = backend.cupy()
    a = cupy.random.standard_normal(shape, dtype=numpy.dtype(dtype))
    return (a + a.swapaxes(-1, -2)) / 2


def _eigh_case(name, shape, dtype, flops):
    def setup():
        return (_symmetric_stack(shape, dtype),)

    def ours(a):
        from rocarray import linalg

        linalg.eigh(a)

    def vendor(a):
        backend.cupy().linalg.eigh(a)

    harness.bench_case(BenchCase(name=f"{_LIB}.{name}", library=_LIB, setup=setup, rocarray=ours, vendor=vendor,
                                 flops=flops, memory_bound=False))


def _stedc_case(n, dtype):
    def setup():
        cupy = backend.cupy()
        d = cupy.random.standard_normal(n, dtype=numpy.dtype(dtype))
        e = cupy.random.standard_normal(n - 1, dtype=numpy.dtype(dtype))
        t = cupy.diag(d) + cupy.diag(e, 1) + cupy.diag(e, -1)
        return d, e, t, cupy.empty(n * n, dtype), cupy.zeros(1, numpy.int32)

    def ours(d, e, t, c, info):
        from rocarray import rocsolver

        rocsolver.stedc("I", n, d.copy(), e.copy(), c, n, info)

    def vendor(d, e, t, c, info):
        backend.cupy().linalg.eigh(t)  # cuSOLVER has no tridiagonal entry in CuPy: syevd of T

    # the merges' gemms: n^3 at the top level without deflation, 4 n^3 / 3 over all levels
    harness.bench_case(BenchCase(name=f"{_LIB}.stedc_{n}_{dtype}", library=_LIB, setup=setup, rocarray=ours,
                                 vendor=vendor, flops=4 * n ** 3 // 3, memory_bound=False))


def _register_benchmarks():
    n = 4096
    _stedc_case(n, "float64")
    # tridiagonal reduction 4/3 n^3 and back-transformation 2 n^3 (the classic syevd count)
    _eigh_case(f"eigh_{n}_float64", (n, n), "float64", 10 * n ** 3 // 3)
    for dtype in ("float32", "float64"):
        # cyclic Jacobi: about 8 sweeps of 4 n^3 flops (rotating A's rows and columns and V's columns)
        _eigh_case(f"eigh_batched_10000x32_{dtype}", (10_000, 32, 32), dtype, 10_000 * 8 * 4 * 32 ** 3)


_register_benchmarks()
