"""One process driving several GPUs with per-rank code: one thread per rank of a
``Communicator.local`` clique, their collective calls meeting in one NCCL group.

Communicators made by :meth:`Communicator.local` are called inside
:func:`rocarray.distributed.group`, one call per rank, from one thread. Code written per rank (the
distributed FFT, the split-array helpers, a training step) waits on the host between its
collectives, so one thread cannot run it for every rank. :func:`run_threads` runs it on one thread
per rank instead, each with its GPU current; each rank's communicator is a stand-in whose
collectives meet: when every rank thread has made its call, one of them makes all of them inside
one ``group()`` (each on the stream its rank thread had current), and every thread gets its own
output back. The ranks must make the same calls in the same order, as with any communicator.
"""

import threading

from rocarray.distributed import _comm
from rocarray.distributed._errors import DistributedError

_COLLECTIVES = ("all_reduce", "reduce", "broadcast", "all_gather", "reduce_scatter", "all_to_all")


class _Meeting:
    """Where the rank threads of one clique meet at each collective call."""

    def __init__(self, comms):
        self.comms = comms
        timeout = max((c.timeout for c in comms if c.timeout is not None), default=None)
        self.gate = threading.Barrier(len(comms), timeout=timeout)
        self.calls = [None] * len(comms)
        self.outputs, self.error = None, None

    def call(self, rank, name, args, kwargs):
        self.calls[rank] = (name, args, kwargs)
        try:
            if self.gate.wait() == 0:  # one thread makes every rank's call in one group
                self.outputs, self.error = self._run()
            self.gate.wait()
        except threading.BrokenBarrierError:
            raise DistributedError(f"{name} (rank {rank}): another rank's thread failed or did not arrive "
                                   f"within the timeout") from None
        if self.error is not None:
            raise self.error
        return self.outputs[rank]

    def _run(self):
        try:
            with _comm.group():
                outputs = [getattr(c, name)(*args, **kwargs) for c, (name, args, kwargs) in zip(self.comms, self.calls)]
        except Exception as exc:  # every rank raises it
            return None, exc
        return outputs, None


class _RankComm:
    """The communicator one rank thread of :func:`run_threads` sees (the collectives, ``barrier``,
    ``rank``, ``size``, ``device``, ``timeout``, ``validate``)."""

    def __init__(self, meeting, comm):
        self._meeting, self._comm = meeting, comm
        self.rank, self.size, self.device = comm.rank, comm.size, comm.device
        self.timeout, self.validate = comm.timeout, comm.validate

    def __repr__(self):
        return f"<rank {self.rank} of {self.size} on device {self.device}, on its own thread>"

    def _collective(self, name, args, kwargs):
        # the stream this thread has current, which the group's thread would not see
        kwargs["stream"] = _comm._nccl.stream(kwargs.get("stream"), self.device)
        return self._meeting.call(self.rank, name, args, kwargs)

    def barrier(self):
        """Return once every rank thread has called ``barrier`` and this rank's stream is done."""
        _comm._nccl.stream(None, self.device).synchronize()
        try:
            self._meeting.gate.wait()
        except threading.BrokenBarrierError:
            raise DistributedError(f"barrier (rank {self.rank}): another rank's thread failed or did not arrive "
                                   f"within the timeout") from None


def _method(name):
    def collective(self, *args, **kwargs):
        return self._collective(name, args, kwargs)
    collective.__name__ = name
    collective.__doc__ = f"``Communicator.{name}``, met by every rank thread's call in one group."
    return collective


for _name in _COLLECTIVES:
    setattr(_RankComm, _name, _method(_name))


def run_threads(fn, comms):
    """Run ``fn(comm)`` for every communicator of a ``Communicator.local`` clique, one thread each.

    Parameters
    ----------
    fn : callable
        Per-rank code, ``fn(comm) -> value``; ``comm`` offers the collectives (``all_reduce``,
        ``reduce``, ``broadcast``, ``all_gather``, ``reduce_scatter``, ``all_to_all``),
        ``barrier``, ``rank``, ``size`` and ``device`` (not ``send``/``recv``), so the distributed
        FFT and the split-array helpers take it. The rank's GPU is current in its thread.
    comms : list of Communicator
        The communicators of one :meth:`Communicator.local` call, in rank order.

    Returns
    -------
    list
        ``fn``'s results in rank order.

    Raises
    ------
    TypeError
        ``fn`` is not callable, or ``comms`` is not a list of communicators.
    Exception
        The first exception of a rank (the other ranks are released with
        :class:`~rocarray.distributed.DistributedError`, which is raised when no rank raised
        anything else).
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable, not {type(fn).__name__}")
    if not isinstance(comms, (list, tuple)) or not comms or not all(hasattr(c, "all_to_all") for c in comms):
        raise TypeError("comms must be the list of communicators of one Communicator.local call")
    meeting = _Meeting(list(comms))
    results, errors = [None] * len(comms), [None] * len(comms)

    def body(rank):
        try:
            with _comm._nccl.device_scope(comms[rank].device):
                results[rank] = fn(_RankComm(meeting, comms[rank]))
        except BaseException as exc:  # raised in the caller's thread below
            errors[rank] = exc
            if exc is not meeting.error:  # every rank raises the meeting's error by itself
                meeting.gate.abort()  # release the ranks waiting for this one

    threads = [threading.Thread(target=body, args=(r,), name=f"rocarray-rank-{r}") for r in range(len(comms))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    first = next((e for e in errors if e is not None and not isinstance(e, DistributedError)), None)
    first = first or next((e for e in errors if e is not None), None)
    if first is not None:
        raise first
    return results
