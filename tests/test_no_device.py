"""The no-GPU contract for the whole public namespace: without a device, every public function
called with small arguments NumPy would take raises ``NoDeviceError`` (saying what to install) or
a documented argument error (``TypeError``/``ValueError``/``AxisError``), never a raw CUDA/HIP
runtime error, and never returns as if it had run."""

import inspect

import numpy as np
import pytest

import rocarray as ra
from rocarray._core import backend

NAMESPACES = {"rocarray": ra, "rocarray.fft": ra.fft, "rocarray.linalg": ra.linalg, "rocarray.prim": ra.prim,
              "rocarray.rocblas": ra.rocblas, "rocarray.rocfft": ra.rocfft, "rocarray.rocsolver": ra.rocsolver,
              "rocarray.rocsparse": ra.rocsparse, "rocarray.sparse": ra.sparse,
              "rocarray.sparse.linalg": ra.sparse.linalg, "rocarray.sparse.csgraph": ra.sparse.csgraph,
              "rocarray.distributed": ra.distributed, "rocarray.distributed.fft": ra.distributed.fft,
              "rocarray.miopen": ra.miopen, "rocarray.nn": ra.nn}
#: Functions that need no device by design.
HOST_ONLY = {"rocarray.is_available", "rocarray.show_config", "rocarray.free_workspaces", "rocarray.asnumpy",
             "rocarray.tune", "rocarray.profile",
             # the convolution search's mode is a host setting
             "rocarray.nn.find_mode", "rocarray.miopen.find_mode",
             # type predicates answer from the object alone, as SciPy's do
             "rocarray.sparse.issparse", "rocarray.sparse.isspmatrix", "rocarray.sparse.isspmatrix_csr",
             "rocarray.sparse.isspmatrix_csc", "rocarray.sparse.isspmatrix_coo",
             # the Array API inspection namespace describes the library (devices() is then empty)
             "rocarray.__array_namespace_info__"}
#: Argument lists tried on each function: a scalar, a list, two numbers, nothing.
ARGUMENTS = [(3,), ([1.0, 2.0],), (4, 5), ()]


def _public_functions():
    for prefix, namespace in NAMESPACES.items():
        for name in getattr(namespace, "__all__", ()):
            obj = getattr(namespace, name)
            if callable(obj) and not isinstance(obj, type) and not inspect.ismodule(obj):
                yield f"{prefix}.{name}", obj


def test_every_public_namespace_has_functions():
    assert len(list(_public_functions())) > 100


@pytest.mark.skipif(backend.is_available(), reason="the contract is for machines without a GPU")
@pytest.mark.parametrize("qualname,function", list(_public_functions()), ids=lambda v: v if isinstance(v, str) else "")
def test_without_a_gpu_a_public_function_raises_no_device_error_or_an_argument_error(qualname, function):
    if qualname in HOST_ONLY:
        return
    for args in ARGUMENTS:
        try:
            function(*args)
        except ra.NoDeviceError as exc:
            assert "pip install" in str(exc) or "driver" in str(exc) or "visible" in str(exc)
        except (TypeError, ValueError, np.exceptions.AxisError):
            pass
        else:
            pytest.fail(f"{qualname}{args} returned without a GPU")
