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
//   PLAIN   with FLOAT: the image is the sign trick alone (positives get the sign bit set,
//           negatives are complemented), without the -0.0 and NaN rules. It orders keys exactly
//           as the full image when no key is lossy (no -0.0, the canonical quiet NaN the only NaN:
//           both images put it last), and it costs 2 instead of about 7 operations per key. A
//           sort that returns keys uses it: when a lossy key turns up (ra_prim_radix_lossy), the
//           host drops those passes' keys and sorts indices with the full image instead.
//   DESC    descending: complement the image (stable: equal keys keep their input order).
//
// ra_prim_radix_upsweep: one read of the keys builds the 256-bin histograms of every digit place
//   (block-private shared-memory counters, one shared atomic per key and place into per-column
//   copies of 16-bit counters, see ra_prim_sort_up; flushed with one global 64-bit atomic per
//   nonzero bin before they can overflow and at the end).
//   ra_prim_radix_starts then turns each histogram into the global start of every digit and
//   writes the slot table of the places whose digit differs between keys (more than one nonzero
//   bin): the pass plan lives on the device, so the host queues every pass without waiting.
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
//     [31:30] flag [29:0] value when n < 2^30, 64-bit words [63:62] flag [61:0] value otherwise).
//     Passes alternate between two workspaces (ticket and status words): the host zeroes the first
//     once, and every block of a pass zeroes its tile's words (and tile 0 the ticket) of the other
//     one, which the pass before has finished with (no memset between passes).
//   Launch `slot` s sorts the place of plan word s (ra_prim_radix_starts: the s-th place whose
//   digit varies, the top place when none does); a slot past the active ones exits at once. The
//   host launches one slot per digit place and passes each slot the buffers it would use if it
//   were the last one (kout_last, vout_last) and otherwise (kout_mid, vout_mid).
//   * keys are placed in shared memory in tile-sorted order, then written out with consecutive
//     threads on consecutive tile positions: position i of digit d goes to
//     digit_start[d] + lookback[d] + (i - tile_start[d]) (runs of one digit are contiguous in
//     global memory, so stores coalesce). Values follow through the same buffer.
//   Values: VB = 0 (none), 4 or 8 bytes. Host flags: TIN (the slot reads the caller's keys: slot 0),
//   VIOTA (the values are the input positions: argsort's slot 0, nothing is read), KEYS (the last
//   pass stores keys: off for argsort), VWIDE (the last pass stores 4-byte values as 8-byte ones:
//   int64 indices from 32-bit ones carried through the passes). The kernel adds TOUT (undo the
//   image) on the last pass and stores keys on every other one.
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
#define RA_PRIM_SORT_UP_UNROLL 4

#define RA_PRIM_SORT_SIGNED 1
#define RA_PRIM_SORT_FLOAT 2
#define RA_PRIM_SORT_DESC 4
#define RA_PRIM_SORT_PLAIN 8

#define RA_PRIM_SORT_TIN 1
#define RA_PRIM_SORT_TOUT 2
#define RA_PRIM_SORT_KEYS 4
#define RA_PRIM_SORT_VIOTA 8
#define RA_PRIM_SORT_VWIDE 16

// Byte offset of the status words in the pass workspace; the ticket counter is the u32 at 0.
#define RA_PRIM_SORT_STATUS_OFFSET 256
// A launch slot's plan word (ra_prim_radix_starts): the digit place in bits 0-7, then these flags.
#define RA_PRIM_SORT_SLOT_ACTIVE 256
#define RA_PRIM_SORT_SLOT_LAST 512

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
    // The order-preserving image of a key (without branches on the key; the mode is the same in
    // every thread). Defined after ra_prim_sort_float_image.
    static RA_DEVICE U forward(U x, int mode);
    // The key of an image; selects only on the image (a branch on it between the shared-memory
    // loads of the store loop would serialize them).
    static RA_DEVICE U inverse(U k, int mode) {
        if (mode & RA_PRIM_SORT_DESC) k = (U)~k;
        if (mode & RA_PRIM_SORT_FLOAT) {
            const U x = (k & top()) ? (U)(k ^ top()) : (U)~k;
            if (mode & RA_PRIM_SORT_PLAIN) return x;
            return k == ones() ? ra_prim_sort_float_bits<U>::qnan() : x;
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

// Shared-memory layout of the upsweep counters: COLS column copies of every histogram, thread t
// counting into column t % COLS, 16-bit counters with the places 2w and 2w + 1 in the low and high
// half of word w of a (digit, column) cell:
//   * at most BLOCK / COLS threads share a counter, so same-address conflicts are bounded whatever
//     the data (one block-wide histogram serialized up to 32 lanes on one bin for skewed digits,
//     e.g. the exponent byte of floats);
//   * cell (d, c) of word w sits at word (w * RADIX + d) * COLS + c: lanes of different columns
//     never share a bank when COLS = 32 (8/16-bit keys), at most 32 / COLS lanes do otherwise
//     (2 for 32-bit keys, 4 for 64-bit keys), while random bins of one histogram put about 3.5
//     lanes of a warp on its busiest bank;
//   * WORDS * RADIX * COLS words = 32 KiB for every key width.
// A key costs one shared atomic per place (as before) and no per-key mode branches: only floats
// are transformed per key; the sign flip (SIGNED) and the complement (DESC) are XORs with a
// constant, applied to the bin index when the counters are flushed.
template <int B> struct ra_prim_sort_up_word { typedef ra_u32 type; };
template <> struct ra_prim_sort_up_word<8> { typedef ra_u64 type; };

template <typename U> struct ra_prim_sort_up {
    static constexpr int PLACES = (int)sizeof(U);
    static constexpr int WORDS = PLACES > 1 ? PLACES / 2 : 1;
    static constexpr int COLS = 32 / WORDS;
    static constexpr int CELLS = WORDS * RA_PRIM_SORT_RADIX * COLS;
    static constexpr int ROW_SHIFT = COLS == 32 ? 7 : COLS == 16 ? 6 : 5;  // log2 of a row's bytes
    static constexpr int V = 16 / (int)sizeof(U);                     // keys per 16-byte pack
    static constexpr int KEYS_PER_ROUND = RA_PRIM_SORT_UP_UNROLL * V;  // per thread
    static constexpr int SHARERS = RA_PRIM_SORT_BLOCK / COLS;          // threads per column
    // Full rounds between flushes: a counter then holds at most SHARERS * ((FLUSH + 1) *
    // KEYS_PER_ROUND + 2) <= 65535 (one more partial round and a head and a tail key may follow).
    static constexpr int FLUSH = (65535 / SHARERS - 2) / KEYS_PER_ROUND - 1;
    static_assert(FLUSH >= 1, "16-bit upsweep counters");
    static_assert(RA_PRIM_SORT_BLOCK == RA_PRIM_SORT_RADIX, "the flush gives thread d digit d");
    typedef typename ra_prim_sort_up_word<(int)sizeof(U)>::type W;  // shifts of the key
};

// The PLAIN float image (see the head comment).
template <typename U> RA_DEVICE U ra_prim_sort_plain_image(U x) {
    typedef ra_prim_sort_key<U> K;
    return (U)(x ^ ((x & K::top()) ? K::ones() : K::top()));
}

// ra_prim_sort_key::forward(x, FLOAT) without branches, and whether x is lossy.
template <typename U> RA_DEVICE U ra_prim_sort_float_image(U x, bool& any_lossy) {
    typedef ra_prim_sort_key<U> K;
    typedef ra_prim_sort_float_bits<U> F;
    const bool nan = (U)(x & (U)~K::top()) > F::inf();
    const bool neg_zero = x == K::top();
    any_lossy |= neg_zero | (nan & (x != F::qnan()));
    const U img = neg_zero ? K::top() : ra_prim_sort_plain_image<U>(x);
    return nan ? K::ones() : img;
}

template <typename U> RA_DEVICE U ra_prim_sort_key<U>::forward(U x, int mode) {
    bool lossy = false;
    if (mode & RA_PRIM_SORT_FLOAT) {
        x = (mode & RA_PRIM_SORT_PLAIN) ? ra_prim_sort_plain_image<U>(x) : ra_prim_sort_float_image<U>(x, lossy);
    } else if (mode & RA_PRIM_SORT_SIGNED) {
        x = (U)(x ^ top());
    }
    return (mode & RA_PRIM_SORT_DESC) ? (U)~x : x;
}

// Counts one key into the thread's column (byte offset `col`): the cell address of place p is
// the digit shifted to the row stride, OR the column (one shift and one LOP3 per place).
// IMG: 0 integer keys (raw digits), 1 float keys by the full image, 2 by the PLAIN one (which
// leaves finding lossy keys to ra_prim_radix_lossy: see there).
template <typename U, int IMG>
RA_DEVICE void ra_prim_radix_up_key(unsigned char* h, ra_u32 col, U x, int begin_bit,
                                    typename ra_prim_sort_up<U>::W emask, bool& any_lossy) {
    typedef ra_prim_sort_up<U> S;
    typedef typename S::W W;
    if constexpr (IMG == 1) x = ra_prim_sort_float_image<U>(x, any_lossy);
    if constexpr (IMG == 2) x = ra_prim_sort_plain_image<U>(x);
    const W k = ((W)x >> begin_bit) & emask;
#pragma unroll
    for (int p = 0; p < S::PLACES; ++p) {
        constexpr ra_u32 ROW = 0xffu << S::ROW_SHIFT;
        const ra_u32 at = (8 * p >= S::ROW_SHIFT ? (ra_u32)(k >> (8 * p - S::ROW_SHIFT))
                                                 : (ra_u32)k << (S::ROW_SHIFT - 8 * p)) & ROW;
        ra_u32* cell = (ra_u32*)(h + (p >> 1) * (RA_PRIM_SORT_RADIX * S::COLS * 4) + (at | col));
        ra_atomic_add_u32(cell, 1u << (16 * (p & 1)));
    }
}

// Adds the block's counters to hist (thread d: digit d of every place) and zeroes them.
template <typename U>
RA_DEVICE void ra_prim_radix_up_flush(ra_u32* h, ra_u64* RA_RESTRICT hist, int begin_bit, int end_bit,
                                      typename ra_prim_sort_up<U>::W flip) {
    typedef ra_prim_sort_up<U> S;
    ra_syncthreads();
    const int row = threadIdx.x;
    const int passes = (end_bit - begin_bit + 7) / 8;
#pragma unroll
    for (int w = 0; w < S::WORDS; ++w) {
        ra_u32* cell = h + (w * RA_PRIM_SORT_RADIX + row) * S::COLS;
        ra_u32 lo = 0u, hi = 0u;
#pragma unroll
        for (int c = 0; c < S::COLS; ++c) {
            const int cc = (c + row) & (S::COLS - 1);  // rotated: neighbouring rows on other banks
            const ra_u32 v = cell[cc];
            cell[cc] = 0u;
            lo += v & 0xffffu;
            hi += v >> 16;
        }
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int p = 2 * w + half;
            const ra_u32 c = half ? hi : lo;
            if (p < passes && c) {
                const int shift = begin_bit + 8 * p;
                const int bits = end_bit - shift < 8 ? end_bit - shift : 8;
                const ra_u32 bin = (ra_u32)row ^ ((ra_u32)(flip >> shift) & ((1u << bits) - 1u));
                ra_atomic_add_u64(hist + p * RA_PRIM_SORT_RADIX + bin, (ra_u64)c);
            }
        }
    }
    ra_syncthreads();
}

template <typename U, int IMG>
RA_DEVICE void ra_prim_radix_up_run(ra_u32* h, const U* RA_RESTRICT keys, ra_i64 n, int begin_bit, int end_bit,
                                    typename ra_prim_sort_up<U>::W flip, ra_u64* RA_RESTRICT hist,
                                    bool& any_lossy) {
    typedef ra_prim_sort_up<U> S;
    typedef ra_prim_sort_pack<U> P;
    typedef typename S::W W;
    constexpr int UN = RA_PRIM_SORT_UP_UNROLL;
    const int width = end_bit - begin_bit;
    const W emask = width >= (int)(8 * sizeof(W)) ? (W)~(W)0 : (W)(((W)1 << width) - 1);
    unsigned char* hb = (unsigned char*)h;
    const ra_u32 col = (ra_u32)(threadIdx.x & (S::COLS - 1)) * 4u;
    const ra_i64 tid = ra_global_thread_id();
    const ra_i64 nthreads = ra_grid_threads();
    ra_i64 head = (ra_i64)(((16u - ((ra_u64)keys & 15u)) & 15u) / sizeof(U));
    head = head < n ? head : n;
    const ra_i64 nvec = (n - head) / S::V;
    const ra_i64 tail = head + nvec * S::V;
    if (tid < head) ra_prim_radix_up_key<U, IMG>(hb, col, keys[tid], begin_bit, emask, any_lossy);
    const P* kv = (const P*)(keys + head);
    const ra_i64 rounds = nvec / (UN * nthreads);  // full rounds: the same count in every thread
    ra_i64 i = tid;
    int left = S::FLUSH;
    for (ra_i64 r = 0; r < rounds; ++r, i += UN * nthreads) {
        P a[UN];
#pragma unroll
        for (int u = 0; u < UN; ++u) a[u] = kv[i + u * nthreads];
#pragma unroll
        for (int u = 0; u < UN; ++u) {
#pragma unroll
            for (int j = 0; j < S::V; ++j) ra_prim_radix_up_key<U, IMG>(hb, col, a[u].v[j], begin_bit, emask, any_lossy);
        }
        if (--left == 0) {
            ra_prim_radix_up_flush<U>(h, hist, begin_bit, end_bit, flip);
            left = S::FLUSH;
        }
    }
    for (; i < nvec; i += nthreads) {  // fewer than UN packs per thread
        const P a = kv[i];
#pragma unroll
        for (int j = 0; j < S::V; ++j) ra_prim_radix_up_key<U, IMG>(hb, col, a.v[j], begin_bit, emask, any_lossy);
    }
    if (tid < n - tail) ra_prim_radix_up_key<U, IMG>(hb, col, keys[tail + tid], begin_bit, emask, any_lossy);
    ra_prim_radix_up_flush<U>(h, hist, begin_bit, end_bit, flip);
}

// starts[p * RADIX + d] = the keys of place p whose digit is below d (the exclusive scan of each
// place's histogram: where digit d's keys start in a pass over place p), and the slot table:
// plan[s] for s < places is launch slot s's word (RA_PRIM_SORT_SLOT_*): the s-th place with more
// than one nonzero bin (a pass over it moves keys), ACTIVE, and LAST on the last one; when no
// place has, slot 0 takes the top place (one pass copies the keys through their image); the
// remaining slots get 0 (a launch exits at once). maybe := 1 when a bin of the top place that is
// set in the 256-bit mask (m0..m3, bin d at bit d % 64 of word d / 64) holds keys: the bins where
// a lossy float key's PLAIN image may fall (ra_prim_radix_lossy). One block for every place (at
// most 8), so the table is written in one launch; runs right after the upsweep, so nothing goes
// to the host.
RA_KERNEL void RA_LAUNCH_BOUNDS(RA_PRIM_SORT_BLOCK)
ra_prim_radix_starts(const ra_u64* RA_RESTRICT hist, ra_u64* RA_RESTRICT starts, ra_u64* RA_RESTRICT plan,
                     int places, ra_u64* RA_RESTRICT maybe, ra_u64 m0, ra_u64 m1, ra_u64 m2, ra_u64 m3) {
    __shared__ ra_u64 s[RA_PRIM_SORT_RADIX];
    __shared__ unsigned int nonzero[8];
    if (places <= 0) return;  // no digit place: nothing to plan (the host sorts nothing then)
    const int d = threadIdx.x;
    if (d < 8) nonzero[d] = 0u;
    {
        const ra_u64 m = d < 64 ? m0 : d < 128 ? m1 : d < 192 ? m2 : m3;
        if (((m >> (d & 63)) & 1ull) && hist[(ra_i64)(places - 1) * RA_PRIM_SORT_RADIX + d]) *maybe = 1ull;
    }
    for (int p = 0; p < places; ++p) {
        const ra_u64 h = hist[(ra_i64)p * RA_PRIM_SORT_RADIX + d];
        s[d] = h;
        ra_syncthreads();
        if (h) ra_atomic_add_u32(&nonzero[p], 1u);
        for (int off = 1; off < RA_PRIM_SORT_RADIX; off <<= 1) {
            const ra_u64 v = d >= off ? s[d - off] : 0ull;
            ra_syncthreads();
            s[d] += v;
            ra_syncthreads();
        }
        starts[(ra_i64)p * RA_PRIM_SORT_RADIX + d] = s[d] - h;  // (s[d] is this thread's own word)
    }
    ra_syncthreads();
    if (d == 0) {
        int count = 0;
        for (int p = 0; p < places; ++p)
            if (nonzero[p] > 1u) plan[count++] = (ra_u64)p | RA_PRIM_SORT_SLOT_ACTIVE;
        if (count == 0) plan[count++] = (ra_u64)(places - 1) | RA_PRIM_SORT_SLOT_ACTIVE;
        plan[count - 1] |= RA_PRIM_SORT_SLOT_LAST;
        for (int q = count; q < places; ++q) plan[q] = 0ull;
    }
}

// hist: passes * 256 u64 (zeroed by the host); lossy: one u32 set to 1 when a lossy key exists.
// Keys are read as 16-byte packs, RA_PRIM_SORT_UP_UNROLL packs in flight per thread (a grid-stride
// loop of single keys is latency-bound: one 4-byte load in flight per thread); a scalar head up
// to the first 16-byte boundary and a scalar tail are counted by the first threads.
// PLAIN: float keys (mode FLOAT | PLAIN) only, counted by the PLAIN image and not checked for
// lossy keys (ra_prim_radix_lossy does, when the histograms leave the question open); the check is
// its own kernel because a third inlined copy of the counting loop raises the registers of the
// other two (docs/performance/prim.md).
template <typename U, bool PLAIN>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SORT_BLOCK)
ra_prim_radix_upsweep(const U* RA_RESTRICT keys, ra_i64 n, int mode, int begin_bit, int end_bit,
                      ra_u64* RA_RESTRICT hist, ra_u32* RA_RESTRICT lossy) {
    typedef ra_prim_sort_up<U> S;
    typedef typename S::W W;
    __shared__ ra_u32 h[S::CELLS];
    for (int i = threadIdx.x; i < S::CELLS; i += RA_PRIM_SORT_BLOCK) h[i] = 0u;
    ra_syncthreads();
    // Integer images are the raw bits XOR a constant: count raw digits, flip the bins at the flush.
    W flip = (W)0;
    if ((mode & RA_PRIM_SORT_SIGNED) && !(mode & RA_PRIM_SORT_FLOAT)) flip = (W)ra_prim_sort_key<U>::top();
    if (mode & RA_PRIM_SORT_DESC) flip ^= (W)ra_prim_sort_key<U>::ones();
    bool any_lossy = false;
    if constexpr (PLAIN) {
        static_assert(sizeof(U) > 1, "no 8-bit floats");
        ra_prim_radix_up_run<U, 2>(h, keys, n, begin_bit, end_bit, flip, hist, any_lossy);
    } else if (sizeof(U) > 1 && (mode & RA_PRIM_SORT_FLOAT)) {  // no 8-bit floats
        ra_prim_radix_up_run<U, sizeof(U) != 1 ? 1 : 0>(h, keys, n, begin_bit, end_bit, flip, hist, any_lossy);
    } else {
        ra_prim_radix_up_run<U, 0>(h, keys, n, begin_bit, end_bit, flip, hist, any_lossy);
    }
    if (any_lossy) *(volatile ra_u32*)lossy = 1u;
}

// Lossy float keys after a PLAIN upsweep: when maybe != 0 (ra_prim_radix_starts found keys in a
// top-place bin where a lossy key's image may fall: -0.0, NaNs, but also infinities, the largest
// finite values and the smallest negative ones), the keys are read again and lossy set to 1 if
// one is lossy (ra_prim_sort_key::lossy); otherwise the launch exits at once. Grid-stride, four
// keys in flight per thread.
template <typename U>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SORT_BLOCK)
ra_prim_radix_lossy(const U* RA_RESTRICT keys, ra_i64 n, const ra_u64* RA_RESTRICT maybe, ra_u32* RA_RESTRICT lossy) {
    typedef ra_prim_sort_key<U> K;
    if (*maybe == 0ull) return;
    const ra_i64 stride = ra_grid_threads();
    ra_i64 i = ra_global_thread_id();
    bool any = false;
    for (; i + 3 * stride < n; i += 4 * stride) {
        const U a = keys[i], b = keys[i + stride], c = keys[i + 2 * stride], e = keys[i + 3 * stride];
        any |= K::lossy(a, RA_PRIM_SORT_FLOAT) | K::lossy(b, RA_PRIM_SORT_FLOAT) | K::lossy(c, RA_PRIM_SORT_FLOAT) |
               K::lossy(e, RA_PRIM_SORT_FLOAT);
    }
    for (; i < n; i += stride) any |= K::lossy(keys[i], RA_PRIM_SORT_FLOAT);
    if (any) *(volatile ra_u32*)lossy = 1u;
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

template <bool B> struct ra_prim_sort_bool { static constexpr bool value = B; };

// Lane-set arithmetic in the width of a peer word (32-bit for 32-lane warps: one POPC instead of
// two and no 64-bit carries).
RA_DEVICE int ra_prim_sort_popc(unsigned int m) { return __popc(m); }
RA_DEVICE int ra_prim_sort_popc(ra_u64 m) { return ra_popc64(m); }
RA_DEVICE int ra_prim_sort_lowest(unsigned int m) { return __ffs((int)m) - 1; }
RA_DEVICE int ra_prim_sort_lowest(ra_u64 m) { return __ffsll((long long)m) - 1; }

// Keys-only ranking (see the head comment): the lanes of one digit find each other through a
// shared word per (warp, digit): each ORs in its lane bit and reads the word back; the lowest of
// them (the leader) bumps the warp's count of the digit and clears the word. FULL: every item
// of the tile is valid (all but the last tile), so no per-item bounds test or branch.
template <typename U, int ITEMS, bool FULL, typename PW>
RA_DEVICE void ra_prim_sort_rank_peers(const U (&k)[ITEMS], ra_u32 (&rank)[ITEMS], int wbase, int valid, int shift,
                                       ra_u32 mask, ra_u32* wc, PW* peers, int lane) {
    const PW bit = (PW)1 << lane;
    const PW below = bit - 1;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const bool ok = FULL || wbase + j * RA_WARP_SIZE < valid;
        const ra_u32 d = ok ? ra_prim_sort_key<U>::digit(k[j], shift, mask) : 0u;
        if (ok) ra_prim_sort_or(peers + d, bit);
        ra_warp_sync();
        const PW same = ok ? peers[d] : bit;
        ra_warp_sync();
        const int leader = ra_prim_sort_lowest(same);
        ra_u32 old = 0u;
        if (ok && leader == lane) {
            old = wc[d];
            wc[d] = old + (ra_u32)ra_prim_sort_popc(same);
            peers[d] = (PW)0;
        }
        old = ra_shfl(old, leader);
        rank[j] = old + (ra_u32)ra_prim_sort_popc(same & below);
        ra_warp_sync();
    }
}

// Ranking through the peer words takes more registers per thread than ranking with one ballot per
// digit bit; with values in registers too (VB > 0) that costs a resident block, which slows the
// passes carrying values, while keys-only passes gain (docs/performance/prim.md). So only
// keys-only passes use it.
template <int VB> struct ra_prim_sort_rank_by_peers { static constexpr bool value = VB == 0; };

template <typename U, int VB> struct ra_prim_sort_smem {
    static constexpr int EB = (int)sizeof(U) > VB ? (int)sizeof(U) : VB;
    static constexpr int WARPS = RA_PRIM_SORT_BLOCK / RA_WARP_SIZE;
    static constexpr int TILE = ra_prim_sort_tile<U, VB>::TILE;
    union {  // one spare slot past the tile (placement of items past the end of the last tile)
        U keys[TILE + 1];
        typename ra_prim_sort_vtype<VB>::type vals[TILE + 1];
        unsigned char raw[(TILE + 1) * EB];
        // Only while ranking, before keys are placed: lanes per digit, per warp.
        typename ra_prim_sort_peers<RA_WARP_SIZE>::type peers[WARPS][RA_PRIM_SORT_RADIX];
    } buf;
    ra_u32 warp_count[WARPS][RA_PRIM_SORT_RADIX];  // counts, then tile positions of each warp's first
    ra_i64 gbase[RA_PRIM_SORT_RADIX];              // global index of tile position 0 of each digit
    ra_u32 tile_start[RA_PRIM_SORT_RADIX];         // tile-local exclusive prefix over digits
    ra_u8 digit[TILE + 1];                          // digit of each tile-sorted position
    ra_u32 tile;
    ra_u32 plan;                                    // the launch slot's plan word
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

// Resident blocks per SM the register allocation must allow (the second launch bound; on AMD the
// same number is waves per SIMD, which for 256-thread blocks of wave64 on 4-SIMD CUs is blocks
// per CU too). Keys-only passes are bound by latency more than by the few spilled words this
// costs, so they ask for 5 blocks (32-bit keys) or 3 (8/16-bit keys) (docs/performance/prim.md).
// The other passes keep the compiler's choice: RA_PRIM_SORT_ANY_BLOCKS, which is 0 for NVRTC (an
// explicit 1 lets ptxas give the argsort pass more registers, and it runs slower) and 1 for HIP
// (at least one wave per SIMD: no constraint).
#if defined(RA_HIP)
#define RA_PRIM_SORT_ANY_BLOCKS 1
#else
#define RA_PRIM_SORT_ANY_BLOCKS 0
#endif
template <typename U, int VB> struct ra_prim_sort_min_blocks {
    static constexpr int value = VB != 0 ? RA_PRIM_SORT_ANY_BLOCKS
                               : sizeof(U) == 4 ? 5 : sizeof(U) <= 2 ? 3 : RA_PRIM_SORT_ANY_BLOCKS;
};

template <typename U, int VB>
__global__ void __launch_bounds__(RA_PRIM_SORT_BLOCK, (ra_prim_sort_min_blocks<U, VB>::value))
ra_prim_radix_onesweep(const U* RA_RESTRICT kin, U* RA_RESTRICT kout_mid, U* RA_RESTRICT kout_last,
                       const void* RA_RESTRICT vin, void* RA_RESTRICT vout_mid, void* RA_RESTRICT vout_last,
                       ra_i64 n, int begin_bit, int end_bit, int slot, int mode, int host_flags,
                       const ra_u64* RA_RESTRICT digit_starts, const ra_u64* RA_RESTRICT plan,
                       unsigned char* ws, unsigned char* ws_next, int wide_status) {
    typedef ra_prim_sort_key<U> K;
    typedef typename ra_prim_sort_vtype<VB>::type V;
    constexpr int ITEMS = ra_prim_sort_tile<U, VB>::ITEMS;
    constexpr int TILE = ra_prim_sort_tile<U, VB>::TILE;
    constexpr int WARPS = RA_PRIM_SORT_BLOCK / RA_WARP_SIZE;
    __shared__ ra_prim_sort_smem<U, VB> sm;

    const int tid = threadIdx.x;
    const int lane = ra_lane_id();
    const int warp = ra_warp_id();

    // Thread 0 reads the slot's plan word and takes a tile ticket together (one latency; an idle
    // slot's ticket is taken too, harmlessly: no later pass uses that workspace).
    if (tid == 0) {
        sm.plan = (ra_u32)plan[slot];
        sm.tile = ra_atomic_inc_u32((unsigned int*)ws);
    }
    for (int i = tid; i < WARPS * RA_PRIM_SORT_RADIX; i += RA_PRIM_SORT_BLOCK) {
        (&sm.warp_count[0][0])[i] = 0u;
        if constexpr (ra_prim_sort_rank_by_peers<VB>::value) (&sm.buf.peers[0][0])[i] = 0u;
    }
    ra_syncthreads();
    const ra_u32 word = sm.plan;
    if (!(word & RA_PRIM_SORT_SLOT_ACTIVE)) return;  // fewer active places than launches
    const bool last = (word & RA_PRIM_SORT_SLOT_LAST) != 0;
    const int digit_place = (int)(word & 0xffu);
    const int shift = begin_bit + 8 * digit_place;
    const int nbits = end_bit - shift < 8 ? end_bit - shift : 8;
    const ra_u64* RA_RESTRICT digit_start = digit_starts + digit_place * RA_PRIM_SORT_RADIX;
    U* RA_RESTRICT kout = last ? kout_last : kout_mid;
    void* RA_RESTRICT vout = last ? vout_last : vout_mid;
    int flags = host_flags & (RA_PRIM_SORT_TIN | RA_PRIM_SORT_VIOTA);
    if (last) {
        flags |= RA_PRIM_SORT_TOUT | (host_flags & (RA_PRIM_SORT_KEYS | RA_PRIM_SORT_VWIDE));
    } else {
        flags |= RA_PRIM_SORT_KEYS;
    }
    const ra_u32 mask = (1u << nbits) - 1u;
    void* status = (void*)(ws + RA_PRIM_SORT_STATUS_OFFSET);
    const ra_u32 t = sm.tile;
    const ra_i64 base = (ra_i64)t * TILE;
    const int valid = n - base < (ra_i64)TILE ? (int)(n - base) : TILE;

    // Load warp-striped: item j of lane l of warp w is tile element w * WARP * ITEMS + j * WARP + l.
    // All loads are issued before any key is looked at: a transform that branches on the key
    // between two loads would make each load wait for the one before it.
    U k[ITEMS];
    V v[VB ? ITEMS : 1];
    const int wbase = warp * RA_WARP_SIZE * ITEMS + lane;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const int e = wbase + j * RA_WARP_SIZE;
        k[j] = e < valid ? kin[base + e] : (U)0;  // items past the end of the last tile: defined, never counted
    }
    if (!last) {  // (behind the loads) the next pass's workspace: this tile's status words, and tile 0 the ticket
        ra_prim_sort_publish(ws_next + RA_PRIM_SORT_STATUS_OFFSET, wide_status,
                             (ra_i64)t * RA_PRIM_SORT_RADIX + tid, 0u, 0ull);
        if (t == 0 && tid == 0) *(volatile unsigned int*)ws_next = 0u;
    }
    if ((flags & RA_PRIM_SORT_TIN) && mode == (RA_PRIM_SORT_FLOAT | RA_PRIM_SORT_PLAIN)) {
        // The common float sort, unswitched: items past the end (0) are transformed harmlessly.
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) k[j] = ra_prim_sort_plain_image<U>(k[j]);
    } else if (flags & RA_PRIM_SORT_TIN) {
#pragma unroll
        for (int j = 0; j < ITEMS; ++j)
            if (wbase + j * RA_WARP_SIZE < valid) k[j] = K::forward(k[j], mode);
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
    if constexpr (ra_prim_sort_rank_by_peers<VB>::value) {
        if (valid == TILE) {
            ra_prim_sort_rank_peers<U, ITEMS, true>(k, rank, wbase, valid, shift, mask, wc, peers, lane);
        } else {
            ra_prim_sort_rank_peers<U, ITEMS, false>(k, rank, wbase, valid, shift, mask, wc, peers, lane);
        }
    } else {
        const ra_lane_mask below = (((ra_lane_mask)1) << lane) - 1;
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const bool ok = wbase + j * RA_WARP_SIZE < valid;
            const ra_u32 d = ok ? K::digit(k[j], shift, mask) : 0u;
            ra_lane_mask same = ra_ballot(ok);
            // Always 8 ballots, unrolled: digits are masked to nbits, so higher bits are 0 in every
            // lane and leave `same` unchanged (a loop bounded by nbits is slower).
#pragma unroll
            for (int b = 0; b < 8; ++b) {
                const int bit = (int)((d >> b) & 1u);
                const ra_lane_mask m = ra_ballot(bit);
                same &= bit ? m : ~m;
            }
            if (!ok) same = (ra_lane_mask)1 << lane;
            const int leader = ra_popc64((same & (~same + 1)) - 1);  // lowest lane of `same`
            ra_u32 old = 0u;
            if (ok && leader == lane) {
                old = wc[d];
                wc[d] = old + (ra_u32)ra_popc64(same);
            }
            old = ra_shfl(old, leader);
            rank[j] = old + (ra_u32)ra_popc64(same & below);
            ra_warp_sync();
        }
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
    // Tile-local exclusive prefix over digits (Hillis-Steele in shared memory, 8 steps; faster here
    // than a warp shuffle scan with one barrier: docs/performance/prim.md).
    for (int off = 1; off < RA_PRIM_SORT_RADIX; off <<= 1) {
        ra_u32 add = 0u;
        if (d < RA_PRIM_SORT_RADIX && d >= off) add = sm.tile_start[d - off];
        ra_syncthreads();
        if (d < RA_PRIM_SORT_RADIX) sm.tile_start[d] += add;
        ra_syncthreads();
    }
    if (d < RA_PRIM_SORT_RADIX) {
        const ra_u32 tstart = sm.tile_start[d] - count;  // inclusive -> exclusive
        // warp_count[w][d] becomes the tile position of warp w's first item of digit d.
#pragma unroll
        for (int w = 0; w < WARPS; ++w) sm.warp_count[w][d] += tstart;
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
    }
    ra_syncthreads();

    // Keys into shared memory in tile-sorted order, then out: position i of the tile goes to
    // gbase[digit] + i. Full tiles (all but the last) take branch-free copies of both loops.
    ra_u32 pos[ITEMS];
    auto place = [&](auto full) {
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            // Without branches: an item past the end of the last tile goes to the spare slot TILE.
            const bool ok = decltype(full)::value || wbase + j * RA_WARP_SIZE < valid;
            const ra_u32 dj = K::digit(k[j], shift, mask);
            pos[j] = ok ? sm.warp_count[warp][dj] + rank[j] : (ra_u32)TILE;
            sm.buf.keys[pos[j]] = k[j];
            sm.digit[pos[j]] = (ra_u8)dj;
        }
    };
    auto store_key = [&](int i) {
        const U x = sm.buf.keys[i];
        kout[sm.gbase[sm.digit[i]] + i] = (flags & RA_PRIM_SORT_TOUT) ? K::inverse(x, mode) : x;
    };
    if (valid == TILE) {
        place(ra_prim_sort_bool<true>());
        ra_syncthreads();
        if (flags & RA_PRIM_SORT_KEYS) {
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) store_key(tid + j * RA_PRIM_SORT_BLOCK);
        }
    } else {
        place(ra_prim_sort_bool<false>());
        ra_syncthreads();
        if (flags & RA_PRIM_SORT_KEYS) {
            for (int i = tid; i < valid; i += RA_PRIM_SORT_BLOCK) store_key(i);
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
