"""Running a batch of communicator calls: the descriptors the ranks exchange and compare before
anything is sent, the NCCL calls (one NCCL group for a batch of several), the steps after them
and the watchdog that waits for them.
"""

import threading
import time
import zlib

import numpy

from rocarray.distributed import _nccl
from rocarray.distributed._errors import DistributedError

_KINDS = ("all_reduce", "reduce", "broadcast", "all_gather", "reduce_scatter", "all_to_all", "barrier",
          "send", "recv")
_COMPLEMENT = {"send": "recv", "recv": "send"}
_ERRORS = (None, ValueError, TypeError)
#: Shape dimensions a descriptor carries for messages (longer shapes are compared by their hash).
_DIMS = 8
# Descriptor fields; the dims follow from _HEAD, then the all_to_all counts (sent, received).
_KIND, _ERROR, _DTYPE, _OP, _ROOT, _AXIS, _NDIM, _SHAPE, _SIZE, _HEAD = range(10)
# Summary of a batch's send/recv calls toward one peer: counts, sequence hashes, an error flag and
# the (dtype, size) of the first send and of the first recv.
_N_SEND, _N_RECV, _SEQ_SEND, _SEQ_RECV, _P2P_ERROR, _FIRST_SEND, _FIRST_RECV, _P2P_LEN = 0, 1, 2, 3, 4, 5, 7, 9
# Watchdog polling: first interval, growth, cap (seconds).
_POLL_FIRST, _POLL_GROWTH, _POLL_CAP = 1e-5, 2.0, 1e-2
#: dtypes named in messages about other ranks (a dtype is exchanged as a hash of its ``str``).
_KNOWN_DTYPES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16",
                 "float32", "float64", "complex64", "complex128")

_state = threading.local()  # .depth, .pending: the calls recorded inside group()


def _crc(values):
    return zlib.crc32(numpy.asarray(values, numpy.int64).tobytes())


def _dtype_code(dtype):
    return zlib.crc32(numpy.dtype(dtype).str.encode())


def _dtype_name(code):
    for name in _KNOWN_DTYPES:
        if _dtype_code(name) == code:
            return name
    return f"dtype#{code}"


def _in_group():
    return getattr(_state, "depth", 0) > 0


def _error_type(error):
    return ValueError if isinstance(error, ValueError) else TypeError


class _Entry:
    """One call: its descriptor fields, the NCCL calls that do it and the steps after them."""

    def __init__(self, comm, kind, stream):
        self.comm, self.kind, self.stream = comm, kind, stream
        self.error = None
        self.fields = {}
        self.counts = None  # all_to_all: (sent, received) elements of axis 0 per peer
        self.peer = None  # send/recv
        self.calls = []  # callables(stream_ptr) making the NCCL calls
        self.finish = []  # callables run on the stream after the NCCL calls
        self.output = None
        self.keep = []  # buffers that must live until the calls are done

    def descriptor(self):
        comm = self.comm
        desc = numpy.full(_HEAD + _DIMS + 2 * comm.size, -1, numpy.int64)
        desc[_KIND] = _KINDS.index(self.kind)
        desc[_ERROR] = _ERRORS.index(type(self.error)) if self.error is not None else 0
        for field, value in self.fields.items():
            if field == "shape":
                desc[_NDIM], desc[_SHAPE], desc[_SIZE] = len(value), _crc(value), int(numpy.prod(value))
                dims = value[:_DIMS]
                desc[_HEAD:_HEAD + len(dims)] = dims
            else:
                desc[field] = value
        if self.counts is not None:
            desc[_HEAD + _DIMS:] = numpy.concatenate(self.counts)
        return desc


# --------------------------------------------------------------------------------------------
# running a batch of calls: exchange and compare descriptors, launch, wait
# --------------------------------------------------------------------------------------------

def _check_cliques(entries):
    """In the one-process mode every rank of a local() clique must make the same calls in a group."""
    cliques = {}
    for entry in entries:
        if entry.comm._clique is not None:
            cliques.setdefault(id(entry.comm._clique), (entry.comm._clique, {}))[1].setdefault(
                entry.comm.rank, []).append(entry.kind)
    for clique, calls in cliques.values():
        sequences = [calls.get(c.rank, []) for c in clique]
        if any(s != sequences[0] for s in sequences):
            shown = "; ".join(f"rank {c.rank}: {', '.join(s) or 'no call'}" for c, s in zip(clique, sequences))
            raise ValueError(f"rocarray.distributed.group: every local communicator makes the same calls ({shown})")


def _flush(entries, *, grouped, failed):
    if not entries:
        return
    if any(e.comm.validate for e in entries):
        _validate(entries)
    for entry in entries:
        if entry.error is not None:
            raise entry.error
    if failed:
        return
    many = grouped or len(entries) > 1 or len(entries[0].calls) > 1
    if many:
        _nccl.group_start()
    try:
        for entry in entries:
            with _nccl.device_scope(entry.comm.device):
                for call in entry.calls:
                    call(entry.stream.ptr)
    finally:
        if many:
            _nccl.group_end()
    for entry in entries:
        for step in entry.finish:
            step()
    timed = [e for e in entries if e.comm.timeout is not None]
    if timed:
        _wait(timed)


def _validate(entries):
    int64 = _nccl.datatype("int64")
    exchanges = []
    peers = {}
    for entry in entries:
        if entry.kind in _COMPLEMENT:
            if entry.peer is not None or entry.error is not None:
                peers.setdefault((id(entry.comm), entry.peer), []).append(entry)
        else:
            exchanges.append(("collective", entry, entry.descriptor()))
    for group_ in peers.values():
        exchanges.append(("p2p", group_[0], _p2p_summary(group_)))
    buffers = []
    _nccl.group_start()
    try:
        for what, entry, desc in exchanges:
            comm, xp = entry.comm, _nccl.array_module()
            send = _nccl.to_device(desc, entry.stream, comm.device)
            with _nccl.device_scope(comm.device):
                rows = comm.size if what == "collective" else 1
                recv = xp.empty((rows, desc.size), numpy.int64)
            ptr, s = _nccl.pointer(recv), entry.stream.ptr
            with _nccl.device_scope(comm.device):
                if what == "collective":
                    comm._handle.allGather(_nccl.pointer(send), ptr, desc.size, int64, s)
                elif entry.peer is not None:
                    comm._handle.send(_nccl.pointer(send), desc.size, int64, entry.peer, s)
                    comm._handle.recv(ptr, desc.size, int64, entry.peer, s)
            buffers.append((send, recv))
    finally:
        _nccl.group_end()
    timed = [e for _, e, _ in exchanges if e.comm.timeout is not None]
    if timed:
        _wait(timed)
    for (what, entry, desc), (_, recv) in zip(exchanges, buffers):
        if what == "collective":
            _compare(entry, _nccl.to_host(recv, entry.stream, entry.comm.device))
        elif entry.peer is not None:
            _compare_p2p(entry, desc, _nccl.to_host(recv, entry.stream, entry.comm.device)[0])


def _shape_text(desc):
    ndim = int(desc[_NDIM])
    if ndim > _DIMS:
        return f"({ndim} dimensions)"
    return str(tuple(int(d) for d in desc[_HEAD:_HEAD + ndim]))


def _disagree(kind, what, table, text):
    shown = ", ".join(f"rank {r}: {text(row)}" for r, row in enumerate(table))
    return f"Communicator.{kind}: {what} differs between ranks ({shown})"


def _compare(entry, table):
    """Raise the same error on every rank when a rank's arguments were bad or ranks disagree."""
    comm, kind = entry.comm, entry.kind
    bad = [r for r in range(comm.size) if table[r, _ERROR]]
    if bad:
        if entry.error is not None:
            raise entry.error
        error = _ERRORS[int(table[bad[0], _ERROR])]
        raise error(f"Communicator.{kind}: rank {', '.join(map(str, bad))} was given invalid arguments "
                    f"({error.__name__} there); nothing was sent")
    if len(set(table[:, _KIND])) > 1:
        raise ValueError(_disagree(kind, "the call", table, lambda row: _KINDS[int(row[_KIND])]))
    if len(set(table[:, _DTYPE])) > 1:
        raise TypeError(_disagree(kind, "x.dtype", table, lambda row: _dtype_name(int(row[_DTYPE]))))
    for field, name in ((_OP, "op"), (_ROOT, "root"), (_AXIS, "axis")):
        if len(set(table[:, field])) > 1:
            show = (lambda row: _nccl.REDUCTIONS[int(row[_OP])]) if field == _OP else (lambda row, f=field: int(row[f]))
            raise ValueError(_disagree(kind, name, table, show))
    if kind == "all_to_all":
        trailing = {tuple(row[_HEAD + 1:_HEAD + min(int(row[_NDIM]), _DIMS)]) for row in table}
        if len(set(table[:, _NDIM])) > 1 or len(trailing) > 1:
            raise ValueError(_disagree(kind, "x.shape[1:]", table, _shape_text))
        sent = table[:, _HEAD + _DIMS:_HEAD + _DIMS + comm.size]
        received = table[:, _HEAD + _DIMS + comm.size:]
        for src, dst in zip(*numpy.nonzero(sent != received.T)):
            raise ValueError(f"Communicator.all_to_all: rank {src} sends {sent[src, dst]} rows to rank {dst}, "
                             f"which expects {received[dst, src]}")
    elif kind != "barrier" and len(set(table[:, _SHAPE])) > 1:
        raise ValueError(_disagree(kind, "x.shape", table, _shape_text))


def _p2p_summary(entries):
    """One peer's view of this batch's send/recv calls toward it: counts, sequence hashes, firsts."""
    summary = numpy.full(_P2P_LEN, -1, numpy.int64)
    summary[_P2P_ERROR] = 0
    for direction, n, seq, first in (("send", _N_SEND, _SEQ_SEND, _FIRST_SEND), ("recv", _N_RECV, _SEQ_RECV,
                                                                                 _FIRST_RECV)):
        mine = [e for e in entries if e.kind == direction]
        pairs = [(e.fields.get(_DTYPE, -1), int(numpy.prod(e.fields.get("shape", (-1,))))) for e in mine]
        summary[n], summary[seq] = len(mine), _crc(pairs or [(0, 0)])
        if pairs:
            summary[first:first + 2] = pairs[0]
    for e in entries:
        if e.error is not None:
            summary[_P2P_ERROR] = _ERRORS.index(_error_type(e.error))
    return summary


def _first(summary, direction):
    at = _FIRST_SEND if direction == "send" else _FIRST_RECV
    dtype, size = int(summary[at]), int(summary[at + 1])
    return f"{_dtype_name(dtype)} x {size}" if size >= 0 else "nothing"


def _compare_p2p(entry, mine, theirs):
    comm, peer = entry.comm, entry.peer
    if mine[_P2P_ERROR] or theirs[_P2P_ERROR]:
        if mine[_P2P_ERROR]:
            return  # this rank's own error is raised by _validate
        raise _ERRORS[int(theirs[_P2P_ERROR])](f"Communicator.send/recv: rank {peer} was given invalid arguments; "
                                               "nothing was sent")
    for here, there, direction in ((_N_SEND, _N_RECV, "send"), (_N_RECV, _N_SEND, "recv")):
        seq_here = _SEQ_SEND if direction == "send" else _SEQ_RECV
        seq_there = _SEQ_RECV if direction == "send" else _SEQ_SEND
        if mine[here] != theirs[there] or (mine[here] and mine[seq_here] != theirs[seq_there]):
            other = "recv" if direction == "send" else "send"
            sender, receiver = (comm.rank, peer) if direction == "send" else (peer, comm.rank)
            sent = mine if direction == "send" else theirs
            got = theirs if direction == "send" else mine
            raise ValueError(f"Communicator.send/recv: rank {sender} sends {int(sent[_N_SEND])} message(s) "
                             f"(first: {_first(sent, 'send')}) to rank {receiver}, which posts "
                             f"{int(got[_N_RECV])} {other if direction == 'send' else direction}(s) "
                             f"(first: {_first(got, 'recv')}); dtype and size must match")


def _wait(entries):
    """Wait for the entries' streams; past the smallest timeout (or on an NCCL error) abort and raise."""
    seen, events = set(), []
    for entry in entries:
        key = (id(entry.comm), entry.stream.ptr)
        if key not in seen:
            seen.add(key)
            events.append(_nccl.record(entry.stream, entry.comm.device))
    comms = {id(e.comm): e.comm for e in entries}
    for comm in list(comms.values()):
        for member in comm._clique or ():
            comms[id(member)] = member
    timeout = min(e.comm.timeout for e in entries)
    deadline, interval = time.monotonic() + timeout, _POLL_FIRST
    kinds = ", ".join(sorted({e.kind for e in entries}))
    while not all(event.done for event in events):
        for comm in comms.values():
            message = _nccl.async_error(comm._handle)
            if message:
                _abort(comms.values(), message)
                raise DistributedError(f"{kinds} on rank {comm.rank}: NCCL reported {message}; the communicator "
                                       "was aborted")
        left = deadline - time.monotonic()
        if left <= 0:
            why = f"{kinds} did not complete within {timeout} s"
            _abort(comms.values(), why)
            raise DistributedError(f"{why} on rank {entries[0].comm.rank}: a peer did not make the same call or "
                                   "died; the communicator was aborted")
        time.sleep(min(interval, left))
        interval = min(interval * _POLL_GROWTH, _POLL_CAP)


def _abort(comms, why):
    for comm in comms:
        comm._abort(why)
