"""FFT plan-cache settings, named as in ``cupy.fft.config``.

rocarray keeps one process-wide LRU cache of FFT schedules (:data:`rocarray.rocfft.plan_cache`,
keyed by transform, layout and device; each entry holds its device twiddle tables). These
functions are CuPy's plan-cache functions over it. The cache is bounded by entry count only:
:func:`get_plan_cache_max_memsize` reports ``-1`` (no byte limit) and
:func:`set_plan_cache_max_memsize` accepts only ``-1``.
"""

from rocarray import rocfft as _rocfft

__all__ = ["get_plan_cache", "get_plan_cache_size", "set_plan_cache_size", "get_plan_cache_max_memsize",
           "set_plan_cache_max_memsize", "show_plan_cache_info", "clear_plan_cache"]


def get_plan_cache():
    """The plan cache (``get_size``, ``set_size``, ``get_curr_size``, ``clear``, ``show_info``).

    Returns
    -------
    rocarray.rocfft.PlanCache
        The process-wide cache (one for all threads and devices; entries are keyed by device).
    """
    return _rocfft.plan_cache


def get_plan_cache_size():
    """Most schedules the cache keeps.

    Returns
    -------
    int
    """
    return _rocfft.plan_cache.get_size()


def set_plan_cache_size(size):
    """Keep at most ``size`` schedules (0 disables caching); the least recently used go first.

    Parameters
    ----------
    size : int
        Non-negative; a negative size raises ``ValueError``.
    """
    _rocfft.plan_cache.set_size(size)


def get_plan_cache_max_memsize():
    """The cache's byte limit: always ``-1`` (none; the cache is bounded by entry count).

    Returns
    -------
    int
    """
    return -1


def set_plan_cache_max_memsize(size):
    """Accepted for CuPy compatibility with ``size=-1`` (no byte limit) only.

    Parameters
    ----------
    size : int
        ``-1``; anything else raises ``NotImplementedError`` (use :func:`set_plan_cache_size`).
    """
    if int(size) != -1:
        raise NotImplementedError("the rocarray FFT plan cache is bounded by entry count only; "
                                  "use set_plan_cache_size()")


def show_plan_cache_info():
    """Print the cache's size, use and hit counts."""
    _rocfft.plan_cache.show_info()


def clear_plan_cache():
    """Drop every cached schedule (and the cached device twiddle tables)."""
    _rocfft.plan_cache.clear()
