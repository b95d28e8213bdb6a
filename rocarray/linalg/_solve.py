"""``numpy.linalg.solve``, ``inv``, ``det``, ``slogdet``, ``tensorsolve`` and ``tensorinv`` on
rocsolver's LU (:func:`rocarray.rocsolver.gesv_small_batched`, ``getrf_strided_batched`` and
``getrs_strided_batched``).

Design
------
``solve`` and ``inv`` of systems that :func:`rocarray.rocsolver.gesv_small_supported` takes
(order up to 32; up to 128 with at most 16 right-hand sides) hand the stack to
:func:`rocarray.rocsolver.gesv_small_batched` as it is laid out: ``a`` and ``b``
broadcast to the common stack and viewed as ``(batch, M, M)`` and ``(batch, M, K)`` (a copy only
where the dtype changes or the stack dimensions do not merge into one stride; broadcast
dimensions are zero strides), one launch factors and solves, ``inv``'s right-hand side is a
broadcast identity. Every other stacked input becomes one column-major batch
(:func:`._stacked.column_major_batch`, one copy in the computation dtype), factored in one
getrf call and solved in one getrs call. The façade reads ``info``
back once per call (solve and inv raise NumPy's ``LinAlgError("Singular matrix")`` if any matrix
of the stack is singular); det and slogdet read nothing back.
"""

import collections

import numpy

from rocarray import rocsolver
from rocarray._core import args as _args, backend
from rocarray.linalg import _stacked
from rocarray.rocsolver import _info

#: NumPy's ``slogdet`` result: ``sign`` and ``logabsdet``.
SlogdetResult = collections.namedtuple("SlogdetResult", ["sign", "logabsdet"])


def _count(shape):
    return int(numpy.prod(shape, dtype=numpy.int64))


def factor(a, dtype):
    """LU of the stack ``a`` (``(..., M, M)``, broadcast already): ``(A, ipiv, info, batch)`` with
    A the ``(batch, M, M)`` column-major factors and ``ipiv`` ``(batch, M)`` (1-based)."""
    cupy = backend.cupy()
    m = a.shape[-1]
    batch = _count(a.shape[:-2])
    A = _stacked.column_major_batch(a, dtype).reshape(batch, m, m)
    ipiv = cupy.empty((batch, m), numpy.int32)
    info = _info.new_info(batch)
    rocsolver.getrf_strided_batched(m, m, A.reshape(-1), m, m * m, ipiv.reshape(-1), m, info, batch)
    return A, ipiv, info, batch


def _as_batch(x, stack, rows, cols, dtype):
    """``x`` of ``dtype`` broadcast to ``stack + (rows, cols)`` as a ``(batch, rows, cols)`` array:
    a view where the stack dimensions merge into one stride, else a copy."""
    cupy = backend.cupy()
    x = cupy.broadcast_to(x.astype(dtype, copy=False), stack + (rows, cols))
    return x.reshape((_count(stack), rows, cols))


def _gesv_small(A, B, dtype):
    """X of ``A X = B`` for ``(batch, M, M)`` and ``(batch, M, K)`` arrays (M small), or
    ``LinAlgError`` if a matrix is singular."""
    cupy = backend.cupy()
    batch = A.shape[0]
    X = cupy.empty(B.shape, dtype)
    info = _info.new_info(batch)
    rocsolver.gesv_small_batched(A, B, X, info)
    _raise_if_singular(info, batch)
    return X


def _raise_if_singular(info, batch):
    if (_info.failures(info, batch) > 0).any():
        raise _stacked.LinAlgError("Singular matrix")


def solve(a, b):
    """Solve ``a @ x = b`` for x (``numpy.linalg.solve``, NumPy 2 semantics).

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, M)`` coefficient matrices.
    b : cupy.ndarray
        ``(M,)`` (one vector for every matrix of ``a``) or ``(..., M, K)``; the stack dimensions
        of ``a`` and ``b`` broadcast. A ``b`` of shape ``(..., M)`` with more than one dimension
        is a stack of ``M x K`` matrices, as in NumPy 2.

    Returns
    -------
    cupy.ndarray
        ``x`` of shape ``(..., M)`` or ``(..., M, K)``, dtype by NumPy's linalg rule
        (float32/complex64 when every input is single precision, else float64/complex128).

    Raises
    ------
    numpy.linalg.LinAlgError
        ``a`` not a stack of square matrices, or a matrix of it exactly singular (a zero pivot).
    ValueError
        ``b``'s length does not match, or the stacks do not broadcast.
    TypeError
        Host (NumPy) arrays, unsupported dtypes.

    Notes
    -----
    LU with partial pivoting on rocsolver: for ``M <= 32``, and for ``M <= 128`` (96 for
    complex128) with at most 16 right-hand sides, one fused factor-and-solve launch on the stack
    as laid out (:func:`rocarray.rocsolver.gesv_small_batched`: a group of lanes, or a thread
    block, per system, the matrix in registers); otherwise getrf, then getrs, one batched call
    each for the whole stack. The singularity check reads ``info`` back once.

    Examples
    --------
    >>> a = cupy.array([[3.0, 1.0], [1.0, 2.0]])
    >>> ra.linalg.solve(a, cupy.array([9.0, 8.0]))   # doctest: +SKIP
    array([2., 3.])
    """
    cupy = backend.cupy()
    a = _stacked.stacked_square(a, "a")
    b = _args.as_device_array(b, "b")
    dtype = _stacked.linalg_dtype(a.dtype, b.dtype)
    m = a.shape[-1]
    vector = b.ndim == 1
    if b.ndim == 0 or b.shape[-1 if vector else -2] != m:
        sig = "(m,m),(m)->(m)" if vector else "(m,m),(m,n)->(m,n)"
        size = b.shape[-1 if vector else -2] if b.ndim else 0
        raise ValueError(f"solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                         f"{sig} (size {size} is different from {m})")
    b2 = b[:, None] if vector else b
    stack = numpy.broadcast_shapes(a.shape[:-2], b2.shape[:-2])
    k = b2.shape[-1]
    shape = stack + ((m,) if vector else (m, k))
    batch = _count(stack)
    if batch == 0 or m == 0:
        return cupy.empty(shape, dtype)
    if rocsolver.gesv_small_supported(m, k, dtype, a.data.device_id):
        X = _gesv_small(_as_batch(a, stack, m, m, dtype), _as_batch(b2, stack, m, k, dtype), dtype)
        x = X.reshape(stack + (m, k))
        return x[..., 0] if vector else x
    A, ipiv, info, batch = factor(cupy.broadcast_to(a, stack + (m, m)), dtype)
    _raise_if_singular(info, batch)
    if k == 0:
        return cupy.empty(shape, dtype)
    B = _stacked.column_major_batch(cupy.broadcast_to(b2, stack + (m, k)), dtype)
    rocsolver.getrs_strided_batched("N", m, k, A.reshape(-1), m, m * m, ipiv.reshape(-1), m, B.reshape(-1), m,
                                    m * k, batch)
    x = B.swapaxes(-1, -2)
    return x[..., 0] if vector else x


def inv(a):
    """Inverse of a square matrix or of each matrix of a stack (``numpy.linalg.inv``).

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, M)``.

    Returns
    -------
    cupy.ndarray
        ``(..., M, M)`` inverses, dtype by NumPy's linalg rule.

    Raises
    ------
    numpy.linalg.LinAlgError
        Not square, or a matrix exactly singular.
    TypeError
        Host arrays, unsupported dtypes.

    Notes
    -----
    For ``M <= 32`` one fused factor-and-solve launch against a broadcast identity
    (:func:`rocarray.rocsolver.gesv_small_batched`), otherwise getrf, then getrs against identity
    matrices (the whole stack in one call each).

    Examples
    --------
    >>> ra.linalg.inv(cupy.array([[2.0, 0.0], [0.0, 4.0]]))   # doctest: +SKIP
    array([[0.5 , 0.  ],
           [0.  , 0.25]])
    """
    cupy = backend.cupy()
    a = _stacked.stacked_square(a, "a")
    dtype = _stacked.linalg_dtype(a.dtype)
    m = a.shape[-1]
    if a.size == 0:
        return cupy.empty(a.shape, dtype)
    if rocsolver.gesv_small_supported(m, m, dtype, a.data.device_id):
        stack = a.shape[:-2]
        eye = cupy.eye(m, dtype=dtype)
        return _gesv_small(_as_batch(a, stack, m, m, dtype), _as_batch(eye, stack, m, m, dtype),
                           dtype).reshape(a.shape)
    A, ipiv, info, batch = factor(a, dtype)
    _raise_if_singular(info, batch)
    X = cupy.zeros((batch, m, m), dtype)
    X.reshape(batch, m * m)[:, ::m + 1] = 1
    rocsolver.getrs_strided_batched("N", m, m, A.reshape(-1), m, m * m, ipiv.reshape(-1), m, X.reshape(-1), m,
                                    m * m, batch)
    return X.swapaxes(-1, -2).reshape(a.shape)


def _diagonal_and_parity(a, dtype):
    """LU diagonals ``(batch, M)`` and the pivots' sign ``(batch,)`` (+1/-1, of ``dtype``)."""
    cupy = backend.cupy()
    A, ipiv, _, batch = factor(a, dtype)
    m = a.shape[-1]
    d = A.diagonal(axis1=1, axis2=2)
    swaps = (ipiv != cupy.arange(1, m + 1, dtype=numpy.int32)).sum(axis=1)
    return d, (1 - 2 * (swaps % 2)).astype(dtype)


def det(a):
    """Determinant of a square matrix or of each matrix of a stack (``numpy.linalg.det``).

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, M)``.

    Returns
    -------
    cupy.ndarray
        ``(...)`` determinants (0-d for one matrix), dtype by NumPy's linalg rule. A singular
        matrix gives 0 (no error); ``0 x 0`` matrices give 1.

    Raises
    ------
    numpy.linalg.LinAlgError
        Not square.
    TypeError
        Host arrays, unsupported dtypes.

    Notes
    -----
    The product of U's diagonal after getrf, negated for an odd number of row interchanges.
    Nothing is read back.

    Examples
    --------
    >>> ra.linalg.det(cupy.array([[1.0, 2.0], [3.0, 4.0]]))   # doctest: +SKIP
    array(-2.)
    """
    cupy = backend.cupy()
    a = _stacked.stacked_square(a, "a")
    dtype = _stacked.linalg_dtype(a.dtype)
    stack = a.shape[:-2]
    if a.shape[-1] == 0:
        return cupy.ones(stack, dtype)
    if _count(stack) == 0:
        return cupy.empty(stack, dtype)
    d, sign = _diagonal_and_parity(a, dtype)
    return (cupy.prod(d, axis=1) * sign).reshape(stack)


def slogdet(a):
    """Sign and natural logarithm of the absolute determinant (``numpy.linalg.slogdet``).

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, M)``.

    Returns
    -------
    SlogdetResult
        ``(sign, logabsdet)``, each of shape ``(...)``: sign of the computation dtype (a unit
        complex number for complex input), logabsdet of its real dtype. A singular matrix gives
        ``(0, -inf)``; ``0 x 0`` matrices ``(1, 0)``.

    Raises
    ------
    numpy.linalg.LinAlgError
        Not square.
    TypeError
        Host arrays, unsupported dtypes.

    Notes
    -----
    From U's diagonal after getrf (sum of ``log |u_ii|``; product of ``u_ii / |u_ii|`` and the
    pivots' sign), so it neither overflows nor underflows where det would. Nothing is read back.

    Examples
    --------
    >>> ra.linalg.slogdet(cupy.array([[1.0, 2.0], [3.0, 4.0]]))   # doctest: +SKIP
    SlogdetResult(sign=array(-1.), logabsdet=array(0.69314718))
    """
    cupy = backend.cupy()
    a = _stacked.stacked_square(a, "a")
    dtype = _stacked.linalg_dtype(a.dtype)
    real = numpy.dtype(dtype.char.lower())
    stack = a.shape[:-2]
    if a.shape[-1] == 0 or _count(stack) == 0:
        fill = cupy.ones if a.shape[-1] == 0 else cupy.empty
        return SlogdetResult(fill(stack, dtype), cupy.zeros(stack, real))
    d, sign = _diagonal_and_parity(a, dtype)
    absd = cupy.abs(d)
    if dtype.kind == "c":
        unit = cupy.where(absd == 0, 0, d / cupy.where(absd == 0, 1, absd))
    else:
        unit = cupy.sign(d)
    sign = cupy.prod(unit, axis=1) * sign
    logabsdet = cupy.sum(cupy.log(absd), axis=1).astype(real, copy=False)
    return SlogdetResult(sign.reshape(stack), logabsdet.reshape(stack))


def tensorsolve(a, b, axes=None):
    """Solve the tensor equation ``tensordot(a, x, x.ndim) = b`` for x (``numpy.linalg.tensorsolve``).

    Parameters
    ----------
    a : cupy.ndarray
        Coefficient tensor of shape ``b.shape + Q``, ``prod(Q) == prod(b.shape)``.
    b : cupy.ndarray
        Right-hand tensor.
    axes : tuple of ints, optional
        Axes of ``a`` moved to the end before solving.

    Returns
    -------
    cupy.ndarray
        x of shape Q.

    Raises
    ------
    numpy.linalg.LinAlgError
        The shapes do not make a square system, or it is singular.

    Examples
    --------
    >>> a = cupy.eye(6).reshape(6, 2, 3)
    >>> ra.linalg.tensorsolve(a, cupy.arange(6.0)).shape   # doctest: +SKIP
    (2, 3)
    """
    a = _args.as_device_array(a, "a")
    b = _args.as_device_array(b, "b")
    an = a.ndim
    if axes is not None:
        order = list(range(an))
        for k in axes:
            order.remove(k)
            order.insert(an, k)
        a = a.transpose(order)
    oldshape = a.shape[-(an - b.ndim):]
    n = _count(oldshape)
    if a.size != n * n:
        raise _stacked.LinAlgError("Input arrays must satisfy the requirement "
                                   "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    return solve(a.reshape(n, n), b.ravel()).reshape(oldshape)


def tensorinv(a, ind=2):
    """The inverse of an N-dimensional array with respect to ``tensordot`` (``numpy.linalg.tensorinv``).

    Parameters
    ----------
    a : cupy.ndarray
        Tensor with ``prod(a.shape[:ind]) == prod(a.shape[ind:])``.
    ind : int, optional
        Number of first indices in the inverse sum (positive).

    Returns
    -------
    cupy.ndarray
        Shape ``a.shape[ind:] + a.shape[:ind]``.

    Raises
    ------
    ValueError
        ``ind <= 0``.
    numpy.linalg.LinAlgError
        Not invertible, or the shape products differ.

    Examples
    --------
    >>> a = cupy.eye(4 * 6).reshape(4, 6, 8, 3)
    >>> ra.linalg.tensorinv(a, ind=2).shape   # doctest: +SKIP
    (8, 3, 4, 6)
    """
    a = _args.as_device_array(a, "a")
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    oldshape = a.shape
    invshape = oldshape[ind:] + oldshape[:ind]
    n = _count(oldshape[ind:])
    return inv(a.reshape(n, -1)).reshape(invshape)
