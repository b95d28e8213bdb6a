"""rocblas trsv in one launch against the way back (``_level2.TRSV_ONE_LAUNCH``), in one process.

    python scripts/trsv_ab.py            # trsv 8192 float64 and 16384 float32, then solve 8192 float64
    python scripts/trsv_ab.py trsv       # the trsv rows only

trsv rows: x := A^-1 x for a column-major triangle with a unit diagonal and an off-diagonal part
scaled by 1/n (so repeated solves neither grow nor shrink x), 'L' 'N' (getrs's forward solve) and
'U' 'T'; the median of device-event timings of one call, for the one launch and the blocked form,
alternating, with the largest difference between the two forms' solutions. solve row:
``ra.linalg.solve`` of 8192^2 float64 with one right-hand side (getrs through two trsv) in both
forms, and ``cupy.linalg.solve``.
"""

import sys

import numpy

import rocarray as ra
from rocarray._core import backend
from rocarray.rocblas import _level2

from linalg_profile import median_ms  # this script's folder is on the path


#: (n, dtype, uplo, trans) of the trsv rows, and the order of the solve row.
TRSV_CASES = ((8192, "float64", "L", "N"), (8192, "float64", "U", "T"), (16384, "float32", "L", "N"),
              (16384, "float32", "U", "T"))
SOLVE_N = 8192


def _random(cupy, shape, dtype, seed):
    return cupy.asarray(numpy.random.default_rng(seed).standard_normal(shape).astype(dtype))


def _triangle(cupy, n, dtype):
    # both triangles filled (uplo picks one; the unit diagonal is not read), off-diagonal part / n
    return cupy.asfortranarray(_random(cupy, (n, n), dtype, 1) / n)


def _forms(call):
    """``{one_launch: (median ms, result)}``, the two forms measured in turn, twice."""
    out = {}
    saved = _level2.TRSV_ONE_LAUNCH
    try:
        for one in (True, False, True, False):
            _level2.TRSV_ONE_LAUNCH = one
            ms, result = call()
            out[one] = (min(ms, out[one][0]) if one in out else ms, result)
    finally:
        _level2.TRSV_ONE_LAUNCH = saved
    return out


def trsv_rows(cupy):
    for n, dtype, uplo, trans in TRSV_CASES:
        a = _triangle(cupy, n, dtype)
        b = _random(cupy, n, dtype, 2)

        def call():
            x = b.copy()
            _level2.trsv(uplo, trans, "U", n, a, n, x, 1)
            result = x.copy()
            return median_ms(cupy, lambda: _level2.trsv(uplo, trans, "U", n, a, n, x, 1), 7), result

        forms = _forms(call)
        diff = float(cupy.abs(forms[True][1] - forms[False][1]).max())
        print(f"trsv {uplo}{trans} {n} {dtype}: one launch {forms[True][0]:.3f} ms, blocked {forms[False][0]:.3f} ms "
              f"({forms[False][0] / forms[True][0]:.2f}x), max |difference| {diff:.2e}")
        del a
    _level2.check_trsv()


def solve_row(cupy):
    n = SOLVE_N
    a = _random(cupy, (n, n), "float64", 3)
    b = _random(cupy, n, "float64", 4)

    def call():
        return median_ms(cupy, lambda: ra.linalg.solve(a, b), 5), ra.linalg.solve(a, b)

    forms = _forms(call)
    vendor = median_ms(cupy, lambda: cupy.linalg.solve(a, b), 5)
    res = {one: float(abs(cupy.asnumpy(a) @ cupy.asnumpy(x) - cupy.asnumpy(b)).max()) for one, (_, x) in forms.items()}
    print(f"solve {n} float64, one right-hand side: one launch {forms[True][0]:.2f} ms (residual {res[True]:.1e}), "
          f"blocked {forms[False][0]:.2f} ms (residual {res[False]:.1e}), cupy.linalg.solve {vendor:.2f} ms")


def main(argv):
    cupy = backend.cupy()
    trsv_rows(cupy)
    if "trsv" not in argv:
        solve_row(cupy)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
