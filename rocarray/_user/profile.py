"""``ra.profile()``: every rocarray launch and every CuPy fall-through call in a region, timed on
the GPU.

Each launch through the one launch layer (:mod:`rocarray._core.launch`) reports to the active
profile, which records a CUDA/HIP event before and after it on the current stream, plus the
kernel's name expression, grid, block and dynamic shared memory. A NumPy name rocarray has no
kernel for (the façade's fall-through to CuPy) is one row as well, timed the same way around the
whole CuPy call. Libraries that know their work attach bytes and FLOPs to their launches
(:func:`rocarray._core.launch.note_work`), which the table turns into achieved GB/s and TFLOP/s.

The events are read when the region ends (one synchronization), so timing does not serialize
the work inside it. What a profile costs: two events recorded per launch (a few microseconds of
host time); with no profile active, a launch tests one module global.
"""

import json
import threading
import time

from rocarray._core import backend, launch as _launch

_active_lock = threading.Lock()


class Row:
    """One recorded launch or fall-through call.

    Attributes
    ----------
    name : str
        Kernel name expression (``ra_prim_reduce<...>``) or ``cupy.<function>`` for a fall-through.
    library : str
        ``prim``, ``rocblas``, ... from the kernel name, or ``cupy``.
    grid, block : tuple of int or None
        Launch dimensions (None for a fall-through call).
    shared : int
        Dynamic shared memory in bytes.
    device : int
        The device the work ran on.
    start_ms, time_ms : float
        Start relative to the region's start on that device, and duration, from the events.
    bytes, flops : int or None
        The work the library attached (:func:`rocarray._core.launch.note_work`), if any.
    """

    __slots__ = ("name", "library", "grid", "block", "shared", "device", "start_ms", "time_ms", "bytes", "flops",
                 "_events")

    def __init__(self, name, library, grid, block, shared, device, events=None, start_ms=0.0, time_ms=0.0,
                 bytes=None, flops=None):
        self.name, self.library, self.grid, self.block, self.shared = name, library, grid, block, shared
        self.device, self._events, self.start_ms, self.time_ms = device, events, start_ms, time_ms
        self.bytes, self.flops = bytes, flops

    def __repr__(self):
        return f"Row({self.name!r}, {self.time_ms:.4f} ms)"


def library_of(name):
    """The library of a kernel name (``ra_<library>_<op>...``), ``'cupy'`` for a fall-through."""
    if name.startswith("cupy."):
        return "cupy"
    parts = name.split("_", 2)
    return parts[1] if len(parts) > 2 and parts[0] == "ra" else "other"


def _dims(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (int(value),)


class Profile:
    """The recorder behind :func:`profile`; use it as a context manager.

    Attributes
    ----------
    rows : list of Row
        The recorded launches and calls, in issue order (times filled in when the region ends).
    wall_ms : float
        Host wall time of the region.
    """

    def __init__(self):
        self.rows = []
        self.wall_ms = 0.0
        self._origins = {}  # device -> the event recorded when the region started there
        self._lock = threading.Lock()
        self._last = threading.local()  # each thread's latest row, for note()
        self._previous = None

    # -- the launch layer's observer interface ---------------------------------------------
    def begin(self, name, grid, block, shared):
        """Record the start of a launch on the current stream; returns its row."""
        cupy = backend.cupy()
        device = cupy.cuda.Device().id
        start = cupy.cuda.Event()
        with self._lock:
            if device not in self._origins:
                origin = cupy.cuda.Event()
                origin.record()
                self._origins[device] = origin
        start.record()
        row = Row(name, library_of(name), None if grid is None else _dims(grid),
                  None if block is None else _dims(block), int(shared), device, (start, None))
        with self._lock:
            self.rows.append(row)
        self._last.row = row
        return row

    def note(self, nbytes, flops):
        """Attach work to this thread's latest launch (:func:`rocarray._core.launch.note_work`)."""
        row = getattr(self._last, "row", None)
        if row is not None:
            row.bytes, row.flops = nbytes, flops

    def end(self, row):
        """Record the end of the launch ``row`` on the current stream."""
        stop = backend.cupy().cuda.Event()
        stop.record()
        row._events = (row._events[0], stop)

    # -- the region ---------------------------------------------------------------------------
    def __enter__(self):
        with _active_lock:
            self._previous = _launch.observer
            _launch.observer = self
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        with _active_lock:
            _launch.observer = self._previous
        self.wall_ms = 1e3 * (time.perf_counter() - self._t0)
        self._read_events()
        return False

    def _read_events(self):
        cupy = backend.cupy() if self.rows else None
        for row in self.rows:
            if row._events is None:
                continue
            start, stop = row._events
            if stop is None:  # the launch raised: nothing ran
                row._events = None
                continue
            stop.synchronize()
            row.start_ms = cupy.cuda.get_elapsed_time(self._origins[row.device], start)
            row.time_ms = cupy.cuda.get_elapsed_time(start, stop)
            row._events = None
        self.rows = [r for r in self.rows if r._events is None and (r.time_ms or r.grid is not None
                                                                      or r.library == "cupy")]

    # -- reports ------------------------------------------------------------------------------
    def totals(self):
        """Per name: ``{name: (calls, total ms, bytes or None, flops or None, library)}``."""
        out = {}
        for row in self.rows:
            calls, total, nbytes, flops, library = out.get(row.name, (0, 0.0, None, None, row.library))
            if row.bytes is not None:
                nbytes = (nbytes or 0) + row.bytes
            if row.flops is not None:
                flops = (flops or 0) + row.flops
            out[row.name] = (calls + 1, total + row.time_ms, nbytes, flops, library)
        return out

    def table(self, copy_gbs=None, limit=None):
        """The per-kernel table as text, sorted by total GPU time.

        Parameters
        ----------
        copy_gbs : float, optional
            The device's copy bandwidth in GB/s for the ``%copy`` column (e.g. from
            ``python -m rocarray bench``); without it the column is left out.
        limit : int, optional
            Show only the first ``limit`` rows.

        Returns
        -------
        str
        """
        totals = sorted(self.totals().items(), key=lambda kv: -kv[1][1])
        gpu_ms = sum(v[1] for _, v in totals)
        head = ["kernel", "lib", "calls", "total ms", "%", "mean us", "GB/s", "TFLOP/s"]
        if copy_gbs:
            head.insert(7, "%copy")
        lines = []
        for name, (calls, total, nbytes, flops, library) in totals[:limit]:
            seconds = total * 1e-3
            gbs = nbytes / seconds / 1e9 if nbytes and seconds else None
            tfs = flops / seconds / 1e12 if flops and seconds else None
            cells = [name if len(name) <= 48 else name[:45] + "...", library, str(calls), f"{total:.3f}",
                     f"{100 * total / gpu_ms:.1f}" if gpu_ms else "-", f"{1e3 * total / calls:.1f}",
                     "-" if gbs is None else f"{gbs:.0f}", "-" if tfs is None else f"{tfs:.2f}"]
            if copy_gbs:
                cells.insert(7, "-" if gbs is None else f"{100 * gbs / copy_gbs:.0f}%")
            lines.append(cells)
        widths = [max(len(head[i]), *(len(c[i]) for c in lines)) if lines else len(head[i]) for i in range(len(head))]
        fmt = lambda cells: "  ".join(c.ljust(w) if i < 2 else c.rjust(w)  # noqa: E731
                                      for i, (c, w) in enumerate(zip(cells, widths)))
        out = [fmt(head)] + [fmt(c) for c in lines]
        out.append(f"{len(self.rows)} launch(es), GPU time {gpu_ms:.3f} ms, region wall time {self.wall_ms:.3f} ms")
        return "\n".join(out)

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write the rows as a Chrome trace (JSON "traceEvents", open in Perfetto or
        chrome://tracing): one complete event per launch, one track per device and library.

        Parameters
        ----------
        path : str or os.PathLike
        """
        events = []
        for row in self.rows:
            args = {"library": row.library, "shared": row.shared}
            if row.grid is not None:
                args.update(grid=list(row.grid), block=list(row.block))
            if row.bytes is not None:
                args["bytes"] = row.bytes
            if row.flops is not None:
                args["flops"] = row.flops
            events.append({"name": row.name, "cat": row.library, "ph": "X", "ts": 1e3 * row.start_ms,
                           "dur": 1e3 * row.time_ms, "pid": row.device, "tid": row.library, "args": args})
        with open(path, "w") as f:
            json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f)

    def plot(self, top=12):
        """A matplotlib figure: the timeline (one lane per library) and the total time of the
        ``top`` kernels. In Jupyter the figure shows inline.

        Returns
        -------
        matplotlib.figure.Figure
        """
        import matplotlib.pyplot as plt

        fig, (timeline, bars) = plt.subplots(2, 1, figsize=(10, 7), gridspec_kw={"height_ratios": [1, 2]})
        lanes = sorted({r.library for r in self.rows})
        colors = plt.rcParams["axes.prop_cycle"].by_key().get("color", ["C0"])
        for i, library in enumerate(lanes):
            spans = [(r.start_ms, r.time_ms) for r in self.rows if r.library == library]
            timeline.broken_barh(spans, (i - 0.4, 0.8), color=colors[i % len(colors)])
        timeline.set_yticks(range(len(lanes)), lanes)
        timeline.set_xlabel("ms since the region started")
        timeline.set_title("launches")
        totals = sorted(self.totals().items(), key=lambda kv: -kv[1][1])[:top]
        names = [n if len(n) <= 40 else n[:37] + "..." for n, _ in totals][::-1]
        bars.barh(names, [v[1] for _, v in totals][::-1],
                  color=[colors[lanes.index(v[4]) % len(colors)] for _, v in totals][::-1])
        bars.set_xlabel("total GPU time (ms)")
        bars.set_title(f"top {len(totals)} kernels")
        fig.tight_layout()
        return fig


def profile():
    """Record every rocarray launch (and every call that falls through to CuPy) in a region.

    Returns
    -------
    Profile
        A context manager; after the region, ``prof.table()``, ``prof.plot()``,
        ``prof.export_chrome_trace(path)`` and ``prof.rows``.

    Examples
    --------
    >>> import rocarray as ra
    >>> with ra.profile() as prof:                      # doctest: +SKIP
    ...     y = ra.sort(x); s = ra.sum(y)
    >>> print(prof.table())                             # doctest: +SKIP
    """
    return Profile()


def fallthrough(obj, name):
    """A CuPy callable the façade falls through to: ``obj`` itself, or, while a profile is
    active, a wrapper that records each call as one row named ``cupy.<name>``."""
    if _launch.observer is None:
        return obj
    import functools

    @functools.wraps(obj)
    def call(*args, **kwargs):
        watch = _launch.observer
        if watch is None:
            return obj(*args, **kwargs)
        row = watch.begin(f"cupy.{name}", None, None, 0)
        try:
            return obj(*args, **kwargs)
        finally:
            watch.end(row)
    return call
