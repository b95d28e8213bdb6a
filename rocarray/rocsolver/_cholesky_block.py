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


# flag bits (``RA_CHOLB_*`` in the source)
CONJ, COLS_FAST, ZERO = 1, 2, 4


def _i64(v):
    return numpy.int64(v)


def _launch(n, A, a_strides, F, f_strides, info, batch, flags, at):
    """One launch per ``2^31 - 1`` blocks; ``at(x, first)`` is x's view from matrix ``first``."""
    if batch == 0:
        return
    m, side = shape(n, A.dtype)
    per_block = THREADS // (side * side)
    kernel = KERNELS[kernel_name(A.dtype, m, side)]
    device = A.data.device_id
    if abs(a_strides[1]) < abs(a_strides[0]):
        flags |= COLS_FAST
    step = _MAX_GRID_X * per_block
    for first in range(0, batch, step):
        count = min(step, batch - first)
        with launch.on_device(device):
            kernel(device, (-(-count // per_block),),
                   (_i64(n), at(A, first), *map(_i64, a_strides), at(F, first), *map(_i64, f_strides), _i64(count),
                    info[first:], numpy.int32(flags)), block=THREADS, shared=0)


def potrf(uplo, n, A, lda, stride, info, batch):
    """Cholesky of ``batch`` matrices of order ``n`` (``takes(n, A.dtype)``), ``stride`` elements
    apart in the 1-D buffer A (column-major, leading dimension ``lda``), in place: the ``uplo``
    triangle read and overwritten, the other one untouched; ``info[b] :=`` the first failing
    column (1-based), else 0 (every element of ``info[:batch]`` is written)."""
    if uplo == "U":   # S(i, k) = conj(A(k, i))
        strides, flags = (lda, 1, stride), CONJ
    else:
        strides, flags = (1, lda, stride), 0
    _launch(n, A, strides, A, strides, info, batch, flags, lambda x, first: x[first * stride:])


def _element_strides(x):
    return tuple(s // x.dtype.itemsize for s in x.strides)


def factor_stack(uplo, A, F, info):
    """Cholesky factors of the ``(batch, n, n)`` stack A (any whole-element strides; only its
    ``uplo`` triangle, in NumPy's row and column sense, is read) into F, an array of A's shape and
    dtype (any strides; F may be A): ``A[b] = L L^H`` with L on and below F[b]'s diagonal
    (``'L'``) or ``A[b] = U^H U`` with U on and above it (``'U'``), zeros elsewhere. ``info`` as
    :func:`potrf`'s; ``takes(n, A.dtype)`` must hold."""
    batch, n = A.shape[0], A.shape[1]
    ab, ar, ac = _element_strides(A)
    fb, fr, fc = _element_strides(F)
    if uplo == "U":   # S(i, k) = conj(A[b, k, i]); U(k, i) = conj(S(i, k)) goes to F[b, k, i]
        a_strides, f_strides, flags = (ac, ar, ab), (fc, fr, fb), CONJ | ZERO
    else:
        a_strides, f_strides, flags = (ar, ac, ab), (fr, fc, fb), ZERO
    _launch(n, A, a_strides, F, f_strides, info, batch, flags, lambda x, first: x[first:])
