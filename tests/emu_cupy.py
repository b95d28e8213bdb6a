"""A NumPy stand-in for ``backend.cupy()`` under the kernel emulator (tests/kernel_emu.py).

Device memory is host memory: a device array is a :class:`DeviceArray`, a NumPy subclass whose
``.data.ptr`` is the address of its first element (what the launch layer passes to kernels), so
the library's host-side CuPy calls (array functions, methods, operators) run as NumPy's;
indexing one element gives a 0-d device array, as CuPy's does.

The array constructors, ``astype`` and ``copy`` allocate in CuPy's 512-byte unit (also the
alignment) and put an inaccessible page right after the unit: a kernel access past the
allocation stops the process. ``empty`` is filled with 0xff bytes (NaN, -1), so a kernel that
leaves outputs unwritten is seen. Results of NumPy's other allocations (operators, ``take``)
have NumPy's alignment and no guard page. ``cuda`` serves one stream and one device and
``memsetAsync`` on host memory; no events, graphs, pools or NCCL. A name NumPy lacks raises
``AttributeError``.
"""

import ctypes
import mmap
import os
import types

import numpy as np


class _Pointer:
    """A ``cupy.cuda.MemoryPointer`` stand-in: the address and device 0."""

    __slots__ = ("ptr",)
    device_id = 0

    def __init__(self, ptr):
        self.ptr = ptr

    def __add__(self, offset):  # CuPy's pointer arithmetic, in bytes
        return _Pointer(self.ptr + int(offset))


class DeviceArray(np.ndarray):
    """A device array over host memory: ``.data.ptr`` is its address, ``.get()`` a NumPy copy."""

    @property
    def data(self):
        return _Pointer(self.ctypes.data)

    def get(self):
        return np.array(self)

    def set(self, arr):
        """CuPy's host-to-device copy into this array (same shape)."""
        arr = np.asarray(arr)
        if arr.shape != self.shape:
            raise ValueError(f"shape mismatch: {arr.shape} into {self.shape}")
        np.copyto(self, arr, casting="unsafe")

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        if not copy and np.dtype(dtype) == self.dtype:
            return self
        return array(np.asarray(self).astype(dtype, order=order, casting=casting))

    def copy(self, order="C"):
        return array(np.asarray(self).copy(order=order))

    def __getitem__(self, key):
        # CuPy's x[i] is a 0-d device array, NumPy's a host scalar
        r = super().__getitem__(key)
        if isinstance(r, np.generic):
            r = super().__getitem__((key if isinstance(key, tuple) else (key,)) + (Ellipsis,))
        return r

    def __repr__(self):
        return f"DeviceArray({np.asarray(self)!r})"


_PAGE = mmap.PAGESIZE
#: Allocation unit (and alignment): CuPy's 512 bytes by default; 16 makes the guard page catch
#: any access past an array's last 16-byte unit (ROCARRAY_EMU_GUARD_UNIT=16).
_UNIT = int(os.environ.get("ROCARRAY_EMU_GUARD_UNIT", "512"))
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]


def _guarded(nbytes):
    """``nbytes`` of fresh memory ending where the allocation unit :data:`_UNIT` would, right
    before an inaccessible page: a kernel reading or writing past the allocation stops the
    process (SIGSEGV; pytest's faulthandler prints the test)."""
    span = -(-max(nbytes, 1) // _UNIT) * _UNIT
    body = -(-span // _PAGE) * _PAGE
    region = mmap.mmap(-1, body + _PAGE)
    raw = np.frombuffer(region, np.uint8)
    if _libc.mprotect(raw.ctypes.data + body, _PAGE, 0):
        raise OSError(ctypes.get_errno(), "mprotect of a guard page failed")
    return raw[body - span:body - span + nbytes]


def _aligned(shape, dtype, fill):
    dtype = np.dtype(dtype)
    shape = (shape,) if np.isscalar(shape) else tuple(shape)
    raw = _guarded(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize)
    raw[...] = fill
    return raw.view(dtype).reshape(shape).view(DeviceArray)


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
