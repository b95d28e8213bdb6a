"""Argument normalization shared by the NumPy-named façade functions.

One rule for host data: rocarray functions take device arrays (``cupy.ndarray``). A NumPy array or
other host object passed where an array is expected raises ``TypeError`` naming the argument and
pointing at ``ra.asarray`` (the rule CuPy follows), so no host-to-device copy ever happens silently.
Python scalars are accepted where NumPy accepts them.
"""

import numbers
import operator

import numpy

from rocarray._core import backend


def is_device_array(x):
    """Whether ``x`` is a ``cupy.ndarray`` (``False`` without CuPy)."""
    cupy = backend.cupy_module()
    return cupy is not None and isinstance(x, cupy.ndarray)


def as_device_array(x, name, allow_scalar=False):
    """Return ``x`` as a device array, or raise ``TypeError`` naming ``name``.

    Parameters
    ----------
    x : object
        The argument.
    name : str
        Its name in the public signature, for the message.
    allow_scalar : bool
        Accept Python/NumPy scalars, returned as 0-d device arrays.
    """
    cupy = backend.cupy()
    if isinstance(x, cupy.ndarray):
        return x
    if allow_scalar and isinstance(x, (numbers.Number, numpy.generic)):
        return cupy.asarray(x)
    if isinstance(x, numpy.ndarray):
        raise TypeError(
            f"argument '{name}' is a host (NumPy) array; move it to the GPU with ra.asarray() first"
        )
    raise TypeError(f"argument '{name}' must be a device array (cupy.ndarray), not {type(x).__name__}")


def normalize_axis(axis, ndim):
    """``axis`` as a non-negative int below ``ndim``, as NumPy normalizes it.

    Raises ``numpy.exceptions.AxisError`` when out of range and ``TypeError`` for a non-integer.
    """
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted as an integer") from None
    if not -ndim <= axis < ndim:
        raise numpy.exceptions.AxisError(axis, ndim)
    return axis % ndim
