"""``scipy.sparse`` on the device: CSR, CSC and COO arrays on rocarray's rocsparse kernels."""

# formats (csr_array, csc_array, coo_array, *_matrix, issparse, ...)

# construction, arithmetic, reductions, indexing helpers (construct)

__all__ = []
