"""The one place user arguments are normalized: device arrays, axes, integers.

The rules, used by the façade and the libraries alike:

* **Arrays**: rocarray functions take device arrays (``cupy.ndarray``). A NumPy array or other host
  object passed where an array is expected raises ``TypeError`` naming the argument and pointing at
  ``ra.asarray``, so no host-to-device copy ever happens silently (CuPy's rule). Python and NumPy
  scalars are accepted where NumPy accepts them.
* **Axes**: an axis is an integer in ``[-ndim, ndim)``; anything else raises NumPy's errors
  (``numpy.exceptions.AxisError`` out of range, ``TypeError`` for a non-integer, ``ValueError`` for
  a repeated axis where repeats are not allowed).
* **Integers**: sizes, counts and increments go through ``operator.index`` (``TypeError`` for a
  float or another non-integer).
"""

import numbers
import operator

import numpy

from rocarray._core import backend


def as_device_array(x, name, allow_scalar=False):
    """``x`` as a device array, or ``TypeError`` naming ``name``.

    Parameters
    ----------
    x : object
        The argument.
    name : str
        Its name in the public signature, for the message.
    allow_scalar : bool
        Accept Python/NumPy scalars, returned as 0-d device arrays.

    Returns
    -------
    cupy.ndarray

    Raises
    ------
    TypeError
        For a host array or another non-device object.
    NoDeviceError
        Without CuPy.
    """
    cupy = backend.cupy()
    if isinstance(x, cupy.ndarray):
        return x
    if allow_scalar and isinstance(x, (numbers.Number, numpy.generic)):
        backend.device_info()  # NoDeviceError, before CuPy's own error, without a GPU
        return cupy.asarray(x)
    if isinstance(x, numpy.ndarray):
        raise TypeError(
            f"argument '{name}' is a host (NumPy) array; move it to the GPU with ra.asarray() first"
        )
    raise TypeError(f"argument '{name}' must be a device array (cupy.ndarray), not {type(x).__name__}")


def device_array(x, name, where, dtypes=None):
    """``x`` if it is a ``cupy.ndarray`` (of one of ``dtypes`` when given), else ``TypeError``.

    The check library entry points make on the arrays they are given; messages start with
    ``where`` (the library function, e.g. ``'prim scan'`` or ``'rocblas.axpy'``).

    Parameters
    ----------
    x : object
        The argument.
    name : str
        Its name, for the message.
    where : str
        The message prefix.
    dtypes : container of numpy.dtype, optional
        The dtypes the kernels take.

    Returns
    -------
    cupy.ndarray

    Raises
    ------
    TypeError
        A host array, a non-array, or a dtype outside ``dtypes``.
    """
    if not isinstance(x, backend.cupy().ndarray):
        if isinstance(x, numpy.ndarray):
            raise TypeError(f"{where}: {name} is a host (NumPy) array; move it to the device with ra.asarray() first")
        raise TypeError(f"{where}: {name} must be a cupy.ndarray, not {type(x).__name__}")
    if dtypes is not None and x.dtype not in dtypes:
        raise TypeError(f"{where}: unsupported dtype {x.dtype.name}")
    return x


def normalize_axis(axis, ndim):
    """``axis`` as a non-negative int below ``ndim``, as NumPy normalizes it.

    Raises
    ------
    numpy.exceptions.AxisError
        Out of range.
    TypeError
        Not an integer.
    """
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted as an integer") from None
    if not -ndim <= axis < ndim:
        raise numpy.exceptions.AxisError(axis, ndim)
    return axis % ndim


_ALL_AXES = tuple(tuple(range(n)) for n in range(65))


def normalize_axes(axis, ndim, *, sort=False, allow_duplicates=False):
    """``axis`` (None, an int or a sequence of ints) as a tuple of non-negative axes below ``ndim``.

    ``None`` means every axis. ``sort``: return the axes in increasing order (reductions, whose
    result does not depend on the order). NumPy's errors: ``AxisError`` out of range,
    ``TypeError`` for a non-integer, ``ValueError("duplicate value in 'axis'")`` for a repeat
    unless ``allow_duplicates``.

    Examples
    --------
    >>> normalize_axes((-1, 0), 3), normalize_axes(None, 2), normalize_axes(1, 2)
    ((2, 0), (0, 1), (1,))
    """
    if axis is None:
        return _ALL_AXES[ndim] if ndim < len(_ALL_AXES) else tuple(range(ndim))
    if type(axis) is int and -ndim <= axis < ndim:  # the common case, without the general checks
        return (axis % ndim,)
    if isinstance(axis, (tuple, list)):
        axes = tuple(normalize_axis(a, ndim) for a in axis)
    else:
        axes = (normalize_axis(axis, ndim),)
    if not allow_duplicates and len(set(axes)) != len(axes):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(axes)) if sort else axes


def as_int(value, name, where):
    """``value`` as an ``int`` (``operator.index``), or ``TypeError`` naming it.

    Examples
    --------
    >>> as_int(numpy.int64(3), "n", "rocblas.axpy")
    3
    """
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{where}: {name} must be an integer, not {type(value).__name__}") from None
