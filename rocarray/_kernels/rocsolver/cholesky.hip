// rocSOLVER Cholesky family: the small kernels under the blocked drivers of
// rocarray/rocsolver/_cholesky.py and _trtri.py. Everything O(n^3) of a large matrix runs in rocblas
// trsm/trmm/syrk/herk; these take one diagonal block (or one small matrix of a batch) per thread block.
//
// Column-major as LAPACK: element (i, j) of a matrix is A[i + j * lda], 64-bit offsets. The Python
// layer has checked every bound, and the order n of a block fits the dynamic shared memory it grants
// (n * (n + 1) elements) and is at most RA_ROCSOLVER_CHOL_BLOCK.
//
// One normal form for both triangles: shared memory holds a LOWER triangular matrix S (ld n + 1).
// A lower-stored A loads as S(i, k) = A(i, k); an upper-stored A as S(k, i) = conj(A(i, k)), i.e.
// S = U^H. Then potrf's A = U^H U = S S^H, trtri's inv(U) = inv(S)^H, and lauum's U U^H = S^H S,
// so every kernel works on a lower S and stores back through the same map.
//
//  * ra_rocsolver_potf2: S := chol(S) (S S^H = the input), right-looking, one column per step
//    (LAPACK's unblocked potf2). A diagonal that is not > 0 (a NaN included) stops the walk:
//    info := j0 + j + 1 (1-based) if info is still 0. blockIdx.x is the matrix of a strided batch.
//  * ra_rocsolver_potrs_small: with a factor from potf2, B := inv(S S^H) B for a strided batch;
//    a thread solves one right-hand side (forward, then backward substitution) in global memory
//    while the factor is read from shared memory (the same address across a warp: a broadcast).
//  * ra_rocsolver_trti2: S := inv(S) in place, columns from the last (LAPACK's trti2, lower);
//    UNIT: the diagonal is taken as 1 and never read or written.
//  * ra_rocsolver_lauu2: S := S^H S (lower triangle of the Hermitian product), row by row from
//    the top: row i of the product reads only rows >= i of S, so rows above may be overwritten.
//  * ra_rocsolver_zero_diag: info := 1 + the first i with A(i, i) == 0, or 0; a strided batch.
//  * ra_rocsolver_potf2_inv: potf2 of one block held in registers, and the inverse of its factor
//    in the same launch (see its section at the end of the file).
//  * ra_rocsolver_lacpy: a copy of an m x n block.

#define RA_ROCSOLVER_CHOL_BLOCK 256

// flags (mirrored in rocarray/rocsolver/_cholesky_kernels.py)
#define RA_ROCSOLVER_CHOL_UPPER 0x01   // A stores its upper triangle
#define RA_ROCSOLVER_CHOL_UNIT 0x02    // trti2: unit diagonal

extern __shared__ ra_c128 ra_rocsolver_chol_smem[];

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

RA_DEVICE float ra_rsc_conj(float a) { return a; }
RA_DEVICE double ra_rsc_conj(double a) { return a; }
template <typename R> RA_DEVICE ra_complex<R> ra_rsc_conj(ra_complex<R> a) { return ra_conj(a); }

RA_DEVICE float ra_rsc_re(float a) { return a; }
RA_DEVICE double ra_rsc_re(double a) { return a; }
template <typename R> RA_DEVICE R ra_rsc_re(ra_complex<R> a) { return a.re; }

template <typename T> struct ra_rsc_make {
    static RA_DEVICE T real(T r) { return r; }
};
template <typename R> struct ra_rsc_make<ra_complex<R> > {
    static RA_DEVICE ra_complex<R> real(R r) { return ra_make_complex<R>(r, R(0)); }
};

// c - a * b
RA_DEVICE float ra_rsc_msub(float a, float b, float c) { return ra_fma(-a, b, c); }
RA_DEVICE double ra_rsc_msub(double a, double b, double c) { return ra_fma(-a, b, c); }
template <typename R> RA_DEVICE ra_complex<R> ra_rsc_msub(ra_complex<R> a, ra_complex<R> b, ra_complex<R> c) {
    return ra_make_complex<R>(ra_fma(-a.re, b.re, ra_fma(a.im, b.im, c.re)),
                              ra_fma(-a.re, b.im, ra_fma(-a.im, b.re, c.im)));
}

// a * b + c
RA_DEVICE float ra_rsc_madd(float a, float b, float c) { return ra_fma(a, b, c); }
RA_DEVICE double ra_rsc_madd(double a, double b, double c) { return ra_fma(a, b, c); }
template <typename R> RA_DEVICE ra_complex<R> ra_rsc_madd(ra_complex<R> a, ra_complex<R> b, ra_complex<R> c) {
    return ra_make_complex<R>(ra_fma(a.re, b.re, ra_fma(-a.im, b.im, c.re)),
                              ra_fma(a.re, b.im, ra_fma(a.im, b.re, c.im)));
}

// a * s for a real s
RA_DEVICE float ra_rsc_scale(float a, float s) { return a * s; }
RA_DEVICE double ra_rsc_scale(double a, double s) { return a * s; }
template <typename R> RA_DEVICE ra_complex<R> ra_rsc_scale(ra_complex<R> a, R s) { return s * a; }

// 1 / b; complex by Smith's algorithm
RA_DEVICE float ra_rsc_recip(float b) { return 1.0f / b; }
RA_DEVICE double ra_rsc_recip(double b) { return 1.0 / b; }
template <typename R> RA_DEVICE ra_complex<R> ra_rsc_recip(ra_complex<R> b) {
    if (ra_abs(b.re) >= ra_abs(b.im)) {
        const R r = b.im / b.re, d = b.re + b.im * r;
        return ra_make_complex<R>(R(1) / d, -r / d);
    }
    const R r = b.re / b.im, d = b.im + b.re * r;
    return ra_make_complex<R>(r / d, R(-1) / d);
}

RA_DEVICE bool ra_rsc_is_zero(float a) { return a == 0.0f; }
RA_DEVICE bool ra_rsc_is_zero(double a) { return a == 0.0; }
template <typename R> RA_DEVICE bool ra_rsc_is_zero(ra_complex<R> a) { return a.re == R(0) && a.im == R(0); }

// Threads as a grid of RA_WARP_SIZE rows by RA_ROCSOLVER_CHOL_COLS columns: a warp takes
// consecutive rows of one column (coalesced in global memory, consecutive in shared memory).
#define RA_ROCSOLVER_CHOL_COLS (RA_ROCSOLVER_CHOL_BLOCK / RA_WARP_SIZE)

// The stored triangle of the n x n matrix a into the lower S (see the top of the file). Without
// `diag` the diagonal is neither read nor written.
template <typename T>
RA_DEVICE void ra_rsc_load(int n, const T* __restrict__ a, ra_i64 lda, bool upper, bool diag, T* S, int ld) {
    const int tr = (int)threadIdx.x % RA_WARP_SIZE, tc = (int)threadIdx.x / RA_WARP_SIZE;
    for (int c = tc; c < n; c += RA_ROCSOLVER_CHOL_COLS) {
        for (int r = tr; r < n; r += RA_WARP_SIZE) {
            if (upper ? (r < c || (diag && r == c)) : (r > c || (diag && r == c))) {
                const T v = a[r + (ra_i64)c * lda];
                if (upper) S[c + r * ld] = ra_rsc_conj(v);
                else S[r + c * ld] = v;
            }
        }
    }
}

// The lower S back into the stored triangle of a (the inverse map of ra_rsc_load).
template <typename T>
RA_DEVICE void ra_rsc_store(int n, T* __restrict__ a, ra_i64 lda, bool upper, bool diag, const T* S, int ld) {
    const int tr = (int)threadIdx.x % RA_WARP_SIZE, tc = (int)threadIdx.x / RA_WARP_SIZE;
    for (int c = tc; c < n; c += RA_ROCSOLVER_CHOL_COLS) {
        for (int r = tr; r < n; r += RA_WARP_SIZE) {
            if (upper ? (r < c || (diag && r == c)) : (r > c || (diag && r == c)))
                a[r + (ra_i64)c * lda] = upper ? ra_rsc_conj(S[c + r * ld]) : S[r + c * ld];
        }
    }
}

// S := chol(S), lower, in shared memory; returns 0 or the 1-based failing column (uniform).
template <typename T>
RA_DEVICE int ra_rsc_factor(int n, T* S, int ld) {
    typedef typename ra_real_of<T>::type R;
    __shared__ R s_inv;
    __shared__ int s_fail;
    const int t = (int)threadIdx.x;
    const int tr = t % RA_WARP_SIZE, tc = t / RA_WARP_SIZE;
    if (t == 0) s_fail = 0;
    __syncthreads();
    for (int j = 0; j < n; ++j) {
        if (t == 0) {
            const R d = ra_rsc_re(S[j + j * ld]);
            if (d > R(0)) {  // false for a NaN
                const R s = ra_sqrt(d);
                S[j + j * ld] = ra_rsc_make<T>::real(s);
                s_inv = R(1) / s;
            } else {
                s_fail = j + 1;
            }
        }
        __syncthreads();
        if (s_fail != 0) break;  // uniform: read by every thread after the barrier
        const R inv = s_inv;
        for (int i = j + 1 + t; i < n; i += RA_ROCSOLVER_CHOL_BLOCK) S[i + j * ld] = ra_rsc_scale(S[i + j * ld], inv);
        __syncthreads();
        // trailing lower triangle: S(i, k) -= S(i, j) conj(S(k, j)) for j < k <= i
        for (int k = j + 1 + tc; k < n; k += RA_ROCSOLVER_CHOL_COLS) {
            const T skj = ra_rsc_conj(S[k + j * ld]);
            for (int i = k + tr; i < n; i += RA_WARP_SIZE) S[i + k * ld] = ra_rsc_msub(S[i + j * ld], skj, S[i + k * ld]);
        }
        __syncthreads();
    }
    const int fail = s_fail;
    __syncthreads();  // s_fail read by all before a later call could reset it
    return fail;
}

// ---------------------------------------------------------------------------------------------
// kernels
// ---------------------------------------------------------------------------------------------

// Cholesky of matrix blockIdx.x (A + blockIdx.x * stride), order n, in place; info[blockIdx.x]
// := j0 + the failing column if it is 0 (the caller zeroes info before the first step).
template <typename T>
__global__ void __launch_bounds__(RA_ROCSOLVER_CHOL_BLOCK)
ra_rocsolver_potf2(ra_i64 n64, T* __restrict__ A, ra_i64 lda, ra_i64 stride, int* __restrict__ info, ra_i64 j0,
                   int flags) {
    T* S = reinterpret_cast<T*>(ra_rocsolver_chol_smem);
    const int n = (int)n64, ld = n + 1;
    const bool upper = (flags & RA_ROCSOLVER_CHOL_UPPER) != 0;
    T* a = A + (ra_i64)blockIdx.x * stride;
    ra_rsc_load(n, a, lda, upper, true, S, ld);
    __syncthreads();
    const int fail = ra_rsc_factor(n, S, ld);
    ra_rsc_store(n, a, lda, upper, true, S, ld);
    if (threadIdx.x == 0 && fail != 0 && info[blockIdx.x] == 0) info[blockIdx.x] = (int)(j0 + fail);
}

// B := inv(A) B for matrix blockIdx.x of a strided batch, A holding potf2's factor of order n;
// nrhs columns of B, one per thread.
template <typename T>
__global__ void __launch_bounds__(RA_ROCSOLVER_CHOL_BLOCK)
ra_rocsolver_potrs_small(ra_i64 n64, ra_i64 nrhs, const T* __restrict__ A, ra_i64 lda, ra_i64 stride_a,
                         T* __restrict__ B, ra_i64 ldb, ra_i64 stride_b, int flags) {
    typedef typename ra_real_of<T>::type R;
    T* S = reinterpret_cast<T*>(ra_rocsolver_chol_smem);
    const int n = (int)n64, ld = n + 1;
    const bool upper = (flags & RA_ROCSOLVER_CHOL_UPPER) != 0;
    ra_rsc_load(n, A + (ra_i64)blockIdx.x * stride_a, lda, upper, true, S, ld);
    __syncthreads();
    T* b0 = B + (ra_i64)blockIdx.x * stride_b;
    for (ra_i64 c = threadIdx.x; c < nrhs; c += RA_ROCSOLVER_CHOL_BLOCK) {
        T* x = b0 + c * ldb;
        for (int i = 0; i < n; ++i) {  // S y = b
            T s = x[i];
            for (int k = 0; k < i; ++k) s = ra_rsc_msub(S[i + k * ld], x[k], s);
            x[i] = ra_rsc_scale(s, R(1) / ra_rsc_re(S[i + i * ld]));
        }
        for (int i = n - 1; i >= 0; --i) {  // S^H x = y
            T s = x[i];
            for (int k = i + 1; k < n; ++k) s = ra_rsc_msub(ra_rsc_conj(S[k + i * ld]), x[k], s);
            x[i] = ra_rsc_scale(s, R(1) / ra_rsc_re(S[i + i * ld]));
        }
    }
}

// A := inv(A) for one triangular block of order n (no test for a zero diagonal: zero_diag's job).
template <typename T>
__global__ void __launch_bounds__(RA_ROCSOLVER_CHOL_BLOCK)
ra_rocsolver_trti2(ra_i64 n64, T* __restrict__ A, ra_i64 lda, int flags) {
    T* S = reinterpret_cast<T*>(ra_rocsolver_chol_smem);
    const int n = (int)n64, ld = n + 1;
    T* xs = S + n * ld;  // the column being replaced (n elements after S)
    const bool upper = (flags & RA_ROCSOLVER_CHOL_UPPER) != 0;
    const bool unit = (flags & RA_ROCSOLVER_CHOL_UNIT) != 0;
    const int t = (int)threadIdx.x;
    const T zero = ra_traits<T>::zero();
    ra_rsc_load(n, A, lda, upper, !unit, S, ld);
    __syncthreads();
    for (int j = n - 1; j >= 0; --j) {
        // S(j+1:n, j) := -S(j, j)^{-1} inv(S)(j+1:n, j+1:n) S(j+1:n, j), columns > j already inverted
        if (t == 0 && !unit) S[j + j * ld] = ra_rsc_recip(S[j + j * ld]);
        for (int i = j + 1 + t; i < n; i += RA_ROCSOLVER_CHOL_BLOCK) xs[i] = S[i + j * ld];
        __syncthreads();
        const T ajj = unit ? ra_rsc_make<T>::real(-1) : zero - S[j + j * ld];
        for (int i = j + 1 + t; i < n; i += RA_ROCSOLVER_CHOL_BLOCK) {
            T s = unit ? xs[i] : S[i + i * ld] * xs[i];
            for (int k = j + 1; k < i; ++k) s = ra_rsc_madd(S[i + k * ld], xs[k], s);
            S[i + j * ld] = ajj * s;
        }
        __syncthreads();
    }
    ra_rsc_store(n, A, lda, upper, !unit, S, ld);
}

// A := U U^H (upper) or L^H L (lower), the stored triangle of the product, one block of order n
// (n <= RA_ROCSOLVER_CHOL_BLOCK: a thread per column of a row).
template <typename T>
__global__ void __launch_bounds__(RA_ROCSOLVER_CHOL_BLOCK)
ra_rocsolver_lauu2(ra_i64 n64, T* __restrict__ A, ra_i64 lda, int flags) {
    T* S = reinterpret_cast<T*>(ra_rocsolver_chol_smem);
    const int n = (int)n64, ld = n + 1;
    const bool upper = (flags & RA_ROCSOLVER_CHOL_UPPER) != 0;
    const int k = (int)threadIdx.x;
    ra_rsc_load(n, A, lda, upper, true, S, ld);
    __syncthreads();
    for (int i = 0; i < n; ++i) {
        // (S^H S)(i, k) = sum_{p >= i} conj(S(p, i)) S(p, k), k <= i
        T s = ra_traits<T>::zero();
        if (k <= i)
            for (int p = i; p < n; ++p) s = ra_rsc_madd(ra_rsc_conj(S[p + i * ld]), S[p + k * ld], s);
        __syncthreads();
        if (k <= i) S[i + k * ld] = k == i ? ra_rsc_make<T>::real(ra_rsc_re(s)) : s;
        __syncthreads();
    }
    ra_rsc_store(n, A, lda, upper, true, S, ld);
}

// info[b] := 1 + the first i with A_b(i, i) == 0 (A_b = A + b * stride), else 0.
template <typename T>
__global__ void __launch_bounds__(RA_ROCSOLVER_CHOL_BLOCK)
ra_rocsolver_zero_diag(ra_i64 n, const T* __restrict__ A, ra_i64 lda, ra_i64 stride, int* __restrict__ info) {
    __shared__ int scratch[RA_ROCSOLVER_CHOL_BLOCK / RA_WARP_SIZE];
    const T* a = A + (ra_i64)blockIdx.x * stride;
    int first = 0x7fffffff;
    for (ra_i64 i = threadIdx.x; i < n; i += RA_ROCSOLVER_CHOL_BLOCK) {
        if (ra_rsc_is_zero(a[i + i * lda])) {
            first = (int)i;
            break;  // the thread's later indices are larger
        }
    }
    first = ra_block_reduce<RA_ROCSOLVER_CHOL_BLOCK>(first, ra_op_min(), scratch);
    if (threadIdx.x == 0) info[blockIdx.x] = first == 0x7fffffff ? 0 : first + 1;
}

// ---------------------------------------------------------------------------------------------
// ra_rocsolver_potf2_inv<T, M>: a diagonal block's factor and the factor's inverse in one launch
// ---------------------------------------------------------------------------------------------
//
// S := chol(S) (as potf2: the same info, the same values up to rounding) and W := inv(L),
// L = chol(S), for one block of order n <= 16 M in the lower normal form of the top of the file.
// W (n x n, leading dimension ldw) gets the whole square: inv(L) below and on the diagonal,
// zeros above, so that a gemm applies it: the recursive driver's panel solves are
// L21 = A21 inv(L)^H (lower) and, with S = U^H, U12 = inv(U)^H A12 = inv(S) A12 (upper).
//
// Layout. 256 threads as a 16 x 16 grid: thread (tr, tc) = (threadIdx.x % 16, threadIdx.x / 16)
// (upper storage: (threadIdx.x / 16, threadIdx.x % 16), so that consecutive lanes read and write
// consecutive rows of A either way) keeps the element (i, k) = (a * 16 + tr, b * 16 + tc),
// a, b < M, in its register v[a][b] (a cyclic distribution, as lu_block.hip). One tile holds
// both triangular matrices: v[a][b] is L(i, k) where i >= k and X(k, i) where i < k, X = inv(L),
// both times L(k, k) until the store divides by it (X's diagonal, 1 / L(i, i), is formed there). Step j = jb * 16 + jt is register
// column jb of thread column jt: the loop over jb is unrolled and the loop over jt is not, so
// every register array is indexed only by compile-time indices and stays in registers. Elements
// past n start at zero and are never written back.
//
// Step j, one barrier. Before step j, register column j (thread column jt) holds c(i) =
// L(i, j) s for i > j and X(j, i) s for i < j, s = L(j, j), and c(j) = d = s^2: right-looking
// potf2 and right-looking forward substitution L X = I run side by side, and both need that one
// vector, and both can take it unscaled.
//  A. Thread column jt publishes it: col[i] (shared, double-buffered by the parity of j).
//  B. After the barrier every thread reads d = re(col[j]); d not > 0 (NaN included) ends the
//     walk with fail = j + 1 (uniform: every thread read the same value). Else, with 1 / d only
//     (no square root on the step's path), every thread updates its elements:
//     L(i, k) -= c(i) conj(c(k)) / d  (i >= k > j);  X(k, i) -= c(k) c(i) / d  (k > j > i);
//     X(k, j) = -c(k) / d  (k > j). Column j keeps c: the walk never reads it again.
// Step j + 2 rewrites a buffer only after the barrier of step j + 1, which no thread passes
// before it has read that buffer in step j. Thread 0 records each pivot d; the store scales
// column k by 1 / sqrt(d_k) and writes sqrt(d_k) on the diagonal (a column after a failed pivot
// is stored as updated, as potf2 leaves it).
//
// The only run-time tests of a step are tc against jt (one branch around register column jb's
// updates), tr against tc (the diagonal blocks a == b) and tr against jt (register row jb), the
// last two as selects: i > k for a > b, i < k for a < b, k < j for b < jb and k > j for b > jb are
// compile-time facts of the unrolled loops (a run-time comparison of i = a * 16 + tr with k in
// every element makes the compiler build a branch tree per element).

#define RA_ROCSOLVER_CHOL_SIDE 16
#define RA_ROCSOLVER_CHOL_INV_THREADS (RA_ROCSOLVER_CHOL_SIDE * RA_ROCSOLVER_CHOL_SIDE)

template <typename T, int M>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSOLVER_CHOL_INV_THREADS) void ra_rocsolver_potf2_inv(
    ra_i64 n64, T* __restrict__ A, ra_i64 lda, T* __restrict__ W, ra_i64 ldw, int* __restrict__ info, ra_i64 j0,
    int flags) {
    typedef typename ra_real_of<T>::type R;
    constexpr int SIDE = RA_ROCSOLVER_CHOL_SIDE, NB = M * RA_ROCSOLVER_CHOL_SIDE;
    __shared__ T col[2][NB];
    __shared__ R pivot[NB];  // the pivot d = L(j, j)^2 of each factored column
    const int n = (int)n64;
    const bool upper = (flags & RA_ROCSOLVER_CHOL_UPPER) != 0;
    // lanes follow the stored triangle's fast index: the row of A (lower) is the tile's row, the
    // row of A (upper) is the tile's column, so each global load and store is coalesced
    const int t = (int)threadIdx.x, tr = upper ? t / SIDE : t % SIDE, tc = upper ? t % SIDE : t / SIDE;
    const T zero = ra_traits<T>::zero();

    // v[a][b]: a and b are compile-time indices everywhere (fully unrolled loops): registers
    T v[M][M];
#pragma unroll
    for (int a = 0; a < M; ++a) {
#pragma unroll
        for (int b = 0; b < M; ++b) {
            const int i = a * SIDE + tr, k = b * SIDE + tc;
            v[a][b] = zero;
            if (i < n && k < n && i >= k)
                v[a][b] = upper ? ra_rsc_conj(A[k + (ra_i64)i * lda]) : A[i + (ra_i64)k * lda];
        }
    }
    for (int i = t; i < 2 * NB; i += RA_ROCSOLVER_CHOL_INV_THREADS) col[i / NB][i % NB] = zero;
    __syncthreads();

    int fail = 0;
#pragma unroll
    for (int jb = 0; jb < M; ++jb) {
        for (int jt = 0; jt < SIDE && fail == 0; ++jt) {
            const int j = jb * SIDE + jt;
            if (j >= n) break;
            T* c = col[j & 1];
            if (tc == jt) {  // rows past n publish their zeros (c stays zero there)
#pragma unroll
                for (int a = 0; a < M; ++a) c[a * SIDE + tr] = v[a][jb];
            }
            __syncthreads();
            // the thread's rows and columns of the published vector, loaded before the pivot
            // test so that their latency overlaps it
            T ci[M], ck[M];
#pragma unroll
            for (int a = 0; a < M; ++a) ci[a] = c[a * SIDE + tr];
#pragma unroll
            for (int b = jb; b < M; ++b) ck[b] = c[b * SIDE + tc];
            const R d = ra_rsc_re(c[j]);
            if (!(d > R(0))) {  // true for a NaN
                fail = j + 1;
                break;
            }
            // Column j keeps the unscaled vector (the loop never reads it again; the store scales
            // it by 1 / s, s = sqrt(d)), and the updates take it unscaled too: L(i, j) conj(L(k, j))
            // = c(i) conj(c(k)) / d and L(k, j) X(j, i) = c(k) c(i) / d, so a step waits for 1 / d
            // only and no square root is on its path.
            const R rd = R(1) / d;
            if (t == 0) pivot[j] = d;
            T lq[M], xr[M];
#pragma unroll
            for (int b = jb; b < M; ++b) lq[b] = ra_rsc_scale(ck[b], rd);
            // xr[a]: the row factor of the inverse's update, c(i) = X(j, i) s (i < j), 1 (i == j,
            // X(k, j) := -L(k, j) / s), 0 (i > j); only register row jb compares i with j
#pragma unroll
            for (int a = 0; a < M; ++a) {
                if (a < jb) xr[a] = ci[a];
                else if (a == jb) xr[a] = tr < jt ? ci[a] : (tr == jt ? ra_rsc_make<T>::real(R(1)) : zero);
                else xr[a] = zero;
            }
            // Every element the step changes is v -= p q. Register columns b < jb hold k < j
            // only and b > jb hold k > j only, blocks a > b hold i > k and a < b hold i < k: all
            // known at compile time, so only register column jb (k against j, below), diagonal
            // blocks (i against k) and register row jb (i against j, in xr) test at run time.
            // updated(a, b): v[a][b] less its step-j product (a, b compile-time after unrolling)
            auto updated = [&](int a, int b) -> T {
                if (a > b)  // L(i, k) -= L(i, j) conj(L(k, j)), i > k
                    return ra_rsc_msub(ci[a], ra_rsc_conj(lq[b]), v[a][b]);
                if (a < b)  // X(k, i) -= L(k, j) X(j, i), i < k (a <= jb here)
                    return ra_rsc_msub(lq[b], xr[a], v[a][b]);
                if (b > jb)  // diagonal block right of column j: L part only
                    return tr >= tc ? ra_rsc_msub(ci[a], ra_rsc_conj(lq[b]), v[a][b]) : v[a][b];
                const bool lower = tr >= tc;  // the diagonal block of column j: both parts
                return ra_rsc_msub(lower ? ci[a] : xr[a], lower ? ra_rsc_conj(lq[b]) : lq[b], v[a][b]);
            };
#pragma unroll
            for (int a = 0; a < M; ++a) {
#pragma unroll
                for (int b = jb + 1; b < M; ++b)
                    if (a <= jb || a >= b) v[a][b] = updated(a, b);  // a < b with a > jb: i > j, nothing
            }
            // register column jb: only the thread columns right of column j (a branch, not a select
            // per element: all but one or two warps take it uniformly in the lower layout)
            if (tc > jt) {
#pragma unroll
                for (int a = 0; a < M; ++a) v[a][jb] = updated(a, jb);
            }
        }
    }
    __syncthreads();  // pivot complete

    // L into A's stored triangle, X into W (zeros above its diagonal). Columns k < done are
    // final but for the scale 1 / L(k, k), their diagonal is sqrt(pivot); later ones (after a
    // failed pivot) stay as updated, as potf2 leaves them.
    const int done = fail != 0 ? fail - 1 : n;
    R diag[M], scale[M];
#pragma unroll
    for (int b = 0; b < M; ++b) {
        const int k = b * SIDE + tc;
        diag[b] = k < done ? ra_sqrt(pivot[k]) : R(1);
        scale[b] = R(1) / diag[b];
    }
#pragma unroll
    for (int a = 0; a < M; ++a) {
#pragma unroll
        for (int b = 0; b < M; ++b) {
            const int i = a * SIDE + tr, k = b * SIDE + tc;
            if (i < n && k < n) {
                const R sc = scale[b];
                const T x = ra_rsc_scale(v[a][b], sc);
                if (i >= k) {
                    const T l = (i == k && k < done) ? ra_rsc_make<T>::real(diag[b]) : x;
                    if (upper) A[k + (ra_i64)i * lda] = ra_rsc_conj(l);
                    else A[i + (ra_i64)k * lda] = l;
                    if (i == k) W[i + (ra_i64)i * ldw] = ra_rsc_make<T>::real(sc);
                } else {
                    W[k + (ra_i64)i * ldw] = x;
                    W[i + (ra_i64)k * ldw] = zero;
                }
            }
        }
    }
    if (t == 0 && fail != 0 && info[0] == 0) info[0] = (int)(j0 + fail);
}

// dst := src for an m x n block (column-major, leading dimensions lds and ldd; not overlapping):
// the copy that lets a gemm overwrite its own input (the driver's panel solve through inv(L)).
// Thread x of block (bx, by) copies row bx * RA_ROCSOLVER_CHOL_BLOCK + x of columns by,
// by + gridDim.y, ... (coalesced along a column).
template <typename T>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSOLVER_CHOL_BLOCK) void ra_rocsolver_lacpy(
    ra_i64 m, ra_i64 n, const T* __restrict__ src, ra_i64 lds, T* __restrict__ dst, ra_i64 ldd) {
    const ra_i64 i = (ra_i64)blockIdx.x * RA_ROCSOLVER_CHOL_BLOCK + threadIdx.x;
    if (i >= m) return;
    for (ra_i64 j = blockIdx.y; j < n; j += gridDim.y) dst[i + j * ldd] = src[i + j * lds];
}
