"""Where one elimination step of the batched register-tile LU goes, in SM clock cycles.

For docs/performance/rocsolver.md. The bench stack (10^4 float64 systems of order 128, one
right-hand side) is solved once by ``getrf_block_wide`` compiled from an instrumented copy of
``lu_block.hip`` (the package's file is not touched: the copy reaches the compiler through a
patched ``rocarray._core.compile.read_text``, and the binary cache keys it apart). In one block
(matrix 2000, mid-launch), lane 0 of the warps on the step's chain stores ``clock64()``:

* the pivot warp of step j when its search starts, after its xor rounds, after the winner's
  shuffles, and when it arrives at the barrier;
* the pivot warp of step j + 1 once it has left that barrier and read p, once it knows which
  register row holds row p, and once its interchange is done.

    python scripts/lu_step_clock.py            # getrf_block_wide, by elimination step
    python scripts/lu_step_clock.py --panel    # getrf_panel (the panel kernel), by panel phase
    python scripts/lu_step_clock.py --flow     # getrf_block_wide_flow (no step barrier), by step
    python scripts/lu_step_clock.py --split    # getrf_block_split (two crews), by panel step and phase
    python scripts/lu_step_clock.py --split --window   # the same with its windowed step (SPLIT_WINDOW)
    python scripts/lu_step_clock.py --compact  # getrf_block_compact (two blocks a multiprocessor)

With ``--panel`` the marks time each phase k of ``getrf_panel`` (one barrier a phase): warp 0
bringing the next panel's columns up to date (interchanges, triangular solve), its rank update of
that panel, its factorization of it, and warp 1 (one of the warps that update the columns right
of it) finishing its share.

With ``--flow`` the marks time the flow step (``_lu_block.WIDE_FLOW``): the warp that searches
column j + 1 from the publication of column j's pivot (its wait, its update of column j + 1, its
search and publication, the rest of its update), and another warp's whole step.

Prints the medians of each phase over ranges of steps (or panels) and the instrumented call's time
(the clock stores cost a few percent). The X of the instrumented kernel is compared with the
plain kernel's bit for bit.
"""

import sys

import numpy

from rocarray._core import backend, compile as _compile
from rocarray.rocsolver import _lu_block

SOURCE = "rocsolver/lu_block.hip"
BLOCK = 2000
MARKS = 8

_HEADER = f"""
#define RA_STEP_CLOCK_ON (blockIdx.x == {BLOCK} && (threadIdx.x % RA_WARP_SIZE) == 0)
#define RA_STEP_CLOCK(k, w, dep) do {{ if (RA_STEP_CLOCK_ON && (int)(threadIdx.x / RA_WARP_SIZE) == (w) && (dep)) \\
    ((long long*)F)[{MARKS} * j + (k)] = clock64(); }} while (0)
"""


def _instrumented(text):
    """lu_block.hip with the clock marks in ra_lub_getrf's step (the wide kernel's body)."""
    def last(anchor, replacement):
        nonlocal text
        at = text.rindex(anchor, 0, text.index("ra_rocsolver_getrf_block("))
        text = text[:at] + replacement + text[at + len(anchor):]

    search = "if ((!LOOK || j == 0) && ra_warp_id() == t * SR / RA_WARP_SIZE) {"
    last(search, search + "\n                RA_STEP_CLOCK(0, t, true);")
    winner = "                const int from = seg + (brow == RA_LU_BLOCK_NO_ROW ? tj : brow % SR);"
    last(winner, "                RA_STEP_CLOCK(1, t, brow != -5);\n" + winner)
    rwin = "                const T rwin = ra_shfl(rloc, from);"
    last(rwin, rwin + "\n                RA_STEP_CLOCK(2, t, ra_lub_abs1(rwin) != -7);")
    # (the mark after the barrier waits for p, read there: a clock read alone may be scheduled
    # above the barrier)
    barrier = "            else __syncthreads();\n            const int p = pbuf[par][0];"
    last(barrier, "            else {\n                RA_STEP_CLOCK(3, t, true);\n                __syncthreads();\n"
                  "            }\n            const int p = pbuf[par][0];\n            RA_STEP_CLOCK(4, (t + 1) % SC, p != -9);")
    p_read = "            const int tp = p % SR, ap = p / SR;"
    last(p_read, p_read + "\n            RA_STEP_CLOCK(5, (t + 1) % SC, ap != -3);")
    multipliers = "            // the multipliers (rows below j): column j scaled by the pivot's reciprocal, unless"
    last(multipliers, "            RA_STEP_CLOCK(6, (t + 1) % SC, ra_lub_abs1(v[MR - 1][MC - 1]) != -7);\n" + multipliers)
    return _HEADER + text


def _instrumented_flow(text):
    """lu_block.hip with the clock marks in ra_lub_getrf's flow step."""
    def last(anchor, replacement):
        nonlocal text
        at = text.rindex(anchor, 0, text.index("ra_rocsolver_getrf_block("))
        text = text[:at] + replacement + text[at + len(anchor):]

    owner, other = "(t + 1) % SC", "(t + SC / 2 + 1) % SC"
    p_read = "            const int tp = p % SR, ap = p / SR;"
    last(p_read, p_read + f"\n            RA_STEP_CLOCK(0, {owner}, ap != -3);")
    search = "                const int next = FLOW ? (j + 1) % NBUF : par ^ 1;"
    last(search, search + f"\n                RA_STEP_CLOCK(1, {owner}, ra_lub_abs1(rpiv) != -7);")
    published = "                if (FLOW) ra_lub_raise_count(&sready, j + 2);"
    last(published, published + f"\n                RA_STEP_CLOCK(2, {owner}, true);")
    done = "            if (FLOW) ra_lub_raise_count(&sdone[tc], j + 1);"
    last(done, done + f"\n            RA_STEP_CLOCK(3, {owner}, true);\n            RA_STEP_CLOCK(4, {other}, true);")
    return _HEADER + text


_PANEL_HEADER = f"""
#define RA_PANEL_CLOCK(i, w) do {{ if (blockIdx.x == {BLOCK} && (threadIdx.x % RA_WARP_SIZE) == 0 \\
    && (int)(threadIdx.x / RA_WARP_SIZE) == (w)) ((long long*)F)[{MARKS} * k + (i)] = clock64(); }} while (0)
"""


def _instrumented_panel(text):
    """lu_block.hip with the clock marks in getrf_panel's phase loop."""
    def once(anchor, replacement):
        nonlocal text
        start = text.index("void ra_rocsolver_getrf_panel(")
        at = text.index(anchor, start)
        text = text[:at] + replacement + text[at + len(anchor):]

    loop = "    for (int k = 0; k < np; ++k) {\n"
    once(loop, loop + "        RA_PANEL_CLOCK(0, 0);\n")
    once("                ra_warp_sync();\n", "                ra_warp_sync();\n                RA_PANEL_CLOCK(1, 0);\n")
    factor = "                ra_lup_factor<T, RW, NB, SOLVE>(nxt, label, c1,"
    once(factor, "                RA_PANEL_CLOCK(2, 0);\n" + factor)
    # (the mark goes above the copy's #pragma unroll: between the two, the pragma would unroll the
    # mark's do-while and leave the copy rolled, its register arrays in local memory)
    copy = "#pragma unroll\n                for (int r = 0; r < RW; ++r) {\n#pragma unroll\n                    for (int c = 0; c < NB; ++c) cur[r][c] = nxt[r][c];"
    once(copy, "                RA_PANEL_CLOCK(3, 0);\n" + copy)
    end = "        __syncthreads();\n    }\n    if (threadIdx.x == 0) info[mat] = bad;"
    once(end, "        RA_PANEL_CLOCK(4, 1);\n        __syncthreads();\n        RA_PANEL_CLOCK(5, 1);\n    }\n"
              "    if (threadIdx.x == 0) info[mat] = bad;")
    return _PANEL_HEADER + text


def _split_header(block):
    """The split and compact kernels' clock: marks of block ``block`` in a device array."""
    return f"""
__device__ long long ra_split_clock[{MARKS} * 128];
#define RA_SPLIT_CLOCK_ON (blockIdx.x == {block} && (threadIdx.x % RA_WARP_SIZE) == 0)
#define RA_SPLIT_CLOCK(row, i, w) do {{ if (RA_SPLIT_CLOCK_ON && (int)(threadIdx.x / RA_WARP_SIZE) == (w)) \\
    ra_split_clock[{MARKS} * (row) + (i)] = clock64(); }} while (0)
"""


#: The compact kernel's block whose marks are kept (its grid is the resident blocks, ~264).
COMPACT_BLOCK = 100


class _Patched:
    """A kernel source taking marks: :meth:`once` inserts at the first ``anchor`` past ``after``."""

    def __init__(self, text):
        self.text = text

    def once(self, anchor, replacement, after="void ra_lus_factor("):
        at = self.text.index(anchor, self.text.index(after))
        self.text = self.text[:at] + replacement + self.text[at + len(anchor):]


def _step_marks(once):
    """The crew's step marks in ra_lus_factor (shared by the split and compact kernels)."""
    key = "            const T x = v[i];\n"
    once(key, "            RA_SPLIT_CLOCK(j, 0, 0);\n" + key)
    sync = "            ra_lus_group_sync<1>(threads, count, target);\n"
    once(sync, "            RA_SPLIT_CLOCK(j, 1, 0);\n            RA_SPLIT_CLOCK(j, 3, nwp - 1);\n" + sync
         + "            RA_SPLIT_CLOCK(j, 2, 0);\n")


def _apply_marks(once, apply):
    """The whole block's look-ahead of panel q by part, warp 0 in row 8 + q, and the update crew's
    update with panel q by part, its first warp in row 14 + q (at its start, past the interchanges,
    past the triangular solve's barrier, at its last barrier), in the function ``apply``
    (ra_lus_apply or ra_luc_apply)."""
    crew = "    if (crew) RA_SPLIT_CLOCK(14 + q, {}, 128 / RA_WARP_SIZE);\n"
    entry = "    constexpr int K = 8;   // elements a thread moves a round; rows a thread updates together\n"
    once(entry, entry + crew.format(4), apply)
    once("    // U12: the unit lower", "    if (!crew) RA_SPLIT_CLOCK(8 + q, 4, 0);\n" + crew.format(5)
         + "    // U12: the unit lower", apply)
    solved = "    ra_lus_sync(crew, GT, count, target);\n    // A22 -= L21 U12"
    once(solved, "    if (!crew) RA_SPLIT_CLOCK(8 + q, 5, 0);\n    ra_lus_sync(crew, GT, count, target);\n"
         "    if (!crew) RA_SPLIT_CLOCK(8 + q, 6, 0);\n" + crew.format(6) + "    // A22 -= L21 U12", apply)
    last = "    ra_lus_sync(crew, GT, count, target);\n}\n"
    once(last, "    if (!crew) RA_SPLIT_CLOCK(8 + q, 7, 0);\n" + crew.format(7) + last, apply)


def _phase_marks(once, kernel, indent, factor):
    """Phase k's marks (row k) by warp 0 in ``kernel``, whose panel loop's body is indented by
    ``indent``: at the phase's start (column 4), before the crew's call ``factor`` (5) and past
    it (6)."""
    loop = f"{indent}const int prev = (k + 1) & 1;   // panel k - 1's buffers\n"
    once(loop, loop + f"{indent}RA_SPLIT_CLOCK(k, 4, 0);\n", kernel)
    call = f"{indent}if (tid < PT) {{\n{indent}    {factor}"
    once(call, f"{indent}RA_SPLIT_CLOCK(k, 5, 0);\n" + call, kernel)
    factored = f"ptarget);\n{indent}}} else if (k > 0) {{"
    once(factored, f"ptarget);\n{indent}    RA_SPLIT_CLOCK(k, 6, 0);\n{indent}}} else if (k > 0) {{", kernel)


def _stage_marks(once, kernel, indent, *places):
    """A system's first four stage marks (row 12, columns 4-7) by warp 0 in ``kernel``: each place
    an (anchor, before) pair, the mark before or after its anchor; the kernel's own code adds the
    fifth (row 13, column 4) past the back substitution."""
    for col, (anchor, before) in enumerate(places, start=4):
        mark = f"{indent}RA_SPLIT_CLOCK(12, {col}, 0);\n"
        once(anchor, mark + anchor if before else anchor + mark, kernel)


def _instrumented_split(text):
    """lu_block.hip with the clock marks in getrf_block_split: by panel step j (row j) warp 0 at the
    step's start, at its barrier and past it, and the crew's last warp at its barrier; by phase k
    (row k) warp 0 at the phase's start, past the look-ahead update, past its factorization, the
    update crew's first warp past its update, and warp 0 past the phase's barrier; by system (row
    12, columns 4-7, then row 13's column 4) warp 0 before the staging, past it, past the panels,
    past the last panel's solve for B and past the back substitution. The marks go to the factors'
    pointer (unused by a solve) at the end."""
    text = _Patched(text)
    once = text.once
    _step_marks(once)
    kernel = "void ra_rocsolver_getrf_block_split("
    _phase_marks(once, kernel, "        ", "ra_lus_factor<T, NB, PW, SOLVE, WIN, true>(")
    crew = "tid - PT, UT, true, &scount[1], utarget);\n"
    once(crew, crew + "            RA_SPLIT_CLOCK(k, 7, PW);\n", kernel)
    # the look-ahead's parts (the whole block's ra_lus_apply of panel q), by warp 0 in row 8 + q
    _apply_marks(once, "void ra_lus_apply(")
    _stage_marks(once, kernel, "    ", ("    ra_lub_stage<T, THREADS>(n, n, A + mat * a_bs", True),
                 ("    if (tid < 2) scount[tid] = 0;\n    __syncthreads();\n", False),
                 ("    // the last panel's interchanges (and solve) for the columns the loop left", True),
                 ("    if (tid == 0) info[mat] = bad;\n", True))
    done = "ld, X + mat * x_bs, x_rs, x_cs);\n}\n"
    once(done, "ld, X + mat * x_bs, x_rs, x_cs);\n    RA_SPLIT_CLOCK(13, 4, 0);\n    __syncthreads();\n"
         f"    if (blockIdx.x == {BLOCK})\n"
         f"        for (int e = tid; e < {MARKS} * 128; e += THREADS) ((long long*)F)[e] = ra_split_clock[e];\n}}\n",
         kernel)
    return _split_header(BLOCK) + text.text


def _instrumented_compact(text):
    """lu_block.hip with the split kernel's marks (:func:`_instrumented_split`, by system too) in
    getrf_block_compact and ra_luc_apply, block COMPACT_BLOCK (the last of its systems). The marks
    go to the pivots' pointer (unused by a solve) after each system."""
    text = _Patched(text)
    once = text.once
    _step_marks(once)
    kernel = "void ra_rocsolver_getrf_block_compact("
    _phase_marks(once, kernel, "            ", "ra_lus_factor<")
    crew = "utarget);\n            } else if (k == 0) {\n"
    once(crew, "utarget);\n                RA_SPLIT_CLOCK(k, 7, PW);\n            } else if (k == 0) {\n", kernel)
    _apply_marks(once, "void ra_luc_apply(")
    _stage_marks(once, kernel, "        ", ("        if (tid < 2) scount[tid] = 0;\n", True),
                 ("        __syncthreads();\n        int bad = 0;\n", False),
                 ("        // the last panel's interchanges and solve for B", True),
                 ("        if (tid == 0) info[mat] = bad;\n", True))
    done = "        __syncthreads();   // the next matrix's staging overwrites what this one read\n"
    once(done, done + "        RA_SPLIT_CLOCK(13, 4, 0);\n"
         f"        if (blockIdx.x == {COMPACT_BLOCK})\n"
         f"            for (int e = tid; e < {MARKS} * 128; e += THREADS) ((long long*)ipiv)[e] = ra_split_clock[e];\n",
         kernel)
    return _split_header(COMPACT_BLOCK) + text.text


def main(argv):
    cupy = backend.cupy()
    n, batch = 128, 10_000
    rs = cupy.random.RandomState(3)
    a = rs.standard_normal((batch, n, n))
    b = rs.standard_normal((batch, n, 1))
    clocks = cupy.zeros(MARKS * n, numpy.int64)
    info = cupy.zeros(batch, numpy.int32)
    panel, flow, split, compact = "--panel" in argv, "--flow" in argv, "--split" in argv, "--compact" in argv
    split = split or compact
    instrument = (_instrumented_panel if panel else _instrumented_flow if flow else _instrumented_compact if compact
                  else _instrumented_split if split else _instrumented)
    window = "--window" in argv
    saved = (_lu_block.WIDE, _lu_block.WIDE_LOOKAHEAD, _lu_block.WIDE_FLOW, _lu_block.PANEL, _lu_block.SPLIT,
             _lu_block.SPLIT_WINDOW, _compile.read_text, _lu_block.COMPACT, _lu_block.COMPACT_ORDER)
    plain = _compile.read_text
    try:
        _lu_block.WIDE, _lu_block.WIDE_LOOKAHEAD, _lu_block.WIDE_FLOW, _lu_block.PANEL = True, False, flow, panel
        _lu_block.SPLIT, _lu_block.SPLIT_WINDOW = split, window
        _lu_block.COMPACT, _lu_block.COMPACT_ORDER = compact, _lu_block.SPLIT_ORDER
        want = cupy.empty_like(b)
        _lu_block.gesv(a, b, want, info)
        _compile.read_text = lambda rel: instrument(plain(rel)) if rel == SOURCE else plain(rel)
        _lu_block.WIDE_KERNELS._kernels.clear()
        _lu_block.KERNELS._kernels.clear()
        for family in list(_lu_block.SPLIT_KERNELS.values()) + [_lu_block.COMPACT_KERNELS]:
            family._kernels.clear()
        _compile._modules.clear()
        x = cupy.empty_like(b)
        # gesv's arguments with the clock buffer in the factors' place (the compact kernel: the
        # pivots'), unused by the solve
        args = _lu_block.gesv_args(a, b, x, info)
        args = args[:7] + (clocks,) + args[8:] if compact else args[:4] + (clocks,) + args[5:]
        _lu_block._launch(a.dtype, n, 1, True, batch, args, a.data.device_id)
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        _lu_block._launch(a.dtype, n, 1, True, batch, args, a.data.device_id)
        stop.record()
        stop.synchronize()
        ms = cupy.cuda.get_elapsed_time(start, stop)
    finally:
        (_lu_block.WIDE, _lu_block.WIDE_LOOKAHEAD, _lu_block.WIDE_FLOW, _lu_block.PANEL, _lu_block.SPLIT,
         _lu_block.SPLIT_WINDOW, _compile.read_text, _lu_block.COMPACT, _lu_block.COMPACT_ORDER) = saved
        _lu_block.WIDE_KERNELS._kernels.clear()
        _lu_block.KERNELS._kernels.clear()
        for family in list(_lu_block.SPLIT_KERNELS.values()) + [_lu_block.COMPACT_KERNELS]:
            family._kernels.clear()
        _compile._modules.clear()
    c = cupy.asnumpy(clocks).reshape(n, MARKS).astype(numpy.float64)
    same = bool((x == want).all())
    if panel:
        return _report_panel(c, ms, same)
    if split:
        return _report_split(c, ms, same, window, compact)
    if flow:
        return _report_flow(c, ms, same, n)
    start_search, rounds, winner, arrive, leave, p_read, exchanged = (c[:, k] for k in range(7))
    phases = {
        "p read -> its register row": p_read[:-1] - leave[:-1],
        "p -> interchange": exchanged[:-1] - p_read[:-1],
        "interchange -> update done": start_search[1:] - exchanged[:-1],
        "search: local + rounds": rounds[1:] - start_search[1:],
        "rounds -> winner": winner[1:] - rounds[1:],
        "winner -> arrive": arrive[1:] - winner[1:],
        "arrive -> leave, p read": leave[1:] - arrive[1:],
        "step": leave[1:] - leave[:-1],
    }
    print(f"getrf_block_wide<double, 128, true, false>, instrumented: {ms:.3f} ms; X bit for bit with the plain "
          f"kernel: {same}")
    _table("cycles, median over the steps of each range (the pivot warp of step j + 1 from the barrier of step j):",
           phases, ((1, 32), (32, 64), (64, 96), (96, n - 2)))
    return 0


def _table(title, rows, ranges, first=0):
    """Prints the median of each row's values over each (lo, hi) range, labelled lo + first .. hi + first."""
    width = max(map(len, rows)) + 2
    print(title)
    print(f"{'phase':{width}s}" + "".join(f"{f'{lo + first}-{hi + first}':>9s}" for lo, hi in ranges))
    for name, values in rows.items():
        print(f"{name:{width}s}" + "".join(f"{numpy.median(values[lo:hi]):9.0f}" for lo, hi in ranges))


def _report_flow(c, ms, same, n):
    """The flow step's phases in cycles, step j's row timed from the publication of column j's pivot."""
    p_read, searching, published, owner_done, other_done = (c[:, k] for k in range(5))
    rows = {
        "searching warp: wait -> p read": p_read[1:-2] - published[:-3],
        "its column j + 1": searching[1:-2] - p_read[1:-2],
        "its search, published": published[1:-2] - searching[1:-2],
        "its rest of step j": owner_done[1:-2] - published[1:-2],
        "another warp: step j done": other_done[1:-2] - published[:-3],
        "step (publication to publication)": published[1:-2] - published[:-3],
    }
    print(f"getrf_block_wide_flow<double, 128, true, false>, instrumented: {ms:.3f} ms; X bit for bit with the plain "
          f"kernel: {same}")
    _table("cycles, median over the steps of each range (from the publication of column j's pivot):",
           rows, ((0, 31), (31, 63), (63, 95), (95, n - 3)), first=1)
    return 0


def _report_panel(c, ms, same):
    """The phases of getrf_panel<double, 128, true>, in cycles (its 16 panels of 8 columns)."""
    phases = c[:16]
    start, solved, updated, factored, others, leave = (phases[:, i] for i in range(6))
    rows = {
        "warp 0: interchanges, solve": solved - start,
        "warp 0: rank update": updated - solved,
        "warp 0: factor the panel": factored - updated,
        "warp 1: its columns (done)": others - start,
        "barrier (warp 1 arrives -> leaves)": leave - others,
        "phase": leave - start,
    }
    print(f"getrf_panel<double, 128, true>, instrumented: {ms:.3f} ms; X bit for bit with the plain kernel: {same}")
    _table("cycles, median over the phases of each range:", rows, ((0, 4), (4, 8), (8, 12), (12, 15)))
    print(f"{'total over the phases':36s}{(leave[:15] - start[:15]).sum():9.0f}")
    return 0


def _report_split(c, ms, same, window, compact=False):
    """The panel steps and phases of getrf_block_split<double, 128, true, window> (or of
    getrf_block_compact<double, 128, window> with its marks by system), in cycles."""
    start, arrive, leave, last = c[:, 0], c[:, 1], c[:, 2], c[:, 3]
    steps = {
        "warp 0: step start -> barrier": arrive - start,
        "warp 0: barrier (arrive -> leave)": leave - arrive,
        "last crew warp arrives after warp 0": last - arrive,
        "warp 0: barrier -> next step": numpy.append(start[1:] - leave[:-1], numpy.nan),
        "step (start -> next start)": numpy.append(start[1:] - start[:-1], numpy.nan),
    }
    name = "getrf_block_compact<double, 128, " if compact else "getrf_block_split<double, 128, true, "
    print(f"{name}{str(window).lower()}>, instrumented: {ms:.3f} ms; X bit for bit with the plain kernel: {same}")
    _table("cycles, median over the panel steps of each range:", steps, ((0, 31), (32, 63), (64, 95), (96, 127)))
    phase, looked, factored, crew = c[:4, 4], c[:4, 5], c[:4, 6], c[:4, 7]
    print("by phase (cycles):  look-ahead update, factorization, update crew done (from the phase start), phase")
    for k in range(4):
        nxt = phase[k + 1] if k < 3 else numpy.nan
        print(f"  panel {k}: {looked[k] - phase[k]:9.0f} {factored[k] - looked[k]:9.0f} "
              f"{crew[k] - phase[k] if k else numpy.nan:9.0f} {nxt - phase[k]:9.0f}")
    print("the look-ahead by part (cycles): interchanges, U12 solve, its barrier, A22 update, the last barrier")
    for k in range(1, 4):
        swapped, solved, synced, updated = (c[8 + k - 1, i] for i in range(4, 8))
        print(f"  panel {k}: {swapped - phase[k]:9.0f} {solved - swapped:9.0f} {synced - solved:9.0f} "
              f"{updated - synced:9.0f} {looked[k] - updated:9.0f}")
    print("the update crew's update by part (cycles): from the phase start, interchanges, U12 solve with its "
          "barrier, A22 update")
    for k in range(1, 4):
        begun, swapped, solved, updated = (c[14 + k - 1, i] for i in range(4, 8))
        print(f"  panel {k}: {begun - phase[k]:9.0f} {swapped - begun:9.0f} {solved - swapped:9.0f} "
              f"{updated - solved:9.0f}")
    start, staged, panels, solved, done = (*c[12, 4:8], c[13, 4])
    print(f"by system (cycles): staging {staged - start:.0f}, panels {panels - staged:.0f}, last solve for B "
          f"{solved - panels:.0f}, back substitution {done - solved:.0f}, system {done - start:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
