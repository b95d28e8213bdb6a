"""The kernels of ``rocarray/_kernels/rocsolver/lu.hip`` and ``lu_warp.hip``: their registration
and launches.

This is the one small interface through which the LU drivers (:mod:`rocarray.rocsolver._lu`)
reach their kernels. Every function takes 1-D device views that start at the first element it
works on (a sub-matrix is ``A[i + j * lda:]``; :func:`gesv_warp` takes 3-D arrays and passes their
element strides), never checks (the drivers have), and queues work on the current stream. The
few steps that are plain data movement (:func:`clear_info`, :func:`identities`,
:func:`set_identities`, :func:`copy_where_ok`) use CuPy's array operations; :func:`lacpy` is the
Cholesky family's copy kernel; :func:`overlap` queues two parts of the work on two streams;
:func:`check_grid_barrier` is the one function that waits for the device. The CPU tests replace
these functions with NumPy stand-ins of the same contract to check the drivers' blocking,
pivoting and bookkeeping without a device.
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch
from rocarray._core.workspace import workspaces
from rocarray._core.matrix_args import STANDARD
from rocarray.rocsolver import _cholesky_kernels

SOURCE = "rocsolver/lu.hip"

#: Most threads of one block (``RA_ROCSOLVER_LU_MAX_BLOCK``).
MAX_BLOCK = 1024
#: Block size granularity: a whole number of warps on every vendor.
BLOCK_STEP = 64
#: Most column lanes of the getf2 update (threads per row).
COLUMN_LANES = 8
#: Fewest right-hand sides for which getrs_small stages A and B in shared memory.
STAGE_RHS = 4
#: Threads of a laswp block (``RA_ROCSOLVER_LASWP_BLOCK``: 64 row slots x 4 column lanes).
LASWP_BLOCK = 256
#: Columns one laswp block covers (``RA_ROCSOLVER_LASWP_COLUMNS``).
LASWP_COLUMNS = 16
#: Largest grid y dimension (laswp's batch).
MAX_GRID_Y = 65535
#: Resident blocks per multiprocessor assumed for the occupancy bound.
BLOCKS_PER_MULTIPROCESSOR = 8

#: Threads of a device-wide panel block (``RA_ROCSOLVER_LU_GRID_BLOCK``).
GRID_BLOCK = 128
#: Fewest rows of a panel factored across the device (the one-block kernel's time falls with the
#: rows, the device-wide panel's is about a grid barrier per column; the measured crossover lies
#: below this, docs/performance/rocsolver.md).
GRID_PANEL_ROWS = 2048
#: Most columns of a device-wide panel.
GRID_PANEL_COLUMNS = 32
#: Fewest rows per block of a device-wide panel (fewer blocks for shorter panels).
GRID_MIN_SHARE = 32
#: Clock cycles a block of the device-wide panel waits at a grid barrier before it gives up
#: (about 2 s at 2 GHz: far past any real wait, short of a hang).
GRID_SPIN_LIMIT = 1 << 32

#: Factor device-wide panels of real matrices with ``ra_rocsolver_getf2_rows`` (a thread per
#: panel row, the blocks' candidates read after per-block flags instead of a counting barrier)
#: where it fits. Off: it measured slower than ``ra_rocsolver_getf2_grid`` on the GPU, and its
#: complex pivots differed from the one-block kernel's there, so complex panels never take it
#: (docs/performance/rocsolver.md). False: ``getf2_grid`` from GRID_PANEL_ROWS and the one-block
#: getf2 below.
ROWS_KERNEL = False
#: Most threads (panel rows) of a ``getf2_rows`` block (``RA_ROCSOLVER_LU_ROWS_BLOCK``); halved
#: while the block's shared memory does not fit.
ROWS_BLOCK = 256
#: Fewest rows of a panel ``getf2_rows`` takes (shorter: the one-block getf2). 1: every panel
#: (one block of up to ROWS_BLOCK rows exchanges nothing through global memory).
ROWS_PANEL_ROWS = 1
#: Launches of ``getf2_rows`` per stream before its flags are zeroed and the count restarts (a
#: flag is the launch's number times 64 plus its column + 1, in 64 bits).
ROWS_EPOCH_LIMIT = 1 << 40

#: Factor a panel of :data:`CLUSTER_PANEL_ROWS` to :data:`CLUSTER_BLOCKS` x the most rows of a
#: block (:func:`cluster_block_limit`; with :data:`CLUSTER_WIDE`, :data:`CLUSTER_BLOCKS_WIDE` x
#: that) on one thread-block cluster (:func:`getf2_cluster`) first, where the device has clusters.
#: False (the way back): ``getf2_grid`` from GRID_PANEL_ROWS and the one-block getf2 below.
#: On by default.
CLUSTER_PANEL = True
#: Whether the cluster panel takes its look-ahead step (``ra_rocsolver_getf2_cluster<T, CB,
#: true>``): after the pivot of column j, every row updates column j + 1 first, the blocks search
#: and publish column j + 1's candidates (the candidate's and row j + 1's holders finish their
#: rows first) and arrive at the cluster barrier, and the rest of each row's update runs while
#: the other blocks arrive (the same bits). False: search, barrier, then the whole update, the
#: way back.
CLUSTER_LOOKAHEAD = False
#: Whether the cluster panel's plain step (without :data:`CLUSTER_LOOKAHEAD`) crosses its
#: cluster barrier with one fence a block (``ra_rocsolver_getf2_cluster<T, CB, false, true>``: a
#: block barrier, warp 0's ``fence.acq_rel.cluster``, every thread's relaxed arrive) instead of
#: every warp's release arrive (a GPU-scope membar in each). The same bits either way.
CLUSTER_ONE_FENCE = False
#: The cluster panel applies its interchanges to the other columns of the factorization's range
#: itself (after its last column, its blocks sharing those columns) where they number at most
#: :data:`CLUSTER_SWAP_COLUMNS`, instead of a laswp launch after it. False: laswp (the way back).
CLUSTER_SWAP = True
#: Most other columns the cluster panel swaps itself (:data:`CLUSTER_SWAP`): the look-ahead
#: blocks' panels have at most ``OUTER`` - 32 (480); the plain recursion's (every column of the
#: matrix) keep the laswp launch, which spreads them over the device.
CLUSTER_SWAP_COLUMNS = 1024
#: Blocks of a cluster panel (the portable cluster size).
CLUSTER_BLOCKS = 8
#: Blocks of a cluster panel too tall for :data:`CLUSTER_BLOCKS` blocks (a non-portable cluster
#: size: the kernel opts in, and runs only where the driver finds room for such a cluster).
CLUSTER_BLOCKS_WIDE = 16
#: Let panels taller than CLUSTER_BLOCKS blocks hold take one cluster of CLUSTER_BLOCKS_WIDE
#: blocks (under :data:`CLUSTER_PANEL`). False (the way back): those go to ``getf2_grid``.
CLUSTER_WIDE = True
#: Most threads (rows, one each) of a cluster panel's block (``RA_ROCSOLVER_LU_CLUSTER_BLOCK``);
#: half that for 16-byte types, whose row of 32 elements takes 128 registers.
CLUSTER_BLOCK = 512
#: Fewest rows of a panel :func:`getf2_cluster` takes by default (shorter: ``getf2``, one block;
#: a column costs a cluster barrier and a distributed-shared-memory round trip whatever the height).
CLUSTER_PANEL_ROWS = 256

_STAGED = ("getf2", "getrs_small")
_PLAIN = ("laswp", "laswp_plan", "laswp_gather", "diag_zero", "getf2_grid", "getf2_rows", "lu_inv")


def kernel_name(kernel, dtype, stage=None):
    """Name expression, e.g. ``'ra_rocsolver_getf2<double, true>'``."""
    ct = dtypes.ctype(dtype)
    if stage is None:
        return f"ra_rocsolver_{kernel}<{ct}>"
    return f"ra_rocsolver_{kernel}<{ct}, {'true' if stage else 'false'}>"


def cluster_kernel_name(dtype, blocks, lookahead=None, one_fence=None):
    """Name expression of the cluster panel of ``blocks`` blocks, with its look-ahead step or
    not (default :data:`CLUSTER_LOOKAHEAD`) and, without it, with one fence a block or not
    (default :data:`CLUSTER_ONE_FENCE`), e.g. ``'ra_rocsolver_getf2_cluster<double, 8, false>'``."""
    look = CLUSTER_LOOKAHEAD if lookahead is None else lookahead
    fence = (CLUSTER_ONE_FENCE if one_fence is None else one_fence) and not look
    tail = ", true" if fence else ""
    return f"ra_rocsolver_getf2_cluster<{dtypes.ctype(dtype)}, {int(blocks)}, {'true' if look else 'false'}{tail}>"


def instantiations():
    """Every name expression the LU routines launch."""
    names = [kernel_name(k, d, s) for k in _STAGED for d in STANDARD for s in (False, True)]
    names += [kernel_name(k, d) for k in _PLAIN for d in STANDARD]
    names += [cluster_kernel_name(d, b, look, fence) for d in STANDARD for b in (CLUSTER_BLOCKS, CLUSTER_BLOCKS_WIDE)
              for look, fence in ((False, False), (True, False), (False, True))]
    return sorted(names)


_compile.register(SOURCE, instantiations())

KERNELS = kernels.Family(SOURCE, MAX_BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def block_for(work):
    """Threads of a one-matrix-per-block launch with ``work`` rows (or row, column pairs):
    ``work`` rounded up to whole warps, within 64 .. 1024."""
    return int(min(MAX_BLOCK, max(BLOCK_STEP, -(-int(work) // BLOCK_STEP) * BLOCK_STEP)))


#: Shared memory kept for the kernels' static arrays (the pivot reduction's scratch).
STATIC_SHARED = 1024


def fits_shared(elements, dtype, device_id):
    """Whether ``elements`` of ``dtype`` (plus the 16-byte alignment slack) fit the dynamic shared
    memory one block may take on ``device_id`` beside the static arrays."""
    need = elements * numpy.dtype(dtype).itemsize + 16 + STATIC_SHARED
    return need <= backend.shared_memory_limit(device_id)


def _device(x):
    return x.data.device_id


def _i64(v):
    return numpy.int64(v)


def getf2(m, n, A, lda, strideA, ipiv, strideP, info, offset, batch):
    """Unblocked LU with partial pivoting of ``batch`` m x n matrices, one block each.

    ``ipiv[j]`` (1-based) becomes ``offset + p + 1`` for pivot row ``p`` of column j; ``info[b]``
    becomes ``offset + j + 1`` at the first zero pivot if it is still 0 (the caller zeroes it).
    Rows of the pivot swaps are swapped in these n columns only.
    """
    dev = _device(A)
    elements = m * n
    stage = fits_shared(elements, A.dtype, dev)
    kernel = KERNELS[kernel_name("getf2", A.dtype, stage)]
    shared = elements * A.dtype.itemsize + 16 if stage else 0
    # rows, and up to COLUMN_LANES columns per row when there are threads to spare
    block = block_for(m * min(max(n - 1, 1), COLUMN_LANES))
    with launch.on_device(dev):
        kernel(dev, (int(batch),), (_i64(m), _i64(n), A, _i64(lda), _i64(strideA), ipiv, _i64(strideP), info,
                                    _i64(offset)), block=block, shared=shared)


class GridBarrierError(RuntimeError):
    """A device-wide panel's grid barrier gave up waiting (its blocks were not all resident)."""


def grid_panel_shape(m, n, dtype, device_id, blocks=None):
    """``(blocks, share, shared)`` of a device-wide panel of ``m x n``: blocks of ``share`` rows
    each (the last may hold fewer, or none) and the dynamic shared bytes of one; ``blocks``
    defaults to one per multiprocessor, fewer for short panels (:data:`GRID_MIN_SHARE`)."""
    if blocks is None:
        sms = backend.device_info(device_id).multiprocessors
        blocks = max(1, min(sms, -(-m // GRID_MIN_SHARE)))
        blocks = -(-m // -(-m // blocks))  # no block without rows
    share = max(1, -(-m // blocks))
    shared = (share * n + 2 * n) * numpy.dtype(dtype).itemsize + 16
    return int(blocks), int(share), int(shared)


def getf2_grid(m, n, A, lda, ipiv, info, offset, blocks=None):
    """getf2 of one m x n panel (``n <=`` :data:`GRID_PANEL_COLUMNS`) across the device: a
    cooperative launch of blocks that each hold a share of the rows in shared memory and meet at
    one grid barrier per column. The same pivots, ``ipiv`` and ``info`` as :func:`getf2` (one
    matrix, ``strideA = strideP = 0``).

    With :data:`ROWS_KERNEL` (and ``blocks`` not given) a real panel goes to :func:`getf2_rows`
    first, where that takes it.

    Returns the barrier's state (pass it to :func:`check_grid_barrier` once the factorization's
    launches are queued), or None, launching nothing, where the panel is short
    (< :data:`GRID_PANEL_ROWS` rows, unless ``blocks`` is given), too wide, the device has no
    cooperative launch, or the blocks would not fit in shared memory or be resident together.
    """
    if ROWS_KERNEL and blocks is None and A.dtype.kind != "c":
        sync = getf2_rows(m, n, A, lda, ipiv, info, offset)
        if sync is not None:
            return sync
    if n > GRID_PANEL_COLUMNS or m < 1 or (blocks is None and m < GRID_PANEL_ROWS):
        return None
    dev = _device(A)
    kernel = KERNELS[kernel_name("getf2_grid", A.dtype)]
    grid, share, shared = grid_panel_shape(m, n, A.dtype, dev, blocks)
    if not fits_shared(share * n + 2 * n, A.dtype, dev) or not kernel.cooperative_available(dev):
        return None
    if kernel.resident_blocks(dev, GRID_BLOCK, shared) < grid:
        return None
    real = numpy.dtype(A.dtype.char.lower()) if A.dtype.kind == "c" else A.dtype
    rows_bytes = 2 * (grid + 1) * n * A.dtype.itemsize
    values_bytes = 2 * grid * real.itemsize
    with launch.on_device(dev):
        pub = workspaces.scratch("rocsolver.lu.grid_publication", rows_bytes + values_bytes + 8 * grid, dev)
        sync = workspaces.counters("rocsolver.lu.grid_barrier", 16, dev)
        rows = pub[:rows_bytes].view(A.dtype)
        values = pub[rows_bytes:rows_bytes + values_bytes].view(real)
        index = pub[rows_bytes + values_bytes:rows_bytes + values_bytes + 8 * grid].view(numpy.int32)
        kernel(dev, (grid,), (_i64(m), _i64(n), A, _i64(lda), ipiv, info, _i64(offset), _i64(share), rows, values,
                              index, sync[:16].view(numpy.uint32), _i64(GRID_SPIN_LIMIT)),
               block=GRID_BLOCK, shared=shared, cooperative=True)
    return sync


def _rows_layout(capacity, n, dtype):
    """Byte offsets ``(values, index, rows, total)`` of getf2_rows's publication buffer for
    ``capacity`` slots of rows of ``n`` elements: 2 x capacity flags (uint64), values (the real
    type), row indices (int32), then 2 x (capacity + 1) rows, each part 16-byte aligned."""
    itemsize = numpy.dtype(dtype).itemsize
    real = itemsize // 2 if numpy.dtype(dtype).kind == "c" else itemsize

    def up(x):
        return -(-x // 16) * 16
    values = up(2 * capacity * 8)
    index = up(values + 2 * capacity * real)
    rows = up(index + 2 * capacity * 4)
    return values, index, rows, rows + 2 * (capacity + 1) * n * itemsize


def rows_panel_shape(m, n, dtype, block=None):
    """``(blocks, block, shared)`` of a getf2_rows launch on an m x n panel: blocks of ``block``
    threads (default :data:`ROWS_BLOCK`), one panel row each, and the dynamic shared bytes of one
    (its rows, the G + 1 published rows, the G values and row indices)."""
    block = ROWS_BLOCK if block is None else block
    blocks = -(-m // block)
    itemsize = numpy.dtype(dtype).itemsize
    real = itemsize // 2 if numpy.dtype(dtype).kind == "c" else itemsize
    shared = (block * n + (blocks + 1) * n) * itemsize + blocks * (real + 4) + 16
    return int(blocks), int(block), int(shared)


def getf2_rows(m, n, A, lda, ipiv, info, offset, block=None):
    """getf2 of one m x n panel (``n <=`` :data:`GRID_PANEL_COLUMNS`) across the device, a thread
    per panel row: a cooperative launch of ``ceil(m / block)`` blocks, each holding its rows in
    shared memory (a thread's row its own, so the swap, scaling and update need no block
    barrier). Per column each block publishes its candidate (value, row index, the row's n values)
    and, from the owner of the diagonal row, that row, then raises its flag (the launch's epoch
    and the column: no reset between launches); every block waits for all flags, reads every
    slot into shared memory in one round trip and reduces the candidates in each warp. The same
    pivots, ``ipiv``, ``info`` and arithmetic as :func:`getf2`.

    Returns the barrier's state (for :func:`check_grid_barrier`; its error word is the one the
    waits set when they give up), or None, launching nothing, where the panel is short (<
    :data:`ROWS_PANEL_ROWS` rows, unless ``block`` is given), too wide, the device has no
    cooperative launch, or the blocks would not fit in shared memory or be resident together.
    """
    if n > GRID_PANEL_COLUMNS or m < 1 or (block is None and m < ROWS_PANEL_ROWS):
        return None
    dev = _device(A)
    kernel = KERNELS[kernel_name("getf2_rows", A.dtype)]
    if not kernel.cooperative_available(dev):
        return None
    size = ROWS_BLOCK if block is None else block
    while True:
        grid, size, shared = rows_panel_shape(m, n, A.dtype, size)
        fits = shared + 16 + STATIC_SHARED <= backend.shared_memory_limit(dev)
        if fits and kernel.resident_blocks(dev, size, shared) >= grid:
            break
        if block is not None or size <= BLOCK_STEP:
            return None
        size //= 2
    real = numpy.dtype(A.dtype.char.lower()) if A.dtype.kind == "c" else A.dtype
    with launch.on_device(dev):
        # sized for the widest type: every dtype's launches on this stream share the buffer
        buf, capacity, epoch = workspaces.epochs("rocsolver.lu.rows_publication", dev, grid,
                                                 lambda cap: _rows_layout(cap, GRID_PANEL_COLUMNS, numpy.complex128)[3],
                                                 ROWS_EPOCH_LIMIT)
        values, index, rows, _ = _rows_layout(capacity, n, A.dtype)
        sync = workspaces.counters("rocsolver.lu.grid_barrier", 16, dev)
        flags = buf[:values].view(numpy.uint64)
        pub_values = buf[values:index].view(real)
        pub_index = buf[index:rows].view(numpy.int32)
        pub_rows = buf[rows:].view(A.dtype)
        kernel(dev, (grid,), (_i64(m), _i64(n), A, _i64(lda), ipiv, info, _i64(offset), flags, pub_values, pub_index,
                              pub_rows, _i64(capacity), _i64(epoch * 64), sync[:16].view(numpy.uint32),
                              _i64(GRID_SPIN_LIMIT)),
               block=size, shared=shared, cooperative=True)
    return sync


#: Whether a device runs the cluster panel (:func:`rocarray._core.backend.has_thread_block_clusters`).
cluster_available = backend.has_thread_block_clusters


def cluster_block_limit(dtype):
    """Most threads (panel rows) of one :func:`getf2_cluster` block for ``dtype``."""
    return CLUSTER_BLOCK // 2 if numpy.dtype(dtype).itemsize > 8 else CLUSTER_BLOCK


def cluster_panel_block(m, dtype, warp_size, blocks=None):
    """Threads of each block of a cluster panel of ``m`` rows on ``blocks`` blocks (default
    :data:`CLUSTER_BLOCKS`): ``ceil(m / blocks)`` rounded up to whole warps, or None where that
    passes :func:`cluster_block_limit`."""
    blocks = CLUSTER_BLOCKS if blocks is None else blocks
    block = -(-(-(-int(m) // blocks)) // warp_size) * warp_size
    return block if block <= cluster_block_limit(dtype) else None


_wide_fit = {}  # (device id, kernel name, block) -> whether one wide cluster fits


def _wide_cluster_fits(kernel, device_id, block):
    """Whether one cluster of :data:`CLUSTER_BLOCKS_WIDE` blocks of ``block`` threads of
    ``kernel`` can run on ``device_id`` (:func:`rocarray._core.driver.wide_clusters_fit`, asked
    once; a stand-in kernel without a driver handle: True)."""
    key = (device_id, kernel.name, block)
    fits = _wide_fit.get(key)
    if fits is None:
        from rocarray._core import driver

        function = kernel.function(device_id)
        try:
            handle = int(function.kernel.ptr)
        except Exception:
            handle = None
        fits = _wide_fit[key] = True if handle is None else driver.wide_clusters_fit(handle, CLUSTER_BLOCKS_WIDE,
                                                                                     block)
    return fits


def getf2_cluster(m, n, A, lda, ipiv, info, offset, block=None, blocks=None, other=None, others=(0, 0)):
    """getf2 of one m x n panel (``n <=`` :data:`GRID_PANEL_COLUMNS`) on ONE thread-block cluster
    (NVIDIA sm_90+), a thread per panel row holding the row in registers: block g of the cluster
    holds rows ``g * block .. (g + 1) * block - 1``. Per column each block finds its candidate
    (warp shuffles, the warps' results through shared memory), publishes it with its row (and,
    from the holder of the diagonal row, that row) in its own shared memory, double-buffered by
    the column's parity; one cluster barrier; every block reads all the publications through
    distributed shared memory in one round trip, reduces the candidates (the same pivot
    everywhere) and does its rows' part of the interchange, scaling and update. The same pivots,
    ``ipiv``, ``info`` and arithmetic as :func:`getf2` (one matrix).

    The cluster has :data:`CLUSTER_BLOCKS` blocks, or :data:`CLUSTER_BLOCKS_WIDE` where the rows
    need more (with :data:`CLUSTER_WIDE`, and where the driver finds room for such a cluster);
    ``blocks`` and ``block`` name them instead (tests: any panel those hold). ``others = (left,
    right)``: after the panel, its interchanges are applied to the ``left`` columns at ``other``
    and the ``right`` columns after n more (the panel's n when ``other`` is its left neighbour;
    the panel's rows, leading dimension lda), as :func:`laswp` would.

    Returns whether it launched: not where :data:`CLUSTER_PANEL` is off or the panel is shorter
    than :data:`CLUSTER_PANEL_ROWS` (both unless ``block`` is given), the panel is empty or too
    wide, the device has no clusters (:func:`cluster_available`), or the rows need blocks past
    :func:`cluster_block_limit`.
    """
    if block is None and (not CLUSTER_PANEL or m < CLUSTER_PANEL_ROWS):
        return False
    if n > GRID_PANEL_COLUMNS or n < 1 or m < 1:
        return False
    dev = _device(A)
    if not cluster_available(dev):
        return False
    if blocks is None:
        blocks = CLUSTER_BLOCKS
        if block is None and cluster_panel_block(m, A.dtype, 1) is None and CLUSTER_WIDE:
            blocks = CLUSTER_BLOCKS_WIDE
    if block is None:
        block = cluster_panel_block(m, A.dtype, backend.device_info(dev).warp_size, blocks)
    if block is None or block > cluster_block_limit(A.dtype) or m > blocks * block:
        return False
    if (others[0] or others[1]) and block < GRID_PANEL_COLUMNS:
        raise ValueError(f"the cluster panel's interchanges need blocks of at least {GRID_PANEL_COLUMNS} threads")
    kernel = KERNELS[cluster_kernel_name(A.dtype, blocks)]
    if blocks > CLUSTER_BLOCKS and not _wide_cluster_fits(kernel, dev, int(block)):
        return False
    with launch.on_device(dev):
        kernel(dev, (int(blocks),), (_i64(m), _i64(n), A, _i64(lda), ipiv, info, _i64(offset),
                                     A if other is None else other, _i64(others[0]), _i64(others[1])),
               block=int(block))
    return True


def check_grid_barrier(sync):
    """Raise :class:`GridBarrierError` (after zeroing the barrier's state) if a device-wide panel
    that used ``sync`` gave up at its barrier; waits for the device."""
    words = sync[:16].view(numpy.uint32)
    if int(words[2]):
        with launch.on_device(_device(sync)):
            words.fill(0)
        raise GridBarrierError("a device-wide panel's blocks waited too long at their grid barrier (were "
                               "they all resident?); the factorization is incomplete")


def laswp(n, A, lda, strideA, k1, k2, ipiv, strideP, reverse, batch, gap=(0, 0)):
    """Swap rows k and ``ipiv[k] - 1`` of the n columns at ``A`` for k in ``k1 .. k2-1`` (0-based;
    ``reverse``: from ``k2-1`` down), in each of ``batch`` matrices; every 32 interchanges are
    applied as one permutation of the rows they touch. ``gap = (begin, count)``: the n columns
    are A's columns ``0 .. begin-1`` and ``begin + count ..`` (both sides of a panel in one
    launch)."""
    if n == 0 or k2 <= k1 or batch == 0:
        return
    dev = _device(A)
    kernel = KERNELS[kernel_name("laswp", A.dtype)]
    with launch.on_device(dev):
        for first in range(0, batch, MAX_GRID_Y):
            count = min(MAX_GRID_Y, batch - first)
            a = A[first * strideA:] if first else A
            p = ipiv[first * strideP:] if first else ipiv
            kernel(dev, (-(-n // LASWP_COLUMNS), count),
                   (_i64(n), a, _i64(lda), _i64(strideA), _i64(k1), _i64(k2), p, _i64(strideP),
                    numpy.int32(1 if reverse else 0), _i64(gap[0]), _i64(gap[1])), block=LASWP_BLOCK)


#: Most interchanges :func:`laswp_composed` applies (``RA_ROCSOLVER_LASWP_PLAN_MAX``).
LASWP_PLAN_MAX = 512
#: Slots (threads) of one ``laswp_plan`` block (``RA_ROCSOLVER_LASWP_PLAN_BLOCK``).
LASWP_PLAN_BLOCK = 64
#: Columns of one ``laswp_gather`` block (``RA_ROCSOLVER_LASWP_GATHER_COLUMNS``).
LASWP_GATHER_COLUMNS = 8


def laswp_composed(n, A, lda, k1, k2, ipiv, gap=(0, 0)):
    """:func:`laswp` of one matrix, forward, for up to :data:`LASWP_PLAN_MAX` interchanges
    ``k1 .. k2-1`` composed into ONE permutation: ``ra_rocsolver_laswp_plan`` (a thread a slot) lists
    each row that changes with its source row, then ``ra_rocsolver_laswp_gather`` moves those
    rows of every column, so a row that several interchanges touch is read and written once (the
    32-interchange chunks of :func:`laswp` touch it once per chunk). ``gap`` as for laswp."""
    count = k2 - k1
    if n == 0 or count <= 0:
        return
    dev = _device(A)
    with launch.on_device(dev):
        raw = workspaces.scratch("rocsolver.lu.laswp_pairs", 4 * count * 8, dev)
        pairs = raw[:4 * count * 8].view(numpy.int64)
        KERNELS[kernel_name("laswp_plan", A.dtype)](dev, (-(-2 * count // LASWP_PLAN_BLOCK),),
                                                    (_i64(k1), _i64(count), ipiv, pairs), block=LASWP_PLAN_BLOCK)
        KERNELS[kernel_name("laswp_gather", A.dtype)](
            dev, (-(-n // LASWP_GATHER_COLUMNS),),
            (_i64(n), A, _i64(lda), _i64(2 * count), pairs, _i64(gap[0]), _i64(gap[1])), block=LASWP_BLOCK)


def getrs_small(trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB, batch):
    """``op(A) X = B`` for ``batch`` matrices factored by :func:`getf2`, one block each; ``trans``
    is ``'N'``, ``'T'`` or ``'C'``."""
    dev = _device(A)
    elements = n * n + n * nrhs
    # with few right-hand sides each element of A is read about once: shared memory would only
    # cost occupancy
    stage = nrhs >= STAGE_RHS and fits_shared(elements, A.dtype, dev)
    kernel = KERNELS[kernel_name("getrs_small", A.dtype, stage)]
    shared = elements * A.dtype.itemsize + 16 if stage else 0
    code = {"N": 0, "T": 1, "C": 2}[trans]
    with launch.on_device(dev):
        kernel(dev, (int(batch),), (_i64(n), _i64(nrhs), A, _i64(lda), _i64(strideA), ipiv, _i64(strideP), B,
                                    _i64(ldb), _i64(strideB), numpy.int32(code)),
               block=block_for(n * nrhs), shared=shared)


def diag_zero(n, A, lda, strideA, info, batch):
    """``info[b]`` := the first 1-based i with ``U(i, i) == 0`` in matrix b, else 0."""
    dev = _device(A)
    kernel = KERNELS[kernel_name("diag_zero", A.dtype)]
    with launch.on_device(dev):
        kernel(dev, (-(-batch // 256),), (_i64(n), A, _i64(lda), _i64(strideA), info, _i64(batch)), block=256)


# --------------------------------------------------------------------------------------------
# one matrix per group of lanes (lu_warp.hip)
# --------------------------------------------------------------------------------------------

WARP_SOURCE = "rocsolver/lu_warp.hip"
#: Orders of the register-resident kernels: a matrix of order n takes the smallest N >= n, and
#: a warp holds ``warp_size / N`` matrices (N <= 32 keeps every warp size of every vendor).
WARP_ORDERS = (8, 16, 32)
#: Warps per block of the warp kernels (``RA_ROCSOLVER_LU_WARP_BLOCK`` threads at most).
WARPS_PER_BLOCK = 4
#: Shared memory a warp-kernel block takes at most (the default limit on every device: no opt-in).
WARP_SHARED_BUDGET = 48 * 1024
#: Solve small systems with ``ra_rocsolver_gesv_warp_flat`` (branch-free rank-1 updates whose
#: shuffles issue back to back, warp-wide rank reductions for the pivot of one matrix per warp,
#: 16-byte loads of dense C-ordered stacks); False: ``ra_rocsolver_gesv_warp``, the same results
#: with a shuffle latency per updated element (docs/performance/rocsolver.md).
GESV_WARP_FLAT = True
_WARP_KERNELS = ("getrf_warp", "getrs_warp", "gesv_warp", "gesv_warp_flat")


def warp_order(n):
    """The template order N of the warp kernels for matrices of order n (None if n is too large)."""
    for order in WARP_ORDERS:
        if n <= order:
            return order
    return None


def warp_kernel_name(kernel, dtype, order):
    """Name expression, e.g. ``'ra_rocsolver_gesv_warp<float, 32>'``."""
    return f"ra_rocsolver_{kernel}<{dtypes.ctype(dtype)}, {int(order)}>"


def warp_instantiations():
    """Every name expression of ``lu_warp.hip`` the LU routines launch."""
    return sorted(warp_kernel_name(k, d, o) for k in _WARP_KERNELS for d in STANDARD for o in WARP_ORDERS)


_compile.register(WARP_SOURCE, warp_instantiations())

WARP_KERNELS = kernels.Family(WARP_SOURCE, 128, BLOCKS_PER_MULTIPROCESSOR)


def warp_geometry(order, dtype, batch, device_id):
    """``(grid, block, shared)`` of a warp-kernel launch over ``batch`` matrices: per warp one
    tile of ``warp_size * (order + 1)`` elements and ``warp_size`` ints, as many warps per block
    (up to :data:`WARPS_PER_BLOCK`) as fit :data:`WARP_SHARED_BUDGET`."""
    ws = backend.device_info(device_id).warp_size
    per_warp = ws * ((order + 1) * numpy.dtype(dtype).itemsize + 4)
    warps = max(1, min(WARPS_PER_BLOCK, WARP_SHARED_BUDGET // per_warp))
    per_block = warps * (ws // order)
    return -(-int(batch) // per_block), warps * ws, warps * per_warp + 16


def getrf_warp(n, A, lda, strideA, ipiv, strideP, info, batch):
    """LU with partial pivoting of ``batch`` n x n column-major matrices (n <= 32), a group of
    lanes each; ``info[:batch]`` is written (0 or the first zero pivot, 1-based), ipiv as getf2's."""
    dev = _device(A)
    order = warp_order(n)
    grid, block, shared = warp_geometry(order, A.dtype, batch, dev)
    kernel = WARP_KERNELS[warp_kernel_name("getrf_warp", A.dtype, order)]
    with launch.on_device(dev):
        kernel(dev, (grid,), (_i64(n), A, _i64(lda), _i64(strideA), ipiv, _i64(strideP), info, _i64(batch)),
               block=block, shared=shared)


def getrs_warp(trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB, batch):
    """``op(A) X = B`` for ``batch`` n x n matrices (n <= 32) factored by getrf, a group of lanes
    each; ``trans`` is ``'N'``, ``'T'`` or ``'C'``."""
    dev = _device(A)
    order = warp_order(n)
    grid, block, shared = warp_geometry(order, A.dtype, batch, dev)
    kernel = WARP_KERNELS[warp_kernel_name("getrs_warp", A.dtype, order)]
    code = {"N": 0, "T": 1, "C": 2}[trans]
    with launch.on_device(dev):
        kernel(dev, (grid,), (_i64(n), _i64(nrhs), A, _i64(lda), _i64(strideA), ipiv, _i64(strideP), B, _i64(ldb),
                              _i64(strideB), _i64(batch), numpy.int32(code)), block=block, shared=shared)


def _element_strides(x):
    return tuple(s // x.dtype.itemsize for s in x.strides)


def dense_rows(A, order):
    """Whether the ``(batch, n, n)`` stack A is dense, C-ordered, of order ``order`` itself and
    16-byte aligned: the layout ``gesv_warp_flat`` loads in 16-byte chunks."""
    n = A.shape[1]
    return (n == order and _element_strides(A) == (n * n, n, 1) and A.data.ptr % 16 == 0
            and 16 % A.dtype.itemsize == 0)


def gesv_warp(A, B, X, info):
    """``A[b] X[b] = B[b]`` for the ``(batch, n, n)`` array A (n <= 32), ``(batch, n, k)`` B and X
    of A's dtype, any element strides (zero batch strides broadcast; X may be B itself);
    ``info[:batch]`` is written as by :func:`getrf_warp`. A is only read."""
    batch, n = A.shape[0], A.shape[1]
    k = B.shape[2]
    dev = _device(A)
    order = warp_order(n)
    grid, block, shared = warp_geometry(order, A.dtype, batch, dev)
    a_bs, a_rs, a_cs = _element_strides(A)
    b_bs, b_rs, b_cs = _element_strides(B)
    x_bs, x_rs, x_cs = _element_strides(X)
    # A's layout: 1 rows along the smaller stride, 0 columns; 2 (the flat kernel only) dense
    # C-ordered matrices of order N, loaded in 16-byte chunks
    layout = numpy.int32(abs(a_cs) < abs(a_rs))
    if GESV_WARP_FLAT:
        kernel = WARP_KERNELS[warp_kernel_name("gesv_warp_flat", A.dtype, order)]
        if dense_rows(A, order):
            layout = numpy.int32(2)
    else:
        kernel = WARP_KERNELS[warp_kernel_name("gesv_warp", A.dtype, order)]
    with launch.on_device(dev):
        kernel(dev, (grid,), (_i64(n), _i64(k), A, _i64(a_rs), _i64(a_cs), _i64(a_bs), layout,
                              B, _i64(b_rs), _i64(b_cs), _i64(b_bs), X, _i64(x_rs), _i64(x_cs), _i64(x_bs),
                              info, _i64(batch)), block=block, shared=shared)


def clear_info(info, batch):
    """``info[:batch] := 0``."""
    if batch:
        with launch.on_device(_device(info)):
            info[:batch].fill(0)


def identities(n, batch, like):
    """A new flat array of ``batch`` n x n identity matrices (``n * n`` apart), ``like``'s dtype
    and device."""
    cupy = backend.cupy()
    with launch.on_device(_device(like)):
        X = cupy.zeros((batch, n * n), like.dtype)
        X[:, ::n + 1] = 1
    return X.reshape(-1)


def copy_where_ok(n, X, A, lda, strideA, info, batch):
    """Matrix b of A (n x n, leading dimension lda, ``b * strideA``) := matrix b of X (``n * n``
    apart, leading dimension n) where ``info[b] == 0``; the others are left alone."""
    cupy = backend.cupy()
    isz = A.dtype.itemsize
    with launch.on_device(_device(A)):
        # matrix b's columns as rows
        view = cupy.lib.stride_tricks.as_strided(A, (batch, n, n), (strideA * isz, lda * isz, isz))
        ok = (info[:batch] == 0)[:, None, None]
        view[...] = cupy.where(ok, X.reshape(batch, n, n), view)


def inverse_workspace(count, like):
    """``count`` elements of ``like``'s dtype of device scratch (uninitialized) on its device and
    current stream: the blocked getrf's inverses of diagonal blocks and its staged right-hand
    sides (:func:`rocarray.rocsolver._lu._getrf_outer`)."""
    itemsize, device = like.dtype.itemsize, _device(like)
    with launch.on_device(device):
        raw = workspaces.scratch("rocsolver.getrf.inverses", max(count, 1) * itemsize, device)
    return raw[:count * itemsize].view(like.dtype)


def set_identities(X, nb, count):
    """``count`` identity squares of order ``nb`` into the flat ``X`` (square q at ``q * nb * nb``,
    leading dimension nb)."""
    if count and nb:
        with launch.on_device(_device(X)):
            squares = X[:count * nb * nb].reshape(count, nb * nb)
            squares.fill(0)
            squares[:, ::nb + 1] = 1


def lacpy(m, n, src, lds, dst, ldd):
    """``dst := src`` for an m x n column-major block (the Cholesky family's copy kernel)."""
    _cholesky_kernels.lacpy(m, n, src, lds, dst, ldd)


#: Priority of the look-ahead stream (:func:`overlap`): the highest, so that its blocks are
#: scheduled first as a concurrent gemm's retire (CUDA and HIP clamp it to the device's range).
SIDE_PRIORITY = -5

_side_streams = {}


def _side_stream(device_id):
    stream = _side_streams.get(device_id)
    if stream is None:
        cupy = backend.cupy()
        with cupy.cuda.Device(device_id):
            stream = cupy.cuda.Stream(non_blocking=True, priority=SIDE_PRIORITY)
        _side_streams[device_id] = stream
    return stream


def overlap(first, second, device_id):
    """Queue ``first()``'s launches on a second stream of ``device_id`` and ``second()``'s on the
    current stream, so that the two may run at the same time: the second stream starts after the
    work queued on the current one so far, and the current stream waits for it after
    ``second()``'s launches. Neither may read what the other writes. Workspaces are per stream,
    so ``first()``'s scratch (grid barrier, gemm splits) is its stream's own."""
    cupy = backend.cupy()
    with launch.on_device(device_id):
        main = cupy.cuda.get_current_stream()
        side = _side_stream(device_id)
        side.wait_event(main.record())
        with side:
            first()
        done = side.record()
        second()
        main.wait_event(done)


#: Largest order :func:`unit_lower_inverse` takes (``RA_ROCSOLVER_LU_INV_MAX``).
INV_MAX = 64
#: Threads per block of :func:`unit_lower_inverse` (a warp per column of the inverse).
INV_BLOCK = 128


def unit_lower_inverse(nb, A, lda, W, ldw):
    """``W := inv(L)`` for the unit lower triangle L of the ``nb x nb`` block at ``A``
    (``nb <= INV_MAX``; A's diagonal and upper part are not read): the full square of W, zeros
    above the diagonal and ones on it. One launch, a warp per column."""
    dev = _device(A)
    per_block = INV_BLOCK // backend.device_info(dev).warp_size
    with launch.on_device(dev):
        KERNELS[kernel_name("lu_inv", A.dtype)](dev, (-(-nb // per_block),), (_i64(nb), A, _i64(lda), W, _i64(ldw)),
                                                block=INV_BLOCK)
