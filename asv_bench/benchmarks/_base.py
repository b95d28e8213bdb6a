"""Shared pieces of rocarray's asv benchmarks: a GPU base class, fresh random data, a device sync.

The pattern every ``bench_<library>.py`` follows (see ``docs/core.rst``)::

    from ._base import GpuBenchmark, random_device, sync

    class Dot(GpuBenchmark):
        params = ([2**20, 2**26], ["float32", "complex64"])
        param_names = ["n", "dtype"]

        def setup(self, n, dtype):
            self.x, self.y = random_device(n, dtype), random_device(n, dtype)

        def time_rocarray(self, n, dtype):
            ra.dot(self.x, self.y)
            sync()

        def time_vendor(self, n, dtype):
            cupy.dot(self.x, self.y)
            sync()

``time_rocarray``/``time_vendor`` pairs: each runs the operation once and then calls
:func:`sync`, so asv's wall-clock timer sees the device time; the vendor twin (the CuPy call that
goes to cuBLAS/rocBLAS, CUB/hipCUB, ...) lives in the same class and runs on the same data, so
``asv compare`` and the HTML plots show the ratio directly.

Nothing here imports CuPy (or rocarray) at import time: asv can discover the benchmarks on a
machine without a GPU or without CuPy, and every ``setup`` then raises ``NotImplementedError``,
which asv reports as *skipped*.
"""

import functools
import os

__all__ = ["GpuBenchmark", "random_device", "sync", "gpu_available"]

_NO_GPU = "no GPU: CuPy with a visible CUDA/ROCm device is needed for rocarray benchmarks"
_gpu = None  # cached result of gpu_available()


def _cupy():
    """The ``cupy`` module; ``NotImplementedError`` (asv: skip) when it cannot be used."""
    try:
        import cupy
    except Exception as exc:  # ImportError, or a CuPy build that fails to load its libraries
        raise NotImplementedError(f"{_NO_GPU} (cupy: {exc})") from None
    return cupy


def gpu_available():
    """Whether CuPy imports and sees at least one device (cached)."""
    global _gpu
    if _gpu is None:
        try:
            _gpu = _cupy().cuda.runtime.getDeviceCount() > 0
        except Exception:
            _gpu = False
    return _gpu


def _require_gpu():
    if not gpu_available():
        raise NotImplementedError(_NO_GPU)


def sync():
    """Wait until the current device has finished all queued work."""
    _cupy().cuda.Device().synchronize()


def random_device(n, dtype):
    """Fresh random data on the device (a new seed per call; never all zeros).

    Parameters
    ----------
    n : int or tuple of int
        Length or shape.
    dtype : str or numpy.dtype
        Any numeric or bool dtype. Floats are standard normal, complex numbers have standard
        normal real and imaginary parts, integers are uniform in ``[-100, 100]`` clipped to the
        type's range, bools are fair coin flips.

    Returns
    -------
    cupy.ndarray

    Raises
    ------
    NotImplementedError
        Without a GPU (asv then skips the benchmark).
    """
    import numpy

    _require_gpu()
    cupy = _cupy()
    dtype = numpy.dtype(dtype)
    shape = (int(n),) if numpy.ndim(n) == 0 else tuple(int(s) for s in n)
    rs = cupy.random.RandomState(int.from_bytes(os.urandom(4), "little"))
    if dtype.kind == "c":
        part = numpy.float32 if dtype == numpy.complex64 else numpy.float64
        out = rs.standard_normal(shape, dtype=part).astype(dtype)
        out += rs.standard_normal(shape, dtype=part).astype(dtype) * dtype.type(1j)
        return out
    if dtype.kind == "f":
        work = dtype if dtype in (numpy.float32, numpy.float64) else numpy.dtype(numpy.float32)
        return rs.standard_normal(shape, dtype=work).astype(dtype, copy=False)
    if dtype.kind == "b":
        return rs.random_sample(shape) < 0.5
    if dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        low, high = max(int(info.min), -100), min(int(info.max), 100)
        return rs.randint(low, high + 1, size=shape, dtype=numpy.int64).astype(dtype)
    raise TypeError(f"random_device: unsupported dtype {dtype}")


class GpuBenchmark:
    """Base class of rocarray's asv benchmarks.

    * ``setup`` raises ``NotImplementedError`` when there is no GPU, so asv marks the benchmark
      skipped instead of failed. Subclasses write their own ``setup(self, *params)`` as usual;
      it is wrapped (in ``__init_subclass__``) so the GPU check runs first, and afterwards every
      ``time_*`` method runs once and the device is synchronized: kernel compilation and first-call
      caches are paid in ``setup``, not in asv's calibration of the timed loop. Set
      ``warm_up_in_setup = False`` to skip that call.
    * Pattern: ``time_rocarray``/``time_vendor`` pairs on the same data; each runs the operation
      once and then calls :func:`sync`.
    * Data comes from :func:`random_device` (fresh random values, never zeros).
    """

    #: seconds before asv gives up on one benchmark (all parameter combinations)
    timeout = 300
    #: seconds of untimed calls before asv starts measuring (after the warm call in setup)
    warmup_time = 0.25
    #: asv's target duration of one timed sample
    sample_time = 0.02
    #: run every ``time_*`` method once at the end of ``setup``
    warm_up_in_setup = True

    def setup(self, *params):
        """Skip (``NotImplementedError``) without a GPU."""
        _require_gpu()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("setup")
        if own is None or getattr(own, "_ra_wrapped", False):
            return

        @functools.wraps(own)
        def setup(self, *params):
            outermost = not getattr(self, "_ra_in_setup", False)
            if outermost:
                _require_gpu()
                self._ra_in_setup = True
            try:
                own(self, *params)
            finally:
                if outermost:
                    self._ra_in_setup = False
            if outermost and self.warm_up_in_setup:
                for name in sorted(dir(self)):
                    if name.startswith("time_"):
                        getattr(self, name)(*params)
                sync()

        setup._ra_wrapped = True
        cls.setup = setup
