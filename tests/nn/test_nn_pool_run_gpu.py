"""The channels-last max-pool run kernels (``ra_miopen_pooling_max2d_nhwc``: windows/strides 3/2,
2/2 and 3/1; ``..._h2`` for float16 without indices, set.f16x2 on sm_80+) on the GPU against torch in float64 (on the same inputs, rounded to the tested dtype),
values and indices exact, with and without indices: odd sizes, ceil_mode, channels in 16-byte
packs, a NaN, ties (the first index wins), outputs poisoned first."""

import numpy as np
import pytest

from conftest import to_device, to_host

import rocarray as ra
from rocarray.miopen import _pooling
from rocarray.nn._args import float_dtypes

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.gpu

DTYPES = [d.name for d in float_dtypes()]


def _dtype(name):
    return next(d for d in float_dtypes() if d.name == name)


POOL_CASES = [  # (shape NCHW, kernel, stride, padding, ceil_mode)
    ((2, 64, 23, 29), 3, 2, 1, False),      # ResNet's stem pool, odd sizes
    ((3, 16, 12, 17), 3, 2, 0, True),
    ((2, 32, 11, 14), 2, 2, 0, False),
    ((1, 24, 9, 13), 3, 1, 1, False),
]


@pytest.mark.parametrize("case", POOL_CASES, ids=lambda c: f"{c[0][2]}x{c[0][3]}-k{c[1]}-s{c[2]}")
@pytest.mark.parametrize("dtype", DTYPES)
def test_max_pool_run_kernel_matches_torch(rng, monkeypatch, case, dtype):
    shape, kernel, stride, padding, ceil_mode = case
    dt = _dtype(dtype)
    data = rng.integers(-4, 5, shape).astype(np.float64)  # many ties: the first index wins
    data[0, 0, 1, 1] = np.nan                              # a NaN is its windows' maximum
    data = data.astype(dt)
    # every output array starts as all-ones bytes (NaN, index -1), so an element the kernel misses shows
    empty = _pooling._c.empty

    def poisoned(shape_, dtype_, like):
        out = empty(shape_, dtype_, like)
        out.view(np.uint8).fill(0xFF)
        return out

    monkeypatch.setattr(_pooling._c, "empty", poisoned)
    launched = []  # the run kernels' names, as the library builds them
    name, h2_name = _pooling.max_run_name, _pooling.max_h2_name
    monkeypatch.setattr(_pooling, "max_run_name", lambda *a: launched.append(name(*a)) or launched[-1])
    monkeypatch.setattr(_pooling, "max_h2_name", lambda *a: launched.append(h2_name(*a)) or launched[-1])
    x = to_device(np.ascontiguousarray(np.moveaxis(data, 1, -1)))
    kw = dict(kernel_size=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode)
    for with_indices in (True, False):
        got = ra.nn.max_pool2d(x, **kw, return_indices=with_indices, layout="NHWC")
        ty, tidx = torch.nn.functional.max_pool2d(torch.from_numpy(data.astype(np.float64)).cuda(), **kw,
                                                  return_indices=True)
        y = got[0] if with_indices else got
        if dtype == "float16" and not with_indices:  # two channels per comparison
            assert launched.pop().startswith("ra_miopen_pooling_max2d_nhwc_h2<")
        else:
            assert launched.pop().endswith(f"{'true' if with_indices else 'false'}>")
        np.testing.assert_array_equal(np.moveaxis(to_host(y), -1, 1).astype(np.float64), ty.cpu().numpy())
        if with_indices:
            np.testing.assert_array_equal(np.moveaxis(to_host(got[1]), -1, 1), tidx.cpu().numpy())


def test_max_pool_half2_bench_shape_bits_equal_the_run_kernel(rng, monkeypatch):
    """The bench problem (N64 C64 112x112 float16, 3x3 stride 2 padding 1) with NaNs and signed
    zeros: the two-channels-per-comparison kernel's bits equal the run kernel's (NaNs as NaNs)."""
    data = rng.standard_normal((64, 112, 112, 64)).astype(np.float16)
    data[0, :5, :5, :] = np.where(rng.random((5, 5, 64)) < 0.5, -0.0, 0.0)
    data[1, 7, 9, 3] = np.nan
    x = to_device(data)
    outs = {}
    for on in (True, False):
        monkeypatch.setattr(_pooling, "HALF2", on)
        outs[on] = to_host(ra.nn.max_pool2d(x, 3, 2, 1, layout="NHWC"))
    a, b = outs[True], outs[False]
    assert np.isnan(a).sum() == 4 and (np.isnan(a) == np.isnan(b)).all()
    np.testing.assert_array_equal(a.view(np.uint16)[~np.isnan(a)], b.view(np.uint16)[~np.isnan(b)])
    want = torch.nn.functional.max_pool2d(torch.from_numpy(np.moveaxis(data, -1, 1).astype(np.float32)).cuda(),
                                          3, 2, 1)
    np.testing.assert_array_equal(a, np.moveaxis(want.cpu().numpy(), 1, -1).astype(np.float16))
