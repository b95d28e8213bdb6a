"""``ra.hipify``: each rewrite rule, each warning, and what it must never touch (CPU only).

The corpus of whole kernels, rewritten and then compiled for every target, is
``test_hipify_corpus.py``.
"""

import pytest

import rocarray as ra
from rocarray._user.hipify import HipifyWarning


def rewrite(source):
    out, warnings = ra.hipify(source)
    assert out.count("\n") == source.count("\n"), "hipify must keep every line where it was"
    return out, warnings


def rules(warnings):
    return [w.rule for w in warnings]


def kernel(body, head=""):
    """A kernel around ``body`` (line 1 is ``head``, the body starts on line 3)."""
    return f'{head}\nextern "C" __global__ void k(float* x, unsigned* u, int n) {{\n{body}\n}}\n'


# --------------------------------------------------------------------------------------------
# the interface
# --------------------------------------------------------------------------------------------

def test_returns_the_text_and_warnings_with_line_numbers():
    out, warnings = rewrite("int a;\n#include <cuda.h>\n")
    assert out == "int a;\n// hipify: removed #include <cuda.h>\n"
    [w] = warnings
    assert isinstance(w, HipifyWarning) and w.line == 2 and w.rule == "include"
    assert str(w).startswith("line 2: #include <cuda.h> removed")
    line, reason, rule = w
    assert (line, rule) == (2, "include") and "pastes its own headers" in reason


def test_plain_portable_code_is_left_alone():
    source = kernel("    int i = (int)ra_global_thread_id();\n    if (i < n) x[i] = ra_shfl_xor(x[i], 1);")
    assert rewrite(source) == (source, [])


def test_rejects_what_is_not_text():
    with pytest.raises(TypeError, match="source text"):
        ra.hipify(b"__syncwarp();")


def test_is_idempotent():
    source = kernel("    unsigned m = __ballot_sync(0xffffffff, x[0] > 0);\n"
                    "    unsigned lt = (1u << (threadIdx.x & 31)) - 1;\n"
                    "    u[0] = __popc(m & lt) + warpSize;")
    once, _ = rewrite(source)
    assert rewrite(once)[0] == once


# --------------------------------------------------------------------------------------------
# includes
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, says", [
    ("#include <cuda_runtime.h>", "not needed"),
    ("#include <cuda_fp16.h>", "ra_half"),
    ("#include <cuda_bf16.h>", "ra_bfloat16"),
    ("#include <cooperative_groups.h>", "cooperative groups"),
    ("#include <cub/cub.cuh>", "rocarray.prim"),
    ("#include <cstdint>", "ra_i8"),
    ("#include <float.h>", "literals"),
    ('#include "my_helpers.cuh"', "paste the device code"),
    ("#include <vector>", "not available"),
])
def test_include_lines_become_comments_with_a_reason(line, says):
    out, warnings = rewrite(f"int a;\n  {line}  // why\nint b;\n")
    header = line.split(None, 1)[1]
    assert out == f"int a;\n  // hipify: removed #include {header}  // why\nint b;\n"
    [w] = warnings
    assert w.line == 2 and w.rule == "include" and says in w.reason


# --------------------------------------------------------------------------------------------
# warp collectives
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cuda, portable", [
    ("__shfl_sync", "ra_shfl"), ("__shfl_up_sync", "ra_shfl_up"),
    ("__shfl_down_sync", "ra_shfl_down"), ("__shfl_xor_sync", "ra_shfl_xor"),
])
@pytest.mark.parametrize("mask", ["0xffffffff", "0xFFFFFFFF", "0xffffffffu", "0xFFFFFFFFU", "-1", "~0u",
                                  "(unsigned)-1", "( 0xffffffff )"])
def test_full_mask_shuffles_become_the_prelude_helpers(cuda, portable, mask):
    out, warnings = rewrite(f"v = {cuda}({mask}, v, d);\n")
    assert out == f"v = {portable}(v, d);\n"
    assert warnings == []


@pytest.mark.parametrize("definition", [
    "#define FULL_MASK 0xffffffff", "#define FULL_MASK (0xffffffffu)",
    "const unsigned FULL_MASK = 0xffffffff;", "static constexpr unsigned int FULL_MASK = 0xFFFFFFFFu;",
])
def test_a_full_mask_constant_defined_in_the_file_counts(definition):
    out, warnings = rewrite(f"{definition}\nv = __shfl_down_sync(FULL_MASK, v, 1);\n")
    assert out.splitlines()[1] == "v = ra_shfl_down(v, 1);"
    assert warnings == []


def test_a_partial_mask_is_left_with_a_warning():
    source = "unsigned m = 0xffff;\nv = __shfl_down_sync(m, v, 1);\nw = __shfl_sync(__activemask(), w, 0);\n"
    out, warnings = rewrite(source)
    assert "__shfl_down_sync(m, v, 1)" in out and "__shfl_sync(__activemask(), w, 0)" in out
    assert [(w.line, w.rule) for w in warnings if w.rule == "shuffle-mask"] == [(2, "shuffle-mask"),
                                                                                 (3, "shuffle-mask")]


@pytest.mark.parametrize("width", ["warpSize", "WARP_SIZE", "RA_WARP_SIZE"])
def test_a_width_equal_to_the_warp_size_is_dropped(width):
    out, warnings = rewrite(f"#define WARP_SIZE 32\nv = __shfl_xor_sync(0xffffffff, v, m, {width});\n")
    assert out.splitlines()[1] == "v = ra_shfl_xor(v, m);"
    assert warnings == []


def test_a_width_of_32_is_dropped_with_a_warning():
    out, warnings = rewrite("v = __shfl_down_sync(0xffffffff, v, d, 32);\n")
    assert out == "v = ra_shfl_down(v, d);\n"
    assert rules(warnings) == ["warp-size"] and "width 32" in warnings[0].reason


def test_a_sub_warp_width_is_left_with_a_warning():
    out, warnings = rewrite("v = __shfl_xor_sync(0xffffffff, v, m, 16);\n")
    assert out == "v = __shfl_xor_sync(0xffffffff, v, m, 16);\n"
    assert rules(warnings) == ["shuffle-width"]


def test_nested_and_multiline_shuffles():
    out, _ = rewrite("v = __shfl_sync(0xffffffff,\n"
                     "              __shfl_down_sync(0xffffffff, v, 1),\n"
                     "              0);\n")
    assert out == "v = ra_shfl(\n              ra_shfl_down(v, 1),\n              0);\n"


def test_literal_shuffle_offsets_of_half_a_warp_are_warned_about():
    _, warnings = rewrite("v += __shfl_down_sync(0xffffffff, v, 16);\nv += __shfl_down_sync(0xffffffff, v, 8);\n"
                          "w = __shfl_sync(0xffffffff, w, 31);\n")
    assert [(w.line, w.rule) for w in warnings] == [(1, "warp-size"), (3, "warp-size")]


def test_a_computed_source_lane_is_warned_about():
    _, warnings = rewrite("w = __shfl_sync(0xffffffff, w, lane + 1);\n")
    assert rules(warnings) == ["shuffle-lane"] and "does not wrap" in warnings[0].reason


def test_ballot_any_all():
    out, warnings = rewrite("m = __ballot_sync(0xffffffff, p);\na = __any_sync(0xffffffff, x > 0);\n"
                            "b = __all_sync(-1, x > 0 && y);\n")
    assert out == "m = ra_ballot(p);\na = (ra_ballot(x > 0) != 0);\nb = (ra_ballot(!(x > 0 && y)) == 0);\n"
    assert warnings == []


def test_a_partial_ballot_mask_is_left_with_a_warning():
    out, warnings = rewrite("m = __ballot_sync(active, p);\n")
    assert out == "m = __ballot_sync(active, p);\n" and "ballot-mask" in rules(warnings)


def test_syncwarp():
    out, warnings = rewrite("__syncwarp();\n__syncwarp(0xffffffff);\n__syncwarp(0x0000ffff);\n")
    assert out == "ra_warp_sync();\nra_warp_sync();\n__syncwarp(0x0000ffff);\n"
    assert [(w.line, w.rule) for w in warnings] == [(3, "syncwarp-mask")]


def test_warp_reduce_intrinsics():
    out, warnings = rewrite("s = __reduce_add_sync(0xffffffff, v);\nm = __reduce_max_sync(0xffffffff, v);\n"
                            "o = __reduce_or_sync(0xffffffff, v);\n")
    assert out.splitlines()[:2] == ["s = ra_warp_reduce(v, ra_op_sum());", "m = ra_warp_reduce(v, ra_op_max());"]
    assert [(w.line, w.rule) for w in warnings] == [(3, "nvidia-only")]


def test_activemask_is_warned_about_and_left():
    out, warnings = rewrite("unsigned a = __activemask();\n")
    assert "__activemask()" in out
    assert "activemask" in rules(warnings)


@pytest.mark.parametrize("legacy", ["__shfl(v, 0)", "__shfl_down(v, 1)", "__shfl_xor(v, 1)", "__ballot(p)",
                                    "__any(p)", "__all(p)"])
def test_legacy_warp_intrinsics_are_warned_about_and_left(legacy):
    out, warnings = rewrite(f"r = {legacy};\n")
    assert out == f"r = {legacy};\n" and rules(warnings) == ["legacy-warp"]


# --------------------------------------------------------------------------------------------
# the warp size
# --------------------------------------------------------------------------------------------

def test_warpsize_becomes_ra_warp_size_but_not_a_member():
    out, warnings = rewrite("int w = warpSize;\nint p = prop.warpSize + info->warpSize;\n")
    assert out == "int w = RA_WARP_SIZE;\nint p = prop.warpSize + info->warpSize;\n"
    assert warnings == []


@pytest.mark.parametrize("source, expected", [
    ("#define WARP_SIZE 32", "#define WARP_SIZE RA_WARP_SIZE"),
    ("#define kWarpSize (32)", "#define kWarpSize RA_WARP_SIZE"),
    ("constexpr int kWarpSize = 32;", "constexpr int kWarpSize = RA_WARP_SIZE;"),
    ("static const unsigned THREADS_PER_WARP = 32u;", "static const unsigned THREADS_PER_WARP = RA_WARP_SIZE;"),
    ("#define LOG_WARP_SIZE 5", "#define LOG_WARP_SIZE (RA_WARP_SIZE == 64 ? 6 : 5)"),
    ("#define LANE_MASK 31", "#define LANE_MASK (RA_WARP_SIZE - 1)"),
    ("#define TILE 32", "#define TILE 32"),
    ("const int BLOCK = 32;", "const int BLOCK = 32;"),
])
def test_warp_size_constants(source, expected):
    assert rewrite(source + "\n") == (expected + "\n", [])


@pytest.mark.parametrize("source, expected", [
    ("int lane = threadIdx.x % 32;", "int lane = threadIdx.x % RA_WARP_SIZE;"),
    ("const unsigned laneId = threadIdx.x & 31;", "const unsigned laneId = threadIdx.x & (RA_WARP_SIZE - 1);"),
    ("int lane_id = tid & 0x1f;", "int lane_id = tid & (RA_WARP_SIZE - 1);"),
    ("int warp = threadIdx.x / 32;", "int warp = threadIdx.x / RA_WARP_SIZE;"),
    ("int warp_id = threadIdx.x >> 5;", "int warp_id = threadIdx.x / RA_WARP_SIZE;"),
    ("int wid = (gtid) >> 5;", "int wid = (gtid) / RA_WARP_SIZE;"),
    ("int warp = base + tid >> 5;", "int warp = base + tid >> (RA_WARP_SIZE == 64 ? 6 : 5);"),
    ("int num_warps = (blockDim.x + 31) / 32;", "int num_warps = (blockDim.x + RA_WARP_SIZE - 1) / RA_WARP_SIZE;"),
    ("int nwarps = (n + 31) >> 5;", "int nwarps = (n + RA_WARP_SIZE - 1) / RA_WARP_SIZE;"),
    ("s[blockDim.x / 32] = 0;", "s[blockDim.x / RA_WARP_SIZE] = 0;"),
    ("if (lane == 31) x = 1;", "if (lane == (RA_WARP_SIZE - 1)) x = 1;"),
    ("x[warp * 32 + lane] = v;", "x[warp * 32 + lane] = v;"),
    ("int tiles = n / 32;", "int tiles = n / 32;"),
    ("y = x % 32;", "y = x % 32;"),
])
def test_lane_and_warp_arithmetic_by_the_variable_it_sets(source, expected):
    out, warnings = rewrite(source + "\n")
    assert out == expected + "\n"
    assert warnings == []


@pytest.mark.parametrize("source", [
    "int col = threadIdx.x % 32;", "int row = threadIdx.x / 32;", "if ((threadIdx.x & 31) == 0) f();",
    "int t = tid >> 5;",
])
def test_thread_index_arithmetic_with_32_that_might_be_a_tile_is_only_warned_about(source):
    out, warnings = rewrite("int tid = threadIdx.x;\n" + source + "\n")
    assert out.splitlines()[1] == source
    assert [(w.line, w.rule) for w in warnings] == [(2, "warp-size")]


def test_first_warp_tests_are_warned_about():
    out, warnings = rewrite("int t = threadIdx.x;\nif (threadIdx.x < 32) f();\nif (t < 32) g();\n")
    assert "threadIdx.x < 32" in out
    assert [(w.line, w.rule) for w in warnings] == [(2, "warp-size"), (3, "warp-size")]


@pytest.mark.parametrize("loop, expected", [
    ("for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);",
     "for (int o = RA_WARP_SIZE / 2; o > 0; o /= 2) v += ra_shfl_down(v, o);"),
    ("for (int o = 16; o >= 1; o >>= 1) { v = max(v, __shfl_xor_sync(0xffffffff, v, o)); }",
     "for (int o = RA_WARP_SIZE / 2; o >= 1; o >>= 1) { v = max(v, ra_shfl_xor(v, o)); }"),
    ("for (int d = 1; d < 32; d *= 2) { int t = __shfl_up_sync(0xffffffff, v, d); if (lane >= d) v += t; }",
     "for (int d = 1; d < RA_WARP_SIZE; d *= 2) { int t = ra_shfl_up(v, d); if (lane >= d) v += t; }"),
    ("for (int d = 1; d <= 16; d <<= 1) v += __shfl_xor_sync(0xffffffff, v, d);",
     "for (int d = 1; d <= RA_WARP_SIZE / 2; d <<= 1) v += ra_shfl_xor(v, d);"),
    ("for (int i = 16; i > 0; i /= 2) s += x[i];", "for (int i = 16; i > 0; i /= 2) s += x[i];"),
])
def test_shuffle_loops_run_over_the_warp_size(loop, expected):
    out, warnings = rewrite(loop + "\n")
    assert out == expected + "\n"
    assert warnings == []


def test_an_unusual_shuffle_loop_is_warned_about():
    out, warnings = rewrite("for (int o = 16; o > 1; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);\n")
    assert out.startswith("for (int o = 16;")
    assert rules(warnings) == ["warp-size"]


# --------------------------------------------------------------------------------------------
# lane masks
# --------------------------------------------------------------------------------------------

def test_a_ballot_stored_in_32_bits_is_widened_and_counted_in_64():
    out, warnings = rewrite(kernel(
        "    unsigned mask = __ballot_sync(0xffffffff, x[0] > 0);\n"
        "    unsigned lt = (1u << lane) - 1;\n"
        "    u[0] = __popc(mask & lt) + __popc(__ballot_sync(0xffffffff, n > 0));\n"
        "    u[1] = __ffs(mask) - 1;"))
    lines = out.splitlines()
    assert lines[2] == "    ra_lane_mask mask = ra_ballot(x[0] > 0);"
    assert lines[3] == "    ra_lane_mask lt = ((ra_lane_mask)1 << lane) - 1;"
    assert lines[4] == "    u[0] = ra_popc64(mask & lt) + ra_popc64(ra_ballot(n > 0));"
    assert lines[5] == "    u[1] = __ffsll(mask) - 1;"
    assert [(w.line, w.rule) for w in warnings] == [(3, "lane-mask-32bit"), (4, "lane-mask-32bit")]


def test_counts_and_bit_tests_of_a_mask_are_not_masks():
    out, _ = rewrite("unsigned m = __ballot_sync(0xffffffff, p);\nint c = __popc(m);\nint b = (m >> lane) & 1;\n")
    assert out.splitlines()[1:] == ["int c = ra_popc64(m);", "int b = (m >> lane) & 1;"]


@pytest.mark.parametrize("line", [
    "if (mask == 0xffffffff) f();", "g = ~mask;", "h = mask & 0xffff;", "s = mask >> 16;",
    "c = 31 - __clz(mask);", "u32 = (unsigned)mask;",
])
def test_lane_mask_arithmetic_that_assumes_32_lanes_is_warned_about(line):
    _, warnings = rewrite("auto mask = __ballot_sync(0xffffffff, p);\n" + line + "\n")
    assert [(w.line, w.rule) for w in warnings] == [(2, "lane-mask-arithmetic")]


def test_harmless_lane_mask_arithmetic_is_not_warned_about():
    _, warnings = rewrite("auto mask = __ballot_sync(0xffffffff, p);\nmask &= mask - 1;\nif (mask != 0) f();\n"
                          "bool me = (mask >> lane) & 1;\n")
    assert warnings == []


def test_a_ballot_stored_into_32_bits_elsewhere_is_warned_about():
    _, warnings = rewrite("unsigned int m;\n__shared__ unsigned s[32];\nm = __ballot_sync(0xffffffff, p);\n"
                          "s[w] = __ballot_sync(0xffffffff, p);\n")
    assert [(w.line, w.rule) for w in warnings] == [(3, "lane-mask-32bit"), (4, "lane-mask-32bit")]
    assert "declared 32-bit on line 1" in warnings[0].reason and "`s[w]`" in warnings[1].reason


def test_lane_masks_are_local_to_their_function():
    out, warnings = rewrite("__device__ int f(float p) { unsigned m = __ballot_sync(0xffffffff, p > 0); "
                            "return __popc(m); }\n"
                            "__device__ int g(unsigned int m) { return __popc(m) + __ffs((int)m); }\n")
    assert out.splitlines()[1] == "__device__ int g(unsigned int m) { return __popc(m) + __ffs((int)m); }"
    assert [(w.line, w.rule) for w in warnings] == [(1, "lane-mask-32bit")]


def test_what_a_function_returns_from_a_mask_is_not_a_mask():
    out, _ = rewrite("auto same = __ballot_sync(0xffffffff, p);\nconst int leader = lowest_lane(same);\n")
    assert out.splitlines()[1] == "const int leader = lowest_lane(same);"


def test_a_ballot_stored_into_a_64_bit_array_is_fine():
    _, warnings = rewrite("ra_lane_mask pm[4], xm[4];\nxm[j] = __ballot_sync(0xffffffff, p);\n"
                          "unsigned long long q[2];\nq[0] = __ballot_sync(0xffffffff, p);\n")
    assert warnings == []


def test_the_twos_complement_of_a_mask_is_fine():
    _, warnings = rewrite("auto m = __ballot_sync(0xffffffff, p);\nauto lowest = m & (~m + 1);\n")
    assert warnings == []


# --------------------------------------------------------------------------------------------
# types, conversions, constants, atomics, cache hints
# --------------------------------------------------------------------------------------------

def test_half_types_and_conversions():
    out, warnings = rewrite("#include <cuda_fp16.h>\n"
                            "__device__ half f(const __half* p, half q) {\n"
                            "    return __float2half_rn(__half2float(p[0]) + __half2float(q));\n"
                            "}\n"
                            "__device__ half g(half a, half b) { return __hmul(a, b); }\n"
                            "template <typename T> __device__ T h(T v) { return v; }  int w = h<half>(v);\n")
    lines = out.splitlines()
    assert lines[1] == "__device__ ra_half f(const ra_half* p, ra_half q) {"
    assert lines[2] == "    return ra_float_to_half(ra_half_to_float(p[0]) + ra_half_to_float(q));"
    assert lines[4] == ("__device__ ra_half g(ra_half a, ra_half b) { return "
                        "ra_float_to_half(ra_half_to_float(a) * ra_half_to_float(b)); }")
    assert lines[5].endswith("h<ra_half>(v);")
    assert [(w.line, w.rule) for w in warnings if w.rule == "half"] == [(2, "half"), (2, "half"), (5, "half"),
                                                                         (6, "half")]


def test_a_variable_named_half_keeps_its_name():
    out, warnings = rewrite("#include <cuda_fp16.h>\n__device__ float f(__half q, int n) {\n"
                            "    int half = n / 2; return __half2float(q) + half; }\n")
    assert out.splitlines()[1:] == ["__device__ float f(ra_half q, int n) {",
                                    "    int half = n / 2; return ra_half_to_float(q) + half; }"]
    assert [(w.line, w.rule) for w in warnings if w.rule == "half"] == [(2, "half"), (3, "half")]


def test_bfloat16_types_and_conversions():
    out, _ = rewrite("#include <cuda_bf16.h>\n"
                     "__device__ float f(__nv_bfloat16 a, nv_bfloat16 b) {\n"
                     "    return __bfloat162float(__hadd(a, b)) + __bfloat162float(__float2bfloat16(1.0f)); }\n")
    assert out.splitlines()[1:] == [
        "__device__ float f(ra_bfloat16 a, ra_bfloat16 b) {",
        "    return ra_bfloat16_to_float(ra_float_to_bfloat16(ra_bfloat16_to_float(a) + ra_bfloat16_to_float(b)))"
        " + ra_bfloat16_to_float(ra_float_to_bfloat16(1.0f)); }"]


def test_half_without_its_header_is_a_plain_name():
    assert rewrite("int half = n / 2; half2 = half;\n")[0] == "int half = n / 2; half2 = half;\n"


@pytest.mark.parametrize("call", ["__hfma(a, b, c)", "hsqrt(a)", "__hmax(a, b)", "__halves2half2(a, b)"])
def test_half_functions_without_a_counterpart_are_warned_about(call):
    out, warnings = rewrite(f"#include <cuda_fp16.h>\nr = {call};\n")
    assert call in out and (2, "half") in [(w.line, w.rule) for w in warnings]


def test_packed_half2_is_warned_about():
    _, warnings = rewrite("__device__ void f(__half2 a) {}\n")
    assert [(w.line, w.rule) for w in warnings] == [(1, "half")] and "packed" in warnings[0].reason


def test_fixed_width_integers():
    out, warnings = rewrite("uint32_t a; int64_t b; std::uint8_t c; const uintptr_t d = 0; my_uint32_t e;\n")
    assert out == "ra_u32 a; ra_i64 b; ra_u8 c; const ra_u64 d = 0; my_uint32_t e;\n"
    assert warnings == []


def test_constants_of_headers_nvrtc_lacks():
    out, _ = rewrite("float m = -FLT_MAX; float i = INFINITY; float c = CUDART_INF_F; int k = INT_MAX;\n")
    assert out == ("float m = -3.402823466e+38F; float i = __int_as_float(0x7f800000); "
                   "float c = __int_as_float(0x7f800000); int k = 2147483647;\n")


def test_a_constant_the_file_defines_is_its_own():
    source = "#define FLT_MAX 1.0f\nfloat m = FLT_MAX;\n"
    assert rewrite(source)[0] == source


def test_block_scope_atomics_become_device_wide():
    out, warnings = rewrite("atomicAdd_block(&s[b], 1u); atomicMax_block(p, v); atomicAdd_system(q, 1);\n")
    assert out == "atomicAdd(&s[b], 1u); atomicMax(p, v); atomicAdd_system(q, 1);\n"
    assert warnings == []


def test_cache_hinted_loads_and_stores():
    out, warnings = rewrite("float a = __ldcs(p + i);\n__stcs(q + i, a * 2.0f);\nfloat b = __ldg(&p[i]);\n"
                            "float c = __ldcg(p);\n")
    assert out.splitlines() == ["float a = (*(p + i));", "(*(q + i) = (a * 2.0f));", "float b = __ldg(&p[i]);",
                                "float c = __ldcg(p);"]
    assert [(w.line, w.rule) for w in warnings] == [(1, "cache-hint"), (2, "cache-hint"), (4, "nvidia-only")]


# --------------------------------------------------------------------------------------------
# warnings only
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("source, rule", [
    ('asm volatile("membar.gl;");', "inline-asm"),
    ('__asm__ __volatile__("bar.sync 0;");', "inline-asm"),
    ('asm("mov.u32 %0, %%laneid;" : "=r"(lane));', "inline-asm"),
    ("namespace cg = cooperative_groups;", "cooperative-groups"),
    ("cg::thread_block block = cg::this_thread_block();", "cooperative-groups"),
    ("auto tile = cg::tiled_partition<32>(block);", "cooperative-groups"),
    ("float v = tex1Dfetch<float>(tex, i);", "texture"),
    ("cudaTextureObject_t t = 0;", "texture"),
    ("surf2Dwrite(v, s, x, y);", "texture"),
    ("child<<<1, 32>>>(p);", "dynamic-parallelism"),
    ("cudaDeviceSynchronize();", "dynamic-parallelism"),
    ("cudaMalloc(&p, 4);", "runtime-api"),
    ("__nanosleep(100);", "nvidia-only"),
    ("if (bad) __trap();", "nvidia-only"),
    ("r = __dp4a(a, b, c);", "nvidia-only"),
    ("r = __vadd4(a, b);", "nvidia-only"),
    ("r = __match_any_sync(0xffffffff, v);", "nvidia-only"),
    ("wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;", "wmma"),
])
def test_what_cannot_be_rewritten_is_warned_about_and_left(source, rule):
    out, warnings = rewrite(f"int a;\n{source}\n")
    assert out == f"int a;\n{source}\n"
    assert (2, rule) in [(w.line, w.rule) for w in warnings]


def test_inline_assembly_under_a_cuda_guard_gets_the_softer_warning():
    source = ('#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700\nasm volatile("fence.acq_rel.gpu;");\n#else\n'
              "__threadfence();\n#endif\n")
    out, warnings = rewrite(source)
    assert out == source
    [w] = warnings
    assert (w.line, w.rule) == (2, "inline-asm") and "CUDA-only #if" in w.reason


def test_nvidia_idioms_inside_a_cuda_only_branch_are_not_warned_about():
    source = ("#ifdef __CUDA_ARCH__\n__nanosleep(10); v = __shfl_sync(m, v, 0);\n#else\n__nanosleep(10);\n#endif\n"
              "#if !defined(RA_HIP)\n__nanosleep(10);\n#endif\n#ifndef RA_CUDA\n__nanosleep(10);\n#endif\n")
    _, warnings = rewrite(source)
    assert [(w.line, w.rule) for w in warnings] == [(4, "nvidia-only"), (10, "nvidia-only")]


def test_code_under_a_cuda_only_branch_is_not_rewritten():
    source = ("#ifdef __CUDA_ARCH__\nv = __shfl_sync(0xffffffff, v, 0) + warpSize;\n"
              "#else\nv = __shfl(v, 0, RA_WARP_SIZE) + warpSize;\n#endif\n")
    out, warnings = rewrite(source)
    assert out == source.replace("0, RA_WARP_SIZE) + warpSize", "0, RA_WARP_SIZE) + RA_WARP_SIZE")
    assert warnings == []  # HIP's own __shfl in the HIP branch is fine too


def test_two_argument_launch_bounds():
    _, warnings = rewrite('extern "C" __global__ void __launch_bounds__(256, 2) k(float* x) {}\n'
                          'extern "C" __global__ void __launch_bounds__(256) j(float* x) {}\n')
    assert [(w.line, w.rule) for w in warnings] == [(1, "launch-bounds")]


def test_kernels_without_c_linkage():
    _, warnings = rewrite('__global__ void plain(float* x) {}\nextern "C" __global__ void c(float* x) {}\n'
                          'extern "C" {\n__global__ void inside(float* x) {}\n}\n'
                          'template <typename T> __global__ void t(T* x) {}\n'
                          '#define KERNEL __global__\n')
    assert [(w.line, w.rule) for w in warnings] == [(1, "linkage")] and "`plain`" in warnings[0].reason


# --------------------------------------------------------------------------------------------
# robustness
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("source", [
    "", "\n\n", "/* never closed", '"never closed', "f(((", "})]", "__shfl_sync(", "__ballot_sync(0xffffffff",
    "for (;;) {", "#define", "#include", "#if\n#else\n#else\n#endif\n#endif\n", "'", "R\"x(never",
    "asm(", "__popc(", "x = 1u << lane", "unsigned m = __ballot_sync(0xffffffff, p) +",
])
def test_broken_input_is_returned_without_an_exception(source):
    out, _ = ra.hipify(source)
    assert out.count("\n") == source.count("\n")


def test_rocarrays_own_kernels_keep_their_lines():
    from rocarray._core import compile as ra_compile

    for path in ra_compile.source_files() + [f"include/{h}" for h in ra_compile.header_files()]:
        text = ra_compile.read_text(path)
        assert ra.hipify(text)[0].count("\n") == text.count("\n"), path


# --------------------------------------------------------------------------------------------
# comments and strings are never touched
# --------------------------------------------------------------------------------------------

def test_comments_and_string_literals_are_untouched():
    source = ('// __shfl_sync(0xffffffff, v, 0) warpSize threadIdx.x % 32 #include <x>\n'
              '/* __ballot_sync(0xffffffff, p)\n   #include <cuda.h>\n   asm("x"); uint32_t */\n'
              'const char* s = "__syncwarp() warpSize \\" __shfl_sync(0xffffffff, v, 0) FLT_MAX";\n'
              "char c = '\\'';  int big = 1'000'000;  const char* r = R\"x(warpSize \")x\";\n"
              'int lane = threadIdx.x % 32;  // lane = threadIdx.x % 32\n')
    out, warnings = rewrite(source)
    expected = source.replace("int lane = threadIdx.x % 32;", "int lane = threadIdx.x % RA_WARP_SIZE;")
    assert out == expected
    assert warnings == []


def test_a_comment_inside_a_rewritten_span_is_kept():
    out, _ = rewrite("v = __shfl_down_sync(0xffffffff /* every lane */, v, 1);\n"
                     "w = __shfl_sync(FULL, // all of them\n              w, 0);\n")
    assert out == ("v = ra_shfl_down( /* every lane */v, 1);\n"
                   "w = __shfl_sync(FULL, // all of them\n              w, 0);\n")
    out, _ = rewrite("#define FULL 0xffffffff\nw = __shfl_sync(FULL, // all of them\n              w, 0);\n")
    assert out.splitlines()[1:] == ["w = ra_shfl( // all of them", "              w, 0);"]
