// Elementwise combinations of two CSR matrices with canonical rows (sorted, no duplicates): one
// thread per row walks both rows in column order. Over the union of the two patterns, a column in
// both rows gives `both(a, b)`, a column in one row `only_a(a)` or `only_b(b)`; results that are
// exactly zero are not stored (SciPy's csr_binop_csr rule, so a NaN or inf times a missing zero is
// kept). Two passes: counts (c_indptr null: counts[row] := stored entries of the row), then the
// entries at c_indptr[row].

RA_DEVICE bool ra_rocsparse_geam_zero(float v) { return v == 0.0f; }
RA_DEVICE bool ra_rocsparse_geam_zero(double v) { return v == 0.0; }
template <typename R> RA_DEVICE bool ra_rocsparse_geam_zero(ra_complex<R> v) { return v.re == R(0) && v.im == R(0); }

// alpha A + beta B
template <typename T> struct ra_rocsparse_op_axpby {
    T alpha, beta;
    RA_DEVICE T both(T a, T b) const { return alpha * a + beta * b; }
    RA_DEVICE T only_a(T a) const { return alpha * a; }
    RA_DEVICE T only_b(T b) const { return beta * b; }
};

// A o B (a missing entry is a zero operand)
template <typename T> struct ra_rocsparse_op_multiply {
    RA_DEVICE T both(T a, T b) const { return a * b; }
    RA_DEVICE T only_a(T a) const { return a * ra_traits<T>::zero(); }
    RA_DEVICE T only_b(T b) const { return ra_traits<T>::zero() * b; }
};

template <typename T, typename I, typename Op>
RA_DEVICE void ra_rocsparse_merge_rows(ra_i64 m, const Op& op, const I* RA_RESTRICT a_indptr,
                                       const I* RA_RESTRICT a_indices, const T* RA_RESTRICT a_data,
                                       const I* RA_RESTRICT b_indptr, const I* RA_RESTRICT b_indices,
                                       const T* RA_RESTRICT b_data, I* RA_RESTRICT counts,
                                       const I* RA_RESTRICT c_indptr, I* RA_RESTRICT c_indices,
                                       T* RA_RESTRICT c_data) {
    for (ra_i64 row = ra_global_thread_id(); row < m; row += ra_grid_threads()) {
        ra_i64 p = a_indptr[row], q = b_indptr[row];
        const ra_i64 pe = a_indptr[row + 1], qe = b_indptr[row + 1];
        const ra_i64 start = c_indptr ? (ra_i64)c_indptr[row] : 0;
        ra_i64 w = 0;
        while (p < pe || q < qe) {
            I col;
            T v;
            if (q == qe || (p < pe && a_indices[p] < b_indices[q])) {
                col = a_indices[p];
                v = op.only_a(a_data[p]);
                ++p;
            } else if (p == pe || b_indices[q] < a_indices[p]) {
                col = b_indices[q];
                v = op.only_b(b_data[q]);
                ++q;
            } else {
                col = a_indices[p];
                v = op.both(a_data[p], b_data[q]);
                ++p;
                ++q;
            }
            if (ra_rocsparse_geam_zero(v)) continue;
            if (c_indptr) {
                c_indices[start + w] = col;
                c_data[start + w] = v;
            }
            ++w;
        }
        if (!c_indptr) counts[row] = (I)w;
    }
}

template <typename T, typename I>
__global__ void ra_rocsparse_geam(ra_i64 m, T alpha, const I* RA_RESTRICT a_indptr, const I* RA_RESTRICT a_indices,
                                  const T* RA_RESTRICT a_data, T beta, const I* RA_RESTRICT b_indptr,
                                  const I* RA_RESTRICT b_indices, const T* RA_RESTRICT b_data, I* RA_RESTRICT counts,
                                  const I* RA_RESTRICT c_indptr, I* RA_RESTRICT c_indices, T* RA_RESTRICT c_data) {
    ra_rocsparse_op_axpby<T> op;
    op.alpha = alpha;
    op.beta = beta;
    ra_rocsparse_merge_rows<T, I>(m, op, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, counts, c_indptr,
                                  c_indices, c_data);
}

template <typename T, typename I>
__global__ void ra_rocsparse_csr_multiply(ra_i64 m, const I* RA_RESTRICT a_indptr, const I* RA_RESTRICT a_indices,
                                          const T* RA_RESTRICT a_data, const I* RA_RESTRICT b_indptr,
                                          const I* RA_RESTRICT b_indices, const T* RA_RESTRICT b_data,
                                          I* RA_RESTRICT counts, const I* RA_RESTRICT c_indptr,
                                          I* RA_RESTRICT c_indices, T* RA_RESTRICT c_data) {
    ra_rocsparse_op_multiply<T> op;
    ra_rocsparse_merge_rows<T, I>(m, op, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, counts, c_indptr,
                                  c_indices, c_data);
}
