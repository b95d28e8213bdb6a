"""The hipify corpus: small CUDA kernels written in everyday CUDA style (``hipify_corpus/*.cu``), each
rewritten by ``ra.hipify`` and then compiled with ``ra.compile_check`` for sm_90, gfx90a and gfx940.

Every file is compiled once per target (a module-scoped fixture; ``compile_check`` runs the targets
in parallel). A ``// instantiate: <name expression>`` line in a file names a template instantiation
to build. A target whose compiler is not installed is skipped with the reason (CI has all three).
"""

import os
import re

import pytest

import rocarray as ra
from rocarray._core import offline
from rocarray._user._source_text import _mask

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hipify_corpus")
CORPUS = sorted(f for f in os.listdir(HERE) if f.endswith(".cu"))
TARGETS = [t.arch for t in offline.OFFLINE_TARGETS]

#: Lines each rewritten file must contain (the rewrite that file is there to exercise).
EXPECTED = {
    "warp_reduce.cu": ["for (int offset = RA_WARP_SIZE / 2; offset > 0; offset /= 2)",
                       "val += ra_shfl_down(val, offset);", "int lane = threadIdx.x % RA_WARP_SIZE;",
                       "int num_warps = (blockDim.x + RA_WARP_SIZE - 1) / RA_WARP_SIZE;"],
    "ballot_scan.cu": ["ra_lane_mask mask = ra_ballot(keep);",
                       "ra_lane_mask lanemask_lt = ((ra_lane_mask)1 << lane) - 1;",
                       "int rank = ra_popc64(mask & lanemask_lt);", "for (int d = 1; d < RA_WARP_SIZE; d <<= 1) {",
                       "const unsigned warp = threadIdx.x / RA_WARP_SIZE;"],
    "histogram.cu": ["atomicAdd(&local[data[i]], 1u);", "const ra_u8* __restrict__ data"],
    "warpsize_max.cu": ["for (int mask = RA_WARP_SIZE / 2; mask > 0; mask /= 2)",
                        "bool any_nan = (ra_ballot(nan_seen) != 0);", "float m = -3.402823466e+38F;"],
    "stencil.cu": ["float left = ra_shfl_up(center, 1);", "if (lane == (RA_WARP_SIZE - 1))", "ra_warp_sync();"],
    "inline_ptx.cu": ['asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));'],
    "half_scale.cu": ["y[i] = ra_float_to_half(r);",
                      "if (i < n) b[i] = ra_float_to_half(ra_half_to_float(a[i]) + ra_half_to_float(b[i]));"],
    "softmax_warp.cu": ["#define WARP_SIZE RA_WARP_SIZE", "float m = -__int_as_float(0x7f800000);"],
}
#: Warnings each file must get (rule, line).
EXPECTED_WARNINGS = {
    "inline_ptx.cu": [("inline-asm", 6), ("inline-asm", 12)],
    "ballot_scan.cu": [("lane-mask-32bit", 14), ("lane-mask-32bit", 15)],
    "half_scale.cu": [("half", 4), ("half", 12)],
}
#: CUDA-only names that must be gone from every rewritten file's code.
GONE = r"\b(__shfl\w*|__ballot\w*|__any_sync|__all_sync|__syncwarp|warpSize|__half\b|half\b|uint\d+_t)|#\s*include"


def read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


@pytest.fixture(scope="module")
def rewritten():
    """``{file: (hip source, warnings)}``."""
    return {name: ra.hipify(read(name)) for name in CORPUS}


@pytest.fixture(scope="module")
def compiled(rewritten):
    """``{file: CompileCheckResult}``: every rewritten file compiled once for every target."""
    out = {}
    for name in CORPUS:
        names = re.findall(r"^// instantiate: (.+?)\s*$", read(name), re.M)
        out[name] = ra.compile_check(rewritten[name][0], targets=TARGETS, name_expressions=names, label=name)
    return out


def test_the_corpus_is_all_there():
    assert sorted(EXPECTED) == CORPUS


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", CORPUS)
def test_every_rewritten_file_compiles_for_every_target(compiled, name, target):
    result = compiled[name][target]
    if result.status == "skipped":
        pytest.skip(f"{target}: compiler absent: {result.log}")
    assert result.ok, f"{name} for {target}:\n{result.log}"


@pytest.mark.parametrize("name", CORPUS)
def test_the_rewrite_of_each_file(rewritten, name):
    source = read(name)
    out, warnings = rewritten[name]
    assert out.count("\n") == source.count("\n")
    lines = [line.strip() for line in out.splitlines()]
    for expected in EXPECTED[name]:
        assert expected in lines or any(expected in line for line in lines), expected
    code, _ = _mask(out)
    assert not re.search(GONE, code), re.search(GONE, code).group(0)
    got = [(w.rule, w.line) for w in warnings]
    for warning in EXPECTED_WARNINGS.get(name, []):
        assert warning in got
    assert ra.hipify(out)[0] == out  # rewriting again changes nothing


def test_inline_ptx_is_only_warned_about(rewritten):
    source = read("inline_ptx.cu")
    out, warnings = rewritten["inline_ptx.cu"]
    asm = [line for line in source.splitlines() if "asm" in line]
    assert asm and all(line in out.splitlines() for line in asm)
    assert {w.rule for w in warnings} == {"inline-asm"}


def test_the_cuda_original_does_not_compile_for_amd():
    # Why the corpus needs hipify: CUDA's warp intrinsics are not HIP's (HIP 5.2 has no *_sync).
    target = offline.OFFLINE_TARGETS[1]
    if offline.missing_compiler(target):
        pytest.skip(f"{target.arch}: compiler absent: {offline.missing_compiler(target)}")
    source = read("warp_reduce.cu").replace("#include <cuda_runtime.h>", "")
    result = ra.compile_check(source, targets=[target.arch], label="warp_reduce.cu")
    assert result.failed == (target.arch,) and "__shfl_down_sync" in result[0].log
