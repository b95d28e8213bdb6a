"""Where one large ``ra.linalg`` factorization spends its GPU time.

For docs/performance/rocsolver.md: one warm call under ``ra.profile()``, its GPU time per kernel
class (the Cholesky leaves, panel copies, each gemm tile, syrk's merges, the rest) and the launch
count, then the median time of unprofiled calls (device events) against CuPy's (cuSOLVER).

    python scripts/linalg_profile.py                              # cholesky 8192, float64 and float32
    python scripts/linalg_profile.py eigh 4096 float64            # eigh, solve, qr, svd, cholesky
    python scripts/linalg_profile.py cholesky 4096 float64 --table # also the profile's full table
    python scripts/linalg_profile.py eigh 4096 float64 --set=rocarray.rocsolver._sytrd_kernels.WARP_TILES=False
                                                                  # a module constant set first (a way back)
"""

import ast
import importlib
import sys

import numpy

import rocarray as ra


def kernel_class(name):
    """A short class name for a kernel name expression."""
    for key, label in (("potf2_inv", "leaf potf2_inv"), ("lacpy", "panel copy lacpy"), ("tri_merge", "syrk merge"),
                       ("splitk_finish", "gemm split-k finish")):
        if key in name:
            return label
    if "gemm" in name:
        return name.replace("ra_rocblas_", "")
    return name


def event_times_ms(cupy, call, repeat=5):
    """Device-event times of ``repeat`` calls of ``call``, one at a time (ms)."""
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    times = []
    for _ in range(repeat):
        start.record()
        call()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop))
    return times


def median_ms(cupy, call, repeat=5):
    times = event_times_ms(cupy, call, repeat)
    return sorted(times)[len(times) // 2]


#: The profiled functions: (rocarray call, CuPy call, flops of order n, input kind).
FUNCTIONS = {
    "cholesky": (lambda a: ra.linalg.cholesky(a), lambda cp, a: cp.linalg.cholesky(a), lambda n: n ** 3 / 3, "spd"),
    "eigh": (lambda a: ra.linalg.eigh(a), lambda cp, a: cp.linalg.eigh(a), lambda n: 10 * n ** 3 / 3, "symmetric"),
    "solve": (lambda a: ra.linalg.solve(a, a[:, :1]), lambda cp, a: cp.linalg.solve(a, a[:, :1]),
              lambda n: 2 * n ** 3 / 3, "general"),
    "qr": (lambda a: ra.linalg.qr(a), lambda cp, a: cp.linalg.qr(a), lambda n: 4 * n ** 3 / 3, "general"),
    "svd": (lambda a: ra.linalg.svd(a), lambda cp, a: cp.linalg.svd(a), lambda n: 21 * n ** 3, "general"),
}


def _matrix(cupy, n, dtype, kind):
    x = cupy.random.RandomState(n).standard_normal((n, n))
    if kind == "spd":
        x = x @ x.T / n + cupy.eye(n)
    elif kind == "symmetric":
        x = (x + x.T) / 2
    return x.astype(dtype)


def set_constants(argv):
    """Apply each ``--set=package.module.NAME=literal`` argument (a module constant, before any call)."""
    for arg in argv:
        if arg.startswith("--set="):
            target, value = arg[len("--set="):].split("=", 1)
            module, name = target.rsplit(".", 1)
            setattr(importlib.import_module(module), name, ast.literal_eval(value))
            print(f"{target} = {value}")


def main(argv):
    import cupy

    set_constants(argv)
    args = [a for a in argv if not a.startswith("--")]
    name = args.pop(0) if args and args[0] in FUNCTIONS else "cholesky"
    ours, theirs, count, kind = FUNCTIONS[name]
    n = int(args[0]) if args else 8192
    dtypes = args[1:] or ["float64", "float32"]
    for dtype in dtypes:
        a = _matrix(cupy, n, dtype, kind)
        ours(a)                             # compiles, plans, workspaces
        cupy.cuda.get_current_stream().synchronize()
        with ra.profile() as prof:
            ours(a)
        classes = {}
        for row in prof.rows:
            calls, total = classes.get(kernel_class(row.name), (0, 0.0))
            classes[kernel_class(row.name)] = (calls + 1, total + row.time_ms)
        gpu = sum(v[1] for v in classes.values())
        print(f"{name} {dtype} {n}: {len(prof.rows)} launches, GPU time {gpu:.2f} ms, "
              f"wall under the profiler {prof.wall_ms:.2f} ms")
        for label, (calls, total) in sorted(classes.items(), key=lambda kv: -kv[1][1]):
            print(f"  {label:52s} {calls:5d} calls {total:8.3f} ms {100 * total / gpu:5.1f} % "
                  f"{1e3 * total / calls:8.1f} us each")
        flops = count(n) * (4 if numpy.dtype(dtype).kind == "c" else 1)
        ms = median_ms(cupy, lambda: ours(a))
        ref = median_ms(cupy, lambda: theirs(cupy, a))
        print(f"  unprofiled: {ms:.2f} ms ({flops / ms / 1e9:.1f} TFLOP/s); cuSOLVER (cupy) {ref:.2f} ms; "
              f"ratio {ref / ms:.2f}x")
        if "--table" in argv:
            print(prof.table())


if __name__ == "__main__":
    main(sys.argv[1:])
