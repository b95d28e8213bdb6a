// rocBLAS level 3: gemm, the portable tiled shared-memory SIMT kernel, with batches, split-K and
// a fused bias + activation epilogue.
//
//   C := act(alpha * op(A) * op(B) + beta * C + bias),   op(X) = X, X^T or X^H,
//
// column-major as in the reference BLAS: element (i, j) of C is C[i + j * ldc] (64-bit offsets);
// op(A) is m x k, op(B) is k x n; bias (optional) has one element per row of C. The Python layer
// (rocarray/rocblas/_level3.py) has checked every bound and handles the no-op cases; it passes
// k = 0 when alpha == 0 (then A and B are not read and C := act(beta * C + bias)).
//
// One template, ra_rocblas_gemm<T, BM, BN, BK, TM, TN>: a block of RA_ROCBLAS3_BLOCK (256) threads
// owns a BM x BN tile of C and walks k in steps of BK; the transposes are runtime flags applied
// where a tile is loaded. The Python layer registers only the tile shapes it launches.
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
//    barrier per k step.
//  * Grid: x = tiles of C (m fastest), y = matrices of a strided batch (A, B, C advance by
//    stride_a/b/c elements; a stride may be 0), z = split-K parts. With gridDim.z > 1 each part
//    covers k_per_split of k and stores alpha * (its partial product) to ws[z][j][i] (m x n,
//    column-major, ld m); ra_rocblas_gemm_splitk_finish then adds the parts in order (so the
//    result is deterministic) and applies beta, bias and the activation.
// beta == 0 never reads C (NaN in C does not propagate), as in the reference BLAS.

#define RA_ROCBLAS3_BLOCK 256

// flag bits (mirrored in _level3.py)
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

// The activations (real data only; the Python layer refuses them for complex data).
RA_DEVICE float ra_rocblas3_erf(float x) { return erff(x); }
RA_DEVICE double ra_rocblas3_erf(double x) { return erf(x); }
RA_DEVICE float ra_rocblas3_exp(float x) { return expf(x); }
RA_DEVICE double ra_rocblas3_exp(double x) { return exp(x); }
RA_DEVICE float ra_rocblas3_tanh(float x) { return tanhf(x); }
RA_DEVICE double ra_rocblas3_tanh(double x) { return tanh(x); }
template <typename R> RA_DEVICE R ra_rocblas3_act(R x, int act) {
    switch (act) {
    case RA_ROCBLAS3_ACT_RELU: return x < R(0) ? R(0) : x;  // NaN stays NaN
    case RA_ROCBLAS3_ACT_GELU: return R(0.5) * x * (R(1) + ra_rocblas3_erf(x * R(0.70710678118654752440)));
    case RA_ROCBLAS3_ACT_SILU: return x / (R(1) + ra_rocblas3_exp(-x));
    case RA_ROCBLAS3_ACT_SIGMOID: return R(1) / (R(1) + ra_rocblas3_exp(-x));
    case RA_ROCBLAS3_ACT_TANH: return ra_rocblas3_tanh(x);
    default: return x;
    }
}
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas3_act(ra_complex<R> x, int) { return x; }

// C's element after the product: act(alpha_s + beta * c + bias), where alpha_s is alpha times
// the product (already scaled) and c is read only when beta != 0.
template <typename T>
RA_DEVICE T ra_rocblas3_epilogue(T alpha_s, T beta, const T* c, const T* bias, ra_i64 i, int flags) {
    T out = alpha_s;
    if (!ra_rocblas3_is_zero(beta)) out = out + beta * *c;
    if (flags & RA_ROCBLAS3_BIAS) out = out + bias[i];
    return ra_rocblas3_act(out, (flags >> RA_ROCBLAS3_ACT_SHIFT) & 0xF);
}

// VW elements of T that move as one (up to 16-byte) vector.
template <typename T, int VW> struct alignas(VW * sizeof(T)) ra_rocblas3_vec { T v[VW]; };

template <typename T, int TM> struct ra_rocblas3_width {
    static constexpr int FIT = 16 / (int)sizeof(T) > 0 ? 16 / (int)sizeof(T) : 1;
    static constexpr int V = FIT < TM ? FIT : TM;
};

// The loader of one operand tile: element (r, kk) of the ROWS x BK tile of op(X) starting at
// (r0, k0), where op(X)(r, k) is X[r + k * ld] when r_contiguous (the tile's rows are contiguous
// in memory) and X[k + r * ld] otherwise. Each thread loads ELEMS elements; the thread-to-element
// map follows the contiguous dimension so that a warp's loads are consecutive addresses.
template <typename T, int ROWS, int BK> struct ra_rocblas3_loader {
    static constexpr int ELEMS = ROWS * BK / RA_ROCBLAS3_BLOCK;
    static_assert(ROWS * BK % RA_ROCBLAS3_BLOCK == 0 && RA_ROCBLAS3_BLOCK % ROWS == 0 &&
                      RA_ROCBLAS3_BLOCK % BK == 0, "tile loads");
    T v[ELEMS];

    RA_DEVICE static int row(bool r_contiguous, int e) {
        const int t = (int)threadIdx.x;
        return r_contiguous ? t % ROWS : t / BK + (RA_ROCBLAS3_BLOCK / BK) * e;
    }
    RA_DEVICE static int kcol(bool r_contiguous, int e) {
        const int t = (int)threadIdx.x;
        return r_contiguous ? t / ROWS + (RA_ROCBLAS3_BLOCK / ROWS) * e : t % BK;
    }

    RA_DEVICE void load(const T* __restrict__ X, ra_i64 ld, bool r_contiguous, bool conj, ra_i64 r0,
                        ra_i64 rows, ra_i64 k0, ra_i64 kend) {
#pragma unroll
        for (int e = 0; e < ELEMS; ++e) {
            const ra_i64 r = r0 + row(r_contiguous, e);
            const ra_i64 k = k0 + kcol(r_contiguous, e);
            T x = ra_traits<T>::zero();
            if (r < rows && k < kend) x = ra_rocblas3_conj_if(r_contiguous ? X[r + k * ld] : X[k + r * ld], conj);
            v[e] = x;
        }
    }

    template <int LD> RA_DEVICE void store(T* s, bool r_contiguous) const {
#pragma unroll
        for (int e = 0; e < ELEMS; ++e) s[kcol(r_contiguous, e) * LD + row(r_contiguous, e)] = v[e];
    }
};

// Two resident blocks for float tiles (at most 128 registers per thread on NVIDIA: the 8 x 8
// micro-tile's 64 accumulators, 16 operands, 8 prefetched elements and addresses fit; the 4 x 4
// tile needs about 100); one 8 x 8 block of 158 registers ran 8192^3 at 28 TFLOP/s on the H200.
// (One template argument: HIP's __launch_bounds__ is a two-parameter macro, so the bound may not
// contain a comma.)
template <typename T>
constexpr int ra_rocblas3_min_blocks = sizeof(T) == 4 ? 2 : 1;

template <typename T, int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(RA_ROCBLAS3_BLOCK, ra_rocblas3_min_blocks<T>)
ra_rocblas_gemm(ra_i64 M, ra_i64 N, ra_i64 K, T alpha, const T* __restrict__ A, ra_i64 lda,
                const T* __restrict__ B, ra_i64 ldb, T beta, T* __restrict__ C, ra_i64 ldc, int flags,
                ra_i64 stride_a, ra_i64 stride_b, ra_i64 stride_c, ra_i64 k_per_split,
                T* __restrict__ ws, const T* __restrict__ bias) {
    constexpr int TDM = BM / TM;  // threads along m
    constexpr int TDN = BN / TN;  // threads along n
    static_assert(TDM * TDN == RA_ROCBLAS3_BLOCK, "micro-tile geometry");
    constexpr int VA = ra_rocblas3_width<T, TM>::V;
    constexpr int VB = ra_rocblas3_width<T, TN>::V;
    static_assert(TM % VA == 0 && TN % VB == 0, "vector groups");
    constexpr int GA = TM / VA, GB = TN / VB;          // vector groups per thread
    constexpr int SPAN_A = TDM * VA, SPAN_B = TDN * VB;  // rows between a thread's groups
    constexpr int LDA_S = BM + VA, LDB_S = BN + VB;      // padded shared rows
    typedef ra_rocblas3_vec<T, VA> PA;
    typedef ra_rocblas3_vec<T, VB> PB;

    __shared__ PA sAv[2][BK][LDA_S / VA];
    __shared__ PB sBv[2][BK][LDB_S / VB];

    const ra_i64 tiles_m = (M + BM - 1) / BM;
    const ra_i64 bid = (ra_i64)blockIdx.x;
    const ra_i64 m0 = (bid % tiles_m) * BM;
    const ra_i64 n0 = (bid / tiles_m) * BN;
    const int tx = (int)threadIdx.x % TDM;
    const int ty = (int)threadIdx.x / TDM;
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

    const ra_i64 ktiles = ke > kb ? (ke - kb + BK - 1) / BK : 0;
    if (ktiles > 0) {
        ra_rocblas3_loader<T, BM, BK> la;
        ra_rocblas3_loader<T, BN, BK> lb;
        la.load(A, lda, a_rows, a_conj, m0, M, kb, ke);
        lb.load(B, ldb, b_rows, b_conj, n0, N, kb, ke);
        la.template store<LDA_S>((T*)sAv[0], a_rows);
        lb.template store<LDB_S>((T*)sBv[0], b_rows);
        __syncthreads();
        int cur = 0;
        for (ra_i64 kt = 0; kt < ktiles; ++kt) {
            const bool more = kt + 1 < ktiles;
            if (more) {  // the next k tile, in flight while this one is multiplied
                la.load(A, lda, a_rows, a_conj, m0, M, kb + (kt + 1) * BK, ke);
                lb.load(B, ldb, b_rows, b_conj, n0, N, kb + (kt + 1) * BK, ke);
            }
            // AMD: unrolled by 4, not fully: a full unroll lets its scheduler hoist every shared
            // load of the tile (gfx90a, 64 x 64 float tiles: 246 VGPRs; by 4: 102)
#if defined(RA_HIP)
#pragma unroll 4
#else
#pragma unroll
#endif
            for (int kk = 0; kk < BK; ++kk) {
                PA a[GA];
                PB b[GB];
#pragma unroll
                for (int g = 0; g < GA; ++g) a[g] = sAv[cur][kk][(g * SPAN_A) / VA + tx];
#pragma unroll
                for (int g = 0; g < GB; ++g) b[g] = sBv[cur][kk][(g * SPAN_B) / VB + ty];
#pragma unroll
                for (int r = 0; r < TM; ++r)
#pragma unroll
                    for (int c = 0; c < TN; ++c)
                        acc[r][c] = ra_rocblas3_madd(a[r / VA].v[r % VA], b[c / VB].v[c % VB], acc[r][c]);
            }
            if (more) {  // the other buffer was last read before the previous barrier
                la.template store<LDA_S>((T*)sAv[cur ^ 1], a_rows);
                lb.template store<LDB_S>((T*)sBv[cur ^ 1], b_rows);
            }
            __syncthreads();
            cur ^= 1;
        }
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
            else C[i + j * ldc] = ra_rocblas3_epilogue(s, beta, C + i + j * ldc, bias, i, flags);
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
        C[i + j * ldc] = ra_rocblas3_epilogue(s, beta, C + i + j * ldc, bias, i, flags);
    }
}

// ---------------------------------------------------------------------------------------------
// float64 on the matrix units: ra_rocblas_gemm_f64mma<BM, BN, BK>
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
// The block's 256 threads are (256 / warp size) warps in a (W / 2) x 2 grid over the BM x BN tile;
// each warp owns (BM / (W / 2)) x (BN / 2) of C as FM x FN fragments. Operand tiles, global loads,
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

template <int BM, int BN, int BK>
__global__ void __launch_bounds__(RA_ROCBLAS3_BLOCK)
ra_rocblas_gemm_f64mma(ra_i64 M, ra_i64 N, ra_i64 K, double alpha, const double* __restrict__ A, ra_i64 lda,
                       const double* __restrict__ B, ra_i64 ldb, double beta, double* __restrict__ C,
                       ra_i64 ldc, int flags, ra_i64 stride_a, ra_i64 stride_b, ra_i64 stride_c,
                       ra_i64 k_per_split, double* __restrict__ ws, const double* __restrict__ bias) {
    typedef ra_rocblas3_f64mma MMA;
    constexpr int WARPS = RA_ROCBLAS3_BLOCK / RA_WARP_SIZE;
    constexpr int WN = 2, WM = WARPS / WN;
    constexpr int WTM = BM / WM, WTN = BN / WN;  // a warp's part of the tile
    constexpr int FM = WTM / MMA::M, FN = WTN / MMA::N;
    static_assert(FM * MMA::M == WTM && FN * MMA::N == WTN && FM > 0 && FN > 0, "warp tiling");
    static_assert(BK % MMA::K == 0, "whole instruction k steps per tile");
    constexpr int LDA_S = BM + 4, LDB_S = BN + 4;

    // dynamic: a 128 x 128 x 16 double-buffered tile pair takes 66 KB (NVIDIA's opt-in, set by
    // the Python layer; larger than AMD's 64 KB of LDS, so that tile is launched on NVIDIA only)
    extern __shared__ double ra_rocblas3_f64mma_smem[];
    typedef double RowA[LDA_S];
    typedef double RowB[LDB_S];
    RowA* sA0 = reinterpret_cast<RowA*>(ra_rocblas3_f64mma_smem);             // [2 * BK][LDA_S]
    RowB* sB0 = reinterpret_cast<RowB*>(ra_rocblas3_f64mma_smem + 2 * BK * LDA_S);  // [2 * BK][LDB_S]

    const ra_i64 tiles_m = (M + BM - 1) / BM;
    const ra_i64 bid = (ra_i64)blockIdx.x;
    const ra_i64 m0 = (bid % tiles_m) * BM;
    const ra_i64 n0 = (bid / tiles_m) * BN;
    const int lane = ra_lane_id();
    const int wm = ra_warp_id() % WM, wn = ra_warp_id() / WM;
    const ra_i64 batch = (ra_i64)blockIdx.y;
    A += batch * stride_a;
    B += batch * stride_b;
    C += batch * stride_c;
    const ra_i64 kb = (ra_i64)blockIdx.z * k_per_split;
    const ra_i64 ke = ra_min(K, kb + k_per_split);

    const bool a_rows = (flags & RA_ROCBLAS3_TRANS_A) == 0;
    const bool b_rows = (flags & RA_ROCBLAS3_TRANS_B) != 0;

    double acc[FM][FN][MMA::ACC];
#pragma unroll
    for (int f = 0; f < FM; ++f)
#pragma unroll
        for (int g = 0; g < FN; ++g)
#pragma unroll
            for (int i = 0; i < MMA::ACC; ++i) acc[f][g][i] = 0.0;

    const int ar = wm * WTM, bc = wn * WTN;  // the warp's first row and column in the tile
    const ra_i64 ktiles = ke > kb ? (ke - kb + BK - 1) / BK : 0;
    if (ktiles > 0) {
        ra_rocblas3_loader<double, BM, BK> la;
        ra_rocblas3_loader<double, BN, BK> lb;
        la.load(A, lda, a_rows, false, m0, M, kb, ke);
        lb.load(B, ldb, b_rows, false, n0, N, kb, ke);
        la.template store<LDA_S>(&sA0[0][0], a_rows);
        lb.template store<LDB_S>(&sB0[0][0], b_rows);
        __syncthreads();
        int cur = 0;
        for (ra_i64 kt = 0; kt < ktiles; ++kt) {
            const bool more = kt + 1 < ktiles;
            if (more) {
                la.load(A, lda, a_rows, false, m0, M, kb + (kt + 1) * BK, ke);
                lb.load(B, ldb, b_rows, false, n0, N, kb + (kt + 1) * BK, ke);
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
                la.template store<LDA_S>(&sA0[(cur ^ 1) * BK][0], a_rows);
                lb.template store<LDB_S>(&sB0[(cur ^ 1) * BK][0], b_rows);
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
                const ra_i64 i = m0 + wm * WTM + f * MMA::M + MMA::c_row(lane, e);
                const ra_i64 j = n0 + wn * WTN + g * MMA::N + MMA::c_col(lane, e);
                if (i >= M || j >= N) continue;
                const double s = K > 0 ? alpha * acc[f][g][e] : 0.0;
                if (split) part[i + j * M] = s;
                else C[i + j * ldc] = ra_rocblas3_epilogue(s, beta, C + i + j * ldc, bias, i, flags);
            }
}
