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

Transforms along whole axes are :func:`rocarray.rocfft.c2c` calls on the local block; exchanges
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


def _fields(x, dtype, axes, norm, decomposition, grid, transposed_in, transposed_out):
    """The row compared across ranks: everything but the shape must match; the shape after it."""
    axis_flags = [1 if a in axes else 0 for a in range(_MAX_NDIM)]
    shape = list(x.shape) + [0] * (_MAX_NDIM - x.ndim)
    head = [x.ndim, dtype.num, (None, "backward", "ortho", "forward").index(norm),
            list(_DECOMPOSITIONS).index(decomposition), *grid, *[0] * (2 - len(grid)),
            int(transposed_in), int(transposed_out)]
    return head + axis_flags + shape


_HEAD = 8  # entries of _fields before the axis flags


def _global_shape(table, ndim, layout, grid):
    """The global shape from every rank's local shape; ``ValueError`` unless each rank's block is
    its ``numpy.array_split`` share."""
    shapes = table[:, _HEAD + _MAX_NDIM:_HEAD + _MAX_NDIM + ndim]
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


def _transform(x_local, comm, axes, norm, decomposition, grid, transposed_in, transposed_out, forward, where):
    check_comm(comm, _NEEDS)
    ops = _local.ops()
    fields, error = [0] * (_HEAD + 2 * _MAX_NDIM), None
    try:
        x = ops.array(x_local, "x_local")
        dtype = complex_result(x.dtype)
        check_norm(norm)
        grid = process_grid(decomposition, grid, comm.size)
        _check_ndim(x.ndim, decomposition)
        axes = list(range(x.ndim)) if axes is None else [normalize_axis(a, x.ndim) for a in axes]
        if len(set(axes)) != len(axes):
            raise ValueError(f"axes {axes} repeat an axis (each axis is transformed once)")
        fields = _fields(x, dtype, axes, norm, decomposition, grid, transposed_in, transposed_out)
    except (TypeError, ValueError) as exc:
        error = exc
    table = agree(comm, ops, fields, error, where)
    if any((row[:_HEAD + _MAX_NDIM] != table[0, :_HEAD + _MAX_NDIM]).any() for row in table):
        raise ValueError(f"{where}: ranks disagree on the arguments (ndim, dtype, axes, norm, decomposition, "
                         f"grid or layout flags); every rank must pass the same ones")
    chain = _DECOMPOSITIONS[decomposition]
    start, end = (len(chain) - 1 if transposed_in else 0), (len(chain) - 1 if transposed_out else 0)
    shape = _global_shape(table, x.ndim, chain[start], grid)
    for a in axes:
        if shape[a] < 1:
            raise ValueError(f"Invalid number of FFT data points ({shape[a]}) along axis {a}")
    scale = norm_scale(norm, math.prod(shape[a] for a in axes), forward)
    with ops.on(comm):
        x = ops.xp.ascontiguousarray(x.astype(dtype, copy=False))
        step = 1 if start == 0 else -1
        here, todo = start, set(axes)
        for i in range(start, len(chain) - 1 - start + step, step):
            x = _move(x, comm, ops, chain, here, i, shape, grid)
            here = i
            now = sorted((a for a in todo if a not in chain[i]), reverse=True)
            if now:
                x = ops.c2c(x, now, forward, scale)
                scale, todo = 1.0, todo - set(now)
            if not todo:
                break
        return _move(x, comm, ops, chain, here, end, shape, grid)


def _move(x, comm, ops, chain, here, there, shape, grid):
    """Walk ``x`` from layout ``chain[here]`` to ``chain[there]`` one neighbour at a time."""
    step = 1 if there > here else -1
    for i in range(here, there, step):
        src, dst = chain[i], chain[i + step]
        dim = next(d for d in range(len(src)) if src[d] != dst[d])
        x = exchange(x, comm, ops, _group(comm.rank, grid, dim), src[dim], dst[dim], shape[src[dim]])
    return x


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
        ``numpy.array_split`` shares of one global array; ranks passing different arguments.
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
