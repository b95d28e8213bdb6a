"""Self-checks and vendor-ratio benchmark cases, one module per library area.

Each module registers, with :mod:`rocarray._core.harness`, small self-checks (rocarray against
NumPy on fresh random inputs) and benchmark cases (rocarray against the vendor path CuPy takes, on
the same data, in the same run). ``import rocarray`` does not import them: ``python -m rocarray``
and the asv benchmarks load them through :func:`rocarray._core.harness.load_all`.
"""
