"""Shared pieces of rocBLAS level 3 beyond gemm (:mod:`._level3_sym`, :mod:`._level3_tri`).

The kernels of ``rocarray/_kernels/rocblas/level3_tri.hip`` (their registration and launches),
the ``side``/``uplo``/``diag`` option parsers, operand checks in gemm's words, and
:func:`gemm_ptrs`, the one way these routines call gemm: on sub-matrix pointers, optionally as one
strided batch (:func:`rocarray.rocblas._gemm.plan.launch`).

Workspace: :func:`workspace` allocates a temporary device buffer from CuPy's memory pool on the
current stream (the pool hands it back when the routine returns; later work on the same stream is
ordered after the kernels that use it).
"""

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch
from rocarray.rocblas._gemm import plan, simt
from rocarray.rocblas._arguments import (COMPLEX, STANDARD, check_matrix_buffer, check_supported, dtype_names,
                                         real_scalar, scalar_arg)

SOURCE = "rocblas/level3_tri.hip"

#: Threads per block of every kernel in the source (``RA_ROCBLAS3T_BLOCK``).
BLOCK = 256
#: Vectors (right-hand sides) one trsm/trmm leaf block takes (``RA_ROCBLAS3T_VECS``).
LEAF_VECS = 64
#: Tile of the symm expansion kernel (``RA_ROCBLAS3T_TILE``; complex128: half).
EXPAND_TILE = 64
#: Resident blocks per multiprocessor assumed for the occupancy query.
BLOCKS_PER_MULTIPROCESSOR = 2048 // BLOCK
#: Largest grid y dimension.
MAX_GRID_Y = 65535

# flag bits (``RA_ROCBLAS3T_*`` in the source)
UPPER, TRANS, CONJ, UNIT, HERM, HAS_W = 1, 2, 4, 8, 16, 32

_C128 = numpy.dtype(numpy.complex128)

#: The kernel templates of the source, each instantiated for float32, float64, complex64, complex128.
TEMPLATES = ("trsm_leaf", "trmm_leaf", "tri_merge", "symm_expand")


def leaf_nb(dtype):
    """Largest diagonal block a trsm/trmm leaf solves (``ra_rocblas3t_cfg<T>::NB``)."""
    return 32 if numpy.dtype(dtype) == _C128 else 64


def expand_tile(dtype):
    """Rows and columns of one symm expansion tile (``ra_rocblas3t_cfg<T>::TILE``)."""
    return EXPAND_TILE // 2 if numpy.dtype(dtype) == _C128 else EXPAND_TILE


def kernel_name(kernel, dtype):
    """Name expression, e.g. ``'ra_rocblas_trsm_leaf<double>'``."""
    return f"ra_rocblas_{kernel}<{dtypes.ctype(dtype)}>"


def instantiations():
    """Every name expression the level-3 routines launch from this source."""
    return sorted(kernel_name(k, d) for k in TEMPLATES for d in STANDARD)


_compile.register(SOURCE, instantiations())

KERNELS = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


# --------------------------------------------------------------------------------------------
# argument checks (no device access)
# --------------------------------------------------------------------------------------------

def check_dtype(fn, dtype, complex_only=False, hint=""):
    """float32/float64/complex64/complex128 (gemm's messages); ``complex_only`` (hemm, herk,
    her2k) rejects real data as well. The 16-bit types gemm takes are not supported here."""
    dtype = check_supported(fn, dtype, STANDARD)
    if complex_only and dtype not in COMPLEX:
        raise TypeError(f"rocblas.{fn}: unsupported dtype {dtype.name}; supported: {dtype_names(COMPLEX)}{hint}")
    return dtype


def check_operands(fn, named, complex_only=False, hint=""):
    """Buffers (``(name, array)`` pairs, the first sets dtype and device); returns the dtype."""
    for name, X in named:
        check_matrix_buffer(X, fn, name)
    first_name, first = named[0]
    dtype = check_dtype(fn, first.dtype, complex_only, hint)
    device = first.data.device_id
    for name, X in named[1:]:
        if X.dtype != dtype:
            raise TypeError(f"rocblas.{fn}: {name} must have the dtype of {first_name} ({dtype.name}), "
                            f"got {X.dtype.name}")
        if X.data.device_id != device:
            raise ValueError(f"rocblas.{fn}: {name} is on device {X.data.device_id} but {first_name} is on "
                             f"device {device}")
    return dtype


def real_scalars(fn, **values):
    """``TypeError`` for a complex value (herk's alpha and beta, her2k's beta)."""
    for name, value in values.items():
        real_scalar(value, name, fn)


# --------------------------------------------------------------------------------------------
# launching
# --------------------------------------------------------------------------------------------

def at(ptr, i, j, ld, itemsize):
    """Pointer to element (i, j) of the column-major matrix at ``ptr``."""
    return ptr + (i + j * ld) * itemsize


def gemm_ptrs(device_id, dtype, transA, transB, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
              batch=1, strides=(0, 0, 0)):
    """``C := alpha op(A) op(B) + beta C`` on device pointers, ``batch`` times with element strides.

    No checks (the caller's sub-matrices are in bounds); empty products and ``k == 0 and beta == 1``
    do nothing; ``alpha == 0`` or ``k == 0`` does not read A or B.
    """
    if m == 0 or n == 0 or batch == 0:
        return
    if (k == 0 or alpha == 0) and beta == 1:
        return
    if alpha == 0:
        k = 0
    plan.launch(device_id, dtype, m, n, k, scalar_arg(alpha, dtype), A, lda, B, ldb, scalar_arg(beta, dtype),
                C, ldc, simt.flags(transA, transB, dtype), batch=batch, stride_a=strides[0],
                stride_b=strides[1], stride_c=strides[2])


def leaf(device_id, dtype, solve, nb, nvec, alpha, A, lda, B, vs, rs, flags):
    """One trsm/trmm leaf launch: ``nvec`` vectors against the nb x nb diagonal block at ``A``."""
    name = kernel_name("trsm_leaf" if solve else "trmm_leaf", dtype)
    with launch.on_device(device_id):
        KERNELS[name](device_id, (-(-nvec // LEAF_VECS),),
                       (numpy.int64(nb), numpy.int64(nvec), scalar_arg(alpha, dtype), A, numpy.int64(lda), B,
                        numpy.int64(vs), numpy.int64(rs), numpy.int32(flags)))


def merge(device_id, dtype, n, D, W, beta, C, ldc, flags):
    """The uplo triangles of the ``ceil(n / D)`` diagonal blocks of C: ``C := W + beta C``.

    ``W`` (``None``: no workspace, C is only scaled) holds block b's full square at ``b*D*D``.
    """
    blocks = -(-n // D)
    kernel = KERNELS[kernel_name("tri_merge", dtype)]
    with launch.on_device(device_id):
        wave = kernel.wave(device_id)
        # blocks along x take columns: about four waves in all, at most one per column
        gx = max(1, min(min(D, n), 4 * wave // min(blocks, MAX_GRID_Y)))
        for first in range(0, blocks, MAX_GRID_Y):
            count = min(MAX_GRID_Y, blocks - first)
            o = first * D
            w = W + first * D * D * dtype.itemsize if W is not None else C
            kernel(device_id, (gx, count),
                   (numpy.int64(n - o), numpy.int64(D), w, scalar_arg(beta, dtype), at(C, o, o, ldc, dtype.itemsize),
                    numpy.int64(ldc), numpy.int32(flags | (HAS_W if W is not None else 0))))


def expand(device_id, dtype, ka, j0, P, A, lda, W, ldw, flags):
    """Columns ``j0 .. j0+P-1`` of the full symmetric/Hermitian matrix stored in A into W."""
    tile = expand_tile(dtype)
    tiles_i = -(-ka // tile)
    tiles_c = -(-P // tile)
    kernel = KERNELS[kernel_name("symm_expand", dtype)]
    with launch.on_device(device_id):
        for first in range(0, tiles_c, MAX_GRID_Y):
            count = min(MAX_GRID_Y, tiles_c - first)
            c0 = first * tile
            kernel(device_id, (tiles_i, count),
                   (numpy.int64(ka), numpy.int64(j0 + c0), numpy.int64(P - c0), A, numpy.int64(lda),
                    W + c0 * ldw * dtype.itemsize, numpy.int64(ldw), numpy.int32(flags)))


def workspace(device_id, elements, dtype):
    """A temporary device buffer of ``elements`` (uninitialized) on ``device_id``."""
    with launch.on_device(device_id):
        return backend.cupy().empty(max(int(elements), 1), dtype=dtype)
