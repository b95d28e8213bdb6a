"""Histograms on hand-written HIP kernels (``rocarray/_kernels/prim/histogram.hip``).

hipCUB-style entry points with NumPy's bin rules:

* :func:`histogram_even` -- ``num_levels - 1`` uniform bins between ``lower`` and ``upper``
  (hipCUB's ``HistogramEven``), but with ``numpy.histogram``'s rules: the last bin is closed on
  the right and the bin index is computed exactly as NumPy computes it (``int((x - first) / (last -
  first) * bins)`` followed by NumPy's comparisons against the edge array), so counts equal
  NumPy's bit for bit, values exactly on edges included;
* :func:`histogram_range` -- bins given by a non-decreasing edge array (hipCUB's
  ``HistogramRange``): bin ``b`` holds ``edges[b] <= x < edges[b + 1]``, the last bin also
  ``x == edges[-1]``, compared in float64;
* :func:`bincount_counts` (one fused pass: counts into a guessed size plus ``max(x)`` and the
  negative flag), :func:`bincount` (exact size, optionally weighted) and :func:`bincount_bounds`
  (``max(x)`` and the negative flag alone) -- the pieces of ``numpy.bincount``.

Counts are int64 (64-bit atomics merge per-block shared-memory histograms); weighted results are
float64 and deterministic (no floating-point atomics; see the kernel source). Data are 1-D CuPy
arrays of any element stride; weights are 1-D float64 CuPy arrays of the same length. Nothing here
validates user input beyond what the kernels need: the façade (:mod:`rocarray._numpy.histograms`)
does that once.

Plans: the launches of a histogram signature (kind, data dtype and length, stride, bins, weights)
are prepared once and kept in :data:`rocarray._core.plans.cache` (``('prim.histogram', ...)``,
``('prim.bincount_max', ...)``); the uniform-bin setup of a range (NumPy's edges, the kernel's
binning scalars, the device edges) is a plan too (``('prim.histogram_even', ...)``).
"""

import math

import numpy

from rocarray._core import backend, dtypes, kernels, launch, plans
from rocarray._core import args as _args
from rocarray._core import compile as _compile

SOURCE = "prim/histogram.hip"

#: Threads per block (``RA_PRIM_HIST_BLOCK``).
BLOCK = 256
#: 16-byte packs per thread per loop trip (``RA_PRIM_HIST_UNROLL``).
UNROLL = 4
#: Blocks per multiprocessor aimed for (2048 resident threads per SM/CU).
BLOCKS_PER_MULTIPROCESSOR = 2048 // BLOCK
#: Partials budget (float64 values) of the weighted kernels' global-memory mode.
PARTIALS_BUDGET = 1 << 24


def smem_words(is_hip):
    """32-bit words of shared memory per block for private histograms (``RA_PRIM_HIST_SMEM_WORDS``)."""
    return 4096 if is_hip else 8192


_D = numpy.dtype
#: Data dtypes the kernels read (bool data is read as uint8).
DTYPES = tuple(_D(d) for d in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
                               "float16", "float32", "float64"))
INT_DTYPES = tuple(d for d in DTYPES if d.kind in "iu")
#: (data dtype, comparison dtype) pairs of the uniform-bin kernels.
EVEN_PAIRS = tuple(
    [(_D("float16"), _D("float32")), (_D("float16"), _D("float64")), (_D("float32"), _D("float32")),
     (_D("float32"), _D("float64")), (_D("float64"), _D("float64"))]
    + [(d, _D("float64")) for d in INT_DTYPES]
)
_F64 = _D("float64")


def instantiations():
    """Every name expression this module launches (registered with the compile layer)."""
    ct = dtypes.ctype
    names = []
    for d in INT_DTYPES:
        names += [f"ra_prim_bincount_max<{ct(d)}>", f"ra_prim_bincount<{ct(d)}>", f"ra_prim_bincount_weighted<{ct(d)}>"]
    for d, c in EVEN_PAIRS:
        names += [f"ra_prim_histogram_even<{ct(d)}, {ct(c)}>", f"ra_prim_histogram_even_weighted<{ct(d)}, {ct(c)}>"]
    for d in DTYPES:
        names += [f"ra_prim_histogram_range<{ct(d)}, double>", f"ra_prim_histogram_range_weighted<{ct(d)}, double>"]
    return sorted(set(names))


_compile.register(SOURCE, instantiations())


# --------------------------------------------------------------------------------------------
# plans and launches
# --------------------------------------------------------------------------------------------

_kernels = kernels.Family(SOURCE, BLOCK, BLOCKS_PER_MULTIPROCESSOR)


def grid_size(n, itemsize, unit, wave):
    """Blocks for ``n`` elements: at most one wave, UNROLL packs (or elements) per thread."""
    work = -(-n // (16 // itemsize)) if unit else n
    return max(1, min(-(-work // (BLOCK * UNROLL)), wave))


def replicas_for(nbins, is_hip, warp_size):
    """Private shared-memory copies per block for ``nbins`` counters (0: global atomics)."""
    return min(BLOCK // warp_size, smem_words(is_hip) // max(nbins, 1))


def weighted_layout(nbins, is_hip, warp_size, blocks):
    """``(in_shared, grid, rows)`` of the deterministic weighted kernels for ``blocks`` wanted."""
    warps = BLOCK // warp_size
    if warps * nbins <= smem_words(is_hip) // 2:
        return 1, blocks, blocks
    grid = max(1, min(blocks, PARTIALS_BUDGET // (warps * nbins)))
    return 0, grid, grid * warps


def merge_kernel(nbins, rows):
    """``(kernel, grid)`` summing ``rows`` partial histograms: a block per bin for few bins and many
    rows (``ra_prim_hist_merge_wide``), else a thread per bin (``ra_prim_hist_merge``)."""
    if nbins <= 2048 and rows >= 64:
        return "ra_prim_hist_merge_wide", nbins
    return "ra_prim_hist_merge", max(1, min(-(-nbins // BLOCK), 4096))


def _step(x):
    """Element step of a 1-D device array (its stride must be a multiple of its item size)."""
    if x.size <= 1:
        return 1
    stride = x.strides[0]
    if stride % x.dtype.itemsize:
        raise ValueError(f"stride of {stride} bytes is not a multiple of the item size {x.dtype.itemsize}")
    return stride // x.dtype.itemsize


def _data(x):
    """The kernel's view of 1-D device data: bool is read as uint8."""
    _args.device_array(x, "x", "prim histograms")
    if x.dtype == numpy.bool_:
        x = x.view(numpy.uint8)
    if x.dtype not in DTYPES:
        raise TypeError(f"prim histograms: unsupported dtype {x.dtype.name}")
    return x


def _extra_slots(kind, cmp):
    """The per-call kernel arguments between the data and the bin count of a histogram ``kind``:
    the device edges and (uniform bins) the binning scalars of :class:`_Even` (``cmp``: their
    comparison dtype)."""
    if kind == "histogram_even":
        c, f64, i32 = launch.scalar(cmp), launch.scalar(numpy.float64), launch.scalar(numpy.int32)
        return (launch.POINTER, c, c, f64, f64, i32, i32)
    if kind == "histogram_range":
        return (launch.POINTER,)
    return ()


class _Hist:
    """The prepared launches of one histogram signature: ``count`` (counts, or the weighted
    partial histograms) and, weighted, ``merge`` (partials into the result)."""

    __slots__ = ("count", "merge", "rows", "in_shared", "device_id")


def _plan(kind, tname, cmp, dtype, n, step, nbins, wstep, device_id):
    """The :class:`_Hist` of a counting (``wstep`` None) or weighted histogram of ``n`` elements of
    ``dtype`` at element ``step`` into ``nbins`` bins."""
    info = backend.device_info(device_id)
    i64, ptr = numpy.int64, launch.POINTER
    extra = _extra_slots(kind, cmp)
    run = _Hist()
    run.device_id = device_id
    run.merge = None
    if wstep is None:
        kernel = _kernels[f"ra_prim_{kind}<{tname}>"]
        grid = grid_size(n, dtype.itemsize, step == 1, kernel.wave(device_id))
        replicas = replicas_for(nbins, info.is_hip, info.warp_size)
        tail = (ptr,) if kind == "bincount" else ()
        run.count = kernel.prepare(device_id, grid, (ptr, i64(n), i64(step)) + extra
                                   + (i64(nbins), numpy.int32(replicas), ptr) + tail)
        return run
    kernel = _kernels[f"ra_prim_{kind}_weighted<{tname}>"]
    blocks = grid_size(n, 1, False, kernel.wave(device_id))
    run.in_shared, grid, run.rows = weighted_layout(nbins, info.is_hip, info.warp_size, blocks)
    run.count = kernel.prepare(device_id, grid, (ptr, i64(n), i64(step), ptr, i64(wstep)) + extra
                               + (i64(nbins), numpy.int32(run.in_shared), ptr))
    merge, merge_grid = merge_kernel(nbins, run.rows)
    run.merge = _kernels[merge].prepare(device_id, merge_grid, (ptr, i64(run.rows), i64(nbins), ptr))
    return run


def _run(kind, tname, x, nbins, extra=(), weights=None, bounds=None, cmp=None):
    """Launch a counting or weighted histogram over x; returns int64 counts or float64 sums.
    ``extra``: the values of :func:`_extra_slots`; ``bounds``: bincount's (max, negative) words."""
    cupy = backend.cupy()
    device_id = x.data.device_id
    n = x.size
    step = _step(x)
    if weights is None:
        out = cupy.zeros(nbins, dtype=numpy.uint64)
        if n == 0 or nbins == 0:
            return out.view(numpy.int64)
    else:
        out = cupy.zeros(nbins, dtype=numpy.float64)
        if n == 0 or nbins == 0:
            return out
    wstep = None if weights is None else _step(weights)
    run = plans.cache.lookup(("prim.histogram", kind, tname, x.dtype, n, step, nbins, wstep, device_id),
                             lambda: _plan(kind, tname, cmp, x.dtype, n, step, nbins, wstep, device_id))
    with launch.on_device(device_id):
        if weights is None:
            if bounds is None:
                run.count(x.data.ptr, *extra, out.data.ptr)
            else:
                run.count(x.data.ptr, *extra, out.data.ptr, bounds.data.ptr)
            return out.view(numpy.int64)
        partials = (cupy.empty if run.in_shared else cupy.zeros)(run.rows * nbins, dtype=numpy.float64)
        run.count(x.data.ptr, weights.data.ptr, *extra, partials.data.ptr)
        run.merge(partials.data.ptr, out.data.ptr)
    return out


# --------------------------------------------------------------------------------------------
# bincount
# --------------------------------------------------------------------------------------------

def _bounds_plan(dtype, n, step, device_id):
    kernel = _kernels[f"ra_prim_bincount_max<{dtypes.ctype(dtype)}>"]
    return kernel.prepare(device_id, grid_size(n, dtype.itemsize, step == 1, kernel.wave(device_id)),
                          (launch.POINTER, numpy.int64(n), numpy.int64(step), launch.POINTER))


def bincount_bounds(x):
    """``(max(x), any(x < 0))`` of 1-D integer device data, in one pass and one device sync.

    Returns ``(-1, False)`` for empty ``x``. uint64 values of 2**63 and more count as negative
    (they are not valid ``intp`` bin numbers).
    """
    cupy = backend.cupy()
    x = _data(x)
    if x.size == 0:
        return -1, False
    result = cupy.zeros(2, dtype=numpy.uint64)
    device_id = x.data.device_id
    n, step, dtype = x.size, _step(x), x.dtype
    go = plans.cache.lookup(("prim.bincount_max", dtype, n, step, device_id),
                            lambda: _bounds_plan(dtype, n, step, device_id))
    with launch.on_device(device_id):
        go(x.data.ptr, result.data.ptr)
    host = cupy.asnumpy(result)
    return int(host[0]), bool(host[1])


#: Bins the fused bincount pass guesses when minlength is smaller (shared-memory path).
GUESS_BINS = 1024


def bincount_counts(x, num_bins):
    """One fused pass: int64 counts of the values of ``x`` in ``[0, num_bins)``, plus the bounds.

    Returns ``(counts, max(x), any(x < 0))`` after one device sync (the bounds are read back).
    When ``max(x) < num_bins`` and nothing is negative, ``counts[:max(x) + 1]`` is
    ``numpy.bincount(x)``; otherwise call :func:`bincount` with the exact size.
    """
    cupy = backend.cupy()
    x = _data(x)
    if x.dtype.kind not in "iu":
        raise TypeError(f"prim.bincount: integer data required, got {x.dtype.name}")
    if x.size == 0:
        return cupy.zeros(num_bins, dtype=numpy.int64), -1, False
    bounds = cupy.zeros(2, dtype=numpy.uint64)
    counts = _run("bincount", dtypes.ctype(x.dtype), x, int(num_bins), bounds=bounds)
    host = cupy.asnumpy(bounds)
    return counts, int(host[0]), bool(host[1])


def bincount(x, num_bins, weights=None):
    """Count (or sum ``weights`` over) each value of ``x`` in ``[0, num_bins)``.

    Parameters
    ----------
    x : cupy.ndarray
        1-D integer (or bool) device data; values outside ``[0, num_bins)`` are not counted.
    num_bins : int
        Output length.
    weights : cupy.ndarray, optional
        1-D float64 device array of x's length.

    Returns
    -------
    cupy.ndarray
        int64 counts, or float64 sums (deterministic) when ``weights`` is given.
    """
    x = _data(x)
    if x.dtype.kind not in "iu":
        raise TypeError(f"prim.bincount: integer data required, got {x.dtype.name}")
    bounds = backend.cupy().zeros(2, dtype=numpy.uint64) if weights is None else None
    return _run("bincount", dtypes.ctype(x.dtype), x, int(num_bins), weights=weights, bounds=bounds)


# --------------------------------------------------------------------------------------------
# histogram
# --------------------------------------------------------------------------------------------

def unsigned_subtract(a, b):
    """``numpy.histogram``'s ``last - first`` (integers subtract as unsigned, without overflow)."""
    signed_to_unsigned = {
        numpy.byte: numpy.ubyte, numpy.short: numpy.ushort, numpy.intc: numpy.uintc,
        numpy.int_: numpy.uint, numpy.longlong: numpy.ulonglong,
    }
    dt = numpy.result_type(a, b)
    unsigned = signed_to_unsigned.get(dt.type)
    if unsigned is None:
        return numpy.subtract(a, b, dtype=dt)
    return numpy.subtract(numpy.asarray(a, dtype=dt), numpy.asarray(b, dtype=dt), casting="unsafe",
                          dtype=unsigned)


def edge_dtype(lower, upper, dtype):
    """``numpy.histogram``'s edge dtype for uniform bins on data of ``dtype``."""
    bin_type = numpy.result_type(lower, upper, numpy.dtype(dtype))
    if numpy.issubdtype(bin_type, numpy.integer) or bin_type == numpy.bool_:
        bin_type = numpy.result_type(bin_type, float)
    return bin_type


def even_edges(lower, upper, num_bins, dtype):
    """Host edges of ``num_bins`` uniform bins, exactly ``numpy.histogram_bin_edges``'s."""
    return numpy.linspace(lower, upper, num_bins + 1, endpoint=True, dtype=edge_dtype(lower, upper, dtype))


_Q_MODES = {numpy.dtype(numpy.float64): 0, numpy.dtype(numpy.float32): 1, numpy.dtype(numpy.float16): 2}


def even_binning(lower, upper, num_bins, dtype):
    """How ``numpy.histogram`` bins data of ``dtype`` into ``num_bins`` uniform bins.

    Returns a dict: ``edges`` (host, NumPy's edge array), ``cmp`` (the kernel's comparison dtype,
    float32 or float64), ``sub_half`` (``x - first`` rounds to float16), ``q_mode`` (dtype of
    ``(x - first) / (last - first) * bins``: 0 float64, 1 float32, 2 float16), ``denom`` and
    ``nbins_q`` (``last - first`` and ``bins`` as NumPy holds them in that dtype).
    """
    edges = even_edges(lower, upper, num_bins, dtype)
    bin_type = edges.dtype
    with numpy.errstate(all="ignore"):
        d_dt = unsigned_subtract(numpy.zeros(1, bin_type), lower).dtype
        denom = unsigned_subtract(upper, lower)
        q_dt = (numpy.zeros(1, d_dt) / denom).dtype
        if q_dt not in _Q_MODES:
            q_dt = _F64
        nbins_q = float(numpy.asarray(num_bins).astype(q_dt))
        denom_q = float(numpy.asarray(denom).astype(q_dt))
    cmp = numpy.dtype(numpy.float32) if bin_type.itemsize <= 4 and bin_type.kind == "f" else _F64
    return {"edges": edges, "cmp": cmp, "sub_half": d_dt == numpy.float16, "q_mode": _Q_MODES[q_dt],
            "denom": denom_q, "nbins_q": nbins_q}


#: ``q_mode`` of the kernel's estimate-and-step binning (no division).
FAST_Q_MODE = 3
#: Most bins for the fast form: float32 rounding keeps NumPy's estimate within a bin below this.
FAST_MAX_BINS = 1 << 20


def kernel_binning(binning, num_bins):
    """``(q_mode, nbins_q)`` the kernel gets: the fast form (:data:`FAST_Q_MODE`, with the float64
    scale ``bins / (last - first)``) when :func:`estimate_is_exact`, else NumPy's own steps."""
    if estimate_is_exact(binning, num_bins):
        c = binning["edges"].astype(binning["cmp"])
        return FAST_Q_MODE, num_bins / (float(c[-1]) - float(c[0]))
    return binning["q_mode"], binning["nbins_q"]


def estimate_is_exact(binning, num_bins):
    """Whether the estimate-and-step binning gives NumPy's bins for this :func:`even_binning`.

    NumPy computes a bin estimate and corrects it by at most one bin in each direction against the
    edges; when its estimate is within one bin of the true bin (``edges[b] <= x < edges[b + 1]``)
    the result is the true bin. That holds for float32/float64 quotients and at most
    :data:`FAST_MAX_BINS` bins (rounding moves the estimate by < 2^-22 * bins), with strictly
    increasing finite edges (so the true bin is unique). float16 steps can miss by more: those
    keep NumPy's arithmetic step for step.
    """
    if binning["sub_half"] or binning["q_mode"] not in (0, 1) or not 1 <= num_bins <= FAST_MAX_BINS:
        return False
    c = binning["edges"].astype(binning["cmp"])
    with numpy.errstate(all="ignore"):
        return bool(numpy.all(numpy.isfinite(c)) and numpy.all(c[1:] > c[:-1])
                    and numpy.isfinite(float(c[-1]) - float(c[0])))


class _Even:
    """The uniform-bin setup of one (lower, upper, bins, dtype): NumPy's host edges (read-only),
    the kernel's binning scalars (``extra``, after the device edges), and the device edge arrays
    per device."""

    __slots__ = ("edges", "increasing", "convert", "tname", "cmp", "extra", "device")

    def __init__(self, lower, upper, num_bins, dtype):
        binning = even_binning(lower, upper, num_bins, dtype)
        edges = self.edges = binning["edges"]
        edges.flags.writeable = False
        with numpy.errstate(invalid="ignore"):
            self.increasing = not numpy.any(edges[:-1] >= edges[1:])
        cdt = self.cmp = binning["cmp"]
        dtype = _D(dtype)
        self.convert = None
        if (dtype, cdt) not in EVEN_PAIRS:
            self.convert = dtype = edges.dtype  # what NumPy does before indexing; the pair then exists
        self.tname = f"{dtypes.ctype(dtype)}, {dtypes.ctype(cdt)}"
        q_mode, nbins_q = kernel_binning(binning, num_bins)
        ctype = cdt.type
        self.extra = (ctype(edges[0]), ctype(edges[-1]), numpy.float64(binning["denom"]), numpy.float64(nbins_q),
                      numpy.int32(binning["sub_half"]), numpy.int32(q_mode))
        self.device = {}

    def device_edges(self, device_id):
        """``(edges in the comparison dtype, edges)`` on ``device_id`` (one array when the dtypes
        agree); never handed to users, who get copies."""
        pair = self.device.get(device_id)
        if pair is None:
            cupy = backend.cupy()
            with launch.on_device(device_id):
                cmp = cupy.asarray(self.edges.astype(self.cmp))
                pair = (cmp, (cmp if self.edges.dtype == self.cmp else cupy.asarray(self.edges)))
            self.device[device_id] = pair
        return pair


#: The most bins of a uniform-bin setup kept in the plan cache (its device edges take up to 16
#: bytes a bin); setups of more bins are built per call.
EVEN_CACHE_BINS = 1 << 16


def _scalar_key(v):
    """A range endpoint for a cache key: type and value (NumPy's edge dtypes depend on the type),
    and the sign of a zero (-0.0 == 0.0, but the last edge keeps its sign)."""
    return type(v), v, bool(v == 0) and math.copysign(1.0, v) < 0


def even_setup(lower, upper, num_bins, dtype):
    """The :class:`_Even` of ``num_bins`` uniform bins from ``lower`` to ``upper`` for data of
    ``dtype``: from the plan cache, or built afresh for more than :data:`EVEN_CACHE_BINS` bins or
    unhashable endpoints."""
    if num_bins > EVEN_CACHE_BINS:
        return _Even(lower, upper, num_bins, dtype)
    try:
        key = ("prim.histogram_even", _scalar_key(lower), _scalar_key(upper), num_bins, _D(dtype))
        hash(key)
    except (TypeError, ValueError):
        return _Even(lower, upper, num_bins, dtype)
    return plans.cache.lookup(key, lambda: _Even(lower, upper, num_bins, dtype))


def histogram_even(x, num_levels, lower, upper, *, weights=None):
    """Histogram of ``x`` over ``num_levels - 1`` uniform bins from ``lower`` to ``upper``.

    Parameters
    ----------
    x : cupy.ndarray
        1-D device data (int8..uint64, bool, float16, float32, float64; any stride).
    num_levels : int
        Number of bin edges (bins + 1), at least 2.
    lower, upper : scalar
        Host numbers, ``lower < upper`` (NumPy's ``first_edge``/``last_edge``, after its
        ``lower == upper`` widening). Their types matter exactly as in ``numpy.histogram``: NumPy
        scalars of x's dtype (what NumPy's range autodetection yields) keep float32/float16 data
        in float32/float16 arithmetic; Python floats (a user ``range``) compute the quotient in
        float64.
    weights : cupy.ndarray, optional
        1-D float64 device array of x's length.

    Returns
    -------
    hist : cupy.ndarray
        int64 counts, or float64 sums when weighted.
    edges : cupy.ndarray
        The ``num_levels`` edges (dtype: NumPy's edge dtype for ``x``): a fresh array each call.

    Notes
    -----
    The host work (NumPy's edges, the binning) and the device edges are a plan in
    :data:`rocarray._core.plans.cache` per (``lower``, ``upper`` with their types, bins, dtype) for
    up to :data:`EVEN_CACHE_BINS` bins (:func:`even_setup`).
    """
    x = _data(x)
    nbins = int(num_levels) - 1
    even = even_setup(lower, upper, nbins, x.dtype)
    if even.convert is not None:
        x = x.astype(even.convert)
    cmp_edges, edges = even.device_edges(x.data.device_id)
    hist = _run("histogram_even", even.tname, x, nbins, (cmp_edges.data.ptr,) + even.extra, weights, cmp=even.cmp)
    return hist, edges.copy()  # a fresh copy: returned edges must not alias the plan's


def histogram_range(x, edges, *, weights=None):
    """Histogram of ``x`` over the bins of a non-decreasing edge array.

    Parameters
    ----------
    x : cupy.ndarray
        1-D device data (int8..uint64, bool, float16, float32, float64; any stride).
    edges : array_like
        1-D non-decreasing edges (host or device), at least 2; compared with x in float64.
    weights : cupy.ndarray, optional
        1-D float64 device array of x's length.

    Returns
    -------
    cupy.ndarray
        ``len(edges) - 1`` int64 counts, or float64 sums when weighted.
    """
    cupy = backend.cupy()
    x = _data(x)
    edges64 = cupy.asarray(edges).astype(numpy.float64) if not isinstance(edges, numpy.ndarray) \
        else cupy.asarray(edges.astype(numpy.float64))
    nbins = int(edges64.size) - 1
    return _run("histogram_range", f"{dtypes.ctype(x.dtype)}, double", x, nbins, (edges64.data.ptr,), weights)
