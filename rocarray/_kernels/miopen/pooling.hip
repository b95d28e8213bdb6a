// Pooling forward and backward, 1-D to 3-D, channels first or last (rocarray.miopen._pooling).
// Every problem is seen as 3-D: the library fills the leading spatial axes of 1-D and 2-D
// problems with size-one axes (kernel 1, stride 1, no padding), so spatial offsets are torch's
// flat indices within one (n, c) plane: (d * H + h) * W + w.
//
// MODE: 0 max (kernel, stride, padding, dilation; the first maximum's index, a NaN wins like
// torch's), 1 average (torch's divisor: divisor_override, else the window clipped to the padded
// input with count_include_pad, else to the input), 2 adaptive average, 3 adaptive maximum
// (window of output o along an axis of input size I and output size O: [floor(o I / O),
// ceil((o + 1) I / O))). NHWC: channels last.
//
// Forward: a thread per output element (or pack of VEC channels) in memory order (for NHWC
// consecutive threads take consecutive channels, so every window read is coalesced); the NHWC
// max pool of common window widths takes a run of outputs per thread (max2d_nhwc; float16 without
// indices: max2d_nhwc_h2, two channels per comparison). Backward
// gathers: a thread per input element sums over the outputs whose windows can hold it (for max,
// those whose index names it), so no atomics are needed and the sum order is fixed. Sums run in
// ra_traits<T>::acc.

#define RA_MIOPEN_POOLING_BLOCK 256

// Mirrors rocarray/miopen/_pooling.py's GEOMETRY dtype; axes in (D, H, W) order.
struct ra_miopen_pool_geometry {
    ra_i64 n, c;
    ra_i64 in[3], out[3];
    ra_i64 kernel[3], stride[3], pad[3], dilation[3];
    ra_i64 divisor;            // divisor_override, or 0
    ra_i64 count_include_pad;  // 0 or 1
};
static_assert(sizeof(ra_miopen_pool_geometry) == 22 * 8, "ra_miopen_pool_geometry is GEOMETRY's 22 int64 fields");

template <typename A> RA_DEVICE A ra_pool_neg_inf();
template <> RA_DEVICE float ra_pool_neg_inf<float>() { return __int_as_float((int)0xff800000u); }
template <> RA_DEVICE double ra_pool_neg_inf<double>() { return __longlong_as_double((ra_i64)0xfff0000000000000ULL); }

// Element `idx` of a (n, c, d, h, w) tensor of spatial sizes `sp` in the layout: its coordinates.
template <bool NHWC>
RA_DEVICE void ra_pool_coords(ra_i64 idx, ra_i64 channels, const ra_i64* sp, ra_i64& n, ra_i64& c, ra_i64* o) {
    ra_i64 q = idx;
    if (NHWC) ra_divmod_i64(q, channels, q, c);
    ra_divmod_i64(q, sp[2], q, o[2]);
    ra_divmod_i64(q, sp[1], q, o[1]);
    ra_divmod_i64(q, sp[0], q, o[0]);
    if (!NHWC) ra_divmod_i64(q, channels, q, c);
    n = q;
}

// Offset of (n, c) plane origin and the distance between spatial neighbours along W.
template <bool NHWC>
RA_DEVICE void ra_pool_plane(ra_i64 n, ra_i64 c, ra_i64 channels, ra_i64 plane, ra_i64& base, ra_i64& step) {
    base = NHWC ? n * plane * channels + c : (n * channels + c) * plane;
    step = NHWC ? channels : 1;
}

RA_DEVICE ra_i64 ra_pool_adaptive_start(ra_i64 o, ra_i64 in, ra_i64 out) { return (o * in) / out; }
RA_DEVICE ra_i64 ra_pool_adaptive_end(ra_i64 o, ra_i64 in, ra_i64 out) { return ((o + 1) * in + out - 1) / out; }

template <typename T, int N> struct alignas(sizeof(T) * N) ra_pool_pack { T v[N]; };

// VEC > 1 (channels last only): a thread takes VEC consecutive channels, moved as one pack of
// VEC * sizeof(T) bytes (the library passes it when C % VEC == 0 and the arrays are aligned), so
// the index arithmetic and the load instructions are shared by VEC outputs.
template <typename T, int MODE, bool NHWC, int VEC>
__global__ void __launch_bounds__(RA_MIOPEN_POOLING_BLOCK)
ra_miopen_pooling_forward(const T* RA_RESTRICT x, T* RA_RESTRICT y, ra_i64* RA_RESTRICT indices,
                          ra_miopen_pool_geometry g) {
    static_assert(VEC == 1 || NHWC, "channel packs need channels-last data");
    typedef ra_traits<T> Tr;
    typedef typename Tr::acc A;
    typedef ra_pool_pack<T, VEC> P;
    const ra_i64 plane = g.in[0] * g.in[1] * g.in[2];
    const ra_i64 groups = g.c / VEC;
    const ra_i64 total = g.n * groups * g.out[0] * g.out[1] * g.out[2];
    for (ra_i64 idx = ra_global_thread_id(); idx < total; idx += ra_grid_threads()) {
        ra_i64 n, c, o[3], lo[3], hi[3], step_of[3];
        ra_pool_coords<NHWC>(idx, groups, g.out, n, c, o);
        ra_i64 base, step;
        ra_pool_plane<NHWC>(n, c * VEC, g.c, plane, base, step);
        const bool adaptive = MODE >= 2;
        ra_i64 window = 1;  // avg: the divisor before clipping to the input
#pragma unroll
        for (int a = 0; a < 3; ++a) {
            if (adaptive) {
                lo[a] = ra_pool_adaptive_start(o[a], g.in[a], g.out[a]);
                hi[a] = ra_pool_adaptive_end(o[a], g.in[a], g.out[a]);
                step_of[a] = 1;
            } else {
                lo[a] = o[a] * g.stride[a] - g.pad[a];
                step_of[a] = MODE == 0 ? g.dilation[a] : 1;
                if (MODE == 1) {
                    hi[a] = ra_min(lo[a] + g.kernel[a], g.in[a] + g.pad[a]);
                    window *= hi[a] - lo[a];
                } else {
                    hi[a] = lo[a] + (g.kernel[a] - 1) * g.dilation[a] + 1;
                }
                // first tap inside the input (max: on the dilation grid, at most kernel / 2 steps)
                if (MODE == 0) {
                    while (lo[a] < 0) lo[a] += step_of[a];
                } else if (lo[a] < 0) {
                    lo[a] = 0;
                }
                hi[a] = ra_min(hi[a], g.in[a]);
            }
        }
        P r;
        if (MODE == 0 || MODE == 3) {
            A best[VEC];
            ra_i64 at[VEC];
            const ra_i64 first = (lo[0] * g.in[1] + lo[1]) * g.in[2] + lo[2];
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                best[k] = ra_pool_neg_inf<A>();
                at[k] = first;
            }
            for (ra_i64 d = lo[0]; d < hi[0]; d += step_of[0])
                for (ra_i64 h = lo[1]; h < hi[1]; h += step_of[1])
                    for (ra_i64 w = lo[2]; w < hi[2]; w += step_of[2]) {
                        const ra_i64 flat = (d * g.in[1] + h) * g.in[2] + w;
                        const P v = *reinterpret_cast<const P*>(x + base + flat * step);
#pragma unroll
                        for (int k = 0; k < VEC; ++k) {
                            const A a = Tr::to_acc(v.v[k]);
                            if (a > best[k] || a != a) {
                                best[k] = a;
                                at[k] = flat;
                            }
                        }
                    }
#pragma unroll
            for (int k = 0; k < VEC; ++k) r.v[k] = Tr::from_acc(best[k]);
            if (indices != nullptr) {
#pragma unroll
                for (int k = 0; k < VEC; ++k) indices[idx * VEC + k] = at[k];
            }
        } else {
            A sum[VEC];
#pragma unroll
            for (int k = 0; k < VEC; ++k) sum[k] = Tr::zero();
            for (ra_i64 d = lo[0]; d < hi[0]; ++d)
                for (ra_i64 h = lo[1]; h < hi[1]; ++h)
                    for (ra_i64 w = lo[2]; w < hi[2]; ++w) {
                        const P v = *reinterpret_cast<const P*>(x + base + ((d * g.in[1] + h) * g.in[2] + w) * step);
#pragma unroll
                        for (int k = 0; k < VEC; ++k) sum[k] += Tr::to_acc(v.v[k]);
                    }
            ra_i64 divisor;
            if (MODE == 2) divisor = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
            else if (g.divisor != 0) divisor = g.divisor;
            else if (g.count_include_pad) divisor = window;
            else divisor = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
#pragma unroll
            for (int k = 0; k < VEC; ++k) r.v[k] = Tr::from_acc(sum[k] / A(divisor));
        }
        reinterpret_cast<P*>(y)[idx] = r;
    }
}

template <typename T, int MODE, bool NHWC>
__global__ void __launch_bounds__(RA_MIOPEN_POOLING_BLOCK)
ra_miopen_pooling_backward(const T* RA_RESTRICT dy, const ra_i64* RA_RESTRICT indices, T* RA_RESTRICT dx,
                           ra_miopen_pool_geometry g) {
    typedef ra_traits<T> Tr;
    typedef typename Tr::acc A;
    const ra_i64 in_plane = g.in[0] * g.in[1] * g.in[2];
    const ra_i64 out_plane = g.out[0] * g.out[1] * g.out[2];
    const ra_i64 total = g.n * g.c * in_plane;
    for (ra_i64 idx = ra_global_thread_id(); idx < total; idx += ra_grid_threads()) {
        ra_i64 n, c, i[3], olo[3], ohi[3];
        ra_pool_coords<NHWC>(idx, g.c, g.in, n, c, i);
        ra_i64 base, step;
        ra_pool_plane<NHWC>(n, c, g.c, out_plane, base, step);
        const ra_i64 flat = (i[0] * g.in[1] + i[1]) * g.in[2] + i[2];
#pragma unroll
        for (int a = 0; a < 3; ++a) {
            if (MODE >= 2) {
                olo[a] = (i[a] * g.out[a]) / g.in[a];
                ohi[a] = ((i[a] + 1) * g.out[a] + g.in[a] - 1) / g.in[a];
            } else {
                // outputs o with o * s - p <= i <= o * s - p + (k - 1) * dilation
                const ra_i64 reach = i[a] + g.pad[a] - (g.kernel[a] - 1) * (MODE == 0 ? g.dilation[a] : 1);
                olo[a] = reach <= 0 ? 0 : (reach + g.stride[a] - 1) / g.stride[a];
                ohi[a] = ra_min((i[a] + g.pad[a]) / g.stride[a] + 1, g.out[a]);
            }
        }
        A sum = Tr::zero();
        for (ra_i64 od = olo[0]; od < ohi[0]; ++od)
            for (ra_i64 oh = olo[1]; oh < ohi[1]; ++oh)
                for (ra_i64 ow = olo[2]; ow < ohi[2]; ++ow) {
                    const ra_i64 at = base + ((od * g.out[1] + oh) * g.out[2] + ow) * step;
                    if (MODE == 0 || MODE == 3) {
                        if (indices[at] == flat) sum += Tr::to_acc(dy[at]);
                        continue;
                    }
                    const ra_i64 o[3] = {od, oh, ow};
                    ra_i64 window = 1, inside = 1;
#pragma unroll
                    for (int a = 0; a < 3; ++a) {
                        ra_i64 lo, hi;
                        if (MODE == 2) {
                            lo = ra_pool_adaptive_start(o[a], g.in[a], g.out[a]);
                            hi = ra_pool_adaptive_end(o[a], g.in[a], g.out[a]);
                        } else {
                            lo = o[a] * g.stride[a] - g.pad[a];
                            hi = ra_min(lo + g.kernel[a], g.in[a] + g.pad[a]);
                            window *= hi - lo;
                            lo = lo < 0 ? 0 : lo;
                            hi = ra_min(hi, g.in[a]);
                        }
                        inside *= hi - lo;
                    }
                    ra_i64 divisor = inside;
                    if (MODE == 1 && g.divisor != 0) divisor = g.divisor;
                    else if (MODE == 1 && g.count_include_pad) divisor = window;
                    sum += Tr::to_acc(dy[at]) / A(divisor);
                }
        dx[idx] = Tr::from_acc(sum);
    }
}

// The channels-last 2-D max-pool forward (1-D and 2-D problems) for a window width KW and stride
// SW along W (dilation 1 along W; any window height, vertical stride, dilation and padding), a
// 16-byte pack of VEC channels, sizes and offsets in 32 bits (the library checks): a thread takes
// RA_POOL_RUN consecutive outputs of a row for one pack. Per window row it issues the loads of
// the row's COLS packs together (from columns clamped into the input; those outside are never
// compared) and compares each output's taps in the general kernel's order (rows, then columns),
// so the maxima, the NaN rule and the indices are the general kernel's. INDICES: also write them.
#define RA_POOL_RUN 4

template <typename T, int KW, int SW, bool INDICES>
__global__ void __launch_bounds__(RA_MIOPEN_POOLING_BLOCK)
ra_miopen_pooling_max2d_nhwc(const T* RA_RESTRICT x, T* RA_RESTRICT y, ra_i64* RA_RESTRICT indices,
                             ra_miopen_pool_geometry g) {
    typedef ra_traits<T> Tr;
    typedef typename Tr::acc A;
    constexpr int VEC = 16 / (int)sizeof(T);
    constexpr int RUN = RA_POOL_RUN;
    constexpr int COLS = (RUN - 1) * SW + KW;
    typedef ra_pool_pack<T, VEC> P;
    const int packs = (int)g.c / VEC, H = (int)g.in[1], W = (int)g.in[2], OH = (int)g.out[1], OW = (int)g.out[2];
    const int KH = (int)g.kernel[1], sh = (int)g.stride[1], ph = (int)g.pad[1], dh = (int)g.dilation[1];
    const int runs = (OW + RUN - 1) / RUN;
    const int t = (int)blockIdx.x * RA_MIOPEN_POOLING_BLOCK + (int)threadIdx.x;
    if (t >= (int)g.n * OH * runs * packs) return;
    const int p = t % packs, rest = t / packs;
    const int run = rest % runs, nh = rest / runs;  // nh = n * OH + oh
    const int oh = nh % OH, n = nh / OH;
    const int ow0 = run * RUN, col0 = ow0 * SW - (int)g.pad[2];
    bool inside[COLS];
    int at[COLS];
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
        inside[j] = col0 + j >= 0 && col0 + j < W;
        at[j] = ra_min(ra_max(col0 + j, 0), W - 1) * packs;
    }
    // rows on the dilation grid inside the input: [h0, h1)
    int h0 = oh * sh - ph;
    const int h1 = ra_min(h0 + (KH - 1) * dh + 1, H);
    while (h0 < 0) h0 += dh;
    A best[RUN][VEC];
    int where[RUN][VEC];
#pragma unroll
    for (int r = 0; r < RUN; ++r) {
        const int first = h0 * W + ra_max(col0 + r * SW, 0);  // the window's first tap inside
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            best[r][k] = ra_pool_neg_inf<A>();
            if (INDICES) where[r][k] = first;
        }
    }
    const P* xn = reinterpret_cast<const P*>(x) + n * H * W * packs + p;
    for (int h = h0; h < h1; h += dh) {
        const P* xr = xn + h * W * packs;
        P v[COLS];
#pragma unroll
        for (int j = 0; j < COLS; ++j) v[j] = xr[at[j]];
        // column j is tap j - r * SW of output r; for one r, ascending j is the window's order
#pragma unroll
        for (int j = 0; j < COLS; ++j) {
            if (!inside[j]) continue;
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const A a = Tr::to_acc(v[j].v[k]);
#pragma unroll
                for (int r = 0; r < RUN; ++r) {
                    if (j < r * SW || j >= r * SW + KW) continue;
                    if (a > best[r][k] || a != a) {
                        best[r][k] = a;
                        if (INDICES) where[r][k] = h * W + col0 + j;
                    }
                }
            }
        }
    }
    const int out0 = (nh * OW + ow0) * packs + p;  // pack index of output ow0
#pragma unroll
    for (int r = 0; r < RUN; ++r) {
        if (ow0 + r >= OW) break;
        P out;
#pragma unroll
        for (int k = 0; k < VEC; ++k) out.v[k] = Tr::from_acc(best[r][k]);
        reinterpret_cast<P*>(y)[out0 + r * packs] = out;
        if (INDICES) {
#pragma unroll
            for (int k = 0; k < VEC; ++k) indices[(ra_i64)(out0 + r * packs) * VEC + k] = where[r][k];
        }
    }
}

// The float16 max pool of max2d_nhwc without indices, two channels per comparison: a pack is 4
// words of two float16 each, and the running maxima stay in that form (no conversions). Per
// 16-bit lane a tap wins where it is greater than the running maximum or is a NaN, the
// comparisons max2d_nhwc makes (taps in the same order; float16 compares as its float32 value
// does), so y is max2d_nhwc's (a NaN maximum keeps its tap's bits). NVIDIA sm_80+ compares both
// lanes in one instruction (set.f16x2, a 0xffff mask per lane); elsewhere each lane through float.
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
#define RA_POOL_H2_PTX 1
#endif

struct alignas(16) ra_pool_words { ra_u32 w[4]; };

RA_DEVICE ra_u32 ra_pool_h2_lanes(bool lo, bool hi) { return (lo ? 0xffffu : 0u) | (hi ? 0xffff0000u : 0u); }
RA_DEVICE float ra_pool_h2_lane(ra_u32 a, int lane) {
    ra_half h;
    h.bits = (ra_u16)(lane ? a >> 16 : a & 0xffffu);
    return ra_half_to_float(h);
}
// The lanes of float16 pair a that are NaN.
RA_DEVICE ra_u32 ra_pool_h2_nan(ra_u32 a) {
#if defined(RA_POOL_H2_PTX)
    ra_u32 m;
    asm("set.nan.u32.f16x2 %0, %1, %1;" : "=r"(m) : "r"(a));
    return m;
#else
    return ra_pool_h2_lanes((a & 0x7fffu) > 0x7c00u, (a >> 16 & 0x7fffu) > 0x7c00u);
#endif
}
// The lanes where a > b (float16 pairs; false where either is NaN).
RA_DEVICE ra_u32 ra_pool_h2_gt(ra_u32 a, ra_u32 b) {
#if defined(RA_POOL_H2_PTX)
    ra_u32 m;
    asm("set.gt.u32.f16x2 %0, %1, %2;" : "=r"(m) : "r"(a), "r"(b));
    return m;
#else
    return ra_pool_h2_lanes(ra_pool_h2_lane(a, 0) > ra_pool_h2_lane(b, 0),
                            ra_pool_h2_lane(a, 1) > ra_pool_h2_lane(b, 1));
#endif
}

// Three blocks per multiprocessor (80 registers on sm_90): more rows' loads in flight per SM.
template <int KW, int SW>
__global__ void __launch_bounds__(RA_MIOPEN_POOLING_BLOCK, 3)
ra_miopen_pooling_max2d_nhwc_h2(const ra_half* RA_RESTRICT x, ra_half* RA_RESTRICT y, ra_miopen_pool_geometry g) {
    constexpr int RUN = RA_POOL_RUN;
    constexpr int COLS = (RUN - 1) * SW + KW;
    typedef ra_pool_words P;
    const int packs = (int)g.c / 8, H = (int)g.in[1], W = (int)g.in[2], OH = (int)g.out[1], OW = (int)g.out[2];
    const int KH = (int)g.kernel[1], sh = (int)g.stride[1], ph = (int)g.pad[1], dh = (int)g.dilation[1];
    const int runs = (OW + RUN - 1) / RUN;
    const int t = (int)blockIdx.x * RA_MIOPEN_POOLING_BLOCK + (int)threadIdx.x;
    if (t >= (int)g.n * OH * runs * packs) return;
    const int p = t % packs, rest = t / packs;
    const int run = rest % runs, nh = rest / runs;  // nh = n * OH + oh
    const int oh = nh % OH, n = nh / OH;
    const int ow0 = run * RUN, col0 = ow0 * SW - (int)g.pad[2];
    bool inside[COLS];
    int at[COLS];
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
        inside[j] = col0 + j >= 0 && col0 + j < W;
        at[j] = ra_min(ra_max(col0 + j, 0), W - 1) * packs;
    }
    int h0 = oh * sh - ph;
    const int h1 = ra_min(h0 + (KH - 1) * dh + 1, H);
    while (h0 < 0) h0 += dh;
    ra_u32 best[RUN][4];
#pragma unroll
    for (int r = 0; r < RUN; ++r)
#pragma unroll
        for (int k = 0; k < 4; ++k) best[r][k] = 0xfc00fc00u;  // -inf, -inf
    const P* xn = reinterpret_cast<const P*>(x) + n * H * W * packs + p;
    for (int h = h0; h < h1; h += dh) {
        const P* xr = xn + h * W * packs;
        P v[COLS];
#pragma unroll
        for (int j = 0; j < COLS; ++j) v[j] = xr[at[j]];
        // column j is tap j - r * SW of output r; for one r, ascending j is the window's order
#pragma unroll
        for (int j = 0; j < COLS; ++j) {
            if (!inside[j]) continue;
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const ra_u32 a = v[j].w[k], nan = ra_pool_h2_nan(a);
#pragma unroll
                for (int r = 0; r < RUN; ++r) {
                    if (j < r * SW || j >= r * SW + KW) continue;
                    const ra_u32 wins = ra_pool_h2_gt(a, best[r][k]) | nan;
                    best[r][k] = (a & wins) | (best[r][k] & ~wins);
                }
            }
        }
    }
    const int out0 = (nh * OW + ow0) * packs + p;  // pack index of output ow0
#pragma unroll
    for (int r = 0; r < RUN; ++r) {
        if (ow0 + r >= OW) break;
        P out;
#pragma unroll
        for (int k = 0; k < 4; ++k) out.w[k] = best[r][k];
        reinterpret_cast<P*>(y)[out0 + r * packs] = out;
    }
}
