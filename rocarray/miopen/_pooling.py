"""Pooling forward and backward (MIOpen's ``miopenPoolingForward`` / ``miopenPoolingBackward``):
max (torch's int64 indices), average (``count_include_pad``, ``divisor_override``), adaptive
average and adaptive max, 1-D to 3-D, channels first or last, on the kernels of
``rocarray/_kernels/miopen/pooling.hip``.

Forward runs a thread per output element (or 16-byte pack of channels, channels last); the
channels-last max pool of common window widths and strides runs a row of outputs per thread,
each input pack of a window row loaded once (:func:`max_run_shape`; float16 without indices
compares two channels per instruction, :data:`HALF2`); backward gathers, a thread per input element summing
over the outputs whose windows hold it, so it needs no atomics and is deterministic.
"""

import math
from dataclasses import dataclass

import numpy

from rocarray._core import backend, compile as _compile, kernels, launch
from rocarray.miopen import _pointwise_common as _c

SOURCE = "miopen/pooling.hip"
#: Threads per block (``RA_MIOPEN_POOLING_BLOCK``).
BLOCK = 256
#: Resident blocks per multiprocessor assumed for the occupancy bound.
BLOCKS_PER_MULTIPROCESSOR = 8
#: Kernel modes by pooling mode.
MODES = {"max": 0, "avg": 1, "adaptive_avg": 2, "adaptive_max": 3}
#: Modes whose forward gives indices and whose backward takes them.
WITH_INDICES = frozenset({"max", "adaptive_max"})
_CTYPES = ("ra_half", "ra_bfloat16", "float", "double")

_I8 = numpy.int64
#: ``ra_miopen_pool_geometry`` of pooling.hip (spatial axes in (D, H, W) order).
GEOMETRY = numpy.dtype([("n", _I8), ("c", _I8), ("in", _I8, 3), ("out", _I8, 3), ("kernel", _I8, 3),
                        ("stride", _I8, 3), ("pad", _I8, 3), ("dilation", _I8, 3), ("divisor", _I8),
                        ("count_include_pad", _I8)])


_PACK = {"ra_half": 8, "ra_bfloat16": 8, "float": 4, "double": 2}


def kernel_name(direction, ctype, mode, nhwc, vec=1):
    """e.g. ``'ra_miopen_pooling_forward<float, 0, true, 4>'`` (``vec``: channels per thread of the
    forward) or ``'ra_miopen_pooling_backward<double, 2, false>'``."""
    layout = "true" if nhwc else "false"
    if direction == "forward":
        return f"ra_miopen_pooling_forward<{ctype}, {MODES[mode]}, {layout}, {vec}>"
    return f"ra_miopen_pooling_backward<{ctype}, {MODES[mode]}, {layout}>"


#: (window width, stride) along W of the channels-last max-pool run kernel (dilation 1 along W).
MAX_RUN_SHAPES = ((3, 2), (2, 2), (3, 1))
#: Outputs of a row per thread of the run kernel (``RA_POOL_RUN``).
RUN = 4
#: Elements of x and of y below which the run kernel's 32-bit indexing applies.
SMALL = 1 << 31


def max_run_name(ctype, width, stride, with_indices):
    """e.g. ``'ra_miopen_pooling_max2d_nhwc<ra_half, 3, 2, false>'``."""
    return f"ra_miopen_pooling_max2d_nhwc<{ctype}, {width}, {stride}, {'true' if with_indices else 'false'}>"


#: Whether the float16 max pool without indices takes the two-channels-per-comparison run kernel
#: (``max2d_nhwc_h2``) where the run kernel applies; False gives it the run kernel.
HALF2 = True


def max_h2_name(width, stride):
    """e.g. ``'ra_miopen_pooling_max2d_nhwc_h2<3, 2>'``."""
    return f"ra_miopen_pooling_max2d_nhwc_h2<{width}, {stride}>"


def instantiations():
    """Every name expression launched: forward one channel per thread in both layouts and a
    16-byte pack of channels per thread for NHWC, the max-pool run kernel's shapes, backward in
    both layouts."""
    names = [kernel_name("backward", t, m, h) for t in _CTYPES for m in MODES for h in (False, True)]
    names += [kernel_name("forward", t, m, h) for t in _CTYPES for m in MODES for h in (False, True)]
    names += [kernel_name("forward", t, m, True, _PACK[t]) for t in _CTYPES for m in MODES]
    names += [max_run_name(t, *shape, i) for t in _CTYPES for shape in MAX_RUN_SHAPES for i in (False, True)]
    names += [max_h2_name(*shape) for shape in MAX_RUN_SHAPES]
    return sorted(names)


def max_run_shape(geometry, vec):
    """``(width, stride)`` along W when the max-pool run kernel takes ``geometry`` with ``vec``
    channels per thread (:func:`channel_pack`), else None: max mode, 1-D or 2-D, 16-byte packs,
    a window width and stride of :data:`MAX_RUN_SHAPES` without dilation along W, and x and y
    under :data:`SMALL` elements."""
    g = geometry
    if g.mode != "max" or len(g.spatial) > 2 or vec == 1 or g.dilation[-1] != 1:
        return None
    shape = (g.kernel_size[-1], g.stride[-1])
    sizes = (math.prod(g.input_shape), math.prod(g.output_shape))
    return shape if shape in MAX_RUN_SHAPES and max(sizes) < SMALL else None


def channel_pack(geometry, dtype, *arrays):
    """Channels per thread of the forward: a 16-byte pack for NHWC when the channels divide into
    packs and every array is 16-aligned, else 1."""
    vec = _PACK[_c.ctype(dtype)]
    if geometry.nhwc and geometry.channels % vec == 0 and _c.aligned(*arrays):
        return vec
    return 1


_compile.register(SOURCE, instantiations())
KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


@dataclass(frozen=True)
class PoolingGeometry:
    """One pooling problem, with its sizes already checked (the façade applies torch's rules).

    Parameters
    ----------
    mode : str
        ``'max'``, ``'avg'``, ``'adaptive_avg'`` or ``'adaptive_max'``.
    layout : str
        ``'NCHW'`` (input ``(N, C, *spatial)``) or ``'NHWC'`` (``(N, *spatial, C)``).
    input_shape : tuple of int
        The input's full shape, 1 to 3 spatial axes.
    output_size : tuple of int
        Output spatial sizes.
    kernel_size, stride, padding, dilation : tuple of int
        Per spatial axis; ignored by the adaptive modes (empty tuples there).
    count_include_pad : bool
        Average: padded positions count in the divisor.
    divisor_override : int or None
        Average: the divisor of every window.
    """

    mode: str
    layout: str
    input_shape: tuple
    output_size: tuple
    kernel_size: tuple = ()
    stride: tuple = ()
    padding: tuple = ()
    dilation: tuple = ()
    count_include_pad: bool = True
    divisor_override: int = None

    @property
    def nhwc(self):
        return self.layout == "NHWC"

    @property
    def spatial(self):
        """Input spatial sizes."""
        return tuple(self.input_shape[1:-1] if self.nhwc else self.input_shape[2:])

    @property
    def channels(self):
        return self.input_shape[-1] if self.nhwc else self.input_shape[1]

    @property
    def output_shape(self):
        n, c = self.input_shape[0], self.channels
        return (n, *self.output_size, c) if self.nhwc else (n, c, *self.output_size)

    def packed(self):
        """The kernel's by-value geometry (a size-one :data:`GEOMETRY` array)."""
        g = numpy.zeros(1, GEOMETRY)
        lead = 3 - len(self.spatial)

        def three(values, fill):
            return (fill,) * lead + tuple(values) if values else (fill,) * 3

        g["n"], g["c"] = self.input_shape[0], self.channels
        g["in"], g["out"] = three(self.spatial, 1), three(self.output_size, 1)
        g["kernel"], g["stride"] = three(self.kernel_size, 1), three(self.stride, 1)
        g["pad"], g["dilation"] = three(self.padding, 0), three(self.dilation, 1)
        g["divisor"] = self.divisor_override or 0
        g["count_include_pad"] = int(bool(self.count_include_pad))
        return g


_NULL = numpy.uint64(0)


def _launch(direction, geometry, args, work, like, vec=1):
    if work == 0:
        return
    dev = _c.device_of(like)
    name = kernel_name(direction, _c.ctype(like.dtype), geometry.mode, geometry.nhwc, vec)
    with launch.on_device(dev):
        KERNELS[name](dev, (_c.blocks(work, BLOCK, _c.MAX_GRID),), (*args, geometry.packed()))


def forward_plan(device_id, dtype, geometry, *, return_indices=False, aligned=True, out_shape=None):
    """The prepared forward of ``geometry`` for C-contiguous ``dtype`` inputs on ``device_id``.

    Parameters
    ----------
    device_id : int
        The device the inputs live on.
    dtype : numpy.dtype
        Float16, bfloat16, float32 or float64.
    geometry : PoolingGeometry
    return_indices : bool, optional
        As :func:`pooling_forward`.
    aligned : bool, optional
        Whether the inputs' addresses are multiples of 16 bytes (channels-last 16-byte packs).
    out_shape : tuple of int, optional
        The outputs' shape (default ``geometry.output_shape``; same size, e.g. without a batch
        axis).

    Returns
    -------
    run : callable
        ``run(x)``: ``y`` (and ``indices`` with ``return_indices``) of ``x``, a C-contiguous
        array of ``geometry.input_shape``'s size and ``dtype`` on ``device_id`` (not checked).
    """
    dtype = numpy.dtype(dtype)
    shape = tuple(geometry.output_shape if out_shape is None else out_shape)
    size = math.prod(shape)
    pack = _PACK[_c.ctype(dtype)]
    vec = pack if geometry.nhwc and geometry.channels % pack == 0 and aligned else 1
    run_shape = max_run_shape(geometry, vec)
    outputs = (launch.POINTER, launch.POINTER if return_indices else _NULL)
    if run_shape is None:
        name, work, args = kernel_name("forward", _c.ctype(dtype), geometry.mode, geometry.nhwc, vec), size // vec, \
            (launch.POINTER,) + outputs
    else:
        runs = -(-geometry.output_size[-1] // RUN)
        work = size // vec // geometry.output_size[-1] * runs
        if HALF2 and dtype == numpy.float16 and not return_indices:
            name, args = max_h2_name(*run_shape), (launch.POINTER, launch.POINTER)
        else:
            name, args = max_run_name(_c.ctype(dtype), *run_shape, return_indices), (launch.POINTER,) + outputs
    prepared = None
    if work:
        with launch.on_device(device_id):
            prepared = KERNELS[name].prepare(device_id, (_c.blocks(work, BLOCK, _c.MAX_GRID),),
                                             (*args, geometry.packed()))
    empty = backend.cupy().empty
    index_dtype = numpy.dtype(numpy.int64)

    def run(x):
        with launch.on_device(device_id):
            y = empty(shape, dtype)
            if vec > 1 and y.data.ptr % 16:  # an allocator that does not align: one channel a thread
                return forward_plan(device_id, dtype, geometry, return_indices=return_indices, aligned=False,
                                    out_shape=shape)(x)
            if not return_indices:
                if prepared is not None:
                    prepared(x.data.ptr, y.data.ptr)
                return y
            indices = empty(shape, index_dtype)
            if prepared is not None:
                prepared(x.data.ptr, y.data.ptr, indices.data.ptr)
            return y, indices
    return run


def pooling_forward(x, geometry, *, return_indices=False):
    """Pool ``x`` as ``geometry`` says.

    Parameters
    ----------
    x : cupy.ndarray
        C-contiguous float16, bfloat16, float32 or float64 input of ``geometry.input_shape``.
    geometry : PoolingGeometry
    return_indices : bool, optional
        Max modes: also return each maximum's int64 index, torch's flat index within its (n, c)
        plane (``(d * H + h) * W + w``); computed only when asked for.

    Returns
    -------
    y : cupy.ndarray
        ``geometry.output_shape`` in ``x``'s dtype (16-bit sums in float32). A NaN in a max
        window is its maximum.
    indices : cupy.ndarray
        int64, ``y``'s shape; only with ``return_indices``.
    """
    device_id = _c.device_of(x)
    return forward_plan(device_id, x.dtype, geometry, return_indices=return_indices, aligned=_c.aligned(x))(x)


def pooling_backward(dy, geometry, *, indices=None):
    """Gradient of :func:`pooling_forward` with respect to its input.

    Parameters
    ----------
    dy : cupy.ndarray
        C-contiguous gradient of ``geometry.output_shape``.
    geometry : PoolingGeometry
    indices : cupy.ndarray, optional
        The forward's int64 indices (C-contiguous); required by the max modes.

    Returns
    -------
    cupy.ndarray
        ``dx`` of ``geometry.input_shape`` in ``dy``'s dtype: max modes route each gradient to
        its index (summed where windows share one), average modes spread it over the window
        divided by the forward's divisor.
    """
    _c.device_of(dy)
    dx = _c.empty(geometry.input_shape, dy.dtype, dy)
    with_indices = geometry.mode in WITH_INDICES
    _launch("backward", geometry, (dy, indices if with_indices else _NULL, dx), math.prod(geometry.input_shape), dy)
    return dx
