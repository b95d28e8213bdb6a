"""Host-side helpers shared by the level-3 and batched gemm tests: column-major device buffers
with their host twins, the scalars as the kernels receive them, and op()."""

import numpy as np

from conftest import random_array, to_device, to_host, wide

from rocarray.rocblas import _level3


class Mat:
    """A column-major rows x cols matrix in a 1-D device buffer with leading dimension ld."""

    def __init__(self, rng, rows, cols, ld, dtype, fill=None):
        size = (max(cols, 1) - 1) * ld + max(rows, 1) + 3
        self.host = random_array(rng, size, dtype) if fill is None else np.full(size, fill, dtype)
        self.rows, self.cols, self.ld = rows, cols, ld
        self.pos = np.arange(rows)[:, None] + np.arange(cols)[None, :] * ld
        self.dev = to_device(self.host)

    def matrix(self):
        return wide(self.host[self.pos]) if self.pos.size else np.zeros((self.rows, self.cols))

    def unchanged(self):
        np.testing.assert_array_equal(to_host(self.dev), self.host)


def scalar(dtype, value, imag):
    """``value`` as a test scalar: complex with ``imag`` for complex dtypes (0 and 1 stay real)."""
    return complex(value, imag) if np.dtype(dtype).kind == "c" and value not in (0, 1) else value


def as_passed(value, dtype):
    """A host scalar rounded to the kernel's precision, widened."""
    v = _level3.scalar_arg(value, dtype)
    return complex(v) if np.iscomplexobj(v) else float(v)


def op(a, trans):
    """op() of a 2-D matrix: 'N', 'T' or 'C'."""
    return a if trans == "N" else (a.T if trans == "T" else a.conj().T)


class SameDevice:
    """Stand-in for ``rocarray._core.launch.on_device`` where there is no device: switches nothing."""

    def __init__(self, device_id):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
