"""The ``"depthwise"`` convolution algorithm (kernels of ``miopen/conv_depthwise.hip``): problems
with ``groups == C`` (one input channel per group, any channel multiplier ``K / C``), every
direction, dtype, layout and number of spatial axes.

Each output element sums its taps alone (no channel loop), so the forward and the data gradient
are one pass over the tensors with the taps' neighbours in cache (the forward adds the bias and
applies the activation before its one rounding); the weight gradient gives each
block one weight element (``K x taps`` blocks) and sums over the batch and the output positions.

The 1-D/2-D forward computes several outputs of a row per thread. Channels last with one output
channel per input channel (``K == C``), ``C`` a multiple of the 16-byte pack (8 float16/bfloat16,
4 float32, 2 float64 channels), x and y 16-byte aligned and at most :data:`VECTOR_TAPS` taps, a
thread of the 1-D/2-D forward and data gradient takes a pack of channels (one 16-byte load per
pixel, the block's weights and bias in shared memory): :func:`vector_applies` and the pointers
decide per call. Elsewhere a thread takes one channel. Both sum the taps in the same order, so
they give the same bits. The packed forward of a 3-wide window at stride 1 or 2 along W (no
dilation along W) loads each input pack of a window row once for the thread's run of outputs,
with all of the row's loads issued together, and adds it to each output that needs it. A 3x3
window at stride 1 and dilation 1 takes the tiled forward instead (:data:`TILED`): a block walks
output tiles, staging each tile's input halo in shared memory once with the next tiles' copies in
flight, and a thread sums a column of outputs from it (same bits again).
"""

import math

import numpy

from rocarray._core import compile as _compile, kernels, launch, plans
from rocarray.miopen._conv_direct import (ACTIVATIONS, DTYPES, LEAKY_RELU_SLOPE, MAX_GRID, ctype, geometry,
                                          run_plan)

SOURCE = "miopen/conv_depthwise.hip"
BLOCK = 256
_KERNEL = {"forward": "fwd", "backward_data": "bwd_data", "backward_weights": "bwd_weights", "fwd2d": "fwd2d"}


#: Outputs of a row per thread of the 2-D forward kernels (``RA_DW_TW``).
TILE_W = 4
#: Packs of channels per block of the packed forward (``RA_DW_PACKS``).
PACKS = 32
#: Most taps of the packed forward (``RA_DW_VTAPS``: its shared memory holds them).
VECTOR_TAPS = 49
#: Sizes below this (elements of x and y) take the 2-D forward kernel's 32-bit indexing, with
#: room for a grid-stride step past the end.
SMALL = 1 << 30


def kernel_name(direction, dtype, channels_last):
    return (f"ra_miopen_conv_depthwise_{_KERNEL[direction]}<{ctype(dtype)}, "
            f"{'true' if channels_last else 'false'}>")


_VECTOR = {"forward": "fwd2d_vec", "backward_data": "bwd_data2d_vec"}
#: (window width, stride) along W of the packed forward's run kernel (``fwd2d_run``: dilation 1
#: along W, :data:`TILE_W` outputs of a row per thread like ``fwd2d_vec``).
RUN_SHAPES = ((3, 1), (3, 2))


def vector_name(direction, dtype):
    return f"ra_miopen_conv_depthwise_{_VECTOR[direction]}<{ctype(dtype)}>"


def run_name(dtype, width, stride):
    return f"ra_miopen_conv_depthwise_fwd2d_run<{ctype(dtype)}, {width}, {stride}>"


def _run_shape(problem):
    """``(width, stride)`` along W when the packed forward's run kernel takes ``problem``, else None."""
    p = problem
    shape = (p.filter_size[-1], p.stride[-1])
    return shape if p.direction == "forward" and p.dilation[-1] == 1 and shape in RUN_SHAPES else None


#: Whether the packed forward of a 3x3 window at stride 1 (dilation 1) takes the tiled kernel
#: (``fwd2d_tile``: the input halo of an output tile staged in shared memory once); False gives
#: those problems the run kernel.
TILED = True
#: Packs of channels per block of the tiled kernel (``RA_DW_TP``).
TILE_PACKS = 8
#: Output rows x columns of one tile of the tiled kernel (``RA_DW_TH``, ``RA_DW_TW2``).
TILE = (16, 8)


def tile_name(dtype):
    return f"ra_miopen_conv_depthwise_fwd2d_tile<{ctype(dtype)}>"


def tile_applies(problem):
    """Whether the tiled forward takes ``problem`` (with :func:`vector_applies` and aligned pointers):
    2-D, a 3x3 window at stride 1 and dilation 1, any padding; :data:`TILED` on."""
    p = problem
    return (TILED and p.direction == "forward" and p.nd == 2 and tuple(p.filter_size) == (3, 3)
            and tuple(p.stride) == (1, 1) and tuple(p.dilation) == (1, 1))


_compile.register(SOURCE, sorted([kernel_name(d, t, cl) for d in _KERNEL for t in DTYPES for cl in (False, True)]
                                 + [vector_name(d, t) for d in _VECTOR for t in DTYPES]
                                 + [run_name(t, *s) for t in DTYPES for s in RUN_SHAPES]
                                 + [tile_name(t) for t in DTYPES]))
KERNELS = kernels.Family(SOURCE, BLOCK, 8)


def _kernel(problem):
    """``(kernel, work items)``: the 2-D forward kernel where it applies, else the general one."""
    p = problem
    if p.direction == "forward" and _two_d(p):
        tiles = -(-p.output_size[-1] // TILE_W)
        rows = math.prod(p.output_size[:-1])
        return KERNELS[kernel_name("fwd2d", p.dtype, p.channels_last)], p.n * p.k * rows * tiles
    return KERNELS[kernel_name(p.direction, p.dtype, p.channels_last)], None


def _two_d(p):
    return (p.nd <= 2 and p.n * p.c * math.prod(p.input_size) < SMALL
            and p.n * p.k * math.prod(p.output_size) < SMALL)


def vector_applies(problem):
    """Whether the packed kernels (forward, data gradient) take ``problem`` when x and y are
    16-byte aligned."""
    p = problem
    pack = 16 // p.dtype.itemsize
    return (p.direction in _VECTOR and p.channels_last and p.k == p.c > 0 and p.c % pack == 0 and _two_d(p)
            and math.prod(p.filter_size) <= VECTOR_TAPS and -(-(p.c // pack) // PACKS) < 1 << 16)


def _vector_plan(problem, device_id, activation):
    """``run(x, w, y, bias)``: one prepared launch of a packed kernel (the forward's run kernel
    where :data:`RUN_SHAPES` holds the window's width and stride), grid (work items of the chunk:
    row tiles of y for both forward kernels, or pixels of x for the data gradient; chunks of
    :data:`PACKS` packs)."""
    p = problem
    packs = p.c // (16 // p.dtype.itemsize)
    if tile_applies(p):
        return _tile_plan(p, packs, device_id, activation)
    per_chunk = min(packs, PACKS)
    if p.direction == "forward":
        items = p.n * math.prod(p.output_size[:-1]) * -(-p.output_size[-1] // TILE_W)
    else:
        items = p.n * math.prod(p.input_size)
    if items == 0:
        return lambda x, w, y, bias: None
    grid = (int(min(MAX_GRID, -(-items // (BLOCK // per_chunk)))), -(-packs // per_chunk))
    P = launch.POINTER
    shape = _run_shape(p)
    kernel = KERNELS[vector_name(p.direction, p.dtype) if shape is None else run_name(p.dtype, *shape)]
    if p.direction == "backward_data":
        with launch.on_device(device_id):
            prepared = kernel.prepare(device_id, grid, (geometry(p), P, P, P))
        return lambda dx, w, dy, bias: prepared(dy.data.ptr, w.data.ptr, dx.data.ptr)
    args = (geometry(p), P, P, P, P, numpy.int32(ACTIVATIONS[activation]), numpy.float64(LEAKY_RELU_SLOPE))
    with launch.on_device(device_id):
        prepared = kernel.prepare(device_id, grid, args)
    return lambda x, w, y, bias: prepared(x.data.ptr, w.data.ptr, y.data.ptr, 0 if bias is None else bias.data.ptr)


def _tile_plan(problem, packs, device_id, activation):
    """``run(x, w, y, bias)``: one prepared launch of the tiled forward, grid (blocks over the
    tiles of all images, chunks of :data:`TILE_PACKS` packs): one resident wave of blocks in all,
    each walking its tiles so that it loads the next tile's halo while it computes one."""
    p = problem
    tiles = p.n * math.prod(-(-o // t) for o, t in zip(p.output_size, TILE))
    if tiles == 0:
        return lambda x, w, y, bias: None
    chunks = -(-packs // TILE_PACKS)
    kernel = KERNELS[tile_name(p.dtype)]
    with launch.on_device(device_id):
        across = max(1, -(-kernel.wave(device_id) // chunks))
        grid = (int(min(tiles, across, MAX_GRID)), chunks)
        P = launch.POINTER
        args = (geometry(p), P, P, P, P, numpy.int32(ACTIVATIONS[activation]), numpy.float64(LEAKY_RELU_SLOPE))
        prepared = kernel.prepare(device_id, grid, args)
    return lambda x, w, y, bias: prepared(x.data.ptr, w.data.ptr, y.data.ptr, 0 if bias is None else bias.data.ptr)


class Depthwise:
    """The depthwise algorithm object (see :mod:`rocarray.miopen._conv_registry`)."""

    name = "depthwise"
    fuses_epilogue = True
    sources = (SOURCE,)

    def applicable(self, problem):
        return problem.dtype.name in DTYPES and problem.groups == problem.c and problem.c_per_group == 1

    def run(self, problem, x, w, y, *, bias=None, activation=None):
        if vector_applies(problem) and x.data.ptr % 16 == 0 and y.data.ptr % 16 == 0:
            key = ("miopen.conv.depthwise.vec", problem, activation, TILED, x.data.device_id)
            plan = plans.cache.lookup(key, lambda: _vector_plan(problem, x.data.device_id, activation))
            plan(x, w, y, bias)
            return
        run_plan("miopen.conv.depthwise", _kernel, problem, x, w, y, bias, activation)


ALGORITHMS = [Depthwise()]
