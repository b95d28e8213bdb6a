// rocBLAS level 3: gemm, the portable tiled shared-memory SIMT kernel.
//
//   C := alpha * op(A) * op(B) + beta * C,   op(X) = X, X^T or X^H,
//
// column-major as in the reference BLAS: element (i, j) of C is C[i + j * ldc] (64-bit offsets);
// op(A) is m x k, op(B) is k x n. The Python layer (rocarray/rocblas/_level3.py) has checked every
// bound and handles the no-op cases; it passes k = 0 when alpha == 0 (then A and B are not read
// and C := beta * C).
//
// One template, ra_rocblas_gemm<T>, for float, double, ra_c64 and ra_c128; the transposes are
// runtime flags applied where a tile is loaded, so there are only four instantiations.
//  * A block of RA_ROCBLAS3_BLOCK (256) threads owns a 64 x 64 tile of C (1-D grid, tiles of
//    m fastest) and walks k in steps of BK (16 real, 8 complex: the double-buffered tiles of
//    complex128 then take 33 KB of shared memory, like double's).
//  * Thread t computes a 4 x 4 register micro-tile: rows tx + 16 r and columns ty + 16 c
//    (tx = t % 16, ty = t / 16). Strided, so a warp's shared-memory reads of the A tile are 16
//    consecutive words (broadcast across ty) and the stores of C are runs of 16 consecutive rows.
//  * Both operand tiles are stored k-major in shared memory, sA[k][i] and sB[k][j], padded by one
//    element per row. The tile of op(A) (64 x BK) is read from global memory along whichever of
//    its dimensions is contiguous: for 'N' consecutive threads take consecutive rows i (the
//    column of A is contiguous); for 'T'/'C' consecutive threads take consecutive k (the column of
//    A holds a row of op(A)), and the tile is transposed while it is stored. op(B) likewise ('N':
//    consecutive k; 'T'/'C': consecutive j). 'C' conjugates while loading. Out-of-range elements
//    (partial tiles at the edges of m, n and k) load as zero, so the inner loop has no guards.
//  * Double buffering: the next k tile is loaded from global memory into registers while the
//    current one is multiplied from shared memory, then stored into the other buffer; one
//    barrier per k step.
// beta == 0 never reads C (NaN in C does not propagate), as in the reference BLAS.

#define RA_ROCBLAS3_BLOCK 256
#define RA_ROCBLAS3_TILE 64
#define RA_ROCBLAS3_MICRO 4
#define RA_ROCBLAS3_THREADS_PER_DIM 16

// flag bits (mirrored in _level3.py)
#define RA_ROCBLAS3_TRANS_A 0x01   // op(A) = A^T (or A^H with CONJ_A)
#define RA_ROCBLAS3_CONJ_A 0x02
#define RA_ROCBLAS3_TRANS_B 0x04   // op(B) = B^T (or B^H with CONJ_B)
#define RA_ROCBLAS3_CONJ_B 0x08

template <typename T> struct ra_rocblas3_cfg { static constexpr int BK = 16; };
template <typename R> struct ra_rocblas3_cfg<ra_complex<R> > { static constexpr int BK = 8; };

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

// The loader of one operand tile: element (r, kk) of the 64 x BK tile of op(X) starting at
// (r0, k0), where op(X)(r, k) is X[r + k * ld] when R_CONTIGUOUS (the tile's rows are contiguous
// in memory) and X[k + r * ld] otherwise. Each thread loads ELEMS elements; the thread-to-element
// map follows the contiguous dimension so that a warp's loads are consecutive addresses.
template <typename T, int BK> struct ra_rocblas3_loader {
    static constexpr int TILE = RA_ROCBLAS3_TILE;
    static constexpr int ELEMS = TILE * BK / RA_ROCBLAS3_BLOCK;
    T v[ELEMS];

    // (r, kk) of this thread's element e
    RA_DEVICE static int row(bool r_contiguous, int e) {
        const int t = (int)threadIdx.x;
        return r_contiguous ? t % TILE : t / BK + (RA_ROCBLAS3_BLOCK / BK) * e;
    }
    RA_DEVICE static int kcol(bool r_contiguous, int e) {
        const int t = (int)threadIdx.x;
        return r_contiguous ? t / TILE + (RA_ROCBLAS3_BLOCK / TILE) * e : t % BK;
    }

    RA_DEVICE void load(const T* __restrict__ X, ra_i64 ld, bool r_contiguous, bool conj, ra_i64 r0,
                        ra_i64 rows, ra_i64 k0, ra_i64 K) {
#pragma unroll
        for (int e = 0; e < ELEMS; ++e) {
            const ra_i64 r = r0 + row(r_contiguous, e);
            const ra_i64 k = k0 + kcol(r_contiguous, e);
            T x = ra_traits<T>::zero();
            if (r < rows && k < K) x = ra_rocblas3_conj_if(r_contiguous ? X[r + k * ld] : X[k + r * ld], conj);
            v[e] = x;
        }
    }

    RA_DEVICE void store(T (*s)[TILE + 1], bool r_contiguous) const {
#pragma unroll
        for (int e = 0; e < ELEMS; ++e) s[kcol(r_contiguous, e)][row(r_contiguous, e)] = v[e];
    }
};

// C := alpha * op(A) op(B) + beta * C for an m x n C; K == 0: C := beta * C (A, B not read).
template <typename T>
__global__ void __launch_bounds__(RA_ROCBLAS3_BLOCK)
ra_rocblas_gemm(ra_i64 M, ra_i64 N, ra_i64 K, T alpha, const T* __restrict__ A, ra_i64 lda,
                const T* __restrict__ B, ra_i64 ldb, T beta, T* __restrict__ C, ra_i64 ldc, int flags) {
    constexpr int TILE = RA_ROCBLAS3_TILE;
    constexpr int MT = RA_ROCBLAS3_MICRO;
    constexpr int TD = RA_ROCBLAS3_THREADS_PER_DIM;
    constexpr int BK = ra_rocblas3_cfg<T>::BK;
    static_assert(TD * MT == TILE && TD * TD == RA_ROCBLAS3_BLOCK, "micro-tile geometry");
    static_assert(TILE * BK % RA_ROCBLAS3_BLOCK == 0, "tile loads");

    __shared__ T sA[2][BK][TILE + 1];
    __shared__ T sB[2][BK][TILE + 1];

    const ra_i64 tiles_m = (M + TILE - 1) / TILE;
    const ra_i64 bid = (ra_i64)blockIdx.x;
    const ra_i64 m0 = (bid % tiles_m) * TILE;
    const ra_i64 n0 = (bid / tiles_m) * TILE;
    const int tx = (int)threadIdx.x % TD;
    const int ty = (int)threadIdx.x / TD;

    // op(A)(i, k): A[i + k*lda] ('N', rows contiguous) or A[k + i*lda] ('T'/'C').
    // op(B)(k, j): B[k + j*ldb] ('N', k contiguous) or B[j + k*ldb] ('T'/'C', rows j contiguous).
    const bool a_rows = (flags & RA_ROCBLAS3_TRANS_A) == 0;
    const bool b_rows = (flags & RA_ROCBLAS3_TRANS_B) != 0;
    const bool a_conj = (flags & RA_ROCBLAS3_CONJ_A) != 0;
    const bool b_conj = (flags & RA_ROCBLAS3_CONJ_B) != 0;

    T acc[MT][MT];
#pragma unroll
    for (int r = 0; r < MT; ++r)
#pragma unroll
        for (int c = 0; c < MT; ++c) acc[r][c] = ra_traits<T>::zero();

    const ra_i64 ktiles = (K + BK - 1) / BK;
    if (ktiles > 0) {
        ra_rocblas3_loader<T, BK> la, lb;
        la.load(A, lda, a_rows, a_conj, m0, M, 0, K);
        lb.load(B, ldb, b_rows, b_conj, n0, N, 0, K);
        la.store(sA[0], a_rows);
        lb.store(sB[0], b_rows);
        __syncthreads();
        int cur = 0;
        for (ra_i64 kt = 0; kt < ktiles; ++kt) {
            const bool more = kt + 1 < ktiles;
            if (more) {  // the next k tile, in flight while this one is multiplied
                la.load(A, lda, a_rows, a_conj, m0, M, (kt + 1) * BK, K);
                lb.load(B, ldb, b_rows, b_conj, n0, N, (kt + 1) * BK, K);
            }
            // unrolled by 4, not fully: a full unroll lets AMD's scheduler hoist every shared
            // load of the tile (gfx90a: 246 VGPRs for float, 2 waves per SIMD; by 4: 102)
#pragma unroll 4
            for (int kk = 0; kk < BK; ++kk) {
                T a[MT], b[MT];
#pragma unroll
                for (int r = 0; r < MT; ++r) a[r] = sA[cur][kk][tx + TD * r];
#pragma unroll
                for (int c = 0; c < MT; ++c) b[c] = sB[cur][kk][ty + TD * c];
#pragma unroll
                for (int r = 0; r < MT; ++r)
#pragma unroll
                    for (int c = 0; c < MT; ++c) acc[r][c] = ra_rocblas3_madd(a[r], b[c], acc[r][c]);
            }
            if (more) {  // the other buffer was last read before the previous barrier
                la.store(sA[cur ^ 1], a_rows);
                lb.store(sB[cur ^ 1], b_rows);
            }
            __syncthreads();
            cur ^= 1;
        }
    }

    const bool read_c = !ra_rocblas3_is_zero(beta);
#pragma unroll
    for (int c = 0; c < MT; ++c) {
        const ra_i64 j = n0 + ty + TD * c;
        if (j >= N) continue;
#pragma unroll
        for (int r = 0; r < MT; ++r) {
            const ra_i64 i = m0 + tx + TD * r;
            if (i >= M) continue;
            T* p = C + i + j * ldc;
            T out = K > 0 ? alpha * acc[r][c] : ra_traits<T>::zero();
            if (read_c) out = out + beta * *p;
            *p = out;
        }
    }
}
