"""``scipy.sparse`` on the device: CSR, CSC and COO arrays on rocarray's rocsparse kernels."""

# formats (csr_array, csc_array, coo_array, *_matrix, issparse, ...)
from rocarray.sparse._base import issparse, sparray
from rocarray.sparse._coo import coo_array
from rocarray.sparse._csc import csc_array
from rocarray.sparse._csr import csr_array
from rocarray.sparse._matrix import (coo_matrix, csc_matrix, csr_matrix, isspmatrix, isspmatrix_coo, isspmatrix_csc,
                                     isspmatrix_csr, spmatrix)

# construction, arithmetic, reductions, indexing helpers (construct)

__all__ = []
# formats
__all__ += ["csr_array", "csc_array", "coo_array", "csr_matrix", "csc_matrix", "coo_matrix", "issparse", "isspmatrix",
            "isspmatrix_csr", "isspmatrix_csc", "isspmatrix_coo", "sparray", "spmatrix"]
