"""Convolution algorithm module (filled by its owner)."""

ALGORITHMS = []
