// rocsolver: the symmetric/Hermitian eigenproblem of small matrices, one warp (wavefront) per
// matrix (rocarray/rocsolver/_eigh_kernels.py).
//
// ra_rocsolver_syevj_warp<T, N>: cyclic two-sided Jacobi for orders n <= N <= RA_WARP_SIZE.
//   Each warp of the block diagonalizes its own matrix with warp-level synchronization only (no
//   block barrier). The sweep is the round-robin (circle) tournament on N players: player 0
//   stays, players 1..N-1 rotate, so each of the N - 1 rounds rotates N/2 disjoint pairs and a
//   sweep meets every pair once. Indices n..N-1 are dummies: a pair with a dummy is J = I, which
//   keeps the dummy rows and columns of A zero.
//   A (padded to N x N, leading dimension N + 1) lives in the warp's slice of shared memory. A
//   round is two warp-synchronous steps: (1) lane k < N/2 computes pair k's rotation
//   (Rutishauser's formulas) and publishes it; (2) A := J^H A J on the 2 x 2 blocks (rows of one
//   pair, columns of another; each element of A is in exactly one block), the pair's own block
//   set exactly. For float on a warp of exactly N lanes, a lane takes one row of a block for
//   every column pair (the partner row's values by shuffle), so each access to a column of A
//   hits 32 different banks; otherwise a lane takes whole blocks.
//   The eigenvectors live in registers: lane i holds row i of V in slot order, where slot 0 is
//   index 0 and slot t + 1 is index 1 + (t + round) mod (N - 1); pair k is then always slots
//   (0, 1) or (k + 1, N - k), so V := V J indexes its registers at compile time, and the slots
//   shift by one between rounds (after the N - 1 rounds of a sweep, slot order is index order
//   again).
//   ra_rocsolver_syevj_warp_half<T, N> is the same solver with step (2) on half of the blocks:
//   J^H A J is Hermitian, so pair k rotates only the blocks (k, k + d mod N/2), d = 1 .. N/4,
//   and stores each with its conjugate transpose (A stays exactly Hermitian): half the
//   multiply-adds, loads and shuffles of step (2), more stores. Its step (1) takes the tangent
//   from the scaled hypotenuse of (d - a, 2 |beta|): one division and one square root, no branch.
//   ra_rocsolver_syevj_warp_xor<T, N> is ra_rocsolver_syevj_warp with two XORs, for shared
//   memory without bank conflicts. (a) The layout of A: unpadded, the rows of column j permuted by
//   i -> i ^ h(j) (ra_eighw_layout): a column and a row still cover every bank, and so do step
//   (1)'s loads of the pairs' diagonal and off-diagonal elements and the stores of the pairs'
//   own blocks, which the padding puts in a few banks. (b) The tournament: round t pairs x with
//   x ^ r_t, r_t = alpha^t in GF(N) (h is the multiplication by alpha): pair k is (h^t(2 k),
//   h^t(2 k + 1)), every pair of indices meets once in the N - 1 rounds, V's pair k is always
//   slots (2 k, 2 k + 1) and between rounds slot s takes slot h(s)'s index (a fixed permutation,
//   compile-time register indices as in the circle tournament). With q = p ^ r_t for all pairs,
//   the block split (8- and 16-byte elements at N = 32) can take each pair's rows in an order
//   that spreads a half-warp's rows over all the banks, and the row sets of a round are
//   subspaces, which spread the pairs' own elements in (a) perfectly. Its step (1) takes the
//   tangent as the half-block kernel does (one division, one square root, no branch).
//   ra_rocsolver_syevj_warp_fast<T, N> is the XOR kernel with scaled ("fast") rotations where it
//   splits rows (real float at the warp size; elsewhere it is the XOR kernel): off the diagonal
//   A = D Ah D and V = Vh D, D diagonal, so a rotation is Ah := M^T Ah M, Vh := Vh M with
//   M = [[1, alpha], [beta, 1]], one multiply-add an element and side (J takes a multiplication
//   and a multiply-add), and D := c D on the pair; once a sweep D goes back into A and V. Its
//   records are M's alpha and beta alone: pair j's columns come from XORs of the round's GF(2)
//   bases, A's element addresses from one XOR each (the block's A slices first, each a power of
//   two bytes).
//   Convergence is tested once per sweep on off(A) = ||A - diag(A)||_F <= tol, as the one-block
//   kernel of eigh.hip; the eigenvalues are ranked ascending (NaN last) and the eigenvectors
//   scattered to their ranks. A is read column-major, or row-major (NumPy's C order: flag ROWS),
//   and the eigenvectors are written to V in the same layout; V may be A.
//
// Instantiated for every target; the body exists only where N <= RA_WARP_SIZE (the host launches
// an order-N kernel only there). Launched with RA_EIGHW_THREADS threads at most (whole warps).

#define RA_EIGHW_THREADS 128
#define RA_EIGHW_UPPER 1
#define RA_EIGHW_VECTORS 2
#define RA_EIGHW_ROWS 4

// Real and complex elements through one set of names; phase(x, beta, |beta|) = x beta / |beta|
// (for real beta, x times its sign: no division); inv_sqrt(x) = 1 / sqrt(x), in double precision
// the library's rsqrt: one call on the rotation's chain instead of a square root and a division.
template <typename T> struct ra_eighw_ops;
template <> struct ra_eighw_ops<float> {
    typedef float R;
    static RA_DEVICE float eps() { return 1.1920928955078125e-07f; }
    static RA_DEVICE float re(float x) { return x; }
    static RA_DEVICE float conj(float x) { return x; }
    static RA_DEVICE float abs2(float x) { return x * x; }
    static RA_DEVICE float mag(float x) { return fabsf(x); }
    static RA_DEVICE float real(float x) { return x; }
    static RA_DEVICE float phase(float x, float beta, float) { return beta < 0.0f ? -x : x; }
    static RA_DEVICE float inv_sqrt(float x) { return 1.0f / sqrtf(x); }
};
// 2^-e for m = 2^e * 1.f (m >= 0; e clamped so the result is a normal number): an exact scaling
// that brings m to [1, 2)
// 1 / sqrt(x) and a / b to about an ulp without the IEEE routines' branches: the fast estimate
// and one Newton step (x and b positive normal numbers)
RA_DEVICE float ra_eighw_rsqrt_refined(float x) {
    const float y = ra_fast_rsqrt(x);
    return y * ra_fma(-0.5f * x * y, y, 1.5f);
}
RA_DEVICE float ra_eighw_div_refined(float a, float b) {
    const float r = ra_fast_div(1.0f, b);
    const float q = a * r;
    return ra_fma(ra_fma(-b, q, a), r, q);
}
RA_DEVICE float ra_eighw_pow2_inv(float m) {
    const ra_u32 e = (__float_as_uint(m) >> 23) & 0xffu;
    return __uint_as_float((254u - (e < 253u ? e : 253u)) << 23);
}
RA_DEVICE double ra_eighw_pow2_inv(double m) {
    const ra_u64 e = ((ra_u64)__double_as_longlong(m) >> 52) & 0x7ffull;
    return __longlong_as_double((long long)((2046ull - (e < 2045ull ? e : 2045ull)) << 52));
}
template <> struct ra_eighw_ops<double> {
    typedef double R;
    static RA_DEVICE double eps() { return 2.220446049250313e-16; }
    static RA_DEVICE double re(double x) { return x; }
    static RA_DEVICE double conj(double x) { return x; }
    static RA_DEVICE double abs2(double x) { return x * x; }
    static RA_DEVICE double mag(double x) { return fabs(x); }
    static RA_DEVICE double real(double x) { return x; }
    static RA_DEVICE double phase(double x, double beta, double) { return beta < 0.0 ? -x : x; }
    static RA_DEVICE double inv_sqrt(double x) { return rsqrt(x); }
};
template <> struct ra_eighw_ops<ra_c64> {
    typedef float R;
    static RA_DEVICE float eps() { return 1.1920928955078125e-07f; }
    static RA_DEVICE float re(ra_c64 x) { return x.re; }
    static RA_DEVICE ra_c64 conj(ra_c64 x) { return ra_make_complex<float>(x.re, -x.im); }
    static RA_DEVICE float abs2(ra_c64 x) { return x.re * x.re + x.im * x.im; }
    static RA_DEVICE float mag(ra_c64 x) { return hypotf(x.re, x.im); }
    static RA_DEVICE ra_c64 real(float x) { return ra_make_complex<float>(x, 0.0f); }
    static RA_DEVICE ra_c64 phase(float x, ra_c64 beta, float bm) { return (x / bm) * beta; }
    static RA_DEVICE float inv_sqrt(float x) { return 1.0f / sqrtf(x); }
};
template <> struct ra_eighw_ops<ra_c128> {
    typedef double R;
    static RA_DEVICE double eps() { return 2.220446049250313e-16; }
    static RA_DEVICE double re(ra_c128 x) { return x.re; }
    static RA_DEVICE ra_c128 conj(ra_c128 x) { return ra_make_complex<double>(x.re, -x.im); }
    static RA_DEVICE double abs2(ra_c128 x) { return x.re * x.re + x.im * x.im; }
    static RA_DEVICE double mag(ra_c128 x) { return hypot(x.re, x.im); }
    static RA_DEVICE ra_c128 real(double x) { return ra_make_complex<double>(x, 0.0); }
    static RA_DEVICE ra_c128 phase(double x, ra_c128 beta, double bm) { return (x / bm) * beta; }
    static RA_DEVICE double inv_sqrt(double x) { return rsqrt(x); }
};

// One pair of a round: the rotation J = [[c, s], [-conj(s), c]] on indices p and q, which the
// record holds as the offsets of their columns in A's layout (ra_eighw_layout::col) (16 bytes
// for float, so a lane reads a pair with one 16-byte load; 32 for the others).
template <typename T> struct alignas(16) ra_eighw_pair {
    T s;
    typename ra_eighw_ops<T>::R c;
    int p, q;
};

// x times the generator of GF(2^k), N = 2^k, as the bits of a polynomial of degree < k (the
// field's polynomials x^2+x+1, x^3+x+1, x^4+x+1, x^5+x^2+1, x^6+x+1): a permutation h of
// 0..N-1 with x ^ h(x) a permutation too ((1 + alpha) x is a product of nonzero elements).
template <int N>
RA_DEVICE constexpr int ra_eighw_mul_alpha(int x) {
    return ((x << 1) & (N - 1)) ^
           ((x & (N >> 1)) ? (N == 32 ? 0x5 : 0x3) : 0);
}

// The number of trailing zero bits of x > 0.
RA_DEVICE constexpr int ra_eighw_ctz(int x) { return (x & 1) ? 0 : 1 + ra_eighw_ctz(x >> 1); }

// The scaled rotations' records: one pair's (alpha, beta) (one 8-byte store), two pairs' (one
// 16-byte load).
struct alignas(8) ra_eighw_duo {
    float v[2];
};
struct alignas(16) ra_eighw_quad {
    float v[4];
};

// Where A's element (i, j) lives in the warp's slice of shared memory: at col(j) + i, columns
// LDS = N + 1 apart (odd, so the rows of one column fall in different banks), or, XOR, at
// col(j) ^ i with col(j) = N j + h(j) (unpadded; row i of column j in bank slot i ^ h(j)): a
// column (i varying) and a row (j varying) still cover every bank slot once, and so do the
// diagonal (i ^ h(i)) and the 2 x 2 blocks' off-diagonal elements of a round of the circle
// tournament far more than with the padding, where (p, q) sits in bank (p + q) mod 32 and p + q
// is the same modulo N - 1 for every pair of a round.
//
// Bytes of one warp's slice of shared memory (a multiple of 16): T sA[N * LDS] (rounded up to 16
// bytes); ra_eighw_pair<T> spair[N/2]; R snp[N/2], snq[N/2], sw[N]; int srank[N].
template <typename T, int N, bool XOR> struct ra_eighw_layout {
    typedef typename ra_eighw_ops<T>::R R;
    static constexpr int HALF = N / 2;
    static constexpr int LDS = XOR ? N : N + 1;
    static constexpr int A_BYTES = (N * LDS * (int)sizeof(T) + 15) / 16 * 16;
    static RA_DEVICE int col(int j) { return XOR ? j * N + ra_eighw_mul_alpha<N>(j) : j * LDS; }
    static RA_DEVICE int at(int cj, int i) { return XOR ? (cj ^ i) : (cj + i); }
    // the index j of a column offset col(j)
    static RA_DEVICE int index(int cj) { return XOR ? cj / N : cj / LDS; }
    static constexpr int PAIR_BYTES = HALF * (int)sizeof(ra_eighw_pair<T>);
    static constexpr int R_BYTES = (2 * HALF + N) * (int)sizeof(R);
    static constexpr int BYTES = (A_BYTES + PAIR_BYTES + R_BYTES + N * 4 + 15) / 16 * 16;
};

// Player `slot` of round r of the circle tournament on C + 1 players, as a matrix index.
RA_DEVICE int ra_eighw_index(int slot, int r, int C) { return slot == 0 ? 0 : 1 + (slot - 1 + r) % C; }

// The slots of pair k in V's registers: (0, 1) or (k + 1, N - k) in the circle tournament,
// (2 k, 2 k + 1) in the XOR one.
template <int N, bool XOR> RA_DEVICE constexpr int ra_eighw_slot_p(int k) { return XOR ? 2 * k : (k == 0 ? 0 : k + 1); }
template <int N, bool XOR> RA_DEVICE constexpr int ra_eighw_slot_q(int k) {
    return XOR ? 2 * k + 1 : (k == 0 ? 1 : N - k);
}

// V's slots from one round to the next: slot t + 1 takes slot t + 2's index (slot N - 1 slot 1's)
// in the circle tournament; slot s takes slot h(s)'s in the XOR one. Compile-time indices only.
template <typename T, int N, bool XOR> RA_DEVICE void ra_eighw_next_slots(T (&vr)[N]) {
    if constexpr (XOR) {
        T old[N];
#pragma unroll
        for (int s = 0; s < N; ++s) old[s] = vr[s];
#pragma unroll
        for (int s = 0; s < N; ++s) vr[s] = old[ra_eighw_mul_alpha<N>(s)];
    } else {
        const T first = vr[1];
#pragma unroll
        for (int t = 1; t < N - 1; ++t) vr[t] = vr[t + 1];
        vr[N - 1] = first;
    }
}

// j sorts before i: ascending, NaN last, ties by index (a strict total order, so the ranks are a
// permutation even for NaN).
template <typename R>
RA_DEVICE bool ra_eighw_before(R wj, int j, R wi, int i) {
    const bool nj = wj != wj, ni = wi != wi;
    if (nj != ni) return ni;
    if (wj < wi) return true;
    if (wi < wj) return false;
    return j < i;
}

// Matrix b = blockIdx.x * warps + warp of the batch (A_b at A + b * strideA, n x n, element
// (i, j) at A_b[i + j * lda], or at A_b[i * lda + j] with flags & ROWS (NumPy's C order); only
// the `uplo` triangle read): eigenvalues ascending into W + b * strideW, eigenvectors (flags &
// VECTORS) into V_b = V + b * strideV, laid out as A (leading dimension lda), in the same order;
// V may be A itself (A is read whole before V is written). info[b] = 0 if off(A) <= tol was
// reached (A finite), else 1; residual[b] = off(A) at the end, n_sweeps[b] = sweeps done (either
// may be null). tol = abstol if abstol > 0, else eps * ||A||_F. Dynamic shared memory:
// ra_eighw_layout<T, N, XOR>::BYTES per warp of the block.
// HALFSYM: rotate half of the blocks each round (ra_rocsolver_syevj_warp_half), else all of them.
// FAST: scaled rotations (ra_rocsolver_syevj_warp_fast) where the row split runs on real T.
template <typename T, int N, bool HALFSYM, bool XOR, bool FAST = false>
RA_DEVICE void ra_eighw_run(int n, const T* A, ra_i64 lda, ra_i64 strideA, T* V, ra_i64 strideV,
                            typename ra_eighw_ops<T>::R abstol, typename ra_eighw_ops<T>::R* __restrict__ residual,
                            int max_sweeps, int* __restrict__ n_sweeps, typename ra_eighw_ops<T>::R* __restrict__ W,
                            ra_i64 strideW, int* __restrict__ info, int flags, ra_i64 batch) {
    if constexpr (N <= RA_WARP_SIZE) {
        typedef ra_eighw_ops<T> O;
        typedef typename O::R R;
        typedef ra_eighw_layout<T, N, XOR> L;
        constexpr int HALF = L::HALF;
        constexpr int LDS = L::LDS;
        constexpr int C = N - 1;
        // 2 x 2 blocks per lane in step (2): lane l takes row pair l % HALF and every
        // (RA_WARP_SIZE / HALF)-th column pair from l / HALF
        constexpr int COL_STEP = RA_WARP_SIZE / HALF;
        constexpr int BLOCKS = HALF * HALF / RA_WARP_SIZE;
        static_assert((N & (N - 1)) == 0 && N >= 4, "N is a power of two");
        static_assert(BLOCKS * RA_WARP_SIZE == HALF * HALF, "the blocks split evenly over the lanes");
        // float on a warp of exactly N lanes: a lane per row of a block (conflict-free columns of
        // A, the partner row by shuffle); otherwise a lane per block
        constexpr bool ROW_SPLIT = sizeof(T) == 4 && N == RA_WARP_SIZE;
        // column pairs (row split) and blocks (block split) whose loads are issued together: the
        // latency of a round is a chain of shared-memory loads, shuffles and stores per batch;
        // larger batches cost registers: 2 blocks for 8-byte elements keep the 128 registers
        // of four warps per block at 16 warps per SM; 16-byte elements have no room to spare
        constexpr int ROW_BATCH = HALF < 8 ? HALF : 8;
        constexpr int BLOCK_WANT = sizeof(T) >= 16 ? 1 : (sizeof(T) == 8 ? 2 : 4);
        constexpr int BLOCK_BATCH = BLOCKS < BLOCK_WANT ? BLOCKS : BLOCK_WANT;
        static_assert(HALF % ROW_BATCH == 0 && BLOCKS % BLOCK_BATCH == 0, "the batches split evenly");
        // scaled ("fast") rotations: A = D Ah D and V = Vh D off the diagonal, D = diag(d) (the
        // diagonal of A is kept as it is); the rotation J of pair (p, q) is D J = M D' with
        // M = [[1, alpha], [beta, 1]] (alpha = t d_p / d_q, beta = -t d_q / d_p) and
        // d'_p = c d_p, d'_q = c d_q, so Ah := M^T Ah M and Vh := Vh M take one multiply-add an
        // element per side where J takes a multiplication and a multiply-add. Every index is in
        // one pair a round and c >= 1/sqrt(2) (|t| <= 1), so d >= 2^-15.5 after a sweep; the sweep
        // then multiplies D back into A and V (d := 1). A finite ||A||_F^2 (||A||_F < 2^64, else
        // info = 1 anyway) keeps |Ah| < 2^95 and the ratios d_p / d_q within 2^+-15.5: no overflow,
        // no underflow past that of A itself. d lives in sw (the eigenvalues' slot, used after the
        // sweeps only), indexed by matrix index.
        constexpr bool FASTROT = FAST && ROW_SPLIT && !HALFSYM && sizeof(T) == 4 && sizeof(R) == 4;
        extern __shared__ ra_c128 ra_rocsolver_eighw_smem[];

        const int lane = ra_lane_id();
        const ra_i64 b = (ra_i64)blockIdx.x * (ra_i64)(blockDim.x / RA_WARP_SIZE) + (ra_i64)ra_warp_id();
        if (b >= batch) return;  // the whole warp leaves together
        unsigned char* base = reinterpret_cast<unsigned char*>(ra_rocsolver_eighw_smem) + ra_warp_id() * L::BYTES;
        T* sA = reinterpret_cast<T*>(base);
        ra_eighw_pair<T>* spair = reinterpret_cast<ra_eighw_pair<T>*>(base + L::A_BYTES);
        // scaled rotations: the block's A slices first, each of A_BYTES (a power of two), then the
        // warps' other arrays (the same bytes a warp): element (i, j) of the warp's A is at byte
        // slice ^ 4 col(j) ^ 4 i of the block's shared memory
        [[maybe_unused]] unsigned slice = 0;
        if constexpr (FASTROT) {
            static_assert(XOR && (L::A_BYTES & (L::A_BYTES - 1)) == 0 && L::A_BYTES == 4 * N * N,
                          "scaled rotations: unpadded A slices of a power of two bytes");
            unsigned char* const smem = reinterpret_cast<unsigned char*>(ra_rocsolver_eighw_smem);
            const int warps = blockDim.x / RA_WARP_SIZE;
            slice = (unsigned)(ra_warp_id() * L::A_BYTES);
            sA = reinterpret_cast<T*>(smem + slice);
            spair = reinterpret_cast<ra_eighw_pair<T>*>(smem + warps * L::A_BYTES +
                                                        ra_warp_id() * (L::BYTES - L::A_BYTES));
        }
        R* snp = reinterpret_cast<R*>(spair + HALF);
        R* snq = snp + HALF;
        R* sw = snq + HALF;
        int* srank = reinterpret_cast<int*>(sw + N);

        const bool upper = (flags & RA_EIGHW_UPPER) != 0;
        const bool vectors = (flags & RA_EIGHW_VECTORS) != 0;
        const bool rows = (flags & RA_EIGHW_ROWS) != 0;
        constexpr bool halfsym = HALFSYM;
        const T* Ab = A + b * strideA;
        T* Vb = V + b * strideV;
        const T zero = O::real(R(0));

        // A padded with zeros, then the Hermitian matrix from its stored triangle (the diagonal's
        // imaginary part dropped): lane x reads element x of each column (column-major) or of
        // each row (ROWS), so a warp's loads are coalesced either way
        for (int e = lane; e < N * LDS; e += RA_WARP_SIZE) sA[e] = zero;
        ra_warp_sync();
        for (int y = 0; y < n; ++y) {
            const int x = lane;
            const int i = rows ? y : x, j = rows ? x : y;
            if (x < n && (upper ? i <= j : i >= j)) {
                const T v = Ab[rows ? (ra_i64)i * lda + j : i + (ra_i64)j * lda];
                if (i == j) {
                    sA[L::at(L::col(j), i)] = O::real(O::re(v));
                } else {
                    sA[L::at(L::col(j), i)] = v;
                    sA[L::at(L::col(i), j)] = O::conj(v);
                }
            }
        }
        ra_warp_sync();

        // lane i: row i of V in slot order (identity at the start of every sweep's slot order);
        // indexed only by compile-time indices (fully unrolled loops) so it stays in registers.
        // Rotated whatever the flags (no predicate in the round loop); written only with VECTORS.
        T vr[N];
#pragma unroll
        for (int s = 0; s < N; ++s) vr[s] = O::real(s == lane ? R(1) : R(0));

        // ||A||_F^2 and off(A)^2: lane j sums column j
        R frob2 = R(0), off2 = R(0);
        const int col_lane = L::col(lane);
        if (lane < n) {
            for (int i = 0; i < n; ++i) {
                const R a2 = O::abs2(sA[L::at(col_lane, i)]);
                frob2 += a2;
                if (i != lane) off2 += a2;
            }
        }
        frob2 = ra_warp_reduce(frob2, ra_op_sum());
        R off = sqrt(ra_warp_reduce(off2, ra_op_sum()));
        const R tol = abstol > R(0) ? abstol : O::eps() * sqrt(frob2);
        // inf or NaN anywhere (or squares past the range) never converges: max_sweeps sweeps, info = 1
        const bool finite = (frob2 - frob2) == R(0);

        const int kr = lane % HALF;  // this lane's row pair in step (2)
        // scaled rotations: A's elements by byte offset (one XOR an address, see slice)
        [[maybe_unused]] unsigned char* const sbytes = reinterpret_cast<unsigned char*>(ra_rocsolver_eighw_smem);
        [[maybe_unused]] auto elem = [sbytes](unsigned at) -> T& { return *reinterpret_cast<T*>(sbytes + at); };
        // and, in round t, cb[e] = 4 col(r_{t+e}), r_s = alpha^s = h^s(1) (e = 0 .. log2(N / 2)):
        // pair j's columns are p_j = h^t(2 j), the XOR of r_{t+1+b} over j's bits b (2^b is
        // alpha^b), and q_j = p_j ^ r_t, and col is linear over GF(2), so 4 col(p_j) is the XOR of
        // cb[1 + b] and 4 col(q_j) = 4 col(p_j) ^ cb[0]: the round's records hold M alone. The
        // next round's cb is this one's shifted by one, one new r (rn = r_{t+LOGH+1}); r_31 = 1.
        constexpr int LOGH = ra_eighw_ctz(HALF);
        [[maybe_unused]] unsigned cb[LOGH + 1];
        [[maybe_unused]] int rn = 1;
#pragma unroll
        for (int e = 0; e <= LOGH; ++e) {
            cb[e] = 4u * (unsigned)L::col(rn);
            rn = ra_eighw_mul_alpha<N>(rn);
        }
        if constexpr (FASTROT) {
            if (lane < N) sw[lane] = R(1);
            ra_warp_sync();
        }
        // the XOR tournament's pair `lane` (lane < HALF) in round r: (h^r(2 lane), h^r(2 lane + 1)),
        // one multiplication by alpha a round; alpha^C = 1, so every sweep starts from round 0
        // (scaled rotations: every lane tracks pair kr's, its rows in step (2))
        const int xk = FASTROT ? kr : lane;
        int xp = 2 * xk, xq = 2 * xk + 1;
        int sweeps = 0;
        while (!(finite && off <= tol) && sweeps < max_sweeps) {
#pragma unroll 1
            for (int r = 0; r < C; ++r) {
                // (1) the rotation of pair k = lane: J = [[c, s], [-conj(s), c]] on indices (p, q)
                // makes (J^H A J)(p, q) = 0, and the pair's new diagonal; a pair with a dummy is
                // J = I with its diagonal as it is
                if constexpr (FASTROT) {
                    // scaled: the same tangent on A(p, q) = d_p d_q Ah(p, q) (the diagonal is A's),
                    // the square roots and divisions from the fast estimates (MUFU, no branch); the records
                    // are M's (alpha, beta) (spair as R[2 HALF]), the new diagonal (np, nq) (snp
                    // as R[2 HALF]); d_p, d_q *= c
                    if (lane < HALF) {
                        const int p = xp, q = xq;
                        const unsigned cp = slice ^ (4u * (unsigned)L::col(p)), cq = slice ^ (4u * (unsigned)L::col(q));
                        const unsigned p4 = 4u * (unsigned)p, q4 = 4u * (unsigned)q;
                        const R a = elem(cp ^ p4), d = elem(cq ^ q4);
                        const R dp = sw[p], dq = sw[q];
                        const R beta = elem(cq ^ p4) * (dp * dq);
                        const R bm = fabs(beta);
                        R c = R(1), np = a, nq = d, alpha_m = R(0), beta_m = R(0);
                        if (p < n && q < n && bm != R(0)) {
                            const R th = d - a, ph = R(2) * bm;
                            const R sc = ra_eighw_pow2_inv(fabs(th) > ph ? fabs(th) : ph);
                            const R ts = th * sc, ps = ph * sc;
                            const R hh = ts * ts + ps * ps;  // in [1, 8]
                            const R t0 = ra_fast_div(ps, fabs(ts) + hh * ra_fast_rsqrt(hh));
                            const R tt = th >= R(0) ? t0 : -t0;
                            // J = [[c, s], [-s, c]], s = c t sign(beta)
                            // c and the scaled tangents to about an ulp: their errors would
                            // make J non-orthogonal, and they add up over the sweeps
                            c = ra_eighw_rsqrt_refined(R(1) + tt * tt);
                            const R tb = beta < R(0) ? -tt : tt;
                            alpha_m = ra_eighw_div_refined(tb * dp, dq);
                            beta_m = -ra_eighw_div_refined(tb * dq, dp);
                            np = a - tt * bm;
                            nq = d + tt * bm;
                        }
                        sw[p] = dp * c;
                        sw[q] = dq * c;
                        ra_eighw_duo rec, diag;
                        rec.v[0] = alpha_m;
                        rec.v[1] = beta_m;
                        diag.v[0] = np;
                        diag.v[1] = nq;
                        reinterpret_cast<ra_eighw_duo*>(spair)[lane] = rec;
                        reinterpret_cast<ra_eighw_duo*>(snp)[lane] = diag;
                    }
                } else if (lane < HALF) {
                    ra_eighw_pair<T> pr;
                    const int p = XOR ? xp : ra_eighw_index(lane == 0 ? 0 : lane + 1, r, C);
                    const int q = XOR ? xq : ra_eighw_index(lane == 0 ? 1 : N - lane, r, C);
                    pr.p = L::col(p);
                    pr.q = L::col(q);
                    const R a = O::re(sA[L::at(pr.p, p)]), d = O::re(sA[L::at(pr.q, q)]);
                    const T beta = sA[L::at(pr.q, p)];
                    const R bm = O::mag(beta);
                    R c = R(1), np = a, nq = d;
                    T s = zero;
                    if (p < n && q < n && bm != R(0)) {
                        // Rutishauser's smaller angle on the real pair [[a, |beta|], [|beta|, d]]
                        R tt;
                        if constexpr (HALFSYM || XOR) {
                            // t = sign(tau) / (|tau| + sqrt(1 + tau^2)) with tau = theta / phi,
                            // theta = d - a, phi = 2 |beta|, as phi / (|theta| + sqrt(theta^2 +
                            // phi^2)) on both scaled by a power of two: one division and one
                            // square root, no branch
                            const R th = d - a, ph = R(2) * bm;
                            const R sc = ra_eighw_pow2_inv(fabs(th) > ph ? fabs(th) : ph);
                            const R ts = th * sc, ps = ph * sc;
                            const R t0 = ps / (fabs(ts) + sqrt(ts * ts + ps * ps));
                            tt = th >= R(0) ? t0 : -t0;
                        } else {
                            const R tau = (d - a) / (R(2) * bm);
                            const R sgn = tau >= R(0) ? R(1) : R(-1);
                            const R at = fabs(tau);
                            if (at > R(1)) {
                                const R inv = R(1) / at;
                                tt = sgn / (at * (R(1) + sqrt(R(1) + inv * inv)));
                            } else {
                                tt = sgn / (at + sqrt(R(1) + at * at));
                            }
                        }
                        c = O::inv_sqrt(R(1) + tt * tt);
                        s = O::phase(tt * c, beta, bm);  // the real sine times beta's phase
                        np = a - tt * bm;
                        nq = d + tt * bm;
                    }
                    pr.c = c;
                    pr.s = s;
                    spair[lane] = pr;
                    snp[lane] = np;
                    snq[lane] = nq;
                }
                ra_warp_sync();

                if constexpr (FASTROT) {
                    // (2) and (3) with scaled rotations, a lane per row as the row split below:
                    // X := Ah M_j on the lane's row (Xp = Ah_p + beta_j Ah_q, Xq = alpha_j Ah_p +
                    // Ah_q), then M_k^T across the pair's two rows (row p: Xp + beta_k Xq', row q:
                    // alpha_k Xp' + Xq, the partner's X by shuffle), then Vh := Vh M_j; the pair's
                    // own block set exactly (A's diagonal, zeros). Addresses: row ^ 4 col(p_j) by
                    // XORs of the round's bases (one a column), the records M's (alpha, beta) alone
                    const ra_eighw_quad* const sm4 = reinterpret_cast<const ra_eighw_quad*>(spair);
                    const R* const sm = reinterpret_cast<const R*>(spair);
                    const bool upper_row = lane >= HALF;
                    const unsigned rowb = slice ^ (4u * (unsigned)(upper_row ? xq : xp));
                    const R other = sm[2 * kr + (upper_row ? 0 : 1)];
                    unsigned offp[HALF];
#pragma unroll
                    for (int j0 = 0; j0 < HALF; j0 += ROW_BATCH) {
                        R al[ROW_BATCH], be[ROW_BATCH];
                        T yp[ROW_BATCH], yq[ROW_BATCH];
                        unsigned offq[ROW_BATCH];
#pragma unroll
                        for (int i = 0; i < ROW_BATCH; i += 2) {
                            const ra_eighw_quad qa = sm4[(j0 + i) / 2];
                            al[i] = qa.v[0];
                            be[i] = qa.v[1];
                            al[i + 1] = qa.v[2];
                            be[i + 1] = qa.v[3];
                        }
#pragma unroll
                        for (int i = 0; i < ROW_BATCH; ++i) {
                            const int j = j0 + i;
                            offp[j] = j == 0 ? rowb : offp[j & (j - 1)] ^ cb[1 + ra_eighw_ctz(j)];
                            offq[i] = offp[j] ^ cb[0];
                            yp[i] = elem(offp[j]);
                            yq[i] = elem(offq[i]);
                        }
#pragma unroll
                        for (int i = 0; i < ROW_BATCH; ++i) {
                            const T ap = yp[i], aq = yq[i];
                            yp[i] = ap + be[i] * aq;
                            yq[i] = aq + al[i] * ap;
                        }
#pragma unroll
                        for (int i = 0; i < ROW_BATCH; ++i) {
                            const T op = ra_shfl_xor(yp[i], HALF), oq = ra_shfl_xor(yq[i], HALF);
                            elem(offp[j0 + i]) = yp[i] + other * op;
                            elem(offq[i]) = yq[i] + other * oq;
                        }
#pragma unroll
                        for (int i = 0; i < ROW_BATCH; ++i) {
                            const int sp = ra_eighw_slot_p<N, XOR>(j0 + i);
                            const int sq = ra_eighw_slot_q<N, XOR>(j0 + i);
                            const T vp = vr[sp], vq = vr[sq];
                            vr[sp] = vp + be[i] * vq;
                            vr[sq] = vq + al[i] * vp;
                        }
                    }
                    const R own = snp[2 * kr + (upper_row ? 1 : 0)];
                    elem(rowb ^ (4u * (unsigned)L::col(xp))) = upper_row ? zero : own;
                    elem(rowb ^ (4u * (unsigned)L::col(xq))) = upper_row ? own : zero;
                    ra_eighw_next_slots<T, N, XOR>(vr);
                } else if constexpr (ROW_SPLIT) {
                  if (halfsym) {
                    // (2) on half of the blocks (ra_rocsolver_syevj_warp_half): J^H A J is symmetric, so pair k
                    // rotates only the blocks (k, k + d mod HALF), d = 1 .. HALF / 2 (d = HALF / 2
                    // for k < HALF / 2 alone), a lane per row as below, and stores each block
                    // and its transpose; every other block is the transpose of one of these, and
                    // the diagonal block is set exactly. A stays exactly symmetric. Then (3) as
                    // the block split does it.
                    const ra_eighw_pair<T> pk = spair[kr];
                    const bool upper_row = lane >= HALF;
                    const int row_col = upper_row ? pk.q : pk.p;  // col(row)
                    const int row = L::index(row_col);
                    const R other = upper_row ? pk.s : -pk.s;
                    constexpr int DH = HALF / 2;
                    constexpr int HB = DH < 4 ? DH : 4;   // blocks whose loads go together
#pragma unroll
                    for (int d0 = 1; d0 <= DH; d0 += HB) {
                        R cl[HB];
                        T sl[HB], yp[HB], yq[HB];
                        int cp[HB], cq[HB];
#pragma unroll
                        for (int i = 0; i < HB; ++i) {
                            const ra_eighw_pair<T> pl = spair[(kr + d0 + i) % HALF];
                            cl[i] = pl.c;
                            sl[i] = pl.s;
                            cp[i] = pl.p;
                            cq[i] = pl.q;
                            // the block of an idle lane (d = HALF / 2, k >= HALF / 2) is
                            // another pair's: not read
                            const bool act = d0 + i < DH || kr < DH;
                            yp[i] = act ? sA[L::at(pl.p, row)] : zero;
                            yq[i] = act ? sA[L::at(pl.q, row)] : zero;
                        }
#pragma unroll
                        for (int i = 0; i < HB; ++i) {
                            const T ap = yp[i], aq = yq[i];
                            yp[i] = cl[i] * ap - sl[i] * aq;
                            yq[i] = sl[i] * ap + cl[i] * aq;
                        }
#pragma unroll
                        for (int i = 0; i < HB; ++i) {
                            const T op = ra_shfl_xor(yp[i], HALF), oq = ra_shfl_xor(yq[i], HALF);
                            if (d0 + i < DH || kr < DH) {
                                const T vp = pk.c * yp[i] + other * op, vq = pk.c * yq[i] + other * oq;
                                sA[L::at(cp[i], row)] = vp;
                                sA[L::at(cq[i], row)] = vq;
                                sA[L::at(row_col, L::index(cp[i]))] = vp;
                                sA[L::at(row_col, L::index(cq[i]))] = vq;
                            }
                        }
                    }
                    sA[L::at(pk.p, row)] = upper_row ? zero : snp[kr];
                    sA[L::at(pk.q, row)] = upper_row ? snq[kr] : zero;
#pragma unroll
                    for (int k = 0; k < HALF; ++k) {
                        const int sp = ra_eighw_slot_p<N, XOR>(k);
                        const int sq = ra_eighw_slot_q<N, XOR>(k);
                        const ra_eighw_pair<T> pr = spair[k];
                        const T vp = vr[sp], vq = vr[sq];
                        vr[sp] = pr.c * vp - pr.s * vq;
                        vr[sq] = pr.s * vp + pr.c * vq;
                    }
                    ra_eighw_next_slots<T, N, XOR>(vr);
                  } else {
                    // (2) and (3) together, a lane per row of each 2 x 2 block: lane l % HALF of
                    // the lower half-warp takes row p_k, of the upper row q_k (k = l % HALF), for
                    // every column pair j: X := B J_j on its row, the partner row's X by shuffle,
                    // then J_k^H; every access of a column of A hits 32 different banks. Then
                    // V := V J_j for the same pair. The column pairs go in batches of ROW_BATCH:
                    // a batch's loads, then its arithmetic and shuffles, then its stores, so the
                    // loads and shuffles of a batch are in flight together (the elements of a
                    // round are disjoint, so no load of a round reads a store of the same round).
                    // No masks: J = I is exact on finite values, so the dummy rows and columns
                    // stay zero (a non-finite matrix reports info = 1 whatever they hold).
                    const ra_eighw_pair<T> pk = spair[kr];
                    const bool upper_row = lane >= HALF;
                    const int row = L::index(upper_row ? pk.q : pk.p);
                    // row p' = c X_p - s X_q, row q' = conj(s) X_p + c X_q (real T: conj(s) = s)
                    const R other = upper_row ? pk.s : -pk.s;
#pragma unroll
                    for (int j0 = 0; j0 < HALF; j0 += ROW_BATCH) {
                        R cl[ROW_BATCH];
                        T sl[ROW_BATCH], yp[ROW_BATCH], yq[ROW_BATCH];
                        int offp[ROW_BATCH], offq[ROW_BATCH];
#pragma unroll
                        for (int i = 0; i < ROW_BATCH; ++i) {
                            const ra_eighw_pair<T> pl = spair[j0 + i];
                            cl[i] = pl.c;
                            sl[i] = pl.s;
                            offp[i] = L::at(pl.p, row);
                            offq[i] = L::at(pl.q, row);
                            yp[i] = sA[offp[i]];
                            yq[i] = sA[offq[i]];
                        }
#pragma unroll
                        for (int i = 0; i < ROW_BATCH; ++i) {
                            const T ap = yp[i], aq = yq[i];
                            yp[i] = cl[i] * ap - sl[i] * aq;
                            yq[i] = sl[i] * ap + cl[i] * aq;
                        }
#pragma unroll
                        for (int i = 0; i < ROW_BATCH; ++i) {
                            const T op = ra_shfl_xor(yp[i], HALF), oq = ra_shfl_xor(yq[i], HALF);
                            sA[offp[i]] = pk.c * yp[i] + other * op;
                            sA[offq[i]] = pk.c * yq[i] + other * oq;
                        }
#pragma unroll
                        for (int i = 0; i < ROW_BATCH; ++i) {
                            const int j = j0 + i;
                            const int sp = ra_eighw_slot_p<N, XOR>(j);
                            const int sq = ra_eighw_slot_q<N, XOR>(j);
                            const T vp = vr[sp], vq = vr[sq];
                            vr[sp] = cl[i] * vp - sl[i] * vq;
                            vr[sq] = sl[i] * vp + cl[i] * vq;
                        }
                    }
                    // the pair's own block, set exactly: diagonal, (p, q) and (q, p) zero
                    sA[L::at(pk.p, row)] = upper_row ? zero : snp[kr];
                    sA[L::at(pk.q, row)] = upper_row ? snq[kr] : zero;
                    ra_eighw_next_slots<T, N, XOR>(vr);
                  }
                } else {
                    // (2) A := J^H A J on this lane's blocks: rows (p_k, q_k), columns (p_l, q_l).
                    // Columns first (X := B J_l), then rows (J_k^H X), as the one-block kernel.
                    // The blocks go in batches of BLOCK_BATCH: a batch's loads, then its
                    // arithmetic and stores, so the loads of a batch are in flight together (the
                    // blocks of a round are disjoint). No masks: J = I is exact on finite values,
                    // so the dummy rows and columns stay zero (a non-finite matrix reports
                    // info = 1 whatever they hold).
                    if (halfsym) {
                        // (2) on half of the blocks (ra_rocsolver_syevj_warp_half): pair k's lanes rotate the
                        // blocks (k, k + d mod HALF), d = 1 .. HALF / 2 (d = HALF / 2 for
                        // k < HALF / 2 alone), the lane of column group h taking d = 1 + h,
                        // 1 + h + COL_STEP, ...; each block and its conjugate transpose are
                        // stored, the diagonal block set exactly (A stays exactly Hermitian)
                        const ra_eighw_pair<T> pk = spair[kr];
                        const T skb = O::conj(pk.s);
                        const int cpk = pk.p, cqk = pk.q;
                        const int rp = L::index(cpk), rq = L::index(cqk);
                        constexpr int DH = HALF / 2;
                        constexpr int HBLOCKS = (DH + COL_STEP - 1) / COL_STEP;
                        constexpr int HB = HBLOCKS < BLOCK_BATCH ? HBLOCKS : BLOCK_BATCH;
                        const int h = lane / HALF;
#pragma unroll
                        for (int j0 = 0; j0 < HBLOCKS; j0 += HB) {
                            R cl[HB];
                            T sl[HB], x00[HB], x01[HB], x10[HB], x11[HB];
                            int cp[HB], cq[HB];
                            bool act[HB];
#pragma unroll
                            for (int i = 0; i < HB; ++i) {
                                const int d = 1 + h + (j0 + i) * COL_STEP;
                                act[i] = j0 + i < HBLOCKS && (d < DH || (d == DH && kr < DH));
                                const ra_eighw_pair<T> pl = spair[(kr + (d <= DH ? d : 0)) % HALF];
                                cl[i] = pl.c;
                                sl[i] = pl.s;
                                cp[i] = pl.p;
                                cq[i] = pl.q;
                                x00[i] = act[i] ? sA[L::at(pl.p, rp)] : zero;
                                x01[i] = act[i] ? sA[L::at(pl.q, rp)] : zero;
                                x10[i] = act[i] ? sA[L::at(pl.p, rq)] : zero;
                                x11[i] = act[i] ? sA[L::at(pl.q, rq)] : zero;
                            }
#pragma unroll
                            for (int i = 0; i < HB; ++i) {
                                if (act[i]) {
                                    const R c = cl[i];
                                    const T s = sl[i], slb = O::conj(s);
                                    const T y00 = c * x00[i] - slb * x01[i], y01 = s * x00[i] + c * x01[i];
                                    const T y10 = c * x10[i] - slb * x11[i], y11 = s * x10[i] + c * x11[i];
                                    const T z00 = pk.c * y00 - pk.s * y10, z10 = skb * y00 + pk.c * y10;
                                    const T z01 = pk.c * y01 - pk.s * y11, z11 = skb * y01 + pk.c * y11;
                                    const int ip = L::index(cp[i]), iq = L::index(cq[i]);
                                    sA[L::at(cp[i], rp)] = z00;
                                    sA[L::at(cp[i], rq)] = z10;
                                    sA[L::at(cq[i], rp)] = z01;
                                    sA[L::at(cq[i], rq)] = z11;
                                    sA[L::at(cpk, ip)] = O::conj(z00);
                                    sA[L::at(cqk, ip)] = O::conj(z10);
                                    sA[L::at(cpk, iq)] = O::conj(z01);
                                    sA[L::at(cqk, iq)] = O::conj(z11);
                                }
                            }
                        }
                        if (h == 0) {
                            sA[L::at(cpk, rp)] = O::real(snp[kr]);
                            sA[L::at(cqk, rq)] = O::real(snq[kr]);
                            sA[L::at(cpk, rq)] = zero;
                            sA[L::at(cqk, rp)] = zero;
                        }
                    } else {
                        const ra_eighw_pair<T> pk = spair[kr];
                        const int cpk = pk.p, cqk = pk.q;
                        const int rp = L::index(cpk), rq = L::index(cqk);
                        // rows (ra, rb) = (p, q), or (q, p) with the sine -conj(s) (the same J^H
                        // on the rows in the other order): in the XOR tournament q = p ^ r for
                        // every pair of the round, and taking first the one of p, q with
                        // parity(x & m) = 0, m = 16 | (the lowest bit of r) or 16 if r has it,
                        // picks one row of each pair such that the 16 rows a half-warp reads
                        // first differ modulo 16: each 8-byte bank once (16-byte elements: each
                        // 16-byte bank twice), no conflict
                        int ra = rp, rb = rq;
                        T sk = pk.s;
                        if constexpr (XOR && N == 32) {
                            const int rr = rp ^ rq;
                            const int m = (rr & 16) ? 16 : (16 | (rr & -rr));
                            if (__popc((unsigned)(rp & m)) & 1) {
                                ra = rq;
                                rb = rp;
                                sk = zero - O::conj(pk.s);
                            }
                        }
                        const T skb = O::conj(sk);
#pragma unroll
                        for (int j0 = 0; j0 < BLOCKS; j0 += BLOCK_BATCH) {
                            R cl[BLOCK_BATCH];
                            T sl[BLOCK_BATCH], x00[BLOCK_BATCH], x01[BLOCK_BATCH], x10[BLOCK_BATCH],
                                x11[BLOCK_BATCH];
                            int cp[BLOCK_BATCH], cq[BLOCK_BATCH];
#pragma unroll
                            for (int i = 0; i < BLOCK_BATCH; ++i) {
                                const ra_eighw_pair<T> pl = spair[lane / HALF + (j0 + i) * COL_STEP];
                                cl[i] = pl.c;
                                sl[i] = pl.s;
                                cp[i] = pl.p;
                                cq[i] = pl.q;
                                x00[i] = sA[L::at(cp[i], ra)];
                                x01[i] = sA[L::at(cq[i], ra)];
                                x10[i] = sA[L::at(cp[i], rb)];
                                x11[i] = sA[L::at(cq[i], rb)];
                            }
#pragma unroll
                            for (int i = 0; i < BLOCK_BATCH; ++i) {
                                const R c = cl[i];
                                const T s = sl[i], slb = O::conj(s);
                                const T y00 = c * x00[i] - slb * x01[i], y01 = s * x00[i] + c * x01[i];
                                const T y10 = c * x10[i] - slb * x11[i], y11 = s * x10[i] + c * x11[i];
                                sA[L::at(cp[i], ra)] = pk.c * y00 - sk * y10;
                                sA[L::at(cp[i], rb)] = skb * y00 + pk.c * y10;
                                sA[L::at(cq[i], ra)] = pk.c * y01 - sk * y11;
                                sA[L::at(cq[i], rb)] = skb * y01 + pk.c * y11;
                            }
                        }
                        // the pair's own block (this lane's block j = kr / COL_STEP when its column
                        // pair is kr), set exactly: diagonal real, (p, q) and (q, p) zero
                        if (lane / HALF == kr % COL_STEP) {
                            sA[L::at(cpk, rp)] = O::real(snp[kr]);
                            sA[L::at(cqk, rq)] = O::real(snq[kr]);
                            sA[L::at(cpk, rq)] = zero;
                            sA[L::at(cqk, rp)] = zero;
                        }
                    }

                    // (3) V := V J on this lane's row: pair k is slots (0, 1) or (k + 1, N - k); then
                    // the slots shift by one (slot t + 1 takes slot t + 2's index, slot N - 1 slot 1's)
#pragma unroll
                    for (int k = 0; k < HALF; ++k) {
                        const int sp = ra_eighw_slot_p<N, XOR>(k);
                        const int sq = ra_eighw_slot_q<N, XOR>(k);
                        const ra_eighw_pair<T> pr = spair[k];
                        const R c = pr.c;
                        const T s = pr.s, sb = O::conj(s);
                        const T vp = vr[sp], vq = vr[sq];
                        vr[sp] = c * vp - sb * vq;
                        vr[sq] = s * vp + c * vq;
                    }
                    ra_eighw_next_slots<T, N, XOR>(vr);
                }
                if constexpr (XOR) {
                    xp = ra_eighw_mul_alpha<N>(xp);
                    xq = ra_eighw_mul_alpha<N>(xq);
                }
                if constexpr (FASTROT) {
#pragma unroll
                    for (int e = 0; e < LOGH; ++e) cb[e] = cb[e + 1];
                    const int hn = ra_eighw_mul_alpha<N>(rn);
                    cb[LOGH] = 4u * (unsigned)(N * rn + hn);  // 4 col(rn)
                    rn = hn;
                }
                ra_warp_sync();
            }
            ++sweeps;
            off2 = R(0);
            if constexpr (FASTROT) {
                // D back into A (off the diagonal) and V (slot order is index order again), d := 1
                const R dl = sw[lane];
#pragma unroll
                for (int s = 0; s < N; ++s) vr[s] = vr[s] * sw[s];
                if (lane < n) {
                    for (int i = 0; i < n; ++i) {
                        if (i != lane) {
                            const T x = sA[L::at(col_lane, i)] * (sw[i] * dl);
                            sA[L::at(col_lane, i)] = x;
                            off2 += O::abs2(x);
                        }
                    }
                }
                ra_warp_sync();
                if (lane < N) sw[lane] = R(1);
                ra_warp_sync();
            } else if (lane < n) {
                for (int i = 0; i < n; ++i) {
                    if (i != lane) off2 += O::abs2(sA[L::at(col_lane, i)]);
                }
            }
            off = sqrt(ra_warp_reduce(off2, ra_op_sum()));
        }

        // ascending order: rank of each eigenvalue, then scatter values and vectors
        const R w = lane < n ? O::re(sA[L::at(col_lane, lane)]) : R(0);
        if (lane < N) sw[lane] = w;
        ra_warp_sync();
        if (lane < n) {
            int rank = 0;
            for (int j = 0; j < n; ++j) rank += ra_eighw_before<R>(sw[j], j, w, lane) ? 1 : 0;
            srank[lane] = rank;
            W[b * strideW + rank] = w;
        }
        ra_warp_sync();
        if (vectors && rows) {
            // row-major V: lane i's row of V through A's slice (column rank(j) of row i, then row
            // by row), so both the slice's accesses and the warp's stores are whole rows
            if (lane < n) {
#pragma unroll
                for (int j = 0; j < N; ++j) {
                    if (j < n) sA[L::at(L::col(srank[j]), lane)] = vr[j];
                }
            }
            ra_warp_sync();
            if (lane < n) {
                for (int i = 0; i < n; ++i) Vb[(ra_i64)i * lda + lane] = sA[L::at(col_lane, i)];
            }
        } else if (vectors && lane < n) {
#pragma unroll
            for (int j = 0; j < N; ++j) {
                if (j < n) Vb[lane + (ra_i64)srank[j] * lda] = vr[j];
            }
        }
        if (lane == 0) {
            info[b] = (finite && off <= tol) ? 0 : 1;
            if (residual != nullptr) residual[b] = off;
            if (n_sweeps != nullptr) n_sweeps[b] = sweeps;
        }
    }
}

#define RA_EIGHW_PARAMS                                                                                        \
    int n, const T *A, ra_i64 lda, ra_i64 strideA, T *V, ra_i64 strideV, typename ra_eighw_ops<T>::R abstol,  \
        typename ra_eighw_ops<T>::R *__restrict__ residual, int max_sweeps, int *__restrict__ n_sweeps,       \
        typename ra_eighw_ops<T>::R *__restrict__ W, ra_i64 strideW, int *__restrict__ info, int flags, ra_i64 batch
#define RA_EIGHW_ARGS n, A, lda, strideA, V, strideV, abstol, residual, max_sweeps, n_sweeps, W, strideW, info, flags, batch

template <typename T, int N>
__global__ void RA_LAUNCH_BOUNDS(RA_EIGHW_THREADS) ra_rocsolver_syevj_warp(RA_EIGHW_PARAMS) {
    ra_eighw_run<T, N, false, false>(RA_EIGHW_ARGS);
}

// The same solver in the XOR layout of A and the XOR tournament (no bank conflicts).
template <typename T, int N>
__global__ void RA_LAUNCH_BOUNDS(RA_EIGHW_THREADS) ra_rocsolver_syevj_warp_xor(RA_EIGHW_PARAMS) {
    ra_eighw_run<T, N, false, true>(RA_EIGHW_ARGS);
}

// ra_rocsolver_syevj_warp_xor with scaled rotations where it splits rows (float at the warp
// size). On NVIDIA four resident blocks of four warps (128 registers a thread, as the XOR
// kernel, which ptxas would pass here otherwise).
#if defined(RA_CUDA)
#define RA_EIGHW_FAST_MIN_BLOCKS 4
#else
#define RA_EIGHW_FAST_MIN_BLOCKS 1
#endif
template <typename T, int N>
__global__ void __launch_bounds__(RA_EIGHW_THREADS, RA_EIGHW_FAST_MIN_BLOCKS) ra_rocsolver_syevj_warp_fast(
    RA_EIGHW_PARAMS) {
    ra_eighw_run<T, N, false, true, true>(RA_EIGHW_ARGS);
}

// float32 at the warp size on NVIDIA: six resident blocks of four warps (at most 80 registers a
// thread, 24 warps a multiprocessor; ptxas spills a few words outside the round loop), more
// warps to hide the rotation's chain. (Parenthesized: HIP's __launch_bounds__ is a macro, and
// there its second argument is another bound, left at 1.)
#if defined(RA_CUDA)
template <typename T, int N> constexpr int ra_eighw_min_blocks = sizeof(T) == 4 && N == RA_WARP_SIZE ? 6 : 1;
#else
template <typename T, int N> constexpr int ra_eighw_min_blocks = 1;
#endif

template <typename T, int N>
__global__ void __launch_bounds__(RA_EIGHW_THREADS, (ra_eighw_min_blocks<T, N>)) ra_rocsolver_syevj_warp_half(
    RA_EIGHW_PARAMS) {
    ra_eighw_run<T, N, true, false>(RA_EIGHW_ARGS);
}
