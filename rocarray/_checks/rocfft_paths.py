"""Self-checks of rocfft's paths that only long power-of-two real transforms take
(``python -m rocarray``).

Small enough for the sanitizers: ``rfft`` and ``irfft`` of lengths 2^15, 2^17 and 2^20 in float32 and
float64, a few rows each (the four-step real transforms whose first or last pass is fused with the
real-to-complex post-processing), compared with NumPy's.
"""

import numpy

from rocarray._core import backend, harness

_LIB = "rocfft"


@harness.self_check(_LIB, "pow2_real_paths")
def check_pow2_real_paths(rng):
    import rocarray as ra

    cupy = backend.cupy()
    for dtype in ("float32", "float64"):
        eps = numpy.finfo(dtype).eps
        for n, rows in ((1 << 15, 3), (1 << 17, 3), (1 << 20, 1)):
            x = harness.standard_normal(rng, (rows, n), dtype)
            got = cupy.asnumpy(ra.fft.rfft(cupy.asarray(x)))
            want = numpy.fft.rfft(x.astype(numpy.float64))
            err = numpy.linalg.norm(got - want) / numpy.linalg.norm(want)
            if not err < 8 * eps * numpy.log2(n):
                raise AssertionError(f"rfft {dtype} {rows} x {n}: relative L2 error {err:.2e}")
            back = cupy.asnumpy(ra.fft.irfft(cupy.asarray(want.astype(numpy.result_type(dtype, 1j))), n=n))
            err = numpy.linalg.norm(back - x) / numpy.linalg.norm(x)
            if not err < 8 * eps * numpy.log2(n):
                raise AssertionError(f"irfft {dtype} {rows} x {n}: relative L2 error {err:.2e}")
