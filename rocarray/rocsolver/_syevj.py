"""``syevj``/``heevj`` and their strided-batched forms: eigenvalues and eigenvectors of
symmetric/Hermitian matrices by cyclic Jacobi, built for many small matrices.

Design
------
Matrices of order up to the warp size (32 on NVIDIA; 64 on AMD's wave64 GPUs, 32 there for
complex128: :func:`rocarray.rocsolver._eigh_kernels.warp_order`) take one launch for the whole
batch with one warp per matrix (``ra_rocsolver_syevj_warp_xor``; for float32 of orders 17 to 32
``ra_rocsolver_syevj_warp_fast``, the same with scaled rotations, when
``_eigh_kernels.FAST_ROTATIONS`` is on (the default); ``ra_rocsolver_syevj_warp`` with
``_eigh_kernels.SYEVJ_WARP_XOR`` off, ``ra_rocsolver_syevj_warp_half`` with
``_eigh_kernels.SYEVJ_WARP_HALF`` on; several matrices per block, no block barrier): A in the
warp's slice of shared memory, each lane one row of the eigenvectors in registers. A sweep is a
round-robin tournament on ``N`` (16, 32 or 64: the smallest that holds ``n``) players, indices
past ``n`` being dummies: ``N - 1`` rounds, each rotating ``N / 2`` disjoint pairs at once in two
warp-synchronous steps (the pairs' rotations; then ``A := J^H A J`` on 2 x 2 blocks, ``V := V J``
in registers; the half-block kernel rotates one block of each transposed pair and stores both).
The XOR kernel pairs x with x ^ r in each round and XOR-permutes the rows of A's columns in
shared memory, so its accesses are free of bank conflicts; the other two use the circle
tournament and A padded to an odd leading dimension. Scaled rotations keep A and V as
``D Ah D`` and ``Vh D`` with a diagonal D multiplied back once a sweep: one multiply-add an
element and side a rotation instead of a multiplication and a multiply-add. :func:`warp_stack` is the same launch on
stacks in NumPy's layout (``ra.linalg.eigh``'s path): A read row-major where it is, the
eigenvectors written row-major into another array.

Larger matrices up to order 128 whose matrix fits the device's shared memory
(:func:`rocarray.rocsolver._eigh_kernels.small_variant`) take one launch with one block per matrix
(``ra_rocsolver_syevj_small``), A in shared memory, and V there too when both fit (else V is
rotated in place in the output matrix, in global memory). Each sweep is ``n - 1`` rounds of the
round-robin ordering, each round rotating ``n / 2`` disjoint pairs at once (two barrier-separated
passes over columns and rows).

Both kernels use Rutishauser's formulas for the angle, the rotated 2 x 2 block set exactly, and
test convergence once per sweep on ``off(A) = ||A - diag(A)||_F``. A NaN never passes the test,
so such a matrix runs ``max_sweeps`` sweeps and reports ``info = 1``. The eigenvalues are ranked
(ascending, NaN last) and the vectors scattered to their ranks.

Larger matrices are solved one by one by :func:`rocarray.rocsolver.syevd`'s path (tridiagonal
reduction); there ``residual`` and ``n_sweeps`` report 0.
"""

import numbers

import numpy

from rocarray._core import dtypes, matrix_args as _ma
from rocarray.rocsolver import _eigh, _eigh_kernels as _k, _info

_INT32 = numpy.dtype(numpy.int32)


def _real_scalar(value, name, where):
    if isinstance(value, (bool, numpy.bool_)) or not isinstance(value, (numbers.Real, numpy.floating,
                                                                         numpy.integer)):
        raise TypeError(f"{where}: {name} must be a real number, got {type(value).__name__}")
    return float(value)


def _optional(X, name, want, batch, where):
    if X is None:
        return None
    _ma.matrix_buffer(X, name, where)
    if X.dtype != want:
        raise TypeError(f"{where}: {name} must be {want.name}, got {X.dtype.name}")
    if X.size < batch:
        raise ValueError(f"{where}: {name} needs {batch} element(s), got {X.size}")
    return _k.flat(X)


def _check(fn, evect, uplo, n, A, lda, strideA, abstol, residual, max_sweeps, n_sweeps, W, strideW, info,
           batch_count):
    where = f"rocsolver.{fn}"
    evect = _ma.option(evect, "evect", where, ("N", "V"))
    uplo = _ma.option(uplo, "uplo", where)
    n = _ma.size(n, "n", where)
    batch = _ma.size(batch_count, "batch_count", where)
    _ma.matrix_buffer(A, "A", where)
    dtype = _ma.supported_dtype(A.dtype, _ma.STANDARD, where)
    complex_fn = fn.startswith("he")
    if complex_fn != (dtype.kind == "c"):
        other = fn.replace("he", "sy", 1) if complex_fn else fn.replace("sy", "he", 1)
        raise TypeError(f"{where}: unsupported dtype {dtype.name}; use {other} for "
                        f"{'real' if complex_fn else 'complex'} data")
    lda = _ma.leading_dimension(lda, n, "lda", where)
    strideA = _ma.size(strideA, "strideA", where)
    strideW = _ma.size(strideW, "strideW", where)
    if batch > 1 and strideA < lda * n:
        raise ValueError(f"{where}: strideA must be >= lda * n = {lda * n}, got {strideA}")
    if batch > 1 and strideW < n:
        raise ValueError(f"{where}: strideW must be >= n = {n}, got {strideW}")
    abstol = _real_scalar(abstol, "abstol", where)
    max_sweeps = _ma.size(max_sweeps, "max_sweeps", where)
    if max_sweeps < 1:
        raise ValueError(f"{where}: max_sweeps must be >= 1, got {max_sweeps}")
    real = dtypes.real_dtype(dtype)
    _ma.matrix_buffer(W, "W", where)
    if W.dtype != real:
        raise TypeError(f"{where}: W must be {real.name}, got {W.dtype.name}")
    residual = _optional(residual, "residual", real, batch, where)
    n_sweeps = _optional(n_sweeps, "n_sweeps", _INT32, batch, where)
    info = _info.info_buffer(info, batch, where)
    if n > 0 and batch > 0:
        _ma.matrix_bounds(A, n, n, lda, "A", where, batch, strideA)
        need = (batch - 1) * strideW + n
        if W.size < need:
            raise ValueError(f"{where}: W needs {need} element(s), got {W.size}")
    return (evect == "V", uplo, n, dtype, lda, strideA, abstol, residual, max_sweeps, n_sweeps, strideW, info,
            batch)


def _run(fn, evect, uplo, n, A, lda, strideA, abstol, residual, max_sweeps, n_sweeps, W, strideW, info,
         batch_count):
    (vectors, uplo, n, dtype, lda, strideA, abstol, residual, max_sweeps, n_sweeps, strideW, info,
     batch) = _check(fn, evect, uplo, n, A, lda, strideA, abstol, residual, max_sweeps, n_sweeps, W, strideW,
                     info, batch_count)
    if batch == 0:
        return None
    a, w = _k.flat(A), _k.flat(W)
    if n == 0:
        info[:batch] = 0
        for out in (residual, n_sweeps):
            if out is not None:
                out[:batch] = 0
        return None
    order = _k.warp_order(n, dtype, _k.device_id(a))
    if order is not None:
        _k.syevj_warp(dtype, order, n, a, lda, strideA, abstol, residual, max_sweeps, n_sweeps, w, strideW, info,
                      batch, uplo == "U", vectors)
        return None
    v_global = _k.small_variant(n, dtype, vectors, _k.device_id(a))
    if v_global is not None:
        _k.syevj_small(dtype, n, a, lda, strideA, abstol, residual, max_sweeps, n_sweeps, w, strideW, info,
                       batch, uplo == "U", vectors, v_global)
        return None
    for b in range(batch):
        matrix = a[b * strideA:]
        work = _k.flat(_k.module_of(a).asfortranarray(_k.view(matrix, 0, n, n, lda)))  # A stays for 'N'
        result = _eigh.solve(dtype, vectors, uplo, n, work, n, 0, n - 1)
        values = w[b * strideW:b * strideW + n]
        info[b:b + 1] = 0 if result is not None else 1
        if result is None:
            values[...] = numpy.nan
        else:
            values[...] = result[0]
            if vectors:
                _k.view(matrix, 0, n, n, lda)[...] = _k.view(result[1], 0, n, n, n)
    for out in (residual, n_sweeps):
        if out is not None:
            out[:batch] = 0
    return None


def warp_stack_supported(n, dtype, device_id):
    """Whether :func:`warp_stack` takes matrices of order ``n`` (>= 1) of ``dtype`` on the device
    ``device_id``: orders up to the warp size (32; 64 on wave64 AMD GPUs but for complex128)."""
    return n >= 1 and _k.warp_order(n, dtype, device_id) is not None


def warp_stack(uplo, A, W, V, info, max_sweeps):
    """Eigenvalues (and eigenvectors) of a stack of small matrices in NumPy's layout, in one launch
    of the one-warp-per-matrix kernel (the façade's path: no copy into rocSOLVER's column-major
    layout and back). Unchecked arguments: the caller's (:func:`warp_stack_supported` orders).

    Parameters
    ----------
    uplo : {'U', 'L'}
        Which triangle of each matrix (row index <= column index for 'U') is read.
    A : cupy.ndarray
        ``(batch, n, n)`` C-contiguous, float32, float64, complex64 or complex128; only read.
    W : cupy.ndarray
        ``(batch, n)`` C-contiguous real array of A's precision: the eigenvalues, ascending.
    V : cupy.ndarray or None
        ``(batch, n, n)`` C-contiguous of A's dtype, not overlapping A: column k of ``V[b]`` the
        eigenvector of ``W[b, k]``; None: eigenvalues only.
    info : cupy.ndarray
        int32, ``batch`` elements (contiguous): 0 on convergence, else 1 (written for every
        matrix).
    max_sweeps : int
        Most sweeps (>= 1).

    Returns
    -------
    None
    """
    batch, n = A.shape[0], A.shape[-1]
    if batch == 0:
        return
    order = _k.warp_order(n, A.dtype, A.data.device_id)
    vectors = V is not None
    _k.syevj_warp(A.dtype, order, n, A, n, n * n, 0.0, None, max_sweeps, None, W, n, info, batch, uplo == "U",
                  vectors, V=V if vectors else A, strideV=n * n, rows=True)


def syevj_strided_batched(evect, uplo, n, A, lda, strideA, abstol, residual, max_sweeps, n_sweeps, W, strideW,
                          info, batch_count):
    return _run("syevj_strided_batched", evect, uplo, n, A, lda, strideA, abstol, residual, max_sweeps, n_sweeps,
                W, strideW, info, batch_count)


def heevj_strided_batched(evect, uplo, n, A, lda, strideA, abstol, residual, max_sweeps, n_sweeps, W, strideW,
                          info, batch_count):
    return _run("heevj_strided_batched", evect, uplo, n, A, lda, strideA, abstol, residual, max_sweeps, n_sweeps,
                W, strideW, info, batch_count)


def syevj(evect, uplo, n, A, lda, abstol, residual, max_sweeps, n_sweeps, W, info):
    return _run("syevj", evect, uplo, n, A, lda, 0, abstol, residual, max_sweeps, n_sweeps, W, 0, info, 1)


def heevj(evect, uplo, n, A, lda, abstol, residual, max_sweeps, n_sweeps, W, info):
    return _run("heevj", evect, uplo, n, A, lda, 0, abstol, residual, max_sweeps, n_sweeps, W, 0, info, 1)


_PARAMS = """
    Parameters
    ----------
    evect : {{'N', 'V'}}
        Eigenvalues only, or eigenvalues and eigenvectors.
    uplo : {{'U', 'L'}}
        Which triangle of A is stored and used; the other is not referenced.
    n : int
        Order of A (>= 0).
    A : cupy.ndarray
        Column-major n x n matri{ces} (element (i, j) at ``A[i + j * lda]``{stride_a}; 1-D
        contiguous buffer or 2-D Fortran-ordered array), {dtypes}. On exit: the orthonormal
        eigenvectors as columns, in the order of W (``evect='V'``), or unchanged (``'N'``).
    lda : int
        Leading dimension, ``>= max(1, n)``.{stride_a_param}
    abstol : float
        Convergence threshold on ``off(A) = ||A - diag(A)||_F``; ``<= 0`` means
        ``eps * ||A||_F`` (eps of A's precision).
    residual : cupy.ndarray or None
        Real device array of {batch_n} element(s): ``off(A)`` at exit (0 for matrices solved by
        the tridiagonal path, see Notes). None: not reported.
    max_sweeps : int
        Most sweeps (>= 1).
    n_sweeps : cupy.ndarray or None
        int32 device array of {batch_n} element(s): the sweeps done (0 on the tridiagonal path).
        None: not reported.
    W : cupy.ndarray
        Real 1-D buffer (float32 for single precision, float64 for double): the eigenvalues in
        ascending order{w_note}.{stride_w_param}
    info : cupy.ndarray
        int32 device array of {batch_n} element(s): 0 on convergence, 1 if ``off(A) > abstol``
        after ``max_sweeps`` sweeps (always for non-finite input; W then holds the diagonal
        reached, NaN last).{batch_param}

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, wrong dtypes, a non-real ``abstol``.
    ValueError
        Invalid ``evect``/``uplo``, negative sizes, ``max_sweeps < 1``, ``lda`` or strides too
        small, buffers too short.

    Notes
    -----
    Matrices up to the warp size (32; 64 on wave64 AMD GPUs except complex128) run one warp
    each, several per block; larger ones up to order 128 (fewer where shared memory cannot hold
    one matrix) one thread block each; both in a single launch: parallel-order cyclic Jacobi
    with ``n / 2`` rotations per round. Larger ones are solved one at a time by the tridiagonal path
    of :func:`rocarray.rocsolver.syevd`. See :mod:`rocarray.rocsolver._syevj`. rocSOLVER's
    ``esort`` argument is not taken: the order is always ascending. Nothing is synchronized on
    the Jacobi path.
    """

_SINGLE = dict(ces="x", stride_a="", stride_a_param="", batch_n="one", w_note=", n elements",
               stride_w_param="", batch_param="")
_BATCHED = dict(ces="ces A_b", stride_a=" + b * strideA", batch_n="batch_count",
                stride_a_param="\n    strideA : int\n        Elements from one matrix to the next, "
                               ">= lda * n when batch_count > 1.",
                w_note=", n per matrix", stride_w_param="\n    strideW : int\n        Elements from one "
                                                           "matrix's eigenvalues to the next, >= n.",
                batch_param="\n    batch_count : int\n        Number of matrices (>= 0).")


def _doc(kind, prefix, dtypes_, batched):
    head = (f"Eigenvalues and eigenvectors of {'a batch of ' if batched else 'a '}{kind} "
            f"matri{'ces' if batched else 'x'} by Jacobi rotations (``rocsolver_{prefix}``).\n")
    return head + _PARAMS.format(dtypes=dtypes_, **(_BATCHED if batched else _SINGLE))


syevj.__doc__ = _doc("real symmetric", "?syevj", "float32 or float64", False)
heevj.__doc__ = _doc("complex Hermitian", "?heevj", "complex64 or complex128", False)
syevj_strided_batched.__doc__ = _doc("real symmetric", "?syevj_strided_batched", "float32 or float64", True)
heevj_strided_batched.__doc__ = _doc("complex Hermitian", "?heevj_strided_batched", "complex64 or complex128",
                                     True)
