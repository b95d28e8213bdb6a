"""Distributed N-D FFTs: slabs and pencils, local rocFFT passes and ``all_to_all`` transposes.

The global array is split like ``numpy.array_split`` (the first ``n % p`` ranks hold one more
plane) along one axis per process-grid dimension; every rank passes its block (``x_local``).

Decompositions and layouts
--------------------------
``"slab"`` (any ``ndim >= 2``, grid ``(p,)``)
    natural layout: split along axis 0; transposed layout: split along axis 1.
``"pencil"`` (``ndim >= 3``, grid ``(p0, p1)`` with ``p0 * p1 == p``, rank ``r`` at
``divmod(r, p1)``)
    natural layout: axis 0 split over ``p0`` and axis 1 over ``p1``; transposed layout: axis 1 over
    ``p0`` and axis 2 over ``p1``. Between them lies the layout "axis 0 over ``p0``, axis 2 over
    ``p1``"; each step between neighbours is one exchange inside the ranks of one grid row (or
    column).

The axes of the array never move: "transposed" names which axes are split, as FFTW-MPI's
``TRANSPOSED_OUT``/``TRANSPOSED_IN`` do. A transform walks the layouts from its input layout
towards the other end, transforming at each step the requested axes that are whole there, and
stops as soon as all are done; then it walks to the requested output layout. So
``fftn(..., transposed_out=True)`` followed by ``ifftn(..., transposed_in=True)`` costs one
exchange each (slab) or two (pencil), the natural-to-natural round trip twice that.

Transforms along whole axes are :func:`rocarray.rocfft.c2c` calls on the local block (``rfftn``
and ``irfftn`` add :func:`~rocarray.rocfft.r2c` first or :func:`~rocarray.rocfft.c2r` last, along
their last axis, which must be whole in the natural layout); exchanges
pack the blocks sent to each peer into one contiguous buffer (CuPy copies, none when the split
axis is axis 0) and go through ``comm.all_to_all`` as bytes, with per-peer counts when the split
is uneven or the exchange is inside a row or column (zero counts for the ranks outside it).

Arguments are checked on every rank and compared across ranks (one small ``all_gather``) before
any exchange: a rank with a bad argument raises its error and the others raise ``ValueError``.
"""

import math

from rocarray._core.args import normalize_axis
from rocarray.distributed import _local
from rocarray.distributed._agree import agree, check_comm
from rocarray.distributed._exchange import exchange, offsets, split_counts
from rocarray.fft._fft import check_norm, complex_result, norm_scale

_DECOMPOSITIONS = {"slab": ((0,), (1,)), "pencil": ((0, 1), (0, 2), (1, 2))}
_MAX_NDIM = 64  # NumPy's limit on dimensions: the width of the rows compared across ranks
_NEEDS = ("all_gather", "all_to_all")


def _default_grid(decomposition, size):
    if decomposition == "slab":
        return (size,)
    p1 = max(d for d in range(1, math.isqrt(size) + 1) if size % d == 0)
    return (size // p1, p1)


def process_grid(decomposition, grid, size):
    """The process grid of ``decomposition`` over ``size`` ranks (``grid`` None: the default,
    ``(size,)`` for slabs, the most square ``(p0, p1)`` with ``p0 >= p1`` for pencils)."""
    if decomposition not in _DECOMPOSITIONS:
        raise ValueError(f"decomposition must be 'slab' or 'pencil', not {decomposition!r}")
    if grid is None:
        return _default_grid(decomposition, size)
    dims = len(_DECOMPOSITIONS[decomposition][0])
    try:
        grid = tuple(int(g) for g in grid)
    except TypeError:
        raise TypeError(f"grid must be a tuple of {dims} ints, not {type(grid).__name__}") from None
    if len(grid) != dims or min(grid) < 1 or math.prod(grid) != size:
        raise ValueError(f"grid {grid} is not a {dims}-D process grid of the communicator's {size} ranks")
    return grid


def _coords(rank, grid):
    return (rank,) if len(grid) == 1 else divmod(rank, grid[1])


def _group(rank, grid, dim):
    """Ranks sharing ``rank``'s coordinates except along grid dimension ``dim``, in order."""
    if len(grid) == 1:
        return list(range(grid[0]))
    c0, c1 = _coords(rank, grid)
    return [k * grid[1] + c1 for k in range(grid[0])] if dim == 0 else [c0 * grid[1] + k for k in range(grid[1])]


def _block(shape, layout, grid, rank):
    """``(start, stop)`` per axis of ``rank``'s block of a global ``shape`` in ``layout``."""
    bounds = [(0, n) for n in shape]
    for dim, (axis, coord) in enumerate(zip(layout, _coords(rank, grid))):
        counts = split_counts(shape[axis], grid[dim])
        start = offsets(counts)[coord]
        bounds[axis] = (start, start + counts[coord])
    return bounds


def local_slices(shape, comm, *, decomposition="slab", grid=None, transposed=False):
    """This rank's block of a distributed array, as slices of the global array.

    Parameters
    ----------
    shape : tuple of int
        The global shape.
    comm : Communicator
        The communicator (only ``rank`` and ``size`` are read; nothing is exchanged).
    decomposition : {"slab", "pencil"}, optional
        See :mod:`rocarray.distributed.fft`.
    grid : tuple of int, optional
        The process grid (default: ``(size,)``, or the most square pencil grid).
    transposed : bool, optional
        The transposed layout (``transposed_out=True`` results) instead of the natural one.

    Returns
    -------
    tuple of slice
        ``global_array[local_slices(...)]`` is this rank's ``x_local``.

    Raises
    ------
    TypeError
        ``comm`` is not a Communicator, ``shape`` not a sequence of ints.
    ValueError
        A bad ``decomposition`` or ``grid``, or too few axes for it.
    """
    check_comm(comm, ())
    try:
        shape = tuple(int(n) for n in shape)
    except TypeError:
        raise TypeError(f"shape must be a sequence of ints, not {type(shape).__name__}") from None
    grid = process_grid(decomposition, grid, comm.size)
    chain = _DECOMPOSITIONS[decomposition]
    _check_ndim(len(shape), decomposition)
    layout = chain[-1] if transposed else chain[0]
    return tuple(slice(a, b) for a, b in _block(shape, layout, grid, comm.rank))


def _check_ndim(ndim, decomposition):
    need = max(max(layout) for layout in _DECOMPOSITIONS[decomposition]) + 1
    if ndim < need:
        raise ValueError(f"the {decomposition} decomposition needs an array of at least {need} dimensions, "
                         f"got {ndim}")


_NORM_CODES = (None, "backward", "ortho", "forward")


class _Call:
    """One checked call, the same on every rank: the local block and what to do with it."""

    def __init__(self, x, dtype, axes, norm, decomposition, grid, transposed_in, transposed_out, n):
        self.x, self.dtype, self.axes, self.norm = x, dtype, axes, norm
        self.decomposition, self.grid, self.n = decomposition, grid, n
        self.chain = _DECOMPOSITIONS[decomposition]
        self.start = len(self.chain) - 1 if transposed_in else 0
        self.end = len(self.chain) - 1 if transposed_out else 0
        self.shape = None  # the global shape, found once the ranks' rows are gathered

    def fields(self):
        """The row compared across ranks: all but the shape must match; the shape after it."""
        head = [self.x.ndim, self.dtype.num, _NORM_CODES.index(self.norm),
                list(_DECOMPOSITIONS).index(self.decomposition), *self.grid, *[0] * (2 - len(self.grid)),
                self.start, self.end, -1 if self.n is None else self.n]
        flags = [1 if a in self.axes else 0 for a in range(_MAX_NDIM)]
        order = list(self.axes) + [-1] * (_MAX_NDIM - len(self.axes))
        return head + flags + order + list(self.x.shape) + [0] * (_MAX_NDIM - self.x.ndim)


_HEAD = 9  # entries of _Call.fields before the axis flags
_SHAPE = _HEAD + 2 * _MAX_NDIM  # where the shape starts


def _global_shape(table, ndim, layout, grid):
    """The global shape from every rank's local shape; ``ValueError`` unless each rank's block is
    its ``numpy.array_split`` share."""
    shapes = table[:, _SHAPE:_SHAPE + ndim]
    full = [int(n) for n in shapes[0]]
    for dim, axis in enumerate(layout):
        ranks = [0] * grid[dim]
        for r in range(len(table)):
            coords = _coords(r, grid)
            if all(c == 0 for d, c in enumerate(coords) if d != dim):
                ranks[coords[dim]] = r
        full[axis] = int(sum(shapes[r][axis] for r in ranks))
    for r in range(len(table)):
        want = tuple(b - a for a, b in _block(full, layout, grid, r))
        have = tuple(int(n) for n in shapes[r])
        if have != want:
            raise ValueError(f"x_local on rank {r} has shape {have}; a global array of shape {tuple(full)} split "
                             f"like numpy.array_split over the grid {grid} gives it {want}")
    return full


def _checked(x_local, comm, axes, norm, decomposition, grid, transposed_in, transposed_out, n, kind, where):
    """Check the arguments on this rank, compare them across ranks, find the global shape.

    ``kind`` is ``"c2c"``, ``"r2c"`` (real input, whole along the last transformed axis) or
    ``"c2r"``. Returns a :class:`_Call`; raises on every rank when any rank's arguments are bad.
    """
    check_comm(comm, _NEEDS)
    ops = _local.ops()
    call, error = None, None
    try:
        x = ops.array(x_local, "x_local", comm)
        if kind == "r2c" and x.dtype.kind == "c":
            raise TypeError(f"{where} takes real input, not {x.dtype}")
        dtype = complex_result(x.dtype)
        check_norm(norm)
        grid = process_grid(decomposition, grid, comm.size)
        _check_ndim(x.ndim, decomposition)
        axes = list(range(x.ndim)) if axes is None else [normalize_axis(a, x.ndim) for a in axes]
        if len(set(axes)) != len(axes):
            raise ValueError(f"axes {axes} repeat an axis (each axis is transformed once)")
        if kind != "c2c":
            if not axes:
                raise ValueError(f"{where} needs at least one axis")
            if axes[-1] in _DECOMPOSITIONS[decomposition][0]:
                raise ValueError(f"{where}: the last transformed axis ({axes[-1]}) is split in the natural "
                                 f"layout of the {decomposition} decomposition; it must be a whole axis")
        if n is not None:
            n = int(n)
            if n < 1:
                raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
        call = _Call(x, dtype, axes, norm, decomposition, grid, transposed_in, transposed_out, n)
    except (TypeError, ValueError) as exc:
        error = exc
    table = agree(comm, ops, call.fields() if call else [0] * (_SHAPE + _MAX_NDIM), error, where)
    if (table[:, :_SHAPE] != table[0, :_SHAPE]).any():
        raise ValueError(f"{where}: ranks disagree on the arguments (ndim, dtype, axes, norm, decomposition, "
                         f"grid, layout flags or n); every rank must pass the same ones")
    call.shape = _global_shape(table, call.x.ndim, call.chain[call.start], call.grid)
    for a in call.axes:
        if call.shape[a] < 1:
            raise ValueError(f"Invalid number of FFT data points ({call.shape[a]}) along axis {a}")
    return call


def _walk(x, comm, ops, call, todo, forward, scale):
    """Complex transforms along the axes ``todo``, walking the layouts from ``call.start`` towards
    the far end and stopping when all are done, then to ``call.end``. ``scale`` is applied by the
    first transform; returns the block and the scale still to apply (1 once applied).

    Exchanges copy blocks into the send buffer (packing, when the new split axis is not axis 0)
    and out of the received one (unpacking, when the axis made whole is not axis 0). Where a
    transform along another axis comes right before (after) the exchange, its 1-D pass does that
    copy: it reads each peer's block from the array (the received buffer) and writes it into its
    place in the send buffer (the new block), which saves a pass over the block.
    """
    chain, here = call.chain, call.start
    step = 1 if here == 0 else -1
    todo, pending = set(todo), None
    for i in range(here, len(chain) - 1 - here + step, step):
        if not todo:
            break
        now = sorted((a for a in todo if a not in chain[i]), reverse=True)
        joined = _exchanged(call, here, i)[0]
        after = next((a for a in now if joined and a != joined), None)
        if after is not None:
            now.remove(after)
            todo.discard(after)
            after, scale = (after, forward, scale), 1.0
        x = _move(x, comm, ops, call, here, i, pending, after)
        here, pending = i, None
        following = i + step if 0 <= i + step < len(chain) else None
        if following is not None and todo - set(now):
            # an axis whole on both sides of the coming exchange waits for it, to do its unpacking
            joined = _exchanged(call, i, following)[0]
            wait = next((a for a in now if joined and a != joined and a not in chain[following]), None)
            if wait is not None:
                now.remove(wait)
        if not now:
            continue
        todo -= set(now)
        split = _exchanged(call, here, i + step if todo else call.end)[1]
        fused = [a for a in now if split and a != split][:1]
        rest = [a for a in now if a not in fused]
        if rest:
            x, scale = ops.c2c(x, rest, forward, scale), 1.0
        if fused:
            pending, scale = (fused[0], forward, scale), 1.0
    return _move(x, comm, ops, call, here, call.end, pending), scale


def _exchanged(call, here, there):
    """``(axis made whole, axis split)`` by the first exchange from layout ``here`` towards
    ``there`` (``(None, None)``: none)."""
    if here == there:
        return None, None
    src, dst = call.chain[here], call.chain[here + (1 if there > here else -1)]
    return next((s, d) for s, d in zip(src, dst) if s != d)


def _move(x, comm, ops, call, here, there, pending=None, after=None):
    """Walk ``x`` from layout ``chain[here]`` to ``chain[there]`` one neighbour at a time; the
    first exchange applies the ``pending`` transform (``(axis, forward, scale)``) as it packs, the
    last one the ``after`` transform as it unpacks."""
    step = 1 if there > here else -1
    for i in range(here, there, step):
        src, dst = call.chain[i], call.chain[i + step]
        dim = next(d for d in range(len(src)) if src[d] != dst[d])
        group = _group(comm.rank, call.grid, dim)
        x = exchange(x, comm, ops, group, src[dim], dst[dim], call.shape[src[dim]], pending,
                     after if i + step == there else None)
        pending = None
    return x


def _transform(x_local, comm, axes, norm, decomposition, grid, transposed_in, transposed_out, forward, where):
    call = _checked(x_local, comm, axes, norm, decomposition, grid, transposed_in, transposed_out, None, "c2c",
                    where)
    ops = _local.ops()
    scale = norm_scale(norm, math.prod(call.shape[a] for a in call.axes), forward)
    with ops.on(comm):
        x = ops.xp.ascontiguousarray(call.x.astype(call.dtype, copy=False))
        x, scale = _walk(x, comm, ops, call, call.axes, forward, scale)
        return x if scale == 1 else x * x.real.dtype.type(scale)


def _real_forward(x_local, comm, axes, norm, decomposition, grid, transposed_out):
    call = _checked(x_local, comm, axes, norm, decomposition, grid, False, transposed_out, None, "r2c", "rfftn")
    ops, last = _local.ops(), call.axes[-1]
    scale = norm_scale(norm, math.prod(call.shape[a] for a in call.axes), True)
    with ops.on(comm):
        x = ops.xp.ascontiguousarray(call.x.astype(call.dtype.char.lower(), copy=False))
        x = ops.r2c(x, last, scale)
        call.shape[last] = call.shape[last] // 2 + 1
        return _walk(x, comm, ops, call, call.axes[:-1], True, 1.0)[0]


def _real_inverse(x_local, comm, axes, norm, n, decomposition, grid, transposed_in):
    call = _checked(x_local, comm, axes, norm, decomposition, grid, transposed_in, False, n, "c2r", "irfftn")
    ops, last = _local.ops(), call.axes[-1]
    m = call.shape[last]
    n = 2 * (m - 1) if n is None else call.n
    if n < 1 or n // 2 + 1 != m:
        raise ValueError(f"irfftn: {m} coefficients along axis {last} do not make {n} real points (n // 2 + 1 "
                         f"must be {m}; the distributed transform neither crops nor pads)")
    scale = norm_scale(norm, math.prod(call.shape[a] for a in call.axes[:-1]) * n, False)
    with ops.on(comm):
        x = ops.xp.ascontiguousarray(call.x.astype(call.dtype, copy=False))
        x = _walk(x, comm, ops, call, call.axes[:-1], False, 1.0)[0]
        return ops.c2r(x, last, n, scale)


_DOC = """{summary}

    Parameters
    ----------
    x_local : cupy.ndarray
        This rank's block of the global array (see :func:`local_slices`); any numeric dtype
        (complex64 stays complex64, other types follow ``numpy.fft``: complex128).
    comm : Communicator
        The communicator of the ranks holding the array (every rank calls this function).
    axes : sequence of int, optional
        Distinct axes to transform (default: all).
    norm : {{None, "backward", "ortho", "forward"}}, optional
        ``numpy.fft``'s normalization.
    decomposition : {{"slab", "pencil"}}, optional
        How the global array is split (see :mod:`rocarray.distributed.fft`).
    grid : tuple of int, optional
        The process grid: ``(p,)`` for slabs, ``(p0, p1)`` for pencils (default: the most square).
    transposed_in : bool, optional
        ``x_local`` is a block of the transposed layout (as ``transposed_out=True`` returns).
    transposed_out : bool, optional
        Return the block of the transposed layout, which saves the exchanges back.

    Returns
    -------
    cupy.ndarray
        This rank's block of ``numpy.fft.{name}`` of the global array, C-contiguous, in the
        natural layout (or the transposed one).

    Raises
    ------
    TypeError
        ``comm`` is not a Communicator; ``x_local`` is not a device array or not numeric.
    ValueError
        A bad ``norm``, ``axes``, ``decomposition`` or ``grid``; blocks that are not the
        ``numpy.array_split`` shares of one global array; ``x_local`` on another device than
        ``comm``'s; ranks passing different arguments.
        Raised on every rank.
    """


def fftn(x_local, comm, axes=None, norm=None, *, decomposition="slab", grid=None,
         transposed_in=False, transposed_out=False):
    return _transform(x_local, comm, axes, norm, decomposition, grid, transposed_in, transposed_out, True, "fftn")


def ifftn(x_local, comm, axes=None, norm=None, *, decomposition="slab", grid=None,
          transposed_in=False, transposed_out=False):
    return _transform(x_local, comm, axes, norm, decomposition, grid, transposed_in, transposed_out, False, "ifftn")


fftn.__doc__ = _DOC.format(summary="Forward N-D FFT of a distributed array (``numpy.fft.fftn`` of the whole).",
                           name="fftn")
ifftn.__doc__ = _DOC.format(summary="Inverse N-D FFT of a distributed array (``numpy.fft.ifftn`` of the whole).",
                            name="ifftn")


def rfftn(x_local, comm, axes=None, norm=None, *, decomposition="slab", grid=None, transposed_out=False):
    """Forward N-D FFT of a real distributed array (``numpy.fft.rfftn`` of the whole).

    Parameters
    ----------
    x_local : cupy.ndarray
        This rank's block of the global real array, natural layout (see :func:`local_slices`);
        float32 gives complex64, other real and integer dtypes complex128; complex raises.
    comm : Communicator
        The communicator of the ranks holding the array (every rank calls this function).
    axes : sequence of int, optional
        Distinct axes to transform (default: all); the real-to-complex transform runs along the
        last one, which must be whole in the natural layout (not axis 0; for pencils not axis 1).
    norm : {None, "backward", "ortho", "forward"}, optional
        ``numpy.fft``'s normalization.
    decomposition : {"slab", "pencil"}, optional
        How the global array is split (see :mod:`rocarray.distributed.fft`).
    grid : tuple of int, optional
        The process grid: ``(p,)`` for slabs, ``(p0, p1)`` for pencils (default: the most square).
    transposed_out : bool, optional
        Return the block of the transposed layout of the spectrum, which saves the exchanges back.

    Returns
    -------
    cupy.ndarray
        This rank's block of the spectrum (``n // 2 + 1`` long along the last transformed axis),
        C-contiguous, in the natural layout (or the transposed one).

    Raises
    ------
    TypeError
        ``comm`` is not a Communicator; ``x_local`` is not a real device array.
    ValueError
        A bad ``norm``, ``axes``, ``decomposition`` or ``grid``; blocks that are not the
        ``numpy.array_split`` shares of one global array; ``x_local`` on another device than
        ``comm``'s; ranks passing different arguments.
        Raised on every rank.
    """
    return _real_forward(x_local, comm, axes, norm, decomposition, grid, transposed_out)


def irfftn(x_local, comm, axes=None, norm=None, *, n=None, decomposition="slab", grid=None, transposed_in=False):
    """Inverse of :func:`rfftn` (``numpy.fft.irfftn`` of the whole spectrum).

    Parameters
    ----------
    x_local : cupy.ndarray
        This rank's block of the global spectrum (natural layout, or the transposed one with
        ``transposed_in=True``), ``n // 2 + 1`` long along the last transformed axis.
    comm : Communicator
        The communicator of the ranks holding the array (every rank calls this function).
    axes : sequence of int, optional
        Distinct axes to transform (default: all); the complex-to-real transform runs along the
        last one, which must be whole in the natural layout.
    norm : {None, "backward", "ortho", "forward"}, optional
        ``numpy.fft``'s normalization.
    n : int, optional
        Length of the real output along the last transformed axis (default ``2 * (m - 1)`` for
        ``m`` coefficients); ``n // 2 + 1`` must equal ``m`` (no cropping or padding).
    decomposition : {"slab", "pencil"}, optional
        How the global array is split (see :mod:`rocarray.distributed.fft`).
    grid : tuple of int, optional
        The process grid: ``(p,)`` for slabs, ``(p0, p1)`` for pencils (default: the most square).
    transposed_in : bool, optional
        ``x_local`` is a block of the transposed layout (as ``rfftn(..., transposed_out=True)``
        returns).

    Returns
    -------
    cupy.ndarray
        This rank's block of the real result, natural layout, float32 (complex64 input) or float64.

    Raises
    ------
    TypeError
        ``comm`` is not a Communicator; ``x_local`` is not a numeric device array.
    ValueError
        A bad ``norm``, ``axes``, ``n``, ``decomposition`` or ``grid``; blocks that are not the
        ``numpy.array_split`` shares of one global array; ``x_local`` on another device than
        ``comm``'s; ranks passing different arguments.
        Raised on every rank.
    """
    return _real_inverse(x_local, comm, axes, norm, n, decomposition, grid, transposed_in)
