"""``scipy.sparse.csgraph`` basics on the device."""

__all__ = []
