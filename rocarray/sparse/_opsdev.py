"""The device interface of the sparse operations (``_arith``, ``_reduce``, ``_index``, ``_construct``).

Every array operation of those modules goes through the array module :func:`xp` (CuPy), and every
library call through the few functions here, so CPU tests replace them with NumPy stand-ins and run
the façade logic unchanged. Library functions are looked up on their packages at call time
(``rocarray.rocsparse``, ``rocarray.prim``): the façade depends only on their public names.
"""

import numpy

from rocarray import prim, rocsparse
from rocarray._core import backend

_INT32_MAX = numpy.iinfo(numpy.int32).max

#: Value types the rocsparse kernels compute in.
KERNEL_DTYPES = tuple(numpy.dtype(t) for t in ("float32", "float64", "complex64", "complex128"))


def xp():
    """The array module of device arrays (CuPy)."""
    return backend.cupy()


def require_device():
    """``NoDeviceError`` without a GPU: for functions that make arrays from host arguments alone
    (no device array in, so no other call would say it first)."""
    backend.device_info()


def is_matrix(x):
    """True for a ``*_matrix`` (spmatrix semantics), False for a ``*_array``: the contract's class
    names (``spmatrix``, ``csr_matrix``, ...) in the class's MRO."""
    return any(k.__name__ == "spmatrix" or k.__name__.endswith("_matrix") for k in type(x).__mro__)


def index_dtype(*maxvals, like=()):
    """SciPy's index dtype rule: int32 when every value fits in int32 and no source index array
    (dtypes ``like``) is int64, else int64."""
    small = all(int(v) <= _INT32_MAX for v in maxvals) and all(numpy.dtype(d).itemsize <= 4 for d in like)
    return numpy.dtype(numpy.int32 if small else numpy.int64)


def csrgeam(m, n, alpha, a_parts, beta, b_parts, canonical):
    """``alpha A + beta B`` of two CSR matrices given as ``(indptr, indices, data)`` (canonical
    result); ``canonical`` says both inputs are, so the library skips sorting them."""
    return rocsparse.csrgeam(m, n, alpha, *a_parts, beta, *b_parts, canonical=canonical)


def csr_multiply(m, n, a_parts, b_parts, canonical):
    """Elementwise product of two CSR matrices given as ``(indptr, indices, data)`` (canonical
    result); ``canonical`` as in :func:`csrgeam`."""
    return rocsparse.csr_multiply(m, n, *a_parts, *b_parts, canonical=canonical)


def csr2csc(m, n, indptr, indices, data):
    """CSR parts of the transpose (``rocsparse.csr2csc``)."""
    return rocsparse.csr2csc(m, n, indptr, indices, data)


def segmented_sum(x, heads, dtype):
    """Inclusive sum of 1-D ``x`` restarting where ``heads`` is true, in ``dtype``."""
    return prim.segmented_inclusive_scan(x, heads, op="add", dtype=dtype)


def segmented_sort(keys, offsets):
    """Ascending sort of every segment ``keys[offsets[s]:offsets[s + 1]]`` (NaNs last)."""
    return prim.segmented_radix_sort_keys(keys, offsets)


def host_int(x):
    """A device integer scalar or 0-d array as a Python int (one synchronization)."""
    return int(x)


def host_ints(x):
    """A small 1-D device integer array as a list of Python ints (one synchronization)."""
    return [int(v) for v in x.tolist()]
