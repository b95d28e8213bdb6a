"""rocBLAS-style dense linear algebra on hand-written HIP kernels.

Functions take rocBLAS's arguments in rocBLAS's order, without the handle, on ``cupy.ndarray``
buffers; reductions return 0-d device arrays (rocBLAS's device pointer mode).

Level 1: :func:`axpy`, :func:`scal`, :func:`copy`, :func:`swap`, :func:`rot`, :func:`dot`,
:func:`dotc`, :func:`nrm2`, :func:`asum`, :func:`iamax`, :func:`iamin`.

Level 2 (column-major matrices, element (i, j) at ``A[i + j * lda]``): :func:`gemv`, :func:`ger`,
:func:`geru`, :func:`gerc`, :func:`symv`, :func:`hemv`, :func:`trmv`, :func:`trsv`; band matrices
(band storage, element (i, j) at ``A[(ku + i - j) + j * lda]``): :func:`gbmv`, :func:`sbmv`, :func:`hbmv`.

Level 3 (column-major, as level 2): :func:`gemm`; batched: :func:`gemm_strided_batched`,
:func:`gemm_batched`; symmetric and triangular: :func:`symm`, :func:`hemm`, :func:`syrk`,
:func:`herk`, :func:`syr2k`, :func:`her2k`, :func:`trmm`, :func:`trsm`.
"""

from rocarray.rocblas._level1 import asum, axpy, copy, dot, dotc, iamax, iamin, nrm2, rot, scal, swap
from rocarray.rocblas._level2 import gemv, ger, gerc, geru, hemv, symv, trmv, trsv
from rocarray.rocblas._level2_banded import gbmv, hbmv, sbmv
from rocarray.rocblas._gemm.api import gemm
from rocarray.rocblas._gemm.batched import gemm_batched, gemm_strided_batched
from rocarray.rocblas._level3_sym import hemm, her2k, herk, symm, syr2k, syrk
from rocarray.rocblas._level3_tri import trmm, trsm

__all__ = ["axpy", "scal", "copy", "swap", "rot", "dot", "dotc", "nrm2", "asum", "iamax", "iamin",
           "gemv", "ger", "geru", "gerc", "symv", "hemv", "trmv", "trsv", "gbmv", "sbmv", "hbmv", "gemm",
           "gemm_strided_batched", "gemm_batched", "symm", "hemm", "syrk", "herk", "syr2k", "her2k",
           "trmm", "trsm"]
