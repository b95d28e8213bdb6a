"""hipCUB/rocPRIM-style parallel primitives on hand-written HIP kernels: reductions, scans, radix
sort, stream compaction, unique, binary search and histograms.

The NumPy names on top of these (``ra.sum``, ``ra.cumsum``, ``ra.sort``, ``ra.nonzero``,
``ra.unique``, ``ra.searchsorted``, ``ra.bincount``, ``ra.histogram``, ...) live in the façade
(:mod:`rocarray._numpy`).
"""

from rocarray.prim._reduce import argreduce, reduce
from rocarray.prim._scan import exclusive_scan, inclusive_scan, segmented_inclusive_scan
from rocarray.prim._sort import (radix_argsort, radix_sort_keys, radix_sort_pairs, segmented_radix_sort_keys,
                                 segmented_radix_sort_pairs)
from rocarray.prim._select import mask_select, nonzero_coords, nonzero_indices, select_flagged, select_if_nonzero
from rocarray.prim._unique import run_length_encode, unique_sorted
from rocarray.prim._search import lower_bound, upper_bound
from rocarray.prim._histogram import histogram_even, histogram_range

__all__ = ["reduce", "argreduce"]
__all__ += ["inclusive_scan", "exclusive_scan", "segmented_inclusive_scan"]
__all__ += ["radix_sort_keys", "radix_sort_pairs", "radix_argsort", "segmented_radix_sort_keys",
            "segmented_radix_sort_pairs"]
__all__ += ["select_flagged", "select_if_nonzero", "nonzero_indices", "nonzero_coords", "mask_select"]
__all__ += ["unique_sorted", "run_length_encode", "lower_bound", "upper_bound"]
__all__ += ["histogram_even", "histogram_range"]
