// Softmax and log-softmax, forward and backward, along one axis (rocarray.miopen._softmax). The
// data is seen as (outer, n, inner) with the axis of length n in the middle.
//
// MODE: 0 softmax, 1 log_softmax (x: the input; out: y), 2 softmax backward, 3 log_softmax
// backward (x: the forward's output y; dy: the output gradient; out: dx). Forward is the stable
// form y = exp(x - max) / sum exp(x - max), log y = x - max - log(sum exp(x - max)); backward
// dx = y (dy - sum(dy y)) and dx = dy - exp(y) sum(dy). Sums and exponentials run in
// ra_traits<T>::acc (float for the 16-bit types).
//
// ra_miopen_softmax_rows (inner == 1): a row per warp (WARP_ROW) or per block, lanes striding over
// the row so that loads coalesce. A row of at most GROUP * ITEMS values is held in registers (one
// read, one write); a longer one is read twice: first a per-thread running maximum and sum
// (Milakov & Gimelshein 2018, online softmax), then the write pass.
// ra_miopen_softmax_strided (inner > 1): a thread per (outer, inner) column, consecutive threads on
// consecutive inner positions (coalesced), the same two passes down the column.

#define RA_MIOPEN_SOFTMAX_BLOCK 256

RA_DEVICE float ra_sm_log(float x) { return logf(x); }
RA_DEVICE double ra_sm_log(double x) { return log(x); }
template <typename A> RA_DEVICE A ra_sm_neg_inf();
template <> RA_DEVICE float ra_sm_neg_inf<float>() { return __int_as_float((int)0xff800000u); }
template <> RA_DEVICE double ra_sm_neg_inf<double>() { return __longlong_as_double((ra_i64)0xfff0000000000000ULL); }

// The whole row's reduction of v: a warp's butterfly, or the block's with the result broadcast
// through scratch (BLOCK / RA_WARP_SIZE + 1 values), the scratch free again on return.
template <bool WARP_ROW, typename A, typename Op> RA_DEVICE A ra_sm_row_reduce(A v, Op op, A* scratch) {
    if (WARP_ROW) return ra_warp_reduce(v, op);
    constexpr int WARPS = RA_MIOPEN_SOFTMAX_BLOCK / RA_WARP_SIZE;
    v = ra_block_reduce<RA_MIOPEN_SOFTMAX_BLOCK>(v, op, scratch);
    if (threadIdx.x == 0) scratch[WARPS] = v;
    __syncthreads();
    v = scratch[WARPS];
    __syncthreads();
    return v;
}

// Running (max m, sum s of exp(v - m)) of one more value. A -inf value adds nothing (also while m
// is -inf, where exp(v - m) would be NaN); a NaN makes the sum NaN, as it makes torch's row NaN.
template <typename A> RA_DEVICE void ra_sm_online(A v, A& m, A& s) {
    if (v > m) {
        s = s * ra_exp(m - v) + A(1);  // m == -inf: s is 0 (or NaN, kept)
        m = v;
    } else if (!(v == ra_sm_neg_inf<A>())) {
        s += ra_exp(v - m);
    }
}

// A thread's running sum rescaled to the row maximum mx (its own maximum m <= mx).
template <typename A> RA_DEVICE A ra_sm_rescale(A s, A m, A mx) {
    return m == ra_sm_neg_inf<A>() ? s * A(0) : s * ra_exp(m - mx);
}

template <typename A, int MODE> RA_DEVICE A ra_sm_forward_value(A v, A mx, A scale) {
    // softmax: scale = 1 / sum; log_softmax: scale = max + log(sum)
    return MODE == 0 ? ra_exp(v - mx) * scale : v - scale;
}

template <typename A, int MODE> RA_DEVICE A ra_sm_forward_scale(A mx, A s) {
    return MODE == 0 ? A(1) / s : mx + ra_sm_log(s);
}

template <typename A, int MODE> RA_DEVICE A ra_sm_backward_value(A y, A g, A s) {
    return MODE == 2 ? y * (g - s) : g - ra_exp(y) * s;
}

template <typename T, int MODE, bool WARP_ROW, int ITEMS>
__global__ void __launch_bounds__(RA_MIOPEN_SOFTMAX_BLOCK)
ra_miopen_softmax_rows(const T* RA_RESTRICT x, const T* RA_RESTRICT dy, T* RA_RESTRICT out, ra_i64 rows, ra_i64 n) {
    typedef ra_traits<T> Tr;
    typedef typename Tr::acc A;
    constexpr int GROUP = WARP_ROW ? RA_WARP_SIZE : RA_MIOPEN_SOFTMAX_BLOCK;
    constexpr int PER_BLOCK = RA_MIOPEN_SOFTMAX_BLOCK / GROUP;
    __shared__ A scratch[RA_MIOPEN_SOFTMAX_BLOCK / RA_WARP_SIZE + 1];
    const A neg_inf = ra_sm_neg_inf<A>();
    const int t = WARP_ROW ? ra_lane_id() : (int)threadIdx.x;
    const bool cached = n <= (ra_i64)GROUP * ITEMS;
    for (ra_i64 row = (ra_i64)blockIdx.x * PER_BLOCK + (WARP_ROW ? ra_warp_id() : 0); row < rows;
         row += (ra_i64)gridDim.x * PER_BLOCK) {
        const T* xr = x + row * n;
        const T* gr = dy + row * n;
        T* yr = out + row * n;
        if (cached) {
            A v[ITEMS], g[ITEMS];
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                const ra_i64 j = t + (ra_i64)k * GROUP;
                v[k] = j < n ? Tr::to_acc(xr[j]) : (MODE < 2 ? neg_inf : A(0));
                if (MODE >= 2) g[k] = j < n ? Tr::to_acc(gr[j]) : A(0);
            }
            if (MODE < 2) {
                A m = neg_inf;
#pragma unroll
                for (int k = 0; k < ITEMS; ++k) m = ra_max(m, v[k]);
                m = ra_sm_row_reduce<WARP_ROW>(m, ra_op_max(), scratch);
                A s = A(0);
#pragma unroll
                for (int k = 0; k < ITEMS; ++k)
                    if (t + (ra_i64)k * GROUP < n) s += ra_exp(v[k] - m);
                s = ra_sm_row_reduce<WARP_ROW>(s, ra_op_sum(), scratch);
                const A scale = ra_sm_forward_scale<A, MODE>(m, s);
#pragma unroll
                for (int k = 0; k < ITEMS; ++k) {
                    const ra_i64 j = t + (ra_i64)k * GROUP;
                    if (j < n) yr[j] = Tr::from_acc(ra_sm_forward_value<A, MODE>(v[k], m, scale));
                }
            } else {
                A s = A(0);
#pragma unroll
                for (int k = 0; k < ITEMS; ++k) s += MODE == 2 ? g[k] * v[k] : g[k];
                s = ra_sm_row_reduce<WARP_ROW>(s, ra_op_sum(), scratch);
#pragma unroll
                for (int k = 0; k < ITEMS; ++k) {
                    const ra_i64 j = t + (ra_i64)k * GROUP;
                    if (j < n) yr[j] = Tr::from_acc(ra_sm_backward_value<A, MODE>(v[k], g[k], s));
                }
            }
        } else if (MODE < 2) {
            A m = neg_inf, s = A(0);
            for (ra_i64 j = t; j < n; j += GROUP) ra_sm_online(Tr::to_acc(xr[j]), m, s);
            const A mx = ra_sm_row_reduce<WARP_ROW>(m, ra_op_max(), scratch);
            s = ra_sm_row_reduce<WARP_ROW>(ra_sm_rescale(s, m, mx), ra_op_sum(), scratch);
            const A scale = ra_sm_forward_scale<A, MODE>(mx, s);
            for (ra_i64 j = t; j < n; j += GROUP)
                yr[j] = Tr::from_acc(ra_sm_forward_value<A, MODE>(Tr::to_acc(xr[j]), mx, scale));
        } else {
            A s = A(0);
            for (ra_i64 j = t; j < n; j += GROUP) {
                const A g = Tr::to_acc(gr[j]);
                s += MODE == 2 ? g * Tr::to_acc(xr[j]) : g;
            }
            s = ra_sm_row_reduce<WARP_ROW>(s, ra_op_sum(), scratch);
            for (ra_i64 j = t; j < n; j += GROUP)
                yr[j] = Tr::from_acc(ra_sm_backward_value<A, MODE>(Tr::to_acc(xr[j]), Tr::to_acc(gr[j]), s));
        }
    }
}

template <typename T, int MODE>
__global__ void __launch_bounds__(RA_MIOPEN_SOFTMAX_BLOCK)
ra_miopen_softmax_strided(const T* RA_RESTRICT x, const T* RA_RESTRICT dy, T* RA_RESTRICT out, ra_i64 outer,
                          ra_i64 n, ra_i64 inner) {
    typedef ra_traits<T> Tr;
    typedef typename Tr::acc A;
    const ra_i64 columns = outer * inner, stride = ra_grid_threads();
    for (ra_i64 c = ra_global_thread_id(); c < columns; c += stride) {
        ra_i64 o, i;
        ra_divmod_i64(c, inner, o, i);
        const ra_i64 base = o * n * inner + i;
        if (MODE < 2) {
            A m = ra_sm_neg_inf<A>(), s = A(0);
            for (ra_i64 j = 0; j < n; ++j) ra_sm_online(Tr::to_acc(x[base + j * inner]), m, s);
            const A scale = ra_sm_forward_scale<A, MODE>(m, s);
            for (ra_i64 j = 0; j < n; ++j) {
                const ra_i64 at = base + j * inner;
                out[at] = Tr::from_acc(ra_sm_forward_value<A, MODE>(Tr::to_acc(x[at]), m, scale));
            }
        } else {
            A s = A(0);
            for (ra_i64 j = 0; j < n; ++j) {
                const A g = Tr::to_acc(dy[base + j * inner]);
                s += MODE == 2 ? g * Tr::to_acc(x[base + j * inner]) : g;
            }
            for (ra_i64 j = 0; j < n; ++j) {
                const ra_i64 at = base + j * inner;
                out[at] = Tr::from_acc(ra_sm_backward_value<A, MODE>(Tr::to_acc(x[at]), Tr::to_acc(dy[at]), s));
            }
        }
    }
}
