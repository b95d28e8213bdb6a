"""Self-checks and vendor-ratio benchmark cases of the rocsolver Cholesky family (``python -m rocarray``).

Self-checks factor, solve and invert small fresh random Hermitian positive definite matrices
(orders crossing the 128-order diagonal blocks, a strided batch of small ones) in every dtype and
compare with NumPy in float64/complex128 by backward error; trtri against NumPy's inverse.
Benchmark cases time ``ra.linalg.cholesky`` against ``cupy.linalg.cholesky`` (cuSOLVER potrf, and
potrfBatched for stacks) on the same device arrays: one 8192^2 matrix (float64, float32), a stack
of 10^4 128^2 float64 matrices and one of 10^5 32^2 float32 matrices. Flops: ``n^3 / 3`` per matrix.
"""

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "rocsolver"
_DTYPES = ("float32", "float64", "complex64", "complex128")


def _spd(rng, n, dtype):
    x = harness.standard_normal(rng, (n, n), dtype)
    x = x.astype(numpy.complex128 if x.dtype.kind == "c" else numpy.float64)
    return x @ x.conj().T / n + numpy.eye(n)


def _colmajor(a, dtype):
    return numpy.asfortranarray(a).T.reshape(-1).astype(dtype)  # column-major bytes


def _matrix(buf, n):
    return buf.reshape(n, n).T.astype(numpy.complex128)


def _bound(name, value, limit=20.0):
    if not value < limit:
        raise AssertionError(f"{name}: scaled backward error {value:.3g} >= {limit}")


@harness.self_check(_LIB, "potrf_potrs_potri")
def check_cholesky(rng):
    import rocarray.rocsolver as rocsolver

    cupy = backend.cupy()
    for dtype in _DTYPES:
        eps = numpy.finfo(dtype).eps
        for n, uplo in ((1, "L"), (45, "U"), (200, "L"), (261, "U")):
            a = _spd(rng, n, dtype)
            d, info = cupy.asarray(_colmajor(a, dtype)), cupy.zeros(1, numpy.int32)
            rocsolver.potrf(uplo, n, d, n, info)
            f = numpy.triu(_matrix(cupy.asnumpy(d), n)) if uplo == "U" else numpy.tril(_matrix(cupy.asnumpy(d), n))
            rebuilt = f.conj().T @ f if uplo == "U" else f @ f.conj().T
            _bound(f"potrf {uplo} {n} {dtype}", numpy.linalg.norm(rebuilt - a) / (numpy.linalg.norm(a) * n * eps))
            b = harness.standard_normal(rng, (n, 2), dtype)
            db = cupy.asarray(numpy.asfortranarray(b))
            rocsolver.potrs(uplo, n, 2, d, n, db, n)
            x = cupy.asnumpy(db)
            _bound(f"potrs {uplo} {n} {dtype}",
                   numpy.linalg.norm(a @ x - b) / (numpy.linalg.norm(a) * numpy.linalg.norm(x) * n * eps))
            rocsolver.potri(uplo, n, d, n, info)
            t = _matrix(cupy.asnumpy(d), n)
            t = numpy.triu(t) if uplo == "U" else numpy.tril(t)
            inv = t + t.conj().T - numpy.diag(numpy.diag(t).real)
            _bound(f"potri {uplo} {n} {dtype}",
                   numpy.linalg.norm(a @ inv - numpy.eye(n)) / (numpy.linalg.cond(a) * n * eps))
            if int(cupy.asnumpy(info)[0]) != 0:
                raise AssertionError(f"potri {uplo} {n} {dtype}: info {int(cupy.asnumpy(info)[0])}")


@harness.self_check(_LIB, "potrf_strided_batched")
def check_batched(rng):
    import rocarray.rocsolver as rocsolver

    cupy = backend.cupy()
    n, batch = 24, 7
    for dtype in _DTYPES:
        eps = numpy.finfo(dtype).eps
        mats = [_spd(rng, n, dtype) for _ in range(batch)]
        mats[3][10, 10] = -1.0
        d = cupy.asarray(numpy.concatenate([_colmajor(m, dtype) for m in mats]))
        info = cupy.zeros(batch, numpy.int32)
        rocsolver.potrf_strided_batched("L", n, d, n, n * n, info, batch)
        got = cupy.asnumpy(info)
        if got.tolist() != [0, 0, 0, 11, 0, 0, 0]:
            raise AssertionError(f"potrf_strided_batched {dtype}: info {got.tolist()}")
        out = cupy.asnumpy(d)
        for k in (0, batch - 1):
            f = numpy.tril(_matrix(out[k * n * n:(k + 1) * n * n], n))
            _bound(f"potrf_strided_batched {dtype}",
                   numpy.linalg.norm(f @ f.conj().T - mats[k]) / (numpy.linalg.norm(mats[k]) * n * eps))
        # the strided-stack form: the upper factor of a C-ordered stack, zeros written below
        stack = numpy.stack(mats[:3])
        stack[1] = _spd(rng, n, dtype)
        f, info = cupy.full(stack.shape, numpy.nan, dtype), cupy.zeros(3, numpy.int32)
        rocsolver.potrf_small_batched(cupy.asarray(stack.astype(dtype)), f, info, "U")
        got, u = cupy.asnumpy(info), cupy.asnumpy(f).astype(numpy.complex128)
        if got.tolist() != [0, 0, 0] or (numpy.tril(u, -1) != 0).any():
            raise AssertionError(f"potrf_small_batched {dtype}: info {got.tolist()} or a nonzero below the diagonal")
        for k in range(3):
            _bound(f"potrf_small_batched {dtype}", numpy.linalg.norm(u[k].conj().T @ u[k] - stack[k])
                   / (numpy.linalg.norm(stack[k]) * n * eps))
    # past the register tiles (complex128 beyond order 64): a block per matrix in shared memory
    # where it fits, else the recursion
    n = 100
    mats = [_spd(rng, n, "complex128") for _ in range(2)]
    d = cupy.asarray(numpy.concatenate([_colmajor(m, "complex128") for m in mats]))
    info = cupy.zeros(2, numpy.int32)
    rocsolver.potrf_strided_batched("L", n, d, n, n * n, info, 2)
    if cupy.asnumpy(info).tolist() != [0, 0]:
        raise AssertionError(f"potrf_strided_batched complex128 {n}: info {cupy.asnumpy(info).tolist()}")
    f = numpy.tril(_matrix(cupy.asnumpy(d)[n * n:], n))
    _bound(f"potrf_strided_batched complex128 {n}", numpy.linalg.norm(f @ f.conj().T - mats[1])
           / (numpy.linalg.norm(mats[1]) * n * numpy.finfo(numpy.complex128).eps))


@harness.self_check(_LIB, "trtri")
def check_trtri(rng):
    import rocarray.rocsolver as rocsolver

    cupy = backend.cupy()
    for dtype in _DTYPES:
        eps = numpy.finfo(dtype).eps
        for n, uplo, diag in ((70, "U", "N"), (300, "L", "U")):
            t = harness.standard_normal(rng, (n, n), dtype) * (0.5 / n) + 2 * numpy.eye(n)
            t = numpy.triu(t) if uplo == "U" else numpy.tril(t)
            if diag == "U":
                numpy.fill_diagonal(t, 1)
            d, info = cupy.asarray(_colmajor(t, dtype)), cupy.zeros(1, numpy.int32)
            rocsolver.trtri(uplo, diag, n, d, n, info)
            inv = _matrix(cupy.asnumpy(d), n)
            inv = numpy.triu(inv) if uplo == "U" else numpy.tril(inv)
            if diag == "U":
                numpy.fill_diagonal(inv, 1)
            _bound(f"trtri {uplo}{diag} {n} {dtype}", numpy.linalg.norm(inv @ t - numpy.eye(n)) / (n * eps))


# --------------------------------------------------------------------------------------------
# benchmark cases
# --------------------------------------------------------------------------------------------

def _cholesky_case(batch, n, dtype):
    def setup():
        cupy = backend.cupy()
        shape = (n, n) if batch is None else (batch, n, n)
        x = cupy.random.standard_normal(shape, dtype=numpy.dtype(dtype))
        a = cupy.matmul(x, x.swapaxes(-1, -2)) / n
        a += cupy.eye(n, dtype=a.dtype)
        return (a,)

    def ours(a):
        import rocarray as ra

        ra.linalg.cholesky(a)

    def vendor(a):
        backend.cupy().linalg.cholesky(a)

    count = 1 if batch is None else batch
    name = f"{_LIB}.cholesky_{n}_{dtype}" if batch is None else f"{_LIB}.cholesky_batched_{batch}x{n}_{dtype}"
    harness.bench_case(BenchCase(name=name, library=_LIB, setup=setup, rocarray=ours, vendor=vendor,
                                 flops=count * n ** 3 // 3, memory_bound=False))


def _register_benchmarks():
    for dtype in ("float64", "float32"):
        _cholesky_case(None, 8192, dtype)
    _cholesky_case(10 ** 4, 128, "float64")
    _cholesky_case(10 ** 5, 32, "float32")


_register_benchmarks()
