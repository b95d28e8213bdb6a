// rocsolver LU: the few kernels the blocked and batched LU drivers need
// (rocarray/rocsolver/_lu.py; everything O(n^3) of a large matrix runs in rocblas gemm/trsm).
//
// Column-major: element (i, j) of a matrix is X[i + j * ld], 64-bit offsets. Matrix b of a batch
// starts strideA elements after matrix b - 1 (its pivots strideP after, its info one after); the
// batch index is blockIdx.x (getf2, getrs_small, diag_zero) or blockIdx.y (laswp). The Python
// layer has checked every bound and handles the quick returns.
//
//  * ra_rocsolver_getf2: unblocked LU with partial pivoting (LAPACK's getf2) of one m x n matrix
//    per block: the whole matrix of a small batched problem, or one tall panel of the recursive
//    blocked LU. Column j: the pivot row p is the first row of largest |re| + |im| among rows
//    j..m-1 (a block reduction of (value, row) pairs, ties to the lower row); ipiv[j] =
//    offset + p + 1; rows j and p are swapped in the block's n columns; a zero pivot records
//    info = offset + j + 1 when info is still 0 and leaves the column unscaled (its entries below
//    are zero as well), as LAPACK does; otherwise the rows below are divided by the pivot and
//    the trailing columns get the rank-1 update. The update spreads the block over rows and, when
//    the matrix has fewer rows than threads, over columns too; the threads that update column
//    j + 1 keep their rows' candidates for the next pivot on the way, so each column costs four
//    barriers (two in the pivot reduction, one after the swap, one after the scaling). A thread
//    takes ROWS of its rows at once so that their loads are in flight together (a tall panel
//    streams from L2). STAGE copies the matrix to shared memory (ld = m) first and back at the
//    end; otherwise it works in global memory (visible within the block across barriers).
//  * ra_rocsolver_getf2_grid: getf2 of one tall m x n panel (n <= 32) by a cooperative launch:
//    block g holds rows g*share .. (g+1)*share-1 in shared memory; per column each block finds
//    its best candidate, publishes (value, row, the row's n values) and, if it owns the
//    diagonal row, that row, in a publication area double-buffered by the column's parity; one
//    grid barrier; then every block reduces the candidates itself (the same pivot, ties to the
//    lower row, NaN never chosen), takes the pivot row and the old diagonal row from the
//    publication area for its part of the interchange, scales and updates its own rows. The
//    same pivots, info and arithmetic as getf2. The barrier is bounded (ra_grid_sync, include/ra_grid.cuh); a
//    failed barrier leaves the flag set and every later launch returns at once.
//  * ra_rocsolver_getf2_rows: getf2 of one m x n panel (n <= 32) by a cooperative launch of
//    ceil(m / blockDim) blocks, a thread per panel row (the row in shared memory, ld blockDim,
//    touched by that thread only: the interchange, scaling and update need no block barrier).
//    Per column: the block's candidate (warp shuffles, the warps' results in shared memory);
//    its value, row index and row, and (from its owner) the diagonal row, written to the
//    block's slot in global memory, a fence, then the block's flag = tag_base + j + 1 (a number
//    no earlier launch on this buffer wrote: no reset); thread t waits for block t's flag and
//    reads that whole slot into shared memory, so every block has all candidates' rows after
//    one round trip; every warp reduces the candidates (the same pivot everywhere). Slots and
//    flags are double-buffered by the column's parity. One block (m <= blockDim) passes the two
//    rows through shared memory without flags. The same pivots, info and arithmetic as getf2;
//    a wait that gives up sets sync[2], as ra_grid_sync does.
//  * ra_rocsolver_getf2_cluster<T, CB, LOOK>: getf2 of one m x n panel (n <= 32) on ONE thread-block
//    cluster of CB blocks (8, the portable size, or 16 where the host opted in; NVIDIA sm_90+,
//    an empty body elsewhere), a thread
//    per panel row holding the row in registers (block g: rows g*blockDim .. (g+1)*blockDim-1).
//    Per column j: the block's candidate (warp shuffles, the warps' results through shared
//    memory, one block barrier, every warp reducing them); its holder writes the candidate's row
//    and the holder of row j that row into the block's own publication, double-buffered by j's
//    parity; ONE cluster barrier; every block reads all blocks' candidates, their rows and row j
//    through distributed shared memory in one round trip into its shared memory; one block
//    barrier; every warp reduces the candidates (the same pivot everywhere), and each thread
//    does its row's part of the interchange, scaling and update in registers (the column loop
//    is not unrolled: registers by compile-time indices under tests of j; rows are published and
//    read back in register order). The double buffer is enough: a block writes column j + 2's
//    publication only after the cluster barrier of column j + 1, which every block reaches after
//    its reads of column j's. With LOOK, column j + 1 is updated, searched and published (its
//    holders finish their rows first) and the barrier's arrival comes before the rest of the
//    update, its wait at the next column's gather. The same pivots, info and arithmetic as getf2.
//    With `left` / `right` > 0, the blocks then apply the panel's interchanges to the columns
//    `other` .. (left of them, then `n` skipped, then right of them; the panel's rows, leading
//    dimension lda), as laswp would: the columns dealt round the blocks, one permutation of the
//    rows the interchanges touch.
//  * ra_rocsolver_laswp: row interchanges k = k1 .. k2-1 (or k2-1 down to k1 with reverse):
//    rows k and ipiv[k] - 1 swapped. Up to 32 interchanges at a time are one permutation of the
//    <= 64 rows they touch: each of 64 row slots finds its destination row (a row k, or a pivot
//    row named first by it) and traces it back through the interchanges to its source row; the
//    slot's threads load their columns' source elements, the block meets at a barrier, and they
//    store them, so no load waits on a store. A block covers RA_ROCSOLVER_LASWP_COLUMNS columns
//    with four column lanes per slot, four columns per thread. Column c of the n is the matrix's
//    column c, or c + gap_count from gap_begin on: the columns on both sides of a panel in one
//    launch.
//  * ra_rocsolver_laswp_plan / ra_rocsolver_laswp_gather: up to RA_ROCSOLVER_LASWP_PLAN_MAX
//    interchanges (forward) as ONE permutation: the plan (a thread a slot, each slot traced back
//    on its own) lists each row that changes and its source row, the gather moves those rows in a
//    tile of columns per block (every load before the barrier, every store after), so a row
//    several interchanges touch moves once.
//  * ra_rocsolver_getrs_small: op(A) X = B for one factored matrix per block (A = P L U from
//    getf2): the pivots applied to B, then a forward and a backward substitution, one barrier
//    per step; threads take (row, right-hand side) pairs. trans = 0 solves L U, 1 U^T L^T,
//    2 U^H L^H (pivots applied after, in reverse). STAGE holds A and B in shared memory.
//  * ra_rocsolver_diag_zero: info = the first i (1-based) with U(i, i) == 0, else 0; one thread
//    per matrix (getri's singularity test).
//  * ra_rocsolver_lu_inv: X := inv(L) for the unit lower triangle L of the nb x nb block at A
//    (nb <= RA_ROCSOLVER_LU_INV_MAX; A's diagonal and upper part are never read), written as the
//    full square of W (ld ldw): zeros above the diagonal, ones on it. One warp per column j of X
//    solves L x = e_j by forward substitution, row r of x in lane r % RA_WARP_SIZE (slot
//    r / RA_WARP_SIZE); step k broadcasts x_k by a shuffle and the lanes of the rows below k
//    subtract L(r, k) x_k. No block barrier: the columns' chains run side by side.

#define RA_ROCSOLVER_LU_MAX_BLOCK 1024
#define RA_ROCSOLVER_LU_ROWS 4   // rows per thread whose loads getf2's update issues together (16-byte types: 2)
#define RA_ROCSOLVER_LU_NO_ROW 0x7fffffff
#define RA_ROCSOLVER_LU_GRID_BLOCK 128  // threads of a device-wide panel's block
#define RA_ROCSOLVER_LU_ROWS_BLOCK 256   // most threads (one panel row each) of a getf2_rows block
#define RA_ROCSOLVER_LU_ROWS_COLUMNS 32  // most columns of a getf2_rows panel (its loops unrolled to this)
#define RA_ROCSOLVER_LU_CLUSTER_BLOCK 512  // most threads (rows) of a getf2_cluster block (16-byte types: half)
#define RA_ROCSOLVER_LU_CLUSTER_COLUMNS 32  // most columns of a getf2_cluster panel (a row in registers)
// laswp: interchanges composed into one permutation, the rows it moves at most, column lanes,
// columns per thread (their loads in flight together), the block and the columns it covers
#define RA_ROCSOLVER_LASWP_CHUNK 32
#define RA_ROCSOLVER_LASWP_SLOTS (2 * RA_ROCSOLVER_LASWP_CHUNK)
#define RA_ROCSOLVER_LASWP_LANES 4
#define RA_ROCSOLVER_LASWP_PER_THREAD 4
#define RA_ROCSOLVER_LASWP_BLOCK (RA_ROCSOLVER_LASWP_SLOTS * RA_ROCSOLVER_LASWP_LANES)
#define RA_ROCSOLVER_LASWP_COLUMNS (RA_ROCSOLVER_LASWP_LANES * RA_ROCSOLVER_LASWP_PER_THREAD)
// laswp_plan / laswp_gather: most interchanges composed at once (the plan's block), slots per
// gather thread (2 x the most interchanges / the block), columns per gather block
#define RA_ROCSOLVER_LASWP_PLAN_MAX 512
#define RA_ROCSOLVER_LASWP_PLAN_BLOCK 64  // slots (threads) of a ra_rocsolver_laswp_plan block
#define RA_ROCSOLVER_LASWP_GATHER_SLOTS (2 * RA_ROCSOLVER_LASWP_PLAN_MAX / RA_ROCSOLVER_LASWP_BLOCK)
#define RA_ROCSOLVER_LASWP_GATHER_COLUMNS 8

template <typename T> struct ra_lu_real { typedef T type; };
template <typename R> struct ra_lu_real<ra_complex<R> > { typedef R type; };

RA_DEVICE float ra_lu_abs1(float a) { return ra_abs(a); }
RA_DEVICE double ra_lu_abs1(double a) { return ra_abs(a); }
template <typename R> RA_DEVICE R ra_lu_abs1(ra_complex<R> a) { return ra_abs(a.re) + ra_abs(a.im); }

RA_DEVICE bool ra_lu_is_zero(float a) { return a == 0.0f; }
RA_DEVICE bool ra_lu_is_zero(double a) { return a == 0.0; }
template <typename R> RA_DEVICE bool ra_lu_is_zero(ra_complex<R> a) { return a.re == R(0) && a.im == R(0); }

RA_DEVICE float ra_lu_conj(float a) { return a; }
RA_DEVICE double ra_lu_conj(double a) { return a; }
template <typename R> RA_DEVICE ra_complex<R> ra_lu_conj(ra_complex<R> a) { return ra_conj(a); }

// c - a * b
RA_DEVICE float ra_lu_fms(float a, float b, float c) { return ra_fma(-a, b, c); }
RA_DEVICE double ra_lu_fms(double a, double b, double c) { return ra_fma(-a, b, c); }
template <typename R> RA_DEVICE ra_complex<R> ra_lu_fms(ra_complex<R> a, ra_complex<R> b, ra_complex<R> c) {
    return ra_make_complex<R>(ra_fma(-a.re, b.re, ra_fma(a.im, b.im, c.re)),
                              ra_fma(-a.re, b.im, ra_fma(-a.im, b.re, c.im)));
}

// a / b; complex by Smith's algorithm (no overflow for moderate magnitudes)
RA_DEVICE float ra_lu_div(float a, float b) { return a / b; }
RA_DEVICE double ra_lu_div(double a, double b) { return a / b; }
template <typename R> RA_DEVICE ra_complex<R> ra_lu_div(ra_complex<R> a, ra_complex<R> b) {
    // explicit fused multiply-adds: every kernel rounds the quotient the same way, whatever
    // the compiler would contract in its context
    if (ra_abs(b.re) >= ra_abs(b.im)) {
        const R r = b.im / b.re, d = ra_fma(b.im, r, b.re);
        return ra_make_complex<R>(ra_fma(a.im, r, a.re) / d, ra_fma(-a.re, r, a.im) / d);
    }
    const R r = b.re / b.im, d = ra_fma(b.re, r, b.im);
    return ra_make_complex<R>(ra_fma(a.re, r, a.im) / d, ra_fma(a.im, r, -a.re) / d);
}

// (v, i) := the better of (v, i) and (v2, i2): larger value, then lower row; NaN never wins
template <typename R> RA_DEVICE void ra_lu_better(R& v, int& i, R v2, int i2) {
    if (v2 > v || (v2 == v && i2 < i)) {
        v = v2;
        i = i2;
    }
}

// The block's best (value, row); every thread returns it. Starts and ends with a barrier's
// worth of ordering: the scratch slots are reused on the next call only after its barriers.
template <typename R> RA_DEVICE int ra_lu_block_argmax(R v, int i, R* sv, int* si, int* result) {
#pragma unroll
    for (int m = RA_WARP_SIZE / 2; m > 0; m >>= 1) ra_lu_better(v, i, ra_shfl_xor(v, m), ra_shfl_xor(i, m));
    const int warps = (int)(blockDim.x / RA_WARP_SIZE);
    if (ra_lane_id() == 0) {
        sv[ra_warp_id()] = v;
        si[ra_warp_id()] = i;
    }
    __syncthreads();
    if (ra_warp_id() == 0) {
        const int lane = ra_lane_id();
        v = lane < warps ? sv[lane] : R(-1);
        i = lane < warps ? si[lane] : RA_ROCSOLVER_LU_NO_ROW;
#pragma unroll
        for (int m = RA_WARP_SIZE / 2; m > 0; m >>= 1) ra_lu_better(v, i, ra_shfl_xor(v, m), ra_shfl_xor(i, m));
        if (lane == 0) *result = i;
    }
    __syncthreads();
    return *result;
}

template <typename T> RA_DEVICE T* ra_lu_shared() {
    extern __shared__ ra_u64 ra_lu_smem[];
    return reinterpret_cast<T*>(ra_align_shared<16>(reinterpret_cast<unsigned char*>(ra_lu_smem)));
}

// dst (rows x cols, ld ldd) := src (ld lds), the block's threads over the elements
template <typename T>
RA_DEVICE void ra_lu_copy(ra_i64 rows, ra_i64 cols, const T* src, ra_i64 lds, T* dst, ra_i64 ldd) {
    const ra_i64 total = rows * cols;
    for (ra_i64 e = threadIdx.x; e < total; e += blockDim.x) {
        const ra_i64 c = e / rows, r = e - c * rows;
        dst[r + c * ldd] = src[r + c * lds];
    }
}

template <typename T, bool STAGE>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSOLVER_LU_MAX_BLOCK) void ra_rocsolver_getf2(
    ra_i64 m, ra_i64 n, T* __restrict__ A, ra_i64 lda, ra_i64 strideA, int* __restrict__ ipiv, ra_i64 strideP,
    int* __restrict__ info, ra_i64 offset) {
    typedef typename ra_lu_real<T>::type R;
    __shared__ R sv[RA_ROCSOLVER_LU_MAX_BLOCK / RA_WARP_SIZE];
    __shared__ int si[RA_ROCSOLVER_LU_MAX_BLOCK / RA_WARP_SIZE];
    __shared__ int spiv;
    const ra_i64 b = blockIdx.x;
    A += b * strideA;
    ipiv += b * strideP;
    info += b;
    T* W = A;
    ra_i64 ldw = lda;
    if (STAGE) {
        W = ra_lu_shared<T>();
        ldw = m;
        ra_lu_copy(m, n, A, lda, W, ldw);
        __syncthreads();
    }
    const ra_i64 tid = threadIdx.x, nt = blockDim.x;
    const ra_i64 k = m < n ? m : n;
    // the update's thread layout: RT row lanes (all rows, rounded up to whole warps, or the
    // whole block) by CT column lanes; threads past RT * CT only join the barriers
    const ra_i64 rows_up = ((m + RA_WARP_SIZE - 1) / RA_WARP_SIZE) * RA_WARP_SIZE;
    const ra_i64 RT = rows_up < nt ? rows_up : nt, CT = nt / RT;
    const ra_i64 tx = tid % RT, ty = tid / RT;
    // within the 64 registers a thread of a 1024-thread block has
    constexpr int ROWS = sizeof(T) > 8 ? RA_ROCSOLVER_LU_ROWS / 2 : RA_ROCSOLVER_LU_ROWS;
    R bv = R(-1);
    int bi = RA_ROCSOLVER_LU_NO_ROW;
    for (ra_i64 i = tid; i < m; i += nt) ra_lu_better(bv, bi, ra_lu_abs1(W[i]), (int)i);
    for (ra_i64 j = 0; j < k; ++j) {
        int p = ra_lu_block_argmax(bv, bi, sv, si, &spiv);
        if (p == RA_ROCSOLVER_LU_NO_ROW) p = (int)j;  // only NaN in the column: keep the row
        if (tid == 0) ipiv[j] = (int)(offset + p + 1);
        if (p != j) {
            for (ra_i64 c = tid; c < n; c += nt) {
                const T t = W[j + c * ldw];
                W[j + c * ldw] = W[p + c * ldw];
                W[p + c * ldw] = t;
            }
        }
        __syncthreads();
        const T piv = W[j + j * ldw];
        const bool zero = ra_lu_is_zero(piv);
        if (tid == 0 && zero && *info == 0) *info = (int)(offset + j + 1);
        if (!zero) {
            for (ra_i64 i = j + 1 + tid; i < m; i += nt) W[i + j * ldw] = ra_lu_div(W[i + j * ldw], piv);
        }
        __syncthreads();
        bv = R(-1);
        bi = RA_ROCSOLVER_LU_NO_ROW;
        if (ty < CT) {
            // ROWS rows at a time, their loads issued together (independent of the stores)
            for (ra_i64 i0 = j + 1 + tx; i0 < m; i0 += RT * ROWS) {
                T l[ROWS];
#pragma unroll
                for (int r = 0; r < ROWS; ++r) {
                    const ra_i64 i = i0 + r * RT;
                    l[r] = i < m ? W[i + j * ldw] : T();
                }
                if (!zero) {
                    for (ra_i64 c = j + 1 + ty; c < n; c += CT) {
                        const T u = W[j + c * ldw];
                        T v[ROWS];
#pragma unroll
                        for (int r = 0; r < ROWS; ++r) {
                            const ra_i64 i = i0 + r * RT;
                            v[r] = i < m ? W[i + c * ldw] : T();
                        }
#pragma unroll
                        for (int r = 0; r < ROWS; ++r) {
                            const ra_i64 i = i0 + r * RT;
                            if (i < m) W[i + c * ldw] = ra_lu_fms(l[r], u, v[r]);
                        }
                    }
                }
                // column j + 1 is this thread's own first column when ty == 0
                if (ty == 0 && j + 1 < n) {
#pragma unroll
                    for (int r = 0; r < ROWS; ++r) {
                        const ra_i64 i = i0 + r * RT;
                        if (i < m) ra_lu_better(bv, bi, ra_lu_abs1(W[i + (j + 1) * ldw]), (int)i);
                    }
                }
            }
        }
    }
    if (STAGE) {
        __syncthreads();
        ra_lu_copy(m, n, W, ldw, A, lda);
    }
}

// ---- the device-wide panel (ra_rocsolver_getf2_grid) ----

template <typename T>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSOLVER_LU_GRID_BLOCK) void ra_rocsolver_getf2_grid(
    ra_i64 m, ra_i64 n, T* __restrict__ A, ra_i64 lda, int* __restrict__ ipiv, int* __restrict__ info,
    ra_i64 offset, ra_i64 share, T* pub_rows, typename ra_lu_real<T>::type* pub_values, int* pub_index,
    unsigned* sync, ra_i64 limit) {
    typedef typename ra_lu_real<T>::type R;
    __shared__ R sv[RA_ROCSOLVER_LU_GRID_BLOCK / RA_WARP_SIZE];
    __shared__ int si[RA_ROCSOLVER_LU_GRID_BLOCK / RA_WARP_SIZE];
    __shared__ int spiv, sflag;
    const ra_i64 G = gridDim.x, g = blockIdx.x;
    const ra_i64 tid = threadIdx.x, nt = blockDim.x;
    // an earlier panel's barrier failed: the whole block returns (one read, shared)
    if (tid == 0) sflag = *(volatile unsigned*)&sync[2] != 0u;
    __syncthreads();
    if (sflag) return;
    const ra_i64 r0 = g * share;
    const ra_i64 rows = m - r0 < share ? (m - r0 > 0 ? m - r0 : 0) : share;  // this block's rows
    T* W = ra_lu_shared<T>();  // rows x n, leading dimension share
    T* su = W + share * n;     // the pivot row (row j after the interchange)
    T* sd = su + n;            // the old row j
    ra_lu_copy(rows, n, A + r0, lda, W, share);
    __syncthreads();
    const ra_i64 k = m < n ? m : n;
    for (ra_i64 j = 0; j < k; ++j) {
        const int q = (int)(j & 1);
        T* cand = pub_rows + (ra_i64)q * (G + 1) * n;  // G candidate rows, then the diagonal row
        // this block's candidate among its rows j .. m-1
        R bv = R(-1);
        int bi = RA_ROCSOLVER_LU_NO_ROW;
        const ra_i64 first = j - r0 > 0 ? j - r0 : 0;
        for (ra_i64 i = first + tid; i < rows; i += nt)
            ra_lu_better(bv, bi, ra_lu_abs1(W[i + j * share]), (int)(r0 + i));
        const int mine = ra_lu_block_argmax(bv, bi, sv, si, &spiv);
        if (tid == 0) {
            pub_values[q * G + g] = mine == RA_ROCSOLVER_LU_NO_ROW ? R(-1) : ra_lu_abs1(W[(mine - r0) + j * share]);
            pub_index[q * G + g] = mine;
        }
        if (mine != RA_ROCSOLVER_LU_NO_ROW)
            for (ra_i64 c = tid; c < n; c += nt) cand[g * n + c] = W[(mine - r0) + c * share];
        if (j >= r0 && j < r0 + rows)
            for (ra_i64 c = tid; c < n; c += nt) cand[G * n + c] = W[(j - r0) + c * share];
        if (!ra_grid_sync(sync, (unsigned)(G * (j + 1)), limit, &sflag)) return;
        // every block reduces the candidates: the same pivot everywhere
        bv = R(-1);
        bi = RA_ROCSOLVER_LU_NO_ROW;
        const volatile R* vv = pub_values + q * G;
        const volatile int* vi = pub_index + q * G;
        for (ra_i64 t = tid; t < G; t += nt) ra_lu_better(bv, bi, (R)vv[t], (int)vi[t]);
        int p = ra_lu_block_argmax(bv, bi, sv, si, &spiv);
        if (p == RA_ROCSOLVER_LU_NO_ROW) p = (int)j;  // only NaN in the column: keep the row
        const volatile T* vc = cand;
        const ra_i64 owner = p == j ? G : p / share;  // the pivot row's publication
        for (ra_i64 c = tid; c < n; c += nt) {
            su[c] = ra_load_volatile(vc + owner * n + c);
            sd[c] = ra_load_volatile(vc + G * n + c);
        }
        if (g == 0 && tid == 0) ipiv[j] = (int)(offset + p + 1);
        __syncthreads();
        // the interchange: row j takes the pivot row, row p the old row j
        if (p != j) {
            if (j >= r0 && j < r0 + rows)
                for (ra_i64 c = tid; c < n; c += nt) W[(j - r0) + c * share] = su[c];
            if (p >= r0 && p < r0 + rows)
                for (ra_i64 c = tid; c < n; c += nt) W[(p - r0) + c * share] = sd[c];
        }
        const T piv = su[j];
        const bool zero = ra_lu_is_zero(piv);
        if (g == 0 && tid == 0 && zero && *info == 0) *info = (int)(offset + j + 1);
        __syncthreads();
        if (!zero) {
            const ra_i64 below = j + 1 - r0 > 0 ? j + 1 - r0 : 0;
            for (ra_i64 i = below + tid; i < rows; i += nt) W[i + j * share] = ra_lu_div(W[i + j * share], piv);
            __syncthreads();
            // the rank-1 update of this block's rows below j, over (row, column) pairs
            const ra_i64 h = rows - below, w = n - j - 1;
            for (ra_i64 e = tid; e < h * w; e += nt) {
                const ra_i64 c = j + 1 + e / h, i = below + e % h;
                W[i + c * share] = ra_lu_fms(W[i + j * share], su[c], W[i + c * share]);
            }
        }
        __syncthreads();
    }
    ra_lu_copy(rows, n, W, share, A + r0, lda);
    // the last block out (every block is past its last barrier) leaves the words zeroed for the
    // next launch
    if (tid == 0 && atomicAdd(&sync[1], 1u) == (unsigned)(G - 1)) {
        atomicExch(&sync[0], 0u);
        atomicExch(&sync[1], 0u);
    }
}

// ---- the device-wide panel with its rows in registers (ra_rocsolver_getf2_rows) ----

// v := the better of v and the candidates sv[0 .. count-1] / si[...], reduced over the warp
// (every lane returns the same pair)
template <typename R> RA_DEVICE void ra_lu_warp_best(R& v, int& i, const R* sv, const int* si, ra_i64 count) {
    for (ra_i64 s = ra_lane_id(); s < count; s += RA_WARP_SIZE) ra_lu_better(v, i, sv[s], si[s]);
#pragma unroll
    for (int m = RA_WARP_SIZE / 2; m > 0; m >>= 1) ra_lu_better(v, i, ra_shfl_xor(v, m), ra_shfl_xor(i, m));
}

template <typename T>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSOLVER_LU_ROWS_BLOCK) void ra_rocsolver_getf2_rows(
    ra_i64 m, ra_i64 n, T* __restrict__ A, ra_i64 lda, int* __restrict__ ipiv, int* __restrict__ info,
    ra_i64 offset, ra_u64* flags, typename ra_lu_real<T>::type* pub_values, int* pub_index, T* pub_rows,
    ra_i64 capacity, ra_i64 tag_base, unsigned* sync, ra_i64 limit) {
    typedef typename ra_lu_real<T>::type R;
    constexpr int NB = RA_ROCSOLVER_LU_ROWS_COLUMNS;
    __shared__ R swv[RA_ROCSOLVER_LU_ROWS_BLOCK / RA_WARP_SIZE];
    __shared__ int swi[RA_ROCSOLVER_LU_ROWS_BLOCK / RA_WARP_SIZE];
    __shared__ int sfail;
    const ra_i64 G = gridDim.x, g = blockIdx.x;
    const ra_i64 tid = threadIdx.x, nt = blockDim.x;
    const int warps = (int)((nt + RA_WARP_SIZE - 1) / RA_WARP_SIZE);
    const float inv_nt = 1.0f / (float)nt;
    // an earlier panel's barrier failed: the whole block returns (one read, shared)
    if (tid == 0) sfail = *(volatile unsigned*)&sync[2] != 0u;
    __syncthreads();
    if (sfail) return;
    T* W = ra_lu_shared<T>();                              // nt x n, ld nt: row tid is this thread's
    T* srow = W + nt * n;                                  // G candidate rows, then the diagonal row
    R* sval = reinterpret_cast<R*>(srow + (G + 1) * n);    // the G candidates' values
    int* sidx = reinterpret_cast<int*>(sval + G);          // and rows
    const ra_i64 r = g * nt + tid;                         // this thread's row of the panel
    const bool valid = r < m;
    T* w = W + tid;                                        // element c of the row at w[c * nt]
    // the row loops are unrolled to NB with a guard, so that their loads are in flight together
#pragma unroll
    for (int c = 0; c < NB; ++c)
        if (c < n) w[c * nt] = valid ? A[r + c * lda] : T();
    const ra_i64 k = m < n ? m : n;
    for (ra_i64 J = 0; J < k; ++J) {
        const int q = (int)(J & 1);
        const ra_u64 tag = (ra_u64)tag_base + (ra_u64)(J + 1);
        // the block's candidate for column J: warp argmax, then the warps' results in shared memory
        R bv = R(-1);
        int bi = RA_ROCSOLVER_LU_NO_ROW;
        if (valid && r >= J) ra_lu_better(bv, bi, ra_lu_abs1(w[J * nt]), (int)r);   // NaN never wins
#pragma unroll
        for (int s = RA_WARP_SIZE / 2; s > 0; s >>= 1) ra_lu_better(bv, bi, ra_shfl_xor(bv, s), ra_shfl_xor(bi, s));
        if (ra_lane_id() == 0) {
            swv[ra_warp_id()] = bv;
            swi[ra_warp_id()] = bi;
        }
        __syncthreads();
        bv = R(-1);
        bi = RA_ROCSOLVER_LU_NO_ROW;
        for (int v = 0; v < warps; ++v) ra_lu_better(bv, bi, swv[v], swi[v]);
        if (G == 1) {
            // one block: the pivot row and the diagonal row pass through shared memory, no flags
            if (valid && r == bi) {
#pragma unroll
                for (int c = 0; c < NB; ++c)
                    if (c < n) srow[c] = w[c * nt];
            }
            if (valid && r == J) {
#pragma unroll
                for (int c = 0; c < NB; ++c)
                    if (c < n) srow[n + c] = w[c * nt];
            }
            __syncthreads();
        } else {
            // publish: the candidate's value, row index and whole row, and (its owner) the diagonal row
            T* slots = pub_rows + (ra_i64)q * (capacity + 1) * n;   // capacity candidate rows, then the diagonal row
            if (tid == 0) {
                pub_values[q * capacity + g] = bv;
                pub_index[q * capacity + g] = bi;
            }
            if (valid && r == bi) {
#pragma unroll
                for (int c = 0; c < NB; ++c)
                    if (c < n) slots[g * n + c] = w[c * nt];
            }
            if (valid && r == J) {
#pragma unroll
                for (int c = 0; c < NB; ++c)
                    if (c < n) slots[capacity * n + c] = w[c * nt];
            }
            __syncthreads();
            if (tid == 0) {
                __threadfence();   // the block's slot data (ordered by the barrier) device-wide before its flag
                *(volatile ra_u64*)&flags[q * capacity + g] = tag;
            }
            // every block's slot: wait for its flag, then read it (value, row index, row; with the
            // diagonal row's owner, the diagonal row) into shared memory
            const ra_i64 owner = J / nt;
            const volatile R* vv = pub_values + q * capacity;
            const volatile int* vi = pub_index + q * capacity;
            bool ok = true;
            for (ra_i64 s = tid; s < G && ok; s += nt) {
                const volatile ra_u64* f = flags + q * capacity + s;
                if (*f != tag) {
                    const long long start = clock64();
                    while (*f != tag) {
                        if (*(volatile unsigned*)&sync[2] != 0u || clock64() - start > limit) {
                            atomicExch(&sync[2], 1u);
                            ok = false;
                            sfail = 1;
                            break;
                        }
                        ra_grid_pause();
                    }
                }
            }
            // the slots' data after their flags: one fence per polling warp, its lanes together
            ra_warp_sync();
            if (ra_warp_id() * RA_WARP_SIZE < G) __threadfence();
            for (ra_i64 s = tid; s < G && ok; s += nt) {
                // every load of the slot issued before the first store to shared memory
                const R value = vv[s];
                const int index = vi[s];
                const volatile T* row = slots + s * n;
                T v[NB];
#pragma unroll
                for (int c = 0; c < NB; ++c)
                    if (c < n) v[c] = ra_load_volatile(row + c);
                sval[s] = value;
                sidx[s] = index;
#pragma unroll
                for (int c = 0; c < NB; ++c)
                    if (c < n) srow[s * n + c] = v[c];
                if (s == owner) {
                    const volatile T* diag = slots + capacity * n;
#pragma unroll
                    for (int c = 0; c < NB; ++c)
                        if (c < n) v[c] = ra_load_volatile(diag + c);
#pragma unroll
                    for (int c = 0; c < NB; ++c)
                        if (c < n) srow[G * n + c] = v[c];
                }
            }
            __syncthreads();
            if (sfail) return;
            // every warp reduces the candidates: the same pivot everywhere, no block barrier
            bv = R(-1);
            bi = RA_ROCSOLVER_LU_NO_ROW;
            ra_lu_warp_best(bv, bi, sval, sidx, G);
        }
        ra_i64 p = bi;
        if (p == RA_ROCSOLVER_LU_NO_ROW) p = J;   // only NaN in the column: keep the row
        if (g == 0 && tid == 0) ipiv[J] = (int)(offset + p + 1);
        const T* su = srow + (p == J ? G : p / nt) * n;   // the pivot row
        const T* sd = srow + G * n;                        // the old row J
        // the interchange: row J takes the pivot row, row p the old row J
        if (p != J && (r == J || r == p)) {
            const T* from = r == J ? su : sd;
#pragma unroll
            for (int c = 0; c < NB; ++c)
                if (c < n) w[c * nt] = from[c];
        }
        const T piv = su[J];
        const bool zero = ra_lu_is_zero(piv);
        if (g == 0 && tid == 0 && zero && *info == 0) *info = (int)(offset + J + 1);
        if (!zero && valid && r > J) {
            const T l = ra_lu_div(w[J * nt], piv);
            w[J * nt] = l;
#pragma unroll
            for (int c = 0; c < NB; ++c)
                if (c > J && c < n) w[c * nt] = ra_lu_fms(l, su[c], w[c * nt]);
        }
    }
    if (valid) {
#pragma unroll
        for (int c = 0; c < NB; ++c)
            if (c < n) A[r + c * lda] = w[c * nt];
    }
}

// Slot `slot` of `count` interchanges k = lo .. lo + count - 1 (rows k and piv[k - lo]), applied
// upwards or (reverse) downwards, as one permutation of the rows they touch: slots 0 .. count-1
// are rows lo .. lo + count - 1, slot half + s (s < count) is pivot row s when it lies outside
// them and no earlier pivot names it (each destination once). `dst` := the slot's row (-1: none),
// `src` := the row whose content ends there (dst traced back through the interchanges, the last
// applied first).
template <typename I>
RA_DEVICE void ra_lu_swap_slot(int slot, int half, int count, ra_i64 lo, const I* piv, bool reverse, ra_i64& dst,
                               ra_i64& src) {
    dst = -1;
    if (slot < count) {
        dst = lo + slot;
    } else if (slot >= half && slot - half < count) {
        const int s = slot - half;
        dst = (ra_i64)piv[s];
        if (dst >= lo && dst < lo + count) dst = -1;
        for (int t = 0; t < s && dst >= 0; ++t)
            if ((ra_i64)piv[t] == dst) dst = -1;
    }
    src = dst;
    if (dst >= 0) {
        for (int t = 0; t < count; ++t) {
            const int s = reverse ? t : count - 1 - t;
            const ra_i64 k = lo + s, p = (ra_i64)piv[s];
            if (src == k) src = p;
            else if (src == p) src = k;
        }
    }
}

// ---- the panel on one thread-block cluster, rows in registers (ra_rocsolver_getf2_cluster) ----

// The cluster's primitives (as qr.hip's, under ra_lu_ names): the cluster barrier (arrive with
// release, wait with acquire: every thread of every block, so it is a block barrier too) and a
// load of element `p` of this block's shared memory as it lies in block `rank`'s shared memory
// (mapa + ld.shared::cluster). NVIDIA sm_90+ only; the kernel emulator (tests/kernel_emu_shim.hpp,
// RA_EMU_CLUSTER) models them for a launch of one cluster. Elsewhere the kernel compiles to an
// empty body and the host never launches it.
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 900
#define RA_LU_CLUSTER 1
#define RA_LU_CLUSTER_LAUNCH_BOUNDS(blocks, threads) __cluster_dims__(blocks, 1, 1) __launch_bounds__(threads)
RA_DEVICE void ra_lu_cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
// its two halves (a thread waits before it arrives again); the token is the emulator's
typedef unsigned long long ra_lu_cluster_token;
RA_DEVICE ra_lu_cluster_token ra_lu_cluster_arrive() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
    return 0;
}
RA_DEVICE void ra_lu_cluster_wait(ra_lu_cluster_token) {
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
// The cluster barrier with one fence a block: a block barrier (its threads' shared-memory writes
// and reads happen before warp 0's fence), warp 0's fence.acq_rel.cluster (cumulative: it orders
// what the block barrier made warp 0 observe), then every thread arrives relaxed and waits with
// acquire. The arrive's release costs a GPU-scope membar and an error barrier in every warp
// (MEMBAR.ALL.GPU; ERRBAR; CGAERRBAR on sm_90); here only warp 0 pays them.
RA_DEVICE void ra_lu_cluster_sync_one_fence() {
    __syncthreads();
    if (ra_warp_id() == 0) asm volatile("fence.acq_rel.cluster;\n" ::: "memory");
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
// the 4-, 8- and 16-byte elements (float and int; double and ra_c64; ra_c128) as whole words
template <int BYTES> struct ra_lu_dsmem;
template <> struct ra_lu_dsmem<4> {
    static RA_DEVICE void load(unsigned a, void* out) {
        unsigned v;
        asm volatile("ld.shared::cluster.b32 %0, [%1];\n" : "=r"(v) : "r"(a) : "memory");
        *reinterpret_cast<unsigned*>(out) = v;
    }
};
template <> struct ra_lu_dsmem<8> {
    static RA_DEVICE void load(unsigned a, void* out) {
        ra_u64 v;
        asm volatile("ld.shared::cluster.b64 %0, [%1];\n" : "=l"(v) : "r"(a) : "memory");
        *reinterpret_cast<ra_u64*>(out) = v;
    }
};
template <> struct ra_lu_dsmem<16> {
    static RA_DEVICE void load(unsigned a, void* out) {
        ra_u64 v0, v1;
        asm volatile("ld.shared::cluster.v2.b64 {%0, %1}, [%2];\n" : "=l"(v0), "=l"(v1) : "r"(a) : "memory");
        reinterpret_cast<ra_u64*>(out)[0] = v0;
        reinterpret_cast<ra_u64*>(out)[1] = v1;
    }
};
template <typename T> RA_DEVICE T ra_lu_cluster_load(const T* p, unsigned rank) {
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
                 : "=r"(remote)
                 : "r"((unsigned)__cvta_generic_to_shared(p)), "r"(rank));
    T v;
    ra_lu_dsmem<(int)sizeof(T)>::load(remote, &v);
    return v;
}
#elif defined(RA_EMU_CLUSTER)
#define RA_LU_CLUSTER 1
#define RA_LU_CLUSTER_LAUNCH_BOUNDS(blocks, threads) __launch_bounds__(threads)
RA_DEVICE void ra_lu_cluster_sync() { emu::cluster_sync(); }
RA_DEVICE void ra_lu_cluster_sync_one_fence() {
    __syncthreads();
    emu::cluster_sync();
}
typedef unsigned long long ra_lu_cluster_token;
RA_DEVICE ra_lu_cluster_token ra_lu_cluster_arrive() { return emu::cluster_arrive(); }
RA_DEVICE void ra_lu_cluster_wait(ra_lu_cluster_token t) { emu::cluster_wait(t); }
template <typename T> RA_DEVICE T ra_lu_cluster_load(const T* p, unsigned rank) {
    return *reinterpret_cast<const T*>(emu::cluster_map(p, rank));
}
#else
#define RA_LU_CLUSTER_LAUNCH_BOUNDS(blocks, threads) __launch_bounds__(threads)
#endif

// (v, i) := the best of the CB candidates sv / si (CB a power of two, at most a warp), in every
// lane: lane l starts from candidate l % CB, so each aligned group of CB lanes holds all of them
// and log2(CB) xor rounds finish (the order is total, larger value then lower row: any order of
// the comparisons gives the same pair)
template <int CB, typename R> RA_DEVICE void ra_lu_group_best(R& v, int& i, const R* sv, const int* si) {
    static_assert((CB & (CB - 1)) == 0 && CB <= RA_WARP_SIZE, "a power-of-two cluster within a warp");
    const int s = ra_lane_id() % CB;
    v = sv[s];
    i = si[s];
#pragma unroll
    for (int m = CB / 2; m > 0; m >>= 1) ra_lu_better(v, i, ra_shfl_xor(v, m), ra_shfl_xor(i, m));
}

// Most threads (panel rows) of a getf2_cluster block: a row of 32 elements lives in registers,
// 32 (float) to 128 (ra_c128) of them, within the registers a thread of such a block may have.
template <typename T> struct ra_lu_cluster_block {
    static constexpr int value = sizeof(T) > 8 ? RA_ROCSOLVER_LU_CLUSTER_BLOCK / 2 : RA_ROCSOLVER_LU_CLUSTER_BLOCK;
};

// p / nt for a row p < 2^24 of a cluster of blocks of nt rows: a float product, then at most
// one step of correction (the integer division's ~25 instructions sit on every column's chain)
RA_DEVICE int ra_lu_cluster_rank(int p, int nt, float inv_nt) {
    int b = (int)((float)p * inv_nt);
    if (b * nt > p) --b;
    else if ((b + 1) * nt <= p) ++b;
    return b;
}

template <typename T, int CB, bool LOOK, bool ONE_FENCE = false>
__global__ RA_LU_CLUSTER_LAUNCH_BOUNDS(CB, (ra_lu_cluster_block<T>::value)) void ra_rocsolver_getf2_cluster(
    ra_i64 m, ra_i64 n, T* __restrict__ A, ra_i64 lda, int* __restrict__ ipiv, int* __restrict__ info,
    ra_i64 offset, T* other, ra_i64 left, ra_i64 right) {
#if defined(RA_LU_CLUSTER)
    typedef typename ra_lu_real<T>::type R;
    constexpr int NB = RA_ROCSOLVER_LU_CLUSTER_COLUMNS;
    constexpr int WARPS = (ra_lu_cluster_block<T>::value + RA_WARP_SIZE - 1) / RA_WARP_SIZE;
    // the publication other blocks read, double-buffered by the column's parity and at the same
    // offset in every block (another block's copy is found by its rank): the block's candidate
    // (value, row) and its row, and (from the block holding row j) row j; rows in register order
    // (column j + c at [c], the same rotation in every block)
    __shared__ R s_pub_v[2];
    __shared__ int s_pub_i[2];
    __shared__ T s_pub_row[2][NB];
    __shared__ T s_pub_diag[2][NB];
    // the warps' candidates; the CB blocks' candidates and their rows and row j, read back (by
    // the column's parity too: with LOOK a thread still reads column j's rows while another
    // thread of its block, past the next cluster barrier, gathers column j + 1's)
    __shared__ R s_wv[WARPS];
    __shared__ int s_wi[WARPS];
    __shared__ R s_cv[2][CB];
    __shared__ int s_ci[2][CB];
    __shared__ T s_rows[2][CB + 1][NB];
    // the pivots (kept by every block's thread 0; block 0 stores them to ipiv after the last
    // column: no global store sits before a column's cluster barrier but a zero pivot's info;
    // keeping info in a register instead spills the double rows' registers)
    __shared__ int s_ipiv[NB];
    // 32-bit row indices: a cluster holds at most 16 x 512 rows (registers are short here)
    const int g = (int)blockIdx.x;  // the grid is one cluster: the block's index is its rank
    const int tid = (int)threadIdx.x, nt = (int)blockDim.x;
    const int r = g * nt + tid;  // this thread's row of the panel (the block's share is nt rows)
    const bool valid = r < m;
    const int ni = (int)n;
    const int warps = (int)((nt + RA_WARP_SIZE - 1) / RA_WARP_SIZE);
    const float inv_nt = 1.0f / (float)nt;
    // The row, in registers, rotated: at column j, register c holds column (c + j) mod NB, so
    // column j is always a[0] and every register index is a constant, while the column loop
    // is not unrolled (one copy of its body: 32 unrolled columns overflow the instruction
    // cache).
    T a[NB];
#pragma unroll
    for (int c = 0; c < NB; ++c) a[c] = (valid && c < ni) ? A[r + c * lda] : T();
    const int k = (int)(m < n ? m : n);
    // Column j's search and publication, on register `at` (0: column j; 1 with LOOK, before the
    // rotation): the block's candidate (warp argmax by shuffles, the warps' results through
    // shared memory, every warp reducing those: the same pair in every thread); `finish` runs
    // in the candidate's and row j's holders before they publish their rows (LOOK: the rest of
    // their update). Returns whether this thread's row is complete.
    auto publish = [&](int j, int at, auto finish) -> bool {
        const int q = j & 1;
        R bv = R(-1);
        int bi = RA_ROCSOLVER_LU_NO_ROW;
        if (valid && r >= j) ra_lu_better(bv, bi, ra_lu_abs1(a[at]), (int)r);  // NaN never wins
#pragma unroll
        for (int s = RA_WARP_SIZE / 2; s > 0; s >>= 1) ra_lu_better(bv, bi, ra_shfl_xor(bv, s), ra_shfl_xor(bi, s));
        if (ra_lane_id() == 0) {
            s_wv[ra_warp_id()] = bv;
            s_wi[ra_warp_id()] = bi;
        }
        __syncthreads();
        bv = R(-1);
        bi = RA_ROCSOLVER_LU_NO_ROW;
        ra_lu_warp_best(bv, bi, s_wv, s_wi, warps);
        if (tid == 0) {
            s_pub_v[q] = bv;
            s_pub_i[q] = bi;
        }
        const bool holder = valid && (r == bi || r == j);
        if (holder) {
            finish();
            // constant offsets: no per-element index arithmetic on this one thread's chain
            if (r == bi) {
#pragma unroll
                for (int c = 0; c < NB; ++c) s_pub_row[q][c] = a[(c + at) % NB];
            }
            if (r == j) {
#pragma unroll
                for (int c = 0; c < NB; ++c) s_pub_diag[q][c] = a[(c + at) % NB];
            }
        }
        return holder;
    };
    // Column j's gather (after the cluster barrier): every block reads all CB candidates and
    // their rows, and row j, in one round trip, then the pivot (the same in every block)
    auto gather = [&](int j) -> int {
        const int q = j & 1;
        const unsigned diag_owner = (unsigned)(j / nt);
        if (tid < CB) {
            s_cv[q][tid] = ra_lu_cluster_load(&s_pub_v[q], (unsigned)tid);
            s_ci[q][tid] = ra_lu_cluster_load(&s_pub_i[q], (unsigned)tid);
        }
        // two elements a thread a round, both loads issued before either store (16 blocks of
        // 512 threads: 544 elements in one round)
        const int total = (CB + 1) * NB, nti = (int)nt;
        for (int e0 = (int)tid; e0 < total; e0 += 2 * nti) {
            T v[2];
            int b[2], c[2];
#pragma unroll
            for (int u = 0; u < 2; ++u) {
                const int e = e0 + u * nti;
                b[u] = e / NB;
                c[u] = e % NB;
                if (e < total)
                    v[u] = b[u] < CB ? ra_lu_cluster_load(&s_pub_row[q][c[u]], (unsigned)b[u])
                                     : ra_lu_cluster_load(&s_pub_diag[q][c[u]], diag_owner);
            }
#pragma unroll
            for (int u = 0; u < 2; ++u)
                if (e0 + u * nti < total) s_rows[q][b[u]][c[u]] = v[u];
        }
        __syncthreads();
        R bv;
        int bi;
        ra_lu_group_best<CB>(bv, bi, s_cv[q], s_ci[q]);
        return bi == RA_ROCSOLVER_LU_NO_ROW ? j : bi;  // only NaN in the column: keep the row
    };
    ra_lu_cluster_token token = 0;
    if (LOOK && k > 0) {
        publish(0, 0, [] {});
        token = ra_lu_cluster_arrive();
    }
#pragma unroll 1
    for (int j = 0; j < k; ++j) {
        const int q = j & 1;
        if (LOOK) {
            ra_lu_cluster_wait(token);
        } else {
            publish(j, 0, [] {});
            if (ONE_FENCE) ra_lu_cluster_sync_one_fence();
            else ra_lu_cluster_sync();
        }
        const int p = gather(j);
        if (tid == 0) s_ipiv[j] = p;
        // the pivot row and the old row j, in register order
        const T* su = s_rows[q][p == j ? CB : ra_lu_cluster_rank(p, nt, inv_nt)];
        const T* sd = s_rows[q][CB];
        // the interchange: row j takes the pivot row, row p the old row j (every register:
        // columns past n hold zeros in every row)
        if (p != j && valid && (r == j || r == p)) {
            const T* from = r == j ? su : sd;
#pragma unroll
            for (int c = 0; c < NB; ++c) a[c] = from[c];
        }
        const T piv = su[0];
        const bool zero = ra_lu_is_zero(piv);
        if (g == 0 && tid == 0 && zero && *info == 0) *info = (int)(offset + j + 1);
        const bool update = !zero && valid && r > j;
        T l = T();
        if (update) {
            l = ra_lu_div(a[0], piv);
            a[0] = l;
        }
        // the update of registers from..NB-1 (columns j + c < n)
        auto rest = [&](int from) {
            if (update) {
#pragma unroll
                for (int c = 1; c < NB; ++c)
                    if (c >= from && c + j < ni) a[c] = ra_lu_fms(l, su[c], a[c]);
            }
        };
        if (LOOK && j + 1 < k) {
            // column j + 1 first, its search and publication (the candidate's and row j + 1's
            // holders finish their rows first), the arrival; the rest of the update runs while
            // the other blocks arrive
            if (update && 1 + j < ni) a[1] = ra_lu_fms(l, su[1], a[1]);
            const bool done = publish(j + 1, 1, [&] { rest(2); });
            token = ra_lu_cluster_arrive();
            if (!done) rest(2);
        } else {
            rest(1);
        }
        // the next column to register 0
        const T first = a[0];
#pragma unroll
        for (int c = 0; c < NB - 1; ++c) a[c] = a[c + 1];
        a[NB - 1] = first;
    }
    if (valid) {
#pragma unroll
        for (int c = 0; c < NB; ++c) {
            const int col = (c + k) & (NB - 1);
            if (col < ni) A[r + (ra_i64)col * lda] = a[c];
        }
    }
    ra_lu_cluster_sync();  // no block leaves while another may still read its publication
    if (g == 0)
        for (int c = tid; c < k; c += nt) ipiv[c] = (int)(offset + s_ipiv[c] + 1);
    // The k interchanges on the `left` columns from `other` and the `right` ones after the n
    // columns that follow them (the same rows), as one permutation of the <= 2k rows they touch
    // (ra_lu_swap_slot): column e of those is dealt to block e % CB; a block's threads are 2 NB
    // row slots by column lanes (a thread of a block narrower than 2 NB takes two slots), each
    // with up to SWAP_COLUMNS columns a round, every load of a round before the block barrier,
    // every store after it. The panel's own columns are not touched, so no block waits for
    // another.
    const ra_i64 others = left + right;
    if (others > 0) {
        constexpr int SLOTS = 2 * NB, SWAP_COLUMNS = 4;
        const int per = nt >= SLOTS ? 1 : 2;                   // slots a thread (blocks have >= NB threads)
        const int lanes = nt >= SLOTS ? nt / SLOTS : 1;        // column lanes a block
        const int lane = nt >= SLOTS ? tid / SLOTS : 0;
        const bool active = lane < lanes && (nt >= SLOTS || tid < NB);
        ra_i64 dst[2], src[2];
#pragma unroll
        for (int u = 0; u < 2; ++u) {
            dst[u] = -1;
            src[u] = -1;
            const int slot = (nt >= SLOTS ? tid % SLOTS : tid) + u * NB;
            if (active && u < per) ra_lu_swap_slot(slot, NB, k, (ra_i64)0, s_ipiv, false, dst[u], src[u]);
        }
        // the block's columns: e = g + CB (lane + lanes i), i = 0, 1, ...
        const ra_i64 mine = others > g ? (others - g + CB - 1) / CB : 0;
        const ra_i64 step = (ra_i64)lanes * SWAP_COLUMNS;
        for (ra_i64 i0 = 0; i0 < mine; i0 += step) {   // the same count of rounds in every thread
            T v[2][SWAP_COLUMNS];
#pragma unroll
            for (int u = 0; u < 2; ++u)
#pragma unroll
                for (int q = 0; q < SWAP_COLUMNS; ++q) {
                    const ra_i64 i = i0 + lane + (ra_i64)lanes * q;
                    if (dst[u] >= 0 && dst[u] != src[u] && i < mine) {
                        const ra_i64 e = g + CB * i;
                        const T* col = other + (e < left ? e : e + n) * lda;
                        v[u][q] = col[src[u]];
                    }
                }
            __syncthreads();   // every element of the round's columns is read before any is written
#pragma unroll
            for (int u = 0; u < 2; ++u)
#pragma unroll
                for (int q = 0; q < SWAP_COLUMNS; ++q) {
                    const ra_i64 i = i0 + lane + (ra_i64)lanes * q;
                    if (dst[u] >= 0 && dst[u] != src[u] && i < mine) {
                        const ra_i64 e = g + CB * i;
                        T* col = other + (e < left ? e : e + n) * lda;
                        col[dst[u]] = v[u][q];
                    }
                }
        }
    }
#endif
}

template <typename T>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSOLVER_LASWP_BLOCK) void ra_rocsolver_laswp(
    ra_i64 n, T* __restrict__ A, ra_i64 lda, ra_i64 strideA, ra_i64 k1, ra_i64 k2, const int* __restrict__ ipiv,
    ra_i64 strideP, int reverse, ra_i64 gap_begin, ra_i64 gap_count) {
    __shared__ ra_i64 spiv[RA_ROCSOLVER_LASWP_CHUNK];
    const ra_i64 b = blockIdx.y;
    A += b * strideA;
    ipiv += b * strideP;
    const int slot = (int)(threadIdx.x % RA_ROCSOLVER_LASWP_SLOTS);
    const int lane = (int)(threadIdx.x / RA_ROCSOLVER_LASWP_SLOTS);
    const ra_i64 c0 = (ra_i64)blockIdx.x * RA_ROCSOLVER_LASWP_COLUMNS + lane;
    const ra_i64 total = k2 - k1;
    for (ra_i64 done = 0; done < total; done += RA_ROCSOLVER_LASWP_CHUNK) {
        const int count = (int)(total - done < RA_ROCSOLVER_LASWP_CHUNK ? total - done : RA_ROCSOLVER_LASWP_CHUNK);
        // the chunk's interchanges are k = lo .. lo + count - 1, applied upwards or downwards
        const ra_i64 lo = reverse ? k2 - done - count : k1 + done;
        __syncthreads();  // the previous chunk's stores and reads of spiv are done
        if (threadIdx.x < (unsigned)count) spiv[threadIdx.x] = (ra_i64)ipiv[lo + threadIdx.x] - 1;
        __syncthreads();
        ra_i64 dst, src;
        ra_lu_swap_slot(slot, RA_ROCSOLVER_LASWP_CHUNK, count, lo, spiv, reverse != 0, dst, src);
        const bool moves = dst >= 0 && src != dst;
        T v[RA_ROCSOLVER_LASWP_PER_THREAD];
#pragma unroll
        for (int q = 0; q < RA_ROCSOLVER_LASWP_PER_THREAD; ++q) {
            const ra_i64 c = c0 + (ra_i64)q * RA_ROCSOLVER_LASWP_LANES;
            if (moves && c < n) v[q] = A[src + (c < gap_begin ? c : c + gap_count) * lda];
        }
        __syncthreads();  // every element of the block's columns is read before any is written
#pragma unroll
        for (int q = 0; q < RA_ROCSOLVER_LASWP_PER_THREAD; ++q) {
            const ra_i64 c = c0 + (ra_i64)q * RA_ROCSOLVER_LASWP_LANES;
            if (moves && c < n) A[dst + (c < gap_begin ? c : c + gap_count) * lda] = v[q];
        }
    }
}

// ---- a long run of interchanges as one permutation (ra_rocsolver_laswp_plan, _gather) ----

// pairs[0 .. 2 count) := destination rows (-1: nothing moves there), pairs[2 count .. 4 count) :=
// their source rows, for the interchanges k = k1 .. k1+count-1 (forward) composed into one
// permutation. Slot i < count is row k1 + i; slot count + s is pivot row s when no earlier pivot
// names it and it is outside k1 .. k1+count-1. A thread a slot, RA_ROCSOLVER_LASWP_PLAN_BLOCK
// slots a block (so the 2 count chains run on several multiprocessors side by side): each block
// holds the pivots as 32-bit offsets from k1 in shared memory, and each thread traces its slot
// back through the interchanges on its own (count steps, every thread of a warp reading the same
// pivot at once). Offsets fit 32 bits: the rows of one factorization are fewer than 2^31.
template <typename T>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSOLVER_LASWP_PLAN_BLOCK) void ra_rocsolver_laswp_plan(
    ra_i64 k1, ra_i64 count, const int* __restrict__ ipiv, ra_i64* __restrict__ pairs) {
    __shared__ int spiv[RA_ROCSOLVER_LASWP_PLAN_MAX];
    const int t = (int)threadIdx.x, nt = (int)blockDim.x, c = (int)count;
    for (int i = t; i < c; i += nt) spiv[i] = (int)((ra_i64)ipiv[k1 + i] - 1 - k1);
    __syncthreads();
    const int i = (int)blockIdx.x * nt + t;
    if (i >= 2 * c) return;
    // the slot's row (an offset from k1) and whether it has one
    bool has = true;
    int dst = i;
    if (i >= c) {
        const int s = i - c;
        dst = spiv[s];
        has = dst < 0 || dst >= c;
        for (int u = 0; u < s && has; ++u) has = spiv[u] != dst;
    }
    int src = dst;
    if (has) {
#pragma unroll 8
        for (int u = c - 1; u >= 0; --u) {
            const int p = spiv[u];
            src = src == u ? p : (src == p ? u : src);
        }
    }
    pairs[i] = has && src != dst ? k1 + dst : -1;
    pairs[2 * count + i] = k1 + src;
}

// A[dst, c] := A[src, c] for the (dst, src) pairs of ra_rocsolver_laswp_plan (dst >= 0) and the
// block's RA_ROCSOLVER_LASWP_GATHER_COLUMNS columns (column c, or c + gap_count from gap_begin
// on): every load before the barrier, every store after it.
template <typename T>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSOLVER_LASWP_BLOCK) void ra_rocsolver_laswp_gather(
    ra_i64 n, T* __restrict__ A, ra_i64 lda, ra_i64 slots, const ra_i64* __restrict__ pairs, ra_i64 gap_begin,
    ra_i64 gap_count) {
    constexpr int S = RA_ROCSOLVER_LASWP_GATHER_SLOTS, C = RA_ROCSOLVER_LASWP_GATHER_COLUMNS;
    const ra_i64 c0 = (ra_i64)blockIdx.x * C;
    ra_i64 dst[S], src[S];
#pragma unroll
    for (int i = 0; i < S; ++i) {
        const ra_i64 s = threadIdx.x + (ra_i64)i * blockDim.x;
        dst[i] = s < slots ? pairs[s] : -1;
        src[i] = s < slots ? pairs[slots + s] : 0;
    }
    T v[S][C];
#pragma unroll
    for (int i = 0; i < S; ++i)
#pragma unroll
        for (int q = 0; q < C; ++q) {
            const ra_i64 c = c0 + q;
            if (dst[i] >= 0 && c < n) v[i][q] = A[src[i] + (c < gap_begin ? c : c + gap_count) * lda];
        }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < S; ++i)
#pragma unroll
        for (int q = 0; q < C; ++q) {
            const ra_i64 c = c0 + q;
            if (dst[i] >= 0 && c < n) A[dst[i] + (c < gap_begin ? c : c + gap_count) * lda] = v[i][q];
        }
}

// element (i, k) of op(A) for the substitutions: A(i, k), A(k, i) or conj(A(k, i))
template <typename T> RA_DEVICE T ra_lu_op(const T* A, ra_i64 ld, ra_i64 i, ra_i64 k, int trans) {
    if (trans == 0) return A[i + k * ld];
    const T a = A[k + i * ld];
    return trans == 2 ? ra_lu_conj(a) : a;
}

// rows k = 0 .. n-1 of B swapped with rows ipiv[k] - 1, forward or in reverse; threads over columns
template <typename T>
RA_DEVICE void ra_lu_pivot_rows(ra_i64 n, ra_i64 nrhs, const int* ipiv, T* B, ra_i64 ldb, bool reverse) {
    for (ra_i64 r = threadIdx.x; r < nrhs; r += blockDim.x) {
        T* col = B + r * ldb;
        for (ra_i64 s = 0; s < n; ++s) {
            const ra_i64 kk = reverse ? n - 1 - s : s;
            const ra_i64 p = (ra_i64)ipiv[kk] - 1;
            if (p != kk) {
                const T t = col[kk];
                col[kk] = col[p];
                col[p] = t;
            }
        }
    }
}

// Solve M X = B in place, M = op(A) restricted to one triangle: lower (forward) or upper
// (backward), unit or not. Step k subtracts M(i, k) x_k from the rows still open; the owner of
// the next row divides it by the diagonal in the same pass, so each step is one barrier.
template <typename T>
RA_DEVICE void ra_lu_substitute(ra_i64 n, ra_i64 nrhs, const T* A, ra_i64 lda, int trans, bool lower, bool unit,
                                T* B, ra_i64 ldb) {
    const ra_i64 tid = threadIdx.x, nt = blockDim.x;
    const ra_i64 first = lower ? 0 : n - 1;
    if (!unit) {
        const T d = ra_lu_op(A, lda, first, first, trans);
        for (ra_i64 r = tid; r < nrhs; r += nt) B[first + r * ldb] = ra_lu_div(B[first + r * ldb], d);
    }
    __syncthreads();
    for (ra_i64 s = 0; s + 1 < n; ++s) {
        const ra_i64 k = lower ? s : n - 1 - s;
        const ra_i64 open = n - 1 - s;               // rows below (lower) or above (upper) row k
        const ra_i64 next = lower ? k + 1 : k - 1;   // the row finished by this step
        const ra_i64 base = lower ? k + 1 : 0;
        const T dnext = unit ? T() : ra_lu_op(A, lda, next, next, trans);
        for (ra_i64 e = tid; e < open * nrhs; e += nt) {
            const ra_i64 r = e / open, i = base + (e - r * open);
            T v = ra_lu_fms(ra_lu_op(A, lda, i, k, trans), B[k + r * ldb], B[i + r * ldb]);
            if (!unit && i == next) v = ra_lu_div(v, dnext);
            B[i + r * ldb] = v;
        }
        __syncthreads();
    }
}

template <typename T, bool STAGE>
__global__ RA_LAUNCH_BOUNDS(RA_ROCSOLVER_LU_MAX_BLOCK) void ra_rocsolver_getrs_small(
    ra_i64 n, ra_i64 nrhs, const T* __restrict__ A, ra_i64 lda, ra_i64 strideA, const int* __restrict__ ipiv,
    ra_i64 strideP, T* __restrict__ B, ra_i64 ldb, ra_i64 strideB, int trans) {
    const ra_i64 b = blockIdx.x;
    A += b * strideA;
    ipiv += b * strideP;
    B += b * strideB;
    const T* M = A;
    ra_i64 ldm = lda;
    T* X = B;
    ra_i64 ldx = ldb;
    if (STAGE) {
        T* s = ra_lu_shared<T>();
        ra_lu_copy(n, n, A, lda, s, n);
        ra_lu_copy(n, nrhs, B, ldb, s + n * n, n);
        M = s;
        ldm = n;
        X = s + n * n;
        ldx = n;
        __syncthreads();
    }
    if (trans == 0) {
        ra_lu_pivot_rows(n, nrhs, ipiv, X, ldx, false);
        __syncthreads();
        ra_lu_substitute(n, nrhs, M, ldm, 0, true, true, X, ldx);     // L (unit lower)
        ra_lu_substitute(n, nrhs, M, ldm, 0, false, false, X, ldx);   // U
    } else {
        ra_lu_substitute(n, nrhs, M, ldm, trans, true, false, X, ldx);  // op(U), lower
        ra_lu_substitute(n, nrhs, M, ldm, trans, false, true, X, ldx);  // op(L), unit upper
        ra_lu_pivot_rows(n, nrhs, ipiv, X, ldx, true);
    }
    if (STAGE) {
        __syncthreads();
        ra_lu_copy(n, nrhs, X, ldx, B, ldb);
    }
}

template <typename T>
__global__ void ra_rocsolver_diag_zero(ra_i64 n, const T* __restrict__ A, ra_i64 lda, ra_i64 strideA,
                                       int* __restrict__ info, ra_i64 batch) {
    const ra_i64 b = (ra_i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    const T* a = A + b * strideA;
    int found = 0;
    for (ra_i64 i = 0; i < n; ++i) {
        if (ra_lu_is_zero(a[i + i * lda])) {
            found = (int)(i + 1);
            break;
        }
    }
    info[b] = found;
}

#define RA_ROCSOLVER_LU_INV_MAX 64
#define RA_ROCSOLVER_LU_INV_SLOTS ((RA_ROCSOLVER_LU_INV_MAX + RA_WARP_SIZE - 1) / RA_WARP_SIZE)

template <typename T> struct ra_lu_unit {
    static RA_DEVICE T one() { return T(1); }
};
template <typename R> struct ra_lu_unit<ra_complex<R> > {
    static RA_DEVICE ra_complex<R> one() { return ra_make_complex<R>(R(1), R(0)); }
};

template <typename T>
__global__ void ra_rocsolver_lu_inv(ra_i64 nb64, const T* __restrict__ A, ra_i64 lda, T* __restrict__ W,
                                    ra_i64 ldw) {
    const int nb = (int)nb64;
    const int lane = (int)(threadIdx.x % RA_WARP_SIZE);
    const int j = (int)(blockIdx.x * (blockDim.x / RA_WARP_SIZE) + threadIdx.x / RA_WARP_SIZE);
    if (j >= nb) return;   // j is the warp's: whole warps leave, the shuffles below see full warps
    const T zero = ra_traits<T>::zero();
    T x[RA_ROCSOLVER_LU_INV_SLOTS];
#pragma unroll
    for (int s = 0; s < RA_ROCSOLVER_LU_INV_SLOTS; ++s)
        x[s] = (lane + s * RA_WARP_SIZE == j) ? ra_lu_unit<T>::one() : zero;
    for (int k = j; k < nb - 1; ++k) {
        T xk = zero;
#pragma unroll
        for (int s = 0; s < RA_ROCSOLVER_LU_INV_SLOTS; ++s)
            if (k / RA_WARP_SIZE == s) xk = ra_shfl(x[s], k % RA_WARP_SIZE);   // k is warp-uniform
        const T* col = A + (ra_i64)k * lda;
#pragma unroll
        for (int s = 0; s < RA_ROCSOLVER_LU_INV_SLOTS; ++s) {
            const int r = lane + s * RA_WARP_SIZE;
            if (r > k && r < nb) x[s] = ra_lu_fms(col[r], xk, x[s]);
        }
    }
#pragma unroll
    for (int s = 0; s < RA_ROCSOLVER_LU_INV_SLOTS; ++s) {
        const int r = lane + s * RA_WARP_SIZE;
        if (r < nb) W[r + (ra_i64)j * ldw] = x[s];
    }
}
