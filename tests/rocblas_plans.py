"""The fixture every rocblas test module imports (``from rocblas_plans import fresh_prepared_launches``):
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
