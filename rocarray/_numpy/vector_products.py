"""NumPy-named BLAS façade: ``dot``, ``vdot``, ``inner``.

One-dimensional floating-point and complex products run on :mod:`rocarray.rocblas` kernels (with
NumPy's dtype promotion first, and without copying strided or reversed views); every other case
(scalars, 2-D and N-D operands, integer and bool dtypes) is handed to the CuPy function of the same
name, which implements NumPy's semantics for it.
"""

import numpy

from rocarray._core import backend
from rocarray._core.args import as_device_array
from rocarray import rocblas

#: Result dtypes that rocblas' dot kernels handle (float16 accumulates in float32).
_KERNEL_DTYPES = frozenset(numpy.dtype(d) for d in ("float16", "float32", "float64", "complex64", "complex128"))


def _kernel_dtype(a, b):
    """NumPy's result dtype of a product of ``a`` and ``b`` if a rocblas kernel handles it, else None."""
    dtype = numpy.result_type(a.dtype, b.dtype)
    return dtype if dtype in _KERNEL_DTYPES else None


def _not_aligned(a, b):
    return ValueError(
        f"shapes {a.shape} and {b.shape} not aligned: {a.shape[0]} (dim 0) != {b.shape[0]} (dim 0)"
    )


def _operands(a, b):
    """Device operands of dot/inner and the kernel dtype when both are 1-D vectors a kernel takes.

    Returns ``(a, b, dtype)`` with ``dtype`` None when the case goes to CuPy; raises NumPy's
    "not aligned" ValueError for kernel-eligible vectors of different lengths.
    """
    a = as_device_array(a, "a", allow_scalar=True)
    b = as_device_array(b, "b", allow_scalar=True)
    dtype = _kernel_dtype(a, b) if a.ndim == 1 and b.ndim == 1 else None
    if dtype is not None and a.shape[0] != b.shape[0]:
        raise _not_aligned(a, b)
    return a, b, dtype


def _check_out(out, dtype):
    """NumPy's rule for ``dot(..., out=)`` with a 0-d result: exact dtype, 0-d, C-contiguous."""
    cupy = backend.cupy()
    if not isinstance(out, cupy.ndarray):
        if isinstance(out, numpy.ndarray):
            as_device_array(out, "out")  # raises the project's host-array TypeError
        raise TypeError("'out' must be an array")
    if out.dtype != dtype or out.shape != () or not out.flags.c_contiguous:
        raise ValueError(
            "output array is not acceptable (must have the right datatype, number of dimensions, "
            "and be a C-Array)"
        )
    return out


def _vector_dot(a, b, dtype, conjugate, result=None):
    """rocblas dot/dotc of two 1-D device arrays of equal length, promoted to ``dtype``."""
    if a.dtype != dtype:
        a = a.astype(dtype)
    if b.dtype != dtype:
        b = b.astype(dtype)
    if conjugate and dtype.kind == "c":
        return rocblas.dotc(a.size, a, 1, b, 1, result=result)
    return rocblas.dot(a.size, a, 1, b, 1, result=result)


def dot(a, b, out=None):
    """Dot product of two arrays (``numpy.dot``).

    For 1-D ``a`` and ``b`` whose promoted dtype is float16, float32, float64, complex64 or
    complex128 this runs rocarray's ``rocblas.dot`` kernel (strided and reversed views are read in
    place; only a dtype promotion copies). All other cases — a scalar operand, 2-D/N-D operands,
    integer or bool dtypes — are computed by ``cupy.dot`` with NumPy's semantics.

    Parameters
    ----------
    a, b : cupy.ndarray or scalar
        Device arrays (host NumPy arrays are rejected) or Python/NumPy scalars.
    out : cupy.ndarray, optional
        Where to write the result; it must have exactly the result's dtype and shape and be
        C-contiguous, as in NumPy.

    Returns
    -------
    cupy.ndarray
        The product; for two 1-D operands a 0-d device array (no synchronization).

    Raises
    ------
    TypeError
        A host (NumPy) array or another non-device object as ``a``, ``b`` or ``out``.
    ValueError
        Lengths that differ (``shapes (3,) and (4,) not aligned: ...``) or an unacceptable ``out``.

    See Also
    --------
    vdot, inner, rocarray.rocblas.dot

    Examples
    --------
    >>> import rocarray as ra
    >>> x = ra.asarray([1.0, 2.0, 3.0])   # doctest: +SKIP
    >>> ra.dot(x, x)                       # doctest: +SKIP
    array(14.)
    """
    cupy = backend.cupy()
    a, b, dtype = _operands(a, b)
    if dtype is not None:
        if out is not None:
            _check_out(out, dtype)
        return _vector_dot(a, b, dtype, conjugate=False, result=out)
    if out is not None and not isinstance(out, cupy.ndarray):
        _check_out(out, None)
    return cupy.dot(a, b, out=out)


def vdot(a, b):
    """Dot product of two flattened arrays, conjugating the first (``numpy.vdot``).

    Both operands are flattened in C order; complex ``a`` is conjugated. Float and complex
    operands (after NumPy's promotion) run on rocarray's ``rocblas.dotc``/``rocblas.dot`` kernels
    (1-D and contiguous operands are not copied); integer and bool operands are computed by
    ``cupy.vdot``.

    Parameters
    ----------
    a, b : cupy.ndarray
        Device arrays with the same number of elements (host NumPy arrays are rejected).

    Returns
    -------
    cupy.ndarray
        0-d device array.

    Raises
    ------
    TypeError
        A host (NumPy) array or another non-device object.
    ValueError
        Operands with different numbers of elements.

    See Also
    --------
    dot, rocarray.rocblas.dotc

    Examples
    --------
    >>> z = ra.asarray([1j, 2.0])   # doctest: +SKIP
    >>> ra.vdot(z, z)                # doctest: +SKIP
    array(5.+0.j)
    """
    cupy = backend.cupy()
    a = as_device_array(a, "a", allow_scalar=True)
    b = as_device_array(b, "b", allow_scalar=True)
    if a.size != b.size:
        raise ValueError(f"cannot reshape array of size {b.size} into shape ({a.size},)")
    dtype = _kernel_dtype(a, b)
    if dtype is None:
        return cupy.vdot(a, b)
    a = a if a.ndim == 1 else a.ravel()
    b = b if b.ndim == 1 else b.ravel()
    return _vector_dot(a, b, dtype, conjugate=True)


def inner(a, b):
    """Inner product over the last axes (``numpy.inner``).

    For 1-D float or complex operands (after NumPy's promotion) this is the unconjugated dot
    product on rocarray's ``rocblas.dot`` kernel, reading strided views in place. Scalars,
    N-D operands and integer/bool dtypes are computed by ``cupy.inner``.

    Parameters
    ----------
    a, b : cupy.ndarray or scalar
        Device arrays (host NumPy arrays are rejected) or scalars.

    Returns
    -------
    cupy.ndarray
        For two 1-D operands a 0-d device array.

    Raises
    ------
    TypeError
        A host (NumPy) array or another non-device object.
    ValueError
        Last dimensions that differ.

    See Also
    --------
    dot, vdot

    Examples
    --------
    >>> x = ra.asarray([1.0, 2.0])   # doctest: +SKIP
    >>> ra.inner(x, x)                # doctest: +SKIP
    array(5.)
    """
    cupy = backend.cupy()
    a, b, dtype = _operands(a, b)
    if dtype is not None:
        return _vector_dot(a, b, dtype, conjugate=False)
    return cupy.inner(a, b)
