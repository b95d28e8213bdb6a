"""The façade's argument rules for ``numpy.linalg`` functions on stacked ``(..., M, N)`` arrays:
NumPy's dtype promotion and NumPy's ``LinAlgError`` messages, and the column-major batch layout the
rocsolver routines take."""

import numpy

from rocarray._core import args as _args

LinAlgError = numpy.linalg.LinAlgError

_SINGLE = (numpy.dtype(numpy.float32), numpy.dtype(numpy.complex64))


def linalg_dtype(*dtypes):
    """The dtype ``numpy.linalg`` computes in and returns for inputs of ``dtypes``: float32 or
    complex64 when every input is single precision, else float64 or complex128 (integers and bools
    count as float64); ``TypeError`` for float16 and the extended types, as NumPy raises."""
    complex_, single = False, True
    for dtype in map(numpy.dtype, dtypes):
        if dtype.kind in "biu":
            single = False
            continue
        if dtype.kind not in "fc" or dtype.itemsize > 16 or dtype == numpy.float16 or (
                dtype.kind == "f" and dtype.itemsize > 8):
            raise TypeError(f"array type {dtype.name} is unsupported in linalg")
        complex_ |= dtype.kind == "c"
        single &= dtype in _SINGLE
    if complex_:
        return numpy.dtype(numpy.complex64 if single else numpy.complex128)
    return numpy.dtype(numpy.float32 if single else numpy.float64)


def stacked_2d(a, name="a"):
    """``a`` (a device array) if it has at least two dimensions, else NumPy's ``LinAlgError``."""
    a = _args.as_device_array(a, name)
    if a.ndim < 2:
        raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
    return a


def stacked_square(a, name="a"):
    """``a`` if it is a stack of square matrices, else NumPy's ``LinAlgError``."""
    a = stacked_2d(a, name)
    if a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")
    return a


def column_major_batch(a, dtype):
    """A new C-contiguous ``(..., N, M)`` array of ``dtype`` holding ``a``'s ``(..., M, N)``
    matrices transposed: each matrix column-major with leading dimension ``M``, one after another
    (stride ``M * N``) — the layout rocsolver's strided-batched routines work on in place. Its
    ``swapaxes(-1, -2)`` is the result as NumPy's ``(..., M, N)`` view."""
    return a.swapaxes(-1, -2).astype(dtype, order="C", copy=True)
