// miopen: convolutions as implicit GEMMs (no im2col buffer), for every dtype, both layouts,
// groups, stride, padding and dilation, 1-D to 3-D (1-D and 2-D problems are 3-D ones with
// leading spatial axes of length 1, filter 1, stride 1, pad 0, dilation 1).
//
// Forward, per group g: one GEMM  Y_g[m, k] = sum_r A_g[m, r] * W_g[k, r]  with
//   m = (n, od, oh, ow) an output pixel (M = N * OD * OH * OW rows),
//   k an output channel of the group (KG columns),
//   r = (tap, c) a filter tap and a channel of the group; A_g[m, r] is the input element tap
//   `tap` of pixel m reads on channel c (zero in the padding), gathered while the tile loads.
// The reduction walks the taps in the outer loop and the channels in steps of BK in the inner
// one (the last step of each tap masked past CG), so a step's tap is the same for the whole
// block and no thread divides in the loop; W_g[k, r] is read at its place in either weight
// layout (K x CG x taps or K x taps x CG).
//
// ra_miopen_conv_igemm_fwd<T, CL, BM, BN, BK, TM, TN>: T the element type (16-bit types are
// converted to float when loaded, products accumulate in ra_traits<T>::acc), CL channels last.
// A block of (BM / TM) * (BN / TN) threads owns a BM x BN tile of Y_g (blockIdx.x: m tiles,
// blockIdx.y: k tiles, blockIdx.z: group) and walks r in steps of BK through shared memory;
// each thread accumulates TM x TN outputs at rows tm + i * (BM / TM), columns tn + j * (BN / TN)
// (the strided assignment keeps shared-memory reads conflict-free). Consecutive threads take
// consecutive pixels in channels-first layout and consecutive channels in channels-last
// layout, the contiguous direction of x and y in each. Edge tiles are zero-filled when loaded
// and the stores are guarded. Offsets are 64-bit.

struct ra_conv_geometry {
    ra_i64 n, c, k, cg, kg;             // batch, channels in / out, channels per group in / out
    ra_i64 in_d, in_h, in_w;            // input size
    ra_i64 out_d, out_h, out_w;         // output size
    ra_i64 f_d, f_h, f_w;               // filter size
    ra_i64 stride_d, stride_h, stride_w;
    ra_i64 pad_d, pad_h, pad_w;         // padding before each axis
    ra_i64 dil_d, dil_h, dil_w;
};

// The forward kernels keep two blocks resident per NVIDIA multiprocessor (registers capped at
// 128 a thread; a few values used once a step spill to L1), so one block's global loads overlap
// the other's products. HIP's second bound means waves per SIMD: left to the compiler there.
#if defined(RA_CUDA)
#define RA_CONV_LAUNCH_BOUNDS(threads) __launch_bounds__(threads, 2)
#else
#define RA_CONV_LAUNCH_BOUNDS(threads) __launch_bounds__(threads)
#endif

// The reduction position of the forward and backward-data kernels: a filter tap and the first
// channel (of the `channels` the reduction runs over per tap) of a step.
struct ra_conv_step {
    int c0, td, th, tw;

    RA_DEVICE void start() { c0 = td = th = tw = 0; }
    // The next step: BK channels on, or the next tap's first channel.
    RA_DEVICE void advance(const ra_conv_geometry& g, int bk, ra_i64 channels) {
        c0 += bk;
        if (c0 < channels) return;
        c0 = 0;
        if (++tw < g.f_w) return;
        tw = 0;
        if (++th < g.f_h) return;
        th = 0;
        ++td;
    }
    RA_DEVICE ra_i64 tap(const ra_conv_geometry& g) const { return ((ra_i64)td * g.f_h + th) * g.f_w + tw; }
};

template <typename T, bool CL, int BM, int BN, int BK, int TM, int TN>
__global__ void RA_CONV_LAUNCH_BOUNDS((BM / TM) * (BN / TN))
ra_miopen_conv_igemm_fwd(const T* RA_RESTRICT x, const T* RA_RESTRICT w, T* RA_RESTRICT y, ra_conv_geometry g) {
    typedef typename ra_traits<T>::acc A;
    constexpr int MT = BM / TM, NT = BN / TN, THREADS = MT * NT;
    constexpr int LA = BM * BK / THREADS, LB = BN * BK / THREADS;
    static_assert(BM * BK % THREADS == 0 && BN * BK % THREADS == 0, "tile loads must split evenly");
    __shared__ A as[BK][BM];
    __shared__ A bs[BK][BN];

    const int tid = threadIdx.x;
    const ra_i64 group = blockIdx.z;
    const ra_i64 m0 = (ra_i64)blockIdx.x * BM, n0 = (ra_i64)blockIdx.y * BN;
    const ra_i64 plane = g.out_d * g.out_h * g.out_w, rows = g.n * plane;
    const ra_i64 taps = g.f_d * g.f_h * g.f_w, red = g.cg * taps;
    const ra_i64 in_plane = g.in_d * g.in_h * g.in_w;
    const ra_i64 c_first = group * g.cg;

    // The pixels this thread loads for the A tile: batch offset and the input corner they read.
    ra_i64 a_base[LA];
    int a_d[LA], a_h[LA], a_w[LA], a_kk[LA];
    bool a_ok[LA];
#pragma unroll
    for (int i = 0; i < LA; ++i) {
        const int e = tid + i * THREADS;
        const int mm = CL ? e / BK : e % BM;
        a_kk[i] = CL ? e % BK : e / BM;
        const ra_i64 m = m0 + mm;
        a_ok[i] = m < rows;
        const ra_i64 mc = a_ok[i] ? m : 0;
        const ra_i64 nb = mc / plane, p = mc % plane;
        const ra_i64 od = p / (g.out_h * g.out_w), oh = (p / g.out_w) % g.out_h, ow = p % g.out_w;
        a_d[i] = (int)(od * g.stride_d - g.pad_d);
        a_h[i] = (int)(oh * g.stride_h - g.pad_h);
        a_w[i] = (int)(ow * g.stride_w - g.pad_w);
        a_base[i] = CL ? nb * in_plane * g.c + c_first : (nb * g.c + c_first) * in_plane;
    }

    A acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = ra_traits<T>::zero();

    const int tm = CL ? tid / NT : tid % MT;
    const int tn = CL ? tid % NT : tid / MT;
    const T* wg = w + group * g.kg * red;  // the group's first output channel
    const ra_i64 steps = taps * ((g.cg + BK - 1) / BK);
    ra_conv_step at;
    at.start();

    for (ra_i64 s = 0; s < steps; ++s, at.advance(g, BK, g.cg)) {
        const ra_i64 tap = at.tap(g);
        const int dd = (int)(at.td * g.dil_d), dh = (int)(at.th * g.dil_h), dw = (int)(at.tw * g.dil_w);
#pragma unroll
        for (int i = 0; i < LA; ++i) {
            const ra_i64 c = at.c0 + a_kk[i];
            const int id = a_d[i] + dd, ih = a_h[i] + dh, iw = a_w[i] + dw;
            A v = ra_traits<T>::zero();
            if (a_ok[i] && c < g.cg && id >= 0 && id < g.in_d && ih >= 0 && ih < g.in_h && iw >= 0 && iw < g.in_w) {
                const ra_i64 pos = ((ra_i64)id * g.in_h + ih) * g.in_w + iw;
                v = ra_traits<T>::to_acc(x[CL ? a_base[i] + pos * g.c + c : a_base[i] + c * in_plane + pos]);
            }
            const int e = tid + i * THREADS;
            as[a_kk[i]][CL ? e / BK : e % BM] = v;
        }
#pragma unroll
        for (int i = 0; i < LB; ++i) {
            const int e = tid + i * THREADS;
            const int kk = e % BK, nn = e / BK;
            const ra_i64 c = at.c0 + kk, n = n0 + nn;
            bs[kk][nn] = (c < g.cg && n < g.kg)
                             ? ra_traits<T>::to_acc(wg[n * red + (CL ? tap * g.cg + c : c * taps + tap)])
                             : ra_traits<T>::zero();
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            A a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = as[kk][tm + i * MT];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = bs[kk][tn + j * NT];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const ra_i64 m = m0 + tm + i * MT;
        if (m >= rows) continue;
        const ra_i64 nb = m / plane, p = m % plane;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const ra_i64 n = n0 + tn + j * NT;
            if (n >= g.kg) continue;
            const ra_i64 ko = group * g.kg + n;
            y[CL ? m * g.k + ko : (nb * g.k + ko) * plane + p] = ra_traits<T>::from_acc(acc[i][j]);
        }
    }
}

// ra_miopen_conv_igemm_bwd_data<T, CL, BM, BN, BK, TM, TN>: backward data as an implicit GEMM on
// the forward kernel's tiles (block, thread and shared-memory layout), per group
//   dX_g[m, c] = sum_r dY_g[m, r] W_g[r, c],
// m = (n, id, ih, iw) an input pixel, c a channel of the group, r = (tap, k) a filter tap and an
// output channel of the group; dY_g[m, r] is dy at the output position o with
// o * stride = i + pad - tap * dilation on every axis, zero where no such o lies inside the
// output. As in the forward, taps run in the outer loop and output channels in steps of BK
// inside; each thread splits its pixels' i + pad into quotient and remainder by the stride once,
// and each step's tap offset once, so o exists iff the remainders agree (no division per
// element). Launch: dy, w, dx.
template <typename T, bool CL, int BM, int BN, int BK, int TM, int TN>
__global__ void RA_LAUNCH_BOUNDS((BM / TM) * (BN / TN))
ra_miopen_conv_igemm_bwd_data(const T* RA_RESTRICT dy, const T* RA_RESTRICT w, T* RA_RESTRICT dx,
                              ra_conv_geometry g) {
    typedef typename ra_traits<T>::acc A;
    constexpr int MT = BM / TM, NT = BN / TN, THREADS = MT * NT;
    constexpr int LA = BM * BK / THREADS, LB = BN * BK / THREADS;
    static_assert(BM * BK % THREADS == 0 && BN * BK % THREADS == 0, "tile loads must split evenly");
    __shared__ A as[BK][BM];
    __shared__ A bs[BK][BN];

    const int tid = threadIdx.x;
    const ra_i64 group = blockIdx.z;
    const ra_i64 m0 = (ra_i64)blockIdx.x * BM, n0 = (ra_i64)blockIdx.y * BN;
    const ra_i64 plane = g.out_d * g.out_h * g.out_w, in_plane = g.in_d * g.in_h * g.in_w;
    const ra_i64 rows = g.n * in_plane, taps = g.f_d * g.f_h * g.f_w;
    const ra_i64 k_first = group * g.kg;

    // This thread's A pixels: the batch offset into dy and i + pad split by the stride per axis.
    ra_i64 a_base[LA];
    int a_kk[LA], a_qd[LA], a_qh[LA], a_qw[LA], a_rd[LA], a_rh[LA], a_rw[LA];
    bool a_ok[LA];
#pragma unroll
    for (int i = 0; i < LA; ++i) {
        const int e = tid + i * THREADS;
        const int mm = CL ? e / BK : e % BM;
        a_kk[i] = CL ? e % BK : e / BM;
        const ra_i64 m = m0 + mm;
        a_ok[i] = m < rows;
        const ra_i64 mc = a_ok[i] ? m : 0;
        const ra_i64 nb = mc / in_plane, q = mc % in_plane;
        const ra_i64 id = q / (g.in_h * g.in_w) + g.pad_d, ih = (q / g.in_w) % g.in_h + g.pad_h,
                     iw = q % g.in_w + g.pad_w;
        a_qd[i] = (int)(id / g.stride_d); a_rd[i] = (int)(id % g.stride_d);
        a_qh[i] = (int)(ih / g.stride_h); a_rh[i] = (int)(ih % g.stride_h);
        a_qw[i] = (int)(iw / g.stride_w); a_rw[i] = (int)(iw % g.stride_w);
        a_base[i] = CL ? nb * plane * g.k + k_first : (nb * g.k + k_first) * plane;
    }

    A acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = ra_traits<T>::zero();
    // consecutive threads store consecutive pixels (channels first) or channels (channels last)
    const int tm = CL ? tid / NT : tid % MT;
    const int tn = CL ? tid % NT : tid / MT;
    const ra_i64 steps = taps * ((g.kg + BK - 1) / BK);
    ra_conv_step at;
    at.start();

    for (ra_i64 s = 0; s < steps; ++s, at.advance(g, BK, g.kg)) {
        const ra_i64 tap = at.tap(g);
        const int td = (int)(at.td * g.dil_d), th = (int)(at.th * g.dil_h), tw = (int)(at.tw * g.dil_w);
        const int sqd = td / (int)g.stride_d, srd = td % (int)g.stride_d;
        const int sqh = th / (int)g.stride_h, srh = th % (int)g.stride_h;
        const int sqw = tw / (int)g.stride_w, srw = tw % (int)g.stride_w;
#pragma unroll
        for (int i = 0; i < LA; ++i) {
            const ra_i64 k = at.c0 + a_kk[i];
            const int od = a_qd[i] - sqd, oh = a_qh[i] - sqh, ow = a_qw[i] - sqw;
            A v = ra_traits<T>::zero();
            if (a_ok[i] && k < g.kg && a_rd[i] == srd && a_rh[i] == srh && a_rw[i] == srw && od >= 0 &&
                od < g.out_d && oh >= 0 && oh < g.out_h && ow >= 0 && ow < g.out_w) {
                const ra_i64 p = ((ra_i64)od * g.out_h + oh) * g.out_w + ow;
                v = ra_traits<T>::to_acc(dy[CL ? a_base[i] + p * g.k + k : a_base[i] + k * plane + p]);
            }
            const int e = tid + i * THREADS;
            as[a_kk[i]][CL ? e / BK : e % BM] = v;
        }
#pragma unroll
        for (int i = 0; i < LB; ++i) {
            const int e = tid + i * THREADS;
            const int nn = e % BN, kk = e / BN;
            const ra_i64 k = at.c0 + kk, c = n0 + nn, ko = k_first + k;
            bs[kk][nn] = (k < g.kg && c < g.cg)
                             ? ra_traits<T>::to_acc(w[CL ? (ko * taps + tap) * g.cg + c : (ko * g.cg + c) * taps + tap])
                             : ra_traits<T>::zero();
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            A a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = as[kk][tm + i * MT];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = bs[kk][tn + j * NT];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const ra_i64 m = m0 + tm + i * MT;
        if (m >= rows) continue;
        const ra_i64 nb = m / in_plane, q = m % in_plane;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const ra_i64 c = n0 + tn + j * NT;
            if (c >= g.cg) continue;
            const ra_i64 ci = group * g.cg + c;
            dx[CL ? m * g.c + ci : (nb * g.c + ci) * in_plane + q] = ra_traits<T>::from_acc(acc[i][j]);
        }
    }
}

// ra_miopen_conv_igemm_bwd_weights<T, CL, BM, BN, BK, TM, TN>: backward weights as an implicit
// GEMM on the same tiles, per group
//   dW_g[k, col] = sum_r dY_g[k, r] X_g[r, col],
// col the (channel, tap) pair in the weights' order (c * taps + tap, or tap * CG + c), r = (n, o)
// an output pixel, X_g[r, col] the input element tap `tap` of pixel o reads (zero in the
// padding), both operands gathered element by element. The reduction is long (N * output
// pixels), so gridDim.z = groups * splits and split s sums r in [s * split_len, (s + 1) *
// split_len), writing its partial sums (acc type) to partial[s][K][CG * taps];
// ra_miopen_conv_igemm_reduce adds the splits and rounds once. Consecutive threads load along
// the contiguous direction of each operand. Launch: dy, x, partial, split_len.
RA_DEVICE void ra_conv_tap(const ra_conv_geometry& g, ra_i64 tap, ra_i64& td, ra_i64& th, ra_i64& tw) {
    td = tap / (g.f_h * g.f_w);
    th = (tap / g.f_w) % g.f_h;
    tw = tap % g.f_w;
}

template <typename T, bool CL, int BM, int BN, int BK, int TM, int TN>
__global__ void RA_LAUNCH_BOUNDS((BM / TM) * (BN / TN))
ra_miopen_conv_igemm_bwd_weights(const T* RA_RESTRICT dy, const T* RA_RESTRICT x,
                                 typename ra_traits<T>::acc* RA_RESTRICT partial, ra_conv_geometry g,
                                 ra_i64 split_len) {
    typedef typename ra_traits<T>::acc A;
    constexpr int MT = BM / TM, NT = BN / TN, THREADS = MT * NT;
    constexpr int LA = BM * BK / THREADS, LB = BN * BK / THREADS;
    static_assert(BM * BK % THREADS == 0 && BN * BK % THREADS == 0, "tile loads must split evenly");
    // which index consecutive threads take: A rows (output channels; contiguous in channels-last
    // dy, else the pixels r are), B columns (the channels of channels-last x, else the pixels r)
    constexpr bool A_MFAST = CL, B_NFAST = CL;
    __shared__ A as[BK][BM];
    __shared__ A bs[BK][BN];

    const int tid = threadIdx.x;
    const ra_i64 splits = (ra_i64)gridDim.z / (g.c / g.cg);
    const ra_i64 group = (ra_i64)blockIdx.z / splits, split = (ra_i64)blockIdx.z % splits;
    const ra_i64 m0 = (ra_i64)blockIdx.x * BM, n0 = (ra_i64)blockIdx.y * BN;
    const ra_i64 taps = g.f_d * g.f_h * g.f_w;
    const ra_i64 plane = g.out_d * g.out_h * g.out_w, in_plane = g.in_d * g.in_h * g.in_w;
    const ra_i64 rows = g.kg, cols = g.cg * taps;
    const ra_i64 r_full = g.n * plane, r_begin = split * split_len;
    const ra_i64 r_end = r_begin + split_len < r_full ? r_begin + split_len : r_full;

    auto load_a = [&](ra_i64 m, ra_i64 r) -> A {
        if (m >= rows || r >= r_end) return ra_traits<T>::zero();
        const ra_i64 nb = r / plane, p = r % plane, ko = group * g.kg + m;
        return ra_traits<T>::to_acc(dy[CL ? r * g.k + ko : (nb * g.k + ko) * plane + p]);
    };
    auto load_b = [&](ra_i64 r, ra_i64 n) -> A {
        if (n >= cols || r >= r_end) return ra_traits<T>::zero();
        const ra_i64 c = CL ? n % g.cg : n / taps, tap = CL ? n / g.cg : n % taps;
        const ra_i64 nb = r / plane, p = r % plane;
        const ra_i64 od = p / (g.out_h * g.out_w), oh = (p / g.out_w) % g.out_h, ow = p % g.out_w;
        ra_i64 td, th, tw;
        ra_conv_tap(g, tap, td, th, tw);
        const ra_i64 id = od * g.stride_d - g.pad_d + td * g.dil_d;
        const ra_i64 ih = oh * g.stride_h - g.pad_h + th * g.dil_h;
        const ra_i64 iw = ow * g.stride_w - g.pad_w + tw * g.dil_w;
        if (id < 0 || id >= g.in_d || ih < 0 || ih >= g.in_h || iw < 0 || iw >= g.in_w) return ra_traits<T>::zero();
        const ra_i64 pos = (id * g.in_h + ih) * g.in_w + iw, ci = group * g.cg + c;
        return ra_traits<T>::to_acc(x[CL ? (nb * in_plane + pos) * g.c + ci : (nb * g.c + ci) * in_plane + pos]);
    };

    A acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = ra_traits<T>::zero();
    const int tm = tid / NT, tn = tid % NT;  // consecutive threads store consecutive columns

    for (ra_i64 r0 = r_begin; r0 < r_end; r0 += BK) {
#pragma unroll
        for (int i = 0; i < LA; ++i) {
            const int e = tid + i * THREADS;
            const int mm = A_MFAST ? e % BM : e / BK, kk = A_MFAST ? e / BM : e % BK;
            as[kk][mm] = load_a(m0 + mm, r0 + kk);
        }
#pragma unroll
        for (int i = 0; i < LB; ++i) {
            const int e = tid + i * THREADS;
            const int nn = B_NFAST ? e % BN : e / BK, kk = B_NFAST ? e / BN : e % BK;
            bs[kk][nn] = load_b(r0 + kk, n0 + nn);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            A a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = as[kk][tm + i * MT];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = bs[kk][tn + j * NT];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const ra_i64 m = m0 + tm + i * MT;
        if (m >= rows) continue;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const ra_i64 n = n0 + tn + j * NT;
            if (n < cols) partial[(split * g.k + group * g.kg + m) * cols + n] = acc[i][j];
        }
    }
}

// dw[i] = sum over the splits of the partial sums (acc type), rounded once to T.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(256)
ra_miopen_conv_igemm_reduce(const typename ra_traits<T>::acc* RA_RESTRICT partial, T* RA_RESTRICT dw, ra_i64 count,
                            ra_i64 splits) {
    for (ra_i64 i = ra_global_thread_id(); i < count; i += ra_grid_threads()) {
        typename ra_traits<T>::acc sum = partial[i];
        for (ra_i64 s = 1; s < splits; ++s) sum += partial[s * count + i];
        dw[i] = ra_traits<T>::from_acc(sum);
    }
}

// ra_miopen_conv_igemm_fwd_mma<T>: the same GEMM for T = ra_half or ra_bfloat16 in channels-last
// layout on the matrix units (float32 accumulation, one rounding at the store).
//  * A block of 256 threads owns a 128 (pixels) x 128 (output channels) tile of Y_g and walks the
//    reduction as the forward kernel above does (taps outside, 32 channels per step inside)
//    through two shared-memory buffers (the next step's tiles are read from global memory into
//    registers while the current one is multiplied, then stored to the other buffer: one
//    barrier per step). Tiles are stored channel-contiguous: row i of the A tile holds the
//    step's 32 channels of pixel m0 + i, row j of the B tile those of output channel n0 + j,
//    each row padded by 8 elements (80 bytes) so fragment reads of 8 consecutive rows hit
//    distinct banks.
//  * Global loads move 8 consecutive channels of one tap (16 bytes) per thread and chunk. With
//    `vec` (CG a multiple of 8, x and w 16-byte aligned) that is one 16-byte load; otherwise each
//    element is loaded on its own. Channels past CG and pixels in the padding read as zero.
// Backends (chosen at compile time):
//  * NVIDIA sm_80+: 8 warps as 2 (m) x 4 (n), warp tile 64 x 32 = 4 x 4 tiles of
//    mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}; each lane reads its fragment registers
//    from shared memory with 32-bit loads (PTX ISA, "Matrix Fragments for mma.m16n8k16": with
//    g = lane / 4, t = lane % 4, A register q holds (g + 8 (q & 1), 2 t + 8 (q >> 1) + {0, 1}),
//    B register q holds (k = 2 t + 8 q + {0, 1}, n = g), D register c is (g + 8 (c >> 1), 2 t + (c & 1))).
//  * AMD CDNA2/3 (wave64, MFMA): 4 waves as 2 x 2, wave tile 64 x 64 = 2 x 2 tiles of
//    v_mfma_f32_32x32x8{f16,bf16_1k}: lane l holds A(l % 32, 4 (l / 32) + 0..3), B(4 (l / 32) + 0..3,
//    l % 32) and D(8 (c / 4) + 4 (l / 32) + c % 4, l % 32) in accumulator register c.
//  * anywhere else: the tiles multiplied with scalar float FMAs (8 x 8 outputs per thread).
// The vendor instructions are wrapped in the primitives block below (the CPU tests run the
// kernel with host models of exactly these wrappers).

#define RA_CONV_MMA_BM 128
#define RA_CONV_MMA_BN 128
#define RA_CONV_MMA_BK 32
#define RA_CONV_MMA_LD 40  // elements per shared row: BK + 8 of padding

// ---- ra-conv-mma-primitives-begin ----
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
#define RA_CONV_MMA_NV 1
#elif defined(RA_HIP) && defined(RA_AMD_MFMA) && RA_WARP_SIZE == 64 && !defined(RA_ARCH_GFX908)
#define RA_CONV_MMA_AMD 1
#endif

#if defined(RA_CONV_MMA_NV)
// d += a b for one 16 x 8 x 16 tile (a: the 4 A fragment registers, b0, b1: the B fragment).
template <typename T> struct ra_conv_mma_16816;
template <> struct ra_conv_mma_16816<ra_half> {
    static RA_DEVICE void run(float (&d)[4], const ra_u32 (&a)[4], ra_u32 b0, ra_u32 b1) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9}, {%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};
template <> struct ra_conv_mma_16816<ra_bfloat16> {
    static RA_DEVICE void run(float (&d)[4], const ra_u32 (&a)[4], ra_u32 b0, ra_u32 b1) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
            "{%8, %9}, {%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};
#endif

#if defined(RA_CONV_MMA_AMD)
typedef float ra_conv_f32x16 __attribute__((ext_vector_type(16)));
typedef _Float16 ra_conv_f16x4 __attribute__((ext_vector_type(4)));
typedef short ra_conv_i16x4 __attribute__((ext_vector_type(4)));
// d + a b for one 32 x 32 x 8 tile; a, b: this lane's 4 elements (bits), packed low to high.
template <typename T> struct ra_conv_mfma_32x32x8;
template <> struct ra_conv_mfma_32x32x8<ra_half> {
    static RA_DEVICE ra_conv_f32x16 run(ra_u64 a, ra_u64 b, ra_conv_f32x16 d) {
        return __builtin_amdgcn_mfma_f32_32x32x8f16(__builtin_bit_cast(ra_conv_f16x4, a),
                                                    __builtin_bit_cast(ra_conv_f16x4, b), d, 0, 0, 0);
    }
};
template <> struct ra_conv_mfma_32x32x8<ra_bfloat16> {
    static RA_DEVICE ra_conv_f32x16 run(ra_u64 a, ra_u64 b, ra_conv_f32x16 d) {
        return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(__builtin_bit_cast(ra_conv_i16x4, a),
                                                        __builtin_bit_cast(ra_conv_i16x4, b), d, 0, 0, 0);
    }
};
#endif
// ---- ra-conv-mma-primitives-end ----

struct alignas(16) ra_conv_chunk { ra_u32 w[4]; };  // 8 elements of 16 bits

template <typename T> RA_DEVICE float ra_conv_bits_to_float(ra_u16 bits) {
    T v; v.bits = bits; return ra_traits<T>::to_acc(v);
}

template <typename T>
__global__ void RA_CONV_LAUNCH_BOUNDS(256)
ra_miopen_conv_igemm_fwd_mma(const T* RA_RESTRICT x, const T* RA_RESTRICT w, T* RA_RESTRICT y, ra_conv_geometry g,
                             int vec) {
    constexpr int BM = RA_CONV_MMA_BM, BN = RA_CONV_MMA_BN, BK = RA_CONV_MMA_BK, LD = RA_CONV_MMA_LD;
    constexpr int THREADS = 256, CHUNKS = BK / 8;  // 16-byte chunks per tile row
    constexpr int LA = BM * CHUNKS / THREADS, LB = BN * CHUNKS / THREADS;
    static_assert(LD % 8 == 0, "shared rows are whole 16-byte chunks");
    __shared__ ra_conv_chunk a_tiles[2][BM * LD / 8];
    __shared__ ra_conv_chunk b_tiles[2][BN * LD / 8];

    const int tid = threadIdx.x;
    const ra_i64 group = blockIdx.z;
    const ra_i64 m0 = (ra_i64)blockIdx.x * BM, n0 = (ra_i64)blockIdx.y * BN;
    const ra_i64 plane = g.out_d * g.out_h * g.out_w, rows = g.n * plane;
    const ra_i64 red = g.cg * g.f_d * g.f_h * g.f_w;
    const ra_i64 in_plane = g.in_d * g.in_h * g.in_w;
    const ra_u16* xb = (const ra_u16*)x;
    const ra_u16* wg = (const ra_u16*)w + group * g.kg * red;

    // This thread's A chunks: pixel rows (fixed for the whole loop) and their input corners.
    ra_i64 a_base[LA];
    int a_d[LA], a_h[LA], a_w[LA];
    bool a_ok[LA];
#pragma unroll
    for (int i = 0; i < LA; ++i) {
        const ra_i64 m = m0 + (tid + i * THREADS) / CHUNKS;
        a_ok[i] = m < rows;
        const ra_i64 mc = a_ok[i] ? m : 0;
        const ra_i64 nb = mc / plane, p = mc % plane;
        const ra_i64 od = p / (g.out_h * g.out_w), oh = (p / g.out_w) % g.out_h, ow = p % g.out_w;
        a_d[i] = (int)(od * g.stride_d - g.pad_d);
        a_h[i] = (int)(oh * g.stride_h - g.pad_h);
        a_w[i] = (int)(ow * g.stride_w - g.pad_w);
        a_base[i] = nb * in_plane * g.c + group * g.cg;
    }

    ra_conv_chunk a_next[LA], b_next[LB];  // the next step's chunks, in registers
    const int cq = 8 * (tid % CHUNKS);        // this thread's first channel within a step
    ra_conv_step at;                          // the step the next gather reads
    at.start();
    auto gather = [&]() {
        const ra_i64 tap = at.tap(g);
        const int dd = (int)(at.td * g.dil_d), dh = (int)(at.th * g.dil_h), dw = (int)(at.tw * g.dil_w);
        const ra_i64 c = at.c0 + cq;
#pragma unroll
        for (int i = 0; i < LA; ++i) {
            const int id = a_d[i] + dd, ih = a_h[i] + dh, iw = a_w[i] + dw;
            const bool in = a_ok[i] && id >= 0 && id < g.in_d && ih >= 0 && ih < g.in_h && iw >= 0 && iw < g.in_w;
            const ra_u16* src = xb + a_base[i] + (((ra_i64)id * g.in_h + ih) * g.in_w + iw) * g.c + c;
            if (vec) {  // 8 consecutive channels (CG % 8 == 0: all inside or all past CG)
                if (in && c < g.cg) {
                    a_next[i] = *(const ra_conv_chunk*)src;
                } else {
                    a_next[i].w[0] = a_next[i].w[1] = a_next[i].w[2] = a_next[i].w[3] = 0u;
                }
                continue;
            }
            ra_u16 e[8];
#pragma unroll
            for (int q = 0; q < 8; ++q) e[q] = (in && c + q < g.cg) ? src[q] : (ra_u16)0;
#pragma unroll
            for (int q = 0; q < 4; ++q) a_next[i].w[q] = (ra_u32)e[2 * q] | ((ra_u32)e[2 * q + 1] << 16);
        }
#pragma unroll
        for (int i = 0; i < LB; ++i) {
            const ra_i64 n = n0 + (tid + i * THREADS) / CHUNKS;
            const ra_u16* src = wg + n * red + tap * g.cg + c;
            if (vec) {
                if (n < g.kg && c < g.cg) {
                    b_next[i] = *(const ra_conv_chunk*)src;  // red and CG are multiples of 8
                } else {
                    b_next[i].w[0] = b_next[i].w[1] = b_next[i].w[2] = b_next[i].w[3] = 0u;
                }
                continue;
            }
            ra_u16 e[8];
#pragma unroll
            for (int q = 0; q < 8; ++q) e[q] = (n < g.kg && c + q < g.cg) ? src[q] : (ra_u16)0;
#pragma unroll
            for (int q = 0; q < 4; ++q) b_next[i].w[q] = (ra_u32)e[2 * q] | ((ra_u32)e[2 * q + 1] << 16);
        }
        at.advance(g, BK, g.cg);
    };
    auto stash = [&](int buf) {
#pragma unroll
        for (int i = 0; i < LA; ++i) {
            const int q = tid + i * THREADS;
            a_tiles[buf][(q / CHUNKS) * (LD / 8) + q % CHUNKS] = a_next[i];
        }
#pragma unroll
        for (int i = 0; i < LB; ++i) {
            const int q = tid + i * THREADS;
            b_tiles[buf][(q / CHUNKS) * (LD / 8) + q % CHUNKS] = b_next[i];
        }
    };
    // The k loop shared by every backend: step(sa, sb) multiplies one pair of tiles.
    auto k_loop = [&](auto step) {
        const ra_i64 steps = g.f_d * g.f_h * g.f_w * ((g.cg + BK - 1) / BK);
        gather();
        stash(0);
        __syncthreads();
        for (ra_i64 s = 0; s < steps; ++s) {
            const int buf = (int)(s & 1);
            if (s + 1 < steps) gather();
            step((const ra_u16*)a_tiles[buf], (const ra_u16*)b_tiles[buf]);
            if (s + 1 < steps) stash(buf ^ 1);
            __syncthreads();
        }
    };
    auto store = [&](ra_i64 m, ra_i64 n, float v) {
        if (m < rows && n < g.kg) y[m * g.k + group * g.kg + n] = ra_traits<T>::from_acc(v);
    };

#if defined(RA_CONV_MMA_NV)
    static_assert(RA_WARP_SIZE == 32, "mma.sync is a 32-lane operation");
    const int lane = tid % RA_WARP_SIZE, warp = tid / RA_WARP_SIZE;
    const int wm = (warp % 2) * 64, wn = (warp / 2) * 32;
    const int gq = lane >> 2, t = lane & 3;
    float acc[4][4][4];
#pragma unroll
    for (int a = 0; a < 4; ++a)
#pragma unroll
        for (int b = 0; b < 4; ++b)
#pragma unroll
            for (int c = 0; c < 4; ++c) acc[a][b][c] = 0.0f;
    k_loop([&](const ra_u16* sa, const ra_u16* sb) {
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            ra_u32 af[4][4], bf[4][2];
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
#pragma unroll
                for (int q = 0; q < 4; ++q)
                    af[mi][q] = *(const ra_u32*)(sa + (wm + 16 * mi + gq + 8 * (q & 1)) * LD + kk + 2 * t + 8 * (q >> 1));
#pragma unroll
            for (int ni = 0; ni < 4; ++ni)
#pragma unroll
                for (int q = 0; q < 2; ++q) bf[ni][q] = *(const ra_u32*)(sb + (wn + 8 * ni + gq) * LD + kk + 2 * t + 8 * q);
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
#pragma unroll
                for (int ni = 0; ni < 4; ++ni) ra_conv_mma_16816<T>::run(acc[mi][ni], af[mi], bf[ni][0], bf[ni][1]);
        }
    });
#pragma unroll
    for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni)
#pragma unroll
            for (int c = 0; c < 4; ++c)
                store(m0 + wm + 16 * mi + gq + 8 * (c >> 1), n0 + wn + 8 * ni + 2 * t + (c & 1), acc[mi][ni][c]);

#elif defined(RA_CONV_MMA_AMD)
    const int lane = tid % RA_WARP_SIZE, warp = tid / RA_WARP_SIZE;
    const int wm = (warp % 2) * 64, wn = (warp / 2) * 64;
    const int li = lane & 31, lk = 4 * (lane >> 5);
    ra_conv_f32x16 acc[2][2];
#pragma unroll
    for (int a = 0; a < 2; ++a)
#pragma unroll
        for (int b = 0; b < 2; ++b)
#pragma unroll
            for (int c = 0; c < 16; ++c) acc[a][b][c] = 0.0f;
    k_loop([&](const ra_u16* sa, const ra_u16* sb) {
#pragma unroll
        for (int kk = 0; kk < BK; kk += 8) {
            ra_u64 af[2], bf[2];
#pragma unroll
            for (int v = 0; v < 2; ++v) {
                af[v] = *(const ra_u64*)(sa + (wm + 32 * v + li) * LD + kk + lk);
                bf[v] = *(const ra_u64*)(sb + (wn + 32 * v + li) * LD + kk + lk);
            }
#pragma unroll
            for (int mi = 0; mi < 2; ++mi)
#pragma unroll
                for (int ni = 0; ni < 2; ++ni) acc[mi][ni] = ra_conv_mfma_32x32x8<T>::run(af[mi], bf[ni], acc[mi][ni]);
        }
    });
#pragma unroll
    for (int mi = 0; mi < 2; ++mi)
#pragma unroll
        for (int ni = 0; ni < 2; ++ni)
#pragma unroll
            for (int c = 0; c < 16; ++c)
                store(m0 + wm + 32 * mi + 8 * (c >> 2) + lk + (c & 3), n0 + wn + 32 * ni + li, acc[mi][ni][c]);

#else
    const int tx = tid % 16, ty = tid / 16;
    float acc[8][8];
#pragma unroll
    for (int a = 0; a < 8; ++a)
#pragma unroll
        for (int b = 0; b < 8; ++b) acc[a][b] = 0.0f;
    k_loop([&](const ra_u16* sa, const ra_u16* sb) {
        for (int kk = 0; kk < BK; ++kk) {
            float av[8], bv[8];
#pragma unroll
            for (int a = 0; a < 8; ++a) av[a] = ra_conv_bits_to_float<T>(sa[(tx + 16 * a) * LD + kk]);
#pragma unroll
            for (int b = 0; b < 8; ++b) bv[b] = ra_conv_bits_to_float<T>(sb[(ty + 16 * b) * LD + kk]);
#pragma unroll
            for (int a = 0; a < 8; ++a)
#pragma unroll
                for (int b = 0; b < 8; ++b) acc[a][b] = ra_fma(av[a], bv[b], acc[a][b]);
        }
    });
#pragma unroll
    for (int a = 0; a < 8; ++a)
#pragma unroll
        for (int b = 0; b < 8; ++b) store(m0 + tx + 16 * a, n0 + ty + 16 * b, acc[a][b]);
#endif
}
