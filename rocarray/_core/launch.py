"""Kernel launches: the one path from a library to the driver.

:class:`Launch` is a launch with its plan-time arguments converted once, for calls repeated with
new data: it holds the arguments at fixed host addresses and calls the driver's launch entry point
(``cuLaunchKernel`` / ``hipModuleLaunchKernel``, through ``cupy.cuda.driver.launchKernel``) with the
array of their addresses; a call writes only the values that change (device addresses, scalars,
by-value structures) into their slots. The driver copies the values when the launch is queued, so
the slots may be rewritten by the next call at once. :func:`launch` queues a launch whose
arguments are converted on that call, for launches no plan repeats.

Arguments are given in kernel order: plan-time values as NumPy scalars or size-one contiguous
NumPy arrays (their bytes are what the kernel receives), per-call values as the markers
:data:`POINTER`, :func:`scalar` and :data:`HOST_ARRAY`. :func:`launch` takes NumPy scalars, size-one
NumPy arrays and device memory (``cupy.ndarray``, ``cupy.cuda.MemoryPointer``); a Python ``int`` or
``float`` has no size and is refused.

Where the kernel has no driver handle (a stand-in in tests), the launch goes through CuPy's kernel
call with the same values as NumPy types.
"""

import ctypes
import threading

import numpy

from rocarray._core import backend, driver

#: The profiler observing every launch of this module (:class:`rocarray._user.profile.Profile`),
#: or None. Each launch asks this one global, so a launch with no profiler active costs one test.
observer = None


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
#: The ctypes type holding the bytes of a NumPy scalar of each common type (a ctypes value built
#: from the scalar takes a fraction of the host time of a NumPy array and its ``ctypes`` view).
_C_OF_SCALAR = {numpy.dtype(f"{kind}{size}").type: ctype for (kind, size), ctype in _C_REAL.items()}

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


def _dims(value):
    if type(value) is int and value >= 1:
        return (value, 1, 1)
    dims = tuple(int(v) for v in (value if isinstance(value, tuple) else (value,)))
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"grid and block take 1 to 3 dimensions, got {value!r}")
    return dims + (1,) * (3 - len(dims))


def _is_fixed(a):
    return (isinstance(a, numpy.generic) and a.dtype.kind in "biufc"
            or isinstance(a, numpy.ndarray) and a.size == 1 and a.flags.c_contiguous)


def current_stream():
    """The handle of the current stream (the stream every launch is queued on)."""
    return backend.cupy().cuda.get_current_stream().ptr


class Launch:
    """One kernel launch with its plan-time arguments fixed: ``launch(*values)`` queues it on the
    current stream with one value per slot marker, in argument order.

    Parameters
    ----------
    function : compiled kernel
        From :meth:`rocarray._core.kernels.Kernel.function` (CuPy's kernel object); call the launch
        with its device current.
    grid, block : int or tuple of int
        Launch dimensions (1 to 3).
    args : sequence
        Kernel arguments in order: NumPy scalars and size-one contiguous NumPy arrays (fixed), or
        :data:`POINTER`, :func:`scalar` and :data:`HOST_ARRAY` markers (per call).
    shared_mem : int, optional
        Dynamic shared memory in bytes (granted by the caller: :meth:`Kernel.allow_shared`).
    dependent : bool, optional
        Queue the kernel as a programmatic dependent of the previous work in its stream where
        the driver can (:mod:`rocarray._core.driver`): only for kernels that run
        ``ra_grid_dependency_wait`` before touching global memory. Elsewhere a plain launch.
    name : str, optional
        The kernel's name expression, for a profiler (default: the compiled function's name).

    Raises
    ------
    TypeError
        An argument of another kind.
    """

    def __init__(self, function, grid, block, args, shared_mem=0, dependent=False, name=None):
        self.kernel = function
        self.name = name or getattr(function, "name", "kernel")
        self.dependent = bool(dependent)
        self.grid, self.block = grid, block  # as given: CuPy's call takes them so
        self.shared_mem = int(shared_mem)
        self.args = tuple(args)
        self.slots = tuple(i for i, a in enumerate(self.args) if isinstance(a, Slot))
        for i, a in enumerate(self.args):
            if not isinstance(a, Slot) and not _is_fixed(a):
                raise TypeError(f"kernel argument {i} of type {type(a).__name__}: give a NumPy scalar, a size-one "
                                "NumPy array or a slot marker")
        self._lock = threading.Lock()
        self._direct = self._prepare_direct()

    def _prepare_direct(self):
        launch_fn = driver.launch_kernel()
        try:
            function = int(self.kernel.kernel.ptr)
        except Exception:
            return None
        if launch_fn is None:
            return None
        if self.dependent and driver.dependent_launch_available():
            launch_fn = driver.DependentLaunch(launch_fn)
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
        self._stream = backend.cupy().cuda.get_current_stream
        return True

    def __call__(self, *values):
        if len(values) != len(self.slots):
            raise TypeError(f"this launch takes {len(self.slots)} per-call values, got {len(values)}")
        if self._direct is None:
            self._launch_through_cupy(values)
            return
        fn, function, gx, gy, gz, bx, by, bz, shared = self._call
        params = self._params
        watch = observer
        if watch is not None:
            token = watch.begin(self.name, self.grid, self.block, shared)
        with self._lock:
            for (kind, store, i), value in zip(self._setters, values):
                if kind == _SCALAR:
                    store.value = value
                elif kind == _ARRAY:
                    params[i] = _host_address(value)
                else:
                    store[0], store[1] = value.real, value.imag
            driver.call_with_context(fn, function, gx, gy, gz, bx, by, bz, shared, self._stream().ptr,
                                     self._address, 0)
        if watch is not None:
            watch.end(token)

    def _launch_through_cupy(self, values):
        watch = observer
        if watch is not None:
            token = watch.begin(self.name, self.grid, self.block, self.shared_mem)
        self._cupy_call(values)
        if watch is not None:
            watch.end(token)

    def _cupy_call(self, values):
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


def _argument(value, keep):
    """The host address of one :func:`launch` argument's bytes (kept alive in ``keep``)."""
    ctype = _C_OF_SCALAR.get(type(value))
    if ctype is not None:
        host = ctype(value)
        keep.append(host)
        return ctypes.addressof(host)
    if isinstance(value, numpy.generic):
        if value.dtype.kind not in "biufc":
            raise TypeError(f"a kernel argument of dtype {value.dtype} is not numeric")
        host = numpy.array(value)
    elif isinstance(value, numpy.ndarray):
        if value.size != 1 or not value.flags.c_contiguous:
            raise TypeError("a by-value kernel argument must be a contiguous size-one NumPy array")
        host = value
    else:
        data = getattr(value, "data", value)  # a cupy.ndarray's MemoryPointer, or one given directly
        try:
            address = data.ptr
        except AttributeError:
            raise TypeError(f"kernel argument of type {type(value).__name__}: give a NumPy scalar, a size-one "
                            "NumPy array or device memory") from None
        host = ctypes.c_uint64(address)
        keep.append(host)
        return ctypes.addressof(host)
    keep.append(host)
    return host.ctypes.data


def launch_with_cupy_arguments(function, grid, block, args, shared_mem=0, name=None):
    """Queue one launch through CuPy's own kernel call, so its arguments follow CuPy's rules
    (Python numbers included), reported to an active profiler like every launch: the path of
    users' kernels (:mod:`rocarray._user.kernels`)."""
    watch = observer
    if watch is None:
        function(grid, block, args, shared_mem=shared_mem)
        return
    token = watch.begin(name or getattr(function, "name", "kernel"), grid, block, shared_mem)
    function(grid, block, args, shared_mem=shared_mem)
    watch.end(token)


def note_work(nbytes=None, flops=None):
    """Tell an active profiler the memory traffic (bytes read and written) and the floating-point
    operations of this thread's latest launch; nothing when no profiler is active. Libraries call
    it after a launch whose work they know."""
    watch = observer
    if watch is not None:
        watch.note(nbytes, flops)


def launch(function, grid, block, args, shared_mem=0, name=None, cooperative=False):
    """Queue one launch of ``function`` on the current stream now, its arguments converted on
    this call (see the module docstring for the kinds taken).

    ``cooperative=True`` makes it a cooperative launch (:func:`cooperative_available` must be
    true): the driver starts the grid only if every block can be resident at once, so blocks may
    wait on each other; a stand-in kernel (tests) is called with ``cooperative=True``.

    Raises
    ------
    TypeError
        An argument of another kind (a Python number, say).
    RuntimeError
        The driver refused a cooperative launch (its status code in the message).
    """
    watch = observer
    if watch is None:
        _launch_now(function, grid, block, args, shared_mem, cooperative)
        return
    token = watch.begin(name or getattr(function, "name", "kernel"), grid, block, shared_mem)
    _launch_now(function, grid, block, args, shared_mem, cooperative)
    watch.end(token)


def _handle(function):
    try:
        return int(function.kernel.ptr)
    except Exception:
        return None


def cooperative_available(function):
    """Whether :func:`launch` can make a cooperative launch of ``function``: the driver has the
    entry point, or ``function`` is a stand-in without a driver handle (it takes the flag)."""
    return _handle(function) is None or driver.cooperative_launch() is not None


def _launch_now(function, grid, block, args, shared_mem, cooperative=False):
    handle = _handle(function)
    if cooperative:
        if handle is None:
            function(grid, block, tuple(args), shared_mem=shared_mem, cooperative=True)
            return
        entry = driver.cooperative_launch()
        keep = []
        params = (ctypes.c_void_p * max(1, len(args)))(*[_argument(a, keep) for a in args])
        status = entry(handle, *_dims(grid), *_dims(block), int(shared_mem), current_stream(),
                       ctypes.addressof(params))
        if status and driver.lacks_context(status):
            driver.bind_current_device()
            status = entry(handle, *_dims(grid), *_dims(block), int(shared_mem), current_stream(),
                           ctypes.addressof(params))
        if status:
            raise RuntimeError(f"the driver refused a cooperative launch of grid {grid}, block {block}, "
                               f"{shared_mem} B shared (status {status})")
        return
    launch_fn = driver.launch_kernel() if handle is not None else None
    if launch_fn is None:
        for value in args:
            if not isinstance(value, (numpy.generic, numpy.ndarray)) and not hasattr(getattr(value, "data", value),
                                                                                    "ptr"):
                raise TypeError(f"kernel argument of type {type(value).__name__}: give a NumPy scalar, a size-one "
                                "NumPy array or device memory")
        function(grid, block, tuple(args), shared_mem=shared_mem)
        return
    keep = []
    params = (ctypes.c_void_p * max(1, len(args)))(*[_argument(a, keep) for a in args])
    driver.call_with_context(launch_fn, handle, *_dims(grid), *_dims(block), int(shared_mem), current_stream(),
                             ctypes.addressof(params), 0)


class on_device:
    """Context manager making ``device_id`` current for launches when it is not already."""

    __slots__ = ("device_id", "ctx")

    def __init__(self, device_id):
        self.device_id = device_id
        self.ctx = None

    def __enter__(self):
        cuda = backend.cupy().cuda
        if cuda.runtime.getDevice() != self.device_id:
            self.ctx = cuda.Device(self.device_id)
            self.ctx.__enter__()
        return self

    def __exit__(self, *exc):
        if self.ctx is not None:
            self.ctx.__exit__(*exc)
        return False

