"""Launch facts every library needs: the cached ``cupy`` module and kernel handles with the size
of one full wave of resident blocks on their device (from the occupancy API)."""

import ctypes
import threading

from rocarray._core import backend
from rocarray._core import compile as _compile

_cupy_module = None


def cupy():
    """``cupy``, cached after the first call (``NoDeviceError`` without it): every op asks for it."""
    global _cupy_module
    if _cupy_module is None:
        _cupy_module = backend.require_cupy()
    return _cupy_module


_driver_lock = threading.Lock()
_driver_entries = {}


def cuda_driver_entry(name, argtypes):
    """A CUDA driver API function CuPy does not wrap, through ``ctypes`` on the driver library CuPy
    loaded (``int`` result: the ``CUresult``), looked up once per name.

    Raises
    ------
    OSError, AttributeError
        No CUDA driver library, or a driver without ``name``.
    """
    fn = _driver_entries.get(name)
    if fn is None:
        with _driver_lock:
            fn = _driver_entries.get(name)
            if fn is None:
                fn = getattr(ctypes.CDLL("libcuda.so.1"), name)
                fn.restype = ctypes.c_int
                fn.argtypes = list(argtypes)
                _driver_entries[name] = fn
    return fn


#: The handle value of the per-thread default stream (``cudaStreamPerThread``/``hipStreamPerThread``):
#: CuPy reports it for every host thread, though each thread's stream is a different one.
PER_THREAD_STREAM = 2


def stream_key():
    """A key naming the current stream for per-stream buffers: its handle, plus the host thread
    for the per-thread default stream (one handle value, one stream per thread)."""
    ptr = cupy().cuda.get_current_stream().ptr
    if ptr == PER_THREAD_STREAM:
        return (ptr, threading.get_ident())
    return ptr


_partials = {}


def partials_buffer(device_id, nbytes):
    """A per (device, stream) scratch buffer (``uint8``, at least ``nbytes``, at least 1 MiB) for
    the partial sums of one split-k product, reused by the next call on the same stream: the
    stream's order keeps a later call's writes after this call's reads (and a buffer replaced by a
    larger one goes back to CuPy's pool, which hands it out again on this stream only). One call
    must not hold it for two purposes at once."""
    key = (device_id, stream_key())
    buffer = _partials.get(key)
    if buffer is None or buffer.size < nbytes:
        buffer = _partials[key] = cupy().empty(max(int(nbytes), 1 << 20), dtype="uint8")
    return buffer


#: Dynamic shared memory every kernel may take without opting in (CUDA's default cap).
DEFAULT_SHARED = 48 * 1024

_shared_limits = {}


def shared_memory_limit(device_id):
    """Bytes of dynamic shared memory one block may use on ``device_id``: CUDA's opt-in maximum
    where the runtime reports it, else the per-block figure (ROCm's LDS per workgroup). Memoized."""
    limit = _shared_limits.get(device_id)
    if limit is None:
        info = backend.device_info(device_id)
        limit = int(info.shared_mem_per_block)
        if not info.is_hip:
            try:
                attrs = cupy().cuda.Device(device_id).attributes
                limit = max(limit, int(attrs.get("MaxSharedMemoryPerBlockOptin", 0)))
            except Exception:  # an old CuPy without the attribute table
                pass
        _shared_limits[device_id] = limit
    return limit


#: The dynamic shared memory each kernel handle has been let take (the attribute is a driver
#: call both ways: a warm launch asks this table instead).
_shared_granted = {}


def allow_shared(kernel, nbytes):
    """Let ``kernel`` take ``nbytes`` of dynamic shared memory (CUDA: opt in past the 48 KB
    default; ROCm has no opt-in, the limit is the hardware's). Never lowers a grant."""
    if nbytes <= DEFAULT_SHARED or _shared_granted.get(id(kernel), (None, 0))[1] >= nbytes:
        return
    try:
        if kernel.max_dynamic_shared_size_bytes < nbytes:
            kernel.max_dynamic_shared_size_bytes = nbytes
        # the handle is kept with its grant, so its id cannot be reused by another object
        _shared_granted[id(kernel)] = (kernel, max(nbytes, kernel.max_dynamic_shared_size_bytes))
    except Exception:
        pass


def per_call_seconds(cupy, fn, args, calls):
    """Device seconds per call of ``fn(*args)`` over ``calls`` calls back to back, timed with
    events. One untimed call goes first, so the device is busy while the timed calls are queued:
    the start event fires behind queued work, and the sample measures the calls, not one call's
    host latency on an idle device."""
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    fn(*args)
    start.record()
    for _ in range(calls):
        fn(*args)
    stop.record()
    stop.synchronize()
    return cupy.cuda.get_elapsed_time(start, stop) * 1e-3 / calls


def prefer_carveout(kernel, percent):
    """Ask the driver to give ``kernel``'s multiprocessors ``percent`` of their most shared memory
    (the rest is L1), for kernels whose speed depends on that split. A hint the driver rounds to a
    size it supports; targets or CuPy versions without the attribute keep their default."""
    try:
        kernel.preferred_shared_memory_carveout = int(percent)
    except Exception:
        pass


def bulk_copy_engine(is_hip, cc_major):
    """Whether a device has the bulk copy engine and mbarriers that kernels use under
    ``RA_BULK_COPY`` (``ra_async.cuh``): NVIDIA from compute capability 9.0."""
    return not is_hip and cc_major >= 9


_bulk_copy_by_device = {}


def has_bulk_copy(device_id):
    """:func:`bulk_copy_engine` for a device (memoized)."""
    use = _bulk_copy_by_device.get(device_id)
    if use is None:
        info = backend.device_info(device_id)
        major, _ = backend.compute_capability_version(info)
        use = _bulk_copy_by_device[device_id] = bulk_copy_engine(bool(info.is_hip), major)
    return use


def grid_dependency(is_hip, cc_major):
    """Whether a kernel that starts with ``ra_dependent_grid_enter`` (``ra_async.cuh``) may be queued
    as a programmatic dependent on a device (``PreparedLaunch(..., dependent=True)``): where it is
    compiled with ``griddepcontrol``, the devices of :func:`bulk_copy_engine`."""
    return bulk_copy_engine(is_hip, cc_major)


def dependent_launches(device_id):
    """:func:`grid_dependency` for a device (memoized)."""
    return has_bulk_copy(device_id)


def occupancy(kernel, block, limit, dynamic_shared=0):
    """Resident blocks of ``block`` threads per multiprocessor for ``kernel``, within 1..``limit``.

    ``kernel`` is a kernel handle from :func:`rocarray._core.compile.get_kernel` on the current
    device, launched with ``dynamic_shared`` bytes of dynamic shared memory. Without the occupancy
    API (an old CuPy or runtime) full occupancy (``limit``) is assumed.
    """
    try:
        from cupy.cuda import driver

        per_mp = int(driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, block, dynamic_shared))
    except Exception:
        per_mp = limit
    return max(1, min(per_mp, limit))


class KernelTable:
    """The kernels of one source file, memoized per (name, device) as ``(kernel, wave)``.

    ``wave`` is the number of blocks of ``block`` threads resident at once on the whole device
    (multiprocessors x occupancy, at most ``max_blocks_per_multiprocessor`` each): the grid of a
    grid-stride kernel that fills the device once.

    Parameters
    ----------
    source : str
        Path under ``_kernels/``, e.g. ``'rocblas/level1.hip'``.
    block : int
        Threads per block the library launches with.
    max_blocks_per_multiprocessor : int
        Upper bound on the occupancy used for ``wave``.
    """

    def __init__(self, source, block, max_blocks_per_multiprocessor):
        self.source = source
        self.block = block
        self.limit = max_blocks_per_multiprocessor
        self.entries = {}
        self._lock = threading.Lock()

    def get(self, name, device_id):
        """``(kernel, wave)`` for a registered name; call with ``device_id`` current."""
        key = (name, device_id)
        entry = self.entries.get(key)
        if entry is None:
            with self._lock:
                entry = self.entries.get(key)
                if entry is None:
                    kernel = _compile.get_kernel(self.source, name, device_id)
                    per_mp = occupancy(kernel, self.block, self.limit)
                    wave = backend.device_info(device_id).multiprocessors * per_mp
                    entry = self.entries[key] = (kernel, max(1, wave))
        return entry
