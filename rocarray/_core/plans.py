"""The one plan cache.

A *plan* is the prepared form of one call signature: everything a call does that depends only on
its arguments' metadata (dtypes, shapes, strides, alignment, device, settings), down to its
prepared launches (:class:`rocarray._core.launch.Launch`). Executing a plan with the call's data is
the only per-call work. Every library keeps its plans here, keyed by a tuple that starts with the
operation's name (``('prim.reduce', ...)``, ``('rocblas.gemm', ...)``) and holds everything the
plan was built from.

The cache is bounded by entry count and drops the least recently used plan first. Its size is
:data:`DEFAULT_SIZE` (``ra.fft.config.set_plan_cache_size`` changes it, as CuPy's FFT plan cache
is resized). A settings change that alters what a plan would be (the tuning mode, the float32 gemm
path, a cleared tuning DB) clears it.
"""

import threading
from collections import OrderedDict

#: Plans kept by default.
DEFAULT_SIZE = 4096

_MISSING = object()


class PlanCache:
    """A least-recently-used mapping from call signatures to plans, safe for concurrent use.

    Parameters
    ----------
    size : int
        Most plans kept (0: none).
    """

    def __init__(self, size=DEFAULT_SIZE):
        self._size = int(size)
        self._entries = OrderedDict()
        self._lock = threading.Lock()
        self._on_clear = []
        self.hits = 0
        self.misses = 0

    def get(self, key, default=None):
        """The plan stored under ``key``, or ``default`` (an unhashable key raises ``TypeError``)."""
        plan = self._entries.get(key, _MISSING)
        if plan is _MISSING:
            return default
        self.hits += 1
        try:
            self._entries.move_to_end(key)
        except KeyError:  # dropped by another thread meanwhile
            pass
        return plan

    def put(self, key, plan):
        """Store ``plan`` under ``key`` (dropping the least recently used past the size)."""
        with self._lock:
            if self._size > 0:
                self._entries[key] = plan
                while len(self._entries) > self._size:
                    self._entries.popitem(last=False)
        return plan

    def lookup(self, key, build):
        """The plan for ``key``, built by ``build()`` and stored on a miss. An unhashable key (a list
        where a tuple was expected) builds without storing."""
        try:
            plan = self._entries.get(key, _MISSING)
        except TypeError:
            return build()
        if plan is not _MISSING:
            self.hits += 1
            try:
                self._entries.move_to_end(key)
            except KeyError:
                pass
            return plan
        self.misses += 1
        return self.put(key, build())

    def get_size(self):
        """Most plans kept."""
        return self._size

    def set_size(self, size):
        """Keep at most ``size`` plans (0 disables caching); the least recently used go first.

        Raises
        ------
        ValueError
            For a negative size.
        """
        size = int(size)
        if size < 0:
            raise ValueError("plan cache size must be non-negative")
        with self._lock:
            self._size = size
            while len(self._entries) > size:
                self._entries.popitem(last=False)

    def get_curr_size(self):
        """Plans held now."""
        return len(self._entries)

    def on_clear(self, callback):
        """Call ``callback()`` whenever the cache is cleared (a library dropping what its plans
        share, such as device tables)."""
        self._on_clear.append(callback)

    def clear(self):
        """Drop every plan."""
        with self._lock:
            self._entries.clear()
        for callback in self._on_clear:
            callback()

    def show_info(self):
        """Print the cache's size, use and hit counts."""
        print(f"rocarray plan cache: {len(self._entries)} / {self._size} plans, "
              f"{self.hits} hits, {self.misses} misses")


#: The process's one plan cache.
cache = PlanCache()


def on_first_use(make):
    """``get()`` returning ``make()``, called on the first ``get`` only: a part of a plan that some
    calls never take (a kernel variant, a fallback path) is compiled and prepared when a call
    first needs it, so a cold call compiles only what it launches."""
    made = []

    def get():
        if not made:
            made.append(make())
        return made[0]
    return get

