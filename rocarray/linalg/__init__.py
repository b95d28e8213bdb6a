"""numpy.linalg names (placeholder until level 1 lands)."""
