"""Launches of the kernels of ``rocarray/_kernels/rocsolver/geev.hip``: the one small interface
between :mod:`rocarray.rocsolver._geev`'s orchestration and its device code (the CPU tests
replace these three functions with NumPy stand-ins).

Every kernel is one block of :data:`BLOCK` threads per vector; arguments are device arrays whose
first element is where the kernel starts (views of the caller's flat buffers).
"""

import numpy

from rocarray._core import compile as _compile, dtypes, kernels, launch

SOURCE = "rocsolver/geev.hip"

#: Threads per block (``RA_GEEV_BLOCK`` in the source).
BLOCK = 256

STANDARD = tuple(numpy.dtype(t) for t in ("float32", "float64", "complex64", "complex128"))

#: The complex dtype of each dtype's eigenvectors.
COMPLEX_OF = {numpy.dtype("float32"): numpy.dtype("complex64"), numpy.dtype("float64"): numpy.dtype("complex128"),
              numpy.dtype("complex64"): numpy.dtype("complex64"),
              numpy.dtype("complex128"): numpy.dtype("complex128")}


def kernel_name(kernel, dtype):
    """Name expression of a geev kernel: ``'ra_rocsolver_geev_larfg<double>'``,
    ``'ra_rocsolver_geev_normalize<float, ra_c64>'``."""
    t = dtypes.ctype(dtype)
    if kernel == "normalize":
        return f"ra_rocsolver_geev_normalize<{t}, {dtypes.ctype(COMPLEX_OF[numpy.dtype(dtype)])}>"
    return f"ra_rocsolver_geev_{kernel}<{t}>"


def instantiations():
    """Every name expression launched (registered with the compile layer)."""
    return sorted(kernel_name(k, d) for k in ("larfg", "reflector", "normalize") for d in STANDARD)


_compile.register(SOURCE, instantiations())
KERNELS = kernels.Family(SOURCE, BLOCK, 1)


def _run(name, dtype, grid, args, device_id):
    with launch.on_device(device_id):
        KERNELS[kernel_name(name, dtype)](device_id, (grid,), args)


def larfg(alpha, x, m, tau, v, u):
    """Make the reflector of ``[alpha[0]; x[:m]]`` (LAPACK ``?larfg``): beta to ``alpha[0]``, the
    reflector's tail over ``x``, ``tau[0]``, and ``v = [1; tail]``, ``u = conj(tau) v`` (m + 1
    elements each)."""
    _run("larfg", alpha.dtype, 1, (alpha, x, numpy.int64(m), tau, v, u), alpha.data.device_id)


def reflector(x, m, tau, v, u):
    """``v = [1; x[:m]]`` and ``u = tau[0] v`` for a stored reflector."""
    _run("reflector", v.dtype, 1, (x, numpy.int64(m), tau, v, u), v.data.device_id)


def normalize(X, ldx, kinds, n, ncols, V, ldv):
    """Columns ``0..ncols-1`` of the n-row column-major X (leading dimension ``ldx``) as unit
    eigenvectors in the complex V (``ldv``), LAPACK-normalized; ``kinds`` (device int32) marks
    real matrices' complex pairs (see the kernel)."""
    if n == 0 or ncols == 0:
        return
    _run("normalize", X.dtype, ncols, (X, numpy.int64(ldx), kinds, numpy.int64(n), V, numpy.int64(ldv)),
         X.data.device_id)
