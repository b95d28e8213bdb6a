"""The offline compile check's answers shipped with the package for the AMD targets.

The compile matrix proves that every source compiles for ``gfx90a`` and ``gfx940`` with Debian's
hipcc (:mod:`rocarray._core.offline`); those compiles are most of its time. The code objects of
the check's own compiles (hipcc at :data:`rocarray._core.offline.HIPCC_FAST_COMPILE`, one per
source and target with all its registered instantiations) ship under
``rocarray/_data/offline/<arch>/``:

* ``<key>.o.xz``: the object hipcc wrote, xz-compressed;
* ``manifest.json``: ``{"format": 1, "arch": ..., "compiler": <hipcc identity>, "entries": {key:
  {"file": "<key>.o.xz", "size": ..., "sha256": ..., "source": ..., "names": [...]}}}`` (size
  and digest of the uncompressed object).

An entry's key is the offline cache's (:func:`rocarray._core.offline_cache.key`): the exact
pasted text, the name expressions, the options, the target, and the compiler's identity
(:func:`rocarray._core.offline_cache.hipcc_identity`: the executable, its ``--version`` and the
Debian package versions of the toolchain). :func:`rocarray._core.offline.compile_text` answers a
compile from here when the offline cache has no entry and the key matches, so the check stands:
a source, header, option, instantiation or compiler that changed since the objects were built
has another key and compiles. An entry is used only when its file is named by its key and the
object's size and SHA-256 match. ``python -m rocarray prebuild --arch gfx90a`` rebuilds them
(:func:`rocarray._core.prebuild.build_offline`).
"""

import hashlib
import json
import lzma
import threading
from pathlib import Path

FORMAT = 1
MANIFEST = "manifest.json"
#: The architectures whose offline compiles ship.
ARCHS = ("gfx90a", "gfx940")
#: Answer the offline check from the shipped objects (False: compile every pair).
ENABLED = True

_lock = threading.Lock()
_manifests = {}


def folder(arch):
    """The folder of ``arch``'s shipped offline objects (inside the package)."""
    return Path(__file__).resolve().parent.parent / "_data" / "offline" / str(arch)


def read_manifest(arch):
    """``arch``'s manifest as a dict, or None when there is none or it is not of this format."""
    try:
        meta = json.loads((folder(arch) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if (not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("arch") != arch
            or not isinstance(meta.get("entries"), dict)):
        return None
    return meta


def forget(arch=None):
    """Forget the manifests read so far (after a rebuild)."""
    with _lock:
        if arch is None:
            _manifests.clear()
        else:
            _manifests.pop(arch, None)


def _entries(arch):
    with _lock:
        if arch not in _manifests:
            meta = read_manifest(arch)
            _manifests[arch] = meta["entries"] if meta else {}
        return _manifests[arch]


def lookup(target, entry_key):
    """``(object, {})`` of the shipped compile ``entry_key`` of ``target``, or None (not shipped,
    :data:`ENABLED` off, or an entry that does not check out)."""
    if not ENABLED or not target.is_hip:
        return None
    entry = _entries(target.arch).get(entry_key)
    if not isinstance(entry, dict) or entry.get("file") != f"{entry_key}.o.xz":
        return None
    try:
        binary = lzma.decompress((folder(target.arch) / entry["file"]).read_bytes())
    except (OSError, lzma.LZMAError):
        return None
    if len(binary) != entry.get("size") or hashlib.sha256(binary).hexdigest() != entry.get("sha256"):
        return None
    return binary, {}


def write(arch, compiler, results):
    """Replace ``arch``'s shipped objects with ``results``: ``[(key, label, names, binary)]``.
    Returns the bytes written (compressed)."""
    target = folder(arch)
    target.mkdir(parents=True, exist_ok=True)
    entries, total = {}, 0
    for entry_key, label, names, binary in results:
        packed = lzma.compress(bytes(binary), preset=9 | lzma.PRESET_EXTREME)
        (target / f"{entry_key}.o.xz").write_bytes(packed)
        total += len(packed)
        entries[entry_key] = {"file": f"{entry_key}.o.xz", "size": len(binary),
                              "sha256": hashlib.sha256(binary).hexdigest(), "source": label, "names": list(names)}
    meta = {"format": FORMAT, "arch": arch, "compiler": compiler, "entries": dict(sorted(entries.items()))}
    (target / MANIFEST).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for path in target.iterdir():
        if path.name.endswith(".o.xz") and path.name[:-len(".o.xz")] not in entries:
            path.unlink()
    forget(arch)
    return total
