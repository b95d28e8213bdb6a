// Batch normalization: per-channel statistics of a batch, the normalize pass, and the backward.
//
// Two layouts, each seen through one view:
//   channels first ("nchw"): x[(n * C + c) * S + s], n < N, s < S (S: the spatial size, 1 for (N, C));
//   channels last  ("nhwc"): x[m * C + c], m < M (M = N * S rows).
// Work decomposition (the same grid for the statistics, the backward reductions and the
// elementwise passes of one call, so an elementwise pass walking each block's range backwards
// starts on the data its statistics pass read last, still in L2):
//   nchw: block (c, y) of grid (C, Y) owns the flat range [y * chunk, (y + 1) * chunk) of channel
//         c's N * S elements (flat j = n * S + s);
//   nhwc: block (y, t) of grid (Y, T) owns rows [y * chunk, (y + 1) * chunk) of the TC * W
//         channels of tile t; its threads are TR x TC (TR * TC = RA_BN_BLOCK, TC a power of two),
//         thread (r, k) takes channels (t * TC + k) * W .. + W - 1 and rows r, r + TR, ...
//         (W: 1, or a 16-byte vector of channels in the forward when C is a multiple of it).
// Statistics read the input once: each thread keeps a ring of loads in flight (ra_bn_ring) and
// folds them a group at a time into its running (count, mean, M2) with the pairwise update of
// Chan, Golub & LeVeque (1979), the group's own mean and M2 taken exactly from registers (Welford
// 1962 is the one-element case);
// threads merge the same way in a shared-memory tree, each block publishes its partial, and the
// last block of a channel (integer ticket, as the threadFenceReduction scheme) merges the Y
// partials in split order: no floating-point atomics, the same result on every run.
// Sums and statistics run in ra_traits<T>::acc (float for the 16-bit types, double for double).
// Per-channel coefficients of the elementwise passes, coef[c + j C] for j = 0..4 = (a, m0, b, m1,
// d): out = a (in0 - m0) + b (in1 - m1) + d (in1 absent in the forward). Centring before scaling
// keeps the result accurate when a channel's mean is large against its spread.
// The channels-first training forward can also run in one cooperative launch that reads its
// input once (ra_miopen_bn_train_pipe_nchw, below).

#define RA_BN_BLOCK 256
#define RA_BN_UNROLL 4

// Blocks of the statistics kernels resident per NVIDIA multiprocessor (CHANNELS_LAST: 0 or 1),
// the most that ptxas fits without spilling in the loop: float32 four (64 registers a thread, the
// occupancy of the float32 channels-first elementwise pass on the same grid, so the grid that
// fills the device once for one fills it for both), float16 three (80); bfloat16 and float64 as
// the compiler allocates (they spill at three). HIP's second bound means waves per SIMD: left to the compiler there.
template <typename T, int CHANNELS_LAST> struct ra_bn_stats_blocks { static constexpr int N = 1; };
template <int L> struct ra_bn_stats_blocks<float, L> { static constexpr int N = 4; };
template <int L> struct ra_bn_stats_blocks<ra_half, L> { static constexpr int N = 3; };
#if defined(RA_CUDA)
#define RA_BN_STATS_LAUNCH_BOUNDS(threads, channels_last) \
    __launch_bounds__(threads, (ra_bn_stats_blocks<T, channels_last>::N))
#else
#define RA_BN_STATS_LAUNCH_BOUNDS(threads, channels_last) __launch_bounds__(threads)
#endif

template <typename T> struct ra_bn_vec { static constexpr int N = sizeof(T) >= 16 ? 1 : 16 / (int)sizeof(T); };
template <typename T, int V> struct alignas(V * sizeof(T)) ra_bn_pack { T v[V]; };

template <typename T, int V, typename A> RA_DEVICE void ra_bn_load(const T* p, A* out) {
    const ra_bn_pack<T, V> pk = *reinterpret_cast<const ra_bn_pack<T, V>*>(p);
#pragma unroll
    for (int i = 0; i < V; ++i) out[i] = ra_traits<T>::to_acc(pk.v[i]);
}
template <typename T, int V, typename A> RA_DEVICE void ra_bn_store(T* p, const A* in) {
    ra_bn_pack<T, V> pk;
#pragma unroll
    for (int i = 0; i < V; ++i) pk.v[i] = ra_traits<T>::from_acc(in[i]);
    *reinterpret_cast<ra_bn_pack<T, V>*>(p) = pk;
}


// The partial pairs (part[2 q], part[2 q + 1]) of slots q = first + i * step < last, read past
// the L1 (other blocks wrote them) RA_BN_BATCH at a time so their latencies overlap, and
// folded in slot order: f(i, a, b) for each.
#define RA_BN_BATCH 8
template <typename A, typename F>
RA_DEVICE void ra_bn_partials(const A* part, ra_i64 base, ra_i64 first, ra_i64 last, ra_i64 step, F f) {
    for (ra_i64 q0 = first; q0 < last; q0 += RA_BN_BATCH * step) {
        A a[RA_BN_BATCH], b[RA_BN_BATCH];
#pragma unroll
        for (int u = 0; u < RA_BN_BATCH; ++u) {
            const ra_i64 q = q0 + u * step;
            if (q < last) {
                a[u] = *(const volatile A*)(part + 2 * (base + q));
                b[u] = *(const volatile A*)(part + 2 * (base + q) + 1);
            }
        }
#pragma unroll
        for (int u = 0; u < RA_BN_BATCH; ++u) {
            if (q0 + u * step < last) f(q0 + u * step, a[u], b[u]);
        }
    }
}

RA_DEVICE float ra_bn_rsqrt(float v) { return 1.0f / sqrtf(v); }
RA_DEVICE double ra_bn_rsqrt(double v) { return 1.0 / sqrt(v); }

// (n, mean, m2) += (nb, meanb, m2b): Chan et al.'s pairwise update; an empty side changes nothing.
template <typename A> RA_DEVICE void ra_bn_merge(A& n, A& mean, A& m2, A nb, A meanb, A m2b) {
    if (nb == A(0)) return;
    const A total = n + nb;
    const A delta = meanb - mean;
    const A f = nb / total;
    mean += delta * f;
    m2 += m2b + delta * delta * n * f;
    n = total;
}

// A thread's statistics stream: a ring of R loads of W-wide packs, folded G packs at a time (at
// least 4 elements), each group's slots refilled right after its fold, so R - G loads (64 bytes
// where at most 16 loads reach it: 16-byte vectors 4, float32 or 16-bit scalars 16, float64
// scalars 8) stay in flight while the thread computes.
template <typename T, int W> struct ra_bn_ring {
    static constexpr int bytes = W * (int)sizeof(T);
    static constexpr int G = W >= 4 ? 1 : 4 / W;
    static constexpr int ahead = 64 / bytes < 4 ? 4 : (64 / bytes > 16 ? 16 : 64 / bytes);
    static constexpr int R = ahead + G;
};

// v[0] + ... + v[K - 1] as a balanced tree (K a power of two; v is overwritten): a short
// dependency chain and an error bound growing with log2 K instead of K.
template <int K, typename A> RA_DEVICE A ra_bn_pairwise_sum(A* v) {
    static_assert(K > 0 && (K & (K - 1)) == 0, "a power of two");
#pragma unroll
    for (int w = K / 2; w >= 1; w /= 2) {
#pragma unroll
        for (int i = 0; i < w; ++i) v[i] = v[i] + v[i + w];
    }
    return v[0];
}

// The mean and M2 of vals[0 .. cnt) (cnt <= K; FULL: cnt == K, no masking and a division by a
// power of two), both from registers: the sum, then the sum of squared deviations.
template <int K, bool FULL, typename A> RA_DEVICE void ra_bn_batch_moments(const A* vals, int cnt, A& mb, A& qb) {
    A t[K];
#pragma unroll
    for (int i = 0; i < K; ++i) t[i] = FULL || i < cnt ? vals[i] : A(0);
    mb = FULL ? ra_bn_pairwise_sum<K>(t) * (A(1) / A(K)) : ra_bn_pairwise_sum<K>(t) / A(cnt);
#pragma unroll
    for (int i = 0; i < K; ++i) {
        const A d = vals[i] - mb;
        t[i] = FULL || i < cnt ? d * d : A(0);
    }
    qb = ra_bn_pairwise_sum<K>(t);
}

// Folds the first `cnt` (of G) W-wide packs into the states, n counting the elements folded so
// far per state: JOINT, every element into (n, mean[0], m2[0]) (one channel's run); otherwise lane
// i of each pack into (mean[i], m2[i]) (W adjacent channels, the same count). Each fold takes the
// group's mean and M2 exactly, then the pairwise update, its division shared by the W states.
template <int G, bool FULL, bool JOINT, int W, typename T, typename A>
RA_DEVICE void ra_bn_fold_packs(A& n, A* mean, A* m2, const ra_bn_pack<T, W>* packs, int cnt) {
    constexpr int K = JOINT ? G * W : G, STATES = JOINT ? 1 : W;
    const A nb = A(FULL ? K : (JOINT ? cnt * W : cnt));
    const A f = nb / (n + nb);
#pragma unroll
    for (int i = 0; i < STATES; ++i) {
        A vals[K];
#pragma unroll
        for (int u = 0; u < K; ++u) vals[u] = ra_traits<T>::to_acc(JOINT ? packs[u / W].v[u % W] : packs[u].v[i]);
        A mb, qb;
        ra_bn_batch_moments<K, FULL>(vals, JOINT ? cnt * W : cnt, mb, qb);
        const A delta = mb - mean[i];
        mean[i] += delta * f;
        m2[i] += qb + delta * delta * n * f;
    }
    n += nb;
}

// The statistics loop of both layouts: `count` loads (next() gives each one's address in turn)
// through the ring of ra_bn_ring<T, W>, folded as ra_bn_fold_packs<.., JOINT> says. The last,
// partial ring is loaded whole before its groups are folded (slots past it masked).
template <bool JOINT, int W, typename T, typename A, typename Next>
RA_DEVICE void ra_bn_stream_moments(ra_i64 count, Next next, A& n, A* mean, A* m2) {
    typedef ra_bn_ring<T, W> Ring;
    constexpr int R = Ring::R, G = Ring::G;
    ra_bn_pack<T, W> ring[R] = {};
    ra_i64 left = count;
    if (left >= R) {
#pragma unroll
        for (int u = 0; u < R; ++u) ring[u] = *next();
        left -= R;
        for (; left >= R; left -= R) {
#pragma unroll
            for (int g = 0; g < R; g += G) {
                ra_bn_fold_packs<G, true, JOINT, W, T>(n, mean, m2, ring + g, G);
#pragma unroll
                for (int u = 0; u < G; ++u) ring[g + u] = *next();
            }
        }
#pragma unroll
        for (int g = 0; g < R; g += G) ra_bn_fold_packs<G, true, JOINT, W, T>(n, mean, m2, ring + g, G);
    }
    const int rest = (int)left;
#pragma unroll
    for (int u = 0; u < R; ++u) {
        if (u < rest) ring[u] = *next();
    }
#pragma unroll
    for (int g = 0; g < R; g += G) {
        if (g + G <= rest) {
            ra_bn_fold_packs<G, true, JOINT, W, T>(n, mean, m2, ring + g, G);
        } else if (g < rest) {
            ra_bn_fold_packs<G, false, JOINT, W, T>(n, mean, m2, ring + g, rest - g);
        }
    }
}

// Merges the states of the ROWS threads of each of the COLS columns (thread = row * COLS + col)
// in a fixed tree; row 0 ends with the column's total. Ends with a barrier (smem reusable).
template <typename A>
RA_DEVICE void ra_bn_tree_merge(A& n, A& mean, A& m2, int row, int rows, int col, int cols, A* sn, A* smean,
                                A* sm2) {
    const int i = row * cols + col;
    sn[i] = n;
    smean[i] = mean;
    sm2[i] = m2;
    __syncthreads();
    for (int s = rows / 2; s > 0; s >>= 1) {
        if (row < s) {
            const int o = i + s * cols;
            ra_bn_merge(n, mean, m2, sn[o], smean[o], sm2[o]);
            sn[i] = n;
            smean[i] = mean;
            sm2[i] = m2;
        }
        __syncthreads();
    }
}

// The same tree for two plain sums.
template <typename A>
RA_DEVICE void ra_bn_tree_sum(A& a, A& b, int row, int rows, int col, int cols, A* sa, A* sb) {
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

// The block's threads have written its partials; true in every thread of the one block drawing the
// last of `count` tickets (which resets the ticket), after a fence making all partials visible.
RA_DEVICE bool ra_bn_last_block(unsigned int* ticket, unsigned int count, int* flag) {
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

template <typename A> RA_DEVICE void ra_bn_set_coefs(A* coef, ra_i64 c, ra_i64 C, A a, A m0, A b, A m1, A d) {
    coef[c] = a;
    coef[C + c] = m0;
    coef[2 * C + c] = b;
    coef[3 * C + c] = m1;
    coef[4 * C + c] = d;
}

// Elements of split y of a range of `total` cut in `chunk`s.
RA_DEVICE ra_i64 ra_bn_split_count(ra_i64 total, ra_i64 chunk, ra_i64 y) {
    const ra_i64 left = total - y * chunk;
    return left < chunk ? (left > 0 ? left : 0) : chunk;
}

// The statistics of channel c from the partials of its `splits` blocks (merged in split order by
// every thread of the finishing block), and what follows from them: saved mean and 1/sqrt(var +
// eps), the running averages (unbiased variance, like torch), the forward coefficients.
template <typename A>
RA_DEVICE void ra_bn_finish_stats(ra_i64 c, ra_i64 C, const A* part, ra_i64 splits, ra_i64 per_channel, ra_i64 chunk,
                                  int row, int rows, A* sn, A* smean, A* sm2, const A* weight, const A* bias,
                                  A* running_mean, A* running_var, A momentum, A eps, A* save_mean, A* save_invstd,
                                  A* coef) {
    A n = A(0), mean = A(0), m2 = A(0);
    ra_bn_partials(part, c * splits, (ra_i64)row, splits, (ra_i64)rows, [&](ra_i64 y, A pm, A pq) {
        ra_bn_merge(n, mean, m2, A(ra_bn_split_count(per_channel, chunk, y)), pm, pq);
    });
    ra_bn_tree_merge(n, mean, m2, row, rows, 0, 1, sn, smean, sm2);
    if (row != 0) return;
    const A count = A(per_channel);
    const A var = m2 / count;
    const A invstd = ra_bn_rsqrt(var + eps);
    save_mean[c] = mean;
    save_invstd[c] = invstd;
    if (running_mean != nullptr) {
        running_mean[c] = (A(1) - momentum) * running_mean[c] + momentum * mean;
        running_var[c] = (A(1) - momentum) * running_var[c] + momentum * (m2 / (count - A(1)));
    }
    ra_bn_set_coefs(coef, c, C, weight != nullptr ? weight[c] * invstd : invstd, mean, A(0), A(0),
                    bias != nullptr ? bias[c] : A(0));
}

// The per-channel column version for the nhwc tiles: column k of the block finishes channel c.
template <typename A>
RA_DEVICE void ra_bn_finish_stats_cols(ra_i64 c, ra_i64 C, const A* part, ra_i64 splits, ra_i64 rows_total,
                                       ra_i64 chunk, int row, int rows, int col, int cols, A* sn, A* smean, A* sm2,
                                       const A* weight, const A* bias, A* running_mean, A* running_var, A momentum,
                                       A eps, A* save_mean, A* save_invstd, A* coef) {
    A n = A(0), mean = A(0), m2 = A(0);
    if (c < C) {
        ra_bn_partials(part, c * splits, (ra_i64)row, splits, (ra_i64)rows, [&](ra_i64 y, A pm, A pq) {
            ra_bn_merge(n, mean, m2, A(ra_bn_split_count(rows_total, chunk, y)), pm, pq);
        });
    }
    ra_bn_tree_merge(n, mean, m2, row, rows, col, cols, sn, smean, sm2);
    if (row != 0 || c >= C) return;
    const A count = A(rows_total);
    const A var = m2 / count;
    const A invstd = ra_bn_rsqrt(var + eps);
    save_mean[c] = mean;
    save_invstd[c] = invstd;
    if (running_mean != nullptr) {
        running_mean[c] = (A(1) - momentum) * running_mean[c] + momentum * mean;
        running_var[c] = (A(1) - momentum) * running_var[c] + momentum * (m2 / (count - A(1)));
    }
    ra_bn_set_coefs(coef, c, C, weight != nullptr ? weight[c] * invstd : invstd, mean, A(0), A(0),
                    bias != nullptr ? bias[c] : A(0));
}

// Backward coefficients of channel c from its sums s1 = sum(dy), s2 = sum(dy (x - mean)):
// grad_weight = s2 * invstd, grad_bias = s1; training: dx = k dy + B (x - mean) + D with
// k = w invstd, B = -k invstd^2 s2 / n, D = -k s1 / n; inference (fixed statistics): dx = k dy.
template <typename A>
RA_DEVICE void ra_bn_backward_coefs(ra_i64 c, ra_i64 C, A s1, A s2, A count, const A* weight, const A* mean,
                                    const A* invstd, int training, A* grad_weight, A* grad_bias, A* coef) {
    const A is = invstd[c];
    if (grad_weight != nullptr) grad_weight[c] = s2 * is;
    if (grad_bias != nullptr) grad_bias[c] = s1;
    const A k = weight != nullptr ? weight[c] * is : is;
    A b = A(0), d = A(0);
    if (training) {
        b = -k * is * is * s2 / count;
        d = -k * s1 / count;
    }
    ra_bn_set_coefs(coef, c, C, k, A(0), b, mean[c], d);
}

// ------------------------------------------------------------------------------------------------
// channels first
// ------------------------------------------------------------------------------------------------

// The packs of channel c at flat pack positions first, first + step, ... of its N * sv packs
// (sv = S / V packs an image's run), as pack offsets from the tensor's start. No division per
// pack: `step` packs are dn whole images and ds positions more, so a step adds a fixed offset
// and, when the position passes the run's end, the distance to the next image's run.
struct ra_bn_nchw_walk {
    ra_i64 at, s, sv, ds, jump, wrap;
    RA_DEVICE ra_bn_nchw_walk(ra_i64 c, ra_i64 C, ra_i64 sv_, ra_i64 first, ra_i64 step) : sv(sv_) {
        ra_i64 img, dn;
        ra_divmod_i64(first, sv, img, s);
        ra_divmod_i64(step, sv, dn, ds);
        at = (img * C + c) * sv + s;
        jump = dn * C * sv + ds;
        wrap = (C - 1) * sv;
    }
    RA_DEVICE ra_i64 next() {
        const ra_i64 here = at;
        at += jump;
        s += ds;
        if (s >= sv) {
            s -= sv;
            at += wrap;
        }
        return here;
    }
};

// The moments of channel c over the vectors first, first + BLOCK, ... of the flat range [j0, j1)
// (thread `first - j0 / V`), each V elements of one image's run (S % V == 0).
template <int V, typename T, typename A>
RA_DEVICE void ra_bn_nchw_moments(const T* x, ra_i64 c, ra_i64 C, ra_i64 S, ra_i64 j0, ra_i64 j1, A& n, A& mean,
                                  A& m2) {
    typedef ra_bn_pack<T, V> P;
    const ra_i64 first = j0 / V + threadIdx.x, end = j1 / V;
    if (first >= end) return;
    ra_bn_nchw_walk walk(c, C, S / V, first, (ra_i64)RA_BN_BLOCK);
    const P* packs = reinterpret_cast<const P*>(x);
    auto next = [&]() { return packs + walk.next(); };
    ra_bn_stream_moments<true, V, T>((end - first + RA_BN_BLOCK - 1) / RA_BN_BLOCK, next, n, &mean, &m2);
}

template <typename T>
__global__ void RA_BN_STATS_LAUNCH_BOUNDS(RA_BN_BLOCK, 0)
ra_miopen_bn_stats_nchw(const T* RA_RESTRICT x, ra_i64 N, ra_i64 C, ra_i64 S, ra_i64 chunk, int vec,
                        typename ra_traits<T>::acc* RA_RESTRICT part, unsigned int* RA_RESTRICT tickets,
                        const typename ra_traits<T>::acc* RA_RESTRICT weight,
                        const typename ra_traits<T>::acc* RA_RESTRICT bias,
                        typename ra_traits<T>::acc* RA_RESTRICT running_mean,
                        typename ra_traits<T>::acc* RA_RESTRICT running_var, typename ra_traits<T>::acc momentum,
                        typename ra_traits<T>::acc eps, typename ra_traits<T>::acc* RA_RESTRICT save_mean,
                        typename ra_traits<T>::acc* RA_RESTRICT save_invstd,
                        typename ra_traits<T>::acc* RA_RESTRICT coef) {
    typedef typename ra_traits<T>::acc A;
    constexpr int V = ra_bn_vec<T>::N;
    __shared__ A sn[RA_BN_BLOCK], smean[RA_BN_BLOCK], sm2[RA_BN_BLOCK];
    __shared__ int flag;
    const ra_i64 c = blockIdx.x, y = blockIdx.y, splits = gridDim.y, per_channel = N * S;
    const ra_i64 j0 = y * chunk, j1 = ra_min(j0 + chunk, per_channel);
    A n = A(0), mean = A(0), m2 = A(0);
    if (vec) {
        ra_bn_nchw_moments<V>(x, c, C, S, j0, j1, n, mean, m2);
    } else {
        ra_bn_nchw_moments<1>(x, c, C, S, j0, j1, n, mean, m2);
    }
    ra_bn_tree_merge(n, mean, m2, (int)threadIdx.x, RA_BN_BLOCK, 0, 1, sn, smean, sm2);
    if (threadIdx.x == 0) {
        part[2 * (c * splits + y)] = mean;
        part[2 * (c * splits + y) + 1] = m2;
    }
    if (!ra_bn_last_block(tickets + c, (unsigned int)splits, &flag)) return;
    ra_bn_finish_stats(c, C, part, splits, per_channel, chunk, (int)threadIdx.x, RA_BN_BLOCK, sn, smean, sm2, weight,
                       bias, running_mean, running_var, momentum, eps, save_mean, save_invstd, coef);
}

template <int V, typename T, typename A>
RA_DEVICE void ra_bn_nchw_sums(const T* dy, const T* x, ra_i64 c, ra_i64 C, ra_i64 S, ra_i64 j0, ra_i64 j1, A mean,
                               A& s1, A& s2) {
    const ra_i64 sv = S / V, v1 = j1 / V;
    for (ra_i64 base = j0 / V + threadIdx.x; base < v1; base += (ra_i64)RA_BN_BLOCK * RA_BN_UNROLL) {
        A g[RA_BN_UNROLL * V], h[RA_BN_UNROLL * V];
#pragma unroll
        for (int u = 0; u < RA_BN_UNROLL; ++u) {
            const ra_i64 v = base + (ra_i64)u * RA_BN_BLOCK;
            if (v < v1) {
                ra_i64 n, s;
                ra_divmod_i64(v, sv, n, s);
                const ra_i64 at = ((n * C + c) * sv + s) * V;
                ra_bn_load<T, V>(dy + at, g + u * V);
                ra_bn_load<T, V>(x + at, h + u * V);
            } else {
#pragma unroll
                for (int i = 0; i < V; ++i) g[u * V + i] = h[u * V + i] = A(0);
            }
        }
#pragma unroll
        for (int i = 0; i < RA_BN_UNROLL * V; ++i) {
            s1 += g[i];
            s2 += g[i] * (h[i] - mean);  // padding: g = 0
        }
    }
}

// Backward sums of each channel (grid and chunks as the statistics), then per channel the
// gradients of weight and bias and the dx coefficients (ra_bn_backward_coefs).
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_BN_BLOCK)
ra_miopen_bn_backward_reduce_nchw(const T* RA_RESTRICT dy, const T* RA_RESTRICT x, ra_i64 N, ra_i64 C, ra_i64 S,
                                  ra_i64 chunk, int vec, typename ra_traits<T>::acc* RA_RESTRICT part,
                                  unsigned int* RA_RESTRICT tickets,
                                  const typename ra_traits<T>::acc* RA_RESTRICT weight,
                                  const typename ra_traits<T>::acc* RA_RESTRICT mean,
                                  const typename ra_traits<T>::acc* RA_RESTRICT invstd, int training,
                                  typename ra_traits<T>::acc* RA_RESTRICT grad_weight,
                                  typename ra_traits<T>::acc* RA_RESTRICT grad_bias,
                                  typename ra_traits<T>::acc* RA_RESTRICT coef) {
    typedef typename ra_traits<T>::acc A;
    constexpr int V = ra_bn_vec<T>::N;
    __shared__ A sa[RA_BN_BLOCK], sb[RA_BN_BLOCK];
    __shared__ int flag;
    const ra_i64 c = blockIdx.x, y = blockIdx.y, splits = gridDim.y, per_channel = N * S;
    const ra_i64 j0 = y * chunk, j1 = ra_min(j0 + chunk, per_channel);
    const A mu = mean[c];
    A s1 = A(0), s2 = A(0);
    if (vec) {
        ra_bn_nchw_sums<V>(dy, x, c, C, S, j0, j1, mu, s1, s2);
    } else {
        ra_bn_nchw_sums<1>(dy, x, c, C, S, j0, j1, mu, s1, s2);
    }
    const int t = (int)threadIdx.x;
    ra_bn_tree_sum(s1, s2, t, RA_BN_BLOCK, 0, 1, sa, sb);
    if (t == 0) {
        part[2 * (c * splits + y)] = s1;
        part[2 * (c * splits + y) + 1] = s2;
    }
    if (!ra_bn_last_block(tickets + c, (unsigned int)splits, &flag)) return;
    s1 = s2 = A(0);
    ra_bn_partials(part, c * splits, (ra_i64)t, splits, (ra_i64)RA_BN_BLOCK, [&](ra_i64, A a, A b) {
        s1 += a;
        s2 += b;
    });
    ra_bn_tree_sum(s1, s2, t, RA_BN_BLOCK, 0, 1, sa, sb);
    if (t == 0) ra_bn_backward_coefs(c, C, s1, s2, A(per_channel), weight, mean, invstd, training, grad_weight,
                                     grad_bias, coef);
}

template <int V, typename T, typename A>
RA_DEVICE void ra_bn_nchw_apply(const T* in0, const T* in1, T* out, ra_i64 c, ra_i64 C, ra_i64 S, ra_i64 j0,
                                ra_i64 j1, A a, A m0, A b, A m1, A d) {
    const ra_i64 sv = S / V, v0 = j0 / V, v1 = j1 / V;
    // backwards through the range: the statistics pass read its end last
    for (ra_i64 top = v1 - 1 - threadIdx.x; top >= v0; top -= (ra_i64)RA_BN_BLOCK * RA_BN_UNROLL) {
        A p[RA_BN_UNROLL * V], q[RA_BN_UNROLL * V];
        ra_i64 at[RA_BN_UNROLL];
#pragma unroll
        for (int u = 0; u < RA_BN_UNROLL; ++u) {
            const ra_i64 v = top - (ra_i64)u * RA_BN_BLOCK;
            at[u] = -1;
            if (v >= v0) {
                ra_i64 n, s;
                ra_divmod_i64(v, sv, n, s);
                at[u] = ((n * C + c) * sv + s) * V;
                ra_bn_load<T, V>(in0 + at[u], p + u * V);
                if (in1 != nullptr) ra_bn_load<T, V>(in1 + at[u], q + u * V);
            }
        }
#pragma unroll
        for (int u = 0; u < RA_BN_UNROLL; ++u) {
            if (at[u] < 0) continue;
#pragma unroll
            for (int i = 0; i < V; ++i) {
                const A r = a * (p[u * V + i] - m0) + d;
                p[u * V + i] = in1 != nullptr ? r + b * (q[u * V + i] - m1) : r;
            }
            ra_bn_store<T, V>(out + at[u], p + u * V);
        }
    }
}

// out = a (in0 - m0) + b (in1 - m1) + d per channel (in1 may be null), on the statistics' grid.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_BN_BLOCK)
ra_miopen_bn_apply_nchw(const T* RA_RESTRICT in0, const T* RA_RESTRICT in1, T* RA_RESTRICT out, ra_i64 N, ra_i64 C,
                        ra_i64 S, ra_i64 chunk, int vec, const typename ra_traits<T>::acc* RA_RESTRICT coef) {
    typedef typename ra_traits<T>::acc A;
    constexpr int V = ra_bn_vec<T>::N;
    const ra_i64 c = blockIdx.x, y = blockIdx.y, per_channel = N * S;
    const ra_i64 j0 = y * chunk, j1 = ra_min(j0 + chunk, per_channel);
    const A a = coef[c], m0 = coef[C + c], b = coef[2 * C + c], m1 = coef[3 * C + c], d = coef[4 * C + c];
    if (vec) {
        ra_bn_nchw_apply<V>(in0, in1, out, c, C, S, j0, j1, a, m0, b, m1, d);
    } else {
        ra_bn_nchw_apply<1>(in0, in1, out, c, C, S, j0, j1, a, m0, b, m1, d);
    }
}

// ------------------------------------------------------------------------------------------------
// training forward, channels first, one cooperative launch of resident blocks that pass items
// along a pipeline: each item (a slice of one channel) is read once, held in shared memory for
// DEPTH steps while its channel's statistics form, then normalized
// ------------------------------------------------------------------------------------------------

// P blocks (gridDim.x), all resident (a cooperative launch). The channels go Q at a time, one
// step each (the last step may hold fewer); at step s, block b < Q splits holds item (channel
// s Q + b / splits, split b % splits): the split's vectors [k sl, min((k + 1) sl, nv)) of the
// channel's nv = N S / V flat 16-byte vectors (S % V == 0; a slice may straddle image runs),
// thread t the vectors t, t + B, ... (at most ITEMS). Step s of a block:
//   1. the item's vectors (their loads issued during step s - 1) go to shared-memory buffer
//      s mod (DEPTH + 1) while the thread sums them;
//   2. the loads of the block's item of step s + 1 are issued into the freed registers; then the
//      thread's exact mean and M2 (the squared deviations read back from its own buffer
//      positions) are merged over the warp, then, after one block barrier, by warp 0 over the
//      warps (a fixed tree); its lane 0 publishes the item's (mean, M2) as tagged words
//      (ra_bn_tagged: the launch's epoch in every word);
//   3. every warp reads the words of step s - DEPTH's channel (published DEPTH steps earlier, so
//      normally at once, one round trip), merges them in a fixed order (every warp of every block
//      of the channel the same arithmetic on the same values: the same coefficients, bit for bit)
//      and normalizes its threads' vectors of that item from its buffer; the block of split 0
//      writes the channel's saved statistics and running averages.
// So the loads of the next item are in flight while a block waits for a channel's partials and
// writes its output, and a block's item buffers are only ever read and written by the thread
// that owns the position (no barrier for them). Waits are bounded (`limit` clock cycles, or
// another block's error: then *error is set and the block writes nothing more). Words hold the
// launch's epoch: no reset between launches.
#define RA_BN_PIPE_BLOCK 256  // threads of a block

// Three blocks a multiprocessor on NVIDIA (their buffers take at most 216 KB of shared memory): at
// most 80 registers a thread.
#if defined(RA_CUDA)
#define RA_BN_PIPE_LAUNCH_BOUNDS(threads) __launch_bounds__(threads, 3)
#else
#define RA_BN_PIPE_LAUNCH_BOUNDS(threads) __launch_bounds__(threads)
#endif

// The loads of a thread's `items` (at most ITEMS) vectors of an item into r[]: vector u at pack
// offset off[u] from the channel's first run `base` (off: the same for every channel).
template <int ITEMS, typename P> RA_DEVICE void ra_bn_pipe_load(const P* base, const unsigned* off, int items, P* r) {
#pragma unroll
    for (int u = 0; u < ITEMS; ++u) {
        if (u < items) r[u] = ra_load_stream16(base + off[u]);
    }
}

// (n, mean, m2) of the lanes merged down a fixed tree: lane 0 ends with the warp's.
template <typename A> RA_DEVICE void ra_bn_warp_merge(A& n, A& mean, A& m2) {
#pragma unroll
    for (int d = RA_WARP_SIZE / 2; d > 0; d >>= 1) {
        const A on = ra_shfl_down(n, d), om = ra_shfl_down(mean, d), oq = ra_shfl_down(m2, d);
        if (ra_lane_id() < d) ra_bn_merge(n, mean, m2, on, om, oq);
    }
}

// An item's partial (mean, M2) as tagged words: each 32-bit piece of the two values in a 64-bit word
// whose high half holds the launch's epoch. A 64-bit store is single-copy atomic, so a reader that
// sees the epoch in every word has the values: no flag, no fence, one round trip.
template <typename A> struct ra_bn_tagged {
    static constexpr int PIECES = (int)(sizeof(A) / 4), WORDS = 2 * PIECES;
    union Bits {
        A v;
        unsigned u[PIECES];
    };
    RA_DEVICE static void store(ra_u64* w, A mean, A m2, unsigned epoch) {
        Bits a, b;
        a.v = mean;
        b.v = m2;
        const ra_u64 tag = (ra_u64)epoch << 32;
#pragma unroll
        for (int i = 0; i < PIECES; ++i) {
            *(volatile ra_u64*)(w + i) = tag | a.u[i];
            *(volatile ra_u64*)(w + PIECES + i) = tag | b.u[i];
        }
    }
    // The words of one item (read past the L1: another block wrote them), waited for while `ok`:
    // bounded by `limit` clock cycles (or another block's error), then *error and *failed are set
    // and `ok` turns false.
    RA_DEVICE static void load(const ra_u64* w, unsigned epoch, unsigned* error, ra_i64 limit, bool& ok, int* failed,
                               A& mean, A& m2) {
        ra_u64 got[WORDS];
        bool ready = true;
#pragma unroll
        for (int i = 0; i < WORDS; ++i) {
            got[i] = *(const volatile ra_u64*)(w + i);
            ready = ready & ((unsigned)(got[i] >> 32) == epoch);
        }
        if (!ready && ok) {
            const long long start = clock64();
            for (;;) {
                ra_grid_pause();
                ready = true;
#pragma unroll
                for (int i = 0; i < WORDS; ++i) {
                    got[i] = *(const volatile ra_u64*)(w + i);
                    ready = ready & ((unsigned)(got[i] >> 32) == epoch);
                }
                if (ready) break;
                if (*(const volatile unsigned*)error != 0u || clock64() - start > limit) {
                    atomicExch(error, 1u);
                    atomicOr(failed, 1);
                    ok = false;
                    break;
                }
            }
        }
        Bits a, b;
#pragma unroll
        for (int i = 0; i < PIECES; ++i) {
            a.u[i] = (unsigned)got[i];
            b.u[i] = (unsigned)got[PIECES + i];
        }
        mean = a.v;
        m2 = b.v;
    }
};

template <typename T, int ITEMS, int DEPTH>
__global__ void RA_BN_PIPE_LAUNCH_BOUNDS(RA_BN_PIPE_BLOCK)
ra_miopen_bn_train_pipe_nchw(const T* RA_RESTRICT x, T* RA_RESTRICT y, ra_i64 N, ra_i64 C, ra_i64 S, ra_i64 sl,
                             ra_i64 splits, ra_i64 Q, ra_u64* words, unsigned int epoch, unsigned int* error,
                             ra_i64 limit, const typename ra_traits<T>::acc* RA_RESTRICT weight,
                             const typename ra_traits<T>::acc* RA_RESTRICT bias,
                             typename ra_traits<T>::acc* RA_RESTRICT running_mean,
                             typename ra_traits<T>::acc* RA_RESTRICT running_var, typename ra_traits<T>::acc momentum,
                             typename ra_traits<T>::acc eps, typename ra_traits<T>::acc* RA_RESTRICT save_mean,
                             typename ra_traits<T>::acc* RA_RESTRICT save_invstd) {
    typedef typename ra_traits<T>::acc A;
    constexpr int V = ra_bn_vec<T>::N, B = RA_BN_PIPE_BLOCK, WS = RA_WARP_SIZE, WARPS = B / WS;
    constexpr int W = ra_bn_tagged<A>::WORDS, BUFFERS = DEPTH + 1;
    typedef ra_bn_pack<T, V> P;
    extern __shared__ __align__(16) unsigned char ra_bn_pipe_smem[];
    P* hold = reinterpret_cast<P*>(ra_bn_pipe_smem);  // DEPTH + 1 buffers of ITEMS x B vectors
    __shared__ A swarp[2][3][WARPS];
    __shared__ int failed;
    // 32-bit indices: the host launches only where x holds fewer than 2^32 vectors
    const int t = (int)threadIdx.x, lane = ra_lane_id(), warp = ra_warp_id();
    const unsigned b = blockIdx.x, sv = (unsigned)(S / V), nv = (unsigned)N * sv, nsp = (unsigned)splits;
    const unsigned q = (unsigned)Q, cs = (unsigned)C, steps = (cs + q - 1) / q, slv = (unsigned)sl;
    const P* xp = reinterpret_cast<const P*>(x);
    if (b >= q * nsp) return;  // no item at any step (the whole block)
    // the block's item of step s: channel s Q + b / splits (-1: none), split k, cnt vectors from k sl
    const unsigned k = b % nsp, first = k * slv, cnt = ra_min(slv, nv - first);
    auto channel_of = [&](int s) {
        const unsigned c = (unsigned)s * q + b / nsp;
        return s >= 0 && (unsigned)s < steps && c < cs ? (int)c : -1;
    };
    // the thread's vectors of its item (`items` of them) as pack offsets from the channel's first
    // run: the same for every channel, found once
    const int items = t < (int)cnt ? (int)ra_min((unsigned)ITEMS, (cnt - t + B - 1) / B) : 0;
    unsigned off[ITEMS];
#pragma unroll
    for (int u = 0; u < ITEMS; ++u) {
        const unsigned j = first + t + u * B;
        off[u] = u < items ? (j / sv) * cs * sv + j % sv : 0u;
    }
    if (t == 0) failed = 0;
    __syncthreads();
    P r[ITEMS];
    if (channel_of(0) >= 0) ra_bn_pipe_load<ITEMS>(xp + (unsigned)channel_of(0) * sv, off, items, r);
    for (int s = 0; s < (int)steps + DEPTH; ++s) {
        const int par = s & 1;
        const int c = channel_of(s);
        // 1: the item into buffer s % BUFFERS and the thread's sum of it; then at once the loads of
        // the block's item of step s + 1 into the freed registers, so they are in flight for the
        // whole step
        P* buf = hold + (s % BUFFERS) * ITEMS * B;
        A sum = A(0);
        if (c >= 0) {
#pragma unroll
            for (int u = 0; u < ITEMS; ++u) {
                if (u < items) {
                    buf[u * B + t] = r[u];
#pragma unroll
                    for (int e = 0; e < V; ++e) sum += ra_traits<T>::to_acc(r[u].v[e]);
                }
            }
        }
        const int cn = channel_of(s + 1);
        if (cn >= 0) ra_bn_pipe_load<ITEMS>(xp + (unsigned)cn * sv, off, items, r);
        if (c >= 0) {
            // the item's moments over the thread (the squared deviations read back from the buffer
            // positions the thread wrote) and the warp
            A n = A(items * V), mean = items > 0 ? sum / n : A(0), m2 = A(0);
#pragma unroll
            for (int u = 0; u < ITEMS; ++u) {
                if (u < items) {
                    const P pk = buf[u * B + t];
#pragma unroll
                    for (int e = 0; e < V; ++e) {
                        const A d = ra_traits<T>::to_acc(pk.v[e]) - mean;
                        m2 += d * d;
                    }
                }
            }
            ra_bn_warp_merge(n, mean, m2);
            if (lane == 0) {
                swarp[par][0][warp] = n;
                swarp[par][1][warp] = mean;
                swarp[par][2][warp] = m2;
            }
        }
        __syncthreads();  // the warps' moments (swarp[par] is written again two steps later, after
                          // the next barrier, which warp 0 reaches only after reading it)
        const bool alive = *(volatile int*)&failed == 0;  // a block that gave up writes nothing more
        if (c >= 0 && warp == 0) {
            // the block's moments (a fixed tree), published as tagged words
            A n = A(0), mean = A(0), m2 = A(0);
            if (lane < WARPS) n = swarp[par][0][lane], mean = swarp[par][1][lane], m2 = swarp[par][2][lane];
            ra_bn_warp_merge(n, mean, m2);
            if (lane == 0) ra_bn_tagged<A>::store(words + ((ra_u64)c * nsp + k) * W, mean, m2, epoch);
        }
        // 3: step s - DEPTH's item: its channel's statistics, the item normalized into y
        const int cp = channel_of(s - DEPTH);
        if (cp >= 0 && alive) {
            const bool owner = k == 0 && warp == 0;
            const A wc = weight != nullptr ? weight[cp] : A(1), bc = bias != nullptr ? bias[cp] : A(0);
            const A rm = owner && running_mean != nullptr ? running_mean[cp] : A(0);
            const A rv = owner && running_mean != nullptr ? running_var[cp] : A(0);
            // lane l the channel's items l, l + WS, ... in order: one round trip while splits <= WS
            const ra_u64* cw = words + (ra_u64)cp * nsp * W;
            bool ok = true;
            A n = A(0), mean = A(0), m2 = A(0);
            for (unsigned o = lane; o < nsp; o += WS) {
                A pm, pq;
                ra_bn_tagged<A>::load(cw + (ra_u64)o * W, epoch, error, limit, ok, &failed, pm, pq);
                if (ok) ra_bn_merge(n, mean, m2, A(V * ra_min(slv, nv - o * slv)), pm, pq);
            }
            if (ra_ballot(!ok) == 0) {
                ra_bn_warp_merge(n, mean, m2);
                mean = ra_shfl(mean, 0);
                m2 = ra_shfl(m2, 0);
                const A count = A((ra_i64)nv * V);
                const A invstd = ra_bn_rsqrt(m2 / count + eps);
                const A scale = wc * invstd;
                if (owner && lane == 0) {
                    save_mean[cp] = mean;
                    save_invstd[cp] = invstd;
                    if (running_mean != nullptr) {
                        running_mean[cp] = (A(1) - momentum) * rm + momentum * mean;
                        running_var[cp] = (A(1) - momentum) * rv + momentum * (m2 / (count - A(1)));
                    }
                }
                const P* buf = hold + ((s - DEPTH) % BUFFERS) * ITEMS * B;
                P* yp = reinterpret_cast<P*>(y) + (unsigned)cp * sv;
#pragma unroll
                for (int u = 0; u < ITEMS; ++u) {
                    if (u < items) {
                        const P pk = buf[u * B + t];
                        A v[V];
#pragma unroll
                        for (int e = 0; e < V; ++e) v[e] = scale * (ra_traits<T>::to_acc(pk.v[e]) - mean) + bc;
                        ra_bn_store<T, V>(reinterpret_cast<T*>(yp + off[u]), v);
                    }
                }
            }
        }
    }
}

// ------------------------------------------------------------------------------------------------
// channels last
// ------------------------------------------------------------------------------------------------

// The moments of W consecutive channels c0 .. c0 + W - 1 over rows m0 + row, m0 + row + rows, ...
// below m1 (W-wide loads, a fixed stride apart).
template <int W, typename T, typename A>
RA_DEVICE void ra_bn_nhwc_moments(const T* x, ra_i64 C, ra_i64 c0, ra_i64 m0, ra_i64 m1, int row, int rows, A& n,
                                  A* mean, A* m2) {
    typedef ra_bn_pack<T, W> P;
    if (m0 + row >= m1) return;
    const ra_i64 stride = (ra_i64)rows * C;
    const T* p = x + (m0 + row) * C + c0;
    auto next = [&]() {
        const P* at = reinterpret_cast<const P*>(p);
        p += stride;
        return at;
    };
    ra_bn_stream_moments<false, W, T>((m1 - m0 - row + rows - 1) / rows, next, n, mean, m2);
}

// Statistics channels last: block (y, t) of grid (Y, T), threads rows x cols; thread (row, col)
// takes channels t * cols * W + col * W .. + W - 1 (W = the vector width when vec, else 1) over
// rows row, row + rows, ... of its split. The finishing block of a tile sees its cols * W channels
// as columns of a (BLOCK / (cols W)) x (cols W) thread grid.
template <typename T>
__global__ void RA_BN_STATS_LAUNCH_BOUNDS(RA_BN_BLOCK, 1)
ra_miopen_bn_stats_nhwc(const T* RA_RESTRICT x, ra_i64 M, ra_i64 C, int cols, ra_i64 chunk, int vec,
                        typename ra_traits<T>::acc* RA_RESTRICT part, unsigned int* RA_RESTRICT tickets,
                        const typename ra_traits<T>::acc* RA_RESTRICT weight,
                        const typename ra_traits<T>::acc* RA_RESTRICT bias,
                        typename ra_traits<T>::acc* RA_RESTRICT running_mean,
                        typename ra_traits<T>::acc* RA_RESTRICT running_var, typename ra_traits<T>::acc momentum,
                        typename ra_traits<T>::acc eps, typename ra_traits<T>::acc* RA_RESTRICT save_mean,
                        typename ra_traits<T>::acc* RA_RESTRICT save_invstd,
                        typename ra_traits<T>::acc* RA_RESTRICT coef) {
    typedef typename ra_traits<T>::acc A;
    constexpr int V = ra_bn_vec<T>::N;
    __shared__ A sn[RA_BN_BLOCK], smean[RA_BN_BLOCK], sm2[RA_BN_BLOCK];
    __shared__ int flag;
    const int width = vec ? V : 1;
    const int rows = RA_BN_BLOCK / cols, row = (int)threadIdx.x / cols, col = (int)threadIdx.x % cols;
    const ra_i64 tile = (ra_i64)cols * width;
    const ra_i64 y = blockIdx.x, splits = gridDim.x, c0 = (ra_i64)blockIdx.y * tile + (ra_i64)col * width;
    const ra_i64 m0 = y * chunk, m1 = ra_min(m0 + chunk, M);
    A n = A(0), mean[V], m2[V];
#pragma unroll
    for (int i = 0; i < V; ++i) mean[i] = m2[i] = A(0);
    if (c0 < C) {
        if (vec) {
            ra_bn_nhwc_moments<V>(x, C, c0, m0, m1, row, rows, n, mean, m2);
        } else {
            ra_bn_nhwc_moments<1>(x, C, c0, m0, m1, row, rows, n, mean, m2);
        }
    }
#pragma unroll
    for (int i = 0; i < V; ++i) {
        if (i < width) {  // uniform over the block: the tree's barriers are reached by every thread
            A ni = n;
            ra_bn_tree_merge(ni, mean[i], m2[i], row, rows, col, cols, sn, smean, sm2);
            if (row == 0 && c0 + i < C) {
                part[2 * ((c0 + i) * splits + y)] = mean[i];
                part[2 * ((c0 + i) * splits + y) + 1] = m2[i];
            }
        }
    }
    if (!ra_bn_last_block(tickets + blockIdx.y, (unsigned int)splits, &flag)) return;
    const int fcols = (int)tile, frows = RA_BN_BLOCK / fcols;
    const int frow = (int)threadIdx.x / fcols, fcol = (int)threadIdx.x % fcols;
    ra_bn_finish_stats_cols((ra_i64)blockIdx.y * tile + fcol, C, part, splits, M, chunk, frow, frows, fcol, fcols, sn,
                            smean, sm2, weight, bias, running_mean, running_var, momentum, eps, save_mean, save_invstd,
                            coef);
}

template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_BN_BLOCK)
ra_miopen_bn_backward_reduce_nhwc(const T* RA_RESTRICT dy, const T* RA_RESTRICT x, ra_i64 M, ra_i64 C, int cols,
                                  ra_i64 chunk, typename ra_traits<T>::acc* RA_RESTRICT part,
                                  unsigned int* RA_RESTRICT tickets,
                                  const typename ra_traits<T>::acc* RA_RESTRICT weight,
                                  const typename ra_traits<T>::acc* RA_RESTRICT mean,
                                  const typename ra_traits<T>::acc* RA_RESTRICT invstd, int training,
                                  typename ra_traits<T>::acc* RA_RESTRICT grad_weight,
                                  typename ra_traits<T>::acc* RA_RESTRICT grad_bias,
                                  typename ra_traits<T>::acc* RA_RESTRICT coef) {
    typedef typename ra_traits<T>::acc A;
    constexpr int K = 2 * RA_BN_UNROLL;
    __shared__ A sa[RA_BN_BLOCK], sb[RA_BN_BLOCK];
    __shared__ int flag;
    const int rows = RA_BN_BLOCK / cols, row = (int)threadIdx.x / cols, col = (int)threadIdx.x % cols;
    const ra_i64 y = blockIdx.x, splits = gridDim.x, c = (ra_i64)blockIdx.y * cols + col;
    const ra_i64 m0 = y * chunk, m1 = ra_min(m0 + chunk, M);
    A s1 = A(0), s2 = A(0);
    if (c < C) {
        const A mu = mean[c];
        for (ra_i64 base = m0 + row; base < m1; base += (ra_i64)rows * K) {
            A g[K], h[K];
#pragma unroll
            for (int u = 0; u < K; ++u) {
                const ra_i64 m = base + (ra_i64)u * rows;
                g[u] = m < m1 ? ra_traits<T>::to_acc(dy[m * C + c]) : A(0);
                h[u] = m < m1 ? ra_traits<T>::to_acc(x[m * C + c]) - mu : A(0);
            }
#pragma unroll
            for (int u = 0; u < K; ++u) {
                s1 += g[u];
                s2 += g[u] * h[u];
            }
        }
    }
    ra_bn_tree_sum(s1, s2, row, rows, col, cols, sa, sb);
    if (row == 0 && c < C) {
        part[2 * (c * splits + y)] = s1;
        part[2 * (c * splits + y) + 1] = s2;
    }
    if (!ra_bn_last_block(tickets + blockIdx.y, (unsigned int)splits, &flag)) return;
    s1 = s2 = A(0);
    if (c < C) {
        ra_bn_partials(part, c * splits, (ra_i64)row, splits, (ra_i64)rows, [&](ra_i64, A a, A b) {
            s1 += a;
            s2 += b;
        });
    }
    ra_bn_tree_sum(s1, s2, row, rows, col, cols, sa, sb);
    if (row == 0 && c < C) ra_bn_backward_coefs(c, C, s1, s2, A(M), weight, mean, invstd, training, grad_weight,
                                                grad_bias, coef);
}

template <int W, typename T, typename A>
RA_DEVICE void ra_bn_nhwc_apply(const T* in0, const T* in1, T* out, ra_i64 C, ra_i64 c0, ra_i64 m0, ra_i64 m1, int row,
                                int rows, const A* coef) {
    constexpr int K = 2 * RA_BN_UNROLL;
    A a[W], o0[W], b[W], o1[W], d[W];
#pragma unroll
    for (int i = 0; i < W; ++i) {
        a[i] = coef[c0 + i];
        o0[i] = coef[C + c0 + i];
        b[i] = coef[2 * C + c0 + i];
        o1[i] = coef[3 * C + c0 + i];
        d[i] = coef[4 * C + c0 + i];
    }
    const ra_i64 last = m0 + row + (m1 - 1 - m0 - row) / rows * rows;
    for (ra_i64 top = last; top >= m0; top -= (ra_i64)rows * K) {
        A p[K * W], q[K * W];
#pragma unroll
        for (int u = 0; u < K; ++u) {
            const ra_i64 m = top - (ra_i64)u * rows;
            if (m >= m0) {
                ra_bn_load<T, W>(in0 + m * C + c0, p + u * W);
                if (in1 != nullptr) ra_bn_load<T, W>(in1 + m * C + c0, q + u * W);
            }
        }
#pragma unroll
        for (int u = 0; u < K; ++u) {
            const ra_i64 m = top - (ra_i64)u * rows;
            if (m < m0) continue;
#pragma unroll
            for (int i = 0; i < W; ++i) {
                const A r = a[i] * (p[u * W + i] - o0[i]) + d[i];
                p[u * W + i] = in1 != nullptr ? r + b[i] * (q[u * W + i] - o1[i]) : r;
            }
            ra_bn_store<T, W>(out + m * C + c0, p + u * W);
        }
    }
}

// out = a (in0 - m0) + b (in1 - m1) + d per channel (in1 may be null), on the statistics' grid
// and thread layout (channels per thread: the vector width when vec, else 1), each thread's rows
// backwards.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_BN_BLOCK)
ra_miopen_bn_apply_nhwc(const T* RA_RESTRICT in0, const T* RA_RESTRICT in1, T* RA_RESTRICT out, ra_i64 M, ra_i64 C,
                        int cols, ra_i64 chunk, int vec, const typename ra_traits<T>::acc* RA_RESTRICT coef) {
    constexpr int V = ra_bn_vec<T>::N;
    const int width = vec ? V : 1;
    const int rows = RA_BN_BLOCK / cols, row = (int)threadIdx.x / cols, col = (int)threadIdx.x % cols;
    const ra_i64 y = blockIdx.x, c0 = (ra_i64)blockIdx.y * cols * width + (ra_i64)col * width;
    const ra_i64 m0 = y * chunk, m1 = ra_min(m0 + chunk, M);
    if (c0 >= C || m0 + row >= m1) return;
    if (vec) {
        ra_bn_nhwc_apply<V>(in0, in1, out, C, c0, m0, m1, row, rows, coef);
    } else {
        ra_bn_nhwc_apply<1>(in0, in1, out, C, c0, m0, m1, row, rows, coef);
    }
}

// Inference coefficients from the running statistics: invstd = 1/sqrt(var + eps),
// out = w invstd (x - mean) + b.
template <typename A>
__global__ void RA_LAUNCH_BOUNDS(RA_BN_BLOCK)
ra_miopen_bn_inference_coefs(ra_i64 C, const A* RA_RESTRICT running_mean, const A* RA_RESTRICT running_var,
                             const A* RA_RESTRICT weight, const A* RA_RESTRICT bias, A eps, A* RA_RESTRICT invstd,
                             A* RA_RESTRICT coef) {
    const ra_i64 c = ra_global_thread_id();
    if (c >= C) return;
    const A is = ra_bn_rsqrt(running_var[c] + eps);
    invstd[c] = is;
    ra_bn_set_coefs(coef, c, C, weight != nullptr ? weight[c] * is : is, running_mean[c], A(0), A(0),
                    bias != nullptr ? bias[c] : A(0));
}
