"""Measured choice among kernel variants, persisted per architecture: MIOpen's find-db for every
rocarray library.

A library that has several ways to run one problem (tile sizes, items per thread, one or two
passes) asks :func:`choose` which to use for a *problem key*. A user's call never waits for a
tuner unless the user asked for tuning: by default the answer is the tuning DB's entry for the key
when there is one, else the library's heuristic. Tuning is asked for with ``ROCARRAY_TUNE=1``, with
the :func:`tune` context manager (``ra.tune()``) around the calls to tune, or with
``python -m rocarray tune``; then every candidate of an unseen key is timed through the library's
``measure`` callback and the fastest is stored in

    ``$ROCARRAY_CACHE_DIR/tune/<arch>.json``

so later calls and later processes read the answer from memory. ``ROCARRAY_TUNE`` picks the mode
(:func:`rocarray._core.config.tune_mode`; :func:`tune` overrides it for the calls it wraps):

==========  ====================================================================================
``db``      (default) the stored winner, else the heuristic ``default``; never measures
``0``       the heuristic ``default`` only: neither measures nor reads the DB
``1``       the stored winner; measures and stores keys that are not stored yet
``force``   measures every key again once per process, overwriting what was stored
==========  ====================================================================================

Behind the user's DB stands the DB shipped with rocarray for its tested architectures
(``rocarray/_data/tune/<arch>.json``, read only): an entry of the user's wins, one of the shipped
DB answers otherwise. :func:`export_db` and :func:`import_db` (``python -m rocarray tune --export
FILE`` / ``--import FILE``) move entries between machines.

Candidates
----------
A candidate is identified by its **name**, a string: ``candidate.name`` for objects (a variant
dataclass, say ``_ScanVariant(name='items8', items=8, block=256)``), or the string itself when the
candidate is a ``str``. Names must be unique among the candidates of one call; the DB stores names
only, so variants can carry anything (block sizes, callables) without it reaching the JSON file.
A stored name that is no longer among the candidates (the library's variants changed) is treated
as unseen.

Keys
----
The DB key is the string ``'<op>|<part>|<part>...'`` built from ``op`` and the ``key`` tuple:
NumPy dtypes and scalar types are written by name (``float32``), nested tuples in parentheses,
everything else with ``str``. Keys should name a *class* of problems (dtype, layout,
``length_class(n)``), not every exact size, so the DB stays small and tuning runs rarely. When the
library names the kernel sources its candidates run (``sources=``), the key ends with
``|src=<hash>``, a digest of those sources as compiled (headers pasted in): editing a kernel drops
only the entries of the operations that use it.

File format and robustness
--------------------------
``{"format": 2, "arch": ..., "entries": {key: {"choice": name, "seconds": {name: s or null},
"tuned": iso-date}}}``. Writes go to a temporary file in the same folder followed by
:func:`os.replace`, so readers never see a half-written file; before writing, the file is read
again and merged so two processes tuning different keys keep both answers. A file that cannot be
parsed is ignored with a :class:`TuningDBWarning` (and replaced on the next write). Nothing read
is executed: entries are plain JSON checked field by field. Each file is read once per process and
kept in memory (:func:`clear_cache` drops it).
"""

import math
import os
import threading
import warnings
from pathlib import Path

import numpy

from rocarray._core import config, plans

FORMAT = 2

# Show a tqdm progress bar (when tqdm is installed) from this many candidates on.
PROGRESS_MIN_CANDIDATES = 8

_lock = threading.RLock()
_db = {}        # Path -> {key: entry}; the in-memory copy of each file read so far
_forced = set()  # (Path, key) re-tuned in this process under ROCARRAY_TUNE=force
_decided = {}  # (op, key, sources, arch, state_token()) -> name of the chosen candidate
_override = threading.local()  # .mode: the tuning mode inside tune()
_generation = 0  # bumped by clear_cache()


class TuningDBWarning(UserWarning):
    """The tuning DB file could not be read or written; tuning goes on without it."""


# --------------------------------------------------------------------------------------------
# names, keys, paths
# --------------------------------------------------------------------------------------------

def candidate_name(candidate):
    """The name that identifies ``candidate`` in the DB.

    Parameters
    ----------
    candidate : str or object with a ``name`` attribute

    Returns
    -------
    str

    Raises
    ------
    TypeError
        When ``candidate`` is neither a string nor has a string ``name``.
    """
    if isinstance(candidate, str):
        return candidate
    name = getattr(candidate, "name", None)
    if not isinstance(name, str):
        raise TypeError(
            f"a tuning candidate must be a str or have a str 'name' attribute, not {candidate!r}"
        )
    return name


def _key_part(part):
    if isinstance(part, numpy.dtype):
        return part.name
    if isinstance(part, type) and issubclass(part, numpy.generic):
        return numpy.dtype(part).name
    if isinstance(part, (tuple, list)):
        return "(" + ",".join(_key_part(p) for p in part) + ")"
    if isinstance(part, numpy.generic):
        return str(part.item())
    return str(part)


def make_key(op, key):
    """The DB key string for ``op`` and a problem ``key``.

    Parameters
    ----------
    op : str
        Library-qualified operation, e.g. ``'prim.scan'``.
    key : tuple or scalar
        What distinguishes problems for this op (dtypes, layout, size class).

    Returns
    -------
    str

    Examples
    --------
    >>> import numpy as np
    >>> make_key("rocblas.dot", (np.float32, "large"))
    'rocblas.dot|float32|large'
    """
    parts = key if isinstance(key, (tuple, list)) else (key,)
    return "|".join([str(op)] + [_key_part(p) for p in parts])


def _device_arch():
    from rocarray._core import backend

    return backend.device_info().arch


def db_path(arch=None):
    """The user's JSON file holding the tuning results of ``arch``.

    Parameters
    ----------
    arch : str, optional
        ``'gfx942'``, ``'sm_90'``, ...; default: the current device's architecture.

    Returns
    -------
    pathlib.Path
    """
    if arch is None:
        arch = _device_arch()
    return Path(config.cache_dir()) / "tune" / f"{arch}.json"


def shipped_db_path(arch):
    """The read-only DB shipped with rocarray for ``arch`` (it may not exist)."""
    return Path(__file__).resolve().parent.parent / "_data" / "tune" / f"{arch}.json"


_source_digests = {}


def sources_digest(sources):
    """A digest of kernel sources as they are compiled (headers pasted in), 16 hex digits."""
    sources = tuple(sources)
    digest = _source_digests.get(sources)
    if digest is None:
        import hashlib

        from rocarray._core import compile as _compile

        h = hashlib.sha256()
        for source in sources:
            h.update(source.encode())
            h.update(b"\x00")
            h.update(_compile.full_source(source).encode())
        digest = _source_digests[sources] = h.hexdigest()[:16]
    return digest


# --------------------------------------------------------------------------------------------
# the file
# --------------------------------------------------------------------------------------------

def _read_file(path, quiet=False):
    """Entries stored in ``path``; ``{}`` when missing or unreadable (warning for the latter)."""
    import json
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        if not quiet:
            warnings.warn(f"cannot read tuning DB {path} ({exc}); ignoring it", TuningDBWarning,
                          stacklevel=4)
        return {}
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not a format-{FORMAT} tuning DB")
        entries = data.get("entries")
        if not isinstance(entries, dict) or not all(
            isinstance(e, dict) and isinstance(e.get("choice"), str) for e in entries.values()
        ):
            raise ValueError("bad 'entries'")
    except ValueError as exc:  # json.JSONDecodeError is a ValueError
        if quiet:
            return {}
        warnings.warn(
            f"tuning DB {path} is corrupt ({exc}); ignoring it (it is rewritten on the next tune)",
            TuningDBWarning,
            stacklevel=4,
        )
        return {}
    return entries


def _write_file(path, entries, arch):
    """Write ``entries`` to ``path`` atomically (temporary file in the same folder + os.replace)."""
    import json
    import tempfile

    data = {"format": FORMAT, "arch": arch, "entries": dict(sorted(entries.items()))}
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
            f.write("\n")
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        warnings.warn(f"cannot write tuning DB {path} ({exc}); the choice is kept in memory only",
                      TuningDBWarning, stacklevel=4)
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _entries(path):
    entries = _db.get(path)
    if entries is None:
        entries = _db[path] = _read_file(path)
    return entries


def clear_cache():
    """Forget the in-memory copies of the DB files (the files stay; the next lookup re-reads them)
    and the plans chosen from them."""
    global _generation
    with _lock:
        _db.clear()
        _forced.clear()
        _decided.clear()
        _generation += 1
    plans.cache.clear()


config.on_refresh(clear_cache)


def state_token():
    """A value that changes whenever a remembered choice may no longer hold: every
    :func:`clear_cache` and every :func:`rocarray._core.config.refresh` (a changed tuning mode,
    cache location or float32 gemm setting)."""
    return _generation


def mode():
    """The tuning mode now: ``'0'`` (heuristics only) in deterministic mode
    (:class:`rocarray._core.config.deterministic`), else the innermost :func:`tune` of this thread,
    else ``ROCARRAY_TUNE``."""
    if config.is_deterministic():
        return "0"
    return getattr(_override, "mode", None) or config.tune_mode()


class tune:
    """Tune the rocarray calls inside the ``with`` block (``ra.tune()``): every problem that has
    candidates and no DB entry is timed once and the winner stored (``force=True``: timed again even
    when stored). Outside the block, calls read the DB and never time anything.

    Parameters
    ----------
    force : bool, optional
        Re-tune problems already in the DB.

    Examples
    --------
    >>> with ra.tune():                      # doctest: +SKIP
    ...     ra.matmul(a, b)                  # times the gemm candidates of this shape class once
    """

    def __init__(self, force=False):
        self._mode = "force" if force else "1"
        self._saved = []

    def __enter__(self):
        self._saved.append(getattr(_override, "mode", None))
        _override.mode = self._mode
        plans.cache.clear()  # plans chosen without tuning are chosen again
        return self

    def __exit__(self, *exc):
        _override.mode = self._saved.pop()
        return False


def _db_key(op, key, sources):
    db_key = make_key(op, key)
    return f"{db_key}|src={sources_digest(sources)}" if sources else db_key


def _shipped(arch):
    path = shipped_db_path(arch)
    entries = _db.get(("shipped", path))
    if entries is None:
        entries = _db[("shipped", path)] = _read_file(path)
    return entries


def lookup(op, key, arch=None, *, sources=()):
    """The stored entry for ``op``/``key`` (the user's DB first, then the shipped one), or ``None``.

    Returns
    -------
    dict or None
        ``{'choice': name, 'seconds': {name: seconds or None}, 'tuned': iso-date}``.
    """
    if arch is None:
        arch = _device_arch()
    db_key = _db_key(op, key, sources)
    with _lock:
        entry = _entries(db_path(arch)).get(db_key) or _shipped(arch).get(db_key)
    return dict(entry) if entry is not None else None


# --------------------------------------------------------------------------------------------
# choosing
# --------------------------------------------------------------------------------------------

def _resolve_default(default, by_name):
    if isinstance(default, str):
        if default not in by_name:
            raise ValueError(f"default {default!r} is not one of the candidates {sorted(by_name)}")
        return by_name[default]
    name = getattr(default, "name", None)
    if isinstance(name, str) and by_name.get(name) is default:
        return default
    if callable(default):
        return _resolve_default(default(), by_name)
    if isinstance(name, str) and name in by_name:
        return by_name[name]
    raise ValueError(f"default {default!r} is not one of the candidates {sorted(by_name)}")


def _progress(candidates, op):
    if len(candidates) < PROGRESS_MIN_CANDIDATES:
        return candidates
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return candidates
    return tqdm(candidates, desc=f"rocarray: tuning {op}", unit="variant", leave=False)


def _measure_all(op, candidates, measure):
    seconds, first_error = {}, None
    for candidate in _progress(candidates, op):
        name = candidate_name(candidate)
        try:
            t = float(measure(candidate))
            if not math.isfinite(t) or t < 0:
                raise ValueError(f"measure returned {t!r}")
        except Exception as exc:  # a variant that cannot run here (resources, launch limits)
            warnings.warn(f"tuning {op}: candidate {name!r} failed ({type(exc).__name__}: {exc}); "
                          "skipping it", TuningDBWarning, stacklevel=4)
            seconds[name] = None
            first_error = first_error or exc
            continue
        seconds[name] = t
    timed = {n: t for n, t in seconds.items() if t is not None}
    if not timed:
        raise first_error
    return min(timed, key=timed.get), seconds


def choose(op, key, candidates, measure, default, *, arch=None, sources=()):
    """Pick the fastest of ``candidates`` for a problem: the DB's answer, the heuristic, or (when
    tuning is asked for) a measurement, stored for later.

    Parameters
    ----------
    op : str
        Library-qualified operation name, e.g. ``'rocblas.dot'``.
    key : tuple or scalar
        The problem class (see :func:`make_key`).
    candidates : sequence of str or objects with a ``name`` attribute
        The variants; names must be unique.
    measure : callable
        ``measure(candidate) -> seconds``: runs the candidate on representative data and returns
        its time (the library decides how: device events after warm-up, median of a few runs).
        Called only in the tuning modes. A candidate whose measurement raises is skipped with a
        warning; if all fail, the first error is raised.
    default : candidate, str or callable
        The heuristic choice, used without a DB entry outside tuning and always under
        ``ROCARRAY_TUNE=0``: a candidate, its name, or a zero-argument callable returning one
        (evaluated only when needed).
    arch : str, optional
        Architecture of the DB; default: the current device's (tests pass one).
    sources : sequence of str, optional
        The kernel sources the candidates run (paths under ``_kernels/``): their digest becomes
        part of the key, so an edited kernel drops only its own entries.

    Returns
    -------
    object
        One of ``candidates`` (the object itself, not its name).

    Raises
    ------
    ValueError
        When ``candidates`` is empty, names repeat, or ``default`` is not a candidate.

    Examples
    --------
    >>> variant = choose("prim.scan", (np.float32, "add", "large"), _SCAN_VARIANTS,
    ...                  measure=_time_scan_variant, default=_heuristic,
    ...                  sources=("prim/scan.hip",))  # doctest: +SKIP
    """
    candidates = list(candidates)
    if not candidates:
        raise ValueError(f"tuning {op}: no candidates")
    by_name = {}
    for c in candidates:
        name = candidate_name(c)
        if name in by_name:
            raise ValueError(f"tuning {op}: candidate name {name!r} is not unique")
        by_name[name] = c

    current = mode()
    if current == "0":
        return _resolve_default(default, by_name)
    if isinstance(default, str) or not callable(default):
        _resolve_default(default, by_name)  # a wrong default is a bug: say so in every mode
    if len(candidates) == 1:
        return candidates[0]

    if arch is None:
        arch = _device_arch()
    sources = tuple(sources)
    # A decision already read or measured in this process: no path, key or file work.
    try:
        memo_key = (op, key, sources, arch, current, state_token())
        known = _decided.get(memo_key)
    except TypeError:  # an unhashable key: take the long way
        memo_key = known = None
    if known is not None and known in by_name:
        return by_name[known]

    path = db_path(arch)
    db_key = _db_key(op, key, sources)

    with _lock:
        entries = _entries(path)
        stored = entries.get(db_key)
        if stored is None or stored["choice"] not in by_name:
            stored = _shipped(arch).get(db_key)
        fresh = current != "force" or (path, db_key) in _forced
        if stored is not None and fresh and stored["choice"] in by_name:
            if memo_key is not None:
                _decided[memo_key] = stored["choice"]
            return by_name[stored["choice"]]
        if current == "db":
            chosen = _resolve_default(default, by_name)
            if memo_key is not None:
                _decided[memo_key] = candidate_name(chosen)
            return chosen

        import datetime

        winner, seconds = _measure_all(op, candidates, measure)
        entry = {
            "choice": winner,
            "seconds": seconds,
            "tuned": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        }
        # Merge with what other processes stored since this file was read, then write atomically.
        merged = _read_file(path, quiet=True)
        merged.update({k: v for k, v in entries.items() if k not in merged})
        merged[db_key] = entry
        _write_file(path, merged, arch)
        _db[path] = merged
        if current == "force":
            _forced.add((path, db_key))
        if memo_key is not None:
            _decided[memo_key] = winner
        return by_name[winner]


# --------------------------------------------------------------------------------------------
# moving DBs between machines
# --------------------------------------------------------------------------------------------

def export_db(path, arch=None):
    """Write the user's tuning DB of ``arch`` (default: the current device's) to ``path``;
    returns the number of entries written.

    Raises
    ------
    OSError
        When ``path`` cannot be written.
    """
    import json

    if arch is None:
        arch = _device_arch()
    with _lock:
        entries = dict(_read_file(db_path(arch)))
    path = Path(path)
    data = {"format": FORMAT, "arch": arch, "entries": dict(sorted(entries.items()))}
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return len(entries)


def import_db(path):
    """Merge the entries of an exported DB into the user's DB of its architecture (an imported
    entry replaces a stored one of the same key); returns ``(arch, entries merged)``.

    Raises
    ------
    ValueError
        When the file is not an exported tuning DB.
    """
    import json

    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the tuning DB {path}: {exc}") from None
    arch = data.get("arch") if isinstance(data, dict) else None
    if not isinstance(arch, str) or not arch or "/" in arch or arch.startswith("."):
        raise ValueError(f"{path} names no architecture")
    entries = _read_file(path, quiet=True)
    if not entries and data.get("entries"):
        raise ValueError(f"{path} is not a format-{FORMAT} tuning DB")
    target = db_path(arch)
    with _lock:
        merged = _read_file(target, quiet=True)
        merged.update(entries)
        _write_file(target, merged, arch)
        _db[target] = merged
        _decided.clear()
    plans.cache.clear()
    return arch, len(entries)
