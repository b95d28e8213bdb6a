"""Kernel launches (:mod:`rocarray._core.launch`), on the CPU: the bytes that reach the driver's
launch call for prepared and immediate launches, the per-call slots, the dependent-launch choice
and the fall-back to CuPy's call for stand-in kernels."""

import ctypes
import types

import numpy as np
import pytest

from rocarray._core import backend
from rocarray._core import driver as D
from rocarray._core import launch as L

MAP = np.dtype([("words", "<u8", (16,))])


def _kernel(ptr=0xF00):
    return type("K", (), {"kernel": type("F", (), {"ptr": ptr})()})()


def _cupy(stream_ptr=0x5150):
    stream = types.SimpleNamespace(ptr=stream_ptr)
    return types.SimpleNamespace(cuda=types.SimpleNamespace(get_current_stream=lambda: stream))


@pytest.fixture
def driver(monkeypatch):
    """A stand-in for the driver's launch call recording the argument bytes (sizes given by the
    test) at the moment of the launch."""
    calls = []
    state = {"sizes": None}

    def launch_kernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        sizes = state["sizes"]
        addresses = (ctypes.c_void_p * len(sizes)).from_address(params)
        calls.append(((f, gx, gy, gz, bx, by, bz, shared, stream, extra),
                      [ctypes.string_at(addresses[i], n) for i, n in enumerate(sizes)]))

    monkeypatch.setattr(D, "launch_kernel", lambda: launch_kernel)
    monkeypatch.setattr(backend, "cupy", lambda: _cupy())
    return calls, state


def test_driver_gets_fixed_and_per_call_bytes(driver):
    calls, state = driver
    tmap = np.arange(16, dtype="<u8").view(MAP)
    args = (np.int64(-7), L.POINTER, L.scalar(np.float32), np.int32(3), L.HOST_ARRAY, L.scalar(np.float64),
            L.scalar(np.complex64), L.scalar(np.complex128), np.uint64(0xABC), tmap, L.POINTER)
    state["sizes"] = [8, 8, 4, 4, 128, 8, 8, 16, 8, 128, 8]
    go = L.Launch(_kernel(), (5, 2), 256, args, shared_mem=4096)
    other = np.full(16, 0x77, dtype="<u8").view(MAP)
    go(0x7F0012345678, 0.25, other, 2.5, 1 + 2j, np.complex128(-3 + 0.5j), 0)
    go(0x10, np.float32(-1.5), tmap, 7.0, 0j, 0.125j, 0xFFFFFFFFFFFFFFFF)
    (head, first), (head2, second) = calls
    assert head == head2 == (0xF00, 5, 2, 1, 256, 1, 1, 4096, 0x5150, 0)
    assert first[0] == np.int64(-7).tobytes() and first[3] == np.int32(3).tobytes()
    assert first[1] == (0x7F0012345678).to_bytes(8, "little")
    assert first[2] == np.float32(0.25).tobytes() and first[5] == np.float64(2.5).tobytes()
    assert first[4] == other.tobytes() and first[9] == tmap.tobytes() and first[8] == np.uint64(0xABC).tobytes()
    assert first[6] == np.complex64(1 + 2j).tobytes() and first[7] == np.complex128(-3 + 0.5j).tobytes()
    assert first[10] == bytes(8)
    assert second[1] == (0x10).to_bytes(8, "little") and second[2] == np.float32(-1.5).tobytes()
    assert second[4] == tmap.tobytes() and second[7] == np.complex128(0.125j).tobytes()
    assert second[10] == b"\xff" * 8


def test_fixed_values_are_copied_at_preparation(driver):
    calls, state = driver
    value = np.array([5], dtype=np.int64)
    state["sizes"] = [8, 8]
    go = L.Launch(_kernel(), 1, 32, (value, L.POINTER))
    value[0] = 9  # a later change of the caller's array does not reach the launch
    go(1)
    assert calls[0][1][0] == np.int64(5).tobytes()


def test_wrong_number_of_values_is_type_error(driver):
    go = L.Launch(_kernel(), 1, 32, (L.POINTER, L.POINTER))
    with pytest.raises(TypeError, match="2 per-call values, got 1"):
        go(1)


@pytest.mark.parametrize("bad", [1, 2.0, np.zeros(2), "x", None])
def test_unusable_fixed_argument_is_type_error(bad):
    with pytest.raises(TypeError, match="kernel argument 1"):
        L.Launch(_kernel(), 1, 32, (L.POINTER, bad))


def test_by_value_slot_takes_only_size_one_arrays(driver):
    go = L.Launch(_kernel(), 1, 32, (L.HOST_ARRAY,))
    with pytest.raises(TypeError, match="size-one"):
        go(np.zeros(3))


def test_scalar_slot_needs_a_numeric_type():
    with pytest.raises(TypeError, match="numeric"):
        L.scalar(np.dtype("U3"))


def test_bad_dimensions_are_value_error(driver):
    with pytest.raises(ValueError, match="1 to 3 dimensions"):
        L.Launch(_kernel(), (1, 1, 1, 1), 32, ())


def test_stand_in_kernel_goes_through_cupy_call_with_numpy_types():
    seen = []

    def kernel(grid, block, args, shared_mem=0):
        seen.append((grid, block, args, shared_mem))

    tmap = np.zeros(1, MAP)
    go = L.Launch(kernel, (3, 1), (128,), (np.int64(4), L.POINTER, L.scalar(np.float32), L.HOST_ARRAY,
                                            L.scalar(np.complex128)), shared_mem=99)
    go(0x1234, 0.5, tmap, 1 - 1j)
    grid, block, args, shared = seen[0]
    assert grid == (3, 1) and block == (128,) and shared == 99
    assert args[0] == 4 and args[1].dtype == np.uint64 and args[1] == 0x1234
    assert args[2].dtype == np.float32 and args[2] == 0.5 and args[3] is tmap
    assert args[4].dtype == np.complex128 and args[4] == 1 - 1j


def test_without_the_driver_call_cupy_call_is_used(monkeypatch):
    monkeypatch.setattr(D, "launch_kernel", lambda: None)
    seen = []

    class Kernel:
        kernel = type("F", (), {"ptr": 0xF00})()

        def __call__(self, grid, block, args, shared_mem=0):
            seen.append(args)

    L.Launch(Kernel(), 1, 32, (L.POINTER,))(7)
    assert seen == [(np.uint64(7),)]


@pytest.mark.parametrize("dependent", [False, True])
def test_a_launch_is_dependent_only_when_asked(monkeypatch, dependent):
    results, ex_calls = [0], []

    def launch_ex(config, function, params, extra):
        c = config._obj
        ex_calls.append(((c.grid_x, c.grid_y, c.grid_z), (c.block_x, c.block_y, c.block_z), c.shared_bytes,
                         c.stream, params))
        return results.pop(0)

    plain = []
    monkeypatch.setattr(D, "_launch_ex", [launch_ex])
    monkeypatch.setattr(D, "launch_kernel", lambda: lambda *a: plain.append(a[:9]))
    monkeypatch.setattr(backend, "cupy", lambda: _cupy())
    go = L.Launch(_kernel(), (5,), (256,), (np.int64(3), L.POINTER), shared_mem=4096, dependent=dependent)
    go(0x7000)
    if dependent:
        assert plain == [] and [c[:4] for c in ex_calls] == [((5, 1, 1), (256, 1, 1), 4096, 0x5150)]
        params = (ctypes.c_void_p * 2).from_address(ex_calls[0][4])
        assert ctypes.c_int64.from_address(params[0]).value == 3
        assert ctypes.c_uint64.from_address(params[1]).value == 0x7000
    else:
        assert ex_calls == [] and plain == [(0xF00, 5, 1, 1, 256, 1, 1, 4096, 0x5150)]


# --------------------------------------------------------------------------------------------
# immediate launches
# --------------------------------------------------------------------------------------------

class _Memory:
    def __init__(self, ptr):
        self.ptr = ptr


class _DeviceArray:
    def __init__(self, ptr):
        self.data = _Memory(ptr)


def test_immediate_launch_passes_scalars_structures_and_device_addresses(driver):
    calls, state = driver
    tmap = np.arange(16, dtype="<u8").view(MAP)
    state["sizes"] = [8, 4, 8, 128, 8, 16, 1, 2, 8, 4, 8, 4]
    extremes = (np.float64(-2.5e300), np.int32(-7), np.uint64(2 ** 64 - 1), np.uint32(4_000_000_000))
    L.launch(_kernel(), (7,), (64,), (np.int64(-2), np.float32(1.5), _DeviceArray(0xBEEF00), tmap,
                                      _Memory(0xCAFE10), np.complex128(1 - 2j), np.bool_(True), np.float16(0.5))
             + extremes, 512)
    head, values = calls[0]
    assert head == (0xF00, 7, 1, 1, 64, 1, 1, 512, 0x5150, 0)
    assert values == [np.int64(-2).tobytes(), np.float32(1.5).tobytes(), (0xBEEF00).to_bytes(8, "little"),
                      tmap.tobytes(), (0xCAFE10).to_bytes(8, "little"), np.complex128(1 - 2j).tobytes(), b"\x01",
                      np.float16(0.5).tobytes()] + [x.tobytes() for x in extremes]


@pytest.mark.parametrize("bad", [1, 2.5, "x", None, np.zeros(3)])
def test_immediate_launch_refuses_arguments_without_a_size(driver, bad):
    with pytest.raises(TypeError):
        L.launch(_kernel(), 1, 32, (np.int64(1), bad))


def test_immediate_launch_of_a_stand_in_goes_through_its_call():
    seen = []
    L.launch(lambda grid, block, args, shared_mem=0: seen.append((grid, block, args, shared_mem)), (2,), (32,),
             (np.int32(1), _Memory(0x10)), 16)
    assert seen[0][0] == (2,) and seen[0][3] == 16 and seen[0][2][0] == np.int32(1)
    with pytest.raises(TypeError):
        L.launch(lambda *a, **k: None, 1, 32, (7,))


def test_on_device_switches_only_when_another_device_is_current(monkeypatch):
    entered = []

    class Device:
        def __init__(self, i):
            self.i = i

        def __enter__(self):
            entered.append(self.i)

        def __exit__(self, *exc):
            entered.append(-self.i)

    runtime = types.SimpleNamespace(getDevice=lambda: 1)
    monkeypatch.setattr(backend, "cupy", lambda: types.SimpleNamespace(
        cuda=types.SimpleNamespace(runtime=runtime, Device=Device)))
    with L.on_device(1):
        pass
    assert entered == []
    with L.on_device(3):
        pass
    assert entered == [3, -3]


def test_cooperative_launch_goes_to_the_drivers_cooperative_entry(driver, monkeypatch):
    calls, _ = driver
    coop = []

    def entry(f, gx, gy, gz, bx, by, bz, shared, stream, params):
        addresses = (ctypes.c_void_p * 2).from_address(params)
        coop.append(((f, gx, gy, gz, bx, by, bz, shared, stream),
                     [ctypes.string_at(addresses[0], 8), ctypes.string_at(addresses[1], 8)]))
        return status[0]

    status = [0]
    monkeypatch.setattr(D, "cooperative_launch", lambda: entry)
    assert L.cooperative_available(_kernel())
    L.launch(_kernel(), (131,), (128,), (np.int64(5), _Memory(0xCAFE10)), 2048, cooperative=True)
    assert not calls   # not the plain launch
    assert coop[0][0] == (0xF00, 131, 1, 1, 128, 1, 1, 2048, 0x5150)
    assert coop[0][1] == [np.int64(5).tobytes(), (0xCAFE10).to_bytes(8, "little")]
    status[0] = 720    # CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
    with pytest.raises(RuntimeError, match="refused a cooperative launch.*status 720"):
        L.launch(_kernel(), (9999,), (128,), (np.int64(5), _Memory(0xCAFE10)), 0, cooperative=True)


def test_cooperative_launch_availability_and_stand_ins(monkeypatch):
    monkeypatch.setattr(D, "cooperative_launch", lambda: None)
    assert not L.cooperative_available(_kernel())
    seen = []
    stand_in = lambda grid, block, args, shared_mem=0, cooperative=False: seen.append(cooperative)  # noqa: E731
    assert L.cooperative_available(stand_in)
    L.launch(stand_in, (3,), (64,), (np.int32(1),), 0, cooperative=True)
    L.launch(stand_in, (3,), (64,), (np.int32(1),), 0)
    assert seen == [True, False]


class _NoContext(Exception):
    """CuPy's driver error for a thread without a current context."""

    status = D.INVALID_CONTEXT


def _runtime_recording(monkeypatch, bound):
    runtime = types.SimpleNamespace(is_hip=False, getDevice=lambda: 1, setDevice=lambda d: bound.append(("set", d)),
                                    free=lambda p: bound.append(("free", p)))
    cupy = _cupy()
    cupy.cuda.runtime = runtime
    monkeypatch.setattr(backend, "cupy", lambda: cupy)


@pytest.mark.parametrize("prepared", [True, False])
def test_a_thread_without_a_context_gets_the_current_devices_and_the_launch_is_queued(monkeypatch, prepared):
    bound, queued = [], []

    def launch_kernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        if not bound:
            raise _NoContext("CUDA_ERROR_INVALID_CONTEXT")
        queued.append((f, gx))

    monkeypatch.setattr(D, "launch_kernel", lambda: launch_kernel)
    _runtime_recording(monkeypatch, bound)
    if prepared:
        L.Launch(_kernel(), 3, 32, (L.POINTER,))(0x10)
    else:
        L.launch(_kernel(), 3, 32, (_Memory(0x10),))
    assert bound == [("set", 1), ("free", 0)] and queued == [(0xF00, 3)]


def test_other_launch_errors_are_not_retried(monkeypatch):
    bound, calls = [], []

    class Refused(Exception):
        status = 1   # CUDA_ERROR_INVALID_VALUE

    def launch_kernel(*args):
        calls.append(args)
        raise Refused("CUDA_ERROR_INVALID_VALUE")

    monkeypatch.setattr(D, "launch_kernel", lambda: launch_kernel)
    _runtime_recording(monkeypatch, bound)
    with pytest.raises(Refused):
        L.Launch(_kernel(), 3, 32, (L.POINTER,))(0x10)
    assert not bound and len(calls) == 1


def test_a_cooperative_launch_without_a_context_binds_it_and_is_queued(monkeypatch):
    bound, statuses = [], [D.INVALID_CONTEXT, 0]
    monkeypatch.setattr(D, "cooperative_launch", lambda: lambda *args: statuses.pop(0))
    _runtime_recording(monkeypatch, bound)
    L.launch(_kernel(), (4,), (64,), (np.int64(5),), 0, cooperative=True)
    assert bound == [("set", 1), ("free", 0)] and not statuses


def test_a_dependent_launch_without_a_context_binds_it_and_stays_dependent(monkeypatch):
    bound, statuses, plain = [], [D.INVALID_CONTEXT, 0, 0], []
    monkeypatch.setattr(D, "_launch_ex_entry", lambda: lambda *args: statuses.pop(0))
    _runtime_recording(monkeypatch, bound)
    go = D.DependentLaunch(lambda *args: plain.append(args))
    go(0xF00, 1, 1, 1, 32, 1, 1, 0, 0x5150, 0, 0)
    go(0xF00, 1, 1, 1, 32, 1, 1, 0, 0x5150, 0, 0)
    assert bound == [("set", 1), ("free", 0)] and not statuses and not plain
