// rocBLAS level 2, banded matrices: gbmv (N, T, C), sbmv, hbmv.
//
// Band storage as in the reference BLAS (column-major, lda >= kl + ku + 1): element (i, j) of the
// m x n band matrix is A[(ku + i - j) + j * lda] for max(0, j - ku) <= i <= min(m - 1, j + kl).
// Column j of the band storage is contiguous and holds A(j - ku .. j + kl, j). Vectors arrive as
// (pointer to element 0, signed element step) as in level1.hip/level2.hip: the Python layer
// (rocarray/rocblas/_level2_banded.py) has resolved negative increments and checked every bound.
// Offsets are 64-bit throughout.
//
// Two kernels, both deterministic (fixed summation order, no atomics):
//  * ra_rocblas_gbmv_n  y_i = alpha * sum_j A(i, j) x_j + beta * y_i. A block owns RA_WARP_SIZE
//    consecutive rows, lane l row r0 + l. Its warps split the columns that meet those rows
//    (interleaved: warp w takes columns jlo + w, jlo + w + WARPS, ...); at column j every lane
//    reads A[(ku + i - j) + j * lda] for its row i, so a warp reads one contiguous piece of
//    band-storage column j and every stored element is read by exactly one warp. x_j is one
//    broadcast load per warp. The warps' partial sums meet in shared memory and lane l of warp 0
//    adds them in warp order.
//    With SYM it is sbmv/hbmv in one pass: the stored triangle (kl = 0, ku = k for 'U'; kl = k,
//    ku = 0 for 'L') times x as above gives (D + U) x, and the mirrored strict triangle
//    (U^T x, U^H x for HERM) needs row i of U^T = the strict part of storage column i: the block's
//    own W columns, each reduced by one warp (contiguous loads, ra_warp_reduce) into shared
//    memory. The own columns are read twice by the block (the second time from cache), and the
//    columns right of the block (rows of this block) are also the next blocks' own columns, read
//    by them at about the same time: DRAM sees the band about once.
//    Thin bands (THIN: kl + ku + 1 <= 2 * RA_ROCBLAS2B_UNROLL) would leave most lanes idle at
//    each column, so there one thread owns one row and walks the diagonals instead (see there).
//  * ra_rocblas_gbmv_t  y_j = alpha * op(sum_i A(i, j) x_i) + beta * y_j. A group of S lanes (S a
//    power of two: about (kl + ku + 1) / RA_ROCBLAS2B_UNROLL, at most RA_WARP_SIZE, so that each
//    lane has about UNROLL loads in flight) owns band-storage column j, strides down it
//    (contiguous loads), and reduces with xor shuffles inside the group. CONJ conjugates A ('C').
// beta == 0 never reads y (NaN in y does not propagate), as in the reference BLAS.

#define RA_ROCBLAS2B_BLOCK 256
#define RA_ROCBLAS2B_UNROLL 4

// flags (bit values mirrored in _level2_banded.py)
#define RA_ROCBLAS2B_SYM 0x01     // gbmv_n: symmetric (Hermitian with HERM) band, one triangle stored
#define RA_ROCBLAS2B_CONJ 0x02    // gbmv_t: conjugate A
#define RA_ROCBLAS2B_HERM 0x04    // gbmv_n with SYM: Hermitian, the diagonal's imaginary part is zero
#define RA_ROCBLAS2B_THIN 0x08    // gbmv_n: thin band, one row per thread walking the diagonals

RA_DEVICE float ra_rocblas2b_madd(float a, float b, float c) { return ra_fma(a, b, c); }
RA_DEVICE double ra_rocblas2b_madd(double a, double b, double c) { return ra_fma(a, b, c); }
template <typename R>
RA_DEVICE ra_complex<R> ra_rocblas2b_madd(ra_complex<R> a, ra_complex<R> b, ra_complex<R> c) {
    return ra_make_complex<R>(ra_fma(a.re, b.re, ra_fma(-a.im, b.im, c.re)),
                              ra_fma(a.re, b.im, ra_fma(a.im, b.re, c.im)));
}

RA_DEVICE float ra_rocblas2b_conj(float a) { return a; }
RA_DEVICE double ra_rocblas2b_conj(double a) { return a; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas2b_conj(ra_complex<R> a) { return ra_conj(a); }

RA_DEVICE float ra_rocblas2b_real(float a) { return a; }
RA_DEVICE double ra_rocblas2b_real(double a) { return a; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas2b_real(ra_complex<R> a) {
    return ra_make_complex<R>(a.re, R(0));
}

RA_DEVICE bool ra_rocblas2b_is_zero(float a) { return a == 0.0f; }
RA_DEVICE bool ra_rocblas2b_is_zero(double a) { return a == 0.0; }
template <typename R> RA_DEVICE bool ra_rocblas2b_is_zero(ra_complex<R> a) { return a.re == R(0) && a.im == R(0); }

// y := alpha * s + beta * y (y not read when beta == 0).
template <typename T> RA_DEVICE void ra_rocblas2b_finish(T* y, T s, T alpha, T beta) {
    T r = alpha * s;
    if (!ra_rocblas2b_is_zero(beta)) r = r + beta * *y;
    *y = r;
}

// ---------------------------------------------------------------------------------------------
// gbmv 'N': y_i = alpha * sum_j A(i, j) x_j + beta * y_i
// ---------------------------------------------------------------------------------------------
// Grid: x = ceil(m / RA_WARP_SIZE) row groups (THIN: ceil(m / RA_ROCBLAS2B_BLOCK)). n == 0 (no
// columns) scales y by beta: the alpha == 0 path, where A and x are not read. SYM needs m == n.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS2B_BLOCK)
ra_rocblas_gbmv_n(ra_i64 m, ra_i64 n, ra_i64 kl, ra_i64 ku, T alpha, const T* A, ra_i64 lda,
                  const T* x, ra_i64 incx, T beta, T* y, ra_i64 incy, int flags) {
    constexpr int W = RA_WARP_SIZE;
    constexpr int WARPS = RA_ROCBLAS2B_BLOCK / RA_WARP_SIZE;
    constexpr int U = RA_ROCBLAS2B_UNROLL;
    constexpr int CPW = W / WARPS;  // own columns per warp (SYM)
    static_assert(W % WARPS == 0, "own columns must split evenly over the warps");
    __shared__ T part[WARPS][W];
    __shared__ T mirror[W];

    const bool sym = (flags & RA_ROCBLAS2B_SYM) != 0;
    const bool herm = sym && (flags & RA_ROCBLAS2B_HERM) != 0;
    const ra_i64 step = lda - 1;
    if (flags & RA_ROCBLAS2B_THIN) {
        // Thin band (kl + ku + 1 <= 2 * UNROLL): one row per thread, BLOCK rows per block. At
        // diagonal d the lanes read elements lda apart, and the next diagonals read the rest of
        // the same few cache lines: a warp's loads over all d cover one contiguous stretch of
        // band storage. The mirrored triangle (SYM) is the thread's own storage column.
        const ra_i64 row = (ra_i64)blockIdx.x * RA_ROCBLAS2B_BLOCK + threadIdx.x;
        if (row >= m) return;
        const ra_i64 h = kl + ku + 1;
        const T* rowp = A + ku + row;              // rowp[j * step] = A(row, j)
        const T* own = A + row * lda;              // own[d] = A(row - ku + d, row)
        T acc = ra_traits<T>::zero();
        for (ra_i64 d0 = 0; d0 < h; d0 += U) {
            T a[U], xv[U], b[U], xw[U];
            bool in[U], inm[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const ra_i64 d = d0 + u;
                const ra_i64 j = row - kl + d;     // A(row, j), stored in column j
                in[u] = d < h && j >= 0 && j < n;
                a[u] = in[u] ? rowp[j * step] : ra_traits<T>::zero();
                if (herm && j == row) a[u] = ra_rocblas2b_real(a[u]);
                xv[u] = in[u] ? x[j * incx] : ra_traits<T>::zero();
                const ra_i64 r = row - ku + d;      // A(r, row), the mirrored element
                inm[u] = sym && d < h && r >= 0 && r < m && r != row;
                b[u] = inm[u] ? own[d] : ra_traits<T>::zero();
                xw[u] = inm[u] ? x[r * incx] : ra_traits<T>::zero();
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if (in[u]) acc = ra_rocblas2b_madd(a[u], xv[u], acc);
                if (inm[u]) acc = ra_rocblas2b_madd(herm ? ra_rocblas2b_conj(b[u]) : b[u], xw[u], acc);
            }
        }
        ra_rocblas2b_finish(y + row * incy, acc, alpha, beta);
        return;
    }
    const int lane = ra_lane_id();
    const int warp = ra_warp_id();
    const ra_i64 r0 = (ra_i64)blockIdx.x * W;
    const ra_i64 r1 = ra_min(r0 + (ra_i64)W, m);
    const ra_i64 i = r0 + lane;
    // columns j with a stored element in rows [r0, r1): j - ku <= i <= j + kl
    const ra_i64 jlo = ra_max((ra_i64)0, r0 - kl);
    const ra_i64 jhi = ra_min(n, r1 + ku);  // exclusive
    const bool row_ok = i < m;
    const T* base = A + ku + i;  // A[(ku + i - j) + j * lda] = base[j * (lda - 1)]

    T acc = ra_traits<T>::zero();
    // U columns per round, their loads issued together (the last round predicated)
    for (ra_i64 j = jlo + warp; j < jhi; j += (ra_i64)U * WARPS) {
        T a[U], xv[U];
        bool in[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const ra_i64 jj = j + (ra_i64)u * WARPS;
            const bool col = jj < jhi;
            in[u] = col && row_ok && i >= jj - ku && i <= jj + kl;
            a[u] = in[u] ? base[jj * step] : ra_traits<T>::zero();
            if (herm && i == jj) a[u] = ra_rocblas2b_real(a[u]);
            xv[u] = col ? x[jj * incx] : ra_traits<T>::zero();
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
            if (in[u]) acc = ra_rocblas2b_madd(a[u], xv[u], acc);
    }
    part[warp][lane] = acc;

    if (sym) {
        // the mirrored strict triangle: y_c += sum_{r != c} op(A(r, c)) x_r over storage column
        // c, for the block's own columns; G columns at a time, their loads issued together
        constexpr int G = CPW < 4 ? CPW : 4;
        static_assert(CPW % G == 0, "own columns must split into groups");
        for (int q0 = warp * CPW; q0 < (warp + 1) * CPW; q0 += G) {
            const T* col[G];
            ra_i64 lo[G], hi[G], cc[G];
            ra_i64 len = 0;
#pragma unroll
            for (int g = 0; g < G; ++g) {
                cc[g] = r0 + q0 + g;
                const ra_i64 c = ra_min(cc[g], m - 1);  // a valid column; past m nothing is read
                col[g] = A + (ku + c * step);            // col[g][r] = A(r, c)
                lo[g] = ra_max((ra_i64)0, c - ku);
                hi[g] = cc[g] < m ? ra_min(m - 1, c + kl) : lo[g] - 1;
                len = ra_max(len, hi[g] - lo[g] + 1);
            }
            T s[G];
#pragma unroll
            for (int g = 0; g < G; ++g) s[g] = ra_traits<T>::zero();
            for (ra_i64 off = lane; off < len; off += W) {
                T a[G], xv[G];
                bool in[G];
#pragma unroll
                for (int g = 0; g < G; ++g) {
                    const ra_i64 r = lo[g] + off;
                    in[g] = r <= hi[g] && r != cc[g];
                    a[g] = in[g] ? col[g][r] : ra_traits<T>::zero();
                    xv[g] = in[g] ? x[r * incx] : ra_traits<T>::zero();
                }
#pragma unroll
                for (int g = 0; g < G; ++g)
                    if (in[g]) s[g] = ra_rocblas2b_madd(herm ? ra_rocblas2b_conj(a[g]) : a[g], xv[g], s[g]);
            }
#pragma unroll
            for (int g = 0; g < G; ++g) {
                const T t = ra_warp_reduce(s[g], ra_op_sum());
                if (lane == 0) mirror[q0 + g] = t;
            }
        }
    }
    __syncthreads();
    if (warp == 0 && row_ok) {
        T s = part[0][lane];
#pragma unroll
        for (int w = 1; w < WARPS; ++w) s = s + part[w][lane];
        if (sym) s = s + mirror[lane];
        ra_rocblas2b_finish(y + i * incy, s, alpha, beta);
    }
}

// ---------------------------------------------------------------------------------------------
// gbmv 'T' / 'C': y_j = alpha * sum_i op(A(i, j)) x_i + beta * y_j
// ---------------------------------------------------------------------------------------------
// Grid: x = ceil(n / (RA_ROCBLAS2B_BLOCK / group)) blocks; group (S, a power of two dividing
// RA_WARP_SIZE) lanes own one column.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS2B_BLOCK)
ra_rocblas_gbmv_t(ra_i64 m, ra_i64 n, ra_i64 kl, ra_i64 ku, T alpha, const T* A, ra_i64 lda,
                  const T* x, ra_i64 incx, T beta, T* y, ra_i64 incy, int flags, int group) {
    constexpr int U = RA_ROCBLAS2B_UNROLL;
    const int lane = ra_lane_id();
    const int sub = lane & (group - 1);
    const bool conj = (flags & RA_ROCBLAS2B_CONJ) != 0;
    const ra_i64 j = ((ra_i64)blockIdx.x * RA_ROCBLAS2B_BLOCK + threadIdx.x) / group;
    const bool col_ok = j < n;
    // rows of column j: [ilo, ihi]; empty past n (the lanes still take part in the shuffles)
    const ra_i64 ilo = col_ok ? ra_max((ra_i64)0, j - ku) : (ra_i64)1;
    const ra_i64 ihi = col_ok ? ra_min(m - 1, j + kl) : (ra_i64)0;
    const T* col = A + (ku + (col_ok ? j : 0) * (lda - 1));  // col[i] = A(i, j)

    T acc = ra_traits<T>::zero();
    // U elements per lane and round, their loads issued together (the last round predicated)
    for (ra_i64 r = ilo + sub; r <= ihi; r += (ra_i64)U * group) {
        T a[U], xv[U];
        bool in[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const ra_i64 rr = r + (ra_i64)u * group;
            in[u] = rr <= ihi;
            a[u] = in[u] ? col[rr] : ra_traits<T>::zero();
            xv[u] = in[u] ? x[rr * incx] : ra_traits<T>::zero();
        }
#pragma unroll
        for (int u = 0; u < U; ++u)
            if (in[u]) acc = ra_rocblas2b_madd(conj ? ra_rocblas2b_conj(a[u]) : a[u], xv[u], acc);
    }
    // xor butterfly inside the group (warp-uniform bound): the same order on every run
#pragma unroll
    for (int s = RA_WARP_SIZE / 2; s > 0; s >>= 1)
        if (s < group) acc = acc + ra_shfl_xor(acc, s);
    if (col_ok && sub == 0) ra_rocblas2b_finish(y + j * incy, acc, alpha, beta);
}
