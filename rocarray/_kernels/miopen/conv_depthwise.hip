// Depthwise convolution (groups == C, K = C * multiplier), rocarray.miopen's "depthwise"
// algorithm: every direction, both layouts, 1 to 3 spatial axes (fewer run as three with leading
// axes of size 1), stride, dilation, padding.
//
// T: ra_half, ra_bfloat16, float, double; sums in ra_traits<T>::acc. CL: channels last or first
// (conv_direct.hip gives the shapes; the weights are (K, 1, taps) either way, so one layout of w).
// Output channel k reads input channel k / m (m = K / C). Consecutive threads take consecutive
// elements of the output (channels last: consecutive channels), so the reads of x coalesce and
// neighbouring taps hit the cache. Kernels:
//   ra_miopen_conv_depthwise_fwd           y, a thread per output element, bias and activation fused
//   ra_miopen_conv_depthwise_fwd2d         the same for 1-D/2-D problems of 32-bit sizes, RA_DW_TW
//                                          outputs of a row per thread
//   ra_miopen_conv_depthwise_fwd2d_vec     the same, channels last with K == C, for a 16-byte pack of
//                                          channels per thread
//   ra_miopen_conv_depthwise_fwd2d_run     the same for window widths and strides along W with an
//                                          instantiation: a run of outputs per thread, each input
//                                          pack loaded once per window row
//   ra_miopen_conv_depthwise_fwd2d_tile    the same for a 3x3 window at stride 1: output tiles, their
//                                          input halo staged in shared memory once
//   ra_miopen_conv_depthwise_bwd_data2d_vec  dx under the same conditions, a pack of an input pixel
//                                          per thread
//   ra_miopen_conv_depthwise_bwd_data      dx, a thread per input element over its m channels' taps
//   ra_miopen_conv_depthwise_bwd_weights   dw, a block per weight element, block-wide sum over the
//                                          batch and the output positions (deterministic)

#define RA_DW_BLOCK 256

// Sizes of one problem (rocarray/miopen/_conv_direct.py's GEOMETRY, field for field).
struct ra_conv_geometry {
    ra_i64 n, c, k, groups, cpg, kpg;
    ra_i64 in[3], flt[3], out[3], stride[3], pad[3], dil[3];
};

template <bool CL>
RA_DEVICE ra_i64 ra_dw_offset(ra_i64 n, ra_i64 ch, ra_i64 nch, ra_i64 s0, ra_i64 s1, ra_i64 s2, ra_i64 d, ra_i64 h,
                              ra_i64 w) {
    return CL ? (((n * s0 + d) * s1 + h) * s2 + w) * nch + ch : (((n * nch + ch) * s0 + d) * s1 + h) * s2 + w;
}

template <bool CL>
RA_DEVICE void ra_dw_decode(ra_i64 i, ra_i64 nch, ra_i64 s0, ra_i64 s1, ra_i64 s2, ra_i64& n, ra_i64& ch, ra_i64& d,
                            ra_i64& h, ra_i64& w) {
    // ra_divmod_i64: the 32-bit division where the values fit (the decode runs per element)
    ra_i64 q;
    if (CL) {
        ra_divmod_i64(i, nch, q, ch);
        ra_divmod_i64(q, s2, q, w);
        ra_divmod_i64(q, s1, q, h);
        ra_divmod_i64(q, s0, n, d);
    } else {
        ra_divmod_i64(i, s2, q, w);
        ra_divmod_i64(q, s1, q, h);
        ra_divmod_i64(q, s0, q, d);
        ra_divmod_i64(q, nch, n, ch);
    }
}

// The fused epilogue of the forward: v + bias[k] (bias may be null), then the activation (act:
// ra_activation's codes, 6 leaky_relu with `slope`; conv_epilogue.hip's).
template <typename T, typename A>
RA_DEVICE A ra_conv_epilogue(A v, const T* RA_RESTRICT bias, ra_i64 k, int act, double slope) {
    if (bias != nullptr) v += ra_traits<T>::to_acc(bias[k]);
    if (act == 6) return v < A(0) ? v * A(slope) : v;
    return act == 0 ? v : ra_activation(v, act);
}

template <typename T, bool CL>
__global__ void RA_LAUNCH_BOUNDS(RA_DW_BLOCK)
ra_miopen_conv_depthwise_fwd(ra_conv_geometry g, const T* RA_RESTRICT x, const T* RA_RESTRICT w, T* RA_RESTRICT y,
                             const T* RA_RESTRICT bias, int act, double slope) {
    typedef typename ra_traits<T>::acc A;
    const ra_i64 total = g.n * g.k * g.out[0] * g.out[1] * g.out[2];
    const ra_i64 taps = g.flt[0] * g.flt[1] * g.flt[2];
    for (ra_i64 i = ra_global_thread_id(); i < total; i += ra_grid_threads()) {
        ra_i64 n, k, od, oh, ow;
        ra_dw_decode<CL>(i, g.k, g.out[0], g.out[1], g.out[2], n, k, od, oh, ow);
        const ra_i64 c = k / g.kpg;
        const T* wk = w + k * taps;
        A acc = ra_traits<T>::zero();
        for (ra_i64 fd = 0; fd < g.flt[0]; ++fd) {
            const ra_i64 id = od * g.stride[0] - g.pad[0] + fd * g.dil[0];
            if (id < 0 || id >= g.in[0]) continue;
            for (ra_i64 fh = 0; fh < g.flt[1]; ++fh) {
                const ra_i64 ih = oh * g.stride[1] - g.pad[1] + fh * g.dil[1];
                if (ih < 0 || ih >= g.in[1]) continue;
                for (ra_i64 fw = 0; fw < g.flt[2]; ++fw) {
                    const ra_i64 iw = ow * g.stride[2] - g.pad[2] + fw * g.dil[2];
                    if (iw < 0 || iw >= g.in[2]) continue;
                    acc += ra_traits<T>::to_acc(x[ra_dw_offset<CL>(n, c, g.c, g.in[0], g.in[1], g.in[2], id, ih, iw)]) *
                           ra_traits<T>::to_acc(wk[(fd * g.flt[1] + fh) * g.flt[2] + fw]);
                }
            }
        }
        y[i] = ra_traits<T>::from_acc(ra_conv_epilogue(acc, bias, k, act, slope));
    }
}

// The 2-D forward (1-D and 2-D problems: in[0] = flt[0] = 1) with every size and offset in 32 bits
// (the host checks): a thread computes RA_DW_TW consecutive outputs of one row, so the index
// decode, the weight loads and the row bounds are paid once per RA_DW_TW outputs. Threads step
// fastest over channels (channels last: coalesced) or over the row's tiles (channels first).
#define RA_DW_TW 4

template <typename T, bool CL>
__global__ void RA_LAUNCH_BOUNDS(RA_DW_BLOCK)
ra_miopen_conv_depthwise_fwd2d(ra_conv_geometry g, const T* RA_RESTRICT x, const T* RA_RESTRICT w,
                               T* RA_RESTRICT y, const T* RA_RESTRICT bias, int act, double slope) {
    typedef typename ra_traits<T>::acc A;
    const int C = (int)g.c, K = (int)g.k, m = (int)g.kpg;
    const int H = (int)g.in[1], W = (int)g.in[2], KH = (int)g.flt[1], KW = (int)g.flt[2];
    const int OH = (int)g.out[1], OW = (int)g.out[2];
    const int sh = (int)g.stride[1], sw = (int)g.stride[2], ph = (int)g.pad[1], pw = (int)g.pad[2];
    const int dh = (int)g.dil[1], dw = (int)g.dil[2];
    const int tiles = (OW + RA_DW_TW - 1) / RA_DW_TW;
    const int total = (int)g.n * K * OH * tiles;
    for (int t = (int)ra_global_thread_id(); t < total; t += (int)ra_grid_threads()) {
        int k, tile, oh, n;
        if (CL) {
            k = t % K;
            int rest = t / K;
            tile = rest % tiles; rest /= tiles;
            oh = rest % OH; n = rest / OH;
        } else {
            tile = t % tiles;
            int rest = t / tiles;
            oh = rest % OH; rest /= OH;
            k = rest % K; n = rest / K;
        }
        const int c = k / m, ow0 = tile * RA_DW_TW;
        // x(n, c, ih, iw) = x[base + ih * row + iw * col]
        const int col = CL ? C : 1, row = W * col;
        const int base = CL ? n * H * W * C + c : (n * C + c) * H * W;
        A acc[RA_DW_TW];
#pragma unroll
        for (int j = 0; j < RA_DW_TW; ++j) acc[j] = ra_traits<T>::zero();
        for (int fh = 0; fh < KH; ++fh) {
            const int ih = oh * sh - ph + fh * dh;
            if (ih < 0 || ih >= H) continue;
            const T* xr = x + base + ih * row;
            for (int fw = 0; fw < KW; ++fw) {
                const A wv = ra_traits<T>::to_acc(w[(k * KH + fh) * KW + fw]);
#pragma unroll
                for (int j = 0; j < RA_DW_TW; ++j) {
                    const int iw = (ow0 + j) * sw - pw + fw * dw;
                    if (ow0 + j < OW && iw >= 0 && iw < W) acc[j] += ra_traits<T>::to_acc(xr[iw * col]) * wv;
                }
            }
        }
        // y(n, k, oh, ow) = y[out + ow * ocol]
        const int ocol = CL ? K : 1;
        const int out = CL ? (n * OH + oh) * OW * K + k : ((n * K + k) * OH + oh) * OW;
#pragma unroll
        for (int j = 0; j < RA_DW_TW; ++j)
            if (ow0 + j < OW)
                y[out + (ow0 + j) * ocol] = ra_traits<T>::from_acc(ra_conv_epilogue(acc[j], bias, k, act, slope));
    }
}

// The channels-last 2-D forward of one input channel per output channel (K == C) in 16-byte
// packs of RA_DW_VEC(T) channels (C a multiple of it, x and y 16-byte aligned, sizes and offsets in
// 32 bits; the host checks): a thread computes RA_DW_TW consecutive outputs of a row for one pack,
// so each input pixel's channels come in one 16-byte load instead of a 2-byte load per channel
// and the index decode is paid once per pack. Block (bx, by) takes the chunk by of up to
// RA_DW_PACKS packs (lanes: consecutive packs of one pixel, coalesced) and RA_DW_BLOCK / packs
// row tiles per step; its weights and bias wait in shared memory tap-major, one pack per tap, so
// a tap's weights are one 16-byte shared load. Sums run in the same order as the scalar kernel's.
#define RA_DW_PACKS 32
#define RA_DW_VTAPS 49

template <typename T> struct alignas(16) ra_dw_pack { T v[16 / sizeof(T)]; };

// The packed kernels' chunk: packs per chunk pb, first pack p0, packs np of this block's chunk;
// its weights staged tap-major into ws (read in w's order), and the bias (if any) as row taps.
template <typename T>
RA_DEVICE void ra_dw_stage(ra_dw_pack<T>* ws, const T* RA_RESTRICT w, const T* RA_RESTRICT bias, int C, int taps,
                           int& pb, int& p0, int& np) {
    constexpr int VEC = 16 / (int)sizeof(T);
    const int packs = C / VEC;
    pb = packs < RA_DW_PACKS ? packs : RA_DW_PACKS;
    p0 = (int)blockIdx.y * pb;
    np = packs - p0 < pb ? packs - p0 : pb;
    T* wst = reinterpret_cast<T*>(ws);
    for (int i = (int)threadIdx.x; i < np * VEC * taps; i += RA_DW_BLOCK) {
        const int cl = i / taps, r = i - cl * taps;
        wst[r * pb * VEC + cl] = w[p0 * VEC * taps + i];
    }
    if (bias != nullptr)
        for (int cl = (int)threadIdx.x; cl < np * VEC; cl += RA_DW_BLOCK)
            wst[taps * pb * VEC + cl] = bias[p0 * VEC + cl];
    __syncthreads();
}

template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_DW_BLOCK)
ra_miopen_conv_depthwise_fwd2d_vec(ra_conv_geometry g, const T* RA_RESTRICT x, const T* RA_RESTRICT w,
                                   T* RA_RESTRICT y, const T* RA_RESTRICT bias, int act, double slope) {
    typedef typename ra_traits<T>::acc A;
    constexpr int VEC = 16 / (int)sizeof(T);
    // rows 0 .. taps - 1: the taps' weights, row taps: the bias; a row holds pb packs
    __shared__ ra_dw_pack<T> ws[(RA_DW_VTAPS + 1) * RA_DW_PACKS];
    const int C = (int)g.c, H = (int)g.in[1], W = (int)g.in[2], KH = (int)g.flt[1], KW = (int)g.flt[2];
    const int OH = (int)g.out[1], OW = (int)g.out[2];
    const int sh = (int)g.stride[1], sw = (int)g.stride[2], ph = (int)g.pad[1], pw = (int)g.pad[2];
    const int dh = (int)g.dil[1], dw = (int)g.dil[2];
    const int taps = KH * KW;
    int pb, p0, np;
    ra_dw_stage(ws, w, bias, C, taps, pb, p0, np);
    const int p = (int)threadIdx.x % pb, slot = (int)threadIdx.x / pb, slots = RA_DW_BLOCK / pb;
    if (p >= np || slot >= slots) return;  // no barrier below
    const T* bs = bias != nullptr ? ws[taps * pb + p].v : nullptr;
    const int c0 = (p0 + p) * VEC;
    const int tiles = (OW + RA_DW_TW - 1) / RA_DW_TW;
    const int items = (int)g.n * OH * tiles;
    for (int t = (int)blockIdx.x * slots + slot; t < items; t += (int)gridDim.x * slots) {
        const int tile = t % tiles, rest = t / tiles;
        const int oh = rest % OH, n = rest / OH;
        const int ow0 = tile * RA_DW_TW;
        const T* xn = x + n * H * W * C + c0;
        A acc[RA_DW_TW][VEC];
#pragma unroll
        for (int j = 0; j < RA_DW_TW; ++j)
#pragma unroll
            for (int i = 0; i < VEC; ++i) acc[j][i] = ra_traits<T>::zero();
        for (int fh = 0; fh < KH; ++fh) {
            const int ih = oh * sh - ph + fh * dh;
            if (ih < 0 || ih >= H) continue;
            const T* xr = xn + ih * W * C;
            for (int fw = 0; fw < KW; ++fw) {
                const ra_dw_pack<T> wp = ws[(fh * KW + fw) * pb + p];
                A wv[VEC];
#pragma unroll
                for (int i = 0; i < VEC; ++i) wv[i] = ra_traits<T>::to_acc(wp.v[i]);
#pragma unroll
                for (int j = 0; j < RA_DW_TW; ++j) {
                    const int iw = (ow0 + j) * sw - pw + fw * dw;
                    if (ow0 + j < OW && iw >= 0 && iw < W) {
                        const ra_dw_pack<T> xp = *reinterpret_cast<const ra_dw_pack<T>*>(xr + iw * C);
#pragma unroll
                        for (int i = 0; i < VEC; ++i) acc[j][i] += ra_traits<T>::to_acc(xp.v[i]) * wv[i];
                    }
                }
            }
        }
        T* yr = y + (n * OH + oh) * OW * C + c0;
#pragma unroll
        for (int j = 0; j < RA_DW_TW; ++j) {
            if (ow0 + j < OW) {
                ra_dw_pack<T> out;
#pragma unroll
                for (int i = 0; i < VEC; ++i)
                    out.v[i] = ra_traits<T>::from_acc(ra_conv_epilogue(acc[j][i], bs, i, act, slope));
                *reinterpret_cast<ra_dw_pack<T>*>(yr + (ow0 + j) * C) = out;
            }
        }
    }
}

// One window row of the run kernel: column j of the row (v, converted once) is tap j - r * SW of
// output r, so for one output ascending j is ascending fw. EDGE: some columns lie outside the
// input (bit j of `inside` clear: its clamped value is skipped); without it no bit is tested.
template <typename T, int KW, int SW, int RUN, int COLS, bool EDGE>
RA_DEVICE void ra_dw_run_row(const ra_dw_pack<T> (&v)[COLS],
                             const typename ra_traits<T>::acc (&wv)[KW][16 / sizeof(T)], unsigned inside,
                             typename ra_traits<T>::acc (&acc)[RUN][16 / sizeof(T)]) {
    typedef typename ra_traits<T>::acc A;
    constexpr int VEC = 16 / (int)sizeof(T);
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
        if (EDGE && !(inside >> j & 1u)) continue;
        A xv[VEC];
#pragma unroll
        for (int i = 0; i < VEC; ++i) xv[i] = ra_traits<T>::to_acc(v[j].v[i]);
#pragma unroll
        for (int r = 0; r < RUN; ++r) {
            const int fw = j - r * SW;
            if (fw < 0 || fw >= KW) continue;
#pragma unroll
            for (int i = 0; i < VEC; ++i) acc[r][i] += xv[i] * wv[fw][i];
        }
    }
}

// The packed forward for a window width KW and a stride SW along W (dilation 1 along W; any
// height, vertical stride, dilation and padding), under fwd2d_vec's conditions: a thread computes
// RA_DW_TW consecutive outputs of a row for one pack (fwd2d_vec's work items). Per window row it
// issues the loads of the row's COLS input packs together (the taps' bounds decided once per run),
// converts each once and adds it to every output whose window holds it, so an input pack is
// loaded once per row instead of once per tap column. Each output still adds its taps in (fh, fw)
// order and skips those outside the input: the same bits as fwd2d_vec and the one-channel kernel.
template <typename T, int KW, int SW>
__global__ void RA_LAUNCH_BOUNDS(RA_DW_BLOCK)
ra_miopen_conv_depthwise_fwd2d_run(ra_conv_geometry g, const T* RA_RESTRICT x, const T* RA_RESTRICT w,
                                   T* RA_RESTRICT y, const T* RA_RESTRICT bias, int act, double slope) {
    typedef typename ra_traits<T>::acc A;
    typedef ra_dw_pack<T> P;
    constexpr int VEC = 16 / (int)sizeof(T);
    constexpr int RUN = RA_DW_TW;
    constexpr int COLS = (RUN - 1) * SW + KW;
    __shared__ P ws[(RA_DW_VTAPS + 1) * RA_DW_PACKS];
    const int C = (int)g.c, H = (int)g.in[1], W = (int)g.in[2], KH = (int)g.flt[1];
    const int OH = (int)g.out[1], OW = (int)g.out[2];
    const int sh = (int)g.stride[1], ph = (int)g.pad[1], pw = (int)g.pad[2], dh = (int)g.dil[1];
    int pb, p0, np;
    ra_dw_stage(ws, w, bias, C, KH * KW, pb, p0, np);
    const int p = (int)threadIdx.x % pb, slot = (int)threadIdx.x / pb, slots = RA_DW_BLOCK / pb;
    if (p >= np || slot >= slots) return;  // no barrier below
    const T* bs = bias != nullptr ? ws[KH * KW * pb + p].v : nullptr;
    const int c0 = (p0 + p) * VEC;
    const int runs = (OW + RUN - 1) / RUN;
    const int items = (int)g.n * OH * runs;
    // consecutive items step over a band of `band` output rows first, then along the row, so a
    // block's slots share input rows as well as columns in the cache (band divides OH)
    const int band = OH % 4 == 0 ? 4 : OH % 2 == 0 ? 2 : 1;
    for (int t = (int)blockIdx.x * slots + slot; t < items; t += (int)gridDim.x * slots) {
        const int in_band = t % (band * runs), bands = t / (band * runs);  // bands: n * OH / band + b
        const int run = in_band / band;
        const int oh = bands % (OH / band) * band + in_band % band, n = bands / (OH / band);
        const int ow0 = run * RUN, col0 = ow0 * SW - pw;  // input column of the run's column 0
        // loads from columns clamped into the input, so they are unconditional (issued together);
        // the values of columns outside are never used
        unsigned inside = 0;  // bit j: column j lies in the input
        int at[COLS];
#pragma unroll
        for (int j = 0; j < COLS; ++j) {
            inside |= (col0 + j >= 0 && col0 + j < W ? 1u : 0u) << j;
            at[j] = ra_min(ra_max(col0 + j, 0), W - 1) * C;
        }
        const bool edge = inside != (1u << COLS) - 1u;
        A acc[RUN][VEC];
#pragma unroll
        for (int r = 0; r < RUN; ++r)
#pragma unroll
            for (int i = 0; i < VEC; ++i) acc[r][i] = ra_traits<T>::zero();
        const T* xn = x + n * H * W * C + c0;
        for (int fh = 0; fh < KH; ++fh) {
            const int ih = oh * sh - ph + fh * dh;
            if (ih < 0 || ih >= H) continue;
            const T* xr = xn + ih * W * C;
            P v[COLS];
#pragma unroll
            for (int j = 0; j < COLS; ++j) v[j] = *reinterpret_cast<const P*>(xr + at[j]);
            A wv[KW][VEC];
#pragma unroll
            for (int fw = 0; fw < KW; ++fw) {
                const P wp = ws[(fh * KW + fw) * pb + p];
#pragma unroll
                for (int i = 0; i < VEC; ++i) wv[fw][i] = ra_traits<T>::to_acc(wp.v[i]);
            }
            if (edge) ra_dw_run_row<T, KW, SW, RUN, COLS, true>(v, wv, inside, acc);
            else ra_dw_run_row<T, KW, SW, RUN, COLS, false>(v, wv, inside, acc);
        }
        T* yr = y + (n * OH + oh) * OW * C + c0;
#pragma unroll
        for (int r = 0; r < RUN; ++r) {
            if (ow0 + r < OW) {
                P out;
                if (act == 0) {  // ra_conv_epilogue's identity, its tests taken once per output
#pragma unroll
                    for (int i = 0; i < VEC; ++i)
                        out.v[i] = ra_traits<T>::from_acc(bs != nullptr ? acc[r][i] + ra_traits<T>::to_acc(bs[i])
                                                                        : acc[r][i]);
                } else {
#pragma unroll
                    for (int i = 0; i < VEC; ++i)
                        out.v[i] = ra_traits<T>::from_acc(ra_conv_epilogue(acc[r][i], bs, i, act, slope));
                }
                *reinterpret_cast<P*>(yr + (ow0 + r) * C) = out;
            }
        }
    }
}

// The tiled forward of a 3x3 window at stride 1 and dilation 1 (any padding), under fwd2d_vec's
// conditions. A block owns the channel chunk blockIdx.y (RA_DW_TP packs, 128 bytes of a pixel) and
// walks output tiles of RA_DW_TH x RA_DW_TW2 pixels (grid-stride over the tiles of all images): it
// stages the tile's (TH + 2) x (TW + 2) input halo in shared memory once, in 16-byte copies, and
// keeps the copies of the next tiles in flight while it computes one: NVIDIA copies into a ring
// of RA_DW_STAGES halo buffers two tiles ahead (asynchronously, cp.async, on sm_80+); elsewhere
// the next tile's halo is loaded into registers during the arithmetic and stored after it. A
// thread takes half a pack (8 bytes of channels) of RA_DW_TR consecutive outputs of one column: it
// reads the (TR + 2) x 3 input half packs it needs from shared memory, converts each once and adds
// it to every output whose window holds it. Its weights (9 taps of its channels, converted) and
// bias stay in registers for the whole walk. Input rows ascend, so each output adds its taps in
// (fh, fw) order and skips those outside the input: the same bits as the one-channel kernel.
#define RA_DW_TH 16
#define RA_DW_TW2 8
#define RA_DW_TP 8
#define RA_DW_TR 8
// NVIDIA walks with the ring (asynchronous copies on sm_80+, plain copies below: the same walk);
// other targets with the register prefetch.
#if defined(RA_CUDA)
#define RA_DW_RING 1
#define RA_DW_STAGES 3
#else
#define RA_DW_STAGES 1
#endif

template <typename T> struct alignas(8) ra_dw_half { T v[8 / sizeof(T)]; };

#if defined(RA_DW_RING)
// 16 bytes global -> shared; src_bytes 0 fills zeros (src is then not read). sm_80+: asynchronous,
// complete after ra_dw_copy_wait; below: a plain copy.
RA_DEVICE void ra_dw_copy_16(void* dst, const void* src, int src_bytes) {
#if RA_CUDA_ARCH >= 800
    const unsigned addr = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(addr), "l"(src), "r"(src_bytes) : "memory");
#else
    typedef ra_dw_pack<float> P;
    *reinterpret_cast<P*>(dst) = src_bytes != 0 ? *reinterpret_cast<const P*>(src) : P();
#endif
}
RA_DEVICE void ra_dw_copy_commit() {
#if RA_CUDA_ARCH >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
// Wait until at most N of this thread's committed groups are in flight.
template <int N> RA_DEVICE void ra_dw_copy_wait() {
#if RA_CUDA_ARCH >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}
#endif

template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_DW_BLOCK)
ra_miopen_conv_depthwise_fwd2d_tile(ra_conv_geometry g, const T* RA_RESTRICT x, const T* RA_RESTRICT w,
                                    T* RA_RESTRICT y, const T* RA_RESTRICT bias, int act, double slope) {
    typedef typename ra_traits<T>::acc A;
    typedef ra_dw_pack<T> P;
    typedef ra_dw_half<T> Q;
    constexpr int VEC = 16 / (int)sizeof(T), HV = VEC / 2;
    constexpr int TH = RA_DW_TH, TW = RA_DW_TW2, TP = RA_DW_TP, TR = RA_DW_TR;
    constexpr int IH = TH + 2, IW = TW + 2;  // the input halo of a tile
    constexpr int HALO = IH * IW * TP;       // its packs
    constexpr int LOADS = (HALO + RA_DW_BLOCK - 1) / RA_DW_BLOCK;
    static_assert(2 * TP * TW * (TH / TR) == RA_DW_BLOCK, "a thread per half pack and column strip");
    __shared__ P xs[RA_DW_STAGES * HALO];
    const int C = (int)g.c, H = (int)g.in[1], W = (int)g.in[2];
    const int OH = (int)g.out[1], OW = (int)g.out[2], ph = (int)g.pad[1], pw = (int)g.pad[2];
    const int packs = C / VEC, p0 = (int)blockIdx.y * TP;
    const int np = packs - p0 < TP ? packs - p0 : TP;
    // the thread's half pack q, tile column `col` and first tile row `row0` of its strip
    const int q = (int)threadIdx.x % (2 * TP), col = (int)threadIdx.x / (2 * TP) % TW;
    const int row0 = (int)threadIdx.x / (2 * TP * TW) * TR;
    const bool active = q < 2 * np;
    const int c = p0 * VEC + q * HV;  // its first channel
    A wv[9][HV];
    T bt[HV];
#pragma unroll
    for (int i = 0; i < HV; ++i) {
#pragma unroll
        for (int r = 0; r < 9; ++r) wv[r][i] = ra_traits<T>::zero();
        bt[i] = T();
        if (!active) continue;
#pragma unroll
        for (int r = 0; r < 9; ++r) wv[r][i] = ra_traits<T>::to_acc(w[(c + i) * 9 + r]);
        if (bias != nullptr) bt[i] = bias[c + i];
    }
    const int tiles_w = (OW + TW - 1) / TW, tiles_h = (OH + TH - 1) / TH;
    const int tiles = (int)g.n * tiles_h * tiles_w;
    const int step = (int)gridDim.x;
    // Halo element e = threadIdx.x + k * RA_DW_BLOCK of a tile is pack e % TP of halo pixel e / TP.
    // RA_DW_BLOCK is a multiple of TP, so the thread's pack is the same for every k, and the
    // pixels' rows and columns within the halo are per-thread constants: only the tile's corner
    // changes from tile to tile (one decode of t a tile, not one a load).
    static_assert(RA_DW_BLOCK % TP == 0, "a thread's halo pack is the same for every load");
    const int hpp = (int)threadIdx.x % TP;
    const bool hpack = hpp < np;
    int hrow[LOADS], hcol[LOADS];
#pragma unroll
    for (int k = 0; k < LOADS; ++k) {
        const int pix = ((int)threadIdx.x + k * RA_DW_BLOCK) / TP;
        hrow[k] = pix < IH * IW ? pix / IW : -(1 << 20);  // past the halo: never in the input
        hcol[k] = pix % IW;
    }
    // Tile t's corner: its image, and the input row and column of its halo's first pixel.
    struct Corner { int n, ih, iw; };
    auto corner = [&](int t) -> Corner {
        const int tw = t % tiles_w, rest = t / tiles_w;
        return Corner{rest / tiles_h, rest % tiles_h * TH - ph, tw * TW - pw};
    };
    // Load k of the tile at `cr`: its address, or null where it lies outside the halo, the input
    // or the chunk (never added).
    auto halo = [&](const Corner& cr, int k) -> const P* {
        const int ih = cr.ih + hrow[k], iw = cr.iw + hcol[k];
        return hpack && ih >= 0 && ih < H && iw >= 0 && iw < W
                   ? reinterpret_cast<const P*>(x + ((cr.n * H + ih) * W + iw) * C + (p0 + hpp) * VEC)
                   : nullptr;
    };
    // y of tile t from its halo in `buf`
    auto compute = [&](const P* buf, int t) {
        const int tw = t % tiles_w, rest = t / tiles_w;
        const int th = rest % tiles_h, n = rest / tiles_h;
        const int oh0 = th * TH + row0, ow = tw * TW + col;
        const int ih0 = oh0 - ph, iw0 = ow - pw;  // input row and column of the strip's first tap
        const Q* xq = reinterpret_cast<const Q*>(buf);
        bool cin[3];
#pragma unroll
        for (int fw = 0; fw < 3; ++fw) cin[fw] = iw0 + fw >= 0 && iw0 + fw < W;
        A acc[TR][HV];
#pragma unroll
        for (int j = 0; j < TR; ++j)
#pragma unroll
            for (int i = 0; i < HV; ++i) acc[j][i] = ra_traits<T>::zero();
#pragma unroll
        for (int rr = 0; rr < TR + 2; ++rr) {
            if (ih0 + rr < 0 || ih0 + rr >= H) continue;
            A xv[3][HV];
#pragma unroll
            for (int fw = 0; fw < 3; ++fw) {
                const Q v = xq[((row0 + rr) * IW + col + fw) * 2 * TP + q];
#pragma unroll
                for (int i = 0; i < HV; ++i) xv[fw][i] = ra_traits<T>::to_acc(v.v[i]);
            }
#pragma unroll
            for (int j = 0; j < TR; ++j) {
                const int fh = rr - j;
                if (fh < 0 || fh > 2) continue;
#pragma unroll
                for (int fw = 0; fw < 3; ++fw)
                    if (cin[fw])
#pragma unroll
                        for (int i = 0; i < HV; ++i) acc[j][i] += xv[fw][i] * wv[fh * 3 + fw][i];
            }
        }
        if (ow >= OW) return;
        T* yp = y + ((n * OH + oh0) * OW + ow) * C + c;
#pragma unroll
        for (int j = 0; j < TR; ++j) {
            if (oh0 + j < OH) {
                Q out;
                if (act == 0) {  // ra_conv_epilogue's identity, its tests taken once per output
#pragma unroll
                    for (int i = 0; i < HV; ++i)
                        out.v[i] = ra_traits<T>::from_acc(bias != nullptr ? acc[j][i] + ra_traits<T>::to_acc(bt[i])
                                                                          : acc[j][i]);
                } else {
#pragma unroll
                    for (int i = 0; i < HV; ++i)
                        out.v[i] = ra_traits<T>::from_acc(
                            ra_conv_epilogue(acc[j][i], bias != nullptr ? bt : nullptr, i, act, slope));
                }
                *reinterpret_cast<Q*>(yp + j * OW * C) = out;
            }
        }
    };
#if defined(RA_DW_RING)
    // tile i of the walk (t = blockIdx.x + i * step) lands in buffer i % STAGES; one commit group
    // per tile (empty past the end), so "all but the newest STAGES - 2 groups" is tile i's
    auto issue = [&](int t, int b) {
        if (t < tiles) {
            const Corner cr = corner(t);
#pragma unroll
            for (int k = 0; k < LOADS; ++k) {
                const int e = (int)threadIdx.x + k * RA_DW_BLOCK;
                if (e < HALO) {
                    const P* src = halo(cr, k);
                    ra_dw_copy_16(xs + b * HALO + e, src != nullptr ? (const void*)src : (const void*)x,
                                      src != nullptr ? 16 : 0);
                }
            }
        }
        ra_dw_copy_commit();
    };
    int t = (int)blockIdx.x;
#pragma unroll
    for (int s = 0; s < RA_DW_STAGES - 1; ++s) issue(t + s * step, s);
    for (int i = 0; t < tiles; t += step, ++i) {
        ra_dw_copy_wait<RA_DW_STAGES - 2>();
        __syncthreads();  // tile i's halo in; every thread is past tile i - 1, whose buffer is refilled next
        issue(t + (RA_DW_STAGES - 1) * step, (i + RA_DW_STAGES - 1) % RA_DW_STAGES);
        if (active) compute(xs + i % RA_DW_STAGES * HALO, t);
    }
#else
    P pre[LOADS];
    auto load = [&](int t) {
        const Corner cr = corner(t);
#pragma unroll
        for (int k = 0; k < LOADS; ++k) {
            const P* src = halo(cr, k);
            pre[k] = src != nullptr ? *src : P();
        }
    };
    int t = (int)blockIdx.x;
    if (t < tiles) load(t);
    for (; t < tiles; t += step) {
        __syncthreads();  // the previous tile's reads of xs are done
#pragma unroll
        for (int k = 0; k < LOADS; ++k) {
            const int e = (int)threadIdx.x + k * RA_DW_BLOCK;
            if (e < HALO) xs[e] = pre[k];
        }
        __syncthreads();
        if (t + step < tiles) load(t + step);
        if (active) compute(xs, t);
    }
#endif
}

// The data gradient under the packed forward's conditions: a thread computes one input pixel's
// pack, one 16-byte load of dy per tap that reaches it, the weights from shared memory as there;
// taps in the one-channel kernel's order.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_DW_BLOCK)
ra_miopen_conv_depthwise_bwd_data2d_vec(ra_conv_geometry g, const T* RA_RESTRICT dy, const T* RA_RESTRICT w,
                                        T* RA_RESTRICT dx) {
    typedef typename ra_traits<T>::acc A;
    constexpr int VEC = 16 / (int)sizeof(T);
    __shared__ ra_dw_pack<T> ws[RA_DW_VTAPS * RA_DW_PACKS];
    const int C = (int)g.c, H = (int)g.in[1], W = (int)g.in[2], KH = (int)g.flt[1], KW = (int)g.flt[2];
    const int OH = (int)g.out[1], OW = (int)g.out[2];
    const int sh = (int)g.stride[1], sw = (int)g.stride[2], ph = (int)g.pad[1], pw = (int)g.pad[2];
    const int dh = (int)g.dil[1], dw = (int)g.dil[2];
    int pb, p0, np;
    ra_dw_stage<T>(ws, w, nullptr, C, KH * KW, pb, p0, np);
    const int p = (int)threadIdx.x % pb, slot = (int)threadIdx.x / pb, slots = RA_DW_BLOCK / pb;
    if (p >= np || slot >= slots) return;  // no barrier below
    const int c0 = (p0 + p) * VEC;
    const int items = (int)g.n * H * W;
    for (int t = (int)blockIdx.x * slots + slot; t < items; t += (int)gridDim.x * slots) {
        const int iw = t % W, rest = t / W;
        const int ih = rest % H, n = rest / H;
        A acc[VEC];
#pragma unroll
        for (int i = 0; i < VEC; ++i) acc[i] = ra_traits<T>::zero();
        for (int fh = 0; fh < KH; ++fh) {
            const int th = ih + ph - fh * dh;
            if (th < 0 || th % sh) continue;
            const int oh = th / sh;
            if (oh >= OH) continue;
            const T* dyr = dy + (n * OH + oh) * OW * C + c0;
            for (int fw = 0; fw < KW; ++fw) {
                const int tw = iw + pw - fw * dw;
                if (tw < 0 || tw % sw) continue;
                const int ow = tw / sw;
                if (ow >= OW) continue;
                const ra_dw_pack<T> wp = ws[(fh * KW + fw) * pb + p];
                const ra_dw_pack<T> gp = *reinterpret_cast<const ra_dw_pack<T>*>(dyr + ow * C);
#pragma unroll
                for (int i = 0; i < VEC; ++i) acc[i] += ra_traits<T>::to_acc(gp.v[i]) * ra_traits<T>::to_acc(wp.v[i]);
            }
        }
        ra_dw_pack<T> out;
#pragma unroll
        for (int i = 0; i < VEC; ++i) out.v[i] = ra_traits<T>::from_acc(acc[i]);
        *reinterpret_cast<ra_dw_pack<T>*>(dx + ((n * H + ih) * W + iw) * C + c0) = out;
    }
}

template <typename T, bool CL>
__global__ void RA_LAUNCH_BOUNDS(RA_DW_BLOCK)
ra_miopen_conv_depthwise_bwd_data(ra_conv_geometry g, const T* RA_RESTRICT dy, const T* RA_RESTRICT w,
                                  T* RA_RESTRICT dx) {
    typedef typename ra_traits<T>::acc A;
    const ra_i64 total = g.n * g.c * g.in[0] * g.in[1] * g.in[2];
    const ra_i64 taps = g.flt[0] * g.flt[1] * g.flt[2];
    for (ra_i64 i = ra_global_thread_id(); i < total; i += ra_grid_threads()) {
        ra_i64 n, c, id, ih, iw;
        ra_dw_decode<CL>(i, g.c, g.in[0], g.in[1], g.in[2], n, c, id, ih, iw);
        A acc = ra_traits<T>::zero();
        for (ra_i64 fd = 0; fd < g.flt[0]; ++fd) {
            const ra_i64 td = id + g.pad[0] - fd * g.dil[0];
            if (td < 0 || td % g.stride[0]) continue;
            const ra_i64 od = td / g.stride[0];
            if (od >= g.out[0]) continue;
            for (ra_i64 fh = 0; fh < g.flt[1]; ++fh) {
                const ra_i64 th = ih + g.pad[1] - fh * g.dil[1];
                if (th < 0 || th % g.stride[1]) continue;
                const ra_i64 oh = th / g.stride[1];
                if (oh >= g.out[1]) continue;
                for (ra_i64 fw = 0; fw < g.flt[2]; ++fw) {
                    const ra_i64 tw = iw + g.pad[2] - fw * g.dil[2];
                    if (tw < 0 || tw % g.stride[2]) continue;
                    const ra_i64 ow = tw / g.stride[2];
                    if (ow >= g.out[2]) continue;
                    const ra_i64 r = (fd * g.flt[1] + fh) * g.flt[2] + fw;
                    for (ra_i64 j = 0; j < g.kpg; ++j) {
                        const ra_i64 k = c * g.kpg + j;
                        acc += ra_traits<T>::to_acc(
                                   dy[ra_dw_offset<CL>(n, k, g.k, g.out[0], g.out[1], g.out[2], od, oh, ow)]) *
                               ra_traits<T>::to_acc(w[k * taps + r]);
                    }
                }
            }
        }
        dx[i] = ra_traits<T>::from_acc(acc);
    }
}

template <typename T, bool CL>
__global__ void RA_LAUNCH_BOUNDS(RA_DW_BLOCK)
ra_miopen_conv_depthwise_bwd_weights(ra_conv_geometry g, const T* RA_RESTRICT x, const T* RA_RESTRICT dy,
                                     T* RA_RESTRICT dw) {
    typedef typename ra_traits<T>::acc A;
    __shared__ A scratch[RA_DW_BLOCK / RA_WARP_SIZE];
    const ra_i64 taps = g.flt[0] * g.flt[1] * g.flt[2];
    const ra_i64 total = g.k * taps;
    const ra_i64 per_image = g.out[0] * g.out[1] * g.out[2];
    const ra_i64 terms = g.n * per_image;
    for (ra_i64 e = blockIdx.x; e < total; e += gridDim.x) {
        const ra_i64 k = e / taps, r = e - k * taps;
        const ra_i64 fw = r % g.flt[2], fh = (r / g.flt[2]) % g.flt[1], fd = r / (g.flt[2] * g.flt[1]);
        const ra_i64 c = k / g.kpg;
        A acc = ra_traits<T>::zero();
        for (ra_i64 j = threadIdx.x; j < terms; j += RA_DW_BLOCK) {
            const ra_i64 n = j / per_image;
            ra_i64 rest = j - n * per_image;
            const ra_i64 ow = rest % g.out[2];
            rest /= g.out[2];
            const ra_i64 oh = rest % g.out[1], od = rest / g.out[1];
            const ra_i64 id = od * g.stride[0] - g.pad[0] + fd * g.dil[0];
            const ra_i64 ih = oh * g.stride[1] - g.pad[1] + fh * g.dil[1];
            const ra_i64 iw = ow * g.stride[2] - g.pad[2] + fw * g.dil[2];
            if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1] || iw < 0 || iw >= g.in[2]) continue;
            acc += ra_traits<T>::to_acc(x[ra_dw_offset<CL>(n, c, g.c, g.in[0], g.in[1], g.in[2], id, ih, iw)]) *
                   ra_traits<T>::to_acc(dy[ra_dw_offset<CL>(n, k, g.k, g.out[0], g.out[1], g.out[2], od, oh, ow)]);
        }
        acc = ra_block_reduce<RA_DW_BLOCK>(acc, ra_op_sum(), scratch);
        if (threadIdx.x == 0) dw[e] = ra_traits<T>::from_acc(acc);
        __syncthreads();  // scratch is reused by the next element
    }
}
