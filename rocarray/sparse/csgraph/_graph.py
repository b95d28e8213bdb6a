"""Validation of csgraph inputs: the CSR adjacency the graph kernels take."""

from rocarray._core import args


def _is_sparse(A):
    return isinstance(getattr(A, "format", None), str) and hasattr(A, "shape")


def as_graph(csgraph):
    """``(n, indptr, indices, csr)`` of a graph given as a sparse array (any format) or a dense
    device array (nonzero entries are edges). Values are not read: an explicitly stored entry is
    an edge, whatever its value (zero included), as in SciPy's sparse graph representation."""
    if not _is_sparse(csgraph):
        dense = args.as_device_array(csgraph, "csgraph")
        if dense.ndim != 2:
            raise ValueError("csgraph should have two dimensions")
        import rocarray.sparse as sparse

        csgraph = sparse.csr_array(dense)
    if csgraph.ndim != 2 or csgraph.shape[0] != csgraph.shape[1]:
        raise ValueError("compressed-sparse graph must be shape (N, N)")
    n = int(csgraph.shape[0])
    if n >= 2 ** 31 - 1:
        raise ValueError(f"csgraph has {n} vertices; at most 2**31 - 2 are supported")
    csr = csgraph.tocsr()
    return n, csr.indptr, csr.indices, csr


def transpose_adjacency(csr):
    """``(indptr, indices)`` of the transposed graph (rows sorted, as SciPy's ``G.T.tocsr()``)."""
    from rocarray import rocsparse

    m, n = csr.shape
    indptr_t, indices_t, _ = rocsparse.csr2csc(m, n, csr.indptr, csr.indices, csr.data)
    return indptr_t, indices_t
