"""The ``"depthwise"`` convolution algorithm (kernels of ``miopen/conv_depthwise.hip``): problems
with ``groups == C`` (one input channel per group, any channel multiplier ``K / C``), every
direction, dtype, layout and number of spatial axes.

Each output element sums its taps alone (no channel loop), so the forward and the data gradient
are one pass over the tensors with the taps' neighbours in cache (the forward adds the bias and
applies the activation before its one rounding); the weight gradient gives each
block one weight element (``K x taps`` blocks) and sums over the batch and the output positions.
"""

import math

from rocarray._core import compile as _compile, kernels
from rocarray.miopen._conv_direct import DTYPES, ctype, run_plan

SOURCE = "miopen/conv_depthwise.hip"
BLOCK = 256
_KERNEL = {"forward": "fwd", "backward_data": "bwd_data", "backward_weights": "bwd_weights", "fwd2d": "fwd2d"}


#: Outputs of a row per thread of the 2-D forward kernel (``RA_DW_TW``).
TILE_W = 4
#: Sizes below this (elements of x and y) take the 2-D forward kernel's 32-bit indexing, with
#: room for a grid-stride step past the end.
SMALL = 1 << 30


def kernel_name(direction, dtype, channels_last):
    return (f"ra_miopen_conv_depthwise_{_KERNEL[direction]}<{ctype(dtype)}, "
            f"{'true' if channels_last else 'false'}>")


_compile.register(SOURCE, sorted(kernel_name(d, t, cl) for d in _KERNEL for t in DTYPES
                                 for cl in (False, True)))
KERNELS = kernels.Family(SOURCE, BLOCK, 8)


def _kernel(problem):
    """``(kernel, work items)``: the 2-D forward kernel where it applies, else the general one."""
    p = problem
    if (p.direction == "forward" and p.nd <= 2 and p.n * p.c * math.prod(p.input_size) < SMALL
            and p.n * p.k * math.prod(p.output_size) < SMALL):
        tiles = -(-p.output_size[-1] // TILE_W)
        rows = math.prod(p.output_size[:-1])
        return KERNELS[kernel_name("fwd2d", p.dtype, p.channels_last)], p.n * p.k * rows * tiles
    return KERNELS[kernel_name(p.direction, p.dtype, p.channels_last)], None


class Depthwise:
    """The depthwise algorithm object (see :mod:`rocarray.miopen._conv_registry`)."""

    name = "depthwise"
    fuses_epilogue = True
    sources = (SOURCE,)

    def applicable(self, problem):
        return problem.dtype.name in DTYPES and problem.groups == problem.c and problem.c_per_group == 1

    def run(self, problem, x, w, y, *, bias=None, activation=None):
        run_plan("miopen.conv.depthwise", _kernel, problem, x, w, y, bias, activation)


ALGORITHMS = [Depthwise()]
