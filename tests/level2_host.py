"""Host-side helpers shared by the level-2 tests (dense and banded): BLAS vector positions, a
poisoned device vector with its host twin, the scalars as the kernels receive them, the error
scale of a matrix-vector product, and op()."""

import numpy as np

from conftest import assert_close, random_array, to_device, to_host, wide

from rocarray.rocblas import _arguments


def blas_index(n, inc):
    """Buffer positions of BLAS elements 0..n-1 (a negative inc walks from the far end)."""
    i = np.arange(max(n, 0))
    return i * inc if inc >= 0 else (n - 1 - i) * (-inc)


def scalar(dtype, value, imag):
    """``value`` as a test scalar: complex with ``imag`` for complex dtypes."""
    return complex(value, imag) if np.dtype(dtype).kind == "c" else value


def as_passed(value, dtype):
    """A host scalar rounded to the kernel's precision, widened."""
    v = _arguments.scalar_arg(value, dtype)
    return complex(v) if np.iscomplexobj(v) else float(v)


def error_scale(alpha, op, xs, beta, ys):
    """Absolute error scale: max over outputs of |alpha| |op| |x| + |beta| |y|."""
    s = abs(alpha) * (np.abs(op) @ np.abs(xs)) if op.size else np.zeros(op.shape[0])
    if beta != 0:
        s = s + abs(beta) * np.abs(ys)
    return float(np.max(s)) if s.size else 0.0


def op(a, trans):
    """op(a) for trans 'N', 'T' or 'C'."""
    return a if trans == "N" else (a.T if trans == "T" else a.conj().T)


class Vec:
    """A device vector buffer for (n, inc) and its host twin; non-BLAS elements are NaN."""

    def __init__(self, rng, n, inc, dtype, fill=None, pad=2):
        length = (max(n, 1) - 1) * abs(inc) + 1 + pad
        self.host = np.full(length, np.nan, dtype)
        pos = blas_index(n, inc)
        if fill is None:
            self.host[pos] = random_array(rng, len(pos), dtype)
        else:
            self.host[pos] = fill
        self.dev = to_device(self.host)
        self.n, self.inc = n, inc

    def values(self):
        return wide(self.host[blas_index(self.n, self.inc)])

    def check(self, expected, dtype, scale, terms=1):
        """BLAS elements close to ``expected``; every other element unchanged (NaN stays NaN)."""
        got = to_host(self.dev)
        pos = blas_index(self.n, self.inc)
        rest = np.ones(got.shape, bool)
        rest[pos] = False
        np.testing.assert_array_equal(got[rest], self.host[rest], err_msg="elements outside y changed")
        if self.n > 0:
            assert not np.isnan(got[pos]).any(), "NaN in y: a poisoned entry was read"
            assert_close(got[pos], expected, dtype, max(terms, 1), atol_scale=scale)

    def unchanged(self):
        np.testing.assert_array_equal(to_host(self.dev), self.host)
