"""Kernel launches whose arguments are converted once, for calls repeated with new data.

A gemm on a warm path spends most of its host time in CuPy's kernel call, which converts and
checks every argument on every launch (a NumPy size-one array, such as a tensor map, reads
``__array_interface__`` each time). :class:`PreparedLaunch` holds one launch's arguments at fixed
host addresses and calls the driver's launch entry point (``cuLaunchKernel`` /
``hipModuleLaunchKernel``, through ``cupy.cuda.driver.launchKernel``, where CuPy's own call ends)
with the array of their addresses; a call writes only the values that change (device addresses,
scalars, by-value structures) into their slots. The driver copies the values when the launch is
queued, so the slots may be rewritten by the next call at once.

Arguments are given in kernel order: plan-time values as NumPy scalars or size-one contiguous
NumPy arrays (their bytes are what the kernel receives), per-call values as the markers
:data:`POINTER`, :func:`scalar` and :data:`HOST_ARRAY`.

Where the driver call is missing or the kernel has no driver handle (a stand-in in tests), the
launch goes through CuPy's call with the same values as NumPy types.
"""

import ctypes
import threading

import numpy

from rocarray._core import dependent_launch, launch


class Slot:
    """A per-call kernel argument: its kind and, for scalars, the NumPy type."""

    __slots__ = ("kind", "dtype")

    def __init__(self, kind, dtype=None):
        self.kind = kind
        self.dtype = None if dtype is None else numpy.dtype(dtype)

    def __repr__(self):
        return f"Slot({self.kind!r}, {self.dtype})"


#: A device address (a Python int), passed as a 64-bit pointer.
POINTER = Slot("pointer")
#: A size-one contiguous NumPy array (a structure passed by value; the caller keeps it unchanged
#: until the call returns).
HOST_ARRAY = Slot("array")


def scalar(dtype):
    """A per-call scalar of a real or complex NumPy type (any value it converts from)."""
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "biufc":
        raise TypeError(f"a scalar kernel argument must be numeric, got {dtype}")
    return Slot("scalar", dtype)


_C_REAL = {("f", 4): ctypes.c_float, ("f", 8): ctypes.c_double, ("i", 4): ctypes.c_int32,
           ("i", 8): ctypes.c_int64, ("u", 4): ctypes.c_uint32, ("u", 8): ctypes.c_uint64}

#: Host addresses of the by-value arrays seen lately, by ``id`` (the entry keeps its array alive,
#: so the id stays its own); bounded, cleared when full.
_array_addresses = {}
_ARRAYS_KEPT = 1024

_SCALAR, _COMPLEX, _ARRAY = 0, 1, 2  # how a slot is written


def _host_address(array):
    entry = _array_addresses.get(id(array))
    if entry is None or entry[0] is not array:
        if not (isinstance(array, numpy.ndarray) and array.size == 1 and array.flags.c_contiguous):
            raise TypeError("a by-value kernel argument must be a contiguous size-one NumPy array")
        if len(_array_addresses) >= _ARRAYS_KEPT:
            _array_addresses.clear()
        entry = _array_addresses[id(array)] = (array, array.ctypes.data)
    return entry[1]


def driver_launch():
    """``cupy.cuda.driver.launchKernel`` (the driver's kernel launch), or None without it."""
    try:
        from cupy.cuda import driver

        return driver.launchKernel
    except Exception:  # pragma: no cover (every CuPy build has it)
        return None


def _dims(value):
    dims = tuple(int(v) for v in (value if isinstance(value, tuple) else (value,)))
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"grid and block take 1 to 3 dimensions, got {value!r}")
    return dims + (1,) * (3 - len(dims))


class PreparedLaunch:
    """One kernel launch with its plan-time arguments fixed: ``launch(*values)`` queues it on the
    current stream with one value per slot marker, in argument order.

    Parameters
    ----------
    kernel : kernel object
        The kernel from :func:`rocarray._core.compile.get_kernel`; call the launch with its device
        current.
    grid, block : int or tuple of int
        Launch dimensions (1 to 3).
    args : sequence
        Kernel arguments in order: NumPy scalars and size-one contiguous NumPy arrays (fixed), or
        :data:`POINTER`, :func:`scalar` and :data:`HOST_ARRAY` markers (per call).
    shared_mem : int, optional
        Dynamic shared memory in bytes (the caller has raised the kernel's limit if needed).
    dependent : bool, optional
        Queue the kernel as a programmatic dependent of the previous work in its stream where
        the driver can (:mod:`rocarray._core.dependent_launch`): only for kernels that run
        ``ra_grid_dependency_wait`` before touching global memory. Elsewhere a plain launch.

    Raises
    ------
    TypeError
        An argument of another kind.
    """

    def __init__(self, kernel, grid, block, args, shared_mem=0, dependent=False):
        self.kernel = kernel
        self.dependent = bool(dependent)
        self.grid, self.block = grid, block  # as given: CuPy's call takes them so
        self.shared_mem = int(shared_mem)
        self.args = tuple(args)
        self.slots = tuple(i for i, a in enumerate(self.args) if isinstance(a, Slot))
        for i, a in enumerate(self.args):
            if not isinstance(a, Slot) and not (
                    isinstance(a, numpy.generic) and a.dtype.kind in "biufc"
                    or isinstance(a, numpy.ndarray) and a.size == 1 and a.flags.c_contiguous):
                raise TypeError(f"kernel argument {i} of type {type(a).__name__}: give a NumPy scalar, a size-one "
                                "NumPy array or a slot marker")
        self._lock = threading.Lock()
        self._direct = self._prepare_direct()

    def _prepare_direct(self):
        launch_fn = driver_launch()
        try:
            function = int(self.kernel.kernel.ptr)
        except Exception:
            return None
        if launch_fn is None:
            return None
        if self.dependent and dependent_launch.available():
            launch_fn = dependent_launch.DependentLaunch(launch_fn)
        params = (ctypes.c_void_p * max(1, len(self.args)))()
        keep, setters = [], []
        for i, a in enumerate(self.args):
            if not isinstance(a, Slot):
                host = numpy.array(a, copy=True, order="C")
                keep.append(host)
                params[i] = host.ctypes.data
                continue
            if a.kind == "pointer":
                store = ctypes.c_uint64(0)
                setters.append((_SCALAR, store, i))
            elif a.kind == "array":
                setters.append((_ARRAY, None, i))
                continue
            elif a.dtype.kind == "c":
                store = (_C_REAL["f", a.dtype.itemsize // 2] * 2)()
                setters.append((_COMPLEX, store, i))
            else:
                ctype = ctypes.c_bool if a.dtype.kind == "b" else _C_REAL.get((a.dtype.kind, a.dtype.itemsize))
                if ctype is None:
                    return None  # a rare scalar type: CuPy's call
                store = ctype(0)
                setters.append((_SCALAR, store, i))
            keep.append(store)
            params[i] = ctypes.addressof(store)
        self._keep = keep
        self._params = params
        self._setters = tuple(setters)
        self._call = (launch_fn, function) + _dims(self.grid) + _dims(self.block) + (self.shared_mem,)
        self._address = ctypes.addressof(params)
        self._stream = launch.cupy().cuda.get_current_stream
        return True

    def __call__(self, *values):
        if len(values) != len(self.slots):
            raise TypeError(f"this launch takes {len(self.slots)} per-call values, got {len(values)}")
        if self._direct is None:
            self._launch_through_cupy(values)
            return
        fn, function, gx, gy, gz, bx, by, bz, shared = self._call
        params = self._params
        with self._lock:
            for (kind, store, i), value in zip(self._setters, values):
                if kind == _SCALAR:
                    store.value = value
                elif kind == _ARRAY:
                    params[i] = _host_address(value)
                else:
                    store[0], store[1] = value.real, value.imag
            fn(function, gx, gy, gz, bx, by, bz, shared, self._stream().ptr, self._address, 0)

    def _launch_through_cupy(self, values):
        args = list(self.args)
        for i, value in zip(self.slots, values):
            slot = args[i]
            if slot.kind == "pointer":
                args[i] = numpy.uint64(value)
            elif slot.kind == "array":
                args[i] = value
            else:
                args[i] = slot.dtype.type(value)
        self.kernel(self.grid, self.block, tuple(args), shared_mem=self.shared_mem)
