"""A NumPy stand-in for ``backend.cupy()`` under the kernel emulator (tests/kernel_emu.py).

Device memory is host memory: a device array is a :class:`DeviceArray`, a NumPy subclass whose
``.data.ptr`` is the address of its first element (what the launch layer passes to kernels), so
the library's host-side CuPy calls (array functions, methods, operators) run as NumPy's. The
array constructors return 256-byte aligned memory; ``empty`` is filled with 0xff bytes (NaN, -1)
so a kernel that leaves outputs unwritten is seen; indexing one element gives a 0-d device
array, as CuPy's does. Results of NumPy's own allocations (methods,
operators) have NumPy's alignment. ``cuda`` serves one stream and one device, ``memsetAsync``
on host memory, and no events, graphs, pools or NCCL. A name NumPy lacks raises
``AttributeError``.
"""

import ctypes
import types

import numpy as np


class _Pointer:
    """A ``cupy.cuda.MemoryPointer`` stand-in: the address and device 0."""

    __slots__ = ("ptr",)
    device_id = 0

    def __init__(self, ptr):
        self.ptr = ptr


class DeviceArray(np.ndarray):
    """A device array over host memory: ``.data.ptr`` is its address, ``.get()`` a NumPy copy."""

    @property
    def data(self):
        return _Pointer(self.ctypes.data)

    def get(self):
        return np.array(self)

    def __getitem__(self, key):
        # CuPy's x[i] is a 0-d device array, NumPy's a host scalar
        r = super().__getitem__(key)
        if isinstance(r, np.generic):
            r = super().__getitem__((key if isinstance(key, tuple) else (key,)) + (Ellipsis,))
        return r

    def __repr__(self):
        return f"DeviceArray({np.asarray(self)!r})"


def _aligned(shape, dtype, fill):
    dtype = np.dtype(dtype)
    shape = (shape,) if np.isscalar(shape) else tuple(shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.full(nbytes + 256, fill, np.uint8)
    off = (-raw.ctypes.data) % 256
    return raw[off:off + nbytes].view(dtype).reshape(shape).view(DeviceArray)


def empty(shape, dtype=float, order="C"):
    out = _aligned(shape, dtype, 0xFF)
    return out if order == "C" or out.ndim < 2 else out.reshape(out.shape[::-1]).T


def zeros(shape, dtype=float, order="C"):
    out = empty(shape, dtype, order)
    out[...] = 0
    return out


def array(obj, dtype=None, copy=True, order="K", **kwargs):
    host = np.array(np.asarray(obj), dtype=dtype, order=order, copy=True)
    out = empty(host.shape, host.dtype, "F" if host.flags.f_contiguous and not host.flags.c_contiguous else "C")
    out[...] = host
    return out


def asarray(obj, dtype=None, order=None, **kwargs):
    if isinstance(obj, DeviceArray) and (dtype is None or np.dtype(dtype) == obj.dtype) and order is None:
        return obj
    return array(obj, dtype=dtype, order=order or "K")


def ascontiguousarray(a, dtype=None):
    if isinstance(a, DeviceArray) and a.flags.c_contiguous and (dtype is None or np.dtype(dtype) == a.dtype):
        return a
    return array(np.ascontiguousarray(a, dtype=dtype))


def asnumpy(a, *args, **kwargs):
    return np.array(a).view(np.ndarray)


def _wrap(fn):
    def call(*args, **kwargs):
        r = fn(*args, **kwargs)
        if isinstance(r, np.ndarray) and not isinstance(r, DeviceArray):
            return array(r)
        if isinstance(r, tuple):
            return tuple(array(x) if isinstance(x, np.ndarray) and not isinstance(x, DeviceArray) else x for x in r)
        return r
    call.__name__ = getattr(fn, "__name__", "function")
    return call


class _Stream:
    ptr = 0

    def is_capturing(self):
        return False

    def synchronize(self):
        pass


class _Device:
    def __init__(self, device_id=0):
        self.id = device_id

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        pass


def _cuda():
    runtime = types.SimpleNamespace(
        is_hip=False,
        getDevice=lambda: 0,
        getDeviceCount=lambda: 1,
        memsetAsync=lambda ptr, value, nbytes, stream: ctypes.memset(ptr, value, nbytes),
        deviceSynchronize=lambda: None,
    )
    return types.SimpleNamespace(runtime=runtime, get_current_stream=lambda *a: _Stream(), Device=_Device,
                                 Stream=types.SimpleNamespace(null=_Stream()))


class _Namespace(types.SimpleNamespace):
    def __getattr__(self, name):
        fn = getattr(np, name)  # AttributeError names what the stand-in lacks
        return _wrap(fn) if callable(fn) and not isinstance(fn, type) else fn


def namespace():
    """A fresh stand-in for the ``cupy`` module."""
    return _Namespace(
        ndarray=DeviceArray, empty=empty, zeros=zeros, array=array, asarray=asarray,
        ascontiguousarray=ascontiguousarray, asnumpy=asnumpy, cuda=_cuda(),
        empty_like=lambda a, dtype=None: empty(a.shape, a.dtype if dtype is None else dtype),
        zeros_like=lambda a, dtype=None: zeros(a.shape, a.dtype if dtype is None else dtype),
        full=lambda shape, value, dtype=None: _fill(empty(shape, np.asarray(value, dtype).dtype), value),
    )


def _fill(out, value):
    out[...] = value
    return out
