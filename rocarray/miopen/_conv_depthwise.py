"""The ``"depthwise"`` convolution algorithm (kernels of ``miopen/conv_depthwise.hip``): problems
with ``groups == C`` (one input channel per group, any channel multiplier ``K / C``), every
direction, dtype, layout and number of spatial axes.

Each output element sums its taps alone (no channel loop), so the forward and the data gradient
are one pass over the tensors with the taps' neighbours in cache; the weight gradient gives each
block one weight element (``K x taps`` blocks) and sums over the batch and the output positions.
"""

import math

from rocarray._core import compile as _compile, kernels, launch, plans
from rocarray.miopen._conv_direct import DTYPES, ctype, geometry

SOURCE = "miopen/conv_depthwise.hip"
BLOCK = 256
MAX_GRID = 1 << 20
_KERNEL = {"forward": "fwd", "backward_data": "bwd_data", "backward_weights": "bwd_weights"}


def kernel_name(direction, dtype, channels_last):
    return (f"ra_miopen_conv_depthwise_{_KERNEL[direction]}<{ctype(dtype)}, "
            f"{'true' if channels_last else 'false'}>")


_compile.register(SOURCE, sorted(kernel_name(d, t, cl) for d in _KERNEL for t in DTYPES for cl in (False, True)))
KERNELS = kernels.Family(SOURCE, BLOCK, 8)


def _plan(problem, device_id):
    if problem.direction == "forward":
        items = problem.n * problem.k * math.prod(problem.output_size)
    elif problem.direction == "backward_data":
        items = problem.n * problem.c * math.prod(problem.input_size)
    else:
        items = problem.k * math.prod(problem.filter_size)
    if items == 0:
        return lambda a, b, out: None
    # the weight gradient takes a block per weight element
    blocks = items if problem.direction == "backward_weights" else -(-items // BLOCK)
    P = launch.POINTER
    with launch.on_device(device_id):
        prepared = KERNELS[kernel_name(problem.direction, problem.dtype, problem.channels_last)].prepare(
            device_id, (int(max(1, min(MAX_GRID, blocks))),), (geometry(problem), P, P, P))

    def run(a, b, out):
        prepared(a.data.ptr, b.data.ptr, out.data.ptr)
    return run


class Depthwise:
    """The depthwise algorithm object (see :mod:`rocarray.miopen._conv_registry`)."""

    name = "depthwise"
    fuses_epilogue = False
    sources = (SOURCE,)

    def applicable(self, problem):
        return problem.dtype.name in DTYPES and problem.groups == problem.c and problem.c_per_group == 1

    def run(self, problem, x, w, y, *, bias=None, activation=None):
        device_id = x.data.device_id
        plan = plans.cache.lookup(("miopen.conv.depthwise", problem, device_id), lambda: _plan(problem, device_id))
        if problem.direction == "forward":
            plan(x, w, y)
        elif problem.direction == "backward_data":
            plan(y, w, x)
        else:
            plan(x, y, w)


ALGORITHMS = [Depthwise()]
