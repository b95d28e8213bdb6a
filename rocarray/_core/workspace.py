"""The one owner of device scratch memory: named buffers per (device, stream).

Kernels that need scratch space (split-K partial sums, reduction partials and tickets, the status
words of single-pass scans, FFT work rows) get it here, by a name that says what it holds. A named
buffer belongs to one (device, stream, host thread): kernels on one stream run in order, so one
buffer serves every launch a thread queues on it, and a call never waits for memory. The thread
is part of the key because a plan of several launches (a kernel writing scratch, the next reading
it) must not see another thread's launches, queued on the same stream in between, overwrite that
scratch. Buffers grow (to the larger of the request
and twice the old size) and never shrink while a call holds them; a replaced buffer goes back to
CuPy's pool, which hands it out again on the same stream only (stream-ordered reuse).

Three kinds:

* :meth:`Workspaces.scratch`: uninitialized bytes (the kernels write before they read).
* :meth:`Workspaces.counters`: zeroed when allocated, and left zeroed by the kernels that use them
  (tickets that the last block of a group resets).
* :meth:`Workspaces.epochs`: status words tagged with an epoch (decoupled look-back): each launch
  gets a new epoch, so stale words of earlier launches read as "not yet published" and the buffer
  is zeroed only when allocated and when the epoch counter wraps.

A request above :data:`KEEP_BYTES` gets a fresh allocation from CuPy's pool that is not kept (the
caller holds it until its launches are queued). One call must not hold one name for two purposes.

Graph capture: while the current stream is capturing a CUDA/HIP graph, memory a captured launch
may use is never handed back: a replaced buffer and every fresh allocation are kept until
:func:`free_workspaces`, so replaying the graph touches memory no one else owns.
"""

import threading

import numpy

from rocarray._core import backend

#: Requests up to this size are served from a kept buffer; larger ones get a fresh allocation.
KEEP_BYTES = 64 << 20
#: Smallest buffer allocated (fewer regrowths for the many small requests).
MIN_BYTES = 4096

def stream_key():
    """A key naming the current stream and the calling host thread (see the module docstring;
    the per-thread default stream is one handle value for every thread, too)."""
    return (backend.cupy().cuda.get_current_stream().ptr, threading.get_ident())


def capturing():
    """Whether the current stream is capturing a graph (False where the runtime cannot say). A
    replay repeats a launch's arguments, an epoch among them: epoch-tagged kernels whose waits
    need a new epoch each launch take another path while this is true."""
    try:
        return bool(backend.cupy().cuda.get_current_stream().is_capturing())
    except Exception:  # a runtime without stream capture queries
        return False


class _Epochs:
    __slots__ = ("buf", "capacity", "epoch")

    def __init__(self, buf, capacity):
        self.buf, self.capacity, self.epoch = buf, capacity, 0


class Workspaces:
    """Named per-(device, stream) device buffers (see the module docstring); one per process,
    :data:`workspaces`."""

    def __init__(self):
        self._buffers = {}   # (name, zeroed, device, stream key) -> cupy uint8 array
        self._epochs = {}    # (name, device, stream key) -> _Epochs
        self._retired = []   # buffers a captured graph may use
        self._lock = threading.Lock()

    def _allocate(self, nbytes, zeroed):
        cupy = backend.cupy()
        return (cupy.zeros if zeroed else cupy.empty)(nbytes, dtype=numpy.uint8)

    def _get(self, name, nbytes, zeroed, device_id):
        if nbytes > KEEP_BYTES:
            buf = self._allocate(nbytes, zeroed)
            if capturing():
                with self._lock:
                    self._retired.append(buf)
            return buf
        key = (name, zeroed, device_id, stream_key())
        buf = self._buffers.get(key)
        if buf is not None and buf.size >= nbytes:
            return buf
        with self._lock:
            buf = self._buffers.get(key)
            if buf is None or buf.size < nbytes:
                old = buf
                size = max(int(nbytes), MIN_BYTES, 2 * old.size if old is not None else 0)
                buf = self._buffers[key] = self._allocate(min(size, max(int(nbytes), KEEP_BYTES)), zeroed)
                if old is not None and capturing():
                    self._retired.append(old)
        return buf

    def scratch(self, name, nbytes, device_id):
        """Uninitialized device bytes (``uint8``, at least ``nbytes``) named ``name`` on the current
        stream of ``device_id`` (call with that device current)."""
        return self._get(name, nbytes, False, device_id)

    def counters(self, name, nbytes, device_id):
        """Zero-filled device bytes (``uint8``, at least ``nbytes``) that the kernels using them
        leave zeroed, named ``name`` on the current stream of ``device_id``."""
        return self._get(name, nbytes, True, device_id)

    def epochs(self, name, device_id, tiles, nbytes, epoch_limit):
        """``(buffer, capacity, epoch)`` for a launch of ``tiles`` tiles of an epoch-tagged kernel.

        Parameters
        ----------
        name : str
            What the buffer holds.
        device_id : int
            The current device.
        tiles : int
            Tiles of this launch.
        nbytes : callable
            ``nbytes(capacity)``: buffer bytes for ``capacity`` tiles.
        epoch_limit : int
            Epochs run ``1 .. epoch_limit - 1`` (the bits the kernel's status words hold); on wrap
            the buffer is zeroed and the count restarts at 1. While the stream captures a graph
            the buffer is zeroed on the stream before every launch, so each replay starts clean.
        """
        key = (name, device_id, stream_key())
        with self._lock:
            entry = self._epochs.get(key)
            if entry is None or entry.capacity < tiles:
                capacity = max(tiles, 1024, 2 * entry.capacity if entry is not None else 0)
                if entry is not None and capturing():
                    self._retired.append(entry.buf)
                entry = self._epochs[key] = _Epochs(self._allocate(nbytes(capacity), True), capacity)
            entry.epoch += 1
            if entry.epoch >= epoch_limit:
                entry.buf.fill(0)
                entry.epoch = 1
            elif capturing():
                # a replay repeats this launch's epoch, so the words an earlier replay left would
                # match it: the graph clears the buffer before the launch
                entry.buf.fill(0)
            return entry.buf, entry.capacity, entry.epoch

    def free(self):
        """Drop every buffer (they go back to CuPy's pool); later calls allocate afresh."""
        with self._lock:
            self._buffers.clear()
            self._epochs.clear()
            self._retired.clear()

    def nbytes(self):
        """Bytes held now (kept buffers and those kept for captured graphs)."""
        with self._lock:
            return (sum(b.nbytes for b in self._buffers.values()) + sum(e.buf.nbytes for e in self._epochs.values())
                    + sum(b.nbytes for b in self._retired))


#: The process's one workspace owner.
workspaces = Workspaces()


def free_workspaces():
    """Give every workspace buffer back to CuPy's memory pool (``cupy.get_default_memory_pool()``
    then holds it for reuse or ``free_all_blocks``). Call it when no rocarray call is in flight."""
    workspaces.free()
