"""FFT schedules: one 1-D complex transform over strided batches, lowered to kernel launches.

A *problem* is a length ``n``, batch dimensions ``sizes`` and, for each side, an element stride
and the batch strides (all in complex elements, relative to a base pointer). :func:`build` turns
it into a :class:`Schedule`: work-buffer sizes, device tables, the planned :class:`Step` of each
kernel launch (pointer arguments as :class:`Ref` placeholders, the caller's scale as
:data:`SCALE`) and, prepared from them once, its :class:`rocarray._core.launch.Launch` objects.
A schedule is the *plan* of a transform: :mod:`rocarray.rocfft._transforms` keeps schedules in
the one plan cache (:data:`rocarray._core.plans.cache`), so a warm call only writes its device
addresses and scale into the prepared launches (:meth:`Schedule.run`).

Methods, by length:

* smooth ``n`` (prime factors 2..13) that fits in shared memory with enough transforms per block
  for coalescing: one Stockham kernel (``ra_rocfft_stockham``).
* larger smooth ``n``: the four-step split ``n = inner * outer`` (Bailey 1990; ``n = n1 + inner*n2``,
  ``k = outer*k1 + k2``): the length-``outer`` transforms along stride ``inner`` first
  (recursively), then the length-``inner`` transforms of contiguous rows with the twiddle
  ``W_n^(n1*k2)`` applied as they load, written to stride ``outer``. Every pass is one kernel.
* any other ``n``: Bluestein's chirp-z algorithm with a smooth convolution length ``m >= 2n-1``
  (chirp multiply, FFT, pointwise product with the transformed chirp filter, inverse FFT, chirp).

:func:`build_real` makes the schedule of a real transform whose half length is a power of two with
the untangling of the spectrum (r2c) or the folding of the coefficients (c2r) inside a transform
kernel: one launch when the rows kernel takes the half length, else the last (r2c) or first (c2r)
four-step pass.
"""

from dataclasses import dataclass, field

import numpy

from rocarray._core import backend, compile as _compile, dtypes, kernels, launch, workspace
from rocarray.rocfft import _factor, _layout

STOCKHAM = "rocfft/stockham.hip"
POINTWISE = "rocfft/pointwise.hip"
#: Threads per block of every FFT kernel (the Stockham kernel's launch bound).
BLOCK = 256
#: Blocks per element-wise launch at most (grid-stride loops).
POINTWISE_GRID = 65536
#: Most blocks one Stockham launch takes; longer batches are cut into launches.
MAX_GRID = (1 << 31) - 1
#: Batch dimensions the Stockham kernel addresses; more are looped over on the host.
KERNEL_DIMS = 3
#: Bluestein lengths must stay below this (the chirp kernel squares indices in 64 bits).
MAX_BLUESTEIN = 1 << 31
#: Batch dimensions the element-wise Bluestein and real-transform kernels address.
POINTWISE_DIMS = 2
#: Alignment of each work buffer inside a schedule's one work allocation (bytes).
WORK_ALIGN = 256
#: Workspace name of a schedule's work buffers (:data:`rocarray._core.workspace.workspaces`).
WORK = "rocfft.work"

_COMPLEX_DTYPE = {"single": numpy.dtype(numpy.complex64), "double": numpy.dtype(numpy.complex128)}
_REAL_DTYPE = {"single": numpy.dtype(numpy.float32), "double": numpy.dtype(numpy.float64)}
_REAL_SCALAR = {"single": numpy.float32, "double": numpy.float64}
#: Kernel element type of each precision (the real type the kernels are instantiated with).
_REAL = {precision: dtypes.ctype(dtype) for precision, dtype in _REAL_DTYPE.items()}


def complex_dtype(precision):
    """complex64 for ``'single'``, complex128 for ``'double'``."""
    return _COMPLEX_DTYPE[precision]


def _dir(forward):
    return -1 if forward else 1


#: Stockham kernel variants: any smooth length (two shared buffers), powers of two with unit-stride
#: rows on both sides (registers, direct global access), powers of two in any layout (persistent,
#: prefetching the next tile).
KERNELS = ("stockham", "stockham_pow2_rows", "stockham_pow2")


#: log2 of the lengths the power-of-two variants are compiled for (the length is a template
#: parameter of those kernels: every offset of a pass is then an immediate).
POW2_LOGS = range(4, 13)


def stockham_name(precision, forward, variant="stockham", log_n=None):
    """Name expression of a Stockham kernel; the power-of-two variants take ``log_n``."""
    if variant == "stockham":
        return f"ra_rocfft_{variant}<{_REAL[precision]}, {_dir(forward)}>"
    if log_n not in POW2_LOGS:
        raise ValueError(f"the {variant} kernel takes lengths 2**{POW2_LOGS[0]} .. 2**{POW2_LOGS[-1]}, not 2**{log_n}")
    return f"ra_rocfft_{variant}<{_REAL[precision]}, {_dir(forward)}, {int(log_n)}>"


#: Real transforms of power-of-two half length in one launch: the rows kernel's FFT plus the
#: untangling (``r2c``) or folding (``c2r``) of the spectrum in shared memory.
REAL_ROWS = ("r2c", "c2r")


def real_rows_name(kind, precision, log_h):
    """Name expression of the one-launch real-transform kernel of half length ``2**log_h``."""
    if kind not in REAL_ROWS or log_h not in POW2_LOGS:
        raise ValueError(f"no {kind} rows kernel of half length 2**{log_h}")
    return f"ra_rocfft_stockham_pow2_{kind}<{_REAL[precision]}, {int(log_h)}>"


#: Longer real transforms (half length ``h = inner * outer``, powers of two above the one-launch
#: kernels' 4096) fuse the untangling into the last four-step pass (``r2c_last``, rows of
#: ``inner = 2**8``) or the folding into the first (``c2r_first``, columns of ``outer``); log2 of
#: the pass lengths they are compiled for.
REAL_PASS_LOGS = {"r2c_last": (8,), "c2r_first": tuple(range(5, 10))}


def real_pass_name(kind, precision, log_n):
    """Name expression of a fused real-transform pass (:data:`REAL_PASS_LOGS`)."""
    if log_n not in REAL_PASS_LOGS.get(kind, ()):
        raise ValueError(f"no {kind} pass of length 2**{log_n}")
    return f"ra_rocfft_stockham_pow2_{kind}<{_REAL[precision]}, {int(log_n)}>"


def pointwise_name(kernel, precision, forward=None):
    if forward is None:
        return f"ra_rocfft_{kernel}<{_REAL[precision]}>"
    return f"ra_rocfft_{kernel}<{_REAL[precision]}, {_dir(forward)}>"


def _register():
    names = []
    for precision in _REAL:
        for forward in (True, False):
            names.append(stockham_name(precision, forward))
            for variant in KERNELS[1:]:
                names.extend(stockham_name(precision, forward, variant, log_n) for log_n in POW2_LOGS)
        for kind in REAL_ROWS:
            names.extend(real_rows_name(kind, precision, log_h) for log_h in POW2_LOGS)
        for kind, logs in REAL_PASS_LOGS.items():
            names.extend(real_pass_name(kind, precision, log_n) for log_n in logs)
        for kernel in ("twiddles", "chirp", "multiply", "r2c_post", "c2r_pre"):
            names.append(pointwise_name(kernel, precision))
        for kernel in ("chirp_pad", "chirp_filter", "chirp_extract"):
            for forward in (True, False):
                names.append(pointwise_name(kernel, precision, forward))
    _compile.register(STOCKHAM, [n for n in names if "stockham" in n])
    _compile.register(POINTWISE, [n for n in names if "stockham" not in n])


_register()

_stockham = kernels.Family(STOCKHAM, BLOCK, 8)
_pointwise = kernels.Family(POINTWISE, BLOCK, 8)


def stockham_kernel(precision, forward, variant="stockham", log_n=None):
    """The :class:`rocarray._core.kernels.Kernel` of :func:`stockham_name`."""
    return _stockham[stockham_name(precision, forward, variant, log_n)]


def real_rows_kernel(kind, precision, log_h):
    """The :class:`rocarray._core.kernels.Kernel` of :func:`real_rows_name`."""
    return _stockham[real_rows_name(kind, precision, log_h)]


def real_pass_kernel(kind, precision, log_n):
    """The :class:`rocarray._core.kernels.Kernel` of :func:`real_pass_name`."""
    return _stockham[real_pass_name(kind, precision, log_n)]


def pointwise_kernel(kernel, precision, forward=None):
    """The :class:`rocarray._core.kernels.Kernel` of :func:`pointwise_name`."""
    return _pointwise[pointwise_name(kernel, precision, forward)]


# --------------------------------------------------------------------------------------------
# shared-memory budget
# --------------------------------------------------------------------------------------------

#: Four-step passes prefer lengths whose strided side moves this many bytes of consecutive
#: transforms per row (whole 128-byte lines), when that costs no extra pass.
WIDE_PASS_BYTES = 128
#: Elements each thread of the power-of-two kernel keeps in registers (``RA_FFT_E``).
POW2_ELEMENTS = 16
#: Lengths the power-of-two kernel takes: 16 .. 16 * BLOCK.
POW2_MIN, POW2_MAX = POW2_ELEMENTS, POW2_ELEMENTS * BLOCK
#: Most threads of a strided power-of-two block widened to whole 128-byte rows (the strided
#: kernel's launch bound; otherwise blocks have at most :data:`BLOCK` threads).
POW2_WIDE_THREADS = 512


def is_pow2_length(n):
    return POW2_MIN <= n <= POW2_MAX and n & (n - 1) == 0


def pow2_variant(rows):
    """The power-of-two kernel for a layout: unit-stride rows on both sides, or any."""
    return "stockham_pow2_rows" if rows else "stockham_pow2"


def rows_bytes(n, count, itemsize):
    """Shared memory of ``count`` skewed rows of length ``n`` (``ra_fft_pitch`` in the kernels)."""
    return count * (n + (n >> 4) + (1 if count > 1 else 0)) * itemsize


def block_bytes(n, per_block, itemsize, variant="stockham"):
    """Dynamic shared memory of one Stockham block: skewed rows (:func:`rows_bytes`) and
    per-transform offsets; two row buffers except for ``stockham_pow2_rows``, two slots of
    offsets for ``stockham_pow2`` (it prefetches the next tile)."""
    buffers = 1 if variant == "stockham_pow2_rows" else 2
    slots = 2 if variant == "stockham_pow2" else 1
    return buffers * rows_bytes(n, per_block, itemsize) + slots * 3 * 8 * per_block


@dataclass(frozen=True)
class Budget:
    """What fits in one Stockham block on a device, for one precision."""

    limit: int          # opt-in maximum of dynamic shared memory
    itemsize: int       # bytes per complex element

    @property
    def rows_bytes(self):
        # Transforms contiguous on both sides: at most 144 KiB (room for a complex128
        # length-4096 block with its prefetch tile, 139 KiB), within the opt-in maximum.
        return min(self.limit, 144 * 1024)

    @property
    def strided_bytes(self):
        return self.limit // 2

    @property
    def min_strided_per_block(self):
        # 64 bytes of consecutive transforms per row of a strided load or store.
        return max(1, 64 // self.itemsize)

    def fits(self, n, rows):
        if rows:
            return block_bytes(n, 1, self.itemsize) <= self.rows_bytes
        return block_bytes(n, self.min_strided_per_block, self.itemsize) <= self.strided_bytes

    def pow2_per_block(self, n, rows, batch):
        """Transforms per block of the power-of-two kernel (a team of n/16 threads each), or 0
        when it cannot take ``n`` with this layout.

        A strided tile narrower than whole 128-byte rows (:data:`WIDE_PASS_BYTES`) is widened to
        them when that fits in :data:`POW2_WIDE_THREADS` threads and the opt-in shared memory:
        one resident block that moves whole lines runs these passes faster than two that move
        half lines (``docs/performance/rocfft.md``)."""
        per_block = self._pow2_per_block(n, rows, batch)
        if per_block and not rows:
            team = n // POW2_ELEMENTS
            wide = max(1, WIDE_PASS_BYTES // self.itemsize)
            if (per_block < wide <= batch and team * wide <= POW2_WIDE_THREADS
                    and block_bytes(n, wide, self.itemsize, "stockham_pow2") <= self.limit):
                per_block = wide
        return per_block

    def _pow2_per_block(self, n, rows, batch):
        if not is_pow2_length(n):
            return 0
        per_block = max(1, min(BLOCK // (n // POW2_ELEMENTS), batch))
        per_block = 1 << (per_block.bit_length() - 1)  # the kernels index transforms by shifts
        limit = self.rows_bytes if rows else self.strided_bytes
        variant = pow2_variant(rows)
        while per_block > 1 and block_bytes(n, per_block, self.itemsize, variant) > limit:
            per_block //= 2
        if block_bytes(n, per_block, self.itemsize, variant) > limit:
            return 0
        if not rows and per_block < min(batch, self.min_strided_per_block):
            return 0
        return per_block

    def per_block(self, n, rows, batch):
        """Transforms per block: enough work per block for contiguous rows, enough
        consecutive transforms for coalescing when a side is strided."""
        if rows:
            want = max(1, 2048 // n)
            limit = self.rows_bytes
        else:
            want = max(2 * self.min_strided_per_block, 2048 // n)
            limit = self.strided_bytes
        want = max(1, min(want, batch))
        if not rows:  # whole 32-byte sectors: a power of two of consecutive transforms
            want = 1 << (want.bit_length() - 1)
        while want > 1 and block_bytes(n, want, self.itemsize) > limit:
            want = want - 1 if rows else want // 2  # strided: keep whole 32-byte sectors
        return want

    def inner_limit(self, n):
        """Longest final pass of a four-step split of ``n`` (strided store, several transforms
        per block): the power-of-two kernel's limit for powers of two."""
        if n & (n - 1) == 0:
            best = 0
            m = POW2_MIN
            while m <= POW2_MAX:
                if self.pow2_per_block(m, False, 1 << 30):
                    best = m
                m *= 2
            if best:
                return best
        per_block = self.min_strided_per_block
        return (self.strided_bytes - 24 * per_block) // (2 * per_block * self.itemsize) * 16 // 17 - 1

    def wide_limit(self):
        """Longest power-of-two strided pass that still moves :data:`WIDE_PASS_BYTES` of
        consecutive transforms per row (0 when none does)."""
        best = 0
        m = POW2_MIN
        while m <= POW2_MAX and WIDE_PASS_BYTES:
            per_block = self._pow2_per_block(m, False, 1 << 30)  # the split does not count widening
            if per_block * self.itemsize >= WIDE_PASS_BYTES:
                best = m
            m *= 2
        return best


# --------------------------------------------------------------------------------------------
# schedules
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Ref:
    """A pointer argument: ``buffer`` (``'src'``, ``'dst'`` or a work-buffer index) plus an
    element offset."""

    buffer: object
    offset: int = 0

    def shifted(self, elements):
        return Ref(self.buffer, self.offset + int(elements))


#: Placeholder for the scale argument of the launch that applies the caller's scale.
SCALE = "scale"


@dataclass
class Step:
    """One kernel launch of a schedule as planned: a :class:`rocarray._core.kernels.Kernel`, its
    grid, block and dynamic shared memory, and its arguments in kernel order, fixed values
    (NumPy scalars, the size-one layout array) or the per-call placeholders :class:`Ref` and
    :data:`SCALE`."""

    kernel: object
    grid: int
    shared: int
    args: tuple
    block: int = BLOCK


@dataclass
class Schedule:
    """The kernel launches of one transform on one device.

    ``work`` holds the element counts of its work buffers, ``steps`` the planned launches,
    ``tables`` the device arrays the launches point into (kept alive here). :meth:`prepare` makes
    ``launches``, one :class:`rocarray._core.launch.Launch` per step, with a
    ``launch.POINTER`` slot per :class:`Ref` and a ``launch.scalar`` slot for :data:`SCALE`;
    :meth:`run` writes only those.

    Concurrent callers: a launch's slots are written and the kernel queued under that launch's
    own lock, and the driver copies the values as it queues, so no caller's values reach
    another's launches; work buffers are the workspace's, one per host thread and stream, so
    launches that pass data through them never see another thread's.
    """

    precision: str
    device_id: int = 0
    work: list = field(default_factory=list)
    steps: list = field(default_factory=list)
    tables: list = field(default_factory=list)
    launches: tuple = ()
    work_bytes: int = 0
    _calls: tuple = field(default=(), repr=False, compare=False)

    def add_work(self, elements):
        self.work.append(int(elements))
        return len(self.work) - 1

    def work_offsets(self):
        """Byte offsets of the work buffers in the schedule's one work allocation (each
        :data:`WORK_ALIGN`-byte aligned) and the allocation's size."""
        itemsize = _COMPLEX_DTYPE[self.precision].itemsize
        offsets, total = [], 0
        for w in self.work:
            offsets.append(total)
            total += -(-max(1, w) * itemsize // WORK_ALIGN) * WORK_ALIGN
        return tuple(offsets), total

    def prepare(self):
        """Make the prepared launches of the steps (once, when the schedule is built); returns
        the schedule."""
        itemsize = _COMPLEX_DTYPE[self.precision].itemsize
        offsets, self.work_bytes = self.work_offsets()
        scale = launch.scalar(_REAL_DTYPE[self.precision])
        launches, calls = [], []
        for step in self.steps:
            args, sources = [], []
            for a in step.args:
                if isinstance(a, Ref):
                    args.append(launch.POINTER)
                    if a.buffer in ("src", "dst"):
                        sources.append((a.buffer, a.offset * itemsize))
                    else:
                        sources.append((WORK, offsets[a.buffer] + a.offset * itemsize))
                elif a is SCALE:
                    args.append(scale)
                    sources.append((SCALE, 0))
                else:
                    args.append(a)
            go = step.kernel.prepare(self.device_id, step.grid, args, block=step.block, shared=step.shared)
            launches.append(go)
            calls.append((go, tuple(sources)))
        self.launches, self._calls = tuple(launches), tuple(calls)
        return self

    def run(self, src_ptr, dst_ptr, scale=1.0):
        """Queue the launches on the current stream of the schedule's device (made current for the
        call when another is); ``src_ptr``/``dst_ptr`` are device addresses. The work buffers
        are the workspace's (:data:`WORK`)."""
        if backend.cupy().cuda.runtime.getDevice() != self.device_id:
            with launch.on_device(self.device_id):
                self.run(src_ptr, dst_ptr, scale)
            return
        # per slot: the value of its source plus its byte offset (the scale's offset is 0)
        values = {"src": src_ptr, "dst": dst_ptr, SCALE: scale}
        if not self.work_bytes:
            for go, sources in self._calls:
                go(*[values[b] + offset for b, offset in sources])
            return
        work = workspace.workspaces.scratch(WORK, self.work_bytes, self.device_id)
        values[WORK] = work.data.ptr
        for go, sources in self._calls:
            go(*[values[b] + offset for b, offset in sources])
        # ``work`` was held until the launches using it were queued


@dataclass(frozen=True)
class Side:
    """Where one side of a batched transform lives: ``ref`` + ``j*stride`` + batch offsets."""

    ref: Ref
    stride: int
    batch_strides: tuple


def collapse(sizes, src, dst):
    """Drop size-1 batch dimensions and merge ones that are contiguous on both sides.

    Returns ``(sizes, src_strides, dst_strides)`` ordered for coalescing: by the destination's
    batch strides when the source's elements are contiguous (a strided store gathers across
    transforms), else by the source's.
    """
    dims = [(s, a, b) for s, a, b in zip(sizes, src.batch_strides, dst.batch_strides) if s != 1]
    key = (lambda d: abs(d[2])) if src.stride == 1 else (lambda d: abs(d[1]))
    dims.sort(key=key)
    merged = []
    for s, a, b in dims:
        if merged:
            ps, pa, pb = merged[-1]
            if a == ps * pa and b == ps * pb:
                merged[-1] = (ps * s, pa, pb)
                continue
        merged.append((s, a, b))
    return (tuple(d[0] for d in merged), tuple(d[1] for d in merged), tuple(d[2] for d in merged))


def _host_loop(sizes, src_strides, dst_strides, keep):
    """Split batch dimensions beyond ``keep`` into host-side offsets: yields
    ``(src_offset, dst_offset, sizes, src_strides, dst_strides)`` per launch."""
    inner = (sizes[:keep], src_strides[:keep], dst_strides[:keep])
    outer = list(zip(sizes[keep:], src_strides[keep:], dst_strides[keep:]))
    index = [0] * len(outer)
    while True:
        so = sum(i * a for i, (_, a, _) in zip(index, outer))
        do = sum(i * b for i, (_, _, b) in zip(index, outer))
        yield (so, do) + inner
        for d in range(len(outer)):
            index[d] += 1
            if index[d] < outer[d][0]:
                break
            index[d] = 0
        else:
            return


class _Builder:
    def __init__(self, precision, forward, device_id, tables):
        self.precision = precision
        self.forward = forward
        self.device_id = device_id
        self.tables = tables
        self.itemsize = complex_dtype(precision).itemsize
        self.budget = Budget(backend.shared_memory_limit(device_id), self.itemsize)
        self.schedule = Schedule(precision, device_id)

    # -- helpers ---------------------------------------------------------------------------
    def _table(self, array):
        self.schedule.tables.append(array)
        return numpy.uint64(array.data.ptr)

    def work_side(self, n, sizes):
        """A fresh contiguous work buffer for ``sizes`` batches of ``n`` (batch dim 0 fastest)."""
        total = n
        strides = []
        for s in sizes:
            strides.append(total)
            total *= s
        index = self.schedule.add_work(total)
        return Side(Ref(index), 1, tuple(strides))

    # -- methods ---------------------------------------------------------------------------
    def transform(self, n, sizes, src, dst, scaled):
        sizes, ss, ds = collapse(sizes, src, dst)
        src = Side(src.ref, src.stride, ss)
        dst = Side(dst.ref, dst.stride, ds)
        if not _factor.is_smooth(n):
            return self.bluestein(n, sizes, src, dst, scaled)
        rows = (src.stride == 1 and dst.stride == 1) or not sizes
        batch = int(numpy.prod(sizes)) if sizes else 1
        if self.budget.pow2_per_block(n, rows, batch) or self.budget.fits(n, rows):
            return self.stockham(n, sizes, src, dst, scaled)
        return self.four_step(n, sizes, src, dst, scaled)

    def stockham(self, n, sizes, src, dst, scaled, twiddle=None):
        rows = (src.stride == 1 and dst.stride == 1) or not sizes
        batch_all = int(numpy.prod(sizes)) if sizes else 1
        per_block = self.budget.pow2_per_block(n, rows, batch_all)
        pow2 = per_block > 0
        variant = pow2_variant(rows) if pow2 else "stockham"
        if pow2:
            block = (n // POW2_ELEMENTS) * per_block
        else:
            per_block = self.budget.per_block(n, rows, batch_all)
            block = BLOCK
        shared = block_bytes(n, per_block, self.itemsize, variant)
        if pow2:
            tw = self._table(self.tables.pass_twiddles(self.precision, n, self.device_id))
        else:
            tw = self._table(self.tables.twiddles(self.precision, n, self.device_id))
        log_n = n.bit_length() - 1 if pow2 else None
        kernel = stockham_kernel(self.precision, self.forward, variant, log_n)
        kernel.allow_shared(self.device_id, shared)
        tables, tw_layout = (tw, numpy.uint64(0), numpy.uint64(0)), dict(tw_n=0, tw_split=1, tw_dim=0)
        if twiddle is not None:
            tw_n, tw_dim_index = twiddle
            hi, lo, split = self.tables.split_twiddles(self.precision, tw_n, self.device_id)
            tables = (tw, self._table(hi), self._table(lo))
            tw_layout = dict(tw_n=tw_n, tw_split=split, tw_dim=tw_dim_index)
        self._launches(kernel, n, per_block, block, shared, sizes, src, dst, tables, tw_layout,
                       SCALE if scaled else _REAL_SCALAR[self.precision](1.0), variant == "stockham_pow2")

    def _launches(self, kernel, n, per_block, block, shared, sizes, src, dst, tables, tw_layout, scale, persistent):
        """The launches of one Stockham-family kernel over the batch ``sizes`` (up to
        :data:`KERNEL_DIMS` dimensions per launch, the rest looped here): ``tables`` are its three
        table pointers, ``tw_layout`` the four-step twiddle fields of its layout, ``scale`` its
        last argument; ``persistent`` blocks stop at one resident wave."""
        radices = _factor.radix_passes(n) if n > 1 else ()
        for so, do, sz, ss, ds in _host_loop(sizes, src.batch_strides, dst.batch_strides, KERNEL_DIMS):
            sz = tuple(sz) + (1,) * (KERNEL_DIMS - len(sz))
            ss = tuple(ss) + (0,) * (KERNEL_DIMS - len(ss))
            ds = tuple(ds) + (0,) * (KERNEL_DIMS - len(ds))
            batch = int(numpy.prod(sz))
            blocks = -(-batch // per_block)
            if persistent:
                blocks = min(blocks, kernel.resident_blocks(self.device_id, block, shared))
            for first in range(0, blocks, MAX_GRID):
                grid = min(MAX_GRID, blocks - first)
                layout = _layout.layout(
                    n=n, radices=_factor.pack_radices(radices), passes=len(radices), batch=batch,
                    first_batch=first * per_block, per_block=per_block, d0=sz[0], d1=sz[1],
                    is0=ss[0], is1=ss[1], is2=ss[2], isn=src.stride, os0=ds[0], os1=ds[1], os2=ds[2],
                    osn=dst.stride, **tw_layout)
                args = (src.ref.shifted(so), dst.ref.shifted(do)) + tuple(tables) + (layout, scale)
                self.schedule.steps.append(Step(kernel, grid, shared, args, block))

    def real_rows(self, kind, h, sizes, src, dst):
        """The one-launch real transform of half length ``h`` (see :func:`build_real`); False
        when that kernel cannot take this problem."""
        sizes, ss, ds = collapse(sizes, src, dst)
        if not ((src.stride == 1 and dst.stride == 1) or not sizes):
            return False
        batch_all = int(numpy.prod(sizes)) if sizes else 1
        per_block = self.budget.pow2_per_block(h, True, batch_all)
        if not per_block:
            return False
        block = (h // POW2_ELEMENTS) * per_block
        shared = block_bytes(h, per_block, self.itemsize, "stockham_pow2_rows")
        kernel = real_rows_kernel(kind, self.precision, h.bit_length() - 1)
        kernel.allow_shared(self.device_id, shared)
        # the untangling's twiddles W_2h^k ride in the four-step table slot (no four-step twiddle)
        tables = (self._table(self.tables.pass_twiddles(self.precision, h, self.device_id)),
                  self._table(self.tables.twiddles(self.precision, 2 * h, self.device_id)), numpy.uint64(0))
        self._launches(kernel, h, per_block, block, shared, sizes, Side(src.ref, src.stride, ss),
                       Side(dst.ref, dst.stride, ds), tables, dict(tw_n=0, tw_split=1, tw_dim=0), SCALE, False)
        return True

    def real_passes(self, kind, h, sizes, src, dst):
        """A real transform of power-of-two half length ``h`` above the one-launch kernels as
        four-step passes, the untangling fused into the last (``r2c``) or the folding into the
        first (``c2r``), see :func:`build_real`; False when those kernels cannot take it."""
        if h & (h - 1) or h <= POW2_MAX:
            return False
        sizes, ss, ds = collapse(sizes, src, dst)
        if len(sizes) > 1:
            return False
        rows = int(sizes[0]) if sizes else 1
        src_row, dst_row = (ss[0], ds[0]) if sizes else (0, 0)
        hi, lo, split = self.tables.split_twiddles(self.precision, 2 * h, self.device_id)
        if kind == "r2c":
            return self._r2c_passes(h, rows, src, src_row, dst, dst_row, (hi, lo, split))
        return self._c2r_passes(h, rows, src, src_row, dst, dst_row, (hi, lo, split))

    def _real_pass(self, kind, log_n, blocks, block, shared, src_ref, dst_ref, twiddles, scale, **fields):
        """The launches of one fused real-transform pass over ``blocks`` blocks."""
        n = 1 << log_n
        hi, lo, split = twiddles
        kernel = real_pass_kernel(kind, self.precision, log_n)
        kernel.allow_shared(self.device_id, shared)
        tables = (self._table(self.tables.pass_twiddles(self.precision, n, self.device_id)), self._table(hi),
                  self._table(lo))
        radices = _factor.radix_passes(n)
        values = dict(n=n, radices=_factor.pack_radices(radices), passes=len(radices), batch=blocks, is0=0,
                      is1=0, is2=0, isn=0, os0=0, os1=0, os2=0, osn=0, tw_split=split, tw_dim=0)
        values.update(fields)  # per_block, d0, d1, tw_n and the strides the kernel reads
        for first in range(0, blocks, MAX_GRID):
            layout = _layout.layout(first_batch=first, **values)
            self.schedule.steps.append(Step(kernel, min(MAX_GRID, blocks - first), shared,
                                                 (src_ref, dst_ref) + tables + (layout, scale), block))

    def _r2c_passes(self, h, rows, src, src_row, dst, dst_row, twiddles):
        log_inner = REAL_PASS_LOGS["r2c_last"][0]
        inner = 1 << log_inner
        outer = h // inner
        team = inner // POW2_ELEMENTS
        pairs = BLOCK // (2 * team)  # row pairs per block: 2 * pairs teams fill BLOCK threads
        while pairs > 1 and rows_bytes(inner, 2 * pairs, self.itemsize) > self.budget.rows_bytes:
            pairs //= 2
        shared = rows_bytes(inner, 2 * pairs, self.itemsize)
        if shared > self.budget.rows_bytes:
            return False
        tiles = max(1, -(-(outer // 2) // pairs))
        # pass 1: the length-outer transforms along n2 (stride inner), for every n1 and row,
        # into work[n1 + inner*k2 + h*row]
        work = Ref(self.schedule.add_work(h * rows))
        self.transform(outer, (inner, rows), Side(src.ref, src.stride * inner, (src.stride, src_row)),
                       Side(work, inner, (1, h)), scaled=False)
        self._real_pass("r2c_last", log_inner, rows * tiles, 2 * pairs * team, shared, work, dst.ref, twiddles,
                        SCALE, per_block=pairs, d0=tiles, d1=outer, is0=inner, is1=h, isn=1, os1=dst_row,
                        osn=dst.stride, tw_n=2 * h)
        return True

    def _c2r_passes(self, h, rows, src, src_row, dst, dst_row, twiddles):
        inner, outer = self.four_step_split(h)
        log_outer = outer.bit_length() - 1
        if outer & (outer - 1) or log_outer not in REAL_PASS_LOGS["c2r_first"] or inner > self.budget.inner_limit(h):
            return False
        team = outer // POW2_ELEMENTS
        threads = POW2_WIDE_THREADS if self.itemsize == 8 else BLOCK  # the kernel's launch bound
        per_block = min(inner, max(1, threads // team))
        while per_block > 1 and rows_bytes(outer, per_block, self.itemsize) > self.budget.strided_bytes:
            per_block //= 2
        shared = rows_bytes(outer, per_block, self.itemsize)
        if per_block * self.itemsize < 32 or shared > self.budget.strided_bytes:
            return False  # less than a 32-byte run of columns per load
        tiles = inner // per_block
        # pass 1: folded columns n1 (the length-outer inverse transforms along n2) into
        # work[n1 + inner*k2 + h*row]
        work = Ref(self.schedule.add_work(h * rows))
        self._real_pass("c2r_first", log_outer, rows * tiles, per_block * team, shared,
                        src.ref, work, twiddles, _REAL_SCALAR[self.precision](1.0), per_block=per_block,
                        d0=tiles, d1=inner, is1=src_row, isn=src.stride, os0=1, os1=h, osn=inner, tw_n=2 * h)
        # pass 2: the length-inner transforms along n1 (fixed k2), twiddled by W_h^(n1*k2), to
        # k = outer*k1 + k2, times the caller's scale
        self.pass_with_twiddle(inner, (outer, rows), Side(work, 1, (inner, h)),
                               Side(dst.ref, dst.stride * outer, (dst.stride, dst_row)), True, h)
        return True

    def four_step_split(self, n):
        """``(inner, outer)`` of the four-step split of ``n`` (see :meth:`four_step`)."""
        limit = self.budget.inner_limit(n)
        inner, outer = _factor.four_step_split(n, limit)
        wide = self.budget.wide_limit() if n & (n - 1) == 0 else 0
        if wide and inner > wide:
            w_inner, w_outer = _factor.four_step_split(n, wide)
            if _factor.pass_count(w_outer, limit) == _factor.pass_count(outer, limit):
                inner, outer = w_inner, w_outer
        return inner, outer

    def four_step(self, n, sizes, src, dst, scaled):
        inner, outer = self.four_step_split(n)
        sizes = tuple(sizes)
        # Element n1 + inner*n2 of each transform; the work buffer is dense in the order of the
        # source's strides, so that pass 1 keeps the source's unit-stride dimension on both sides.
        dims = [(inner, src.stride)] + list(zip(sizes, src.batch_strides)) + [(outer, src.stride * inner)]
        work_strides = [0] * len(dims)
        total = 1
        for i in sorted(range(len(dims)), key=lambda i: abs(dims[i][1])):
            work_strides[i] = total
            total *= dims[i][0]
        work = Ref(self.schedule.add_work(total))
        w_n1, w_batch, w_n2 = work_strides[0], tuple(work_strides[1:-1]), work_strides[-1]
        # Pass 1 (recursive): the length-outer transforms along n2, for every n1 and batch.
        src1 = Side(src.ref, src.stride * inner, (src.stride,) + tuple(src.batch_strides))
        dst1 = Side(work, w_n2, (w_n1,) + w_batch)
        self.transform(outer, (inner,) + sizes, src1, dst1, scaled=False)
        # Pass 2: the length-inner transforms along n1 (fixed k2), twiddled by W_n^(n1*k2) on
        # load, written to k = outer*k1 + k2.
        src2 = Side(work, w_n1, (w_n2,) + w_batch)
        dst2 = Side(dst.ref, dst.stride * outer, (dst.stride,) + tuple(dst.batch_strides))
        self.pass_with_twiddle(inner, (outer,) + sizes, src2, dst2, scaled, n)

    def pass_with_twiddle(self, n, sizes, src, dst, scaled, tw_n):
        """A Stockham pass whose input j of the transform at index i of batch dimension 0 is
        multiplied by W_tw_n^(i*j). That dimension is never merged; it is ordered with the
        others for coalescing and its final position is passed to the kernel."""
        rest_sizes, rest_src, rest_dst = collapse(sizes[1:], Side(src.ref, src.stride, src.batch_strides[1:]),
                                                  Side(dst.ref, dst.stride, dst.batch_strides[1:]))
        dims = [(sizes[0], src.batch_strides[0], dst.batch_strides[0], True)]
        dims += [(s, a, b, False) for s, a, b in zip(rest_sizes, rest_src, rest_dst)]
        dims.sort(key=(lambda d: abs(d[2])) if src.stride == 1 else (lambda d: abs(d[1])))
        tw_dim = next(i for i, d in enumerate(dims) if d[3])
        if tw_dim >= KERNEL_DIMS:  # keep the twiddle dimension inside the kernel's three
            dims.insert(KERNEL_DIMS - 1, dims.pop(tw_dim))
            tw_dim = KERNEL_DIMS - 1
        self.stockham(n, tuple(d[0] for d in dims), Side(src.ref, src.stride, tuple(d[1] for d in dims)),
                      Side(dst.ref, dst.stride, tuple(d[2] for d in dims)), scaled, twiddle=(tw_n, tw_dim))

    def bluestein(self, n, sizes, src, dst, scaled):
        if n >= MAX_BLUESTEIN:
            raise ValueError(f"FFT length {n} has a prime factor above 13 and is too long for Bluestein's "
                             f"algorithm here (lengths below 2**31 only)")
        m = _factor.bluestein_length(n)
        chirp = self._table(self.tables.chirp(self.precision, n, self.device_id))
        filt = self._table(self.tables.bluestein_filter(self.precision, n, m, self.forward, self.device_id))
        batch = int(numpy.prod(sizes)) if sizes else 1
        work = self.work_side(m, (batch,))
        grid = min(POINTWISE_GRID, max(1, -(-batch * m // BLOCK)))
        real = _REAL_SCALAR[self.precision]
        pad = pointwise_kernel("chirp_pad", self.precision, self.forward)
        extract = pointwise_kernel("chirp_extract", self.precision, self.forward)
        multiply = pointwise_kernel("multiply", self.precision)
        # chirp-multiply the rows into the work buffer (batch flattened in source order)
        row = 0
        loops = list(_host_loop(sizes, src.batch_strides, dst.batch_strides, POINTWISE_DIMS))
        for so, do, sz, ss, ds in loops:
            sz = tuple(sz) + (1,) * (POINTWISE_DIMS - len(sz))
            ss = tuple(ss) + (0,) * (POINTWISE_DIMS - len(ss))
            b = int(numpy.prod(sz))
            self.schedule.steps.append(Step(pad, grid, 0, (
                src.ref.shifted(so), work.ref.shifted(row * m), chirp, numpy.int64(n), numpy.int64(m),
                numpy.int64(b), numpy.int64(sz[0]), numpy.int64(ss[0]), numpy.int64(ss[1]),
                numpy.int64(src.stride))))
            row += b
        # convolution: forward FFT, product with the transformed filter, inverse FFT (the
        # inner transforms run in place on the work rows)
        rows = Side(work.ref, 1, (m,))
        sub = _Builder(self.precision, True, self.device_id, self.tables)
        sub.schedule = self.schedule
        sub.transform(m, (batch,), rows, rows, scaled=False)
        self.schedule.steps.append(Step(multiply, grid, 0, (
            work.ref, filt, numpy.int64(m), numpy.int64(batch * m))))
        inv = _Builder(self.precision, False, self.device_id, self.tables)
        inv.schedule = self.schedule
        inv.transform(m, (batch,), rows, rows, scaled=False)
        row = 0
        for so, do, sz, ss, ds in loops:
            sz = tuple(sz) + (1,) * (POINTWISE_DIMS - len(sz))
            ds = tuple(ds) + (0,) * (POINTWISE_DIMS - len(ds))
            b = int(numpy.prod(sz))
            self.schedule.steps.append(Step(extract, grid, 0, (
                work.ref.shifted(row * m), dst.ref.shifted(do), chirp, numpy.int64(n), numpy.int64(m),
                numpy.int64(b), numpy.int64(sz[0]), numpy.int64(ds[0]), numpy.int64(ds[1]),
                numpy.int64(dst.stride), SCALE if scaled else real(1.0))))
            row += b


def build_real(kind, h, sizes, src, dst, *, precision, device_id, tables):
    """The :class:`Schedule` of a real transform of length ``2 h`` with the untangling (r2c) or
    folding (c2r) fused into a transform pass, or None when no such kernel takes the problem.

    ``h`` a power of two in :data:`POW2_LOGS`: one launch (rows on both sides, or one transform).
    Longer powers of two: four-step passes with the untangling in the last pass, or the folding
    in the first (rows in one batch dimension; the c2r columns pass must fit one kernel).

    ``kind='r2c'``: ``src`` holds each real row as ``h`` complex pairs, ``dst`` its ``h + 1``
    outputs. ``kind='c2r'``: ``src`` holds ``h + 1`` Hermitian coefficients per row, ``dst`` the
    ``2 h`` real outputs as ``h`` complex pairs. The caller's scale multiplies the outputs."""
    if kind not in REAL_ROWS:
        raise ValueError(f"real transform kind must be one of {REAL_ROWS}, not {kind!r}")
    builder = _Builder(precision, kind == "r2c", device_id, tables)
    if is_pow2_length(h):
        done = builder.real_rows(kind, h, sizes, src, dst)
    else:
        done = builder.real_passes(kind, h, sizes, src, dst)
    return builder.schedule.prepare() if done else None


def build(n, sizes, src, dst, *, precision, forward, device_id, tables):
    """The :class:`Schedule` of a 1-D complex transform (see the module docstring)."""
    builder = _Builder(precision, forward, device_id, tables)
    builder.transform(n, sizes, src, dst, scaled=True)
    return builder.schedule.prepare()
