// prim select: stream compaction (flagged selection, nonzero), unique-by-adjacent on sorted input,
// and the counting kernels of unique for small integer value ranges.
//
// ra_prim_select / ra_prim_unique_sorted: single-pass compaction with decoupled look-back over the
// per-tile counts of selected elements, after
//   D. Merrill and M. Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back",
//   NVIDIA Technical Report NVR-2016-002, 2016,
// applied to the flag counts (the compaction form of the scan). A block takes a dynamic tile id
// from an atomic ticket counter (tiles are handed out in the order blocks start, so a tile only
// waits on tiles whose blocks already run), reads its flags (thread t owns the ITEMS consecutive
// elements [t * ITEMS, (t + 1) * ITEMS) of the tile), counts them, scans the per-thread counts
// in the block and stages the tile-local positions of the selected elements, in order, in shared
// memory. Warp 0 publishes the tile count, looks back for the tile's global offset and publishes
// the inclusive count; the block then writes the selected elements (values, flat indices or
// N-d coordinates) at offset + k for k = 0 .. count - 1 with consecutive threads on consecutive
// outputs (coalesced stores). The block of the last tile stores the total into a device scalar.
//
// Status words: one 64-bit word per tile, [63:62] flag (1 = aggregate A, 2 = inclusive prefix P),
// [61:40] epoch (a per-workspace launch number from the host, 1 .. 2^22 - 1: words of another
// launch read as "not yet published", so the workspace needs no memset per launch), [39:0] count
// (40 bits: up to 2^40 elements). One 64-bit store publishes flag and value together. The ticket
// counter (u32 at offset 0) resets itself: the block that draws the last ticket stores 0.
// Counts are integers, so the look-back may sum a window in any order: results are exact and
// deterministic (the output order is the input order).
//
// ra_prim_unique_sorted flags the heads of runs of equal adjacent elements (element 0 and every
// element unequal to its left neighbour; NaNs equal when equal_nan) and writes, per run, the head
// value and the head's position; when asked it also writes every element's run number (the
// inverse), scattered through a permutation (the stable sort's order) when one is given.
//
// ra_prim_unique_minmax / ra_prim_unique_count / ra_prim_unique_rank: the sort-free path of
// unique for integers whose value range is small: the range from a min/max pass (order-preserving
// unsigned 64-bit keys, atomicMin/atomicMax), a histogram of x - min with per-block shared-memory
// copies when the range fits (32-bit shared atomics, one global atomic per bin per block), else
// global 32-bit atomics, plus the first index of every value (64-bit atomicMin) when asked; the
// inverse gathers a per-value rank table.

#define RA_PRIM_SEL_BLOCK 256
#define RA_PRIM_SEL_ITEMS 16
#define RA_PRIM_SEL_TILE (RA_PRIM_SEL_BLOCK * RA_PRIM_SEL_ITEMS)
#define RA_PRIM_SEL_STATUS_OFFSET 256
#define RA_PRIM_SEL_FLAG_A 1ull
#define RA_PRIM_SEL_FLAG_P 2ull
#define RA_PRIM_SEL_COUNT_MASK ((1ull << 40) - 1ull)
#if defined(RA_HIP)
#define RA_PRIM_SEL_SMEM_BINS 8192
#else
#define RA_PRIM_SEL_SMEM_BINS 12288
#endif

// ---------------------------------------------------------------------------------------------
// element tests
// ---------------------------------------------------------------------------------------------

// Nonzero tests (NumPy's truth value): integers and bool by their bits, floats by value (-0.0 is
// zero, NaN is not), complex when either part is nonzero.
template <typename F> RA_DEVICE bool ra_prim_sel_nonzero(F v) { return v != (F)0; }
template <> RA_DEVICE bool ra_prim_sel_nonzero<ra_half>(ra_half v) { return (v.bits & 0x7fffu) != 0u; }
template <> RA_DEVICE bool ra_prim_sel_nonzero<ra_c64>(ra_c64 v) { return v.re != 0.0f || v.im != 0.0f; }
template <> RA_DEVICE bool ra_prim_sel_nonzero<ra_c128>(ra_c128 v) { return v.re != 0.0 || v.im != 0.0; }

// Equality of adjacent sorted elements for unique: integers by bits, floats by value (-0.0 == 0.0),
// NaNs equal to each other when equal_nan; complex values with a NaN part are all equal to each
// other when equal_nan (NumPy collapses them into one).
template <typename T> RA_DEVICE bool ra_prim_sel_eq(T a, T b, int) { return a == b; }
template <> RA_DEVICE bool ra_prim_sel_eq<ra_half>(ra_half a, ra_half b, int equal_nan) {
    const float fa = ra_half_to_float(a), fb = ra_half_to_float(b);
    return fa == fb || (equal_nan && fa != fa && fb != fb);
}
template <> RA_DEVICE bool ra_prim_sel_eq<float>(float a, float b, int equal_nan) {
    return a == b || (equal_nan && a != a && b != b);
}
template <> RA_DEVICE bool ra_prim_sel_eq<double>(double a, double b, int equal_nan) {
    return a == b || (equal_nan && a != a && b != b);
}
template <typename R> RA_DEVICE bool ra_prim_sel_eq_c(ra_complex<R> a, ra_complex<R> b, int equal_nan) {
    const bool na = a.re != a.re || a.im != a.im;
    const bool nb = b.re != b.re || b.im != b.im;
    if (equal_nan && na && nb) return true;
    return a.re == b.re && a.im == b.im;
}
template <> RA_DEVICE bool ra_prim_sel_eq<ra_c64>(ra_c64 a, ra_c64 b, int equal_nan) {
    return ra_prim_sel_eq_c(a, b, equal_nan);
}
template <> RA_DEVICE bool ra_prim_sel_eq<ra_c128>(ra_c128 a, ra_c128 b, int equal_nan) {
    return ra_prim_sel_eq_c(a, b, equal_nan);
}

// 16 bytes of consecutive elements.
template <typename T> struct alignas(16) ra_prim_sel_pack {
    static constexpr int N = 16 / (int)sizeof(T) > 0 ? 16 / (int)sizeof(T) : 1;
    T v[N];
};

// Load the ITEMS elements of one thread starting at p (valid of them); 16-byte vectors when
// all are valid and p is 16-byte aligned.
template <typename T> RA_DEVICE void ra_prim_sel_load(const T* RA_RESTRICT p, ra_i64 valid, T (&x)[RA_PRIM_SEL_ITEMS]) {
    typedef ra_prim_sel_pack<T> P;
    constexpr int PN = P::N;
    if (valid >= RA_PRIM_SEL_ITEMS && (RA_PRIM_SEL_ITEMS % PN) == 0 && (((ra_u64)p) & 15u) == 0 && sizeof(T) <= 16) {
#pragma unroll
        for (int q = 0; q < RA_PRIM_SEL_ITEMS / PN; ++q) {
            const P pk = ((const P*)p)[q];
#pragma unroll
            for (int k = 0; k < PN; ++k) x[q * PN + k] = pk.v[k];
        }
    } else {
#pragma unroll
        for (int j = 0; j < RA_PRIM_SEL_ITEMS; ++j)
            if (j < valid) x[j] = p[j];
    }
}

// ---------------------------------------------------------------------------------------------
// tile counts: block scan and decoupled look-back
// ---------------------------------------------------------------------------------------------

struct ra_prim_sel_smem {
    unsigned short stage[RA_PRIM_SEL_TILE];
    int warp_total[RA_PRIM_SEL_BLOCK / RA_WARP_SIZE];
    ra_u32 tile;
    ra_i64 prefix;
};

RA_DEVICE ra_u32 ra_prim_sel_ticket(unsigned char* ws, ra_u32 ntiles) {
    unsigned int* counter = (unsigned int*)ws;
    const ra_u32 t = ra_atomic_inc_u32(counter);
    if (t == ntiles - 1) *(volatile unsigned int*)counter = 0u;  // last ticket: reset for the next launch
    return t;
}

// Exclusive block scan of per-thread counts; returns the thread's exclusive prefix, sets total.
// warp_total: shared, one int per warp.
RA_DEVICE int ra_prim_sel_block_scan(int c, int* warp_total, int& total) {
    constexpr int WARPS = RA_PRIM_SEL_BLOCK / RA_WARP_SIZE;
    const int lane = ra_lane_id();
    const int warp = ra_warp_id();
    int v = c;
#pragma unroll
    for (int d = 1; d < RA_WARP_SIZE; d <<= 1) {
        const int up = ra_shfl_up(v, (unsigned)d);
        if (lane >= d) v += up;
    }
    if (lane == RA_WARP_SIZE - 1) warp_total[warp] = v;
    ra_syncthreads();
    int before = 0, all = 0;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) {
        if (w < warp) before += warp_total[w];
        all += warp_total[w];
    }
    total = all;
    return before + v - c;
}

RA_DEVICE ra_u64 ra_prim_sel_read(const volatile ra_u64* words, ra_i64 t, ra_u32 epoch, ra_u64& flag) {
    const ra_u64 w = words[t];
    flag = (((ra_u32)(w >> 40)) & 0x3fffffu) == epoch ? (w >> 62) : 0ull;
    return w & RA_PRIM_SEL_COUNT_MASK;
}

RA_DEVICE void ra_prim_sel_publish(volatile ra_u64* words, ra_u32 tile, ra_u64 flag, ra_u32 epoch, ra_u64 v) {
    words[tile] = (flag << 62) | ((ra_u64)epoch << 40) | (v & RA_PRIM_SEL_COUNT_MASK);
    ra_threadfence();
}

// Global offset of tile g (count `total`); run by warp 0, the result in sm.prefix after a sync.
RA_DEVICE void ra_prim_sel_lookback(unsigned char* ws, ra_u32 g, ra_u32 epoch, int total, ra_prim_sel_smem& sm) {
    if (ra_warp_id() != 0) return;
    const int lane = ra_lane_id();
    volatile ra_u64* words = (volatile ra_u64*)(ws + RA_PRIM_SEL_STATUS_OFFSET);
    ra_u64 acc = 0;
    if (g == 0) {
        if (lane == 0) ra_prim_sel_publish(words, g, RA_PRIM_SEL_FLAG_P, epoch, (ra_u64)total);
    } else {
        if (lane == 0) ra_prim_sel_publish(words, g, RA_PRIM_SEL_FLAG_A, epoch, (ra_u64)total);
        ra_i64 base = (ra_i64)g - 1;
        for (;;) {
            const ra_i64 t = base - lane;
            ra_u64 f, v;
            ra_lane_mask pm;
            for (;;) {
                if (t >= 0) {
                    v = ra_prim_sel_read(words, t, epoch, f);
                } else {
                    v = 0;
                    f = RA_PRIM_SEL_FLAG_P;
                }
                pm = ra_ballot(f == RA_PRIM_SEL_FLAG_P);
                const int nearest = pm ? ra_popc64((pm & (~pm + 1)) - 1) : RA_WARP_SIZE;
                // Wait until every tile from this one back to the nearest P has published.
                const ra_lane_mask xm = ra_ballot(f == 0ull && lane <= nearest);
                if (xm == 0) break;
            }
            const int nearest = pm ? ra_popc64((pm & (~pm + 1)) - 1) : RA_WARP_SIZE;
            const ra_u64 mine = lane <= nearest ? v : 0ull;
            acc += ra_warp_reduce(mine, ra_op_sum());
            if (pm != 0) break;
            base -= RA_WARP_SIZE;
        }
        if (lane == 0) ra_prim_sel_publish(words, g, RA_PRIM_SEL_FLAG_P, epoch, acc + (ra_u64)total);
    }
    if (lane == 0) sm.prefix = (ra_i64)acc;
}

// The whole compaction: flags(x, valid, f) fills a thread's flags; emit(pos, g) writes the
// selected element at global index g to output position pos; each(g, rank, flag) (when EACH)
// sees every element with its inclusive count of selected elements minus one.
template <bool EACH, typename Flags, typename Emit, typename Each>
RA_DEVICE void ra_prim_sel_run(ra_i64 n, unsigned char* ws, ra_u32 epoch, ra_i64* count_out,
                               const Flags& flags, const Emit& emit, const Each& each) {
    __shared__ ra_prim_sel_smem sm;
    const ra_u32 ntiles = (ra_u32)((n + RA_PRIM_SEL_TILE - 1) / RA_PRIM_SEL_TILE);
    if (threadIdx.x == 0) sm.tile = ra_prim_sel_ticket(ws, ntiles);
    ra_syncthreads();
    const ra_u32 g = sm.tile;
    const ra_i64 tile_start = (ra_i64)g * RA_PRIM_SEL_TILE;
    const ra_i64 tile_valid = n - tile_start < RA_PRIM_SEL_TILE ? n - tile_start : RA_PRIM_SEL_TILE;
    const int t0 = (int)threadIdx.x * RA_PRIM_SEL_ITEMS;
    const ra_i64 valid = tile_valid - t0;

    bool f[RA_PRIM_SEL_ITEMS];
    flags(tile_start + t0, valid, f);
    int c = 0;
#pragma unroll
    for (int j = 0; j < RA_PRIM_SEL_ITEMS; ++j) c += (f[j] && j < valid) ? 1 : 0;
    int total;
    const int excl = ra_prim_sel_block_scan(c, sm.warp_total, total);
    int k = excl;
#pragma unroll
    for (int j = 0; j < RA_PRIM_SEL_ITEMS; ++j) {
        if (f[j] && j < valid) sm.stage[k++] = (unsigned short)(t0 + j);
    }
    ra_prim_sel_lookback(ws, g, epoch, total, sm);
    ra_syncthreads();
    const ra_i64 prefix = sm.prefix;
    if (g == ntiles - 1 && threadIdx.x == 0) *count_out = prefix + total;
    for (int q = (int)threadIdx.x; q < total; q += RA_PRIM_SEL_BLOCK) emit(prefix + q, tile_start + sm.stage[q]);
    if (EACH) {
        ra_i64 r = prefix + excl - 1;
#pragma unroll
        for (int j = 0; j < RA_PRIM_SEL_ITEMS; ++j) {
            if (j < valid) {
                r += f[j] ? 1 : 0;
                each(tile_start + t0 + j, r);
            }
        }
    }
}

struct ra_prim_sel_no_each {
    RA_DEVICE void operator()(ra_i64, ra_i64) const {}
};

// ---------------------------------------------------------------------------------------------
// flagged selection and nonzero
// ---------------------------------------------------------------------------------------------

template <typename F> struct ra_prim_sel_flags_nonzero {
    const F* x;
    RA_DEVICE void operator()(ra_i64 i0, ra_i64 valid, bool (&f)[RA_PRIM_SEL_ITEMS]) const {
        F v[RA_PRIM_SEL_ITEMS];
        if (valid > 0) ra_prim_sel_load<F>(x + i0, valid, v);
#pragma unroll
        for (int j = 0; j < RA_PRIM_SEL_ITEMS; ++j) f[j] = j < valid ? ra_prim_sel_nonzero(v[j]) : false;
    }
};

template <typename V> struct ra_prim_sel_emit {
    const V* src;
    V* out_val;
    ra_i64* out_idx;
    const ra_i64* shape;
    int ndim;
    ra_i64 pos_stride, dim_stride;
    RA_DEVICE void operator()(ra_i64 pos, ra_i64 g) const {
        if (out_val) out_val[pos] = src[g];
        if (out_idx) {
            if (ndim <= 1) {
                out_idx[pos * pos_stride] = g;
            } else {
                ra_i64 r = g;
                for (int d = ndim - 1; d > 0; --d) {
                    const ra_i64 s = shape[d];
                    const ra_i64 q = r / s;
                    out_idx[pos * pos_stride + d * dim_stride] = r - q * s;
                    r = q;
                }
                out_idx[pos * pos_stride] = r;
            }
        }
    }
};

// Grid: ceil(n / TILE) blocks of RA_PRIM_SEL_BLOCK threads. flags: n elements (selected where
// nonzero); src: n values of type V (read only when out_val is set). out_val[k] = src[g_k];
// out_idx receives g_k (ndim <= 1) or its C-order coordinates in `shape` (ndim dims) at
// out_idx[k * pos_stride + d * dim_stride]. *count = number selected.
template <typename F, typename V>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SEL_BLOCK)
ra_prim_select(const F* flags, const V* src, ra_i64 n, V* out_val, ra_i64* out_idx, const ra_i64* shape,
               int ndim, ra_i64 pos_stride, ra_i64 dim_stride, ra_i64* count, unsigned char* ws, ra_u32 epoch) {
    ra_prim_sel_flags_nonzero<F> fl;
    fl.x = flags;
    ra_prim_sel_emit<V> em;
    em.src = src;
    em.out_val = out_val;
    em.out_idx = out_idx;
    em.shape = shape;
    em.ndim = ndim;
    em.pos_stride = pos_stride;
    em.dim_stride = dim_stride;
    ra_prim_sel_run<false>(n, ws, epoch, count, fl, em, ra_prim_sel_no_each());
}

// ---------------------------------------------------------------------------------------------
// unique of sorted input
// ---------------------------------------------------------------------------------------------

template <typename T> struct ra_prim_sel_flags_heads {
    const T* x;
    int equal_nan;
    RA_DEVICE void operator()(ra_i64 i0, ra_i64 valid, bool (&f)[RA_PRIM_SEL_ITEMS]) const {
        T v[RA_PRIM_SEL_ITEMS];
        if (valid > 0) ra_prim_sel_load<T>(x + i0, valid, v);
        T prev = v[0];
        if (valid > 0 && i0 > 0) prev = x[i0 - 1];
#pragma unroll
        for (int j = 0; j < RA_PRIM_SEL_ITEMS; ++j) {
            const bool head = (i0 + j == 0) || !ra_prim_sel_eq(v[j], prev, equal_nan);
            f[j] = j < valid ? head : false;
            prev = v[j];
        }
    }
};

template <typename T> struct ra_prim_sel_emit_heads {
    const T* x;
    T* out_val;
    ra_i64* out_start;
    RA_DEVICE void operator()(ra_i64 pos, ra_i64 g) const {
        if (out_val) out_val[pos] = x[g];
        if (out_start) out_start[pos] = g;
    }
};

struct ra_prim_sel_each_inverse {
    const ra_i64* perm;
    ra_i64* inverse;
    RA_DEVICE void operator()(ra_i64 g, ra_i64 rank) const { inverse[perm ? perm[g] : g] = rank; }
};

// x: n sorted elements. out_val[k] / out_start[k]: value and position of the k-th run's head
// (either may be null); inverse (may be null): inverse[perm ? perm[i] : i] = run number of x[i].
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SEL_BLOCK)
ra_prim_unique_sorted(const T* x, ra_i64 n, int equal_nan, T* out_val, ra_i64* out_start, const ra_i64* perm,
                      ra_i64* inverse, ra_i64* count, unsigned char* ws, ra_u32 epoch) {
    ra_prim_sel_flags_heads<T> fl;
    fl.x = x;
    fl.equal_nan = equal_nan;
    ra_prim_sel_emit_heads<T> em;
    em.x = x;
    em.out_val = out_val;
    em.out_start = out_start;
    if (inverse) {
        ra_prim_sel_each_inverse ea;
        ea.perm = perm;
        ea.inverse = inverse;
        ra_prim_sel_run<true>(n, ws, epoch, count, fl, em, ea);
    } else {
        ra_prim_sel_run<false>(n, ws, epoch, count, fl, em, ra_prim_sel_no_each());
    }
}

// ---------------------------------------------------------------------------------------------
// sort-free unique for small integer ranges
// ---------------------------------------------------------------------------------------------

// Order-preserving unsigned 64-bit key of an integer; bins are key - min_key.
template <typename T> RA_DEVICE ra_u64 ra_prim_sel_key(T v) { return (ra_u64)v; }
template <> RA_DEVICE ra_u64 ra_prim_sel_key<ra_i8>(ra_i8 v) { return (ra_u64)(ra_i64)v ^ 0x8000000000000000ull; }
template <> RA_DEVICE ra_u64 ra_prim_sel_key<ra_i16>(ra_i16 v) { return (ra_u64)(ra_i64)v ^ 0x8000000000000000ull; }
template <> RA_DEVICE ra_u64 ra_prim_sel_key<ra_i32>(ra_i32 v) { return (ra_u64)(ra_i64)v ^ 0x8000000000000000ull; }
template <> RA_DEVICE ra_u64 ra_prim_sel_key<ra_i64>(ra_i64 v) { return (ra_u64)v ^ 0x8000000000000000ull; }

// Visit every element of x (grid-stride, 16-byte packs after a scalar head): f(value, index).
template <typename T, typename Fn> RA_DEVICE void ra_prim_sel_for_each(const T* RA_RESTRICT x, ra_i64 n, const Fn& fn) {
    typedef ra_prim_sel_pack<T> P;
    constexpr int PN = P::N;
    const ra_i64 tid = ra_global_thread_id();
    const ra_i64 nthreads = ra_grid_threads();
    ra_i64 head = (ra_i64)(((16u - ((ra_u64)x & 15u)) & 15u) / sizeof(T));
    if (head > n) head = n;
    const ra_i64 nvec = (n - head) / PN;
    const ra_i64 tail = head + nvec * PN;
    if (tid < head) fn(x[tid], tid);
    const P* xv = (const P*)(x + head);
    for (ra_i64 i = tid; i < nvec; i += nthreads) {
        const P p = xv[i];
#pragma unroll
        for (int k = 0; k < PN; ++k) fn(p.v[k], head + i * PN + k);
    }
    if (tid < n - tail) fn(x[tail + tid], tail + tid);
}

template <typename T> struct ra_prim_sel_minmax_fn {
    ra_u64* lo;
    ra_u64* hi;
    RA_DEVICE void operator()(T v, ra_i64) const {
        const ra_u64 k = ra_prim_sel_key(v);
        if (k < *lo) *lo = k;
        if (k > *hi) *hi = k;
    }
};

// minmax[0] = smallest key, minmax[1] = largest key (the host sets them to ~0 and 0 first).
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SEL_BLOCK)
ra_prim_unique_minmax(const T* x, ra_i64 n, ra_u64* minmax) {
    __shared__ ra_u64 scratch[RA_PRIM_SEL_BLOCK / RA_WARP_SIZE];
    ra_u64 lo = ~0ull, hi = 0ull;
    ra_prim_sel_minmax_fn<T> fn;
    fn.lo = &lo;
    fn.hi = &hi;
    ra_prim_sel_for_each<T>(x, n, fn);
    lo = ra_block_reduce<RA_PRIM_SEL_BLOCK>(lo, ra_op_min(), scratch);
    ra_syncthreads();
    hi = ra_block_reduce<RA_PRIM_SEL_BLOCK>(hi, ra_op_max(), scratch);
    if (threadIdx.x == 0) {
        atomicMin((unsigned long long*)&minmax[0], (unsigned long long)lo);
        atomicMax((unsigned long long*)&minmax[1], (unsigned long long)hi);
    }
}

template <typename T> struct ra_prim_sel_count_fn {
    ra_u64 lo;
    ra_u32* bins;  // shared or global
    ra_u64* first;
    RA_DEVICE void operator()(T v, ra_i64 i) const {
        const ra_u64 b = ra_prim_sel_key(v) - lo;
        atomicAdd(&bins[b], 1u);
        if (first) atomicMin((unsigned long long*)&first[b], (unsigned long long)i);
    }
};

// counts[k] (32-bit, zeroed by the host) = number of elements with key lo + k, k < nbins; when
// first is set (filled with n by the host), first[k] = smallest index of such an element.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SEL_BLOCK)
ra_prim_unique_count(const T* x, ra_i64 n, ra_u64 lo, ra_i64 nbins, ra_u32* counts, ra_u64* first) {
    __shared__ ra_u32 sbins[RA_PRIM_SEL_SMEM_BINS];
    ra_prim_sel_count_fn<T> fn;
    fn.lo = lo;
    fn.first = first;
    const bool shared = nbins <= RA_PRIM_SEL_SMEM_BINS;
    if (shared) {
        for (int k = (int)threadIdx.x; k < (int)nbins; k += RA_PRIM_SEL_BLOCK) sbins[k] = 0u;
        ra_syncthreads();
        fn.bins = sbins;
    } else {
        fn.bins = counts;
    }
    ra_prim_sel_for_each<T>(x, n, fn);
    if (shared) {
        ra_syncthreads();
        for (int k = (int)threadIdx.x; k < (int)nbins; k += RA_PRIM_SEL_BLOCK)
            if (sbins[k]) atomicAdd(&counts[k], sbins[k]);
    }
}

template <typename T> struct ra_prim_sel_rank_fn {
    ra_u64 lo;
    const ra_i64* rank;
    ra_i64* inverse;
    RA_DEVICE void operator()(T v, ra_i64 i) const { inverse[i] = rank[ra_prim_sel_key(v) - lo]; }
};

// inverse[i] = rank[key(x[i]) - lo].
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SEL_BLOCK)
ra_prim_unique_rank(const T* x, ra_i64 n, ra_u64 lo, const ra_i64* rank, ra_i64* inverse) {
    ra_prim_sel_rank_fn<T> fn;
    fn.lo = lo;
    fn.rank = rank;
    fn.inverse = inverse;
    ra_prim_sel_for_each<T>(x, n, fn);
}

// ---------------------------------------------------------------------------------------------
// sort-light unique for large inputs of 32/64-bit integers: a bitmap of the value range
// ---------------------------------------------------------------------------------------------

// Bit b of the bitmap stands for the key base + b; bucket = b >> 16 (2048 words of 32 bits).
#define RA_PRIM_UNQ_BUCKET_SHIFT 16
#define RA_PRIM_UNQ_BUCKET_WORD_SHIFT (RA_PRIM_UNQ_BUCKET_SHIFT - 5)
#define RA_PRIM_UNQ_BUCKET_WORDS (1 << RA_PRIM_UNQ_BUCKET_WORD_SHIFT)
// Buckets of the sliding shared-memory window of ra_prim_unique_mark (32 KiB).
#define RA_PRIM_UNQ_WINDOW 4
#define RA_PRIM_UNQ_WINDOW_WORDS (RA_PRIM_UNQ_WINDOW * RA_PRIM_UNQ_BUCKET_WORDS)
// Words per chunk of the count and emit kernels (one bucket; 8 per thread).
#define RA_PRIM_UNQ_CHUNK_WORDS RA_PRIM_UNQ_BUCKET_WORDS
#define RA_PRIM_UNQ_CHUNK_ITEMS (RA_PRIM_UNQ_CHUNK_WORDS / RA_PRIM_SEL_BLOCK)
// Shared memory that stages one chunk's values for coalesced stores.
#define RA_PRIM_UNQ_STAGE_BYTES 32768

// Integer from its order-preserving key (the inverse of ra_prim_sel_key).
template <typename T> RA_DEVICE T ra_prim_sel_from_key(ra_u64 k) { return (T)k; }
template <> RA_DEVICE ra_i32 ra_prim_sel_from_key<ra_i32>(ra_u64 k) { return (ra_i32)(ra_i64)(k ^ 0x8000000000000000ull); }
template <> RA_DEVICE ra_i64 ra_prim_sel_from_key<ra_i64>(ra_u64 k) { return (ra_i64)(k ^ 0x8000000000000000ull); }

RA_DEVICE void ra_prim_unq_set_global(ra_u64 bit, ra_u32* bitmap) { atomicOr(&bitmap[bit >> 5], 1u << (ra_u32)(bit & 31u)); }

// Set bit `bit` in the window of buckets [wb, wb + WINDOW) when it falls there, straight in the
// global bitmap when its bucket lies below the window; false (nothing set) when above.
RA_DEVICE bool ra_prim_unq_set(ra_u64 bit, ra_u64 wb, ra_u32* win, ra_u32* bitmap) {
    const ra_u64 bucket = bit >> RA_PRIM_UNQ_BUCKET_SHIFT;
    if (bucket < wb) {
        ra_prim_unq_set_global(bit, bitmap);
        return true;
    }
    if (bucket - wb < (ra_u64)RA_PRIM_UNQ_WINDOW) {
        const ra_u64 w = ((bucket - wb) << RA_PRIM_UNQ_BUCKET_WORD_SHIFT) + ((bit >> 5) & (RA_PRIM_UNQ_BUCKET_WORDS - 1));
        atomicOr(&win[w], 1u << (ra_u32)(bit & 31u));
        return true;
    }
    return false;
}

// OR the window's nonzero words into the global bitmap and clear it (each thread its own words).
RA_DEVICE void ra_prim_unq_flush(ra_u32* win, ra_u64 wb, ra_u32* bitmap) {
    for (int w = (int)threadIdx.x; w < RA_PRIM_UNQ_WINDOW_WORDS; w += RA_PRIM_SEL_BLOCK) {
        const ra_u32 word = win[w];
        if (word) {
            atomicOr(&bitmap[(wb << RA_PRIM_UNQ_BUCKET_WORD_SHIFT) + (ra_u64)w], word);
            win[w] = 0u;
        }
    }
}

// Grid: ceil(n / slice) blocks of RA_PRIM_SEL_BLOCK threads; slice a multiple of the tile.
// bitmap (zeroed by the host, one bit per key from base on) gets the bit of every element of x.
// Any order of x gives the right bitmap; x ordered by bucket (a radix sort on the key bits from
// RA_PRIM_UNQ_BUCKET_SHIFT up) makes almost every bit land in the block's shared-memory window:
// a block walks its slice tile by tile, and when a tile holds keys above the window the window is
// flushed (one coalesced atomic OR per nonzero word) and moved to the smallest such bucket. Keys
// that still fall outside (sparse tiles) are set in the bitmap directly.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SEL_BLOCK)
ra_prim_unique_mark(const T* x, ra_i64 n, ra_i64 slice, ra_u64 base, ra_u32* bitmap) {
    __shared__ ra_u32 win[RA_PRIM_UNQ_WINDOW_WORDS];
    __shared__ ra_u64 scratch[RA_PRIM_SEL_BLOCK / RA_WARP_SIZE];
    __shared__ ra_u64 next_wb;
    const ra_i64 s0 = (ra_i64)blockIdx.x * slice;
    if (s0 >= n) return;
    const ra_i64 s1 = n - s0 < slice ? n : s0 + slice;
    for (int w = (int)threadIdx.x; w < RA_PRIM_UNQ_WINDOW_WORDS; w += RA_PRIM_SEL_BLOCK) win[w] = 0u;
    ra_u64 wb = (ra_prim_sel_key(x[s0]) - base) >> RA_PRIM_UNQ_BUCKET_SHIFT;
    ra_syncthreads();
    for (ra_i64 t0 = s0; t0 < s1; t0 += RA_PRIM_SEL_TILE) {
        const ra_i64 i0 = t0 + (ra_i64)threadIdx.x * RA_PRIM_SEL_ITEMS;
        const ra_i64 valid = s1 - i0;
        T v[RA_PRIM_SEL_ITEMS];
        if (valid > 0) ra_prim_sel_load<T>(x + i0, valid, v);
        ra_u32 pending = 0u;
        ra_u64 low = ~0ull;  // smallest bucket of this thread's keys above the window
#pragma unroll
        for (int j = 0; j < RA_PRIM_SEL_ITEMS; ++j) {
            if (j < valid) {
                const ra_u64 bit = ra_prim_sel_key(v[j]) - base;
                if (!ra_prim_unq_set(bit, wb, win, bitmap)) {
                    pending |= 1u << j;
                    const ra_u64 b = bit >> RA_PRIM_UNQ_BUCKET_SHIFT;
                    low = b < low ? b : low;
                }
            }
        }
        low = ra_block_reduce<RA_PRIM_SEL_BLOCK>(low, ra_op_min(), scratch);
        if (threadIdx.x == 0) next_wb = low;
        ra_syncthreads();
        const ra_u64 nb = next_wb;
        if (nb != ~0ull) {  // the same branch in every thread
            ra_prim_unq_flush(win, wb, bitmap);
            wb = nb;
            ra_syncthreads();
#pragma unroll
            for (int j = 0; j < RA_PRIM_SEL_ITEMS; ++j) {
                if (pending & (1u << j)) {
                    const ra_u64 bit = ra_prim_sel_key(v[j]) - base;
                    if (!ra_prim_unq_set(bit, wb, win, bitmap)) ra_prim_unq_set_global(bit, bitmap);
                }
            }
        }
    }
    ra_syncthreads();
    ra_prim_unq_flush(win, wb, bitmap);
}

template <typename T> struct ra_prim_sel_offset_fn {
    ra_u64 base;
    ra_u32* out;
    RA_DEVICE void operator()(T v, ra_i64 i) const { out[i] = (ra_u32)(ra_prim_sel_key(v) - base); }
};

// out[i] = key(x[i]) - base as 32 bits (64-bit integers whose keys span less than 2^32 from base:
// their offsets sort in 4-byte passes and only over the digits the range uses).
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SEL_BLOCK)
ra_prim_unique_offsets(const T* x, ra_i64 n, ra_u64 base, ra_u32* out) {
    ra_prim_sel_offset_fn<T> fn;
    fn.base = base;
    fn.out = out;
    ra_prim_sel_for_each<T>(x, n, fn);
}

// Thread t's words [t * ITEMS, (t + 1) * ITEMS) of chunk c (16-byte loads).
RA_DEVICE void ra_prim_unq_load_chunk(const ra_u32* RA_RESTRICT bitmap, ra_i64 c, ra_u32 (&word)[RA_PRIM_UNQ_CHUNK_ITEMS]) {
    const uint4* p = (const uint4*)(bitmap + c * RA_PRIM_UNQ_CHUNK_WORDS + (ra_i64)threadIdx.x * RA_PRIM_UNQ_CHUNK_ITEMS);
#pragma unroll
    for (int q = 0; q < RA_PRIM_UNQ_CHUNK_ITEMS / 4; ++q) {
        const uint4 w = p[q];
        word[4 * q] = w.x;
        word[4 * q + 1] = w.y;
        word[4 * q + 2] = w.z;
        word[4 * q + 3] = w.w;
    }
}

// counts[c] = set bits in words [c * CHUNK, (c + 1) * CHUNK) of the bitmap (nwords a multiple of
// CHUNK, 16-byte aligned). Grid: nwords / CHUNK blocks.
RA_KERNEL void RA_LAUNCH_BOUNDS(RA_PRIM_SEL_BLOCK)
ra_prim_unique_bitcount(const ra_u32* RA_RESTRICT bitmap, ra_i64* counts) {
    __shared__ ra_i64 scratch[RA_PRIM_SEL_BLOCK / RA_WARP_SIZE];
    ra_u32 word[RA_PRIM_UNQ_CHUNK_ITEMS];
    ra_prim_unq_load_chunk(bitmap, blockIdx.x, word);
    ra_i64 c = 0;
#pragma unroll
    for (int r = 0; r < RA_PRIM_UNQ_CHUNK_ITEMS; ++r) c += __popc(word[r]);
    c = ra_block_reduce<RA_PRIM_SEL_BLOCK>(c, ra_op_sum(), scratch);
    if (threadIdx.x == 0) counts[blockIdx.x] = c;
}

// Stage slot of output position p: one pad slot per 32, so the threads of a warp, whose values
// start about the same distance apart, write to different banks.
RA_DEVICE int ra_prim_unq_slot(int p) { return p + (p >> 5); }

// out[ends[c] - counts[c] + k] = the value of the k-th set bit of chunk c (ends: inclusive scan
// of counts), for the `chunks` chunks of the bitmap. Grid: up to one resident wave of blocks,
// each taking chunks blockIdx.x, + gridDim.x, ... and loading the next chunk's words while it
// writes the current one's values. Thread t takes the consecutive words [t * ITEMS, (t + 1) *
// ITEMS) of a chunk, so its values take consecutive positions; they are staged in shared memory
// (32 KiB) and written with consecutive threads on consecutive outputs, in windows of the stage's
// size when the chunk holds more values than that.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SEL_BLOCK)
ra_prim_unique_bitemit(const ra_u32* RA_RESTRICT bitmap, ra_i64 chunks, const ra_i64* counts, const ra_i64* ends,
                       ra_u64 base, T* out) {
    constexpr int R = RA_PRIM_UNQ_CHUNK_ITEMS;
    constexpr int CAP = RA_PRIM_UNQ_STAGE_BYTES / (int)sizeof(T);
    __shared__ int warp_total[RA_PRIM_SEL_BLOCK / RA_WARP_SIZE];
    __shared__ T stage[CAP + CAP / 32];
    ra_i64 c = blockIdx.x;
    ra_u32 word[R], next[R];
    if (c < chunks) ra_prim_unq_load_chunk(bitmap, c, word);
    for (; c < chunks; c += gridDim.x) {
        const ra_i64 pos0 = ends[c] - counts[c];
        if (c + gridDim.x < chunks) ra_prim_unq_load_chunk(bitmap, c + gridDim.x, next);
        int n = 0;
#pragma unroll
        for (int r = 0; r < R; ++r) n += __popc(word[r]);
        int total;
        const int excl = ra_prim_sel_block_scan(n, warp_total, total);
        const ra_u64 k0 = base + ((ra_u64)(c * RA_PRIM_UNQ_CHUNK_WORDS + (ra_i64)threadIdx.x * R) << 5);
        for (int win = 0; win < total; win += CAP) {
            // This thread's positions [excl, excl + n) met with the window [win, win + CAP).
            const int lo = excl > win ? excl : win;
            const int hi = (excl + n < win + CAP ? excl + n : win + CAP) - win;
            if (lo - win < hi) {
                int skip = lo - excl;
                int p = lo - win;
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    ra_u32 m = word[r];
                    const int pc = __popc(m);
                    if (skip >= pc) {
                        skip -= pc;
                        continue;
                    }
                    for (; skip > 0; --skip) m &= m - 1u;
                    while (m && p < hi) {
                        const int b = __ffs((int)m) - 1;
                        m &= m - 1u;
                        stage[ra_prim_unq_slot(p++)] = ra_prim_sel_from_key<T>(k0 + (ra_u64)(r * 32 + b));
                    }
                }
            }
            ra_syncthreads();
            const int k = total - win < CAP ? total - win : CAP;
            for (int q = (int)threadIdx.x; q < k; q += RA_PRIM_SEL_BLOCK) out[pos0 + win + q] = stage[ra_prim_unq_slot(q)];
            ra_syncthreads();
        }
        if (total == 0) ra_syncthreads();  // warp_total is read by the scan above before reuse
#pragma unroll
        for (int r = 0; r < R; ++r) word[r] = next[r];
    }
}
