"""Host-side helpers shared by the level-2 tests (dense and banded): BLAS vector positions, the
scalars as the kernels receive them, the error scale of a matrix-vector product, and op()."""

import numpy as np

from rocarray.rocblas import _level2


def blas_index(n, inc):
    """Buffer positions of BLAS elements 0..n-1 (a negative inc walks from the far end)."""
    i = np.arange(max(n, 0))
    return i * inc if inc >= 0 else (n - 1 - i) * (-inc)


def scalar(dtype, value, imag):
    """``value`` as a test scalar: complex with ``imag`` for complex dtypes."""
    return complex(value, imag) if np.dtype(dtype).kind == "c" else value


def as_passed(value, dtype):
    """A host scalar rounded to the kernel's precision, widened."""
    v = _level2.scalar_arg(value, dtype)
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
