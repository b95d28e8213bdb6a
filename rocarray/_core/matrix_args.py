"""Argument checks of the column-major, reference-BLAS/LAPACK-style library functions (rocblas,
rocsolver): sizes, character options, dtypes, matrix buffers and leading dimensions.

Every function takes ``where``, the message prefix naming the public function
(``'rocblas.gemm'``, ``'rocsolver.getrf'``), and raises NumPy's kinds of errors:

* ``TypeError``: a non-integer size, an unsupported dtype, a buffer that is not a device array;
* ``ValueError``: a negative size, an invalid character option (naming it), a leading dimension
  too small, a buffer too short for what the sizes describe or not aligned to its element.

A matrix is column-major with a leading dimension: element (i, j) at ``A[i + j * ld]`` of a
contiguous 1-D buffer or a Fortran-ordered 2-D array; nothing is copied.
"""

import numpy

from rocarray._core import args as _args

F16 = numpy.dtype(numpy.float16)
F32 = numpy.dtype(numpy.float32)
F64 = numpy.dtype(numpy.float64)
C64 = numpy.dtype(numpy.complex64)
C128 = numpy.dtype(numpy.complex128)

#: The four BLAS/LAPACK types (s, d, c, z).
STANDARD = (F32, F64, C64, C128)

#: Required alignment of a buffer's data pointer, in bytes (``ra_c64``/``ra_c128`` are aligned structs).
ALIGNMENT = {F16: 2, F32: 4, F64: 8, C64: 8, C128: 16}

#: The values of each character option (upper case; the checks take either case).
OPTIONS = {
    "trans": ("N", "T", "C"),
    "transA": ("N", "T", "C"),
    "transB": ("N", "T", "C"),
    "uplo": ("U", "L"),
    "diag": ("N", "U"),
    "side": ("L", "R"),
}

#: 16-bit types the vendor libraries have that a routine may not take.
_SIXTEEN_BIT = ("float16", "bfloat16")


def size(value, name, where):
    """A non-negative integer size (or stride, or batch count)."""
    value = _args.as_int(value, name, where)
    if value < 0:
        raise ValueError(f"{where}: {name} must be >= 0, got {value}")
    return value


def option(value, name, where, allowed=None):
    """A character option, upper-cased (``'n'`` and ``'N'`` alike); ``ValueError`` naming it if
    invalid. ``allowed`` defaults to the values of :data:`OPTIONS` for ``name``."""
    allowed = OPTIONS[name] if allowed is None else allowed
    if isinstance(value, str) and value.upper() in allowed:
        return value.upper()
    raise ValueError(f"{where}: {name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")


def dtype_names(dtypes):
    """``'float32, float64'`` for a sequence of dtypes."""
    return ", ".join(d.name for d in dtypes)


def supported_dtype(dtype, supported, where):
    """``numpy.dtype(dtype)`` if it is in ``supported``, else ``TypeError`` (saying "not supported
    yet" for the 16-bit types the vendor libraries have and this routine does not take)."""
    dtype = numpy.dtype(dtype)
    if dtype not in supported:
        names = dtype_names(supported)
        if dtype.name in _SIXTEEN_BIT:
            raise TypeError(f"{where}: {dtype.name} is not supported yet; supported: {names}")
        raise TypeError(f"{where}: unsupported dtype {dtype.name}; supported: {names}")
    return dtype


def matrix_buffer(A, name, where):
    """``A`` if it is a contiguous 1-D device buffer or a Fortran-ordered 2-D device array."""
    _args.device_array(A, name, where)
    flat = A.ndim <= 1 and (A.size <= 1 or A.strides[0] == A.dtype.itemsize)
    if not (flat or (A.ndim == 2 and A.flags.f_contiguous)):
        raise ValueError(
            f"{where}: {name} must be a contiguous 1-D buffer or a Fortran-ordered 2-D array, "
            f"got shape {A.shape} with strides {A.strides}"
        )
    return A


def leading_dimension(ld, rows, name, where):
    """A leading dimension of a matrix with ``rows`` rows: an integer ``>= max(1, rows)``."""
    ld = _args.as_int(ld, name, where)
    if ld < max(1, rows):
        raise ValueError(f"{where}: {name} must be >= max(1, {rows}), got {ld}")
    return ld


def matrix_bounds(X, rows, cols, ld, name, where, batch=1, stride=0):
    """``batch`` column-major ``rows x cols`` matrices (both > 0), ``stride`` elements apart, fit in
    ``X``, which is element-aligned."""
    need = (batch - 1) * stride + (cols - 1) * ld + rows
    if need > X.size:
        what = f"a {rows} x {cols} matrix" if batch == 1 else f"{batch} {rows} x {cols} matrices {stride} apart"
        raise ValueError(
            f"{where}: {what} with ld{name.lower()}={ld} needs {need} elements of {name}, but the buffer has {X.size}"
        )
    align = ALIGNMENT.get(X.dtype, X.dtype.itemsize)
    if X.data.ptr % align:
        raise ValueError(f"{where}: {name} is not aligned to {align} bytes (data pointer 0x{X.data.ptr:x})")
