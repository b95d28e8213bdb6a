"""Candidate changes to ``rocsolver/lu_block.hip``, kept as anchored patches of the tree's source
until the device has timed them (docs/performance/rocsolver.md), so that one call can A/B them all:

    python scripts/lu_source_ab.py base=- warp=+warp_u12 pre=+prefetch both=+warp_u12+prefetch --compact

A variant is a function from the source text to the patched text; :func:`apply` applies several in
turn. Each changes only how the work is scheduled, never the operations on an element or their
order, so each variant's factors and solutions are the tree's bit for bit (the emulator tests in
``tests/rocsolver/test_lu_variants.py`` check that, and that each compiles for sm_90).

* ``warp_u12``: the whole block's unit lower triangular solve in ``ra_lus_apply`` and
  ``ra_luc_apply`` (the look-ahead, the last panel's solve for B: nothing runs beside them) by a
  warp a column, a lane a row, row s's finished element by a shuffle at step s, two columns a warp;
  float64 only (see docs/performance/rocsolver.md, thirty-second session). The update crew's
  solve, beside the panel crew's chain, stays a thread a column.
* ``prefetch``: the compact kernel (a persistent grid) asks L2 for the next system's matrix when
  a system's panels begin (NVIDIA sm_80+; a no-op elsewhere), so that its staging reads L2, not
  HBM.
* ``backsub_unroll``: the back substitution's steps unrolled by 4, so that the next steps' loads
  of U can be issued ahead of the step's chain (multiply, shuffle, multiply-add).
* ``backsub_pipeline``: the back substitution's step with U's column loaded a step ahead (its
  shared loads off the chain, which in the tree's code waits for them after the shuffle) and
  without the per-step test of k < n (the loop's bound instead).
* ``stage_overlap``: the compact kernel stages only panel 0's columns with the whole block; its
  update crew, idle while the panel crew factors panel 0, stages the other columns (the spilled
  ones into the scratch) and the right-hand sides then, so that most of the staging runs beside
  panel 0's factorization instead of before it.
* ``warp_columns``: the compact kernel's ``ra_luc_apply`` (its look-ahead, its update crew's
  update and the last panel's solve for B) a warp a target column, two columns a warp at once:
  the column's interchanges (its rows read, then written), its unit lower triangular solve (a lane
  a row, row s's element by a shuffle at step s) and its rank update (a lane a row of every
  warp-width rows, U12's elements by shuffles), with no barrier between them and one at the end:
  the same operations on each element in the same order, so the same bits.
* ``spill_rows``: the compact kernel's rank update (A22 -= L21 U12) of its spilled columns (in its
  global scratch) a warp a column, a lane a row of every warp-width rows: the column's reads and
  writes coalesced (the tree's threads, a column each, read 32 columns in one warp instruction),
  L's reads conflict-free, U12's elements broadcast, K at a time in flight.
"""

_HELPERS_AT = "// The barrier of the threads that run ra_lus_apply: the block's, or the update crew's (crew, of\n"

_WARP_U12_HELPERS = """// (variant warp_u12) whether the whole block's triangular solve takes a warp a column
template <typename T> struct ra_lus_warp_u12 { static constexpr bool value = false; };
template <> struct ra_lus_warp_u12<double> { static constexpr bool value = true; };

// X := L^-1 X for the unit lower triangle L (nb x nb, column-major at l, leading dimension ldl) and
// the nb x nc matrix X (column c's first row at column(c)), by the threads gt = 0 .. GT - 1 (whole
// warps): a warp a column, lane i its row i; at step s the rows below s subtract L(i, s) times row
// s's finished element (shuffled from lane s), the steps whose bit is set in zbits skipped: each
// element's operations in forward substitution's order. A warp takes two columns at once.
template <typename T, typename Column>
RA_DEVICE void ra_lus_solve_u12(Column column, const T* l, int ldl, int nb, int nc, int zbits, int gt, int GT) {
    constexpr int W = RA_WARP_SIZE;
    const int lane = gt % W, warp = gt / W, warps = GT / W;
    const bool row = lane < nb;
    for (int c = warp; c < nc; c += 2 * warps) {
        const bool two = c + warps < nc;   // (warp-uniform)
        T* x1 = column(c);
        T* x2 = two ? column(c + warps) : x1;
        T v1 = row ? x1[lane] : ra_lub_zero<T>();
        T v2 = row && two ? x2[lane] : ra_lub_zero<T>();
        for (int s = 0; s + 1 < nb; ++s) {
            if ((zbits >> s) & 1) continue;
            const T m = row ? l[lane + (ra_i64)s * ldl] : ra_lub_zero<T>();
            const T s1 = ra_shfl(v1, s);
            const T s2 = ra_shfl(v2, s);
            if (lane > s && row) {
                v1 = ra_lub_fms(m, s1, v1);
                v2 = ra_lub_fms(m, s2, v2);
            }
        }
        if (row) {
            x1[lane] = v1;
            if (two) x2[lane] = v2;
        }
    }
}

"""

_PREFETCH_HELPERS = """// (variant prefetch) ask L2 for the rows x cols matrix at src (element strides rs, cs) when one
// stride is 1: a 64-byte step along it, every row or column, by the block's threads
template <typename T, int THREADS>
RA_DEVICE void ra_lub_prefetch_l2(int rows, int cols, const T* src, ra_i64 rs, ra_i64 cs) {
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
    const bool rows_fast = rs == 1 || rs == -1;
    if (!rows_fast && cs != 1 && cs != -1) return;
    constexpr int STEP = 64 / (int)sizeof(T);
    const int fast = rows_fast ? rows : cols, slow = rows_fast ? cols : rows;
    const int per = (fast + STEP - 1) / STEP;
    for (int e = threadIdx.x; e < per * slow; e += THREADS) {
        const int s = e / per, f = (e - s * per) * STEP;
        const T* p = rows_fast ? src + f * rs + s * cs : src + s * rs + f * cs;
        asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
    }
#else
    (void)rows, (void)cols, (void)src, (void)rs, (void)cs;
#endif
}

"""


def _replace_once(text, anchor, replacement, after=None):
    start = text.index(after) if after else 0
    at = text.index(anchor, start)
    return text[:at] + replacement + text[at + len(anchor):]


def warp_u12(text):
    """The whole block's triangular solve a warp a column (float64; see the module's head)."""
    text = _replace_once(text, _HELPERS_AT, _WARP_U12_HELPERS + _HELPERS_AT)
    split = "    for (int e = gt; e < nc; e += GT) {\n        T* col = sA + (ra_i64)(c0 + e) * ld + r0;\n"
    text = _replace_once(text, split, "    if (ra_lus_warp_u12<T>::value && !crew)\n"
                         "        ra_lus_solve_u12<T>([=](int c) { return sA + (ra_i64)(c0 + c) * ld + r0; },\n"
                         "                            sA + (ra_i64)r0 * ld + r0, ld, nbq, nc, zbits, gt, GT);\n"
                         "    else\n" + split, after="void ra_lus_apply(")
    compact = "    for (int e = gt; e < nc; e += GT) {\n        T* col = column(e) + r0;\n"
    return _replace_once(text, compact, "    if (ra_lus_warp_u12<T>::value && !crew)\n"
                         "        ra_lus_solve_u12<T>([=](int e) { return column(e) + r0; }, L + r0, ldl, nbq, nc,\n"
                         "                            zbits, gt, GT);\n"
                         "    else\n" + compact, after="void ra_luc_apply(")


def prefetch(text):
    """The compact kernel's next system asked of L2 as a system's panels begin."""
    stage_at = "// U(row, col) of an upper triangle held column-major in one array\n"
    text = _replace_once(text, stage_at, _PREFETCH_HELPERS + stage_at)
    begun = "        __syncthreads();\n        int bad = 0;\n"
    return _replace_once(text, begun, begun + "        if (mat + gridDim.x < batch)\n"
                         "            ra_lub_prefetch_l2<T, THREADS>(n, n, A + (mat + gridDim.x) * a_bs, a_rs,\n"
                         "                                           a_cs);\n",
                         after="void ra_rocsolver_getrf_block_compact(")


_SPILL_ROWS = """    if constexpr (SPILL) {
        // (variant spill_rows) the spilled columns a warp a column, a lane a row of every W
        constexpr int W = RA_WARP_SIZE, R = (RA_LU_COMPACT_COLUMNS + W - 1) / W;
        const int lane = gt % W;
        for (int c = gt / W; c < nc2; c += GT / W) {
            T* col = t2 + (ra_i64)c * ld2;
            T a[R];
#pragma unroll
            for (int r = 0; r < R; ++r) {
                const int row = r0 + nbq + lane + r * W;
                a[r] = row < n ? col[row] : zero;
            }
            for (int s0 = 0; s0 < nbq; s0 += K) {
                T u[K];
#pragma unroll
                for (int i = 0; i < K; ++i) u[i] = s0 + i < nbq ? col[r0 + s0 + i] : zero;
#pragma unroll
                for (int i = 0; i < K; ++i) {
                    const int s = s0 + i;
                    if (s < nbq && !((zbits >> s) & 1)) {
#pragma unroll
                        for (int r = 0; r < R; ++r) {
                            const int row = r0 + nbq + lane + r * W;
                            if (row < n) a[r] = ra_lub_fms(L[(ra_i64)s * ldl + row], u[i], a[r]);
                        }
                    }
                }
            }
#pragma unroll
            for (int r = 0; r < R; ++r) {
                const int row = r0 + nbq + lane + r * W;
                if (row < n) col[row] = a[r];
            }
        }
    }
"""


def spill_rows(text):
    """The compact kernel's spilled columns' rank update a warp a column (see the module's head)."""
    loop = ("    for (int e = gt; e < nc * chunks; e += GT) {\n        const int ch = e / nc;\n"
            "        T* col = column(e - ch * nc);\n")
    text = _replace_once(text, loop, loop.replace("nc", "nc1"), after="void ra_luc_apply(")
    end = "    ra_lus_sync(crew, GT, count, target);\n}\n"
    return _replace_once(text, end, _SPILL_ROWS + end, after="        const int ch = e / nc1;\n")


_STAGE_CREW_HELPERS = """// (variant stage_overlap) ra_lub_stage by the threads gt = 0 .. GT - 1 of a crew
template <typename T, int GT, int CHUNK>
RA_DEVICE void ra_lub_stage_by(int gt, int rows, int cols, const T* src, ra_i64 rs, ra_i64 cs, T* dst, int ldd) {
    const int total = rows * cols;
    const bool rows_fast = (rs < 0 ? -rs : rs) <= (cs < 0 ? -cs : cs);
    const int fast = rows_fast ? rows : cols;
    const int df = GT % fast, ds = GT / fast;
    int f = gt % fast, sl = gt / fast;
    for (int e0 = gt; e0 < total; e0 += CHUNK * GT) {
        T x[CHUNK];
        int at[CHUNK];
#pragma unroll
        for (int k = 0; k < CHUNK; ++k) {
            const int i = rows_fast ? f : sl, j = rows_fast ? sl : f;
            at[k] = e0 + k * GT < total ? i + j * ldd : -1;
            if (at[k] >= 0) x[k] = src[(ra_i64)i * rs + (ra_i64)j * cs];
            f += df;
            sl += ds;
            if (f >= fast) {
                f -= fast;
                ++sl;
            }
        }
#pragma unroll
        for (int k = 0; k < CHUNK; ++k)
            if (at[k] >= 0) dst[at[k]] = x[k];
    }
}

// (variant stage_overlap) the compact kernel's staging of columns c0 .. n - 1 (from cs on into the
// scratch g) and of B by the update crew's threads gt = 0 .. GT - 1: not inlined, so that the
// panel crew's step keeps its registers
template <typename T, int GT>
__device__ __noinline__ void ra_luc_stage_rest(int gt, int n, int nrhs, int c0, int cs, const T* A, ra_i64 a_rs,
                                               ra_i64 a_cs, const T* B, ra_i64 b_rs, ra_i64 b_cs, T* sA, int ld,
                                               T* g, int lg, T* sB) {
    ra_lub_stage_by<T, GT, 8>(gt, n, cs - c0, A + c0 * a_cs, a_rs, a_cs, sA + (ra_i64)c0 * ld, ld);
    if (cs < n) ra_lub_stage_by<T, GT, 8>(gt, n, n - cs, A + cs * a_cs, a_rs, a_cs, g, lg);
    ra_lub_stage_by<T, GT, 8>(gt, n, nrhs, B, b_rs, b_cs, sB, ld);
}

"""

_STAGE_ALL = """        ra_lub_stage<T, THREADS, 8>(n, cs, A + mat * a_bs, a_rs, a_cs, sA, ld);
        if (cs < n) ra_lub_stage<T, THREADS, 8>(n, n - cs, A + mat * a_bs + cs * a_cs, a_rs, a_cs, g, lg);
        ra_lub_stage<T, THREADS, 8>(n, nrhs, B + mat * b_bs, b_rs, b_cs, sB, ld);
        __syncthreads();
"""

_STAGE_PANEL0 = """        // (variant stage_overlap) panel 0's columns now; the rest by the update crew in phase 0
        const int c0 = n < NB ? n : NB;
        ra_lub_stage<T, THREADS, 8>(n, c0, A + mat * a_bs, a_rs, a_cs, sA, ld);
        __syncthreads();
"""

_STAGE_PHASE0 = """            } else if (k == 0) {
                // (variant stage_overlap) the other columns and B while the crew factors panel 0
                ra_luc_stage_rest<T, UT>(tid - PT, n, nrhs, c0, cs, A + mat * a_bs, a_rs, a_cs, B + mat * b_bs, b_rs,
                                         b_cs, sA, ld, g, lg, sB);
            }
            __syncthreads();
        }
"""


def stage_overlap(text):
    """The compact kernel's staging past panel 0 by its update crew during phase 0 (see the
    module's head)."""
    kernel = "void ra_rocsolver_getrf_block_compact("
    text = _replace_once(text, _HELPERS_AT, _STAGE_CREW_HELPERS + _HELPERS_AT)
    text = _replace_once(text, _STAGE_ALL, _STAGE_PANEL0, after=kernel)
    end = "            }\n            __syncthreads();\n        }\n"
    return _replace_once(text, end, _STAGE_PHASE0, after=kernel)


_WARP_COLUMNS = """template <typename T, int NB, bool SPILL>
__device__ __noinline__ void ra_luc_apply(int q, int n, const T* L, int ldl, T* t1, int ld1, int nc1, T* t2,
                                          int ld2, int nc2, T* tl, int left, const int* slabel, int zbits,
                                          int gt, int GT, bool crew, int* count, int& target) {
    // (variant warp_columns) a warp a target column, COLUMNS at once
    constexpr int W = RA_WARP_SIZE, RM = (128 + W - 1) / W;   // rows a lane holds (orders <= 128)
    constexpr int P = COLUMNS;
    const T zero = ra_lub_zero<T>();
    const int r0 = q * NB, mq = n - r0, nbq = mq < NB ? mq : NB;
    const int nc = SPILL ? nc1 + nc2 : nc1, ncols = left + nc;
    const int lane = gt % W, warp = gt / W, warps = GT / W;
    // column e of the ncols: the interchanged-only ones at tl first, then the targets
    auto column = [=](int e) -> T* {
        if (e < left) return tl + (ra_i64)e * ld1;
        e -= left;
        return !SPILL || e < nc1 ? t1 + (ra_i64)e * ld1 : t2 + (ra_i64)(e - nc1) * ld2;
    };
    // the interchanged-only columns (part 0), then the targets (part 1), P at a time within a part
    for (int part = 0; part < 2; ++part) {
    const int lo = part ? left : 0, hi = part ? ncols : left;
    for (int e0 = lo + warp; e0 < hi; e0 += P * warps) {
        bool has[P];   // (warp-uniform)
        T* col[P];
#pragma unroll
        for (int p = 0; p < P; ++p) {
            has[p] = e0 + p * warps < hi;
            col[p] = column(has[p] ? e0 + p * warps : e0);
        }
        // the interchanges: row r0 + t goes to row slabel[t]; the column's reads before its writes
        T x[P][RM];
        int to[RM];
#pragma unroll
        for (int k = 0; k < RM; ++k) {
            const int t = lane + k * W;
            to[k] = -1;
            if (t < mq) {
                const int d = slabel[t];
                if (d != r0 + t) {
                    to[k] = d;
#pragma unroll
                    for (int p = 0; p < P; ++p)
                        if (has[p]) x[p][k] = col[p][r0 + t];
                }
            }
        }
        __threadfence_block();
        ra_warp_sync();
#pragma unroll
        for (int k = 0; k < RM; ++k)
            if (to[k] >= 0) {
#pragma unroll
                for (int p = 0; p < P; ++p)
                    if (has[p]) col[p][to[k]] = x[p][k];
            }
        __threadfence_block();
        ra_warp_sync();
        if (part == 0) continue;
        // U12 := L11^-1 A12: lane i holds row r0 + i; at step s the rows below s subtract
        // L(r0 + i, s) times row s's finished element
        T v[P];
#pragma unroll
        for (int p = 0; p < P; ++p) v[p] = lane < nbq && has[p] ? col[p][r0 + lane] : zero;
        for (int s = 0; s + 1 < nbq; ++s) {
            if ((zbits >> s) & 1) continue;
            const T m = lane < nbq ? L[r0 + lane + (ra_i64)s * ldl] : zero;
#pragma unroll
            for (int p = 0; p < P; ++p) {
                const T xs = ra_shfl(v[p], s);
                if (lane > s && lane < nbq) v[p] = ra_lub_fms(m, xs, v[p]);
            }
        }
#pragma unroll
        for (int p = 0; p < P; ++p)
            if (lane < nbq && has[p]) col[p][r0 + lane] = v[p];
        // A22 -= L21 U12: lane i holds rows r0 + nbq + i + k W; U12's element s by a shuffle
        T a[P][RM];
#pragma unroll
        for (int k = 0; k < RM; ++k) {
            const int row = r0 + nbq + lane + k * W;
#pragma unroll
            for (int p = 0; p < P; ++p) a[p][k] = row < n && has[p] ? col[p][row] : zero;
        }
        for (int s = 0; s < nbq; ++s) {
            if ((zbits >> s) & 1) continue;
            T u[P];
#pragma unroll
            for (int p = 0; p < P; ++p) u[p] = ra_shfl(v[p], s);
            const T* l = L + (ra_i64)s * ldl + r0 + nbq + lane;
#pragma unroll
            for (int k = 0; k < RM; ++k)
                if (r0 + nbq + lane + k * W < n) {
                    const T lk = l[k * W];
#pragma unroll
                    for (int p = 0; p < P; ++p) a[p][k] = ra_lub_fms(lk, u[p], a[p][k]);
                }
        }
#pragma unroll
        for (int k = 0; k < RM; ++k) {
            const int row = r0 + nbq + lane + k * W;
#pragma unroll
            for (int p = 0; p < P; ++p)
                if (row < n && has[p]) col[p][row] = a[p][k];
        }
    }
    }
    ra_lus_sync(crew, GT, count, target);
}

"""


def warp_columns(text, columns=2):
    """The compact kernel's ra_luc_apply a warp a target column, ``columns`` at once (see the
    module's head)."""
    head = "template <typename T, int NB, bool SPILL>\n__device__ __noinline__ void ra_luc_apply("
    start = text.index(head)
    end = text.index("template <typename T, int N, bool WIN>\n__global__ RA_LU_COMPACT_LAUNCH_BOUNDS", start)
    return text[:start] + _WARP_COLUMNS.replace("COLUMNS", str(columns)) + text[end:]


def backsub_unroll(text):
    """The back substitution's steps unrolled by 4 (see the module's head)."""
    steps = "            for (int s = W - 1; s >= 0; --s) {\n                const int k = q * W + s;\n"
    return _replace_once(text, steps, "#pragma unroll 4\n" + steps, after="void ra_lub_back_substitute_by(")


_BACKSUB = """        for (int q = Q - 1; q >= 0; --q) {
            for (int s = W - 1; s >= 0; --s) {
                const int k = q * W + s;
                if (k >= n) continue;
                const T xk = ra_shfl(ra_lub_mul(y[q], d[q]), s);
                if (lane == s) y[q] = xk;
#pragma unroll
                for (int qq = 0; qq <= q; ++qq) {
                    const int row = qq * W + lane;
                    if (row < k) y[qq] = ra_lub_fms(U(row, k), xk, y[qq]);
                }
            }
        }
"""

_BACKSUB_PIPELINE = """        for (int q = Q - 1; q >= 0; --q) {
            // (variant backsub_pipeline) U's column k loaded during step k + 1
            const int top = n - 1 - q * W < W - 1 ? n - 1 - q * W : W - 1;   // the last s with k < n
            T u[Q];
#pragma unroll
            for (int qq = 0; qq <= q; ++qq) {
                const int row = qq * W + lane;
                u[qq] = top >= 0 && row < q * W + top ? U(row, q * W + top) : zero;
            }
            for (int s = top; s >= 0; --s) {
                const int k = q * W + s;
                T un[Q];
#pragma unroll
                for (int qq = 0; qq <= q; ++qq) {
                    const int row = qq * W + lane;
                    un[qq] = s > 0 && row < k - 1 ? U(row, k - 1) : zero;
                }
                const T xk = ra_shfl(ra_lub_mul(y[q], d[q]), s);
                if (lane == s) y[q] = xk;
#pragma unroll
                for (int qq = 0; qq <= q; ++qq) {
                    const int row = qq * W + lane;
                    if (row < k) y[qq] = ra_lub_fms(u[qq], xk, y[qq]);
                    u[qq] = un[qq];
                }
            }
        }
"""


def backsub_pipeline(text):
    """The back substitution's U loads a step ahead (see the module's head)."""
    return _replace_once(text, "#pragma unroll\n" + _BACKSUB, "#pragma unroll\n" + _BACKSUB_PIPELINE,
                         after="void ra_lub_back_substitute_by(")


#: The variants by name.
VARIANTS = {"warp_u12": warp_u12, "prefetch": prefetch, "spill_rows": spill_rows, "backsub_unroll": backsub_unroll,
            "backsub_pipeline": backsub_pipeline, "stage_overlap": stage_overlap,
            "warp_columns": warp_columns, "warp_column": lambda text: warp_columns(text, 1)}


def apply(text, names):
    """``text`` with the variants ``names`` (an iterable of VARIANTS' keys) applied in turn."""
    for name in names:
        text = VARIANTS[name](text)
    return text
