"""NumPy float64 reference of convolution (forward, data gradient, weight gradient) for any
:class:`rocarray.miopen.ConvProblem`, and a helper that makes problems; test code, not library code."""

import itertools

import numpy as np

from rocarray.miopen import ConvProblem
from rocarray.miopen._conv_problem import output_length


def problem(direction, n, c, k, input_size, filter_size, *, stride=1, pad=0, dilation=1, groups=1,
            dtype="float64", layout="NCHW", pad_after=None):
    """A ConvProblem; per-axis values given as ints or tuples; padding after = before by default."""
    nd = len(input_size)

    def axes(v):
        return tuple(v) if isinstance(v, (tuple, list)) else (v,) * nd

    stride, pad, dilation = axes(stride), axes(pad), axes(dilation)
    after = pad if pad_after is None else axes(pad_after)
    out = tuple(output_length(i, f, s, p, q, d)
                for i, f, s, p, q, d in zip(input_size, filter_size, stride, pad, after, dilation))
    return ConvProblem(direction, n, c, k, tuple(input_size), tuple(filter_size), out, stride, pad, dilation, groups,
                       np.dtype(dtype), layout)


def _first(a, p):
    return np.moveaxis(a, -1, 1) if p.channels_last else a


def _last(a, p):
    return np.ascontiguousarray(np.moveaxis(a, 1, -1) if p.channels_last else a)


def _padded_size(p):
    # padding after each axis so that every tap of every output position lies inside
    return tuple(max(i + q, (o - 1) * s + (f - 1) * d + 1)
                 for i, q, o, s, f, d in zip(p.input_size, p.pad, p.output_size, p.stride, p.filter_size, p.dilation))


def _windows(p):
    """(tap index, tuple of slices into the padded input) for every filter tap."""
    for tap in itertools.product(*(range(f) for f in p.filter_size)):
        yield tap, tuple(slice(t * d, t * d + (o - 1) * s + 1, s)
                         for t, d, o, s in zip(tap, p.dilation, p.output_size, p.stride))


def _padded(x, p):
    xp = np.zeros(x.shape[:2] + _padded_size(p))
    inner = tuple(slice(q, q + i) for q, i in zip(p.pad, p.input_size))
    xp[(slice(None), slice(None)) + inner] = x
    return xp


def forward(p, x, w):
    """y of ``p`` (arrays in p's layout), float64."""
    x, w = _first(np.asarray(x, np.float64), p), _first(np.asarray(w, np.float64), p)
    xp = _padded(x, p)
    y = np.zeros((p.n, p.k) + tuple(p.output_size))
    cg, kg = p.c_per_group, p.k_per_group
    for tap, win in _windows(p):
        xs = xp[(slice(None), slice(None)) + win]
        for g in range(p.groups):
            y[:, g * kg:(g + 1) * kg] += np.einsum("nc...,kc->nk...", xs[:, g * cg:(g + 1) * cg],
                                                   w[(slice(g * kg, (g + 1) * kg), slice(None)) + tap])
    return _last(y, p)


def backward_data(p, dy, w):
    """dx of ``p`` from dy and w, float64."""
    dy, w = _first(np.asarray(dy, np.float64), p), _first(np.asarray(w, np.float64), p)
    dxp = np.zeros((p.n, p.c) + _padded_size(p))
    cg, kg = p.c_per_group, p.k_per_group
    for tap, win in _windows(p):
        for g in range(p.groups):
            dxp[(slice(None), slice(g * cg, (g + 1) * cg)) + win] += np.einsum(
                "nk...,kc->nc...", dy[:, g * kg:(g + 1) * kg], w[(slice(g * kg, (g + 1) * kg), slice(None)) + tap])
    inner = tuple(slice(q, q + i) for q, i in zip(p.pad, p.input_size))
    return _last(dxp[(slice(None), slice(None)) + inner], p)


def backward_weights(p, x, dy):
    """dw of ``p`` from x and dy, float64."""
    x, dy = _first(np.asarray(x, np.float64), p), _first(np.asarray(dy, np.float64), p)
    xp = _padded(x, p)
    dw = np.zeros((p.k, p.c_per_group) + tuple(p.filter_size))
    cg, kg = p.c_per_group, p.k_per_group
    for tap, win in _windows(p):
        xs = xp[(slice(None), slice(None)) + win]
        for g in range(p.groups):
            dw[(slice(g * kg, (g + 1) * kg), slice(None)) + tap] = np.einsum(
                "ncs,nks->kc", xs[:, g * cg:(g + 1) * cg].reshape(p.n, cg, -1),
                dy[:, g * kg:(g + 1) * kg].reshape(p.n, kg, -1))
    return _last(dw, p)


def inputs(rng, p, dtype=None):
    """Random host x, w, dy of ``p`` in its layout (``dtype``: default the problem's)."""
    dtype = p.dtype if dtype is None else dtype
    return tuple(rng.standard_normal(shape).astype(dtype) for shape in (p.x_shape(), p.w_shape(), p.y_shape()))
