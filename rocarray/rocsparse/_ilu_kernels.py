"""The kernels of ``rocarray/_kernels/rocsparse/ilu.hip``: their registration and launches.

The one interface through which :mod:`rocarray.rocsparse._ilu` prepares its kernels' launches
(running them, plain data movement and reads of single values go through
:mod:`rocarray.rocsparse._csrsv_kernels`). No checks. The CPU tests replace these functions with
NumPy stand-ins of the same contracts.
"""

from rocarray._core import compile as _compile, dtypes, kernels
from rocarray.rocsparse import _csrsv_kernels
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


def ilu0_levels(order, level_ptr, diag, dtype):
    """The prepared launches of ``ra_rocsparse_csrilu0_level``, one per level, for
    :func:`rocarray.rocsparse._csrsv_kernels.run_factor`: ILU(0) of each level's rows in place in
    ``data``; ``pivot[0] := min(pivot[0], i)`` over rows whose pivot is zero or missing."""
    name = kernel_name("csrilu0_level", dtype, order.dtype)
    return _csrsv_kernels.factor_levels(KERNELS, name, order, level_ptr, diag, BLOCK)


def ic0_levels(order, level_ptr, diag, dtype):
    """The prepared launches of ``ra_rocsparse_csric0_level``, one per level, for
    :func:`rocarray.rocsparse._csrsv_kernels.run_factor`: IC(0) of each level's rows in place in
    ``data``'s lower triangle; ``pivot[0] := min(pivot[0], i)`` over rows whose diagonal is
    missing or whose pivot is not positive."""
    name = kernel_name("csric0_level", dtype, order.dtype)
    return _csrsv_kernels.factor_levels(KERNELS, name, order, level_ptr, diag, BLOCK)
