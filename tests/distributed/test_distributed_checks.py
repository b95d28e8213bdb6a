"""The distributed FFT's self-checks and bench cases register only where they can run (CPU)."""

import importlib

import pytest

import rocarray.distributed as rd
from rocarray._checks import distributed_fft
from rocarray._core import backend, harness


@pytest.fixture
def registry(monkeypatch):
    monkeypatch.setattr(harness, "_self_checks", {})
    monkeypatch.setattr(harness, "_bench_cases", {})
    return harness


@pytest.mark.parametrize("devices,communicator,checks,benches", [
    (0, True, [], []),
    (1, False, [], []),
    (1, True, ["distributed.fftn_one_rank"], []),
    (2, True, ["distributed.fftn_2_ranks", "distributed.fftn_one_rank"],
     ["distributed.fftn_1024x1024x1024_complex64_2gpu_natural",
      "distributed.fftn_1024x1024x1024_complex64_2gpu_transposed"]),
])
def test_cases_register_only_where_they_can_run(registry, monkeypatch, devices, communicator, checks, benches):
    monkeypatch.setattr(backend, "device_count", lambda: devices)
    if communicator:
        monkeypatch.setattr(rd, "Communicator", object, raising=False)
    else:
        monkeypatch.delattr(rd, "Communicator", raising=False)
    importlib.reload(distributed_fft)
    assert [c.name for c in registry.self_checks()] == checks
    assert [c.name for c in registry.bench_cases()] == benches
