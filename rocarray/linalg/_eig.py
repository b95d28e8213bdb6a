"""``numpy.linalg.eig`` and ``eigvals`` on :func:`rocarray.rocsolver.geev`."""

import collections

import numpy

from rocarray import rocsolver
from rocarray._core import backend
from rocarray.linalg import _stacked
from rocarray.rocsolver import _info

LinAlgError = _stacked.LinAlgError

try:
    from numpy.linalg._linalg import EigResult
except ImportError:  # NumPy 1.x returns a plain tuple; the same fields by name
    EigResult = collections.namedtuple("EigResult", ["eigenvalues", "eigenvectors"])

_COMPLEX = {numpy.dtype(numpy.float32): numpy.dtype(numpy.complex64),
            numpy.dtype(numpy.float64): numpy.dtype(numpy.complex128),
            numpy.dtype(numpy.complex64): numpy.dtype(numpy.complex64),
            numpy.dtype(numpy.complex128): numpy.dtype(numpy.complex128)}


_always_complex = []


def numpy_eig_always_complex():
    """Whether the installed NumPy's ``eig``/``eigvals`` return complex arrays for every input
    (newer NumPy) rather than real ones when every eigenvalue of a real stack is real; rocarray
    follows the installed NumPy."""
    if not _always_complex:
        _always_complex.append(numpy.linalg.eigvals(numpy.eye(1)).dtype.kind == "c")
    return _always_complex[0]


def _geev(a, vectors):
    """Eigenvalues ``(..., n)`` and, with ``vectors``, right eigenvectors ``(..., n, n)`` of the
    stack ``a`` as the installed NumPy returns them (complex; or real when the input is real and
    every eigenvalue of the whole stack is real, where that NumPy does so)."""
    cupy = backend.cupy()
    a = _stacked.stacked_square(a)
    dtype = _stacked.linalg_dtype(a.dtype)
    if a.size and not bool(cupy.isfinite(a).all()):
        raise LinAlgError("Array must not contain infs or NaNs")
    batch, n = a.shape[:-2], a.shape[-1]
    count = int(numpy.prod(batch, dtype=numpy.int64))
    cdtype = _COMPLEX[dtype]
    work = _stacked.column_major_batch(a, dtype).reshape(count, n * n)
    w = cupy.empty((count, n), cdtype)
    v = cupy.empty((count, n, n), cdtype) if vectors else None  # v[b, j] is column j of matrix b
    info = _info.new_info(count)
    for b in range(count if n else 0):
        rocsolver.geev("N", "V" if vectors else "N", n, work[b], n, w[b], None, 1,
                       v[b].reshape(-1) if vectors else None, n, info[b:b + 1])
    if (_info.failures(info, count if n else 0) > 0).any():
        raise LinAlgError("Eigenvalues did not converge")
    w = w.reshape(batch + (n,))
    if vectors:
        v = v.reshape(batch + (n, n)).swapaxes(-1, -2)
    if dtype.kind == "f" and not numpy_eig_always_complex() and not (cupy.asnumpy(w).imag != 0).any():
        w = w.real.astype(dtype)
        v = v.real.astype(dtype) if vectors else None
    return w, v


def eig(a):
    """Eigenvalues and right eigenvectors of square matrices (``numpy.linalg.eig``).

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, M)`` device array (a host NumPy array raises ``TypeError``); integers and bools
        compute in float64.

    Returns
    -------
    EigResult
        ``(eigenvalues, eigenvectors)``: ``eigenvalues`` ``(..., M)``; ``eigenvectors``
        ``(..., M, M)`` with ``eigenvectors[..., :, i]`` the unit-norm eigenvector of
        ``eigenvalues[..., i]``, its component of largest modulus real (LAPACK's normalization).
        Both are complex, or, where the installed NumPy does so (NumPy before 2.5), real
        (float32/float64) when ``a`` is real and every eigenvalue of the stack is real. The order of the eigenvalues is LAPACK's (not sorted);
        a real matrix's complex-conjugate pairs are adjacent, positive imaginary part first.

    Raises
    ------
    numpy.linalg.LinAlgError
        ``a`` not a stack of square matrices; ``a`` containing NaN or infinity ("Array must not
        contain infs or NaNs"); the QR iteration not converging ("Eigenvalues did not converge").
    TypeError
        A host array, or a dtype ``numpy.linalg`` does not take (float16).

    Notes
    -----
    One :func:`rocarray.rocsolver.geev` per matrix: the Hessenberg reduction and the
    back-transformation of the eigenvectors run on the device, the Hessenberg QR iteration on the
    host in float64/complex128 (SciPy's LAPACK), so the call synchronizes per matrix. No balancing
    is done, so results of badly scaled matrices can differ from NumPy's within their condition.

    Examples
    --------
    >>> w, v = ra.linalg.eig(ra.asarray([[0.0, -1.0], [1.0, 0.0]]))   # doctest: +SKIP
    >>> w                                                              # doctest: +SKIP
    array([0.+1.j, 0.-1.j])
    """
    w, v = _geev(a, True)
    return EigResult(w, v)


def eigvals(a):
    """Eigenvalues of square matrices (``numpy.linalg.eigvals``).

    Parameters
    ----------
    a : cupy.ndarray
        ``(..., M, M)`` device array; integers and bools compute in float64.

    Returns
    -------
    cupy.ndarray
        ``(..., M)`` eigenvalues, in LAPACK's order; complex, or real where the installed NumPy
        gives real ones (a real ``a`` whose eigenvalues are all real, NumPy before 2.5).

    Raises
    ------
    numpy.linalg.LinAlgError
        As :func:`eig`.
    TypeError
        As :func:`eig`.

    Notes
    -----
    :func:`eig` without the eigenvectors: no ``trevc``, no back-transformation.

    Examples
    --------
    >>> ra.linalg.eigvals(ra.asarray([[2.0, 1.0], [0.0, 3.0]]))   # doctest: +SKIP
    array([2., 3.])
    """
    return _geev(a, False)[0]
