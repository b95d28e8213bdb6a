"""Softmax and log-softmax forward and backward along any axis (MIOpen's ``miopenSoftmaxForward_V2``
/ ``miopenSoftmaxBackward_V2`` with the accurate and log algorithms), on the kernels of
``rocarray/_kernels/miopen/softmax.hip``.

The tensor is seen as ``(outer, n, inner)`` around the axis. The last axis (``inner == 1``) runs
a row per warp while a row fits the warp's registers (:data:`WARP_ITEMS` values per lane), else
a row per block (registers up to :data:`BLOCK_ITEMS` values per thread, two reads beyond);
an inner axis runs a thread per column, coalesced along ``inner``.
"""

import math

import numpy

from rocarray._core import backend, compile as _compile, kernels, launch
from rocarray.miopen import _pointwise_common as _c

SOURCE = "miopen/softmax.hip"
#: Threads per block (``RA_MIOPEN_SOFTMAX_BLOCK``).
BLOCK = 256
#: Resident blocks per multiprocessor assumed for the strided kernel's grid.
BLOCKS_PER_MULTIPROCESSOR = 8
#: Register-held values per lane of the row-per-warp kernel.
WARP_ITEMS = 32
#: Register-held values per thread of the row-per-block kernel.
BLOCK_ITEMS = 8
#: Kernel modes by (backward, log).
MODES = {(False, False): 0, (False, True): 1, (True, False): 2, (True, True): 3}
_CTYPES = ("ra_half", "ra_bfloat16", "float", "double")


def rows_name(ctype, mode, warp_rows):
    """e.g. ``'ra_miopen_softmax_rows<float, 0, true, 32>'``."""
    items = WARP_ITEMS if warp_rows else BLOCK_ITEMS
    return f"ra_miopen_softmax_rows<{ctype}, {mode}, {'true' if warp_rows else 'false'}, {items}>"


def strided_name(ctype, mode):
    """e.g. ``'ra_miopen_softmax_strided<double, 3>'``."""
    return f"ra_miopen_softmax_strided<{ctype}, {mode}>"


def instantiations():
    """Every name expression launched."""
    names = [rows_name(t, m, w) for t in _CTYPES for m in MODES.values() for w in (True, False)]
    return sorted(names + [strided_name(t, m) for t in _CTYPES for m in MODES.values()])


_compile.register(SOURCE, instantiations())
KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def geometry(shape, axis):
    """``(outer, n, inner)``: the products of the sizes before, at and after ``axis``."""
    return math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:])


def plan(shape, axis, warp_size):
    """The kernel variant and grid for a tensor of ``shape`` along ``axis``: ``('warp' | 'block' |
    'strided', blocks)`` (grid-stride kernels loop over what one grid leaves)."""
    outer, n, inner = geometry(shape, axis)
    if inner > 1:
        return "strided", _c.blocks(outer * inner, BLOCK, 1 << 20)
    if n <= WARP_ITEMS * warp_size:
        return "warp", _c.blocks(outer, BLOCK // warp_size, _c.MAX_GRID)
    return "block", _c.blocks(outer, 1, _c.MAX_GRID)


def _run(x, dy, axis, backward, log, out):
    dev = _c.device_of(x)
    y = out if out is not None else _c.empty(x.shape, x.dtype, x)
    if x.size == 0:
        return y
    outer, n, inner = geometry(x.shape, axis)
    mode = MODES[(backward, log)]
    ctype = _c.ctype(x.dtype)
    variant, grid = plan(x.shape, axis, backend.device_info(dev).warp_size)
    if variant == "strided":
        name, sizes = strided_name(ctype, mode), (numpy.int64(outer), numpy.int64(n), numpy.int64(inner))
    else:
        name, sizes = rows_name(ctype, mode, variant == "warp"), (numpy.int64(outer), numpy.int64(n))
    with launch.on_device(dev):
        KERNELS[name](dev, (grid,), (x, x if dy is None else dy, y, *sizes))
    return y


def softmax_forward(x, axis, *, log=False, out=None):
    """Softmax (or log-softmax) of ``x`` along ``axis``, in the stable form
    ``exp(x - max) / sum(exp(x - max))``.

    Parameters
    ----------
    x : cupy.ndarray
        C-contiguous float16, bfloat16, float32 or float64 tensor with at least one axis.
    axis : int
        Non-negative axis.
    log : bool, optional
        Log-softmax: ``x - max - log(sum(exp(x - max)))``.
    out : cupy.ndarray, optional
        C-contiguous result of ``x``'s shape and dtype, not overlapping ``x``.

    Returns
    -------
    cupy.ndarray
        In ``x``'s dtype; 16-bit data is reduced in float32. A row holding NaN gives NaN.
    """
    return _run(x, None, axis, False, log, out)


def softmax_backward(dy, y, axis, *, log=False, out=None):
    """Gradient of :func:`softmax_forward` from its output ``y``: ``y * (dy - sum(dy * y))``, or
    for log-softmax ``dy - exp(y) * sum(dy)``.

    Parameters
    ----------
    dy : cupy.ndarray
        Output gradient (C-contiguous).
    y : cupy.ndarray
        The forward's output (the log-probabilities for ``log=True``); ``dy``'s shape and dtype.
    axis : int
        Non-negative axis.
    log : bool, optional
        Backward of log-softmax.
    out : cupy.ndarray, optional
        C-contiguous result, not overlapping the inputs.

    Returns
    -------
    cupy.ndarray
        ``dx`` in ``dy``'s dtype.
    """
    return _run(y, dy, axis, True, log, out)
