"""The per-rank array operations of :mod:`rocarray.distributed`'s algorithms, behind one seam.

The distributed FFT and the distributed-array helpers never call CuPy or rocFFT directly: they ask
:func:`ops` for the object that makes, checks and transforms one rank's arrays. On a device that
is :class:`DeviceOps` (CuPy arrays on the communicator's device, transforms by
:func:`rocarray.rocfft.c2c`); the CPU tests put a NumPy twin in its place, so the splitting,
packing and exchange logic runs unchanged against ``numpy.fft``.
"""

import numpy

from rocarray import rocfft
from rocarray._core import backend
from rocarray._core.args import as_device_array


class DeviceOps:
    """One rank's arrays as CuPy arrays on the communicator's device, FFTs by rocFFT's kernels."""

    @property
    def xp(self):
        """The array module (``cupy``)."""
        return backend.cupy()

    def array(self, x, name, comm):
        """``x`` as a device array on ``comm``'s device: ``TypeError`` naming ``name`` for anything
        else (host arrays included), ``ValueError`` for an array on another device."""
        x = as_device_array(x, name)
        if x.device.id != comm.device:
            raise ValueError(f"argument '{name}' is on device {x.device.id}; this rank's communicator is on "
                             f"device {comm.device}")
        return x

    def on(self, comm):
        """Context in which new arrays live on ``comm``'s device (its ``device`` attribute)."""
        return self.xp.cuda.Device(comm.device)

    def c2c(self, x, axes, forward, scale):
        """Complex transform of ``x`` along the distinct ``axes`` times ``scale`` (a new array)."""
        return rocfft.c2c(x, tuple(axes), forward=forward, scale=scale)

    def c2c_into(self, x, out, axis, forward, scale):
        """One 1-D complex transform of ``x`` along ``axis`` times ``scale``, written into ``out``
        (same shape, any strides)."""
        rocfft.transform_axis(x, out, axis, forward=forward, scale=scale)

    def r2c(self, x, axis, scale):
        """Real-to-complex transform of ``x`` along ``axis`` times ``scale`` (``n // 2 + 1`` long)."""
        return rocfft.r2c(x, (axis,), scale=scale)

    def c2r(self, x, axis, n, scale):
        """Complex-to-real transform of ``x`` along ``axis`` to ``n`` points, times ``scale``."""
        return rocfft.c2r(x, (axis,), n, scale=scale)

    def to_host(self, x):
        """``x`` as a NumPy array (a device-to-host copy)."""
        return self.xp.asnumpy(x)


_DEVICE = DeviceOps()


def ops():
    """The operations object the distributed functions use (:class:`DeviceOps`)."""
    return _DEVICE


def wire(x):
    """A C-contiguous array seen as one flat run of bytes (``uint8``), the unit every exchange of
    :mod:`rocarray.distributed` sends, so any dtype (complex and bool included) crosses NCCL."""
    return x.reshape(-1).view(numpy.uint8)
