"""``scipy.sparse.linalg`` on the device: Krylov solvers, Lanczos eigensolvers, triangular solves."""

__all__ = []
