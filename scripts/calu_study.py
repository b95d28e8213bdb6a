"""Tournament pivoting (CALU) against partial pivoting on the host, for docs/performance/rocsolver.md:
the backward error of the solve and the growth factor of each, on the matrix classes the GPU
tests use for the large solve, before a device kernel is built.

    python scripts/calu_study.py                  # n = 1024, panels of 32, 16 row blocks
    python scripts/calu_study.py 2048 32 16

CALU as in L. Grigori, J. Demmel, H. Xiang, *CALU: a communication optimal LU factorization
algorithm* (SIAM J. Matrix Anal. Appl. 32, 2011): a right-looking LU whose panel of b columns
takes its b pivot rows from a binary tournament. Each of P row blocks of the panel proposes the
rows partial pivoting picks in it; pairs of proposals merge by partial pivoting on their rows of
the (original) panel; the root's winners go to the top; the panel's top block is then factored
without pivoting and L21 := A21 U11^-1. Partial pivoting is scipy's getrf on the same matrix.
Prints, per class, the backward error ||A x - b|| / (||A|| ||x|| n eps) and the growth factor
max|U| / max|A| of each.
"""

import sys

import numpy
import scipy.linalg


def _gepp_rows(block, b):
    """The rows (indices into ``block``) partial pivoting picks for the first b columns of
    ``block``, in pivot order: the largest magnitude, ties to the lowest index."""
    a = block.astype(numpy.float64, copy=True)
    rows = numpy.arange(a.shape[0])
    k = min(b, a.shape[0], a.shape[1])
    for j in range(k):
        p = j + int(numpy.argmax(numpy.abs(a[j:, j])))
        if p != j:
            a[[j, p]] = a[[p, j]]
            rows[[j, p]] = rows[[p, j]]
        if a[j, j] != 0:
            a[j + 1:, j] /= a[j, j]
            a[j + 1:, j + 1:] -= numpy.outer(a[j + 1:, j], a[j, j + 1:])
    return rows[:k]


def _tournament(panel, blocks):
    """The panel's pivot rows (indices into ``panel``) by a binary tournament over ``blocks`` row
    blocks, in the root's pivot order."""
    m, b = panel.shape
    edges = numpy.linspace(0, m, blocks + 1).astype(int)
    cands = [lo + _gepp_rows(panel[lo:hi], b) for lo, hi in zip(edges[:-1], edges[1:]) if hi > lo]
    while len(cands) > 1:
        merged = []
        for i in range(0, len(cands), 2):
            if i + 1 == len(cands):
                merged.append(cands[i])
                continue
            rows = numpy.concatenate([cands[i], cands[i + 1]])
            merged.append(rows[_gepp_rows(panel[rows], b)])
        cands = merged
    return cands[0]


def calu(a, b, blocks):
    """LU with tournament-pivoted panels of b columns: (lu, perm) with a[perm] = L U."""
    lu = a.astype(numpy.float64, copy=True)
    n = lu.shape[0]
    perm = numpy.arange(n)
    for j0 in range(0, n, b):
        j1 = min(j0 + b, n)
        win = j0 + _tournament(lu[j0:, j0:j1], blocks)
        # the winners to the top, in the root's order; the other rows keep theirs
        chosen = set(int(r) for r in win)
        new = numpy.array([int(r) for r in win] + [r for r in range(j0, n) if r not in chosen])
        lu[j0:] = lu[new]
        perm[j0:] = perm[new]
        # the panel without pivoting: its top block, then L21 := A21 U11^-1
        for j in range(j0, j1):
            if lu[j, j] != 0:
                lu[j + 1:j1, j] /= lu[j, j]
            lu[j + 1:j1, j + 1:j1] -= numpy.outer(lu[j + 1:j1, j], lu[j, j + 1:j1])
        u11 = numpy.triu(lu[j0:j1, j0:j1])
        if j1 < n:
            lu[j1:, j0:j1] = scipy.linalg.solve_triangular(u11, lu[j1:, j0:j1].T, trans="T", lower=False).T
            # U12 := L11^-1 A12, A22 -= L21 U12
            l11 = numpy.tril(lu[j0:j1, j0:j1], -1) + numpy.eye(j1 - j0)
            lu[j0:j1, j1:] = scipy.linalg.solve_triangular(l11, lu[j0:j1, j1:], lower=True, unit_diagonal=True)
            lu[j1:, j1:] -= lu[j1:, j0:j1] @ lu[j0:j1, j1:]
    return lu, perm


def _solve(lu, perm, rhs):
    y = scipy.linalg.solve_triangular(lu, rhs[perm], lower=True, unit_diagonal=True)
    return scipy.linalg.solve_triangular(lu, y, lower=False)


def _classes(n, rng):
    """The matrix classes: name -> matrix."""
    u, _ = numpy.linalg.qr(rng.standard_normal((n, n)))
    v, _ = numpy.linalg.qr(rng.standard_normal((n, n)))
    ill = (u * numpy.logspace(0, -10, n)) @ v.T
    rank = rng.standard_normal((n, n // 2)) @ rng.standard_normal((n // 2, n))
    # Wilkinson's matrix (partial pivoting's growth 2^(w-1)) of order w <= 512 (no overflow), then
    # the identity
    w = min(n, 512)
    wilkinson = numpy.eye(n)
    wilkinson[:w, :w] += numpy.tril(-numpy.ones((w, w)), -1)
    wilkinson[:w, w - 1] = 1.0
    return {
        "random normal": rng.standard_normal((n, n)),
        "random uniform [0, 1)": rng.random((n, n)),
        "cond 1e10": ill,
        "rank n/2 (+1e-12 noise)": rank + 1e-12 * rng.standard_normal((n, n)),
        "Wilkinson (order <= 512)": wilkinson,
        "diagonally dominant": rng.standard_normal((n, n)) + n * numpy.eye(n),
        "tied magnitudes (+-1)": rng.choice([-1.0, 1.0], size=(n, n)),
    }


def main(argv):
    n = int(argv[0]) if argv else 1024
    b = int(argv[1]) if len(argv) > 1 else 32
    blocks = int(argv[2]) if len(argv) > 2 else 16
    rng = numpy.random.default_rng(0)
    eps = numpy.finfo(numpy.float64).eps
    print(f"n = {n}, panels of {b} columns, {blocks} row blocks; backward error "
          "||Ax-b|| / (||A|| ||x|| n eps), growth max|U| / max|A|")
    print(f"{'matrix':34s} {'GEPP error':>11s} {'CALU error':>11s} {'GEPP growth':>12s} {'CALU growth':>12s}")
    for name, a in _classes(n, rng).items():
        rhs = rng.standard_normal(n)
        lu_p, piv = scipy.linalg.lu_factor(a, check_finite=False)
        x_p = scipy.linalg.lu_solve((lu_p, piv), rhs)
        lu_c, perm = calu(a, b, blocks)
        x_c = _solve(lu_c, perm, rhs)
        norm = numpy.linalg.norm(a, numpy.inf)

        def err(x):
            return numpy.linalg.norm(a @ x - rhs, numpy.inf) / (norm * numpy.linalg.norm(x, numpy.inf) * n * eps)

        amax = numpy.abs(a).max()
        growth_p = numpy.abs(numpy.triu(lu_p)).max() / amax
        growth_c = numpy.abs(numpy.triu(lu_c)).max() / amax
        print(f"{name:34s} {err(x_p):11.2e} {err(x_c):11.2e} {growth_p:12.3g} {growth_c:12.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
