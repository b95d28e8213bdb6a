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
            d = np.where(x < -3, 0.0, np.where(x <= 3, x / 3 + 0.5, 1.0))
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
