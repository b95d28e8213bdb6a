"""Reliability on the GPU: calls from several threads and on several streams give the serial
results bit for bit; a rejected call leaves the device usable; an allocation failure is CuPy's
OutOfMemoryError and the library works after it."""

import threading

import numpy as np
import pytest

from conftest import random_array, to_device, to_host

import rocarray as ra

pytestmark = pytest.mark.gpu


def _inputs(rng):
    return {
        "x": to_device(random_array(rng, 1_000_003, "float32")),
        "a": to_device(random_array(rng, (300, 257), "float64")),
        "z": to_device(random_array(rng, 4099, "complex64")),
        "m": to_device(random_array(rng, (97, 97), "float64") + 97 * np.eye(97)),
        "img": to_device(random_array(rng, (2, 5, 17, 19), "float32")),
        "w": to_device(random_array(rng, (7, 5, 3, 3), "float32")),
        "sp": ra.sparse.random(2000, 1500, density=0.01, format="csr", dtype=np.float64,
                               random_state=int(rng.integers(1 << 31))),
    }


OPERATIONS = {
    "sum": lambda d: ra.sum(d["x"]),
    "sum axis": lambda d: ra.sum(d["a"], axis=1),
    "cumsum": lambda d: ra.cumsum(d["x"]),
    "sort": lambda d: ra.sort(d["x"]),
    "argsort": lambda d: ra.argsort(d["a"], axis=0),
    "unique": lambda d: ra.unique((d["x"] * 100).astype(np.int32)),
    "histogram": lambda d: ra.histogram(d["x"], bins=37)[0],
    "matmul": lambda d: ra.matmul(d["a"].T, d["a"]),
    "fft": lambda d: ra.fft.fft(d["z"]),
    "norm": lambda d: ra.linalg.norm(d["a"]),
    "solve": lambda d: ra.linalg.solve(d["m"], d["a"][:97]),
    "cholesky": lambda d: ra.linalg.cholesky(d["m"] @ d["m"].T),
    "eigh": lambda d: ra.linalg.eigh(d["m"] + d["m"].T)[0],
    "qr": lambda d: ra.linalg.qr(d["a"])[1],
    "spmv": lambda d: d["sp"] @ d["a"].ravel()[:1500],
    "conv2d": lambda d: ra.nn.conv2d(d["img"], d["w"], padding=1),
    "softmax": lambda d: ra.nn.softmax(d["a"], dim=-1),
}


def _bits(value):
    host = to_host(value)
    return host.dtype, host.shape, host.tobytes()


def test_threads_with_their_own_streams_give_the_serial_bits(rng):
    import cupy

    data = _inputs(rng)
    serial = {name: _bits(op(data)) for name, op in OPERATIONS.items()}
    results, errors = {}, []

    def worker(index):
        try:
            stream = cupy.cuda.Stream(non_blocking=True)
            with stream:
                for repeat in range(3):
                    for name, op in OPERATIONS.items():
                        results[(index, repeat, name)] = _bits(op(data))
            stream.synchronize()
        except Exception as exc:  # reported below, with the thread's index
            errors.append((index, repr(exc)))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not errors, errors
    assert not any(t.is_alive() for t in threads), "a thread hung"
    differ = sorted({name for (i, r, name), bits in results.items() if bits != serial[name]})
    assert not differ, f"thread results differ from the serial ones: {differ}"


def test_a_fresh_thread_that_never_chose_a_device_launches(rng):
    """A thread's first rocarray call, with no CuPy call before it in that thread (so no context is
    current there: the driver's launch refuses such a thread until the launch layer binds one)."""
    import cupy

    data = _inputs(rng)
    z = data["z"].reshape(1, -1)
    out = {}

    def first_call_in_a_thread(name, op):
        out[name] = ("no context" if cupy.cuda.driver.ctxGetCurrent() == 0 else "context",)
        try:
            out[name] += (_bits(op()),)
        except Exception as exc:
            out[name] += (repr(exc),)

    ops = {"c2c": lambda: ra.rocfft.c2c(z, (1,), forward=True), "sum": lambda: ra.sum(data["x"]),
           "matmul": lambda: ra.matmul(data["a"].T, data["a"]), "sort": lambda: ra.sort(data["x"])}
    serial = {name: _bits(op()) for name, op in ops.items()}
    for name, op in ops.items():
        thread = threading.Thread(target=first_call_in_a_thread, args=(name, op))
        thread.start()
        thread.join(timeout=300)
        assert not thread.is_alive(), f"{name} hung"
    assert all(out[name][0] == "no context" for name in ops), out   # the case this test is about
    assert {name: out[name][1] for name in ops} == serial


BAD_CALLS = [
    (lambda: ra.sum(np.ones(3)), TypeError),
    (lambda: ra.sum(ra.asarray(np.ones((2, 3))), axis=5), np.exceptions.AxisError),
    (lambda: ra.matmul(ra.asarray(np.ones((2, 3))), ra.asarray(np.ones((4, 2)))), ValueError),
    (lambda: ra.fft.fft(ra.asarray(np.ones(8)), n=0), ValueError),
    (lambda: ra.histogram(ra.asarray(np.ones(8)), bins=-1), ValueError),
    (lambda: ra.searchsorted(ra.asarray(np.ones(8)), ra.asarray(np.ones(3)), side="middle"), ValueError),
    (lambda: ra.rocblas.gemm("X", "N", 2, 2, 2, 1.0, ra.asarray(np.ones(4)), 2, ra.asarray(np.ones(4)), 2, 0.0,
                             ra.asarray(np.ones(4)), 2), ValueError),
    (lambda: ra.rocblas.axpy(10, 1.0, ra.asarray(np.ones(4)), 1, ra.asarray(np.ones(4)), 1), ValueError),
    (lambda: ra.linalg.norm(ra.asarray(np.ones((2, 2))), ord="bad"), ValueError),
    (lambda: ra.linalg.solve(ra.asarray(np.zeros((40, 40))), ra.asarray(np.ones(40))), np.linalg.LinAlgError),
    (lambda: ra.linalg.solve(ra.asarray(np.ones((3, 4))), ra.asarray(np.ones(3))), np.linalg.LinAlgError),
    (lambda: ra.linalg.cholesky(ra.asarray(-np.eye(300))), np.linalg.LinAlgError),
    (lambda: ra.linalg.eigh(ra.asarray(np.ones((3, 5)))), np.linalg.LinAlgError),
    (lambda: ra.linalg.svd(ra.asarray(np.ones(5))), np.linalg.LinAlgError),
    (lambda: ra.sparse.random(20, 30, density=0.2, format="csr") @ ra.asarray(np.ones(20)), ValueError),
    (lambda: ra.rocsparse.csrmv(1.0, 4, 4, ra.asarray(np.array([0, 1, 2], np.int32)),
                                ra.asarray(np.array([0, 1], np.int32)), ra.asarray(np.ones(2)),
                                ra.asarray(np.ones(4))), ValueError),
    (lambda: ra.nn.conv2d(ra.asarray(np.ones((1, 3, 8, 8), np.float32)), ra.asarray(np.ones((4, 2, 3, 3), np.float32))),
     ValueError),
    (lambda: ra.nn.max_pool2d(ra.asarray(np.ones((1, 3, 8, 8), np.float32)), kernel_size=0), ValueError),
    (lambda: ra.nn.scaled_dot_product_attention(*(ra.asarray(np.ones((1, 2, 4, 8), np.float16)),) * 2,
                                                ra.asarray(np.ones((1, 2, 5, 8), np.float16))), ValueError),
]


@pytest.mark.parametrize("call, error", BAD_CALLS, ids=range(len(BAD_CALLS)))
def test_a_rejected_call_leaves_the_device_usable(call, error, rng):
    import cupy

    with pytest.raises(error):
        call()
    cupy.cuda.Device().synchronize()  # no sticky error
    x = random_array(rng, 100_003, "float64")
    np.testing.assert_allclose(float(ra.sum(to_device(x))), float(np.sum(x)), rtol=1e-12)


def test_out_of_memory_is_cupys_error_and_the_library_recovers(rng):
    import cupy

    pool = cupy.get_default_memory_pool()
    x = to_device(random_array(rng, 1 << 24, "float32"))
    ra.free_workspaces()
    pool.free_all_blocks()
    limit = pool.get_limit()
    try:
        pool.set_limit(size=pool.used_bytes() + (1 << 20))  # room for small results only
        with pytest.raises(cupy.cuda.memory.OutOfMemoryError):
            ra.sort(x)
        with pytest.raises(cupy.cuda.memory.OutOfMemoryError):
            ra.matmul(x[: 1 << 22].reshape(2048, 2048), x[: 1 << 22].reshape(2048, 2048))
    finally:
        pool.set_limit(size=limit)
    got = to_host(ra.sort(x))
    assert np.all(got[1:] >= got[:-1]) and got.size == x.size
    host = to_host(x).astype(np.float64)
    assert abs(float(ra.sum(x)) - host.sum()) <= 1e-5 * np.abs(host).sum()
