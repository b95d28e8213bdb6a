"""The device and configuration report (``ra.show_config()``, ``python -m rocarray``)."""

import platform
import sys

from rocarray._core import backend, config
from rocarray._version import __version__


def report_lines():
    """Lines describing rocarray, CuPy, the GPU stack, the device and the caches."""
    import numpy

    lines = [
        f"rocarray      {__version__}",
        f"python        {sys.version.split()[0]} ({platform.machine()})",
        f"numpy         {numpy.__version__}",
    ]
    cupy = backend.cupy_module()
    if cupy is None:
        lines.append(f"cupy          not installed ({backend.INSTALL_SHORT})")
    else:
        lines.append(f"cupy          {cupy.__version__}")
        is_hip = backend.is_hip_build()
        lines.append(f"backend       {'ROCm/HIP (hiprtc)' if is_hip else 'CUDA (NVRTC)'}")
        try:
            runtime = cupy.cuda.runtime.runtimeGetVersion()
            lines.append(f"runtime       {runtime}")
        except Exception:
            pass
    count = backend.device_count()
    if count == 0:
        lines.append("device        none visible")
    for i in range(count):
        info = backend.device_info(i)
        lines.append(
            f"device {i}      {info.name}: arch {info.arch}, warp {info.warp_size}, "
            f"{info.multiprocessors} {'CUs' if info.is_hip else 'SMs'}, "
            f"{info.shared_mem_per_block // 1024} KiB {'LDS' if info.is_hip else 'smem'}/block, "
            f"L2 {info.l2_bytes / 2**20:.0f} MiB, {info.total_memory / 2**30:.1f} GiB"
        )
    lines.append(f"cache dir     {config.cache_dir()}")
    lines.append(f"tuning        ROCARRAY_TUNE={config.tune_mode()}")
    return lines


def show_config():
    """Print the backend, device, architecture, versions and cache folder."""
    print("\n".join(report_lines()))
