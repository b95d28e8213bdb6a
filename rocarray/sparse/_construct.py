"""Building sparse arrays: identities, diagonals, random arrays, Kronecker products, blocks,
triangles, ``find`` (``scipy.sparse``'s construction functions).

Every function assembles COO parts ``(row, col, data)`` on the device and converts once to the
requested format. Differences from SciPy, which has formats these classes do not:

* ``format=None`` gives CSR where SciPy gives DIA (``eye*``, ``identity``, ``diags*``,
  ``spdiags``) or BSR (``kron``); ``'dia'``, ``'bsr'``, ``'lil'`` and ``'dok'`` raise ``ValueError``.
* ``random_array``/``random``/``rand`` draw positions on the device (uniform without replacement,
  exactly ``round(density * m * n)`` of them, returned in canonical order) from a generator seeded
  by ``rng``; the same ``rng`` gives the same array, but not SciPy's.

Host inputs (NumPy arrays, lists, SciPy sparse objects) are accepted and moved to the device, as
the constructors do. Results are ``*_array`` when any sparse input is one (always for the
``*_array`` functions), else ``*_matrix``, as SciPy.
"""

import numbers
import operator

import numpy

from rocarray.sparse import _arith, _opsdev
from rocarray.sparse._opsutil import issparse

_FORMATS = ("csr", "csc", "coo")
_I64 = numpy.dtype(numpy.int64)


def _coo_class(array):
    """``coo_array`` or ``coo_matrix`` (from the format modules, imported at call time because
    they import the operations that import this module's siblings)."""
    from rocarray.sparse import _coo

    if array:
        return _coo.coo_array
    if hasattr(_coo, "coo_matrix"):
        return _coo.coo_matrix
    from rocarray.sparse import _matrix

    return _matrix.coo_matrix


def _check_format(format, name="format"):
    if format is not None and format not in _FORMATS:
        raise ValueError(f"{name} {format!r} is not supported: choose one of 'csr', 'csc', 'coo' or None")


def _as_format(x, format, default="csr"):
    fmt = default if format is None else format
    if x.format == fmt:
        return x
    if fmt == "coo":
        return x.tocoo()
    out = x.tocsr() if fmt == "csr" else x.tocsc()
    if not out.has_canonical_format:
        out.sum_duplicates()
    return out


def _build(array, row, col, data, shape, format, default="csr", canonical=False):
    """A sparse array or matrix of ``shape`` from device COO parts, in ``format``."""
    idx = _opsdev.index_dtype(shape[0], shape[1], data.size)
    x = _coo_class(array)._from_parts(data, row.astype(idx, copy=False), col.astype(idx, copy=False),
                                      tuple(shape), canonical=canonical)
    return _as_format(x, format, default)


def _as_sparse(x, array_default):
    """A sparse argument as is; a dense (device or host) one as COO (matrix unless ``array_default``)."""
    if issparse(x):
        return x
    return _coo_class(array_default)(x)


def _is_array(*xs):
    return any(issparse(x) and not _opsdev.is_matrix(x) for x in xs)


def _shape2(m, n):
    m = operator.index(m)
    n = m if n is None else operator.index(n)
    if m < 0 or n < 0:
        raise ValueError("negative dimensions are not allowed")
    return m, n


# ------------------------------------------------------------------------------------------
# identities and diagonals
# ------------------------------------------------------------------------------------------

def _eye(array, m, n, k, dtype, format):
    _check_format(format)
    m, n = _shape2(m, n)
    k = operator.index(k)
    if min(m + k, n - k, min(m, n)) < 0:
        raise ValueError(f"Offset {k} (index 0) out of bounds")
    _opsdev.require_device()
    xp = _opsdev.xp()
    r0 = max(0, -k)
    length = max(0, min(m, n - k) - r0)
    row = xp.arange(r0, r0 + length, dtype=_I64)
    return _build(array, row, row + k, xp.ones(length, dtype=dtype), (m, n), format, canonical=True)


def eye_array(m, n=None, *, k=0, dtype=float, format=None):
    """Sparse array with ones on the ``k``-th diagonal.

    Parameters
    ----------
    m : int
        Rows.
    n : int, optional
        Columns (default ``m``).
    k : int
        Diagonal: 0 the main one, positive above, negative below.
    dtype : dtype
    format : {'csr', 'csc', 'coo', None}
        None gives CSR.

    Returns
    -------
    csr_array, csc_array or coo_array
    """
    return _eye(True, m, n, k, dtype, format)


def eye(m, n=None, k=0, dtype=float, format=None):
    """Sparse matrix with ones on the ``k``-th diagonal (:func:`eye_array` as a ``*_matrix``).

    Parameters
    ----------
    m : int
        Rows.
    n : int, optional
        Columns (default ``m``).
    k : int
        Diagonal.
    dtype : dtype
    format : {'csr', 'csc', 'coo', None}
        None gives CSR.

    Returns
    -------
    csr_matrix, csc_matrix or coo_matrix
    """
    return _eye(False, m, n, k, dtype, format)


def identity(n, dtype="d", format=None):
    """Identity sparse matrix of size ``n`` (a ``*_matrix``).

    Parameters
    ----------
    n : int
    dtype : dtype
    format : {'csr', 'csc', 'coo', None}
        None gives CSR.

    Returns
    -------
    csr_matrix, csc_matrix or coo_matrix
    """
    return _eye(False, n, n, 0, dtype, format)


def _diag_inputs(diagonals, offsets):
    """SciPy's normalization of ``diagonals``/``offsets``: the diagonals as given (a list), their
    lengths and dtypes (read on the host), and the offsets as ints."""
    if isinstance(offsets, (numbers.Integral, numpy.integer)) or numpy.ndim(offsets) == 0:
        if len(diagonals) == 0 or numpy.ndim(diagonals[0]) == 0:
            diagonals = [diagonals]
        else:
            raise ValueError("Different number of diagonals and offsets.")
        offsets = [offsets]
    diagonals = list(diagonals)
    offsets = [int(o) for o in numpy.atleast_1d(numpy.asarray(offsets))]
    if len(diagonals) != len(offsets):
        raise ValueError("Different number of diagonals and offsets.")
    metas = [(d.shape, d.dtype) if hasattr(d, "dtype") and hasattr(d, "shape") else
             (numpy.shape(d), numpy.asarray(d).dtype) for d in diagonals]
    lengths = [int(numpy.prod(shape[:1] or (1,))) for shape, _ in metas]
    return diagonals, lengths, [numpy.dtype(dt) for _, dt in metas], offsets


_NO_VALUE = object()


def common_type(dtypes):
    """``numpy.common_type`` of arrays of ``dtypes`` (integers and bool give float64): SciPy's
    default dtype of ``diags``/``diags_array``."""
    return numpy.dtype(numpy.common_type(*[numpy.zeros(0, numpy.int64 if d.kind == "b" else d)
                                           for d in dtypes]))


def _diags(array, diagonals, offsets, shape, format, dtype):
    _check_format(format)
    diagonals, lengths, dtypes, offsets = _diag_inputs(diagonals, offsets)
    if shape is None:
        m = lengths[0] + abs(offsets[0])
        shape = (m, m)
    m, n = _shape2(*shape)
    if dtype is None:
        dtype = numpy.result_type(*dtypes)
    elif dtype is _NO_VALUE:
        dtype = common_type(dtypes)
    dtype = numpy.dtype(dtype)
    K = min(m, n)
    places = []
    for j, (d, offset) in enumerate(zip(lengths, offsets)):
        length = min(m + offset, n - offset, K)
        if length < 0:
            raise ValueError(f"Offset {offset} (index {j}) out of bounds")
        if d != length and d != 1 and d < length:
            raise ValueError(f"Diagonal length (index {j}: {d} at offset {offset}) does not agree "
                             f"with array size ({m}, {n}).")
        places.append(length)
    _opsdev.require_device()
    xp = _opsdev.xp()
    rows, cols, vals = [xp.zeros(0, dtype=_I64)], [xp.zeros(0, dtype=_I64)], [xp.zeros(0, dtype=dtype)]
    for diagonal, offset, length in zip(diagonals, offsets, places):
        diagonal = xp.atleast_1d(xp.asarray(diagonal))
        if diagonal.shape[0] > length:
            diagonal = diagonal[:length]
        t = xp.arange(length, dtype=_I64)
        rows.append(t + max(0, -offset))
        cols.append(t + max(0, offset))
        vals.append(xp.broadcast_to(diagonal, (length,)).astype(dtype))
    row, col, data = xp.concatenate(rows), xp.concatenate(cols), xp.concatenate(vals)
    keep = data != 0
    return _build(array, row[keep], col[keep], data[keep], (m, n), format)


def diags_array(diagonals, /, *, offsets=0, shape=None, format=None, dtype=_NO_VALUE):
    """Sparse array from diagonals.

    Parameters
    ----------
    diagonals : sequence of array_like
        The diagonals (host or device); a scalar-valued one of length 1 broadcasts.
    offsets : int or sequence of int
        Their positions: 0 the main diagonal, ``k > 0`` above, ``k < 0`` below.
    shape : tuple of int, optional
        Default: square, ``len(diagonals[0]) + abs(offsets[0])``.
    format : {'csr', 'csc', 'coo', None}
    dtype : dtype or None, optional
        None: NumPy's result type of the diagonals; not given: SciPy's current default,
        ``numpy.common_type`` of the diagonals (float64 for integers).

    Returns
    -------
    csr_array, csc_array or coo_array
        Zeros of the diagonals are not stored.

    Raises
    ------
    ValueError
        As SciPy: different numbers of diagonals and offsets, an offset out of bounds, a diagonal
        shorter than its place.
    """
    return _diags(True, diagonals, offsets, shape, format, dtype)


def diags(diagonals, offsets=0, shape=None, format=None, dtype=_NO_VALUE):
    """Sparse matrix from diagonals (:func:`diags_array` as a ``*_matrix``).

    Parameters
    ----------
    diagonals : sequence of array_like
    offsets : int or sequence of int
    shape : tuple of int, optional
    format : {'csr', 'csc', 'coo', None}
        None gives CSR.
    dtype : dtype or None, optional

    Returns
    -------
    csr_matrix, csc_matrix or coo_matrix
    """
    return _diags(False, diagonals, offsets, shape, format, dtype)


def spdiags(data, diags, m=None, n=None, format=None):
    """Sparse matrix from the rows of ``data`` placed on diagonals.

    DIA layout: ``data[j, c]`` goes to row ``c - diags[j]``, column ``c``; zeros are not stored.

    Parameters
    ----------
    data : array_like
        2-D, one row per diagonal.
    diags : int or sequence of int
        Offsets of the diagonals.
    m : int or tuple of int, optional
        Rows, or the shape when ``n`` is None (default: square of ``data.shape[1]``).
    n : int, optional
        Columns.
    format : {'csr', 'csc', 'coo', None}
        None gives CSR.

    Returns
    -------
    csr_matrix, csc_matrix or coo_matrix
    """
    _check_format(format)
    _opsdev.require_device()
    xp = _opsdev.xp()
    data = xp.atleast_2d(xp.asarray(data))
    if m is None and n is None:
        m = n = data.shape[1]
    elif n is None:
        m, n = m
    m, n = _shape2(m, n)
    offsets = [int(o) for o in numpy.atleast_1d(numpy.asarray(diags))]
    if len(offsets) != data.shape[0]:
        raise ValueError(f"number of diagonals ({data.shape[0]}) does not match the number of offsets "
                         f"({len(offsets)})")
    rows, cols, vals = [], [], []
    for j, offset in enumerate(offsets):
        c = xp.arange(min(n, data.shape[1]), dtype=_I64)
        r = c - offset
        ok = (r >= 0) & (r < m)
        rows.append(r[ok])
        cols.append(c[ok])
        vals.append(data[j, : c.size][ok])
    row, col, vals = xp.concatenate(rows), xp.concatenate(cols), xp.concatenate(vals)
    keep = vals != 0
    return _build(False, row[keep], col[keep], vals[keep], (m, n), format)


# ------------------------------------------------------------------------------------------
# random arrays
# ------------------------------------------------------------------------------------------

def _seed(rng):
    if rng is None or isinstance(rng, (numbers.Integral, numpy.integer)):
        rng = numpy.random.default_rng(rng)
    if isinstance(rng, numpy.random.RandomState):
        return int(rng.randint(0, 2**31 - 1))
    if not isinstance(rng, numpy.random.Generator):
        rng = numpy.random.default_rng(rng)
    return int(rng.integers(0, 2**32))


def random_positions(total, size, gen):
    """``size`` distinct flat positions in ``[0, total)``, uniform without replacement, ascending.

    Dense requests shuffle every position; sparse ones draw with replacement until enough distinct
    values exist (conditioned on their number, the distinct values of i.i.d. draws are a uniform
    subset) and keep a uniform subset of them.
    """
    xp = _opsdev.xp()
    if size == 0:
        return xp.zeros(0, dtype=_I64)
    if 3 * size >= total:
        order = xp.argsort(gen.random_sample(total))[:size]
        return xp.sort(order.astype(_I64))
    seen = xp.zeros(0, dtype=_I64)
    while seen.size < size:
        draw = gen.randint(0, total, size=size + size // 8 + 64, dtype=_I64)
        seen = xp.unique(xp.concatenate([seen, draw.astype(_I64)]))
    if seen.size > size:
        keep = xp.argsort(gen.random_sample(seen.size))[:size]
        seen = xp.sort(seen[keep])
    return seen


def _random_values(size, dtype, gen, data_sampler):
    xp = _opsdev.xp()
    if data_sampler is not None:
        return xp.asarray(data_sampler(size=size)).astype(dtype, copy=False)
    if dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        lo, hi = max(int(info.min), -2**31), min(int(info.max), 2**31 - 1)
        return gen.randint(lo, hi, size=size, dtype=_I64).astype(dtype)
    if dtype.kind == "c":
        return (gen.random_sample(size) + 1j * gen.random_sample(size)).astype(dtype)
    return gen.random_sample(size).astype(dtype)


def _random(array, shape, density, format, dtype, rng, data_sampler):
    _check_format(format)
    if len(shape) != 2:
        raise ValueError(f"only 2-D shapes are supported, got {shape}")
    m, n = _shape2(*shape)
    if density < 0 or density > 1:
        raise ValueError("density expected to be 0 <= density <= 1")
    dtype = numpy.dtype(numpy.float64 if dtype is None else dtype)
    total = m * n
    size = int(round(density * total))
    _opsdev.require_device()
    gen = _opsdev.xp().random.RandomState(_seed(rng))
    pos = random_positions(total, size, gen)
    data = _random_values(size, dtype, gen, data_sampler)
    return _build(array, pos // max(n, 1), pos % max(n, 1), data, (m, n), format, default="coo",
                  canonical=True)


def random_array(shape, *, density=0.01, format="coo", dtype=None, rng=None, data_sampler=None,
                 random_state=None):
    """Sparse array with random positions and values.

    Parameters
    ----------
    shape : tuple of int
        2-D.
    density : float
        In ``[0, 1]``: ``round(density * m * n)`` entries are stored.
    format : {'coo', 'csr', 'csc'}
    dtype : dtype, optional
        Default float64. Values are uniform in ``[0, 1)`` (real and imaginary parts for complex);
        integers are uniform over the dtype's range clipped to 32-bit values.
    rng : numpy.random.Generator, int or None
        Seeds the device generator.
    data_sampler : callable, optional
        ``data_sampler(size=k)`` returns the ``k`` values (host or device).
    random_state : optional
        SciPy's older name of ``rng``.

    Returns
    -------
    coo_array, csr_array or csc_array
        Canonical (positions ascending).

    Raises
    ------
    ValueError
        For a density outside ``[0, 1]``.
    """
    return _random(True, shape, density, format, dtype, rng if rng is not None else random_state,
                   data_sampler)


def random(m, n, density=0.01, format="coo", dtype=None, rng=None, data_rvs=None, *, random_state=None):
    """Sparse matrix with random positions and values (:func:`random_array` as a ``*_matrix``).

    Parameters
    ----------
    m, n : int
        Shape.
    density : float
    format : {'coo', 'csr', 'csc'}
    dtype : dtype, optional
    rng : numpy.random.Generator, int or None
    data_rvs : callable, optional
        ``data_rvs(size=k)`` returns the values.
    random_state : optional
        SciPy's older name of ``rng``.

    Returns
    -------
    coo_matrix, csr_matrix or csc_matrix
    """
    return _random(False, (m, n), density, format, dtype, rng if rng is not None else random_state,
                   data_rvs)


def rand(m, n, density=0.01, format="coo", dtype=None, rng=None, *, random_state=None):
    """Sparse matrix with uniform ``[0, 1)`` values at random positions (a ``*_matrix``).

    Parameters
    ----------
    m, n : int
        Shape.
    density : float
    format : {'coo', 'csr', 'csc'}
    dtype : dtype, optional
    rng : numpy.random.Generator, int or None
    random_state : optional
        SciPy's older name of ``rng``.

    Returns
    -------
    coo_matrix, csr_matrix or csc_matrix
    """
    return _random(False, (m, n), density, format, dtype, rng if rng is not None else random_state, None)


# ------------------------------------------------------------------------------------------
# Kronecker products
# ------------------------------------------------------------------------------------------

def kron(A, B, format=None):
    """Kronecker product of sparse (or dense) ``A`` and ``B``.

    Parameters
    ----------
    A, B : sparse array or matrix, or array_like
    format : {'csr', 'csc', 'coo', None}
        None gives CSR.

    Returns
    -------
    sparse array or matrix
        ``*_array`` when either input is one. Shape ``(mA mB, nA nB)``.
    """
    _check_format(format)
    array = _is_array(A, B)
    a, b = _as_sparse(A, array).tocoo(), _as_sparse(B, array).tocoo()
    (ma, na), (mb, nb) = a.shape, b.shape
    row = (a.row.astype(_I64)[:, None] * mb + b.row.astype(_I64)[None, :]).ravel()
    col = (a.col.astype(_I64)[:, None] * nb + b.col.astype(_I64)[None, :]).ravel()
    data = (a.data[:, None] * b.data[None, :]).ravel()
    return _build(array, row, col, data, (ma * mb, na * nb), format)


def kronsum(A, B, format=None):
    """Kronecker sum ``kron(I_n, A) + kron(B, I_m)`` of square ``A`` (m × m) and ``B`` (n × n).

    Parameters
    ----------
    A, B : sparse array or matrix, or array_like
    format : {'csr', 'csc', 'coo', None}
        None gives CSR.

    Returns
    -------
    sparse array or matrix

    Raises
    ------
    ValueError
        For a non-square input.
    """
    _check_format(format)
    array = _is_array(A, B)
    a, b = _as_sparse(A, array), _as_sparse(B, array)
    if a.shape[0] != a.shape[1]:
        raise ValueError("A is not square")
    if b.shape[0] != b.shape[1]:
        raise ValueError("B is not square")
    dtype = numpy.result_type(a.dtype, b.dtype)
    left = kron(_eye(array, b.shape[0], None, 0, dtype, "coo"), a, format="csr")
    right = kron(b, _eye(array, a.shape[0], None, 0, dtype, "coo"), format="csr")
    return _as_format(_arith.add(left, right), format)


# ------------------------------------------------------------------------------------------
# blocks
# ------------------------------------------------------------------------------------------

def _block(blocks, format, dtype, array):
    """Assemble a 2-D grid of sparse blocks (``None`` for zero blocks)."""
    _check_format(format)
    grid = numpy.empty((len(blocks), len(blocks[0]) if len(blocks) else 0), dtype=object)
    for i, brow in enumerate(blocks):
        if not isinstance(brow, (list, tuple)) or len(brow) != grid.shape[1]:
            raise ValueError("blocks must be 2-D")
        for j, blk in enumerate(brow):
            grid[i, j] = None if blk is None else _as_sparse(blk, True)
    M, N = grid.shape
    heights, widths = [0] * M, [0] * N
    given = [[False] * M, [False] * N]
    for i in range(M):
        for j in range(N):
            blk = grid[i, j]
            if blk is None:
                continue
            h, w = blk.shape
            if not given[0][i]:
                heights[i], given[0][i] = h, True
            elif heights[i] != h:
                raise ValueError(f"blocks[{i},:] has incompatible row dimensions. Got blocks[{i},{j}]"
                                 f".shape[0] == {h}, expected {heights[i]}.")
            if not given[1][j]:
                widths[j], given[1][j] = w, True
            elif widths[j] != w:
                raise ValueError(f"blocks[:,{j}] has incompatible column dimensions. Got blocks[{i},{j}]"
                                 f".shape[1] == {w}, expected {widths[j]}.")
    _opsdev.require_device()
    xp = _opsdev.xp()
    present = [b for b in grid.ravel() if b is not None]
    if dtype is None:
        dtype = numpy.result_type(*[b.dtype for b in present]) if present else numpy.dtype(numpy.float64)
    dtype = numpy.dtype(dtype)
    row_off = numpy.concatenate([[0], numpy.cumsum(heights)])
    col_off = numpy.concatenate([[0], numpy.cumsum(widths)])
    rows, cols, vals = [xp.zeros(0, dtype=_I64)], [xp.zeros(0, dtype=_I64)], [xp.zeros(0, dtype=dtype)]
    for i in range(M):
        for j in range(N):
            if grid[i, j] is None:
                continue
            c = grid[i, j].tocoo()
            rows.append(c.row.astype(_I64) + int(row_off[i]))
            cols.append(c.col.astype(_I64) + int(col_off[j]))
            vals.append(c.data.astype(dtype, copy=False))
    formats = {b.format for b in present}
    default = "coo"
    if len(present) == grid.size and len(formats) == 1 and (M == 1 or N == 1) and formats <= {"csr", "csc"}:
        default = formats.pop()
    shape = (int(row_off[-1]), int(col_off[-1]))
    return _build(array, xp.concatenate(rows), xp.concatenate(cols), xp.concatenate(vals), shape, format,
                  default=default)


def block_array(blocks, *, format=None, dtype=None):
    """Sparse array from a 2-D grid of sparse blocks (``None`` for zero blocks).

    Parameters
    ----------
    blocks : sequence of sequences
        Blocks of one block row share their row count, blocks of one block column their column
        count.
    format : {'csr', 'csc', 'coo', None}
        None gives COO, or the blocks' own format for one row or column of CSR (CSC) blocks.
    dtype : dtype, optional
        Default: NumPy's result type of the blocks.

    Returns
    -------
    sparse array

    Raises
    ------
    ValueError
        For incompatible block shapes (SciPy's messages) or a grid that is not 2-D.
    """
    return _block(blocks, format, dtype, True)


def bmat(blocks, format=None, dtype=None):
    """:func:`block_array` returning a ``*_matrix`` unless a block is a ``*_array``.

    Parameters
    ----------
    blocks : sequence of sequences
    format : {'csr', 'csc', 'coo', None}
    dtype : dtype, optional

    Returns
    -------
    sparse array or matrix
    """
    return _block(blocks, format, dtype, _is_array(*[b for row in blocks for b in row]))


def vstack(blocks, format=None, dtype=None):
    """Stack sparse arrays vertically (same column counts).

    Parameters
    ----------
    blocks : sequence of sparse arrays
    format : {'csr', 'csc', 'coo', None}
        None: the blocks' format when all are CSR (or all CSC), else COO.
    dtype : dtype, optional

    Returns
    -------
    sparse array or matrix
    """
    return _block([[b] for b in blocks], format, dtype, _is_array(*blocks))


def hstack(blocks, format=None, dtype=None):
    """Stack sparse arrays horizontally (same row counts).

    Parameters
    ----------
    blocks : sequence of sparse arrays
    format : {'csr', 'csc', 'coo', None}
        None: the blocks' format when all are CSR (or all CSC), else COO.
    dtype : dtype, optional

    Returns
    -------
    sparse array or matrix
    """
    return _block([list(blocks)], format, dtype, _is_array(*blocks))


def block_diag(mats, format=None, dtype=None):
    """Block-diagonal sparse array or matrix of ``mats`` (sparse or dense).

    Parameters
    ----------
    mats : sequence of sparse arrays or array_like
    format : {'csr', 'csc', 'coo', None}
        None gives COO.
    dtype : dtype, optional

    Returns
    -------
    sparse array or matrix
    """
    mats = list(mats)
    array = _is_array(*mats)
    _opsdev.require_device()
    grid = [[None] * len(mats) for _ in mats]
    for i, a in enumerate(mats):
        a = _as_sparse(a if issparse(a) else _opsdev.xp().atleast_2d(_opsdev.xp().asarray(a)), array)
        grid[i][i] = a
    if not mats:
        return _build(array, *(_opsdev.xp().zeros(0, dtype=t) for t in (_I64, _I64, numpy.float64)),
                      (0, 0), format, default="coo")
    return _block(grid, format, dtype, array)


# ------------------------------------------------------------------------------------------
# triangles and find
# ------------------------------------------------------------------------------------------

def _triangle(A, k, format, lower):
    _check_format(format)
    array = _is_array(A)
    a = _as_sparse(A, array).tocoo()
    k = operator.index(k)
    diff = a.col.astype(_I64) - a.row.astype(_I64)
    keep = diff <= k if lower else diff >= k
    return _build(array, a.row[keep], a.col[keep], a.data[keep], a.shape, format, default="coo")


def tril(A, k=0, format=None):
    """Lower triangle of ``A``: entries with ``col - row <= k`` (duplicates and zeros kept).

    Parameters
    ----------
    A : sparse array or matrix, or array_like
    k : int
    format : {'csr', 'csc', 'coo', None}
        None gives COO.

    Returns
    -------
    sparse array or matrix
    """
    return _triangle(A, k, format, True)


def triu(A, k=0, format=None):
    """Upper triangle of ``A``: entries with ``col - row >= k`` (see :func:`tril`).

    Parameters
    ----------
    A : sparse array or matrix, or array_like
    k : int
    format : {'csr', 'csc', 'coo', None}
        None gives COO.

    Returns
    -------
    sparse array or matrix
    """
    return _triangle(A, k, format, False)


def find(A):
    """Rows, columns and values of the nonzero entries of ``A`` (duplicates summed, row-major order).

    Parameters
    ----------
    A : sparse array or matrix, or array_like

    Returns
    -------
    (cupy.ndarray, cupy.ndarray, cupy.ndarray)
    """
    a = _as_sparse(A, True).tocoo().copy()
    a.sum_duplicates()
    nz = a.data != 0
    return a.row[nz], a.col[nz], a.data[nz]


__all__ = ["eye_array", "eye", "identity", "diags_array", "diags", "spdiags", "random_array", "random",
           "rand", "kron", "kronsum", "vstack", "hstack", "block_array", "bmat", "block_diag", "tril",
           "triu", "find"]
