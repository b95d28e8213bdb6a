"""Programmatic dependent launches (NVIDIA, compute capability 9.0+): a kernel queued behind
another in the same stream is scheduled while its predecessor finishes.

A launch with the driver's programmatic stream serialization attribute (``cuLaunchKernelEx``,
CUDA driver API 12.0+) lets the GPU place the kernel's blocks as soon as every block of the
previous kernel in the stream has signalled ``griddepcontrol.launch_dependents`` or exited,
instead of after the previous grid has drained and the next launch has been processed. Such a
kernel must run ``griddepcontrol.wait`` (``ra_grid_dependency_wait`` in ``ra_async.cuh``) before it
reads or writes global memory: the wait returns once the previous grid has completed and its
writes are visible, so the results are those of a plain launch. (Launched plainly, the wait
returns at once.) Measured on the H200: back-to-back launches of a 132-block kernel start 1.45 µs
apart plainly, 0.4-0.7 µs apart as dependents (docs/performance.md, 2026-12-04).

CuPy does not wrap ``cuLaunchKernelEx``, so it is called through ``ctypes`` on the driver library
(as the tensor-map encoder in ``rocarray/rocblas/_tma.py`` is). HIP has no such launch: there,
and where the driver lacks the entry point, :func:`available` is False and callers launch plainly.
"""

import ctypes

from rocarray._core import launch

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


_entry = []  # [cuLaunchKernelEx or None], filled once


def _driver_entry():
    """The driver's ``cuLaunchKernelEx`` (ctypes), or None: a HIP build, no CuPy, an old driver."""
    if not _entry:
        fn = None
        try:
            if not launch.cupy().cuda.runtime.is_hip:
                fn = launch.cuda_driver_entry("cuLaunchKernelEx", (ctypes.POINTER(_Config), ctypes.c_void_p,
                                                                   ctypes.c_void_p, ctypes.c_void_p))
        except Exception:
            fn = None
        _entry[:] = [fn]
    return _entry[0]


def available():
    """Whether this process can make programmatic dependent launches."""
    return _driver_entry() is not None


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
        self._entry = _driver_entry()
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
            if self._entry(ctypes.byref(c), function, params, extra or None) == 0:
                return
            self._entry = None
        self._plain(function, gx, gy, gz, bx, by, bz, shared, stream, params, extra)
