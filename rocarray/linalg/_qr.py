"""``numpy.linalg.qr`` on rocsolver's Householder QR (geqrf, orgqr/ungqr), stacked inputs included."""

import typing
import warnings

from rocarray import rocsolver
from rocarray._core import backend
from rocarray.linalg import _stacked

_MODES = ("reduced", "complete", "r", "raw")


class QRResult(typing.NamedTuple):
    """``(Q, R)`` of :func:`qr`, as NumPy 2's ``QRResult``."""

    Q: typing.Any
    R: typing.Any


def _mode(mode):
    """NumPy's mode check: the deprecated ``'full'``/``'f'`` (as ``'reduced'``) and
    ``'economic'``/``'e'`` warn; anything else unknown is ``ValueError``."""
    if mode in _MODES:
        return mode
    if mode in ("f", "full"):
        warnings.warn("The 'full' option is deprecated in favor of 'reduced'.\n"
                      "For backward compatibility let mode default.", DeprecationWarning, stacklevel=3)
        return "reduced"
    if mode in ("e", "economic"):
        warnings.warn("The 'economic' option is deprecated.", DeprecationWarning, stacklevel=3)
        return "economic"
    raise ValueError(f"Unrecognized mode '{mode}'")


def qr(a, mode="reduced"):
    """Compute the QR factorization of a matrix (``numpy.linalg.qr``).

    Parameters
    ----------
    a : cupy.ndarray
        Device array of shape ``(..., M, N)`` (at least two dimensions). Integers and bools are
        factored in float64; float32/complex64 stay single precision.
    mode : {'reduced', 'complete', 'r', 'raw'}, optional
        ``'reduced'`` (default): Q ``(..., M, K)`` and R ``(..., K, N)`` with ``K = min(M, N)``;
        ``'complete'``: Q ``(..., M, M)`` and R ``(..., M, N)``; ``'r'``: R only;
        ``'raw'``: ``(h, tau)``, LAPACK's Householder factors, h ``(..., N, M)`` (the transpose of
        geqrf's column-major output, as NumPy returns it) and tau ``(..., K)``.

    Returns
    -------
    QRResult or cupy.ndarray or tuple of cupy.ndarray
        ``QRResult(Q, R)`` (a named tuple) for ``'reduced'`` and ``'complete'``, R for ``'r'``,
        ``(h, tau)`` for ``'raw'``.

    Raises
    ------
    numpy.linalg.LinAlgError
        ``a`` has fewer than two dimensions.
    TypeError
        A host (NumPy) array, or a dtype linalg does not take (float16, ...).
    ValueError
        An unknown mode.

    Notes
    -----
    One :func:`rocarray.rocsolver.geqrf_strided_batched` over the whole stack, then
    :func:`rocarray.rocsolver.orgqr_strided_batched` (``ungqr`` for complex) for Q. The factors
    are LAPACK's, so Q and R equal NumPy's up to rounding (R's diagonal may be negative).
    Q is returned as a transposed view of a column-major buffer. NaN inputs give NaN outputs.

    Examples
    --------
    >>> a = ra.asarray(numpy.random.rand(5, 3))   # doctest: +SKIP
    >>> q, r = ra.linalg.qr(a)                    # doctest: +SKIP
    >>> bool(ra.allclose(q @ r, a))               # doctest: +SKIP
    True
    """
    mode = _mode(mode)
    a = _stacked.stacked_2d(a)
    dtype = _stacked.linalg_dtype(a.dtype)
    cupy = backend.cupy()
    *stack, m, n = a.shape
    k = min(m, n)
    batch = 1
    for s in stack:
        batch *= s
    h = _stacked.column_major_batch(a, dtype)  # (..., N, M): each matrix column-major
    tau = cupy.empty((*stack, k), dtype)
    if batch and k:
        rocsolver.geqrf_strided_batched(m, n, h.reshape(-1), m, m * n, tau.reshape(-1), k, batch)
    if mode == "raw":
        return h, tau
    factor = h.swapaxes(-1, -2)
    if mode == "economic":
        return factor
    mc = m if mode == "complete" and m > n else k
    r = cupy.triu(factor[..., :mc, :])
    if mode == "r":
        return r
    if mc == n:
        qbuf = h  # Q overwrites the reflectors in place (R is already copied out)
    else:
        qbuf = cupy.empty((*stack, mc, m), dtype)
        qbuf[..., :k, :] = h[..., :k, :]
    if batch and m and mc:
        orgqr = rocsolver.ungqr_strided_batched if dtype.kind == "c" else rocsolver.orgqr_strided_batched
        orgqr(m, mc, k, qbuf.reshape(-1), m, m * mc, tau.reshape(-1), k, batch)
    return QRResult(qbuf.swapaxes(-1, -2), r)
