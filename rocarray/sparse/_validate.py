"""Argument checks of the sparse constructors, in SciPy's words.

Shapes, lengths and dtypes are always checked (metadata only). The index checks that read the
device (``indptr`` ends, index ranges, ``indptr`` order) run while
:func:`rocarray.config.sparse_checks_enabled` is true; they also find whether the indices are
sorted and free of duplicates, which sets the format flags. With checks off the indices are
trusted and the flags stay False.
"""

import operator

import numpy

from rocarray import rocsparse
from rocarray._core import backend
from rocarray._core import config as _config

_I32 = numpy.dtype(numpy.int32)
_I64 = numpy.dtype(numpy.int64)
_I32_MAX = numpy.iinfo(numpy.int32).max

#: The value dtypes SciPy stores in sparse arrays that exist on the device.
SUPPORTED_DTYPES = tuple(numpy.dtype(d) for d in ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
                                                  "int64", "uint64", "float32", "float64", "complex64",
                                                  "complex128"))
_SUPPORTED_NAMES = ("bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, longlong, ulonglong, "
                    "float32, float64, longdouble, complex64, complex128, clongdouble")


def checks_enabled():
    """Whether the device-reading index checks run (``rocarray.config.sparse_checks``)."""
    return _config.sparse_checks_enabled()


def check_dtype(dtype):
    """``dtype`` as a numpy dtype, or SciPy's ``ValueError`` for a dtype sparse arrays do not store."""
    dtype = numpy.dtype(dtype)
    if dtype not in SUPPORTED_DTYPES:
        raise ValueError(f"scipy.sparse does not support dtype {dtype.name}. The only supported types are: "
                         f"{_SUPPORTED_NAMES}.")
    return dtype


def index_dtype(*sizes):
    """SciPy's index dtype for these sizes: int32 when every one fits, else int64."""
    return _I32 if max((int(s) for s in sizes), default=0) <= _I32_MAX else _I64


def check_shape(shape):
    """A 2-tuple of non-negative Python ints, or SciPy's error."""
    try:
        shape = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise TypeError("'float' object cannot be interpreted as an integer") from None
    if len(shape) != 2:
        raise ValueError(f"shape must have length 2 (rocarray.sparse arrays are 2-D). Got new_shape={shape}")
    if shape[0] < 0 or shape[1] < 0:
        raise ValueError("'shape' elements cannot be negative")
    return shape


def is_shape(x):
    """Whether ``x`` is a 2-tuple of integers (a shape, for the constructors)."""
    if not isinstance(x, tuple) or len(x) != 2:
        return False
    try:
        operator.index(x[0]), operator.index(x[1])
    except TypeError:
        return False
    return True


def as_device(x, name):
    """A device array of ``x`` (host arrays and lists are copied to the device, like cupyx;
    ``NoDeviceError`` without a GPU)."""
    cupy = backend.cupy()
    if isinstance(x, cupy.ndarray):
        return x
    backend.device_info()
    return cupy.asarray(x)


def as_index_arrays(arrays, sizes):
    """The index arrays in one dtype: int32 or int64 arrays of one dtype are kept; otherwise
    (other integer widths, mixed widths, floats) SciPy's size rule picks the dtype and they are
    cast."""
    dtypes = {a.dtype for a in arrays}
    if len(dtypes) == 1 and next(iter(dtypes)) in (_I32, _I64):
        return arrays
    for a in arrays:
        if a.dtype.kind not in "iuf":
            raise ValueError(f"index arrays must be integers, got dtype {a.dtype.name}")
    idx = index_dtype(*sizes)
    return [a.astype(idx) for a in arrays]


def _scalar(x):
    return int(backend.cupy().asnumpy(x))


def compressed(data, indices, indptr, shape, fmt):
    """Check the parts of a CSR (``fmt='csr'``) or CSC matrix.

    Returns
    -------
    data, indices, indptr : cupy.ndarray
        The arrays, pruned to ``indptr[-1]`` elements when checks are on.
    sorted_, canonical : bool
        Known sorted indices / known canonical (False when unknown).
    """
    if data.ndim != 1 or indices.ndim != 1 or indptr.ndim != 1:
        raise ValueError("data, indices, and indptr should be 1-D")
    major, minor = (shape[0], shape[1]) if fmt == "csr" else (shape[1], shape[0])
    if indptr.size != major + 1:
        raise ValueError(f"index pointer size {indptr.size} should be {major + 1}")
    if indices.size != data.size:
        raise ValueError("indices and data should have the same size")
    if not checks_enabled():
        return data, indices, indptr, False, False
    # both ends in one read-back
    first, nnz = (int(v) for v in backend.cupy().asnumpy(indptr[::max(1, indptr.size - 1)])[[0, -1]])
    if first != 0:
        raise ValueError("index pointer should start with 0")
    if nnz > indices.size:
        raise ValueError("Last value of index pointer should be less than the size of index and data arrays")
    if nnz < indices.size:
        indices, data = indices[:nnz], data[:nnz]
    problems = rocsparse.check_matrix_csr(major, minor, indptr, indices)
    if "indptr" in problems:
        raise ValueError("indptr must be a non-decreasing sequence")
    if "too_large" in problems:
        raise ValueError(f"indices must be < {minor}")
    if "negative" in problems:
        raise ValueError("indices must be >= 0")
    sorted_ = "unsorted" not in problems
    return data, indices, indptr, sorted_, sorted_ and "duplicates" not in problems


def coo(data, row, col, shape):
    """Check the parts of a COO matrix; ``shape`` None infers it from the largest indices.

    Returns
    -------
    shape : tuple
    canonical : bool
        Known to be in row-major order without duplicates (False when unknown).
    """
    if data.ndim != 1 or row.ndim != 1 or col.ndim != 1:
        raise ValueError("coordinates and data arrays must be 1-D")
    if not (data.size == row.size == col.size):
        raise ValueError("all index and data arrays must have the same length")
    if shape is None:
        if data.size == 0:
            raise ValueError("cannot infer dimensions from zero sized index arrays")
        shape = (_scalar(row.max()) + 1, _scalar(col.max()) + 1)
    if not checks_enabled():
        return shape, False
    problems = rocsparse.check_matrix_coo(shape[0], shape[1], row, col)
    for axis, idx, big, neg in ((0, row, "row_too_large", "row_negative"), (1, col, "too_large", "negative")):
        if big in problems:
            raise ValueError(f"axis {axis} index {_scalar(idx.max())} exceeds matrix dimension {shape[axis]}")
        if neg in problems:
            raise ValueError(f"negative axis {axis} index: {_scalar(idx.min())}")
    return shape, not problems
