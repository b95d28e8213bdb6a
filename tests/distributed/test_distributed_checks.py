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
