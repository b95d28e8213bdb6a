"""A NumPy implementation of the solvers' vector operations (:mod:`rocarray.sparse.linalg._vecops`).

``install(monkeypatch)`` makes the solvers run on host NumPy arrays with the methods below, which
follow the device contract (in-place updates, scalar slots, the fused conjugate gradient steps), so
the CPU tests check the iteration logic against SciPy on the same matrices.
"""

import numpy as np

from rocarray.sparse.linalg import _vecops


class HostOps:
    """Vector operations on NumPy arrays, method for method like ``_vecops.DeviceOps``."""

    def __init__(self):
        self.calls = {}

    def _count(self, name):
        self.calls[name] = self.calls.get(name, 0) + 1

    def vector(self, x, name):
        if not isinstance(x, np.ndarray):
            raise TypeError(f"argument '{name}' must be an array, not {type(x).__name__}")
        return x

    def array(self, x, dtype):
        return np.array(x, dtype=dtype).ravel()

    def zeros(self, shape, dtype):
        return np.zeros(shape, dtype=dtype)

    def empty(self, shape, dtype):
        return np.full(shape, np.nan, dtype=dtype)

    def copy(self, x):
        return x.copy()

    def assign(self, dst, src):
        dst[...] = src

    def any(self, x):
        self._count("sync")
        return bool(x.any())

    def norm(self, x):
        self._count("sync")
        return float(np.linalg.norm(x))

    def dot(self, x, y):
        self._count("sync")
        return np.vdot(x, y).item()

    def axpy(self, a, x, y):
        y += np.asarray(a).astype(y.dtype) * x

    def scale(self, a, x):
        x *= np.asarray(a).astype(x.dtype)

    def sub(self, x, y):
        return x - y

    def gemv_h(self, V, k, w):
        self._count("sync")
        return V[:k].conj() @ w

    def gemv_n(self, V, k, h, w, alpha):
        w += alpha * (np.asarray(h, dtype=V.dtype) @ V[:k])

    def add_abs2(self, acc, w, s):
        acc += np.abs(w * s) ** 2

    def scalars(self, count, dtype):
        return np.zeros(count, dtype=dtype)

    def dot_to(self, x, y, scalars, slot):
        scalars[slot] = np.vdot(x, y)

    def value(self, scalars, slot):
        self._count("sync")
        return scalars[slot].item()

    def cg_update(self, x, r, p, q, scalars, rho, pq, rr):
        alpha = scalars[rho] / scalars[pq]
        x += alpha * p
        r -= alpha * q
        scalars[rr] = np.vdot(r, r).real

    def cg_direction(self, p, z, scalars, rho_new, rho_old):
        beta = scalars[rho_new] / scalars[rho_old]
        p *= beta
        p += z


def install(monkeypatch):
    """Route the solvers through a fresh :class:`HostOps` (returned, with its sync counter)."""
    ops = HostOps()
    monkeypatch.setattr(_vecops, "select", lambda: ops)
    return ops
