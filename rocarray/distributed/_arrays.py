"""Arrays split along one axis across ranks: scatter, gather and global reductions.

A distributed array here is nothing but each rank's block of a global array split along one axis
like ``numpy.array_split`` (the first ``n % p`` ranks hold one more element): enough for a
distributed CG or spectral solver, not a sharded-array type. Blocks are CuPy arrays on each rank's
device.

Scalar reductions (:func:`sum` over everything, :func:`dot`, :func:`norm`) reduce the local block
on the device, then one ``all_gather`` of a few words per rank carries every rank's partial result
together with its dtype, so ranks that disagree raise ``ValueError`` on every rank; the partials
are combined on the host in rank order (deterministic, in double precision) and the result comes
back as a 0-d device array of NumPy's result dtype. :func:`sum` along the split axis
``all_reduce``\\ s the partial sums after the shapes were compared.
"""

import builtins
import math

import numpy

from rocarray._core.args import normalize_axis, normalize_axes
from rocarray.distributed import _local
from rocarray.distributed._agree import agree, check_comm
from rocarray.distributed._exchange import all_to_all, split_counts
from rocarray.distributed._local import wire

_MAX_NDIM = 64  # NumPy's limit on dimensions: the width of the shape rows compared across ranks
_KINDS = "biufc"


def _check_root(root, size):
    if not isinstance(root, (int, numpy.integer)) or isinstance(root, bool) or not 0 <= root < size:
        raise ValueError(f"root must be a rank of the communicator (0 <= root < {size}), got {root!r}")
    return int(root)


def _check_dtype(dtype, name):
    if dtype.kind not in _KINDS:
        raise TypeError(f"{name} has dtype {dtype}; distributed arrays take numeric dtypes")


def _padded(shape):
    return list(shape) + [0] * (_MAX_NDIM - len(shape))


def _moved(xp, x, axis):
    """``x`` with ``axis`` first, C-contiguous (blocks along it are then contiguous runs)."""
    return xp.ascontiguousarray(xp.moveaxis(x, axis, 0))


def scatter(x, comm, axis=0, root=0):
    """Split ``x`` (given on ``root``) along ``axis`` and give each rank its block.

    Parameters
    ----------
    x : cupy.ndarray or None
        The global array on ``root`` (any numeric dtype); ignored on the other ranks.
    comm : Communicator
        The communicator; every rank calls.
    axis : int, optional
        The axis to split, like ``numpy.array_split(x, comm.size, axis)``.
    root : int, optional
        The rank holding ``x``.

    Returns
    -------
    cupy.ndarray
        This rank's block (C-contiguous, ``x``'s dtype), on ``comm``'s device.

    Raises
    ------
    TypeError
        ``comm`` is not a Communicator; ``x`` on ``root`` is not a numeric device array.
    ValueError
        ``root`` out of range, ``axis`` out of range or differing between ranks. Raised on every rank.
    """
    check_comm(comm, ("all_gather", "all_to_all"))
    ops = _local.ops()
    fields, error = [0] * (4 + _MAX_NDIM), None
    try:
        root = _check_root(root, comm.size)
        axis = int(axis)
        if comm.rank == root:
            x = ops.array(x, "x", comm)
            _check_dtype(x.dtype, "x")
            axis = normalize_axis(axis, x.ndim)
            fields = [axis, root, x.ndim, ord(x.dtype.char), *_padded(x.shape)]
        else:
            fields = [axis, root, 0, 0, *[0] * _MAX_NDIM]
    except (TypeError, ValueError) as exc:
        error = exc
    table = agree(comm, ops, fields, error, "scatter")
    if len({int(v) for v in table[:, 1]}) != 1:
        raise ValueError(f"scatter: ranks disagree on root: {[int(v) for v in table[:, 1]]}")
    info = table[root]
    ndim, dtype = int(info[2]), numpy.dtype(chr(int(info[3])))
    axis = int(info[0])
    if any(int(v) != axis and int(v) + ndim != axis for v in table[:, 0]):
        raise ValueError(f"scatter: ranks disagree on axis: {[int(v) for v in table[:, 0]]}")
    shape = [int(n) for n in info[4:4 + ndim]]
    moved = [shape[axis]] + [n for d, n in enumerate(shape) if d != axis]
    row = math.prod(moved[1:]) * dtype.itemsize
    counts = split_counts(shape[axis], comm.size)
    me = comm.rank
    with ops.on(comm):
        xp = ops.xp
        send = _moved(xp, x, axis) if me == root else xp.empty(0, dtype)
        out = xp.empty([counts[me]] + moved[1:], dtype)
        send_counts = [c * row for c in counts] if me == root else [0] * comm.size
        recv_counts = [counts[me] * row if r == root else 0 for r in range(comm.size)]
        got = all_to_all(comm, wire(send), wire(out), send_counts, recv_counts, False)
        got = got.view(dtype).reshape(out.shape)
        return xp.ascontiguousarray(xp.moveaxis(got, 0, axis))


def gather(x_local, comm, axis=0, root=0, all=False):  # noqa: A002  (shadows the builtin, as NumPy keywords do)
    """Concatenate every rank's block along ``axis`` (the inverse of :func:`scatter`).

    Parameters
    ----------
    x_local : cupy.ndarray
        This rank's block; the blocks may have any lengths along ``axis`` and the same shape
        otherwise, and one dtype.
    comm : Communicator
        The communicator; every rank calls.
    axis : int, optional
        The axis the blocks are concatenated along, in rank order.
    root : int, optional
        The rank that receives the global array.
    all : bool, optional
        Give the global array to every rank (``root`` is then not used).

    Returns
    -------
    cupy.ndarray or None
        The global array on ``root`` (every rank with ``all=True``), None elsewhere.

    Raises
    ------
    TypeError
        ``comm`` is not a Communicator; ``x_local`` is not a numeric device array.
    ValueError
        ``root`` or ``axis`` out of range; blocks whose ndim, dtype or other lengths differ;
        ranks passing different ``axis``, ``root`` or ``all``. Raised on every rank.
    """
    check_comm(comm, ("all_gather", "all_to_all"))
    ops = _local.ops()
    fields, error = [0] * (5 + _MAX_NDIM), None
    try:
        root = _check_root(root, comm.size)
        x = ops.array(x_local, "x_local", comm)
        _check_dtype(x.dtype, "x_local")
        axis = normalize_axis(axis, x.ndim)
        fields = [axis, root, int(bool(all)), x.ndim, ord(x.dtype.char), *_padded(x.shape)]
    except (TypeError, ValueError) as exc:
        error = exc
    table = agree(comm, ops, fields, error, "gather")
    head = table[:, :5]
    if (head != head[0]).any():
        raise ValueError("gather: ranks disagree on axis, root, all, ndim or dtype of x_local")
    other = numpy.delete(table[:, 5:], axis, axis=1)
    if (other != other[0]).any():
        raise ValueError(f"gather: the blocks' shapes differ off axis {axis}: "
                         f"{[tuple(int(n) for n in r[5:5 + x.ndim]) for r in table]}")
    counts = [int(n) for n in table[:, 5 + axis]]
    moved = [builtins.sum(counts)] + [n for d, n in enumerate(x.shape) if d != axis]
    row = math.prod(moved[1:]) * x.dtype.itemsize
    with ops.on(comm):
        xp = ops.xp
        send = _moved(xp, x, axis)
        if all:
            got = _gather_all(comm, xp, send, counts, row, x.dtype)
        else:
            out = xp.empty(moved if comm.rank == root else 0, x.dtype)
            send_counts = [counts[comm.rank] * row if r == root else 0 for r in range(comm.size)]
            recv_counts = [c * row for c in counts] if comm.rank == root else [0] * comm.size
            got = all_to_all(comm, wire(send), wire(out), send_counts, recv_counts, False).view(x.dtype)
            if comm.rank != root:
                return None
        return xp.ascontiguousarray(xp.moveaxis(got.reshape(moved), 0, axis))


def _gather_all(comm, xp, send, counts, row, dtype):
    """Every block to every rank: one ``all_gather`` of the blocks padded to the longest."""
    longest = max(counts) * row
    buf = xp.zeros(longest, numpy.uint8)
    buf[:counts[comm.rank] * row] = wire(send)
    got = comm.all_gather(buf)
    if all(c * row == longest for c in counts):
        return got.view(dtype)
    parts = [got[r * longest:r * longest + c * row] for r, c in enumerate(counts)]
    return xp.concatenate(parts).view(dtype)


def _wide(dtype):
    """The host type partial results travel in: one per kind, wide enough for any of its dtypes."""
    return {"b": numpy.int64, "i": numpy.int64, "u": numpy.uint64, "f": numpy.float64,
            "c": numpy.complex128}[dtype.kind]


def _partials(comm, ops, local, error, where):
    """Every rank's 0-d partial result (None for an empty block) on the host, in rank order.

    One ``all_gather`` of ``[dtype char, present, two words of the value]`` per rank.
    """
    fields = [0, 0, 0, 0]
    if error is None:
        if local is not None:
            wide = numpy.zeros(1, numpy.complex128)
            wide.view(_wide(local.dtype))[0] = ops.to_host(local)[()]
            fields = [ord(local.dtype.char), 1, *wide.view(numpy.int64)]
    table = agree(comm, ops, fields, error, where)
    chars = {int(c) for c, present in table[:, :2] if present}
    if len(chars) > 1:
        raise ValueError(f"{where}: ranks pass different dtypes: {sorted(chr(c) for c in chars)}")
    if not chars:
        return []
    dtype = numpy.dtype(chr(chars.pop()))
    return [row[2:].copy().view(_wide(dtype))[0] for row in table if row[1]]


def _scalar(ops, comm, value, dtype):
    with ops.on(comm):
        return ops.xp.asarray(numpy.asarray(value).astype(dtype))


def _sum_dtype(dtype):
    return numpy.sum(numpy.zeros(1, dtype)).dtype


def sum(x_local, comm, axis=None, split_axis=0):  # noqa: A001  (numpy's name)
    """Sum of a distributed array (NumPy's ``sum`` of the global array).

    Parameters
    ----------
    x_local : cupy.ndarray
        This rank's block of the global array, split along ``split_axis``.
    comm : Communicator
        The communicator; every rank calls.
    axis : None or int or tuple of int, optional
        Axes to sum over (None: all). Summing over ``split_axis`` communicates and every rank
        gets the result; summing over other axes only is local and the result stays split.
    split_axis : int, optional
        The axis the global array is split along.

    Returns
    -------
    cupy.ndarray
        NumPy's result dtype (``numpy.sum``'s: integers widen to 64 bits); 0-d for ``axis=None``.

    Raises
    ------
    TypeError
        ``comm`` is not a Communicator; ``x_local`` is not a numeric device array.
    ValueError
        ``axis``/``split_axis`` out of range; ranks passing different dtypes, or (summing over the
        split axis) blocks whose other lengths differ. Raised on every rank.
    """
    check_comm(comm, ("all_gather", "all_reduce"))
    ops = _local.ops()
    error, local, reduced = None, None, None
    try:
        x = ops.array(x_local, "x_local", comm)
        _check_dtype(x.dtype, "x_local")
        split_axis = normalize_axis(split_axis, x.ndim)
        reduced = None if axis is None else normalize_axes(axis, x.ndim)
        if reduced is not None and split_axis not in reduced:
            return ops.xp.sum(x, axis=tuple(reduced))
        with ops.on(comm):
            local = ops.xp.sum(x, axis=None if reduced is None else tuple(reduced))
    except (TypeError, ValueError) as exc:
        error = exc
    if reduced is None:
        parts = _partials(comm, ops, local, error, "sum")
        dtype = _sum_dtype(x.dtype)
        return _scalar(ops, comm, numpy.sum(numpy.asarray(parts, _wide(dtype))) if parts else 0, dtype)
    fields = [0] * (2 + _MAX_NDIM)
    if error is None:
        fields = [local.ndim, ord(local.dtype.char), *_padded(local.shape)]
    table = agree(comm, ops, fields, error, "sum")
    if (table != table[0]).any():
        raise ValueError("sum: the partial sums differ in shape or dtype between ranks (the blocks must have "
                         "the same shape off the split axis, and one dtype)")
    with ops.on(comm):
        return _all_reduce_sum(comm, ops.xp.ascontiguousarray(local))


def _all_reduce_sum(comm, x):
    """``comm.all_reduce`` sum; complex arrays travel as their real and imaginary parts."""
    if x.dtype.kind == "c":
        real = x.reshape(-1).view(x.real.dtype)
        return comm.all_reduce(real).view(x.dtype).reshape(x.shape)
    return comm.all_reduce(x)


def dot(x_local, y_local, comm):
    """Dot product of two distributed vectors (``numpy.dot`` of the global 1-D arrays).

    Parameters
    ----------
    x_local, y_local : cupy.ndarray
        This rank's blocks of two 1-D global arrays split alike (same local length).
    comm : Communicator
        The communicator; every rank calls.

    Returns
    -------
    cupy.ndarray
        0-d, ``numpy.result_type(x, y)`` (no conjugation, like ``numpy.dot``); the same on every
        rank.

    Raises
    ------
    TypeError
        ``comm`` is not a Communicator; an argument is not a numeric device array.
    ValueError
        Blocks that are not 1-D or differ in length; ranks with different dtypes. Raised on every
        rank.
    """
    check_comm(comm, ("all_gather",))
    ops = _local.ops()
    error, local, dtype = None, None, None
    try:
        x, y = ops.array(x_local, "x_local", comm), ops.array(y_local, "y_local", comm)
        _check_dtype(x.dtype, "x_local")
        _check_dtype(y.dtype, "y_local")
        if x.ndim != 1 or y.shape != x.shape:
            raise ValueError(f"dot: x_local and y_local must be 1-D blocks of one length, got shapes "
                             f"{x.shape} and {y.shape}")
        dtype = numpy.result_type(x.dtype, y.dtype)
        with ops.on(comm):
            local = ops.xp.dot(x, y)
    except (TypeError, ValueError) as exc:
        error = exc
    parts = _partials(comm, ops, local, error, "dot")
    return _scalar(ops, comm, numpy.sum(numpy.asarray(parts, _wide(dtype))) if parts else 0, dtype)


def _vector_ord(ord, ndim):  # noqa: A002
    """The vector norm computing ``ord`` over all elements (2, 1, inf or -inf), or ``ValueError``."""
    if ord is None or (ndim != 1 and isinstance(ord, str) and ord == "fro"):
        return 2
    if ndim == 1 and not isinstance(ord, str) and ord in (2, 1, numpy.inf, -numpy.inf):
        return float(ord)
    supported = "None, 2, 1, inf, -inf" if ndim == 1 else "None, 'fro'"
    raise ValueError(f"norm: ord={ord!r} is not supported for a {ndim}-D distributed array (supported: {supported})")


def _combine_norms(parts, ord):  # noqa: A002
    """The global norm from the ranks' local norms."""
    parts = numpy.asarray(parts, numpy.float64)
    if ord == 1:
        return parts.sum()
    if ord == numpy.inf:
        return parts.max()
    if ord == -numpy.inf:
        return parts.min()
    return math.sqrt(numpy.sum(parts ** 2))


def norm(x_local, comm, ord=None):  # noqa: A002  (numpy.linalg.norm's name)
    """Norm of a distributed array (``numpy.linalg.norm`` of the global array).

    Parameters
    ----------
    x_local : cupy.ndarray
        This rank's block (split along any one axis: these norms do not depend on the split).
    comm : Communicator
        The communicator; every rank calls.
    ord : {None, 2, 1, inf, -inf, "fro"}, optional
        For 1-D blocks: the vector norms ``None``/2 (Euclidean), 1, ``inf``, ``-inf``; for N-D
        blocks: ``None`` or ``"fro"`` (Frobenius).

    Returns
    -------
    cupy.ndarray
        0-d, real, ``numpy.linalg.norm``'s result dtype; the same on every rank.

    Raises
    ------
    TypeError
        ``comm`` is not a Communicator; ``x_local`` is not a numeric device array.
    ValueError
        Another ``ord`` (matrix norms other than Frobenius need more than a reduction); ranks with
        different dtypes. Raised on every rank.
    """
    check_comm(comm, ("all_gather",))
    ops = _local.ops()
    error, local, dtype = None, None, None
    try:
        x = ops.array(x_local, "x_local", comm)
        _check_dtype(x.dtype, "x_local")
        vector_ord = _vector_ord(ord, x.ndim)
        dtype = numpy.linalg.norm(numpy.ones(1, x.dtype)).dtype
        if x.size:
            with ops.on(comm):
                local = ops.xp.linalg.norm(x.reshape(-1), vector_ord).astype(dtype)
    except (TypeError, ValueError) as exc:
        error = exc
    parts = _partials(comm, ops, local, error, "norm")
    value = _combine_norms(parts, vector_ord) if parts else 0.0
    return _scalar(ops, comm, value, dtype)
