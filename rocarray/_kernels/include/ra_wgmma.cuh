// The sm_90a warpgroup matrix instructions (wgmma), NVIDIA only: the fence, commit and wait of
// the asynchronous groups, the shared-memory matrix descriptor, and wgmma.mma_async m64nNk16 for
// float16 and bfloat16 (N = 64, 128, 256; A from shared memory or, N = 64, 128, from registers)
// and m64nNk8 for TF32, accumulating in float32.
// Defined where the compiler targets sm_90a (RA_WGMMA); the kernels using them compile an empty
// body elsewhere. Operand layouts (128-byte swizzled tiles, TMA's layout) and the accumulator
// fragment are documented in rocarray/_kernels/rocblas/gemm_wgmma.hip.
#pragma once

#if defined(RA_CUDA) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define RA_WGMMA 1
#endif

#if defined(RA_WGMMA)
RA_DEVICE void ra_gemm_wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
RA_DEVICE void ra_gemm_wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> RA_DEVICE void ra_gemm_wg_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Registers per thread of the executing warpgroup (every warp of it executes the same one): dec
// gives registers back to the block's pool, inc waits until the pool has them. N: 24 .. 256, a
// multiple of 8; a kernel splits the registers it was launched with among its warpgroups.
template <int N> RA_DEVICE void ra_wg_setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N> RA_DEVICE void ra_wg_setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
// Keeps the compiler from moving accumulator reads or writes across a wgmma wait or issue.
template <int R> RA_DEVICE void ra_gemm_wg_fence_operands(float (&d)[R]) {
#pragma unroll
    for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
// Shared-memory matrix descriptor: start address, leading and stride byte offsets (16-byte
// units, 14 bits each) and the 128-byte swizzle mode (1 in bits 62..63).
RA_DEVICE ra_u64 ra_gemm_wg_desc(unsigned addr, unsigned lbo, unsigned sbo) {
    return (ra_u64)((addr >> 4) & 0x3FFFu) | ((ra_u64)((lbo >> 4) & 0x3FFFu) << 16) |
           ((ra_u64)((sbo >> 4) & 0x3FFFu) << 32) | ((ra_u64)1 << 62);
}

#define RA_WGMMA_D8(i)                                                                            \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
        "+f"(d[i + 6]), "+f"(d[i + 7])
#define RA_WGMMA_OUT32 RA_WGMMA_D8(0), RA_WGMMA_D8(8), RA_WGMMA_D8(16), RA_WGMMA_D8(24)
#define RA_WGMMA_OUT64                                                                              \
    RA_WGMMA_D8(0), RA_WGMMA_D8(8), RA_WGMMA_D8(16), RA_WGMMA_D8(24), RA_WGMMA_D8(32), RA_WGMMA_D8(40), \
        RA_WGMMA_D8(48), RA_WGMMA_D8(56)
#define RA_WGMMA_OUT128                                                                                 \
    RA_WGMMA_OUT64, RA_WGMMA_D8(64), RA_WGMMA_D8(72), RA_WGMMA_D8(80), RA_WGMMA_D8(88), RA_WGMMA_D8(96), \
        RA_WGMMA_D8(104), RA_WGMMA_D8(112), RA_WGMMA_D8(120)
#define RA_WGMMA_REGS32                                                                                  \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, " \
    "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define RA_WGMMA_REGS64                                                                                  \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, " \
    "%22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, " \
    "%42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, " \
    "%62, %63"
#define RA_WGMMA_REGS128                                                                                   \
    RA_WGMMA_REGS64 ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "    \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, " \
    "%100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, "      \
    "%116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
// The scale-d predicate is set (D += A B); operand numbers after the accumulators: descriptors,
// the predicate's source, the two transpose immediates.
#define RA_WGMMA_TAIL32 "}, %32, %33, p, 1, 1, %35, %36;\n}\n"
#define RA_WGMMA_TAIL64 "}, %64, %65, p, 1, 1, %67, %68;\n}\n"
#define RA_WGMMA_TAIL128 "}, %128, %129, p, 1, 1, %131, %132;\n}\n"
#define RA_WGMMA_PRED32 "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
#define RA_WGMMA_PRED64 "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
#define RA_WGMMA_PRED128 "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"

// d (64 x N tile of the warpgroup, f32) += A (64 x 16, descriptor) B (16 x N, descriptor).
// TA / TB: the operand is mn-major (transposed) in shared memory.
template <typename T, int N> struct ra_wgmma_m64k16;
template <> struct ra_wgmma_m64k16<ra_half, 64> {
    template <int TA, int TB> static RA_DEVICE void run(float (&d)[32], ra_u64 a, ra_u64 b) {
        asm volatile(RA_WGMMA_PRED32 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {" RA_WGMMA_REGS32
                     RA_WGMMA_TAIL32
                     : RA_WGMMA_OUT32
                     : "l"(a), "l"(b), "r"(1), "n"(TA), "n"(TB));
    }
};
template <> struct ra_wgmma_m64k16<ra_half, 128> {
    template <int TA, int TB> static RA_DEVICE void run(float (&d)[64], ra_u64 a, ra_u64 b) {
        asm volatile(RA_WGMMA_PRED64 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {" RA_WGMMA_REGS64
                     RA_WGMMA_TAIL64
                     : RA_WGMMA_OUT64
                     : "l"(a), "l"(b), "r"(1), "n"(TA), "n"(TB));
    }
};
template <> struct ra_wgmma_m64k16<ra_half, 256> {
    template <int TA, int TB> static RA_DEVICE void run(float (&d)[128], ra_u64 a, ra_u64 b) {
        asm volatile(RA_WGMMA_PRED128 "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {" RA_WGMMA_REGS128
                     RA_WGMMA_TAIL128
                     : RA_WGMMA_OUT128
                     : "l"(a), "l"(b), "r"(1), "n"(TA), "n"(TB));
    }
};
template <> struct ra_wgmma_m64k16<ra_bfloat16, 64> {
    template <int TA, int TB> static RA_DEVICE void run(float (&d)[32], ra_u64 a, ra_u64 b) {
        asm volatile(RA_WGMMA_PRED32 "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {" RA_WGMMA_REGS32
                     RA_WGMMA_TAIL32
                     : RA_WGMMA_OUT32
                     : "l"(a), "l"(b), "r"(1), "n"(TA), "n"(TB));
    }
};
template <> struct ra_wgmma_m64k16<ra_bfloat16, 128> {
    template <int TA, int TB> static RA_DEVICE void run(float (&d)[64], ra_u64 a, ra_u64 b) {
        asm volatile(RA_WGMMA_PRED64 "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" RA_WGMMA_REGS64
                     RA_WGMMA_TAIL64
                     : RA_WGMMA_OUT64
                     : "l"(a), "l"(b), "r"(1), "n"(TA), "n"(TB));
    }
};
template <> struct ra_wgmma_m64k16<ra_bfloat16, 256> {
    template <int TA, int TB> static RA_DEVICE void run(float (&d)[128], ra_u64 a, ra_u64 b) {
        asm volatile(RA_WGMMA_PRED128 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {" RA_WGMMA_REGS128
                     RA_WGMMA_TAIL128
                     : RA_WGMMA_OUT128
                     : "l"(a), "l"(b), "r"(1), "n"(TA), "n"(TB));
    }
};
// d (64 x N, f32) := A (64 x 16, descriptor) B (16 x N, descriptor) + (accumulate ? d : 0): the
// form of ra_wgmma_m64k16 that can start the accumulators afresh (N = 64, 128).
template <typename T, int N> struct ra_wgmma_m64k16_acc;
#define RA_WGMMA_SS_ACC(TYPE, SHAPE, N, OUT, REGS, PRED, TAIL)                                      \
    template <> struct ra_wgmma_m64k16_acc<TYPE, N> {                                               \
        template <int TA, int TB>                                                                   \
        static RA_DEVICE void run(float (&d)[N / 2], ra_u64 a, ra_u64 b, int accumulate) {          \
            asm volatile(PRED "wgmma.mma_async.sync.aligned." SHAPE " {" REGS TAIL                  \
                         : OUT                                                                      \
                         : "l"(a), "l"(b), "r"(accumulate), "n"(TA), "n"(TB));                      \
        }                                                                                           \
    };
RA_WGMMA_SS_ACC(ra_half, "m64n64k16.f32.f16.f16", 64, RA_WGMMA_OUT32, RA_WGMMA_REGS32, RA_WGMMA_PRED32,
                RA_WGMMA_TAIL32)
RA_WGMMA_SS_ACC(ra_half, "m64n128k16.f32.f16.f16", 128, RA_WGMMA_OUT64, RA_WGMMA_REGS64, RA_WGMMA_PRED64,
                RA_WGMMA_TAIL64)
RA_WGMMA_SS_ACC(ra_bfloat16, "m64n64k16.f32.bf16.bf16", 64, RA_WGMMA_OUT32, RA_WGMMA_REGS32, RA_WGMMA_PRED32,
                RA_WGMMA_TAIL32)
RA_WGMMA_SS_ACC(ra_bfloat16, "m64n128k16.f32.bf16.bf16", 128, RA_WGMMA_OUT64, RA_WGMMA_REGS64, RA_WGMMA_PRED64,
                RA_WGMMA_TAIL64)
#undef RA_WGMMA_SS_ACC

// d (64 x N, f32) += A (64 x 16, registers) B (16 x N, descriptor), N = 64, 128: the register-A
// form. Warp w of the warpgroup holds rows 16 w .. 16 w + 15 of A in the layout of mma.m16n8k16's
// A fragment (PTX ISA, "Register Fragments" of wgmma .m64nNk16, matrix A): lane l, g = l / 4,
// t = l % 4: a[0] = A[g][2t, 2t+1], a[1] = A[g+8][2t, 2t+1], a[2] = A[g][2t+8, 2t+9],
// a[3] = A[g+8][2t+8, 2t+9], pairs packed low element first. The form has no transpose flag
// for A; TB: B is mn-major in shared memory. Operand numbers after the accumulators: the four A
// registers, B's descriptor, the scale-d predicate's source, TB.
#define RA_WGMMA_RS_TAIL32 "}, {%32, %33, %34, %35}, %36, p, 1, 1, %38;\n}\n"
#define RA_WGMMA_RS_PRED32 "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
#define RA_WGMMA_RS_TAIL64 "}, {%64, %65, %66, %67}, %68, p, 1, 1, %70;\n}\n"
#define RA_WGMMA_RS_PRED64 "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
template <typename T, int N> struct ra_wgmma_m64k16_rs;
#define RA_WGMMA_RS(TYPE, SHAPE, N, OUT, REGS, PRED, TAIL)                                                \
    template <> struct ra_wgmma_m64k16_rs<TYPE, N> {                                                      \
        template <int TB> static RA_DEVICE void run(float (&d)[N / 2], const ra_u32 (&a)[4], ra_u64 b) {  \
            asm volatile(PRED "wgmma.mma_async.sync.aligned." SHAPE " {" REGS TAIL                        \
                         : OUT                                                                            \
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1), "n"(TB));          \
        }                                                                                                 \
    };
RA_WGMMA_RS(ra_half, "m64n64k16.f32.f16.f16", 64, RA_WGMMA_OUT32, RA_WGMMA_REGS32, RA_WGMMA_RS_PRED32,
            RA_WGMMA_RS_TAIL32)
RA_WGMMA_RS(ra_half, "m64n128k16.f32.f16.f16", 128, RA_WGMMA_OUT64, RA_WGMMA_REGS64, RA_WGMMA_RS_PRED64,
            RA_WGMMA_RS_TAIL64)
RA_WGMMA_RS(ra_bfloat16, "m64n64k16.f32.bf16.bf16", 64, RA_WGMMA_OUT32, RA_WGMMA_REGS32, RA_WGMMA_RS_PRED32,
            RA_WGMMA_RS_TAIL32)
RA_WGMMA_RS(ra_bfloat16, "m64n128k16.f32.bf16.bf16", 128, RA_WGMMA_OUT64, RA_WGMMA_REGS64, RA_WGMMA_RS_PRED64,
            RA_WGMMA_RS_TAIL64)
#undef RA_WGMMA_RS
// Keeps the compiler from moving writes of an A fragment across a wgmma issue or wait.
template <int R> RA_DEVICE void ra_gemm_wg_fence_fragment(ra_u32 (&a)[R][4]) {
#pragma unroll
    for (int i = 0; i < R; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) asm volatile("" : "+r"(a[i][j])::"memory");
}
// d (64 x 128, f32) := A (64 x 8, descriptor) B (8 x 128, descriptor) + (accumulate ? d : 0),
// TF32 operands (both k-major: the TF32 forms have no transpose flags).
RA_DEVICE void ra_wgmma_m64n128k8_tf32(float (&d)[64], ra_u64 a, ra_u64 b, int accumulate) {
    asm volatile(RA_WGMMA_PRED64 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {" RA_WGMMA_REGS64
                 "}, %64, %65, p, 1, 1;\n}\n"
                 : RA_WGMMA_OUT64
                 : "l"(a), "l"(b), "r"(accumulate));
}
// The same, 64 columns wide (d: 64 x 64).
RA_DEVICE void ra_wgmma_m64n64k8_tf32(float (&d)[32], ra_u64 a, ra_u64 b, int accumulate) {
    asm volatile(RA_WGMMA_PRED32 "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {" RA_WGMMA_REGS32
                 "}, %32, %33, p, 1, 1;\n}\n"
                 : RA_WGMMA_OUT32
                 : "l"(a), "l"(b), "r"(accumulate));
}
#endif  // RA_WGMMA
