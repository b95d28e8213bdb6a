"""Device steps shared by the pointwise libraries (activations, softmax, pooling): the device of an
array, allocation on it, the element type name of a dtype and grid sizes. No checks."""

import numpy

from rocarray._core import backend, dtypes, launch

#: Most blocks of a grid-stride launch (the y/z limits never apply: grids are one-dimensional).
MAX_GRID = (1 << 31) - 1


def device_of(x):
    """The device id holding ``x`` (``TypeError`` for anything but a device array: the one check
    the libraries make, so that a wrong call fails with a clear error instead of deep inside)."""
    if not isinstance(x, backend.cupy().ndarray):
        raise TypeError(f"expected a device array (cupy.ndarray), got {type(x).__name__}")
    return x.data.device_id


def empty(shape, dtype, like):
    """An uninitialized C-contiguous array on ``like``'s device."""
    with launch.on_device(device_of(like)):
        return backend.cupy().empty(shape, dtype)


def ctype(dtype):
    """Kernel element type of a floating dtype (``'ra_bfloat16'`` for ml_dtypes' bfloat16)."""
    return dtypes.ctype(numpy.dtype(dtype))


def blocks(work, block, cap):
    """Blocks of ``block`` threads for ``work`` items: enough for one item per thread, at most
    ``cap`` (a grid-stride kernel loops over the rest), at least one."""
    return int(max(1, min(-(-int(work) // block), cap, MAX_GRID)))


def aligned(*arrays, alignment=16):
    """Whether every array's device address is a multiple of ``alignment`` bytes."""
    return all(a.data.ptr % alignment == 0 for a in arrays)
