"""The kernels of ``rocsparse/spmv.hip`` and ``rocsparse/spmm.hip``: their registration and launches.

This is the one small interface through which the SpMV and SpMM drivers
(:mod:`rocarray.rocsparse._spmv_analysis`, :mod:`rocarray.rocsparse._spmv`,
:mod:`rocarray.rocsparse._spmm`) reach their kernels. Every function takes device arrays (vectors
as ``(array, stride in elements)``), never checks, and queues work on the current stream of the
arrays' device; only :func:`row_stats` waits for the device (it returns host numbers). The
transposed products reach the formats module's ``csr2csc`` through :func:`csr2csc` here, and
their value gathers and position ranges (:func:`gather`, :func:`positions`) are CuPy's. The CPU
tests replace these functions with NumPy stand-ins of the same contract.
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch
from rocarray._core.matrix_args import STANDARD

SPMV = "rocsparse/spmv.hip"
SPMM = "rocsparse/spmm.hip"

#: Threads per block of every launch (``RA_SP_BLOCK``, ``RA_SPMM_BLOCK``).
BLOCK = 256
#: Elements per block of the split strategy (``RA_SP_CHUNK``).
CHUNK = 2048
#: Lanes-per-row variants of the vector kernel (1: a row per thread; more than the warp: a warp).
VECTOR_LANES = (1, 2, 4, 8, 16, 32, 64)
#: Lanes-per-row variants of the column-major SpMM kernel.
SPMM_LANES = (2, 8, 32)
#: Columns per pass of the column-major SpMM kernel (``RA_SPMM_COLS``).
SPMM_COLS = 4
#: Most blocks of a grid-stride launch (within every vendor's grid limits).
MAX_GRID = 1 << 20
#: Most blocks of the statistics pass (each ends with three global atomics).
STATS_GRID = 2048
#: Resident blocks per multiprocessor assumed for the occupancy bound.
BLOCKS_PER_MULTIPROCESSOR = 8

INDEX_TYPES = {numpy.dtype(numpy.int32): "int", numpy.dtype(numpy.int64): "long long"}


def _ct(dtype):
    return dtypes.ctype(dtype)


def _it(dtype):
    return INDEX_TYPES[numpy.dtype(dtype)]


def vector_name(dtype, index, lanes):
    """Name expression of the vector kernel, e.g. ``'ra_rocsparse_csrmv_vector<float, int, 16>'``."""
    return f"ra_rocsparse_csrmv_vector<{_ct(dtype)}, {_it(index)}, {int(lanes)}>"


def value_name(kernel, dtype, index):
    """Name expression of a kernel templated on value and index type."""
    return f"ra_rocsparse_{kernel}<{_ct(dtype)}, {_it(index)}>"


def index_name(kernel, index):
    """Name expression of a kernel templated on the index type only."""
    return f"ra_rocsparse_{kernel}<{_it(index)}>"


def cols_name(dtype, index, lanes):
    """Name expression of the column-major SpMM kernel."""
    return f"ra_rocsparse_csrmm_cols<{_ct(dtype)}, {_it(index)}, {int(lanes)}>"


def spmv_instantiations():
    """Every name expression of ``spmv.hip`` that the library launches."""
    names = [index_name(k, i) for k in ("csrmv_stats", "csrmv_blocks") for i in INDEX_TYPES]
    names += [f"ra_rocsparse_scale<{_ct(d)}>" for d in STANDARD]
    for d in STANDARD:
        for i in INDEX_TYPES:
            names += [vector_name(d, i, g) for g in VECTOR_LANES]
            names += [value_name(k, d, i) for k in ("csrmv_split", "csrmv_fixup")]
    return sorted(names)


def spmm_instantiations():
    """Every name expression of ``spmm.hip`` that the library launches."""
    names = []
    for d in STANDARD:
        for i in INDEX_TYPES:
            names.append(value_name("csrmm_rows", d, i))
            names += [cols_name(d, i, g) for g in SPMM_LANES]
    return sorted(names)


_compile.register(SPMV, spmv_instantiations())
_compile.register(SPMM, spmm_instantiations())

SPMV_KERNELS = kernels.Family(SPMV, BLOCK, BLOCKS_PER_MULTIPROCESSOR)
SPMM_KERNELS = kernels.Family(SPMM, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def _i64(v):
    return numpy.int64(v)


def _i32(v):
    return numpy.int32(v)


def _device(x):
    return x.data.device_id


def scalar(value, dtype):
    """The kernel argument of a host scalar for elements of ``dtype``."""
    return numpy.dtype(dtype).type(value)


def grid_for(items, per_block):
    """Blocks covering ``items`` at ``per_block`` each, within 1 .. :data:`MAX_GRID`."""
    return int(max(1, min(MAX_GRID, -(-int(items) // int(per_block)))))


def csr2csc(m, n, indptr, indices, data):
    """The CSR of the transpose (:func:`rocarray.rocsparse.csr2csc`, the formats module's)."""
    from rocarray.rocsparse._convert import csr2csc as convert

    return convert(m, n, indptr, indices, data)


def warp_size(device_id):
    """The warp (wavefront) width of ``device_id``."""
    return backend.device_info(device_id).warp_size


# --------------------------------------------------------------------------------------------
# analysis
# --------------------------------------------------------------------------------------------

def row_stats(m, indptr, threshold):
    """``(longest row, rows longer than threshold, their stored elements)`` as host ints: one
    launch and one wait for the device."""
    cupy = backend.cupy()
    dev = _device(indptr)
    with launch.on_device(dev):
        out = cupy.zeros(3, dtype=numpy.uint64)
        SPMV_KERNELS[index_name("csrmv_stats", indptr.dtype)](
            dev, (min(grid_for(m, BLOCK * 4), STATS_GRID),), (_i64(m), indptr, _i64(threshold), out))
        longest, long_rows, long_nnz = (int(v) for v in cupy.asnumpy(out))
    return longest, long_rows, long_nnz


def block_starts(m, indptr, nnz):
    """Device int64 array of ``ceil(nnz / CHUNK) + 1`` entries: the first row starting at or past
    each chunk's first element, then ``m``."""
    cupy = backend.cupy()
    dev = _device(indptr)
    nblocks = -(-int(nnz) // CHUNK)
    with launch.on_device(dev):
        starts = cupy.empty(nblocks + 1, dtype=numpy.int64)
        SPMV_KERNELS[index_name("csrmv_blocks", indptr.dtype)](
            dev, (grid_for(nblocks + 1, BLOCK),), (_i64(m), indptr, _i64(nblocks), starts))
    return starts


# --------------------------------------------------------------------------------------------
# products
# --------------------------------------------------------------------------------------------

def vector(lanes, m, indptr, indices, data, x, incx, y, incy, alpha, beta, beta_zero, conj):
    """``y := alpha op(A) x + beta y`` with ``lanes`` threads per row (1: a row per thread)."""
    dev = _device(data)
    rows_per_block = BLOCK // min(int(lanes), warp_size(dev))
    kernel = SPMV_KERNELS[vector_name(data.dtype, indptr.dtype, lanes)]
    with launch.on_device(dev):
        kernel(dev, (grid_for(m, rows_per_block),),
               (_i64(m), indptr, indices, data, x, _i64(incx), y, _i64(incy), scalar(alpha, data.dtype),
                scalar(beta, data.dtype), _i32(beta_zero), _i32(conj)))


def split(m, nnz, indptr, indices, data, starts, x, incx, y, incy, alpha, beta, beta_zero, conj):
    """The split strategy: one block per :data:`CHUNK` stored elements, then the fix-up of the rows
    that cross chunks (partial sums in a workspace, combined in a fixed order by a warp per
    chunk)."""
    from rocarray._core.workspace import workspaces

    dev = _device(data)
    nblocks = -(-int(nnz) // CHUNK)
    fixup_grid = grid_for(nblocks, BLOCK // warp_size(dev))
    a, b = scalar(alpha, data.dtype), scalar(beta, data.dtype)
    with launch.on_device(dev):
        partials = workspaces.scratch("rocsparse.csrmv.partials", 2 * nblocks * data.dtype.itemsize, dev)
        SPMV_KERNELS[value_name("csrmv_split", data.dtype, indptr.dtype)](
            dev, (nblocks,), (_i64(m), _i64(nnz), indptr, indices, data, starts, x, _i64(incx), y, _i64(incy), a, b,
                              _i32(beta_zero), _i32(conj), partials))
        SPMV_KERNELS[value_name("csrmv_fixup", data.dtype, indptr.dtype)](
            dev, (fixup_grid,), (_i64(nnz), _i64(nblocks), indptr, starts, partials, y, _i64(incy), a, b,
                                 _i32(beta_zero)))


def scale(n, y, incy, beta, beta_zero):
    """``y := beta y`` (zeros when ``beta_zero``, without reading y)."""
    dev = _device(y)
    with launch.on_device(dev):
        SPMV_KERNELS[f"ra_rocsparse_scale<{_ct(y.dtype)}>"](
            dev, (grid_for(n, BLOCK * 4),), (_i64(n), y, _i64(incy), scalar(beta, y.dtype), _i32(beta_zero)))


def scale_matrix(C, beta, beta_zero):
    """``C := beta C`` for a 2-D array of any strides (zeros when ``beta_zero``, without reading C),
    through CuPy's array operations."""
    with launch.on_device(_device(C)):
        if beta_zero:
            C.fill(0)
        else:
            C *= scalar(beta, C.dtype)


def positions(nnz, like):
    """``0 .. nnz - 1`` on ``like``'s device (int32 when it fits, else int64), through CuPy."""
    cupy = backend.cupy()
    with launch.on_device(_device(like)):
        return cupy.arange(nnz, dtype=numpy.int32 if nnz < 2**31 else numpy.int64)


def gather(data, perm):
    """``data[perm]`` (the values of the transpose in its order), through CuPy's ``take``."""
    with launch.on_device(_device(data)):
        return data.take(perm)


def mm_rows(m, ncols, indptr, indices, data, B, sb, C, sc, alpha, beta, beta_zero, conj):
    """``C := alpha op(A) B + beta C``, a warp per (row, warp-wide column chunk); ``sb``/``sc``:
    (row, column) strides of B and C in elements."""
    dev = _device(data)
    ws = warp_size(dev)
    work = int(m) * -(-int(ncols) // ws)
    with launch.on_device(dev):
        SPMM_KERNELS[value_name("csrmm_rows", data.dtype, indptr.dtype)](
            dev, (grid_for(work, BLOCK // ws),),
            (_i64(m), _i64(ncols), indptr, indices, data, B, _i64(sb[0]), _i64(sb[1]), C, _i64(sc[0]), _i64(sc[1]),
             scalar(alpha, data.dtype), scalar(beta, data.dtype), _i32(beta_zero), _i32(conj)))


def mm_cols(lanes, m, ncols, indptr, indices, data, B, sb, C, sc, alpha, beta, beta_zero, conj):
    """``C := alpha op(A) B + beta C`` with ``lanes`` threads per row of A over its elements,
    :data:`SPMM_COLS` columns per pass."""
    dev = _device(data)
    rows_per_block = BLOCK // min(int(lanes), warp_size(dev))
    with launch.on_device(dev):
        SPMM_KERNELS[cols_name(data.dtype, indptr.dtype, lanes)](
            dev, (grid_for(m, rows_per_block),),
            (_i64(m), _i64(ncols), indptr, indices, data, B, _i64(sb[0]), _i64(sb[1]), C, _i64(sc[0]), _i64(sc[1]),
             scalar(alpha, data.dtype), scalar(beta, data.dtype), _i32(beta_zero), _i32(conj)))
