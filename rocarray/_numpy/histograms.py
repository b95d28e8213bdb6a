"""NumPy-named histogram façade: ``bincount`` and ``histogram`` on :mod:`rocarray.prim` kernels.

Data (``x``, ``a``, ``weights``) must be device arrays (``cupy.ndarray``); a NumPy array raises
``TypeError`` (the project's host-data rule, :func:`rocarray._core.args.as_device_array`).
``bins`` and ``range`` are *parameters*, not data: like NumPy, they may be host numbers,
lists, tuples or NumPy arrays (``bins`` may also be a device array; it is copied to the host to be
checked for monotonicity, which is a small synchronizing copy).

Results equal NumPy's: counts bit for bit (uniform bins use NumPy's own index computation and
edge fix-ups, in NumPy's dtypes), weighted sums to rounding (accumulated in float64,
deterministically, then cast to the weights' dtype).
"""

import math
import operator
import warnings

import numpy

from rocarray._core import backend
from rocarray._core.args import as_device_array
from rocarray.prim import _histogram as _prim

__all__ = ["bincount", "histogram"]


def _cast_error(src, dst):
    return TypeError(
        f"Cannot cast array data from dtype('{numpy.dtype(src).name}') to dtype('{numpy.dtype(dst).name}') "
        "according to the rule 'safe'"
    )


def _check_bincount_input(x):
    """NumPy's checks of ``bincount``'s list argument (shape and dtype), before any launch."""
    if x.ndim == 0:
        raise ValueError("object of too small depth for desired array")
    if x.ndim > 1:
        raise ValueError("object too deep for desired array")
    if x.dtype.kind not in "biu":
        raise _cast_error(x.dtype, numpy.intp)


def _check_weights_for_bincount(weights, n):
    if weights.ndim != 1 or weights.shape[0] != n:
        raise ValueError("The weights and list don't have the same length.")
    if weights.dtype.kind not in "biuf":
        raise _cast_error(weights.dtype, numpy.float64)


def bincount(x, weights=None, minlength=0):
    """Count occurrences of each value in an array of non-negative ints (``numpy.bincount``).

    Parameters
    ----------
    x : cupy.ndarray
        1-D device array of non-negative integers (any integer dtype, or bool).
    weights : cupy.ndarray, optional
        1-D device array of x's length; cast to float64 (complex weights raise TypeError).
    minlength : int, optional
        Minimum number of bins.

    Returns
    -------
    cupy.ndarray
        ``max(max(x) + 1, minlength)`` bins: int64 counts, or float64 sums of ``weights``
        (deterministic: bitwise equal from run to run on one device). Empty ``x`` gives int64
        zeros of length ``minlength`` even with weights, as in NumPy.

    Raises
    ------
    TypeError
        Host (NumPy) arrays; a non-integer ``x``; complex ``weights``; non-integer ``minlength``.
    ValueError
        ``x`` not 1-D, negative values in ``x``, negative ``minlength``, ``weights`` of another length.

    Notes
    -----
    Sizing the output needs ``max(x)`` on the host (one device-to-host sync, as in CuPy). Without
    weights, one pass counts into ``max(minlength, 1024)`` bins while finding ``max(x)``; only data
    with a larger maximum is read a second time. With weights, a max/negative pass comes first.

    Examples
    --------
    >>> import rocarray as ra
    >>> ra.bincount(ra.asarray([0, 1, 1, 3]))   # doctest: +SKIP
    array([1, 2, 0, 1])
    """
    x = as_device_array(x, "x")
    _check_bincount_input(x)
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    cupy = backend.cupy()
    if weights is not None:
        weights = as_device_array(weights, "weights")
        _check_weights_for_bincount(weights, x.shape[0])
        if weights.dtype != numpy.float64:
            weights = weights.astype(numpy.float64)
    if x.size == 0:  # NumPy returns int64 zeros for empty input, even with weights
        return cupy.zeros(minlength, dtype=numpy.intp)
    if weights is None:
        # One fused pass counts into a guessed size and finds max(x); a second pass only when
        # max(x) does not fit the guess.
        guess = max(minlength, _prim.GUESS_BINS)
        counts, largest, negative = _prim.bincount_counts(x, guess)
        if negative:
            raise ValueError("'list' argument must have no negative elements")
        nbins = max(largest + 1, minlength)
        return counts[:nbins] if nbins <= guess else _prim.bincount(x, nbins)
    largest, negative = _prim.bincount_bounds(x)
    if negative:
        raise ValueError("'list' argument must have no negative elements")
    return _prim.bincount(x, max(largest + 1, minlength), weights)


# --------------------------------------------------------------------------------------------
# histogram
# --------------------------------------------------------------------------------------------

def _host_scalar(v):
    """A ``range`` entry as a host number (device 0-d arrays are read back)."""
    if type(v) is float or type(v) is int:
        return v
    cupy = backend.cupy_module()
    if cupy is not None and isinstance(v, cupy.ndarray):
        return v.get()[()]
    return v


def _isfinite(v):
    return math.isfinite(v) if type(v) is float else numpy.isfinite(v)


def outer_edges(range, minmax=None, size=1):
    """NumPy's ``_get_outer_edges``: ``(first_edge, last_edge)`` with NumPy's scalar types.

    Parameters
    ----------
    range : (float, float) or None
        The user's range.
    minmax : callable, optional
        Returns ``(min, max)`` of the data as NumPy scalars of its dtype (called only when
        ``range`` is None and ``size > 0``).
    size : int
        Number of data elements.
    """
    if range is not None:
        first_edge, last_edge = range
        first_edge, last_edge = _host_scalar(first_edge), _host_scalar(last_edge)
        if first_edge > last_edge:
            raise ValueError("max must be larger than min in range parameter.")
        if not (_isfinite(first_edge) and _isfinite(last_edge)):
            raise ValueError(f"supplied range of [{first_edge}, {last_edge}] is not finite")
    elif size == 0:
        first_edge, last_edge = 0, 1
    else:
        first_edge, last_edge = minmax()
        if not (numpy.isfinite(first_edge) and numpy.isfinite(last_edge)):
            raise ValueError(f"autodetected range of [{first_edge}, {last_edge}] is not finite")
    if first_edge == last_edge:
        first_edge = first_edge - 0.5
        last_edge = last_edge + 0.5
    return first_edge, last_edge


def bin_count_arg(bins):
    """``bins`` as a positive int, with NumPy's errors."""
    try:
        n = operator.index(bins)
    except TypeError as e:
        raise TypeError("`bins` must be an integer, a string, or an array") from e
    if n < 1:
        raise ValueError("`bins` must be positive, when an integer")
    return n


def check_uniform_edges(edges, n):
    if numpy.any(edges[:-1] >= edges[1:]):
        raise ValueError(f"Too many bins for data range. Cannot create {n} finite-sized bins.")


def edges_arg(bins):
    """``bins`` as a host edge array, with NumPy's errors (device edges are copied back)."""
    cupy = backend.cupy_module()
    edges = bins.get() if cupy is not None and isinstance(bins, cupy.ndarray) else numpy.asarray(bins)
    if edges.ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    if numpy.any(edges[:-1] > edges[1:]):
        raise ValueError("`bins` must increase monotonically, when an array")
    return edges


def _minmax(a):
    cupy = backend.cupy()

    def run():
        both = cupy.stack((a.min(), a.max())).get()
        return both[0], both[1]

    return run


def _count(a, bins, range, w64):
    """Histogram of device data ``a`` (1-D) with float64 weights or none: (hist, host-or-device edges)."""
    if isinstance(bins, str):
        raise NotImplementedError(f"rocarray.histogram: bin estimator strings ({bins!r}) are not supported; "
                                  "pass a number of bins or an edge array")
    if type(bins) is int or numpy.ndim(bins) == 0:
        n = bin_count_arg(bins)
        first, last = outer_edges(range, _minmax(a), a.size)
        even = _prim.even_setup(first, last, n, a.dtype)  # cached NumPy edges (read-only)
        if not even.increasing:
            check_uniform_edges(even.edges, n)
        return _prim.histogram_even(a, n + 1, first, last, weights=w64)
    edges = edges_arg(bins)
    cupy = backend.cupy()
    return _prim.histogram_range(a, edges, weights=w64), cupy.asarray(edges)


def histogram(a, bins=10, range=None, weights=None, density=None):
    """Compute the histogram of a dataset (``numpy.histogram``).

    Parameters
    ----------
    a : cupy.ndarray
        Device data, flattened (int8..uint64, bool, float16, float32, float64).
    bins : int or sequence of scalars
        Number of equal-width bins, or the monotonically increasing bin edges (host list, tuple,
        NumPy array, or device array), rightmost edge included. Strings are not supported.
    range : (float, float), optional
        Lower and upper range of the bins (host numbers); default ``(a.min(), a.max())``.
        Values outside it are ignored; it must be finite with ``min <= max``.
    weights : cupy.ndarray, optional
        Device array of ``a``'s shape; the histogram sums weights (deterministically).
    density : bool, optional
        Return the probability density: ``hist / bin_widths / hist.sum()``.

    Returns
    -------
    hist : cupy.ndarray
        int64 counts; the weights' dtype when weighted; float64 when ``density``.
    bin_edges : cupy.ndarray
        ``len(hist) + 1`` edges (NumPy's dtype).

    Raises
    ------
    TypeError
        Host (NumPy) data, non-integer scalar ``bins``, unsupported dtypes.
    ValueError
        Non-positive ``bins``, non-monotonic edges, a range that is not finite or has min > max,
        NaN/inf data without ``range``, ``weights`` of another shape.

    Notes
    -----
    Uniform bins reproduce NumPy's index computation exactly (``(x - first) / (last - first) *
    bins`` in NumPy's dtypes, then its comparisons against the edges), so counts match NumPy bit
    for bit, also for values exactly on edges. Without ``range`` the data's min and max are read
    back to the host (one sync), as NumPy's edges depend on them. Explicit edges are compared with
    the data in float64 (int64 data beyond 2**53 may then differ from NumPy's integer comparison).

    Examples
    --------
    >>> import rocarray as ra
    >>> ra.histogram(ra.asarray([1, 2, 1]), bins=[0, 1, 2, 3])   # doctest: +SKIP
    (array([0, 2, 1]), array([0, 1, 2, 3]))
    """
    cupy = backend.cupy()
    a_dev = as_device_array(a, "a")
    if weights is not None:
        weights = as_device_array(weights, "weights")
        if weights.shape != a_dev.shape:
            raise ValueError("weights should have the same shape as a.")
        weights = weights.ravel()
    a = a_dev.ravel()
    if a.dtype == numpy.bool_:
        warnings.warn(f"Converting input from {a.dtype} to {numpy.uint8} for compatibility.",
                      RuntimeWarning, stacklevel=2)
        a = a.view(numpy.uint8)
    if a.dtype not in _prim.DTYPES:
        raise TypeError(f"rocarray.histogram: unsupported dtype {a.dtype.name} for argument 'a'")
    if weights is None:
        hist, edges = _count(a, bins, range, None)
    elif weights.dtype.kind == "c":
        real, edges = _count(a, bins, range, weights.real.astype(numpy.float64))
        imag, _ = _count(a, bins, range, weights.imag.astype(numpy.float64))
        hist = (real + 1j * imag).astype(weights.dtype)
    elif weights.dtype.kind in "biuf":
        w64 = weights if weights.dtype == numpy.float64 else weights.astype(numpy.float64)
        hist, edges = _count(a, bins, range, w64)
        if weights.dtype != numpy.float64:
            hist = hist.astype(weights.dtype)
    else:
        raise TypeError(f"rocarray.histogram: unsupported weights dtype {weights.dtype.name}")
    if density:
        db = cupy.diff(edges).astype(float)
        return hist / db / hist.sum(), edges
    return hist, edges
