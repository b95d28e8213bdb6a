"""The batched solve bench stack (10^4 systems, one right-hand side) through the split kernel and
the compact kernel (``_lu_block.COMPACT``), each with and without the windowed step
(``_lu_block.SPLIT_WINDOW``), in one process, against cuSOLVER (``cupy.linalg.solve``).

    python scripts/lu_compact_ab.py                              # float64 and float32, order 128
    python scripts/lu_compact_ab.py float64:121,float64:100      # other dtypes and orders
    python scripts/lu_compact_ab.py float64:128 --no-window      # the split and compact kernels only

For each case: the four settings in mirrored order (the best of 5 timed calls after one untimed
call, device events around ``ra.linalg.solve``), each line printed as it is measured with whether
its X equals the split kernel's bit for bit, then cuSOLVER on the same arrays. The compact kernel
is routed for both dtypes and every order here (``COMPACT_DTYPES``, ``COMPACT_ORDER``).
"""

import sys

import numpy

import rocarray as ra
from rocarray._core import backend
from rocarray.rocsolver import _lu_block

from linalg_profile import event_times_ms  # this script's folder is on the path


def best_ms(cupy, call, repeat=5):
    """The fastest of ``repeat`` timed calls after one untimed call (device events)."""
    call()
    return min(event_times_ms(cupy, call, repeat))


def _resident_blocks(cupy, dtype, n):
    """The driver's occupancy answer for the compact kernel at order n, one right-hand side (or
    why there is none)."""
    try:
        cs = _lu_block.compact_columns(n, 1, dtype, 0)
        kernel = _lu_block.COMPACT_KERNELS[_lu_block.compact_kernel_name(dtype, False)]
        shared = _lu_block._compact_shared(n, 1, cs, dtype)
        kernel.allow_shared(0, shared)
        return (kernel.resident_blocks(0, _lu_block.COMPACT_THREADS, shared)
                // backend.device_info(0).multiprocessors)
    except Exception as error:   # the answer is a diagnostic only
        return f"unknown ({type(error).__name__}: {error})"


def main(argv):
    cupy = backend.cupy()
    no_window = "--no-window" in argv
    argv = [a for a in argv if a != "--no-window"]
    cases = [("float64", 128), ("float32", 128)]
    if argv:
        cases = [(c.split(":")[0], int(c.split(":")[1])) for c in argv[0].split(",")]
    saved = (_lu_block.COMPACT, _lu_block.SPLIT_WINDOW, _lu_block.COMPACT_DTYPES, _lu_block.COMPACT_ORDER)
    settings = [("split", False, False), ("compact", True, False), ("split window", False, True),
                ("compact window", True, True)][:2 if no_window else 4]
    try:
        _lu_block.COMPACT_DTYPES, _lu_block.COMPACT_ORDER = _lu_block.SPLIT_DTYPES, _lu_block.SPLIT_ORDER
        for dtype, n in cases:
            rs = cupy.random.RandomState(1)
            a = rs.standard_normal((10_000, n, n)).astype(dtype)
            b = rs.standard_normal((10_000, n, 1)).astype(dtype)
            ref = None
            for name, compact, window in settings + settings[::-1]:
                _lu_block.COMPACT, _lu_block.SPLIT_WINDOW = compact, window
                ms = best_ms(cupy, lambda: ra.linalg.solve(a, b))
                x = cupy.asnumpy(ra.linalg.solve(a, b))
                ref = x if ref is None else ref
                print(f"{dtype} (10000, {n}, {n}): {name:15s} {ms:8.3f} ms, X bit for bit with the split kernel's: "
                      f"{numpy.array_equal(x, ref)}", flush=True)
            _lu_block.COMPACT, _lu_block.SPLIT_WINDOW = False, False
            print(f"{dtype} (10000, {n}, {n}): compact kernel's blocks a multiprocessor: "
                  f"{_resident_blocks(cupy, dtype, n)}", flush=True)
            print(f"{dtype} (10000, {n}, {n}): cuSOLVER {best_ms(cupy, lambda: cupy.linalg.solve(a, b)):.3f} ms",
                  flush=True)
    finally:
        _lu_block.COMPACT, _lu_block.SPLIT_WINDOW, _lu_block.COMPACT_DTYPES, _lu_block.COMPACT_ORDER = saved
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
