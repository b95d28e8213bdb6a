"""Batch normalization: training forward (batch statistics, running averages), inference forward
and backward (``batchnorm.hip``).

Design
------
A tensor is viewed as channels first, ``(N, C, S)`` with ``S`` the product of the spatial sizes,
or channels last, ``(M, C)`` with ``M = N * S`` rows; an ``(N, C)`` input is the channels-last
view in either layout. One grid serves every kernel of a call: channels first, a block per
(channel, split of its ``N * S`` elements); channels last, a block per (split of the rows, tile
of channels). The splits are sized so the grid fills the device about once.

Training forward, channels first, with :data:`PIPE_TRAINING` on (the default), a cooperative launch
on the device and an input of at least :data:`PIPE_MIN_BYTES` (:func:`pipe_geometry` says where it
applies): one launch of the resident blocks (three a multiprocessor on NVIDIA). A channel's vectors
are cut into items of at most ``ITEMS * PIPE_BLOCK`` vectors (ITEMS from :func:`pipe_shape`), and
the channels go through the blocks ``Q`` at a time, an item a block a step. At step ``s`` a block
stores its item (loaded during step ``s - 1``) in shared memory and issues the loads of its next
item at once; it takes the item's exact mean and M2 (a thread's vectors, the warp's, then the
block's after one barrier) and publishes them as words tagged with the launch's epoch (a 64-bit
store is atomic: a reader that sees the epoch has the value, so no flag and no fence); then it
reads the partials of step ``s - PIPE_DEPTH``'s channel (published that many steps earlier: one
round trip), merges them in a fixed order (every block the same bits) and normalizes that item from
shared memory into the output. So the input is read once, and each block's next loads are in flight
while it waits and writes. The waits are bounded (:func:`check_pipe` reads the error word).

Otherwise (channels last, a smaller input, a view the pipeline does not take), two launches. The
statistics kernel reads the input once (each thread keeps a ring of loads in flight and folds them
in small groups with Chan et al.'s pairwise update, walking the channels-first layout without index
divisions; then a tree across the block; the last block of each channel merges the splits' partials
in split order) and writes the saved mean and inverse standard deviation, the running averages and
the per-channel affine coefficients; the normalize kernel then walks each block's range backwards,
so it starts on data the statistics pass left in L2. Backward: a reduction kernel (sums of ``dy``
and ``dy (x - mean)``: per-thread sums, then the same tree and last-block merge) that also writes
the weight and bias gradients and the ``dx`` coefficients, then the elementwise kernel. Inference:
a per-channel coefficient kernel, then the elementwise kernel. Statistics and sums run in float32
for 16-bit data and in float64 for float64 data; results do not depend on timing (no floating-point
atomics).
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch, plans
from rocarray._core.workspace import workspaces

SOURCE = "miopen/batchnorm.hip"
#: Threads per block (``RA_BN_BLOCK``).
BLOCK = 256
#: Loads a thread of the backward and elementwise kernels issues per batch: ``UNROLL`` vectors
#: (channels first) or ``2 * UNROLL`` rows (channels last) (``RA_BN_UNROLL``); a split holds at
#: least one such batch per thread where the data allow.
UNROLL = 4
#: Resident blocks per multiprocessor the split count aims at (2048 threads).
BLOCKS_PER_MULTIPROCESSOR = 8
#: Most channels (columns) of a channels-last tile: 128 bytes of float32 per row of a warp, and
#: few enough that the finishing block of a tile merges many splits' partials per channel in
#: parallel (eight rows of threads per column).
COLUMN_TILE = 32
#: Threads across a channels-last tile of 16-byte vectors (128 bytes of each row).
VECTOR_LANES = 8

#: Whether the channels-first training forward runs as one cooperative launch of
#: ``ra_miopen_bn_train_pipe_nchw`` (resident blocks passing items of one channel's slice along a
#: pipeline: each read once, held in shared memory for :data:`PIPE_DEPTH` steps while its
#: channel's statistics form) where :func:`pipe_geometry` says it applies; off: two launches.
PIPE_TRAINING = True
#: Threads of a block of the pipeline kernel (``RA_BN_PIPE_BLOCK``).
PIPE_BLOCK = 256
#: Most 16-byte vectors of an item one thread holds, and the steps between an item's statistics
#: and its normalization (the kernel's template arguments ITEMS and DEPTH; one of
#: :data:`PIPE_SHAPES`): a block's shared memory holds ``PIPE_DEPTH + 1`` items of
#: ``PIPE_ITEMS * PIPE_BLOCK`` vectors. ``PIPE_ITEMS`` None: each problem takes the ITEMS of
#: :data:`PIPE_AUTO_ITEMS` (at ``PIPE_DEPTH``) that :func:`pipe_shape` picks.
PIPE_ITEMS, PIPE_DEPTH = None, 1
#: The ITEMS :func:`pipe_shape` chooses from (each compiled with ``PIPE_DEPTH``), the preferred first.
PIPE_AUTO_ITEMS = (7, 8)
#: :func:`pipe_shape` passes over a preferred ITEMS whose geometry takes more than this many times
#: the fewest steps of :data:`PIPE_AUTO_ITEMS`.
PIPE_AUTO_STEPS = 1.25
#: The (ITEMS, DEPTH) pairs compiled.
PIPE_SHAPES = ((8, 1), (7, 1), (6, 2))
#: The pipeline applies to inputs of at least this many bytes; None: the device's L2 size (a
#: smaller input is re-read from L2 by the two-launch path's normalize pass anyway).
PIPE_MIN_BYTES = None
#: Clock cycles a warp of the pipeline kernel waits for one item's words before it gives up (sets
#: the error word :func:`check_pipe` reads; its block writes nothing more).
PIPE_SPIN_LIMIT = 1 << 32
#: Launch epochs of the pipeline kernel's tagged words before the words are zeroed again.
PIPE_EPOCH_LIMIT = 1 << 31

_STORAGE = ("ra_half", "ra_bfloat16", "float", "double")
_KERNELS = ("stats_nchw", "stats_nhwc", "backward_reduce_nchw", "backward_reduce_nhwc", "apply_nchw", "apply_nhwc")


def instantiations():
    """Every name expression launched."""
    names = [f"ra_miopen_bn_{k}<{t}>" for k in _KERNELS for t in _STORAGE]
    names += [f"ra_miopen_bn_train_pipe_nchw<{t}, {i}, {d}>" for t in _STORAGE for i, d in PIPE_SHAPES]
    return sorted(names + ["ra_miopen_bn_inference_coefs<float>", "ra_miopen_bn_inference_coefs<double>"])


_compile.register(SOURCE, instantiations())
_FAMILY = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def acc_dtype(dtype):
    """The dtype statistics, sums and per-channel parameters are kept in: float64 for float64
    data, float32 otherwise."""
    return numpy.dtype(numpy.float64) if numpy.dtype(dtype) == numpy.float64 else numpy.dtype(numpy.float32)


def _vector(dtype):
    return max(1, 16 // numpy.dtype(dtype).itemsize)


class Geometry:
    """The grid of one call: ``view`` ``'nchw'`` (``outer=N``, ``inner=S``) or ``'nhwc'``
    (``outer=M`` rows; ``cols`` threads across a tile, each on ``width`` adjacent channels:
    16-byte vectors when ``vec``), ``C`` channels, ``splits`` and ``chunk`` (elements of a
    channel, or rows, per split)."""

    __slots__ = ("view", "outer", "C", "inner", "cols", "width", "vec", "splits", "chunk", "grid", "tickets",
                 "count")

    def __init__(self, view, outer, C, inner, cols, splits, chunk, grid, tickets, width=1):
        self.view, self.outer, self.C, self.inner, self.cols = view, outer, C, inner, cols
        self.splits, self.chunk, self.grid, self.tickets = splits, chunk, grid, tickets
        self.width, self.vec = width, width > 1
        self.count = outer * inner  # elements per channel

    def __repr__(self):
        return (f"Geometry({self.view!r}, outer={self.outer}, C={self.C}, inner={self.inner}, cols={self.cols}, "
                f"width={self.width}, splits={self.splits}, chunk={self.chunk})")


def view_of(shape, layout):
    """``('nchw', N, C, S)`` or ``('nhwc', M, C, 1)`` for a tensor ``shape`` in ``layout``."""
    shape = tuple(int(v) for v in shape)
    if len(shape) == 2:
        return "nhwc", shape[0], shape[1], 1
    spatial = int(numpy.prod(shape[2:] if layout == "NCHW" else shape[1:-1], dtype=numpy.int64))
    if layout == "NCHW":
        return "nchw", shape[0], shape[1], spatial
    return "nhwc", shape[0] * spatial, shape[-1], 1


def geometry(shape, layout, dtype, resident, vec=False):
    """The :class:`Geometry` of a call on a device holding ``resident`` blocks of the statistics
    kernel at once: the grid fills it once (a partial second wave would double the time).
    ``vec``: channels last, threads take 16-byte vectors of channels (C a multiple of the
    vector width, arrays 16-byte aligned; the forward's kernels only)."""
    view, outer, C, inner = view_of(shape, layout)
    target = max(1, int(resident))
    if view == "nchw":
        per_channel, vec = outer * inner, _vector(dtype)
        most = max(1, -(-per_channel // (BLOCK * UNROLL * vec)))
        splits = max(1, min(target // max(C, 1), most, 65535))
        chunk = -(-per_channel // splits)
        chunk = max(vec, -(-chunk // vec) * vec)
        splits = max(1, -(-per_channel // chunk))
        return Geometry(view, outer, C, inner, 1, splits, chunk, (C, splits), C)
    width = _vector(dtype) if vec and C % _vector(dtype) == 0 else 1
    lanes = -(-C // width)
    cols = min(VECTOR_LANES if width > 1 else COLUMN_TILE, 1 << max(0, (lanes - 1).bit_length()))
    tiles = -(-C // (cols * width))
    rows = BLOCK // cols
    most = max(1, -(-outer // (rows * 2 * UNROLL)))
    splits = max(1, min(target // tiles, most, 1 << 30))
    chunk = max(1, -(-outer // splits))
    splits = max(1, -(-outer // chunk))
    return Geometry(view, outer, C, 1, cols, splits, chunk, (splits, tiles), tiles, width)


def resident_blocks(name, dev):
    """Blocks of kernel ``name`` resident at once on ``dev`` (the occupancy API; at most
    :data:`BLOCKS_PER_MULTIPROCESSOR` per multiprocessor, that many where the API is missing)."""
    per_mp = kernels.occupancy(_FAMILY[name].function(dev), BLOCK, BLOCKS_PER_MULTIPROCESSOR)
    return per_mp * backend.device_info(dev).multiprocessors


def _raise_on_error_word(device_id, name, message):
    """Raise RuntimeError(message) (after clearing the word) if the error word of workspace
    ``name`` on ``device_id`` is set; waits for the device."""
    with launch.on_device(device_id):
        word = workspaces.counters(name, 4, device_id)[:4].view(numpy.uint32)
        if int(word[0]):
            word.fill(0)
            raise RuntimeError(message)


def pipe_geometry(shape, layout, dtype, blocks, items=None):
    """``(sl, splits, Q)`` of the pipeline training forward on ``blocks`` resident blocks, or None
    where it does not apply (:data:`PIPE_TRAINING` off, a channels-last view, no elements, spatial
    runs that are not whole 16-byte vectors, 2^32 vectors or more, a channel whose items would
    need more blocks than there are).

    A channel's ``nv`` 16-byte vectors are cut into ``splits`` items of ``sl`` vectors (the last
    may be short), at most ``items * PIPE_BLOCK`` each (``items`` None: :data:`PIPE_ITEMS`, or the
    first of :data:`PIPE_AUTO_ITEMS`); ``Q`` channels go through each step
    (``Q * splits <= blocks``). The fewest steps, ``ceil(C / Q)``, are taken, and for them the
    most splits (the shortest items).
    """
    view, outer, C, inner = view_of(shape, layout)
    vec, blocks = _vector(dtype), int(blocks)
    if (not PIPE_TRAINING or view != "nchw" or outer * inner == 0 or C == 0 or inner % vec or blocks < 1
            or outer * C * inner // vec >= 1 << 32):  # the kernel's 32-bit vector offsets
        return None
    nv = outer * inner // vec
    fewest = -(-nv // ((items or PIPE_ITEMS or PIPE_AUTO_ITEMS[0]) * PIPE_BLOCK))
    if fewest > blocks:
        return None
    for steps in range(-(-C * fewest // blocks), C + 1):
        Q = -(-C // steps)
        if blocks // Q >= fewest:
            break
    splits = min(blocks // Q, nv)
    sl = -(-nv // splits)
    return sl, -(-nv // sl), Q


def _pipe_kernel(dtype, items, depth):
    return _FAMILY[f"ra_miopen_bn_train_pipe_nchw<{dtypes.ctype(dtype)}, {items}, {depth}>"]


def _pipe_shared(items, depth):
    return (depth + 1) * items * PIPE_BLOCK * 16


def pipe_blocks(device_id, dtype, items, depth):
    """Blocks of the pipeline kernel of shape ``(items, depth)`` resident at once on
    ``device_id`` with its shared memory (the whole carveout asked for)."""
    kernel = _pipe_kernel(dtype, items, depth)
    kernel.prefer_carveout(device_id, 100)
    kernel.allow_shared(device_id, _pipe_shared(items, depth))
    return kernel.resident_blocks(device_id, PIPE_BLOCK, _pipe_shared(items, depth))


def pipe_shape(shape, layout, dtype, blocks_of):
    """``(items, depth, blocks, sl, splits, Q)`` of the pipeline for one problem, or None where
    it does not apply. ``blocks_of(items, depth)``: the resident blocks of that kernel shape.

    :data:`PIPE_ITEMS` set: that shape. None: the first of :data:`PIPE_AUTO_ITEMS` that applies and
    takes at most :data:`PIPE_AUTO_STEPS` times the fewest steps any of them takes (a step of
    smaller items is shorter, but every step pays the round trip of the channel's partials). A
    rule fitted to measurements (docs/performance/miopen.md), not a search: no timing at run time.
    """
    C = view_of(shape, layout)[2]
    found = []
    for items in ((PIPE_ITEMS,) if PIPE_ITEMS else PIPE_AUTO_ITEMS):
        blocks = blocks_of(items, PIPE_DEPTH)
        geo = pipe_geometry(shape, layout, dtype, blocks, items)
        if geo is not None:
            found.append((-(-C // geo[2]), (items, PIPE_DEPTH, blocks) + geo))
    if not found:
        return None
    fewest = min(steps for steps, _ in found)
    return next(picked for steps, picked in found if steps <= PIPE_AUTO_STEPS * fewest)


def _pipe_plan(x, layout):
    dev = x.data.device_id
    key = ("miopen.batchnorm.pipe", tuple(x.shape), layout, x.dtype, PIPE_ITEMS, PIPE_DEPTH, dev)

    def build():
        if not _pipe_kernel(x.dtype, PIPE_ITEMS or PIPE_AUTO_ITEMS[0], PIPE_DEPTH).cooperative_available(dev):
            return None
        return pipe_shape(x.shape, layout, x.dtype, lambda items, depth: pipe_blocks(dev, x.dtype, items, depth))
    return plans.cache.lookup(key, build)


def _pipe_applies(x, dev):
    """Whether ``x`` is large enough for the pipeline (:data:`PIPE_MIN_BYTES`)."""
    least = PIPE_MIN_BYTES if PIPE_MIN_BYTES is not None else backend.device_info(dev).l2_bytes
    return x.nbytes >= least


def check_pipe(device_id):
    """Raise RuntimeError (after clearing it) if a block of the pipeline training forward on
    ``device_id``'s current stream gave up waiting for a channel's partials (its output is then
    incomplete); waits for the device."""
    _raise_on_error_word(device_id, "miopen.batchnorm.pipe_error",
                         "batch norm: a block of the pipeline training forward waited too long for a channel's "
                         "statistics (were all blocks resident?); the output is incomplete")


def _training_on_pipe(x, y, geo, weight, bias, running_mean, running_var, momentum, eps, dev):
    """The channels-first training forward in one cooperative launch of
    ``ra_miopen_bn_train_pipe_nchw`` (``geo``: :func:`pipe_shape`'s tuple)."""
    cupy = backend.cupy()
    acc = acc_dtype(x.dtype)
    items, depth, blocks, sl, splits, Q = geo
    N, C = int(x.shape[0]), int(x.shape[1])
    S = x.size // (N * C)
    mean = cupy.empty(C, acc)
    invstd = cupy.empty(C, acc)
    # an item's partial mean and M2 as tagged words: each 32-bit piece beside the launch's epoch
    words = 2 * acc.itemsize // 4
    buf, capacity, epoch = workspaces.epochs(f"miopen.batchnorm.pipe_words{words}", dev, C * splits,
                                             lambda cap: 8 * words * cap, PIPE_EPOCH_LIMIT)
    error = workspaces.counters("miopen.batchnorm.pipe_error", 4, dev)
    i64, u32, a = numpy.int64, numpy.uint32, acc.type
    _pipe_kernel(x.dtype, items, depth)(
        dev, (blocks,), (x, y, i64(N), i64(C), i64(S), i64(sl), i64(splits), i64(Q),
                         buf[: 8 * words * capacity].view(numpy.uint64), u32(epoch), error[:4].view(u32),
                         i64(PIPE_SPIN_LIMIT),
                         _null(weight), _null(bias), _null(running_mean), _null(running_var), a(momentum), a(eps),
                         mean, invstd),
        block=PIPE_BLOCK, shared=_pipe_shared(items, depth), cooperative=True)
    return y, mean, invstd


def _plan(x, layout, vec=False):
    dev = x.data.device_id
    key = ("miopen.batchnorm", tuple(x.shape), layout, x.dtype, bool(vec), dev)

    def build():
        view = view_of(x.shape, layout)[0]
        resident = resident_blocks(f"ra_miopen_bn_stats_{view}<{dtypes.ctype(x.dtype)}>", dev)
        return geometry(x.shape, layout, x.dtype, resident, vec)
    return plans.cache.lookup(key, build)


def _null(a):
    return numpy.uint64(0) if a is None else a


def _aligned(*arrays):
    return all(a is None or a.data.ptr % 16 == 0 for a in arrays)


def _scratch(geo, acc, dev):
    """Partials (2 per channel and split), tickets (kept zero) and the 5 C coefficients."""
    part = workspaces.scratch("miopen.batchnorm.partials", 2 * geo.C * geo.splits * acc.itemsize, dev)
    tickets = workspaces.counters("miopen.batchnorm.tickets", 4 * geo.tickets, dev)
    coef = workspaces.scratch("miopen.batchnorm.coefficients", 5 * geo.C * acc.itemsize, dev)
    return (part[: 2 * geo.C * geo.splits * acc.itemsize].view(acc), tickets,
            coef[: 5 * geo.C * acc.itemsize].view(acc))


def _apply(geo, in0, in1, out, coef, dev):
    kernel = _FAMILY[f"ra_miopen_bn_apply_{geo.view}<{dtypes.ctype(in0.dtype)}>"]
    i64 = numpy.int64
    if geo.view == "nchw":
        vec = int(geo.inner % _vector(in0.dtype) == 0 and _aligned(in0, in1, out))
        kernel(dev, geo.grid, (in0, _null(in1), out, i64(geo.outer), i64(geo.C), i64(geo.inner), i64(geo.chunk),
                               numpy.int32(vec), coef))
    else:
        kernel(dev, geo.grid, (in0, _null(in1), out, i64(geo.outer), i64(geo.C), numpy.int32(geo.cols),
                               i64(geo.chunk), numpy.int32(geo.vec), coef))


def batchnorm_forward_training(x, weight, bias, running_mean, running_var, momentum=0.1, eps=1e-5, *,
                               layout="NCHW", out=None):
    """Batch normalization with the batch's statistics; running averages updated in place.

    Parameters
    ----------
    x : cupy.ndarray
        Contiguous ``(N, C, *spatial)`` (``layout='NCHW'``) or ``(N, *spatial, C)`` (``'NHWC'``),
        or ``(N, C)``; float16, bfloat16, float32 or float64; more than one element per channel.
    weight, bias : cupy.ndarray or None
        ``(C,)`` in :func:`acc_dtype` (float32, float64 for float64 data); None: 1 and 0.
    running_mean, running_var : cupy.ndarray or None
        ``(C,)`` in :func:`acc_dtype`, both or neither; updated in place as torch does:
        ``(1 - momentum) r + momentum s`` with the batch mean and the unbiased batch variance.
    momentum, eps : float
    layout : {'NCHW', 'NHWC'}
    out : cupy.ndarray, optional
        Output of ``x``'s shape and dtype (contiguous); a new array otherwise.

    Returns
    -------
    y : cupy.ndarray
        ``(x - mean) / sqrt(var + eps) * weight + bias`` (biased batch variance), ``x``'s dtype.
    mean, invstd : cupy.ndarray
        ``(C,)`` in :func:`acc_dtype`: the batch mean and ``1 / sqrt(var + eps)``, what
        :func:`batchnorm_backward` takes.

    Notes
    -----
    Arguments are not checked (the ``rocarray.nn`` façade does).
    """
    cupy = backend.cupy()
    dev = x.data.device_id
    acc = acc_dtype(x.dtype)
    with launch.on_device(dev):
        y = cupy.empty(x.shape, x.dtype) if out is None else out
        # the switch is read on every call
        pipe = _pipe_plan(x, layout) if PIPE_TRAINING and x.size and _pipe_applies(x, dev) else None
        if pipe is not None and _aligned(x, y):
            return _training_on_pipe(x, y, pipe, weight, bias, running_mean, running_var, momentum, eps, dev)
        geo = _plan(x, layout, _aligned(x, y))
        mean = cupy.empty(geo.C, acc)
        invstd = cupy.empty(geo.C, acc)
        if x.size == 0:
            return y, mean, invstd
        part, tickets, coef = _scratch(geo, acc, dev)
        kernel = _FAMILY[f"ra_miopen_bn_stats_{geo.view}<{dtypes.ctype(x.dtype)}>"]
        i64, a = numpy.int64, acc.type
        tail = (part, tickets, _null(weight), _null(bias), _null(running_mean), _null(running_var), a(momentum), a(eps),
                mean, invstd, coef)
        if geo.view == "nchw":
            vec = int(geo.inner % _vector(x.dtype) == 0 and _aligned(x))
            kernel(dev, geo.grid, (x, i64(geo.outer), i64(geo.C), i64(geo.inner), i64(geo.chunk), numpy.int32(vec))
                   + tail)
        else:
            kernel(dev, geo.grid, (x, i64(geo.outer), i64(geo.C), numpy.int32(geo.cols), i64(geo.chunk),
                                   numpy.int32(geo.vec)) + tail)
        _apply(geo, x, None, y, coef, dev)
    return y, mean, invstd


def batchnorm_forward_inference(x, weight, bias, running_mean, running_var, eps=1e-5, *, layout="NCHW", out=None):
    """Batch normalization with fixed (running) statistics.

    Parameters
    ----------
    x : cupy.ndarray
        As :func:`batchnorm_forward_training`.
    weight, bias : cupy.ndarray or None
        ``(C,)`` in :func:`acc_dtype`; None: 1 and 0.
    running_mean, running_var : cupy.ndarray
        ``(C,)`` in :func:`acc_dtype`.
    eps : float
    layout : {'NCHW', 'NHWC'}
    out : cupy.ndarray, optional

    Returns
    -------
    y : cupy.ndarray
        ``(x - running_mean) / sqrt(running_var + eps) * weight + bias`` in ``x``'s dtype.
    invstd : cupy.ndarray
        ``1 / sqrt(running_var + eps)``, ``(C,)`` in :func:`acc_dtype` (with ``running_mean``,
        what :func:`batchnorm_backward` takes with ``training=False``).
    """
    cupy = backend.cupy()
    dev = x.data.device_id
    acc = acc_dtype(x.dtype)
    with launch.on_device(dev):
        y = cupy.empty(x.shape, x.dtype) if out is None else out
        geo = _plan(x, layout, _aligned(x, y))
        invstd = cupy.empty(geo.C, acc)
        if geo.C == 0:
            return y, invstd
        coef = _scratch(geo, acc, dev)[2]
        _FAMILY[f"ra_miopen_bn_inference_coefs<{dtypes.ctype(acc)}>"](
            dev, (-(-geo.C // BLOCK),), (numpy.int64(geo.C), running_mean, running_var, _null(weight), _null(bias),
                                         acc.type(eps), invstd, coef))
        if x.size:
            _apply(geo, x, None, y, coef, dev)
    return y, invstd


def batchnorm_backward(dy, x, weight, mean, invstd, *, training=True, layout="NCHW"):
    """Gradients of batch normalization.

    Parameters
    ----------
    dy, x : cupy.ndarray
        Contiguous, one shape and dtype (as :func:`batchnorm_forward_training`).
    weight : cupy.ndarray or None
        ``(C,)`` in :func:`acc_dtype`.
    mean, invstd : cupy.ndarray
        ``(C,)`` in :func:`acc_dtype`: the forward's batch statistics (``training=True``), or the
        running mean and ``1 / sqrt(running_var + eps)`` (``training=False``: the statistics are
        constants).
    training : bool
    layout : {'NCHW', 'NHWC'}

    Returns
    -------
    grad_input : cupy.ndarray
        ``x``'s shape and dtype.
    grad_weight : cupy.ndarray or None
        ``sum(dy * (x - mean) * invstd)`` per channel in :func:`acc_dtype`; None without weight.
    grad_bias : cupy.ndarray
        ``sum(dy)`` per channel in :func:`acc_dtype`.
    """
    cupy = backend.cupy()
    dev = x.data.device_id
    acc = acc_dtype(x.dtype)
    with launch.on_device(dev):
        geo = _plan(x, layout)
        dx = cupy.empty(x.shape, x.dtype)
        grad_weight = cupy.zeros(geo.C, acc) if weight is not None else None
        grad_bias = cupy.zeros(geo.C, acc)
        if x.size == 0:
            return dx, grad_weight, grad_bias
        part, tickets, coef = _scratch(geo, acc, dev)
        kernel = _FAMILY[f"ra_miopen_bn_backward_reduce_{geo.view}<{dtypes.ctype(x.dtype)}>"]
        i64 = numpy.int64
        tail = (part, tickets, _null(weight), mean, invstd, numpy.int32(bool(training)), _null(grad_weight), grad_bias,
                coef)
        if geo.view == "nchw":
            vec = int(geo.inner % _vector(x.dtype) == 0 and _aligned(dy, x))
            kernel(dev, geo.grid, (dy, x, i64(geo.outer), i64(geo.C), i64(geo.inner), i64(geo.chunk),
                                   numpy.int32(vec)) + tail)
        else:
            kernel(dev, geo.grid, (dy, x, i64(geo.outer), i64(geo.C), numpy.int32(geo.cols), i64(geo.chunk)) + tail)
        _apply(geo, dy, x if training else None, dx, coef, dev)
    return dx, grad_weight, grad_bias
