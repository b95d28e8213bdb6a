// rocsolver LU of mid-size matrices, one matrix per block with the matrix in registers
// (rocarray/rocsolver/_lu_block.py).
//
// ra_rocsolver_getrf_block<T, M, SOLVE>: LAPACK's getf2 (right-looking LU with partial pivoting)
// of one n x n matrix per block, n <= M * SIDE, and with SOLVE the solution of A X = B for up to
// SIDE right-hand sides in the same launch (LAPACK's gesv). ra_rocsolver_getrf_block_2sync<T, M,
// SOLVE> computes the same, bit for bit, with the two-barrier step below.
// ra_rocsolver_getrf_block_wide<T, N, SOLVE, LOOK> computes the same, bit for bit, for n <= N on
// RA_LU_WIDE_THREADS threads, a thread column being one whole warp (the layout below with SR =
// RA_WARP_SIZE, SC = RA_LU_WIDE_THREADS / RA_WARP_SIZE; up to SC right-hand sides): twice the
// warps of getrf_block in the same registers, each with a quarter of the pivot warp's update a
// step and a pivot search over fewer rows a lane, and consecutive columns on different warps.
// With LOOK, after the barrier of step j the warp holding column j + 1 interchanges and updates
// that register column first, searches and publishes the pivot of column j + 1 (into the buffers
// of parity j + 1, which every thread finished reading before that barrier), and only then
// updates the rest of its tile, which so runs behind the search; step j + 1 skips its search.
// Every element still sees the same operations in the same order.
// ra_rocsolver_getrf_block_wide_redux<T, N, SOLVE> is the plain step with the pivot search's warp
// reduction on integer keys by redux.sync (NVIDIA from sm_80; elsewhere the plain step): the same
// bits.
//
// Layout. The block is an SR x SC grid of threads (getrf_block: SIDE x SIDE): thread (tr, tc) =
// threadIdx.x % SR, threadIdx.x / SR, so that a thread column is SR consecutive lanes of one
// warp. Thread (tr, tc) keeps the elements (a * SR + tr, c * SC + tc), a < MR, c < MA, of the
// matrix in its registers v[a][c] (a cyclic distribution: every thread has work until the
// trailing matrix is smaller than SR x SC; N = MR * SR = MA * SC). With SOLVE a further register
// column v[a][MA] holds rows a * SR + tr of right-hand side tc, so the row interchanges and the
// elimination below the diagonal reach B as columns of the augmented matrix [A | B]. Step
// j = b * SC + t of the elimination is the compile-time register column b of thread column t,
// and its row j the register row a0 = b * SC / SR (SC divides SR) of thread row b * SC % SR + t:
// the loop over b is unrolled, the loop over t is not, so every register array is indexed only
// by compile-time indices and stays in registers (rows above register row a0 are skipped at
// compile time); the row interchange's data-dependent register row goes through a compile-time
// compare chain. Elements past n (the tile's padding) start at zero, never take part in a pivot
// search and are never written.
//
// Step j (ra_rocsolver_getrf_block and _wide: one barrier; ra_rocsolver_getrf_block_2sync: two;
// the launches pick one by _lu_block.ONE_BARRIER and _lu_block.WIDE):
//  A. The warp holding thread column t reduces (|re| + |im|, row) over register column b
//     (rows j .. n-1; xor shuffles within the SR lanes of a thread column): column j's pivot,
//     the first row p of largest |re| + |im| (NaN never wins; only NaN in the column keeps
//     row j); the pivot and its reciprocal come from the lane that holds row p. Thread column t
//     then publishes column j with rows j and p interchanged, p, and how the column is scaled
//     (LAPACK's rule: by the pivot's reciprocal where that is finite, else by division, which
//     this warp does itself; not at all when the pivot is zero).
//  B. After the barrier every thread reads p. Rows j and p of thread column tc are held by two
//     of its thread rows: SR consecutive lanes of one warp. One barrier: each thread column
//     exchanges them with shuffles (register row p / SR picked by a uniform branch) and
//     broadcasts the new row j (the update's u) to its lanes. Two barriers: the thread row
//     holding row p publishes it (the new row j), and, when p != j, the one holding row j
//     publishes row j, through shared memory; the exchange and u follow a second barrier.
//  C. Rows j and p are exchanged in every register column (the one-barrier step with SOLVE: from
//     register column b on, L being dead; column j is then rewritten), every thread scales the
//     multipliers of its rows (thread column t keeps them, with the pivot, as column j), and
//     unless the pivot is zero applies the rank-1 update v -= l u to its elements right of and
//     below (j, j). The published column, p and the published rows are
//     double-buffered by the parity of j: step j + 2 rewrites them only after the barrier(s) of
//     step j + 1, which no thread passes before finishing step j. No barrier separates C from
//     the next step's A: the warp holding column j + 1 searches its pivot as soon as its own
//     update is done, while the other warps still update.
// The flow step (ra_rocsolver_getrf_block_wide_flow: the look-ahead step, FLOW) has no barrier:
// the warp that publishes column j's pivot then raises a count in shared memory (sready > j), and
// a warp starts step j once it reads it. Its publications take four buffers by j % 4; each warp
// counts the steps it has finished (sdone), and the warp that publishes into buffer (j + 1) % 4
// first waits until every warp has finished step j - 3, that buffer's last reader.
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
#define RA_LU_WIDE_THREADS 512
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

// how a step with pivot piv scales its column (RA_LU_BLOCK_PIVOT_*)
template <typename T> RA_DEVICE int ra_lub_pivot_kind(T piv) {
    typedef typename ra_lub_real<T>::type R;
    return ra_lub_is_zero(piv) ? RA_LU_BLOCK_PIVOT_ZERO
           : ra_lub_abs1(piv) >= ra_lub_sfmin(R(0)) ? RA_LU_BLOCK_PIVOT_RECIP
                                                     : RA_LU_BLOCK_PIVOT_DIVIDE;
}

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

// Whether the pivot search's warp reduction can take redux.sync (NVIDIA from sm_80); elsewhere
// ra_lub_redux_argmax's reductions would be butterflies, slower than ra_lub_better_row's rounds.
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
#define RA_LUB_REDUX 1
#else
#define RA_LUB_REDUX 0
#endif

// row := the warp's best candidate row (largest magnitude best, then lowest row; best is a
// magnitude, never NaN, or -1 with row RA_LU_BLOCK_NO_ROW for none), in every lane: the result of
// ra_lub_better_row's xor rounds, by 32-bit max/min reductions (redux.sync where RA_LUB_REDUX) on
// integer keys: a magnitude's bits plus one (0 for none) order as its value does
RA_DEVICE void ra_lub_redux_argmax(float best, int& row) {
    const ra_u32 m = best >= 0.0f ? __float_as_uint(best) + 1u : 0u;
    const ra_u32 top = ra_warp_max_u32(m);
    row = (int)ra_warp_min_u32(m == top ? (ra_u32)row : (ra_u32)RA_LU_BLOCK_NO_ROW);
}
RA_DEVICE void ra_lub_redux_argmax(double best, int& row) {
    const unsigned long long m = best >= 0.0 ? (unsigned long long)__double_as_longlong(best) + 1ull : 0ull;
    const ra_u32 mh = (ra_u32)(m >> 32), ml = (ra_u32)m;
    const ra_u32 hi = ra_warp_max_u32(mh);
    const ra_u32 lo = ra_warp_max_u32(mh == hi ? ml : 0u);
    row = (int)ra_warp_min_u32(mh == hi && ml == lo ? (ra_u32)row : (ra_u32)RA_LU_BLOCK_NO_ROW);
}

// The flow step's waits (ra_rocsolver_getrf_block_wide_flow): a warp that waits for another's
// publication lets the others issue (and the emulator's fibers switch) between two reads.
#ifndef RA_LUB_FLOW_NAP
#define RA_LUB_FLOW_NAP 0
#endif
RA_DEVICE void ra_lub_pause() {
#if defined(RA_HIP)
    __builtin_amdgcn_s_sleep(1);
#else
    __nanosleep(RA_LUB_FLOW_NAP);
#endif
}

// Waits until *count >= target (a count another warp of the block raises), then orders this
// thread's later shared-memory reads after what was published before the raise.
RA_DEVICE void ra_lub_wait_count(const volatile int* count, int target) {
    while (*count < target) ra_lub_pause();
    __threadfence_block();
}

// *count := value once the whole warp's earlier shared-memory accesses are ordered before it
// (the warp's barrier, then the fence that lane 0's write releases them with).
RA_DEVICE void ra_lub_raise_count(volatile int* count, int value) {
    ra_warp_sync();
    __threadfence_block();
    if (ra_lane_id() == 0) *count = value;
}

template <typename T> RA_DEVICE T* ra_lub_shared() {
    extern __shared__ ra_u64 ra_lub_smem[];
    return reinterpret_cast<T*>(ra_align_shared<16>(reinterpret_cast<unsigned char*>(ra_lub_smem)));
}

// dst (rows x cols, column-major, leading dimension ldd) := src through element strides, by the
// threads gt = 0 .. GT - 1 (a block's or a crew's); the lanes walk the index whose stride is
// smaller, so the global reads coalesce, and each thread issues CHUNK loads before their stores so
// that they are in flight together
template <typename T, int GT, int CHUNK>
RA_DEVICE void ra_lub_stage_by(int gt, int rows, int cols, const T* src, ra_i64 rs, ra_i64 cs, T* dst, int ldd) {
    const int total = rows * cols;
    const bool rows_fast = (rs < 0 ? -rs : rs) <= (cs < 0 ? -cs : cs);
    const int fast = rows_fast ? rows : cols;
    // element e = f + s * fast; (f, s) stepped by GT without a division per element
    const int df = GT % fast, ds = GT / fast;
    int f = gt % fast, sl = gt / fast;
    for (int e0 = gt; e0 < total; e0 += CHUNK * GT) {
        T x[CHUNK];
        int at[CHUNK];
#pragma unroll
        for (int k = 0; k < CHUNK; ++k) {
            const int i = rows_fast ? f : sl, j = rows_fast ? sl : f;
            at[k] = e0 + k * GT < total ? i + j * ldd : -1;
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

// ra_lub_stage_by over the whole block (by default 4096 loads in flight a block: fewer a thread
// for wider blocks, whose threads have fewer registers)
template <typename T, int THREADS = RA_LU_BLOCK_THREADS, int CHUNK = 4096 / THREADS>
RA_DEVICE void ra_lub_stage(int rows, int cols, const T* src, ra_i64 rs, ra_i64 cs, T* dst, int ldd) {
    ra_lub_stage_by<T, THREADS, CHUNK>((int)threadIdx.x, rows, cols, src, rs, cs, dst, ldd);
}

// U(row, col) of an upper triangle held column-major in one array
template <typename T> struct ra_lub_upper {
    const T* a;
    int ld;
    RA_DEVICE T operator()(int row, int col) const { return a[row + col * ld]; }
};

// X := U^-1 Y for the n x n upper triangle U (U(row, col) its elements, read from shared memory)
// and the n x nrhs matrix Y (shared, leading dimension ldy): warp w solves right-hand sides w,
// w + warps, ... with lane l holding rows q * RA_WARP_SIZE + l (one shuffle per row: x_k = y_k *
// (1 / U(k, k)), the reciprocals computed up front); X is written through element strides. N
// bounds n.
template <typename T, int N, int THREADS, typename Upper>
RA_DEVICE void ra_lub_back_substitute_by(int n, int nrhs, Upper U, const T* sY, int ldy, T* X, ra_i64 x_rs,
                                         ra_i64 x_cs) {
    constexpr int W = RA_WARP_SIZE;
    constexpr int Q = (N + W - 1) / W;   // rows per lane
    const T zero = ra_lub_zero<T>();
    const int lane = ra_lane_id();
    for (int r = ra_warp_id(); r < nrhs; r += THREADS / W) {
        T y[Q], d[Q];
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const int row = q * W + lane;
            y[q] = row < n ? sY[row + r * ldy] : zero;
            d[q] = row < n ? ra_lub_div(ra_lub_one<T>(), U(row, row)) : zero;
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
                    if (row < k) y[qq] = ra_lub_fms(U(row, k), xk, y[qq]);
                }
            }
        }
        T* x = X + r * x_cs;
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const int row = q * W + lane;
            if (row < n) x[row * x_rs] = y[q];
        }
    }
}

// the same with U in one array (leading dimension ld)
template <typename T, int N, int THREADS = RA_LU_BLOCK_THREADS>
RA_DEVICE void ra_lub_back_substitute(int n, int nrhs, const T* sA, int ld, const T* sY, int ldy, T* X,
                                      ra_i64 x_rs, ra_i64 x_cs) {
    ra_lub_back_substitute_by<T, N, THREADS>(n, nrhs, ra_lub_upper<T>{sA, ld}, sY, ldy, X, x_rs, x_cs);
}

// the body of every register-tile kernel: an SR x SC grid of threads, each with an MR x MA tile
// (see the head of the file); XCHG selects the one-barrier step (interchange by shuffles)
template <typename T, int SR, int SC, int MR, int MA, bool SOLVE, bool XCHG, bool LOOK, bool REDUX = false,
          bool FLOW = false>
RA_DEVICE void ra_lub_getrf(
    int n, int nrhs, const T* A, ra_i64 a_rs, ra_i64 a_cs, ra_i64 a_bs, T* F, ra_i64 ldf, ra_i64 strideF,
    int* __restrict__ ipiv, ra_i64 strideP, int* __restrict__ info, const T* __restrict__ B, ra_i64 b_rs,
    ra_i64 b_cs, ra_i64 b_bs, T* __restrict__ X, ra_i64 x_rs, ra_i64 x_cs, ra_i64 x_bs) {
    typedef typename ra_lub_real<T>::type R;
    constexpr int THREADS = SR * SC;
    constexpr int N = MR * SR;                // rows and columns of the register tile
    constexpr int MC = SOLVE ? MA + 1 : MA;   // register columns: the matrix's, then B's
    static_assert(MA * SC == N, "the register tile covers a square");
    static_assert(RA_WARP_SIZE % SR == 0, "a thread column lies within one warp");
    // then the rows b * SC .. b * SC + SC - 1 (the diagonal of register column b's steps) lie in
    // one register row, (b * SC) / SR, and t has the parity of j
    static_assert(SR % SC == 0 && SC % 2 == 0, "SC divides SR and is even");
    static_assert(!LOOK || (XCHG && SR == RA_WARP_SIZE), "the look-ahead takes a warp a thread column");
    static_assert(!REDUX || SR == RA_WARP_SIZE, "the warp argmax takes a warp a thread column");
    static_assert(!FLOW || LOOK, "the flow step is the look-ahead step without its barrier");
    // a step's publication: two buffers by the parity of j behind a barrier a step; with FLOW
    // four by j % 4, rewritten only once every thread column counts the step four back done
    constexpr int NBUF = FLOW ? 4 : 2;
    __shared__ T lbuf[NBUF][N];               // column j after the interchange, by row
    __shared__ T spiv[NBUF];                  // the pivot's reciprocal
    __shared__ T urow[2][MC * SC];            // the new row j (old row p), by column
    __shared__ T jrow[2][MC * SC];            // the old row j, by column
    __shared__ int pbuf[NBUF][2];             // p, and the pivot's kind (RA_LU_BLOCK_PIVOT_*)
    __shared__ int sready;                    // FLOW: pivots published (column j's: sready > j)
    __shared__ int sdone[SC];                 // FLOW: steps a thread column has finished
    const ra_i64 mat = blockIdx.x;
    const int tid = threadIdx.x;
    const int tr = tid % SR, tc = tid / SR;
    const int seg = ra_lane_id() - tr;        // first lane of this thread column
    const int ld = n + 1;
    T* sA = ra_lub_shared<T>();
    const T zero = ra_lub_zero<T>();

    ra_lub_stage<T, THREADS>(n, n, A + mat * a_bs, a_rs, a_cs, sA, ld);
    if (FLOW) {
        if (tid == 0) sready = 0;
        if (tid < SC) sdone[tid] = 0;
    }
    __syncthreads();
    // the register tile: compile-time indices only (fully unrolled loops)
    T v[MR][MC];
#pragma unroll
    for (int a = 0; a < MR; ++a) {
        const int row = a * SR + tr;
#pragma unroll
        for (int c = 0; c < MA; ++c) {
            const int col = c * SC + tc;
            v[a][c] = row < n && col < n ? sA[row + col * ld] : zero;
        }
        if (SOLVE) v[a][MC - 1] = row < n && tc < nrhs ? B[mat * b_bs + row * b_rs + tc * b_cs] : zero;
    }

    // LOOK: A for column jj = bb * SC + tt (register column bb of thread column tt, a compile-time
    // index once inlined), published into buffer pp, by the warp that holds thread column tt. The
    // step loop keeps its own inline A (the same operations): sending both through this lambda
    // changed the code NVRTC emits for the kernels without LOOK (register order, spills)
    auto pivot = [&](const int bb, const int tt, const int jj, const int pp) {
        const int a0 = bb * SC / SR, tj = bb * SC % SR + tt;
        // two independent chains over the register rows (half the dependent compares),
        // then merged: "larger, then lower row" is a total order once NaN is kept out
        R best = R(-1), best2 = R(-1);
        int brow = RA_LU_BLOCK_NO_ROW, brow2 = RA_LU_BLOCK_NO_ROW;
        T bval = zero, bval2 = zero;
#pragma unroll
        for (int a = a0; a < MR; ++a) {
            const int row = a * SR + tr;
            if ((a > a0 || row >= jj) && row < n) {
                if ((a - a0) % 2 == 0) ra_lub_better(best, brow, bval, ra_lub_abs1(v[a][bb]), row, v[a][bb]);
                else ra_lub_better(best2, brow2, bval2, ra_lub_abs1(v[a][bb]), row, v[a][bb]);
            }
        }
        ra_lub_better(best, brow, bval, best2, brow2, bval2);
        // every lane's candidate reciprocal, independent of the reduction's shuffles
        // (the winner's is taken after it: the division's latency hides behind them)
        const T rloc = ra_lub_div(ra_lub_one<T>(), bval);
        // the reduction moves (magnitude, row) only: the winning row's lane has it as its
        // own candidate, so its value and reciprocal come from that lane afterwards
        if (REDUX && RA_LUB_REDUX) {
            ra_lub_redux_argmax(best, brow);
        } else {
#pragma unroll
            for (int m = SR / 2; m > 0; m >>= 1) {
                const R v2 = ra_shfl_xor(best, m);
                const int i2 = ra_shfl_xor(brow, m);
                ra_lub_better_row(best, brow, v2, i2);
            }
        }
        const int from = seg + (brow == RA_LU_BLOCK_NO_ROW ? tj : brow % SR);
        const T ajj = ra_shfl(v[a0][bb], seg + tj);  // row jj's element of this thread column
        const T wval = ra_shfl(bval, from);
        const T rwin = ra_shfl(rloc, from);
        if (tc == tt) {
            // column jj after the interchange of rows jj and p. LAPACK's rule: scale by
            // the reciprocal where it is finite (every thread does that for the rows it
            // needs after the barrier, so this warp's chain ends with the stores), else
            // divide (here: rare); a zero pivot leaves the column as it is
            const int p = brow == RA_LU_BLOCK_NO_ROW ? jj : brow;
            const T piv = brow == RA_LU_BLOCK_NO_ROW ? ajj : wval;
            const int kind = ra_lub_pivot_kind(piv);
            T x[MR];
#pragma unroll
            for (int a = a0; a < MR; ++a) {
                const int row = a * SR + tr;
                x[a] = v[a][bb];
                if (row == p) x[a] = ajj;
                if (row == jj) x[a] = piv;
            }
            if (kind == RA_LU_BLOCK_PIVOT_DIVIDE) {
#pragma unroll
                for (int a = a0; a < MR; ++a)
                    if (a > a0 || a * SR + tr > jj) x[a] = ra_lub_div(x[a], piv);
            }
#pragma unroll
            for (int a = a0; a < MR; ++a) lbuf[pp][a * SR + tr] = x[a];
            if (tr == 0) {
                pbuf[pp][0] = p;
                pbuf[pp][1] = kind;
                spiv[pp] = rwin;  // 1 / piv (used only with RA_LU_BLOCK_PIVOT_RECIP)
                if (!SOLVE) ipiv[mat * strideP + jj] = p + 1;
            }
        }
    };

    int bad = 0;  // info
#pragma unroll
    for (int b = 0; b < MA; ++b) {
        // row j = b * SC + t is register row a0 of thread row t0 + t
        const int a0 = b * SC / SR, t0 = b * SC % SR;
        for (int t = 0; t < SC; ++t) {
            const int j = b * SC + t;
            if (j >= n) break;
            const int par = FLOW ? j % NBUF : t & 1;
            const int tj = t0 + t;
            // A: column j's pivot and multipliers, by the warp that holds thread column t (with
            // LOOK, past the first step, the previous step's look-ahead did it)
            if ((!LOOK || j == 0) && ra_warp_id() == t * SR / RA_WARP_SIZE) {
                // two independent chains over the register rows (half the dependent compares),
                // then merged: "larger, then lower row" is a total order once NaN is kept out
                R best = R(-1), best2 = R(-1);
                int brow = RA_LU_BLOCK_NO_ROW, brow2 = RA_LU_BLOCK_NO_ROW;
                T bval = zero, bval2 = zero;
#pragma unroll
                for (int a = a0; a < MR; ++a) {
                    const int row = a * SR + tr;
                    if ((a > a0 || row >= j) && row < n) {
                        if ((a - a0) % 2 == 0) ra_lub_better(best, brow, bval, ra_lub_abs1(v[a][b]), row, v[a][b]);
                        else ra_lub_better(best2, brow2, bval2, ra_lub_abs1(v[a][b]), row, v[a][b]);
                    }
                }
                ra_lub_better(best, brow, bval, best2, brow2, bval2);
                // every lane's candidate reciprocal, independent of the reduction's shuffles
                // (the winner's is taken after it: the division's latency hides behind them)
                const T rloc = ra_lub_div(ra_lub_one<T>(), bval);
                // the reduction moves (magnitude, row) only: the winning row's lane has it as its
                // own candidate, so its value and reciprocal come from that lane afterwards
                if (REDUX && RA_LUB_REDUX) {
                    ra_lub_redux_argmax(best, brow);
                } else {
#pragma unroll
                    for (int m = SR / 2; m > 0; m >>= 1) {
                        const R v2 = ra_shfl_xor(best, m);
                        const int i2 = ra_shfl_xor(brow, m);
                        ra_lub_better_row(best, brow, v2, i2);
                    }
                }
                const int from = seg + (brow == RA_LU_BLOCK_NO_ROW ? tj : brow % SR);
                const T ajj = ra_shfl(v[a0][b], seg + tj);  // row j's element of this thread column
                const T wval = ra_shfl(bval, from);
                const T rwin = ra_shfl(rloc, from);
                if (tc == t) {
                    // column j after the interchange of rows j and p. LAPACK's rule: scale by
                    // the reciprocal where it is finite (every thread does that for the rows it
                    // needs after the barrier, so this warp's chain ends with the stores), else
                    // divide (here: rare); a zero pivot leaves the column as it is
                    const int p = brow == RA_LU_BLOCK_NO_ROW ? j : brow;
                    const T piv = brow == RA_LU_BLOCK_NO_ROW ? ajj : wval;
                    const int kind = ra_lub_pivot_kind(piv);
                    T x[MR];
#pragma unroll
                    for (int a = a0; a < MR; ++a) {
                        const int row = a * SR + tr;
                        x[a] = v[a][b];
                        if (row == p) x[a] = ajj;
                        if (row == j) x[a] = piv;
                    }
                    if (kind == RA_LU_BLOCK_PIVOT_DIVIDE) {
#pragma unroll
                        for (int a = a0; a < MR; ++a)
                            if (a > a0 || a * SR + tr > j) x[a] = ra_lub_div(x[a], piv);
                    }
#pragma unroll
                    for (int a = a0; a < MR; ++a) lbuf[par][a * SR + tr] = x[a];
                    if (tr == 0) {
                        pbuf[par][0] = p;
                        pbuf[par][1] = kind;
                        spiv[par] = rwin;  // 1 / piv (used only with RA_LU_BLOCK_PIVOT_RECIP)
                        if (!SOLVE) ipiv[mat * strideP + j] = p + 1;
                    }
                }
                if (FLOW) ra_lub_raise_count(&sready, j + 1);
            }
            if (FLOW) ra_lub_wait_count(&sready, j + 1);
            else __syncthreads();
            const int p = pbuf[par][0];
            const int kind = pbuf[par][1];
            const bool is_zero = kind == RA_LU_BLOCK_PIVOT_ZERO;
            if (is_zero && bad == 0) bad = j + 1;
            const int tp = p % SR, ap = p / SR;
            int skip = -1;  // with LOOK: the register column the look-ahead brought up to date
            if (LOOK && j + 1 < n && ra_warp_id() == (t + 1 < SC ? t + 1 : 0)) {
                // the warp holding column j + 1 (register column c1) interchanges and updates that
                // register column first and then searches its pivot, so that the rest of its
                // update runs behind the search (every element: the same operations, in order)
                const int c1 = t + 1 < SC ? b : b + 1;
                const bool by_recip = kind == RA_LU_BLOCK_PIVOT_RECIP;
                const T rpiv = spiv[par];
                if (FLOW && j + 2 > NBUF) {
                    // buffer (j + 1) % NBUF is free once every thread column has finished step
                    // j + 1 - NBUF (a lane a thread column reads its count)
                    const volatile int* done = sdone;
                    const int lane = ra_lane_id();
                    while (ra_popc64(ra_ballot(lane >= SC || done[lane] > j + 1 - NBUF)) < RA_WARP_SIZE)
                        ra_lub_pause();
                    __threadfence_block();
                    ra_warp_sync();  // every lane's writes below after the reads of the counts
                }
#pragma unroll
                for (int c = b; c < MA && c <= b + 1; ++c) {
                    if (c == c1) {
                        T w = v[a0][c];
#pragma unroll
                        for (int a = a0 + 1; a < MR; ++a)
                            if (a == ap) w = v[a][c];
                        const T up = ra_shfl(w, seg + tp);
                        const T uj = ra_shfl(v[a0][c], seg + tj);
                        if (tr == tj) v[a0][c] = up;
#pragma unroll
                        for (int a = a0; a < MR; ++a)
                            if (a == ap) v[a][c] = tr == tp ? uj : v[a][c];
#pragma unroll
                        for (int a = a0; a < MR; ++a) {
                            const int row = a * SR + tr;
                            if (!is_zero && (a > a0 || row > j) && (c > b || c * SC + tc > j)) {
                                const T x = lbuf[par][row];
                                v[a][c] = ra_lub_fms(by_recip ? ra_lub_mul(x, rpiv) : x, up, v[a][c]);
                            }
                        }
                    }
                }
                const int next = FLOW ? (j + 1) % NBUF : par ^ 1;
                if (t + 1 < SC) pivot(b, t + 1, j + 1, next);
                else if (b + 1 < MA) pivot(b + 1 < MA ? b + 1 : b, 0, j + 1, next);
                if (FLOW) ra_lub_raise_count(&sready, j + 2);
                skip = c1;
            }
            T u[MC];  // the new row j (old row p), columns c >= b: the update's u
            if (XCHG) {
                // B': rows j and p of thread column tc are in its own SR lanes (thread rows tj
                // and tp, one warp), so the interchange and u move by shuffles, with no publication
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
                    for (int c = lo; c < hi; ++c) w[c] = v[a0][c];
#pragma unroll
                    for (int a = a0 + 1; a < MR; ++a) {
                        if (a == ap) {
#pragma unroll
                            for (int c = lo; c < hi; ++c) w[c] = v[a][c];
                        }
                    }
#pragma unroll
                    for (int c = lo; c < hi; ++c) {
                        if (LOOK && c == skip) continue;
                        const T up = ra_shfl(w[c], seg + tp);     // row p, to every lane
                        const T uj = ra_shfl(v[a0][c], seg + tj);   // old row j
                        u[c] = up;
                        if (tr == tj) v[a0][c] = up;
                        w[c] = uj;
                    }
                    // old row j into register row ap of thread row tp (tp == tj: ap != a0, and
                    // the row-j registers were read before they were overwritten)
#pragma unroll
                    for (int a = a0; a < MR; ++a) {
                        if (a == ap) {
#pragma unroll
                            for (int c = lo; c < hi; ++c)
                                if (!LOOK || c != skip) v[a][c] = tr == tp ? w[c] : v[a][c];
                        }
                    }
                }
                // column j of thread column t (rows j and p included) is rewritten below
            } else {
                // B: publish the new row j (old row p) and, for an interchange, the old row j
                if (tr == tp) {
#pragma unroll
                    for (int a = a0; a < MR; ++a) {
                        if (a == ap) {
#pragma unroll
                            for (int c = 0; c < MC; ++c) urow[par & 1][c * SC + tc] = v[a][c];
                        }
                    }
                }
                if (p != j && tr == tj) {
#pragma unroll
                    for (int c = 0; c < MC; ++c) jrow[par & 1][c * SC + tc] = v[a0][c];
                }
                __syncthreads();
                // C: the interchange (column j is done), then the rank-1 update
                if (p != j) {
                    if (tr == tj) {
#pragma unroll
                        for (int c = 0; c < MC; ++c)
                            if (c != b || tc != t) v[a0][c] = urow[par & 1][c * SC + tc];
                    }
                    if (tr == tp) {
#pragma unroll
                        for (int a = a0; a < MR; ++a) {
                            if (a == ap) {
#pragma unroll
                                for (int c = 0; c < MC; ++c)
                                    if (c != b || tc != t) v[a][c] = jrow[par & 1][c * SC + tc];
                            }
                        }
                    }
                }
#pragma unroll
                for (int c = b; c < MC; ++c) u[c] = urow[par & 1][c * SC + tc];
            }
            // the multipliers (rows below j): column j scaled by the pivot's reciprocal, unless
            // A divided it already or the pivot is zero; thread column t's register column b
            // takes column j
            const bool by_recip = kind == RA_LU_BLOCK_PIVOT_RECIP;
            const T rpiv = spiv[par];
#pragma unroll
            for (int a = a0; a < MR; ++a) {
                const int row = a * SR + tr;
                const T x = lbuf[par][row];
                const T l = by_recip ? ra_lub_mul(x, rpiv) : x;
                if (tc == t) {
                    if (row == j) v[a][b] = x;
                    else if (a > a0 || row > j) v[a][b] = l;
                }
                // (a > a0, c > b: compile-time true; B's column c == MA is right of column j)
                if (!is_zero && (a > a0 || row > j)) {
#pragma unroll
                    for (int c = b; c < MC; ++c) {
                        if ((c > b || c * SC + tc > j) && (!LOOK || c != skip))
                            v[a][c] = ra_lub_fms(l, u[c], v[a][c]);
                    }
                }
            }
            if (FLOW) ra_lub_raise_count(&sdone[tc], j + 1);
        }
    }
    // FLOW: the steps end at different times in different warps, and the shared matrix is
    // rewritten below
    if (FLOW) __syncthreads();
    if (tid == 0) info[mat] = bad;

    if (!SOLVE) {
        T* f = F + mat * strideF;
#pragma unroll
        for (int a = 0; a < MR; ++a) {
            const int row = a * SR + tr;
#pragma unroll
            for (int c = 0; c < MA; ++c) {
                const int col = c * SC + tc;
                if (row < n && col < n) f[row + col * ldf] = v[a][c];
            }
        }
        return;
    }

    // U and y = L^-1 P B to shared memory (U over the staged copy of A, whose reads ended with
    // the loads before the first step's barriers), then back substitution one warp per column
    T* sY = sA + (ra_i64)ld * n;
    // past 256 threads (at most 128 registers a thread) ld passes through a shuffle, so that the
    // compiler recomputes the column addresses here rather than keeping the loads' (spilled)
    const int ldu = THREADS > RA_LU_BLOCK_THREADS ? ra_shfl(ld, 0) : ld;
#pragma unroll
    for (int a = 0; a < MR; ++a) {
        const int row = a * SR + tr;
        if (row < n) {
#pragma unroll
            for (int c = 0; c < MA; ++c) {
                const int col = c * SC + tc;
                if (col < n && col >= row) sA[row + col * ldu] = v[a][c];
            }
            if (tc < nrhs) sY[row + tc * n] = v[a][MC - 1];
        }
    }
    __syncthreads();
    ra_lub_back_substitute<T, N, THREADS>(n, nrhs, sA, ld, sY, n, X + mat * x_bs, x_rs, x_cs);
}

// the one-barrier step (rows j and p exchanged by shuffles inside each thread column)
template <typename T, int M, bool SOLVE>
__global__ RA_LAUNCH_BOUNDS(RA_LU_BLOCK_THREADS) void ra_rocsolver_getrf_block(
    int n, int nrhs, const T* A, ra_i64 a_rs, ra_i64 a_cs, ra_i64 a_bs, T* F, ra_i64 ldf, ra_i64 strideF,
    int* __restrict__ ipiv, ra_i64 strideP, int* __restrict__ info, const T* __restrict__ B, ra_i64 b_rs,
    ra_i64 b_cs, ra_i64 b_bs, T* __restrict__ X, ra_i64 x_rs, ra_i64 x_cs, ra_i64 x_bs) {
    ra_lub_getrf<T, RA_LU_BLOCK_SIDE, RA_LU_BLOCK_SIDE, M, M, SOLVE, true, false>(
        n, nrhs, A, a_rs, a_cs, a_bs, F, ldf, strideF, ipiv, strideP, info, B, b_rs, b_cs, b_bs, X, x_rs, x_cs, x_bs);
}

// the two-barrier step (rows j and p published through shared memory)
template <typename T, int M, bool SOLVE>
__global__ RA_LAUNCH_BOUNDS(RA_LU_BLOCK_THREADS) void ra_rocsolver_getrf_block_2sync(
    int n, int nrhs, const T* A, ra_i64 a_rs, ra_i64 a_cs, ra_i64 a_bs, T* F, ra_i64 ldf, ra_i64 strideF,
    int* __restrict__ ipiv, ra_i64 strideP, int* __restrict__ info, const T* __restrict__ B, ra_i64 b_rs,
    ra_i64 b_cs, ra_i64 b_bs, T* __restrict__ X, ra_i64 x_rs, ra_i64 x_cs, ra_i64 x_bs) {
    ra_lub_getrf<T, RA_LU_BLOCK_SIDE, RA_LU_BLOCK_SIDE, M, M, SOLVE, false, false>(
        n, nrhs, A, a_rs, a_cs, a_bs, F, ldf, strideF, ipiv, strideP, info, B, b_rs, b_cs, b_bs, X, x_rs, x_cs, x_bs);
}

// the one-barrier step on RA_LU_WIDE_THREADS threads, a thread column a whole warp (see the head
// of the file)
template <typename T, int N, bool SOLVE, bool LOOK>
__global__ RA_LAUNCH_BOUNDS(RA_LU_WIDE_THREADS) void ra_rocsolver_getrf_block_wide(
    int n, int nrhs, const T* A, ra_i64 a_rs, ra_i64 a_cs, ra_i64 a_bs, T* F, ra_i64 ldf, ra_i64 strideF,
    int* __restrict__ ipiv, ra_i64 strideP, int* __restrict__ info, const T* __restrict__ B, ra_i64 b_rs,
    ra_i64 b_cs, ra_i64 b_bs, T* __restrict__ X, ra_i64 x_rs, ra_i64 x_cs, ra_i64 x_bs) {
    constexpr int SR = RA_WARP_SIZE, SC = RA_LU_WIDE_THREADS / RA_WARP_SIZE;
    ra_lub_getrf<T, SR, SC, N / SR, N / SC, SOLVE, true, LOOK>(
        n, nrhs, A, a_rs, a_cs, a_bs, F, ldf, strideF, ipiv, strideP, info, B, b_rs, b_cs, b_bs, X, x_rs, x_cs, x_bs);
}

// getrf_block_wide's plain step with its pivot search's warp reduction by ra_lub_redux_argmax
// where RA_LUB_REDUX (redux.sync, NVIDIA from sm_80; elsewhere the plain step's rounds): the same
// pivots, the same bits
template <typename T, int N, bool SOLVE>
__global__ RA_LAUNCH_BOUNDS(RA_LU_WIDE_THREADS) void ra_rocsolver_getrf_block_wide_redux(
    int n, int nrhs, const T* A, ra_i64 a_rs, ra_i64 a_cs, ra_i64 a_bs, T* F, ra_i64 ldf, ra_i64 strideF,
    int* __restrict__ ipiv, ra_i64 strideP, int* __restrict__ info, const T* __restrict__ B, ra_i64 b_rs,
    ra_i64 b_cs, ra_i64 b_bs, T* __restrict__ X, ra_i64 x_rs, ra_i64 x_cs, ra_i64 x_bs) {
    constexpr int SR = RA_WARP_SIZE, SC = RA_LU_WIDE_THREADS / RA_WARP_SIZE;
    ra_lub_getrf<T, SR, SC, N / SR, N / SC, SOLVE, true, false, true>(
        n, nrhs, A, a_rs, a_cs, a_bs, F, ldf, strideF, ipiv, strideP, info, B, b_rs, b_cs, b_bs, X, x_rs, x_cs, x_bs);
}

// getrf_block_wide's look-ahead step without its barrier: a warp goes on to step j once column j's
// pivot is published (a count in shared memory), so the warp that searched runs the rest of its
// update of step j - 1 behind the others; with REDUX the search's warp reduction is
// ra_lub_redux_argmax where RA_LUB_REDUX. The same bits
template <typename T, int N, bool SOLVE, bool REDUX>
__global__ RA_LAUNCH_BOUNDS(RA_LU_WIDE_THREADS) void ra_rocsolver_getrf_block_wide_flow(
    int n, int nrhs, const T* A, ra_i64 a_rs, ra_i64 a_cs, ra_i64 a_bs, T* F, ra_i64 ldf, ra_i64 strideF,
    int* __restrict__ ipiv, ra_i64 strideP, int* __restrict__ info, const T* __restrict__ B, ra_i64 b_rs,
    ra_i64 b_cs, ra_i64 b_bs, T* __restrict__ X, ra_i64 x_rs, ra_i64 x_cs, ra_i64 x_bs) {
    constexpr int SR = RA_WARP_SIZE, SC = RA_LU_WIDE_THREADS / RA_WARP_SIZE;
    ra_lub_getrf<T, SR, SC, N / SR, N / SC, SOLVE, true, true, REDUX, true>(
        n, nrhs, A, a_rs, a_cs, a_bs, F, ldf, strideF, ipiv, strideP, info, B, b_rs, b_cs, b_bs, X, x_rs, x_cs, x_bs);
}

// ---------------------------------------------------------------------------------------------
// ra_rocsolver_getrf_panel<T, N, SOLVE>: getrf_block's factorization and solve (the same pivots,
// the same operations on every element in the same order, so the same bits) for n <= N, by
// panels of NB columns with the matrix in shared memory and one warp factoring the panels.
//
// Why: getrf_block's elimination step is one block barrier (two in getrf_block_2sync) behind the
// pivot warp's chain, 128 times a matrix. Here the chain of a column (pivot search, row exchange, multipliers, the
// panel's rank-1 update) stays within warp 0's registers, and the block meets at a barrier once
// a panel. Warp 0 holds a panel as rows lane + r * RA_WARP_SIZE (r < N / RA_WARP_SIZE) of its NB
// columns; the pivot's row and the old row j travel by one shuffle a column element.
//
// Phase k (one barrier at its end), with panel k factored and published:
//  - warp 0 brings block k + 1 (the next NB columns) up to date with panel k: its lanes apply
//    the panel's interchanges and the unit lower triangular solve to one column each (U12), then
//    all lanes apply the rank-NB update to the rows below in registers, using panel k's
//    multipliers it still holds; then it factors block k + 1 and publishes it (look-ahead);
//  - the other warps apply panel k's interchanges, triangular solve and rank-NB update to the
//    columns right of block k + 1 and to B (a thread a column), and without SOLVE the
//    interchanges to the finished columns left of panel k.
// A published panel: its columns in the matrix, its rows in lrow (row-major: the multipliers a
// thread reads for its rows as one run), the pivot rows in spiv and the steps whose pivot was
// zero (which update nothing, as in getrf_block) as the bits of szero.
// With SOLVE, B rides as columns n .. n + nrhs - 1 of the staged matrix and the back substitution
// is getrf_block's. Without SOLVE the factors are copied out of shared memory at the end.
// ---------------------------------------------------------------------------------------------

// columns per panel: 8, 4 for complex128 (two panels of registers in warp 0)
template <typename T> struct ra_lup_width { static constexpr int value = 8; };
template <> struct ra_lup_width<ra_c128> { static constexpr int value = 4; };

// register row r (run time) of column c (compile time) of a warp-0 panel
template <typename T, int RW, int NB>
RA_DEVICE T ra_lup_pick(const T (&P)[RW][NB], int r, int c) {
    T v = P[0][c];
#pragma unroll
    for (int rr = 1; rr < RW; ++rr)
        if (r == rr) v = P[rr][c];
    return v;
}

// Factors the panel of columns j0 .. j0 + nb - 1 held by warp 0 in P: register row r of a lane
// holds the matrix row label[r]. The interchange of rows j and p exchanges the two slots' labels
// (no data moves): the slot that held row p now holds row j, its content the new row j, and the
// other way round, which is LAPACK's interchange. For each column: the pivot (getrf_block's rule
// over the slots labelled j .. n - 1), the pivot row's values from the lane that holds it, the
// multipliers, the rank-1 update of the panel's columns to the right. Publishes the panel (matrix
// columns, lrow rows j0 .. n - 1, by label), spiv, szero and, without SOLVE, ipiv. bad := info.
template <typename T, int RW, int NB, bool SOLVE>
RA_DEVICE void ra_lup_factor(T (&P)[RW][NB], int (&label)[RW], int j0, int nb, int n, T* sA, int ld, T* lrow,
                             int* spiv, int* szero_k, int* ipiv, int& bad) {
    typedef typename ra_lub_real<T>::type R;
    constexpr int W = RA_WARP_SIZE;
    const int lane = ra_lane_id();
    const T zero = ra_lub_zero<T>();
    int zbits = 0;
#pragma unroll
    for (int jj = 0; jj < NB; ++jj) {
        if (jj >= nb) break;
        const int j = j0 + jj;
        // this lane's candidate: the largest |.| of column jj over its slots labelled j .. n - 1,
        // then the lowest label (NaN never wins)
        R lbest = R(-1);
        int llab = RA_LU_BLOCK_NO_ROW, lslot = 0;
#pragma unroll
        for (int r = 0; r < RW; ++r) {
            const R v = ra_lub_abs1(P[r][jj]);
            if (label[r] >= j && label[r] < n && (v > lbest || (v == lbest && label[r] < llab))) {
                lbest = v;
                llab = label[r];
                lslot = r;
            }
        }
        // the candidate's row and reciprocal, off the reduction's chain
        T cand[NB];
#pragma unroll
        for (int c = 0; c < NB; ++c) cand[c] = ra_lup_pick(P, lslot, c);
        const T rloc = ra_lub_div(ra_lub_one<T>(), cand[jj]);
        R best = lbest;
        int brow = llab;
#pragma unroll
        for (int m = W / 2; m > 0; m >>= 1) {
            const R v2 = ra_shfl_xor(best, m);
            const int i2 = ra_shfl_xor(brow, m);
            ra_lub_better_row(best, brow, v2, i2);
        }
        int p = brow;
        bool mine = llab == p;
        if (brow == RA_LU_BLOCK_NO_ROW) {
            // only NaN at and below row j: row j stays the pivot row (its value divides)
            p = j;
            mine = false;
#pragma unroll
            for (int r = 0; r < RW; ++r) {
                if (label[r] == j) {
                    mine = true;
                    lslot = r;
                }
            }
#pragma unroll
            for (int c = 0; c < NB; ++c) cand[c] = ra_lup_pick(P, lslot, c);
        }
        const ra_lane_mask owner = ra_ballot(mine);
        const int lp = (int)__ffsll((long long)owner) - 1;
        T u[NB];
#pragma unroll
        for (int c = 0; c < NB; ++c) u[c] = ra_shfl(cand[c], lp);
        const T rpiv = ra_shfl(rloc, lp);
#pragma unroll
        for (int r = 0; r < RW; ++r) {
            if (label[r] == j) label[r] = p;
            else if (label[r] == p) label[r] = j;
        }
        const T piv = u[jj];
        const int kind = ra_lub_pivot_kind(piv);
        if (kind == RA_LU_BLOCK_PIVOT_ZERO) {
            zbits |= 1 << jj;
            if (bad == 0) bad = j + 1;
        }
        if (lane == 0) {
            spiv[j] = p;
            if (!SOLVE) ipiv[j] = p + 1;
        }
#pragma unroll
        for (int r = 0; r < RW; ++r) {
            if (label[r] > j && label[r] < n) {
                T l = P[r][jj];
                if (kind == RA_LU_BLOCK_PIVOT_RECIP) l = ra_lub_mul(l, rpiv);
                else if (kind == RA_LU_BLOCK_PIVOT_DIVIDE) l = ra_lub_div(l, piv);
                P[r][jj] = l;
                if (kind != RA_LU_BLOCK_PIVOT_ZERO) {
#pragma unroll
                    for (int c = jj + 1; c < NB; ++c) P[r][c] = ra_lub_fms(l, u[c], P[r][c]);
                }
            }
        }
    }
    // the stores may hit rows other lanes read when they loaded this panel
    ra_warp_sync();
#pragma unroll
    for (int r = 0; r < RW; ++r) {
        const int row = label[r];
        if (row >= j0 && row < n) {
#pragma unroll
            for (int c = 0; c < NB; ++c) {
                if (c < nb) sA[row + (j0 + c) * ld] = P[r][c];
                lrow[row * NB + c] = P[r][c];
            }
        }
    }
    if (lane == 0) *szero_k = zbits;
}

// Column col (shared) of the trailing matrix brought up to date with the panel at rows j0 ..
// j0 + nbk - 1: its interchanges in order, then the unit lower triangular solve (the rows of U12,
// stored), returned in x; live[i]: step i updates (its pivot is not zero).
template <typename T, int NB>
RA_DEVICE void ra_lup_solve_column(T* col, int j0, int nbk, const T* lrow, const int* spiv, const bool (&live)[NB],
                                   T (&x)[NB]) {
    const T zero = ra_lub_zero<T>();
#pragma unroll
    for (int i = 0; i < NB; ++i) x[i] = i < nbk ? col[j0 + i] : zero;
#pragma unroll
    for (int i = 0; i < NB; ++i) {
        if (i < nbk) {
            const int p = spiv[j0 + i];
            const int q = p - j0;
            if (q >= nbk) {          // a row below the panel
                const T t = col[p];
                col[p] = x[i];
                x[i] = t;
            } else {                 // a row of the panel, q >= i
                const T xi = x[i];
#pragma unroll
                for (int qq = i + 1; qq < NB; ++qq) {
                    if (qq == q) {
                        x[i] = x[qq];
                        x[qq] = xi;
                    }
                }
            }
        }
    }
#pragma unroll
    for (int i = 1; i < NB; ++i) {
        if (i < nbk) {
#pragma unroll
            for (int ii = 0; ii < i; ++ii)
                if (live[ii]) x[i] = ra_lub_fms(lrow[(j0 + i) * NB + ii], x[ii], x[i]);
        }
    }
#pragma unroll
    for (int i = 0; i < NB; ++i)
        if (i < nbk) col[j0 + i] = x[i];
}

template <typename T, int N, bool SOLVE>
__global__ RA_LAUNCH_BOUNDS(RA_LU_BLOCK_THREADS) void ra_rocsolver_getrf_panel(
    int n, int nrhs, const T* A, ra_i64 a_rs, ra_i64 a_cs, ra_i64 a_bs, T* F, ra_i64 ldf, ra_i64 strideF,
    int* __restrict__ ipiv, ra_i64 strideP, int* __restrict__ info, const T* __restrict__ B, ra_i64 b_rs,
    ra_i64 b_cs, ra_i64 b_bs, T* __restrict__ X, ra_i64 x_rs, ra_i64 x_cs, ra_i64 x_bs) {
    constexpr int W = RA_WARP_SIZE;
    constexpr int RW = N / W;                  // panel rows per lane of warp 0
    constexpr int NB = ra_lup_width<T>::value;
    constexpr int NP = (N + NB - 1) / NB;
    constexpr int UNROLL = 8;                  // rows a thread updates together (independent chains)
    __shared__ __align__(16) T lrow[2][(N + UNROLL) * NB];   // rows past n: read, never used
    __shared__ int spiv[N];
    __shared__ int szero[NP];
    const ra_i64 mat = blockIdx.x;
    const int lane = ra_lane_id(), warp = ra_warp_id();
    const int ld = n + 1;
    const int nc = n + (SOLVE ? nrhs : 0);
    T* sA = ra_lub_shared<T>();
    const T zero = ra_lub_zero<T>();
    int* piv_out = SOLVE ? ipiv : ipiv + mat * strideP;

    ra_lub_stage(n, n, A + mat * a_bs, a_rs, a_cs, sA, ld);
    if (SOLVE) ra_lub_stage(n, nrhs, B + mat * b_bs, b_rs, b_cs, sA + (ra_i64)ld * n, ld);
    __syncthreads();

    const int np = (n + NB - 1) / NB;
    int bad = 0;
    T cur[RW][NB];   // warp 0: the last factored panel
    int label[RW];   // warp 0: the matrix row in register row r (the same for cur and the next panel)
    if (warp == 0) {
#pragma unroll
        for (int r = 0; r < RW; ++r) {
            label[r] = r * W + lane;
            const int row = label[r];
#pragma unroll
            for (int c = 0; c < NB; ++c) cur[r][c] = row < n && c < n ? sA[row + c * ld] : zero;
        }
        ra_lup_factor<T, RW, NB, SOLVE>(cur, label, 0, n < NB ? n : NB, n, sA, ld, lrow[0], spiv, &szero[0],
                                        piv_out, bad);
    }
    __syncthreads();

    for (int k = 0; k < np; ++k) {
        const int j0 = k * NB;
        const int nbk = n - j0 < NB ? n - j0 : NB;
        const T* lr = lrow[k & 1];
        const int zk = szero[k];
        bool live[NB];
#pragma unroll
        for (int i = 0; i < NB; ++i) live[i] = i < nbk && !((zk >> i) & 1);
        if (warp == 0) {
            if (k + 1 < np) {
                const int c1 = j0 + NB;
                const int nb1 = n - c1 < NB ? n - c1 : NB;
                T x[NB];
                if (lane < nb1) ra_lup_solve_column<T, NB>(sA + (ra_i64)(c1 + lane) * ld, j0, nbk, lr, spiv, live, x);
                ra_warp_sync();
                T nxt[RW][NB];
#pragma unroll
                for (int r = 0; r < RW; ++r) {
                    const int row = label[r];
#pragma unroll
                    for (int c = 0; c < NB; ++c) nxt[r][c] = row < n && c < nb1 ? sA[row + (c1 + c) * ld] : zero;
                }
                // rank-nbk update of the rows below panel k, step by step (getrf_block's order)
#pragma unroll
                for (int i = 0; i < NB; ++i) {
                    if (live[i]) {
                        T u[NB];
#pragma unroll
                        for (int c = 0; c < NB; ++c) u[c] = c < nb1 ? sA[j0 + i + (c1 + c) * ld] : zero;
#pragma unroll
                        for (int r = 0; r < RW; ++r) {
                            const int row = label[r];
                            if (row >= j0 + nbk && row < n) {
#pragma unroll
                                for (int c = 0; c < NB; ++c) nxt[r][c] = ra_lub_fms(cur[r][i], u[c], nxt[r][c]);
                            }
                        }
                    }
                }
                ra_lup_factor<T, RW, NB, SOLVE>(nxt, label, c1, nb1, n, sA, ld, lrow[(k + 1) & 1], spiv,
                                                &szero[k + 1], piv_out, bad);
#pragma unroll
                for (int r = 0; r < RW; ++r) {
#pragma unroll
                    for (int c = 0; c < NB; ++c) cur[r][c] = nxt[r][c];
                }
            }
        } else {
            // a thread a column: without SOLVE the finished columns left of the panel (the
            // interchanges only), then the columns right of block k + 1 and B
            const int t = threadIdx.x - W, nt = RA_LU_BLOCK_THREADS - W;
            const int nleft = SOLVE ? 0 : j0;
            const int cfirst = j0 + 2 * NB < n ? j0 + 2 * NB : n;
            const int total = nleft + (nc - cfirst);
            for (int e = t; e < total; e += nt) {
                if (e < nleft) {
                    T* col = sA + (ra_i64)e * ld;
                    for (int i = 0; i < nbk; ++i) {
                        const int p = spiv[j0 + i];
                        if (p != j0 + i) {
                            const T a = col[j0 + i];
                            col[j0 + i] = col[p];
                            col[p] = a;
                        }
                    }
                    continue;
                }
                T* col = sA + (ra_i64)(cfirst + e - nleft) * ld;
                T x[NB];
                ra_lup_solve_column<T, NB>(col, j0, nbk, lr, spiv, live, x);
                for (int row = j0 + nbk; row < n; row += UNROLL) {
                    T a[UNROLL];
#pragma unroll
                    for (int q = 0; q < UNROLL; ++q) a[q] = row + q < n ? col[row + q] : zero;
                    const T* lq = lr + row * NB;
#pragma unroll
                    for (int i = 0; i < NB; ++i) {
                        if (live[i]) {
#pragma unroll
                            for (int q = 0; q < UNROLL; ++q) a[q] = ra_lub_fms(lq[q * NB + i], x[i], a[q]);
                        }
                    }
#pragma unroll
                    for (int q = 0; q < UNROLL; ++q)
                        if (row + q < n) col[row + q] = a[q];
                }
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) info[mat] = bad;

    if (!SOLVE) {
        T* f = F + mat * strideF;
        for (int e = threadIdx.x; e < n * n; e += RA_LU_BLOCK_THREADS) {
            const int row = e % n, col = e / n;
            f[row + (ra_i64)col * ldf] = sA[row + col * ld];
        }
        return;
    }
    ra_lub_back_substitute<T, N>(n, nrhs, sA, ld, sA + (ra_i64)ld * n, ld, X + mat * x_bs, x_rs, x_cs);
}


// ---------------------------------------------------------------------------------------------
// ra_rocsolver_getrf_block_split<T, N, SOLVE, WIN>: getrf_block's factorization and solve (the same
// pivots, the same operations on every element in the same order, so the same bits) for n <= N,
// on ra_lus_threads<T> threads with the matrix (and B) in shared memory (leading dimension
// n + 1), by panels of RA_LU_SPLIT_NB columns. The block's warps split into two crews:
//  - the panel crew, the first N threads, a matrix row a thread, factors panel k in registers.
//    A column's pivot search meets only the crew's warps, at a barrier of their own (bar.sync on
//    NVIDIA, an arrival count in shared memory elsewhere), and the column's rank-1 update stays
//    within the panel's columns. Its row interchanges exchange labels instead of data (thread t
//    starts with row j0 + t and ends with the row its label names), so a column's chain is the
//    search, one barrier and the update of the next column;
//  - the update crew, the other warps, meanwhile brings the columns right of panel k (and B) up
//    to date with panel k - 1, and without SOLVE applies its interchanges to the columns left of
//    it.
// Between two panels the whole block brings panel k's columns up to date with panel k - 1 (the
// look-ahead), so that the crew can factor them.
// Bringing a column up to date with panel q (ra_lus_apply): the panel's interchanges as one
// permutation of rows q * NB .. n - 1 (where the crew's labels sent each row), the unit lower
// triangular solve of the panel's rows (U12: a thread a column, step by step) and the update of
// the rows below (A22 -= L21 U12: each element's multiply-adds in step order); steps whose pivot
// was zero update nothing, as in getrf_block. The interchanges commute with the updates of other
// rows, so every element sees getrf_block's operations in getrf_block's order.
// A panel step in the crew (ra_lus_factor): every candidate row (label >= j) turns |column j| into
// an integer key (the magnitude's bits plus one, 0 for NaN), the warp reduces (key, label) to its
// best row (largest key, then lowest label; redux.sync on NVIDIA from sm_80), whose lane publishes
// its key, label, pivot kind, reciprocal and its row of the panel; after the crew's barrier every
// thread loads every warp's candidate in one round of independent loads (with the next column's
// element of its row) and picks the best by a tournament of selects (with only NaN left, row j),
// exchanges labels, scales its multiplier, updates the next column's element and then the rest
// of its row. The panel's columns live in a frame of NB registers that shifts by ra_lus_frame<T>
// columns every ra_lus_frame<T> steps (so the step loop is unrolled only that far); a step's
// finished column goes to the thread's row of lrow, and the panel is stored by label at its end.
// The crew's publications are double-buffered by the parity of the step (one barrier a step),
// the panel's labels and zero-pivot bits by the parity of the panel.
// With WIN a step publishes and updates only its frame block's columns: at the block's end the
// block's pivot rows publish their elements past it with their multipliers, a thread a column
// solves for the pivot rows' final elements (two crew barriers), and every row applies the
// block's steps to its own elements past the block in step order (so the same bits).
// ---------------------------------------------------------------------------------------------

// threads a block: the panel crew (N) and the update crew; float64's update crew is larger (12
// warps against float32's 8), float32 keeps more registers a thread
template <typename T> struct ra_lus_threads { static constexpr int value = 384; };
template <> struct ra_lus_threads<double> { static constexpr int value = 512; };
#define RA_LU_SPLIT_NB 32
// steps between two shifts of the crew's register frame (the step loop's unrolling): 8 for
// float64, 2 for float32 (chosen by measurement: docs/performance/rocsolver.md)
template <typename T> struct ra_lus_frame { static constexpr int value = 2; };
template <> struct ra_lus_frame<double> { static constexpr int value = 8; };

// The barrier ID over `threads` threads (whole warps) of the block: bar.sync on NVIDIA;
// elsewhere an arrival count in shared memory that every participating warp raises and waits on
// (target: the count this warp's barriers so far expect, kept by the caller).
template <int ID>
RA_DEVICE void ra_lus_group_sync(int threads, int* count, int& target) {
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 700
    (void)count;
    (void)target;
    asm volatile("bar.sync %0, %1;" ::"n"(ID), "r"(threads) : "memory");
#else
    target += threads / RA_WARP_SIZE;
    ra_warp_sync();
    __threadfence_block();
    if (ra_lane_id() == 0) atomicAdd(count, 1);
    ra_lub_wait_count(count, target);
    ra_warp_sync();
#endif
}

// A candidate's 64-bit key as two halves: a magnitude's bits plus one orders as its value does;
// 0 for no candidate or NaN (which never wins but keeps row j when nothing else is left)
RA_DEVICE void ra_lus_key(float mag, bool candidate, ra_u32& hi, ra_u32& lo) {
    hi = candidate && mag >= 0.0f ? __float_as_uint(mag) + 1u : 0u;
    lo = 0u;
}
RA_DEVICE void ra_lus_key(double mag, bool candidate, ra_u32& hi, ra_u32& lo) {
    const unsigned long long k =
        candidate && mag >= 0.0 ? (unsigned long long)__double_as_longlong(mag) + 1ull : 0ull;
    hi = (ra_u32)(k >> 32);
    lo = (ra_u32)k;
}

// Keeps v computed where this is called (an empty asm that reads it; elsewhere nothing)
RA_DEVICE void ra_lus_pin(float v) {
#if defined(RA_CUDA) && RA_CUDA_ARCH > 0
    asm volatile("" ::"f"(v));
#else
    (void)v;
#endif
}
RA_DEVICE void ra_lus_pin(double v) {
#if defined(RA_CUDA) && RA_CUDA_ARCH > 0
    asm volatile("" ::"d"(v));
#else
    (void)v;
#endif
}
template <typename R> RA_DEVICE void ra_lus_pin(ra_complex<R> v) {
    ra_lus_pin(v.re);
    ra_lus_pin(v.im);
}

// Whether key (h, l) with label b beats (bh, bl) with label bb: larger key, then lower label
RA_DEVICE bool ra_lus_beats(ra_u32 h, ra_u32 l, int b, ra_u32 bh, ra_u32 bl, int bb) {
    return h > bh || (h == bh && (l > bl || (l == bl && b < bb)));
}

// The panel crew's factorization of the panel of columns j0 .. j0 + nb - 1 (rows j0 .. n - 1 on
// threads 0 .. n - j0 - 1; warps with no row return at once), held at P (element (r, j0 + c) at
// P[r + c * ldp], r the matrix's row). Publishes the panel's rows by label into P (with LROW
// through the crew's rows lrow, else in place: a thread's row, then its move), each thread's final
// label (slabel), the steps whose pivot was zero (*szero) and, without SOLVE, ipiv (1-based, this
// matrix's); bad := the first zero pivot's j + 1 if not set.
template <typename T, int NB, int PW, bool SOLVE, bool WIN, bool LROW>
RA_DEVICE void ra_lus_factor(int j0, int nb, int n, T* P, int ldp, T (*lrow)[NB + 1], T (*srow)[PW][NB],
                             T (*srec)[PW], ra_u32 (*skey)[PW][4], T (*sfar)[NB],
                             T (*sfl)[ra_lus_frame<T>::value], int* sub,
                             int* slabel, int* szero, int* ipiv, int& bad, int* count, int& target) {
    typedef typename ra_lub_real<T>::type R;
    constexpr int W = RA_WARP_SIZE, F = ra_lus_frame<T>::value;
    constexpr int GR = WIN ? 1 : NB / F;   // frame blocks a step publishes and updates
    static_assert(NB % F == 0, "the frame shifts by whole blocks of steps");
    const int t = threadIdx.x, lane = ra_lane_id(), warp = ra_warp_id();
    const int m = n - j0;
    const int nwp = (m + W - 1) / W;
    if (warp >= nwp) return;
    const int threads = nwp * W;
    const bool has = t < m;
    const T zero = ra_lub_zero<T>();
    int label = has ? j0 + t : RA_LU_BLOCK_NO_ROW;
    T v[NB];   // frame column i: panel column b * F + i in block b
#pragma unroll
    for (int c = 0; c < NB; ++c) v[c] = has && c < nb ? P[j0 + t + c * ldp] : zero;
    int zbits = 0;
    for (int b = 0; b * F < nb; ++b) {
        const int live = nb - b * F;   // frame columns inside the panel
        int ub = 0;                    // WIN: the block's steps that updated this row
#pragma unroll
        for (int i = 0; i < F; ++i) {
            const int c = b * F + i;
            if (c >= nb) break;
            const int j = j0 + c, buf = c & 1;
            const T x = v[i];
            const bool cand = has && label >= j;
            ra_u32 kh, kl;
            ra_lus_key(ra_lub_abs1(x), cand, kh, kl);
            // every lane's reciprocal, off the reduction's chain (pinned here: the compiler would
            // sink it into the winner's branch); the winner's is published
            const T rloc = ra_lub_div(ra_lub_one<T>(), x);
            ra_lus_pin(rloc);
            // the warp's best row: the largest high half, which one lane holds alone unless there
            // are ties; then the low half and the lowest label among the tied lanes
            const ra_u32 wh = ra_warp_max_u32(kh);
            const ra_lane_mask top = ra_ballot(kh == wh);
            bool writer;
            if (ra_popc64(top) == 1) {
                writer = kh == wh;
            } else {
                const ra_u32 wl = sizeof(R) == 8 ? ra_warp_max_u32(kh == wh ? kl : 0u) : 0u;
                const int wlab = (int)ra_warp_min_u32(kh == wh && kl == wl && cand ? (ra_u32)label
                                                                                   : (ra_u32)RA_LU_BLOCK_NO_ROW);
                writer = wlab == RA_LU_BLOCK_NO_ROW ? lane == 0 : label == wlab;
            }
            if (writer) {
                skey[buf][warp][0] = kh;
                skey[buf][warp][1] = kl;
                skey[buf][warp][2] = (ra_u32)(cand ? label : RA_LU_BLOCK_NO_ROW);
                skey[buf][warp][3] = (ra_u32)ra_lub_pivot_kind(x);
                srec[buf][warp] = rloc;
#pragma unroll
                for (int g = 0; g < GR; ++g) {
                    if (g * F + F > i && g * F < live) {
#pragma unroll
                        for (int k = g * F > i ? g * F : i; k < g * F + F; ++k) srow[buf][warp][k] = v[k];
                    }
                }
            }
            ra_lus_group_sync<1>(threads, count, target);
            // every warp's candidate in one round of independent loads (its key, label and pivot
            // kind, its reciprocal and the next column's element of its row), then the best by a
            // tournament of selects (slots past nwp were not written this step: skipped)
            ra_u32 ch[PW], cl[PW];
            int cp[PW], cw[PW], ck[PW];
            T crec[PW], cnxt[PW];
#pragma unroll
            for (int w = 0; w < PW; ++w) {
                ch[w] = skey[buf][w][0];
                cl[w] = sizeof(R) == 8 ? skey[buf][w][1] : 0u;
                cp[w] = (int)skey[buf][w][2];
                ck[w] = (int)skey[buf][w][3];
                cw[w] = w;
                crec[w] = srec[buf][w];
                cnxt[w] = i + 1 < GR * F ? srow[buf][w][i + 1] : zero;
            }
#pragma unroll
            for (int s = 1; s < PW; s *= 2) {
#pragma unroll
                for (int w = 0; w + s < PW; w += 2 * s) {
                    const bool take =
                        w + s < nwp && ra_lus_beats(ch[w + s], cl[w + s], cp[w + s], ch[w], cl[w], cp[w]);
                    ch[w] = take ? ch[w + s] : ch[w];
                    cl[w] = take ? cl[w + s] : cl[w];
                    cp[w] = take ? cp[w + s] : cp[w];
                    cw[w] = take ? cw[w + s] : cw[w];
                    ck[w] = take ? ck[w + s] : ck[w];
                    crec[w] = take ? crec[w + s] : crec[w];
                    cnxt[w] = take ? cnxt[w + s] : cnxt[w];
                }
            }
            const int wb = cw[0], p = cp[0], kind = ck[0];
            const T rpiv = crec[0];
            if (kind == RA_LU_BLOCK_PIVOT_ZERO) {
                zbits |= 1 << c;
                if (bad == 0) bad = j + 1;
            }
            if (!SOLVE && t == 0) ipiv[j] = p + 1;
            // rows j and p exchange labels; the rows left below j scale and update
            const bool below = cand && label != p;
            if (label == p) label = j;
            else if (label == j) label = p;
            if (below) {
                T l = x;
                if (kind == RA_LU_BLOCK_PIVOT_RECIP) l = ra_lub_mul(x, rpiv);
                else if (kind == RA_LU_BLOCK_PIVOT_DIVIDE) l = ra_lub_div(x, srow[buf][wb][i]);
                v[i] = l;
                if (kind != RA_LU_BLOCK_PIVOT_ZERO) {
                    ub |= 1 << i;
                    // the next column first (its element came with the candidates): the next
                    // step's search waits on it alone
                    if (i + 1 < GR * F && (i + 1 < F || F < live)) v[i + 1] = ra_lub_fms(l, cnxt[0], v[i + 1]);
#pragma unroll
                    for (int g = 0; g < GR; ++g) {
                        if (g * F + F > i + 2 && g * F < live) {
#pragma unroll
                            for (int k = g * F > i + 2 ? g * F : i + 2; k < g * F + F; ++k)
                                v[k] = ra_lub_fms(l, srow[buf][wb][k], v[k]);
                        }
                    }
                }
            }
            if (has) {
                if (LROW) lrow[t][c] = v[i];
                else P[j0 + t + c * ldp] = v[i];
            }
        }
        if (WIN && live > F) {
            // the block's update of the frame columns past it (F .. live - 1), deferred: the
            // block's pivot rows publish those elements and their multipliers; a thread a column
            // solves for the pivot rows' final elements; every row then applies its steps to its
            // own in step order (the operations and order of a step-by-step update)
            const int d = label - (j0 + b * F);   // this row's step in the block if it was its pivot
            if (has && d >= 0 && d < F) {
#pragma unroll
                for (int k = F; k < NB; ++k)
                    if (k < live) sfar[d][k] = v[k];
#pragma unroll
                for (int s = 0; s < F; ++s) sfl[d][s] = v[s];
                sub[d] = ub;
            }
            ra_lus_group_sync<1>(threads, count, target);
            if (t < live - F) {
                T u[F];
#pragma unroll
                for (int s = 0; s < F; ++s) u[s] = sfar[s][F + t];
#pragma unroll
                for (int s = 1; s < F; ++s) {
                    const int steps = sub[s];
#pragma unroll
                    for (int r = 0; r < s; ++r)
                        if ((steps >> r) & 1) u[s] = ra_lub_fms(sfl[s][r], u[r], u[s]);
                }
#pragma unroll
                for (int s = 1; s < F; ++s) sfar[s][F + t] = u[s];
            }
            ra_lus_group_sync<1>(threads, count, target);
#pragma unroll
            for (int s = 0; s < F; ++s) {
                if ((ub >> s) & 1) {
                    const T l = v[s];
#pragma unroll
                    for (int k = F; k < NB; ++k)
                        if (k < live) v[k] = ra_lub_fms(l, sfar[s][k], v[k]);
                }
            }
        }
        if ((b + 1) * F < nb) {
#pragma unroll
            for (int k = 0; k + F < NB; ++k) v[k] = v[k + F];
        }
    }
    if (LROW) {
        // lrow's row t is this thread's own: no barrier before it is read back
        if (has)
            for (int c = 0; c < nb; ++c) P[label + c * ldp] = lrow[t][c];
    } else {
        // the row's finished columns back from its own row of the panel, then, once every row of
        // the crew has read its own, to the row its label names; half the columns at a time. The
        // fence makes the reads real loads: forwarded from the steps' stores, every finished
        // column would stay in registers through the whole panel
        __threadfence_block();
        constexpr int H = NB / 2;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            T row[H];
#pragma unroll
            for (int c = 0; c < H; ++c)
                if (has && half * H + c < nb) row[c] = P[j0 + t + (half * H + c) * ldp];
            ra_lus_group_sync<1>(threads, count, target);
#pragma unroll
            for (int c = 0; c < H; ++c)
                if (has && half * H + c < nb) P[label + (half * H + c) * ldp] = row[c];
        }
    }
    if (has) slabel[t] = label;
    if (t == 0) *szero = zbits;
}

// The compact kernel's staging of columns c0 .. n - 1 (from cs on into the scratch g) and of B by
// the update crew's threads gt = 0 .. GT - 1, while the panel crew factors panel 0. Not inlined,
// so that the panel crew's step keeps its registers.
template <typename T, int GT>
__device__ __noinline__ void ra_luc_stage_rest(int gt, int n, int nrhs, int c0, int cs, const T* A, ra_i64 a_rs,
                                               ra_i64 a_cs, const T* B, ra_i64 b_rs, ra_i64 b_cs, T* sA, int ld,
                                               T* g, int lg, T* sB) {
    ra_lub_stage_by<T, GT, 8>(gt, n, cs - c0, A + c0 * a_cs, a_rs, a_cs, sA + (ra_i64)c0 * ld, ld);
    if (cs < n) ra_lub_stage_by<T, GT, 8>(gt, n, n - cs, A + cs * a_cs, a_rs, a_cs, g, lg);
    ra_lub_stage_by<T, GT, 8>(gt, n, nrhs, B, b_rs, b_cs, sB, ld);
}

// The barrier of the threads that run ra_lus_apply: the block's, or the update crew's (crew, of
// `threads` threads)
RA_DEVICE void ra_lus_sync(bool crew, int threads, int* count, int& target) {
    if (crew) ra_lus_group_sync<2>(threads, count, target);
    else __syncthreads();
}

// Columns c0 .. c1 - 1 of sA brought up to date with panel q (its rows by label already in its
// columns, slabel its labels, zbits its zero pivots: see the head of this part), and the columns
// 0 .. left - 1 interchanged only; by the threads gt = 0 .. GT - 1 of the block or (crew) of the
// update crew. Ends with a barrier. Not inlined: its three calls would triple the kernel's code.
template <typename T, int NB>
__device__ __noinline__ void ra_lus_apply(int q, int n, T* sA, int ld, const int* slabel, int zbits, int c0,
                                          int c1, int left, int gt, int GT, bool crew, int* count, int& target) {
    constexpr int K = 8;   // elements a thread moves a round; rows a thread updates together
    const T zero = ra_lub_zero<T>();
    const int r0 = q * NB, mq = n - r0, nbq = mq < NB ? mq : NB;
    const int nc = c1 - c0, ncols = nc + left;
    // the interchanges: row r0 + t of each column goes to row slabel[t]; a round takes whole
    // columns (all of a column's reads before any of its writes)
    const int per_round = K * GT / mq;   // columns a round (mq <= K * GT / 16)
    for (int cbase = 0; cbase < ncols; cbase += per_round) {
        const int items = (ncols - cbase < per_round ? ncols - cbase : per_round) * mq;
        T x[K];
        int to[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const int e = k * GT + gt;
            to[k] = -1;
            if (e < items) {
                const int col = e / mq, row = e - col * mq;
                const int cc = cbase + col < left ? cbase + col : c0 + cbase + col - left;
                const int d = slabel[row];
                if (d != r0 + row) {
                    x[k] = sA[r0 + row + cc * ld];
                    to[k] = d + cc * ld;
                }
            }
        }
        ra_lus_sync(crew, GT, count, target);
#pragma unroll
        for (int k = 0; k < K; ++k)
            if (to[k] >= 0) sA[to[k]] = x[k];
        ra_lus_sync(crew, GT, count, target);
    }
    // U12: the unit lower triangular solve of the panel's rows, a thread a column: for a whole
    // panel without zero pivots in registers, else in place, skipping the zero pivots' steps
    for (int e = gt; e < nc; e += GT) {
        T* col = sA + (ra_i64)(c0 + e) * ld + r0;
        if (zbits == 0 && nbq == NB) {
            // in two halves of rows, so that half a column is live: the lower half takes the
            // upper half's finished rows back from shared memory, in the same step order
            constexpr int H = NB / 2;
            T x[H];
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const int i0 = half * H;
#pragma unroll
                for (int i = 0; i < H; ++i) x[i] = col[i0 + i];
                if (half == 1) {
#pragma unroll 4
                    for (int s = 0; s < H; ++s) {
                        const T xs = col[s];
                        const T* l = sA + (ra_i64)(r0 + s) * ld + r0 + H;
#pragma unroll
                        for (int i = 0; i < H; ++i) x[i] = ra_lub_fms(l[i], xs, x[i]);
                    }
                }
#pragma unroll
                for (int s = 0; s < H; ++s) {
                    const T* l = sA + (ra_i64)(r0 + i0 + s) * ld + r0 + i0;
#pragma unroll
                    for (int i = s + 1; i < H; ++i) x[i] = ra_lub_fms(l[i], x[s], x[i]);
                }
#pragma unroll
                for (int i = 0; i < H; ++i) col[i0 + i] = x[i];
            }
        } else {
            for (int s = 0; s < nbq; ++s) {
                if ((zbits >> s) & 1) continue;
                const T xs = col[s];
                const T* l = sA + (ra_i64)(r0 + s) * ld + r0;
                for (int i = s + 1; i < nbq; ++i) col[i] = ra_lub_fms(l[i], xs, col[i]);
            }
        }
    }
    ra_lus_sync(crew, GT, count, target);
    // A22 -= L21 U12: a thread a (column, K-row chunk), consecutive threads on consecutive
    // columns of the same rows (the multipliers' reads are broadcasts; a chunk's rows past n
    // read the allocation's slack and are not stored)
    const int below = mq - nbq, chunks = (below + K - 1) / K;
    for (int e = gt; e < nc * chunks; e += GT) {
        const int ch = e / nc, cc = c0 + (e - ch * nc);
        T* col = sA + (ra_i64)cc * ld;
        const int rb = r0 + nbq + ch * K;
        T a[K];
#pragma unroll
        for (int r = 0; r < K; ++r) a[r] = rb + r < n ? col[rb + r] : zero;
#pragma unroll 2
        for (int s = 0; s < nbq; ++s) {
            if (!((zbits >> s) & 1)) {
                const T u = col[r0 + s];
                const T* l = sA + (ra_i64)(r0 + s) * ld + rb;
#pragma unroll
                for (int r = 0; r < K; ++r) a[r] = ra_lub_fms(l[r], u, a[r]);
            }
        }
#pragma unroll
        for (int r = 0; r < K; ++r)
            if (rb + r < n) col[rb + r] = a[r];
    }
    ra_lus_sync(crew, GT, count, target);
}

template <typename T, int N, bool SOLVE, bool WIN>
__global__ RA_LAUNCH_BOUNDS(ra_lus_threads<T>::value) void ra_rocsolver_getrf_block_split(
    int n, int nrhs, const T* A, ra_i64 a_rs, ra_i64 a_cs, ra_i64 a_bs, T* F, ra_i64 ldf, ra_i64 strideF,
    int* __restrict__ ipiv, ra_i64 strideP, int* __restrict__ info, const T* __restrict__ B, ra_i64 b_rs,
    ra_i64 b_cs, ra_i64 b_bs, T* __restrict__ X, ra_i64 x_rs, ra_i64 x_cs, ra_i64 x_bs) {
    constexpr int W = RA_WARP_SIZE, NB = RA_LU_SPLIT_NB, THREADS = ra_lus_threads<T>::value;
    constexpr int PT = N, PW = PT / W, UT = THREADS - PT;
    static_assert(PT % W == 0 && UT % W == 0 && UT > 0, "both crews are whole warps");
    __shared__ T lrow[PT][NB + 1];       // the crew's rows of the panel, a thread's own row
    __shared__ __align__(16) T srow[2][PW][NB];       // a warp's candidate row of the panel (frame columns)
    __shared__ __align__(16) T srec[2][PW];           // its reciprocal
    __shared__ __align__(16) ra_u32 skey[2][PW][4];   // its key (two halves), label and pivot kind
    __shared__ T sfar[WIN ? ra_lus_frame<T>::value : 1][NB];   // WIN: the block's pivot rows past it
    __shared__ T sfl[WIN ? ra_lus_frame<T>::value : 1][ra_lus_frame<T>::value];   // their multipliers
    __shared__ int sub[ra_lus_frame<T>::value];                 // their steps
    __shared__ int slabel[2][PT];         // where the crew sent row j0 + t, by panel parity
    __shared__ int szero[2];              // the panel's zero pivots, by panel parity
    __shared__ int scount[2];             // the crews' barriers where they count arrivals
    const ra_i64 mat = blockIdx.x;
    const int tid = threadIdx.x;
    const int ld = n + 1;
    const int nce = SOLVE ? n + nrhs : n;   // columns of [A | B]
    T* sA = ra_lub_shared<T>();

    ra_lub_stage<T, THREADS>(n, n, A + mat * a_bs, a_rs, a_cs, sA, ld);
    if (SOLVE) ra_lub_stage<T, THREADS>(n, nrhs, B + mat * b_bs, b_rs, b_cs, sA + (ra_i64)ld * n, ld);
    if (tid < 2) scount[tid] = 0;
    __syncthreads();

    int ptarget = 0, utarget = 0;
    const int np = (n + NB - 1) / NB;
    int bad = 0;
    for (int k = 0; k < np; ++k) {
        const int j0 = k * NB, nb = n - j0 < NB ? n - j0 : NB;
        const int prev = (k + 1) & 1;   // panel k - 1's buffers
        const T* lp = sA + (ra_i64)(j0 - NB) * ld;   // panel k - 1's columns
        if (k > 0)
            ra_lus_apply<T, NB>(k - 1, n, sA, ld, slabel[prev], szero[prev], j0, j0 + nb, 0, tid, THREADS, false,
                                &scount[1], utarget);
        if (tid < PT) {
            ra_lus_factor<T, NB, PW, SOLVE, WIN, true>(j0, nb, n, sA + (ra_i64)j0 * ld, ld, lrow, srow, srec, skey,
                                                       sfar, sfl, sub, slabel[k & 1], &szero[k & 1],
                                                       ipiv + mat * strideP, bad, &scount[0], ptarget);
        } else if (k > 0) {
            ra_lus_apply<T, NB>(k - 1, n, sA, ld, slabel[prev], szero[prev], j0 + nb, nce, SOLVE ? 0 : j0 - NB,
                                tid - PT, UT, true, &scount[1], utarget);
        }
        __syncthreads();
    }
    // the last panel's interchanges (and solve) for the columns the loop left: B, or the columns
    // left of it
    {
        const int q = np - 1;
        ra_lus_apply<T, NB>(q, n, sA, ld, slabel[q & 1], szero[q & 1], n, nce, SOLVE ? 0 : q * NB, tid, THREADS,
                            false, &scount[1], utarget);
    }
    if (tid == 0) info[mat] = bad;
    if (!SOLVE) {
        T* f = F + mat * strideF;
        for (int e = tid; e < n * n; e += THREADS) {
            const int row = e % n, col = e / n;
            f[row + (ra_i64)col * ldf] = sA[row + col * ld];
        }
        return;
    }
    ra_lub_back_substitute<T, N, THREADS>(n, nrhs, sA, ld, sA + (ra_i64)ld * n, ld, X + mat * x_bs, x_rs, x_cs);
}

// ---------------------------------------------------------------------------------------------
// ra_rocsolver_getrf_block_compact<T, N, WIN>: the split kernel's solve (its crews, steps and
// order of operations, so the same bits) in about half a multiprocessor's shared memory, so that
// two blocks, two matrices' chains, share one; ra_luc_threads<T> threads (a panel crew of N, an
// update crew of the rest), each block solving matrices blockIdx.x, blockIdx.x + gridDim.x, ...
// (batch in all) in turn.
//  - The crew's finished columns go straight to the panel's own storage (no rows of the panel
//    apart): a thread's row in place as each step finishes, the whole row to the row its label
//    names at the panel's end.
//  - When cs < n (cs = RA_LU_COMPACT_COLUMNS, n - cs <= RA_LU_SPLIT_NB: the last panel's
//    columns), columns cs .. n - 1 start in the block's own global scratch G (leading dimension
//    ldg, rows from the matrix's row 0): the update crew brings them up to date there. When the
//    last panel begins, the L factors of panels 0 and 1 are no longer read, and the spilled
//    columns move into their rows (ra_luc_upper says where each element goes): rows 64 .. n - 1
//    of spilled column c, the ones still updated, into column c's rows 32 .. n - 33 (so the last
//    panel is one array, sA - 32, leading dimension ld), its finished rows 0 .. 63 around them.
// ---------------------------------------------------------------------------------------------

template <typename T> struct ra_luc_threads { static constexpr int value = 256; };
#define RA_LU_COMPACT_COLUMNS 96
// the register budget of two resident blocks a multiprocessor (CUDA's second bound; HIP reads a
// second bound as waves per execution unit, so it keeps the thread bound alone)
#if defined(RA_CUDA)
#define RA_LU_COMPACT_LAUNCH_BOUNDS(threads) __launch_bounds__(threads, 2)
#else
#define RA_LU_COMPACT_LAUNCH_BOUNDS(threads) __launch_bounds__(threads)
#endif

// Where the compact kernel keeps element (row, col) once the spilled columns moved (col >= cs:
// see the head of this part); the factors' upper triangle U(row, col) for the back substitution
template <typename T> struct ra_luc_upper {
    T* a;
    int ld, cs, n;
    RA_DEVICE T* at(int row, int col) const {
        if (col < cs) return a + row + col * ld;
        const int c = col - cs;
        if (row >= 64) return a + row - 32 + c * ld;
        return row < n - 64 ? a + 64 + row + (32 + c) * ld : a + row + 32 + c * ld;
    }
    RA_DEVICE T operator()(int row, int col) const { return *at(row, col); }
};

// The compact kernel's ra_lus_apply, for targets in two arrays (the split kernel keeps its own
// column-index form: its code generation is tuned to it, docs/performance/rocsolver.md).
// Target columns brought up to date with panel q (its rows by label already in its columns, L:
// element (r, s) of its column s at L[r + s * ldl]; slabel its labels, zbits its zero pivots: see
// the split kernel's part), and the columns 0 .. left - 1 at tl (leading dimension ld1)
// interchanged only. The targets: nc1 columns at t1 (leading dimension ld1), then, with SPILL,
// nc2 at t2 (ld2; without SPILL nc2 is 0), rows indexed from the matrix's row 0. Without SPILL
// every target is in one array with tl (the interchanges address it by 32-bit offsets from tl);
// with SPILL t2 may be global memory. By the threads gt = 0 .. GT - 1 of the block or (crew) of
// the update crew. Ends with a barrier. Not inlined: its calls would multiply the kernel's code.
template <typename T, int NB, bool SPILL>
__device__ __noinline__ void ra_luc_apply(int q, int n, const T* L, int ldl, T* t1, int ld1, int nc1, T* t2,
                                          int ld2, int nc2, T* tl, int left, const int* slabel, int zbits,
                                          int gt, int GT, bool crew, int* count, int& target) {
    constexpr int K = 8;   // elements a thread moves a round; rows a thread updates together
    const T zero = ra_lub_zero<T>();
    const int r0 = q * NB, mq = n - r0, nbq = mq < NB ? mq : NB;
    const int nc = SPILL ? nc1 + nc2 : nc1, ncols = nc + left;
    // target column e (0 .. nc - 1)
    auto column = [=](int e) -> T* {
        return !SPILL || e < nc1 ? t1 + (ra_i64)e * ld1 : t2 + (ra_i64)(e - nc1) * ld2;
    };
    // the interchanges: row r0 + t of each column goes to row slabel[t]; a round takes whole
    // columns (all of a column's reads before any of its writes)
    const int per_round = K * GT / mq;   // columns a round (at least one: mq <= K * GT)
    for (int cbase = 0; cbase < ncols; cbase += per_round) {
        const int items = (ncols - cbase < per_round ? ncols - cbase : per_round) * mq;
        T x[K];
        if constexpr (SPILL) {
            T* to[K];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const int e = k * GT + gt;
                to[k] = nullptr;
                if (e < items) {
                    const int col = e / mq, row = e - col * mq;
                    T* cp = cbase + col < left ? tl + (ra_i64)(cbase + col) * ld1 : column(cbase + col - left);
                    const int d = slabel[row];
                    if (d != r0 + row) {
                        x[k] = cp[r0 + row];
                        to[k] = cp + d;
                    }
                }
            }
            ra_lus_sync(crew, GT, count, target);
#pragma unroll
            for (int k = 0; k < K; ++k)
                if (to[k]) *to[k] = x[k];
        } else {
            // 32-bit offsets from tl: half the registers of pointers, one address add a store
            const int o1 = (int)(t1 - tl);
            int to[K];
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const int e = k * GT + gt;
                to[k] = -1;
                if (e < items) {
                    const int col = e / mq, row = e - col * mq;
                    const int co = cbase + col < left ? (cbase + col) * ld1 : o1 + (cbase + col - left) * ld1;
                    const int d = slabel[row];
                    if (d != r0 + row) {
                        x[k] = tl[co + r0 + row];
                        to[k] = co + d;
                    }
                }
            }
            ra_lus_sync(crew, GT, count, target);
#pragma unroll
            for (int k = 0; k < K; ++k)
                if (to[k] >= 0) tl[to[k]] = x[k];
        }
        ra_lus_sync(crew, GT, count, target);
    }
    // U12: the unit lower triangular solve of the panel's rows, a thread a column: for a whole
    // panel without zero pivots in registers, else in place, skipping the zero pivots' steps
    for (int e = gt; e < nc; e += GT) {
        T* col = column(e) + r0;
        if (zbits == 0 && nbq == NB) {
            // in two halves of rows, so that half a column is live: the lower half takes the
            // upper half's finished rows back from shared memory, in the same step order
            constexpr int H = NB / 2;
            T x[H];
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const int i0 = half * H;
#pragma unroll
                for (int i = 0; i < H; ++i) x[i] = col[i0 + i];
                if (half == 1) {
#pragma unroll 4
                    for (int s = 0; s < H; ++s) {
                        const T xs = col[s];
                        const T* l = L + (ra_i64)s * ldl + r0 + H;
#pragma unroll
                        for (int i = 0; i < H; ++i) x[i] = ra_lub_fms(l[i], xs, x[i]);
                    }
                }
#pragma unroll
                for (int s = 0; s < H; ++s) {
                    const T* l = L + (ra_i64)(i0 + s) * ldl + r0 + i0;
#pragma unroll
                    for (int i = s + 1; i < H; ++i) x[i] = ra_lub_fms(l[i], x[s], x[i]);
                }
#pragma unroll
                for (int i = 0; i < H; ++i) col[i0 + i] = x[i];
            }
        } else {
            for (int s = 0; s < nbq; ++s) {
                if ((zbits >> s) & 1) continue;
                const T xs = col[s];
                const T* l = L + (ra_i64)s * ldl + r0;
                for (int i = s + 1; i < nbq; ++i) col[i] = ra_lub_fms(l[i], xs, col[i]);
            }
        }
    }
    ra_lus_sync(crew, GT, count, target);
    // A22 -= L21 U12: a thread a (column, K-row chunk), consecutive threads on consecutive
    // columns of the same rows (the multipliers' reads are broadcasts; a chunk's rows past n
    // read the allocation's slack and are not stored)
    const int below = mq - nbq, chunks = (below + K - 1) / K;
    for (int e = gt; e < nc * chunks; e += GT) {
        const int ch = e / nc;
        T* col = column(e - ch * nc);
        const int rb = r0 + nbq + ch * K;
        T a[K];
#pragma unroll
        for (int r = 0; r < K; ++r) a[r] = rb + r < n ? col[rb + r] : zero;
        if constexpr (SPILL) {
            // the column's U12 elements K at a time, their loads in flight together (a spilled
            // column's come from global memory)
            for (int s0 = 0; s0 < nbq; s0 += K) {
                T u[K];
#pragma unroll
                for (int i = 0; i < K; ++i) u[i] = s0 + i < nbq ? col[r0 + s0 + i] : zero;
#pragma unroll
                for (int i = 0; i < K; ++i) {
                    const int s = s0 + i;
                    if (s < nbq && !((zbits >> s) & 1)) {
                        const T* l = L + (ra_i64)s * ldl + rb;
#pragma unroll
                        for (int r = 0; r < K; ++r) a[r] = ra_lub_fms(l[r], u[i], a[r]);
                    }
                }
            }
        } else {
#pragma unroll 2
            for (int s = 0; s < nbq; ++s) {
                if (!((zbits >> s) & 1)) {
                    const T u = col[r0 + s];
                    const T* l = L + (ra_i64)s * ldl + rb;
#pragma unroll
                    for (int r = 0; r < K; ++r) a[r] = ra_lub_fms(l[r], u, a[r]);
                }
            }
        }
#pragma unroll
        for (int r = 0; r < K; ++r)
            if (rb + r < n) col[rb + r] = a[r];
    }
    ra_lus_sync(crew, GT, count, target);
}

template <typename T, int N, bool WIN>
__global__ RA_LU_COMPACT_LAUNCH_BOUNDS(ra_luc_threads<T>::value) void ra_rocsolver_getrf_block_compact(
    int n, int nrhs, const T* A, ra_i64 a_rs, ra_i64 a_cs, ra_i64 a_bs, T* G, ra_i64 ldg, ra_i64 strideG,
    int* __restrict__ ipiv, ra_i64 strideP, int* __restrict__ info, const T* __restrict__ B, ra_i64 b_rs,
    ra_i64 b_cs, ra_i64 b_bs, T* __restrict__ X, ra_i64 x_rs, ra_i64 x_cs, ra_i64 x_bs, int cs, int batch) {
    constexpr int W = RA_WARP_SIZE, NB = RA_LU_SPLIT_NB, THREADS = ra_luc_threads<T>::value;
    constexpr int PT = N, PW = PT / W, UT = THREADS - PT;
    static_assert(PT % W == 0 && UT % W == 0 && UT > 0, "both crews are whole warps");
    static_assert(NB == 32 && RA_LU_COMPACT_COLUMNS == 3 * NB, "the spilled columns' moves assume these");
    (void)ipiv;
    (void)strideP;
    __shared__ __align__(16) T srow[2][PW][NB];       // a warp's candidate row of the panel (frame columns)
    __shared__ __align__(16) T srec[2][PW];           // its reciprocal
    __shared__ __align__(16) ra_u32 skey[2][PW][4];   // its key (two halves), label and pivot kind
    __shared__ T sfar[WIN ? ra_lus_frame<T>::value : 1][NB];   // WIN: the block's pivot rows past it
    __shared__ T sfl[WIN ? ra_lus_frame<T>::value : 1][ra_lus_frame<T>::value];   // their multipliers
    __shared__ int sub[ra_lus_frame<T>::value];                 // their steps
    __shared__ int slabel[2][PT];         // where the crew sent row j0 + t, by panel parity
    __shared__ int szero[2];              // the panel's zero pivots, by panel parity
    __shared__ int scount[2];             // the crews' barriers where they count arrivals
    const int tid = threadIdx.x;
    const int ld = n + 1;
    T* sA = ra_lub_shared<T>();
    T* sB = sA + (ra_i64)cs * ld;             // B, right after the shared columns
    T* g = G + (ra_i64)blockIdx.x * strideG;   // the spilled columns cs .. n - 1 until they move
    const int lg = (int)ldg;
    const ra_luc_upper<T> U = {sA, ld, cs, n};
    const int np = (n + NB - 1) / NB;
    for (ra_i64 mat = blockIdx.x; mat < batch; mat += gridDim.x) {
        // the counted barriers start afresh (a crew warp with no row in a panel skips its
        // barriers, so its count would fall behind the others')
        if (tid < 2) scount[tid] = 0;
        int ptarget = 0, utarget = 0;
        // panel 0's columns now, the rest by the update crew in phase 0 (8 loads in flight a
        // thread: the registers two blocks a multiprocessor leave)
        const int c0 = n < NB ? n : NB;
        ra_lub_stage<T, THREADS, 8>(n, c0, A + mat * a_bs, a_rs, a_cs, sA, ld);
        __syncthreads();
        int bad = 0;
        for (int k = 0; k < np; ++k) {
            const int j0 = k * NB, nb = n - j0 < NB ? n - j0 : NB;
            const int prev = (k + 1) & 1;   // panel k - 1's buffers
            if (j0 == cs) {
                // the last panel begins: the spilled columns into L's rows
                for (int e = tid; e < nb * n; e += THREADS) {
                    const int c = e / n, row = e - c * n;
                    *U.at(row, cs + c) = g[row + (ra_i64)c * lg];
                }
                __syncthreads();
            }
            // panel k's columns (the moved ones: rows >= 64 at sA - 32 + c * ld)
            T* panel = j0 < cs ? sA + (ra_i64)j0 * ld : sA - 32;
            const T* lp = sA + (ra_i64)(j0 - NB) * ld;   // panel k - 1's columns (never spilled)
            if (k > 0)
                ra_luc_apply<T, NB, false>(k - 1, n, lp, ld, panel, ld, nb, nullptr, 0, 0, sA, 0, slabel[prev],
                                           szero[prev], tid, THREADS, false, &scount[1], utarget);
            if (tid < PT) {
                ra_lus_factor<T, NB, PW, true, WIN, false>(j0, nb, n, panel, ld, nullptr, srow, srec, skey, sfar, sfl,
                                                           sub, slabel[k & 1], &szero[k & 1], nullptr, bad,
                                                           &scount[0], ptarget);
            } else if (k > 0) {
                // the shared columns right of the panel with B after them, then the spilled ones
                const int c1 = j0 + nb, cg = c1 > cs ? c1 : cs;
                T* t1 = c1 < cs ? sA + (ra_i64)c1 * ld : sB;
                const int nc1 = (c1 < cs ? cs - c1 : 0) + nrhs;
                if (cs < n)
                    ra_luc_apply<T, NB, true>(k - 1, n, lp, ld, t1, ld, nc1, g + (ra_i64)(cg - cs) * lg, lg, n - cg,
                                              sA, 0, slabel[prev], szero[prev], tid - PT, UT, true, &scount[1],
                                              utarget);
                else
                    ra_luc_apply<T, NB, false>(k - 1, n, lp, ld, t1, ld, nc1, nullptr, 0, 0, sA, 0, slabel[prev],
                                               szero[prev], tid - PT, UT, true, &scount[1], utarget);
            } else if (k == 0) {
                // the columns right of panel 0 and B, while the panel crew factors it
                ra_luc_stage_rest<T, UT>(tid - PT, n, nrhs, c0, cs, A + mat * a_bs, a_rs, a_cs, B + mat * b_bs, b_rs,
                                         b_cs, sA, ld, g, lg, sB);
            }
            __syncthreads();
        }
        // the last panel's interchanges and solve for B, then the back substitution
        const int q = np - 1;
        ra_luc_apply<T, NB, false>(q, n, q * NB < cs ? sA + (ra_i64)q * NB * ld : sA - 32, ld, sB, ld, nrhs,
                                   nullptr, 0, 0, sA, 0, slabel[q & 1], szero[q & 1], tid, THREADS, false,
                                   &scount[1], utarget);
        if (tid == 0) info[mat] = bad;
        ra_lub_back_substitute_by<T, N, THREADS>(n, nrhs, U, sB, ld, X + mat * x_bs, x_rs, x_cs);
        __syncthreads();   // the next matrix's staging overwrites what this one read
    }
}
