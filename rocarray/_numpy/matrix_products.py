"""NumPy-named products on rocblas GEMM: ``matmul``, ``dot`` (N-D), ``tensordot``, ``outer``, ``kron``,
``trace``.

Routing (one rule for all of them). The result dtype is NumPy's, found by asking NumPy itself on
0-size host arrays of the operand dtypes (so promotion, ``dtype=``/``casting=`` and the exact
casting exceptions are NumPy's). Then:

* float16, float32, float64, complex64, complex128 results (:func:`rocarray._numpy.gemm_route.gemm_takes`)
  run on ``rocblas.gemm`` / ``rocblas.gemm_strided_batched`` through :mod:`rocarray._numpy.gemm_route`
  (zero-copy layout mapping; operands are cast to the result dtype first when NumPy would, which
  copies); float16 accumulates in float32 on the matrix units;
* every other result dtype (integers, bool) is computed by the CuPy function of the same name on
  operands cast to NumPy's result dtype — CuPy implements NumPy's semantics.

1-D ``dot`` of two vectors keeps :mod:`rocarray._numpy.vector_products`'s ``rocblas.dot`` kernel. ``outer``
and ``kron`` are elementwise products (no sum: a GEMM would add nothing), computed by
``cupy.multiply`` on broadcast views, exactly as NumPy defines them. ``trace`` is a strided
diagonal view summed by rocarray's prim reduction (:func:`rocarray.sum`, NumPy's dtype rules).
"""

import operator

import numpy

from rocarray._numpy import gemm_route as _route
from rocarray._core import backend, plans
from rocarray._core.args import as_device_array, normalize_axis

_SIGNATURE = "(n?,k),(k,m?)->(n?,m?)"


# --------------------------------------------------------------------------------------------
# pure-Python rules (shapes, dtypes, errors), tested without a device
# --------------------------------------------------------------------------------------------

def _core_mismatch(operand, dim, got, want, kind="Input"):
    return ValueError(
        f"matmul: {kind} operand {operand} has a mismatch in its core dimension {dim}, with gufunc "
        f"signature {_SIGNATURE} (size {got} is different from {want})"
    )


def _fmt(shape):
    return "(" + ",".join(str(d) for d in shape) + ")"


def matmul_shapes(a_shape, b_shape, out_shape=None):
    """NumPy's shape rules for ``matmul``: ``(loop, m, k, n, result_shape)``.

    ``loop`` is the broadcast of the operands' loop (batch) dimensions together with those of
    ``out`` (NumPy lets ``out`` add leading loop dimensions); ``m``/``n`` are None for a 1-D
    ``a``/``b`` (the axis is removed from the result). Raises NumPy's ValueErrors.
    """
    a_shape, b_shape = tuple(a_shape), tuple(b_shape)
    for i, shape in enumerate((a_shape, b_shape)):
        if len(shape) == 0:
            raise ValueError(
                f"matmul: Input operand {i} does not have enough dimensions (has 0, gufunc core with "
                f"signature {_SIGNATURE} requires 1)"
            )
    m, ka = (None, a_shape[0]) if len(a_shape) == 1 else a_shape[-2:]
    kb, n = (b_shape[0], None) if len(b_shape) == 1 else b_shape[-2:]
    if ka != kb:
        raise _core_mismatch(1, 0, kb, ka)
    la, lb = tuple(a_shape[:-2]), tuple(b_shape[:-2])
    core = tuple(d for d in (m, n) if d is not None)
    try:  # (equal loops, the common stack, skip numpy's general and slow broadcast)
        loop = la if la == lb else tuple(numpy.broadcast_shapes(la, lb))
    except ValueError:
        raise ValueError(
            "operands could not be broadcast together with remapped shapes [original->remapped]: "
            f"{_fmt(a_shape)}->{_fmt(la)} {_fmt(b_shape)}->{_fmt(lb)}  and requested shape {_fmt(core)}"
        ) from None
    if out_shape is not None:
        out_shape = tuple(out_shape)
        if len(out_shape) < len(core):
            raise ValueError(
                f"matmul: Output operand 0 does not have enough dimensions (has {len(out_shape)}, gufunc "
                f"core with signature {_SIGNATURE} requires {len(core)})"
            )
        out_core = out_shape[len(out_shape) - len(core):]
        for dim, (got, want) in enumerate(zip(out_core, core)):
            if got != want:
                raise _core_mismatch(0, dim, got, want, kind="Output")
        out_loop = out_shape[:len(out_shape) - len(core)]
        try:
            full = out_loop if out_loop == loop else tuple(numpy.broadcast_shapes(loop, out_loop))
        except ValueError:
            full = None
        if full != out_loop:
            raise ValueError(
                f"non-broadcastable output operand with shape {_fmt(out_shape)} doesn't match the "
                f"broadcast shape {_fmt(loop + core)}"
            )
        loop = out_loop
    return loop, m, ka, n, loop + core


def ufunc_dtype(name, dtypes, dtype=None, casting="same_kind", out_dtype=None):
    """The loop dtype NumPy's ufunc ``name`` picks for ``dtypes`` (raising NumPy's exact errors).

    NumPy itself is asked, on 0-size host arrays: promotion, ``dtype=``, ``casting=`` and the
    output casting check (``out_dtype``) are therefore exactly NumPy's, exceptions included
    (``numpy._core._exceptions._UFuncInputCastingError`` etc., subclasses of TypeError).
    """
    ufunc = getattr(numpy, name)
    args = [numpy.empty((0, 0), d) for d in dtypes]
    kw = {"casting": casting}
    if dtype is not None:
        kw["dtype"] = dtype
    result = ufunc(*args, **kw)
    if out_dtype is not None:
        ufunc(*args, out=numpy.empty(result.shape, out_dtype), **kw)
    return result.dtype


def dot_shapes(a_shape, b_shape):
    """NumPy's ``dot`` rule for ``a.ndim >= 1``, ``b.ndim >= 1``: ``(k, result_shape)``.

    ``dot(a, b)[i, j, k, m] = sum(a[i, j, :] * b[k, :, m])``: ``a``'s last axis against ``b``'s
    second-to-last (its only one when 1-D). Raises NumPy's "not aligned" ValueError.
    """
    ia = len(a_shape) - 1
    ib = max(len(b_shape) - 2, 0)
    if a_shape[ia] != b_shape[ib]:
        raise ValueError(
            f"shapes {_fmt(a_shape)} and {_fmt(b_shape)} not aligned: {a_shape[ia]} (dim {ia}) != "
            f"{b_shape[ib]} (dim {ib})"
        )
    return a_shape[ia], tuple(a_shape[:-1]) + tuple(b_shape[:ib]) + tuple(b_shape[ib + 1:])


def tensordot_axes(axes, a_ndim, b_ndim):
    """``tensordot``'s ``axes`` (int N or a pair) as two lists of non-negative axes, NumPy's rules."""
    try:
        iter(axes)
    except TypeError:
        n = operator.index(axes)
        axes_a = list(range(a_ndim - n, a_ndim)) if n > 0 else []
        axes_b = list(range(0, n)) if n > 0 else []
        if n > min(a_ndim, b_ndim):
            raise ValueError("shape-mismatch for sum")
    else:
        axes_a, axes_b = axes
        axes_a = [operator.index(x) for x in (axes_a if _is_seq(axes_a) else [axes_a])]
        axes_b = [operator.index(x) for x in (axes_b if _is_seq(axes_b) else [axes_b])]
    if len(axes_a) != len(axes_b):
        raise ValueError("shape-mismatch for sum")
    axes_a = [normalize_axis(x, a_ndim) for x in axes_a]
    axes_b = [normalize_axis(x, b_ndim) for x in axes_b]
    return axes_a, axes_b


def _is_seq(x):
    try:
        iter(x)
    except TypeError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# device helpers
# --------------------------------------------------------------------------------------------

def _cast(x, dtype):
    return x if x.dtype == dtype else x.astype(dtype)


def _writable_into(cupy, out, shape, dtype, inputs):
    """Whether a GEMM result can be written straight into ``out`` (else a temporary is copied in)."""
    return (out.dtype == dtype and tuple(out.shape) == tuple(shape) and out.flags.c_contiguous
            and not any(cupy.may_share_memory(out, x) for x in inputs))


def as_matrix_view(cupy, x, rows, cols):
    """``x`` with axes ``rows + cols`` (lists) as a ``(prod rows, prod cols)`` view, else a copy.

    The view exists when each group merges into one stride (what ``reshape`` needs); otherwise the
    permuted array is made C-contiguous first (one copy, noted by the callers' docs).
    """
    shape, strides = x.shape, x.strides
    sizes = [int(numpy.prod([shape[ax] for ax in group], dtype=numpy.int64)) for group in (rows, cols)]
    out_strides = []
    for group in (rows, cols):
        merged = _route.merge_loops([shape[ax] for ax in group], [strides[ax] for ax in group])
        if len(merged) > 1:
            # the group's axes do not merge into one stride: one C-contiguous copy of the permuted array
            return cupy.ascontiguousarray(x.transpose(list(rows) + list(cols))).reshape(sizes)
        out_strides.append(merged[0][1][0] if merged else x.dtype.itemsize)
    return cupy.lib.stride_tricks.as_strided(x, tuple(sizes), tuple(out_strides))


def _finish(cupy, result, out):
    """Copy ``result`` into ``out`` (checked) and return ``out``; or return ``result``."""
    if out is None or result is out:
        return result if out is None else out
    out[...] = result
    return out


def _check_out_array(cupy, out):
    if not isinstance(out, cupy.ndarray):
        if isinstance(out, numpy.ndarray):
            as_device_array(out, "out")  # the project's host-array TypeError
        raise TypeError("return arrays must be of ArrayType")
    return out


# --------------------------------------------------------------------------------------------
# matmul
# --------------------------------------------------------------------------------------------

def _signature(a_shape, a_dtype, b_shape, b_dtype, out_shape, out_dtype, dtype, casting):
    """``(m, n, result_shape, loop dtype, whether GEMM takes it)`` of a matmul call: NumPy's shape
    and dtype rules (:func:`matmul_shapes`, :func:`ufunc_dtype`) for one call signature."""
    _, m, _, n, result_shape = matmul_shapes(a_shape, b_shape, out_shape)
    dt = ufunc_dtype("matmul", (a_dtype, b_dtype), dtype, casting, out_dtype)
    return m, n, result_shape, dt, _route.gemm_takes(dt)


def _gemm_result(a, b, dt, out, result_shape, m, n):
    """``a @ b`` in ``dt`` on rocblas GEMM, written into ``out`` when possible; returns the result."""
    cupy = backend.cupy()
    a2 = a if m is not None else a.reshape((1,) + a.shape)
    b2 = b if n is not None else b.reshape(b.shape + (1,))
    a2, b2 = _cast(a2, dt), _cast(b2, dt)
    ncore = (m is not None) + (n is not None)
    loop = tuple(result_shape[:len(result_shape) - ncore])  # includes extra loop dims of out
    core = tuple(result_shape[len(result_shape) - ncore:])
    if out is not None and _writable_into(cupy, out, result_shape, dt, (a, b)):
        _route.matmul_stack(a2, b2, out.reshape(loop + (a2.shape[-2], b2.shape[-1])), loop=loop)
        return out
    r = _route.matmul_stack(a2, b2)  # the operands' own loop; broadcast into out by _finish
    shape = r.shape[:-2] + core
    return r if shape == r.shape else r.reshape(shape)


def matmul(x1, x2, /, out=None, *, casting="same_kind", order="K", dtype=None, subok=True):
    """Matrix product of two arrays (``numpy.matmul``).

    NumPy's semantics: stacks of matrices in the last two axes with broadcast loop (batch)
    dimensions; a 1-D first operand is a row vector and a 1-D second operand a column vector, the
    added axis removed from the result; scalars raise ValueError; ``out`` may add leading loop
    dimensions; ``dtype`` and ``casting`` select and check the loop dtype as NumPy does.

    Float16/float32/float64/complex64/complex128 results run on rocarray's ``rocblas.gemm`` (one
    matrix) or ``rocblas.gemm_strided_batched`` (stacks) without copying C-ordered, transposed or
    row-/column-sliced operands (see :mod:`rocarray._numpy.gemm_route` for the layout mapping and the
    cases that copy). Integer and bool results are computed by ``cupy.matmul``.

    Parameters
    ----------
    x1, x2 : cupy.ndarray
        Device arrays (host NumPy arrays are rejected), at least 1-D.
    out : cupy.ndarray, optional
        Destination with the result's shape (or extra leading loop dimensions); the result is cast
        into it under ``casting``.
    casting : {'no', 'equiv', 'safe', 'same_kind', 'unsafe'}, optional
        As for NumPy ufuncs.
    order : {'K', 'C', 'F', 'A'}, optional
        Accepted for NumPy compatibility; results are C-contiguous.
    dtype : dtype, optional
        The loop dtype (inputs are cast to it under ``casting``).
    subok : bool, optional
        Accepted for NumPy compatibility.

    Returns
    -------
    cupy.ndarray
        The product (a 0-d device array for two 1-D operands), or ``out``.

    Raises
    ------
    TypeError
        Host arrays, or casts ``casting`` does not allow (NumPy's UFuncTypeError subclasses).
    ValueError
        0-d operands, core dimensions that differ, loop dimensions that do not broadcast, or an
        ``out`` of the wrong shape.

    See Also
    --------
    dot, einsum, rocarray.rocblas.gemm

    Examples
    --------
    >>> a = ra.ones((2, 3, 4)); b = ra.ones((4, 5))   # doctest: +SKIP
    >>> ra.matmul(a, b).shape                          # doctest: +SKIP
    (2, 3, 5)
    """
    cupy = backend.cupy()
    a = as_device_array(x1, "x1", allow_scalar=True)
    b = as_device_array(x2, "x2", allow_scalar=True)
    if out is not None:
        _check_out_array(cupy, out)
    out_shape, out_dtype = (None, None) if out is None else (out.shape, out.dtype)
    # NumPy's rules once per call signature (errors are not kept): a repeated product pays one lookup
    key = ("numpy.matmul", a.shape, a.dtype, b.shape, b.dtype, out_shape, out_dtype, dtype, casting)
    m, n, result_shape, dt, gemm = plans.cache.lookup(
        key, lambda: _signature(a.shape, a.dtype, b.shape, b.dtype, out_shape, out_dtype, dtype, casting))
    if gemm:
        result = _gemm_result(a, b, dt, out, result_shape, m, n)
    else:
        result = cupy.matmul(_cast(a, dt), _cast(b, dt))
    return _finish(cupy, result, out)


# --------------------------------------------------------------------------------------------
# dot, tensordot
# --------------------------------------------------------------------------------------------

def _dot_out(cupy, out, shape, dtype):
    """NumPy's ``dot(..., out=)`` rule: exactly the result's dtype and shape, C-contiguous."""
    if not isinstance(out, cupy.ndarray):
        if isinstance(out, numpy.ndarray):
            as_device_array(out, "out")  # the project's host-array TypeError
        raise TypeError("'out' must be an array")
    if out.dtype != dtype or tuple(out.shape) != tuple(shape) or not out.flags.c_contiguous:
        raise ValueError(
            "output array is not acceptable (must have the right datatype, number of dimensions, "
            "and be a C-Array)"
        )
    return out


def _contract_2d(cupy, a, rows_a, sum_a, b, sum_b, cols_b, dt, out_shape, out=None):
    """``sum over sum axes of a * b`` as one GEMM: a (rows_a, sum_a) x b (sum_b, cols_b) -> out_shape."""
    A = as_matrix_view(cupy, _cast(a, dt), rows_a, sum_a)
    B = as_matrix_view(cupy, _cast(b, dt), sum_b, cols_b)
    if out is not None and _writable_into(cupy, out, out_shape, dt, (a, b)):
        _route.matmul_stack(A, B, out.reshape(A.shape[0], B.shape[1]))
        return out
    return _route.matmul_stack(A, B).reshape(out_shape)


def dot(a, b, out=None):
    """Dot product of two arrays (``numpy.dot``), N-D included.

    ``dot(a, b)[i, j, k, m] = sum(a[i, j, :] * b[k, :, m])``. Two 1-D float/complex vectors use
    rocarray's ``rocblas.dot`` kernel (:func:`rocarray._numpy.vector_products.dot`); 2-D and N-D float/complex
    products are one ``rocblas.gemm`` on ``a`` viewed as ``(prod a.shape[:-1], k)`` and ``b``
    viewed as ``(k, prod of b's other axes)`` — views when the axes merge (C-ordered and transposed
    2-D operands always do), one contiguous copy otherwise. A 0-d operand is an elementwise
    multiply; integer and bool results go to ``cupy.dot``.

    Parameters
    ----------
    a, b : cupy.ndarray or scalar
        Device arrays (host NumPy arrays are rejected) or scalars.
    out : cupy.ndarray, optional
        Exactly the result's dtype and shape, C-contiguous (NumPy's rule).

    Returns
    -------
    cupy.ndarray
        The product (0-d for two vectors), or ``out``.

    Raises
    ------
    TypeError
        A host (NumPy) array or another non-device object.
    ValueError
        Summed dimensions that differ ("shapes ... not aligned"), or an unacceptable ``out``.

    See Also
    --------
    matmul, tensordot, vdot

    Examples
    --------
    >>> ra.dot(ra.ones((2, 3)), ra.ones((3, 4))).shape   # doctest: +SKIP
    (2, 4)
    """
    from rocarray._numpy import vector_products

    cupy = backend.cupy()
    a = as_device_array(a, "a", allow_scalar=True)
    b = as_device_array(b, "b", allow_scalar=True)
    if a.ndim <= 1 and b.ndim <= 1 and not (a.ndim == 0 or b.ndim == 0):
        return vector_products.dot(a, b, out=out)
    dt = numpy.result_type(a.dtype, b.dtype)
    if a.ndim == 0 or b.ndim == 0:
        shape = numpy.broadcast_shapes(a.shape, b.shape)
        if out is not None:
            _dot_out(cupy, out, shape, dt)
        return cupy.multiply(_cast(a, dt), _cast(b, dt), out=out)
    k, shape = dot_shapes(a.shape, b.shape)
    if out is not None:
        _dot_out(cupy, out, shape, dt)
    if not _route.gemm_takes(dt):
        return cupy.dot(a, b, out=out)
    ib = max(b.ndim - 2, 0)
    rows_a = list(range(a.ndim - 1))
    cols_b = [i for i in range(b.ndim) if i != ib]
    result = _contract_2d(cupy, a, rows_a, [a.ndim - 1], b, [ib], cols_b, dt, shape, out)
    return _finish(cupy, result, out)


def tensordot(a, b, axes=2):
    """Tensor dot product over the given axes (``numpy.tensordot``).

    ``axes`` is an int N (the last N axes of ``a`` against the first N of ``b``) or a pair of axis
    sequences (or ints). The summed axes are gathered and the rest kept as in NumPy (``a``'s free
    axes, then ``b``'s); the product is one GEMM on ``(free_a, summed)`` and ``(summed, free_b)``
    matrix views of the operands (a contiguous copy of an operand whose axes do not merge into a
    matrix view). Integer and bool results go to ``cupy.tensordot``.

    Parameters
    ----------
    a, b : cupy.ndarray
        Device arrays (host NumPy arrays are rejected).
    axes : int or (sequence, sequence), optional
        Axes to sum over (default 2).

    Returns
    -------
    cupy.ndarray
        Shape ``a``'s free axes + ``b``'s free axes, NumPy's result dtype.

    Raises
    ------
    TypeError
        A host (NumPy) array or another non-device object.
    ValueError
        "shape-mismatch for sum": different numbers of axes or summed dimensions that differ.
    numpy.exceptions.AxisError
        An axis out of range.

    See Also
    --------
    dot, einsum

    Examples
    --------
    >>> ra.tensordot(ra.ones((3, 4, 5)), ra.ones((4, 3, 2)), axes=([1, 0], [0, 1])).shape  # doctest: +SKIP
    (5, 2)
    """
    cupy = backend.cupy()
    a = as_device_array(a, "a", allow_scalar=True)
    b = as_device_array(b, "b", allow_scalar=True)
    axes_a, axes_b = tensordot_axes(axes, a.ndim, b.ndim)
    if any(a.shape[i] != b.shape[j] for i, j in zip(axes_a, axes_b)):
        raise ValueError("shape-mismatch for sum")
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[i] for i in free_b)
    dt = numpy.result_type(a.dtype, b.dtype)
    if not _route.gemm_takes(dt):
        return cupy.tensordot(a, b, axes=axes)
    return _contract_2d(cupy, a, free_a, axes_a, b, axes_b, free_b, dt, shape)


# --------------------------------------------------------------------------------------------
# outer, kron (elementwise products)
# --------------------------------------------------------------------------------------------

def outer(a, b, out=None):
    """Outer product of two flattened arrays (``numpy.outer``).

    ``out[i, j] = a.ravel()[i] * b.ravel()[j]``: NumPy's definition, ``multiply`` of broadcast
    views, computed by ``cupy.multiply`` (no summation, so no GEMM: it is a write-bound
    elementwise product). Dtype rules and ``out`` are ``multiply``'s.

    Parameters
    ----------
    a, b : cupy.ndarray or scalar
        Device arrays (host NumPy arrays are rejected) or scalars; flattened.
    out : cupy.ndarray, optional
        ``(a.size, b.size)`` destination.

    Returns
    -------
    cupy.ndarray
        ``(a.size, b.size)``.

    See Also
    --------
    kron, einsum

    Examples
    --------
    >>> ra.outer(ra.arange(3), ra.arange(2)).shape   # doctest: +SKIP
    (3, 2)
    """
    cupy = backend.cupy()
    a = as_device_array(a, "a", allow_scalar=True)
    b = as_device_array(b, "b", allow_scalar=True)
    if out is not None:
        _check_out_array(cupy, out)
    dt = numpy.result_type(a.dtype, b.dtype)
    return cupy.multiply(_cast(a, dt).ravel()[:, None], _cast(b, dt).ravel()[None, :], out=out)


def kron(a, b):
    """Kronecker product (``numpy.kron``).

    The operands are padded with leading unit axes to the same number of dimensions; the result
    is ``multiply`` of the interleaved broadcast views (``a`` on even axes, ``b`` on odd ones)
    reshaped to ``a.shape * b.shape``, NumPy's definition, computed by ``cupy.multiply``
    (an elementwise product, no GEMM). Dtype rules are ``multiply``'s.

    Parameters
    ----------
    a, b : cupy.ndarray or scalar
        Device arrays (host NumPy arrays are rejected) or scalars.

    Returns
    -------
    cupy.ndarray
        Shape ``a.shape[i] * b.shape[i]`` per (padded) axis.

    See Also
    --------
    outer

    Examples
    --------
    >>> ra.kron(ra.eye(2), ra.ones((2, 2))).shape   # doctest: +SKIP
    (4, 4)
    """
    cupy = backend.cupy()
    a = as_device_array(a, "a", allow_scalar=True)
    b = as_device_array(b, "b", allow_scalar=True)
    dt = numpy.result_type(a.dtype, b.dtype)
    a, b = _cast(a, dt), _cast(b, dt)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    ea = a.reshape(tuple(x for d in sa for x in (d, 1)))
    eb = b.reshape(tuple(x for d in sb for x in (1, d)))
    return cupy.multiply(ea, eb).reshape(tuple(p * q for p, q in zip(sa, sb)))


# --------------------------------------------------------------------------------------------
# trace
# --------------------------------------------------------------------------------------------

def _trace_axis(axis, ndim, name):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise numpy.exceptions.AxisError(axis, ndim, name)
    return axis % ndim


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum along a diagonal (``numpy.trace``).

    A strided diagonal view (``a.diagonal(offset, axis1, axis2)``, no copy) summed over its last
    axis by rocarray's prim reduction (:func:`rocarray.sum`), so the dtype rules are NumPy's: bool
    and signed integers smaller than the platform integer accumulate in int64, small unsigned
    integers in uint64, floats in their own dtype, unless ``dtype`` is given; ``out`` as for
    ``sum``.

    Parameters
    ----------
    a : cupy.ndarray
        At least 2-D device array (host NumPy arrays are rejected).
    offset : int, optional
        Diagonal offset (positive: above the main diagonal).
    axis1, axis2 : int, optional
        The axes of the 2-D sub-arrays.
    dtype : dtype, optional
        Accumulator and result dtype.
    out : cupy.ndarray, optional
        Destination of shape ``a.shape`` without ``axis1`` and ``axis2``.

    Returns
    -------
    cupy.ndarray
        0-d for a 2-D ``a``; otherwise the traces of the sub-arrays.

    Raises
    ------
    TypeError
        A host (NumPy) array or another non-device object.
    ValueError
        ``a`` with fewer than 2 dimensions, or ``axis1 == axis2``.
    numpy.exceptions.AxisError
        An axis out of range.

    See Also
    --------
    rocarray.sum

    Examples
    --------
    >>> ra.trace(ra.eye(3))   # doctest: +SKIP
    array(3.)
    """
    from rocarray._numpy.reductions import sum as _sum

    a = as_device_array(a, "a")
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    ax1, ax2 = _trace_axis(axis1, a.ndim, "axis1"), _trace_axis(axis2, a.ndim, "axis2")
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 cannot be the same")
    diag = a.diagonal(operator.index(offset), ax1, ax2)
    return _sum(diag, axis=-1, dtype=dtype, out=out)
