"""The matrix-unit implicit-GEMM kernel (``ra_miopen_conv_igemm_fwd_mma``) on the CPU through the
kernel emulator: its portable path as compiled, and its NVIDIA (mma.sync) and AMD (MFMA) paths
with the vendor primitives block replaced by host models of the instructions, written from the
PTX ISA's fragment tables and AMD's MFMA operand layout. The models exchange the warp's
registers through shared memory, so each tile product sees the whole fragment. CPU tests:
skipped where g++ is missing."""

import numpy as np
import pytest

import kernel_emu
from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)
from mma_host_model import mfma_32x32x8, mma_16816
from miopen import conv_reference as ref

from rocarray._core import compile as _compile
from rocarray.miopen import _conv_implicit_gemm as igemm

SEED = 20261206
BEGIN, END = "// ---- ra-conv-mma-primitives-begin ----", "// ---- ra-conv-mma-primitives-end ----"

# mma.sync.m16n8k16 with f32 accumulation. g = lane / 4, t = lane % 4. A (16 x 16, row): element
# a_i (i = 0..7, two per register, low half first) is at row g + 8 * ((i / 2) % 2), column
# 2 t + (i % 2) + 8 * (i / 4). B (16 x 8, col): b_i (i = 0..3) at row 2 t + (i % 2) + 8 * (i / 2),
# column g. C/D: c_i at row g + 8 * (i / 2), column 2 t + (i % 2).
NV_MODEL = r"""
#define RA_CONV_MMA_NV 1
""" + mma_16816("ra_conv_mma_16816")

# v_mfma_f32_32x32x8 (f16, bf16_1k), wave64: lane l holds A(l % 32, 4 (l / 32) + e) and
# B(4 (l / 32) + e, l % 32) in element e (16 bits each, low first) and D(8 (r / 4) + 4 (l / 32)
# + r % 4, l % 32) in accumulator r.
AMD_MODEL = r"""
#define RA_CONV_MMA_AMD 1
""" + mfma_32x32x8("ra_conv_mfma_32x32x8", "ra_conv_f32x16")


def _with_model(monkeypatch, model):
    """Compile the matrix-unit kernel with ``model`` in place of its vendor primitives block."""
    original = _compile.full_source

    def patched(relative_path):
        text = original(relative_path)
        if relative_path == igemm.SOURCE:
            begin, end = text.index(BEGIN), text.index(END)
            text = text[:begin] + model + text[end:]
        return text

    monkeypatch.setattr(_compile, "full_source", patched)
    monkeypatch.setattr(kernel_emu, "_kernels", {})  # no kernel compiled from the unpatched text


def test_primitives_block_holds_every_vendor_instruction():
    text = _compile.read_text(igemm.SOURCE)
    begin, end = text.index(BEGIN), text.index(END)
    inside = text[begin:end]
    for word in ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "mma.sync.aligned.m16n8k16.row.col.f32.bf16",
                 "__builtin_amdgcn_mfma_f32_32x32x8f16", "__builtin_amdgcn_mfma_f32_32x32x8bf16_1k"):
        assert word in inside
    outside = text[:begin] + text[end:]
    assert "asm(" not in outside and "__builtin_amdgcn" not in outside


# problem arguments: 8-channel groups (16-byte loads) and odd channel counts (element gathers),
# both past one 32-channel step, pixels and output channels crossing the 128 x 128 tile
MMA_CASES = [
    dict(n=2, c=80, k=20, input_size=(9, 10), filter_size=3, pad=1, groups=2),
    dict(n=1, c=19, k=130, input_size=(12, 13), filter_size=(2, 3), stride=(1, 2), dilation=(2, 1), pad=(1, 0)),
]


def _half_case(device, args):
    rng = np.random.default_rng(SEED)
    p = ref.make_problem(dtype="float16", layout="NHWC", **args)
    x, w, _ = ref.random_operands(rng, p)
    y = device.cupy.empty(p.y_shape(), p.dtype)
    igemm.forward(p, device.array(x), device.array(w), y)
    assert device.names()[-1] == igemm.mma_kernel_name("float16")
    ref.assert_conv_close(y, p, x, w)


@pytest.mark.parametrize("args", MMA_CASES)
def test_mma_kernel_portable_path(emulated_wave64_device, args):
    _half_case(emulated_wave64_device, args)


@pytest.mark.parametrize("args", MMA_CASES[:1])
def test_mma_kernel_mfma_path(emulated_wave64_device, monkeypatch, args):
    _with_model(monkeypatch, AMD_MODEL)
    _half_case(emulated_wave64_device, args)


def _bfloat16_bits(values):
    """Round-to-nearest-even bfloat16 bits of float32 values, and the values they hold."""
    u = values.astype(np.float32).view(np.uint32)
    bits = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return bits, (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


@pytest.mark.parametrize("model", [None, NV_MODEL], ids=["portable", "mma_sync"])
def test_mma_kernel_bfloat16_warp32(emulated_device, monkeypatch, model):
    # bfloat16 data as raw bits (NumPy has no bfloat16 here), launched directly
    if model is not None:
        _with_model(monkeypatch, model)
    rng = np.random.default_rng(SEED)
    p = ref.make_problem(dtype="float32", layout="NHWC", **MMA_CASES[0])
    xb, x = _bfloat16_bits(rng.standard_normal(p.x_shape()))
    wb, w = _bfloat16_bits(rng.standard_normal(p.w_shape()))
    y = emulated_device.array(np.full(p.y_shape(), 0xFFFF, np.uint16))
    name = igemm.mma_kernel_name("bfloat16")
    rows = p.n * int(np.prod(p.output_size))
    grid = (-(-rows // 128), -(-p.k_per_group // 128), p.groups)
    kernel_emu.kernel(igemm.SOURCE, name, "cuda32")(
        grid, (256,), (emulated_device.array(xb), emulated_device.array(wb), y, igemm.geometry(p), np.int32(1)))
    got = (np.asarray(y).astype(np.uint32) << 16).view(np.float32)
    expected = ref.forward(p, x, w)
    bound = ref.forward(p, np.abs(x), np.abs(w))
    terms = p.c_per_group * int(np.prod(p.filter_size))
    assert np.isfinite(got).all()
    assert (np.abs(got - expected) <= (2.0 ** -8 + 2.0 ** -24 * (terms + 2)) * bound).all()
