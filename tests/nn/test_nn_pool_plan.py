"""The pooling forwards' plans (CPU, recorded launches): a repeated call reuses its plan and
launches what the first call launched; every argument the checks look at is part of the key."""

import pytest

import rocarray as ra
from rocarray._core import plans
from launchfake import fake_device  # noqa: F401 (the fixture)


def test_a_repeated_max_pool_reuses_its_plan(fake_device):
    x = fake_device.array((2, 9, 9, 16), "float16")
    y = ra.nn.max_pool2d(x, 3, 2, 1, layout="NHWC")
    first = fake_device.launches[-1]
    hits = plans.cache.hits
    y2 = ra.nn.max_pool2d(x, 3, 2, 1, layout="NHWC")
    assert plans.cache.hits == hits + 1
    again = fake_device.launches[-1]
    assert (again.name, again.grid, again.block) == (first.name, first.grid, first.block)
    assert y.shape == y2.shape == (2, 5, 5, 16)
    assert again.args[0] == x.data.ptr and again.args[1] == y2.data.ptr != y.data.ptr


def test_an_unbatched_max_pool_with_indices_keeps_its_shapes(fake_device):
    x = fake_device.array((16, 9, 7), "float32")
    for _ in range(2):
        y, i = ra.nn.max_pool2d(x, 2, return_indices=True)
        assert y.shape == i.shape == (16, 4, 3) and i.dtype == "int64"
        assert fake_device.launches[-1].args[2] == i.data.ptr


def test_a_cached_call_still_checks_what_differs(fake_device):
    x = fake_device.array((1, 4, 8, 8), "float32")
    ra.nn.avg_pool2d(x, 3)
    with pytest.raises(TypeError):
        ra.nn.avg_pool2d(x, 3.0)
    with pytest.raises(ValueError):
        ra.nn.avg_pool2d(x, 3, padding=2)
    with pytest.raises(ValueError):
        ra.nn.avg_pool2d(x, 3, divisor_override=0)
    assert ra.nn.avg_pool2d(x, [3, 3]).shape == (1, 4, 2, 2)  # a list: no plan kept, the same answer


def test_a_misaligned_input_takes_single_channel_threads(fake_device):
    base = fake_device.array((2 * 9 * 9 * 16 + 1,), "float16")
    x = base[1:].reshape(2, 9, 9, 16)
    ra.nn.max_pool2d(x, 3, 2, 1, layout="NHWC")
    assert "max2d" not in fake_device.launches[-1].name
