"""Measured choice among kernel variants, persisted per architecture and rocarray version.

This is MIOpen's find-db for every rocarray library. A library that has several ways to run one
problem (tile sizes, items per thread, one-pass or two-pass reductions, ...) asks :func:`choose`
which to use for a *problem key*. The first time a key is seen on an architecture, every candidate
is timed through the library's ``measure`` callback and the fastest one is stored in

    ``$ROCARRAY_CACHE_DIR/tune/<arch>/<rocarray-version>.json``

so later runs (and later processes) get the answer from a dictionary. ``ROCARRAY_TUNE`` picks the
mode (:func:`rocarray._core.config.tune_mode`):

=========  =====================================================================================
``0``      never measure and never read the DB: return the library's heuristic ``default``
``1``      (default) use the stored winner; measure and store keys that are not stored yet
``force``  measure every key again once per process, overwriting what was stored
=========  =====================================================================================

Candidates
----------
A candidate is identified by its **name**, a string: ``candidate.name`` for objects (a variant
dataclass, say ``_ScanVariant(name='items8', items=8, block=256)``), or the string itself when the
candidate is a ``str``. Names must be unique among the candidates of one call; the DB stores names
only, so variants can carry anything (block sizes, callables) without it reaching the JSON file.
A stored name that is no longer among the candidates (the library's variants changed) is treated
as unseen and measured again.

Keys
----
The DB key is the string ``'<op>|<part>|<part>...'`` built from ``op`` and the ``key`` tuple:
NumPy dtypes and scalar types are written by name (``float32``), nested tuples in parentheses,
everything else with ``str``. Keys should name a *class* of problems (dtype, layout,
``length_class(n)``), not every exact size, so the DB stays small and tuning runs rarely.

File format and robustness
--------------------------
``{"format": 1, "arch": ..., "version": ..., "entries": {key: {"choice": name,
"seconds": {name: s or null}, "tuned": iso-date}}}``. Writes go to a temporary file in the same
folder followed by :func:`os.replace`, so readers never see a half-written file; before writing,
the file is read again and merged so two processes tuning different keys keep both answers. A
file that cannot be parsed is ignored with a :class:`TuningDBWarning` (and replaced on the next
write). Each file is read once per process and kept in an in-memory cache (:func:`clear_cache`
drops it).
"""

import datetime
import json
import math
import os
import tempfile
import threading
import warnings
from pathlib import Path

import numpy

from rocarray._core import config, plans

FORMAT = 1

# Show a tqdm progress bar (when tqdm is installed) from this many candidates on.
PROGRESS_MIN_CANDIDATES = 8

_lock = threading.RLock()
_db = {}        # Path -> {key: entry}; the in-memory copy of each file read so far
_forced = set()  # (Path, key) re-tuned in this process under ROCARRAY_TUNE=force
_decided = {}  # (op, key, arch, version, state_token()) -> name of the chosen candidate
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


def db_path(arch=None, version=None):
    """The JSON file holding the tuning results of ``arch`` for ``version``.

    Parameters
    ----------
    arch : str, optional
        ``'gfx942'``, ``'sm_90'``, ...; default: the current device's architecture.
    version : str, optional
        Default: the running rocarray version.

    Returns
    -------
    pathlib.Path
    """
    if arch is None:
        arch = _device_arch()
    if version is None:
        from rocarray._version import __version__ as version
    return Path(config.cache_dir()) / "tune" / str(arch) / f"{version}.json"


# --------------------------------------------------------------------------------------------
# the file
# --------------------------------------------------------------------------------------------

def _read_file(path, quiet=False):
    """Entries stored in ``path``; ``{}`` when missing or unreadable (warning for the latter)."""
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


def _write_file(path, entries, arch, version):
    """Write ``entries`` to ``path`` atomically (temporary file in the same folder + os.replace)."""
    data = {"format": FORMAT, "arch": arch, "version": version, "entries": dict(sorted(entries.items()))}
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


def lookup(op, key, arch=None, version=None):
    """The stored entry for ``op``/``key``, or ``None``.

    Returns
    -------
    dict or None
        ``{'choice': name, 'seconds': {name: seconds or None}, 'tuned': iso-date}``.
    """
    path = db_path(arch, version)
    with _lock:
        entry = _entries(path).get(make_key(op, key))
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


def choose(op, key, candidates, measure, default, *, arch=None, version=None):
    """Pick the fastest of ``candidates`` for a problem, measuring once per architecture.

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
        A candidate whose measurement raises is skipped with a warning; if all fail, the first
        error is raised.
    default : candidate, str or callable
        The heuristic choice used when tuning is off (``ROCARRAY_TUNE=0``): a candidate, its name,
        or a zero-argument callable returning one (evaluated only when needed).
    arch : str, optional
        Architecture for the DB path; default: the current device's (tests pass one).
    version : str, optional
        rocarray version for the DB path; default: the running one.

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
    ...                  measure=_time_scan_variant, default=_heuristic)  # doctest: +SKIP
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

    mode = config.tune_mode()
    if mode == "0":
        return _resolve_default(default, by_name)
    if isinstance(default, str) or not callable(default):
        _resolve_default(default, by_name)  # a wrong default is a bug: say so in every mode
    if len(candidates) == 1:
        return candidates[0]

    if version is None:
        from rocarray._version import __version__ as version
    if arch is None:
        arch = _device_arch()
    # A decision already read or measured in this process: no path, key or file work.
    try:
        memo_key = (op, key, arch, version, state_token())
        known = _decided.get(memo_key)
    except TypeError:  # an unhashable key: take the long way
        memo_key = known = None
    if known is not None and known in by_name:
        return by_name[known]

    path = db_path(arch, version)
    db_key = make_key(op, key)

    with _lock:
        entries = _entries(path)
        stored = entries.get(db_key)
        fresh = mode != "force" or (path, db_key) in _forced
        if stored is not None and fresh and stored["choice"] in by_name:
            if memo_key is not None:
                _decided[memo_key] = stored["choice"]
            return by_name[stored["choice"]]

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
        _write_file(path, merged, arch, version)
        _db[path] = merged
        if mode == "force":
            _forced.add((path, db_key))
        if memo_key is not None:
            _decided[memo_key] = winner
        return by_name[winner]
