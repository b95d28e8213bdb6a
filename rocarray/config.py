"""Run-time settings (``ra.config``): :class:`deterministic` results, :class:`sparse_checks` of
sparse constructors, :func:`refresh` after
changing a ``ROCARRAY_*`` environment variable at run time. Every environment variable rocarray
reads is listed in :mod:`rocarray._core.config`."""

from rocarray._core.config import deterministic, is_deterministic, refresh, sparse_checks, sparse_checks_enabled

__all__ = ["deterministic", "is_deterministic", "refresh", "sparse_checks", "sparse_checks_enabled"]
