"""``sytrd``/``hetrd``: reduction of a symmetric/Hermitian matrix to real tridiagonal form,
``A = Q T Q^H``, blocked as LAPACK's ``dsytrd``/``dlatrd``.

Design
------
The lower algorithm (Dongarra, Hammarling and Sorensen, "Block reduction of matrices to
condensed forms for eigenvalue computations", 1989): for each panel of :data:`NB` columns, column
``k`` is first brought up to date with the panel's earlier reflectors (``A(k:, k) -= V W(k, :)^H
+ W V(k, :)^H``), then larfg makes its reflector, and its column of W is ``tau (A22 v - V (W^H v)
- W (V^H v))`` corrected by ``-tau conj(tau) (w^H v) v / 2``. The trailing matrix then takes
``A22 -= V W^H + W V^H`` in one syr2k/her2k. About half of the ``4 n^3 / 3`` flops are the
memory-bound hemv of the trailing matrix, one per column.

Two ways to run a panel's columns (:data:`FUSED_PANEL`):

* fused (:mod:`rocarray.rocsolver._sytrd_kernels`): two prepared launches a column, the
  trailing matrix's lower triangle read once per column for both halves of the hemv;
* per column on rocblas and two one-block kernels: two gemms for the update, larfg, hemv/symv,
  four gemv and the finishing kernel.

``uplo='U'`` runs the same algorithm on the index-reversed copy ``B = P A P`` (P the reversal):
the upper triangle of A is the lower one of B, and the reflectors, D, E and tau of B reversed are
LAPACK's upper ones (Q = H(n-2) ... H(0), reflector i with ``v[i] = 1`` and ``v[:i]`` stored in
``A[:i, i + 1]``).
"""

import numpy

from rocarray import rocblas
from rocarray._core import dtypes, launch, matrix_args as _ma
from rocarray.rocsolver import _eigh_kernels as _k, _sytrd_kernels as _fused

#: Panel width of the blocked reduction.
NB = 32
#: Run the panel's columns through the fused kernels (False: the per-column rocblas path).
FUSED_PANEL = True


def _blas(dtype):
    """(hemv or symv, her2k or syr2k) for ``dtype``."""
    if numpy.dtype(dtype).kind == "c":
        return rocblas.hemv, rocblas.her2k
    return rocblas.symv, rocblas.syr2k


def reduce_lower(dtype, n, a, lda, D, E, tau, nb=NB):
    """The lower reduction in place on the flat buffer ``a`` (checked arguments): reflectors below
    the subdiagonal, E on the subdiagonal, D (real) from the diagonal into ``D``; ``E`` and ``tau``
    take ``n - 1`` values."""
    if n == 0:
        return
    if FUSED_PANEL and n > 1:
        _reduce_lower_fused(dtype, n, a, lda, D, E, tau, nb)
        return
    mv, r2k = _blas(dtype)
    W = _k.empty(a, n * nb, dtype)
    y = _k.empty(a, nb, dtype)

    def at(i, j):
        return i + j * lda

    for j0 in range(0, n - 1, nb):
        pb = min(nb, n - 1 - j0)
        for c in range(pb):
            k = j0 + c
            rows = n - k
            if c > 0:  # column k with the panel's earlier reflectors: A(k:, k) -= V W(k, :)^H + W V(k, :)^H
                rocblas.gemm("N", "C", rows, 1, c, -1, a[at(k, j0):], lda, W[k:], n, 1, a[at(k, k):], lda)
                rocblas.gemm("N", "C", rows, 1, c, -1, W[k:], n, a[at(k, j0):], lda, 1, a[at(k, k):], lda)
            v = a[at(k + 1, k):]
            _k.larfg(dtype, rows - 1, v, E, tau, k)
            w = W[k + 1 + c * n:]
            mv("L", rows - 1, 1, a[at(k + 1, k + 1):], lda, v, 1, 0, w, 1)
            if c > 0:
                rocblas.gemv("C", rows - 1, c, 1, W[k + 1:], n, v, 1, 0, y, 1)
                rocblas.gemv("N", rows - 1, c, -1, a[at(k + 1, j0):], lda, y, 1, 1, w, 1)
                rocblas.gemv("C", rows - 1, c, 1, a[at(k + 1, j0):], lda, v, 1, 0, y, 1)
                rocblas.gemv("N", rows - 1, c, -1, W[k + 1:], n, y, 1, 1, w, 1)
            _k.latrd_w(dtype, rows - 1, w, v, tau, k)
        rest = j0 + pb
        r2k("L", "N", n - rest, pb, -1, a[at(rest, j0):], lda, W[rest:], n, 1, a[at(rest, rest):], lda)
        # the subdiagonal back from the reflectors' unit elements
        first = at(j0 + 1, j0)
        a[first:first + (pb - 1) * (lda + 1) + 1:lda + 1] = E[j0:j0 + pb]
    D[:n] = _k.view(a, 0, n, n, lda).diagonal().real


def _reduce_lower_fused(dtype, n, a, lda, D, E, tau, nb):
    """:func:`reduce_lower` with each panel column in the two fused launches (``n >= 2``)."""
    nb = min(nb, _fused.NB_MAX)
    r2k = _blas(dtype)[1]
    with launch.on_device(a.data.device_id):
        go = _fused.PanelLaunches(dtype, n, a, lda, E, tau, nb)
        norms, symv, total, W = go.norms, go.symv, go.total, go.W
        for j0 in range(0, n - 1, nb):
            pb = min(nb, n - 1 - j0)
            norms(j0)
            for c in range(pb):
                k = j0 + c
                symv(j0, k, c)
                total(j0, k, c, int(c + 1 < pb))
            rest = j0 + pb
            r2k("L", "N", n - rest, pb, -1, a[rest + j0 * lda:], lda, W[rest:], n, 1, a[rest + rest * lda:], lda)
            first = j0 + 1 + j0 * lda
            a[first:first + (pb - 1) * (lda + 1) + 1:lda + 1] = E[j0:j0 + pb]
    D[:n] = _k.view(a, 0, n, n, lda).diagonal().real


def reversed_copy(a, n, lda, dtype):
    """``P A P`` (P the reversal) of the n x n matrix in the flat buffer ``a`` as a new flat
    buffer with leading dimension n."""
    M = _k.view(a, 0, n, n, lda)[::-1, ::-1]
    return _k.flat(_k.module_of(a).asfortranarray(M).astype(dtype, copy=False))


def _check(fn, uplo, n, A, lda, D, E, tau):
    where = f"rocsolver.{fn}"
    uplo = _ma.option(uplo, "uplo", where)
    n = _ma.size(n, "n", where)
    _ma.matrix_buffer(A, "A", where)
    dtype = _ma.supported_dtype(A.dtype, _ma.STANDARD, where)
    if fn == "sytrd" and dtype.kind == "c":
        raise TypeError(f"{where}: unsupported dtype {dtype.name}; supported: float32, float64 (hetrd takes complex)")
    if fn == "hetrd" and dtype.kind != "c":
        raise TypeError(f"{where}: unsupported dtype {dtype.name}; supported: complex64, complex128 (sytrd takes real)")
    lda = _ma.leading_dimension(lda, n, "lda", where)
    real = dtypes.real_dtype(dtype)
    for name, X, want, length in (("D", D, real, n), ("E", E, real, n - 1), ("tau", tau, dtype, n - 1)):
        _ma.matrix_buffer(X, name, where)
        if X.dtype != want:
            raise TypeError(f"{where}: {name} must be {want.name}, got {X.dtype.name}")
        if X.size < max(length, 0):
            raise ValueError(f"{where}: {name} needs {length} element(s), got {X.size}")
    if n > 0:
        _ma.matrix_bounds(A, n, n, lda, "A", where)
    return uplo, n, dtype, lda


def reduce(dtype, uplo, n, a, lda, D, E, tau):
    """:func:`sytrd` on flat buffers (checked arguments, ``n >= 1``), LAPACK's output for
    either ``uplo``."""
    if uplo == "L":
        reduce_lower(dtype, n, a, lda, D, E, tau)
        return
    b = reversed_copy(a, n, lda, dtype)
    real = dtypes.real_dtype(dtype)
    Db, Eb, taub = _k.empty(a, n, real), _k.empty(a, max(n - 1, 1), real), _k.empty(a, max(n - 1, 1), dtype)
    reduce_lower(dtype, n, b, n, Db, Eb, taub)
    lib = _k.module_of(a)
    M = _k.view(a, 0, n, n, lda)
    upper = lib.triu(lib.ones((n, n), dtype=bool))
    M[...] = lib.where(upper, _k.view(b, 0, n, n, n)[::-1, ::-1], M)
    D[:n] = Db[::-1]
    if n > 1:
        E[:n - 1] = Eb[:n - 1][::-1]
        tau[:n - 1] = taub[:n - 1][::-1]


def _sytrd(fn, uplo, n, A, lda, D, E, tau):
    uplo, n, dtype, lda = _check(fn, uplo, n, A, lda, D, E, tau)
    if n > 0:
        reduce(dtype, uplo, n, _k.flat(A), lda, _k.flat(D), _k.flat(E), _k.flat(tau))
    return None


_DOC = """Reduce a {kind} matrix to real symmetric tridiagonal form, ``A = Q T Q^H``
    (``rocsolver_{prefix}``).

    Parameters
    ----------
    uplo : {{'U', 'L'}}
        Which triangle of A is stored and used; the other is not referenced.
    n : int
        Order of A (>= 0).
    A : cupy.ndarray
        Column-major n x n matrix (element (i, j) at ``A[i + j * lda]``; 1-D contiguous buffer or
        2-D Fortran-ordered array), {dtypes}. On exit the ``uplo`` triangle holds T's diagonal and
        off-diagonal and the Householder vectors as LAPACK stores them: ``'L'``: reflector i has
        ``v[i + 1] = 1`` and ``v[i + 2:]`` in ``A[i + 2:, i]``, ``Q = H(0) H(1) ... H(n - 2)``;
        ``'U'``: ``v[i] = 1``, ``v[:i]`` in ``A[:i, i + 1]``, ``Q = H(n - 2) ... H(0)``; each
        ``H(i) = I - tau[i] v v^H``.
    lda : int
        Leading dimension, ``>= max(1, n)``.
    D : cupy.ndarray
        Real 1-D buffer of n elements: T's diagonal.
    E : cupy.ndarray
        Real 1-D buffer of ``n - 1`` elements: T's off-diagonal.
    tau : cupy.ndarray
        1-D buffer of ``n - 1`` elements of A's dtype: the reflectors' factors.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers or wrong dtypes.
    ValueError
        Invalid ``uplo``, negative ``n``, ``lda`` too small, buffers too short.

    Notes
    -----
    Blocked as LAPACK's latrd/sytrd: each panel column in two fused kernels (the trailing
    matrix's lower triangle read once per column), syr2k/her2k for the trailing update; see
    :mod:`rocarray.rocsolver._sytrd`. Nothing is synchronized.
    """


def sytrd(uplo, n, A, lda, D, E, tau):
    return _sytrd("sytrd", uplo, n, A, lda, D, E, tau)


def hetrd(uplo, n, A, lda, D, E, tau):
    return _sytrd("hetrd", uplo, n, A, lda, D, E, tau)


sytrd.__doc__ = _DOC.format(kind="real symmetric", prefix="?sytrd", dtypes="float32 or float64")
hetrd.__doc__ = _DOC.format(kind="complex Hermitian", prefix="?hetrd", dtypes="complex64 or complex128")
