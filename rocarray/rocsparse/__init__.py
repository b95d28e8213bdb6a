"""rocSPARSE-style sparse kernels on hand-written HIP sources.

Functions take raw CSR/COO/CSC parts (``data``, ``indices``, ``indptr`` as ``cupy.ndarray``;
indices and index pointers of one matrix share one integer type, int32 or int64) and dense
``cupy.ndarray`` operands, in rocSPARSE's spirit without the handle and descriptors. They do not
validate user input (the ``rocarray.sparse`` façade does); analyses that a matrix can reuse
(SpMV strategy, triangular-solve levels) are objects the caller keeps with the matrix.
"""

# conversions and canonical form (formats)

# SpMV, SpMM (spmv/spmm)
from rocarray.rocsparse._spmv_analysis import CsrmvAnalysis, csrmv_analysis
from rocarray.rocsparse._spmv import csrmv
from rocarray.rocsparse._spmm import csrmm

# SpGEMM, SDDMM (spgemm)

# triangular solve, ILU(0), IC(0) (trisolve)

__all__ = []
__all__ += ["CsrmvAnalysis", "csrmv_analysis", "csrmv", "csrmm"]
