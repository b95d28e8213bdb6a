"""rocblas level 2 against NumPy references (float64/complex128) and the reference BLAS rules.

GPU tests (``@pytest.mark.gpu``) build a column-major matrix buffer (``lda >= m``, optionally one
element off 16-byte alignment) and strided vector buffers on the device, run one rocblas call,
and compare the whole output buffer with a host twin: the BLAS elements to a tolerance scaled by
``|alpha| |op(A)| |x| + |beta| |y|``, every other element exactly (writes out of place show up).
Unreferenced triangles are filled with NaN, so reading them shows up too; beta == 0 runs on a
NaN-poisoned y. CPU tests cover the pure-Python layer: option parsing, kernel names and
registration, launch geometry and every argument error, on fake device arrays never launched on.
"""

import itertools
import re

import numpy as np
import pytest

from conftest import assert_close, fake, random_array, to_device, to_host, wide
from level2_host import Vec, as_passed, blas_index, error_scale as _scale, op as _op, scalar as _scalar

from rocblas_fixtures import fresh_prepared_launches, refuse_launches  # noqa: F401  (autouse)

from rocarray._core import compile as _compile
from rocarray.rocblas import _level2
import rocarray.rocblas as rocblas

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")

ALL = ["float32", "float64", "complex64", "complex128"]
COMPLEX = ["complex64", "complex128"]
TRI = list(itertools.product("UL", "NTC", "NU"))


def _ids(v):
    return str(v)


# --------------------------------------------------------------------------------------------
# host references and buffers
# --------------------------------------------------------------------------------------------

class Mat:
    """A column-major m x n device matrix in a 1-D buffer with leading dimension lda.

    ``offset`` elements precede element (0, 0) in the parent (1: off the 16-byte vector path);
    ``keep`` ('U', 'L' or None) fills the other strict triangle with NaN (never to be read).
    """

    def __init__(self, rng, m, n, lda, dtype, offset=0, keep=None, diag=None):
        size = offset + (max(n, 1) - 1) * lda + max(m, 1) + 3
        self.parent = random_array(rng, size, dtype)
        self.offset, self.m, self.n, self.lda = offset, m, n, lda
        if m and n:
            self.pos = offset + np.arange(m)[:, None] + np.arange(n)[None, :] * lda
            if diag is not None:
                k = np.arange(min(m, n))
                self.parent[self.pos[k, k]] = diag
            if keep is not None:
                i, j = np.indices((m, n))
                hidden = (i > j) if keep == "U" else (i < j)
                self.parent[self.pos[hidden]] = np.nan
        self.dev_parent = to_device(self.parent)
        self.dev = self.dev_parent[offset:]

    def matrix(self):
        if not (self.m and self.n):
            return np.zeros((self.m, self.n))
        return wide(self.parent[self.pos])

    def unchanged(self):
        np.testing.assert_array_equal(to_host(self.dev_parent), self.parent)


# --------------------------------------------------------------------------------------------
# gemv
# --------------------------------------------------------------------------------------------

# (m, n, lda - m, incx, incy, offset): sizes crossing warp, block and pack boundaries,
# lda > m, negative and non-unit increments, a misaligned matrix
GEMV_SHAPES = [
    (0, 5, 0, 1, 1, 0), (5, 0, 0, 1, 1, 0), (1, 1, 0, 1, 1, 0), (31, 33, 0, 1, 1, 0),
    (32, 32, 0, -1, 2, 0), (33, 31, 3, 2, -1, 0), (63, 64, 1, 1, 1, 1), (64, 65, 0, -3, 1, 0),
    (65, 63, 4, 1, -2, 0), (1000, 1000, 0, 1, 1, 0), (1000, 37, 8, -1, 1, 0), (37, 1000, 0, 1, 3, 0),
    (4100, 33, 4, 1, 1, 0), (3, 5000, 1, 1, 1, 1),
]


def _run_gemv(rng, dtype, trans, m, n, extra, incx, incy, offset, alpha=None, beta=None, poison=False):
    alpha = _scalar(dtype, 1.5, 0.25) if alpha is None else alpha
    beta = _scalar(dtype, -0.5, 0.75) if beta is None else beta
    lda = max(1, m) + extra
    a = Mat(rng, m, n, lda, dtype, offset)
    lx, ly = (n, m) if trans == "N" else (m, n)
    x = Vec(rng, lx, incx, dtype)
    y = Vec(rng, ly, incy, dtype, fill=np.nan if poison else None)
    assert rocblas.gemv(trans, m, n, alpha, a.dev, lda, x.dev, incx, beta, y.dev, incy) is None
    a.unchanged()
    x.unchanged()
    if m == 0 or n == 0:
        y.unchanged()
        return
    al, be = as_passed(alpha, dtype), as_passed(beta, dtype)
    op, xs, ys = _op(a.matrix(), trans), x.values(), y.values()
    want = al * (op @ xs) + (be * ys if be != 0 else 0)
    y.check(want, dtype, _scale(al, op, xs, be, ys), op.shape[1])


@pytest.mark.gpu
@pytest.mark.parametrize("shape", GEMV_SHAPES, ids=_ids)
@pytest.mark.parametrize("trans", ["N", "T", "C"])
@pytest.mark.parametrize("dtype", ALL)
def test_gemv_matches_numpy(rng, dtype, trans, shape):
    _run_gemv(rng, dtype, trans, *shape)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["N", "T", "C"])
@pytest.mark.parametrize("dtype", ALL)
def test_gemv_beta_zero_does_not_read_y(rng, dtype, trans):
    _run_gemv(rng, dtype, trans, 70, 45, 2, 1, -1, 0, beta=0.0, poison=True)
    _run_gemv(rng, dtype, trans, 1030, 20, 2, 1, 1, 0, beta=0.0, poison=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_gemv_alpha_zero_scales_y_without_reading_a(rng, dtype):
    a = to_device(np.full(12, np.nan, dtype))
    x = to_device(np.full(4, np.nan, dtype))
    y = Vec(rng, 3, 1, dtype)
    rocblas.gemv("N", 3, 4, 0.0, a, 3, x, 1, 2.0, y.dev, 1)
    y.check(2.0 * y.values(), dtype, 2.0 * float(np.max(np.abs(y.values()))))
    rocblas.gemv("T", 4, 3, 0.0, a, 4, x, 1, 1.0, y.dev, 1)  # alpha 0, beta 1: nothing at all
    y.check(2.0 * y.values(), dtype, 2.0 * float(np.max(np.abs(y.values()))))
    z = Vec(rng, 3, 2, dtype, fill=np.nan)
    rocblas.gemv("C", 4, 3, 0.0, a, 4, x, 1, 0.0, z.dev, 2)  # beta 0: y := 0, NaN not read
    np.testing.assert_array_equal(to_host(z.dev)[blas_index(3, 2)], np.zeros(3, dtype))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_gemv_fortran_matrix_and_is_deterministic(rng, dtype):
    m, n = 777, 2049
    host = random_array(rng, (m, n), dtype)
    a = cupy.asfortranarray(to_device(host))
    x = to_device(random_array(rng, n, dtype))
    for trans in "NT":
        xs = x if trans == "N" else to_device(random_array(rng, m, dtype))
        ys = []
        for _ in range(3):
            y = cupy.zeros(m if trans == "N" else n, dtype)
            rocblas.gemv(trans, m, n, 1.0, a, m, xs, 1, 0.0, y, 1)
            ys.append(to_host(y))
        assert ys[0].tobytes() == ys[1].tobytes() == ys[2].tobytes()
        op = wide(host) if trans == "N" else wide(host).T
        assert_close(ys[0], op @ wide(to_host(xs)), dtype, op.shape[1],
                     atol_scale=float(np.max(np.abs(op) @ np.abs(wide(to_host(xs))))))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_split_launches_with_growing_ticket_counts(rng, dtype):
    # A split 'N' launch over few row slabs writes many partials; a split 'T' launch right after
    # needs many more tickets. Partials must never land on tickets: 2049 columns are 129 'T'
    # column groups, and every one of them must finish.
    m, n = 777, 2049
    host = random_array(rng, (m, n), dtype)
    a = to_device(np.asfortranarray(host).ravel(order="F"))
    xn, xt = to_device(random_array(rng, n, dtype)), to_device(random_array(rng, m, dtype))
    for _ in range(2):
        yn, yt = cupy.full(m, np.nan, dtype), cupy.full(n, np.nan, dtype)
        rocblas.gemv("N", m, n, 1.0, a, m, xn, 1, 0.0, yn, 1)
        rocblas.gemv("T", m, n, 1.0, a, m, xt, 1, 0.0, yt, 1)
        for y, op, x in ((yn, wide(host), xn), (yt, wide(host).T, xt)):
            assert_close(y, op @ wide(to_host(x)), dtype, op.shape[1],
                         atol_scale=float(np.max(np.abs(op) @ np.abs(wide(to_host(x))))))


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("trans", ["N", "T"])
def test_gemv_16384_float32(rng, trans):
    m = n = 16384
    a = cupy.random.standard_normal(m * n, dtype=np.float32)
    x = to_device(random_array(rng, n, "float32"))
    y = cupy.zeros(n, np.float32)
    rocblas.gemv(trans, m, n, 1.0, a, m, x, 1, 0.0, y, 1)
    mat = a.reshape(n, m)  # row j of the row-major view is column j of A
    ref = (mat.T if trans == "N" else mat).astype(np.float64) @ x.astype(np.float64)
    scale = float(cupy.max(cupy.abs(mat.T if trans == "N" else mat) @ cupy.abs(x)))
    assert_close(to_host(y), to_host(ref), "float32", n, atol_scale=scale)


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("trans", ["N", "T"])
def test_gemv_more_than_2_31_elements(trans):
    m, n = 1 << 16, (1 << 15) + 3  # 2^31 + 3 * 2^16 elements: offsets need 64 bits
    free, _ = cupy.cuda.runtime.memGetInfo()
    if free < m * n * 4 + (1 << 30):
        pytest.skip(f"needs {m * n * 4 / 2**30:.0f} GiB of free device memory")
    col = cupy.arange(n, dtype=np.float32) % 7 - 3  # column j holds c_j everywhere
    a = cupy.empty((n, m), np.float32)
    a[...] = col[:, None]
    a = a.ravel()
    if trans == "N":
        x = (cupy.arange(n, dtype=np.float32) % 5) - 2
        y = cupy.zeros(m, np.float32)
        rocblas.gemv("N", m, n, 1.0, a, m, x, 1, 0.0, y, 1)
        want = float(cupy.sum(col.astype(np.float64) * x))
        np.testing.assert_allclose(to_host(y), want, rtol=1e-5, atol=1e-3)
    else:
        x = cupy.ones(m, np.float32)
        y = cupy.zeros(n, np.float32)
        rocblas.gemv("T", m, n, 1.0, a, m, x, 1, 0.0, y, 1)
        np.testing.assert_allclose(to_host(y), to_host(col) * m, rtol=1e-5)


# --------------------------------------------------------------------------------------------
# ger, geru, gerc
# --------------------------------------------------------------------------------------------

GER_FNS = [("ger", "float32"), ("ger", "float64"), ("geru", "complex64"), ("geru", "complex128"),
           ("gerc", "complex64"), ("gerc", "complex128")]
GER_SHAPES = [(0, 3, 0, 1, 1, 0), (1, 1, 0, 1, 1, 0), (33, 31, 3, -1, 2, 0), (64, 65, 0, 1, 1, 1),
              (1030, 9, 2, 1, -1, 0), (65, 1000, 0, 2, 1, 0)]


@pytest.mark.gpu
@pytest.mark.parametrize("shape", GER_SHAPES, ids=_ids)
@pytest.mark.parametrize("fn,dtype", GER_FNS, ids=_ids)
def test_ger_matches_numpy(rng, fn, dtype, shape):
    m, n, extra, incx, incy, offset = shape
    lda = max(1, m) + extra
    a = Mat(rng, m, n, lda, dtype, offset)
    x, y = Vec(rng, m, incx, dtype), Vec(rng, n, incy, dtype)
    alpha = _scalar(dtype, 0.75, -0.5)
    assert getattr(rocblas, fn)(m, n, alpha, x.dev, incx, y.dev, incy, a.dev, lda) is None
    x.unchanged()
    y.unchanged()
    got = to_host(a.dev_parent)
    if m == 0 or n == 0:
        a.unchanged()
        return
    ys = y.values().conj() if fn == "gerc" else y.values()
    al = as_passed(alpha, dtype)
    want = a.matrix() + al * np.outer(x.values(), ys)
    rest = np.ones(got.shape, bool)
    rest[a.pos] = False
    np.testing.assert_array_equal(got[rest], a.parent[rest])
    assert_close(got[a.pos], want, dtype, 2, atol_scale=float(np.max(np.abs(a.matrix()) + abs(al) * np.abs(
        np.outer(x.values(), ys)))))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_ger_alpha_zero_is_noop(rng, dtype):
    fn = "ger" if np.dtype(dtype).kind == "f" else "gerc"
    a = Mat(rng, 5, 4, 5, dtype)
    x = to_device(np.full(5, np.nan, dtype))
    getattr(rocblas, fn)(5, 4, 0.0, x, 1, x, 1, a.dev, 5)
    a.unchanged()


# --------------------------------------------------------------------------------------------
# symv, hemv
# --------------------------------------------------------------------------------------------

SYMV_FNS = [("symv", d) for d in ALL] + [("hemv", d) for d in COMPLEX]
SYMV_SHAPES = [(0, 0, 1, 1), (1, 0, 1, 1), (31, 2, 1, -1), (64, 0, -2, 1), (65, 1, 1, 3), (1000, 0, 1, 1)]


def _run_symv(rng, fn, dtype, uplo, n, extra, incx, incy, beta=None, poison=False):
    herm = fn == "hemv"
    lda = max(1, n) + extra
    a = Mat(rng, n, n, lda, dtype, keep=uplo)
    x = Vec(rng, n, incx, dtype)
    y = Vec(rng, n, incy, dtype, fill=np.nan if poison else None)
    alpha = _scalar(dtype, 1.25, -0.5)
    beta = _scalar(dtype, 0.5, 0.5) if beta is None else beta
    assert getattr(rocblas, fn)(uplo, n, alpha, a.dev, lda, x.dev, incx, beta, y.dev, incy) is None
    a.unchanged()
    if n == 0:
        y.unchanged()
        return
    t = np.nan_to_num(a.matrix(), nan=0.0)
    d = np.diag(t).real if herm else np.diag(t)
    s = t - np.diag(np.diag(t))
    full = s + (s.conj().T if herm else s.T) + np.diag(d)
    al, be = as_passed(alpha, dtype), as_passed(beta, dtype)
    xs, ys = x.values(), y.values()
    y.check(al * (full @ xs) + (be * ys if be != 0 else 0), dtype, _scale(al, full, xs, be, ys), n)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", SYMV_SHAPES, ids=_ids)
@pytest.mark.parametrize("uplo", ["U", "L"])
@pytest.mark.parametrize("fn,dtype", SYMV_FNS, ids=_ids)
def test_symv_hemv_match_numpy(rng, fn, dtype, uplo, shape):
    _run_symv(rng, fn, dtype, uplo, *shape)


@pytest.mark.gpu
@pytest.mark.parametrize("uplo", ["U", "L"])
@pytest.mark.parametrize("fn,dtype", SYMV_FNS, ids=_ids)
def test_symv_hemv_beta_zero_does_not_read_y(rng, fn, dtype, uplo):
    _run_symv(rng, fn, dtype, uplo, 70, 1, 1, 1, beta=0.0, poison=True)


# --------------------------------------------------------------------------------------------
# trmv, trsv
# --------------------------------------------------------------------------------------------

TR_SIZES = [(0, 0, 1), (1, 0, 1), (31, 1, -1), (33, 0, 2), (64, 0, 1), (65, 3, -2), (300, 4, 1)]


def _triangle(a, uplo, diag):
    t = np.nan_to_num(a, nan=0.0)
    t = np.triu(t) if uplo == "U" else np.tril(t)
    if diag == "U":
        np.fill_diagonal(t, 1)
    return t


def _run_tr(rng, fn, dtype, uplo, trans, diag, n, extra, incx):
    lda = max(1, n) + extra
    # trsv: a diagonally dominant triangle (well conditioned); a unit diagonal is filled with
    # NaN, since it must never be read
    dd = None
    if fn == "trsv":
        dd = (n + 2) * (1 + 0.5j if np.dtype(dtype).kind == "c" else 1)
        if diag == "U":
            dd = np.nan
    elif diag == "U":
        dd = np.nan
    a = Mat(rng, n, n, lda, dtype, keep=uplo, diag=dd)
    if fn == "trsv" and n:
        # scale the off-diagonal part so that the unit-diagonal triangle stays well conditioned
        off = a.pos[~np.eye(n, dtype=bool)]
        a.parent[off] = a.parent[off] / n
        a.dev_parent = to_device(a.parent)
        a.dev = a.dev_parent[a.offset:]
    x = Vec(rng, n, incx, dtype)
    assert getattr(rocblas, fn)(uplo, trans, diag, n, a.dev, lda, x.dev, incx) is None
    a.unchanged()
    if n == 0:
        x.unchanged()
        return
    op = _op(_triangle(a.matrix(), uplo, diag), trans)
    xs = x.values()
    if fn == "trmv":
        x.check(op @ xs, dtype, _scale(1, op, xs, 0, xs), n)
    else:
        z = np.linalg.solve(op, xs)
        x.check(z, dtype, float(np.max(np.abs(z))), n)


@pytest.mark.gpu
@pytest.mark.parametrize("uplo,trans,diag", TRI, ids=_ids)
@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("fn", ["trmv", "trsv"])
def test_trmv_trsv_match_numpy(rng, fn, dtype, uplo, trans, diag):
    for n, extra, incx in TR_SIZES:
        _run_tr(rng, fn, dtype, uplo, trans, diag, n, extra, incx)


@pytest.mark.gpu
@pytest.mark.parametrize("one_launch", [True, False], ids=["one_launch", "blocked"])
@pytest.mark.parametrize("uplo,trans", list(itertools.product("UL", "NT")), ids=_ids)
def test_trsv_1000_float64(rng, monkeypatch, uplo, trans, one_launch):
    monkeypatch.setattr(_level2, "TRSV_ONE_LAUNCH", one_launch)
    _run_tr(rng, "trsv", "float64", uplo, trans, "N", 1000, 5, -1)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype,uplo,trans,diag", [("float64", "L", "N", "U"), ("float64", "U", "T", "N"),
                                                   ("complex128", "U", "C", "N"), ("float32", "L", "T", "N")],
                         ids=_ids)
def test_trsv_one_launch_4099(rng, monkeypatch, dtype, uplo, trans, diag):
    """Tens of block-rows handed on between blocks that run at the same time (65 of 64 rows, 129
    of 32 for complex128), the last one short."""
    monkeypatch.setattr(_level2, "TRSV_ONE_LAUNCH", True)
    _run_tr(rng, "trsv", dtype, uplo, trans, diag, 4099, 3, 1)
    _level2.check_trsv()


@pytest.mark.gpu
def test_trsv_one_launch_more_blocks_than_resident(rng, monkeypatch):
    """n = 20000 float32: 313 block-rows, more blocks than a 132-SM device holds at once (two an
    SM), so later blocks start only as earlier ones finish; checked by the residual on the device,
    twice in a row (the flags and counters each launch leaves for the next)."""
    monkeypatch.setattr(_level2, "TRSV_ONE_LAUNCH", True)
    n = 20000
    a = cupy.random.default_rng(int(rng.integers(2 ** 31))).standard_normal((n, n), dtype=np.float32) / n
    lower = cupy.tril(a, -1) + cupy.eye(n, dtype=np.float32)    # the unit lower triangle, row-major
    buf = cupy.asfortranarray(lower)                            # column-major: A(i, j) = lower[i, j]
    del a
    for _ in range(2):
        b = cupy.random.default_rng(int(rng.integers(2 ** 31))).standard_normal(n, dtype=np.float32)
        x = b.copy()
        rocblas.trsv("L", "N", "U", n, buf, n, x, 1)
        residual = float(cupy.abs(lower @ x - b).max())
        assert residual <= 1e-3 * float(cupy.abs(b).max()), residual
    _level2.check_trsv()


# --------------------------------------------------------------------------------------------
# CPU: the pure-Python layer, on fake device arrays (never launched)
# --------------------------------------------------------------------------------------------

@pytest.fixture
def no_launch(monkeypatch):
    """Fail (instead of launching on fake memory) if anything reaches a kernel or the device."""

    def refuse(*args, **kwargs):
        raise AssertionError("a kernel launch was attempted")

    monkeypatch.setattr(_level2, "_launch_gemv", refuse)
    refuse_launches(monkeypatch)


def test_kernel_names():
    assert _level2.kernel_name("gemv_n", np.float32) == "ra_rocblas_gemv_n<float, false>"
    assert _level2.kernel_name("gemv_t", np.complex128, masked=True) == "ra_rocblas_gemv_t<ra_c128, true>"
    assert _level2.kernel_name("ger", np.complex64) == "ra_rocblas_ger<ra_c64>"
    assert _level2.kernel_name("trsv_block", np.float64) == "ra_rocblas_trsv_block<double>"
    assert _level2.kernel_name("trsv_one", np.float32) == "ra_rocblas_trsv_one<float, 64>"
    assert _level2.kernel_name("trsv_one", np.complex128) == "ra_rocblas_trsv_one<ra_c128, 32>"


def test_every_launched_kernel_is_registered_and_exists():
    registered = set(_compile.registered(_level2.SOURCE))
    assert registered == set(_level2.instantiations())
    # 4 dtypes x (gemv_n, gemv_t) x (plain, masked) + 4 ger + 4 trsv_block + 4 trsv_one
    assert len(registered) == 28
    source = _compile.read_text(_level2.SOURCE)
    for name in registered:
        assert name.startswith("ra_rocblas_")
        assert f"{name.split('<')[0]}(" in source, name
    assert "#include" not in source
    assert re.search(r"(?<![\w.])32(?![\w.])", source) is None, "literal 32 (use RA_WARP_SIZE)"
    assert "__shfl" not in source and "__ballot" not in source


def test_flag_bits_match_the_source():
    source = _compile.read_text(_level2.SOURCE)
    for name, value in [("VEC", 1), ("UPPER", 2), ("STRICT", 4), ("UNIT", 8), ("HERM", 16), ("CONJ", 32),
                        ("TRANS", 64)]:
        assert re.search(rf"#define RA_ROCBLAS2_{name} 0x{value:02x}\b", source), name
        assert getattr(_level2, name) == value
    assert re.search(rf"#define RA_ROCBLAS2_BLOCK {_level2.BLOCK}\b", source)
    assert re.search(rf"#define RA_ROCBLAS2_TCOLS {_level2.TCOLS}\b", source)
    assert re.search(rf"#define RA_ROCBLAS2_TRSV_NB {_level2.TRSV_NB}\b", source)
    assert _level2.TRSV_NB <= _level2.BLOCK
    for itemsize, nb in _level2.TRSV_ONE_NB.items():   # the kernel's static_asserts and its static shared memory
        assert _level2.BLOCK % nb == 0 and nb * nb * itemsize <= 32 * 1024


def test_launch_geometry_for_the_benchmark_shape():
    wave = 132 * 8  # H200: 132 SMs, 8 blocks of 256 threads each
    tiles, splits, cols = _level2.gemv_n_grid(16384, 16384, True, 4, wave)
    assert (tiles, splits) == (16, 66) and cols * splits >= 16384 > cols * (splits - 1)
    tiles, splits, rows = _level2.gemv_t_grid(16384, 16384, 4, wave)
    assert (tiles, splits) == (1024, 1) and rows >= 16384
    # few columns: no split below MIN_SPLIT_COLS columns; short and wide 'T': row splits
    assert _level2.gemv_n_grid(100000, 10, False, 4, wave)[1] == 1
    tiles, splits, rows = _level2.gemv_t_grid(1 << 20, 16, 4, wave)
    assert tiles == 1 and splits > 1 and rows % (_level2.BLOCK * 4) == 0 and rows * splits >= 1 << 20
    # no columns (the alpha == 0 scaling launch)
    assert _level2.gemv_n_grid(1000, 0, True, 4, wave) == (1, 1, 0)


@needs_cupy
def test_vector_path_detection():
    a = fake((4096,), np.float32, address=1 << 24)
    m = _level2.matrix(a, 10, 10, 12, "t")
    assert _level2.is_vec(m, np.float32)
    assert not _level2.is_vec(_level2.matrix(a, 10, 10, 10, "t"), np.float32)  # lda * 4 % 16 != 0
    assert not _level2.is_vec(_level2.matrix(a[1:], 10, 10, 12, "t"), np.float32)  # misaligned
    assert not _level2.is_vec(m.at(1, 0), np.float32)
    assert _level2.is_vec(m.at(4, 2), np.float32)


@needs_cupy
def test_argument_errors_raise_before_the_device(no_launch):
    A = fake((100,), np.float32)
    x = fake((10,), np.float32, address=1 << 21)
    y = fake((10,), np.float32, address=1 << 22)
    with pytest.raises(ValueError, match="trans must be one of 'N', 'T', 'C'"):
        rocblas.gemv("X", 10, 10, 1.0, A, 10, x, 1, 0.0, y, 1)
    with pytest.raises(ValueError, match="uplo must be"):
        rocblas.symv("A", 10, 1.0, A, 10, x, 1, 0.0, y, 1)
    with pytest.raises(ValueError, match="diag must be"):
        rocblas.trsv("U", "N", "X", 10, A, 10, x, 1)
    with pytest.raises(ValueError, match="transA must be"):
        rocblas.trmv("U", "H", "N", 10, A, 10, x, 1)
    with pytest.raises(ValueError, match="lda must be >= max"):
        rocblas.gemv("N", 10, 10, 1.0, A, 9, x, 1, 0.0, y, 1)
    with pytest.raises(ValueError, match="lda must be >= max"):
        rocblas.trsv("U", "N", "N", 0, A, 0, x, 1)
    with pytest.raises(ValueError, match="needs 110 elements of A"):
        rocblas.gemv("T", 11, 10, 1.0, A, 11, x, 1, 0.0, y, 1)
    with pytest.raises(ValueError, match="needs 11 elements"):
        rocblas.gemv("T", 11, 9, 1.0, A, 11, x, 1, 0.0, y, 1)  # x has 10 elements, needs m = 11
    with pytest.raises(ValueError, match="needs 19 elements"):
        rocblas.ger(10, 5, 1.0, x, -2, y, 1, A, 10)
    with pytest.raises(ValueError, match="incx must be nonzero"):
        rocblas.gemv("N", 3, 3, 1.0, A, 3, x, 0, 0.0, y, 1)
    with pytest.raises(ValueError, match="incy must be nonzero"):
        rocblas.symv("U", 3, 1.0, A, 3, x, 1, 0.0, y, 0)
    with pytest.raises(ValueError, match="m must be >= 0"):
        rocblas.gemv("N", -1, 3, 1.0, A, 3, x, 1, 0.0, y, 1)
    with pytest.raises(ValueError, match="n must be >= 0"):
        rocblas.trmv("L", "N", "N", -2, A, 3, x, 1)
    with pytest.raises(TypeError, match="host"):
        rocblas.gemv("N", 3, 3, 1.0, np.ones(9, np.float32), 3, x, 1, 0.0, y, 1)
    with pytest.raises(TypeError, match="host"):
        rocblas.gemv("N", 3, 3, 1.0, A, 3, np.ones(3, np.float32), 1, 0.0, y, 1)
    with pytest.raises(TypeError, match="cupy.ndarray"):
        rocblas.trsv("U", "N", "N", 3, [1.0] * 9, 3, x, 1)
    with pytest.raises(TypeError, match="unsupported dtype float16"):
        rocblas.gemv("N", 3, 3, 1.0, fake((9,), np.float16), 3, fake((3,), np.float16), 1, 0.0,
                     fake((3,), np.float16), 1)
    with pytest.raises(TypeError, match="unsupported dtype float16"):
        rocblas.trsv("U", "N", "N", 3, fake((9,), np.float16), 3, fake((3,), np.float16), 1)
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        rocblas.symv("U", 3, 1.0, fake((9,), np.int32), 3, fake((3,), np.int32), 1, 0.0, fake((3,), np.int32), 1)
    with pytest.raises(TypeError, match="dtype of A"):
        rocblas.gemv("N", 3, 3, 1.0, A, 3, fake((3,), np.float64), 1, 0.0, y, 1)
    with pytest.raises(TypeError, match="geru or gerc"):
        rocblas.ger(2, 2, 1.0, fake((2,), np.complex64), 1, fake((2,), np.complex64), 1, fake((4,), np.complex64), 2)
    with pytest.raises(TypeError, match="unsupported dtype float32"):
        rocblas.hemv("U", 2, 1.0, A, 2, x, 1, 0.0, y, 1)
    with pytest.raises(TypeError, match="unsupported dtype float64"):
        rocblas.gerc(2, 2, 1.0, fake((2,), np.float64), 1, fake((2,), np.float64), 1, fake((4,), np.float64), 2)
    with pytest.raises(TypeError, match="complex alpha"):
        rocblas.gemv("N", 3, 3, 1j, A, 3, x, 1, 0.0, y, 1)
    with pytest.raises(TypeError, match="complex beta"):
        rocblas.symv("U", 3, 1.0, A, 3, x, 1, 1j, y, 1)
    with pytest.raises(TypeError, match="host"):
        rocblas.gemv("N", 3, 3, fake((), np.float32), A, 3, x, 1, 0.0, y, 1)
    with pytest.raises(TypeError, match="integer"):
        rocblas.gemv("N", 3.0, 3, 1.0, A, 3, x, 1, 0.0, y, 1)
    with pytest.raises(TypeError, match="integer"):
        rocblas.trsv("U", "N", "N", 3, A, 3.5, x, 1)
    with pytest.raises(ValueError, match="contiguous"):
        rocblas.gemv("N", 3, 3, 1.0, A[::2], 3, x, 1, 0.0, y, 1)
    with pytest.raises(ValueError, match="contiguous"):
        rocblas.gemv("N", 3, 3, 1.0, fake((10, 10), np.float32), 10, x, 1, 0.0, y, 1)  # C order
    with pytest.raises(ValueError, match="aligned"):
        c = fake((20,), np.complex128, address=(1 << 20) + 8)
        rocblas.gemv("N", 2, 2, 1.0, c, 2, fake((4,), np.complex128), 1, 0.0, fake((4,), np.complex128), 1)
    with pytest.raises(ValueError, match="1-D"):
        rocblas.gemv("N", 2, 2, 1.0, A, 2, fake((2, 2), np.float32), 1, 0.0, y, 1)


@needs_cupy
def test_fortran_matrix_is_accepted(no_launch):
    a = fake((10, 10), np.float32, order="F")
    x = fake((10,), np.float32, address=1 << 21)
    with pytest.raises(AssertionError, match="kernel launch"):  # checks pass, then it would launch
        rocblas.gemv("N", 10, 10, 1.0, a, 10, x, 1, 0.0, x, 1)


@needs_cupy
def test_noops_never_reach_the_device(no_launch):
    A = fake((100,), np.float32)
    x = fake((10,), np.float32, address=1 << 21)
    y = fake((10,), np.float32, address=1 << 22)
    assert rocblas.gemv("N", 0, 10, 1.0, A, 1, x, 1, 0.0, y, 1) is None
    assert rocblas.gemv("T", 10, 0, 1.0, A, 10, x, 1, 0.0, y, 1) is None
    assert rocblas.gemv("N", 10, 10, 0.0, A, 10, x, 1, 1.0, y, 1) is None  # alpha 0, beta 1
    assert rocblas.ger(10, 10, 0.0, x, 1, y, 1, A, 10) is None
    assert rocblas.ger(0, 10, 1.0, x, 1, y, 1, A, 1) is None
    assert rocblas.symv("U", 0, 1.0, A, 1, x, 1, 0.0, y, 1) is None
    assert rocblas.hemv("L", 5, 0.0, fake((25,), np.complex64), 5, fake((5,), np.complex64), 1, 1.0,
                        fake((5,), np.complex64, address=1 << 22), 1) is None
    assert rocblas.trmv("U", "N", "N", 0, A, 1, x, 1) is None
    assert rocblas.trsv("L", "T", "U", 0, A, 1, x, 1) is None
    # even a no-op rejects a buffer that is too short once the sizes are positive
    with pytest.raises(ValueError):
        rocblas.gemv("N", 10, 11, 0.0, A, 10, x, 1, 1.0, y, 1)


# --------------------------------------------------------------------------------------------
# self-checks and benchmark cases (rocarray/rocblas/_checks.py)
# --------------------------------------------------------------------------------------------

def test_level2_self_checks_and_bench_cases_are_registered():
    from rocarray._core import harness

    harness.load_all()  # the command line loads them; a test run on its own must too
    names = {c.name for c in harness.self_checks() if c.library == "rocblas"}
    assert {"rocblas.gemv", "rocblas.ger", "rocblas.symv_hemv", "rocblas.trmv_trsv"} <= names
    cases = {c.name: c for c in harness.bench_cases() if c.library == "rocblas"}
    for name in ("gemv_n_float32", "gemv_t_float32"):
        case = cases[f"rocblas.{name}"]
        assert case.bytes_moved == 16384 * 16384 * 4 and case.memory_bound
    assert cases["rocblas.trsv_l_float64_8192"].bytes_moved == (8192 * 8191 // 2 + 2 * 8192) * 8
    assert "rocblas.trsv_u_float32_16384" in cases


def test_split_workspace_keeps_one_ticket_area_per_size(monkeypatch):
    """A split launch's tickets sit in a zero-kept area of a power-of-two size (4 KiB at least) in
    front of its partials; each area size is a workspace of its own, so no launch reads tickets
    where another one left partial sums."""
    from rocarray._core import workspace

    asked = []

    class Owner:
        def counters(self, name, nbytes, device_id):
            asked.append((name, nbytes, device_id))
            return name

    monkeypatch.setattr(workspace, "workspaces", Owner())
    assert _level2._workspace(0, 16, 1000) == ("rocblas.level2.tickets4096", 4096)
    assert _level2._workspace(0, 1024, 0) == ("rocblas.level2.tickets4096", 4096)
    assert _level2._workspace(1, 1025, 8) == ("rocblas.level2.tickets8192", 8192)
    assert asked == [("rocblas.level2.tickets4096", 4096 + 1000, 0), ("rocblas.level2.tickets4096", 4096, 0),
                     ("rocblas.level2.tickets8192", 8192 + 8, 1)]
