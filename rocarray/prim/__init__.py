"""hipCUB/rocPRIM-style parallel primitives: scans and histograms (reductions, sort and more to come).

The NumPy names on top of these are ``ra.cumsum``, ``ra.cumprod``, ``ra.nancumsum``,
``ra.nancumprod``, ``ra.bincount`` and ``ra.histogram``.
"""

from rocarray.prim._scan import exclusive_scan, inclusive_scan, segmented_inclusive_scan
from rocarray.prim._histogram import histogram_even, histogram_range
from rocarray.prim import _checks_histogram, _checks_scan  # noqa: F401  (registers self-checks, bench cases)

__all__ = ["inclusive_scan", "exclusive_scan", "segmented_inclusive_scan", "histogram_even", "histogram_range"]
