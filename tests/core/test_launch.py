"""Launch helpers that need no device: the per-stream buffer key, the shared-memory grants."""

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


class _CountingKernel:
    """A kernel handle whose shared-memory attribute counts its driver round trips."""

    def __init__(self, granted):
        self._granted = granted
        self.queries = 0

    @property
    def max_dynamic_shared_size_bytes(self):
        self.queries += 1
        return self._granted

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, nbytes):
        self.queries += 1
        self._granted = nbytes


def test_allow_shared_asks_the_driver_once_per_grant():
    k = _CountingKernel(48 * 1024)
    launch.allow_shared(k, 40 * 1024)          # within the default: no opt-in, no query
    assert k.queries == 0
    launch.allow_shared(k, 53 * 1024)
    assert k.max_dynamic_shared_size_bytes == 53 * 1024
    asked = k.queries
    for _ in range(3):
        launch.allow_shared(k, 53 * 1024)      # a warm launch: the table answers
        launch.allow_shared(k, 50 * 1024)      # less than granted: never lowered
    assert k.queries == asked and k._granted == 53 * 1024
    launch.allow_shared(k, 96 * 1024)          # more: asked again
    assert k._granted == 96 * 1024


def test_allow_shared_keeps_a_grant_per_handle():
    a, b = _CountingKernel(48 * 1024), _CountingKernel(48 * 1024)
    launch.allow_shared(a, 64 * 1024)
    launch.allow_shared(b, 60 * 1024)
    assert a._granted == 64 * 1024 and b._granted == 60 * 1024


def test_prefer_carveout_sets_the_attribute_or_keeps_the_default():
    k = types.SimpleNamespace()
    launch.prefer_carveout(k, 65.0)
    assert k.preferred_shared_memory_carveout == 65 and isinstance(k.preferred_shared_memory_carveout, int)

    class _NoAttribute:   # a target or CuPy without the attribute: the default stays, nothing raises
        def __setattr__(self, name, value):
            raise AttributeError(name)

    launch.prefer_carveout(_NoAttribute(), 65)


def test_bulk_copy_engine_rule_and_per_device_memo(monkeypatch):
    assert launch.bulk_copy_engine(False, 9) and launch.bulk_copy_engine(False, 10)
    assert not launch.bulk_copy_engine(False, 8) and not launch.bulk_copy_engine(True, 9)
    asked = []

    def info(device_id):
        asked.append(device_id)
        return types.SimpleNamespace(is_hip=False, compute_capability="9.0" if device_id == 0 else "8.0")

    monkeypatch.setattr(launch.backend, "device_info", info)
    monkeypatch.setattr(launch, "_bulk_copy_by_device", {})
    assert launch.has_bulk_copy(0) and not launch.has_bulk_copy(1)
    assert launch.has_bulk_copy(0) and not launch.has_bulk_copy(1)
    assert asked == [0, 1]
