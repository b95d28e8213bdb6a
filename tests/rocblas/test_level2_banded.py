"""rocblas gbmv/sbmv/hbmv against float64/complex128 NumPy references built from the band storage.

GPU tests (``@pytest.mark.gpu``) build band storage on the device with every entry outside the
band (the storage corners, the padding rows of ``lda > kl + ku + 1``, the tail of the buffer) set
to NaN, so reading one shows up; y's elements between and around its strided BLAS elements are
NaN too, and the whole y buffer is compared (writes out of place show up, NaN compares equal to
NaN where it must stay). beta == 0 runs on an all-NaN y. CPU tests cover the pure-Python layer:
kernel names and registration, launch geometry and every argument error, on fake device arrays.
"""

import re

import numpy as np
import pytest

from conftest import assert_close, fake, random_array, to_device, to_host, wide
from level2_host import Vec, as_passed, blas_index, error_scale as _scale, op as _op, scalar as _scalar

from rocblas_fixtures import fresh_prepared_launches, refuse_launches  # noqa: F401  (autouse)

from rocarray._core import compile as _compile
from rocarray.rocblas import _level2_banded
import rocarray.rocblas as rocblas

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None

needs_cupy = pytest.mark.skipif(cupy is None, reason="CuPy is not installed")

ALL = ["float32", "float64", "complex64", "complex128"]
REAL = ["float32", "float64"]
COMPLEX = ["complex64", "complex128"]


def _ids(v):
    return str(v)


# --------------------------------------------------------------------------------------------
# host references and buffers
# --------------------------------------------------------------------------------------------

class Band:
    """Band storage of an m x n matrix with kl sub- and ku super-diagonals at leading dimension
    lda, in a device buffer; every entry outside the band is NaN. ``offset`` elements precede
    the storage in the parent buffer."""

    def __init__(self, rng, m, n, kl, ku, lda, dtype, offset=0, herm_diag=False):
        size = offset + max(n, 1) * lda + 3
        self.parent = np.full(size, np.nan, dtype)
        self.m, self.n, self.kl, self.ku, self.lda, self.offset = m, n, kl, ku, lda, offset
        self.dense = np.zeros((m, n), np.complex128 if np.dtype(dtype).kind == "c" else np.float64)
        for j in range(n):
            i = np.arange(max(0, j - ku), min(m, j + kl + 1))
            pos = offset + (ku + i - j) + j * lda
            vals = random_array(rng, len(i), dtype)
            self.parent[pos] = vals
            self.dense[i, j] = wide(vals)
        self.dev_parent = to_device(self.parent)
        self.dev = self.dev_parent[offset:]

    def unchanged(self):
        np.testing.assert_array_equal(to_host(self.dev_parent), self.parent)


# --------------------------------------------------------------------------------------------
# gbmv
# --------------------------------------------------------------------------------------------

# (m, n, kl, ku, lda - (kl + ku + 1), incx, incy, offset): sizes crossing warp (32, 64) and
# block boundaries, m != n both ways, kl/ku in {0, 1, 5, > n}, padded lda, negative and
# non-unit increments, a storage not 16-byte aligned, bands taller than a warp
GBMV_SHAPES = [
    (0, 5, 1, 1, 0, 1, 1, 0), (5, 0, 1, 1, 0, 1, 1, 0), (1, 1, 0, 0, 0, 1, 1, 0), (1, 1, 5, 1, 0, -1, 2, 1),
    (31, 33, 1, 5, 0, 1, 1, 0), (33, 31, 5, 1, 2, 2, -1, 0), (64, 64, 0, 0, 0, -1, 2, 0),
    (65, 64, 5, 0, 0, 1, 1, 1), (64, 65, 0, 5, 3, 1, -1, 0), (31, 65, 70, 80, 0, 2, 1, 0),
    (65, 33, 100, 1, 1, -1, -1, 0), (1000, 1000, 5, 5, 0, 1, 1, 0), (1000, 1000, 1, 0, 0, 2, 1, 0),
    (1000, 33, 0, 1, 1, -1, 1, 0), (33, 1000, 5, 0, 0, 1, 2, 0), (1000, 1000, 40, 35, 2, 1, -1, 1),
    (1000, 64, 1, 1001, 0, 1, 1, 0),
]


def _run_gbmv(rng, dtype, trans, m, n, kl, ku, extra, incx, incy, offset, alpha=None, beta=None,
              poison=False):
    alpha = _scalar(dtype, 1.5, 0.25) if alpha is None else alpha
    beta = _scalar(dtype, -0.5, 0.75) if beta is None else beta
    lda = kl + ku + 1 + extra
    a = Band(rng, m, n, kl, ku, lda, dtype, offset)
    lx, ly = (n, m) if trans == "N" else (m, n)
    x = Vec(rng, lx, incx, dtype)
    y = Vec(rng, ly, incy, dtype, fill=np.nan if poison else None)
    assert rocblas.gbmv(trans, m, n, kl, ku, alpha, a.dev, lda, x.dev, incx, beta, y.dev, incy) is None
    a.unchanged()
    x.unchanged()
    if m == 0 or n == 0:
        y.unchanged()
        return
    al, be = as_passed(alpha, dtype), as_passed(beta, dtype)
    op, xs, ys = _op(a.dense, trans), x.values(), y.values()
    want = al * (op @ xs) + (be * ys if be != 0 else 0)
    y.check(want, dtype, _scale(al, op, xs, be, ys), min(op.shape[1], kl + ku + 1))


@pytest.mark.gpu
@pytest.mark.parametrize("shape", GBMV_SHAPES, ids=_ids)
@pytest.mark.parametrize("trans", ["N", "T", "C"])
@pytest.mark.parametrize("dtype", ALL)
def test_gbmv_matches_numpy(rng, dtype, trans, shape):
    _run_gbmv(rng, dtype, trans, *shape)


@pytest.mark.gpu
@pytest.mark.parametrize("trans", ["N", "T", "C"])
@pytest.mark.parametrize("dtype", ALL)
def test_gbmv_beta_zero_does_not_read_y(rng, dtype, trans):
    _run_gbmv(rng, dtype, trans, 70, 45, 3, 2, 1, 1, -1, 0, beta=0.0, poison=True)
    _run_gbmv(rng, dtype, trans, 65, 130, 0, 70, 0, 2, 1, 0, beta=0.0, poison=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ALL)
def test_gbmv_alpha_zero_scales_y_without_reading_a(rng, dtype):
    a = to_device(np.full(40, np.nan, dtype))
    x = to_device(np.full(8, np.nan, dtype))
    y = Vec(rng, 5, 1, dtype)
    rocblas.gbmv("N", 5, 4, 1, 2, 0.0, a, 4, x, 1, 2.0, y.dev, 1)
    y.check(2.0 * y.values(), dtype, 2.0 * float(np.max(np.abs(y.values()))))
    rocblas.gbmv("T", 4, 5, 1, 2, 0.0, a, 4, x, 1, 1.0, y.dev, 1)  # alpha 0, beta 1: nothing at all
    y.check(2.0 * y.values(), dtype, 2.0 * float(np.max(np.abs(y.values()))))
    z = Vec(rng, 5, 2, dtype, fill=np.nan)
    rocblas.gbmv("C", 4, 5, 1, 2, 0.0, a, 4, x, 1, 0.0, z.dev, 2)  # beta 0: y := 0, NaN not read
    np.testing.assert_array_equal(to_host(z.dev)[blas_index(5, 2)], np.zeros(5, dtype))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_gbmv_fortran_storage_and_is_deterministic(rng, dtype):
    m, n, kl, ku = 3000, 2500, 70, 64
    lda = kl + ku + 1
    a = Band(rng, m, n, kl, ku, lda, dtype)
    storage = to_device(a.parent[: lda * n]).reshape(n, lda).T  # (lda, n), Fortran order, no copy
    assert storage.flags.f_contiguous
    for trans in "NT":
        lx, ly = (n, m) if trans == "N" else (m, n)
        xs = to_device(random_array(rng, lx, dtype))
        got = []
        for _ in range(3):
            y = to_device(np.full(ly, np.nan, dtype))
            rocblas.gbmv(trans, m, n, kl, ku, 1.0, storage, lda, xs, 1, 0.0, y, 1)
            got.append(to_host(y))
        assert got[0].tobytes() == got[1].tobytes() == got[2].tobytes()
        op = _op(a.dense, trans)
        assert_close(got[0], op @ wide(to_host(xs)), dtype, lda,
                     atol_scale=float(np.max(np.abs(op) @ np.abs(wide(to_host(xs))))))


# --------------------------------------------------------------------------------------------
# sbmv, hbmv
# --------------------------------------------------------------------------------------------

SBMV_FNS = [("sbmv", d) for d in REAL] + [("hbmv", d) for d in COMPLEX]
# (n, k, lda - (k + 1), incx, incy, offset)
SBMV_SHAPES = [
    (0, 1, 0, 1, 1, 0), (1, 0, 0, 1, 1, 0), (1, 5, 0, -1, 1, 0), (31, 1, 0, 1, -1, 0), (33, 5, 2, 2, 1, 1),
    (64, 0, 0, -1, 2, 0), (65, 5, 0, 1, 1, 0), (64, 70, 1, 1, 2, 0), (1000, 1, 0, 2, -1, 0),
    (1000, 5, 0, 1, 1, 0), (1000, 40, 3, -1, 1, 1), (65, 1000, 0, 1, 1, 0),
]


def _sym_band(rng, fn, dtype, uplo, n, k, lda, offset):
    """Band storage of the uplo triangle (NaN elsewhere) and the full float64 matrix it means."""
    herm = fn == "hbmv"
    kl, ku = (0, k) if uplo == "U" else (k, 0)
    a = Band(rng, n, n, kl, ku, lda, dtype, offset)
    t = a.dense
    d = np.diag(t).real if herm else np.diag(t)
    s = t - np.diag(np.diag(t))
    return a, s + (s.conj().T if herm else s.T) + np.diag(d)


def _run_sbmv(rng, fn, dtype, uplo, n, k, extra, incx, incy, offset, alpha=None, beta=None, poison=False):
    lda = k + 1 + extra
    a, full = _sym_band(rng, fn, dtype, uplo, n, k, lda, offset)
    x = Vec(rng, n, incx, dtype)
    y = Vec(rng, n, incy, dtype, fill=np.nan if poison else None)
    alpha = _scalar(dtype, 1.25, -0.5) if alpha is None else alpha
    beta = _scalar(dtype, 0.5, 0.5) if beta is None else beta
    assert getattr(rocblas, fn)(uplo, n, k, alpha, a.dev, lda, x.dev, incx, beta, y.dev, incy) is None
    a.unchanged()
    x.unchanged()
    if n == 0:
        y.unchanged()
        return
    al, be = as_passed(alpha, dtype), as_passed(beta, dtype)
    xs, ys = x.values(), y.values()
    y.check(al * (full @ xs) + (be * ys if be != 0 else 0), dtype, _scale(al, full, xs, be, ys),
            min(n, 2 * k + 1))


@pytest.mark.gpu
@pytest.mark.parametrize("shape", SBMV_SHAPES, ids=_ids)
@pytest.mark.parametrize("uplo", ["U", "L"])
@pytest.mark.parametrize("fn,dtype", SBMV_FNS, ids=_ids)
def test_sbmv_hbmv_match_numpy(rng, fn, dtype, uplo, shape):
    _run_sbmv(rng, fn, dtype, uplo, *shape)


@pytest.mark.gpu
@pytest.mark.parametrize("uplo", ["U", "L"])
@pytest.mark.parametrize("fn,dtype", SBMV_FNS, ids=_ids)
def test_sbmv_hbmv_beta_zero_does_not_read_y(rng, fn, dtype, uplo):
    _run_sbmv(rng, fn, dtype, uplo, 70, 3, 1, 1, -2, 0, beta=0.0, poison=True)


@pytest.mark.gpu
@pytest.mark.parametrize("fn,dtype", SBMV_FNS, ids=_ids)
def test_sbmv_hbmv_alpha_zero_scales_y_without_reading_a(rng, fn, dtype):
    a = to_device(np.full(40, np.nan, dtype))
    x = to_device(np.full(8, np.nan, dtype))
    y = Vec(rng, 6, -1, dtype)
    getattr(rocblas, fn)("U", 6, 2, 0.0, a, 3, x, 1, -1.5, y.dev, -1)
    y.check(-1.5 * y.values(), dtype, 1.5 * float(np.max(np.abs(y.values()))))
    z = Vec(rng, 6, 1, dtype, fill=np.nan)
    getattr(rocblas, fn)("L", 6, 2, 0.0, a, 3, x, 1, 0.0, z.dev, 1)
    np.testing.assert_array_equal(to_host(z.dev)[:6], np.zeros(6, dtype))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", COMPLEX)
def test_hbmv_ignores_the_imaginary_part_of_the_diagonal(rng, dtype):
    n, k = 40, 3
    for uplo in "UL":
        a, full = _sym_band(rng, "hbmv", dtype, uplo, n, k, k + 1, 0)
        diag = 0 if uplo == "L" else k
        assert np.abs(a.parent[diag + np.arange(n) * (k + 1)].imag).min() > 0  # the data has some
        x = to_device(random_array(rng, n, dtype))
        y = to_device(np.full(n, np.nan, dtype))
        rocblas.hbmv(uplo, n, k, 1.0, a.dev, k + 1, x, 1, 0.0, y, 1)
        assert np.allclose(full, full.conj().T)
        want = full @ wide(to_host(x))
        assert_close(to_host(y), want, dtype, 2 * k + 1,
                     atol_scale=float(np.max(np.abs(full) @ np.abs(wide(to_host(x))))))


# --------------------------------------------------------------------------------------------
# CPU: the pure-Python layer, on fake device arrays (never launched)
# --------------------------------------------------------------------------------------------

@pytest.fixture
def no_launch(monkeypatch):
    """Fail (instead of launching on fake memory) if anything reaches a kernel or the device."""

    def refuse(*args, **kwargs):
        raise AssertionError("a kernel launch was attempted")

    monkeypatch.setattr(_level2_banded, "_launch", refuse)
    refuse_launches(monkeypatch)


def test_kernel_names():
    assert _level2_banded.kernel_name("gbmv_n", np.float32) == "ra_rocblas_gbmv_n<float>"
    assert _level2_banded.kernel_name("gbmv_t", np.complex128) == "ra_rocblas_gbmv_t<ra_c128>"


def test_every_launched_kernel_is_registered_and_exists():
    registered = set(_compile.registered(_level2_banded.SOURCE))
    assert registered == set(_level2_banded.instantiations())
    assert len(registered) == 8  # 4 dtypes x (gbmv_n, gbmv_t)
    source = _compile.read_text(_level2_banded.SOURCE)
    for name in registered:
        assert f"{name.split('<')[0]}(" in source, name
    assert "#include" not in source
    assert re.search(r"(?<![\w.])32(?![\w.])", source) is None, "literal 32 (use RA_WARP_SIZE)"
    code = re.sub(r"//[^\n]*", "", source)
    assert re.search(r"(?<![\w.])64(?![\w.])", code) is None
    assert "__shfl" not in code and "__ballot" not in code
    assert "atomic" not in code, "no atomics: the sums are deterministic"


def test_flag_bits_and_block_match_the_source():
    source = _compile.read_text(_level2_banded.SOURCE)
    for name, value in [("SYM", 1), ("CONJ", 2), ("HERM", 4), ("THIN", 8)]:
        assert re.search(rf"#define RA_ROCBLAS2B_{name} 0x{value:02x}\b", source), name
        assert getattr(_level2_banded, name) == value
    assert re.search(rf"#define RA_ROCBLAS2B_BLOCK {_level2_banded.BLOCK}\b", source)


def test_group_width_is_a_power_of_two_within_the_warp():
    gw = _level2_banded.group_width
    assert _level2_banded.UNROLL == 4
    assert [gw(h, 32) for h in (1, 3, 4, 5, 8, 9, 17, 33, 129, 1000)] == [1, 1, 1, 2, 2, 4, 8, 16, 32, 32]
    assert [gw(h, 64) for h in (3, 129, 257, 1000)] == [1, 64, 64, 64]
    source = _compile.read_text(_level2_banded.SOURCE)
    assert re.search(rf"#define RA_ROCBLAS2B_UNROLL {_level2_banded.UNROLL}\b", source)


def _fakes(dtype=np.float32, size=200, nx=10, ny=10):
    return (fake((size,), dtype), fake((nx,), dtype, address=1 << 21), fake((ny,), dtype, address=1 << 22))


@needs_cupy
def test_gbmv_argument_errors_raise_before_the_device(no_launch):
    A, x, y = _fakes()
    ok = dict(trans="N", m=10, n=10, kl=2, ku=1, alpha=1.0, A=A, lda=4, x=x, incx=1, beta=0.0, y=y, incy=1)

    def call(**kw):
        args = dict(ok, **kw)
        return rocblas.gbmv(args["trans"], args["m"], args["n"], args["kl"], args["ku"], args["alpha"], args["A"],
                            args["lda"], args["x"], args["incx"], args["beta"], args["y"], args["incy"])

    with pytest.raises(AssertionError, match="kernel launch"):  # the arguments above pass
        call()
    for kw, match in [
        (dict(trans="X"), "trans must be one of 'N', 'T', 'C'"), (dict(trans=None), "trans must be"),
        (dict(m=-1), "m must be >= 0"), (dict(n=-1), "n must be >= 0"), (dict(kl=-1), "kl must be >= 0"),
        (dict(ku=-2), "ku must be >= 0"), (dict(lda=3), r"lda must be >= kl \+ ku \+ 1 = 4"),
        (dict(m=0, lda=3), "lda must be >= kl"), (dict(incx=0), "incx must be nonzero"),
        (dict(incy=0), "incy must be nonzero"), (dict(lda=25), "needs 229 elements of A"),
        (dict(n=11), "needs 11 elements"), (dict(trans="T", m=11), "needs 11 elements"),
        (dict(incx=-3), "needs 28 elements"), (dict(A=A[::2]), "contiguous"),
        (dict(A=fake((10, 20), np.float32)), "contiguous"),  # C order
        (dict(x=fake((2, 10), np.float32, address=1 << 21)), "1-D"),
        (dict(A=fake((200,), np.complex128, address=(1 << 20) + 8), x=fake((10,), np.complex128, address=1 << 21),
              y=fake((10,), np.complex128, address=1 << 22)), "aligned"),
    ]:
        with pytest.raises(ValueError, match=match):
            call(**kw)
    for kw, match in [
        (dict(A=np.ones(200, np.float32)), "host"), (dict(x=np.ones(10, np.float32)), "host"),
        (dict(y=[0.0] * 10), "cupy.ndarray"),
        (dict(A=fake((200,), np.float16), x=fake((10,), np.float16, address=1 << 21),
              y=fake((10,), np.float16, address=1 << 22)), "unsupported dtype float16"),
        (dict(A=fake((200,), np.int32), x=fake((10,), np.int32, address=1 << 21),
              y=fake((10,), np.int32, address=1 << 22)), "unsupported dtype int32"),
        (dict(x=fake((10,), np.float64, address=1 << 21)), "dtype of A"),
        (dict(alpha=1j), "complex alpha"), (dict(beta=0.5j), "complex beta"),
        (dict(alpha=fake((), np.float32)), "host"), (dict(m=10.0), "integer"), (dict(kl=1.5), "integer"),
        (dict(lda="4"), "integer"),
    ]:
        with pytest.raises(TypeError, match=match):
            call(**kw)


@needs_cupy
@pytest.mark.parametrize("fn", ["sbmv", "hbmv"])
def test_sbmv_hbmv_argument_errors_raise_before_the_device(no_launch, fn):
    dtype = np.float64 if fn == "sbmv" else np.complex64
    other = np.complex128 if fn == "sbmv" else np.float32
    A, x, y = _fakes(dtype)
    ok = dict(uplo="U", n=10, k=3, alpha=1.0, A=A, lda=4, x=x, incx=1, beta=0.0, y=y, incy=1)
    f = getattr(rocblas, fn)

    def call(**kw):
        a = dict(ok, **kw)
        return f(a["uplo"], a["n"], a["k"], a["alpha"], a["A"], a["lda"], a["x"], a["incx"], a["beta"], a["y"],
                 a["incy"])

    with pytest.raises(AssertionError, match="kernel launch"):
        call()
    for kw, match in [
        (dict(uplo="A"), "uplo must be one of 'U', 'L'"), (dict(uplo=1), "uplo must be"),
        (dict(n=-1), "n must be >= 0"), (dict(k=-1), "k must be >= 0"),
        (dict(lda=3), r"lda must be >= k \+ 1 = 4"), (dict(n=0, lda=0), "lda must be"),
        (dict(incx=0), "incx must be nonzero"), (dict(incy=0), "incy must be nonzero"),
        (dict(n=21), "needs 84 elements of A|needs 21 elements"), (dict(lda=50), "needs 454 elements of A"),
        (dict(incy=-3), "needs 28 elements"), (dict(A=A[1::2]), "contiguous"),
    ]:
        with pytest.raises(ValueError, match=match):
            call(**kw)
    for kw, match in [
        (dict(A=fake((200,), other), x=fake((10,), other, address=1 << 21), y=fake((10,), other, address=1 << 22)),
         "unsupported dtype " + np.dtype(other).name),
        (dict(y=fake((10,), other, address=1 << 22)), "dtype of A"),
        (dict(A=np.ones(200, dtype)), "host"), (dict(k=3.0), "integer"),
    ]:
        with pytest.raises(TypeError, match=match):
            call(**kw)
    if fn == "sbmv":
        with pytest.raises(TypeError, match="complex alpha"):
            call(alpha=1 + 1j)


@needs_cupy
def test_sbmv_complex_and_hbmv_real_name_the_other_function():
    c = _fakes(np.complex64)
    r = _fakes(np.float32)
    with pytest.raises(TypeError, match="use hbmv"):
        rocblas.sbmv("U", 3, 1, 1.0, c[0], 2, c[1], 1, 0.0, c[2], 1)
    with pytest.raises(TypeError, match="use sbmv"):
        rocblas.hbmv("U", 3, 1, 1.0, r[0], 2, r[1], 1, 0.0, r[2], 1)


@needs_cupy
def test_fortran_band_storage_is_accepted(no_launch):
    a = fake((4, 10), np.float32, order="F")  # (lda, n)
    x = fake((10,), np.float32, address=1 << 21)
    y = fake((10,), np.float32, address=1 << 22)
    with pytest.raises(AssertionError, match="kernel launch"):
        rocblas.gbmv("T", 10, 10, 1, 2, 1.0, a, 4, x, 1, 0.0, y, 1)
    with pytest.raises(AssertionError, match="kernel launch"):
        rocblas.sbmv("L", 10, 3, 1.0, a, 4, x, 1, 0.0, y, 1)


@needs_cupy
def test_noops_never_reach_the_device(no_launch):
    A, x, y = _fakes()
    assert rocblas.gbmv("N", 0, 10, 1, 1, 1.0, A, 3, x, 1, 0.0, y, 1) is None
    assert rocblas.gbmv("T", 10, 0, 1, 1, 1.0, A, 3, x, 1, 0.0, y, 1) is None
    assert rocblas.gbmv("C", 10, 10, 1, 1, 0.0, A, 3, x, 1, 1.0, y, 1) is None  # alpha 0, beta 1
    assert rocblas.sbmv("U", 0, 2, 1.0, A, 3, x, 1, 0.0, y, 1) is None
    assert rocblas.sbmv("L", 10, 2, 0.0, A, 3, x, 1, 1.0, y, 1) is None
    c = _fakes(np.complex128)
    assert rocblas.hbmv("U", 10, 2, 0.0, c[0], 3, c[1], 1, 1.0, c[2], 1) is None
    # even a no-op rejects a buffer that is too short once the sizes are positive
    with pytest.raises(ValueError, match="needs"):
        rocblas.gbmv("N", 10, 100, 1, 1, 0.0, A, 3, x, 1, 1.0, y, 1)


def test_banded_bench_cases_are_registered():
    from rocarray._core import harness

    harness.load_all()  # the command line loads them; a test run on its own must too
    cases = {c.name: c for c in harness.bench_cases() if c.library == "rocblas"}
    n, h = 16384, 129
    for name in ("gbmv_n_float32", "gbmv_t_float32"):
        case = cases[f"rocblas.{name}"]
        assert case.bytes_moved == (h * n + 2 * n) * 4 and case.memory_bound
    assert cases["rocblas.sbmv_float32"].bytes_moved == (65 * n + 2 * n) * 4
