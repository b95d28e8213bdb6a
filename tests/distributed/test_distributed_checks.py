"""The distributed FFT's self-checks and bench cases register only where they can run (CPU)."""

import importlib

import pytest

from rocarray._checks import distributed_fft
from rocarray._core import backend, harness


@pytest.fixture
def registry(monkeypatch):
    monkeypatch.setattr(harness, "_self_checks", {})
    monkeypatch.setattr(harness, "_bench_cases", {})
    return harness


@pytest.mark.parametrize("devices,checks,benches", [
    (0, [], []),
    (1, ["distributed.fftn_one_rank"], []),
    (2, ["distributed.fftn_2_ranks", "distributed.fftn_one_rank"],
     ["distributed.fftn_1024x1024x1024_complex64_2gpu_natural",
      "distributed.fftn_1024x1024x1024_complex64_2gpu_transposed"]),
])
def test_cases_register_only_where_they_can_run(registry, monkeypatch, devices, checks, benches):
    monkeypatch.setattr(backend, "device_count", lambda: devices)
    importlib.reload(distributed_fft)
    assert [c.name for c in registry.self_checks()] == checks
    assert [c.name for c in registry.bench_cases()] == benches


@pytest.fixture
def host_device(monkeypatch):
    """NumPy in place of CuPy and rocFFT, the fake transport in place of NCCL: the checks' and the
    bench cases' own code runs on the host."""
    import types

    import numpy as np

    import rocarray.distributed as rd
    from rocarray import rocfft
    from rocarray.distributed import _local

    from dfft_standin import NumpyOps
    from fake_comm import Transport, installed

    random = types.SimpleNamespace(standard_normal=lambda shape, dtype: np.random.default_rng(0).standard_normal(
        shape).astype(dtype))
    shim = types.SimpleNamespace(asarray=np.asarray, asnumpy=np.asarray, empty_like=np.empty_like, random=random,
                                 cuda=types.SimpleNamespace(Device=_HostDevice))
    monkeypatch.setattr(backend, "cupy", lambda: shim)
    monkeypatch.setattr(_local, "ops", NumpyOps)
    monkeypatch.setattr(rocfft, "c2c", lambda x, axes, forward, scale=1.0: NumpyOps().c2c(x, axes, forward, scale))
    with installed(Transport()):
        cliques = {}
        monkeypatch.setattr(distributed_fft, "_comms",
                            lambda ranks, validate=True: cliques.setdefault((ranks, validate), rd.Communicator.local(
                                list(range(ranks)), validate=validate)))
        yield


class _HostDevice:
    """``cupy.cuda.Device`` on the host: a context that changes nothing."""

    def __init__(self, *args):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        pass


@pytest.mark.usefixtures("host_device")
@pytest.mark.parametrize("ranks", [1, 2])
def test_the_self_check_passes_on_the_host(rng, ranks):
    distributed_fft._check(ranks, rng)


@pytest.mark.usefixtures("host_device")
@pytest.mark.parametrize("transposed_out,exchanges", [(True, 1), (False, 2)])
def test_the_bench_case_and_its_bound_run_on_the_host(transposed_out, exchanges):
    shape = (8, 6, 4)
    args = distributed_fft._setup(shape, "complex64", 2)
    distributed_fft._distributed_fftn(transposed_out)(*args)
    distributed_fft._bound(shape, exchanges)(*args)
