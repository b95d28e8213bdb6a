"""The channels-last max-pool run kernel (``ra_miopen_pooling_max2d_nhwc``: windows/strides 3/2,
2/2 and 3/1) on the GPU against torch in float64 (on the same inputs, rounded to the tested dtype),
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
    launched = []  # the run kernel's names, as the library builds them
    name = _pooling.max_run_name
    monkeypatch.setattr(_pooling, "max_run_name", lambda *a: launched.append(name(*a)) or launched[-1])
    x = to_device(np.ascontiguousarray(np.moveaxis(data, 1, -1)))
    kw = dict(kernel_size=kernel, stride=stride, padding=padding, ceil_mode=ceil_mode)
    for with_indices in (True, False):
        got = ra.nn.max_pool2d(x, **kw, return_indices=with_indices, layout="NHWC")
        ty, tidx = torch.nn.functional.max_pool2d(torch.from_numpy(data.astype(np.float64)).cuda(), **kw,
                                                  return_indices=True)
        y = got[0] if with_indices else got
        assert launched.pop().endswith(f"{'true' if with_indices else 'false'}>")
        np.testing.assert_array_equal(np.moveaxis(to_host(y), -1, 1).astype(np.float64), ty.cpu().numpy())
        if with_indices:
            np.testing.assert_array_equal(np.moveaxis(to_host(got[1]), -1, 1), tidx.cpu().numpy())
