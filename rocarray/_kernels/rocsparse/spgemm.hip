// SpGEMM, C = A B for CSR matrices with hash tables per row of C, after Nagasaka, Nukada and
// Matsuoka, "High-performance and memory-saving sparse general matrix-matrix multiplication for
// NVIDIA Pascal GPU" (ICPP 2017). Phase 1 (count) inserts every column of a row's products into a
// linear-probing table and counts the new keys; phase 2 (fill) inserts again while adding the
// products into the slot's value, then writes the row sorted: each occupied slot's position is the
// number of smaller keys in the table.
//
// The host bins rows by the table they need (a power of two at least the row's distinct columns),
// so a table never fills. A group of GROUP lanes owns one row and one table; its lanes split into
// GROUP / BLANES lanes over A's entries times BLANES lanes over the matching row of B. Tables live
// in dynamic shared memory (one per group, padded by a slot against bank conflicts between groups),
// or, GLOBAL, in a slice of global scratch per block for rows too long for shared memory: those rows
// are written unsorted and the host sorts them afterwards. Rows list the bin's rows (null: the
// identity, every row in one bin). Inputs may hold duplicates and unsorted columns: duplicates hash
// to one slot.
//
// Rows of C with few entries of A and few products skip the tables: one thread merges the sorted
// rows of B that A's row selects (ra_rocsparse_spgemm_merge_count / _fill), in column order, so
// the row comes out sorted with no shared memory, atomics or ranking. The count reports rows of B
// that are not sorted; the host then sends those rows to the tables instead.

#define RA_ROCSPARSE_SPGEMM_BLOCK 256

RA_DEVICE int ra_rocsparse_cas(int* p, int cmp, int v) { return atomicCAS(p, cmp, v); }
RA_DEVICE long long ra_rocsparse_cas(long long* p, long long cmp, long long v) {
    return (long long)atomicCAS(reinterpret_cast<unsigned long long*>(p), (unsigned long long)cmp,
                                (unsigned long long)v);
}

RA_DEVICE void ra_rocsparse_atomic_add(float* p, float v) { atomicAdd(p, v); }
RA_DEVICE void ra_rocsparse_atomic_add(double* p, double v) { atomicAdd(p, v); }
template <typename R> RA_DEVICE void ra_rocsparse_atomic_add(ra_complex<R>* p, ra_complex<R> v) {
    atomicAdd(&p->re, v.re);
    atomicAdd(&p->im, v.im);
}

RA_DEVICE bool ra_rocsparse_is_zero(float v) { return v == 0.0f; }
RA_DEVICE bool ra_rocsparse_is_zero(double v) { return v == 0.0; }
template <typename R> RA_DEVICE bool ra_rocsparse_is_zero(ra_complex<R> v) { return v.re == R(0) && v.im == R(0); }

// Slot of `key` (>= 0) in a table of mask + 1 slots whose empty slots hold -1, inserting the key if
// absent; `fresh` tells whether this call inserted it. The caller guarantees a free slot for every
// new key, so the probe ends.
template <typename I> RA_DEVICE ra_i64 ra_rocsparse_hash_insert(I* keys, I key, ra_i64 mask, bool& fresh) {
    ra_i64 h = (ra_i64)(((ra_u64)key * 107u) & (ra_u64)mask);
    volatile I* seen = keys;  // other lanes insert concurrently: read the slot, not a register copy
    while (true) {
        const I k = seen[h];
        if (k == key) {
            fresh = false;
            return h;
        }
        if (k == (I)-1) {
            const I old = ra_rocsparse_cas(keys + h, (I)-1, key);
            if (old == (I)-1 || old == key) {
                fresh = old == (I)-1;
                return h;
            }
        }
        h = (h + 1) & mask;
    }
}

// Row of the r-th listed row.
template <typename I> RA_DEVICE ra_i64 ra_rocsparse_listed_row(const I* rows, ra_i64 r) {
    return rows ? (ra_i64)rows[r] : r;
}

// Per row of C: products[row] = sum over A's row of the lengths of the matching rows of B (an upper
// bound on the row's nonzeros). Rows of at most max_ways entries of A and max_products products go
// to the merge kernels: need[row] = 0 and ways[row] = the row's entries of A (0 when it has no
// products); the others to the hash tables: need[row] = min(products, n), ways[row] = 0. One thread
// per row.
template <typename I>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCSPARSE_SPGEMM_BLOCK)
ra_rocsparse_spgemm_rows(ra_i64 m, ra_i64 n, ra_i64 max_ways, ra_i64 max_products, const I* RA_RESTRICT a_indptr,
                         const I* RA_RESTRICT a_indices, const I* RA_RESTRICT b_indptr, ra_i64* RA_RESTRICT products,
                         ra_i64* RA_RESTRICT need, ra_i32* RA_RESTRICT ways) {
    for (ra_i64 row = ra_global_thread_id(); row < m; row += ra_grid_threads()) {
        ra_i64 sum = 0;
        const ra_i64 start = a_indptr[row], end = a_indptr[row + 1];
        for (ra_i64 p = start; p < end; ++p) {
            const ra_i64 c = a_indices[p];
            sum += (ra_i64)b_indptr[c + 1] - (ra_i64)b_indptr[c];
        }
        const bool merged = end - start <= max_ways && sum <= max_products;
        products[row] = sum;
        need[row] = merged ? 0 : (sum < n ? sum : n);
        ways[row] = merged && sum > 0 ? (ra_i32)(end - start) : 0;
    }
}

// The largest I: the column of an exhausted cursor (every real column is smaller).
template <typename I> RA_DEVICE I ra_rocsparse_merge_done() { return (I)(~(ra_u64)0 >> (65 - 8 * (int)sizeof(I))); }

// One row of C = A B by a K-way merge of the rows of B that A's row selects (K >= its entries),
// one thread per row: cursor j walks the row of B of A's j-th entry, and each step takes the
// smallest column under any cursor, adds every product at that column (a cursor's duplicate
// columns included) and advances those cursors. B's rows must be sorted (duplicates allowed); a
// cursor that meets a smaller column sets `unsorted` (the row's result is then meaningless, but the
// loop still ends: every step advances a cursor). Returns the row's distinct columns; with FILL,
// writes them and their values at c_indices / c_data + start and counts the exact zeros. The
// cursor arrays are indexed only inside fully unrolled loops over j, so they stay in registers.
template <typename T, typename I, int K, bool FILL>
RA_DEVICE ra_i64 ra_rocsparse_merge_row(ra_i64 row, const I* RA_RESTRICT a_indptr, const I* RA_RESTRICT a_indices,
                                        const T* RA_RESTRICT a_data, const I* RA_RESTRICT b_indptr,
                                        const I* RA_RESTRICT b_indices, const T* RA_RESTRICT b_data,
                                        I* RA_RESTRICT c_indices, T* RA_RESTRICT c_data, ra_i64 start,
                                        ra_u64& zero_values, bool& unsorted) {
    const I done = ra_rocsparse_merge_done<I>();
    const ra_i64 first = a_indptr[row], ways = (ra_i64)a_indptr[row + 1] - first;
    I pos[K], end[K], col[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
        pos[j] = 0;
        end[j] = 0;
        col[j] = done;
        if (j < ways) {
            const ra_i64 b_row = a_indices[first + j];
            pos[j] = b_indptr[b_row];
            end[j] = b_indptr[b_row + 1];
            if (pos[j] < end[j]) col[j] = b_indices[pos[j]];
        }
    }
    // cursors go in groups of 8, and a step skips the groups past the row's entries of A
    constexpr int G = K < 8 ? K : 8;
    static_assert(K % G == 0, "cursors come in whole groups");
    ra_i64 out = 0;
    while (true) {
        I next = done;
#pragma unroll
        for (int g = 0; g < K; g += G) {
            if (g < ways) {
#pragma unroll
                for (int j = g; j < g + G; ++j) next = col[j] < next ? col[j] : next;
            }
        }
        if (next == done) break;
        T sum = ra_traits<T>::zero();
#pragma unroll
        for (int g = 0; g < K; g += G) {
            if (g >= ways) continue;
#pragma unroll
            for (int j = g; j < g + G; ++j) {
                if (col[j] == next) {
                    T a = sum;
                    if (FILL) a = a_data[first + j];
                    I c;
                    do {
                        if (FILL) sum = sum + a * b_data[pos[j]];
                        ++pos[j];
                        c = pos[j] < end[j] ? b_indices[pos[j]] : done;
                    } while (c == next);
                    unsorted |= c < next;
                    col[j] = c;
                }
            }
        }
        if (FILL) {
            c_indices[start + out] = next;
            c_data[start + out] = sum;
            zero_values += ra_rocsparse_is_zero(sum) ? 1u : 0u;
        }
        ++out;
    }
    return out;
}

// Phase 1 of the merge rows (need[row] == 0, at most K entries of A): row_nnz[row] := the row's
// distinct columns; *unsorted := 1 if some row of B they read is unsorted.
template <typename I, int K>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCSPARSE_SPGEMM_BLOCK)
ra_rocsparse_spgemm_merge_count(ra_i64 m, const ra_i64* RA_RESTRICT need, const I* RA_RESTRICT a_indptr,
                                const I* RA_RESTRICT a_indices, const I* RA_RESTRICT b_indptr,
                                const I* RA_RESTRICT b_indices, I* RA_RESTRICT row_nnz, ra_u64* unsorted) {
    bool seen = false;
    for (ra_i64 row = ra_global_thread_id(); row < m; row += ra_grid_threads()) {
        if (need[row] != 0 || (ra_i64)a_indptr[row + 1] - (ra_i64)a_indptr[row] > K) continue;
        ra_u64 unused = 0;
        row_nnz[row] = (I)ra_rocsparse_merge_row<float, I, K, false>(row, a_indptr, a_indices, nullptr, b_indptr,
                                                                      b_indices, nullptr, nullptr, nullptr, 0,
                                                                      unused, seen);
    }
    if (seen) ra_atomic_or_u64(unsorted, 1ull);
}

// Phase 2 of the merge rows: their rows of C at c_indptr[row], columns sorted; *zeros counts the
// stored values that are exactly zero. A block takes RA_ROCSPARSE_SPGEMM_BLOCK consecutive rows,
// whose entries are consecutive in C: when none of them is a hash row and they fit the
// stage_bytes of dynamic shared memory, the threads merge into shared memory and the block then
// writes the span coalesced (a thread's own row would put each lane of a warp store in another
// sector); otherwise each thread writes its row in place.
template <typename T, typename I, int K>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCSPARSE_SPGEMM_BLOCK)
ra_rocsparse_spgemm_merge_fill(ra_i64 m, const ra_i64* RA_RESTRICT need, const I* RA_RESTRICT a_indptr,
                               const I* RA_RESTRICT a_indices, const T* RA_RESTRICT a_data,
                               const I* RA_RESTRICT b_indptr, const I* RA_RESTRICT b_indices,
                               const T* RA_RESTRICT b_data, const I* RA_RESTRICT c_indptr, I* RA_RESTRICT c_indices,
                               T* RA_RESTRICT c_data, ra_u64* zeros, ra_i64 stage_bytes) {
    extern __shared__ unsigned char ra_rocsparse_smem[];
    __shared__ int hashed;
    // values first (16-aligned), then the indices; an even capacity keeps them aligned for I
    const ra_i64 capacity = (stage_bytes / (ra_i64)(sizeof(T) + sizeof(I))) & ~(ra_i64)1;
    T* stage_data = reinterpret_cast<T*>(ra_align_shared<16>(ra_rocsparse_smem));
    I* stage_indices = reinterpret_cast<I*>(stage_data + capacity);
    ra_u64 zero_values = 0;
    bool seen = false;  // the count found these rows of B sorted
    for (ra_i64 first = (ra_i64)blockIdx.x * RA_ROCSPARSE_SPGEMM_BLOCK; first < m;
         first += (ra_i64)gridDim.x * RA_ROCSPARSE_SPGEMM_BLOCK) {
        const ra_i64 row = first + threadIdx.x;
        const ra_i64 last = first + RA_ROCSPARSE_SPGEMM_BLOCK < m ? first + RA_ROCSPARSE_SPGEMM_BLOCK : m;
        const ra_i64 base = c_indptr[first], span = (ra_i64)c_indptr[last] - base;
        if (threadIdx.x == 0) hashed = 0;
        __syncthreads();
        // need 0 with more than K entries of A: a row without products (nothing to write)
        const bool mine = row < m && need[row] == 0;
        if (row < m && !mine) atomicAdd(&hashed, 1);
        __syncthreads();
        const bool staged = hashed == 0 && span <= capacity;
        if (mine && (ra_i64)a_indptr[row + 1] - (ra_i64)a_indptr[row] <= K) {
            const ra_i64 start = (ra_i64)c_indptr[row] - (staged ? base : 0);
            ra_rocsparse_merge_row<T, I, K, true>(row, a_indptr, a_indices, a_data, b_indptr, b_indices, b_data,
                                                  staged ? stage_indices : c_indices, staged ? stage_data : c_data,
                                                  start, zero_values, seen);
        }
        if (staged) {
            __syncthreads();
            for (ra_i64 e = threadIdx.x; e < span; e += RA_ROCSPARSE_SPGEMM_BLOCK) {
                c_indices[base + e] = stage_indices[e];
                c_data[base + e] = stage_data[e];
            }
        }
        __syncthreads();  // the next pass resets `hashed` and refills the stage
    }
    if (zero_values) ra_atomic_add_u64(zeros, zero_values);
}

// Phase 1: row_nnz[row] := distinct columns of row `row` of A B, for the nrows listed rows.
template <typename I, int GROUP, int BLANES, bool GLOBAL>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCSPARSE_SPGEMM_BLOCK)
ra_rocsparse_spgemm_count(ra_i64 nrows, const I* RA_RESTRICT rows, const I* RA_RESTRICT a_indptr,
                          const I* RA_RESTRICT a_indices, const I* RA_RESTRICT b_indptr,
                          const I* RA_RESTRICT b_indices, I* RA_RESTRICT row_nnz, ra_i64 table, I* scratch) {
    constexpr int GROUPS = RA_ROCSPARSE_SPGEMM_BLOCK / GROUP;
    extern __shared__ unsigned char ra_rocsparse_smem[];
    __shared__ ra_u64 found[GROUPS];
    const int g = (int)threadIdx.x / GROUP, lane = (int)threadIdx.x % GROUP;
    I* keys = GLOBAL ? scratch + (ra_i64)blockIdx.x * table
                     : reinterpret_cast<I*>(ra_align_shared<16>(ra_rocsparse_smem)) + g * (table + 1);
    const ra_i64 mask = table - 1;
    for (ra_i64 base = (ra_i64)blockIdx.x * GROUPS; base < nrows; base += (ra_i64)gridDim.x * GROUPS) {
        for (ra_i64 s = lane; s < table; s += GROUP) keys[s] = (I)-1;
        if (lane == 0) found[g] = 0;
        __syncthreads();
        const ra_i64 r = base + g;
        const ra_i64 row = r < nrows ? ra_rocsparse_listed_row(rows, r) : 0;
        if (r < nrows) {
            ra_u64 mine = 0;
            const ra_i64 pe = a_indptr[row + 1];
            for (ra_i64 p = a_indptr[row] + lane / BLANES; p < pe; p += GROUP / BLANES) {
                const ra_i64 col = a_indices[p];
                const ra_i64 qe = b_indptr[col + 1];
                for (ra_i64 q = b_indptr[col] + lane % BLANES; q < qe; q += BLANES) {
                    bool fresh;
                    ra_rocsparse_hash_insert(keys, b_indices[q], mask, fresh);
                    mine += fresh ? 1u : 0u;
                }
            }
            if (mine) atomicAdd(&found[g], (unsigned long long)mine);
        }
        __syncthreads();
        // the next pass clears the table only after this one's inserts (the barrier above) and
        // found[g] is reset by the lane that reads it here
        if (r < nrows && lane == 0) row_nnz[row] = (I)found[g];
    }
}

// Phase 2: the listed rows of C = A B at c_indptr[row] (columns sorted within the row, except
// GLOBAL rows); *zeros counts the stored values that are exactly zero.
template <typename T, typename I, int GROUP, int BLANES, bool GLOBAL>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCSPARSE_SPGEMM_BLOCK)
ra_rocsparse_spgemm_fill(ra_i64 nrows, const I* RA_RESTRICT rows, const I* RA_RESTRICT a_indptr,
                         const I* RA_RESTRICT a_indices, const T* RA_RESTRICT a_data, const I* RA_RESTRICT b_indptr,
                         const I* RA_RESTRICT b_indices, const T* RA_RESTRICT b_data, const I* RA_RESTRICT c_indptr,
                         I* RA_RESTRICT c_indices, T* RA_RESTRICT c_data, ra_u64* zeros, ra_i64 table,
                         I* scratch_keys, T* scratch_values) {
    constexpr int GROUPS = RA_ROCSPARSE_SPGEMM_BLOCK / GROUP;
    extern __shared__ unsigned char ra_rocsparse_smem[];
    __shared__ ra_u64 cursor[GROUPS];
    const int g = (int)threadIdx.x / GROUP, lane = (int)threadIdx.x % GROUP;
    I* keys;
    T* vals;
    if (GLOBAL) {
        keys = scratch_keys + (ra_i64)blockIdx.x * table;
        vals = scratch_values + (ra_i64)blockIdx.x * table;
    } else {
        unsigned char* base = ra_align_shared<16>(ra_rocsparse_smem);
        const ra_i64 key_bytes = ((ra_i64)GROUPS * (table + 1) * (ra_i64)sizeof(I) + 15) & ~(ra_i64)15;
        keys = reinterpret_cast<I*>(base) + g * (table + 1);
        vals = reinterpret_cast<T*>(base + key_bytes) + g * (table + 1);
    }
    const T zero = ra_traits<T>::zero();
    const ra_i64 mask = table - 1;
    for (ra_i64 first = (ra_i64)blockIdx.x * GROUPS; first < nrows; first += (ra_i64)gridDim.x * GROUPS) {
        for (ra_i64 s = lane; s < table; s += GROUP) {
            keys[s] = (I)-1;
            vals[s] = zero;
        }
        if (lane == 0) cursor[g] = 0;
        __syncthreads();
        const ra_i64 r = first + g;
        const ra_i64 row = r < nrows ? ra_rocsparse_listed_row(rows, r) : 0;
        if (r < nrows) {
            const ra_i64 pe = a_indptr[row + 1];
            for (ra_i64 p = a_indptr[row] + lane / BLANES; p < pe; p += GROUP / BLANES) {
                const ra_i64 col = a_indices[p];
                const T av = a_data[p];
                const ra_i64 qe = b_indptr[col + 1];
                for (ra_i64 q = b_indptr[col] + lane % BLANES; q < qe; q += BLANES) {
                    bool fresh;
                    const ra_i64 slot = ra_rocsparse_hash_insert(keys, b_indices[q], mask, fresh);
                    ra_rocsparse_atomic_add(vals + slot, av * b_data[q]);
                }
            }
        }
        __syncthreads();
        if (r < nrows) {
            const ra_i64 start = c_indptr[row];
            ra_u64 zero_values = 0;
            for (ra_i64 s = lane; s < table; s += GROUP) {
                const I k = keys[s];
                if (k == (I)-1) continue;
                ra_i64 at = 0;
                if (GLOBAL) {
                    at = (ra_i64)atomicAdd(&cursor[g], 1ull);
                } else {
                    for (ra_i64 t = 0; t < table; ++t) {
                        const I other = keys[t];
                        at += (other >= 0 && other < k) ? 1 : 0;
                    }
                }
                const T v = vals[s];
                c_indices[start + at] = k;
                c_data[start + at] = v;
                zero_values += ra_rocsparse_is_zero(v) ? 1u : 0u;
            }
            if (zero_values) atomicAdd(zeros, (unsigned long long)zero_values);
        }
        __syncthreads();  // the next pass clears what this one ranks
    }
}
