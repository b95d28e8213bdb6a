"""The GPU driver entry points rocarray calls that CuPy does not wrap, through ``ctypes``.

* :func:`cuda_entry`: a CUDA driver API function looked up once by name on the driver library
  CuPy loaded (``libcuda.so.1``): ``cuTensorMapEncodeTiled`` (rocBLAS's tensor maps) and
  ``cuLaunchKernelEx``.
* :func:`cooperative_launch`: the driver's cooperative launch (``cuLaunchCooperativeKernel`` /
  ``hipModuleLaunchCooperativeKernel``), which starts a grid only if all its blocks can be
  resident at once (a kernel may then wait on the others at a grid-wide barrier).
* :func:`lacks_context` / :func:`bind_current_device`: a Python thread that never selected a
  device (CuPy's ``Device(0)`` scope skips ``cudaSetDevice`` when device 0 is already the current
  one) has no current context until a runtime call binds one, and the driver's launch entry points
  refuse it (``CUDA_ERROR_INVALID_CONTEXT``); the launch layer then binds the current device's
  primary context and queues the launch again.
* :func:`wide_clusters_fit`: a kernel built for one thread-block cluster past the portable 8
  blocks (``__cluster_dims__(16, 1, 1)``, NVIDIA compute capability 9.0+) opts in to the
  non-portable size (``cuFuncSetAttribute``) and the occupancy API (``cuOccupancyMaxActiveClusters``)
  says whether such a cluster fits the device at all.
* :class:`DependentLaunch`: programmatic dependent launches (NVIDIA, compute capability 9.0+). A
  kernel queued with the driver's programmatic stream serialization attribute (``cuLaunchKernelEx``,
  CUDA driver API 12.0+) is placed as soon as every block of the previous kernel in the stream has
  signalled ``griddepcontrol.launch_dependents`` or exited, instead of after the previous grid has
  drained. Such a kernel must run ``griddepcontrol.wait`` (``ra_grid_dependency_wait`` in
  ``ra_async.cuh``) before it touches global memory: the wait returns once the previous grid has
  completed and its writes are visible, so results are those of a plain launch (launched plainly,
  the wait returns at once). HIP has no such launch: there, and where the driver lacks the entry
  point, :func:`dependent_launch_available` is False and launches are plain.
"""

import ctypes
import threading

from rocarray._core import backend

_lock = threading.Lock()
_entries = {}


def cuda_entry(name, argtypes):
    """A CUDA driver API function (``int`` result: the ``CUresult``), looked up once per name.

    Raises
    ------
    OSError, AttributeError
        No CUDA driver library, or a driver without ``name``.
    """
    fn = _entries.get(name)
    if fn is None:
        with _lock:
            fn = _entries.get(name)
            if fn is None:
                fn = getattr(ctypes.CDLL("libcuda.so.1"), name)
                fn.restype = ctypes.c_int
                fn.argtypes = list(argtypes)
                _entries[name] = fn
    return fn


#: ``CUDA_ERROR_INVALID_CONTEXT`` (cuda.h, ``CUresult``): the calling thread has no current context.
INVALID_CONTEXT = 201


def lacks_context(error):
    """Whether ``error`` (an exception from CuPy's driver call, or a driver status code) says the
    calling thread has no current context."""
    status = error if isinstance(error, int) else getattr(error, "status", None)
    return status == INVALID_CONTEXT and not backend.cupy().cuda.runtime.is_hip


def bind_current_device():
    """Make the current device's primary context current in the calling thread (the runtime's
    ``cudaSetDevice`` and a ``cudaFree(0)``, the runtime calls that create and bind it)."""
    runtime = backend.cupy().cuda.runtime
    runtime.setDevice(runtime.getDevice())
    runtime.free(0)


def call_with_context(fn, *args):
    """``fn(*args)`` (a driver call that raises on failure); where it fails for want of a
    context in the calling thread, the current device's context is bound and it is called again."""
    try:
        return fn(*args)
    except Exception as error:
        if not lacks_context(error):
            raise
        bind_current_device()
        return fn(*args)


def launch_kernel():
    """The driver's kernel launch as CuPy exposes it (``cupy.cuda.driver.launchKernel``:
    ``cuLaunchKernel`` / ``hipModuleLaunchKernel``), or None without it."""
    try:
        return backend.cupy().cuda.driver.launchKernel
    except Exception:  # pragma: no cover (every CuPy build has it)
        return None


# --------------------------------------------------------------------------------------------
# cooperative launches
# --------------------------------------------------------------------------------------------

_cooperative = []  # [the entry or None], filled once

#: Argument types shared by ``cuLaunchCooperativeKernel`` and ``hipModuleLaunchCooperativeKernel``:
#: function, grid x/y/z, block x/y/z, dynamic shared bytes, stream, kernel parameters.
_COOPERATIVE_ARGS = (ctypes.c_void_p,) + (ctypes.c_uint,) * 7 + (ctypes.c_void_p, ctypes.c_void_p)


def _hip_library():
    """The HIP runtime library (the development link name, else the versioned ones)."""
    for name in ("libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise OSError("libamdhip64.so: cannot open shared object file")


def cooperative_launch():
    """The driver's cooperative launch, ``entry(function, gx, gy, gz, bx, by, bz, shared, stream,
    params)`` returning the driver's status code (0: queued), or None where this process has none
    (no CuPy, no driver library, a driver without the entry point)."""
    if not _cooperative:
        fn = None
        try:
            if backend.cupy().cuda.runtime.is_hip:
                fn = getattr(_hip_library(), "hipModuleLaunchCooperativeKernel")
                fn.restype = ctypes.c_int
                fn.argtypes = list(_COOPERATIVE_ARGS)
            else:
                fn = cuda_entry("cuLaunchCooperativeKernel", _COOPERATIVE_ARGS)
        except Exception:
            fn = None
        _cooperative[:] = [fn]
    return _cooperative[0]


# --------------------------------------------------------------------------------------------
# programmatic dependent launches
# --------------------------------------------------------------------------------------------

#: ``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`` (cuda.h, ``CUlaunchAttributeID``).
PROGRAMMATIC_STREAM_SERIALIZATION = 6


class _AttributeValue(ctypes.Union):
    """``CUlaunchAttributeValue``: a 64-byte union; this attribute reads its first int."""

    _fields_ = [("pad", ctypes.c_char * 64), ("allowed", ctypes.c_int)]


class _Attribute(ctypes.Structure):
    """``CUlaunchAttribute``: the id, padded to 8 bytes, then the value."""

    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", _AttributeValue)]


class _Config(ctypes.Structure):
    """``CUlaunchConfig``."""

    _fields_ = [("grid_x", ctypes.c_uint), ("grid_y", ctypes.c_uint), ("grid_z", ctypes.c_uint),
                ("block_x", ctypes.c_uint), ("block_y", ctypes.c_uint), ("block_z", ctypes.c_uint),
                ("shared_bytes", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(_Attribute)), ("num_attrs", ctypes.c_uint)]


_launch_ex = []  # [cuLaunchKernelEx or None], filled once


def _launch_ex_entry():
    """The driver's ``cuLaunchKernelEx`` (ctypes), or None: a HIP build, no CuPy, an old driver."""
    if not _launch_ex:
        fn = None
        try:
            if not backend.cupy().cuda.runtime.is_hip:
                fn = cuda_entry("cuLaunchKernelEx", (ctypes.POINTER(_Config), ctypes.c_void_p,
                                                     ctypes.c_void_p, ctypes.c_void_p))
        except Exception:
            fn = None
        _launch_ex[:] = [fn]
    return _launch_ex[0]


def dependent_launch_available():
    """Whether this process can make programmatic dependent launches."""
    return _launch_ex_entry() is not None


class DependentLaunch:
    """A launch entry with the signature of ``cupy.cuda.driver.launchKernel`` that queues the kernel
    as a programmatic dependent of the previous work in its stream.

    Parameters
    ----------
    plain : callable
        The plain launch (``launchKernel``'s signature): used where the driver refuses the
        dependent launch, from then on, so that a real launch error is raised by CuPy's call.

    Notes
    -----
    Each instance owns its configuration structures; callers serialize calls on one instance.
    """

    def __init__(self, plain):
        self._plain = plain
        self._entry = _launch_ex_entry()
        self._attr = (_Attribute * 1)()
        self._attr[0].id = PROGRAMMATIC_STREAM_SERIALIZATION
        self._attr[0].value.allowed = 1
        self._config = _Config()
        self._config.attrs = self._attr
        self._config.num_attrs = 1

    def __call__(self, function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        if self._entry is not None:
            c = self._config
            c.grid_x, c.grid_y, c.grid_z, c.block_x, c.block_y, c.block_z = gx, gy, gz, bx, by, bz
            c.shared_bytes, c.stream = shared, stream
            status = self._entry(ctypes.byref(c), function, params, extra or None)
            if status and lacks_context(status):
                bind_current_device()
                status = self._entry(ctypes.byref(c), function, params, extra or None)
            if status == 0:
                return
            self._entry = None
        self._plain(function, gx, gy, gz, bx, by, bz, shared, stream, params, extra)


# --------------------------------------------------------------------------------------------
# thread-block clusters past the portable size
# --------------------------------------------------------------------------------------------

#: ``CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED`` (cuda.h, ``CUfunction_attribute``).
NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14


def _checked(call):
    """``call()`` (a driver status code); where the calling thread lacks a context, bind the
    current device's and call again."""
    status = call()
    if status and lacks_context(status):
        bind_current_device()
        status = call()
    return status


def wide_clusters_fit(handle, blocks, block, shared=0):
    """Whether the kernel ``handle`` (a ``CUfunction`` whose cluster size, ``blocks`` > 8, is
    compiled in) can run one cluster of ``blocks`` blocks of ``block`` threads and ``shared``
    dynamic bytes on the current device: it is allowed the non-portable size, and the occupancy
    API finds room for at least one such cluster. False on HIP, with an old driver, or where
    either call fails."""
    try:
        if backend.cupy().cuda.runtime.is_hip:
            return False
        set_attribute = cuda_entry("cuFuncSetAttribute", (ctypes.c_void_p, ctypes.c_int, ctypes.c_int))
        if _checked(lambda: set_attribute(handle, NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)):
            return False
        active = cuda_entry("cuOccupancyMaxActiveClusters", (ctypes.POINTER(ctypes.c_int), ctypes.c_void_p,
                                                              ctypes.POINTER(_Config)))
        config = _Config()
        config.grid_x, config.grid_y, config.grid_z = int(blocks), 1, 1
        config.block_x, config.block_y, config.block_z = int(block), 1, 1
        config.shared_bytes, config.stream, config.num_attrs = int(shared), None, 0
        count = ctypes.c_int(0)
        if _checked(lambda: active(ctypes.byref(count), handle, ctypes.byref(config))):
            return False
        return count.value >= 1
    except Exception:
        return False
