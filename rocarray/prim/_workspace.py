"""Per-(device, stream) workspaces for single-pass kernels with decoupled look-back.

The scan and compaction kernels keep a tile ticket counter and one status word per tile in a
device buffer. Each launch gets a new *epoch* number: a status word written by an earlier launch
carries another epoch and reads as "not yet published", so the buffer is zeroed only when it is
allocated (and when the epoch counter wraps), never per launch.
"""

import threading

import numpy

from rocarray._core import launch


class _Entry:
    __slots__ = ("buf", "capacity", "epoch")

    def __init__(self, buf, capacity):
        self.buf = buf
        self.capacity = capacity
        self.epoch = 0


class EpochWorkspaces:
    """Grow-only workspaces, one per (device, stream), handing out a new epoch per launch.

    Parameters
    ----------
    nbytes : callable
        ``nbytes(capacity)``: buffer bytes for ``capacity`` tiles.
    epoch_limit : int
        Epochs run ``1 .. epoch_limit - 1`` (the bits the kernel's status words hold); on wrap the
        buffer is zeroed and the count restarts at 1.
    """

    def __init__(self, nbytes, epoch_limit):
        self.nbytes = nbytes
        self.epoch_limit = epoch_limit
        self.entries = {}
        self._lock = threading.Lock()

    def get(self, device_id, tiles):
        """``(buffer, capacity, epoch)`` for a launch of ``tiles`` tiles on the current stream."""
        cupy = launch.cupy()
        key = (device_id, launch.stream_key())
        with self._lock:
            ws = self.entries.get(key)
            if ws is None or ws.capacity < tiles:
                cap = max(tiles, 1024, 2 * ws.capacity if ws is not None else 0)
                ws = self.entries[key] = _Entry(cupy.zeros(self.nbytes(cap), dtype=numpy.uint8), cap)
            ws.epoch += 1
            if ws.epoch >= self.epoch_limit:
                ws.buf.fill(0)
                ws.epoch = 1
            return ws.buf, ws.capacity, ws.epoch
