"""Convolutions with ``torch.nn.functional``'s names and argument rules, and the explicit
gradients of ``torch.nn.grad`` (``conv2d_input``, ``conv2d_weight``, ...).

Each function checks and normalizes its arguments once (dtypes, shapes, torch's padding rules
including ``'same'`` and ``'valid'``), builds a :class:`rocarray.miopen.ConvProblem` and makes one
library call (:func:`rocarray.miopen.convolution_forward` and the two backward functions), which
picks the algorithm (see :func:`rocarray.miopen.find_mode`).
"""

import operator

from rocarray._core import backend
from rocarray.miopen import _conv as _library
from rocarray.miopen import _fold
from rocarray.miopen._conv_epilogue import FUSED_ACTIVATIONS
from rocarray.miopen._conv_problem import ConvProblem, output_length
from rocarray.nn import _args


def _contiguous(x):
    return x if x.flags.c_contiguous else backend.cupy().ascontiguousarray(x)


def _groups(groups, fn):
    try:
        groups = operator.index(groups)
    except TypeError:
        raise TypeError(f"{fn}: 'groups' must be an int, got {groups!r}") from None
    if groups <= 0:
        raise ValueError(f"{fn}: non-positive groups is not supported (groups={groups})")
    return groups


def _padding(padding, nd, filter_size, stride, dilation, fn):
    """``(before, after)`` per axis from torch's ``padding`` argument."""
    if isinstance(padding, str):
        if padding == "valid":
            return (0,) * nd, (0,) * nd
        if padding != "same":
            raise ValueError(f"{fn}: Invalid padding string {padding!r}, should be one of ('valid', 'same')")
        if any(s != 1 for s in stride):
            raise ValueError(f"{fn}: padding='same' is not supported for strided convolutions")
        # torch's rule: the total d (f - 1) split evenly, the odd one after
        total = tuple(d * (f - 1) for d, f in zip(dilation, filter_size))
        before = tuple(t // 2 for t in total)
        return before, tuple(t - b for t, b in zip(total, before))
    pad = _args.per_axis(padding, nd, "padding", fn, minimum=0)
    return pad, pad


def _problem(fn, nd, direction, x_shape, w_shape, dtype, stride, padding, dilation, groups, layout):
    """The :class:`ConvProblem` of a call (shapes batched, in ``layout``), checked like torch."""
    stride = _args.per_axis(stride, nd, "stride", fn, minimum=1)
    dilation = _args.per_axis(dilation, nd, "dilation", fn, minimum=1)
    groups = _groups(groups, fn)
    channels_last = layout == "NHWC"
    n, c, size = (x_shape[0], x_shape[-1], x_shape[1:-1]) if channels_last else (x_shape[0], x_shape[1], x_shape[2:])
    k, cpg, flt = (w_shape[0], w_shape[-1], w_shape[1:-1]) if channels_last else (w_shape[0], w_shape[1], w_shape[2:])
    if k % groups:
        raise ValueError(f"{fn}: Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                         f"but got weight of size {list(w_shape)} instead")
    if cpg * groups != c:
        raise ValueError(f"{fn}: Given groups={groups}, weight of size {list(w_shape)}, expected input{list(x_shape)} "
                         f"to have {cpg * groups} channels, but got {c} channels instead")
    before, after = _padding(padding, nd, flt, stride, dilation, fn)
    padded = tuple(i + b + a for i, b, a in zip(size, before, after))
    reach = tuple(d * (f - 1) + 1 for d, f in zip(dilation, flt))
    if any(p < r for p, r in zip(padded, reach)):
        raise ValueError(f"{fn}: Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                         f"Kernel size: ({' x '.join(map(str, reach))}). Kernel size can't be greater than actual "
                         "input size")
    out = tuple(output_length(i, f, s, b, a, d) for i, f, s, b, a, d in zip(size, flt, stride, before, after, dilation))
    return ConvProblem(direction, n, c, k, tuple(size), tuple(flt), out, stride, before, dilation, groups, dtype,
                       layout)


def _batched(x, nd, name, fn):
    """``(x with a batch axis, whether one was added)``: torch takes unbatched tensors too."""
    if x.ndim == nd + 1:
        return x.reshape((1,) + x.shape), True
    if x.ndim != nd + 2:
        raise ValueError(f"{fn}: Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) {name} to {fn}, but got "
                         f"{name} of size: {list(x.shape)}")
    return x, False


def _weight(weight, nd, fn):
    weight = _args.tensor(weight, "weight", fn)
    if weight.ndim != nd + 2:
        raise ValueError(f"{fn}: Expected {nd + 2}D weight, but got weight of size: {list(weight.shape)}")
    return weight


def _algo(algo, fn):
    if algo is not None and not isinstance(algo, str):
        raise TypeError(f"{fn}: 'algo' must be an algorithm name or None, got {algo!r}")
    return algo


def _forward(fn, nd, input, weight, bias, stride, padding, dilation, groups, layout, activation, algo):
    layout = _args.layout(layout, fn)
    x = _args.tensor(input, "input", fn)
    x, unbatched = _batched(x, nd, "input", fn)
    weight = _weight(weight, nd, fn)
    if bias is not None:
        bias = _args.tensor(bias, "bias", fn)
    _args.same_dtype(fn, input=x, weight=weight, bias=bias)
    if activation is not None and activation not in FUSED_ACTIVATIONS:
        raise ValueError(f"{fn}: activation must be None or one of {FUSED_ACTIVATIONS}, got {activation!r}")
    algo = _algo(algo, fn)
    problem = _problem(fn, nd, "forward", x.shape, weight.shape, x.dtype, stride, padding, dilation, groups, layout)
    if bias is not None and bias.shape != (problem.k,):
        raise ValueError(f"{fn}: Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with "
                         f"{problem.k} elements, but got bias of size {list(bias.shape)} instead")
    y = _library.convolution_forward(problem, _contiguous(x), _contiguous(weight),
                                     bias=None if bias is None else _contiguous(bias), activation=activation,
                                     algo=algo)
    return y[0] if unbatched else y


def _size(value, length, name, fn):
    try:
        size = tuple(operator.index(v) for v in value)
    except TypeError:
        raise TypeError(f"{fn}: '{name}' must be a sequence of ints, got {value!r}") from None
    if len(size) != length or any(v < 0 for v in size):
        raise ValueError(f"{fn}: '{name}' must hold {length} sizes >= 0 (the shape of the tensor), got {value!r}")
    return size


def _check_grad_output(problem, dy, unbatched, fn):
    want = problem.y_shape()
    if tuple(dy.shape) != want:
        shown = list(want[1:]) if unbatched else list(want)
        got = list(dy.shape[1:]) if unbatched else list(dy.shape)
        raise ValueError(f"{fn}: expected grad_output of size {shown}, got {got}")


def _input_grad(fn, nd, input_size, weight, grad_output, stride, padding, dilation, groups, layout, algo):
    layout = _args.layout(layout, fn)
    dy = _args.tensor(grad_output, "grad_output", fn)
    dy, unbatched = _batched(dy, nd, "grad_output", fn)
    weight = _weight(weight, nd, fn)
    _args.same_dtype(fn, grad_output=dy, weight=weight)
    algo = _algo(algo, fn)
    size = _size(input_size, nd + 1 if unbatched else nd + 2, "input_size", fn)
    x_shape = (1,) + size if unbatched else size
    problem = _problem(fn, nd, "backward_data", x_shape, weight.shape, dy.dtype, stride, padding, dilation, groups,
                       layout)
    _check_grad_output(problem, dy, unbatched, fn)
    dx = _library.convolution_backward_data(problem, _contiguous(dy), _contiguous(weight), algo=algo)
    return dx[0] if unbatched else dx


def _weight_grad(fn, nd, input, weight_size, grad_output, stride, padding, dilation, groups, layout, algo):
    layout = _args.layout(layout, fn)
    x = _args.tensor(input, "input", fn)
    x, unbatched = _batched(x, nd, "input", fn)
    dy = _args.tensor(grad_output, "grad_output", fn)
    dy, dy_unbatched = _batched(dy, nd, "grad_output", fn)
    if dy_unbatched != unbatched:
        raise ValueError(f"{fn}: input and grad_output must both be batched or both unbatched")
    _args.same_dtype(fn, input=x, grad_output=dy)
    algo = _algo(algo, fn)
    w_shape = _size(weight_size, nd + 2, "weight_size", fn)
    problem = _problem(fn, nd, "backward_weights", x.shape, w_shape, x.dtype, stride, padding, dilation, groups,
                       layout)
    _check_grad_output(problem, dy, unbatched, fn)
    return _library.convolution_backward_weights(problem, _contiguous(x), _contiguous(dy), algo=algo)


_FORWARD_DOC = """{nd}-D convolution (cross-correlation, like ``torch.nn.functional.{fn}``).

Parameters
----------
input : cupy.ndarray
    ``(N, C, {spatial})`` (``layout='NCHW'``) or ``(N, {spatial}, C)`` (``'NHWC'``); unbatched
    ``(C, {spatial})`` / ``({spatial}, C)`` too. float16, bfloat16, float32 or float64 (16-bit
    data sums in float32).
weight : cupy.ndarray
    ``(K, C / groups, {filt})`` (``'NCHW'``) or ``(K, {filt}, C / groups)`` (``'NHWC'``), input's dtype.
bias : cupy.ndarray, optional
    ``(K,)``, input's dtype.
stride, dilation : int or tuple of {nd} ints, optional
    ``>= 1``.
padding : int, tuple of {nd} ints, 'valid' or 'same', optional
    Zeros added before and after each spatial axis. ``'same'`` (stride 1 only) keeps the size,
    the odd element of an even total going after, like torch.
groups : int, optional
    Input and output channels split into this many groups (``groups == C``: depthwise).
layout : {{'NCHW', 'NHWC'}}, keyword-only
    Channels first or channels last (for every number of spatial axes).
activation : {{None, 'relu', 'leaky_relu', 'gelu', 'silu', 'sigmoid', 'tanh'}}, keyword-only
    Applied to the output in the same call (fused where the algorithm can; leaky_relu with slope
    0.01; gelu in the erf form).
algo : str, keyword-only, optional
    Force one algorithm (:func:`rocarray.miopen.conv_algorithms` lists those that apply); default:
    the choice of the find mode (:func:`find_mode`).

Returns
-------
cupy.ndarray
    ``(N, K, {outs})`` or ``(N, {outs}, K)``, input's dtype.

Raises
------
TypeError
    Non-device tensors, unsupported or mixed dtypes.
ValueError
    Wrong ranks or channel counts, bad stride/padding/dilation/groups (torch's messages), an
    unknown activation, or an ``algo`` that cannot run the problem.

See Also
--------
{fn}_input, {fn}_weight : the gradients.
"""

_INPUT_DOC = """Gradient of ``{fn}`` with respect to its input (``torch.nn.grad.{fn}_input``).

Parameters
----------
input_size : sequence of int
    Shape of the input (in ``layout``).
weight : cupy.ndarray
    The forward's weights.
grad_output : cupy.ndarray
    Gradient of the forward's output, weight's dtype.
stride, padding, dilation, groups : optional
    The forward's (see :func:`{fn}`).
layout : {{'NCHW', 'NHWC'}}, keyword-only
algo : str, keyword-only, optional
    Force one algorithm.

Returns
-------
cupy.ndarray
    ``input_size``-shaped gradient in grad_output's dtype.

Raises
------
TypeError, ValueError
    As :func:`{fn}`; also when grad_output's shape is not the forward's output shape.
"""

_WEIGHT_DOC = """Gradient of ``{fn}`` with respect to its weights (``torch.nn.grad.{fn}_weight``).

Parameters
----------
input : cupy.ndarray
    The forward's input.
weight_size : sequence of int
    Shape of the weights (in ``layout``).
grad_output : cupy.ndarray
    Gradient of the forward's output, input's dtype.
stride, padding, dilation, groups : optional
    The forward's (see :func:`{fn}`).
layout : {{'NCHW', 'NHWC'}}, keyword-only
algo : str, keyword-only, optional
    Force one algorithm.

Returns
-------
cupy.ndarray
    ``weight_size``-shaped gradient in input's dtype.

Raises
------
TypeError, ValueError
    As :func:`{fn}`; also when grad_output's shape is not the forward's output shape.
"""


def _doc(template, nd, fn):
    spatial = ", ".join(("D", "H", "W")[3 - nd:])
    filt = ", ".join(("kD", "kH", "kW")[3 - nd:])
    outs = ", ".join(("OD", "OH", "OW")[3 - nd:])
    return template.format(nd=nd, fn=fn, spatial=spatial, filt=filt, outs=outs)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, layout="NCHW", activation=None,
           algo=None):
    return _forward("conv1d", 1, input, weight, bias, stride, padding, dilation, groups, layout, activation, algo)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, layout="NCHW", activation=None,
           algo=None):
    return _forward("conv2d", 2, input, weight, bias, stride, padding, dilation, groups, layout, activation, algo)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, layout="NCHW", activation=None,
           algo=None):
    return _forward("conv3d", 3, input, weight, bias, stride, padding, dilation, groups, layout, activation, algo)


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1, *, layout="NCHW",
                 algo=None):
    return _input_grad("conv1d_input", 1, input_size, weight, grad_output, stride, padding, dilation, groups, layout,
                       algo)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1, *, layout="NCHW",
                 algo=None):
    return _input_grad("conv2d_input", 2, input_size, weight, grad_output, stride, padding, dilation, groups, layout,
                       algo)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1, *, layout="NCHW",
                 algo=None):
    return _input_grad("conv3d_input", 3, input_size, weight, grad_output, stride, padding, dilation, groups, layout,
                       algo)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1, *, layout="NCHW",
                  algo=None):
    return _weight_grad("conv1d_weight", 1, input, weight_size, grad_output, stride, padding, dilation, groups,
                        layout, algo)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1, *, layout="NCHW",
                  algo=None):
    return _weight_grad("conv2d_weight", 2, input, weight_size, grad_output, stride, padding, dilation, groups,
                        layout, algo)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1, *, layout="NCHW",
                  algo=None):
    return _weight_grad("conv3d_weight", 3, input, weight_size, grad_output, stride, padding, dilation, groups,
                        layout, algo)


for _nd in (1, 2, 3):
    globals()[f"conv{_nd}d"].__doc__ = _doc(_FORWARD_DOC, _nd, f"conv{_nd}d")
    globals()[f"conv{_nd}d_input"].__doc__ = _doc(_INPUT_DOC, _nd, f"conv{_nd}d")
    globals()[f"conv{_nd}d_weight"].__doc__ = _doc(_WEIGHT_DOC, _nd, f"conv{_nd}d")
del _nd


def fold_batchnorm(weight, bias, running_mean, running_var, bn_weight, bn_bias, eps=1e-5, *, layout="NCHW"):
    """Fold an inference batch norm into the convolution before it:
    ``batch_norm(conv(x, weight, bias)) == conv(x, weight', bias')``.

    Parameters
    ----------
    weight : cupy.ndarray
        Convolution weights of 1-3 spatial axes in ``layout`` (output channels first either way).
    bias : cupy.ndarray or None
        The convolution's bias, ``(K,)`` (None: zeros).
    running_mean, running_var : cupy.ndarray
        The batch norm's running statistics, ``(K,)``.
    bn_weight, bn_bias : cupy.ndarray or None
        The batch norm's affine weight and bias, ``(K,)`` (None: ones and zeros).
    eps : float, optional
        Added to the variance.
    layout : {'NCHW', 'NHWC'}, keyword-only
        The weights' layout (``(K, C/g, *k)`` or ``(K, *k, C/g)``).

    Returns
    -------
    tuple of cupy.ndarray
        ``(weight', bias')`` in weight's dtype and layout: ``weight * s`` and
        ``(bias - mean) * s + bn_bias`` with ``s = bn_weight / sqrt(running_var + eps)`` per output
        channel, computed in float32 (float64 for float64 weights).

    Raises
    ------
    TypeError
        Non-device tensors, unsupported or mixed dtypes.
    ValueError
        Weights of other than 3 to 5 dimensions, vectors of other than K elements, a negative eps.
    """
    fn = "fold_batchnorm"
    _args.layout(layout, fn)
    weight = _args.tensor(weight, "weight", fn, ndim=(3, 4, 5))
    vectors = {"bias": bias, "running_mean": running_mean, "running_var": running_var, "bn_weight": bn_weight,
               "bn_bias": bn_bias}
    for name, v in vectors.items():
        if v is None and name in ("running_mean", "running_var"):
            raise TypeError(f"{fn}: '{name}' is required")
        if v is not None:
            v = vectors[name] = _args.tensor(v, name, fn)
            if v.shape != (weight.shape[0],):
                raise ValueError(f"{fn}: '{name}' must have shape ({weight.shape[0]},) (the output channels), "
                                 f"got {tuple(v.shape)}")
    _args.same_dtype(fn, weight=weight, **vectors)
    if not eps >= 0:
        raise ValueError(f"{fn}: eps must be >= 0, got {eps!r}")
    return _fold.fold_batchnorm(_contiguous(weight), vectors["bias"], vectors["running_mean"],
                                vectors["running_var"], vectors["bn_weight"], vectors["bn_bias"], float(eps))
