"""Stream compaction (rocarray.prim select_*/nonzero_*/mask_select; ra.nonzero, flatnonzero, argwhere,
extract, compress) against NumPy.

GPU tests compare exactly with NumPy on fresh random data over sizes that cross warp and tile
boundaries (a tile is 4096 elements), every dtype (signed zeros and NaN for floats), all-true and
all-false masks, N-D and non-contiguous inputs, and NumPy's errors. CPU tests cover the pure-Python
rules: kernel names, the registered instantiations and the view-or-copy choice of results.
"""

import numpy as np
import pytest

from conftest import NUMERIC_DTYPES, to_device, to_host

from rocarray._core import compile as _compile
from rocarray.prim import _select
import rocarray._numpy.searching as api

ALL_DTYPES = NUMERIC_DTYPES
SIZES = [0, 1, 31, 32, 33, 63, 64, 65, 4095, 4096, 4097, 1_000_003]


def sparse_data(rng, shape, dtype, density=0.5):
    """Random values with about ``1 - density`` zeros (floats: some -0.0, which is zero, and NaN)."""
    dtype = np.dtype(dtype)
    x = rng.integers(1, 100, size=shape) * (rng.random(shape) < density)
    if dtype.kind == "c":
        x = x + 1j * (rng.integers(0, 3, size=shape) * (rng.random(shape) < 0.3))
    x = x.astype(dtype)
    if dtype.kind == "f" and x.size:
        flat = x.reshape(-1)
        flat[rng.random(flat.size) < 0.05] = -0.0
        flat[rng.random(flat.size) < 0.02] = np.nan
    return x


def same(got, want):
    got = to_host(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


# --------------------------------------------------------------------------------------------
# CPU: pure-Python rules
# --------------------------------------------------------------------------------------------

def test_registered_names_are_the_launched_ones():
    names = _compile.registered(_select.SOURCE)
    assert names == tuple(_select.instantiations())
    for d in ALL_DTYPES:
        assert _select.select_name(d, d) in names
        assert _select.select_name("bool", d) in names
        assert _select.unique_name("sorted", d) in names


def test_flag_and_bits_types():
    assert _select.flag_ctype("int32") == "ra_u32"
    assert _select.flag_ctype("bool") == "ra_u8"
    assert _select.flag_ctype("float16") == "ra_half"  # -0.0 must test as zero: not by bits
    assert _select.flag_ctype("float64") == "double"
    assert _select.bits_ctype("complex64") == "ra_u64"
    assert _select.bits_ctype("complex128") == "ra_c128"


def test_results_stay_views_only_when_a_quarter_used():
    assert _select.keep_view(25, 100)
    assert not _select.keep_view(24, 100)
    assert _select.keep_view(0, 0)


def test_tile_matches_kernel_source():
    text = _compile.read_text(_select.SOURCE)
    assert f"#define RA_PRIM_SEL_BLOCK {_select.BLOCK}" in text
    assert f"#define RA_PRIM_SEL_STATUS_OFFSET {_select.STATUS_OFFSET}" in text
    assert _select.TILE == _select.BLOCK * 16 and "#define RA_PRIM_SEL_ITEMS 16" in text


# --------------------------------------------------------------------------------------------
# GPU: against NumPy
# --------------------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_flat_compaction_matches_numpy(n, dtype, rng):
    x = sparse_data(rng, n, dtype)
    dx = to_device(x)
    same(api.flatnonzero(dx), np.flatnonzero(x))
    (nz,) = api.nonzero(dx)
    same(nz, np.nonzero(x)[0])
    same(api.argwhere(dx), np.argwhere(x))
    mask = rng.random(n) < 0.5
    same(api.extract(to_device(mask), dx), np.extract(mask, x))
    import rocarray as ra

    same(ra.prim.select_if_nonzero(dx), x[x != 0])
    same(ra.prim.select_flagged(dx, to_device(mask)), x[mask])
    same(ra.prim.mask_select(dx, to_device(mask)), x[mask])


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 4097, 1_000_003])
@pytest.mark.parametrize("fill", [True, False])
def test_all_true_and_all_false_masks(n, fill, rng):
    x = rng.standard_normal(n).astype(np.float32)
    mask = np.full(n, fill)
    same(api.extract(to_device(mask), to_device(x)), np.extract(mask, x))
    same(api.flatnonzero(to_device(mask)), np.flatnonzero(mask))
    same(api.compress(to_device(mask), to_device(x)), np.compress(mask, x))


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 700), (1, 1, 1, 9), (4097, 3), (0, 4)])
@pytest.mark.parametrize("dtype", ["bool", "int16", "float32", "complex128"])
def test_nd_nonzero_argwhere(shape, dtype, rng):
    x = sparse_data(rng, shape, dtype)
    dx = to_device(x)
    got = api.nonzero(dx)
    want = np.nonzero(x)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        same(g, w)
    same(api.argwhere(dx), np.argwhere(x))
    same(api.flatnonzero(dx), np.flatnonzero(x))


@pytest.mark.gpu
def test_non_contiguous_views(rng):
    x = sparse_data(rng, (300, 41), "float64")
    dx = to_device(x)
    for view, hview in ((dx.T, x.T), (dx[::3, 1::2], x[::3, 1::2]), (dx[:, 5], x[:, 5])):
        for g, w in zip(api.nonzero(view), np.nonzero(hview)):
            same(g, w)
        same(api.argwhere(view), np.argwhere(hview))
        m = rng.random(hview.shape) < 0.5
        same(api.extract(to_device(m).T.T, view), np.extract(m, hview))


@pytest.mark.gpu
def test_zero_d_inputs(rng):
    with pytest.raises(ValueError):
        api.nonzero(to_device(np.array(3.0)))
    for v in (0, 7):
        same(api.argwhere(to_device(np.array(v))), np.argwhere(np.array(v)))
        same(api.flatnonzero(to_device(np.array(v))), np.flatnonzero(np.array(v)))


@pytest.mark.gpu
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_compress_matches_numpy(axis, rng):
    a = rng.standard_normal((37, 5000)).astype(np.float32)
    length = a.size if axis is None else a.shape[axis]
    for clen in (length, length // 2, 0):
        cond = rng.random(clen) < 0.4
        same(api.compress(to_device(cond), to_device(a), axis=axis), np.compress(cond, a, axis=axis))
    # a longer condition is fine while its extra entries are zero
    cond = np.concatenate([rng.random(length) < 0.4, np.zeros(3, bool)])
    same(api.compress(to_device(cond), to_device(a), axis=axis), np.compress(cond, a, axis=axis))
    cond[-1] = True
    with pytest.raises(IndexError):
        np.compress(cond, a, axis=axis)
    with pytest.raises(IndexError):
        api.compress(to_device(cond), to_device(a), axis=axis)


@pytest.mark.gpu
@pytest.mark.parametrize("shape, axis", [((0,), None), ((1,), 0), ((4097,), None), ((4097,), -1),
                                         ((33, 65), None), ((33, 65), 0), ((33, 65), 1), ((3, 4097), -1)])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_compress_every_dtype(dtype, shape, axis, rng):
    # Full-length, short and integer (nonzero selects) conditions; 1-D inputs go through the
    # select kernel, N-D ones along an axis through the take of the nonzero indices.
    a = sparse_data(rng, shape, dtype)
    length = a.size if axis is None else a.shape[axis]
    for cond in (rng.random(length) < 0.4, rng.random(length // 2) < 0.4, rng.integers(0, 3, length)):
        same(api.compress(to_device(cond), to_device(a), axis=axis), np.compress(cond, a, axis=axis))


@pytest.mark.gpu
def test_compress_out_and_errors(rng):
    a = rng.standard_normal(100)
    cond = rng.random(100) < 0.5
    want = np.compress(cond, a, out=np.full(int(cond.sum()), -7, np.int64))
    out = to_device(np.full(int(cond.sum()), -7, np.int64))
    res = api.compress(to_device(cond), to_device(a), out=out)
    assert res is out
    same(out, want)
    with pytest.raises(ValueError):
        api.compress(to_device(cond), to_device(a), out=to_device(np.zeros(3)))
    with pytest.raises(ValueError):
        api.compress(to_device(cond.reshape(10, 10)), to_device(a))
    with pytest.raises(np.exceptions.AxisError):
        api.compress(to_device(cond), to_device(a), axis=1)
    float_cond = np.array([1.5, 0, -2.0])
    same(api.compress(to_device(float_cond), to_device(a[:3])), np.compress(float_cond, a[:3]))


@pytest.mark.gpu
def test_extract_condition_lengths(rng):
    arr = rng.integers(0, 9, 50)
    short = rng.random(20) < 0.5
    same(api.extract(to_device(short), to_device(arr)), np.extract(short, arr))
    long_ok = np.concatenate([rng.random(50) < 0.5, np.zeros(5, bool)])
    same(api.extract(to_device(long_ok), to_device(arr)), np.extract(long_ok, arr))
    long_bad = long_ok.copy()
    long_bad[52] = True
    with pytest.raises(IndexError):
        api.extract(to_device(long_bad), to_device(arr))
    cond2d = rng.integers(0, 3, (5, 10))
    same(api.extract(to_device(cond2d), to_device(arr.reshape(5, 10))), np.extract(cond2d, arr.reshape(5, 10)))


@pytest.mark.gpu
def test_mask_select_leading_dims(rng):
    import rocarray as ra

    x = rng.standard_normal((40, 3, 5)).astype(np.float32)
    m = rng.random(40) < 0.5
    same(ra.prim.mask_select(to_device(x), to_device(m)), x[m])
    m2 = rng.random((40, 3)) < 0.5
    same(ra.prim.mask_select(to_device(x), to_device(m2)), x[m2])
    with pytest.raises(IndexError):
        ra.prim.mask_select(to_device(x), to_device(m[:10]))
    with pytest.raises(TypeError):
        ra.prim.mask_select(to_device(x), to_device(m.astype(np.int8)))


@pytest.mark.gpu
def test_host_arrays_are_type_errors():
    with pytest.raises(TypeError):
        api.nonzero(np.arange(3))
    with pytest.raises(TypeError):
        api.extract(np.ones(3, bool), to_device(np.arange(3)))
    with pytest.raises(TypeError):
        api.compress(to_device(np.ones(3, bool)), np.arange(3))


@pytest.mark.gpu
def test_repeated_launches_reuse_the_workspace(rng):
    # epochs: stale status words of earlier launches must read as unpublished
    for _ in range(5):
        x = sparse_data(rng, 70_001, "int32", density=rng.random())
        same(api.flatnonzero(to_device(x)), np.flatnonzero(x))


@pytest.mark.gpu
@pytest.mark.slow
def test_nonzero_2_28_bool():
    import cupy

    n = 1 << 28
    free, _ = cupy.cuda.runtime.memGetInfo()
    if free < n * 12:
        pytest.skip("not enough free device memory")
    m = cupy.random.random(n, dtype=np.float32) < 0.5
    (idx,) = api.nonzero(m)
    assert idx.size == int(m.sum())
    ref = cupy.nonzero(m)[0]
    assert bool((idx == ref).all())


@pytest.mark.gpu
@pytest.mark.slow
def test_flatnonzero_past_2_31_elements():
    import cupy

    n = (1 << 31) + 4099
    free, _ = cupy.cuda.runtime.memGetInfo()
    if free < n * 12:
        pytest.skip(f"needs {n * 12 / 2**30:.0f} GiB free on the device, {free / 2**30:.0f} GiB free")
    m = cupy.zeros(n, dtype=bool)
    want = np.array([0, 4095, 4096, (1 << 31) - 1, 1 << 31, n - 1], dtype=np.int64)
    m[cupy.asarray(want)] = True
    same(api.flatnonzero(m), want)
    x = cupy.zeros(n, dtype=np.int8)
    x[cupy.asarray(want)] = 3
    same(api.extract(m, x), np.full(want.size, 3, np.int8))
