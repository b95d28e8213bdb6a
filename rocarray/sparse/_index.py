"""Indexing of sparse arrays (``a[i]``, ``a[i, j]``, row and column slices, fancy row indexing).

Functions take a sparse array first and never import the format modules.
"""


def getitem(a, key):
    """``a[key]``."""
    raise NotImplementedError("sparse indexing")
