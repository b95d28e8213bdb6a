"""``numpy.fft`` on the device: the transforms run on :mod:`rocarray.rocfft`'s hand-written kernels.

Same names, signatures, dtypes, normalizations and errors as NumPy 2.x (see
:mod:`rocarray.fft._fft` for the rules and the one deliberate difference); :mod:`.config` holds
CuPy's plan-cache functions.
"""

from rocarray.fft import config
from rocarray.fft._fft import (
    fft, fft2, fftn, hfft, ifft, ifft2, ifftn, ihfft, irfft, irfft2, irfftn, rfft, rfft2, rfftn,
)
from rocarray.fft._helper import fftfreq, fftshift, ifftshift, rfftfreq

__all__ = [
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn",
    "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift", "config",
]
