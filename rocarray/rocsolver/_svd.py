"""rocSOLVER's singular value decompositions: ``gesvdj`` (one-sided Jacobi) and ``gesvd`` on it.

``A = U S V^H`` of each m x n column-major matrix (S real, descending; U and V unitary).

Design
------
One-sided (Hestenes) Jacobi on the p x q matrix W = A (m >= n) or W = A^H (m < n), p = max(m, n),
q = min(m, n): column pairs of W are rotated until all are orthogonal, the rotations accumulated
into V (q x q, from the identity; skipped when the vectors of V's side are not wanted); then the
column norms of W are the singular values, the normalized columns the left vectors
(``rocarray/_kernels/rocsolver/svd.hip`` states the rotation).
A sweep visits every pair once in a round-robin tournament of q - 1 rounds (q rounded up to even)
of q/2 disjoint pairs each, which rotate in parallel. Iteration stops when a sweep finds every
pair at or below the tolerance, ``|w_i^H w_j| <= tol |w_i| |w_j|``, with ``tol = abstol`` when
``abstol > 0`` else ``max(p, 16) * eps`` (a bound on the rounding of the computed dot product,
so the test can pass), or after ``max_sweeps`` sweeps (``info = 1``). A matrix holding NaN or inf
stops after its first sweep with ``info = 1``: no pair with a non-finite sum is rotated.

* q <= :data:`SMALL_Q`: one launch for the whole batch, one block per matrix running all sweeps
  (warps take the pairs of a round; the matrix and V in shared memory when they fit in 46 KB),
  with no host synchronization.
* SMALL_Q < q < :data:`BLOCK_Q`: one launch per round (one block per column pair of every matrix;
  the rounds of a sweep are one prepared launch whose only per-call value is the round), and one
  host read of the batch's largest pair values per sweep to decide whether to go on:
  ``(q - 1) * sweeps`` launches and ``sweeps`` synchronizations, typically 6 to 12 sweeps.
* q >= :data:`BLOCK_Q`: block Jacobi. The columns form blocks of 16 (the last one padded), and
  the tournament runs on blocks: a round rotates disjoint block pairs X = [W_i W_j] at once. Per
  round three launches: the 32 x 32 Gram matrices G = X^H X of every pair (sums over row slices),
  one block per pair that tests every column pair inside X by the same relative test as above
  (from G) and, above the tolerance, runs one cyclic Jacobi sweep on G accumulating the rotations
  into J (each rotation the one its column pair of X would get), and the update X := X J, V_X :=
  V_X J in row tiles for the pairs that rotate. A sweep is ``nb - 1`` rounds (nb: ``ceil(q/16)``
  rounded up to even) instead of q - 1, each still one pass over W and V, with the same stopping
  rule and host read per sweep.

Then one launch takes the column norms and one writes S sorted descending (NaN last) and the
vectors permuted alike: U's columns and V^H's rows (for m < n the roles swap: U = V_W, V^H = U_W^H).

Null space: a column of W that ends exactly zero (rank deficiency, e.g. repeated columns) gives a
zero singular value and no direction. When the vectors of the p side are requested and some
matrix has a zero singular value, or when all p of them are requested (``'A'`` with p > q), the
missing vectors are completed on the host for those matrices: random vectors projected twice off
the found ones and orthonormalized by NumPy's QR (one copy of those outputs each way). A QR
preconditioning of tall matrices (``geqrf`` first, Jacobi on R) is not done.

``residual`` is a simplification of rocSOLVER's (the Frobenius norm of the off-diagonal of
W^H W): here it is the largest relative pair value ``|w_i^H w_j| / (|w_i| |w_j|)`` seen in the last
sweep. The input's squared column norms must be finite (entries up to about 1e154 in float64, 1e19
in float32); larger ones report non-convergence.
"""

import numpy

from rocarray._core import matrix_args as _m
from rocarray.rocsolver import _info
from rocarray.rocsolver import _svd_kernels as _kern

#: Largest q (min(m, n)) the one-block-per-matrix kernel takes.
SMALL_Q = 64
#: Smallest q that takes the block Jacobi path; between the two, a launch per round of column
#: pairs. ``2**62`` keeps every large matrix on the column-pair path.
BLOCK_Q = 129
#: Default sweep limit of :func:`gesvd`.
DEFAULT_SWEEPS = 100

_JOBS = ("A", "S", "N")
_I32 = numpy.dtype(numpy.int32)


# --------------------------------------------------------------------------------------------
# the iteration (device buffers through _kern; CPU tests pass a NumPy model of it)
# --------------------------------------------------------------------------------------------

def default_tolerance(dtype, p):
    """The pair tolerance used when ``abstol <= 0``: ``max(p, 16)`` machine epsilons."""
    return float(numpy.finfo(numpy.dtype(dtype)).eps) * max(int(p), 16)


def _sweeps(p, q, batch, W, Vw, tol, max_sweeps, residual, n_sweeps, info, like):
    """The large-matrix iteration: launches per round (column pairs, or block pairs from
    :data:`BLOCK_Q` on), a host read per sweep."""
    off = _kern.zeros(batch, numpy.uint64, like)
    if q >= BLOCK_Q:
        one_sweep = _kern.BlockSweeper(p, q, batch, W, Vw, tol, off)
    else:
        def one_sweep():
            _kern.jacobi_sweep(p, q, batch, W, Vw, tol, off)
    swept = numpy.zeros(batch, _I32)
    final = numpy.zeros(batch, numpy.float64)
    active = numpy.ones(batch, bool)
    for sweep in range(max_sweeps):
        one_sweep()
        worst = _kern.to_host(off)[:batch].view(numpy.float64)
        off.fill(0)
        swept[active] = sweep + 1
        final[active] = worst[active]
        active &= ~((worst <= tol) | numpy.isinf(worst))
        if not active.any():
            break
    _kern.write(info[:batch], numpy.where(final <= tol, 0, 1).astype(_I32))
    _kern.write(residual[:batch], final.astype(residual.dtype))
    _kern.write(n_sweeps[:batch], swept)


def null_completion(found, count, rng):
    """``count`` orthonormal columns orthogonal to the orthonormal columns of ``found``
    (``(..., p, r)``, host; a stack is done at once): random columns projected off ``found`` and
    orthonormalized by QR, twice."""
    shape = found.shape[:-1] + (count,)
    r = rng.standard_normal(shape)
    if found.dtype.kind == "c":
        r = r + 1j * rng.standard_normal(shape)
    r = r.astype(found.dtype)
    found_h = numpy.swapaxes(found.conj(), -1, -2)
    for _ in range(2):
        r = r - found @ (found_h @ r)
        r = numpy.linalg.qr(r)[0]
    return r


def _complete(p, q, batch, job, S, strideS, X, ldx, strideX, xrow):
    """Fill the p-side vectors that have no direction (see the module notes): host work only for
    the matrices that need it, those of one rank as one stack."""
    cols = p if job == "A" else q
    s = _kern.to_host(S)
    starts = numpy.arange(batch)[:, None] * strideS + numpy.arange(q)[None, :]
    sb = s[starts]
    ranks = numpy.count_nonzero((sb > 0) & numpy.isfinite(sb), axis=1)
    if not (ranks < cols).any():
        return
    host = _kern.to_host(X)
    e = numpy.arange(p)[:, None]
    k = numpy.arange(cols)[None, :]
    offsets = (k + e * ldx) if xrow else (e + k * ldx)
    rng = numpy.random.default_rng(0)
    for rank in numpy.unique(ranks[ranks < cols]):
        matrices = numpy.flatnonzero(ranks == rank)
        idx = matrices[:, None, None] * strideX + offsets[None]
        vecs = host[idx].conj() if xrow else host[idx]
        ok = numpy.isfinite(vecs[:, :, :rank]).all(axis=(1, 2))
        idx, vecs = idx[ok], vecs[ok]
        vecs[:, :, rank:] = null_completion(vecs[:, :, :rank], cols - rank, rng)
        host[idx] = vecs.conj() if xrow else vecs
    _kern.write(X, host)


def run(left, right, m, n, A, lda, strideA, tol, residual, max_sweeps, n_sweeps, S, strideS,
        U, ldu, strideU, V, ldv, strideV, info, batch):
    """gesvdj on checked arguments (flat 1-D buffers; U/V None when not requested)."""
    if batch == 0:
        return
    p, q = max(m, n), min(m, n)
    if q == 0:
        for buf in (info, residual, n_sweeps):
            buf[:batch].fill(0)
        return
    trans = m < n
    dtype = A.dtype
    # V_W is wanted for the right vectors (m >= n) or the left ones (m < n); else not accumulated
    with_v = (left if trans else right) != "N"
    W = _kern.empty(batch * p * q, dtype, A)
    Vw = _kern.empty(batch * q * q, dtype, A) if with_v else None
    _kern.load(p, q, batch, A, lda, strideA, trans, W, Vw)
    if q <= SMALL_Q:
        _kern.jacobi_small(p, q, batch, W, Vw, tol, max_sweeps, residual, n_sweeps, info)
    else:
        _sweeps(p, q, batch, W, Vw, tol, max_sweeps, residual, n_sweeps, info, A)
    nrm = _kern.empty(batch * q, S.dtype, A)
    _kern.norms(p, q, batch, W, nrm)
    if trans:  # A = V_W S U_W^H
        xjob, X, ldx, strideX, xrow = right, V, ldv, strideV, True
        Y, ldy, strideY, yrow = U, ldu, strideU, False
    else:
        xjob, X, ldx, strideX, xrow = left, U, ldu, strideU, False
        Y, ldy, strideY, yrow = V, ldv, strideV, True
    _kern.sort(p, q, batch, W, Vw, nrm, S, strideS, X, ldx, strideX, xrow, Y, ldy, strideY, yrow)
    if X is not None:
        _complete(p, q, batch, xjob, S, strideS, X, ldx, strideX, xrow)


# --------------------------------------------------------------------------------------------
# argument checks (no device access)
# --------------------------------------------------------------------------------------------

def _flat(X):
    """A 1-D view of a checked buffer (a Fortran-ordered 2-D array's elements in column order)."""
    return X.reshape(-1, order="F") if X.ndim == 2 else X.reshape(-1)


def _vector(x, dtype, batch, name, where):
    from rocarray._core import args as _args

    _args.device_array(x, name, where)
    if x.dtype != dtype:
        raise TypeError(f"{where}: {name} must be a {dtype.name} array, got {x.dtype.name}")
    if not x.flags.c_contiguous:
        raise ValueError(f"{where}: {name} must be contiguous")
    if x.size < batch:
        raise ValueError(f"{where}: {name} needs {batch} element(s), got {x.size}")
    return x.reshape(-1)


def _outputs(where, left, right, m, n, S, strideS, U, ldu, strideU, V, ldv, strideV, batch, dtype):
    """Checked S, U, V (flat; None for a vector side not requested) and their leading dimensions."""
    q = min(m, n)
    rdtype = numpy.dtype(dtype.char.lower())
    _m.matrix_buffer(S, "S", where)
    if S.dtype != rdtype:
        raise TypeError(f"{where}: S must be a {rdtype.name} array, got {S.dtype.name}")
    strideS = _m.size(strideS, "strideS", where)
    if strideS < q and batch > 1:
        raise ValueError(f"{where}: strideS must be >= {q}, got {strideS}")
    ucols = {"A": m, "S": q, "N": 0}[left]
    vrows = {"A": n, "S": q, "N": 0}[right]
    ldu = _m.leading_dimension(ldu, m if left != "N" else 1, "ldu", where)
    ldv = _m.leading_dimension(ldv, vrows if right != "N" else 1, "ldv", where)
    strideU = _m.size(strideU, "strideU", where)
    strideV = _m.size(strideV, "strideV", where)
    for X, name in ((U, "U"), (V, "V")):
        if X is not None:
            _m.matrix_buffer(X, name, where)
            if X.dtype != dtype:
                raise TypeError(f"{where}: {name} must have the dtype of A ({dtype.name}), got {X.dtype.name}")
    if left != "N" and U is None:
        raise TypeError(f"{where}: U is required when left_svect is {left!r}")
    if right != "N" and V is None:
        raise TypeError(f"{where}: V is required when right_svect is {right!r}")
    if batch and q:
        _m.matrix_bounds(S, q, 1, q, "S", where, batch, strideS)
        if left != "N" and ucols:
            _m.matrix_bounds(U, m, ucols, ldu, "U", where, batch, strideU)
        if right != "N":
            _m.matrix_bounds(V, vrows, n, ldv, "V", where, batch, strideV)
    U = _flat(U) if left != "N" else None
    V = _flat(V) if right != "N" else None
    return _flat(S), strideS, U, ldu, strideU, V, ldv, strideV


def _common(where, left, right, m, n, A, lda, strideA, batch):
    left = _m.option(left, "left_svect", where, _JOBS)
    right = _m.option(right, "right_svect", where, _JOBS)
    m, n, batch = _m.size(m, "m", where), _m.size(n, "n", where), _m.size(batch, "batch_count", where)
    _m.matrix_buffer(A, "A", where)
    dtype = _m.supported_dtype(A.dtype, _m.STANDARD, where)
    lda = _m.leading_dimension(lda, m, "lda", where)
    strideA = _m.size(strideA, "strideA", where)
    if batch and m and n:
        _m.matrix_bounds(A, m, n, lda, "A", where, batch, strideA)
    return left, right, m, n, dtype, lda, strideA, batch


def _jacobi_args(where, abstol, residual, max_sweeps, n_sweeps, info, batch, dtype):
    try:
        abstol = float(abstol)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: abstol must be a real number, got {abstol!r}") from None
    max_sweeps = _m.size(max_sweeps, "max_sweeps", where)
    if max_sweeps < 1:
        raise ValueError(f"{where}: max_sweeps must be >= 1, got {max_sweeps}")
    residual = _vector(residual, numpy.dtype(dtype.char.lower()), batch, "residual", where)
    n_sweeps = _vector(n_sweeps, _I32, batch, "n_sweeps", where)
    info = _info.info_buffer(info, batch, where).reshape(-1)
    return abstol, residual, max_sweeps, n_sweeps, info


# --------------------------------------------------------------------------------------------
# public routines
# --------------------------------------------------------------------------------------------

def gesvdj_strided_batched(left_svect, right_svect, m, n, A, lda, strideA, abstol, residual, max_sweeps,
                           n_sweeps, S, strideS, U, ldu, strideU, V, ldv, strideV, info, batch_count):
    """Singular value decompositions of a strided batch by one-sided Jacobi (``rocsolver_?gesvdj_strided_batched``).

    ``A_b = U_b diag(S_b) V_b^H`` for ``batch_count`` m x n column-major matrices ``strideA``
    elements apart; the arguments of :func:`gesvdj` plus the strides ``strideA``, ``strideS``,
    ``strideU``, ``strideV`` (elements between consecutive matrices or vectors) and
    ``batch_count``. ``residual``, ``n_sweeps`` and ``info`` take one element per matrix.

    Parameters
    ----------
    left_svect, right_svect, m, n, A, lda, abstol, residual, max_sweeps, n_sweeps, S, U, ldu, V, ldv, info
        As :func:`gesvdj`.
    strideA, strideS, strideU, strideV : int
        Elements from one matrix (vector) to the next; ``strideS >= min(m, n)``.
    batch_count : int
        Number of matrices (>= 0).

    Returns
    -------
    None

    Notes
    -----
    Small matrices (``min(m, n) <= 64``) are decomposed in one launch for the whole batch, one
    block per matrix; larger ones take launches per round of column pairs (from ``min(m, n) >=
    BLOCK_Q`` on, of pairs of 16-column blocks) and one host read per sweep. See
    :mod:`rocarray.rocsolver._svd`.
    """
    where = "rocsolver.gesvdj_strided_batched"
    left, right, m, n, dtype, lda, strideA, batch = _common(where, left_svect, right_svect, m, n, A, lda,
                                                            strideA, batch_count)
    abstol, residual, max_sweeps, n_sweeps, info = _jacobi_args(where, abstol, residual, max_sweeps, n_sweeps,
                                                                info, batch, dtype)
    S, strideS, U, ldu, strideU, V, ldv, strideV = _outputs(where, left, right, m, n, S, strideS, U, ldu, strideU,
                                                            V, ldv, strideV, batch, dtype)
    tol = abstol if abstol > 0 else default_tolerance(dtype, max(m, n))
    run(left, right, m, n, _flat(A), lda, strideA, tol, residual, max_sweeps, n_sweeps, S, strideS, U, ldu,
        strideU, V, ldv, strideV, info, batch)


def gesvdj(left_svect, right_svect, m, n, A, lda, abstol, residual, max_sweeps, n_sweeps, S, U, ldu, V, ldv, info):
    """Singular value decomposition by one-sided Jacobi (``rocsolver_?gesvdj``): ``A = U diag(S) V^H``.

    Parameters
    ----------
    left_svect, right_svect : {'A', 'S', 'N'}
        Left (U) and right (V^H) singular vectors: all (U m x m; V^H n x n), the min(m, n)
        singular ones (U m x min(m, n); V^H min(m, n) x n), or none (U / V not referenced, may be
        None). rocSOLVER's overwrite option is not supported. Case-insensitive.
    m, n : int
        A is m x n (>= 0); either 0 returns at once (info 0).
    A : cupy.ndarray
        Column-major m x n matrix (1-D contiguous buffer or Fortran-ordered 2-D array), float32,
        float64, complex64 or complex128. Left unchanged (the iteration works on a copy).
    lda : int
        Leading dimension of A, ``>= max(1, m)``.
    abstol : float
        Pair tolerance: iteration stops when every column pair of the work matrix has
        ``|w_i^H w_j| <= abstol |w_i| |w_j|``; ``<= 0`` takes ``max(max(m, n), 16)`` machine
        epsilons.
    residual : cupy.ndarray
        Real (A's precision) device array; gets the largest relative pair value
        ``|w_i^H w_j| / (|w_i| |w_j|)`` of the last sweep (a simplification of rocSOLVER's
        Frobenius norm of the off-diagonal of W^H W).
    max_sweeps : int
        Most sweeps (>= 1).
    n_sweeps : cupy.ndarray
        int32 device array; gets the number of sweeps run.
    S : cupy.ndarray
        Real device array of min(m, n) elements; gets the singular values, descending.
    U : cupy.ndarray or None
        m x m or m x min(m, n) column-major output (``ldu >= m``).
    ldu : int
        Leading dimension of U (``>= 1`` when U is not referenced).
    V : cupy.ndarray or None
        V^H (the right vectors as rows), n x n or min(m, n) x n, column-major.
    ldv : int
        Leading dimension of V: ``>= n`` ('A') or ``>= min(m, n)`` ('S').
    info : cupy.ndarray
        int32 device array; gets 0, or 1 when the iteration did not converge within
        ``max_sweeps`` (also for NaN/inf input).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-device buffers, unsupported or mismatched dtypes, non-integer sizes.
    ValueError
        Invalid options, negative sizes, leading dimensions too small, buffers too short.

    Notes
    -----
    One-sided (Hestenes) Jacobi on A (m >= n) or A^H, with round-robin ordering; singular values
    are the final column norms. Zero singular values with full vectors requested have their
    vectors completed on the host. Synchronizes when the vectors are completed and, for
    ``min(m, n) > 64``, once per sweep. See :mod:`rocarray.rocsolver._svd`.

    Examples
    --------
    >>> A = cupy.array([3.0, 0.0, 0.0, 4.0])                  # diag(3, 4)
    >>> S = cupy.empty(2); info = cupy.empty(1, numpy.int32)   # doctest: +SKIP
    >>> res = cupy.empty(1); sweeps = cupy.empty(1, numpy.int32)
    >>> ra.rocsolver.gesvdj('N', 'N', 2, 2, A, 2, 0.0, res, 100, sweeps, S, None, 1, None, 1, info)  # doctest: +SKIP
    >>> S                                                                                         # doctest: +SKIP
    array([4., 3.])
    """
    where = "rocsolver.gesvdj"
    left, right, m, n, dtype, lda, strideA, batch = _common(where, left_svect, right_svect, m, n, A, lda, 0, 1)
    abstol, residual, max_sweeps, n_sweeps, info = _jacobi_args(where, abstol, residual, max_sweeps, n_sweeps,
                                                                info, 1, dtype)
    S, strideS, U, ldu, strideU, V, ldv, strideV = _outputs(where, left, right, m, n, S, min(m, n), U, ldu, 0,
                                                            V, ldv, 0, 1, dtype)
    tol = abstol if abstol > 0 else default_tolerance(dtype, max(m, n))
    run(left, right, m, n, _flat(A), lda, 0, tol, residual, max_sweeps, n_sweeps, S, strideS, U, ldu, 0, V, ldv,
        0, info, 1)


def _gesvd(where, left, right, m, n, A, lda, strideA, S, strideS, U, ldu, strideU, V, ldv, strideV, E, strideE,
           fast_alg, info, batch):
    left, right, m, n, dtype, lda, strideA, batch = _common(where, left, right, m, n, A, lda, strideA, batch)
    _m.option(fast_alg, "fast_alg", where, ("I", "O"))
    info = _info.info_buffer(info, batch, where).reshape(-1)
    if strideS is None:  # gesvd: one matrix
        strideS = min(m, n)
    S, strideS, U, ldu, strideU, V, ldv, strideV = _outputs(where, left, right, m, n, S, strideS, U, ldu, strideU,
                                                            V, ldv, strideV, batch, dtype)
    rdtype = S.dtype
    _m.matrix_buffer(E, "E", where)
    if E.dtype != rdtype:
        raise TypeError(f"{where}: E must be a {rdtype.name} array, got {E.dtype.name}")
    strideE = _m.size(strideE, "strideE", where)
    q = min(m, n)
    if batch and q > 1:
        _m.matrix_bounds(E, q - 1, 1, q - 1, "E", where, batch, strideE)
        _kern.zero_vectors(_flat(E), q - 1, strideE, batch)
    residual = _kern.empty(batch, rdtype, A)
    sweeps = _kern.empty(batch, _I32, A)
    run(left, right, m, n, _flat(A), lda, strideA, default_tolerance(dtype, max(m, n)), residual, DEFAULT_SWEEPS,
        sweeps, S, strideS, U, ldu, strideU, V, ldv, strideV, info, batch)


_GESVD_NOTES = """
    Notes
    -----
    Implemented on the one-sided Jacobi iteration of :func:`gesvdj` (default tolerance, at most
    {sweeps} sweeps), not on rocSOLVER's bidiagonalization and QR iteration: the bidiagonal form
    it reaches is diagonal, so E (the superdiagonal, min(m, n) - 1 real elements) is set to zero.
    ``info`` is 1 when the iteration did not converge (also for NaN/inf input). ``fast_alg``
    (``'I'`` in place, ``'O'`` out of place) is accepted and has no effect; rocSOLVER's overwrite
    option for the vectors is not supported (A is left unchanged).
""".format(sweeps=DEFAULT_SWEEPS)


def gesvd(left_svect, right_svect, m, n, A, lda, S, U, ldu, V, ldv, E, fast_alg, info):
    return _gesvd("rocsolver.gesvd", left_svect, right_svect, m, n, A, lda, 0, S, None, U, ldu, 0, V, ldv, 0, E,
                  0, fast_alg, info, 1)


def gesvd_strided_batched(left_svect, right_svect, m, n, A, lda, strideA, S, strideS, U, ldu, strideU, V, ldv,
                          strideV, E, strideE, fast_alg, info, batch_count):
    return _gesvd("rocsolver.gesvd_strided_batched", left_svect, right_svect, m, n, A, lda, strideA, S, strideS,
                  U, ldu, strideU, V, ldv, strideV, E, strideE, fast_alg, info, batch_count)


gesvd.__doc__ = """Singular value decomposition ``A = U diag(S) V^H`` (``rocsolver_?gesvd``).

    Parameters
    ----------
    left_svect, right_svect, m, n, A, lda, S, U, ldu, V, ldv, info
        As :func:`gesvdj`.
    E : cupy.ndarray
        Real device array of ``min(m, n) - 1`` elements; set to zero.
    fast_alg : {'I', 'O'}
        rocSOLVER's in-place / out-of-place choice; no effect here.

    Returns
    -------
    None

    Raises
    ------
    TypeError, ValueError
        As :func:`gesvdj`.
""" + _GESVD_NOTES

gesvd_strided_batched.__doc__ = """Singular value decompositions of a strided batch (``rocsolver_?gesvd_strided_batched``).

    Parameters
    ----------
    left_svect, right_svect, m, n, A, lda, S, U, ldu, V, ldv, E, fast_alg, info
        As :func:`gesvd`.
    strideA, strideS, strideU, strideV, strideE : int
        Elements from one matrix (vector) to the next.
    batch_count : int
        Number of matrices (>= 0).

    Returns
    -------
    None
""" + _GESVD_NOTES
