"""The ``"direct"`` convolution algorithm (kernels of ``miopen/conv_direct.hip``).

Every problem: each direction, dtype (float64 included), layout, 1 to 3 spatial axes, groups,
stride, dilation and padding. The forward pass and the data gradient give each thread one output
element and sum its taps straight from memory; the weight gradient gives each block one weight
element and sums over the batch and the output positions with a block reduction. The forward adds
the bias and applies the activation before its one rounding. No scratch, no atomics: the same
bits on every run. The other algorithms are faster where they apply; this one is
the reference they are checked against and the fallback of the search.
"""

import math

import numpy

from rocarray._core import compile as _compile, dtypes, kernels, launch, plans

SOURCE = "miopen/conv_direct.hip"
#: Threads per block of every launch (``RA_CONV_BLOCK``).
BLOCK = 256
#: Most blocks of a grid-stride launch.
MAX_GRID = 1 << 20
BLOCKS_PER_MULTIPROCESSOR = 8
#: Activation codes of the fused epilogues (``ra_activation``'s, plus leaky_relu) in every kernel
#: that applies one.
ACTIVATIONS = {None: 0, "relu": 1, "gelu": 2, "silu": 3, "sigmoid": 4, "tanh": 5, "leaky_relu": 6}
#: leaky_relu's slope in the fused epilogue (torch's default).
LEAKY_RELU_SLOPE = 0.01
#: The dtypes the kernels are instantiated for.
DTYPES = ("float16", "bfloat16", "float32", "float64")
#: Kernel element type of each dtype name (bfloat16 is ml_dtypes', which may be absent here).
CTYPES = {"float16": "ra_half", "bfloat16": dtypes.BFLOAT16, "float32": "float", "float64": "double"}
_KERNEL = {"forward": "fwd", "backward_data": "bwd_data", "backward_weights": "bwd_weights"}

_AXES = ("in", "flt", "out", "stride", "pad", "dil")
#: The kernels' ``ra_conv_geometry``, passed by value: int64 fields in the struct's order.
GEOMETRY = numpy.dtype([(f, "<i8") for f in ("n", "c", "k", "groups", "cpg", "kpg")]
                       + [(f"{a}{i}", "<i8") for a in _AXES for i in range(3)])


def geometry(problem):
    """``problem`` as the kernels' ``ra_conv_geometry`` (a size-one structured array); problems of
    fewer than three spatial axes get leading axes of size 1 (filter 1, stride 1, no padding)."""
    def lead(values, fill):
        return (fill,) * (3 - len(values)) + tuple(values)

    values = (problem.n, problem.c, problem.k, problem.groups, problem.c_per_group, problem.k_per_group,
              *lead(problem.input_size, 1), *lead(problem.filter_size, 1), *lead(problem.output_size, 1),
              *lead(problem.stride, 1), *lead(problem.pad, 0), *lead(problem.dilation, 1))
    g = numpy.zeros(1, GEOMETRY)
    g[0] = values
    return g


def ctype(dtype):
    """The kernel element type of a dtype (or dtype name) of :data:`DTYPES`."""
    return CTYPES[getattr(dtype, "name", dtype)]


def kernel_name(direction, dtype, channels_last):
    """Name expression, e.g. ``'ra_miopen_conv_direct_fwd<float, true>'``."""
    return f"ra_miopen_conv_direct_{_KERNEL[direction]}<{ctype(dtype)}, {'true' if channels_last else 'false'}>"


def instantiations():
    """Every name expression of ``conv_direct.hip`` the algorithm launches."""
    return sorted(kernel_name(d, t, cl) for d in _KERNEL for t in DTYPES for cl in (False, True))


_compile.register(SOURCE, instantiations())
KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def _grid(items):
    return int(max(1, min(MAX_GRID, -(-int(items) // BLOCK))))


def launch_plan(problem, device_id, kernel, activation, items=None):
    """``run(a, b, out, bias)`` for ``problem``: one prepared launch of ``kernel`` (a thread per
    output element, or per ``items`` work items when given; a block per weight element for the
    weight gradient), nothing when the output is empty. The forward kernels take the bias (a
    pointer, 0 for none) and the activation."""
    if items is None:
        items = {"forward": problem.n * problem.k * math.prod(problem.output_size),
                 "backward_data": problem.n * problem.c * math.prod(problem.input_size),
                 "backward_weights": problem.k * problem.c_per_group * math.prod(problem.filter_size)}[problem.direction]
    if items == 0:
        return lambda a, b, out, bias: None
    grid = int(min(items, MAX_GRID)) if problem.direction == "backward_weights" else _grid(items)
    P = launch.POINTER
    args = (geometry(problem), P, P, P)
    if problem.direction == "forward":
        args += (P, numpy.int32(ACTIVATIONS[activation]), numpy.float64(LEAKY_RELU_SLOPE))
    with launch.on_device(device_id):
        prepared = kernel.prepare(device_id, (grid,), args)
    if problem.direction != "forward":
        return lambda a, b, out, bias: prepared(a.data.ptr, b.data.ptr, out.data.ptr)
    return lambda a, b, out, bias: prepared(a.data.ptr, b.data.ptr, out.data.ptr, 0 if bias is None else bias.data.ptr)


def run_plan(name, kernel_of, problem, x, w, y, bias, activation):
    """Run ``problem`` through the cached :func:`launch_plan` of ``kernel_of(problem) -> (kernel,
    work items or None)``: the registry's ``run`` of a one-launch algorithm."""
    device_id = x.data.device_id
    plan = plans.cache.get((name, problem, activation, device_id))
    if plan is None:
        kernel, items = kernel_of(problem)
        plan = plans.cache.put((name, problem, activation, device_id),
                               launch_plan(problem, device_id, kernel, activation, items))
    if problem.direction == "forward":
        plan(x, w, y, bias)
    elif problem.direction == "backward_data":
        plan(y, w, x, None)
    else:
        plan(x, y, w, None)


def _kernel(problem):
    return KERNELS[kernel_name(problem.direction, problem.dtype, problem.channels_last)], None


class Direct:
    """The direct algorithm object (see :mod:`rocarray.miopen._conv_registry`)."""

    name = "direct"
    fuses_epilogue = True
    sources = (SOURCE,)

    def applicable(self, problem):
        return problem.dtype.name in DTYPES

    def run(self, problem, x, w, y, *, bias=None, activation=None):
        run_plan("miopen.conv.direct", _kernel, problem, x, w, y, bias, activation)


ALGORITHMS = [Direct()]
