// Group normalization: the C channels of each sample split into G groups of Cg = C / G; group
// k = n * G + g is normalized over its Cg channels and S spatial positions, then the per-channel
// affine map applies.
//
// A group is a set of `reps` runs of `len` contiguous elements, run r of group k starting at
// (k / G) * bn + (k % G) * bg + r * stride:
//   channels first: one run of Cg * S elements (bn = C * S, bg = Cg * S);
//   channels last:  S runs of Cg elements, stride C (bn = S * C, bg = Cg).
// Block (k, y) of grid (N * G, Y) owns the flat range [y * chunk, (y + 1) * chunk) of group k's
// reps * len elements. Statistics read the input once (per-thread batches merged with Chan et
// al.'s pairwise update, a tree across the block, the last block of a group merging the Y
// partials in split order: the same result on every run). The elementwise kernel walks each
// block's range backwards (the statistics pass read its end last, so it starts in L2) and
// computes out = s_k w[c] (in0 - u_k) + e_k (in1 - v_k) + B_k + b[c] from the per-group
// coefficients coef[k + j K] (j = 0..4: s, u, e, v, B; K = N * G groups): centred before scaled. Weight/bias gradients are
// per-channel sums over n and the spatial axes (channels-first: a block per (channel, split);
// channels-last: a block per (row split, channel tile)). Arithmetic in ra_traits<T>::acc.

#define RA_GN_BLOCK 256
#define RA_GN_UNROLL 4

template <typename T> struct ra_gn_vec { static constexpr int N = sizeof(T) >= 16 ? 1 : 16 / (int)sizeof(T); };
template <typename T, int V> struct alignas(V * sizeof(T)) ra_gn_pack { T v[V]; };

template <typename T, int V, typename A> RA_DEVICE void ra_gn_load(const T* p, A* out) {
    const ra_gn_pack<T, V> pk = *reinterpret_cast<const ra_gn_pack<T, V>*>(p);
#pragma unroll
    for (int i = 0; i < V; ++i) out[i] = ra_traits<T>::to_acc(pk.v[i]);
}
template <typename T, int V, typename A> RA_DEVICE void ra_gn_store(T* p, const A* in) {
    ra_gn_pack<T, V> pk;
#pragma unroll
    for (int i = 0; i < V; ++i) pk.v[i] = ra_traits<T>::from_acc(in[i]);
    *reinterpret_cast<ra_gn_pack<T, V>*>(p) = pk;
}

// The partial pairs (part[2 q], part[2 q + 1]) of slots q = first + i * step < last, read past
// the L1 (other blocks wrote them) RA_GN_BATCH at a time so their latencies overlap, and
// folded in slot order: f(i, a, b) for each.
#define RA_GN_BATCH 8
template <typename A, typename F>
RA_DEVICE void ra_gn_partials(const A* part, ra_i64 base, ra_i64 first, ra_i64 last, ra_i64 step, F f) {
    for (ra_i64 q0 = first; q0 < last; q0 += RA_GN_BATCH * step) {
        A a[RA_GN_BATCH], b[RA_GN_BATCH];
#pragma unroll
        for (int u = 0; u < RA_GN_BATCH; ++u) {
            const ra_i64 q = q0 + u * step;
            if (q < last) {
                a[u] = *(const volatile A*)(part + 2 * (base + q));
                b[u] = *(const volatile A*)(part + 2 * (base + q) + 1);
            }
        }
#pragma unroll
        for (int u = 0; u < RA_GN_BATCH; ++u) {
            if (q0 + u * step < last) f(q0 + u * step, a[u], b[u]);
        }
    }
}
RA_DEVICE float ra_gn_rsqrt(float v) { return 1.0f / sqrtf(v); }
RA_DEVICE double ra_gn_rsqrt(double v) { return 1.0 / sqrt(v); }

template <typename A> RA_DEVICE void ra_gn_merge(A& n, A& mean, A& m2, A nb, A meanb, A m2b) {
    if (nb == A(0)) return;
    const A total = n + nb;
    const A delta = meanb - mean;
    const A f = nb / total;
    mean += delta * f;
    m2 += m2b + delta * delta * n * f;
    n = total;
}

// Tree over the `rows` threads of each of `cols` columns (thread = row * cols + col), one or two
// sums or a (n, mean, m2) state; row 0 ends with the column's result; ends with a barrier.
template <typename A>
RA_DEVICE void ra_gn_tree_merge(A& n, A& mean, A& m2, int row, int rows, int col, int cols, A* s0, A* s1, A* s2) {
    const int i = row * cols + col;
    s0[i] = n;
    s1[i] = mean;
    s2[i] = m2;
    __syncthreads();
    for (int s = rows / 2; s > 0; s >>= 1) {
        if (row < s) {
            const int o = i + s * cols;
            ra_gn_merge(n, mean, m2, s0[o], s1[o], s2[o]);
            s0[i] = n;
            s1[i] = mean;
            s2[i] = m2;
        }
        __syncthreads();
    }
}
template <typename A> RA_DEVICE void ra_gn_tree_sum(A& a, A& b, int row, int rows, int col, int cols, A* sa, A* sb) {
    const int i = row * cols + col;
    sa[i] = a;
    sb[i] = b;
    __syncthreads();
    for (int s = rows / 2; s > 0; s >>= 1) {
        if (row < s) {
            a += sa[i + s * cols];
            b += sb[i + s * cols];
            sa[i] = a;
            sb[i] = b;
        }
        __syncthreads();
    }
}

RA_DEVICE bool ra_gn_last_block(unsigned int* ticket, unsigned int count, int* flag) {
    ra_threadfence();  // each thread's partials (several threads write them) before the ticket
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned int t = ra_atomic_inc_u32(ticket);
        const bool last = t == count - 1;
        if (last) *ticket = 0u;
        *flag = last ? 1 : 0;
    }
    __syncthreads();
    const bool last = *flag != 0;
    if (last) ra_threadfence();
    return last;
}

RA_DEVICE ra_i64 ra_gn_split_count(ra_i64 total, ra_i64 chunk, ra_i64 y) {
    const ra_i64 left = total - y * chunk;
    return left < chunk ? (left > 0 ? left : 0) : chunk;
}

// The geometry of one group's element range.
struct ra_gn_seg {
    ra_i64 base, len, stride;
    RA_DEVICE ra_i64 at(ra_i64 f, ra_i64& i) const {  // offset of flat element f; i: its place in its run
        ra_i64 r;
        ra_divmod_i64(f, len, r, i);
        return base + r * stride + i;
    }
};

template <int V, typename T, typename A>
RA_DEVICE void ra_gn_moments(const T* x, ra_gn_seg seg, ra_i64 f0, ra_i64 f1, A& n, A& mean, A& m2) {
    for (ra_i64 base = f0 + (ra_i64)threadIdx.x * V; base < f1; base += (ra_i64)RA_GN_BLOCK * RA_GN_UNROLL * V) {
        A vals[RA_GN_UNROLL * V];
        int cnt = 0;
#pragma unroll
        for (int u = 0; u < RA_GN_UNROLL; ++u) {
            const ra_i64 f = base + (ra_i64)u * RA_GN_BLOCK * V;
            if (f < f1) {
                ra_i64 i;
                ra_gn_load<T, V>(x + seg.at(f, i), vals + u * V);
                cnt += V;
            }
        }
        if (cnt == 0) continue;
        A s = A(0);
#pragma unroll
        for (int q = 0; q < RA_GN_UNROLL * V; ++q) s += q < cnt ? vals[q] : A(0);
        const A mb = s / A(cnt);
        A sq = A(0);
#pragma unroll
        for (int q = 0; q < RA_GN_UNROLL * V; ++q) sq += q < cnt ? (vals[q] - mb) * (vals[q] - mb) : A(0);
        ra_gn_merge(n, mean, m2, A(cnt), mb, sq);
    }
}

// Statistics of every group; the finishing block of group k writes mean, invstd and the forward
// coefficients (s = invstd, u = mean, e = B = 0). vec: len, stride, bn, bg multiples of the vector
// width, x 16-byte aligned.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_GN_BLOCK)
ra_miopen_gn_stats(const T* RA_RESTRICT x, ra_i64 G, ra_i64 bn, ra_i64 bg, ra_i64 reps, ra_i64 len, ra_i64 stride,
                   ra_i64 chunk, int vec, typename ra_traits<T>::acc eps, typename ra_traits<T>::acc* RA_RESTRICT part,
                   unsigned int* RA_RESTRICT tickets, typename ra_traits<T>::acc* RA_RESTRICT mean_out,
                   typename ra_traits<T>::acc* RA_RESTRICT invstd_out, typename ra_traits<T>::acc* RA_RESTRICT coef) {
    typedef typename ra_traits<T>::acc A;
    constexpr int V = ra_gn_vec<T>::N;
    __shared__ A s0[RA_GN_BLOCK], s1[RA_GN_BLOCK], s2[RA_GN_BLOCK];
    __shared__ int flag;
    const ra_i64 k = blockIdx.x, K = gridDim.x, y = blockIdx.y, splits = gridDim.y, total = reps * len;
    const ra_gn_seg seg = {(k / G) * bn + (k % G) * bg, len, stride};
    const ra_i64 f0 = y * chunk, f1 = ra_min(f0 + chunk, total);
    A n = A(0), mean = A(0), m2 = A(0);
    if (vec) {
        ra_gn_moments<V>(x, seg, f0, f1, n, mean, m2);
    } else {
        ra_gn_moments<1>(x, seg, f0, f1, n, mean, m2);
    }
    const int t = (int)threadIdx.x;
    ra_gn_tree_merge(n, mean, m2, t, RA_GN_BLOCK, 0, 1, s0, s1, s2);
    if (t == 0) {
        part[2 * (k * splits + y)] = mean;
        part[2 * (k * splits + y) + 1] = m2;
    }
    if (!ra_gn_last_block(tickets + k, (unsigned int)splits, &flag)) return;
    n = mean = m2 = A(0);
    ra_gn_partials(part, k * splits, (ra_i64)t, splits, (ra_i64)RA_GN_BLOCK, [&](ra_i64 q, A pm, A pq) {
        ra_gn_merge(n, mean, m2, A(ra_gn_split_count(total, chunk, q)), pm, pq);
    });
    ra_gn_tree_merge(n, mean, m2, t, RA_GN_BLOCK, 0, 1, s0, s1, s2);
    if (t != 0) return;
    const A invstd = ra_gn_rsqrt(m2 / A(total) + eps);
    mean_out[k] = mean;
    invstd_out[k] = invstd;
    coef[k] = invstd;
    coef[K + k] = mean;
    coef[2 * K + k] = A(0);
    coef[3 * K + k] = A(0);
    coef[4 * K + k] = A(0);
}

// Channel of element i of a run: channels last, g Cg + i; channels first, g Cg + i / S.
template <bool LAST> RA_DEVICE ra_i64 ra_gn_channel(ra_i64 g, ra_i64 Cg, ra_i64 S, ra_i64 i) {
    if (LAST) return g * Cg + i;
    ra_i64 q, r;
    ra_divmod_i64(i, S, q, r);
    return g * Cg + q;
}

template <int V, bool LAST, typename T, typename A>
RA_DEVICE void ra_gn_apply_range(const T* in0, const T* in1, T* out, ra_gn_seg seg, ra_i64 f0, ra_i64 f1, ra_i64 g,
                                 ra_i64 Cg, ra_i64 S, const A* weight, const A* bias, A s, A u, A e, A v, A B) {
    // backwards: the statistics pass read the end of the range last. A vector lies in one run
    // (len % V == 0) and, channels first, in one channel (S % V == 0): channels c0 + j (last) or c0.
    const ra_i64 nv = (f1 - f0) / V;
    for (ra_i64 w = nv - 1 - threadIdx.x; w >= 0; w -= RA_GN_BLOCK) {
        ra_i64 i;
        const ra_i64 at = seg.at(f0 + w * V, i);
        A p[V], q[V];
        ra_gn_load<T, V>(in0 + at, p);
        if (in1 != nullptr) ra_gn_load<T, V>(in1 + at, q);
        const ra_i64 c0 = ra_gn_channel<LAST>(g, Cg, S, i);
#pragma unroll
        for (int j = 0; j < V; ++j) {
            const ra_i64 c = LAST ? c0 + j : c0;
            const A a = weight != nullptr ? s * weight[c] : s;
            A r = a * (p[j] - u) + B;
            if (bias != nullptr) r += bias[c];
            if (in1 != nullptr) r += e * (q[j] - v);
            p[j] = r;
        }
        ra_gn_store<T, V>(out + at, p);
    }
}

// out = s w[c] (in0 - u) + e (in1 - v) + B + b[c] per group (module comment); in1 may be null.
template <typename T, bool LAST>
__global__ void RA_LAUNCH_BOUNDS(RA_GN_BLOCK)
ra_miopen_gn_apply(const T* RA_RESTRICT in0, const T* RA_RESTRICT in1, T* RA_RESTRICT out, ra_i64 G, ra_i64 Cg,
                   ra_i64 S, ra_i64 bn, ra_i64 bg, ra_i64 reps, ra_i64 len, ra_i64 stride, ra_i64 chunk, int vec,
                   const typename ra_traits<T>::acc* RA_RESTRICT weight,
                   const typename ra_traits<T>::acc* RA_RESTRICT bias,
                   const typename ra_traits<T>::acc* RA_RESTRICT coef) {
    typedef typename ra_traits<T>::acc A;
    constexpr int V = ra_gn_vec<T>::N;
    const ra_i64 k = blockIdx.x, K = gridDim.x, y = blockIdx.y, total = reps * len;
    const ra_gn_seg seg = {(k / G) * bn + (k % G) * bg, len, stride};
    const ra_i64 f0 = y * chunk, f1 = ra_min(f0 + chunk, total);
    const A s = coef[k], u = coef[K + k], e = coef[2 * K + k], v = coef[3 * K + k], B = coef[4 * K + k];
    if (vec) {
        ra_gn_apply_range<V, LAST>(in0, in1, out, seg, f0, f1, k % G, Cg, S, weight, bias, s, u, e, v, B);
    } else {
        ra_gn_apply_range<1, LAST>(in0, in1, out, seg, f0, f1, k % G, Cg, S, weight, bias, s, u, e, v, B);
    }
}

template <int V, bool LAST, typename T, typename A>
RA_DEVICE void ra_gn_sums(const T* dy, const T* x, ra_gn_seg seg, ra_i64 f0, ra_i64 f1, ra_i64 g, ra_i64 Cg, ra_i64 S,
                          const A* weight, A mean, A invstd, A& s1, A& s2) {
    for (ra_i64 f = f0 + (ra_i64)threadIdx.x * V; f < f1; f += (ra_i64)RA_GN_BLOCK * V) {
        ra_i64 i;
        const ra_i64 at = seg.at(f, i);
        A p[V], q[V];
        ra_gn_load<T, V>(dy + at, p);
        ra_gn_load<T, V>(x + at, q);
        const ra_i64 c0 = ra_gn_channel<LAST>(g, Cg, S, i);
#pragma unroll
        for (int j = 0; j < V; ++j) {
            const A gv = weight != nullptr ? p[j] * weight[LAST ? c0 + j : c0] : p[j];
            s1 += gv;
            s2 += gv * (q[j] - mean) * invstd;
        }
    }
}

// Per group: s1 = sum g, s2 = sum g xhat (g = dy w[c]); the finishing block writes the dx
// coefficients: dx = invstd w[c] dy + A (x - mean) + B with A = -invstd^2 s2 / L,
// B = -invstd s1 / L (coef: s = invstd, u = 0, e = A, v = mean, B).
template <typename T, bool LAST>
__global__ void RA_LAUNCH_BOUNDS(RA_GN_BLOCK)
ra_miopen_gn_backward_reduce(const T* RA_RESTRICT dy, const T* RA_RESTRICT x, ra_i64 G, ra_i64 Cg, ra_i64 S,
                             ra_i64 bn, ra_i64 bg, ra_i64 reps, ra_i64 len, ra_i64 stride, ra_i64 chunk, int vec,
                             const typename ra_traits<T>::acc* RA_RESTRICT weight,
                             const typename ra_traits<T>::acc* RA_RESTRICT mean,
                             const typename ra_traits<T>::acc* RA_RESTRICT invstd,
                             typename ra_traits<T>::acc* RA_RESTRICT part, unsigned int* RA_RESTRICT tickets,
                             typename ra_traits<T>::acc* RA_RESTRICT coef) {
    typedef typename ra_traits<T>::acc A;
    constexpr int V = ra_gn_vec<T>::N;
    __shared__ A sa[RA_GN_BLOCK], sb[RA_GN_BLOCK];
    __shared__ int flag;
    const ra_i64 k = blockIdx.x, K = gridDim.x, y = blockIdx.y, splits = gridDim.y, total = reps * len;
    const ra_gn_seg seg = {(k / G) * bn + (k % G) * bg, len, stride};
    const ra_i64 f0 = y * chunk, f1 = ra_min(f0 + chunk, total);
    const A mu = mean[k], is = invstd[k];
    A s1 = A(0), s2 = A(0);
    if (vec) {
        ra_gn_sums<V, LAST>(dy, x, seg, f0, f1, k % G, Cg, S, weight, mu, is, s1, s2);
    } else {
        ra_gn_sums<1, LAST>(dy, x, seg, f0, f1, k % G, Cg, S, weight, mu, is, s1, s2);
    }
    const int t = (int)threadIdx.x;
    ra_gn_tree_sum(s1, s2, t, RA_GN_BLOCK, 0, 1, sa, sb);
    if (t == 0) {
        part[2 * (k * splits + y)] = s1;
        part[2 * (k * splits + y) + 1] = s2;
    }
    if (!ra_gn_last_block(tickets + k, (unsigned int)splits, &flag)) return;
    s1 = s2 = A(0);
    ra_gn_partials(part, k * splits, (ra_i64)t, splits, (ra_i64)RA_GN_BLOCK, [&](ra_i64, A a, A b) {
        s1 += a;
        s2 += b;
    });
    ra_gn_tree_sum(s1, s2, t, RA_GN_BLOCK, 0, 1, sa, sb);
    if (t != 0) return;
    const A L = A(total);
    coef[k] = is;
    coef[K + k] = A(0);
    coef[2 * K + k] = -is * is * s2 / L;
    coef[3 * K + k] = mu;
    coef[4 * K + k] = -is * s1 / L;
}

// grad_weight[c] = sum dy xhat, grad_bias[c] = sum dy over n and the spatial axes; channels
// first: block (c, y) of grid (C, Y) over channel c's flat j = n * S + s.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_GN_BLOCK)
ra_miopen_gn_param_sums_nchw(const T* RA_RESTRICT dy, const T* RA_RESTRICT x, ra_i64 N, ra_i64 C, ra_i64 S, ra_i64 G,
                             ra_i64 chunk, const typename ra_traits<T>::acc* RA_RESTRICT mean,
                             const typename ra_traits<T>::acc* RA_RESTRICT invstd,
                             typename ra_traits<T>::acc* RA_RESTRICT part, unsigned int* RA_RESTRICT tickets,
                             typename ra_traits<T>::acc* RA_RESTRICT grad_weight,
                             typename ra_traits<T>::acc* RA_RESTRICT grad_bias) {
    typedef typename ra_traits<T>::acc A;
    __shared__ A sa[RA_GN_BLOCK], sb[RA_GN_BLOCK];
    __shared__ int flag;
    const ra_i64 c = blockIdx.x, y = blockIdx.y, splits = gridDim.y, per_channel = N * S, g = c / (C / G);
    const ra_i64 j0 = y * chunk, j1 = ra_min(j0 + chunk, per_channel);
    A s1 = A(0), s2 = A(0);
    for (ra_i64 j = j0 + threadIdx.x; j < j1; j += RA_GN_BLOCK) {
        ra_i64 n, s;
        ra_divmod_i64(j, S, n, s);
        const ra_i64 at = (n * C + c) * S + s;
        const A d = ra_traits<T>::to_acc(dy[at]);
        s1 += d;
        s2 += d * (ra_traits<T>::to_acc(x[at]) - mean[n * G + g]) * invstd[n * G + g];
    }
    const int t = (int)threadIdx.x;
    ra_gn_tree_sum(s1, s2, t, RA_GN_BLOCK, 0, 1, sa, sb);
    if (t == 0) {
        part[2 * (c * splits + y)] = s1;
        part[2 * (c * splits + y) + 1] = s2;
    }
    if (!ra_gn_last_block(tickets + c, (unsigned int)splits, &flag)) return;
    s1 = s2 = A(0);
    ra_gn_partials(part, c * splits, (ra_i64)t, splits, (ra_i64)RA_GN_BLOCK, [&](ra_i64, A a, A b) {
        s1 += a;
        s2 += b;
    });
    ra_gn_tree_sum(s1, s2, t, RA_GN_BLOCK, 0, 1, sa, sb);
    if (t != 0) return;
    grad_bias[c] = s1;
    if (grad_weight != nullptr) grad_weight[c] = s2;
}

// The same sums channels last: block (y, tile) of grid (Y, T), threads rows x cols, thread
// (row, col) on channel tile * cols + col and rows m = row, row + rows, ... of its split.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_GN_BLOCK)
ra_miopen_gn_param_sums_nhwc(const T* RA_RESTRICT dy, const T* RA_RESTRICT x, ra_i64 M, ra_i64 C, ra_i64 S, ra_i64 G,
                             int cols, ra_i64 chunk, const typename ra_traits<T>::acc* RA_RESTRICT mean,
                             const typename ra_traits<T>::acc* RA_RESTRICT invstd,
                             typename ra_traits<T>::acc* RA_RESTRICT part, unsigned int* RA_RESTRICT tickets,
                             typename ra_traits<T>::acc* RA_RESTRICT grad_weight,
                             typename ra_traits<T>::acc* RA_RESTRICT grad_bias) {
    typedef typename ra_traits<T>::acc A;
    __shared__ A sa[RA_GN_BLOCK], sb[RA_GN_BLOCK];
    __shared__ int flag;
    const int rows = RA_GN_BLOCK / cols, row = (int)threadIdx.x / cols, col = (int)threadIdx.x % cols;
    const ra_i64 y = blockIdx.x, splits = gridDim.x, c = (ra_i64)blockIdx.y * cols + col;
    const ra_i64 m0 = y * chunk, m1 = ra_min(m0 + chunk, M);
    A s1 = A(0), s2 = A(0);
    if (c < C) {
        const ra_i64 g = c / (C / G);
        for (ra_i64 m = m0 + row; m < m1; m += rows) {
            ra_i64 n, s;
            ra_divmod_i64(m, S, n, s);
            const A d = ra_traits<T>::to_acc(dy[m * C + c]);
            s1 += d;
            s2 += d * (ra_traits<T>::to_acc(x[m * C + c]) - mean[n * G + g]) * invstd[n * G + g];
        }
    }
    ra_gn_tree_sum(s1, s2, row, rows, col, cols, sa, sb);
    if (row == 0 && c < C) {
        part[2 * (c * splits + y)] = s1;
        part[2 * (c * splits + y) + 1] = s2;
    }
    if (!ra_gn_last_block(tickets + blockIdx.y, (unsigned int)splits, &flag)) return;
    s1 = s2 = A(0);
    if (c < C) {
        ra_gn_partials(part, c * splits, (ra_i64)row, splits, (ra_i64)rows, [&](ra_i64, A a, A b) {
            s1 += a;
            s2 += b;
        });
    }
    ra_gn_tree_sum(s1, s2, row, rows, col, cols, sa, sb);
    if (row != 0 || c >= C) return;
    grad_bias[c] = s1;
    if (grad_weight != nullptr) grad_weight[c] = s2;
}
