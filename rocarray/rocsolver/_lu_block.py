"""LU and solve of mid-size matrices, one matrix per thread block with the matrix in registers:
the kernels of ``rocarray/_kernels/rocsolver/lu_block.hip``, their routing and launches.

Design
------
``ra_rocsolver_getrf_block<T, M, SOLVE>`` runs 256 threads as a 16 x 16 grid, each thread holding
an ``M x M`` tile of the matrix in registers in a cyclic distribution (element ``(a * 16 + tr,
c * 16 + tc)`` on thread ``(tr, tc)``), so one block factors an ``n x n`` matrix for
``n <= 16 M``. The pivot search of column j runs in registers and warp shuffles within the thread
column that holds it, and column j (every thread scales the multipliers of its own rows) passes
through shared memory. Rows j and p of a thread column live in its own 16 lanes: with
:data:`ONE_BARRIER` on (the default), their interchange and the broadcast of the new row j are
shuffles, and an elimination step costs one block barrier; off (the way back), the launch takes
``ra_rocsolver_getrf_block_2sync``: the same arithmetic, bit for bit, with the two rows published
through shared memory behind a second barrier. With ``SOLVE`` up to 16
right-hand sides ride along as one more register column (the interchanges and the forward
elimination reach them as columns of ``[A | B]``), and one warp per right-hand side finishes
with the back substitution: ``A X = B`` in one launch that writes only X and ``info``.

``ra_rocsolver_getrf_block_wide<T, N, SOLVE, LOOK>`` is the same algorithm and arithmetic, bit
for bit, on :data:`WIDE_THREADS` threads laid out as ``warp size x (WIDE_THREADS / warp size)``: a
thread column is one whole warp (lane = thread row) with an ``N / warp size x N * warp size /
WIDE_THREADS`` tile (4 x 8 on NVIDIA, 2 x 16 on wave64 AMD at ``N`` = :data:`WIDE_ORDER`).
Consecutive columns are then searched by different warps, a pivot search is one warp's shuffles
over fewer values a lane, and the pivot warp's update a step is a quarter of the 16 x 16
layout's; twice the warps share the same registers. With :data:`WIDE` on (the default) it takes orders
:data:`WIDE_LOWEST` .. :data:`WIDE_ORDER` of :data:`WIDE_DTYPES` with up to ``WIDE_THREADS /
warp size`` right-hand sides (one register column, a right-hand side per warp) on 32-lane
devices (64-lane ones too with :data:`WIDE_WAVE64`), and the factorization alone (no right-hand
side) too while :data:`WIDE_FACTOR` is on (the default); other systems stay where they go without it.
The wide kernel has the one-barrier step only (:data:`ONE_BARRIER` does not apply to it); with
:data:`WIDE_LOOKAHEAD` the warp that holds the next column brings that column up to date and
searches its pivot before the rest of its update, which then runs behind the search. With
:data:`WIDE_REDUX` (on) the plain step's pivot search reduces over the warp by ``redux.sync`` on
the magnitudes' bits (``ra_rocsolver_getrf_block_wide_redux<T, N, SOLVE>``): the same pivots.
With :data:`WIDE_FLOW` (off) the look-ahead step has no block barrier
(``ra_rocsolver_getrf_block_wide_flow<T, N, SOLVE, REDUX>``, the search by redux.sync with
:data:`WIDE_REDUX`): a warp starts step j once column j's pivot is published, counted in shared
memory, so the search of column j + 1 no longer waits for the rest of the searching warp's update
of step j; four publication buffers, each rewritten only once every warp has finished the step
that read it.

``ra_rocsolver_getrf_panel<T, N, SOLVE>`` computes the same factors and solutions, bit for bit, for
orders up to ``N`` (:data:`PANEL_ORDER`) with the matrix in shared memory: warp 0 factors panels
of :data:`PANEL_WIDTH` columns in its registers (a column's pivot chain without block barriers)
and brings the next panel up to date itself, while the other warps update the rest; the block
meets once a panel. It takes the orders from :data:`PANEL_LOWEST` where its shared memory fits
and :data:`PANEL` is on (it is off by default: see the constant); the register-tile kernel
takes the others.

``ra_rocsolver_getrf_block_split<T, N, SOLVE, WIN>`` computes the same factors and solutions, bit for
bit, for orders up to ``N`` (:data:`SPLIT_ORDER`) with the matrix in shared memory, on
:data:`SPLIT_THREADS` threads in two crews: the first ``N`` threads (a matrix row each) factor
panels of :data:`SPLIT_NB` columns in registers, a column's pivot search meeting only their own
warps, while the other warps bring the columns right of the panel up to date with the previous
panel (its interchanges as one permutation, the triangular solve, the rank-``SPLIT_NB`` update of
the rows below); between two panels the whole block brings the next panel's columns up to date.
With :data:`SPLIT` on (the default) it takes orders :data:`SPLIT_LOWEST` .. :data:`SPLIT_ORDER` of
:data:`SPLIT_DTYPES` (32-lane devices; the factorization alone only for
:data:`SPLIT_FACTOR_DTYPES`) before the wide kernel.

``ra_rocsolver_getrf_block_compact<T, N, WIN>`` is the split kernel's solve, bit for bit, in at
most :func:`compact_budget` bytes of shared memory, so that two blocks (two matrices' chains)
share a multiprocessor: :data:`COMPACT_THREADS` threads (the panel crew and an update crew of
the rest), the crew's finished columns in the panel's own storage (no rows of the panel apart),
and for orders whose matrix does not fit, the last panel's columns (from
:data:`COMPACT_COLUMNS` on) in a global scratch of each block until its turn, when they move into
the rows of the L factors no longer read. Each block solves matrices ``b, b + grid, ...``
(a grid of the blocks resident at once: :func:`compact_grid`). With :data:`COMPACT` on it takes the solves the split
kernel would of :data:`COMPACT_DTYPES` up to :data:`COMPACT_ORDER`, where it fits, for stacks of
more than :data:`COMPACT_BATCH_PER_SM` systems a multiprocessor.

The input is read through element strides (row, column, matrix), so the façade's C-ordered or
otherwise strided stacks need no column-major copy. The register tile heights ``M`` per dtype
(:data:`TILES`) keep the tile within the registers of 256 threads; :func:`takes` says which
orders take this path (:data:`LOWEST` up to ``16 * max(M)``), :func:`solves` which systems.
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch
from rocarray._core.workspace import workspaces

SOURCE = "rocsolver/lu_block.hip"

#: Threads per side of the block's thread grid (``RA_LU_BLOCK_SIDE``).
SIDE = 16
#: Threads per block.
THREADS = SIDE * SIDE
#: Register tile heights per dtype, smallest first: an order n takes the first M with
#: ``n <= SIDE * M``. complex128 takes fewer elements per thread (four registers each).
TILES = {numpy.dtype(numpy.float32): (4, 8), numpy.dtype(numpy.float64): (4, 8),
         numpy.dtype(numpy.complex64): (4, 8), numpy.dtype(numpy.complex128): (4, 6)}
#: Smallest order routed here (smaller ones are a warp's work).
LOWEST = 33
#: Most right-hand sides of the fused solve (one register column: one per thread column).
MAX_RHS = SIDE
#: The kernels' shared memory besides the staged matrix (their static arrays), an upper bound.
STATIC_SHARED = 16384
#: Whether orders from PANEL_LOWEST take the panel kernel (False: the register-tile kernel). Off:
#: on the GPU it is slower than the register tile at the orders where that one applies.
PANEL = False
#: The panel kernel's largest order (its template parameter N).
PANEL_ORDER = 128
#: Smallest order routed to the panel kernel.
PANEL_LOWEST = 65
#: Columns per panel (``ra_lup_width`` in the kernel source).
PANEL_WIDTH = {numpy.dtype(numpy.float32): 8, numpy.dtype(numpy.float64): 8, numpy.dtype(numpy.complex64): 8,
               numpy.dtype(numpy.complex128): 4}
#: Threads of the wide register-tile kernel (``RA_LU_WIDE_THREADS``): warp-size rows of threads
#: by ``WIDE_THREADS / warp size`` columns.
WIDE_THREADS = 512
#: The wide kernel's order (its template parameter N: the register tile's rows and columns).
WIDE_ORDER = 128
#: Smallest order routed to the wide kernel (where ``getrf_block`` takes its 8 x 8 tile).
WIDE_LOWEST = 65
#: The dtypes the wide kernel is instantiated for.
WIDE_DTYPES = (numpy.dtype(numpy.float32), numpy.dtype(numpy.float64), numpy.dtype(numpy.complex64))
#: Whether orders WIDE_LOWEST .. WIDE_ORDER of WIDE_DTYPES take ``ra_rocsolver_getrf_block_wide``
#: (False: ``getrf_block``, the way back). The panel kernel, when :data:`PANEL` is on, comes first.
#: On by default.
WIDE = True
#: Whether 64-lane devices (AMD CDNA: a 64 x 8 grid of threads, 2 x 16 tiles) take the wide kernel
#: when :data:`WIDE` is on. False: hipcc leaves the step loop of the factorization-only and of
#: the look-ahead instantiations rolled (past its full-unroll threshold), so their register tile
#: lives in scratch memory; the plain fused solve's instantiations are unrolled.
WIDE_WAVE64 = False
#: Whether the factorization alone (``getrf``: det, slogdet, lu_factor; no right-hand side) takes
#: the wide kernel too when :data:`WIDE` is on (the default; its float64 instantiation keeps a few
#: spilled registers and still measured faster than ``getrf_block``). False: ``getrf_block``
#: factors, and only the one-launch solve takes the wide kernel (the way back).
WIDE_FACTOR = True
#: Whether the wide kernel takes its look-ahead step (``ra_rocsolver_getrf_block_wide<T, N, SOLVE,
#: true>``): the warp holding column j + 1 interchanges and updates that column first and searches
#: its pivot before the rest of its update (the same bits). False: the plain step, the way back.
WIDE_LOOKAHEAD = False
#: Whether the wide kernel's plain step reduces its pivot search over the warp by
#: ``redux.sync`` on integer magnitude keys (``ra_rocsolver_getrf_block_wide_redux``; NVIDIA from
#: sm_80, xor rounds elsewhere; the same bits). On by default; False takes
#: ``getrf_block_wide``'s xor rounds (the way back). :data:`WIDE_LOOKAHEAD` takes precedence.
WIDE_REDUX = True
#: Whether the wide kernel takes its flow step (``ra_rocsolver_getrf_block_wide_flow<T, N,
#: SOLVE, REDUX>``): the look-ahead step with the step's block barrier replaced by a count of published
#: pivots in shared memory, so that the warp that searched column j + 1 finishes the rest of its
#: update of step j while the others go on (the same bits). Off: the other warps' own step work,
#: not the search, sets its pace, and it runs slower than the plain step. It takes precedence over
#: :data:`WIDE_LOOKAHEAD`, and with :data:`WIDE_REDUX` its search reduces by redux.sync.
WIDE_FLOW = False
#: Whether orders SPLIT_LOWEST .. SPLIT_ORDER of SPLIT_DTYPES on 32-lane devices take
#: ``ra_rocsolver_getrf_block_split`` (the panel crew and the update crew; False: the wide kernel,
#: the way back). On by default; it comes before :data:`WIDE`; :data:`PANEL`, when on, comes first.
SPLIT = True
#: Threads of the split kernel per dtype (``ra_lus_threads<T>``): the panel crew (``SPLIT_ORDER``)
#: and the update crew.
SPLIT_THREADS = {numpy.dtype(numpy.float32): 384, numpy.dtype(numpy.float64): 512}
#: The split kernel's largest order (its template parameter N: a panel row a crew thread).
SPLIT_ORDER = 128
#: Smallest order routed to the split kernel.
SPLIT_LOWEST = 65
#: Columns per panel of the split kernel (``RA_LU_SPLIT_NB``).
SPLIT_NB = 32
#: The dtypes the split kernel is instantiated for (complex64 measured slower than the wide kernel).
SPLIT_DTYPES = tuple(SPLIT_THREADS)
#: The dtypes whose factorization alone (``getrf``: det, slogdet, lu_factor; no right-hand side)
#: takes the split kernel too when :data:`SPLIT` is on; float32's measured slower there than the
#: wide kernel and stays on it.
SPLIT_FACTOR_DTYPES = (numpy.dtype(numpy.float64),)
#: Whether 64-lane devices take the split kernel when :data:`SPLIT` is on (a crew of two
#: wavefronts; its barriers count arrivals in shared memory there). Off: not measured on such a
#: device.
SPLIT_WAVE64 = False
#: Whether the split kernel's crew publishes and updates only the columns of its register frame's
#: block at each step, the columns past it once a block (``WIN``: the block's pivot rows solved
#: against each other, then every row's updates in step order, so the same bits). Off until
#: measured faster.
SPLIT_WINDOW = False
#: Whether the solves (not the factorization alone) the split kernel takes of
#: :data:`COMPACT_DTYPES`, orders up to :data:`COMPACT_ORDER`, go to
#: ``ra_rocsolver_getrf_block_compact`` where it fits (:func:`compact_columns`) and the stack
#: fills more than :data:`COMPACT_BATCH_PER_SM` blocks a multiprocessor: two blocks a
#: multiprocessor, each slower than the split kernel's one (docs/performance/rocsolver.md).
COMPACT = True
#: The dtypes the compact kernel takes when :data:`COMPACT` is on (float32's split kernel is
#: faster at every order measured).
COMPACT_DTYPES = (numpy.dtype(numpy.float64),)
#: The largest order the compact kernel takes (past it, the spilled last panel costs more than the
#: second block gains).
COMPACT_ORDER = 121
#: The compact kernel takes stacks of more than this many systems a multiprocessor (with one
#: system a multiprocessor, its 256-thread block is slower than the split kernel's 512).
COMPACT_BATCH_PER_SM = 1
#: Threads of the compact kernel (``ra_luc_threads<T>``): the panel crew (``SPLIT_ORDER``) and
#: the update crew.
COMPACT_THREADS = 256
#: Columns the compact kernel keeps in shared memory when the whole matrix does not fit
#: (``RA_LU_COMPACT_COLUMNS``); the rest, at most one panel, wait in a global scratch.
COMPACT_COLUMNS = 96
#: Blocks of the compact kernel a multiprocessor holds (its launch bounds).
COMPACT_BLOCKS = 2
#: A cap on the compact kernel's grid (None: none), so that checks can make each block solve
#: several systems in turn.
COMPACT_MAX_GRID = None
#: The one-barrier elimination step (rows j and p interchanged by shuffles:
#: ``ra_rocsolver_getrf_block``); False launches ``ra_rocsolver_getrf_block_2sync`` (two barriers a
#: step, the rows through shared memory), the way back.
ONE_BARRIER = True


def kernel_name(dtype, tile, solve, one_barrier=None):
    """Name expression, e.g. ``'ra_rocsolver_getrf_block<double, 8, true>'``; ``one_barrier``
    (default :data:`ONE_BARRIER`) False names the two-barrier step
    (``ra_rocsolver_getrf_block_2sync<...>``)."""
    one_barrier = ONE_BARRIER if one_barrier is None else one_barrier
    base = "ra_rocsolver_getrf_block" if one_barrier else "ra_rocsolver_getrf_block_2sync"
    return f"{base}<{dtypes.ctype(dtype)}, {int(tile)}, {'true' if solve else 'false'}>"


def wide_kernel_name(dtype, solve, lookahead=None, redux=None, flow=None):
    """Name expression, e.g. ``'ra_rocsolver_getrf_block_wide<double, 128, true, false>'``;
    ``flow`` (default :data:`WIDE_FLOW`) True names the flow step (its search by redux.sync with
    ``redux``, default :data:`WIDE_REDUX`), else ``lookahead`` (default :data:`WIDE_LOOKAHEAD`) True
    the look-ahead step, else ``redux`` True the plain step with the redux.sync search."""
    flow = WIDE_FLOW if flow is None else flow
    redux = WIDE_REDUX if redux is None else redux
    lookahead = WIDE_LOOKAHEAD if lookahead is None else lookahead
    if flow:
        base, flags = "ra_rocsolver_getrf_block_wide_flow", (solve, redux)
    elif redux and not lookahead:
        base, flags = "ra_rocsolver_getrf_block_wide_redux", (solve,)
    else:
        base, flags = "ra_rocsolver_getrf_block_wide", (solve, lookahead)
    bools = ", ".join("true" if f else "false" for f in flags)
    return f"{base}<{dtypes.ctype(dtype)}, {WIDE_ORDER}, {bools}>"


def panel_kernel_name(dtype, solve):
    """Name expression, e.g. ``'ra_rocsolver_getrf_panel<double, 128, true>'``."""
    return f"ra_rocsolver_getrf_panel<{dtypes.ctype(dtype)}, {PANEL_ORDER}, {'true' if solve else 'false'}>"


def split_kernel_name(dtype, solve, window=None):
    """Name expression, e.g. ``'ra_rocsolver_getrf_block_split<double, 128, true, false>'``;
    ``window`` (default :data:`SPLIT_WINDOW`) True names the windowed step."""
    window = SPLIT_WINDOW if window is None else window
    flags = ", ".join("true" if f else "false" for f in (solve, window))
    return f"ra_rocsolver_getrf_block_split<{dtypes.ctype(dtype)}, {SPLIT_ORDER}, {flags}>"


def compact_kernel_name(dtype, window=None):
    """Name expression, e.g. ``'ra_rocsolver_getrf_block_compact<double, 128, false>'``;
    ``window`` (default :data:`SPLIT_WINDOW`) True names the windowed step."""
    window = SPLIT_WINDOW if window is None else window
    return f"ra_rocsolver_getrf_block_compact<{dtypes.ctype(dtype)}, {SPLIT_ORDER}, {'true' if window else 'false'}>"


def instantiations():
    """Every name expression the routes launch, under either setting of :data:`ONE_BARRIER`,
    :data:`PANEL`, :data:`SPLIT`, :data:`SPLIT_WINDOW`, :data:`WIDE`, :data:`WIDE_LOOKAHEAD`,
    :data:`WIDE_REDUX` and :data:`WIDE_FLOW`."""
    names = [kernel_name(d, m, s, one) for d, tiles in TILES.items() for m in tiles for s in (False, True)
             for one in (True, False)]
    names += [panel_kernel_name(d, s) for d in TILES for s in (False, True)]
    names += [wide_kernel_name(d, s, look, False, False) for d in WIDE_DTYPES for s in (False, True)
              for look in (False, True)]
    names += [wide_kernel_name(d, s, False, True, False) for d in WIDE_DTYPES for s in (False, True)]
    names += [wide_kernel_name(d, s, redux=r, flow=True) for d in WIDE_DTYPES for s in (False, True)
              for r in (False, True)]
    names += [split_kernel_name(d, s, w) for d in SPLIT_DTYPES for s in (False, True) for w in (False, True)]
    names += [compact_kernel_name(d, w) for d in SPLIT_DTYPES for w in (False, True)]
    return sorted(names)


_compile.register(SOURCE, instantiations())

KERNELS = kernels.Family(SOURCE, THREADS, 1)
WIDE_KERNELS = kernels.Family(SOURCE, WIDE_THREADS, 1)
SPLIT_KERNELS = {dtype: kernels.Family(SOURCE, threads, 1) for dtype, threads in SPLIT_THREADS.items()}
COMPACT_KERNELS = kernels.Family(SOURCE, COMPACT_THREADS, COMPACT_BLOCKS)


def tile(n, dtype):
    """The register tile height for order ``n`` of ``dtype``, or None when n is too large."""
    for m in TILES.get(numpy.dtype(dtype), ()):
        if n <= SIDE * m:
            return m
    return None


def _shared(n, nrhs, dtype):
    """Dynamic shared memory of a launch: the staged matrix (leading dimension n + 1), the
    right-hand sides, alignment slack."""
    return (n * (n + 1) + n * nrhs) * numpy.dtype(dtype).itemsize + 16


def _panel_shared(n, nrhs, dtype):
    """Dynamic shared memory of a panel launch: ``[A | B]`` staged with leading dimension n + 1."""
    return (n + 1) * (n + nrhs) * numpy.dtype(dtype).itemsize + 16


#: Rows past the order in the panel kernel's copies of a panel (its update reads 8 rows at a time).
PANEL_PAD_ROWS = 8


def _panel_static(dtype):
    """The panel kernel's static shared memory, an upper bound: two panels by rows (padded), the
    pivots, the zero-pivot bits (one int a panel, at most one a row), alignment slack."""
    width = PANEL_WIDTH[numpy.dtype(dtype)]
    panels = 2 * (PANEL_ORDER + PANEL_PAD_ROWS) * width * numpy.dtype(dtype).itemsize
    return panels + 4 * PANEL_ORDER + 4 * PANEL_ORDER + 64


def _split_shared(n, nrhs, dtype):
    """Dynamic shared memory of a split launch: the panel kernel's (``[A | B]`` staged with leading
    dimension n + 1) and SPLIT_NB elements of slack (an update chunk's rows past n read it)."""
    return _panel_shared(n, nrhs, dtype) + SPLIT_NB * numpy.dtype(dtype).itemsize


def _split_static(dtype):
    """The split kernel's static shared memory, an upper bound: the crew's rows of the panel, its
    two buffers of candidate rows, reciprocals, keys and labels, the panels' labels and zero
    pivots, the barrier counts, alignment slack."""
    warps = SPLIT_ORDER // 32
    values = SPLIT_ORDER * (SPLIT_NB + 1) + 2 * warps * SPLIT_NB + 2 * warps
    return values * numpy.dtype(dtype).itemsize + 4 * (6 * warps + 2 * SPLIT_ORDER + 4) + 64


def _compact_static(dtype):
    """The compact kernel's static shared memory, an upper bound: the crew's two buffers of
    candidate rows, reciprocals and keys, the windowed step's rows and multipliers, the panels'
    labels and zero pivots, the barrier counts, alignment slack."""
    warps, frame = SPLIT_ORDER // 32, 8
    values = 2 * warps * SPLIT_NB + 2 * warps + frame * SPLIT_NB + frame * frame
    return (values * numpy.dtype(dtype).itemsize + 16 * 2 * warps + 4 * frame + 4 * (2 * SPLIT_ORDER + 4)
            + 64)


def _compact_shared(n, nrhs, cs, dtype):
    """Dynamic shared memory of a compact launch: cs columns and the right-hand sides (leading
    dimension n + 1), SPLIT_NB elements of slack, alignment slack."""
    return ((n + 1) * (cs + nrhs) + SPLIT_NB) * numpy.dtype(dtype).itemsize + 16


def compact_budget(device_id):
    """Shared memory a block may take so that :data:`COMPACT_BLOCKS` share a multiprocessor: the
    opt-in limit is a multiprocessor's less the 1 KiB the runtime keeps a block."""
    return (_limit(device_id) + 1024) // COMPACT_BLOCKS - 1024


def compact_columns(n, nrhs, dtype, device_id):
    """The columns the compact kernel keeps in shared memory for order n with nrhs right-hand
    sides (n: all of them), or None where it does not fit :func:`compact_budget`."""
    budget = compact_budget(device_id) - _compact_static(dtype)
    if _compact_shared(n, nrhs, n, dtype) <= budget:
        return n
    if (COMPACT_COLUMNS < n <= COMPACT_COLUMNS + SPLIT_NB
            and _compact_shared(n, nrhs, COMPACT_COLUMNS, dtype) <= budget):
        return COMPACT_COLUMNS
    return None


_limits = {}   # (device id, the asking function) -> bytes: a device's limit is read once


def _limit(device_id):
    ask = backend.shared_memory_limit
    limit = _limits.get((device_id, ask))
    if limit is None:
        limit = _limits[(device_id, ask)] = ask(device_id)
    return limit


def _fits(n, nrhs, dtype, device_id):
    return _shared(n, nrhs, dtype) + STATIC_SHARED <= _limit(device_id)


def _panel(n, nrhs, dtype, device_id):
    """Whether order n with nrhs right-hand sides (0: getrf) takes the panel kernel."""
    return (PANEL and PANEL_LOWEST <= n <= PANEL_ORDER and numpy.dtype(dtype) in PANEL_WIDTH
            and _panel_shared(n, nrhs, dtype) + _panel_static(dtype) <= _limit(device_id))


def _split(n, nrhs, dtype, device_id):
    """Whether order n with nrhs right-hand sides (0: getrf) takes the split kernel."""
    if not (SPLIT and SPLIT_LOWEST <= n <= SPLIT_ORDER and numpy.dtype(dtype) in SPLIT_DTYPES
            and nrhs <= MAX_RHS):
        return False
    if nrhs == 0 and numpy.dtype(dtype) not in SPLIT_FACTOR_DTYPES:
        return False
    return ((backend.device_info(device_id).warp_size == 32 or SPLIT_WAVE64)
            and _split_shared(n, nrhs, dtype) + _split_static(dtype) <= _limit(device_id))


def _compact(n, nrhs, dtype, batch, device_id):
    """Whether the solve of a stack of batch systems of order n with nrhs right-hand sides takes
    the compact kernel."""
    return (COMPACT and nrhs > 0 and numpy.dtype(dtype) in COMPACT_DTYPES and n <= COMPACT_ORDER
            and batch > COMPACT_BATCH_PER_SM * backend.device_info(device_id).multiprocessors
            and _split(n, nrhs, dtype, device_id) and compact_columns(n, nrhs, dtype, device_id) is not None)


def _wide(n, nrhs, dtype, device_id):
    """Whether order n with nrhs right-hand sides (0: getrf) takes the wide kernel: a right-hand
    side per thread column (warp), and the register tile's shared-memory fit."""
    if not (WIDE and WIDE_LOWEST <= n <= WIDE_ORDER and numpy.dtype(dtype) in WIDE_DTYPES):
        return False
    if nrhs == 0 and not WIDE_FACTOR:
        return False
    warp = backend.device_info(device_id).warp_size
    return (warp == 32 or WIDE_WAVE64) and nrhs <= WIDE_THREADS // warp and _fits(n, nrhs, dtype, device_id)


def takes(n, dtype, device_id):
    """Whether square matrices of order ``n`` and ``dtype`` are factored here on ``device_id``
    (the staged matrix must fit one block's shared memory)."""
    return n >= LOWEST and ((tile(n, dtype) is not None and _fits(n, 0, dtype, device_id))
                            or _panel(n, 0, dtype, device_id))


def solves(n, nrhs, dtype, device_id):
    """Whether systems of order ``n`` with ``nrhs`` right-hand sides are solved here in one launch."""
    return (n >= LOWEST and 1 <= nrhs <= MAX_RHS
            and ((tile(n, dtype) is not None and _fits(n, nrhs, dtype, device_id))
                 or _panel(n, nrhs, dtype, device_id)))


def _i64(v):
    return numpy.int64(v)


_NULL = numpy.uint64(0)


def compact_grid(batch, resident):
    """Blocks of a compact launch: the blocks resident at once (``resident``: at most
    COMPACT_BLOCKS a multiprocessor, fewer where the driver gives fewer, so that no block of the
    persistent grid waits for another to finish), at most :data:`COMPACT_MAX_GRID` when set, at
    most one a matrix."""
    grid = resident if COMPACT_MAX_GRID is None else min(resident, COMPACT_MAX_GRID)
    return max(1, min(int(batch), grid))


def _launch_compact(dtype, n, nrhs, batch, args, device_id):
    """The compact kernel's launch: a persistent grid (:func:`compact_grid`), the factors'
    arguments (unused by a solve) replaced by the spilled columns' scratch, each block's
    ``n x (n - cs)``."""
    dtype = numpy.dtype(dtype)
    cs = compact_columns(n, nrhs, dtype, device_id)
    shared = _compact_shared(n, nrhs, cs, dtype)
    kernel = COMPACT_KERNELS[compact_kernel_name(dtype)]
    with launch.on_device(device_id):
        kernel.allow_shared(device_id, shared)
        resident = min(kernel.resident_blocks(device_id, COMPACT_THREADS, shared),
                       COMPACT_BLOCKS * backend.device_info(device_id).multiprocessors)
        grid = compact_grid(batch, resident)
        scratch = _NULL
        if cs < n:
            raw = workspaces.scratch("rocsolver.lu_block.spill", grid * n * (n - cs) * dtype.itemsize, device_id)
            scratch = raw[:grid * n * (n - cs) * dtype.itemsize].view(dtype)
        args = args[:4] + (scratch, _i64(n), _i64(n * (n - cs))) + args[7:] + (numpy.int32(cs), numpy.int32(batch))
        kernel(device_id, (grid,), (numpy.int32(n), numpy.int32(nrhs)) + args, shared=shared)


def _launch(dtype, n, nrhs, solve, batch, args, device_id):
    if solve and _compact(n, nrhs, dtype, batch, device_id):
        _launch_compact(dtype, n, nrhs, batch, args, device_id)
        return
    if _panel(n, nrhs, dtype, device_id):
        kernel, shared, threads = KERNELS[panel_kernel_name(dtype, solve)], _panel_shared(n, nrhs, dtype), THREADS
    elif _split(n, nrhs, dtype, device_id):
        dtype = numpy.dtype(dtype)
        kernel, shared = SPLIT_KERNELS[dtype][split_kernel_name(dtype, solve)], _split_shared(n, nrhs, dtype)
        threads = SPLIT_THREADS[dtype]
    elif _wide(n, nrhs, dtype, device_id):
        kernel, shared, threads = WIDE_KERNELS[wide_kernel_name(dtype, solve)], _shared(n, nrhs, dtype), WIDE_THREADS
    else:
        kernel, shared = KERNELS[kernel_name(dtype, tile(n, dtype), solve)], _shared(n, nrhs, dtype)
        threads = THREADS
    with launch.on_device(device_id):
        kernel(device_id, (int(batch),), (numpy.int32(n), numpy.int32(nrhs)) + args, block=threads, shared=shared)


def getrf(n, A, lda, strideA, ipiv, strideP, info, batch):
    """LU with partial pivoting of ``batch`` column-major n x n matrices in place (1-D views, as
    :func:`rocarray.rocsolver._lu_kernels.getf2`): ``ipiv[b * strideP + j]`` (1-based) and
    ``info[b]`` := the first zero pivot's 1-based column, else 0. ``n`` must satisfy :func:`takes`."""
    if batch == 0:
        return
    args = (A, _i64(1), _i64(lda), _i64(strideA), A, _i64(lda), _i64(strideA), ipiv, _i64(strideP), info,
            _NULL, _i64(0), _i64(0), _i64(0), _NULL, _i64(0), _i64(0), _i64(0))
    _launch(A.dtype, n, 0, False, batch, args, A.data.device_id)


def _element_strides(x):
    isz = x.dtype.itemsize
    if any(s % isz for s in x.strides):
        return None
    return tuple(s // isz for s in x.strides)


def gesv(A, B, X, info):
    """``X[b] := A[b]^-1 B[b]`` for the ``(batch, n, n)`` stack A and ``(batch, n, nrhs)`` stacks B
    and X (device arrays of one dtype, any element strides, X written), with ``info[b]`` as
    :func:`getrf`'s (X of a singular matrix is not meaningful). ``(n, nrhs)`` must satisfy
    :func:`solves`."""
    batch, n, nrhs = B.shape
    if batch == 0:
        return
    _launch(A.dtype, n, nrhs, True, batch, gesv_args(A, B, X, info), A.data.device_id)


def gesv_args(A, B, X, info):
    """The kernel arguments of :func:`gesv` after ``n`` and ``nrhs`` (the factors' pointer, unused
    by a solve, is null)."""
    sa, sb, sx = (_element_strides(v) for v in (A, B, X))
    return (A, _i64(sa[1]), _i64(sa[2]), _i64(sa[0]), _NULL, _i64(0), _i64(0), _NULL, _i64(0), info,
            B, _i64(sb[1]), _i64(sb[2]), _i64(sb[0]), X, _i64(sx[1]), _i64(sx[2]), _i64(sx[0]))
