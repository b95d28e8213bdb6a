// prim scan: inclusive / exclusive / segmented scans (add, mul, min, max) over batched rows, and a
// column-parallel scan for a strided axis.
//
// ra_prim_scan_rows: single-pass scan with decoupled look-back, after
//   D. Merrill and M. Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back",
//   NVIDIA Technical Report NVR-2016-002, 2016.
// The input is `rows` rows of `length` elements (row r starts at in + r * in_row_stride, elements
// are contiguous within a row); the output is C-contiguous (rows, length). Every row is cut into
// tiles of BLOCK * ITEMS elements; a block takes a dynamic tile id from an atomic counter (so a tile
// only ever waits on tiles whose blocks already run: forward progress without assumptions on the
// scheduler), maps it to (row, tile-in-row), scans its tile in registers and publishes a per-tile
// status: X (nothing yet), A (tile aggregate) or P (inclusive prefix of the row up to this tile).
// Tile 0 of a row publishes P at once. Warp 0 then looks back over the preceding tiles of its row,
// RA_WARP_SIZE at a time, until it meets a P, and folds the values it saw.
//
// Status words. For a 4-byte accumulator (float) the flag is packed with the value in one 64-bit
// word: [63:62] flag (1 = A, 2 = P), [61:32] epoch, [31:0] value bits; one 64-bit store publishes
// both, no fence is needed (the paper's scheme). Other accumulators (8 and 16 bytes) keep the value
// in separate aggregate / inclusive arrays and a 32-bit flag word epoch << 2 | flag: the value is
// stored, __threadfence(), then the flag; a reader that sees the flag fences before reading.
// The epoch is a per-workspace launch number from the host (1 .. 2^30 - 1): a word whose epoch is not
// this launch's reads as X, so the workspace needs no memset per launch (the host zeroes it when it
// is allocated and when the epoch wraps). The tile counter resets itself: the block that draws the
// last ticket stores 0 (every other ticket is drawn by then).
//
// Determinism: the look-back folds strictly left to right (P_j, then A_{j+1}, ..., A_{t-1}), so by
// induction every P_t is the left fold A_0 op A_1 op ... op A_t whichever P the look-back happened to
// meet; the in-tile scan order is fixed. Results are bitwise identical run to run (no float atomics).
// The look-back keeps at most RA_PRIM_LOOK_WINDOWS windows of values; past that it waits on the
// oldest window until a P appears there (always happens: those tiles' blocks are running).
//
// In-tile layout: warp w owns elements [w * WARP * ITEMS, (w + 1) * WARP * ITEMS) of the tile, in
// CHUNKS chunks of WARP * V elements; lane l owns V consecutive elements of each chunk (one 16-byte
// vector load when the tile is full and 16-byte aligned). Lanes scan their V elements serially,
// warps scan lane totals with shuffles, warp totals are folded through shared memory.
//
// ra_prim_scan_lines: one thread per line of a C-contiguous (outer, length, inner) array, scanning
// along the middle axis: consecutive threads read consecutive addresses (coalesced).

#define RA_PRIM_SCAN_BLOCK 256
#define RA_PRIM_LOOK_WINDOWS 8
#define RA_PRIM_LOOK_BATCH 2
// Byte offset of the tile status in the workspace; the ticket counter is the u32 at offset 0.
#define RA_PRIM_STATUS_OFFSET 256
#define RA_PRIM_FLAG_A 1u
#define RA_PRIM_FLAG_P 2u

// ---------------------------------------------------------------------------------------------
// operators, identities, conversions
// ---------------------------------------------------------------------------------------------

struct ra_prim_op_add {};
struct ra_prim_op_mul {};
struct ra_prim_op_min {};
struct ra_prim_op_max {};

template <typename T> RA_DEVICE bool ra_prim_isnan(T v) { return v != v; }
template <typename R> RA_DEVICE bool ra_prim_isnan(ra_complex<R> v) { return v.re != v.re || v.im != v.im; }

// Integer add/mul wrap like NumPy: signed 64-bit arithmetic goes through unsigned.
template <typename A> RA_DEVICE A ra_prim_apply(ra_prim_op_add, A a, A b) { return a + b; }
template <typename A> RA_DEVICE A ra_prim_apply(ra_prim_op_mul, A a, A b) { return a * b; }
RA_DEVICE ra_i64 ra_prim_apply(ra_prim_op_add, ra_i64 a, ra_i64 b) { return (ra_i64)((ra_u64)a + (ra_u64)b); }
RA_DEVICE ra_i64 ra_prim_apply(ra_prim_op_mul, ra_i64 a, ra_i64 b) { return (ra_i64)((ra_u64)a * (ra_u64)b); }
// min/max propagate NaN like numpy.minimum/maximum.
template <typename A> RA_DEVICE A ra_prim_apply(ra_prim_op_min, A a, A b) {
    return ra_prim_isnan(a) ? a : (ra_prim_isnan(b) ? b : (b < a ? b : a));
}
template <typename A> RA_DEVICE A ra_prim_apply(ra_prim_op_max, A a, A b) {
    return ra_prim_isnan(a) ? a : (ra_prim_isnan(b) ? b : (a < b ? b : a));
}

// Identities. Float add uses -0.0 (-0.0 + x == x for every x, signed zeros included).
template <typename Op, typename A> struct ra_prim_id;
template <typename A> struct ra_prim_id<ra_prim_op_add, A> { static RA_DEVICE A get() { return A(0); } };
template <> struct ra_prim_id<ra_prim_op_add, float> { static RA_DEVICE float get() { return -0.0f; } };
template <> struct ra_prim_id<ra_prim_op_add, double> { static RA_DEVICE double get() { return -0.0; } };
template <typename R> struct ra_prim_id<ra_prim_op_add, ra_complex<R> > {
    static RA_DEVICE ra_complex<R> get() { return ra_make_complex<R>(-R(0), -R(0)); }
};
template <typename A> struct ra_prim_id<ra_prim_op_mul, A> { static RA_DEVICE A get() { return A(1); } };
template <typename R> struct ra_prim_id<ra_prim_op_mul, ra_complex<R> > {
    static RA_DEVICE ra_complex<R> get() { return ra_make_complex<R>(R(1), R(0)); }
};
template <> struct ra_prim_id<ra_prim_op_min, float> { static RA_DEVICE float get() { return __int_as_float(0x7f800000); } };
template <> struct ra_prim_id<ra_prim_op_min, double> { static RA_DEVICE double get() { return __longlong_as_double(0x7ff0000000000000LL); } };
template <> struct ra_prim_id<ra_prim_op_min, ra_i64> { static RA_DEVICE ra_i64 get() { return (ra_i64)0x7fffffffffffffffLL; } };
template <> struct ra_prim_id<ra_prim_op_min, ra_u64> { static RA_DEVICE ra_u64 get() { return ~(ra_u64)0; } };
template <> struct ra_prim_id<ra_prim_op_max, float> { static RA_DEVICE float get() { return __int_as_float((int)0xff800000u); } };
template <> struct ra_prim_id<ra_prim_op_max, double> { static RA_DEVICE double get() { return __longlong_as_double((ra_i64)0xfff0000000000000ULL); } };
template <> struct ra_prim_id<ra_prim_op_max, ra_i64> { static RA_DEVICE ra_i64 get() { return -(ra_i64)0x7fffffffffffffffLL - 1; } };
template <> struct ra_prim_id<ra_prim_op_max, ra_u64> { static RA_DEVICE ra_u64 get() { return (ra_u64)0; } };

// Accumulation type of an output type (float16 accumulates in float32).
template <typename T> struct ra_prim_acc { typedef T type; };
template <> struct ra_prim_acc<ra_half> { typedef float type; };

template <typename A, typename T> struct ra_prim_cvt {
    static RA_DEVICE A in(T v) { return (A)v; }
    static RA_DEVICE T out(A v) { return (T)v; }
};
template <> struct ra_prim_cvt<float, ra_half> {
    static RA_DEVICE float in(ra_half v) { return ra_half_to_float(v); }
    static RA_DEVICE ra_half out(float v) { return ra_float_to_half(v); }
};
template <typename R> struct ra_prim_cvt<ra_complex<R>, ra_complex<R> > {
    static RA_DEVICE ra_complex<R> in(ra_complex<R> v) { return v; }
    static RA_DEVICE ra_complex<R> out(ra_complex<R> v) { return v; }
};

// Segmented scans carry a head flag next to the value:
// (fa, a) op (fb, b) = (fa | fb, fb ? b : a op b). Without SEG the flags are constant false.
template <bool SEG, typename Op, typename A>
RA_DEVICE A ra_prim_combine(Op op, bool& fa, A a, bool fb, A b) {
    if (SEG && fb) {
        fa = true;
        return b;
    }
    return ra_prim_apply(op, a, b);
}

// 16 bytes of consecutive elements.
template <typename T> struct alignas(16) ra_prim_pack {
    static constexpr int N = 16 / (int)sizeof(T);
    T v[N];
};

// Elements of TIn per 16-byte vector, and items per thread.
template <typename TIn> struct ra_prim_vec { static constexpr int V = (int)sizeof(TIn) >= 16 ? 1 : 16 / (int)sizeof(TIn); };
template <typename TIn, typename A> struct ra_prim_items {
    static constexpr int V = ra_prim_vec<TIn>::V;
    // 32 items for 4-byte accumulators: half the tiles of 16 items, so half the look-backs
    // (docs/performance/prim.md).
    static constexpr int TARGET = sizeof(A) >= 16 ? 8 : (sizeof(A) <= 4 ? 32 : 16);
    static constexpr int ITEMS = V > TARGET ? V : TARGET;
    static constexpr int CHUNKS = ITEMS / V;
};

// Volatile word-wise copies for values exchanged between blocks.
template <typename A> RA_DEVICE void ra_prim_vstore(A* p, A v) {
    const ra_u32* s = (const ra_u32*)&v;
    volatile ra_u32* d = (volatile ra_u32*)p;
#pragma unroll
    for (int k = 0; k < (int)(sizeof(A) / 4); ++k) d[k] = s[k];
}
template <typename A> RA_DEVICE A ra_prim_vload(const A* p) {
    A v;
    ra_u32* d = (ra_u32*)&v;
    const volatile ra_u32* s = (const volatile ra_u32*)p;
#pragma unroll
    for (int k = 0; k < (int)(sizeof(A) / 4); ++k) d[k] = s[k];
    return v;
}

// Tile status of one launch: packed 64-bit words for 4-byte accumulators, else flag + values.
template <typename A, bool PACKED = (sizeof(A) == 4)> struct ra_prim_status;

template <typename A> struct ra_prim_status<A, true> {
    volatile ra_u64* words;
    ra_u32 epoch;
    RA_DEVICE void init(unsigned char* ws, ra_u32 capacity, ra_u32 ep) {
        words = (volatile ra_u64*)(ws + RA_PRIM_STATUS_OFFSET);
        epoch = ep;
    }
    RA_DEVICE void publish(ra_u32 tile, ra_u32 flag, A v) {
        ra_u32 bits = *(const ra_u32*)&v;
        words[tile] = ((ra_u64)flag << 62) | ((ra_u64)epoch << 32) | (ra_u64)bits;
        ra_threadfence();
    }
    // Flag (0 = X) and value.
    RA_DEVICE ra_u32 read(ra_u32 tile, A& v) {
        const ra_u64 w = words[tile];
        ra_u32 bits = (ra_u32)w;
        v = *(const A*)&bits;
        return (((ra_u32)(w >> 32)) & 0x3fffffffu) == epoch ? (ra_u32)(w >> 62) : 0u;
    }
};

template <typename A> struct ra_prim_status<A, false> {
    volatile ra_u32* flags;
    A* agg;
    A* incl;
    ra_u32 epoch;
    RA_DEVICE void init(unsigned char* ws, ra_u32 capacity, ra_u32 ep) {
        // Packed words (8 bytes per tile) come first: the flags never overlap a packed word.
        unsigned char* p = ws + RA_PRIM_STATUS_OFFSET + (ra_u64)capacity * 8;
        flags = (volatile ra_u32*)p;
        p += (((ra_u64)capacity * 4 + 15) / 16) * 16;
        agg = (A*)p;
        incl = agg + capacity;
        epoch = ep;
    }
    RA_DEVICE void publish(ra_u32 tile, ra_u32 flag, A v) {
        ra_prim_vstore(flag == RA_PRIM_FLAG_P ? incl + tile : agg + tile, v);
        ra_threadfence();
        flags[tile] = (epoch << 2) | flag;
        ra_threadfence();
    }
    RA_DEVICE ra_u32 read(ra_u32 tile, A& v) {
        const ra_u32 f = flags[tile];
        if ((f >> 2) != epoch) return 0u;
        ra_threadfence();
        v = ra_prim_vload((f & 3u) == RA_PRIM_FLAG_P ? incl + tile : agg + tile);
        return f & 3u;
    }
};

// ---------------------------------------------------------------------------------------------
// row scan with decoupled look-back
// ---------------------------------------------------------------------------------------------

// Shared memory of one block.
template <typename A> struct ra_prim_scan_smem {
    A warp_total[RA_PRIM_SCAN_BLOCK / RA_WARP_SIZE];
    bool warp_flag[RA_PRIM_SCAN_BLOCK / RA_WARP_SIZE];
    A look[RA_PRIM_LOOK_WINDOWS][RA_WARP_SIZE];
    A tile_prefix;
    ra_u32 tile;
};

// Thread 0's tile: tickets are handed out in the order blocks start (so a tile only ever waits on
// tiles whose blocks already run); the block that draws the last one resets the counter for the
// next launch (every other ticket is drawn by then).
RA_DEVICE ra_u32 ra_prim_draw_tile(unsigned char* ws, ra_u32 ntiles) {
    unsigned int* counter = (unsigned int*)ws;
    const ra_u32 t = ra_atomic_inc_u32(counter);
    if (t == ntiles - 1) *(volatile unsigned int*)counter = 0u;
    return t;
}

// Warp `warp`'s exclusive prefix and the tile aggregate: fixed left folds over the warp totals in
// shared memory (after the barrier that follows their stores).
template <bool SEG, typename Op, typename A>
RA_DEVICE void ra_prim_fold_warps(const ra_prim_scan_smem<A>& sm, int warp, A& warp_prefix, bool& warp_prefix_f,
                                  A& agg, bool& agg_f) {
    const Op op = Op();
    warp_prefix = agg = ra_prim_id<Op, A>::get();
    warp_prefix_f = agg_f = false;
#pragma unroll
    for (int w = 0; w < RA_PRIM_SCAN_BLOCK / RA_WARP_SIZE; ++w) {
        if (w == warp) {
            warp_prefix = agg;
            warp_prefix_f = agg_f;
        }
        agg = ra_prim_combine<SEG>(op, agg_f, agg, sm.warp_flag[w], sm.warp_total[w]);
    }
}

// Decoupled look-back of tile g (tile tr of its row), by one whole warp, in two steps.
// ra_prim_publish_aggregate (once the tile's aggregate agg is known): publishes A (P for a row's
// first tile, and with SEG for a tile holding a segment head). ra_prim_look_back_walk: reads the
// predecessors' status RA_PRIM_LOOK_BATCH windows of RA_WARP_SIZE words per round (lane l reads
// tiles g - 1 - l - RA_WARP_SIZE * j: independent loads, so a walk over k tiles takes about
// k / (RA_WARP_SIZE * RA_PRIM_LOOK_BATCH) dependent round trips), until every tile after the
// nearest P has published, folds their values strictly left to right from that P and leaves the
// tile's exclusive prefix in sm.tile_prefix (the identity for a row's first tile; also returned in
// lane 0). ra_prim_publish_prefix then publishes P = prefix op agg.
// The wait is mostly for predecessors still loading; two windows per round take fewer rounds than
// one and fewer registers than four or eight (docs/performance/prim.md).
template <typename A, bool SEG>
RA_DEVICE void ra_prim_publish_aggregate(unsigned char* ws, ra_u32 capacity, ra_u32 epoch, ra_u32 g, ra_u32 tr,
                                         A agg, bool agg_f) {
    if (ra_lane_id() != 0) return;
    ra_prim_status<A> st;
    st.init(ws, capacity, epoch);
    st.publish(g, (tr == 0 || (SEG && agg_f)) ? RA_PRIM_FLAG_P : RA_PRIM_FLAG_A, agg);
}

template <typename A, typename Op>
RA_DEVICE A ra_prim_look_back_walk(ra_prim_scan_smem<A>& sm, unsigned char* ws, ra_u32 capacity, ra_u32 epoch,
                                   ra_u32 g, ra_u32 tr) {
    constexpr int B = RA_PRIM_LOOK_BATCH;
    static_assert(RA_PRIM_LOOK_WINDOWS % B == 0, "the look-back windows are a whole number of batches");
    const Op op = Op();
    const A ident = ra_prim_id<Op, A>::get();
    const int lane = ra_lane_id();
    A prefix = ident;
    if (tr != 0) {
        ra_prim_status<A> st;
        st.init(ws, capacity, epoch);
        const ra_i64 first = (ra_i64)g - (ra_i64)tr;  // tile 0 of this row (always P)
        ra_i64 base = (ra_i64)g - 1;
        int w = 0;      // windows kept in sm.look before this batch
        int found = B;  // window of the batch holding the nearest P (B: none)
        int nearest = RA_WARP_SIZE;
        for (;;) {
            A v[B];
            const bool last = w + B >= RA_PRIM_LOOK_WINDOWS;
            for (;;) {
                ra_lane_mask pm[B], xm[B];
#pragma unroll
                for (int j = 0; j < B; ++j) {
                    const ra_i64 t = base - lane - (ra_i64)RA_WARP_SIZE * j;
                    v[j] = ident;
                    const ra_u32 f = t >= first ? st.read((ra_u32)t, v[j]) : RA_PRIM_FLAG_P;
                    pm[j] = ra_ballot(f == RA_PRIM_FLAG_P);
                    xm[j] = ra_ballot(f == 0u);
                }
                // The nearest P of the batch; every tile between it and g must have published.
                found = B;
                bool unpublished = false;
#pragma unroll
                for (int j = 0; j < B; ++j) {
                    if (found == B) {
                        if (pm[j]) {
                            found = j;
                            nearest = ra_popc64((pm[j] & (~pm[j] + 1)) - 1);
                            const ra_lane_mask below =
                                nearest >= 63 ? ~(ra_lane_mask)0 : (((ra_lane_mask)1 << (nearest + 1)) - 1);
                            unpublished = unpublished || (xm[j] & below) != 0;
                        } else {
                            unpublished = unpublished || xm[j] != 0;
                        }
                    }
                }
                // On the last batch kept, wait for a P (it comes: those tiles' blocks are running).
                if (!unpublished && (found < B || !last)) break;
            }
#pragma unroll
            for (int j = 0; j < B; ++j)
                if (j <= found) sm.look[w + j][lane] = v[j];
            if (found < B) {
                w += found;
                break;
            }
            w += B;
            base -= (ra_i64)RA_WARP_SIZE * B;
        }
        ra_warp_sync();
        if (lane == 0) {
            // Strict left fold from the nearest P forward, in tile order.
            A acc = sm.look[w][nearest];
#pragma unroll
            for (int l = RA_WARP_SIZE - 1; l >= 0; --l)
                if (l < nearest) acc = ra_prim_apply(op, acc, sm.look[w][l]);
            for (int k = w - 1; k >= 0; --k) {
#pragma unroll
                for (int l = RA_WARP_SIZE - 1; l >= 0; --l) acc = ra_prim_apply(op, acc, sm.look[k][l]);
            }
            prefix = acc;
        }
    }
    if (lane == 0) sm.tile_prefix = prefix;
    return prefix;
}

// The tile's inclusive prefix P = prefix op agg (lane 0; a row's first tile published P already).
template <typename A, typename Op>
RA_DEVICE void ra_prim_publish_prefix(unsigned char* ws, ra_u32 capacity, ra_u32 epoch, ra_u32 g, ra_u32 tr,
                                      A prefix, A agg) {
    if (ra_lane_id() != 0 || tr == 0) return;
    ra_prim_status<A> st;
    st.init(ws, capacity, epoch);
    st.publish(g, RA_PRIM_FLAG_P, ra_prim_apply(Op(), prefix, agg));
}

// The whole look-back by one warp after the aggregate: A, the walk, P.
template <typename A, typename Op, bool SEG>
RA_DEVICE void ra_prim_look_back(ra_prim_scan_smem<A>& sm, unsigned char* ws, ra_u32 capacity, ra_u32 epoch,
                                 ra_u32 g, ra_u32 tr, A agg, bool agg_f) {
    ra_prim_publish_aggregate<A, SEG>(ws, capacity, epoch, g, tr, agg, agg_f);
    const A prefix = ra_prim_look_back_walk<A, Op>(sm, ws, capacity, epoch, g, tr);
    if (!(SEG && agg_f)) ra_prim_publish_prefix<A, Op>(ws, capacity, epoch, g, tr, prefix, agg);
}

// The V converted values y of lane part e0 to global memory: 16-byte vectors when `vec` (a full,
// aligned tile), else the valid ones one by one. I: the index type (the staged kernel's in-tile
// offsets are int, which spares it registers).
template <typename TOut, int V, typename I>
RA_DEVICE void ra_prim_store_part(TOut* RA_RESTRICT dst, I e0, I valid, bool vec, const TOut (&y)[V]) {
    if (vec) {
        constexpr int PN = ra_prim_pack<TOut>::N;
#pragma unroll
        for (int q = 0; q < (V + PN - 1) / PN; ++q) {
            ra_prim_pack<TOut> p;
#pragma unroll
            for (int k = 0; k < PN; ++k) p.v[k] = y[(q * PN + k) < V ? q * PN + k : 0];
            *(ra_prim_pack<TOut>*)(dst + e0 + q * PN) = p;
        }
    } else {
#pragma unroll
        for (int j = 0; j < V; ++j)
            if (e0 + j < valid) dst[e0 + j] = y[j];
    }
}

template <typename TIn, typename TOut, typename Op, bool SEG>
RA_DEVICE void ra_prim_scan_rows_impl(const TIn* RA_RESTRICT in, ra_i64 in_row_stride, const bool* RA_RESTRICT heads,
                                      TOut* RA_RESTRICT out, ra_i64 rows, ra_i64 length, ra_u32 tiles_per_row,
                                      unsigned char* ws, ra_u32 capacity, ra_u32 epoch, int exclusive,
                                      int nan_as_identity) {
    typedef typename ra_prim_acc<TOut>::type A;
    typedef ra_prim_cvt<A, TIn> CIn;
    typedef ra_prim_cvt<A, TOut> COut;
    typedef ra_prim_items<TIn, A> I;
    constexpr int V = I::V;
    constexpr int ITEMS = I::ITEMS;
    constexpr int CHUNKS = I::CHUNKS;
    constexpr ra_i64 TILE = (ra_i64)RA_PRIM_SCAN_BLOCK * ITEMS;
    const Op op = Op();
    const A ident = ra_prim_id<Op, A>::get();

    __shared__ ra_prim_scan_smem<A> sm;
    const int lane = ra_lane_id();
    const int warp = ra_warp_id();

    // Dynamic tile id: tiles are handed out in the order blocks start.
    if (threadIdx.x == 0) sm.tile = ra_prim_draw_tile(ws, (ra_u32)(rows * (ra_i64)tiles_per_row));
    ra_syncthreads();
    const ra_u32 g = sm.tile;
    const ra_i64 row = (ra_i64)(g / tiles_per_row);
    const ra_u32 tr = g - (ra_u32)row * tiles_per_row;
    const ra_i64 tile_start = (ra_i64)tr * TILE;
    const TIn* src = in + row * in_row_stride + tile_start;
    TOut* dst = out + row * length + tile_start;
    const bool* hsrc = SEG ? heads + row * length + tile_start : heads;
    const ra_i64 valid = length - tile_start < TILE ? length - tile_start : TILE;
    const bool full = valid == TILE;
    const ra_i64 warp_base = (ra_i64)warp * RA_WARP_SIZE * ITEMS;

    // Load and scan each lane's V elements per chunk.
    A loc[ITEMS];
    bool locf[ITEMS];
    const bool vec_in = full && ((((ra_u64)src) & 15u) == 0);
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
        const ra_i64 e0 = warp_base + (ra_i64)c * RA_WARP_SIZE * V + (ra_i64)lane * V;
        TIn x[V];
        if (vec_in) {
            const ra_prim_pack<TIn> p = *(const ra_prim_pack<TIn>*)(src + e0);
#pragma unroll
            for (int j = 0; j < V; ++j) x[j] = p.v[j];
        } else {
#pragma unroll
            for (int j = 0; j < V; ++j) {
                if (e0 + j < valid) x[j] = src[e0 + j];
            }
        }
#pragma unroll
        for (int j = 0; j < V; ++j) {
            const bool ok = e0 + j < valid;
            A a = ok ? CIn::in(x[j]) : ident;
            if (nan_as_identity && ra_prim_isnan(a)) a = ident;
            loc[c * V + j] = a;
            locf[c * V + j] = SEG && ok ? hsrc[e0 + j] : false;
        }
    }
    // Serial scan inside each lane's V elements; lane totals.
    A lane_total[CHUNKS];
    bool lane_flag[CHUNKS];
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
        bool f = false;
        A run = ident;
#pragma unroll
        for (int j = 0; j < V; ++j) {
            const A before = run;
            const bool fbefore = f;
            run = ra_prim_combine<SEG>(op, f, run, locf[c * V + j], loc[c * V + j]);
            // Exclusive scans (never segmented) keep the value before the element.
            loc[c * V + j] = exclusive ? before : run;
            locf[c * V + j] = exclusive ? fbefore : f;
        }
        lane_total[c] = run;
        lane_flag[c] = f;
    }
    // Warp scans of lane totals, chunk after chunk; lane_total becomes the lane's exclusive prefix
    // within the warp.
    A carry = ident;
    bool carry_f = false;
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
        A v = lane_total[c];
        bool f = lane_flag[c];
#pragma unroll
        for (int d = 1; d < RA_WARP_SIZE; d <<= 1) {
            const A up = ra_shfl_up(v, (unsigned)d);
            const bool upf = SEG ? ra_shfl_up((int)f, (unsigned)d) != 0 : false;
            if (lane >= d) {
                bool nf = upf;
                v = ra_prim_combine<SEG>(op, nf, up, f, v);
                f = nf;
            }
        }
        A ex = ra_shfl_up(v, 1u);
        bool exf = SEG ? ra_shfl_up((int)f, 1u) != 0 : false;
        if (lane == 0) {
            ex = ident;
            exf = false;
        }
        const A total = ra_shfl(v, RA_WARP_SIZE - 1);
        const bool totalf = SEG ? ra_shfl((int)f, RA_WARP_SIZE - 1) != 0 : false;
        bool pf = carry_f;
        lane_total[c] = ra_prim_combine<SEG>(op, pf, carry, exf, ex);
        lane_flag[c] = pf;
        carry = ra_prim_combine<SEG>(op, carry_f, carry, totalf, total);
    }
    if (lane == 0) {
        sm.warp_total[warp] = carry;
        sm.warp_flag[warp] = carry_f;
    }
    ra_syncthreads();
    A warp_prefix, agg;
    bool warp_prefix_f, agg_f;
    ra_prim_fold_warps<SEG, Op>(sm, warp, warp_prefix, warp_prefix_f, agg, agg_f);

    // Decoupled look-back (warp 0).
    if (warp == 0) ra_prim_look_back<A, Op, SEG>(sm, ws, capacity, epoch, g, tr, agg, agg_f);
    ra_syncthreads();
    const A tile_prefix = sm.tile_prefix;

    // Element values: tile prefix, warp prefix, lane prefix, in-lane scan.
    bool pf = false;
    const A block_prefix = ra_prim_combine<SEG>(op, pf, tile_prefix, warp_prefix_f, warp_prefix);
    const bool vec_out = full && ((((ra_u64)dst) & 15u) == 0) && ((V * sizeof(TOut)) % 16 == 0);
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
        const ra_i64 e0 = warp_base + (ra_i64)c * RA_WARP_SIZE * V + (ra_i64)lane * V;
        bool cf = pf;
        const A chunk_prefix = ra_prim_combine<SEG>(op, cf, block_prefix, lane_flag[c], lane_total[c]);
        TOut y[V];
#pragma unroll
        for (int j = 0; j < V; ++j) {
            bool ef = cf;
            y[j] = COut::out(ra_prim_combine<SEG>(op, ef, chunk_prefix, locf[c * V + j], loc[c * V + j]));
        }
        ra_prim_store_part<TOut, V, ra_i64>(dst, e0, valid, vec_out, y);
    }
}

// Grid: rows * tiles_per_row blocks of RA_PRIM_SCAN_BLOCK threads.
template <typename TIn, typename TOut, typename Op>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SCAN_BLOCK)
ra_prim_scan_rows(const TIn* in, ra_i64 in_row_stride, TOut* out, ra_i64 rows, ra_i64 length,
                  ra_u32 tiles_per_row, unsigned char* ws, ra_u32 capacity, ra_u32 epoch, int exclusive,
                  int nan_as_identity) {
    ra_prim_scan_rows_impl<TIn, TOut, Op, false>(in, in_row_stride, (const bool*)0, out, rows, length,
                                                  tiles_per_row, ws, capacity, epoch, exclusive,
                                                  nan_as_identity);
}

// Segmented inclusive scan: heads is a C-contiguous (rows, length) bool array; a true head starts a
// new segment at that element (element 0 of every row always does).
template <typename TIn, typename TOut, typename Op>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SCAN_BLOCK)
ra_prim_scan_rows_seg(const TIn* in, ra_i64 in_row_stride, const bool* heads, TOut* out, ra_i64 rows,
                      ra_i64 length, ra_u32 tiles_per_row, unsigned char* ws, ra_u32 capacity,
                      ra_u32 epoch, int nan_as_identity) {
    ra_prim_scan_rows_impl<TIn, TOut, Op, true>(in, in_row_stride, heads, out, rows, length,
                                                 tiles_per_row, ws, capacity, epoch, 0, nan_as_identity);
}

// ---------------------------------------------------------------------------------------------
// row scan with the tile staged in shared memory
// ---------------------------------------------------------------------------------------------
// ra_prim_scan_rows_staged: the scan of ra_prim_scan_rows (same tickets, status words, look-back,
// launch arguments and determinism; not segmented) with the tile of ra_prim_stage_plan::BYTES
// input bytes in shared memory rather than in registers. A block holding its tile in registers
// needs 64 of them per thread, so only 4 tiles of 32 KiB fit on a multiprocessor, and while a
// block waits for its look-back or scans, none of its memory traffic is in flight, which bounds
// the register kernel's bandwidth. Here a thread keeps one 16-byte vector at a time, the resident
// tiles are bounded by shared memory (four of 52 KiB or five of 40 KiB), and on sm_90 one thread
// moves the tile with the bulk copy engine (no registers at all), so the loads of the other
// resident tiles stay in flight while a block waits. The look-back's wait, mostly for
// predecessors whose tiles are still loading, is what separates this kernel from a copy
// (docs/performance/prim.md).
//
// Per tile: thread 0 draws the ticket and starts the bulk copy of the tile's 16-byte aligned head
// (sm_90; elsewhere, or for an unaligned row, the threads copy it); the threads copy the tail.
// Sweep 1 reads the tile from shared memory and reduces it (lane, then warp, then the fixed fold
// of the warp totals); warp 0 looks back; sweep 2 reads the tile again, scans it chunk by chunk
// (lane, warp shuffles) from the tile prefix and stores 16-byte vectors. The aggregate of sweep 1
// and the values of sweep 2 are each computed in one fixed order: results are bitwise identical
// run to run.
//
// In-tile layout as in the register kernel: warp w owns elements [w * TILE / WARPS, (w + 1) *
// TILE / WARPS) in CHUNKS chunks of RA_WARP_SIZE * V elements, lane l the V consecutive elements
// l * V .. l * V + V - 1 of each chunk (16 bytes: conflict-free shared-memory reads).

// Tile bytes and the resident blocks the staged kernel is built for. NVIDIA: registers capped at
// 65536 / (BLOCKS * 256); a tile of BYTES plus the block's 1 KiB reserve and its static shared
// memory fits BLOCKS times in the 228 KiB of an sm_90 multiprocessor. 52 KiB x 4 where input and
// result elements have one width of at most 8 bytes, 40 KiB x 5 for the rest (widening integer
// sums; complex128, whose 4 KiB of static look-back windows would leave room for three 52 KiB
// tiles). A lower register cap spills; without a cap the compiler takes enough registers to leave
// two blocks resident (docs/performance/prim.md has the sizes compared).
// (HIP reads the second launch bound as waves per SIMD; the host launches this kernel on NVIDIA.)
#define RA_PRIM_STAGE_BYTES_WIDE 53248
#define RA_PRIM_STAGE_BYTES_NARROW 40960

template <typename TIn, typename TOut> struct ra_prim_stage_plan {
    static constexpr bool WIDE = sizeof(TIn) == sizeof(TOut) && sizeof(TIn) <= 8;
    static constexpr int BYTES = WIDE ? RA_PRIM_STAGE_BYTES_WIDE : RA_PRIM_STAGE_BYTES_NARROW;
    static constexpr int BLOCKS = WIDE ? 4 : 5;
    static constexpr int TILE = BYTES / (int)sizeof(TIn);
};

// The stage is dynamic shared memory (past the 48 KiB static limit): the host launches with
// BYTES + RA_PRIM_STAGE_ALIGN of it and the kernel starts the stage at the first 128-byte
// boundary (ra_align_shared). The bulk copy needs 16 bytes; the dynamic region begins right
// after the static shared memory, whose size differs per instantiation, and a stage that begins
// off a 128-byte line runs slower (docs/performance/prim.md).
#define RA_PRIM_STAGE_ALIGN 128

// Copy elements [begin, valid) of a tile from global to shared memory with the block's threads:
// 16-byte vectors where the source allows (begin, src and the stage all 16-byte aligned), else
// element by element. In-tile offsets are int and the loops stay rolled: the 64-bit, unrolled
// form spilled registers under a five-block cap (sm_90, ptxas -v).
template <typename TIn>
RA_DEVICE void ra_prim_stage_copy(TIn* stage, const TIn* RA_RESTRICT src, int begin, int valid) {
    constexpr int V = ra_prim_vec<TIn>::V;
    int i = begin;
    if (((((ra_u64)(src + begin)) & 15u) == 0)) {
        const int vecs = (valid - begin) / V;
#pragma unroll 1
        for (int k = threadIdx.x; k < vecs; k += RA_PRIM_SCAN_BLOCK)
            *(ra_prim_pack<TIn>*)(stage + begin + k * V) = *(const ra_prim_pack<TIn>*)(src + begin + k * V);
        i = begin + vecs * V;
    }
#pragma unroll 1
    for (int k = i + threadIdx.x; k < valid; k += RA_PRIM_SCAN_BLOCK) stage[k] = src[k];
}

// Where staged tile g lies: its row, its place tr in the row, its first element and its element
// count (TILE but for a row's last tile).
template <int TILE>
RA_DEVICE void ra_prim_staged_tile(ra_u32 g, ra_u32 tiles_per_row, ra_i64 length, ra_i64& row, ra_u32& tr,
                                   ra_i64& start, int& valid) {
    row = (ra_i64)(g / tiles_per_row);
    tr = g - (ra_u32)row * tiles_per_row;
    start = (ra_i64)tr * TILE;
    valid = (int)(length - start < TILE ? length - start : TILE);
}

// Thread 0 starts the bulk copy of the 16-byte aligned head of the `valid` elements at src into
// `stage`, completing on the (initialized) barrier `bar`; returns the elements it moves (0: none,
// the threads copy the whole tile). Only sm_90 and later have the copy engine.
template <typename TIn>
RA_DEVICE int ra_prim_stage_issue(TIn* stage, ra_u64* bar, const TIn* src, int valid) {
#if defined(RA_BULK_COPY)
    const int bytes = (valid * (int)sizeof(TIn)) & ~15;
    if (((((ra_u64)src) & 15u) == 0) && bytes > 0) {
        const unsigned b = ra_shared_address(bar);
        ra_mbar_expect_tx(b, (unsigned)bytes);
        ra_bulk_load(ra_shared_address(stage), src, (unsigned)bytes, b);
        return bytes / (int)sizeof(TIn);
    }
#endif
    return 0;
}

// Elements [valid, TILE) of a partial tile (the last of its row) set to the identity, so that every
// read is a whole vector. The padding changes no stored value: it follows every valid element of
// the row, and the last tile's aggregate is read by no other tile.
template <typename TIn, typename A, typename Op, int TILE>
RA_DEVICE void ra_prim_stage_pad(TIn* stage, int valid) {
    const TIn v = ra_prim_cvt<A, TIn>::out(ra_prim_id<Op, A>::get());
    for (int k = valid + threadIdx.x; k < TILE; k += RA_PRIM_SCAN_BLOCK) stage[k] = v;
}

// NaNs among the first `valid` staged elements replaced by the identity (nancumsum): one pass over
// shared memory ahead of the sweeps, which then read plain values (a test per read in both sweeps
// cost registers under a five-block cap).
template <typename TIn, typename A, typename Op>
RA_DEVICE void ra_prim_stage_scrub_nan(TIn* stage, int valid) {
    const TIn v = ra_prim_cvt<A, TIn>::out(ra_prim_id<Op, A>::get());
#pragma unroll 1
    for (int k = threadIdx.x; k < valid; k += RA_PRIM_SCAN_BLOCK)
        if (ra_prim_isnan(stage[k])) stage[k] = v;
}

// The V values of the lane part at e0 (one 16-byte vector), as accumulators.
template <typename TIn, typename A>
RA_DEVICE void ra_prim_stage_read(const TIn* stage, int e0, A (&a)[ra_prim_vec<TIn>::V]) {
    constexpr int V = ra_prim_vec<TIn>::V;
    typedef ra_prim_cvt<A, TIn> CIn;
    const ra_prim_pack<TIn> p = *(const ra_prim_pack<TIn>*)(stage + e0);
#pragma unroll
    for (int j = 0; j < V; ++j) a[j] = CIn::in(p.v[j]);
}

// One chunk of a lane: its V values a[] (in element order) become their inclusive scan (exclusive:
// the value before each element) within the warp's chunk, starting from `carry`; carry then moves
// past the whole chunk (RA_WARP_SIZE * V elements). Warp-wide: every lane calls it.
template <typename A, typename Op, int V>
RA_DEVICE void ra_prim_chunk_scan(A (&a)[V], A& carry, int exclusive) {
    const Op op = Op();
    const A ident = ra_prim_id<Op, A>::get();
    const int lane = ra_lane_id();
    A run = ident;
#pragma unroll
    for (int j = 0; j < V; ++j) {
        const A before = run;
        run = ra_prim_apply(op, run, a[j]);
        a[j] = exclusive ? before : run;
    }
    A incl = run;
#pragma unroll
    for (int d = 1; d < RA_WARP_SIZE; d <<= 1) {
        const A up = ra_shfl_up(incl, (unsigned)d);
        if (lane >= d) incl = ra_prim_apply(op, up, incl);
    }
    A ex = ra_shfl_up(incl, 1u);
    if (lane == 0) ex = ident;
    const A base = ra_prim_apply(op, carry, ex);
    carry = ra_prim_apply(op, carry, ra_shfl(incl, RA_WARP_SIZE - 1));
#pragma unroll
    for (int j = 0; j < V; ++j) a[j] = ra_prim_apply(op, base, a[j]);
}

// One tile in shared memory (a partial one padded, see ra_prim_stage_pad): sweep 1 reduces the
// tile (lane, warp, then the fixed fold of the warp totals); warp 0 publishes the aggregate, walks
// back and publishes P; sweep 2 scans chunk by chunk from the tile and warp prefixes.
// The aggregate and the values are each computed in one fixed order: bitwise identical run to run.
template <typename TIn, typename TOut, typename Op>
RA_DEVICE void ra_prim_stage_scan(const TIn* stage, ra_prim_scan_smem<typename ra_prim_acc<TOut>::type>& sm,
                                  TOut* RA_RESTRICT dst, int valid, unsigned char* ws, ra_u32 capacity,
                                  ra_u32 epoch, ra_u32 g, ra_u32 tr, int exclusive) {
    typedef typename ra_prim_acc<TOut>::type A;
    typedef ra_prim_cvt<A, TOut> COut;
    constexpr int V = ra_prim_vec<TIn>::V;
    constexpr int TILE = ra_prim_stage_plan<TIn, TOut>::TILE;
    constexpr int WARPS = RA_PRIM_SCAN_BLOCK / RA_WARP_SIZE;
    constexpr int CHUNKS = TILE / (RA_PRIM_SCAN_BLOCK * V);
    static_assert(CHUNKS * RA_PRIM_SCAN_BLOCK * V == TILE, "a staged tile is a whole number of chunks");
    const Op op = Op();
    const A ident = ra_prim_id<Op, A>::get();
    const int lane = ra_lane_id();
    const int warp = ra_warp_id();
    const int warp_base = warp * (TILE / WARPS) + lane * V;

    // Sweep 1: the warp's total.
    A lane_sum = ident;
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
        A a[V];
        ra_prim_stage_read<TIn, A>(stage, warp_base + c * RA_WARP_SIZE * V, a);
#pragma unroll
        for (int j = 0; j < V; ++j) lane_sum = ra_prim_apply(op, lane_sum, a[j]);
    }
#pragma unroll
    for (int m = RA_WARP_SIZE / 2; m > 0; m >>= 1) lane_sum = ra_prim_apply(op, lane_sum, ra_shfl_xor(lane_sum, m));
    if (lane == 0) {
        sm.warp_total[warp] = lane_sum;
        sm.warp_flag[warp] = false;
    }
    ra_syncthreads();
    A warp_prefix, agg;
    bool warp_prefix_f, agg_f;
    ra_prim_fold_warps<false, Op>(sm, warp, warp_prefix, warp_prefix_f, agg, agg_f);
    if (warp == 0) ra_prim_look_back<A, Op, false>(sm, ws, capacity, epoch, g, tr, agg, agg_f);
    ra_syncthreads();
    const A tile_prefix = sm.tile_prefix;

    // Sweep 2: chunk by chunk from the tile and warp prefixes.
    A carry = ra_prim_apply(op, tile_prefix, warp_prefix);
    const bool vec_out = valid == TILE && ((((ra_u64)dst) & 15u) == 0) && ((V * sizeof(TOut)) % 16 == 0);
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
        const int e0 = warp_base + c * RA_WARP_SIZE * V;
        A a[V];
        ra_prim_stage_read<TIn, A>(stage, e0, a);
        ra_prim_chunk_scan<A, Op, V>(a, carry, exclusive);
        TOut y[V];
#pragma unroll
        for (int j = 0; j < V; ++j) y[j] = COut::out(a[j]);
        ra_prim_store_part<TOut, V, int>(dst, e0, valid, vec_out, y);
    }
}

// Grid: rows * tiles_per_row blocks of RA_PRIM_SCAN_BLOCK threads; tiles_per_row counts tiles of
// ra_prim_stage_plan::TILE elements; ra_prim_stage_plan::BYTES + RA_PRIM_STAGE_ALIGN bytes of dynamic
// shared memory.
template <typename TIn, typename TOut, typename Op>
__global__ void __launch_bounds__(RA_PRIM_SCAN_BLOCK, (ra_prim_stage_plan<TIn, TOut>::BLOCKS))
ra_prim_scan_rows_staged(const TIn* in, ra_i64 in_row_stride, TOut* out, ra_i64 rows, ra_i64 length,
                         ra_u32 tiles_per_row, unsigned char* ws, ra_u32 capacity, ra_u32 epoch, int exclusive,
                         int nan_as_identity) {
    typedef typename ra_prim_acc<TOut>::type A;
    constexpr int TILE = ra_prim_stage_plan<TIn, TOut>::TILE;
    extern __shared__ unsigned char ra_prim_stage_smem[];
    TIn* const stage = reinterpret_cast<TIn*>(ra_align_shared<RA_PRIM_STAGE_ALIGN>(ra_prim_stage_smem));
    __shared__ ra_prim_scan_smem<A> sm;
    __shared__ ra_u64 stage_bar;
    __shared__ int stage_head;

    ra_i64 row, start;
    int valid;
    ra_u32 tr;
    if (threadIdx.x == 0) {
        const ra_u32 g = ra_prim_draw_tile(ws, (ra_u32)(rows * (ra_i64)tiles_per_row));
        sm.tile = g;
#if defined(RA_BULK_COPY)
        ra_mbar_init(ra_shared_address(&stage_bar), 1u);
        ra_mbar_init_fence();
#endif
        ra_prim_staged_tile<TILE>(g, tiles_per_row, length, row, tr, start, valid);
        stage_head = ra_prim_stage_issue<TIn>(stage, &stage_bar, in + row * in_row_stride + start, valid);
    }
    ra_syncthreads();
    const ra_u32 g = sm.tile;
    ra_prim_staged_tile<TILE>(g, tiles_per_row, length, row, tr, start, valid);
    const int head = stage_head;
    ra_prim_stage_copy<TIn>(stage, in + row * in_row_stride + start, head, valid);
    if (valid < TILE) ra_prim_stage_pad<TIn, A, Op, TILE>(stage, valid);
#if defined(RA_BULK_COPY)
    if (head > 0) ra_mbar_wait(ra_shared_address(&stage_bar), 0u);
#endif
    ra_syncthreads();
    if (nan_as_identity) {
        ra_prim_stage_scrub_nan<TIn, A, Op>(stage, valid);
        ra_syncthreads();
    }
    ra_prim_stage_scan<TIn, TOut, Op>(stage, sm, out + row * length + start, valid, ws, capacity, epoch, g, tr,
                                      exclusive);
}

// ---------------------------------------------------------------------------------------------
// column-parallel scan along the middle axis of a C-contiguous (outer, length, inner) array
// ---------------------------------------------------------------------------------------------
// A line is one (o, i) pair: elements base + k * inner, base = o * length * inner + i. When there
// are too few lines to fill the device, every line is cut into `segs` segments of seg_len elements
// and scanned in two passes: ra_prim_scan_lines_totals writes each segment's total to
// totals[s * lines + line]; ra_prim_scan_lines then starts segment s from the left fold of the
// totals of segments 0 .. s-1 (a fixed order: deterministic). Thread g handles line g % lines and
// segment g / lines, so consecutive threads read consecutive lines (coalesced when inner > 1).

#define RA_PRIM_LINES_UNROLL 4

template <typename TIn, typename A, typename Op, typename F>
RA_DEVICE void ra_prim_lines_walk(const TIn* RA_RESTRICT p, ra_i64 k0, ra_i64 k1, ra_i64 inner, A& acc,
                                  int nan_as_identity, const F& emit) {
    typedef ra_prim_cvt<A, TIn> CIn;
    const Op op = Op();
    const A ident = ra_prim_id<Op, A>::get();
    ra_i64 k = k0;
    for (; k + RA_PRIM_LINES_UNROLL <= k1; k += RA_PRIM_LINES_UNROLL) {
        TIn x[RA_PRIM_LINES_UNROLL];
#pragma unroll
        for (int u = 0; u < RA_PRIM_LINES_UNROLL; ++u) x[u] = p[(k + u) * inner];
#pragma unroll
        for (int u = 0; u < RA_PRIM_LINES_UNROLL; ++u) {
            A a = CIn::in(x[u]);
            if (nan_as_identity && ra_prim_isnan(a)) a = ident;
            const A before = acc;
            acc = ra_prim_apply(op, acc, a);
            emit(k + u, before, acc);
        }
    }
    for (; k < k1; ++k) {
        A a = CIn::in(p[k * inner]);
        if (nan_as_identity && ra_prim_isnan(a)) a = ident;
        const A before = acc;
        acc = ra_prim_apply(op, acc, a);
        emit(k, before, acc);
    }
}

struct ra_prim_emit_none {
    template <typename A> RA_DEVICE void operator()(ra_i64, A, A) const {}
};

template <typename TOut, typename A> struct ra_prim_emit_store {
    TOut* q;
    ra_i64 inner;
    int exclusive;
    RA_DEVICE void operator()(ra_i64 k, A before, A after) const {
        q[k * inner] = ra_prim_cvt<A, TOut>::out(exclusive ? before : after);
    }
};

template <typename TIn, typename TOut, typename Op>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SCAN_BLOCK)
ra_prim_scan_lines_totals(const TIn* RA_RESTRICT in, typename ra_prim_acc<TOut>::type* RA_RESTRICT totals,
                          ra_i64 outer, ra_i64 length, ra_i64 inner, ra_i64 seg_len, ra_i64 segs,
                          int nan_as_identity) {
    typedef typename ra_prim_acc<TOut>::type A;
    const ra_i64 lines = outer * inner;
    for (ra_i64 g = ra_global_thread_id(); g < lines * segs; g += ra_grid_threads()) {
        const ra_i64 line = g % lines;
        const ra_i64 s = g / lines;
        const ra_i64 o = line / inner;
        const ra_i64 i = line - o * inner;
        const ra_i64 k0 = s * seg_len;
        const ra_i64 k1 = k0 + seg_len < length ? k0 + seg_len : length;
        A acc = ra_prim_id<Op, A>::get();
        ra_prim_lines_walk<TIn, A, Op>(in + o * length * inner + i, k0, k1, inner, acc, nan_as_identity,
                                       ra_prim_emit_none());
        totals[g] = acc;
    }
}

template <typename TIn, typename TOut, typename Op>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SCAN_BLOCK)
ra_prim_scan_lines(const TIn* RA_RESTRICT in, TOut* RA_RESTRICT out,
                   const typename ra_prim_acc<TOut>::type* RA_RESTRICT totals, ra_i64 outer, ra_i64 length,
                   ra_i64 inner, ra_i64 seg_len, ra_i64 segs, int exclusive, int nan_as_identity) {
    typedef typename ra_prim_acc<TOut>::type A;
    const Op op = Op();
    const ra_i64 lines = outer * inner;
    for (ra_i64 g = ra_global_thread_id(); g < lines * segs; g += ra_grid_threads()) {
        const ra_i64 line = g % lines;
        const ra_i64 s = g / lines;
        const ra_i64 o = line / inner;
        const ra_i64 i = line - o * inner;
        const ra_i64 base = o * length * inner + i;
        const ra_i64 k0 = s * seg_len;
        const ra_i64 k1 = k0 + seg_len < length ? k0 + seg_len : length;
        A acc = ra_prim_id<Op, A>::get();
        for (ra_i64 t = 0; t < s; ++t) acc = ra_prim_apply(op, acc, totals[t * lines + line]);
        ra_prim_emit_store<TOut, A> emit;
        emit.q = out + base;
        emit.inner = inner;
        emit.exclusive = exclusive;
        ra_prim_lines_walk<TIn, A, Op>(in + base, k0, k1, inner, acc, nan_as_identity, emit);
    }
}
