"""``rocarray.linalg.matrix_power`` and ``multi_dot``: products on rocblas GEMM via ``ra.matmul``/``ra.dot``."""

import operator

import numpy

from rocarray._core import backend
from rocarray._core.args import as_device_array


def _stacked_square(a):
    if a.ndim < 2:
        raise numpy.linalg.LinAlgError(
            f"{a.ndim}-dimensional array given. Array must be at least two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise numpy.linalg.LinAlgError("Last 2 dimensions of the array must be square")


def power_steps(n):
    """The products ``matrix_power`` does for ``|n| >= 2``, as ``('sq' | 'mul', ...)`` names (pure).

    Repeated squaring over the bits of ``n`` from the least significant one: ``z`` runs through
    ``a, a^2, a^4, ...`` and is multiplied into the result where the bit is set (``n == 2`` and
    ``n == 3`` take NumPy's short cuts ``a a`` and ``(a a) a``). Returns a list of
    ``(target, left, right)`` with names ``'a'``, ``'z'``, ``'r'``.
    """
    if n == 2:
        return [("r", "a", "a")]
    if n == 3:
        return [("r", "a", "a"), ("r", "r", "a")]
    steps, have_z, have_r = [], False, False
    while n > 0:
        if have_z:
            steps.append(("z", "z", "z"))
        else:
            steps.append(("z", "a", None))
            have_z = True
        n, bit = divmod(n, 2)
        if bit:
            steps.append(("r", "r", "z") if have_r else ("r", "z", None))
            have_r = True
    return steps


def matrix_power(a, n):
    """Raise a square matrix (or a stack of them) to the integer power ``n``
    (``numpy.linalg.matrix_power``).

    Repeated squaring, every product one :func:`rocarray.matmul` (so float and complex stacks run
    on rocblas' batched GEMM). ``n == 0`` gives identity matrices of ``a``'s dtype; ``n < 0``
    inverts ``a`` first with :func:`rocarray.linalg.inv` (rocsolver LU) and then raises
    the inverse to ``-n``. ``n == 1`` returns ``a`` itself, as NumPy does.

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, M)`` device array (host NumPy arrays are rejected).
    n : int
        The exponent (anything ``operator.index`` accepts).

    Returns
    -------
    cupy.ndarray
        ``a`` to the power ``n``, ``a``'s shape and (for ``n >= 0``) dtype.

    Raises
    ------
    TypeError
        A non-integer ``n``, or a host array.
    numpy.linalg.LinAlgError
        ``a`` not at least 2-D or not square in its last two axes; a singular ``a`` with ``n < 0``
        (raised by :func:`rocarray.linalg.inv`).

    See Also
    --------
    rocarray.matmul

    Examples
    --------
    >>> ra.linalg.matrix_power(ra.asarray([[0.0, 1.0], [-1.0, 0.0]]), 2)   # doctest: +SKIP
    array([[-1.,  0.],
           [ 0., -1.]])
    """
    from rocarray._numpy.matrix_products import matmul
    from rocarray.linalg._solve import inv

    cupy = backend.cupy()
    a = as_device_array(a, "a")
    _stacked_square(a)
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:
        return cupy.ascontiguousarray(cupy.broadcast_to(cupy.eye(a.shape[-2], dtype=a.dtype), a.shape))
    if n < 0:
        a = inv(a)
        n = -n
    if n == 1:
        return a
    names = {"a": a, "z": None, "r": None}
    for target, left, right in power_steps(n):
        names[target] = names[left] if right is None else matmul(names[left], names[right])
    return names["r"]


def chain_order(dims):
    """Optimal parenthesization of a matrix chain (the classic O(n^3) dynamic program; Cormen et al.,
    *Introduction to Algorithms*, 15.2), for matrices ``i`` of shape ``(dims[i], dims[i + 1])``.

    Returns ``split`` with ``split[i][j]`` the last split point of the product of matrices
    ``i..j`` (pure Python), and the cost table.
    """
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            best = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if best is None or c < best:
                    best, split[i][j] = c, k
            cost[i][j] = best
    return split, cost


def _chain(arrays, split, i, j):
    from rocarray._numpy.matrix_products import dot

    if i == j:
        return arrays[i]
    k = split[i][j]
    return dot(_chain(arrays, split, i, k), _chain(arrays, split, k + 1, j))


def multi_dot(arrays, *, out=None):
    """Dot product of two or more arrays in the cheapest order (``numpy.linalg.multi_dot``).

    The evaluation order minimizes scalar multiplications by the classic chain-ordering dynamic
    program (:func:`chain_order`); each product is one :func:`rocarray.dot` (rocblas GEMM for float
    and complex data). A 1-D first argument is a row vector and a 1-D last argument a column
    vector; the result drops those axes, as NumPy's does. Two arrays are simply ``dot(a, b)``.

    Parameters
    ----------
    arrays : sequence of cupy.ndarray
        2-D device arrays (the first and last may be 1-D); host NumPy arrays are rejected.
    out : cupy.ndarray, optional
        Destination with exactly the result's dtype and shape, C-contiguous (``dot``'s rule).

    Returns
    -------
    cupy.ndarray
        The chained product, or ``out``.

    Raises
    ------
    ValueError
        Fewer than two arrays; shapes that are not aligned.
    numpy.linalg.LinAlgError
        An inner array that is not 2-D.

    See Also
    --------
    rocarray.dot

    Examples
    --------
    >>> a, b, c = ra.ones((10, 100)), ra.ones((100, 5)), ra.ones((5, 50))   # doctest: +SKIP
    >>> ra.linalg.multi_dot([a, b, c]).shape                                # doctest: +SKIP
    (10, 50)
    """
    from rocarray._numpy.matrix_products import _dot_out, dot

    cupy = backend.cupy()
    arrays = [as_device_array(x, f"arrays[{i}]") for i, x in enumerate(arrays)]
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return dot(arrays[0], arrays[1], out=out)
    first, last = arrays[0].ndim, arrays[-1].ndim
    if first == 1:
        arrays[0] = arrays[0][None, :]
    if last == 1:
        arrays[-1] = arrays[-1][:, None]
    for x in arrays:
        if x.ndim != 2:
            raise numpy.linalg.LinAlgError(f"{x.ndim}-dimensional array given. Array must be two-dimensional")
    dims = [arrays[0].shape[0]] + [x.shape[1] for x in arrays]
    split, _ = chain_order(dims)
    result = _chain(arrays, split, 0, n - 1)
    if first == 1 and last == 1:
        result = result[0, 0]
    elif first == 1 or last == 1:
        result = result.ravel()
    if out is None:
        return result
    _dot_out(cupy, out, result.shape, result.dtype)
    out[...] = result
    return out
