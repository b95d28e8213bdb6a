"""The batched solve bench stack (10^4 float64 systems of order 128, one right-hand side) through
each mid-size LU kernel, in one process, against CuPy (cuSOLVER's batched getrf/getrs).

    python scripts/lu_block_ab.py                    # order 128, float64
    python scripts/lu_block_ab.py 100 float32        # another order and dtype (65 .. 128)
    python scripts/lu_block_ab.py --quick            # getrf_block, the wide kernel's plain, redux, flow (and flow redux) steps, the split kernel (and its window)

For each setting of ``_lu_block.ONE_BARRIER`` (the register tile's one-barrier step,
``getrf_block``, or its two-barrier step, ``getrf_block_2sync``), ``_lu_block.WIDE`` (the
512-thread register tile, ``getrf_block_wide``), ``_lu_block.WIDE_LOOKAHEAD`` (its look-ahead
step), ``_lu_block.WIDE_REDUX`` (its plain step's redux.sync search), ``_lu_block.WIDE_FLOW`` (its
flow step), ``_lu_block.PANEL`` (the panel kernel, ``getrf_panel``), ``_lu_block.SPLIT`` (the two
crews, ``getrf_block_split``, float32 and float64) and ``_lu_block.SPLIT_WINDOW`` (its windowed
step): the best of 5 timed calls of ``ra.linalg.solve`` (device
events around the call, which reads ``info`` back) after one untimed call, the settings taken
twice in mirrored order so that a clock drift shows; then ``cupy.linalg.solve`` on the same
arrays, and whether each other register-tile kernel gave getrf_block's X bit for bit.
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


def main(argv):
    cupy = backend.cupy()
    quick = "--quick" in argv
    argv = [a for a in argv if a != "--quick"]
    n = int(argv[0]) if argv else 128
    dtype = argv[1] if len(argv) > 1 else "float64"
    rs = cupy.random.RandomState(1)
    a = rs.standard_normal((10_000, n, n)).astype(dtype)
    b = rs.standard_normal((10_000, n, 1)).astype(dtype)
    # (ONE_BARRIER, WIDE, WIDE_LOOKAHEAD, WIDE_REDUX, WIDE_FLOW, PANEL, SPLIT, SPLIT_WINDOW), named by
    # the kernel they launch
    kernels = {(True, False, False, False, False, False, False, False): "getrf_block",
               (False, False, False, False, False, False, False, False): "getrf_block_2sync",
               (True, True, False, False, False, False, False, False): "getrf_block_wide",
               (True, True, True, False, False, False, False, False): "getrf_block_wide lookahead",
               (True, True, False, True, False, False, False, False): "getrf_block_wide redux",
               (True, True, False, False, True, False, False, False): "getrf_block_wide flow",
               (True, True, False, True, True, False, False, False): "getrf_block_wide flow redux",
               (True, False, False, False, False, True, False, False): "getrf_panel",
               (True, False, False, False, False, False, True, False): "getrf_block_split",
               (True, False, False, False, False, False, True, True): "getrf_block_split window"}
    if dtype not in ("float32", "float64"):
        kernels = {k: v for k, v in kernels.items() if not v.startswith("getrf_block_split")}
    if quick:
        kernels = {k: v for k, v in kernels.items()
                   if v in ("getrf_block", "getrf_block_wide", "getrf_block_wide redux", "getrf_block_wide flow",
                            "getrf_block_wide flow redux", "getrf_block_split", "getrf_block_split window")}
    order = list(kernels)
    settings = order + order[::-1]
    names = ("ONE_BARRIER", "WIDE", "WIDE_LOOKAHEAD", "WIDE_REDUX", "WIDE_FLOW", "PANEL", "SPLIT", "SPLIT_WINDOW")
    saved = tuple(getattr(_lu_block, name) for name in names) + (_lu_block.COMPACT,)
    _lu_block.COMPACT = False   # the split kernel itself (scripts/lu_compact_ab.py times the compact one)
    x = {}
    try:
        for setting in settings:
            for name, value in zip(names, setting):
                setattr(_lu_block, name, value)
            ms = best_ms(cupy, lambda: ra.linalg.solve(a, b))
            flags = " ".join(f"{name}={value}" for name, value in zip(names, setting))
            print(f"{dtype} (10000, {n}, {n}): {flags} ({kernels[setting]}): {ms:.3f} ms")
            if setting not in x:
                x[setting] = cupy.asnumpy(ra.linalg.solve(a, b))
    finally:
        for name, value in zip(names + ("COMPACT",), saved):
            setattr(_lu_block, name, value)
    print(f"cupy.linalg.solve: {best_ms(cupy, lambda: cupy.linalg.solve(a, b)):.3f} ms")
    base = x[(True, False, False, False, False, False, False, False)]
    for setting in order[1:]:
        if kernels[setting] == "getrf_panel":
            continue
        print(f"{kernels[setting]} X equals getrf_block X bit for bit:", numpy.array_equal(x[setting], base))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
