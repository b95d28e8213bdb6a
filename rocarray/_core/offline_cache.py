"""The offline compile check's memory of its successful compiles, kept between runs.

A successful offline compile (:func:`rocarray._core.offline.compile_text`) is stored as an entry of
rocarray's kernel binary cache (:mod:`rocarray._core.kernel_cache`: plain bytes plus a JSON file
checked against its key, never unpickled) under ``$ROCARRAY_CACHE_DIR/kernels/offline-<arch>/``.
The key is a digest of everything the verdict depends on:

* the exact translation-unit text the compiler sees (headers pasted), the name expressions and the
  options;
* the target's architecture and warp size;
* the compiler's identity: for NVRTC its version and the file of the loaded ``libnvrtc`` (path,
  size, modification time); for hipcc the resolved path of the executable, its ``--version``
  output and the Debian package versions of its toolchain (:data:`HIPCC_PACKAGES`).

So a changed source, header, option, instantiation or compiler compiles again; an unchanged one is
answered from the cache in milliseconds, which is what makes a second run of the compile matrix (or
of ``compile-check``) cheap. Failures are never stored: a source that failed is compiled (and its
log shown) every time. ``ROCARRAY_OFFLINE_CACHE=0`` or ``compile-check --no-cache`` turns the
cache off.

Within one process, identical compiles asked for at once (the compile matrix and another test
compiling the same text) wait for the first instead of running the compiler twice.
"""

import hashlib
import os
import re
import subprocess
import threading

from rocarray._core import config, kernel_cache

_identity_memo = {}
_identity_lock = threading.Lock()
_inflight = {}  # key -> lock held while that key is being compiled in this process
_inflight_lock = threading.Lock()


def folder_name(target):
    """The cache folder's name for ``target``'s offline entries (``'offline-sm_90'``)."""
    return f"offline-{target.arch}"


def _file_stamp(path):
    try:
        st = os.stat(path)
    except OSError:
        return f"{path} (unreadable)"
    return f"{os.path.realpath(path)} {st.st_size} {int(st.st_mtime)}"


def _loaded_nvrtc_library():
    """The path of the ``libnvrtc`` this process loaded (Linux), or '' where it cannot be found."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            for line in f:
                path = line.rsplit(None, 1)[-1] if "/" in line else ""
                if "libnvrtc" in os.path.basename(path) and "builtins" not in os.path.basename(path):
                    return path
    except OSError:
        pass
    return ""


def _digest(path):
    """SHA-256 of a file's bytes (memoized by its path, size and modification time), or a note
    where it cannot be read."""
    stamp = _file_stamp(path)
    with _identity_lock:
        if ("digest", stamp) in _identity_memo:
            return _identity_memo[("digest", stamp)]
    try:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        digest = h.hexdigest()
    except OSError:
        digest = f"{path} (unreadable)"
    with _identity_lock:
        _identity_memo[("digest", stamp)] = digest
    return digest


def nvrtc_identity(bindings):
    """NVRTC's identity: its version and the SHA-256 of the loaded library and of the builtins
    library beside it, so that the same NVRTC installed anywhere has the same identity (the
    compile matrix's shipped sm_90 answers, :mod:`rocarray._core.offline_shipped`, match on it)."""
    version = ".".join(str(v) for v in bindings.getVersion())
    library = _loaded_nvrtc_library()
    if not library:
        return f"nvrtc {version} (library path unknown)"
    folder = os.path.dirname(os.path.realpath(library))
    builtins = sorted(n for n in os.listdir(folder) if n.startswith("libnvrtc-builtins")) \
        if os.path.isdir(folder) else []
    parts = [f"{os.path.basename(os.path.realpath(library))} {_digest(library)}"]
    parts += [f"{name} {_digest(os.path.join(folder, name))}" for name in builtins]
    return f"nvrtc {version} " + " ".join(parts)


#: The Debian packages of the AMD toolchain whose versions are part of hipcc's identity (the clang
#: that hipcc drives and the device libraries can change without hipcc's own file changing).
HIPCC_PACKAGES = ("hipcc", "libamdhip64-dev", "rocm-device-libs", "clang-15", "libclang-common-15-dev")


def _package_versions(packages):
    """``'name version'`` lines of the installed Debian packages among ``packages`` ('' without dpkg)."""
    try:
        proc = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Version}\n", *packages],
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return ""
    return proc.stdout.strip()


def hipcc_identity(path):
    """hipcc's identity: the resolved executable (path, size, modification time), the compiler
    lines of its ``--version`` output and the installed versions of :data:`HIPCC_PACKAGES`, read
    once per executable file and process."""
    stamp = _file_stamp(path)
    with _identity_lock:
        if stamp in _identity_memo:
            return _identity_memo[stamp]
    env = dict(os.environ, HIP_PLATFORM="amd")
    try:
        proc = subprocess.run([path, "--version"], env=env, capture_output=True, text=True, timeout=60)
        # the lines that name the compiler; hipcc also prints what rocm_agent_enumerator says
        # about the machine's GPUs (a traceback without one), which is not the compiler's
        version = "\n".join(line for line in (proc.stdout + proc.stderr).splitlines()
                            if re.match(r"(.*\bversion\b|Target:|InstalledDir:)", line, re.I))
    except (OSError, subprocess.SubprocessError) as exc:
        version = f"(--version failed: {exc})"
    identity = f"hipcc {stamp}\n{version}\n{_package_versions(HIPCC_PACKAGES)}"
    with _identity_lock:
        _identity_memo[stamp] = identity
    return identity


def key(compiler, target, text, names, options):
    """The entry key of one offline compile (see the module docstring for what it covers)."""
    return kernel_cache.key("offline", compiler, target.vendor, target.arch, str(target.warp_size),
                            tuple(options), tuple(names), text)


def enabled(use_cache=None):
    """Whether to use the cache: ``use_cache`` when given, else ``ROCARRAY_OFFLINE_CACHE`` (default on)."""
    return config.offline_cache_enabled() if use_cache is None else bool(use_cache)


def lookup(target, entry_key):
    """``(binary, lowered names)`` of a stored compile, or None: the user's cache first, then the
    compiles shipped with the package (:mod:`rocarray._core.offline_shipped`, AMD targets)."""
    from rocarray._core import offline_shipped

    found = kernel_cache.read(folder_name(target), entry_key)
    return found if found is not None else offline_shipped.lookup(target, entry_key)


def store(target, entry_key, binary, lowered):
    """Remember a successful compile (silently skipped where the cache cannot be written)."""
    kernel_cache.store(folder_name(target), entry_key, bytes(binary), lowered or {})


class once:
    """``with once(key):`` lets one thread of this process compile ``key`` while others asking for
    the same key wait, then find its entry."""

    def __init__(self, entry_key):
        with _inflight_lock:
            self.lock = _inflight.setdefault(entry_key, threading.Lock())

    def __enter__(self):
        self.lock.acquire()
        return self

    def __exit__(self, *exc):
        self.lock.release()
