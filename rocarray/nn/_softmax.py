"""``softmax`` and ``log_softmax`` along any dimension, and their backward functions, with
``torch.nn.functional``'s names and arguments."""

import warnings

import numpy

from rocarray._core import args, backend
from rocarray.miopen import _softmax
from rocarray.nn import _args


def _dim(dim, ndim, fn):
    if dim is None:
        # torch's deprecated implicit choice
        warnings.warn(f"Implicit dimension choice for {fn} has been deprecated. Change the call to include dim=X "
                      "as an argument.", UserWarning, stacklevel=3)
        return 0 if ndim in (0, 1, 3) else 1
    return args.normalize_axis(dim, max(ndim, 1))


def _prepared(x):
    """The tensor with at least one axis, C-contiguous."""
    x = x.reshape(1) if x.ndim == 0 else x
    return x if x.flags.c_contiguous else backend.cupy().ascontiguousarray(x)


def _forward(fn, input, dim, dtype, log):
    if dtype is None:
        x = _args.tensor(input, "input", fn)
    else:
        # torch casts first, so any numeric input goes with a floating dtype
        want = numpy.dtype(dtype)
        if want not in _args.float_dtypes():
            names = ", ".join(d.name for d in _args.float_dtypes())
            raise TypeError(f"{fn}: dtype {want.name} is not supported; supported: {names}")
        x = args.as_device_array(input, "input")
        x = x.astype(want, copy=False)
    axis = _dim(dim, x.ndim, fn)
    return _softmax.softmax_forward(_prepared(x), axis, log=log).reshape(x.shape)


def _backward(fn, grad_output, output, dim, log):
    g = _args.tensor(grad_output, "grad_output", fn)
    y = _args.tensor(output, "output", fn)
    _args.same_dtype(fn, grad_output=g, output=y)
    if g.shape != y.shape:
        raise ValueError(f"{fn}: 'grad_output' has shape {tuple(g.shape)} but 'output' has shape {tuple(y.shape)}")
    axis = args.normalize_axis(dim, max(y.ndim, 1))
    return _softmax.softmax_backward(_prepared(g), _prepared(y), axis, log=log).reshape(y.shape)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Softmax along ``dim``: ``exp(x - max) / sum(exp(x - max))`` (numerically stable).

    Parameters
    ----------
    input : cupy.ndarray
        float16, bfloat16, float32 or float64 tensor of any shape.
    dim : int
        The axis (negative counts from the end). None picks torch's deprecated implicit axis
        with a warning (0 for 0-, 1- and 3-D tensors, else 1).
    _stacklevel : int, optional
        Accepted for torch's signature; unused.
    dtype : dtype, optional
        Cast the input to this floating dtype first (the result's dtype); the input may then
        have any numeric dtype.

    Returns
    -------
    cupy.ndarray
        Same shape; 16-bit data is reduced in float32. A slice holding NaN gives NaN.

    Raises
    ------
    TypeError
        For a host array or an unsupported dtype.
    numpy.exceptions.AxisError
        For ``dim`` out of range (an ``IndexError`` as in torch).
    """
    return _forward("softmax", input, dim, dtype, False)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Log-softmax along ``dim``: ``x - max - log(sum(exp(x - max)))``.

    Parameters
    ----------
    input : cupy.ndarray
        Floating tensor (see :func:`softmax`).
    dim : int
        The axis (see :func:`softmax`).
    _stacklevel : int, optional
        Accepted for torch's signature; unused.
    dtype : dtype, optional
        Cast the input to this floating dtype first.

    Returns
    -------
    cupy.ndarray
    """
    return _forward("log_softmax", input, dim, dtype, True)


def softmax_backward(grad_output, output, dim):
    """Gradient of :func:`softmax` from its output: ``output * (grad_output - sum(grad_output *
    output, dim))``.

    Parameters
    ----------
    grad_output : cupy.ndarray
        Gradient of the output.
    output : cupy.ndarray
        The forward's output (same shape and dtype).
    dim : int
        The forward's axis.

    Returns
    -------
    cupy.ndarray
        The gradient of the input, in ``output``'s dtype.

    Raises
    ------
    TypeError
        For host arrays, another dtype, or two dtypes.
    ValueError
        For different shapes.
    """
    return _backward("softmax_backward", grad_output, output, dim, False)


def log_softmax_backward(grad_output, output, dim):
    """Gradient of :func:`log_softmax` from its output: ``grad_output - exp(output) *
    sum(grad_output, dim)``.

    Parameters
    ----------
    grad_output, output : cupy.ndarray
        As in :func:`softmax_backward` (``output``: the log-probabilities).
    dim : int

    Returns
    -------
    cupy.ndarray
    """
    return _backward("log_softmax_backward", grad_output, output, dim, True)
