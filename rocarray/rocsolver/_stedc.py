"""``stedc``: all eigenvalues and eigenvectors of a real symmetric tridiagonal matrix by divide
and conquer, on the device.

Design
------
Cuppen's divide and conquer with Gu and Eisenstat's stable eigenvectors, as LAPACK's ``stedc``
(``laed0``-``laed4``), with every merge of one level of the tree done together:

1. Scale T to ``max(|d|, |e|) = 1`` (one host read: the scale, which also catches non-finite
   input).
2. Tear T into ``2^L`` leaves of at most :data:`LEAF_MAX` rows (sizes differ by at most one, the
   larger first): at every cut between rows ``c - 1`` and ``c``, ``d[c-1]`` and ``d[c]`` lose
   ``|e[c-1]|``, so that T is the block diagonal of the leaves plus one rank-one term per cut.
3. Solve all leaves at once with the batched Jacobi eigensolver
   (:func:`rocarray.rocsolver.syevj_strided_batched`, one launch per leaf size) and place their
   eigenvectors on the diagonal of the n x n matrix Q.
4. Merge level by level (``stedc.hip``, four launches and a few strided-batched gemms a level;
   no host read): for a merge of children ``Q1``, ``Q2`` coupled by ``beta``, the merged matrix
   is ``diag(Q1, Q2) (diag(D) + rho z z^T) diag(Q1, Q2)^T`` with ``z`` the last row of ``Q1``
   and the first row of ``Q2`` (negated for ``beta < 0``), normalized, ``rho = |beta| ||z||^2``
   (``2 |beta|`` in exact arithmetic).

   * deflation (a block per merge: z, its norm and the merged order in parallel, then one
     thread walks the values in order with LAPACK's ``laed2`` rules): a value with
     ``rho |z_i| <= 8 eps max(|D|, |z|)`` is an eigenvalue already; two values whose Givens
     rotation zeroing one z leaves ``|t c s|`` under that tolerance are rotated, one deflated;
   * the secular equation ``1 + rho sum z_i^2 / (d_i - lambda) = 0`` (one thread per root,
     rational two-pole model steps with a bisection safeguard), each root kept as
     ``(origin pole, offset)`` so that every ``d_i - lambda`` is formed accurately;
   * Loewner's formula gives the ``z`` for which the computed roots are exact (one thread per
     value), and the vectors of the merged problem are ``zh_i / (d_i - lambda_j)`` normalized
     (one block per column): numerically orthogonal whatever the roots' spacing;
   * ``Q_merged = diag(Q1, Q2) U``: two gemms per run of equally shaped merges
     (:func:`rocarray.rocblas.gemm_strided_batched`), ``n^3`` flops at the top level without
     deflation, ``4 n^3 / 3`` over all levels.

The columns of U are placed at the ranks of their eigenvalues, so every child's values are
ascending, and the last level leaves ``w`` ascending with Q's columns in that order.
"""

import numpy

from rocarray import rocblas
from rocarray._core import backend, compile as _compile, dtypes, kernels, launch
from rocarray._core import matrix_args as _ma
from rocarray.rocsolver import _eigh_kernels as _k, _info

SOURCE = "rocsolver/stedc.hip"
#: Threads per block (``RA_STEDC_BLOCK``).
BLOCK = 128
#: Threads per block of the one-thread-per-root kernels: small blocks spread a level's roots
#: (as few as n threads, each a long serial loop) over every multiprocessor.
ROOT_BLOCK = 32
#: Largest leaf of the tree (at most the order the one-warp Jacobi kernel takes on any device).
LEAF_MAX = 32
REAL = (numpy.dtype(numpy.float32), numpy.dtype(numpy.float64))
STEPS = ("deflate", "secular", "loewner", "vectors")


def kernel_name(step, dtype):
    """Name expression, e.g. ``'ra_rocsolver_stedc_secular<double>'``."""
    return f"ra_rocsolver_stedc_{step}<{dtypes.ctype(dtype)}>"


def instantiations():
    """Every name expression launched from the source."""
    return sorted(kernel_name(s, d) for s in STEPS for d in REAL)


_compile.register(SOURCE, instantiations())

KERNELS = kernels.Family(SOURCE, BLOCK, 2048 // BLOCK)


def leaves(n, leaf_max=LEAF_MAX):
    """``(offset, size)`` of the ``2^L`` leaves of order ``n`` (``L`` the fewest levels that bring
    every leaf to ``leaf_max`` rows or fewer; the larger leaves first)."""
    count = 1
    while -(-n // count) > leaf_max:
        count *= 2
    q, r = divmod(n, count)
    sizes = [q + 1] * r + [q] * (count - r)
    offsets = numpy.concatenate(([0], numpy.cumsum(sizes)[:-1])).astype(int)
    return list(zip(offsets.tolist(), sizes))


def levels(blocks):
    """The merges ``(o, n1, n2)`` of each level, bottom up, from the leaves ``blocks``."""
    out = []
    while len(blocks) > 1:
        merges = [(blocks[i][0], blocks[i][1], blocks[i + 1][1]) for i in range(0, len(blocks), 2)]
        out.append(merges)
        blocks = [(o, n1 + n2) for o, n1, n2 in merges]
    return out


def gemm_runs(merges):
    """Runs of consecutive merges of one shape: ``(first offset, n1, n2, count)`` (one strided
    batch each: equal shapes lie ``n1 + n2`` apart)."""
    runs = []
    for o, n1, n2 in merges:
        if runs and tuple(runs[-1][1:3]) == (n1, n2):
            runs[-1][3] += 1
        else:
            runs.append([o, n1, n2, 1])
    return [tuple(r) for r in runs]


def _solve_leaves(lib, d, e, Q, n, blocks):
    """Eigenpairs of the torn leaves: values to ``d`` (in place), vectors onto Q's diagonal."""
    from rocarray.rocsolver._syevj import syevj_strided_batched
    dtype = d.dtype
    for q in sorted({size for _, size in blocks}, reverse=True):
        offs = numpy.array([o for o, size in blocks if size == q])
        nb = offs.size
        i, j = numpy.meshgrid(numpy.arange(q), numpy.arange(q), indexing="ij")  # (row, col)
        b = numpy.arange(nb)[:, None]
        A = lib.zeros(nb * q * q, dtype)
        diag = (b * q * q + numpy.arange(q) * (q + 1)).ravel()
        A[lib.asarray(diag)] = d[lib.asarray((offs[:, None] + numpy.arange(q)).ravel())]
        if q > 1:
            sub = (b * q * q + numpy.arange(q - 1) * (q + 1) + 1).ravel()
            A[lib.asarray(sub)] = e[lib.asarray((offs[:, None] + numpy.arange(q - 1)).ravel())]
        W = lib.empty(nb * q, dtype)
        info = lib.zeros(nb, numpy.int32)
        syevj_strided_batched("V", "L", q, A, q, q * q, 0.0, None, 100, None, W, q, info, nb)
        rows = offs[:, None, None] + i[None]
        cols = offs[:, None, None] + j[None]
        Q[lib.asarray((rows + cols * n).ravel())] = A[lib.asarray((b[:, :, None] * q * q + i + j * q).ravel())]
        d[lib.asarray((offs[:, None] + numpy.arange(q)).ravel())] = W


class _Work:
    """The per-level scratch of the merge kernels (length-n arrays on ``lib``'s side)."""

    def __init__(self, lib, n, dtype, nmerge):
        real = lambda size: lib.empty(size, dtype)  # noqa: E731
        ints = lambda size: lib.empty(size, numpy.int32)  # noqa: E731
        self.zs, self.wd, self.wz, self.dl, self.zw, self.zh, self.tau = (real(n) for _ in range(7))
        self.wi, self.idx, self.org = (ints(n) for _ in range(3))
        self.rot_ab, self.rot_cs = ints(2 * n), real(2 * n)
        self.counts, self.rhos = ints(2 * max(nmerge, 1)), real(max(nmerge, 1))


def _merge_level(lib, dtype, n, merges, D, E, Qa, Qb, U, w):
    """One level: every merge's deflation, roots, vectors (into U), then ``Qb := diag(Qa) U``."""
    nm = len(merges)
    mo = lib.asarray(numpy.array([m[0] for m in merges], numpy.int32))
    mn1 = lib.asarray(numpy.array([m[1] for m in merges], numpy.int32))
    mn2 = lib.asarray(numpy.array([m[2] for m in merges], numpy.int32))
    owner = numpy.empty(n, numpy.int32)
    for i, (o, n1, n2) in enumerate(merges):
        owner[o:o + n1 + n2] = i
    pm = lib.asarray(owner)
    real = dtype.type
    device_id = _k.device_id(D)
    threads = (-(-n // ROOT_BLOCK),)
    with launch.on_device(device_id):
        KERNELS[kernel_name("deflate", dtype)](
            device_id, (nm,),
            (mo, mn1, mn2, D, Qa, numpy.int64(n), E, w.zs, w.wd, w.wz, w.wi, w.dl, w.zw, w.idx,
             w.rot_ab, w.rot_cs, w.counts, w.rhos))
        KERNELS[kernel_name("secular", dtype)](
            device_id, threads, (numpy.int32(n), pm, mo, w.counts, w.rhos, w.dl, w.zw, w.org, w.tau),
            block=ROOT_BLOCK)
        KERNELS[kernel_name("loewner", dtype)](
            device_id, threads, (numpy.int32(n), pm, mo, w.counts, w.dl, w.zw, w.org, w.tau, w.zh),
            block=ROOT_BLOCK)
        KERNELS[kernel_name("vectors", dtype)](
            device_id, (n,),
            (numpy.int32(n), pm, mo, mn1, mn2, w.counts, w.dl, w.zh, w.idx, w.org, w.tau, w.rot_ab, w.rot_cs, U,
             numpy.int64(n), D))
    for o, n1, n2, count in gemm_runs(merges):
        N = n1 + n2
        stride = N * (n + 1)
        for r0, k in ((o, n1), (o + n1, n2)):
            rocblas.gemm_strided_batched("N", "N", k, N, k, real(1), Qa[r0 + r0 * n:], n, stride, U[r0 + o * n:], n,
                                         stride, real(0), Qb[r0 + o * n:], n, stride, count)


def tridiagonal_eigen(d, e):
    """Eigenvalues (ascending) and orthonormal eigenvectors of the symmetric tridiagonal matrix
    with diagonal ``d`` (n) and off-diagonal ``e`` (n - 1): ``(w, Q)`` with Q the n x n
    column-major matrix as a flat buffer, device arrays of the inputs' dtype (float32 or
    float64; host inputs are copied over); None for non-finite input. ``d`` and ``e`` are not
    changed."""
    lib = backend.cupy()
    d, e = lib.asarray(d), lib.asarray(e)
    dtype = numpy.dtype(d.dtype)
    n = d.size
    anorm = float(lib.abs(d).max()) if n else 0.0
    if n > 1:
        anorm = max(anorm, float(lib.abs(e[:n - 1]).max()))
    if not numpy.isfinite(anorm):
        return None
    if n == 0 or anorm == 0:
        return lib.array(d, dtype), lib.eye(n, dtype=dtype).ravel(order="F")
    d = d / dtype.type(anorm)
    e = e[:max(n - 1, 0)] / dtype.type(anorm)
    blocks = leaves(n)
    cuts = [o for o, _ in blocks[1:]]
    if cuts:
        c = lib.asarray(numpy.array(cuts))
        torn = lib.abs(e[c - 1])
        d[c - 1] -= torn
        d[c] -= torn
    Q = lib.zeros(n * n, dtype)
    _solve_leaves(lib, d, e, Q, n, blocks)
    tree = levels(blocks)
    if tree:
        Qb, U = lib.empty(n * n, dtype), lib.empty(n * n, dtype)
        work = _Work(lib, n, dtype, len(tree[0]))
        for merges in tree:
            _merge_level(lib, dtype, n, merges, d, e, Q, Qb, U, work)
            Q, Qb = Qb, Q
    return d * dtype.type(anorm), Q


def stedc(evect, n, D, E, C, ldc, info):
    """All eigenvalues and, optionally, eigenvectors of a real symmetric tridiagonal matrix by
    divide and conquer (``rocsolver_?stedc``).

    Parameters
    ----------
    evect : {'N', 'I', 'V'}
        Eigenvalues only; the eigenvectors of the tridiagonal matrix into C; or C times them
        (C holds, on entry, the orthogonal matrix that reduced a matrix to this tridiagonal one).
    n : int
        Order (>= 0).
    D : cupy.ndarray
        The diagonal, n elements of float32 or float64; on exit the eigenvalues, ascending.
    E : cupy.ndarray
        The off-diagonal, n - 1 elements (at least one element) of D's dtype; destroyed.
    C : cupy.ndarray
        Column-major n x n matrix of D's dtype (1-D buffer or 2-D Fortran-ordered array); not
        referenced for ``evect='N'``. On exit (``'I'``, ``'V'``) the orthonormal eigenvectors as
        columns, in the order of D.
    ldc : int
        Leading dimension of C, ``>= max(1, n)``.
    info : cupy.ndarray
        int32 device array of at least one element: 0 on success, 1 for non-finite input (then D
        and, for ``'I'``/``'V'``, C hold NaN).

    Returns
    -------
    None

    Raises
    ------
    TypeError
        Non-CuPy buffers, dtypes other than float32/float64, E or C of another dtype than D.
    ValueError
        Invalid ``evect``, negative ``n``, ``ldc`` too small, buffers too short.

    Notes
    -----
    Cuppen's divide and conquer on the device (leaves by batched Jacobi, every merge of a level
    at once, Gu and Eisenstat's eigenvectors, the vector updates on gemm); one synchronization
    reads the matrix's scale. ``'N'`` computes the vectors too and drops them. See
    :mod:`rocarray.rocsolver._stedc`.
    """
    where = "rocsolver.stedc"
    evect = _ma.option(evect, "evect", where, ("N", "I", "V"))
    n = _ma.size(n, "n", where)
    _ma.matrix_buffer(D, "D", where)
    dtype = _ma.supported_dtype(D.dtype, REAL, where)
    for name, X in (("E", E), ("C", C)):
        _ma.matrix_buffer(X, name, where)
        if X.dtype != dtype:
            raise TypeError(f"{where}: {name} must be {dtype.name}, got {X.dtype.name}")
    ldc = _ma.leading_dimension(ldc, n, "ldc", where)
    if D.size < n:
        raise ValueError(f"{where}: D needs {n} element(s), got {D.size}")
    if E.size < max(n - 1, 1):
        raise ValueError(f"{where}: E needs {max(n - 1, 1)} element(s), got {E.size}")
    _info.info_buffer(info, 1, where)
    vectors = evect != "N"
    if n > 0 and vectors:
        _ma.matrix_bounds(C, n, n, ldc, "C", where)
    info[:1] = 0
    if n == 0:
        return None
    d, e, c = _k.flat(D), _k.flat(E), _k.flat(C)
    result = tridiagonal_eigen(d[:n], e[:max(n - 1, 0)])
    if result is None:
        d[:n] = numpy.nan
        info[:1] = 1
        if vectors:
            _k.view(c, 0, n, n, ldc)[...] = numpy.nan
        return None
    w, Y = result
    d[:n] = w
    if evect == "I":
        _k.view(c, 0, n, n, ldc)[...] = _k.view(Y, 0, n, n, n)
    elif evect == "V":
        product = _k.empty(c, n * n, dtype)
        rocblas.gemm("N", "N", n, n, n, dtype.type(1), c, ldc, Y, n, dtype.type(0), product, n)
        _k.view(c, 0, n, n, ldc)[...] = _k.view(product, 0, n, n, n)
    return None
