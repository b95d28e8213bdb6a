"""Pooling with ``torch.nn.functional``'s names, arguments, output-size rules and errors: max,
average, adaptive average and adaptive max pooling over 1 to 3 spatial axes, global pooling, and
the backward functions (arguments after aten's ``*_backward``), channels first or last."""

import operator

from rocarray._core import backend, plans
from rocarray.miopen import _pooling
from rocarray.nn import _args

_NAMES = {1: "1d", 2: "2d", 3: "3d"}


def output_size(size, kernel, pad, stride, dilation, ceil_mode):
    """torch's pooled length of an axis of ``size`` (``pooling_output_shape``): windows start
    every ``stride`` from ``-pad``; with ``ceil_mode`` a last partial window counts when it starts
    inside the input or its left padding."""
    numerator = size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = numerator // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _contiguous(x):
    return x if x.flags.c_contiguous else backend.cupy().ascontiguousarray(x)


def _input(input, nd, fn, layout, data=True):
    """``(x, layout, batched)``: the tensor with a batch axis, C-contiguous where its ``data`` is
    used (a backward function needs only the input's shape)."""
    x = _args.tensor(input, "input", fn, ndim=(nd + 1, nd + 2))
    layout = _args.layout(layout, fn)
    batched = x.ndim == nd + 2
    if not batched:
        x = x.reshape(1, *x.shape)
    spatial = x.shape[1:-1] if layout == "NHWC" else x.shape[2:]
    channel = x.shape[-1] if layout == "NHWC" else x.shape[1]
    if channel == 0 or 0 in spatial:
        raise ValueError(f"{fn}: expected an input with non-zero channel and spatial sizes, got shape "
                         f"{tuple(input.shape)}")
    return (_contiguous(x) if data else x), layout, batched


def _windows(fn, nd, kernel_size, stride, padding, dilation):
    kernel = _args.per_axis(kernel_size, nd, "kernel_size", fn)
    if any(k <= 0 for k in kernel):
        raise ValueError(f"{fn}: kernel size should be greater than zero, but got kernel_size={kernel_size!r}")
    if stride is None or (hasattr(stride, "__len__") and len(stride) == 0):
        stride = kernel
    stride = _args.per_axis(stride, nd, "stride", fn)
    if any(s <= 0 for s in stride):
        raise ValueError(f"{fn}: stride should be greater than zero, but got stride={stride!r}")
    padding = _args.per_axis(padding, nd, "padding", fn)
    dilation = _args.per_axis(dilation, nd, "dilation", fn)
    if any(d <= 0 for d in dilation):
        raise ValueError(f"{fn}: dilation should be greater than zero, but got dilation={dilation!r}")
    return kernel, stride, padding, dilation


def _sizes(fn, spatial, kernel, stride, padding, dilation, ceil_mode):
    # torch's shape checks bound the padding by half the kernel (the dilated kernel's bound of
    # pooling_output_shape is never the tighter one)
    if any(p > k // 2 for k, p in zip(kernel, padding)):
        raise ValueError(f"{fn}: pad should be smaller than or equal to half of kernel size, but got "
                         f"padding={padding}, kernel_size={kernel}")
    out = tuple(output_size(*args, bool(ceil_mode)) for args in zip(spatial, kernel, padding, stride, dilation))
    if any(o < 1 for o in out):
        given = "x".join(str(s) for s in spatial)
        got = "x".join(str(o) for o in out)
        raise ValueError(f"{fn}: Given input size: ({given}). Calculated output size: ({got}). Output size is too "
                         "small")
    return out


def _adaptive_sizes(fn, nd, output_size_arg, spatial):
    values = output_size_arg if hasattr(output_size_arg, "__len__") else (output_size_arg,) * nd
    if len(values) != nd:
        raise ValueError(f"{fn}: output_size must be an int or a tuple of {nd} ints (None keeps a size), "
                         f"got {output_size_arg!r}")
    out = []
    for value, size in zip(values, spatial):
        try:
            o = size if value is None else operator.index(value)
        except TypeError:
            raise TypeError(f"{fn}: output_size must hold ints or None, got {output_size_arg!r}") from None
        if o < 0:
            raise ValueError(f"{fn}: elements of output_size must be greater than or equal to 0 but received {o}")
        out.append(o)
    return tuple(out)


def _finish(result, batched):
    if batched:
        return result
    if isinstance(result, tuple):
        return tuple(r.reshape(r.shape[1:]) for r in result)
    return result.reshape(result.shape[1:])


def _grad(fn, grad_output, geometry, batched, dtype):
    g = _args.tensor(grad_output, "grad_output", fn)
    if g.dtype != dtype:
        raise TypeError(f"{fn}: 'grad_output' has dtype {g.dtype.name}, the input {dtype.name}")
    want = geometry.output_shape if batched else geometry.output_shape[1:]
    if tuple(g.shape) != tuple(want):
        raise ValueError(f"{fn}: 'grad_output' must have shape {tuple(want)}, got {tuple(g.shape)}")
    return _contiguous(g.reshape(geometry.output_shape))


def _grad_spatial(fn, grad_output, nd, layout):
    """The spatial sizes of an adaptive pool's gradient: its output size."""
    g = _args.tensor(grad_output, "grad_output", fn)
    return tuple(g.shape[-nd - 1:-1] if layout == "NHWC" else g.shape[-nd:])


def _indices(fn, indices, geometry):
    x = backend.cupy()
    if not isinstance(indices, x.ndarray):
        raise TypeError(f"{fn}: 'indices' must be the forward's int64 device array")
    if indices.dtype != "int64" or indices.size != _size(geometry.output_shape):
        raise ValueError(f"{fn}: 'indices' must be int64 with the output's shape, got {indices.dtype.name} "
                         f"{tuple(indices.shape)}")
    return _contiguous(indices.reshape(geometry.output_shape))


def _size(shape):
    n = 1
    for s in shape:
        n *= s
    return n


# ---------------------------------------------------------------------------------------------
# the generic implementations; the public functions below fix the number of spatial axes


def _plan_key(op, input, *settings):
    """The plan-cache key of a forward pooling call on a C-contiguous device array: everything its
    checks and its plan depend on (None: no plan, the call takes the checked path)."""
    cupy = backend.cupy()
    if type(input) is not cupy.ndarray or not input.flags.c_contiguous:
        return None
    # the settings by their repr: 3 and 3.0 hash alike, but only one of them is a valid size
    return (op, input.shape, input.dtype, input.data.device_id, input.data.ptr % 16 == 0, _pooling.HALF2,
            _pooling.RUN, repr(settings))


def _forward(key, build, input):
    """``build()``'s plan run on ``input``, the plan kept under ``key`` (None: not kept)."""
    return (build() if key is None else plans.cache.lookup(key, build))(input)


def _forward_plan(x, geometry, batched, return_indices=False):
    """The prepared forward of ``geometry`` on arrays like ``x`` (the batch axis dropped from the
    outputs when the call had none)."""
    shape = geometry.output_shape if batched else geometry.output_shape[1:]
    return _pooling.forward_plan(x.data.device_id, x.dtype, geometry, return_indices=return_indices,
                                 aligned=x.data.ptr % 16 == 0, out_shape=shape)


def _max_pool(nd, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, layout):
    key = _plan_key("nn.max_pool", input, nd, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                    layout)

    def build():
        fn = f"max_pool{_NAMES[nd]}"
        x, layout_name, batched = _input(input, nd, fn, layout)
        geometry = _max_geometry(fn, nd, x, layout_name, kernel_size, stride, padding, dilation, ceil_mode)
        return _forward_plan(x, geometry, batched, bool(return_indices))
    return _forward(key, build, input)


def _max_geometry(fn, nd, x, layout, kernel_size, stride, padding, dilation, ceil_mode):
    kernel, stride, padding, dilation = _windows(fn, nd, kernel_size, stride, padding, dilation)
    spatial = x.shape[1:-1] if layout == "NHWC" else x.shape[2:]
    out = _sizes(fn, spatial, kernel, stride, padding, dilation, ceil_mode)
    return _pooling.PoolingGeometry("max", layout, tuple(x.shape), out, kernel, stride, padding, dilation)


def _avg_geometry(fn, nd, x, layout, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    kernel, stride, padding, dilation = _windows(fn, nd, kernel_size, stride, padding, 1)
    if divisor_override is not None:
        divisor_override = operator.index(divisor_override)
        if divisor_override == 0:
            raise ValueError(f"{fn}: divisor must be not zero")
    spatial = x.shape[1:-1] if layout == "NHWC" else x.shape[2:]
    out = _sizes(fn, spatial, kernel, stride, padding, dilation, ceil_mode)
    return _pooling.PoolingGeometry("avg", layout, tuple(x.shape), out, kernel, stride, padding, dilation,
                                    bool(count_include_pad), divisor_override)


def _adaptive_geometry(fn, nd, x, layout, mode, output_size_arg):
    spatial = x.shape[1:-1] if layout == "NHWC" else x.shape[2:]
    out = _adaptive_sizes(fn, nd, output_size_arg, spatial)
    return _pooling.PoolingGeometry(mode, layout, tuple(x.shape), out)


def _avg_pool(nd, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, layout):
    key = _plan_key("nn.avg_pool", input, nd, kernel_size, stride, padding, ceil_mode, count_include_pad,
                    divisor_override, layout)

    def build():
        fn = f"avg_pool{_NAMES[nd]}"
        x, layout_name, batched = _input(input, nd, fn, layout)
        geometry = _avg_geometry(fn, nd, x, layout_name, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                 divisor_override)
        return _forward_plan(x, geometry, batched)
    return _forward(key, build, input)


def _adaptive(nd, mode, input, output_size_arg, return_indices, layout):
    fn = f"{mode}_pool{_NAMES[nd]}"
    x, layout, batched = _input(input, nd, fn, layout)
    geometry = _adaptive_geometry(fn, nd, x, layout, mode, output_size_arg)
    return _finish(_pooling.pooling_forward(x, geometry, return_indices=return_indices), batched)


def _global(mode, input, return_indices, layout):
    fn = f"global_{mode}_pool"
    x = _args.tensor(input, "input", fn, ndim=(3, 4, 5))
    nd = x.ndim - 2
    x, layout, _ = _input(x, nd, fn, layout)
    geometry = _adaptive_geometry(fn, nd, x, layout, f"adaptive_{mode}", 1)
    return _pooling.pooling_forward(x, geometry, return_indices=return_indices)


def _backward(fn, nd, grad_output, input, geometry_of, layout, indices=None):
    """dx for the forward ``geometry_of(x, layout)`` of ``input``."""
    x, layout, batched = _input(input, nd, fn, layout, data=False)
    geometry = geometry_of(x, layout)
    g = _grad(fn, grad_output, geometry, batched, x.dtype)
    if geometry.mode in _pooling.WITH_INDICES:
        indices = _indices(fn, indices, geometry)
    return _finish(_pooling.pooling_backward(g, geometry, indices=indices), batched)


# ---------------------------------------------------------------------------------------------
# the public functions


def _named(f, name, doc):
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


_SHAPES = {1: "(N, C, L)", 2: "(N, C, H, W)", 3: "(N, C, D, H, W)"}
_LAST = {1: "(N, L, C)", 2: "(N, H, W, C)", 3: "(N, D, H, W, C)"}

_INPUT_DOC = """input : cupy.ndarray
        float16, bfloat16, float32 or float64 tensor {shape} (``layout='NCHW'``) or {last}
        (``'NHWC'``), or the same without the batch axis."""
_LAYOUT_DOC = """layout : {{'NCHW', 'NHWC'}}, optional
        Channels first or last (the names stand for any number of spatial axes)."""
_RAISES_DOC = """Raises
    ------
    TypeError
        For a host array or an unsupported dtype.
    ValueError
        For a wrong number of dimensions, zero sizes, bad window arguments, padding above half
        the kernel, or an output size below one (torch's messages)."""


def _max_pool_doc(nd):
    return f"""{nd}-D max pooling over the windows ``o * stride - padding + k * dilation``.

    Parameters
    ----------
    {_INPUT_DOC.format(shape=_SHAPES[nd], last=_LAST[nd])}
    kernel_size : int or tuple of {nd} ints
    stride : int or tuple of {nd} ints, optional
        Default: ``kernel_size``.
    padding : int or tuple of {nd} ints, optional
        Implicit negative infinity on both sides, at most half the kernel.
    dilation : int or tuple of {nd} ints, optional
    ceil_mode : bool, optional
        Round the output size up (torch's rule: a last window must start inside the input or
        its left padding).
    return_indices : bool, optional
        Also return the int64 indices: each maximum's flat position within its (n, c) plane, as
        torch's.
    {_LAYOUT_DOC}

    Returns
    -------
    output : cupy.ndarray
        Input dtype and layout. A NaN in a window is its maximum.
    indices : cupy.ndarray
        Only with ``return_indices``.

    {_RAISES_DOC}
    """


def _avg_pool_doc(nd):
    return f"""{nd}-D average pooling.

    Parameters
    ----------
    {_INPUT_DOC.format(shape=_SHAPES[nd], last=_LAST[nd])}
    kernel_size : int or tuple of {nd} ints
    stride : int or tuple of {nd} ints, optional
        Default: ``kernel_size``.
    padding : int or tuple of {nd} ints, optional
        Implicit zeros on both sides, at most half the kernel.
    ceil_mode : bool, optional
        Round the output size up (torch's rule).
    count_include_pad : bool, optional
        Divide by the window clipped to the padded input (True) or to the input (False).
    divisor_override : int, optional
        Divide every window's sum by this instead.
    {_LAYOUT_DOC}

    Returns
    -------
    cupy.ndarray
        Input dtype and layout; 16-bit sums run in float32.

    {_RAISES_DOC}
    """


def _adaptive_doc(nd, kind):
    extra = """
    return_indices : bool, optional
        Also return the int64 indices (flat positions within each (n, c) plane).""" if kind == "max" else ""
    more = """
    indices : cupy.ndarray
        Only with ``return_indices``.""" if kind == "max" else ""
    return f"""{nd}-D adaptive {kind} pooling: output ``o`` along an axis of input size ``I`` and output size
    ``O`` pools ``[floor(o * I / O), ceil((o + 1) * I / O))``.

    Parameters
    ----------
    {_INPUT_DOC.format(shape=_SHAPES[nd], last=_LAST[nd])}
    output_size : int or tuple of {nd} ints or None
        None keeps that axis's input size.{extra}
    {_LAYOUT_DOC}

    Returns
    -------
    output : cupy.ndarray
        Input dtype and layout.{more}

    {_RAISES_DOC}
    """


def _backward_doc(forward, args_doc):
    return f"""Gradient of :func:`{forward}` with respect to its input (aten's backward arguments).

    Parameters
    ----------
    grad_output : cupy.ndarray
        Gradient of the output (the forward output's shape and dtype).
    input : cupy.ndarray
        The forward's input (only its shape is read).{args_doc}
    {_LAYOUT_DOC}

    Returns
    -------
    cupy.ndarray
        The gradient of the input, in its dtype and layout.

    {_RAISES_DOC}
    """


_WINDOW_ARGS = """
    kernel_size, stride, padding, dilation : int or tuple of ints
        The forward's window arguments (``stride`` None: ``kernel_size``).
    ceil_mode : bool
        The forward's rounding of the output size."""
_AVG_ARGS = """
    kernel_size, stride, padding : int or tuple of ints
        The forward's window arguments (``stride`` None: ``kernel_size``).
    ceil_mode, count_include_pad : bool
        The forward's flags.
    divisor_override : int or None
        The forward's divisor."""
_INDICES_ARG = """
    indices : cupy.ndarray
        The forward's int64 indices."""


def _make(nd):
    tag = _NAMES[nd]

    def max_pool(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False, *,
                 layout="NCHW"):
        return _max_pool(nd, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, layout)

    def avg_pool(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None, *, layout="NCHW"):
        return _avg_pool(nd, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                         layout)

    def adaptive_avg_pool(input, output_size, *, layout="NCHW"):
        return _adaptive(nd, "adaptive_avg", input, output_size, False, layout)

    def adaptive_max_pool(input, output_size, return_indices=False, *, layout="NCHW"):
        return _adaptive(nd, "adaptive_max", input, output_size, return_indices, layout)

    def max_pool_backward(grad_output, input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                          indices=None, *, layout="NCHW"):
        fn = f"max_pool{tag}_backward"
        return _backward(fn, nd, grad_output, input, lambda x, lay: _max_geometry(
            fn, nd, x, lay, kernel_size, stride, padding, dilation, ceil_mode), layout, indices)

    def avg_pool_backward(grad_output, input, kernel_size, stride=None, padding=0, ceil_mode=False,
                          count_include_pad=True, divisor_override=None, *, layout="NCHW"):
        fn = f"avg_pool{tag}_backward"
        return _backward(fn, nd, grad_output, input, lambda x, lay: _avg_geometry(
            fn, nd, x, lay, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override), layout)

    def adaptive_avg_pool_backward(grad_output, input, *, layout="NCHW"):
        fn = f"adaptive_avg_pool{tag}_backward"
        return _backward(fn, nd, grad_output, input, lambda x, lay: _adaptive_geometry(
            fn, nd, x, lay, "adaptive_avg", _grad_spatial(fn, grad_output, nd, lay)), layout)

    def adaptive_max_pool_backward(grad_output, input, indices, *, layout="NCHW"):
        fn = f"adaptive_max_pool{tag}_backward"
        return _backward(fn, nd, grad_output, input, lambda x, lay: _adaptive_geometry(
            fn, nd, x, lay, "adaptive_max", _grad_spatial(fn, grad_output, nd, lay)), layout, indices)

    return (
        _named(max_pool, f"max_pool{tag}", _max_pool_doc(nd)),
        _named(avg_pool, f"avg_pool{tag}", _avg_pool_doc(nd)),
        _named(adaptive_avg_pool, f"adaptive_avg_pool{tag}", _adaptive_doc(nd, "average")),
        _named(adaptive_max_pool, f"adaptive_max_pool{tag}", _adaptive_doc(nd, "max")),
        _named(max_pool_backward, f"max_pool{tag}_backward",
               _backward_doc(f"max_pool{tag}", _WINDOW_ARGS + _INDICES_ARG)),
        _named(avg_pool_backward, f"avg_pool{tag}_backward", _backward_doc(f"avg_pool{tag}", _AVG_ARGS)),
        _named(adaptive_avg_pool_backward, f"adaptive_avg_pool{tag}_backward",
               _backward_doc(f"adaptive_avg_pool{tag}", "")),
        _named(adaptive_max_pool_backward, f"adaptive_max_pool{tag}_backward",
               _backward_doc(f"adaptive_max_pool{tag}", _INDICES_ARG)),
    )


(max_pool1d, avg_pool1d, adaptive_avg_pool1d, adaptive_max_pool1d, max_pool1d_backward, avg_pool1d_backward,
 adaptive_avg_pool1d_backward, adaptive_max_pool1d_backward) = _make(1)
(max_pool2d, avg_pool2d, adaptive_avg_pool2d, adaptive_max_pool2d, max_pool2d_backward, avg_pool2d_backward,
 adaptive_avg_pool2d_backward, adaptive_max_pool2d_backward) = _make(2)
(max_pool3d, avg_pool3d, adaptive_avg_pool3d, adaptive_max_pool3d, max_pool3d_backward, avg_pool3d_backward,
 adaptive_avg_pool3d_backward, adaptive_max_pool3d_backward) = _make(3)


def global_avg_pool(input, *, layout="NCHW"):
    """Mean over every spatial axis, keeping them as size one (``adaptive_avg_pool{1,2,3}d(input,
    1)``, the number of spatial axes read from ``input``: batched tensors only).

    Parameters
    ----------
    input : cupy.ndarray
        Floating tensor with 1 to 3 spatial axes, ``(N, C, *spatial)`` or ``(N, *spatial, C)``.
    layout : {'NCHW', 'NHWC'}, optional

    Returns
    -------
    cupy.ndarray
        ``(N, C, 1, ...)`` or ``(N, 1, ..., C)``.
    """
    return _global("avg", input, False, layout)


def global_max_pool(input, return_indices=False, *, layout="NCHW"):
    """Maximum over every spatial axis, keeping them as size one (``adaptive_max_pool{1,2,3}d(input, 1)``).

    Parameters
    ----------
    input : cupy.ndarray
        As in :func:`global_avg_pool`.
    return_indices : bool, optional
        Also return the int64 flat indices of the maxima within each (n, c) plane.
    layout : {'NCHW', 'NHWC'}, optional

    Returns
    -------
    output : cupy.ndarray
    indices : cupy.ndarray
        Only with ``return_indices``.
    """
    return _global("max", input, return_indices, layout)


def _global_backward(mode, grad_output, input, indices, layout):
    fn = f"global_{mode}_pool_backward"
    x = _args.tensor(input, "input", fn, ndim=(3, 4, 5))
    nd = x.ndim - 2
    return _backward(fn, nd, grad_output, x, lambda x, lay: _adaptive_geometry(fn, nd, x, lay, f"adaptive_{mode}", 1),
                     layout, indices)


def global_avg_pool_backward(grad_output, input, *, layout="NCHW"):
    """Gradient of :func:`global_avg_pool`.

    Parameters
    ----------
    grad_output : cupy.ndarray
        ``global_avg_pool``'s output shape.
    input : cupy.ndarray
        The forward's input (only its shape is read).
    layout : {'NCHW', 'NHWC'}, optional

    Returns
    -------
    cupy.ndarray
    """
    return _global_backward("avg", grad_output, input, None, layout)


def global_max_pool_backward(grad_output, input, indices, *, layout="NCHW"):
    """Gradient of :func:`global_max_pool` from its indices.

    Parameters
    ----------
    grad_output : cupy.ndarray
    input : cupy.ndarray
        The forward's input (only its shape is read).
    indices : cupy.ndarray
        ``global_max_pool``'s int64 indices.
    layout : {'NCHW', 'NHWC'}, optional

    Returns
    -------
    cupy.ndarray
    """
    return _global_backward("max", grad_output, input, indices, layout)
