"""Self-checks and vendor-ratio benchmark cases of the convolution algorithms of the convalgos
modules (implicit GEMM, Winograd F(2x2, 3x3) and F(4x4, 3x3), FFT), run through their algorithm
objects (``python -m rocarray``).

The self-check runs every algorithm's forward on small random problems (odd sizes, groups,
padding; stride and dilation where the algorithm takes them) in both layouts and float16,
float32 and float64 against a float64 NumPy forward (one ``einsum`` per filter tap), and the
implicit GEMM's backward directions through the adjoint identities
``<conv(x, w), dy> = <x, dconv_x(dy, w)> = <w, dconv_w(x, dy)>`` in float64.

The benchmark cases are the issue's convolution: 3 x 3, N 64, C 256 -> K 256, 56 x 56, padding
1, float16 NHWC and float32 NCHW, once per algorithm (and bfloat16 NHWC for the implicit GEMM where
NumPy has bfloat16), and its 1 x 1 twin in float16 NHWC through the implicit GEMM, each against ``torch.nn.functional.conv2d``
(cuDNN) on the same arrays (channels-last tensors for NHWC; TF32 off for float32, so both sides
compute in true float32). Bytes counted: x, w and y once; FLOPs: 2 N K P C R S.
"""

import importlib
import itertools

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "miopen"
#: The algorithms of the convalgos modules.
ALGORITHMS = ("implicit_gemm", "winograd_f2x3", "winograd_f4x3", "fft")


def problem(direction, dtype, layout, n, c, k, input_size, filter_size, stride=1, pad=0, dilation=1, groups=1):
    """A :class:`~rocarray.miopen._conv_problem.ConvProblem` (symmetric padding; scalars apply to
    every axis)."""
    from rocarray.miopen._conv_problem import ConvProblem, output_length

    nd = len(input_size)

    def axes(v):
        return tuple(v) if isinstance(v, (tuple, list)) else (v,) * nd

    filter_size, stride, pad, dilation = axes(filter_size), axes(stride), axes(pad), axes(dilation)
    out = tuple(output_length(i, f, s, p, p, d) for i, f, s, p, d in zip(input_size, filter_size, stride, pad,
                                                                         dilation))
    return ConvProblem(direction, n, c, k, tuple(input_size), filter_size, out, stride, pad, dilation, groups,
                       numpy.dtype(dtype), layout)


def _first(a, p):
    a = numpy.asarray(a, numpy.float64)
    return numpy.moveaxis(a, -1, 1) if p.channels_last else a


def reference_forward(p, x, w):
    """float64 forward of ``p`` (channels first) from host ``x``, ``w`` in ``p``'s layout."""
    x, w = _first(x, p), _first(w, p)
    # padded lengths holding every input position and every position a tap reads
    lengths = tuple(max((o - 1) * s + (f - 1) * d + 1, q + i) for o, s, f, d, q, i in
                    zip(p.output_size, p.stride, p.filter_size, p.dilation, p.pad, p.input_size))
    xp = numpy.zeros((p.n, p.c) + lengths)
    xp[(slice(None), slice(None)) + tuple(slice(q, q + i) for q, i in zip(p.pad, p.input_size))] = x
    g = p.groups
    wg = w.reshape(g, p.k_per_group, p.c_per_group, *p.filter_size)
    y = numpy.zeros((p.n, g, p.k_per_group, *p.output_size))
    for tap in itertools.product(*map(range, p.filter_size)):
        sl = tuple(slice(t * d, t * d + (o - 1) * s + 1, s) for t, d, o, s in zip(tap, p.dilation, p.output_size,
                                                                                 p.stride))
        xs = xp[(slice(None), slice(None)) + sl].reshape(p.n, g, p.c_per_group, *p.output_size)
        y += numpy.einsum("ngc...,gkc->ngk...", xs, wg[(Ellipsis,) + tap])
    return y.reshape(p.n, p.k, *p.output_size)


_FORWARD_CASES = [
    dict(n=2, c=6, k=10, input_size=(11, 9), filter_size=3, pad=1, groups=2),
    dict(n=1, c=5, k=7, input_size=(13, 12), filter_size=5, stride=2, pad=2, dilation=2),
    dict(n=2, c=3, k=4, input_size=(29,), filter_size=7, pad=3),
    # one group, stride 1, channels a multiple of 8: the warpgroup kernel's (float16 NHWC on sm_90)
    dict(n=2, c=24, k=40, input_size=(13, 17), filter_size=3, pad=1),
]


def _run(algorithm, p, arrays):
    cupy = backend.cupy()
    x, w, y = (cupy.asarray(a) for a in arrays)
    algorithm.run(p, x, w, y)
    return x, w, y


@harness.self_check(_LIB, "convalgos_forward")
def check_forward(rng):
    from rocarray.miopen._conv_registry import algorithms

    cupy = backend.cupy()
    for name, dtype, layout, args in itertools.product(ALGORITHMS, ("float16", "float32", "float64"),
                                                        ("NCHW", "NHWC"), _FORWARD_CASES):
        p = problem("forward", dtype, layout, **args)
        algorithm = algorithms()[name]
        if not algorithm.applicable(p):
            continue
        x = harness.standard_normal(rng, p.x_shape(), dtype)
        w = harness.standard_normal(rng, p.w_shape(), dtype)
        y = numpy.full(p.y_shape(), numpy.nan, dtype)
        _, _, dy = _run(algorithm, p, (x, w, y))
        want = reference_forward(p, x, w)
        terms = p.c_per_group * int(numpy.prod(p.filter_size))
        harness.assert_close(_first(cupy.asnumpy(dy), p), want, dtype, terms, factor=32,
                             name=f"{name} {dtype} {layout} {args}")


@harness.self_check(_LIB, "convalgos_backward")
def check_backward(rng):
    from rocarray.miopen._conv_registry import algorithms

    cupy = backend.cupy()
    algorithm = algorithms()["implicit_gemm"]
    for dtype, layout, args in itertools.product(("float32", "float64"), ("NCHW", "NHWC"), _FORWARD_CASES):
        p = problem("forward", dtype, layout, **args)
        x = harness.standard_normal(rng, p.x_shape(), dtype)
        w = harness.standard_normal(rng, p.w_shape(), dtype)
        dy = harness.standard_normal(rng, p.y_shape(), dtype)
        inner = float(numpy.vdot(reference_forward(p, x, w), _first(dy, p)))
        # the same sum over absolute values: a bound of every partial sum on both sides
        bound = float(numpy.vdot(reference_forward(p, abs(x), abs(w)), abs(_first(dy, p))))
        pd = problem("backward_data", dtype, layout, **args)
        dx = cupy.asnumpy(_run(algorithm, pd, (numpy.full(p.x_shape(), numpy.nan, dtype), w, dy))[0])
        pw = problem("backward_weights", dtype, layout, **args)
        dw = cupy.asnumpy(_run(algorithm, pw, (x, numpy.full(p.w_shape(), numpy.nan, dtype), dy))[1])
        for got, name in ((numpy.vdot(x.astype(numpy.float64), dx), "data"),
                          (numpy.vdot(w.astype(numpy.float64), dw), "weights")):
            if not abs(got - inner) <= 64 * harness.machine_epsilon(dtype) * bound:
                raise AssertionError(f"implicit_gemm backward {name} {dtype} {layout} {args}: "
                                     f"<., .> = {got}, forward's {inner}")


# --------------------------------------------------------------------------------------------
# benchmark cases
# --------------------------------------------------------------------------------------------

#: The issue's problem: N, C, K, H = W, R = S, padding.
ISSUE = dict(n=64, c=256, k=256, input_size=(56, 56), filter_size=3, pad=1)
#: Its 1 x 1 twin (no padding), where the default route is rocblas's gemm.
POINTWISE = dict(ISSUE, filter_size=1, pad=0)


def conv_bytes(p):
    """Bytes of x, w and y, each moved once."""
    elements = p.n * p.c * int(numpy.prod(p.input_size)) + p.k * p.c_per_group * int(numpy.prod(p.filter_size))
    elements += p.n * p.k * int(numpy.prod(p.output_size))
    return elements * p.dtype.itemsize


def _case(name, dtype, layout, shape=ISSUE, prefix="conv3x3"):
    p = problem("forward", dtype, layout, **shape)
    pad = shape["pad"]

    def setup():
        from rocarray.miopen._conv_registry import algorithms

        torch = harness.require("torch")

        cupy = backend.cupy()
        torch.backends.cudnn.allow_tf32 = False
        if p.dtype.name == "bfloat16":  # CuPy has no cast to bfloat16: the search's random data
            from rocarray.miopen._conv_find import _random

            x, w = _random(p.x_shape(), p.dtype), _random(p.w_shape(), p.dtype)
        else:
            rs = cupy.random.RandomState(7)
            x = rs.standard_normal(p.x_shape(), dtype=numpy.float32).astype(dtype)
            w = rs.standard_normal(p.w_shape(), dtype=numpy.float32).astype(dtype)
        y = cupy.empty(p.y_shape(), dtype)
        xt, wt = torch.from_dlpack(x), torch.from_dlpack(w)
        if p.channels_last:  # NHWC storage seen as NCHW tensors (torch's channels_last format)
            xt, wt = xt.permute(0, 3, 1, 2), wt.permute(0, 3, 1, 2)
        return algorithms()[name], x, w, y, xt, wt

    def ours(algorithm, x, w, y, xt, wt):
        algorithm.run(p, x, w, y)

    def theirs(algorithm, x, w, y, xt, wt):
        import torch

        torch.nn.functional.conv2d(xt, wt, padding=pad)

    harness.bench_case(BenchCase(name=f"{_LIB}.{prefix}_n64_c256_56_{dtype}_{layout.lower()}_{name}", library=_LIB,
                                 setup=setup, rocarray=ours, vendor=theirs, bytes_moved=conv_bytes(p),
                                 flops=p.flops(), memory_bound=False))


def _register_benchmarks():
    for name in ALGORITHMS:
        _case(name, "float16", "NHWC")
        _case(name, "float32", "NCHW")
    # the 1 x 1 problem forced through the implicit GEMM (the warpgroup kernel on sm_90), against
    # the gemm route that the search picks for it
    _case("implicit_gemm", "float16", "NHWC", POINTWISE, "conv1x1")
    try:
        bfloat16 = numpy.dtype(importlib.import_module("ml_dtypes").bfloat16)
    except ImportError:  # no NumPy bfloat16, so no such CuPy array either
        return
    _case("implicit_gemm", bfloat16, "NHWC")


_register_benchmarks()
