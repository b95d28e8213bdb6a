"""Where one ``ra.linalg.cholesky`` of a large SPD matrix spends its GPU time.

For docs/performance/rocsolver.md: one warm call under ``ra.profile()``, its GPU time per kernel
class (the diagonal leaves, the panel copies, each gemm tile, syrk's merges, the rest) and the
launch count, then the median time of unprofiled calls (device events) for the bench's number.

    python scripts/cholesky_profile.py                      # 8192, float64 and float32
    python scripts/cholesky_profile.py 4096 float64 --table # also the profile's full table
"""

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


def median_ms(cupy, call, repeat=5):
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    times = []
    for _ in range(repeat):
        start.record()
        call()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop))
    return sorted(times)[len(times) // 2]


def main(argv):
    import cupy

    args = [a for a in argv if not a.startswith("--")]
    n = int(args[0]) if args else 8192
    dtypes = args[1:] or ["float64", "float32"]
    for dtype in dtypes:
        rs = cupy.random.RandomState(n)
        x = rs.standard_normal((n, n))
        a = (x @ x.T / n + cupy.eye(n)).astype(dtype)
        del x
        ra.linalg.cholesky(a)               # compiles, plans, workspaces
        cupy.cuda.get_current_stream().synchronize()
        with ra.profile() as prof:
            ra.linalg.cholesky(a)
        classes = {}
        for row in prof.rows:
            calls, total = classes.get(kernel_class(row.name), (0, 0.0))
            classes[kernel_class(row.name)] = (calls + 1, total + row.time_ms)
        gpu = sum(v[1] for v in classes.values())
        print(f"cholesky {dtype} {n}: {len(prof.rows)} launches, GPU time {gpu:.2f} ms, "
              f"wall under the profiler {prof.wall_ms:.2f} ms")
        for label, (calls, total) in sorted(classes.items(), key=lambda kv: -kv[1][1]):
            print(f"  {label:52s} {calls:5d} calls {total:8.3f} ms {100 * total / gpu:5.1f} % "
                  f"{1e3 * total / calls:8.1f} us each")
        flops = n ** 3 / 3 * (4 if numpy.dtype(dtype).kind == "c" else 1)
        ms = median_ms(cupy, lambda: ra.linalg.cholesky(a))
        ref = median_ms(cupy, lambda: cupy.linalg.cholesky(a))
        print(f"  unprofiled: {ms:.2f} ms ({flops / ms / 1e9:.1f} TFLOP/s); cuSOLVER (cupy) {ref:.2f} ms; "
              f"ratio {ref / ms:.2f}x")
        if "--table" in argv:
            print(prof.table())


if __name__ == "__main__":
    main(sys.argv[1:])
