// rocsolver LU of mid-size matrices, one matrix per block with the matrix in registers
// (rocarray/rocsolver/_lu_block.py).
//
// ra_rocsolver_getrf_block<T, M, SOLVE>: LAPACK's getf2 (right-looking LU with partial pivoting)
// of one n x n matrix per block, n <= M * SIDE, and with SOLVE the solution of A X = B for up to
// SIDE right-hand sides in the same launch (LAPACK's gesv).
//
// Layout. The block is a SIDE x SIDE grid of threads: thread (tr, tc) = threadIdx.x % SIDE,
// threadIdx.x / SIDE, so that a thread column is SIDE consecutive lanes of one warp. Thread
// (tr, tc) keeps the elements (a * SIDE + tr, c * SIDE + tc), a, c < M, of the matrix in its
// registers v[a][c] (a cyclic distribution: every thread has work until the trailing matrix is
// smaller than SIDE). With SOLVE a further register column v[a][M] holds rows a * SIDE + tr of
// right-hand side tc, so the row interchanges and the elimination below the diagonal reach B as
// columns of the augmented matrix [A | B]. Step j = b * SIDE + t of the elimination is the
// compile-time register column b of thread column t: the loop over b is unrolled, the loop over
// t is not, so every register array is indexed only by compile-time indices and stays in
// registers; the row interchange's data-dependent register row goes through a compile-time
// compare chain. Elements past n (the tile's padding) start at zero, never take part in a pivot
// search and are never written.
//
// Step j (ra_rocsolver_getrf_block: one barrier; ra_rocsolver_getrf_block_2sync, the way back:
// two):
//  A. The warp holding thread column t reduces (|re| + |im|, row) over register column b
//     (rows j .. n-1; xor shuffles within the SIDE lanes of a thread column): column j's pivot,
//     the first row p of largest |re| + |im| (NaN never wins; only NaN in the column keeps
//     row j); the pivot and its reciprocal come from the lane that holds row p. Thread column t
//     then publishes column j with rows j and p interchanged, p, and how the column is scaled
//     (LAPACK's rule: by the pivot's reciprocal where that is finite, else by division, which
//     this warp does itself; not at all when the pivot is zero).
//  B. After the barrier every thread reads p. Rows j and p of thread column tc are held by
//     its thread rows t and p % SIDE: SIDE consecutive lanes of one warp. One barrier: each
//     thread column exchanges them with shuffles (register row p / SIDE picked by a uniform
//     branch) and broadcasts the new row j (the update's u) to its lanes. Two barriers: the
//     thread row holding row p publishes it (the new row j), and, when p != j, the one holding
//     row j publishes row j, through shared memory; the exchange and u follow a second barrier.
//  C. Rows j and p are exchanged in every register column (the one-barrier step with SOLVE: from
//     register column b on, L being dead; column j is then rewritten), every thread scales the
//     multipliers of its rows (thread column t keeps them, with the pivot, as column j), and
//     unless the pivot is zero applies the rank-1 update v -= l u to its elements right of and
//     below (j, j). The published column, p and the published rows are
//     double-buffered by the parity of j: step j + 2 rewrites them only after the barrier(s) of
//     step j + 1, which no thread passes before finishing step j. No barrier separates C from
//     the next step's A: the warp holding column j + 1 searches its pivot as soon as its own
//     update is done, while the other warps still update.
// info = the first j + 1 whose pivot is exactly zero, else 0 (the factorization completes).
//
// Without SOLVE the factors and pivots (ipiv 1-based) are written to F (column-major, leading
// dimension ldf, matrix b at b * strideF; F may be A itself) and ipiv. With SOLVE nothing but X
// and info is written: the factors go to shared memory, and warp w solves U x = y for right-hand
// sides w, w + warps, ... with lane l holding rows q * RA_WARP_SIZE + l (one shuffle per row:
// x_k = y_k * (1 / U(k, k)), the reciprocals computed up front).
//
// A is read through element strides (row, column, matrix): a C-ordered stack is (n, 1, n * n), a
// column-major one (1, lda, strideA); negative and zero (broadcast) strides work. It is staged in
// shared memory (leading dimension n + 1: conflict-free for row- and column-fast reads) by a copy
// whose lanes follow the faster-moving index of the input. B and X have element strides too.
// Offsets are 64-bit.

#define RA_LU_BLOCK_SIDE 16
#define RA_LU_BLOCK_THREADS (RA_LU_BLOCK_SIDE * RA_LU_BLOCK_SIDE)
#define RA_LU_BLOCK_NO_ROW 0x7fffffff
// how a step scales column j: not at all (zero pivot), by the reciprocal, or by division
#define RA_LU_BLOCK_PIVOT_ZERO 0
#define RA_LU_BLOCK_PIVOT_RECIP 1
#define RA_LU_BLOCK_PIVOT_DIVIDE 2

template <typename T> struct ra_lub_real { typedef T type; };
template <typename R> struct ra_lub_real<ra_complex<R> > { typedef R type; };

RA_DEVICE float ra_lub_abs1(float a) { return ra_abs(a); }
RA_DEVICE double ra_lub_abs1(double a) { return ra_abs(a); }
template <typename R> RA_DEVICE R ra_lub_abs1(ra_complex<R> a) { return ra_abs(a.re) + ra_abs(a.im); }

RA_DEVICE bool ra_lub_is_zero(float a) { return a == 0.0f; }
RA_DEVICE bool ra_lub_is_zero(double a) { return a == 0.0; }
template <typename R> RA_DEVICE bool ra_lub_is_zero(ra_complex<R> a) { return a.re == R(0) && a.im == R(0); }

template <typename T> RA_DEVICE T ra_lub_zero() { return T(0); }
template <> RA_DEVICE ra_c64 ra_lub_zero<ra_c64>() { return ra_make_complex<float>(0.0f, 0.0f); }
template <> RA_DEVICE ra_c128 ra_lub_zero<ra_c128>() { return ra_make_complex<double>(0.0, 0.0); }
template <typename T> RA_DEVICE T ra_lub_one() { return T(1); }
template <> RA_DEVICE ra_c64 ra_lub_one<ra_c64>() { return ra_make_complex<float>(1.0f, 0.0f); }
template <> RA_DEVICE ra_c128 ra_lub_one<ra_c128>() { return ra_make_complex<double>(1.0, 0.0); }

// LAPACK's safe minimum: 1 / sfmin does not overflow
RA_DEVICE float ra_lub_sfmin(float) { return 1.17549435e-38f; }
RA_DEVICE double ra_lub_sfmin(double) { return 2.2250738585072014e-308; }

// c - a * b
RA_DEVICE float ra_lub_fms(float a, float b, float c) { return ra_fma(-a, b, c); }
RA_DEVICE double ra_lub_fms(double a, double b, double c) { return ra_fma(-a, b, c); }
template <typename R> RA_DEVICE ra_complex<R> ra_lub_fms(ra_complex<R> a, ra_complex<R> b, ra_complex<R> c) {
    return ra_make_complex<R>(ra_fma(-a.re, b.re, ra_fma(a.im, b.im, c.re)),
                              ra_fma(-a.re, b.im, ra_fma(-a.im, b.re, c.im)));
}

RA_DEVICE float ra_lub_mul(float a, float b) { return a * b; }
RA_DEVICE double ra_lub_mul(double a, double b) { return a * b; }
template <typename R> RA_DEVICE ra_complex<R> ra_lub_mul(ra_complex<R> a, ra_complex<R> b) { return a * b; }

// a / b; complex by Smith's algorithm
RA_DEVICE float ra_lub_div(float a, float b) { return a / b; }
RA_DEVICE double ra_lub_div(double a, double b) { return a / b; }
template <typename R> RA_DEVICE ra_complex<R> ra_lub_div(ra_complex<R> a, ra_complex<R> b) {
    if (ra_abs(b.re) >= ra_abs(b.im)) {
        const R r = b.im / b.re, d = b.re + b.im * r;
        return ra_make_complex<R>((a.re + a.im * r) / d, (a.im - a.re * r) / d);
    }
    const R r = b.re / b.im, d = b.im + b.re * r;
    return ra_make_complex<R>((a.re * r + a.im) / d, (a.im * r - a.re) / d);
}

// (v, i, x) := the better of it and (v2, i2, x2): larger value, then lower row; NaN never wins
template <typename R, typename T>
RA_DEVICE void ra_lub_better(R& v, int& i, T& x, R v2, int i2, T x2) {
    if (v2 > v || (v2 == v && i2 < i)) {
        v = v2;
        i = i2;
        x = x2;
    }
}

// (v, i) := the better of it and (v2, i2), as ra_lub_better without the value
template <typename R> RA_DEVICE void ra_lub_better_row(R& v, int& i, R v2, int i2) {
    if (v2 > v || (v2 == v && i2 < i)) {
        v = v2;
        i = i2;
    }
}

template <typename T> RA_DEVICE T* ra_lub_shared() {
    extern __shared__ ra_u64 ra_lub_smem[];
    return reinterpret_cast<T*>(ra_align_shared<16>(reinterpret_cast<unsigned char*>(ra_lub_smem)));
}

// dst (rows x cols, column-major, leading dimension ldd) := src through element strides; the
// lanes walk the index whose stride is smaller, so the global reads coalesce, and each thread
// issues CHUNK loads before their stores so that they are in flight together
template <typename T>
RA_DEVICE void ra_lub_stage(int rows, int cols, const T* src, ra_i64 rs, ra_i64 cs, T* dst, int ldd) {
    constexpr int CHUNK = 16;
    const int total = rows * cols;
    const bool rows_fast = (rs < 0 ? -rs : rs) <= (cs < 0 ? -cs : cs);
    const int fast = rows_fast ? rows : cols;
    // element e = f + s * fast; (f, s) stepped by RA_LU_BLOCK_THREADS without a division per element
    const int df = RA_LU_BLOCK_THREADS % fast, ds = RA_LU_BLOCK_THREADS / fast;
    int f = (int)threadIdx.x % fast, sl = (int)threadIdx.x / fast;
    for (int e0 = threadIdx.x; e0 < total; e0 += CHUNK * RA_LU_BLOCK_THREADS) {
        T x[CHUNK];
        int at[CHUNK];
#pragma unroll
        for (int k = 0; k < CHUNK; ++k) {
            const int i = rows_fast ? f : sl, j = rows_fast ? sl : f;
            at[k] = e0 + k * RA_LU_BLOCK_THREADS < total ? i + j * ldd : -1;
            if (at[k] >= 0) x[k] = src[(ra_i64)i * rs + (ra_i64)j * cs];
            f += df;
            sl += ds;
            if (f >= fast) {
                f -= fast;
                ++sl;
            }
        }
#pragma unroll
        for (int k = 0; k < CHUNK; ++k)
            if (at[k] >= 0) dst[at[k]] = x[k];
    }
}

// the body of both kernels: XCHG selects the one-barrier step (interchange by shuffles)
template <typename T, int M, bool SOLVE, bool XCHG>
RA_DEVICE void ra_lub_getrf(
    int n, int nrhs, const T* A, ra_i64 a_rs, ra_i64 a_cs, ra_i64 a_bs, T* F, ra_i64 ldf, ra_i64 strideF,
    int* __restrict__ ipiv, ra_i64 strideP, int* __restrict__ info, const T* __restrict__ B, ra_i64 b_rs,
    ra_i64 b_cs, ra_i64 b_bs, T* __restrict__ X, ra_i64 x_rs, ra_i64 x_cs, ra_i64 x_bs) {
    typedef typename ra_lub_real<T>::type R;
    constexpr int S = RA_LU_BLOCK_SIDE;
    constexpr int N = M * S;                  // rows and columns of the register tile
    constexpr int MC = SOLVE ? M + 1 : M;     // register columns: the matrix's, then B's
    __shared__ T lbuf[2][N];                  // column j after the interchange, by row
    __shared__ T spiv[2];                     // the pivot's reciprocal
    __shared__ T urow[2][MC * S];             // the new row j (old row p), by column
    __shared__ T jrow[2][MC * S];             // the old row j, by column
    __shared__ int pbuf[2][2];                // p, and the pivot's kind (RA_LU_BLOCK_PIVOT_*)
    const ra_i64 mat = blockIdx.x;
    const int tid = threadIdx.x;
    const int tr = tid % S, tc = tid / S;
    const int seg = ra_lane_id() - tr;        // first lane of this thread column
    const int ld = n + 1;
    T* sA = ra_lub_shared<T>();
    const T zero = ra_lub_zero<T>();

    ra_lub_stage(n, n, A + mat * a_bs, a_rs, a_cs, sA, ld);
    __syncthreads();
    // the register tile: compile-time indices only (fully unrolled loops)
    T v[M][MC];
#pragma unroll
    for (int a = 0; a < M; ++a) {
        const int row = a * S + tr;
#pragma unroll
        for (int c = 0; c < M; ++c) {
            const int col = c * S + tc;
            v[a][c] = row < n && col < n ? sA[row + col * ld] : zero;
        }
        if (SOLVE) v[a][MC - 1] = row < n && tc < nrhs ? B[mat * b_bs + row * b_rs + tc * b_cs] : zero;
    }

    int bad = 0;  // info
#pragma unroll
    for (int b = 0; b < M; ++b) {
        for (int t = 0; t < S; ++t) {
            const int j = b * S + t;
            if (j >= n) break;
            const int par = t & 1;
            // A: column j's pivot and multipliers, by the warp that holds thread column t
            if (ra_warp_id() == t * S / RA_WARP_SIZE) {
                // two independent chains over the register rows (half the dependent compares),
                // then merged: "larger, then lower row" is a total order once NaN is kept out
                R best = R(-1), best2 = R(-1);
                int brow = RA_LU_BLOCK_NO_ROW, brow2 = RA_LU_BLOCK_NO_ROW;
                T bval = zero, bval2 = zero;
#pragma unroll
                for (int a = b; a < M; ++a) {
                    const int row = a * S + tr;
                    if ((a > b || row >= j) && row < n) {
                        if ((a - b) % 2 == 0) ra_lub_better(best, brow, bval, ra_lub_abs1(v[a][b]), row, v[a][b]);
                        else ra_lub_better(best2, brow2, bval2, ra_lub_abs1(v[a][b]), row, v[a][b]);
                    }
                }
                ra_lub_better(best, brow, bval, best2, brow2, bval2);
                // every lane's candidate reciprocal, independent of the reduction's shuffles
                // (the winner's is taken after it: the division's latency hides behind them)
                const T rloc = ra_lub_div(ra_lub_one<T>(), bval);
                // the reduction moves (magnitude, row) only: the winning row's lane has it as its
                // own candidate, so its value and reciprocal come from that lane afterwards
#pragma unroll
                for (int m = S / 2; m > 0; m >>= 1) {
                    const R v2 = ra_shfl_xor(best, m);
                    const int i2 = ra_shfl_xor(brow, m);
                    ra_lub_better_row(best, brow, v2, i2);
                }
                const int from = seg + (brow == RA_LU_BLOCK_NO_ROW ? t : brow % S);
                const T ajj = ra_shfl(v[b][b], seg + t);  // row j's element of this thread column
                const T wval = ra_shfl(bval, from);
                const T rwin = ra_shfl(rloc, from);
                if (tc == t) {
                    // column j after the interchange of rows j and p. LAPACK's rule: scale by
                    // the reciprocal where it is finite (every thread does that for the rows it
                    // needs after the barrier, so this warp's chain ends with the stores), else
                    // divide (here: rare); a zero pivot leaves the column as it is
                    const int p = brow == RA_LU_BLOCK_NO_ROW ? j : brow;
                    const T piv = brow == RA_LU_BLOCK_NO_ROW ? ajj : wval;
                    const int kind = ra_lub_is_zero(piv) ? RA_LU_BLOCK_PIVOT_ZERO
                                     : ra_lub_abs1(piv) >= ra_lub_sfmin(R(0)) ? RA_LU_BLOCK_PIVOT_RECIP
                                                                               : RA_LU_BLOCK_PIVOT_DIVIDE;
                    T x[M];
#pragma unroll
                    for (int a = b; a < M; ++a) {
                        const int row = a * S + tr;
                        x[a] = v[a][b];
                        if (row == p) x[a] = ajj;
                        if (row == j) x[a] = piv;
                    }
                    if (kind == RA_LU_BLOCK_PIVOT_DIVIDE) {
#pragma unroll
                        for (int a = b; a < M; ++a)
                            if (a > b || a * S + tr > j) x[a] = ra_lub_div(x[a], piv);
                    }
#pragma unroll
                    for (int a = b; a < M; ++a) lbuf[par][a * S + tr] = x[a];
                    if (tr == 0) {
                        pbuf[par][0] = p;
                        pbuf[par][1] = kind;
                        spiv[par] = rwin;  // 1 / piv (used only with RA_LU_BLOCK_PIVOT_RECIP)
                        if (!SOLVE) ipiv[mat * strideP + j] = p + 1;
                    }
                }
            }
            __syncthreads();
            const int p = pbuf[par][0];
            const int kind = pbuf[par][1];
            const bool is_zero = kind == RA_LU_BLOCK_PIVOT_ZERO;
            if (is_zero && bad == 0) bad = j + 1;
            const int tp = p % S, ap = p / S;
            T u[MC];  // the new row j (old row p), columns c >= b: the update's u
            if (XCHG) {
                // B': rows j and p of thread column tc are in its own S lanes (thread rows t and
                // tp, one warp), so the interchange and u move by shuffles, with no publication
                // and no second barrier (for p == j every move below leaves row j as it is).
                // With SOLVE the columns left of register column b (L, which only getrf returns)
                // are not interchanged.
                const int c0 = SOLVE ? b : 0;
                // in two halves of the register columns, so that only half a row of w is live
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int lo = h == 0 ? c0 : (c0 + MC) / 2, hi = h == 0 ? (c0 + MC) / 2 : MC;
                    // w := this thread row's register row ap (the block's: a uniform branch)
                    T w[MC];
#pragma unroll
                    for (int c = lo; c < hi; ++c) w[c] = v[b][c];
#pragma unroll
                    for (int a = b + 1; a < M; ++a) {
                        if (a == ap) {
#pragma unroll
                            for (int c = lo; c < hi; ++c) w[c] = v[a][c];
                        }
                    }
#pragma unroll
                    for (int c = lo; c < hi; ++c) {
                        const T up = ra_shfl(w[c], seg + tp);     // row p, to every lane
                        const T uj = ra_shfl(v[b][c], seg + t);   // old row j
                        u[c] = up;
                        if (tr == t) v[b][c] = up;
                        w[c] = uj;
                    }
                    // old row j into register row ap of thread row tp (tp == t: ap != b, and the
                    // row-j registers were read before they were overwritten)
#pragma unroll
                    for (int a = b; a < M; ++a) {
                        if (a == ap) {
#pragma unroll
                            for (int c = lo; c < hi; ++c) v[a][c] = tr == tp ? w[c] : v[a][c];
                        }
                    }
                }
                // column j of thread column t (rows j and p included) is rewritten below
            } else {
                // B: publish the new row j (old row p) and, for an interchange, the old row j
                if (tr == tp) {
#pragma unroll
                    for (int a = b; a < M; ++a) {
                        if (a == ap) {
#pragma unroll
                            for (int c = 0; c < MC; ++c) urow[par][c * S + tc] = v[a][c];
                        }
                    }
                }
                if (p != j && tr == t) {
#pragma unroll
                    for (int c = 0; c < MC; ++c) jrow[par][c * S + tc] = v[b][c];
                }
                __syncthreads();
                // C: the interchange (column j is done), then the rank-1 update
                if (p != j) {
                    if (tr == t) {
#pragma unroll
                        for (int c = 0; c < MC; ++c)
                            if (c != b || tc != t) v[b][c] = urow[par][c * S + tc];
                    }
                    if (tr == tp) {
#pragma unroll
                        for (int a = b; a < M; ++a) {
                            if (a == ap) {
#pragma unroll
                                for (int c = 0; c < MC; ++c)
                                    if (c != b || tc != t) v[a][c] = jrow[par][c * S + tc];
                            }
                        }
                    }
                }
#pragma unroll
                for (int c = b; c < MC; ++c) u[c] = urow[par][c * S + tc];
            }
            // the multipliers (rows below j): column j scaled by the pivot's reciprocal, unless
            // A divided it already or the pivot is zero; thread column t's register column b
            // takes column j
            const bool by_recip = kind == RA_LU_BLOCK_PIVOT_RECIP;
            const T rpiv = spiv[par];
#pragma unroll
            for (int a = b; a < M; ++a) {
                const int row = a * S + tr;
                const T x = lbuf[par][row];
                const T l = by_recip ? ra_lub_mul(x, rpiv) : x;
                if (tc == t) {
                    if (row == j) v[a][b] = x;
                    else if (a > b || row > j) v[a][b] = l;
                }
                // (a > b, c > b: compile-time true; B's column c == M is right of column j)
                if (!is_zero && (a > b || row > j)) {
#pragma unroll
                    for (int c = b; c < MC; ++c) {
                        if (c > b || c * S + tc > j) v[a][c] = ra_lub_fms(l, u[c], v[a][c]);
                    }
                }
            }
        }
    }
    if (tid == 0) info[mat] = bad;

    if (!SOLVE) {
        T* f = F + mat * strideF;
#pragma unroll
        for (int a = 0; a < M; ++a) {
            const int row = a * S + tr;
#pragma unroll
            for (int c = 0; c < M; ++c) {
                const int col = c * S + tc;
                if (row < n && col < n) f[row + col * ldf] = v[a][c];
            }
        }
        return;
    }

    // U and y = L^-1 P B to shared memory (U over the staged copy of A, whose reads ended with
    // the loads before the first step's barriers), then back substitution one warp per column
    T* sY = sA + (ra_i64)ld * n;
#pragma unroll
    for (int a = 0; a < M; ++a) {
        const int row = a * S + tr;
        if (row < n) {
#pragma unroll
            for (int c = 0; c < M; ++c) {
                const int col = c * S + tc;
                if (col < n && col >= row) sA[row + col * ld] = v[a][c];
            }
            if (tc < nrhs) sY[row + tc * n] = v[a][MC - 1];
        }
    }
    __syncthreads();
    constexpr int W = RA_WARP_SIZE;
    constexpr int Q = (N + W - 1) / W;   // rows per lane
    const int lane = ra_lane_id();
    for (int r = ra_warp_id(); r < nrhs; r += RA_LU_BLOCK_THREADS / W) {
        T y[Q], d[Q];
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const int row = q * W + lane;
            y[q] = row < n ? sY[row + r * n] : zero;
            d[q] = row < n ? ra_lub_div(ra_lub_one<T>(), sA[row + row * ld]) : zero;
        }
#pragma unroll
        for (int q = Q - 1; q >= 0; --q) {
            for (int s = W - 1; s >= 0; --s) {
                const int k = q * W + s;
                if (k >= n) continue;
                const T xk = ra_shfl(ra_lub_mul(y[q], d[q]), s);
                if (lane == s) y[q] = xk;
#pragma unroll
                for (int qq = 0; qq <= q; ++qq) {
                    const int row = qq * W + lane;
                    if (row < k) y[qq] = ra_lub_fms(sA[row + k * ld], xk, y[qq]);
                }
            }
        }
        T* x = X + mat * x_bs + r * x_cs;
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const int row = q * W + lane;
            if (row < n) x[row * x_rs] = y[q];
        }
    }
}

// the one-barrier step (rows j and p exchanged by shuffles inside each thread column)
template <typename T, int M, bool SOLVE>
__global__ RA_LAUNCH_BOUNDS(RA_LU_BLOCK_THREADS) void ra_rocsolver_getrf_block(
    int n, int nrhs, const T* A, ra_i64 a_rs, ra_i64 a_cs, ra_i64 a_bs, T* F, ra_i64 ldf, ra_i64 strideF,
    int* __restrict__ ipiv, ra_i64 strideP, int* __restrict__ info, const T* __restrict__ B, ra_i64 b_rs,
    ra_i64 b_cs, ra_i64 b_bs, T* __restrict__ X, ra_i64 x_rs, ra_i64 x_cs, ra_i64 x_bs) {
    ra_lub_getrf<T, M, SOLVE, true>(n, nrhs, A, a_rs, a_cs, a_bs, F, ldf, strideF, ipiv, strideP, info, B, b_rs,
                                    b_cs, b_bs, X, x_rs, x_cs, x_bs);
}

// the two-barrier step (rows j and p published through shared memory): the way back
template <typename T, int M, bool SOLVE>
__global__ RA_LAUNCH_BOUNDS(RA_LU_BLOCK_THREADS) void ra_rocsolver_getrf_block_2sync(
    int n, int nrhs, const T* A, ra_i64 a_rs, ra_i64 a_cs, ra_i64 a_bs, T* F, ra_i64 ldf, ra_i64 strideF,
    int* __restrict__ ipiv, ra_i64 strideP, int* __restrict__ info, const T* __restrict__ B, ra_i64 b_rs,
    ra_i64 b_cs, ra_i64 b_bs, T* __restrict__ X, ra_i64 x_rs, ra_i64 x_cs, ra_i64 x_bs) {
    ra_lub_getrf<T, M, SOLVE, false>(n, nrhs, A, a_rs, a_cs, a_bs, F, ldf, strideF, ipiv, strideP, info, B, b_rs,
                                     b_cs, b_bs, X, x_rs, x_cs, x_bs);
}
