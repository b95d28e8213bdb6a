"""Block splits and the global transpose of the distributed FFT.

An array distributed "along axis ``a`` over ``p`` ranks" is split like ``numpy.array_split``: the
first ``n % p`` ranks hold ``n // p + 1`` planes, the others ``n // p``. :func:`exchange` moves a
split from one axis to another inside a group of ranks with one ``all_to_all``: each rank packs
the blocks it sends into one contiguous buffer, peer by peer, and unpacks what it receives into
its new block (copies, or 1-D FFT passes reading or writing the buffers). Peers outside the group
get zero counts, so one call of the whole communicator serves every group at once (the pencil
decomposition's row and column exchanges).
"""

import math

from rocarray.distributed._local import wire


def split_counts(n, parts):
    """Lengths of ``numpy.array_split(range(n), parts)``: the first ``n % parts`` get one more."""
    base, extra = divmod(n, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


def offsets(counts):
    """Start of each part (exclusive prefix sums of ``counts``)."""
    out, start = [], 0
    for c in counts:
        out.append(start)
        start += c
    return out


def all_to_all(comm, send, recv, send_counts, recv_counts, even):
    """``comm.all_to_all`` of byte buffers with per-rank byte counts; ``even`` (the same on every
    rank: all counts equal everywhere) takes the plain equal-split call.

    Returns the received buffer (``recv``'s bytes, as the communicator returns them).
    """
    if even:
        return comm.all_to_all(send, out=recv)
    return comm.all_to_all(send, out=recv, send_counts=list(send_counts), recv_counts=list(recv_counts))


def _with(shape, axis, length, axis2=None, length2=None):
    shape = list(shape)
    shape[axis] = length
    if axis2 is not None:
        shape[axis2] = length2
    return tuple(shape)


def _along(ndim, axis, start, stop):
    index = [slice(None)] * ndim
    index[axis] = slice(start, stop)
    return tuple(index)


def exchange(x, comm, ops, group, a, b, n_a, pending=None, after=None):
    """Move the split of ``x`` from axis ``a`` to axis ``b`` inside ``group``.

    Parameters
    ----------
    x : array
        This rank's C-contiguous block: split along ``a`` (its share of ``n_a``), whole along ``b``.
    comm : Communicator
    ops : object
        The per-rank array operations.
    group : list of int
        The ranks sharing the split, in the order of their parts; contains ``comm.rank``.
    a, b : int
        Distinct axes: ``a`` becomes whole, ``b`` becomes split.
    n_a : int
        Global length of axis ``a``.
    pending : tuple, optional
        ``(axis, forward, scale)``: a 1-D transform of ``x`` along ``axis`` (not ``b``) still to
        do, done by the packing (each peer's block transformed into its place in the send
        buffer) instead of a copy. Requires ``b != 0``.
    after : tuple, optional
        ``(axis, forward, scale)``: a 1-D transform along ``axis`` (not ``a``) of the new block,
        done by the unpacking (each received block transformed into its place). Requires
        ``a != 0``.

    Returns
    -------
    array
        New C-contiguous block: whole along ``a``, this rank's share of ``x.shape[b]`` along ``b``.
    """
    if len(group) == 1:
        for transform in (pending, after):
            if transform is not None:
                x = ops.c2c(x, transform[:1], *transform[1:])
        return x
    xp, p, k = ops.xp, len(group), group.index(comm.rank)
    cnt_a, cnt_b = split_counts(n_a, p), split_counts(x.shape[b], p)
    off_a, off_b = offsets(cnt_a), offsets(cnt_b)
    sends = [_with(x.shape, a, cnt_a[k], b, cnt_b[j]) for j in range(p)]
    recvs = [_with(x.shape, a, cnt_a[j], b, cnt_b[k]) for j in range(p)]
    if b == 0:  # blocks along the leading axis of a C-contiguous array are already packed
        send = x
    else:
        send = xp.empty(x.size, x.dtype)
        start = 0
        for j, shape in enumerate(sends):
            size = math.prod(shape)
            block, part = send[start:start + size].reshape(shape), x[_along(x.ndim, b, off_b[j], off_b[j] + cnt_b[j])]
            if pending is None:
                block[...] = part
            else:
                ops.c2c_into(part, block, *pending)
            start += size
    send_counts, recv_counts = [0] * comm.size, [0] * comm.size
    for j, rank in enumerate(group):
        send_counts[rank] = math.prod(sends[j]) * x.dtype.itemsize
        recv_counts[rank] = math.prod(recvs[j]) * x.dtype.itemsize
    out_shape = _with(x.shape, a, n_a, b, cnt_b[k])
    buf = xp.empty(math.prod(out_shape), x.dtype)
    # a decision every rank makes alike: the whole communicator, both axes divisible
    even = p == comm.size and n_a % p == 0 and x.shape[b] % p == 0
    got = all_to_all(comm, wire(send), wire(buf), send_counts, recv_counts, even).view(x.dtype)
    if a == 0:  # the received blocks, one after another, are the new block
        return got.reshape(out_shape)
    out = xp.empty(out_shape, x.dtype)
    start = 0
    for j, shape in enumerate(recvs):
        size = math.prod(shape)
        place, part = out[_along(x.ndim, a, off_a[j], off_a[j] + cnt_a[j])], got[start:start + size].reshape(shape)
        if after is None:
            place[...] = part
        else:
            ops.c2c_into(part, place, *after)
        start += size
    return out
