"""Run one bench-sized operation a few times, for a profiler to catch its kernels.

    python scripts/profile_case.py --list
    ncu --clock-control none --set full -k regex:getrf_block --launch-skip 1 -c 1 -f -o lu128 \\
        python3 scripts/profile_case.py solve_batched_128
    ncu -i lu128.ncu-rep --page source --csv --print-source sass > lu128.sass.csv
    python scripts/ncu_summary.py lu128.sass.csv

Each case builds its inputs once (fresh random data, the bench's shapes) and calls the operation
``--repeat`` times (default 3: the first call compiles and plans, so skip its launches).
``--set=package.module.NAME=literal`` sets a module constant first (a way-back switch).
"""

import ast
import importlib
import sys

import numpy


class _Lazy:
    """CuPy's generator, made on first use (``--list`` needs no device)."""

    def __init__(self, cupy):
        self._cupy, self._rs = cupy, None

    def __getattr__(self, name):
        if self._rs is None:
            self._rs = self._cupy.random.RandomState(1)
        return getattr(self._rs, name)


def _cases(cupy, ra):
    rs = _Lazy(cupy)

    def symmetric(batch, n, dtype):
        a = rs.standard_normal((batch, n, n)).astype(dtype)
        return a + a.transpose(0, 2, 1)

    def depthwise():
        x = rs.standard_normal((64, 56, 56, 256), dtype=numpy.float32).astype(numpy.float16)
        w = (rs.standard_normal((256, 3, 3, 1), dtype=numpy.float32) / 3).astype(numpy.float16)

        def run():
            with ra.nn.find_mode("fast"):
                return ra.nn.conv2d(x, w, padding=1, groups=256, layout="NHWC")
        return run

    def sdpa(causal):
        q, k, v = (rs.standard_normal((8, 16, 4096, 128), dtype=numpy.float32).astype(numpy.float16)
                   for _ in range(3))
        return lambda: ra.nn.scaled_dot_product_attention(q, k, v, is_causal=causal)

    def batch_norm():
        x = rs.standard_normal((64, 256, 56, 56), dtype=numpy.float32)
        mean, var = cupy.zeros(256, numpy.float32), cupy.ones(256, numpy.float32)
        return lambda: ra.nn.batch_norm(x, mean, var, training=True)

    def max_pool():
        x = rs.standard_normal((64, 112, 112, 64), dtype=numpy.float32).astype(numpy.float16)
        return lambda: ra.nn.max_pool2d(x, 3, 2, 1, layout="NHWC")

    def solve(a, b):
        return lambda: ra.linalg.solve(a, b)

    def unary(fn, a):
        return lambda: fn(a)

    return {
        "eigh_batched_32_float32": lambda: unary(ra.linalg.eigh, symmetric(10000, 32, numpy.float32)),
        "eigh_batched_32_float64": lambda: unary(ra.linalg.eigh, symmetric(10000, 32, numpy.float64)),
        "solve_batched_32_float32": lambda: solve(rs.standard_normal((100000, 32, 32), dtype=numpy.float32),
                                                  rs.standard_normal((100000, 32, 1), dtype=numpy.float32)),
        "solve_batched_128": lambda: solve(rs.standard_normal((10000, 128, 128)), rs.standard_normal((10000, 128, 1))),
        "solve_8192": lambda: (lambda a: solve(a, a[:, :1]))(rs.standard_normal((8192, 8192))),
        "qr_4096": lambda: unary(ra.linalg.qr, rs.standard_normal((4096, 4096))),
        "eigh_4096": lambda: unary(ra.linalg.eigh, symmetric(1, 4096, numpy.float64)[0]),
        "depthwise_f16_nhwc": depthwise,
        "max_pool_f16_nhwc": max_pool,
        "sdpa_f16": lambda: sdpa(False),
        "sdpa_f16_causal": lambda: sdpa(True),
        "batch_norm_f32": batch_norm,
    }


def main(argv):
    names = [a for a in argv if not a.startswith("--")]
    repeat = 3
    for a in argv:
        if a.startswith("--repeat="):
            repeat = int(a.split("=", 1)[1])
    import cupy

    import rocarray as ra

    cases = _cases(cupy, ra)
    if "--list" in argv or len(names) != 1 or names[0] not in cases:
        print("cases: " + " ".join(cases), file=sys.stderr if names else sys.stdout)
        return 0 if "--list" in argv else 2
    for a in argv:
        if a.startswith("--set="):
            target, value = a[len("--set="):].split("=", 1)
            module, name = target.rsplit(".", 1)
            setattr(importlib.import_module(module), name, ast.literal_eval(value))
    run = cases[names[0]]()
    for _ in range(repeat):
        run()
    cupy.cuda.Device().synchronize()
    print(f"{names[0]}: {repeat} calls")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
