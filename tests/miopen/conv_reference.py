"""NumPy float64 reference of a convolution in its three directions, for any
:class:`rocarray.miopen._conv_problem.ConvProblem` (1-D to 3-D, both layouts, groups, stride,
padding, dilation), plus a naive loop over every output element that the tests check it against.

Arrays are taken and returned in the problem's layout (host arrays of any float dtype; results
are float64). Internally everything runs channels first: each filter tap adds one ``einsum`` of a
strided slice of the padded input, so the cost is taps x one dense product.
"""

import itertools

import numpy as np


def channels_first(a, problem):
    """``a`` (x, w or y of ``problem``) as float64 in channels-first order."""
    a = np.asarray(a, dtype=np.float64)
    return np.moveaxis(a, -1, 1) if problem.channels_last else a


def in_layout(a, problem):
    """A channels-first array back in ``problem``'s layout (contiguous)."""
    return np.ascontiguousarray(np.moveaxis(a, 1, -1) if problem.channels_last else a)


def _padded_lengths(problem):
    """Per axis: (pad before, padded length) covering every tap of every output position."""
    out = []
    for i, o, r, s, p, d in zip(problem.input_size, problem.output_size, problem.filter_size, problem.stride,
                                problem.pad, problem.dilation):
        need = (o - 1) * s + (r - 1) * d + 1 if o > 0 else 0
        out.append((p, max(need, i + p)))
    return out


def _tap_slices(problem, tap):
    """Slices of the padded input that tap ``tap`` reads for every output position."""
    return tuple(slice(t * d, t * d + (o - 1) * s + 1, s)
                 for t, d, o, s in zip(tap, problem.dilation, problem.output_size, problem.stride))


def _pad(x, problem):
    lengths = _padded_lengths(problem)
    xp = np.zeros(x.shape[:2] + tuple(n for _, n in lengths))
    inner = tuple(slice(p, p + i) for (p, _), i in zip(lengths, problem.input_size))
    xp[(slice(None), slice(None)) + inner] = x
    return xp, inner


def _grouped(a, groups):
    """(N, C, *S) -> (N, G, C/G, *S)."""
    return a.reshape(a.shape[0], groups, a.shape[1] // groups, *a.shape[2:])


def forward(problem, x, w):
    """``y`` of ``problem`` (float64, in its layout) from ``x`` and ``w``."""
    g = problem.groups
    x, w = channels_first(x, problem), channels_first(w, problem)
    xp, _ = _pad(x, problem)
    wg = w.reshape(g, problem.k_per_group, problem.c_per_group, *problem.filter_size)
    y = np.zeros((problem.n, g, problem.k_per_group, *problem.output_size))
    for tap in itertools.product(*map(range, problem.filter_size)):
        xs = _grouped(xp[(slice(None), slice(None)) + _tap_slices(problem, tap)], g)
        y += np.einsum("ngc...,gkc->ngk...", xs, wg[(Ellipsis,) + tap])
    return in_layout(y.reshape(problem.n, problem.k, *problem.output_size), problem)


def backward_data(problem, dy, w):
    """``dx`` of ``problem`` (float64, in its layout) from ``dy`` and ``w``."""
    g = problem.groups
    dy, w = channels_first(dy, problem), channels_first(w, problem)
    dxp, inner = _pad(np.zeros((problem.n, problem.c, *problem.input_size)), problem)
    wg = w.reshape(g, problem.k_per_group, problem.c_per_group, *problem.filter_size)
    dyg = _grouped(dy, g)
    for tap in itertools.product(*map(range, problem.filter_size)):
        part = np.einsum("ngk...,gkc->ngc...", dyg, wg[(Ellipsis,) + tap])
        dxp[(slice(None), slice(None)) + _tap_slices(problem, tap)] += part.reshape(
            problem.n, problem.c, *problem.output_size)
    return in_layout(dxp[(slice(None), slice(None)) + inner], problem)


def backward_weights(problem, x, dy):
    """``dw`` of ``problem`` (float64, in its layout) from ``x`` and ``dy``."""
    g = problem.groups
    x, dy = channels_first(x, problem), channels_first(dy, problem)
    xp, _ = _pad(x, problem)
    dyg = _grouped(dy, g).reshape(problem.n, g, problem.k_per_group, -1)
    dw = np.zeros((g, problem.k_per_group, problem.c_per_group, *problem.filter_size))
    for tap in itertools.product(*map(range, problem.filter_size)):
        xs = _grouped(xp[(slice(None), slice(None)) + _tap_slices(problem, tap)], g)
        dw[(Ellipsis,) + tap] = np.einsum("ngcp,ngkp->gkc", xs.reshape(*xs.shape[:3], -1), dyg)
    return in_layout(dw.reshape(problem.k, problem.c_per_group, *problem.filter_size), problem)


def run(problem, x, w, y):
    """The reference of ``problem.direction`` from the two operands it reads (the registry's
    argument order: forward reads x, w; backward_data reads y (dy), w; backward_weights x, y)."""
    if problem.direction == "forward":
        return forward(problem, x, w)
    if problem.direction == "backward_data":
        return backward_data(problem, y, w)
    return backward_weights(problem, x, y)


def naive_forward(problem, x, w):
    """``y`` by the definition, one output element at a time (tiny problems only)."""
    x, w = channels_first(x, problem), channels_first(w, problem)
    cg, kg = problem.c_per_group, problem.k_per_group
    y = np.zeros((problem.n, problem.k, *problem.output_size))
    for n, k in itertools.product(range(problem.n), range(problem.k)):
        group = k // kg
        for o in itertools.product(*map(range, problem.output_size)):
            total = 0.0
            for c, tap in itertools.product(range(cg), itertools.product(*map(range, problem.filter_size))):
                pos = [oi * s - p + t * d for oi, s, p, t, d in zip(o, problem.stride, problem.pad, tap,
                                                                      problem.dilation)]
                if all(0 <= q < i for q, i in zip(pos, problem.input_size)):
                    total += x[(n, group * cg + c, *pos)] * w[(k, c, *tap)]
            y[(n, k, *o)] = total
    return in_layout(y, problem)


def make_problem(direction="forward", n=1, c=1, k=1, input_size=(5, 5), filter_size=(3, 3), stride=1, pad=0,
                 dilation=1, groups=1, dtype="float64", layout="NCHW", pad_after=None):
    """A :class:`ConvProblem` with the output size computed (scalars apply to every axis;
    ``pad_after`` defaults to ``pad``)."""
    from rocarray.miopen._conv_problem import ConvProblem, output_length

    nd = len(input_size)

    def per_axis(v):
        return tuple(v) if isinstance(v, (tuple, list)) else (v,) * nd

    stride, pad, dilation = per_axis(stride), per_axis(pad), per_axis(dilation)
    after = pad if pad_after is None else per_axis(pad_after)
    filter_size = per_axis(filter_size)
    output_size = tuple(output_length(*a) for a in zip(input_size, filter_size, stride, pad, after, dilation))
    return ConvProblem(direction, n, c, k, tuple(input_size), filter_size, output_size, stride, pad, dilation,
                       groups, np.dtype(dtype), layout)


def random_operands(rng, problem, dtype=None):
    """Random host ``x``, ``w``, ``y`` of ``problem`` (in ``dtype``, default the problem's)."""
    dtype = problem.dtype if dtype is None else dtype
    return tuple(rng.standard_normal(s).astype(dtype) for s in (problem.x_shape(), problem.w_shape(),
                                                                problem.y_shape()))


def _eps(dtype):
    name = np.dtype(dtype).name
    return {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8, "float32": 2.0 ** -24}.get(name, 2.0 ** -53)


def assert_conv_close(actual, problem, x, w, y=None, accumulate="float32", slack=1.0):
    """Check a device result of ``problem.direction`` against :func:`run` in float64, within the
    rounding of the problem's dtype plus the accumulation error of the products each element
    sums, in ``accumulate``, both relative to the same result computed on the absolute values (an upper
    bound of every partial sum). ``slack`` widens it for algorithms that transform the data
    (Winograd, FFT)."""
    dtype = problem.dtype
    acc = "float64" if dtype.name == "float64" else accumulate
    expected = run(problem, x, w, y)
    bound = run(problem, *(None if a is None else np.abs(np.asarray(a, np.float64)) for a in (x, w, y)))
    taps = int(np.prod(problem.filter_size))
    terms = {"forward": problem.c_per_group * taps, "backward_data": problem.k_per_group * taps,
             "backward_weights": problem.n * int(np.prod(problem.output_size))}[problem.direction]
    tol = slack * (2 * _eps(dtype) + _eps(acc) * (terms + 2)) * bound + 1e-300
    actual = np.asarray(actual).astype(np.float64)
    assert actual.shape == expected.shape
    assert np.isfinite(actual).all(), "non-finite outputs (an element left unwritten?)"
    err = np.abs(actual - expected)
    worst = np.unravel_index(np.argmax(err - tol), err.shape)
    assert (err <= tol).all(), (f"{int((err > tol).sum())} of {err.size} elements off; worst at {worst}: "
                                f"{actual[worst]} vs {expected[worst]} (tolerance {tol[worst]})")
