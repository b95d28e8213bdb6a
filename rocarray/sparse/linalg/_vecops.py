"""The vector operations the iterative solvers are written over, on the device.

The solvers (:mod:`._isolve`, :mod:`._minres`, :mod:`._lsqr`, :mod:`._eigen`) never touch an
array's elements themselves: every vector operation goes through the object :func:`select`
returns. On the device that is :data:`DEVICE`: rocBLAS level 1/2 (``rocarray.rocblas``) for dot
products, norms, axpy and the block products of the Lanczos and Arnoldi bases, and the fused
conjugate gradient kernels of :mod:`._krylov_kernels`. The CPU tests replace :func:`select` by a
NumPy implementation of the same methods, so the iteration logic (info codes, iteration counts,
callbacks, breakdowns) is checked against SciPy without a device.

Vectors are contiguous 1-D arrays of one of float32, float64, complex64, complex128. Methods that
return host numbers (``norm``, ``dot``, ``value``, ``any``) synchronize; the others only queue work.
"""

import numpy

from rocarray._core import args, backend
from rocarray import rocblas
from rocarray.sparse.linalg import _krylov_kernels


def _host_scalar(a, dtype):
    """``a`` as a host scalar rocBLAS takes for vectors of ``dtype`` (real for real vectors)."""
    return complex(a) if numpy.dtype(dtype).kind == "c" else float(numpy.real(a))


class DeviceOps:
    """Vector operations on CuPy arrays (rocBLAS and the fused Krylov kernels)."""

    def vector(self, x, name):
        """``x`` as a device array (TypeError for host arrays, naming ``name``)."""
        return args.as_device_array(x, name)

    def array(self, x, dtype):
        """A new contiguous 1-D copy of ``x`` in ``dtype``."""
        return backend.cupy().array(x, dtype=dtype).ravel()

    def zeros(self, shape, dtype):
        return backend.cupy().zeros(shape, dtype=dtype)

    def empty(self, shape, dtype):
        return backend.cupy().empty(shape, dtype=dtype)

    def copy(self, x):
        y = backend.cupy().empty_like(x)
        rocblas.copy(x.size, x, 1, y, 1)
        return y

    def assign(self, dst, src):
        """``dst[:] = src``."""
        rocblas.copy(src.size, src, 1, dst, 1)

    def any(self, x):
        """Whether some element of ``x`` is nonzero (NaN counts as nonzero)."""
        return x.size > 0 and float(rocblas.asum(x.size, x, 1)) != 0

    def norm(self, x):
        return float(rocblas.nrm2(x.size, x, 1))

    def dot(self, x, y):
        """``x^H y`` as a host scalar (NumPy's ``vdot``)."""
        return rocblas.dotc(x.size, x, 1, y, 1).item()

    def axpy(self, a, x, y):
        """``y += a x``."""
        rocblas.axpy(x.size, _host_scalar(a, x.dtype), x, 1, y, 1)

    def scale(self, a, x):
        """``x *= a``."""
        rocblas.scal(x.size, _host_scalar(a, x.dtype), x, 1)

    def sub(self, x, y):
        """A new vector ``x - y``."""
        out = self.copy(x)
        rocblas.axpy(x.size, _host_scalar(-1, x.dtype), y, 1, out, 1)
        return out

    def gemv_h(self, V, k, w):
        """Host vector ``V[:k]^H w`` (V is ``(rows, n)``, rows are the basis vectors)."""
        n = V.shape[1]
        h = backend.cupy().empty(k, dtype=V.dtype)
        rocblas.gemv("C", n, k, _host_scalar(1, V.dtype), V.ravel(), max(n, 1), w, 1,
                     _host_scalar(0, V.dtype), h, 1)
        return h.get()

    def gemv_n(self, V, k, h, w, alpha):
        """``w += alpha V[:k]^T h`` for a host vector ``h`` of k coefficients."""
        n = V.shape[1]
        hd = backend.cupy().asarray(numpy.ascontiguousarray(h, dtype=V.dtype))
        rocblas.gemv("N", n, k, _host_scalar(alpha, V.dtype), V.ravel(), max(n, 1), hd, 1,
                     _host_scalar(1, V.dtype), w, 1)

    def add_abs2(self, acc, w, s):
        """``acc += |s w|^2`` elementwise (lsqr's variance estimate; CuPy arithmetic)."""
        acc += backend.cupy().abs(w * s) ** 2

    # the device-scalar conjugate gradient steps

    def scalars(self, count, dtype):
        """A device array of ``count`` scalar slots."""
        return backend.cupy().zeros(count, dtype=dtype)

    def dot_to(self, x, y, scalars, slot):
        """``scalars[slot] = x^H y`` on the device."""
        rocblas.dotc(x.size, x, 1, y, 1, result=scalars[slot])

    def value(self, scalars, slot):
        """``scalars[slot]`` on the host."""
        return scalars[slot].item()

    def cg_update(self, x, r, p, q, scalars, rho, pq, rr):
        """``alpha = scalars[rho] / scalars[pq]; x += alpha p; r -= alpha q; scalars[rr] = |r|^2``."""
        _krylov_kernels.cg_update(x, r, p, q, scalars, rho, pq, rr)

    def cg_direction(self, p, z, scalars, rho_new, rho_old):
        """``p = z + (scalars[rho_new] / scalars[rho_old]) p``."""
        _krylov_kernels.cg_direction(p, z, scalars, rho_new, rho_old)


#: The device implementation.
DEVICE = DeviceOps()


def select():
    """The vector operations the solvers use (the CPU tests replace this function)."""
    return DEVICE
