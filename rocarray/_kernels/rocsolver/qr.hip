// rocsolver Householder QR: the small kernels of geqrf, orgqr/ungqr, ormqr/unmqr and gels. The
// blocked algorithms around them run on rocblas gemm (rocarray/rocsolver/_qr_blocked.py).
//
// Column-major: element (i, j) of a matrix is X[i + j * ld], 64-bit offsets; matrix b of a strided
// batch starts at X + b * stride. The Python layer has checked every bound and skips empty work.
//
// LAPACK's conventions (xLARFG, xGEQR2, xLARFT): a reflector is H = I - tau v v^H with v(0) = 1
// implicit; geqrf applies H^H = I - conj(tau) v v^H from the left, so A = H_0 H_1 ... R.
//
//  * ra_rocsolver_geqr2<T, BLOCK>: unblocked QR of one m x n matrix per block (the panels of the
//    blocked geqrf and the whole small matrices of geqrf_strided_batched). For each column k:
//    the block reduces ||A(k+1:m, k)||^2, thread 0 forms beta, tau and the scale 1 / (alpha - beta)
//    (xLARFG without its rescaling of tiny norms), the column below the diagonal is scaled into v,
//    then the columns right of k are updated CHUNK at a time (16; complex128: 8): every thread
//    forms partial dots v^H A(:, j) over its rows for all the chunk's columns, warps reduce them,
//    and after one barrier every thread applies A(i, j) -= v(i) conj(tau) (v^H A(:, j)) to its rows.
//  * ra_rocsolver_geqr2_grid<T>: geqr2 of one tall m x n leaf (n <= RA_ROCSOLVER_QR_GRID_COLUMNS) by a
//    cooperative launch of about one block per multiprocessor: block g holds rows
//    g*share .. (g+1)*share-1 in shared memory. Column k, x = A(k+1:m, k): every block publishes
//    its partial ||x||^2 and partial dots x^H A(k+1:m, j) of the columns right of k (a group of
//    lanes per column, over its rows), and the block holding row k publishes A(k, k:n), in a
//    slot double-buffered by k's parity; ONE grid barrier; every block sums the partials in the
//    same order (the same beta and tau everywhere, geqr2's xLARFG arithmetic), scales its part of
//    x into v, forms v^H A(k:m, j) = A(k, j) + conj(scale) x^H A(k+1:m, j), updates its rows and
//    publishes column k + 1's partials. The grid barrier is ra_grid_sync (bounded spin, error
//    flag).
//  * ra_rocsolver_qr_copy_v: the unit lower trapezoid of an rows x cols panel (the reflectors:
//    ones on the diagonal, zeros above) written as an explicit matrix V, so that the block
//    reflector's products are plain gemms.
//  * ra_rocsolver_qr_set_identity: A(r, c) := (r == c + d) on rows x cols (orgqr's start).
//  * ra_rocsolver_larft: the upper triangular T of the compact WY form H_0 ... H_{k-1} =
//    I - V T V^H from S = V^H V and tau (xLARFT, forward, columnwise):
//    T(i, i) = tau(i), T(0:i, i) = -tau(i) T(0:i, 0:i) S(0:i, i). Thread r owns row r of T: row r
//    of column i needs only entries of row r in earlier columns, so no barrier is needed. The
//    columns go in blocks of RA_ROCSOLVER_QR_LARFT_COLUMNS: a row's terms from the columns
//    before a block are summed for all of the block's columns at once (each T(r, c) loaded once,
//    independent sums), then the block's own columns in order from registers. Zeros below the
//    diagonal (T is used as a full square by gemm).
//  * ra_rocsolver_larft_inv: the same T for k <= RA_ROCSOLVER_QR_LARFT_INV_MAX as the inverse of
//    a unit triangle times diag(tau), by blocks in parallel (its comment below); the driver's
//    default, ra_rocsolver_larft its way back.
//  * ra_rocsolver_qr_conj_transpose: Y(c, r) := conj(X(r, c)) (gels on A^H).
//  * ra_rocsolver_qr_diag_info: info(b) := the first 1-based i with R(i, i) == 0, else 0.

#define RA_ROCSOLVER_QR_CHUNK 16  // columns updated per barrier round in geqr2 (complex128: half)
#define RA_ROCSOLVER_QR_BLOCK 256  // threads of the elementwise kernels and larft
#define RA_ROCSOLVER_QR_LARFT_COLUMNS 8  // columns of T summed together in larft
#define RA_ROCSOLVER_QR_LARFT_LEAF 16  // order of larft_inv's diagonal blocks (substitution in registers)
#define RA_ROCSOLVER_QR_LARFT_INV_COLS 8  // columns of a larft_inv product's work item
#define RA_ROCSOLVER_QR_LARFT_INV_MAX 128  // largest k of larft_inv
#define RA_ROCSOLVER_QR_GRID_BLOCK 128  // threads of a block of the device-wide geqr2
#define RA_ROCSOLVER_QR_GRID_COLUMNS 0x20  // most columns (thirty-two) of a device-wide geqr2 leaf
#define RA_ROCSOLVER_QR_CLUSTER_BLOCKS 8  // blocks of the cluster leaf (the portable cluster size)
#define RA_ROCSOLVER_QR_CLUSTER_BLOCK 512  // threads of a block of the cluster leaf

// ---------------------------------------------------------------------------------------------
// scalar helpers for float, double, ra_c64, ra_c128
// ---------------------------------------------------------------------------------------------

RA_DEVICE float ra_qr_conj(float a) { return a; }
RA_DEVICE double ra_qr_conj(double a) { return a; }
template <typename R> RA_DEVICE ra_complex<R> ra_qr_conj(ra_complex<R> a) { return ra_conj(a); }

RA_DEVICE float ra_qr_abs2(float a) { return a * a; }
RA_DEVICE double ra_qr_abs2(double a) { return a * a; }
template <typename R> RA_DEVICE R ra_qr_abs2(ra_complex<R> a) { return a.re * a.re + a.im * a.im; }

RA_DEVICE float ra_qr_re(float a) { return a; }
RA_DEVICE double ra_qr_re(double a) { return a; }
template <typename R> RA_DEVICE R ra_qr_re(ra_complex<R> a) { return a.re; }

RA_DEVICE float ra_qr_im(float) { return 0.0f; }
RA_DEVICE double ra_qr_im(double) { return 0.0; }
template <typename R> RA_DEVICE R ra_qr_im(ra_complex<R> a) { return a.im; }

// The element (re, im); the imaginary part is dropped for real T (it is zero there).
template <typename T> struct ra_qr_make;
template <> struct ra_qr_make<float> {
    static RA_DEVICE float of(float re, float) { return re; }
};
template <> struct ra_qr_make<double> {
    static RA_DEVICE double of(double re, double) { return re; }
};
template <typename R> struct ra_qr_make<ra_complex<R> > {
    static RA_DEVICE ra_complex<R> of(R re, R im) { return ra_make_complex<R>(re, im); }
};

// a * b + c
RA_DEVICE float ra_qr_madd(float a, float b, float c) { return ra_fma(a, b, c); }
RA_DEVICE double ra_qr_madd(double a, double b, double c) { return ra_fma(a, b, c); }
template <typename R> RA_DEVICE ra_complex<R> ra_qr_madd(ra_complex<R> a, ra_complex<R> b, ra_complex<R> c) {
    return ra_make_complex<R>(ra_fma(a.re, b.re, ra_fma(-a.im, b.im, c.re)),
                              ra_fma(a.re, b.im, ra_fma(a.im, b.re, c.im)));
}

// 1 / b; complex by Smith's algorithm (no overflow for moderate magnitudes)
RA_DEVICE float ra_qr_recip(float b) { return 1.0f / b; }
RA_DEVICE double ra_qr_recip(double b) { return 1.0 / b; }
template <typename R> RA_DEVICE ra_complex<R> ra_qr_recip(ra_complex<R> b) {
    if (ra_abs(b.re) >= ra_abs(b.im)) {
        const R r = b.im / b.re, d = b.re + b.im * r;
        return ra_make_complex<R>(R(1) / d, -r / d);
    }
    const R r = b.re / b.im, d = b.im + b.re * r;
    return ra_make_complex<R>(r / d, R(-1) / d);
}

// ---------------------------------------------------------------------------------------------
// geqr2: one matrix per block
// ---------------------------------------------------------------------------------------------

// columns per dot/update round: each thread keeps one partial dot per column in registers
template <typename T> struct ra_qr_chunk {
    static constexpr int value = RA_ROCSOLVER_QR_CHUNK;
};
template <> struct ra_qr_chunk<ra_c128> {
    static constexpr int value = RA_ROCSOLVER_QR_CHUNK / 2;
};

template <typename T, int BLOCK>
RA_DEVICE void ra_rocsolver_geqr2_one(ra_i64 m, ra_i64 n, T* __restrict__ A, ra_i64 lda, T* __restrict__ tau) {
    typedef typename ra_real_of<T>::type R;
    typedef ra_qr_make<T> make;
    constexpr int WARPS = BLOCK / RA_WARP_SIZE;
    constexpr int CH = ra_qr_chunk<T>::value;
    static_assert(BLOCK >= CH, "the first CH threads combine the warps' partial dots");
    __shared__ R s_red[WARPS];
    __shared__ T s_part[WARPS * CH];
    __shared__ T s_w[CH];
    __shared__ T s_scale;
    __shared__ T s_ctau;
    const int tid = (int)threadIdx.x;
    const T zero = make::of(R(0), R(0)), one = make::of(R(1), R(0));
    const ra_i64 kmax = m < n ? m : n;
    for (ra_i64 k = 0; k < kmax; ++k) {
        T* __restrict__ col = A + k * lda;
        // xLARFG on (A(k, k), A(k+1:m, k))
        R part = R(0);
        for (ra_i64 i = k + 1 + tid; i < m; i += BLOCK) part += ra_qr_abs2(col[i]);
        const R ssq = ra_block_reduce<BLOCK>(part, ra_op_sum(), s_red);
        if (tid == 0) {
            const T alpha = col[k];
            const R ar = ra_qr_re(alpha), ai = ra_qr_im(alpha);
            T t = zero, scale = zero;
            if (ssq != R(0) || ai != R(0)) {
                const R norm = ra_sqrt(ar * ar + ai * ai + ssq);
                const R beta = ar >= R(0) ? -norm : norm;
                t = make::of((beta - ar) / beta, -ai / beta);
                scale = ra_qr_recip(alpha - make::of(beta, R(0)));
                col[k] = make::of(beta, R(0));
            }
            tau[k] = t;
            s_scale = scale;
            s_ctau = ra_qr_conj(t);
        }
        __syncthreads();
        const T scale = s_scale, ctau = s_ctau;
        __syncthreads();  // every thread has read the slots before thread 0 may rewrite them
        if (ra_qr_re(ctau) == R(0) && ra_qr_im(ctau) == R(0)) continue;  // H = I (uniform)
        for (ra_i64 i = k + 1 + tid; i < m; i += BLOCK) col[i] = scale * col[i];
        __syncthreads();
        // A(k:m, k+1:n) := (I - conj(tau) v v^H) A(k:m, k+1:n)
        for (ra_i64 j0 = k + 1; j0 < n; j0 += CH) {
            const int cols = (int)(n - j0 < CH ? n - j0 : CH);
            T* __restrict__ C = A + j0 * lda;
            T acc[CH];
#pragma unroll
            for (int c = 0; c < CH; ++c) acc[c] = zero;
            for (ra_i64 i = k + tid; i < m; i += BLOCK) {
                const T cv = i == k ? one : ra_qr_conj(col[i]);
#pragma unroll
                for (int c = 0; c < CH; ++c)
                    if (c < cols) acc[c] = ra_qr_madd(cv, C[i + c * lda], acc[c]);
            }
#pragma unroll
            for (int c = 0; c < CH; ++c) {
                const T s = ra_warp_reduce(acc[c], ra_op_sum());
                if (ra_lane_id() == 0) s_part[ra_warp_id() * CH + c] = s;
            }
            __syncthreads();
            if (tid < CH) {
                T s = zero;
                for (int w = 0; w < WARPS; ++w) s = s + s_part[w * CH + tid];
                s_w[tid] = ctau * s;
            }
            __syncthreads();
            for (ra_i64 i = k + tid; i < m; i += BLOCK) {
                const T v = i == k ? one : col[i];
#pragma unroll
                for (int c = 0; c < CH; ++c)
                    if (c < cols) C[i + c * lda] = C[i + c * lda] - v * s_w[c];
            }
            __syncthreads();  // s_part and s_w are rewritten by the next chunk
        }
    }
}

template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
ra_rocsolver_geqr2(ra_i64 m, ra_i64 n, T* __restrict__ A, ra_i64 lda, ra_i64 stride_a, T* __restrict__ tau,
                   ra_i64 stride_p) {
    const ra_i64 b = blockIdx.x;
    ra_rocsolver_geqr2_one<T, BLOCK>(m, n, A + b * stride_a, lda, tau + b * stride_p);
}

// ---------------------------------------------------------------------------------------------
// geqr2_grid: one tall leaf across the device (cooperative launch)
// ---------------------------------------------------------------------------------------------

template <typename T> RA_DEVICE T* ra_qr_shared() {
    extern __shared__ ra_u64 ra_qr_smem[];
    return reinterpret_cast<T*>(ra_align_shared<16>(reinterpret_cast<unsigned char*>(ra_qr_smem)));
}

// The sums of the update are taken by groups of S adjacent lanes, a group per column (S a power of
// two, at most a warp, as many lanes as the block has for `cols` columns).
RA_DEVICE int ra_qr_group_lanes(ra_i64 cols) {
    int S = RA_WARP_SIZE;
    while (S > 1 && S * cols > RA_ROCSOLVER_QR_GRID_BLOCK) S >>= 1;
    return S;
}

// Publishes column k's sums over this block's rows below k (W, ld share, first row r0): at
// slot[g * n + j] the partial x^H A(:, j) of each column j > k (x = A(k+1:m, k)), at
// slot[G * n + g] the partial ||x||^2, and, from the block that holds row k, A(k, k:n) at
// slot[G * (n + 1) + j]. Every thread takes part (shuffles); W is complete (a barrier before).
template <typename T>
RA_DEVICE void ra_qr_publish_column(ra_i64 k, ra_i64 n, const T* W, ra_i64 share, ra_i64 r0, ra_i64 rows,
                                    T* slot, ra_i64 G, ra_i64 g) {
    typedef typename ra_real_of<T>::type R;
    const int tid = (int)threadIdx.x;
    const ra_i64 w = n - k;
    const int S = ra_qr_group_lanes(w);
    const int c = tid / S, s = tid % S;
    const ra_i64 j = k + c;
    const ra_i64 first = k + 1 - r0 > 0 ? k + 1 - r0 : 0;
    T acc = ra_qr_make<T>::of(R(0), R(0));
    if (c < w) {
        if (j == k)
            for (ra_i64 i = first + s; i < rows; i += S) acc = acc + ra_qr_make<T>::of(ra_qr_abs2(W[i + k * share]), R(0));
        else
            for (ra_i64 i = first + s; i < rows; i += S)
                acc = ra_qr_madd(ra_qr_conj(W[i + k * share]), W[i + j * share], acc);
    }
    for (int o = S / 2; o > 0; o >>= 1) acc = acc + ra_shfl_xor(acc, o);
    if (c < w && s == 0) slot[j == k ? G * n + g : g * n + j] = acc;
    if (k >= r0 && k < r0 + rows)
        for (ra_i64 jj = k + tid; jj < n; jj += RA_ROCSOLVER_QR_GRID_BLOCK) slot[G * (n + 1) + jj] = W[(k - r0) + jj * share];
}

template <typename T>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSOLVER_QR_GRID_BLOCK) void ra_rocsolver_geqr2_grid(
    ra_i64 m, ra_i64 n, T* __restrict__ A, ra_i64 lda, T* __restrict__ tau, ra_i64 share, T* pub,
    unsigned* sync, ra_i64 limit) {
    typedef typename ra_real_of<T>::type R;
    typedef ra_qr_make<T> make;
    constexpr int NT = RA_ROCSOLVER_QR_GRID_BLOCK;
    static_assert(RA_ROCSOLVER_QR_GRID_COLUMNS <= NT, "a thread per column of the update's scalars");
    __shared__ T s_sum[RA_ROCSOLVER_QR_GRID_COLUMNS];  // column k + c's sums over all blocks
    __shared__ T s_w[RA_ROCSOLVER_QR_GRID_COLUMNS];    // conj(tau) (v^H A(k:m, j)) of the update
    __shared__ T s_scale, s_ctau, s_beta;
    __shared__ int sflag;
    const ra_i64 G = gridDim.x, g = blockIdx.x;
    const int tid = (int)threadIdx.x;
    // an earlier launch's barrier failed: the whole block returns (one read, shared)
    if (tid == 0) sflag = *(volatile unsigned*)&sync[2] != 0u;
    __syncthreads();
    if (sflag) return;
    const T zero = make::of(R(0), R(0)), one = make::of(R(1), R(0));
    const ra_i64 r0 = g * share;
    const ra_i64 rows = m - r0 < share ? (m - r0 > 0 ? m - r0 : 0) : share;  // this block's rows
    T* W = ra_qr_shared<T>();  // rows x n, leading dimension share
    for (ra_i64 e = tid; e < rows * n; e += NT) {
        const ra_i64 c = e / rows, r = e - c * rows;
        W[r + c * share] = A[r0 + r + c * lda];
    }
    __syncthreads();
    // publication area: two slots (column parity) of G x n partial dots, G partial norms, a row
    const ra_i64 area = G * (n + 1) + n;
    const ra_i64 kmax = m < n ? m : n;
    ra_qr_publish_column(0, n, W, share, r0, rows, pub, G, g);
    for (ra_i64 k = 0; k < kmax; ++k) {
        const T* slot = pub + (k & 1) * area;
        if (!ra_grid_sync(sync, (unsigned)(G * (k + 1)), limit, &sflag)) return;
        // row k's element of this thread's column of the update (and alpha), loaded now so that
        // these loads are in flight with the sums'
        const ra_i64 jw = k + 1 + tid;
        const T row_k = jw < n ? ra_load_volatile(slot + G * (n + 1) + jw) : zero;
        const T alpha = tid == 0 ? ra_load_volatile(slot + G * (n + 1) + k) : zero;
        // the blocks' partials of columns k .. n-1, summed in the same order in every block
        {
            const ra_i64 w = n - k;
            const int S = ra_qr_group_lanes(w);
            const int c = tid / S, s = tid % S;
            const ra_i64 j = k + c;
            T acc = zero;
            if (c < w) {
                const T* p = j == k ? slot + G * n : slot + j;
                const ra_i64 step = j == k ? 1 : n;
#pragma unroll 4
                for (ra_i64 t = s; t < G; t += S) acc = acc + ra_load_volatile(p + t * step);
            }
            for (int o = S / 2; o > 0; o >>= 1) acc = acc + ra_shfl_xor(acc, o);
            if (c < w && s == 0) s_sum[c] = acc;
        }
        __syncthreads();
        // xLARFG on (A(k, k), A(k+1:m, k)), as geqr2 forms it
        if (tid == 0) {
            const R ssq = ra_qr_re(s_sum[0]);
            const R ar = ra_qr_re(alpha), ai = ra_qr_im(alpha);
            T t = zero, scale = zero, beta = alpha;
            if (ssq != R(0) || ai != R(0)) {
                const R norm = ra_sqrt(ar * ar + ai * ai + ssq);
                const R b = ar >= R(0) ? -norm : norm;
                t = make::of((b - ar) / b, -ai / b);
                scale = ra_qr_recip(alpha - make::of(b, R(0)));
                beta = make::of(b, R(0));
            }
            if (g == 0) tau[k] = t;
            s_scale = scale;
            s_ctau = ra_qr_conj(t);
            s_beta = beta;
        }
        __syncthreads();
        const T scale = s_scale, ctau = s_ctau;
        if (ra_qr_re(ctau) != R(0) || ra_qr_im(ctau) != R(0)) {  // uniform: H != I
            const ra_i64 top = k - r0 > 0 ? k - r0 : 0;  // this block's first row of v (rows k..m-1)
            if (tid == 0 && k >= r0 && k < r0 + rows) W[(k - r0) + k * share] = s_beta;
            for (ra_i64 i = (k + 1 - r0 > 0 ? k + 1 - r0 : 0) + tid; i < rows; i += NT)
                W[i + k * share] = scale * W[i + k * share];
            // v^H A(k:m, j) = A(k, j) + conj(scale) (x^H A(k+1:m, j)), v = (1, scale x)
            const T cscale = ra_qr_conj(scale);
            if (jw < n) s_w[jw - k] = ctau * ra_qr_madd(cscale, s_sum[jw - k], row_k);  // n - k - 1 < NT columns
            __syncthreads();
            // A(k:m, k+1:n) -= v (conj(tau) v^H A(k:m, k+1:n)) on this block's rows
            const ra_i64 h = rows - top, w = n - k - 1;
            for (ra_i64 e = tid; e < h * w; e += NT) {
                const ra_i64 c = 1 + e / h, i = top + e % h;
                const T v = r0 + i == k ? one : W[i + k * share];
                W[i + (k + c) * share] = W[i + (k + c) * share] - v * s_w[c];
            }
        }
        __syncthreads();
        if (k + 1 < kmax) ra_qr_publish_column(k + 1, n, W, share, r0, rows, pub + ((k + 1) & 1) * area, G, g);
    }
    for (ra_i64 e = tid; e < rows * n; e += NT) {
        const ra_i64 c = e / rows, r = e - c * rows;
        A[r0 + r + c * lda] = W[r + c * share];
    }
    // the last block out (every block is past its last barrier) leaves the words zeroed for the
    // next launch
    if (tid == 0 && atomicAdd(&sync[1], 1u) == (unsigned)(G - 1)) {
        atomicExch(&sync[0], 0u);
        atomicExch(&sync[1], 0u);
    }
}

// ---------------------------------------------------------------------------------------------
// geqr2_cluster: one tall leaf on one thread-block cluster (NVIDIA sm_90: distributed shared memory)
// ---------------------------------------------------------------------------------------------

// The cluster's primitives, in small wrappers: the block's rank in its cluster, the cluster barrier
// (arrive with release, wait with acquire: every thread of every block of the cluster, so it is a
// block barrier too) and a load of element `p` of this block's shared memory as it lies in block
// `rank`'s shared memory (mapa + ld.shared::cluster). NVIDIA sm_90+ only; the kernel emulator
// (tests/kernel_emu_shim.hpp, RA_EMU_CLUSTER) models them for a launch of one cluster. Elsewhere
// the kernel compiles to an empty body and the host never launches it.
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 900
#define RA_QR_CLUSTER 1
#define RA_QR_CLUSTER_LAUNCH_BOUNDS(threads) \
    __cluster_dims__(RA_ROCSOLVER_QR_CLUSTER_BLOCKS, 1, 1) __launch_bounds__(threads)
RA_DEVICE void ra_qr_cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
// the 4-, 8- and 16-byte elements (float; double and ra_c64; ra_c128) as whole words
template <int BYTES> struct ra_qr_dsmem;
template <> struct ra_qr_dsmem<4> {
    static RA_DEVICE void load(unsigned a, void* out) {
        unsigned v;
        asm volatile("ld.shared::cluster.b32 %0, [%1];\n" : "=r"(v) : "r"(a) : "memory");
        *reinterpret_cast<unsigned*>(out) = v;
    }
};
template <> struct ra_qr_dsmem<8> {
    static RA_DEVICE void load(unsigned a, void* out) {
        ra_u64 v;
        asm volatile("ld.shared::cluster.b64 %0, [%1];\n" : "=l"(v) : "r"(a) : "memory");
        *reinterpret_cast<ra_u64*>(out) = v;
    }
};
template <> struct ra_qr_dsmem<16> {
    static RA_DEVICE void load(unsigned a, void* out) {
        ra_u64 v0, v1;
        asm volatile("ld.shared::cluster.v2.b64 {%0, %1}, [%2];\n" : "=l"(v0), "=l"(v1) : "r"(a) : "memory");
        reinterpret_cast<ra_u64*>(out)[0] = v0;
        reinterpret_cast<ra_u64*>(out)[1] = v1;
    }
};
template <typename T> RA_DEVICE T ra_qr_cluster_load(const T* p, unsigned rank) {
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
                 : "=r"(remote)
                 : "r"((unsigned)__cvta_generic_to_shared(p)), "r"(rank));
    T v;
    ra_qr_dsmem<(int)sizeof(T)>::load(remote, &v);
    return v;
}
#elif defined(RA_EMU_CLUSTER)
#define RA_QR_CLUSTER 1
#define RA_QR_CLUSTER_LAUNCH_BOUNDS(threads) __launch_bounds__(threads)
RA_DEVICE void ra_qr_cluster_sync() { emu::cluster_sync(); }
template <typename T> RA_DEVICE T ra_qr_cluster_load(const T* p, unsigned rank) {
    return *reinterpret_cast<const T*>(emu::cluster_map(p, rank));
}
#else
#define RA_QR_CLUSTER_LAUNCH_BOUNDS(threads) __launch_bounds__(threads)
#endif

// Publishes column k's sums over this block's rows below k (W, leading dimension ld, first row
// r0) into its own slot, by absolute column: slot[k] the partial ||x||^2 (x = A(k+1:m, k)),
// slot[j] the partial x^H A(k+1:m, j) for j = k+1 .. n-1 and, for j = lo .. k-1 (the finished
// reflectors, when T is formed), the partial v_j(k+1:m)^H x; a group of S lanes a column. The
// block that holds row k also publishes A(k, lo:n) at slot[COLUMNS + j]. Every thread takes
// part (shuffles); W is complete.
template <typename T, int NT>
RA_DEVICE void ra_qr_cluster_publish(int k, int lo, int n, const T* W, int ld, ra_i64 r0, int rows, T* slot) {
    typedef typename ra_real_of<T>::type R;
    const int tid = (int)threadIdx.x;
    const int w = n - lo;
    int S = RA_WARP_SIZE;
    while (S > 1 && S * w > NT) S >>= 1;
    const int c = tid / S, s = tid % S;
    const int j = lo + c;
    const ra_i64 below = k + 1 - r0;  // this block's first local row of x
    const int first = below <= 0 ? 0 : (below >= rows ? rows : (int)below);
    const T* x = W + (ra_i64)k * ld;
    // two sums a lane (alternate rows): half the chain of dependent multiply-adds
    T acc = ra_qr_make<T>::of(R(0), R(0)), acc2 = acc;
    if (c < w) {
        int i = first + s;
        const T* y = W + (ra_i64)j * ld;
        if (j == k) {
            for (; i + S < rows; i += 2 * S) {
                acc = acc + ra_qr_make<T>::of(ra_qr_abs2(x[i]), R(0));
                acc2 = acc2 + ra_qr_make<T>::of(ra_qr_abs2(x[i + S]), R(0));
            }
            if (i < rows) acc = acc + ra_qr_make<T>::of(ra_qr_abs2(x[i]), R(0));
        } else if (j > k) {
            for (; i + S < rows; i += 2 * S) {
                acc = ra_qr_madd(ra_qr_conj(x[i]), y[i], acc);
                acc2 = ra_qr_madd(ra_qr_conj(x[i + S]), y[i + S], acc2);
            }
            if (i < rows) acc = ra_qr_madd(ra_qr_conj(x[i]), y[i], acc);
        } else {
            for (; i + S < rows; i += 2 * S) {
                acc = ra_qr_madd(ra_qr_conj(y[i]), x[i], acc);
                acc2 = ra_qr_madd(ra_qr_conj(y[i + S]), x[i + S], acc2);
            }
            if (i < rows) acc = ra_qr_madd(ra_qr_conj(y[i]), x[i], acc);
        }
    }
    acc = acc + acc2;
    for (int o = S / 2; o > 0; o >>= 1) acc = acc + ra_shfl_xor(acc, o);
    if (c < w && s == 0) slot[j] = acc;
    if (k >= r0 && k < r0 + rows)
        for (int jj = lo + tid; jj < n; jj += NT) slot[RA_ROCSOLVER_QR_GRID_COLUMNS + jj] = W[(k - r0) + (ra_i64)jj * ld];
}

template <typename T>
__global__ RA_QR_CLUSTER_LAUNCH_BOUNDS(RA_ROCSOLVER_QR_CLUSTER_BLOCK) void ra_rocsolver_geqr2_cluster(
    ra_i64 m, ra_i64 n, T* __restrict__ A, ra_i64 lda, T* __restrict__ tau, ra_i64 share, ra_i64 lds,
    T* __restrict__ Tm, ra_i64 ldt) {
#if defined(RA_QR_CLUSTER)
    typedef typename ra_real_of<T>::type R;
    typedef ra_qr_make<T> make;
    constexpr int NT = RA_ROCSOLVER_QR_CLUSTER_BLOCK;
    constexpr int CB = RA_ROCSOLVER_QR_CLUSTER_BLOCKS;
    constexpr int NC = RA_ROCSOLVER_QR_GRID_COLUMNS;
    static_assert(NC <= RA_WARP_SIZE, "one warp's lanes hold the leaf's columns");
    static_assert(NC <= NT, "a thread per row of T");
    // each block's publication, double-buffered by column parity; the same offset in every block,
    // so that another block's copy is found by its rank (the sums: [0, NC), row k: [NC, 2 NC))
    __shared__ T s_slot[2][2 * NC];
    __shared__ T s_w[NC];  // conj(tau) (v^H A(k:m, j)) of the update, by column j
    __shared__ T s_scale, s_ctau, s_beta;
    // with T: S(j, k) = v_j^H v_k above the diagonal, then T(r, i) at [i][r] below it; tau
    __shared__ T s_st[NC][NC + 1];
    __shared__ T s_tau[NC];
    const int tid = (int)threadIdx.x;
    const ra_i64 g = blockIdx.x;  // the grid is one cluster: the block's index is its rank
    const T zero = make::of(R(0), R(0)), one = make::of(R(1), R(0));
    const ra_i64 r0 = g * share;
    const int rows = (int)(m - r0 < share ? (m - r0 > 0 ? m - r0 : 0) : share);  // this block's rows
    const int nn = (int)n, ld = (int)lds;
    const bool with_t = Tm != nullptr;  // uniform
    T* W = ra_qr_shared<T>();  // rows x n, leading dimension ld
    {
        // L elements a thread a round, their loads issued before their stores (a thread's
        // elements of the leaf are far more than one round trip's worth)
        constexpr int L = 8;
        const int total = rows * nn;
        for (int e0 = tid; e0 < total; e0 += L * NT) {
            T buf[L];
#pragma unroll
            for (int u = 0; u < L; ++u) {
                const int e = e0 + u * NT, c = e / rows, r = e - c * rows;
                buf[u] = e < total ? A[r0 + r + c * lda] : zero;
            }
#pragma unroll
            for (int u = 0; u < L; ++u) {
                const int e = e0 + u * NT, c = e / rows, r = e - c * rows;
                if (e < total) W[r + (ra_i64)c * ld] = buf[u];
            }
        }
    }
    __syncthreads();
    const int kmax = (int)(m < n ? m : n);
    ra_qr_cluster_publish<T, NT>(0, 0, nn, W, ld, r0, rows, s_slot[0]);
    for (int k = 0; k < kmax; ++k) {
        const T* slot = s_slot[k & 1];
        ra_qr_cluster_sync();  // every block's slot of column k is complete and visible
        const unsigned owner = (unsigned)(k / share);  // the block that holds row k
        if (tid < RA_WARP_SIZE) {
            // the blocks' partials summed in rank order by every lane (the same beta and tau in
            // every block: geqr2's xLARFG arithmetic); lane j also sums column j's dots (j > k:
            // the update's; j < k: S(j, k) when T is formed). All the loads are issued before
            // the first sum: one round trip, not one a block.
            const int j = tid;
            const bool has = j < nn && j != k && (j > k || with_t);
            T pn[CB], pd[CB];
#pragma unroll
            for (int b = 0; b < CB; ++b) pn[b] = ra_qr_cluster_load(slot + k, (unsigned)b);
#pragma unroll
            for (int b = 0; b < CB; ++b) pd[b] = has ? ra_qr_cluster_load(slot + j, (unsigned)b) : zero;
            const T alpha = ra_qr_cluster_load(slot + NC + k, owner);
            const T row_k = has ? ra_qr_cluster_load(slot + NC + j, owner) : zero;
            T ssq = zero, dot = zero;
#pragma unroll
            for (int b = 0; b < CB; ++b) {
                ssq = ssq + pn[b];
                dot = dot + pd[b];
            }
            const R sq = ra_qr_re(ssq), ar = ra_qr_re(alpha), ai = ra_qr_im(alpha);
            T t = zero, scale = zero, beta = alpha;
            if (sq != R(0) || ai != R(0)) {
                const R norm = ra_sqrt(ar * ar + ai * ai + sq);
                const R bv = ar >= R(0) ? -norm : norm;
                t = make::of((bv - ar) / bv, -ai / bv);
                scale = ra_qr_recip(alpha - make::of(bv, R(0)));
                beta = make::of(bv, R(0));
            }
            const T ctau = ra_qr_conj(t);
            // v^H A(k:m, j) = A(k, j) + conj(scale) (x^H A(k+1:m, j)), v = (1, scale x)
            if (has && j > k) s_w[j] = ctau * ra_qr_madd(ra_qr_conj(scale), dot, row_k);
            // v_j^H v_k = conj(v_j(k)) + scale (v_j(k+1:m)^H x)
            if (has && j < k) s_st[j][k] = ra_qr_madd(scale, dot, ra_qr_conj(row_k));
            if (tid == 0) {
                if (g == 0) tau[k] = t;
                s_scale = scale;
                s_ctau = ctau;
                s_beta = beta;
                s_tau[k] = t;
            }
        }
        __syncthreads();
        const T scale = s_scale, ctau = s_ctau;
        if (ra_qr_re(ctau) != R(0) || ra_qr_im(ctau) != R(0)) {  // uniform: H != I
            // this block's rows of v (rows k .. m-1): v = 1 at row k (A(k, k) := beta), scale x below;
            // each thread updates A(i, k+1:n) -= v(i) s_w of the rows it scales, U columns a
            // round with their loads issued before their multiply-adds
            constexpr int U = 8;
            const ra_i64 from = k - r0;
            const int top = from <= 0 ? 0 : (from >= rows ? rows : (int)from);
            T* x = W + (ra_i64)k * ld;
            for (int i = top + tid; i < rows; i += NT) {
                T v = one;
                if (r0 + i == k) {
                    x[i] = s_beta;
                } else {
                    v = scale * x[i];
                    x[i] = v;
                }
                for (int j0 = k + 1; j0 < nn; j0 += U) {
                    T y[U], sw[U];
#pragma unroll
                    for (int u = 0; u < U; ++u) {
                        y[u] = j0 + u < nn ? W[i + (j0 + u) * ld] : zero;
                        sw[u] = j0 + u < nn ? s_w[j0 + u] : zero;
                    }
#pragma unroll
                    for (int u = 0; u < U; ++u)
                        if (j0 + u < nn) W[i + (j0 + u) * ld] = y[u] - v * sw[u];
                }
            }
        }
        __syncthreads();
        if (k + 1 < kmax)
            ra_qr_cluster_publish<T, NT>(k + 1, with_t ? 0 : k + 1, nn, W, ld, r0, rows, s_slot[(k + 1) & 1]);
    }
    for (int e = tid; e < rows * nn; e += NT) {
        const int c = e / rows, r = e - c * rows;
        A[r0 + r + c * lda] = W[r + (ra_i64)c * ld];
    }
    if (with_t && g == 0) {
        // xLARFT (forward, columnwise) from S, as ra_rocsolver_larft: thread r owns row r of T,
        // T(r, r) = tau(r), T(r, i) = -tau(i) sum_{c = r}^{i-1} T(r, c) S(c, i); row r of T
        // needs only its own earlier entries, so no barrier between columns
        const int r = tid;
        if (r < kmax) {
            for (int i = r + 1; i < kmax; ++i) {
                T a = s_tau[r] * s_st[r][i];
                for (int c = r + 1; c < i; ++c) a = ra_qr_madd(s_st[c][r], s_st[c][i], a);
                s_st[i][r] = zero - s_tau[i] * a;
            }
        }
        __syncthreads();
        for (int e = tid; e < kmax * kmax; e += NT) {
            const int i = e / kmax, rr = e - i * kmax;
            Tm[rr + i * ldt] = rr < i ? s_st[i][rr] : (rr == i ? s_tau[i] : zero);
        }
    }
    ra_qr_cluster_sync();  // no block leaves while another may still read its slots
#endif
}

// ---------------------------------------------------------------------------------------------
// elementwise helpers of the blocked algorithms (grid-stride over batch * rows * cols)
// ---------------------------------------------------------------------------------------------

// element e of a batch of rows x cols matrices: (b, r, c)
RA_DEVICE void ra_qr_split(ra_i64 e, ra_i64 rows, ra_i64 cols, ra_i64& b, ra_i64& r, ra_i64& c) {
    ra_i64 rc;
    ra_divmod_i64(e, rows * cols, b, rc);
    ra_divmod_i64(rc, rows, c, r);
}

template <typename T>
__global__ void __launch_bounds__(RA_ROCSOLVER_QR_BLOCK)
ra_rocsolver_qr_copy_v(ra_i64 rows, ra_i64 cols, const T* __restrict__ A, ra_i64 lda, ra_i64 stride_a,
                       T* __restrict__ V, ra_i64 ldv, ra_i64 stride_v, ra_i64 batch) {
    typedef typename ra_real_of<T>::type R;
    const ra_i64 total = batch * rows * cols;
    for (ra_i64 e = ra_global_thread_id(); e < total; e += ra_grid_threads()) {
        ra_i64 b, r, c;
        ra_qr_split(e, rows, cols, b, r, c);
        V[b * stride_v + r + c * ldv] =
            r > c ? A[b * stride_a + r + c * lda] : ra_qr_make<T>::of(R(r == c ? 1 : 0), R(0));
    }
}

template <typename T>
__global__ void __launch_bounds__(RA_ROCSOLVER_QR_BLOCK)
ra_rocsolver_qr_set_identity(ra_i64 rows, ra_i64 cols, ra_i64 d, T* __restrict__ A, ra_i64 lda, ra_i64 stride_a,
                             ra_i64 batch) {
    typedef typename ra_real_of<T>::type R;
    const ra_i64 total = batch * rows * cols;
    for (ra_i64 e = ra_global_thread_id(); e < total; e += ra_grid_threads()) {
        ra_i64 b, r, c;
        ra_qr_split(e, rows, cols, b, r, c);
        A[b * stride_a + r + c * lda] = ra_qr_make<T>::of(R(r == c + d ? 1 : 0), R(0));
    }
}

template <typename T>
__global__ void __launch_bounds__(RA_ROCSOLVER_QR_BLOCK)
ra_rocsolver_qr_conj_transpose(ra_i64 rows, ra_i64 cols, const T* __restrict__ X, ra_i64 ldx,
                               T* __restrict__ Y, ra_i64 ldy) {
    const ra_i64 total = rows * cols;
    for (ra_i64 e = ra_global_thread_id(); e < total; e += ra_grid_threads()) {
        ra_i64 b, r, c;
        ra_qr_split(e, rows, cols, b, r, c);
        Y[c + r * ldy] = ra_qr_conj(X[r + c * ldx]);
    }
}

// ---------------------------------------------------------------------------------------------
// larft (one block per matrix of the batch) and the rank check of gels
// ---------------------------------------------------------------------------------------------

template <typename T>
__global__ void __launch_bounds__(RA_ROCSOLVER_QR_BLOCK)
ra_rocsolver_larft(ra_i64 k, const T* __restrict__ S, ra_i64 lds, ra_i64 stride_s, const T* __restrict__ tau,
                   ra_i64 stride_p, T* __restrict__ Tm, ra_i64 ldt, ra_i64 stride_t) {
    typedef typename ra_real_of<T>::type R;
    const ra_i64 b = blockIdx.x;
    S += b * stride_s;
    tau += b * stride_p;
    Tm += b * stride_t;
    const T zero = ra_qr_make<T>::of(R(0), R(0));
    constexpr int CB = RA_ROCSOLVER_QR_LARFT_COLUMNS;
    for (ra_i64 r = threadIdx.x; r < k; r += blockDim.x) {
        for (ra_i64 i0 = 0; i0 < k; i0 += CB) {
            // the block's columns i0 .. i0 + CB - 1: first the terms of the columns before it,
            // each T(r, c) loaded once for all CB sums
            T acc[CB];
#pragma unroll
            for (int u = 0; u < CB; ++u) acc[u] = zero;
            // (E rows of terms a round, all their loads issued before the first multiply-add)
            constexpr int E = sizeof(T) > 8 ? 2 : 4;
            ra_i64 c = r;
            for (; c + E <= i0; c += E) {
                T t[E], sv[E][CB];
#pragma unroll
                for (int e = 0; e < E; ++e) {
                    t[e] = Tm[r + (c + e) * ldt];
#pragma unroll
                    for (int u = 0; u < CB; ++u) sv[e][u] = i0 + u < k ? S[c + e + (i0 + u) * lds] : zero;
                }
#pragma unroll
                for (int e = 0; e < E; ++e)
#pragma unroll
                    for (int u = 0; u < CB; ++u) acc[u] = ra_qr_madd(t[e], sv[e][u], acc[u]);
            }
            for (; c < i0; ++c) {
                const T t = Tm[r + c * ldt];
#pragma unroll
                for (int u = 0; u < CB; ++u)
                    if (i0 + u < k) acc[u] = ra_qr_madd(t, S[c + (i0 + u) * lds], acc[u]);
            }
            // then the block's own columns in order, their T(r, .) kept in registers
            T own[CB];
#pragma unroll
            for (int u = 0; u < CB; ++u) {
                const ra_i64 i = i0 + u;
                own[u] = zero;
                if (i >= k) continue;
                if (r == i) {
                    own[u] = tau[i];
                } else if (r < i) {
                    T a = acc[u];
#pragma unroll
                    for (int v = 0; v < u; ++v)
                        if (i0 + v >= r) a = ra_qr_madd(own[v], S[i0 + v + i * lds], a);
                    own[u] = zero - tau[i] * a;
                }
                Tm[r + i * ldt] = own[u];
            }
        }
    }
}

// ra_rocsolver_larft_inv<T>: the same T through its inverse, T = (I + diag(tau) striu(S))^{-1} diag(tau)
// (T^{-1} = diag(1/tau) + striu(S) where no tau is zero; this form needs no division and gives
// LAPACK's zero row and column for tau(i) = 0). k <= RA_ROCSOLVER_QR_LARFT_INV_MAX, one block per
// matrix, on a k x k work matrix W: shared memory (leading dimension k + 1) where the launch gave
// it (`in_shared`), else the output itself.
//  0. S's strict upper triangle copied into W's (all of a thread's loads of a round in flight).
//  1. Diagonal blocks of RA_ROCSOLVER_QR_LARFT_LEAF: thread j forms column j of its block by
//     substitution in registers (x(j) = tau(j), x(i) = -tau(i) sum_{l>i} S(i, l) x(l)), written
//     over the block's S after a barrier.
//  2. Blocks doubled, s = LEAF, 2 LEAF, ... < k: for each pair of finished neighbours T11 (rows
//     i0 .. i1-1) and T22 (i1 .. e-1), T12 = -T11 (S12 T22) in two products: Y = S12 T22 stored
//     transposed in W's lower block (T's zero block, unused by the level), then T12 = -T11 Y
//     over S12. A product's work item is one pair's rows (a lane each, RA_WARP_SIZE apart) times
//     RA_ROCSOLVER_QR_LARFT_INV_COLS of its columns (broadcast loads); a warp takes items in
//     turn. Triangles are masked by selects, never by multiplying (W holds stale values).
//  3. T (W's upper triangle) written out, zeros below the diagonal.
// Barriers: one after the copy, two for the leaves, two a level, none in the products' loops.
// The body is inlined once per place of W, so that the shared one compiles to shared-memory
// accesses rather than generic ones (Tm is not restrict there: W may be Tm).
template <typename T>
RA_DEVICE void ra_qr_larft_inv_body(ra_i64 k, const T* __restrict__ S, ra_i64 lds, const T* __restrict__ tau,
                                    T* Tm, ra_i64 ldt, T* W, ra_i64 ldw, bool in_shared) {
    typedef typename ra_real_of<T>::type R;
    constexpr int L = RA_ROCSOLVER_QR_LARFT_LEAF;
    constexpr int CW = RA_ROCSOLVER_QR_LARFT_INV_COLS;
    constexpr int ROUND = 16;  // elements a thread copies per round of loads
    // rows of a product's pair: at most half of the largest k
    constexpr int RQ = (RA_ROCSOLVER_QR_LARFT_INV_MAX / 2 + RA_WARP_SIZE - 1) / RA_WARP_SIZE;
    const T zero = ra_qr_make<T>::of(R(0), R(0));
    const int kk = (int)k, tid = (int)threadIdx.x, threads = (int)blockDim.x;

    // 0. S's strict upper triangle into W
    for (int e0 = 0; e0 < kk * kk; e0 += ROUND * threads) {
        T v[ROUND];
#pragma unroll
        for (int t = 0; t < ROUND; ++t) {
            const int e = e0 + t * threads + tid, r = e % kk, c = e / kk;
            v[t] = e < kk * kk && r < c ? S[r + c * lds] : zero;
        }
#pragma unroll
        for (int t = 0; t < ROUND; ++t) {
            const int e = e0 + t * threads + tid, r = e % kk, c = e / kk;
            if (e < kk * kk && r < c) W[r + c * ldw] = v[t];
        }
    }
    __syncthreads();

    // 1. the diagonal blocks
    static_assert(RA_ROCSOLVER_QR_LARFT_INV_MAX <= RA_ROCSOLVER_QR_BLOCK, "a thread per column of T");
    {
        T x[L];
        const ra_i64 j = tid, l0 = j - j % L;
        const int jj = (int)(j - l0);
        if (j < k) {
            T acc[L];
#pragma unroll
            for (int i = 0; i < L; ++i) acc[i] = zero;
#pragma unroll
            for (int l = L - 1; l >= 0; --l) {
                x[l] = l == jj ? tau[j] : (l < jj ? zero - tau[l0 + l] * acc[l] : zero);
                if (l <= jj && l > 0) {
#pragma unroll
                    for (int i = 0; i < l; ++i) acc[i] = ra_qr_madd(W[l0 + i + (l0 + l) * ldw], x[l], acc[i]);
                }
            }
        }
        __syncthreads();  // every thread has read its S before any is overwritten
        if (j < k) {
#pragma unroll
            for (int i = 0; i < L; ++i)
                if (i <= jj) W[l0 + i + j * ldw] = x[i];
        }
        __syncthreads();
    }

    // 2. the off-diagonal blocks, doubling
    const int lane = tid % RA_WARP_SIZE;
    const int warps = threads / RA_WARP_SIZE;
    for (ra_i64 s = L; s < k; s *= 2) {
        const ra_i64 pairs = (k + 2 * s - 1) / (2 * s);
        const ra_i64 per_pair = (s + CW - 1) / CW;  // column groups of a full pair
        for (int phase = 0; phase < 2; ++phase) {
            for (ra_i64 item = tid / RA_WARP_SIZE; item < pairs * per_pair; item += warps) {
                const ra_i64 i0 = (item / per_pair) * 2 * s, i1 = i0 + s;
                const ra_i64 e = i1 + s < k ? i1 + s : k;
                const ra_i64 c0 = i1 + (item % per_pair) * CW;
                if (c0 >= e) continue;  // the last pair's columns end early (or it has none)
                const ra_i64 c1 = c0 + CW < e ? c0 + CW : e;
                T acc[RQ][CW];
#pragma unroll
                for (int q = 0; q < RQ; ++q)
#pragma unroll
                    for (int u = 0; u < CW; ++u) acc[q][u] = zero;
                if (phase == 0) {
                    // Y(r, c) = sum_{l = i1}^{c} S(r, l) T22(l, c), stored at W(c, r)
#pragma unroll 2
                    for (ra_i64 l = i1; l < c1; ++l) {
                        T a[RQ], t[CW];
#pragma unroll
                        for (int q = 0; q < RQ; ++q) {
                            const ra_i64 r = lane + (ra_i64)q * RA_WARP_SIZE;
                            a[q] = r < s ? W[i0 + r + l * ldw] : zero;
                        }
#pragma unroll
                        for (int u = 0; u < CW; ++u) t[u] = c0 + u < c1 && l <= c0 + u ? W[l + (c0 + u) * ldw] : zero;
#pragma unroll
                        for (int q = 0; q < RQ; ++q)
#pragma unroll
                            for (int u = 0; u < CW; ++u) acc[q][u] = ra_qr_madd(a[q], t[u], acc[q][u]);
                    }
#pragma unroll
                    for (int q = 0; q < RQ; ++q) {
                        const ra_i64 r = lane + (ra_i64)q * RA_WARP_SIZE;
#pragma unroll
                        for (int u = 0; u < CW; ++u)
                            if (r < s && c0 + u < c1) W[c0 + u + (i0 + r) * ldw] = acc[q][u];
                    }
                } else {
                    // T12(r, c) = -sum_{l = r}^{i1 - 1} T11(r, l) Y(l, c), over S12
#pragma unroll 2
                    for (ra_i64 l = i0; l < i1; ++l) {
                        T a[RQ], y[CW];
#pragma unroll
                        for (int u = 0; u < CW; ++u) y[u] = c0 + u < c1 ? W[c0 + u + l * ldw] : zero;
#pragma unroll
                        for (int q = 0; q < RQ; ++q) {
                            if (l < i0 + (ra_i64)q * RA_WARP_SIZE) continue;  // the warp's rows q all below l
                            const ra_i64 r = i0 + lane + (ra_i64)q * RA_WARP_SIZE;
                            a[q] = r < i1 && r <= l ? W[r + l * ldw] : zero;
#pragma unroll
                            for (int u = 0; u < CW; ++u) acc[q][u] = ra_qr_madd(a[q], y[u], acc[q][u]);
                        }
                    }
#pragma unroll
                    for (int q = 0; q < RQ; ++q) {
                        const ra_i64 r = lane + (ra_i64)q * RA_WARP_SIZE;
#pragma unroll
                        for (int u = 0; u < CW; ++u)
                            if (r < s && c0 + u < c1) W[i0 + r + (c0 + u) * ldw] = zero - acc[q][u];
                    }
                }
            }
            __syncthreads();
        }
    }

    // 3. T out, zeros below the diagonal (over the products' scratch)
    for (int e = tid; e < kk * kk; e += threads) {
        const int r = e % kk, c = e / kk;
        if (in_shared || r > c) Tm[r + (ra_i64)c * ldt] = r <= c ? W[r + c * ldw] : zero;
    }
}

template <typename T>
__global__ void __launch_bounds__(RA_ROCSOLVER_QR_BLOCK)
ra_rocsolver_larft_inv(ra_i64 k, const T* __restrict__ S, ra_i64 lds, ra_i64 stride_s, const T* __restrict__ tau,
                       ra_i64 stride_p, T* __restrict__ Tm, ra_i64 ldt, ra_i64 stride_t, ra_i64 in_shared) {
    const ra_i64 b = blockIdx.x;
    S += b * stride_s;
    tau += b * stride_p;
    Tm += b * stride_t;
    if (in_shared)
        ra_qr_larft_inv_body<T>(k, S, lds, tau, Tm, ldt, ra_qr_shared<T>(), k + 1, true);
    else
        ra_qr_larft_inv_body<T>(k, S, lds, tau, Tm, ldt, Tm, ldt, false);
}

template <typename T>
__global__ void __launch_bounds__(RA_ROCSOLVER_QR_BLOCK)
ra_rocsolver_qr_diag_info(ra_i64 n, const T* __restrict__ A, ra_i64 lda, ra_i64 stride_a, int* __restrict__ info,
                          ra_i64 batch) {
    typedef typename ra_real_of<T>::type R;
    for (ra_i64 b = ra_global_thread_id(); b < batch; b += ra_grid_threads()) {
        int first = 0;
        for (ra_i64 i = n - 1; i >= 0; --i) {
            const T d = A[b * stride_a + i + i * lda];
            if (ra_qr_re(d) == R(0) && ra_qr_im(d) == R(0)) first = (int)(i + 1);
        }
        info[b] = first;
    }
}
