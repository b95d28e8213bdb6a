"""The convolution epilogue: bias and activation after an algorithm that does not fuse them
(kernel ``miopen/conv_epilogue.hip``, one pass over the output, in place)."""

import math

import numpy

from rocarray._core import compile as _compile, kernels, launch, plans
from rocarray.miopen._conv_direct import ACTIVATIONS, DTYPES, LEAKY_RELU_SLOPE, ctype

SOURCE = "miopen/conv_epilogue.hip"
BLOCK = 256
MAX_GRID = 1 << 16
#: The activations a convolution applies to its output in the same call (leaky_relu with torch's
#: default slope, :data:`LEAKY_RELU_SLOPE`; gelu in the exact erf form).
FUSED_ACTIVATIONS = ("relu", "leaky_relu", "gelu", "silu", "sigmoid", "tanh")


def kernel_name(dtype):
    return f"ra_miopen_conv_epilogue<{ctype(dtype)}>"


_compile.register(SOURCE, sorted(kernel_name(t) for t in DTYPES))
KERNELS = kernels.Family(SOURCE, BLOCK, 8)


def _plan(problem, has_bias, activation, device_id):
    total = problem.n * problem.k * math.prod(problem.output_size)
    inner = 1 if problem.channels_last else math.prod(problem.output_size)
    if total == 0 or (not has_bias and activation is None):
        return lambda y, bias: None
    grid = int(max(1, min(MAX_GRID, -(-total // BLOCK))))
    P = launch.POINTER
    with launch.on_device(device_id):
        prepared = KERNELS[kernel_name(problem.dtype)].prepare(
            device_id, (grid,), (numpy.int64(total), numpy.int64(max(inner, 1)), numpy.int64(problem.k), P, P,
                                 numpy.int32(ACTIVATIONS[activation]), numpy.float64(LEAKY_RELU_SLOPE)))

    def run(y, bias):
        prepared(y.data.ptr, 0 if bias is None else bias.data.ptr)
    return run


def apply(problem, y, bias=None, activation=None):
    """``y := activation(y + bias)`` in place for the forward output ``y`` of ``problem`` (bias: a
    contiguous vector of ``problem.k`` elements of y's dtype, or None; activation: one of
    :data:`FUSED_ACTIVATIONS` or None)."""
    if bias is None and activation is None:
        return
    device_id = y.data.device_id
    plan = plans.cache.lookup(("miopen.conv.epilogue", problem, bias is not None, activation, device_id),
                              lambda: _plan(problem, bias is not None, activation, device_id))
    plan(y, bias)
