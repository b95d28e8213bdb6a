"""The 16-bit matrix-unit gemm's epilogue (``ra_rocblas_gemm_mma``) on the CPU through the kernel
emulator: alpha, beta, the bias and every activation on tiles cut by the edges of C, through the
kernel's three inner products: the portable one as compiled (wave64 and warp32), the AMD MFMA
path and the NVIDIA mma.sync path, each with the vendor primitives block replaced by host models
of the instructions (written from the PTX ISA's ldmatrix/mma fragment tables and AMD's MFMA
operand layout). Each path keeps its accumulators in its own layout, so each has its own mapping
from a thread's values to elements of C; the activation's rolled pass must use it too. Compared
with NumPy in float64; C's padding rows are poisoned and must stay untouched. CPU tests: skipped
where g++ is missing."""

import numpy as np
import pytest

import kernel_emu
from kernel_emu import emulated_device, emulated_wave64_device  # noqa: F401 (the fixtures)
from launchfake import fake_device  # noqa: F401 (the fixture emulated_device builds on)
from mma_host_model import mfma_32x32x8, mma_16816
from level3_host import activation_reference

from rocarray._core import compile as _compile
from rocarray.rocblas._gemm.simt import ACTIVATIONS

SOURCE = "rocblas/gemm_mma.hip"
BEGIN, END = "// ---- ra-mma-primitives-begin ----", "// ---- ra-mma-primitives-end ----"
BLOCK, BM, BK = 256, 128, 32

# The copies as the portable path makes them (no cp.async on the host).
COPIES = r"""
RA_DEVICE void ra_cp_async_16(void* smem_dst, const void* src, int src_bytes) {
    ra_u16* d = (ra_u16*)smem_dst;
    const ra_u16* s = (const ra_u16*)src;
    for (int e = 0; e < 8; ++e) d[e] = 2 * e < src_bytes ? s[e] : (ra_u16)0;
}
RA_DEVICE void ra_cp_async_commit() {}
template <int N> RA_DEVICE void ra_cp_async_wait() {}
"""

# ldmatrix.m8n8.x4(.trans).b16: lane 8 q + r gives the address of row r of matrix q; lane l gets in
# r[q] the elements (l / 4, 2 (l % 4) + {0, 1}) of matrix q (.trans: (2 (l % 4) + {0, 1}, l / 4)),
# low half first. mma.m16n8k16 (f32 accumulation), g = lane / 4, t = lane % 4: A element a_i
# (i = 0..7, two per register) at row g + 8 ((i / 2) % 2), column 2 t + (i % 2) + 8 (i / 4); B
# element b_i (i = 0..3) at row 2 t + (i % 2) + 8 (i / 2), column g; D element d_i at row
# g + 8 (i / 2), column 2 t + (i % 2).
NV_MODEL = r"""
#define RA_GEMM_MMA_NV 1
""" + COPIES + r"""
template <bool TRANS> RA_DEVICE void ra_ldmatrix_x4(ra_u32 (&r)[4], const void* smem_row) {
    __shared__ const ra_u16* rows[8][32];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    rows[warp][lane] = (const ra_u16*)smem_row;
    __syncwarp();
    for (int q = 0; q < 4; ++q) {
        ra_u32 half[2];
        for (int h = 0; h < 2; ++h)
            half[h] = TRANS ? rows[warp][8 * q + 2 * (lane % 4) + h][lane / 4]
                            : rows[warp][8 * q + lane / 4][2 * (lane % 4) + h];
        r[q] = half[0] | (half[1] << 16);
    }
    __syncwarp();
}
""" + mma_16816("ra_mma_16816")

# v_mfma_f32_32x32x8 (f16, bf16_1k), wave64: lane l holds A(l % 32, 4 (l / 32) + e) and
# B(4 (l / 32) + e, l % 32) in element e (16 bits each, low first) and D(8 (r / 4) + 4 (l / 32)
# + r % 4, l % 32) in accumulator r.
AMD_MODEL = r"""
#define RA_GEMM_MMA_AMD 1
""" + COPIES + r"""
""" + mfma_32x32x8("ra_mfma_32x32x8", "ra_f32x16")


def _with_model(monkeypatch, model):
    """Compile the kernel with ``model`` in place of its vendor primitives block."""
    original = _compile.full_source

    def patched(relative_path):
        text = original(relative_path)
        if relative_path == SOURCE:
            begin, end = text.index(BEGIN), text.index(END)
            text = text[:begin] + model + text[end:]
        return text

    monkeypatch.setattr(_compile, "full_source", patched)
    monkeypatch.setattr(kernel_emu, "_kernels", {})  # no kernel compiled from the unpatched text


def _to_bits(values, dtype):
    """16-bit patterns of ``values`` rounded to nearest even, and the float64 values they hold."""
    if dtype == "float16":
        h = values.astype(np.float16)
        return h.view(np.uint16), h.astype(np.float64)
    u = values.astype(np.float32).view(np.uint32)
    bits = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return bits, _from_bits(bits, dtype)


def _from_bits(bits, dtype):
    if dtype == "float16":
        return bits.view(np.float16).astype(np.float64)
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


POISON = np.uint16(0x7E01)  # a NaN in both 16-bit formats


def _run(device, target, dtype, tile_n, m, n, k, activation, stages=3, seed=0):
    """C := act(alpha A B + beta C + bias) by the emulated kernel (A m x k, B k x n, column-major,
    C with 3 poisoned padding rows), checked against NumPy."""
    rng = np.random.default_rng(seed)
    a_bits, a = _to_bits(rng.standard_normal(m * k), dtype)
    b_bits, b = _to_bits(rng.standard_normal(k * n), dtype)
    c_bits, c = _to_bits(rng.standard_normal(m * n), dtype)
    bias_bits, bias = _to_bits(rng.standard_normal(m), dtype)
    alpha, beta, ldc = 0.75, -0.5, m + 3
    c_padded = np.full((n, ldc), POISON, np.uint16)
    c_padded[:, :m] = c_bits.reshape(n, m)
    dc = device.array(c_padded.ravel())
    name = f"ra_rocblas_gemm_mma<{'ra_half' if dtype == 'float16' else 'ra_bfloat16'}, false, true, {tile_n}>"
    tiles = -(-m // BM) * -(-n // tile_n)
    code = ACTIVATIONS.get(activation, 0)
    kernel_emu.kernel(SOURCE, name, target)(
        (tiles, 1), (BLOCK,),
        (np.int64(m), np.int64(n), np.int64(k), np.float32(alpha), device.array(a_bits), np.int64(m), np.int64(0),
         device.array(b_bits), np.int64(k), np.int64(0), np.float32(beta), dc, np.int64(ldc), np.int64(0),
         np.int32(0), np.int32(stages), device.array(bias_bits), np.int32(code)),
        stages * (BM + tile_n) * BK * 2)
    out = np.asarray(dc).reshape(n, ldc)
    assert (out[:, m:] == POISON).all(), "a store outside C"
    am, bm, cm = a.reshape(k, m).T, b.reshape(n, k).T, c.reshape(n, m).T
    pre = alpha * am @ bm + beta * cm + bias[:, None]
    scale = abs(alpha) * np.abs(am) @ np.abs(bm) + abs(beta) * np.abs(cm) + np.abs(bias)[:, None]
    want = activation_reference(activation, pre)
    got = _from_bits(out[:, :m].ravel(), dtype).reshape(n, m).T
    eps = 2.0**-8 if dtype == "bfloat16" else 2.0**-11
    tol = 1.01 * eps * np.abs(want) + 1.2 * (k + 8) * 2.0**-23 * scale + 1e-6
    bad = ~(np.abs(got - want) <= tol)
    assert not bad.any(), (f"{name} {activation}: {bad.sum()} of {m * n} off; first at {np.argwhere(bad)[0]}, "
                           f"got {got[bad][0]}, want {want[bad][0]}")


ALL = [None, "relu", "gelu", "silu", "sigmoid", "tanh"]
# one partial tile in each direction (m = 150 over 128-row tiles, n = 140 over 128 or 256 columns),
# two k tiles of which the second is partial
SHAPE = (150, 140, 45)


@pytest.mark.parametrize("dtype,tile_n", [("float16", 128), ("bfloat16", 256)])
def test_portable_path_wave64_every_activation(emulated_wave64_device, dtype, tile_n):
    for activation in ALL:
        _run(emulated_wave64_device, "hip64", dtype, tile_n, *SHAPE, activation)


def test_mfma_path_every_activation(emulated_wave64_device, monkeypatch):
    _with_model(monkeypatch, AMD_MODEL)
    for activation in ALL:
        _run(emulated_wave64_device, "hip64", "float16", 128, *SHAPE, activation)


@pytest.mark.parametrize("tile_n", [128, 256])
def test_mma_sync_path_every_activation(emulated_device, monkeypatch, tile_n):
    # bfloat16 only: the warp-32 target's float16 conversions are inline PTX
    _with_model(monkeypatch, NV_MODEL)
    for activation in ALL:
        _run(emulated_device, "cuda32", "bfloat16", tile_n, *SHAPE, activation)


def test_the_models_replace_the_whole_primitives_block():
    # (that no vendor instruction lies outside the block is test_gemm_mma.py's check)
    text = _compile.read_text(SOURCE)
    inside = text[text.index(BEGIN):text.index(END)]
    for word in ("ra_cp_async_16", "ra_cp_async_commit", "ra_cp_async_wait", "ra_ldmatrix_x4", "ra_mma_16816",
                 "ra_mfma_32x32x8", "ra_f32x16", "RA_GEMM_MMA_NV", "RA_GEMM_MMA_AMD"):
        assert word in inside
    assert all(word in NV_MODEL for word in ("ra_cp_async_16", "ra_ldmatrix_x4", "ra_mma_16816", "RA_GEMM_MMA_NV"))
    assert all(word in AMD_MODEL for word in ("ra_cp_async_16", "ra_mfma_32x32x8", "ra_f32x16", "RA_GEMM_MMA_AMD"))
    for model in (NV_MODEL, AMD_MODEL):
        assert "asm" not in model and "__builtin" not in model
