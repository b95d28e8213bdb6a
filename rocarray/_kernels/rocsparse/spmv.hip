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
//                              memory with their rows' pointers; rows inside a chunk finish
//                              there, rows crossing a chunk boundary leave two partial sums per
//                              chunk
//   ra_rocsparse_csrmv_fixup   a warp per chunk: finishes the crossing row that ends there from
//                              its partial sums in a fixed order
//   ra_rocsparse_scale         y = beta y (0 when beta_zero)

#define RA_SP_BLOCK 256
#define RA_SP_ITEMS 8
#define RA_SP_CHUNK (RA_SP_BLOCK * RA_SP_ITEMS)
#define RA_SP_ROWS RA_SP_CHUNK

RA_DEVICE float ra_sp_conj_if(float v, int) { return v; }
RA_DEVICE double ra_sp_conj_if(double v, int) { return v; }
template <typename R> RA_DEVICE ra_complex<R> ra_sp_conj_if(ra_complex<R> v, int c) { return c ? ra_conj(v) : v; }

// A load of an element read once (the split kernel's values and indices): on NVIDIA sm_70+ a
// streaming load (ld.global.cs: evict-first in L1 and L2), so the stream does not push the gathered
// x out of L2. Elsewhere a plain load. Types of 4, 8 or 16 bytes, naturally aligned.
template <int BYTES> struct ra_sp_stream;
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 700
template <> struct ra_sp_stream<4> {
    template <typename T> static RA_DEVICE T load(const T* p) {
        unsigned w;
        asm("ld.global.cs.b32 %0, [%1];" : "=r"(w) : "l"(p));
        T r;
        *reinterpret_cast<unsigned*>(&r) = w;
        return r;
    }
};
template <> struct ra_sp_stream<8> {
    template <typename T> static RA_DEVICE T load(const T* p) {
        ra_u64 w;
        asm("ld.global.cs.b64 %0, [%1];" : "=l"(w) : "l"(p));
        T r;
        *reinterpret_cast<ra_u64*>(&r) = w;
        return r;
    }
};
template <> struct ra_sp_stream<16> {
    template <typename T> static RA_DEVICE T load(const T* p) {
        ra_u64 w0, w1;
        asm("ld.global.cs.v2.b64 {%0, %1}, [%2];" : "=l"(w0), "=l"(w1) : "l"(p));
        T r;
        ra_u64* q = reinterpret_cast<ra_u64*>(&r);
        q[0] = w0;
        q[1] = w1;
        return r;
    }
};
template <typename T> RA_DEVICE T ra_sp_load_stream(const T* p) { return ra_sp_stream<(int)sizeof(T)>::load(p); }
#else
template <typename T> RA_DEVICE T ra_sp_load_stream(const T* p) { return *p; }
#endif

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

// Block b takes elements [lo, hi) = [b CHUNK, min((b + 1) CHUNK, nnz)) and the rows starting there
// (starts[b] .. starts[b + 1] - 1). The row crossing lo (the "head", started in an earlier block)
// leaves its part here in partials[2 b]; the last row starting here, when it crosses hi (the
// "tail"), leaves its part in partials[2 b + 1]; both are 0 when absent. Every other row starting
// here ends here and is written to y (load-balanced like CSR-stream, Greathouse & Daga 2014, on
// an nnz split like merge-path's, Merrill & Garland 2016).
//
// Phase 1 issues every global load before any product: RA_SP_ITEMS coalesced streaming index and
// value loads per thread, RA_SP_ITEMS independent gathers of x, then the row pointers of the rows
// starting here (staged in shared memory as offsets into the chunk, clamped to its end). The head
// and tail sums come from the products still in registers (a fixed-order warp and block
// reduction); the other rows are summed from the staged products with G lanes per row, G near
// their mean length, reading only shared memory. More than RA_SP_ROWS rows starting here (empty
// rows) run as several tiles.
template <typename T, typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_SP_BLOCK)
ra_rocsparse_csrmv_split(ra_i64 m, ra_i64 nnz, const I* RA_RESTRICT indptr, const I* RA_RESTRICT indices,
                         const T* RA_RESTRICT data, const ra_i64* RA_RESTRICT starts, const T* RA_RESTRICT x,
                         ra_i64 incx, T* y, ra_i64 incy, T alpha, T beta, int beta_zero, int conj, T* partials) {
    constexpr int WARPS = RA_SP_BLOCK / RA_WARP_SIZE;
    __shared__ T prod[RA_SP_CHUNK];
    __shared__ int rel[RA_SP_ROWS + 1];  // indptr[t + j] - lo, clamped to the chunk's length
    __shared__ T scratch[2 * WARPS];
    const ra_i64 b = blockIdx.x;
    const ra_i64 lo = b * RA_SP_CHUNK;
    const ra_i64 hi = lo + RA_SP_CHUNK < nnz ? lo + RA_SP_CHUNK : nnz;
    const int len = (int)(hi - lo);
    const ra_i64 r0 = starts[b], r1 = starts[b + 1];

    // col/val/p are indexed only inside fully unrolled loops: they stay in registers.
    I col[RA_SP_ITEMS];
    T val[RA_SP_ITEMS];
#pragma unroll
    for (int i = 0; i < RA_SP_ITEMS; ++i) {
        const int k = i * RA_SP_BLOCK + (int)threadIdx.x;
        col[i] = k < len ? ra_sp_load_stream(indices + lo + k) : (I)0;
        val[i] = k < len ? ra_sp_load_stream(data + lo + k) : ra_traits<T>::zero();
    }
    // the gathers go out before anything waits on a load of a row pointer
    T p[RA_SP_ITEMS];
#pragma unroll
    for (int i = 0; i < RA_SP_ITEMS; ++i) {
        const int k = i * RA_SP_BLOCK + (int)threadIdx.x;
        p[i] = k < len ? x[(ra_i64)col[i] * incx] : ra_traits<T>::zero();
    }
    // head: [0, head_hi); tail: [tail_lo, len) of the row r1 - 1 when it runs past hi (no branch
    // on a loaded value: indptr[r1 - 1] is read whenever r1 > 0, used only when rows start here)
    const ra_i64 p0 = (ra_i64)indptr[r0];
    const ra_i64 p1 = (ra_i64)indptr[r1];
    const ra_i64 pt = (ra_i64)indptr[r1 > 0 ? r1 - 1 : 0];
    const int head_hi = r0 > 0 ? (int)((p0 < hi ? p0 : hi) - lo) : 0;
    const bool has_tail = (r1 > r0) & (p1 > hi);
    const int tail_lo = has_tail ? (int)(pt - lo) : len;
    // the first tile of row pointers: rows r0 .. min(r1, r0 + RA_SP_ROWS) (r1 <= m)
    const ra_i64 first_tile = r1 - r0 < RA_SP_ROWS ? r1 - r0 : RA_SP_ROWS;
    for (ra_i64 j = threadIdx.x; j <= first_tile; j += RA_SP_BLOCK) {
        const ra_i64 q = (ra_i64)indptr[r0 + j];
        rel[j] = (int)((q < hi ? q : hi) - lo);
    }
    T head = ra_traits<T>::zero(), tail = ra_traits<T>::zero();
#pragma unroll
    for (int i = 0; i < RA_SP_ITEMS; ++i) {
        const int k = i * RA_SP_BLOCK + (int)threadIdx.x;
        p[i] = ra_sp_conj_if(val[i], conj) * p[i];
        if (k < len) prod[k] = p[i];
        if (k < head_hi) head = head + p[i];
        if (k >= tail_lo && k < len) tail = tail + p[i];
    }
#pragma unroll
    for (int o = RA_WARP_SIZE / 2; o > 0; o >>= 1) {
        head = head + ra_shfl_xor(head, o);
        tail = tail + ra_shfl_xor(tail, o);
    }
    const int warp = (int)(threadIdx.x / RA_WARP_SIZE);
    if (ra_lane_id() == 0) {
        scratch[warp] = head;
        scratch[WARPS + warp] = tail;
    }
    __syncthreads();  // prod, rel and scratch are complete
    if (threadIdx.x == 0) {
        T h = scratch[0], t = scratch[WARPS];
        for (int w = 1; w < WARPS; ++w) {
            h = h + scratch[w];
            t = t + scratch[WARPS + w];
        }
        partials[2 * b] = h;
        partials[2 * b + 1] = t;
    }

    // the rows that start and end here: [r0, rend), covering [head_hi, tail_lo) of the chunk
    const ra_i64 rend = has_tail ? r1 - 1 : r1;
    const ra_i64 rows = rend - r0;
    if (rows <= 0) return;  // block-uniform
    const ra_i64 mean = (ra_i64)(tail_lo - head_hi) / rows;
    int g = 1;
    while (g < RA_WARP_SIZE && 2 * g <= mean) g *= 2;
    const int lane = (int)(threadIdx.x % g);
    const int per_round = RA_SP_BLOCK / g;
    for (ra_i64 t = r0; t < rend; t += RA_SP_ROWS) {  // block-uniform
        if (t != r0) {
            __syncthreads();  // every thread is done with the previous tile
            const ra_i64 tile = r1 - t < RA_SP_ROWS ? r1 - t : RA_SP_ROWS;
            for (ra_i64 j = threadIdx.x; j <= tile; j += RA_SP_BLOCK) {
                const ra_i64 q = (ra_i64)indptr[t + j];
                rel[j] = (int)((q < hi ? q : hi) - lo);
            }
            __syncthreads();
        }
        const int tile_rows = (int)(rend - t < RA_SP_ROWS ? rend - t : RA_SP_ROWS);
        for (int base = 0; base < tile_rows; base += per_round) {
            const int j = base + (int)threadIdx.x / g;
            T acc = ra_traits<T>::zero();
            if (j < tile_rows) {
                const int e = rel[j + 1];
                for (int k = rel[j] + lane; k < e; k += g) acc = acc + prod[k];
            }
            for (int o = g / 2; o > 0; o >>= 1) acc = acc + ra_shfl_xor(acc, o);
            if (lane == 0 && j < tile_rows) ra_sp_store(y, (t + j) * incy, acc, alpha, beta, beta_zero);
        }
    }
}

// One warp per block b of the split launch: when b's head row R ends in b, y[R] := alpha (tail of
// the block R starts in + heads of the blocks after it up to b) + beta y[R], the partials summed
// lane-strided and reduced across the warp in a fixed order.
template <typename T, typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_SP_BLOCK)
ra_rocsparse_csrmv_fixup(ra_i64 nnz, ra_i64 nblocks, const I* RA_RESTRICT indptr, const ra_i64* RA_RESTRICT starts,
                         const T* RA_RESTRICT partials, T* y, ra_i64 incy, T alpha, T beta, int beta_zero) {
    const int lane = ra_lane_id();
    const ra_i64 warps = ra_grid_threads() / RA_WARP_SIZE;
    for (ra_i64 b = ra_global_thread_id() / RA_WARP_SIZE; b < nblocks; b += warps) {  // warp-uniform
        const ra_i64 lo = b * RA_SP_CHUNK;
        const ra_i64 hi = lo + RA_SP_CHUNK < nnz ? lo + RA_SP_CHUNK : nnz;
        const ra_i64 r0 = starts[b];
        if (r0 == 0) continue;
        const ra_i64 end = (ra_i64)indptr[r0];
        if (end <= lo || end > hi) continue;  // no head row, or it goes on past this block
        const ra_i64 first = (ra_i64)indptr[r0 - 1] / RA_SP_CHUNK;
        T acc = ra_traits<T>::zero();
        for (ra_i64 k = first + lane; k <= b; k += RA_WARP_SIZE)
            acc = acc + partials[k == first ? 2 * k + 1 : 2 * k];
#pragma unroll
        for (int o = RA_WARP_SIZE / 2; o > 0; o >>= 1) acc = acc + ra_shfl_xor(acc, o);
        if (lane == 0) ra_sp_store(y, (r0 - 1) * incy, acc, alpha, beta, beta_zero);
    }
}

template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_SP_BLOCK)
ra_rocsparse_scale(ra_i64 n, T* y, ra_i64 incy, T beta, int beta_zero) {
    for (ra_i64 i = ra_global_thread_id(); i < n; i += ra_grid_threads())
        y[i * incy] = beta_zero ? ra_traits<T>::zero() : beta * y[i * incy];
}
