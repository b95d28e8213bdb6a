"""An in-process multi-rank test double for ``rocarray.distributed``: threads as ranks, NumPy arrays
as device arrays, and a fake transport standing in for ``rocarray.distributed._nccl``.

The :class:`~rocarray.distributed.Communicator` under test is the real class: its planning,
splitting (all_to_all offsets), grouping and cross-rank validation run unchanged; only the
transport is replaced. The fake handles take NCCL's arguments (pointers, counts, datatype and op
codes, a stream) and, like NCCL, only *enqueue*: a collective completes when the last rank has
posted its part (that rank's thread reads every rank's memory and writes every rank's output),
a send when its receive is posted. Events report completion, so the communicator's watchdog, the
timeouts and a rank that never arrives behave as on a GPU.

``run_ranks(n, fn)`` runs ``fn(comm)`` in ``n`` threads and returns their results in rank order.
"""

import contextlib
import ctypes
import itertools
import os
import threading
import time

import numpy as np

from rocarray.distributed import _batch, _comm, _nccl, _rendezvous

REDUCTIONS = _nccl.REDUCTIONS
_DTYPES = ("int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64")
#: How long a fake stream synchronize or host copy waits before failing the test (seconds).
SYNC_LIMIT = 30.0


def _read(ptr, nbytes, dtype=np.uint8):
    raw = np.frombuffer((ctypes.c_char * max(nbytes, 1)).from_address(ptr), np.uint8)[:nbytes].copy()
    return raw.view(dtype)


def _write(ptr, data):
    data = np.ascontiguousarray(data)
    ctypes.memmove(ptr, data.ctypes.data, data.nbytes)


class _Op:
    def __init__(self):
        self.done = False


class _World:
    """The ranks of one communicator: pending collectives by sequence number, send/recv channels."""

    def __init__(self, size):
        self.size = size
        self.lock = threading.Lock()
        self.sequence = [0] * size
        self.slots = {}
        self.channels = {}  # (src, dst) -> ([sends], [recvs])
        self.aborted = False

    def post_collective(self, rank, op, part):
        with self.lock:
            seq = self.sequence[rank]
            self.sequence[rank] += 1
            ops, parts = self.slots.setdefault(seq, ([], {}))
            ops.append(op)
            parts[rank] = part
            if len(parts) == self.size and not self.aborted:
                _execute(parts, self.size)
                for done in ops:
                    done.done = True
                del self.slots[seq]

    def post_p2p(self, src, dst, kind, op, ptr, nbytes):
        with self.lock:
            sends, recvs = self.channels.setdefault((src, dst), ([], []))
            (sends if kind == "send" else recvs).append((op, ptr, nbytes))
            while sends and recvs and not self.aborted:
                (send_op, src_ptr, n_send), (recv_op, dst_ptr, n_recv) = sends.pop(0), recvs.pop(0)
                assert n_send == n_recv, f"fake transport: send of {n_send} bytes met a recv of {n_recv}"
                _write(dst_ptr, _read(src_ptr, n_send))
                send_op.done = recv_op.done = True


def _reduce(op, stack, dtype):
    if op == "sum":
        return stack.sum(axis=0, dtype=dtype)
    if op == "prod":
        return stack.prod(axis=0, dtype=dtype)
    if op == "min":
        return stack.min(axis=0)
    if op == "max":
        return stack.max(axis=0)
    return (stack.sum(axis=0, dtype=dtype) / len(stack)).astype(dtype)


def _execute(parts, size):
    kind = parts[0][0]
    assert all(p[0] == kind for p in parts.values()), f"fake transport: ranks called {[p[0] for p in parts.values()]}"
    if kind in ("allReduce", "reduce", "reduceScatter"):
        _, src, dst, count, dtype, op, root = parts[0]
        dtype = np.dtype(_DTYPES[dtype])
        total = count * size if kind == "reduceScatter" else count
        stack = np.stack([_read(parts[r][1], total * dtype.itemsize, dtype) for r in range(size)])
        result = _reduce(REDUCTIONS[op], stack, dtype)
        for r in range(size):
            if kind == "allReduce" or (kind == "reduce" and r == root):
                _write(parts[r][2], result)
            elif kind == "reduceScatter":
                _write(parts[r][2], result[r * count:(r + 1) * count])
    elif kind == "broadcast":
        root, nbytes = parts[0][6], parts[0][3]
        data = _read(parts[root][1], nbytes)
        for r in range(size):
            _write(parts[r][2], data)
    elif kind == "allGather":
        nbytes = parts[0][3] * np.dtype(_DTYPES[parts[0][4]]).itemsize
        data = np.concatenate([_read(parts[r][1], nbytes) for r in range(size)])
        for r in range(size):
            _write(parts[r][2], data)


class Handle:
    """A fake ``NcclCommunicator``: NCCL's method names and arguments; calls only enqueue."""

    def __init__(self, transport, world, rank):
        self.transport, self.world, self.rank = transport, world, rank
        self.destroyed = self.aborted = False

    def rank_id(self):
        return self.rank

    def size(self):
        return self.world.size

    def _post(self, fn):
        self.transport.post(self, fn)

    def _collective(self, *part):
        op = _Op()
        self._post(lambda: self.world.post_collective(self.rank, op, part))
        return op

    def allReduce(self, src, dst, count, dtype, op, stream):
        return self._collective("allReduce", src, dst, count, dtype, op, None)

    def reduce(self, src, dst, count, dtype, op, root, stream):
        return self._collective("reduce", src, dst, count, dtype, op, root)

    def broadcast(self, src, dst, count, dtype, root, stream):
        return self._collective("broadcast", src, dst, count, dtype, None, root)

    def allGather(self, src, dst, count, dtype, stream):
        return self._collective("allGather", src, dst, count, dtype, None, None)

    def reduceScatter(self, src, dst, count, dtype, op, stream):
        return self._collective("reduceScatter", src, dst, count, dtype, op, None)

    def send(self, ptr, count, dtype, peer, stream):
        op, nbytes = _Op(), count * np.dtype(_DTYPES[dtype]).itemsize
        self._post(lambda: self.world.post_p2p(self.rank, peer, "send", op, ptr, nbytes))
        return op

    def recv(self, ptr, count, dtype, peer, stream):
        op, nbytes = _Op(), count * np.dtype(_DTYPES[dtype]).itemsize
        self._post(lambda: self.world.post_p2p(peer, self.rank, "recv", op, ptr, nbytes))
        return op

    def abort(self):
        self.aborted = self.world.aborted = True

    def destroy(self):
        self.destroyed = True


class _Stream:
    """A fake stream: ``.ptr``, a no-op context, ``synchronize()`` waits for the thread's calls."""

    def __init__(self, transport, device):
        self.transport, self.ptr = transport, device

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        self.transport.wait_thread()


class _Event:
    def __init__(self, ops):
        self.ops = ops

    @property
    def done(self):
        """Like ``cupy.cuda.Event.done``: whether the work recorded before it has finished."""
        return all(op.done for op in self.ops)


class Transport:
    """Stands in for the ``rocarray.distributed._nccl`` module (same function names)."""

    REDUCTIONS = REDUCTIONS

    def __init__(self, native_avg=True):
        self.native_avg = native_avg
        self.local = threading.local()
        self.worlds = {}
        self.lock = threading.Lock()
        self.streams = {}

    # the module's functions
    def check_device(self, device=None):
        return None

    def device_count(self):
        return len(self.streams) or 1

    def datatype(self, name):
        return _DTYPES.index(name) if name in _DTYPES else None

    def reduction(self, op):
        if op == "avg" and not self.native_avg:
            return None
        return REDUCTIONS.index(op)

    def unique_id(self):
        return os.urandom(128)

    def init_rank(self, size, uid, rank, device):
        with self.lock:
            world = self.worlds.setdefault(uid, _World(size))
        return Handle(self, world, rank)

    def init_all(self, devices):
        world = _World(len(devices))
        return [Handle(self, world, rank) for rank in range(len(devices))]

    def _pending(self):
        if not hasattr(self.local, "pending"):
            self.local.pending, self.local.depth, self.local.grouped, self.local.issued = [], 0, [], []
        return self.local

    def group_start(self):
        self._pending().depth += 1

    def group_end(self):
        state = self._pending()
        state.depth -= 1
        if state.depth == 0:
            posts, state.grouped = state.grouped, []
            for post in posts:
                post()

    def post(self, handle, fn):
        state = self._pending()
        if state.depth:
            state.grouped.append(fn)
        else:
            fn()

    def async_error(self, handle):
        return None

    def array_module(self):
        return np

    def pointer(self, x):
        return x.ctypes.data

    def device_of(self, x):
        return None

    def to_host(self, x, stream, device):
        self.wait_thread()
        return np.array(x)

    def to_device(self, a, stream, device):
        return np.array(a)

    def device_scope(self, device):
        return contextlib.nullcontext()

    def stream(self, stream, device):
        if stream is not None:
            return stream
        with self.lock:
            return self.streams.setdefault(device, _Stream(self, device))

    def record(self, stream, device):
        return _Event(list(self._issued()))

    def stream_scope(self, stream, device):
        # NumPy work "on the stream" comes after the thread's enqueued calls, as on a GPU
        self.wait_thread()
        return contextlib.nullcontext()

    # bookkeeping of the ops each thread enqueued
    def _issued(self):
        return self._pending().issued

    def wait_thread(self):
        deadline = time.monotonic() + SYNC_LIMIT
        while not all(op.done for op in self._issued()):
            if time.monotonic() > deadline:
                raise AssertionError("fake transport: a synchronize waited past SYNC_LIMIT (a rank never arrived?)")
            time.sleep(1e-4)


def _track(transport):
    """Record every op a handle method returns in the calling thread's list (for events)."""
    for name in ("allReduce", "reduce", "broadcast", "allGather", "reduceScatter", "send", "recv"):
        method = getattr(Handle, name)

        def tracked(self, *args, _method=method):
            op = _method(self, *args)
            self.transport._issued().append(op)
            return op
        setattr(Handle, name, tracked)


_track(Transport)
_install_lock = threading.Lock()


@contextlib.contextmanager
def installed(transport):
    """Put ``transport`` in place of ``_nccl`` for the communicator, its batches and the rendezvous."""
    with _install_lock:
        saved = _batch._nccl, _comm._nccl, _rendezvous._nccl
        _batch._nccl = _comm._nccl = _rendezvous._nccl = transport
        try:
            yield transport
        finally:
            _batch._nccl, _comm._nccl, _rendezvous._nccl = saved


def communicators(n, transport, *, timeout=5.0, validate=True):
    """``n`` communicators of one fake world (device ``r`` for rank ``r``)."""
    world = _World(n)
    return [_comm.Communicator(Handle(transport, world, r), r, timeout=timeout, validate=validate)
            for r in range(n)]


def run_ranks(n, fn, *, timeout=5.0, validate=True, native_avg=True, return_exceptions=False, join=None):
    """Run ``fn(comm)`` for ranks ``0..n-1`` in ``n`` threads over one fake world.

    Parameters
    ----------
    n : int
    fn : callable
        ``fn(comm) -> value``; ``comm`` is a real :class:`~rocarray.distributed.Communicator`.
    timeout, validate
        The communicators' settings.
    native_avg : bool
        Whether the fake transport offers ncclAvg (else the communicator sums and scales).
    return_exceptions : bool
        Put a rank's exception in its place in the result instead of raising the first one.
    join : float, optional
        Seconds to wait for the threads (default ``4 * timeout + 10``); a thread still running
        then fails the test (a hang).

    Returns
    -------
    list
        ``fn``'s results in rank order.
    """
    transport = Transport(native_avg=native_avg)
    results = [None] * n
    with installed(transport):
        comms = communicators(n, transport, timeout=timeout, validate=validate)

        def run(rank):
            try:
                results[rank] = fn(comms[rank])
            except BaseException as exc:  # reported to the caller
                results[rank] = exc

        threads = [threading.Thread(target=run, args=(r,), daemon=True) for r in range(n)]
        for thread in threads:
            thread.start()
        limit = time.monotonic() + (join if join is not None else 4 * (timeout or 5.0) + 10)
        for rank, thread in zip(itertools.count(), threads):
            thread.join(max(limit - time.monotonic(), 0))
            if thread.is_alive():
                raise AssertionError(f"rank {rank} did not finish: a hang")
    if not return_exceptions:
        for result in results:
            if isinstance(result, BaseException):
                raise result
    return results
