"""rocfft: ``rocarray.fft`` (Stockham, four-step and Bluestein kernels) against ``cupy.fft`` (cuFFT/hipFFT)
on the same data.

Every class times ``time_rocarray`` and ``time_vendor`` on fresh random data; both synchronize so
asv measures the device work. Bytes moved by one call: one read of the input and one write of the
result (for the 4096 x 4096 complex64 cases 256 MiB; for the 512^3 cases 2 GiB in complex64, 4 GiB in
complex128).
"""

try:  # discovery must work without CuPy; every setup then skips (see _base.py)
    import cupy
except Exception:  # pragma: no cover - machines without CuPy
    cupy = None

import rocarray as ra

from ._base import GpuBenchmark, random_device, sync

COMPLEX = ["complex64", "complex128"]


class _FFTCase(GpuBenchmark):
    """One ``numpy.fft`` function (``function``) on an input of ``shape(n)``, rocarray vs CuPy."""

    param_names = ["n", "dtype"]
    function = "fft"

    @staticmethod
    def shape(n):
        return n

    def setup(self, n, dtype):
        self.x = random_device(self.shape(n), dtype)
        self.ours = getattr(ra.fft, self.function)
        self.theirs = getattr(cupy.fft, self.function)
        sync()

    def time_rocarray(self, n, dtype):
        self.ours(self.x)
        sync()

    def time_vendor(self, n, dtype):
        self.theirs(self.x)
        sync()


class FFTRows(_FFTCase):
    """4096 transforms of length 4096 along the last (contiguous) axis."""

    params = ([4096], COMPLEX)

    @staticmethod
    def shape(n):
        return (n, n)


class FFT1D(_FFTCase):
    """One long transform: a power of two (four-step) and a prime (Bluestein)."""

    params = ([2**24, 1_000_003], COMPLEX)


class RFFT1D(_FFTCase):
    """Real-to-complex transform of one long real signal (the half-length complex transform)."""

    params = ([2**24], ["float32", "float64"])
    function = "rfft"


class RFFTRows(_FFTCase):
    """Real rows: 4096 of 8192 points (one launch: the half-length transform and the untangling)
    and 256 of 65536 (two: the untangling fused into the last four-step pass)."""

    params = ([8192, 65536], ["float32", "float64"])
    function = "rfft"

    @staticmethod
    def shape(n):
        return ({8192: 4096, 65536: 256}[n], n)


class IRFFTRows(_FFTCase):
    """The inverse: 4096 rows of 4097 Hermitian coefficients to 8192 real points each, and 256
    rows of 32769 to 65536 (the folding fused into the first four-step pass)."""

    params = ([4097, 32769], COMPLEX)
    function = "irfft"

    @staticmethod
    def shape(n):
        return ({4097: 4096, 32769: 256}[n], n)


class FFT2(_FFTCase):
    """A 4096 x 4096 2-D transform (rows, then strided columns)."""

    params = ([4096], COMPLEX)
    function = "fft2"

    @staticmethod
    def shape(n):
        return (n, n)


class FFTN3D(_FFTCase):
    """A 512^3 3-D transform (complex64: 1 GiB in, 1 GiB out; complex128: twice that)."""

    params = ([512], COMPLEX)
    function = "fftn"

    @staticmethod
    def shape(n):
        return (n, n, n)
