// rocBLAS level 3: gemm for 16-bit inputs (float16, bfloat16) with float32 accumulation on the
// sm_90a warpgroup matrix instructions (wgmma), the same semantics and arguments as
// ra_rocblas_gemm_mma (gemm_mma.hip) minus `aligned`:
//
//   C := alpha * op(A) * op(B) + beta * C,   column-major, 64-bit offsets, alpha, beta float32,
//
// with every 8-element group of a matrix column on 16 bytes (A and B 16-byte aligned, lda, ldb and
// the batch strides multiples of 8): the Python layer (rocarray/rocblas/_level3_mma.py) launches it
// only then, only on sm_90 devices, and otherwise takes gemm_mma.hip. K = 0 means C := beta * C.
//
// ra_rocblas_gemm_wgmma<T, A_KMAJOR, B_KMAJOR, BN>:
//  * A block of two warpgroups (8 warps) owns a 128 x BN tile of C (BN = 128 or 256); warpgroup g
//    computes rows 64 g .. 64 g + 63 with wgmma.mma_async m64nBNk16 (f32 accumulators in
//    registers: BN / 2 per thread), 4 of them per k tile of 64.
//  * k tiles of 64 go through a ring of `stages` (>= 3) shared-memory slots, copied with 16-byte
//    cp.async (zero-filling past the edges of m, n and k), `stages - 1` tiles ahead; one wgmma
//    group stays in flight while the next is issued, so a slot is refilled only after the barrier
//    that follows every warpgroup's wait for the group that read it.
//  * Operand tiles use the 128-byte swizzled canonical layouts the wgmma shared-memory descriptors
//    describe (PTX ISA, "Matrix Descriptor Format" and "Shared Memory Matrix Layout" of the
//    asynchronous warpgroup-level matrix instructions): rows of 128 bytes whose 16-byte chunk c is
//    stored at chunk c ^ (row % 8), in 1024-byte atoms of 8 rows.
//      k-major operand (op(X) has k contiguous): row = m (or n), 64 k per row; 8-row atoms are
//        1024 bytes apart (stride byte offset); a k step of 16 advances the start by 32 bytes.
//      mn-major operand: 64-wide mn blocks of 64 rows (k) x 128 bytes (8 KiB each, leading byte
//        offset), 8-k atoms 1024 bytes apart (stride byte offset); a k step of 16 advances 2 KiB;
//        the instruction's transpose flag is set for it.
//    Every slot starts on 1024 bytes (the dynamic shared memory is aligned up at run time).
//  * The same tile order as gemm_mma.hip: groups of RA_GEMM_WG_GROUP tile rows, m fastest.
//  * Accumulator fragment of m64nNk16 (PTX ISA, "Register Fragments" of wgmma .m64nNk16, f32 D):
//    register 4 j + c of warp w (in the warpgroup), lane l holds
//    (row 16 w + l / 4 + 8 (c / 2), column 8 j + 2 (l % 4) + c % 2).
// Targets without sm_90a's wgmma (AMD, other NVIDIA architectures) compile an empty body: the
// Python layer never launches the kernel there.

#define RA_GEMM_WG_BLOCK 256
#define RA_GEMM_WG_BM 128
#define RA_GEMM_WG_BK 64
#define RA_GEMM_WG_GROUP 16
// Leading and stride byte offsets of an mn-major operand (see the top).
#define RA_GEMM_WG_MN_LBO 8192
#define RA_GEMM_WG_MN_SBO 1024

#if defined(RA_CUDA) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define RA_GEMM_WGMMA 1
#endif

#if defined(RA_GEMM_WGMMA)
// ---- wgmma primitives ----
// 16-byte global -> shared copy (shared address `dst`) of which the first src_bytes come from src
// and the rest is zero.
RA_DEVICE void ra_gemm_wg_copy16(unsigned dst, const void* src, int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
RA_DEVICE void ra_gemm_wg_copy_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> RA_DEVICE void ra_gemm_wg_copy_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
// Wait until at most `pending` (>= 0) copy groups of this thread are in flight (at most 4 kept).
RA_DEVICE void ra_gemm_wg_copy_wait_n(int pending) {
    if (pending >= 4) {
        ra_gemm_wg_copy_wait<4>();
    } else if (pending == 3) {
        ra_gemm_wg_copy_wait<3>();
    } else if (pending == 2) {
        ra_gemm_wg_copy_wait<2>();
    } else if (pending == 1) {
        ra_gemm_wg_copy_wait<1>();
    } else {
        ra_gemm_wg_copy_wait<0>();
    }
}
// Shared-memory writes of this thread (cp.async goes through the generic proxy) become visible to
// the asynchronous proxy that wgmma reads its operands through.
RA_DEVICE void ra_gemm_wg_fence_proxy() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
RA_DEVICE void ra_gemm_wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
RA_DEVICE void ra_gemm_wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> RA_DEVICE void ra_gemm_wg_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
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
#define RA_WGMMA_OUT64                                                                              \
    RA_WGMMA_D8(0), RA_WGMMA_D8(8), RA_WGMMA_D8(16), RA_WGMMA_D8(24), RA_WGMMA_D8(32), RA_WGMMA_D8(40), \
        RA_WGMMA_D8(48), RA_WGMMA_D8(56)
#define RA_WGMMA_OUT128                                                                                 \
    RA_WGMMA_OUT64, RA_WGMMA_D8(64), RA_WGMMA_D8(72), RA_WGMMA_D8(80), RA_WGMMA_D8(88), RA_WGMMA_D8(96), \
        RA_WGMMA_D8(104), RA_WGMMA_D8(112), RA_WGMMA_D8(120)
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
#define RA_WGMMA_TAIL64 "}, %64, %65, p, 1, 1, %67, %68;\n}\n"
#define RA_WGMMA_TAIL128 "}, %128, %129, p, 1, 1, %131, %132;\n}\n"
#define RA_WGMMA_PRED64 "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
#define RA_WGMMA_PRED128 "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"

// d (64 x N tile of the warpgroup, f32) += A (64 x 16, descriptor) B (16 x N, descriptor).
// TA / TB: the operand is mn-major (transposed) in shared memory.
template <typename T, int N> struct ra_wgmma_m64k16;
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
// ---- end of wgmma primitives ----

// One operand tile (R rows of m or n, 64 k) in its swizzled layout: where 16-byte chunk q (0 ..
// R * 8 - 1, consecutive q consecutive in global memory) comes from and goes to.
template <bool KMAJOR, int R> struct ra_gemm_wg_operand {
    static constexpr int CHUNKS = R * RA_GEMM_WG_BK / 8;
    static constexpr int PER_THREAD = CHUNKS / RA_GEMM_WG_BLOCK;
    static constexpr unsigned BYTES = (unsigned)CHUNKS * 16u;
    static_assert(CHUNKS % RA_GEMM_WG_BLOCK == 0, "chunks per thread");
    // (outer, inner): the chunk holds elements inner .. inner + 7 of memory column outer, relative
    // to the tile origin (k-major: outer = mn, inner = k; mn-major: outer = k, inner = mn).
    RA_DEVICE static void place(int q, int& outer, int& inner, unsigned& offset) {
        if (KMAJOR) {
            const int row = q >> 3, c = q & 7;
            outer = row; inner = 8 * c;
            offset = (unsigned)row * 128u + (unsigned)((c ^ (row & 7)) << 4);
        } else {
            constexpr int PER_ROW = R / 8;
            const int row = q / PER_ROW, cm = q % PER_ROW;
            outer = row; inner = 8 * cm;
            offset = (unsigned)(cm >> 3) * 8192u + (unsigned)row * 128u + (unsigned)(((cm & 7) ^ (row & 7)) << 4);
        }
    }
    // Copies the tile of op(X) at (mn0, k0) into the slot at shared address `slot`.
    RA_DEVICE static void load(unsigned slot, const ra_u16* __restrict__ X, ra_i64 ld, ra_i64 mn0, ra_i64 MN,
                               ra_i64 k0, ra_i64 K) {
#pragma unroll
        for (int e = 0; e < PER_THREAD; ++e) {
            int o, i;
            unsigned offset;
            place((int)threadIdx.x + RA_GEMM_WG_BLOCK * e, o, i, offset);
            const ra_i64 outer = (KMAJOR ? mn0 : k0) + o, inner = (KMAJOR ? k0 : mn0) + i;
            const ra_i64 outer_n = KMAJOR ? MN : K, left = (KMAJOR ? K : MN) - inner;
            const int valid = outer < outer_n ? (int)(left < 0 ? 0 : (left > 8 ? 8 : left)) : 0;
            ra_gemm_wg_copy16(slot + offset, valid > 0 ? (const void*)(X + outer * ld + inner) : (const void*)X,
                              2 * valid);
        }
    }
    // Descriptor of the 16-deep k step s (0..3) for rows mn_first .. (a multiple of 64).
    RA_DEVICE static ra_u64 desc(unsigned slot, int mn_first, int s) {
        if (KMAJOR) return ra_gemm_wg_desc(slot + (unsigned)mn_first * 128u + 32u * (unsigned)s, 16u, 1024u);
        return ra_gemm_wg_desc(slot + (unsigned)(mn_first / 64) * 8192u + 2048u * (unsigned)s, RA_GEMM_WG_MN_LBO,
                               RA_GEMM_WG_MN_SBO);
    }
};

// C(i, j) := alpha * v + beta * C(i, j) inside the matrix (beta == 0: C not read).
template <typename T>
RA_DEVICE void ra_gemm_wg_store(T* __restrict__ C, ra_i64 ldc, ra_i64 M, ra_i64 N, ra_i64 i, ra_i64 j, float v,
                                float alpha, float beta) {
    if (i < M && j < N) {
        T* p = C + i + j * ldc;
        float r = alpha * v;
        if (beta != 0.0f) r = ra_fma(beta, ra_traits<T>::to_acc(*p), r);
        *p = ra_traits<T>::from_acc(r);
    }
}
#endif  // RA_GEMM_WGMMA

template <typename T, bool A_KMAJOR, bool B_KMAJOR, int BN>
__global__ void __launch_bounds__(RA_GEMM_WG_BLOCK, 1)
ra_rocblas_gemm_wgmma(ra_i64 M, ra_i64 N, ra_i64 K, float alpha, const T* __restrict__ A, ra_i64 lda,
                      ra_i64 stride_a, const T* __restrict__ B, ra_i64 ldb, ra_i64 stride_b, float beta,
                      T* __restrict__ C, ra_i64 ldc, ra_i64 stride_c, int stages) {
    static_assert(BN == 128 || BN == 256, "block tile width");
#if defined(RA_GEMM_WGMMA)
    constexpr int BM = RA_GEMM_WG_BM, BK = RA_GEMM_WG_BK;
    constexpr int WG = 4 * RA_WARP_SIZE;  // threads of one warpgroup
    constexpr int R = BN / 2;             // accumulators per thread
    typedef ra_gemm_wg_operand<A_KMAJOR, BM> OA;
    typedef ra_gemm_wg_operand<B_KMAJOR, BN> OB;
    constexpr unsigned SLOT = OA::BYTES + OB::BYTES;

    extern __shared__ ra_u64 ra_gemm_wg_smem[];
    const unsigned base = ((unsigned)__cvta_generic_to_shared(ra_gemm_wg_smem) + 1023u) & ~1023u;

    const ra_i64 tiles_m = (M + BM - 1) / BM;
    const ra_i64 tiles_n = (N + BN - 1) / BN;
    const ra_i64 bid = (ra_i64)blockIdx.x;
    const ra_i64 per_group = (ra_i64)RA_GEMM_WG_GROUP * tiles_n;
    const ra_i64 first = bid / per_group * RA_GEMM_WG_GROUP;
    const ra_i64 rows = tiles_m - first < RA_GEMM_WG_GROUP ? tiles_m - first : (ra_i64)RA_GEMM_WG_GROUP;
    const ra_i64 in_group = bid % per_group;
    const ra_i64 batch = (ra_i64)blockIdx.y;
    const ra_i64 m0 = (first + in_group % rows) * BM;
    const ra_i64 n0 = (in_group / rows) * BN;
    const ra_u16* Ab = (const ra_u16*)(A + batch * stride_a);
    const ra_u16* Bb = (const ra_u16*)(B + batch * stride_b);
    C += batch * stride_c;
    const float alpha_k = K > 0 ? alpha : 0.0f;  // K == 0: C := beta C (alpha * 0 would be NaN for inf)

    const int g = (int)threadIdx.x / WG;  // warpgroup: rows 64 g .. 64 g + 63 of the tile
    float d[R];
#pragma unroll
    for (int i = 0; i < R; ++i) d[i] = 0.0f;

    const ra_i64 ktiles = (K + BK - 1) / BK;
    const int S = stages;
    auto prefetch = [&](ra_i64 kt, int slot_index) {
        if (kt < ktiles) {
            const unsigned slot = base + (unsigned)slot_index * SLOT;
            OA::load(slot, Ab, lda, m0, M, kt * BK, K);
            OB::load(slot + OA::BYTES, Bb, ldb, n0, N, kt * BK, K);
        }
        ra_gemm_wg_copy_commit();  // an empty group past the end keeps the count uniform
    };
    for (int s = 0; s < S - 1; ++s) prefetch(s, s);
    ra_gemm_wg_fence_operands(d);
    int rd = 0, wr = S - 1;  // slots of tile kt and of tile kt + S - 1 (= tile kt - 1's)
    for (ra_i64 kt = 0; kt < ktiles; ++kt) {
        ra_gemm_wg_copy_wait_n(S - 2);  // tile kt has landed (this thread's part)
        ra_gemm_wg_fence_proxy();
        __syncthreads();  // every part of tile kt
        const unsigned slot = base + (unsigned)rd * SLOT;
        ra_gemm_wg_fence();
#pragma unroll
        for (int s = 0; s < BK / 16; ++s)
            ra_wgmma_m64k16<T, BN>::template run<A_KMAJOR ? 0 : 1, B_KMAJOR ? 0 : 1>(
                d, OA::desc(slot, 64 * g, s), OB::desc(slot + OA::BYTES, 0, s));
        ra_gemm_wg_commit();
        ra_gemm_wg_wait<1>();  // the group of tile kt - 1 is done
        ra_gemm_wg_fence_operands(d);
        __syncthreads();  // ... in both warpgroups, while the group of tile kt runs
        prefetch(kt + S - 1, wr);  // into tile kt - 1's slot
        rd = rd + 1 == S ? 0 : rd + 1;
        wr = wr + 1 == S ? 0 : wr + 1;
    }
    ra_gemm_wg_wait<0>();
    ra_gemm_wg_fence_operands(d);
    ra_gemm_wg_copy_wait<0>();

    const int t = (int)threadIdx.x % WG, w = t / RA_WARP_SIZE, lane = t % RA_WARP_SIZE;
    const ra_i64 row0 = m0 + 64 * g + 16 * w + lane / 4;
    const ra_i64 col0 = n0 + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
        for (int c = 0; c < 4; ++c)
            ra_gemm_wg_store<T>(C, ldc, M, N, row0 + 8 * (c >> 1), col0 + 8 * j + (c & 1), d[4 * j + c], alpha_k, beta);
#endif
}
