"""Reductions on hand-written HIP kernels (``_kernels/prim/reduce.hip``).

Public functions
----------------
``reduce(x, *, op, axis=None, dtype=None, out=None, keepdims=False, nan=False)``
    ``op`` is ``"add"``, ``"mul"``, ``"min"``, ``"max"`` or ``"nnz"`` (count of nonzeros, int64).
    ``axis`` is None (all axes), an int or a tuple of ints (valid and without repeats: the façade
    checks; negative axes count from the end).
    ``nan=True`` skips NaN (nansum/nanprod: NaN acts as the identity; nanmin/nanmax: NaN is
    ignored, an all-NaN line gives NaN).
``argreduce(x, *, op, axis=None, keepdims=False, nan=False)``
    ``op`` is ``"argmin"`` or ``"argmax"``; int64 indices into the reduced axis (C-order flat index
    for ``axis=None``); ties give the first index; NaN: the first NaN wins, or with ``nan=True`` NaN
    is skipped (an all-NaN line returns the index of a NaN; the façade raises).

Both return a new C-contiguous array of the kept axes (with size-1 axes for ``keepdims``), or
write it into ``out`` (cast like NumPy's ``out=``, i.e. unsafely). Nothing here validates user
input beyond what the kernels need; the façade (:mod:`rocarray._numpy.reductions`) does that once.

Kernel dtypes (lean: kernels exist for accumulation dtypes with the op as a template tag; only
float16 and the nonzero views are read in a narrower type):

* add: int32 -> int64, uint32 -> uint64, float16 -> float32, and int64, uint64, float32, float64,
  complex64, complex128 to themselves; int8/int16 (uint8/uint16) are widened to 32 bits first
  (a copy); bool data (and bool results: NumPy's logical or) are counted as nonzeros.
  float16 accumulates in float32 and rounds once per result (NumPy rounds pairwise blocks to
  float16: ours is as or more accurate); ``mean`` of float16 divides in float32, then rounds.
* mul: int64, uint64, float32, float64, complex64, complex128 (float16 via float32, narrower
  integers widened to 64 bits first). float16 and float32 products accumulate in float64 and
  complex64 ones in complex128, rounding once per result: a tree of float32 products of factors
  near 1 drifts systematically (each product rounds away a second-order term whose sign is the
  same whenever both factors lie on one side of 1). So a product is as accurate as a float64 one
  rounded to float32, and an intermediate product that would overflow or underflow float32 but
  not the final one does not (NumPy's float32 product may give inf or 0 there).
* min, max: float16 -> float32 (exact, rounded back exactly), int64, uint64, float32, float64,
  complex64, complex128; bool and narrower integers are widened to 64 bits first (a copy).
* argmin, argmax: float16 and the six dtypes above; narrower integers and bool widened first.
* nnz: unsigned views uint8/16/32/64 of the data with a "nonzero" bit mask (sign bits of floats
  and of complex64's parts cleared), and complex128 as itself.

Any other requested result dtype is computed in the kernel dtype above and cast (integers: exact
modulo 2^k, so wrap-around matches NumPy; bool: ``!= 0``, NumPy's logical add/multiply).

Layout and kernel choice (:func:`kernel_layout`): the input is viewed as ``(outer, n, inner)`` with element
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

Plans: everything a call does that depends only on its arguments' metadata (dtype rules, shapes,
layout, kernel, grid, the fixed kernel arguments) is a plan in :data:`rocarray._core.plans.cache`,
keyed ``('prim.reduce', ...)`` / ``('prim.argreduce', ...)`` by the call signature and input layout,
down to prepared launches; a warm call allocates the result and writes the data addresses into the
launch. Split reductions take their partials (``'prim.reduce.partials'``, uninitialized) and
tickets (``'prim.reduce.tickets'``, zero-kept) from :data:`rocarray._core.workspace.workspaces`.
"""

import math

import numpy

from rocarray._core import args as _args
from rocarray._core import backend, dtypes, kernels, launch, plans, workspace
from rocarray._core import compile as _compile

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
_B, _I32, _I64 = _D("bool"), _D("int32"), _D("int64")
_U8, _U16, _U32, _U64 = _D("uint8"), _D("uint16"), _D("uint32"), _D("uint64")
_F16, _F32, _F64, _C64, _C128 = _D("float16"), _D("float32"), _D("float64"), _D("complex64"), _D("complex128")

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
    return f"ra_prim_reduce_{kind}<{dtypes.ctype(in_dtype)}, {dtypes.ctype(out_dtype)}, {_TAGS[op]}>"


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
    d = _SUM_DTYPES.get(in_dtype)
    if d is not None:
        return d
    d = _D(in_dtype)
    if d.kind == "b" or (d.kind == "i" and d.itemsize < 8):
        return _I64
    if d.kind == "u" and d.itemsize < 8:
        return _U64
    return d


_SUM_DTYPES = {}
_SUM_DTYPES.update((d, sum_dtype(d)) for d in dtypes.CTYPES)


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

class Layout:
    """A reduction's layout: ``(outer, n, inner)`` with element strides and an element offset of the
    base, plus the kernel kind (``'rows'``, ``'cols'``, ``'lines'``) or ``'copy'``."""

    __slots__ = ("outer", "n", "inner", "so", "sk", "si", "offset", "kind")

    def __init__(self, outer, n, inner, so, sk, si, offset, kind):
        self.outer, self.n, self.inner = outer, n, inner
        self.so, self.sk, self.si, self.offset, self.kind = so, sk, si, offset, kind

    def __repr__(self):
        return (f"Layout(kind={self.kind!r}, outer={self.outer}, n={self.n}, inner={self.inner}, "
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


def kernel_layout(shape, strides, axes, ordered):
    """The :class:`Layout` of a reduction (``strides`` in elements)."""
    lay = layout(shape, strides, axes, ordered)
    if lay is None:
        return Layout(0, 0, 0, 0, 0, 0, 0, "copy")
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
    return Layout(outer, n, inner, so, sk, si, offset, kind)


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
# plans and launches
# --------------------------------------------------------------------------------------------

_kernels = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MP)


def _state_bytes(op, kin, kout):
    """Bytes of one kernel state (``ra_prim_red_traits<...>::S``): the accumulator, or for arg ops
    (value of the input's accumulator type, int64 index) padded to its alignment."""
    acc = _F32 if kout == _F16 else kout
    if op in ARG_OPS:
        return 32 if kin == _C128 else 16
    if op == "mul":  # products accumulate in double / complex128 (reduce.hip's ra_prim_red_prod_acc)
        return 16 if kin.kind == "c" else max(8, acc.itemsize)
    return 8 if op == "nnz" else acc.itemsize


def _colvec(dtype, op):
    """Columns per thread of the cols kernel (``ra_prim_red_colvec``): 1 for arg ops."""
    return 1 if op in ARG_OPS else max(1, min(4, 16 // _D(dtype).itemsize))


class _Run:
    """The kernel launch of a reduction plan (:func:`launch_plan`): called with the input (kernel
    input dtype, the layout the plan was built for) and the C-contiguous result. ``vec`` is the
    launch reading 16-byte vectors, taken when the base address is ``align``-aligned."""

    __slots__ = ("plain", "vec", "align", "offset", "device_id", "partial_bytes", "ticket_bytes")

    def __call__(self, x, res):
        ptr = x.data.ptr + self.offset
        go = self.vec if self.align and ptr % self.align == 0 else self.plain
        if self.partial_bytes:
            ws = workspace.workspaces
            partials = ws.scratch("prim.reduce.partials", self.partial_bytes, self.device_id)
            tickets = ws.counters("prim.reduce.tickets", self.ticket_bytes, self.device_id)
            go(ptr, res.data.ptr, partials.data.ptr, tickets.data.ptr)
        else:
            go(ptr, res.data.ptr)


def launch_plan(op, kin, kout, shape, strides, axes, ordered, aux, device_id):
    """The :class:`_Run` reducing ``axes`` of data of ``shape`` and byte ``strides`` (kernel input
    dtype ``kin``) into ``kout`` results, or None when the data must be copied first."""
    itemsize = kin.itemsize
    if any(s % itemsize for s in strides):
        return None
    p = kernel_layout(shape, tuple(s // itemsize for s in strides), axes, ordered)
    if p.kind == "copy":
        return None
    kernel = _kernels[kernel_name(p.kind, op, kin, kout)]
    wave = kernel.wave(device_id)
    i64, u64, u32, i32 = numpy.int64, numpy.uint64, numpy.uint32, numpy.int32
    ptr = launch.POINTER
    aux = u64(aux)
    zero = u64(0)
    run = _Run()
    run.offset, run.device_id = p.offset * itemsize, device_id
    run.align = run.partial_bytes = run.ticket_bytes = 0
    run.vec = None
    if p.kind == "lines":
        lines = p.outer * p.inner
        grid = max(1, min(-(-lines // BLOCK), 1 << 20))
        head = (i64(p.so), i64(p.sk), i64(p.si), i64(p.outer), i64(p.n), i64(p.inner))
        run.plain = kernel.prepare(device_id, grid, (ptr,) + head + (ptr, aux))
        return run
    sbytes = _state_bytes(op, kin, kout)
    if p.kind == "rows":
        grid, splits, warp_mode = rows_launch(p.outer, p.n, wave, backend.device_info(device_id).warp_size)
        head = (i64(p.so), i64(p.outer), i64(p.n))
        tail = (u32(splits), i32(warp_mode), aux)
        if splits > 1:
            run.partial_bytes, run.ticket_bytes = p.outer * splits * sbytes, 4 * p.outer
            scratch = (ptr, ptr)
        else:
            scratch = (zero, zero)
        run.plain = kernel.prepare(device_id, grid, (ptr,) + head + (ptr,) + scratch + tail)
        return run
    vc = _colvec(kin, op)
    grid, ct, splits, chunk, tx_log2 = cols_launch(p.outer, p.n, p.inner, vc, wave)
    head = (i64(p.so), i64(p.sk), i64(p.outer), i64(p.n), i64(p.inner))
    pre = (i64(ct), u32(splits), i64(chunk), i32(tx_log2))
    if splits > 1:
        run.partial_bytes = p.outer * ct * splits * (vc << tx_log2) * sbytes
        run.ticket_bytes = 4 * p.outer * ct
        scratch = (ptr, ptr)
    else:
        scratch = (zero, zero)
    run.plain = kernel.prepare(device_id, grid, (ptr,) + head + (ptr,) + scratch + pre + (i32(0), aux))
    if p.inner % vc == 0 and p.so % vc == 0 and p.sk % vc == 0:
        run.align = vc * itemsize  # vectors when the base address is aligned too (checked per call)
        run.vec = kernel.prepare(device_id, grid, (ptr,) + head + (ptr,) + scratch + pre + (i32(1), aux))
    return run


def _run(op, x, axes, res, aux, ordered):
    """Reduce ``axes`` of ``x`` into ``res`` (C-contiguous, kept shape, kernel result dtype)
    through the launch plan of ``x``'s layout, copying ``x`` first where no kernel reads it."""
    device_id = x.data.device_id
    shape, strides, kin, kout = x.shape, x.strides, x.dtype, res.dtype
    run = plans.cache.lookup(("prim.reduce.launch", op, kin, kout, shape, strides, axes, ordered, aux, device_id),
                             lambda: launch_plan(op, kin, kout, shape, strides, axes, ordered, aux, device_id))
    if run is None:
        kept = [a for a in range(x.ndim) if a not in axes]
        x = backend.cupy().ascontiguousarray(x.transpose(kept + sorted(axes)))
        _run(op, x, tuple(range(len(kept), x.ndim)), res, aux, ordered)
        return
    run(x, res)


# How a call turns into a launch (its plan, :class:`_Plan`).
_EMPTY, _FILL, _LAUNCH = 0, 1, 2  # mode: nothing to reduce, identity fill, a kernel
_AS_IS, _VIEW, _CAST = 0, 1, 2  # kernel input: x itself, x viewed as kin, x cast to kin (a copy)
_KEEP, _NONZERO, _ASTYPE = 0, 1, 2  # result: as computed, != 0 (bool), cast


class _Plan:
    """Everything about a reduction call that depends only on its arguments' metadata; ``run`` is
    the launch of the input as given (None: a cast input, whose layout is known per call) and
    ``direct`` the whole of a warm call where that is one prepared launch (:func:`_direct`)."""

    __slots__ = ("mode", "op", "kin", "kout", "dtype", "shape", "axes", "aux", "conv", "post", "run", "direct")


def _shapes(p, shape, axes, keepdims, dtype, kout, arg):
    """Fill in the result shape, dtypes, mode and post-processing of plan ``p``."""
    kept_shape = tuple(d for a, d in enumerate(shape) if a not in axes)
    lines = math.prod(kept_shape)
    n = (1 if lines else 0) if arg else math.prod(shape[a] for a in axes)
    p.shape = tuple(1 if a in axes else d for a, d in enumerate(shape)) if keepdims else kept_shape
    p.axes, p.dtype, p.kout = axes, dtype, kout
    p.mode = _EMPTY if lines == 0 else (_FILL if n == 0 else _LAUNCH)
    if dtype.kind == "b" and kout.kind != "b":
        p.post = _NONZERO
    else:
        p.post = _ASTYPE if kout != dtype else _KEEP
    p.run = None


def _plan(op, shape, strides, in_dtype, axis, dtype, keepdims, nan, device_id):
    """The :class:`_Plan` of ``reduce(x, op=op, axis=axis, dtype=dtype, ...)`` for ``x`` of
    ``shape``, byte ``strides`` and ``in_dtype`` on ``device_id``."""
    axes = _args.normalize_axes(axis, len(shape))
    if dtype is None:
        dtype = sum_dtype(in_dtype) if op in ("add", "mul") else (_I64 if op == "nnz" else in_dtype)
    dtype = _D(dtype)
    kop, kin, kout = kernel_dtypes(op, in_dtype, dtype)
    p = _Plan()
    _shapes(p, shape, axes, keepdims, dtype, kout, False)
    p.op, p.kin = kop, kin
    if kop == "nnz":
        p.aux = nnz_mask(in_dtype)
        p.conv = _AS_IS if kin == _C128 or kin == in_dtype else _VIEW
    else:
        p.aux = int(nan and in_dtype.kind in "fc")
        p.conv = _AS_IS if kin == in_dtype else _CAST
    if p.mode == _LAUNCH and p.conv != _CAST:
        p.run = launch_plan(kop, kin, kout, shape, strides, axes, False, p.aux, device_id)
    p.direct = _direct(p)
    return p


def _arg_plan(op, shape, strides, in_dtype, axis, keepdims, nan, device_id):
    """:func:`_plan` for :func:`argreduce`."""
    axes = _args.normalize_axes(axis, len(shape))
    kop, kin, kout = kernel_dtypes(op, in_dtype, _I64)
    p = _Plan()
    _shapes(p, shape, axes, keepdims, _I64, _I64, True)
    p.op, p.kin = kop, kin
    p.aux = int(nan and in_dtype.kind in "fc")
    p.conv = _AS_IS if kin == in_dtype else _CAST
    if p.mode == _LAUNCH and p.conv != _CAST:
        p.run = launch_plan(kop, kin, kout, shape, strides, axes, True, p.aux, device_id)
    p.direct = _direct(p)
    return p


def _execute(p, x, out, ordered):
    """Run a :class:`_Plan` on ``x``; the result, or ``out`` with it copied in."""
    cupy = backend.cupy()
    mode = p.mode
    if mode == _LAUNCH:
        res = cupy.empty(p.shape, dtype=p.kout)
        if p.run is not None:
            p.run(x if p.conv == _AS_IS else x.view(p.kin), res)
        else:
            xin = x if p.conv == _AS_IS else (x.view(p.kin) if p.conv == _VIEW else x.astype(p.kin, copy=False))
            _run(p.op, xin, p.axes, res, p.aux, ordered)
    elif mode == _EMPTY:
        res = cupy.empty(p.shape, dtype=p.kout)
    else:
        res = cupy.full(p.shape, 1 if p.op == "mul" else 0, dtype=p.kout)
    if p.post == _NONZERO:
        res = res != 0
    elif p.post == _ASTYPE:
        res = res.astype(p.dtype, copy=False)
    if out is None:
        return res
    cupy.copyto(out, res, casting="unsafe")
    return out


def _direct(p):
    """The launch a warm call of plan ``p`` comes down to, called with the input's and the result's
    addresses (the input read as given from its own address, the kernel result returned as it is,
    no scratch), or None."""
    if p.mode == _LAUNCH and p.conv == _AS_IS and p.post == _KEEP and p.run is not None:
        run = p.run
        if not (run.offset or run.align or run.partial_bytes):
            return run.plain
    return None


def reduce(x, *, op, axis=None, dtype=None, out=None, keepdims=False, nan=False):
    """Reduce ``x`` over ``axis`` with ``op`` (see the module docstring).

    Parameters
    ----------
    x : cupy.ndarray
    op : {'add', 'mul', 'min', 'max', 'nnz'}
    axis : None, int or tuple of int
        Valid, without repeats, negative axes counting from the end (the façade checks).
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

    Notes
    -----
    The plan (dtypes, shapes, layout, grid, fixed kernel arguments, prepared launch) is kept in
    :data:`rocarray._core.plans.cache` under ``('prim.reduce', op, shape, strides, dtype, axis,
    result dtype, keepdims, nan, device)``.

    Examples
    --------
    >>> ra.prim.reduce(cupy.arange(10), op="add")   # doctest: +SKIP
    array(45)
    """
    key = ("prim.reduce", op, x.shape, x.strides, x.dtype, axis, dtype, keepdims, nan, x.data.device_id)
    p = plans.cache.lookup(key, lambda: _plan(*key[1:]))
    if p.direct is not None and out is None:
        res = backend.cupy().empty(p.shape, dtype=p.kout)
        p.direct(x.data.ptr, res.data.ptr)
        return res
    return _execute(p, x, out, False)


def argreduce(x, *, op, axis=None, keepdims=False, nan=False, out=None):
    """Index of the minimum (``op='argmin'``) or maximum (``'argmax'``) along ``axis`` (None: the
    C-order flattening). Lines must be non-empty (the façade raises NumPy's ValueError).

    Parameters
    ----------
    x : cupy.ndarray
    op : {'argmin', 'argmax'}
        Ties give the first index; NaN: the first NaN wins (unless ``nan``).
    axis : None or int
        Valid, negative counting from the end (the façade checks); None: the C-order flattening.
    keepdims : bool
    nan : bool
        Skip NaN (nanargmin, nanargmax); an all-NaN line returns the index of a NaN (the façade
        raises).
    out : cupy.ndarray, optional
        Destination of the result's shape; the indices are cast into it.

    Returns
    -------
    cupy.ndarray
        int64 indices (cast into ``out`` when given).

    Examples
    --------
    >>> ra.prim.argreduce(cupy.asarray([3, 1, 1]), op="argmin")   # doctest: +SKIP
    array(1)
    """
    key = ("prim.argreduce", op, x.shape, x.strides, x.dtype, axis, keepdims, nan, x.data.device_id)
    p = plans.cache.lookup(key, lambda: _arg_plan(*key[1:]))
    if p.direct is not None and out is None:
        res = backend.cupy().empty(p.shape, dtype=p.kout)
        p.direct(x.data.ptr, res.data.ptr)
        return res
    return _execute(p, x, out, True)
