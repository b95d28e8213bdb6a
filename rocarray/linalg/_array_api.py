"""The ``numpy.linalg`` names that NumPy 2 added for the Array API standard: ``diagonal``,
``trace``, ``matmul``, ``outer``, ``tensordot``, ``vecdot``, ``vector_norm``, ``matrix_norm``
(CuPy lacks all but ``matmul``, whose ``cupy.linalg`` spelling takes ``*args``).

Each has NumPy 2.x's signature (the standard's: positional-only arrays, keyword-only options) and
works on the last two axes (matrices) or along one axis (vectors), batched over the others. The
arithmetic runs on rocarray's façade functions (``ra.sum``, ``ra.outer``, ``ra.tensordot``,
:func:`rocarray.linalg.norm`).
"""

import operator

from rocarray._core import backend
from rocarray._core.args import as_device_array, normalize_axes
from rocarray._numpy import array_api as _api
from rocarray._numpy import matrix_products as _products
from rocarray.linalg._norm import norm as _norm


def _matrices(x, name):
    x = as_device_array(x, name)
    if x.ndim < 2:
        raise ValueError(f"{name} must be at least 2-D (a stack of matrices), got {x.ndim}-D")
    return x


def diagonal(x, /, *, offset=0):
    """The ``offset``-th diagonal of each matrix (``numpy.linalg.diagonal``).

    Parameters
    ----------
    x : cupy.ndarray
        ``(..., M, N)``.
    offset : int, optional
        Positive: above the main diagonal.

    Returns
    -------
    cupy.ndarray
        ``(..., K)``, a read-only-in-spirit view of ``x`` (as ``numpy.diagonal``).
    """
    x = _matrices(x, "x")
    return x.diagonal(operator.index(offset), -2, -1)


def trace(x, /, *, offset=0, dtype=None):
    """Sum of the ``offset``-th diagonal of each matrix (``numpy.linalg.trace``).

    Parameters
    ----------
    x : cupy.ndarray
        ``(..., M, N)``, numeric.
    offset : int, optional
    dtype : data-type, optional
        Accumulator and result dtype; default ``ra.sum``'s (NumPy's) rule.

    Returns
    -------
    cupy.ndarray
        ``(...)``.
    """
    x = _matrices(x, "x")
    return _products.trace(x, offset=operator.index(offset), axis1=-2, axis2=-1, dtype=dtype)


def matmul(x1, x2, /):
    """Matrix product (``numpy.linalg.matmul``; ``ra.matmul`` on rocBLAS GEMM).

    Parameters
    ----------
    x1, x2 : cupy.ndarray
        At least 1-D, numeric; batch dimensions broadcast.

    Returns
    -------
    cupy.ndarray
    """
    return _products.matmul(x1, x2)


def outer(x1, x2, /):
    """Outer product of two vectors (``numpy.linalg.outer``).

    Parameters
    ----------
    x1, x2 : cupy.ndarray
        1-D, numeric.

    Returns
    -------
    cupy.ndarray
        ``(x1.size, x2.size)``.

    Raises
    ------
    ValueError
        When an operand is not 1-D.
    """
    for name, v in (("x1", x1), ("x2", x2)):
        v = as_device_array(v, name)
        if v.ndim != 1:
            raise ValueError(f"Input arrays must be one-dimensional, but {name} is {v.ndim}-D")
    return _products.outer(x1, x2)


def tensordot(x1, x2, /, *, axes=2):
    """Tensor contraction over ``axes`` (``numpy.linalg.tensordot``; ``ra.tensordot``).

    Parameters
    ----------
    x1, x2 : cupy.ndarray
    axes : int or (sequence of int, sequence of int), optional

    Returns
    -------
    cupy.ndarray
    """
    return _products.tensordot(x1, x2, axes=axes)


def vecdot(x1, x2, /, *, axis=-1):
    """Vector dot product along ``axis`` (``numpy.linalg.vecdot``; ``ra.vecdot``).

    Parameters
    ----------
    x1, x2 : cupy.ndarray
    axis : int, optional

    Returns
    -------
    cupy.ndarray
    """
    return _api.vecdot(x1, x2, axis=axis)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):  # noqa: A002 (NumPy's name)
    """Vector norm over ``axis`` (``numpy.linalg.vector_norm``).

    Parameters
    ----------
    x : cupy.ndarray
    axis : None, int or tuple of int, optional
        None: all elements form one vector; a tuple: those axes together form the vectors.
    keepdims : bool, optional
    ord : int, float, inf or -inf, optional
        Default 2 (0 counts nonzeros).

    Returns
    -------
    cupy.ndarray
        Real floating (float64 for integer and bool input).
    """
    x = as_device_array(x, "x")
    cupy = backend.cupy()
    ndim = x.ndim
    axes = tuple(range(ndim)) if axis is None else normalize_axes(axis, ndim)
    rest = [ax for ax in range(ndim) if ax not in axes]
    # the chosen axes, last and flattened into one, form the vectors
    moved = cupy.transpose(x, rest + list(axes)) if ndim else x.reshape(1)
    flat = moved.reshape(tuple(x.shape[ax] for ax in rest) + (-1,))
    result = _norm(flat, ord=ord, axis=-1)
    if keepdims:
        result = result.reshape(tuple(1 if ax in axes else x.shape[ax] for ax in range(ndim)))
    return result


def matrix_norm(x, /, *, keepdims=False, ord="fro"):  # noqa: A002 (NumPy's name)
    """Matrix norm of each matrix (``numpy.linalg.matrix_norm``).

    Parameters
    ----------
    x : cupy.ndarray
        ``(..., M, N)``.
    keepdims : bool, optional
    ord : {'fro', 'nuc', 1, -1, 2, -2, inf, -inf}, optional

    Returns
    -------
    cupy.ndarray
        ``(...)`` (``(..., 1, 1)`` with ``keepdims``); real floating.
    """
    x = _matrices(x, "x")
    return _norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-element vectors (``numpy.linalg.cross``).

    Parameters
    ----------
    x1, x2 : cupy.ndarray
        Numeric arrays of size 3 along ``axis``; the other dimensions broadcast.
    axis : int, optional
        The axis holding the vectors, of each input (default the last).

    Returns
    -------
    cupy.ndarray
        The broadcast shape, dtype by NumPy's promotion.

    Raises
    ------
    ValueError
        A 0-d input, or a size other than 3 along ``axis``.
    """
    x1 = as_device_array(x1, "x1")
    x2 = as_device_array(x2, "x2")
    axis = operator.index(axis)
    for name, x in (("x1", x1), ("x2", x2)):
        if x.ndim == 0:
            raise ValueError(f"cross: {name} must be at least 1-D")
        if not -x.ndim <= axis < x.ndim or x.shape[axis] != 3:
            raise ValueError(f"cross: {name} must have size 3 along axis {axis}, got shape {x.shape}")
    return backend.cupy().cross(x1, x2, axisa=axis, axisb=axis, axisc=axis)
