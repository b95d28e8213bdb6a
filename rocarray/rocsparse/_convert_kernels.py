"""The kernels of ``rocarray/_kernels/rocsparse/convert.hip``: their registration and launches.

This is the one small interface through which the conversions (:mod:`rocarray.rocsparse._convert`)
reach their own kernels. Every function takes contiguous 1-D device arrays, never checks (the
callers have) and queues work on the current stream. The CPU tests replace these functions with
NumPy stand-ins of the same contract.
"""

import numpy

from rocarray._core import backend, dtypes, kernels, launch
from rocarray._core import compile as _compile

SOURCE = "rocsparse/convert.hip"

#: Threads per block (``RA_ROCSPARSE_CONVERT_BLOCK``).
BLOCK = 256
#: Merge items (row ends plus elements) per tile of the row expansion and the CSR check
#: (``RA_ROCSPARSE_CONVERT_TILE``: 8 per thread).
TILE = BLOCK * 8
#: Resident blocks per multiprocessor assumed for the grid size.
BLOCKS_PER_MULTIPROCESSOR = 8

#: Index dtypes of the kernels.
INDEX_DTYPES = (numpy.dtype(numpy.int32), numpy.dtype(numpy.int64))
#: Value dtypes of the kernels that move or add values: every dtype SciPy stores in a sparse array.
VALUE_DTYPES = tuple(numpy.dtype(d) for d in ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
                                              "int64", "uint64", "float32", "float64", "complex64",
                                              "complex128"))


def kernel_name(op, *types):
    """Name expression, e.g. ``'ra_rocsparse_csr2dense<double, ra_i32>'``."""
    return f"ra_rocsparse_{op}<{', '.join(dtypes.ctype(t) for t in types)}>"


def instantiations():
    """Every name expression the conversions launch."""
    names = [kernel_name(op, i) for op in ("csr2coo", "flag_heads", "check_csr", "check_coo") for i in INDEX_DTYPES]
    names += [kernel_name("csr2coo_pairs", numpy.dtype(numpy.int32))]
    names += [kernel_name("sum_runs", v) for v in VALUE_DTYPES]
    names += [kernel_name("csr2dense", v, i) for v in VALUE_DTYPES for i in INDEX_DTYPES]
    return sorted(names)


_compile.register(SOURCE, instantiations())

KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def _launch(name, work, args, device_id):
    """One grid-stride launch of about a wave of blocks (fewer for little ``work``)."""
    kernel = KERNELS[name]
    grid = max(1, min(-(-int(work) // BLOCK), kernel.wave(device_id)))
    with launch.on_device(device_id):
        kernel(device_id, (grid,), args)


def _launch_tiles(name, m, nnz, args, device_id):
    """A launch over the merge-path tiles of an m-row matrix of ``nnz`` elements: at most one
    block per tile, about a wave of blocks (each takes a contiguous run of tiles)."""
    kernel = KERNELS[name]
    tiles = -(-(int(m) + int(nnz)) // TILE)
    grid = max(1, min(tiles, kernel.wave(device_id)))
    with launch.on_device(device_id):
        kernel(device_id, (grid,), args)


#: The status bits of the structure checks (``RA_ROCSPARSE_CHECK_*``) and their names.
CHECK_BITS = {1: "indptr", 2: "negative", 4: "too_large", 8: "unsorted", 16: "duplicates", 32: "row_negative",
              64: "row_too_large"}


def _i64(v):
    return numpy.int64(v)


def csr2coo(indptr, m, nnz):
    """Row index (``indptr.dtype``) of each of the ``nnz`` elements of an m-row CSR matrix."""
    row = backend.cupy().empty(int(nnz), dtype=indptr.dtype)
    if nnz:
        dev = indptr.data.device_id
        _launch_tiles(kernel_name("csr2coo", indptr.dtype), m, nnz, (indptr, _i64(m), _i64(nnz), row), dev)
    return row


def csr2coo_pairs(indptr, m, data):
    """uint64 ``row | data bits << 32`` of each element of an m-row CSR matrix with int32 index
    pointers and 4-byte values (``data``)."""
    nnz = data.size
    pairs = backend.cupy().empty(nnz, dtype=numpy.uint64)
    if nnz:
        _launch_tiles(kernel_name("csr2coo_pairs", indptr.dtype), m, nnz,
                      (indptr, _i64(m), _i64(nnz), data, pairs), indptr.data.device_id)
    return pairs


def unpack_pairs(pairs, low_dtype, high_dtype):
    """The low and high 32 bits of each uint64 in ``pairs``, as arrays of two 4-byte dtypes."""
    cupy = backend.cupy()
    low, high = cupy.empty(pairs.size, dtype=low_dtype), cupy.empty(pairs.size, dtype=high_dtype)
    if pairs.size:
        _launch("ra_rocsparse_unpack_pairs", pairs.size, (pairs, _i64(pairs.size), low, high), pairs.data.device_id)
    return low, high


def flag_heads(row, col):
    """bool flags: element k starts a run of equal ``(row, col)`` pairs."""
    nnz = row.size
    head = backend.cupy().empty(nnz, dtype=numpy.bool_)
    if nnz:
        _launch(kernel_name("flag_heads", row.dtype), nnz, (row, col, _i64(nnz), head), row.data.device_id)
    return head


def sum_runs(data, starts):
    """Sum of each run ``data[starts[g]:starts[g + 1]]`` (the last to the end); ``starts`` int64."""
    runs = starts.size
    out = backend.cupy().empty(runs, dtype=data.dtype)
    if runs:
        _launch(kernel_name("sum_runs", data.dtype), runs, (data, starts, _i64(runs), _i64(data.size), out),
                data.data.device_id)
    return out


def csr2dense(m, indptr, indices, data, out):
    """Add the elements of an m-row CSR matrix into the zeroed 2-D ``out`` (any element strides)."""
    if m and data.size:
        isz = out.dtype.itemsize
        args = (_i64(m), indptr, indices, data, out, _i64(out.strides[0] // isz), _i64(out.strides[1] // isz))
        _launch(kernel_name("csr2dense", data.dtype, indices.dtype), m, args, out.data.device_id)


def _check(op, m, n, major, minor, nnz):
    """Run a structure check; the names of the status bits it set."""
    cupy = backend.cupy()
    status = cupy.zeros(1, dtype=numpy.uint32)
    name, args, dev = kernel_name(op, minor.dtype), (_i64(m), _i64(n), major, minor, _i64(nnz), status), \
        minor.data.device_id
    if op == "check_csr" and m + nnz:
        _launch_tiles(name, m, nnz, args, dev)
    elif op == "check_coo" and nnz:
        _launch(name, nnz, args, dev)
    bits = int(cupy.asnumpy(status)[0])
    return frozenset(name for bit, name in CHECK_BITS.items() if bits & bit)


def check_csr(m, n, indptr, indices):
    """Structure check of an m x n CSR matrix with ``indptr[0] == 0``, ``indptr[m] == indices.size``."""
    return _check("check_csr", m, n, indptr, indices, indices.size)


def check_coo(m, n, row, col):
    """Structure check of an m x n COO matrix."""
    return _check("check_coo", m, n, row, col, row.size)
