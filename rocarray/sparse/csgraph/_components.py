"""``connected_components`` on the device: min-label hooking (weak), coloring (strong)."""

from rocarray.sparse.csgraph import _graph, _graph_kernels as gk


def weak_labels(n, indptr, indices):
    """Every vertex labelled with the smallest vertex of its weakly connected component."""
    labels = gk.int_array(n, 0)
    gk.scc_color_init(labels)  # labels[v] = v
    while gk.cc_hook(indptr, indices, labels):
        gk.cc_compress(labels)
    return labels


def strong_labels(n, indptr, indices):
    """Every vertex labelled with the smallest vertex of its strongly connected component."""
    scc = gk.int_array(n, -1)
    colors = gk.int_array(n, 0)
    mark = gk.int_array(n, 0)
    active = n > 0
    while active:
        while gk.scc_trim(indptr, indices, scc):
            pass
        gk.scc_color_init(colors)
        while gk.scc_propagate(indptr, indices, scc, colors):
            pass
        gk.scc_roots(scc, colors, mark)
        while gk.scc_backward(indptr, indices, scc, colors, mark):
            pass
        active = gk.scc_assign(scc, colors, mark)
    return scc


def connected_components(csgraph, directed=True, connection="weak", return_labels=True):
    """Connected components of a graph (``scipy.sparse.csgraph.connected_components``).

    Parameters
    ----------
    csgraph : sparse array or cupy.ndarray
        ``(N, N)`` adjacency: every stored entry of a sparse array is an edge (values are not
        read); a dense device array's nonzero entries are edges. Host arrays raise ``TypeError``.
    directed : bool, optional
        Whether edges are directed (with False, ``connection`` is ignored).
    connection : {'weak', 'strong'}, optional
        For directed graphs: weakly or strongly connected components.
    return_labels : bool, optional
        Also return the labels.

    Returns
    -------
    n_components : int
        Number of components.
    labels : cupy.ndarray
        int32 ``(N,)``: the component of each vertex. Components are numbered by their smallest
        vertex (SciPy's numbering for weak and undirected components; for strong components
        SciPy numbers in the order of its depth-first search, so compare partitions).

    Raises
    ------
    ValueError
        A non-square graph or an unknown ``connection``.

    Notes
    -----
    Weak (and undirected) components hook labels along edges and compress label chains until no
    edge joins two labels (Shiloach and Vishkin, J. Algorithms 3, 1982). Strong components:
    repeated trimming of vertices without in- or out-edges, then the coloring algorithm (Orzan
    2004; Slota, Rajamanickam and Madduri, IPDPS 2014): colors propagate the smallest reaching
    vertex forward, and each color's root collects the vertices that reach it backward. All steps
    run on the device; the host only reads one progress flag per sweep.
    """
    connection = str(connection).lower()
    if connection not in ("weak", "strong"):
        raise ValueError("connection must be 'weak' or 'strong'")
    n, indptr, indices, _ = _graph.as_graph(csgraph)
    if directed and connection == "strong":
        labels = strong_labels(n, indptr, indices)
    else:
        labels = weak_labels(n, indptr, indices)
    count, labels = gk.relabel(labels)
    if return_labels:
        return count, labels
    return count
