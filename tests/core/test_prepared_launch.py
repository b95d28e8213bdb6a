"""Prepared kernel launches (:mod:`rocarray._core.prepared_launch`), on the CPU: the bytes that
reach the driver's launch call, the per-call slots, and the fall-back to CuPy's call."""

import ctypes

import numpy as np
import pytest

from rocarray._core import prepared_launch as P

MAP = np.dtype([("words", "<u8", (16,))])


class _Stream:
    ptr = 0x5150


class _Cuda:
    @staticmethod
    def get_current_stream():
        return _Stream()


class _Cupy:
    cuda = _Cuda()


def _kernel(ptr=0xF00):
    return type("K", (), {"kernel": type("F", (), {"ptr": ptr})()})()


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

    monkeypatch.setattr(P, "driver_launch", lambda: launch_kernel)
    monkeypatch.setattr(P.launch, "cupy", lambda: _Cupy())
    return calls, state


def test_driver_gets_fixed_and_per_call_bytes(driver):
    calls, state = driver
    tmap = np.arange(16, dtype="<u8").view(MAP)
    args = (np.int64(-7), P.POINTER, P.scalar(np.float32), np.int32(3), P.HOST_ARRAY, P.scalar(np.float64),
            P.scalar(np.complex64), P.scalar(np.complex128), np.uint64(0xABC), tmap, P.POINTER)
    state["sizes"] = [8, 8, 4, 4, 128, 8, 8, 16, 8, 128, 8]
    go = P.PreparedLaunch(_kernel(), (5, 2), 256, args, shared_mem=4096)
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
    go = P.PreparedLaunch(_kernel(), 1, 32, (value, P.POINTER))
    value[0] = 9  # a later change of the caller's array does not reach the launch
    go(1)
    assert calls[0][1][0] == np.int64(5).tobytes()


def test_wrong_number_of_values_is_type_error(driver):
    go = P.PreparedLaunch(_kernel(), 1, 32, (P.POINTER, P.POINTER))
    with pytest.raises(TypeError, match="2 per-call values, got 1"):
        go(1)


@pytest.mark.parametrize("bad", [1, 2.0, np.zeros(2), "x", None])
def test_unusable_fixed_argument_is_type_error(bad):
    with pytest.raises(TypeError, match="kernel argument 1"):
        P.PreparedLaunch(_kernel(), 1, 32, (P.POINTER, bad))


def test_by_value_slot_takes_only_size_one_arrays(driver):
    go = P.PreparedLaunch(_kernel(), 1, 32, (P.HOST_ARRAY,))
    with pytest.raises(TypeError, match="size-one"):
        go(np.zeros(3))


def test_scalar_slot_needs_a_numeric_type():
    with pytest.raises(TypeError, match="numeric"):
        P.scalar(np.dtype("U3"))


def test_bad_dimensions_are_value_error(driver):
    with pytest.raises(ValueError, match="1 to 3 dimensions"):
        P.PreparedLaunch(_kernel(), (1, 1, 1, 1), 32, ())


def test_stand_in_kernel_goes_through_cupy_call_with_numpy_types():
    seen = []

    def kernel(grid, block, args, shared_mem=0):
        seen.append((grid, block, args, shared_mem))

    tmap = np.zeros(1, MAP)
    go = P.PreparedLaunch(kernel, (3, 1), (128,), (np.int64(4), P.POINTER, P.scalar(np.float32), P.HOST_ARRAY,
                                                   P.scalar(np.complex128)), shared_mem=99)
    go(0x1234, 0.5, tmap, 1 - 1j)
    grid, block, args, shared = seen[0]
    assert grid == (3, 1) and block == (128,) and shared == 99
    assert args[0] == 4 and args[1].dtype == np.uint64 and args[1] == 0x1234
    assert args[2].dtype == np.float32 and args[2] == 0.5 and args[3] is tmap
    assert args[4].dtype == np.complex128 and args[4] == 1 - 1j


def test_without_the_driver_call_cupy_call_is_used(monkeypatch):
    monkeypatch.setattr(P, "driver_launch", lambda: None)
    seen = []

    class Kernel:
        kernel = type("F", (), {"ptr": 0xF00})()

        def __call__(self, grid, block, args, shared_mem=0):
            seen.append(args)

    P.PreparedLaunch(Kernel(), 1, 32, (P.POINTER,))(7)
    assert seen == [(np.uint64(7),)]
