"""Shared fixtures: the ``gpu`` marker skip, seeded-per-test RNGs, random data, tolerances."""

import os

# One BLAS thread per pytest-xdist worker (`-n auto` starts one worker per core): OpenBLAS's own
# threads would oversubscribe the cores, and its idle threads spin, so a worker's LAPACK calls
# (the checks' references) took several times their CPU time. Set before NumPy loads OpenBLAS.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _knob in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        os.environ.setdefault(_knob, "1")

import numpy as np  # noqa: E402 (after the thread setting)
import pytest  # noqa: E402

from rocarray._core import backend, config, harness  # noqa: E402

HAVE_GPU = backend.is_available()


@pytest.fixture
def monkeypatch(monkeypatch):
    """pytest's ``monkeypatch`` that also starts each test with an empty CuPy accessor cache (so a
    patched ``backend.cupy_module`` is what ``backend.cupy()`` finds) and calls
    ``config.refresh()`` after every environment change and on undo, as a user changing a
    setting at run time is told to."""
    monkeypatch.setattr(backend, "_cupy", [])
    setenv, delenv = monkeypatch.setenv, monkeypatch.delenv

    def set_and_refresh(*args, **kwargs):
        setenv(*args, **kwargs)
        config.refresh()

    def del_and_refresh(*args, **kwargs):
        delenv(*args, **kwargs)
        config.refresh()

    monkeypatch.setenv, monkeypatch.delenv = set_and_refresh, del_and_refresh
    yield monkeypatch
    monkeypatch.undo()
    config.refresh()


def pytest_collection_modifyitems(config, items):
    if HAVE_GPU:
        return
    reason = "no GPU: CuPy with a visible CUDA/ROCm device is needed (run scripts/gpu-check on one)"
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def rng(request):
    """A fresh generator per test; the seed is printed on failure for reproduction."""
    seed = int.from_bytes(os.urandom(4), "little")
    request.node.user_properties.append(("seed", seed))
    return np.random.default_rng(seed)


#: Every numeric dtype of NumPy's that the libraries take (the prim tests sweep them all).
NUMERIC_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                  "float16", "float32", "float64", "complex64", "complex128"]


def random_array(rng, shape, dtype):
    """Random host data of any numeric dtype (never zeros), values in a well-scaled range."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    info = np.iinfo(dtype)
    low, high = max(info.min, -100), min(info.max, 100)
    return rng.integers(low, high, size=shape, endpoint=True).astype(dtype)


def tolerance(dtype, n=1):
    """Relative tolerance for a result accumulated over ``n`` terms in ``dtype`` (the harness's)."""
    return harness.tolerance(dtype, n)


def assert_close(actual, expected, dtype, n=1, atol_scale=None):
    """Compare a device or host result to a float64/complex128 reference with a dtype tolerance
    (the harness's, which the self-checks use too)."""
    harness.assert_close(actual, expected, dtype, n, atol_scale=atol_scale)


def to_device(a):
    """Host -> device (the one place tests create device arrays)."""
    import cupy

    return cupy.asarray(a)


def device_random(rng, shape, dtype):
    """Fresh standard-normal data of ``dtype`` made on the device (complex: both parts), seeded
    from ``rng``: large inputs without a host copy."""
    cupy = backend.cupy()
    gen = cupy.random.default_rng(int(rng.integers(2 ** 31)))
    dtype = np.dtype(dtype)
    real = np.float32 if dtype in (np.float32, np.complex64) else np.float64
    x = gen.standard_normal(shape, dtype=real)
    if dtype.kind == "c":
        x = x + 1j * gen.standard_normal(shape, dtype=real)
    return x.astype(dtype)


def to_host(x):
    """Device -> host."""
    import cupy

    return cupy.asnumpy(x)


def wide(a):
    """float64/complex128 copy of host data (the reference precision)."""
    a = np.asarray(a)
    return a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)


def fake(shape, dtype, order="C", address=1 << 20):
    """A cupy.ndarray over a made-up device address: fine for argument checks, never launched."""
    import cupy

    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    mem = cupy.cuda.UnownedMemory(address, max(nbytes, 1), None, device_id=0)
    return cupy.ndarray(shape, dtype, memptr=cupy.cuda.MemoryPointer(mem, 0), order=order)
