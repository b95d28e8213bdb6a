// prim histograms: bincount and histogram (uniform bins with NumPy's index fix-ups, or arbitrary
// monotonic edges), counted or weighted.
//
// Input vectors arrive as (pointer to element 0, element step). Unit-step inputs are read as
// 16-byte packs (a scalar head before the first 16-byte boundary and a scalar tail are done by the
// first threads of the grid); other steps take a scalar grid-stride loop. Indices are 64-bit.
//
// Counting (ra_prim_hist_count): every block keeps `replicas` private copies of the histogram in
// shared memory (warp w updates copy w % replicas, which spreads same-bin contention), counts with
// 32-bit shared-memory atomics, and at the end adds each bin's block total to the global 64-bit
// histogram with one integer atomic (order-independent: integer addition is associative). When
// the bins do not fit in shared memory (replicas == 0) every element goes to a global atomic.
//
// Weighting (ra_prim_hist_weighted) is deterministic, with no floating-point atomics: every warp
// owns a private float64 histogram (in shared memory when the block's copies fit, else a row of
// `partials` in global memory) and adds its elements one lane at a time, in lane order; a block in
// the shared-memory mode sums its warps' copies in warp order into its row of `partials`. The
// merge kernel (ra_prim_hist_merge) then sums the rows of `partials` in row order. The result
// depends only on n, the step, the alignment and the grid size, never on timing.
//
// bincount sizes its output from ra_prim_bincount_max: one pass returning the largest value and a
// negative-value flag.

#define RA_PRIM_HIST_BLOCK 256
#define RA_PRIM_HIST_UNROLL 4
// 32-bit words of shared memory per block for the private histograms (_histogram.SMEM_WORDS).
#if defined(RA_HIP)
#define RA_PRIM_HIST_SMEM_WORDS 4096
#else
#define RA_PRIM_HIST_SMEM_WORDS 8192
#endif

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

template <typename T> struct alignas(16) ra_prim_hist_pack {
    static constexpr int N = 16 / (int)sizeof(T);
    T v[N];
};

// Elements of p before the first 16-byte boundary, at most n.
template <typename T> RA_DEVICE ra_i64 ra_prim_hist_head(const T* p, ra_i64 n) {
    const ra_i64 h = (ra_i64)(((16u - ((ra_u64)p & 15u)) & 15u) / sizeof(T));
    return h < n ? h : n;
}

// Value of an element in the comparison type C (float16 widens exactly to float).
template <typename C, typename T> RA_DEVICE C ra_prim_hist_to(T x) { return (C)x; }
template <> RA_DEVICE float ra_prim_hist_to<float, ra_half>(ra_half x) { return ra_half_to_float(x); }
template <> RA_DEVICE double ra_prim_hist_to<double, ra_half>(ra_half x) { return (double)ra_half_to_float(x); }

// 64-bit unsigned atomic max (atomicMax has this overload on both vendors).
RA_DEVICE void ra_prim_hist_atomic_max_u64(ra_u64* p, ra_u64 v) { atomicMax((unsigned long long*)p, (unsigned long long)v); }

// Visit every element of a (pointer, step) vector: f.post(x, f.pre(x)) for each x. The vector
// loop calls pre() for a batch of up to 16 elements before any post(), so the bin computations of
// a batch (divisions, edge loads) overlap instead of queueing behind each element's atomic.
// 16-byte packs when step == 1.
template <typename T, typename F>
RA_DEVICE void ra_prim_hist_for_each(const T* RA_RESTRICT x, ra_i64 n, ra_i64 step, F& f) {
    typedef ra_prim_hist_pack<T> P;
    constexpr int V = P::N;
    constexpr int U = RA_PRIM_HIST_UNROLL;
    constexpr int B = U * V <= 16 ? U : 1;  // packs per pre() batch
    const ra_i64 tid = ra_global_thread_id();
    const ra_i64 nthreads = ra_grid_threads();
    if (step == 1) {
        const ra_i64 head = ra_prim_hist_head(x, n);
        const ra_i64 nvec = (n - head) / V;
        const ra_i64 tail = head + nvec * V;
        if (tid < head) f.post(x[tid], f.pre(x[tid]));
        const P* xv = (const P*)(x + head);
        ra_i64 i = tid;
        for (; i + (U - 1) * nthreads < nvec; i += U * nthreads) {
            P a[U];
#pragma unroll
            for (int u = 0; u < U; ++u) a[u] = xv[i + u * nthreads];
#pragma unroll
            for (int u0 = 0; u0 < U; u0 += B) {
                ra_i64 key[B][V];
#pragma unroll
                for (int u = 0; u < B; ++u) {
#pragma unroll
                    for (int k = 0; k < V; ++k) key[u][k] = f.pre(a[u0 + u].v[k]);
                }
#pragma unroll
                for (int u = 0; u < B; ++u) {
#pragma unroll
                    for (int k = 0; k < V; ++k) f.post(a[u0 + u].v[k], key[u][k]);
                }
            }
        }
        for (; i < nvec; i += nthreads) {
            P a = xv[i];
            ra_i64 key[V];
#pragma unroll
            for (int k = 0; k < V; ++k) key[k] = f.pre(a.v[k]);
#pragma unroll
            for (int k = 0; k < V; ++k) f.post(a.v[k], key[k]);
        }
        if (tid < n - tail) f.post(x[tail + tid], f.pre(x[tail + tid]));
    } else {
        for (ra_i64 i = tid; i < n; i += nthreads) {
            const T v = x[i * step];
            f.post(v, f.pre(v));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// binning rules: ra_i64 operator()(T x) -> bin in [0, nbins) or -1 (not counted)
// ---------------------------------------------------------------------------------------------

// bincount: the value is the bin (ra_prim_bincount_max has proved 0 <= x < nbins).
template <typename T> struct ra_prim_bin_direct {
    ra_i64 nbins;
    RA_DEVICE ra_i64 operator()(T x) const {
        const ra_i64 b = (ra_i64)x;
        return (b >= 0 && b < nbins) ? b : -1;
    }
};

RA_DEVICE float ra_prim_hist_round_half(float v) { return ra_half_to_float(ra_float_to_half(v)); }

// numpy.histogram with uniform bins, step for step, in NumPy's dtypes:
//   keep first <= x <= last (compared in C);
//   d = x - first               in the edge dtype (C, rounded to float16 when sub_half);
//   f = (d / denom) * nbins_q   in the quotient dtype Q (q_mode 0: float64, 1: float32, 2: float16,
//                               every operation rounded to Q);
//   i = int(f); i -= (i == nbins); i -= (x < edges[i]); i += (i != nbins - 1 && x >= edges[i + 1]).
// denom and nbins_q are last - first and nbins as NumPy holds them in Q (exact in Q).
// q_mode 3 is the fast form the host picks when it gives the same bins (_histogram.even_plan):
// float32/float64 quotients, at most 2^20 bins, strictly increasing edges. Then NumPy's estimate
// is within one bin of the true bin (edges[b] <= x < edges[b + 1], the last bin closed) and its two
// fix-ups land on the true bin; so does an estimate (x - first) * (nbins / (last - first)) in
// float64 followed by one step against the edges (nbins_q holds that scale). No division.
template <typename T, typename C> struct ra_prim_bin_even {
    const C* edges;  // nbins + 1 edges, in C
    C first, last;
    double denom, nbins_q;
    ra_i64 nbins;
    int sub_half, q_mode;
    RA_DEVICE ra_i64 operator()(T xt) const {
        const C x = ra_prim_hist_to<C>(xt);
        if (!(x >= first && x <= last)) return -1;  // NaN fails both
        if (q_mode == 3) {
            // Estimate, then one step against the edges: the true bin. See the comment above.
            ra_i64 i = (ra_i64)(((double)x - (double)first) * nbins_q);
            i = i < 0 ? 0 : (i >= nbins ? nbins - 1 : i);
            if (x < edges[i]) i -= 1;
            else if (i + 1 < nbins && x >= edges[i + 1]) i += 1;
            return i;
        }
        C d = x - first;
        if (sub_half) d = (C)ra_prim_hist_round_half((float)d);
        double f;
        if (q_mode == 0) {
            f = ((double)d / denom) * nbins_q;
        } else {
            float q = (float)d / (float)denom;
            if (q_mode == 2) q = ra_prim_hist_round_half(q);
            q = q * (float)nbins_q;
            if (q_mode == 2) q = ra_prim_hist_round_half(q);
            f = (double)q;
        }
        ra_i64 i = f < (double)nbins ? (ra_i64)f : nbins - 1;
        if (i < 0) i = 0;
        if (x < edges[i]) i -= 1;
        if (i < 0) return -1;
        if (i != nbins - 1 && x >= edges[i + 1]) i += 1;
        return i;
    }
};

// numpy.histogram with explicit edges: bin b holds edges[b] <= x < edges[b + 1], the last bin also
// x == edges[nbins]; compared in C (the common dtype of the data and the edges).
template <typename T, typename C> struct ra_prim_bin_range {
    const C* edges;  // nbins + 1 non-decreasing edges
    ra_i64 nbins;
    RA_DEVICE ra_i64 operator()(T xt) const {
        const C x = ra_prim_hist_to<C>(xt);
        ra_i64 lo = 0, hi = nbins + 1;  // first edge > x (upper bound)
        while (lo < hi) {
            const ra_i64 mid = (lo + hi) >> 1;
            if (edges[mid] <= x) lo = mid + 1; else hi = mid;
        }
        const ra_i64 b = lo - 1;
        if (b < 0) return -1;  // below the first edge, or NaN
        if (b >= nbins) return x == edges[nbins] ? nbins - 1 : -1;
        return b;
    }
};

// ---------------------------------------------------------------------------------------------
// bincount's bounds: max(x) and whether any x < 0
// ---------------------------------------------------------------------------------------------

template <typename T> RA_DEVICE bool ra_prim_hist_negative(T x) { return x < (T)0; }
RA_DEVICE bool ra_prim_hist_negative(ra_u8) { return false; }
RA_DEVICE bool ra_prim_hist_negative(ra_u16) { return false; }
RA_DEVICE bool ra_prim_hist_negative(ra_u32) { return false; }
RA_DEVICE bool ra_prim_hist_negative(ra_u64 x) { return x >= (1ull << 63); }  // not an intp

template <typename T> struct ra_prim_hist_maxneg_f {
    ra_u64 mx, neg;
    RA_DEVICE ra_i64 pre(T) const { return 0; }
    RA_DEVICE void post(T x, ra_i64) {
        if (ra_prim_hist_negative(x)) {
            neg = 1;
        } else {
            const ra_u64 v = (ra_u64)x;
            mx = v > mx ? v : mx;
        }
    }
};

// result[0] := max(result[0], max of the non-negative x); result[1] := 1 if some x < 0.
// result must hold {0, 0} before the launch.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_HIST_BLOCK)
ra_prim_bincount_max(const T* RA_RESTRICT x, ra_i64 n, ra_i64 step, ra_u64* result) {
    __shared__ ra_u64 scratch[RA_PRIM_HIST_BLOCK / RA_WARP_SIZE];
    ra_prim_hist_maxneg_f<T> f;
    f.mx = 0;
    f.neg = 0;
    ra_prim_hist_for_each(x, n, step, f);
    ra_op_max op;
    const ra_u64 mx = ra_block_reduce<RA_PRIM_HIST_BLOCK>(f.mx, op, scratch);
    __syncthreads();
    const ra_u64 neg = ra_block_reduce<RA_PRIM_HIST_BLOCK>(f.neg, op, scratch);
    if (threadIdx.x == 0) {
        if (mx) ra_prim_hist_atomic_max_u64(result, mx);
        if (neg) ra_prim_hist_atomic_max_u64(result + 1, neg);
    }
}

// ---------------------------------------------------------------------------------------------
// counting
// ---------------------------------------------------------------------------------------------

template <typename T, typename Bin> struct ra_prim_hist_count_f {
    Bin bin;
    ra_u32* mine;   // this warp's shared copy, or null for global atomics
    ra_u64* out;
    RA_DEVICE ra_i64 pre(T x) const { return bin(x); }
    RA_DEVICE void post(T, ra_i64 b) {
        if (b >= 0) {
            if (mine) ra_atomic_add_u32(mine + b, 1u);
            else ra_atomic_add_u64(out + b, 1ull);
        }
    }
};

// Calls extra and then count for every element.
template <typename T, typename Count, typename Extra> struct ra_prim_hist_pair_f {
    Count count;
    Extra* extra;
    RA_DEVICE ra_i64 pre(T x) const { return count.pre(x); }
    RA_DEVICE void post(T x, ra_i64 b) {
        extra->post(x, 0);
        count.post(x, b);
    }
};

template <typename T> struct ra_prim_hist_nothing_f {
    RA_DEVICE ra_i64 pre(T) const { return 0; }
    RA_DEVICE void post(T, ra_i64) {}
};

// out[b] += count of x in bin b (out: nbins 64-bit counters, zeroed by the caller once); extra(x)
// is called for every element as well.
template <typename T, typename Bin, typename Extra>
RA_DEVICE void ra_prim_hist_count_body(const T* RA_RESTRICT x, ra_i64 n, ra_i64 step, const Bin& bin,
                                       ra_i64 nbins, int replicas, ra_u64* out, Extra& extra) {
    __shared__ ra_u32 smem[RA_PRIM_HIST_SMEM_WORDS];
    const ra_i64 words = (ra_i64)replicas * nbins;
    if (replicas > 0) {
        for (ra_i64 k = threadIdx.x; k < words; k += RA_PRIM_HIST_BLOCK) smem[k] = 0u;
        __syncthreads();
    }
    ra_prim_hist_pair_f<T, ra_prim_hist_count_f<T, Bin>, Extra> f;
    f.count.bin = bin;
    f.count.mine = replicas > 0 ? smem + (ra_i64)(ra_warp_id() % replicas) * nbins : (ra_u32*)0;
    f.count.out = out;
    f.extra = &extra;
    ra_prim_hist_for_each(x, n, step, f);
    if (replicas > 0) {
        __syncthreads();
        for (ra_i64 b = threadIdx.x; b < nbins; b += RA_PRIM_HIST_BLOCK) {
            ra_u64 s = 0;
            for (int r = 0; r < replicas; ++r) s += smem[(ra_i64)r * nbins + b];
            if (s) ra_atomic_add_u64(out + b, s);
        }
    }
}

// bincount fused with its bounds: counts the values below nbins into out and, like
// ra_prim_bincount_max, folds max(x) and the negative flag into bounds ({0, 0} before the launch).
// The caller guesses nbins; when max(x) >= nbins it launches again with the exact size.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_HIST_BLOCK)
ra_prim_bincount(const T* RA_RESTRICT x, ra_i64 n, ra_i64 step, ra_i64 nbins, int replicas, ra_u64* out,
                 ra_u64* bounds) {
    __shared__ ra_u64 scratch[RA_PRIM_HIST_BLOCK / RA_WARP_SIZE];
    ra_prim_bin_direct<T> bin;
    bin.nbins = nbins;
    ra_prim_hist_maxneg_f<T> track;
    track.mx = 0;
    track.neg = 0;
    ra_prim_hist_count_body(x, n, step, bin, nbins, replicas, out, track);
    __syncthreads();
    ra_op_max op;
    const ra_u64 mx = ra_block_reduce<RA_PRIM_HIST_BLOCK>(track.mx, op, scratch);
    __syncthreads();
    const ra_u64 neg = ra_block_reduce<RA_PRIM_HIST_BLOCK>(track.neg, op, scratch);
    if (threadIdx.x == 0) {
        if (mx) ra_prim_hist_atomic_max_u64(bounds, mx);
        if (neg) ra_prim_hist_atomic_max_u64(bounds + 1, neg);
    }
}

template <typename T, typename C>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_HIST_BLOCK)
ra_prim_histogram_even(const T* RA_RESTRICT x, ra_i64 n, ra_i64 step, const C* edges, C first, C last,
                       double denom, double nbins_q, int sub_half, int q_mode, ra_i64 nbins, int replicas,
                       ra_u64* out) {
    ra_prim_bin_even<T, C> bin;
    bin.edges = edges;
    bin.first = first;
    bin.last = last;
    bin.denom = denom;
    bin.nbins_q = nbins_q;
    bin.nbins = nbins;
    bin.sub_half = sub_half;
    bin.q_mode = q_mode;
    ra_prim_hist_nothing_f<T> nothing;
    ra_prim_hist_count_body(x, n, step, bin, nbins, replicas, out, nothing);
}

template <typename T, typename C>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_HIST_BLOCK)
ra_prim_histogram_range(const T* RA_RESTRICT x, ra_i64 n, ra_i64 step, const C* edges, ra_i64 nbins,
                        int replicas, ra_u64* out) {
    ra_prim_bin_range<T, C> bin;
    bin.edges = edges;
    bin.nbins = nbins;
    ra_prim_hist_nothing_f<T> nothing;
    ra_prim_hist_count_body(x, n, step, bin, nbins, replicas, out, nothing);
}

// ---------------------------------------------------------------------------------------------
// deterministic weighting
// ---------------------------------------------------------------------------------------------

// Adds w[i] to the bin of x[i] for this warp's grid-stride share; lanes add one at a time in lane
// order. in_shared: the warp's copy is in shared memory and the block writes its warp-ordered sum
// to partials row blockIdx.x; else the warp's copy is partials row (blockIdx.x * warps + warp),
// zeroed by the caller.
template <typename T, typename Bin>
RA_DEVICE void ra_prim_hist_weighted_body(const T* RA_RESTRICT x, ra_i64 n, ra_i64 sx,
                                          const double* RA_RESTRICT w, ra_i64 sw, const Bin& bin,
                                          ra_i64 nbins, int in_shared, double* partials) {
    constexpr int WARPS = RA_PRIM_HIST_BLOCK / RA_WARP_SIZE;
    __shared__ double smem[RA_PRIM_HIST_SMEM_WORDS / 2];
    const int warp = ra_warp_id();
    const int lane = ra_lane_id();
    volatile double* mine;
    if (in_shared) {
        for (ra_i64 k = threadIdx.x; k < (ra_i64)WARPS * nbins; k += RA_PRIM_HIST_BLOCK) smem[k] = 0.0;
        __syncthreads();
        mine = smem + (ra_i64)warp * nbins;
    } else {
        mine = partials + ((ra_i64)blockIdx.x * WARPS + warp) * nbins;
    }
    const ra_i64 gwarp = (ra_i64)blockIdx.x * WARPS + warp;
    const ra_i64 wstride = (ra_i64)gridDim.x * WARPS * RA_WARP_SIZE;
    for (ra_i64 base = gwarp * RA_WARP_SIZE; base < n; base += wstride) {
        const ra_i64 i = base + lane;
        ra_i64 b = -1;
        double wv = 0.0;
        if (i < n) {
            b = bin(x[i * sx]);
            if (b >= 0) wv = w[i * sw];
        }
        ra_lane_mask active = ra_ballot(b >= 0);
        while (active) {
            const int l = __ffsll((long long)active) - 1;
            if (lane == l) mine[b] = mine[b] + wv;
            active &= active - 1;
            ra_warp_sync();
        }
    }
    if (in_shared) {
        __syncthreads();
        for (ra_i64 b = threadIdx.x; b < nbins; b += RA_PRIM_HIST_BLOCK) {
            double s = 0.0;
            for (int r = 0; r < WARPS; ++r) s += smem[(ra_i64)r * nbins + b];
            partials[(ra_i64)blockIdx.x * nbins + b] = s;
        }
    }
}

template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_HIST_BLOCK)
ra_prim_bincount_weighted(const T* RA_RESTRICT x, ra_i64 n, ra_i64 sx, const double* RA_RESTRICT w,
                          ra_i64 sw, ra_i64 nbins, int in_shared, double* partials) {
    ra_prim_bin_direct<T> bin;
    bin.nbins = nbins;
    ra_prim_hist_weighted_body(x, n, sx, w, sw, bin, nbins, in_shared, partials);
}

template <typename T, typename C>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_HIST_BLOCK)
ra_prim_histogram_even_weighted(const T* RA_RESTRICT x, ra_i64 n, ra_i64 sx, const double* RA_RESTRICT w,
                                ra_i64 sw, const C* edges, C first, C last, double denom, double nbins_q,
                                int sub_half, int q_mode, ra_i64 nbins, int in_shared, double* partials) {
    ra_prim_bin_even<T, C> bin;
    bin.edges = edges;
    bin.first = first;
    bin.last = last;
    bin.denom = denom;
    bin.nbins_q = nbins_q;
    bin.nbins = nbins;
    bin.sub_half = sub_half;
    bin.q_mode = q_mode;
    ra_prim_hist_weighted_body(x, n, sx, w, sw, bin, nbins, in_shared, partials);
}

template <typename T, typename C>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_HIST_BLOCK)
ra_prim_histogram_range_weighted(const T* RA_RESTRICT x, ra_i64 n, ra_i64 sx, const double* RA_RESTRICT w,
                                 ra_i64 sw, const C* edges, ra_i64 nbins, int in_shared, double* partials) {
    ra_prim_bin_range<T, C> bin;
    bin.edges = edges;
    bin.nbins = nbins;
    ra_prim_hist_weighted_body(x, n, sx, w, sw, bin, nbins, in_shared, partials);
}

// out[b] := sum over r in [0, rows) of partials[r * nbins + b], in row order.
RA_KERNEL void RA_LAUNCH_BOUNDS(RA_PRIM_HIST_BLOCK)
ra_prim_hist_merge(const double* RA_RESTRICT partials, ra_i64 rows, ra_i64 nbins, double* out) {
    for (ra_i64 b = ra_global_thread_id(); b < nbins; b += ra_grid_threads()) {
        double s = 0.0;
        for (ra_i64 r = 0; r < rows; ++r) s += partials[r * nbins + b];
        out[b] = s;
    }
}

// The same sums for few bins and many rows: one block per bin, thread t adds rows t, t + BLOCK, ...
// in order, then a fixed-order block reduction (deterministic as well).
RA_KERNEL void RA_LAUNCH_BOUNDS(RA_PRIM_HIST_BLOCK)
ra_prim_hist_merge_wide(const double* RA_RESTRICT partials, ra_i64 rows, ra_i64 nbins, double* out) {
    __shared__ double scratch[RA_PRIM_HIST_BLOCK / RA_WARP_SIZE];
    ra_op_sum op;
    for (ra_i64 b = blockIdx.x; b < nbins; b += gridDim.x) {
        double s = 0.0;
        for (ra_i64 r = threadIdx.x; r < rows; r += RA_PRIM_HIST_BLOCK) s += partials[r * nbins + b];
        s = ra_block_reduce<RA_PRIM_HIST_BLOCK>(s, op, scratch);
        if (threadIdx.x == 0) out[b] = s;
        __syncthreads();
    }
}
