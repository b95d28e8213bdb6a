"""Every environment knob rocarray reads, in one place.

=================================  ==========================================================
``ROCARRAY_CACHE_DIR``             root of rocarray's caches (tuning DB, dumped sources);
                                   default ``$XDG_CACHE_HOME/rocarray`` or ``~/.cache/rocarray``
``ROCARRAY_DUMP_SOURCE_ON_ERROR``  ``1``: write the full pasted kernel source next to a compile error
``ROCARRAY_TUNE``                  ``0`` heuristics only, ``1`` tune unseen problems (default),
                                   ``force`` re-tune everything
``ROCARRAY_GEMM_FLOAT32``          ``tf32x3`` (default): float32 gemm may take the three-TF32-product
                                   matrix-core kernel where the device has it (NVIDIA sm_90);
                                   ``simt``: float32 gemm uses float32 multiply-adds only
``ROCARRAY_HIPCC``                 the ``hipcc`` used by the offline compile check (default: PATH)
``ROCARRAY_CUDA_INCLUDE``          extra include folder for offline NVRTC checks (rarely needed)
=================================  ==========================================================

CuPy's own kernel disk cache (``CUPY_CACHE_DIR``) is left to CuPy and stays on.
"""

import os
from pathlib import Path


def _environ_reader():
    """A function reading one environment variable (None when unset) as ``os.environ.get``
    does, only faster: on POSIX it looks up the mapping ``os.environ`` keeps its bytes in (the
    same one ``os.environ``'s reads and writes go through; ``os.environ.get`` costs about a
    microsecond for its key and value encoding, which hot paths that key decisions on the
    environment pay on every call)."""
    data = getattr(os.environ, "_data", None)
    if os.name != "posix" or not isinstance(data, dict):
        return os.environ.get
    encoding = __import__("sys").getfilesystemencoding()

    def read(name):
        value = data.get(name.encode(encoding, "surrogateescape"))
        return None if value is None else value.decode(encoding, "surrogateescape")
    return read


#: ``environ_get(name)``: ``os.environ.get(name)``, faster (see :func:`_environ_reader`).
environ_get = _environ_reader()


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


def dump_source_on_error():
    """Whether a failed compile writes its full pasted source to the cache dir."""
    return _flag("ROCARRAY_DUMP_SOURCE_ON_ERROR")


def tune_mode():
    """``'0'`` (heuristics only), ``'1'`` (tune unseen keys) or ``'force'`` (re-tune)."""
    value = os.environ.get("ROCARRAY_TUNE", "1").strip().lower()
    if value in ("0", "false", "no", "off"):
        return "0"
    if value == "force":
        return "force"
    return "1"


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
