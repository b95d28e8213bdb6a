"""``syevd``/``heevd``: all eigenvalues (and eigenvectors) of a symmetric/Hermitian matrix of any
order, by tridiagonal reduction.

Design
------
Three steps, as MAGMA's hybrid ``syevd``:

1. ``A = Q T Q^H`` on the device (:func:`rocarray.rocsolver._sytrd.reduce_lower`, blocked
   latrd/sytrd on rocblas; ``4 n^3 / 3`` flops).
2. ``T = Y diag(w) Y^T``: for all eigenpairs of order :data:`STEDC_MIN_ORDER` or more, on the
   device in the working precision (:func:`rocarray.rocsolver._stedc.tridiagonal_eigen`, divide
   and conquer); otherwise on the host in float64 (:func:`tridiagonal_eigen`: LAPACK's divide and
   conquer through SciPy; without SciPy, NumPy's ``eigh`` of the dense tridiagonal matrix), where
   one synchronization brings D and E over and one copy takes Y (``n^2`` reals) back.
3. ``Z = Q Y`` on the device (:func:`apply_q`, LAPACK's ``ormtr`` with compact WY blocks of
   :data:`NB_Q` reflectors: ``I - V T V^H`` as three gemms per block, ``2 n^3`` flops; each block's
   ``T`` from ``V^H V`` on the host, one small copy per block).

``uplo='U'`` works on the reversed copy ``P A P`` (:func:`rocarray.rocsolver._sytrd.reversed_copy`),
whose eigenvectors are A's with their rows reversed.
"""

import numpy

from rocarray import rocblas
from rocarray._core import dtypes, matrix_args as _ma
from rocarray.rocsolver import _eigh_kernels as _k, _info, _stedc, _sytrd

#: Reflectors per compact WY block of the back-transformation.
NB_Q = 64
#: Smallest order whose eigenpairs take the device divide and conquer (None: always the host).
STEDC_MIN_ORDER = 256


def tridiagonal_eigen(d, e, vectors, lo, hi):
    """Eigenvalues ``lo..hi`` (inclusive, ascending) of the real symmetric tridiagonal matrix with
    diagonal ``d`` and off-diagonal ``e`` (host float64) and, with ``vectors``, their orthonormal
    eigenvectors as columns; None for non-finite input or a failed solver.

    With SciPy: divide and conquer (``dstevd``) for all pairs, ``dsterf`` for all values, and
    bisection with inverse iteration for a subset; without: NumPy's ``eigh`` of the dense matrix."""
    if not (numpy.all(numpy.isfinite(d)) and numpy.all(numpy.isfinite(e))):
        return None
    n = d.size
    try:
        import scipy.linalg as sla
    except ImportError:
        sla = None
    try:
        if sla is not None and n > 1:
            if (lo, hi) != (0, n - 1):
                return sla.eigh_tridiagonal(d, e, eigvals_only=not vectors, select="i", select_range=(lo, hi))
            if not vectors:
                return sla.eigh_tridiagonal(d, e, eigvals_only=True, lapack_driver="sterf")
            w, Y, info = sla.lapack.dstevd(d, e, compute_v=1)
            return (w, Y) if info == 0 else None
        T = numpy.diag(d) + numpy.diag(e, 1) + numpy.diag(e, -1)
        if vectors:
            w, Y = numpy.linalg.eigh(T)
            return w[lo:hi + 1], Y[:, lo:hi + 1]
        return numpy.linalg.eigvalsh(T)[lo:hi + 1]
    except (numpy.linalg.LinAlgError, ValueError):
        return None


def larft(tau, G):
    """The upper triangular T of ``H(0) ... H(k-1) = I - V T V^H`` (forward, column-wise: LAPACK's
    larft) from the reflectors' factors ``tau`` and ``G = V^H V`` (host arrays)."""
    k = tau.size
    T = numpy.zeros((k, k), dtype=G.dtype)
    for j in range(k):
        T[j, j] = tau[j]
        if j:
            T[:j, j] = -tau[j] * (T[:j, :j] @ G[:j, j])
    return T


def apply_q(dtype, n, ncols, b, ldb, tau_host, Z, ldz, nb=NB_Q):
    """``Z := Q Z`` for the n x ncols matrix in the flat buffer Z, with Q the product of the lower
    reflectors of :func:`rocarray.rocsolver._sytrd.reduce_lower` in the flat buffer ``b``."""
    nref = n - 1
    if nref <= 0 or ncols == 0:
        return
    lib = _k.module_of(b)
    for b0 in reversed(range(0, nref, nb)):
        kb = min(nb, nref - b0)
        r0 = b0 + 1
        m = n - r0
        # V: unit lower trapezoidal m x kb, reflector j's vector from row j
        V = _k.flat(lib.asfortranarray(lib.tril(_k.view(b, r0 + b0 * ldb, m, kb, ldb), -1)
                                       + lib.eye(m, kb, dtype=dtype)))
        G = _k.empty(b, kb * kb, dtype)
        rocblas.gemm("C", "N", kb, kb, m, 1, V, m, V, m, 0, G, kb)
        T = larft(tau_host[b0:b0 + kb], _k.to_host(G).reshape(kb, kb, order="F"))
        Td = _k.to_side(b, T.ravel(order="F"))
        Y1 = _k.empty(b, kb * ncols, dtype)
        Y2 = _k.empty(b, kb * ncols, dtype)
        rocblas.gemm("C", "N", kb, ncols, m, 1, V, m, Z[r0:], ldz, 0, Y1, kb)
        rocblas.gemm("N", "N", kb, ncols, kb, 1, Td, kb, Y1, kb, 0, Y2, kb)
        rocblas.gemm("N", "N", m, ncols, kb, -1, V, m, Y2, kb, 1, Z[r0:], ldz)


def solve(dtype, vectors, uplo, n, a, lda, lo, hi):
    """Eigenvalues ``lo..hi`` of the n x n matrix (n >= 1) in the flat buffer ``a`` (``uplo``
    triangle; destroyed) and, with ``vectors``, the n x (hi - lo + 1) eigenvectors as a flat
    column-major buffer: ``(w, Z)``, w a real array and Z None without vectors, on ``a``'s side;
    None when the tridiagonal solver fails (non-finite input)."""
    dtype = numpy.dtype(dtype)
    real = dtypes.real_dtype(dtype)
    if uplo == "U":
        a, lda = _sytrd.reversed_copy(a, n, lda, dtype), n
    D = _k.empty(a, n, real)
    E = _k.empty(a, max(n - 1, 1), real)
    tau = _k.empty(a, max(n - 1, 1), dtype)
    _sytrd.reduce_lower(dtype, n, a, lda, D, E, tau)
    if vectors and (lo, hi) == (0, n - 1) and STEDC_MIN_ORDER is not None and n >= STEDC_MIN_ORDER:
        result = _stedc.tridiagonal_eigen(D, E[:n - 1])
        if result is None:
            return None
        w, Y = result
        Z = Y if Y.dtype == dtype else Y.astype(dtype)
        return w, _back_transform(dtype, uplo, n, a, lda, tau, Z)
    d = _k.to_host(D).astype(numpy.float64)
    e = _k.to_host(E[:n - 1]).astype(numpy.float64)
    result = tridiagonal_eigen(d, e, vectors, lo, hi)
    if result is None:
        return None
    if not vectors:
        return _k.to_side(a, numpy.asarray(result, dtype=real)), None
    w, Y = result
    Z = _k.to_side(a, numpy.asarray(Y, dtype=dtype).ravel(order="F"))
    return _k.to_side(a, numpy.asarray(w, dtype=real)), _back_transform(dtype, uplo, n, a, lda, tau, Z)


def _back_transform(dtype, uplo, n, a, lda, tau, Z):
    """``Q Z`` for the n x ncols flat buffer Z (rows reversed back for ``uplo='U'``)."""
    ncols = Z.size // n
    apply_q(dtype, n, ncols, a, lda, _k.to_host(tau[:max(n - 1, 0)]), Z, n)
    if uplo == "U":
        Z = _k.flat(_k.module_of(a).asfortranarray(_k.view(Z, 0, n, ncols, n)[::-1, :]))
    return Z


def _check(fn, evect, uplo, n, A, lda, W, info):
    where = f"rocsolver.{fn}"
    evect = _ma.option(evect, "evect", where, ("N", "V"))
    uplo = _ma.option(uplo, "uplo", where)
    n = _ma.size(n, "n", where)
    _ma.matrix_buffer(A, "A", where)
    dtype = _ma.supported_dtype(A.dtype, _ma.STANDARD, where)
    complex_fn = fn.startswith("he")
    if complex_fn != (dtype.kind == "c"):
        other = "syevd" if complex_fn else "heevd"
        raise TypeError(f"{where}: unsupported dtype {dtype.name}; use {other} for "
                        f"{'real' if complex_fn else 'complex'} data")
    lda = _ma.leading_dimension(lda, n, "lda", where)
    real = dtypes.real_dtype(dtype)
    _ma.matrix_buffer(W, "W", where)
    if W.dtype != real:
        raise TypeError(f"{where}: W must be {real.name}, got {W.dtype.name}")
    if W.size < n:
        raise ValueError(f"{where}: W needs {n} element(s), got {W.size}")
    _info.info_buffer(info, 1, where)
    if n > 0:
        _ma.matrix_bounds(A, n, n, lda, "A", where)
    return evect == "V", uplo, n, dtype, lda


def _syevd(fn, evect, uplo, n, A, lda, W, info):
    vectors, uplo, n, dtype, lda = _check(fn, evect, uplo, n, A, lda, W, info)
    info[:1] = 0
    if n == 0:
        return None
    a, w_out = _k.flat(A), _k.flat(W)
    result = solve(dtype, vectors, uplo, n, a, lda, 0, n - 1)
    if result is None:
        w_out[:n] = numpy.nan
        info[:1] = 1
        if vectors:
            _k.view(a, 0, n, n, lda)[...] = numpy.nan
        return None
    w, Z = result
    w_out[:n] = w
    if vectors:
        _k.view(a, 0, n, n, lda)[...] = _k.view(Z, 0, n, n, n)
    return None


_DOC = """All eigenvalues and, optionally, eigenvectors of a {kind} matrix (``rocsolver_{prefix}``).

    Parameters
    ----------
    evect : {{'N', 'V'}}
        Eigenvalues only, or eigenvalues and eigenvectors.
    uplo : {{'U', 'L'}}
        Which triangle of A is stored and used; the other is not referenced.
    n : int
        Order of A (>= 0).
    A : cupy.ndarray
        Column-major n x n matrix (element (i, j) at ``A[i + j * lda]``; 1-D contiguous buffer or
        2-D Fortran-ordered array), {dtypes}. On exit: the orthonormal eigenvectors as columns
        (``evect='V'``, in the order of W), or destroyed (``'N'``).
    lda : int
        Leading dimension, ``>= max(1, n)``.
    W : cupy.ndarray
        Real 1-D buffer of n elements (float32 for single precision, float64 for double): the
        eigenvalues in ascending order.
    info : cupy.ndarray
        int32 device array of at least one element: 0 on success, 1 if the tridiagonal eigensolver
        failed (non-finite input); then W and the vectors are NaN.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers or wrong dtypes.
    ValueError
        Invalid ``evect``/``uplo``, negative ``n``, ``lda`` too small, buffers too short.

    Notes
    -----
    Hybrid: the reduction to tridiagonal form (:func:`{trd}`) and the back-transformation of the
    eigenvectors (blocked Householder products on gemm) run on the device; the tridiagonal
    eigenproblem (``O(n)`` data in) runs on the device by divide and conquer (:func:`stedc`) for
    eigenvectors of order 256 or more, else on the host in float64: LAPACK's divide and conquer
    ``dstevd`` through SciPy where SciPy is installed, else NumPy. Unlike the other
    rocsolver routines it synchronizes: once to read the tridiagonal matrix (or its scale), and
    once per block of reflectors in the back-transformation. See :mod:`rocarray.rocsolver._eigh`.
    """


def syevd(evect, uplo, n, A, lda, W, info):
    return _syevd("syevd", evect, uplo, n, A, lda, W, info)


def heevd(evect, uplo, n, A, lda, W, info):
    return _syevd("heevd", evect, uplo, n, A, lda, W, info)


syevd.__doc__ = _DOC.format(kind="real symmetric", prefix="?syevd", dtypes="float32 or float64",
                            trd="rocarray.rocsolver.sytrd")
heevd.__doc__ = _DOC.format(kind="complex Hermitian", prefix="?heevd", dtypes="complex64 or complex128",
                            trd="rocarray.rocsolver.hetrd")
