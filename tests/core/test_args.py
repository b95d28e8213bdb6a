"""The argument normalizer (:mod:`rocarray._core.args`): NumPy's errors for axes, integers and
host arrays."""

import numpy as np
import pytest

from rocarray._core import args


@pytest.mark.parametrize("axis,ndim,expected", [(0, 1, 0), (-1, 3, 2), (np.int64(1), 2, 1), (2, 3, 2)])
def test_normalize_axis(axis, ndim, expected):
    assert args.normalize_axis(axis, ndim) == expected


@pytest.mark.parametrize("axis,ndim", [(3, 3), (-4, 3), (0, 0)])
def test_normalize_axis_out_of_range_is_numpys_axis_error(axis, ndim):
    with pytest.raises(np.exceptions.AxisError):
        args.normalize_axis(axis, ndim)
    with pytest.raises(np.exceptions.AxisError):
        np.lib.array_utils.normalize_axis_index(axis, ndim)


@pytest.mark.parametrize("axis", [1.0, "0", None, [0]])
def test_normalize_axis_needs_an_integer(axis):
    with pytest.raises(TypeError):
        args.normalize_axis(axis, 3)


def test_normalize_axes_forms():
    assert args.normalize_axes(None, 3) == (0, 1, 2)
    assert args.normalize_axes(-1, 3) == (2,)
    assert args.normalize_axes([2, -3], 3) == (2, 0)
    assert args.normalize_axes((2, 0), 3, sort=True) == (0, 2)
    assert args.normalize_axes((0, 0), 2, allow_duplicates=True) == (0, 0)
    assert args.normalize_axes(None, 70) == tuple(range(70))
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        args.normalize_axes((1, -1), 2)
    with pytest.raises(np.exceptions.AxisError):
        args.normalize_axes((0, 5), 2)
    with pytest.raises(TypeError):
        args.normalize_axes((0, 1.5), 2)


def test_as_int():
    assert args.as_int(np.int32(4), "n", "f") == 4
    with pytest.raises(TypeError, match="f: n must be an integer, not float"):
        args.as_int(4.0, "n", "f")


def test_host_arrays_are_type_errors_naming_the_argument():
    pytest.importorskip("cupy")
    with pytest.raises(TypeError, match="argument 'a' is a host"):
        args.as_device_array(np.ones(2), "a")
    with pytest.raises(TypeError, match="argument 'b' must be a device array"):
        args.as_device_array([1, 2], "b")
    with pytest.raises(TypeError, match="prim scan: x is a host"):
        args.device_array(np.ones(2), "x", "prim scan")
    with pytest.raises(TypeError, match="prim scan: y must be a cupy.ndarray, not list"):
        args.device_array([1], "y", "prim scan")
