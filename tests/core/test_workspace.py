"""The workspace owner (:mod:`rocarray._core.workspace`) on the CPU: keys per stream and thread,
growth, the kinds of buffers, the size cap, graph capture and freeing."""

import threading
import types

import numpy as np
import pytest

from rocarray._core import backend
from rocarray._core import workspace as W


class _Buffer:
    """A stand-in device array: size, dtype, how it was made."""

    def __init__(self, size, zeroed):
        self.size = self.nbytes = int(size)
        self.zeroed = zeroed
        self.fills = 0

    def fill(self, value):
        self.fills += 1


class _Stream:
    def __init__(self, ptr, capturing=False):
        self.ptr, self.capturing = ptr, capturing

    def is_capturing(self):
        return self.capturing


@pytest.fixture
def fake(monkeypatch):
    """A fake CuPy whose current stream the test sets, and a fresh owner."""
    state = types.SimpleNamespace(stream=_Stream(0x10), made=[])

    def make(zeroed):
        def alloc(n, dtype):
            assert np.dtype(dtype) == np.uint8
            buf = _Buffer(n, zeroed)
            state.made.append(buf)
            return buf
        return alloc

    cupy = types.SimpleNamespace(empty=make(False), zeros=make(True),
                                 cuda=types.SimpleNamespace(get_current_stream=lambda: state.stream))
    monkeypatch.setattr(backend, "cupy", lambda: cupy)
    state.owner = W.Workspaces()
    return state


def _key_in_thread():
    out = []
    worker = threading.Thread(target=lambda: out.append(W.stream_key()))
    worker.start()
    worker.join()
    return out[0]


def test_buffers_are_keyed_by_stream_and_thread(fake):
    for ptr in (0, 2, 0x7F00DEAD):
        fake.stream = _Stream(ptr)
        here = W.stream_key()
        assert here == (ptr, threading.get_ident())
        theirs = _key_in_thread()
        assert theirs[0] == ptr and theirs != here                        # another thread, another buffer


def test_two_threads_on_one_stream_never_share_scratch(fake):
    owner = fake.owner
    mine = owner.scratch("x", 100, 0)
    theirs = []
    worker = threading.Thread(target=lambda: theirs.append(owner.scratch("x", 100, 0)))
    worker.start()
    worker.join()
    assert theirs[0] is not mine and owner.scratch("x", 100, 0) is mine


def test_a_name_is_one_buffer_per_stream_that_grows_and_is_reused(fake):
    owner = fake.owner
    a = owner.scratch("x", 100, 0)
    assert a.size == W.MIN_BYTES and not a.zeroed
    assert owner.scratch("x", 4000, 0) is a            # fits: the same buffer
    b = owner.scratch("x", 5000, 0)
    assert b is not a and b.size == 2 * W.MIN_BYTES    # grows to twice the old size at least
    c = owner.scratch("x", 20000, 0)
    assert c.size == 20000
    fake.stream = _Stream(0x20)
    assert owner.scratch("x", 10, 0) is not c          # another stream, another buffer
    fake.stream = _Stream(0x10)
    assert owner.scratch("x", 10, 0) is c
    assert owner.scratch("x", 10, 1) is not c          # another device


def test_names_and_kinds_never_share_a_buffer(fake):
    owner = fake.owner
    s = owner.scratch("a", 10, 0)
    t = owner.scratch("b", 10, 0)
    z = owner.counters("a", 10, 0)
    assert len({id(s), id(t), id(z)}) == 3 and z.zeroed and not s.zeroed


def test_requests_past_the_cap_get_fresh_memory_not_kept(fake):
    owner = fake.owner
    big = owner.scratch("x", W.KEEP_BYTES + 1, 0)
    assert big.size == W.KEEP_BYTES + 1
    assert owner.scratch("x", W.KEEP_BYTES + 1, 0) is not big
    assert owner.nbytes() == 0
    kept = owner.scratch("x", W.KEEP_BYTES, 0)
    assert kept.size == W.KEEP_BYTES and owner.nbytes() == W.KEEP_BYTES


def test_growth_never_passes_the_cap_by_doubling(fake):
    owner = fake.owner
    assert owner.scratch("x", W.KEEP_BYTES // 2 + 1, 0).size == W.KEEP_BYTES // 2 + 1
    grown = owner.scratch("x", W.KEEP_BYTES // 2 + 2, 0)
    assert grown.size == W.KEEP_BYTES                  # twice the old size, capped
    assert owner.scratch("x", W.KEEP_BYTES - 1, 0) is grown


def test_memory_a_captured_graph_may_use_is_kept(fake):
    owner = fake.owner
    first = owner.scratch("x", 10, 0)
    fake.stream.capturing = True
    owner.scratch("x", 100000, 0)                       # replaced while capturing: kept
    fresh = owner.scratch("x", W.KEEP_BYTES + 1, 0)     # fresh while capturing: kept
    assert first in owner._retired and fresh in owner._retired
    owner.free()
    assert owner.nbytes() == 0 and owner._retired == []


def test_epochs_count_per_launch_and_wrap_by_zeroing(fake):
    owner = fake.owner
    nbytes = lambda capacity: 16 * capacity  # noqa: E731
    buf, cap, epoch = owner.epochs("scan", 0, 10, nbytes, 4)
    assert (cap, epoch) == (1024, 1) and buf.zeroed and buf.size == 16 * 1024
    assert owner.epochs("scan", 0, 10, nbytes, 4)[2] == 2
    assert owner.epochs("scan", 0, 10, nbytes, 4)[2] == 3
    buf2, _, epoch = owner.epochs("scan", 0, 10, nbytes, 4)
    assert buf2 is buf and epoch == 1 and buf.fills == 1   # wrapped: zeroed, restarted
    bigger, cap, epoch = owner.epochs("scan", 0, 5000, nbytes, 4)
    assert bigger is not buf and cap == 5000 and epoch == 1


def test_free_workspaces_drops_the_process_owner(fake, monkeypatch):
    monkeypatch.setattr(W, "workspaces", fake.owner)
    fake.owner.scratch("x", 10, 0)
    W.free_workspaces()
    assert fake.owner.nbytes() == 0


def test_epochs_under_capture_clear_the_buffer_before_every_launch(fake):
    # a replayed graph repeats its launches' epochs: the buffer is cleared in the graph each time
    owner = fake.owner
    nbytes = lambda capacity: 16 * capacity  # noqa: E731
    buf, _, epoch = owner.epochs("scan", 0, 10, nbytes, 100)
    assert epoch == 1 and buf.fills == 0                  # not capturing: the epoch alone
    fake.stream.capturing = True
    assert owner.epochs("scan", 0, 10, nbytes, 100)[2] == 2 and buf.fills == 1
    assert owner.epochs("scan", 0, 10, nbytes, 100)[2] == 3 and buf.fills == 2
    fake.stream.capturing = False
    assert owner.epochs("scan", 0, 10, nbytes, 100)[2] == 4 and buf.fills == 2
