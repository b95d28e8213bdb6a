"""``scripts/calu_study.py``'s host CALU (tournament pivoting), the reference a device kernel of it
would be checked against: a factorization of the permuted matrix, partial pivoting's pivots with
one row block, and the study's table on a small order."""

import importlib.util
import os

import numpy as np
import pytest
import scipy.linalg

SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts")


@pytest.fixture(scope="module")
def study():
    spec = importlib.util.spec_from_file_location("rocarray_script_calu_study", os.path.join(SCRIPTS, "calu_study.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("n,b,blocks", [(1, 4, 2), (37, 8, 4), (100, 16, 3), (96, 32, 5)])
def test_calu_factors_the_permuted_matrix(study, n, b, blocks):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n))
    lu, perm = study.calu(a, b, blocks)
    assert sorted(perm.tolist()) == list(range(n))
    lower = np.tril(lu, -1) + np.eye(n)
    upper = np.triu(lu)
    np.testing.assert_allclose(lower @ upper, a[perm], atol=1e-12 * n * np.abs(a).max())
    rhs = rng.standard_normal(n)
    x = study._solve(lu, perm, rhs)
    np.testing.assert_allclose(a @ x, rhs, atol=1e-9)


def test_one_row_block_is_partial_pivoting(study):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((64, 64))
    lu, perm = study.calu(a, 16, 1)
    lu_p, piv = scipy.linalg.lu_factor(a)
    perm_p = np.arange(64)
    for i, p in enumerate(piv):
        perm_p[[i, p]] = perm_p[[p, i]]
    np.testing.assert_array_equal(perm, perm_p)
    np.testing.assert_allclose(lu, lu_p, atol=1e-12)


def test_tournament_winners_beat_their_block(study):
    # a panel whose largest element sits in the last row block wins the first pivot
    panel = np.ones((40, 4))
    panel[37, 0] = 9.0
    win = study._tournament(panel, 4)
    assert win[0] == 37 and len(set(win.tolist())) == 4


def test_study_table_runs(study, capsys):
    assert study.main(["64", "8", "4"]) == 0
    out = capsys.readouterr().out
    assert "Wilkinson" in out and "CALU error" in out
