// rocsparse incomplete factorizations ILU(0) and IC(0) in the pattern of A, level-scheduled
// (rocarray/rocsparse/_ilu.py; Saad, Iterative Methods for Sparse Linear Systems, ch. 10).
//
// A is CSR, m x m, canonical (sorted columns, no duplicates), factored in place in `data`. The
// rows of one level of A's lower pattern (the levels of a lower triangular solve) are
// independent; one launch takes one level, one thread per row, and walks the row in order of
// columns. The rows row i reads (its dependencies k < i) belong to earlier levels: final.
// diag[i] is the position of row i's diagonal entry or -1. *pivot := min(*pivot, i) over rows
// whose pivot is zero or missing (IC(0): not positive).
//
//  * ra_rocsparse_csrilu0_level: the IKJ variant of Gaussian elimination restricted to the
//    pattern. For each k < i stored in row i (ascending): a_ik /= a_kk, then a_ij -= a_ik a_kj
//    for every j > k stored in both row i and row k (a merge of the two sorted column lists).
//    L (unit, strictly lower) and U (upper with the diagonal) end up where A was. A missing
//    a_kk divides by zero and skips row k's update (its own row reported the pivot).
//  * ra_rocsparse_csric0_level: the row-by-row Cholesky factor restricted to the pattern of the
//    lower triangle, A = L L^H: L_ik = (a_ik - sum_{j<k} L_ij conj(L_kj)) / L_kk for k < i
//    stored in row i, then L_ii = sqrt(re(a_ii) - sum_{j<i} |L_ij|^2). Entries above the
//    diagonal are not read or written.

#define RA_ROCSPARSE_ILU_BLOCK 256

RA_DEVICE float ra_ilu_fms(float a, float b, float c) { return ra_fma(-a, b, c); }
RA_DEVICE double ra_ilu_fms(double a, double b, double c) { return ra_fma(-a, b, c); }
// c - a * b
template <typename R> RA_DEVICE ra_complex<R> ra_ilu_fms(ra_complex<R> a, ra_complex<R> b, ra_complex<R> c) {
    return ra_make_complex<R>(ra_fma(-a.re, b.re, ra_fma(a.im, b.im, c.re)),
                              ra_fma(-a.re, b.im, ra_fma(-a.im, b.re, c.im)));
}

// a / b; complex by Smith's algorithm; b == 0 gives inf/NaN
RA_DEVICE float ra_ilu_div(float a, float b) { return a / b; }
RA_DEVICE double ra_ilu_div(double a, double b) { return a / b; }
template <typename R> RA_DEVICE ra_complex<R> ra_ilu_div(ra_complex<R> a, ra_complex<R> b) {
    if (ra_abs(b.re) >= ra_abs(b.im)) {
        const R r = b.im / b.re, d = b.re + b.im * r;
        return ra_make_complex<R>((a.re + a.im * r) / d, (a.im - a.re * r) / d);
    }
    const R r = b.re / b.im, d = b.im + b.re * r;
    return ra_make_complex<R>((a.re * r + a.im) / d, (a.im * r - a.re) / d);
}

RA_DEVICE bool ra_ilu_is_zero(float a) { return a == 0.0f; }
RA_DEVICE bool ra_ilu_is_zero(double a) { return a == 0.0; }
template <typename R> RA_DEVICE bool ra_ilu_is_zero(ra_complex<R> a) { return a.re == R(0) && a.im == R(0); }

RA_DEVICE float ra_ilu_conj(float a) { return a; }
RA_DEVICE double ra_ilu_conj(double a) { return a; }
template <typename R> RA_DEVICE ra_complex<R> ra_ilu_conj(ra_complex<R> a) { return ra_conj(a); }

// re(a) and |a|^2
RA_DEVICE float ra_ilu_real(float a) { return a; }
RA_DEVICE double ra_ilu_real(double a) { return a; }
template <typename R> RA_DEVICE R ra_ilu_real(ra_complex<R> a) { return a.re; }
RA_DEVICE float ra_ilu_norm2(float a) { return a * a; }
RA_DEVICE double ra_ilu_norm2(double a) { return a * a; }
template <typename R> RA_DEVICE R ra_ilu_norm2(ra_complex<R> a) { return ra_fma(a.re, a.re, a.im * a.im); }

// T holding the real value r
RA_DEVICE float ra_ilu_from_real(float r, float) { return r; }
RA_DEVICE double ra_ilu_from_real(double r, double) { return r; }
template <typename R> RA_DEVICE ra_complex<R> ra_ilu_from_real(R r, ra_complex<R>) {
    return ra_make_complex<R>(r, R(0));
}

template <typename T, typename I>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSPARSE_ILU_BLOCK) void ra_rocsparse_csrilu0_level(
    ra_i64 count, const I* __restrict__ rows, const I* __restrict__ indptr, const I* __restrict__ indices, T* data,
    const I* __restrict__ diag, ra_u64* pivot) {
    const ra_i64 slot = ra_global_thread_id();
    if (slot >= count) return;
    const ra_i64 i = (ra_i64)rows[slot];
    const ra_i64 begin = (ra_i64)indptr[i], end = (ra_i64)indptr[i + 1];
    for (ra_i64 p = begin; p < end; ++p) {
        const ra_i64 k = (ra_i64)indices[p];
        if (k >= i) break;
        const ra_i64 dk = (ra_i64)diag[k];
        if (dk < 0) {
            data[p] = ra_ilu_div(data[p], ra_traits<T>::zero());
            continue;
        }
        const T lik = ra_ilu_div(data[p], data[dk]);
        data[p] = lik;
        // a_ij -= l_ik u_kj over the columns j > k of both rows
        ra_i64 q = p + 1, r = dk + 1;
        const ra_i64 rend = (ra_i64)indptr[k + 1];
        while (q < end && r < rend) {
            const ra_i64 jq = (ra_i64)indices[q], jr = (ra_i64)indices[r];
            if (jq == jr) {
                data[q] = ra_ilu_fms(lik, data[r], data[q]);
                ++q;
                ++r;
            } else if (jq < jr) {
                ++q;
            } else {
                ++r;
            }
        }
    }
    const ra_i64 d = (ra_i64)diag[i];
    if (d < 0 || ra_ilu_is_zero(data[d])) atomicMin(pivot, (ra_u64)i);
}

template <typename T, typename I>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSPARSE_ILU_BLOCK) void ra_rocsparse_csric0_level(
    ra_i64 count, const I* __restrict__ rows, const I* __restrict__ indptr, const I* __restrict__ indices, T* data,
    const I* __restrict__ diag, ra_u64* pivot) {
    typedef typename ra_real_of<T>::type R;
    const ra_i64 slot = ra_global_thread_id();
    if (slot >= count) return;
    const ra_i64 i = (ra_i64)rows[slot];
    const ra_i64 begin = (ra_i64)indptr[i], end = (ra_i64)indptr[i + 1];
    ra_i64 p = begin;
    for (; p < end; ++p) {
        const ra_i64 k = (ra_i64)indices[p];
        if (k >= i) break;
        // s = a_ik - sum over the columns j < k of both rows of L_ij conj(L_kj)
        T s = data[p];
        ra_i64 q = begin, r = (ra_i64)indptr[k];
        const ra_i64 rend = (ra_i64)indptr[k + 1];
        while (q < p && r < rend) {
            const ra_i64 jq = (ra_i64)indices[q], jr = (ra_i64)indices[r];
            if (jr >= k) break;
            if (jq == jr) {
                s = ra_ilu_fms(data[q], ra_ilu_conj(data[r]), s);
                ++q;
                ++r;
            } else if (jq < jr) {
                ++q;
            } else {
                ++r;
            }
        }
        const ra_i64 dk = (ra_i64)diag[k];
        data[p] = ra_ilu_div(s, dk >= 0 ? data[dk] : ra_traits<T>::zero());
    }
    // p is the first entry at or past the diagonal: the strictly lower entries are begin .. p-1
    const ra_i64 d = (ra_i64)diag[i];
    if (d < 0) {
        atomicMin(pivot, (ra_u64)i);
        return;
    }
    R t = ra_ilu_real(data[d]);
    for (ra_i64 q = begin; q < p; ++q) t -= ra_ilu_norm2(data[q]);
    if (!(t > R(0))) atomicMin(pivot, (ra_u64)i);
    data[d] = ra_ilu_from_real(ra_sqrt(t), data[d]);
}
