"""The sm_90a warpgroup kernels of 16-bit gemm (``_gemm/wgmma.py``): names, registration, configuration, splits."""

import re


from rocblas_fixtures import fresh_prepared_launches  # noqa: F401  (autouse)

from rocarray._core import compile as _compile
from rocarray.rocblas._gemm import tf32x3 as _tf32x3, wgmma as _wgmma

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None


def test_wgmma_kernel_names_and_registration():
    name = _wgmma.kernel_name
    assert name("float16", "N", "N") == "ra_rocblas_gemm_wgmma<ra_half, false, true, 128>"
    assert name("bfloat16", "T", "T", 256) == "ra_rocblas_gemm_wgmma<ra_bfloat16, true, false, 256>"
    names = set(_compile.registered(_wgmma.SOURCE))
    finish = {"ra_rocblas_gemm_wg_finish<ra_half>", "ra_rocblas_gemm_wg_finish<ra_bfloat16>"}
    # the float32 kernel and finish of the three-TF32-product path (rocblas/_gemm/tf32x3.py)
    float32 = {"ra_rocblas_gemm_wgmma<float, true, true, 128>", "ra_rocblas_gemm_wg_finish<float>"}
    float32 |= set(_tf32x3.fused_kernel_names())
    assert names == set(_wgmma.instantiations()) | finish | float32 and len(names) == 57
    assert name("float16", "T", "N", 64, 64) == "ra_rocblas_gemm_wgmma<ra_half, true, true, 64, 64>"
    assert name("float16", "T", "N", 64, 128) == "ra_rocblas_gemm_wgmma<ra_half, true, true, 64>"


def test_wgmma_splits_fill_one_wave_for_long_k():
    splits = _wgmma.splits
    assert splits(8192, 8192, 8192, 1, 256, 132) == (1, 128)        # the tiles fill the device
    assert splits(256, 256, 65536, 1, 128, 132) == (32, 32)         # 4 tiles x 32 splits of 32 k tiles
    assert splits(256, 256, 256, 1, 128, 132) == (1, 4)             # k too short to split
    assert splits(256, 256, 4000, 1, 128, 132) == (13, 5)           # 63 k tiles: at least 4 per split
    s, per = splits(64, 8192, 8192, 1, 128, 132)                     # 64 tiles: 2 splits of 64 k tiles
    assert (s, per) == (2, 64)
    for args in [(256, 256, 65536, 1, 128, 132), (300, 200, 5000, 3, 128, 132), (64, 64, 777, 1, 128, 132)]:
        s, per = splits(*args)
        ktiles = -(-args[2] // 64)
        assert (s - 1) * per < ktiles <= s * per   # every split has work


def test_wgmma_only_on_compute_capability_9_0_with_aligned_operands():
    use = _wgmma.usable
    assert use(True, is_hip=False, cc_major=9, cc_minor=0)
    assert not use(False, is_hip=False, cc_major=9, cc_minor=0)
    assert not use(True, is_hip=False, cc_major=8, cc_minor=0)
    assert not use(True, is_hip=False, cc_major=10, cc_minor=0)   # sm_90a code runs on 9.0 only
    assert not use(True, is_hip=True, cc_major=9, cc_minor=0)
    assert not use(True, is_hip=False, cc_major=9, cc_minor=0, k=0)   # no operand to map
    assert use(True, is_hip=False, cc_major=9, cc_minor=0, sizes=(2**31 - 1, 8, 8, 1))
    assert not use(True, is_hip=False, cc_major=9, cc_minor=0, sizes=(2**31, 8, 8, 1))   # 32-bit TMA coordinates


def test_wgmma_configuration():
    choose = _wgmma.choose_config
    h200 = dict(multiprocessors=132, shared_limit=227 * 1024)
    assert _wgmma.shared_bytes(256, 4) == 4 * (384 * 128 + 16) + 1024
    assert _wgmma.shared_bytes(128, 6) == 6 * (256 * 128 + 16) + 1024
    assert choose(8192, 8192, 1, **h200) == (256, 4, 128)
    assert choose(2048, 256 * 9, 1, **h200) == (256, 4, 128)      # 144 big tiles: one wave
    assert choose(2048, 2048, 1, **h200) == (128, 6, 128)
    assert _wgmma.shared_bytes(64, 8) == 8 * (192 * 128 + 16) + 1024
    assert _wgmma.shared_bytes(64, 8, tile_m=64) == 8 * (128 * 128 + 16) + 1024
    assert choose(8192, 65, 1, **h200) == (128, 6, 128)     # 64 tiles of 128 x 128, 256 of 64 x 64
    assert choose(128, 8192, 1, **h200) == (128, 6, 128)
    assert choose(8192, 128, 1, **h200) == (128, 6, 128)
    assert choose(16384, 64, 1, **h200) == (64, 8, 128)     # n <= 64: the 128 x 64 tile (128 of them)
    # 128-row tiles would fill at most half the device, 64 x 64 tiles fill more than half of it
    # and at most all of it: 64 x 64
    assert choose(8192, 64, 1, **h200) == (64, 8, 64)       # 64 tiles of 128 x 64, 128 of 64 x 64
    assert choose(64, 8192, 1, **h200) == (64, 8, 64)       # 64 tiles of 128 x 128
    assert choose(4288, 64, 1, **h200) == (64, 8, 64)       # 34 tiles of 128 x 64, 67 of 64 x 64
    assert choose(8448, 64, 1, **h200) == (64, 8, 64)       # 132 tiles of 64 x 64: one wave
    assert choose(64, 4224, 1, **h200) == (128, 6, 128)     # 66 tiles of 64 x 64: split instead
    assert choose(8512, 64, 1, **h200) == (64, 8, 128)      # 133 tiles of 64 x 64
    assert choose(256, 256, 1, **h200) == (128, 6, 128)
    assert choose(1, 1, 1, **h200) == (64, 8, 128)
    assert choose(8192, 64, 3, **h200) == (64, 8, 128)      # 192 tiles of 128 x 64: no
    assert choose(4096, 64, 2, **h200) == (64, 8, 64)       # 2 x 64 tiles of 64 x 64
    assert choose(8192, 64, 1, multiprocessors=132, shared_limit=100 * 1024) == (64, 6, 64)
    # columns of an operand that straddle 128-byte lines: the 128-row tiles
    assert choose(8192, 64, 1, **h200, whole_lines=False) == (64, 8, 128)
    assert choose(64, 8192, 1, **h200, whole_lines=False) == (128, 6, 128)
    lines = _wgmma.whole_lines
    assert lines(64, 8192) and lines(8192, 128) and lines(64, 64)
    assert not lines(48, 8192) and not lines(8192, 56) and not lines(32, 64)
    assert choose(16384, 64, 1, multiprocessors=132, shared_limit=100 * 1024) == (64, 4, 128)
    assert choose(8192, 8192, 1, multiprocessors=132, shared_limit=150 * 1024) == (256, 3, 128)
    assert choose(8192, 8192, 1, multiprocessors=132, shared_limit=100 * 1024) == (128, 3, 128)
    assert choose(8192, 8192, 1, multiprocessors=132, shared_limit=64 * 1024) is None


def test_wgmma_ptx_stays_in_the_shared_primitives():
    # the warpgroup instructions live in the pasted header; the gemm source's own inline PTX is
    # the three-TF32 kernel's named-barrier helpers, and nothing else
    header = _compile.read_text("include/ra_wgmma.cuh")
    assert "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16" in header
    code = re.sub(r"//[^\n]*", "", _compile.read_text(_wgmma.SOURCE))
    owners = set()
    for match in re.finditer(r"\basm\b", code):
        owner = re.findall(r"RA_DEVICE\s+\w+\s+(\w+)\s*\(", code[:match.start()])
        owners.add(owner[-1] if owner else None)
    assert owners == {"ra_gemm_x3_any", "ra_gemm_x3_sync", "ra_gemm_x3_fence_async"}
    assert "wgmma.mma_async" not in code
