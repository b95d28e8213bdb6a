"""A recording stand-in device for plan tests on the CPU.

The ``fake_device`` fixture makes every kernel a recorder (nothing is compiled or run), gives
device facts from a fixed profile (an sm_90 device of 132 multiprocessors, warp 32), serves
device memory (and ``memsetAsync``, ``cupy.asarray`` of host data, ``cupy.asnumpy``) from host
memory (contents are whatever the host wrote: kernels never run), puts
every launch on one stream and starts and ends with an empty plan cache and no workspaces.
Kernel handles made during the test are the test's own, so no stand-in outlives it. Only
metadata operations of ``cupy.ndarray`` work (no CuPy kernel: no ``astype``, ``!=``, ``fill``).

Usage::

    from launchfake import fake_device  # noqa: F401 (the fixture)

    def test_warm_call(fake_device):
        x = fake_device.array((1000,), "float32")
        ra.prim.reduce(x, op="add")
        assert fake_device.launches[-1].name.startswith("ra_prim_reduce_rows")
"""

import ctypes
from dataclasses import dataclass

import numpy as np
import pytest

from rocarray._core import backend, kernels, plans, workspace
from rocarray._core import compile as _compile


@dataclass
class Launch:
    """One recorded launch: kernel name, grid and block (3-tuples), shared bytes, arguments (NumPy
    scalars for values and device addresses, size-one arrays for structures), whether it was a
    cooperative launch."""

    name: str
    grid: tuple
    block: tuple
    shared: int
    args: tuple
    cooperative: bool = False


def _dims(v):
    t = tuple(int(x) for x in (v if isinstance(v, (tuple, list)) else (v,)))
    return t + (1,) * (3 - len(t))


class _Function:
    """A compiled-kernel stand-in: records its launches (CuPy's call signature)."""

    def __init__(self, device, name):
        self.device, self.name = device, name
        self.max_dynamic_shared_size_bytes = 48 * 1024

    def __call__(self, grid, block, args, shared_mem=0, cooperative=False):
        self.device.launches.append(Launch(self.name, _dims(grid), _dims(block), int(shared_mem), tuple(args),
                                           bool(cooperative)))


class _Stream:
    ptr = 0

    def is_capturing(self):
        return False


class FakeDevice:
    """What the fixture returns: the launches so far, and arrays over host memory."""

    def __init__(self):
        self.launches = []
        self._keep = []

    def alloc(self, nbytes):
        import cupy

        raw = np.zeros(int(nbytes) + 512, np.uint8)
        self._keep.append(raw)
        start = raw.ctypes.data + (-raw.ctypes.data) % 256
        return cupy.cuda.MemoryPointer(cupy.cuda.UnownedMemory(start, max(int(nbytes), 1), raw, device_id=0), 0)

    def array(self, shape, dtype, values=None):
        """A C-contiguous ``cupy.ndarray`` over host memory (zeros, or ``values``)."""
        import cupy

        dtype = np.dtype(dtype)
        a = cupy.ndarray(shape, dtype, memptr=self.alloc(max(int(np.prod(shape)) * dtype.itemsize, 1)))
        if values is not None:
            self.host(a)[...] = np.asarray(values, dtype).reshape(a.shape)
        return a

    def host(self, x):
        """The host memory behind a fake device array, as a NumPy view with its strides."""
        mem = x.data.mem
        base = (ctypes.c_char * max(mem.size, 1)).from_address(mem.ptr)
        return np.ndarray(x.shape, x.dtype, buffer=base, offset=x.data.ptr - mem.ptr, strides=x.strides)

    def names(self):
        return [launch.name for launch in self.launches]


PROFILE = backend.DeviceInfo(id=0, name="fake sm_90", is_hip=False, arch="sm_90", warp_size=32, multiprocessors=132,
                             shared_mem_per_block=49152, l2_bytes=50 << 20, total_memory=80 << 30,
                             compute_capability="9.0")


@pytest.fixture
def fake_device(monkeypatch):
    cupy = pytest.importorskip("cupy")
    device = FakeDevice()
    handles = device.kernel_handles = {}   # (source, name) -> the Kernel every family hands out

    def family_kernel(self, name):
        key = (self.source, name)
        if key not in handles:
            handles[key] = kernels.Kernel(self.source, name, self.block, self.limit)
        return handles[key]

    def get_kernel(source, name, device_id=None):
        if "<" in name and name not in _compile.registered(source):
            raise LookupError(f"{name} is not registered for {source}")
        return _Function(device, name)

    def zeros(shape, dtype=float, order="C"):
        a = cupy.empty(shape, dtype=dtype, order=order)
        device.host(a)[...] = 0
        return a

    real_asarray = cupy.asarray

    def asarray(a, dtype=None, order=None, **kwargs):
        if isinstance(a, cupy.ndarray):
            return real_asarray(a, dtype=dtype, order=order, **kwargs)
        h = np.asarray(a, dtype=dtype)
        return device.array(h.shape, h.dtype, h)

    monkeypatch.setattr(kernels.Family, "__getitem__", family_kernel)
    monkeypatch.setattr(_compile, "get_kernel", get_kernel)
    monkeypatch.setattr(backend, "device_info", lambda device_id=None: PROFILE)
    monkeypatch.setattr(cupy.cuda, "get_current_stream", lambda *args: _Stream())
    monkeypatch.setattr(cupy.cuda.runtime, "getDevice", lambda: 0)
    monkeypatch.setattr(cupy.cuda.runtime, "memsetAsync", lambda ptr, value, nbytes, stream: ctypes.memset(ptr, value, nbytes))
    monkeypatch.setattr(cupy, "zeros", zeros)
    monkeypatch.setattr(cupy, "asarray", asarray)
    monkeypatch.setattr(cupy, "asnumpy", lambda a, *args, **kwargs: device.host(a).copy())
    allocator = cupy.cuda.get_allocator()
    cupy.cuda.set_allocator(device.alloc)
    plans.cache.clear()
    workspace.free_workspaces()
    try:
        yield device
    finally:
        plans.cache.clear()
        workspace.free_workspaces()
        cupy.cuda.set_allocator(allocator)


#: sm_90's opt-in dynamic shared memory per block (bytes): what the warpgroup kernels size their rings by.
SM90_SHARED = 232448


def with_fresh_search(device, monkeypatch, tmp_path):
    """``device`` (the fixture's) with sm_90's opt-in shared memory, an empty cache folder (no
    tuning DB, no find-db entries), no tuning or find mode from the environment, and an empty
    ``device.maps`` for stand-in tensor maps to record into; returns ``device``."""
    monkeypatch.setenv("ROCARRAY_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ROCARRAY_TUNE", raising=False)
    monkeypatch.delenv("ROCARRAY_FIND_MODE", raising=False)
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: SM90_SHARED)
    device.maps = []
    return device
