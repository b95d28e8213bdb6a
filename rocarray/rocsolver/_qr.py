"""Householder QR (rocSOLVER's geqrf, orgqr/ungqr, ormqr/unmqr, gels): argument checks and the
public entry points. The algorithms are in :mod:`._qr_blocked`.

LAPACK's representation: after ``geqrf`` the upper triangle of A holds R and the part below the
diagonal the Householder vectors v_i (``v_i(i) = 1`` implicit), and ``ipiv`` (rocSOLVER's name for
tau) the scalars, so that ``A = Q R`` with ``Q = H_0 H_1 ... H_{k-1}``,
``H_i = I - tau_i v_i v_i^H`` (xLARFG's reflectors: real ``beta = R(i, i)``, ``-sign(Re alpha)``
times the column's norm; ``tau = 0`` where the column below the diagonal is already zero and, for
complex data, the diagonal real). These are the factors LAPACK (and ``numpy.linalg.qr``) return.
"""

from rocarray._core import matrix_args as _ma
from rocarray.rocsolver import _info, _qr_blocked

_REAL = (_ma.F32, _ma.F64)
_COMPLEX = (_ma.C64, _ma.C128)


def _where(fn):
    return f"rocsolver.{fn}"


def _flat(A):
    """The 1-D view of a checked buffer (a Fortran-ordered 2-D array's memory in column order)."""
    return A.T.reshape(-1) if A.ndim == 2 else A.reshape(-1)


def _dtype(fn, A, supported=_ma.STANDARD):
    _ma.matrix_buffer(A, "A", _where(fn))
    return _ma.supported_dtype(A.dtype, supported, _where(fn))


def _same(fn, dtype, device, named):
    """Buffers with A's dtype on A's device (``TypeError``/``ValueError`` naming them)."""
    for name, X in named:
        _ma.matrix_buffer(X, name, _where(fn))
        if X.dtype != dtype:
            raise TypeError(f"{_where(fn)}: {name} must have the dtype of A ({dtype.name}), got {X.dtype.name}")
        if X.data.device_id != device:
            raise ValueError(f"{_where(fn)}: {name} is on device {X.data.device_id} but A is on device {device}")


def _tau_bounds(fn, ipiv, k, batch=1, stride=0):
    need = (batch - 1) * stride + k if batch and k else 0
    if need > ipiv.size:
        raise ValueError(f"{_where(fn)}: ipiv needs {need} element(s), but the buffer has {ipiv.size}")


def _matrix(fn, A, rows, cols, lda, name="A", batch=1, stride=0):
    ld = _ma.leading_dimension(lda, rows, f"ld{name.lower()}", _where(fn))
    if rows and cols and batch:
        _ma.matrix_bounds(A, rows, cols, ld, name, _where(fn), batch, stride)
    return ld


def _geqrf_args(fn, m, n, A, lda, ipiv, batch=1, stride_a=0, stride_p=0):
    where = _where(fn)
    m, n = _ma.size(m, "m", where), _ma.size(n, "n", where)
    batch = _ma.size(batch, "batch_count", where)
    stride_a, stride_p = _ma.size(stride_a, "strideA", where), _ma.size(stride_p, "strideP", where)
    dtype = _dtype(fn, A)
    _same(fn, dtype, A.data.device_id, (("ipiv", ipiv),))
    lda = _matrix(fn, A, m, n, lda, batch=batch, stride=stride_a)
    _tau_bounds(fn, ipiv, min(m, n), batch, stride_p)
    return m, n, lda, batch, stride_a, stride_p


def geqrf(m, n, A, lda, ipiv):
    """QR factorization ``A = Q R`` in place (``rocsolver_?geqrf``, LAPACK xGEQRF).

    Parameters
    ----------
    m, n : int
        A is m x n (>= 0); either 0 does nothing.
    A : cupy.ndarray
        Column-major matrix (element (i, j) at ``A[i + j * lda]``; a contiguous 1-D buffer or a
        Fortran-ordered 2-D array) of float32, float64, complex64 or complex128. On return R is on
        and above the diagonal and the Householder vectors below it (see
        :mod:`rocarray.rocsolver._qr`).
    lda : int
        Leading dimension, ``>= max(1, m)``.
    ipiv : cupy.ndarray
        Contiguous buffer of A's dtype with at least ``min(m, n)`` elements: receives the
        Householder scalars tau (rocSOLVER's name for them).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, an unsupported dtype, ipiv of another dtype, non-integer sizes.
    ValueError
        Negative sizes, ``lda`` too small, buffers too short or misaligned.

    Notes
    -----
    Blocked: panels of 128 columns, each factored recursively with 32-column leaves by an
    unblocked kernel, the trailing matrix updated by the panel's compact WY block reflector on
    rocblas gemm (:mod:`rocarray.rocsolver._qr_blocked`). ``4/3 n^3`` flops for a square matrix.
    No scaling guards against norms that overflow or underflow the working precision.

    Examples
    --------
    >>> A = cupy.asarray([3.0, 4.0, 1.0, 2.0])   # [[3, 1], [4, 2]], column-major
    >>> tau = cupy.empty(2)
    >>> ra.rocsolver.geqrf(2, 2, A, 2, tau)   # doctest: +SKIP
    >>> A[[0, 2, 3]]                          # R = [[-5, -2.2], [0, 0.4]]  # doctest: +SKIP
    array([-5. , -2.2,  0.4])
    """
    m, n, lda, _, _, _ = _geqrf_args("geqrf", m, n, A, lda, ipiv)
    _qr_blocked.geqrf(m, n, _flat(A), lda, 0, _flat(ipiv), 0, 1)


def geqrf_strided_batched(m, n, A, lda, strideA, ipiv, strideP, batch_count):
    """QR factorizations of ``batch_count`` matrices (``rocsolver_?geqrf_strided_batched``).

    Matrix b starts at element ``b * strideA`` of A, its tau at ``b * strideP`` of ipiv; each is
    factored as :func:`geqrf` does.

    Parameters
    ----------
    m, n : int
        Each matrix is m x n (>= 0).
    A : cupy.ndarray
        Contiguous buffer of float32, float64, complex64 or complex128 holding the column-major
        matrices; overwritten with their factors.
    lda : int
        Leading dimension, ``>= max(1, m)``.
    strideA : int
        Elements from one matrix to the next (``>= 0``; ``lda * n`` for packed matrices).
    ipiv : cupy.ndarray
        Contiguous buffer of A's dtype receiving the tau of each matrix (``min(m, n)`` each).
    strideP : int
        Elements from one matrix's tau to the next.
    batch_count : int
        Number of matrices (>= 0).

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`geqrf`; ValueError also for negative strides or batch_count.

    Notes
    -----
    Matrices of at most 128 columns are factored in one launch, one thread block per matrix;
    wider ones by the blocked algorithm of :func:`geqrf` with strided-batched gemms.
    """
    m, n, lda, batch, sa, sp = _geqrf_args("geqrf_strided_batched", m, n, A, lda, ipiv, batch_count, strideA, strideP)
    _qr_blocked.geqrf(m, n, _flat(A), lda, sa, _flat(ipiv), sp, batch)


def _orgqr(fn, supported, m, n, k, A, lda, ipiv, batch=1, stride_a=0, stride_p=0):
    where = _where(fn)
    m, n, k = _ma.size(m, "m", where), _ma.size(n, "n", where), _ma.size(k, "k", where)
    batch = _ma.size(batch, "batch_count", where)
    stride_a, stride_p = _ma.size(stride_a, "strideA", where), _ma.size(stride_p, "strideP", where)
    if n > m:
        raise ValueError(f"{where}: n must be <= m, got m={m}, n={n}")
    if k > n:
        raise ValueError(f"{where}: k must be <= n, got n={n}, k={k}")
    dtype = _dtype(fn, A, supported)
    _same(fn, dtype, A.data.device_id, (("ipiv", ipiv),))
    lda = _matrix(fn, A, m, n, lda, batch=batch, stride=stride_a)
    _tau_bounds(fn, ipiv, k, batch, stride_p)
    _qr_blocked.orgqr(m, n, k, _flat(A), lda, stride_a, _flat(ipiv), stride_p, batch)


_ORGQR_DOC = """The first n columns of Q from {fn_geqrf}'s reflectors, in place ({ref}).

    ``Q = H_0 H_1 ... H_{{k-1}}`` (m x m); A's first n columns are overwritten with Q's.

    Parameters
    ----------
    m, n, k : int
        ``m >= n >= k >= 0``: A is m x n, and its first k columns hold the reflectors.{batch_sizes}
    A : cupy.ndarray
        Column-major buffer ({dtypes}) with the reflectors below the diagonal of its first k
        columns (as geqrf leaves them); overwritten with Q's first n columns.
    lda : int
        Leading dimension, ``>= max(1, m)``.{stride_a}
    ipiv : cupy.ndarray
        Buffer of A's dtype with the k Householder scalars tau.{batch_params}

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, a dtype other than {dtypes}, ipiv of another dtype.
    ValueError
        Negative sizes, ``n > m`` or ``k > n``, ``lda`` too small, buffers too short.

    Notes
    -----
    Blocked backwards (128 reflectors per block, applied as compact WY block reflectors on gemm).
    {extra}
    """

_BATCH_SIZES = " Every matrix of the batch."
_STRIDE_A = """
    strideA : int
        Elements from one matrix of A to the next."""
_BATCH_PARAMS = """
    strideP : int
        Elements from one matrix's tau to the next.
    batch_count : int
        Number of matrices."""


def orgqr(m, n, k, A, lda, ipiv):
    _orgqr("orgqr", _REAL, m, n, k, A, lda, ipiv)


def ungqr(m, n, k, A, lda, ipiv):
    _orgqr("ungqr", _COMPLEX, m, n, k, A, lda, ipiv)


def orgqr_strided_batched(m, n, k, A, lda, strideA, ipiv, strideP, batch_count):
    _orgqr("orgqr_strided_batched", _REAL, m, n, k, A, lda, ipiv, batch_count, strideA, strideP)


def ungqr_strided_batched(m, n, k, A, lda, strideA, ipiv, strideP, batch_count):
    _orgqr("ungqr_strided_batched", _COMPLEX, m, n, k, A, lda, ipiv, batch_count, strideA, strideP)


for _fn, _dt, _batched in ((orgqr, "float32 or float64", False), (ungqr, "complex64 or complex128", False),
                           (orgqr_strided_batched, "float32 or float64", True),
                           (ungqr_strided_batched, "complex64 or complex128", True)):
    _name = _fn.__name__
    _fn.__doc__ = _ORGQR_DOC.format(
        ref=(f"LAPACK x{_name.split('_')[0].upper()} on each matrix" if _batched else
             f"``rocsolver_?{_name}``, LAPACK x{_name.upper()}"), dtypes=_dt,
        fn_geqrf=":func:`geqrf_strided_batched`" if _batched else ":func:`geqrf`",
        batch_sizes=_BATCH_SIZES if _batched else "", batch_params=_BATCH_PARAMS if _batched else "",
        stride_a=_STRIDE_A if _batched else "",
        extra=("A rocarray extension (rocSOLVER has no batched form): every matrix of the stack, "
               "with strided-batched gemms." if _batched else
               ("Complex data: :func:`ungqr`." if _dt.startswith("float") else "Real data: :func:`orgqr`.")))


def _ormqr(fn, supported, trans_allowed, side, trans, m, n, k, A, lda, ipiv, C, ldc):
    where = _where(fn)
    side = _ma.option(side, "side", where)
    trans = _ma.option(trans, "trans", where, trans_allowed)
    m, n, k = _ma.size(m, "m", where), _ma.size(n, "n", where), _ma.size(k, "k", where)
    nq = m if side == "L" else n
    if k > nq:
        raise ValueError(f"{where}: k must be <= {'m' if side == 'L' else 'n'} ({nq}), got {k}")
    dtype = _dtype(fn, A, supported)
    _same(fn, dtype, A.data.device_id, (("ipiv", ipiv), ("C", C)))
    lda = _matrix(fn, A, nq, k, lda)
    ldc = _matrix(fn, C, m, n, ldc, "C")
    _tau_bounds(fn, ipiv, k)
    _qr_blocked.ormqr(side, "N" if trans == "N" else "C", m, n, k, _flat(A), lda, 0, _flat(ipiv), 0, _flat(C),
                      ldc, 0, 1)


_ORMQR_DOC = """Multiply C by Q or {qh} from geqrf's reflectors (``rocsolver_?{fn}``, LAPACK x{upper}).

    ``C := op(Q) C`` (``side='L'``) or ``C op(Q)`` (``side='R'``), ``Q = H_0 ... H_{{k-1}}``.

    Parameters
    ----------
    side : {{'L', 'R'}}
        Q multiplies from the left or the right. Case-insensitive.
    trans : {{'N', '{t}'}}
        op(Q) = Q or {qh}.
    m, n : int
        C is m x n (>= 0).
    k : int
        Number of reflectors, ``0 <= k <= m`` (left) or ``<= n`` (right).
    A : cupy.ndarray
        Column-major buffer ({dtypes}) whose first k columns hold the reflectors below the
        diagonal (as geqrf leaves them); not modified. It has m rows (left) or n rows (right).
    lda : int
        Leading dimension of A, ``>= max(1, m)`` (left) or ``>= max(1, n)`` (right).
    ipiv : cupy.ndarray
        Buffer of A's dtype with the k Householder scalars tau.
    C : cupy.ndarray
        Column-major m x n buffer of A's dtype, overwritten with the product.
    ldc : int
        Leading dimension of C, ``>= max(1, m)``.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, a dtype other than {dtypes}, mismatched dtypes.
    ValueError
        Invalid side or trans, negative sizes, k too large, leading dimensions too small,
        buffers too short.

    Notes
    -----
    Blocks of 128 reflectors applied as compact WY block reflectors (three gemms each), in the
    order the product needs. {other}
    """


def ormqr(side, trans, m, n, k, A, lda, ipiv, C, ldc):
    _ormqr("ormqr", _REAL, ("N", "T"), side, trans, m, n, k, A, lda, ipiv, C, ldc)


def unmqr(side, trans, m, n, k, A, lda, ipiv, C, ldc):
    _ormqr("unmqr", _COMPLEX, ("N", "C"), side, trans, m, n, k, A, lda, ipiv, C, ldc)


ormqr.__doc__ = _ORMQR_DOC.format(fn="ormqr", upper="ORMQR", qh="Q^T", t="T", dtypes="float32 or float64",
                                  other="Complex data: :func:`unmqr`.")
unmqr.__doc__ = _ORMQR_DOC.format(fn="unmqr", upper="UNMQR", qh="Q^H", t="C", dtypes="complex64 or complex128",
                                  other="Real data: :func:`ormqr`.")


def gels(trans, m, n, nrhs, A, lda, B, ldb, info):
    """Least squares or minimum-norm solution of a full-rank system (``rocsolver_?gels``, LAPACK xGELS).

    With ``op(A)`` = A (``trans='N'``) or A^H (``'T'`` for real, ``'C'``): if op(A) has at least
    as many rows as columns, X minimizes ``||op(A) X - B||``; otherwise X is the solution of
    ``op(A) X = B`` with the least norm. A is assumed to have full rank.

    Parameters
    ----------
    trans : {'N', 'T', 'C'}
        op(A); ``'T'`` only for real data (where it equals ``'C'``).
    m, n : int
        A is m x n (>= 0).
    nrhs : int
        Columns of B (>= 0).
    A : cupy.ndarray
        Column-major buffer of float32, float64, complex64 or complex128. Overwritten: for
        ``m >= n`` with the factorization of :func:`geqrf`; for ``m < n`` (which factors A^H in a
        workspace) its contents are kept.
    lda : int
        Leading dimension of A, ``>= max(1, m)``.
    B : cupy.ndarray
        Column-major ``max(m, n) x nrhs`` buffer of A's dtype: on entry the right-hand sides in its
        first rows (as many as op(A) has), on return the solutions (as many rows as op(A) has
        columns); for least squares the rows below them are overwritten.
    ldb : int
        Leading dimension of B, ``>= max(1, m, n)``.
    info : cupy.ndarray
        Device int32 array of at least one element: 0, or i > 0 when R(i, i) is exactly zero
        (A is rank deficient; B then holds no meaningful solution, possibly inf/NaN). Not read
        back: nothing is synchronized.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, unsupported or mismatched dtypes, info not int32.
    ValueError
        Invalid trans (``'T'`` for complex data), negative sizes, leading dimensions too small,
        buffers too short.

    Notes
    -----
    QR of A (m >= n) or of A^H (m < n) by :func:`geqrf`; least squares solves
    ``R X = (Q^H B)(0:n)``, the minimum-norm solution is ``Q [R^{-H} B; 0]``, with
    rocblas trsm for the triangle. Unlike LAPACK, no scaling of A or B guards against overflow.
    """
    where = _where("gels")
    dtype = _dtype("gels", A)
    allowed = ("N", "T", "C") if dtype in _REAL else ("N", "C")
    trans = _ma.option(trans, "trans", where, allowed)
    m, n, nrhs = _ma.size(m, "m", where), _ma.size(n, "n", where), _ma.size(nrhs, "nrhs", where)
    _same("gels", dtype, A.data.device_id, (("B", B),))
    lda = _matrix("gels", A, m, n, lda)
    ldb = _matrix("gels", B, max(m, n), nrhs, ldb, "B")
    _info.info_buffer(info, 1, where)
    _qr_blocked.gels("N" if trans == "N" else "C", m, n, nrhs, _flat(A), lda, _flat(B), ldb, info)


__all__ = ["geqrf", "geqrf_strided_batched", "orgqr", "ungqr", "orgqr_strided_batched", "ungqr_strided_batched",
           "ormqr", "unmqr", "gels"]
