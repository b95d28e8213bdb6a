"""The ``info`` output of the rocsolver routines: checked, allocated, and read back once.

A routine writes one int32 per matrix: 0 for success, ``i > 0`` (1-based) for the step at which
LAPACK would report failure. Reading it costs one device-to-host copy and one synchronization, so
callers that must raise (the façade's ``LinAlgError``) read it once per call, never per matrix.
"""

import numpy

from rocarray._core import args as _args, backend

INFO_DTYPE = numpy.dtype(numpy.int32)


def info_buffer(info, batch, where):
    """``info`` if it is a device int32 array of at least ``batch`` elements (contiguous), else
    ``TypeError``/``ValueError`` naming it."""
    _args.device_array(info, "info", where)
    if info.dtype != INFO_DTYPE:
        raise TypeError(f"{where}: info must be an int32 array, got {info.dtype.name}")
    if not info.flags.c_contiguous:
        raise ValueError(f"{where}: info must be contiguous")
    if info.size < batch:
        raise ValueError(f"{where}: info needs {batch} element(s), got {info.size}")
    return info


def new_info(batch):
    """A zeroed device int32 array of ``max(batch, 1)`` elements on the current device."""
    return backend.cupy().zeros(max(batch, 1), INFO_DTYPE)


def failures(info, batch):
    """The host copy of the first ``batch`` info values (one copy, one synchronization)."""
    if batch == 0:
        return numpy.zeros(0, INFO_DTYPE)
    return backend.cupy().asnumpy(info[:batch])
