"""A pytest plugin for ``scripts/array_api_tests.sh``: keeps one run of the Array API test suite
inside a time budget and still writes its reports.

* ``RA_API_BUDGET_S`` (seconds, from the start of the process): once spent, every test not yet
  started is skipped with the reason "rocarray time budget spent", so pytest ends normally and
  writes its JUnit file (an outer ``timeout`` would lose it).
* Hypothesis runs without shrinking (a failure is reported with the example that failed first,
  which saves the minutes shrinking can take on a GPU), without an example database, and without
  the ``too_slow`` health check (the first call of a kernel includes its compilation).

Loaded with ``-p array_api_budget`` (``scripts/`` on ``PYTHONPATH``) after the suite's own
``conftest.py`` has registered its settings profile, which this one extends.
"""

import os
import time

import pytest

_DEADLINE = time.monotonic() + float(os.environ.get("RA_API_BUDGET_S", "1e9"))


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    from hypothesis import HealthCheck, Phase, settings

    settings.register_profile(
        "rocarray-budget", parent=settings(),  # the profile the suite's conftest loaded
        phases=[Phase.explicit, Phase.reuse, Phase.generate], database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    settings.load_profile("rocarray-budget")


def pytest_runtest_setup(item):
    if time.monotonic() > _DEADLINE:
        pytest.skip("rocarray time budget spent")
