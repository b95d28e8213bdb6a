"""Argument checks shared by the rocsparse functions (sizes, options, dtypes, shapes; no device access).

Every public function of :mod:`rocarray.rocsparse` checks its arguments with these before it
queues any work, with messages that start with ``rocsparse.<function>:`` and name the argument,
and NumPy's kinds of errors:

* ``TypeError``: a non-device array where a ``cupy.ndarray`` is expected (a host NumPy array is
  named as such), a non-integer size, index arrays that are not int32/int64 or not of one dtype
  within a matrix, a value dtype the function does not take, a dense operand not of the values'
  dtype, a scalar that is not a host number or is complex with real values, an analysis object
  of the wrong class;
* ``ValueError``: a negative size, an option outside its set, an array with the wrong number of
  dimensions or elements (``indptr`` not ``m + 1``, ``indices`` and ``data`` of different sizes,
  ``x``/``y``/``B``/``C`` not matching the shape and ``trans``), CSR/COO parts that are not
  contiguous, a dense output with a zero stride along an axis of more than one element, arrays
  on different devices, an analysis made for another matrix.

Only attributes are read (shape, dtype, strides, device number), so a check costs a few
comparisons and never waits for the device. The *values* of the index arrays (``indptr``
non-decreasing from 0 to ``nnz``, indices in range, sorted rows) are not checked here:
:func:`rocarray.rocsparse.check_matrix_csr` / :func:`~rocarray.rocsparse.check_matrix_coo` check
them with one wait for the device, and the ``rocarray.sparse`` constructors call them.
"""

import numbers

import numpy

from rocarray._core import args as _args
from rocarray._core import backend
from rocarray._core import matrix_args as _matrix
from rocarray.rocsparse._convert_kernels import VALUE_DTYPES as _STORED

#: Check the arguments (the way back: ``False`` skips every check of this module except the
#: conversions of sizes and ``trans``, as before the checks existed).
ENABLED = True

#: Index dtypes of every kernel.
INDEX_DTYPES = frozenset(numpy.dtype(d) for d in ("int32", "int64"))
#: Value dtypes of the arithmetic (products, sums, solves, factorizations).
VALUE_DTYPES = frozenset(_matrix.STANDARD)
#: Value dtypes the conversions move: every dtype SciPy stores in a sparse array.
STORED_DTYPES = frozenset(_STORED)

_NAMES = {VALUE_DTYPES: _matrix.dtype_names(_matrix.STANDARD), STORED_DTYPES: _matrix.dtype_names(_STORED),
          INDEX_DTYPES: "int32, int64"}


def _where(fn):
    return f"rocsparse.{fn}"


def size(value, name, fn):
    """A non-negative integer (``TypeError`` for a non-integer, ``ValueError`` below zero)."""
    if type(value) is int and value >= 0:
        return value
    return _matrix.size(value, name, _where(fn))


def trans(value, fn):
    """``'N'``, ``'T'`` or ``'C'`` (either case), upper-cased; ``ValueError`` otherwise."""
    if value == "N" or value == "T" or value == "C":
        return value
    return _matrix.option(value, "trans", _where(fn))


def array(x, name, fn):
    """``x`` if it is a device array (``cupy.ndarray``), else ``TypeError``."""
    if type(x) is not backend.cupy().ndarray:  # the common case without building a message prefix
        _args.device_array(x, name, _where(fn))
    return x


def flat(x, name, fn):
    """``x`` if it is a contiguous 1-D device array (the kernels take raw pointers)."""
    if not ENABLED:
        return x
    array(x, name, fn)
    if x.ndim != 1:
        raise ValueError(f"{_where(fn)}: {name} must be 1-D, got shape {x.shape}")
    if x.size > 1 and x.strides[0] != x.itemsize:
        raise ValueError(f"{_where(fn)}: {name} must be contiguous, got a stride of {x.strides[0]} bytes "
                         f"for {x.itemsize}-byte elements")
    return x


def dtype_in(x, name, fn, dtypes):
    """``TypeError`` unless ``x.dtype`` is one of ``dtypes`` (one of this module's sets)."""
    if not ENABLED:
        return
    if x.dtype not in dtypes:
        raise TypeError(f"{_where(fn)}: {name} has dtype {x.dtype.name}; supported: {_NAMES[dtypes]}")


def _device(x):
    # None for arrays without a device number (the NumPy arrays that play device arrays in the CPU tests)
    return getattr(x.data, "device_id", None)


def same_device(fn, first, *others):
    """``ValueError`` unless every ``(name, array)`` of ``others`` lives on ``first``'s device."""
    if not ENABLED:
        return
    dev = _device(first)
    for name, x in others:
        if _device(x) != dev:
            raise ValueError(f"{_where(fn)}: {name} is on device {_device(x)}, the matrix on device {dev}")


def pointers(fn, rows, indptr, name="indptr", rows_name="m"):
    """Check index pointers: contiguous 1-D, int32 or int64, ``rows + 1`` elements (at least one
    when ``rows`` is None); returns their dtype."""
    if not ENABLED:
        return indptr.dtype
    flat(indptr, name, fn)
    if indptr.dtype not in INDEX_DTYPES:
        raise TypeError(f"{_where(fn)}: {name} has dtype {indptr.dtype.name}; supported: int32, int64")
    if rows is None:
        if indptr.size == 0:
            raise ValueError(f"{_where(fn)}: {name} has no elements, expected m + 1 >= 1")
    elif indptr.size != rows + 1:
        raise ValueError(f"{_where(fn)}: {name} has {indptr.size} elements, expected {rows_name} + 1 = {rows + 1}")
    return indptr.dtype


def csr(fn, rows, indptr, indices, data=None, dtypes=VALUE_DTYPES, prefix="", rows_name="m"):
    """Check one matrix's CSR parts against its ``rows``; returns the index dtype.

    ``indptr``: contiguous 1-D, ``rows + 1`` elements, int32 or int64; ``indices``: contiguous 1-D
    of ``indptr``'s dtype; ``data`` (unless None): contiguous 1-D, ``indices``' size, a dtype of
    ``dtypes`` (None: any); all on one device. ``prefix`` names the matrix's arguments
    (``'a_'``), ``rows_name`` its row count in the messages.
    """
    if not ENABLED:
        return indptr.dtype
    nd = backend.cupy().ndarray
    # the common case in one expression (products are called in loops); the checks below say
    # what is wrong otherwise
    if (type(indptr) is nd and type(indices) is nd and indptr.ndim == 1 and indices.ndim == 1
            and indptr.size == rows + 1 and indptr.strides[0] == indptr.itemsize
            and (indices.strides[0] == indices.itemsize or indices.size <= 1)
            and indptr.dtype in INDEX_DTYPES and indices.dtype == indptr.dtype
            and (data is None or (type(data) is nd and data.ndim == 1 and data.size == indices.size
                                  and (data.strides[0] == data.itemsize or data.size <= 1)
                                  and (dtypes is None or data.dtype in dtypes)))):
        dev = _device(indptr)
        if _device(indices) == dev and (data is None or _device(data) == dev):
            return indptr.dtype
    index = pointers(fn, rows, indptr, prefix + "indptr", rows_name)
    flat(indices, prefix + "indices", fn)
    if indices.dtype != index:
        raise TypeError(f"{_where(fn)}: {prefix}indices has dtype {indices.dtype.name}, but {prefix}indptr has "
                        f"{index.name} (one index dtype per matrix)")
    if data is None:
        same_device(fn, indptr, (prefix + "indices", indices))
        return index
    flat(data, prefix + "data", fn)
    if data.size != indices.size:
        raise ValueError(f"{_where(fn)}: {prefix}data has {data.size} elements, but {prefix}indices has "
                         f"{indices.size}")
    if dtypes is not None:
        dtype_in(data, prefix + "data", fn, dtypes)
    same_device(fn, indptr, (prefix + "indices", indices), (prefix + "data", data))
    return index


def coo(fn, row, col, data=None, dtypes=STORED_DTYPES):
    """Check COO parts: ``row`` and ``col`` contiguous 1-D of one index dtype and one size,
    ``data`` (unless None) contiguous 1-D of that size and a dtype of ``dtypes``."""
    if not ENABLED:
        return row.dtype
    flat(row, "row", fn)
    flat(col, "col", fn)
    if row.dtype not in INDEX_DTYPES:
        raise TypeError(f"{_where(fn)}: row has dtype {row.dtype.name}; supported: int32, int64")
    if col.dtype != row.dtype:
        raise TypeError(f"{_where(fn)}: col has dtype {col.dtype.name}, but row has {row.dtype.name} "
                        f"(one index dtype per matrix)")
    if col.size != row.size:
        raise ValueError(f"{_where(fn)}: col has {col.size} elements, but row has {row.size}")
    if data is None:
        same_device(fn, row, ("col", col))
        return row.dtype
    flat(data, "data", fn)
    if data.size != row.size:
        raise ValueError(f"{_where(fn)}: data has {data.size} elements, but row has {row.size}")
    dtype_in(data, "data", fn, dtypes)
    same_device(fn, row, ("col", col), ("data", data))
    return row.dtype


def _strides(x, name, fn, write):
    """Element strides (no partial-element steps); a written array repeats no element."""
    if x.size == 0:
        return  # nothing is read or written (NumPy gives empty arrays zero strides)
    itemsize = x.itemsize
    for extent, stride in zip(x.shape, x.strides):
        if stride % itemsize:
            raise ValueError(f"{_where(fn)}: {name} has a stride of {stride} bytes, not a multiple of its "
                             f"{itemsize}-byte elements")
        if write and stride == 0 and extent > 1:
            raise ValueError(f"{_where(fn)}: {name} is written, so it cannot have a zero stride (a broadcast "
                             f"view); got strides {x.strides}")


def dense(x, name, fn, shape, what, dtype=None, like=None, write=False):
    """A dense operand (any strides; none zero along an axis of more than one element when
    ``write``) of ``shape`` (None: any extent along that axis; ``what`` spells the shape for the
    message, e.g. ``'(n,)'``), of ``dtype`` when given, and on the device of ``like`` when given
    (``(name, array)``: the array whose dtype and device it must share)."""
    if not ENABLED:
        return x
    if (type(x) is backend.cupy().ndarray and x.shape == shape and (dtype is None or x.dtype == dtype)
            and x.ndim == 1 and x.strides[0] % x.itemsize == 0 and (x.strides[0] or not write or x.size <= 1)
            and (like is None or _device(x) == _device(like[1]))):
        return x  # the common case of a vector in one expression
    array(x, name, fn)
    if x.shape != shape:
        if x.ndim != len(shape):
            raise ValueError(f"{_where(fn)}: {name} must be {len(shape)}-D, got shape {x.shape}")
        want = tuple(g if w is None else w for g, w in zip(x.shape, shape))
        if x.shape != want:
            raise ValueError(f"{_where(fn)}: {name} has shape {x.shape}, expected {what} = {want}")
    if dtype is not None and x.dtype != dtype:
        owner = like[0] if like is not None else "data"
        raise TypeError(f"{_where(fn)}: {name} has dtype {x.dtype.name}, expected {owner}'s {numpy.dtype(dtype).name}")
    _strides(x, name, fn, write)
    if like is not None and _device(x) != _device(like[1]):
        raise ValueError(f"{_where(fn)}: {name} is on device {_device(x)}, {like[0]} on device {_device(like[1])}")
    return x


_REAL_TYPES = frozenset((int, float, bool, numpy.float32, numpy.float64, numpy.int32, numpy.int64))
_COMPLEX_TYPES = frozenset((complex, numpy.complex64, numpy.complex128))


def _is_complex(value):
    return isinstance(value, (complex, numpy.complexfloating)) or (
        isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real))


def scalars(fn, dtype=None, **values):
    """Host (Python or NumPy) numbers; complex ones only for a complex ``dtype`` (None: any)."""
    if not ENABLED:
        return
    for name, value in values.items():
        kind = type(value)
        if kind in _REAL_TYPES or (kind in _COMPLEX_TYPES and (dtype is None or dtype.kind == "c")):
            continue  # the common cases, without the abstract base classes' slower checks
        if not isinstance(value, (numbers.Number, numpy.number, numpy.bool_)):
            raise TypeError(f"{_where(fn)}: {name} must be a host (Python or NumPy) number, not "
                            f"{type(value).__name__}")
        if dtype is not None and dtype.kind != "c" and _is_complex(value):
            raise TypeError(f"{_where(fn)}: complex {name} needs complex data, got {dtype.name}")


def analysis(fn, value, cls, hint="", **expected):
    """``value`` if it is a ``cls`` whose attributes equal ``expected`` (the matrix's), else
    ``TypeError`` (another class) or ``ValueError`` (an analysis of another matrix)."""
    if not ENABLED:
        return value
    if not isinstance(value, cls):
        raise TypeError(f"{_where(fn)}: analysis must be a {cls.__name__}, not {type(value).__name__}")
    for attr, want in expected.items():
        got = getattr(value, attr)
        if got != want:
            raise ValueError(f"{_where(fn)}: analysis has {attr}={got!r}, but this call needs {want!r} (an "
                             f"analysis of another matrix?){hint}")
    return value
