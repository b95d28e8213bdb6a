"""rocarray: NumPy-compatible GPU arrays with hand-written HIP kernels (AMD and NVIDIA).

``import rocarray as ra``. Arrays are plain ``cupy.ndarray`` objects (``ra.ndarray is
cupy.ndarray``). Functions with a rocarray kernel come from rocarray; every other NumPy name
falls through to CuPy, so ``import rocarray as np`` scripts run unchanged.

``rocarray`` (with ``rocarray.linalg`` and ``rocarray.fft``) is also a namespace of the Python
Array API standard, revision ``__array_api_version__`` (see :mod:`rocarray._numpy.array_api`).

Importing works on a machine without a GPU; the first call that needs one raises
:class:`NoDeviceError` saying what to install.
"""

import numpy as _np

from rocarray._version import __version__
from rocarray._core.errors import KernelCompileError, NoDeviceError, RocArrayError
from rocarray._core.backend import is_available
from rocarray._core.report import show_config
from rocarray._core.tuning import tune
from rocarray._core.workspace import free_workspaces
from rocarray._user.compile_check import compile_check
from rocarray._user.hipify import hipify
from rocarray._user import profile as _profile
from rocarray._user.profile import profile
from rocarray._user.kernels import ElementwiseKernel, RawKernel, RawModule, ReductionKernel
from rocarray._numpy.transfer import asarray, asnumpy
from rocarray._numpy.array_api import (  # noqa: A004  (NumPy names shadow builtins, like numpy)
    __array_api_version__, __array_namespace_info__, arange, astype, clip, empty, empty_like, eye,
    from_dlpack, full, full_like, linspace, meshgrid, ones, ones_like, repeat, reshape,
    std, take_along_axis, unstack, var, vecdot, zeros, zeros_like,
)
from rocarray._numpy.remainder import mod, remainder
from rocarray._numpy.vector_products import inner, vdot
from rocarray._numpy.matrix_products import dot, kron, matmul, outer, tensordot, trace
from rocarray._numpy.einsum import einsum
from rocarray._numpy.scans import cumprod, cumsum, nancumprod, nancumsum
from rocarray._numpy.histograms import bincount, histogram
from rocarray._numpy.reductions import (  # noqa: A004  (NumPy names shadow builtins, like numpy)
    all, amax, amin, any, argmax, argmin, count_nonzero, max, mean, min, nanargmax, nanargmin, nanmax,
    nanmean, nanmin, nanprod, nansum, prod, sum,
)
from rocarray._numpy.sorting import argpartition, argsort, lexsort, partition, sort, sort_complex
from rocarray._numpy.searching import argwhere, compress, extract, flatnonzero, nonzero, searchsorted, unique
from rocarray import config, distributed, fft, linalg, miopen, nn, prim, rocblas, rocsolver, rocsparse, sparse

# dtypes and constants are NumPy's own objects (CuPy re-exports the same ones).
from numpy import (  # noqa: E402
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, float32, float64, complex64, complex128, intp, uintp,
    dtype, finfo, iinfo, e, pi, inf, nan, newaxis, euler_gamma,
)

__all__ = [
    "__version__", "NoDeviceError", "KernelCompileError", "RocArrayError", "is_available",
    "show_config", "tune", "free_workspaces", "compile_check", "hipify", "profile", "config",
    "RawKernel", "RawModule", "ElementwiseKernel", "ReductionKernel",
    "asarray", "asnumpy", "dot", "vdot", "inner", "linalg", "rocblas", "rocsolver", "rocsparse", "sparse", "prim",
    "matmul", "tensordot", "outer", "kron", "trace", "einsum",
    "fft", "distributed", "miopen", "nn",
    "cumsum", "cumprod", "nancumsum", "nancumprod", "bincount", "histogram",
    "sum", "prod", "min", "max", "amin", "amax", "argmin", "argmax", "mean", "all", "any", "nansum",
    "nanprod", "nanmin", "nanmax", "nanargmin", "nanargmax", "nanmean", "count_nonzero",
    "sort", "argsort", "lexsort", "partition", "argpartition", "sort_complex",
    "nonzero", "flatnonzero", "argwhere", "extract", "compress", "searchsorted", "unique",
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "intp", "uintp",
    "__array_api_version__", "__array_namespace_info__", "arange", "astype", "clip", "empty",
    "empty_like", "eye", "from_dlpack", "full", "full_like", "linspace", "meshgrid", "ones",
    "ones_like", "repeat", "reshape", "std", "take_along_axis", "unstack", "var", "vecdot", "zeros",
    "zeros_like", "remainder", "mod",
    "dtype", "finfo", "iinfo", "e", "pi", "inf", "nan", "newaxis", "euler_gamma",
]


def _device_errors(cupy):
    """The exception types CuPy raises when the GPU runtime or driver cannot be reached."""
    errors = []
    for module, name in ((cupy.cuda.runtime, "CUDARuntimeError"), (cupy.cuda.driver, "CUDADriverError")):
        error = getattr(module, name, None)
        if isinstance(error, type):
            errors.append(error)
    return tuple(errors)


def _needs_device(obj, name):
    """Wrap a CuPy callable so that a missing GPU raises NoDeviceError instead of a runtime error."""
    import functools

    from rocarray._core import backend

    def call(*args, **kwargs):
        cupy = backend.cupy_module()
        if cupy is None:
            backend.cupy()  # NoDeviceError saying what to install
        try:
            return obj(*args, **kwargs)
        except _device_errors(cupy):
            if backend.device_count() == 0:
                backend.device_info()  # raises NoDeviceError with the driver/install hint
            raise

    try:
        functools.update_wrapper(call, obj)
    except AttributeError:  # pragma: no cover - objects without __name__ and friends
        call.__name__ = name
    return call


class _DeviceUfunc:
    """A CuPy ufunc seen without a GPU: calls raise NoDeviceError, attributes are CuPy's."""

    def __init__(self, ufunc, name):
        self.__wrapped__ = ufunc
        self._call = _needs_device(ufunc, name)
        self.__name__ = name
        self.__doc__ = getattr(ufunc, "__doc__", None)

    def __call__(self, *args, **kwargs):
        return self._call(*args, **kwargs)

    def __getattr__(self, attr):
        return getattr(self.__wrapped__, attr)

    def __repr__(self):
        return repr(self.__wrapped__)


def __getattr__(name):
    """Fall through to CuPy for NumPy names rocarray has no kernel for.

    With a GPU the result is CuPy's own object (``ra.concatenate is cupy.concatenate``; inside a
    :func:`profile` region, a wrapper that records each call). Without one, callables
    are wrapped so that calling them raises :class:`NoDeviceError` (saying what is missing) instead
    of a raw CUDA/HIP runtime error; types, modules and constants are always returned unwrapped.
    """
    if name.startswith("__"):
        raise AttributeError(name)
    import inspect
    import types

    from rocarray._core import backend

    cupy = backend.cupy_module()
    if cupy is None:
        target = getattr(_np, name, None)
        if callable(target) and not isinstance(target, type):
            return _needs_device(target, name)  # calling it raises NoDeviceError (install CuPy)
        raise AttributeError(
            f"module 'rocarray' has no attribute '{name}'"
            + (f" (CuPy is not installed: {backend.INSTALL_SHORT})"
               if hasattr(_np, name) else "")
        )
    if not hasattr(cupy, name):
        raise AttributeError(f"module 'rocarray' has no attribute '{name}'")
    obj = getattr(cupy, name)
    if not callable(obj) or isinstance(obj, (type, types.ModuleType)):
        return obj
    if backend.device_count() > 0:
        return _profile.fallthrough(obj, name)
    if inspect.isroutine(obj):
        return _needs_device(obj, name)
    return _DeviceUfunc(obj, name)


def __dir__():
    names = set(globals()) | set(__all__)
    from rocarray._core import backend

    cupy = backend.cupy_module()
    if cupy is not None:
        names |= {n for n in dir(cupy) if not n.startswith("_")}
    return sorted(names)
