// miopen: forward 2-D convolution of float16 / bfloat16 in channels-last layout (x: N, H, W, C;
// weights K, R, S, C; y: N, P, Q, K), float32 sums, as an implicit GEMM on the sm_90a warpgroup
// matrix instructions (wgmma) fed by TMA copies:
//
//   y[n, p, q, k] = act(sum_{r, s, c} x[n, p - pad_h + r dil_h, q - pad_w + s dil_w, c] w[k, r, s, c]
//                       + bias[k]),   stride 1, groups 1, x zero outside the image.
//
// GEMM view: rows = output pixels, columns = output channels k, reduction = (tap (r, s), c), the
// tap in the outer loop, 64 channels per k tile. The Python layer
// (rocarray/miopen/_conv_wgmma.py) launches it only on compute capability 9.0 with C a multiple
// of 8 (16-byte pixel rows) and 16-byte aligned x and w, and passes two TMA tensor maps (tiled
// mode, 128-byte swizzle, zero fill outside the tensor):
//  * x as a 4-D tensor (C, W, H, N), box (64, BW, BH, 1): a rectangle of BH x BW = 64 input
//    pixels, 64 channels each. The output pixels are cut into rectangles of BH x BW (rects_p x
//    rects_q per image, numbered image by image, row by row); a block tile is two consecutive
//    rectangles, one per consumer warpgroup (so a tile may span two rows of rectangles or two
//    images, and 56 x 56 images waste nothing). For rectangle (p0 .. p0 + BH - 1, q0 .. q0 +
//    BW - 1) of image n and tap (r, s) the box starts at (c0, q0 - pad_w + s dil_w, p0 - pad_h +
//    r dil_h, n): with stride 1, box pixel (i, j) is the input pixel that output pixel
//    (p0 + i, q0 + j) reads for that tap. Coordinates before the image (negative) or past it,
//    channels past C and images past N (the second rectangle of the last tile when there is an
//    odd number) arrive as zeros: the padding, and the zero rows of the last k tile of a tap.
//    The box lands as 64 rows of 128 bytes, row i BW + j, which is the k-major A operand layout
//    of rocarray/_kernels/rocblas/gemm_wgmma.hip (rows of 64 k, 128-byte swizzle, 1024-byte
//    atoms of 8 rows); the second rectangle's box lands 8 KiB further (rows 64 ..).
//  * w as a 3-D tensor (C, R S, K), box (64, 1, BN): BN rows (output channels) of the tap's 64
//    channels, the k-major B operand; channels past C and output channels past K arrive as zeros.
// Pixels of a rectangle outside the output (p >= P or q >= Q: partial rectangles at the
// image's edges; n >= N) are computed from whatever the box holds and not stored.
//
// ra_miopen_conv_wgmma_fwd<T, BN>: the block structure of ra_rocblas_gemm_wgmma (persistent
// blocks walking the tiles blockIdx.x, + gridDim.x, ...; two consumer warpgroups, rectangle g
// of the tile (rows 64 g .. 64 g + 63) each, wgmma m64nBNk16 from shared memory; one producer warp whose
// first lane issues both copies of every k tile into a ring of `stages` slots guarded by `full`
// and `empty` mbarriers; the slot of k tile i - 1 is released once the group of tile i has been
// issued and that of i - 1 has completed). Tiles go output channels fastest, then rectangles,
// so blocks working at one time share their input rectangles' halos in L2.
// Epilogue: accumulator register 4 j + c of warp w (in its warpgroup), lane l is tile row
// 64 g + 16 w + l / 4 + 8 (c / 2), column 8 j + 2 (l % 4) + c % 2. Bias and activation
// (ra_activation's codes, 6: leaky_relu with `slope`) act on groups of 16 sums with the switch
// taken once per group, as in ra_rocblas_gemm_wgmma (an activation switch in each element's code
// bloats the kernel). With g.staged (K a multiple of 8) and y 16-byte aligned, each warpgroup
// writes its rounded sums to its staging area of shared memory half a tile at a time (64 rows of
// BN / 2 columns; 16-byte chunk c of row r at chunk c ^ (r % 8), so the fragment's 4-byte stores
// and the rows' 16-byte reads are free of bank conflicts) and copies them out as 16-byte stores,
// a warp covering whole runs of pixels' channels. Straight from the fragment, a warp's store
// touches 8 pixels 16 bytes each; with a short reduction (a 1 x 1 filter: 4 k tiles a tile) those
// stores take as long as the products. Otherwise the two columns of a pair go out as one 32-bit
// store when K is even.
// Targets without sm_90a's wgmma and TMA compile an empty body: the Python layer never launches
// the kernel there.

// Rows (output pixels) of a block tile: two rectangles of 64, one per consumer warpgroup.
#define RA_CONV_WG_BM 128
// Channels of a k tile: one 128-byte swizzle row of 16-bit elements.
#define RA_CONV_WG_BK 64
#define RA_CONV_WG_ROW_BYTES 128
#define RA_CONV_WG_CONSUMERS (RA_CONV_WG_BM / 16 * RA_WARP_SIZE)
#define RA_CONV_WG_THREADS (RA_CONV_WG_CONSUMERS + RA_WARP_SIZE)

// The problem as the kernel sees it (32-bit: the Python layer takes only tensors whose TMA
// coordinates and tile counts fit).
struct ra_conv_wg_shape {
    int n, p, q, k;             // batch, output height and width, output channels
    int s, taps, ctiles;        // filter width, filter taps R S, k tiles of 64 channels per tap
    int pad_h, pad_w, dil_h, dil_w;
    int bh, bw_log2;            // a rectangle of output pixels: bh x (1 << bw_log2) = 64
    int rects_p, rects_q;       // rectangles per image along p and q
    int tiles_m, tiles_k;       // tiles of two rectangles, tiles of BN output channels
    int staged;                 // 1: the epilogue through shared memory (K % 8 == 0; see above)
};

#if defined(RA_WGMMA)
// Rectangle number `rect` -> (image, first output row and column).
RA_DEVICE void ra_conv_wg_rect(const ra_conv_wg_shape& g, int rect, int& n, int& p0, int& q0) {
    const int per_image = g.rects_p * g.rects_q;
    n = rect / per_image;
    const int in_image = rect - n * per_image;
    const int pt = in_image / g.rects_q;
    p0 = pt * g.bh;
    q0 = (in_image - pt * g.rects_q) << g.bw_log2;
}

// Bias and activation on the thread's sums 4 j0 .. 4 (j0 + GROUP) - 1 (columns col0 + 8 j, + 1).
template <int GROUP, typename T>
RA_DEVICE void ra_conv_wg_finish(float* d, int j0, int col0, int k, const T* __restrict__ bias, int act,
                                 float slope) {
    if (bias != nullptr) {
#pragma unroll
        for (int j = j0; j < j0 + GROUP; ++j)
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                const int col = col0 + 8 * j + (c & 1);
                if (col < k) d[4 * j + c] += ra_traits<T>::to_acc(bias[col]);
            }
    }
    if (act == 6) {
#pragma unroll
        for (int e = 4 * j0; e < 4 * (j0 + GROUP); ++e) d[e] = d[e] < 0.0f ? d[e] * slope : d[e];
    } else if (act != 0) {
        ra_activation_all<4 * GROUP>(d + 4 * j0, act);
    }
}

// Two sums rounded to T as one 32-bit word, the first in the low half.
template <typename T>
RA_DEVICE ra_u32 ra_conv_wg_pair(float lo, float hi) {
    return (ra_u32)ra_gemm_round<T>(lo).bits | ((ra_u32)ra_gemm_round<T>(hi).bits << 16);
}

// Row `row` (0 .. 63) of a rectangle as the output pixel's first channel in y; null outside the output.
template <typename T>
RA_DEVICE T* ra_conv_wg_pixel(const ra_conv_wg_shape& g, int n, int p0, int q0, int row, T* __restrict__ y) {
    const int p = p0 + (row >> g.bw_log2), q = q0 + (row & ((1 << g.bw_log2) - 1));
    if (n >= g.n || p >= g.p || q >= g.q) return nullptr;
    return y + (((ra_i64)n * g.p + p) * g.q + q) * g.k;
}

// The tile's sums (warpgroup g, its warp w, lane) through the epilogue into y, from the fragment.
template <typename T, int BN>
RA_DEVICE void ra_conv_wg_store(float (&d)[BN / 2], const ra_conv_wg_shape& g, int n, int p0, int q0, int k0,
                                int w, int lane, T* __restrict__ y, const T* __restrict__ bias, int act,
                                float slope) {
    // the thread's two rows of its warpgroup's rectangle (c / 2 = 0, 1) as output pixels
    T* out[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) out[h] = ra_conv_wg_pixel<T>(g, n, p0, q0, 16 * w + lane / 4 + 8 * h, y);
    const int col0 = k0 + 2 * (lane % 4);
    const bool pairs = (g.k & 1) == 0;  // then a pair's first column is even: 4-byte aligned
    constexpr int GROUP = 4;            // j per group: 16 sums
#pragma unroll
    for (int j0 = 0; j0 < BN / 8; j0 += GROUP) {
        ra_conv_wg_finish<GROUP, T>(d, j0, col0, g.k, bias, act, slope);
#pragma unroll
        for (int j = j0; j < j0 + GROUP; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int col = col0 + 8 * j;
                if (out[h] == nullptr || col >= g.k) continue;
                if (pairs) {
                    *reinterpret_cast<ra_u32*>(out[h] + col) =
                        ra_conv_wg_pair<T>(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
                } else {
                    out[h][col] = ra_gemm_round<T>(d[4 * j + 2 * h]);
                    if (col + 1 < g.k) out[h][col + 1] = ra_gemm_round<T>(d[4 * j + 2 * h + 1]);
                }
            }
    }
}

// 16 bytes of output as one store.
struct alignas(16) ra_conv_wg_chunk { ra_u32 w[4]; };

// The barrier of consumer warpgroup wg alone (named barriers 1 and 2: immediate ids, so the
// kernel reserves three barriers, not all sixteen).
RA_DEVICE void ra_conv_wg_bar(int wg) {
    if (wg == 0) asm volatile("bar.sync 1, %0;\n" ::"n"(4 * RA_WARP_SIZE) : "memory");
    else asm volatile("bar.sync 2, %0;\n" ::"n"(4 * RA_WARP_SIZE) : "memory");
}

// The tile's sums through the warpgroup's staging area `stage` in shared memory (64 rows of BN
// bytes) into y as 16-byte stores (the header's g.staged; t_in: the thread in its warpgroup).
template <typename T, int BN>
RA_DEVICE void ra_conv_wg_store_staged(float (&d)[BN / 2], const ra_conv_wg_shape& g, int n, int p0, int q0,
                                       int k0, int wg, int t_in, char* stage, T* __restrict__ y,
                                       const T* __restrict__ bias, int act, float slope) {
    constexpr int WG = 4 * RA_WARP_SIZE;
    constexpr int HALF = BN / 2;      // columns of a half tile
    constexpr int CHUNKS = HALF / 8;  // 16-byte chunks of a staged row (8 or 16)
    constexpr int ROW = 16 * CHUNKS;  // bytes of a staged row
    constexpr int GROUP = 4;
    const int w = t_in / RA_WARP_SIZE, lane = t_in % RA_WARP_SIZE;
    const int col0 = k0 + 2 * (lane % 4);
#pragma unroll
    for (int half = 0; half < 2; ++half) {
        // fragment -> staging area: chunk j of the half's row (the fragment's column pair 8 j + 2 (l % 4))
#pragma unroll
        for (int j0 = half * CHUNKS; j0 < (half + 1) * CHUNKS; j0 += GROUP) {
            ra_conv_wg_finish<GROUP, T>(d, j0, col0, g.k, bias, act, slope);
#pragma unroll
            for (int j = j0; j < j0 + GROUP; ++j)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int row = 16 * w + lane / 4 + 8 * h, chunk = (j - half * CHUNKS) ^ (row & 7);
                    *reinterpret_cast<ra_u32*>(stage + row * ROW + chunk * 16 + 4 * (lane % 4)) =
                        ra_conv_wg_pair<T>(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
                }
        }
        ra_conv_wg_bar(wg);
        // staging area -> y: consecutive threads take consecutive chunks of a row
#pragma unroll
        for (int it = 0; it < 64 * CHUNKS / WG; ++it) {
            const int id = it * WG + t_in, row = id / CHUNKS, c = id % CHUNKS;
            const int col = k0 + half * HALF + 8 * c;
            T* out = ra_conv_wg_pixel<T>(g, n, p0, q0, row, y);
            const ra_conv_wg_chunk v =
                *reinterpret_cast<const ra_conv_wg_chunk*>(stage + row * ROW + (c ^ (row & 7)) * 16);
            if (out != nullptr && col < g.k) *reinterpret_cast<ra_conv_wg_chunk*>(out + col) = v;
        }
        ra_conv_wg_bar(wg);  // the area is read before the next half (or tile) overwrites it
    }
}
#endif  // RA_WGMMA

template <typename T, int BN>
__global__ void RA_LAUNCH_BOUNDS(RA_CONV_WG_THREADS)
ra_miopen_conv_wgmma_fwd(const RA_GRID_CONSTANT ra_tensor_map tma_x, const RA_GRID_CONSTANT ra_tensor_map tma_w,
                         T* __restrict__ y, const T* __restrict__ bias, ra_conv_wg_shape g, int stages, int act,
                         float slope) {
    ra_dependent_grid_enter();
    static_assert(BN == 128 || BN == 256, "block tile width");
#if defined(RA_WGMMA)
    constexpr int WG = 4 * RA_WARP_SIZE;  // threads of one warpgroup
    constexpr int R = BN / 2;             // accumulators per thread
    constexpr unsigned A_BYTES = RA_CONV_WG_BM * RA_CONV_WG_ROW_BYTES;
    constexpr unsigned SLOT = A_BYTES + BN * RA_CONV_WG_ROW_BYTES;
    const int S = stages;

    // Shared memory: 2 S mbarriers (full, then empty), then the ring from the next 1024 bytes.
    extern __shared__ ra_u64 ra_conv_wg_smem[];
    const unsigned bars = ra_shared_address(ra_conv_wg_smem);
    const unsigned ring = (bars + 16u * (unsigned)S + 1023u) & ~1023u;
    if (threadIdx.x == 0) {
        for (int s = 0; s < S; ++s) {
            ra_mbar_init(bars + 8u * (unsigned)s, 1u);                                        // full
            ra_mbar_init(bars + 8u * (unsigned)(S + s), RA_CONV_WG_CONSUMERS / RA_WARP_SIZE);  // empty
        }
        ra_mbar_init_fence();
    }
    __syncthreads();

    const int total = g.tiles_m * g.tiles_k;
    const int ktiles = g.taps * g.ctiles;

    if (threadIdx.x >= RA_CONV_WG_CONSUMERS) {
        // producer: one lane issues every copy
        if (threadIdx.x != RA_CONV_WG_CONSUMERS) return;
        int slot = 0;
        unsigned round = 0;
        for (int t = blockIdx.x; t < total; t += gridDim.x) {
            const int m = t / g.tiles_k, k0 = (t - m * g.tiles_k) * BN;
            int n[2], p0[2], q0[2];
            ra_conv_wg_rect(g, 2 * m, n[0], p0[0], q0[0]);
            ra_conv_wg_rect(g, 2 * m + 1, n[1], p0[1], q0[1]);
            for (int tap = 0; tap < g.taps; ++tap) {
                const int r = tap / g.s, s = tap - r * g.s;
                const int dh = r * g.dil_h - g.pad_h, dw = s * g.dil_w - g.pad_w;
                for (int ct = 0; ct < g.ctiles; ++ct) {
                    const unsigned full = bars + 8u * (unsigned)slot;
                    if (round > 0) ra_mbar_wait(bars + 8u * (unsigned)(S + slot), (round - 1u) & 1u);
                    ra_mbar_expect_tx(full, SLOT);
                    const unsigned dst = ring + (unsigned)slot * SLOT;
                    const int c0 = RA_CONV_WG_BK * ct;
                    ra_tma_load_4d(dst, &tma_x, c0, q0[0] + dw, p0[0] + dh, n[0], full);
                    ra_tma_load_4d(dst + A_BYTES / 2, &tma_x, c0, q0[1] + dw, p0[1] + dh, n[1], full);
                    ra_tma_load_3d(dst + A_BYTES, &tma_w, c0, tap, k0, full);
                    if (++slot == S) { slot = 0; ++round; }
                }
            }
        }
        return;
    }

    // consumers
    const int wg = (int)threadIdx.x / WG;  // warpgroup: rows 64 wg .. 64 wg + 63 of the tile
    const int t_in = (int)threadIdx.x % WG, w = t_in / RA_WARP_SIZE, lane = t_in % RA_WARP_SIZE;
    const bool releaser = lane == 0;       // one arrive per consumer warp on `empty`
    const bool staged = g.staged != 0 && ((ra_u64)y & 15u) == 0;
    float d[R];
    int slot = 0, prev = 0;
    unsigned round = 0;
    for (int t = blockIdx.x; t < total; t += gridDim.x) {
        const int m = t / g.tiles_k, k0 = (t - m * g.tiles_k) * BN;
        int n, p0, q0;
        ra_conv_wg_rect(g, 2 * m + wg, n, p0, q0);
#pragma unroll
        for (int i = 0; i < R; ++i) d[i] = 0.0f;
        ra_gemm_wg_fence_operands(d);
        bool held = false;  // the previous slot still waits for its release
        for (int kt = 0; kt < ktiles; ++kt) {
            ra_mbar_wait(bars + 8u * (unsigned)slot, round & 1u);
            const unsigned a = ring + (unsigned)slot * SLOT + 64u * RA_CONV_WG_ROW_BYTES * (unsigned)wg;
            const unsigned b = ring + (unsigned)slot * SLOT + A_BYTES;
            ra_gemm_wg_fence();
#pragma unroll
            for (int s = 0; s < RA_CONV_WG_ROW_BYTES / 32; ++s)  // k steps of 16: 32 bytes of a row
                ra_wgmma_m64k16<T, BN>::template run<0, 0>(d, ra_gemm_wg_desc(a + 32u * (unsigned)s, 16u, 1024u),
                                                           ra_gemm_wg_desc(b + 32u * (unsigned)s, 16u, 1024u));
            ra_gemm_wg_commit();
            if (held) {
                ra_gemm_wg_wait<1>();  // the group of the previous k tile is done: free its slot
                ra_gemm_wg_fence_operands(d);
                if (releaser) ra_mbar_arrive(bars + 8u * (unsigned)(S + prev));
            }
            held = true;
            prev = slot;
            if (++slot == S) { slot = 0; ++round; }
        }
        ra_gemm_wg_wait<0>();
        ra_gemm_wg_fence_operands(d);
        if (held && releaser) ra_mbar_arrive(bars + 8u * (unsigned)(S + prev));
        if (staged) {
            char* stage = reinterpret_cast<char*>(ra_conv_wg_smem) + (ring - bars) + S * SLOT + wg * 64 * BN;
            ra_conv_wg_store_staged<T, BN>(d, g, n, p0, q0, k0, wg, t_in, stage, y, bias, act, slope);
        } else {
            ra_conv_wg_store<T, BN>(d, g, n, p0, q0, k0, w, lane, y, bias, act, slope);
        }
    }
#endif
}
