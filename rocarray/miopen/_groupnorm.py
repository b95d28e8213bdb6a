"""Group normalization, forward and backward (``groupnorm.hip``).

Design
------
Group ``k = n * G + g`` of an ``(N, C, *spatial)`` (channels first) or ``(N, *spatial, C)``
(channels last) tensor is a set of runs of contiguous elements: one run of ``C/G * S`` elements
channels first, ``S`` runs of ``C/G`` elements channels last. One grid, a block per (group, split
of its elements) sized to fill the device about once, serves the statistics kernel (one read of
the input: per-thread batches merged with Chan et al.'s update, the last block of a group
merging its splits' partials in order), the backward's per-group sums and the elementwise
kernel, which walks each block's range backwards so it starts on data still in L2. The weight
and bias gradients are per-channel sums over the batch and spatial axes, a block per (channel,
split) channels first and per (row split, channel tile) channels last. Arithmetic in float32
for 16-bit data, float64 for float64; no floating-point atomics.
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch, plans
from rocarray._core.workspace import workspaces

SOURCE = "miopen/groupnorm.hip"
#: Threads per block (``RA_GN_BLOCK``).
BLOCK = 256
#: Vectors a thread folds per batch (``RA_GN_UNROLL``).
UNROLL = 4
BLOCKS_PER_MULTIPROCESSOR = 8
#: Most channels (columns) of a channels-last tile: 128 bytes of float32 per row of a warp, and
#: few enough that the finishing block of a tile merges many splits' partials per channel in
#: parallel (eight rows of threads per column).
COLUMN_TILE = 32

_STORAGE = ("ra_half", "ra_bfloat16", "float", "double")


def instantiations():
    """Every name expression launched."""
    names = [f"ra_miopen_gn_stats<{t}>" for t in _STORAGE]
    names += [f"ra_miopen_gn_{k}<{t}, {last}>" for k in ("apply", "backward_reduce") for t in _STORAGE
              for last in ("false", "true")]
    names += [f"ra_miopen_gn_param_sums_{v}<{t}>" for v in ("nchw", "nhwc") for t in _STORAGE]
    return sorted(names)


_compile.register(SOURCE, instantiations())
_FAMILY = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def acc_dtype(dtype):
    """float64 for float64 data, float32 otherwise."""
    return numpy.dtype(numpy.float64) if numpy.dtype(dtype) == numpy.float64 else numpy.dtype(numpy.float32)


def _vector(dtype):
    return max(1, 16 // numpy.dtype(dtype).itemsize)


class Geometry:
    """One call's grids: groups as runs (``bn``, ``bg``, ``reps``, ``len``, ``stride``), the
    group grid ``(K, splits)`` with ``chunk`` elements per split, and the channel grid of the
    weight/bias gradient sums (``param_grid``, ``param_chunk``, ``cols``)."""

    __slots__ = ("last", "N", "C", "S", "G", "bn", "bg", "reps", "len", "stride", "splits", "chunk", "vec_ok",
                 "param_grid", "param_chunk", "cols", "tickets")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)


def geometry(shape, layout, G, dtype, resident):
    """The :class:`Geometry` of ``shape`` in ``layout`` with ``G`` groups on a device holding
    ``resident`` blocks at once (each grid fills it about once)."""
    shape = tuple(int(v) for v in shape)
    last = layout == "NHWC" and len(shape) > 2
    N, C = shape[0], (shape[-1] if last else shape[1])
    S = int(numpy.prod(shape[1:-1] if last else shape[2:], dtype=numpy.int64))
    Cg = C // G
    if last:
        bn, bg, reps, length, stride = S * C, Cg, S, Cg, C
    else:
        bn, bg, reps, length, stride = C * S, Cg * S, 1, Cg * S, 0
    V = _vector(dtype)
    vec_ok = length % V == 0 and stride % V == 0 and bn % V == 0 and bg % V == 0 and (last or S % V == 0)
    unit = V if vec_ok else 1
    total, K = reps * length, N * G
    target = max(1, int(resident))
    most = max(1, -(-total // (BLOCK * UNROLL * unit)))
    splits = max(1, min(target // max(K, 1), most, 65535))
    chunk = -(-total // splits)
    chunk = max(unit, -(-chunk // unit) * unit)
    splits = max(1, -(-total // chunk))
    if last:
        M = N * S
        cols = min(COLUMN_TILE, 1 << max(0, (C - 1).bit_length()))
        tiles = -(-C // cols)
        ps = max(1, min(target // tiles, -(-M // (BLOCK // cols * 8)), 1 << 30))
        param_chunk = max(1, -(-M // ps))
        param_grid = (max(1, -(-M // param_chunk)), tiles)
        tickets = max(K, tiles)
    else:
        cols = 1
        per_channel = N * S
        ps = max(1, min(target // max(C, 1), -(-per_channel // (BLOCK * 8)), 65535))
        param_chunk = max(1, -(-per_channel // ps))
        param_grid = (C, max(1, -(-per_channel // param_chunk)))
        tickets = max(K, C)
    return Geometry(last=last, N=N, C=C, S=S, G=G, bn=bn, bg=bg, reps=reps, len=length, stride=stride,
                    splits=splits, chunk=chunk, vec_ok=vec_ok, param_grid=param_grid, param_chunk=param_chunk,
                    cols=cols, tickets=tickets)


def _plan(x, layout, G):
    dev = x.data.device_id
    key = ("miopen.groupnorm", tuple(x.shape), layout, G, x.dtype, dev)

    def build():
        name = f"ra_miopen_gn_stats<{dtypes.ctype(x.dtype)}>"
        per_mp = kernels.occupancy(_FAMILY[name].function(dev), BLOCK, BLOCKS_PER_MULTIPROCESSOR)
        return geometry(x.shape, layout, G, x.dtype, per_mp * backend.device_info(dev).multiprocessors)
    return plans.cache.lookup(key, build)


def _null(a):
    return numpy.uint64(0) if a is None else a


def _vec(geo, *arrays):
    return numpy.int32(geo.vec_ok and all(a is None or a.data.ptr % 16 == 0 for a in arrays))


def _runs(geo):
    i64 = numpy.int64
    return (i64(geo.bn), i64(geo.bg), i64(geo.reps), i64(geo.len), i64(geo.stride), i64(geo.chunk))


def _scratch(geo, acc, dev):
    K = geo.N * geo.G
    n_part = 2 * max(K * geo.splits, geo.param_grid[0] * geo.param_grid[1] * geo.cols)
    part = workspaces.scratch("miopen.groupnorm.partials", n_part * acc.itemsize, dev)
    tickets = workspaces.counters("miopen.groupnorm.tickets", 4 * geo.tickets, dev)
    coef = workspaces.scratch("miopen.groupnorm.coefficients", 5 * K * acc.itemsize, dev)
    return part[: n_part * acc.itemsize].view(acc), tickets, coef[: 5 * K * acc.itemsize].view(acc)


def _apply(geo, in0, in1, out, weight, bias, coef, dev):
    i64 = numpy.int64
    name = f"ra_miopen_gn_apply<{dtypes.ctype(in0.dtype)}, {'true' if geo.last else 'false'}>"
    _FAMILY[name](dev, (geo.N * geo.G, geo.splits),
                  (in0, _null(in1), out, i64(geo.G), i64(geo.C // geo.G), i64(geo.S)) + _runs(geo)
                  + (_vec(geo, in0, in1, out), _null(weight), _null(bias), coef))


def groupnorm_forward(x, num_groups, weight, bias, eps, *, layout="NCHW"):
    """Group normalization.

    Parameters
    ----------
    x : cupy.ndarray
        Contiguous ``(N, C, *spatial)`` (``layout='NCHW'``), ``(N, *spatial, C)`` (``'NHWC'``) or
        ``(N, C)``; float16, bfloat16, float32 or float64.
    num_groups : int
        G, dividing C.
    weight, bias : cupy.ndarray or None
        ``(C,)`` in :func:`acc_dtype` (1 and 0 when None).
    eps : float
    layout : {'NCHW', 'NHWC'}

    Returns
    -------
    y : cupy.ndarray
        ``x``'s shape and dtype.
    mean, invstd : cupy.ndarray
        ``(N, G)`` in :func:`acc_dtype`: each group's mean and ``1 / sqrt(var + eps)`` (biased).
    """
    cupy = backend.cupy()
    dev = x.data.device_id
    acc = acc_dtype(x.dtype)
    G = int(num_groups)
    with launch.on_device(dev):
        geo = _plan(x, layout, G)
        y = cupy.empty(x.shape, x.dtype)
        mean, invstd = cupy.empty((geo.N, G), acc), cupy.empty((geo.N, G), acc)
        if x.size == 0:
            return y, mean, invstd
        part, tickets, coef = _scratch(geo, acc, dev)
        _FAMILY[f"ra_miopen_gn_stats<{dtypes.ctype(x.dtype)}>"](
            dev, (geo.N * G, geo.splits), (x, numpy.int64(G)) + _runs(geo)
            + (_vec(geo, x), acc.type(eps), part, tickets, mean, invstd, coef))
        _apply(geo, x, None, y, weight, bias, coef, dev)
    return y, mean, invstd


def groupnorm_backward(dy, x, num_groups, weight, mean, invstd, *, layout="NCHW"):
    """Gradients of :func:`groupnorm_forward`.

    Parameters
    ----------
    dy, x : cupy.ndarray
        Contiguous, one shape and dtype.
    num_groups : int
    weight : cupy.ndarray or None
        ``(C,)`` in :func:`acc_dtype`.
    mean, invstd : cupy.ndarray
        ``N * G`` contiguous elements in :func:`acc_dtype`, the forward's.
    layout : {'NCHW', 'NHWC'}

    Returns
    -------
    grad_input : cupy.ndarray
    grad_weight : cupy.ndarray or None
        ``(C,)`` in :func:`acc_dtype`, ``sum(dy * xhat)``; None without weight.
    grad_bias : cupy.ndarray
        ``(C,)`` in :func:`acc_dtype`, ``sum(dy)``.
    """
    cupy = backend.cupy()
    dev = x.data.device_id
    acc = acc_dtype(x.dtype)
    G = int(num_groups)
    i64 = numpy.int64
    with launch.on_device(dev):
        geo = _plan(x, layout, G)
        dx = cupy.empty(x.shape, x.dtype)
        dw = cupy.zeros(geo.C, acc) if weight is not None else None
        db = cupy.zeros(geo.C, acc)
        if x.size == 0:
            return dx, dw, db
        part, tickets, coef = _scratch(geo, acc, dev)
        ct, last = dtypes.ctype(x.dtype), "true" if geo.last else "false"
        _FAMILY[f"ra_miopen_gn_backward_reduce<{ct}, {last}>"](
            dev, (geo.N * G, geo.splits), (dy, x, i64(G), i64(geo.C // G), i64(geo.S)) + _runs(geo)
            + (_vec(geo, dy, x), _null(weight), mean, invstd, part, tickets, coef))
        _apply(geo, dy, x, dx, weight, None, coef, dev)
        if geo.last:
            _FAMILY[f"ra_miopen_gn_param_sums_nhwc<{ct}>"](
                dev, geo.param_grid, (dy, x, i64(geo.N * geo.S), i64(geo.C), i64(geo.S), i64(G), numpy.int32(geo.cols),
                                      i64(geo.param_chunk), mean, invstd, part, tickets, _null(dw), db))
        else:
            _FAMILY[f"ra_miopen_gn_param_sums_nchw<{ct}>"](
                dev, geo.param_grid, (dy, x, i64(geo.N), i64(geo.C), i64(geo.S), i64(G), i64(geo.param_chunk), mean,
                                      invstd, part, tickets, _null(dw), db))
    return dx, dw, db
