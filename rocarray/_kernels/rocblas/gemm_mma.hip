// rocBLAS level 3: gemm on the matrix cores for 16-bit inputs (float16, bfloat16) with float32
// accumulation, the semantics of rocblas_gemm_ex with compute_type f32:
//
//   C := act(alpha * op(A) * op(B) + beta * C + bias),   op(X) = X or X^T,   alpha, beta float32,
//
// column-major (element (i, j) of C is C[i + j * ldc], 64-bit offsets), op(A) m x k, op(B) k x n,
// C of the input dtype (the float32 result is rounded once, to nearest even). The Python layer
// (rocarray/rocblas/_gemm/half.py, mma.py) has checked every bound and passes K = 0 when alpha == 0 or
// k == 0: then A and B are not read and C := act(beta * C + bias). beta == 0 never reads C.
// bias (m elements of T, one per row of C; null for none) and act (ra_activation's code, 0 for
// none) are the fused epilogue of rocblas.gemm, applied in float32 before the one rounding.
//
// One kernel template, ra_rocblas_gemm_mma<T, A_KMAJOR, B_KMAJOR, BN>:
//  * T: ra_half or ra_bfloat16. A_KMAJOR: op(A) has k contiguous in memory (transA = 'T'),
//    B_KMAJOR: op(B) has k contiguous (transB = 'N'). BN: 128 or 256, the block tile's width.
//  * Runtime arguments (uniform, so they cost no instantiations): `aligned`: every 8-element
//    group of a matrix column starts on 16 bytes (A and B 16-byte aligned, lda, ldb and the batch
//    strides multiples of 8), so tiles move as 16-byte chunks; otherwise every element is loaded
//    on its own (slower, same result). `stages`: depth of the shared-memory ring (>= 2); the
//    block's dynamic shared memory must hold stages * (128 + BN) * 32 * 2 bytes.
//  * A block of 256 threads owns a 128 x BN tile of C and walks k in steps of 32 through a ring
//    of `stages` shared-memory tiles (dynamic shared memory; the launch sets its size).
//    Tile order (1-D grid, blockIdx.y is the batch index): groups of RA_GEMM_MMA_GROUP tile rows
//    (m), m fastest inside a group, so the blocks resident at one time cover a near-square
//    window of C and share their A and B panels in L2 (threadblock rasterization).
//  * Each operand tile is stored as in global memory, as rows of 16-byte chunks: k-major (MN rows
//    of 32 k, 4 chunks) or mn-major (32 rows of MN m or n, MN / 8 chunks). The chunk index within
//    a row is XOR-swizzled with the row ((row >> 1) & 3, resp. row & 7) so that the 8 rows one
//    ldmatrix phase (or one MFMA fragment read) touches fall in 8 different bank groups.
//  * Partial tiles at the edges of m, n and k are zero-filled while loading (predicated copies),
//    so the inner loop has no guards; the stores of C are guarded.
//
// Backends (the inner product of one k step), chosen at compile time:
//  * NVIDIA sm_80+ (RA_CUDA): 8 warps as 2 (m) x 4 (n), warp tile 64 x BN/4 = 4 x BN/32 tiles of
//    mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32; fragments are read from
//    shared memory with ldmatrix.sync.aligned.m8n8.x4(.trans).shared.b16 (.trans for the
//    mn-major tiles), and the fragments of the next 16-wide k step are loaded before the mma of
//    the current one are issued (register double buffering); global -> shared copies are
//    cp.async.cg (16 bytes, zero-filling through the src-size operand) in commit groups,
//    stages - 1 tiles in flight while one is multiplied.
//    Fragment layouts: PTX ISA, section "Matrix Fragments for mma.m16n8k16 with floating point
//    type" and the ldmatrix instruction description (warp-level matrix load).
//  * AMD CDNA2/3 (RA_HIP, gfx90a/gfx94x, wave64): 4 waves as 2 x 2, wave tile 64 x BN/2 = 2 x
//    BN/64 tiles of v_mfma_f32_32x32x8{f16,bf16_1k} (__builtin_amdgcn_mfma_*); plain copies.
//    Operand layout (AMD CDNA3 ISA, MFMA section; AMD matrix instruction calculator): lane l
//    holds A(i = l % 32, k = 4 (l / 32) + 0..3), B(k = 4 (l / 32) + 0..3, j = l % 32) and
//    D(i = 8 (r / 4) + 4 (l / 32) + r % 4, j = l % 32) in accumulator register r (0..15).
//    The library launches only BN = 128 there (64 KB of LDS per workgroup); the BN = 256
//    instantiations compile to the portable path (below), correct but never chosen.
//  * anywhere else: the same tiles multiplied by scalar float FMAs (8 x BN/16 outputs per
//    thread): slow, but every target compiles and computes the same result.
// The vendor primitives are wrapped in small RA_DEVICE functions (ra_cp_async_16,
// ra_ldmatrix_x4, ra_mma_16816, ra_mfma_32x32x8); the host emulator used for testing replaces
// exactly the block between the ra-mma-primitives markers.

#define RA_GEMM_MMA_BLOCK 256
#define RA_GEMM_MMA_BM 128
#define RA_GEMM_MMA_BK 32
#define RA_GEMM_MMA_GROUP 16

// ---- ra-mma-primitives-begin ----
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
#define RA_GEMM_MMA_NV 1
#elif defined(RA_HIP) && defined(RA_AMD_MFMA) && RA_WARP_SIZE == 64 && !defined(RA_ARCH_GFX908)
#define RA_GEMM_MMA_AMD 1
#endif

// 16-byte global -> shared copy of which the first src_bytes (0..16) come from src and the rest
// is zero. NVIDIA: asynchronous (cp.async.cg with src-size), complete after ra_cp_async_wait.
RA_DEVICE void ra_cp_async_16(void* smem_dst, const void* src, int src_bytes) {
#if defined(RA_GEMM_MMA_NV)
    const unsigned addr = (unsigned)__cvta_generic_to_shared(smem_dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(addr), "l"(src), "r"(src_bytes));
#else
    ra_u32* d = (ra_u32*)smem_dst;
    if (src_bytes == 16) {
        const ra_u32* s = (const ra_u32*)src;
        d[0] = s[0]; d[1] = s[1]; d[2] = s[2]; d[3] = s[3];
    } else {
        const ra_u16* s = (const ra_u16*)src;
        ra_u32 w[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const ra_u32 lo = 4 * e < src_bytes ? (ra_u32)s[2 * e] : 0u;
            const ra_u32 hi = 4 * e + 2 < src_bytes ? (ra_u32)s[2 * e + 1] : 0u;
            w[e] = lo | (hi << 16);
        }
        d[0] = w[0]; d[1] = w[1]; d[2] = w[2]; d[3] = w[3];
    }
#endif
}
RA_DEVICE void ra_cp_async_commit() {
#if defined(RA_GEMM_MMA_NV)
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
// Wait until at most N of this thread's committed groups are still in flight.
template <int N> RA_DEVICE void ra_cp_async_wait() {
#if defined(RA_GEMM_MMA_NV)
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

#if defined(RA_GEMM_MMA_NV)
// Four 8 x 8 b16 matrices: lane 8 q + r gives the address of row r of matrix q (16 bytes); lane l
// receives in r[q] the elements (l / 4, 2 (l % 4) + {0, 1}) of matrix q, or with TRANS the
// elements (2 (l % 4) + {0, 1}, l / 4).
template <bool TRANS> RA_DEVICE void ra_ldmatrix_x4(ra_u32 (&r)[4], const void* smem_row) {
    const unsigned addr = (unsigned)__cvta_generic_to_shared(smem_row);
    if (TRANS) {
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
    } else {
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
    }
}
// d += a b for one 16 x 8 x 16 tile (a: 4 registers of the A fragment, b: 2 of the B fragment).
template <typename T> struct ra_mma_16816;
template <> struct ra_mma_16816<ra_half> {
    static RA_DEVICE void run(float (&d)[4], const ra_u32 (&a)[4], ra_u32 b0, ra_u32 b1) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9}, {%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};
template <> struct ra_mma_16816<ra_bfloat16> {
    static RA_DEVICE void run(float (&d)[4], const ra_u32 (&a)[4], ra_u32 b0, ra_u32 b1) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9}, {%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};
#endif

#if defined(RA_GEMM_MMA_AMD)
typedef float ra_f32x16 __attribute__((ext_vector_type(16)));
typedef _Float16 ra_f16x4 __attribute__((ext_vector_type(4)));
typedef short ra_i16x4 __attribute__((ext_vector_type(4)));
// d += a b for one 32 x 32 x 8 tile; a, b: this lane's 4 elements (bits), packed low to high.
template <typename T> struct ra_mfma_32x32x8;
template <> struct ra_mfma_32x32x8<ra_half> {
    static RA_DEVICE ra_f32x16 run(ra_u64 a, ra_u64 b, ra_f32x16 d) {
        return __builtin_amdgcn_mfma_f32_32x32x8f16(__builtin_bit_cast(ra_f16x4, a),
                                                    __builtin_bit_cast(ra_f16x4, b), d, 0, 0, 0);
    }
};
template <> struct ra_mfma_32x32x8<ra_bfloat16> {
    static RA_DEVICE ra_f32x16 run(ra_u64 a, ra_u64 b, ra_f32x16 d) {
        return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(__builtin_bit_cast(ra_i16x4, a),
                                                        __builtin_bit_cast(ra_i16x4, b), d, 0, 0, 0);
    }
};
#endif
// ---- ra-mma-primitives-end ----

// Wait until at most `pending` (>= 0) of this thread's committed cp.async groups are in flight;
// a deeper ring waits for more than it must (at most 3 pending), which is always correct.
RA_DEVICE void ra_gemm_mma_wait(int pending) {
    if (pending >= 3) {
        ra_cp_async_wait<3>();
    } else if (pending == 2) {
        ra_cp_async_wait<2>();
    } else if (pending == 1) {
        ra_cp_async_wait<1>();
    } else {
        ra_cp_async_wait<0>();
    }
}

// One 16-byte chunk of shared memory (8 elements).
struct alignas(16) ra_gemm_mma_chunk { ra_u32 w[4]; };

// Geometry of one operand tile (MN (m or n) x 32 (k) elements) in shared memory.
// KMAJOR: MN rows (mn) of 4 chunks (k); else 32 rows (k) of MN / 8 chunks (mn).
template <bool KMAJOR, int MN_> struct ra_gemm_mma_tile {
    static constexpr int MN = MN_;
    static constexpr int K = RA_GEMM_MMA_BK;
    static constexpr int CHUNKS = KMAJOR ? K / 8 : MN / 8;  // chunks per row
    static constexpr int COUNT = MN * K / 8;                  // chunks per tile
    RA_DEVICE static int swizzle(int row) { return KMAJOR ? (row >> 1) & (CHUNKS - 1) : row & 7; }
    RA_DEVICE static int chunk(int row, int c) { return row * CHUNKS + (c ^ swizzle(row)); }
    // element offset (in 16-bit elements) of (mn, k)
    RA_DEVICE static int offset(int mn, int k) {
        return KMAJOR ? chunk(mn, k >> 3) * 8 + (k & 7) : chunk(k, mn >> 3) * 8 + (mn & 7);
    }
};

// Load the MN x 32 tile of op(X) at (mn0, k0) into s. op(X)(mn, k) is X[k + mn * ld] when
// KMAJOR and X[mn + k * ld] otherwise; elements outside MN x K read as zero.
template <bool KMAJOR, int MN_>
RA_DEVICE void ra_gemm_mma_load_tile(ra_gemm_mma_chunk* s, const ra_u16* __restrict__ X, ra_i64 ld, ra_i64 mn0,
                                     ra_i64 MN, ra_i64 k0, ra_i64 K, bool aligned) {
    typedef ra_gemm_mma_tile<KMAJOR, MN_> G;
    static_assert(G::COUNT % RA_GEMM_MMA_BLOCK == 0, "chunks per thread");
#pragma unroll
    for (int e = 0; e < G::COUNT / RA_GEMM_MMA_BLOCK; ++e) {
        const int q = (int)threadIdx.x + RA_GEMM_MMA_BLOCK * e;
        const int row = q / G::CHUNKS, c = q % G::CHUNKS;
        ra_i64 outer, inner, outer_n, inner_n;  // the chunk: elements inner..inner+7 of column outer
        if (KMAJOR) {
            outer = mn0 + row; inner = k0 + 8 * c; outer_n = MN; inner_n = K;
        } else {
            outer = k0 + row; inner = mn0 + 8 * c; outer_n = K; inner_n = MN;
        }
        ra_i64 left = inner_n - inner;
        const int valid = outer < outer_n ? (int)(left < 0 ? 0 : (left > 8 ? 8 : left)) : 0;
        const ra_u16* src = valid > 0 ? X + outer * ld + inner : X;
        ra_gemm_mma_chunk* dst = s + G::chunk(row, c);
        if (aligned) {
            ra_cp_async_16(dst, src, 2 * valid);
        } else {
            ra_u32 w[4];
#pragma unroll
            for (int p = 0; p < 4; ++p) {
                const ra_u32 lo = 2 * p < valid ? (ra_u32)src[2 * p] : 0u;
                const ra_u32 hi = 2 * p + 1 < valid ? (ra_u32)src[2 * p + 1] : 0u;
                w[p] = lo | (hi << 16);
            }
            dst->w[0] = w[0]; dst->w[1] = w[1]; dst->w[2] = w[2]; dst->w[3] = w[3];
        }
    }
}

template <typename T> RA_DEVICE float ra_gemm_mma_to_float(ra_u16 bits) {
    T v; v.bits = bits; return ra_traits<T>::to_acc(v);
}

// The shared state of one block's k loop: where the tiles come from and the ring they go to.
// Stage s of the ring holds the A tile (BM x 32) then the B tile (BN x 32).
template <typename T, bool A_KMAJOR, bool B_KMAJOR, int BN> struct ra_gemm_mma_ctx {
    typedef ra_gemm_mma_tile<A_KMAJOR, RA_GEMM_MMA_BM> GA;
    typedef ra_gemm_mma_tile<B_KMAJOR, BN> GB;
    static constexpr int STAGE_CHUNKS = GA::COUNT + GB::COUNT;
    ra_gemm_mma_chunk* smem;
    const ra_u16* A;
    const ra_u16* B;
    ra_i64 lda, ldb, M, N, K, m0, n0, ktiles;
    int stages;
    bool aligned;

    RA_DEVICE ra_gemm_mma_chunk* stage_a(int s) const { return smem + (ra_i64)s * STAGE_CHUNKS; }
    RA_DEVICE ra_gemm_mma_chunk* stage_b(int s) const { return smem + (ra_i64)s * STAGE_CHUNKS + GA::COUNT; }
    // Issue the copies of k tile kt into ring slot `slot` and commit them as one group (an empty
    // group past the end keeps the group count uniform).
    RA_DEVICE void prefetch(ra_i64 kt, int slot) const {
        if (kt < ktiles) {
            const ra_i64 k0 = kt * RA_GEMM_MMA_BK;
            ra_gemm_mma_load_tile<A_KMAJOR, RA_GEMM_MMA_BM>(stage_a(slot), A, lda, m0, M, k0, K, aligned);
            ra_gemm_mma_load_tile<B_KMAJOR, BN>(stage_b(slot), B, ldb, n0, N, k0, K, aligned);
        }
        ra_cp_async_commit();
    }
};

// The ring protocol shared by every backend: prefetch stages - 1 tiles, then per k tile: wait for
// it, one barrier (every warp is done with the previous tile, so its slot is free), prefetch the
// tile stages - 1 ahead into that slot, multiply the current one with step(sa, sb).
template <typename Ctx, typename Step> RA_DEVICE void ra_gemm_mma_k_loop(const Ctx& x, Step step) {
    const int S = x.stages;
    for (int s = 0; s < S - 1; ++s) x.prefetch(s, s);
    int rd = 0, wr = S - 1;
    for (ra_i64 kt = 0; kt < x.ktiles; ++kt) {
        ra_gemm_mma_wait(S - 2);
        __syncthreads();
        x.prefetch(kt + S - 1, wr);
        step((const ra_u16*)x.stage_a(rd), (const ra_u16*)x.stage_b(rd));
        rd = rd + 1 == S ? 0 : rd + 1;
        wr = wr + 1 == S ? 0 : wr + 1;
    }
    ra_cp_async_wait<0>();
}

// The epilogue of a thread's R accumulators (rounded once to T):
//   C(i, j) := act(alpha * value(e) + beta * C(i, j) + bias[i]),   where(e, i, j) for e = 0 .. R - 1.
// One unrolled pass computes every element's float value (the reads of C and the bias issued
// together) and, without an activation, stores it. With one, the values are kept in a per-thread
// float array instead and a second pass, not unrolled, applies the activation and stores them:
// the activation's code (erf, exp, tanh) then exists once per kernel rather than once per element
// in a second unrolled copy of the epilogue, which was most of this source's compile time. The
// values stay in float until their one rounding, so the result is the same as applying the
// activation inline. The array is only indexed by the rolled pass, so it lives in local memory
// and the accumulators stay in registers; the plain product never touches it.
template <typename T, int R, typename Value, typename Where>
RA_DEVICE void ra_gemm_mma_epilogue(T* __restrict__ C, ra_i64 ldc, ra_i64 M, ra_i64 N, float alpha, float beta,
                                    const T* __restrict__ bias, int act, Value value, Where where) {
    float keep[R];
#pragma unroll
    for (int e = 0; e < R; ++e) {
        ra_i64 i, j;
        where(e, i, j);
        const float v = ra_gemm_epilogue_value<T>(C, ldc, M, N, i, j, value(e), alpha, beta, bias);
        if (act == 0) ra_gemm_epilogue_put<T>(C, ldc, M, N, i, j, v);
        else keep[e] = v;
    }
    if (act != 0) {
#pragma unroll 1
        for (int e = 0; e < R; ++e) {
            ra_i64 i, j;
            where(e, i, j);
            ra_gemm_epilogue_put<T>(C, ldc, M, N, i, j, ra_activation(keep[e], act));
        }
    }
}

// Portable inner product: thread (tx, ty) computes rows tx + 16 a (8) and columns ty + 16 b
// (BN / 16) with scalar FMAs.
template <typename T, bool A_KMAJOR, bool B_KMAJOR, int BN>
RA_DEVICE void ra_gemm_mma_portable(const ra_gemm_mma_ctx<T, A_KMAJOR, B_KMAJOR, BN>& x, T* __restrict__ C,
                                    ra_i64 ldc, float alpha_k, float beta, const T* __restrict__ bias,
                                    int act) {
    typedef ra_gemm_mma_ctx<T, A_KMAJOR, B_KMAJOR, BN> Ctx;
    typedef typename Ctx::GA GA;
    typedef typename Ctx::GB GB;
    constexpr int NB = BN / 16;
    const int tx = (int)threadIdx.x % 16, ty = (int)threadIdx.x / 16;
    float acc[8][NB];
#pragma unroll
    for (int a = 0; a < 8; ++a)
#pragma unroll
        for (int b = 0; b < NB; ++b) acc[a][b] = 0.0f;

    ra_gemm_mma_k_loop(x, [&](const ra_u16* sa, const ra_u16* sb) {
        for (int kk = 0; kk < RA_GEMM_MMA_BK; ++kk) {
            float av[8], bv[NB];
#pragma unroll
            for (int a = 0; a < 8; ++a) av[a] = ra_gemm_mma_to_float<T>(sa[GA::offset(tx + 16 * a, kk)]);
#pragma unroll
            for (int b = 0; b < NB; ++b) bv[b] = ra_gemm_mma_to_float<T>(sb[GB::offset(ty + 16 * b, kk)]);
#pragma unroll
            for (int a = 0; a < 8; ++a)
#pragma unroll
                for (int b = 0; b < NB; ++b) acc[a][b] = ra_fma(av[a], bv[b], acc[a][b]);
        }
    });

    // element e: acc[a][b] with a = e / NB, b = e % NB
    ra_gemm_mma_epilogue<T, 8 * NB>(
        C, ldc, x.M, x.N, alpha_k, beta, bias, act, [&](int e) { return acc[e / NB][e % NB]; },
        [&](int e, ra_i64& i, ra_i64& j) { i = x.m0 + tx + 16 * (e / NB); j = x.n0 + ty + 16 * (e % NB); });
}

template <typename T, bool A_KMAJOR, bool B_KMAJOR, int BN>
__global__ void __launch_bounds__(RA_GEMM_MMA_BLOCK)
ra_rocblas_gemm_mma(ra_i64 M, ra_i64 N, ra_i64 K, float alpha, const T* __restrict__ A, ra_i64 lda,
                    ra_i64 stride_a, const T* __restrict__ B, ra_i64 ldb, ra_i64 stride_b, float beta,
                    T* __restrict__ C, ra_i64 ldc, ra_i64 stride_c, int aligned, int stages,
                    const T* __restrict__ bias, int act) {
    ra_dependent_grid_enter();
    constexpr int BM = RA_GEMM_MMA_BM, BK = RA_GEMM_MMA_BK;
    static_assert(BN == 128 || BN == 256, "block tile width");
    typedef ra_gemm_mma_ctx<T, A_KMAJOR, B_KMAJOR, BN> Ctx;
    typedef typename Ctx::GA GA;
    typedef typename Ctx::GB GB;

    extern __shared__ ra_gemm_mma_chunk ra_gemm_mma_smem[];

    // Tile coordinates: groups of GROUP tile rows, m fastest within a group (the last group may
    // be shorter).
    const ra_i64 tiles_m = (M + BM - 1) / BM;
    const ra_i64 tiles_n = (N + BN - 1) / BN;
    const ra_i64 bid = (ra_i64)blockIdx.x;
    const ra_i64 per_group = (ra_i64)RA_GEMM_MMA_GROUP * tiles_n;
    const ra_i64 first = bid / per_group * RA_GEMM_MMA_GROUP;
    const ra_i64 rows = tiles_m - first < RA_GEMM_MMA_GROUP ? tiles_m - first : (ra_i64)RA_GEMM_MMA_GROUP;
    const ra_i64 in_group = bid % per_group;
    const ra_i64 batch = (ra_i64)blockIdx.y;

    Ctx x;
    x.smem = ra_gemm_mma_smem;
    x.A = (const ra_u16*)(A + batch * stride_a);
    x.B = (const ra_u16*)(B + batch * stride_b);
    x.lda = lda; x.ldb = ldb; x.M = M; x.N = N; x.K = K;
    x.m0 = (first + in_group % rows) * BM;
    x.n0 = (in_group / rows) * BN;
    x.ktiles = (K + BK - 1) / BK;
    x.stages = stages;
    x.aligned = aligned != 0;
    C += batch * stride_c;
    const float alpha_k = K > 0 ? alpha : 0.0f;  // K == 0: C := beta C (alpha * 0 would be NaN for inf)

#if defined(RA_GEMM_MMA_NV)
    // 8 warps: 2 along m (64 rows each) x 4 along n (WN columns each).
    constexpr int WN = BN / 4, NI = WN / 8, NJ = NI / 2;
    const int lane = (int)threadIdx.x % RA_WARP_SIZE;
    const int warp = (int)threadIdx.x / RA_WARP_SIZE;
    const int wm = (warp % 2) * 64, wn = (warp / 2) * WN;
    float acc[4][NI][4];
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
        for (int b = 0; b < NI; ++b)
#pragma unroll
            for (int c = 0; c < 4; ++c) acc[a][b][c] = 0.0f;
    // ldmatrix row addresses: lane = 8 q + r gives row r of matrix q.
    const int q = lane >> 3, r8 = lane & 7;
    // A fragment (16 x 16): matrix q covers rows 8 (q & 1), k 8 (q >> 1) (registers a0..a3).
    const int a_mn = wm + 8 * (q & 1), a_k = 8 * (q >> 1);
    // B fragments of two n8 tiles: matrix q covers n 8 (q >> 1), k 8 (q & 1) (b0, b1 of each).
    const int b_mn = wn + 8 * (q >> 1), b_k = 8 * (q & 1);

    ra_gemm_mma_k_loop(x, [&](const ra_u16* sa, const ra_u16* sb) {
        // Two 16-wide k steps; the fragments of step 1 load while the mma of step 0 issue.
        ra_u32 af[2][4][4], bf[2][NJ][4];
        auto load = [&](int buf, int kk) {
#pragma unroll
            for (int mi = 0; mi < 4; ++mi) {
                const int o = A_KMAJOR ? GA::offset(a_mn + 16 * mi + r8, kk + a_k)
                                       : GA::offset(a_mn + 16 * mi, kk + a_k + r8);
                ra_ldmatrix_x4<!A_KMAJOR>(af[buf][mi], sa + o);
            }
#pragma unroll
            for (int nj = 0; nj < NJ; ++nj) {
                const int o = B_KMAJOR ? GB::offset(b_mn + 16 * nj + r8, kk + b_k)
                                       : GB::offset(b_mn + 16 * nj, kk + b_k + r8);
                ra_ldmatrix_x4<!B_KMAJOR>(bf[buf][nj], sb + o);
            }
        };
        load(0, 0);
#pragma unroll
        for (int step = 0; step < BK / 16; ++step) {
            if (step + 1 < BK / 16) load((step + 1) & 1, 16 * (step + 1));
            const int cur = step & 1;
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
#pragma unroll
                for (int ni = 0; ni < NI; ++ni)
                    ra_mma_16816<T>::run(acc[mi][ni], af[cur][mi], bf[cur][ni >> 1][2 * (ni & 1)],
                                         bf[cur][ni >> 1][2 * (ni & 1) + 1]);
        }
    });

    // D fragment: register c of tile (mi, ni) is (g + 8 (c >> 1), 2 t + (c & 1)), g = lane / 4, t = lane % 4.
    const int g = lane >> 2, t = lane & 3;
    // element e: acc[mi][ni][c] with mi = e / (4 NI), ni = e / 4 % NI, c = e % 4
    ra_gemm_mma_epilogue<T, 16 * NI>(
        C, ldc, M, N, alpha_k, beta, bias, act, [&](int e) { return acc[e / (4 * NI)][e / 4 % NI][e % 4]; },
        [&](int e, ra_i64& i, ra_i64& j) {
            const int mi = e / (4 * NI), ni = e / 4 % NI, c = e % 4;
            i = x.m0 + wm + 16 * mi + g + 8 * (c >> 1);
            j = x.n0 + wn + 8 * ni + 2 * t + (c & 1);
        });

#elif defined(RA_GEMM_MMA_AMD)
    if constexpr (BN != 128) {
        ra_gemm_mma_portable(x, C, ldc, alpha_k, beta, bias, act);  // never launched here (see the top)
    } else {
        // 4 waves: 2 along m x 2 along n, 64 x 64 each = 2 x 2 tiles of 32 x 32.
        const int lane = (int)threadIdx.x % RA_WARP_SIZE;
        const int warp = (int)threadIdx.x / RA_WARP_SIZE;
        const int wm = (warp % 2) * 64, wn = (warp / 2) * 64;
        const int li = lane & 31, lk = 4 * (lane >> 5);
        ra_f32x16 acc[2][2];
#pragma unroll
        for (int a = 0; a < 2; ++a)
#pragma unroll
            for (int b = 0; b < 2; ++b)
#pragma unroll
                for (int c = 0; c < 16; ++c) acc[a][b][c] = 0.0f;

        ra_gemm_mma_k_loop(x, [&](const ra_u16* sa, const ra_u16* sb) {
#pragma unroll
            for (int kk = 0; kk < BK; kk += 8) {
                ra_u64 af[2], bf[2];
#pragma unroll
                for (int y = 0; y < 2; ++y) {
                    // 4 consecutive k of one row (k-major: one 8-byte read inside a chunk)
                    if (A_KMAJOR) {
                        af[y] = *(const ra_u64*)(sa + GA::offset(wm + 32 * y + li, kk + lk));
                    } else {
                        ra_u64 v = 0;
#pragma unroll
                        for (int e = 0; e < 4; ++e)
                            v |= (ra_u64)sa[GA::offset(wm + 32 * y + li, kk + lk + e)] << (16 * e);
                        af[y] = v;
                    }
                    if (B_KMAJOR) {
                        bf[y] = *(const ra_u64*)(sb + GB::offset(wn + 32 * y + li, kk + lk));
                    } else {
                        ra_u64 v = 0;
#pragma unroll
                        for (int e = 0; e < 4; ++e)
                            v |= (ra_u64)sb[GB::offset(wn + 32 * y + li, kk + lk + e)] << (16 * e);
                        bf[y] = v;
                    }
                }
#pragma unroll
                for (int mi = 0; mi < 2; ++mi)
#pragma unroll
                    for (int ni = 0; ni < 2; ++ni)
                        acc[mi][ni] = ra_mfma_32x32x8<T>::run(af[mi], bf[ni], acc[mi][ni]);
            }
        });

        // element e: acc[mi][ni][c] with mi = e / 32, ni = e / 16 % 2, c = e % 16
        ra_gemm_mma_epilogue<T, 64>(
            C, ldc, M, N, alpha_k, beta, bias, act, [&](int e) { return acc[e / 32][e / 16 % 2][e % 16]; },
            [&](int e, ra_i64& i, ra_i64& j) {
                const int mi = e / 32, ni = e / 16 % 2, c = e % 16;
                i = x.m0 + wm + 32 * mi + 8 * (c >> 2) + lk + (c & 3);
                j = x.n0 + wn + 32 * ni + li;
            });
    }

#else
    ra_gemm_mma_portable(x, C, ldc, alpha_k, beta, bias, act);
#endif
}
