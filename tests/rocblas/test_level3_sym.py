"""rocblas symm/hemm, syrk/herk and syr2k/her2k against NumPy references (float64/complex128).

GPU tests (``@pytest.mark.gpu``) store every matrix column-major in a 1-D device buffer (leading
dimensions at or above the minimum, spare elements at the end). symm/hemm: A's unreferenced
triangle is NaN (and a Hermitian A's diagonal has non-zero imaginary parts, which must be
ignored). syrk family: C's unreferenced triangle is NaN and must stay so, as must every element
outside C; the referenced triangle is compared with the reference to a tolerance scaled by
``|alpha| |op(A)| |op(B)| + |beta| |C|`` and k. ``beta == 0`` runs on NaN-poisoned C. Inputs must
be unchanged. Small :data:`DIAG_NB`/:data:`SYMM_PANEL_BYTES` (monkeypatched) exercise the
multi-level, ragged and multi-panel paths at small sizes. CPU tests cover every argument error
on fake device arrays never launched on.
"""

import numpy as np
import pytest

from conftest import assert_close, fake, random_array, to_device, to_host, wide
from level3_host import Mat, as_passed, scalar as _scalar

from rocblas_fixtures import fresh_prepared_launches, refuse_launches  # noqa: F401  (autouse)

from rocarray.rocblas import _level3_kernels, _level3_sym
from rocarray.rocblas._gemm import plan as _plan
import rocarray.rocblas as rocblas

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")

ALL = ["float32", "float64", "complex64", "complex128"]
CPLX = ["complex64", "complex128"]


def _triangle(order, uplo, strict=False):
    i, j = np.meshgrid(np.arange(order), np.arange(order), indexing="ij")
    if strict:
        return (i < j) if uplo == "U" else (i > j)
    return (i <= j) if uplo == "U" else (i >= j)


# --------------------------------------------------------------------------------------------
# symm, hemm
# --------------------------------------------------------------------------------------------

def run_symm(rng, fn, dtype, side, uplo, m, n, extra=(0, 0, 0), alpha=None, beta=None, poison=False):
    herm = fn == "hemm"
    alpha = _scalar(dtype, 1.5, 0.25) if alpha is None else alpha
    beta = _scalar(dtype, -0.5, 0.75) if beta is None else beta
    ka = m if side == "L" else n
    lda, ldb, ldc = max(1, ka) + extra[0], max(1, m) + extra[1], max(1, m) + extra[2]
    a = Mat(rng, ka, ka, lda, dtype)
    a.host[a.pos[~_triangle(ka, uplo)]] = np.nan  # the unreferenced triangle
    a.dev = to_device(a.host)
    b = Mat(rng, m, n, ldb, dtype)
    c = Mat(rng, m, n, ldc, dtype, fill=np.nan if poison else None)
    assert getattr(rocblas, fn)(side, uplo, m, n, alpha, a.dev, lda, b.dev, ldb, beta, c.dev, ldc) is None
    a.unchanged()
    b.unchanged()
    got = to_host(c.dev)
    rest = np.ones(got.shape, bool)
    rest[c.pos] = False
    np.testing.assert_array_equal(got[rest], c.host[rest], err_msg="elements outside C changed")
    al, be = as_passed(alpha, dtype), as_passed(beta, dtype)
    if m == 0 or n == 0 or (al == 0 and be == 1):
        c.unchanged()
        return
    if ka:
        t = np.where(_triangle(ka, uplo), wide(a.host[a.pos]), 0)
        s = t - np.diag(np.diag(t))
        d = np.diag(t).real if herm else np.diag(t)
        full = s + (s.conj().T if herm else s.T) + np.diag(d)
    bm, cm = b.matrix(), c.matrix()
    want = np.zeros((m, n), complex if np.dtype(dtype).kind == "c" else float)
    scale = np.zeros((m, n))
    if al != 0:
        want = al * (full @ bm if side == "L" else bm @ full)
        scale = abs(al) * (np.abs(full) @ np.abs(bm) if side == "L" else np.abs(bm) @ np.abs(full))
    if be != 0:
        want = want + be * cm
        scale = scale + abs(be) * np.abs(cm)
    assert_close(got[c.pos], want, dtype, max(ka, 1), atol_scale=float(np.max(scale)))


SYMM_FNS = [("symm", d) for d in ALL] + [("hemm", d) for d in CPLX]


@pytest.mark.gpu
@pytest.mark.parametrize("uplo", "UL")
@pytest.mark.parametrize("side", "LR")
@pytest.mark.parametrize("fn,dtype", SYMM_FNS)
def test_symm_hemm_match_numpy(rng, fn, dtype, side, uplo):
    run_symm(rng, fn, dtype, side, uplo, 65, 33, extra=(3, 1, 2))
    run_symm(rng, fn, dtype, side, uplo, 33, 65, extra=(0, 0, 0))


@pytest.mark.gpu
@pytest.mark.parametrize("mn", [(0, 5), (5, 0), (1, 1), (7, 3), (63, 64), (130, 17), (257, 9), (600, 40)], ids=str)
@pytest.mark.parametrize("fn,dtype", [("symm", "float32"), ("hemm", "complex128")])
def test_symm_sizes(rng, fn, dtype, mn):
    run_symm(rng, fn, dtype, "L", "U", *mn, extra=(1, 0, 2))
    run_symm(rng, fn, dtype, "R", "L", *mn[::-1])


@pytest.mark.gpu
@pytest.mark.parametrize("fn,dtype", [("symm", "float64"), ("hemm", "complex64")])
def test_symm_in_panels(rng, monkeypatch, fn, dtype):
    # a 64-column panel limit: 130 columns expand in three panels (64, 64, 2)
    itemsize = np.dtype(dtype).itemsize
    monkeypatch.setattr(_level3_sym, "SYMM_PANEL_BYTES", 130 * 64 * itemsize)
    assert _level3_sym.symm_panel(130, itemsize) == 64
    run_symm(rng, fn, dtype, "L", "L", 130, 20, extra=(2, 0, 1))
    run_symm(rng, fn, dtype, "R", "U", 20, 130)
    run_symm(rng, fn, dtype, "R", "L", 20, 130, beta=0, poison=True)


@pytest.mark.gpu
@pytest.mark.parametrize("fn,dtype", SYMM_FNS)
def test_symm_beta_zero_alpha_zero(rng, fn, dtype):
    run_symm(rng, fn, dtype, "L", "U", 65, 20, beta=0, poison=True)
    run_symm(rng, fn, dtype, "R", "L", 20, 65, alpha=0, beta=_scalar(dtype, 2.0, -1.0))
    run_symm(rng, fn, dtype, "R", "L", 20, 65, alpha=0, beta=0, poison=True)
    run_symm(rng, fn, dtype, "L", "L", 20, 65, alpha=0, beta=1, poison=True)  # no-op


# --------------------------------------------------------------------------------------------
# syrk, herk, syr2k, her2k
# --------------------------------------------------------------------------------------------

def run_rank(rng, fn, dtype, uplo, trans, n, k, extra=(0, 0, 0), alpha=None, beta=None, poison=False):
    herm = fn.startswith("her")
    two = fn.endswith("2k")
    if alpha is None:
        alpha = 1.5 if fn == "herk" else _scalar(dtype, 1.5, 0.25)
    if beta is None:
        beta = -0.5 if herm else _scalar(dtype, -0.5, 0.75)
    rows, cols = (n, k) if trans == "N" else (k, n)
    lda, ldb, ldc = max(1, rows) + extra[0], max(1, rows) + extra[1], max(1, n) + extra[2]
    a = Mat(rng, rows, cols, lda, dtype)
    b = Mat(rng, rows, cols, ldb, dtype) if two else None
    c = Mat(rng, n, n, ldc, dtype, fill=np.nan if poison else None)
    tri = _triangle(n, uplo)
    c.host[c.pos[~tri]] = np.nan  # the unreferenced triangle
    if herm and n:
        d = np.arange(n)
        c.host[d + d * ldc] = c.host[d + d * ldc] + 0.5j  # imaginary diagonal parts are dropped
    c.dev = to_device(c.host)
    f = getattr(rocblas, fn)
    if two:
        assert f(uplo, trans, n, k, alpha, a.dev, lda, b.dev, ldb, beta, c.dev, ldc) is None
        b.unchanged()
    else:
        assert f(uplo, trans, n, k, alpha, a.dev, lda, beta, c.dev, ldc) is None
    a.unchanged()
    got = to_host(c.dev)
    rest = np.ones(got.shape, bool)
    rest[c.pos[tri]] = False
    np.testing.assert_array_equal(got[rest], c.host[rest], err_msg="elements outside C's triangle changed")
    al, be = as_passed(alpha, dtype), as_passed(beta, dtype)
    if n == 0 or ((al == 0 or k == 0) and be == 1):
        c.unchanged()
        return
    cm = np.where(tri, c.matrix(), 0)
    if herm:
        cm = cm - 1j * np.diag(np.diag(cm).imag)
    want = np.zeros((n, n), cm.dtype)
    scale = np.zeros((n, n))
    if al != 0 and k > 0:
        ct = "C" if herm else "T"
        opa = a.matrix() if trans == "N" else (a.matrix().conj().T if herm else a.matrix().T)
        tr = (lambda x: x.conj().T) if ct == "C" else (lambda x: x.T)
        if two:
            opb = b.matrix() if trans == "N" else (b.matrix().conj().T if herm else b.matrix().T)
            al2 = np.conj(al) if herm else al
            want = al * opa @ tr(opb) + al2 * opb @ tr(opa)
            scale = abs(al) * (np.abs(opa) @ np.abs(opb).T + np.abs(opb) @ np.abs(opa).T)
        else:
            want = al * opa @ tr(opa)
            scale = abs(al) * (np.abs(opa) @ np.abs(opa).T)
    if be != 0:
        want = want + be * cm
        scale = scale + abs(be) * np.abs(cm)
    g = wide(got[c.pos])
    if herm:
        np.testing.assert_array_equal(np.diag(g).imag, 0, err_msg="Hermitian diagonal not real")
    assert_close(g[tri], want[tri], dtype, max(k, 1), atol_scale=float(np.max(scale)) if scale.size else 0.0)


RANK_FNS = ([("syrk", d, t) for d in ALL for t in ("N", "T")] + [("syrk", "float64", "C")]
            + [("herk", d, t) for d in CPLX for t in ("N", "C")]
            + [("syr2k", d, t) for d in ALL for t in ("N", "T")] + [("syr2k", "float32", "C")]
            + [("her2k", d, t) for d in CPLX for t in ("N", "C")])


@pytest.mark.gpu
@pytest.mark.parametrize("uplo", "UL")
@pytest.mark.parametrize("fn,dtype,trans", RANK_FNS)
def test_rank_k_matches_numpy(rng, fn, dtype, trans, uplo):
    run_rank(rng, fn, dtype, uplo, trans, 65, 33, extra=(2, 1, 3))


@pytest.mark.gpu
@pytest.mark.parametrize("uplo", "UL")
@pytest.mark.parametrize("fn,dtype,trans", [("syrk", "float32", "T"), ("herk", "complex64", "N"),
                                            ("syr2k", "float64", "N"), ("her2k", "complex128", "C")])
def test_rank_k_small_diagonal_blocks(rng, monkeypatch, fn, dtype, trans, uplo):
    # blocks of 16: 130 = 8 full blocks and a ragged one; levels h = 1, 2, 4, 8 with ragged groups
    monkeypatch.setattr(_level3_sym, "DIAG_NB", 16)
    run_rank(rng, fn, dtype, uplo, trans, 130, 20, extra=(1, 2, 5))
    run_rank(rng, fn, dtype, uplo, trans, 64, 7)
    # a workspace of two blocks: the diagonal runs in chunks
    monkeypatch.setattr(_level3_sym, "DIAG_WORKSPACE_BYTES", 2 * 16 * 16 * np.dtype(dtype).itemsize)
    run_rank(rng, fn, dtype, uplo, trans, 100, 9, beta=0, poison=True)


@pytest.mark.gpu
@pytest.mark.parametrize("nk", [(0, 5), (1, 1), (7, 3), (63, 64), (64, 63), (257, 9), (600, 40)], ids=str)
@pytest.mark.parametrize("fn,dtype,trans", [("syrk", "float64", "N"), ("herk", "complex128", "C"),
                                            ("syr2k", "complex64", "T"), ("her2k", "complex64", "N")])
def test_rank_k_sizes(rng, fn, dtype, trans, nk):
    run_rank(rng, fn, dtype, "L", trans, *nk, extra=(0, 1, 1))
    run_rank(rng, fn, dtype, "U", trans, *nk)


@pytest.mark.gpu
@pytest.mark.parametrize("fn,dtype,trans", [("syrk", d, "N") for d in ALL] + [("herk", d, "C") for d in CPLX]
                         + [("syr2k", d, "T") for d in ALL] + [("her2k", d, "N") for d in CPLX])
def test_rank_k_beta_zero_alpha_zero_k_zero(rng, fn, dtype, trans):
    herm = fn.startswith("her")
    beta = 2.0 if herm else _scalar(dtype, 2.0, -1.0)
    run_rank(rng, fn, dtype, "L", trans, 65, 20, beta=0, poison=True)
    run_rank(rng, fn, dtype, "U", trans, 65, 20, alpha=0, beta=beta)
    run_rank(rng, fn, dtype, "L", trans, 65, 20, alpha=0, beta=0, poison=True)
    run_rank(rng, fn, dtype, "U", trans, 65, 0, beta=beta)
    run_rank(rng, fn, dtype, "L", trans, 65, 0, beta=1, poison=True)   # no-op (diagonal untouched too)
    run_rank(rng, fn, dtype, "U", trans, 65, 20, alpha=0, beta=1)     # no-op


@pytest.mark.gpu
def test_syrk_fortran_arrays(rng):
    a = np.asfortranarray(random_array(rng, (70, 30), "float64"))
    c = np.asfortranarray(random_array(rng, (70, 70), "float64"))
    dc = cupy.asfortranarray(to_device(c))
    rocblas.syrk("L", "N", 70, 30, 1.0, cupy.asfortranarray(to_device(a)), 70, 1.0, dc, 70)
    got = to_host(dc)
    tri = _triangle(70, "L")
    want = a @ a.T + c
    assert_close(got[tri], want[tri], "float64", 30, atol_scale=float(np.max(np.abs(a) @ np.abs(a).T + np.abs(c))))
    np.testing.assert_array_equal(got[~tri], c[~tri])


# --------------------------------------------------------------------------------------------
# CPU: the pure-Python layer, on fake device arrays (never launched)
# --------------------------------------------------------------------------------------------

@pytest.fixture
def no_launch(monkeypatch):
    """Fail (instead of launching on fake memory) if anything reaches a kernel or the device."""

    def refuse(*args, **kwargs):
        raise AssertionError("a kernel launch was attempted")

    monkeypatch.setattr(_plan, "launch", refuse)
    refuse_launches(monkeypatch)
    for name in ("leaf", "merge", "expand", "workspace"):
        monkeypatch.setattr(_level3_kernels, name, refuse)


def assert_launches(call):
    with pytest.raises(AssertionError, match="kernel launch"):
        call()


def test_symm_panel_width():
    assert _level3_sym.symm_panel(100, 8) == 100
    assert _level3_sym.symm_panel(8192, 8, limit=128 << 20) == 2048
    assert _level3_sym.symm_panel(8192, 16, limit=1) == 64  # never below one tile


def test_rank_k_blocks_cover_the_triangle_once(monkeypatch):
    """The gemm rectangles (off-diagonal levels) and the diagonal blocks tile the lower triangle exactly."""
    for n, D in [(130, 16), (8192, 256), (600, 256), (64, 256), (1000, 64), (257, 128)]:
        monkeypatch.setattr(_level3_sym, "DIAG_NB", D)
        cover = np.zeros((n, n), np.int32) if n <= 1000 else None
        rects = []

        def product(self, r0, rows, c0, cols, C, ldc, beta, batch=1, step=0, c_stride=0):
            for b in range(batch):
                rects.append((r0 + b * step, rows, c0 + b * step, cols))

        monkeypatch.setattr(_level3_sym._RankK, "product", product)
        run = _level3_sym._RankK(np.dtype("float32"), False, False, "N", n, 5, [], 1.0, 0, n, 0)
        run.off_diagonal()
        diag = []
        d = run.D
        for b0 in range(0, n, d):
            diag.append((b0, min(d, n - b0)))
        area = sum(r[1] * r[3] for r in rects) + sum(s * (s + 1) // 2 for _, s in diag)
        assert area == n * (n + 1) // 2, (n, D)
        if cover is not None:
            for r0, rows, c0, cols in rects:
                assert r0 >= c0 + cols  # strictly below the diagonal blocks
                cover[r0:r0 + rows, c0:c0 + cols] += 1
            for b0, s in diag:
                cover[b0:b0 + s, b0:b0 + s] += np.tril(np.ones((s, s), np.int32))
            np.testing.assert_array_equal(cover, np.tril(np.ones((n, n), np.int32)))


@needs_cupy
@pytest.mark.parametrize("fn", ["symm", "hemm"])
def test_symm_argument_errors(no_launch, fn):
    dt = np.complex64
    A = fake((100,), dt)
    B = fake((100,), dt, address=1 << 21)
    C = fake((100,), dt, address=1 << 22)
    f = getattr(rocblas, fn)
    with pytest.raises(ValueError, match="side must be one of 'L', 'R'"):
        f("X", "U", 5, 5, 1.0, A, 5, B, 5, 0.0, C, 5)
    with pytest.raises(ValueError, match="uplo must be one of 'U', 'L'"):
        f("L", "N", 5, 5, 1.0, A, 5, B, 5, 0.0, C, 5)
    with pytest.raises(ValueError, match="m must be >= 0"):
        f("L", "U", -1, 5, 1.0, A, 5, B, 5, 0.0, C, 5)
    with pytest.raises(ValueError, match="n must be >= 0"):
        f("L", "U", 5, -2, 1.0, A, 5, B, 5, 0.0, C, 5)
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 6\)"):
        f("L", "U", 6, 3, 1.0, A, 5, B, 6, 0.0, C, 6)
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 3\)"):
        f("R", "U", 6, 3, 1.0, A, 2, B, 6, 0.0, C, 6)
    with pytest.raises(ValueError, match=r"ldb must be >= max\(1, 6\)"):
        f("R", "U", 6, 3, 1.0, A, 3, B, 5, 0.0, C, 6)
    with pytest.raises(ValueError, match=r"ldc must be >= max\(1, 6\)"):
        f("R", "U", 6, 3, 1.0, A, 3, B, 6, 0.0, C, 5)
    assert_launches(lambda: f("R", "U", 6, 3, 1.0, A, 3, B, 6, 0.0, C, 6))
    with pytest.raises(ValueError, match="needs 121 elements of A"):
        f("L", "U", 11, 3, 1.0, A, 11, B, 11, 0.0, C, 11)
    with pytest.raises(ValueError, match="needs 110 elements of B"):
        f("L", "U", 10, 11, 1.0, fake((200,), dt), 10, B, 10, 0.0, C, 10)
    with pytest.raises(ValueError, match="needs 110 elements of C"):
        f("L", "U", 10, 11, 1.0, fake((200,), dt), 10, fake((200,), dt, address=1 << 21), 10, 0.0, C, 10)
    with pytest.raises(TypeError, match="A is a host"):
        f("L", "U", 3, 3, 1.0, np.ones(9, dt), 3, B, 3, 0.0, C, 3)
    with pytest.raises(TypeError, match="C must be a cupy.ndarray"):
        f("L", "U", 3, 3, 1.0, A, 3, B, 3, 0.0, None, 3)
    with pytest.raises(TypeError, match=r"B must have the dtype of A \(complex64\), got complex128"):
        f("L", "U", 3, 3, 1.0, A, 3, fake((9,), np.complex128, address=1 << 21), 3, 0.0, C, 3)
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        f("L", "U", 3, 3, 1.0, fake((9,), np.int32), 3, fake((9,), np.int32, address=1 << 21), 3, 0.0,
          fake((9,), np.int32, address=1 << 22), 3)
    with pytest.raises(TypeError, match="beta must be a host"):
        f("L", "U", 3, 3, 1.0, A, 3, B, 3, None, C, 3)
    with pytest.raises(TypeError, match="integer"):
        f("L", "U", 3, 3, 1.0, A, 3, B, 3, 0.0, C, 3.0)
    with pytest.raises(ValueError, match="C must be a contiguous"):
        f("L", "U", 3, 3, 1.0, A, 3, B, 3, 0.0, fake((10, 10), dt, address=1 << 22), 10)
    with pytest.raises(ValueError, match="B is not aligned"):
        f("L", "U", 2, 2, 1.0, A, 2, fake((20,), dt, address=(1 << 21) + 4), 2, 0.0, C, 2)
    # quick returns never reach the device
    assert f("L", "U", 0, 5, 1.0, A, 1, B, 1, 0.0, C, 1) is None
    assert f("L", "U", 5, 5, 0.0, A, 5, B, 5, 1.0, C, 5) is None
    assert_launches(lambda: f("l", "l", 5, 5, 0.0, A, 5, B, 5, 0.5j, C, 5))


@needs_cupy
def test_real_and_complex_dtype_rules(no_launch):
    R = [fake((100,), np.float64, address=a << 20) for a in (1, 2, 3)]
    Z = [fake((100,), np.complex128, address=a << 20) for a in (1, 2, 3)]
    with pytest.raises(TypeError, match=r"rocblas.hemm: unsupported dtype float64; supported: complex64, "
                                        r"complex128 \(use symm for real data\)"):
        rocblas.hemm("L", "U", 3, 3, 1.0, R[0], 3, R[1], 3, 0.0, R[2], 3)
    with pytest.raises(TypeError, match=r"rocblas.herk: unsupported dtype float32.*use syrk"):
        rocblas.herk("L", "N", 3, 3, 1.0, fake((9,), np.float32), 3, 0.0, fake((9,), np.float32, address=1 << 21), 3)
    with pytest.raises(TypeError, match=r"rocblas.her2k: unsupported dtype float64.*use syr2k"):
        rocblas.her2k("L", "N", 3, 3, 1.0, R[0], 3, R[1], 3, 0.0, R[2], 3)
    with pytest.raises(TypeError, match="complex alpha needs complex data"):
        rocblas.symm("L", "U", 3, 3, 1j, R[0], 3, R[1], 3, 0.0, R[2], 3)
    with pytest.raises(TypeError, match="complex beta needs complex data"):
        rocblas.syr2k("L", "N", 3, 3, 1.0, R[0], 3, R[1], 3, 1j, R[2], 3)
    with pytest.raises(TypeError, match="rocblas.herk: alpha must be real"):
        rocblas.herk("L", "N", 3, 3, 1j, Z[0], 3, 0.0, Z[2], 3)
    with pytest.raises(TypeError, match="rocblas.herk: beta must be real"):
        rocblas.herk("L", "N", 3, 3, 1.0, Z[0], 3, 1 + 0j, Z[2], 3)
    with pytest.raises(TypeError, match="rocblas.her2k: beta must be real"):
        rocblas.her2k("L", "N", 3, 3, 1.0, Z[0], 3, Z[1], 3, 2j, Z[2], 3)
    assert_launches(lambda: rocblas.her2k("L", "N", 3, 3, 1 + 2j, Z[0], 3, Z[1], 3, 2.0, Z[2], 3))
    # trans rules: complex syrk/syr2k take N/T, herk/her2k N/C; real syrk takes C as T
    with pytest.raises(ValueError, match=r"rocblas.syrk: transA must be 'N' or 'T' for complex data, got 'C'"):
        rocblas.syrk("L", "C", 3, 3, 1.0, Z[0], 3, 0.0, Z[2], 3)
    with pytest.raises(ValueError, match=r"rocblas.syr2k: trans must be 'N' or 'T' for complex data, got 'C'"):
        rocblas.syr2k("L", "c", 3, 3, 1.0, Z[0], 3, Z[1], 3, 0.0, Z[2], 3)
    with pytest.raises(ValueError, match=r"rocblas.herk: transA must be 'N' or 'C' for complex data, got 'T'"):
        rocblas.herk("L", "T", 3, 3, 1.0, Z[0], 3, 0.0, Z[2], 3)
    with pytest.raises(ValueError, match=r"rocblas.her2k: trans must be 'N' or 'C' for complex data, got 'T'"):
        rocblas.her2k("L", "T", 3, 3, 1.0, Z[0], 3, Z[1], 3, 0.0, Z[2], 3)
    assert_launches(lambda: rocblas.syrk("L", "C", 3, 3, 1.0, R[0], 3, 0.0, R[2], 3))
    assert_launches(lambda: rocblas.syrk("U", "t", 3, 3, 1 + 1j, Z[0], 3, 0.5j, Z[2], 3))


@needs_cupy
@pytest.mark.parametrize("fn", ["syrk", "herk", "syr2k", "her2k"])
def test_rank_k_argument_errors(no_launch, fn):
    dt = np.complex64
    two = fn.endswith("2k")
    tname = "trans" if two else "transA"
    A = fake((100,), dt)
    B = fake((100,), dt, address=1 << 21)
    C = fake((100,), dt, address=1 << 22)
    f = getattr(rocblas, fn)

    def call(uplo="L", trans="N", n=5, k=5, alpha=1.0, A=A, lda=5, B=B, ldb=5, beta=0.0, C=C, ldc=5):
        if two:
            return f(uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C, ldc)
        return f(uplo, trans, n, k, alpha, A, lda, beta, C, ldc)

    with pytest.raises(ValueError, match="uplo must be one of 'U', 'L'"):
        call(uplo="X")
    with pytest.raises(ValueError, match=f"{tname} must be one of 'N', 'T', 'C'"):
        call(trans="X")
    with pytest.raises(ValueError, match="n must be >= 0"):
        call(n=-1)
    with pytest.raises(ValueError, match="k must be >= 0"):
        call(k=-1)
    # lda: n for 'N', k otherwise
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 6\)"):
        call(n=6, k=3, lda=5, ldb=6, ldc=6)
    good_t = "C" if fn.startswith("her") else "T"
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 3\)"):
        call(trans=good_t, n=6, k=3, lda=2, ldb=3, ldc=6)
    if two:
        with pytest.raises(ValueError, match=r"ldb must be >= max\(1, 3\)"):
            call(trans=good_t, n=6, k=3, lda=3, ldb=2, ldc=6)
    with pytest.raises(ValueError, match=r"ldc must be >= max\(1, 6\)"):
        call(trans=good_t, n=6, k=3, lda=3, ldb=3, ldc=5)
    assert_launches(lambda: call(trans=good_t, n=6, k=3, lda=3, ldb=3, ldc=6))
    with pytest.raises(ValueError, match="needs 110 elements of A"):
        call(n=10, k=11, lda=10, ldb=10, ldc=10, C=fake((200,), dt, address=1 << 22))
    if two:
        with pytest.raises(ValueError, match="needs 110 elements of B"):
            call(n=10, k=11, lda=10, ldb=10, ldc=10, A=fake((200,), dt), C=fake((200,), dt, address=1 << 22))
    with pytest.raises(ValueError, match="needs 121 elements of C"):
        call(n=11, k=2, lda=11, ldb=11, ldc=11, A=fake((200,), dt), B=fake((200,), dt, address=1 << 21))
    # k == 0: A (and B) are not read, so their sizes are not checked; C still is
    assert_launches(lambda: call(n=9, k=0, lda=9, ldb=9, ldc=9, beta=0.5))
    assert call(n=9, k=0, lda=9, ldb=9, ldc=9, beta=1.0) is None
    assert call(n=0, k=4, lda=1, ldb=1, ldc=1) is None
    with pytest.raises(TypeError, match="A is a host"):
        call(A=np.ones(25, dt))
    with pytest.raises(TypeError, match=r"C must have the dtype of A \(complex64\)"):
        call(C=fake((100,), np.complex128, address=1 << 22))
    with pytest.raises(TypeError, match="integer"):
        call(n=5.0)
    with pytest.raises(ValueError, match="A must be a contiguous"):
        call(A=A[::2])
    with pytest.raises(ValueError, match="C is not aligned"):
        call(n=2, k=2, lda=2, ldb=2, ldc=2, C=fake((20,), dt, address=(1 << 22) + 4))
