"""Reductions of sparse arrays (``sum``, ``mean``, ``max``, ``min``, ``diagonal``, ...), SciPy's semantics.

Functions take a sparse array first and never import the format modules.
"""


def sum(a, axis=None, dtype=None, out=None):  # noqa: A001  (SciPy's name)
    """``a.sum(axis)``."""
    raise NotImplementedError("sparse sum")


def mean(a, axis=None, dtype=None, out=None):
    """``a.mean(axis)``."""
    raise NotImplementedError("sparse mean")


def max(a, axis=None, explicit=False):  # noqa: A001
    """``a.max(axis)``."""
    raise NotImplementedError("sparse max")


def min(a, axis=None, explicit=False):  # noqa: A001
    """``a.min(axis)``."""
    raise NotImplementedError("sparse min")


def diagonal(a, k=0):
    """``a.diagonal(k)``."""
    raise NotImplementedError("sparse diagonal")


def count_nonzero(a, axis=None):
    """``a.count_nonzero(axis)``."""
    raise NotImplementedError("sparse count_nonzero")
