// rocsparse formats: the conversion steps that rocarray.prim has no primitive for.
//
// Kernels run blocks of RA_ROCSPARSE_CONVERT_BLOCK threads with 64-bit indices, and the host
// launches about one wave of blocks: the row expansion and the CSR check over tiles of the merge
// path (below), the others as grid-stride loops over their work items. Sums run in the
// storage type in element order (as SciPy's loops do): complex through the prelude's operator+,
// bool as logical or (bool + bool converts back to bool), integers wrap.

#define RA_ROCSPARSE_CONVERT_BLOCK 256

// The row of every element, and the CSR structure check, walk the merge path of the matrix
// (Merrill & Garland, "Merge-based parallel sparse matrix-vector multiplication", SC 2016): the
// merge of the m row ends indptr[1..m] with the element indices 0..nnz-1, in which row end r comes
// before element k iff indptr[r + 1] <= k. Tile t is the merge items [t * TILE, (t + 1) * TILE),
// so every tile holds at most TILE rows plus elements whatever the structure (long rows, runs of
// empty rows): the work is balanced and each row pointer and element is read once. A block takes
// a contiguous run of tiles; its threads find the splits of up to BLOCK - 1 tiles at once (one
// global binary search each), then per tile it stages the tile's row pointers in shared memory
// and each thread walks ITEMS merge items from its own split (a binary search in shared memory).
#define RA_ROCSPARSE_CONVERT_ITEMS 8
#define RA_ROCSPARSE_CONVERT_TILE (RA_ROCSPARSE_CONVERT_BLOCK * RA_ROCSPARSE_CONVERT_ITEMS)

// The number of row ends among the first d items of the merge of row ends ends[0..rows) with the
// elements base .. base + elements - 1 (row end r before element k iff ends[r] <= k). The result
// lies in [max(0, d - elements), min(d, rows)] whatever ends holds; it is non-decreasing in d
// when ends is non-decreasing.
template <typename I>
RA_DEVICE ra_i64 ra_rocsparse_merge_split(const I* ends, ra_i64 rows, ra_i64 base, ra_i64 elements, ra_i64 d) {
    ra_i64 lo = d > elements ? d - elements : 0;
    ra_i64 hi = d < rows ? d : rows;
    while (lo < hi) {
        const ra_i64 mid = lo + ((hi - lo) >> 1);
        if ((ra_i64)ends[mid] <= base + d - mid - 1) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// The tiles [t_begin, t_end) of this block (a contiguous share of the tiles of m + nnz merge
// items): the grid is at most one block per tile.
RA_DEVICE void ra_rocsparse_merge_tiles(ra_i64 total, ra_i64* t_begin, ra_i64* t_end) {
    const ra_i64 tiles = (total + RA_ROCSPARSE_CONVERT_TILE - 1) / RA_ROCSPARSE_CONVERT_TILE;
    const ra_i64 per = (tiles + (ra_i64)gridDim.x - 1) / (ra_i64)gridDim.x;
    const ra_i64 b = (ra_i64)blockIdx.x * per;
    *t_begin = b < tiles ? b : tiles;
    *t_end = b + per < tiles ? b + per : tiles;
}

// The first merge item of tile t (total at the end).
RA_DEVICE ra_i64 ra_rocsparse_merge_diagonal(ra_i64 t, ra_i64 total) {
    const ra_i64 d = t * RA_ROCSPARSE_CONVERT_TILE;
    return d < total ? d : total;
}

// The row of each element k < nnz of a valid CSR structure (indptr non-decreasing from 0 to nnz;
// empty rows get no element): the row r with indptr[r] <= k < indptr[r + 1]. Per tile the rows
// [i0, i1) end and the elements [j0, j1) are taken; the walk writes the tile's rows into s_row
// and the block copies them out with coalesced stores: row[k] = r (PAIRS false), or
// pairs[k] = r | values[k] << 32 (PAIRS true: 32-bit rows, for a sort that carries both).
// s_split, s_ptr and s_row are the caller's shared arrays of BLOCK, TILE + 1 and TILE entries.
template <typename I, bool PAIRS>
RA_DEVICE void ra_rocsparse_expand_rows(const I* __restrict__ indptr, ra_i64 m, ra_i64 nnz, I* __restrict__ row,
                                        const ra_u32* __restrict__ values, ra_u64* __restrict__ pairs,
                                        ra_i64* s_split, I* s_ptr, I* s_row) {
    const int tid = (int)threadIdx.x;
    const ra_i64 total = m + nnz;
    ra_i64 t_begin, t_end;
    ra_rocsparse_merge_tiles(total, &t_begin, &t_end);
    for (ra_i64 tb = t_begin; tb < t_end; tb += RA_ROCSPARSE_CONVERT_BLOCK - 1) {
        const ra_i64 rest = t_end - tb;
        const int nb = rest < RA_ROCSPARSE_CONVERT_BLOCK - 1 ? (int)rest : RA_ROCSPARSE_CONVERT_BLOCK - 1;
        if (tid <= nb) s_split[tid] = ra_rocsparse_merge_split(indptr + 1, m, 0, nnz,
                                                               ra_rocsparse_merge_diagonal(tb + tid, total));
        ra_syncthreads();
        for (int q = 0; q < nb; ++q) {
            const ra_i64 d0 = ra_rocsparse_merge_diagonal(tb + q, total);
            const ra_i64 i0 = s_split[q], rows = s_split[q + 1] - i0;
            const ra_i64 j0 = d0 - i0, elements = ra_rocsparse_merge_diagonal(tb + q + 1, total) - s_split[q + 1] - j0;
            if (rows < 0 || elements < 0) continue;  // only for a decreasing indptr (block-uniform)
            for (ra_i64 x = tid; x <= rows; x += RA_ROCSPARSE_CONVERT_BLOCK) s_ptr[x] = indptr[i0 + x];
            ra_syncthreads();
            const ra_i64 dl = (ra_i64)tid * RA_ROCSPARSE_CONVERT_ITEMS < rows + elements
                                  ? (ra_i64)tid * RA_ROCSPARSE_CONVERT_ITEMS : rows + elements;
            ra_i64 i = ra_rocsparse_merge_split(s_ptr + 1, rows, j0, elements, dl);
            ra_i64 j = dl - i;
#pragma unroll
            for (int s = 0; s < RA_ROCSPARSE_CONVERT_ITEMS; ++s) {
                if (i < rows && (j >= elements || (ra_i64)s_ptr[i + 1] <= j0 + j)) {
                    ++i;
                } else if (j < elements) {
                    s_row[j] = (I)(i0 + i);
                    ++j;
                }
            }
            ra_syncthreads();
            for (ra_i64 x = tid; x < elements; x += RA_ROCSPARSE_CONVERT_BLOCK) {
                if (PAIRS) pairs[j0 + x] = (ra_u64)(ra_u32)s_row[x] | ((ra_u64)values[j0 + x] << 32);
                else row[j0 + x] = s_row[x];
            }
        }
        ra_syncthreads();  // s_split is rewritten by the next batch
    }
}

template <typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCSPARSE_CONVERT_BLOCK)
ra_rocsparse_csr2coo(const I* __restrict__ indptr, ra_i64 m, ra_i64 nnz, I* __restrict__ row) {
    __shared__ ra_i64 s_split[RA_ROCSPARSE_CONVERT_BLOCK];
    __shared__ I s_ptr[RA_ROCSPARSE_CONVERT_TILE + 1];  // indptr[i0 .. i1]
    __shared__ I s_row[RA_ROCSPARSE_CONVERT_TILE];      // row of element j0 + x
    ra_rocsparse_expand_rows<I, false>(indptr, m, nnz, row, nullptr, nullptr, s_split, s_ptr, s_row);
}

// pairs[k] = row of element k | values[k] << 32: the rows and 32-bit values of a CSR matrix with
// 32-bit indices as one 64-bit word each (the value a sort by column carries).
template <typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCSPARSE_CONVERT_BLOCK)
ra_rocsparse_csr2coo_pairs(const I* __restrict__ indptr, ra_i64 m, ra_i64 nnz, const ra_u32* __restrict__ values,
                           ra_u64* __restrict__ pairs) {
    __shared__ ra_i64 s_split[RA_ROCSPARSE_CONVERT_BLOCK];
    __shared__ I s_ptr[RA_ROCSPARSE_CONVERT_TILE + 1];
    __shared__ I s_row[RA_ROCSPARSE_CONVERT_TILE];
    ra_rocsparse_expand_rows<I, true>(indptr, m, nnz, nullptr, values, pairs, s_split, s_ptr, s_row);
}

// low[k] = the low 32 bits of pairs[k], high[k] = the high 32 bits.
extern "C" __global__ void RA_LAUNCH_BOUNDS(RA_ROCSPARSE_CONVERT_BLOCK)
ra_rocsparse_unpack_pairs(const ra_u64* __restrict__ pairs, ra_i64 n, ra_u32* __restrict__ low,
                          ra_u32* __restrict__ high) {
    for (ra_i64 k = ra_global_thread_id(); k < n; k += ra_grid_threads()) {
        const ra_u64 v = pairs[k];
        low[k] = (ra_u32)v;
        high[k] = (ra_u32)(v >> 32);
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
// host): each thread ORs what it saw into *status once. The merge tiles above check every row
// pointer pair (INDPTR) and every element (column range) whatever indptr holds (each once where
// indptr is non-decreasing): the splits run from (0, 0) at the first tile to (m, nnz) after the
// last, so the rows [i0, i1) and the elements [j0, j1) of the tiles where they are not reversed
// cover [0, m) and [0, nnz). A tile with a reversed range (possible only where indptr decreases)
// checks its other range from global memory;
// the others stage indptr[i0 .. i1] and indices[j0 - 1 .. j1) and find each element's row on the
// merge walk: the order bits compare an element with the one before it unless it starts its
// row. Where indptr decreases those rows may be wrong, but the INDPTR bit is then set and the
// order bits are not used.
template <typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCSPARSE_CONVERT_BLOCK)
ra_rocsparse_check_csr(ra_i64 m, ra_i64 n, const I* __restrict__ indptr, const I* __restrict__ indices, ra_i64 nnz,
                       ra_u32* status) {
    __shared__ ra_i64 s_split[RA_ROCSPARSE_CONVERT_BLOCK];
    __shared__ I s_ptr[RA_ROCSPARSE_CONVERT_TILE + 1];  // indptr[i0 .. i1]
    __shared__ I s_idx[RA_ROCSPARSE_CONVERT_TILE + 1];  // indices[j0 - 1 + x] (x = 0 unset when j0 == 0)
    const int tid = (int)threadIdx.x;
    const ra_i64 total = m + nnz;
    ra_u32 bits = 0;
    ra_i64 t_begin, t_end;
    ra_rocsparse_merge_tiles(total, &t_begin, &t_end);
    for (ra_i64 tb = t_begin; tb < t_end; tb += RA_ROCSPARSE_CONVERT_BLOCK - 1) {
        const ra_i64 rest = t_end - tb;
        const int nb = rest < RA_ROCSPARSE_CONVERT_BLOCK - 1 ? (int)rest : RA_ROCSPARSE_CONVERT_BLOCK - 1;
        if (tid <= nb) s_split[tid] = ra_rocsparse_merge_split(indptr + 1, m, 0, nnz,
                                                               ra_rocsparse_merge_diagonal(tb + tid, total));
        ra_syncthreads();
        for (int q = 0; q < nb; ++q) {
            const ra_i64 d0 = ra_rocsparse_merge_diagonal(tb + q, total);
            const ra_i64 i0 = s_split[q], rows = s_split[q + 1] - i0;
            const ra_i64 j0 = d0 - i0, elements = ra_rocsparse_merge_diagonal(tb + q + 1, total) - s_split[q + 1] - j0;
            if (rows < 0) {  // (block-uniform) the elements alone, from global memory
                for (ra_i64 k = j0 + tid; k < j0 + elements; k += RA_ROCSPARSE_CONVERT_BLOCK) {
                    const ra_i64 c = (ra_i64)indices[k];
                    if (c < 0) bits |= RA_ROCSPARSE_CHECK_NEGATIVE;
                    else if (c >= n) bits |= RA_ROCSPARSE_CHECK_TOO_LARGE;
                }
                continue;
            }
            if (elements < 0) {  // the rows alone
                for (ra_i64 r = i0 + tid; r < i0 + rows; r += RA_ROCSPARSE_CONVERT_BLOCK) {
                    if (indptr[r + 1] < indptr[r]) bits |= RA_ROCSPARSE_CHECK_INDPTR;
                }
                continue;
            }
            for (ra_i64 x = tid; x <= rows; x += RA_ROCSPARSE_CONVERT_BLOCK) s_ptr[x] = indptr[i0 + x];
            for (ra_i64 x = tid; x <= elements; x += RA_ROCSPARSE_CONVERT_BLOCK) {
                if (j0 + x == 0) continue;
                const I v = indices[j0 - 1 + x];
                s_idx[x] = v;
                if (x == 0) continue;  // the element before the tile: checked by its own tile
                const ra_i64 c = (ra_i64)v;
                if (c < 0) bits |= RA_ROCSPARSE_CHECK_NEGATIVE;
                else if (c >= n) bits |= RA_ROCSPARSE_CHECK_TOO_LARGE;
            }
            ra_syncthreads();
            for (ra_i64 x = tid; x < rows; x += RA_ROCSPARSE_CONVERT_BLOCK) {
                if (s_ptr[x + 1] < s_ptr[x]) bits |= RA_ROCSPARSE_CHECK_INDPTR;
            }
            const ra_i64 dl = (ra_i64)tid * RA_ROCSPARSE_CONVERT_ITEMS < rows + elements
                                  ? (ra_i64)tid * RA_ROCSPARSE_CONVERT_ITEMS : rows + elements;
            ra_i64 i = ra_rocsparse_merge_split(s_ptr + 1, rows, j0, elements, dl);
            ra_i64 j = dl - i;
#pragma unroll
            for (int s = 0; s < RA_ROCSPARSE_CONVERT_ITEMS; ++s) {
                if (i < rows && (j >= elements || (ra_i64)s_ptr[i + 1] <= j0 + j)) {
                    ++i;
                } else if (j < elements) {
                    const ra_i64 k = j0 + j;  // in row i0 + i, which starts at s_ptr[i]
                    if (k > 0 && k > (ra_i64)s_ptr[i]) {
                        const ra_i64 c = (ra_i64)s_idx[j + 1];
                        const ra_i64 p = (ra_i64)s_idx[j];
                        if (c < p) bits |= RA_ROCSPARSE_CHECK_UNSORTED;
                        else if (c == p) bits |= RA_ROCSPARSE_CHECK_DUPLICATE;
                    }
                    ++j;
                }
            }
            ra_syncthreads();  // s_ptr and s_idx are rewritten by the next tile
        }
        ra_syncthreads();  // s_split is rewritten by the next batch
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
