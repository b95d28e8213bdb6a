"""The SpMV analysis of a CSR matrix: row-length statistics and the strategy they suggest.

:func:`csrmv_analysis` makes one pass over ``indptr`` on the device (one small kernel: the longest
row, the rows longer than :func:`long_threshold` and their stored elements) and waits for its three
numbers once. :func:`heuristic` turns them into one of the strategies of
:func:`rocarray.rocsparse.csrmv`:

``scalar``
    a row per thread, for very short rows (mean below :data:`SCALAR_MEAN`, none longer than
    :data:`SCALAR_LONGEST`);
``vector<G>``
    G lanes per row (2 .. the warp width), each taking two elements per step (both gathers in
    flight at once), G the largest power of two not above half the mean row length: regular
    matrices (a uniform 16 per row takes ``vector8``, a 5-point stencil ``vector2``);
``split``
    load-balanced: the stored elements in chunks of :data:`CHUNK`, one block per chunk with its
    products and the pointers of the rows starting in it staged in shared memory (every global
    load issued before the first product, the values and indices as streaming loads), rows
    crossing a chunk boundary left as two partial sums per chunk and finished by a second kernel,
    a warp per row summing its partials in a fixed order (CSR-stream's row blocks, Greathouse &
    Daga 2014, on merge-path's even split of the elements, Merrill & Garland 2016). Taken when rows longer than :func:`long_threshold` hold at
    least :data:`SKEWED_SHARE` of the elements or one row is longer than :data:`SPLIT_ROW`
    (power-law rows), on matrices of at least :data:`SPLIT_MIN_NNZ` elements. The chunks' first
    rows (:meth:`CsrmvAnalysis.starts`, one binary search per chunk) are computed by the analysis
    when it picks ``split``, else on the first use.

The analysis records its tuning-DB key (:attr:`CsrmvAnalysis.key`: index type and classes of the
row count, mean and longest row and of the long rows' share); :func:`rocarray.rocsparse.csrmv`
completes it with the dtype and ``trans`` and asks :func:`rocarray._core.tuning.choose`, which
returns the heuristic's strategy unless tuning is asked for or the DB holds a measured one. A
strategy set with :meth:`CsrmvAnalysis.forced` is used as is (tests, benchmarks).
"""

from dataclasses import dataclass, field, replace

import numpy

from rocarray.rocsparse import _args, _spmv_kernels as _k

CHUNK = _k.CHUNK
#: Mean row length below which rows are short enough for a row per thread ...
SCALAR_MEAN = 2.0
#: ... when no row is longer than this.
SCALAR_LONGEST = 16
#: A row is long when it is longer than this many times the mean (plus a warp).
LONG_FACTOR = 8
#: Share of the stored elements in long rows from which the split strategy is taken.
SKEWED_SHARE = 0.1
#: A row longer than this takes the split strategy (one group of lanes would serialize it).
SPLIT_ROW = 4 * CHUNK
#: Elements a lane of the vector kernel takes per step.
ELEMENTS_PER_STEP = 2
#: Fewest stored elements for the split strategy (smaller matrices are one launch of a few blocks).
SPLIT_MIN_NNZ = 8 * CHUNK


def vector_strategy(lanes):
    """The name of the vector strategy with ``lanes`` lanes per row (``'scalar'`` for 1)."""
    return "scalar" if lanes == 1 else f"vector{int(lanes)}"


def strategy_lanes(strategy):
    """Lanes per row of a vector strategy name (1 for ``'scalar'``); ``None`` for ``'split'``."""
    if strategy == "scalar":
        return 1
    if strategy.startswith("vector"):
        return int(strategy[len("vector"):])
    return None


def strategies(warp_size):
    """Every strategy name on a device of ``warp_size`` lanes (the tuning candidates)."""
    lanes = [g for g in _k.VECTOR_LANES if g <= warp_size]
    return tuple(vector_strategy(g) for g in lanes) + ("split",)


def long_threshold(m, nnz, warp_size):
    """Rows longer than this count as long: :data:`LONG_FACTOR` times the mean, plus a warp."""
    mean = nnz / m if m else 0.0
    return int(LONG_FACTOR * mean) + int(warp_size)


def mean_lanes(mean, warp_size):
    """The largest power of two not above ``mean``, within 2 .. ``warp_size``."""
    g = 2
    while g < warp_size and 2 * g <= mean:
        g *= 2
    return g


def heuristic(m, nnz, longest, long_rows, long_nnz, warp_size):
    """The strategy for a matrix with these statistics (host numbers; see the module docstring).

    Parameters
    ----------
    m, nnz : int
        Rows and stored elements.
    longest : int
        Length of the longest row.
    long_rows, long_nnz : int
        Rows longer than :func:`long_threshold` and the elements they hold.
    warp_size : int
        The device's warp width.

    Returns
    -------
    str
        ``'scalar'``, ``'vector<G>'`` or ``'split'``.
    """
    if m == 0 or nnz == 0:
        return "scalar"
    mean = nnz / m
    if nnz >= SPLIT_MIN_NNZ and (long_nnz >= SKEWED_SHARE * nnz or longest > SPLIT_ROW):
        return "split"
    if mean < SCALAR_MEAN and longest <= SCALAR_LONGEST:
        return "scalar"
    return vector_strategy(mean_lanes(mean / ELEMENTS_PER_STEP, warp_size))


def _size_class(v):
    """The octave of a count (``0`` for 0 and 1)."""
    return max(0, int(v) - 1).bit_length()


def tuning_key(m, nnz, index_dtype, longest, long_nnz):
    """The structural part of the tuning-DB key: index type, octaves of the row count, the mean row
    length and the longest row, and the long rows' share in tenths."""
    mean = nnz // m if m else 0
    share = (10 * long_nnz) // nnz if nnz else 0
    return (numpy.dtype(index_dtype).name, _size_class(m), _size_class(mean), _size_class(longest), share)


@dataclass
class CsrmvAnalysis:
    """What :func:`csrmv_analysis` learned about a CSR matrix; the caller keeps it with the matrix.

    Attributes
    ----------
    m, n, nnz : int
        Shape and stored elements of the matrix analysed.
    index_dtype : numpy.dtype
        Its index type.
    longest, long_rows, long_nnz : int
        The longest row; rows longer than :func:`long_threshold` and their elements.
    strategy : str
        The heuristic's strategy (``'scalar'``, ``'vector<G>'``, ``'split'``), or a forced one.
    key : tuple
        The structural tuning-DB key (:func:`tuning_key`).
    forced : bool
        Whether :attr:`strategy` is used as is (no tuning DB lookup).
    """

    m: int
    n: int
    nnz: int
    index_dtype: numpy.dtype
    longest: int
    long_rows: int
    long_nnz: int
    strategy: str
    key: tuple
    forced: bool = False
    _indptr: object = field(default=None, repr=False, compare=False)
    _starts: object = field(default=None, repr=False, compare=False)
    _transpose: object = field(default=None, repr=False, compare=False)

    def starts(self):
        """The split strategy's row blocks: device int64, the first row starting at or past each
        chunk of :data:`CHUNK` elements, then ``m`` (computed once, without waiting)."""
        if self._starts is None:
            self._starts = _k.block_starts(self.m, self._indptr, self.nnz)
        return self._starts

    def transpose(self, indices):
        """The transposed products' plan, made once: ``(indptr_t, indices_t, positions,
        analysis_t)``, the CSR structure of the transpose (:func:`rocarray.rocsparse.csr2csc` of
        the element positions), where each of its elements sits in A's ``data``, and its own
        :class:`CsrmvAnalysis`. ``indices`` are A's (the structure this analysis belongs to).
        Holds about twice A's index arrays of device memory."""
        if self._transpose is None:
            positions = _k.positions(self.nnz, indices)
            indptr_t, indices_t, perm = _k.csr2csc(self.m, self.n, self._indptr, indices, positions)
            analysis_t = csrmv_analysis(self.n, self.m, indptr_t, self.nnz)
            if self.forced:
                analysis_t = analysis_t.forced_to(self.strategy)
            self._transpose = (indptr_t, indices_t, perm, analysis_t)
        return self._transpose

    def forced_to(self, strategy):
        """A copy that always runs ``strategy`` (one of :func:`strategies`; ``'split'`` needs
        ``nnz > 0``), for the transposed products too, sharing the computed row blocks."""
        if strategy == "split" and self.nnz == 0:
            raise ValueError("the split strategy needs stored elements")
        if strategy != "split" and strategy_lanes(strategy) not in _k.VECTOR_LANES:
            raise ValueError(f"unknown csrmv strategy {strategy!r}")
        return replace(self, strategy=strategy, forced=True, _transpose=None)


def csrmv_analysis(m, n, indptr, nnz):
    """Analyse the rows of an ``m x n`` CSR matrix for :func:`rocarray.rocsparse.csrmv` and
    :func:`rocarray.rocsparse.csrmm`.

    Parameters
    ----------
    m, n : int
        Shape.
    indptr : cupy.ndarray
        Row pointers (contiguous 1-D, ``m + 1`` entries, int32 or int64).
    nnz : int
        Stored elements (``indptr[m]``, which is not read to check it).

    Returns
    -------
    CsrmvAnalysis
        Keep it with the matrix while its structure (``indptr``) is unchanged; it holds a
        reference to ``indptr``.

    Raises
    ------
    TypeError
        ``indptr`` not a device array of int32 or int64, a non-integer size.
    ValueError
        A negative size, ``indptr`` not contiguous 1-D of ``m + 1`` elements.

    Notes
    -----
    One kernel over ``indptr`` and one wait for its three numbers; for the ``split`` strategy one
    more launch (a binary search per chunk) that is not waited for. Nothing is launched when ``m``
    or ``nnz`` is 0.
    """
    fn = "csrmv_analysis"
    m, n, nnz = _args.size(m, "m", fn), _args.size(n, "n", fn), _args.size(nnz, "nnz", fn)
    index_dtype = _args.pointers(fn, m, indptr)
    if m == 0 or nnz == 0:
        longest = long_rows = long_nnz = 0
        warp = 32
    else:
        warp = _k.warp_size(indptr.data.device_id)
        longest, long_rows, long_nnz = _k.row_stats(m, indptr, long_threshold(m, nnz, warp))
    strategy = heuristic(m, nnz, longest, long_rows, long_nnz, warp)
    analysis = CsrmvAnalysis(m, n, nnz, index_dtype, longest, long_rows, long_nnz, strategy,
                             tuning_key(m, nnz, index_dtype, longest, long_nnz), _indptr=indptr)
    if strategy == "split":
        analysis.starts()
    return analysis
