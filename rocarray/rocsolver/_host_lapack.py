"""The host LAPACK steps of :func:`rocarray.rocsolver.geev`: balancing (``?gebal``, and
``?gebak`` as a matrix), the Hessenberg QR iteration (``?hseqr``) and the eigenvectors of the
Schur form (``?trevc``), in float64/complex128.

Both are long chains of small dependent steps (a shifted QR sweep chases one bulge down the
matrix; ``trevc`` solves one triangular system per eigenvalue), so they run on the host, as in
MAGMA's ``geev``: the device does the O(n^3) Householder work around them. SciPy does not wrap
these two routines in :mod:`scipy.linalg.lapack`, so they are called through the function
pointers that :mod:`scipy.linalg.cython_lapack` exports (``__pyx_capi__``, LP64 integers).
"""

import ctypes

import numpy

_INT = ctypes.c_int
_P = ctypes.c_void_p
_functions = {}


def _lapack(name, nargs):
    """The ctypes function of SciPy's LAPACK routine ``name`` taking ``nargs`` pointers."""
    fn = _functions.get(name)
    if fn is None:
        try:
            from scipy.linalg import cython_lapack
        except ImportError as exc:  # pragma: no cover - scipy is in the test extra
            raise ImportError("rocsolver.geev runs its Hessenberg QR on the host through SciPy's LAPACK: "
                              "install scipy") from exc
        capsule = cython_lapack.__pyx_capi__[name]
        get_name = ctypes.pythonapi.PyCapsule_GetName
        get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
        get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
        get_pointer.restype, get_pointer.argtypes = _P, [ctypes.py_object, ctypes.c_char_p]
        address = get_pointer(capsule, get_name(capsule))
        fn = _functions[name] = ctypes.CFUNCTYPE(None, *([_P] * nargs))(address)
    return fn


def _ptr(a):
    return a.ctypes.data_as(_P)


def _ints(*values):
    return [numpy.array([v], dtype=numpy.intc) for v in values]


def _char(c):
    return ctypes.c_char_p(c.encode())


def gebal(A):
    """Balance a matrix (LAPACK ``?gebal``, job ``'B'``): permute to isolate eigenvalues, then
    scale rows and columns by powers of two.

    Parameters
    ----------
    A : numpy.ndarray
        ``n x n`` Fortran-ordered float64 or complex128 (finite) matrix, overwritten by the
        balanced ``D^-1 P^T A P D``.

    Returns
    -------
    ilo, ihi : int
        1-based: the balanced matrix is upper triangular outside rows/columns ``ilo..ihi``.
    scale : numpy.ndarray
        ``?gebal``'s permutation and scaling record (float64, n).
    """
    n = A.shape[0]
    scale = numpy.zeros(max(n, 1))
    nn, lda, ilo, ihi, info = _ints(n, max(1, n), 0, 0, 0)
    name = "dgebal" if A.dtype == numpy.float64 else "zgebal"
    _lapack(name, 8)(_char("B"), _ptr(nn), _ptr(A), _ptr(lda), _ptr(ilo), _ptr(ihi), _ptr(scale), _ptr(info))
    return int(ilo[0]), int(ihi[0]), scale[:n]


def gebak(scale, ilo, ihi, left):
    """The matrix M that undoes :func:`gebal` on eigenvectors (LAPACK ``?gebak`` applied to the
    identity): the eigenvectors of A are ``M V`` for those V of the balanced matrix; ``left``
    for left eigenvectors. float64, Fortran-ordered ``n x n`` (a scaled permutation)."""
    n = len(scale)
    M = numpy.asfortranarray(numpy.eye(n))
    nn, lo, hi, m, ldv, info = _ints(n, ilo, ihi, n, max(1, n), 0)
    _lapack("dgebak", 10)(_char("B"), _char("L" if left else "R"), _ptr(nn), _ptr(lo), _ptr(hi),
                          _ptr(numpy.ascontiguousarray(scale)), _ptr(m), _ptr(M), _ptr(ldv), _ptr(info))
    return M


def hseqr(H, want_schur, ilo=1, ihi=None):
    """Eigenvalues (and the Schur factorization) of an upper Hessenberg matrix.

    Parameters
    ----------
    H : numpy.ndarray
        ``n x n`` Fortran-ordered float64 or complex128 upper Hessenberg matrix (entries below the
        subdiagonal are ignored), upper triangular outside rows/columns ``ilo..ihi``; overwritten
        by the Schur form T when ``want_schur``.
    want_schur : bool
        Compute T and the Schur vectors Z (``H = Z T Z^H``) too.
    ilo, ihi : int
        1-based active block (:func:`gebal`'s); ``1, n`` by default.

    Returns
    -------
    w : numpy.ndarray
        The ``n`` eigenvalues, complex128 (in the order of T's diagonal; a real matrix's complex
        pairs are adjacent, positive imaginary part first, as ``dhseqr`` gives them).
    Z : numpy.ndarray or None
        The Fortran-ordered Schur vectors (H's dtype) when ``want_schur``.
    info : int
        ``?hseqr``'s info: ``i > 0`` when the iteration failed to converge, eigenvalues ``i+1..n``
        (1-based) having converged.
    """
    n = H.shape[0]
    real = H.dtype == numpy.float64
    job, compz = ("S", "I") if want_schur else ("E", "N")
    Z = numpy.zeros((n, n) if want_schur else (1, 1), H.dtype, order="F")
    nn, ilo, ihi, ldh, ldz, info = _ints(n, ilo, n if ihi is None else ihi, max(1, n), max(1, Z.shape[0]), 0)
    work = numpy.zeros(max(1, 11 * n), H.dtype)  # dhseqr asks for >= n; the AED workspace likes more
    lwork = _ints(work.size)[0]
    if real:
        wr, wi = numpy.zeros(max(n, 1)), numpy.zeros(max(n, 1))
        _lapack("dhseqr", 14)(_char(job), _char(compz), _ptr(nn), _ptr(ilo), _ptr(ihi), _ptr(H), _ptr(ldh),
                              _ptr(wr), _ptr(wi), _ptr(Z), _ptr(ldz), _ptr(work), _ptr(lwork), _ptr(info))
        w = (wr + 1j * wi)[:n]
    else:
        w = numpy.zeros(max(n, 1), numpy.complex128)
        _lapack("zhseqr", 13)(_char(job), _char(compz), _ptr(nn), _ptr(ilo), _ptr(ihi), _ptr(H), _ptr(ldh),
                              _ptr(w), _ptr(Z), _ptr(ldz), _ptr(work), _ptr(lwork), _ptr(info))
        w = w[:n]
    return w, (Z if want_schur else None), int(info[0])


def trevc(T, left, right):
    """Eigenvectors of a Schur form T (not back-transformed).

    Parameters
    ----------
    T : numpy.ndarray
        ``n x n`` Fortran-ordered float64 (quasi-triangular, 2x2 blocks for complex pairs) or
        complex128 (upper triangular) Schur form from :func:`hseqr`.
    left, right : bool
        Which eigenvectors to compute.

    Returns
    -------
    XL, XR : numpy.ndarray or None
        Fortran-ordered ``n x n`` matrices (T's dtype) whose columns are the left
        (``x^H T = lambda x^H``) and right (``T x = lambda x``) eigenvectors of T, in the order of
        T's diagonal. For float64, a complex pair ``j, j+1`` is stored as the real part in column
        ``j`` and the imaginary part in column ``j+1`` (the vector of the eigenvalue with positive
        imaginary part; its conjugate belongs to the other). Not normalized.
    """
    n = T.shape[0]
    side = "B" if left and right else ("L" if left else "R")
    XL = numpy.zeros((n, n), T.dtype, order="F") if left else numpy.zeros((1, 1), T.dtype, order="F")
    XR = numpy.zeros((n, n), T.dtype, order="F") if right else numpy.zeros((1, 1), T.dtype, order="F")
    select = numpy.zeros(max(n, 1), numpy.intc)
    nn, ldt, ldvl, ldvr, mm, m, info = _ints(n, max(1, n), XL.shape[0], XR.shape[0], n, 0, 0)
    if T.dtype == numpy.float64:
        work = numpy.zeros(max(1, 3 * n))
        _lapack("dtrevc", 14)(_char(side), _char("A"), _ptr(select), _ptr(nn), _ptr(T), _ptr(ldt), _ptr(XL),
                              _ptr(ldvl), _ptr(XR), _ptr(ldvr), _ptr(mm), _ptr(m), _ptr(work), _ptr(info))
    else:
        work = numpy.zeros(max(1, 2 * n), numpy.complex128)
        rwork = numpy.zeros(max(1, n))
        _lapack("ztrevc", 15)(_char(side), _char("A"), _ptr(select), _ptr(nn), _ptr(T), _ptr(ldt), _ptr(XL),
                              _ptr(ldvl), _ptr(XR), _ptr(ldvr), _ptr(mm), _ptr(m), _ptr(work), _ptr(rwork),
                              _ptr(info))
    return (XL if left else None), (XR if right else None)


def pair_kinds(w, real):
    """Per eigenvalue: 0 for a real one (or any of a complex matrix), 1 for the first of a
    complex-conjugate pair of a real matrix (positive imaginary part), 2 for the second."""
    kinds = numpy.zeros(len(w), numpy.int32)
    if real:
        j = 0
        while j < len(w):
            if w[j].imag != 0 and j + 1 < len(w):
                kinds[j], kinds[j + 1] = 1, 2
                j += 2
            else:
                j += 1
    return kinds
