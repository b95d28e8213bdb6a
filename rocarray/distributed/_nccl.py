"""The transport under :class:`~rocarray.distributed.Communicator`: the one module that touches
``cupy.cuda.nccl`` (NCCL on CUDA builds of CuPy, RCCL on ROCm builds), plus the device plumbing a
communicator needs (the array module, pointers, streams, events, the current device).

Communicator handles are CuPy's ``NcclCommunicator`` objects and are called with NCCL's own
arguments (pointers, element counts, datatype and operation codes, a stream pointer). The
in-process test double (``tests/distributed/fake_comm.py``) replaces this module as a whole, so
everything device- or NCCL-specific the communicator uses is a function here.
"""

import contextlib

from rocarray._core import backend
from rocarray._core.errors import NoDeviceError

#: The reductions a communicator offers, in the order their codes are exchanged between ranks.
REDUCTIONS = ("sum", "prod", "min", "max", "avg")

# NumPy dtype name -> the nccl module's constant
_DATATYPES = {"int8": "NCCL_INT8", "uint8": "NCCL_UINT8", "int32": "NCCL_INT32", "uint32": "NCCL_UINT32",
              "int64": "NCCL_INT64", "uint64": "NCCL_UINT64", "float16": "NCCL_FLOAT16",
              "bfloat16": "NCCL_BFLOAT16", "float32": "NCCL_FLOAT32", "float64": "NCCL_FLOAT64"}
_OPS = {"sum": "NCCL_SUM", "prod": "NCCL_PROD", "min": "NCCL_MIN", "max": "NCCL_MAX", "avg": "NCCL_AVG"}
# ncclAvg exists from NCCL 2.10 (version code 21000) on; RCCL numbers its versions the same way.
_AVG_SINCE = 21000

_NCCL_HINT = ("install the NCCL wheel of your CUDA (`pip install nvidia-nccl-cu13` or `nvidia-nccl-cu12`); "
              "on ROCm, RCCL comes with the ROCm install")


def library():
    """The ``cupy.cuda.nccl`` module.

    Raises
    ------
    NoDeviceError
        Without CuPy, or when CuPy cannot load the NCCL/RCCL library (the message says what to install).
    """
    backend.cupy()
    from cupy.cuda import nccl

    if not nccl.available:
        raise NoDeviceError(f"rocarray.distributed needs NCCL (RCCL on ROCm), which CuPy could not load: {_NCCL_HINT}")
    return nccl


def check_device(device=None):
    """Raise :class:`NoDeviceError` unless GPU ``device`` (default: the current one) and NCCL can be used."""
    backend.device_info(device)
    library()


def device_count():
    """Number of visible GPUs."""
    return backend.device_count()


def datatype(name):
    """NCCL's datatype code for the dtype called ``name``, or ``None`` where NCCL has none."""
    attr = _DATATYPES.get(name)
    return None if attr is None else getattr(library(), attr, None)


def reduction(op):
    """NCCL's code for reduction ``op`` (one of :data:`REDUCTIONS`), or ``None`` for ``'avg'`` where
    the library has no ncclAvg (the communicator then sums and scales)."""
    nccl = library()
    code = getattr(nccl, _OPS[op], None)
    if op == "avg" and (code is None or nccl.get_version() < _AVG_SINCE):
        return None
    return code


def unique_id():
    """A fresh NCCL unique id as ``bytes`` (made by the rank that starts a communicator)."""
    uid = library().get_unique_id()
    return uid if isinstance(uid, bytes) else bytes(b & 0xFF for b in uid)


def init_rank(size, uid, rank, device):
    """This process's NCCL communicator handle of rank ``rank`` among ``size`` (blocks until all
    ranks have called it; the caller bounds the wait)."""
    nccl = library()
    with device_scope(device):
        try:
            return nccl.NcclCommunicator(size, uid, rank)
        except TypeError:  # CuPy before 14 takes the id as a tuple of signed chars
            return nccl.NcclCommunicator(size, tuple(b - 256 if b > 127 else b for b in uid), rank)


def init_all(devices):
    """One handle per device of ``devices``, all driven by this process (``ncclCommInitAll``)."""
    return library().NcclCommunicator.initAll(list(devices))


def group_start():
    """Open an NCCL group: the calls until :func:`group_end` are launched together."""
    library().groupStart()


def group_end():
    """Close the NCCL group opened by :func:`group_start`."""
    library().groupEnd()


def async_error(handle):
    """The message of an asynchronous error NCCL has recorded on ``handle``, else ``None``."""
    nccl = library()
    try:
        handle.check_async_error()
    except nccl.NcclError as exc:
        return str(exc)
    return None


def array_module():
    """The module device arrays come from (``cupy``)."""
    return backend.cupy()


def pointer(x):
    """Device address of the first element of ``x``."""
    return x.data.ptr


def device_of(x):
    """Device id of array ``x``."""
    return x.device.id


def to_host(x, stream, device):
    """A NumPy copy of ``x``, made on ``stream`` of ``device`` after the work queued there (waits)."""
    with device_scope(device):
        return x.get(stream=stream)


def to_device(a, stream, device):
    """A copy of NumPy array ``a`` on ``device``, made on ``stream`` (ordered before later work there)."""
    with stream_scope(stream, device):
        return backend.cupy().asarray(a)


def device_scope(device):
    """A context in which ``device`` is the current GPU."""
    return backend.cupy().cuda.Device(device)


def stream(stream, device):
    """``stream``, or the current stream of ``device`` when it is ``None``; a context manager that
    makes it current (and has ``.ptr``)."""
    if stream is not None:
        return stream
    cupy = backend.cupy()
    with cupy.cuda.Device(device):
        return cupy.cuda.get_current_stream()


def record(stream, device):
    """An event recorded now on ``stream`` of ``device`` (a ``cupy.cuda.Event``); its ``.done``
    tells whether the work before it has finished."""
    with device_scope(device):
        event = backend.cupy().cuda.Event(disable_timing=True)
        event.record(stream)
    return event


def stream_scope(stream, device):
    """A context in which ``device`` and ``stream`` are current (CuPy's own kernels run there)."""
    scope = contextlib.ExitStack()
    scope.enter_context(device_scope(device))
    scope.enter_context(stream)
    return scope
