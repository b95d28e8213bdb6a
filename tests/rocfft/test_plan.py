"""``rocarray.rocfft.Plan`` and the plan cache of its schedules.

CPU (no device): every argument error of :class:`Plan` and of :meth:`Plan.execute` that is caught
before device work (on fake device arrays), the default layouts, and that the schedules live in
rocarray's one plan cache (whose clearing drops the device twiddle tables too).

GPU: :meth:`Plan.execute` against ``numpy.fft`` in float64/complex128 (the plan is unnormalized:
inverse references use ``norm="forward"``): c2c forward/inverse, r2c, c2r, batches, 1-D/2-D/3-D
lengths, custom strides and distances on either side (interleaved batches, padded rows,
transposed transforms; padding must stay untouched), in-place c2c, ``scale`` and errors. The
relative L2 error must stay within ``5e-7 * log2(N)`` (single) or ``1e-15 * log2(N)`` (double),
``N`` the points of one transform (at least 2).
"""

import math

import numpy as np
import pytest

from conftest import fake, random_array, to_device, to_host

from rocarray.rocfft import Plan
from rocarray.rocfft import _transforms


# --------------------------------------------------------------------------------------------
# CPU: Plan arguments
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    {"transform": "fft"}, {"transform": "C2C"}, {"transform": None},
    {"direction": "backward"}, {"direction": 1}, {"direction": "Forward"},
    {"precision": "half"}, {"precision": "float32"}, {"precision": None},
    {"placement": "in-place"}, {"placement": "out"},
], ids=repr)
def test_plan_rejects_unknown_options(kwargs):
    with pytest.raises(ValueError):
        Plan(16, **kwargs)


@pytest.mark.parametrize("lengths", [0, -4, (), [], (4, 0), (8, -1), (0, 0, 0)], ids=repr)
def test_plan_rejects_bad_lengths(lengths):
    with pytest.raises(ValueError, match="lengths"):
        Plan(lengths)


@pytest.mark.parametrize("batch", [0, -1, -100])
def test_plan_rejects_bad_batch(batch):
    with pytest.raises(ValueError, match="batch"):
        Plan(8, batch=batch)


@pytest.mark.parametrize("transform, direction", [("r2c", "inverse"), ("c2r", "forward")])
def test_plan_real_transforms_have_one_direction(transform, direction):
    with pytest.raises(ValueError):
        Plan(8, transform=transform, direction=direction)


@pytest.mark.parametrize("transform, direction", [("r2c", "forward"), ("c2r", "inverse")])
def test_plan_rejects_inplace_real_transforms(transform, direction):
    with pytest.raises(ValueError, match="place"):
        Plan(8, transform=transform, direction=direction, placement="inplace")


@pytest.mark.parametrize("lengths, name, strides", [
    ((8,), "in_strides", (1, 1)), ((8,), "out_strides", ()), ((4, 6), "in_strides", (1,)),
    ((4, 6), "out_strides", (6, 1, 1)), ((2, 3, 4), "in_strides", (12, 4)),
])
def test_plan_rejects_strides_of_the_wrong_length(lengths, name, strides):
    with pytest.raises(ValueError, match=name):
        Plan(lengths, **{name: strides})


@pytest.mark.parametrize("kwargs", [
    {"in_strides": (-1,)},
    {"out_strides": (-2,)},
    {"batch": 2, "in_distance": -8},
    {"batch": 2, "out_distance": -8},
    {"batch": 2, "out_distance": 0},
], ids=repr)
def test_plan_rejects_layouts_outside_the_buffer(kwargs):
    with pytest.raises(ValueError):
        Plan(8, **kwargs)


def test_plan_default_layout_c2c():
    p = Plan((4, 6), batch=3, precision="double")
    assert p.lengths == (4, 6) and p.batch == 3
    assert p.in_shape == p.out_shape == (3, 4, 6)
    assert p.in_strides == p.out_strides == (6, 1)
    assert p.in_distance == p.out_distance == 24
    assert p.in_dtype == p.out_dtype == np.complex128


def test_plan_default_layout_real():
    r2c = Plan((8, 6), transform="r2c", batch=2)
    assert r2c.in_shape == (2, 8, 6) and r2c.out_shape == (2, 8, 4)
    assert r2c.in_strides == (6, 1) and r2c.out_strides == (4, 1)
    assert r2c.in_distance == 48 and r2c.out_distance == 32
    assert r2c.in_dtype == np.float32 and r2c.out_dtype == np.complex64
    c2r = Plan(9, transform="c2r", direction="inverse", precision="double")
    assert c2r.in_shape == (1, 5) and c2r.out_shape == (1, 9)
    assert c2r.in_dtype == np.complex128 and c2r.out_dtype == np.float64


def test_plan_custom_strides_set_the_default_distance():
    p = Plan((4, 6), in_strides=(8, 1), out_strides=(1, 4))
    assert p.in_strides == (8, 1) and p.in_distance == 3 * 8 + 5 + 1
    assert p.out_strides == (1, 4) and p.out_distance == 3 + 5 * 4 + 1
    p = Plan(16, in_strides=(3,), in_distance=1, batch=3)
    assert p.in_distance == 1 and p.out_distance == 16


def test_plan_accepts_integer_like_lengths():
    assert Plan(np.int64(12)).lengths == (12,)
    assert Plan([np.int32(3), 5]).lengths == (3, 5)


# --------------------------------------------------------------------------------------------
# CPU: execute argument errors, raised before any device work
# --------------------------------------------------------------------------------------------

def test_execute_rejects_host_arrays():
    with pytest.raises(TypeError, match="x"):
        Plan(8).execute(np.zeros(8, np.complex64))
    with pytest.raises(TypeError, match="out"):
        Plan(8).execute(fake((8,), "complex64"), out=np.zeros(8, np.complex64))


@pytest.mark.parametrize("transform, direction, wrong", [
    ("c2c", "forward", "complex128"), ("c2c", "forward", "float32"), ("r2c", "forward", "complex64"),
    ("r2c", "forward", "float64"), ("c2r", "inverse", "float32"),
])
def test_execute_rejects_the_wrong_input_dtype(transform, direction, wrong):
    p = Plan(8, transform=transform, direction=direction, precision="single")
    with pytest.raises(TypeError, match="dtype"):
        p.execute(fake((16,), wrong))


def test_execute_rejects_the_wrong_output_dtype():
    with pytest.raises(TypeError, match="out"):
        Plan(8).execute(fake((8,), "complex64"), out=fake((8,), "complex128"))
    with pytest.raises(TypeError, match="out"):
        Plan(8, transform="r2c").execute(fake((8,), "float32"), out=fake((5,), "float32"))


@pytest.mark.parametrize("plan_kwargs, in_size, out_size", [
    ({"lengths": 8}, 7, None),
    ({"lengths": 8, "batch": 2}, 15, None),
    ({"lengths": (4, 6)}, 23, None),
    ({"lengths": 8}, 8, 7),
    ({"lengths": 16, "in_strides": (3,), "in_distance": 1, "batch": 3}, 3 * 15 + 2, None),
    ({"lengths": 8, "out_strides": (2,), "out_distance": 16, "batch": 2}, 16, 30),
    ({"lengths": 8, "transform": "r2c"}, 8, 4),
])
def test_execute_rejects_buffers_smaller_than_the_layout(plan_kwargs, in_size, out_size):
    plan_kwargs = dict(plan_kwargs)
    p = Plan(plan_kwargs.pop("lengths"), **plan_kwargs)
    x = fake((in_size,), p.in_dtype)
    out = None if out_size is None else fake((out_size,), p.out_dtype)
    with pytest.raises(ValueError, match="holds"):
        p.execute(x, out)


def test_execute_rejects_non_contiguous_buffers():
    with pytest.raises(ValueError, match="contiguous"):
        Plan(8).execute(fake((4, 8), "complex64")[:, ::2])


# --------------------------------------------------------------------------------------------
# CPU: the plan cache rocfft keeps its schedules in
# --------------------------------------------------------------------------------------------

def test_plan_cache_is_the_one_core_cache():
    import rocarray.rocfft as rocfft
    from rocarray._core import plans

    assert rocfft.plan_cache is plans.cache and _transforms.plan_cache is plans.cache
    assert set(rocfft.__all__) == {"Plan", "c2c", "r2c", "c2r", "plan_cache", "transform_axis"}
    assert all(hasattr(rocfft, name) for name in rocfft.__all__)
    assert "PlanCache" not in dir(rocfft)


def test_clearing_the_plan_cache_clears_the_device_tables():
    from rocarray._core import plans
    from rocarray.rocfft._tables import tables

    tables._get(("test", "single", 1, 0), lambda: np.zeros(4))   # any array-like value
    assert tables.nbytes >= 32
    plans.cache.clear()
    assert tables.nbytes == 0 and not tables._entries


# --------------------------------------------------------------------------------------------
# GPU: helpers
# --------------------------------------------------------------------------------------------

def bound(precision, points):
    return (5e-7 if precision == "single" else 1e-15) * math.log2(max(points, 2))


def rel_l2(got, want):
    diff = np.linalg.norm((np.asarray(got).astype(np.complex128) - want).ravel())
    ref = np.linalg.norm(np.asarray(want).ravel())
    return diff / ref if ref else diff


def extent(shape, strides, distance):
    """Elements a batched layout spans (as Plan counts them)."""
    return (shape[0] - 1) * distance + 1 + sum((n - 1) * s for n, s in zip(shape[1:], strides))


def view(buf, shape, strides, distance):
    """The logical (batch, *lengths) array of a flat host buffer in a plan's layout."""
    item = buf.dtype.itemsize
    return np.lib.stride_tricks.as_strided(buf, shape, (distance * item,) + tuple(s * item for s in strides),
                                           writeable=False)


def touched(size, shape, strides, distance):
    mask = np.zeros(size, bool)
    idx = np.arange(size)
    mask[view(idx, shape, strides, distance).ravel()] = True
    return mask


fill = random_array


def reference(plan, logical):
    """numpy.fft of the plan's logical input (float64/complex128), unnormalized like the plan."""
    axes = tuple(range(1, len(plan.in_shape)))
    if plan.transform == "c2c":
        wide = logical.astype(np.complex128)
        if plan.direction == "forward":
            return np.fft.fftn(wide, axes=axes)
        return np.fft.ifftn(wide, axes=axes, norm="forward")
    if plan.transform == "r2c":
        return np.fft.rfftn(logical.astype(np.float64), axes=axes)
    return np.fft.irfftn(logical.astype(np.complex128), s=plan.lengths, axes=axes, norm="forward")


def hermitian_input(rng, plan, buf):
    """Write a Hermitian spectrum (rfftn of real data) into ``buf`` at the plan's input layout."""
    axes = tuple(range(1, len(plan.in_shape)))
    spectrum = np.fft.rfftn(rng.standard_normal((plan.batch,) + plan.lengths), axes=axes)
    spectrum /= math.sqrt(math.prod(plan.lengths))
    item = buf.dtype.itemsize
    writable = np.lib.stride_tricks.as_strided(
        buf, plan.in_shape, (plan.in_distance * item,) + tuple(s * item for s in plan.in_strides))
    writable[...] = spectrum.astype(buf.dtype)


def run_plan(rng, plan, *, with_out=False, pad=5, scale=1.0, hermitian=None):
    """Execute ``plan`` on fresh random data in its layouts; returns (error, bound, details)."""
    in_size = extent(plan.in_shape, plan.in_strides, plan.in_distance) + pad
    x_host = fill(rng, in_size, plan.in_dtype)
    if plan.transform == "c2r" if hermitian is None else hermitian:
        hermitian_input(rng, plan, x_host)
    logical = view(x_host, plan.in_shape, plan.in_strides, plan.in_distance).copy()
    x = to_device(x_host)
    out = None
    if with_out:
        out_size = extent(plan.out_shape, plan.out_strides, plan.out_distance) + pad
        out_host = np.full(out_size, np.nan, plan.out_dtype)
        out = to_device(out_host)
    result = plan.execute(x, out, scale=scale)
    if plan.placement == "inplace":
        assert result is x
        strides, distance = plan.in_strides, plan.in_distance
    elif with_out:
        assert result is out
        strides, distance = plan.out_strides, plan.out_distance
    else:
        assert result.dtype == plan.out_dtype and result.size == math.prod(plan.out_shape)
        strides = tuple(math.prod(plan.out_shape[d + 1:]) for d in range(1, len(plan.out_shape)))
        distance = math.prod(plan.out_shape[1:])
    got_flat = to_host(result)
    got = view(got_flat, plan.out_shape, strides, distance)
    want = reference(plan, logical) * scale
    err, limit = rel_l2(got, want), bound(plan.precision, math.prod(plan.lengths))
    if with_out:  # padding and gaps outside the output layout stay untouched
        mask = touched(got_flat.size, plan.out_shape, strides, distance)
        assert np.isnan(got_flat[~mask]).all(), "the plan wrote outside its output layout"
    if plan.placement != "inplace" and plan.transform in ("c2c", "r2c"):
        np.testing.assert_array_equal(to_host(x), x_host, err_msg="the plan changed its input")
    return err, limit


def check(rng, plan, **kwargs):
    err, limit = run_plan(rng, plan, **kwargs)
    assert err <= limit, f"relative L2 error {err:.3e} > {limit:.3e}"


PRECISIONS = ["single", "double"]


# --------------------------------------------------------------------------------------------
# GPU: transforms against numpy.fft
# --------------------------------------------------------------------------------------------

C2C_CASES = [((1,), 1), ((16,), 3), ((100,), 1), ((17,), 4), ((4097,), 2), ((64,), 5), ((8, 12), 1),
             ((8, 12), 3), ((5, 6, 7), 2), ((32, 32, 16), 1)]


@pytest.mark.gpu
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("direction", ["forward", "inverse"])
@pytest.mark.parametrize("lengths, batch", C2C_CASES, ids=str)
def test_c2c_matches_numpy(rng, lengths, batch, direction, precision):
    check(rng, Plan(lengths, transform="c2c", direction=direction, precision=precision, batch=batch))


@pytest.mark.gpu
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("n", [2**16, 3**10, 1000003])
def test_c2c_long_lengths(rng, n, precision):
    check(rng, Plan(n, precision=precision))


REAL_CASES = [((8,), 1), ((15,), 2), ((1000,), 2), ((6, 10), 1), ((4, 6, 9), 2)]


@pytest.mark.gpu
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("lengths, batch", REAL_CASES, ids=str)
def test_r2c_matches_numpy(rng, lengths, batch, precision):
    check(rng, Plan(lengths, transform="r2c", precision=precision, batch=batch))


@pytest.mark.gpu
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("lengths, batch", REAL_CASES, ids=str)
def test_c2r_matches_numpy(rng, lengths, batch, precision):
    check(rng, Plan(lengths, transform="c2r", direction="inverse", precision=precision, batch=batch))


# --------------------------------------------------------------------------------------------
# GPU: custom layouts
# --------------------------------------------------------------------------------------------

LAYOUTS = {
    "c2c-interleaved-batches-in": dict(lengths=(16,), batch=3, in_strides=(3,), in_distance=1),
    "c2c-interleaved-batches-out": dict(lengths=(32,), batch=5, out_strides=(5,), out_distance=1),
    "c2c-padded-rows": dict(lengths=(6, 10), batch=2, in_strides=(12, 1), in_distance=80,
                            out_strides=(11, 1), out_distance=70),
    "c2c-transposed-3d": dict(lengths=(4, 5, 6), batch=2, in_strides=(1, 4, 20), in_distance=120),
    "c2c-bluestein-strided": dict(lengths=(17,), batch=4, in_strides=(4,), in_distance=1,
                                  out_strides=(2,), out_distance=40),
    "r2c-padded-rows": dict(transform="r2c", lengths=(6, 10), batch=2, in_strides=(12, 1), in_distance=72,
                            out_strides=(6, 1), out_distance=36),
    "r2c-interleaved": dict(transform="r2c", lengths=(15,), batch=4, in_strides=(4,), in_distance=1,
                            out_strides=(1,), out_distance=9),
    "c2r-padded-rows": dict(transform="c2r", direction="inverse", lengths=(6, 10), batch=2, in_strides=(7, 1),
                            in_distance=45, out_strides=(12, 1), out_distance=72),
    "c2r-interleaved": dict(transform="c2r", direction="inverse", lengths=(16,), batch=3, in_strides=(3,),
                            in_distance=1),
}


@pytest.mark.gpu
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_custom_strides_and_distances(rng, name, precision):
    kwargs = dict(LAYOUTS[name])
    lengths = kwargs.pop("lengths")
    plan = Plan(lengths, precision=precision, **kwargs)
    check(rng, plan, with_out="out_strides" in kwargs)


# --------------------------------------------------------------------------------------------
# GPU: in place, scale, output allocation, errors
# --------------------------------------------------------------------------------------------

INPLACE = {
    "1d": dict(lengths=(256,), batch=1),
    "2d-batch": dict(lengths=(8, 12), batch=2, direction="inverse"),
    "interleaved": dict(lengths=(16,), batch=3, in_strides=(3,), in_distance=1),
    "four-step": dict(lengths=(2**16,), batch=1),
}


@pytest.mark.gpu
@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_c2c(rng, name, precision):
    kwargs = dict(INPLACE[name])
    lengths = kwargs.pop("lengths")
    check(rng, Plan(lengths, placement="inplace", precision=precision, **kwargs))


@pytest.mark.gpu
@pytest.mark.parametrize("transform, direction", [("c2c", "forward"), ("c2c", "inverse"), ("r2c", "forward"),
                                                  ("c2r", "inverse")])
def test_scale_multiplies_the_result(rng, transform, direction):
    check(rng, Plan((6, 10), transform=transform, direction=direction, precision="double", batch=2), scale=0.375)


@pytest.mark.gpu
def test_inverse_scaled_by_one_over_n_is_numpys_ifft(rng):
    n = 1000
    x = fill(rng, 3 * n, np.complex128)
    got = Plan(n, direction="inverse", precision="double", batch=3).execute(to_device(x), scale=1.0 / n)
    want = np.fft.ifft(x.reshape(3, n), axis=-1)
    assert rel_l2(to_host(got).reshape(3, n), want) <= bound("double", n)


@pytest.mark.gpu
def test_execute_allocates_a_flat_output():
    import cupy

    out = Plan((4, 6), transform="r2c", batch=2).execute(cupy.ones(48, cupy.float32))
    assert isinstance(out, cupy.ndarray) and out.shape == (2 * 4 * 4,) and out.dtype == np.complex64


@pytest.mark.gpu
def test_execute_errors_on_the_device():
    import cupy

    plan = Plan(8, batch=2)
    with pytest.raises(TypeError, match="device"):
        plan.execute(np.zeros(16, np.complex64))
    with pytest.raises(TypeError, match="dtype"):
        plan.execute(cupy.zeros(16, cupy.complex128))
    with pytest.raises(ValueError, match="holds"):
        plan.execute(cupy.zeros(15, cupy.complex64))
    with pytest.raises(ValueError, match="holds"):
        plan.execute(cupy.zeros(16, cupy.complex64), out=cupy.zeros(8, cupy.complex64))
    with pytest.raises(TypeError, match="dtype"):
        plan.execute(cupy.zeros(16, cupy.complex64), out=cupy.zeros(16, cupy.float32))
