"""The LU panel on one thread-block cluster (``_lu_kernels.CLUSTER_PANEL``, ``CLUSTER_WIDE``,
``CLUSTER_LOOKAHEAD``, ``CLUSTER_ONE_FENCE``) and the look-ahead's deferred interchanges
(``_lu_blocked.LASWP_DEFERRED``) and the panels' own interchanges (``_lu_kernels.CLUSTER_SWAP``)
against the way back, in one process.

    python scripts/lu_cluster_ab.py            # solve 8192 float64 and float32
    python scripts/lu_cluster_ab.py float64    # one dtype

``ra.linalg.solve`` of 8192^2 with one right-hand side: the median of 5 device-event timings
(after a warm-up call) with the panels as today (``getf2_grid`` from GRID_PANEL_ROWS, the
one-block ``getf2`` below), with the cluster panel for 256 to 4096 rows (8 blocks), and with the
16-block cluster past 4096 rows as well, each block's interchanges reaching every other column
at once or (deferred) the next block's columns first, then with the look-ahead blocks' panels
applying their interchanges themselves, with the plain step's one fence a block and with the
look-ahead step; the configurations alternate twice (the better of the two
medians is printed), then ``cupy.linalg.solve`` on the same arrays, and each configuration's
residual ``max |A x - b|`` and whether its X equals the first cluster configuration's bit for
bit (the grid panels' arithmetic differs: False there is expected).
"""

import sys

import numpy

import rocarray as ra
from rocarray._core import backend
from rocarray.rocsolver import _lu_blocked, _lu_kernels

from linalg_profile import median_ms  # this script's folder is on the path

N = 8192
#: The switches set per configuration: (module, name).
SWITCHES = ((_lu_kernels, "CLUSTER_PANEL"), (_lu_kernels, "CLUSTER_WIDE"), (_lu_kernels, "CLUSTER_LOOKAHEAD"),
            (_lu_kernels, "CLUSTER_ONE_FENCE"), (_lu_blocked, "LASWP_DEFERRED"), (_lu_kernels, "CLUSTER_SWAP"))
#: (label, one value per switch); the first cluster configuration is the bit-for-bit reference
CONFIGS = (("way back (grid + one block)", False, False, False, False, False, False),
           ("clusters of 8 and 16, interchanges at once", True, True, False, False, False, False),
           ("cluster of 8", True, False, False, False, False, False),
           ("clusters of 8 and 16, deferred interchanges", True, True, False, False, True, False),
           ("clusters of 8 and 16, deferred, the panels' own swaps", True, True, False, False, True, True),
           ("clusters of 8 and 16, deferred, own swaps, one fence a block", True, True, False, True, True, True),
           ("clusters of 8 and 16, deferred, own swaps, look-ahead step", True, True, True, False, True, True))


def solve_rows(cupy, dtype):
    rng = numpy.random.default_rng(5)
    a = cupy.asarray(rng.standard_normal((N, N)).astype(dtype))
    b = cupy.asarray(rng.standard_normal((N, 1)).astype(dtype))
    saved = [getattr(module, name) for module, name in SWITCHES]
    best, residual, xs = {}, {}, {}
    try:
        for _ in range(2):
            for label, *values in CONFIGS:
                for (module, name), value in zip(SWITCHES, values):
                    setattr(module, name, value)
                x = ra.linalg.solve(a, b)
                xs[label] = cupy.asnumpy(x)
                residual[label] = float(cupy.abs(a @ x - b).max())
                ms = median_ms(cupy, lambda: ra.linalg.solve(a, b), 5)
                best[label] = min(ms, best.get(label, ms))
    finally:
        for (module, name), value in zip(SWITCHES, saved):
            setattr(module, name, value)
    cupy.linalg.solve(a, b)
    vendor = median_ms(cupy, lambda: cupy.linalg.solve(a, b), 5)
    first = xs[CONFIGS[1][0]]
    for label, *_ in CONFIGS:
        same = numpy.array_equal(xs[label], first)
        print(f"solve {N} {dtype}, {label}: {best[label]:.2f} ms ({vendor / best[label]:.2f}x cupy), "
              f"residual {residual[label]:.1e}, X as the reference's bit for bit: {same}")
    print(f"solve {N} {dtype}, cupy.linalg.solve: {vendor:.2f} ms")


def main(argv):
    cupy = backend.cupy()
    for dtype in (argv or ("float64", "float32")):
        solve_rows(cupy, dtype)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
