"""Elementwise activations forward and backward (MIOpen's ``miopenActivationForward`` /
``miopenActivationBackward``): one templated grid-stride kernel per direction
(``rocarray/_kernels/miopen/activation.hip``) moving 16-byte packs per thread, instantiated per
element type and operation.
"""

import numpy

from rocarray._core import compile as _compile, kernels, launch
from rocarray.miopen import _pointwise_common as _c

SOURCE = "miopen/activation.hip"
#: Threads per block (``RA_MIOPEN_ACTIVATION_BLOCK``).
BLOCK = 256
#: Resident blocks per multiprocessor assumed for the grid-stride grid.
BLOCKS_PER_MULTIPROCESSOR = 8
#: Operation codes of the kernel, by activation name (``gelu_tanh`` is gelu's tanh approximation).
OPS = {"relu": 0, "leaky_relu": 1, "elu": 2, "sigmoid": 3, "tanh": 4, "gelu": 5, "gelu_tanh": 6, "silu": 7,
       "softplus": 8, "hardswish": 9}
#: Activations whose backward takes the forward's output (the others take its input).
FROM_OUTPUT = frozenset({"sigmoid", "tanh"})
#: Element types the kernels are instantiated for.
DTYPE_NAMES = ("float16", "bfloat16", "float32", "float64")
_CTYPES = {"float16": "ra_half", "bfloat16": "ra_bfloat16", "float32": "float", "float64": "double"}


def kernel_name(direction, op, dtype):
    """Name expression, e.g. ``'ra_miopen_activation_forward<float, 0>'``."""
    return f"ra_miopen_activation_{direction}<{_c.ctype(dtype)}, {OPS[op]}>"


def instantiations():
    """Every name expression launched."""
    return sorted(f"ra_miopen_activation_{d}<{_CTYPES[t]}, {code}>"
                  for d in ("forward", "backward") for t in DTYPE_NAMES for code in OPS.values())


_compile.register(SOURCE, instantiations())
KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def _params(mode, alpha, beta):
    if mode == "softplus":
        return numpy.float64(alpha), numpy.float64(beta)
    return numpy.float64(alpha), numpy.float64(0.0)


def _run(direction, mode, inputs, out, alpha, beta):
    first = inputs[0]
    dev = _c.device_of(first)
    if not _c.aligned(*inputs):
        # the kernel's 16-byte packs need 16-aligned addresses: a view's offset gets a fresh copy
        inputs = tuple(a if _c.aligned(a) else a.copy() for a in inputs)
    result = out if out is not None and _c.aligned(out) else _c.empty(first.shape, first.dtype, first)
    n = first.size
    if n:
        kernel = KERNELS[kernel_name(direction, mode, first.dtype)]
        packs = -(-n // (16 // first.dtype.itemsize))
        with launch.on_device(dev):
            # two packs per thread and loop trip; a grid of at most one resident wave
            grid = _c.blocks(-(-packs // 2), BLOCK, kernel.wave(dev))
            kernel(dev, (grid,), (*inputs, result, numpy.int64(n), *_params(mode, alpha, beta)))
    if out is not None and result is not out:
        out[...] = result
        return out
    return result


def activation_forward(x, mode, *, alpha=0.0, beta=0.0, out=None):
    """``y = f(x)`` elementwise for one of :data:`OPS`.

    Parameters
    ----------
    x : cupy.ndarray
        C-contiguous float16, bfloat16, float32 or float64 data of any shape.
    mode : str
        A key of :data:`OPS`: ``relu``, ``leaky_relu`` (slope ``alpha``), ``elu`` (``alpha``),
        ``sigmoid``, ``tanh``, ``gelu`` (erf form), ``gelu_tanh`` (tanh approximation), ``silu``,
        ``softplus`` (``alpha`` is beta, ``beta`` the threshold), ``hardswish``.
    alpha, beta : float, optional
        The activation's parameters, as above (unused ones ignored).
    out : cupy.ndarray, optional
        C-contiguous result of ``x``'s shape and dtype, not overlapping ``x``.

    Returns
    -------
    cupy.ndarray
        ``y`` in ``x``'s dtype; 16-bit data is computed in float32 and rounded once.
    """
    return _run("forward", mode, (x,), out, alpha, beta)


def activation_backward(dy, z, mode, *, alpha=0.0, beta=0.0, out=None):
    """``dx = dy * f'(x)`` elementwise, with torch's backward formulas.

    Parameters
    ----------
    dy : cupy.ndarray
        Gradient of the output (C-contiguous).
    z : cupy.ndarray
        The forward's output ``y`` for ``sigmoid`` and ``tanh`` (:data:`FROM_OUTPUT`), its input
        ``x`` for the others; ``dy``'s shape and dtype.
    mode : str
        As in :func:`activation_forward`.
    alpha, beta : float, optional
        As in :func:`activation_forward`.
    out : cupy.ndarray, optional
        C-contiguous result, not overlapping the inputs.

    Returns
    -------
    cupy.ndarray
        ``dx`` in ``dy``'s dtype.
    """
    return _run("backward", mode, (dy, z), out, alpha, beta)
