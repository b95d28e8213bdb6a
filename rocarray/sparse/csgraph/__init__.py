"""``scipy.sparse.csgraph`` basics on the device."""

from rocarray.sparse.csgraph._components import connected_components
from rocarray.sparse.csgraph._traversal import breadth_first_order

__all__ = ["connected_components", "breadth_first_order"]
