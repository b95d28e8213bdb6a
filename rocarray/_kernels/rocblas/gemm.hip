// rocBLAS level 3: gemm, the portable tiled shared-memory SIMT kernel, with batches, split-K and
// a fused bias + activation epilogue.
//
//   C := act(alpha * op(A) * op(B) + beta * C + bias),   op(X) = X, X^T or X^H,
//
// column-major as in the reference BLAS: element (i, j) of C is C[i + j * ldc] (64-bit offsets);
// op(A) is m x k, op(B) is k x n; bias (optional) has one element per row of C. The Python layer
// (rocarray/rocblas/_gemm/) has checked every bound and handles the no-op cases; it passes
// k = 0 when alpha == 0 (then A and B are not read and C := act(beta * C + bias)).
//
// One template, ra_rocblas_gemm<T, BM, BN, BK, TM, TN, DIRECT, LM, LN, STAGES> (the last four
// default to 0, 0, 0, 2; LM x LN: the warp-tiled thread layout, see ra_rocblas3_geom; STAGES >= 3:
// a ring of k tiles for the direct copies, see ra_rocblas3_kloop_ring): a block of
// RA_ROCBLAS3_BLOCK (256) threads owns a BM x BN tile of C and walks k in steps of BK; the
// transposes are runtime flags applied where a tile is loaded (the k loop has one instance per
// pair of operand layouts, so its address arithmetic is fixed at compile time). The Python layer
// registers only the tile shapes it launches.
//  * Thread (tx, ty) = (t % (BM / TM), t / (BM / TM)) computes a TM x TN register micro-tile.
//    Its rows are TM / VA groups of VA consecutive rows, groups BM / (TM / VA) apart (VA = the
//    elements of one 16-byte vector, at most TM): row g * BM * VA / TM + tx * VA + v. So each
//    group is one 16-byte shared-memory load, a warp's loads of the A tile are consecutive
//    vectors (broadcast across ty), and its C stores are runs of consecutive rows. Columns
//    likewise with VB and ty. float: 128 x 128 tiles of 8 x 8 (64 FMAs per 4 vector loads).
//  * Both operand tiles are stored k-major in shared memory, sA[k][i] and sB[k][j], each row
//    padded by one vector (no bank conflicts when a 'T' tile is transposed on the way in). The
//    tile of op(A) (BM x BK) is read from global memory along whichever of its dimensions is
//    contiguous: for 'N' consecutive threads take consecutive rows i; for 'T'/'C' consecutive
//    threads take consecutive k (the column of A holds a row of op(A)) and the tile is transposed
//    while it is stored. op(B) likewise ('N': consecutive k; 'T'/'C': consecutive j). 'C'
//    conjugates while loading. Out-of-range elements load as zero: the inner loop has no guards.
//  * Double buffering: the next k tile is loaded from global memory into registers while the
//    current one is multiplied from shared memory, then stored into the other buffer; one
//    barrier per k step. DIRECT = 1 (real data, NVIDIA sm_80+): the next tile is copied straight
//    into the other buffer with cp.async instead, so no registers hold it and no shared stores
//    are issued (float 128 x 128 of 8 x 8 then fits two blocks per SM at 128 registers without a
//    spill); elsewhere DIRECT copies are plain loads and stores (correct, not fast).
//  * Grid: x = tiles of C (m fastest), y = matrices of a strided batch (A, B, C advance by
//    stride_a/b/c elements; a stride may be 0), z = split-K parts. With gridDim.z > 1 each part
//    covers k_per_split of k and stores alpha * (its partial product) to ws[z][j][i] (m x n,
//    column-major, ld m); ra_rocblas_gemm_splitk_finish then adds the parts in order (so the
//    result is deterministic) and applies beta, bias and the activation.
// beta == 0 never reads C (NaN in C does not propagate), as in the reference BLAS.

#define RA_ROCBLAS3_BLOCK 256

// flag bits (mirrored in _gemm/simt.py)
#define RA_ROCBLAS3_TRANS_A 0x01   // op(A) = A^T (or A^H with CONJ_A)
#define RA_ROCBLAS3_CONJ_A 0x02
#define RA_ROCBLAS3_TRANS_B 0x04   // op(B) = B^T (or B^H with CONJ_B)
#define RA_ROCBLAS3_CONJ_B 0x08
#define RA_ROCBLAS3_BIAS 0x10      // add bias[i] to row i of C
#define RA_ROCBLAS3_ACT_SHIFT 8    // bits 8..11: the activation (0 none, then as below)
#define RA_ROCBLAS3_ACT_RELU 1
#define RA_ROCBLAS3_ACT_GELU 2     // exact: x * Phi(x) = x / 2 * (1 + erf(x / sqrt(2)))
#define RA_ROCBLAS3_ACT_SILU 3     // x * sigmoid(x)
#define RA_ROCBLAS3_ACT_SIGMOID 4
#define RA_ROCBLAS3_ACT_TANH 5

RA_DEVICE float ra_rocblas3_madd(float a, float b, float c) { return ra_fma(a, b, c); }
RA_DEVICE double ra_rocblas3_madd(double a, double b, double c) { return ra_fma(a, b, c); }
template <typename R>
RA_DEVICE ra_complex<R> ra_rocblas3_madd(ra_complex<R> a, ra_complex<R> b, ra_complex<R> c) {
    return ra_make_complex<R>(ra_fma(a.re, b.re, ra_fma(-a.im, b.im, c.re)),
                              ra_fma(a.re, b.im, ra_fma(a.im, b.re, c.im)));
}

RA_DEVICE float ra_rocblas3_conj_if(float a, bool) { return a; }
RA_DEVICE double ra_rocblas3_conj_if(double a, bool) { return a; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas3_conj_if(ra_complex<R> a, bool conj) {
    return conj ? ra_conj(a) : a;
}

RA_DEVICE bool ra_rocblas3_is_zero(float a) { return a == 0.0f; }
RA_DEVICE bool ra_rocblas3_is_zero(double a) { return a == 0.0; }
template <typename R> RA_DEVICE bool ra_rocblas3_is_zero(ra_complex<R> a) { return a.re == R(0) && a.im == R(0); }

// The activations (real data only; the Python layer refuses them for complex data): the shared
// ra_activation of ra_math.cuh, whose codes the RA_ROCBLAS3_ACT_* values are.
template <typename R> RA_DEVICE R ra_rocblas3_act(R x, int act) { return ra_activation(x, act); }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas3_act(ra_complex<R> x, int) { return x; }

// C's element after the product: act(alpha_s + beta * c + bias), where alpha_s is alpha times
// the product (already scaled) and c is read only when beta != 0.
// `act`: the activation code of `flags` (0 in the unrolled tile epilogues, which apply it in a
// second pass).
template <typename T>
RA_DEVICE T ra_rocblas3_epilogue(T alpha_s, T beta, const T* c, const T* bias, ra_i64 i, int flags, int act) {
    T out = alpha_s;
    if (!ra_rocblas3_is_zero(beta)) out = out + beta * *c;
    if (flags & RA_ROCBLAS3_BIAS) out = out + bias[i];
    return ra_rocblas3_act(out, act);
}
RA_DEVICE int ra_rocblas3_act_code(int flags) { return (flags >> RA_ROCBLAS3_ACT_SHIFT) & 0xF; }

// VW elements of T that move as one (up to 16-byte) vector.
template <typename T, int VW> struct alignas(VW * sizeof(T)) ra_rocblas3_vec { T v[VW]; };

template <typename T, int TM> struct ra_rocblas3_width {
    static constexpr int FIT = 16 / (int)sizeof(T) > 0 ? 16 / (int)sizeof(T) : 1;
    static constexpr int V = FIT < TM ? FIT : TM;
};

// Global -> shared copy of one element for the direct (DIRECT = 1) kernels: on NVIDIA sm_80 and
// later cp.async (asynchronous, zero-filled through its src-size operand when `ok` is false, so
// no registers hold the next tile and no store instruction is issued); elsewhere a plain load
// and store, complete when issued. `g` is a valid address even when `ok` is false (the copy then
// reads nothing, but an address outside the buffer is not relied on). ra_rocblas3_copy_wait
// completes this thread's copies.
template <typename T> constexpr bool ra_rocblas3_real = true;
template <typename R> constexpr bool ra_rocblas3_real<ra_complex<R>> = false;

template <typename T> RA_DEVICE void ra_rocblas3_copy(T* s, const T* g, bool ok) {
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
    const unsigned addr = (unsigned)__cvta_generic_to_shared(s);
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(addr), "l"(g), "n"(sizeof(T)),
                 "r"(ok ? (int)sizeof(T) : 0));
#else
    *s = ok ? *g : ra_traits<T>::zero();
#endif
}
RA_DEVICE void ra_rocblas3_copy_wait() {
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// The loader of one operand tile: element (r, kk) of the ROWS x BK tile of op(X) starting at
// (r0, k0), where op(X)(r, k) is X[r + k * ld] when r_contiguous (the tile's rows are contiguous
// in memory) and X[k + r * ld] otherwise. Each thread moves ELEMS elements; the thread-to-element
// map follows the contiguous dimension so that a warp's loads are consecutive addresses. Either
// way a thread's elements are `estride` apart in memory and `sstep` apart in shared memory, and k
// tiles `tstride` apart, so the index math is done once: a k step is one pointer increment.
// Which elements exist is a bit mask: rows outside the matrix are fixed for the whole k loop,
// and the k limit only matters in the last tile (`mask`). RC = 1 or 0 fixes r_contiguous at
// compile time (the strides are then constant multiples of ld), RC = -1 leaves it to run time.
template <typename T, int ROWS, int BK, int RC = -1, int THREADS = RA_ROCBLAS3_BLOCK> struct ra_rocblas3_loader {
    static constexpr int ELEMS = ROWS * BK / THREADS;
    static constexpr int STEP_R = THREADS / BK;    // rows between elements, k contiguous
    static constexpr int STEP_K = THREADS / ROWS;  // k between elements, rows contiguous
    static_assert(ROWS * BK % THREADS == 0 && THREADS % ROWS == 0 && THREADS % BK == 0 &&
                      ELEMS <= 8 * (int)sizeof(unsigned), "tile loads");
    static constexpr unsigned ALL = ELEMS == 8 * (int)sizeof(unsigned) ? ~0u : (1u << ELEMS) - 1u;
    const T* p;       // this thread's first element in the current k tile
    ra_i64 estride;   // elements between this thread's elements
    ra_i64 tstride;   // elements between k tiles
    int s0, sstep;    // shared offset of the first element (row length LD), and between elements
    unsigned rmask;   // bit e: element e's row is inside the matrix
    bool rc;
    bool conj;
    T v[ELEMS];

    template <int LD>
    RA_DEVICE void init(const T* X, ra_i64 ld, bool r_contiguous, bool conj_, ra_i64 r0, ra_i64 rows, ra_i64 k0) {
        const int t = (int)threadIdx.x;
        rc = RC < 0 ? r_contiguous : RC == 1;
        conj = conj_;
        const int r = rc ? t % ROWS : t / BK;
        const int c = rc ? t / ROWS : t % BK;
        p = X + (rc ? (r0 + r) + (k0 + c) * ld : (k0 + c) + (r0 + r) * ld);
        estride = (rc ? STEP_K : STEP_R) * ld;
        tstride = rc ? BK * ld : (ra_i64)BK;
        s0 = c * LD + r;
        sstep = rc ? STEP_K * LD : STEP_R;
        rmask = 0;
#pragma unroll
        for (int e = 0; e < ELEMS; ++e)
            if (r0 + r + (rc ? 0 : STEP_R * e) < rows) rmask |= 1u << e;
    }
    // bit e: element e's k column is below klim
    RA_DEVICE unsigned kmask(int klim) const {
        const int t = (int)threadIdx.x;
        const int c = rc ? t / ROWS : t % BK;
        unsigned m = 0;
#pragma unroll
        for (int e = 0; e < ELEMS; ++e)
            if (c + (rc ? STEP_K * e : 0) < klim) m |= 1u << e;
        return m;
    }
    // the elements to move from a tile with klim (> 0) k columns left
    RA_DEVICE unsigned mask(int klim) const { return klim >= BK ? rmask : rmask & kmask(klim); }

    RA_DEVICE void advance() { p += tstride; }

    // the register-staged path: load this tile, later store it
    RA_DEVICE void load(int klim) {
        const unsigned m = mask(klim);
#pragma unroll
        for (int e = 0; e < ELEMS; ++e) {
            T x = ra_traits<T>::zero();
            if ((m >> e) & 1u) x = ra_rocblas3_conj_if(p[e * estride], conj);
            v[e] = x;
        }
    }
    RA_DEVICE void store(T* s) const {
#pragma unroll
        for (int e = 0; e < ELEMS; ++e) s[s0 + e * sstep] = v[e];
    }
    // the direct path (real data: nothing to conjugate): copies straight into shared memory.
    // A whole tile of whole rows (the caller knows): no predicates.
    RA_DEVICE void copy_whole(T* s) const {
#pragma unroll
        for (int e = 0; e < ELEMS; ++e) ra_rocblas3_copy(s + s0 + e * sstep, p + e * estride, true);
    }
    // Any tile: an element not moved is zero-filled, its source address replaced by `safe` (the
    // matrix's first element).
    RA_DEVICE void copy(T* s, int klim, const T* safe) const {
        const unsigned m = mask(klim);
        if (m == ALL) {  // every element (inner tiles): no address to replace
            copy_whole(s);
        } else {
#pragma unroll
            for (int e = 0; e < ELEMS; ++e) {
                const bool ok = (m >> e) & 1u;
                ra_rocblas3_copy(s + s0 + e * sstep, ok ? p + e * estride : safe, ok);
            }
        }
    }
    // copy() without its branch: every element's copy carries its own zero-fill predicate, and
    // klim = 0 moves nothing (the stage is zero-filled). A k loop refilling its ring with it
    // stays one basic block, in which the compiler can spread the copies between the products.
    RA_DEVICE void copy_predicated(T* s, int klim, const T* safe) const {
        const unsigned m = rmask & kmask(klim);
#pragma unroll
        for (int e = 0; e < ELEMS; ++e) {
            const bool ok = (m >> e) & 1u;
            ra_rocblas3_copy(s + s0 + e * sstep, ok ? p + e * estride : safe, ok);
        }
    }
    // stage the tile (in registers, or copies in flight) and land it in shared memory
    template <int DIRECT> RA_DEVICE void fetch(T* s, int klim, const T* safe) {
        if (DIRECT) copy(s, klim, safe);
        else load(klim);
    }
    template <int DIRECT> RA_DEVICE void land(T* s) const {
        if (DIRECT) ra_rocblas3_copy_wait();
        else store(s);
    }
};

// Two resident blocks for float tiles (at most 128 registers per thread on NVIDIA: the 8 x 8
// micro-tile's 64 accumulators, 16 operands, the next tile's 8 elements (none with DIRECT) and
// the loaders' pointers fit without a spill on sm_90 since the layouts are compile-time; the
// 4 x 4 tile needs 80-95); one 8 x 8 block of 158 registers is slower (docs/performance/rocblas.md).
// (One template argument: HIP's __launch_bounds__ is a two-parameter macro, so the bound may not
// contain a comma.)
template <typename T>
constexpr int ra_rocblas3_min_blocks = sizeof(T) == 4 ? 2 : 1;
// One block for micro-tiles of more than 64 elements (float 16 x 8: 128 accumulators need up to
// 255 registers; six 16-byte shared loads feed 128 FMAs, three quarters of an 8 x 8's share).
template <int TMN> constexpr int ra_rocblas3_fat = TMN > 64 ? 1 : 0;

// The geometry of one SIMT tile shape (see the top of the file). LM = 0: the block-wide thread
// layout, thread (tx, ty) = (t % TDM, t / TDM). LM, LN > 0: the warp-tiled layout. Each group of
// LM * LN consecutive threads (one NVIDIA warp for 8 x 4 or 4 x 8) owns a warp tile of
// (GA * LM * VA) x (GB * LN * VB) elements of C, the groups laid out m fastest; lane (lm, ln) =
// (l % LM, l / LM) of a group holds the 4 x 4 (VA x VB) blocks at rows g * LM * VA + lm * VA and
// columns h * LN * VB + ln * VB of its warp tile (float 8 x 8: split 2 x 2). A warp's fragment
// loads then touch LM consecutive vectors of A and LN of B (8 x 4: an 8-lane phase reads 128
// consecutive bytes of A and broadcasts one vector of B), and a warp's micro-tiles cover a
// compact piece of C (float 128 x 128, 8 x 4 lanes: 64 rows by half as many columns) instead of
// a 128 x 16 strip: per k step a warp reads 96 distinct floats of shared memory instead of 144.
template <typename T, int BM, int BN, int BK, int TM, int TN, int LM = 0, int LN = 0> struct ra_rocblas3_geom {
    static constexpr int TDM = BM / TM;  // threads along m
    static constexpr int TDN = BN / TN;  // threads along n
    static_assert(TDM * TDN == RA_ROCBLAS3_BLOCK, "micro-tile geometry");
    static constexpr int VA = ra_rocblas3_width<T, TM>::V;
    static constexpr int VB = ra_rocblas3_width<T, TN>::V;
    static_assert(TM % VA == 0 && TN % VB == 0, "vector groups");
    static constexpr int GA = TM / VA, GB = TN / VB;          // vector groups per thread
    static constexpr bool WARPED = LM > 0;
    static constexpr int WTM = WARPED ? GA * LM * VA : BM, WTN = WARPED ? GB * LN * VB : BN;  // warp tile
    static constexpr int WGM = BM / WTM;  // warp tiles along m
    static_assert(!WARPED || (LN > 0 && WTM * WGM == BM && BN % WTN == 0 &&
                              WGM * (BN / WTN) * LM * LN == RA_ROCBLAS3_BLOCK), "warp tiling");
    // rows between a thread's groups
    static constexpr int SPAN_A = WARPED ? LM * VA : TDM * VA, SPAN_B = WARPED ? LN * VB : TDN * VB;
    // a thread's first row and column in the tile, in vectors
    RA_DEVICE static int row0(int t) {
        if (!WARPED) return t % TDM;
        const int l = t % (WARPED ? LM * LN : 1), w = t / (WARPED ? LM * LN : 1);
        return ((w % WGM) * WTM) / VA + l % (WARPED ? LM : 1);
    }
    RA_DEVICE static int col0(int t) {
        if (!WARPED) return t / TDM;
        const int l = t % (WARPED ? LM * LN : 1), w = t / (WARPED ? LM * LN : 1);
        return ((w / WGM) * WTN) / VB + l / (WARPED ? LM : 1);
    }
    static constexpr int LDA_S = BM + VA, LDB_S = BN + VB;      // padded shared rows
    static constexpr int RA_ = LDA_S / VA, RB_ = LDB_S / VB;    // vectors per shared row
    typedef ra_rocblas3_vec<T, VA> PA;
    typedef ra_rocblas3_vec<T, VB> PB;
};

// Completion of the direct copies in groups (NVIDIA sm_80+; elsewhere the copies are complete
// when issued): a group closes this thread's copies issued since the last one, and the wait
// returns once at most N of its newest groups are still in flight.
RA_DEVICE void ra_rocblas3_async_commit() {
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N> RA_DEVICE void ra_rocblas3_async_wait() {
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

// One k tile of the product: acc += the BK columns of op(A) at cA times the BK rows of op(B) at
// cB (shared tiles, this thread's first vectors).
template <typename G, int BK, typename T, int TM, int TN>
RA_DEVICE void ra_rocblas3_tile_fma(T (&acc)[TM][TN], const typename G::PA* cA, const typename G::PB* cB) {
    // AMD: unrolled by 4, not fully: a full unroll lets its scheduler hoist every shared
    // load of the tile (gfx90a, 64 x 64 float tiles: 246 VGPRs; by 4: 102)
#if defined(RA_HIP)
#pragma unroll 4
#else
#pragma unroll
#endif
    for (int kk = 0; kk < BK; ++kk) {
        typename G::PA a[G::GA];
        typename G::PB b[G::GB];
#pragma unroll
        for (int g = 0; g < G::GA; ++g) a[g] = cA[kk * G::RA_ + (g * G::SPAN_A) / G::VA];
#pragma unroll
        for (int g = 0; g < G::GB; ++g) b[g] = cB[kk * G::RB_ + (g * G::SPAN_B) / G::VB];
#pragma unroll
        for (int r = 0; r < TM; ++r)
#pragma unroll
            for (int c = 0; c < TN; ++c)
                acc[r][c] = ra_rocblas3_madd(a[r / G::VA].v[r % G::VA], b[c / G::VB].v[c % G::VB], acc[r][c]);
    }
}

// The k loop of one block: acc += op(A) tile rows x op(B) tile columns over [kb, ke). sA and sB
// are the double-buffered shared tiles ([2][BK][RA_] and [2][BK][RB_] vectors). The layouts of
// op(A) and op(B) in memory (RA, RB: rows contiguous or not) are template arguments, so the
// loaders' strides are constant multiples of lda/ldb; the kernel runs one of four instances.
template <typename T, int BM, int BN, int BK, int TM, int TN, int DIRECT, int RA, int RB, int LM = 0, int LN = 0>
RA_DEVICE void ra_rocblas3_kloop(T (&acc)[TM][TN], typename ra_rocblas3_geom<T, BM, BN, BK, TM, TN, LM, LN>::PA* sA,
                                 typename ra_rocblas3_geom<T, BM, BN, BK, TM, TN, LM, LN>::PB* sB, const T* A,
                                 ra_i64 lda, bool a_conj, ra_i64 m0, ra_i64 M, const T* B, ra_i64 ldb, bool b_conj,
                                 ra_i64 n0, ra_i64 N, ra_i64 kb, ra_i64 ke, int tx, int ty) {
    typedef ra_rocblas3_geom<T, BM, BN, BK, TM, TN, LM, LN> G;
    typedef typename G::PA PA;
    typedef typename G::PB PB;
    const ra_i64 ktiles = (ke - kb + BK - 1) / BK;
    ra_rocblas3_loader<T, BM, BK, RA> la;
    ra_rocblas3_loader<T, BN, BK, RB> lb;
    la.template init<G::LDA_S>(A, lda, RA == 1, a_conj, m0, M, kb);
    lb.template init<G::LDB_S>(B, ldb, RB == 1, b_conj, n0, N, kb);
    int klim = ke - kb < BK ? (int)(ke - kb) : BK;
    la.template fetch<DIRECT>((T*)sA, klim, A);
    lb.template fetch<DIRECT>((T*)sB, klim, B);
    la.template land<DIRECT>((T*)sA);
    lb.template land<DIRECT>((T*)sB);
    __syncthreads();
    int cur = 0;
    for (ra_i64 kt = 0; kt < ktiles; ++kt) {
        const bool more = kt + 1 < ktiles;
        PA* nA = sA + (cur ^ 1) * BK * G::RA_;
        PB* nB = sB + (cur ^ 1) * BK * G::RB_;
        if (more) {  // the next k tile, in flight while this one is multiplied
            const ra_i64 left = ke - kb - (kt + 1) * BK;
            klim = left < BK ? (int)left : BK;
            la.advance();
            lb.advance();
            la.template fetch<DIRECT>((T*)nA, klim, A);
            lb.template fetch<DIRECT>((T*)nB, klim, B);
        }
        ra_rocblas3_tile_fma<G, BK>(acc, sA + cur * BK * G::RA_ + tx, sB + cur * BK * G::RB_ + ty);
        if (more) {  // the other buffer was last read before the previous barrier
            la.template land<DIRECT>((T*)nA);
            lb.template land<DIRECT>((T*)nB);
        }
        __syncthreads();
        cur ^= 1;
    }
}

// The k loop of the direct tiles with a ring of STAGES (>= 3) k tiles in shared memory (sA:
// [STAGES][BK][RA_] vectors, sB likewise): STAGES - 1 tiles are in flight while one is multiplied,
// so a copy has STAGES - 1 tiles of arithmetic to land instead of one. One barrier per k tile: at
// the top of step kt this thread's copies of tile kt have landed (every older group done), and
// after the barrier every thread's have, and every thread has finished reading tile kt - 1, whose
// stage then takes tile kt + STAGES - 1. Every step commits one group (possibly empty), so "at
// most STAGES - 2 groups pending" always means "tile kt complete".
template <typename T, int BM, int BN, int BK, int TM, int TN, int STAGES, int RA, int RB, int LM, int LN>
RA_DEVICE void ra_rocblas3_kloop_ring(T (&acc)[TM][TN],
                                      typename ra_rocblas3_geom<T, BM, BN, BK, TM, TN, LM, LN>::PA* sA,
                                      typename ra_rocblas3_geom<T, BM, BN, BK, TM, TN, LM, LN>::PB* sB, const T* A,
                                      ra_i64 lda, ra_i64 m0, ra_i64 M, const T* B, ra_i64 ldb, ra_i64 n0, ra_i64 N,
                                      ra_i64 kb, ra_i64 ke, int tx, int ty) {
    typedef ra_rocblas3_geom<T, BM, BN, BK, TM, TN, LM, LN> G;
    constexpr int SA = BK * G::RA_, SB = BK * G::RB_;  // vectors of one stage
    static_assert(STAGES >= 3, "a ring of at least three k tiles");
    const ra_i64 ktiles = (ke - kb + BK - 1) / BK;
    ra_rocblas3_loader<T, BM, BK, RA> la;
    ra_rocblas3_loader<T, BN, BK, RB> lb;
    la.template init<G::LDA_S>(A, lda, RA == 1, false, m0, M, kb);
    lb.template init<G::LDB_S>(B, ldb, RB == 1, false, n0, N, kb);
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles) {
            if (s > 0) {
                la.advance();
                lb.advance();
            }
            const ra_i64 left = ke - kb - (ra_i64)s * BK;
            const int klim = left < BK ? (int)left : BK;
            la.copy((T*)(sA + s * SA), klim, A);
            lb.copy((T*)(sB + s * SB), klim, B);
        }
        ra_rocblas3_async_commit();
    }
    int cur = 0, nxt = STAGES - 1;  // the stages of tiles kt and kt + STAGES - 1
    for (ra_i64 kt = 0; kt < ktiles; ++kt) {
        ra_rocblas3_async_wait<STAGES - 2>();
        __syncthreads();
        if (kt + STAGES - 1 < ktiles) {
            la.advance();
            lb.advance();
            const ra_i64 left = ke - kb - (kt + STAGES - 1) * BK;
            const int klim = left < BK ? (int)left : BK;
            la.copy((T*)(sA + nxt * SA), klim, A);
            lb.copy((T*)(sB + nxt * SB), klim, B);
        }
        ra_rocblas3_async_commit();
        ra_rocblas3_tile_fma<G, BK>(acc, sA + cur * SA + tx, sB + cur * SB + ty);
        cur = cur + 1 == STAGES ? 0 : cur + 1;
        nxt = nxt + 1 == STAGES ? 0 : nxt + 1;
    }
    ra_rocblas3_async_wait<0>();  // no copy outlives the block (the last groups are empty)
}

// The ring's shared memory is dynamic (three 128 x 128 x 16 float stages take 50.7 KB, over the
// 48 KB of static shared memory; the Python layer sets NVIDIA's opt-in); 16-byte units.
struct alignas(16) ra_rocblas3_smem_unit {
    float v[4];
};
extern __shared__ ra_rocblas3_smem_unit ra_rocblas3_ring_smem[];

template <typename T, int BM, int BN, int BK, int TM, int TN, int DIRECT = 0, int LM = 0, int LN = 0, int STAGES = 2>
__global__ void __launch_bounds__(RA_ROCBLAS3_BLOCK, ra_rocblas3_min_blocks<T> - ra_rocblas3_fat<TM * TN>)
ra_rocblas_gemm(ra_i64 M, ra_i64 N, ra_i64 K, T alpha, const T* __restrict__ A, ra_i64 lda,
                const T* __restrict__ B, ra_i64 ldb, T beta, T* __restrict__ C, ra_i64 ldc, int flags,
                ra_i64 stride_a, ra_i64 stride_b, ra_i64 stride_c, ra_i64 k_per_split,
                T* __restrict__ ws, const T* __restrict__ bias) {
    typedef ra_rocblas3_geom<T, BM, BN, BK, TM, TN, LM, LN> G;
    constexpr int VA = G::VA, VB = G::VB, SPAN_A = G::SPAN_A, SPAN_B = G::SPAN_B;
    static_assert(!DIRECT || ra_rocblas3_real<T>, "the direct copies cannot conjugate");
    static_assert(STAGES == 2 || (DIRECT && STAGES >= 3), "a ring of k tiles needs the direct copies");
    constexpr bool RING = STAGES > 2;

    // two stages: static; a ring: dynamic (ra_rocblas3_ring_smem, STAGES stages of A, then of B)
    __shared__ typename G::PA sAs[RING ? 1 : 2 * BK * G::RA_];
    __shared__ typename G::PB sBs[RING ? 1 : 2 * BK * G::RB_];
    typename G::PA* sAv = RING ? reinterpret_cast<typename G::PA*>(ra_rocblas3_ring_smem) : sAs;
    typename G::PB* sBv = RING ? reinterpret_cast<typename G::PB*>(sAv + STAGES * BK * G::RA_) : sBs;

    const ra_i64 tiles_m = (M + BM - 1) / BM;
    const ra_i64 bid = (ra_i64)blockIdx.x;
    const ra_i64 m0 = (bid % tiles_m) * BM;
    const ra_i64 n0 = (bid / tiles_m) * BN;
    const int tx = G::row0((int)threadIdx.x);  // in vectors
    const int ty = G::col0((int)threadIdx.x);
    const ra_i64 batch = (ra_i64)blockIdx.y;
    A += batch * stride_a;
    B += batch * stride_b;
    C += batch * stride_c;
    const ra_i64 kb = (ra_i64)blockIdx.z * k_per_split;
    const ra_i64 ke = ra_min(K, kb + k_per_split);

    const bool a_rows = (flags & RA_ROCBLAS3_TRANS_A) == 0;
    const bool b_rows = (flags & RA_ROCBLAS3_TRANS_B) != 0;
    const bool a_conj = (flags & RA_ROCBLAS3_CONJ_A) != 0;
    const bool b_conj = (flags & RA_ROCBLAS3_CONJ_B) != 0;

    T acc[TM][TN];
#pragma unroll
    for (int r = 0; r < TM; ++r)
#pragma unroll
        for (int c = 0; c < TN; ++c) acc[r][c] = ra_traits<T>::zero();

    if constexpr (RING) {  // one instance of each k loop per pair of operand layouts
        if (ke > kb) {
            constexpr int S = STAGES;
            if (a_rows && b_rows)
                ra_rocblas3_kloop_ring<T, BM, BN, BK, TM, TN, S, 1, 1, LM, LN>(
                    acc, sAv, sBv, A, lda, m0, M, B, ldb, n0, N, kb, ke, tx, ty);
            else if (a_rows)
                ra_rocblas3_kloop_ring<T, BM, BN, BK, TM, TN, S, 1, 0, LM, LN>(
                    acc, sAv, sBv, A, lda, m0, M, B, ldb, n0, N, kb, ke, tx, ty);
            else if (b_rows)
                ra_rocblas3_kloop_ring<T, BM, BN, BK, TM, TN, S, 0, 1, LM, LN>(
                    acc, sAv, sBv, A, lda, m0, M, B, ldb, n0, N, kb, ke, tx, ty);
            else
                ra_rocblas3_kloop_ring<T, BM, BN, BK, TM, TN, S, 0, 0, LM, LN>(
                    acc, sAv, sBv, A, lda, m0, M, B, ldb, n0, N, kb, ke, tx, ty);
        }
    } else if (ke > kb) {
        if (a_rows && b_rows)
            ra_rocblas3_kloop<T, BM, BN, BK, TM, TN, DIRECT, 1, 1, LM, LN>(
                acc, sAv, sBv, A, lda, a_conj, m0, M, B, ldb, b_conj, n0, N, kb, ke, tx, ty);
        else if (a_rows)
            ra_rocblas3_kloop<T, BM, BN, BK, TM, TN, DIRECT, 1, 0, LM, LN>(
                acc, sAv, sBv, A, lda, a_conj, m0, M, B, ldb, b_conj, n0, N, kb, ke, tx, ty);
        else if (b_rows)
            ra_rocblas3_kloop<T, BM, BN, BK, TM, TN, DIRECT, 0, 1, LM, LN>(
                acc, sAv, sBv, A, lda, a_conj, m0, M, B, ldb, b_conj, n0, N, kb, ke, tx, ty);
        else
            ra_rocblas3_kloop<T, BM, BN, BK, TM, TN, DIRECT, 0, 0, LM, LN>(
                acc, sAv, sBv, A, lda, a_conj, m0, M, B, ldb, b_conj, n0, N, kb, ke, tx, ty);
    }

    const bool split = gridDim.z > 1;
    T* part = ws + (ra_i64)blockIdx.z * M * N;
#pragma unroll
    for (int c = 0; c < TN; ++c) {
        const ra_i64 j = n0 + (c / VB) * SPAN_B + ty * VB + c % VB;
        if (j >= N) continue;
#pragma unroll
        for (int r = 0; r < TM; ++r) {
            const ra_i64 i = m0 + (r / VA) * SPAN_A + tx * VA + r % VA;
            if (i >= M) continue;
            const T s = K > 0 ? alpha * acc[r][c] : ra_traits<T>::zero();
            if (split) part[i + j * M] = s;
            else C[i + j * ldc] = ra_rocblas3_epilogue(s, beta, C + i + j * ldc, bias, i, flags, 0);
        }
    }
    // The activation (where the split-K finish does not apply it): a second pass, not unrolled,
    // over the elements of C this thread has just stored. Unrolled with the stores, the activation
    // (erf, exp, tanh) made a second copy of the whole epilogue and most of the kernel's code and
    // compile time. The values are re-read as stored, in T, so the result is the same.
    const int act = ra_rocblas3_act_code(flags);
    if (act != 0 && !split) {
#pragma unroll 1
        for (int e = 0; e < TM * TN; ++e) {
            const int r = e % TM, c = e / TM;
            const ra_i64 j = n0 + (c / VB) * SPAN_B + ty * VB + c % VB;
            const ra_i64 i = m0 + (r / VA) * SPAN_A + tx * VA + r % VA;
            if (i < M && j < N) C[i + j * ldc] = ra_rocblas3_act(C[i + j * ldc], act);
        }
    }
}

// The split-K finish: C(i, j) := epilogue(sum over parts z of ws[z][j][i]), parts added in order.
template <typename T>
__global__ void __launch_bounds__(RA_ROCBLAS3_BLOCK)
ra_rocblas_gemm_splitk_finish(ra_i64 M, ra_i64 N, int parts, const T* __restrict__ ws, T beta,
                              T* __restrict__ C, ra_i64 ldc, int flags, const T* __restrict__ bias) {
    const ra_i64 mn = M * N;
    for (ra_i64 e = (ra_i64)blockIdx.x * RA_ROCBLAS3_BLOCK + threadIdx.x; e < mn;
         e += (ra_i64)gridDim.x * RA_ROCBLAS3_BLOCK) {
        const ra_i64 i = e % M, j = e / M;
        T s = ws[e];
        for (int z = 1; z < parts; ++z) s = s + ws[(ra_i64)z * mn + e];
        C[i + j * ldc] = ra_rocblas3_epilogue(s, beta, C + i + j * ldc, bias, i, flags, ra_rocblas3_act_code(flags));
    }
}

// ---------------------------------------------------------------------------------------------
// float64 on the matrix units: ra_rocblas_gemm_f64mma<BM, BN, BK, STAGES, K16, VEC, THREADS>
// ---------------------------------------------------------------------------------------------
// One matrix instruction multiplies an M x K fragment of op(A) by a K x N fragment of op(B) into
// an M x N accumulator spread over the lanes of one warp; lane l holds AR elements of A, BR of B
// and ACC of C at the coordinates below (g = l / 4, t = l % 4 on NVIDIA):
//  * NVIDIA sm_90: mma.sync.aligned.m16n8k8.row.col.f64 (PTX ISA, "Matrix fragments for
//    mma.m16n8k8" with .f64): A(g + 8 (r & 1), t + 4 (r >> 1)), B(t + 4 r, g),
//    C(g + 8 (i >> 1), 2 t + (i & 1)); four times the work of the sm_80 shape per instruction;
//  * NVIDIA sm_80..sm_89: mma.sync.aligned.m8n8k4.row.col.f64: A(g, t), B(t, g), C(g, 2 t + i);
//  * AMD CDNA2/CDNA3 (gfx90a, gfx94x; wave64): v_mfma_f64_16x16x4f64 (AMD matrix instruction
//    layout): A(l % 16, l / 16), B(l / 16, l % 16), C(4 (l / 16) + i, l % 16).
// Other targets have no float64 matrix instruction: the kernel traps there, and the Python layer
// never launches it on them (it runs the SIMT kernel).
// The block's THREADS threads (256, or 128 for a 64 x 64 tile in four warp quarters on NVIDIA)
// are W = THREADS / warp size warps in a (W / 2) x 2 grid over the BM x BN tile; each warp owns
// (BM / (W / 2)) x (BN / 2) of C as FM x FN fragments. Operand tiles, global loads,
// double buffering, the grid (tiles, batches, split-K parts) and the epilogue are those of the
// SIMT kernel above. Shared rows are padded by 4 elements: with a row length of 4 mod 16 doubles
// the fragment loads (4 k rows x 8 or 16 consecutive elements) hit distinct banks.
#if defined(RA_HIP) && (defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__))
struct ra_rocblas3_f64mma {
    static constexpr int M = 16, N = 16, K = 4, AR = 1, BR = 1, ACC = 4;
    RA_DEVICE static int a_row(int l, int) { return l % 16; }
    RA_DEVICE static int a_k(int l, int) { return l / 16; }
    RA_DEVICE static int b_k(int l, int) { return l / 16; }
    RA_DEVICE static int b_col(int l, int) { return l % 16; }
    RA_DEVICE static int c_row(int l, int i) { return 4 * (l / 16) + i; }
    RA_DEVICE static int c_col(int l, int) { return l % 16; }
    RA_DEVICE static void mma(const double* a, const double* b, double* c) {
        typedef double ra_v4d __attribute__((ext_vector_type(4)));
        ra_v4d acc = {c[0], c[1], c[2], c[3]};
        acc = __builtin_amdgcn_mfma_f64_16x16x4f64(a[0], b[0], acc, 0, 0, 0);
        c[0] = acc[0];
        c[1] = acc[1];
        c[2] = acc[2];
        c[3] = acc[3];
    }
};
#elif defined(RA_CUDA) && RA_CUDA_ARCH >= 900
struct ra_rocblas3_f64mma {
    static constexpr int M = 16, N = 8, K = 8, AR = 4, BR = 2, ACC = 4;
    RA_DEVICE static int a_row(int l, int r) { return l / 4 + 8 * (r & 1); }
    RA_DEVICE static int a_k(int l, int r) { return l % 4 + 4 * (r >> 1); }
    RA_DEVICE static int b_k(int l, int r) { return l % 4 + 4 * r; }
    RA_DEVICE static int b_col(int l, int) { return l / 4; }
    RA_DEVICE static int c_row(int l, int i) { return l / 4 + 8 * (i >> 1); }
    RA_DEVICE static int c_col(int l, int i) { return 2 * (l % 4) + (i & 1); }
    RA_DEVICE static void mma(const double* a, const double* b, double* c) {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};\n"
                     : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
                     : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
    }
};
#else
struct ra_rocblas3_f64mma {
    static constexpr int M = 8, N = 8, K = 4, AR = 1, BR = 1, ACC = 2;
    RA_DEVICE static int a_row(int l, int) { return l / 4; }
    RA_DEVICE static int a_k(int l, int) { return l % 4; }
    RA_DEVICE static int b_k(int l, int) { return l % 4; }
    RA_DEVICE static int b_col(int l, int) { return l / 4; }
    RA_DEVICE static int c_row(int l, int) { return l / 4; }
    RA_DEVICE static int c_col(int l, int i) { return 2 * (l % 4) + i; }
    RA_DEVICE static void mma(const double* a, const double* b, double* c) {
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                     : "+d"(c[0]), "+d"(c[1])
                     : "d"(a[0]), "d"(b[0]));
#else
        __builtin_trap();  // no float64 matrix instruction here; never launched
#endif
    }
};
#endif

// sm_90 also has mma.sync.aligned.m16n8k16.row.col.f64 (PTX ISA, "Matrix fragments for
// mma.m16n8k16" with .f64): twice the k of m16n8k8 per instruction (half the issue slots per
// product), A(g + 8 (r & 1), t + 4 (r >> 1)) for r < 8, B(t + 4 r, g) for r < 4, C as m16n8k8.
// The K16 tiles use it; on other targets they run the instruction above.
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 900
struct ra_rocblas3_f64mma_k16 {
    static constexpr int M = 16, N = 8, K = 16, AR = 8, BR = 4, ACC = 4;
    RA_DEVICE static int a_row(int l, int r) { return l / 4 + 8 * (r & 1); }
    RA_DEVICE static int a_k(int l, int r) { return l % 4 + 4 * (r >> 1); }
    RA_DEVICE static int b_k(int l, int r) { return l % 4 + 4 * r; }
    RA_DEVICE static int b_col(int l, int) { return l / 4; }
    RA_DEVICE static int c_row(int l, int i) { return l / 4 + 8 * (i >> 1); }
    RA_DEVICE static int c_col(int l, int i) { return 2 * (l % 4) + (i & 1); }
    RA_DEVICE static void mma(const double* a, const double* b, double* c) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
                     : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
                     : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                       "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
    }
};
#else
typedef ra_rocblas3_f64mma ra_rocblas3_f64mma_k16;
#endif
template <int K16> struct ra_rocblas3_f64mma_pick { typedef ra_rocblas3_f64mma type; };
template <> struct ra_rocblas3_f64mma_pick<1> { typedef ra_rocblas3_f64mma_k16 type; };

// ---------------------------------------------------------------------------------------------
// The 16-byte layout of the direct float64 tiles (VEC = 1; NVIDIA sm_90's m16n8 instructions)
// ---------------------------------------------------------------------------------------------
// Global to shared copies move 16 bytes (two doubles along the operand's contiguous dimension)
// per cp.async, half the copies of the 8-byte layout; so the operands' addresses and leading
// dimensions must be 16-byte aligned (the Python layer takes the 8-byte instance otherwise). A
// pair straddling the matrix's edge copies 8 bytes and zero-fills the rest. A tile whose rows are
// contiguous in memory (op(A) = A, op(B) = B^T) is stored k-major, [BK][ROWS + 2]; one whose k is
// contiguous (op(A) = A^T, op(B) = B) row-major, [ROWS][BK], with 16-byte unit u of row r at
// u ^ (4 ((r >> 1) & 1)).
// The fragments are read 16 bytes at a time (LDS.128) where that fills two consecutive
// registers of one instruction operand, which three relabellings arrange (any relabelling of k
// shared by A and B leaves the product unchanged; one of A's rows or B's columns only moves
// where an accumulator element is stored):
//  * k: slot t + 4 j of an 8-deep group (the instruction's k of lane t = l % 4) is k 2 t + j of
//    that group (j = 0, 1), so a lane's B slots t and t + 4 of one column are adjacent [n][k];
//  * rows of A: fragment row g + 8 i (g = l / 4) is row 2 g + i of its 16 rows, so a lane's A
//    rows g and g + 8 of one k are adjacent [k][m];
//  * columns of B ([n][k] only): column g of fragments 2 h and 2 h + 1 is column 16 h + 2 g and
//    16 h + 2 g + 1, which with the swizzle keeps an 8-lane phase on distinct banks.
// A row-major op(A) is read 16 bytes at a time as well, though the pair is registers r and r + 2
// of the operand (register moves follow; faster than 8-byte loads, which conflict in this
// layout); a k-major op(B) takes 8-byte loads (its pairs would be two instructions' operands:
// the moves made the kernel slower than the 8-byte instance). Every 8-lane phase of a
// 16-byte load or store, and every half-warp of an 8-byte load, hits distinct banks (row lengths
// of 2 mod 8 doubles k-major, the swizzle row-major).

// one 16-byte copy of which the first `bytes` (0, 8 or 16) come from g, the rest zero-filled
RA_DEVICE void ra_rocblas3_copy16(double* s, const double* g, int bytes) {
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
    const unsigned addr = (unsigned)__cvta_generic_to_shared(s);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(addr), "l"(g), "r"(bytes));
#else
    s[0] = bytes >= 8 ? g[0] : 0.0;
    s[1] = bytes >= 16 ? g[1] : 0.0;
#endif
}

// The loader of one operand tile in the 16-byte layout (the interface of ra_rocblas3_loader's
// direct path): element (r, kk) of the ROWS x BK tile of op(X) at (r0, k0) is X[r + k * ld]
// (RC = 1, stored [BK][LD]) or X[k + r * ld] (RC = 0, stored [ROWS][BK] swizzled). A thread moves
// UNITS pairs, STEP k columns (RC = 1) or rows (RC = 0) apart.
template <int ROWS, int BK, int RC, int THREADS = RA_ROCBLAS3_BLOCK> struct ra_rocblas3_loader_vec {
    static constexpr int LD = RC ? ROWS + 2 : BK;
    static constexpr int STAGE = RC ? BK * LD : ROWS * LD;             // doubles of one tile
    static constexpr int SPAN = (RC ? ROWS : BK) / 2;                  // pairs along the contiguous dimension
    static constexpr int STEP = THREADS / SPAN;
    static constexpr int UNITS = (RC ? BK : ROWS) / STEP;
    static_assert(THREADS % SPAN == 0 && UNITS * STEP == (RC ? BK : ROWS) && UNITS >= 1 &&
                      (RC || BK == 16), "16-byte tile copies");
    static constexpr unsigned ALL = (1u << UNITS) - 1u;
    const double* p;   // this thread's first pair in the current k tile
    ra_i64 estride;    // elements between this thread's pairs
    ra_i64 tstride;    // elements between k tiles
    int s0, sstep;     // shared offsets of the first pair and between pairs
    int c;             // this thread's k column (RC = 1: of its first pair)
    int rbytes;        // RC = 1: bytes of this thread's row pair inside the matrix (16, 8, 0)
    unsigned rmask;    // RC = 0: bit e: pair e's row is inside the matrix

    template <int LD_>
    RA_DEVICE void init(const double* X, ra_i64 ld, bool, bool, ra_i64 r0, ra_i64 rows, ra_i64 k0) {
        static_assert(LD_ == LD, "the 16-byte layout's row length");
        const int t = (int)threadIdx.x;
        if (RC) {
            const int r = 2 * (t % SPAN);
            c = t / SPAN;
            p = X + (r0 + r) + (k0 + c) * ld;
            estride = STEP * ld;
            tstride = BK * ld;
            s0 = c * LD + r;
            sstep = STEP * LD;
            const ra_i64 left = rows - (r0 + r);
            rbytes = left >= 2 ? 16 : left == 1 ? 8 : 0;
            rmask = 0;
        } else {
            const int u = t % SPAN, r = t / SPAN;
            c = 2 * u;
            p = X + (k0 + c) + (r0 + r) * ld;
            estride = STEP * ld;
            tstride = BK;
            s0 = r * LD + 2 * (u ^ (((r >> 1) & 1) << 2));  // STEP is a multiple of 4: one swizzle
            sstep = STEP * LD;
            rbytes = 0;
            rmask = 0;
#pragma unroll
            for (int e = 0; e < UNITS; ++e)
                if (r0 + r + STEP * e < rows) rmask |= 1u << e;
        }
    }
    RA_DEVICE void advance() { p += tstride; }
    // bytes of pair e in a tile with klim k columns left (0 moves nothing)
    RA_DEVICE int bytes(int e, int klim) const {
        if (RC) return c + STEP * e < klim ? rbytes : 0;
        const int kl = klim - c;
        return ((rmask >> e) & 1u) && kl > 0 ? (kl >= 2 ? 16 : 8) : 0;
    }
    RA_DEVICE bool whole_rows() const { return RC ? rbytes == 16 : rmask == ALL; }
    RA_DEVICE void copy_predicated(double* s, int klim, const double* safe) const {
#pragma unroll
        for (int e = 0; e < UNITS; ++e) {
            const int b = bytes(e, klim);
            ra_rocblas3_copy16(s + s0 + e * sstep, b ? p + e * estride : safe, b);
        }
    }
    // a whole tile of whole rows (the caller knows): no predicates
    RA_DEVICE void copy_whole(double* s) const {
#pragma unroll
        for (int e = 0; e < UNITS; ++e) ra_rocblas3_copy16(s + s0 + e * sstep, p + e * estride, 16);
    }
    RA_DEVICE void copy(double* s, int klim, const double* safe) const {
        if (klim >= BK && whole_rows()) {  // inner tiles: every pair whole
            copy_whole(s);
        } else {
            copy_predicated(s, klim, safe);
        }
    }
};

// One 16-byte shared load of two doubles. NVIDIA: volatile, so that it stays in program order
// with the (volatile) matrix instructions: the compiler then keeps one instruction k step of
// fragments live instead of hoisting the next step's loads above this step's products (which
// spilled the 128 x 128 tiles' registers).
RA_DEVICE void ra_rocblas3_lds2(const double* s, double& x, double& y) {
#if defined(RA_CUDA)
    const unsigned addr = (unsigned)__cvta_generic_to_shared(s);
    asm volatile("ld.shared.v2.f64 {%0, %1}, [%2];\n" : "=d"(x), "=d"(y) : "r"(addr));
#else
    typedef ra_rocblas3_vec<double, 2> V2;
    const V2 v = *reinterpret_cast<const V2*>(s);
    x = v.v[0];
    y = v.v[1];
#endif
}

RA_DEVICE void ra_rocblas3_lds1(const double* s, double& x) {
#if defined(RA_CUDA)
    const unsigned addr = (unsigned)__cvta_generic_to_shared(s);
    asm volatile("ld.shared.f64 %0, [%1];\n" : "=d"(x) : "r"(addr));
#else
    x = *s;
#endif
}

// An operand's loader and shared layout in the 8-byte (VEC = 0: [BK][ROWS + 4]) or the 16-byte
// layout.
template <int VEC, int ROWS, int BK, int RC, int THREADS> struct ra_rocblas3_f64mma_operand {
    typedef ra_rocblas3_loader<double, ROWS, BK, RC, THREADS> loader;
    static constexpr int LD = ROWS + 4, STAGE = BK * LD;
};
template <int ROWS, int BK, int RC, int THREADS> struct ra_rocblas3_f64mma_operand<1, ROWS, BK, RC, THREADS> {
    typedef ra_rocblas3_loader_vec<ROWS, BK, RC, THREADS> loader;
    static constexpr int LD = loader::LD, STAGE = loader::STAGE;
};

// The fragments of one instruction k step (ks) from one stage of each tile: a[f] of op(A)'s rows
// ar + 16 f .., b[g] of op(B)'s columns bc + MMA::N g ..; in the 16-byte layout with the
// relabellings above.
template <typename MMA, int VEC, int FM, int FN, int RA, int RB, int LDA, int LDB>
RA_DEVICE void ra_rocblas3_f64mma_frags(double (&a)[FM][MMA::AR], double (&b)[FN][MMA::BR], const double* sA,
                                        const double* sB, int ks, int lane, int ar, int bc) {
    if constexpr (!VEC) {
#pragma unroll
        for (int f = 0; f < FM; ++f)
#pragma unroll
            for (int r = 0; r < MMA::AR; ++r)
                a[f][r] = sA[(ks + MMA::a_k(lane, r)) * LDA + ar + f * MMA::M + MMA::a_row(lane, r)];
#pragma unroll
        for (int g = 0; g < FN; ++g)
#pragma unroll
            for (int r = 0; r < MMA::BR; ++r)
                b[g][r] = sB[(ks + MMA::b_k(lane, r)) * LDB + bc + g * MMA::N + MMA::b_col(lane, r)];
    } else {
        const int g = lane >> 2, t = lane & 3;
        // the row swizzle of rows 2 g and 2 g + 1 (ar, bc: multiples of 4): unit u + t of such a
        // row (u a multiple of 4, t < 4) is at (u ^ swz) + t, so each row's loads are one base
        // address plus constants
        const int swz = (g & 1) << 2;
        // register r of A: row g + 8 (r & 1), slot t + 4 (r >> 1); of B: slot t + 4 r
        if constexpr (RA) {  // [k][m]: rows 2 g, 2 g + 1 of one k
#pragma unroll
            for (int f = 0; f < FM; ++f)
#pragma unroll
                for (int j = 0; j < MMA::AR / 2; ++j) {
                    const int k = ks + 8 * (j >> 1) + 2 * t + (j & 1);
                    ra_rocblas3_lds2(sA + k * LDA + ar + 16 * f + 2 * g, a[f][2 * j], a[f][2 * j + 1]);
                }
        } else {  // [m][k]: k 2 t, 2 t + 1 of one group, one row
#pragma unroll
            for (int f = 0; f < FM; ++f)
#pragma unroll
                for (int i = 0; i < 2; ++i)
#pragma unroll
                    for (int q = 0; q < MMA::AR / 4; ++q) {
                        const int row = ar + 16 * f + 2 * g + i;
                        const int unit = (((ks >> 1) + 4 * q) ^ swz) + t;
                        ra_rocblas3_lds2(sA + row * LDA + 2 * unit, a[f][4 * q + i], a[f][4 * q + 2 + i]);
                    }
        }
        if constexpr (RB) {  // [k][n]: one 8-byte load per element, columns in the instruction's order
#pragma unroll
            for (int gi = 0; gi < FN; ++gi)
#pragma unroll
                for (int r = 0; r < MMA::BR; ++r) {
                    const int k = ks + 8 * (r >> 1) + 2 * t + (r & 1);
                    ra_rocblas3_lds1(sB + k * LDB + bc + 8 * gi + g, b[gi][r]);
                }
        } else {  // [n][k], columns relabelled
#pragma unroll
            for (int gi = 0; gi < FN; ++gi)
#pragma unroll
                for (int q = 0; q < MMA::BR / 2; ++q) {
                    const int col = bc + 16 * (gi >> 1) + 2 * g + (gi & 1);
                    const int unit = (((ks >> 1) + 4 * q) ^ swz) + t;
                    ra_rocblas3_lds2(sB + col * LDB + 2 * unit, b[gi][2 * q], b[gi][2 * q + 1]);
                }
        }
    }
}

// Whether a VEC instance takes the 16-byte layout for one pair of operand layouts (ra, rb: the
// rows of op(A), op(B) contiguous): all but a row-major op(A) under m16n8k16, whose eight A
// registers per fragment with their moves spill at 255 registers (that layout keeps the 8-byte
// one in the instance).
template <int K16> RA_DEVICE constexpr bool ra_rocblas3_f64mma_vec_for(bool ra, bool) { return ra || !K16; }

// Where accumulator element e of fragment (f, g) lands in the warp's tile: (row, column), in the
// 16-byte layout (`vec`, B's columns relabelled in pairs where op(B) is stored [n][k]: `pairs`)
// or the instruction's own order.
template <typename MMA> RA_DEVICE int ra_rocblas3_f64mma_c_row(int lane, int f, int e, bool vec) {
    return vec ? 16 * f + 2 * (lane >> 2) + (e >> 1) : f * MMA::M + MMA::c_row(lane, e);
}
template <typename MMA> RA_DEVICE int ra_rocblas3_f64mma_c_col(int lane, int g, int e, bool vec, bool pairs) {
    return vec && pairs ? 16 * (g >> 1) + 4 * (lane & 3) + 2 * (e & 1) + (g & 1) : g * MMA::N + MMA::c_col(lane, e);
}

// A compile-time flag of one k step: its refill is a whole tile of whole rows.
template <bool WHOLE> struct ra_rocblas3_whole {
    static constexpr bool value = WHOLE;
};

// The k loop of the direct float64 matrix tiles (STAGES >= 2): a ring of STAGES k tiles in
// shared memory ([STAGES][BK][BM + 4] of op(A), then [STAGES][BK][BN + 4] of op(B)) filled by
// asynchronous copies, STAGES - 1 tiles ahead of the one multiplied. So no registers hold the
// next tiles, a copy has STAGES - 1 k steps to land, and one barrier per k step both publishes
// tile kt and frees the stage read in step kt - 1, which the copies of tile kt + STAGES - 1 then
// refill. The operand layouts (RA, RB: rows contiguous or not) are compile-time, so the loaders'
// strides are constant multiples of lda/ldb. (ar, bc): the warp's first row and column.
template <typename MMA, int BM, int BN, int BK, int STAGES, int FM, int FN, int RA, int RB, int VEC, int THREADS>
RA_DEVICE void ra_rocblas3_f64mma_kloop(double (&acc)[FM][FN][MMA::ACC], double* smem,
                                        const double* A, ra_i64 lda, ra_i64 m0, ra_i64 M, const double* B,
                                        ra_i64 ldb, ra_i64 n0, ra_i64 N, ra_i64 kb, ra_i64 ke, int ar, int bc) {
    typedef ra_rocblas3_f64mma_operand<VEC, BM, BK, RA, THREADS> OA;
    typedef ra_rocblas3_f64mma_operand<VEC, BN, BK, RB, THREADS> OB;
    constexpr int LDA_S = OA::LD, LDB_S = OB::LD;
    constexpr int SA = OA::STAGE, SB = OB::STAGE;  // elements of one stage
    static_assert(STAGES >= 2, "a ring of at least two k tiles");
    double* sA0 = smem;
    double* sB0 = smem + STAGES * SA;
    const int lane = ra_lane_id();
    const ra_i64 ktiles = (ke - kb + BK - 1) / BK;
    // The branch-free refill pays on the small warp tiles; on the 8-byte 128 x 128 tiles it takes
    // 24 more registers and is no faster. The 16-byte 128 x 128 tiles take it where op(A) is
    // row-contiguous under m16n8k8, not elsewhere (slower there; docs/performance/rocblas.md).
    constexpr bool FLAT = FM * FN < 16 || (VEC && RA == 1 && MMA::K == 8);
    typename OA::loader la;
    typename OB::loader lb;
    la.template init<LDA_S>(A, lda, RA == 1, false, m0, M, kb);
    lb.template init<LDB_S>(B, ldb, RB == 1, false, n0, N, kb);
    // tiles 0 .. STAGES - 2 in flight, one commit group per tile (empty past the last tile)
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles) {
            if (s > 0) {
                la.advance();
                lb.advance();
            }
            const ra_i64 left = ke - kb - (ra_i64)s * BK;
            const int klim = left < BK ? (int)left : BK;
            la.copy(sA0 + s * SA, klim, A);
            lb.copy(sB0 + s * SB, klim, B);
        }
        ra_rocblas3_async_commit();
    }
    int cur = 0, nxt = STAGES - 1;  // the stages of tiles kt and kt + STAGES - 1
    // The fragments of one instruction k step are loaded while the products of the one before
    // run (two register buffers, the second k step's loads issued before the first's products,
    // the next tile's first ones before the last's): waiting on shared loads was the largest
    // stall of the 64 x 64 tiles (short scoreboard, in a profile).
    // That takes an even number of instruction steps per tile (the buffer of a step is then
    // fixed at compile time); K16 tiles of k 16 (one step) load their fragments in the step.
    // Warp tiles of one fragment row (FM = 1: 64 x 64 on 256 threads, held to 128 registers)
    // spilled the second buffer and ran slower with it.
    constexpr int STEPS = BK / MMA::K;
    constexpr bool PIPE = STEPS % 2 == 0 && FM >= 2;
    double fa[2][FM][MMA::AR], fb[2][FN][MMA::BR];
    if constexpr (PIPE) {
        ra_rocblas3_async_wait<STAGES - 2>();  // tile 0 landed
        __syncthreads();
        ra_rocblas3_f64mma_frags<MMA, VEC, FM, FN, RA, RB, LDA_S, LDB_S>(fa[0], fb[0], sA0, sB0, 0, lane, ar, bc);
    }
    // one k tile: multiply tile kt, refill the freed stage with tile kt + STAGES - 1 (WHOLE: a
    // whole tile of whole rows, copied without predicates)
    auto step = [&](ra_i64 kt, auto whole) {
        if constexpr (!PIPE) {
            ra_rocblas3_async_wait<STAGES - 2>();  // this thread's copies of tile kt landed
            __syncthreads();
        }
        const double* sA = sA0 + cur * SA;
        const double* sB = sB0 + cur * SB;
#pragma unroll
        for (int st = 0; st < STEPS; ++st) {
            const int buf = PIPE ? st & 1 : 0;
            if constexpr (PIPE) {
                if (st + 1 < STEPS) {
                    ra_rocblas3_f64mma_frags<MMA, VEC, FM, FN, RA, RB, LDA_S, LDB_S>(fa[buf ^ 1], fb[buf ^ 1], sA, sB,
                                                                                     (st + 1) * MMA::K, lane, ar, bc);
                } else {
                    // tile kt + 1 (past the last tile: a stage of no use, read and dropped)
                    ra_rocblas3_async_wait<STAGES - 2>();
                    __syncthreads();
                    const int next = cur + 1 == STAGES ? 0 : cur + 1;
                    ra_rocblas3_f64mma_frags<MMA, VEC, FM, FN, RA, RB, LDA_S, LDB_S>(fa[buf ^ 1], fb[buf ^ 1], sA0 + next * SA,
                                                                                     sB0 + next * SB, 0, lane, ar, bc);
                }
            } else {
                ra_rocblas3_f64mma_frags<MMA, VEC, FM, FN, RA, RB, LDA_S, LDB_S>(fa[0], fb[0], sA, sB, st * MMA::K, lane,
                                                                                 ar, bc);
            }
#pragma unroll
            for (int f = 0; f < FM; ++f)
#pragma unroll
                for (int g = 0; g < FN; ++g) MMA::mma(fa[buf][f], fb[buf][g], acc[f][g]);
            if (st == 0) {  // refill the freed stage once the first products are under way
                if constexpr (decltype(whole)::value) {
                    la.advance();
                    lb.advance();
                    la.copy_whole(sA0 + nxt * SA);
                    lb.copy_whole(sB0 + nxt * SB);
                } else if constexpr (FLAT) {
                    // without a branch (past the last tile the copies move nothing): the k
                    // step stays one basic block, so the copies interleave with the products
                    const ra_i64 left = ke - kb - (kt + STAGES - 1) * BK;
                    const int klim = left <= 0 ? 0 : left < BK ? (int)left : BK;
                    la.advance();
                    lb.advance();
                    la.copy_predicated(sA0 + nxt * SA, klim, A);
                    lb.copy_predicated(sB0 + nxt * SB, klim, B);
                } else if (kt + STAGES - 1 < ktiles) {
                    la.advance();
                    lb.advance();
                    const ra_i64 left = ke - kb - (kt + STAGES - 1) * BK;
                    const int klim = left < BK ? (int)left : BK;
                    la.copy(sA0 + nxt * SA, klim, A);
                    lb.copy(sB0 + nxt * SB, klim, B);
                }
                ra_rocblas3_async_commit();
            }
        }
        cur = cur + 1 == STAGES ? 0 : cur + 1;
        nxt = nxt + 1 == STAGES ? 0 : nxt + 1;
    };
    // The steps whose refill is a whole tile of whole rows (every row and column of the block's
    // tile inside the matrix: block-uniform) run first without a predicate per copy, then the
    // rest.
    const bool whole_rows = m0 + BM <= M && n0 + BN <= N;
    const ra_i64 whole_steps = whole_rows ? ra_max((ke - kb) / BK - (STAGES - 1), (ra_i64)0) : 0;
    ra_i64 kt = 0;
    for (; kt < whole_steps; ++kt) step(kt, ra_rocblas3_whole<true>());
    for (; kt < ktiles; ++kt) step(kt, ra_rocblas3_whole<false>());
}

// VEC = 1: the 16-byte layout (see above) where it exists (NVIDIA sm_90, direct tiles of k 16,
// an even number of column fragments per warp); elsewhere the instance is the 8-byte kernel.
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 900
#define RA_ROCBLAS3_F64MMA_VEC 1
#else
#define RA_ROCBLAS3_F64MMA_VEC 0
#endif

// Resident blocks per multiprocessor a tile's registers are budgeted for, by its accumulators per
// thread (ELEMS) and its block: more than 16 accumulators (128 x 128 and 128 x 64 on 256 threads,
// 64 x 64 on 128) take up to 255 registers (a budget of 168 spilled), so 256 threads per
// multiprocessor; 64 x 64 on 256 threads (16) two blocks of 128
// registers. (The arguments in parentheses: HIP's __launch_bounds__ is a two-parameter macro.)
template <int ELEMS, int THREADS>
constexpr int ra_rocblas3_f64mma_blocks = ELEMS > 16 ? (THREADS >= 256 ? 1 : 256 / THREADS) : 2;

template <int BM, int BN, int BK, int STAGES = 0, int K16 = 0, int VEC = 0, int THREADS = RA_ROCBLAS3_BLOCK>
__global__ void __launch_bounds__(THREADS, (ra_rocblas3_f64mma_blocks<BM * BN / THREADS, THREADS>))
ra_rocblas_gemm_f64mma(ra_i64 M, ra_i64 N, ra_i64 K, double alpha, const double* __restrict__ A, ra_i64 lda,
                       const double* __restrict__ B, ra_i64 ldb, double beta, double* __restrict__ C,
                       ra_i64 ldc, int flags, ra_i64 stride_a, ra_i64 stride_b, ra_i64 stride_c,
                       ra_i64 k_per_split, double* __restrict__ ws, const double* __restrict__ bias) {
    ra_dependent_grid_enter();
    typedef typename ra_rocblas3_f64mma_pick<K16>::type MMA;
    constexpr int WARPS = THREADS / RA_WARP_SIZE;
    constexpr int WN = 2, WM = WARPS / WN;
    constexpr int WTM = BM / WM, WTN = BN / WN;  // a warp's part of the tile
    constexpr int FM = WTM / MMA::M, FN = WTN / MMA::N;
    static_assert(FM * MMA::M == WTM && FN * MMA::N == WTN && FM > 0 && FN > 0, "warp tiling");
    static_assert(BK % MMA::K == 0, "whole instruction k steps per tile");
    constexpr int LDA_S = BM + 4, LDB_S = BN + 4;
    constexpr int V = VEC && RA_ROCBLAS3_F64MMA_VEC && STAGES >= 2 && BK == 16 && FN % 2 == 0 ? 1 : 0;

    // dynamic: a 128 x 128 x 16 double-buffered tile pair takes 66 KB (NVIDIA's opt-in, set by
    // the Python layer; larger than AMD's 64 KB of LDS, so that tile is launched on NVIDIA only).
    // STAGES >= 2 (the direct tiles, NVIDIA sm_80+): a ring of STAGES k tiles instead, see
    // ra_rocblas3_f64mma_kloop; STAGES = 0: two k tiles staged through registers, as below.
    extern __shared__ double ra_rocblas3_f64mma_smem[];
    typedef double RowA[LDA_S];
    typedef double RowB[LDB_S];
    RowA* sA0 = reinterpret_cast<RowA*>(ra_rocblas3_f64mma_smem);             // [2 * BK][LDA_S]
    RowB* sB0 = reinterpret_cast<RowB*>(ra_rocblas3_f64mma_smem + 2 * BK * LDA_S);  // [2 * BK][LDB_S]

    const ra_i64 tiles_m = (M + BM - 1) / BM;
    const ra_i64 bid = (ra_i64)blockIdx.x;
    const ra_i64 i0 = (bid % tiles_m) * BM;  // the block's part of C: rows i0.., columns j0..
    const ra_i64 j0 = (bid / tiles_m) * BN;
    const bool a_rows = (flags & RA_ROCBLAS3_TRANS_A) == 0;
    const bool b_rows = (flags & RA_ROCBLAS3_TRANS_B) != 0;
    // A last tile that sticks out of C is computed shifted back to end at C's last row (column),
    // overlapping its neighbour, whose rows it then does not store: its copies are whole rows
    // like an inner tile's (no zero-filled rows, no predicate per copy), where edge tiles ran
    // every k step on predicated copies and were the slowest blocks of the grid.
    // Not where C is narrower than a tile, nor where the 16-byte copies move row pairs (op(A)
    // or op(B) row-contiguous) and the shifted pairs would start at odd rows.
    const bool vec = V && ra_rocblas3_f64mma_vec_for<K16>(a_rows, b_rows);  // the k loop's layout
    const ra_i64 m0 = i0 + BM > M && M >= BM && !(vec && a_rows && (M & 1)) ? M - BM : i0;
    const ra_i64 n0 = j0 + BN > N && N >= BN && !(vec && b_rows && (N & 1)) ? N - BN : j0;
    const int lane = ra_lane_id();
    const int wm = ra_warp_id() % WM, wn = ra_warp_id() / WM;
    const ra_i64 batch = (ra_i64)blockIdx.y;
    A += batch * stride_a;
    B += batch * stride_b;
    C += batch * stride_c;
    const ra_i64 kb = (ra_i64)blockIdx.z * k_per_split;
    const ra_i64 ke = ra_min(K, kb + k_per_split);

    double acc[FM][FN][MMA::ACC];
#pragma unroll
    for (int f = 0; f < FM; ++f)
#pragma unroll
        for (int g = 0; g < FN; ++g)
#pragma unroll
            for (int i = 0; i < MMA::ACC; ++i) acc[f][g][i] = 0.0;

    const int ar = wm * WTM, bc = wn * WTN;  // the warp's first row and column in the tile
    const ra_i64 ktiles = ke > kb ? (ke - kb + BK - 1) / BK : 0;
    if constexpr (STAGES >= 2) {  // direct: the ring of asynchronous copies, one instance per layout
        if (ktiles > 0) {
            double* sm = ra_rocblas3_f64mma_smem;
            if (a_rows && b_rows)
                ra_rocblas3_f64mma_kloop<MMA, BM, BN, BK, STAGES, FM, FN, 1, 1, V && ra_rocblas3_f64mma_vec_for<K16>(1, 1), THREADS>(acc, sm, A, lda, m0, M, B, ldb,
                                                                                n0, N, kb, ke, ar, bc);
            else if (a_rows)
                ra_rocblas3_f64mma_kloop<MMA, BM, BN, BK, STAGES, FM, FN, 1, 0, V && ra_rocblas3_f64mma_vec_for<K16>(1, 0), THREADS>(acc, sm, A, lda, m0, M, B, ldb,
                                                                                n0, N, kb, ke, ar, bc);
            else if (b_rows)
                ra_rocblas3_f64mma_kloop<MMA, BM, BN, BK, STAGES, FM, FN, 0, 1, V && ra_rocblas3_f64mma_vec_for<K16>(0, 1), THREADS>(acc, sm, A, lda, m0, M, B, ldb,
                                                                                n0, N, kb, ke, ar, bc);
            else
                ra_rocblas3_f64mma_kloop<MMA, BM, BN, BK, STAGES, FM, FN, 0, 0, V && ra_rocblas3_f64mma_vec_for<K16>(0, 0), THREADS>(acc, sm, A, lda, m0, M, B, ldb,
                                                                                n0, N, kb, ke, ar, bc);
        }
    } else if (ktiles > 0) {
        ra_rocblas3_loader<double, BM, BK, -1, THREADS> la;
        ra_rocblas3_loader<double, BN, BK, -1, THREADS> lb;
        la.template init<LDA_S>(A, lda, a_rows, false, m0, M, kb);
        lb.template init<LDB_S>(B, ldb, b_rows, false, n0, N, kb);
        int klim = ke - kb < BK ? (int)(ke - kb) : BK;
        la.load(klim);
        lb.load(klim);
        la.store(&sA0[0][0]);
        lb.store(&sB0[0][0]);
        __syncthreads();
        int cur = 0;
        for (ra_i64 kt = 0; kt < ktiles; ++kt) {
            const bool more = kt + 1 < ktiles;
            if (more) {
                const ra_i64 left = ke - kb - (kt + 1) * BK;
                klim = left < BK ? (int)left : BK;
                la.advance();
                lb.advance();
                la.load(klim);
                lb.load(klim);
            }
            RowA* sA = sA0 + cur * BK;
            RowB* sB = sB0 + cur * BK;
#pragma unroll
            for (int ks = 0; ks < BK; ks += MMA::K) {
                double a[FM][MMA::AR], b[FN][MMA::BR];
#pragma unroll
                for (int f = 0; f < FM; ++f)
#pragma unroll
                    for (int r = 0; r < MMA::AR; ++r)
                        a[f][r] = sA[ks + MMA::a_k(lane, r)][ar + f * MMA::M + MMA::a_row(lane, r)];
#pragma unroll
                for (int g = 0; g < FN; ++g)
#pragma unroll
                    for (int r = 0; r < MMA::BR; ++r)
                        b[g][r] = sB[ks + MMA::b_k(lane, r)][bc + g * MMA::N + MMA::b_col(lane, r)];
#pragma unroll
                for (int f = 0; f < FM; ++f)
#pragma unroll
                    for (int g = 0; g < FN; ++g) MMA::mma(a[f], b[g], acc[f][g]);
            }
            if (more) {
                la.store(&sA0[(cur ^ 1) * BK][0]);
                lb.store(&sB0[(cur ^ 1) * BK][0]);
            }
            __syncthreads();
            cur ^= 1;
        }
    }

    const bool split = gridDim.z > 1;
    double* part = ws + (ra_i64)blockIdx.z * M * N;
#pragma unroll
    for (int f = 0; f < FM; ++f)
#pragma unroll
        for (int g = 0; g < FN; ++g)
#pragma unroll
            for (int e = 0; e < MMA::ACC; ++e) {
                const ra_i64 i = m0 + wm * WTM + ra_rocblas3_f64mma_c_row<MMA>(lane, f, e, vec);
                const ra_i64 j = n0 + wn * WTN + ra_rocblas3_f64mma_c_col<MMA>(lane, g, e, vec, !b_rows);
                if (i >= M || j >= N || i < i0 || j < j0) continue;  // a shifted tile's overlap
                const double s = K > 0 ? alpha * acc[f][g][e] : 0.0;
                if (split) part[i + j * M] = s;
                else C[i + j * ldc] = ra_rocblas3_epilogue(s, beta, C + i + j * ldc, bias, i, flags, 0);
            }
    // The activation: a second pass, not unrolled, over the elements just stored (as in
    // ra_rocblas_gemm; the values are re-read as stored, in double).
    const int act = ra_rocblas3_act_code(flags);
    if (act != 0 && !split) {
#pragma unroll 1
        for (int x = 0; x < FM * FN * MMA::ACC; ++x) {
            const int f = x / (FN * MMA::ACC), g = x / MMA::ACC % FN, e = x % MMA::ACC;
            const ra_i64 i = m0 + wm * WTM + ra_rocblas3_f64mma_c_row<MMA>(lane, f, e, vec);
            const ra_i64 j = n0 + wn * WTN + ra_rocblas3_f64mma_c_col<MMA>(lane, g, e, vec, !b_rows);
            if (i >= M || j >= N || i < i0 || j < j0) continue;
            C[i + j * ldc] = ra_rocblas3_act(C[i + j * ldc], act);
        }
    }
}
