"""rocblas trsm and trmm against NumPy/SciPy references (float64/complex128) and the reference BLAS rules.

GPU tests (``@pytest.mark.gpu``) store A and B column-major in 1-D device buffers (leading
dimensions at or above the minimum, spare elements at the end). A's unreferenced triangle, and its
diagonal when ``diag='U'``, are NaN, so reading them would show. A is made well conditioned
(off-diagonal entries of size ``0.5 / order``, diagonal about 2), so the tolerance scales with the
order. The whole B buffer is compared with a host twin: the m x n elements to the tolerance, every
other element exactly; A must be unchanged. trsm references come from
``scipy.linalg.solve_triangular``. CPU tests cover option parsing, the recursion's split, kernel
registration and every argument error on fake device arrays never launched on.
"""

import itertools
import re

import numpy as np
import pytest

from conftest import assert_close, fake, random_array, to_device, to_host, wide
from level3_host import as_passed, op as _op, scalar as _scalar

from rocblas_fixtures import fresh_prepared_launches, refuse_launches  # noqa: F401  (autouse)

from rocarray._core import compile as _compile
from rocarray.rocblas import _level3_kernels, _level3_tri
from rocarray.rocblas._gemm import plan as _plan
import rocarray.rocblas as rocblas

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

try:
    from scipy.linalg import solve_triangular
except Exception:  # pragma: no cover - SciPy is a test dependency
    solve_triangular = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")

ALL = ["float32", "float64", "complex64", "complex128"]
COMBOS = ["".join(c) for c in itertools.product("LR", "UL", "NTC", "NU")]  # side uplo transA diag


class Tri:
    """A triangular order x order matrix in a 1-D column-major buffer; the rest of the buffer NaN."""

    def __init__(self, rng, order, lda, dtype, uplo, diag):
        size = (max(order, 1) - 1) * lda + max(order, 1) + 3
        self.host = np.full(size, np.nan, dtype)
        i, j = np.meshgrid(np.arange(order), np.arange(order), indexing="ij")
        keep = (i < j) if uplo == "U" else (i > j)
        pos = i + j * lda
        vals = random_array(rng, (order, order), dtype) * (0.5 / max(order, 1))
        self.host[pos[keep]] = vals[keep]
        d = np.arange(order)
        if diag == "N":
            self.host[d + d * lda] = (2 + random_array(rng, order, dtype) * 0.25).astype(dtype)
        full = np.zeros((order, order), np.complex128 if np.dtype(dtype).kind == "c" else np.float64)
        full[keep] = wide(self.host[pos[keep]])
        full[d, d] = 1 if diag == "U" else wide(self.host[d + d * lda])
        self.full = full
        self.dev = to_device(self.host)

    def unchanged(self):
        np.testing.assert_array_equal(to_host(self.dev), self.host)


def run_tri(rng, fn, dtype, combo, m, n, extra=(0, 0), alpha=None, poison_b=False):
    side, uplo, trans, diag = combo
    alpha = _scalar(dtype, 1.5, -0.5) if alpha is None else alpha
    ka = m if side == "L" else n
    lda, ldb = max(1, ka) + extra[0], max(1, m) + extra[1]
    a = Tri(rng, ka, lda, dtype, uplo, diag)
    size = (max(n, 1) - 1) * ldb + max(m, 1) + 3
    bh = np.full(size, np.nan, dtype) if poison_b else random_array(rng, size, dtype)
    bpos = np.arange(m)[:, None] + np.arange(n)[None, :] * ldb
    b = to_device(bh)
    assert getattr(rocblas, fn)(side, uplo, trans, diag, m, n, alpha, a.dev, lda, b, ldb) is None
    a.unchanged()
    got = to_host(b)
    rest = np.ones(got.shape, bool)
    rest[bpos] = False
    np.testing.assert_array_equal(got[rest], bh[rest], err_msg="elements outside B changed")
    if m == 0 or n == 0:
        return
    al = as_passed(alpha, dtype)
    if al == 0:
        np.testing.assert_array_equal(got[bpos], np.zeros((m, n)), err_msg="alpha == 0 must zero B")
        return
    bm = wide(bh[bpos])
    op = _op(a.full, trans)
    lower = np.allclose(op, np.tril(op))
    if fn == "trsm":
        if side == "L":
            want = solve_triangular(op, al * bm, lower=lower)
        else:  # X op = alpha B  <=>  op^T X^T = alpha B^T
            want = solve_triangular(op.T, (al * bm).T, lower=not lower).T
        scale = np.max(np.abs(want))
    else:
        want = al * (op @ bm if side == "L" else bm @ op)
        scale = abs(al) * np.max(np.abs(op) @ np.abs(bm) if side == "L" else np.abs(bm) @ np.abs(op))
    assert_close(got[bpos], want, dtype, max(ka, 1) ** 2, atol_scale=float(scale))


# --------------------------------------------------------------------------------------------
# GPU: against NumPy / SciPy
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("combo", COMBOS)
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("fn", ["trsm", "trmm"])
def test_every_option_matches_reference(rng, fn, dtype, combo):
    # 65 crosses the 64-row leaf (two leaves and a gemm); padded leading dimensions
    m, n = (65, 33) if combo[0] == "L" else (33, 65)
    run_tri(rng, fn, dtype, combo, m, n, extra=(3, 2))


SIZES = [(0, 5), (5, 0), (1, 1), (7, 3), (63, 64), (64, 63), (130, 17), (17, 130), (257, 9), (600, 40)]


@pytest.mark.gpu
@pytest.mark.parametrize("mn", SIZES, ids=str)
@pytest.mark.parametrize("combo", ["LLNN", "LUTU", "RUCN", "RLNU"])
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
@pytest.mark.parametrize("fn", ["trsm", "trmm"])
def test_sizes_cross_leaf_and_tile_boundaries(rng, fn, dtype, combo, mn):
    m, n = mn if combo[0] == "L" else mn[::-1]
    run_tri(rng, fn, dtype, combo, m, n, extra=(1, 0))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float64", "complex64"])
@pytest.mark.parametrize("fn", ["trsm", "trmm"])
def test_large_right_hand_side_count(rng, fn, dtype):
    run_tri(rng, fn, dtype, "LUNN", 300, 1000)
    run_tri(rng, fn, dtype, "RLTN", 1000, 200)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("fn", ["trsm", "trmm"])
def test_alpha_zero_zeroes_b_without_reading(rng, fn, dtype):
    run_tri(rng, fn, dtype, "LLNN", 65, 7, alpha=0, poison_b=True)
    run_tri(rng, fn, dtype, "RUCU", 7, 65, alpha=0, poison_b=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_alpha_one_and_real_alpha_on_complex_data(rng, dtype):
    run_tri(rng, "trsm", dtype, "LUCN", 70, 20, alpha=1)
    run_tri(rng, "trmm", dtype, "RLTN", 20, 70, alpha=-2.0)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_fortran_arrays(rng, dtype):
    a = np.asfortranarray(np.triu(random_array(rng, (40, 40), dtype)) / 40 + 2 * np.eye(40))
    b = np.asfortranarray(random_array(rng, (40, 25), dtype))
    da, db = cupy.asfortranarray(to_device(a)), cupy.asfortranarray(to_device(b))
    rocblas.trsm("L", "U", "N", "N", 40, 25, 1.0, da, 40, db, 40)
    assert_close(to_host(db), solve_triangular(wide(a), wide(b)), dtype, 40 ** 2)


@pytest.mark.gpu
@pytest.mark.slow
def test_trsm_8192_float64_spot_check(rng):
    n = 8192
    if cupy.cuda.runtime.memGetInfo()[0] < 4 * n * n * 8:
        pytest.skip("not enough free device memory")
    a = Tri(rng, n, n, "float64", "L", "N")
    b = random_array(rng, n * 64, "float64")
    db = to_device(b)
    rocblas.trsm("L", "L", "N", "N", n, 64, 1.0, a.dev, n, db, n)
    want = solve_triangular(a.full, b.reshape(64, n).T, lower=True)
    assert_close(to_host(db).reshape(64, n).T, want, "float64", n ** 2)


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


def test_kernels_are_registered_and_follow_the_rules():
    registered = set(_compile.registered(_level3_kernels.SOURCE))
    assert registered == set(_level3_kernels.instantiations())
    assert len(registered) == 16  # four kernels, four dtypes
    source = _compile.read_text(_level3_kernels.SOURCE)
    for k in _level3_kernels.TEMPLATES:
        assert f"ra_rocblas_{k}(" in source
    assert "#include" not in source
    assert re.search(r"(?<![\w.])32(?![\w.])", source) is None, "literal 32 (use RA_WARP_SIZE)"
    assert "__shfl" not in source and "__ballot" not in source
    for name, value in [("UPPER", 1), ("TRANS", 2), ("CONJ", 4), ("UNIT", 8), ("HERM", 16), ("HAS_W", 32)]:
        assert re.search(rf"#define RA_ROCBLAS3T_{name} 0x{value:02x}\b", source), name
        assert getattr(_level3_kernels, name) == value
    assert re.search(rf"#define RA_ROCBLAS3T_BLOCK {_level3_kernels.BLOCK}\b", source)
    assert re.search(rf"#define RA_ROCBLAS3T_VECS {_level3_kernels.LEAF_VECS}\b", source)
    assert re.search(rf"#define RA_ROCBLAS3T_TILE {_level3_kernels.EXPAND_TILE}\b", source)


def test_leaf_sizes_and_split():
    assert _level3_kernels.leaf_nb(np.float32) == 64
    assert _level3_kernels.leaf_nb(np.complex64) == 64
    assert _level3_kernels.leaf_nb(np.complex128) == 32
    tri = _level3_tri._Tri.__new__(_level3_tri._Tri)
    tri.nb = 64
    assert tri.split(65) == 64
    assert tri.split(130) == 64
    assert tri.split(8192) == 4096
    assert tri.split(600) == 320  # ten leaves: five and five


def test_recursion_launches_gemm_and_leaves(monkeypatch):
    calls = []
    monkeypatch.setattr(_level3_kernels, "gemm_ptrs", lambda *a, **k: calls.append(("gemm",) + a[2:7]))
    monkeypatch.setattr(_level3_kernels, "leaf", lambda *a, **k: calls.append(("leaf", a[3], a[4])))
    A = fake((300 * 300,), np.float64)
    B = fake((300 * 50,), np.float64, address=1 << 24)
    rocblas.trsm("L", "L", "N", "N", 300, 50, 2.0, A, 300, B, 300)
    leaves = [c for c in calls if c[0] == "leaf"]
    gemms = [c for c in calls if c[0] == "gemm"]
    assert [c[1] for c in leaves] == [64, 64, 64, 64, 44] and all(c[2] == 50 for c in leaves)
    assert len(gemms) == 4
    # the gemms cover the strictly lower part outside the diagonal leaves: m * k summed
    assert sum(g[3] * g[5] for g in gemms) == (300 * 300 - 4 * 64 * 64 - 44 * 44) // 2
    calls.clear()
    rocblas.trmm("R", "U", "C", "U", 50, 300, 1.0, A, 300, B, 50)
    assert sum(1 for c in calls if c[0] == "leaf") == 5


@needs_cupy
@pytest.mark.parametrize("fn", ["trsm", "trmm"])
def test_argument_errors_raise_before_the_device(no_launch, fn):
    A = fake((100,), np.float32)
    B = fake((100,), np.float32, address=1 << 21)
    f = getattr(rocblas, fn)
    with pytest.raises(ValueError, match="side must be one of 'L', 'R'"):
        f("X", "U", "N", "N", 5, 5, 1.0, A, 5, B, 5)
    with pytest.raises(ValueError, match="uplo must be one of 'U', 'L'"):
        f("L", "X", "N", "N", 5, 5, 1.0, A, 5, B, 5)
    with pytest.raises(ValueError, match="transA must be one of 'N', 'T', 'C'"):
        f("L", "U", "X", "N", 5, 5, 1.0, A, 5, B, 5)
    with pytest.raises(ValueError, match="diag must be one of 'N', 'U'"):
        f("L", "U", "N", "X", 5, 5, 1.0, A, 5, B, 5)
    with pytest.raises(ValueError, match="m must be >= 0"):
        f("L", "U", "N", "N", -1, 5, 1.0, A, 5, B, 5)
    with pytest.raises(ValueError, match="n must be >= 0"):
        f("L", "U", "N", "N", 5, -1, 1.0, A, 5, B, 5)
    # lda: m on the left, n on the right; ldb: m
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 6\)"):
        f("L", "U", "N", "N", 6, 3, 1.0, A, 5, B, 6)
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 3\)"):
        f("R", "U", "N", "N", 6, 3, 1.0, A, 2, B, 6)
    assert_launches(lambda: f("R", "U", "N", "N", 6, 3, 1.0, A, 3, B, 6))
    with pytest.raises(ValueError, match=r"ldb must be >= max\(1, 6\)"):
        f("R", "U", "N", "N", 6, 3, 1.0, A, 3, B, 5)
    with pytest.raises(ValueError, match=r"lda must be >= max\(1, 0\)"):
        f("L", "U", "N", "N", 0, 3, 1.0, A, 0, B, 1)
    # buffers too short
    with pytest.raises(ValueError, match="needs 121 elements of A"):
        f("L", "U", "N", "N", 11, 3, 1.0, A, 11, B, 11)
    with pytest.raises(ValueError, match="needs 110 elements of B"):
        f("R", "U", "N", "N", 10, 11, 1.0, fake((200,), np.float32), 11, B, 10)
    # types
    with pytest.raises(TypeError, match="A is a host"):
        f("L", "U", "N", "N", 3, 3, 1.0, np.ones(9, np.float32), 3, B, 3)
    with pytest.raises(TypeError, match="B must be a cupy.ndarray"):
        f("L", "U", "N", "N", 3, 3, 1.0, A, 3, [1.0] * 9, 3)
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        f("L", "U", "N", "N", 3, 3, 1.0, fake((9,), np.int32), 3, fake((9,), np.int32, address=1 << 21), 3)
    with pytest.raises(TypeError, match="float16 is not supported yet"):
        f("L", "U", "N", "N", 3, 3, 1.0, fake((9,), np.float16), 3, fake((9,), np.float16, address=1 << 21), 3)
    with pytest.raises(TypeError, match=r"B must have the dtype of A \(float32\), got float64"):
        f("L", "U", "N", "N", 3, 3, 1.0, A, 3, fake((9,), np.float64, address=1 << 21), 3)
    with pytest.raises(TypeError, match="complex alpha"):
        f("L", "U", "N", "N", 3, 3, 1j, A, 3, B, 3)
    with pytest.raises(TypeError, match="alpha must be a host"):
        f("L", "U", "N", "N", 3, 3, "1", A, 3, B, 3)
    with pytest.raises(TypeError, match="integer"):
        f("L", "U", "N", "N", 3.0, 3, 1.0, A, 3, B, 3)
    with pytest.raises(TypeError, match="integer"):
        f("L", "U", "N", "N", 3, 3, 1.0, A, 3.5, B, 3)
    # layout and alignment
    with pytest.raises(ValueError, match="A must be a contiguous"):
        f("L", "U", "N", "N", 3, 3, 1.0, A[::2], 3, B, 3)
    with pytest.raises(ValueError, match="B is not aligned"):
        c128 = np.complex128
        f("L", "U", "N", "N", 2, 2, 1.0, fake((20,), c128), 2, fake((20,), c128, address=(1 << 21) + 8), 2)


@needs_cupy
def test_noops_and_complex_scalars_pass_the_checks(no_launch):
    A = fake((100,), np.complex64)
    B = fake((100,), np.complex64, address=1 << 21)
    assert rocblas.trsm("L", "U", "N", "N", 0, 5, 1.0, A, 1, B, 1) is None
    assert rocblas.trmm("R", "L", "T", "U", 5, 0, 1.0, A, 1, B, 5) is None
    assert_launches(lambda: rocblas.trsm("l", "u", "c", "u", 5, 5, 1 + 2j, A, 5, B, 5))
    assert_launches(lambda: rocblas.trmm("R", "L", "T", "N", 5, 5, 0, A, 5, B, 5))  # alpha 0: B := 0
    # even a no-op checks buffer sizes once the sizes are positive
    with pytest.raises(ValueError, match="needs 110 elements"):
        rocblas.trsm("L", "U", "N", "N", 10, 11, 0.0, fake((200,), np.complex64), 10, B, 10)
