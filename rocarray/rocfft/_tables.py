"""Device tables of the FFT kernels, computed on the device in double precision and cached.

* ``twiddles(n)``: ``W_n^k = exp(-2 pi i k / n)`` for ``k < n`` (the Stockham passes).
* ``split_twiddles(n)``: two tables ``hi[q] = W_n^(q*split)`` and ``lo[r] = W_n^r`` with
  ``split = ceil(sqrt(n))``, so any ``W_n^k = hi[k // split] * lo[k % split]`` from about
  ``2 sqrt(n)`` entries (four-step twiddles and the real-transform passes).
* ``chirp(n)``: ``exp(-i pi m^2 / n)`` for ``m < n`` (Bluestein).
* ``bluestein_filter(n, m, forward)``: the length-``m`` FFT of the chirp filter, divided by ``m``.

Tables are device data shared by many schedules (which keep the ones they point into alive), not
plans: the cache is bounded in bytes and drops the least recently used tables first. Clearing the
plan cache (:meth:`rocarray._core.plans.PlanCache.clear`, ``ra.fft.config.clear_plan_cache``)
clears it too. Call the table functions with the table's device current (a schedule is built
so).
"""

import math
import threading
from collections import OrderedDict

import numpy

from rocarray._core import backend, plans
from rocarray.rocfft import _factor
from rocarray.rocfft import _schedule as S

#: Bytes of tables kept per process before the least recently used are dropped.
CACHE_BYTES = 512 << 20


class TableCache:
    """Bounded LRU of device tables keyed by ``(kind, precision, parameters..., device)``."""

    def __init__(self, limit=CACHE_BYTES):
        self.limit = limit
        self._entries = OrderedDict()
        self._bytes = 0
        self._lock = threading.RLock()

    def clear(self):
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    @property
    def nbytes(self):
        return self._bytes

    def _get(self, key, make):
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
                return value
        value = make()
        size = sum(a.nbytes for a in (value if isinstance(value, tuple) else (value,))
                   if hasattr(a, "nbytes"))
        with self._lock:
            self._entries[key] = value
            self._bytes += size
            while self._bytes > self.limit and len(self._entries) > 1:
                _, old = self._entries.popitem(last=False)
                self._bytes -= sum(a.nbytes for a in (old if isinstance(old, tuple) else (old,))
                                   if hasattr(a, "nbytes"))
        return value

    # -- tables --------------------------------------------------------------------------------
    def twiddles(self, precision, n, device_id):
        return self._get(("twiddles", precision, n, device_id),
                         lambda: _twiddle_table(precision, n, n, 1, device_id))

    def pass_twiddles(self, precision, n, device_id):
        """Per-pass table of the power-of-two kernel: for each pass with ``ns > 1`` (``ns`` the
        product of the earlier radices), ``W_{ns R}^(r jm)`` at ``base + (r-1) ns + jm``."""
        def make():
            radices = _factor.radix_passes(n)
            parts = []
            ns = 1
            for radix in radices:
                if ns > 1:
                    for r in range(1, radix):
                        parts.append((ns, r * (n // (ns * radix))))
                ns *= radix
            total = sum(count for count, _ in parts)
            out = backend.cupy().empty(max(1, total), S.complex_dtype(precision))
            offset = 0
            for count, step in parts:
                _twiddle_table(precision, count, n, step, device_id, out=out, offset=offset)
                offset += count
            return out
        return self._get(("pass", precision, n, device_id), make)

    def split_twiddles(self, precision, n, device_id):
        """``(hi, lo, split)`` for ``W_n^k``, ``0 <= k < n``."""
        def make():
            if n & (n - 1) == 0:  # powers of two: a power-of-two split (the kernels mask and shift)
                split = 1 << ((n.bit_length()) // 2)
            else:
                split = max(1, math.isqrt(n - 1) + 1) if n > 1 else 1
            hi = _twiddle_table(precision, -(-n // split), n, split, device_id)
            lo = _twiddle_table(precision, split, n, 1, device_id)
            return hi, lo, split
        return self._get(("split", precision, n, device_id), make)

    def chirp(self, precision, n, device_id):
        def make():
            out = backend.cupy().empty(n, S.complex_dtype(precision))
            S.pointwise_kernel("chirp", precision)(device_id, _grid(n), (out, numpy.int64(n)))
            return out
        return self._get(("chirp", precision, n, device_id), make)

    def bluestein_filter(self, precision, n, m, forward, device_id):
        def make():
            chirp = self.chirp(precision, n, device_id)
            filt = backend.cupy().empty(m, S.complex_dtype(precision))
            real = numpy.float32 if precision == "single" else numpy.float64
            S.pointwise_kernel("chirp_filter", precision, forward)(
                device_id, _grid(m), (filt, chirp, numpy.int64(n), numpy.int64(m), real(1.0 / m)))
            side = S.Side(S.Ref("src"), 1, ())
            schedule = S.build(m, (), side, S.Side(S.Ref("dst"), 1, ()), precision=precision, forward=True,
                               device_id=device_id, tables=self)
            schedule.run(filt.data.ptr, filt.data.ptr)
            return filt
        return self._get(("bluestein", precision, n, m, forward, device_id), make)


def _grid(count):
    return max(1, min(S.POINTWISE_GRID, -(-count // S.BLOCK)))


def _twiddle_table(precision, count, n, step, device_id, out=None, offset=0):
    """``W_n^(k*step)`` for ``k < count``, into ``out[offset:]`` (a new array when ``out`` is None)."""
    if out is None:
        out = backend.cupy().empty(max(1, count), S.complex_dtype(precision))
    ptr = numpy.uint64(out.data.ptr + offset * out.dtype.itemsize)
    S.pointwise_kernel("twiddles", precision)(
        device_id, _grid(count), (ptr, numpy.int64(count), numpy.int64(n), numpy.int64(step)))
    return out


#: The process-wide table cache.
tables = TableCache()
plans.cache.on_clear(tables.clear)
