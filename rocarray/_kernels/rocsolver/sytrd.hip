// rocsolver: the fused panel columns of the tridiagonal reduction (rocarray/rocsolver/_sytrd_kernels.py).
//
// Column k of a panel starting at column j0 (c = k - j0 panel columns before it; V = A(:, j0:k) the
// panel's reflectors with their unit elements stored, W (ldw = n) their w columns) takes two
// launches, each grid-wide, once column k is up to date and its norm partials are written:
//
// ra_rocsolver_sytrd_symv<T>: every block forms the reflector's scalars (LAPACK's larfg: beta,
//   tau and the scale of x = A(k+1:, k)) from the norm partials; block 0 stores beta to E[k] and
//   tau to tau[k]. Then each lower-triangle tile of the trailing matrix A22 = A(k+1:, k+1:) is
//   read once and gives both its row contributions (A22 v) and its transposed ones (A22^H v) as
//   partial sums per tile row, and their share of (A22 v)^H v; diagonal tiles also give the
//   partial products W^H v and V^H v of their rows. v is formed on the fly (v[0] = 1,
//   v[r] = scale x[r]) so that x stays readable.
// ra_rocsolver_sytrd_sum<T>: w = tau (A22 v - V (W^H v) - W (V^H v)) + alpha v, alpha =
//   -tau conj(tau) (w^H v) / 2 with w^H v = (A22 v)^H v - (W^H v)^H (V^H v) - (V^H v)^H (W^H v),
//   into W's column c, v stored over x; with `next`, column k + 1 brought up to date
//   (A(k+1:, k+1) -= V W(k+1, :)^H + W V(k+1, :)^H over the panel's c + 1 columns) and its norm
//   partials written.
// ra_rocsolver_sytrd_norms<T>: the norm partials of a panel's first column (no update).
//
// Partial sums are written to fixed slots and added in a fixed order: the result does not depend
// on how blocks are scheduled.

#define RA_TRD_TILE 32
#define RA_TRD_THREADS 256
#define RA_TRD_GROUPS (RA_TRD_THREADS / RA_TRD_TILE)
#define RA_TRD_NB_MAX 64

// Real and complex elements through one set of names.
template <typename T> struct ra_trd_ops;
template <> struct ra_trd_ops<float> {
    typedef float R;
    static RA_DEVICE float re(float x) { return x; }
    static RA_DEVICE float im(float) { return 0.0f; }
    static RA_DEVICE float conj(float x) { return x; }
    static RA_DEVICE float abs2(float x) { return x * x; }
    static RA_DEVICE float make(float re, float) { return re; }
};
template <> struct ra_trd_ops<double> {
    typedef double R;
    static RA_DEVICE double re(double x) { return x; }
    static RA_DEVICE double im(double) { return 0.0; }
    static RA_DEVICE double conj(double x) { return x; }
    static RA_DEVICE double abs2(double x) { return x * x; }
    static RA_DEVICE double make(double re, double) { return re; }
};
template <> struct ra_trd_ops<ra_c64> {
    typedef float R;
    static RA_DEVICE float re(ra_c64 x) { return x.re; }
    static RA_DEVICE float im(ra_c64 x) { return x.im; }
    static RA_DEVICE ra_c64 conj(ra_c64 x) { return ra_make_complex<float>(x.re, -x.im); }
    static RA_DEVICE float abs2(ra_c64 x) { return x.re * x.re + x.im * x.im; }
    static RA_DEVICE ra_c64 make(float re, float im) { return ra_make_complex<float>(re, im); }
};
template <> struct ra_trd_ops<ra_c128> {
    typedef double R;
    static RA_DEVICE double re(ra_c128 x) { return x.re; }
    static RA_DEVICE double im(ra_c128 x) { return x.im; }
    static RA_DEVICE ra_c128 conj(ra_c128 x) { return ra_make_complex<double>(x.re, -x.im); }
    static RA_DEVICE double abs2(ra_c128 x) { return x.re * x.re + x.im * x.im; }
    static RA_DEVICE ra_c128 make(double re, double im) { return ra_make_complex<double>(re, im); }
};

// The sum over a block of NT threads of one value each; every thread gets the total. `red` holds
// NT values; the final barrier lets the next call overwrite it.
template <int NT, typename S>
RA_DEVICE S ra_trd_block_sum(S v, S* red) {
    const int t = (int)threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (int s = NT / 2; s > 0; s >>= 1) {
        if (t < s) red[t] = red[t] + red[t + s];
        __syncthreads();
    }
    const S total = red[0];
    __syncthreads();
    return total;
}

// The largest value over a block of NT threads (NaN wins, so a NaN input is seen).
template <typename R>
RA_DEVICE R ra_trd_nanmax(R a, R b) {
    return (a != a || b < a) ? a : b;
}

template <int NT, typename R>
RA_DEVICE R ra_trd_block_max(R v, R* red) {
    const int t = (int)threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (int s = NT / 2; s > 0; s >>= 1) {
        if (t < s) red[t] = ra_trd_nanmax<R>(red[t], red[t + s]);
        __syncthreads();
    }
    const R total = red[0];
    __syncthreads();
    return total;
}

// Rows [r0, r1) of `rows` rows for this block: contiguous shares, one per block.
RA_DEVICE void ra_trd_share(ra_i64 rows, ra_i64& r0, ra_i64& r1) {
    const ra_i64 blocks = (ra_i64)gridDim.x;
    const ra_i64 chunk = (rows + blocks - 1) / blocks;
    r0 = (ra_i64)blockIdx.x * chunk;
    r1 = r0 + chunk < rows ? r0 + chunk : rows;
}

// Per block (largest magnitude, sum of squares scaled by it) of x[1:] = A(k+2:, k) over this
// block's share of the column's rows, into norms[2 * blockIdx.x], norms[2 * blockIdx.x + 1]; the
// caller holds `big` of the rows it read and calls it with every thread of the block.
template <typename T>
RA_DEVICE void ra_trd_norm_partials(typename ra_trd_ops<T>::R big, const T* __restrict__ col, ra_i64 r0, ra_i64 r1,
                                    typename ra_trd_ops<T>::R* red, typename ra_trd_ops<T>::R* __restrict__ norms) {
    typedef ra_trd_ops<T> O;
    typedef typename O::R R;
    const int t = (int)threadIdx.x;
    big = ra_trd_block_max<RA_TRD_THREADS, R>(big, red);
    R ssq = R(0);
    if (big > R(0)) {
        const R inv = R(1) / big;
        for (ra_i64 r = (r0 > 2 ? r0 : 2) + t; r < r1; r += RA_TRD_THREADS) ssq += O::abs2(inv * col[r]);
    }
    ssq = ra_trd_block_sum<RA_TRD_THREADS, R>(ssq, red);
    if (t == 0) {
        norms[2 * blockIdx.x] = big;
        norms[2 * blockIdx.x + 1] = ssq;
    }
}

// The norm partials of column k (rows k.. shared among the blocks; x[1:] from row k + 2).
template <typename T>
__global__ void __launch_bounds__(RA_TRD_THREADS)
ra_rocsolver_sytrd_norms(ra_i64 n, const T* __restrict__ a, ra_i64 lda, ra_i64 k,
                         typename ra_trd_ops<T>::R* __restrict__ norms) {
    typedef ra_trd_ops<T> O;
    typedef typename O::R R;
    __shared__ R red[RA_TRD_THREADS];
    const T* col = a + k + k * lda;
    ra_i64 r0, r1;
    ra_trd_share(n - k, r0, r1);
    R big = R(0);
    for (ra_i64 r = (r0 > 2 ? r0 : 2) + (ra_i64)threadIdx.x; r < r1; r += RA_TRD_THREADS)
        big = ra_trd_nanmax<R>(ra_trd_nanmax<R>(big, fabs(O::re(col[r]))), fabs(O::im(col[r])));
    ra_trd_norm_partials<T>(big, col, r0, r1, red, norms);
}

// nnorms blocks' norm partials of column k in `norms`; partial[nt * m] (nt tile rows of the
// m x m trailing matrix) takes the tile partial sums: slot (t, r) holds, for row r in tile row I,
// the row contribution of tile (I, t) when t <= I and the transposed one of tile (t, I) when
// t > I. ypart[nt * 2c]: per tile row, W(rows)^H v then V(rows)^H v. scale[0] takes the factor
// of x; dotp[gridDim.x] each block's share of (A22 v)^H v (the sum over its slots of
// conj(slot) v[row]).
template <typename T>
__global__ void __launch_bounds__(RA_TRD_THREADS)
ra_rocsolver_sytrd_symv(ra_i64 n, const T* __restrict__ a, ra_i64 lda, const T* __restrict__ W, ra_i64 j0, ra_i64 k,
                        ra_i64 c, ra_i64 nnorms, const typename ra_trd_ops<T>::R* __restrict__ norms,
                        typename ra_trd_ops<T>::R* __restrict__ E, T* __restrict__ tau, T* __restrict__ scale,
                        T* __restrict__ partial, T* __restrict__ ypart, T* __restrict__ dotp) {
    typedef ra_trd_ops<T> O;
    typedef typename O::R R;
    const int LD = RA_TRD_TILE + 1;  // padded: a column walk hits different banks
    __shared__ T sA[RA_TRD_TILE * (RA_TRD_TILE + 1)];
    __shared__ T vr[RA_TRD_TILE];
    __shared__ T vc[RA_TRD_TILE];
    __shared__ T red[RA_TRD_THREADS];
    __shared__ R redR[RA_TRD_THREADS];
    const int t = (int)threadIdx.x;
    const T zero = O::make(R(0), R(0));
    const T one = O::make(R(1), R(0));
    const ra_i64 m = n - k - 1;
    const ra_i64 nt = (m + RA_TRD_TILE - 1) / RA_TRD_TILE;
    const ra_i64 tiles = nt * (nt + 1) / 2;
    if ((ra_i64)blockIdx.x >= tiles) {
        if (t == 0) dotp[blockIdx.x] = zero;
        return;
    }
    const T* x = a + (k + 1) + k * lda;

    // the reflector (LAPACK's larfg) from the column kernel's partials: ||x[1:]|| scaled by its
    // largest magnitude, no overflow or underflow in the squares
    R big = R(0);
    for (ra_i64 b = t; b < nnorms; b += RA_TRD_THREADS) big = ra_trd_nanmax<R>(big, norms[2 * b]);
    big = ra_trd_block_max<RA_TRD_THREADS, R>(big, redR);
    R sum = R(0);
    if (big > R(0)) {
        for (ra_i64 b = t; b < nnorms; b += RA_TRD_THREADS) {
            const R bb = norms[2 * b];
            if (bb > R(0)) {
                const R q = bb / big;
                sum += norms[2 * b + 1] * (q * q);
            }
        }
    }
    sum = ra_trd_block_sum<RA_TRD_THREADS, R>(sum, redR);
    const T alpha = x[0];
    const R ar = O::re(alpha), ai = O::im(alpha);
    const R xnorm = big > R(0) ? big * sqrt(sum) : (big == big ? R(0) : big);
    R beta = ar;
    T tk = zero, sc = one;
    if (!(xnorm == R(0) && ai == R(0))) {
        const R s = fmax(fmax(fabs(ar), fabs(ai)), xnorm);
        const R ars = ar / s, ais = ai / s, xs = xnorm / s;
        const R norm = s * sqrt(ars * ars + ais * ais + xs * xs);
        beta = ar >= R(0) ? -norm : norm;
        // 1 / (alpha - beta) = conj(z) / |z|^2, z = (ar - beta, ai)
        const R zr = ar - beta, zi = ai;
        const R zs = fmax(fabs(zr), fabs(zi));
        const R zrs = zr / zs, zis = zi / zs;
        const R den = zs * (zrs * zrs + zis * zis);
        sc = O::make(zrs / den, -zis / den);
        tk = O::make((beta - ar) / beta, -ai / beta);
    }
    if (blockIdx.x == 0 && t == 0) {
        E[k] = beta;
        tau[k] = tk;
        scale[0] = sc;
    }

    const T* A22 = a + (k + 1) + (k + 1) * lda;
    const int lane = t % RA_TRD_TILE, g = t / RA_TRD_TILE;
    T vdot = zero;  // this thread's share of (A22 v)^H v
    for (ra_i64 tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        // tile (I, J), I >= J, numbered row by row: tile = I (I + 1) / 2 + J
        ra_i64 I = (ra_i64)((sqrt(8.0 * (double)tile + 1.0) - 1.0) / 2.0);
        while (I * (I + 1) / 2 > tile) --I;
        while ((I + 1) * (I + 2) / 2 <= tile) ++I;
        const ra_i64 J = tile - I * (I + 1) / 2;
        const ra_i64 i0 = I * RA_TRD_TILE, c0 = J * RA_TRD_TILE;
        const bool diag = I == J;
        if (t < RA_TRD_TILE) {
            const ra_i64 r = i0 + t;
            vr[t] = r < m ? (r == 0 ? one : sc * x[r]) : zero;
        } else if (t < 2 * RA_TRD_TILE) {
            const ra_i64 r = c0 + (t - RA_TRD_TILE);
            vc[t - RA_TRD_TILE] = r < m ? (r == 0 ? one : sc * x[r]) : zero;
        }
        for (int e = t; e < RA_TRD_TILE * RA_TRD_TILE; e += RA_TRD_THREADS) {
            const int ii = e % RA_TRD_TILE, jj = e / RA_TRD_TILE;
            const ra_i64 gi = i0 + ii, gj = c0 + jj;
            T val = zero;
            if (gi < m && gj < m && (!diag || ii >= jj)) val = A22[gi + gj * lda];
            sA[ii + jj * LD] = val;
        }
        __syncthreads();
        // row contributions: row `lane`, columns g, g + GROUPS, ... (the diagonal tile as the
        // full Hermitian block from its lower half, its diagonal real)
        T s = zero;
        if (!diag) {
            for (int jj = g; jj < RA_TRD_TILE; jj += RA_TRD_GROUPS) s = s + sA[lane + jj * LD] * vc[jj];
        } else {
            for (int jj = g; jj < RA_TRD_TILE; jj += RA_TRD_GROUPS) {
                const T h = lane > jj ? sA[lane + jj * LD]
                                      : (lane == jj ? O::make(O::re(sA[lane + lane * LD]), R(0))
                                                    : O::conj(sA[jj + lane * LD]));
                s = s + h * vr[jj];
            }
        }
        red[t] = s;
        __syncthreads();
        if (t < RA_TRD_TILE && i0 + t < m) {
            T total = zero;
            for (int q = 0; q < RA_TRD_GROUPS; ++q) total = total + red[t + q * RA_TRD_TILE];
            partial[(diag ? I : J) * m + i0 + t] = total;
            vdot = vdot + O::conj(total) * vr[t];
        }
        __syncthreads();
        if (!diag) {
            // transposed contributions: column `lane`, rows g, g + GROUPS, ...
            T s2 = zero;
            for (int ii = g; ii < RA_TRD_TILE; ii += RA_TRD_GROUPS) s2 = s2 + O::conj(sA[ii + lane * LD]) * vr[ii];
            red[t] = s2;
            __syncthreads();
            if (t < RA_TRD_TILE) {
                T total = zero;
                for (int q = 0; q < RA_TRD_GROUPS; ++q) total = total + red[t + q * RA_TRD_TILE];
                partial[I * m + c0 + t] = total;
                vdot = vdot + O::conj(total) * vc[t];
            }
        } else {
            // W(rows)^H v (q < c) and V(rows)^H v (q >= c) of this tile's rows
            for (ra_i64 q = t; q < 2 * c; q += RA_TRD_THREADS) {
                const T* col = q < c ? W + q * n : a + (j0 + q - c) * lda;
                T s3 = zero;
                for (int ii = 0; ii < RA_TRD_TILE; ++ii) {
                    const ra_i64 gi = i0 + ii;
                    if (gi < m) s3 = s3 + O::conj(col[k + 1 + gi]) * vr[ii];
                }
                ypart[I * 2 * c + q] = s3;
            }
        }
        __syncthreads();  // the next tile overwrites the shared arrays
    }
    vdot = ra_trd_block_sum<RA_TRD_THREADS, T>(vdot, red);
    if (t == 0) dotp[blockIdx.x] = vdot;
}

// Column c of W (rows k+1..) and v over x from the symv kernel's partials (nsymv blocks' dotp);
// with `next`, column k + 1 up to date and its norm partials in norms[2 * gridDim.x]. A block
// takes RA_TRD_TILE rows at a time, each row's sums split among RA_TRD_GROUPS threads (short
// chains of independent loads).
template <typename T>
__global__ void __launch_bounds__(RA_TRD_THREADS)
ra_rocsolver_sytrd_sum(ra_i64 n, T* __restrict__ a, ra_i64 lda, T* __restrict__ W, ra_i64 j0, ra_i64 k, ra_i64 c,
                       int next, ra_i64 nsymv, const T* __restrict__ dotp, const T* __restrict__ scale,
                       const T* __restrict__ tau, const T* __restrict__ partial, const T* __restrict__ ypart,
                       typename ra_trd_ops<T>::R* __restrict__ norms) {
    typedef ra_trd_ops<T> O;
    typedef typename O::R R;
    __shared__ T ys[2 * RA_TRD_NB_MAX];
    __shared__ T red[RA_TRD_THREADS];
    __shared__ R redR[RA_TRD_THREADS];
    const int t = (int)threadIdx.x;
    const int lane = t % RA_TRD_TILE, g = t / RA_TRD_TILE;
    const T zero = O::make(R(0), R(0));
    const T one = O::make(R(1), R(0));
    const ra_i64 m = n - k - 1;
    const ra_i64 nt = (m + RA_TRD_TILE - 1) / RA_TRD_TILE;
    // W^H v and V^H v from the diagonal tiles' partials: output q, partials I = part, part + P, ...
    const int outs = (int)(2 * c);
    if (outs > 0) {
        const int parts = RA_TRD_THREADS / outs;  // >= 2: outs <= 2 RA_TRD_NB_MAX
        T s = zero;
        const int q = t % outs, part = t / outs;
        if (part < parts) {
            for (ra_i64 I = part; I < nt; I += parts) s = s + ypart[I * outs + q];
        }
        red[t] = s;
        __syncthreads();
        if (t < outs) {
            T total = zero;
            for (int p = 0; p < parts; ++p) total = total + red[t + p * outs];
            ys[t] = total;
        }
        __syncthreads();
    }
    // w^H v before w's finishing step
    T d = zero;
    for (ra_i64 b = t; b < nsymv; b += RA_TRD_THREADS) d = d + dotp[b];
    d = ra_trd_block_sum<RA_TRD_THREADS, T>(d, red);
    for (ra_i64 j = 0; j < c; ++j) d = d - O::conj(ys[j]) * ys[c + j] - O::conj(ys[c + j]) * ys[j];
    const T tk = tau[k];
    const T alpha = R(-0.5) * (tk * (O::conj(tk) * d));
    const T sc = scale[0];
    T* x = a + (k + 1) + k * lda;
    const ra_i64 kn = k + 1;  // the next column, and the trailing matrix's first row
    T* an = a + kn + kn * lda;  // A(kn:, kn): row r of the trailing matrix at an[r]
    // W(kn, c) finished, every block's copy (row 0 of the trailing matrix, v[0] = 1)
    T w0 = zero;
    if (next) {
        T s = zero;
        for (ra_i64 q = t; q < nt; q += RA_TRD_THREADS) s = s + partial[q * m];
        for (ra_i64 j = t; j < c; j += RA_TRD_THREADS) s = s - a[kn + (j0 + j) * lda] * ys[j] - W[kn + j * n] * ys[c + j];
        s = ra_trd_block_sum<RA_TRD_THREADS, T>(s, red);
        w0 = tk * s + alpha;
    }
    ra_i64 r0, r1;
    ra_trd_share(m, r0, r1);
    R big = R(0);
    for (ra_i64 base = r0; base < r1; base += RA_TRD_TILE) {
        const ra_i64 r = base + lane;
        const ra_i64 i = kn + r;
        const bool mine = r < r1;
        T s = zero;
        if (mine) {
            for (ra_i64 q = g; q < nt; q += RA_TRD_GROUPS) s = s + partial[q * m + r];
            for (ra_i64 j = g; j < c; j += RA_TRD_GROUPS)
                s = s - a[i + (j0 + j) * lda] * ys[j] - W[i + j * n] * ys[c + j];
        }
        red[t] = s;
        __syncthreads();
        T wf = zero, v = zero;
        if (g == 0 && mine) {
            T total = zero;
            for (int q = 0; q < RA_TRD_GROUPS; ++q) total = total + red[lane + q * RA_TRD_TILE];
            v = r == 0 ? one : sc * x[r];
            wf = tk * total + alpha * v;
            W[i + c * n] = wf;
            x[r] = v;
        }
        __syncthreads();
        if (!next) continue;
        // column kn: the panel's earlier columns split among the groups, column c (this row's
        // v and w, row kn's 1 and w0) by the row's first thread
        T u = zero;
        if (mine) {
            for (ra_i64 j = g; j < c; j += RA_TRD_GROUPS)
                u = u + a[i + (j0 + j) * lda] * O::conj(W[kn + j * n]) + W[i + j * n] * O::conj(a[kn + (j0 + j) * lda]);
        }
        red[t] = u;
        __syncthreads();
        if (g == 0 && mine) {
            T total = an[r] - v * O::conj(w0) - wf;
            for (int q = 0; q < RA_TRD_GROUPS; ++q) total = total - red[lane + q * RA_TRD_TILE];
            an[r] = total;
            if (r >= 2) big = ra_trd_nanmax<R>(ra_trd_nanmax<R>(big, fabs(O::re(total))), fabs(O::im(total)));
        }
        __syncthreads();
    }
    if (next) ra_trd_norm_partials<T>(big, an, r0, r1, redR, norms);
}

// ---- warp-tile kernels (_sytrd_kernels.WARP_TILES) -------------------------------------------
//
// The same two steps a column with the same partial layouts (partial[q * m + r], ypart[I * 2c + q],
// one dotp value per block), launched so that no block waits on a barrier in its main loop:
//
// ra_rocsolver_sytrd_symv_warp<T>: each warp forms the reflector's scalars itself (warp
//   reductions of the nnorms = ceil((n - k) / RA_TRD_TILE) norm partials) and then takes whole
//   32 x 32 lower tiles of A22 in turn: a lane holds one row of the tile and RA_TRD_CHUNK of its
//   columns at a time in registers (16 independent loads in flight per lane), adds their row
//   contributions in place (the tile column's v read as broadcasts from the warp's row of shared
//   memory) and hands their transposed products to a butterfly that leaves lane r with the sum of
//   column r (RA_TRD_CHUNK shuffles a chunk). A wavefront of 64 takes a tile's two column chunks
//   in its two lane halves. Diagonal tiles also give the panel products W^H v, V^H v of their
//   rows through the same butterfly.
// ra_rocsolver_sytrd_sum_rows<T>: block b takes the rows [32 b, 32 b + 32) of the column's m rows
//   (blocks past m return at once: the grid is sized by n, the work by n - k), warp reductions,
//   three block barriers, and its norm partials of column k + 1 from the values in registers
//   (no second pass). It writes ceil(m / 32) norm partials, as the next symv_warp reads.
//
// Both start with ra_dependent_grid_enter: launched as programmatic dependents (NVIDIA sm_90) the
// next column's kernel is placed while this one drains; elsewhere plain launches.

#define RA_TRD_CHUNK 16
#define RA_TRD_WARPS (RA_TRD_THREADS / RA_WARP_SIZE)
// symv_warp's blocks are smaller: its warps share nothing but the block's dot, and its register
// count leaves room for more resident warps in blocks of 128 than of 256
#define RA_TRD_SYMV_THREADS 128
#define RA_TRD_SYMV_WARPS (RA_TRD_SYMV_THREADS / RA_WARP_SIZE)

struct ra_trd_nanmax_op {
    template <typename R> RA_DEVICE R operator()(R a, R b) const { return ra_trd_nanmax<R>(a, b); }
};

// p[j] (j < RA_TRD_CHUNK) of every lane summed over the 32 lanes of its lane group (lanes
// 32 g .. 32 g + 31): lane r of the group gets the total of p[r % RA_TRD_CHUNK]. A butterfly that
// halves the values a lane holds at each step (each lane sends the half its partner keeps).
template <int H, typename T>
RA_DEVICE void ra_trd_transpose_step(T (&p)[RA_TRD_CHUNK], int lane) {
    const bool up = (lane & H) != 0;
#pragma unroll
    for (int i = 0; i < H; ++i) {
        const T send = up ? p[i] : p[i + H];
        const T keep = up ? p[i + H] : p[i];
        p[i] = keep + ra_shfl_xor(send, H);
    }
    if (H > 1) ra_trd_transpose_step<(H > 1 ? H / 2 : 1)>(p, lane);
}

template <typename T>
RA_DEVICE T ra_trd_transpose_sum(T (&p)[RA_TRD_CHUNK], int lane) {
    ra_trd_transpose_step<RA_TRD_CHUNK / 2>(p, lane);
    T s = p[0];
#pragma unroll
    for (int o = RA_TRD_CHUNK; o < RA_TRD_TILE; o <<= 1) s = s + ra_shfl_xor(s, o);
    return s;
}

// x[e] = v(e0 + e) for e0 + e < count, else `none`: B predicated loads in flight together.
template <int B, typename S, typename F>
RA_DEVICE void ra_trd_load_batch(S (&x)[B], ra_i64 e0, ra_i64 count, S none, F v) {
#pragma unroll
    for (int e = 0; e < B; ++e) x[e] = e0 + e < count ? v(e0 + e) : none;
}

template <int B, typename S, typename Op>
RA_DEVICE S ra_trd_add_batch(S acc, const S (&x)[B], Op op) {
#pragma unroll
    for (int e = 0; e < B; ++e) acc = op(acc, x[e]);
    return acc;
}

// acc op v(from) op v(from + 1) ... op v(count - 1), in that order, with v(e) formed B at a time
// under a predicate: a batch's loads are in flight together (a loop with a remainder waits on
// each of the remainder's loads in turn). Values past count are `none` (the operation's identity).
template <int B, typename S, typename F, typename Op>
RA_DEVICE S ra_trd_fold_batched(S acc, ra_i64 count, S none, F v, Op op, ra_i64 from = 0) {
    for (ra_i64 e0 = from; e0 < count; e0 += B) {
        S x[B];
        ra_trd_load_batch(x, e0, count, none, v);
        acc = ra_trd_add_batch(acc, x, op);
    }
    return acc;
}

// Elements e = 0, 1, ... of first, first + step, ... below end.
RA_DEVICE ra_i64 ra_trd_strided_count(ra_i64 first, ra_i64 end, ra_i64 step) {
    return first < end ? (end - first + step - 1) / step : 0;
}

// larfg's scalars (beta, tau and the factor of x) of column k from its nnorms norm partials,
// formed by one warp with warp reductions: every warp that calls it makes the same loads in the
// same order and gets the same bits. Block 0's thread 0 stores beta to E[k], tau to tau[k] and
// the factor to scale[0].
template <typename T>
RA_DEVICE void ra_trd_warp_larfg(ra_i64 nnorms, const typename ra_trd_ops<T>::R* __restrict__ norms,
                                 const T* __restrict__ x, int lane, T& tk, T& sc,
                                 typename ra_trd_ops<T>::R* __restrict__ E, T* __restrict__ tau,
                                 T* __restrict__ scale, ra_i64 k) {
    typedef ra_trd_ops<T> O;
    typedef typename O::R R;
    const T zero = O::make(R(0), R(0));
    const T one = O::make(R(1), R(0));
    const ra_i64 mine = ra_trd_strided_count(lane, nnorms, RA_WARP_SIZE);
    R big = ra_trd_fold_batched<4>(R(0), mine, R(0), [&](ra_i64 e) { return norms[2 * (lane + e * RA_WARP_SIZE)]; },
                                   ra_trd_nanmax_op());
    big = ra_warp_reduce(big, ra_trd_nanmax_op());
    R sum = R(0);
    if (big > R(0)) {
        // a block whose largest magnitude is 0 adds nothing (+0: the same sum as skipping it)
        sum = ra_trd_fold_batched<4>(R(0), mine, R(0), [&](ra_i64 e) {
            const ra_i64 b = lane + e * RA_WARP_SIZE;
            const R bb = norms[2 * b];
            const R q = bb / big;
            return bb > R(0) ? norms[2 * b + 1] * (q * q) : R(0);
        }, ra_op_sum());
    }
    sum = ra_warp_reduce(sum, ra_op_sum());
    const T alpha = x[0];
    const R ar = O::re(alpha), ai = O::im(alpha);
    const R xnorm = big > R(0) ? big * sqrt(sum) : (big == big ? R(0) : big);
    R beta = ar;
    tk = zero;
    sc = one;
    if (!(xnorm == R(0) && ai == R(0))) {
        const R s = fmax(fmax(fabs(ar), fabs(ai)), xnorm);
        const R ars = ar / s, ais = ai / s, xs = xnorm / s;
        const R norm = s * sqrt(ars * ars + ais * ais + xs * xs);
        beta = ar >= R(0) ? -norm : norm;
        const R zr = ar - beta, zi = ai;
        const R zs = fmax(fabs(zr), fabs(zi));
        const R zrs = zr / zs, zis = zi / zs;
        const R den = zs * (zrs * zrs + zis * zis);
        sc = O::make(zrs / den, -zis / den);
        tk = O::make((beta - ar) / beta, -ai / beta);
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        E[k] = beta;
        tau[k] = tk;
        scale[0] = sc;
    }
}

template <typename T>
__global__ void __launch_bounds__(RA_TRD_SYMV_THREADS)
ra_rocsolver_sytrd_symv_warp(ra_i64 n, const T* __restrict__ a, ra_i64 lda, const T* __restrict__ W, ra_i64 j0,
                             ra_i64 k, ra_i64 c, const typename ra_trd_ops<T>::R* __restrict__ norms,
                             typename ra_trd_ops<T>::R* __restrict__ E, T* __restrict__ tau, T* __restrict__ scale,
                             T* __restrict__ partial, T* __restrict__ ypart, T* __restrict__ dotp) {
    typedef ra_trd_ops<T> O;
    typedef typename O::R R;
    static_assert(RA_WARP_SIZE == 32 || RA_WARP_SIZE == 64, "a tile row per lane of a 32-lane group");
    constexpr int NG = RA_WARP_SIZE / RA_TRD_TILE;              // lane groups a warp
    constexpr int CPL = RA_TRD_TILE / RA_TRD_CHUNK / NG;         // column chunks a lane, each tile
    __shared__ T wdot[RA_TRD_SYMV_WARPS];
    __shared__ T vcols[RA_TRD_SYMV_WARPS][RA_TRD_TILE];  // each warp's tile column v (broadcast reads)
    ra_dependent_grid_enter();
    const int lane = ra_lane_id(), warp = ra_warp_id();
    const int r = lane % RA_TRD_TILE, grp = lane / RA_TRD_TILE;
    const T zero = O::make(R(0), R(0));
    const T one = O::make(R(1), R(0));
    const ra_i64 m = n - k - 1;
    const ra_i64 nt = (m + RA_TRD_TILE - 1) / RA_TRD_TILE;
    const ra_i64 tiles = nt * (nt + 1) / 2;
    const ra_i64 nnorms = (n - k + RA_TRD_TILE - 1) / RA_TRD_TILE;
    const T* x = a + (k + 1) + k * lda;

    // larfg's scalars, every warp on its own (the same loads and order: the same bits)
    T tk, sc;
    ra_trd_warp_larfg<T>(nnorms, norms, x, lane, tk, sc, E, tau, scale, k);

    const T* A22 = a + (k + 1) + (k + 1) * lda;
    const ra_i64 warps = (ra_i64)gridDim.x * RA_TRD_SYMV_WARPS;
    T vdot = zero;  // this lane's share of (A22 v)^H v
    for (ra_i64 tile = (ra_i64)blockIdx.x * RA_TRD_SYMV_WARPS + warp; tile < tiles; tile += warps) {
        ra_i64 I = (ra_i64)((sqrt(8.0 * (double)tile + 1.0) - 1.0) / 2.0);
        while (I * (I + 1) / 2 > tile) --I;
        while ((I + 1) * (I + 2) / 2 <= tile) ++I;
        const ra_i64 J = tile - I * (I + 1) / 2;
        const ra_i64 i0 = I * RA_TRD_TILE, c0 = J * RA_TRD_TILE;
        const bool diag = I == J;
        const ra_i64 gi = i0 + r, gj = c0 + r;
        const bool row_in = gi < m;
        const T xr = row_in ? (gi == 0 ? one : sc * x[gi]) : zero;
        const T xc = diag ? xr : (gj < m ? (gj == 0 ? one : sc * x[gj]) : zero);
        ra_warp_sync();  // the previous tile's reads of vcols are done
        if (grp == 0) vcols[warp][r] = xc;
        ra_warp_sync();
        T rowacc = zero;
        T tacc[CPL];
#pragma unroll
        for (int it = 0; it < CPL; ++it) {
            const int ch = grp + NG * it;
            T p[RA_TRD_CHUNK];
#pragma unroll
            for (int j = 0; j < RA_TRD_CHUNK; ++j) {
                const int cj = ch * RA_TRD_CHUNK + j;
                const ra_i64 col = c0 + cj;
                p[j] = (row_in && col < m && (!diag || cj <= r)) ? A22[gi + col * lda] : zero;
            }
#pragma unroll
            for (int j = 0; j < RA_TRD_CHUNK; ++j) {
                const int cj = ch * RA_TRD_CHUNK + j;
                const T vj = vcols[warp][cj];
                const bool on_diag = diag && cj == r;
                rowacc = rowacc + (on_diag ? O::make(O::re(p[j]), R(0)) : p[j]) * vj;
                p[j] = on_diag ? zero : O::conj(p[j]) * xr;
            }
            tacc[it] = ra_trd_transpose_sum<T>(p, lane);
        }
#pragma unroll
        for (int o = RA_TRD_TILE; o < RA_WARP_SIZE; o <<= 1) rowacc = rowacc + ra_shfl_xor(rowacc, o);
        // lane r of the group holding column chunk r / CHUNK writes column r's transposed sum
        const int chw = r / RA_TRD_CHUNK;
        const bool writer = chw % NG == grp;
        T tv = tacc[0];
        if (CPL > 1 && chw / NG == 1) tv = tacc[CPL - 1];
        if (diag) {
            if (writer && row_in) {
                const T total = rowacc + tv;
                partial[I * m + gi] = total;
                vdot = vdot + O::conj(total) * xr;
            }
            // W(rows)^H v (q < c) and V(rows)^H v (q >= c) of this tile's rows, CHUNK q's at a time
            const int outs = (int)(2 * c);
            const int nq = (outs + RA_TRD_CHUNK - 1) / RA_TRD_CHUNK;
            for (int qb = 0; qb < nq; qb += NG) {
                const int qc = qb + grp;
                T p[RA_TRD_CHUNK];
#pragma unroll
                for (int j = 0; j < RA_TRD_CHUNK; ++j) {
                    const int q = qc * RA_TRD_CHUNK + j;
                    T val = zero;
                    if (q < outs && row_in) {
                        const T* col = q < c ? W + (ra_i64)q * n : a + (j0 + q - c) * lda;
                        val = col[k + 1 + gi];
                    }
                    p[j] = O::conj(val) * xr;
                }
                const T s = ra_trd_transpose_sum<T>(p, lane);
                const int q = qc * RA_TRD_CHUNK + r;
                if (r < RA_TRD_CHUNK && q < outs) ypart[I * outs + q] = s;
            }
        } else {
            if (grp == 0 && row_in) {
                partial[J * m + gi] = rowacc;
                vdot = vdot + O::conj(rowacc) * xr;
            }
            if (writer && gj < m) {
                partial[I * m + gj] = tv;
                vdot = vdot + O::conj(tv) * xc;
            }
        }
    }
    vdot = ra_warp_reduce(vdot, ra_op_sum());
    if (lane == 0) wdot[warp] = vdot;
    __syncthreads();
    if (threadIdx.x == 0) {
        T total = zero;
        for (int w = 0; w < RA_TRD_SYMV_WARPS; ++w) total = total + wdot[w];
        dotp[blockIdx.x] = total;
    }
}

// ---- staged symv (_sytrd_kernels.STAGED) -----------------------------------------------------
//
// ra_rocsolver_sytrd_symv_stage<T>: symv_warp's work, arguments, grid and partial layouts, with the
//   transposed sums through shared memory instead of shuffle butterflies and the loads kept in
//   flight. Each warp takes whole 32 x 32 lower tiles of A22 in column-major order (the warps of a
//   block read vertically adjacent tiles: contiguous stretches of the same columns), a unit of
//   RA_TRD_STAGE_COLS columns at a time: lane r of a 32-lane group loads row r of its share of the
//   unit's columns into registers (one independent load each), adds their row contributions in
//   place and stores conj(a) v[r] into the warp's padded stage, whose columns the warp then sums
//   (a column's rows split among the lanes that share it, no bank conflicts). The next unit's
//   loads (and the next tile's x) are issued before the column sums, so a warp's loads stay in
//   flight while it adds; the first item's are issued before the reflector's scalars. The panel
//   products W^H v, V^H v of each tile row are work items of their own, ceil(2c / 32) blocks of
//   32 rows x 32 columns of W and V taken like tiles (transposed sums only) ahead of the tiles.

// Columns a warp stages at a time: a whole tile for elements of up to 8 bytes, half a tile for
// 16-byte ones (a lane's share of a unit stays in registers).
template <typename T> struct ra_trd_stage_cols {
    static constexpr int value = sizeof(T) > 8 ? RA_TRD_TILE / 2 : RA_TRD_TILE;
};

// Tile (I, J), I >= J, of the `tiles` lower tiles of an nt x nt tile grid numbered column by
// column (tile 0 = (0, 0), 1 = (1, 0), ...): the row-by-row numbering of the mirrored triangle.
RA_DEVICE void ra_trd_tile_by_columns(ra_i64 tile, ra_i64 nt, ra_i64 tiles, ra_i64& I, ra_i64& J) {
    const ra_i64 s = tiles - 1 - tile;
    ra_i64 P = (ra_i64)((sqrt(8.0 * (double)s + 1.0) - 1.0) / 2.0);
    while (P * (P + 1) / 2 > s) --P;
    while ((P + 1) * (P + 2) / 2 <= s) ++P;
    I = nt - 1 - (s - P * (P + 1) / 2);
    J = nt - 1 - P;
}

template <typename T>
__global__ void __launch_bounds__(RA_TRD_SYMV_THREADS)
ra_rocsolver_sytrd_symv_stage(ra_i64 n, const T* __restrict__ a, ra_i64 lda, const T* __restrict__ W, ra_i64 j0,
                              ra_i64 k, ra_i64 c, const typename ra_trd_ops<T>::R* __restrict__ norms,
                              typename ra_trd_ops<T>::R* __restrict__ E, T* __restrict__ tau, T* __restrict__ scale,
                              T* __restrict__ partial, T* __restrict__ ypart, T* __restrict__ dotp) {
    typedef ra_trd_ops<T> O;
    typedef typename O::R R;
    static_assert(RA_WARP_SIZE == 32 || RA_WARP_SIZE == 64, "a tile row per lane of a 32-lane group");
    constexpr int CH = ra_trd_stage_cols<T>::value;     // columns a unit
    constexpr int NG = RA_WARP_SIZE / RA_TRD_TILE;      // lane groups a warp
    constexpr int GC = CH / NG;                         // columns a lane loads a unit
    constexpr int UNITS = RA_TRD_TILE / CH;             // units a tile
    static_assert(UNITS <= 2, "a tile's column sums in two registers");
    constexpr int LD = CH + 1;                          // padded stage rows: column reads hit distinct banks
    constexpr int RPL = RA_TRD_TILE / (RA_WARP_SIZE / CH);  // rows of a column a lane sums
    __shared__ T stage[RA_TRD_SYMV_WARPS][RA_TRD_TILE * LD];
    __shared__ T vcols[RA_TRD_SYMV_WARPS][RA_TRD_TILE];  // each warp's tile column v (broadcast reads)
    __shared__ T wdot[RA_TRD_SYMV_WARPS];
    ra_dependent_grid_enter();
    const int lane = ra_lane_id(), warp = ra_warp_id();
    const int r = lane % RA_TRD_TILE, grp = lane / RA_TRD_TILE;
    const T zero = O::make(R(0), R(0));
    const T one = O::make(R(1), R(0));
    const ra_i64 m = n - k - 1;
    const ra_i64 nt = (m + RA_TRD_TILE - 1) / RA_TRD_TILE;
    const ra_i64 tiles = nt * (nt + 1) / 2;
    const ra_i64 nnorms = (n - k + RA_TRD_TILE - 1) / RA_TRD_TILE;
    const T* x = a + (k + 1) + k * lda;
    const T* A22 = a + (k + 1) + (k + 1) * lda;
    const ra_i64 warps = (ra_i64)gridDim.x * RA_TRD_SYMV_WARPS;
    const int outs = (int)(2 * c);
    // work items: first the panel blocks (tile row I, panel columns 32 P ..: W(rows)^H v for
    // q < c, V(rows)^H v for q >= c), then the tiles column by column
    const ra_i64 pq = (outs + RA_TRD_TILE - 1) / RA_TRD_TILE;
    const ra_i64 npanel = nt * pq;
    const ra_i64 items = npanel + tiles;
    T* st = stage[warp];
    // item -> (I, J, P): a tile (P < 0) or the panel block P of tile row I (J = I)
    auto item_of = [&](ra_i64 it, ra_i64& I, ra_i64& J, ra_i64& P) {
        if (it < npanel) {
            I = it / pq;
            J = I;
            P = it - I * pq;
        } else {
            ra_trd_tile_by_columns(it - npanel, nt, tiles, I, J);
            P = -1;
        }
    };

    // lane (grp, r)'s share of unit u of an item: row r, columns u CH + grp GC + j (the diagonal
    // tile's lower half; a panel block's columns of W or V), and the raw x of its row and of the
    // tile column's row r
    T p[GC];
    T xrow = zero, xcol = zero;
    auto load = [&](ra_i64 I, ra_i64 J, ra_i64 P, int u) {
        const ra_i64 gi = I * RA_TRD_TILE + r;
        const int cb = u * CH + grp * GC;  // the lane's first column of the item
        // columns j < lim exist (and, in a diagonal tile, lie in its lower half): one compare a
        // load, addresses a multiple of the stride from one base (the loads stay one batch)
        if (P < 0) {
            const ra_i64 col0 = J * RA_TRD_TILE + cb;
            const ra_i64 avail = gi < m ? m - col0 : 0;
            int lim = avail < GC ? (int)avail : GC;
            if (I == J && lim > r - cb + 1) lim = r - cb + 1;
            const T* src = A22 + gi + col0 * lda;
#pragma unroll
            for (int j = 0; j < GC; ++j) {
                p[j] = j < lim ? *src : zero;
                src += lda;
            }
        } else {
            const int q0 = (int)P * RA_TRD_TILE + cb;
            const int lim = gi < m ? outs - q0 : 0;
            const T* wsrc = W + (k + 1 + gi) + (ra_i64)q0 * n;
            const T* vsrc = a + (k + 1 + gi) + (j0 + q0 - c) * lda;
#pragma unroll
            for (int j = 0; j < GC; ++j) {
                p[j] = j < lim ? (q0 + j < c ? *wsrc : *vsrc) : zero;
                wsrc += n;
                vsrc += lda;
            }
        }
        if (u == 0) {
            const ra_i64 gj = J * RA_TRD_TILE + r;
            xrow = gi < m ? x[gi] : zero;
            xcol = I != J && gj < m ? x[gj] : zero;
        }
    };
    ra_i64 item = (ra_i64)blockIdx.x * RA_TRD_SYMV_WARPS + warp;
    ra_i64 I = 0, J = 0, P = -1;
    if (item < items) {
        item_of(item, I, J, P);
        load(I, J, P, 0);
    }

    T tk, sc;
    ra_trd_warp_larfg<T>(nnorms, norms, x, lane, tk, sc, E, tau, scale, k);

    T vdot = zero;  // this lane's share of (A22 v)^H v
    T vr = zero, vc = zero, rowacc = zero;
    T tacc0 = zero, tacc1 = zero;  // the column sums of units 0 and 1
    int u = 0;
    while (item < items) {
        const ra_i64 i0 = I * RA_TRD_TILE, c0 = J * RA_TRD_TILE;
        const bool panel = P >= 0;
        const bool diag = !panel && I == J;
        const ra_i64 gi = i0 + r, gj = c0 + r;
        const bool row_in = gi < m;
        if (u == 0) {
            vr = row_in ? (gi == 0 ? one : sc * xrow) : zero;
            vc = I == J ? vr : (gj < m ? (gj == 0 ? one : sc * xcol) : zero);
            if (grp == 0) vcols[warp][r] = vc;
            rowacc = zero;
            ra_warp_sync();
        }
        // row contributions from the registers (the diagonal real), transposed products staged
#pragma unroll
        for (int j = 0; j < GC; ++j) {
            const int cj = u * CH + grp * GC + j;
            const bool on_diag = diag && cj == r;
            rowacc = rowacc + (on_diag ? O::make(O::re(p[j]), R(0)) : p[j]) * vcols[warp][cj];
            st[r * LD + grp * GC + j] = on_diag ? zero : O::conj(p[j]) * vr;
        }
        ra_warp_sync();
        // the next unit's loads go out before the stage is summed
        int un = u + 1;
        ra_i64 itn = item, In = I, Jn = J, Pn = P;
        if (un == UNITS) {
            un = 0;
            itn = item + warps;
            if (itn < items) item_of(itn, In, Jn, Pn);
        }
        if (itn < items) load(In, Jn, Pn, un);
        {
            // column u CH + lane % CH of the unit, rows split among the lanes that share it
            const int cc = lane % CH, h = lane / CH;
            T s0 = zero, s1 = zero;
#pragma unroll
            for (int i = 0; i < RPL; i += 2) {
                s0 = s0 + st[(h * RPL + i) * LD + cc];
                s1 = s1 + st[(h * RPL + i + 1) * LD + cc];
            }
            T s = s0 + s1;
#pragma unroll
            for (int o = CH; o < RA_WARP_SIZE; o <<= 1) s = s + ra_shfl_xor(s, o);
            if (u == 0)
                tacc0 = s;
            else
                tacc1 = s;
        }
        if (u == UNITS - 1) {
#pragma unroll
            for (int o = RA_TRD_TILE; o < RA_WARP_SIZE; o <<= 1) rowacc = rowacc + ra_shfl_xor(rowacc, o);
            // column r's transposed sum: held by every lane with lane % CH == r % CH after unit r / CH
            const T tv = r < CH ? tacc0 : tacc1;
            if (grp == 0) {
                if (panel) {
                    const ra_i64 q = P * RA_TRD_TILE + r;
                    if (q < outs) ypart[I * outs + q] = tv;
                } else if (diag) {
                    if (row_in) {
                        const T total = rowacc + tv;
                        partial[I * m + gi] = total;
                        vdot = vdot + O::conj(total) * vr;
                    }
                } else {
                    if (row_in) {
                        partial[J * m + gi] = rowacc;
                        vdot = vdot + O::conj(rowacc) * vr;
                    }
                    if (gj < m) {
                        partial[I * m + gj] = tv;
                        vdot = vdot + O::conj(tv) * vc;
                    }
                }
            }
        }
        ra_warp_sync();  // the stage and vcols are read before the next unit writes them
        item = itn;
        I = In;
        J = Jn;
        P = Pn;
        u = un;
    }
    vdot = ra_warp_reduce(vdot, ra_op_sum());
    if (lane == 0) wdot[warp] = vdot;
    __syncthreads();
    if (threadIdx.x == 0) {
        T total = zero;
        for (int w = 0; w < RA_TRD_SYMV_WARPS; ++w) total = total + wdot[w];
        dotp[blockIdx.x] = total;
    }
}

// Column c of W and v over x for the rows [32 b, 32 b + 32) of block b (nsymv blocks' dotp), and
// with `next` column k + 1 of those rows up to date and its norm partials in norms[2 b], [2 b + 1].
// A row's sums are split among RA_TRD_GROUPS threads; the block's row values end in warp 0.
template <typename T>
__global__ void __launch_bounds__(RA_TRD_THREADS)
ra_rocsolver_sytrd_sum_rows(ra_i64 n, T* __restrict__ a, ra_i64 lda, T* __restrict__ W, ra_i64 j0, ra_i64 k,
                            ra_i64 c, int next, ra_i64 nsymv, const T* __restrict__ dotp,
                            const T* __restrict__ scale, const T* __restrict__ tau, const T* __restrict__ partial,
                            const T* __restrict__ ypart, typename ra_trd_ops<T>::R* __restrict__ norms) {
    typedef ra_trd_ops<T> O;
    typedef typename O::R R;
    __shared__ T ys[2 * RA_TRD_NB_MAX];
    __shared__ T red[RA_TRD_THREADS];
    __shared__ T redu[RA_TRD_THREADS];
    __shared__ T wsum[3 * RA_TRD_WARPS];
    ra_dependent_grid_enter();
    const ra_i64 m = n - k - 1;
    const ra_i64 base = (ra_i64)blockIdx.x * RA_TRD_TILE;
    if (base >= m) return;
    const int t = (int)threadIdx.x;
    const int lane = t % RA_TRD_TILE, g = t / RA_TRD_TILE;
    const T zero = O::make(R(0), R(0));
    const T one = O::make(R(1), R(0));
    const ra_i64 nt = (m + RA_TRD_TILE - 1) / RA_TRD_TILE;
    const ra_i64 kn = k + 1;
    T* x = a + (k + 1) + k * lda;
    T* an = a + kn + kn * lda;
    const ra_i64 r = base + lane;
    const ra_i64 i = kn + r;
    const bool mine = r < m;
    const int outs = (int)(2 * c);
    const T tk = tau[k];
    const T sc = scale[0];

    // the independent loads first, all in flight together (a load whose value is added before the
    // next is issued waits): the first batch of each sum (the panel products' partials, output q
    // from partials I = part, part + parts, ...; the block dots; row 0's slots; this row's slots),
    // the panel columns' elements, x and the next column's element
    constexpr int SB = sizeof(T) > 8 ? 8 : 16;
    const int parts = outs > 0 ? RA_TRD_THREADS / outs : 1;  // >= 2: outs <= 2 RA_TRD_NB_MAX
    const int q = outs > 0 ? t % outs : 0, part = outs > 0 ? t / outs : 0;
    const ra_i64 ny = outs > 0 && part < parts ? ra_trd_strided_count(part, nt, parts) : 0;
    const ra_i64 nd = ra_trd_strided_count(t, nsymv, RA_TRD_THREADS);
    const ra_i64 nw = next ? ra_trd_strided_count(t, nt, RA_TRD_THREADS) : 0;
    const ra_i64 ns = mine ? ra_trd_strided_count(g, nt, RA_TRD_GROUPS) : 0;
    auto fy = [&](ra_i64 e) { return ypart[(part + e * parts) * outs + q]; };
    auto fd = [&](ra_i64 e) { return dotp[t + e * RA_TRD_THREADS]; };
    auto fw = [&](ra_i64 e) { return partial[(t + e * RA_TRD_THREADS) * m]; };
    auto fs = [&](ra_i64 e) { return partial[(g + e * RA_TRD_GROUPS) * m + r]; };
    T by[SB], bd[4], bw[4], bs[SB];
    ra_trd_load_batch(by, 0, ny, zero, fy);
    ra_trd_load_batch(bd, 0, nd, zero, fd);
    ra_trd_load_batch(bw, 0, nw, zero, fw);
    ra_trd_load_batch(bs, 0, ns, zero, fs);
    // this row's V and W elements of the group's panel columns g, g + GROUPS, ... and row kn's of
    // column t, kept for the corrections after the barrier (no second load round)
    constexpr int JS = RA_TRD_NB_MAX / RA_TRD_GROUPS;
    T va[JS], vw[JS];
#pragma unroll
    for (int it = 0; it < JS; ++it) {
        const ra_i64 j = g + it * RA_TRD_GROUPS;
        const bool use = mine && j < c;
        va[it] = use ? a[i + (j0 + j) * lda] : zero;
        vw[it] = use ? W[i + j * n] : zero;
    }
    const bool row0 = next && t < c;
    const T va0 = row0 ? a[kn + (j0 + t) * lda] : zero;
    const T vw0 = row0 ? W[kn + t * n] : zero;
    T xv = zero, anv = zero;
    if (g == 0 && mine) {
        xv = x[r];
        if (next) anv = an[r];
    }
    const T ysp = ra_trd_fold_batched<SB>(ra_trd_add_batch(zero, by, ra_op_sum()), ny, zero, fy, ra_op_sum(), SB);
    T dp = ra_trd_fold_batched<4>(ra_trd_add_batch(zero, bd, ra_op_sum()), nd, zero, fd, ra_op_sum(), 4);
    T w0p = ra_trd_fold_batched<4>(ra_trd_add_batch(zero, bw, ra_op_sum()), nw, zero, fw, ra_op_sum(), 4);
    const T s = ra_trd_fold_batched<SB>(ra_trd_add_batch(zero, bs, ra_op_sum()), ns, zero, fs, ra_op_sum(), SB);
    T u = zero;
    if (mine) {
        if (next) {
#pragma unroll
            for (int it = 0; it < JS; ++it) {
                const ra_i64 j = g + it * RA_TRD_GROUPS;
                if (j < c) u = u + va[it] * O::conj(W[kn + j * n]) + vw[it] * O::conj(a[kn + (j0 + j) * lda]);
            }
        }
    }
    red[t] = ysp;
    redu[t] = u;
    dp = ra_warp_reduce(dp, ra_op_sum());
    w0p = ra_warp_reduce(w0p, ra_op_sum());
    if (ra_lane_id() == 0) {
        wsum[ra_warp_id()] = dp;
        wsum[RA_TRD_WARPS + ra_warp_id()] = w0p;
    }
    __syncthreads();
    if (t < outs) {
        const int parts = RA_TRD_THREADS / outs;
        T total = zero;
        for (int p = 0; p < parts; ++p) total = total + red[t + p * outs];
        ys[t] = total;
    }
    T d = zero, w0raw = zero;
    for (int w = 0; w < RA_TRD_WARPS; ++w) {
        d = d + wsum[w];
        w0raw = w0raw + wsum[RA_TRD_WARPS + w];
    }
    __syncthreads();  // ys complete; red free
    // the corrections V (W^H v) + W (V^H v): this row's by its group, row 0's spread over the block
    T corr = zero;
    if (mine) {
#pragma unroll
        for (int it = 0; it < JS; ++it) {
            const ra_i64 j = g + it * RA_TRD_GROUPS;
            if (j < c) corr = corr + va[it] * ys[j] + vw[it] * ys[c + j];
        }
    }
    red[t] = s - corr;
    T c0p = zero;
    if (row0) c0p = c0p + va0 * ys[t] + vw0 * ys[c + t];
    c0p = ra_warp_reduce(c0p, ra_op_sum());
    if (ra_lane_id() == 0) wsum[2 * RA_TRD_WARPS + ra_warp_id()] = c0p;
    for (ra_i64 j = 0; j < c; ++j) d = d - O::conj(ys[j]) * ys[c + j] - O::conj(ys[c + j]) * ys[j];
    __syncthreads();
    const T alpha = R(-0.5) * (tk * (O::conj(tk) * d));
    T c0 = zero;
    for (int w = 0; w < RA_TRD_WARPS; ++w) c0 = c0 + wsum[2 * RA_TRD_WARPS + w];
    const T w0 = tk * (w0raw - c0) + alpha;
    R big = R(0);
    T nv = zero;
    if (g == 0 && mine) {
        T total = zero, un = zero;
        for (int q = 0; q < RA_TRD_GROUPS; ++q) {
            total = total + red[lane + q * RA_TRD_TILE];
            un = un + redu[lane + q * RA_TRD_TILE];
        }
        const T v = r == 0 ? one : sc * xv;
        const T wf = tk * total + alpha * v;
        W[i + c * n] = wf;
        x[r] = v;
        if (next) {
            nv = anv - v * O::conj(w0) - wf - un;
            an[r] = nv;
            if (r >= 2) big = ra_trd_nanmax<R>(fabs(O::re(nv)), fabs(O::im(nv)));
        }
    }
    // the norm partials of column k + 1 over this block's rows, from warp 0's registers
    if (next && t < RA_WARP_SIZE) {
        big = ra_warp_reduce(big, ra_trd_nanmax_op());
        R ssq = R(0);
        if (big > R(0) && g == 0 && mine && r >= 2) ssq = O::abs2((R(1) / big) * nv);
        ssq = ra_warp_reduce(ssq, ra_op_sum());
        if (t == 0) {
            norms[2 * blockIdx.x] = big;
            norms[2 * blockIdx.x + 1] = ssq;
        }
    }
}
