"""Driver entry points (:mod:`rocarray._core.driver`), on the CPU: the structures handed to
``cuLaunchKernelEx``, the fall-back from a dependent launch to the plain one, and the opt-in and
occupancy question of a cluster past the portable size."""

import ctypes
import types

import pytest

from rocarray._core import backend
from rocarray._core import driver as D


def test_structures_have_the_driver_layout():
    # cuda.h (12.0+): CUlaunchAttribute is an int id padded to 8 bytes and a 64-byte value union;
    # CUlaunchConfig is seven unsigned ints, the stream, the attribute pointer and their count
    assert ctypes.sizeof(D._AttributeValue) == 64
    assert ctypes.sizeof(D._Attribute) == 72 and D._Attribute.value.offset == 8
    assert ctypes.sizeof(D._Config) == 56
    assert (D._Config.shared_bytes.offset, D._Config.stream.offset, D._Config.attrs.offset,
            D._Config.num_attrs.offset) == (24, 32, 40, 48)
    assert D.PROGRAMMATIC_STREAM_SERIALIZATION == 6


class _Entry:
    """A stand-in for ``cuLaunchKernelEx`` recording what the driver would read."""

    def __init__(self, results):
        self.results, self.calls = list(results), []

    def __call__(self, config, function, params, extra):
        c = config._obj
        attrs = [(c.attrs[i].id, c.attrs[i].value.allowed) for i in range(c.num_attrs)]
        self.calls.append(((c.grid_x, c.grid_y, c.grid_z), (c.block_x, c.block_y, c.block_z), c.shared_bytes,
                           c.stream, attrs, function, params, extra))
        return self.results.pop(0)


@pytest.fixture
def entry(monkeypatch):
    def install(*results):
        fake = _Entry(results)
        monkeypatch.setattr(D, "_launch_ex", [fake])
        return fake
    return install


def test_dependent_launch_passes_the_attribute_and_the_geometry(entry):
    fake = entry(0, 0)
    plain = []
    go = D.DependentLaunch(lambda *a: plain.append(a))
    go(0xF00, 132, 1, 1, 256, 1, 1, 132096, 0x5150, 0xABC0, 0)
    go(0xF00, 7, 2, 3, 64, 2, 1, 0, 0, 0xABC0, 0)
    assert fake.calls == [((132, 1, 1), (256, 1, 1), 132096, 0x5150, [(6, 1)], 0xF00, 0xABC0, None),
                          ((7, 2, 3), (64, 2, 1), 0, None, [(6, 1)], 0xF00, 0xABC0, None)]
    assert plain == []


def test_a_refused_dependent_launch_falls_back_to_the_plain_one(entry):
    fake = entry(801)   # CUDA_ERROR_NOT_SUPPORTED
    plain = []
    go = D.DependentLaunch(lambda *a: plain.append(a))
    args = (0xF00, 3, 1, 1, 256, 1, 1, 0, 0x5150, 0xABC0, 0)
    go(*args)
    go(*args)   # from then on the plain launch alone
    assert len(fake.calls) == 1 and plain == [args, args]


def test_without_the_driver_entry_launches_are_plain(monkeypatch):
    monkeypatch.setattr(D, "_launch_ex", [None])
    assert not D.dependent_launch_available()
    plain = []
    D.DependentLaunch(lambda *a: plain.append(a))(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
    assert plain == [(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)]


def test_hip_has_no_dependent_launch(monkeypatch):
    hip = types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(is_hip=True)))
    monkeypatch.setattr(backend, "cupy", lambda: hip)
    monkeypatch.setattr(D, "_launch_ex", [])
    assert not D.dependent_launch_available()


def test_a_missing_driver_library_or_entry_raises(monkeypatch):
    monkeypatch.setattr(D, "_entries", {})

    def no_library(name):
        raise OSError("libcuda.so.1: cannot open shared object file")

    monkeypatch.setattr(D.ctypes, "CDLL", no_library)
    with pytest.raises(OSError):
        D.cuda_entry("cuTensorMapEncodeTiled", ())


def test_an_entry_is_looked_up_once(monkeypatch):
    monkeypatch.setattr(D, "_entries", {})
    opened = []

    class Library:
        def __getattr__(self, name):
            fn = ctypes.CFUNCTYPE(ctypes.c_int)(lambda: 0)
            return fn

    monkeypatch.setattr(D.ctypes, "CDLL", lambda name: opened.append(name) or Library())
    first = D.cuda_entry("cuSomething", (ctypes.c_int,))
    assert D.cuda_entry("cuSomething", (ctypes.c_int,)) is first and opened == ["libcuda.so.1"]
    assert first.restype is ctypes.c_int


@pytest.mark.parametrize("hip", [False, True])
def test_cooperative_launch_entry_per_vendor(monkeypatch, hip):
    runtime = types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(is_hip=hip)))
    monkeypatch.setattr(backend, "cupy", lambda: runtime)
    monkeypatch.setattr(D, "_entries", {})
    monkeypatch.setattr(D, "_cooperative", [])
    opened = []

    class Library:
        def __getattr__(self, name):
            opened.append(name)
            return ctypes.CFUNCTYPE(ctypes.c_int)(lambda: 0)

    monkeypatch.setattr(D.ctypes, "CDLL", lambda name: opened.append(name) or Library())
    entry = D.cooperative_launch()
    assert entry is not None and D.cooperative_launch() is entry
    assert opened == (["libamdhip64.so", "hipModuleLaunchCooperativeKernel"] if hip
                      else ["libcuda.so.1", "cuLaunchCooperativeKernel"])
    assert entry.restype is ctypes.c_int and len(entry.argtypes) == 10


def test_without_a_driver_library_there_is_no_cooperative_launch(monkeypatch):
    monkeypatch.setattr(D, "_entries", {})
    monkeypatch.setattr(D, "_cooperative", [])

    def no_library(name):
        raise OSError("cannot open shared object file")

    monkeypatch.setattr(D.ctypes, "CDLL", no_library)
    assert D.cooperative_launch() is None


def test_wide_clusters_fit_opts_in_then_asks_the_occupancy(monkeypatch):
    """The kernel is allowed the non-portable cluster size first (attribute 14, value 1), then
    ``cuOccupancyMaxActiveClusters`` is asked for one cluster of the launch's shape: a count of at
    least one fits; none, a refused attribute or a failed call does not; HIP never does."""
    calls = []
    state = {"attr": 0, "count": 1, "status": 0}

    def set_attribute(handle, attribute, value):
        calls.append(("attr", handle, attribute, value))
        return state["attr"]

    def active(count, handle, config):
        c = config._obj
        calls.append(("active", handle, (c.grid_x, c.grid_y, c.grid_z), (c.block_x, c.block_y, c.block_z),
                      c.shared_bytes, c.num_attrs))
        count._obj.value = state["count"]
        return state["status"]

    entries = {"cuFuncSetAttribute": set_attribute, "cuOccupancyMaxActiveClusters": active}
    monkeypatch.setattr(D, "cuda_entry", lambda name, argtypes: entries[name])
    cuda = types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(is_hip=False)))
    monkeypatch.setattr(backend, "cupy", lambda: cuda)
    assert D.wide_clusters_fit(0xF00, 16, 512)
    assert calls == [("attr", 0xF00, 14, 1), ("active", 0xF00, (16, 1, 1), (512, 1, 1), 0, 0)]
    state["count"] = 0
    assert not D.wide_clusters_fit(0xF00, 16, 512)
    state["count"], state["status"] = 1, 1
    assert not D.wide_clusters_fit(0xF00, 16, 512)
    state["attr"], state["status"] = 1, 0
    assert not D.wide_clusters_fit(0xF00, 16, 512)
    cuda.cuda.runtime.is_hip = True
    assert not D.wide_clusters_fit(0xF00, 16, 512)
