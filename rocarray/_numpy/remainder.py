"""``remainder`` (``mod``) with NumPy's floating-point results.

CuPy computes a floating-point remainder as ``x1 - floor(x1 / x2) * x2``, which gives NaN for a
finite ``x1`` and an infinite ``x2`` and +0.0 where the result is a zero with the divisor's sign.
NumPy (and the Array API standard) define it from ``fmod``: ``m = fmod(x1, x2)``; where ``m`` is
not zero and its sign differs from ``x2``'s, ``m + x2``; a zero result takes ``x2``'s sign; a zero
divisor gives NaN. Floating-point calls run that definition in one elementwise kernel (float16 in
float32, rounded once, as NumPy does); integer and boolean calls are CuPy's, which agree with
NumPy.
"""

import numpy

from rocarray._core import backend
from rocarray._user import profile as _profile
from rocarray._user.kernels import ElementwiseKernel

_FLOAT_REMAINDER = ElementwiseKernel(
    "T x1, T x2", "T y",
    """
    const T m = fmod(x1, x2);
    if (x2 == (T)0) {
        y = m;
    } else if (m != (T)0) {
        y = ((x2 < (T)0) != (m < (T)0)) ? m + x2 : m;
    } else {
        y = copysign((T)0, x2);
    }
    """,
    "ra_numpy_remainder",
)


def _operand_for_dtype(value, cupy):
    """What ``numpy.result_type`` should see for ``value``: an array's dtype, a scalar as itself
    (so that Python scalars stay weak, as in NumPy 2)."""
    return value.dtype if isinstance(value, cupy.ndarray) else value


def remainder(x1, x2, /, out=None, **kwargs):
    """Element-wise remainder of division with the sign of the divisor (``numpy.remainder``).

    Parameters
    ----------
    x1, x2 : cupy.ndarray or scalar
        Dividend and divisor; they broadcast.
    out : cupy.ndarray or tuple of one cupy.ndarray, optional
        Where to write the result (its dtype must be one the result casts to, ``same_kind``).
    **kwargs
        The other ufunc keywords (``where``, ``casting``, ``dtype``, ...): the call then goes to
        CuPy's ufunc, whose floating-point results differ from NumPy's for infinite divisors and
        zero results.

    Returns
    -------
    cupy.ndarray
        ``x1 - floor(x1 / x2) * x2`` as NumPy computes it: for floating point ``fmod(x1, x2)``
        moved into the divisor's sign, a zero with the divisor's sign, NaN for a zero divisor;
        ``x1`` (or ``x2`` when the signs differ) for a finite ``x1`` and infinite ``x2``.
    """
    backend.device_info()  # a clear NoDeviceError before CuPy's own error
    cupy = backend.cupy()
    fallthrough = _profile.fallthrough(cupy.remainder, "remainder")
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError(f"remainder: out must be one array, got a tuple of {len(out)}")
        out = out[0]
    operands = (x1, x2)
    plain = all(isinstance(v, (cupy.ndarray, int, float, bool, numpy.generic)) for v in operands)
    if kwargs or not plain or not any(isinstance(v, cupy.ndarray) for v in operands):
        return fallthrough(x1, x2, out=out, **kwargs) if out is not None else fallthrough(x1, x2, **kwargs)
    dtype = numpy.result_type(*(_operand_for_dtype(v, cupy) for v in operands))
    if dtype.kind != "f":
        return fallthrough(x1, x2, out=out) if out is not None else fallthrough(x1, x2)
    if out is not None and not isinstance(out, cupy.ndarray):
        raise TypeError(f"remainder: out must be a cupy.ndarray, got {type(out).__name__}")
    if out is not None and not numpy.can_cast(dtype, out.dtype, casting="same_kind"):
        raise TypeError(f"Cannot cast ufunc 'remainder' output from {dtype} to {out.dtype} "
                        f"with casting rule 'same_kind'")
    work = numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype
    args = [v.astype(work, copy=False) if isinstance(v, cupy.ndarray) else work.type(v) for v in operands]
    if out is not None and out.dtype == work:
        shape = numpy.broadcast_shapes(*(numpy.shape(a) for a in args))
        if out.shape != shape and numpy.broadcast_shapes(shape, out.shape) != out.shape:
            raise ValueError(f"remainder: out has shape {out.shape}, the result {shape}")
        return _FLOAT_REMAINDER(*args, out)
    result = _FLOAT_REMAINDER(*args)
    if dtype != work:
        result = result.astype(dtype)
    if out is None:
        return result
    out[...] = result
    return out


mod = remainder
