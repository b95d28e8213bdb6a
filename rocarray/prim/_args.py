"""The argument check every ``rocarray.prim`` entry point makes on its device arrays."""

import numpy

from rocarray._core import launch


def device_array(x, name, where, dtypes=None):
    """Return ``x`` if it is a ``cupy.ndarray`` (of one of ``dtypes`` when given), else raise ``TypeError``.

    Parameters
    ----------
    x : object
        The argument.
    name : str
        Its name, for the message.
    where : str
        The primitive family, e.g. ``'prim scan'`` (the message prefix).
    dtypes : container of numpy.dtype, optional
        The dtypes the kernels take.
    """
    cupy = launch.cupy()
    if not isinstance(x, cupy.ndarray):
        if isinstance(x, numpy.ndarray):
            raise TypeError(f"{where}: {name} is a host (NumPy) array; move it with ra.asarray() first")
        raise TypeError(f"{where}: {name} must be a cupy.ndarray, not {type(x).__name__}")
    if dtypes is not None and x.dtype not in dtypes:
        raise TypeError(f"{where}: unsupported dtype {x.dtype.name}")
    return x


#: Every dtype the prim façades take (NumPy's names), for the self-checks.
ALL_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64", "complex64", "complex128")
