// rocsolver LU of small matrices, one matrix per group of N lanes of a warp (wavefront), the
// factors in registers (rocarray/rocsolver/_lu_kernels.py routes square matrices of order
// n <= 32 here). A warp holds G = RA_WARP_SIZE / N matrices (lanes g*N .. g*N+N-1 hold matrix
// g), a block several warps; there is no block barrier, only warp collectives.
//
// Lane li of a group holds row li of its matrix: the row's N elements in the register array
// r[N], indexed only by compile-time indices (every loop over N is fully unrolled), so it stays
// in registers. Rows and columns n .. N-1 are zeros and never stored.
//
// Factorization (ra_luw_factor, LAPACK getf2's semantics and arithmetic): rows never move
// between lanes. Each lane keeps `cur`, the position its row has in LAPACK's row order after the
// interchanges so far (initially its own row). Column j: the pivot is the first position of
// largest |re| + |im| among positions j .. n-1 (a butterfly argmax over the group of keys
// cur * N + lane, a NaN ranking below every number, so a column of NaNs keeps position j); its
// position pc gives ipiv[j] = pc + 1; the pivot lane takes position j and the lane at position j
// takes pc (LAPACK's swap of rows j and pc). A zero pivot sets info = j + 1 (the first) and
// leaves the column unscaled and the trailing rows alone; otherwise the lanes at positions > j
// divide element j by the pivot and subtract multiplier * pivot row from the rest of their row,
// the pivot row's elements broadcast by shuffles. At the end the row of position i is row i of
// L \ U.
//
// Memory goes through a per-warp shared tile (N + 1 elements per row: the odd row pitch keeps a
// lane-per-row access free of bank conflicts): the warp copies its G matrices between memory and
// the tile with consecutive lanes on consecutive elements along the smaller stride (coalesced
// for column-major and for C-ordered matrices alike), and each lane moves its own row between
// the tile and its registers. A lane-per-row load straight from memory would be coalesced for
// column-major data but, for C-ordered data, every load instruction would touch N different
// rows.
//
//  * ra_rocsolver_getrf_warp: getrf of column-major matrices (leading dimension lda, strideA
//    apart): L \ U written back in place (each row to its final position through the tile),
//    ipiv (1-based, strideP apart), info[b] set (0 or the first zero pivot's column, 1-based).
//  * ra_rocsolver_gesv_warp: A X = B for general element strides (row, column, batch; a batch
//    stride of 0 broadcasts one matrix); A is only read. After the factorization the rows are
//    permuted to their final positions through the tile (lane i then holds row i of L \ U, and
//    reads right-hand side row p(i), its row's original index); each lane scales the U part of
//    its row by the reciprocal of its diagonal element, and each right-hand side column runs a
//    forward and a backward substitution with one shuffle and no division per step. X may be B itself
//    (the same strides): a column is read by every lane before any lane writes it (the first
//    shuffle of its substitution orders them). X is not defined where info > 0.
//  * ra_rocsolver_getrs_warp: op(A) X = B (trans 0 'N', 1 'T', 2 'C') with A = P L U from
//    getrf (column-major, leading dimension lda) and B overwritten (ldb). Lane i holds row i of
//    op(L \ U): row i of the factors for 'N', column i (conjugated for 'C') otherwise, so that
//    both substitutions read only the lane's own row; the interchanges become one row index per
//    lane (where 'N' reads its right-hand side, where 'T'/'C' write their solution).

#define RA_ROCSOLVER_LU_WARP_BLOCK 256   // most threads of a block
#define RA_LUW_NO_KEY 0x7fffffff

template <typename T> struct ra_luw_real { typedef T type; };
template <typename R> struct ra_luw_real<ra_complex<R> > { typedef R type; };

RA_DEVICE float ra_luw_abs1(float a) { return ra_abs(a); }
RA_DEVICE double ra_luw_abs1(double a) { return ra_abs(a); }
template <typename R> RA_DEVICE R ra_luw_abs1(ra_complex<R> a) { return ra_abs(a.re) + ra_abs(a.im); }

RA_DEVICE bool ra_luw_is_zero(float a) { return a == 0.0f; }
RA_DEVICE bool ra_luw_is_zero(double a) { return a == 0.0; }
template <typename R> RA_DEVICE bool ra_luw_is_zero(ra_complex<R> a) { return a.re == R(0) && a.im == R(0); }

// c - a * b (the rounding of lu.hip's getf2)
RA_DEVICE float ra_luw_fms(float a, float b, float c) { return ra_fma(-a, b, c); }
RA_DEVICE double ra_luw_fms(double a, double b, double c) { return ra_fma(-a, b, c); }
template <typename R> RA_DEVICE ra_complex<R> ra_luw_fms(ra_complex<R> a, ra_complex<R> b, ra_complex<R> c) {
    return ra_make_complex<R>(ra_fma(-a.re, b.re, ra_fma(a.im, b.im, c.re)),
                              ra_fma(-a.re, b.im, ra_fma(-a.im, b.re, c.im)));
}

RA_DEVICE float ra_luw_conj(float a) { return a; }
RA_DEVICE double ra_luw_conj(double a) { return a; }
template <typename R> RA_DEVICE ra_complex<R> ra_luw_conj(ra_complex<R> a) { return ra_conj(a); }

template <typename T> RA_DEVICE T ra_luw_one() { return T(1); }
template <> RA_DEVICE ra_c64 ra_luw_one<ra_c64>() { return ra_make_complex<float>(1.0f, 0.0f); }
template <> RA_DEVICE ra_c128 ra_luw_one<ra_c128>() { return ra_make_complex<double>(1.0, 0.0); }

// a / b; complex by Smith's algorithm
RA_DEVICE float ra_luw_div(float a, float b) { return a / b; }
RA_DEVICE double ra_luw_div(double a, double b) { return a / b; }
template <typename R> RA_DEVICE ra_complex<R> ra_luw_div(ra_complex<R> a, ra_complex<R> b) {
    if (ra_abs(b.re) >= ra_abs(b.im)) {
        const R r = b.im / b.re, d = b.re + b.im * r;
        return ra_make_complex<R>((a.re + a.im * r) / d, (a.im - a.re * r) / d);
    }
    const R r = b.re / b.im, d = b.im + b.re * r;
    return ra_make_complex<R>((a.re * r + a.im) / d, (a.im * r - a.re) / d);
}

// (v, key) := the better of (v, key) and (v2, key2): larger value, then smaller key
template <typename R> RA_DEVICE void ra_luw_better(R& v, int& key, R v2, int key2) {
    if (v2 > v || (v2 == v && key2 < key)) {
        v = v2;
        key = key2;
    }
}

// The dynamic shared memory: WARPS tiles of RA_WARP_SIZE * (N + 1) elements, then WARPS runs
// of RA_WARP_SIZE ints (gesv's row origins).
template <typename T> RA_DEVICE T* ra_luw_shared() {
    extern __shared__ ra_u64 ra_luw_smem[];
    return reinterpret_cast<T*>(ra_align_shared<16>(reinterpret_cast<unsigned char*>(ra_luw_smem)));
}

// tile := the warp's G matrices from M (element (i, c) of matrix b at b * bs + i * rs + c * cs),
// zeros outside n x n and past the batch. Element e = t * RA_WARP_SIZE + lane walks the G
// matrices' N x N positions, along rows when cols_fast (C-ordered data), else along columns.
template <typename T, int N>
RA_DEVICE void ra_luw_load(T* tile, const T* M, ra_i64 rs, ra_i64 cs, ra_i64 bs, ra_i64 b0, ra_i64 batch, int n,
                           bool cols_fast) {
    const int lane = ra_lane_id();
#pragma unroll 4
    for (int t = 0; t < N; ++t) {
        const int e = t * RA_WARP_SIZE + lane;
        const int g = e / (N * N), f = e % (N * N);
        const int i = cols_fast ? f / N : f % N;
        const int c = cols_fast ? f % N : f / N;
        const ra_i64 b = b0 + g;
        T v = T();
        if (b < batch && i < n && c < n) v = M[b * bs + (ra_i64)i * rs + (ra_i64)c * cs];
        tile[(g * N + i) * (N + 1) + c] = v;
    }
}

// The n x n part of the warp's G tiles to column-major M (leading dimension ld, stride bs).
template <typename T, int N>
RA_DEVICE void ra_luw_store(const T* tile, T* M, ra_i64 ld, ra_i64 bs, ra_i64 b0, ra_i64 batch, int n) {
    const int lane = ra_lane_id();
#pragma unroll 4
    for (int t = 0; t < N; ++t) {
        const int e = t * RA_WARP_SIZE + lane;
        const int g = e / (N * N), f = e % (N * N);
        const int i = f % N, c = f / N;
        const ra_i64 b = b0 + g;
        if (b < batch && i < n && c < n) M[b * bs + i + (ra_i64)c * ld] = tile[(g * N + i) * (N + 1) + c];
    }
}

template <typename T, int N> RA_DEVICE void ra_luw_get_row(T (&r)[N], const T* row) {
#pragma unroll
    for (int c = 0; c < N; ++c) r[c] = row[c];
}

template <typename T, int N> RA_DEVICE void ra_luw_put_row(const T (&r)[N], T* row) {
#pragma unroll
    for (int c = 0; c < N; ++c) row[c] = r[c];
}

// LU with partial pivoting of the group's matrix, this lane holding row li in r (see the file
// comment). Returns this lane's final position in cur, ipiv[li] (1-based) in piv where li < n,
// and info (0 or the first zero pivot's column, 1-based). base: the group's first lane.
template <typename T, int N>
RA_DEVICE void ra_luw_factor(T (&r)[N], int n, int li, int base, int& cur, int& piv, int& info) {
    typedef typename ra_luw_real<T>::type R;
    cur = li;
    piv = 0;
    info = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        if (j < n) {
            R v = R(-1);
            int key = RA_LUW_NO_KEY;
            if (cur >= j && cur < n) {
                const R a = ra_luw_abs1(r[j]);
                v = a == a ? a : R(-0.5);   // a NaN loses to every number, ties among NaNs by position
                key = cur * N + li;          // positions are distinct: ties go to the lower position
            }
#pragma unroll
            for (int m = N / 2; m > 0; m >>= 1) ra_luw_better(v, key, ra_shfl_xor(v, m), ra_shfl_xor(key, m));
            const int pc = key / N, p = base + key % N;
            const T d = ra_shfl(r[j], p);
            const bool zero = ra_luw_is_zero(d);
            if (zero && info == 0) info = j + 1;
            if (li == j) piv = pc + 1;
            cur = cur == pc ? j : (cur == j ? pc : cur);
            const bool update = !zero && cur > j && cur < n;
            if (update) r[j] = ra_luw_div(r[j], d);
            // every lane shuffles (the groups of a warp differ in `update`)
#pragma unroll
            for (int c = j + 1; c < N; ++c) {
                if (c < n) {
                    const T u = ra_shfl(r[c], p);
                    if (update) r[c] = ra_luw_fms(r[j], u, r[c]);
                }
            }
        }
    }
}

template <typename T, int N>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSOLVER_LU_WARP_BLOCK) void ra_rocsolver_getrf_warp(
    ra_i64 n, T* __restrict__ A, ra_i64 lda, ra_i64 strideA, int* __restrict__ ipiv, ra_i64 strideP,
    int* __restrict__ info, ra_i64 batch) {
    static_assert(N <= RA_WARP_SIZE && RA_WARP_SIZE % N == 0, "a group of N lanes within one warp");
    constexpr int G = RA_WARP_SIZE / N;
    const int lane = ra_lane_id(), li = lane % N, g = lane / N, nn = (int)n;
    const ra_i64 b0 = ((ra_i64)blockIdx.x * (blockDim.x / RA_WARP_SIZE) + ra_warp_id()) * G;
    const ra_i64 b = b0 + g;
    T* tile = ra_luw_shared<T>() + (ra_i64)ra_warp_id() * RA_WARP_SIZE * (N + 1);
    ra_luw_load<T, N>(tile, A, 1, lda, strideA, b0, batch, nn, false);
    ra_warp_sync();
    T r[N];
    ra_luw_get_row<T, N>(r, tile + (g * N + li) * (N + 1));
    int cur, piv, bad;
    ra_luw_factor<T, N>(r, nn, li, g * N, cur, piv, bad);
    ra_warp_sync();
    ra_luw_put_row<T, N>(r, tile + (g * N + cur) * (N + 1));   // row of position cur
    ra_warp_sync();
    ra_luw_store<T, N>(tile, A, lda, strideA, b0, batch, nn);
    if (b < batch) {
        if (li < nn) ipiv[b * strideP + li] = piv;
        if (li == 0) info[b] = bad;
    }
}

template <typename T, int N>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSOLVER_LU_WARP_BLOCK) void ra_rocsolver_gesv_warp(
    ra_i64 n, ra_i64 nrhs, const T* __restrict__ A, ra_i64 a_rs, ra_i64 a_cs, ra_i64 a_bs, int a_cols_fast,
    const T* B, ra_i64 b_rs, ra_i64 b_cs, ra_i64 b_bs, T* X, ra_i64 x_rs, ra_i64 x_cs, ra_i64 x_bs,
    int* __restrict__ info, ra_i64 batch) {
    static_assert(N <= RA_WARP_SIZE && RA_WARP_SIZE % N == 0, "a group of N lanes within one warp");
    constexpr int G = RA_WARP_SIZE / N;
    const int lane = ra_lane_id(), li = lane % N, g = lane / N, base = g * N, nn = (int)n;
    const int warps = (int)(blockDim.x / RA_WARP_SIZE);
    const ra_i64 b0 = ((ra_i64)blockIdx.x * warps + ra_warp_id()) * G;
    const ra_i64 b = b0 + g;
    const bool live = b < batch && li < nn;
    T* tile = ra_luw_shared<T>() + (ra_i64)ra_warp_id() * RA_WARP_SIZE * (N + 1);
    int* origin = reinterpret_cast<int*>(ra_luw_shared<T>() + (ra_i64)warps * RA_WARP_SIZE * (N + 1)) +
                  ra_warp_id() * RA_WARP_SIZE;
    ra_luw_load<T, N>(tile, A, a_rs, a_cs, a_bs, b0, batch, nn, a_cols_fast != 0);
    ra_warp_sync();
    T r[N];
    ra_luw_get_row<T, N>(r, tile + (base + li) * (N + 1));
    int cur, piv, bad;
    ra_luw_factor<T, N>(r, nn, li, base, cur, piv, bad);
    ra_warp_sync();
    ra_luw_put_row<T, N>(r, tile + (base + cur) * (N + 1));
    origin[base + cur] = li;
    ra_warp_sync();
    ra_luw_get_row<T, N>(r, tile + (base + li) * (N + 1));   // now row li of L \ U
    const int src = origin[base + li];                        // its original row
    if (b < batch && li == 0) info[b] = bad;
    // U's row divided by its diagonal (one reciprocal per row), so the backward substitution
    // needs no division: (D^-1 U) x = D^-1 y
    T dg = ra_luw_one<T>();
#pragma unroll
    for (int c = 0; c < N; ++c) {
        if (c == li) dg = r[c];
    }
    const T dinv = ra_luw_div(ra_luw_one<T>(), dg);
#pragma unroll
    for (int c = 1; c < N; ++c) {
        if (c > li) r[c] = r[c] * dinv;
    }
    const T* Bb = B + b * b_bs + (ra_i64)src * b_rs;
    T* Xb = X + b * x_bs + (ra_i64)li * x_rs;
    for (ra_i64 k = 0; k < nrhs; ++k) {
        T x = live ? Bb[k * b_cs] : T();
        // L y = P^T b: step j subtracts L(i, j) y_j from the rows below
#pragma unroll
        for (int j = 0; j < N; ++j) {
            if (j + 1 < nn) {
                const T y = ra_shfl(x, base + j);
                if (li > j) x = ra_luw_fms(r[j], y, x);
            }
        }
        x = x * dinv;
        // (D^-1 U) x = D^-1 y: x_j is final at step j and leaves the rows above
#pragma unroll
        for (int j = N - 1; j > 0; --j) {
            if (j < nn) {
                const T y = ra_shfl(x, base + j);
                if (li < j) x = ra_luw_fms(r[j], y, x);
            }
        }
        if (live) Xb[k * x_cs] = x;
    }
}

template <typename T, int N>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSOLVER_LU_WARP_BLOCK) void ra_rocsolver_getrs_warp(
    ra_i64 n, ra_i64 nrhs, const T* __restrict__ A, ra_i64 lda, ra_i64 strideA, const int* __restrict__ ipiv,
    ra_i64 strideP, T* __restrict__ B, ra_i64 ldb, ra_i64 strideB, ra_i64 batch, int trans) {
    static_assert(N <= RA_WARP_SIZE && RA_WARP_SIZE % N == 0, "a group of N lanes within one warp");
    constexpr int G = RA_WARP_SIZE / N;
    const int lane = ra_lane_id(), li = lane % N, g = lane / N, base = g * N, nn = (int)n;
    const ra_i64 b0 = ((ra_i64)blockIdx.x * (blockDim.x / RA_WARP_SIZE) + ra_warp_id()) * G;
    const ra_i64 b = b0 + g;
    const bool live = b < batch && li < nn, tr = trans != 0;
    T* tile = ra_luw_shared<T>() + (ra_i64)ra_warp_id() * RA_WARP_SIZE * (N + 1);
    // lane i takes row i of op(L \ U): row i of the factors, or column i (conjugated for 'C')
    if (tr) {
        ra_luw_load<T, N>(tile, A, lda, 1, strideA, b0, batch, nn, true);
    } else {
        ra_luw_load<T, N>(tile, A, 1, lda, strideA, b0, batch, nn, false);
    }
    ra_warp_sync();
    T r[N];
    ra_luw_get_row<T, N>(r, tile + (base + li) * (N + 1));
    if (trans == 2) {
#pragma unroll
        for (int c = 0; c < N; ++c) r[c] = ra_luw_conj(r[c]);
    }
    // the op(U) part of the row divided by its diagonal: U right of it ('N'), op(U) left of it
    T dg = ra_luw_one<T>();
#pragma unroll
    for (int c = 0; c < N; ++c) {
        if (c == li) dg = r[c];
    }
    const T dinv = ra_luw_div(ra_luw_one<T>(), dg);
#pragma unroll
    for (int c = 0; c < N; ++c) {
        if (tr ? c < li : c > li) r[c] = r[c] * dinv;
    }
    // q: the row that LAPACK's interchanges 0 .. n-1, in order, bring to position li; 'N' reads
    // right-hand side row q (P^T b), 'T'/'C' write the solution's row li to row q (P w)
    int q = li;
    if (live) {
        const int* p = ipiv + b * strideP;
        for (int s = nn - 1; s >= 0; --s) {
            const int ps = p[s] - 1;
            q = q == s ? ps : (q == ps ? s : q);
        }
    }
    T* Bb = B + b * strideB;
    const ra_i64 rin = tr ? li : q, rout = tr ? q : li;
    for (ra_i64 k = 0; k < nrhs; ++k) {
        T x = live ? Bb[rin + k * ldb] : T();
        if (tr) x = x * dinv;
        // downward: unit L ('N') or D^-1 op(U) ('T'/'C'); x_j is final at step j
#pragma unroll
        for (int j = 0; j < N; ++j) {
            if (j + 1 < nn) {
                const T y = ra_shfl(x, base + j);
                if (li > j) x = ra_luw_fms(r[j], y, x);
            }
        }
        if (!tr) x = x * dinv;
        // upward: D^-1 U ('N') or unit op(L) ('T'/'C')
#pragma unroll
        for (int j = N - 1; j > 0; --j) {
            if (j < nn) {
                const T y = ra_shfl(x, base + j);
                if (li < j) x = ra_luw_fms(r[j], y, x);
            }
        }
        if (live) Bb[rout + k * ldb] = x;
    }
}

// ---- ra_rocsolver_gesv_warp_flat: gesv_warp's contract and results, shorter chains ----------
//
// The same factorization, pivots, info and substitutions as ra_rocsolver_gesv_warp, with the
// code laid out for the hardware's pipelines:
//  * the rank-1 update shuffles every column of the pivot row (the pivot row of a matrix of
//    order n < N is zero past column n, so the padding stays zero for finite multipliers and is
//    never read back), with no branch per element: the shuffles of a column step then issue back
//    to back instead of one shuffle's latency per element;
//  * with one matrix per warp (N = RA_WARP_SIZE), the pivot search reduces a rank, an unsigned
//    integer ordered like the candidates (ineligible < NaN < |a| by its bits), with warp-wide
//    max and min reductions (one instruction each on NVIDIA sm_80+, else a butterfly): the
//    largest rank, then the smallest position among the lanes that hold it (LAPACK's first row),
//    then its lane by a ballot;
//  * a warp whose G matrices are whole, dense and C-ordered (the façade's usual stack) loads them
//    with 16-byte loads, all in flight at once.
template <typename T, int K> struct alignas(16) ra_luw_chunk { T x[K]; };

RA_DEVICE void ra_luw_rank(float a, bool eligible, ra_u32& hi, ra_u32& lo) {
    hi = !eligible ? 0u : (a == a ? __float_as_uint(a) + 2u : 1u);   // a = |x|: bits ordered as values
    lo = 0u;
}
RA_DEVICE void ra_luw_rank(double a, bool eligible, ra_u32& hi, ra_u32& lo) {
    const ra_u64 bits = (ra_u64)__double_as_longlong(a);
    const bool number = eligible && a == a;
    hi = !eligible ? 0u : (number ? (ra_u32)(bits >> 32) + 2u : 1u);
    lo = number ? (ra_u32)bits : 0u;
}


// ra_luw_factor's contract (cur, piv, info), the layout above.
template <typename T, int N>
RA_DEVICE void ra_luw_factor_flat(T (&r)[N], int n, int li, int base, int& cur, int& piv, int& info) {
    typedef typename ra_luw_real<T>::type R;
    cur = li;
    piv = 0;
    info = 0;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        if (j < n) {
            const bool eligible = cur >= j && cur < n;
            int pc, p;
            if constexpr (N == RA_WARP_SIZE) {
                ra_u32 hi, lo;
                ra_luw_rank(ra_luw_abs1(r[j]), eligible, hi, lo);
                bool top = hi == ra_warp_max_u32(hi);
                if constexpr (sizeof(R) == 8) {
                    const ra_u32 low = ra_warp_max_u32(top ? lo : 0u);   // every lane takes part
                    top = top && lo == low;
                }
                pc = (int)ra_warp_min_u32(top ? (ra_u32)cur : ~0u);
                p = __ffsll((long long)ra_ballot(cur == pc)) - 1;
            } else {
                R v = R(-1);
                int key = RA_LUW_NO_KEY;
                if (eligible) {
                    const R a = ra_luw_abs1(r[j]);
                    v = a == a ? a : R(-0.5);
                    key = cur * N + li;
                }
#pragma unroll
                for (int m = N / 2; m > 0; m >>= 1) ra_luw_better(v, key, ra_shfl_xor(v, m), ra_shfl_xor(key, m));
                pc = key / N;
                p = base + key % N;
            }
            const T d = ra_shfl(r[j], p);
            const bool zero = ra_luw_is_zero(d);
            if (zero && info == 0) info = j + 1;
            if (li == j) piv = pc + 1;
            cur = cur == pc ? j : (cur == j ? pc : cur);
            const bool update = !zero && cur > j && cur < n;
            if (update) r[j] = ra_luw_div(r[j], d);
#pragma unroll
            for (int c = j + 1; c < N; ++c) {
                const T u = ra_shfl(r[c], p);
                if (update) r[c] = ra_luw_fms(r[j], u, r[c]);
            }
        }
    }
}

// ra_luw_load for G whole, dense, C-ordered N x N matrices at M (M 16-byte aligned): lane l
// loads chunks l, l + RA_WARP_SIZE, ... of K elements, every load issued before any store.
template <typename T, int N>
RA_DEVICE void ra_luw_load_dense(T* tile, const T* M) {
    constexpr int K = 16 / (int)sizeof(T) > 0 ? 16 / (int)sizeof(T) : 1;
    constexpr int CHUNKS = N * N * (RA_WARP_SIZE / N) / K / RA_WARP_SIZE;   // per lane
    typedef ra_luw_chunk<T, K> chunk;
    const int lane = ra_lane_id();
    const chunk* src = reinterpret_cast<const chunk*>(M);
    chunk v[CHUNKS];
#pragma unroll
    for (int t = 0; t < CHUNKS; ++t) v[t] = src[t * RA_WARP_SIZE + lane];
#pragma unroll
    for (int t = 0; t < CHUNKS; ++t) {
        const int e = (t * RA_WARP_SIZE + lane) * K;
        const int g = e / (N * N), f = e % (N * N), i = f / N, c = f % N;
#pragma unroll
        for (int k = 0; k < K; ++k) tile[(g * N + i) * (N + 1) + c + k] = v[t].x[k];
    }
}

template <typename T, int N>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSOLVER_LU_WARP_BLOCK) void ra_rocsolver_gesv_warp_flat(
    ra_i64 n, ra_i64 nrhs, const T* __restrict__ A, ra_i64 a_rs, ra_i64 a_cs, ra_i64 a_bs, int a_layout,
    const T* B, ra_i64 b_rs, ra_i64 b_cs, ra_i64 b_bs, T* X, ra_i64 x_rs, ra_i64 x_cs, ra_i64 x_bs,
    int* __restrict__ info, ra_i64 batch) {
    static_assert(N <= RA_WARP_SIZE && RA_WARP_SIZE % N == 0, "a group of N lanes within one warp");
    static_assert(16 % sizeof(T) == 0 && (N * N) % (16 / sizeof(T)) == 0, "whole 16-byte chunks");
    constexpr int G = RA_WARP_SIZE / N;
    const int lane = ra_lane_id(), li = lane % N, g = lane / N, base = g * N, nn = (int)n;
    const int warps = (int)(blockDim.x / RA_WARP_SIZE);
    const ra_i64 b0 = ((ra_i64)blockIdx.x * warps + ra_warp_id()) * G;
    const ra_i64 b = b0 + g;
    const bool live = b < batch && li < nn;
    T* tile = ra_luw_shared<T>() + (ra_i64)ra_warp_id() * RA_WARP_SIZE * (N + 1);
    int* origin = reinterpret_cast<int*>(ra_luw_shared<T>() + (ra_i64)warps * RA_WARP_SIZE * (N + 1)) +
                  ra_warp_id() * RA_WARP_SIZE;
    // a_layout: 2 = dense C-ordered N x N stack (16-byte aligned), 1 = rows along the smaller
    // stride, 0 = columns along it
    if (a_layout == 2 && b0 + G <= batch) {
        ra_luw_load_dense<T, N>(tile, A + b0 * a_bs);
    } else {
        ra_luw_load<T, N>(tile, A, a_rs, a_cs, a_bs, b0, batch, nn, a_layout != 0);
    }
    ra_warp_sync();
    T r[N];
    ra_luw_get_row<T, N>(r, tile + (base + li) * (N + 1));
    int cur, piv, bad;
    ra_luw_factor_flat<T, N>(r, nn, li, base, cur, piv, bad);
    ra_warp_sync();
    ra_luw_put_row<T, N>(r, tile + (base + cur) * (N + 1));
    origin[base + cur] = li;
    ra_warp_sync();
    ra_luw_get_row<T, N>(r, tile + (base + li) * (N + 1));   // now row li of L \ U
    const int src = origin[base + li];                        // its original row
    if (b < batch && li == 0) info[b] = bad;
    T dg = ra_luw_one<T>();
#pragma unroll
    for (int c = 0; c < N; ++c) {
        if (c == li) dg = r[c];
    }
    const T dinv = ra_luw_div(ra_luw_one<T>(), dg);
#pragma unroll
    for (int c = 1; c < N; ++c) {
        if (c > li) r[c] = r[c] * dinv;
    }
    const T* Bb = B + b * b_bs + (ra_i64)src * b_rs;
    T* Xb = X + b * x_bs + (ra_i64)li * x_rs;
    for (ra_i64 k = 0; k < nrhs; ++k) {
        T x = live ? Bb[k * b_cs] : T();
#pragma unroll
        for (int j = 0; j < N; ++j) {
            if (j + 1 < nn) {
                const T y = ra_shfl(x, base + j);
                if (li > j) x = ra_luw_fms(r[j], y, x);
            }
        }
        x = x * dinv;
#pragma unroll
        for (int j = N - 1; j > 0; --j) {
            if (j < nn) {
                const T y = ra_shfl(x, base + j);
                if (li < j) x = ra_luw_fms(r[j], y, x);
            }
        }
        if (live) Xb[k * x_cs] = x;
    }
}
