"""Convolution forward and backward: the library entry points.

Each call takes a :class:`~rocarray.miopen.ConvProblem` and contiguous tensors in its layout,
picks an algorithm (forced by ``algo=``, else :mod:`rocarray.miopen._conv_find`'s choice: the
find-db's or the heuristic's, timed only when the find mode asks) and runs it. The forward's bias
and activation are fused by algorithms that can; after the others, one epilogue pass applies them
(:mod:`rocarray.miopen._conv_epilogue`). Nothing here checks the tensors: the
:mod:`rocarray.nn` façade does.
"""

from rocarray._core import backend, launch
from rocarray.miopen import _conv_epilogue, _conv_find


def _new(shape, dtype, like):
    with launch.on_device(like.data.device_id):
        return backend.cupy().empty(shape, dtype=dtype)


def convolution_forward(problem, x, w, *, bias=None, activation=None, algo=None, out=None):
    """``y = activation(conv(x, w) + bias)`` for a forward :class:`ConvProblem`.

    Parameters
    ----------
    problem : ConvProblem
        ``direction='forward'``; sizes, geometry, dtype and layout of the call.
    x, w : cupy.ndarray
        Contiguous input ``problem.x_shape()`` and weights ``problem.w_shape()`` of ``problem.dtype``.
    bias : cupy.ndarray, optional
        Contiguous vector of ``problem.k`` elements of the same dtype, added per output channel.
    activation : str, optional
        One of :data:`FUSED_ACTIVATIONS`, applied last (in float32 for 16-bit data, before the one
        rounding where the algorithm fuses it).
    algo : str, optional
        Run this algorithm (one of :func:`conv_algorithms`); default: the find mode's choice.
    out : cupy.ndarray, optional
        Contiguous ``problem.y_shape()`` output, written entirely; default: a new array.

    Returns
    -------
    cupy.ndarray
        ``y``.

    Raises
    ------
    ValueError
        When ``algo`` cannot run the problem (the message names those that can).
    """
    y = _new(problem.y_shape(), problem.dtype, x) if out is None else out
    algorithm = _conv_find.select(problem, algo, (x, w, y))
    if algorithm.fuses_epilogue:
        algorithm.run(problem, x, w, y, bias=bias, activation=activation)
    else:
        algorithm.run(problem, x, w, y)
        _conv_epilogue.apply(problem, y, bias, activation)
    return y


def convolution_backward_data(problem, dy, w, *, algo=None, out=None):
    """The input gradient ``dx`` of a convolution from ``dy`` and ``w``.

    Parameters
    ----------
    problem : ConvProblem
        ``direction='backward_data'``.
    dy, w : cupy.ndarray
        Contiguous output gradient ``problem.y_shape()`` and weights ``problem.w_shape()``.
    algo : str, optional
        Run this algorithm; default: the find mode's choice.
    out : cupy.ndarray, optional
        Contiguous ``problem.x_shape()`` output, written entirely; default: a new array.

    Returns
    -------
    cupy.ndarray
        ``dx`` in the problem's dtype and layout.

    Raises
    ------
    ValueError
        When ``algo`` cannot run the problem.
    """
    dx = _new(problem.x_shape(), problem.dtype, dy) if out is None else out
    _conv_find.select(problem, algo, (dx, w, dy)).run(problem, dx, w, dy)
    return dx


def convolution_backward_weights(problem, x, dy, *, algo=None, out=None):
    """The weight gradient ``dw`` of a convolution from ``x`` and ``dy``.

    Parameters
    ----------
    problem : ConvProblem
        ``direction='backward_weights'``.
    x, dy : cupy.ndarray
        Contiguous input ``problem.x_shape()`` and output gradient ``problem.y_shape()``.
    algo : str, optional
        Run this algorithm; default: the find mode's choice.
    out : cupy.ndarray, optional
        Contiguous ``problem.w_shape()`` output, written entirely; default: a new array.

    Returns
    -------
    cupy.ndarray
        ``dw`` in the problem's dtype and layout.

    Raises
    ------
    ValueError
        When ``algo`` cannot run the problem.
    """
    dw = _new(problem.w_shape(), problem.dtype, x) if out is None else out
    _conv_find.select(problem, algo, (x, dw, dy)).run(problem, x, dw, dy)
    return dw
