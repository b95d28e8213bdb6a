"""NumPy float64 references for the pointwise kernels (activations, softmax, pooling), written
from the formulas torch documents, for the emulated and GPU tests."""

import math

import numpy as np
from scipy.special import erf

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _sig(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def activation(mode, x, alpha=0.0, beta=0.0):
    """Forward activation ``mode`` (rocarray.miopen's names) of float64 ``x``."""
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if mode == "relu":
            return np.where(x < 0, 0.0, x)
        if mode == "leaky_relu":
            return np.where(x > 0, x, x * alpha)
        if mode == "elu":
            return np.where(x > 0, x, alpha * np.expm1(x))
        if mode == "sigmoid":
            return _sig(x)
        if mode == "tanh":
            return np.tanh(x)
        if mode == "gelu":
            return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))
        if mode == "gelu_tanh":
            return 0.5 * x * (1.0 + np.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)))
        if mode == "silu":
            return x * _sig(x)
        if mode == "softplus":
            return np.where(x * alpha > beta, x, np.log1p(np.exp(x * alpha)) / alpha)
        if mode == "hardswish":
            return x * np.clip(x + 3.0, 0.0, 6.0) / 6.0
    raise ValueError(mode)


def activation_grad(mode, g, x, alpha=0.0, beta=0.0):
    """``dy * f'(x)`` from the forward's input ``x`` (every mode, sigmoid and tanh included)."""
    g, x = np.asarray(g, np.float64), np.asarray(x, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        if mode == "relu":
            d = (x > 0).astype(np.float64)
        elif mode == "leaky_relu":
            d = np.where(x > 0, 1.0, alpha)
        elif mode == "elu":
            d = np.where(x > 0, 1.0, alpha * np.exp(x))
        elif mode == "sigmoid":
            s = _sig(x)
            d = s * (1 - s)
        elif mode == "tanh":
            d = 1 - np.tanh(x) ** 2
        elif mode == "gelu":
            d = 0.5 * (1 + erf(x / math.sqrt(2))) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
        elif mode == "gelu_tanh":
            u = SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)
            t = np.tanh(u)
            d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x)
        elif mode == "silu":
            s = _sig(x)
            d = s * (1 + x * (1 - s))
        elif mode == "softplus":
            d = np.where(x * alpha > beta, 1.0, _sig(x * alpha))
        elif mode == "hardswish":
            d = np.where(x <= -3, 0.0, np.where(x < 3, x / 3 + 0.5, 1.0))
        else:
            raise ValueError(mode)
    return g * d


def softmax(x, axis, log=False):
    """Softmax (or log-softmax) of float64 ``x`` along ``axis``."""
    x = np.asarray(x, np.float64)
    shifted = x - x.max(axis=axis, keepdims=True)
    lse = np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    return shifted - lse if log else np.exp(shifted - lse)


def softmax_grad(g, y, axis, log=False):
    """Backward of softmax (``y`` its output) or log-softmax (``y`` the log-probabilities)."""
    g, y = np.asarray(g, np.float64), np.asarray(y, np.float64)
    if log:
        return g - np.exp(y) * g.sum(axis=axis, keepdims=True)
    return y * (g - (g * y).sum(axis=axis, keepdims=True))


def _axis_window(mode, o, size, out, kernel, stride, pad, dilation):
    """Positions of output ``o``'s window along one axis, and (avg) its padded length."""
    if mode.startswith("adaptive"):
        return list(range((o * size) // out, -((-(o + 1) * size) // out))), None
    start = o * stride - pad
    if mode == "max":
        return [start + k * dilation for k in range(kernel) if 0 <= start + k * dilation < size], None
    end = min(start + kernel, size + pad)
    return list(range(max(start, 0), min(end, size))), end - start


def pool(x, mode, output_size, kernel=None, stride=None, padding=None, dilation=None, count_include_pad=True,
         divisor_override=None):
    """Pooling of an NCHW-style float64 ``x`` (N, C, *spatial), brute force: ``(y, indices)`` with
    torch's flat indices (max modes; None otherwise) and ``windows``: per output, the flat input
    positions and the divisor, for :func:`pool_grad`."""
    x = np.asarray(x, np.float64)
    n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
    nd = len(spatial)
    kernel, stride = kernel or (1,) * nd, stride or (1,) * nd
    padding, dilation = padding or (0,) * nd, dilation or (1,) * nd
    y = np.empty((n, c, *output_size))
    indices = np.empty((n, c, *output_size), np.int64)
    windows = {}
    planes = x.reshape(n, c, -1)
    for o in np.ndindex(*output_size):
        axes = [_axis_window(mode, o[a], spatial[a], output_size[a], kernel[a], stride[a], padding[a], dilation[a])
                for a in range(nd)]
        grid = np.meshgrid(*[np.array(p, np.int64) for p, _ in axes], indexing="ij")
        flat = np.ravel_multi_index(tuple(g.ravel() for g in grid), spatial) if grid[0].size else np.zeros(0, np.int64)
        vals = planes[:, :, flat]
        if mode in ("max", "adaptive_max"):
            nan = np.isnan(vals)
            last_nan = vals.shape[2] - 1 - np.argmax(nan[:, :, ::-1], axis=2)
            pick = np.where(nan.any(axis=2), last_nan, np.argmax(np.where(nan, -np.inf, vals), axis=2))
            indices[(slice(None), slice(None), *o)] = flat[pick]
            y[(slice(None), slice(None), *o)] = np.take_along_axis(vals, pick[:, :, None], 2)[:, :, 0]
            windows[o] = (flat, None)
        else:
            inside = len(flat)
            if mode == "adaptive_avg" or not count_include_pad:
                divisor = inside
            else:
                divisor = int(np.prod([length for _, length in axes]))
            if divisor_override:
                divisor = divisor_override
            y[(slice(None), slice(None), *o)] = vals.sum(axis=2) / divisor
            windows[o] = (flat, divisor)
    return y, (indices if mode in ("max", "adaptive_max") else None), windows


def pool_grad(g, x_shape, mode, indices, windows):
    """Input gradient by scatter (the other way round from the kernel's gather)."""
    g = np.asarray(g, np.float64)
    n, c = x_shape[:2]
    dx = np.zeros((n, c, int(np.prod(x_shape[2:]))))
    for o, (flat, divisor) in windows.items():
        go = g[(slice(None), slice(None), *o)]
        if mode in ("max", "adaptive_max"):
            idx = indices[(slice(None), slice(None), *o)]
            for i in range(n):
                for j in range(c):
                    dx[i, j, idx[i, j]] += go[i, j]
        else:
            dx[:, :, flat] += (go / divisor)[:, :, None]
    return dx.reshape(x_shape)
