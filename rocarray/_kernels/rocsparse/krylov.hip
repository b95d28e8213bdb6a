// Fused vector updates of the conjugate gradient method (rocarray.sparse.linalg.cg).
//
// The step sizes never visit the host: `scalars` is a small device array of the iteration's
// scalars (rho = r.z, p.q, r.r) in slots the host chooses, and each kernel reads the two slots it
// divides. The host queues a whole iteration without waiting for its dot products.
//
//  * ra_rocsparse_cg_update: alpha = scalars[rho] / scalars[pq]; x += alpha p; r -= alpha q; and
//    the block's partial sum of |r_i|^2 of the updated r into partials[blockIdx.x] (real type R).
//    One pass over x, r, p, q instead of two axpys and a dot product.
//  * ra_rocsparse_cg_direction: beta = scalars[rho_new] / scalars[rho_old]; p = z + beta p.
//  * ra_rocsparse_krylov_finish: one block adds partials[0 .. parts) into scalars[slot] (as a
//    real value; imaginary part 0 for complex T).
//
// Grid-stride loops with 64-bit indices; every kernel runs RA_KRYLOV_BLOCK threads per block.

#define RA_KRYLOV_BLOCK 256

RA_DEVICE float ra_krylov_div(float a, float b) { return a / b; }
RA_DEVICE double ra_krylov_div(double a, double b) { return a / b; }
// Smith's algorithm: a / b without forming |b|^2, which could overflow or underflow.
template <typename R> RA_DEVICE ra_complex<R> ra_krylov_div(ra_complex<R> a, ra_complex<R> b) {
    if (ra_abs(b.re) >= ra_abs(b.im)) {
        const R t = b.im / b.re;
        const R d = b.re + b.im * t;
        return ra_make_complex<R>((a.re + a.im * t) / d, (a.im - a.re * t) / d);
    }
    const R t = b.re / b.im;
    const R d = b.re * t + b.im;
    return ra_make_complex<R>((a.re * t + a.im) / d, (a.im * t - a.re) / d);
}

RA_DEVICE float ra_krylov_abs2(float a) { return a * a; }
RA_DEVICE double ra_krylov_abs2(double a) { return a * a; }
template <typename R> RA_DEVICE R ra_krylov_abs2(ra_complex<R> a) { return a.re * a.re + a.im * a.im; }

RA_DEVICE void ra_krylov_set_real(float* s, float v) { *s = v; }
RA_DEVICE void ra_krylov_set_real(double* s, double v) { *s = v; }
template <typename R> RA_DEVICE void ra_krylov_set_real(ra_complex<R>* s, R v) { *s = ra_make_complex<R>(v, R(0)); }

template <typename T, typename R>
__global__ void RA_LAUNCH_BOUNDS(RA_KRYLOV_BLOCK)
ra_rocsparse_cg_update(ra_i64 n, T* RA_RESTRICT x, T* RA_RESTRICT r, const T* RA_RESTRICT p,
                       const T* RA_RESTRICT q, const T* RA_RESTRICT scalars, int rho, int pq,
                       R* RA_RESTRICT partials) {
    __shared__ R scratch[RA_KRYLOV_BLOCK / RA_WARP_SIZE];
    const T alpha = ra_krylov_div(scalars[rho], scalars[pq]);
    R acc = R(0);
    for (ra_i64 i = ra_global_thread_id(); i < n; i += ra_grid_threads()) {
        x[i] = x[i] + alpha * p[i];
        const T ri = r[i] - alpha * q[i];
        r[i] = ri;
        acc += ra_krylov_abs2(ri);
    }
    const R total = ra_block_reduce<RA_KRYLOV_BLOCK>(acc, ra_op_sum(), scratch);
    if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_KRYLOV_BLOCK)
ra_rocsparse_cg_direction(ra_i64 n, T* RA_RESTRICT p, const T* RA_RESTRICT z, const T* RA_RESTRICT scalars,
                          int rho_new, int rho_old) {
    const T beta = ra_krylov_div(scalars[rho_new], scalars[rho_old]);
    for (ra_i64 i = ra_global_thread_id(); i < n; i += ra_grid_threads()) p[i] = z[i] + beta * p[i];
}

template <typename T, typename R>
__global__ void RA_LAUNCH_BOUNDS(RA_KRYLOV_BLOCK)
ra_rocsparse_krylov_finish(const R* RA_RESTRICT partials, int parts, T* RA_RESTRICT scalars, int slot) {
    __shared__ R scratch[RA_KRYLOV_BLOCK / RA_WARP_SIZE];
    R acc = R(0);
    for (int i = threadIdx.x; i < parts; i += RA_KRYLOV_BLOCK) acc += partials[i];
    const R total = ra_block_reduce<RA_KRYLOV_BLOCK>(acc, ra_op_sum(), scratch);
    if (threadIdx.x == 0) ra_krylov_set_real(scalars + slot, total);
}
