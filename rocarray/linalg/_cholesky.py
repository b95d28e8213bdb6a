"""``rocarray.linalg.cholesky`` (NumPy) and ``cho_factor``, ``cho_solve``, ``solve_triangular``
(SciPy) on rocsolver potrf/potrs and rocblas trsm.

Layout: a C-ordered ``(..., n, n)`` stack is, matrix by matrix, the column-major transpose. For a
Hermitian matrix the transpose is the conjugate, whose Cholesky factor is the conjugate of the
factor: potrf with the opposite ``uplo`` on the C-ordered copy leaves NumPy's (SciPy's) factor in
place, in the C-ordered view, with no transposed copy. ``cholesky`` of orders up to 128 needs no
copy at all: rocsolver's ``potrf_small_batched`` reads the stack where it lies (any strides) and
writes the factor, zeros included, into a new array. Solves take column-major copies
(:func:`rocarray.linalg._stacked.column_major_batch`), as the right-hand sides are overwritten.

Every status (``info``, SciPy's finiteness check, a zero on a triangular diagonal) is read with
one host synchronization per call.
"""

import operator

import numpy

from rocarray import rocblas, rocsolver
from rocarray._core import backend
from rocarray._core.args import as_device_array
from rocarray.linalg._stacked import LinAlgError, column_major_batch, linalg_dtype, stacked_square
from rocarray.rocsolver import _info

_NOT_FINITE = "array must not contain infs or NaNs"


def _lapack_type(dtype):
    dtype = numpy.dtype(dtype)
    if dtype.kind == "c":
        if dtype.itemsize > 16:
            raise TypeError(f"array type {dtype.name} is unsupported in linalg")
        return dtype
    if dtype.kind not in "biuf" or (dtype.kind == "f" and dtype.itemsize > 8):
        raise TypeError(f"array type {dtype.name} is unsupported in linalg")
    small = dtype.itemsize <= (4 if dtype.kind == "f" else 2)
    return numpy.dtype(numpy.float32 if small else numpy.float64)


def scipy_dtype(*dtypes):
    """The dtype ``scipy.linalg`` computes in for inputs of ``dtypes`` (its LAPACK type choice):
    each input maps to float32 (bools, 8- and 16-bit integers, float16, float32), float64 (wider
    integers, float64) or its complex type, and the results combine by NumPy's promotion;
    ``TypeError`` for other kinds (strings, objects, long doubles)."""
    return numpy.result_type(*(_lapack_type(d) for d in dtypes))


def _count(shape):
    return int(numpy.prod(shape, dtype=numpy.int64))


def _factor_in_place(buf, n, batch, lower):
    """potrf on a C-ordered ``(..., n, n)`` buffer, leaving the ``lower`` (C-order) factor and
    meaningless values in the other triangle (the caller zeroes it); the host copy of ``info``."""
    info = _info.new_info(batch)
    rocsolver.potrf_strided_batched("U" if lower else "L", n, buf.reshape(-1), n, n * n, info, batch,
                                    keep_other=False)
    return _info.failures(info, batch)


def cholesky(a, /, *, upper=False):
    """Cholesky factor of a Hermitian positive definite matrix or stack (``numpy.linalg.cholesky``).

    ``a = L L^H`` with L lower triangular, or with ``upper=True`` ``a = U^H U``. Only the lower
    (upper) triangle of ``a`` is read; the diagonal's imaginary parts are taken as zero.

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, M)`` device array (host NumPy arrays are rejected); integers and bools compute
        in float64, as NumPy.
    upper : bool, optional
        Return the upper factor U instead of L.

    Returns
    -------
    cupy.ndarray
        The factor, ``a``'s shape, float32/float64/complex64/complex128 by NumPy's rule, the other
        triangle zero; C-contiguous.

    Raises
    ------
    numpy.linalg.LinAlgError
        ``a`` not at least 2-D or not square; a matrix that is not positive definite ("Matrix is
        not positive definite"), including one with a NaN reaching a pivot (LAPACK's potrf rule).
    TypeError
        A host array; float16 or another unsupported dtype.

    Notes
    -----
    Orders up to 128 (complex128: 64): one launch of rocsolver's ``potrf_small_batched`` for the
    whole stack, reading ``a`` where it lies and writing the factor with its zeros; larger orders:
    rocsolver ``potrf_strided_batched`` on a C-ordered copy (recursive on rocblas gemm and
    syrk/herk). ``info`` read once.

    Examples
    --------
    >>> a = ra.asarray([[4.0, 2.0], [2.0, 3.0]])   # doctest: +SKIP
    >>> ra.linalg.cholesky(a)                       # doctest: +SKIP
    array([[2.        , 0.        ],
           [1.        , 1.41421356]])
    """
    cupy = backend.cupy()
    a = stacked_square(a)
    dtype = linalg_dtype(a.dtype)
    n, batch = a.shape[-1], _count(a.shape[:-2])
    if n == 0 or batch == 0:
        return cupy.empty(a.shape, dtype)
    if rocsolver.potrf_small_supported(n, dtype):   # read in place, factor and zeros written at once
        factor = cupy.empty(a.shape, dtype)
        info = _info.new_info(batch)
        rocsolver.potrf_small_batched(a.astype(dtype, copy=False).reshape(batch, n, n),
                                      factor.reshape(batch, n, n), info, "U" if upper else "L")
        if _info.failures(info, batch).any():
            raise LinAlgError("Matrix is not positive definite")
        return factor
    buf = a.astype(dtype, order="C", copy=True)
    if _factor_in_place(buf, n, batch, not upper).any():
        raise LinAlgError("Matrix is not positive definite")
    keep = cupy.tri(n, dtype=bool)
    return cupy.where(keep.T if upper else keep, buf, dtype.type(0))


def _square(a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Input array is expected to be square but has the shape: {a.shape}.")
    return a


def _check_finite(arrays):
    """A device flag: whether every element of ``arrays`` is finite (read by the caller's one sync)."""
    cupy = backend.cupy()
    flag = None
    for x in arrays:
        if x.size and x.dtype.kind in "fc":
            f = cupy.isfinite(x).all()
            flag = f if flag is None else flag & f
    return flag


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """Cholesky factorization for :func:`cho_solve` (``scipy.linalg.cho_factor``).

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, M)`` Hermitian positive definite matrix or stack; only the ``lower`` (else
        upper) triangle is read.
    lower : bool, optional
        Factor as ``a = L L^H`` (True) or ``a = U^H U`` (False, SciPy's default).
    overwrite_a : bool, optional
        Factor ``a`` in place when it is C-contiguous and already of the computation dtype (then
        ``c`` is ``a``); otherwise ignored.
    check_finite : bool, optional
        Raise ``ValueError`` if ``a`` holds an inf or a NaN (checked on the whole array, like SciPy).

    Returns
    -------
    c : cupy.ndarray
        The factor in the ``lower`` (upper) triangle; the other triangle holds ``a``'s values, as
        SciPy's does.
    lower : bool
        The flag given.

    Raises
    ------
    ValueError
        ``a`` not square; non-finite values with ``check_finite``.
    numpy.linalg.LinAlgError
        A matrix that is not positive definite: ``"k-th leading minor of the array is not
        positive definite"`` (the first failing matrix of a stack).
    TypeError
        A host array or an unsupported dtype.

    Examples
    --------
    >>> c, low = ra.linalg.cho_factor(a)            # doctest: +SKIP
    >>> x = ra.linalg.cho_solve((c, low), b)        # doctest: +SKIP
    """
    cupy = backend.cupy()
    a = _square(as_device_array(a, "a"))
    dtype = scipy_dtype(a.dtype)
    lower = bool(lower)
    in_place = bool(overwrite_a) and a.dtype == dtype and a.flags.c_contiguous
    finite = _check_finite([a]) if check_finite else None
    if finite is not None and in_place and not bool(finite):  # a must not change before the error
        raise ValueError(_NOT_FINITE)
    buf = a if in_place else a.astype(dtype, order="C", copy=True)
    n, batch = a.shape[-1], _count(a.shape[:-2])
    if n == 0 or batch == 0:
        return buf, lower
    info = _info.new_info(batch)
    rocsolver.potrf_strided_batched("U" if lower else "L", n, buf.reshape(-1), n, n * n, info, batch)
    ok = cupy.ones(1, numpy.int32) if finite is None or in_place else finite.astype(numpy.int32).reshape(1)
    status = cupy.concatenate([ok, info[:batch]]).get()  # the one host synchronization
    if not status[0]:
        raise ValueError(_NOT_FINITE)
    failed = numpy.flatnonzero(status[1:])
    if failed.size:
        raise LinAlgError(f"{int(status[1 + failed[0]])}-th leading minor of the array is not positive definite")
    return buf, lower


def _rhs_layout(b, n, message):
    """``(b as (..., n, K), batch shape of b, vector?)``: b is ``(n,)`` or ``(..., n, K)``."""
    if b.ndim == 1:
        if b.shape[0] != n:
            raise ValueError(message)
        return b[:, None], (), True
    if b.shape[-2] != n:
        raise ValueError(message)
    return b, b.shape[:-2], False


def _broadcast_batch(a_batch, b_batch, message):
    try:
        return tuple(numpy.broadcast_shapes(a_batch, b_batch))
    except ValueError:
        raise ValueError(message) from None


def _column_major(cupy, x, shape, dtype):
    """``x`` broadcast to ``shape`` as a C-ordered stack of column-major matrices of ``dtype`` (a
    new array), and its matrices as a ``shape`` view."""
    buf = column_major_batch(cupy.broadcast_to(x, shape), dtype)
    return buf, buf.swapaxes(-1, -2)


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """Solve ``A x = b`` given A's Cholesky factorization from :func:`cho_factor`
    (``scipy.linalg.cho_solve``).

    Parameters
    ----------
    c_and_lower : tuple of (cupy.ndarray, bool)
        ``(c, lower)`` from :func:`cho_factor`: ``(..., M, M)`` factor(s) and the triangle used.
    b : cupy.ndarray
        Right-hand side: ``(M,)`` or ``(..., M, K)``; batch dimensions broadcast with ``c``'s.
    overwrite_b : bool, optional
        Accepted for SciPy compatibility; ``b`` is never overwritten.
    check_finite : bool, optional
        Raise ``ValueError`` if ``c`` or ``b`` holds an inf or a NaN.

    Returns
    -------
    cupy.ndarray
        The solution, of the broadcast shape (``(..., M)`` for a 1-D ``b``), in SciPy's dtype of
        ``c`` and ``b``.

    Raises
    ------
    ValueError
        Shapes that do not match ("incompatible dimensions ..."), a non-square factor,
        non-finite values with ``check_finite``.
    TypeError
        Host arrays or unsupported dtypes.

    Notes
    -----
    rocsolver potrs for one factor (all right-hand sides of a stack at once), potrs_strided_batched
    for a stack of factors: one launch for factors up to order 128 in float64, two rocblas trsm
    per matrix beyond.

    Examples
    --------
    >>> x = ra.linalg.cho_solve(ra.linalg.cho_factor(a), b)   # doctest: +SKIP
    """
    cupy = backend.cupy()
    c, lower = c_and_lower
    c = _square(as_device_array(c, "c"))
    b = as_device_array(b, "b")
    message = f"incompatible dimensions ({c.shape} and {b.shape})"
    n = c.shape[-1]
    b2, b_batch, vector = _rhs_layout(b, n, message)
    batch_shape = _broadcast_batch(c.shape[:-2], b_batch, message)
    dtype = scipy_dtype(c.dtype, b.dtype)
    if check_finite:
        flag = _check_finite([c, b])
        if flag is not None and not bool(flag):
            raise ValueError(_NOT_FINITE)
    k = b2.shape[-1]
    xbuf, x = _column_major(cupy, b2, batch_shape + (n, k), dtype)
    batch = _count(batch_shape)
    if n and k and batch:
        uplo = "L" if lower else "U"
        if _count(c.shape[:-2]) == 1:  # one factor: every right-hand side of the stack in one potrs
            cbuf, _ = _column_major(cupy, c.reshape(n, n), (n, n), dtype)
            rocsolver.potrs(uplo, n, batch * k, cbuf.reshape(-1), n, xbuf.reshape(-1), n)
        else:
            cbuf, _ = _column_major(cupy, c, batch_shape + (n, n), dtype)
            rocsolver.potrs_strided_batched(uplo, n, k, cbuf.reshape(-1), n, n * n, xbuf.reshape(-1), n, n * k,
                                            batch)
    return x[..., 0] if vector else x


_TRANS = {0: "N", 1: "T", 2: "C", "N": "N", "T": "T", "C": "C", "n": "N", "t": "T", "c": "C"}


def _trans(trans):
    try:
        key = operator.index(trans) if not isinstance(trans, str) else trans
        return _TRANS[key]
    except (TypeError, KeyError):
        raise ValueError(f"trans must be one of 0, 1, 2, 'N', 'T', 'C', got {trans!r}") from None


def _singular_status(cupy, a, n, need_finite, others):
    """One device array ``[all finite, any zero diagonal, flat index of the first zero]`` (int64)."""
    finite = _check_finite([a] + others) if need_finite else None
    diag = cupy.diagonal(a, axis1=-2, axis2=-1).reshape(-1)
    zero = diag == 0
    first = cupy.argmax(zero) if diag.size else cupy.zeros((), numpy.int64)
    any_zero = zero.any() if diag.size else cupy.zeros((), bool)
    ok = cupy.ones((), bool) if finite is None else finite
    return cupy.stack([ok.astype(numpy.int64), any_zero.astype(numpy.int64), first.astype(numpy.int64)])


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True):
    """Solve ``op(a) x = b`` with ``a`` triangular (``scipy.linalg.solve_triangular``).

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, M)`` triangular matrix or stack; only the ``lower`` (else upper) triangle is
        read, and with ``unit_diagonal`` not its diagonal.
    b : cupy.ndarray
        ``(M,)`` or ``(..., M, K)``; batch dimensions broadcast with ``a``'s.
    trans : {0, 1, 2, 'N', 'T', 'C'}, optional
        Solve ``a x = b``, ``a^T x = b`` or ``a^H x = b``.
    lower : bool, optional
        ``a`` is lower triangular (default upper).
    unit_diagonal : bool, optional
        The diagonal is taken as ones and not read.
    overwrite_b : bool, optional
        Accepted for SciPy compatibility; ``b`` is never overwritten.
    check_finite : bool, optional
        Raise ``ValueError`` if ``a`` or ``b`` holds an inf or a NaN.

    Returns
    -------
    cupy.ndarray
        ``x``, of the broadcast shape (``(..., M)`` for a 1-D ``b``), in SciPy's dtype of ``a``
        and ``b``.

    Raises
    ------
    numpy.linalg.LinAlgError
        A zero on the diagonal (without ``unit_diagonal``): ``"singular matrix: resolution failed
        at diagonal i"`` (0-based, of the first singular matrix of a stack).
    ValueError
        ``a`` not square, shapes that do not match, an invalid ``trans``, non-finite values with
        ``check_finite``.
    TypeError
        Host arrays or unsupported dtypes.

    Notes
    -----
    rocblas trsm on column-major copies: one call for all right-hand sides when ``a`` is one
    matrix, one call per matrix of a stack of them; the finiteness and singularity checks share
    one host synchronization.

    Examples
    --------
    >>> a = ra.asarray([[2.0, 1.0], [0.0, 4.0]])                   # doctest: +SKIP
    >>> ra.linalg.solve_triangular(a, ra.asarray([4.0, 8.0]))      # doctest: +SKIP
    array([1., 2.])
    """
    cupy = backend.cupy()
    a = as_device_array(a, "a")
    b = as_device_array(b, "b")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError("expected square matrix")
    op = _trans(trans)
    message = f"shapes of a {a.shape} and b {b.shape} are incompatible"
    n = a.shape[-1]
    b2, b_batch, vector = _rhs_layout(b, n, message)
    batch_shape = _broadcast_batch(a.shape[:-2], b_batch, message)
    dtype = scipy_dtype(a.dtype, b.dtype)
    if op == "C" and dtype.kind != "c":
        op = "T"
    if check_finite or (not unit_diagonal and a.size):
        status = _singular_status(cupy, a, n, check_finite, [b]).get()
        if not status[0]:
            raise ValueError(_NOT_FINITE)
        if not unit_diagonal and status[1]:
            raise LinAlgError(f"singular matrix: resolution failed at diagonal {int(status[2]) % n}")
    k = b2.shape[-1]
    xbuf, x = _column_major(cupy, b2, batch_shape + (n, k), dtype)
    batch = _count(batch_shape)
    if n and k and batch:
        uplo, diag = ("L" if lower else "U"), ("U" if unit_diagonal else "N")
        xf = xbuf.reshape(-1)
        if _count(a.shape[:-2]) == 1:  # one matrix: every right-hand side of the stack in one trsm
            abuf, _ = _column_major(cupy, a.reshape(n, n), (n, n), dtype)
            rocblas.trsm("L", uplo, op, diag, n, batch * k, 1, abuf.reshape(-1), n, xf, n)
        else:
            abuf, _ = _column_major(cupy, a, batch_shape + (n, n), dtype)
            af = abuf.reshape(-1)
            for i in range(batch):
                rocblas.trsm("L", uplo, op, diag, n, k, 1, af[i * n * n:], n, xf[i * n * k:], n)
    return x[..., 0] if vector else x
