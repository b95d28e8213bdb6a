// prim radix sort: LSD radix sort of unsigned bit patterns, 8 bits per pass, Onesweep design after
//   A. Adinets and D. Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for GPUs",
//   arXiv:2206.01784, 2022.
//
// Keys are sorted as unsigned integers U (8, 16, 32 or 64 bits) carrying an order-preserving image
// of the caller's type; the image is taken when a pass loads raw keys (flag TIN) and undone when a
// pass stores final keys (flag TOUT), so no separate transform pass runs. `mode` bits:
//   SIGNED  two's complement integers: flip the sign bit.
//   FLOAT   IEEE floats (16/32/64 bits): positives get the sign bit set, negatives are complemented;
//           -0.0 becomes +0.0 first and every NaN becomes the all-ones pattern, so NumPy's order
//           (-0.0 == 0.0, every NaN last, stable among equals) falls out of the unsigned order.
//           The inverse maps all-ones back to the canonical quiet NaN; the upsweep flags keys the
//           inverse would not restore bit for bit (-0.0 and non-canonical NaNs) so the host can
//           gather the original keys instead.
//   DESC    descending: complement the image (stable: equal keys keep their input order).
//
// ra_prim_radix_upsweep: one read of the keys builds the 256-bin histograms of every digit place
//   (block-private shared-memory counters, one global 64-bit atomic per nonzero bin and block).
//   The host reads them once: it skips passes whose digit is the same for every key and turns
//   each kept histogram into the global start of every digit.
//
// ra_prim_radix_onesweep: one pass over one 8-bit digit (or fewer bits at the top). A block takes
//   a tile id from an atomic ticket (so it only ever waits on tiles whose blocks already run), loads
//   TILE = BLOCK * ITEMS keys (and values; ra_prim_sort_tile) warp-striped, and ranks them:
//   * warp-level multisplit (Ashkiani et al., "GPU Multisplit", PPoPP 2016): for each item, every
//     lane learns the set of lanes holding the same digit, the lowest such lane bumps the warp's
//     private counter of that digit, the others read the old count by shuffle. Items are visited
//     in input order, lanes in lane order, so ranks are stable. Keys-only passes find the set with
//     one shared atomic OR of the lane bit into a word per (warp, digit) and a read back (as the
//     Onesweep paper's match-based ranking does); passes with values use one ballot per digit bit
//     (fewer registers: see ra_prim_sort_rank_by_peers).
//   * the per-warp counts become per-digit tile counts; thread d publishes tile t's count of
//     digit d in the status word status[t][d] as an aggregate (A), looks back over the preceding
//     tiles' words of digit d until it meets an inclusive prefix (P), and publishes its own P.
//     Tile 0 publishes P at once. Status words pack flag and value in one store (32-bit words
//     [31:30] flag [29:0] value when n < 2^30, 64-bit words [63:62] flag [61:0] value otherwise);
//     the host zeroes them (and the ticket) before every pass (one memset).
//   * keys are placed in shared memory in tile-sorted order, then written out with consecutive
//     threads on consecutive tile positions: position i of digit d goes to
//     digit_start[d] + lookback[d] + (i - tile_start[d]) (runs of one digit are contiguous in
//     global memory, so stores coalesce). Values follow through the same buffer.
//   Values: VB = 0 (none), 4 or 8 bytes. Flag VIOTA makes the values the input positions (argsort,
//   nothing is read); flag VWIDE stores 4-byte values as 8-byte ones (int64 indices from 32-bit
//   ones carried through the passes). Flag KEYS off skips storing keys (argsort's last pass).
//
// ra_prim_radix_segment_ids: id[i] = number of offsets[0..nseg] <= i (a binary search per element).

#define RA_PRIM_SORT_BLOCK 256
// Keys per thread: 16, or 32 for keys-only sorts of 8/16-bit keys (halves the status traffic per
// key where it weighs most; the larger tile still fits 48 KiB of shared memory).
#define RA_PRIM_SORT_ITEMS 16
#define RA_PRIM_SORT_ITEMS_NARROW 32
#define RA_PRIM_SORT_RADIX 256
static_assert(RA_PRIM_SORT_BLOCK == RA_PRIM_SORT_RADIX, "the digit pass gives thread d digit d");
#define RA_PRIM_SORT_UP_ITEMS 16

#define RA_PRIM_SORT_SIGNED 1
#define RA_PRIM_SORT_FLOAT 2
#define RA_PRIM_SORT_DESC 4

#define RA_PRIM_SORT_TIN 1
#define RA_PRIM_SORT_TOUT 2
#define RA_PRIM_SORT_KEYS 4
#define RA_PRIM_SORT_VIOTA 8
#define RA_PRIM_SORT_VWIDE 16

// Byte offset of the status words in the pass workspace; the ticket counter is the u32 at 0.
#define RA_PRIM_SORT_STATUS_OFFSET 256

// ---------------------------------------------------------------------------------------------
// key images
// ---------------------------------------------------------------------------------------------

template <typename U> struct ra_prim_sort_float_bits;
template <> struct ra_prim_sort_float_bits<ra_u8> {  // never used with FLOAT (no 8-bit floats)
    static RA_DEVICE ra_u8 inf() { return (ra_u8)0x78u; }
    static RA_DEVICE ra_u8 qnan() { return (ra_u8)0x7cu; }
};
template <> struct ra_prim_sort_float_bits<ra_u16> {
    static RA_DEVICE ra_u16 inf() { return (ra_u16)0x7c00u; }
    static RA_DEVICE ra_u16 qnan() { return (ra_u16)0x7e00u; }
};
template <> struct ra_prim_sort_float_bits<ra_u32> {
    static RA_DEVICE ra_u32 inf() { return 0x7f800000u; }
    static RA_DEVICE ra_u32 qnan() { return 0x7fc00000u; }
};
template <> struct ra_prim_sort_float_bits<ra_u64> {
    static RA_DEVICE ra_u64 inf() { return 0x7ff0000000000000ull; }
    static RA_DEVICE ra_u64 qnan() { return 0x7ff8000000000000ull; }
};

template <typename U> struct ra_prim_sort_key {
    static RA_DEVICE U top() { return (U)((U)1 << (8 * sizeof(U) - 1)); }
    static RA_DEVICE U ones() { return (U)~(U)0; }
    static RA_DEVICE U forward(U x, int mode) {
        if (mode & RA_PRIM_SORT_FLOAT) {
            if ((U)(x & (U)~top()) > ra_prim_sort_float_bits<U>::inf()) {
                x = ones();
            } else {
                if (x == top()) x = (U)0;
                x = (x & top()) ? (U)~x : (U)(x | top());
            }
        } else if (mode & RA_PRIM_SORT_SIGNED) {
            x = (U)(x ^ top());
        }
        if (mode & RA_PRIM_SORT_DESC) x = (U)~x;
        return x;
    }
    static RA_DEVICE U inverse(U k, int mode) {
        if (mode & RA_PRIM_SORT_DESC) k = (U)~k;
        if (mode & RA_PRIM_SORT_FLOAT) {
            if (k == ones()) return ra_prim_sort_float_bits<U>::qnan();
            return (k & top()) ? (U)(k ^ top()) : (U)~k;
        }
        if (mode & RA_PRIM_SORT_SIGNED) k = (U)(k ^ top());
        return k;
    }
    // Whether inverse(forward(x)) != x: -0.0 and NaNs other than the canonical quiet NaN.
    static RA_DEVICE bool lossy(U x, int mode) {
        if (!(mode & RA_PRIM_SORT_FLOAT)) return false;
        if (x == top()) return true;
        return (U)(x & (U)~top()) > ra_prim_sort_float_bits<U>::inf() && x != ra_prim_sort_float_bits<U>::qnan();
    }
    static RA_DEVICE ra_u32 digit(U k, int shift, ra_u32 mask) { return (ra_u32)(k >> shift) & mask; }
};

// ---------------------------------------------------------------------------------------------
// upsweep: histograms of every digit place in one read
// ---------------------------------------------------------------------------------------------

// 16 bytes of consecutive keys.
template <typename U> struct alignas(16) ra_prim_sort_pack {
    static constexpr int N = 16 / (int)sizeof(U);
    U v[N];
};

// Counts one key into the block's histograms of every digit place.
template <typename U>
RA_DEVICE void ra_prim_radix_count_key(ra_u32 (*h)[RA_PRIM_SORT_RADIX], U x, int mode, int begin_bit,
                                       int end_bit, int passes, bool& any_lossy) {
    typedef ra_prim_sort_key<U> K;
    any_lossy |= K::lossy(x, mode);
    const U k = K::forward(x, mode);
    for (int p = 0; p < passes; ++p) {
        const int shift = begin_bit + 8 * p;
        const int bits = end_bit - shift < 8 ? end_bit - shift : 8;
        ra_atomic_add_u32(&h[p][K::digit(k, shift, (1u << bits) - 1u)], 1u);
    }
}

// hist: passes * 256 u64 (zeroed by the host); lossy: one u32 set to 1 when a lossy key exists.
// Keys are read as 16-byte packs, RA_PRIM_SORT_UP_UNROLL packs in flight per thread (a grid-stride
// loop of single keys is latency-bound: one 4-byte load in flight per thread); a scalar head up
// to the first 16-byte boundary and a scalar tail are counted by the first threads.
#define RA_PRIM_SORT_UP_UNROLL 4
template <typename U>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SORT_BLOCK)
ra_prim_radix_upsweep(const U* RA_RESTRICT keys, ra_i64 n, int mode, int begin_bit, int end_bit,
                      ra_u64* RA_RESTRICT hist, ra_u32* RA_RESTRICT lossy) {
    typedef ra_prim_sort_pack<U> P;
    constexpr int MAXP = (int)sizeof(U);
    constexpr int V = P::N;
    constexpr int UN = RA_PRIM_SORT_UP_UNROLL;
    __shared__ ra_u32 h[MAXP][RA_PRIM_SORT_RADIX];
    const int passes = (end_bit - begin_bit + 7) / 8;
    for (int i = threadIdx.x; i < MAXP * RA_PRIM_SORT_RADIX; i += RA_PRIM_SORT_BLOCK) (&h[0][0])[i] = 0u;
    ra_syncthreads();
    bool any_lossy = false;
    const ra_i64 tid = ra_global_thread_id();
    const ra_i64 nthreads = ra_grid_threads();
    ra_i64 head = (ra_i64)(((16u - ((ra_u64)keys & 15u)) & 15u) / sizeof(U));
    head = head < n ? head : n;
    const ra_i64 nvec = (n - head) / V;
    const ra_i64 tail = head + nvec * V;
    if (tid < head) ra_prim_radix_count_key(h, keys[tid], mode, begin_bit, end_bit, passes, any_lossy);
    const P* kv = (const P*)(keys + head);
    ra_i64 i = tid;
    for (; i + (UN - 1) * nthreads < nvec; i += UN * nthreads) {
        P a[UN];
#pragma unroll
        for (int u = 0; u < UN; ++u) a[u] = kv[i + u * nthreads];
#pragma unroll
        for (int u = 0; u < UN; ++u) {
#pragma unroll
            for (int j = 0; j < V; ++j) ra_prim_radix_count_key(h, a[u].v[j], mode, begin_bit, end_bit, passes, any_lossy);
        }
    }
    for (; i < nvec; i += nthreads) {
        const P a = kv[i];
#pragma unroll
        for (int j = 0; j < V; ++j) ra_prim_radix_count_key(h, a.v[j], mode, begin_bit, end_bit, passes, any_lossy);
    }
    if (tid < n - tail) ra_prim_radix_count_key(h, keys[tail + tid], mode, begin_bit, end_bit, passes, any_lossy);
    if (any_lossy) *(volatile ra_u32*)lossy = 1u;
    ra_syncthreads();
    for (int k = threadIdx.x; k < passes * RA_PRIM_SORT_RADIX; k += RA_PRIM_SORT_BLOCK) {
        const ra_u32 c = (&h[0][0])[k];
        if (c) ra_atomic_add_u64(hist + k, (ra_u64)c);
    }
}

// ---------------------------------------------------------------------------------------------
// one digit pass
// ---------------------------------------------------------------------------------------------

template <typename U, int VB> struct ra_prim_sort_tile {
    static constexpr int ITEMS = ((int)sizeof(U) <= 2 && VB == 0) ? RA_PRIM_SORT_ITEMS_NARROW : RA_PRIM_SORT_ITEMS;
    static constexpr int TILE = RA_PRIM_SORT_BLOCK * ITEMS;
};

template <int VB> struct ra_prim_sort_vtype { typedef ra_u8 type; };  // VB == 0: no values (a 1-byte placeholder)
template <> struct ra_prim_sort_vtype<4> { typedef ra_u32 type; };
template <> struct ra_prim_sort_vtype<8> { typedef ra_u64 type; };

// A lane set of one warp in shared memory: 32-bit words for 32-lane warps (half the shared memory),
// 64-bit ones for wave64.
template <int W> struct ra_prim_sort_peers { typedef ra_u64 type; };
template <> struct ra_prim_sort_peers<(int)sizeof(unsigned int) * 8> { typedef unsigned int type; };
RA_DEVICE unsigned int ra_prim_sort_or(unsigned int* p, unsigned int v) { return ra_atomic_or_u32(p, v); }
RA_DEVICE ra_u64 ra_prim_sort_or(ra_u64* p, ra_u64 v) { return ra_atomic_or_u64(p, v); }

// Ranking through the peer words takes about 16 more registers per thread than ranking with one
// ballot per digit bit; with values in registers too (VB > 0) that cost a resident block and made
// argsort slower on the H200 (2^28 int32: 12.7 against 10.4 ms in the digit passes), while keys-only
// passes gained (float32 sort 7.6 against 8.0 ms). So only keys-only passes use it.
template <int VB> struct ra_prim_sort_rank_by_peers { static constexpr bool value = VB == 0; };

template <typename U, int VB> struct ra_prim_sort_smem {
    static constexpr int EB = (int)sizeof(U) > VB ? (int)sizeof(U) : VB;
    static constexpr int WARPS = RA_PRIM_SORT_BLOCK / RA_WARP_SIZE;
    static constexpr int TILE = ra_prim_sort_tile<U, VB>::TILE;
    union {
        U keys[TILE];
        typename ra_prim_sort_vtype<VB>::type vals[TILE];
        unsigned char raw[TILE * EB];
        // Only while ranking, before keys are placed: lanes per digit, per warp.
        typename ra_prim_sort_peers<RA_WARP_SIZE>::type peers[WARPS][RA_PRIM_SORT_RADIX];
    } buf;
    ra_u32 warp_count[WARPS][RA_PRIM_SORT_RADIX];  // counts, then exclusive prefixes over warps
    ra_i64 gbase[RA_PRIM_SORT_RADIX];              // global index of tile position 0 of each digit
    ra_u32 tile_start[RA_PRIM_SORT_RADIX];         // tile-local exclusive prefix over digits
    ra_u8 digit[TILE];                              // digit of each tile-sorted position
    ra_u32 tile;
};

// Status words of one pass.
RA_DEVICE void ra_prim_sort_publish(void* status, int wide, ra_i64 idx, ra_u32 flag, ra_u64 v) {
    if (wide) {
        ((volatile ra_u64*)status)[idx] = ((ra_u64)flag << 62) | v;
    } else {
        ((volatile ra_u32*)status)[idx] = (flag << 30) | (ra_u32)v;
    }
}
RA_DEVICE ra_u32 ra_prim_sort_read(const void* status, int wide, ra_i64 idx, ra_u64& v) {
    if (wide) {
        const ra_u64 w = ((const volatile ra_u64*)status)[idx];
        v = w & 0x3fffffffffffffffull;
        return (ra_u32)(w >> 62);
    }
    const ra_u32 w = ((const volatile ra_u32*)status)[idx];
    v = (ra_u64)(w & 0x3fffffffu);
    return w >> 30;
}

template <typename U, int VB>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SORT_BLOCK)
ra_prim_radix_onesweep(const U* RA_RESTRICT kin, U* RA_RESTRICT kout, const void* RA_RESTRICT vin,
                       void* RA_RESTRICT vout, ra_i64 n, int shift, int nbits, int mode, int flags,
                       const ra_u64* RA_RESTRICT digit_start, unsigned char* ws, int wide_status) {
    typedef ra_prim_sort_key<U> K;
    typedef typename ra_prim_sort_vtype<VB>::type V;
    constexpr int ITEMS = ra_prim_sort_tile<U, VB>::ITEMS;
    constexpr int TILE = ra_prim_sort_tile<U, VB>::TILE;
    constexpr int WARPS = RA_PRIM_SORT_BLOCK / RA_WARP_SIZE;
    __shared__ ra_prim_sort_smem<U, VB> sm;

    const int tid = threadIdx.x;
    const int lane = ra_lane_id();
    const int warp = ra_warp_id();
    const ra_u32 mask = (1u << nbits) - 1u;
    void* status = (void*)(ws + RA_PRIM_SORT_STATUS_OFFSET);

    if (tid == 0) sm.tile = ra_atomic_inc_u32((unsigned int*)ws);
    for (int i = tid; i < WARPS * RA_PRIM_SORT_RADIX; i += RA_PRIM_SORT_BLOCK) {
        (&sm.warp_count[0][0])[i] = 0u;
        if constexpr (ra_prim_sort_rank_by_peers<VB>::value) (&sm.buf.peers[0][0])[i] = 0u;
    }
    ra_syncthreads();
    const ra_u32 t = sm.tile;
    const ra_i64 base = (ra_i64)t * TILE;
    const int valid = n - base < (ra_i64)TILE ? (int)(n - base) : TILE;

    // Load warp-striped: item j of lane l of warp w is tile element w * WARP * ITEMS + j * WARP + l.
    U k[ITEMS];
    V v[VB ? ITEMS : 1];
    const int wbase = warp * RA_WARP_SIZE * ITEMS + lane;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const int e = wbase + j * RA_WARP_SIZE;
        if (e < valid) {
            const U x = kin[base + e];
            k[j] = (flags & RA_PRIM_SORT_TIN) ? K::forward(x, mode) : x;
        }
    }
    if (VB) {
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const int e = wbase + j * RA_WARP_SIZE;
            if (e < valid) {
                v[VB ? j : 0] = (flags & RA_PRIM_SORT_VIOTA) ? (V)(base + e) : ((const V*)vin)[base + e];
            }
        }
    }

    // Warp multisplit: stable rank of every item among the warp's items of its digit.
    ra_u32 rank[ITEMS];
    ra_u32* wc = sm.warp_count[warp];
    typedef typename ra_prim_sort_peers<RA_WARP_SIZE>::type PW;
    PW* peers = sm.buf.peers[warp];
    const ra_lane_mask below = (((ra_lane_mask)1) << lane) - 1;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const bool ok = wbase + j * RA_WARP_SIZE < valid;
        const ra_u32 d = ok ? K::digit(k[j], shift, mask) : 0u;
        ra_lane_mask same;
        if constexpr (ra_prim_sort_rank_by_peers<VB>::value) {
            // The lanes holding one digit find each other through a shared word per (warp, digit):
            // each ORs in its lane bit and reads the word back; the leader clears it below.
            if (ok) ra_prim_sort_or(peers + d, (PW)1 << lane);
            ra_warp_sync();
            same = ok ? (ra_lane_mask)peers[d] : ((ra_lane_mask)1 << lane);
            ra_warp_sync();
        } else {
            same = ra_ballot(ok);
            // Always 8 ballots, unrolled: digits are masked to nbits, so higher bits are 0 in every
            // lane and leave `same` unchanged (a loop bounded by nbits was 10 % slower on the H200).
#pragma unroll
            for (int b = 0; b < 8; ++b) {
                const int bit = (int)((d >> b) & 1u);
                const ra_lane_mask m = ra_ballot(bit);
                same &= bit ? m : ~m;
            }
            if (!ok) same = (ra_lane_mask)1 << lane;
        }
        const int leader = ra_popc64((same & (~same + 1)) - 1);  // lowest lane of `same`
        ra_u32 old = 0u;
        if (ok && leader == lane) {
            old = wc[d];
            wc[d] = old + (ra_u32)ra_popc64(same);
            if constexpr (ra_prim_sort_rank_by_peers<VB>::value) peers[d] = (PW)0;
        }
        old = ra_shfl(old, leader);
        rank[j] = old + (ra_u32)ra_popc64(same & below);
        ra_warp_sync();
    }
    ra_syncthreads();

    // Thread d: tile count of digit d, warp prefixes, then publish the aggregate.
    ra_u32 count = 0u;
    const int d = tid;
    if (d < RA_PRIM_SORT_RADIX) {
#pragma unroll
        for (int w = 0; w < WARPS; ++w) {
            const ra_u32 c = sm.warp_count[w][d];
            sm.warp_count[w][d] = count;
            count += c;
        }
        ra_prim_sort_publish(status, wide_status, (ra_i64)t * RA_PRIM_SORT_RADIX + d,
                             t == 0 ? 2u : 1u, (ra_u64)count);
        sm.tile_start[d] = count;
    }
    ra_syncthreads();
    // Tile-local exclusive prefix over digits (Hillis-Steele in shared memory, 8 steps; a warp
    // shuffle scan with one barrier measured slower on the H200, 10.4 against 9.2 ms for 2^28 keys).
    for (int off = 1; off < RA_PRIM_SORT_RADIX; off <<= 1) {
        ra_u32 add = 0u;
        if (d < RA_PRIM_SORT_RADIX && d >= off) add = sm.tile_start[d - off];
        ra_syncthreads();
        if (d < RA_PRIM_SORT_RADIX) sm.tile_start[d] += add;
        ra_syncthreads();
    }
    if (d < RA_PRIM_SORT_RADIX) {
        const ra_u32 tstart = sm.tile_start[d] - count;  // inclusive -> exclusive
        // Decoupled look-back over the preceding tiles' counts of digit d.
        ra_u64 prefix = 0u;
        if (t > 0) {
            ra_i64 tt = (ra_i64)t - 1;
            while (true) {
                ra_u64 val;
                const ra_u32 f = ra_prim_sort_read(status, wide_status, tt * RA_PRIM_SORT_RADIX + d, val);
                if (f == 0u) continue;  // not published yet: spin
                prefix += val;
                if (f == 2u || tt == 0) break;
                --tt;
            }
            ra_prim_sort_publish(status, wide_status, (ra_i64)t * RA_PRIM_SORT_RADIX + d, 2u, prefix + count);
        }
        sm.gbase[d] = (ra_i64)(digit_start[d] + prefix) - (ra_i64)tstart;
        sm.tile_start[d] = tstart;
    }
    ra_syncthreads();

    // Keys into shared memory in tile-sorted order.
    ra_u32 pos[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        if (wbase + j * RA_WARP_SIZE < valid) {
            const ra_u32 dj = K::digit(k[j], shift, mask);
            pos[j] = sm.tile_start[dj] + sm.warp_count[warp][dj] + rank[j];
            sm.buf.keys[pos[j]] = k[j];
            sm.digit[pos[j]] = (ra_u8)dj;
        }
    }
    ra_syncthreads();
    if (flags & RA_PRIM_SORT_KEYS) {
        for (int i = tid; i < valid; i += RA_PRIM_SORT_BLOCK) {
            const U x = sm.buf.keys[i];
            kout[sm.gbase[sm.digit[i]] + i] = (flags & RA_PRIM_SORT_TOUT) ? K::inverse(x, mode) : x;
        }
    }
    if (VB) {
        ra_syncthreads();
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            if (wbase + j * RA_WARP_SIZE < valid) sm.buf.vals[pos[j]] = v[VB ? j : 0];
        }
        ra_syncthreads();
        for (int i = tid; i < valid; i += RA_PRIM_SORT_BLOCK) {
            const ra_i64 g = sm.gbase[sm.digit[i]] + i;
            if (VB == 4 && (flags & RA_PRIM_SORT_VWIDE)) {
                ((ra_u64*)vout)[g] = (ra_u64)sm.buf.vals[i];
            } else {
                ((V*)vout)[g] = sm.buf.vals[i];
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// segment ids
// ---------------------------------------------------------------------------------------------

template <typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SORT_BLOCK)
ra_prim_radix_segment_ids(const ra_i64* RA_RESTRICT offsets, ra_i64 nseg, I* RA_RESTRICT ids, ra_i64 n) {
    for (ra_i64 i = ra_global_thread_id(); i < n; i += ra_grid_threads()) {
        // upper bound of i in offsets[0..nseg]
        ra_i64 lo = 0, hi = nseg + 1;
        while (lo < hi) {
            const ra_i64 mid = (lo + hi) >> 1;
            if (offsets[mid] <= i) lo = mid + 1; else hi = mid;
        }
        ids[i] = (I)lo;
    }
}
