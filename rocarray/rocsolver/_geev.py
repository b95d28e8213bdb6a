"""The general (non-symmetric) eigenproblem: ``gehrd`` (Hessenberg reduction), ``orghr/unghr``
(its unitary factor) and ``geev`` (eigenvalues and eigenvectors).

Design
------
``geev`` follows LAPACK's path: balancing ``B = D^-1 P^T A P D`` (``gebal``), ``B = Q H Q^H``
(``gehrd``), the Schur form ``H = Z T Z^H`` by the shifted QR iteration (``hseqr``), the
eigenvectors X of T (``trevc``), and the eigenvectors ``M Q Z X`` of A (M = P D, ``gebak``),
normalized. The Householder reduction and the back-transformation (GEMMs) run on the device; the
balancing, the QR iteration and ``trevc``, long chains of small dependent steps, run on the host
in float64/complex128 through SciPy's LAPACK (:mod:`rocarray.rocsolver._host_lapack`), as
MAGMA's ``geev`` does. So a ``geev`` call synchronizes, copies A and H (n^2 elements each) to the
host and the balanced A, Z, X and M back.

``gehrd`` is LAPACK's unblocked ``gehd2`` on the device: per column one reflector kernel
(``geev.hip``) and two rank-1 updates through rocblas (``gemv`` + ``ger``/``gerc`` from the right
on ``A[0:ihi, j+1:ihi]``, then from the left on ``A[j+1:ihi, j+1:n]``): 10/3 n^3 flops, all
memory-bound level 2. ``orghr`` applies the stored reflectors to the identity, last one first
(two level-2 calls each). The few kernels sit behind :mod:`rocarray.rocsolver._geev_kernels`.
"""

import numpy

from rocarray import rocblas
from rocarray._core import backend, matrix_args as _ma
from rocarray._core.workspace import workspaces
from rocarray.rocsolver import _geev_kernels as _kernels, _host_lapack, _info

STANDARD = _ma.STANDARD
COMPLEX_OF = _kernels.COMPLEX_OF


# --------------------------------------------------------------------------------------------
# host/device plumbing (the CPU tests replace these with NumPy stand-ins)
# --------------------------------------------------------------------------------------------

def _xp():
    return backend.cupy()


def _to_host(x):
    return backend.cupy().asnumpy(x)


def _to_device(x):
    return backend.cupy().asarray(x)


def _vectors(n, dtype, device_id):
    """Three scratch vectors of ``n + 1`` elements: a reflector v, its scaled copy u, and w."""
    count = n + 1
    buf = workspaces.scratch("rocsolver.geev.vectors", 3 * count * dtype.itemsize, device_id)
    flat = buf[:3 * count * dtype.itemsize].view(dtype)
    return flat[:count], flat[count:2 * count], flat[2 * count:]


def _flat(A):
    """The flat column-major memory of a 1-D buffer or a Fortran-ordered 2-D array (a view)."""
    return A if A.ndim <= 1 else A.T.reshape(-1)  # A.T is C-contiguous: a view, never a copy


def _rank1(dtype):
    return rocblas.gerc if dtype.kind == "c" else rocblas.ger


# --------------------------------------------------------------------------------------------
# argument checks
# --------------------------------------------------------------------------------------------

def _check_square(fn, n, A, lda):
    n = _ma.size(n, "n", fn)
    _ma.matrix_buffer(A, "A", fn)
    dtype = _ma.supported_dtype(A.dtype, STANDARD, fn)
    lda = _ma.leading_dimension(lda, n, "lda", fn)
    if n:
        _ma.matrix_bounds(A, n, n, lda, "A", fn)
    return n, lda, dtype


def _check_range(fn, n, ilo, ihi):
    ilo, ihi = _ma.size(ilo, "ilo", fn), _ma.size(ihi, "ihi", fn)
    if not 1 <= ilo <= max(1, n):
        raise ValueError(f"{fn}: ilo must be in [1, max(1, n)] = [1, {max(1, n)}], got {ilo}")
    if not min(ilo, n) <= ihi <= n:
        raise ValueError(f"{fn}: ihi must be in [min(ilo, n), n] = [{min(ilo, n)}, {n}], got {ihi}")
    return ilo, ihi


def _check_vector(fn, x, name, dtype, length):
    _ma.matrix_buffer(x, name, fn)
    if x.ndim != 1:
        raise ValueError(f"{fn}: {name} must be a 1-D buffer, got shape {x.shape}")
    if x.dtype != dtype:
        raise TypeError(f"{fn}: {name} must be {dtype.name} (A's dtype {'is' if dtype.kind == 'c' else 'gives'} "
                        f"{dtype.name}), got {x.dtype.name}")
    if x.size < length:
        raise ValueError(f"{fn}: {name} needs {length} element(s), got {x.size}")
    return x


def _check_hessenberg(fn, n, ilo, ihi, A, lda, tau):
    n, lda, dtype = _check_square(fn, n, A, lda)
    ilo, ihi = _check_range(fn, n, ilo, ihi)
    _check_vector(fn, tau, "tau", dtype, max(n - 1, 0))
    return n, ilo, ihi, lda, dtype


# --------------------------------------------------------------------------------------------
# gehrd
# --------------------------------------------------------------------------------------------

def gehrd(n, ilo, ihi, A, lda, tau):
    """Reduce a general matrix to upper Hessenberg form, ``Q^H A Q = H`` (``rocsolver_?gehrd``).

    LAPACK's conventions: ``Q = H(ilo) H(ilo+1) ... H(ihi-1)`` (1-based), each
    ``H(i) = I - tau[i-1] v v^H`` with ``v[0:i] = 0``, ``v[i] = 1`` and ``v[i+1:ihi]`` stored in
    ``A[i+1:ihi, i-1]`` (0-based rows); rows and columns outside ``ilo..ihi`` are assumed already
    reduced (as ``gebal`` leaves them). H's subdiagonal is real for complex data.

    Parameters
    ----------
    n : int
        Order of A (>= 0).
    ilo, ihi : int
        1-based range to reduce, ``1 <= ilo <= ihi <= n`` (``ilo = 1, ihi = 0`` for ``n = 0``);
        ``1, n`` for a whole matrix.
    A : cupy.ndarray
        Column-major ``n x n`` matrix (1-D buffer or Fortran-ordered 2-D array), float32, float64,
        complex64 or complex128; overwritten by H on and above the subdiagonal and the reflectors
        below it.
    lda : int
        Leading dimension, ``>= max(1, n)``.
    tau : cupy.ndarray
        1-D buffer of A's dtype, ``n - 1`` elements: the reflectors' scalars (0 outside
        ``ilo..ihi-1``).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or mismatched dtypes.
    ValueError
        Negative sizes, ``ilo``/``ihi`` out of range, ``lda`` too small, buffers too short.

    Notes
    -----
    Unblocked (LAPACK's ``gehd2``): one reflector kernel and four rocblas level-2 calls per
    column, ``10/3 n^3`` flops bound by memory traffic.
    """
    fn = "rocsolver.gehrd"
    n, ilo, ihi, lda, dtype = _check_hessenberg(fn, n, ilo, ihi, A, lda, tau)
    if n == 0:
        return None
    _gehrd(n, ilo, ihi, _flat(A), lda, tau, dtype, A.data.device_id)
    return None


def _gehrd(n, ilo, ihi, a, lda, tau, dtype, device_id):
    """:func:`gehrd` on the flat buffer ``a`` (arguments checked)."""
    if ilo > 1:
        tau[:ilo - 1] = 0
    if ihi < n:
        tau[ihi - 1:n - 1] = 0
    v, u, w = _vectors(n, dtype, device_id)
    rank1 = _rank1(dtype)
    for j in range(ilo - 1, ihi - 1):
        k = ihi - j - 1  # reflector length: rows j+1 .. ihi-1
        col = j * lda
        _kernels.larfg(a[col + j + 1:], a[col + min(j + 2, n - 1):], k - 1, tau[j:], v, u)
        c = (j + 1) * lda
        # from the right: A[0:ihi, j+1:ihi] -= (A v) (conj(tau) v)^H
        rocblas.gemv("N", ihi, k, 1.0, a[c:], lda, v, 1, 0.0, w, 1)
        rank1(ihi, k, -1.0, w, 1, u, 1, a[c:], lda)
        # from the left (H^H): A[j+1:ihi, j+1:n] -= (conj(tau) v) (A^H v)^H
        rocblas.gemv("C", k, n - j - 1, 1.0, a[c + j + 1:], lda, v, 1, 0.0, w, 1)
        rank1(k, n - j - 1, -1.0, u, 1, w, 1, a[c + j + 1:], lda)


# --------------------------------------------------------------------------------------------
# orghr / unghr
# --------------------------------------------------------------------------------------------

def orghr(n, ilo, ihi, A, lda, tau):
    """Form the orthogonal Q of :func:`gehrd` (``rocsolver_?orghr``), real data.

    Parameters
    ----------
    n, ilo, ihi : int
        As given to :func:`gehrd`.
    A : cupy.ndarray
        :func:`gehrd`'s output (float32 or float64), overwritten by the ``n x n`` Q.
    lda : int
        Leading dimension, ``>= max(1, n)``.
    tau : cupy.ndarray
        :func:`gehrd`'s ``tau``.

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`gehrd`; ``TypeError`` for complex data (use :func:`unghr`).
    """
    return _orghr("rocsolver.orghr", (_ma.F32, _ma.F64), n, ilo, ihi, A, lda, tau)


def unghr(n, ilo, ihi, A, lda, tau):
    """Form the unitary Q of :func:`gehrd` (``rocsolver_?unghr``), complex data.

    Parameters
    ----------
    n, ilo, ihi : int
        As given to :func:`gehrd`.
    A : cupy.ndarray
        :func:`gehrd`'s output (complex64 or complex128), overwritten by the ``n x n`` Q.
    lda : int
        Leading dimension, ``>= max(1, n)``.
    tau : cupy.ndarray
        :func:`gehrd`'s ``tau``.

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`gehrd`; ``TypeError`` for real data (use :func:`orghr`).
    """
    return _orghr("rocsolver.unghr", (_ma.C64, _ma.C128), n, ilo, ihi, A, lda, tau)


def _orghr(fn, dtypes, n, ilo, ihi, A, lda, tau):
    n, ilo, ihi, lda, dtype = _check_hessenberg(fn, n, ilo, ihi, A, lda, tau)
    _ma.supported_dtype(dtype, dtypes, fn)
    if n == 0:
        return None
    _orghr_in_place(n, ilo, ihi, _flat(A), lda, tau, dtype, A.data.device_id)
    return None


def _orghr_in_place(n, ilo, ihi, a, lda, tau, dtype, device_id):
    """:func:`orghr` on the flat buffer ``a`` (arguments checked)."""
    q = _form_q(n, ilo, ihi, a, lda, tau, dtype, device_id)
    _columns(a, lda, n)[:, :] = _columns(q, n, n)


def _columns(flat, ld, n):
    """The ``n x n`` matrix view (rows, columns) of a flat column-major buffer."""
    return _xp().lib.stride_tricks.as_strided(flat, (n, n), (flat.itemsize, ld * flat.itemsize))


def _form_q(n, ilo, ihi, a, lda, tau, dtype, device_id):
    """A new flat ``n x n`` (leading dimension n) Q from the reflectors in ``a``:
    ``Q = H(ilo) ... H(ihi-1) I``, applied last one first to the trailing block it touches."""
    q = _to_device(numpy.eye(n, dtype=dtype).reshape(-1))
    v, u, w = _vectors(n, dtype, device_id)
    rank1 = _rank1(dtype)
    for j in range(ihi - 2, ilo - 2, -1):
        k = ihi - j - 1
        _kernels.reflector(a[j * lda + min(j + 2, n - 1):], k - 1, tau[j:], v, u)
        c = (j + 1) + (j + 1) * n
        # Q[j+1:ihi, j+1:ihi] -= (tau v) (Q^H v)^H
        rocblas.gemv("C", k, k, 1.0, q[c:], n, v, 1, 0.0, w, 1)
        rank1(k, k, -1.0, u, 1, w, 1, q[c:], n)
    return q


# --------------------------------------------------------------------------------------------
# geev
# --------------------------------------------------------------------------------------------

def geev(jobvl, jobvr, n, A, lda, W, VL, ldvl, VR, ldvr, info):
    """Eigenvalues and left/right eigenvectors of a general matrix (``rocsolver_?geev``).

    ``A v = w v`` (right) and ``u^H A = w u^H`` (left). Unlike rocSOLVER's real ``geev``, which
    returns ``WR``/``WI`` and packs complex-pair vectors into real columns, this one returns
    complex eigenvalues and complex eigenvectors for every dtype.

    Parameters
    ----------
    jobvl, jobvr : {'N', 'V'}
        Whether to compute the left / right eigenvectors.
    n : int
        Order of A (>= 0).
    A : cupy.ndarray
        Column-major ``n x n`` matrix (1-D buffer or Fortran-ordered 2-D array), float32, float64,
        complex64 or complex128; destroyed.
    lda : int
        Leading dimension, ``>= max(1, n)``.
    W : cupy.ndarray
        1-D buffer of ``n`` elements of the complex dtype of A's precision (complex64 for
        float32/complex64, complex128 for float64/complex128): the eigenvalues. For real A,
        complex-conjugate pairs are adjacent, positive imaginary part first, and exactly
        conjugate.
    VL, VR : cupy.ndarray or None
        Column-major ``n x n`` matrices of W's dtype (``None`` allowed for ``'N'``): column ``j``
        is the eigenvector of ``W[j]``, of unit 2-norm, its component of largest modulus real
        (LAPACK's normalization). For real A, the vectors of a complex pair are conjugate and
        those of real eigenvalues real (zero imaginary parts).
    ldvl, ldvr : int
        Leading dimensions, ``>= max(1, n)`` when the vectors are computed.
    info : cupy.ndarray
        int32 device array of at least one element: 0 on success; ``i > 0`` when the QR iteration
        failed, ``W[i:]`` then holding the eigenvalues that converged and ``W[:i]`` NaN (VL and VR
        are not written); ``n`` when A holds a NaN or an infinity (W NaN, nothing else written).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or mismatched dtypes.
    ValueError
        Invalid ``jobvl``/``jobvr``, negative ``n``, leading dimensions too small, buffers too
        short.
    ImportError
        Without SciPy (the host LAPACK).

    Notes
    -----
    The reduction to Hessenberg form (:func:`gehrd`), the forming of Q (:func:`orghr`) and the
    back-transformation of the eigenvectors (rocblas ``gemm``) and their normalization run on the
    device; balancing (``?gebal``, on a host copy of A), the Hessenberg QR iteration (``?hseqr``)
    and the eigenvectors of the Schur form (``?trevc``) run on the host in float64/complex128
    through SciPy's LAPACK, on host copies of A and H. The call therefore synchronizes.
    """
    fn = "rocsolver.geev"
    jobvl = _ma.option(jobvl, "jobvl", fn, ("N", "V"))
    jobvr = _ma.option(jobvr, "jobvr", fn, ("N", "V"))
    n, lda, dtype = _check_square(fn, n, A, lda)
    cdtype = COMPLEX_OF[dtype]
    _check_vector(fn, W, "W", cdtype, n)
    outputs = {}
    for job, V, ld, name in ((jobvl, VL, ldvl, "VL"), (jobvr, VR, ldvr, "VR")):
        if job == "V":
            _ma.matrix_buffer(V, name, fn)
            if V.dtype != cdtype:
                raise TypeError(f"{fn}: {name} must be {cdtype.name} for {dtype.name} A, got {V.dtype.name}")
            ld = _ma.leading_dimension(ld, n, f"ld{name.lower()}", fn)
            if n:
                _ma.matrix_bounds(V, n, n, ld, name, fn)
            outputs[name] = (_flat(V), ld)
    _info.info_buffer(info, 1, fn)
    _geev(n, _flat(A), lda, dtype, W, outputs.get("VL"), outputs.get("VR"), info,
          A.data.device_id if n else None)
    return None


def _on_host(a, lda, n):
    """The ``n x n`` matrix in the flat device buffer ``a`` as a Fortran-ordered float64 or
    complex128 host matrix."""
    host = _to_host(a[:(n - 1) * lda + n])
    full = numpy.lib.stride_tricks.as_strided(host, (n, n), (host.itemsize, lda * host.itemsize), writeable=False)
    return numpy.asfortranarray(full, numpy.complex128 if host.dtype.kind == "c" else numpy.float64)


def _upload(host, dtype):
    """A flat device copy (column-major) of a host matrix, in ``dtype``."""
    return _to_device(numpy.asfortranarray(host.astype(dtype)).reshape(-1, order="F"))


def _geev(n, a, lda, dtype, W, VL, VR, info, device_id):
    """:func:`geev` on flat buffers (arguments checked); ``VL``/``VR`` are ``(flat, ld)`` or None."""
    cdtype = COMPLEX_OF[dtype]
    status = numpy.zeros(1, numpy.int32)
    if n == 0:
        info[:1] = _to_device(status)
        return
    A = _on_host(a, lda, n)
    if not numpy.isfinite(A).all():
        W[:n] = _to_device(numpy.full(n, numpy.nan, cdtype))
        status[0] = n
        info[:1] = _to_device(status)
        return
    # balancing needs the whole matrix at once (its passes compare row and column norms), on the
    # host copy that the finiteness check reads anyway
    ilo, ihi, scale = _host_lapack.gebal(A)
    _columns(a, lda, n)[:, :] = _columns(_upload(A, dtype), n, n)
    xp = _xp()
    tau = xp.empty(max(n - 1, 1), dtype)
    _gehrd(n, ilo, ihi, a, lda, tau, dtype, device_id)
    H = numpy.asfortranarray(numpy.triu(_on_host(a, lda, n), -1))
    vectors = VL is not None or VR is not None
    w, Z, status[0] = _host_lapack.hseqr(H, vectors, ilo, ihi)
    w[:status[0]] = numpy.nan
    W[:n] = _to_device(w.astype(cdtype))
    info[:1] = _to_device(status)
    if status[0] or not vectors:
        return
    XL, XR = _host_lapack.trevc(H, VL is not None, VR is not None)
    q = _form_q(n, ilo, ihi, a, lda, tau, dtype, device_id)
    qz = xp.empty(n * n, dtype)
    rocblas.gemm("N", "N", n, n, n, 1.0, q, n, _upload(Z, dtype), n, 0.0, qz, n)
    kinds = _to_device(_host_lapack.pair_kinds(w, dtype.kind == "f"))
    for X, out, left in ((XL, VL, True), (XR, VR, False)):
        if out is None:
            continue
        # the vectors of A: gebak's scaled permutation M times Q Z X, then LAPACK's normalization
        rocblas.gemm("N", "N", n, n, n, 1.0, qz, n, _upload(X, dtype), n, 0.0, q, n)
        back = _upload(_host_lapack.gebak(scale, ilo, ihi, left), dtype)
        product = xp.empty(n * n, dtype)
        rocblas.gemm("N", "N", n, n, n, 1.0, back, n, q, n, 0.0, product, n)
        _kernels.normalize(product, n, kinds, n, n, out[0], out[1])
