"""The eigensolvers' one interface to the device: the kernels of ``rocsolver/eigh.hip`` and
``rocsolver/eigh_warp.hip`` (their registration, shared-memory sizing and launches) and the array
glue of the blocked drivers.

The glue functions work on the array module of the array they are given (CuPy on the device,
NumPy in the CPU tests), so the drivers' blocking and bookkeeping run unchanged on host arrays
with NumPy stand-ins for the three kernels and the rocblas calls.
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch
from rocarray._core.matrix_args import STANDARD

SOURCE = "rocsolver/eigh.hip"

#: Threads per block of every kernel in the source (``RA_EIGH_BLOCK``).
BLOCK = 256
#: Largest order the one-block Jacobi kernel takes (if the matrix fits the device's shared memory).
SMALL_MAX = 128
# flag bits (``RA_EIGH_*``; ``RA_EIGHW_ROWS``: the one-warp kernels' row-major A and V)
UPPER, VECTORS, ROWS = 1, 2, 4

TEMPLATES = ("larfg", "latrd_w")


def kernel_name(kernel, dtype, v_global=None):
    """Name expression, e.g. ``'ra_rocsolver_larfg<double>'``; ``v_global`` (a bool) is the
    Jacobi kernel's second template argument."""
    extra = "" if v_global is None else (", true" if v_global else ", false")
    return f"ra_rocsolver_{kernel}<{dtypes.ctype(dtype)}{extra}>"


def instantiations():
    """Every name expression launched from the source."""
    names = [kernel_name(k, d) for k in TEMPLATES for d in STANDARD]
    names += [kernel_name("syevj_small", d, g) for d in STANDARD for g in (False, True)]
    return sorted(names)


_compile.register(SOURCE, instantiations())

KERNELS = kernels.Family(SOURCE, BLOCK, 2048 // BLOCK)

WARP_SOURCE = "rocsolver/eigh_warp.hip"
#: Most threads of a block of the one-warp-per-matrix kernel (``RA_EIGHW_THREADS``).
WARP_THREADS = 128
#: The orders the one-warp-per-matrix kernel is built for (``N``): order n takes the smallest
#: ``N >= n`` that is at most the device's warp size (complex128: 32, its eigenvector row of 64
#: complex numbers would not fit a lane's registers).
WARP_ORDERS = (16, 32, 64)
#: Launch ``ra_rocsolver_syevj_warp_half``, which rotates half of A's 2 x 2 blocks each round
#: and stores their (conjugate) transposes (A stays exactly Hermitian; about half the
#: multiply-adds, loads and shuffles of a round). Off by default: it measured 2.2-2.6x slower
#: than ``ra_rocsolver_syevj_warp`` (every block rotated) on the bench stacks
#: (docs/performance/rocsolver.md).
SYEVJ_WARP_HALF = False
#: Launch ``ra_rocsolver_syevj_warp_xor`` in place of ``ra_rocsolver_syevj_warp``: A unpadded
#: with its rows XOR-permuted within each column, and the XOR tournament (round t pairs x with
#: x ^ r_t), so that the rotations' 2 x 2 blocks and the block split's rows spread over the
#: shared-memory banks (``eigh_warp.hip``), and the rotation's tangent without a branch (as the
#: half-block kernel). Another order of the rotations: the results differ from the circle
#: tournament's by rounding, the sweep counts by at most one. False is the
#: way back (A padded to leading dimension ``N + 1``, the circle tournament). The half-block
#: kernel keeps the padded circle form.
SYEVJ_WARP_XOR = True
#: Launch ``ra_rocsolver_syevj_warp_fast`` for float32 matrices of order 17 to 32 (the XOR kernel
#: of order 32) when the XOR kernel is chosen: the same kernel with scaled ("fast") rotations
#: where it splits rows (float32 on 32-lane warps; elsewhere it is the XOR kernel): A and V kept
#: as D Ah D and Vh D with a diagonal D multiplied back once a sweep, so a rotation is one
#: multiply-add per element and side instead of a multiplication and a multiply-add. Results
#: differ from the XOR kernel's by rounding (c and the scaled tangents are refined by a Newton
#: step, so the rotations stay orthogonal to working precision); False launches
#: ``syevj_warp_xor``, the way back.
FAST_ROTATIONS = True
#: The order and dtype of the one instantiation of ``ra_rocsolver_syevj_warp_fast``.
FAST_ORDER, FAST_DTYPE = 32, numpy.dtype(numpy.float32)

#: The kernels of ``eigh_warp.hip``: every block rotated (padded A, circle tournament), the same
#: in the XOR layout and tournament, half of the blocks rotated (and ``syevj_warp_fast``, built
#: for float32 at order 32 alone).
WARP_VARIANTS = ("syevj_warp", "syevj_warp_xor", "syevj_warp_half")


def warp_kernel(half=None, xor=None, dtype=None, order=None, fast=None):
    """The one-warp-per-matrix kernel launched: ``'syevj_warp_half'`` if ``half`` (default
    :data:`SYEVJ_WARP_HALF`), else, if ``xor`` (default :data:`SYEVJ_WARP_XOR`),
    ``'syevj_warp_fast'`` for ``fast`` (default :data:`FAST_ROTATIONS`) float32 at order 32
    (``dtype`` and ``order`` given), else ``'syevj_warp_xor'``; else ``'syevj_warp'``."""
    half = SYEVJ_WARP_HALF if half is None else half
    xor = SYEVJ_WARP_XOR if xor is None else xor
    fast = FAST_ROTATIONS if fast is None else fast
    if half:
        return "syevj_warp_half"
    if not xor:
        return "syevj_warp"
    if fast and dtype is not None and numpy.dtype(dtype) == FAST_DTYPE and order == FAST_ORDER:
        return "syevj_warp_fast"
    return "syevj_warp_xor"


def warp_kernel_name(dtype, order, half=None, xor=None, fast=None):
    """Name expression of the one-warp-per-matrix Jacobi kernel, e.g.
    ``'ra_rocsolver_syevj_warp_xor<double, 32>'``; ``half``, ``xor`` and ``fast`` as
    :func:`warp_kernel` takes them."""
    kernel = warp_kernel(half, xor, dtype, int(order), fast)
    return f"ra_rocsolver_{kernel}<{dtypes.ctype(dtype)}, {int(order)}>"


def warp_instantiations():
    """Every name expression of ``eigh_warp.hip`` (the three kernels, every order for every
    dtype but complex128 at 64; the order-64 kernels have a body only on wave64 targets; and
    ``syevj_warp_fast`` for float32 at order 32)."""
    names = [f"ra_rocsolver_{k}<{dtypes.ctype(d)}, {N}>" for d in STANDARD for N in WARP_ORDERS
             for k in WARP_VARIANTS if not (N == 64 and numpy.dtype(d) == numpy.complex128)]
    names.append(f"ra_rocsolver_syevj_warp_fast<{dtypes.ctype(FAST_DTYPE)}, {FAST_ORDER}>")
    return sorted(names)


_compile.register(WARP_SOURCE, warp_instantiations())

WARP_KERNELS = kernels.Family(WARP_SOURCE, WARP_THREADS, 2048 // WARP_THREADS)


# --------------------------------------------------------------------------------------------
# the one-block Jacobi kernel
# --------------------------------------------------------------------------------------------

def small_shared_bytes(n, dtype, vectors):
    """Dynamic shared memory of ``ra_rocsolver_syevj_small`` for order ``n`` (see its comment);
    ``vectors``: with V in shared memory."""
    dtype = numpy.dtype(dtype)
    real = dtypes.real_dtype(dtype).itemsize
    half = (n + (n & 1)) // 2
    elements = (2 if vectors else 1) * n * (n + 1) + half
    return elements * dtype.itemsize + (3 * half + BLOCK + n) * real + 4 * n


def small_variant(n, dtype, vectors, device_id):
    """How the one-block kernel takes order ``n`` on ``device_id``: False (A and V in shared
    memory), True (A in shared memory, V rotated in the output matrix in global memory), or None
    (too large: ``n > SMALL_MAX`` or A alone does not fit)."""
    if n > SMALL_MAX:
        return None
    limit = backend.shared_memory_limit(device_id)
    if small_shared_bytes(n, dtype, vectors) <= limit:
        return False
    if vectors and small_shared_bytes(n, dtype, False) <= limit:
        return True
    return None


def warp_shared_bytes(order, dtype, kernel=None):
    """Dynamic shared memory of one warp of the one-warp-per-matrix kernel ``kernel`` (default
    :func:`warp_kernel`) of order ``order`` (``ra_eighw_layout``: A, padded to ``order x (order +
    1)`` but in the XOR kernels, the round's pairs and rotations (16 bytes each for float32,
    else 32), the new diagonals, the eigenvalues and their ranks; ``syevj_warp_fast`` puts the
    block's A slices first, in the same bytes)."""
    dtype = numpy.dtype(dtype)
    real = dtypes.real_dtype(dtype).itemsize
    half = order // 2
    lds = order if (kernel or warp_kernel(dtype=dtype, order=order)) in ("syevj_warp_xor", "syevj_warp_fast") \
        else order + 1
    a_bytes = (order * lds * dtype.itemsize + 15) // 16 * 16
    pair = 16 if dtype == numpy.float32 else 32
    nbytes = a_bytes + half * pair + (2 * half + order) * real + order * 4
    return (nbytes + 15) // 16 * 16


def warp_order(n, dtype, device_id):
    """The order ``N`` of the one-warp-per-matrix kernel that takes matrices of order ``n`` on
    ``device_id``, or None (``n`` past the warp size, or past 32 for complex128)."""
    warp = backend.device_info(device_id).warp_size
    for order in WARP_ORDERS:
        if order > warp or (order > 32 and numpy.dtype(dtype) == numpy.complex128):
            break
        if n <= order:
            return order if warp_shared_bytes(order, dtype) <= backend.shared_memory_limit(device_id) else None
    return None


def syevj_warp(dtype, order, n, A, lda, strideA, abstol, residual, max_sweeps, n_sweeps, W, strideW, info, batch,
               upper, vectors, V=None, strideV=None, rows=False):
    """One launch of the one-warp-per-matrix Jacobi kernel for ``batch`` matrices (checked
    arguments, ``1 <= n <= order``, ``order`` from :func:`warp_order`): as many warps per block
    as ``WARP_THREADS`` and the shared memory allow. The eigenvectors go to ``V`` (``strideV``
    apart, leading dimension ``lda``; default: over A); ``rows``: A and V row-major (element
    (i, j) at ``i * lda + j``), else column-major."""
    device_id = A.data.device_id
    real = dtypes.real_dtype(dtype)
    warp = backend.device_info(device_id).warp_size
    kernel = warp_kernel(dtype=dtype, order=order)
    per_warp = warp_shared_bytes(order, dtype, kernel)
    warps = max(1, min(WARP_THREADS // warp, backend.shared_memory_limit(device_id) // per_warp))
    flags = (UPPER if upper else 0) | (VECTORS if vectors else 0) | (ROWS if rows else 0)
    if V is None:
        V, strideV = A, strideA
    with launch.on_device(device_id):
        WARP_KERNELS[warp_kernel_name(dtype, order)](
            device_id, (-(-batch // warps),),
            (numpy.int32(n), A, numpy.int64(lda), numpy.int64(strideA), V, numpy.int64(strideV), real.type(abstol),
             _pointer(residual), numpy.int32(max_sweeps), _pointer(n_sweeps), W, numpy.int64(strideW), info,
             numpy.int32(flags), numpy.int64(batch)),
            block=warps * warp, shared=warps * per_warp)


def _pointer(x):
    """A device array, or a null pointer for None."""
    return numpy.uint64(0) if x is None else x


def syevj_small(dtype, n, A, lda, strideA, abstol, residual, max_sweeps, n_sweeps, W, strideW, info, batch,
                upper, vectors, v_global):
    """One launch of ``batch`` blocks of the one-block Jacobi kernel (checked arguments,
    ``n >= 1``, ``v_global`` from :func:`small_variant`)."""
    device_id = A.data.device_id
    real = dtypes.real_dtype(dtype)
    shared = small_shared_bytes(n, dtype, vectors and not v_global)
    flags = (UPPER if upper else 0) | (VECTORS if vectors else 0)
    with launch.on_device(device_id):
        KERNELS[kernel_name("syevj_small", dtype, v_global)](
            device_id, (batch,),
            (numpy.int32(n), A, numpy.int64(lda), numpy.int64(strideA), real.type(abstol), _pointer(residual),
             numpy.int32(max_sweeps), _pointer(n_sweeps), W, numpy.int64(strideW), info, numpy.int32(flags)),
            shared=shared)


def larfg(dtype, m, v, E, tau, k):
    """The reflector of ``v`` (``m >= 1`` elements from ``v[0]``): beta to ``E[k]``, tau to
    ``tau[k]``, the reflector's vector over ``v`` (``v[0] = 1``)."""
    device_id = v.data.device_id
    with launch.on_device(device_id):
        KERNELS[kernel_name("larfg", dtype)](device_id, (1,), (numpy.int64(m), v, E, tau, numpy.int64(k)))


def latrd_w(dtype, m, w, u, tau, k):
    """``w := tau[k] w - tau[k] conj(tau[k]) (w^H u) u / 2`` (``m`` elements)."""
    device_id = w.data.device_id
    with launch.on_device(device_id):
        KERNELS[kernel_name("latrd_w", dtype)](device_id, (1,), (numpy.int64(m), w, u, tau, numpy.int64(k)))


# --------------------------------------------------------------------------------------------
# array glue (NumPy or CuPy, after the array given)
# --------------------------------------------------------------------------------------------

def module_of(a):
    """``numpy`` for host arrays (exactly ``numpy.ndarray``), else CuPy."""
    return numpy if type(a) is numpy.ndarray else backend.cupy()


def device_id(a):
    """The device of ``a`` (0 for host arrays)."""
    return 0 if isinstance(a, numpy.ndarray) else a.data.device_id


def flat(A):
    """The 1-D view of a contiguous 1-D buffer or a Fortran-ordered 2-D array."""
    return A.ravel(order="F")


def view(buf, offset, rows, cols, ld):
    """The ``rows x cols`` column-major matrix at ``buf[offset]`` with leading dimension ``ld``, as
    a 2-D view of the flat buffer ``buf``."""
    lib = module_of(buf)
    item = buf.dtype.itemsize
    return lib.lib.stride_tricks.as_strided(buf[offset:], shape=(rows, cols), strides=(item, ld * item))


def empty(like, size, dtype):
    """A new 1-D array of ``size`` elements on ``like``'s side."""
    return module_of(like).empty(size, dtype)


def to_host(x):
    """A NumPy copy."""
    return x.copy() if isinstance(x, numpy.ndarray) else backend.cupy().asnumpy(x)


def to_side(like, x):
    """Host data ``x`` on ``like``'s side (a copy)."""
    return module_of(like).array(x)
