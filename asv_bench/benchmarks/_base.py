"""Shared pieces of rocarray's asv benchmarks: whether a GPU is usable (and why not), a device sync.

Nothing here imports CuPy (or touches a device) at import time: asv discovers the benchmarks on a
machine without a GPU or without CuPy, and every benchmark's ``setup`` then raises
``NotImplementedError`` with the reason (:func:`require_gpu`), which asv reports as *skipped*
(``asv: skipped: NotImplementedError('no GPU: ...')``).
"""

__all__ = ["NO_GPU", "gpu_problem", "require_gpu", "sync"]

#: The start of the reason every benchmark is skipped with where no GPU is usable.
NO_GPU = "no GPU: CuPy with a visible CUDA/ROCm device is needed for rocarray benchmarks"

_problem = []  # [gpu_problem()'s answer], once asked


def gpu_problem():
    """``None`` when CuPy imports and sees a device, else why not (asked once per process).

    Returns
    -------
    str or None
        :data:`NO_GPU`, then what rocarray's device layer found missing and what to install
        (the :class:`~rocarray.NoDeviceError` message).
    """
    if not _problem:
        try:
            from rocarray._core import backend

            backend.device_info()
            why = None
        except Exception as exc:  # NoDeviceError, or whatever a broken CuPy install raises
            why = f"{NO_GPU} ({exc})"
        _problem.append(why)
    return _problem[0]


def require_gpu():
    """Raise ``NotImplementedError`` (asv: skip) naming the reason when no GPU is usable."""
    why = gpu_problem()
    if why is not None:
        raise NotImplementedError(why)


def sync():
    """Wait until the current device has finished all queued work."""
    from rocarray._core import backend

    backend.cupy().cuda.Device().synchronize()
