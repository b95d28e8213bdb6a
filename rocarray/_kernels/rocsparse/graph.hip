// Graph kernels of rocarray.sparse.csgraph on a CSR adjacency (indptr, indices; I = int or long long).
// Vertex numbers and labels are 32-bit ints (the Python layer checks n < 2^31); edge positions are
// 64-bit. Every kernel is a grid-stride loop; those that report progress set *changed = 1 (the
// host zeroes it before the launch and reads it after). Thread per vertex, looping over its row.
//
// Weakly connected components (min-label hooking with pointer jumping, in the style of
// Shiloach and Vishkin, "An O(log n) parallel connectivity algorithm", J. Algorithms 3, 1982):
//  * ra_rocsparse_cc_hook: for every edge (u, v) whose endpoints carry different labels, the larger
//    label's vertex is pointed at the smaller label (atomicMin). Labels only decrease and
//    labels[x] <= x always holds, so every chain ends at a root (labels[r] == r).
//  * ra_rocsparse_cc_compress: labels[v] = the root of v's chain.
//  * ra_rocsparse_cc_roots / ra_rocsparse_cc_relabel: flags of roots, then out[v] = ids[labels[v]]
//    with ids the exclusive prefix sum of the flags (components numbered by their smallest vertex).
//
// Strongly connected components (coloring: S. Orzan, PhD thesis, 2004; G. Slota, S. Rajamanickam,
// K. Madduri, "BFS and coloring-based parallel algorithms for strongly connected components and
// related problems", IPDPS 2014). scc[v] < 0 marks a vertex still active.
//  * ra_rocsparse_scc_trim + ra_rocsparse_scc_trim_apply: an active vertex without an active
//    in-neighbour or without an active out-neighbour (self loops aside) is a component by itself.
//  * ra_rocsparse_scc_color_init + ra_rocsparse_scc_propagate: colors[v] = the smallest active
//    vertex that reaches v (forward propagation of minima along edges, to a fixed point).
//  * ra_rocsparse_scc_roots + ra_rocsparse_scc_backward: a root is a vertex whose color is itself;
//    its component is the set of vertices of its color that reach it (marks spread backwards:
//    u is marked when an out-neighbour of u's color is marked).
//  * ra_rocsparse_scc_assign: marked vertices take their color as label; counts those left.
//
// Breadth-first order (level-synchronous; reproduces the order of a FIFO queue):
//  * ra_rocsparse_bfs_expand: for each frontier vertex u (position pos in the order) and edge
//    e of u to v: the first visit claims v (state[v] = tag, v appended to next); every visit in
//    this level offers the key (pos << 32) | (e - indptr[u]) to keys[v] (atomicMin), so the
//    winning parent is the one a queue would have taken, and sorting next by key gives the
//    queue's order. An undirected search launches it twice per level, out-edges then in-edges
//    (`before` = the out-edge indptr, so in-edge positions follow u's out-edges).
//  * ra_rocsparse_bfs_keys: out[i] = keys[next[i]].
//  * ra_rocsparse_bfs_pred: pred[v] = order[key >> 32] for the sorted new level.

template <typename I>
__global__ void ra_rocsparse_cc_hook(ra_i64 n, const I* RA_RESTRICT indptr, const I* RA_RESTRICT indices,
                                     int* labels, int* changed) {
    for (ra_i64 u = ra_global_thread_id(); u < n; u += ra_grid_threads()) {
        const ra_i64 end = (ra_i64)indptr[u + 1];
        for (ra_i64 e = (ra_i64)indptr[u]; e < end; ++e) {
            const int lu = labels[u];
            const int lv = labels[(ra_i64)indices[e]];
            if (lu != lv) {
                const int hi = lu > lv ? lu : lv;
                const int lo = lu > lv ? lv : lu;
                atomicMin(labels + hi, lo);
                *changed = 1;
            }
        }
    }
}

RA_KERNEL void ra_rocsparse_cc_compress(ra_i64 n, int* labels) {
    for (ra_i64 v = ra_global_thread_id(); v < n; v += ra_grid_threads()) {
        int l = labels[v];
        while (labels[l] != l) l = labels[l];
        labels[v] = l;
    }
}

RA_KERNEL void ra_rocsparse_cc_roots(ra_i64 n, const int* RA_RESTRICT labels, int* RA_RESTRICT flags) {
    for (ra_i64 v = ra_global_thread_id(); v < n; v += ra_grid_threads()) flags[v] = labels[v] == (int)v ? 1 : 0;
}

RA_KERNEL void ra_rocsparse_cc_relabel(ra_i64 n, const int* RA_RESTRICT labels, const int* RA_RESTRICT ids,
                                       int* RA_RESTRICT out) {
    for (ra_i64 v = ra_global_thread_id(); v < n; v += ra_grid_threads()) out[v] = ids[labels[v]];
}

template <typename I>
__global__ void ra_rocsparse_scc_trim(ra_i64 n, const I* RA_RESTRICT indptr, const I* RA_RESTRICT indices,
                                      const int* RA_RESTRICT scc, int* has_in, int* has_out) {
    for (ra_i64 u = ra_global_thread_id(); u < n; u += ra_grid_threads()) {
        if (scc[u] >= 0) continue;
        const ra_i64 end = (ra_i64)indptr[u + 1];
        for (ra_i64 e = (ra_i64)indptr[u]; e < end; ++e) {
            const ra_i64 v = (ra_i64)indices[e];
            if (v != u && scc[v] < 0) {
                has_out[u] = 1;
                has_in[v] = 1;
            }
        }
    }
}

RA_KERNEL void ra_rocsparse_scc_trim_apply(ra_i64 n, int* RA_RESTRICT scc, const int* RA_RESTRICT has_in,
                                           const int* RA_RESTRICT has_out, int* RA_RESTRICT changed) {
    for (ra_i64 v = ra_global_thread_id(); v < n; v += ra_grid_threads()) {
        if (scc[v] < 0 && (!has_in[v] || !has_out[v])) {
            scc[v] = (int)v;
            *changed = 1;
        }
    }
}

RA_KERNEL void ra_rocsparse_scc_color_init(ra_i64 n, int* RA_RESTRICT colors) {
    for (ra_i64 v = ra_global_thread_id(); v < n; v += ra_grid_threads()) colors[v] = (int)v;
}

template <typename I>
__global__ void ra_rocsparse_scc_propagate(ra_i64 n, const I* RA_RESTRICT indptr, const I* RA_RESTRICT indices,
                                           const int* RA_RESTRICT scc, int* colors, int* changed) {
    for (ra_i64 u = ra_global_thread_id(); u < n; u += ra_grid_threads()) {
        if (scc[u] >= 0) continue;
        const ra_i64 end = (ra_i64)indptr[u + 1];
        for (ra_i64 e = (ra_i64)indptr[u]; e < end; ++e) {
            const ra_i64 v = (ra_i64)indices[e];
            const int cu = colors[u];
            if (scc[v] < 0 && cu < colors[v]) {
                atomicMin(colors + v, cu);
                *changed = 1;
            }
        }
    }
}

RA_KERNEL void ra_rocsparse_scc_roots(ra_i64 n, const int* RA_RESTRICT scc, const int* RA_RESTRICT colors,
                                      int* RA_RESTRICT mark) {
    for (ra_i64 v = ra_global_thread_id(); v < n; v += ra_grid_threads())
        mark[v] = (scc[v] < 0 && colors[v] == (int)v) ? 1 : 0;
}

template <typename I>
__global__ void ra_rocsparse_scc_backward(ra_i64 n, const I* RA_RESTRICT indptr, const I* RA_RESTRICT indices,
                                          const int* RA_RESTRICT scc, const int* RA_RESTRICT colors, int* mark,
                                          int* changed) {
    for (ra_i64 u = ra_global_thread_id(); u < n; u += ra_grid_threads()) {
        if (scc[u] >= 0 || mark[u]) continue;
        const int cu = colors[u];
        const ra_i64 end = (ra_i64)indptr[u + 1];
        for (ra_i64 e = (ra_i64)indptr[u]; e < end; ++e) {
            const ra_i64 v = (ra_i64)indices[e];
            if (scc[v] < 0 && colors[v] == cu && mark[v]) {
                mark[u] = 1;
                *changed = 1;
                break;
            }
        }
    }
}

RA_KERNEL void ra_rocsparse_scc_assign(ra_i64 n, int* RA_RESTRICT scc, const int* RA_RESTRICT colors,
                                       const int* RA_RESTRICT mark, int* RA_RESTRICT remaining) {
    for (ra_i64 v = ra_global_thread_id(); v < n; v += ra_grid_threads()) {
        if (scc[v] >= 0) continue;
        if (mark[v]) {
            scc[v] = colors[v];
        } else {
            *remaining = 1;
        }
    }
}

template <typename I>
__global__ void ra_rocsparse_bfs_expand(ra_i64 count, const int* RA_RESTRICT frontier, ra_i64 base,
                                        const I* RA_RESTRICT indptr, const I* RA_RESTRICT indices,
                                        const I* RA_RESTRICT before, int* state, int tag, ra_u64* keys,
                                        int* RA_RESTRICT next, int* next_count) {
    for (ra_i64 i = ra_global_thread_id(); i < count; i += ra_grid_threads()) {
        const ra_i64 u = frontier[i];
        const ra_i64 begin = (ra_i64)indptr[u];
        const ra_i64 end = (ra_i64)indptr[u + 1];
        // edges of an earlier adjacency of u (the out-edges, when these are the in-edges) come first
        const ra_i64 skip = before ? (ra_i64)before[u + 1] - (ra_i64)before[u] : 0;
        const ra_u64 pos = (ra_u64)(base + i) << 32;
        for (ra_i64 e = begin; e < end; ++e) {
            const ra_i64 v = (ra_i64)indices[e];
            int old = state[v];
            if (old == 0) {
                old = atomicCAS(state + v, 0, tag);
                if (old == 0) next[atomicAdd(next_count, 1)] = (int)v;
            }
            if (old == 0 || old == tag) atomicMin(keys + v, pos | (ra_u64)(skip + e - begin));
        }
    }
}

RA_KERNEL void ra_rocsparse_bfs_keys(ra_i64 count, const int* RA_RESTRICT next, const ra_u64* RA_RESTRICT keys,
                                     ra_u64* RA_RESTRICT out) {
    for (ra_i64 i = ra_global_thread_id(); i < count; i += ra_grid_threads()) out[i] = keys[next[i]];
}

RA_KERNEL void ra_rocsparse_bfs_pred(ra_i64 count, const int* RA_RESTRICT sorted_next,
                                     const ra_u64* RA_RESTRICT sorted_keys, const int* RA_RESTRICT order,
                                     int* RA_RESTRICT pred) {
    for (ra_i64 i = ra_global_thread_id(); i < count; i += ra_grid_threads())
        pred[sorted_next[i]] = order[(ra_i64)(sorted_keys[i] >> 32)];
}
