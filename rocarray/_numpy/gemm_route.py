"""Stacks of row-major (NumPy) matrix products mapped onto rocblas' column-major GEMM, without copies.

The façade's products (``matmul``, ``dot``, ``tensordot``, ``einsum``, ``multi_dot``,
``matrix_power``) end here once their operands are device arrays of one kernel dtype shaped
``loop + (m, k)`` and ``loop + (k, n)`` (the loop shapes broadcast against each other).

Layout mapping (the one idea in this module). rocBLAS is column-major: element ``(i, j)`` of a matrix
with leading dimension ``ld`` is buffer element ``i + j * ld``. A NumPy matrix ``X`` (``r x c``,
element strides ``s0, s1``) therefore *is*, without moving a byte,

* the column-major ``c x r`` matrix ``X^T`` with ``ld = s0`` when ``s1 == 1`` (row-major rows), or
* the column-major ``r x c`` matrix ``X`` with ``ld = s1`` when ``s0 == 1`` (a transposed view).

The result ``C = A B`` is written C-contiguous, i.e. as the column-major ``n x m`` matrix ``C^T``
with ``ldc = n``, so every product is computed as ``C^T = B^T A^T``: rocblas' ``A`` operand is our
``b`` (``op = 'N'`` when ``b`` has row-major rows, ``'T'`` when it is a transposed view) and
rocblas' ``B`` operand is our ``a`` (likewise). No conjugation is ever involved (matmul does not
conjugate), so ``'C'`` is never used.

Stacks: the loop dimensions of ``a``, ``b`` and ``C`` are merged where all three allow it (a
constant stride across the merged dims; broadcast dims have stride 0, which rocBLAS' strided
batched GEMM accepts); the largest merged dimension becomes ``batch_count`` of one
``rocblas.gemm_strided_batched`` call and any other merged dimensions are looped over in Python
(one launch each; e.g. ``(2, 1, m, k) @ (1, 3, k, n)`` runs 2 launches of batch 3, copying nothing).

Copies (``cupy.ascontiguousarray``) happen only when a matrix has unit stride on neither of its
two axes (e.g. ``x[::2, ::2]``), has a negative or a zero stride in a matrix axis (reversed or
broadcast rows/columns), has negative loop strides, or has strides that are not a multiple of the
itemsize; the copy is taken *before* broadcasting, so a broadcast operand is never materialized.

Launches: the arguments this module builds are valid by construction, so on one device it calls
the launches underneath the public functions (``rocblas._gemm.batched.launch_checked`` for stacks,
``rocblas._gemm.api.launch_checked`` for single products) rather than the checked functions
themselves: host time (the checks and three buffer views cost more than a small product's
kernel). Operands on different devices take the public calls, which raise their error. The
mapping itself (copies, options, leading dimensions, merged loops, launch offsets) depends only
on the operands' shapes and strides, so it is worked out once per signature (:func:`_layout`, kept in
the plan cache): a repeated product pays a lookup and its launches.
"""

import itertools
import math
import typing

import numpy

from rocarray import rocblas
from rocarray._core import backend, plans
from rocarray.rocblas._gemm import api as _gemm_api, batched as _gemm_batched

#: Result dtypes ``rocblas.gemm`` and ``rocblas.gemm_strided_batched`` take (float16 on the matrix units).
GEMM_DTYPES = frozenset(numpy.dtype(d) for d in ("float16", "float32", "float64", "complex64", "complex128"))


def gemm_takes(dtype):
    """Whether the products of ``dtype`` run on rocblas GEMM (else the CuPy function of the same name)."""
    return numpy.dtype(dtype) in GEMM_DTYPES


# --------------------------------------------------------------------------------------------
# layout (pure Python on shapes and element strides)
# --------------------------------------------------------------------------------------------

def _unchecked_launch(single):
    """The launch underneath the public function of single products (``single``) or of stacks, for
    arguments valid by construction (:func:`rocarray.rocblas._gemm.api.launch_checked`,
    :func:`rocarray.rocblas._gemm.batched.launch_checked`)."""
    return _gemm_api.launch_checked if single else _gemm_batched.launch_checked


def transposed_operand(rows, cols, s0, s1):
    """``(trans, ld)`` such that the column-major ``op(X)`` is ``X^T``, or None if a copy is needed.

    ``X`` is a NumPy ``rows x cols`` matrix with element strides ``(s0, s1)`` starting at the
    buffer's first element. ``'N'``: the buffer read column-major as ``cols x rows`` with
    ``ld = s0`` is ``X^T`` (needs ``s1 == 1``). ``'T'``: read as ``rows x cols`` with ``ld = s1`` it
    is ``X``, so ``op = 'T'`` gives ``X^T`` (needs ``s0 == 1``). Size-1 axes have no stride to
    respect (CuPy gives them any stride, often 0); ``ld`` must be at least ``max(1, stored rows)``.
    Empty matrices (``rows`` or ``cols`` 0) are never launched; they get the minimal ``ld``.
    """
    if rows == 0 or cols == 0:
        return "N", max(1, cols)
    if s1 == 1 or cols == 1:
        ld = s0 if rows > 1 else max(1, cols)
        if ld >= max(1, cols):
            return "N", ld
    if s0 == 1 or rows == 1:
        ld = s1 if cols > 1 else max(1, rows)
        if ld >= max(1, rows):
            return "T", ld
    return None


def element_strides(x):
    """Strides of ``x`` in elements, or None when one is not a multiple of the itemsize."""
    return _in_elements(x.strides, x.dtype.itemsize)


def _in_elements(strides, itemsize):
    if any(s % itemsize for s in strides):
        return None
    return tuple(s // itemsize for s in strides)


def matrix_fits(x):
    """Whether the last two axes of ``x`` map onto a GEMM operand without a copy (loop strides >= 0)."""
    return _fits(x.shape, element_strides(x))


def _fits(shape, strides):
    """:func:`matrix_fits` on a shape and its element strides (None: not whole elements)."""
    if strides is None:
        return False
    if any(s < 0 and d > 1 for s, d in zip(strides[:-2], shape[:-2])):
        return False
    r, c = shape[-2:]
    return transposed_operand(r, c, strides[-2], strides[-1]) is not None


def merge_loops(shape, *strides):
    """Merge loop dims that every operand walks with one stride: ``[(size, (s_a, s_b, ...)), ...]``.

    Size-1 dims are dropped; dims ``i, i+1`` merge when ``strides[i] == strides[i+1] * shape[i+1]``
    for every operand. Returns the merged dims outermost first (empty for a single matrix).
    """
    dims = [(d, tuple(s[i] for s in strides)) for i, d in enumerate(shape) if d != 1]
    merged = []
    for d, st in dims:
        if merged:
            pd, pst = merged[-1]
            if all(p == q * d for p, q in zip(pst, st)):
                merged[-1] = (pd * d, st)
                continue
        merged.append((d, st))
    return merged


def split_batch(merged):
    """``(batch, outer)``: the largest merged dim runs as one batched launch, the rest are looped."""
    if not merged:
        return (1, None), []
    i = max(range(len(merged)), key=lambda j: merged[j][0])
    return merged[i], merged[:i] + merged[i + 1:]


def _extent(shape, strides):
    """Elements from the first to the last one of a view with non-negative strides (0 if empty)."""
    if any(d == 0 for d in shape):
        return 0
    return 1 + sum((d - 1) * s for d, s in zip(shape, strides) if d > 1)


# --------------------------------------------------------------------------------------------
# launching
# --------------------------------------------------------------------------------------------

def _buffer(cupy, x, offset, length):
    """1-D view of ``length`` elements of ``x``'s memory starting ``offset`` elements after x's start."""
    ptr = x.data + offset * x.dtype.itemsize
    return cupy.ndarray((max(length, 0),), x.dtype, memptr=ptr)


def _gemm(cupy, dt, call, batch, a, b, c, offs):
    """One (batched) GEMM ``C^T = B^T A^T`` for the matrices at element offsets ``offs``."""
    (m, k), n = a.shape[-2:], b.shape[-1]
    (ta, lda, ea), (tb, ldb, eb) = call
    count, (sa, sb, sc) = batch
    one, zero = 1, 0
    launch = _unchecked_launch(count == 1)
    if launch is not None and a.data.device_id == b.data.device_id == c.data.device_id:
        # valid by construction: no checks, no buffer views (host time); other devices: the public
        # call's error
        size = dt.itemsize
        pa, pb, pc = a.data + offs[0] * size, b.data + offs[1] * size, c.data + offs[2] * size
        if count > 1:
            launch(dt, tb, ta, n, m, k, one, pb, ldb, sb, pa, lda, sa, zero, pc, n, sc, count)
        else:
            launch(dt, tb, ta, n, m, k, pb, ldb, pa, lda, pc, n)
        return
    A = _buffer(cupy, a, offs[0], ea + (count - 1) * sa)
    B = _buffer(cupy, b, offs[1], eb + (count - 1) * sb)
    C = _buffer(cupy, c, offs[2], m * n + (count - 1) * sc)
    if count == 1:
        rocblas.gemm(tb, ta, n, m, k, one, B, ldb, A, lda, zero, C, n)
    else:
        rocblas.gemm_strided_batched(tb, ta, n, m, k, one, B, ldb, sb, A, lda, sa, zero, C, n, sc, count)


def _operand(cupy, x):
    """``x`` itself when its matrices map onto GEMM without a copy, else a C-contiguous copy."""
    if matrix_fits(x):
        return x
    # unit stride on neither matrix axis, reversed/broadcast matrix axes or negative loop strides:
    # one C-contiguous copy (before broadcasting, so it is the size of the operand itself)
    return cupy.ascontiguousarray(x)


class _Layout(typing.NamedTuple):
    """How one ``matmul_stack`` layout runs: the result's shape and sizes, and either
    ``copies`` (an operand must be copied C-contiguous first), no launch (an empty product), or
    the GEMM arguments (``call``, ``batch``) and the element offsets ``(a, b, c)`` of each launch
    (``offsets`` None: more than :data:`_KEPT_OFFSETS` launches, walked from ``outer``)."""

    shape: tuple
    k: int
    copies: bool = False
    call: tuple = None
    batch: tuple = None
    offsets: tuple = ()
    outer: tuple = ()


#: Most launch offsets a memoized layout keeps (more are generated per call from the looped dims).
_KEPT_OFFSETS = 4096


def _outer_offsets(outer):
    """Element offsets ``(a, b, c)`` of every index of the looped (not batched) dims ``outer``."""
    for index in itertools.product(*(range(d) for d, _ in outer)):
        yield tuple(sum(i * st[j] for i, (_, st) in zip(index, outer)) for j in range(3))


def _c_strides(shape):
    """Element strides of a C-contiguous array of ``shape``."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return tuple(reversed(strides))


def _broadcast_strides(shape, strides, target):
    """Element strides of ``shape``/``strides`` broadcast to ``target`` (0 on every broadcast axis)."""
    pad = len(target) - len(shape)
    return (0,) * pad + tuple(0 if d == 1 and t != 1 else s
                              for d, s, t in zip(shape, strides, target[pad:]))


def _layout(itemsize, a_shape, a_strides, b_shape, b_strides, loop, out_strides):
    """The :class:`_Layout` of ``a @ b`` from shapes and byte strides (``out_strides`` None: a new
    C-contiguous result), kept in the plan cache: a repeated product pays one lookup for it."""
    key = ("numpy.matmul.layout", itemsize, a_shape, a_strides, b_shape, b_strides, loop, out_strides)
    layout = plans.cache.get(key)  # (a key of ints and tuples: always hashable)
    if layout is None:
        layout = plans.cache.put(key, _plan_layout(itemsize, a_shape, a_strides, b_shape, b_strides, loop,
                                                   out_strides))
    return layout


def _plan_layout(itemsize, a_shape, a_strides, b_shape, b_strides, loop, out_strides):
    (m, k), n = a_shape[-2:], b_shape[-1]
    la, lb = a_shape[:-2], b_shape[:-2]
    # equal loops (the common stack) need no broadcasting
    loop = la if la == lb and loop in ((), la) else tuple(numpy.broadcast_shapes(la, lb, loop))
    shape = loop + (m, n)
    if k == 0 or 0 in shape:
        return _Layout(shape, k)
    sa, sb = _in_elements(a_strides, itemsize), _in_elements(b_strides, itemsize)
    if not (_fits(a_shape, sa) and _fits(b_shape, sb)):
        return _Layout(shape, k, copies=True)
    sa = _broadcast_strides(a_shape, sa, loop + (m, k))
    sb = _broadcast_strides(b_shape, sb, loop + (k, n))
    sc = _c_strides(shape) if out_strides is None else _in_elements(out_strides, itemsize)
    call = []
    for (r, c), s in (((m, k), sa), ((k, n), sb)):
        trans, ld = transposed_operand(r, c, s[-2], s[-1])
        call.append((trans, ld, _extent((r, c), (s[-2], s[-1]))))
    merged = merge_loops(loop, sa[:-2], sb[:-2], sc[:-2])
    batch, outer = split_batch(merged)
    if batch[1] is None:
        batch = (1, (0, 0, 0))
    launches = math.prod(d for d, _ in outer)
    offsets = tuple(_outer_offsets(outer)) if launches <= _KEPT_OFFSETS else None
    return _Layout(shape, k, call=tuple(call), batch=batch, offsets=offsets, outer=tuple(outer))


def matmul_stack(a, b, out=None, loop=()):
    """``a @ b`` for device arrays of one GEMM dtype, ``a``: ``la + (m, k)``, ``b``: ``lb + (k, n)``.

    ``la``, ``lb`` and ``loop`` broadcast (checked by the caller). Returns a new C-contiguous array
    of shape ``broadcast(la, lb, loop) + (m, n)``, or writes into ``out`` when given (a C-contiguous
    array of exactly that shape and dtype that overlaps neither input: the caller checks).
    """
    cupy = backend.cupy()
    dt = a.dtype
    loop = tuple(loop)
    out_strides = None if out is None else out.strides
    layout = _layout(dt.itemsize, a.shape, a.strides, b.shape, b.strides, loop, out_strides)
    if layout.copies:
        # the copy is taken before broadcasting, so it is the size of the operand itself
        a, b = _operand(cupy, a), _operand(cupy, b)
        layout = _layout(dt.itemsize, a.shape, a.strides, b.shape, b.strides, loop, out_strides)
    shape, k = layout.shape, layout.k
    if out is None:
        out = cupy.empty(shape, dt) if k > 0 or 0 in shape else cupy.zeros(shape, dt)
    elif k == 0 and 0 not in shape:
        out[...] = 0  # an empty sum: NumPy's zeros (no launch with k == 0 needed)
    offsets = layout.offsets if layout.offsets is not None else _outer_offsets(layout.outer)
    for offs in offsets:
        _gemm(cupy, dt, layout.call, layout.batch, a, b, out, offs)
    return out
