"""The kernels of ``rocarray/_kernels/rocsparse/krylov.hip``: their registration and launches.

The device implementation of the solvers' vector operations (:mod:`._vecops`) reaches the fused
conjugate gradient kernels only through these functions. They take contiguous 1-D device vectors of
one dtype and a device array of scalars, never check (the solvers have), and queue work on the
current stream without synchronizing.
"""

import numpy

from rocarray._core import compile as _compile, dtypes, kernels, launch, workspace

SOURCE = "rocsparse/krylov.hip"

#: Threads per block (``RA_KRYLOV_BLOCK``).
BLOCK = 256
#: Resident blocks per multiprocessor aimed for (2048 threads per SM/CU).
BLOCKS_PER_MULTIPROCESSOR = 2048 // BLOCK
#: Most blocks of a reducing launch: the partials the finishing block adds.
MAX_PARTS = 2048

_DTYPES = ("float32", "float64", "complex64", "complex128")


def _real_ctype(dtype):
    return dtypes.ctype(dtypes.real_dtype(dtype))


def kernel_name(kernel, dtype):
    """Name expression, e.g. ``'ra_rocsparse_cg_update<double, double>'``."""
    ct = dtypes.ctype(dtype)
    if kernel == "cg_direction":
        return f"ra_rocsparse_cg_direction<{ct}>"
    return f"ra_rocsparse_{kernel}<{ct}, {_real_ctype(dtype)}>"


def instantiations():
    """Every name expression the solvers launch."""
    return sorted(kernel_name(k, d) for k in ("cg_update", "cg_direction", "krylov_finish") for d in _DTYPES)


_compile.register(SOURCE, instantiations())

KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def _grid(kernel, device_id, n):
    return max(1, min(kernel.wave(device_id), MAX_PARTS, -(-n // BLOCK)))


def cg_update(x, r, p, q, scalars, rho, pq, rr):
    """``alpha = scalars[rho] / scalars[pq]; x += alpha p; r -= alpha q; scalars[rr] = |r|^2``."""
    dev = x.data.device_id
    n = x.size
    update = KERNELS[kernel_name("cg_update", x.dtype)]
    finish = KERNELS[kernel_name("krylov_finish", x.dtype)]
    real = numpy.dtype(dtypes.real_dtype(x.dtype))
    with launch.on_device(dev):
        grid = _grid(update, dev, n)
        partials = workspace.workspaces.scratch("rocsparse.krylov.partials", grid * real.itemsize, dev)
        partials = partials[:grid * real.itemsize].view(real)
        update(dev, (grid,), (numpy.int64(n), x, r, p, q, scalars, numpy.int32(rho), numpy.int32(pq), partials))
        finish(dev, (1,), (partials, numpy.int32(grid), scalars, numpy.int32(rr)))


def cg_direction(p, z, scalars, rho_new, rho_old):
    """``p = z + (scalars[rho_new] / scalars[rho_old]) p``."""
    dev = p.data.device_id
    kernel = KERNELS[kernel_name("cg_direction", p.dtype)]
    with launch.on_device(dev):
        kernel(dev, (_grid(kernel, dev, p.size),),
               (numpy.int64(p.size), p, z, scalars, numpy.int32(rho_new), numpy.int32(rho_old)))
