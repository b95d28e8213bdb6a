"""The by-value layout argument of the Stockham kernels and the prebuilt kernel arguments (CPU).

``ra_fft_layout`` in ``stockham.hip`` and :data:`rocarray.rocfft._kernel_args.LAYOUT` must agree
byte for byte: the kernel source asserts its size and every field offset (checked by NVRTC and
hipcc in the compile matrix), these tests compare those numbers and the declaration order with
the NumPy dtype, and compile the structure with the host C++ compiler to read the offsets back.
"""

import ctypes
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from rocarray._core import compile as ra_compile
from rocarray.rocfft import _kernel_args as K
from rocarray.rocfft import _schedule as S

SOURCE = ra_compile.read_text("rocfft/stockham.hip")


def struct_text():
    start = SOURCE.index("struct ra_fft_layout {")
    return SOURCE[start:SOURCE.index("};", start) + 2]


def test_layout_fields_follow_the_kernel_declaration_order():
    body = struct_text().split("{", 1)[1]
    body = re.sub(r"//[^\n]*", "", body)
    names = []
    for ctype, decl in re.findall(r"(ra_[iu](?:32|64))\s+([^;]+);", body):
        for name in decl.split(","):
            names.append((name.strip(), ctype))
    widths = {"ra_i32": "<i4", "ra_i64": "<i8", "ra_u64": "<u8"}
    assert [(n, widths[c]) for n, c in names] == list(K.LAYOUT_FIELDS)


def test_layout_offsets_are_natural_and_size_matches_the_kernel_assert():
    # 8-byte fields first, then 4-byte ones: natural alignment leaves no padding, so the kernel's
    # struct (same declaration order, checked above) has these offsets on every compiler.
    offset = 0
    for name in K.LAYOUT.names:
        width = K.LAYOUT.fields[name][0].itemsize
        assert offset % width == 0, name
        assert K.LAYOUT.fields[name][1] == offset, name
        offset += width
    size = re.search(r"static_assert\(sizeof\(ra_fft_layout\) == (\d+)", SOURCE)
    assert int(size.group(1)) == K.LAYOUT_BYTES == K.LAYOUT.itemsize == offset


def _host_compiler():
    for name in ("clang++-15", "clang++", "g++", "c++"):
        path = shutil.which(name)
        if path:
            return path
    return None


def test_layout_offsets_from_the_host_compiler(tmp_path):
    cxx = _host_compiler()
    if cxx is None:
        pytest.skip("no host C++ compiler")
    asserts = "\n".join(line for line in SOURCE.splitlines() if line.startswith("static_assert")
                        and "ra_fft_layout" in line)
    prints = "\n".join(f'    std::printf("{name} %zu\\n", offsetof(ra_fft_layout, {name}));'
                       for name in K.LAYOUT.names)
    text = f"""#include <cstddef>
#include <cstdio>
typedef int ra_i32; typedef long long ra_i64; typedef unsigned long long ra_u64;
{struct_text()}
{asserts}
int main() {{
    std::printf("sizeof %zu\\n", sizeof(ra_fft_layout));
{prints}
}}
"""
    src, exe = tmp_path / "probe.cc", tmp_path / "probe"
    src.write_text(text)
    subprocess.run([cxx, "-std=c++17", str(src), "-o", str(exe)], check=True, capture_output=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    got = {k: int(v) for k, v in (line.split() for line in out.splitlines())}
    assert got.pop("sizeof") == K.LAYOUT.itemsize
    assert got == {name: K.LAYOUT.fields[name][1] for name in K.LAYOUT.names}


def test_layout_sets_every_field_and_rejects_missing_unknown_or_too_large():
    values = {name: i + 1 for i, name in enumerate(K.LAYOUT.names)}
    arr = K.layout(**values)
    assert arr.shape == (1,) and arr.dtype == K.LAYOUT
    assert {name: int(arr[0][name]) for name in K.LAYOUT.names} == values
    assert K.layout(**dict(values, is0=-(1 << 40)))[0]["is0"] == -(1 << 40)
    with pytest.raises(ValueError, match="missing"):
        K.layout(**{k: v for k, v in values.items() if k != "tw_dim"})
    with pytest.raises(ValueError, match="unknown"):
        K.layout(**values, extra=1)
    with pytest.raises(OverflowError):
        K.layout(**dict(values, n=1 << 31))


def _bytes_of(arg, nbytes):
    """What a launch passes for ``arg``: CuPy reads the bytes behind a wrapper's ``ptr``."""
    if hasattr(arg, "ptr") and not isinstance(arg, np.ndarray):
        return ctypes.string_at(arg.ptr, nbytes)
    if isinstance(arg, np.ndarray):
        return arg.tobytes()
    return np.asarray(arg).tobytes()


@pytest.mark.parametrize("value", [np.int32(-7), np.int64(1 << 40), np.uint64((1 << 63) + 5), np.float32(0.5),
                                   np.float64(-2.25)])
def test_fixed_scalars_pass_their_bytes(value):
    assert _bytes_of(K.fixed(value), value.itemsize) == value.tobytes()


def test_fixed_layout_passes_its_bytes_and_pointer_its_address():
    arr = K.layout(**{name: 3 * i - 20 if name != "radices" else 0xFEDCBA9876543210 for i, name in enumerate(K.LAYOUT.names)})
    assert _bytes_of(K.fixed(arr), K.LAYOUT_BYTES) == arr.tobytes()
    assert _bytes_of(K.pointer(0x7F00DEADBEE0), 8) == (0x7F00DEADBEE0).to_bytes(8, "little")
    with pytest.raises(ValueError):
        K.fixed(np.zeros(2, K.LAYOUT))


def test_stockham_launch_packs_fixed_arguments_once():
    kernel = type("K", (), {"max_dynamic_shared_size_bytes": 0})()
    arr = K.layout(**{name: 1 for name in K.LAYOUT.names})
    item = S.Launch(kernel, 3, 0, (S.Ref("src"), S.Ref("dst", 5), np.uint64(4096), np.uint64(0), np.uint64(0),
                                   arr, S.SCALE), 64)
    assert item.refs == ((0, S.Ref("src")), (1, S.Ref("dst", 5))) and item.scale_slots == (6,)
    assert item.packed[0] is None and item.packed[1] is None and item.packed[6] is None
    assert _bytes_of(item.packed[5], K.LAYOUT_BYTES) == arr.tobytes()
    assert _bytes_of(item.packed[2], 8) == np.uint64(4096).tobytes()
    assert item.grid_dims == (3,) and item.block_dims == (64,)


def test_schedule_run_fills_pointers_and_scale(monkeypatch):
    calls = []

    class Kernel:
        def __call__(self, grid, block, args, shared_mem=0):
            calls.append((grid, block, args, shared_mem))

    sched = S.Schedule("double")
    arr = K.layout(**{name: 2 for name in K.LAYOUT.names})
    sched.launches.append(S.Launch(Kernel(), 2, 128, (S.Ref("src", 3), S.Ref("dst"), np.uint64(64),
                                                      np.uint64(0), np.uint64(0), arr, S.SCALE), 256))
    sched.run(1 << 20, 1 << 24, 0.5)
    sched.run(1 << 20, 1 << 24, 0.5)
    (grid, block, args, shared), again = calls
    assert grid == (2,) and block == (256,) and shared == 128
    assert _bytes_of(args[0], 8) == ((1 << 20) + 3 * 16).to_bytes(8, "little")
    assert _bytes_of(args[1], 8) == (1 << 24).to_bytes(8, "little")
    assert _bytes_of(args[6], 8) == np.float64(0.5).tobytes()
    assert _bytes_of(args[5], K.LAYOUT_BYTES) == arr.tobytes()
    assert again[2][6] is args[6]  # the scale argument is built once per value


def test_without_usable_cupy_wrappers_the_plain_values_go_to_cupy(monkeypatch):
    monkeypatch.setattr(K, "_wrappers", ())
    monkeypatch.setattr(K, "_pointer", None)
    arr = K.layout(**{name: 1 for name in K.LAYOUT.names})
    value = np.int64(3)
    assert K.fixed(arr) is arr and K.fixed(value) is value
    ptr = K.pointer(0x7F0000001000)
    assert isinstance(ptr, np.uint64) and int(ptr) == 0x7F0000001000


# --------------------------------------------------------------------------------------------
# the driver's launch call
# --------------------------------------------------------------------------------------------

class _Cuda:
    """The parts of ``cupy.cuda`` a direct launch reads: the current device and stream."""

    def __init__(self):
        self.device = 0
        self.runtime = type("Runtime", (), {"getDevice": lambda _: self.device})()
        self.get_current_stream = lambda: type("Stream", (), {"ptr": 0x5150})()


def _direct_schedule(monkeypatch, precision, kernel_ptr=0xF00):
    cuda = _Cuda()
    monkeypatch.setattr(S.launch, "cupy", lambda: type("Cupy", (), {"cuda": cuda})())
    calls = []

    def launch_kernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        addresses = (ctypes.c_void_p * 7).from_address(params)
        sizes = [8, 8, 8, 8, 8, K.LAYOUT_BYTES, 4 if precision == "single" else 8]
        values = [ctypes.string_at(addresses[i], sizes[i]) for i in range(7)]
        calls.append(((f, gx, gy, gz, bx, by, bz, shared, stream, extra), values))

    monkeypatch.setattr(K, "driver_launch", lambda: launch_kernel)
    kernel = type("K", (), {"kernel": type("F", (), {"ptr": kernel_ptr})()})()
    sched = S.Schedule(precision)
    arr = K.layout(**{name: 3 for name in K.LAYOUT.names})
    sched.launches.append(S.Launch(kernel, 5, 1024, (S.Ref("src", 2), S.Ref(0, 7), np.uint64(0xABC), np.uint64(0),
                                                     np.uint64(1), arr, S.SCALE), 128))
    sched.work.append(16)
    return sched, calls, cuda, arr


@pytest.mark.parametrize("precision", ["single", "double"])
def test_direct_launch_passes_the_bytes_cupy_would(monkeypatch, precision):
    sched, calls, cuda, arr = _direct_schedule(monkeypatch, precision)
    allocated = []

    def alloc(nbytes):
        allocated.append(nbytes)
        return type("Mem", (), {"ptr": 0x100000 * len(allocated)})()

    cuda.alloc = alloc
    item = 16 if precision == "double" else 8
    real = np.float64 if precision == "double" else np.float32
    sched.run(1 << 24, 1 << 28, 0.1)
    sched.run((1 << 24) + 64, 1 << 28, 2.5)
    assert isinstance(sched.direct, S.DirectLaunches) and allocated == [256, 256]  # one aligned allocation
    (head, first), (_, second) = calls
    assert head == (0xF00, 5, 1, 1, 128, 1, 1, 1024, 0x5150, 0)
    assert first[0] == ((1 << 24) + 2 * item).to_bytes(8, "little")
    assert first[1] == (0x100000 + 7 * item).to_bytes(8, "little")  # the work buffer, shifted
    assert first[2] == np.uint64(0xABC).tobytes() and first[4] == np.uint64(1).tobytes()
    assert first[5] == arr.tobytes()
    assert first[6] == real(0.1).tobytes() and second[6] == real(2.5).tobytes()
    assert second[0] == ((1 << 24) + 64 + 2 * item).to_bytes(8, "little")


def test_direct_launch_falls_back_to_cupy_off_its_device_or_without_a_handle(monkeypatch):
    sched, calls, cuda, _ = _direct_schedule(monkeypatch, "single")
    cuda.alloc = lambda nbytes: type("Mem", (), {"ptr": 1 << 30})()
    through_cupy = []
    kernel = sched.launches[0].kernel
    type(kernel).__call__ = lambda self, grid, block, args, shared_mem=0: through_cupy.append(grid)
    sched.run(1 << 20, 1 << 21)
    assert len(calls) == 1 and not through_cupy
    cuda.device = 1  # another device is current: the handle belongs to device 0
    sched.run(1 << 20, 1 << 21)
    assert len(calls) == 1 and through_cupy == [(5,)]
    # a kernel stand-in without a handle never goes direct
    plain = S.Schedule("single")
    plain.launches.append(S.Launch(lambda *a, **k: through_cupy.append("plain"), 1, 0, (S.Ref("src"), S.SCALE)))
    plain.run(1 << 20, 1 << 21)
    assert plain.direct is False and through_cupy[-1] == "plain"


@pytest.mark.parametrize("precision", ["single", "double"])
def test_work_buffers_share_one_aligned_allocation(monkeypatch, precision):
    sched, calls, cuda, arr = _direct_schedule(monkeypatch, precision)
    item = 16 if precision == "double" else 8
    sched.work[:] = []
    for elements in (16, 0, 1000):  # the middle buffer is empty: it still gets its own slot
        sched.add_work(elements)
    second = S.Launch(sched.launches[0].kernel, 1, 0, (S.Ref(2, 3), S.Ref(1), S.Ref("dst", 1), np.uint64(2),
                                                       np.uint64(3), arr, S.SCALE), 32)
    sched.launches.append(second)
    allocated = []

    def alloc(nbytes):
        allocated.append(nbytes)
        return type("Mem", (), {"ptr": 0x700000})()

    cuda.alloc = alloc
    sched.run(1 << 24, 1 << 28, 1.0)
    offsets, total = sched.work_offsets
    assert offsets == (0, 256, 512) and allocated == [total] and total >= 512 + 1000 * item
    assert all(o % S.WORK_ALIGN == 0 for o in offsets)
    (_, first), (head, values) = calls
    assert head[4] == 32
    assert first[1] == (0x700000 + 7 * item).to_bytes(8, "little")
    pointers = [int.from_bytes(v[:8], "little") for v in values[:3]]
    assert pointers == [0x700000 + 512 + 3 * item, 0x700000 + 256, (1 << 28) + item]


def test_host_args_rejects_values_without_a_fixed_form():
    with pytest.raises(TypeError):
        K.HostArgs([object()], [], [], 4)
    args = K.HostArgs([None, np.int64(-5), None], [0], [2], 8)
    args.set([0x1234], 0.5)
    values = (ctypes.c_void_p * 3).from_address(args.address)
    assert ctypes.string_at(values[0], 8) == (0x1234).to_bytes(8, "little")
    assert ctypes.string_at(values[1], 8) == np.int64(-5).tobytes()
    assert ctypes.string_at(values[2], 8) == np.float64(0.5).tobytes()
