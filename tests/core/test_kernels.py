"""Kernel handles (:mod:`rocarray._core.kernels`) on the CPU: compile once per device, the wave,
shared-memory grants asked once, the carveout, the family memo, prepared and immediate launches."""

import types

import numpy as np
import pytest

from rocarray._core import backend, kernels
from rocarray._core import compile as _compile
from rocarray._core import launch as L


class _Function:
    """A compiled-kernel stand-in whose shared-memory attribute counts its driver round trips."""

    def __init__(self, granted=48 * 1024):
        self._granted = granted
        self.queries = 0
        self.calls = []

    @property
    def max_dynamic_shared_size_bytes(self):
        self.queries += 1
        return self._granted

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, nbytes):
        self.queries += 1
        self._granted = nbytes

    def __call__(self, grid, block, args, shared_mem=0):
        self.calls.append((grid, block, args, shared_mem))


@pytest.fixture
def compiled(monkeypatch):
    made = {}

    def get_kernel(source, name, device_id=None):
        made.setdefault((source, name, device_id), []).append(1)
        return _Function()

    monkeypatch.setattr(_compile, "get_kernel", get_kernel)
    info = types.SimpleNamespace(multiprocessors=132)
    monkeypatch.setattr(backend, "device_info", lambda device_id=None: info)
    return made


def test_a_kernel_compiles_once_per_device(compiled):
    k = kernels.Kernel("lib/a.hip", "ra_lib_a", 256, 8)
    assert k.function(0) is k.function(0) and k.function(1) is not k.function(0)
    assert compiled == {("lib/a.hip", "ra_lib_a", 0): [1], ("lib/a.hip", "ra_lib_a", 1): [1]}


def test_wave_is_multiprocessors_times_capped_occupancy(compiled, monkeypatch):
    k = kernels.Kernel("lib/a.hip", "ra_lib_a", 256, 8)
    assert k.wave(0) == 132 * 8                     # no occupancy API for a stand-in: the cap
    monkeypatch.setattr(kernels, "occupancy", lambda fn, block, limit, shared=0: 3)
    assert k.wave(0) == 132 * 8                     # memoized
    assert kernels.Kernel("lib/a.hip", "ra_lib_b", 256, 8).wave(0) == 132 * 3


def test_occupancy_is_clamped_to_one_and_the_limit():
    assert kernels.occupancy(object(), 256, 8) == 8
    assert kernels.occupancy(object(), 256, 1) == 1
    assert kernels.occupancy(object(), 256, 8, fallback=2) == 2


def test_resident_blocks_without_the_occupancy_api_is_one_per_multiprocessor(compiled, monkeypatch):
    k = kernels.Kernel("lib/a.hip", "ra_lib_a", 256, 8)
    assert k.resident_blocks(0, 512, 100 * 1024) == 132  # a stand-in has no occupancy API
    monkeypatch.setattr(kernels, "occupancy", lambda fn, block, limit, shared=0, fallback=None: 3)
    assert k.resident_blocks(0, 512, 100 * 1024) == 132 * 3


def test_allow_shared_asks_the_driver_once_per_grant(compiled):
    k = kernels.Kernel("lib/a.hip", "ra_lib_a", 256, 8)
    fn = k.function(0)
    k.allow_shared(0, 40 * 1024)          # within the default: no opt-in, no query
    assert fn.queries == 0
    k.allow_shared(0, 53 * 1024)
    assert fn._granted == 53 * 1024
    asked = fn.queries
    for _ in range(3):
        k.allow_shared(0, 53 * 1024)      # a warm launch: the memo answers
        k.allow_shared(0, 50 * 1024)      # less than granted: never lowered
    assert fn.queries == asked and fn._granted == 53 * 1024
    k.allow_shared(0, 96 * 1024)          # more: asked again
    assert fn._granted == 96 * 1024
    k.allow_shared(1, 60 * 1024)          # per device
    assert k.function(1)._granted == 60 * 1024


def test_allow_shared_counts_the_static_shared_memory(compiled, monkeypatch):
    # 40 KB dynamic beside 20 KB static passes the 48 KB default: opted in; 20 KB beside it does not
    static = {"bytes": 20 * 1024}
    monkeypatch.setattr(_Function, "shared_size_bytes", property(lambda self: static["bytes"]), raising=False)
    k = kernels.Kernel("lib/a.hip", "ra_lib_s", 256, 8)
    fn = k.function(0)
    k.allow_shared(0, 20 * 1024)
    assert fn.queries == 0 and fn._granted == 48 * 1024
    k.allow_shared(0, 40 * 1024)
    assert fn._granted == 40 * 1024
    static["bytes"] = 0   # read once per device: a changed attribute is not asked again
    k.allow_shared(0, 44 * 1024)
    assert fn._granted == 44 * 1024


def test_prefer_carveout_sets_the_attribute_or_keeps_the_default(compiled, monkeypatch):
    k = kernels.Kernel("lib/a.hip", "ra_lib_a", 256, 8)
    k.prefer_carveout(0, 65.0)
    assert k.function(0).preferred_shared_memory_carveout == 65

    class _NoAttribute:   # a target or CuPy without the attribute: the default stays, nothing raises
        def __setattr__(self, name, value):
            raise AttributeError(name)

    monkeypatch.setattr(_compile, "get_kernel", lambda *a: _NoAttribute())
    kernels.Kernel("lib/a.hip", "ra_lib_c", 256, 8).prefer_carveout(0, 65)


def test_family_memoizes_handles_by_name(compiled):
    fam = kernels.Family("lib/a.hip", 128, 4)
    a = fam["ra_lib_a"]
    assert fam["ra_lib_a"] is a and fam["ra_lib_b"] is not a
    assert (a.source, a.name, a.block, a.limit) == ("lib/a.hip", "ra_lib_a", 128, 4)


def test_prepare_grants_shared_memory_and_builds_a_launch(compiled):
    k = kernels.Kernel("lib/a.hip", "ra_lib_a", 256, 8)
    go = k.prepare(0, (3,), (np.int64(5), L.POINTER), shared=64 * 1024)
    assert isinstance(go, L.Launch) and go.block == 256 and go.shared_mem == 64 * 1024
    assert k.function(0)._granted == 64 * 1024
    go(0x40)
    grid, block, args, shared = k.function(0).calls[0]
    assert (grid, block, shared) == ((3,), 256, 64 * 1024) and args[1] == np.uint64(0x40)


def test_calling_a_kernel_launches_now(compiled):
    k = kernels.Kernel("lib/a.hip", "ra_lib_a", 256, 8)
    k(0, (9,), (np.int32(1),), block=64)
    assert k.function(0).calls == [((9,), 64, (np.int32(1),), 0)]
