// SDDMM: out[e] = alpha (A B)[i, j] + beta data[e] for every stored element e = (i, j) of a CSR
// pattern, A (m x k) and B (k x n) dense with any element strides. A group of LANES lanes (a power
// of two dividing the warp) owns one stored element: its lanes stride over k and a butterfly
// within the group sums the partial products. Elements go to groups warp by warp, so every lane of
// a warp runs the same number of passes and the shuffles always see the whole warp. An element's
// row is found by binary search in indptr (the last row starting at or before it). use_data = 0:
// data is not read (beta is zero).

template <typename T, typename I, int LANES>
__global__ void RA_LAUNCH_BOUNDS(256)
ra_rocsparse_sddmm(ra_i64 m, ra_i64 nnz, ra_i64 k, T alpha, const T* RA_RESTRICT A, ra_i64 a_row, ra_i64 a_col,
                   const T* RA_RESTRICT B, ra_i64 b_row, ra_i64 b_col, T beta, const I* RA_RESTRICT indptr,
                   const I* RA_RESTRICT indices, const T* RA_RESTRICT data, int use_data, T* RA_RESTRICT out) {
    static_assert(RA_WARP_SIZE % LANES == 0, "a group lies within one warp");
    constexpr int PER_WARP = RA_WARP_SIZE / LANES;
    const int lane = ra_lane_id() % LANES, sub = ra_lane_id() / LANES;
    const ra_i64 warp = ra_global_thread_id() / RA_WARP_SIZE;
    const ra_i64 warps = ra_grid_threads() / RA_WARP_SIZE;
    const T zero = ra_traits<T>::zero();
    for (ra_i64 first = warp * PER_WARP; first < nnz; first += warps * PER_WARP) {
        const ra_i64 e = first + sub;
        T acc = zero;
        if (e < nnz) {
            ra_i64 lo = 0, hi = m - 1;  // indptr[lo] <= e < indptr[hi + 1]
            while (lo < hi) {
                const ra_i64 mid = lo + (hi - lo + 1) / 2;
                if ((ra_i64)indptr[mid] <= e) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            const ra_i64 col = indices[e];
            const T* a = A + lo * a_row;
            const T* b = B + col * b_col;
            for (ra_i64 t = lane; t < k; t += LANES) acc = acc + a[t * a_col] * b[t * b_row];
        }
#pragma unroll
        for (int s = LANES / 2; s > 0; s >>= 1) acc = acc + ra_shfl_xor(acc, s);
        if (e < nnz && lane == 0) out[e] = use_data ? alpha * acc + beta * data[e] : alpha * acc;
    }
}
