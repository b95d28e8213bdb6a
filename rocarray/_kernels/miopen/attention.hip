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

// ---- forward on the matrix units (float16, bfloat16) ----
// The flash forward with both products on 16 x 8 x 16 matrix tiles, organized as FlashAttention-2
// (Dao 2023): each 32-lane group owns MI tiles of 16 queries and all of a key tile's scores, so a
// row's softmax never leaves its group. A block owns RA_ATTN_MMA_BM = 128 queries of one (z, h)
// (RA_ATTN_MMA_BM / (16 MI) groups) and loops over tiles of 64 keys (only those at or before its
// last query when causal; blocks of one (z, h) are numbered heaviest first).
// Shared memory (dynamic): the block's Q tile, then a ring of `stages` (>= 2) slots each holding
// a K tile and a V tile; every tile stores 16-bit rows padded by 8 elements (16 bytes), so the 8
// row addresses of one 8 x 8 matrix read fall in 8 distinct 16-byte bank groups. Copies are
// 16-byte chunks (zero-filled past L, S and the head dimensions) issued as asynchronous copies
// in one commit group per tile; the ring keeps stages - 1 tiles in flight: per tile, wait for
// it, one barrier (which also frees the slot read in the previous tile), issue the copies of the
// tile stages - 1 ahead into that slot, then compute.
// Per tile: S = Q K^T (D / 16 k steps; the A fragments of Q and the B fragments of K come from
// shared memory through ldmatrix), the softmax in float32 in base-2 units (exp2; scores scaled
// and masked where a tile needs it, else scaled inside the exponent's multiply-add), the row
// maxima and the rescaling of the running output, then O += P V with P taken straight from S's
// accumulators (the accumulator layout of two adjacent 8-key tiles is the A-operand layout of
// one 16-key step) and V's B fragments from ldmatrix.trans.
// Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type"), for
// lane l of a group, g = l / 4, t = l % 4: A (16 x 16, row-major): a0 = A[g][2t, 2t+1],
// a1 = A[g+8][2t, 2t+1], a2 = A[g][2t+8, 2t+9], a3 = A[g+8][2t+8, 2t+9]; B (16 x 8): b0 =
// B[2t, 2t+1][g], b1 = B[2t+8, 2t+9][g]; C (16 x 8, float): c0, c1 = C[g][2t, 2t+1], c2, c3 =
// C[g+8][2t, 2t+1]. Pairs are packed low element first.
// Backends: NVIDIA sm_80+ runs mma.sync, ldmatrix and cp.async (inline PTX); elsewhere the same
// fragments are multiplied by a portable emulation of the instructions on warp shuffles and the
// copies are plain (correct and slow: the library chooses this kernel only where the matrix
// units exist, and tests force it elsewhere to check the tiles, ring, masks and softmax).

#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
#define RA_ATTN_MMA_NV 1
#endif
#define RA_ATTN_MMA_BM 128
#define RA_ATTN_MMA_BN 64
// Lanes of one m16n8k16 fragment group: a warp on NVIDIA, half a wavefront on wave64 targets.
#define RA_ATTN_MMA_GROUP 32
// Threads of a block whose groups own MI tiles of 16 queries each.
#define RA_ATTN_MMA_THREADS(MI) (RA_ATTN_MMA_BM / (16 * (MI)) * RA_ATTN_MMA_GROUP)

template <typename T> RA_DEVICE float ra_attn_bits_to_float(ra_u32 bits) {
    T x;
    x.bits = (ra_u16)bits;
    return ra_traits<T>::to_acc(x);
}
// Two floats rounded to the nearest T, packed low element first (NVIDIA sm_80+: one cvt of a pair).
template <typename T> RA_DEVICE ra_u32 ra_attn_pack(float lo, float hi) {
    return (ra_u32)ra_traits<T>::from_acc(lo).bits | ((ra_u32)ra_traits<T>::from_acc(hi).bits << 16);
}
#if defined(RA_ATTN_MMA_NV)
template <> RA_DEVICE ra_u32 ra_attn_pack<ra_half>(float lo, float hi) {
    ra_u32 r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));  // first source to the upper half
    return r;
}
template <> RA_DEVICE ra_u32 ra_attn_pack<ra_bfloat16>(float lo, float hi) {
    ra_u32 r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
#endif

// d += a b for one 16 x 8 x 16 tile of the lane's 32-lane group.
template <typename T> struct ra_attn_mma;
#if defined(RA_ATTN_MMA_NV)
template <> struct ra_attn_mma<ra_half> {
    static RA_DEVICE void run(float (&d)[4], const ra_u32 (&a)[4], ra_u32 b0, ra_u32 b1) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9}, {%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};
template <> struct ra_attn_mma<ra_bfloat16> {
    static RA_DEVICE void run(float (&d)[4], const ra_u32 (&a)[4], ra_u32 b0, ra_u32 b1) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9}, {%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};
#else
template <typename T> struct ra_attn_mma {
    // A[g][k] sits in lane 4 (g % 8) + (k % 8) / 2 (register (g >= 8) + 2 (k >= 8)), B[k][n] in
    // lane 4 n + (k % 8) / 2 (register k >= 8); the half is k % 2.
    static RA_DEVICE void run(float (&d)[4], const ra_u32 (&a)[4], ra_u32 b0, ra_u32 b1) {
        const int l = ra_lane_id() & 31, base = ra_lane_id() & ~31;
        const int g = l >> 2, t = l & 3;
#pragma unroll 1
        for (int k = 0; k < 16; ++k) {
            const int hi = k >= 8, shift = (k & 1) * 16;
            const int src_a = base + 4 * g + (k & 7) / 2;
            const int src_b = base + 4 * (2 * t) + (k & 7) / 2;
            const ra_u32 a_lo = ra_shfl(a[2 * hi], src_a);
            const ra_u32 a_hi = ra_shfl(a[2 * hi + 1], src_a);
            const ra_u32 b_0 = ra_shfl(hi ? b1 : b0, src_b);
            const ra_u32 b_1 = ra_shfl(hi ? b1 : b0, src_b + 4);
            const float x0 = ra_attn_bits_to_float<T>(a_lo >> shift), x1 = ra_attn_bits_to_float<T>(a_hi >> shift);
            const float y0 = ra_attn_bits_to_float<T>(b_0 >> shift), y1 = ra_attn_bits_to_float<T>(b_1 >> shift);
            d[0] = ra_fma(x0, y0, d[0]);
            d[1] = ra_fma(x0, y1, d[1]);
            d[2] = ra_fma(x1, y0, d[2]);
            d[3] = ra_fma(x1, y1, d[3]);
        }
    }
};
#endif

// Four 8 x 8 16-bit matrices from shared memory: lane 8 q + r gives the address of row r of
// matrix q (16 bytes); lane l receives in r[q] the elements (l / 4, 2 (l % 4) + {0, 1}) of
// matrix q, or with TRANS the elements (2 (l % 4) + {0, 1}, l / 4).
template <bool TRANS> RA_DEVICE void ra_attn_ldmatrix_x4(ra_u32 (&r)[4], const ra_u16* row) {
#if defined(RA_ATTN_MMA_NV)
    const unsigned addr = (unsigned)__cvta_generic_to_shared(row);
    if (TRANS) {
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
    } else {
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
    }
#else
    const int l = ra_lane_id() & 31, base = ra_lane_id() & ~31;
    const ra_u64 mine = reinterpret_cast<ra_u64>(row);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        if (TRANS) {
            const ra_u64 p0 = ra_shfl(mine, base + 8 * q + 2 * (l & 3));
            const ra_u64 p1 = ra_shfl(mine, base + 8 * q + 2 * (l & 3) + 1);
            r[q] = (ra_u32)reinterpret_cast<const ra_u16*>(p0)[l >> 2] |
                   ((ra_u32)reinterpret_cast<const ra_u16*>(p1)[l >> 2] << 16);
        } else {
            const ra_u64 p = ra_shfl(mine, base + 8 * q + (l >> 2));
            const ra_u16* e = reinterpret_cast<const ra_u16*>(p) + 2 * (l & 3);
            r[q] = (ra_u32)e[0] | ((ra_u32)e[1] << 16);
        }
    }
#endif
}

// 16-byte global -> shared copy of which the first src_bytes (0 or 16) come from src and the rest
// is zero; NVIDIA: asynchronous (cp.async.cg with src-size), complete after a wait; elsewhere a
// plain copy.
RA_DEVICE void ra_attn_cp_async_16(ra_u16* dst, const ra_u16* src, int src_bytes) {
#if defined(RA_ATTN_MMA_NV)
    const unsigned addr = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(addr), "l"(src), "r"(src_bytes));
#else
    *reinterpret_cast<uint4*>(dst) = src_bytes ? *reinterpret_cast<const uint4*>(src) : make_uint4(0u, 0u, 0u, 0u);
#endif
}
RA_DEVICE void ra_attn_cp_async_commit() {
#if defined(RA_ATTN_MMA_NV)
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
// Wait until at most `pending` of this thread's committed copy groups are in flight (a deeper
// ring than 4 stages waits for more than it must, which is always correct).
RA_DEVICE void ra_attn_cp_async_wait(int pending) {
#if defined(RA_ATTN_MMA_NV)
    if (pending >= 2) {
        asm volatile("cp.async.wait_group 2;\n" ::: "memory");
    } else if (pending == 1) {
        asm volatile("cp.async.wait_group 1;\n" ::: "memory");
    } else {
        asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    }
#endif
}

// Rows [r0, r0 + ROWS) of a (rows x n) global 16-bit matrix into a shared tile of row stride
// D + 8 (zeros outside), in 16-byte chunks: thread x takes chunk x % (D / 8) of rows x / (D / 8)
// + THREADS / (D / 8) e. vec (n % 8 == 0, x 16-byte aligned): asynchronous copies; else element
// by element, plain stores.
template <int D, int ROWS, int THREADS>
RA_DEVICE void ra_attn_mma_load(ra_u16* tile, const ra_u16* __restrict__ x, ra_i64 r0, ra_i64 rows, int n, int vec) {
    constexpr int LD = D + 8, CH = D / 8, STEP = THREADS / CH;
    static_assert(THREADS % CH == 0 && ROWS % STEP == 0, "whole rows per pass");
    const int rr = (int)threadIdx.x / CH, c8 = (int)threadIdx.x % CH * 8;
    const ra_i64 left = rows - r0 - rr;  // rows of this thread's chunks left in x
    const ra_u16* src = x + (r0 + rr) * n + c8;
    ra_u16* dst = tile + rr * LD + c8;
#pragma unroll
    for (int e = 0; e < ROWS / STEP; ++e) {
        const bool in = e * STEP < left;
        if (vec) {
            const bool ok = in && c8 < n;
            ra_attn_cp_async_16(dst + e * STEP * LD, ok ? src + e * STEP * n : x, ok ? 16 : 0);
        } else {
            ra_u32 w[4];
#pragma unroll
            for (int p = 0; p < 4; ++p) {
                const int c = c8 + 2 * p;
                const ra_u32 lo = in && c < n ? (ra_u32)src[e * STEP * n + 2 * p] : 0u;
                const ra_u32 hi = in && c + 1 < n ? (ra_u32)src[e * STEP * n + 2 * p + 1] : 0u;
                w[p] = lo | (hi << 16);
            }
            *reinterpret_cast<uint4*>(dst + e * STEP * LD) = make_uint4(w[0], w[1], w[2], w[3]);
        }
    }
}

// Dynamic shared memory: the Q tile (RA_ATTN_MMA_BM rows) and `stages` slots of a K and a V tile
// (RA_ATTN_MMA_BN rows each), rows of D + 8 16-bit elements (rocarray/miopen/_attention.py's
// mma_shared_bytes mirrors it).
template <typename T, int D, int MI>
__global__ void RA_LAUNCH_BOUNDS(RA_ATTN_MMA_THREADS(MI))
ra_miopen_attention_fwd_mma(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                            T* __restrict__ o, float* __restrict__ lse, const void* __restrict__ mask,
                            ra_attn_geom mk, ra_i64 H, ra_i64 HKV, int E, int EV, double scale, int vec,
                            int stages) {
    constexpr int THREADS = RA_ATTN_MMA_THREADS(MI);
    constexpr int BM = RA_ATTN_MMA_BM, BN = RA_ATTN_MMA_BN, LD = D + 8;
    constexpr int KT = D / 16;  // k steps of q k^T
    constexpr int NT = BN / 8;  // key tiles of S
    constexpr int OT = D / 8;   // column tiles of O
    constexpr int TILE = BN * LD;
    static_assert(BM % (16 * MI) == 0 && THREADS % RA_WARP_SIZE == 0, "whole groups and warps");
    extern __shared__ __align__(16) ra_u16 ra_attn_mma_smem[];
    ra_u16* const qs = ra_attn_mma_smem;
    ra_u16* const ring = ra_attn_mma_smem + BM * LD;
    const float LOG2E = 1.4426950408889634f, LN2 = 0.6931471805599453f;
    const float neg_inf = ra_attn_neg_inf<float>();
    const ra_i64 L = mk.L, S = mk.S;
    const int lane = (int)threadIdx.x % RA_ATTN_MMA_GROUP, grp = (int)threadIdx.x / RA_ATTN_MMA_GROUP;
    const int g = lane >> 2, t = lane & 3;
    const ra_i64 tiles = (L + BM - 1) / BM;
    const ra_i64 zh = (ra_i64)blockIdx.x / tiles;
    const ra_i64 i0 = (tiles - 1 - (ra_i64)blockIdx.x % tiles) * BM;
    const ra_i64 h = zh % H, z = zh / H;
    const ra_i64 kv = z * HKV + h / (H / HKV);
    const int row0 = grp * 16 * MI;  // the group's first row of the block
    const ra_u16* qb = reinterpret_cast<const ra_u16*>(q) + zh * L * E;
    const ra_u16* kb = reinterpret_cast<const ra_u16*>(k) + kv * S * E;
    const ra_u16* vb = reinterpret_cast<const ra_u16*>(v) + kv * S * EV;
    const ra_i64 end = mk.causal ? ra_min<ra_i64>(S, i0 + BM) : S;
    const ra_i64 ntiles = (end + BN - 1) / BN;
    auto prefetch = [&](ra_i64 jt, int slot) {
        if (jt < ntiles) {
            ra_attn_mma_load<D, BN, THREADS>(ring + slot * 2 * TILE, kb, jt * BN, S, E, vec);
            ra_attn_mma_load<D, BN, THREADS>(ring + slot * 2 * TILE + TILE, vb, jt * BN, S, EV, vec);
        }
        ra_attn_cp_async_commit();  // (an empty group past the end keeps the count uniform)
    };
    ra_attn_mma_load<D, BM, THREADS>(qs, qb, i0, L, E, vec);
    ra_attn_cp_async_commit();
    for (int st = 0; st < stages - 1; ++st) prefetch(st, st);

    // ldmatrix row addresses: lane 8 mq + mr gives row mr of matrix mq
    const int mq = lane >> 3, mr = lane & 7;
    // Q's A fragment: matrix mq = rows 8 (mq & 1) .., columns 8 (mq >> 1) .. of a 16 x 16 step
    const ra_u16* qrow = qs + (row0 + 8 * (mq & 1) + mr) * LD + 8 * (mq >> 1);
    // K's B fragments of two 8-key tiles: matrix mq = keys 8 (mq >> 1) .., columns 8 (mq & 1) ..
    const int krow = (8 * (mq >> 1) + mr) * LD + 8 * (mq & 1);
    // V's B fragments (transposed) of two 8-column tiles: keys 8 (mq & 1) .., columns 8 (mq >> 1) ..
    const int vrow = (8 * (mq & 1) + mr) * LD + 8 * (mq >> 1);

    float acc[MI][OT][4];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ot = 0; ot < OT; ++ot)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[mi][ot][e] = 0.0f;
    float m[MI][2], l[MI][2];  // l: this lane's part of the row sums
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int rr = 0; rr < 2; ++rr) {
            m[mi][rr] = neg_inf;
            l[mi][rr] = 0.0f;
        }
    const float sc = (float)scale, sc2 = (float)scale * LOG2E;
    int rd = 0, wr = stages - 1;
    for (ra_i64 jt = 0; jt < ntiles; ++jt) {
        ra_attn_cp_async_wait(stages - 2);  // this thread's copies of Q and of tile jt are done
        __syncthreads();                    // everyone's; and everyone is done with tile jt - 1
        prefetch(jt + stages - 1, wr);
        const ra_u16* ks = ring + rd * 2 * TILE;
        const ra_u16* vs = ks + TILE;
        const ra_i64 j0 = jt * BN;
        float s[MI][NT][4];
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
            for (int nt = 0; nt < NT; ++nt)
#pragma unroll
                for (int e = 0; e < 4; ++e) s[mi][nt][e] = 0.0f;
#pragma unroll 4
        for (int kt = 0; kt < KT; ++kt) {
            ra_u32 qa[MI][4];
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) ra_attn_ldmatrix_x4<false>(qa[mi], qrow + mi * 16 * LD + kt * 16);
#pragma unroll
            for (int np = 0; np < NT / 2; ++np) {
                ra_u32 kf[4];
                ra_attn_ldmatrix_x4<false>(kf, ks + krow + np * 16 * LD + kt * 16);
#pragma unroll
                for (int mi = 0; mi < MI; ++mi) {
                    ra_attn_mma<T>::run(s[mi][2 * np], qa[mi], kf[0], kf[1]);
                    ra_attn_mma<T>::run(s[mi][2 * np + 1], qa[mi], kf[2], kf[3]);
                }
            }
        }
        // A tile inside L x S, unmasked and wholly at or below the causal diagonal takes every
        // score: its scores stay unscaled (a positive scale keeps their order) and the scale
        // rides the exponent's multiply-add; elsewhere each score is scaled and masked first.
        const bool whole = mk.kind == 0 && sc2 > 0.0f && j0 + BN <= S && i0 + BM <= L &&
                           (!mk.causal || j0 + BN - 1 <= i0);
        const float f = whole ? sc2 : 1.0f;
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
            // (four independent fmaxf chains a row: see the wgmma kernel's softmax)
            float top[2][4];
#pragma unroll
            for (int rr = 0; rr < 2; ++rr)
#pragma unroll
                for (int q = 0; q < 4; ++q) top[rr][q] = neg_inf;
#pragma unroll
            for (int nt = 0; nt < NT; ++nt)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int rr = e >> 1;
                    if (!whole) {
                        const ra_i64 i = i0 + row0 + 16 * mi + g + 8 * rr;
                        const ra_i64 j = j0 + nt * 8 + 2 * t + (e & 1);
                        s[mi][nt][e] = ra_attn_score<T>(s[mi][nt][e] * sc, mask, mk, z, h, i, j) * LOG2E;
                    }
                    float& chain = top[rr][2 * (nt & 1) + (e & 1)];
                    chain = fmaxf(chain, s[mi][nt][e]);
                }
            float base[2];
#pragma unroll
            for (int rr = 0; rr < 2; ++rr) {
                float row = fmaxf(fmaxf(top[rr][0], top[rr][1]), fmaxf(top[rr][2], top[rr][3]));
                row = fmaxf(row, ra_shfl_xor(row, 1));
                row = fmaxf(row, ra_shfl_xor(row, 2));
                const float m_new = fmaxf(m[mi][rr], row * f);
                base[rr] = m_new == neg_inf ? 0.0f : m_new;  // (every score of the row is -inf then)
                const float alpha = exp2f(m[mi][rr] - base[rr]);  // (0 while the row has no finite score)
                m[mi][rr] = m_new;
                l[mi][rr] *= alpha;
#pragma unroll
                for (int ot = 0; ot < OT; ++ot) {
                    acc[mi][ot][2 * rr] *= alpha;
                    acc[mi][ot][2 * rr + 1] *= alpha;
                }
            }
#pragma unroll
            for (int nt = 0; nt < NT; ++nt)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    s[mi][nt][e] = exp2f(ra_fma(s[mi][nt][e], f, -base[e >> 1]));
                    l[mi][e >> 1] += s[mi][nt][e];
                }
        }
#pragma unroll
        for (int kk = 0; kk < BN / 16; ++kk) {
            ra_u32 pa[MI][4];
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) {
                pa[mi][0] = ra_attn_pack<T>(s[mi][2 * kk][0], s[mi][2 * kk][1]);
                pa[mi][1] = ra_attn_pack<T>(s[mi][2 * kk][2], s[mi][2 * kk][3]);
                pa[mi][2] = ra_attn_pack<T>(s[mi][2 * kk + 1][0], s[mi][2 * kk + 1][1]);
                pa[mi][3] = ra_attn_pack<T>(s[mi][2 * kk + 1][2], s[mi][2 * kk + 1][3]);
            }
#pragma unroll
            for (int ot = 0; ot < OT; ot += 2) {
                ra_u32 vf[4];
                ra_attn_ldmatrix_x4<true>(vf, vs + vrow + kk * 16 * LD + ot * 8);
#pragma unroll
                for (int mi = 0; mi < MI; ++mi) {
                    ra_attn_mma<T>::run(acc[mi][ot], pa[mi], vf[0], vf[1]);
                    ra_attn_mma<T>::run(acc[mi][ot + 1], pa[mi], vf[2], vf[3]);
                }
            }
        }
        rd = rd + 1 == stages ? 0 : rd + 1;
        wr = wr + 1 == stages ? 0 : wr + 1;
    }
    ra_attn_cp_async_wait(0);  // (the empty groups, or the Q copy where no tile exists)
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int rr = 0; rr < 2; ++rr) {
            const ra_i64 i = i0 + row0 + 16 * mi + g + 8 * rr;
            float total = l[mi][rr];
            total += ra_shfl_xor(total, 1);
            total += ra_shfl_xor(total, 2);
            if (i < L) {
                const float inv = total > 0.0f ? 1.0f / total : 0.0f;
                T* orow = o + (zh * L + i) * EV;
#pragma unroll
                for (int ot = 0; ot < OT; ++ot)
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const int col = ot * 8 + 2 * t + e;
                        if (col < EV) orow[col] = ra_traits<T>::from_acc(acc[mi][ot][2 * rr + e] * inv);
                    }
                if (t == 0) lse[zh * L + i] = total > 0.0f ? m[mi][rr] * LN2 + logf(total) : neg_inf;
            }
        }
}

// ---- forward on the warpgroup matrix instructions (sm_90a: wgmma and TMA; float16, bfloat16) ----
// FlashAttention-3's forward (Shah et al. 2024): a block of RA_ATTN_WG_THREADS(SCHED > 0)
// threads owns RA_ATTN_WG_BM = 128 queries of one (z, h) (blocks of one (z, h) numbered heaviest
// first) as two consumer warpgroups of 64 queries each and a producer warp (SCHED = 0) or
// warpgroup (SCHED = 1, 2: it keeps 24 registers per thread and the
// consumers take 240 with setmaxnreg, room for a second P; nine warps could have no more than
// 168 each, as a quarter of a multiprocessor holding three of them has 16384 registers). The
// producer's first lane copies the block's Q tile once, then the K and V tiles of
// RA_ATTN_WG_BN = 128 keys (only those at or before the block's last query when causal) into a
// ring of `stages` shared-memory slots guarded by `full` mbarriers (the copies' transaction
// bytes) and `empty` mbarriers (one arrival per consumer warp once its products with the slot are
// complete), as ra_miopen_conv_wgmma_fwd does; the ring runs on from one unit to the next, and
// the next unit's Q is copied once a `Q empty` mbarrier has every consumer warp's arrival after
// its last S of the unit. Per key tile, each consumer warpgroup:
//  * S = Q K^T: D / 16 wgmma m64n128k16 with both operands from shared memory (K is the B operand
//    k-major: its rows are keys, its reduction dimension D contiguous);
//  * the online softmax on S's accumulators in float32 and base-2 units (exp2; the scale times
//    log2 e rides the exponent's multiply-add where the tile needs no masking, else scores are
//    scaled and masked first: keys past S, and keys after the query when causal), the row
//    maxima from the thread's registers and the two other lanes of its quad, the running output
//    rescaled;
//  * O += P V: P rounded to the data's type straight from S's accumulators into wgmma's
//    register-A fragments (columns 16 kk .. 16 kk + 15 of the accumulator layout are the A
//    fragment of k step kk: a[i] packs accumulators 8 kk + 2 i, 8 kk + 2 i + 1), V the B
//    operand mn-major (its rows are keys, the reduction dimension; the transpose flag set),
//    BN / 16 wgmma m64nDk16.
// Schedule (SCHED): 0 runs the three steps of a tile one after the other (each product waited
// for at once). 1 is FlashAttention-3's intra-warpgroup pipelining: the products
// S = Q K_j^T and O += P_{j-1} V_{j-1} are issued together, the softmax of tile j runs once the
// first is done while the second is still in flight (P alternates between two register sets),
// and the slot of tile j - 1 is released once the second is done; the output is rescaled by
// tile j - 1's factors between the two issues, while the first runs. 2 adds
// FlashAttention-3's ping-pong: the two warpgroups take turns issuing their products (named
// barriers 1 and 2: a warpgroup waits for its turn, issues, then gives the other its turn;
// warpgroup 1 gives warpgroup 0 the first turn and takes none back after its last issue), so
// one's softmax runs under the other's products.
// Tensor maps (rocarray/miopen/_attention.py builds them; 128-byte swizzle, zero fill outside):
//  * q as the 3-D tensor (E, L, Z H), box (64, 128, 1); k as (E, S, Z HKV), box (64, 128, 1);
//    v as (EV, S, Z HKV), box (64, 64, 1). Rows past L or S and columns past E or EV arrive as
//    zeros, so tails need no predicated loads: zero columns add nothing to a dot product, zero
//    query rows are not stored, and keys past S are masked.
// Shared memory (dynamic; rocarray/miopen/_attention.py's wgmma_shared_bytes mirrors it):
// 2 + 2 stages mbarriers (Q's, then full, then empty, then Q empty), then from the next 1024
// bytes:
//  * Q: D / 64 column blocks of 128 rows x 128 bytes (16 KiB each), the k-major A operand of
//    rocarray/_kernels/rocblas/gemm_wgmma.hip; warpgroup g's rows start 8 KiB into a block.
//  * per slot, K: D / 64 column blocks of 128 rows x 128 bytes (k-major B operand); then V:
//    for each 64-key half, D / 64 boxes of 64 keys x 64 columns (8 KiB, the mn-major operand of
//    gemm_wgmma.hip: blocks of 64 columns 8 KiB apart, a k step of 16 keys 2 KiB further).
// Accumulator fragment (gemm_wgmma.hip): register 4 j + c of warp w, lane l is row
// 16 w + l / 4 + 8 (c / 2), column 8 j + 2 (l % 4) + c % 2 of the warpgroup's 64 x N tile.
// Targets without sm_90a compile an empty body: the Python layer never launches it there.
#define RA_ATTN_WG_BM 128
#define RA_ATTN_WG_BN 128
#define RA_ATTN_WG_CONSUMERS (RA_ATTN_WG_BM / 16 * RA_WARP_SIZE)
// Threads of a block: the consumers and a producer warp (OVERLAP = SCHED > 0: a producer warpgroup, whose
// registers go to the consumers; see the kernel).
#define RA_ATTN_WG_THREADS(OVERLAP) (RA_ATTN_WG_CONSUMERS + ((OVERLAP) ? 4 : 1) * RA_WARP_SIZE)
// Registers per thread of the producer and consumer warpgroups under OVERLAP: 24 + 2 x 240 =
// 3 x 168, what a block of 3 warpgroups gets at launch (16384 registers per quarter of a
// multiprocessor, three warps in each).
#define RA_ATTN_WG_PRODUCER_REGS 24
#define RA_ATTN_WG_CONSUMER_REGS 240

#if defined(RA_WGMMA)
// Named barrier ID over the two consumer warpgroups: wait (with 128 arrivals of the other
// warpgroup), or arrive without waiting. (Immediate ids: a run-time id reserves all 16.)
template <int ID> RA_DEVICE void ra_attn_wg_bar_sync() {
    asm volatile("bar.sync %0, %1;\n" ::"n"(ID), "n"(RA_ATTN_WG_CONSUMERS) : "memory");
}
template <int ID> RA_DEVICE void ra_attn_wg_bar_arrive() {
    asm volatile("bar.arrive %0, %1;\n" ::"n"(ID), "n"(RA_ATTN_WG_CONSUMERS) : "memory");
}
// One arrival on the mbarrier at shared address `bar` from each lane where `one` is set, as a
// predicated instruction rather than a branch: a branch between warpgroup matrix instructions
// makes the compiler serialize them.
RA_DEVICE void ra_attn_wg_arrive_if(unsigned bar, bool one) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.u32 p, %1, 0;\n@p mbarrier.arrive.shared::cta.b64 _, [%0];\n}\n"
                 ::"r"(bar), "r"((unsigned)one) : "memory");
}
#endif

template <typename T, int D, int SCHED>
__global__ void RA_LAUNCH_BOUNDS(RA_ATTN_WG_THREADS(SCHED > 0))
ra_miopen_attention_fwd_wgmma(const RA_GRID_CONSTANT ra_tensor_map tma_q, const RA_GRID_CONSTANT ra_tensor_map tma_k,
                              const RA_GRID_CONSTANT ra_tensor_map tma_v, T* __restrict__ o, float* __restrict__ lse,
                              ra_attn_geom mk, ra_i64 H, ra_i64 HKV, int EV, double scale, int stages,
                              ra_i64 units) {
    static_assert(D == 64 || D == 128, "head-dimension class");
    static_assert(SCHED >= 0 && SCHED <= 2, "schedule");
#if defined(RA_WGMMA)
    constexpr bool OVERLAP = SCHED > 0, PINGPONG = SCHED == 2;
    constexpr int BM = RA_ATTN_WG_BM, BN = RA_ATTN_WG_BN;
    constexpr int WG = 4 * RA_WARP_SIZE;       // threads of a warpgroup
    constexpr int CB = D / 64;                 // 64-column blocks of a head
    constexpr unsigned Q_BYTES = CB * BM * 128u;
    constexpr unsigned K_BYTES = CB * BN * 128u;
    constexpr unsigned V_BYTES = (BN / 64) * CB * 8192u;
    constexpr unsigned SLOT = K_BYTES + V_BYTES;
    const int NS = stages;
    const ra_i64 L = mk.L, S = mk.S;
    const ra_i64 tiles = (L + BM - 1) / BM;
    // A unit is 128 queries of one (z, h), numbered (z, h) by (z, h) with the longest rows first
    // (causal); a block takes units blockIdx.x, blockIdx.x + gridDim.x, ... (one unit a block
    // when the grid has `units` blocks, a persistent block of several otherwise).
    struct Unit {
        ra_i64 zh, i0, kv;
        int ntiles;  // key tiles (those at or before the unit's last query when causal)
    };
    auto unit = [&](ra_i64 u) {
        Unit r;
        r.zh = u / tiles;
        r.i0 = (tiles - 1 - u % tiles) * BM;
        const ra_i64 h = r.zh % H, z = r.zh / H;
        r.kv = z * HKV + h / (H / HKV);
        const ra_i64 end = mk.causal ? ra_min<ra_i64>(S, r.i0 + BM) : S;
        r.ntiles = (int)((end + BN - 1) / BN);
        return r;
    };

    extern __shared__ ra_u64 ra_attn_wg_smem[];
    const unsigned qbar = ra_shared_address(ra_attn_wg_smem);
    // full: bars + 8 s; empty: bars + 8 (NS + s); Q empty (the consumers' products with the
    // unit's Q are done): bars + 8 (2 NS)
    const unsigned bars = qbar + 8u, qempty = bars + 8u * (2u * (unsigned)NS);
    const unsigned qs = (qbar + 8u * (2u + 2u * (unsigned)NS) + 1023u) & ~1023u;
    const unsigned ring = qs + Q_BYTES;
    if (threadIdx.x == 0) {
        ra_mbar_init(qbar, 1u);
        for (int s = 0; s < NS; ++s) {
            ra_mbar_init(bars + 8u * (unsigned)s, 1u);
            ra_mbar_init(bars + 8u * (unsigned)(NS + s), RA_ATTN_WG_CONSUMERS / RA_WARP_SIZE);
        }
        ra_mbar_init(qempty, RA_ATTN_WG_CONSUMERS / RA_WARP_SIZE);
        ra_mbar_init_fence();
    }
    __syncthreads();

    if (threadIdx.x >= RA_ATTN_WG_CONSUMERS) {
        // producer: one lane issues every copy
        if (OVERLAP) ra_wg_setmaxnreg_dec<RA_ATTN_WG_PRODUCER_REGS>();
        if (threadIdx.x != RA_ATTN_WG_CONSUMERS) return;
        // Tile jt of a unit into the ring; `pos` counts the tiles of the block's units so far
        // (the ring's position).
        auto load = [&](int pos, const Unit& un, int jt) {
            const int slot = pos % NS;
            const unsigned round = (unsigned)(pos / NS), full = bars + 8u * (unsigned)slot;
            if (round > 0) ra_mbar_wait(bars + 8u * (unsigned)(NS + slot), (round - 1u) & 1u);
            ra_mbar_expect_tx(full, SLOT);
            const unsigned ks = ring + (unsigned)slot * SLOT, vs = ks + K_BYTES;
#pragma unroll
            for (int cb = 0; cb < CB; ++cb)
                ra_tma_load_3d(ks + cb * BN * 128u, &tma_k, 64 * cb, jt * BN, (int)un.kv, full);
#pragma unroll
            for (int half = 0; half < BN / 64; ++half)
#pragma unroll
                for (int cb = 0; cb < CB; ++cb)
                    ra_tma_load_3d(vs + (unsigned)(half * CB + cb) * 8192u, &tma_v, 64 * cb, jt * BN + 64 * half,
                                   (int)un.kv, full);
        };
        int pos = 0, k = 0;
        for (ra_i64 u = blockIdx.x; u < units; u += gridDim.x, ++k) {
            const Unit un = unit(u);
            // Q of the next unit once the consumers' products with the last one's are done
            if (k > 0) ra_mbar_wait(qempty, (unsigned)(k - 1) & 1u);
            ra_mbar_expect_tx(qbar, Q_BYTES);
#pragma unroll
            for (int cb = 0; cb < CB; ++cb)
                ra_tma_load_3d(qs + cb * BM * 128u, &tma_q, 64 * cb, (int)un.i0, (int)un.zh, qbar);
            for (int jt = 0; jt < un.ntiles; ++jt) load(pos + jt, un, jt);
            pos += un.ntiles;
        }
        return;
    }

    // consumers
    if (OVERLAP) ra_wg_setmaxnreg_inc<RA_ATTN_WG_CONSUMER_REGS>();
    const int wg = (int)threadIdx.x / WG;
    const int t_in = (int)threadIdx.x % WG, w = t_in / RA_WARP_SIZE, lane = t_in % RA_WARP_SIZE;
    const int g = lane >> 2, t = lane & 3;
    const float LOG2E = 1.4426950408889634f, LN2 = 0.6931471805599453f;
    const float neg_inf = ra_attn_neg_inf<float>();
    const float sc2 = (float)scale * LOG2E;
    ra_i64 r_first = 0;  // the warpgroup's first query (of the unit being computed)
    ra_i64 r_mine = 0;   // the thread's first row (the second: + 8)
    int pos = 0;         // tiles of the block's earlier units (the ring's position)
    const unsigned qa = qs + 64u * 128u * (unsigned)wg;

    float sacc[BN / 2], oacc[D / 2];
    float m[2], l[2];  // l: this lane's part of the row sums
    ra_u32 pa[BN / 16][4], pb[BN / 16][4];                  // P as A fragments (pb: OVERLAP's next tile)
    float alpha[2];

    // S = Q K^T of the slot's K tile, issued as one group (the caller fences before).
    auto issue_s = [&](int s_slot) {
        const unsigned ks = ring + (unsigned)s_slot * SLOT;
#pragma unroll
        for (int s = 0; s < D / 16; ++s)  // k steps of 16: 32 bytes of a 128-byte row
            ra_wgmma_m64k16_acc<T, BN>::template run<0, 0>(
                sacc, ra_gemm_wg_desc(qa + (unsigned)(s / 4) * BM * 128u + 32u * (unsigned)(s % 4), 16u, 1024u),
                ra_gemm_wg_desc(ks + (unsigned)(s / 4) * BN * 128u + 32u * (unsigned)(s % 4), 16u, 1024u), s > 0);
        ra_gemm_wg_commit();
    };
    // O += P V of the slot's V tile, issued as one group (the caller fences before).
    auto issue_pv = [&](int s_slot, ra_u32 (&p)[BN / 16][4]) {
        const unsigned vs = ring + (unsigned)s_slot * SLOT + K_BYTES;
#pragma unroll
        for (int kk = 0; kk < BN / 16; ++kk)  // k steps of 16 keys: 2 KiB into a 64-key half
            ra_wgmma_m64k16_rs<T, D>::template run<1>(
                oacc, p[kk], ra_gemm_wg_desc(vs + (unsigned)(kk / 4) * CB * 8192u + 2048u * (unsigned)(kk % 4),
                                             8192u, 1024u));
        ra_gemm_wg_commit();
    };
    // The online softmax of tile jt's scores (complete in sacc): the running maxima and sums, the
    // factors alpha that the output must be rescaled by, and P into p.
    auto softmax = [&](int jt, ra_u32 (&p)[BN / 16][4]) {
        const ra_i64 j0 = (ra_i64)jt * BN;
        // A tile inside S and wholly at or below the causal diagonal for every row of the
        // warpgroup takes every score unmasked; a positive scale keeps the scores' order, so
        // they stay unscaled until the exponent.
        const bool whole = sc2 > 0.0f && j0 + BN <= S && (!mk.causal || j0 + BN - 1 <= r_first);
        const float f = whole ? sc2 : 1.0f;
        // Row maxima as four independent chains a row (fmaxf: one instruction, no compare and
        // select; a NaN score is dropped here but still reaches P, the sums and the output through
        // its exponential), so the reduction's latency is short beside the exponentials.
        // The masking is one branch around the whole tile's scores: inside the maxima's loop the
        // compiler predicates it per score, and whole tiles then issue its compares and selects.
        if (!whole) {
            // keys past S, and after the row's query when causal: the row's key limit
            const ra_i64 lim0 = mk.causal ? ra_min<ra_i64>(S, r_mine + 1) : S;
            const ra_i64 lim1 = mk.causal ? ra_min<ra_i64>(S, r_mine + 9) : S;
            const ra_i64 k0 = j0 + 2 * t;
#pragma unroll
            for (int j = 0; j < BN / 8; ++j)
#pragma unroll
                for (int c = 0; c < 4; ++c) {
                    const ra_i64 key = k0 + 8 * j + (c & 1);
                    sacc[4 * j + c] = key < ((c >> 1) ? lim1 : lim0) ? sacc[4 * j + c] * sc2 : neg_inf;
                }
        }
        float top[2][4];
#pragma unroll
        for (int rr = 0; rr < 2; ++rr)
#pragma unroll
            for (int q = 0; q < 4; ++q) top[rr][q] = neg_inf;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j)
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                float& chain = top[c >> 1][2 * (j & 1) + (c & 1)];
                chain = fmaxf(chain, sacc[4 * j + c]);
            }
        float base[2];
#pragma unroll
        for (int rr = 0; rr < 2; ++rr) {
            float row = fmaxf(fmaxf(top[rr][0], top[rr][1]), fmaxf(top[rr][2], top[rr][3]));
            row = fmaxf(row, ra_shfl_xor(row, 1));
            row = fmaxf(row, ra_shfl_xor(row, 2));
            const float m_new = fmaxf(m[rr], row * f);
            // (every score of the row so far is -inf when m_new is: base 0 keeps the exponents
            // finite, and alpha = 2^(-inf) = 0 rescales the zero output and sums)
            base[rr] = m_new == neg_inf ? 0.0f : m_new;
            alpha[rr] = exp2f(m[rr] - base[rr]);
            m[rr] = m_new;
            l[rr] *= alpha[rr];
        }
        // Two partial sums a row, added to the running sums at the end.
        float part[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
#pragma unroll
        for (int kk = 0; kk < BN / 16; ++kk)
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                const float p0 = exp2f(ra_fma(sacc[8 * kk + 2 * r], f, -base[r & 1]));
                const float p1 = exp2f(ra_fma(sacc[8 * kk + 2 * r + 1], f, -base[r & 1]));
                part[r & 1][kk & 1] += p0 + p1;
                p[kk][r] = ra_attn_pack<T>(p0, p1);
            }
#pragma unroll
        for (int rr = 0; rr < 2; ++rr) l[rr] += part[rr][0] + part[rr][1];
    };
    auto rescale = [&]() {
#pragma unroll
        for (int j = 0; j < D / 8; ++j)
#pragma unroll
            for (int c = 0; c < 4; ++c) oacc[4 * j + c] *= alpha[c >> 1];
    };
    // Tile jt of the unit being computed: wait until its K and V have arrived; give its slot back.
    auto wait_tile = [&](int jt) {
        ra_mbar_wait(bars + 8u * (unsigned)((pos + jt) % NS), (unsigned)((pos + jt) / NS) & 1u);
    };
    auto release = [&](int jt) { ra_attn_wg_arrive_if(bars + 8u * (unsigned)(NS + (pos + jt) % NS), lane == 0); };
    // PINGPONG: wait for this warpgroup's turn to issue; give the other warpgroup its turn.
    auto my_turn = [&]() {
        if (PINGPONG) {
            if (wg == 0) ra_attn_wg_bar_sync<1>();
            else ra_attn_wg_bar_sync<2>();
        }
    };
    auto their_turn = [&](bool last) {
        if (PINGPONG) {
            if (wg == 0) ra_attn_wg_bar_arrive<2>();
            else if (!last) ra_attn_wg_bar_arrive<1>();
        }
    };

    // The products with the unit's Q are done: the producer may copy the next unit's.
    auto release_q = [&]() { ra_attn_wg_arrive_if(qempty, lane == 0); };

    int k = 0;
    for (ra_i64 u = blockIdx.x; u < units; u += gridDim.x, ++k) {
        const Unit un = unit(u);
        const int ntiles = un.ntiles;  // (>= 1: the Python layer launches no call without keys)
        r_first = un.i0 + 64 * wg;
        r_mine = r_first + 16 * w + g;
#pragma unroll
        for (int e = 0; e < D / 2; ++e) oacc[e] = 0.0f;
        m[0] = m[1] = neg_inf;
        l[0] = l[1] = 0.0f;
        ra_mbar_wait(qbar, (unsigned)k & 1u);
        if (!OVERLAP) {
            for (int jt = 0; jt < ntiles; ++jt) {
                wait_tile(jt);
                ra_gemm_wg_fence();
                issue_s((pos + jt) % NS);
                ra_gemm_wg_wait<0>();
                ra_gemm_wg_fence_operands(sacc);
                softmax(jt, pa);
                rescale();
                ra_gemm_wg_fence_fragment(pa);
                ra_gemm_wg_fence_operands(oacc);
                ra_gemm_wg_fence();
                issue_pv((pos + jt) % NS, pa);
                ra_gemm_wg_wait<0>();
                ra_gemm_wg_fence_operands(oacc);
                ra_gemm_wg_fence_fragment(pa);  // (the registers stay P's until the group is done)
                release(jt);
            }
            release_q();
        } else {
            // FlashAttention-3's intra-warpgroup overlap: S of tile jt is issued before O += P V
            // of tile jt - 1, and the softmax of tile jt runs while the second product is in
            // flight; the output is rescaled by tile jt - 1's factors between the two issues
            // (while S runs, not on the path from one tile's last product to the next one's
            // first). P alternates between pa and pb.
            if (PINGPONG && wg == 1) ra_attn_wg_bar_arrive<1>();  // warpgroup 0 issues first
            wait_tile(0);
            ra_gemm_wg_fence();
            my_turn();
            issue_s(pos % NS);
            their_turn(false);
            ra_gemm_wg_wait<0>();
            ra_gemm_wg_fence_operands(sacc);
            softmax(0, pa);  // (the output is zero: no rescaling)
            // (p_prev and p_next are named arrays at every call: registers, never indexed at run
            // time)
            auto step = [&](int jt, ra_u32 (&p_prev)[BN / 16][4], ra_u32 (&p_next)[BN / 16][4]) {
                wait_tile(jt);
                ra_gemm_wg_fence_operands(sacc);
                ra_gemm_wg_fence();
                my_turn();
                issue_s((pos + jt) % NS);
                rescale();  // by tile jt - 1's factors, while S of tile jt runs
                ra_gemm_wg_fence_fragment(p_prev);
                ra_gemm_wg_fence_operands(oacc);
                ra_gemm_wg_fence();
                issue_pv((pos + jt - 1) % NS, p_prev);
                their_turn(false);
                ra_gemm_wg_wait<1>();  // S of tile jt is done; O += P V of tile jt - 1 may not be
                ra_gemm_wg_fence_operands(sacc);
                softmax(jt, p_next);
                ra_gemm_wg_wait<0>();
                ra_gemm_wg_fence_operands(oacc);
                ra_gemm_wg_fence_fragment(p_prev);  // (the registers stay P's until the group is done)
                release(jt - 1);
            };
            auto finish = [&](ra_u32 (&p_last)[BN / 16][4]) {
                release_q();  // (every S of the unit is done)
                rescale();
                ra_gemm_wg_fence_fragment(p_last);
                ra_gemm_wg_fence_operands(oacc);
                ra_gemm_wg_fence();
                my_turn();
                issue_pv((pos + ntiles - 1) % NS, p_last);
                their_turn(true);
                ra_gemm_wg_wait<0>();
                ra_gemm_wg_fence_operands(oacc);
                ra_gemm_wg_fence_fragment(p_last);
                release(ntiles - 1);
            };
            int jt = 1;
            for (; jt + 1 < ntiles; jt += 2) {
                step(jt, pa, pb);
                step(jt + 1, pb, pa);
            }
            if (jt < ntiles) {
                step(jt, pa, pb);
                finish(pb);
            } else {
                finish(pa);
            }
        }

        const bool pairs = (EV & 1) == 0;  // then a pair's first column is even: 4-byte aligned
#pragma unroll
        for (int rr = 0; rr < 2; ++rr) {
            const ra_i64 i = r_mine + 8 * rr;
            float total = l[rr];
            total += ra_shfl_xor(total, 1);
            total += ra_shfl_xor(total, 2);
            if (i < L) {
                const float inv = total > 0.0f ? 1.0f / total : 0.0f;
                T* orow = o + (un.zh * L + i) * EV;
#pragma unroll
                for (int j = 0; j < D / 8; ++j) {
                    const int col = 8 * j + 2 * t;
                    if (col >= EV) continue;
                    const T lo = ra_traits<T>::from_acc(oacc[4 * j + 2 * rr] * inv);
                    const T hi = ra_traits<T>::from_acc(oacc[4 * j + 2 * rr + 1] * inv);
                    if (pairs) {
                        *reinterpret_cast<ra_u32*>(orow + col) = (ra_u32)lo.bits | ((ra_u32)hi.bits << 16);
                    } else {
                        orow[col] = lo;
                        if (col + 1 < EV) orow[col + 1] = hi;
                    }
                }
                if (t == 0) lse[un.zh * L + i] = total > 0.0f ? m[rr] * LN2 + logf(total) : neg_inf;
            }
        }
        pos += ntiles;
    }
#endif
}
