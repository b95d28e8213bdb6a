"""Elementwise arithmetic of sparse arrays (``+ - * /``, ``multiply``), SciPy's semantics.

Functions take a sparse array first; they never import the format modules (results are built
with ``type(x)._from_parts`` or ``x.tocsr()`` of an argument).
"""


def add(a, b):
    """``a + b``: ``b`` sparse, dense or scalar."""
    raise NotImplementedError("sparse add")


def subtract(a, b):
    """``a - b``: ``b`` sparse, dense or scalar."""
    raise NotImplementedError("sparse subtract")


def rsubtract(a, b):
    """``b - a`` for a dense or scalar ``b``."""
    raise NotImplementedError("sparse rsubtract")


def multiply(a, b):
    """Elementwise ``a * b`` (``multiply``; ``*`` of sparse arrays)."""
    raise NotImplementedError("sparse multiply")


def divide(a, b):
    """``a / b``."""
    raise NotImplementedError("sparse divide")


def negative(a):
    """``-a``."""
    raise NotImplementedError("sparse negative")
