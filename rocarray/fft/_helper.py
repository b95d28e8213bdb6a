"""``numpy.fft`` helpers on the device: ``fftfreq``, ``rfftfreq``, ``fftshift``, ``ifftshift``.

Same arguments, dtypes and errors as NumPy 2.x; the arrays are built on the device (CuPy
``arange``/``roll``). ``device`` accepts None or ``"cpu"`` (NumPy's only value; either gives an
array on the current device) or a ``cupy.cuda.Device`` (the Array API standard's device: the
result lives there); anything else raises ``ValueError``. The frequency functions also take the
standard's keyword-only ``dtype`` (a real floating dtype; default float64, as NumPy). Host (NumPy) arrays passed to the
shifts raise ``TypeError`` (the project rule, see :mod:`rocarray._core.args`).
"""

import numbers
import operator

import numpy

from rocarray._core import backend
from rocarray._core.args import as_device_array
from rocarray._numpy.array_api import device_scope


def _check_dtype(dtype):
    if dtype is None:
        return None
    dtype = numpy.dtype(dtype)
    if dtype.kind != "f":
        raise ValueError(f"dtype must be a real floating dtype, got {dtype}")
    return dtype


def _with_dtype(result, dtype):
    return result if dtype is None else result.astype(dtype, copy=False)


def _check_int(n):
    if isinstance(n, (bool, numpy.bool_)):
        raise TypeError(f"expected a sequence of integers or a single integer, got '{n}'")
    if not isinstance(n, (numbers.Integral, numpy.integer)):
        raise ValueError("n should be an integer")
    return operator.index(n)


def _frequencies(k, val):
    """``k * val`` in NumPy's dtype for an integer array times ``val`` (float64, complex128 for
    complex ``val``), with the same rounding (``val`` is widened first, then one multiply)."""
    dtype = numpy.result_type(numpy.empty(0, numpy.int_), val)
    return k.astype(dtype) * dtype.type(val)


def fftfreq(n, d=1.0, device=None, *, dtype=None):
    """Sample frequencies of a length-``n`` DFT (``numpy.fft.fftfreq``).

    ``[0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d * n)``.

    Parameters
    ----------
    n : int
        Window length.
    d : scalar, optional
        Sample spacing (default 1.0).
    device : None, "cpu" or cupy.cuda.Device, optional
        Where the result lives (None and NumPy's "cpu": the current device).
    dtype : data-type, optional
        Real floating result dtype (the Array API standard's keyword); default: NumPy's.

    Returns
    -------
    cupy.ndarray
        Length ``n``, float64 (complex128 for a complex ``d``).

    Examples
    --------
    >>> ra.fft.fftfreq(4)   # doctest: +SKIP
    array([ 0.  ,  0.25, -0.5 , -0.25])
    """
    scope = device_scope(device)
    dtype = _check_dtype(dtype)
    size = _check_int(n)
    if size < 0:
        raise ValueError("negative dimensions are not allowed")
    val = 1.0 / (n * d)  # ZeroDivisionError for n == 0 or d == 0, as NumPy
    backend.device_info()  # NoDeviceError without a GPU, before CuPy allocates
    with scope:
        k = backend.cupy().arange(size, dtype=numpy.int_)
        k[(size + 1) // 2:] -= size
        return _with_dtype(_frequencies(k, val), dtype)


def rfftfreq(n, d=1.0, device=None, *, dtype=None):
    """Sample frequencies of :func:`~rocarray.fft.rfft` of length ``n`` (``numpy.fft.rfftfreq``).

    ``[0, 1, ..., n // 2] / (d * n)``.

    Parameters
    ----------
    n : int
        Window length.
    d : scalar, optional
        Sample spacing (default 1.0).
    device : None, "cpu" or cupy.cuda.Device, optional
        Where the result lives (None and NumPy's "cpu": the current device).
    dtype : data-type, optional
        Real floating result dtype (the Array API standard's keyword); default: NumPy's.

    Returns
    -------
    cupy.ndarray
        Length ``n // 2 + 1``, float64 (complex128 for a complex ``d``).

    Examples
    --------
    >>> ra.fft.rfftfreq(4)   # doctest: +SKIP
    array([0.  , 0.25, 0.5 ])
    """
    scope = device_scope(device)
    dtype = _check_dtype(dtype)
    size = _check_int(n)
    val = 1.0 / (n * d)  # ZeroDivisionError for n == 0 or d == 0, as NumPy
    backend.device_info()  # NoDeviceError without a GPU, before CuPy allocates
    with scope:
        k = backend.cupy().arange(max(size // 2 + 1, 0), dtype=numpy.int_)
        return _with_dtype(_frequencies(k, val), dtype)


def _shifts(x, axes, sign):
    if axes is None:
        axes = tuple(range(x.ndim))
        shift = [sign * (dim // 2) for dim in x.shape]
    elif isinstance(axes, (numbers.Integral, numpy.integer)):
        shift = sign * (x.shape[axes] // 2)
    else:
        shift = [sign * (x.shape[ax] // 2) for ax in axes]
    return shift, axes


def fftshift(x, axes=None):
    """Move the zero-frequency term to the centre (``numpy.fft.fftshift``).

    Parameters
    ----------
    x : cupy.ndarray
        Input.
    axes : int or sequence of int, optional
        Axes to shift (default all).

    Returns
    -------
    cupy.ndarray
        ``x`` rolled by ``x.shape[ax] // 2`` along each axis.

    Examples
    --------
    >>> ra.fft.fftshift(ra.fft.fftfreq(5))   # doctest: +SKIP
    array([-0.4, -0.2,  0. ,  0.2,  0.4])
    """
    x = as_device_array(x, "x", allow_scalar=True)
    shift, axes = _shifts(x, axes, 1)
    return backend.cupy().roll(x, shift, axes)


def ifftshift(x, axes=None):
    """Inverse of :func:`fftshift` (``numpy.fft.ifftshift``); the same for even lengths.

    Parameters
    ----------
    x : cupy.ndarray
        Input.
    axes : int or sequence of int, optional
        Axes to shift (default all).

    Returns
    -------
    cupy.ndarray
        ``x`` rolled by ``-(x.shape[ax] // 2)`` along each axis.

    Examples
    --------
    >>> ra.fft.ifftshift(ra.fft.fftshift(ra.arange(5)))   # doctest: +SKIP
    array([0, 1, 2, 3, 4])
    """
    x = as_device_array(x, "x", allow_scalar=True)
    shift, axes = _shifts(x, axes, -1)
    return backend.cupy().roll(x, shift, axes)
