// CSR sparse matrix times dense matrix: C = alpha op(A) B + beta C (rocarray.rocsparse.csrmm).
//
// T: float, double, ra_c64, ra_c128 (sums in T); I: int or long long. B (n x ncols) and C
// (m x ncols) are strided both ways: element (i, j) of B at B[i * sbr + j * sbc]. beta_zero != 0
// writes C without reading it; conj != 0 multiplies by conj(A). Kernels:
//   ra_rocsparse_csrmm_rows  a warp per (row of A, RA_WARP_SIZE columns of C): lanes over the
//                            columns, the row's (index, value) pairs read once per warp and
//                            broadcast by shuffles, RA_SPMM_GATHER rows of B gathered at a time;
//                            coalesced when B's rows are contiguous
//   ra_rocsparse_csrmm_cols  G lanes per row of A over its elements, RA_SPMM_COLS columns at a
//                            time (column-major B: each element's gathers hit one column each)

#define RA_SPMM_BLOCK 256
#define RA_SPMM_COLS 4
#define RA_SPMM_GATHER 4

RA_DEVICE float ra_spmm_conj_if(float v, int) { return v; }
RA_DEVICE double ra_spmm_conj_if(double v, int) { return v; }
template <typename R> RA_DEVICE ra_complex<R> ra_spmm_conj_if(ra_complex<R> v, int c) { return c ? ra_conj(v) : v; }

template <typename T>
RA_DEVICE void ra_spmm_store(T* c, T acc, T alpha, T beta, int beta_zero) {
    T r = alpha * acc;
    if (!beta_zero) r = r + beta * *c;
    *c = r;
}

// Warp w takes row w / chunks and columns (w % chunks) * RA_WARP_SIZE + lane; the loop steps a
// warp's work together so every lane reaches the shuffles.
template <typename T, typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_SPMM_BLOCK)
ra_rocsparse_csrmm_rows(ra_i64 m, ra_i64 ncols, const I* RA_RESTRICT indptr, const I* RA_RESTRICT indices,
                        const T* RA_RESTRICT data, const T* RA_RESTRICT B, ra_i64 sbr, ra_i64 sbc, T* C, ra_i64 scr,
                        ra_i64 scc, T alpha, T beta, int beta_zero, int conj) {
    const int lane = ra_lane_id();
    const ra_i64 chunks = (ncols + RA_WARP_SIZE - 1) / RA_WARP_SIZE;
    const ra_i64 work = m * chunks;
    const ra_i64 warps = ra_grid_threads() / RA_WARP_SIZE;
    for (ra_i64 w = ra_global_thread_id() / RA_WARP_SIZE; w < work; w += warps) {
        const ra_i64 row = w / chunks;
        const ra_i64 col = (w % chunks) * RA_WARP_SIZE + lane;
        const bool live = col < ncols;
        const T* RA_RESTRICT bcol = B + (live ? col : 0) * sbc;
        const ra_i64 start = (ra_i64)indptr[row], end = (ra_i64)indptr[row + 1];
        T acc = ra_traits<T>::zero();
        for (ra_i64 base = start; base < end; base += RA_WARP_SIZE) {
            const ra_i64 k = base + lane;
            I idx = 0;
            T val = ra_traits<T>::zero();
            if (k < end) {
                idx = indices[k];
                val = ra_spmm_conj_if(data[k], conj);
            }
            const int count = end - base < RA_WARP_SIZE ? (int)(end - base) : RA_WARP_SIZE;
            int j = 0;
            // RA_SPMM_GATHER rows of B in flight before any is used
            for (; j + RA_SPMM_GATHER <= count; j += RA_SPMM_GATHER) {
                T v[RA_SPMM_GATHER], b[RA_SPMM_GATHER];
#pragma unroll
                for (int q = 0; q < RA_SPMM_GATHER; ++q) {
                    const ra_i64 i = (ra_i64)ra_shfl(idx, j + q);
                    v[q] = ra_shfl(val, j + q);
                    b[q] = live ? bcol[i * sbr] : ra_traits<T>::zero();
                }
#pragma unroll
                for (int q = 0; q < RA_SPMM_GATHER; ++q) acc = acc + v[q] * b[q];
            }
            for (; j < count; ++j) {
                const ra_i64 i = (ra_i64)ra_shfl(idx, j);
                const T v = ra_shfl(val, j);
                if (live) acc = acc + v * bcol[i * sbr];
            }
        }
        if (live) ra_spmm_store(C + row * scr + col * scc, acc, alpha, beta, beta_zero);
    }
}

// G lanes per row (G > RA_WARP_SIZE runs as a whole warp); the row loop steps a warp's rows
// together so every lane reaches the shuffles.
template <typename T, typename I, int G>
__global__ void RA_LAUNCH_BOUNDS(RA_SPMM_BLOCK)
ra_rocsparse_csrmm_cols(ra_i64 m, ra_i64 ncols, const I* RA_RESTRICT indptr, const I* RA_RESTRICT indices,
                        const T* RA_RESTRICT data, const T* RA_RESTRICT B, ra_i64 sbr, ra_i64 sbc, T* C, ra_i64 scr,
                        ra_i64 scc, T alpha, T beta, int beta_zero, int conj) {
    constexpr int L = G < RA_WARP_SIZE ? G : RA_WARP_SIZE;
    constexpr int ROWS_PER_WARP = RA_WARP_SIZE / L;
    const int lane = (int)(threadIdx.x % L);
    const int sub = (int)((threadIdx.x % RA_WARP_SIZE) / L);
    const ra_i64 warp = ra_global_thread_id() / RA_WARP_SIZE;
    const ra_i64 warps = ra_grid_threads() / RA_WARP_SIZE;
    for (ra_i64 base = warp * ROWS_PER_WARP; base < m; base += warps * ROWS_PER_WARP) {
        const ra_i64 row = base + sub;
        const ra_i64 start = row < m ? (ra_i64)indptr[row] : 0;
        const ra_i64 end = row < m ? (ra_i64)indptr[row + 1] : 0;
        for (ra_i64 c0 = 0; c0 < ncols; c0 += RA_SPMM_COLS) {
            T acc[RA_SPMM_COLS];
#pragma unroll
            for (int q = 0; q < RA_SPMM_COLS; ++q) acc[q] = ra_traits<T>::zero();
            for (ra_i64 k = start + lane; k < end; k += L) {
                const T v = ra_spmm_conj_if(data[k], conj);
                const T* RA_RESTRICT b = B + (ra_i64)indices[k] * sbr + c0 * sbc;
#pragma unroll
                for (int q = 0; q < RA_SPMM_COLS; ++q)
                    if (c0 + q < ncols) acc[q] = acc[q] + v * b[q * sbc];
            }
#pragma unroll
            for (int q = 0; q < RA_SPMM_COLS; ++q) {
#pragma unroll
                for (int o = L / 2; o > 0; o >>= 1) acc[q] = acc[q] + ra_shfl_xor(acc[q], o);
            }
            if (lane == 0 && row < m) {
#pragma unroll
                for (int q = 0; q < RA_SPMM_COLS; ++q)
                    if (c0 + q < ncols) ra_spmm_store(C + row * scr + (c0 + q) * scc, acc[q], alpha, beta, beta_zero);
            }
        }
    }
}
