"""Diagnostics: sdpa kernel variants by source-text patches (one process each), and 1x1 conv algos."""
import sys
import numpy as np
import cupy

def timeit(fn, reps=7):
    fn(); cupy.cuda.Device().synchronize()
    s, e = cupy.cuda.Event(), cupy.cuda.Event(); best = 1e30
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); best = min(best, cupy.cuda.get_elapsed_time(s, e))
    return best

ANCHOR_SM = "        const ra_i64 j0 = (ra_i64)jt * BN;\n        // A tile inside S and wholly"
NOSOFT = ("#pragma unroll\n        for (int kk = 0; kk < BN / 16; ++kk)\n#pragma unroll\n            for (int r = 0; r < 4; ++r)"
          " p[kk][r] = ra_attn_pack<T>(sacc[8 * kk + 2 * r], sacc[8 * kk + 2 * r + 1]);\n        alpha[0] = alpha[1] = 1.0f;\n        if (jt >= 0) return;\n")
OLD = ("            ra_mbar_wait(bars + 8u * (unsigned)slot, round & 1u);\n            ra_gemm_wg_fence_operands(sacc);\n            ra_gemm_wg_fence();\n            my_turn();\n            issue_s(slot);\n            rescale();  // by tile jt - 1's factors, while S of tile jt runs\n            ra_gemm_wg_fence_fragment(p_prev);\n            ra_gemm_wg_fence_operands(oacc);\n            ra_gemm_wg_fence();\n            issue_pv(prev, p_prev);\n            their_turn(false);\n            ra_gemm_wg_wait<1>();  // S of tile jt is done; O += P V of tile jt - 1 may not be\n            ra_gemm_wg_fence_operands(sacc);\n            softmax(jt, p_next);\n            ra_gemm_wg_wait<0>();\n            ra_gemm_wg_fence_operands(oacc);\n            ra_gemm_wg_fence_fragment(p_prev);  // (the registers stay P's until the group is done)\n            release(prev);\n            prev = slot;", "            ra_mbar_wait(bars + 8u * (unsigned)slot, round & 1u);\n            ra_gemm_wg_fence_fragment(p_prev);\n            ra_gemm_wg_fence_operands(oacc);\n            ra_gemm_wg_fence();\n            my_turn();\n            issue_s(slot);\n            issue_pv(prev, p_prev);\n            their_turn(false);\n            ra_gemm_wg_wait<1>();  // S of tile jt is done; O += P V of tile jt - 1 may not be\n            ra_gemm_wg_fence_operands(sacc);\n            softmax(jt, p_next);\n            ra_gemm_wg_wait<0>();\n            ra_gemm_wg_fence_operands(oacc);\n            ra_gemm_wg_fence_fragment(p_prev);  // (the registers stay P's until the group is done)\n            release(prev);\n            rescale();\n            prev = slot;")
PATCHES = {
    "oldorder": [OLD, ("        auto finish = [&](ra_u32 (&p_last)[BN / 16][4]) {\n            rescale();\n", "        auto finish = [&](ra_u32 (&p_last)[BN / 16][4]) {\n")],
    "base": [],
    "nosoftmax": [(ANCHOR_SM, NOSOFT + ANCHOR_SM)],
    "norescale": [("            for (int c = 0; c < 4; ++c) oacc[4 * j + c] *= alpha[c >> 1];", "            for (int c = 0; c < 4; ++c) oacc[4 * j + c] *= 1.0f;")],
    "nopv": [("            ra_wgmma_m64k16_rs<T, D>::template run<1>(", "            if (EV < 0) ra_wgmma_m64k16_rs<T, D>::template run<1>(")],
}

def sdpa(variant):
    from rocarray._core import compile as C
    real = C.read_text
    def patched(path):
        text = real(path)
        if path == "miopen/attention.hip":
            for a, b in PATCHES.get(variant, []):
                assert a in text, (variant, a[:60])
                text = text.replace(a, b)
        return text
    C.read_text = patched
    import torch
    from rocarray.miopen import _attention as A
    from rocarray import nn
    if variant == "pingpong":
        A.WGMMA_PINGPONG = True
    if variant == "mma":
        A.WGMMA = False
    if variant == "stages2":
        A._shared_limit = lambda device_id: 170000
    B, H, S, D = 8, 16, 4096, 128
    ts = [torch.randn((B, H, S, D), dtype=torch.float16, device="cuda") for _ in range(3)]
    views = [cupy.ndarray(tuple(t.shape), np.float16, cupy.cuda.MemoryPointer(cupy.cuda.UnownedMemory(t.data_ptr(), t.numel()*2, t), 0)) for t in ts]
    for causal in (False, True):
        flops = 4*B*H*S*S*D/(2 if causal else 1)
        tv = timeit(lambda: torch.nn.functional.scaled_dot_product_attention(*ts, is_causal=causal))
        t = timeit(lambda: nn.scaled_dot_product_attention(*views, is_causal=causal))
        print(f"sdpa f16 {variant:10s} causal={causal!s:5s} {t:.3f} ms {flops/t/1e9:.0f} TF/s torch {tv:.3f} ms ratio {tv/t:.2f}", flush=True)

def conv1x1():
    import torch
    import rocarray as ra
    x = cupy.random.standard_normal((64, 56, 56, 256), dtype=np.float32).astype(np.float16)
    w = (cupy.random.standard_normal((256, 1, 1, 256), dtype=np.float32) / 16).astype(np.float16)
    tx, tw = torch.from_dlpack(x).permute(0, 3, 1, 2), torch.from_dlpack(w).permute(0, 3, 1, 2)
    tv = timeit(lambda: torch.nn.functional.conv2d(tx, tw))
    ref = cupy.from_dlpack(torch.nn.functional.conv2d(tx, tw).permute(0, 2, 3, 1).contiguous()).astype(np.float32)
    print(f"conv1x1 f16 NHWC torch {tv*1000:.1f} us", flush=True)
    for algo in (None, "gemm", "implicit_gemm"):
        try:
            y = ra.nn.conv2d(x, w, layout="NHWC", algo=algo)
            err = float(cupy.abs(y.astype(np.float32) - ref).max())
            t = timeit(lambda: ra.nn.conv2d(x, w, layout="NHWC", algo=algo))
            print(f"  algo={algo}: {t*1000:.1f} us ratio {tv/t:.2f} maxerr {err:.2e}", flush=True)
        except Exception as ex:
            print(f"  algo={algo}: ERROR {type(ex).__name__}: {str(ex)[:200]}", flush=True)

if __name__ == "__main__":
    conv1x1() if sys.argv[1] == "conv1x1" else sdpa(sys.argv[1])
