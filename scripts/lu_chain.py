"""Where the large LU solve's time goes, step by step, and whether the host is its bound.

    python scripts/lu_chain.py                 # solve 8192 float64
    python scripts/lu_chain.py 4096 float32    # another order / dtype
    python scripts/lu_chain.py 8192 float64 --host   # also cProfile of one warm call

Three warm calls of ``ra.linalg.solve(a, a[:, :1])``: for each, the host time to queue the call's
launches and the GPU time from the call's start to its end (device events on the current stream).
When the two are about equal, with the GPU ending just after the last launch is queued, the GPU
waits for the host. The third call also records CUDA events around the driver's steps
(``_lu_blocked._Outer.factor/update/swap``, the cluster panels, the recursion's gemm and trsm,
the inverses, copies and composed interchanges) on the stream each runs on, nested by label
(``factor/panel``: the panels inside an outer block's factorization), and prints their sums. An
event pair times everything its stream does between the two marks, so a step's time also grows
when work on another stream shares the GPU with it.
"""

import collections
import cProfile
import io
import pstats
import sys
import time

import cupy
import numpy

import rocarray as ra
from rocarray.rocsolver import _lu_blocked, _lu_kernels

_stack, _records, _active = [], [], [False]


def _wrap(owner, name, label):
    """Record events around ``owner.name`` while the recording is active."""
    inner = getattr(owner, name)

    def timed(*args, **kwargs):
        if not _active[0]:
            return inner(*args, **kwargs)
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        _stack.append(label)
        path = "/".join(_stack)
        start.record()
        try:
            return inner(*args, **kwargs)
        finally:
            end.record()
            _stack.pop()
            _records.append((path, start, end))
    setattr(owner, name, timed)


def _instrument():
    for owner, name, label in ((_lu_blocked._Outer, "factor", "factor"), (_lu_blocked._Outer, "update", "update"),
                               (_lu_blocked._Outer, "swap", "swap"), (_lu_kernels, "getf2_cluster", "panel"),
                               (_lu_blocked, "_apply_inverse", "apply_inv"),
                               (_lu_kernels, "unit_lower_inverse", "inv"), (_lu_blocked.rocblas, "gemm", "gemm"),
                               (_lu_blocked.rocblas, "trsm", "trsm"), (_lu_kernels, "laswp_composed", "laswp_c"),
                               (_lu_kernels, "lacpy", "lacpy")):
        _wrap(owner, name, label)


def main(argv):
    n = int(argv[0]) if argv and argv[0].isdigit() else 8192
    dtype = next((a for a in argv if a.startswith(("float", "complex"))), "float64")
    _instrument()
    rng = numpy.random.default_rng(1)
    a = ra.asarray(rng.standard_normal((n, n)).astype(dtype))
    b = a[:, :1].copy()
    for _ in range(2):
        ra.linalg.solve(a, b)
    device = cupy.cuda.Device()
    device.synchronize()
    for rep in range(3):
        _records.clear()
        _active[0] = rep == 2
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        device.synchronize()
        t0 = time.perf_counter()
        start.record()
        ra.linalg.solve(a, b)
        end.record()
        t1 = time.perf_counter()
        end.synchronize()
        print(f"solve {n} {dtype}, call {rep} (step events {'on' if _active[0] else 'off'}): host queues it in "
              f"{(t1 - t0) * 1e3:.2f} ms, GPU {cupy.cuda.get_elapsed_time(start, end):.2f} ms")
    _active[0] = False
    totals, counts = collections.defaultdict(float), collections.Counter()
    for path, s, e in _records:
        totals[path] += cupy.cuda.get_elapsed_time(s, e)
        counts[path] += 1
    for path in sorted(totals):
        each = totals[path] / counts[path] * 1e3
        print(f"  {path:32s} {counts[path]:5d} x {totals[path]:8.2f} ms ({each:7.1f} us each)")
    if "--host" in argv:
        profile = cProfile.Profile()
        profile.enable()
        ra.linalg.solve(a, b)
        profile.disable()
        device.synchronize()
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(25)
        print(out.getvalue())


if __name__ == "__main__":
    main(sys.argv[1:])
