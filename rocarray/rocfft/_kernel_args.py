"""Kernel arguments of the FFT launches, built once per schedule so that a warm launch only wraps
its two data pointers.

* :data:`LAYOUT`: the NumPy twin of ``ra_fft_layout`` (``rocfft/stockham.hip``), one Stockham
  launch's layout passed by value as a single kernel argument. :data:`LAYOUT_FIELDS` is the one
  description of its fields; ``stockham.hip`` asserts the size, and CPU tests compare the
  declaration order and the offsets (through the host compiler) with this dtype.
* :func:`fixed`: a plan-time value (a NumPy scalar, or the size-one layout array) as a ready
  kernel argument. CuPy converts every argument on every launch (a NumPy size-one array costs a
  few µs: it reads ``__array_interface__``); the wrapper it would build is built here once and
  reused, which CuPy accepts as is. The bytes a launch passes are the same either way.
* :func:`pointer`: a device address as a kernel argument (per call).
* :class:`HostArgs` and :func:`driver_launch`: a launch's arguments at fixed host addresses for
  the driver's launch call itself (``cuLaunchKernel``/``hipModuleLaunchKernel`` through
  ``cupy.cuda.driver.launchKernel``, which CuPy's own kernel call ends in). The plan-time values
  are written once; the per-call pointers and the scale go into their slots before each launch.
  That skips CuPy's per-argument conversion and checks, about 1 µs per launch on top of the
  driver call's own 2-3.5 µs (H200 hosts, ``docs/performance.md``).

CuPy's wrapper classes are not public API: :func:`fixed` and :func:`pointer` check once that they
behave as expected (the bytes behind ``.ptr``) and otherwise hand CuPy the plain values.

A structure goes to CuPy as a size-one array, never as a ``numpy.void`` scalar: CuPy 14.2 copies
a scalar into a 64-byte buffer inside its wrapper (a larger one raised no error here and
overwrote the wrapper's other fields), and ``ra_fft_layout`` is larger.
"""

import ctypes

import numpy

from rocarray._core import prepared_launch

#: ``ra_fft_layout`` field by field: name and NumPy type, in declaration order (8-byte fields
#: first, so the natural C layout has no padding).
LAYOUT_FIELDS = (
    ("radices", "<u8"), ("batch", "<i8"), ("first_batch", "<i8"), ("d0", "<i8"), ("d1", "<i8"),
    ("is0", "<i8"), ("is1", "<i8"), ("is2", "<i8"), ("isn", "<i8"),
    ("os0", "<i8"), ("os1", "<i8"), ("os2", "<i8"), ("osn", "<i8"),
    ("tw_n", "<i8"), ("tw_split", "<i8"),
    ("n", "<i4"), ("passes", "<i4"), ("per_block", "<i4"), ("tw_dim", "<i4"),
)
#: The structured dtype (C alignment rules: every field at a multiple of its size).
LAYOUT = numpy.dtype([(name, fmt) for name, fmt in LAYOUT_FIELDS], align=True)
#: ``sizeof(ra_fft_layout)``, asserted in ``stockham.hip``.
LAYOUT_BYTES = 136

if LAYOUT.itemsize != LAYOUT_BYTES:  # pragma: no cover (an edit of LAYOUT_FIELDS)
    raise ImportError(f"LAYOUT is {LAYOUT.itemsize} bytes, ra_fft_layout {LAYOUT_BYTES}")


def layout(**values):
    """A size-one ``LAYOUT`` array with every field set (a missing or unknown field raises)."""
    if set(values) != set(LAYOUT.names):
        missing = sorted(set(LAYOUT.names) - set(values))
        extra = sorted(set(values) - set(LAYOUT.names))
        raise ValueError(f"layout fields: missing {missing}, unknown {extra}")
    out = numpy.zeros(1, LAYOUT)
    for name, value in values.items():
        out[name] = int(value)
        if int(out[name][0]) != int(value):
            raise OverflowError(f"layout field {name} = {value} does not fit {LAYOUT[name]}")
    return out


# --------------------------------------------------------------------------------------------
# prebuilt CuPy argument wrappers
# --------------------------------------------------------------------------------------------

_wrappers = None   # (scalar, array, intptr) classes, or () when unusable


def _probe():
    """CuPy's argument wrappers when they pass the bytes this module expects, else ()."""
    try:
        from cupy._core._scalar import CScalar
        from cupy.cuda.function import CIntptr, CNumpyArray, CPointer

        for cls in (CScalar, CIntptr, CNumpyArray):
            if not issubclass(cls, CPointer):
                return ()
        checks = []
        value = numpy.int64(-0x123456789ABCDEF)
        checks.append((CScalar(value), value.tobytes()))
        small = numpy.float32(0.25)
        checks.append((CScalar(small), small.tobytes()))
        arr = numpy.arange(1, 1 + LAYOUT_BYTES, dtype=numpy.uint8).view(LAYOUT)
        checks.append((CNumpyArray(arr), arr.tobytes()))
        checks.append((CIntptr(0x7F0012345678), (0x7F0012345678).to_bytes(8, "little")))
        for wrapper, want in checks:
            if ctypes.string_at(wrapper.ptr, len(want)) != want:
                return ()
        return CScalar, CNumpyArray, CIntptr
    except Exception:
        return ()


def _classes():
    global _wrappers
    if _wrappers is None:
        _wrappers = _probe()
    return _wrappers


def fixed(value):
    """``value`` (a NumPy scalar or a size-one NumPy array) as a prebuilt kernel argument; the
    value itself where CuPy's wrappers are not usable. Keep the result alive with the launch."""
    classes = _classes()
    if not classes:
        return value
    scalar, array, _ = classes
    if isinstance(value, numpy.ndarray):
        if value.size != 1 or not value.flags.c_contiguous:
            raise ValueError("a by-value kernel argument must be a contiguous size-one array")
        return array(value)
    if isinstance(value, numpy.generic) and value.dtype.kind in "biuf":
        return scalar(value)
    return value


def _plain_pointer(address):
    return numpy.uint64(address & 0xFFFFFFFFFFFFFFFF)


_pointer = None


def pointer_factory():
    """A function turning a device address into a kernel argument (look it up once per call of
    a schedule, then apply it per launch)."""
    global _pointer
    if _pointer is None:
        classes = _classes()
        _pointer = classes[2] if classes else _plain_pointer
    return _pointer


def pointer(address):
    """A device address as a kernel argument."""
    return pointer_factory()(address)


# --------------------------------------------------------------------------------------------
# arguments for the driver's launch call
# --------------------------------------------------------------------------------------------

_REAL_CTYPES = {4: ctypes.c_float, 8: ctypes.c_double}


#: ``cupy.cuda.driver.launchKernel`` or None (:func:`rocarray._core.prepared_launch.driver_launch`).
driver_launch = prepared_launch.driver_launch


class HostArgs:
    """One launch's arguments at fixed host addresses and the array of their addresses that the
    driver's launch call takes (it copies the values when the launch is queued).

    Parameters
    ----------
    values : sequence
        Plan-time arguments: NumPy scalars or size-one contiguous NumPy arrays (copied here);
        ``None`` in the slots filled per call.
    pointer_slots, scale_slots : sequence of int
        Slots of the per-call device addresses (8 bytes) and of the scale.
    scale_bytes : int
        4 (float) or 8 (double).
    pointer_addresses : sequence of int, optional
        Host addresses of 8-byte slots, owned by the caller, to take the device addresses (in
        slot order) instead of slots of this object's own; :meth:`set` then writes only the scale.

    Raises
    ------
    TypeError
        A plan-time value of another kind (the caller then launches through CuPy).
    """

    def __init__(self, values, pointer_slots, scale_slots, scale_bytes, pointer_addresses=None):
        self._keep = []
        self.params = (ctypes.c_void_p * max(1, len(values)))()
        self.pointers = []
        self.scales = []
        external = list(pointer_addresses) if pointer_addresses is not None else None
        pointer_slots, scale_slots = sorted(pointer_slots), set(scale_slots)
        if external is not None and len(external) != len(pointer_slots):
            raise ValueError("one host address per pointer slot")
        for i, value in enumerate(values):
            if i in pointer_slots:
                if external is not None:
                    self.params[i] = external[pointer_slots.index(i)]
                    continue
                slot = ctypes.c_uint64(0)
                self.pointers.append(slot)
                address = ctypes.addressof(slot)
            elif i in scale_slots:
                slot = _REAL_CTYPES[scale_bytes](0)
                self.scales.append(slot)
                address = ctypes.addressof(slot)
            elif isinstance(value, numpy.generic) and value.dtype.kind in "biuf" or (
                    isinstance(value, numpy.ndarray) and value.size == 1):
                slot = numpy.array(value, copy=True, order="C")
                address = slot.ctypes.data
            else:
                raise TypeError(f"kernel argument {i} of type {type(value).__name__} has no fixed host form")
            self._keep.append(slot)
            self.params[i] = address
        self.address = ctypes.addressof(self.params)

    def set(self, pointers, scale):
        """Write this call's device addresses (in slot order) and scale."""
        for slot, value in zip(self.pointers, pointers):
            slot.value = value
        for slot in self.scales:
            slot.value = scale
