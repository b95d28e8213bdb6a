"""Self-checks and vendor-ratio benchmark cases of the convolutions (walked by ``python -m rocarray``).

Self-checks run every algorithm that applies to small problems (odd sizes, stride, dilation,
groups, depthwise, 1x1, both layouts, 1-D to 3-D) and compare the forward with a NumPy float64
reference, then check the two gradients through the adjoint identities
``<conv(x, w), dy> = <x, dx> = <w, dw>`` on the same data. Benchmark cases time ``ra.nn.conv2d``
against ``torch.nn.functional.conv2d`` (cuDNN) on the same device memory (through DLPack), after
one search in the ``'normal'`` find mode: the issue's 3x3 N64 C256->256 56x56 in float16 channels
last and float32 channels first (cuDNN with tf32 off: true float32 on both sides), a 1x1 and a
depthwise 3x3 of the same activation size. torch is imported by the vendor side only; without it
those rows report the ImportError.
"""

import itertools
import math

import numpy

from rocarray._core import backend, harness
from rocarray._core.harness import BenchCase

_LIB = "miopen"


def _reference(p, x, w):
    """Forward of ConvProblem ``p`` in float64 (x, w in p's layout), in p's layout."""
    first = (lambda a: numpy.moveaxis(a, -1, 1)) if p.channels_last else (lambda a: a)
    x, w = first(x.astype(numpy.float64)), first(w.astype(numpy.float64))
    padded = [max(i + q, (o - 1) * s + (f - 1) * d + 1)
              for i, q, o, s, f, d in zip(p.input_size, p.pad, p.output_size, p.stride, p.filter_size, p.dilation)]
    xp = numpy.zeros(x.shape[:2] + tuple(padded))
    xp[(slice(None), slice(None)) + tuple(slice(q, q + i) for q, i in zip(p.pad, p.input_size))] = x
    y = numpy.zeros((p.n, p.k) + tuple(p.output_size))
    cg, kg = p.c_per_group, p.k_per_group
    for tap in itertools.product(*(range(f) for f in p.filter_size)):
        win = tuple(slice(t * d, t * d + (o - 1) * s + 1, s)
                    for t, d, o, s in zip(tap, p.dilation, p.output_size, p.stride))
        xs = xp[(slice(None), slice(None)) + win]
        for g in range(p.groups):
            y[:, g * kg:(g + 1) * kg] += numpy.einsum("nc...,kc->nk...", xs[:, g * cg:(g + 1) * cg],
                                                      w[(slice(g * kg, (g + 1) * kg), slice(None)) + tap])
    return numpy.moveaxis(y, 1, -1) if p.channels_last else y


def _problem(direction, n, c, k, size, flt, stride, pad, dil, groups, dtype, layout):
    from rocarray.miopen import ConvProblem
    from rocarray.miopen._conv_problem import output_length

    nd = len(size)
    stride, pad, dil = ((v,) * nd if isinstance(v, int) else v for v in (stride, pad, dil))
    out = tuple(output_length(i, f, s, q, q, d) for i, f, s, q, d in zip(size, flt, stride, pad, dil))
    return ConvProblem(direction, n, c, k, size, flt, out, stride, pad, dil, groups, dtype, layout)


_CASES = [  # (n, c, k, size, filter, stride, pad, dilation, groups)
    (2, 3, 5, (13, 11), (3, 3), 2, 1, 1, 1),
    (1, 8, 12, (9, 10), (3, 3), 1, 2, 2, 4),
    (2, 6, 12, (7, 9), (3, 3), 1, 1, 1, 6),
    (2, 12, 12, (11, 19), (3, 3), 1, 1, 1, 12),  # depthwise 3x3 stride 1: NHWC takes the tiled kernel
    (2, 12, 12, (11, 19), (3, 3), 2, 1, 1, 12),  # depthwise 3x3 stride 2: the run kernel
    (3, 16, 8, (6, 5), (1, 1), 1, 0, 1, 1),
    (2, 5, 7, (31,), (5,), 2, 2, 1, 1),
    (1, 3, 4, (6, 7, 5), (3, 3, 3), 1, 1, 1, 1),
]


@harness.self_check(_LIB, "convolution")
def check_convolution(rng):
    from rocarray import miopen

    cupy = backend.cupy()
    for case, layout, dtype in itertools.product(_CASES, ("NCHW", "NHWC"), ("float32", "float64")):
        problems = [_problem(d, *case, dtype, layout) for d in ("forward", "backward_data", "backward_weights")]
        fwd, bd, bw = problems
        x, w, dy = (harness.standard_normal(rng, s, dtype) for s in (fwd.x_shape(), fwd.w_shape(), fwd.y_shape()))
        want = _reference(fwd, x, w)
        lhs = float(numpy.vdot(want, dy.astype(numpy.float64)))
        terms = fwd.c_per_group * math.prod(fwd.filter_size)
        for algo in miopen.conv_algorithms(fwd):
            y = miopen.convolution_forward(fwd, cupy.asarray(x), cupy.asarray(w), algo=algo)
            harness.assert_close(y, want, dtype, terms, name=f"forward {algo} {case} {layout} {dtype}")
        scale = abs(lhs) + float(numpy.abs(want).sum() * numpy.abs(dy).max())
        tol = harness.tolerance(dtype, terms * math.prod(fwd.output_size))
        for algo in miopen.conv_algorithms(bd):
            dx = cupy.asnumpy(miopen.convolution_backward_data(bd, cupy.asarray(dy), cupy.asarray(w), algo=algo))
            err = abs(float(numpy.vdot(x.astype(numpy.float64), dx.astype(numpy.float64))) - lhs)
            assert err <= tol * scale, f"backward_data {algo} {case} {layout} {dtype}: adjoint off by {err}"
        for algo in miopen.conv_algorithms(bw):
            dw = cupy.asnumpy(miopen.convolution_backward_weights(bw, cupy.asarray(x), cupy.asarray(dy), algo=algo))
            err = abs(float(numpy.vdot(w.astype(numpy.float64), dw.astype(numpy.float64))) - lhs)
            assert err <= tol * scale, f"backward_weights {algo} {case} {layout} {dtype}: adjoint off by {err}"


# --------------------------------------------------------------------------------------------
# benchmark cases: ra.nn.conv2d against torch.nn.functional.conv2d (cuDNN) on the same memory
# --------------------------------------------------------------------------------------------

def _torch():
    return harness.require("torch")


def _conv_case(name, n, c, k, hw, flt, groups, dtype, layout):
    pad = flt // 2

    def setup():
        import rocarray as ra

        cupy = backend.cupy()
        dt = numpy.dtype(dtype)
        if layout == "NHWC":
            x_shape, w_shape = (n, hw, hw, c), (k, flt, flt, c // groups)
        else:
            x_shape, w_shape = (n, c, hw, hw), (k, c // groups, flt, flt)
        x = cupy.random.standard_normal(x_shape, dtype=numpy.float32).astype(dt)
        w = (cupy.random.standard_normal(w_shape, dtype=numpy.float32) / math.sqrt(c // groups * flt * flt)).astype(dt)
        with ra.nn.find_mode("normal"):  # the search runs once here, not in the timed calls
            ra.nn.conv2d(x, w, padding=pad, groups=groups, layout=layout)
        try:
            torch = _torch()
            tx, tw = torch.from_dlpack(x), torch.from_dlpack(w)
            if layout == "NHWC":  # channels-last tensors: the same memory seen as NCHW with NHWC strides
                tx, tw = tx.permute(0, 3, 1, 2), tw.permute(0, 3, 1, 2)
        except ImportError:
            tx = tw = None
        return x, w, tx, tw

    def rocarray(x, w, tx, tw):
        import rocarray as ra

        ra.nn.conv2d(x, w, padding=pad, groups=groups, layout=layout)

    def vendor(x, w, tx, tw):
        torch = _torch()
        torch.backends.cudnn.allow_tf32 = False  # true float32 arithmetic on both sides
        torch.nn.functional.conv2d(tx, tw, padding=pad, groups=groups)

    itemsize = numpy.dtype(dtype).itemsize
    flops = 2 * n * k * hw * hw * (c // groups) * flt * flt
    nbytes = (n * hw * hw * (c + k) + k * (c // groups) * flt * flt) * itemsize
    return harness.bench_case(BenchCase(f"miopen.{name}", _LIB, setup, rocarray, vendor, bytes_moved=nbytes,
                                        flops=flops, memory_bound=groups == c))


_conv_case("conv3x3_n64_c256_56_f16_nhwc", 64, 256, 256, 56, 3, 1, "float16", "NHWC")
_conv_case("conv3x3_n64_c256_56_f32_nchw", 64, 256, 256, 56, 3, 1, "float32", "NCHW")
_conv_case("conv1x1_n64_c256_56_f16_nhwc", 64, 256, 256, 56, 1, 1, "float16", "NHWC")
_conv_case("conv1x1_n64_c256_56_f32_nchw", 64, 256, 256, 56, 1, 1, "float32", "NCHW")
_conv_case("depthwise3x3_n64_c256_56_f16_nhwc", 64, 256, 256, 56, 3, 256, "float16", "NHWC")
_conv_case("depthwise3x3_n64_c256_56_f32_nchw", 64, 256, 256, 56, 3, 256, "float32", "NCHW")
