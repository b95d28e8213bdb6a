"""rocBLAS-style dense linear algebra kernels (placeholder until level 1 lands)."""
