"""Reductions on hand-written HIP kernels (``_kernels/prim/reduce.hip``).

Public functions
----------------
``reduce(x, *, op, axis=None, dtype=None, out=None, keepdims=False, nan=False)``
    ``op`` is ``"add"``, ``"mul"``, ``"min"``, ``"max"`` or ``"nnz"`` (count of nonzeros, int64).
    ``axis`` is None (all axes), an int or a tuple of ints (already valid: the façade normalizes).
    ``nan=True`` skips NaN (nansum/nanprod: NaN acts as the identity; nanmin/nanmax: NaN is
    ignored, an all-NaN line gives NaN).
``argreduce(x, *, op, axis=None, keepdims=False, nan=False)``
    ``op`` is ``"argmin"`` or ``"argmax"``; int64 indices into the reduced axis (C-order flat index
    for ``axis=None``); ties give the first index; NaN: the first NaN wins, or with ``nan=True`` NaN
    is skipped (an all-NaN line returns the index of a NaN; the façade raises).

Both return a new C-contiguous array of the kept axes (with size-1 axes for ``keepdims``), or
write it into ``out`` (cast like NumPy's ``out=``, i.e. unsafely). Nothing here validates user
input beyond what the kernels need; the façade (:mod:`rocarray._reduce_api`) does that once.

Kernel dtypes (lean: kernels exist for accumulation dtypes with the op as a template tag; only
float16 and the nonzero views are read in a narrower type):

* add: int32 -> int64, uint32 -> uint64, float16 -> float32, and int64, uint64, float32, float64,
  complex64, complex128 to themselves; int8/int16 (uint8/uint16) are widened to 32 bits first
  (a copy); bool data (and bool results: NumPy's logical or) are counted as nonzeros.
  float16 accumulates in float32 and rounds once per result (NumPy rounds pairwise blocks to
  float16: ours is as or more accurate); ``mean`` of float16 divides in float32, then rounds.
* mul: int64, uint64, float32, float64, complex64, complex128 (float16 via float32, narrower
  integers widened to 64 bits first).
* min, max: float16 -> float32 (exact, rounded back exactly), int64, uint64, float32, float64,
  complex64, complex128; bool and narrower integers are widened to 64 bits first (a copy).
* argmin, argmax: float16 and the six dtypes above; narrower integers and bool widened first.
* nnz: unsigned views uint8/16/32/64 of the data with a "nonzero" bit mask (sign bits of floats
  and of complex64's parts cleared), and complex128 as itself.

Any other requested result dtype is computed in the kernel dtype above and cast (integers: exact
modulo 2^k, so wrap-around matches NumPy; bool: ``!= 0``, NumPy's logical add/multiply).

Layout and kernel choice (:func:`plan`): the input is viewed as ``(outer, n, inner)`` with element
strides ``(so, sk, si)`` after dropping size-1 axes and merging axes whose strides allow it (the
reduced axes in any order for order-free ops; in C order for arg ops) -- no copy for C- or
F-contiguous data, transposes, and most step-sliced views. Then:

* ``n <= SHORT`` or (non-unit strides and many lines): ``lines`` kernel (thread per output);
* ``sk == 1, inner == 1``: ``rows`` kernel, warp per row up to :data:`WARP_ROW_MAX` elements,
  else block per row, rows split across a full wave of blocks when there are fewer rows than
  that wave (the full reduction is one row);
* ``si == 1``: ``cols`` kernel (coalesced along inner, the reduced axis split across blocks when
  there are too few column tiles);
* otherwise: one copy with the reduced axes moved last (C order), then ``rows``.

Determinism: one launch per reduction; partial results are combined by the last block of each
row/column tile (integer ticket) in a fixed order, never with floating-point atomics, so results
are bitwise identical run to run on a given device (the grid depends only on the device and shape).
"""

import threading

import numpy

from rocarray._core import backend, compile as _compile, launch

SOURCE = "prim/reduce.hip"

#: Threads per block (``RA_PRIM_RED_BLOCK``).
BLOCK = 256
#: 16-byte vectors per thread per loop trip (``RA_PRIM_RED_UNROLL``).
UNROLL = 4
#: Reduced lengths up to this use one thread per output line.
SHORT = 16
#: Rows of at most this many elements use one warp per row.
WARP_ROW_MAX = 4096
#: Fewest lines for the strided lines kernel on long non-unit-stride axes (else copy).
MANY_LINES = 1 << 16
#: Most threads along inner in the cols kernel (2^6 = 64 x 16 bytes per row per thread row): the
#: other 4+ threads of a block go along the reduced axis, which keeps the number of column tiles and
#: the splits (and so the partials the last block folds) small.
COLS_TX_LOG2_MAX = 6
#: Blocks per multiprocessor assumed for the wave (occupancy API caps it).
BLOCKS_PER_MP = 8

OPS = ("add", "mul", "min", "max", "nnz")
ARG_OPS = ("argmin", "argmax")
_TAGS = {op: f"ra_prim_red_op_{op}" for op in OPS + ARG_OPS}

_D = numpy.dtype
_B, _I8, _I16, _I32, _I64 = _D("bool"), _D("int8"), _D("int16"), _D("int32"), _D("int64")
_U8, _U16, _U32, _U64 = _D("uint8"), _D("uint16"), _D("uint32"), _D("uint64")
_F16, _F32, _F64, _C64, _C128 = _D("float16"), _D("float32"), _D("float64"), _D("complex64"), _D("complex128")

#: Kernel element type of each dtype.
CTYPES = {
    _B: "bool", _I8: "ra_i8", _I16: "ra_i16", _I32: "ra_i32", _I64: "ra_i64", _U8: "ra_u8",
    _U16: "ra_u16", _U32: "ra_u32", _U64: "ra_u64", _F16: "ra_half", _F32: "float", _F64: "double",
    _C64: "ra_c64", _C128: "ra_c128",
}
ALL_DTYPES = tuple(CTYPES)

_WIDE = (_I64, _U64, _F32, _F64, _C64, _C128)
#: (input dtype, kernel result dtype) pairs per op.
PAIRS = {
    "add": ((_I32, _I64), (_U32, _U64), (_F16, _F32)) + tuple((d, d) for d in _WIDE),
    "mul": tuple((d, d) for d in _WIDE),
    "min": ((_F16, _F32),) + tuple((d, d) for d in _WIDE),
    "max": ((_F16, _F32),) + tuple((d, d) for d in _WIDE),
    "nnz": tuple((d, _I64) for d in (_U8, _U16, _U32, _U64, _C128)),
    "argmin": tuple((d, _I64) for d in (_F16,) + _WIDE),
    "argmax": tuple((d, _I64) for d in (_F16,) + _WIDE),
}
KINDS = ("rows", "cols", "lines")


def kernel_name(kind, op, in_dtype, out_dtype):
    """Name expression, e.g. ``'ra_prim_reduce_rows<float, float, ra_prim_red_op_add>'``."""
    return f"ra_prim_reduce_{kind}<{CTYPES[_D(in_dtype)]}, {CTYPES[_D(out_dtype)]}, {_TAGS[op]}>"


def instantiations():
    """Every name expression this module launches."""
    return sorted(kernel_name(k, op, a, b) for op, pairs in PAIRS.items() for a, b in pairs for k in KINDS)


_compile.register(SOURCE, instantiations())


# --------------------------------------------------------------------------------------------
# dtype rules (pure Python)
# --------------------------------------------------------------------------------------------

def sum_dtype(in_dtype):
    """NumPy's default result dtype of ``sum``/``prod``: int64 for bool and narrower signed
    integers, uint64 for narrower unsigned ones, the input dtype otherwise."""
    d = _D(in_dtype)
    if d.kind == "b" or (d.kind == "i" and d.itemsize < 8):
        return _I64
    if d.kind == "u" and d.itemsize < 8:
        return _U64
    return d


def kernel_dtypes(op, in_dtype, result_dtype):
    """``(op, kernel input dtype, kernel result dtype)`` for ``op`` computing ``result_dtype``
    results from ``in_dtype`` data; the input is cast to the kernel input dtype when it differs
    (a copy). A sum of bool data, or any sum with a bool result (NumPy's logical or), is a count of
    nonzeros (``'nnz'``, then ``!= 0`` for bool results)."""
    i, r = _D(in_dtype), _D(result_dtype)
    if op == "add" and (i == _B or r == _B):
        op = "nnz"
    if op == "nnz":
        return op, (_C128 if i == _C128 else _D(f"uint{8 * i.itemsize}")), _I64
    if op in ("add", "mul"):
        if r.kind in "iu":
            kr = _U64 if r.kind == "u" else _I64
        elif r == _F16:
            kr = _F32  # float16 results accumulate in float32 and round once
        else:
            kr = r
        if (i, kr) in PAIRS[op]:
            return op, i, kr
        if op == "add" and i.kind in "iu" and i.itemsize < 4 and kr.kind in "iu":
            w = _U32 if i.kind == "u" else _I32
            if (w, kr) in PAIRS[op]:
                return op, w, kr  # narrow integers widen to 32 bits first (a copy)
        return op, kr, kr
    res = op in ("min", "max")
    if i == _F16:
        return op, _F16, (_F32 if res else _I64)
    if i in _WIDE:
        return op, i, (i if res else _I64)
    w = _U64 if i.kind in "bu" else _I64  # narrower integers and bool widen to 64 bits (a copy)
    return op, w, (w if res else _I64)


def nnz_mask(dtype):
    """The 64-bit "nonzero" mask of ``dtype``'s unsigned view (sign bits cleared for floats)."""
    d = _D(dtype)
    if d == _C128:
        return (1 << 64) - 1  # unused: complex128 is tested part by part in the kernel
    bits = 8 * d.itemsize
    full = (1 << bits) - 1
    if d.kind == "f":
        return full >> 1
    if d == _C64:
        return 0x7FFFFFFF7FFFFFFF
    return full


# --------------------------------------------------------------------------------------------
# layout (pure Python)
# --------------------------------------------------------------------------------------------

class Plan:
    """A reduction's layout: ``(outer, n, inner)`` with element strides and an element offset of the
    base, plus the kernel kind (``'rows'``, ``'cols'``, ``'lines'``) or ``'copy'``."""

    __slots__ = ("outer", "n", "inner", "so", "sk", "si", "offset", "kind")

    def __init__(self, outer, n, inner, so, sk, si, offset, kind):
        self.outer, self.n, self.inner = outer, n, inner
        self.so, self.sk, self.si, self.offset, self.kind = so, sk, si, offset, kind

    def __repr__(self):
        return (f"Plan(kind={self.kind!r}, outer={self.outer}, n={self.n}, inner={self.inner}, "
                f"so={self.so}, sk={self.sk}, si={self.si}, offset={self.offset})")


def _merge(dims):
    """Merge consecutive (size, stride) pairs where ``stride[a] == size[b] * stride[b]``."""
    out = []
    for d, s in dims:
        if out and out[-1][1] == d * s:
            out[-1] = (out[-1][0] * d, s)
        else:
            out.append((d, s))
    return out


def layout(shape, strides, axes, ordered):
    """``(outer, so, n, sk, inner, si, offset)`` in elements for reducing ``axes`` of an array of
    ``shape`` and element ``strides``, or None when it needs a copy. ``ordered``: the reduced axes
    must be walked in C order (arg ops); otherwise they may be reordered and flipped."""
    ndim = len(shape)
    axes = set(axes)
    offset = 0
    red = []
    for a in range(ndim):
        if a in axes and shape[a] != 1:
            d, s = shape[a], strides[a]
            if s < 0 and not ordered:
                offset += (d - 1) * s
                s = -s
            red.append((d, s))
    if not ordered:
        red.sort(key=lambda p: -p[1])
    red = _merge(red)
    kept = _merge([(shape[a], strides[a]) for a in range(ndim) if a not in axes and shape[a] != 1])
    if len(red) > 1 or len(kept) > 2:
        return None
    n, sk = red[0] if red else (1, 1)
    if not kept:
        return 1, 0, n, sk, 1, 0, offset
    if len(kept) == 1:
        d, s = kept[0]
        if abs(s) < abs(sk) or n == 1:
            return 1, 0, n, sk, d, s, offset
        return d, s, n, sk, 1, 0, offset
    (do, so), (di, si) = kept
    return do, so, n, sk, di, si, offset


def plan(shape, strides, axes, ordered):
    """The :class:`Plan` of a reduction (``strides`` in elements)."""
    lay = layout(shape, strides, axes, ordered)
    if lay is None:
        return Plan(0, 0, 0, 0, 0, 0, 0, "copy")
    outer, so, n, sk, inner, si, offset = lay
    lines = outer * inner
    if n <= SHORT:
        kind = "lines"
    elif sk == 1 and inner == 1:
        kind = "rows"
    elif si == 1 and inner > 1 and (inner >= 32 or lines < MANY_LINES):
        kind = "cols"
    elif lines >= MANY_LINES:
        kind = "lines"
    else:
        kind = "copy"
    return Plan(outer, n, inner, so, sk, si, offset, kind)


def rows_launch(rows, n, wave, warp_size):
    """``(grid, splits, warp_mode)`` of the rows kernel."""
    if n <= WARP_ROW_MAX:
        warps = BLOCK // warp_size
        return -(-rows // warps), 1, 1
    per_block = BLOCK * UNROLL * 4  # at least a few vectors per thread per split
    splits = 1 if rows >= wave else max(1, min(-(-wave // rows), -(-n // per_block)))
    return rows * splits, splits, 0


def cols_launch(outer, n, inner, vc, wave):
    """``(grid, ct, splits, chunk, tx_log2)`` of the cols kernel."""
    groups = -(-inner // vc)
    tx_log2 = 0
    while (1 << tx_log2) < groups and tx_log2 < COLS_TX_LOG2_MAX:
        tx_log2 += 1
    tx = 1 << tx_log2
    ty = BLOCK // tx
    ct = -(-groups // tx)
    tiles = outer * ct
    splits = 1
    if tiles < wave:
        splits = max(1, min(-(-wave // tiles), -(-n // (4 * ty))))
    chunk = -(-n // splits)
    splits = -(-n // chunk)
    return tiles * splits, ct, splits, chunk, tx_log2


# --------------------------------------------------------------------------------------------
# device side
# --------------------------------------------------------------------------------------------

_cupy = launch.cupy
_table = launch.KernelTable(SOURCE, BLOCK, BLOCKS_PER_MP)


def _warp_size(device_id):
    return backend.device_info(device_id).warp_size


def _kernel(name, device_id):
    """``(kernel, wave)``."""
    return _table.get(name, device_id)


_tickets = {}
_tickets_lock = threading.Lock()


def _ticket_buffer(device_id, count):
    """A zeroed uint32 buffer of at least ``count`` tickets for the current stream (kernels leave
    it zeroed)."""
    cupy = _cupy()
    key = (device_id, cupy.cuda.get_current_stream().ptr)
    with _tickets_lock:
        buf = _tickets.get(key)
        if buf is None or buf.size < count:
            buf = _tickets[key] = cupy.zeros(max(count, 4096, 2 * (buf.size if buf is not None else 0)),
                                             dtype=numpy.uint32)
        return buf


def _state_bytes(op, kin, kout):
    """Bytes of one kernel state (``ra_prim_red_traits<...>::S``): the accumulator, or for arg ops
    (value of the input's accumulator type, int64 index) padded to its alignment."""
    acc = _F32 if kout == _F16 else kout
    if op in ARG_OPS:
        return 32 if kin == _C128 else 16
    return 8 if op == "nnz" else acc.itemsize


def _colvec(dtype, op):
    """Columns per thread of the cols kernel (``ra_prim_red_colvec``): 1 for arg ops."""
    return 1 if op in ARG_OPS else max(1, min(4, 16 // _D(dtype).itemsize))


def _astype(x, dtype):
    return x.astype(dtype, copy=False)


def _nonzero(x):
    return x != 0


def _launch(op, x, p, res, aux):
    """Run plan ``p`` over ``x`` (kernel input dtype) into C-contiguous ``res`` (kernel result dtype)."""
    cupy = _cupy()
    device_id = x.data.device_id
    kernel, wave = _kernel(kernel_name(p.kind, op, x.dtype, res.dtype), device_id)
    base = x.data + p.offset * x.itemsize
    aux = numpy.uint64(aux)
    if p.kind == "lines":
        lines = p.outer * p.inner
        grid = max(1, min(-(-lines // BLOCK), 1 << 20))
        kernel((grid,), (BLOCK,), (base, numpy.int64(p.so), numpy.int64(p.sk), numpy.int64(p.si),
                                   numpy.int64(p.outer), numpy.int64(p.n), numpy.int64(p.inner), res, aux))
        return
    sbytes = _state_bytes(op, x.dtype, res.dtype)
    if p.kind == "rows":
        grid, splits, warp_mode = rows_launch(p.outer, p.n, wave, _warp_size(device_id))
        partials = tickets = numpy.uint64(0)
        if splits > 1:
            partials = cupy.empty(p.outer * splits * sbytes, dtype=numpy.uint8)
            tickets = _ticket_buffer(device_id, p.outer)
        kernel((grid,), (BLOCK,), (base, numpy.int64(p.so), numpy.int64(p.outer), numpy.int64(p.n), res,
                                   partials, tickets, numpy.uint32(splits), numpy.int32(warp_mode), aux))
        return
    vc = _colvec(x.dtype, op)
    grid, ct, splits, chunk, tx_log2 = cols_launch(p.outer, p.n, p.inner, vc, wave)
    align = vc * x.itemsize
    vec = int(p.inner % vc == 0 and p.so % vc == 0 and p.sk % vc == 0 and base.ptr % align == 0)
    partials = tickets = numpy.uint64(0)
    if splits > 1:
        partials = cupy.empty(p.outer * ct * splits * (vc << tx_log2) * sbytes, dtype=numpy.uint8)
        tickets = _ticket_buffer(device_id, p.outer * ct)
    kernel((grid,), (BLOCK,), (base, numpy.int64(p.so), numpy.int64(p.sk), numpy.int64(p.outer), numpy.int64(p.n),
                               numpy.int64(p.inner), res, partials, tickets, numpy.int64(ct), numpy.uint32(splits),
                               numpy.int64(chunk), numpy.int32(tx_log2), numpy.int32(vec), aux))


def _elem_strides(x):
    return tuple(s // x.itemsize for s in x.strides)


def _run(op, x, axes, res, aux, ordered):
    """Reduce ``axes`` of ``x`` into ``res`` (C-contiguous, kept shape, kernel result dtype)."""
    cupy = _cupy()
    p = plan(x.shape, _elem_strides(x), axes, ordered)
    if p.kind == "copy" or any(s % x.itemsize for s in x.strides):
        kept = [a for a in range(x.ndim) if a not in axes]
        xc = cupy.ascontiguousarray(x.transpose(kept + sorted(axes)))
        nk = len(kept)
        p = plan(xc.shape, _elem_strides(xc), tuple(range(nk, xc.ndim)), ordered)
        x = xc
    _launch(op, x, p, res, aux)


def _normalize_axes(ndim, axis):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple):
        return tuple(a % ndim if ndim else a for a in axis)
    return (axis % ndim if ndim else axis,)


def _result(res, kept_shape, full_shape, axes, keepdims, dtype, out):
    cupy = _cupy()
    if keepdims:
        res = res.reshape(tuple(1 if a in axes else d for a, d in enumerate(full_shape)))
    else:
        res = res.reshape(kept_shape)
    if dtype.kind == "b" and res.dtype.kind != "b":
        res = _nonzero(res)
    elif res.dtype != dtype:
        res = _astype(res, dtype)
    if out is None:
        return res
    cupy.copyto(out, res, casting="unsafe")
    return out


def _identity_fill(op, shape, kout):
    cupy = _cupy()
    return cupy.full(shape, 1 if op == "mul" else 0, dtype=kout)


def reduce(x, *, op, axis=None, dtype=None, out=None, keepdims=False, nan=False):
    """Reduce ``x`` over ``axis`` with ``op`` (see the module docstring).

    Parameters
    ----------
    x : cupy.ndarray
    op : {'add', 'mul', 'min', 'max', 'nnz'}
    axis : None, int or tuple of int
        Valid, non-negative-or-negative, no duplicates (the façade checks).
    dtype : dtype, optional
        Result dtype (default: :func:`sum_dtype` for add/mul, ``x.dtype`` for min/max, int64 for nnz).
    out : cupy.ndarray, optional
        Destination of the result's shape; the result is cast into it.
    keepdims : bool
    nan : bool
        Skip NaN (nansum, nanprod, nanmin, nanmax).

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.prim.reduce(cupy.arange(10), op="add")   # doctest: +SKIP
    array(45)
    """
    cupy = _cupy()
    axes = _normalize_axes(x.ndim, axis)
    if dtype is None:
        dtype = sum_dtype(x.dtype) if op in ("add", "mul") else (_I64 if op == "nnz" else x.dtype)
    dtype = _D(dtype)
    op, kin, kout = kernel_dtypes(op, x.dtype, dtype)
    kept_shape = tuple(d for a, d in enumerate(x.shape) if a not in axes)
    lines = int(numpy.prod(kept_shape, dtype=numpy.int64))
    n = int(numpy.prod([x.shape[a] for a in axes], dtype=numpy.int64))
    if lines == 0:
        res = cupy.empty(kept_shape, dtype=kout)
    elif n == 0:
        res = _identity_fill(op, kept_shape, kout)
    else:
        aux = 0
        if op == "nnz":
            aux = nnz_mask(x.dtype)
            xin = x if kin == _C128 else x.view(kin)
        else:
            aux = int(bool(nan) and x.dtype.kind in "fc")
            xin = _astype(x, kin)
        res = cupy.empty(kept_shape, dtype=kout)
        _run(op, xin, axes, res, aux, False)
    return _result(res, kept_shape, x.shape, axes, keepdims, dtype, out)


def argreduce(x, *, op, axis=None, keepdims=False, nan=False, out=None):
    """Index of the minimum (``op='argmin'``) or maximum (``'argmax'``) along ``axis`` (None: the
    C-order flattening). Lines must be non-empty (the façade raises NumPy's ValueError).

    Returns
    -------
    cupy.ndarray
        int64 indices (cast into ``out`` when given).

    Examples
    --------
    >>> ra.prim.argreduce(cupy.asarray([3, 1, 1]), op="argmin")   # doctest: +SKIP
    array(1)
    """
    cupy = _cupy()
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        axes = _normalize_axes(x.ndim, axis)
    op, kin, kout = kernel_dtypes(op, x.dtype, _I64)
    kept_shape = tuple(d for a, d in enumerate(x.shape) if a not in axes)
    lines = int(numpy.prod(kept_shape, dtype=numpy.int64))
    res = cupy.empty(kept_shape, dtype=_I64)
    if lines:
        aux = int(bool(nan) and x.dtype.kind in "fc")
        _run(op, _astype(x, kin), axes, res, aux, True)
    if axis is None and keepdims:
        res = res.reshape((1,) * x.ndim)
        return _result(res, res.shape, res.shape, (), False, _I64, out)
    return _result(res, kept_shape, x.shape, axes, keepdims, _I64, out)
