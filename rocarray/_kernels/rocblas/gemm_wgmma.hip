// rocBLAS level 3: gemm for 16-bit inputs (float16, bfloat16) with float32 accumulation, and
// float32 gemm from three TF32 products, on the sm_90a warpgroup matrix instructions (wgmma) fed
// by the tensor memory accelerator (TMA):
//
//   C := act(alpha * op(A) * op(B) + beta * C + bias),   column-major, 64-bit offsets,
//
// the semantics of ra_rocblas_gemm_mma (gemm_mma.hip). The Python layer
// (rocarray/rocblas/_gemm/half.py) launches it only on compute capability 9.0, with k >= 1 and
// A and B in 16-byte columns (addresses 16-byte aligned, lda, ldb and batch strides multiples of
// 8), and passes A and B as TMA tensor maps (CUtensorMap, built by the driver's
// cuTensorMapEncodeTiled in rocarray/rocblas/_gemm/tensor_maps.py): 3-D (contiguous dimension, leading
// dimension, batch), 128-byte swizzle, boxes of 64 x 64 (mn-major) or 64 x rows (k-major);
// elements outside the matrix arrive as zeros.
//
// float32 (T = float, both operands k-major): ra_rocblas_gemm_wg_split first writes op(A) and
// op(B) as two pieces each, X = hi + lo with hi the TF32 truncation of X (its low 13 mantissa bits
// cleared) and lo = X - hi (exact in float32, |lo| < 2^-10 |X|, at most 13 significant bits of
// which TF32 keeps 11), k-major, piece p of batch entry b at batch index 2 b + p of the tensor
// map. The kernel then sums A_lo B_hi + A_hi B_lo + A_hi B_hi in float32 (the "3xTF32" scheme:
// the dropped A_lo B_lo and the low pieces' TF32 rounding are at most 3 * 2^-20 of |a b| per
// product, of either sign; summed over k they stay under float32 gemm's own accumulation error),
// at the TF32 matrix rate.
//
// ra_rocblas_gemm_wgmma<T, A_KMAJOR, B_KMAJOR, BN, BM = 128>:
//  * Persistent blocks (grid <= multiprocessors) walk the BM x BN tiles of C (BN = 64, 128, 256;
//    BM = 128, or 64 with BN = 64 for skinny products: one 64 x 64 tile per multiprocessor and
//    no split of k, where 128-row tiles would need a second launch to add k splits) of every
//    batch entry, tile blockIdx.x, + gridDim.x, ...; within one entry the tiles go in groups of
//    RA_GEMM_WG_GROUP tile rows, m fastest, so the blocks working at one time share their A and
//    B panels in L2.
//  * Warp specialization: warps 0 .. BM / 16 - 1 are BM / 64 consumer warpgroups (warpgroup g
//    computes rows 64 g .. 64 g + 63 of the tile with wgmma.mma_async m64nBNk16, BN / 2 float32
//    accumulators per thread, 4 instructions per k tile of 64; float32: BN = 128, m64n128k8, 12
//    instructions per k tile of 32, three per 8-deep step); the last warp is the producer: its
//    first lane issues the TMA copies of each k tile into a ring of `stages` shared-memory slots,
//    running ahead across tile boundaries (so the next tile's operands load during an epilogue).
//  * Each slot has two mbarriers: `full` (the producer's arrive.expect_tx of the slot's bytes;
//    TMA completes the transaction) and `empty` (one arrive per consumer warp once the wgmma
//    group that read the slot has completed). Consumers keep one wgmma group in flight: the slot
//    of k tile i - 1 is released after issuing tile i and waiting for group i - 1.
//  * Operand tiles are the 128-byte swizzled canonical layouts of the wgmma shared-memory
//    descriptors (PTX ISA, "Matrix Descriptor Format" and "Shared Memory Matrix Layout" of the
//    asynchronous warpgroup-level matrix instructions), which TMA's 128-byte swizzle writes:
//    rows of 128 bytes whose 16-byte chunk c sits at chunk c ^ (row % 8), 1024-byte atoms of
//    8 rows, every slot on 1024 bytes.
//      k-major operand (op(X) has k contiguous): row = m (or n), 64 k per row (32 for float32);
//        atoms 1024 bytes apart (stride byte offset); a k step of 16 (8 for float32) advances the
//        start address by 32 bytes. A float32 slot holds A_hi, A_lo, B_hi, B_lo in that order.
//      mn-major operand: 64-wide mn blocks of 64 rows (k) x 128 bytes, 8 KiB apart (leading byte
//        offset); 8-k atoms 1024 bytes apart (stride byte offset); a k step of 16 advances 2 KiB;
//        the instruction's transpose flag is set for it.
//  * Accumulator fragment of m64nNk16 (PTX ISA, "Register Fragments" of wgmma .m64nNk16, f32 D):
//    register 4 j + c of warp w (in the warpgroup), lane l holds
//    (row 16 w + l / 4 + 8 (c / 2), column 8 j + 2 (l % 4) + c % 2).
//  * float32 (the kernel's `promote` argument): see PROMOTE in the consumer loop; 16-bit data
//    passes 0 and keeps the whole sum in the matrix units, as cuBLAS's 16-bit gemm does.
//  * Epilogue: the BN / 2 sums of a thread go straight to C when there is no activation; with
//    one, the activation of a group of sums is applied between their reads and their stores. An
//    activation switch in each element's code made the kernel 38 000 instructions long and its
//    per-tile walk through them, missing the instruction cache, took half the kernel's time.
// Targets without sm_90a's wgmma and TMA (AMD, other NVIDIA architectures) compile an empty
// body: the Python layer never launches the kernel there. The wgmma instructions and descriptor
// are the pasted header ra_wgmma.cuh's (shared with miopen's warpgroup convolution).

// Rows of a block tile of C: 128 (two consumer warpgroups), or 64 (one) where the 128-row tiles
// would leave half the device idle or need k split (see ra_rocblas_gemm_wgmma).
#define RA_GEMM_WG_BM 128
// Bytes of one swizzled operand row: the k of a slot is 128 / sizeof(T) (64 for 16-bit, 32 for
// float32).
#define RA_GEMM_WG_ROW_BYTES 128
#define RA_GEMM_WG_GROUP 16
// Consumer threads of a BM-row tile (one warpgroup of 4 warps per 64 rows); the block adds one
// producer warp.
#define RA_GEMM_WG_CONSUMERS(BM) ((BM) / 16 * RA_WARP_SIZE)
#define RA_GEMM_WG_THREADS(BM) (RA_GEMM_WG_CONSUMERS(BM) + RA_WARP_SIZE)
// The float32 kernel that splits inside (ra_rocblas_gemm_wgmma_x3): two warpgroups, no producer.
#define RA_GEMM_WG_X3_THREADS (8 * RA_WARP_SIZE)
// Leading and stride byte offsets of an mn-major operand (see the top).
#define RA_GEMM_WG_MN_LBO 8192
#define RA_GEMM_WG_MN_SBO 1024

#if defined(RA_WGMMA)
// ---- helpers of the three-TF32 kernel (ra_rocblas_gemm_wgmma_x3) ----
// Named barrier 1 over the block's threads: whether `p` holds in any of them.
RA_DEVICE bool ra_gemm_x3_any(bool p) {
    unsigned r;
    asm volatile("{\n.reg .pred p, q;\nsetp.ne.u32 p, %1, 0;\nbar.red.or.pred q, 1, %2, p;\nselp.u32 %0, 1, 0, q;\n}\n"
                 : "=r"(r)
                 : "r"((unsigned)p), "n"(RA_GEMM_WG_X3_THREADS)
                 : "memory");
    return r != 0;
}
RA_DEVICE void ra_gemm_x3_sync() { asm volatile("bar.sync 1, %0;\n" ::"n"(RA_GEMM_WG_X3_THREADS) : "memory"); }
// Orders this thread's generic shared-memory accesses before later ones of the async proxy
// (the matrix instructions' reads, TMA's writes).
RA_DEVICE void ra_gemm_x3_fence_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// One operand tile (R rows of m or n, one 128-byte row of k) in its swizzled layout.
template <bool KMAJOR, int R> struct ra_gemm_wg_operand {
    static constexpr unsigned BYTES = (unsigned)R * RA_GEMM_WG_ROW_BYTES;
    // Copies the tile of op(X) at (mn0, k0) of batch index c2 into the slot at shared address
    // `slot`: one box of one row of k x R rows (k-major), or R / 64 boxes of 64 mn x 64 k
    // (mn-major, 16-bit only), of which those wholly past the operand's `extent` rows (m or n)
    // are skipped: their part of the slot keeps stale data, which reaches only rows (columns) of
    // the block's sums that are not stored. TMA's zero fill of such a box is not free.
    RA_DEVICE static void load(unsigned slot, const ra_tensor_map* map, int mn0, int k0, int c2,
                               unsigned bar, ra_i64 extent) {
        if (KMAJOR) {
            ra_tma_load_3d(slot, map, k0, mn0, c2, bar);
        } else {
            const int copied = boxes(mn0, extent);
#pragma unroll
            for (int h = 0; h < R / 64; ++h)
                if (h < copied) ra_tma_load_3d(slot + 8192u * (unsigned)h, map, mn0 + 64 * h, k0, c2, bar);
        }
    }
    // The bytes `load` copies.
    RA_DEVICE static unsigned loaded_bytes(int mn0, ra_i64 extent) {
        return KMAJOR ? BYTES : 8192u * (unsigned)boxes(mn0, extent);
    }
    // The mn-major boxes `load` copies: those of the R / 64 that start below `extent` (a prefix;
    // mn0 < extent, so at least one).
    RA_DEVICE static int boxes(int mn0, ra_i64 extent) {
        const ra_i64 rows = extent - mn0;
        return rows >= R ? R / 64 : (int)((rows + 63) / 64);
    }
    // Descriptor of the 32-byte k step s (0..3) for rows mn_first .. (a multiple of 64).
    RA_DEVICE static ra_u64 desc(unsigned slot, int mn_first, int s) {
        if (KMAJOR) return ra_gemm_wg_desc(slot + (unsigned)mn_first * 128u + 32u * (unsigned)s, 16u, 1024u);
        return ra_gemm_wg_desc(slot + (unsigned)(mn_first / 64) * 8192u + 2048u * (unsigned)s, RA_GEMM_WG_MN_LBO,
                               RA_GEMM_WG_MN_SBO);
    }
};

// The matrix instructions of one 32-byte k step s of a slot (A tiles from shared address a, B
// tiles from b) for warpgroup g, adding to d (the first instruction starts d afresh when
// `accumulate` is 0: float32 only). PIECES: operand tiles per operand in a slot; PROMOTE: the
// products of a few slots are summed by the matrix units alone and then added to the float32
// accumulators by the threads (see the kernel's `promote`).
template <typename T, int BN, bool A_KMAJOR, bool B_KMAJOR, int BM = RA_GEMM_WG_BM> struct ra_gemm_wg_step {
    static constexpr int PIECES = 1;
    static constexpr bool PROMOTE = false;
    typedef ra_gemm_wg_operand<A_KMAJOR, BM> OA;
    typedef ra_gemm_wg_operand<B_KMAJOR, BN> OB;
    static RA_DEVICE void run(float (&d)[BN / 2], unsigned a, unsigned b, int g, int s, int) {
        ra_wgmma_m64k16<T, BN>::template run<A_KMAJOR ? 0 : 1, B_KMAJOR ? 0 : 1>(d, OA::desc(a, 64 * g, s),
                                                                                OB::desc(b, 0, s));
    }
};
// float32 from TF32 pieces (A_hi, A_lo at a; B_hi, B_lo at b), 128-wide tiles: the two small
// cross terms first, then the main one.
template <> struct ra_gemm_wg_step<float, 128, true, true, RA_GEMM_WG_BM> {
    static constexpr int PIECES = 2;
    static constexpr bool PROMOTE = true;
    typedef ra_gemm_wg_operand<true, RA_GEMM_WG_BM> OA;
    typedef ra_gemm_wg_operand<true, 128> OB;
    static RA_DEVICE void run(float (&d)[64], unsigned a, unsigned b, int g, int s, int accumulate) {
        const ra_u64 a_hi = OA::desc(a, 64 * g, s), a_lo = OA::desc(a + OA::BYTES, 64 * g, s);
        const ra_u64 b_hi = OB::desc(b, 0, s), b_lo = OB::desc(b + OB::BYTES, 0, s);
        ra_wgmma_m64n128k8_tf32(d, a_lo, b_hi, accumulate);
        ra_wgmma_m64n128k8_tf32(d, a_hi, b_lo, 1);
        ra_wgmma_m64n128k8_tf32(d, a_hi, b_hi, 1);
    }
};

// Work item t (0 .. tiles_m * tiles_n * splits * batch - 1) -> (batch entry, k split, m0, n0).
struct ra_gemm_wg_tiles {
    ra_i64 tiles_m, tiles_n, per_entry, splits;
    RA_DEVICE void locate(ra_i64 t, ra_i64& b, ra_i64& split, ra_i64& m0, ra_i64& n0, int BM, int BN) const {
        b = t / (per_entry * splits);
        const ra_i64 in_batch = t - b * per_entry * splits;
        split = in_batch / per_entry;
        const ra_i64 in_entry = in_batch - split * per_entry;
        const ra_i64 per_group = (ra_i64)RA_GEMM_WG_GROUP * tiles_n;
        const ra_i64 first = in_entry / per_group * RA_GEMM_WG_GROUP;
        const ra_i64 rows = tiles_m - first < RA_GEMM_WG_GROUP ? tiles_m - first : (ra_i64)RA_GEMM_WG_GROUP;
        const ra_i64 in_group = in_entry % per_group;
        m0 = (first + in_group % rows) * BM;
        n0 = (in_group / rows) * BN;
    }
};

// The tile's sums (warpgroup g, its warp w, lane; accumulator fragment as at the top) into C
// through the epilogue, or, when k is split, into this split's M x N float32 slice of `partial`.
template <typename T, int BN>
RA_DEVICE void ra_gemm_wg_store_tile(float (&d)[BN / 2], ra_i64 b, ra_i64 split, ra_i64 m0, ra_i64 n0, int g, int w,
                                     int lane, ra_i64 M, ra_i64 N, ra_i64 K, ra_i64 splits, float* __restrict__ partial,
                                     float alpha, float beta, T* __restrict__ C, ra_i64 ldc, ra_i64 stride_c,
                                     const T* __restrict__ bias, int act) {
    const ra_i64 row0 = m0 + 64 * g + 16 * w + lane / 4;
    const ra_i64 col0 = n0 + 2 * (lane % 4);
    if (splits > 1) {
        // split k: this split's float32 sum into its M x N slice; ra_rocblas_gemm_wg_finish
        // adds the slices and applies alpha, beta
        float* P = partial + (b * splits + split) * M * N;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j)
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                const ra_i64 i = row0 + 8 * (c >> 1), jj = col0 + 8 * j + (c & 1);
                if (i < M && jj < N) P[i + jj * M] = d[4 * j + c];
            }
        return;
    }
    T* Cb = C + b * stride_c;
    const float alpha_k = K > 0 ? alpha : 0.0f;
    // Element 4 j + c of d is C(row0 + 8 (c / 2), col0 + 8 j + c % 2). No activation: one
    // straight pass (a compile-time 0 for ra_gemm_epilogue_store). With one, by groups of 4
    // j (16 elements: larger groups spill): the values, the activation of the group, the
    // stores (ra_math.cuh says why the activation stays out of each element's code).
    if (act == 0) {
#pragma unroll
        for (int j = 0; j < BN / 8; ++j)
#pragma unroll
            for (int c = 0; c < 4; ++c)
                ra_gemm_epilogue_store<T>(Cb, ldc, M, N, row0 + 8 * (c >> 1), col0 + 8 * j + (c & 1), d[4 * j + c],
                                          alpha_k, beta, bias, 0);
    } else {
        constexpr int GROUP = 4;
#pragma unroll
        for (int j0 = 0; j0 < BN / 8; j0 += GROUP) {
#pragma unroll
            for (int j = j0; j < j0 + GROUP; ++j)
#pragma unroll
                for (int c = 0; c < 4; ++c)
                    d[4 * j + c] = ra_gemm_epilogue_value<T>(Cb, ldc, M, N, row0 + 8 * (c >> 1),
                                                             col0 + 8 * j + (c & 1), d[4 * j + c], alpha_k, beta, bias);
            ra_activation_all<4 * GROUP>(d + 4 * j0, act);
#pragma unroll
            for (int j = j0; j < j0 + GROUP; ++j)
#pragma unroll
                for (int c = 0; c < 4; ++c)
                    ra_gemm_epilogue_put<T>(Cb, ldc, M, N, row0 + 8 * (c >> 1), col0 + 8 * j + (c & 1),
                                            d[4 * j + c]);
        }
    }
}
#endif  // RA_WGMMA

template <typename T, bool A_KMAJOR, bool B_KMAJOR, int BN, int BM = RA_GEMM_WG_BM>
__global__ void __launch_bounds__(RA_GEMM_WG_THREADS(BM), 1)
ra_rocblas_gemm_wgmma(const RA_GRID_CONSTANT ra_tensor_map tma_a,
                      const RA_GRID_CONSTANT ra_tensor_map tma_b, ra_i64 M, ra_i64 N, ra_i64 K,
                      ra_i64 batch, float alpha, float beta, T* __restrict__ C, ra_i64 ldc, ra_i64 stride_c,
                      int stages, ra_i64 splits, ra_i64 kt_per_split, float* __restrict__ partial,
                      const T* __restrict__ bias, int act, int promote) {
    ra_dependent_grid_enter();
    static_assert(BN == 64 || BN == 128 || BN == 256, "block tile width");
    static_assert(BM == 64 || BM == 128, "block tile height");
#if defined(RA_WGMMA)
    constexpr int BK = RA_GEMM_WG_ROW_BYTES / (int)sizeof(T);  // k per slot
    constexpr int WG = 4 * RA_WARP_SIZE;  // threads of one warpgroup
    constexpr int R = BN / 2;             // accumulators per thread
    constexpr int CONSUMERS = RA_GEMM_WG_CONSUMERS(BM);
    typedef ra_gemm_wg_step<T, BN, A_KMAJOR, B_KMAJOR, BM> STEP;
    typedef typename STEP::OA OA;
    typedef typename STEP::OB OB;
    constexpr int P = STEP::PIECES;
    constexpr unsigned A_BYTES = P * OA::BYTES;  // the slot's A tiles, then its B tiles
    constexpr unsigned SLOT = A_BYTES + P * OB::BYTES;
    const int S = stages;

    // Shared memory: 2 S mbarriers (full, then empty), then the ring from the next 1024 bytes.
    extern __shared__ ra_u64 ra_gemm_wg_smem[];
    const unsigned bars = ra_shared_address(ra_gemm_wg_smem);
    const unsigned ring = (bars + 16u * (unsigned)S + 1023u) & ~1023u;
    if (threadIdx.x == 0) {
        for (int s = 0; s < S; ++s) {
            ra_mbar_init(bars + 8u * (unsigned)s, 1u);                           // full
            ra_mbar_init(bars + 8u * (unsigned)(S + s), CONSUMERS / RA_WARP_SIZE);  // empty
        }
        ra_mbar_init_fence();
    }
    __syncthreads();

    ra_gemm_wg_tiles tiles;
    tiles.tiles_m = (M + BM - 1) / BM;
    tiles.tiles_n = (N + BN - 1) / BN;
    tiles.per_entry = tiles.tiles_m * tiles.tiles_n;
    tiles.splits = splits;
    const ra_i64 total = tiles.per_entry * splits * batch;
    const ra_i64 ktiles = (K + BK - 1) / BK;

    if (threadIdx.x >= CONSUMERS) {
        // producer: one lane issues every copy
        if (threadIdx.x != CONSUMERS) return;
        int slot = 0;
        unsigned round = 0;
        for (ra_i64 t = blockIdx.x; t < total; t += gridDim.x) {
            ra_i64 b, split, m0, n0;
            tiles.locate(t, b, split, m0, n0, BM, BN);
            const ra_i64 k_end = (split + 1) * kt_per_split < ktiles ? (split + 1) * kt_per_split : ktiles;
            for (ra_i64 kt = split * kt_per_split; kt < k_end; ++kt) {
                const unsigned full = bars + 8u * (unsigned)slot;
                if (round > 0) ra_mbar_wait(bars + 8u * (unsigned)(S + slot), (round - 1u) & 1u);
                ra_mbar_expect_tx(full, P * (OA::loaded_bytes((int)m0, M) + OB::loaded_bytes((int)n0, N)));
                const unsigned dst = ring + (unsigned)slot * SLOT;
#pragma unroll
                for (int p = 0; p < P; ++p) {
                    OA::load(dst + p * OA::BYTES, &tma_a, (int)m0, (int)(kt * BK), (int)(P * b + p), full, M);
                    OB::load(dst + A_BYTES + p * OB::BYTES, &tma_b, (int)n0, (int)(kt * BK), (int)(P * b + p), full,
                             N);
                }
                if (++slot == S) { slot = 0; ++round; }
            }
        }
        return;
    }

    // consumers
    const int g = (int)threadIdx.x / WG;  // warpgroup: rows 64 g .. 64 g + 63 of the tile
    const int t_in = (int)threadIdx.x % WG, w = t_in / RA_WARP_SIZE, lane = t_in % RA_WARP_SIZE;
    const bool releaser = lane == 0;      // one arrive per consumer warp on `empty`
    // PROMOTE (float32): the matrix units sum products with truncation, a bias toward zero that
    // grows with the number of instructions adding into one accumulator (far above float32
    // multiply-adds' error over a long k). So the instructions of `promote` slots at a time write a sum of their own,
    // `part`, which the threads add to d with rounding to nearest once its groups are done.
    float d[R], part[R];
    int slot = 0, prev = 0;
    unsigned round = 0;
    for (ra_i64 t = blockIdx.x; t < total; t += gridDim.x) {
        ra_i64 b, split, m0, n0;
        tiles.locate(t, b, split, m0, n0, BM, BN);
        const ra_i64 k_begin = split * kt_per_split;
        const ra_i64 k_end = k_begin + kt_per_split < ktiles ? k_begin + kt_per_split : ktiles;
#pragma unroll
        for (int i = 0; i < R; ++i) d[i] = 0.0f;
        ra_gemm_wg_fence_operands(d);
        bool held = false;  // the previous slot still waits for its release
        int chunk = 0;      // slots summed in `part` so far
        for (ra_i64 kt = k_begin; kt < k_end; ++kt) {
            ra_mbar_wait(bars + 8u * (unsigned)slot, round & 1u);
            const unsigned src = ring + (unsigned)slot * SLOT;
            ra_gemm_wg_fence();
#pragma unroll
            for (int s = 0; s < RA_GEMM_WG_ROW_BYTES / 32; ++s) {
                if (STEP::PROMOTE) STEP::run(part, src, src + A_BYTES, g, s, s > 0 || chunk > 0);
                else STEP::run(d, src, src + A_BYTES, g, s, 1);
            }
            ra_gemm_wg_commit();
            if (STEP::PROMOTE && (++chunk == promote || kt + 1 == k_end)) {
                ra_gemm_wg_wait<0>();  // part is complete: add it, free this slot and the previous
                ra_gemm_wg_fence_operands(part);
#pragma unroll
                for (int i = 0; i < R; ++i) d[i] += part[i];
                chunk = 0;
                if (releaser) {
                    if (held) ra_mbar_arrive(bars + 8u * (unsigned)(S + prev));
                    ra_mbar_arrive(bars + 8u * (unsigned)(S + slot));
                }
                held = false;
            } else {
                if (held) {
                    ra_gemm_wg_wait<1>();  // the group of the previous k tile is done: free its slot
                    if (STEP::PROMOTE) ra_gemm_wg_fence_operands(part);
                    else ra_gemm_wg_fence_operands(d);
                    if (releaser) ra_mbar_arrive(bars + 8u * (unsigned)(S + prev));
                }
                held = true;
            }
            prev = slot;
            if (++slot == S) { slot = 0; ++round; }
        }
        ra_gemm_wg_wait<0>();
        ra_gemm_wg_fence_operands(d);
        if (held && releaser) ra_mbar_arrive(bars + 8u * (unsigned)(S + prev));

        ra_gemm_wg_store_tile<T, BN>(d, b, split, m0, n0, g, w, lane, M, N, K, splits, partial, alpha, beta, C, ldc,
                                     stride_c, bias, act);
    }
#endif
}

// Split-k finish: C(i, j) := act(alpha * sum_s partial[b][s](i, j) + beta * C(i, j) + bias[i])
// for every element of every batch entry; the slices are M x N, column-major, ld = M. The parts
// are added in order, s = 0, 1, ...; a thread sums four consecutive elements of one batch entry
// with 16-byte loads, several parts' loads in flight at once (the sum is short, so the loads'
// latency is what it costs), when M N is a multiple of 4 (every slice then starts on 16 bytes),
// else one element at a time.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(256)
ra_rocblas_gemm_wg_finish(ra_i64 M, ra_i64 N, ra_i64 batch, ra_i64 splits, const float* __restrict__ partial,
                          float alpha, float beta, T* __restrict__ C, ra_i64 ldc, ra_i64 stride_c,
                          const T* __restrict__ bias, int act) {
    const ra_i64 mn = M * N;
    if (mn % 4 != 0) {
        for (ra_i64 e = ra_global_thread_id(); e < mn * batch; e += ra_grid_threads()) {
            const ra_i64 b = e / mn, ij = e - b * mn, j = ij / M, i = ij - j * M;
            const float* p = partial + b * splits * mn + ij;
            float sum = 0.0f;
#pragma unroll 8
            for (ra_i64 s = 0; s < splits; ++s) sum += p[s * mn];
            ra_gemm_epilogue_store<T>(C + b * stride_c, ldc, M, N, i, j, sum, alpha, beta, bias, act);
        }
        return;
    }
    const ra_i64 quads = mn / 4;
    for (ra_i64 e = ra_global_thread_id(); e < quads * batch; e += ra_grid_threads()) {
        const ra_i64 b = e / quads, ij = 4 * (e - b * quads);
        const float4* p = reinterpret_cast<const float4*>(partial + b * splits * mn + ij);
        float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll 8
        for (ra_i64 s = 0; s < splits; ++s) {
            const float4 v = p[s * quads];
            sum[0] += v.x, sum[1] += v.y, sum[2] += v.z, sum[3] += v.w;
        }
        ra_i64 j = ij / M, i = ij - j * M;
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            ra_gemm_epilogue_store<T>(C + b * stride_c, ldc, M, N, i, j, sum[q], alpha, beta, bias, act);
            if (++i == M) i = 0, ++j;
        }
    }
}

// Copy of the rows x cols column-major matrices of 16-bit elements (leading dimension ld_src,
// batch stride stride_src) into dst with leading dimension ld_dst and batch stride stride_dst:
// the operands whose columns do not start on 16 bytes get a padded copy that TMA can read.
extern "C" __global__ void RA_LAUNCH_BOUNDS(256)
ra_rocblas_gemm_wg_pack(ra_i64 rows, ra_i64 cols, ra_i64 batch, const ra_u16* __restrict__ src, ra_i64 ld_src,
                        ra_i64 stride_src, ra_u16* __restrict__ dst, ra_i64 ld_dst, ra_i64 stride_dst) {
    const ra_i64 per = rows * cols;
    for (ra_i64 e = ra_global_thread_id(); e < per * batch; e += ra_grid_threads()) {
        const ra_i64 b = e / per, rc = e - b * per, c = rc / rows, r = rc - c * rows;
        dst[b * stride_dst + r + c * ld_dst] = src[b * stride_src + r + c * ld_src];
    }
}

// One float32 element as its TF32 pieces for the three-product gemm: hi = x with the low 13
// mantissa bits cleared (truncation: |hi| <= |x|, never rounds up to infinity), lo = x - hi
// (exact, same sign as x); +-inf gives hi = lo = x, NaN the quiet NaN in both (a NaN payload in
// the low bits alone would read as infinity in TF32). An infinity in the other operand would
// meet a zero lo in a cross term (inf * 0 = NaN where float32 gives +-inf), so with `guard` a
// finite nonzero x whose lo is zero gets lo = +-2^-126 instead (the smallest normal: below half
// an ulp of any |x| >= 2^-102, so it changes no product that float32 could tell apart).
RA_DEVICE void ra_gemm_tf32_pieces(float x, float& hi, float& lo, bool guard) {
    const unsigned u = __float_as_uint(x);
    if ((u & 0x7f800000u) != 0x7f800000u) {
        hi = __uint_as_float(u & 0xffffe000u);
        lo = x - hi;
        if (guard && lo == 0.0f && x != 0.0f) lo = __uint_as_float((u & 0x80000000u) | 0x00800000u);
    } else if ((u & 0x007fffffu) == 0u) {
        hi = lo = x;
    } else {
        hi = lo = __uint_as_float(0x7fc00000u);
    }
}

RA_DEVICE bool ra_gemm_is_inf(float x) { return (__float_as_uint(x) & 0x7fffffffu) == 0x7f800000u; }

#define RA_GEMM_WG_SPLIT_TILE 32
#define RA_GEMM_WG_SPLIT_TILE_K 64
// Bit 0 of ra_rocblas_gemm_wg_split's `mode`: k is the source's contiguous dimension (s_c = 1);
// bit 1: besides, every source row starts on 16 bytes (16-byte loads).
#define RA_GEMM_WG_SPLIT_K_CONTIGUOUS 1
#define RA_GEMM_WG_SPLIT_ROWS_ALIGNED 2

// Four consecutive k of one row as TF32 pieces, stored as one 16-byte hi and one 16-byte lo
// (the row's pieces start on 16 bytes: ld is a multiple of 4, and c of 4).
RA_DEVICE bool ra_gemm_split_store4(const float (&x)[4], float* hi, float* lo, bool guarded) {
    float h[4], l[4];
    bool inf = false;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        ra_gemm_tf32_pieces(x[j], h[j], l[j], guarded);
        inf |= ra_gemm_is_inf(x[j]);
    }
    *reinterpret_cast<float4*>(hi) = make_float4(h[0], h[1], h[2], h[3]);
    *reinterpret_cast<float4*>(lo) = make_float4(l[0], l[1], l[2], l[3]);
    return inf;
}

// The TF32 pieces of op(X) (rows x k, element (r, c) at src + b * stride + r * s_r + c * s_c)
// for the float32 path: piece p of batch entry b goes to dst + (2 b + p) * rows * ld, k-major
// (element (r, c) at r * ld + c; the row's padding columns k .. ld - 1 get zeros where a 16-byte
// store covers them). The blocks walk tiles of 32 rows x 64 k grid-stride; every thread stores
// whole 16-byte groups of four k of one row, hi and lo:
//  * k contiguous in the source (mode bit 0): each thread reads its groups straight from memory,
//    16 bytes at a time where the rows start on 16 bytes (mode bit 1);
//  * otherwise the tile goes through shared memory: each warp reads columns of 32 rows (the
//    contiguous direction), then each thread takes four k of one row (conflict-free: the row
//    pitch is 33 words).
// *guard != 0 (the other operand holds an infinity) guards zero low pieces (ra_gemm_tf32_pieces);
// any infinity here sets *seen_inf. Tile counts fit 32 bits: the host caps the pieces at 2^32
// bytes.
extern "C" __global__ void RA_LAUNCH_BOUNDS(256)
ra_rocblas_gemm_wg_split(ra_i64 rows, ra_i64 k, ra_i64 batch, const float* __restrict__ src, ra_i64 s_r,
                         ra_i64 s_c, ra_i64 stride, int mode, float* __restrict__ dst, ra_i64 ld,
                         const int* __restrict__ guard, int* __restrict__ seen_inf) {
    constexpr int TR = RA_GEMM_WG_SPLIT_TILE, TK = RA_GEMM_WG_SPLIT_TILE_K;
    static_assert(TR == 32 && TK == 64, "the thread mappings below are for 256 threads on 32 x 64 tiles");
    __shared__ float tile[TK][TR + 1];  // [c][r]
    const int t = (int)threadIdx.x, lane = t % 32, warp = t / 32;
    const unsigned tiles_c = (unsigned)((k + TK - 1) / TK), tiles_r = (unsigned)((rows + TR - 1) / TR);
    const unsigned per = tiles_c * tiles_r, total = per * (unsigned)batch;
    const ra_i64 plane = rows * ld;
    const bool guarded = *guard != 0, k_contiguous = (mode & RA_GEMM_WG_SPLIT_K_CONTIGUOUS) != 0;
    const bool vector = (mode & RA_GEMM_WG_SPLIT_ROWS_ALIGNED) != 0;
    bool inf = false;
    for (unsigned tl = blockIdx.x; tl < total; tl += gridDim.x) {
        const unsigned b = tl / per, in_b = tl - b * per, tr = in_b / tiles_c, tc = in_b - tr * tiles_c;
        const ra_i64 r0 = (ra_i64)tr * TR, c0 = (ra_i64)tc * TK;
        const float* s = src + (ra_i64)b * stride;
        float* hi = dst + 2 * (ra_i64)b * plane;
        if (k_contiguous) {
            // thread: rows r0 + t / 16 and + 16, k c0 + 4 (t % 16) .. + 3
            const int c = 4 * (t % 16);
            const ra_i64 gc = c0 + c;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const ra_i64 gr = r0 + t / 16 + 16 * h;
                if (gr >= rows || gc >= k) continue;
                const float* row = s + gr * s_r + gc;
                float x[4];
                if (vector && gc + 4 <= k) {
                    const float4 v = *reinterpret_cast<const float4*>(row);
                    x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
                } else {
#pragma unroll
                    for (int j = 0; j < 4; ++j) x[j] = gc + j < k ? row[j] : 0.0f;
                }
                inf |= ra_gemm_split_store4(x, hi + gr * ld + gc, hi + plane + gr * ld + gc, guarded);
            }
        } else {
            __syncthreads();  // the previous tile's reads of `tile` are done
            {
                // warp w reads k columns w, w + 8, ..., lane = row
                const ra_i64 gr = r0 + lane;
                const float* p = s + gr * s_r + (c0 + warp) * s_c;
#pragma unroll
                for (int i = 0; i < TK / 8; ++i) {
                    const int c = warp + 8 * i;
                    tile[c][lane] = gr < rows && c0 + c < k ? p[(ra_i64)(8 * i) * s_c] : 0.0f;
                }
            }
            __syncthreads();
            // thread: row r0 + t / 8, k c0 + 4 (t % 8) .. + 3 and 32 further
            const int r = t / 8;
            const ra_i64 gr = r0 + r;
            if (gr < rows) {
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int c = 4 * (t % 8) + 32 * h;
                    const ra_i64 gc = c0 + c;
                    if (gc >= k) continue;
                    float x[4];
#pragma unroll
                    for (int j = 0; j < 4; ++j) x[j] = tile[c + j][r];
                    inf |= ra_gemm_split_store4(x, hi + gr * ld + gc, hi + plane + gr * ld + gc, guarded);
                }
            }
        }
    }
    if (inf) *seen_inf = 1;
}

// The guard applied after the fact to pieces written without it (the operand split first, before
// the other one's infinities were known): nothing unless *guard != 0, then every zero low piece
// of a finite nonzero element becomes +-2^-126 (see ra_gemm_tf32_pieces). `count` pairs of
// planes of `plane` elements (hi, then lo).
extern "C" __global__ void RA_LAUNCH_BOUNDS(256)
ra_rocblas_gemm_wg_guard(float* __restrict__ pieces, ra_i64 plane, ra_i64 count, const int* __restrict__ guard) {
    if (*guard == 0) return;
    for (ra_i64 e = ra_global_thread_id(); e < plane * count; e += ra_grid_threads()) {
        const ra_i64 b = e / plane, i = e - b * plane;
        const float h = pieces[2 * b * plane + i];
        float* lo = pieces + (2 * b + 1) * plane + i;
        const unsigned u = __float_as_uint(h);
        if (*lo == 0.0f && h != 0.0f && (u & 0x7f800000u) != 0x7f800000u)
            *lo = __uint_as_float((u & 0x80000000u) | 0x00800000u);
    }
}

// ---- float32 from three TF32 products, split inside the kernel ----
// ra_rocblas_gemm_wgmma_x3<A_KMAJOR, B_KMAJOR, BM, BN, BLOCKED>: the float32 path without the
// split pass.
// TMA copies op(A) and op(B) themselves (float32, any transposes, 16-byte aligned columns) into a
// ring of `stages` raw slots; the block's two warpgroups split each k tile into TF32 pieces in
// shared memory and multiply those as ra_rocblas_gemm_wgmma<float, true, true, 128> does. Global
// traffic is then that of float32 gemm (the split pass reads each operand once and writes two
// pieces, which the pieces kernel reads back: three times the bytes). Shared memory: S
// mbarriers, then from the next 1024 bytes the S raw slots (op(A)'s BM x 32 tile, then op(B)'s
// BN x 32) and two pieces buffers (A_hi, A_lo, B_hi, B_lo, the layout of the pieces kernel's
// slots). Block tiles (BM x BN) and ring depths:
//    128 x 128: warpgroup g takes rows 64 g .. of the tile, all 128 columns (m64n128k8); 32 KiB
//      raw slots, 64 KiB pieces buffers, S = 3 fills 225 KiB.
//    64 x 128 and 128 x 64, for products with a short side (m or n at most 64, where the square
//      tile would multiply 64 rows or columns of nothing: half its matrix-unit work and half its
//      split): warpgroup g takes the 64 x 64 quarter g of the tile (the columns 64 g .. of a
//      64-row tile, the rows 64 g .. of a 64-column one; m64n64k8); 24 KiB raw slots, 48 KiB
//      pieces buffers, S = 5 fills 217 KiB.
//  * No producer warp: the thread that releases a raw slot (thread 0, once every thread has read
//    it) issues the copies of the k tile S further along the block's stream of k tiles into it.
//    So the block has 8 warps, two per scheduler, and 255 registers per thread: with a ninth
//    warp (a scheduler with three) it would have 168, and the split's values spilled.
//  * The k loop is software pipelined: the products of tile kt run on the matrix units while the
//    threads split tile kt + 1 into the other pieces buffer (its last readers, the products of
//    kt - 1, are complete in both warpgroups: each waits for them before the split's first
//    barrier).
//  * The guard against inf * 0 in the cross terms (ra_gemm_tf32_pieces) is decided per k tile:
//    a zero low piece of op(B)'s tile is guarded when op(A)'s tile holds an infinity, and the
//    other way round; the products in which the infinity meets that piece are all in the tile.
//    Without an infinity about nothing is guarded, so exact sums stay exact as on the split
//    pass's path. One reduction over the block tells whether the k tile holds any infinity or
//    NaN; only then do the threads take the special cases (taking them for every element would
//    cost hundreds of instructions a warp per k tile).
// Raw tile layouts (128-byte swizzle as TMA writes it, 16-byte chunk c of a 128-byte row r at
// chunk c ^ (r % 8)): k-major, one box of ROWS rows (m or n) x 32 k, the layout of a piece, so
// the split maps each float4 to the same offsets; mn-major, ROWS / 32 blocks of 32 k rows x 32
// mn, 4 KiB apart, which the split transposes (reads conflict-free: a quarter warp reads eight k
// rows of one chunk; writes of single floats conflict-free: a warp writes 32 k of one row of the
// piece). BLOCKED (the host sets it where each mn-major operand's m or n is a multiple of 32): an
// mn-major operand comes as one box of a 4-D tensor map (32 mn, k, mn / 32, batch:
// rocarray/rocblas/_gemm/tensor_maps.py), which lays the blocks out the same, instead of a box a
// block of a 3-D map (the faster of the two).

#if defined(RA_WGMMA)
// One raw operand tile of ROWS rows (64 or 128): its TMA copies, and the share of thread t
// (0 .. 255) of its split: ROWS / 32 groups of four floats, read by `read`, written as pieces by
// `write` (hi at `hi`, lo one tile further).
template <bool KMAJOR, int ROWS> struct ra_gemm_x3_raw {
    static constexpr unsigned BYTES = (unsigned)ROWS * RA_GEMM_WG_ROW_BYTES;
    static constexpr int PARTS = ROWS / 32;
    // BLOCKED: an mn-major operand's 4-D map (one box), else its 3-D map (a box a block).
    template <bool BLOCKED>
    RA_DEVICE static void load(unsigned slot, const ra_tensor_map* map, int mn0, int k0, int c2, unsigned bar) {
        if (KMAJOR) {
            ra_tma_load_3d(slot, map, k0, mn0, c2, bar);
        } else if (BLOCKED) {
            ra_tma_load_4d(slot, map, 0, k0, mn0 / 32, c2, bar);
        } else {
#pragma unroll
            for (int h = 0; h < PARTS; ++h) ra_tma_load_3d(slot + 4096u * (unsigned)h, map, mn0 + 32 * h, k0, c2, bar);
        }
    }
    // k-major: float4 number t + 256 i of the tile. mn-major: lane l reads k row l, chunk w (its
    // warp) of box i: mn 32 i + 4 w .. + 3.
    RA_DEVICE static void read(const char* raw, int t, float (&x)[PARTS][4]) {
#pragma unroll
        for (int i = 0; i < PARTS; ++i) {
            const int off = KMAJOR ? 16 * (t + 256 * i) : 4096 * i + 128 * (t % 32) + 16 * ((t / 32) ^ (t % 8));
            const float4 v = *reinterpret_cast<const float4*>(raw + off);
            x[i][0] = v.x, x[i][1] = v.y, x[i][2] = v.z, x[i][3] = v.w;
        }
    }
    // FULL: ra_gemm_tf32_pieces' rules for infinities, NaNs and the guard; otherwise (a tile
    // without either, the common case) hi = x with its low 13 mantissa bits cleared, lo = x - hi,
    // two instructions an element.
    template <bool FULL> RA_DEVICE static void write(char* hi, int t, const float (&x)[PARTS][4], bool guard) {
        char* lo = hi + BYTES;
        const int kk = t % 32, w = t / 32;
#pragma unroll
        for (int i = 0; i < PARTS; ++i) {
            float h[4], l[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                if (FULL) {
                    ra_gemm_tf32_pieces(x[i][j], h[j], l[j], guard);
                } else {
                    h[j] = __uint_as_float(__float_as_uint(x[i][j]) & 0xffffe000u);
                    l[j] = x[i][j] - h[j];
                }
            }
            if (KMAJOR) {
                const int off = 16 * (t + 256 * i);
                *reinterpret_cast<float4*>(hi + off) = make_float4(h[0], h[1], h[2], h[3]);
                *reinterpret_cast<float4*>(lo + off) = make_float4(l[0], l[1], l[2], l[3]);
            } else {
                // piece row mn = 32 i + 4 w + j: its swizzle (mn % 8 = 4 (w % 2) + j) does not
                // depend on i, so box i is 4 KiB further
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    const int off = 4096 * i + 128 * (4 * w + j) + 16 * ((kk / 4) ^ (4 * (w % 2) + j)) + 4 * (kk % 4);
                    *reinterpret_cast<float*>(hi + off) = h[j];
                    *reinterpret_cast<float*>(lo + off) = l[j];
                }
            }
        }
    }
};

// Whether any of x is an infinity or a NaN (x * 0 is NaN exactly for those: one instruction an
// element).
template <int P> RA_DEVICE bool ra_gemm_x3_has_nonfinite(const float (&x)[P][4]) {
    float acc = 0.0f;
#pragma unroll
    for (int i = 0; i < P; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc = __fmaf_rn(x[i][j], 0.0f, acc);
    return acc != acc;
}

template <int P> RA_DEVICE bool ra_gemm_x3_has_inf(const float (&x)[P][4]) {
    bool inf = false;
#pragma unroll
    for (int i = 0; i < P; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) inf |= ra_gemm_is_inf(x[i][j]);
    return inf;
}

// The products of one 8-deep k step s of a pieces buffer (A's pieces at shared address a, B's at
// b) for warpgroup g of a BM x BN tile: its 64 x WN part of the tile (see the kernel's comment),
// the two small cross terms first, then the main one. The first starts d afresh when
// `accumulate` is 0.
template <int BM, int BN> struct ra_gemm_x3_step {
    static constexpr int WN = BM == 128 ? BN : BN / 2;
    typedef ra_gemm_wg_operand<true, BM> OA;
    typedef ra_gemm_wg_operand<true, BN> OB;
    static RA_DEVICE void mma(float (&d)[64], ra_u64 a, ra_u64 b, int accumulate) {
        ra_wgmma_m64n128k8_tf32(d, a, b, accumulate);
    }
    static RA_DEVICE void mma(float (&d)[32], ra_u64 a, ra_u64 b, int accumulate) {
        ra_wgmma_m64n64k8_tf32(d, a, b, accumulate);
    }
    static RA_DEVICE void run(float (&d)[WN / 2], unsigned a, unsigned b, int g, int s, int accumulate) {
        const int a_row = BM == 128 ? 64 * g : 0, b_row = BM == 128 ? 0 : 64 * g;
        const ra_u64 a_hi = OA::desc(a, a_row, s), a_lo = OA::desc(a + OA::BYTES, a_row, s);
        const ra_u64 b_hi = OB::desc(b, b_row, s), b_lo = OB::desc(b + OB::BYTES, b_row, s);
        mma(d, a_lo, b_hi, accumulate);
        mma(d, a_hi, b_lo, 1);
        mma(d, a_hi, b_hi, 1);
    }
};

// The block's stream of k tiles (work item, k tile), in the order the threads split them; thread
// 0 walks it, S tiles ahead of the split, issuing each tile's copies into the raw slot the split
// has just read.
template <bool A_KMAJOR, bool B_KMAJOR, int BM, int BN, bool BLOCKED> struct ra_gemm_x3_feed {
    ra_i64 t, kt, k_end, b, m0, n0;
    RA_DEVICE void locate(const ra_gemm_wg_tiles& tiles, ra_i64 total, ra_i64 kt_per_split, ra_i64 ktiles) {
        if (t >= total) return;
        ra_i64 split;
        tiles.locate(t, b, split, m0, n0, BM, BN);
        kt = split * kt_per_split;
        k_end = kt + kt_per_split < ktiles ? kt + kt_per_split : ktiles;
    }
    // Copies the next k tile into the raw slot at `slot` (completing on `full`), if any is left.
    RA_DEVICE void issue(unsigned slot, unsigned full, const ra_tensor_map* tma_a,
                         const ra_tensor_map* tma_b, const ra_gemm_wg_tiles& tiles, ra_i64 total,
                         ra_i64 kt_per_split, ra_i64 ktiles) {
        if (t >= total) return;
        constexpr int BK = RA_GEMM_WG_ROW_BYTES / 4;
        typedef ra_gemm_x3_raw<A_KMAJOR, BM> RA;
        typedef ra_gemm_x3_raw<B_KMAJOR, BN> RB;
        ra_mbar_expect_tx(full, RA::BYTES + RB::BYTES);
        RA::template load<BLOCKED>(slot, tma_a, (int)m0, (int)(kt * BK), (int)b, full);
        RB::template load<BLOCKED>(slot + RA::BYTES, tma_b, (int)n0, (int)(kt * BK), (int)b, full);
        if (++kt == k_end) {
            t += gridDim.x;
            locate(tiles, total, kt_per_split, ktiles);
        }
    }
};
#endif  // RA_WGMMA

template <bool A_KMAJOR, bool B_KMAJOR, int BM, int BN, bool BLOCKED>
__global__ void __launch_bounds__(RA_GEMM_WG_X3_THREADS, 1)
ra_rocblas_gemm_wgmma_x3(const RA_GRID_CONSTANT ra_tensor_map tma_a,
                         const RA_GRID_CONSTANT ra_tensor_map tma_b, ra_i64 M, ra_i64 N, ra_i64 K,
                         ra_i64 batch, float alpha, float beta, float* __restrict__ C, ra_i64 ldc, ra_i64 stride_c,
                         int stages, ra_i64 splits, ra_i64 kt_per_split, float* __restrict__ partial,
                         const float* __restrict__ bias, int act, int promote) {
    ra_dependent_grid_enter();
#if defined(RA_WGMMA)
    static_assert((BM == 128 && (BN == 128 || BN == 64)) || (BM == 64 && BN == 128), "a tile of two warpgroups");
    constexpr int BK = RA_GEMM_WG_ROW_BYTES / 4, WG = 4 * RA_WARP_SIZE;
    typedef ra_gemm_x3_step<BM, BN> STEP;
    typedef ra_gemm_x3_raw<A_KMAJOR, BM> RAW_A;
    typedef ra_gemm_x3_raw<B_KMAJOR, BN> RAW_B;
    constexpr int R = STEP::WN / 2;  // sums of a thread
    constexpr unsigned A_BYTES = RAW_A::BYTES, RAW = A_BYTES + RAW_B::BYTES, PIECES = 2 * RAW;
    const int S = stages;

    // shared memory: S mbarriers (`full` of each raw slot), the raw ring, the pieces buffers
    extern __shared__ ra_u64 ra_gemm_wg_smem[];
    const unsigned bars = ra_shared_address(ra_gemm_wg_smem);
    const unsigned ring = (bars + 8u * (unsigned)S + 1023u) & ~1023u;
    const unsigned pieces = ring + (unsigned)S * RAW;
    char* const base = reinterpret_cast<char*>(ra_gemm_wg_smem) - bars;  // base + shared address
    const int t_all = (int)threadIdx.x, g = t_all / WG;
    const int t_in = t_all % WG, w = t_in / RA_WARP_SIZE, lane = t_in % RA_WARP_SIZE;

    ra_gemm_wg_tiles tiles;
    tiles.tiles_m = (M + BM - 1) / BM;
    tiles.tiles_n = (N + BN - 1) / BN;
    tiles.per_entry = tiles.tiles_m * tiles.tiles_n;
    tiles.splits = splits;
    const ra_i64 total = tiles.per_entry * splits * batch;
    const ra_i64 ktiles = (K + BK - 1) / BK;

    ra_gemm_x3_feed<A_KMAJOR, B_KMAJOR, BM, BN, BLOCKED> feed;
    if (t_all == 0) {
        for (int s = 0; s < S; ++s) ra_mbar_init(bars + 8u * (unsigned)s, 1u);
        ra_mbar_init_fence();
        feed.t = blockIdx.x;
        feed.locate(tiles, total, kt_per_split, ktiles);
        for (int s = 0; s < S; ++s)
            feed.issue(ring + (unsigned)s * RAW, bars + 8u * (unsigned)s, &tma_a, &tma_b, tiles, total, kt_per_split,
                       ktiles);
    }
    __syncthreads();

    // The split of the next k tile (raw slot `slot`) into the pieces buffer `buffer`: wait for the
    // copies, read, refill the slot (thread 0, once every thread has read it), write the pieces;
    // on return every thread's pieces are visible to the matrix instructions. The caller has
    // waited for the products that last read the buffer (the first barrier covers both
    // warpgroups).
    int slot = 0;
    unsigned round = 0, buffer = 0;
    auto split_next = [&]() {
        const unsigned raw = ring + (unsigned)slot * RAW, full = bars + 8u * (unsigned)slot;
        ra_mbar_wait(full, round & 1u);
        float xa[RAW_A::PARTS][4], xb[RAW_B::PARTS][4];
        RAW_A::read(base + raw, t_all, xa);
        RAW_B::read(base + raw + A_BYTES, t_all, xb);
        char* const p = base + pieces + buffer * PIECES;
        // a uniform branch (every thread takes it or none): a tile with an infinity or a NaN
        if (ra_gemm_x3_any(ra_gemm_x3_has_nonfinite(xa) || ra_gemm_x3_has_nonfinite(xb))) {
            const bool guard_b = ra_gemm_x3_any(ra_gemm_x3_has_inf(xa));
            const bool guard_a = ra_gemm_x3_any(ra_gemm_x3_has_inf(xb));
            RAW_A::template write<true>(p, t_all, xa, guard_a);
            RAW_B::template write<true>(p + 2 * A_BYTES, t_all, xb, guard_b);
        } else {
            RAW_A::template write<false>(p, t_all, xa, false);
            RAW_B::template write<false>(p + 2 * A_BYTES, t_all, xb, false);
        }
        ra_gemm_x3_fence_async();
        // every thread has read the raw slot (the first barrier above): refill it
        if (t_all == 0) feed.issue(raw, full, &tma_a, &tma_b, tiles, total, kt_per_split, ktiles);
        ra_gemm_x3_sync();
        if (++slot == S) { slot = 0; ++round; }
    };

    float d[R], part[R];  // part: the matrix units' sum of `promote` k tiles (see the pieces kernel)
    for (ra_i64 t = blockIdx.x; t < total; t += gridDim.x) {
        ra_i64 b, split, m0, n0;
        tiles.locate(t, b, split, m0, n0, BM, BN);
        const ra_i64 k_begin = split * kt_per_split;
        const ra_i64 k_end = k_begin + kt_per_split < ktiles ? k_begin + kt_per_split : ktiles;
#pragma unroll
        for (int i = 0; i < R; ++i) d[i] = 0.0f;
        ra_gemm_wg_fence_operands(d);
        split_next();  // the tile's first k tile (the previous tile's products are all complete)
        int chunk = 0;  // k tiles summed in `part` so far
        for (ra_i64 kt = k_begin; kt < k_end; ++kt) {
            const unsigned src = pieces + buffer * PIECES;
            ra_gemm_wg_fence();
#pragma unroll
            for (int s = 0; s < RA_GEMM_WG_ROW_BYTES / 32; ++s)
                STEP::run(part, src, src + 2 * A_BYTES, g, s, s > 0 || chunk > 0);
            ra_gemm_wg_commit();
            buffer ^= 1u;
            if (kt + 1 < k_end) {
                ra_gemm_wg_wait<1>();  // the products of kt - 1, the other buffer's readers, are done
                ra_gemm_wg_fence_operands(part);
                split_next();
            }
            if (++chunk == promote || kt + 1 == k_end) {
                ra_gemm_wg_wait<0>();
                ra_gemm_wg_fence_operands(part);
#pragma unroll
                for (int i = 0; i < R; ++i) d[i] += part[i];
                chunk = 0;
            }
        }
        ra_gemm_wg_wait<0>();  // a no-op (the last k tile waited), which tells the compiler so
        ra_gemm_wg_fence_operands(part);
        // warpgroup g's quarter: rows 64 g of a 128-row tile, else columns 64 g
        const bool by_rows = BM == 128;
        ra_gemm_wg_store_tile<float, STEP::WN>(d, b, split, m0, by_rows ? n0 : n0 + 64 * g, by_rows ? g : 0, w, lane,
                                               M, N, K, splits, partial, alpha, beta, C, ldc, stride_c, bias, act);
    }
#endif
}
