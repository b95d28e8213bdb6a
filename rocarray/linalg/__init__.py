"""``numpy.linalg`` names on the device, and SciPy's ``scipy.linalg`` extras.

:func:`norm` runs vector and Frobenius norms on rocarray's rocblas kernels (matrix norms on prim
reductions); :func:`matrix_power` and :func:`multi_dot` multiply on rocblas GEMM. On rocsolver:
:func:`solve`, :func:`inv`, :func:`det`, :func:`slogdet`, :func:`tensorsolve`, :func:`tensorinv`
and SciPy's :func:`lu`, :func:`lu_factor`, :func:`lu_solve` (LU); :func:`cholesky` and SciPy's
:func:`cho_factor`, :func:`cho_solve`, :func:`solve_triangular` (Cholesky, rocblas trsm); :func:`qr`
(Householder QR); :func:`eigh`, :func:`eigvalsh` (symmetric eigensolvers); :func:`svd`,
:func:`svdvals`, :func:`pinv`, :func:`matrix_rank`, :func:`cond`, :func:`lstsq` (Jacobi SVD);
:func:`eig`, :func:`eigvals` (general eigenproblem). NumPy 2's Array API names :func:`diagonal`,
:func:`trace`, :func:`matmul`, :func:`outer`, :func:`tensordot`, :func:`vecdot`,
:func:`vector_norm` and :func:`matrix_norm` run on the façade's products and :func:`norm`, and
:func:`cross` broadcasts its inputs as NumPy 2 does. Every
other ``numpy.linalg`` name (``LinAlgError``, ``matrix_transpose``, ...) falls through
to ``cupy.linalg`` until rocarray has its own kernel for it; without CuPy, such a name raises
:class:`~rocarray.NoDeviceError`.
"""

from rocarray.linalg._array_api import (
    cross, diagonal, matmul, matrix_norm, outer, tensordot, trace, vecdot, vector_norm,
)
from rocarray.linalg._cholesky import cho_factor, cho_solve, cholesky, solve_triangular
from rocarray.linalg._eig import eig, eigvals
from rocarray.linalg._eigh import eigh, eigvalsh
from rocarray.linalg._lu import lu, lu_factor, lu_solve
from rocarray.linalg._norm import norm
from rocarray.linalg._products import matrix_power, multi_dot
from rocarray.linalg._qr import qr
from rocarray.linalg._solve import det, inv, slogdet, solve, tensorinv, tensorsolve
from rocarray.linalg._svd import cond, lstsq, matrix_rank, pinv, svd, svdvals

__all__ = ["norm", "matrix_power", "multi_dot",
           "solve", "inv", "det", "slogdet", "tensorsolve", "tensorinv", "lu", "lu_factor", "lu_solve",
           "cholesky", "cho_factor", "cho_solve", "solve_triangular",
           "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "matrix_rank", "cond", "lstsq", "eig", "eigvals",
           "cross", "diagonal", "trace", "matmul", "outer", "tensordot", "vecdot", "vector_norm", "matrix_norm"]


def __getattr__(name):
    """Fall through to ``cupy.linalg`` for names rocarray does not implement."""
    if name.startswith("__"):
        raise AttributeError(name)
    from rocarray._core import backend

    cupy = backend.cupy()  # NoDeviceError with the install hint when CuPy is missing
    linalg = cupy.linalg
    if hasattr(linalg, name):
        obj = getattr(linalg, name)
        if callable(obj) and not isinstance(obj, type):
            from rocarray._user.profile import fallthrough

            return fallthrough(obj, f"linalg.{name}")
        return obj
    raise AttributeError(f"module 'rocarray.linalg' has no attribute '{name}'")


def __dir__():
    names = set(globals()) | set(__all__)
    from rocarray._core import backend

    cupy = backend.cupy_module()
    if cupy is not None:
        names |= {n for n in dir(cupy.linalg) if not n.startswith("_")}
    return sorted(names)
