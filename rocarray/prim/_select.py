"""Stream compaction on hand-written HIP kernels (``_kernels/prim/select.hip``).

Public functions (hipCUB-like names; inputs are ``cupy.ndarray``, read in C order)
----------------------------------------------------------------------------------
``select_flagged(x, flags)``
    The elements of ``x`` whose flag is nonzero, in order (``x[flags != 0]`` on the flat arrays).
``select_if_nonzero(x)``
    The nonzero elements of ``x``, in order.
``nonzero_indices(x)``
    Flat int64 indices of the nonzero elements of ``x`` (``numpy.flatnonzero``).
``nonzero_coords(x, layout='rows')``
    Their C-order coordinates: ``(ndim, N)`` (``layout='rows'``, numpy.nonzero) or ``(N, ndim)``
    (``layout='columns'``, numpy.argwhere).
``mask_select(x, mask)``
    ``x[mask]`` for a bool ``mask`` whose shape is the leading part of ``x.shape``.

Design
------
``ra_prim_select<F, V>`` is single-pass with decoupled look-back over per-tile counts of selected
elements (Merrill & Garland 2016): 256 threads x 16 elements per tile, the selected positions
staged in shared memory so the outputs are written with coalesced stores, the count into a device
scalar. Bytes moved: the flags (+ the selected values) read, the selected values/indices written.
Outputs are allocated for the worst case (every element selected); the count is read back (one
sync, needed for the result's shape anyway) and the result is a view of the buffer when at least
a quarter was used, else a compact copy.

Workspace: the tile status words live in the epoch-tagged workspace ``'prim.select.status'`` of
:data:`rocarray._core.workspace.workspaces` (shared with :mod:`rocarray.prim._unique`), zeroed only
when allocated and when the epoch count wraps: the 64-bit status words carry a per-launch epoch,
the ticket counter resets itself.

Plans: the prepared launch of a compaction signature (flag and value dtypes, length, outputs,
coordinate layout) is kept in :data:`rocarray._core.plans.cache` (``('prim.select', ...)``, with
the device copy of the shape for coordinates); a call passes the addresses and the epoch.
"""

import numpy

from rocarray._core import args as _args
from rocarray._core import backend, dtypes, kernels, launch, plans, workspace
from rocarray._core import compile as _compile

SOURCE = "prim/select.hip"

#: Threads per block (``RA_PRIM_SEL_BLOCK``) and elements per tile (``RA_PRIM_SEL_TILE``).
BLOCK = 256
TILE = 256 * 16
#: Byte offset of the tile status words in the workspace (``RA_PRIM_SEL_STATUS_OFFSET``).
STATUS_OFFSET = 256
#: Epochs run 1 .. EPOCH_LIMIT - 1 (22 bits in the status words); on wrap the workspace is zeroed.
EPOCH_LIMIT = 1 << 22
#: Most tiles one launch takes.
MAX_TILES = (1 << 31) - 1

_B = numpy.dtype(numpy.bool_)
_I64 = numpy.dtype(numpy.int64)

#: The dtypes the kernels take.
DTYPES = tuple(numpy.dtype(d) for d in dtypes.ALL_DTYPES)


# --------------------------------------------------------------------------------------------
# kernel names (pure Python)
# --------------------------------------------------------------------------------------------

def bits_ctype(dtype):
    """Kernel type that copies one ``dtype`` element (by size; 16 bytes as ``ra_c128``)."""
    size = numpy.dtype(dtype).itemsize
    return dtypes.ctype(numpy.complex128) if size == 16 else dtypes.UNSIGNED[size]


def flag_ctype(dtype):
    """Kernel type the nonzero test reads ``dtype`` as (floats and complex by value, integers and
    bool by their bits)."""
    dtype = numpy.dtype(dtype)
    return dtypes.ctype(dtype) if dtype.kind in "fc" else bits_ctype(dtype)


def select_name(flag_dtype, value_dtype):
    """``'ra_prim_select<F, V>'``: flags read as ``flag_dtype``, values copied as ``value_dtype``."""
    return f"ra_prim_select<{flag_ctype(flag_dtype)}, {bits_ctype(value_dtype)}>"


def instantiations():
    """Every compaction name expression this module launches."""
    names = set()
    for d in DTYPES:
        names.add(select_name(d, d))             # nonzero / select_if_nonzero of d
        names.add(select_name(_B, d))            # select_flagged with bool flags
    return sorted(names)


_compile.register(SOURCE, instantiations())


def keep_view(count, capacity):
    """Whether a result of ``count`` elements stays a view of its ``capacity`` buffer (at least a
    quarter used: a copy would cost more than the memory it frees is worth)."""
    return 4 * count >= capacity


# --------------------------------------------------------------------------------------------
# plans and launches
# --------------------------------------------------------------------------------------------

#: The kernels of ``select.hip`` (compaction and unique).
family = kernels.Family(SOURCE, BLOCK, 8)


def workspace_bytes(capacity):
    """Bytes of a workspace for ``capacity`` tiles (ticket counter, 64-bit status words)."""
    return STATUS_OFFSET + capacity * 8


def status(device_id, tiles):
    """``(buffer, epoch)`` of the status workspace for a launch of ``tiles`` tiles on the current
    stream (hold the buffer until the launch is queued)."""
    buf, _, epoch = workspace.workspaces.epochs("prim.select.status", device_id, tiles, workspace_bytes, EPOCH_LIMIT)
    return buf, epoch


def flat(x):
    """C-order 1-D contiguous view or copy of ``x``."""
    if not x.flags.c_contiguous:
        x = backend.cupy().ascontiguousarray(x)
    return x.reshape(-1)


def host_count(count):
    """The device scalar ``count`` (int64, one element) read back."""
    return int(backend.cupy().asnumpy(count)[0])


class _Select:
    """The prepared compaction launch of one signature; ``shape``: the device copy of the input's
    shape (coordinates of a 2-D or more input)."""

    __slots__ = ("go", "tiles", "shape", "values", "indices", "device_id")


def _plan(flag_dtype, value_dtype, n, values, indices, shape, pos_stride, dim_stride, device_id):
    if -(-n // TILE) > MAX_TILES:
        raise ValueError(f"prim select: {n} elements is more than one launch takes")
    p = _Select()
    p.tiles, p.values, p.indices, p.device_id = -(-n // TILE), values, indices, device_id
    p.shape = None
    ptr, null = launch.POINTER, numpy.uint64(0)
    if shape is not None and len(shape) > 1:
        p.shape = backend.cupy().asarray(numpy.array(shape, dtype=numpy.int64))
    ndim = 0 if shape is None else len(shape)
    kernel = family[select_name(flag_dtype, value_dtype)]
    p.go = kernel.prepare(device_id, p.tiles,
                          (ptr, ptr, numpy.int64(n), ptr if values else null, ptr if indices else null,
                           numpy.uint64(p.shape.data.ptr) if p.shape is not None else null, numpy.int32(ndim),
                           numpy.int64(pos_stride), numpy.int64(dim_stride), ptr, ptr, launch.scalar(numpy.uint32)))
    return p


def launch_select(flags, src, out_val, out_idx, shape=None, pos_stride=1, dim_stride=0):
    """One ``ra_prim_select`` launch over the flat, contiguous ``flags``; returns the count.
    ``shape``: write C-order coordinates of an input of that shape (``out_idx`` rows of
    ``pos_stride``, dimensions ``dim_stride`` apart) instead of flat indices."""
    n = flags.size
    if n == 0:
        return 0
    device_id = flags.data.device_id
    values, indices = out_val is not None, out_idx is not None
    vdtype = src.dtype if src is not None else flags.dtype
    p = plans.cache.lookup(("prim.select", flags.dtype, vdtype, n, values, indices, shape, pos_stride, dim_stride,
                            device_id),
                           lambda: _plan(flags.dtype, vdtype, n, values, indices, shape, pos_stride, dim_stride,
                                         device_id))
    buf, epoch = status(device_id, p.tiles)
    count = backend.cupy().empty(1, dtype=_I64)  # the last tile's block writes it
    ptrs = [flags.data.ptr, (src if src is not None else flags).data.ptr]
    if values:
        ptrs.append(out_val.data.ptr)
    if indices:
        ptrs.append(out_idx.data.ptr)
    p.go(*ptrs, count.data.ptr, buf.data.ptr, epoch)
    return host_count(count)


def trim(a, count):
    """First ``count`` elements (along axis 0) of the worst-case buffer ``a``."""
    res = a[:count]
    return res if keep_view(count, a.shape[0]) else res.copy()


def check(x, name="x"):
    """``x`` if it is a device array of a dtype the kernels take, else ``TypeError``."""
    return _args.device_array(x, name, "prim select", DTYPES)


def _as_bool_flags(flags):
    """Flat contiguous bool flags (``flags != 0`` for other dtypes)."""
    f = flat(flags)
    return f if f.dtype == _B else f != 0


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------

def select_flagged(x, flags):
    """Elements of ``x`` whose flag is nonzero, in C order.

    Parameters
    ----------
    x : cupy.ndarray
        Values, any shape and dtype.
    flags : cupy.ndarray
        Same number of elements as ``x``; any dtype (nonzero selects).

    Returns
    -------
    cupy.ndarray
        1-D, ``x.dtype``.

    Examples
    --------
    >>> ra.prim.select_flagged(cupy.arange(5), cupy.array([1, 0, 1, 0, 1], bool))   # doctest: +SKIP
    array([0, 2, 4])
    """
    check(x)
    check(flags, "flags")
    if flags.size != x.size:
        raise ValueError(f"prim select: flags has {flags.size} elements, x has {x.size}")
    xf = flat(x)
    f = _as_bool_flags(flags)
    out = backend.cupy().empty(xf.size, dtype=x.dtype)
    count = launch_select(f, xf, out, None)
    return trim(out, count)


def select_if_nonzero(x):
    """The nonzero elements of ``x`` in C order (1-D).

    Parameters
    ----------
    x : cupy.ndarray
        Values, any shape and dtype (nonzero selects; -0.0 is zero).

    Returns
    -------
    cupy.ndarray
        1-D, ``x.dtype``.

    Examples
    --------
    >>> ra.prim.select_if_nonzero(cupy.array([0., 2., -0., 3.]))   # doctest: +SKIP
    array([2., 3.])
    """
    check(x)
    xf = flat(x)
    out = backend.cupy().empty(xf.size, dtype=x.dtype)
    count = launch_select(xf, xf, out, None)
    return trim(out, count)


def nonzero_indices(x):
    """Flat (C-order) int64 indices of the nonzero elements of ``x`` (``numpy.flatnonzero``).

    Parameters
    ----------
    x : cupy.ndarray
        Any shape and dtype.

    Returns
    -------
    cupy.ndarray
        1-D int64 indices.

    Examples
    --------
    >>> ra.prim.nonzero_indices(cupy.array([0, 3, 0, 1]))   # doctest: +SKIP
    array([1, 3])
    """
    check(x)
    xf = flat(x)
    idx = backend.cupy().empty(xf.size, dtype=_I64)
    count = launch_select(xf, xf, None, idx)
    return trim(idx, count)


def nonzero_coords(x, layout="rows"):
    """C-order coordinates of the nonzero elements of ``x`` (``x.ndim >= 1``).

    Parameters
    ----------
    x : cupy.ndarray
    layout : {'rows', 'columns'}
        ``'rows'``: a tuple of ``x.ndim`` int64 arrays (``numpy.nonzero``); ``'columns'``: one
        ``(N, ndim)`` int64 array (``numpy.argwhere``).
    """
    cupy = backend.cupy()
    check(x)
    ndim = x.ndim
    xf = flat(x)
    n = xf.size
    if layout == "rows":
        buf = cupy.empty((ndim, n), dtype=_I64)
        count = launch_select(xf, xf, None, buf, x.shape, 1, n)
        rows = [buf[d, :count] for d in range(ndim)]
        if not keep_view(count, n):
            rows = [r.copy() for r in rows]
        return tuple(rows)
    if layout == "columns":
        buf = cupy.empty((n, ndim), dtype=_I64)
        count = launch_select(xf, xf, None, buf, x.shape, ndim, 1)
        return trim(buf, count)
    raise ValueError(f"prim select: layout must be 'rows' or 'columns', got {layout!r}")


def mask_select(x, mask):
    """``x[mask]`` for a bool ``mask`` whose shape equals the first ``mask.ndim`` dims of ``x``.

    Parameters
    ----------
    x : cupy.ndarray
        Values, any dtype.
    mask : cupy.ndarray
        bool (else ``TypeError``), of ``x``'s leading shape (else ``IndexError``).

    Returns
    -------
    cupy.ndarray
        Shape ``(N,) + x.shape[mask.ndim:]``.

    Examples
    --------
    >>> x = cupy.arange(6).reshape(3, 2)
    >>> ra.prim.mask_select(x, cupy.array([True, False, True]))   # doctest: +SKIP
    array([[0, 1],
           [4, 5]])
    """
    check(x)
    check(mask, "mask")
    if mask.dtype != _B:
        raise TypeError(f"prim select: mask must be bool, not {mask.dtype.name}")
    k = mask.ndim
    if x.shape[:k] != mask.shape:
        raise IndexError(f"boolean index of shape {mask.shape} does not match the indexed array's "
                         f"leading dimensions {x.shape[:k]}")
    if k == x.ndim:
        return select_flagged(x, mask)
    rows = int(numpy.prod(mask.shape, dtype=numpy.int64))
    rest = x.shape[k:]
    idx = nonzero_indices(mask)
    return backend.cupy().take(x.reshape((rows,) + rest), idx, axis=0)
