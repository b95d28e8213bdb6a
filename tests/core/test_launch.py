"""Launch helpers that need no device: the per-stream buffer key."""

import threading
import types

from rocarray._core import launch


def _fake_cupy(ptr):
    stream = types.SimpleNamespace(ptr=ptr)
    cuda = types.SimpleNamespace(get_current_stream=lambda: stream)
    return types.SimpleNamespace(cuda=cuda)


def _key_in_thread():
    out = []
    worker = threading.Thread(target=lambda: out.append(launch.stream_key()))
    worker.start()
    worker.join()
    return out[0]


def test_ordinary_streams_are_keyed_by_handle(monkeypatch):
    for ptr in (0, 0x7F00DEAD):
        monkeypatch.setattr(launch, "cupy", lambda ptr=ptr: _fake_cupy(ptr))
        assert launch.stream_key() == ptr
        assert _key_in_thread() == ptr  # one stream, whichever thread launches on it


def test_per_thread_default_stream_is_keyed_by_thread(monkeypatch):
    monkeypatch.setattr(launch, "cupy", lambda: _fake_cupy(launch.PER_THREAD_STREAM))
    here = launch.stream_key()
    assert here == (launch.PER_THREAD_STREAM, threading.get_ident())
    assert _key_in_thread() != here  # each host thread has its own per-thread stream
