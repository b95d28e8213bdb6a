"""The ``mma.sync`` kernel of 16-bit gemm (``_gemm/mma.py``): names, registration, variant, tile and grid rules."""

import itertools
import re

import numpy as np
import pytest

from rocblas_fixtures import fresh_prepared_launches  # noqa: F401  (autouse)

from rocarray._core import compile as _compile, kernels
from rocarray.rocblas._gemm import mma as _mma

try:
    import cupy
except Exception:  # pragma: no cover - CuPy is a test dependency
    cupy = None


def test_kernel_names_follow_transposes():
    name = _mma.kernel_name
    assert name("float16", "N", "N") == "ra_rocblas_gemm_mma<ra_half, false, true, 128>"
    assert name("float16", "T", "N") == "ra_rocblas_gemm_mma<ra_half, true, true, 128>"
    assert name("float16", "N", "T", 256) == "ra_rocblas_gemm_mma<ra_half, false, false, 256>"
    assert name("bfloat16", "T", "T", 256) == "ra_rocblas_gemm_mma<ra_bfloat16, true, false, 256>"


def test_every_launched_instantiation_is_registered():
    names = set(_compile.registered(_mma.SOURCE))
    assert names == set(_mma.instantiations())
    assert len(names) == 16
    for d, ta, tb, w in itertools.product(("float16", "bfloat16"), "NT", "NT", (128, 256)):
        assert _mma.kernel_name(d, ta, tb, w) in names


H200 = dict(is_hip=False, cc_major=9, cc_minor=0, multiprocessors=132, shared_limit=227 * 1024)


MI300 = dict(is_hip=True, cc_major=0, cc_minor=0, multiprocessors=304, shared_limit=64 * 1024)


def _config_facts(facts):
    return {k: v for k, v in facts.items() if k != "cc_minor"}


def test_shared_bytes_per_configuration():
    assert _mma.shared_bytes(128, 3) == 48 * 1024
    assert _mma.shared_bytes(128, 4) == 64 * 1024
    assert _mma.shared_bytes(256, 4) == 96 * 1024


def test_big_tile_only_with_a_full_wave_on_nvidia():
    def choose(m, n, batch, **facts):
        return _mma.choose_config(m, n, batch, **_config_facts(facts))
    assert choose(8192, 8192, 1, **H200) == (256, 4)          # 64 x 32 = 2048 big tiles
    assert choose(2048, 256 * 9, 1, **H200) == (256, 4)       # 16 x 9 = 144 >= 132
    assert choose(2048, 2048, 1, **H200) == (128, 4)          # 16 x 8 = 128 < 132
    assert choose(1024, 1024, 1, **H200) == (128, 4)
    assert choose(1024, 1024, 5, **H200) == (256, 4)          # 8 x 4 x 5 = 160 (batched)
    assert choose(1, 1, 1, **H200) == (128, 4)
    # less opt-in shared memory: fewer stages first, then the narrow tile
    assert choose(8192, 8192, 1, **dict(H200, shared_limit=80 * 1024)) == (256, 3)
    assert choose(8192, 8192, 1, **dict(H200, shared_limit=48 * 1024)) == (128, 3)
    # older NVIDIA (portable path) and AMD (64 KB LDS): always 128 x 128, 3 stages (48 KB)
    assert choose(8192, 8192, 1, **dict(H200, cc_major=7)) == (128, 3)
    assert choose(8192, 8192, 1, **MI300) == (128, 3)
    assert choose(8, 8, 1, **MI300) == (128, 3)


@pytest.mark.parametrize("address, ld, ok", [(0x1000, 64, True), (0x1000, 60, False), (0x1002, 64, False),
                                             (0x1010, 8, True), (0x1008, 8, False), (0x1000, 1, False)])
def test_operand_alignment_rule(address, ld, ok):
    assert _mma.operand_aligned(address, ld) is ok


def test_variant_needs_both_operands_aligned_and_strides():
    use = _mma.use_aligned
    assert use(0x1000, 64, 0x2000, 128, 32)
    assert not use(0x1000, 64, 0x2002, 128, 32)
    assert not use(0x1000, 63, 0x2000, 128, 32)
    assert use(0x1002, 63, 0x2002, 3, 0)   # k == 0: nothing is read
    assert use(0x1000, 64, 0x2000, 64, 32, stride_a=64 * 32, stride_b=64 * 32, batch=2)
    assert not use(0x1000, 64, 0x2000, 64, 32, stride_a=64 * 32 + 1, stride_b=0, batch=2)
    assert use(0x1000, 64, 0x2000, 64, 32, stride_a=3, stride_b=5, batch=1)  # strides unused


def test_grid_counts_tiles():
    assert _mma.grid(1, 1) == (1, 1)
    assert _mma.grid(128, 128) == (1, 1)
    assert _mma.grid(129, 128) == (2, 1)
    assert _mma.grid(8192, 8192, 3) == (64 * 64, 3)
    assert _mma.grid(8192, 8192, 1, 256) == (64 * 32, 1)
    assert _mma.grid(129, 257, 1, 256) == (4, 1)
    with pytest.raises(ValueError, match="batch"):
        _mma.grid(1, 1, 70000)


def test_mma_dtypes_follow_ml_dtypes():
    assert np.dtype(np.float16) in _mma.MMA_DTYPES
    try:
        import ml_dtypes
    except ImportError:
        assert len(_mma.MMA_DTYPES) == 1
    else:
        assert np.dtype(ml_dtypes.bfloat16) in _mma.MMA_DTYPES


def test_shared_memory_opt_in_only_past_48_kb(monkeypatch):
    class K:
        max_dynamic_shared_size_bytes = 48 * 1024
    k = K()
    monkeypatch.setattr(_compile, "get_kernel", lambda source, name, device_id=None: k)
    handle = kernels.Kernel(_mma.SOURCE, _mma.kernel_name("float16", "N", "N"), _mma.BLOCK, 1)
    handle.allow_shared(0, 48 * 1024)
    assert k.max_dynamic_shared_size_bytes == 48 * 1024
    handle.allow_shared(0, _mma.shared_bytes(256, 4))
    assert k.max_dynamic_shared_size_bytes == 96 * 1024
    handle.allow_shared(0, 64 * 1024)   # never lowered
    assert k.max_dynamic_shared_size_bytes == 96 * 1024


def test_source_wraps_vendor_primitives():
    # inline PTX and MFMA builtins only inside the wrapper block (the emulator replaces exactly it)
    text = _compile.read_text(_mma.SOURCE)
    begin = text.index("// ---- ra-mma-primitives-begin ----")
    end = text.index("// ---- ra-mma-primitives-end ----")
    inside = text[begin:end]
    code = re.sub(r"//[^\n]*", "", text[:begin] + text[end:])
    for word in ("mma.sync.aligned.m16n8k16", "ldmatrix.sync.aligned.m8n8.x4", "cp.async.cg",
                 "__builtin_amdgcn_mfma_f32_32x32x8f16", "__builtin_amdgcn_mfma_f32_32x32x8bf16_1k"):
        assert word in inside
    assert "asm" not in code and "__builtin_amdgcn" not in code
