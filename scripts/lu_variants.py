"""Candidate changes to ``rocsolver/lu_block.hip``, kept as anchored patches of the tree's source
until the device has timed them (docs/performance/rocsolver.md), so that one call can A/B them all:

    python scripts/lu_source_ab.py base=- warp=+warp_u12 back=+backsub_pipeline both=+warp_u12+backsub_pipeline

A variant is a function from the source text to the patched text; :func:`apply` applies several in
turn. Each changes only how the work is scheduled, never the operations on an element or their
order, so each variant's factors and solutions are the tree's bit for bit (the emulator tests in
``tests/rocsolver/test_lu_variants.py`` check that, and that each compiles for sm_90).

* ``warp_u12``: the whole block's unit lower triangular solve in ``ra_lus_apply`` and
  ``ra_luc_apply`` (the look-ahead, the last panel's solve for B: nothing runs beside them) by a
  warp a column, a lane a row, row s's finished element by a shuffle at step s, two columns a warp;
  float64 only (see docs/performance/rocsolver.md, thirty-second session). The update crew's
  solve, beside the panel crew's chain, stays a thread a column.
* ``backsub_unroll``: the back substitution's steps unrolled by 4, so that the next steps' loads
  of U can be issued ahead of the step's chain (multiply, shuffle, multiply-add).
* ``backsub_pipeline``: the back substitution's step with U's column loaded a step ahead (its
  shared loads off the chain, which in the tree's code waits for them after the shuffle) and
  without the per-step test of k < n (the loop's bound instead).
* ``split_stage``: the split kernel stages panel 0's columns with the whole block; its update
  crew, idle while the panel crew factors panel 0, stages the other columns and B then (through
  the compact kernel's ``ra_luc_stage_rest``, not inlined), as the compact kernel does.
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


_SPLIT_STAGE_ALL = """    ra_lub_stage<T, THREADS>(n, n, A + mat * a_bs, a_rs, a_cs, sA, ld);
    if (SOLVE) ra_lub_stage<T, THREADS>(n, nrhs, B + mat * b_bs, b_rs, b_cs, sA + (ra_i64)ld * n, ld);
"""

_SPLIT_STAGE_PANEL0 = """    // (variant split_stage) panel 0's columns now; the rest by the update crew in phase 0
    const int c0 = n < NB ? n : NB;
    ra_lub_stage<T, THREADS>(n, c0, A + mat * a_bs, a_rs, a_cs, sA, ld);
"""

_SPLIT_STAGE_PHASE0 = """        } else if (k > 0) {
            ra_lus_apply<T, NB>(k - 1, n, sA, ld, slabel[prev], szero[prev], j0 + nb, nce, SOLVE ? 0 : j0 - NB,
                                tid - PT, UT, true, &scount[1], utarget);
        } else {
            // (variant split_stage) the columns right of panel 0 and B, while the panel crew factors it
            ra_luc_stage_rest<T, UT>(tid - PT, n, SOLVE ? nrhs : 0, c0, n, A + mat * a_bs, a_rs, a_cs,
                                     B + mat * b_bs, b_rs, b_cs, sA, ld, sA, ld, sA + (ra_i64)ld * n);
        }
"""


def split_stage(text):
    """The split kernel's staging past panel 0 by its update crew during phase 0 (see the module's
    head)."""
    kernel = "void ra_rocsolver_getrf_block_split("
    text = _replace_once(text, _SPLIT_STAGE_ALL, _SPLIT_STAGE_PANEL0, after=kernel)
    old = _SPLIT_STAGE_PHASE0.split("        } else {\n")[0] + "        }\n"
    return _replace_once(text, old, _SPLIT_STAGE_PHASE0, after=kernel)


#: The variants by name.
VARIANTS = {"warp_u12": warp_u12, "backsub_unroll": backsub_unroll, "backsub_pipeline": backsub_pipeline,
            "split_stage": split_stage}


def apply(text, names):
    """``text`` with the variants ``names`` (an iterable of VARIANTS' keys) applied in turn."""
    for name in names:
        text = VARIANTS[name](text)
    return text
