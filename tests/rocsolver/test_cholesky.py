"""rocsolver potrf/potrs/potri (plain and strided batched) and trtri.

CPU tests run the drivers (the recursion, its splits, the info bookkeeping and the batch paths) on
host buffers with NumPy stand-ins for rocblas and the kernels (``cholesky_host``), with tiny
diagonal blocks so that the recursion goes deep and ragged; they also cover every argument error
on fake device arrays never launched on, and the kernels' registration.

GPU tests store matrices column-major in 1-D device buffers with spare elements (lda > n) and the
unreferenced triangle NaN, and check backward errors against NumPy in float64/complex128:
``||L L^H - A|| / (||A|| n eps)``, ``||A X - B|| / (||A|| ||X|| n eps)``, ``||A inv(A) - I||``.
"""

import numpy as np
import pytest

import cholesky_host as host
from conftest import fake, random_array, to_device, to_host

from launchfake import fake_device  # noqa: F401 (the fixture the routing tests record with)

from rocarray._core import backend, compile as _compile
from rocarray.rocsolver import _cholesky, _cholesky_block, _cholesky_kernels, _trtri
import rocarray.rocsolver as rocsolver

ALL = ["float32", "float64", "complex64", "complex128"]
EPS = {np.dtype(d): np.finfo(d).eps for d in ALL}


def spd(rng, n, dtype, cond=None):
    """A Hermitian positive definite n x n matrix (float64/complex128 host)."""
    x = random_array(rng, (n, n), np.complex128 if np.dtype(dtype).kind == "c" else np.float64)
    a = x @ x.conj().T / max(n, 1) + np.eye(n)
    if cond is not None:
        q, _ = np.linalg.qr(x)
        a = (q * np.logspace(0, -np.log10(cond), n)) @ q.conj().T
    return a


def packed(a, lda, uplo, dtype, batch=1, stride=None, fill=np.nan):
    """``batch`` copies of a's ``uplo`` triangle in a 1-D column-major buffer, the rest ``fill``."""
    n = a.shape[-1]
    stride = lda * n if stride is None else stride
    buf = np.full(max((batch - 1) * stride + lda * n, 1) + 3, fill, dtype)
    for b in range(batch):
        m = host.view(buf[b * stride:], n, n, lda)
        host.put_triangle(m, np.asarray(a[b] if a.ndim == 3 else a).astype(dtype), uplo)
    return buf


def factor_error(buf, a, lda, uplo, dtype):
    n = a.shape[0]
    t = host.tri(host.view(buf, n, n, lda).astype(a.dtype), uplo)
    rebuilt = t @ t.conj().T if uplo == "L" else t.conj().T @ t
    if n == 0:
        return 0.0
    return np.linalg.norm(rebuilt - a) / (np.linalg.norm(a) * n * EPS[np.dtype(dtype)])


def other_triangle_untouched(buf, n, lda, uplo):
    m = host.view(buf, n, n, lda)
    i, j = np.indices((n, n))
    other = (i > j) if uplo == "U" else (i < j)
    return np.isnan(m[other]).all()


@pytest.fixture
def stand_ins(monkeypatch):
    blas, kern = host.Blas(), host.Kernels(inverse_nb=4)   # tiny diagonal blocks: deep recursion
    for module in (_cholesky, _trtri):
        monkeypatch.setattr(module, "blas", blas)
        monkeypatch.setattr(module, "kern", kern)
    monkeypatch.setattr(_cholesky, "block", host.Block(kern.calls))
    return blas, kern


# --------------------------------------------------------------------------------------------
# CPU: the drivers on NumPy stand-ins
# --------------------------------------------------------------------------------------------

def _factor_checked(stand_ins, rng, dtype, uplo, n, nb):
    """An SPD matrix of order n factored by the recursion on stand-ins with leaves of order nb, in a
    buffer with spare rows (lda = n + 3); asserts info 0, the factor's backward error and the other
    triangle untouched. Returns the buffer and the kernel stand-ins (their recorded calls)."""
    a = spd(rng, n, dtype)
    lda = n + 3
    buf = packed(a, lda, uplo, dtype)
    info = np.full(1, -7, np.int32)
    kern = stand_ins[1]
    kern.inverse_nb = nb
    _cholesky.factor_batch(uplo, n, buf, lda, 0, info, 1, 0)
    assert info[0] == 0
    assert factor_error(buf, a, lda, uplo, dtype) < 10
    assert other_triangle_untouched(buf, n, lda, uplo)
    return buf, kern


@pytest.mark.parametrize("n, nb", [(0, 4), (1, 4), (4, 4), (5, 4), (13, 4), (32, 8), (37, 4), (70, 16)])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ALL)
def test_recursive_factor_matches_cholesky(stand_ins, rng, dtype, uplo, n, nb):
    buf, kern = _factor_checked(stand_ins, rng, dtype, uplo, n, nb)
    leaves = [c for c in kern.calls if c[0] == "potf2_inv"]
    assert all(c[1] <= nb for c in leaves) and sum(c[1] for c in leaves) == n


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("k", [1, 3, 4, 5, 9, 17, 23])
def test_info_is_the_first_failing_minor(stand_ins, rng, k, uplo):
    n = 23
    a = spd(rng, n, "float64")
    a[k - 1, k - 1] -= 1e3  # the leading minor of order k is the first that is not positive definite
    buf = packed(a, n, uplo, "float64")
    info = np.zeros(1, np.int32)
    _cholesky.factor_batch(uplo, n, buf, n, 0, info, 1, 0)
    assert info[0] == k


@pytest.mark.parametrize("k", [1, 6, 11])
def test_nan_on_the_diagonal_fails_at_its_column(stand_ins, rng, k):
    n = 11
    a = spd(rng, n, "complex128")
    a[k - 1, k - 1] = np.nan
    buf = packed(a, n, "L", "complex128")
    info = np.zeros(1, np.int32)
    _cholesky.factor_batch("L", n, buf, n, 0, info, 1, 0)
    assert info[0] == k


@pytest.mark.parametrize("dtype, n, limit, route", [
    ("float32", 9, 1 << 20, "potrf_block"),   # the register-tile launch for the batch
    ("float32", 9, 0, "potrf_block"),         # (it needs no dynamic shared memory)
    ("complex128", 70, 1 << 20, "potf2"),     # past the register tiles, in one block's shared memory
    ("complex128", 70, 0, "potf2_inv"),       # one recursion each
])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_batch_info_per_matrix(stand_ins, rng, uplo, dtype, n, limit, route):
    batch, lda = 5, n + 1
    mats = np.stack([spd(rng, n, dtype) for _ in range(batch)])
    mats[1, 4, 4] = -1.0
    mats[3, 0, 0] = 0.0
    stride = lda * n + 2
    buf = packed(mats, lda, uplo, dtype, batch, stride)
    info = np.full(batch, 99, np.int32)
    _cholesky.factor_batch(uplo, n, buf, lda, stride, info, batch, limit)
    assert info.tolist() == [0, 5, 0, 1, 0]
    for b in (0, 2, 4):
        assert factor_error(buf[b * stride:], mats[b], lda, uplo, dtype) < 10
    _, kern = stand_ins
    if route == "potf2_inv":
        assert {c[0] for c in kern.calls} == {"potf2_inv", "lacpy"}
        assert all(c[2] == 1 for c in kern.calls if c[0] == "potf2_inv")
    else:
        assert kern.calls == [(route, n, batch)]


@pytest.mark.parametrize("limit", [1 << 20, 0])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ALL)
def test_solve_batch_matches_numpy(stand_ins, rng, dtype, uplo, limit):
    n, nrhs, batch, lda, ldb = 7, 3, 3, 8, 9
    mats = np.stack([spd(rng, n, dtype) for _ in range(batch)])
    buf = packed(mats, lda, uplo, dtype, batch)
    info = np.zeros(batch, np.int32)
    _cholesky.factor_batch(uplo, n, buf, lda, lda * n, info, batch, 1 << 20)
    rhs = random_array(rng, (batch, n, nrhs), dtype)
    bbuf = np.zeros(batch * ldb * nrhs, dtype)
    for b in range(batch):
        host.view(bbuf[b * ldb * nrhs:], n, nrhs, ldb)[...] = rhs[b]
    _cholesky.solve_batch(uplo, n, nrhs, buf, lda, lda * n, bbuf, ldb, ldb * nrhs, batch, limit)
    for b in range(batch):
        x = host.view(bbuf[b * ldb * nrhs:], n, nrhs, ldb)
        np.testing.assert_allclose(mats[b] @ x, rhs[b], atol=1e3 * EPS[np.dtype(dtype)] * n)


@pytest.mark.parametrize("n, nb", [(1, 4), (4, 4), (5, 4), (19, 4), (40, 8)])
@pytest.mark.parametrize("diag", ["N", "U"])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_recursive_trtri_matches_inverse(stand_ins, rng, dtype, uplo, diag, n, nb):
    t = random_array(rng, (n, n), dtype) * (0.5 / n) + 2 * np.eye(n)
    buf = packed(t, n + 1, uplo, dtype)
    if diag == "U":
        host.view(buf, n, n, n + 1)[np.diag_indices(n)] = np.nan
    info = np.full(1, 5, np.int32)
    _trtri.invert(uplo, diag, n, buf, n + 1, info, nb)
    assert info[0] == 0
    want = np.linalg.inv(host.tri(t, uplo, diag == "U"))
    got = host.view(buf, n, n, n + 1)
    i, j = np.indices((n, n))
    keep = ((i <= j) if uplo == "U" else (i >= j)) & ((i != j) if diag == "U" else True)
    np.testing.assert_allclose(got[keep], want[keep], rtol=1e-10, atol=1e-12)
    assert other_triangle_untouched(buf, n, n + 1, uplo)
    if diag == "U":
        assert np.isnan(np.diag(got)).all()


def test_trtri_info_is_the_first_zero_diagonal(stand_ins, rng):
    n = 10
    t = random_array(rng, (n, n), "float64") + 3 * np.eye(n)
    t[6, 6] = t[8, 8] = 0
    buf = packed(t, n, "U", "float64")
    info = np.zeros(1, np.int32)
    _trtri.invert("U", "N", n, buf, n, info, 4)
    assert info[0] == 7


@pytest.mark.parametrize("n, nb", [(1, 4), (6, 4), (21, 4), (33, 8)])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_recursive_lauum(stand_ins, rng, dtype, uplo, n, nb):
    t = random_array(rng, (n, n), dtype)
    buf = packed(t, n + 2, uplo, dtype)
    _trtri.lauum(uplo, n, buf, n + 2, nb)
    tt = host.tri(t.astype(np.complex128), uplo)
    want = tt @ tt.conj().T if uplo == "U" else tt.conj().T @ tt
    got = host.view(buf, n, n, n + 2).astype(np.complex128)
    i, j = np.indices((n, n))
    keep = (i <= j) if uplo == "U" else (i >= j)
    np.testing.assert_allclose(got[keep], want[keep], rtol=1e-4, atol=1e-4 * n)
    assert other_triangle_untouched(buf, n, n + 2, uplo)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_potri_pipeline_gives_the_inverse(stand_ins, rng, uplo):
    n = 26
    a = spd(rng, n, "complex128")
    buf = packed(a, n, uplo, "complex128")
    info = np.zeros(1, np.int32)
    _cholesky.factor_batch(uplo, n, buf, n, 0, info, 1, 0)
    _trtri.invert(uplo, "N", n, buf, n, info, 4)
    _trtri.lauum(uplo, n, buf, n, 4)
    inv = host.hermitian_from(host.view(buf, n, n, n), uplo)
    np.testing.assert_allclose(inv @ a, np.eye(n), atol=1e-10)


@pytest.mark.parametrize("n, nb", [(1, 16), (127, 16), (128, 16), (129, 16), (300, 32), (1000, 64), (1000, 16)])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_inverse_leaves_and_panels_give_the_factor(stand_ins, rng, dtype, uplo, n, nb):
    # the recursion with potf2_inv leaves and every panel solve by gemms with their inverses
    buf, kern = _factor_checked(stand_ins, rng, dtype, uplo, n, nb)
    blas = stand_ins[0]
    assert np.isnan(buf[-3:]).all()
    leaves = [c for c in kern.calls if c[0] == "potf2_inv"]
    assert [c[1] for c in leaves] == [nb] * (n // nb) + ([n % nb] if n % nb else [])
    assert "trsm" not in blas.calls and not any(c[0] == "potf2" for c in kern.calls)
    # every panel fits the staging area here: one copy each (one per inner node of the recursion),
    # and one leaf gemm per block of every left half
    copies = [c for c in kern.calls if c[0] == "lacpy"]
    panels, leaf_blocks = count_panels(n, nb)
    assert len(copies) == panels and blas.calls.count("gemm") >= leaf_blocks
    assert sum(c[1] * c[2] for c in copies) == staged_elements(n, nb)


def count_panels(n, nb):
    """(panels, blocks of the panels' leaves) of the recursion of order n with leaves of nb."""
    if n <= nb:
        return 0, 0
    n1 = _cholesky.split(n, nb)
    p1, b1 = count_panels(n1, nb)
    p2, b2 = count_panels(n - n1, nb)
    return 1 + p1 + p2, n1 // nb + b1 + b2


def staged_elements(n, nb):
    """Elements of every panel of the recursion (each is staged once)."""
    if n <= nb:
        return 0
    n1 = _cholesky.split(n, nb)
    return n1 * (n - n1) + staged_elements(n1, nb) + staged_elements(n - n1, nb)


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("stage", [1, 40 * 16, 100 * 64])
def test_panels_larger_than_the_staging_area_split(stand_ins, rng, monkeypatch, uplo, stage):
    # a staging area smaller than the panels (down to none: every leaf copies its own block): the
    # panels split until their parts fit, every element still staged exactly once
    n, nb = 300, 16
    monkeypatch.setattr(_cholesky, "STAGE_BYTES", stage * 8)
    buf, kern = _factor_checked(stand_ins, rng, "float64", uplo, n, nb)
    copies = [c for c in kern.calls if c[0] == "lacpy"]
    assert sum(c[1] * c[2] for c in copies) == staged_elements(n, nb)
    assert all(c[1] * c[2] <= max(stage, n * _cholesky.MERGED_LEAVES * nb) for c in copies)
    assert len(copies) > count_panels(n, nb)[0]


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("k", [1, 16, 17, 40, 129, 300])
def test_inverse_path_info_is_the_first_failing_minor(stand_ins, rng, uplo, k):
    n = 300
    a = spd(rng, n, "float64")
    a[k - 1, k - 1] -= 1e4
    buf = packed(a, n, uplo, "float64")
    info = np.full(1, 5, np.int32)
    _, kern = stand_ins
    kern.inverse_nb = 16
    _cholesky.factor_batch(uplo, n, buf, n, 0, info, 1, 0)
    assert info[0] == k
    # the columns before the failure are the factor of the leading minor
    want = np.linalg.cholesky(a[:k - 1, :k - 1]) if k > 1 else np.zeros((0, 0))
    t = host.tri(host.view(buf, n, n, n), uplo)
    s = t if uplo == "L" else t.conj().T
    np.testing.assert_allclose(s[:k - 1, :k - 1], want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("cond", [1e10, 1e14])
def test_inverse_panels_keep_the_backward_error_when_ill_conditioned(stand_ins, rng, uplo, cond):
    # the inverse-based panel solves (leaves of 128, as on the device) against NumPy's
    # substitution-based potrf on SPD matrices of condition 1e10 and 1e14
    n = 600
    a = spd(rng, n, "float64", cond=cond)
    a = (a + a.T) / 2
    buf = packed(a, n, uplo, "float64")
    info = np.zeros(1, np.int32)
    _, kern = stand_ins
    kern.inverse_nb = 128
    _cholesky.factor_batch(uplo, n, buf, n, 0, info, 1, 0)
    assert info[0] == 0
    low = np.linalg.cholesky(a)
    theirs = np.linalg.norm(low @ low.T - a) / (np.linalg.norm(a) * n * EPS[np.dtype("float64")])
    assert factor_error(buf, a, n, uplo, "float64") < max(0.1, 10 * theirs)


def test_panel_leaves_read_only_their_copy(rng):
    # the stand-in gemm refuses an output that overlaps an input: the panel's leaf gemm must read
    # the copy in the workspace, never the block it overwrites (checked for both triangles above);
    # here the inverse-based panel alone, against a triangular solve
    blas, kern = host.Blas(), host.Kernels(inverse_nb=8)
    n, m, nb = 24, 11, 8
    for uplo in "LU":
        t = np.tril(random_array(rng, (n, n), "float64")) * 0.1 + 2 * np.eye(n)
        s = t if uplo == "L" else t.T.copy()
        tbuf = np.full(n * n, np.nan)
        host.put_triangle(host.view(tbuf, n, n, n), s, uplo)
        inv = np.full(3 * nb * nb, np.nan)
        for p in range(3):
            host.view(inv[p * nb * nb:], nb, nb, nb)[...] = np.linalg.inv(t[p * nb:(p + 1) * nb, p * nb:(p + 1) * nb])
        shape = (m, n) if uplo == "L" else (n, m)
        b = random_array(rng, shape, "float64")
        bbuf = np.asfortranarray(b).T.reshape(-1).copy()
        import rocarray.rocsolver._cholesky as drv
        old = drv.blas, drv.kern
        drv.blas, drv.kern = blas, kern
        try:
            _cholesky.panel(uplo, m, n, tbuf, n, bbuf, shape[0], inv, nb, np.full(m * nb, np.nan))
        finally:
            drv.blas, drv.kern = old
        got = host.view(bbuf, *shape, shape[0])
        want = b @ np.linalg.inv(t).T if uplo == "L" else np.linalg.inv(t) @ b
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("merged", [1, 2, 4])
@pytest.mark.parametrize("n, nb", [(9, 4), (37, 4), (100, 8), (300, 16)])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_panels_through_merged_inverses_give_the_factor(stand_ins, rng, monkeypatch, dtype, uplo, n, nb, merged):
    # the panels use inverses of blocks of ``merged`` leaves (1: the leaves' own), joined by
    # merge (nested for 4); each block's inverse in the workspace is the inverse of its factor
    # block, every one but the matrix's last (which no panel reads)
    monkeypatch.setattr(_cholesky, "MERGED_LEAVES", merged)
    a = spd(rng, n, dtype)
    lda = n + 2
    buf, info = packed(a, lda, uplo, dtype), np.zeros(1, np.int32)
    stand_ins[1].inverse_nb = nb
    inv, tmp = _cholesky.inverse_workspace(n, nb, buf)
    _cholesky.factor_inv(uplo, n, buf, lda, info, nb, inv, tmp)
    assert info[0] == 0
    assert factor_error(buf, a, lda, uplo, dtype) < 10
    assert other_triangle_untouched(buf, n, lda, uplo)
    t = host.tri(host.view(buf, n, n, lda), uplo)
    s = t if uplo == "L" else t.conj().T
    P = merged * nb
    for q in range(-(-n // P) - 1):
        block = s[q * P:(q + 1) * P, q * P:(q + 1) * P]
        got = host.view(inv[q * P * P:], P, P, P)
        np.testing.assert_allclose(got @ block, np.eye(P), atol=1e-10)
        assert np.all(np.triu(got, 1) == 0)


def test_merge_joins_two_inverses(rng):
    # X21 := -X22 (S21 X11) for both storages, against NumPy's inverse of the whole block
    blas = host.Blas()
    import rocarray.rocsolver._cholesky as drv
    old = drv.blas
    drv.blas = blas
    try:
        for uplo in "LU":
            for n1, n2 in ((4, 4), (4, 3), (8, 5)):
                n, ld = n1 + n2, n1 + n2 + 3
                s = np.tril(random_array(rng, (n, n), "complex128")) + 3 * np.eye(n)
                a = np.full(ld * n, np.nan, complex)
                host.put_triangle(host.view(a, n, n, ld), s if uplo == "L" else s.conj().T, uplo)
                x = np.zeros(ld * n, complex)
                host.view(x, n1, n1, ld)[...] = np.linalg.inv(s[:n1, :n1])
                host.view(x[n1 + n1 * ld:], n2, n2, ld)[...] = np.linalg.inv(s[n1:, n1:])
                w = a[n1:] if uplo == "L" else a[n1 * ld:]
                _cholesky.merge(uplo, n1, n2, w, ld, x, ld, np.full(n1 * n2, np.nan, complex))
                np.testing.assert_allclose(host.view(x, n, n, ld), np.linalg.inv(s), atol=1e-12)
    finally:
        drv.blas = old


def _band_mask(n, uplo, width):
    """The strict other triangle's elements at least ``width`` off the diagonal."""
    i, j = np.indices((n, n))
    return ((i < j) if uplo == "L" else (i > j)) & (np.abs(i - j) >= width)


@pytest.mark.parametrize("n", [1, 7, 8, 9, 16, 17, 40, 64, 65, 100])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_trailing_update_matches_numpy(rng, monkeypatch, dtype, uplo, n):
    # C := C - W W^H (lower) or C - W^H W (upper) on C's triangle, with diagonal squares of 8: one
    # gemm up to 8, then levels of block pairs (ragged ones included) and the batched squares
    monkeypatch.setattr(_cholesky, "UPDATE_DIAGONAL", 8)
    blas = host.Blas()
    monkeypatch.setattr(_cholesky, "blas", blas)
    k, ldw, ldc = 5, n + 2, n + 3
    w = random_array(rng, (n, k) if uplo == "L" else (k, n), dtype)
    wbuf = np.full(ldw * w.shape[1] + 2, np.nan, dtype)
    host.view(wbuf, *w.shape, ldw)[...] = w
    c = spd(rng, n, dtype).astype(dtype)
    cbuf = packed(c, ldc, uplo, dtype)
    _cholesky.trailing_update(uplo, n, k, wbuf, ldw, cbuf, ldc)
    want = c - (w @ w.conj().T if uplo == "L" else w.conj().T @ w)
    got = host.view(cbuf, n, n, ldc)
    keep = np.tril(np.ones((n, n), bool)) if uplo == "L" else np.triu(np.ones((n, n), bool))
    np.testing.assert_allclose(got[keep], want[keep], rtol=1e-12, atol=1e-12)
    assert np.isnan(got[_band_mask(n, uplo, 8)]).all()   # written only inside the diagonal squares
    assert np.isnan(host.view(cbuf, ldc, n, ldc)[n:]).all() and np.isnan(cbuf[ldc * n:]).all()
    assert "syrk" not in blas.calls and "herk" not in blas.calls
    assert ("gemm_strided_batched" in blas.calls) == (n >= 16)   # two or more squares of 8


@pytest.mark.parametrize("n, nb, diag", [(1, 4, 8), (13, 4, 8), (37, 4, 8), (70, 16, 16), (100, 4, 8),
                                         (300, 16, 32), (301, 16, 48)])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ALL)
def test_scratch_other_triangle_gives_the_factor(stand_ins, rng, monkeypatch, dtype, uplo, n, nb, diag):
    # keep_other=False (ra.linalg.cholesky's path): the same factor as the syrk/herk path, no
    # syrk/herk, the other triangle written only inside the trailing updates' diagonal squares,
    # the spare rows and the buffer's tail untouched
    monkeypatch.setattr(_cholesky, "UPDATE_DIAGONAL", diag)
    a = spd(rng, n, dtype)
    lda = n + 3
    blas, kern = stand_ins
    kern.inverse_nb = nb
    bufs, calls = [], []
    for keep in (True, False):
        blas.calls.clear()
        buf, info = packed(a, lda, uplo, dtype), np.full(1, -7, np.int32)
        _cholesky.factor_batch(uplo, n, buf, lda, 0, info, 1, 0, keep_other=keep)
        assert info[0] == 0
        assert factor_error(buf, a, lda, uplo, dtype) < 10
        bufs.append(buf)
        calls.append({c for c in blas.calls if c in ("syrk", "herk")})
    assert calls == [{"herk" if np.dtype(dtype).kind == "c" else "syrk"} if n > nb else set(), set()]
    keep_tri = host.tri(host.view(bufs[0], n, n, lda), uplo)
    got_tri = host.tri(host.view(bufs[1], n, n, lda), uplo)
    tol = 100 * n * EPS[np.dtype(dtype)]
    np.testing.assert_allclose(got_tri, keep_tri, rtol=tol, atol=tol)
    assert np.isnan(host.view(bufs[1], n, n, lda)[_band_mask(n, uplo, diag)]).all()
    assert np.isnan(host.view(bufs[1], lda, n, lda)[n:]).all() and np.isnan(bufs[1][lda * n:]).all()


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("k", [1, 16, 17, 40, 129, 300])
def test_scratch_other_triangle_info_is_the_first_failing_minor(stand_ins, rng, monkeypatch, uplo, k):
    monkeypatch.setattr(_cholesky, "UPDATE_DIAGONAL", 32)
    n = 300
    a = spd(rng, n, "float64")
    a[k - 1, k - 1] -= 1e4
    buf = packed(a, n, uplo, "float64")
    info = np.full(1, 5, np.int32)
    stand_ins[1].inverse_nb = 16
    _cholesky.factor_batch(uplo, n, buf, n, 0, info, 1, 0, keep_other=False)
    assert info[0] == k
    want = np.linalg.cholesky(a[:k - 1, :k - 1]) if k > 1 else np.zeros((0, 0))
    t = host.tri(host.view(buf, n, n, n), uplo)
    s = t if uplo == "L" else t.conj().T
    np.testing.assert_allclose(s[:k - 1, :k - 1], want, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_scratch_other_triangle_batch(stand_ins, rng, monkeypatch, uplo):
    # a stack of matrices too large for one block, the second not positive definite: one recursion
    # each, info per matrix, the first factor right
    monkeypatch.setattr(_cholesky, "UPDATE_DIAGONAL", 8)
    n, batch = 40, 3
    a = np.stack([spd(rng, n, "float64") for _ in range(batch)])
    a[1, 20, 20] = -1.0
    buf = packed(a, n, uplo, "float64", batch=batch, stride=n * n + 5)
    info = np.full(batch, 9, np.int32)
    stand_ins[1].inverse_nb = 4
    _cholesky.factor_batch(uplo, n, buf, n, n * n + 5, info, batch, 0, keep_other=False)
    assert list(info) == [0, 21, 0]
    for b in (0, 2):
        assert factor_error(buf[b * (n * n + 5):], a[b], n, uplo, "float64") < 10
    assert np.isnan(buf[n * n:n * n + 5]).all() and np.isnan(buf[2 * (n * n + 5) - 5:2 * (n * n + 5)]).all()


@pytest.fixture
def recorded(fake_device, monkeypatch):
    monkeypatch.setattr(_cholesky_kernels, "clear_info", lambda info, batch: None)   # a CuPy fill
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: 232448)
    return fake_device


@pytest.mark.parametrize("dtype, n, leaf", [("float64", 1, 1), ("float64", 128, 128), ("float32", 100, 100),
                                            ("complex128", 64, 64), ("complex64", 128, 128)])
def test_potrf_routes_one_block_to_potf2_inv(recorded, dtype, n, leaf):
    A, info = recorded.array((n * n,), dtype), recorded.array((1,), "int32")
    rocsolver.potrf("L", n, A, n, info)
    assert recorded.names() == [_cholesky_kernels.inverse_kernel_name(dtype)]
    launch = recorded.launches[0]
    assert launch.grid == (1, 1, 1) and launch.block == (256, 1, 1) and int(launch.args[0]) == leaf


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype, n", [("float64", 129), ("float64", 300), ("complex128", 65), ("float32", 1000)])
def test_potrf_routes_large_orders_without_trsm(recorded, dtype, uplo, n):
    A, info = recorded.array((n * n,), dtype), recorded.array((1,), "int32")
    rocsolver.potrf(uplo, n, A, n, info)
    names = recorded.names()
    nb = _cholesky_kernels.inverse_leaf_order(dtype)
    leaves = [x for x in names if "potf2_inv" in x]
    assert len(leaves) == -(-n // nb) and set(leaves) == {_cholesky_kernels.inverse_kernel_name(dtype)}
    assert not any("trsm" in x or "ra_rocsolver_potf2<" in x for x in names)
    assert any("lacpy" in x for x in names) and any("gemm" in x for x in names)


@pytest.mark.parametrize("dtype, copies", [("float64", 4 + 2 + 4 + 8 + 16 + 32),
                                           ("complex128", 8 + 2 * 2 + 4 + 8 + 16 + 32 + 64)])
def test_potrf_bench_order_stages_each_panel_once(recorded, dtype, copies):
    # 8192: 64 leaves of 128 (complex128: 128 of 64); one copy per panel, but a panel larger than
    # the staging area of 32 MB goes in parts: float64's top panel (4096^2) in 4, complex128's in 8
    # and its two 2048^2 panels in 2 each
    n = 8192
    A, info = recorded.array((n * n,), dtype), recorded.array((1,), "int32")
    rocsolver.potrf("L", n, A, n, info)
    names = recorded.names()
    nb = _cholesky_kernels.inverse_leaf_order(dtype)
    assert sum("potf2_inv" in x for x in names) == n // nb
    assert sum("lacpy" in x for x in names) == copies
    assert not any("trsm" in x for x in names)


@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype, keep, launches, gemms", [
    ("float64", True, 521, 312), ("float64", False, 443, 297),
    ("complex128", True, 1067, 664), ("complex128", False, 925, 649)])
def test_potrf_bench_order_launch_counts(recorded, dtype, uplo, keep, launches, gemms):
    # the launches of one 8192 factorization (ra.linalg.cholesky's path is keep_other=False): the
    # leaves, one copy per staged panel, gemms (panel leaves through inverses of blocks of two
    # leaves, panel updates, the two gemms joining each pair's inverses, trailing updates, split-k
    # finishes) and, keeping the other triangle, one merge of syrk's diagonal squares per
    # trailing update; a change in the recursion or the updates' blocking shows here
    n = 8192
    A, info = recorded.array((n * n,), dtype), recorded.array((1,), "int32")
    rocsolver.potrf_strided_batched(uplo, n, A, n, n * n, info, 1, keep_other=keep)
    names = recorded.names()
    nb = _cholesky_kernels.inverse_leaf_order(dtype)
    assert len(names) == launches
    assert sum("potf2_inv" in x for x in names) == n // nb
    assert sum(x.startswith("ra_rocblas_gemm") and "splitk" not in x for x in names) == gemms
    assert sum("tri_merge" in x for x in names) == (n // nb - 1 if keep else 0)
    assert not any("trsm" in x or "syrk" in x for x in names)


@pytest.mark.parametrize("dtype, n, batch, name, grid", [
    ("float32", 32, 100000, "ra_rocsolver_potrf_block<float, 8, 4>", 6250),      # 16 matrices a block
    ("float64", 1, 17, "ra_rocsolver_potrf_block<double, 8, 4>", 2),
    ("float64", 40, 7, "ra_rocsolver_potrf_block<double, 8, 8>", 2),             # 4 a block
    ("complex64", 65, 3, "ra_rocsolver_potrf_block<ra_c64, 8, 16>", 3),          # 1 a block
    ("float64", 128, 10000, "ra_rocsolver_potrf_block<double, 8, 16>", 10000),
    ("complex128", 33, 5, "ra_rocsolver_potrf_block<ra_c128, 4, 16>", 5),
    ("complex128", 32, 5, "ra_rocsolver_potrf_block<ra_c128, 4, 8>", 2),
])
def test_potrf_batches_of_small_matrices_route_to_the_register_tiles(recorded, dtype, n, batch, name, grid):
    A, info = recorded.array((batch * n * n,), dtype), recorded.array((batch,), "int32")
    rocsolver.potrf_strided_batched("U", n, A, n, n * n, info, batch)
    assert recorded.names() == [name]
    launch = recorded.launches[0]
    assert launch.grid == (grid, 1, 1) and launch.block == (256, 1, 1)
    # (n, A, a_i, a_k, a_m, F, f_i, f_k, f_m, batch, info, flags): 'U' column-major in place is
    # S(i, k) = conj(A[k + i * n]), lanes along k
    args = [int(x) for x in launch.args[2:5]] + [int(x) for x in launch.args[6:10]] + [int(launch.args[11])]
    assert int(launch.args[0]) == n and args == [n, 1, n * n, n, 1, n * n, batch, 1 | (2 if n > 1 else 0)]


def test_potrf_batches_past_the_register_tiles_keep_their_routes(recorded):
    # complex128 past 64 in one block's shared memory: potf2, a block per matrix
    n, batch = 100, 3
    A, info = recorded.array((batch * n * n,), "complex128"), recorded.array((batch,), "int32")
    rocsolver.potrf_strided_batched("L", n, A, n, n * n, info, batch)
    assert recorded.names() == ["ra_rocsolver_potf2<ra_c128>"]
    # a batch of matrices too large for one block: one recursion each, with potf2_inv leaves
    n = 200
    A, info = recorded.array((2 * n * n,), "float64"), recorded.array((2,), "int32")
    rocsolver.potrf_strided_batched("L", n, A, n, n * n, info, 2)
    assert sum("potf2_inv" in x for x in recorded.names()) == 4
    # a single matrix keeps the factor-and-inverse leaf
    n = 64
    A, info = recorded.array((n * n,), "float32"), recorded.array((1,), "int32")
    rocsolver.potrf_strided_batched("U", n, A, n, n * n, info, 1)
    assert recorded.names()[-1] == _cholesky_kernels.inverse_kernel_name("float32")


def test_potf2_inv_instantiations_are_registered():
    names = _compile.registered(_cholesky_kernels.SOURCE)
    assert "ra_rocsolver_potf2_inv<double, 8>" in names and "ra_rocsolver_potf2_inv<ra_c128, 4>" in names
    assert "ra_rocsolver_lacpy<float>" in names


def test_split_is_a_multiple_of_the_block_inside_the_range():
    for nb in (1, 4, 16, 128):
        for n in range(nb + 1, 5 * nb + 3):
            n1 = _cholesky.split(n, nb)
            assert 0 < n1 < n and n1 % nb == 0 and abs(n1 - n / 2) <= nb


def test_leaf_order_fits_shared_memory():
    k = _cholesky_kernels
    assert k.leaf_order("float64", 227 * 1024) == 128
    assert k.leaf_order("complex128", 227 * 1024) == 64
    assert k.leaf_order("float32", 64 * 1024) == 64
    assert k.leaf_order("complex128", 64 * 1024) == 32
    for d in ALL:
        for limit in (48 * 1024, 64 * 1024, 227 * 1024):
            nb = k.leaf_order(d, limit)
            assert k.shared_bytes(nb, np.dtype(d).itemsize, True) <= limit and nb <= k.BLOCK


def test_every_kernel_is_registered_for_every_dtype():
    names = set(_compile.registered(_cholesky_kernels.SOURCE))
    for kernel in _cholesky_kernels.TEMPLATES:
        for d, c in (("float32", "float"), ("float64", "double"), ("complex64", "ra_c64"),
                     ("complex128", "ra_c128")):
            assert f"ra_rocsolver_{kernel}<{c}>" in names


# --------------------------------------------------------------------------------------------
# CPU: argument errors (fake device arrays, never launched)
# --------------------------------------------------------------------------------------------

def _info(n=1, dtype=np.int32):
    return fake((n,), dtype, address=1 << 24)


@pytest.mark.parametrize("call, error, match", [
    (lambda A: rocsolver.potrf("X", 4, A, 4, _info()), ValueError, "uplo"),
    (lambda A: rocsolver.potrf("L", -1, A, 4, _info()), ValueError, "n must be >= 0"),
    (lambda A: rocsolver.potrf("L", 4, A, 3, _info()), ValueError, "lda"),
    (lambda A: rocsolver.potrf("L", 5, A, 5, _info()), ValueError, "needs 25 elements"),
    (lambda A: rocsolver.potrf("L", 4, A, 4, _info(1, np.int64)), TypeError, "int32"),
    (lambda A: rocsolver.potrf("L", 4.0, A, 4, _info()), TypeError, "n"),
    (lambda A: rocsolver.potrf("L", 4, np.zeros(16), 4, _info()), TypeError, "A"),
    (lambda A: rocsolver.potrf_strided_batched("L", 4, A, 4, 16, _info(1), 2), ValueError, "info needs 2"),
    (lambda A: rocsolver.potrf_strided_batched("L", 2, A, 2, 8, _info(3), 3), ValueError, "needs 20 elements"),
    (lambda A: rocsolver.potrf_strided_batched("L", 2, A, 2, -1, _info(3), 3), ValueError, "strideA"),
    (lambda A: rocsolver.potrs("L", 4, 1, A, 4, fake((4,), "float32"), 4), TypeError, "dtype of A"),
    (lambda A: rocsolver.potrs("L", 4, 2, A, 4, fake((4,), "float64"), 4), ValueError, "B"),
    (lambda A: rocsolver.potrs("L", 4, 1, A, 4, fake((4,), "float64"), 3), ValueError, "ldb"),
    (lambda A: rocsolver.potrs_strided_batched("L", 4, 1, A, 4, 0, fake((4,), "float64"), 4, 4, -2),
     ValueError, "batch_count"),
    (lambda A: rocsolver.potri("Q", 4, A, 4, _info()), ValueError, "uplo"),
    (lambda A: rocsolver.trtri("U", "X", 4, A, 4, _info()), ValueError, "diag"),
    (lambda A: rocsolver.trtri("U", "N", 4, A, 2, _info()), ValueError, "lda"),
    (lambda A: rocsolver.trtri("U", "N", 4, A, 4, np.zeros(1, np.int32)), TypeError, "info"),
])
def test_argument_errors(call, error, match):
    A = fake((16,), "float64")
    with pytest.raises(error, match=match):
        call(A)


@pytest.mark.parametrize("dtype", ["float16", "int32", "bool"])
def test_unsupported_dtype_is_type_error(dtype):
    with pytest.raises(TypeError, match="rocsolver.potrf"):
        rocsolver.potrf("L", 2, fake((4,), dtype), 2, _info())


@pytest.mark.parametrize("call, error, match", [
    (lambda A, F: rocsolver.potrf_small_batched(A, F, _info(3), "X"), ValueError, "uplo"),
    (lambda A, F: rocsolver.potrf_small_batched(A[0], F[0], _info(3)), ValueError, "A must be"),
    (lambda A, F: rocsolver.potrf_small_batched(A, F[:2], _info(3)), ValueError, "shape"),
    (lambda A, F: rocsolver.potrf_small_batched(A, fake((3, 4, 4), "float32"), _info(3)), TypeError, "dtype of A"),
    (lambda A, F: rocsolver.potrf_small_batched(A, F, _info(2)), ValueError, "info needs 3"),
    (lambda A, F: rocsolver.potrf_small_batched(A, F, _info(3, np.int64)), TypeError, "int32"),
    (lambda A, F: rocsolver.potrf_small_batched(np.zeros((3, 4, 4)), F, _info(3)), TypeError, "A"),
    (lambda A, F: rocsolver.potrf_small_batched(fake((3, 4, 4), "int32"), F, _info(3)), TypeError, "int32"),
    (lambda A, F: rocsolver.potrf_small_batched(fake((1, 129, 129), "float64"), fake((1, 129, 129), "float64"),
                                                _info(1)), ValueError, "order 129"),
    (lambda A, F: rocsolver.potrf_small_batched(fake((1, 65, 65), "complex128"), fake((1, 65, 65), "complex128"),
                                                _info(1)), ValueError, "order 65"),
    (lambda A, F: rocsolver.potrf_small_batched(fake((1, 0, 0), "float64"), fake((1, 0, 0), "float64"),
                                                _info(1)), ValueError, "order 0"),
])
def test_potrf_small_batched_argument_errors(call, error, match):
    A, F = fake((3, 4, 4), "float64"), fake((3, 4, 4), "float64", address=1 << 22)
    with pytest.raises(error, match=match):
        call(A, F)


def test_potrf_small_supported_orders():
    assert rocsolver.potrf_small_supported(128, "float64") and not rocsolver.potrf_small_supported(129, "float64")
    assert rocsolver.potrf_small_supported(64, "complex128") and not rocsolver.potrf_small_supported(65, "complex128")
    assert not rocsolver.potrf_small_supported(0, "float32") and not rocsolver.potrf_small_supported(4, "int32")


def test_c_ordered_2d_matrix_is_rejected():
    with pytest.raises(ValueError, match="Fortran-ordered"):
        rocsolver.potrf("L", 3, fake((3, 3), "float64", order="C"), 3, _info())


# --------------------------------------------------------------------------------------------
# GPU
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("n", [0, 1, 2, 31, 64, 127, 128, 129, 257, 600])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ALL)
def test_potrf_backward_error(rng, dtype, uplo, n):
    a = spd(rng, n, dtype)
    lda = n + 5
    buf = packed(a, lda, uplo, dtype)
    d, info = to_device(buf), to_device(np.full(1, -3, np.int32))
    rocsolver.potrf(uplo, n, d, lda, info)
    out = to_host(d)
    assert to_host(info)[0] == 0
    assert factor_error(out, a, lda, uplo, dtype) < 10
    assert other_triangle_untouched(out, n, lda, uplo)
    assert np.isnan(out[-3:]).all()


@pytest.mark.gpu
@pytest.mark.parametrize("n, k", [(5, 3), (130, 1), (130, 129), (300, 200)])
@pytest.mark.parametrize("bad", ["negative", "nan"])
def test_potrf_reports_the_first_failing_minor(rng, n, k, bad):
    a = spd(rng, n, "float64")
    a[k - 1, k - 1] = np.nan if bad == "nan" else a[k - 1, k - 1] - 1e4
    d, info = to_device(packed(a, n, "L", "float64")), to_device(np.zeros(1, np.int32))
    rocsolver.potrf("L", n, d, n, info)
    assert to_host(info)[0] == k


@pytest.mark.gpu
@pytest.mark.parametrize("n, batch", [(1, 3), (17, 50), (32, 1000), (128, 40), (150, 3)])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ALL)
def test_potrf_strided_batched_and_potrs(rng, dtype, uplo, n, batch):
    mats = np.stack([spd(rng, n, dtype) for _ in range(batch)])
    bad = batch // 2
    mats[bad, n - 1, n - 1] = -1.0
    stride = n * n + 1
    d = to_device(packed(mats, n, uplo, dtype, batch, stride))
    info = to_device(np.full(batch, 77, np.int32))
    rocsolver.potrf_strided_batched(uplo, n, d, n, stride, info, batch)
    got_info = to_host(info)
    want_info = np.zeros(batch, np.int32)
    want_info[bad] = n
    np.testing.assert_array_equal(got_info, want_info)
    out = to_host(d)
    for b in {0, batch - 1} - {bad}:
        assert factor_error(out[b * stride:], mats[b], n, uplo, dtype) < 10
    nrhs, ldb = 3, n + 1
    rhs = random_array(rng, (batch, n, nrhs), dtype)
    bbuf = np.zeros(batch * ldb * nrhs, dtype)
    for b in range(batch):
        host.view(bbuf[b * ldb * nrhs:], n, nrhs, ldb)[...] = rhs[b]
    db = to_device(bbuf)
    rocsolver.potrs_strided_batched(uplo, n, nrhs, d, n, stride, db, ldb, ldb * nrhs, batch)
    xs = to_host(db)
    for b in {0, batch - 1} - {bad}:
        x = host.view(xs[b * ldb * nrhs:], n, nrhs, ldb).astype(np.complex128)
        resid = np.linalg.norm(mats[b] @ x - rhs[b]) / (np.linalg.norm(mats[b]) * np.linalg.norm(x) * n
                                                         * EPS[np.dtype(dtype)])
        assert resid < 10


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 40, 200])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ALL)
def test_potrs_and_potri(rng, dtype, uplo, n):
    a = spd(rng, n, dtype, cond=1e4 if np.dtype(dtype).itemsize >= 8 else None)
    d, info = to_device(packed(a, n, uplo, dtype)), to_device(np.zeros(1, np.int32))
    rocsolver.potrf(uplo, n, d, n, info)
    rhs = random_array(rng, (n, 2), dtype)
    db = to_device(np.asfortranarray(rhs))
    rocsolver.potrs(uplo, n, 2, d, n, db, n)
    x = to_host(db)
    eps = EPS[np.dtype(dtype)]
    assert np.linalg.norm(a @ x - rhs) / (np.linalg.norm(a) * np.linalg.norm(x) * n * eps) < 10
    rocsolver.potri(uplo, n, d, n, info)
    assert to_host(info)[0] == 0
    inv = host.hermitian_from(host.view(to_host(d), n, n, n).astype(np.complex128), uplo)
    assert np.linalg.norm(a @ inv - np.eye(n)) / (np.linalg.cond(a) * n * eps) < 10


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 3, 64, 65, 129, 300])
@pytest.mark.parametrize("diag", ["N", "U"])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ALL)
def test_trtri(rng, dtype, uplo, diag, n):
    t = random_array(rng, (n, n), dtype) * (0.5 / n) + 2 * np.eye(n)
    buf = packed(t, n + 2, uplo, dtype)
    if diag == "U":
        host.view(buf, n, n, n + 2)[np.diag_indices(n)] = np.nan
    d, info = to_device(buf), to_device(np.full(1, 9, np.int32))
    rocsolver.trtri(uplo, diag, n, d, n + 2, info)
    assert to_host(info)[0] == 0
    out = to_host(d)
    tt = host.tri(t.astype(np.complex128), uplo, diag == "U")
    inv = host.tri(host.view(out, n, n, n + 2).astype(np.complex128), uplo, diag == "U")
    assert np.linalg.norm(inv @ tt - np.eye(n)) / (n * EPS[np.dtype(dtype)]) < 10
    assert other_triangle_untouched(out, n, n + 2, uplo)


@pytest.mark.gpu
def test_trtri_zero_diagonal_info(rng):
    n = 150
    t = random_array(rng, (n, n), "complex64") + 3 * np.eye(n)
    t[97, 97] = t[120, 120] = 0
    d, info = to_device(packed(t, n, "L", "complex64")), to_device(np.zeros(1, np.int32))
    rocsolver.trtri("L", "N", n, d, n, info)
    assert to_host(info)[0] == 98


@pytest.mark.gpu
def test_fortran_ordered_2d_buffers(rng):
    n = 150
    a = spd(rng, n, "float64")
    d, info = to_device(np.asfortranarray(a)), to_device(np.zeros(1, np.int32))
    rocsolver.potrf("U", n, d, n, info)
    u = np.triu(to_host(d))
    assert to_host(info)[0] == 0
    assert np.linalg.norm(u.T @ u - a) / (np.linalg.norm(a) * n * EPS[np.dtype("float64")]) < 10
    rhs = rng.standard_normal((n, 4))
    db = to_device(np.asfortranarray(rhs))
    rocsolver.potrs("U", n, 4, d, n, db, n)
    np.testing.assert_allclose(a @ to_host(db), rhs, atol=1e-10)


def _device_factor_error(d, a, lda, uplo):
    """``||S S^H - A||_F / (||A||_F n eps)`` of potrf's output on the device (S = L, or U^H)."""
    import cupy

    n = a.shape[0]
    m = cupy.lib.stride_tricks.as_strided(d, (n, n), (d.itemsize, lda * d.itemsize))
    s = cupy.tril(m) if uplo == "L" else cupy.triu(m).conj().T
    s = cupy.nan_to_num(s, nan=0.0).astype(a.dtype)   # the other triangle holds NaN
    ad = cupy.asarray(a)
    return float(cupy.linalg.norm(s @ s.conj().T - ad) / (cupy.linalg.norm(ad) * n * EPS[np.dtype(d.dtype)]))


def _numpy_factor_error(a):
    n = a.shape[0]
    low = np.linalg.cholesky(a)
    return np.linalg.norm(low @ low.conj().T - a) / (np.linalg.norm(a) * n * EPS[np.dtype(a.dtype)])


@pytest.mark.gpu
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_potrf_large_backward_error(rng, uplo):
    # the bench's path at half its order: potf2_inv leaves, panel solves through their inverses
    n = 4096
    a = spd(rng, n, "float64")
    lda = n + 1
    d, info = to_device(packed(a, lda, uplo, "float64")), to_device(np.full(1, -3, np.int32))
    rocsolver.potrf(uplo, n, d, lda, info)
    assert to_host(info)[0] == 0
    assert _device_factor_error(d, a, lda, uplo) < 10


@pytest.mark.gpu
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype, n", [("float64", 1000), ("complex128", 700)])
def test_potrf_ill_conditioned_matches_numpy_residual(rng, dtype, uplo, n):
    # condition 1e10: the inverse-based panel solves keep the backward error at NumPy's (LAPACK's
    # trsm-based potrf) level
    a = spd(rng, n, dtype, cond=1e10)
    a = (a + a.conj().T) / 2
    d, info = to_device(packed(a, n, uplo, dtype)), to_device(np.zeros(1, np.int32))
    rocsolver.potrf(uplo, n, d, n, info)
    assert to_host(info)[0] == 0
    ours, theirs = _device_factor_error(d, a, n, uplo), _numpy_factor_error(a)
    assert ours < max(10.0, 10 * theirs), (ours, theirs)


@pytest.mark.gpu
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype, n, cond", [("float64", 1000, None), ("float64", 1100, 1e10), ("float32", 1100, None),
                                            ("complex64", 1000, None), ("complex128", 700, 1e10)])
def test_potrf_scratch_other_triangle_backward_error(rng, dtype, uplo, n, cond):
    # keep_other=False (ra.linalg.cholesky's path): trailing updates by gemms straight into A
    # (diagonal squares of 512, levels of block pairs); the spare rows stay untouched
    a = spd(rng, n, dtype, cond=cond)
    a = (a + a.conj().T) / 2
    lda = n + 3
    buf = packed(a, lda, uplo, dtype)
    d, info = to_device(buf), to_device(np.full(1, -3, np.int32))
    rocsolver.potrf_strided_batched(uplo, n, d, lda, lda * n, info, 1, keep_other=False)
    assert to_host(info)[0] == 0
    ours = _device_factor_error(d, a, lda, uplo)
    assert ours < (10.0 if cond is None else max(10.0, 10 * _numpy_factor_error(a)))
    out = to_host(d)
    assert np.isnan(host.view(out, lda, n, lda)[n:]).all() and np.isnan(out[lda * n:]).all()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_potf2_inv_factor_and_inverse(rng, dtype):
    n = _cholesky_kernels.inverse_leaf_order(dtype)
    a = spd(rng, n, dtype)
    lda, ldw = n + 2, n + 1
    d = to_device(packed(a, lda, "U", dtype))
    w = to_device(np.full(ldw * n, np.nan, dtype))
    info = to_device(np.zeros(1, np.int32))
    _cholesky_kernels.potf2_inv("U", n, d, lda, w, ldw, info, 0)
    assert to_host(info)[0] == 0
    out, inv = to_host(d), host.view(to_host(w), n, n, ldw)
    assert factor_error(out, a, lda, "U", dtype) < 10
    s = np.triu(host.view(out, n, n, lda)).conj().T.astype(a.dtype)
    assert np.all(np.triu(inv, 1) == 0)
    assert np.linalg.norm(inv.astype(a.dtype) @ s - np.eye(n)) / (n * EPS[np.dtype(dtype)]) < 100


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_potf2_inv_lower_and_failed_pivot(rng, dtype):
    # the lower triangle; then a pivot failing mid-block: info, and the stored triangle is the
    # reference potf2's (columns before the failure factored, the later ones as updated)
    n = _cholesky_kernels.inverse_leaf_order(dtype)
    lda, ldw = n + 2, n + 1
    for k in (0, 70):
        a = spd(rng, n, dtype)
        if k:
            a[k - 1, k - 1] -= 1e3
        d = to_device(packed(a, lda, "L", dtype))
        w = to_device(np.full(ldw * n, np.nan, dtype))
        info = to_device(np.zeros(1, np.int32))
        _cholesky_kernels.potf2_inv("L", n, d, lda, w, ldw, info, 1000)
        out = to_host(d)
        assert other_triangle_untouched(out, n, lda, "L")
        if not k:
            assert to_host(info)[0] == 0
            assert factor_error(out, a, lda, "L", dtype) < 10
            s = np.tril(host.view(out, n, n, lda)).astype(a.dtype)
            inv = host.view(to_host(w), n, n, ldw).astype(a.dtype)
            assert np.linalg.norm(inv @ s - np.eye(n)) / (n * EPS[np.dtype(dtype)]) < 100
            continue
        assert to_host(info)[0] == 1000 + k
        ref = packed(a, n, "L", dtype)
        ref_info = np.zeros(1, np.int32)
        host.Kernels().potf2("L", n, ref, n, 0, ref_info, 1)
        want = np.tril(host.view(ref, n, n, n))
        got = np.tril(host.view(out, n, n, lda))
        tol = 50 * n * EPS[np.dtype(dtype)]
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


@pytest.mark.gpu
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_potrf_panels_larger_than_the_staging_area(rng, monkeypatch, dtype, uplo):
    # a staging area of 64 KB: the panels split until their parts fit, down to a copy per leaf
    monkeypatch.setattr(_cholesky, "STAGE_BYTES", 64 << 10)
    n = 1100
    a = spd(rng, n, dtype)
    lda = n + 1
    d, info = to_device(packed(a, lda, uplo, dtype)), to_device(np.full(1, -3, np.int32))
    rocsolver.potrf(uplo, n, d, lda, info)
    assert to_host(info)[0] == 0
    out = to_host(d)
    assert factor_error(out, a, lda, uplo, dtype) < 10
    assert other_triangle_untouched(out, n, lda, uplo)


@pytest.mark.gpu
def test_linalg_cholesky_bench_shape(rng):
    import rocarray as ra

    n = 2048
    a = spd(rng, n, "float64")
    got = to_host(ra.linalg.cholesky(to_device(a)))
    assert np.linalg.norm(got @ got.T - a) / (np.linalg.norm(a) * n * EPS[np.dtype("float64")]) < 10
    np.testing.assert_allclose(got, np.linalg.cholesky(a), rtol=1e-9, atol=1e-9)


@pytest.mark.gpu
@pytest.mark.parametrize("n, batch", [(2, 40), (31, 37), (33, 9), (64, 9), (65, 5), (127, 5)])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dtype", ALL)
def test_potrf_strided_batched_register_tiles(rng, dtype, uplo, n, batch):
    # the register-tile kernel (complex128 past 64: shared-memory potf2) on every tile shape and
    # both sides of its limits: lda > n, gaps between the matrices, everything but the stored
    # triangles NaN and untouched; one matrix fails mid-way and is left as the reference potf2
    # leaves it, one is ill-conditioned (its residual against NumPy's)
    lda, stride = n + 3, (n + 3) * n + 7
    mats = np.stack([spd(rng, n, dtype) for _ in range(batch)])
    bad, ill = batch // 2, batch - 1
    fail = max(1, (2 * n) // 3)
    mats[bad, fail - 1, fail - 1] -= 1e3
    if n > 2:
        mats[ill] = spd(rng, n, dtype, cond=1e4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e10)
    buf = packed(mats, lda, uplo, dtype, batch, stride)
    d, info = to_device(buf), to_device(np.full(batch, 77, np.int32))
    rocsolver.potrf_strided_batched(uplo, n, d, lda, stride, info, batch)
    want_info = np.zeros(batch, np.int32)
    want_info[bad] = fail
    np.testing.assert_array_equal(to_host(info), want_info)
    out = to_host(d)
    stored = np.zeros(buf.size, bool)
    i, k = np.indices((n, n))
    mask = (i >= k) if uplo == "L" else (i <= k)
    for b in range(batch):
        stored[b * stride + i[mask] + k[mask] * lda] = True
    assert np.isnan(out[~stored]).all()
    eps = EPS[np.dtype(dtype)]
    for b in range(batch):
        if b == bad:
            ref = packed(mats[b], n, uplo, dtype)
            ref_info = np.zeros(1, np.int32)
            host.Kernels().potf2(uplo, n, ref, n, 0, ref_info, 1)
            want = host.tri(host.view(ref, n, n, n), uplo)
            got = host.tri(host.view(out[b * stride:], n, n, lda), uplo)
            if not _cholesky_block.takes(n, dtype):   # other routes: the columns before the failure
                cols = (slice(None), slice(0, fail - 1)) if uplo == "L" else (slice(0, fail - 1), slice(None))
                got, want = got[cols], want[cols]
            t = 50 * n * eps
            np.testing.assert_allclose(got, want, rtol=t, atol=t * np.abs(want).max())
            continue
        err = factor_error(out[b * stride:], mats[b], lda, uplo, dtype)
        if b == ill and n > 2:   # within a small factor of LAPACK's own residual
            lapack = np.linalg.cholesky(mats[b].astype(dtype))
            ref = np.linalg.norm(lapack.astype(mats.dtype) @ lapack.conj().T.astype(mats.dtype) - mats[b])
            assert err < 10 + 4 * ref / (np.linalg.norm(mats[b]) * n * eps)
        else:
            assert err < 10
