// CSR sparse matrix times dense vector: y = alpha op(A) x + beta y (rocarray.rocsparse.csrmv).
//
// T: float, double, ra_c64, ra_c128 (sums in T); I: int or long long (indptr and indices).
// x and y are strided (incx, incy in elements, either sign). beta_zero != 0 writes y without
// reading it (y may hold NaN). conj != 0 multiplies by conj(A) (the "C" product runs on the CSR
// of the transpose). No kernel adds with atomics: every sum has a fixed order. Kernels:
//   ra_rocsparse_csrmv_stats   row-length statistics of the analysis (max, rows above a threshold)
//   ra_rocsparse_csrmv_blocks  first row of each nnz chunk (the split strategy's row blocks)
//   ra_rocsparse_csrmv_vector  G lanes per row (G = 1: a row per thread), two elements per lane and
//                              step, warp-shuffle reduction
//   ra_rocsparse_csrmv_split   nnz-balanced chunks of RA_SP_CHUNK elements staged in shared
//                              memory; rows inside a chunk finish there, rows crossing a chunk
//                              boundary leave two partial sums per chunk
//   ra_rocsparse_csrmv_fixup   finishes the crossing rows from the partial sums in a fixed order
//   ra_rocsparse_scale         y = beta y (0 when beta_zero)

#define RA_SP_BLOCK 256
#define RA_SP_ITEMS 8
#define RA_SP_CHUNK (RA_SP_BLOCK * RA_SP_ITEMS)

RA_DEVICE float ra_sp_conj_if(float v, int) { return v; }
RA_DEVICE double ra_sp_conj_if(double v, int) { return v; }
template <typename R> RA_DEVICE ra_complex<R> ra_sp_conj_if(ra_complex<R> v, int c) { return c ? ra_conj(v) : v; }

// y[off] = alpha acc + beta y[off]; y is not read when beta_zero.
template <typename T>
RA_DEVICE void ra_sp_store(T* y, ra_i64 off, T acc, T alpha, T beta, int beta_zero) {
    T r = alpha * acc;
    if (!beta_zero) r = r + beta * y[off];
    y[off] = r;
}

template <typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_SP_BLOCK)
ra_rocsparse_csrmv_stats(ra_i64 m, const I* RA_RESTRICT indptr, ra_i64 threshold, ra_u64* out) {
    __shared__ ra_i64 scratch[RA_SP_BLOCK / RA_WARP_SIZE];
    ra_i64 longest = 0, long_rows = 0, long_nnz = 0;
    for (ra_i64 r = ra_global_thread_id(); r < m; r += ra_grid_threads()) {
        const ra_i64 len = (ra_i64)indptr[r + 1] - (ra_i64)indptr[r];
        longest = len > longest ? len : longest;
        if (len > threshold) {
            long_rows += 1;
            long_nnz += len;
        }
    }
    longest = ra_block_reduce<RA_SP_BLOCK>(longest, ra_op_max(), scratch);
    if (threadIdx.x == 0) atomicMax((unsigned long long*)out, (unsigned long long)longest);
    __syncthreads();
    long_rows = ra_block_reduce<RA_SP_BLOCK>(long_rows, ra_op_sum(), scratch);
    if (threadIdx.x == 0) atomicAdd((unsigned long long*)(out + 1), (unsigned long long)long_rows);
    __syncthreads();
    long_nnz = ra_block_reduce<RA_SP_BLOCK>(long_nnz, ra_op_sum(), scratch);
    if (threadIdx.x == 0) atomicAdd((unsigned long long*)(out + 2), (unsigned long long)long_nnz);
}

// starts[b] = the first row r with indptr[r] >= b * RA_SP_CHUNK (b < nblocks), starts[nblocks] = m.
template <typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_SP_BLOCK)
ra_rocsparse_csrmv_blocks(ra_i64 m, const I* RA_RESTRICT indptr, ra_i64 nblocks, ra_i64* starts) {
    for (ra_i64 b = ra_global_thread_id(); b <= nblocks; b += ra_grid_threads()) {
        const ra_i64 target = b * RA_SP_CHUNK;
        ra_i64 lo = 0, hi = m;  // indptr[m] = nnz > target for b < nblocks: the answer is in [0, m]
        while (b < nblocks && lo < hi) {
            const ra_i64 mid = lo + (hi - lo) / 2;
            if ((ra_i64)indptr[mid] < target) lo = mid + 1;
            else hi = mid;
        }
        starts[b] = b < nblocks ? lo : m;
    }
}

// G lanes per row (G > RA_WARP_SIZE runs as a whole warp). The row loop steps a warp's rows
// together, so every lane of a warp reaches the shuffles.
template <typename T, typename I, int G>
__global__ void RA_LAUNCH_BOUNDS(RA_SP_BLOCK)
ra_rocsparse_csrmv_vector(ra_i64 m, const I* RA_RESTRICT indptr, const I* RA_RESTRICT indices,
                          const T* RA_RESTRICT data, const T* RA_RESTRICT x, ra_i64 incx, T* y, ra_i64 incy,
                          T alpha, T beta, int beta_zero, int conj) {
    constexpr int L = G < RA_WARP_SIZE ? G : RA_WARP_SIZE;
    constexpr int ROWS_PER_WARP = RA_WARP_SIZE / L;
    const int lane = (int)(threadIdx.x % L);
    const int sub = (int)((threadIdx.x % RA_WARP_SIZE) / L);
    const ra_i64 warp = ra_global_thread_id() / RA_WARP_SIZE;
    const ra_i64 warps = ra_grid_threads() / RA_WARP_SIZE;
    for (ra_i64 base = warp * ROWS_PER_WARP; base < m; base += warps * ROWS_PER_WARP) {
        const ra_i64 row = base + sub;
        T acc = ra_traits<T>::zero();
        if (row < m) {
            const ra_i64 end = (ra_i64)indptr[row + 1];
            // two elements per lane and step, both gathers in flight before either is used
            for (ra_i64 k = (ra_i64)indptr[row] + lane; k < end; k += 2 * L) {
                const ra_i64 k2 = k + L;
                const bool two = k2 < end;
                const ra_i64 c0 = (ra_i64)indices[k];
                const ra_i64 c1 = two ? (ra_i64)indices[k2] : c0;
                const T v0 = data[k];
                const T v1 = two ? data[k2] : ra_traits<T>::zero();
                const T x0 = x[c0 * incx];
                const T x1 = two ? x[c1 * incx] : ra_traits<T>::zero();
                acc = acc + ra_sp_conj_if(v0, conj) * x0;
                if (two) acc = acc + ra_sp_conj_if(v1, conj) * x1;
            }
        }
#pragma unroll
        for (int o = L / 2; o > 0; o >>= 1) acc = acc + ra_shfl_xor(acc, o);
        if (lane == 0 && row < m) ra_sp_store(y, row * incy, acc, alpha, beta, beta_zero);
    }
}

// Sum of products [s, e) of the staged chunk over the whole block; valid in thread 0. Ends with
// a barrier so the caller may reuse scratch.
template <typename T>
RA_DEVICE T ra_sp_block_sum(const T* prod, ra_i64 s, ra_i64 e, T* scratch) {
    T v = ra_traits<T>::zero();
    for (ra_i64 k = s + threadIdx.x; k < e; k += RA_SP_BLOCK) v = v + prod[k];
    v = ra_block_reduce<RA_SP_BLOCK>(v, ra_op_sum(), scratch);
    __syncthreads();
    return v;
}

// Block b takes elements [lo, hi) = [b CHUNK, min((b + 1) CHUNK, nnz)) and the rows starting there
// (starts[b] .. starts[b + 1] - 1). The row crossing lo (the "head", started in an earlier block)
// leaves its part here in partials[2 b]; the last row starting here, when it crosses hi (the
// "tail"), leaves its part in partials[2 b + 1]; both are 0 when absent. Every other row starting
// here ends here and is written to y (load-balanced like CSR-stream, Greathouse & Daga 2014, on
// an nnz split like merge-path's, Merrill & Garland 2016).
template <typename T, typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_SP_BLOCK)
ra_rocsparse_csrmv_split(ra_i64 m, ra_i64 nnz, const I* RA_RESTRICT indptr, const I* RA_RESTRICT indices,
                         const T* RA_RESTRICT data, const ra_i64* RA_RESTRICT starts, const T* RA_RESTRICT x,
                         ra_i64 incx, T* y, ra_i64 incy, T alpha, T beta, int beta_zero, int conj, T* partials) {
    __shared__ T prod[RA_SP_CHUNK];
    __shared__ T scratch[RA_SP_BLOCK / RA_WARP_SIZE];
    const ra_i64 b = blockIdx.x;
    const ra_i64 lo = b * RA_SP_CHUNK;
    const ra_i64 hi = lo + RA_SP_CHUNK < nnz ? lo + RA_SP_CHUNK : nnz;
    const ra_i64 r0 = starts[b], r1 = starts[b + 1];
    // All of a thread's loads are issued before any product is formed: RA_SP_ITEMS coalesced
    // index and value loads, then RA_SP_ITEMS independent gathers of x.
    ra_i64 col[RA_SP_ITEMS];
    T val[RA_SP_ITEMS], xv[RA_SP_ITEMS];
#pragma unroll
    for (int i = 0; i < RA_SP_ITEMS; ++i) {
        const ra_i64 k = lo + i * RA_SP_BLOCK + threadIdx.x;
        col[i] = k < hi ? (ra_i64)indices[k] : -1;
        val[i] = k < hi ? data[k] : ra_traits<T>::zero();
    }
#pragma unroll
    for (int i = 0; i < RA_SP_ITEMS; ++i) xv[i] = col[i] >= 0 ? x[col[i] * incx] : ra_traits<T>::zero();
#pragma unroll
    for (int i = 0; i < RA_SP_ITEMS; ++i) {
        const int k = i * RA_SP_BLOCK + (int)threadIdx.x;
        if (lo + k < hi) prod[k] = ra_sp_conj_if(val[i], conj) * xv[i];
    }
    __syncthreads();

    // head: row r0 - 1 when it has elements at lo
    const ra_i64 head_end = r0 > 0 ? (ra_i64)indptr[r0] : lo;
    const bool has_head = head_end > lo;
    T head = ra_sp_block_sum(prod, 0, has_head ? (head_end < hi ? head_end : hi) - lo : 0, scratch);
    if (threadIdx.x == 0) partials[2 * b] = head;

    // tail: the last row starting here, when it runs past hi
    const bool has_tail = r1 > r0 && (ra_i64)indptr[r1] > hi;
    T tail = ra_sp_block_sum(prod, has_tail ? (ra_i64)indptr[r1 - 1] - lo : 0, has_tail ? hi - lo : 0, scratch);
    if (threadIdx.x == 0) partials[2 * b + 1] = tail;

    // the rows that start and end here: G lanes per row, G near their mean length
    const ra_i64 rend = has_tail ? r1 - 1 : r1;
    const ra_i64 rows = rend - r0;
    if (rows <= 0) return;  // block-uniform
    // they cover [indptr[r0], indptr[rend]) and indptr[rend] is the tail's start or hi
    const ra_i64 mean = ((has_tail ? (ra_i64)indptr[r1 - 1] : hi) - (ra_i64)indptr[r0]) / rows;
    int g = 1;
    while (g < RA_WARP_SIZE && 2 * g <= mean) g *= 2;
    const int lane = (int)(threadIdx.x % g);
    const ra_i64 per_round = RA_SP_BLOCK / g;
    for (ra_i64 base = r0; base < rend; base += per_round) {
        const ra_i64 row = base + threadIdx.x / g;
        T acc = ra_traits<T>::zero();
        if (row < rend) {
            const ra_i64 e = (ra_i64)indptr[row + 1] - lo;
            for (ra_i64 k = (ra_i64)indptr[row] - lo + lane; k < e; k += g) acc = acc + prod[k];
        }
        for (int o = g / 2; o > 0; o >>= 1) acc = acc + ra_shfl_xor(acc, o);
        if (lane == 0 && row < rend) ra_sp_store(y, row * incy, acc, alpha, beta, beta_zero);
    }
}

// One thread per block b of the split launch: when b's head row R ends in b, y[R] := alpha (tail of
// the block R starts in + heads of the blocks after it up to b) + beta y[R].
template <typename T, typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_SP_BLOCK)
ra_rocsparse_csrmv_fixup(ra_i64 nnz, ra_i64 nblocks, const I* RA_RESTRICT indptr, const ra_i64* RA_RESTRICT starts,
                         const T* RA_RESTRICT partials, T* y, ra_i64 incy, T alpha, T beta, int beta_zero) {
    for (ra_i64 b = ra_global_thread_id(); b < nblocks; b += ra_grid_threads()) {
        const ra_i64 lo = b * RA_SP_CHUNK;
        const ra_i64 hi = lo + RA_SP_CHUNK < nnz ? lo + RA_SP_CHUNK : nnz;
        const ra_i64 r0 = starts[b];
        if (r0 == 0) continue;
        const ra_i64 end = (ra_i64)indptr[r0];
        if (end <= lo || end > hi) continue;  // no head row, or it goes on past this block
        const ra_i64 first = (ra_i64)indptr[r0 - 1] / RA_SP_CHUNK;
        T acc = partials[2 * first + 1];
        for (ra_i64 k = first + 1; k <= b; ++k) acc = acc + partials[2 * k];
        ra_sp_store(y, (r0 - 1) * incy, acc, alpha, beta, beta_zero);
    }
}

template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_SP_BLOCK)
ra_rocsparse_scale(ra_i64 n, T* y, ra_i64 incy, T beta, int beta_zero) {
    for (ra_i64 i = ra_global_thread_id(); i < n; i += ra_grid_threads())
        y[i * incy] = beta_zero ? ra_traits<T>::zero() : beta * y[i * incy];
}
