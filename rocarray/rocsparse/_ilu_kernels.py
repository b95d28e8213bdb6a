"""The kernels of ``rocarray/_kernels/rocsparse/ilu.hip``: their registration and launches.

The one interface through which :mod:`rocarray.rocsparse._ilu` launches its kernels (plain data
movement and reads of single values go through :mod:`rocarray.rocsparse._csrsv_kernels`). No
checks; work is queued on the current stream. The CPU tests replace these functions with NumPy
stand-ins of the same contracts.
"""

import numpy

from rocarray._core import compile as _compile, dtypes, kernels, launch
from rocarray.rocsparse._csrsv_kernels import INDEX_DTYPES, VALUE_DTYPES

SOURCE = "rocsparse/ilu.hip"

#: Threads per block (``RA_ROCSPARSE_ILU_BLOCK``).
BLOCK = 256
#: Resident blocks per multiprocessor assumed for the occupancy bound.
BLOCKS_PER_MULTIPROCESSOR = 8

_KERNELS = ("csrilu0_level", "csric0_level")


def kernel_name(kernel, value_dtype, index_dtype):
    """Name expression, e.g. ``'ra_rocsparse_csrilu0_level<float, ra_i64>'``."""
    return f"ra_rocsparse_{kernel}<{dtypes.ctype(value_dtype)}, {dtypes.ctype(index_dtype)}>"


def instantiations():
    """Every name expression the incomplete factorizations launch."""
    return sorted(kernel_name(k, v, i) for k in _KERNELS for v in VALUE_DTYPES for i in INDEX_DTYPES)


_compile.register(SOURCE, instantiations())

KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def _level(kernel, count, order, start, indptr, indices, data, diag, pivot):
    dev = data.data.device_id
    k = KERNELS[kernel_name(kernel, data.dtype, indptr.dtype)]
    with launch.on_device(dev):
        k(dev, (-(-int(count) // BLOCK),), (numpy.int64(count), order[start:], indptr, indices, data, diag, pivot))


def ilu0_level(count, order, start, indptr, indices, data, diag, pivot):
    """ILU(0) of the rows ``order[start:start+count]`` (one level) in place in ``data``
    (``ra_rocsparse_csrilu0_level``); ``pivot[0] := min(pivot[0], i)`` over those rows whose
    pivot is zero or missing."""
    _level("csrilu0_level", count, order, start, indptr, indices, data, diag, pivot)


def ic0_level(count, order, start, indptr, indices, data, diag, pivot):
    """IC(0) of the rows ``order[start:start+count]`` (one level) in place in ``data``'s lower
    triangle (``ra_rocsparse_csric0_level``); ``pivot[0] := min(pivot[0], i)`` over those rows
    whose pivot is missing or not positive."""
    _level("csric0_level", count, order, start, indptr, indices, data, diag, pivot)
