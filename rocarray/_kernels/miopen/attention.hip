// Flash attention on portable tiles: the forward pass of Dao et al. 2022 (FlashAttention: blocks of
// queries loop over tiles of keys and values with an online softmax; the L x S score matrix is
// never stored) and the backward pass of Dao 2023 (FlashAttention-2: the probabilities recomputed
// from the log-sum-exp, D = rowsum(dO * O) computed first), without atomics: one kernel sums dK and
// dV over query tiles for a tile of keys, another sums dQ over key tiles for a tile of queries.
//
// Layouts (C-contiguous): q (Z, H, L, E), k (Z, HKV, S, E), v (Z, HKV, S, EV), o and dO
// (Z, H, L, EV), lse and D (Z, H, L). Query head h reads key/value head h / (H / HKV) (grouped
// queries; HKV == H is plain multi-head attention). The score of query i and key j is
// s = (scale q_i) . k_j, plus mask[i, j] for an additive mask; it takes part only when j < S, when
// j <= i for causal attention (torch's top-left alignment) and when a boolean mask holds 1 there.
// The mask element of (z, h, i, j) is at z msz + h msh + i msl + j mss (a stride is 0 where the
// mask broadcasts). A row with no key taking part gets output 0 and log-sum-exp -inf.
//
// Tiles: D (64, 128 or 256) bounds both head dimensions; a row (query, or key in the dK/dV kernel)
// is owned by TPR = D / 16 lanes of one warp, each holding 16 of its elements in registers as four
// 4-element chunks, chunk u of lane c covering elements 4 (c + TPR u) .. + 3, so a row's lanes read a
// tile row of shared memory in consecutive 16-byte pieces. Dot products are summed by a butterfly
// over the TPR lanes, which leaves the same sum in every lane. A block of RA_ATTN_THREADS threads
// owns RA_ATTN_THREADS / TPR rows; the other operand comes through shared memory in tiles of N rows,
// converted to the accumulation type (float, or double for double data). Elements past a head
// dimension are zero in registers and in shared memory, so they add nothing.

#define RA_ATTN_THREADS 128
// Rows of a tile the backward kernels score at a time: their scores and dO . v products, and the
// tile values loaded for them, stay in registers next to four register rows (fewer for double).
template <typename A> struct ra_attn_sub { static constexpr int value = sizeof(A) == 8 ? 2 : 4; };

RA_DEVICE float ra_attn_exp(float x) { return expf(x); }
RA_DEVICE double ra_attn_exp(double x) { return exp(x); }
RA_DEVICE float ra_attn_log(float x) { return logf(x); }
RA_DEVICE double ra_attn_log(double x) { return log(x); }
template <typename A> RA_DEVICE A ra_attn_neg_inf();
template <> RA_DEVICE float ra_attn_neg_inf<float>() { return __int_as_float((int)0xff800000u); }
template <> RA_DEVICE double ra_attn_neg_inf<double>() {
    return __longlong_as_double((long long)0xfff0000000000000ull);
}

// Four consecutive accumulation values of a 16-byte aligned shared row.
RA_DEVICE void ra_attn_ld4(const float* p, float* r) {
    const float4 v = *reinterpret_cast<const float4*>(p);
    r[0] = v.x;
    r[1] = v.y;
    r[2] = v.z;
    r[3] = v.w;
}
RA_DEVICE void ra_attn_ld4(const double* p, double* r) {
    const double2 a = reinterpret_cast<const double2*>(p)[0];
    const double2 b = reinterpret_cast<const double2*>(p)[1];
    r[0] = a.x;
    r[1] = a.y;
    r[2] = b.x;
    r[3] = b.y;
}

// Element e of lane c's register row: chunk u, place w.
template <int TPR> RA_DEVICE int ra_attn_elem(int c, int u, int w) { return 4 * (c + TPR * u) + w; }

// Lane c's 16 elements of a global row (length n, zeros past it), times f.
template <typename T, int TPR, typename A>
RA_DEVICE void ra_attn_load_row(A* r, const T* __restrict__ row, bool ok, int n, int c, A f) {
#pragma unroll
    for (int u = 0; u < 4; ++u)
#pragma unroll
        for (int w = 0; w < 4; ++w) {
            const int e = ra_attn_elem<TPR>(c, u, w);
            r[4 * u + w] = (ok && e < n) ? ra_traits<T>::to_acc(row[e]) * f : A(0);
        }
}

// Lane c's partial dot product of its 16 register elements with a shared tile row.
template <int TPR, typename A> RA_DEVICE A ra_attn_dot(const A* r, const A* tile_row, int c) {
    A d = A(0);
#pragma unroll
    for (int u = 0; u < 4; ++u) {
        A x[4];
        ra_attn_ld4(tile_row + 4 * (c + TPR * u), x);
#pragma unroll
        for (int w = 0; w < 4; ++w) d = ra_fma(r[4 * u + w], x[w], d);
    }
    return d;
}

// acc += f * (lane c's 16 elements of a shared tile row).
template <int TPR, typename A> RA_DEVICE void ra_attn_axpy(A* acc, A f, const A* tile_row, int c) {
#pragma unroll
    for (int u = 0; u < 4; ++u) {
        A x[4];
        ra_attn_ld4(tile_row + 4 * (c + TPR * u), x);
#pragma unroll
        for (int w = 0; w < 4; ++w) acc[4 * u + w] = ra_fma(f, x[w], acc[4 * u + w]);
    }
}

// Sums of N partial dot products over the TPR lanes of a row (every lane gets the sums).
template <int TPR, int N, typename A> RA_DEVICE void ra_attn_row_sums(A* s) {
#pragma unroll
    for (int m = 1; m < TPR; m <<= 1)
#pragma unroll
        for (int j = 0; j < N; ++j) s[j] += ra_shfl_xor(s[j], m);
}

// Rows [r0, r0 + N) of a (rows x n) global matrix into a shared N x D tile (zeros outside).
template <typename T, int D, int N, typename A>
RA_DEVICE void ra_attn_load_tile(A* tile, const T* __restrict__ x, ra_i64 r0, ra_i64 rows, int n) {
    for (int idx = threadIdx.x; idx < N * D; idx += RA_ATTN_THREADS) {
        const int rr = idx / D, e = idx % D;
        const ra_i64 row = r0 + rr;
        tile[idx] = (row < rows && e < n) ? ra_traits<T>::to_acc(x[row * (ra_i64)n + e]) : A(0);
    }
}

// Where scores take part (by value; rocarray/miopen/_attention.py's GEOM mirrors it): the mask's
// kind (0 none, 1 boolean bytes, 2 additive in the data's type) and element strides, causal, L, S.
struct ra_attn_geom {
    int kind, causal;
    ra_i64 msz, msh, msl, mss;
    ra_i64 L, S;
};

// The score of query i and key j as it takes part in the softmax: -inf where it does not.
template <typename T, typename A>
RA_DEVICE A ra_attn_score(A s, const void* mask, const ra_attn_geom& g, ra_i64 z, ra_i64 h, ra_i64 i, ra_i64 j) {
    bool ok = i < g.L && j < g.S && !(g.causal && j > i);
    if (ok && g.kind != 0) {
        const ra_i64 at = z * g.msz + h * g.msh + i * g.msl + j * g.mss;
        if (g.kind == 1) ok = static_cast<const ra_u8*>(mask)[at] != 0;
        else s += ra_traits<T>::to_acc(static_cast<const T*>(mask)[at]);
    }
    return ok ? s : ra_attn_neg_inf<A>();
}

// Forward: a block owns ROWS queries of one (z, h) and loops over key/value tiles of N keys (only
// those at or before its last query when causal), keeping per query the running maximum m, the
// running sum l of exp(s - m) and the unnormalized output; o = acc / l, lse = m + log l.
template <typename T, typename LT, int D, int N>
__global__ void RA_LAUNCH_BOUNDS(RA_ATTN_THREADS)
ra_miopen_attention_fwd(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                        T* __restrict__ o, LT* __restrict__ lse, const void* __restrict__ mask, ra_attn_geom mk,
                        ra_i64 H, ra_i64 HKV, int E, int EV, double scale) {
    typedef typename ra_traits<T>::acc A;
    constexpr int TPR = D / 16;
    constexpr int ROWS = RA_ATTN_THREADS / TPR;
    static_assert(RA_WARP_SIZE % TPR == 0, "a row's lanes lie in one warp");
    __shared__ __align__(16) A ks[N * D];
    __shared__ __align__(16) A vs[N * D];
    const ra_i64 L = mk.L, S = mk.S;
    const int c = threadIdx.x % TPR, r = threadIdx.x / TPR;
    const ra_i64 tiles = (L + ROWS - 1) / ROWS;
    const ra_i64 zh = (ra_i64)blockIdx.x / tiles;
    const ra_i64 i0 = (tiles - 1 - (ra_i64)blockIdx.x % tiles) * ROWS;  // (causal: the longest rows first)
    const ra_i64 h = zh % H, z = zh / H;
    const ra_i64 kv = z * HKV + h / (H / HKV);
    const ra_i64 i = i0 + r;
    const bool row_ok = i < L;
    const ra_i64 row = zh * L + (row_ok ? i : 0);
    const A neg_inf = ra_attn_neg_inf<A>();

    A qr[16], acc[16];
    ra_attn_load_row<T, TPR>(qr, q + row * E, row_ok, E, c, (A)scale);
#pragma unroll
    for (int e = 0; e < 16; ++e) acc[e] = A(0);
    A m = neg_inf, l = A(0);
    const ra_i64 end = mk.causal ? ra_min<ra_i64>(S, i0 + ROWS) : S;
    for (ra_i64 j0 = 0; j0 < end; j0 += N) {
        __syncthreads();  // the previous tile is read
        ra_attn_load_tile<T, D, N>(ks, k + kv * S * E, j0, S, E);
        ra_attn_load_tile<T, D, N>(vs, v + kv * S * EV, j0, S, EV);
        __syncthreads();
        A s[N];
#pragma unroll
        for (int jj = 0; jj < N; ++jj) s[jj] = ra_attn_dot<TPR>(qr, ks + jj * D, c);
        ra_attn_row_sums<TPR, N>(s);
        A top = neg_inf;
#pragma unroll
        for (int jj = 0; jj < N; ++jj) {
            s[jj] = ra_attn_score<T>(s[jj], mask, mk, z, h, i, j0 + jj);
            top = ra_max(top, s[jj]);
        }
        const A m_new = ra_max(m, top);
        if (m_new != neg_inf) {  // else no key of this row takes part yet
            const A alpha = ra_attn_exp(m - m_new);
            A sum = A(0);
#pragma unroll
            for (int jj = 0; jj < N; ++jj) {
                s[jj] = ra_attn_exp(s[jj] - m_new);
                sum += s[jj];
            }
            l = l * alpha + sum;
#pragma unroll
            for (int e = 0; e < 16; ++e) acc[e] *= alpha;
#pragma unroll
            for (int jj = 0; jj < N; ++jj) ra_attn_axpy<TPR>(acc, s[jj], vs + jj * D, c);
            m = m_new;
        }
    }
    if (row_ok) {
        const A inv = l > A(0) ? A(1) / l : A(0);
        T* orow = o + row * EV;
#pragma unroll
        for (int u = 0; u < 4; ++u)
#pragma unroll
            for (int w = 0; w < 4; ++w) {
                const int e = ra_attn_elem<TPR>(c, u, w);
                if (e < EV) orow[e] = ra_traits<T>::from_acc(acc[4 * u + w] * inv);
            }
        if (c == 0) lse[row] = (LT)(l > A(0) ? m + ra_attn_log(l) : neg_inf);
    }
}

// Backward pre-pass: dvec[row] = sum_e dO[row, e] O[row, e], a warp per row.
template <typename T, typename LT>
__global__ void RA_LAUNCH_BOUNDS(256)
ra_miopen_attention_bwd_dot(const T* __restrict__ dout, const T* __restrict__ out, LT* __restrict__ dvec,
                            ra_i64 rows, int EV) {
    typedef typename ra_traits<T>::acc A;
    constexpr int WARPS = 256 / RA_WARP_SIZE;
    const int lane = ra_lane_id();
    for (ra_i64 row = (ra_i64)blockIdx.x * WARPS + ra_warp_id(); row < rows; row += (ra_i64)gridDim.x * WARPS) {
        A d = A(0);
        for (int e = lane; e < EV; e += RA_WARP_SIZE)
            d = ra_fma(ra_traits<T>::to_acc(dout[row * EV + e]), ra_traits<T>::to_acc(out[row * EV + e]), d);
        d = ra_warp_reduce(d, ra_op_sum());
        if (lane == 0) dvec[row] = (LT)d;
    }
}

// The probability of a score recomputed from the row's log-sum-exp (0 where it takes no part).
template <typename A> RA_DEVICE A ra_attn_prob(A s, A lse) {
    return s == ra_attn_neg_inf<A>() ? A(0) : ra_attn_exp(s - lse);
}

// dQ: a block owns ROWS queries of one (z, h) and loops over key/value tiles of N keys:
// dS = P (dO . v_j - D_i), dQ_i = scale sum_j dS_ij k_j.
template <typename T, typename LT, int D, int N>
__global__ void RA_LAUNCH_BOUNDS(RA_ATTN_THREADS)
ra_miopen_attention_bwd_dq(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                           const T* __restrict__ dout, const LT* __restrict__ lse, const LT* __restrict__ dvec,
                           T* __restrict__ dq, const void* __restrict__ mask, ra_attn_geom mk, ra_i64 H,
                           ra_i64 HKV, int E, int EV, double scale) {
    typedef typename ra_traits<T>::acc A;
    constexpr int TPR = D / 16;
    constexpr int ROWS = RA_ATTN_THREADS / TPR;
    constexpr int SUB = ra_attn_sub<A>::value;
    static_assert(RA_WARP_SIZE % TPR == 0, "a row's lanes lie in one warp");
    __shared__ __align__(16) A ks[N * D];
    __shared__ __align__(16) A vs[N * D];
    const ra_i64 L = mk.L, S = mk.S;
    const int c = threadIdx.x % TPR, r = threadIdx.x / TPR;
    const ra_i64 tiles = (L + ROWS - 1) / ROWS;
    const ra_i64 zh = (ra_i64)blockIdx.x / tiles;
    const ra_i64 i0 = (tiles - 1 - (ra_i64)blockIdx.x % tiles) * ROWS;
    const ra_i64 h = zh % H, z = zh / H;
    const ra_i64 kv = z * HKV + h / (H / HKV);
    const ra_i64 i = i0 + r;
    const bool row_ok = i < L;
    const ra_i64 row = zh * L + (row_ok ? i : 0);

    A qr[16], dor[16], acc[16];
    ra_attn_load_row<T, TPR>(qr, q + row * E, row_ok, E, c, (A)scale);
    ra_attn_load_row<T, TPR>(dor, dout + row * EV, row_ok, EV, c, A(1));
#pragma unroll
    for (int e = 0; e < 16; ++e) acc[e] = A(0);
    const A lse_i = row_ok ? (A)lse[row] : A(0);
    const A d_i = row_ok ? (A)dvec[row] : A(0);
    const ra_i64 end = mk.causal ? ra_min<ra_i64>(S, i0 + ROWS) : S;
    for (ra_i64 j0 = 0; j0 < end; j0 += N) {
        __syncthreads();
        ra_attn_load_tile<T, D, N>(ks, k + kv * S * E, j0, S, E);
        ra_attn_load_tile<T, D, N>(vs, v + kv * S * EV, j0, S, EV);
        __syncthreads();
#pragma unroll 1
        for (int jb = 0; jb < N; jb += SUB) {
            A s[SUB], dp[SUB];
#pragma unroll
            for (int jj = 0; jj < SUB; ++jj) {
                s[jj] = ra_attn_dot<TPR>(qr, ks + (jb + jj) * D, c);
                dp[jj] = ra_attn_dot<TPR>(dor, vs + (jb + jj) * D, c);
            }
            ra_attn_row_sums<TPR, SUB>(s);
            ra_attn_row_sums<TPR, SUB>(dp);
#pragma unroll
            for (int jj = 0; jj < SUB; ++jj) {
                const A p = ra_attn_prob(ra_attn_score<T>(s[jj], mask, mk, z, h, i, j0 + jb + jj), lse_i);
                ra_attn_axpy<TPR>(acc, p * (dp[jj] - d_i), ks + (jb + jj) * D, c);
            }
        }
    }
    if (row_ok) {
        T* drow = dq + row * E;
#pragma unroll
        for (int u = 0; u < 4; ++u)
#pragma unroll
            for (int w = 0; w < 4; ++w) {
                const int e = ra_attn_elem<TPR>(c, u, w);
                if (e < E) drow[e] = ra_traits<T>::from_acc(acc[4 * u + w] * (A)scale);
            }
    }
}

// dK, dV: a block owns ROWS keys of one (z, kv head) and loops over the query heads of its group
// and their query tiles of N queries (from the first tile reaching its first key when causal):
// dV_j = sum_i P_ij dO_i, dK_j = sum_i dS_ij (scale q_i).
template <typename T, typename LT, int D, int N>
__global__ void RA_LAUNCH_BOUNDS(RA_ATTN_THREADS)
ra_miopen_attention_bwd_dkdv(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                             const T* __restrict__ dout, const LT* __restrict__ lse, const LT* __restrict__ dvec,
                             T* __restrict__ dk, T* __restrict__ dv, const void* __restrict__ mask,
                             ra_attn_geom mk, ra_i64 H, ra_i64 HKV, int E, int EV, double scale) {
    typedef typename ra_traits<T>::acc A;
    constexpr int TPR = D / 16;
    constexpr int ROWS = RA_ATTN_THREADS / TPR;
    constexpr int SUB = ra_attn_sub<A>::value;
    static_assert(RA_WARP_SIZE % TPR == 0, "a row's lanes lie in one warp");
    __shared__ __align__(16) A qs[N * D];
    __shared__ __align__(16) A dos[N * D];
    __shared__ A lse_s[N];
    __shared__ A d_s[N];
    const ra_i64 L = mk.L, S = mk.S;
    const int c = threadIdx.x % TPR, r = threadIdx.x / TPR;
    const ra_i64 tiles = (S + ROWS - 1) / ROWS;
    const ra_i64 zk = (ra_i64)blockIdx.x / tiles;  // z * HKV + kv head
    const ra_i64 j_first = ((ra_i64)blockIdx.x % tiles) * ROWS;
    const ra_i64 z = zk / HKV, hk = zk % HKV, group = H / HKV;
    const ra_i64 j = j_first + r;
    const bool row_ok = j < S;
    const ra_i64 krow = zk * S + (row_ok ? j : 0);

    A kr[16], vr[16], dkr[16], dvr[16];
    ra_attn_load_row<T, TPR>(kr, k + krow * E, row_ok, E, c, A(1));
    ra_attn_load_row<T, TPR>(vr, v + krow * EV, row_ok, EV, c, A(1));
#pragma unroll
    for (int e = 0; e < 16; ++e) dkr[e] = dvr[e] = A(0);
    const ra_i64 start = mk.causal ? j_first / N * N : 0;
    for (ra_i64 h = hk * group; h < (hk + 1) * group; ++h) {
        const ra_i64 zh = z * H + h;
        for (ra_i64 i0 = start; i0 < L; i0 += N) {
            __syncthreads();
            for (int idx = threadIdx.x; idx < N * D; idx += RA_ATTN_THREADS) {
                const int ii = idx / D, e = idx % D;
                const ra_i64 i = i0 + ii;
                qs[idx] = (i < L && e < E) ? ra_traits<T>::to_acc(q[(zh * L + i) * E + e]) * (A)scale : A(0);
                dos[idx] = (i < L && e < EV) ? ra_traits<T>::to_acc(dout[(zh * L + i) * EV + e]) : A(0);
            }
            for (int ii = threadIdx.x; ii < N; ii += RA_ATTN_THREADS) {
                const bool ok = i0 + ii < L;
                lse_s[ii] = ok ? (A)lse[zh * L + i0 + ii] : A(0);
                d_s[ii] = ok ? (A)dvec[zh * L + i0 + ii] : A(0);
            }
            __syncthreads();
#pragma unroll 1
            for (int ib = 0; ib < N; ib += SUB) {
                A s[SUB], dp[SUB];
#pragma unroll
                for (int ii = 0; ii < SUB; ++ii) {
                    s[ii] = ra_attn_dot<TPR>(kr, qs + (ib + ii) * D, c);
                    dp[ii] = ra_attn_dot<TPR>(vr, dos + (ib + ii) * D, c);
                }
                ra_attn_row_sums<TPR, SUB>(s);
                ra_attn_row_sums<TPR, SUB>(dp);
#pragma unroll
                for (int ii = 0; ii < SUB; ++ii) {
                    const int at = ib + ii;
                    const A p = ra_attn_prob(ra_attn_score<T>(s[ii], mask, mk, z, h, i0 + at, j), lse_s[at]);
                    ra_attn_axpy<TPR>(dvr, p, dos + at * D, c);
                    ra_attn_axpy<TPR>(dkr, p * (dp[ii] - d_s[at]), qs + at * D, c);
                }
            }
        }
    }
    if (row_ok) {
        T* krow_out = dk + krow * E;
        T* vrow_out = dv + krow * EV;
#pragma unroll
        for (int u = 0; u < 4; ++u)
#pragma unroll
            for (int w = 0; w < 4; ++w) {
                const int e = ra_attn_elem<TPR>(c, u, w);
                if (e < E) krow_out[e] = ra_traits<T>::from_acc(dkr[4 * u + w]);
                if (e < EV) vrow_out[e] = ra_traits<T>::from_acc(dvr[4 * u + w]);
            }
    }
}
