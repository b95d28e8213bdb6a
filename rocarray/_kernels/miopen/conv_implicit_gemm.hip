// miopen: convolution forward as an implicit GEMM (no im2col buffer), for every dtype, both
// layouts, groups, stride, padding and dilation, 1-D to 3-D (1-D and 2-D problems are 3-D ones
// with leading spatial axes of length 1, filter 1, stride 1, pad 0, dilation 1).
//
// Per group g the forward is one GEMM  Y_g[m, k] = sum_r A_g[m, r] * W_g[k, r]  with
//   m = (n, od, oh, ow) an output pixel (M = N * OD * OH * OW rows),
//   k an output channel of the group (KG columns),
//   r = a (channel, filter tap) pair (R = CG * FD * FH * FW), ordered as the weights are stored:
//       channels first: r = c * taps + tap (w is K x CG x FD x FH x FW);
//       channels last:  r = tap * CG + c   (w is K x FD x FH x FW x CG);
// so W_g is the K x R row-major matrix the weights already are, and A_g[m, r] is the input
// element tap `tap` of pixel m reads on channel c (zero in the padding): gathered while loading
// the tile, never stored.
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

template <typename T, bool CL, int BM, int BN, int BK, int TM, int TN>
__global__ void RA_LAUNCH_BOUNDS((BM / TM) * (BN / TN))
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
    const ra_i64 c0 = group * g.cg;

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
        a_base[i] = CL ? nb * in_plane * g.c + c0 : (nb * g.c + c0) * in_plane;
    }

    A acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = ra_traits<T>::zero();

    const int tm = CL ? tid / NT : tid % MT;
    const int tn = CL ? tid % NT : tid / MT;
    const T* wg = w + group * g.kg * red;  // the group's first output channel

    for (ra_i64 r0 = 0; r0 < red; r0 += BK) {
#pragma unroll
        for (int i = 0; i < LA; ++i) {
            const ra_i64 r = r0 + a_kk[i];
            A v = ra_traits<T>::zero();
            if (a_ok[i] && r < red) {
                const ra_i64 c = CL ? r % g.cg : r / taps, tap = CL ? r / g.cg : r % taps;
                const ra_i64 td = tap / (g.f_h * g.f_w), th = (tap / g.f_w) % g.f_h, tw = tap % g.f_w;
                const ra_i64 id = a_d[i] + td * g.dil_d, ih = a_h[i] + th * g.dil_h, iw = a_w[i] + tw * g.dil_w;
                if (id >= 0 && id < g.in_d && ih >= 0 && ih < g.in_h && iw >= 0 && iw < g.in_w) {
                    const ra_i64 pos = (id * g.in_h + ih) * g.in_w + iw;
                    v = ra_traits<T>::to_acc(x[CL ? a_base[i] + pos * g.c + c : a_base[i] + c * in_plane + pos]);
                }
            }
            const int e = tid + i * THREADS;
            as[a_kk[i]][CL ? e / BK : e % BM] = v;
        }
#pragma unroll
        for (int i = 0; i < LB; ++i) {
            const int e = tid + i * THREADS;
            const int kk = e % BK, nn = e / BK;
            const ra_i64 r = r0 + kk, n = n0 + nn;
            bs[kk][nn] = (r < red && n < g.kg) ? ra_traits<T>::to_acc(wg[n * red + r]) : ra_traits<T>::zero();
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
