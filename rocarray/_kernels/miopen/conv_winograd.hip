// miopen: Winograd convolution F(M x M, 3 x 3) for 2-D, 3 x 3, stride 1, dilation 1 forward
// problems, M = 2 or 4 (Lavin & Gray, "Fast Algorithms for Convolutional Neural Networks", 2016):
// the output is cut into M x M tiles; tile t of channel c reads an (M + 2) x (M + 2) input patch d
// (zeros in the padding) and
//     y_tile(k) = A^T [ sum_c (G g_kc G^T) (.) (B^T d_c B) ] A
// so the channel sums are (M + 2)^2 independent matrix products, one per transform position xi:
//     Y[xi][k][t] = sum_c U[xi][k][c] V[xi][c][t],   U = G g G^T,   V = B^T d B.
// The three transforms are the kernels here; the products run elsewhere (a strided batched
// GEMM, one batch entry per (xi, group)). Transforms and products run in ra_traits<T>::acc
// (float for float16, bfloat16 and float32; double for float64), the result is rounded once.
//
// Buffers (acc type, row-major, K output channels, C input channels, G groups,
// CG = C / G, KG = K / G, P = N * tiles_h * tiles_w tiles, AL = M + 2):
//   U [AL * AL][K][CG]   (group g's block U[xi][g * KG .. ][..] is KG x CG),
//   V [AL * AL][C][P]    (group g's block V[xi][g * CG .. ][..] is CG x P),
//   Y [AL * AL][K][P]    (group g's block is KG x P),
// so the batch entry (xi, g) of each starts at (xi * G + g) times its block size.
// Tile t = (n * tiles_h + th) * tiles_w + tw covers output rows th * M .. th * M + M - 1 (and the
// same for columns); its patch starts at input (th * M - pad_h, tw * M - pad_w).
//
// Kernels (templates <T, M, CL>, CL channels last; grid-stride loops over 64-bit indices):
//   ra_miopen_winograd_filter: one (k, c) filter per iteration -> U.
//   ra_miopen_winograd_input:  one (c, t) patch per iteration -> V.
//   ra_miopen_winograd_output: one (k, t) tile per iteration, Y -> y (the partial tiles at the
//                              bottom and right edges store only their rows and columns inside).
// Consecutive threads take consecutive tiles in channels-first layout and consecutive channels
// in channels-last layout (the contiguous direction of x and y in each).

struct ra_winograd_geometry {
    ra_i64 n, c, k, cg;        // batch, channels in / out, input channels per group
    ra_i64 h, w;               // input size
    ra_i64 out_h, out_w;       // output size
    ra_i64 pad_h, pad_w;       // padding before each axis
    ra_i64 tiles_h, tiles_w;   // output tiles per axis
};

// The transform matrices B^T (AL x AL), G (AL x 3) and A^T (M x AL) of F(M, 3): Toom-Cook's
// construction on the interpolation points 0, 1, -1 and infinity, plus 1/2 and -2 for M = 4
// (rather than the usual 2 and -2: about half the float32 rounding error, the choice Barabasz
// et al., "Error analysis and improving the accuracy of Winograd convolution for deep neural
// networks", 2020, recommend). Indices are compile-time constants after unrolling, so each entry
// folds to a literal and the zero and +-1 entries cost nothing (ra_wino_fma skips them).
template <typename A, int M> struct ra_wino;

template <typename A> struct ra_wino<A, 2> {
    static constexpr int AL = 4;
    static RA_DEVICE A bt(int i, int j) {
        const A m[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
        return m[i][j];
    }
    static RA_DEVICE A g(int i, int j) {
        const A h = A(1) / A(2);
        const A m[4][3] = {{1, 0, 0}, {h, h, h}, {h, -h, h}, {0, 0, 1}};
        return m[i][j];
    }
    static RA_DEVICE A at(int i, int j) {
        const A m[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
        return m[i][j];
    }
};

template <typename A> struct ra_wino<A, 4> {
    static constexpr int AL = 6;
    static RA_DEVICE A bt(int i, int j) {
        const A h = A(1) / A(2), t = A(3) / A(2), f = A(5) / A(2);
        const A m[6][6] = {{1, -t, -2, t, 1, 0}, {0, -1, h, f, 1, 0}, {0, 1, -f, h, 1, 0},
                           {0, -2, -1, 2, 1, 0}, {0, h, -1, -h, 1, 0}, {0, 1, -t, -2, t, 1}};
        return m[i][j];
    }
    static RA_DEVICE A g(int i, int j) {
        const A a = A(1) / A(3), b = A(16) / A(15), c = A(8) / A(15), d = A(4) / A(15), e = A(1) / A(15),
                k = A(2) / A(15);
        const A m[6][3] = {{1, 0, 0}, {a, a, a}, {-a, a, -a}, {-b, -c, -d}, {e, -k, d}, {0, 0, 1}};
        return m[i][j];
    }
    static RA_DEVICE A at(int i, int j) {
        const A h = A(1) / A(2), q = A(1) / A(4), o = A(1) / A(8);
        const A m[4][6] = {{1, 1, 1, 1, 1, 0}, {0, 1, -1, h, -2, 0}, {0, 1, 1, q, 4, 0}, {0, 1, -1, o, -8, 1}};
        return m[i][j];
    }
};

// acc + l * v, with the multiplication left out for the constants 0 and +-1.
template <typename A> RA_DEVICE A ra_wino_fma(A acc, A l, A v) {
    if (l == A(0)) return acc;
    if (l == A(1)) return acc + v;
    if (l == A(-1)) return acc - v;
    return acc + l * v;
}

template <typename T, int M, bool CL>
__global__ void RA_LAUNCH_BOUNDS(256)
ra_miopen_winograd_filter(const T* RA_RESTRICT w, typename ra_traits<T>::acc* RA_RESTRICT u, ra_winograd_geometry g) {
    typedef typename ra_traits<T>::acc A;
    typedef ra_wino<A, M> W;
    constexpr int AL = W::AL;
    const ra_i64 total = g.k * g.cg, stride = ra_grid_threads();
    for (ra_i64 idx = ra_global_thread_id(); idx < total; idx += stride) {
        const ra_i64 k = idx / g.cg, c = idx % g.cg;
        A f[3][3];
#pragma unroll
        for (int r = 0; r < 3; ++r)
#pragma unroll
            for (int s = 0; s < 3; ++s)
                f[r][s] = ra_traits<T>::to_acc(w[CL ? (k * 9 + r * 3 + s) * g.cg + c : (k * g.cg + c) * 9 + r * 3 + s]);
        A t[AL][3];  // G f
#pragma unroll
        for (int i = 0; i < AL; ++i)
#pragma unroll
            for (int s = 0; s < 3; ++s) {
                A v = A(0);
#pragma unroll
                for (int r = 0; r < 3; ++r) v = ra_wino_fma(v, W::g(i, r), f[r][s]);
                t[i][s] = v;
            }
#pragma unroll
        for (int i = 0; i < AL; ++i)
#pragma unroll
            for (int j = 0; j < AL; ++j) {
                A v = A(0);
#pragma unroll
                for (int s = 0; s < 3; ++s) v = ra_wino_fma(v, W::g(j, s), t[i][s]);
                u[((ra_i64)(i * AL + j) * g.k + k) * g.cg + c] = v;
            }
    }
}

template <typename T, int M, bool CL>
__global__ void RA_LAUNCH_BOUNDS(256)
ra_miopen_winograd_input(const T* RA_RESTRICT x, typename ra_traits<T>::acc* RA_RESTRICT v, ra_winograd_geometry g) {
    typedef typename ra_traits<T>::acc A;
    typedef ra_wino<A, M> W;
    constexpr int AL = W::AL;
    const ra_i64 tiles = g.n * g.tiles_h * g.tiles_w, total = g.c * tiles, stride = ra_grid_threads();
    for (ra_i64 idx = ra_global_thread_id(); idx < total; idx += stride) {
        const ra_i64 c = CL ? idx % g.c : idx / tiles, t = CL ? idx / g.c : idx % tiles;
        const ra_i64 nb = t / (g.tiles_h * g.tiles_w), th = (t / g.tiles_w) % g.tiles_h, tw = t % g.tiles_w;
        const ra_i64 h0 = th * M - g.pad_h, w0 = tw * M - g.pad_w;
        A d[AL][AL];
#pragma unroll
        for (int a = 0; a < AL; ++a)
#pragma unroll
            for (int b = 0; b < AL; ++b) {
                const ra_i64 ih = h0 + a, iw = w0 + b;
                A e = A(0);
                if (ih >= 0 && ih < g.h && iw >= 0 && iw < g.w)
                    e = ra_traits<T>::to_acc(x[CL ? ((nb * g.h + ih) * g.w + iw) * g.c + c
                                                  : ((nb * g.c + c) * g.h + ih) * g.w + iw]);
                d[a][b] = e;
            }
        A s[AL][AL];  // B^T d
#pragma unroll
        for (int i = 0; i < AL; ++i)
#pragma unroll
            for (int b = 0; b < AL; ++b) {
                A e = A(0);
#pragma unroll
                for (int a = 0; a < AL; ++a) e = ra_wino_fma(e, W::bt(i, a), d[a][b]);
                s[i][b] = e;
            }
#pragma unroll
        for (int i = 0; i < AL; ++i)
#pragma unroll
            for (int j = 0; j < AL; ++j) {
                A e = A(0);
#pragma unroll
                for (int b = 0; b < AL; ++b) e = ra_wino_fma(e, W::bt(j, b), s[i][b]);
                v[((ra_i64)(i * AL + j) * g.c + c) * tiles + t] = e;
            }
    }
}

template <typename T, int M, bool CL>
__global__ void RA_LAUNCH_BOUNDS(256)
ra_miopen_winograd_output(const typename ra_traits<T>::acc* RA_RESTRICT yt, T* RA_RESTRICT y, ra_winograd_geometry g) {
    typedef typename ra_traits<T>::acc A;
    typedef ra_wino<A, M> W;
    constexpr int AL = W::AL;
    const ra_i64 tiles = g.n * g.tiles_h * g.tiles_w, total = g.k * tiles, stride = ra_grid_threads();
    for (ra_i64 idx = ra_global_thread_id(); idx < total; idx += stride) {
        const ra_i64 k = CL ? idx % g.k : idx / tiles, t = CL ? idx / g.k : idx % tiles;
        const ra_i64 nb = t / (g.tiles_h * g.tiles_w), th = (t / g.tiles_w) % g.tiles_h, tw = t % g.tiles_w;
        A m[AL][AL];
#pragma unroll
        for (int a = 0; a < AL; ++a)
#pragma unroll
            for (int b = 0; b < AL; ++b) m[a][b] = yt[((ra_i64)(a * AL + b) * g.k + k) * tiles + t];
        A s[M][AL];  // A^T m
#pragma unroll
        for (int i = 0; i < M; ++i)
#pragma unroll
            for (int b = 0; b < AL; ++b) {
                A e = A(0);
#pragma unroll
                for (int a = 0; a < AL; ++a) e = ra_wino_fma(e, W::at(i, a), m[a][b]);
                s[i][b] = e;
            }
#pragma unroll
        for (int i = 0; i < M; ++i) {
            const ra_i64 oh = th * M + i;
            if (oh >= g.out_h) continue;
#pragma unroll
            for (int j = 0; j < M; ++j) {
                const ra_i64 ow = tw * M + j;
                if (ow >= g.out_w) continue;
                A e = A(0);
#pragma unroll
                for (int b = 0; b < AL; ++b) e = ra_wino_fma(e, W::at(j, b), s[i][b]);
                y[CL ? ((nb * g.out_h + oh) * g.out_w + ow) * g.k + k : ((nb * g.k + k) * g.out_h + oh) * g.out_w + ow] =
                    ra_traits<T>::from_acc(e);
            }
        }
    }
}
