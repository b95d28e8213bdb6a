"""hipCUB/rocPRIM-style parallel primitives: scans and histograms (reductions, sort and more to come).

The NumPy names on top of these are ``ra.cumsum``, ``ra.cumprod``, ``ra.nancumsum``,
``ra.nancumprod``, ``ra.bincount`` and ``ra.histogram``.
"""

from rocarray.prim._scan import exclusive_scan, inclusive_scan, segmented_inclusive_scan
from rocarray.prim._histogram import histogram_even, histogram_range
from rocarray.prim._sort import (radix_argsort, radix_sort_keys, radix_sort_pairs, segmented_radix_sort_keys,
                                 segmented_radix_sort_pairs)
from rocarray.prim._select import (mask_select, nonzero_coords, nonzero_indices, run_length_encode, select_flagged,
                                   select_if_nonzero, unique_sorted)
from rocarray.prim._search import lower_bound, upper_bound
from rocarray.prim._reduce import argreduce, reduce

__all__ = ["inclusive_scan", "exclusive_scan", "segmented_inclusive_scan", "histogram_even", "histogram_range"]
__all__ += ["radix_sort_keys", "radix_sort_pairs", "radix_argsort", "segmented_radix_sort_keys",
            "segmented_radix_sort_pairs"]
__all__ += ["select_flagged", "select_if_nonzero", "nonzero_indices", "nonzero_coords", "mask_select", "unique_sorted",
            "run_length_encode", "lower_bound", "upper_bound"]
__all__ += ["reduce", "argreduce"]
