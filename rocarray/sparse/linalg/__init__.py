"""``scipy.sparse.linalg`` on the device: Krylov solvers, Lanczos eigensolvers, triangular solves."""

from rocarray.sparse.linalg._interface import LinearOperator, aslinearoperator
from rocarray.sparse.linalg._isolve import bicgstab, cg, gmres
from rocarray.sparse.linalg._minres import minres
from rocarray.sparse.linalg._lsqr import lsqr
from rocarray.sparse.linalg._eigen import ArpackError, ArpackNoConvergence, eigsh, svds
from rocarray.sparse.linalg._norm import norm
from rocarray.sparse.linalg._triangular import spilu, spsolve_triangular

__all__ = ["LinearOperator", "aslinearoperator", "cg", "bicgstab", "gmres", "minres", "lsqr", "eigsh", "svds",
           "norm", "spsolve_triangular", "spilu", "ArpackError", "ArpackNoConvergence"]
