"""Kernel handles: one kernel of one source file, compiled per device, with how it is launched.

A library declares its kernels once, by source file (:class:`Family`), and asks the family for a
:class:`Kernel` by name expression. The handle compiles on first use per device (through
:mod:`rocarray._core.compile`, the one compile path), remembers the size of one full wave of
resident blocks (multiprocessors x occupancy, from the occupancy API), grants dynamic shared memory
past the default 48 KB once, and prepares launches (:class:`rocarray._core.launch.Launch`).
"""

import threading

from rocarray._core import backend
from rocarray._core import compile as _compile
from rocarray._core import launch as _launch


def occupancy(function, block, limit, dynamic_shared=0, fallback=None):
    """Resident blocks of ``block`` threads per multiprocessor for a compiled kernel, within
    1..``limit``; ``fallback`` (default: full occupancy, ``limit``) when the occupancy API is
    missing: an old CuPy or runtime, or a stand-in kernel."""
    try:
        from cupy.cuda import driver

        per_mp = int(driver.occupancyMaxActiveBlocksPerMultiprocessor(function.kernel.ptr, block, dynamic_shared))
    except Exception:
        per_mp = limit if fallback is None else fallback
    return max(1, min(per_mp, limit))


class Kernel:
    """One kernel (a name expression of one source) and the block it is launched with.

    Parameters
    ----------
    source : str
        Path under ``_kernels/``, e.g. ``'rocblas/level1.hip'``.
    name : str
        An ``extern "C"`` kernel name or a registered template name expression.
    block : int
        Threads per block of its launches (a launch may give another).
    blocks_per_multiprocessor : int
        Upper bound on the occupancy used for :meth:`wave`.
    """

    __slots__ = ("source", "name", "block", "limit", "_functions", "_waves", "_shared", "_static", "_lock")

    def __init__(self, source, name, block, blocks_per_multiprocessor):
        self.source, self.name, self.block, self.limit = source, name, int(block), int(blocks_per_multiprocessor)
        self._functions = {}  # device id -> compiled kernel
        self._waves = {}      # device id -> blocks of one full wave
        self._shared = {}     # device id -> dynamic shared memory granted
        self._static = {}     # device id -> static shared memory of the compiled kernel
        self._lock = threading.Lock()

    def __repr__(self):
        return f"Kernel({self.source!r}, {self.name!r}, block={self.block})"

    def function(self, device_id):
        """The compiled kernel on ``device_id`` (compiled on first use through :mod:`rocarray._core.compile`)."""
        fn = self._functions.get(device_id)
        if fn is None:
            with self._lock:
                fn = self._functions.get(device_id)
                if fn is None:
                    fn = self._functions[device_id] = _compile.get_kernel(self.source, self.name, device_id)
        return fn

    def wave(self, device_id):
        """Blocks of :attr:`block` threads resident at once on the whole device: the grid of a
        grid-stride kernel that fills the device once."""
        wave = self._waves.get(device_id)
        if wave is None:
            per_mp = occupancy(self.function(device_id), self.block, self.limit)
            wave = self._waves[device_id] = max(1, backend.device_info(device_id).multiprocessors * per_mp)
        return wave

    def resident_blocks(self, device_id, block, shared):
        """Blocks of ``block`` threads and ``shared`` bytes resident at once on the whole device
        (occupancy not capped by :attr:`limit`; at least one per multiprocessor, and one per
        multiprocessor when the occupancy API is missing)."""
        per_mp = occupancy(self.function(device_id), block, 1 << 30, shared, fallback=1)
        return per_mp * backend.device_info(device_id).multiprocessors

    def allow_shared(self, device_id, nbytes):
        """Let the kernel take ``nbytes`` of dynamic shared memory on ``device_id`` (CUDA: opt in
        once the dynamic bytes and the kernel's static shared memory together pass the 48 KB
        default; ROCm has no opt-in, the limit is the hardware's). Never lowers a grant; a driver
        that refuses leaves the default (the launch then reports the error)."""
        if self._shared.get(device_id, 0) >= nbytes:
            return
        fn = self.function(device_id)
        static = self._static_shared(device_id, fn)
        if nbytes + static <= backend.DEFAULT_SHARED:
            return
        try:
            # with static shared memory the default grant is 48 KB less it: always set it then
            if static or fn.max_dynamic_shared_size_bytes < nbytes:
                fn.max_dynamic_shared_size_bytes = nbytes
            self._shared[device_id] = max(nbytes, fn.max_dynamic_shared_size_bytes)
        except Exception:
            pass

    def _static_shared(self, device_id, fn):
        """The kernel's static shared bytes on ``device_id`` (0 where the attribute is missing)."""
        static = self._static.get(device_id)
        if static is None:
            try:
                static = int(fn.shared_size_bytes)
            except Exception:
                static = 0
            self._static[device_id] = static
        return static

    def prefer_carveout(self, device_id, percent):
        """Ask the driver to give the kernel's multiprocessors ``percent`` of their most shared
        memory (the rest is L1): a hint the driver rounds to a size it supports; targets or CuPy
        versions without the attribute keep their default."""
        try:
            self.function(device_id).preferred_shared_memory_carveout = int(percent)
        except Exception:
            pass

    def prepare(self, device_id, grid, args, *, block=None, shared=0, dependent=False):
        """A :class:`rocarray._core.launch.Launch` of this kernel on ``device_id`` (call it with
        that device current), granting ``shared`` bytes of dynamic shared memory first."""
        if shared:
            self.allow_shared(device_id, shared)
        return _launch.Launch(self.function(device_id), grid, self.block if block is None else block, args,
                              shared_mem=shared, dependent=dependent, name=self.name)

    def cooperative_available(self, device_id):
        """Whether this kernel can be launched cooperatively on ``device_id``
        (:func:`rocarray._core.launch.cooperative_available`)."""
        return _launch.cooperative_available(self.function(device_id))

    def __call__(self, device_id, grid, args, *, block=None, shared=0, cooperative=False):
        """Launch now on the current stream (``device_id`` current), the arguments converted on
        this call (:func:`rocarray._core.launch.launch`): for launches a plan does not repeat.
        ``cooperative=True``: a cooperative launch (every block resident at once; check
        :meth:`cooperative_available` and :meth:`resident_blocks` first)."""
        if shared:
            self.allow_shared(device_id, shared)
        _launch.launch(self.function(device_id), grid, self.block if block is None else block, args, shared,
                       name=self.name, cooperative=cooperative)


class Family:
    """The kernels of one source file launched with one block size: ``family[name]`` is the
    memoized :class:`Kernel` of a name expression.

    Parameters
    ----------
    source : str
        Path under ``_kernels/``.
    block : int
        Threads per block.
    blocks_per_multiprocessor : int
        Occupancy bound of :meth:`Kernel.wave`.
    """

    def __init__(self, source, block, blocks_per_multiprocessor):
        self.source, self.block, self.limit = source, int(block), int(blocks_per_multiprocessor)
        self._kernels = {}
        self._lock = threading.Lock()

    def __getitem__(self, name):
        kernel = self._kernels.get(name)
        if kernel is None:
            with self._lock:
                kernel = self._kernels.get(name)
                if kernel is None:
                    kernel = self._kernels[name] = Kernel(self.source, name, self.block, self.limit)
        return kernel
