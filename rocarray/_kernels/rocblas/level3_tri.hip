// rocBLAS level 3 beside gemm: the small kernels trsm, trmm, symm/hemm and syrk/herk/syr2k/her2k
// need where gemm cannot do the job. Everything O(n^3) runs through gemm (gemm.hip); see
// rocarray/rocblas/_level3_tri.py and _level3_sym.py for the blocked algorithms around these.
//
// Column-major as in the reference BLAS: element (i, j) of a matrix is X[i + j * ld], 64-bit
// offsets. The Python layer has checked every bound and handles the quick returns.
//
//  * ra_rocblas_trsm_leaf / ra_rocblas_trmm_leaf: one small triangular matrix M (nb x nb, nb <= NB:
//    64, half that for complex128) against many vectors at once: x := M^{-1} (alpha x) (trsm) or
//    x := M (alpha x) (trmm), in place. M(i, k) is A[i + k*lda], or A[k + i*lda] with TRANS,
//    conjugated with CONJ; only the stored triangle (UPPER or lower of A) is read, a UNIT diagonal
//    never. Vector c's element i is B[i*vs + c*rs]: left-side BLAS calls pass the columns of B
//    (vs = 1, rs = ldb), right-side calls its rows (vs = ldb, rs = 1; the host passes M = op(A)^T).
//    A block of 256 threads takes G = 64 vectors: thread (c, r) = (t % G, t / G) keeps rows
//    r, r + R, r + 2R, ... (R = 4) of vector c in registers. The rows are renumbered ("logical"
//    order) so that trsm always walks a lower triangle forward (x_k := x_k / M_kk, then every row
//    below subtracts M_ik x_k) and trmm an upper one forward (row k is final once x_k has been
//    broadcast: x_k := M_kk x_k, rows above add M_ik x_k), which is the in-place order of the
//    reference BLAS loops. One barrier per step: the owner of row k publishes x_k in a
//    double-buffered shared slot. Every warp holds one r (G >= the warp size), so the triangle's
//    shared reads are broadcasts. The vectors are staged through shared memory so that global
//    loads and stores are coalesced along whichever of rows/vectors is contiguous, and the
//    staging buffer is reused for the triangle (NB x (NB + 1), diagonal kept apart: its
//    reciprocals for trsm).
//  * ra_rocblas_tri_merge: the diagonal blocks of syrk/herk/syr2k/her2k. gemm has computed each
//    D x D diagonal block in full into a workspace W (ld D); this writes only the uplo triangle
//    of C: C := W + beta C (beta == 0 never reads C), the imaginary part of the diagonal zeroed
//    for HERM. Without HAS_W it scales one triangle of order n by beta (alpha == 0 or k == 0).
//    Blocks take columns, threads the column's rows within the triangle.
//  * ra_rocblas_symm_expand: columns j0 .. j0 + P - 1 of the full symmetric (Hermitian with HERM)
//    matrix whose uplo triangle A holds, written to W (ld ldw) for gemm. 64 x 64 tiles (complex128:
//    half that); the
//    mirrored half is read along A's contiguous dimension and transposed in shared memory.
//    Only the stored triangle is read; a Hermitian diagonal's imaginary part is taken as zero.

#define RA_ROCBLAS3T_BLOCK 256
#define RA_ROCBLAS3T_VECS 64   // vectors per leaf block (G)
#define RA_ROCBLAS3T_TILE 64   // symm_expand tile (complex128: half)
#define RA_ROCBLAS3T_LEAF_NB 64   // largest trsm/trmm diagonal block (complex128: half)

// flags (mirrored in _level3_kernels.py)
#define RA_ROCBLAS3T_UPPER 0x01   // A (or C) stores its upper triangle, else the lower one
#define RA_ROCBLAS3T_TRANS 0x02   // leaf: M(i, k) = A(k, i)
#define RA_ROCBLAS3T_CONJ 0x04    // leaf: M conjugated
#define RA_ROCBLAS3T_UNIT 0x08    // leaf: unit diagonal, never read
#define RA_ROCBLAS3T_HERM 0x10    // merge/expand: Hermitian (diagonal real; expand: mirror conjugated)
#define RA_ROCBLAS3T_HAS_W 0x20   // merge: add the workspace W

// leaf block NB and expansion tile TILE; complex128 takes half of each (33 KB of shared memory)
template <typename T> struct ra_rocblas3t_cfg {
    static constexpr int NB = RA_ROCBLAS3T_LEAF_NB;
    static constexpr int TILE = RA_ROCBLAS3T_TILE;
};
template <> struct ra_rocblas3t_cfg<ra_c128> {
    static constexpr int NB = RA_ROCBLAS3T_LEAF_NB / 2;
    static constexpr int TILE = RA_ROCBLAS3T_TILE / 2;
};

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

// a * b + c
RA_DEVICE float ra_rocblas3t_madd(float a, float b, float c) { return ra_fma(a, b, c); }
RA_DEVICE double ra_rocblas3t_madd(double a, double b, double c) { return ra_fma(a, b, c); }
template <typename R>
RA_DEVICE ra_complex<R> ra_rocblas3t_madd(ra_complex<R> a, ra_complex<R> b, ra_complex<R> c) {
    return ra_make_complex<R>(ra_fma(a.re, b.re, ra_fma(-a.im, b.im, c.re)),
                              ra_fma(a.re, b.im, ra_fma(a.im, b.re, c.im)));
}

RA_DEVICE float ra_rocblas3t_conj_if(float a, bool) { return a; }
RA_DEVICE double ra_rocblas3t_conj_if(double a, bool) { return a; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas3t_conj_if(ra_complex<R> a, bool conj) {
    return conj ? ra_conj(a) : a;
}

RA_DEVICE float ra_rocblas3t_neg(float a) { return -a; }
RA_DEVICE double ra_rocblas3t_neg(double a) { return -a; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas3t_neg(ra_complex<R> a) {
    return ra_make_complex<R>(-a.re, -a.im);
}

RA_DEVICE float ra_rocblas3t_real(float a) { return a; }
RA_DEVICE double ra_rocblas3t_real(double a) { return a; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas3t_real(ra_complex<R> a) {
    return ra_make_complex<R>(a.re, R(0));
}

RA_DEVICE bool ra_rocblas3t_is_zero(float a) { return a == 0.0f; }
RA_DEVICE bool ra_rocblas3t_is_zero(double a) { return a == 0.0; }
template <typename R> RA_DEVICE bool ra_rocblas3t_is_zero(ra_complex<R> a) { return a.re == R(0) && a.im == R(0); }

RA_DEVICE float ra_rocblas3t_one(float) { return 1.0f; }
RA_DEVICE double ra_rocblas3t_one(double) { return 1.0; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas3t_one(ra_complex<R>) { return ra_make_complex<R>(R(1), R(0)); }

// 1 / b; complex by Smith's algorithm (no overflow for moderate magnitudes)
RA_DEVICE float ra_rocblas3t_recip(float b) { return 1.0f / b; }
RA_DEVICE double ra_rocblas3t_recip(double b) { return 1.0 / b; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas3t_recip(ra_complex<R> b) {
    if (ra_abs(b.re) >= ra_abs(b.im)) {
        const R r = b.im / b.re, d = b.re + b.im * r;
        return ra_make_complex<R>(R(1) / d, -r / d);
    }
    const R r = b.re / b.im, d = b.im + b.re * r;
    return ra_make_complex<R>(r / d, R(-1) / d);
}

// ---------------------------------------------------------------------------------------------
// trsm / trmm diagonal blocks
// ---------------------------------------------------------------------------------------------

// The actual row of logical row l: reversed within [0, nb) when the walk runs backwards.
RA_DEVICE int ra_rocblas3t_row(int l, int nb, bool reverse) { return (reverse && l < nb) ? nb - 1 - l : l; }

template <typename T, bool SOLVE>
RA_DEVICE void ra_rocblas3t_leaf(ra_i64 nb64, ra_i64 nvec, T alpha, const T* __restrict__ A, ra_i64 lda,
                                 T* __restrict__ B, ra_i64 vs, ra_i64 rs, int flags) {
    constexpr int NB = ra_rocblas3t_cfg<T>::NB;
    constexpr int G = RA_ROCBLAS3T_VECS;
    constexpr int R = RA_ROCBLAS3T_BLOCK / G;
    constexpr int Q = NB / R;
    constexpr int LD_X = G + 1;    // staged vectors sbuf[l * LD_X + c]
    constexpr int LD_T = NB + 1;   // triangle sbuf[l * LD_T + l2]
    constexpr int SIZE = NB * (LD_X > LD_T ? LD_X : LD_T);
    static_assert(NB % R == 0 && R * G == RA_ROCBLAS3T_BLOCK, "leaf geometry");
    __shared__ T sbuf[SIZE];
    __shared__ T sdiag[NB];
    __shared__ T sx[2][G];

    const int t = (int)threadIdx.x;
    const int c = t % G, r = t / G;
    const int nb = (int)nb64;
    const bool upper = (flags & RA_ROCBLAS3T_UPPER) != 0;
    const bool trans = (flags & RA_ROCBLAS3T_TRANS) != 0;
    const bool conj = (flags & RA_ROCBLAS3T_CONJ) != 0;
    const bool unit = (flags & RA_ROCBLAS3T_UNIT) != 0;
    // M is lower triangular when A's stored triangle is lower and not transposed, or upper and
    // transposed. trsm walks a lower triangle forward, trmm an upper one: reverse otherwise.
    const bool m_lower = upper == trans;
    const bool reverse = SOLVE ? !m_lower : m_lower;
    const ra_i64 v0 = (ra_i64)blockIdx.x * G;
    const bool rows_contiguous = vs == 1;
    const T zero = ra_traits<T>::zero();

    // 1. the vectors, times alpha, into registers (staged for coalescing)
    for (int e = t; e < NB * G; e += RA_ROCBLAS3T_BLOCK) {
        const int i = rows_contiguous ? e % NB : e / G;
        const int cc = rows_contiguous ? e / NB : e % G;
        T v = zero;
        if (i < nb && v0 + cc < nvec) v = alpha * B[(ra_i64)i * vs + (v0 + cc) * rs];
        sbuf[ra_rocblas3t_row(i, nb, reverse) * LD_X + cc] = v;
    }
    __syncthreads();
    T x[Q];
#pragma unroll
    for (int q = 0; q < Q; ++q) x[q] = sbuf[(q * R + r) * LD_X + c];
    __syncthreads();

    // 2. the triangle in logical order (trsm: strictly lower, negated; trmm: strictly upper);
    //    consecutive threads take A's contiguous dimension
    for (int e = t; e < NB * NB; e += RA_ROCBLAS3T_BLOCK) {
        const int l = trans ? e / NB : e % NB;
        const int l2 = trans ? e % NB : e / NB;
        T v = zero;
        if ((SOLVE ? l > l2 : l < l2) && l < nb && l2 < nb) {
            const ra_i64 i = ra_rocblas3t_row(l, nb, reverse), k = ra_rocblas3t_row(l2, nb, reverse);
            v = ra_rocblas3t_conj_if(trans ? A[k + i * lda] : A[i + k * lda], conj);
            if (SOLVE) v = ra_rocblas3t_neg(v);
        }
        sbuf[l * LD_T + l2] = v;
    }
    for (int l = t; l < NB; l += RA_ROCBLAS3T_BLOCK) {
        T d = ra_rocblas3t_one(zero);
        if (!unit && l < nb) {
            const ra_i64 i = ra_rocblas3t_row(l, nb, reverse);
            d = ra_rocblas3t_conj_if(A[i + i * lda], conj);
            if (SOLVE) d = ra_rocblas3t_recip(d);
        }
        sdiag[l] = d;
    }
    __syncthreads();

    // 3. the walk: step k publishes x_k (trsm: solved; trmm: before its diagonal scaling) and
    //    the rows below (trsm) or above (trmm) take it in. The step loop is not unrolled (a full
    //    unroll outgrows the unroller's budget for complex types and leaves x in scratch
    //    memory); x is only ever indexed by unrolled constants, and the row test is uniform
    //    across each warp (r is), so skipped rows cost a branch, not a multiply.
    for (int k = 0; k < nb; ++k) {  // nb is uniform across the block
        const int q = k / R, rr = k % R;
        if (r == rr) {
            T xo = zero;
#pragma unroll
            for (int qq = 0; qq < Q; ++qq)
                if (qq == q) xo = x[qq];
            const T xn = sdiag[k] * xo;
            sx[k & 1][c] = SOLVE ? xn : xo;
#pragma unroll
            for (int qq = 0; qq < Q; ++qq)
                if (qq == q) x[qq] = xn;
        }
        __syncthreads();  // the slot written two steps ago was read before the last barrier
        const T xk = sx[k & 1][c];
#pragma unroll
        for (int qq = 0; qq < Q; ++qq) {
            const bool take = SOLVE ? (qq > q || (qq == q && r > rr)) : (qq < q || (qq == q && r < rr));
            if (take) x[qq] = ra_rocblas3t_madd(sbuf[(qq * R + r) * LD_T + k], xk, x[qq]);
        }
    }

    // 4. back to B
    __syncthreads();
#pragma unroll
    for (int q = 0; q < Q; ++q) sbuf[(q * R + r) * LD_X + c] = x[q];
    __syncthreads();
    for (int e = t; e < NB * G; e += RA_ROCBLAS3T_BLOCK) {
        const int i = rows_contiguous ? e % NB : e / G;
        const int cc = rows_contiguous ? e / NB : e % G;
        if (i < nb && v0 + cc < nvec) B[(ra_i64)i * vs + (v0 + cc) * rs] = sbuf[ra_rocblas3t_row(i, nb, reverse) * LD_X + cc];
    }
}

// x := op^{-1}(alpha x) for ceil(nvec / 64) blocks of vectors (see the top of the file).
template <typename T>
__global__ void __launch_bounds__(RA_ROCBLAS3T_BLOCK)
ra_rocblas_trsm_leaf(ra_i64 nb, ra_i64 nvec, T alpha, const T* __restrict__ A, ra_i64 lda, T* __restrict__ B,
                     ra_i64 vs, ra_i64 rs, int flags) {
    ra_rocblas3t_leaf<T, true>(nb, nvec, alpha, A, lda, B, vs, rs, flags);
}

// x := M (alpha x), in place.
template <typename T>
__global__ void __launch_bounds__(RA_ROCBLAS3T_BLOCK)
ra_rocblas_trmm_leaf(ra_i64 nb, ra_i64 nvec, T alpha, const T* __restrict__ A, ra_i64 lda, T* __restrict__ B,
                     ra_i64 vs, ra_i64 rs, int flags) {
    ra_rocblas3t_leaf<T, false>(nb, nvec, alpha, A, lda, B, vs, rs, flags);
}

// ---------------------------------------------------------------------------------------------
// syrk family: the triangles of the diagonal blocks
// ---------------------------------------------------------------------------------------------

// Diagonal block b = blockIdx.y covers rows and columns [b*D, min(n, (b+1)*D)) of C; its full
// square is W + b*D*D (ld D) with HAS_W. Blocks along x take columns (grid-stride), threads the
// rows of the column's triangle part: coalesced, no index division.
template <typename T>
__global__ void __launch_bounds__(RA_ROCBLAS3T_BLOCK)
ra_rocblas_tri_merge(ra_i64 n, ra_i64 D, const T* __restrict__ W, T beta, T* __restrict__ C, ra_i64 ldc,
                     int flags) {
    const ra_i64 o = (ra_i64)blockIdx.y * D;
    const ra_i64 s = ra_min(D, n - o);
    const bool upper = (flags & RA_ROCBLAS3T_UPPER) != 0;
    const bool herm = (flags & RA_ROCBLAS3T_HERM) != 0;
    const bool has_w = (flags & RA_ROCBLAS3T_HAS_W) != 0;
    const bool read_c = !ra_rocblas3t_is_zero(beta);
    const T* Wb = has_w ? W + (ra_i64)blockIdx.y * D * D : W;
    T* Cb = C + o + o * ldc;
    for (ra_i64 j = blockIdx.x; j < s; j += gridDim.x) {
        const ra_i64 i1 = upper ? j + 1 : s;
        for (ra_i64 i = (upper ? 0 : j) + (ra_i64)threadIdx.x; i < i1; i += RA_ROCBLAS3T_BLOCK) {
            T* p = Cb + i + j * ldc;
            T v = has_w ? Wb[i + j * D] : ra_traits<T>::zero();
            if (read_c) v = ra_rocblas3t_madd(beta, *p, v);
            if (herm && i == j) v = ra_rocblas3t_real(v);
            *p = v;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// symm / hemm: full columns of the symmetric matrix
// ---------------------------------------------------------------------------------------------

// W(i, c) = S(i, j0 + c) for i < ka, c < P, S the full matrix whose `uplo` triangle A stores.
// Tile (blockIdx.x, blockIdx.y) = rows i0.., columns c0.. of W.
template <typename T>
__global__ void __launch_bounds__(RA_ROCBLAS3T_BLOCK)
ra_rocblas_symm_expand(ra_i64 ka, ra_i64 j0, ra_i64 P, const T* __restrict__ A, ra_i64 lda, T* __restrict__ W,
                       ra_i64 ldw, int flags) {
    constexpr int TL = ra_rocblas3t_cfg<T>::TILE;
    constexpr int STEP = RA_ROCBLAS3T_BLOCK / TL;
    __shared__ T tile[TL][TL + 1];
    const bool upper = (flags & RA_ROCBLAS3T_UPPER) != 0;
    const bool herm = (flags & RA_ROCBLAS3T_HERM) != 0;
    const ra_i64 i0 = (ra_i64)blockIdx.x * TL, c0 = (ra_i64)blockIdx.y * TL;
    const int a = (int)threadIdx.x % TL, b = (int)threadIdx.x / TL;
    // the mirrored half, S(i, j) = A(j, i) (conjugated for Hermitian): consecutive threads take
    // consecutive j, A's contiguous dimension; stored transposed in the tile
#pragma unroll 4
    for (int s = 0; s < TL / STEP; ++s) {
        const int ii = b + STEP * s;
        const ra_i64 i = i0 + ii, c = c0 + a, j = j0 + c;
        T v = ra_traits<T>::zero();
        if (i < ka && c < P && (upper ? i > j : i < j)) v = ra_rocblas3t_conj_if(A[j + i * lda], herm);
        tile[ii][a] = v;
    }
    __syncthreads();
#pragma unroll 4
    for (int s = 0; s < TL / STEP; ++s) {
        const int cc = b + STEP * s;
        const ra_i64 i = i0 + a, c = c0 + cc, j = j0 + c;
        if (i < ka && c < P) {
            T v = (upper ? i <= j : i >= j) ? A[i + j * lda] : tile[a][cc];
            if (herm && i == j) v = ra_rocblas3t_real(v);
            W[i + c * ldw] = v;
        }
    }
}
