"""IEEE special values through rocarray's own kernels on the GPU, against NumPy (SciPy for sparse
products) where NumPy's result does not depend on the order of its operations: where NaNs are,
infinities and their signs, the sign of a zero a product or a data move gives, and float64
subnormals kept exactly.

Not compared, because NumPy's own answer there is an accident of its loop order: the sign of a
zero *sum* (NumPy's pairwise sum starts from +0), which of two equal zeros ``min``/``max``/
``unique`` return, and whether a non-finite FFT bin or QR entry is inf or NaN (only that it is
not finite). float32 and float16 subnormals are flushed to zero by the kernels (docs/core.rst,
"Floating-point mode"): where a float32 result from subnormal inputs is compared, NumPy's value
or the flushed one (zero) is accepted, and nothing else.
"""

import numpy as np
import pytest

from conftest import to_device, to_host, wide

import rocarray as ra

pytestmark = pytest.mark.gpu

FLOATS = ["float16", "float32", "float64"]
TINY64 = 5e-324  # the smallest float64 subnormal
TINY32 = np.float32(1e-44)  # a float32 subnormal


def _specials(rng, shape, dtype, kinds=("nan", "inf", "-inf", "-0")):
    """Random values of ``shape`` with each special value of ``kinds`` at three random places."""
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    values = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf, "-0": -0.0}
    for kind in kinds:
        flat[rng.choice(flat.size, 3, replace=False)] = values[kind]
    return x


def assert_same_specials(got, want, rtol):
    """NaN positions equal, infinities equal (with sign), finite values within ``rtol`` of the
    largest finite magnitude, shapes and dtypes equal."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    for part in ((lambda a: a.real, lambda a: a.imag) if want.dtype.kind == "c" else (lambda a: a,)):
        g, w = part(got), part(want)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg="NaN positions")
        np.testing.assert_array_equal(np.where(np.isinf(w), w, 0), np.where(np.isinf(g), g, 0),
                                      err_msg="infinities")
        finite = np.isfinite(w)
        np.testing.assert_array_equal(np.isfinite(g), finite, err_msg="finite positions")
        if finite.any():
            scale = max(np.abs(wide(w[finite])).max(), np.finfo(w.dtype).tiny)
            np.testing.assert_allclose(wide(g[finite]), wide(w[finite]), rtol=0, atol=rtol * scale)


def _rtol(dtype, n=1):
    return 8 * np.finfo(dtype).eps * max(1.0, np.sqrt(n))


# ------------------------------------------------------------------------------------ reductions

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "argmin", "argmax"])
@pytest.mark.parametrize("kinds", [("nan",), ("inf",), ("-inf",), ("inf", "-inf"), ("nan", "inf", "-0")],
                         ids=lambda k: "+".join(k))
def test_reductions_propagate_nan_and_inf_like_numpy(rng, dtype, op, kinds):
    n = 100_003
    x = _specials(rng, n, dtype, kinds)
    if op == "prod":
        x[np.isfinite(x)] = np.sign(x[np.isfinite(x)])  # products of +-1 stay finite
    rows = x[: 7 * (n // 7)].reshape(7, -1)
    for data, axis in ((x, None), (rows, 1), (rows, 0)):
        got = to_host(getattr(ra, op)(to_device(data), axis=axis))
        # sums and products: the float64 result rounded (NumPy's float16 loop rounds as it goes);
        # the special values land where they do in any order of operations
        want = getattr(np, op)(wide(data) if op in ("sum", "prod") else data, axis=axis)
        want = np.asarray(want).astype(data.dtype) if op in ("sum", "prod") else want
        if op.startswith("arg"):
            np.testing.assert_array_equal(got, want)  # the first NaN, else the first extreme
        else:
            assert_same_specials(got, want, _rtol(dtype, n))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["nansum", "nanprod", "nanmin", "nanmax", "nanargmin", "nanargmax", "nanmean"])
def test_nan_reductions_skip_nan_and_keep_inf(rng, dtype, op):
    x = _specials(rng, 65_537, dtype, ("nan", "inf"))
    if op == "nanprod":
        x[np.isfinite(x)] = np.sign(x[np.isfinite(x)])
    got = to_host(getattr(ra, op)(to_device(x)))
    want = getattr(np, op)(x)
    if op.startswith("nanarg"):
        assert int(got) == int(want)
    else:
        assert_same_specials(got, want, _rtol(dtype, x.size))


@pytest.mark.parametrize("op", ["nanargmin", "nanargmax"])
def test_nanarg_of_an_all_nan_slice_raises_like_numpy(op):
    x = np.full(1000, np.nan, np.float32)
    with pytest.raises(ValueError):
        getattr(np, op)(x)
    with pytest.raises(ValueError):
        getattr(ra, op)(to_device(x))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("op", ["nanmin", "nanmax", "nanmean"])
def test_nan_reductions_of_all_nan_rows_are_nan(op):
    x = np.ones((5, 300), np.float32)
    x[2] = np.nan
    got = to_host(getattr(ra, op)(to_device(x), axis=1))
    assert_same_specials(got, getattr(np, op)(x, axis=1), 1e-6)


def test_product_keeps_the_sign_of_zero():
    # a product's zero has the sign of the factors' signs in any order: -0 * 1 ... = -0
    for dtype in FLOATS:
        for n in (3, 1000, 100_003):
            x = np.ones(n, dtype)
            x[n // 2] = -0.0
            got = to_host(ra.prod(to_device(x)))
            assert got == 0 and np.signbit(got) == np.signbit(np.prod(x)), (dtype, n)


def test_float64_subnormals_are_kept_by_reductions():
    x = np.full(100_003, TINY64)
    x[5] = 3 * TINY64
    d = to_device(x)
    assert to_host(ra.sum(d)) == np.sum(x)  # multiples of the smallest subnormal add exactly
    assert to_host(ra.min(d)) == TINY64 and to_host(ra.max(d)) == 3 * TINY64
    assert int(to_host(ra.argmax(d))) == 5


def test_float32_subnormal_sums_are_numpys_or_flushed():
    x = np.full(4099, TINY32, np.float32)
    got = float(to_host(ra.sum(to_device(x))))
    assert got in (float(np.sum(x, dtype=np.float32)), 0.0), got


# ------------------------------------------------------------------------------------------ scans

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["cumsum", "cumprod", "nancumsum", "nancumprod"])
def test_scans_propagate_specials_like_numpy(rng, dtype, op):
    # nan, +inf and -inf somewhere: each prefix is NaN, +inf, -inf or finite whatever the order
    # in which the scan adds it up
    x = _specials(rng, 70_001, dtype, ("nan", "inf", "-inf"))
    if "prod" in op:
        x[np.isfinite(x)] = np.sign(x[np.isfinite(x)])
    else:
        x[np.isfinite(x)] = np.round(x[np.isfinite(x)])  # integers: finite prefixes are exact
    got = to_host(getattr(ra, op)(to_device(x)))
    assert_same_specials(got, getattr(np, op)(x), 0)


# ---------------------------------------------------------------------- sort, unique, searchsorted

@pytest.mark.parametrize("dtype", FLOATS)
def test_sort_puts_nan_last_and_orders_infinities(rng, dtype):
    x = _specials(rng, 100_003, dtype, ("nan", "inf", "-inf", "-0"))
    if dtype == "float64":
        x[:4] = [TINY64, -TINY64, 0.0, -0.0]
    got = to_host(ra.sort(to_device(x)))
    want = np.sort(x)
    assert np.array_equal(got, want, equal_nan=True)  # -0.0 == 0.0: their order is not compared
    moved = (want != 0) & ~np.isnan(want)  # the bits of every nonzero number, subnormals included
    np.testing.assert_array_equal(got[moved].view(np.uint8), want[moved].view(np.uint8))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_argsort_is_a_permutation_that_sorts_specials(rng, dtype):
    x = _specials(rng, (33, 1001), dtype, ("nan", "inf", "-inf", "-0"))
    idx = to_host(ra.argsort(to_device(x), axis=1))
    np.testing.assert_array_equal(np.sort(idx, axis=1), np.broadcast_to(np.arange(1001), idx.shape))
    assert np.array_equal(np.take_along_axis(x, idx, axis=1), np.sort(x, axis=1), equal_nan=True)


def test_float32_subnormals_sort_exactly():
    # sorting moves bits: no arithmetic, so nothing is flushed
    x = np.array([TINY32, -TINY32, 1.0, np.float32(2e-45), 0.0, -1.0], np.float32)
    got = to_host(ra.sort(to_device(x)))
    np.testing.assert_array_equal(got.view(np.uint32)[got != 0], np.sort(x).view(np.uint32)[np.sort(x) != 0])


@pytest.mark.parametrize("dtype", FLOATS)
def test_unique_collapses_nans_like_numpy(dtype):
    x = np.array([np.nan, 1.0, np.nan, -0.0, 0.0, np.inf, -np.inf, np.inf, 1.0] * 1001, dtype)
    got = to_host(ra.unique(to_device(x)))
    assert np.array_equal(got, np.unique(x), equal_nan=True)  # [-inf, 0, 1, inf, nan]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_places_nan_and_inf_like_numpy(rng, dtype, side):
    a = np.sort(_specials(rng, 10_007, dtype, ("nan", "inf", "-inf")))
    v = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5], dtype)
    got = to_host(ra.searchsorted(to_device(a), to_device(v), side=side))
    np.testing.assert_array_equal(got, np.searchsorted(a, v, side=side))


# ------------------------------------------------------------------------------------------ matmul

def _launched_names():
    from rocarray._core import launch

    class Names:
        def __init__(self):
            self.names = []

        def begin(self, name, grid, block, shared):
            self.names.append(str(name))

        def end(self, token):
            pass

        def note(self, nbytes, flops):
            pass

    names = Names()
    launch.observer = names
    return names


@pytest.mark.parametrize("dtype,size", [("float16", 1024), ("float32", 1024), ("float32", 200), ("float64", 300),
                                        ("complex64", 200), ("complex128", 100)])
def test_matmul_propagates_nan_and_inf_like_numpy(rng, dtype, size):
    """A row of A holding +inf, times a B of positive entries, is +inf; a row holding NaN is NaN;
    a column of B that is zero turns the inf row's entry into NaN (inf * 0). 1024^3 float32 takes
    the three-TF32 path on an sm_90 device (checked), whose hi/lo split of an infinity must not
    make it NaN."""
    from rocarray._core import backend, launch

    a = (rng.random((size, size)) + 0.5).astype(dtype)
    b = (rng.random((size, size)) + 0.5).astype(dtype)
    a[3, 7] = np.inf
    a[5, 1] = np.nan
    a[9, 2] = -np.inf
    b[:, 11] = 0
    names = _launched_names()
    try:
        got = to_host(ra.matmul(to_device(a), to_device(b)))
    finally:
        launch.observer = None
    want = (wide(a) @ wide(b)).astype(dtype)
    if want.dtype.kind == "c":
        # (inf + 0i)(b + 0i) has imaginary part inf * 0: whether a part is inf or NaN depends on
        # how the complex product is formed; that the entry is not finite does not
        np.testing.assert_array_equal(~np.isfinite(got), ~np.isfinite(want))
        np.testing.assert_allclose(got[np.isfinite(want)], want[np.isfinite(want)], rtol=_rtol(dtype, size) * 8)
    else:
        assert_same_specials(got, want, 1e-2 if dtype == "float16" else _rtol(dtype, size) * 8)
    info = backend.device_info()
    if dtype == "float32" and size == 1024 and not info.is_hip and info.compute_capability == "9.0":
        assert any("wg_split" in n or "wgmma_x3" in n for n in names.names), names.names


def test_float32_matmul_of_subnormals_is_numpys_or_flushed(rng):
    a = np.full((64, 64), TINY32, np.float32)
    b = np.eye(64, dtype=np.float32)
    got = to_host(ra.matmul(to_device(a), to_device(b)))
    assert np.all((got == TINY32) | (got == 0)), np.unique(got)


def test_float64_matmul_keeps_subnormals():
    a = np.full((64, 64), TINY64)
    got = to_host(ra.matmul(to_device(a), to_device(np.eye(64))))
    np.testing.assert_array_equal(got, a)


# --------------------------------------------------------------------------------------------- FFT

@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("n", [64, 1000, 4096, 1009])
@pytest.mark.parametrize("special", [np.nan, np.inf])
def test_fft_non_finite_bins_match_numpy(rng, dtype, n, special):
    """One NaN or inf input reaches every bin: every bin NumPy makes non-finite is non-finite here
    (whether inf or NaN depends on the order of the butterflies, in NumPy too)."""
    x = (rng.standard_normal((3, n)) + 1j * rng.standard_normal((3, n))).astype(dtype)
    x[1, n // 3] = special
    got = to_host(ra.fft.fft(to_device(x)))
    want = np.fft.fft(x)
    np.testing.assert_array_equal(~np.isfinite(got), ~np.isfinite(want))
    np.testing.assert_allclose(got[[0, 2]], want[[0, 2]], rtol=_rtol(dtype, n) * 4, atol=_rtol(dtype, n) * 4 * n)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [64, 1000, 1 << 15])
def test_rfft_non_finite_bins_match_numpy(rng, dtype, n):
    x = rng.standard_normal((3, n)).astype(dtype)
    x[1, 0] = np.inf
    x[2, n // 2] = np.nan
    got = to_host(ra.fft.rfft(to_device(x)))
    want = np.fft.rfft(x)
    np.testing.assert_array_equal(~np.isfinite(got), ~np.isfinite(want))
    assert np.isfinite(got[0]).all()


# ------------------------------------------------------------------------------------------ linalg

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn", ["solve", "inv"])
def test_solve_and_inv_of_a_matrix_with_nan_are_nan(rng, dtype, fn):
    a = rng.standard_normal((40, 40)).astype(dtype) + 8 * np.eye(40, dtype=dtype)
    a[12, 30] = np.nan
    args = (a, rng.standard_normal(40).astype(dtype)) if fn == "solve" else (a,)
    want = getattr(np.linalg, fn)(*args)
    assert np.isnan(want).all()
    got = to_host(getattr(ra.linalg, fn)(*(to_device(v) for v in args)))
    assert np.isnan(got).all(), got


def _symmetric_with_nan(rng):
    a = rng.standard_normal((30, 30))
    a = a + a.T
    a[4, 4] = np.nan
    return a


def test_svd_of_a_matrix_with_nan_raises_like_numpy(rng):
    a = _symmetric_with_nan(rng)
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.svd(a)
    with pytest.raises(np.linalg.LinAlgError):
        ra.linalg.svd(to_device(a))


def test_eigh_of_a_matrix_with_nan_is_not_finite_or_raises(rng):
    """NumPy (LAPACK's syevd) returns NaN eigenvalues here without raising; which of them are NaN
    is its algorithm's. Returned values must not look finite; LinAlgError is the other answer
    accepted (it ends, no hang)."""
    a = _symmetric_with_nan(rng)
    assert not np.isfinite(np.linalg.eigh(a)[0]).all()
    try:
        w, v = ra.linalg.eigh(to_device(a))
    except np.linalg.LinAlgError:
        return
    assert not np.isfinite(to_host(w)).all()


def test_qr_of_a_matrix_with_a_nan_column_keeps_the_columns_before_it_finite(rng):
    a = rng.standard_normal((30, 20))
    a[:, 5] = np.nan
    want_r = np.linalg.qr(a)[1]
    got_r = to_host(ra.linalg.qr(to_device(a))[1])
    # the columns before the NaN column are reduced by finite reflectors: finite in both
    np.testing.assert_array_equal(np.isfinite(got_r[:, :5]), np.isfinite(want_r[:, :5]))
    assert not np.isfinite(got_r[:, 5:]).all() and not np.isfinite(want_r[:, 5:]).all()


def test_cholesky_of_a_matrix_with_inf_on_the_diagonal_is_not_finite(rng):
    a = rng.standard_normal((20, 20))
    a = a @ a.T + 20 * np.eye(20)
    a[0, 0] = np.inf
    want = np.linalg.cholesky(a)
    try:
        got = to_host(ra.linalg.cholesky(to_device(a)))
    except np.linalg.LinAlgError:
        pytest.fail("cholesky raised where NumPy returned a factor with non-finite entries")
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))


# ------------------------------------------------------------------------------------------ sparse

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sparse_products_propagate_nan_and_inf_like_scipy(rng, dtype):
    sp = pytest.importorskip("scipy.sparse")
    a = sp.random(500, 400, density=0.02, format="csr", random_state=np.random.RandomState(rng.integers(2**31)),
                  dtype=dtype)
    a.data[:] = np.abs(a.data) + 0.5
    a.data[3] = np.nan          # one stored NaN: its row is NaN
    a.data[10] = 0.0            # one stored zero: times an inf in x, NaN (IEEE 0 * inf)
    x = rng.random(400).astype(dtype) + 0.5
    x[a.indices[10]] = np.inf
    x[a.indices[20]] = -np.inf  # a row holding both infinities sums to NaN
    d = ra.sparse.csr_matrix((to_device(a.data), to_device(a.indices), to_device(a.indptr)), shape=a.shape)
    want = a @ x
    assert_same_specials(to_host(d @ to_device(x)), want, _rtol(dtype, 400))
    xs = np.stack([x, x[::-1]], axis=1)
    assert_same_specials(to_host(d @ to_device(xs)), a @ xs, _rtol(dtype, 400))


# -------------------------------------------------------------------------------------------- nn

def test_softmax_of_rows_with_specials_like_the_formula():
    x = np.random.default_rng(0).standard_normal((6, 1000)).astype(np.float32)
    x[1, 5] = np.nan          # a NaN row
    x[2, 7] = np.inf          # exp(inf - inf): NaN row
    x[3, :500] = -np.inf      # -inf entries are exactly 0
    x[4, :] = -np.inf         # all -inf: NaN (max is -inf)
    x[5, 9] = -0.0
    w = wide(x)
    m = w.max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        e = np.exp(w - m)
        want = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    got = to_host(ra.nn.softmax(to_device(x), dim=1))
    assert_same_specials(got, want, 1e-6)
    assert (got[3, :500] == 0).all()


def test_layer_norm_of_rows_with_specials_is_nan_there():
    x = np.random.default_rng(1).standard_normal((4, 777)).astype(np.float32)
    x[1, 3] = np.nan
    x[2, 9] = np.inf
    got = to_host(ra.nn.layer_norm(to_device(x), (777,)))
    assert np.isnan(got[1]).all() and np.isnan(got[2]).all()
    assert np.isfinite(got[[0, 3]]).all()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_propagates_nan_and_keeps_infinities(dtype):
    x = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, -1.0, 2.0] * 37, dtype)
    got = to_host(ra.nn.relu(to_device(x)))
    want = np.maximum(x, 0)  # torch.relu too: NaN stays NaN
    assert np.array_equal(got, want, equal_nan=True)
