"""The offline compile check's answers shipped with the package.

The compile matrix proves that every source compiles for ``sm_90`` with NVRTC and for ``gfx90a``
and ``gfx940`` with Debian's hipcc (:mod:`rocarray._core.offline`); those compiles are most of its
time. The binaries of the check's own compiles (NVRTC's fast-compile mode and hipcc at
:data:`rocarray._core.offline.HIPCC_FAST_COMPILE`, one per source and target with all its
registered instantiations) ship under ``rocarray/_data/offline/<arch>/``:

* ``<key>.o.xz``: the object hipcc wrote or the CUBIN NVRTC returned, xz-compressed;
* ``manifest.json``: ``{"format": 1, "arch": ..., "compiler": <identity>, "entries": {key:
  {"file": "<key>.o.xz", "size": ..., "sha256": ..., "source": ..., "names": [...],
  "lowered": {...}}}}`` (size and digest of the uncompressed binary; NVRTC's lowered name of each
  name expression, which the matrix checks).

An entry's key is the offline cache's (:func:`rocarray._core.offline_cache.key`): the exact
pasted text, the name expressions, the options, the target, and the compiler's identity
(:func:`rocarray._core.offline_cache.hipcc_identity`: the executable, its ``--version`` and the
Debian package versions of the toolchain; :func:`rocarray._core.offline_cache.nvrtc_identity`:
NVRTC's version and the SHA-256 of its libraries). :func:`rocarray._core.offline.compile_text` answers a
compile from here when the offline cache has no entry and the key matches, so the check stands:
a source, header, option, instantiation or compiler that changed since the objects were built
has another key and compiles. An entry is used only when its file is named by its key and the
object's size and SHA-256 match. ``python -m rocarray prebuild --arch gfx90a`` (``--offline
--arch sm_90`` for NVRTC's) rebuilds them (:func:`rocarray._core.prebuild.build_offline`).
"""

import hashlib
import json
import lzma
import threading
from pathlib import Path

FORMAT = 1
MANIFEST = "manifest.json"
#: The architectures whose offline compiles ship.
ARCHS = ("sm_90", "gfx90a", "gfx940")
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
    """``(binary, lowered names)`` of the shipped compile ``entry_key`` of ``target``, or None (not
    shipped, :data:`ENABLED` off, or an entry that does not check out)."""
    if not ENABLED or target.arch not in ARCHS:
        return None
    entry = _entries(target.arch).get(entry_key)
    if not isinstance(entry, dict) or entry.get("file") != f"{entry_key}.o.xz":
        return None
    try:
        binary = lzma.decompress((folder(target.arch) / entry["file"]).read_bytes())
    except (OSError, lzma.LZMAError):
        return None
    lowered = entry.get("lowered", {})
    if (len(binary) != entry.get("size") or hashlib.sha256(binary).hexdigest() != entry.get("sha256")
            or not isinstance(lowered, dict)):
        return None
    return binary, lowered


def write(arch, compiler, results):
    """Replace ``arch``'s shipped objects with ``results``: ``[(key, label, names, binary,
    lowered)]``. Returns the bytes written (compressed)."""
    target = folder(arch)
    target.mkdir(parents=True, exist_ok=True)
    entries, total = {}, 0
    for entry_key, label, names, binary, lowered in results:
        packed = lzma.compress(bytes(binary), preset=9 | lzma.PRESET_EXTREME)
        (target / f"{entry_key}.o.xz").write_bytes(packed)
        total += len(packed)
        entries[entry_key] = {"file": f"{entry_key}.o.xz", "size": len(binary),
                              "sha256": hashlib.sha256(binary).hexdigest(), "source": label, "names": list(names)}
        if lowered:
            entries[entry_key]["lowered"] = dict(lowered)
    meta = {"format": FORMAT, "arch": arch, "compiler": compiler, "entries": dict(sorted(entries.items()))}
    (target / MANIFEST).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for path in target.iterdir():
        if path.name.endswith(".o.xz") and path.name[:-len(".o.xz")] not in entries:
            path.unlink()
    forget(arch)
    return total
