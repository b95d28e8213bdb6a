"""Core services: device facts, the one compile path, tuning, errors and settings."""
