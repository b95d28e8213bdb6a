"""rocFFT-style FFTs on hand-written HIP kernels: plans, any-length complex transforms, real
transforms and N-d transforms. ``rocarray.fft`` puts ``numpy.fft``'s names on top.

* :class:`Plan`: a rocFFT-like plan description (lengths, batch, strides and distances, placement,
  precision, direction, c2c/r2c/c2r) with :meth:`Plan.execute`.
* :func:`c2c`, :func:`r2c`, :func:`c2r`, :func:`transform_axis`: transforms of device arrays along
  given axes.
* :data:`plan_cache`: rocarray's one plan cache (:data:`rocarray._core.plans.cache`), where the
  kernel schedules of these transforms are kept with every library's plans
  (``rocarray.fft.config`` names its functions as CuPy does).
"""

from rocarray.rocfft._plan import Plan
from rocarray.rocfft._transforms import c2c, c2r, plan_cache, r2c, transform_axis

__all__ = ["Plan", "c2c", "r2c", "c2r", "plan_cache", "transform_axis"]
