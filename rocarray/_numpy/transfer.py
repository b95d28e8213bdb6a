"""Moving data between host and device: ``ra.asarray`` and ``ra.asnumpy``."""

import numbers

import numpy

from rocarray._core import backend
from rocarray._numpy.array_api import device_scalar, device_scope


def asarray(a, dtype=None, order=None, *, device=None, copy=None):
    """Convert the input to a device array (``cupy.ndarray``).

    Parameters
    ----------
    a : array_like
        NumPy arrays, CuPy arrays, nested sequences, scalars, or objects exposing DLPack or
        ``__cuda_array_interface__``.
    dtype : data-type, optional
        Result dtype; default: inferred as NumPy would.
    order : {'C', 'F', 'A', 'K'}, optional
        Memory layout of the result.
    device : None or cupy.cuda.Device, optional
        Where the result lives (default: the current device; ``"cpu"``, NumPy's only value, is
        accepted and also means the current device).
    copy : bool, optional
        ``True`` always copies; ``False`` never copies (``ValueError`` where a copy is needed, as
        NumPy: host data, another device); ``None`` (default) copies only when
        needed.

    Returns
    -------
    cupy.ndarray

    Raises
    ------
    NoDeviceError
        Without CuPy or a GPU.

    Examples
    --------
    >>> import numpy as np, rocarray as ra
    >>> x = ra.asarray(np.arange(3.0))   # doctest: +SKIP
    """
    cupy = backend.cupy()
    backend.device_info()  # a clear NoDeviceError before CuPy's own error
    with device_scope(device):
        if copy is not False and _host_scalar(a):
            return device_scalar(a, dtype)
        if copy:
            return cupy.array(a, dtype=dtype, order=order or "K", copy=True)
        if copy is False:
            if isinstance(a, (numpy.ndarray, numpy.generic, list, tuple, numbers.Number)):
                raise ValueError("asarray(copy=False): host data must be copied to the device")
            if isinstance(device, cupy.cuda.Device) and isinstance(a, cupy.ndarray) and a.device != device:
                raise ValueError(f"asarray(copy=False): the array is on {a.device}, not {device}")
        return cupy.asarray(a, dtype=dtype, order=order, copy=copy)


def _host_scalar(a):
    """A Python or NumPy scalar, or a 0-d NumPy array."""
    return isinstance(a, (numbers.Number, numpy.generic)) or (isinstance(a, numpy.ndarray) and a.ndim == 0)


def asnumpy(a, stream=None, order="C", out=None):
    """Copy a device array to a host ``numpy.ndarray`` (host inputs are returned as arrays).

    Parameters
    ----------
    a : array_like
    stream : cupy.cuda.Stream, optional
    order : {'C', 'F', 'A'}, optional
    out : numpy.ndarray, optional

    Returns
    -------
    numpy.ndarray
    """
    cupy = backend.cupy_module()
    if cupy is None:
        import numpy

        return numpy.asarray(a, order=order)
    return cupy.asnumpy(a, stream=stream, order=order, out=out)
