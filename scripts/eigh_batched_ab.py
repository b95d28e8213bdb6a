"""The batched eigh bench stack (10^4 symmetric 32 x 32) through each combination of its way-back
switches, in one process, against CuPy (cuSOLVER's syevjBatched).

    python scripts/eigh_batched_ab.py            # float32 and float64
    python scripts/eigh_batched_ab.py float64    # one dtype

For each dtype: the median time of ``ra.linalg.eigh`` (device events around the call, which
reads ``info`` back) with ``_eigh.WARP_STACK`` (the stack read in place, the eigenvectors written
in NumPy's layout) on and off, for each kernel: ``_eigh_kernels.FAST_ROTATIONS`` (float32: the
XOR kernel with scaled rotations, ``syevj_warp_fast``), the XOR layout and tournament alone
(``FAST_ROTATIONS`` off) and the padded circle kernel (``SYEVJ_WARP_XOR`` off too);
``cupy.linalg.eigh`` on the same array, and each kernel's sweep counts (``n_sweeps`` of
``rocsolver.syevj_strided_batched``).
"""

import sys

import numpy

import rocarray as ra
from rocarray._core import backend
from rocarray.linalg import _eigh
from rocarray.rocsolver import _eigh_kernels

from linalg_profile import median_ms as _profile_median_ms  # this script's folder is on the path


def median_ms(cupy, call, repeat=7):
    """The median of ``repeat`` timed calls after one untimed call (device events)."""
    call()
    return _profile_median_ms(cupy, call, repeat)


def sweeps(cupy, a):
    batch, n = a.shape[0], a.shape[-1]
    A = a.swapaxes(-1, -2).copy().ravel()  # column-major (symmetric: the same matrix)
    W = cupy.empty(batch * n, a.dtype)
    info = cupy.zeros(batch, numpy.int32)
    n_sweeps = cupy.zeros(batch, numpy.int32)
    ra.rocsolver.syevj_strided_batched("V", "L", n, A, n, n * n, 0.0, None, 100, n_sweeps, W, n, info, batch)
    s = cupy.asnumpy(n_sweeps)
    counts = {int(k): int(c) for k, c in zip(*numpy.unique(s, return_counts=True))}
    return f"sweeps mean {s.mean():.3f}, counts {counts}"


def main(argv):
    cupy = backend.cupy()
    dtypes = argv or ["float32", "float64"]
    for dtype in dtypes:
        x = cupy.random.RandomState(1).standard_normal((10_000, 32, 32))
        a = ((x + x.swapaxes(-1, -2)) / 2).astype(dtype)
        vendor = median_ms(cupy, lambda: cupy.linalg.eigh(a))
        print(f"{dtype}: cupy.linalg.eigh {vendor:.3f} ms")
        saved = _eigh.WARP_STACK, _eigh_kernels.SYEVJ_WARP_XOR, _eigh_kernels.FAST_ROTATIONS
        try:
            seen = set()
            for xor, fast in ((True, True), (True, False), (False, False)):
                _eigh_kernels.SYEVJ_WARP_XOR, _eigh_kernels.FAST_ROTATIONS = xor, fast
                kernel = _eigh_kernels.warp_kernel(dtype=dtype, order=32)
                if kernel in seen:
                    continue
                seen.add(kernel)
                print(f"  {kernel}: {sweeps(cupy, a)}")
                for stack in (True, False):
                    _eigh.WARP_STACK = stack
                    t = median_ms(cupy, lambda: ra.linalg.eigh(a))
                    print(f"    WARP_STACK={stack}: ra.linalg.eigh {t:.3f} ms ({vendor / t:.2f}x cupy)")
        finally:
            _eigh.WARP_STACK, _eigh_kernels.SYEVJ_WARP_XOR, _eigh_kernels.FAST_ROTATIONS = saved
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
