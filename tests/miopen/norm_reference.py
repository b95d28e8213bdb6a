"""NumPy float64 references of batch, layer and group normalization, forward and backward (the
formulas of torch's native kernels), shared by the CPU, emulated and GPU tests of the norm
family."""

import numpy as np


def channel_axis(ndim, layout):
    return 1 if layout == "NCHW" or ndim == 2 else ndim - 1


def _reduce_axes(ndim, layout):
    c = channel_axis(ndim, layout)
    return tuple(a for a in range(ndim) if a != c)


def _per_channel(v, ndim, layout):
    shape = [1] * ndim
    shape[channel_axis(ndim, layout)] = -1
    return np.asarray(v, np.float64).reshape(shape)


def batch_norm_training(x, weight, bias, running_mean, running_var, momentum, eps, layout="NCHW"):
    """``(y, mean, invstd, new_running_mean, new_running_var)``."""
    x = np.asarray(x, np.float64)
    axes = _reduce_axes(x.ndim, layout)
    n = x.size // x.shape[channel_axis(x.ndim, layout)]
    mean = x.mean(axis=axes)
    var = x.var(axis=axes)
    invstd = 1.0 / np.sqrt(var + eps)
    y = (x - _per_channel(mean, x.ndim, layout)) * _per_channel(invstd, x.ndim, layout)
    if weight is not None:
        y = y * _per_channel(weight, x.ndim, layout)
    if bias is not None:
        y = y + _per_channel(bias, x.ndim, layout)
    rm = rv = None
    if running_mean is not None:
        rm = (1 - momentum) * np.asarray(running_mean, np.float64) + momentum * mean
        rv = (1 - momentum) * np.asarray(running_var, np.float64) + momentum * var * n / (n - 1)
    return y, mean, invstd, rm, rv


def batch_norm_inference(x, weight, bias, running_mean, running_var, eps, layout="NCHW"):
    x = np.asarray(x, np.float64)
    invstd = 1.0 / np.sqrt(np.asarray(running_var, np.float64) + eps)
    y = (x - _per_channel(running_mean, x.ndim, layout)) * _per_channel(invstd, x.ndim, layout)
    if weight is not None:
        y = y * _per_channel(weight, x.ndim, layout)
    if bias is not None:
        y = y + _per_channel(bias, x.ndim, layout)
    return y, invstd


def batch_norm_backward(dy, x, weight, mean, invstd, training=True, layout="NCHW"):
    """``(dx, dweight, dbias)``; mean/invstd: the batch's (training) or the running ones."""
    dy, x = np.asarray(dy, np.float64), np.asarray(x, np.float64)
    nd = x.ndim
    axes = _reduce_axes(nd, layout)
    n = x.size // x.shape[channel_axis(nd, layout)]
    m, s = _per_channel(mean, nd, layout), _per_channel(invstd, nd, layout)
    w = _per_channel(weight, nd, layout) if weight is not None else 1.0
    xhat = (x - m) * s
    db = dy.sum(axis=axes)
    dw = (dy * xhat).sum(axis=axes)
    if training:
        dx = w * s * (dy - _per_channel(db, nd, layout) / n - xhat * _per_channel(dw, nd, layout) / n)
    else:
        dx = w * s * dy
    return dx, dw, db


def layer_norm(x, normalized_ndim, weight, bias, eps):
    """``(y, mean, invstd)``; mean/invstd of shape ``x.shape[:-k] + (1,) * k``."""
    x = np.asarray(x, np.float64)
    axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    invstd = 1.0 / np.sqrt(x.var(axis=axes, keepdims=True) + eps)
    y = (x - mean) * invstd
    if weight is not None:
        y = y * np.asarray(weight, np.float64)
    if bias is not None:
        y = y + np.asarray(bias, np.float64)
    return y, mean, invstd


def layer_norm_backward(dy, x, normalized_ndim, mean, invstd, weight):
    dy, x = np.asarray(dy, np.float64), np.asarray(x, np.float64)
    axes = tuple(range(x.ndim - normalized_ndim, x.ndim))
    lead = tuple(range(x.ndim - normalized_ndim))
    d = int(np.prod(x.shape[x.ndim - normalized_ndim:]))
    mean = np.asarray(mean, np.float64).reshape(x.shape[:x.ndim - normalized_ndim] + (1,) * normalized_ndim)
    invstd = np.asarray(invstd, np.float64).reshape(mean.shape)
    xhat = (x - mean) * invstd
    g = dy * (np.asarray(weight, np.float64) if weight is not None else 1.0)
    dx = invstd * (g - g.sum(axis=axes, keepdims=True) / d - xhat * (g * xhat).sum(axis=axes, keepdims=True) / d)
    return dx, (dy * xhat).sum(axis=lead), dy.sum(axis=lead)


def _grouped(x, num_groups, layout):
    """x as (N, G, C/G, S) (channels moved first)."""
    x = np.asarray(x, np.float64)
    if layout == "NHWC" and x.ndim > 2:
        x = np.moveaxis(x, -1, 1)
    n, c = x.shape[:2]
    return x.reshape(n, num_groups, c // num_groups, -1)


def _ungrouped(g, shape, layout):
    if layout == "NHWC" and len(shape) > 2:
        moved = (shape[0], shape[-1]) + tuple(shape[1:-1])
        return np.moveaxis(g.reshape(moved), 1, -1)
    return g.reshape(shape)


def group_norm(x, num_groups, weight, bias, eps, layout="NCHW"):
    """``(y, mean, invstd)``; mean/invstd of shape (N, num_groups)."""
    g = _grouped(x, num_groups, layout)
    mean = g.mean(axis=(2, 3))
    invstd = 1.0 / np.sqrt(g.var(axis=(2, 3)) + eps)
    y = (g - mean[:, :, None, None]) * invstd[:, :, None, None]
    cg = g.shape[2]
    if weight is not None:
        y = y * np.asarray(weight, np.float64).reshape(1, num_groups, cg, 1)
    if bias is not None:
        y = y + np.asarray(bias, np.float64).reshape(1, num_groups, cg, 1)
    return _ungrouped(y, np.shape(x), layout), mean, invstd


def group_norm_backward(dy, x, num_groups, mean, invstd, weight, layout="NCHW"):
    g, gy = _grouped(x, num_groups, layout), _grouped(dy, num_groups, layout)
    n, _, cg, s = g.shape
    mean = np.asarray(mean, np.float64).reshape(n, num_groups, 1, 1)
    invstd = np.asarray(invstd, np.float64).reshape(n, num_groups, 1, 1)
    xhat = (g - mean) * invstd
    w = np.asarray(weight, np.float64).reshape(1, num_groups, cg, 1) if weight is not None else 1.0
    gw = gy * w
    count = cg * s
    dx = invstd * (gw - gw.sum(axis=(2, 3), keepdims=True) / count
                   - xhat * (gw * xhat).sum(axis=(2, 3), keepdims=True) / count)
    dweight = (gy * xhat).sum(axis=(0, 3)).reshape(-1)
    dbias = gy.sum(axis=(0, 3)).reshape(-1)
    return _ungrouped(dx, np.shape(x), layout), dweight, dbias
