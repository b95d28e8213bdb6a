"""Per-device facts: vendor, architecture, warp width, multiprocessor count, memories.

Nothing here touches a GPU at import time, so ``import rocarray`` works on a machine with no driver.
The first call that needs a device goes through :func:`device_info` (or :func:`cupy`) and
raises :class:`~rocarray.NoDeviceError` with a message that says what is missing.
"""

import functools
from dataclasses import dataclass

from rocarray._core.errors import NoDeviceError

#: What to install for a GPU, said the same way by every message that needs one.
INSTALL_HINT = (
    "install the CuPy package of your GPU stack: `pip install cupy-cuda13x` (NVIDIA, CUDA 13 driver), "
    "`pip install cupy-cuda12x` (CUDA 12) or `pip install cupy-rocm-7-0` (AMD, ROCm 7); from a rocarray "
    "checkout, `pip install \".[cuda13]\"` (or `.[cuda12]`, `.[rocm]`) does the same"
)
#: The same, in one short line.
INSTALL_SHORT = "pip install cupy-cuda13x | cupy-cuda12x | cupy-rocm-7-0"


@dataclass(frozen=True)
class Target:
    """What a kernel is compiled for.

    Parameters
    ----------
    vendor : {'cuda', 'hip'}
        ``'cuda'`` compiles with NVRTC, ``'hip'`` with hiprtc (or hipcc offline).
    arch : str
        ``'sm_90'`` style for NVIDIA, ``'gfx942'`` style for AMD (features such as ``:xnack-`` dropped).
    warp_size : int
        Lanes per warp/wavefront: 32 on NVIDIA and RDNA, 64 on CDNA (gfx9).
    """

    vendor: str
    arch: str
    warp_size: int

    @property
    def is_hip(self):
        return self.vendor == "hip"

    def __str__(self):
        return f"{self.arch} ({self.vendor}, warp {self.warp_size})"


@dataclass(frozen=True)
class DeviceInfo:
    """Facts about one GPU, read once from the runtime."""

    id: int
    name: str
    is_hip: bool
    arch: str
    warp_size: int
    multiprocessors: int
    shared_mem_per_block: int
    l2_bytes: int
    total_memory: int
    compute_capability: str

    @property
    def target(self):
        """The :class:`Target` kernels are built for on this device."""
        return Target("hip" if self.is_hip else "cuda", self.arch, self.warp_size)


def compute_capability_version(info):
    """``(major, minor)`` of a :class:`DeviceInfo`'s compute capability (``'9.0'`` → ``(9, 0)``);
    ``(0, 0)`` when it cannot be read."""
    try:
        major, minor = (int(x) for x in str(info.compute_capability).split(".")[:2])
    except ValueError:
        return 0, 0
    return major, minor


def has_thread_block_clusters(device_id):
    """Whether ``device_id`` runs thread-block clusters with distributed shared memory and the
    cluster barrier: NVIDIA from compute capability 9.0 (where kernels built on them have a body)."""
    info = device_info(device_id)
    return not info.is_hip and compute_capability_version(info) >= (9, 0)


def cupy_module():
    """The ``cupy`` module, or ``None`` when it cannot be imported."""
    try:
        import cupy
    except Exception:  # ImportError, or a CuPy build that fails to load its libraries
        return None
    return cupy


_cupy = []  # [the cupy module], filled by the first successful cupy()


def cupy():
    """The ``cupy`` module: the one way rocarray's code reaches CuPy (cached after the first call).

    Raises
    ------
    NoDeviceError
        When CuPy is not installed (the message says what to install).
    """
    if _cupy:
        return _cupy[0]
    module = cupy_module()
    if module is None:
        raise NoDeviceError(f"rocarray needs CuPy and a GPU, but CuPy is not installed: {INSTALL_HINT}")
    _cupy[:] = [module]
    return module


def is_hip_build():
    """``True`` for a ROCm build of CuPy, ``False`` for CUDA, ``None`` without CuPy."""
    cupy = cupy_module()
    if cupy is None:
        return None
    return bool(cupy.cuda.runtime.is_hip)


def device_count():
    """Number of visible GPUs; 0 when there is no CuPy, driver or device."""
    cupy = cupy_module()
    if cupy is None:
        return 0
    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:
        return 0


def is_available():
    """Whether a GPU can be used right now."""
    return device_count() > 0


def _arch_name(props, is_hip):
    if is_hip:
        raw = props.get("gcnArchName", b"")
        raw = raw.decode() if isinstance(raw, bytes) else str(raw)
        name = raw.split(":")[0]
        if not name:  # very old ROCm: gcnArch is an int like 906
            name = f"gfx{props.get('gcnArch', 0)}"
        return name
    return f"sm_{props['major']}{props['minor']}"


@functools.lru_cache(maxsize=None)
def _read_device_info(device_id):
    runtime = cupy().cuda.runtime
    try:
        count = runtime.getDeviceCount()
    except Exception as exc:
        raise NoDeviceError(
            f"CuPy is installed but no GPU runtime could be reached ({exc}); check the driver "
            f"(nvidia-smi / rocm-smi) or {INSTALL_HINT}"
        ) from None
    if count == 0:
        raise NoDeviceError("CuPy is installed but no GPU is visible (check CUDA/HIP_VISIBLE_DEVICES)")
    if not 0 <= device_id < count:
        raise NoDeviceError(f"device {device_id} does not exist ({count} visible)")
    is_hip = bool(runtime.is_hip)
    props = runtime.getDeviceProperties(device_id)
    name = props.get("name", b"")
    name = name.decode() if isinstance(name, bytes) else str(name)
    return DeviceInfo(
        id=device_id,
        name=name,
        is_hip=is_hip,
        arch=_arch_name(props, is_hip),
        warp_size=int(props["warpSize"]),
        multiprocessors=int(props["multiProcessorCount"]),
        shared_mem_per_block=int(props["sharedMemPerBlock"]),
        l2_bytes=int(props.get("l2CacheSize", 0)),
        total_memory=int(props.get("totalGlobalMem", 0)),
        compute_capability=f"{props['major']}.{props['minor']}",
    )


def device_info(device_id=None):
    """Facts about a GPU (default: CuPy's current device).

    Raises
    ------
    NoDeviceError
        When CuPy, the driver or the device is missing.
    """
    if device_id is None:
        runtime = cupy().cuda.runtime
        try:
            device_id = runtime.getDevice()
        except Exception as exc:
            raise NoDeviceError(
                f"no GPU runtime could be reached ({exc}); check the driver or {INSTALL_HINT}"
            ) from None
    return _read_device_info(int(device_id))


# --------------------------------------------------------------------------------------------
# capabilities kernels depend on
# --------------------------------------------------------------------------------------------

#: Dynamic shared memory every kernel may take without opting in (CUDA's default cap).
DEFAULT_SHARED = 48 * 1024


def shared_memory_limit(device_id):
    """Bytes of dynamic shared memory one block may use on ``device_id``: CUDA's opt-in maximum
    where the runtime reports it, else the per-block figure (ROCm's LDS per workgroup). Remembered
    per device's facts, so a stand-in device (tests) never answers for the real one of its id."""
    return _shared_memory_limit(device_info(device_id), device_id)


@functools.lru_cache(maxsize=None)
def _shared_memory_limit(info, device_id):
    limit = int(info.shared_mem_per_block)
    if not info.is_hip:
        try:
            attrs = cupy().cuda.Device(device_id).attributes
            limit = max(limit, int(attrs.get("MaxSharedMemoryPerBlockOptin", 0)))
        except Exception:  # an old CuPy without the attribute table
            pass
    return limit


def bulk_copy_engine(is_hip, cc_major):
    """Whether a device has the bulk copy engine and mbarriers that kernels use under
    ``RA_BULK_COPY`` (``ra_async.cuh``): NVIDIA from compute capability 9.0."""
    return not is_hip and cc_major >= 9


def grid_dependency(is_hip, cc_major):
    """Whether a kernel that starts with ``ra_dependent_grid_enter`` (``ra_async.cuh``) may be queued
    as a programmatic dependent (:class:`rocarray._core.launch.Launch` with ``dependent=True``):
    where it is compiled with ``griddepcontrol``, the devices of :func:`bulk_copy_engine`."""
    return bulk_copy_engine(is_hip, cc_major)


def has_bulk_copy(device_id):
    """:func:`bulk_copy_engine` of a device."""
    info = device_info(device_id)
    return bulk_copy_engine(bool(info.is_hip), compute_capability_version(info)[0])


def dependent_launches(device_id):
    """:func:`grid_dependency` of a device."""
    info = device_info(device_id)
    return grid_dependency(bool(info.is_hip), compute_capability_version(info)[0])
