"""The by-value layout argument of the Stockham kernels (CPU).

``ra_fft_layout`` in ``stockham.hip`` and :data:`rocarray.rocfft._layout.LAYOUT` must agree byte
for byte: the kernel source asserts its size and every field offset (checked by NVRTC and hipcc in
the compile matrix), these tests compare those numbers and the declaration order with the NumPy
dtype, and compile the structure with the host C++ compiler to read the offsets back. How a
layout reaches a launch is tested with the schedules (``test_schedule.py``).
"""

import re
import shutil
import subprocess

import pytest

from rocarray._core import compile as ra_compile
from rocarray.rocfft import _layout as K

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
