"""rocSOLVER's LU family: getrf, getrs, getri (single and strided batched) and laswp.

Arguments are rocSOLVER's, in rocSOLVER's order, without the handle (see :mod:`rocarray.rocsolver`).
Pivots are LAPACK's: ``ipiv`` (int32, 1-based) says row ``i`` was interchanged with row
``ipiv[i] - 1`` at step ``i``, so ``A = P L U``.

Design
------
Four algorithms, chosen per call by size:

* **A group of lanes per matrix** (square matrices up to :data:`WARP_MAX`, any batch): the kernels
  of ``lu_warp.hip`` give each matrix ``N`` lanes of a warp (N = 8, 16 or 32, the smallest that
  holds n), one row per lane in registers; the pivot search is a butterfly argmax of shuffles,
  the pivot row is broadcast by shuffles, rows never move between lanes (each lane tracks its
  row's position in LAPACK's order), and nothing waits on a block barrier.
  ``ra_rocsolver_getrf_warp`` is getrf of the column-major batch, ``ra_rocsolver_getrs_warp``
  getrs with the factors in registers (a lane holds row i of ``op(L \\ U)``);
  ``ra_rocsolver_gesv_warp_flat`` (:func:`gesv_small_batched`; ``ra_rocsolver_gesv_warp`` with
  ``_lu_kernels.GESV_WARP_FLAT`` off) factors and solves in one launch, reading A and B through
  any element strides (the façade's C-ordered stacks, broadcast ones with zero batch strides)
  without a copy; the flat kernel updates without a branch per element, finds a one-matrix
  warp's pivot by warp-wide rank reductions and loads dense C-ordered stacks in 16-byte chunks.
  The same pivots, info and arithmetic as getf2.
* **Register tile** (square matrices of mid-size order, :func:`register_block`): one block of
  256 threads per matrix holds the matrix in registers (:mod:`rocarray.rocsolver._lu_block`), two
  barriers per column; a batch is one launch.
* **One block per matrix** (small matrices, and batches of up to 512 x 512): the kernel
  ``ra_rocsolver_getf2`` factors a whole matrix in one thread block, in shared memory when it fits
  (global memory otherwise), and ``ra_rocsolver_getrs_small`` applies the pivots and both
  substitutions for all right-hand sides in one block. A batch is one launch of each.
* **Blocked LU** (larger matrices): :mod:`rocarray.rocsolver._lu_blocked` (recursive panels,
  tall ones factored across the device, optional outer blocks with inverted diagonal blocks);
  getrs is laswp and two triangular solves.

getri computes ``A^{-1}`` by solving ``A X = I`` (getrs on an identity workspace) rather than
LAPACK's triangular inversion (trtri) followed by ``X L = U^{-1}``: the same result to rounding,
twice the flops of getri's ``4/3 n^3``, all of them in trsm.

Batches that do not take the one-block path run the blocked algorithm matrix by matrix.
"""

import numpy

from rocarray._core import args as _args, backend, matrix_args as _m
from rocarray.rocsolver import _info, _lu_block, _lu_blocked, _lu_kernels as _k

#: Largest order a single matrix is factored or solved in one block.
SMALL_SINGLE = 128
#: Largest order a batch is factored or solved with one block per matrix.
SMALL_BATCHED = 512
#: Batches at least this long take the one-block path up to :data:`SMALL_BATCHED`.
MANY = 64
#: Largest order of square matrices factored with a group of lanes per matrix (the largest n
#: :func:`gesv_small_batched` takes).
WARP_MAX = _k.WARP_ORDERS[-1]
GESV_SMALL_MAX = WARP_MAX
#: Largest m and n (pivots are int32).
INT32_MAX = 2 ** 31 - 1


def one_block(rows, cols, batch):
    """Whether ``batch`` matrices of ``rows x cols`` take the one-block-per-matrix kernels."""
    largest = max(rows, cols)
    return largest <= SMALL_SINGLE or (batch >= MANY and largest <= SMALL_BATCHED)


def register_block(m, n, A):
    """Whether square ``m x n`` matrices like ``A`` take the register-tile kernel of
    :mod:`rocarray.rocsolver._lu_block` (mid-size orders, any batch)."""
    return m == n and _lu_block.takes(n, A.dtype, A.data.device_id)


# --------------------------------------------------------------------------------------------
# argument checks
# --------------------------------------------------------------------------------------------

def _flat(A):
    """The 1-D view of a checked matrix buffer (contiguous 1-D, or Fortran-ordered 2-D)."""
    return A if A.ndim == 1 else A.reshape(-1, order="F")


def _dtype(where, A):
    _m.matrix_buffer(A, "A", where)
    return _m.supported_dtype(A.dtype, _m.STANDARD, where)


def _same(where, dtype, device, name, X):
    _m.matrix_buffer(X, name, where)
    if X.dtype != dtype:
        raise TypeError(f"{where}: {name} must have the dtype of A ({dtype.name}), got {X.dtype.name}")
    if X.data.device_id != device:
        raise ValueError(f"{where}: {name} is on device {X.data.device_id} but A is on device {device}")


def _ipiv(where, ipiv, count, batch=1, stride=0):
    """``ipiv`` as a 1-D int32 device view holding ``batch`` runs of ``count`` pivots."""
    _args.device_array(ipiv, "ipiv", where)
    if ipiv.dtype != _info.INFO_DTYPE:
        raise TypeError(f"{where}: ipiv must be an int32 array, got {ipiv.dtype.name}")
    if not ipiv.flags.c_contiguous:
        raise ValueError(f"{where}: ipiv must be contiguous")
    need = (batch - 1) * stride + count if batch and count else 0
    if ipiv.size < need:
        raise ValueError(f"{where}: ipiv needs {need} element(s), got {ipiv.size}")
    return ipiv.ravel()


def _stride(value, least, name, where):
    value = _m.size(value, name, where)
    if value < least:
        raise ValueError(f"{where}: {name} must be >= {least}, got {value}")
    return value


# --------------------------------------------------------------------------------------------
# drivers (1-D views; no checks)
# --------------------------------------------------------------------------------------------

def _getrf_batch(m, n, A, lda, strideA, ipiv, strideP, info, batch):
    if 0 < n == m <= WARP_MAX and batch:
        # warp per matrix for every batch: even one matrix finishes sooner without block barriers
        _k.getrf_warp(n, A, lda, strideA, ipiv, strideP, info, batch)
        return
    _k.clear_info(info, batch)
    if m == 0 or n == 0:
        return
    if register_block(m, n, A):
        _lu_block.getrf(n, A, lda, strideA, ipiv, strideP, info, batch)
        return
    if one_block(m, n, batch):
        _k.getf2(m, n, A, lda, strideA, ipiv, strideP, info, 0, batch)
        return
    for b in range(batch):
        _lu_blocked.getrf(m, n, A[b * strideA:], lda, ipiv[b * strideP:], info[b:b + 1])


def _getrs_batch(trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB, batch):
    if n == 0 or nrhs == 0 or batch == 0:
        return
    if n <= WARP_MAX:
        _k.getrs_warp(trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB, batch)
        return
    if one_block(n, nrhs, batch) or (batch >= MANY and n <= SMALL_BATCHED):
        _k.getrs_small(trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB, batch)
        return
    for b in range(batch):
        _lu_blocked.getrs(trans, n, nrhs, A[b * strideA:], lda, ipiv[b * strideP:], B[b * strideB:], ldb)


def _getri_batch(n, A, lda, strideA, ipiv, strideP, info, batch):
    """Inverse by ``A X = I`` into a workspace, copied back where ``info`` is 0."""
    if n == 0 or batch == 0:
        _k.clear_info(info, batch)
        return
    _k.diag_zero(n, A, lda, strideA, info, batch)
    X = _k.identities(n, batch, A)
    _getrs_batch("N", n, n, A, lda, strideA, ipiv, strideP, X, n, n * n, batch)
    _k.copy_where_ok(n, X, A, lda, strideA, info, batch)


# --------------------------------------------------------------------------------------------
# public functions
# --------------------------------------------------------------------------------------------

def getrf(m, n, A, lda, ipiv, info):
    """LU factorization with partial pivoting, ``A = P L U`` (``rocsolver_?getrf``).

    Parameters
    ----------
    m, n : int
        A is m x n (>= 0).
    A : cupy.ndarray
        Column-major matrix (element (i, j) at ``A[i + j * lda]``; 1-D contiguous buffer or 2-D
        Fortran-ordered array), float32, float64, complex64 or complex128. Overwritten with L
        (unit lower triangle, not stored) below the diagonal and U on and above it.
    lda : int
        Leading dimension of A, ``>= max(1, m)``.
    ipiv : cupy.ndarray
        int32 device array of at least ``min(m, n)`` elements; ``ipiv[i]`` (1-based) is the row
        interchanged with row ``i + 1`` at step ``i``.
    info : cupy.ndarray
        int32 device array of at least one element: 0, or ``i > 0`` when ``U(i, i)`` (1-based) is
        exactly zero (the first such i). The factorization is completed either way, as LAPACK
        does; a solve with it would divide by zero.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or mismatched dtypes, non-integer sizes.
    ValueError
        Negative sizes, a leading dimension too small, buffers too short or misaligned.
    RuntimeError
        ``GridBarrierError``: the blocks of a panel factored across the device waited too long
        for each other (the factorization is incomplete).

    Notes
    -----
    Partial pivoting takes the first row of largest ``|re| + |im|`` (LAPACK's ``i?amax``). Square
    matrices up to 32 x 32 are factored by a group of lanes of one warp, the rows in registers; up
    to 128 x 128 one thread block factors the matrix; larger ones run the blocked LU on rocblas
    gemm (trsm only inside 64-column diagonal blocks; see :mod:`rocarray.rocsolver._lu`), its
    tall panels across the device.
    Nothing is synchronized, except that a factorization whose panels ran across the device waits
    for the device once at its end to check their grid barrier
    (:class:`rocarray.rocsolver._lu_kernels.GridBarrierError` if its blocks waited too long).

    Examples
    --------
    >>> A = cupy.array([1.0, 4.0, 2.0, 3.0])   # [[1, 2], [4, 3]]
    >>> ipiv, info = cupy.empty(2, cupy.int32), cupy.empty(1, cupy.int32)
    >>> ra.rocsolver.getrf(2, 2, A, 2, ipiv, info)   # doctest: +SKIP
    >>> ipiv, A                                      # doctest: +SKIP
    (array([2, 2], dtype=int32), array([4.  , 0.25, 3.  , 1.25]))
    """
    _getrf("getrf", False, m, n, A, lda, 0, ipiv, 0, info, 1)


def getrf_strided_batched(m, n, A, lda, strideA, ipiv, strideP, info, batch_count):
    """:func:`getrf` of ``batch_count`` matrices (``rocsolver_?getrf_strided_batched``).

    Parameters
    ----------
    m, n : int
        Each matrix is m x n (>= 0).
    A : cupy.ndarray
        Matrix b starts at element ``b * strideA`` (column-major, leading dimension lda).
    lda : int
        ``>= max(1, m)``.
    strideA : int
        Elements between matrices, ``>= lda * n``.
    ipiv : cupy.ndarray
        int32; matrix b's ``min(m, n)`` pivots start at ``b * strideP``.
    strideP : int
        ``>= min(m, n)``.
    info : cupy.ndarray
        int32, at least ``batch_count`` elements: matrix b's info as in :func:`getrf`.
    batch_count : int
        Number of matrices (>= 0).

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`getrf`; strides too small.

    Notes
    -----
    Square matrices up to 32 x 32 take one launch with a group of 8, 16 or 32 lanes of a warp per
    matrix (the rows in registers, no block barriers). Other batches of matrices up to 512 x 512
    (128 x 128 for fewer than 64 matrices) take one launch with one thread block per matrix:
    square ones of mid-size order (:func:`register_block`) in registers, the others in shared
    memory where the matrix fits; larger matrices run the blocked LU one after another.
    """
    _getrf("getrf_strided_batched", True, m, n, A, lda, strideA, ipiv, strideP, info, batch_count)


def _getrf(fn, batched, m, n, A, lda, strideA, ipiv, strideP, info, batch_count):
    where = f"rocsolver.{fn}"
    m, n = _m.size(m, "m", where), _m.size(n, "n", where)
    if max(m, n) > INT32_MAX:   # pivots are int32 row numbers
        raise ValueError(f"{where}: m and n must be < 2^31, got m={m}, n={n}")
    batch = _m.size(batch_count, "batch_count", where)
    _dtype(where, A)
    lda = _m.leading_dimension(lda, m, "lda", where)
    k = min(m, n)
    if batched:
        strideA = _stride(strideA, lda * n, "strideA", where)
        strideP = _stride(strideP, k, "strideP", where)
    info = _info.info_buffer(info, batch, where).ravel()
    piv = _ipiv(where, ipiv, k, batch, strideP)
    if batch and m and n:
        _m.matrix_bounds(A, m, n, lda, "A", where, batch, strideA)
    _getrf_batch(m, n, _flat(A), lda, strideA, piv, strideP, info, batch)


def getrs(trans, n, nrhs, A, lda, ipiv, B, ldb):
    """Solve ``op(A) X = B`` with A factored by :func:`getrf` (``rocsolver_?getrs``).

    Parameters
    ----------
    trans : {'N', 'T', 'C'}
        op(A) = A, A^T or A^H. Case-insensitive.
    n : int
        Order of A (>= 0).
    nrhs : int
        Columns of B (>= 0).
    A : cupy.ndarray
        The n x n factors from :func:`getrf` (column-major, leading dimension lda).
    lda : int
        ``>= max(1, n)``.
    ipiv : cupy.ndarray
        int32, the n pivots from :func:`getrf`.
    B : cupy.ndarray
        Column-major n x nrhs right-hand sides of A's dtype, overwritten with X.
    ldb : int
        ``>= max(1, n)``.

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`getrf`; an invalid ``trans``.

    Notes
    -----
    No test for singularity is made (LAPACK's rule): check getrf's info first. Up to 32 x 32 a
    group of lanes of one warp applies the pivots and both substitutions with the factors in
    registers; otherwise the pivots are applied with laswp and the substitutions run in
    :func:`rocarray.rocblas.trsm` (one thread block for matrices up to 128 x 128 with few
    right-hand sides).

    Examples
    --------
    >>> # A, ipiv from the getrf example; B = [[5], [11]]
    >>> ra.rocsolver.getrs('N', 2, 1, A, 2, ipiv, B, 2)   # doctest: +SKIP
    """
    _getrs("getrs", False, trans, n, nrhs, A, lda, 0, ipiv, 0, B, ldb, 0, 1)


def getrs_strided_batched(trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB, batch_count):
    """:func:`getrs` for ``batch_count`` systems (``rocsolver_?getrs_strided_batched``).

    Parameters
    ----------
    trans : {'N', 'T', 'C'}
        op(A) = A, A^T or A^H.
    n, nrhs : int
        Order of each A and columns of each B (>= 0).
    A : cupy.ndarray
        Factors of matrix b at ``b * strideA``.
    lda : int
        ``>= max(1, n)``.
    strideA : int
        ``>= lda * n``.
    ipiv : cupy.ndarray
        int32, matrix b's pivots at ``b * strideP``.
    strideP : int
        ``>= n``.
    B : cupy.ndarray
        Right-hand sides of system b at ``b * strideB``, overwritten with the solutions.
    ldb : int
        ``>= max(1, n)``.
    strideB : int
        ``>= ldb * nrhs``.
    batch_count : int
        Number of systems (>= 0).

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`getrs`; strides too small.

    Notes
    -----
    Systems up to 32 x 32 take one launch with a group of lanes of a warp per system. Other
    batches of systems up to 512 x 512 (128 x 128 for fewer than 64 systems) take one launch with
    one thread block per system; larger ones run laswp and trsm system by system.
    """
    _getrs("getrs_strided_batched", True, trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB,
           batch_count)


def _getrs(fn, batched, trans, n, nrhs, A, lda, strideA, ipiv, strideP, B, ldb, strideB, batch_count):
    where = f"rocsolver.{fn}"
    trans = _m.option(trans, "trans", where)
    n, nrhs = _m.size(n, "n", where), _m.size(nrhs, "nrhs", where)
    batch = _m.size(batch_count, "batch_count", where)
    dtype = _dtype(where, A)
    _same(where, dtype, A.data.device_id, "B", B)
    lda = _m.leading_dimension(lda, n, "lda", where)
    ldb = _m.leading_dimension(ldb, n, "ldb", where)
    if batched:
        strideA = _stride(strideA, lda * n, "strideA", where)
        strideP = _stride(strideP, n, "strideP", where)
        strideB = _stride(strideB, ldb * nrhs, "strideB", where)
    piv = _ipiv(where, ipiv, n, batch, strideP)
    if batch and n:
        _m.matrix_bounds(A, n, n, lda, "A", where, batch, strideA)
        if nrhs:
            _m.matrix_bounds(B, n, nrhs, ldb, "B", where, batch, strideB)
    _getrs_batch(trans, n, nrhs, _flat(A), lda, strideA, piv, strideP, _flat(B), ldb, strideB, batch)


def gesv_small_supported(n, nrhs, dtype, device_id=None):
    """Whether :func:`gesv_small_batched` takes systems of order ``n`` with ``nrhs`` right-hand
    sides of ``dtype`` on the device ``device_id`` (default: the current one).

    Parameters
    ----------
    n, nrhs : int
        Order and number of right-hand sides.
    dtype : numpy.dtype
        float32, float64, complex64 or complex128.
    device_id : int, optional
        The device (its shared memory bounds the mid-size orders).

    Returns
    -------
    bool
        True for ``n <= WARP_MAX`` (32), and for orders 33 to 128 (96 for complex128) with 1 to 16
        right-hand sides where the device's shared memory holds the kernel's staging.
    """
    if n <= WARP_MAX:
        return True
    if device_id is None:
        device_id = backend.cupy().cuda.get_device_id()
    return _lu_block.solves(n, nrhs, numpy.dtype(dtype), device_id)


def gesv_small_batched(A, B, X, info):
    """Solve ``A[b] X[b] = B[b]`` for a batch of small systems given as strided arrays (a rocarray
    extension: rocSOLVER's gesv takes column-major buffers and overwrites A).

    Parameters
    ----------
    A : cupy.ndarray
        ``(batch, n, n)``, float32, float64, complex64 or complex128, any strides (a zero batch
        stride shares one matrix), with ``(n, k)`` as :func:`gesv_small_supported` allows. Only
        read.
    B : cupy.ndarray
        ``(batch, n, k)`` right-hand sides of A's dtype, any strides.
    X : cupy.ndarray
        ``(batch, n, k)`` of A's dtype, written with the solutions; it may be ``B`` itself, and
        must not otherwise overlap A or B. Not defined for systems whose info is not 0.
    info : cupy.ndarray
        int32, at least ``batch`` elements (contiguous): 0, or the first column (1-based) with a
        zero pivot.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy arrays, unsupported or mismatched dtypes.
    ValueError
        Shapes that do not match, ``(n, k)`` that :func:`gesv_small_supported` refuses, devices
        that differ, strides that are not whole elements.

    Notes
    -----
    One launch (see :mod:`rocarray.rocsolver._lu`): up to order 32 a group of 8, 16 or 32 lanes
    per system, above it one thread block per system, the matrix in registers either way; LU with
    partial pivoting as :func:`getrf` (the same pivots) and both substitutions with the factors
    in registers. Nothing is synchronized.
    """
    where = "rocsolver.gesv_small_batched"
    for name, x in (("A", A), ("B", B), ("X", X)):
        _args.device_array(x, name, where)
        if x.ndim != 3:
            raise ValueError(f"{where}: {name} must be 3-D (batch, n, columns), got shape {x.shape}")
        if any(s % x.dtype.itemsize for s in x.strides):
            raise ValueError(f"{where}: {name}'s strides must be whole elements, got {x.strides}")
    dtype = _m.supported_dtype(A.dtype, _m.STANDARD, where)
    batch, n = A.shape[0], A.shape[1]
    if A.shape[2] != n:
        raise ValueError(f"{where}: A must be (batch, n, n), got {A.shape}")
    if B.shape[:2] != (batch, n) or X.shape != B.shape:
        raise ValueError(f"{where}: B and X must be ({batch}, {n}, k) alike, got {B.shape} and {X.shape}")
    for name, x in (("B", B), ("X", X)):
        _same_array(where, dtype, A.data.device_id, name, x)
    if not gesv_small_supported(n, B.shape[2], dtype, A.data.device_id):
        raise ValueError(f"{where}: systems of order {n} with {B.shape[2]} right-hand sides of {dtype.name} are "
                         f"not taken (order <= {WARP_MAX}, or up to 128 with 1 to 16 right-hand sides)")
    info = _info.info_buffer(info, batch, where).ravel()
    if batch and n <= WARP_MAX and n:
        _k.gesv_warp(A, B, X, info)
    elif batch and n:
        _lu_block.gesv(A, B, X, info)
    elif batch:
        _k.clear_info(info, batch)


def _same_array(where, dtype, device, name, X):
    if X.dtype != dtype:
        raise TypeError(f"{where}: {name} must have the dtype of A ({dtype.name}), got {X.dtype.name}")
    if X.data.device_id != device:
        raise ValueError(f"{where}: {name} is on device {X.data.device_id} but A is on device {device}")


def getri(n, A, lda, ipiv, info):
    """Inverse of a matrix factored by :func:`getrf` (``rocsolver_?getri``).

    Parameters
    ----------
    n : int
        Order of A (>= 0).
    A : cupy.ndarray
        The factors from :func:`getrf` (column-major, leading dimension lda), overwritten with
        ``A^{-1}``; left unchanged when info is not 0.
    lda : int
        ``>= max(1, n)``.
    ipiv : cupy.ndarray
        int32, the n pivots from :func:`getrf`.
    info : cupy.ndarray
        int32, at least one element: 0, or ``i > 0`` when ``U(i, i)`` is exactly zero (singular).

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`getrf`.

    Notes
    -----
    Solves ``A X = I`` with :func:`getrs` into a workspace and copies X into A (no trtri):
    ``2 n^3`` flops against LAPACK getri's ``4/3 n^3``, all in trsm.
    """
    _getri("getri", False, n, A, lda, 0, ipiv, 0, info, 1)


def getri_strided_batched(n, A, lda, strideA, ipiv, strideP, info, batch_count):
    """:func:`getri` of ``batch_count`` matrices (``rocsolver_?getri_strided_batched``).

    Parameters
    ----------
    n : int
        Order of each matrix (>= 0).
    A : cupy.ndarray
        Factors of matrix b at ``b * strideA``, overwritten with its inverse (unchanged where
        info is not 0).
    lda : int
        ``>= max(1, n)``.
    strideA : int
        ``>= lda * n``.
    ipiv : cupy.ndarray
        int32, matrix b's pivots at ``b * strideP``.
    strideP : int
        ``>= n``.
    info : cupy.ndarray
        int32, at least ``batch_count`` elements, as in :func:`getri`.
    batch_count : int
        Number of matrices (>= 0).

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`getri`; strides too small.
    """
    _getri("getri_strided_batched", True, n, A, lda, strideA, ipiv, strideP, info, batch_count)


def _getri(fn, batched, n, A, lda, strideA, ipiv, strideP, info, batch_count):
    where = f"rocsolver.{fn}"
    n = _m.size(n, "n", where)
    batch = _m.size(batch_count, "batch_count", where)
    _dtype(where, A)
    lda = _m.leading_dimension(lda, n, "lda", where)
    if batched:
        strideA = _stride(strideA, lda * n, "strideA", where)
        strideP = _stride(strideP, n, "strideP", where)
    info = _info.info_buffer(info, batch, where).ravel()
    piv = _ipiv(where, ipiv, n, batch, strideP)
    if batch and n:
        _m.matrix_bounds(A, n, n, lda, "A", where, batch, strideA)
    _getri_batch(n, _flat(A), lda, strideA, piv, strideP, info, batch)


def laswp(n, A, lda, k1, k2, ipiv, incx):
    """Row interchanges of LAPACK's laswp (``rocsolver_?laswp``).

    Parameters
    ----------
    n : int
        Columns of A (>= 0).
    A : cupy.ndarray
        Column-major matrix (leading dimension lda) whose rows are interchanged in place.
    lda : int
        ``>= 1`` and greater than every row index in ipiv.
    k1, k2 : int
        The 1-based range of pivots applied, ``1 <= k1 <= k2``.
    ipiv : cupy.ndarray
        int32 pivots (1-based row numbers); element ``k - 1`` is applied at step k.
    incx : {1, -1}
        1 applies ``k = k1 .. k2`` in order, -1 from k2 down to k1.

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        Bad buffers or sizes, ``k1``/``k2`` out of range, ``incx`` not 1 or -1.

    Notes
    -----
    Row numbers in ipiv are not checked against lda on the device (as in LAPACK).
    """
    _laswp("laswp", False, n, A, lda, 0, k1, k2, ipiv, 0, incx, 1)


def laswp_strided_batched(n, A, lda, strideA, k1, k2, ipiv, strideP, incx, batch_count):
    """:func:`laswp` on ``batch_count`` matrices, matrix b at ``b * strideA`` with its pivots at
    ``b * strideP`` (a rocarray extension: rocSOLVER has no batched laswp).

    Parameters
    ----------
    n : int
        Columns of each matrix.
    A : cupy.ndarray
        The matrices, column-major, leading dimension lda.
    lda : int
        ``>= 1``.
    strideA : int
        ``>= lda * n``.
    k1, k2 : int
        1-based pivot range, ``1 <= k1 <= k2``.
    ipiv : cupy.ndarray
        int32 pivots.
    strideP : int
        ``>= k2``.
    incx : {1, -1}
        Forward or reverse order.
    batch_count : int
        Number of matrices (>= 0).

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`laswp`; strides too small.
    """
    _laswp("laswp_strided_batched", True, n, A, lda, strideA, k1, k2, ipiv, strideP, incx, batch_count)


def _laswp(fn, batched, n, A, lda, strideA, k1, k2, ipiv, strideP, incx, batch_count):
    where = f"rocsolver.{fn}"
    n = _m.size(n, "n", where)
    batch = _m.size(batch_count, "batch_count", where)
    _dtype(where, A)
    lda = _m.leading_dimension(lda, 1, "lda", where)
    k1, k2 = _m.size(k1, "k1", where), _m.size(k2, "k2", where)
    if k1 < 1 or k2 < k1:
        raise ValueError(f"{where}: k1 and k2 must satisfy 1 <= k1 <= k2, got k1={k1}, k2={k2}")
    if incx not in (1, -1):
        raise ValueError(f"{where}: incx must be 1 or -1, got {incx!r}")
    if batched:
        strideA = _stride(strideA, lda * n, "strideA", where)
        strideP = _stride(strideP, k2, "strideP", where)
    piv = _ipiv(where, ipiv, k2, batch, strideP)
    if batch and n:
        _m.matrix_bounds(A, lda, n, lda, "A", where, batch, strideA)
    _k.laswp(n, _flat(A), lda, strideA, k1 - 1, k2, piv, strideP, incx == -1, batch)
