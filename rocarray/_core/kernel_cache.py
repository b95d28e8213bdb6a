"""rocarray's own cache of compiled kernel binaries (cubin, hsaco, offline code objects).

An entry is two files under ``$ROCARRAY_CACHE_DIR/kernels/<arch>/``, named by the entry's key (a
SHA-256 of everything the binary depends on: the pasted source text, the compiler options, the
name expressions, the compiler's version and the architecture, see :func:`key`):

* ``<key>.bin``: the binary exactly as the compiler returned it;
* ``<key>.json``: ``{"format": 1, "key": ..., "size": ..., "sha256": ..., "names": {name expression:
  lowered (mangled) name}}``, written last: the entry exists once this file does.

Nothing read is ever executed or unpickled: an entry is used only when its JSON parses, names its
own key, and the binary's size and SHA-256 match; anything else (a truncated or corrupt file, a file
planted under another entry's name) is ignored with a :class:`KernelCacheWarning` and rebuilt.
Files are written to a temporary name in the same folder and renamed into place, so two processes
filling the cache at once never see half a file and never corrupt one another (the last rename of
identical content wins). A read-only or unwritable cache folder turns writing off for the process
(one warning); kernels still compile and load.
"""

import hashlib
import os
import threading
import warnings
from pathlib import Path

from rocarray._core import config

FORMAT = 1

_lock = threading.Lock()
_unwritable = set()  # cache roots found unwritable in this process


class KernelCacheWarning(UserWarning):
    """A kernel cache entry could not be read or written; the kernel is compiled instead."""


def key(*parts):
    """The SHA-256 hex digest naming the entry of ``parts`` (strings, or sequences of strings)."""
    digest = hashlib.sha256()
    digest.update(f"rocarray-kernel-cache-{FORMAT}".encode())
    for part in parts:
        if isinstance(part, (tuple, list)):
            part = "\x1f".join(str(p) for p in part)
        digest.update(b"\x00")
        digest.update(str(part).encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def root():
    """The folder holding every architecture's entries."""
    return Path(config.cache_dir()) / "kernels"


def _paths(arch, entry_key):
    folder = root() / str(arch)
    return folder / f"{entry_key}.bin", folder / f"{entry_key}.json"


def load(arch, entry_key):
    """``(path of the binary, names)`` of a valid entry, or None (missing, or invalid: warned).

    Parameters
    ----------
    arch : str
        ``'sm_90'``, ``'gfx942'``, or an offline target's name.
    entry_key : str
        From :func:`key`.
    """
    import json

    binary_path, meta_path = _paths(arch, entry_key)
    try:
        meta_text = meta_path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        _warn(f"cannot read kernel cache entry {meta_path} ({exc})")
        return None
    try:
        meta = json.loads(meta_text)
        if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("key") != entry_key:
            raise ValueError("not an entry of this key")
        names = meta.get("names")
        if not isinstance(names, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                  for k, v in names.items()):
            raise ValueError("bad 'names'")
        binary = binary_path.read_bytes()
        if len(binary) != meta.get("size") or hashlib.sha256(binary).hexdigest() != meta.get("sha256"):
            raise ValueError("the binary does not match its size and digest")
    except (ValueError, OSError) as exc:  # json.JSONDecodeError is a ValueError
        _warn(f"kernel cache entry {meta_path.name} is invalid ({exc}); compiling instead")
        return None
    return binary_path, names


def read(arch, entry_key):
    """``(binary bytes, names)`` of a valid entry, or None (see :func:`load`)."""
    found = load(arch, entry_key)
    if found is None:
        return None
    path, names = found
    try:
        return path.read_bytes(), names
    except OSError:
        return None


def store(arch, entry_key, binary, names):
    """Write an entry atomically; returns the binary's path, or None when the cache folder cannot
    be written (writing is then off for this process, after one warning)."""
    import json

    base = root()
    if str(base) in _unwritable:
        return None
    binary_path, meta_path = _paths(arch, entry_key)
    meta = {"format": FORMAT, "key": entry_key, "size": len(binary), "sha256": hashlib.sha256(binary).hexdigest(),
            "names": dict(names)}
    try:
        binary_path.parent.mkdir(parents=True, exist_ok=True)
        _write_atomically(binary_path, bytes(binary))
        _write_atomically(meta_path, (json.dumps(meta, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    except OSError as exc:
        with _lock:
            _unwritable.add(str(base))
        _warn(f"cannot write the kernel cache under {base} ({exc}); kernels are compiled without caching")
        return None
    return binary_path


def _write_atomically(path, data):
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        tmp = None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def info():
    """``{arch: (entries, bytes)}`` of the cache as it is on disk."""
    out = {}
    base = root()
    if not base.is_dir():
        return out
    for folder in sorted(p for p in base.iterdir() if p.is_dir()):
        metas = list(folder.glob("*.json"))
        size = sum(p.stat().st_size for p in folder.iterdir() if p.is_file())
        out[folder.name] = (len(metas), size)
    return out


def clear():
    """Delete every entry (and leftover temporary files); returns the number of files removed."""
    removed = 0
    base = root()
    if not base.is_dir():
        return 0
    for folder in (p for p in base.iterdir() if p.is_dir()):
        for path in folder.iterdir():
            if path.is_file() and (path.suffix in (".bin", ".json") or path.name.endswith(".tmp")):
                path.unlink()
                removed += 1
        try:
            folder.rmdir()
        except OSError:
            pass
    with _lock:
        _unwritable.discard(str(base))
    return removed


def _warn(message):
    warnings.warn(message, KernelCacheWarning, stacklevel=3)
