"""``ra.linalg.matrix_power`` and ``ra.linalg.multi_dot`` against NumPy.

CPU: the squaring schedule, the chain-order dynamic program against brute force, NumPy's errors,
and both functions end to end on host memory (``hostdev``: reference gemms). GPU: every float dtype
and an integer dtype on fresh random data, stacks, negative powers, 1-D ends of a chain, ``out=``.
"""

import itertools

import numpy as np
import pytest

import hostdev
from conftest import assert_close, random_array, to_device, to_host, wide

import rocarray as ra
from rocarray.linalg import _products as pr


def numpy_error(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001
        return type(e), str(e)
    return None


@pytest.mark.parametrize("n", range(2, 40))
def test_power_steps_compute_the_power(n):
    exps = {"a": 1, "z": None, "r": None}
    for target, left, right in pr.power_steps(n):
        exps[target] = exps[left] if right is None else exps[left] + exps[right]
    assert exps["r"] == n
    assert sum(1 for s in pr.power_steps(n) if s[2] is not None) <= 2 * n.bit_length()


def _brute(dims):
    """Cheapest cost of a matrix chain over every parenthesization (small chains)."""
    n = len(dims) - 1
    best = {}
    for length in range(n):
        for i in range(n - length):
            j = i + length
            best[i, j] = 0 if i == j else min(best[i, k] + best[k + 1, j] + dims[i] * dims[k + 1] * dims[j + 1]
                                              for k in range(i, j))
    return best[0, n - 1]


@pytest.mark.parametrize("dims", [(10, 100, 5, 50), (30, 35, 15, 5, 10, 20, 25), (2, 3, 4, 5, 6),
                                  (100, 1, 100, 1, 100)])
def test_chain_order_is_optimal(dims):
    _, cost = pr.chain_order(list(dims))
    assert cost[0][len(dims) - 2] == _brute(list(dims))


def test_errors_match_numpy(monkeypatch):
    hostdev.install(monkeypatch)
    cases = [(np.linalg.matrix_power, ra.linalg.matrix_power, (np.ones((2, 3)), 2)),
             (np.linalg.matrix_power, ra.linalg.matrix_power, (np.ones(3), 2)),
             (np.linalg.matrix_power, ra.linalg.matrix_power, (np.ones((2, 2)), 2.0)),
             (np.linalg.multi_dot, ra.linalg.multi_dot, ([np.ones((2, 2))],)),
             (np.linalg.multi_dot, ra.linalg.multi_dot, ([np.ones((2, 2)), np.ones((2, 2, 2)), np.ones((2, 2))],))]
    for np_fn, ra_fn, args in cases:
        err = numpy_error(np_fn, *args)
        dev_args = [[hostdev.dev(x) for x in a] if isinstance(a, list) else
                    (hostdev.dev(a) if isinstance(a, np.ndarray) else a) for a in args]
        with pytest.raises(err[0], match=err[1].replace("(", r"\(").replace(")", r"\)")):
            ra_fn(*dev_args)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, 13])
def test_matrix_power_on_host(monkeypatch, rng, n):
    hostdev.install(monkeypatch)
    a = rng.standard_normal((3, 4, 4)) / 2
    got = hostdev.host(ra.linalg.matrix_power(hostdev.dev(a), n))
    np.testing.assert_allclose(got, np.linalg.matrix_power(a, n), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("shapes", [[(3,), (3, 4), (4, 5)], [(2, 3), (3, 4), (4,)], [(3,), (3, 4), (4,)],
                                    [(10, 30), (30, 5), (5, 60), (60, 2)], [(2, 3), (3, 4)]])
def test_multi_dot_on_host(monkeypatch, rng, shapes):
    hostdev.install(monkeypatch)
    arrays = [rng.standard_normal(s) for s in shapes]
    got = hostdev.host(ra.linalg.multi_dot([hostdev.dev(x) for x in arrays]))
    want = np.linalg.multi_dot(arrays)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128", "int64"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, -1, -3])
def test_matrix_power_matches_numpy(rng, dtype, n):
    if n < 0 and np.dtype(dtype).kind == "i":
        pytest.skip("NumPy's inverse of integer matrices is float; covered by the float cases")
    shape = (2, 5, 5)
    a = random_array(rng, shape, dtype)
    if np.dtype(dtype).kind in "fc":
        a = (a / 4 + np.eye(5)).astype(dtype)
    else:
        a = (a % 3).astype(dtype)
    want = np.linalg.matrix_power(a, n)
    got = ra.linalg.matrix_power(to_device(a), n)
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind in "fc":
        ref = np.linalg.matrix_power(wide(a), n)
        assert_close(to_host(got), ref, want.dtype, 5 * max(abs(n), 1) * 8)
    else:
        np.testing.assert_array_equal(to_host(got), want)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32"])
@pytest.mark.parametrize("shapes", [[(3,), (3, 4), (4, 5)], [(2, 3), (3, 4), (4,)], [(3,), (3, 4), (4,)],
                                    [(10, 30), (30, 5), (5, 60), (60, 2)], [(7, 7)] * 5])
def test_multi_dot_matches_numpy(rng, dtype, shapes):
    arrays = [random_array(rng, s, dtype) for s in shapes]
    want = np.linalg.multi_dot(arrays)
    got = ra.linalg.multi_dot([to_device(x) for x in arrays])
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind in "fc":
        assert_close(to_host(got), np.linalg.multi_dot([wide(x) for x in arrays]), want.dtype, 60 * len(shapes),
                     atol_scale=max(1.0, float(np.max(np.abs(want)))))
    else:
        np.testing.assert_array_equal(to_host(got), want)


@pytest.mark.gpu
def test_multi_dot_out(rng):
    arrays = [random_array(rng, s, "float64") for s in [(4, 6), (6, 3), (3, 5)]]
    out = to_device(np.full((4, 5), np.nan))
    assert ra.linalg.multi_dot([to_device(x) for x in arrays], out=out) is out
    assert_close(to_host(out), np.linalg.multi_dot(arrays), "float64", 20)


def test_products_are_exported():
    assert {"matrix_power", "multi_dot"} <= set(ra.linalg.__all__)
    for name in ("matmul", "tensordot", "outer", "kron", "trace", "einsum", "dot"):
        assert name in ra.__all__
    assert list(itertools.islice(pr.power_steps(4), 1)) == [("z", "a", None)]


def test_products_pass_rocblas_argument_checks(monkeypatch, rng):
    hostdev.install_checked(monkeypatch)
    a = rng.standard_normal((2, 6, 6)) / 3
    np.testing.assert_allclose(hostdev.host(ra.linalg.matrix_power(hostdev.dev(a), 6)),
                               np.linalg.matrix_power(a, 6), rtol=1e-10, atol=1e-12)
    arrays = [rng.standard_normal(s) for s in [(5,), (5, 30), (30, 4), (4, 8)]]
    np.testing.assert_allclose(hostdev.host(ra.linalg.multi_dot([hostdev.dev(x) for x in arrays])),
                               np.linalg.multi_dot(arrays), rtol=1e-10)
