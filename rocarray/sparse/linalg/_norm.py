"""``norm`` of a sparse array (``scipy.sparse.linalg.norm``)."""

import math

import numpy

from rocarray._core import backend
from rocarray import rocblas
from rocarray.sparse.linalg._interface import _is_sparse


def _canonical_csr(x):
    x = x.tocsr()
    if not x.has_canonical_format:
        x = x.copy()
        x.sum_duplicates()
    return x


def _float_data(x):
    data = x.data
    if data.dtype.char not in "fdFD":
        data = data.astype(numpy.float64)
    return data


def _with_data(x, data):
    return type(x)._from_parts(data, x.indices, x.indptr, x.shape, canonical=True)


def _frobenius(x):
    data = _float_data(x)
    return rocblas.nrm2(data.size, data, 1)


def _dense_result(M):
    if hasattr(M, "toarray"):
        return M.toarray().ravel()
    return M.ravel()


def norm(x, ord=None, axis=None):
    """Norm of a sparse array (``scipy.sparse.linalg.norm``).

    Parameters
    ----------
    x : sparse array or matrix
        A :mod:`rocarray.sparse` array (any format; duplicates are summed first).
    ord : {None, 'fro', 'f', 1, -1, inf, -inf, 2, 0, p}, optional
        Matrix norms (``axis`` None or a pair): Frobenius, max/min column sum, max/min row sum,
        2-norm (largest singular value, through :func:`svds`). Vector norms along one axis:
        ``inf``, ``-inf``, ``0`` (count of nonzeros), ``1``, ``2``/None, or any other p.
    axis : None, int or tuple of two ints, optional
        The axis of vector norms, or the pair of axes of a matrix norm.

    Returns
    -------
    cupy.ndarray
        A 0-d device array for a matrix norm (``ord=2``: a host float from :func:`svds`), a 1-D
        device array for vector norms.

    Raises
    ------
    TypeError
        ``x`` is not sparse, or ``axis`` is not an integer or tuple.
    ValueError
        Invalid ``ord`` or ``axis``.
    NotImplementedError
        ``ord=-2`` (as SciPy).
    """
    if not _is_sparse(x):
        raise TypeError("input is not sparse. use numpy.linalg.norm")
    if axis is None and ord in (None, "fro", "f"):
        return _frobenius(_canonical_csr(x))
    x = _canonical_csr(x)
    if axis is None:
        axis = (0, 1)
    elif not isinstance(axis, tuple):
        msg = "'axis' must be None, an integer or a tuple of integers"
        try:
            int_axis = int(axis)
        except TypeError as e:
            raise TypeError(msg) from e
        if axis != int_axis:
            raise TypeError(msg)
        axis = (int_axis,)
    nd = 2
    cupy = backend.cupy()
    absx = _with_data(x, cupy.abs(_float_data(x)))
    if len(axis) == 2:
        row_axis, col_axis = axis
        if not (-nd <= row_axis < nd and -nd <= col_axis < nd):
            raise ValueError(f"Invalid axis {axis!r} for an array with shape {x.shape!r}")
        if row_axis % nd == col_axis % nd:
            raise ValueError("Duplicate axes given.")
        if ord == 2:
            from rocarray.sparse.linalg._eigen import svds

            return svds(x, k=1)[1][0]
        if ord == -2:
            raise NotImplementedError
        if ord == 1:
            return _dense_result(absx.sum(axis=row_axis)).max()
        if ord == numpy.inf:
            return _dense_result(absx.sum(axis=col_axis)).max()
        if ord == -1:
            return _dense_result(absx.sum(axis=row_axis)).min()
        if ord == -numpy.inf:
            return _dense_result(absx.sum(axis=col_axis)).min()
        if ord in (None, "f", "fro"):
            return _frobenius(x)
        raise ValueError("Invalid norm order for matrices.")
    if len(axis) != 1:
        raise ValueError("Improper number of dimensions to norm.")
    (a,) = axis
    if not (-nd <= a < nd):
        raise ValueError(f"Invalid axis {axis!r} for an array with shape {x.shape!r}")
    if ord == numpy.inf:
        return _dense_result(absx.max(axis=a))
    if ord == -numpy.inf:
        return _dense_result(absx.min(axis=a))
    if ord == 0:
        # counted in float64 (exact below 2^53) so that the sum takes the compute path of every owner
        return _dense_result(_with_data(x, (x.data != 0).astype(numpy.float64)).sum(axis=a)).astype(numpy.int64)
    if ord == 1:
        return _dense_result(absx.sum(axis=a))
    if ord in (2, None):
        return cupy.sqrt(_dense_result(_with_data(x, absx.data ** 2).sum(axis=a)))
    try:
        ord + 1
    except TypeError as e:
        raise ValueError("Invalid norm order for vectors.") from e
    if isinstance(ord, float) and math.isnan(ord):
        raise ValueError("Invalid norm order for vectors.")
    return cupy.power(_dense_result(_with_data(x, absx.data ** ord).sum(axis=a)), 1 / ord)
