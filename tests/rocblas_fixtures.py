"""The fixture every rocblas test module imports (``from rocblas_fixtures import fresh_prepared_launches``):
an autouse fixture applies to the modules that import it."""

import pytest


@pytest.fixture(autouse=True)
def fresh_prepared_launches(monkeypatch):
    """Each test starts without the launches earlier calls prepared (gemm's warm path, the
    remembered tile choices and plans): they must not stand in for what a test forces (tiles,
    kernels, configurations, stand-in devices)."""
    from rocarray.rocblas._gemm import api, batched_kernels, half, plan

    monkeypatch.setattr(api, "_warm", {})
    monkeypatch.setattr(plan, "_runs", {})
    monkeypatch.setattr(plan, "_choices", {})
    monkeypatch.setattr(half, "_prepared", {})
    monkeypatch.setattr(batched_kernels, "_prepared", {})


def refuse_launches(monkeypatch):
    """Fail (instead of launching on fake memory) when anything reaches a kernel: every launch,
    immediate or prepared, goes through :class:`rocarray._core.kernels.Kernel`."""
    from rocarray._core import kernels

    def refuse(*args, **kwargs):
        raise AssertionError("a kernel launch was attempted")

    monkeypatch.setattr(kernels.Kernel, "__call__", refuse)
    monkeypatch.setattr(kernels.Kernel, "prepare", refuse)
