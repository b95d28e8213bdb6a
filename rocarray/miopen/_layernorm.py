"""Layer normalization of the rows of a contiguous ``(R, D)`` view (``layernorm.hip``).

Design
------
A row belongs to a group of threads: the narrowest of a 32-thread group (eight rows per block of
256), a block of 128 and a block of 256 threads whose registers hold it (``RA_LN_ITEMS``
16-byte vectors per thread, so a thread keeps 64 bytes of the row in flight whatever the dtype:
a 16-bit row of 4096 takes 128 threads, not half of the 256 threads' registers), the block of
256 threads for longer rows. A row that fits is read once (kept as loaded, converted in each
pass) and its mean and variance are exact sums over the registers; a longer one takes a
statistics pass (Chan et al. merges) and a second read. Rows in 16-byte vectors and rows of
one element at a time are separate kernels (each with only its own path's registers). Weight
and bias come in 16-byte loads where aligned. The grid covers the rows once (one block per 8 rows or per row). The
backward's input gradient is the same row scheme (two row sums); the weight and bias gradients
are column sums over the rows by a separate kernel (splits of the rows, the last block of each
column tile adding the partials in split order). Statistics run in float32 for 16-bit data and
in float64 for float64.
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch, plans
from rocarray._core.workspace import workspaces

SOURCE = "miopen/layernorm.hip"
#: Threads per block (``RA_LN_BLOCK``).
BLOCK = 256
#: 16-byte vectors of a row each thread keeps in registers (``RA_LN_ITEMS``).
ITEMS = 4
#: Threads of the narrow row group.
WARP_GROUP = 32
#: Row groups, narrowest first: the narrow one and the one-block ones.
GROUPS = (WARP_GROUP, 128, BLOCK)
#: Most blocks of a grid-stride launch.
MAX_GRID = 1 << 20
BLOCKS_PER_MULTIPROCESSOR = 8
#: Most channels (columns) of a channels-last tile: 128 bytes of float32 per row of a warp, and
#: few enough that the finishing block of a tile merges many splits' partials per channel in
#: parallel (eight rows of threads per column).
COLUMN_TILE = 32

_STORAGE = ("ra_half", "ra_bfloat16", "float", "double")


def kernel_name(kind, ctype, group, vec):
    """``'ra_miopen_ln_forward<ra_half, 128, true>'`` (kind ``'forward'`` or ``'backward'``)."""
    return f"ra_miopen_ln_{kind}<{ctype}, {group}, {'true' if vec else 'false'}>"


def instantiations():
    """Every name expression launched."""
    names = [kernel_name(k, t, g, v) for k in ("forward", "backward") for t in _STORAGE for g in GROUPS
             for v in (False, True)]
    return sorted(names + [f"ra_miopen_ln_backward_params<{t}>" for t in _STORAGE])


_compile.register(SOURCE, instantiations())
_FAMILY = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def acc_dtype(dtype):
    """float64 for float64 data, float32 otherwise."""
    return numpy.dtype(numpy.float64) if numpy.dtype(dtype) == numpy.float64 else numpy.dtype(numpy.float32)


def _vector(dtype):
    return max(1, 16 // numpy.dtype(dtype).itemsize)


def row_group(D, dtype):
    """Threads per row: the first of :data:`GROUPS` whose registers hold the row, else the largest."""
    return next((g for g in GROUPS if D <= g * ITEMS * _vector(dtype)), BLOCK)


def _row_launch(kind, D, rows, dtype, arrays, params):
    """``(kernel name, grid, block, params16)``: the 16-byte kernel when ``D`` and the rows
    (``arrays``) allow, params16 when the weight and bias (``params``, None skipped) are 16-byte
    aligned too."""
    group = row_group(D, dtype)
    block = BLOCK if group == WARP_GROUP else group
    grid = min(MAX_GRID, max(1, -(-rows // (block // group))))
    vec = D % _vector(dtype) == 0 and all(a.data.ptr % 16 == 0 for a in arrays)
    params16 = int(vec and all(p is None or p.data.ptr % 16 == 0 for p in params))
    return kernel_name(kind, dtypes.ctype(dtype), group, vec), grid, block, params16


def params_geometry(rows, D, resident):
    """``(cols, splits, chunk, tiles)`` of the weight/bias gradient kernel on a device holding
    ``resident`` of its blocks at once."""
    cols = min(COLUMN_TILE, 1 << max(0, (D - 1).bit_length()))
    tiles = -(-D // cols)
    per = BLOCK // cols
    target = max(1, int(resident))
    most = max(1, -(-rows // (per * 8)))
    splits = max(1, min(target // tiles, most, 1 << 30))
    chunk = max(1, -(-rows // splits))
    return cols, -(-rows // chunk) if rows else 1, chunk, tiles


def _null(a):
    return numpy.uint64(0) if a is None else a


def layernorm_forward(x, weight, bias, eps, *, norm_size):
    """Layer normalization of each run of ``norm_size`` trailing elements.

    Parameters
    ----------
    x : cupy.ndarray
        Contiguous, any shape whose size is a multiple of ``norm_size`` (rows of D =
        ``norm_size`` elements); float16, bfloat16, float32 or float64.
    weight, bias : cupy.ndarray or None
        ``D`` contiguous elements in :func:`acc_dtype` (1 and 0 when None).
    eps : float
    norm_size : int
        D, the elements normalized together (> 0).

    Returns
    -------
    y : cupy.ndarray
        ``x``'s shape and dtype.
    mean, invstd : cupy.ndarray
        ``(R,)`` in :func:`acc_dtype`: each row's mean and ``1 / sqrt(var + eps)`` (biased).
    """
    cupy = backend.cupy()
    dev = x.data.device_id
    acc = acc_dtype(x.dtype)
    D = int(norm_size)
    rows = x.size // D if D else 0
    with launch.on_device(dev):
        y = cupy.empty(x.shape, x.dtype)
        mean, invstd = cupy.empty(rows, acc), cupy.empty(rows, acc)
        if rows == 0 or D == 0:
            return y, mean, invstd
        name, grid, block, params16 = _row_launch("forward", D, rows, x.dtype, (x, y), (weight, bias))
        _FAMILY[name](dev, (grid,), (x, y, numpy.int64(rows), numpy.int64(D), numpy.int32(params16), _null(weight),
                                     _null(bias), acc.type(eps), mean, invstd), block=block)
    return y, mean, invstd


def layernorm_backward(dy, x, weight, mean, invstd, *, norm_size, weight_grads=True):
    """Gradients of :func:`layernorm_forward`.

    Parameters
    ----------
    dy, x : cupy.ndarray
        Contiguous, one shape and dtype.
    weight : cupy.ndarray or None
        ``D`` elements in :func:`acc_dtype`.
    mean, invstd : cupy.ndarray
        ``(R,)`` in :func:`acc_dtype`, the forward's.
    norm_size : int
    weight_grads : bool
        Compute the weight and bias gradients (else they are None).

    Returns
    -------
    grad_input : cupy.ndarray
        ``x``'s shape and dtype.
    grad_weight, grad_bias : cupy.ndarray or None
        ``(D,)`` in :func:`acc_dtype`: ``sum(dy * xhat)`` and ``sum(dy)`` over the rows.
    """
    cupy = backend.cupy()
    dev = x.data.device_id
    acc = acc_dtype(x.dtype)
    D = int(norm_size)
    rows = x.size // D if D else 0
    i64 = numpy.int64
    with launch.on_device(dev):
        dx = cupy.empty(x.shape, x.dtype)
        dw = db = None
        if weight_grads:
            dw, db = cupy.zeros(D, acc), cupy.zeros(D, acc)
        if rows == 0 or D == 0:
            return dx, dw, db
        ct = dtypes.ctype(x.dtype)
        name, grid, block, params16 = _row_launch("backward", D, rows, x.dtype, (dy, x, dx), (weight,))
        _FAMILY[name](dev, (grid,), (dy, x, dx, i64(rows), i64(D), numpy.int32(params16), _null(weight), mean, invstd),
                      block=block)
        if weight_grads:
            key = ("miopen.layernorm.params", rows, D, x.dtype, dev)
            params = _FAMILY[f"ra_miopen_ln_backward_params<{ct}>"]

            def build():
                per_mp = kernels.occupancy(params.function(dev), BLOCK, BLOCKS_PER_MULTIPROCESSOR)
                return params_geometry(rows, D, per_mp * backend.device_info(dev).multiprocessors)
            cols, splits, chunk, tiles = plans.cache.lookup(key, build)
            part = workspaces.scratch("miopen.layernorm.partials", 2 * D * splits * acc.itemsize, dev)
            tickets = workspaces.counters("miopen.layernorm.tickets", 4 * tiles, dev)
            params(
                dev, (splits, tiles), (dy, x, i64(rows), i64(D), numpy.int32(cols), i64(chunk), mean, invstd,
                                       part[: 2 * D * splits * acc.itemsize].view(acc), tickets, dw, db))
    return dx, dw, db
