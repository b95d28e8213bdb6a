"""``bench``: the vendor-ratio table of the registered benchmark cases.

Method (``docs/performance/core.md``): each case's ``setup()`` makes fresh random device data; the
rocarray and vendor functions are warmed up (this also compiles the kernels), then timed with
device events. Each timed sample launches the function back to back enough times to cover about
:data:`SAMPLE_SECONDS` (so microsecond kernels are not measured as one event pair), and the two
functions alternate sample by sample so clock and thermal drift hit both alike. Each sample
starts with one untimed call, so the device is busy while the host queues the timed ones: the
start event then fires behind queued work and a sample measures calls back to back, not one
call's host latency on an idle device plus the rest (where the host is slower than the device,
the host's pace is what a sample measures, as it should). The reported time is the median per-call time of
``repeat`` samples. The copy bandwidth of the device is measured in
the same run with a large device-to-device ``memcpy`` (read + write bytes counted).
"""

import dataclasses
import datetime
import json
import math
import os
import statistics

from rocarray._cli._fmt import first_lines, seconds, table
from rocarray._core import backend, timing
from rocarray._core import harness
from rocarray._version import __version__

SAMPLE_SECONDS = 2e-3   # device time covered by one timed sample
WARMUP_CALLS = 3
MAX_INNER = 10_000      # launches per sample at most
COPY_BYTES = 1 << 30    # bytes of the copy-bandwidth buffer (less when memory is short)
PROGRESS_MIN_CASES = 3  # more cases than this show progress while they are measured


def registered_cases(name_filter=None):
    """Registered benchmark cases (after loading :mod:`rocarray._checks`), optionally filtered by substring."""
    harness.load_all()
    cases = harness.bench_cases()
    if name_filter:
        cases = [c for c in cases if name_filter in c.name]
    return cases


_timed = timing.per_call_seconds


def _inner_count(cupy, fn, args):
    once = _timed(cupy, fn, args, 1)
    return max(1, min(MAX_INNER, int(math.ceil(SAMPLE_SECONDS / max(once, 1e-7)))))


def time_pair(cupy, rocarray_fn, vendor_fn, args, repeat):
    """Median per-call seconds of two functions on the same arguments, timed alternately.

    Parameters
    ----------
    cupy : module
    rocarray_fn, vendor_fn : callable
        Each runs the operation once: ``fn(*args)``.
    args : tuple
    repeat : int
        Timed samples per function.

    Returns
    -------
    tuple of float
        ``(rocarray_seconds, vendor_seconds)``.
    """
    for _ in range(WARMUP_CALLS):
        rocarray_fn(*args)
        vendor_fn(*args)
    cupy.cuda.Device().synchronize()
    inner_r = _inner_count(cupy, rocarray_fn, args)
    inner_v = _inner_count(cupy, vendor_fn, args)
    t_r, t_v = [], []
    for _ in range(max(1, repeat)):
        t_r.append(_timed(cupy, rocarray_fn, args, inner_r))
        t_v.append(_timed(cupy, vendor_fn, args, inner_v))
    return statistics.median(t_r), statistics.median(t_v)


def copy_bandwidth(cupy, nbytes=None, repeat=10):
    """Device copy bandwidth in bytes per second (read + write), from a large D2D memcpy.

    Parameters
    ----------
    cupy : module
    nbytes : int, optional
        Buffer size; default :data:`COPY_BYTES`, or a quarter of the free memory if smaller.
    repeat : int
        Timed copies; the median is used.

    Returns
    -------
    rate : float
        ``2 * nbytes / seconds``.
    nbytes : int
    """
    if nbytes is None:
        free, _ = cupy.cuda.runtime.memGetInfo()
        nbytes = max(1 << 20, min(COPY_BYTES, free // 4) // (1 << 20) * (1 << 20))
    src = cupy.random.random(nbytes // 8)  # fresh random data, never zeros
    dst = cupy.empty_like(src)
    size = src.nbytes

    def copy():
        dst.data.copy_from_device_async(src.data, size)

    try:
        for _ in range(2):
            copy()
        samples = [_timed(cupy, copy, (), 1) for _ in range(max(1, repeat))]
    finally:
        src = dst = None  # the closure's cells too: the buffers go back to the pool
        cupy.get_default_memory_pool().free_all_blocks()
    return 2 * size / statistics.median(samples), size


def _as_args(value):
    if value is None:
        return ()
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def measure_case(cupy, case, repeat, copy_rate):
    """Time one :class:`~rocarray._core.harness.BenchCase`; a dict of the numbers (JSON-ready)."""
    args = _as_args(case.setup())
    t_r, t_v = time_pair(cupy, case.rocarray, case.vendor, args, repeat)
    row = {"name": case.name, "library": case.library, "rocarray_s": t_r, "vendor_s": t_v,
           "speedup": t_v / t_r if t_r > 0 else None, "bytes": case.bytes_moved, "flops": case.flops,
           "memory_bound": case.memory_bound, "gbs": None, "vendor_gbs": None, "copy_fraction": None,
           "tflops": None, "vendor_tflops": None, "error": None}
    if case.bytes_moved:
        row["gbs"] = case.bytes_moved / t_r / 1e9
        row["vendor_gbs"] = case.bytes_moved / t_v / 1e9
        if case.memory_bound and copy_rate:
            row["copy_fraction"] = case.bytes_moved / t_r / copy_rate
    if case.flops:
        row["tflops"] = case.flops / t_r / 1e12
        row["vendor_tflops"] = case.flops / t_v / 1e12
    del args
    return row


def _row_cells(row, with_flops):
    if row.get("skipped"):
        return [row["name"], "SKIP", "-", "-", "-", "-"] + (["-"] if with_flops else [])
    if row["error"]:
        return [row["name"], "ERROR", "-", "-", "-", "-"] + (["-"] if with_flops else [])
    cells = [row["name"], seconds(row["rocarray_s"]), seconds(row["vendor_s"]),
             f"{row['speedup']:.2f}x" if row["speedup"] else "-",
             f"{row['gbs']:.0f}" if row["gbs"] is not None else "-",
             f"{100 * row['copy_fraction']:.0f}%" if row["copy_fraction"] is not None else "-"]
    if with_flops:
        cells.append(f"{row['tflops']:.1f}" if row["tflops"] is not None else "-")
    return cells


def run_bench(cases, out, repeat=7, json_path=None):
    """Measure the copy bandwidth and every case; print the ratio table; optionally write JSON.

    Parameters
    ----------
    cases : list of rocarray._core.harness.BenchCase
    out : callable
        ``out(line)`` prints one line.
    repeat : int
        Timed samples per function (median reported).
    json_path : str or os.PathLike, optional
        Where to write the numbers: ``{"rocarray_version", "date", "device", "copy_gbs",
        "copy_bytes", "repeat", "cases": [{name, rocarray_s, vendor_s, speedup, gbs, vendor_gbs,
        copy_fraction, tflops, vendor_tflops, bytes, flops, memory_bound, error}, ...]}``.

    Returns
    -------
    int
        0 when every case ran or was skipped (:class:`~rocarray._core.harness.Unavailable`: its
        vendor twin is not installed), 1 when a case raised.

    Raises
    ------
    NoDeviceError
        Without a usable GPU.
    """
    info = backend.device_info()
    cupy = backend.cupy()
    copy_rate, copy_bytes = copy_bandwidth(cupy)
    out(f"bench on {info.name} ({info.arch}): copy bandwidth {copy_rate / 1e9:.0f} GB/s "
        f"(D2D memcpy of {copy_bytes / 2**30:.2g} GiB, read+write); median of {repeat} after warm-up")
    out("speedup = vendor time / rocarray time (>1: rocarray faster); %copy = GB/s / copy bandwidth")
    rows = []
    from rocarray._cli.compile_check import progress

    step, close = progress(len(cases), "bench", out, "case") if len(cases) > PROGRESS_MIN_CASES else (None, None)
    for case in cases:
        if step is not None:
            step(case.name)
        try:
            rows.append(measure_case(cupy, case, repeat, copy_rate))
        except harness.Unavailable as exc:  # the vendor twin is not installed here
            rows.append({"name": case.name, "library": case.library, "error": None, "skipped": str(exc)})
        except Exception as exc:  # report and keep going
            rows.append({"name": case.name, "library": case.library,
                         "error": f"{type(exc).__name__}: {exc}"})
        finally:
            cupy.get_default_memory_pool().free_all_blocks()
    if close is not None:
        close()
    with_flops = any(r.get("tflops") is not None for r in rows)
    headers = ["case", "rocarray", "vendor", "speedup", "GB/s", "%copy"] + (["TFLOP/s"] if with_flops else [])
    if rows:
        for line in table(headers, [_row_cells(r, with_flops) for r in rows]):
            out(line)
    else:
        out("no benchmark cases registered (libraries register them with rocarray._core.harness.bench_case)")
    for r in rows:
        if r.get("skipped"):
            out(f"SKIP  {r['name']}: {r['skipped']}")
    errors = [r for r in rows if r.get("error")]
    for r in errors:
        out(f"ERROR {r['name']}:")
        for line in first_lines(r["error"], 12):
            out(line)
    if json_path:
        data = {
            "rocarray_version": __version__,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "device": dataclasses.asdict(info),
            "copy_gbs": copy_rate / 1e9,
            "copy_bytes": copy_bytes,
            "repeat": repeat,
            "cases": rows,
        }
        folder = os.path.dirname(os.path.abspath(json_path))
        os.makedirs(folder, exist_ok=True)
        with open(json_path, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        out(f"bench: numbers written to {json_path}")
    return 1 if errors else 0


def run_tuning(cases, out):
    """Run each case's rocarray function once under :func:`rocarray._core.tuning.tune`, so every
    problem it meets with candidates is timed and stored; prints one line per case.

    Returns
    -------
    int
        0, or 1 when a case raised.
    """
    import time

    from rocarray._core import tuning

    cupy = backend.cupy()
    failed = 0
    out(f"tune: {len(cases)} case(s) into {tuning.db_path()}")
    for case in cases:
        t0 = time.perf_counter()
        try:
            args = case.setup()
            with tuning.tune():
                case.rocarray(*args)
            cupy.cuda.Device().synchronize()
        except Exception as exc:  # report and go on
            failed += 1
            out(f"FAIL  {case.name}: {type(exc).__name__}: {exc}")
            continue
        out(f"  {case.name:48s} {time.perf_counter() - t0:7.1f} s")
    out(f"tune: {len(cases) - failed} case(s) tuned, {failed} failed")
    return 1 if failed else 0
