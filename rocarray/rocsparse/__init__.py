"""rocSPARSE-style sparse kernels on hand-written HIP sources.

Functions take raw CSR/COO/CSC parts (``data``, ``indices``, ``indptr`` as contiguous 1-D
``cupy.ndarray``; indices and index pointers of one matrix share one integer type, int32 or
int64) and dense ``cupy.ndarray`` operands, in rocSPARSE's spirit without the handle and
descriptors. Sizes, dtypes, shapes and options are checked on the host before any device work
(``TypeError``/``ValueError`` naming the function and the argument; a few attribute reads, no
wait for the device); the index values are not: :func:`check_matrix_csr` and
:func:`check_matrix_coo` check them, and the ``rocarray.sparse`` constructors call them. Analyses
that a matrix can reuse (SpMV strategy, triangular-solve levels) are objects the caller keeps
with the matrix.
"""

# conversions and canonical form (formats)
from rocarray.rocsparse._convert import (check_matrix_coo, check_matrix_csr, coo2csr, coosort, csr2coo, csr2csc,
                                         csr2dense, csr_eliminate_zeros, csr_sum_duplicates, csrsort, dense2csr)

# SpMV, SpMM (spmv/spmm)
from rocarray.rocsparse._spmv_analysis import CsrmvAnalysis, csrmv_analysis
from rocarray.rocsparse._spmv import csrmv
from rocarray.rocsparse._spmm import csrmm

# SpGEMM, SDDMM (spgemm)
from rocarray.rocsparse._spgemm import csrgemm
from rocarray.rocsparse._geam import csr_multiply, csrgeam
from rocarray.rocsparse._sddmm import sddmm

# triangular solve, ILU(0), IC(0) (trisolve)
from rocarray.rocsparse._csrsv import CsrsvAnalysis, csrsv_analysis, csrsv_solve
from rocarray.rocsparse._ilu import csric0, csrilu0

__all__ = []
# formats
__all__ += ["csr2coo", "coo2csr", "coosort", "csrsort", "csr2csc", "csr_sum_duplicates", "csr_eliminate_zeros",
            "csr2dense", "dense2csr", "check_matrix_csr", "check_matrix_coo"]
__all__ += ["CsrmvAnalysis", "csrmv_analysis", "csrmv", "csrmm"]  # spmv
__all__ += ["csrgemm", "csrgeam", "csr_multiply", "sddmm"]  # spgemm
__all__ += ["CsrsvAnalysis", "csrsv_analysis", "csrsv_solve", "csrilu0", "csric0"]  # trisolve
