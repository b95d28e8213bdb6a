"""Normalization in the style of ``torch.nn.functional``: batch, layer, group and instance norm,
with explicit backward functions.

Per-channel (or per-element) parameters, running statistics and the saved statistics are kept
in float32 for 16-bit inputs and in float64 for float64 inputs: parameters of another floating
dtype are converted once per call (running statistics are then updated through a converted copy
and written back in their own dtype). Gradients of weight and bias come back in weight's dtype
(the input's when there is no weight).
"""

import operator

import numpy

from rocarray import miopen
from rocarray._core import backend
from rocarray.nn import _args


def _acc(dtype):
    """The dtype of statistics and parameters: float64 for float64 data, float32 otherwise."""
    return numpy.dtype(numpy.float64) if dtype == numpy.float64 else numpy.dtype(numpy.float32)


def _contiguous(x):
    return x if x.flags.c_contiguous else backend.cupy().ascontiguousarray(x)


def _param(p, name, fn, size, acc):
    """An optional 1-D parameter of ``size`` elements as a contiguous ``acc`` array."""
    if p is None:
        return None
    p = _args.tensor(p, name, fn)
    if p.size != size or p.ndim != 1:
        raise ValueError(f"{fn}: {name} should contain {size} elements not {p.size}")
    return _contiguous(p.astype(acc, copy=False))


def _stats(v, name, fn, size, acc):
    """Saved statistics: any shape holding ``size`` elements, as a flat contiguous ``acc`` array."""
    v = _args.tensor(v, name, fn)
    if v.size != size:
        raise ValueError(f"{fn}: {name} should contain {size} elements not {v.size}")
    return _contiguous(v.astype(acc, copy=False)).reshape(size)


def _grads(dw, db, weight, dtype):
    """Gradients of weight and bias in weight's dtype (``dtype`` without weight)."""
    to = weight.dtype if weight is not None else dtype
    return (None if dw is None else dw.astype(to, copy=False)), (None if db is None else db.astype(to, copy=False))


def _float(value, name, fn):
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{fn}: {name} must be a number, got {value!r}") from None


# ------------------------------------------------------------------------------------------------
# batch norm
# ------------------------------------------------------------------------------------------------

def _bn_input(input, layout, fn):
    x = _args.tensor(input, "input", fn, ndim=(2, 3, 4, 5))
    layout = _args.layout(layout, fn)
    return _contiguous(x), layout, x.shape[_args.channel_axis(layout, x.ndim)]


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5, *,
               layout="NCHW", return_stats=False):
    """Batch normalization over the batch and spatial axes of each channel.

    Parameters
    ----------
    input : cupy.ndarray
        ``(N, C)``, or ``(N, C, *spatial)`` with 1 to 3 spatial axes (``layout='NCHW'``) or
        ``(N, *spatial, C)`` (``'NHWC'``); float16, bfloat16, float32 or float64.
    running_mean, running_var : cupy.ndarray or None
        ``(C,)`` floating arrays. ``training=True``: updated in place, if given, with
        ``(1 - momentum) r + momentum s`` (``s``: the batch mean and the unbiased batch variance,
        as torch). ``training=False``: the statistics used (required).
    weight, bias : cupy.ndarray, optional
        ``(C,)`` affine parameters (1 and 0 when None).
    training : bool
        Normalize with the batch's statistics (biased variance) rather than the running ones.
    momentum, eps : float
    layout : {'NCHW', 'NHWC'}
        Channels first or channels last (any number of spatial axes).
    return_stats : bool
        Also return ``mean`` and ``invstd``, ``(C,)`` float32 (float64 for float64 input): the
        batch's (training) or the running mean and ``1 / sqrt(running_var + eps)``; what
        :func:`batch_norm_backward` takes.

    Returns
    -------
    cupy.ndarray or tuple
        The output, of ``input``'s shape and dtype (and ``mean``, ``invstd``).

    Raises
    ------
    TypeError
        Host arrays, non-floating dtypes.
    ValueError
        Wrong dimensions or parameter sizes; one value per channel when training; missing
        running statistics when not training.

    Notes
    -----
    The training forward reads the input once for its statistics (Welford/Chan per-thread and
    per-block merges), then once more to normalize. See :func:`rocarray.miopen.batchnorm_forward_training`.

    Examples
    --------
    >>> y = ra.nn.batch_norm(x, rm, rv, w, b, training=True)  # doctest: +SKIP
    """
    fn = "batch_norm"
    x, layout, C = _bn_input(input, layout, fn)
    acc = _acc(x.dtype)
    momentum, eps = _float(momentum, "momentum", fn), _float(eps, "eps", fn)
    weight, bias = _param(weight, "weight", fn, C, acc), _param(bias, "bias", fn, C, acc)
    if (running_mean is None) != (running_var is None):
        raise ValueError(f"{fn}: running_mean and running_var must both be given or both be None")
    given = running_mean is not None
    if given:
        running_mean = _args.tensor(running_mean, "running_mean", fn)
        running_var = _args.tensor(running_var, "running_var", fn)
        for name, r in (("running_mean", running_mean), ("running_var", running_var)):
            if r.ndim != 1 or r.size != C:
                raise ValueError(f"{fn}: {name} should contain {C} elements not {r.size}")
    if not training:
        if not given:
            raise ValueError(f"{fn}: running_mean and running_var must be given when training=False")
        rm, rv = (_contiguous(r.astype(acc, copy=False)) for r in (running_mean, running_var))
        y, invstd = miopen.batchnorm_forward_inference(x, weight, bias, rm, rv, eps, layout=layout)
        return (y, rm.copy() if rm is running_mean else rm, invstd) if return_stats else y
    if x.size // max(C, 1) <= 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {tuple(x.shape)}")
    direct = given and all(r.dtype == acc and r.flags.c_contiguous for r in (running_mean, running_var))
    rm, rv = (running_mean, running_var) if direct or not given else (
        _contiguous(running_mean.astype(acc)), _contiguous(running_var.astype(acc)))
    y, mean, invstd = miopen.batchnorm_forward_training(x, weight, bias, rm, rv, momentum, eps, layout=layout)
    if given and not direct:
        running_mean[...] = rm
        running_var[...] = rv
    return (y, mean, invstd) if return_stats else y


def batch_norm_backward(grad_output, input, weight, mean, invstd, *, training=True, layout="NCHW"):
    """Gradients of :func:`batch_norm`.

    Parameters
    ----------
    grad_output, input : cupy.ndarray
        One shape and dtype, as :func:`batch_norm`'s input.
    weight : cupy.ndarray or None
        ``(C,)``, the forward's weight.
    mean, invstd : cupy.ndarray
        ``(C,)``: what ``batch_norm(..., return_stats=True)`` returned (``training=True``: the
        batch's statistics; ``training=False``: the running mean and ``1 / sqrt(running_var +
        eps)``, constants of the forward).
    training : bool
        Whether the forward used the batch's statistics.
    layout : {'NCHW', 'NHWC'}

    Returns
    -------
    grad_input : cupy.ndarray
        ``input``'s shape and dtype.
    grad_weight : cupy.ndarray or None
        ``(C,)`` in weight's dtype; None without weight.
    grad_bias : cupy.ndarray
        ``(C,)``: ``sum(grad_output)`` per channel, in weight's dtype (the input's without weight).

    Examples
    --------
    >>> dx, dw, db = ra.nn.batch_norm_backward(dy, x, w, mean, invstd)  # doctest: +SKIP
    """
    fn = "batch_norm_backward"
    x, layout, C = _bn_input(input, layout, fn)
    dy = _contiguous(_args.tensor(grad_output, "grad_output", fn))
    _args.same_dtype(fn, grad_output=dy, input=x)
    if dy.shape != x.shape:
        raise ValueError(f"{fn}: grad_output has shape {tuple(dy.shape)}, input {tuple(x.shape)}")
    acc = _acc(x.dtype)
    w = _param(weight, "weight", fn, C, acc)
    mean, invstd = _stats(mean, "mean", fn, C, acc), _stats(invstd, "invstd", fn, C, acc)
    dx, dw, db = miopen.batchnorm_backward(dy, x, w, mean, invstd, training=bool(training), layout=layout)
    return (dx, *_grads(dw, db, weight, x.dtype))


# ------------------------------------------------------------------------------------------------
# layer norm
# ------------------------------------------------------------------------------------------------

def _normalized_shape(normalized_shape, x, fn):
    try:
        shape = (operator.index(normalized_shape),)
    except TypeError:
        try:
            shape = tuple(operator.index(v) for v in normalized_shape)
        except TypeError:
            raise TypeError(f"{fn}: normalized_shape must be an int or a sequence of ints, "
                            f"got {normalized_shape!r}") from None
    k = len(shape)
    if k == 0 or k > x.ndim or tuple(x.shape[x.ndim - k:]) != shape:
        raise ValueError(f"{fn}: Given normalized_shape={list(shape)}, expected input with shape "
                         f"[*, {', '.join(str(s) for s in shape)}], but got input of size{list(x.shape)}")
    return shape


def _ln_param(p, name, fn, shape, acc):
    if p is None:
        return None
    p = _args.tensor(p, name, fn)
    if tuple(p.shape) != shape:
        raise ValueError(f"{fn}: {name} must have shape {shape}, got {tuple(p.shape)}")
    return _contiguous(p.astype(acc, copy=False)).reshape(-1)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, *, return_stats=False):
    """Layer normalization over the last ``len(normalized_shape)`` axes.

    Parameters
    ----------
    input : cupy.ndarray
        ``(*, *normalized_shape)``; float16, bfloat16, float32 or float64.
    normalized_shape : int or sequence of int
        The trailing shape normalized together.
    weight, bias : cupy.ndarray, optional
        Of ``normalized_shape`` (1 and 0 when None).
    eps : float
    return_stats : bool
        Also return ``mean`` and ``invstd`` of shape ``input.shape[:-k] + (1,) * k`` (torch's),
        float32 (float64 for float64 input).

    Returns
    -------
    cupy.ndarray or tuple
        The output (and ``mean``, ``invstd``).

    Raises
    ------
    TypeError, ValueError
        Host arrays or bad dtypes; a ``normalized_shape`` that is not the input's trailing shape.

    Examples
    --------
    >>> y = ra.nn.layer_norm(x, (768,), w, b)  # doctest: +SKIP
    """
    fn = "layer_norm"
    x = _args.tensor(input, "input", fn)
    shape = _normalized_shape(normalized_shape, x, fn)
    acc = _acc(x.dtype)
    w, b = _ln_param(weight, "weight", fn, shape, acc), _ln_param(bias, "bias", fn, shape, acc)
    d = int(numpy.prod(shape))
    y, mean, invstd = miopen.layernorm_forward(_contiguous(x), w, b, _float(eps, "eps", fn), norm_size=d)
    if not return_stats:
        return y
    stat_shape = tuple(x.shape[: x.ndim - len(shape)]) + (1,) * len(shape)
    return y, mean.reshape(stat_shape), invstd.reshape(stat_shape)


def layer_norm_backward(grad_output, input, normalized_shape, mean, invstd, weight=None, bias=None):
    """Gradients of :func:`layer_norm`.

    Parameters
    ----------
    grad_output, input : cupy.ndarray
        One shape and dtype.
    normalized_shape : int or sequence of int
    mean, invstd : cupy.ndarray
        What ``layer_norm(..., return_stats=True)`` returned (any shape of that size).
    weight, bias : cupy.ndarray, optional
        The forward's (bias only decides whether ``grad_bias`` is computed).

    Returns
    -------
    grad_input : cupy.ndarray
    grad_weight, grad_bias : cupy.ndarray or None
        Of ``normalized_shape`` in the parameter's dtype; None where the parameter is absent.

    Examples
    --------
    >>> dx, dw, db = ra.nn.layer_norm_backward(dy, x, (768,), mean, invstd, w, b)  # doctest: +SKIP
    """
    fn = "layer_norm_backward"
    x = _args.tensor(input, "input", fn)
    dy = _args.tensor(grad_output, "grad_output", fn)
    _args.same_dtype(fn, grad_output=dy, input=x)
    if dy.shape != x.shape:
        raise ValueError(f"{fn}: grad_output has shape {tuple(dy.shape)}, input {tuple(x.shape)}")
    shape = _normalized_shape(normalized_shape, x, fn)
    acc = _acc(x.dtype)
    d = int(numpy.prod(shape))
    rows = x.size // d if d else 0
    w = _ln_param(weight, "weight", fn, shape, acc)
    if bias is not None:
        _ln_param(bias, "bias", fn, shape, acc)
    mean, invstd = _stats(mean, "mean", fn, rows, acc), _stats(invstd, "invstd", fn, rows, acc)
    dx, dw, db = miopen.layernorm_backward(_contiguous(dy), _contiguous(x), w, mean, invstd, norm_size=d,
                                           weight_grads=weight is not None or bias is not None)
    dw = dw.reshape(shape).astype(weight.dtype, copy=False) if weight is not None else None
    db = db.reshape(shape).astype(bias.dtype, copy=False) if bias is not None else None
    return dx, dw, db


# ------------------------------------------------------------------------------------------------
# group norm and instance norm
# ------------------------------------------------------------------------------------------------

def _gn_input(input, num_groups, layout, fn):
    x = _args.tensor(input, "input", fn, ndim=(2, 3, 4, 5))
    layout = _args.layout(layout, fn)
    C = x.shape[_args.channel_axis(layout, x.ndim)]
    try:
        num_groups = operator.index(num_groups)
    except TypeError:
        raise TypeError(f"{fn}: num_groups must be an int, got {num_groups!r}") from None
    if num_groups <= 0 or C % num_groups:
        raise ValueError(f"{fn}: Expected number of channels in input to be divisible by num_groups, but got "
                         f"input of shape {list(x.shape)} and num_groups={num_groups}")
    return _contiguous(x), layout, C, num_groups


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, *, layout="NCHW", return_stats=False):
    """Group normalization: the channels of each sample in ``num_groups`` groups, each group
    normalized over its channels and spatial axes, then a per-channel affine map.

    Parameters
    ----------
    input : cupy.ndarray
        ``(N, C, *spatial)`` (``layout='NCHW'``) or ``(N, *spatial, C)`` (``'NHWC'``), or
        ``(N, C)``; float16, bfloat16, float32 or float64.
    num_groups : int
        Divides C.
    weight, bias : cupy.ndarray, optional
        ``(C,)`` (1 and 0 when None).
    eps : float
    layout : {'NCHW', 'NHWC'}
    return_stats : bool
        Also return ``mean`` and ``invstd``, ``(N, num_groups)`` float32 (float64 for float64).

    Returns
    -------
    cupy.ndarray or tuple
        The output (and ``mean``, ``invstd``).

    Raises
    ------
    TypeError, ValueError
        Host arrays or bad dtypes; C not divisible by ``num_groups``; bad parameter sizes.

    Examples
    --------
    >>> y = ra.nn.group_norm(x, 32, w, b)  # doctest: +SKIP
    """
    fn = "group_norm"
    x, layout, C, G = _gn_input(input, num_groups, layout, fn)
    acc = _acc(x.dtype)
    w, b = _param(weight, "weight", fn, C, acc), _param(bias, "bias", fn, C, acc)
    y, mean, invstd = miopen.groupnorm_forward(x, G, w, b, _float(eps, "eps", fn), layout=layout)
    return (y, mean, invstd) if return_stats else y


def group_norm_backward(grad_output, input, num_groups, mean, invstd, weight=None, *, layout="NCHW"):
    """Gradients of :func:`group_norm`.

    Parameters
    ----------
    grad_output, input : cupy.ndarray
        One shape and dtype.
    num_groups : int
    mean, invstd : cupy.ndarray
        ``(N, num_groups)``, what ``group_norm(..., return_stats=True)`` returned.
    weight : cupy.ndarray, optional
        ``(C,)``, the forward's weight.
    layout : {'NCHW', 'NHWC'}

    Returns
    -------
    grad_input : cupy.ndarray
    grad_weight : cupy.ndarray or None
        ``(C,)`` in weight's dtype; None without weight.
    grad_bias : cupy.ndarray
        ``(C,)`` in weight's dtype (the input's without weight).

    Examples
    --------
    >>> dx, dw, db = ra.nn.group_norm_backward(dy, x, 32, mean, invstd, w)  # doctest: +SKIP
    """
    fn = "group_norm_backward"
    x, layout, C, G = _gn_input(input, num_groups, layout, fn)
    dy = _contiguous(_args.tensor(grad_output, "grad_output", fn))
    _args.same_dtype(fn, grad_output=dy, input=x)
    if dy.shape != x.shape:
        raise ValueError(f"{fn}: grad_output has shape {tuple(dy.shape)}, input {tuple(x.shape)}")
    acc = _acc(x.dtype)
    w = _param(weight, "weight", fn, C, acc)
    n = x.shape[0]
    mean, invstd = _stats(mean, "mean", fn, n * G, acc), _stats(invstd, "invstd", fn, n * G, acc)
    dx, dw, db = miopen.groupnorm_backward(dy, x, G, w, mean, invstd, layout=layout)
    return (dx, *_grads(dw, db, weight, x.dtype))


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5, *, layout="NCHW"):
    """Instance normalization: each (sample, channel) normalized over its spatial axes.

    Parameters
    ----------
    input : cupy.ndarray
        ``(N, C, *spatial)`` (``layout='NCHW'``) or ``(N, *spatial, C)`` (``'NHWC'``), 1 to 3
        spatial axes.
    running_mean, running_var : cupy.ndarray, optional
        ``(C,)``. With ``use_input_stats``: updated in place, if given, with the batch average of
        the instances' means and unbiased variances (torch's rule); otherwise the statistics used.
    weight, bias : cupy.ndarray, optional
        ``(C,)``.
    use_input_stats : bool
    momentum, eps : float
    layout : {'NCHW', 'NHWC'}

    Returns
    -------
    cupy.ndarray
        Of ``input``'s shape and dtype.

    Notes
    -----
    With input statistics this is :func:`group_norm` with one group per channel.

    Examples
    --------
    >>> y = ra.nn.instance_norm(x)  # doctest: +SKIP
    """
    fn = "instance_norm"
    x = _args.tensor(input, "input", fn, ndim=(3, 4, 5))
    layout = _args.layout(layout, fn)
    C = x.shape[_args.channel_axis(layout, x.ndim)]
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise ValueError(f"{fn}: Expected running_mean and running_var to be defined when use_input_stats is "
                             f"false")
        return batch_norm(x, running_mean, running_var, weight, bias, False, momentum, eps, layout=layout)
    if x.size // max(C * x.shape[0], 1) <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(x.shape)}")
    y, mean, invstd = group_norm(x, C, weight, bias, eps, layout=layout, return_stats=True)
    if (running_mean is None) != (running_var is None):
        raise ValueError(f"{fn}: running_mean and running_var must both be given or both be None")
    if running_mean is not None:
        eps = _float(eps, "eps", fn)
        momentum = _float(momentum, "momentum", fn)
        count = x.size // (C * x.shape[0])
        var = (1.0 / (invstd * invstd) - eps) * (count / (count - 1))
        for r, s in ((_args.tensor(running_mean, "running_mean", fn), mean), (_args.tensor(running_var, "running_var",
                                                                                            fn), var)):
            if r.size != C:
                raise ValueError(f"{fn}: running statistics should contain {C} elements not {r.size}")
            r[...] = ((1 - momentum) * r.astype(s.dtype) + momentum * s.mean(axis=0)).astype(r.dtype)
    return y
