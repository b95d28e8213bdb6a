// rocBLAS level 2: gemv (N, T, C), ger/geru/gerc, symv/hemv, trmv and trsv building blocks.
//
// Matrices are column-major as in the reference BLAS: element (i, j) of A is A[i + j * lda], with
// 64-bit offsets. Vectors arrive as (pointer to element 0, signed element step), exactly as in
// level1.hip: the Python layer (rocarray/rocblas/_level2.py) has resolved negative increments and
// checked every bound, so kernels never see a buffer length.
//
// Two gemv kernels do all the matrix-vector work; symv/hemv/trmv/trsv reuse them with a triangle
// mask (the MASKED instantiations; see the flags below):
//  * ra_rocblas_gemv_n  y_i = alpha * sum_j A(i, j) x_j + beta * y_i. Consecutive threads take
//    consecutive rows (coalesced along the contiguous dimension); a block owns a slab of rows
//    (BLOCK rows, or BLOCK 16-byte packs of rows when lda and A allow vector loads) and, when the
//    grid has splits along y, one range of columns. x of the current column chunk is staged in
//    shared memory; every thread issues RA_ROCBLAS2_UNROLL independent column loads before it uses
//    them. With splits > 1 each block stores its partial sums, takes a ticket (integer atomic) and
//    the block that draws the slab's last ticket adds the partials in split order and writes y
//    (the last-block finish of prim/reduce.hip): deterministic, no floating-point atomics.
//  * ra_rocblas_gemv_t  y_j = alpha * op(sum_i A(i, j) x_i) + beta * y_j. Each column is
//    contiguous: a block owns RA_ROCBLAS2_TCOLS columns, every warp RA_ROCBLAS2_TCOLS / warps of
//    them, lanes stride down the rows (16-byte packs when possible) against the x chunk staged in
//    shared memory, and the warp reduces each column with ra_warp_reduce. Splits along y cut the
//    rows into ranges finished by the last block as above. 'C' conjugates x while staging it and
//    the finished sum: sum conj(a) x = conj(sum a conj(x)), so the inner loop is the same.
// beta == 0 never reads y (NaN in y does not propagate), as in the reference BLAS.
// trsv has two forms: ra_rocblas_trsv_block (one diagonal block per launch, the updates between
// blocks by gemv launches from the host) and ra_rocblas_trsv_one (the whole solve in one launch,
// block-rows handed on by flags in global memory); their comments say how each works.

#define RA_ROCBLAS2_BLOCK 256
#define RA_ROCBLAS2_UNROLL 8
#define RA_ROCBLAS2_TCOLS 16
#define RA_ROCBLAS2_FINISH_BATCH 16
#define RA_ROCBLAS2_TRSV_NB 128
#define RA_ROCBLAS2_TRSV_PANEL 16

// flags (bit values mirrored in _level2.py)
#define RA_ROCBLAS2_VEC 0x01      // 16-byte loads along columns are allowed (A and lda aligned)
#define RA_ROCBLAS2_UPPER 0x02    // masked: the upper triangle (i <= j) is referenced, else lower
#define RA_ROCBLAS2_STRICT 0x04   // masked: the diagonal is excluded
#define RA_ROCBLAS2_UNIT 0x08     // masked: the diagonal is 1 and never read
#define RA_ROCBLAS2_HERM 0x10     // masked: the diagonal's imaginary part is taken as zero
#define RA_ROCBLAS2_CONJ 0x20     // gemv_t: conjugate A; ger: conjugate y; trsv: conjugate A
#define RA_ROCBLAS2_TRANS 0x40    // trsv: solve with A^T (A^H with CONJ)

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

template <typename T> struct alignas(16) ra_rocblas2_pack {
    static constexpr int N = 16 / (int)sizeof(T);
    T v[N];
};

RA_DEVICE float ra_rocblas2_madd(float a, float b, float c) { return ra_fma(a, b, c); }
RA_DEVICE double ra_rocblas2_madd(double a, double b, double c) { return ra_fma(a, b, c); }
template <typename R>
RA_DEVICE ra_complex<R> ra_rocblas2_madd(ra_complex<R> a, ra_complex<R> b, ra_complex<R> c) {
    return ra_make_complex<R>(ra_fma(a.re, b.re, ra_fma(-a.im, b.im, c.re)),
                              ra_fma(a.re, b.im, ra_fma(a.im, b.re, c.im)));
}

RA_DEVICE float ra_rocblas2_conj(float a) { return a; }
RA_DEVICE double ra_rocblas2_conj(double a) { return a; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas2_conj(ra_complex<R> a) { return ra_conj(a); }

RA_DEVICE float ra_rocblas2_real(float a) { return a; }
RA_DEVICE double ra_rocblas2_real(double a) { return a; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas2_real(ra_complex<R> a) {
    return ra_make_complex<R>(a.re, R(0));
}

RA_DEVICE bool ra_rocblas2_is_zero(float a) { return a == 0.0f; }
RA_DEVICE bool ra_rocblas2_is_zero(double a) { return a == 0.0; }
template <typename R> RA_DEVICE bool ra_rocblas2_is_zero(ra_complex<R> a) { return a.re == R(0) && a.im == R(0); }

template <typename T> RA_DEVICE T ra_rocblas2_zero() { return ra_traits<T>::zero(); }
RA_DEVICE float ra_rocblas2_one(float) { return 1.0f; }
RA_DEVICE double ra_rocblas2_one(double) { return 1.0; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas2_one(ra_complex<R>) { return ra_make_complex<R>(R(1), R(0)); }

// a / b; complex division by Smith's algorithm (no overflow for moderate magnitudes).
RA_DEVICE float ra_rocblas2_div(float a, float b) { return a / b; }
RA_DEVICE double ra_rocblas2_div(double a, double b) { return a / b; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas2_div(ra_complex<R> a, ra_complex<R> b) {
    if (ra_abs(b.re) >= ra_abs(b.im)) {
        const R r = b.im / b.re, d = b.re + b.im * r;
        return ra_make_complex<R>((a.re + a.im * r) / d, (a.im - a.re * r) / d);
    }
    const R r = b.re / b.im, d = b.im + b.re * r;
    return ra_make_complex<R>((a.re * r + a.im) / d, (a.im * r - a.re) / d);
}

// Loads that bypass non-coherent caches, for partials written by other blocks of the same launch.
RA_DEVICE float ra_rocblas2_vload(const float* p) { return *(const volatile float*)p; }
RA_DEVICE double ra_rocblas2_vload(const double* p) { return *(const volatile double*)p; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas2_vload(const ra_complex<R>* p) {
    const volatile R* q = (const volatile R*)p;
    return ra_make_complex<R>(q[0], q[1]);
}

// Element (i, j) of a masked (triangular/symmetric/Hermitian) matrix, or false when (i, j) is
// outside the referenced part (then A is not read).
template <typename T>
RA_DEVICE bool ra_rocblas2_masked(const T* A, ra_i64 lda, ra_i64 i, ra_i64 j, int flags, T& a) {
    const bool upper = (flags & RA_ROCBLAS2_UPPER) != 0;
    if (upper ? i > j : i < j) return false;
    if (i == j) {
        if (flags & RA_ROCBLAS2_STRICT) return false;
        if (flags & RA_ROCBLAS2_UNIT) {
            a = ra_rocblas2_one(T());
            return true;
        }
        a = A[i + j * lda];
        if (flags & RA_ROCBLAS2_HERM) a = ra_rocblas2_real(a);
        return true;
    }
    a = A[i + j * lda];
    return true;
}

// sum_b p[b * stride] for b in [0, count), added in index order; the loads of a batch are all
// issued before the first add (the last block's finish is on the critical path of the launch).
template <typename T> RA_DEVICE T ra_rocblas2_sum_splits(const T* p, ra_i64 stride, unsigned int count) {
    constexpr int K = RA_ROCBLAS2_FINISH_BATCH;
    T s = ra_rocblas2_zero<T>();
    unsigned int b = 0;
    for (; b + K <= count; b += K) {
        T v[K];
#pragma unroll
        for (int k = 0; k < K; ++k) v[k] = ra_rocblas2_vload(p + (ra_i64)(b + k) * stride);
#pragma unroll
        for (int k = 0; k < K; ++k) s = s + v[k];
    }
    for (; b < count; ++b) s = s + ra_rocblas2_vload(p + (ra_i64)b * stride);
    return s;
}

// y := alpha * s + beta * y (y not read when beta == 0).
template <typename T> RA_DEVICE void ra_rocblas2_finish(T* y, T s, T alpha, T beta) {
    T r = alpha * s;
    if (!ra_rocblas2_is_zero(beta)) r = r + beta * *y;
    *y = r;
}

// The last-block ticket: true in the block that draws ticket count - 1 (after a fence, so all
// partials are visible); that block resets the ticket to 0 for the next launch on the workspace.
RA_DEVICE bool ra_rocblas2_last_block(unsigned int* ticket, unsigned int count, int* flag) {
    ra_threadfence();  // this thread's partials are visible device-wide before the ticket
    __syncthreads();
    if (threadIdx.x == 0) {
        const bool last = ra_atomic_inc_u32(ticket) == count - 1;
        if (last) *ticket = 0u;
        *flag = last ? 1 : 0;
    }
    __syncthreads();
    const bool last = *flag != 0;
    if (last) ra_threadfence();
    return last;
}

// ---------------------------------------------------------------------------------------------
// gemv 'N': y_i = alpha * sum_j A(i, j) x_j + beta * y_i
// ---------------------------------------------------------------------------------------------
// Grid: x = row slabs, y = column splits of cols_per_split columns. ws: tickets[gridDim.x] at
// offset 0, partials[gridDim.y * m] at byte offset part_offset (used only when gridDim.y > 1).
template <typename T, bool MASKED>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS2_BLOCK)
ra_rocblas_gemv_n(ra_i64 m, ra_i64 n, T alpha, const T* A, ra_i64 lda, const T* x, ra_i64 incx,
                  T beta, T* y, ra_i64 incy, int flags, ra_i64 cols_per_split, void* ws,
                  ra_i64 part_offset) {
    typedef ra_rocblas2_pack<T> P;
    constexpr int V = P::N;
    constexpr int U = RA_ROCBLAS2_UNROLL;
    constexpr int B = RA_ROCBLAS2_BLOCK;
    __shared__ T xs[B];
    __shared__ int last_flag;

    const int t = threadIdx.x;
    const bool vec = !MASKED && (flags & RA_ROCBLAS2_VEC) != 0;
    const int rpt = vec ? V : 1;
    const ra_i64 r0 = (ra_i64)blockIdx.x * B * rpt;
    const ra_i64 r1 = ra_min(r0 + (ra_i64)B * rpt, m);
    ra_i64 j0 = (ra_i64)blockIdx.y * cols_per_split;
    ra_i64 j1 = ra_min(j0 + cols_per_split, n);
    if (MASKED) {
        if (flags & RA_ROCBLAS2_UPPER) j0 = ra_max(j0, r0);  // i <= j needs j >= r0
        else j1 = ra_min(j1, r1);                              // i >= j needs j < r1
    }
    const ra_i64 i0 = r0 + (ra_i64)t * rpt;
    const int cnt = (int)ra_max((ra_i64)0, ra_min((ra_i64)rpt, m - i0));

    T acc[V];
#pragma unroll
    for (int k = 0; k < V; ++k) acc[k] = ra_rocblas2_zero<T>();

    for (ra_i64 c0 = j0; c0 < j1; c0 += B) {
        const int len = (int)ra_min((ra_i64)B, j1 - c0);
        __syncthreads();  // the previous chunk's x is consumed
        if (t < len) xs[t] = x[(c0 + t) * incx];
        __syncthreads();
        if (cnt == 0) continue;
        const T* col = A + i0 + c0 * lda;  // A(i0, c0)
        if (vec && cnt == V) {
            int jj = 0;
            for (; jj + U <= len; jj += U) {
                P a[U];
#pragma unroll
                for (int u = 0; u < U; ++u) a[u] = *(const P*)(col + (ra_i64)(jj + u) * lda);
#pragma unroll
                for (int u = 0; u < U; ++u) {
                    const T xj = xs[jj + u];
#pragma unroll
                    for (int k = 0; k < V; ++k) acc[k] = ra_rocblas2_madd(a[u].v[k], xj, acc[k]);
                }
            }
            for (; jj < len; ++jj) {
                const P a = *(const P*)(col + (ra_i64)jj * lda);
                const T xj = xs[jj];
#pragma unroll
                for (int k = 0; k < V; ++k) acc[k] = ra_rocblas2_madd(a.v[k], xj, acc[k]);
            }
        } else if (!MASKED) {
            int jj = 0;
            for (; jj + U <= len; jj += U) {
                T a[U][V];
#pragma unroll
                for (int u = 0; u < U; ++u)
#pragma unroll
                    for (int k = 0; k < V; ++k)
                        if (k < cnt) a[u][k] = col[k + (ra_i64)(jj + u) * lda];
#pragma unroll
                for (int u = 0; u < U; ++u)
#pragma unroll
                    for (int k = 0; k < V; ++k)
                        if (k < cnt) acc[k] = ra_rocblas2_madd(a[u][k], xs[jj + u], acc[k]);
            }
            for (; jj < len; ++jj) {
#pragma unroll
                for (int k = 0; k < V; ++k)
                    if (k < cnt) acc[k] = ra_rocblas2_madd(col[k + (ra_i64)jj * lda], xs[jj], acc[k]);
            }
        } else {
            // masked: one row per thread (rpt == 1), unreferenced elements are never read
            for (int jj = 0; jj < len; ++jj) {
                T a;
                if (ra_rocblas2_masked(A, lda, i0, c0 + jj, flags, a)) acc[0] = ra_rocblas2_madd(a, xs[jj], acc[0]);
            }
        }
    }

    if (gridDim.y == 1) {
#pragma unroll
        for (int k = 0; k < V; ++k)
            if (k < cnt) ra_rocblas2_finish(y + (i0 + k) * incy, acc[k], alpha, beta);
        return;
    }
    T* partials = (T*)((char*)ws + part_offset);
#pragma unroll
    for (int k = 0; k < V; ++k)
        if (k < cnt) partials[(ra_i64)blockIdx.y * m + i0 + k] = acc[k];
    if (!ra_rocblas2_last_block((unsigned int*)ws + blockIdx.x, gridDim.y, &last_flag)) return;
#pragma unroll
    for (int k = 0; k < V; ++k) {
        if (k < cnt) {
            const T s = ra_rocblas2_sum_splits(partials + i0 + k, m, gridDim.y);
            ra_rocblas2_finish(y + (i0 + k) * incy, s, alpha, beta);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// gemv 'T' / 'C': y_j = alpha * op(sum_i A(i, j) x_i) + beta * y_j
// ---------------------------------------------------------------------------------------------
// Grid: x = groups of RA_ROCBLAS2_TCOLS columns, y = row splits of rows_per_split rows (a multiple
// of BLOCK * 16 / sizeof(T), so packs stay aligned). ws as for gemv_n with partials[gridDim.y * n].
template <typename T, bool MASKED>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS2_BLOCK)
ra_rocblas_gemv_t(ra_i64 m, ra_i64 n, T alpha, const T* A, ra_i64 lda, const T* x, ra_i64 incx,
                  T beta, T* y, ra_i64 incy, int flags, ra_i64 rows_per_split, void* ws,
                  ra_i64 part_offset) {
    typedef ra_rocblas2_pack<T> P;
    constexpr int V = P::N;
    constexpr int B = RA_ROCBLAS2_BLOCK;
    constexpr int WARPS = B / RA_WARP_SIZE;
    constexpr int CPW = RA_ROCBLAS2_TCOLS / WARPS;  // columns per warp
    constexpr int KN = B / RA_WARP_SIZE;            // packs per lane per chunk
    static_assert(RA_ROCBLAS2_TCOLS % WARPS == 0, "columns must split evenly over the warps");
    __shared__ P xsp[B];
    __shared__ int last_flag;
    T* xs = (T*)xsp;

    const int t = threadIdx.x;
    const int lane = ra_lane_id();
    const bool vec = !MASKED && (flags & RA_ROCBLAS2_VEC) != 0;
    const bool conj = (flags & RA_ROCBLAS2_CONJ) != 0;
    const int rpt = vec ? V : 1;
    const ra_i64 chunk = (ra_i64)B * rpt;
    const ra_i64 c0 = (ra_i64)blockIdx.x * RA_ROCBLAS2_TCOLS;
    const ra_i64 cw = c0 + (ra_i64)ra_warp_id() * CPW;  // this warp's first column
    ra_i64 rb = (ra_i64)blockIdx.y * rows_per_split;
    ra_i64 re = ra_min(rb + rows_per_split, m);
    if (MASKED) {
        if (flags & RA_ROCBLAS2_UPPER) re = ra_min(re, c0 + RA_ROCBLAS2_TCOLS);  // i <= j
        else rb = ra_max(rb, c0);                                                 // i >= j
    }
    // Columns past n read column n - 1 (a valid column) and are never written.
    const T* cols[CPW];
#pragma unroll
    for (int q = 0; q < CPW; ++q) cols[q] = A + ra_min(cw + q, n - 1) * lda;

    T acc[CPW];
#pragma unroll
    for (int q = 0; q < CPW; ++q) acc[q] = ra_rocblas2_zero<T>();

    for (ra_i64 r = rb; r < re; r += chunk) {
        const int len = (int)ra_min(chunk, re - r);
        __syncthreads();  // the previous chunk's x is consumed
        for (int e = t; e < len; e += B) {
            const T v = x[(r + e) * incx];
            xs[e] = conj ? ra_rocblas2_conj(v) : v;
        }
        __syncthreads();
        if (vec && len == chunk) {
            P a[KN][CPW];
#pragma unroll
            for (int k = 0; k < KN; ++k)
#pragma unroll
                for (int q = 0; q < CPW; ++q) a[k][q] = ((const P*)(cols[q] + r))[lane + k * RA_WARP_SIZE];
#pragma unroll
            for (int k = 0; k < KN; ++k) {
                const P xv = xsp[lane + k * RA_WARP_SIZE];
#pragma unroll
                for (int q = 0; q < CPW; ++q)
#pragma unroll
                    for (int v = 0; v < V; ++v) acc[q] = ra_rocblas2_madd(a[k][q].v[v], xv.v[v], acc[q]);
            }
        } else if (!MASKED) {
            // element by element (no 16-byte loads, or the last partial chunk)
            for (int e = lane; e < len; e += RA_WARP_SIZE) {
                const T xe = xs[e];
#pragma unroll
                for (int q = 0; q < CPW; ++q) acc[q] = ra_rocblas2_madd(cols[q][r + e], xe, acc[q]);
            }
        } else {
            for (int e = lane; e < len; e += RA_WARP_SIZE) {
                const T xe = xs[e];
#pragma unroll
                for (int q = 0; q < CPW; ++q) {
                    T a;
                    if (cw + q < n && ra_rocblas2_masked(A, lda, r + e, cw + q, flags, a))
                        acc[q] = ra_rocblas2_madd(a, xe, acc[q]);
                }
            }
        }
    }
#pragma unroll
    for (int q = 0; q < CPW; ++q) acc[q] = ra_warp_reduce(acc[q], ra_op_sum());

    if (gridDim.y == 1) {
        if (lane == 0) {
#pragma unroll
            for (int q = 0; q < CPW; ++q) {
                if (cw + q < n) {
                    const T s = conj ? ra_rocblas2_conj(acc[q]) : acc[q];
                    ra_rocblas2_finish(y + (cw + q) * incy, s, alpha, beta);
                }
            }
        }
        return;
    }
    T* partials = (T*)((char*)ws + part_offset);
    if (lane == 0) {
#pragma unroll
        for (int q = 0; q < CPW; ++q)
            if (cw + q < n) partials[(ra_i64)blockIdx.y * n + cw + q] = acc[q];
    }
    if (!ra_rocblas2_last_block((unsigned int*)ws + blockIdx.x, gridDim.y, &last_flag)) return;
    const ra_i64 c = c0 + t;
    if (t < RA_ROCBLAS2_TCOLS && c < n) {
        T s = ra_rocblas2_sum_splits(partials + c, n, gridDim.y);
        if (conj) s = ra_rocblas2_conj(s);
        ra_rocblas2_finish(y + c * incy, s, alpha, beta);
    }
}

// ---------------------------------------------------------------------------------------------
// ger / geru / gerc: A := A + alpha * x * op(y)^T (op = conj with CONJ)
// ---------------------------------------------------------------------------------------------
// Grid: x = row slabs (BLOCK rows, or BLOCK packs with VEC), y = groups of cols_per_block columns
// (grid-stride over the groups). As in the reference BLAS, a column with y_j == 0 is not touched.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS2_BLOCK)
ra_rocblas_ger(ra_i64 m, ra_i64 n, T alpha, const T* x, ra_i64 incx, const T* y, ra_i64 incy, T* A,
               ra_i64 lda, int flags, ra_i64 cols_per_block) {
    typedef ra_rocblas2_pack<T> P;
    constexpr int V = P::N;
    constexpr int B = RA_ROCBLAS2_BLOCK;
    const bool vec = (flags & RA_ROCBLAS2_VEC) != 0;
    const bool conj = (flags & RA_ROCBLAS2_CONJ) != 0;
    const int rpt = vec ? V : 1;
    const ra_i64 i0 = (ra_i64)blockIdx.x * B * rpt + (ra_i64)threadIdx.x * rpt;
    const int cnt = (int)ra_max((ra_i64)0, ra_min((ra_i64)rpt, m - i0));
    if (cnt == 0) return;  // no barrier below
    T xv[V];
#pragma unroll
    for (int k = 0; k < V; ++k) xv[k] = k < cnt ? x[(i0 + k) * incx] : ra_rocblas2_zero<T>();
    for (ra_i64 g = blockIdx.y; g * cols_per_block < n; g += gridDim.y) {
        const ra_i64 j1 = ra_min((g + 1) * cols_per_block, n);
        for (ra_i64 j = g * cols_per_block; j < j1; ++j) {
            T yj = y[j * incy];
            if (ra_rocblas2_is_zero(yj)) continue;
            if (conj) yj = ra_rocblas2_conj(yj);
            const T temp = alpha * yj;
            T* col = A + i0 + j * lda;
            if (vec && cnt == V) {
                P a = *(P*)col;
#pragma unroll
                for (int k = 0; k < V; ++k) a.v[k] = ra_rocblas2_madd(xv[k], temp, a.v[k]);
                *(P*)col = a;
            } else {
#pragma unroll
                for (int k = 0; k < V; ++k)
                    if (k < cnt) col[k] = ra_rocblas2_madd(xv[k], temp, col[k]);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// trsv: one diagonal block, op(A_kk) x_k = b_k, solved in place by one thread block
// ---------------------------------------------------------------------------------------------
// nb <= RA_ROCBLAS2_TRSV_NB rows; A points at the block's A(0, 0), x at its first element. Thread
// i holds x_i; step s solves the next unknown j (forward or backward) and every later row
// subtracts op(A)(i, j) x_j: one barrier per step. The op(A) columns of RA_ROCBLAS2_TRSV_PANEL
// steps are staged in shared memory together (one memory latency per panel, not per step); only
// the referenced triangle is loaded. The off-diagonal updates between blocks are gemv launches
// (see _level2.py).
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS2_BLOCK)
ra_rocblas_trsv_block(ra_i64 nb, const T* A, ra_i64 lda, T* x, ra_i64 incx, int flags) {
    constexpr int PW = RA_ROCBLAS2_TRSV_PANEL;
    constexpr int NB = RA_ROCBLAS2_TRSV_NB;
    static_assert(NB <= RA_ROCBLAS2_BLOCK, "one thread per row of the diagonal block");
    __shared__ T xs[NB];
    __shared__ T panel[PW][NB];
    const int t = threadIdx.x;
    const int n = (int)nb;
    const bool upper = (flags & RA_ROCBLAS2_UPPER) != 0;
    const bool trans = (flags & RA_ROCBLAS2_TRANS) != 0;
    const bool conj = (flags & RA_ROCBLAS2_CONJ) != 0;
    const bool unit = (flags & RA_ROCBLAS2_UNIT) != 0;
    // op(A) is lower triangular (forward substitution) for lower 'N' and upper 'T'/'C'.
    const bool forward = upper == trans;
    const bool mine = t < n;
    T xi = mine ? x[(ra_i64)t * incx] : ra_rocblas2_zero<T>();
    for (int p = 0; p < n; p += PW) {
        const int w = ra_min(PW, n - p);
        __syncthreads();  // the previous panel is consumed
        for (int e = t; e < w * n; e += RA_ROCBLAS2_BLOCK) {
            const int q = e / n, i = e % n;
            const int j = forward ? p + q : n - 1 - (p + q);
            if ((forward ? i > j : i < j) || (i == j && !unit)) {
                T a = trans ? A[(ra_i64)j + (ra_i64)i * lda] : A[(ra_i64)i + (ra_i64)j * lda];
                panel[q][i] = conj ? ra_rocblas2_conj(a) : a;
            }
        }
        __syncthreads();
        for (int q = 0; q < w; ++q) {
            const int j = forward ? p + q : n - 1 - (p + q);
            if (t == j) {
                if (!unit) xi = ra_rocblas2_div(xi, panel[q][j]);
                xs[j] = xi;
            }
            __syncthreads();
            if (mine && (forward ? t > j : t < j)) xi = xi - panel[q][t] * xs[j];
        }
    }
    if (mine) x[(ra_i64)t * incx] = xi;
}

// ---------------------------------------------------------------------------------------------
// trsv in one launch: op(A) x = b, every block-row of the solution by one thread block
// ---------------------------------------------------------------------------------------------
// Solve order: unknown s is row f(s) of A, f(s) = s for a forward substitution (lower 'N', upper
// 'T'/'C'), n - 1 - s for a backward one; in solve order op(A) is lower triangular, and the
// referenced triangle of A is exactly its lower part. Block-row t holds the unknowns
// s in [t * NB, t * NB + NB); the last one may be short.
//  * Tickets, not blockIdx: a block's first act is an atomic ticket (state[0]), and it solves
//    block-row t = ticket. A block only ever waits for block-rows of lower tickets, drawn by blocks
//    that started before it, so the solve completes whatever the scheduler does (no co-residency)
//    and in an emulator that runs blocks one after another. The block drawing the last ticket
//    puts the counter back to 0 for the next launch (every ticket is drawn by then).
//  * Hand-off: the block of block-row k stores x_k, fences, then sets ready[k] = 1. Flags are
//    raised in solve order, so ready[t - 1] set means all of ready[0 .. t-1] are: a block that
//    starts late checks that one first and polls no more. The last block to finish (state[1]
//    counts them; every block is past its waits by then) clears the flags and state[1], state[2]
//    for the next launch: the words need no reset launch and no per-launch number, so a replayed
//    graph of the launch works too.
//  * Products: block t accumulates sum_k op(A)(t, k) x_k over k < t as each x_k becomes ready.
//    Each thread owns one row p of the block-row and NB / G columns q = c + G u of each tile
//    (G = BLOCK / NB groups), loaded so that a warp's loads are contiguous in A: for 'N' lanes
//    run down the rows p (a column of A), for 'T'/'C' the G lanes of one p run down the rows q
//    (a column of A, the block-row of op(A) being a column strip of A). The next tile's loads are
//    issued before the wait for the current one's flag. x_k is read past the non-coherent caches.
//  * Diagonal block: staged in shared memory before any wait with its rows scaled by the
//    diagonal's reciprocals, sl[q][p] = op(A)(p, q) / op(A)(p, p) for q < p (so the unknowns need
//    no multiply of their own). After the last tile the G partial sums of each row are added and
//    warp 0 substitutes: lane l holds the scaled residuals of rows l, l + W, ...; a round takes
//    RA_ROCBLAS2_TRSV_STEP unknowns: their residuals are broadcast by shuffles, every lane solves
//    the round's small triangle itself, and the rows past the round subtract the round's terms.
//    The dependent chain of a round: one shuffle and about STEP fused multiply-adds.
//  * Bounded waits: a wait longer than `limit` clock cycles, or one that sees state[2] set (this
//    launch gave up elsewhere), sets state[2] and state[3] (the host's error word, left set), and
//    the block writes NaN for its unknowns and raises its flag, so later blocks never wait on it.
//    No singularity test: a zero diagonal gives inf/NaN, and values never decide a wait, so NaN
//    or inf input cannot hang the launch.
#define RA_ROCBLAS2_TRSV_STEP 4

RA_DEVICE ra_i64 ra_rocblas2_solve_row(ra_i64 s, ra_i64 n, bool forward) { return forward ? s : n - 1 - s; }

// op(A)(i, j): A(i, j), or A(j, i) with TRANS (conjugated with CONJ)
template <typename T>
RA_DEVICE T ra_rocblas2_op_at(const T* A, ra_i64 lda, ra_i64 i, ra_i64 j, bool trans, bool conj) {
    const T a = trans ? A[j + i * lda] : A[i + j * lda];
    return conj ? ra_rocblas2_conj(a) : a;
}

// 1 / op(A)(i, i), or 1 with a unit diagonal (not read)
template <typename T>
RA_DEVICE T ra_rocblas2_inv_diag(const T* A, ra_i64 lda, ra_i64 i, bool conj, bool unit) {
    const T one = ra_rocblas2_one(T());
    if (unit) return one;
    const T a = A[i + i * lda];
    return ra_rocblas2_div(one, conj ? ra_rocblas2_conj(a) : a);
}

// This thread's E elements of tile (t, k) (row i of A's op, columns c + G u of block-row k), zeros
// where `load` is false.
template <typename T, int NB, int G, int E>
RA_DEVICE void ra_rocblas2_trsv_tile(const T* A, ra_i64 lda, ra_i64 n, bool forward, bool trans, bool conj, bool load,
                                     ra_i64 i, int c, ra_i64 k, T* dst) {
#pragma unroll
    for (int u = 0; u < E; ++u) {
        const ra_i64 j = ra_rocblas2_solve_row(k * NB + c + G * u, n, forward);
        dst[u] = load ? ra_rocblas2_op_at(A, lda, i, j, trans, conj) : ra_rocblas2_zero<T>();
    }
}

template <typename T, int NB>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS2_BLOCK)
ra_rocblas_trsv_one(ra_i64 n, const T* A, ra_i64 lda, T* x, ra_i64 incx, int flags, unsigned* state,
                    unsigned* ready, ra_i64 limit) {
    constexpr int B = RA_ROCBLAS2_BLOCK;
    constexpr int G = B / NB;                              // thread groups over a tile's columns
    constexpr int E = NB / G;                              // elements of a tile per thread
    constexpr int W = RA_WARP_SIZE;
    constexpr int S = (NB + W - 1) / W;                    // rows per lane in the substitution
    constexpr int K = RA_ROCBLAS2_TRSV_STEP;               // unknowns per substitution round
    static_assert(B % NB == 0 && NB % G == 0, "a block-row's tile splits evenly over the block");
    static_assert(NB <= B, "one thread per row of the diagonal block");
    static_assert(W % K == 0 && NB % K == 0, "a round's unknowns lie in one lane slot");
    __shared__ T sl[NB][NB];   // sl[q][p] = op(A)(p, q) / op(A)(p, p) of the diagonal block, solve order, q < p
    __shared__ T red[G][NB];   // the groups' partial sums per row
    __shared__ int s_ticket;
    __shared__ ra_i64 s_known[2];  // by wait round parity: block-rows known ready, -1: gave up

    const int tid = threadIdx.x;
    const bool upper = (flags & RA_ROCBLAS2_UPPER) != 0;
    const bool trans = (flags & RA_ROCBLAS2_TRANS) != 0;
    const bool conj = (flags & RA_ROCBLAS2_CONJ) != 0;
    const bool unit = (flags & RA_ROCBLAS2_UNIT) != 0;
    const bool forward = upper == trans;
    if (tid == 0) {
        const unsigned ticket = ra_atomic_inc_u32(&state[0]);
        if (ticket == gridDim.x - 1u) atomicExch(&state[0], 0u);  // every ticket is drawn
        s_ticket = (int)ticket;
    }
    __syncthreads();
    const ra_i64 t = s_ticket;
    const ra_i64 s0 = t * NB;
    const int nb = (int)ra_min((ra_i64)NB, n - s0);
    // this thread's row p of the block-row and first tile column c (see the comment above)
    const int p = trans ? tid / G : tid % NB;
    const int c = trans ? tid % G : tid / NB;
    const bool has_row = p < nb;
    const ra_i64 i = has_row ? ra_rocblas2_solve_row(s0 + p, n, forward) : 0;
    const int lane = ra_lane_id();

    // warp 0: the right-hand side of its rows and their diagonals' reciprocals, read before
    // anything else (only this block writes these elements of x, at its end)
    T r[S], dinv[S];
#pragma unroll
    for (int s = 0; s < S; ++s) {
        const int q = lane + s * W;
        const bool mine = tid < W && q < nb;
        const ra_i64 iq = mine ? ra_rocblas2_solve_row(s0 + q, n, forward) : 0;
        r[s] = mine ? x[iq * incx] : ra_rocblas2_zero<T>();
        dinv[s] = mine ? ra_rocblas2_inv_diag(A, lda, iq, conj, unit) : ra_rocblas2_one(T());
    }
    // the diagonal block's strict lower part in solve order, rows scaled by their diagonals
    {
        const T dp = has_row ? ra_rocblas2_inv_diag(A, lda, i, conj, unit) : ra_rocblas2_one(T());
#pragma unroll
        for (int u = 0; u < E; ++u) {
            const int q = c + G * u;
            if (has_row && q < p) {
                const T a = ra_rocblas2_op_at(A, lda, i, ra_rocblas2_solve_row(s0 + q, n, forward), trans, conj);
                sl[q][p] = unit ? a : a * dp;
            }
        }
    }

    // sum_k op(A)(t, k) x_k over the block-rows k < t, as they become ready
    T acc = ra_rocblas2_zero<T>();
    T a[E];
    ra_rocblas2_trsv_tile<T, NB, G, E>(A, lda, n, forward, trans, conj, has_row && t > 0, i, c, 0, a);
    bool failed = false;
    ra_i64 known = 0;
    int round = 0;
    for (ra_i64 k = 0; k < t; ++k) {
        if (k >= known) {
            if (tid == 0) {
                const volatile unsigned* vr = ready;
                const volatile unsigned* gave_up = state + 2;
                ra_i64 now = t;
                if (vr[t - 1] == 0u) {  // not all ready: wait for block-row k
                    now = k + 1;
                    const long long start = clock64();
                    while (vr[k] == 0u) {
                        if (*gave_up != 0u || clock64() - start > limit) {
                            atomicExch(&state[2], 1u);
                            atomicExch(&state[3], 1u);
                            now = -1;
                            break;
                        }
                        ra_grid_pause();
                    }
                }
                ra_threadfence();  // the flag before the data it guards
                s_known[round & 1] = now;
            }
            __syncthreads();
            known = s_known[round & 1];
            ++round;
            if (known < 0) {
                failed = true;
                break;
            }
        }
        T next[E];
        ra_rocblas2_trsv_tile<T, NB, G, E>(A, lda, n, forward, trans, conj, has_row && k + 1 < t, i, c, k + 1, next);
        T xv[E];
#pragma unroll
        for (int u = 0; u < E; ++u) {
            const ra_i64 j = ra_rocblas2_solve_row(k * NB + c + G * u, n, forward);
            xv[u] = ra_load_volatile(x + j * incx);
        }
#pragma unroll
        for (int u = 0; u < E; ++u) acc = ra_rocblas2_madd(a[u], xv[u], acc);
#pragma unroll
        for (int u = 0; u < E; ++u) a[u] = next[u];
    }
    red[c][p] = acc;
    __syncthreads();
    if (tid >= W) return;

    // warp 0: the scaled residuals (b - products) / diagonal, then the substitution by rounds
#pragma unroll
    for (int s = 0; s < S; ++s) {
        const int q = lane + s * W;
        if (q < nb) {
#pragma unroll
            for (int g = 0; g < G; ++g) r[s] = r[s] - red[g][q];
            if (!unit) r[s] = r[s] * dinv[s];
        }
    }
#pragma unroll
    for (int s = 0; s < S; ++s) {
        const int j_end = ra_min((s + 1) * W, nb);
        for (int j0 = s * W; j0 < j_end; j0 += K) {
            // the round's unknowns j0 .. j0+K-1 (those past nb stay unsolved: no row below nb uses them)
            T xk[K];
#pragma unroll
            for (int e = 0; e < K; ++e) xk[e] = ra_shfl(r[s], j0 - s * W + e);
#pragma unroll
            for (int e = 1; e < K; ++e)
                if (j0 + e < nb) {
#pragma unroll
                    for (int f = 0; f < e; ++f) xk[e] = xk[e] - sl[j0 + f][j0 + e] * xk[f];
                }
#pragma unroll
            for (int e = 0; e < K; ++e)
                if (lane + s * W == j0 + e) r[s] = xk[e];
#pragma unroll
            for (int s2 = s; s2 < S; ++s2) {
                const int q = lane + s2 * W;
                if (q >= j0 + K && q < nb) {
#pragma unroll
                    for (int e = 0; e < K; ++e) r[s2] = r[s2] - sl[j0 + e][q] * xk[e];
                }
            }
        }
    }
    const T z = ra_rocblas2_zero<T>();
    const T nan = ra_rocblas2_div(z, z);
#pragma unroll
    for (int s = 0; s < S; ++s) {
        const int q = lane + s * W;
        if (q < nb) x[ra_rocblas2_solve_row(s0 + q, n, forward) * incx] = failed ? nan : r[s];
    }
    ra_threadfence();  // this lane's x before the flag
    ra_warp_sync();
    unsigned done = 0u;
    if (lane == 0) {
        *(volatile unsigned*)&ready[t] = 1u;
        ra_threadfence();  // the flag before this block counts as finished
        done = ra_atomic_inc_u32(&state[1]);
    }
    // the last block to finish: every other block is past its waits, so the flags go back to 0
    if (ra_shfl(done, 0) == gridDim.x - 1u) {
        for (ra_i64 k = lane; k < (ra_i64)gridDim.x; k += W) ready[k] = 0u;
        if (lane == 0) {
            state[2] = 0u;
            state[1] = 0u;
        }
    }
}
