"""``breadth_first_order`` on the device: level-synchronous expansion in FIFO-queue order."""

import numbers

import numpy

from rocarray.sparse.csgraph import _graph, _graph_kernels as gk


def breadth_first_order(csgraph, i_start, directed=True, return_predecessors=True):
    """Breadth-first order from a vertex (``scipy.sparse.csgraph.breadth_first_order``).

    Parameters
    ----------
    csgraph : sparse array or cupy.ndarray
        ``(N, N)`` adjacency (every stored entry of a sparse array is an edge).
    i_start : int
        The starting vertex.
    directed : bool, optional
        Follow edges only forward (True) or both ways (False).
    return_predecessors : bool, optional
        Also return the predecessors.

    Returns
    -------
    node_array : cupy.ndarray
        int32: the reached vertices in breadth-first order.
    predecessors : cupy.ndarray
        int32 ``(N,)``: each reached vertex's parent in the search tree; -9999 for ``i_start``
        and unreached vertices.

    Raises
    ------
    ValueError
        A non-square graph or ``i_start`` out of range.

    Notes
    -----
    Each level is expanded at once on the device; a vertex's parent is its first neighbour in
    the previous level's order, and a level is ordered by (parent's position, position of the
    edge in the parent's row), which is the order of SciPy's FIFO queue over the stored CSR order
    (undirected: a vertex's out-edges, then its in-edges by source). SciPy's result is thus
    reproduced exactly for the same stored order of the rows.
    """
    n, indptr, indices, _ = _graph.as_graph(csgraph)
    if not isinstance(i_start, (numbers.Integral, numpy.integer)) or not 0 <= i_start < n:
        raise ValueError(f"i_start out of range: {i_start!r} for a graph of {n} vertices")
    graphs = [(indptr, indices, None)]
    if not directed:
        indptr_t, indices_t = _graph.transpose_adjacency(n, indptr, indices)
        graphs.append((indptr_t, indices_t, indptr))
    state, keys, order, pred = gk.bfs_init(n, int(i_start))
    base, count, tag = 0, 1, 1
    while count:
        tag += 1
        found = gk.bfs_level(graphs, state, keys, order, pred, base, count, tag)
        base, count = base + count, found
    node_array = order[:base]
    if return_predecessors:
        return node_array, pred
    return node_array
