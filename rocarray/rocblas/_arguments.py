"""Argument checks and dtype tables shared by the rocBLAS routines (no device access).

Every public function checks its arguments with these before it touches the device, in rocBLAS's
order, with messages that start with ``rocblas.<function>:``:

* ``TypeError``: a buffer that is not a ``cupy.ndarray`` (a host NumPy array is named as such), an
  unsupported or mismatched dtype, a non-integer size or increment, a scalar that is not a host
  number, a complex scalar with real data;
* ``ValueError``: an invalid character option (naming it), a negative size, a zero increment where
  the reference BLAS forbids one, a leading dimension too small, a buffer too short for what the
  sizes describe or not aligned to its element.

Buffers follow the reference BLAS: a vector is ``(buffer, n, inc)`` (:func:`vector`), a matrix is
column-major with a leading dimension (:func:`matrix`, :func:`check_bounds`); nothing is copied.
"""

import numbers

import numpy

from rocarray._core import args as _args, backend, matrix_args as _matrix

F16, F32, F64, C64, C128 = _matrix.F16, _matrix.F32, _matrix.F64, _matrix.C64, _matrix.C128

#: The four BLAS types (s, d, c, z).
STANDARD = _matrix.STANDARD
REAL = (F32, F64)
COMPLEX = (C64, C128)
#: The BLAS types and float16 (the level-1 operations that take it).
WITH_HALF = (F16,) + STANDARD

ALIGNMENT = _matrix.ALIGNMENT
OPTIONS = _matrix.OPTIONS
dtype_names = _matrix.dtype_names


# --------------------------------------------------------------------------------------------
# integers and options
# --------------------------------------------------------------------------------------------

def as_int(value, name, fn):
    """``value`` as an ``int`` (``operator.index``), or ``TypeError`` naming it."""
    return _args.as_int(value, name, f"rocblas.{fn}")


def size(value, name, fn):
    """A non-negative integer size (or stride, or batch count)."""
    return _matrix.size(value, name, f"rocblas.{fn}")


def inc(value, name, fn):
    """A nonzero integer increment."""
    value = as_int(value, name, fn)
    if value == 0:
        raise ValueError(f"rocblas.{fn}: {name} must be nonzero, got 0")
    return value


def option(value, name, fn, allowed=None):
    """A BLAS character option, upper-cased (``'n'`` and ``'N'`` alike); ``ValueError`` naming it if
    invalid. ``allowed`` defaults to the values of :data:`OPTIONS` for ``name``."""
    return _matrix.option(value, name, f"rocblas.{fn}", allowed)


# --------------------------------------------------------------------------------------------
# dtypes
# --------------------------------------------------------------------------------------------

def check_supported(fn, dtype, supported):
    """``numpy.dtype(dtype)`` if it is in ``supported``, else ``TypeError`` (saying "not supported
    yet" for the 16-bit types rocBLAS has and this routine does not take)."""
    return _matrix.supported_dtype(dtype, supported, f"rocblas.{fn}")


# --------------------------------------------------------------------------------------------
# buffers
# --------------------------------------------------------------------------------------------

def require_device_array(x, name, fn, host_hint=None, kind="a cupy.ndarray"):
    """``x`` if it is a ``cupy.ndarray``, else ``TypeError`` (naming a host NumPy array as such;
    ``host_hint`` replaces the advice for one)."""
    if host_hint is None and kind == "a cupy.ndarray":
        return _args.device_array(x, name, f"rocblas.{fn}")
    if not isinstance(x, backend.cupy().ndarray):
        if isinstance(x, numpy.ndarray):
            raise TypeError(f"rocblas.{fn}: {name} is a host (NumPy) array; {host_hint}")
        raise TypeError(f"rocblas.{fn}: {name} must be {kind}, not {type(x).__name__}")
    return x


def check_buffer(x, name, fn):
    """``x`` if it is a 1-D device buffer (any view)."""
    require_device_array(x, name, fn)
    if x.ndim != 1:
        raise ValueError(f"rocblas.{fn}: {name} must be a 1-D buffer, got {x.ndim}-D shape {x.shape}")
    return x


def check_matrix_buffer(A, fn, name="A"):
    """``A`` if it is a contiguous 1-D device buffer or a Fortran-ordered 2-D device array."""
    return _matrix.matrix_buffer(A, name, f"rocblas.{fn}")


def check_ld(ld, rows, name, fn):
    """A leading dimension of a matrix with ``rows`` rows: an integer ``>= max(1, rows)``."""
    return _matrix.leading_dimension(ld, rows, name, f"rocblas.{fn}")


def check_bounds(X, rows, cols, ld, name, fn):
    """An ``rows x cols`` column-major matrix (both > 0) fits in X, which is element-aligned."""
    _matrix.matrix_bounds(X, rows, cols, ld, name, f"rocblas.{fn}")


class Vector:
    """A checked BLAS vector: ``n`` elements at ``ptr + i * step * itemsize`` (bytes), i in [0, n).

    ``ptr`` is a ``cupy.cuda.MemoryPointer`` to element 0 (it keeps the allocation alive) and
    ``step`` the signed distance between consecutive elements, in elements.
    """

    __slots__ = ("array", "ptr", "step", "n", "dtype")

    def __init__(self, array, ptr, step, n):
        self.array = array
        self.ptr = ptr
        self.step = step
        self.n = n
        self.dtype = array.dtype

    @property
    def address(self):
        return int(self.ptr.ptr)

    def reversed(self):
        """The same elements in the opposite order (for order-independent operations)."""
        if self.n <= 1:
            return Vector(self.array, self.ptr, 1, self.n)
        return Vector(self.array, self.ptr + (self.n - 1) * self.step * self.dtype.itemsize, -self.step, self.n)

    def sub(self, start, count):
        """Elements ``[start, start + count)``."""
        return Vector(self.array, self.ptr + start * self.step * self.dtype.itemsize, self.step, count)


def vector(x, n, inc, name, fn, write=False):
    """Check a BLAS (buffer, n, inc) triple and return its :class:`Vector` (``n > 0``).

    Element ``i`` of the BLAS vector is buffer element ``i * inc`` for ``inc >= 0`` and
    ``(n - 1 - i) * |inc|`` for ``inc < 0``; buffer element ``k`` is the 1-D view's element ``k``.

    Parameters
    ----------
    x : cupy.ndarray
        1-D device buffer (any view), already checked by the caller.
    n : int
        Number of elements, > 0.
    inc : int
        BLAS increment (negative walks from the far end).
    name, fn : str
        Argument and function names for messages.
    write : bool
        The vector is written: a zero increment (or a zero-stride view) is rejected, because
        parallel writes to one element have no defined order.

    Raises
    ------
    ValueError
        Misaligned buffer, stride not a multiple of the item size, zero increment on an output, or
        ``(n - 1) * |inc|`` past the end of the buffer.
    """
    itemsize = x.dtype.itemsize
    stride = x.strides[0]
    if stride % itemsize:
        raise ValueError(
            f"rocblas.{fn}: {name} has a stride of {stride} bytes, not a multiple of its "
            f"item size {itemsize}"
        )
    view_step = stride // itemsize if x.size > 1 else 1
    if write and n > 1 and (inc == 0 or view_step == 0):
        raise ValueError(
            f"rocblas.{fn}: {name} is written, so its increment (and view stride) must be nonzero, "
            f"got inc={inc}"
        )
    span = (n - 1) * abs(inc)
    if span >= x.size:
        raise ValueError(
            f"rocblas.{fn}: n={n} with inc{name}={inc} needs {span + 1} elements of {name}, "
            f"but the buffer has {x.size}"
        )
    ptr = x.data
    if ptr.ptr % ALIGNMENT[x.dtype]:
        raise ValueError(
            f"rocblas.{fn}: {name} is not aligned to {ALIGNMENT[x.dtype]} bytes "
            f"(data pointer 0x{ptr.ptr:x})"
        )
    if inc < 0:
        ptr = ptr + span * stride
    return Vector(x, ptr, inc * view_step, n)


class Matrix:
    """A checked column-major matrix: ``ptr`` (``cupy.cuda.MemoryPointer``) to element (0, 0), ``lda``."""

    __slots__ = ("ptr", "lda", "dtype")

    def __init__(self, ptr, lda, dtype):
        self.ptr = ptr
        self.lda = lda
        self.dtype = dtype

    @property
    def address(self):
        return int(self.ptr.ptr)

    def at(self, i, j):
        """The matrix whose element (0, 0) is this one's (i, j)."""
        return Matrix(self.ptr + (i + j * self.lda) * self.dtype.itemsize, self.lda, self.dtype)


def matrix(A, m, n, lda, fn):
    """Bounds and alignment of an ``m x n`` column-major matrix in A (``m, n > 0``)."""
    need = (n - 1) * lda + m
    if need > A.size:
        raise ValueError(
            f"rocblas.{fn}: an {m} x {n} matrix with lda={lda} needs {need} elements of A, "
            f"but the buffer has {A.size}"
        )
    if A.data.ptr % ALIGNMENT[A.dtype]:
        raise ValueError(
            f"rocblas.{fn}: A is not aligned to {ALIGNMENT[A.dtype]} bytes (data pointer 0x{A.data.ptr:x})"
        )
    return Matrix(A.data, lda, A.dtype)


# --------------------------------------------------------------------------------------------
# host scalars
# --------------------------------------------------------------------------------------------

def any_scalar(value, name, fn):
    """``value`` if it is a host (Python or NumPy) number, else ``TypeError``."""
    if not isinstance(value, (numbers.Number, numpy.number, numpy.bool_)):
        raise TypeError(
            f"rocblas.{fn}: {name} must be a host (Python or NumPy) number, not {type(value).__name__}"
        )
    return value


def is_complex_scalar(value):
    """Whether a host number is of a complex type (whatever its imaginary part)."""
    return isinstance(value, (complex, numpy.complexfloating)) or (
        isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real)
    )


def real_scalar(value, name, fn):
    """``value`` if it is a real host number, else ``TypeError``."""
    any_scalar(value, name, fn)
    if is_complex_scalar(value):
        raise TypeError(f"rocblas.{fn}: {name} must be real, got complex {value!r}")
    return value


def scalars(fn, dtype, **values):
    """Host numbers; complex ones only for complex ``dtype``."""
    for name, value in values.items():
        any_scalar(value, name, fn)
        if dtype.kind != "c" and is_complex_scalar(value):
            raise TypeError(f"rocblas.{fn}: complex {name} needs complex data, got {dtype.name}")


def scalar_type(dtype, real=False):
    """The NumPy type a kernel takes a host scalar in for elements of ``dtype``: float32 for
    float16/float32/complex64 data (real scalars), float64 for float64/complex128, complex64 or
    complex128 for complex scalars of complex data (``real=False``)."""
    dtype = numpy.dtype(dtype)
    if real or dtype.kind != "c":
        return numpy.float32 if dtype in (F16, F32, C64) else numpy.float64
    return numpy.complex64 if dtype == C64 else numpy.complex128


def scalar_arg(value, dtype, real=False):
    """The NumPy scalar passed to a kernel for a host scalar and an element dtype (:func:`scalar_type`)."""
    return scalar_type(dtype, real)(value)
