"""Plan-cache settings, named as in ``cupy.fft.config``.

rocarray keeps one plan cache for all its libraries (:data:`rocarray._core.plans.cache`, also
:data:`rocarray.rocfft.plan_cache`): the prepared kernel launches of each call signature, FFT
schedules among them (keyed by transform, layout and device), least recently used first out.
These functions are CuPy's FFT plan-cache functions over that one cache, so its size bounds the
plans of every library, and clearing it drops them all together with rocfft's cached device
twiddle tables. The cache is bounded by entry count only: :func:`get_plan_cache_max_memsize`
reports ``-1`` (no byte limit) and :func:`set_plan_cache_max_memsize` accepts only ``-1``.
"""

from rocarray._core import plans

__all__ = ["get_plan_cache", "get_plan_cache_size", "set_plan_cache_size", "get_plan_cache_max_memsize",
           "set_plan_cache_max_memsize", "show_plan_cache_info", "clear_plan_cache"]


def get_plan_cache():
    """The plan cache (``get_size``, ``set_size``, ``get_curr_size``, ``clear``, ``show_info``).

    Returns
    -------
    rocarray._core.plans.PlanCache
        rocarray's one plan cache (one for all threads, devices and libraries; entries are keyed
        by device).
    """
    return plans.cache


def get_plan_cache_size():
    """Most plans the cache keeps (of all libraries).

    Returns
    -------
    int
    """
    return plans.cache.get_size()


def set_plan_cache_size(size):
    """Keep at most ``size`` plans (of all libraries; 0 disables caching); the least recently
    used go first.

    Parameters
    ----------
    size : int
        Non-negative; a negative size raises ``ValueError``.
    """
    plans.cache.set_size(size)


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
        raise NotImplementedError("the rocarray plan cache is bounded by entry count only; "
                                  "use set_plan_cache_size()")


def show_plan_cache_info():
    """Print the cache's size, use and hit counts."""
    plans.cache.show_info()


def clear_plan_cache():
    """Drop every cached plan (of all libraries) and rocfft's cached device twiddle tables."""
    plans.cache.clear()
