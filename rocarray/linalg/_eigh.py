"""``numpy.linalg.eigh`` and ``eigvalsh`` on rocsolver: Jacobi for stacks of small matrices in one
launch, the tridiagonal path for larger ones."""

import collections
import operator

import numpy

from rocarray import rocsolver
from rocarray._core import backend, dtypes
from rocarray.linalg import _stacked
from rocarray.rocsolver import _info, _syevj

try:
    from numpy.linalg._linalg import EighResult
except ImportError:  # NumPy 1.x returns a plain tuple; keep NumPy 2's names
    EighResult = collections.namedtuple("EighResult", ["eigenvalues", "eigenvectors"])

#: Most sweeps the façade lets Jacobi run (it converges quadratically, in about 6 to 12).
MAX_SWEEPS = 100
#: Stacks of orders the one-warp Jacobi kernel takes go to it as they are laid out
#: (:func:`rocarray.rocsolver._syevj.warp_stack`: the matrices read in NumPy's C order, the
#: eigenvectors written in it, into a new array); False is the way back to a transposing copy into
#: rocSOLVER's column-major layout, which the eigenvectors overwrite.
WARP_STACK = True


def _uplo(UPLO):
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return UPLO.upper()


def _subset(subset_by_index, n):
    """``(lo, hi)`` inclusive, as SciPy checks it."""
    if subset_by_index is None:
        return 0, n - 1
    try:
        lo, hi = (operator.index(i) for i in subset_by_index)
    except (TypeError, ValueError):
        raise ValueError("subset_by_index must be a pair of integers (start, end)") from None
    if not 0 <= lo <= hi <= n - 1:
        raise ValueError("Requested eigenvalue indices are not valid. Valid range is [0, {}] and start <= end, but "
                         "start={}, end={} is given".format(n - 1, lo, hi))
    return lo, hi


def _raise_unconverged(info, batch):
    if numpy.any(_info.failures(info, batch) > 0):  # one synchronization per call
        raise _stacked.LinAlgError("Eigenvalues did not converge")


def _solve(a, UPLO, vectors, subset_by_index):
    a = _stacked.stacked_square(a)
    uplo = _uplo(UPLO)
    dtype = _stacked.linalg_dtype(a.dtype)
    real = dtypes.real_dtype(dtype)
    n = a.shape[-1]
    stack = a.shape[:-2]
    lo, hi = _subset(subset_by_index, n) if n > 0 or subset_by_index is not None else (0, -1)
    cupy = backend.cupy()
    count = hi - lo + 1
    batch = int(numpy.prod(stack, dtype=numpy.int64))
    if n == 0 or batch == 0:
        w = cupy.empty(stack + (count,), real)
        return w, (cupy.empty(stack + (n, count), dtype) if vectors else None)
    if WARP_STACK and _syevj.warp_stack_supported(n, dtype, a.data.device_id):
        A = a.reshape((batch, n, n)).astype(dtype, order="C", copy=False)  # a view where it can be
        W = cupy.empty((batch, n), real)
        V = cupy.empty((batch, n, n), dtype) if vectors else None
        info = cupy.empty(batch, numpy.int32)  # the kernel writes every matrix's
        _syevj.warp_stack(uplo, A, W, V, info, MAX_SWEEPS)
        _raise_unconverged(info, batch)
        w = W.reshape(stack + (n,))[..., lo:hi + 1]
        return w, (V.reshape(stack + (n, n))[..., lo:hi + 1] if vectors else None)
    buf = _stacked.column_major_batch(a, dtype)  # (..., n, n): matrix b column-major at b * n * n
    flat = buf.reshape(-1)
    W = cupy.empty(batch * n, real)
    info = cupy.zeros(batch, numpy.int32)
    evect = "V" if vectors else "N"
    jacobi = rocsolver.heevj_strided_batched if dtype.kind == "c" else rocsolver.syevj_strided_batched
    jacobi(evect, uplo, n, flat, n, n * n, 0.0, None, MAX_SWEEPS, None, W, n, info, batch)
    _raise_unconverged(info, batch)
    w = W.reshape(stack + (n,))[..., lo:hi + 1]
    if not vectors:
        return w, None
    v = buf.swapaxes(-1, -2)[..., lo:hi + 1]
    return w, v


def eigh(a, UPLO="L", *, subset_by_index=None):
    """Eigenvalues and eigenvectors of complex Hermitian or real symmetric matrices
    (``numpy.linalg.eigh``).

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, M)`` device array; only its ``UPLO`` triangle is read (the diagonal's imaginary
        part is ignored). Host (NumPy) arrays raise ``TypeError``.
    UPLO : {'L', 'U'}, optional
        Which triangle to read (default ``'L'``).
    subset_by_index : (int, int), optional
        Keyword-only rocarray extension (SciPy's ``scipy.linalg.eigh`` keyword; NumPy's ``eigh``
        has none): return only the eigenpairs ``start..end`` (inclusive, ascending order), as
        ``scipy.linalg.eigh(a, subset_by_index=(start, end))`` does.

    Returns
    -------
    EighResult
        ``eigenvalues`` ``(..., M)`` real (float32 for single precision inputs, else float64),
        ascending; ``eigenvectors`` ``(..., M, M)`` of the computation dtype, column ``i``
        normalized for eigenvalue ``i``.

    Raises
    ------
    numpy.linalg.LinAlgError
        ``a`` is not a stack of square matrices, or the iteration did not converge (NaN or inf
        input): "Eigenvalues did not converge".
    TypeError
        Unsupported dtypes (float16, extended precision) or a host array.
    ValueError
        An invalid ``UPLO`` or ``subset_by_index``.

    Notes
    -----
    Matrices up to order 128 (fewer for complex128 and where shared memory is short) run
    :func:`rocarray.rocsolver.syevj_strided_batched`: one launch for the whole stack, one warp per
    matrix up to the warp size (32; 64 on wave64 AMD GPUs but for complex128; the stack read and
    the eigenvectors written in NumPy's layout, no copy of a C-ordered input of the computation
    dtype), else one thread block per matrix. Larger ones
    run :func:`rocarray.rocsolver.syevd`'s path per matrix (device tridiagonal reduction and
    back-transformation; the tridiagonal eigenproblem by divide and conquer on the device,
    :func:`rocarray.rocsolver.stedc`, for eigenvectors of order 256 or more, else on the host).
    Checking convergence costs one synchronization per call.

    Examples
    --------
    >>> a = ra.asarray([[2.0, 1.0], [1.0, 2.0]])
    >>> w, v = ra.linalg.eigh(a)        # doctest: +SKIP
    >>> w                               # doctest: +SKIP
    array([1., 3.])
    """
    w, v = _solve(a, UPLO, True, subset_by_index)
    return EighResult(w, v)


def eigvalsh(a, UPLO="L"):
    """Eigenvalues of complex Hermitian or real symmetric matrices (``numpy.linalg.eigvalsh``).

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, M)`` device array; only its ``UPLO`` triangle is read.
    UPLO : {'L', 'U'}, optional
        Which triangle to read (default ``'L'``).

    Returns
    -------
    cupy.ndarray
        ``(..., M)`` real eigenvalues in ascending order.

    Raises
    ------
    numpy.linalg.LinAlgError
        Not a stack of square matrices, or no convergence (NaN or inf input).
    TypeError
        Unsupported dtypes or a host array.
    ValueError
        An invalid ``UPLO``.

    Notes
    -----
    As :func:`eigh` without the eigenvectors.

    Examples
    --------
    >>> ra.linalg.eigvalsh(ra.asarray([[2.0, 1.0], [1.0, 2.0]]))   # doctest: +SKIP
    array([1., 3.])
    """
    return _solve(a, UPLO, False, None)[0]
