"""The kernels of ``rocarray/_kernels/rocsolver/cholesky.hip``: registration and launches.

This is the one small interface through which the Cholesky and triangular-inverse drivers
(:mod:`._cholesky`, :mod:`._trtri`) reach their own kernels; everything else they do goes through
public rocblas functions. Buffers are 1-D device arrays whose first element is the first element
of the (first) matrix; ``info`` arguments are int32 device arrays whose first element is the first
matrix's. No argument checks here: the drivers pass in-bounds views.

Every kernel but ``potf2_inv`` keeps one block (or one matrix of a batch) of order ``n`` in dynamic
shared memory, ``n (n + 1)`` elements (trti2: ``n (n + 2)``); :func:`leaf_order` is the largest
order that fits. ``ra_rocsolver_potf2_inv<T, M>`` keeps its block in registers (256 threads as
16 x 16, an ``M x M`` tile each: orders up to ``16 M``, :data:`INV_TILES`) and writes the factor
and its inverse; :func:`inverse_leaf_order` is its order per dtype.
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch
from rocarray._core.matrix_args import STANDARD
from rocarray._core.workspace import workspaces

SOURCE = "rocsolver/cholesky.hip"

#: Threads per block (``RA_ROCSOLVER_CHOL_BLOCK``); lauu2 needs ``n <= BLOCK``.
BLOCK = 256
#: Largest diagonal block of the blocked drivers (more only lengthens the one-block kernels'
#: sequential walk; fewer means more rocblas calls).
MAX_LEAF = 128
#: Orders tried for the diagonal blocks, largest first.
LEAF_ORDERS = (128, 64, 32, 16)

# flag bits (``RA_ROCSOLVER_CHOL_*`` in the source)
UPPER, UNIT = 1, 2

TEMPLATES = ("potf2", "potrs_small", "trti2", "lauu2", "zero_diag", "lacpy")

#: Register tile of ``potf2_inv`` per dtype (``M``: a thread keeps ``M * M`` elements, the block
#: order is up to ``16 M``); complex128 takes a smaller tile (four registers an element).
INV_TILES = {numpy.dtype(numpy.float32): 8, numpy.dtype(numpy.float64): 8,
             numpy.dtype(numpy.complex64): 8, numpy.dtype(numpy.complex128): 4}
#: Threads per side of ``potf2_inv``'s thread grid (``RA_ROCSOLVER_CHOL_SIDE``).
INV_SIDE = 16

_MAX_GRID_X = 2 ** 31 - 1
_MAX_GRID_Y = 65535


def kernel_name(kernel, dtype):
    """Name expression, e.g. ``'ra_rocsolver_potf2<double>'``."""
    return f"ra_rocsolver_{kernel}<{dtypes.ctype(dtype)}>"


def inverse_kernel_name(dtype):
    """Name expression of the factor-and-inverse kernel, e.g. ``'ra_rocsolver_potf2_inv<double, 8>'``."""
    dtype = numpy.dtype(dtype)
    return f"ra_rocsolver_potf2_inv<{dtypes.ctype(dtype)}, {INV_TILES[dtype]}>"


def instantiations():
    """Every name expression the drivers launch from this source."""
    return sorted([kernel_name(k, d) for k in TEMPLATES for d in STANDARD]
                  + [inverse_kernel_name(d) for d in STANDARD])


_compile.register(SOURCE, instantiations())

KERNELS = kernels.Family(SOURCE, BLOCK, 2048 // BLOCK)


def shared_bytes(n, itemsize, extra_column=False):
    """Dynamic shared memory of one block of order ``n``."""
    return n * (n + (2 if extra_column else 1)) * itemsize


def fits(n, dtype, limit):
    """Whether a matrix of order ``n`` fits the one-block kernels under ``limit`` bytes of shared memory."""
    return n <= BLOCK and shared_bytes(n, numpy.dtype(dtype).itemsize, True) <= limit


def leaf_order(dtype, limit):
    """The order of the diagonal blocks for ``dtype`` and ``limit`` bytes of shared memory per block."""
    for nb in LEAF_ORDERS:
        if nb <= MAX_LEAF and fits(nb, dtype, limit):
            return nb
    return LEAF_ORDERS[-1]


def inverse_leaf_order(dtype):
    """The largest block order ``potf2_inv`` takes for ``dtype`` (``16 M``)."""
    return INV_SIDE * INV_TILES[numpy.dtype(dtype)]


def clear_info(info, batch):
    """``info[:batch] := 0``."""
    info[:batch].fill(0)


def zero(buf):
    """``buf := 0`` (a device memset on the current stream)."""
    if buf.size:
        with launch.on_device(buf.data.device_id):
            backend.cupy().cuda.runtime.memsetAsync(buf.data.ptr, 0, buf.nbytes, launch.current_stream())


def scratch(A, count):
    """``count`` elements of A's dtype of device scratch (uninitialized) on A's device and stream:
    the Cholesky driver's inverses of diagonal blocks and its panel copy."""
    itemsize, device = A.dtype.itemsize, A.data.device_id
    with launch.on_device(device):
        raw = workspaces.scratch("rocsolver.potrf.inverses", max(count, 1) * itemsize, device)
    return raw[:count * itemsize].view(A.dtype)


def shared_limit(A):
    """Bytes of dynamic shared memory one block may take on ``A``'s device."""
    return backend.shared_memory_limit(A.data.device_id)


def _i64(v):
    return numpy.int64(v)


def _launch(kernel, dtype, A, grid, args, shared):
    device = A.data.device_id
    with launch.on_device(device):
        KERNELS[kernel_name(kernel, dtype)](device, grid, args, shared=shared)


def potf2(uplo, n, A, lda, stride, info, batch, j0=0):
    """Cholesky of ``batch`` matrices of order ``n`` (``stride`` apart) in place; ``info[b] := j0 +``
    the failing column where ``info[b]`` is still 0."""
    flags = UPPER if uplo == "U" else 0
    shared = shared_bytes(n, A.dtype.itemsize)
    for first in range(0, batch, _MAX_GRID_X):
        count = min(_MAX_GRID_X, batch - first)
        _launch("potf2", A.dtype, A, (count,),
                (_i64(n), A[first * stride:], _i64(lda), _i64(stride), info[first:], _i64(j0), numpy.int32(flags)),
                shared)


def potf2_inv(uplo, n, A, lda, W, ldw, info, j0=0):
    """Cholesky of one block of order ``n <= inverse_leaf_order`` in place and ``W := inv(S)``, S the
    lower normal form of the factor (L, or U^H): the n x n square of W at leading dimension ``ldw``,
    zeros above the diagonal. ``info[0] := j0 +`` the failing column where it is still 0 (W is then
    meaningless)."""
    flags = UPPER if uplo == "U" else 0
    device = A.data.device_id
    with launch.on_device(device):
        KERNELS[inverse_kernel_name(A.dtype)](device, (1,), (_i64(n), A, _i64(lda), W, _i64(ldw), info, _i64(j0),
                                                             numpy.int32(flags)), shared=0)


def lacpy(m, n, src, lds, dst, ldd):
    """``dst := src`` for an m x n column-major block (leading dimensions ``lds`` and ``ldd``)."""
    if m == 0 or n == 0:
        return
    grid = (-(-m // BLOCK), min(n, _MAX_GRID_Y))
    _launch("lacpy", src.dtype, src, grid, (_i64(m), _i64(n), src, _i64(lds), dst, _i64(ldd)), 0)


def potrs_small(uplo, n, nrhs, A, lda, stride_a, B, ldb, stride_b, batch):
    """``B_b := inv(A_b) B_b`` for ``batch`` factors from :func:`potf2` (order ``n``, ``nrhs`` columns)."""
    flags = UPPER if uplo == "U" else 0
    shared = shared_bytes(n, A.dtype.itemsize)
    for first in range(0, batch, _MAX_GRID_X):
        count = min(_MAX_GRID_X, batch - first)
        _launch("potrs_small", A.dtype, A, (count,),
                (_i64(n), _i64(nrhs), A[first * stride_a:], _i64(lda), _i64(stride_a), B[first * stride_b:],
                 _i64(ldb), _i64(stride_b), numpy.int32(flags)), shared)


def trti2(uplo, diag, n, A, lda):
    """``A := inv(A)`` for one triangular block of order ``n``."""
    flags = (UPPER if uplo == "U" else 0) | (UNIT if diag == "U" else 0)
    _launch("trti2", A.dtype, A, (1,), (_i64(n), A, _i64(lda), numpy.int32(flags)),
            shared_bytes(n, A.dtype.itemsize, True))


def lauu2(uplo, n, A, lda):
    """``A := U U^H`` (upper) or ``L^H L`` (lower) for one triangular block of order ``n``."""
    _launch("lauu2", A.dtype, A, (1,), (_i64(n), A, _i64(lda), numpy.int32(UPPER if uplo == "U" else 0)),
            shared_bytes(n, A.dtype.itemsize))


def zero_diagonal(n, A, lda, stride, info, batch):
    """``info[b] :=`` 1 + the first zero on matrix b's diagonal, else 0."""
    for first in range(0, batch, _MAX_GRID_X):
        count = min(_MAX_GRID_X, batch - first)
        _launch("zero_diag", A.dtype, A, (count,), (_i64(n), A[first * stride:], _i64(lda), _i64(stride),
                                                    info[first:]), 0)
