// rocsparse sparse triangular solve with level scheduling (rocarray/rocsparse/_csrsv.py).
//
// The matrix S solved with is CSR, m x m, canonical (sorted columns, no duplicates); only its
// `lower` triangle (column < row when lower is 1, column > row when 0) and its diagonal are
// read. I is the index type (int32 or int64) of its indptr and indices; T the value type.
// Every launch is one thread (or one group of `group` lanes) per row; the Python layer sizes the
// grid and handles empty launches.
//
//  * ra_rocsparse_csrsv_rows: per row i, deps[i] = its entries in the triangle (the rows it waits
//    for), diag[i] = the position of its diagonal entry or -1; *missing := min(*missing, i) for
//    a row without a diagonal; a row with no dependency joins level 0: appended to order[] at
//    the place counter[0] hands out.
//  * ra_rocsparse_csrsv_frontier: one step of Kahn's topological order. Thread `slot` takes row
//    j = current[slot] of the level just finished and walks row j of D = S^T (the rows i that
//    wait for j); the last of i's dependencies to finish (atomicSub returning 1) appends i to
//    the next level (next[], the place from *counter) and sets level[i]. Each row is appended
//    exactly once. Within a level the order is the atomics' order; the Python layer sorts it.
//  * ra_rocsparse_csrsv_level: the rows of one level, x[i] = (alpha x[i] - sum_j S_ij x[j]) /
//    S_ii (no division when unit), x in place in column c = col0 + blockIdx.y of X (ld ldx).
//    The rows of earlier levels are final (earlier launches). `group` lanes (a power of two,
//    at most RA_WARP_SIZE) share a row and add up their partial sums with shuffles inside the
//    group; every lane of a warp reaches the shuffles, so no lane returns early. A missing
//    diagonal divides by zero (inf/NaN, as a zero diagonal does).
//  * ra_rocsparse_csrsv_zero_pivot: *pivot := min(*pivot, i) over rows whose diagonal is
//    missing or zero.

#define RA_ROCSPARSE_CSRSV_BLOCK 256

RA_DEVICE float ra_sv_fma(float a, float b, float c) { return ra_fma(a, b, c); }
RA_DEVICE double ra_sv_fma(double a, double b, double c) { return ra_fma(a, b, c); }
template <typename R> RA_DEVICE ra_complex<R> ra_sv_fma(ra_complex<R> a, ra_complex<R> b, ra_complex<R> c) {
    return ra_make_complex<R>(ra_fma(a.re, b.re, ra_fma(-a.im, b.im, c.re)),
                              ra_fma(a.re, b.im, ra_fma(a.im, b.re, c.im)));
}

// a / b; complex by Smith's algorithm (no overflow for moderate magnitudes); b == 0 gives inf/NaN
RA_DEVICE float ra_sv_div(float a, float b) { return a / b; }
RA_DEVICE double ra_sv_div(double a, double b) { return a / b; }
template <typename R> RA_DEVICE ra_complex<R> ra_sv_div(ra_complex<R> a, ra_complex<R> b) {
    if (ra_abs(b.re) >= ra_abs(b.im)) {
        const R r = b.im / b.re, d = b.re + b.im * r;
        return ra_make_complex<R>((a.re + a.im * r) / d, (a.im - a.re * r) / d);
    }
    const R r = b.re / b.im, d = b.im + b.re * r;
    return ra_make_complex<R>((a.re * r + a.im) / d, (a.im * r - a.re) / d);
}

RA_DEVICE bool ra_sv_is_zero(float a) { return a == 0.0f; }
RA_DEVICE bool ra_sv_is_zero(double a) { return a == 0.0; }
template <typename R> RA_DEVICE bool ra_sv_is_zero(ra_complex<R> a) { return a.re == R(0) && a.im == R(0); }

// Whether column j of row i lies in the triangle (strictly).
RA_DEVICE bool ra_sv_in_triangle(ra_i64 i, ra_i64 j, int lower) { return lower ? j < i : j > i; }

template <typename I>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSPARSE_CSRSV_BLOCK) void ra_rocsparse_csrsv_rows(
    ra_i64 m, const I* __restrict__ indptr, const I* __restrict__ indices, int lower, int* __restrict__ deps,
    I* __restrict__ diag, I* __restrict__ level, I* __restrict__ order, ra_u64* counter, ra_u64* missing) {
    const ra_i64 i = ra_global_thread_id();
    if (i >= m) return;
    const ra_i64 begin = (ra_i64)indptr[i], end = (ra_i64)indptr[i + 1];
    int count = 0;
    ra_i64 d = -1;
    for (ra_i64 k = begin; k < end; ++k) {
        const ra_i64 j = (ra_i64)indices[k];
        if (j == i) {
            d = k;
        } else if (ra_sv_in_triangle(i, j, lower)) {
            ++count;
        }
    }
    deps[i] = count;
    diag[i] = (I)d;
    if (d < 0) atomicMin(missing, (ra_u64)i);
    if (count == 0) {
        const ra_u64 place = ra_atomic_add_u64(counter, 1ull);
        order[place] = (I)i;
        level[i] = (I)0;
    }
}

template <typename I>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSPARSE_CSRSV_BLOCK) void ra_rocsparse_csrsv_frontier(
    ra_i64 count, const I* __restrict__ current, const I* __restrict__ dptr, const I* __restrict__ dind, int lower,
    int* deps, I* __restrict__ level, ra_i64 next_level, I* __restrict__ next, ra_u64* counter) {
    const ra_i64 slot = ra_global_thread_id();
    if (slot >= count) return;
    const ra_i64 j = (ra_i64)current[slot];
    const ra_i64 begin = (ra_i64)dptr[j], end = (ra_i64)dptr[j + 1];
    for (ra_i64 k = begin; k < end; ++k) {
        const ra_i64 i = (ra_i64)dind[k];
        // row i waits for j when S_ij lies in the triangle of row i
        if (!ra_sv_in_triangle(i, j, lower)) continue;
        if (atomicSub(deps + i, 1) == 1) {
            const ra_u64 place = ra_atomic_add_u64(counter, 1ull);
            next[place] = (I)i;
            level[i] = (I)next_level;
        }
    }
}

template <typename T, typename I>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSPARSE_CSRSV_BLOCK) void ra_rocsparse_csrsv_level(
    ra_i64 count, const I* __restrict__ rows, const I* __restrict__ indptr, const I* __restrict__ indices,
    const T* __restrict__ data, const I* __restrict__ diag, T* X, ra_i64 ldx, ra_i64 col0, T alpha, int lower,
    int unit, int group) {
    const ra_i64 t = ra_global_thread_id();
    const ra_i64 slot = t / group;
    const int lane = (int)(t - slot * group);
    const bool valid = slot < count;
    T* x = X + (col0 + (ra_i64)blockIdx.y) * ldx;
    ra_i64 i = 0;
    T sum = ra_traits<T>::zero();
    if (valid) {
        i = (ra_i64)rows[slot];
        const ra_i64 end = (ra_i64)indptr[i + 1];
        for (ra_i64 k = (ra_i64)indptr[i] + lane; k < end; k += group) {
            const ra_i64 j = (ra_i64)indices[k];
            if (ra_sv_in_triangle(i, j, lower)) sum = ra_sv_fma(data[k], x[j], sum);
        }
    }
    // lanes of one group are consecutive and the group is aligned, so xor offsets below the
    // group size stay inside it
    for (int off = group >> 1; off > 0; off >>= 1) sum = sum + ra_shfl_xor(sum, off);
    if (valid && lane == 0) {
        T v = alpha * x[i] - sum;
        if (!unit) {
            const ra_i64 d = (ra_i64)diag[i];
            v = ra_sv_div(v, d >= 0 ? data[d] : ra_traits<T>::zero());
        }
        x[i] = v;
    }
}

template <typename T, typename I>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSPARSE_CSRSV_BLOCK) void ra_rocsparse_csrsv_zero_pivot(
    ra_i64 m, const I* __restrict__ diag, const T* __restrict__ data, ra_u64* pivot) {
    const ra_i64 i = ra_global_thread_id();
    if (i >= m) return;
    const ra_i64 d = (ra_i64)diag[i];
    if (d < 0 || ra_sv_is_zero(data[d])) atomicMin(pivot, (ra_u64)i);
}
