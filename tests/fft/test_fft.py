"""``rocarray.fft`` on the device against ``numpy.fft`` (GPU).

Every result is compared with NumPy's transform of the same values in float64/complex128 by
relative L2 error, ``||got - want|| / ||want||``, within ``5e-7 * log2(N)`` for single precision
and ``C128 * 1e-15 * log2(N)`` for double (``N`` the number of points transformed, at least 2;
``C128`` below). Dtype and shape must be NumPy's exactly (NumPy's own result in the input's dtype).
Data is fresh random per test (the seed is printed on failure). Covered: every function, every
norm, ``n``/``s`` padding and cropping, axes (negative, mixed, repeated), non-contiguous inputs
(transposed, stepped, negative strides), 2-D/3-D, odd/even/prime lengths up to 2^20 (2^24,
1000003 and 512x512x64 in the slow tests), ``out=``, non-float input dtypes, empty arrays, the
helpers and the plan cache.
"""

import math

import numpy as np
import pytest

from conftest import random_array, to_device, to_host, wide

import rocarray as ra

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(np.lib.NumpyVersion(np.__version__) < "2.0.0",
                                 reason="rocarray.fft mirrors NumPy 2.x semantics")]

#: Factor on the complex128 bound 1e-15 * log2(N) (1: none needed so far).
C128 = 1.0

LENGTHS = [1, 2, 3, 5, 7, 16, 17, 31, 32, 33, 64, 97, 100, 127, 128, 1000, 1009, 4096, 4097, 65537, 2**20]
SINGLE = {"float16", "float32", "complex64"}
REAL_IN = {"rfft", "ihfft", "rfft2", "rfftn"}
INV_REAL = {"irfft", "hfft", "irfft2", "irfftn"}


def bound(dtype, points):
    factor = 5e-7 if np.dtype(dtype).name in SINGLE else C128 * 1e-15
    return factor * math.log2(max(points, 2))


def rel_l2(got, want):
    diff = np.linalg.norm((got.astype(np.complex128) - want).ravel())
    ref = np.linalg.norm(want.ravel())
    return diff / ref if ref else diff


def _batch(name, shape, args, kwargs):
    """Independent transforms in a result of ``shape``: the product of the untransformed axes."""
    ndim = len(shape)
    if name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
        axes = [kwargs.get("axis", args[1] if len(args) > 1 else -1)]
    else:
        axes = kwargs.get("axes")
        if axes is None:
            axes = (-2, -1) if name.endswith("2") else range(ndim)
    transformed = {a % ndim for a in axes}
    return int(np.prod([shape[d] for d in range(ndim) if d not in transformed]))


def check(name, host, *args, view=None, **kwargs):
    """``ra.fft.<name>`` on the device copy of ``host`` (through ``view`` when given) against
    ``numpy.fft.<name>`` in float64/complex128; returns the device result.

    The bound's ``N`` is the larger of the input and output points of one transform."""
    dtype = host.dtype
    x = to_device(host)
    src = host
    if view is not None:
        x, src = view(x), view(host)
    got = getattr(ra.fft, name)(x, *args, **kwargs)
    native = getattr(np.fft, name)(src, *args, **kwargs)        # NumPy's dtype and shape
    want = getattr(np.fft, name)(wide(src), *args, **kwargs)
    assert isinstance(got, ra.ndarray)
    assert got.dtype == native.dtype, (got.dtype, native.dtype)
    assert got.shape == native.shape, (got.shape, native.shape)
    if want.size:
        points = max(src.size, want.size) // max(_batch(name, want.shape, args, kwargs), 1)
        err = rel_l2(to_host(got), want)
        limit = bound(dtype, points)
        assert err <= limit, f"{name}: relative L2 error {err:.3e} > {limit:.3e} (N={points})"
    return got


def data(rng, shape, dtype):
    return random_array(rng, shape, dtype)


def batch_for(n):
    return max(1, min(8, 2**16 // n))


# --------------------------------------------------------------------------------------------
# 1-D: every length, both precisions
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft"])
@pytest.mark.parametrize("precision", ["single", "double"])
def test_lengths(rng, name, n, precision):
    real = name in REAL_IN
    dtype = {("single", True): "float32", ("single", False): "complex64",
             ("double", True): "float64", ("double", False): "complex128"}[precision, real]
    if name == "irfft":
        if n == 1:
            check("irfft", data(rng, (3, 1), dtype), 1)
            return
        host = data(rng, (batch_for(n), n // 2 + 1), dtype)
        check("irfft", host, n)
    else:
        check(name, data(rng, (batch_for(n), n), dtype))


@pytest.mark.parametrize("n", [2, 7, 16, 100, 1009, 4096])
@pytest.mark.parametrize("name", ["hfft", "ihfft"])
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_hermitian(rng, name, n, dtype):
    if name == "ihfft":
        dtype = "float32" if dtype == "float32" else "float64"
        check(name, data(rng, (3, n), dtype))
    else:
        check(name, data(rng, (3, n // 2 + 1), dtype), n)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("n", [30, 31])
def test_norms(rng, name, norm, n):
    dtype = "float64" if name in REAL_IN else "complex128"
    check(name, data(rng, (4, n), dtype), norm=norm)
    check(name, data(rng, (n, 3), "float32" if name in REAL_IN else "complex64"), axis=0, norm=norm)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
@pytest.mark.parametrize("m, n", [(16, 8), (16, 25), (33, 17), (10, 1), (7, 64)])
def test_n_pads_and_crops(rng, name, m, n):
    dtype = "float64" if name in REAL_IN else "complex128"
    check(name, data(rng, (2, m), dtype), n)
    check(name, data(rng, (m, 2), dtype), n, 0, "ortho")


# --------------------------------------------------------------------------------------------
# N-D: s, axes, shapes
# --------------------------------------------------------------------------------------------

ND = ["fftn", "ifftn", "rfftn", "irfftn"]


@pytest.mark.parametrize("name", ND)
@pytest.mark.parametrize("s, axes, dtype", [
    (None, None, "single"), (None, (0,), "double"), (None, (-1, 0), "single"), (None, (2, 0, 1), "double"),
    (None, (-2,), "single"), ((12, 9), (0, -1), "double"), ((5, 31, 4), (0, 1, 2), "single"),
    (None, (1, 1), "double"), ((20, 16), (2, 2), "single"), ((3, 10, 6), (1, 0, 1), "double"),
    ((7,), (1,), "single"), ((12, 9), (0, -1), "single"), ((5, 31, 4), (0, 1, 2), "double"),
])
def test_nd_s_axes(rng, name, s, axes, dtype):
    real = name in REAL_IN
    dt = {"single": "float32" if real else "complex64", "double": "float64" if real else "complex128"}[dtype]
    check(name, data(rng, (6, 17, 10), dt), s=s, axes=axes)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2"])
@pytest.mark.parametrize("shape, s", [((16, 17), None), ((31, 32), (33, 20)), ((4, 7, 100), None),
                                      ((3, 64, 1), (64, 5)), ((1, 1), None)])
@pytest.mark.parametrize("norm", [None, "forward"])
def test_2d(rng, name, shape, s, norm):
    dtype = "float64" if name in REAL_IN else "complex128"
    if name == "irfft2" and s is None and shape[-1] == 1:
        s = shape[-2:]   # the default length 2 * (1 - 1) = 0 is an error (as NumPy)
    check(name, data(rng, shape, dtype), s=s, norm=norm)


@pytest.mark.parametrize("name", ND)
@pytest.mark.parametrize("shape, dtype", [((31, 32, 33), "single"), ((16, 16, 16), "double"),
                                          ((5, 3, 1), "single"), ((1, 64, 2), "double"), ((97, 2, 7), "single"),
                                          ((2, 3, 4, 5), "double"), ((31, 32, 33), "double")])
def test_nd_shapes(rng, name, shape, dtype):
    real = name in REAL_IN
    dt = {"single": "float32" if real else "complex64", "double": "float64" if real else "complex128"}[dtype]
    if name == "irfftn" and shape[-1] == 1:
        check(name, data(rng, shape, dt), s=shape[:-1] + (1,), axes=tuple(range(len(shape))))
        return
    check(name, data(rng, shape, dt))


# --------------------------------------------------------------------------------------------
# layouts, dtypes, out=, empty
# --------------------------------------------------------------------------------------------

VIEWS = {
    "transposed": lambda x: x.T,
    "stepped": lambda x: x[::2, 1::3],
    "negative": lambda x: x[::-1, ::-2],
    "moved": lambda x: x.transpose(1, 2, 0)[:, ::-1] if x.ndim == 3 else x[:, ::-1].T,
}


@pytest.mark.parametrize("view, dtype", [("transposed", "single"), ("stepped", "double"),
                                         ("negative", "single"), ("moved", "double")])
@pytest.mark.parametrize("name, kwargs", [
    ("fft", {}), ("ifft", {"axis": 0}), ("rfft", {}), ("irfft", {"axis": 0}), ("hfft", {}), ("ihfft", {"n": 9}),
    ("fftn", {}), ("ifftn", {"axes": (-1, 0)}), ("rfftn", {}), ("irfftn", {"axes": (1, 0)}),
    ("fft2", {"s": (8, 13)}), ("irfft2", {}),
])
def test_non_contiguous(rng, view, name, kwargs, dtype):
    real = name in REAL_IN
    dt = {"single": "float32" if real else "complex64", "double": "float64" if real else "complex128"}[dtype]
    check(name, data(rng, (12, 18, 5), dt), view=VIEWS[view], **kwargs)


@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "uint16", "int64", "float16"])
@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "irfftn"])
def test_input_dtypes(rng, dtype, name):
    host = data(rng, (6, 10), dtype)
    if dtype == "float16":
        host = (host * 0.25).astype(np.float16)
    got = getattr(ra.fft, name)(to_device(host))
    native = getattr(np.fft, name)(host)
    assert got.dtype == native.dtype and got.shape == native.shape
    want = getattr(np.fft, name)(wide(host))
    err = rel_l2(to_host(got), want)
    assert err <= (2e-3 if got.dtype == np.float16 else bound(native.dtype, 60)), err


@pytest.mark.parametrize("name, shape, kwargs, out_shape, out_dtype", [
    ("fft", (3, 8), {}, (3, 8), "complex128"),
    ("fft", (1, 8), {}, (4, 8), "complex64"),
    ("rfft", (3, 8), {"n": 6}, (3, 4), "complex128"),
    ("irfft", (3, 5), {}, (3, 8), "float32"),
    ("irfft", (3, 5), {}, (3, 8), "complex128"),
    ("ihfft", (2, 8), {}, (2, 5), "complex64"),
    ("hfft", (2, 5), {}, (2, 8), "float64"),
    ("fftn", (4, 6), {"s": (4, 3), "axes": (0, 1)}, (4, 3), "complex128"),
    ("ifft2", (4, 6), {}, (4, 6), "complex128"),
    ("rfftn", (4, 6), {}, (4, 4), "complex128"),
    ("irfftn", (1, 4, 3), {"axes": (1, 2)}, (5, 4, 4), "float64"),
])
def test_out(rng, name, shape, kwargs, out_shape, out_dtype):
    host = data(rng, shape, "float64" if name in REAL_IN else "complex128")
    out = ra.zeros(out_shape, out_dtype)
    got = getattr(ra.fft, name)(to_device(host), out=out, **kwargs)
    assert got is out
    ref = {"hfft": "hfft", "ifft2": "ifft2", "irfft2": "irfft2"}.get(name)
    if ref:   # NumPy ignores out here: compare with its returned result
        want = getattr(np.fft, name)(host, **kwargs)
    else:
        want = getattr(np.fft, name)(host, out=np.zeros(out_shape, out_dtype), **kwargs)
    err = rel_l2(to_host(out), want.astype(np.complex128))
    assert err <= bound(out_dtype, 64)


def test_out_aliasing_the_input(rng):
    host = data(rng, (4, 16), "complex128")
    x = to_device(host)
    got = ra.fft.fft(x, out=x)
    assert got is x
    assert rel_l2(to_host(x), np.fft.fft(host)) <= bound("complex128", 16)


@pytest.mark.parametrize("name, shape, kwargs", [
    ("fft", (0, 4), {}), ("ifft", (3, 0), {"axis": 0, "n": 5}), ("rfft", (0, 6), {}), ("irfft", (0, 3), {}),
    ("fftn", (0, 3), {"s": (2, 3), "axes": (0, 1)}), ("rfftn", (2, 0, 3), {"s": (4, 3), "axes": (1, 2)}),
    ("irfftn", (2, 0, 3), {"axes": (0, 2)}),
])
def test_empty(name, shape, kwargs):
    dtype = "float32" if name in REAL_IN else "complex64"
    host = np.ones(shape, dtype)
    got = getattr(ra.fft, name)(to_device(host), **kwargs)
    want = getattr(np.fft, name)(host, **kwargs)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(to_host(got), want, atol=1e-6)


def test_roundtrips(rng):
    host = data(rng, (8, 30, 17), "float64")
    x = to_device(host)
    back = ra.fft.irfftn(ra.fft.rfftn(x), s=x.shape, axes=(0, 1, 2))
    assert rel_l2(to_host(back), host) <= bound("float64", host.size)
    back = ra.fft.ifftn(ra.fft.fftn(x, norm="ortho"), norm="ortho")
    assert rel_l2(to_host(back), host) <= bound("float64", host.size)
    back = ra.fft.hfft(ra.fft.ihfft(x, axis=1), 30, axis=1)
    assert rel_l2(to_host(back), host) <= bound("float64", 30)


def test_no_axes_returns_the_input(rng):
    x = to_device(data(rng, (3, 4), "int32"))
    assert ra.fft.fftn(x, axes=()) is x


def test_host_arrays_are_rejected():
    with pytest.raises(TypeError, match="host"):
        ra.fft.fft(np.ones(8))


# --------------------------------------------------------------------------------------------
# helpers and the plan cache
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 7, 8, 1000, 1001])
@pytest.mark.parametrize("d", [1.0, 0.01, np.float32(0.3), 2j])
def test_frequencies(n, d):
    for name in ("fftfreq", "rfftfreq"):
        got = getattr(ra.fft, name)(n, d)
        want = getattr(np.fft, name)(n, d)
        assert isinstance(got, ra.ndarray) and got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(to_host(got), want)


@pytest.mark.parametrize("shape, axes", [((7,), None), ((8,), 0), ((5, 6), None), ((5, 6), (1,)),
                                         ((3, 4, 5), (0, -1)), ((3, 4, 5), (1, 1))])
def test_shifts(rng, shape, axes):
    host = data(rng, shape, "float32")
    for name in ("fftshift", "ifftshift"):
        got = getattr(ra.fft, name)(to_device(host), axes)
        np.testing.assert_array_equal(to_host(got), getattr(np.fft, name)(host, axes))


def test_plan_cache_is_reused(rng):
    cache = ra.fft.config.get_plan_cache()
    x = to_device(data(rng, (4, 100), "complex64"))
    ra.fft.fft(x)
    before = (cache.get_curr_size(), cache.misses)
    ra.fft.fft(x)
    ra.fft.fft(to_device(data(rng, (4, 100), "complex64")))
    assert (cache.get_curr_size(), cache.misses) == before
    ra.fft.config.clear_plan_cache()
    assert cache.get_curr_size() == 0
    check("fft", data(rng, (4, 100), "complex64"))


# --------------------------------------------------------------------------------------------
# large
# --------------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("n", [2**24, 1_000_003])
@pytest.mark.parametrize("name, dtype", [("fft", "complex64"), ("fft", "complex128"), ("rfft", "float32"),
                                         ("irfft", "complex128")])
def test_large_1d(rng, n, name, dtype):
    if name == "irfft":
        check(name, data(rng, (n // 2 + 1,), dtype), n)
    else:
        check(name, data(rng, (n,), dtype))


@pytest.mark.slow
@pytest.mark.parametrize("name, dtype", [("fftn", "complex64"), ("ifftn", "complex128"), ("rfftn", "float32"),
                                         ("irfftn", "complex64")])
def test_large_3d(rng, name, dtype):
    if name == "irfftn":
        check(name, data(rng, (512, 512, 33), dtype), s=(512, 512, 64), axes=(0, 1, 2))
    else:
        check(name, data(rng, (512, 512, 64), dtype))


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_every_length_up_to_4096(rng, dtype):
    """Every length 1..4096 (radix passes, four-step and Bluestein all appear), two batches."""
    worst = 0.0
    for n in range(1, 4097):
        host = data(rng, (2, n), dtype)
        got = to_host(ra.fft.fft(to_device(host)))
        err = rel_l2(got, np.fft.fft(wide(host), axis=-1)) / bound(dtype, n)
        worst = max(worst, err)
        assert err <= 1.0, (n, err)
    assert worst > 0.0  # the comparison ran


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_every_real_length_up_to_4096(rng, dtype):
    for n in range(1, 4097):
        host = data(rng, (2, n), dtype)
        spectrum = ra.fft.rfft(to_device(host))
        assert rel_l2(to_host(spectrum), np.fft.rfft(wide(host), axis=-1)) <= bound(dtype, n), n
        back = to_host(ra.fft.irfft(spectrum, n))
        assert rel_l2(back, wide(host)) <= 2 * bound(dtype, n), n


@pytest.mark.slow
@pytest.mark.parametrize("n", [2**k for k in range(1, 28)] + [65537, 1009 * 1013, 3 * 65537, 17 * 19 * 23 * 29])
def test_powers_of_two_to_2_27_and_products_of_large_primes(rng, n):
    dtype = "complex64" if n >= 2**26 else "complex128"
    host = data(rng, (n,), dtype)
    check("fft", host)


@pytest.mark.parametrize("n", [2, 6, 64, 1000, 2**16])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rfft_warm_calls_on_fresh_data_and_offset_views(rng, n, dtype):
    # a warm 1-D rfft reuses the prepared schedules of its input layout: repeated calls on fresh
    # data, an odd-offset view (complex pairs misaligned: another path) and scales of every norm
    for _ in range(3):
        check("rfft", data(rng, (n,), dtype))
    for norm in ("ortho", "forward", None):
        check("rfft", data(rng, (n,), dtype), norm=norm)
    for _ in range(2):
        check("rfft", data(rng, (n + 1,), dtype), view=lambda a: a[1:])
    check("rfft", data(rng, (3, n), dtype), axis=1)


@pytest.mark.parametrize("n", [2, 6, 64, 1000, 2**16])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_irfft_warm_calls_on_fresh_data_and_views(rng, n, dtype):
    # a warm 1-D irfft reuses the prepared schedules of its input layout (one launch, or the
    # folding pass and the in-place inverse on the output): fresh data, every norm, views
    for _ in range(3):
        check("irfft", data(rng, (n // 2 + 1,), dtype), n)
    for norm in ("ortho", "forward", None):
        check("irfft", data(rng, (2, n // 2 + 1), dtype), n, norm=norm)
    for _ in range(2):
        check("irfft", data(rng, (n // 2 + 2,), dtype), n, view=lambda a: a[1:])
        check("irfft", data(rng, (4, n // 2 + 1), dtype), n, view=lambda a: a[::2])
    check("irfft", data(rng, (n // 2 + 1, 3), dtype), n, axis=0)



@pytest.fixture
def poisoned_empty(monkeypatch):
    """``cupy.empty`` filling every fresh floating-point buffer with NaN (the library's outputs and
    intermediate rows included), so that an element a kernel leaves unwritten shows in the
    comparison. Workspace bytes (``uint8``, written before they are read) stay as they are."""
    import cupy

    fresh = cupy.empty

    def poisoned(shape, dtype=float, order="C"):
        a = fresh(shape, dtype, order=order)
        if a.dtype.kind in "fc":
            a.fill(np.nan)
        return a

    monkeypatch.setattr(cupy, "empty", poisoned)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_one_launch_real_rows_every_power_of_two_half_length(rng, dtype, poisoned_empty):
    """rfft/irfft of even lengths 32..8192 along contiguous rows take one kernel each (the
    half-length FFT with the untangling or folding in shared memory). Fresh buffers are poisoned
    with NaN so an unwritten output shows; batches fill a block partly (37 rows of 32 points)
    and step over rows (a stepped view); irfft ignores the imaginary parts of the first and last
    coefficients, as NumPy does."""
    from rocarray.rocfft import plan_cache

    ctype = np.result_type(dtype, 1j)
    for log_h in range(4, 13):
        n = 2 << log_h
        for shape in [(n,), (37, n), (2, 3, n)]:
            plan_cache.clear()
            check("rfft", data(rng, shape, dtype))
            check("rfft", data(rng, (2 * shape[0],) + shape[1:], dtype), view=lambda a: a[::2], norm="ortho")
            spectrum = data(rng, shape[:-1] + (n // 2 + 1,), ctype)
            check("irfft", spectrum, n)
            kinds = sorted(key[1] for key, entry in plan_cache._entries.items()
                           if key[0] == "rocfft.real_fused" and entry)
            assert set(kinds) == {"c2r", "r2c"}, (n, shape, kinds)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_real_passes_above_the_one_launch_lengths(rng, dtype, poisoned_empty):
    """rfft/irfft of power-of-two lengths 2^14 .. 2^20 fuse the untangling into the last
    four-step pass (row pairs k2, outer - k2 in one block; k2 = 0 and outer/2 pair with
    themselves) and the folding into the first (up to 2^19 points on the H200): single rows,
    batches, stepped rows, the transformed axis first, every norm. Outputs are poisoned with
    NaN so an unwritten element shows."""
    from rocarray.rocfft import plan_cache

    ctype = np.result_type(dtype, 1j)
    for log_n in range(14, 21):
        n = 1 << log_n
        plan_cache.clear()
        for shape, kwargs in [((n,), {}), ((3, n), {"norm": "ortho"}), ((n, 2), {"axis": 0, "norm": "forward"})]:
            check("rfft", data(rng, shape, dtype), **kwargs)
            spectrum_shape = list(shape)
            spectrum_shape[kwargs.get("axis", -1)] = n // 2 + 1
            check("irfft", data(rng, tuple(spectrum_shape), ctype), n, **kwargs)
        check("rfft", data(rng, (4, n), dtype), view=lambda a: a[::2])
        check("irfft", data(rng, (4, n // 2 + 1), ctype), n, view=lambda a: a[::2])
        kinds = {key[1] for key, entry in plan_cache._entries.items()
                 if key[0] == "rocfft.real_fused" and entry}
        assert kinds == ({"r2c", "c2r"} if log_n <= 19 else {"r2c"}), (n, kinds)


@pytest.mark.parametrize("n", [16, 32])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_short_rows_through_shared_memory(rng, n, dtype, poisoned_empty):
    """Transforms of 16 and 32 points move dense tiles between global and shared memory with
    consecutive threads on consecutive addresses; partial tiles, several batch dimensions merged
    into one, stepped and transposed rows (the direct path) must agree. Fresh buffers are
    poisoned with NaN so an unwritten output shows."""
    for shape in [(1, n), (37, n), (300, n), (2, 3, n), (4097, n)]:
        check("fft", data(rng, shape, dtype))
        check("ifft", data(rng, shape, dtype), norm="ortho")
    check("fft", data(rng, (74, n), dtype), view=lambda a: a[::2])
    check("fft", data(rng, (n, 37), dtype), axis=0)
    check("rfft", data(rng, (37, 2 * n), "float32" if dtype == "complex64" else "float64"))
