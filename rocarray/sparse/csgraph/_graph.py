"""Validation of csgraph inputs: the CSR adjacency the graph kernels take."""

from rocarray._core import args


def _is_sparse(A):
    return isinstance(getattr(A, "format", None), str) and hasattr(A, "shape")


def as_graph(csgraph):
    """``(n, indptr, indices, csr)`` of a graph given as a sparse array (any format) or a dense
    device array (nonzero entries are edges). Values are not read: an explicitly stored entry is
    an edge, whatever its value (zero included), as in SciPy's sparse graph representation.
    ``csr`` is the CSR array, or None for a dense input."""
    csr = None
    if _is_sparse(csgraph):
        shape = csgraph.shape
    else:
        dense = args.as_device_array(csgraph, "csgraph")
        if dense.ndim != 2:
            raise ValueError("csgraph should have two dimensions")
        shape = dense.shape
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError("compressed-sparse graph must be shape (N, N)")
    n = int(shape[0])
    if n >= 2 ** 31 - 1:
        raise ValueError(f"csgraph has {n} vertices; at most 2**31 - 2 are supported")
    if csr is None and not _is_sparse(csgraph):
        from rocarray import rocsparse

        indptr, indices, _ = rocsparse.dense2csr(dense)
        return n, indptr, indices, None
    csr = csgraph.tocsr()
    return n, csr.indptr, csr.indices, csr


def transpose_adjacency(n, indptr, indices):
    """``(indptr, indices)`` of the transposed graph (rows sorted, as SciPy's ``G.T.tocsr()``)."""
    from rocarray import rocsparse

    values = args.as_device_array(indices, "indices").astype("float32")  # the structure is what matters
    indptr_t, indices_t, _ = rocsparse.csr2csc(n, n, indptr, indices, values)
    # one index type for both adjacencies: the search kernel reads them together
    return indptr_t.astype(indptr.dtype, copy=False), indices_t.astype(indptr.dtype, copy=False)
