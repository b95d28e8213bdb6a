"""The device operations of the Householder QR drivers (:mod:`._qr_blocked`), in one place.

The kernels of ``rocarray/_kernels/rocsolver/qr.hip`` (registration and launches), rocblas's
gemm and trsm, and the scratch buffers. Every function takes flat column-major buffers
(``cupy.ndarray`` views that start at the first element of matrix 0) with leading dimensions and
batch strides, and does no argument checks: the drivers only pass in-bounds sub-matrices. This is
the whole interface the drivers use, so CPU tests replace it with NumPy stand-ins.
"""

import numpy

from rocarray import rocblas
from rocarray._core import backend, compile as _compile, dtypes, kernels, launch
from rocarray._core.workspace import workspaces
from rocarray.rocsolver import _lu_kernels

SOURCE = "rocsolver/qr.hip"

#: Threads per block of the elementwise kernels and larft (``RA_ROCSOLVER_QR_BLOCK``).
BLOCK = 256
#: geqr2 blocks by rows: 64 threads up to 64 rows, 256 up to 1024 rows, 512 for taller panels
#: (more rows in flight per barrier round of the one block that walks a tall panel).
GEQR2_BLOCKS = ((64, 64), (1024, 256), (None, 512))
#: Resident blocks per multiprocessor assumed for the occupancy query.
BLOCKS_PER_MULTIPROCESSOR = 2048 // BLOCK

#: Threads of a block of the device-wide geqr2 (``RA_ROCSOLVER_QR_GRID_BLOCK``).
GRID_BLOCK = 128
#: Fewest rows of a leaf factored across the device (the one-block geqr2's time falls with the
#: rows, the device-wide kernel's is about one grid barrier per column whatever the height).
GRID_LEAF_ROWS = 512
#: Most columns of a device-wide leaf (``RA_ROCSOLVER_QR_GRID_COLUMNS``).
GRID_LEAF_COLUMNS = 32
#: Fewest rows per block of a device-wide leaf (fewer blocks for shorter leaves).
GRID_MIN_SHARE = 32
#: Clock cycles a block waits at a grid barrier before it gives up (about 2 s at 2 GHz).
GRID_SPIN_LIMIT = 1 << 32
#: Static shared bytes of the device-wide geqr2 beside its rows (s_w, the scalars, slack).
GRID_STATIC_SHARED = 1024

#: T of a block reflector through its inverse, ``T = (I + diag(tau) striu(S))^{-1} diag(tau)``
#: (``ra_rocsolver_larft_inv``: diagonal blocks by substitution, then doubling products in
#: parallel) where k <= :data:`LARFT_INVERSE_MAX`; False: the column recurrence (``ra_rocsolver_larft``).
LARFT_INVERSE = True
#: Largest k of ``larft_inv`` (``RA_ROCSOLVER_QR_LARFT_INV_MAX``).
LARFT_INVERSE_MAX = 128
#: ``larft_inv`` works on a k x (k + 1) matrix in shared memory where the device's block limit
#: holds it; False (or too large: double complex k = 128, or past 64 KB of LDS): in T itself.
LARFT_INVERSE_SHARED = True
#: Whether a leaf goes to one thread-block cluster (:func:`geqr2_cluster`) where it can run; the
#: way back to :func:`geqr2_grid` and the one-block geqr2 is ``False``.
CLUSTER_LEAF = True
#: Blocks of the cluster leaf (``RA_ROCSOLVER_QR_CLUSTER_BLOCKS``: the portable cluster size).
CLUSTER_BLOCKS = 8
#: Threads of a block of the cluster leaf (``RA_ROCSOLVER_QR_CLUSTER_BLOCK``).
CLUSTER_BLOCK = 512
#: Fewest rows of a leaf factored by one cluster (a column costs a cluster barrier and a
#: distributed-shared-memory round trip whatever the height, the one-block geqr2's time falls
#: with the rows).
CLUSTER_LEAF_ROWS = 128
#: Whether the drivers ask the cluster leaf for its block reflector's T (xLARFT, from S = V^H V
#: summed with each column's dots) and then skip that reflector's S gemm and larft; the way back
#: is ``False``.
CLUSTER_LEAF_T = True
#: Static shared bytes of the cluster leaf beside its rows (two publication slots of 64
#: elements, s_w, the scalars, S and T of 32 x 33, tau, slack; complex128 the largest).
CLUSTER_STATIC_SHARED = 22528

_STANDARD = tuple(numpy.dtype(t) for t in ("float32", "float64", "complex64", "complex128"))
_ELEMENTWISE = ("qr_copy_v", "qr_set_identity", "qr_conj_transpose", "larft", "larft_inv",
                "qr_diag_info")


def _name(kernel, dtype, *extra):
    args = ", ".join((dtypes.ctype(dtype),) + tuple(str(e) for e in extra))
    return f"ra_rocsolver_{kernel}<{args}>"


def instantiations():
    """Every name expression the QR routines launch from this source."""
    names = [_name(k, d) for k in _ELEMENTWISE for d in _STANDARD]
    names += [_name("geqr2", d, b) for d in _STANDARD for _, b in GEQR2_BLOCKS]
    names += [_name("geqr2_grid", d) for d in _STANDARD]
    names += [_name("geqr2_cluster", d) for d in _STANDARD]
    return sorted(names)


_compile.register(SOURCE, instantiations())

KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)

_i64 = numpy.int64


def _device(X):
    return X.data.device_id


def _elementwise(kernel, X, total, args):
    device = _device(X)
    k = KERNELS[_name(kernel, X.dtype)]
    with launch.on_device(device):
        grid = max(1, min(-(-total // BLOCK), 4 * k.wave(device)))
        k(device, (grid,), args)


def geqr2(m, n, A, lda, stride_a, tau, stride_p, batch):
    """Unblocked QR (LAPACK xGEQR2) of ``batch`` m x n matrices, one block each; tau(0:min(m, n))."""
    block = next(b for rows, b in GEQR2_BLOCKS if rows is None or m <= rows)
    device = _device(A)
    with launch.on_device(device):
        KERNELS[_name("geqr2", A.dtype, block)](
            device, (batch,), (_i64(m), _i64(n), A, _i64(lda), _i64(stride_a), tau, _i64(stride_p)), block=block)


def grid_leaf_shape(m, n, dtype, device_id, blocks=None):
    """``(blocks, share, shared)`` of a device-wide geqr2 of ``m x n``: blocks of ``share`` rows each
    (the last may hold fewer) and the dynamic shared bytes of one; ``blocks`` defaults to one per
    multiprocessor, fewer for short leaves (:data:`GRID_MIN_SHARE` rows at least)."""
    if blocks is None:
        sms = backend.device_info(device_id).multiprocessors
        blocks = max(1, min(sms, -(-m // GRID_MIN_SHARE)))
        blocks = -(-m // -(-m // blocks))  # no block without rows
    share = max(1, -(-m // blocks))
    shared = share * n * numpy.dtype(dtype).itemsize + 16
    return int(blocks), int(share), int(shared)


def geqr2_grid(m, n, A, lda, tau, blocks=None):
    """geqr2 of one m x n leaf (``n <=`` :data:`GRID_LEAF_COLUMNS`) across the device: a cooperative
    launch of blocks that each hold a share of the rows in shared memory and meet at one grid
    barrier per column. The same reflectors, R and tau as :func:`geqr2` up to rounding (the sums
    are taken in another order).

    Returns the barrier's state (pass it to :func:`check_grid_barrier` once the factorization's
    launches are queued), or None, launching nothing, where the leaf is short
    (< :data:`GRID_LEAF_ROWS` rows, unless ``blocks`` is given), too wide, the device has no
    cooperative launch, or the blocks would not fit in shared memory or be resident together.
    """
    if n > GRID_LEAF_COLUMNS or n < 1 or m < 1 or (blocks is None and m < GRID_LEAF_ROWS):
        return None
    device = _device(A)
    kernel = KERNELS[_name("geqr2_grid", A.dtype)]
    grid, share, shared = grid_leaf_shape(m, n, A.dtype, device, blocks)
    if shared + GRID_STATIC_SHARED > backend.shared_memory_limit(device) or not kernel.cooperative_available(device):
        return None
    if kernel.resident_blocks(device, GRID_BLOCK, shared) < grid:
        return None
    pub_bytes = 2 * (grid * (n + 1) + n) * A.dtype.itemsize
    with launch.on_device(device):
        pub = workspaces.scratch("rocsolver.qr.grid_publication", pub_bytes, device)
        sync = workspaces.counters("rocsolver.qr.grid_barrier", 16, device)
        kernel(device, (grid,), (_i64(m), _i64(n), A, _i64(lda), tau, _i64(share), pub[:pub_bytes].view(A.dtype),
                                 sync[:16].view(numpy.uint32), _i64(GRID_SPIN_LIMIT)),
               block=GRID_BLOCK, shared=shared, cooperative=True)
    return sync


#: Whether a device runs the cluster leaf (:func:`rocarray._core.backend.has_thread_block_clusters`).
cluster_available = backend.has_thread_block_clusters


def cluster_leaf_shape(m, n, dtype):
    """``(share, lds, shared)`` of a cluster leaf of ``m x n``: each of the :data:`CLUSTER_BLOCKS`
    blocks holds ``share`` rows (the last ones may hold fewer or none) in shared memory with
    leading dimension ``lds``, and ``shared`` dynamic shared bytes. ``lds`` is ``share`` padded so
    that the lane groups of neighbouring columns start in other shared-memory banks."""
    itemsize = numpy.dtype(dtype).itemsize
    share = max(1, -(-int(m) // CLUSTER_BLOCKS))
    unit = 128 // itemsize  # elements of one pass over the 32 four-byte banks
    lds = -(-share // unit) * unit + unit // 2  # neighbouring columns half the banks apart
    return share, lds, lds * int(n) * itemsize + 16


_NULL = numpy.uint64(0)


def geqr2_cluster(m, n, A, lda, tau, force=False, T=None):
    """geqr2 of one m x n leaf (``n <=`` :data:`GRID_LEAF_COLUMNS`) on one thread-block cluster of
    :data:`CLUSTER_BLOCKS` blocks (NVIDIA sm_90+): each block holds a share of the rows in shared
    memory, and a column costs one cluster barrier, every block reading the others' partial sums
    from their shared memory. The same arithmetic as :func:`geqr2_grid` (the partials summed in
    the same order in every block, so every block forms the same beta and tau); the same
    reflectors, R and tau as :func:`geqr2` up to rounding. With ``T`` (n x n, leading dimension n;
    ``m >= n``), also the upper triangular T of the leaf's block reflector
    ``H_0 ... H_{n-1} = I - V T V^H`` (xLARFT, as :func:`larft` forms it from ``S = V^H V``;
    zeros below the diagonal), S summed from dots published with each column.

    Returns whether it launched (then T is formed too): not where :data:`CLUSTER_LEAF` is off,
    the device has no clusters (:func:`cluster_available`), the leaf is short
    (< :data:`CLUSTER_LEAF_ROWS` rows, unless ``force``), too wide or empty, ``T`` is given and
    ``m < n``, or a block's rows would not fit in shared memory.
    """
    if not CLUSTER_LEAF or n > GRID_LEAF_COLUMNS or n < 1 or m < 1 or (not force and m < CLUSTER_LEAF_ROWS):
        return False
    if T is not None and m < n:
        return False
    device = _device(A)
    if not cluster_available(device):
        return False
    share, lds, shared = cluster_leaf_shape(m, n, A.dtype)
    if shared + CLUSTER_STATIC_SHARED > backend.shared_memory_limit(device):
        return False
    kernel = KERNELS[_name("geqr2_cluster", A.dtype)]
    kernel.allow_shared(device, shared)
    with launch.on_device(device):
        kernel(
            device, (CLUSTER_BLOCKS,), (_i64(m), _i64(n), A, _i64(lda), tau, _i64(share), _i64(lds),
                                        _NULL if T is None else T, _i64(n)),
            block=CLUSTER_BLOCK, shared=shared)
    return True


#: Raised by :func:`check_grid_barrier` (the LU panel's class: one barrier protocol).
GridBarrierError = _lu_kernels.GridBarrierError


def check_grid_barrier(sync):
    """Raise :class:`GridBarrierError` (after zeroing the barrier's state) if a device-wide leaf
    that used ``sync`` gave up at its grid barrier; waits for the device."""
    _lu_kernels.check_grid_barrier(sync)


def copy_v(rows, cols, A, lda, stride_a, V, ldv, stride_v, batch):
    """V := the unit lower trapezoid of A's rows x cols panel (ones on the diagonal, zeros above)."""
    _elementwise("qr_copy_v", A, batch * rows * cols,
                 (_i64(rows), _i64(cols), A, _i64(lda), _i64(stride_a), V, _i64(ldv), _i64(stride_v), _i64(batch)))


def set_identity(rows, cols, d, A, lda, stride_a, batch):
    """A(r, c) := 1 if r == c + d else 0 on rows x cols."""
    _elementwise("qr_set_identity", A, batch * rows * cols,
                 (_i64(rows), _i64(cols), _i64(d), A, _i64(lda), _i64(stride_a), _i64(batch)))


def conj_transpose(rows, cols, X, ldx, Y, ldy):
    """Y := X^H for the rows x cols matrix X (Y is cols x rows)."""
    _elementwise("qr_conj_transpose", X, rows * cols, (_i64(rows), _i64(cols), X, _i64(ldx), Y, _i64(ldy)))


def larft(k, S, lds, stride_s, tau, stride_p, T, ldt, stride_t, batch):
    """T (k x k, upper triangular, zeros below) of H_0 ... H_{k-1} = I - V T V^H from S = V^H V
    (only S's strict upper triangle is read): by ``larft_inv`` where :data:`LARFT_INVERSE` is on
    and k <= :data:`LARFT_INVERSE_MAX` (its work matrix in shared memory where
    :data:`LARFT_INVERSE_SHARED` allows and it fits), else by the column recurrence."""
    args = (_i64(k), S, _i64(lds), _i64(stride_s), tau, _i64(stride_p), T, _i64(ldt), _i64(stride_t))
    device = _device(S)
    with launch.on_device(device):
        if not (LARFT_INVERSE and k <= LARFT_INVERSE_MAX):
            KERNELS[_name("larft", S.dtype)](device, (batch,), args)
            return
        shared = k * (k + 1) * S.dtype.itemsize + 16  # + the 16-byte alignment of ra_qr_shared
        in_shared = LARFT_INVERSE_SHARED and shared <= backend.shared_memory_limit(device)
        KERNELS[_name("larft_inv", S.dtype)](device, (batch,), args + (_i64(in_shared),),
                                             shared=shared if in_shared else 0)


def diag_info(n, A, lda, stride_a, info, batch):
    """info(b) := the first 1-based i with A_b(i, i) == 0, else 0."""
    _elementwise("qr_diag_info", A, batch,
                 (_i64(n), A, _i64(lda), _i64(stride_a), info, _i64(batch)))


def gemm(transA, transB, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch):
    """rocblas ``gemm_strided_batched`` (empty products skipped)."""
    if m and n and batch:
        rocblas.gemm_strided_batched(transA, transB, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta,
                                     C, ldc, stride_c, batch)


def trsm(side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb):
    """rocblas ``trsm``."""
    rocblas.trsm(side, uplo, transA, diag, m, n, alpha, A, lda, B, ldb)


def empty(elements, dtype, like):
    """A scratch buffer of ``elements`` (uninitialized) on ``like``'s device."""
    with launch.on_device(_device(like)):
        return backend.cupy().empty(max(int(elements), 1), dtype=dtype)
