"""``scipy.sparse`` on the device: CSR, CSC and COO arrays on rocarray's rocsparse kernels."""

# formats (csr_array, csc_array, coo_array, *_matrix, issparse, ...)
from rocarray.sparse._base import issparse, sparray
from rocarray.sparse._coo import coo_array
from rocarray.sparse._csc import csc_array
from rocarray.sparse._csr import csr_array
from rocarray.sparse._matrix import (coo_matrix, csc_matrix, csr_matrix, isspmatrix, isspmatrix_coo, isspmatrix_csc,
                                     isspmatrix_csr, spmatrix)

# construction, arithmetic, reductions, indexing helpers (construct)
from rocarray.sparse._construct import (block_array, block_diag, bmat, diags, diags_array, eye, eye_array, find,
                                        hstack, identity, kron, kronsum, rand, random, random_array, spdiags,
                                        tril, triu, vstack)

# solvers and graphs (the scipy.sparse.linalg and scipy.sparse.csgraph subpackages)
from rocarray.sparse import csgraph, linalg  # noqa: E402

__all__ = []
# solvers and graphs
__all__ += ["csgraph", "linalg"]
# construct
__all__ += ["eye_array", "eye", "identity", "diags_array", "diags", "spdiags", "random_array", "random", "rand",
            "kron", "kronsum", "vstack", "hstack", "block_array", "bmat", "block_diag", "tril", "triu", "find"]
# formats
__all__ += ["csr_array", "csc_array", "coo_array", "csr_matrix", "csc_matrix", "coo_matrix", "issparse", "isspmatrix",
            "isspmatrix_csr", "isspmatrix_csc", "isspmatrix_coo", "sparray", "spmatrix"]
