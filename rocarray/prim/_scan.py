"""Scans (prefix sums/products/minima/maxima) on hand-written HIP kernels (``_kernels/prim/scan.hip``).

Public functions
----------------
``inclusive_scan(x, *, axis=-1, op="add", dtype=None, out=None, nan_as_identity=False)``
    ``out[..., i, ...] = x[..., 0, ...] op ... op x[..., i, ...]`` along ``axis``.
``exclusive_scan(...)``
    Same arguments; the identity comes first: ``out[0] = identity``, ``out[i] = x[0] op ... op x[i-1]``.
``segmented_inclusive_scan(x, heads, *, op="add", dtype=None, out=None)``
    1-D ``x`` and a 1-D bool ``heads`` array of the same length: ``heads[i]`` true starts a new
    segment at ``i`` (element 0 always starts one); the scan restarts at every segment.

``op`` is ``"add"``, ``"mul"``, ``"min"`` or ``"max"`` (min/max not for complex; they propagate NaN
like ``numpy.minimum``/``numpy.maximum``). ``dtype`` is the result dtype; by default NumPy's
``cumsum``/``cumprod`` rule for add/mul (:func:`accumulation_dtype`: bool and signed integers
narrower than 64 bits accumulate in int64, unsigned ones in uint64) and ``x.dtype`` for min/max.
Integer results wrap on overflow like NumPy. float16 accumulates in float32 internally and rounds
once per output element (more accurate than NumPy, which rounds to float16 at every step).

Design
------
* Kernels: ``ra_prim_scan_rows<TIn, TOut, Op>`` scans a batch of rows in one launch with a
  single-pass decoupled look-back (Merrill & Garland 2016), 256 threads per block and ``ITEMS``
  (:func:`tile_items`) elements per thread held in registers: 32 for 4-byte accumulators, 16 for
  8-byte ones, 8 for 16-byte ones, at least one 16-byte vector per lane.
  ``ra_prim_scan_rows_staged`` is the same scan (tickets, status words, look-back, arguments,
  determinism) with each tile of :func:`stage_bytes` input bytes in shared memory, moved there
  by the bulk copy engine on sm_90 (the stage is dynamic shared memory, past the 48 KiB static
  limit): a thread holds one 16-byte vector at a time, four or five tiles stay resident per
  multiprocessor and the loads of the others stay in flight while a block waits for its
  look-back. Plain (not segmented) row scans take it on NVIDIA from compute capability 9.0
  (:func:`staged_rows`) for sums of inputs of at least 4 bytes (:func:`staged_pair`); segmented
  scans, products, minima and maxima, narrower inputs and other devices take the register kernel.
  ``ra_prim_scan_lines`` scans along the middle axis of a C-contiguous
  ``(outer, n, inner)`` array with one thread per line (coalesced across lines); with too few
  lines to fill the device, each line is cut into segments scanned in two passes (segment totals,
  then the scan from the left fold of the earlier totals: 3 memory passes, deterministic).
* Layout: a scan along the last axis (``inner == 1``) of C-contiguous data, or of a 2-D array whose
  rows are contiguous but padded, runs the row kernel on the data in place. A scan along another
  axis runs the line kernel when ``inner >= 8`` or there are at least :data:`MIN_LINES` lines;
  otherwise (a handful of long, narrow-strided columns) the axis is moved last with a copy,
  scanned as rows and moved back. Other
  non-contiguous inputs are first copied C-contiguous. Very short rows (``n <= SHORT_ROW``) use
  the line kernel with ``inner == 1`` (one thread per row).
* Kernel dtypes: the row/line kernels exist for (bool|int8..int64 -> int64), (uint8..uint64 ->
  uint64), and float16/32/64, complex64/128 to themselves (min/max: int64, uint64, float16/32/64).
  Any other (input, result) pair casts the input to the result's kernel dtype first (a copy, as
  NumPy's own loop does); integer results narrower than 64 bits are computed in 64 bits and cast
  down (exact modulo 2**k, so wrap-around matches NumPy); bool results are ``scan(x != 0) != 0``.
* Workspace: the tile status lives in the epoch-tagged workspace ``'prim.scan.status'`` of
  :data:`rocarray._core.workspace.workspaces` (one buffer per device and stream, zeroed only when
  allocated and when the epoch count wraps): each launch gets a new epoch number, so stale status
  words read as "not yet published", and the ticket counter resets itself in the kernel. No
  memset per launch. The segment totals of the two-pass line scan are uninitialized scratch
  (``'prim.scan.line_totals'``).
* Plans: the dtype rules, the layout choice and the prepared launches of a call signature are a
  plan in :data:`rocarray._core.plans.cache` (``('prim.scan', ...)``, and per launch kind
  ``('prim.scan.rows', ...)``, ``('prim.scan.lines', ...)``); a warm call allocates the result
  and passes the data addresses and the workspace epoch.
* Determinism: results are bitwise identical run to run (the look-back folds strictly in tile
  order; no floating-point atomics).
"""

import math

import numpy

from rocarray._core import args as _args
from rocarray._core import backend, dtypes, kernels, launch, plans, workspace
from rocarray._core import compile as _compile

SOURCE = "prim/scan.hip"

#: Threads per block (``RA_PRIM_SCAN_BLOCK``).
BLOCK = 256
#: Byte offset of the tile status in the workspace (``RA_PRIM_STATUS_OFFSET``).
STATUS_OFFSET = 256
#: Fewest lines for the column-parallel kernel; fewer lines move the axis last (a copy).
MIN_LINES = 8192
#: Fewest elements per segment of a line in the column kernel.
MIN_SEGMENT = 64
#: Rows of at most this many elements are scanned one thread per row.
SHORT_ROW = 16
#: Epochs run 1 .. EPOCH_LIMIT - 1 (30 bits in the status words); on wrap the workspace is zeroed.
EPOCH_LIMIT = 1 << 30
#: Most tiles one launch takes (grid limit), rows are batched past it.
MAX_TILES = (1 << 31) - 1
#: Input bytes per tile of the staged row kernel: ``RA_PRIM_STAGE_BYTES_WIDE`` (four resident
#: blocks) where input and result elements have one width of at most 8 bytes, else
#: ``RA_PRIM_STAGE_BYTES_NARROW`` (five); see :func:`stage_bytes`.
STAGE_BYTES_WIDE = 53248
STAGE_BYTES_NARROW = 40960
#: Slack past the stage so the kernel can start it on a 128-byte boundary (``RA_PRIM_STAGE_ALIGN``).
STAGE_ALIGN = 128

OPS = ("add", "mul", "min", "max")
_OP_TAGS = {op: f"ra_prim_op_{op}" for op in OPS}

_B = numpy.dtype(numpy.bool_)
_I64 = numpy.dtype(numpy.int64)
_U64 = numpy.dtype(numpy.uint64)
_F16 = numpy.dtype(numpy.float16)
_F32 = numpy.dtype(numpy.float32)
_F64 = numpy.dtype(numpy.float64)
_C64 = numpy.dtype(numpy.complex64)
_C128 = numpy.dtype(numpy.complex128)

_SIGNED_IN = tuple(numpy.dtype(d) for d in ("bool", "int8", "int16", "int32", "int64"))
_UNSIGNED_IN = tuple(numpy.dtype(d) for d in ("uint8", "uint16", "uint32", "uint64"))
_FLOATS = (_F16, _F32, _F64, _C64, _C128)

#: (input dtype, kernel result dtype) pairs with a kernel, per op.
PAIRS = {
    "add": tuple((d, _I64) for d in _SIGNED_IN) + tuple((d, _U64) for d in _UNSIGNED_IN)
    + tuple((d, d) for d in _FLOATS),
}
PAIRS["mul"] = PAIRS["add"]
PAIRS["min"] = tuple((d, d) for d in (_I64, _U64, _F16, _F32, _F64))
PAIRS["max"] = PAIRS["min"]


# --------------------------------------------------------------------------------------------
# dtype rules and kernel names (pure Python)
# --------------------------------------------------------------------------------------------

def accumulation_dtype(in_dtype, dtype=None):
    """NumPy's result dtype of ``cumsum``/``cumprod``: ``dtype`` if given, else int64 (``numpy.int_``)
    for bool and signed integers narrower than it, uint64 (``numpy.uint``) for narrower unsigned
    integers, and ``in_dtype`` otherwise."""
    if dtype is not None:
        return numpy.dtype(dtype)
    in_dtype = numpy.dtype(in_dtype)
    if in_dtype.kind == "b" or (in_dtype.kind == "i" and in_dtype.itemsize < numpy.dtype(numpy.int_).itemsize):
        return numpy.dtype(numpy.int_)
    if in_dtype.kind == "u" and in_dtype.itemsize < numpy.dtype(numpy.uint).itemsize:
        return numpy.dtype(numpy.uint)
    return in_dtype


def kernel_result_dtype(dtype):
    """The dtype a kernel computes ``dtype`` results in (64-bit for integers and bool)."""
    dtype = numpy.dtype(dtype)
    if dtype.kind in "bi":
        return _I64
    if dtype.kind == "u":
        return _U64
    if dtype in _FLOATS:
        return dtype
    raise TypeError(f"prim scan: unsupported dtype {dtype.name}")


def kernel_input_dtype(in_dtype, result_dtype, op):
    """The input dtype the kernel reads: ``in_dtype`` when a kernel pair exists, else the kernel
    result dtype (the input is cast first)."""
    in_dtype, kout = numpy.dtype(in_dtype), kernel_result_dtype(result_dtype)
    if numpy.dtype(result_dtype).kind == "b":
        return _B if (_B, kout) in PAIRS[op] else kout
    return in_dtype if (in_dtype, kout) in PAIRS[op] else kout


def tile_items(in_dtype, result_dtype):
    """Elements per thread of the row kernel (``ra_prim_items<TIn, A>::ITEMS`` in the source)."""
    in_size = numpy.dtype(in_dtype).itemsize
    acc_size = 4 if numpy.dtype(result_dtype) == _F16 else numpy.dtype(result_dtype).itemsize
    v = 1 if in_size >= 16 else 16 // in_size
    target = 8 if acc_size >= 16 else (32 if acc_size <= 4 else 16)
    return max(v, target)


def stage_bytes(in_dtype, result_dtype):
    """Input bytes per tile of the staged row kernel (``ra_prim_stage_plan<TIn, TOut>::BYTES``):
    :data:`STAGE_BYTES_WIDE` where input and kernel result have one itemsize of at most 8 bytes,
    else :data:`STAGE_BYTES_NARROW`."""
    in_size, out_size = numpy.dtype(in_dtype).itemsize, numpy.dtype(result_dtype).itemsize
    return STAGE_BYTES_WIDE if in_size == out_size <= 8 else STAGE_BYTES_NARROW


def staged_blocks(in_dtype, result_dtype):
    """Resident blocks per multiprocessor the staged kernel is built for (``ra_prim_stage_plan::BLOCKS``)."""
    return 4 if stage_bytes(in_dtype, result_dtype) == STAGE_BYTES_WIDE else 5


def tile_size(in_dtype, result_dtype, kind="rows"):
    """Elements per tile (one block) of the row kernel ``kind`` (``'rows'``, ``'rows_seg'`` or
    ``'rows_staged'``: :func:`stage_bytes` of input)."""
    if kind == "rows_staged":
        return stage_bytes(in_dtype, result_dtype) // numpy.dtype(in_dtype).itemsize
    return BLOCK * tile_items(in_dtype, result_dtype)


#: Smallest input itemsize with a staged row kernel.
STAGED_MIN_ITEMSIZE = 4


def staged_pair(op, in_dtype):
    """Whether the staged row kernel is instantiated for ``op`` on input ``in_dtype``: sums
    (``cumsum``, ``nancumsum``, exclusive sums) of inputs of 4 bytes or more. Each instantiation
    adds to every build of the compile matrix, so products, minima and maxima, and 1- and 2-byte
    inputs (whose 64-bit sums are bound by their writes) keep the register kernel."""
    return op == "add" and numpy.dtype(in_dtype).itemsize >= STAGED_MIN_ITEMSIZE


def staged_rows(is_hip, cc_major):
    """Whether plain row scans take the staged kernel: NVIDIA from compute capability 9.0, where the
    tile moves through the bulk copy engine (``docs/performance/prim.md``). Elsewhere the
    register kernel."""
    return backend.bulk_copy_engine(is_hip, cc_major)


def kernel_name(kind, op, in_dtype, result_dtype):
    """Name expression, e.g. ``'ra_prim_scan_rows<float, float, ra_prim_op_add>'``.

    ``kind`` is ``'rows'``, ``'rows_staged'``, ``'rows_seg'``, ``'lines'`` or ``'lines_totals'``.
    """
    return f"ra_prim_scan_{kind}<{dtypes.ctype(in_dtype)}, {dtypes.ctype(result_dtype)}, {_OP_TAGS[op]}>"


def instantiations():
    """Every name expression this module launches."""
    names = set()
    for op, pairs in PAIRS.items():
        for a, b in pairs:
            names.add(kernel_name("rows", op, a, b))
            if staged_pair(op, a):
                names.add(kernel_name("rows_staged", op, a, b))
            names.add(kernel_name("lines", op, a, b))
            names.add(kernel_name("lines_totals", op, a, b))
            if op in ("add", "mul"):
                names.add(kernel_name("rows_seg", op, a, b))
    return sorted(names)


_compile.register(SOURCE, instantiations())


def check_op(op, dtype):
    """Raise ValueError/TypeError for an unknown op or min/max on complex."""
    if op not in OPS:
        raise ValueError(f"prim scan: op must be one of {OPS}, got {op!r}")
    if op in ("min", "max") and numpy.dtype(dtype).kind == "c":
        raise TypeError(f"prim scan: op {op!r} is not defined for complex dtype {numpy.dtype(dtype).name}")


def workspace_bytes(capacity):
    """Bytes of a workspace for ``capacity`` tiles (packed words, flags, aggregates, prefixes)."""
    return STATUS_OFFSET + capacity * 8 + -(-capacity * 4 // 16) * 16 + 2 * capacity * 16


def lines_segments(lines, length, multiprocessors):
    """Segments per line for the column kernel: enough threads to fill the device (about 4096
    per multiprocessor), segments of at least :data:`MIN_SEGMENT` elements."""
    want = -(-4096 * max(1, multiprocessors) // max(1, lines))
    return int(max(1, min(want, length // MIN_SEGMENT)))


# --------------------------------------------------------------------------------------------
# launches (built into plans)
# --------------------------------------------------------------------------------------------

_kernels = kernels.Family(SOURCE, BLOCK, 8)

#: The row kernel every device takes when set (``'register'`` or ``'staged'``; tests): see
#: :func:`force_row_kernel`.
_forced_row_kernel = [None]


def force_row_kernel(kind):
    """Make plain row scans take the ``'register'`` or the ``'staged'`` row kernel on every device
    (``None``: each device its own, :func:`staged_rows`). A kernel choice is part of a plan, so
    this clears the plan cache. For tests: both kernels must be right on every device."""
    if kind not in (None, "register", "staged"):
        raise ValueError(f"row kernel must be 'register', 'staged' or None, got {kind!r}")
    _forced_row_kernel[0] = kind
    plans.cache.clear()


def _staged(device_id):
    """Whether plain row scans on ``device_id`` take the staged kernel."""
    forced = _forced_row_kernel[0]
    return backend.has_bulk_copy(device_id) if forced is None else forced == "staged"


class _Rows:
    """The row-kernel launches over ``rows`` rows of ``n`` (batches of at most :data:`MAX_TILES`
    tiles), called with the addresses of row 0 of the input, the result and (segmented scans)
    the heads; each launch takes a new epoch of the status workspace."""

    __slots__ = ("batches", "device_id")

    def __call__(self, x_ptr, out_ptr, heads_ptr=None):
        epochs = workspace.workspaces.epochs
        for go, x_off, out_off, heads_off, tiles in self.batches:
            buf, cap, epoch = epochs("prim.scan.status", self.device_id, tiles, workspace_bytes, EPOCH_LIMIT)
            if heads_ptr is None:
                go(x_ptr + x_off, out_ptr + out_off, buf.data.ptr, cap, epoch)
            else:
                go(x_ptr + x_off, heads_ptr + heads_off, out_ptr + out_off, buf.data.ptr, cap, epoch)


def _rows_plan(op, kin, kout, in_row_stride, rows, n, exclusive, nan, segmented, device_id):
    """The :class:`_Rows` of a row scan (``in_row_stride``: elements between input rows)."""
    if segmented:
        kind = "rows_seg"
    else:
        kind = "rows_staged" if staged_pair(op, kin) and _staged(device_id) else "rows"
    kernel = _kernels[kernel_name(kind, op, kin, kout)]
    shared = stage_bytes(kin, kout) + STAGE_ALIGN if kind == "rows_staged" else 0
    tiles_per_row = -(-n // tile_size(kin, kout, kind))
    batch = max(1, MAX_TILES // tiles_per_row)
    ptr, u32 = launch.POINTER, launch.scalar(numpy.uint32)
    run = _Rows()
    run.device_id = device_id
    run.batches = []
    for r0 in range(0, rows, batch):
        r = min(batch, rows - r0)
        tiles = r * tiles_per_row
        sizes = (numpy.int64(r), numpy.int64(n), numpy.uint32(tiles_per_row))
        if segmented:
            args = (ptr, numpy.int64(in_row_stride), ptr, ptr) + sizes + (ptr, u32, u32, numpy.int32(nan))
        else:
            args = ((ptr, numpy.int64(in_row_stride), ptr) + sizes
                    + (ptr, u32, u32, numpy.int32(exclusive), numpy.int32(nan)))
        go = kernel.prepare(device_id, tiles, args, shared=shared)
        run.batches.append((go, r0 * in_row_stride * kin.itemsize, r0 * n * kout.itemsize, r0 * n, tiles))
    run.batches = tuple(run.batches)
    return run


def _rows(op, kin, kout, in_row_stride, rows, n, exclusive, nan, segmented, device_id):
    """The cached :func:`_rows_plan`."""
    return plans.cache.lookup(
        ("prim.scan.rows", op, kin, kout, in_row_stride, rows, n, exclusive, nan, segmented, device_id),
        lambda: _rows_plan(op, kin, kout, in_row_stride, rows, n, exclusive, nan, segmented, device_id))


class _Lines:
    """The line-kernel launches over a C-contiguous ``(outer, n, inner)`` input: one thread per
    line, or (``totals``) each line cut into segments whose totals a first launch writes."""

    __slots__ = ("scan", "totals", "totals_bytes", "device_id")

    def __call__(self, x_ptr, out_ptr):
        if self.totals is None:
            self.scan(x_ptr, out_ptr)
            return
        totals = workspace.workspaces.scratch("prim.scan.line_totals", self.totals_bytes, self.device_id)
        self.totals(x_ptr, totals.data.ptr)
        self.scan(x_ptr, out_ptr, totals.data.ptr)


def _lines_plan(op, kin, kout, outer, n, inner, exclusive, nan, device_id):
    lines = outer * inner
    segs = lines_segments(lines, n, backend.device_info(device_id).multiprocessors)
    seg_len = -(-n // segs)
    segs = -(-n // seg_len)
    blocks = max(1, min(-(-(lines * segs) // BLOCK), 1 << 20))
    i64, ptr = numpy.int64, launch.POINTER
    sizes = (i64(outer), i64(n), i64(inner), i64(seg_len), i64(segs))
    run = _Lines()
    run.device_id = device_id
    run.totals = None
    kernel = _kernels[kernel_name("lines", op, kin, kout)]
    if segs > 1:
        acc = _F32 if kout == _F16 else kout
        run.totals_bytes = lines * segs * acc.itemsize
        run.totals = _kernels[kernel_name("lines_totals", op, kin, kout)].prepare(
            device_id, blocks, (ptr, ptr) + sizes + (numpy.int32(nan),))
        run.scan = kernel.prepare(device_id, blocks, (ptr, ptr, ptr) + sizes
                                  + (numpy.int32(exclusive), numpy.int32(nan)))
    else:
        run.scan = kernel.prepare(device_id, blocks, (ptr, ptr, numpy.uint64(0)) + sizes
                                  + (numpy.int32(exclusive), numpy.int32(nan)))
    return run


def _lines(op, kin, kout, outer, n, inner, exclusive, nan, device_id):
    """The cached :func:`_lines_plan`."""
    return plans.cache.lookup(("prim.scan.lines", op, kin, kout, outer, n, inner, exclusive, nan, device_id),
                              lambda: _lines_plan(op, kin, kout, outer, n, inner, exclusive, nan, device_id))


# How an input layout is scanned (:class:`_Into`).
_ROWS, _ROWS_COPY, _LINES, _LINES_COPY, _MOVE = range(5)


class _Into:
    """The scan of one input layout (kernel input dtype) into a C-contiguous result of its shape
    and the kernel result dtype: the launches, and whether the input is copied first."""

    __slots__ = ("mode", "launches", "axis")

    def __call__(self, x, res):
        mode = self.mode
        if mode == _ROWS or mode == _LINES:
            self.launches(x.data.ptr, res.data.ptr)
        elif mode == _ROWS_COPY or mode == _LINES_COPY:
            xc = backend.cupy().ascontiguousarray(x)
            self.launches(xc.data.ptr, res.data.ptr)
        else:
            # Few long lines: move the axis last (a copy), scan rows, move back (a copy).
            cupy = backend.cupy()
            xm = cupy.ascontiguousarray(cupy.moveaxis(x, self.axis, -1))
            tmp = cupy.empty(xm.shape, dtype=res.dtype)
            self.launches(xm.data.ptr, tmp.data.ptr)
            cupy.copyto(res, cupy.moveaxis(tmp, -1, self.axis))


def _row_stride(x):
    """Element stride between rows if ``x`` (axis last) can be read as rows in place, else None."""
    if x.flags.c_contiguous:
        return x.shape[-1] if x.ndim else 1
    if x.ndim == 2 and x.strides[1] == x.itemsize and x.strides[0] > 0 and x.strides[0] % x.itemsize == 0:
        return x.strides[0] // x.itemsize
    return None


def _into_plan(x, axis, op, kout, exclusive, nan):
    """The :class:`_Into` of ``x``'s layout (its metadata only) along ``axis``."""
    kin, shape, device_id = x.dtype, x.shape, x.data.device_id
    n = shape[axis]
    outer = math.prod(shape[:axis])
    inner = math.prod(shape[axis + 1:])
    contiguous = x.flags.c_contiguous
    p = _Into()
    p.axis = axis
    if inner == 1:
        rows = outer
        if n <= SHORT_ROW and rows > 1:
            p.mode = _LINES if contiguous else _LINES_COPY
            p.launches = _lines(op, kin, kout, rows, n, 1, exclusive, nan, device_id)
            return p
        stride = _row_stride(x.reshape(rows, n) if contiguous else x)
        p.mode = _ROWS if stride is not None else _ROWS_COPY
        p.launches = _rows(op, kin, kout, n if stride is None else stride, rows, n, exclusive, nan, False, device_id)
        return p
    if inner >= 8 or outer * inner >= MIN_LINES or n <= SHORT_ROW:
        p.mode = _LINES if contiguous else _LINES_COPY
        p.launches = _lines(op, kin, kout, outer, n, inner, exclusive, nan, device_id)
        return p
    p.mode = _MOVE
    p.launches = _rows(op, kin, kout, n, outer * inner, n, exclusive, nan, False, device_id)
    return p


def _into(x, axis, op, kout, exclusive, nan):
    """The cached :func:`_into_plan` of ``x``'s layout."""
    return plans.cache.lookup(
        ("prim.scan.into", x.shape, x.strides, x.dtype, axis, op, kout, exclusive, nan, x.data.device_id),
        lambda: _into_plan(x, axis, op, kout, exclusive, nan))


def _finish(res, dtype, out):
    """Kernel result ``res`` as the requested ``dtype`` (bool: nonzero; others: cast), in ``out``."""
    if dtype.kind == "b":
        res = res != 0
    elif res.dtype != dtype:
        res = res.astype(dtype, copy=False)
    if out is None:
        return res
    if res is not out:
        backend.cupy().copyto(out, res, casting="unsafe")
    return out


# How a call converts its input for the kernel (:class:`_Plan`).
_AS_IS, _CAST, _NONZERO = 0, 1, 2


class _Plan:
    """A scan call's plan: its dtypes, axis, input conversion and (input as given) its launches;
    ``error``: the TypeError message of a dtype no kernel takes (raised after the ``out`` checks)."""

    __slots__ = ("dtype", "kout", "kin", "axis", "conv", "empty", "into", "error")


def _plan(x, axis, op, dtype, exclusive, nan):
    """The :class:`_Plan` of a scan of ``x`` (its metadata only)."""
    if dtype is None:
        dtype = x.dtype if op in ("min", "max") else accumulation_dtype(x.dtype)
    dtype = numpy.dtype(dtype)
    check_op(op, dtype)
    if op in ("min", "max"):
        check_op(op, x.dtype)
    p = _Plan()
    p.axis = _args.normalize_axis(axis, x.ndim)
    p.dtype = dtype
    p.error = p.into = None
    try:
        p.kout = kernel_result_dtype(dtype)
    except TypeError as e:
        p.error = str(e)
        return p
    if op in ("min", "max") and p.kout not in (_I64, _U64, _F16, _F32, _F64):
        p.error = f"prim scan: op {op!r} is not defined for dtype {dtype.name}"
        return p
    p.kin = kernel_input_dtype(x.dtype, dtype, op)
    p.empty = x.size == 0
    if dtype.kind == "b":
        p.conv = _NONZERO
    else:
        p.conv = _AS_IS if x.dtype == p.kin else _CAST
    if p.conv == _AS_IS and not p.empty:
        p.into = _into(x, p.axis, op, p.kout, exclusive, nan)
    return p


def _scan(x, axis, op, dtype, out, exclusive, nan):
    _args.device_array(x, "x", "prim scan", dtypes.CTYPES)
    if x.ndim == 0:
        x = x.reshape(1)
        if out is not None and out.ndim == 0:
            out = out.reshape(1)
    # (the axis's type is part of the key: 1.0 == 1, but only an integer is an axis)
    p = plans.cache.lookup(("prim.scan", x.shape, x.strides, x.dtype, axis, type(axis), op, dtype, exclusive, nan,
                            x.data.device_id),
                           lambda: _plan(x, axis, op, dtype, exclusive, nan))
    cupy = backend.cupy()
    if out is not None:
        if not isinstance(out, cupy.ndarray):
            raise TypeError(f"prim scan: out must be a cupy.ndarray, not {type(out).__name__}")
        if out.shape != x.shape:
            raise ValueError(f"prim scan: out has shape {out.shape}, expected {x.shape}")
    if p.error is not None:
        raise TypeError(p.error)
    if p.empty:
        return cupy.empty(x.shape, dtype=p.dtype) if out is None else out
    kout = p.kout
    if p.conv == _AS_IS:
        xin, into = x, p.into
    else:
        xin = (x != 0 if p.conv == _NONZERO else x).astype(p.kin, copy=False)
        into = _into(xin, p.axis, op, kout, exclusive, nan)
    direct = (out is not None and out.dtype == kout and out.flags.c_contiguous
              and (out is xin or not cupy.may_share_memory(out, xin)))
    res = out if direct else cupy.empty(x.shape, dtype=kout)
    into(xin, res)
    return _finish(res, p.dtype, out)


def inclusive_scan(x, *, axis=-1, op="add", dtype=None, out=None, nan_as_identity=False):
    """Inclusive scan of ``x`` along ``axis`` (see the module docstring for dtypes and layout).

    Parameters
    ----------
    x : cupy.ndarray
        Any shape (0-d is treated as shape ``(1,)``), any supported dtype, any strides.
    axis : int
        Axis to scan along (negative counts from the end).
    op : {'add', 'mul', 'min', 'max'}
    dtype : dtype, optional
        Result dtype (default: :func:`accumulation_dtype` for add/mul, ``x.dtype`` for min/max).
    out : cupy.ndarray, optional
        Result array of x's shape; any dtype (cast into, like NumPy), any strides.
    nan_as_identity : bool
        Treat NaN inputs as the identity (``nancumsum``/``nancumprod``).

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.prim.inclusive_scan(cupy.arange(5), axis=0)   # doctest: +SKIP
    array([ 0,  1,  3,  6, 10])
    """
    return _scan(x, axis, op, dtype, out, False, bool(nan_as_identity))


def exclusive_scan(x, *, axis=-1, op="add", dtype=None, out=None, nan_as_identity=False):
    """Exclusive scan: ``out[0]`` is the identity (0, 1, +inf for min, -inf for max) and ``out[i]``
    combines ``x[0]`` through ``x[i-1]`` with ``op``.

    Parameters
    ----------
    x : cupy.ndarray
        Any shape (0-d is treated as shape ``(1,)``), any supported dtype, any strides.
    axis : int
        Axis to scan along (negative counts from the end).
    op : {'add', 'mul', 'min', 'max'}
    dtype : dtype, optional
        Result dtype (default: :func:`accumulation_dtype` for add/mul, ``x.dtype`` for min/max).
    out : cupy.ndarray, optional
        Result array of x's shape; any dtype (cast into, like NumPy), any strides.
    nan_as_identity : bool
        Treat NaN inputs as the identity.

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> ra.prim.exclusive_scan(cupy.arange(1, 5), axis=0)   # doctest: +SKIP
    array([0, 1, 3, 6])
    """
    return _scan(x, axis, op, dtype, out, True, bool(nan_as_identity))


def segmented_inclusive_scan(x, heads, *, op="add", dtype=None, out=None):
    """Inclusive scan of 1-D ``x`` restarting at every segment head.

    Parameters
    ----------
    x : cupy.ndarray
        1-D.
    heads : cupy.ndarray
        1-D bool of ``x``'s length; ``heads[i]`` true starts a new segment at ``i`` (``x[0]`` always
        starts one).
    op : {'add', 'mul'}
    dtype : dtype, optional
        Result dtype (default: :func:`accumulation_dtype`).
    out : cupy.ndarray, optional
        Result array of x's shape; any dtype (cast into, like NumPy).

    Returns
    -------
    cupy.ndarray

    Examples
    --------
    >>> x = cupy.ones(6); h = cupy.array([1, 0, 0, 1, 0, 0], bool)
    >>> ra.prim.segmented_inclusive_scan(x, h)   # doctest: +SKIP
    array([1., 2., 3., 1., 2., 3.])
    """
    cupy = backend.cupy()
    _args.device_array(x, "x", "prim scan", dtypes.CTYPES)
    _args.device_array(heads, "heads", "prim scan", dtypes.CTYPES)
    if op not in ("add", "mul"):
        raise ValueError(f"prim scan: segmented scans take op 'add' or 'mul', got {op!r}")
    if x.ndim != 1 or heads.ndim != 1 or heads.shape != x.shape or heads.dtype != _B:
        raise ValueError(f"prim scan: x and heads must be 1-D of one length and heads bool, "
                         f"got {x.shape} and {heads.shape} {heads.dtype.name}")
    dtype = accumulation_dtype(x.dtype, dtype)
    check_op(op, dtype)
    if out is not None:
        if not isinstance(out, cupy.ndarray):
            raise TypeError(f"prim scan: out must be a cupy.ndarray, not {type(out).__name__}")
        if out.shape != x.shape:
            raise ValueError(f"prim scan: out has shape {out.shape}, expected {x.shape}")
    n = x.shape[0]
    if n == 0:
        return cupy.empty(0, dtype=dtype) if out is None else out
    kout = kernel_result_dtype(dtype)
    kin = kernel_input_dtype(x.dtype, dtype, op)
    xin = (x != 0 if dtype.kind == "b" else x).astype(kin, copy=False)
    xin = cupy.ascontiguousarray(xin)
    h = cupy.ascontiguousarray(heads)
    res = cupy.empty(n, dtype=kout)
    _rows(op, kin, kout, n, 1, n, False, False, True, x.data.device_id)(xin.data.ptr, res.data.ptr, h.data.ptr)
    return _finish(res, dtype, out)
