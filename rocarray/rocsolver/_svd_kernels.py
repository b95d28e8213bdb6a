"""The kernels of ``rocarray/_kernels/rocsolver/svd.hip`` and the device memory gesvdj uses: the
one small interface :mod:`rocarray.rocsolver._svd` drives (CPU tests replace it with a NumPy model).

Work buffers follow the source's layout: ``W`` holds ``batch`` column-major p x q matrices (p*q
apart), ``V`` ``batch`` q x q matrices (or None: no rotations accumulated); both are 1-D device
arrays of the data's dtype. Output
buffers (``A``, ``S``, ``X``, ``Y``) are the caller's 1-D or Fortran-ordered arrays; ``X``/``Y``
may be None.
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch
from rocarray._core.matrix_args import STANDARD

SOURCE = "rocsolver/svd.hip"

#: Threads per block of every kernel in the source (``RA_SVD_BLOCK``).
BLOCK = 256
#: Resident blocks per multiprocessor assumed for the occupancy query.
BLOCKS_PER_MULTIPROCESSOR = 2048 // BLOCK
#: Dynamic shared memory the one-block-per-matrix kernel takes at most: under the 48 KB every
#: device grants without opting in, less the kernel's static shared memory.
SHARED_LIMIT = 46 * 1024
#: Largest grid x dimension.
MAX_GRID_X = 2**31 - 1

#: Columns per block of the block Jacobi path (``RA_SVD_BC``); a block pair rotates twice as many.
BLOCK_COLS = 16
#: Rows of W and V one block of the rotate launch takes (``RA_SVD_ROT_ROWS``).
ROTATE_ROWS = 32
#: Rows one block of the gram launch sums at least (``RA_SVD_GRAM_ROWS``, its tile).
GRAM_ROWS = 64
#: Blocks the gram launch aims for per round: the rows are split into slices until the pairs of
#: a round times the slices reach it, so a round with few pairs still fills the device.
GRAM_BLOCKS = 1024
#: Most cyclic Jacobi sweeps the eig launch runs on one pair's Gram matrix: one, since every
#: further sweep adds rounding to J (and V) while the outer sweeps converge about as fast without.
INNER_SWEEPS = 1

TEMPLATES = ("svd_load", "gesvdj_small", "gesvdj_round", "gesvdj_block_gram", "gesvdj_block_eig",
             "gesvdj_block_rotate", "svd_norms", "svd_sort")


def kernel_name(kernel, dtype):
    """Name expression, e.g. ``'ra_rocsolver_gesvdj_round<double>'``."""
    return f"ra_rocsolver_{kernel}<{dtypes.ctype(dtype)}>"


def instantiations():
    """Every name expression gesvdj launches from the source."""
    return sorted(kernel_name(k, d) for k in TEMPLATES for d in STANDARD)


_compile.register(SOURCE, instantiations())

KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)

_I64 = numpy.int64
_NULL = numpy.uint64(0)


def _ptr(x):
    """A device array argument, or a null pointer for None."""
    return _NULL if x is None else x


def _real(dtype):
    return dtypes.real_dtype(dtype).type


def _launch(kernel, dtype, x, grid, args, shared=0):
    device_id = x.data.device_id
    with launch.on_device(device_id):
        KERNELS[kernel_name(kernel, dtype)](device_id, (int(grid),), args, shared=shared)


def _check_grid(blocks):
    if blocks > MAX_GRID_X:
        raise ValueError(f"rocsolver.gesvdj: {blocks} thread blocks exceed one launch's grid")


# --------------------------------------------------------------------------------------------
# memory
# --------------------------------------------------------------------------------------------

def empty(elements, dtype, like):
    """An uninitialized 1-D device array of ``elements`` on ``like``'s device."""
    with launch.on_device(like.data.device_id):
        return backend.cupy().empty(max(int(elements), 1), dtype=dtype)


def zeros(elements, dtype, like):
    """A zeroed 1-D device array of ``elements`` on ``like``'s device."""
    with launch.on_device(like.data.device_id):
        return backend.cupy().zeros(max(int(elements), 1), dtype=dtype)


def zero_vectors(x, length, stride, batch):
    """Set ``batch`` vectors of ``length`` elements, ``stride`` apart in the 1-D array ``x``, to zero."""
    cupy = backend.cupy()
    view = cupy.lib.stride_tricks.as_strided(x, shape=(batch, length), strides=(stride * x.itemsize, x.itemsize))
    view.fill(0)


def to_host(x):
    """The host copy of device array ``x`` (one synchronization)."""
    return backend.cupy().asnumpy(x)


def write(x, values):
    """Copy the host array ``values`` into the contiguous 1-D device array ``x`` (same size)."""
    x.set(numpy.ascontiguousarray(values, dtype=x.dtype).reshape(x.shape))


# --------------------------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------------------------

def load(p, q, batch, A, lda, strideA, trans, W, V):
    """``W := A`` (or ``A^H`` when ``trans``; A is then q x p) and ``V := I`` for each matrix."""
    blocks = max(1, min(-(-batch * max(p * q, q * q) // BLOCK), 4096))
    _launch("svd_load", W.dtype, W, blocks,
            (_I64(p), _I64(q), _I64(batch), A, _I64(lda), _I64(strideA), numpy.int32(bool(trans)), W, _ptr(V)))


def small_shared_bytes(p, q, dtype, with_v):
    """Shared memory the small kernel takes to hold one p x q work matrix (and V)."""
    return (p * q + (q * q if with_v else 0)) * numpy.dtype(dtype).itemsize + 16


def jacobi_small(p, q, batch, W, V, tol, max_sweeps, residual, n_sweeps, info):
    """The whole iteration, one block per matrix; writes residual, n_sweeps and info."""
    _check_grid(batch)
    shared = small_shared_bytes(p, q, W.dtype, V is not None)
    in_shared = shared <= SHARED_LIMIT
    _launch("gesvdj_small", W.dtype, W, batch,
            (_I64(p), _I64(q), W, _ptr(V), _real(W.dtype)(tol), numpy.int32(max_sweeps), numpy.int32(in_shared),
             residual, n_sweeps, info), shared=shared if in_shared else 0)


def jacobi_sweep(p, q, batch, W, V, tol, off_bits):
    """One sweep on every matrix: a launch per round (one block per column pair, one prepared
    launch whose only per-call value is the round); raises ``off_bits[b]`` (uint64 holding a
    float64's bits) to the largest pair off of matrix b."""
    blocks = batch * ((q + (q & 1)) // 2)
    _check_grid(blocks)
    device_id = W.data.device_id
    kernel = KERNELS[kernel_name("gesvdj_round", W.dtype)]
    with launch.on_device(device_id):
        prepared = kernel.prepare(device_id, (blocks,),
                                  (_I64(p), _I64(q), launch.scalar(numpy.int64), numpy.uint64(W.data.ptr),
                                   numpy.uint64(0 if V is None else V.data.ptr), _real(W.dtype)(tol),
                                   numpy.uint64(off_bits.data.ptr)))
        for r in range(q + (q & 1) - 1):
            prepared(r)


def block_pairs(q):
    """Block pairs of one round of the block path: ``ceil(q / BLOCK_COLS)`` rounded up to even, halved."""
    nb = -(-q // BLOCK_COLS)
    return (nb + (nb & 1)) // 2


def gram_splits(p, q, batch):
    """Row slices of the gram launch (see :data:`GRAM_BLOCKS`)."""
    pairs = batch * block_pairs(q)
    return max(1, min(-(-GRAM_BLOCKS // pairs), -(-p // GRAM_ROWS)))


class BlockSweeper:
    """One sweep of the block path on every matrix per call: three prepared launches per round
    (gram, eig, rotate; the round their only per-call value), raising ``off_bits[b]`` as
    :func:`jacobi_sweep` does. Owns the round's Gram slices, rotations and marks, whose addresses
    the prepared launches hold."""

    def __init__(self, p, q, batch, W, V, tol, off_bits):
        pairs = batch * block_pairs(q)
        splits = gram_splits(p, q, batch)
        pc = 2 * BLOCK_COLS
        tiles = -(-p // ROTATE_ROWS) + (0 if V is None else -(-q // ROTATE_ROWS))
        _check_grid(pairs * max(splits, tiles))
        self.G = empty(splits * pairs * pc * pc, W.dtype, W)
        self.J = empty(pairs * pc * pc, W.dtype, W)
        self.marks = empty(pairs, numpy.int32, W)
        self.device_id = device_id = W.data.device_id
        nb = -(-q // BLOCK_COLS)
        self.rounds = nb + (nb & 1) - 1
        rnd = launch.scalar(numpy.int64)
        ptr = lambda x: numpy.uint64(0 if x is None else x.data.ptr)  # noqa: E731
        kernel = lambda k: KERNELS[kernel_name(k, W.dtype)]  # noqa: E731
        with launch.on_device(device_id):
            self._gram = kernel("gesvdj_block_gram").prepare(
                device_id, (pairs * splits,), (_I64(p), _I64(q), rnd, _I64(pairs), _I64(splits), ptr(W), ptr(self.G)))
            self._eig = kernel("gesvdj_block_eig").prepare(
                device_id, (pairs,), (_I64(q), rnd, _I64(pairs), _I64(splits), ptr(self.G), ptr(self.J),
                                      ptr(self.marks), _real(W.dtype)(tol), numpy.int32(INNER_SWEEPS),
                                      ptr(off_bits)))
            self._rotate = kernel("gesvdj_block_rotate").prepare(
                device_id, (pairs * tiles,), (_I64(p), _I64(q), rnd, _I64(tiles), ptr(W), ptr(V), ptr(self.J),
                                              ptr(self.marks)))

    def __call__(self):
        with launch.on_device(self.device_id):
            for r in range(self.rounds):
                self._gram(r)
                self._eig(r)
                self._rotate(r)


def norms(p, q, batch, W, out):
    """``out[b*q + j] := |column j of matrix b|``."""
    _check_grid(batch * q)
    _launch("svd_norms", W.dtype, W, batch * q, (_I64(p), _I64(q), W, out))


def sort(p, q, batch, W, V, nrm, S, strideS, X, ldx, strideX, xrow, Y, ldy, strideY, yrow):
    """Singular values in descending order into S, normalized columns of W into X and columns of V
    into Y (as conjugated rows where ``xrow``/``yrow``), permuted alike."""
    _check_grid(batch * q)
    _launch("svd_sort", W.dtype, W, batch * q,
            (_I64(p), _I64(q), W, _ptr(V), nrm, S, _I64(strideS), _ptr(X), _I64(ldx), _I64(strideX),
             numpy.int32(bool(xrow)), _ptr(Y), _I64(ldy), _I64(strideY), numpy.int32(bool(yrow))))
