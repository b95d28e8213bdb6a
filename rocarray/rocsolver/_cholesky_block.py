"""Cholesky of a strided batch of small matrices with each matrix in registers: the kernels of
``rocarray/_kernels/rocsolver/cholesky_block.hip``, their choice per order and their launch.

Design
------
``ra_rocsolver_potrf_block<T, M, SIDE>`` runs blocks of 256 threads as ``G = 256 / SIDE^2``
groups, one matrix per group; a group is a ``SIDE x SIDE`` grid of threads, each holding the
lower-triangle blocks of an ``M x M`` register tile of its matrix (cyclic: element
``(a * SIDE + tr, b * SIDE + tc)`` on thread ``(tr, tc)``), so a group factors orders up to
``M * SIDE``. Each column step is one block barrier: the thread column holding column j
publishes it unscaled to shared memory, and every thread takes its rank-1 update from it with
``1 / d`` (d the pivot) only; the square roots and the scaling of the columns wait for the store.
``info`` per matrix is LAPACK's (the first non-positive or NaN pivot, 1-based), and a failed
matrix is left as the reference potf2 leaves it.

:data:`SHAPES` lists the tiles per dtype, smallest order first: an order n takes the first
``(M, SIDE)`` with ``n <= M * SIDE``. Orders up to 32 put 16 matrices in a block (4 x 4
threads of 8 x 8 tiles), up to 64 four (8 x 8 threads), up to 128 one (16 x 16 threads);
complex128, four registers an element, takes 4 x 4 tiles and orders up to 64.
"""

import numpy

from rocarray._core import compile as _compile, dtypes, kernels, launch

SOURCE = "rocsolver/cholesky_block.hip"

#: Threads per block (``RA_CHOLB_THREADS``).
THREADS = 256
#: ``(M, SIDE)`` per dtype, smallest order ``M * SIDE`` first.
SHAPES = {numpy.dtype(numpy.float32): ((8, 4), (8, 8), (8, 16)),
          numpy.dtype(numpy.float64): ((8, 4), (8, 8), (8, 16)),
          numpy.dtype(numpy.complex64): ((8, 4), (8, 8), (8, 16)),
          numpy.dtype(numpy.complex128): ((4, 8), (4, 16))}

_MAX_GRID_X = 2 ** 31 - 1


def kernel_name(dtype, tile, side):
    """Name expression, e.g. ``'ra_rocsolver_potrf_block<double, 8, 16>'``."""
    return f"ra_rocsolver_potrf_block<{dtypes.ctype(dtype)}, {int(tile)}, {int(side)}>"


def instantiations():
    """Every name expression :func:`potrf` launches."""
    return sorted(kernel_name(d, m, s) for d, shapes in SHAPES.items() for m, s in shapes)


_compile.register(SOURCE, instantiations())

KERNELS = kernels.Family(SOURCE, THREADS, 2)


def shape(n, dtype):
    """The ``(M, SIDE)`` of order ``n`` and ``dtype``, or None when n is too large."""
    for m, side in SHAPES.get(numpy.dtype(dtype), ()):
        if n <= m * side:
            return m, side
    return None


def max_order(dtype):
    """The largest order factored here."""
    m, side = SHAPES[numpy.dtype(dtype)][-1]
    return m * side


def takes(n, dtype):
    """Whether matrices of order ``n`` and ``dtype`` are factored here."""
    return 1 <= n and shape(n, dtype) is not None


def _i64(v):
    return numpy.int64(v)


def potrf(uplo, n, A, lda, stride, info, batch):
    """Cholesky of ``batch`` matrices of order ``n`` (``takes(n, A.dtype)``), ``stride`` elements
    apart in the 1-D buffer A, in place; ``info[b] :=`` the first failing column (1-based), else 0
    (every element of ``info[:batch]`` is written)."""
    if batch == 0:
        return
    m, side = shape(n, A.dtype)
    per_block = THREADS // (side * side)
    kernel = KERNELS[kernel_name(A.dtype, m, side)]
    device = A.data.device_id
    flags = numpy.int32(1 if uplo == "U" else 0)
    step = _MAX_GRID_X * per_block
    for first in range(0, batch, step):
        count = min(step, batch - first)
        with launch.on_device(device):
            kernel(device, (-(-count // per_block),),
                   (_i64(n), A[first * stride:], _i64(lda), _i64(stride), _i64(count), info[first:], flags),
                   block=THREADS, shared=0)
