"""The harness's shared tolerance helpers (self-checks and tests use the same ones) and its
registries."""

import numpy as np
import pytest

from rocarray._core import harness


def test_machine_epsilon_of_each_precision():
    assert harness.machine_epsilon("float16") == 2.0**-10
    assert harness.machine_epsilon(np.float32) == harness.machine_epsilon("complex64") == np.finfo(np.float32).eps
    assert harness.machine_epsilon("float64") == harness.machine_epsilon("complex128") == np.finfo(np.float64).eps


@pytest.mark.parametrize("growth,n,expected", [("sqrt", 100, 10.0), ("log2", 1024, 10.0), ("linear", 7, 7.0),
                                               ("none", 10**6, 1.0), ("sqrt", 0, 1.0)])
def test_tolerance_grows_with_the_terms(growth, n, expected):
    assert harness.tolerance("float64", n, factor=2, growth=growth) == pytest.approx(2 * 2.0**-52 * expected)


def test_assert_close_passes_within_and_fails_outside_the_tolerance():
    want = np.array([1.0, -2.0, 0.0])
    harness.assert_close(want.astype(np.float32), want, "float32")
    off = want + np.array([0.0, 0.0, 1e-3])
    with pytest.raises(AssertionError, match="lhs"):
        harness.assert_close(off, want, "float32", name="lhs")
    with pytest.raises(AssertionError, match="shape"):
        harness.assert_close(want[:2], want, "float64")
    harness.assert_close(np.array([1 + 1e-9j]), np.array([1 + 0j]), "complex64")


def test_every_check_module_loads_and_registers():
    harness.load_all()
    libraries = {c.library for c in harness.self_checks()}
    assert {"prim", "rocblas", "rocfft"} <= libraries and harness.bench_cases()
