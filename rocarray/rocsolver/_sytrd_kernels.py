"""The fused panel columns of the tridiagonal reduction: the kernels of ``rocsolver/sytrd.hip``
(registration, scratch sizing) and :class:`PanelLaunches`, their prepared launches for one
reduction.

A column of latrd takes two launches (see the source's header): the symv kernel (the reflector's
scalars, each lower tile of the trailing matrix read once for both its row and its transposed
contributions, the panel products ``W^H v``, ``V^H v``, the shares of ``(A22 v)^H v``) and the sum
kernel (w finished into W, v stored, and the next column of the panel brought up to date with its
norm partials). A panel's first column takes one more launch for its norm partials. Each is a
:class:`rocarray._core.launch.Launch` prepared once per reduction whose per-call values are the
column's indices, so a column costs two driver calls and no argument checks.

Two kernel pairs take the same steps with the same partial layouts (:data:`WARP_TILES`): the
warp-tile pair (``sytrd_symv_stage`` or, with :data:`STAGED` off, ``sytrd_symv_warp``: whole
tiles per warp, no barrier in its tile loop, a grid sized by the column's tiles;
``sytrd_sum_rows``: 32 rows a block, blocks past the column's rows return at once) launched as
programmatic dependents where the device allows (:data:`DEPENDENT`), or the block-tile pair (``sytrd_symv``, ``sytrd_sum``: one wave of blocks and
``ceil(n / 32)`` blocks sharing the rows whatever the column).
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch
from rocarray._core.matrix_args import STANDARD

SOURCE = "rocsolver/sytrd.hip"

#: Tile order of the symv kernel (``RA_TRD_TILE``).
TILE = 32
#: Threads per block of every kernel in the source but ``sytrd_symv_warp`` (``RA_TRD_THREADS``).
THREADS = 256
#: Threads per block of ``sytrd_symv_warp`` (``RA_TRD_SYMV_THREADS``).
SYMV_THREADS = 128
#: Rows of an order-n matrix per block of the block-tile pair's norms and sum kernels (a block
#: takes ``TILE`` rows at a time): their grid is ``ceil(n / ROWS_PER_BLOCK)`` blocks for the whole
#: reduction, sharing each column's rows. The warp-tile pair takes ``TILE`` rows a block.
ROWS_PER_BLOCK = 32
#: Widest panel the kernels take (``RA_TRD_NB_MAX``).
NB_MAX = 64

#: Run the columns through the warp-tile kernels (False: the block-tile ``sytrd_symv``/``sytrd_sum``).
WARP_TILES = True
#: Run the warp-tile pair's symv through ``sytrd_symv_stage`` (transposed sums staged in shared
#: memory, the next unit's loads in flight while a warp adds); False: ``sytrd_symv_warp``
#: (shuffle butterflies). Same arguments, grid and partial layouts.
STAGED = True
#: Queue the warp-tile kernels as programmatic dependents of the previous kernel where the device
#: supports it (NVIDIA sm_90+), so that a column's launch overlaps the previous one's drain. Off:
#: it measured slower than plain launches (docs/performance/rocsolver.md).
DEPENDENT = False

KERNELS_USED = ("sytrd_norms", "sytrd_symv", "sytrd_sum", "sytrd_symv_warp", "sytrd_symv_stage", "sytrd_sum_rows")


def kernel_name(kernel, dtype):
    """Name expression, e.g. ``'ra_rocsolver_sytrd_symv<double>'``."""
    return f"ra_rocsolver_{kernel}<{dtypes.ctype(dtype)}>"


def instantiations():
    """Every name expression launched from the source."""
    return sorted(kernel_name(k, d) for k in KERNELS_USED for d in STANDARD)


_compile.register(SOURCE, instantiations())

KERNELS = kernels.Family(SOURCE, THREADS, 2048 // THREADS)
SYMV_KERNELS = kernels.Family(SOURCE, SYMV_THREADS, 2048 // SYMV_THREADS)


def tile_rows(n):
    """Tile rows of the largest trailing matrix (order ``n - 1``) of an order-``n`` reduction."""
    return max(1, -(-(n - 1) // TILE))


def row_blocks(n):
    """Blocks of the block-tile pair's norms and sum kernels for order ``n``."""
    return max(1, -(-n // ROWS_PER_BLOCK))


def symv_blocks(n, wave):
    """Blocks of the symv kernel: the tiles of the first trailing matrix, at most ``wave`` (one
    full wave of resident blocks); blocks loop over the tiles."""
    nt = tile_rows(n)
    return max(1, min(nt * (nt + 1) // 2, int(wave)))


def scratch_elements(n, nb, symv_grid):
    """Elements of A's dtype the reduction's scratch takes: ``(W, tile partials, panel partials,
    symv blocks' dot partials, scale)``, and the real norm partials."""
    nt = tile_rows(n)
    return (n * nb, nt * n, nt * 2 * nb, symv_grid, 1), 2 * row_blocks(n)


def warp_symv_blocks(m, warps_per_block, wave, panel_cols=0):
    """Blocks of the warp-tile symv kernel for a trailing matrix of order ``m``: one warp a work
    item (a tile, and for ``sytrd_symv_stage`` a 32-row block of the ``panel_cols`` panel columns
    of each tile row) up to ``wave`` blocks (warps loop over the items beyond), rounded up to a
    power of two so that a reduction prepares few launches."""
    nt = max(1, -(-m // TILE))
    items = nt * (nt + 1) // 2 + nt * -(-panel_cols // TILE)
    need = -(-items // warps_per_block)
    return max(1, min(1 << (need - 1).bit_length(), int(wave)))


def norm_blocks(rows):
    """Norm partials of a column of ``rows`` rows (from its diagonal) in the warp-tile kernels:
    one a ``TILE`` rows."""
    return max(1, -(-rows // TILE))


class PanelLaunches:
    """The prepared launches of an order-``n`` reduction of the flat device buffer ``a`` (checked
    arguments, ``n >= 2``, ``nb <= NB_MAX``), and their scratch; call with ``a``'s device current.
    :attr:`W` is the panel's W (``n x nb``, leading dimension n) for the trailing update.

    ``norms(k)`` queues the norm partials of a panel's first column ``k``; ``symv(j0, k, c)`` and
    ``total(j0, k, c, next)`` column ``k``'s two steps (``c = k - j0``; ``next = 1`` brings column
    ``k + 1`` of the same panel up to date and writes its norm partials). The kernel pair is the
    one :data:`WARP_TILES` names when the launches are made.
    """

    def __init__(self, dtype, n, a, lda, E, tau, nb):
        dtype = numpy.dtype(dtype)
        real = dtypes.real_dtype(dtype)
        cp = backend.cupy()
        self._device = device_id = a.data.device_id
        self._n = n
        self.warp_tiles = bool(WARP_TILES)
        i64, ptr = numpy.int64, (lambda x: numpy.uint64(x.data.ptr))
        slot = launch.scalar(numpy.int64)
        if self.warp_tiles:
            symv = SYMV_KERNELS[kernel_name("sytrd_symv_stage" if STAGED else "sytrd_symv_warp", dtype)]
            self._warps = max(1, SYMV_THREADS // backend.device_info(device_id).warp_size)
            self._wave = symv.wave(device_id)
            # the staged kernel's panel blocks: column k's 2 (k % nb) panel columns (at most
            # 2 (nb - 1): the first grid bounds every column's for the scratch)
            self._nb = nb if STAGED else 0
            grid = warp_symv_blocks(n - 1, self._warps, self._wave, 2 * max(nb - 1, 0) if STAGED else 0)
            norm_size = 2 * norm_blocks(n)
        else:
            symv = KERNELS[kernel_name("sytrd_symv", dtype)]
            grid = symv_blocks(n, symv.wave(device_id))
            norm_size = 2 * row_blocks(n)
        sizes, _ = scratch_elements(n, nb, grid)
        self.W, partial, ypart, dots, scale = (cp.empty(max(s, 1), dtype) for s in sizes)
        norms = cp.empty(norm_size, real)
        self._keep = (partial, ypart, dots, scale, norms)
        if not self.warp_tiles:
            rows = row_blocks(n)
            self.norms = KERNELS[kernel_name("sytrd_norms", dtype)].prepare(
                device_id, (rows,), (i64(n), ptr(a), i64(lda), slot, ptr(norms)))
            self.symv = symv.prepare(
                device_id, (grid,),
                (i64(n), ptr(a), i64(lda), ptr(self.W), slot, slot, slot, i64(rows), ptr(norms), ptr(E), ptr(tau),
                 ptr(scale), ptr(partial), ptr(ypart), ptr(dots)))
            self.total = KERNELS[kernel_name("sytrd_sum", dtype)].prepare(
                device_id, (rows,),
                (i64(n), ptr(a), i64(lda), ptr(self.W), slot, slot, slot, launch.scalar(numpy.int32), i64(grid),
                 ptr(dots), ptr(scale), ptr(tau), ptr(partial), ptr(ypart), ptr(norms)))
            return
        # only where the kernels are compiled with the grid dependency wait (else a race)
        dependent = bool(DEPENDENT) and backend.dependent_launches(device_id)
        self._norm_kernel = KERNELS[kernel_name("sytrd_norms", dtype)]
        self._norm_args = (i64(n), ptr(a), i64(lda), slot, ptr(norms))
        self._symv_kernel = symv
        self._symv_args = (i64(n), ptr(a), i64(lda), ptr(self.W), slot, slot, slot, ptr(norms), ptr(E), ptr(tau),
                           ptr(scale), ptr(partial), ptr(ypart), ptr(dots))
        self._dependent = dependent
        self._prepared = {}
        self._symv_at = {}
        self._grid = grid
        self._sum = KERNELS[kernel_name("sytrd_sum_rows", dtype)].prepare(
            device_id, (norm_blocks(n),),
            (i64(n), ptr(a), i64(lda), ptr(self.W), slot, slot, slot, launch.scalar(numpy.int32), slot,
             ptr(dots), ptr(scale), ptr(tau), ptr(partial), ptr(ypart), ptr(norms)), dependent=dependent)
        self.norms, self.symv, self.total = self._warp_norms, self._warp_symv, self._warp_total

    def _launch(self, kind, grid):
        """The prepared launch of ``kind`` ('norms' or 'symv') with ``grid`` blocks (made once)."""
        got = self._prepared.get((kind, grid))
        if got is None:
            if kind == "norms":
                got = self._norm_kernel.prepare(self._device, (grid,), self._norm_args)
            else:
                got = self._symv_kernel.prepare(self._device, (grid,), self._symv_args, dependent=self._dependent)
            self._prepared[kind, grid] = got
        return got

    def _warp_norms(self, k):
        self._launch("norms", norm_blocks(self._n - k))(k)

    def _warp_symv(self, j0, k, c):
        got = self._symv_at.get(k)
        if got is None:  # the grids of the whole reduction, once (the column loop stays a lookup)
            for col in range(self._n - 1):
                cols = 2 * (col % self._nb) if self._nb else 0
                grid = warp_symv_blocks(self._n - col - 1, self._warps, self._wave, cols)
                self._symv_at[col] = (grid, self._launch("symv", grid))
            got = self._symv_at[k]
        self._grid, go = got
        go(j0, k, c)

    def _warp_total(self, j0, k, c, next):
        self._sum(j0, k, c, next, self._grid)
