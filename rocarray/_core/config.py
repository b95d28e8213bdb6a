"""Every environment knob rocarray reads, in one place.

=================================  ==========================================================
``ROCARRAY_CACHE_DIR``             root of rocarray's caches (kernel binaries, tuning DB, dumped sources);
                                   default ``$XDG_CACHE_HOME/rocarray`` or ``~/.cache/rocarray``
``ROCARRAY_PREBUILT``              ``0``: ignore the kernel binaries shipped with the package (compile
                                   what the binary cache lacks)
``ROCARRAY_OFFLINE_CACHE``         ``0``: the offline compile check compiles everything again instead of
                                   answering unchanged compiles from its cache (default on)
``ROCARRAY_DUMP_SOURCE_ON_ERROR``  ``1``: write the full pasted kernel source next to a compile error
``ROCARRAY_TUNE``                  unset: the tuning DB's answers, else heuristics (never times);
                                   ``0`` heuristics only, ``1`` tune unseen problems,
                                   ``force`` re-tune everything
``ROCARRAY_GEMM_FLOAT32``          ``tf32x3`` (default): float32 gemm may take the three-TF32-product
                                   matrix-core kernel where the device has it (NVIDIA sm_90);
                                   ``simt``: float32 gemm uses float32 multiply-adds only
``ROCARRAY_HIPCC``                 the ``hipcc`` used by the offline compile check (default: PATH)
``ROCARRAY_CUDA_INCLUDE``          extra include folder for offline NVRTC checks (rarely needed)
``ROCARRAY_DETERMINISTIC``         ``1``: bitwise reproducible results (:class:`deterministic`)
``ROCARRAY_SPARSE_CHECKS``         ``0``: sparse constructors skip the index checks (:class:`sparse_checks`)
=================================  ==========================================================

CuPy's own kernel disk cache (``CUPY_CACHE_DIR``) is left to CuPy and stays on.

Every value is read from ``os.environ`` when it is needed, which for the settings that shape a
call's plan (``ROCARRAY_TUNE``, ``ROCARRAY_GEMM_FLOAT32``, ``ROCARRAY_CACHE_DIR``,
``ROCARRAY_DETERMINISTIC``) is when the plan
is built: after changing one at run time, call :func:`refresh`.
"""

import os
from pathlib import Path


_generation = [0]
_listeners = []


def generation():
    """A counter that :func:`refresh` increments: plans and remembered choices built under one
    value of it may be reused while it stays the same."""
    return _generation[0]


def on_refresh(callback):
    """Call ``callback()`` on every :func:`refresh` (the plan cache and the tuner's memos)."""
    _listeners.append(callback)


def refresh():
    """Start over after changing a setting in ``os.environ`` at run time: every plan and remembered
    tuning choice is dropped, so later calls are planned under the new settings.

    Settings are read when a plan is built; a plan already built keeps the settings it was built
    under until this is called.
    """
    _generation[0] += 1
    for callback in _listeners:
        callback()


def _flag(name, default=False):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() not in ("0", "false", "no", "off")


def cache_dir():
    """Root folder of rocarray's caches (``ROCARRAY_CACHE_DIR``)."""
    explicit = os.environ.get("ROCARRAY_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "rocarray"


def prebuilt_enabled():
    """Whether the kernel binaries shipped with the package are used (``ROCARRAY_PREBUILT``, default on)."""
    return _flag("ROCARRAY_PREBUILT", True)


def offline_cache_enabled():
    """Whether the offline compile check answers unchanged compiles from its cache
    (``ROCARRAY_OFFLINE_CACHE``, default on; :mod:`rocarray._core.offline_cache`)."""
    return _flag("ROCARRAY_OFFLINE_CACHE", True)


def dump_source_on_error():
    """Whether a failed compile writes its full pasted source to the cache dir."""
    return _flag("ROCARRAY_DUMP_SOURCE_ON_ERROR")


def tune_mode():
    """``'db'`` (the default: the tuning DB's answers, else the heuristics; never measures),
    ``'0'`` (heuristics only), ``'1'`` (tune unseen keys) or ``'force'`` (re-tune)."""
    value = os.environ.get("ROCARRAY_TUNE", "").strip().lower()
    if value in ("0", "false", "no", "off"):
        return "0"
    if value == "force":
        return "force"
    if value in ("1", "true", "yes", "on"):
        return "1"
    return "db"


def gemm_float32():
    """``'tf32x3'`` (float32 gemm may take the three-TF32-product kernel, the default) or ``'simt'``
    (``ROCARRAY_GEMM_FLOAT32``). Any other value raises ``ValueError``."""
    value = os.environ.get("ROCARRAY_GEMM_FLOAT32", "tf32x3").strip().lower() or "tf32x3"
    if value not in ("tf32x3", "simt"):
        raise ValueError(f"ROCARRAY_GEMM_FLOAT32 must be 'tf32x3' or 'simt', got {value!r}")
    return value


def hipcc_path():
    """The ``hipcc`` executable for offline AMD compile checks, or ``None``."""
    import shutil

    explicit = os.environ.get("ROCARRAY_HIPCC")
    if explicit:
        return explicit
    return shutil.which("hipcc")


def extra_cuda_include():
    """An extra include folder for offline NVRTC compiles, or ``None``."""
    return os.environ.get("ROCARRAY_CUDA_INCLUDE") or None


_deterministic = [None]  # the process-wide setting of deterministic(), None: the environment's


def is_deterministic():
    """Whether results must be bitwise reproducible: the setting of :class:`deterministic`, else
    ``ROCARRAY_DETERMINISTIC``."""
    value = _deterministic[0]
    return _flag("ROCARRAY_DETERMINISTIC") if value is None else value


class deterministic:
    """Make every rocarray result bitwise reproducible run to run on the same device and arguments
    (``ra.config.deterministic(True)``), for the process or, as a context manager, for a block.

    rocarray's kernels never add floating-point values with atomics: reductions, scans, weighted
    histograms and split-K gemm combine their partial results in a fixed order, so a result
    depends only on the plan. The one exception is the sparse-times-sparse product
    (:func:`rocarray.rocsparse.csrgemm`), whose hash tables add the products of one entry in
    arrival order: its last bits may differ between runs, in this mode too. The one input to a plan that can differ between runs is the tuning
    DB (a user's or the shipped one, and ``ROCARRAY_TUNE`` measurements); in deterministic mode
    every choice is the heuristic's, which depends only on the arguments and the device. Calls
    that fall through to CuPy are CuPy's and not covered. Setting the mode drops every plan
    (:func:`refresh`).

    Parameters
    ----------
    enabled : bool, optional
        The mode to set (default True).

    Examples
    --------
    >>> import rocarray as ra
    >>> ra.config.deterministic(True)           # doctest: +SKIP
    >>> with ra.config.deterministic(False):    # doctest: +SKIP
    ...     y = ra.matmul(a, b)                 # the tuning DB may choose here
    """

    def __init__(self, enabled=True):
        if not isinstance(enabled, bool):
            raise TypeError(f"deterministic() takes True or False, not {enabled!r}")
        self._previous = _deterministic[0]
        _deterministic[0] = enabled
        refresh()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _deterministic[0] = self._previous
        refresh()
        return False

    def __repr__(self):
        return f"rocarray.config.deterministic({_deterministic[0]})"


_sparse_checks = [None]  # the process-wide setting of sparse_checks(), None: the environment's


def sparse_checks_enabled():
    """Whether ``rocarray.sparse`` constructors validate their index arrays: the setting of
    :class:`sparse_checks`, else ``ROCARRAY_SPARSE_CHECKS`` (default on)."""
    value = _sparse_checks[0]
    return _flag("ROCARRAY_SPARSE_CHECKS", True) if value is None else value


class sparse_checks:
    """Turn the index checks of ``rocarray.sparse`` constructors on or off
    (``ra.config.sparse_checks(False)``), for the process or, as a context manager, for a block.

    With checks on (the default), a sparse array built from index arrays has their dtype,
    lengths and range checked like SciPy does (one pass over the indices on the device, and a
    read-back of a few scalars), and its sortedness and duplicates detected into
    ``has_sorted_indices``/``has_canonical_format``. With checks off only shapes and dtypes are
    checked; indices are trusted and the flags say "not known sorted", so out-of-range indices
    give undefined results.

    Parameters
    ----------
    enabled : bool, optional
        The mode to set (default True).

    Examples
    --------
    >>> import rocarray as ra
    >>> with ra.config.sparse_checks(False):                     # doctest: +SKIP
    ...     a = ra.sparse.csr_array((data, indices, indptr), shape=(m, n))
    """

    def __init__(self, enabled=True):
        if not isinstance(enabled, bool):
            raise TypeError(f"sparse_checks() takes True or False, not {enabled!r}")
        self._previous = _sparse_checks[0]
        _sparse_checks[0] = enabled

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _sparse_checks[0] = self._previous
        return False

    def __repr__(self):
        return f"rocarray.config.sparse_checks({sparse_checks_enabled()})"
