"""Activation functions and their backward functions with ``torch.nn.functional``'s names,
arguments and formulas (the backward ones follow aten's ``*_backward``: ``sigmoid_backward`` and
``tanh_backward`` take the forward's output, the others its input)."""

from rocarray._core import backend
from rocarray.miopen import _activation
from rocarray.nn import _args


def _contiguous(x):
    return x if x.flags.c_contiguous else backend.cupy().ascontiguousarray(x)


def _forward(fn, input, mode, inplace=False, alpha=0.0, beta=0.0):
    x = _args.tensor(input, "input", fn)
    xc = _contiguous(x)
    out = xc if inplace else None
    y = _activation.activation_forward(xc, mode, alpha=alpha, beta=beta, out=out)
    if inplace and xc is not x:
        x[...] = y
        return x
    return y


def _backward(fn, grad_output, saved, saved_name, mode, alpha=0.0, beta=0.0):
    g = _args.tensor(grad_output, "grad_output", fn)
    z = _args.tensor(saved, saved_name, fn)
    _args.same_dtype(fn, grad_output=g, **{saved_name: z})
    if g.shape != z.shape:
        raise ValueError(f"{fn}: 'grad_output' has shape {tuple(g.shape)} but '{saved_name}' has shape "
                         f"{tuple(z.shape)}")
    return _activation.activation_backward(_contiguous(g), _contiguous(z), mode, alpha=alpha, beta=beta)


def _gelu_mode(approximate, fn):
    if approximate not in ("none", "tanh"):
        raise ValueError(f"{fn}: approximate argument must be either none or tanh, got {approximate!r}")
    return "gelu" if approximate == "none" else "gelu_tanh"


def relu(input, inplace=False):
    """``max(input, 0)`` elementwise (NaN stays NaN).

    Parameters
    ----------
    input : cupy.ndarray
        float16, bfloat16, float32 or float64 tensor of any shape.
    inplace : bool, optional
        Write the result into ``input`` and return it.

    Returns
    -------
    cupy.ndarray
        Same shape and dtype; 16-bit data computed in float32.

    Raises
    ------
    TypeError
        For a host array or another dtype.
    """
    return _forward("relu", input, "relu", inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``input`` where positive, else ``negative_slope * input``.

    Parameters
    ----------
    input : cupy.ndarray
        Floating tensor (see :func:`relu`).
    negative_slope : float, optional
        Slope of the negative part.
    inplace : bool, optional
        Write the result into ``input``.

    Returns
    -------
    cupy.ndarray
    """
    return _forward("leaky_relu", input, "leaky_relu", inplace, float(negative_slope))


def elu(input, alpha=1.0, inplace=False):
    """``input`` where positive, else ``alpha * (exp(input) - 1)``.

    Parameters
    ----------
    input : cupy.ndarray
        Floating tensor (see :func:`relu`).
    alpha : float, optional
        Scale of the negative part.
    inplace : bool, optional
        Write the result into ``input``.

    Returns
    -------
    cupy.ndarray
    """
    return _forward("elu", input, "elu", inplace, float(alpha))


def sigmoid(input):
    """``1 / (1 + exp(-input))`` elementwise.

    Parameters
    ----------
    input : cupy.ndarray
        Floating tensor (see :func:`relu`).

    Returns
    -------
    cupy.ndarray
    """
    return _forward("sigmoid", input, "sigmoid")


def tanh(input):
    """Hyperbolic tangent elementwise.

    Parameters
    ----------
    input : cupy.ndarray
        Floating tensor (see :func:`relu`).

    Returns
    -------
    cupy.ndarray
    """
    return _forward("tanh", input, "tanh")


def gelu(input, approximate="none"):
    """Gaussian error linear unit: ``input * Phi(input)`` (``approximate='none'``: the erf form) or
    torch's tanh approximation (``'tanh'``).

    Parameters
    ----------
    input : cupy.ndarray
        Floating tensor (see :func:`relu`).
    approximate : {'none', 'tanh'}, optional
        Which formula.

    Returns
    -------
    cupy.ndarray

    Raises
    ------
    ValueError
        For another ``approximate``.
    """
    return _forward("gelu", input, _gelu_mode(approximate, "gelu"))


def silu(input, inplace=False):
    """``input * sigmoid(input)`` elementwise.

    Parameters
    ----------
    input : cupy.ndarray
        Floating tensor (see :func:`relu`).
    inplace : bool, optional
        Write the result into ``input``.

    Returns
    -------
    cupy.ndarray
    """
    return _forward("silu", input, "silu", inplace)


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * input)) / beta``, and ``input`` itself where ``beta * input > threshold``.

    Parameters
    ----------
    input : cupy.ndarray
        Floating tensor (see :func:`relu`).
    beta : float, optional
    threshold : float, optional

    Returns
    -------
    cupy.ndarray
    """
    return _forward("softplus", input, "softplus", False, float(beta), float(threshold))


def hardswish(input, inplace=False):
    """``input * clamp(input + 3, 0, 6) / 6`` elementwise.

    Parameters
    ----------
    input : cupy.ndarray
        Floating tensor (see :func:`relu`).
    inplace : bool, optional
        Write the result into ``input``.

    Returns
    -------
    cupy.ndarray
    """
    return _forward("hardswish", input, "hardswish", inplace)


def relu_backward(grad_output, input):
    """Gradient of :func:`relu`: ``grad_output`` where ``input > 0``, else 0.

    Parameters
    ----------
    grad_output : cupy.ndarray
        Gradient of the output.
    input : cupy.ndarray
        The forward's input (same shape and dtype).

    Returns
    -------
    cupy.ndarray
        The gradient of the input.

    Raises
    ------
    TypeError
        For host arrays, another dtype, or two dtypes.
    ValueError
        For different shapes.
    """
    return _backward("relu_backward", grad_output, input, "input", "relu")


def leaky_relu_backward(grad_output, input, negative_slope=0.01):
    """Gradient of :func:`leaky_relu` (arguments as in :func:`relu_backward`).

    Parameters
    ----------
    grad_output, input : cupy.ndarray
    negative_slope : float, optional

    Returns
    -------
    cupy.ndarray
    """
    return _backward("leaky_relu_backward", grad_output, input, "input", "leaky_relu", float(negative_slope))


def elu_backward(grad_output, input, alpha=1.0):
    """Gradient of :func:`elu` (arguments as in :func:`relu_backward`).

    Parameters
    ----------
    grad_output, input : cupy.ndarray
    alpha : float, optional

    Returns
    -------
    cupy.ndarray
    """
    return _backward("elu_backward", grad_output, input, "input", "elu", float(alpha))


def sigmoid_backward(grad_output, output):
    """Gradient of :func:`sigmoid` from its output: ``grad_output * (1 - output) * output``.

    Parameters
    ----------
    grad_output, output : cupy.ndarray
        Same shape and dtype.

    Returns
    -------
    cupy.ndarray
    """
    return _backward("sigmoid_backward", grad_output, output, "output", "sigmoid")


def tanh_backward(grad_output, output):
    """Gradient of :func:`tanh` from its output: ``grad_output * (1 - output**2)``.

    Parameters
    ----------
    grad_output, output : cupy.ndarray
        Same shape and dtype.

    Returns
    -------
    cupy.ndarray
    """
    return _backward("tanh_backward", grad_output, output, "output", "tanh")


def gelu_backward(grad_output, input, approximate="none"):
    """Gradient of :func:`gelu` (arguments as in :func:`relu_backward`).

    Parameters
    ----------
    grad_output, input : cupy.ndarray
    approximate : {'none', 'tanh'}, optional

    Returns
    -------
    cupy.ndarray
    """
    return _backward("gelu_backward", grad_output, input, "input", _gelu_mode(approximate, "gelu_backward"))


def silu_backward(grad_output, input):
    """Gradient of :func:`silu` (arguments as in :func:`relu_backward`).

    Parameters
    ----------
    grad_output, input : cupy.ndarray

    Returns
    -------
    cupy.ndarray
    """
    return _backward("silu_backward", grad_output, input, "input", "silu")


def softplus_backward(grad_output, input, beta=1.0, threshold=20.0):
    """Gradient of :func:`softplus` (arguments as in :func:`relu_backward`).

    Parameters
    ----------
    grad_output, input : cupy.ndarray
    beta, threshold : float, optional

    Returns
    -------
    cupy.ndarray
    """
    return _backward("softplus_backward", grad_output, input, "input", "softplus", float(beta), float(threshold))


def hardswish_backward(grad_output, input):
    """Gradient of :func:`hardswish` (arguments as in :func:`relu_backward`): 0 for inputs
    ``<= -3``, ``grad * (x / 3 + 1/2)`` between, ``grad`` for inputs ``>= 3`` (torch's boundaries).

    Parameters
    ----------
    grad_output, input : cupy.ndarray

    Returns
    -------
    cupy.ndarray
    """
    return _backward("hardswish_backward", grad_output, input, "input", "hardswish")
