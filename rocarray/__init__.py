"""rocarray: NumPy-compatible GPU arrays with hand-written HIP kernels (AMD and NVIDIA).

``import rocarray as ra``. Arrays are plain ``cupy.ndarray`` objects (``ra.ndarray is
cupy.ndarray``). Functions with a rocarray kernel come from rocarray; every other NumPy name
falls through to CuPy, so ``import rocarray as np`` scripts run unchanged.

Importing works on a machine without a GPU; the first call that needs one raises
:class:`NoDeviceError` saying what to install.
"""

import numpy as _numpy

from rocarray._version import __version__
from rocarray._core.errors import KernelCompileError, NoDeviceError, RocArrayError
from rocarray._core.backend import is_available
from rocarray._core.report import show_config
from rocarray._array_api import asarray, asnumpy
from rocarray._blas_api import dot, inner, vdot
from rocarray import linalg, rocblas

# dtypes and constants are NumPy's own objects (CuPy re-exports the same ones).
from numpy import (  # noqa: E402
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, float32, float64, complex64, complex128, intp, uintp,
    dtype, finfo, iinfo, e, pi, inf, nan, newaxis, euler_gamma,
)

__all__ = [
    "__version__", "NoDeviceError", "KernelCompileError", "RocArrayError", "is_available",
    "show_config", "asarray", "asnumpy", "dot", "vdot", "inner", "linalg", "rocblas",
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "intp", "uintp",
    "dtype", "finfo", "iinfo", "e", "pi", "inf", "nan", "newaxis", "euler_gamma",
]


def __getattr__(name):
    """Fall through to CuPy for NumPy names rocarray has no kernel for."""
    if name.startswith("__"):
        raise AttributeError(name)
    from rocarray._core import backend

    cupy = backend.cupy_module()
    if cupy is not None and hasattr(cupy, name):
        return getattr(cupy, name)
    if cupy is None and hasattr(_numpy, name):
        backend.require_cupy()  # raises NoDeviceError with the install hint
    raise AttributeError(f"module 'rocarray' has no attribute '{name}'")


def __dir__():
    names = set(globals()) | set(__all__)
    from rocarray._core import backend

    cupy = backend.cupy_module()
    if cupy is not None:
        names |= {n for n in dir(cupy) if not n.startswith("_")}
    return sorted(names)
