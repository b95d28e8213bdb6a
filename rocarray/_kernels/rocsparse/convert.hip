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

// Status bits of the structure checks (the host decodes them by these values).
#define RA_ROCSPARSE_CHECK_INDPTR 1u         // indptr decreases somewhere
#define RA_ROCSPARSE_CHECK_NEGATIVE 2u       // a (column) index < 0
#define RA_ROCSPARSE_CHECK_TOO_LARGE 4u      // a (column) index >= n
#define RA_ROCSPARSE_CHECK_UNSORTED 8u       // an element is smaller than the one before it in its row
#define RA_ROCSPARSE_CHECK_DUPLICATE 16u     // an element equals the one before it in its row
#define RA_ROCSPARSE_CHECK_ROW_NEGATIVE 32u  // COO: a row index < 0
#define RA_ROCSPARSE_CHECK_ROW_TOO_LARGE 64u // COO: a row index >= m

// Structure check of an m x n CSR matrix (indptr[0] == 0 and indptr[m] == nnz checked by the
// host): each thread ORs what it saw into *status once. An element's row comes from the same
// binary search as csr2coo; where indptr decreases that row may be wrong, but the INDPTR bit is
// then set and the order bits are not used.
template <typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCSPARSE_CONVERT_BLOCK)
ra_rocsparse_check_csr(ra_i64 m, ra_i64 n, const I* __restrict__ indptr, const I* __restrict__ indices, ra_i64 nnz,
                       ra_u32* status) {
    ra_u32 bits = 0;
    const ra_i64 work = m > nnz ? m : nnz;
    for (ra_i64 k = ra_global_thread_id(); k < work; k += ra_grid_threads()) {
        if (k < m && indptr[k + 1] < indptr[k]) bits |= RA_ROCSPARSE_CHECK_INDPTR;
        if (k < nnz) {
            const ra_i64 c = (ra_i64)indices[k];
            if (c < 0) bits |= RA_ROCSPARSE_CHECK_NEGATIVE;
            else if (c >= n) bits |= RA_ROCSPARSE_CHECK_TOO_LARGE;
            ra_i64 lo = 0, hi = m;
            while (hi - lo > 1) {
                const ra_i64 mid = lo + ((hi - lo) >> 1);
                if ((ra_i64)indptr[mid] <= k) lo = mid;
                else hi = mid;
            }
            if (k > 0 && k > (ra_i64)indptr[lo]) {
                const ra_i64 p = (ra_i64)indices[k - 1];
                if (c < p) bits |= RA_ROCSPARSE_CHECK_UNSORTED;
                else if (c == p) bits |= RA_ROCSPARSE_CHECK_DUPLICATE;
            }
        }
    }
    if (bits) atomicOr(status, bits);
}

// Structure check of an m x n COO matrix: index ranges, and whether the (row, col) pairs are in
// row-major order (UNSORTED when a pair is smaller than the one before it, DUPLICATE when equal).
template <typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCSPARSE_CONVERT_BLOCK)
ra_rocsparse_check_coo(ra_i64 m, ra_i64 n, const I* __restrict__ row, const I* __restrict__ col, ra_i64 nnz,
                       ra_u32* status) {
    ra_u32 bits = 0;
    for (ra_i64 k = ra_global_thread_id(); k < nnz; k += ra_grid_threads()) {
        const ra_i64 r = (ra_i64)row[k];
        const ra_i64 c = (ra_i64)col[k];
        if (r < 0) bits |= RA_ROCSPARSE_CHECK_ROW_NEGATIVE;
        else if (r >= m) bits |= RA_ROCSPARSE_CHECK_ROW_TOO_LARGE;
        if (c < 0) bits |= RA_ROCSPARSE_CHECK_NEGATIVE;
        else if (c >= n) bits |= RA_ROCSPARSE_CHECK_TOO_LARGE;
        if (k > 0) {
            const ra_i64 pr = (ra_i64)row[k - 1];
            const ra_i64 pc = (ra_i64)col[k - 1];
            if (r < pr || (r == pr && c < pc)) bits |= RA_ROCSPARSE_CHECK_UNSORTED;
            else if (r == pr && c == pc) bits |= RA_ROCSPARSE_CHECK_DUPLICATE;
        }
    }
    if (bits) atomicOr(status, bits);
}
