// rocsparse formats: the conversion steps that rocarray.prim has no primitive for.
//
// Every kernel is a grid-stride loop over its work items (64-bit indices) with blocks of
// RA_ROCSPARSE_CONVERT_BLOCK threads; the host launches about one wave of blocks. Sums run in the
// storage type in element order (as SciPy's loops do): complex through the prelude's operator+,
// bool as logical or (bool + bool converts back to bool), integers wrap.

#define RA_ROCSPARSE_CONVERT_BLOCK 256

// row[k] = the row r with indptr[r] <= k < indptr[r + 1], for k < nnz: a binary search of the m + 1
// index pointers per element (indptr[0] == 0, indptr[m] == nnz), so a long row costs no more than
// many short ones. Empty rows are skipped because indptr is non-decreasing.
template <typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCSPARSE_CONVERT_BLOCK)
ra_rocsparse_csr2coo(const I* __restrict__ indptr, ra_i64 m, ra_i64 nnz, I* __restrict__ row) {
    for (ra_i64 k = ra_global_thread_id(); k < nnz; k += ra_grid_threads()) {
        // invariant: indptr[lo] <= k < indptr[hi]
        ra_i64 lo = 0, hi = m;
        while (hi - lo > 1) {
            const ra_i64 mid = lo + ((hi - lo) >> 1);
            if ((ra_i64)indptr[mid] <= k) lo = mid;
            else hi = mid;
        }
        row[k] = (I)lo;
    }
}

// head[k] = whether element k starts a run of equal (row, col) pairs: the first of each group of
// duplicates in a sorted COO/CSR element list.
template <typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCSPARSE_CONVERT_BLOCK)
ra_rocsparse_flag_heads(const I* __restrict__ row, const I* __restrict__ col, ra_i64 nnz, bool* __restrict__ head) {
    for (ra_i64 k = ra_global_thread_id(); k < nnz; k += ra_grid_threads()) {
        head[k] = k == 0 || row[k] != row[k - 1] || col[k] != col[k - 1];
    }
}

// out[g] = data[starts[g]] + ... + data[end - 1], end = starts[g + 1] (nnz for the last run):
// one thread per run, summed left to right.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCSPARSE_CONVERT_BLOCK)
ra_rocsparse_sum_runs(const T* __restrict__ data, const ra_i64* __restrict__ starts, ra_i64 runs, ra_i64 nnz,
                      T* __restrict__ out) {
    for (ra_i64 g = ra_global_thread_id(); g < runs; g += ra_grid_threads()) {
        const ra_i64 begin = starts[g];
        const ra_i64 end = g + 1 < runs ? starts[g + 1] : nnz;
        T s = data[begin];
        for (ra_i64 k = begin + 1; k < end; ++k) s = s + data[k];
        out[g] = s;
    }
}

// out[r * row_stride + indices[k] * col_stride] += data[k] for the elements k of row r: one thread
// per row, so duplicates of a row add in element order without atomics. out is zeroed by the
// caller; strides are in elements (C or F order).
template <typename T, typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCSPARSE_CONVERT_BLOCK)
ra_rocsparse_csr2dense(ra_i64 m, const I* __restrict__ indptr, const I* __restrict__ indices,
                       const T* __restrict__ data, T* __restrict__ out, ra_i64 row_stride, ra_i64 col_stride) {
    for (ra_i64 r = ra_global_thread_id(); r < m; r += ra_grid_threads()) {
        T* orow = out + r * row_stride;
        const ra_i64 end = (ra_i64)indptr[r + 1];
        for (ra_i64 k = (ra_i64)indptr[r]; k < end; ++k) {
            T* p = orow + (ra_i64)indices[k] * col_stride;
            *p = *p + data[k];
        }
    }
}
