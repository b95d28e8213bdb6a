// rocSOLVER Cholesky of a batch of small matrices with each matrix in registers
// (rocarray/rocsolver/_cholesky_block.py).
//
// ra_rocsolver_potrf_block<T, M, SIDE>: LAPACK's potf2 (right-looking Cholesky, one column per
// step) of matrices of order n <= M * SIDE, G = 256 / SIDE^2 matrices per block of 256 threads
// (matrix m = blockIdx.x * G + g of the batch for group g).
//
// Normal form and strides. Every matrix is worked on as a lower S with S S^H = the input. The
// caller gives where S(i, k), i >= k, is read: A + m * a_m + i * a_i + k * a_k, conjugated with
// RA_CHOLB_CONJ; the factor goes back through F's strides (f_i, f_k, f_m) and the same
// conjugation. A column-major 'L' matrix of leading dimension lda is (a_i, a_k) = (1, lda); a 'U'
// one is (lda, 1) with RA_CHOLB_CONJ (S = U^H: S(i, k) = conj(A(k, i))); a C-ordered stack's
// lower triangle (NumPy's cholesky) is (n, 1), its upper one (1, n) with RA_CHOLB_CONJ. Nothing
// but S's lower triangle is read, and F gets only that triangle unless RA_CHOLB_ZERO also writes
// zeros over the rest of F's n x n square (the façade's new factor). F may be A (in place: every
// load precedes every store of a matrix, in the same group). 64-bit offsets; any strides.
//
// Layout. Group g is the threads g * SIDE^2 .. (g + 1) * SIDE^2 - 1, a SIDE x SIDE grid; its
// thread (tr, tc) = (l % SIDE, l / SIDE), l the thread's index in the group (with
// RA_CHOLB_COLS_FAST (l / SIDE, l % SIDE): the caller sets it where S's columns are the fast
// index in memory, so that consecutive lanes read and write consecutive elements), keeps S(i, k),
// i = a * SIDE + tr, k = b * SIDE + tc, in its register v[a][b] for the blocks a >= b of its
// M x M tile (cyclic: every thread has work until the last SIDE columns).
// Blocks a < b hold only i < k: they are never declared as used, so the compiler allocates no
// registers for them; in the diagonal blocks a == b the elements with tr < tc are dead (zero).
// Step j = jb * SIDE + jt is register column jb of thread column jt: the loop over jb is
// unrolled, the one over jt by two only (the buffer parity becomes a compile-time fact), so the
// registers are indexed at compile time only. Elements
// past n start at zero and are never written back.
//
// Step j, one barrier. Before step j register column jb of thread column jt holds
// c(i) = S(i, j) s for i > j and c(j) = d = s^2, s = L(j, j) (the column unscaled).
//  A. Thread column jt publishes rows >= jb * SIDE of it to shared memory (double-buffered by
//     the parity of j; the G matrices of a block side by side; a thread's M rows consecutive, so
//     it writes and reads them as 16-byte chunks).
//  B. After the barrier every thread reads d = re(col[j]); d not > 0 (NaN included) fails the
//     matrix with fail = j + 1: its threads skip the remaining updates (the walk goes on to n for
//     the other matrices of the block, whose barriers it shares). Else, with 1 / d only (no square
//     root on the step's path): S(i, k) -= c(i) conj(c(k)) / d for i >= k > j. Column j keeps c.
// Step j + 2 rewrites a buffer only after the barrier of step j + 1, which no thread passes
// before it has read that buffer in step j. Thread (0, 0) of the group records each pivot d; the
// store scales column k by 1 / sqrt(d_k) and writes sqrt(d_k) on the diagonal (a column after a
// failed pivot is stored as updated, as potf2 leaves it: the failing pivot's diagonal included).
// info[matrix] := the failing column (1-based), else 0.
//
// The only run-time tests of a step are tc against jt (a branch around register column jb's
// updates) and tr against tc (the diagonal blocks, selects): i > k in blocks a > b, k > j in
// register columns b > jb and k < j in b < jb are compile-time facts of the unrolled loops.

#define RA_CHOLB_THREADS 256

// flags (mirrored in rocarray/rocsolver/_cholesky_block.py)
#define RA_CHOLB_CONJ 0x01       // S(i, k) is the conjugate of the element at the strides' place
#define RA_CHOLB_COLS_FAST 0x02  // lanes run along S's columns k (a_k is the unit stride)
#define RA_CHOLB_ZERO 0x04       // F's elements above S's diagonal := 0

RA_DEVICE float ra_cholb_conj(float a) { return a; }
RA_DEVICE double ra_cholb_conj(double a) { return a; }
template <typename R> RA_DEVICE ra_complex<R> ra_cholb_conj(ra_complex<R> a) { return ra_conj(a); }

RA_DEVICE float ra_cholb_re(float a) { return a; }
RA_DEVICE double ra_cholb_re(double a) { return a; }
template <typename R> RA_DEVICE R ra_cholb_re(ra_complex<R> a) { return a.re; }

template <typename T> struct ra_cholb_make {
    static RA_DEVICE T real(T r) { return r; }
};
template <typename R> struct ra_cholb_make<ra_complex<R> > {
    static RA_DEVICE ra_complex<R> real(R r) { return ra_make_complex<R>(r, R(0)); }
};

// K elements of 16 bytes, read and written in one access
template <typename T, int K> struct alignas(16) ra_cholb_chunk { T x[K]; };

// c - a * conj(b)
RA_DEVICE float ra_cholb_msubc(float a, float b, float c) { return ra_fma(-a, b, c); }
RA_DEVICE double ra_cholb_msubc(double a, double b, double c) { return ra_fma(-a, b, c); }
template <typename R>
RA_DEVICE ra_complex<R> ra_cholb_msubc(ra_complex<R> a, ra_complex<R> b, ra_complex<R> c) {
    return ra_make_complex<R>(ra_fma(-a.re, b.re, ra_fma(-a.im, b.im, c.re)),
                              ra_fma(-a.im, b.re, ra_fma(a.re, b.im, c.im)));
}

// a * s for a real s
RA_DEVICE float ra_cholb_scale(float a, float s) { return a * s; }
RA_DEVICE double ra_cholb_scale(double a, double s) { return a * s; }
template <typename R> RA_DEVICE ra_complex<R> ra_cholb_scale(ra_complex<R> a, R s) { return s * a; }

// Two resident blocks a multiprocessor (at most 128 registers a thread on NVIDIA): a step's
// latency chain (publication, barrier, pivot, reciprocal) of one block overlaps the other's
// updates. (One template argument: HIP's __launch_bounds__ is a two-parameter macro.)
template <typename T> constexpr int ra_cholb_min_blocks = sizeof(T) == 4 ? 3 : 2;

template <typename T, int M, int SIDE>
__global__ void __launch_bounds__(RA_CHOLB_THREADS, ra_cholb_min_blocks<T>) ra_rocsolver_potrf_block(
    ra_i64 n64, const T* A, ra_i64 a_i, ra_i64 a_k, ra_i64 a_m, T* F, ra_i64 f_i, ra_i64 f_k, ra_i64 f_m,
    ra_i64 batch, int* __restrict__ info, int flags) {
    typedef typename ra_real_of<T>::type R;
    constexpr int NB = M * SIDE, GROUP = SIDE * SIDE, G = RA_CHOLB_THREADS / GROUP;
    // The published column, by residue: element i = a * SIDE + r of group g's column at
    // [(g * SIDE + r) * LDC + a], so that a thread's rows (and its columns) are consecutive and
    // are read as 16-byte chunks of K elements; LDC = M + K (one chunk of padding) puts the 16
    // rows a warp reads at most into two passes of the banks.
    constexpr int K = 16 / (int)sizeof(T), LDC = M + K, CPR = LDC / K;  // CPR: chunks a row
    static_assert(M % K == 0, "the tile height is a whole number of 16-byte chunks");
    typedef ra_cholb_chunk<T, K> C16;
    __shared__ C16 col[2][G * SIDE * CPR];
    __shared__ R pivot[G * NB];
    const int n = (int)n64;
    const bool conj = (flags & RA_CHOLB_CONJ) != 0, cols_fast = (flags & RA_CHOLB_COLS_FAST) != 0;
    const int t = (int)threadIdx.x, g = t / GROUP, l = t % GROUP;
    const int tr = cols_fast ? l / SIDE : l % SIDE, tc = cols_fast ? l % SIDE : l / SIDE;
    const ra_i64 matrix = (ra_i64)blockIdx.x * G + g;
    const bool active = matrix < batch;
    const T* src = A + (active ? matrix : 0) * a_m;
    T* dst = F + (active ? matrix : 0) * f_m;
    const T zero = ra_traits<T>::zero();

    T v[M][M];
#pragma unroll
    for (int a = 0; a < M; ++a) {
#pragma unroll
        for (int b = 0; b <= a; ++b) {
            const int i = a * SIDE + tr, k = b * SIDE + tc;
            v[a][b] = zero;
            if (active && i < n && i >= k) {  // i < n and i >= k give k < n
                const T x = src[(ra_i64)i * a_i + (ra_i64)k * a_k];
                v[a][b] = conj ? ra_cholb_conj(x) : x;
            }
        }
    }

    int fail = active ? 0 : -1;  // -1: no matrix (past the batch), no updates, nothing stored
#pragma unroll
    for (int jb = 0; jb < M; ++jb) {
#pragma unroll 2
        for (int jt = 0; jt < SIDE; ++jt) {
            const int j = jb * SIDE + jt;
            if (j >= n) break;  // uniform across the block
            C16* c = col[j & 1];
            if (tc == jt) {  // rows past n publish their zeros
                C16* mine = c + (g * SIDE + tr) * CPR;
#pragma unroll
                for (int q = jb / K; q < M / K; ++q) {
                    C16 chunk;
#pragma unroll
                    for (int e = 0; e < K; ++e) chunk.x[e] = q * K + e >= jb ? v[q * K + e][jb] : zero;
                    mine[q] = chunk;
                }
            }
            __syncthreads();
            // the thread's rows and columns of the published vector, loaded before the pivot
            // test so that their latency overlaps it
            T ci[M], ck[M];
            const C16* rows = c + (g * SIDE + tr) * CPR;
            const C16* cols = c + (g * SIDE + tc) * CPR;
#pragma unroll
            for (int q = jb / K; q < M / K; ++q) {
                const C16 x = rows[q], y = cols[q];
#pragma unroll
                for (int e = 0; e < K; ++e) {
                    ci[q * K + e] = x.x[e];
                    ck[q * K + e] = y.x[e];
                }
            }
            const R d = ra_cholb_re(reinterpret_cast<const T*>(c)[(g * SIDE + jt) * LDC + jb]);
            if (fail == 0 && !(d > R(0))) fail = j + 1;  // true for a NaN; uniform in the group
            if (fail != 0) continue;
            const R rd = R(1) / d;
            if (l == 0) pivot[g * NB + j] = d;
            T q[M];  // c(k) / d
#pragma unroll
            for (int b = jb; b < M; ++b) q[b] = ra_cholb_scale(ck[b], rd);
            // register columns right of jb: k > j; blocks below the diagonal: i > k
#pragma unroll
            for (int b = jb + 1; b < M; ++b) {
                v[b][b] = tr >= tc ? ra_cholb_msubc(ci[b], q[b], v[b][b]) : v[b][b];
#pragma unroll
                for (int a = b + 1; a < M; ++a) v[a][b] = ra_cholb_msubc(ci[a], q[b], v[a][b]);
            }
            // register column jb: only the thread columns right of column j
            if (tc > jt) {
                v[jb][jb] = tr >= tc ? ra_cholb_msubc(ci[jb], q[jb], v[jb][jb]) : v[jb][jb];
#pragma unroll
                for (int a = jb + 1; a < M; ++a) v[a][jb] = ra_cholb_msubc(ci[a], q[jb], v[a][jb]);
            }
        }
    }
    __syncthreads();  // the group's pivots complete
    if (fail < 0) return;

    // columns k < done are final but for the scale 1 / L(k, k), and their diagonal is
    // sqrt(pivot); later ones (after a failed pivot) stay as updated
    const int done = fail != 0 ? fail - 1 : n;
#pragma unroll
    for (int b = 0; b < M; ++b) {
        const int k = b * SIDE + tc;
        const R diag = k < done ? ra_sqrt(pivot[g * NB + k]) : R(1);
        const R sc = R(1) / diag;
#pragma unroll
        for (int a = b; a < M; ++a) {
            const int i = a * SIDE + tr;
            if (i < n && i >= k) {
                const T x = (i == k && k < done) ? ra_cholb_make<T>::real(diag) : ra_cholb_scale(v[a][b], sc);
                dst[(ra_i64)i * f_i + (ra_i64)k * f_k] = conj ? ra_cholb_conj(x) : x;
            }
        }
    }
    if ((flags & RA_CHOLB_ZERO) != 0) {  // above S's diagonal: blocks a < b, tr < tc in the diagonal ones
#pragma unroll
        for (int b = 0; b < M; ++b) {
            const int k = b * SIDE + tc;
#pragma unroll
            for (int a = 0; a <= b; ++a) {
                const int i = a * SIDE + tr;
                if (k < n && i < k) dst[(ra_i64)i * f_i + (ra_i64)k * f_k] = zero;
            }
        }
    }
    if (l == 0) info[matrix] = fail;
}
