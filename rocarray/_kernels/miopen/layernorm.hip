// Layer normalization of the rows of a contiguous (R, D) view: forward, the input gradient, and
// the weight/bias gradients (column sums over the rows).
//
// Row kernels: G threads own a row (G = a 32-thread group or the whole block of G threads), each holding
// RA_LN_ITEMS vectors of V elements in registers (thread t of the group: elements
// (k * G + t) * V + i), so a row of up to G * RA_LN_ITEMS * V elements is read once: mean and
// variance come exactly from the registers (sum, then sum of squared deviations; no
// cancellation), then the output is written. A longer row (only with G = the block) takes a
// statistics pass (per-thread batches merged with Chan et al.'s pairwise update, then a tree)
// and a second read to normalize. Group sums are butterflies within a warp, so every thread of a
// group holds the same bits; across warps they go through shared memory in a fixed order.
// Statistics run in ra_traits<T>::acc; weight and bias are acc arrays.

#define RA_LN_BLOCK 256
#define RA_LN_ITEMS 4
#define RA_LN_NARROW 32

template <typename T> struct ra_ln_vec { static constexpr int N = sizeof(T) >= 16 ? 1 : 16 / (int)sizeof(T); };
template <typename T, int V> struct alignas(V * sizeof(T)) ra_ln_pack { T v[V]; };

template <typename T, int V, typename A> RA_DEVICE void ra_ln_load(const T* p, A* out) {
    const ra_ln_pack<T, V> pk = *reinterpret_cast<const ra_ln_pack<T, V>*>(p);
#pragma unroll
    for (int i = 0; i < V; ++i) out[i] = ra_traits<T>::to_acc(pk.v[i]);
}
// V weight or bias values at p in 16-byte loads where `aligned` (p 16-byte aligned, V of them a
// whole number of loads), else one at a time.
template <int V, typename A> RA_DEVICE void ra_ln_load_params(const A* p, bool aligned, A* out) {
    constexpr int Q = 16 / (int)sizeof(A);
    if constexpr (V % Q == 0) {
        if (aligned) {
#pragma unroll
            for (int c = 0; c < V / Q; ++c) {
                const ra_ln_pack<A, Q> pk = *reinterpret_cast<const ra_ln_pack<A, Q>*>(p + c * Q);
#pragma unroll
                for (int i = 0; i < Q; ++i) out[c * Q + i] = pk.v[i];
            }
            return;
        }
    }
#pragma unroll
    for (int i = 0; i < V; ++i) out[i] = p[i];
}
template <typename T, int V, typename A> RA_DEVICE void ra_ln_store(T* p, const A* in) {
    ra_ln_pack<T, V> pk;
#pragma unroll
    for (int i = 0; i < V; ++i) pk.v[i] = ra_traits<T>::from_acc(in[i]);
    *reinterpret_cast<ra_ln_pack<T, V>*>(p) = pk;
}

// The partial pairs (part[2 q], part[2 q + 1]) of slots q = first + i * step < last, read past
// the L1 (other blocks wrote them) RA_LN_BATCH at a time so their latencies overlap, and
// folded in slot order: f(i, a, b) for each.
#define RA_LN_BATCH 8
template <typename A, typename F>
RA_DEVICE void ra_ln_partials(const A* part, ra_i64 base, ra_i64 first, ra_i64 last, ra_i64 step, F f) {
    for (ra_i64 q0 = first; q0 < last; q0 += RA_LN_BATCH * step) {
        A a[RA_LN_BATCH], b[RA_LN_BATCH];
#pragma unroll
        for (int u = 0; u < RA_LN_BATCH; ++u) {
            const ra_i64 q = q0 + u * step;
            if (q < last) {
                a[u] = *(const volatile A*)(part + 2 * (base + q));
                b[u] = *(const volatile A*)(part + 2 * (base + q) + 1);
            }
        }
#pragma unroll
        for (int u = 0; u < RA_LN_BATCH; ++u) {
            if (q0 + u * step < last) f(q0 + u * step, a[u], b[u]);
        }
    }
}

RA_DEVICE float ra_ln_rsqrt(float v) { return 1.0f / sqrtf(v); }
RA_DEVICE double ra_ln_rsqrt(double v) { return 1.0 / sqrt(v); }

// Sum over the G threads of a group (groups are contiguous thread ranges); every thread of the
// group gets the same value. A group wider than a warp is the whole block: it uses `red`
// (G / RA_WARP_SIZE values) and ends with a barrier.
template <int G, typename A> RA_DEVICE A ra_ln_group_sum(A v, A* red) {
    if constexpr (G <= RA_WARP_SIZE) {
#pragma unroll
        for (int m = G / 2; m > 0; m >>= 1) v += ra_shfl_xor(v, m);
        return v;
    } else {
        constexpr int WARPS = G / RA_WARP_SIZE;
#pragma unroll
        for (int m = RA_WARP_SIZE / 2; m > 0; m >>= 1) v += ra_shfl_xor(v, m);
        if (ra_lane_id() == 0) red[ra_warp_id()] = v;
        __syncthreads();
        A total = A(0);
#pragma unroll
        for (int w = 0; w < WARPS; ++w) total += red[w];
        __syncthreads();
        return total;
    }
}

template <typename A> RA_DEVICE void ra_ln_merge(A& n, A& mean, A& m2, A nb, A meanb, A m2b) {
    if (nb == A(0)) return;
    const A total = n + nb;
    const A delta = meanb - mean;
    const A f = nb / total;
    mean += delta * f;
    m2 += m2b + delta * delta * n * f;
    n = total;
}

// (mean, m2) of the whole block's states, in every thread (fixed tree in shared memory).
template <typename A> RA_DEVICE void ra_ln_block_moments(A& n, A& mean, A& m2, A* sn, A* smean, A* sm2) {
    const int i = (int)threadIdx.x;
    sn[i] = n;
    smean[i] = mean;
    sm2[i] = m2;
    __syncthreads();
    for (int s = RA_LN_BLOCK / 2; s > 0; s >>= 1) {
        if (i < s) {
            ra_ln_merge(n, mean, m2, sn[i + s], smean[i + s], sm2[i + s]);
            sn[i] = n;
            smean[i] = mean;
            sm2[i] = m2;
        }
        __syncthreads();
    }
    mean = smean[0];
    m2 = sm2[0];
    __syncthreads();
}

// Streaming statistics of a row longer than the registers hold (G == the block).
template <int V, typename T, typename A> RA_DEVICE void ra_ln_row_moments(const T* xr, ra_i64 D, A& mean, A& m2,
                                                                         A* sn, A* smean, A* sm2) {
    A n = A(0);
    mean = m2 = A(0);
    for (ra_i64 base = (ra_i64)threadIdx.x * V; base < D; base += (ra_i64)RA_LN_BLOCK * V * RA_LN_ITEMS) {
        A v[RA_LN_ITEMS * V];
        int cnt = 0;
#pragma unroll
        for (int k = 0; k < RA_LN_ITEMS; ++k) {
            const ra_i64 j = base + (ra_i64)k * RA_LN_BLOCK * V;
            if (j < D) {
                ra_ln_load<T, V>(xr + j, v + k * V);
                cnt += V;
            }
        }
        if (cnt == 0) continue;
        A s = A(0);
#pragma unroll
        for (int q = 0; q < RA_LN_ITEMS * V; ++q) s += q < cnt ? v[q] : A(0);
        const A mb = s / A(cnt);
        A sq = A(0);
#pragma unroll
        for (int q = 0; q < RA_LN_ITEMS * V; ++q) sq += q < cnt ? (v[q] - mb) * (v[q] - mb) : A(0);
        ra_ln_merge(n, mean, m2, A(cnt), mb, sq);
    }
    ra_ln_block_moments(n, mean, m2, sn, smean, sm2);
}

template <int V, int G, typename T, typename A>
RA_DEVICE void ra_ln_forward_row(const T* xr, T* yr, ra_i64 D, const A* weight, const A* bias, bool params_aligned,
                                 A eps, A& mean_out, A& invstd_out, A* red, A* sn, A* smean, A* sm2) {
    constexpr int NI = RA_LN_ITEMS * ra_ln_vec<T>::N / V;  // vectors per thread
    const int t = (int)threadIdx.x % G;
    A mean, invstd;
    if (D <= (ra_i64)G * NI * V) {
        // the row stays in registers as loaded (16-bit data in half the registers of floats) and
        // is converted in each of the three passes
        ra_ln_pack<T, V> raw[NI];
        A s = A(0);
#pragma unroll
        for (int k = 0; k < NI; ++k) {
            const ra_i64 j = ((ra_i64)k * G + t) * V;
            if (j < D) {
                raw[k] = *reinterpret_cast<const ra_ln_pack<T, V>*>(xr + j);
#pragma unroll
                for (int i = 0; i < V; ++i) s += ra_traits<T>::to_acc(raw[k].v[i]);
            }
        }
        mean = ra_ln_group_sum<G>(s, red) / A(D);
        A q = A(0);
#pragma unroll
        for (int k = 0; k < NI; ++k) {
            const ra_i64 j = ((ra_i64)k * G + t) * V;
            if (j < D) {
#pragma unroll
                for (int i = 0; i < V; ++i) {
                    const A d = ra_traits<T>::to_acc(raw[k].v[i]) - mean;
                    q += d * d;
                }
            }
        }
        invstd = ra_ln_rsqrt(ra_ln_group_sum<G>(q, red) / A(D) + eps);
#pragma unroll
        for (int k = 0; k < NI; ++k) {
            const ra_i64 j = ((ra_i64)k * G + t) * V;
            if (j < D) {
                A v[V], wv[V], bv[V];
                if (weight != nullptr) ra_ln_load_params<V>(weight + j, params_aligned, wv);
                if (bias != nullptr) ra_ln_load_params<V>(bias + j, params_aligned, bv);
#pragma unroll
                for (int i = 0; i < V; ++i) {
                    A r = (ra_traits<T>::to_acc(raw[k].v[i]) - mean) * invstd;
                    if (weight != nullptr) r *= wv[i];
                    if (bias != nullptr) r += bv[i];
                    v[i] = r;
                }
                ra_ln_store<T, V>(yr + j, v);
            }
        }
    } else {
        if constexpr (G == RA_LN_BLOCK) {
            A m2;
            ra_ln_row_moments<V>(xr, D, mean, m2, sn, smean, sm2);
            invstd = ra_ln_rsqrt(m2 / A(D) + eps);
            for (ra_i64 j = (ra_i64)threadIdx.x * V; j < D; j += (ra_i64)RA_LN_BLOCK * V) {
                A v[V];
                ra_ln_load<T, V>(xr + j, v);
#pragma unroll
                for (int i = 0; i < V; ++i) {
                    A r = (v[i] - mean) * invstd;
                    if (weight != nullptr) r *= weight[j + i];
                    if (bias != nullptr) r += bias[j + i];
                    v[i] = r;
                }
                ra_ln_store<T, V>(yr + j, v);
            }
        } else {
            mean = invstd = A(0);  // the host never sends a longer row to a group narrower than the block
        }
    }
    mean_out = mean;
    invstd_out = invstd;
}

// y = (x - mean) invstd weight + bias per row; mean and invstd saved per row. VEC: D is a
// multiple of the vector width and x, y are 16-byte aligned (a kernel of its own, so the
// one-element path's registers do not count against it); params16: weight and bias are 16-byte
// aligned too (read in 16-byte loads). Blocks: RA_LN_BLOCK threads of narrow groups (G <=
// RA_LN_NARROW), else G threads, one group.
template <typename T, int G, bool VEC>
__global__ void RA_LAUNCH_BOUNDS(RA_LN_BLOCK)
ra_miopen_ln_forward(const T* RA_RESTRICT x, T* RA_RESTRICT y, ra_i64 rows, ra_i64 D, int params16,
                     const typename ra_traits<T>::acc* RA_RESTRICT weight,
                     const typename ra_traits<T>::acc* RA_RESTRICT bias, typename ra_traits<T>::acc eps,
                     typename ra_traits<T>::acc* RA_RESTRICT mean, typename ra_traits<T>::acc* RA_RESTRICT invstd) {
    typedef typename ra_traits<T>::acc A;
    constexpr int V = ra_ln_vec<T>::N;
    constexpr int GROUPS = (G <= RA_LN_NARROW ? RA_LN_BLOCK : G) / G;
    __shared__ A red[RA_LN_BLOCK / RA_WARP_SIZE];
    __shared__ A sn[G == RA_LN_BLOCK ? RA_LN_BLOCK : 1], smean[G == RA_LN_BLOCK ? RA_LN_BLOCK : 1],
        sm2[G == RA_LN_BLOCK ? RA_LN_BLOCK : 1];
    for (ra_i64 r = (ra_i64)blockIdx.x * GROUPS + threadIdx.x / G; r - threadIdx.x / G < rows;
         r += (ra_i64)gridDim.x * GROUPS) {
        if (r >= rows) continue;  // (G < the block only: no block-wide barrier in the row)
        A m, s;
        ra_ln_forward_row<VEC ? V : 1, G>(x + r * D, y + r * D, D, weight, bias, params16 != 0, eps, m, s, red, sn,
                                          smean, sm2);
        if (threadIdx.x % G == 0) {
            mean[r] = m;
            invstd[r] = s;
        }
    }
}

template <int V, int G, typename T, typename A>
RA_DEVICE void ra_ln_backward_row(const T* dyr, const T* xr, T* dxr, ra_i64 D, const A* weight, bool params_aligned,
                                  A mean, A invstd, A* red) {
    constexpr int NI = RA_LN_ITEMS * ra_ln_vec<T>::N / V;
    const int t = (int)threadIdx.x % G;
    const A inv_d = A(1) / A(D);
    if (D <= (ra_i64)G * NI * V) {
        A g[NI * V], h[NI * V];
        A s1 = A(0), s2 = A(0);
#pragma unroll
        for (int k = 0; k < NI; ++k) {
            const ra_i64 j = ((ra_i64)k * G + t) * V;
            if (j < D) {
                ra_ln_load<T, V>(dyr + j, g + k * V);
                ra_ln_load<T, V>(xr + j, h + k * V);
                A wv[V];
                if (weight != nullptr) ra_ln_load_params<V>(weight + j, params_aligned, wv);
#pragma unroll
                for (int i = 0; i < V; ++i) {
                    if (weight != nullptr) g[k * V + i] *= wv[i];
                    h[k * V + i] = (h[k * V + i] - mean) * invstd;
                    s1 += g[k * V + i];
                    s2 += g[k * V + i] * h[k * V + i];
                }
            }
        }
        s1 = ra_ln_group_sum<G>(s1, red) * inv_d;
        s2 = ra_ln_group_sum<G>(s2, red) * inv_d;
#pragma unroll
        for (int k = 0; k < NI; ++k) {
            const ra_i64 j = ((ra_i64)k * G + t) * V;
            if (j < D) {
#pragma unroll
                for (int i = 0; i < V; ++i) g[k * V + i] = invstd * (g[k * V + i] - s1 - h[k * V + i] * s2);
                ra_ln_store<T, V>(dxr + j, g + k * V);
            }
        }
    } else if constexpr (G == RA_LN_BLOCK) {
        A s1 = A(0), s2 = A(0);
        for (ra_i64 j = (ra_i64)threadIdx.x * V; j < D; j += (ra_i64)RA_LN_BLOCK * V) {
            A g[V], h[V];
            ra_ln_load<T, V>(dyr + j, g);
            ra_ln_load<T, V>(xr + j, h);
#pragma unroll
            for (int i = 0; i < V; ++i) {
                const A gi = weight != nullptr ? g[i] * weight[j + i] : g[i];
                s1 += gi;
                s2 += gi * (h[i] - mean) * invstd;
            }
        }
        s1 = ra_ln_group_sum<G>(s1, red) * inv_d;
        s2 = ra_ln_group_sum<G>(s2, red) * inv_d;
        for (ra_i64 j = (ra_i64)threadIdx.x * V; j < D; j += (ra_i64)RA_LN_BLOCK * V) {
            A g[V], h[V];
            ra_ln_load<T, V>(dyr + j, g);
            ra_ln_load<T, V>(xr + j, h);
#pragma unroll
            for (int i = 0; i < V; ++i) {
                const A gi = weight != nullptr ? g[i] * weight[j + i] : g[i];
                g[i] = invstd * (gi - s1 - (h[i] - mean) * invstd * s2);
            }
            ra_ln_store<T, V>(dxr + j, g);
        }
    }
}

// dx = invstd (g - mean(g) - xhat mean(g xhat)) per row, g = dy weight, xhat = (x - mean) invstd.
// VEC, params16 and the blocks as in the forward.
template <typename T, int G, bool VEC>
__global__ void RA_LAUNCH_BOUNDS(RA_LN_BLOCK)
ra_miopen_ln_backward(const T* RA_RESTRICT dy, const T* RA_RESTRICT x, T* RA_RESTRICT dx, ra_i64 rows, ra_i64 D,
                      int params16, const typename ra_traits<T>::acc* RA_RESTRICT weight,
                      const typename ra_traits<T>::acc* RA_RESTRICT mean,
                      const typename ra_traits<T>::acc* RA_RESTRICT invstd) {
    typedef typename ra_traits<T>::acc A;
    constexpr int V = ra_ln_vec<T>::N;
    constexpr int GROUPS = (G <= RA_LN_NARROW ? RA_LN_BLOCK : G) / G;
    __shared__ A red[RA_LN_BLOCK / RA_WARP_SIZE];
    for (ra_i64 r = (ra_i64)blockIdx.x * GROUPS + threadIdx.x / G; r - threadIdx.x / G < rows;
         r += (ra_i64)gridDim.x * GROUPS) {
        if (r >= rows) continue;  // (G < the block only: no block-wide barrier in the row)
        ra_ln_backward_row<VEC ? V : 1, G>(dy + r * D, x + r * D, dx + r * D, D, weight, params16 != 0, mean[r],
                                           invstd[r], red);
    }
}

// Column sums over the rows: grad_weight[j] = sum dy xhat, grad_bias[j] = sum dy. Block (y, t)
// of grid (Y, T): rows [y chunk, (y + 1) chunk) of the `cols` columns of tile t, threads
// rows_per x cols; the last block of a tile (integer ticket) adds the Y partials in split order.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_LN_BLOCK)
ra_miopen_ln_backward_params(const T* RA_RESTRICT dy, const T* RA_RESTRICT x, ra_i64 rows, ra_i64 D, int cols,
                             ra_i64 chunk, const typename ra_traits<T>::acc* RA_RESTRICT mean,
                             const typename ra_traits<T>::acc* RA_RESTRICT invstd,
                             typename ra_traits<T>::acc* RA_RESTRICT part, unsigned int* RA_RESTRICT tickets,
                             typename ra_traits<T>::acc* RA_RESTRICT grad_weight,
                             typename ra_traits<T>::acc* RA_RESTRICT grad_bias) {
    typedef typename ra_traits<T>::acc A;
    constexpr int K = 8;
    __shared__ A sa[RA_LN_BLOCK], sb[RA_LN_BLOCK];
    __shared__ int flag;
    const int per = RA_LN_BLOCK / cols, lane_row = (int)threadIdx.x / cols, col = (int)threadIdx.x % cols;
    const ra_i64 y = blockIdx.x, splits = gridDim.x, j = (ra_i64)blockIdx.y * cols + col;
    const ra_i64 r0 = y * chunk, r1 = ra_min(r0 + chunk, rows);
    A s1 = A(0), s2 = A(0);
    if (j < D) {
        for (ra_i64 base = r0 + lane_row; base < r1; base += (ra_i64)per * K) {
            A g[K], h[K];
#pragma unroll
            for (int u = 0; u < K; ++u) {
                const ra_i64 r = base + (ra_i64)u * per;
                g[u] = r < r1 ? ra_traits<T>::to_acc(dy[r * D + j]) : A(0);
                h[u] = r < r1 ? (ra_traits<T>::to_acc(x[r * D + j]) - mean[r]) * invstd[r] : A(0);
            }
#pragma unroll
            for (int u = 0; u < K; ++u) {
                s1 += g[u];
                s2 += g[u] * h[u];
            }
        }
    }
    const int i = (int)threadIdx.x;
    sa[i] = s1;
    sb[i] = s2;
    __syncthreads();
    for (int s = per / 2; s > 0; s >>= 1) {
        if (lane_row < s) {
            s1 += sa[i + s * cols];
            s2 += sb[i + s * cols];
            sa[i] = s1;
            sb[i] = s2;
        }
        __syncthreads();
    }
    if (lane_row == 0 && j < D) {
        part[2 * (j * splits + y)] = s1;
        part[2 * (j * splits + y) + 1] = s2;
    }
    ra_threadfence();  // each writing thread's partials before the ticket
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned int t = ra_atomic_inc_u32(tickets + blockIdx.y);
        const bool last = t == (unsigned int)splits - 1u;
        if (last) tickets[blockIdx.y] = 0u;
        flag = last ? 1 : 0;
    }
    __syncthreads();
    if (!flag) return;
    ra_threadfence();
    s1 = s2 = A(0);
    if (j < D) {
        ra_ln_partials(part, j * splits, (ra_i64)lane_row, splits, (ra_i64)per, [&](ra_i64, A a, A b) {
            s1 += a;
            s2 += b;
        });
    }
    sa[i] = s1;
    sb[i] = s2;
    __syncthreads();
    for (int s = per / 2; s > 0; s >>= 1) {
        if (lane_row < s) {
            s1 += sa[i + s * cols];
            s2 += sb[i + s * cols];
            sa[i] = s1;
            sb[i] = s2;
        }
        __syncthreads();
    }
    if (lane_row == 0 && j < D) {
        if (grad_bias != nullptr) grad_bias[j] = s1;
        if (grad_weight != nullptr) grad_weight[j] = s2;
    }
}
