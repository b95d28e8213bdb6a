"""An in-process stand-in for the Communicator contract, for the distributed FFT's CPU tests.

Threads are the ranks and NumPy arrays the buffers. :func:`run_ranks` runs ``fn(comm)`` on ``n``
threads, one :class:`StandIn` each, and returns the results in rank order (the first exception
of any rank is raised, after the others were released from their waits). The collectives follow
the contract's semantics: ``all_to_all`` splits ``x`` into ``size`` equal chunks along axis 0
unless ``send_counts``/``recv_counts`` (elements of axis 0 per peer) are given, and checks that
the counts of each pair of ranks agree; ``all_gather`` concatenates along ``axis``;
``all_reduce`` takes sum, prod, min, max, avg; ``broadcast`` writes into ``x`` on non-roots.

:class:`NumpyOps` is the NumPy twin of :class:`rocarray.distributed._local.DeviceOps`; the
``numpy_ops`` fixture of the tests puts it in place, so the distributed code runs on the host.
"""

import contextlib
import threading

import numpy as np

WAIT = 20.0  # seconds a rank waits for its peers before the test fails (never a hang)


class _Board:
    """Shared slots of one collective and the barrier that separates its phases."""

    def __init__(self, size):
        self.size = size
        self.slots = [None] * size
        self.barrier = threading.Barrier(size, timeout=WAIT)


class StandIn:
    """One rank of the stand-in communicator."""

    def __init__(self, board, rank):
        self._board, self.rank, self.size, self.device = board, rank, board.size, 0
        self.calls = []

    def _exchange(self, value):
        """Post ``value``; return every rank's post (after all posted; slots reusable after)."""
        board = self._board
        board.slots[self.rank] = value
        board.barrier.wait()
        posts = list(board.slots)
        board.barrier.wait()
        return posts

    def all_to_all(self, x, out=None, send_counts=None, recv_counts=None, stream=None):
        self.calls.append(("all_to_all", send_counts is not None))
        if (send_counts is None) != (recv_counts is None):
            raise ValueError("send_counts and recv_counts go together")
        if send_counts is None:
            if x.shape[0] % self.size:
                raise ValueError(f"all_to_all: axis 0 ({x.shape[0]}) is not divisible by {self.size}")
            send_counts = recv_counts = [x.shape[0] // self.size] * self.size
        if sum(send_counts) != x.shape[0] or len(send_counts) != self.size:
            raise ValueError(f"all_to_all: send_counts {send_counts} do not split {x.shape[0]} rows")
        starts = np.cumsum([0] + list(send_counts))
        chunks = [x[starts[j]:starts[j + 1]].copy() for j in range(self.size)]
        posts = self._exchange((chunks, list(recv_counts)))
        received = []
        for j, (peer_chunks, _) in enumerate(posts):
            chunk = peer_chunks[self.rank]
            if chunk.shape[0] != recv_counts[j]:
                raise ValueError(f"all_to_all: rank {self.rank} expects {recv_counts[j]} rows from {j}, "
                                 f"which sends {chunk.shape[0]}")
            received.append(chunk)
        result = np.concatenate(received) if received else x[:0]
        if out is None:
            return result
        if out.shape != result.shape or out.dtype != result.dtype:
            raise ValueError(f"all_to_all: out {out.shape} {out.dtype} != {result.shape} {result.dtype}")
        out[...] = result
        return out

    def all_gather(self, x, out=None, axis=0, stream=None, as_list=False):
        self.calls.append(("all_gather", None))
        posts = self._exchange(np.array(x, copy=True))
        if len({(p.shape, p.dtype) for p in posts}) != 1:
            raise ValueError("all_gather: ranks pass different shapes or dtypes")
        if as_list:
            return posts
        result = np.concatenate(posts, axis=axis)
        if out is None:
            return result
        out[...] = result
        return out

    def all_reduce(self, x, op="sum", out=None, stream=None):
        self.calls.append(("all_reduce", op))
        posts = self._exchange(np.array(x, copy=True))
        if len({(p.shape, p.dtype) for p in posts}) != 1:
            raise ValueError("all_reduce: ranks pass different shapes or dtypes")
        stack = np.stack(posts)
        result = {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max,
                  "avg": np.mean}[op](stack, axis=0).astype(x.dtype)
        if out is None:
            return result
        out[...] = result
        return out

    def broadcast(self, x, root=0, stream=None):
        self.calls.append(("broadcast", root))
        posts = self._exchange(np.array(x, copy=True))
        if self.rank != root:
            x[...] = posts[root]
        return x

    def barrier(self):
        self._exchange(None)


def run_ranks(n, fn):
    """``[fn(comm) for each rank]``, the ranks running at once on ``n`` threads."""
    board = _Board(n)
    comms = [StandIn(board, r) for r in range(n)]
    results, errors = [None] * n, [None] * n

    def body(r):
        try:
            results[r] = fn(comms[r])
        except BaseException as exc:  # noqa: B902 (re-raised below, in the test's thread)
            errors[r] = exc
            board.barrier.abort()  # release the peers waiting on this rank

    threads = [threading.Thread(target=body, args=(r,)) for r in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT * 4)
    first = next((e for e in errors if e is not None and not isinstance(e, threading.BrokenBarrierError)), None)
    if first is not None:
        raise first
    if any(e is not None for e in errors):
        raise next(e for e in errors if e is not None)
    return results


def run_ranks_errors(n, fn):
    """Every rank's exception (None where ``fn`` returned), the ranks running at once."""
    def catching(comm):
        try:
            fn(comm)
        except (TypeError, ValueError) as exc:
            return exc
        return None

    return run_ranks(n, catching)


class NumpyOps:
    """The NumPy twin of the device operations: host arrays, ``numpy.fft`` transforms."""

    xp = np

    def array(self, x, name, comm):
        if not isinstance(x, np.ndarray):
            raise TypeError(f"argument '{name}' must be an array, not {type(x).__name__}")
        return x

    def on(self, comm):
        return contextlib.nullcontext()

    def c2c(self, x, axes, forward, scale):
        y = (np.fft.fftn if forward else np.fft.ifftn)(x, axes=axes, norm="backward" if forward else "forward")
        return np.ascontiguousarray((y * scale).astype(x.dtype))

    def to_host(self, x):
        return np.asarray(x)

    def c2c_into(self, x, out, axis, forward, scale):
        out[...] = self.c2c(x, [axis], forward, scale)

    def r2c(self, x, axis, scale):
        return np.ascontiguousarray((np.fft.rfft(x, axis=axis) * scale).astype(np.result_type(x.dtype, 1j)))

    def c2r(self, x, axis, n, scale):
        y = np.fft.irfft(x, n, axis=axis, norm="forward") * scale
        return np.ascontiguousarray(y.astype(x.real.dtype))
