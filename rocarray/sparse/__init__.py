"""``scipy.sparse`` on the device: CSR, CSC and COO arrays on rocarray's rocsparse kernels."""

# formats (csr_array, csc_array, coo_array, *_matrix, issparse, ...)

# construction, arithmetic, reductions, indexing helpers (construct)

# solvers and graphs (the scipy.sparse.linalg and scipy.sparse.csgraph subpackages)
from rocarray.sparse import csgraph, linalg  # noqa: E402

__all__ = []
# solvers and graphs
__all__ += ["csgraph", "linalg"]
