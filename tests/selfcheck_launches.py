"""Which kernels the self-checks launch, found on the CPU.

:func:`launches_of_self_checks` runs every registered self-check (``rocarray/_checks``) with
launchfake's recording device (kernels are recorded, never run) and the emulator's NumPy stand-in
for CuPy (``tests/emu_cupy.py``), so the host-side code of the checks and the libraries runs as it
would on the GPU. Since no kernel runs, the checks' comparisons would fail at their first case and
stop the check: the check modules are loaded from their source with every ``raise AssertionError``
and ``assert`` statement removed and ``harness.assert_close`` made a no-op, so each check goes
through all its cases. A check still stops where the host reads a device value that decides what
to launch next (a count, a pivot), where the stand-in lacks a CuPy feature, or after
:data:`LAUNCH_BUDGET` launches (a solver iterating on values no kernel computed); the result says
where, per check. Device facts are an H100's (launchfake's sm_90 profile with its opt-in shared
memory), so plans choose the kernels they choose there.
"""

import ast
import ctypes
import gc
import importlib
import pkgutil
import traceback

import numpy as np

import emu_cupy
import launchfake

#: Launches a check may make here: iterative solvers loop on values no kernel computed (they run
#: to their iteration limit); the kernels of an iteration are all launched long before this.
LAUNCH_BUDGET = 5000


class LaunchBudgetSpent(Exception):
    """A check made :data:`LAUNCH_BUDGET` launches (it is stopped there)."""


#: Shared memory per block an H100 grants on request (227 KiB).
H100_SHARED_OPTIN = 232448


def _raises_assertion_error(node):
    exc = node.exc if isinstance(node, ast.Raise) else None
    return isinstance(exc, ast.Call) and isinstance(exc.func, ast.Name) and exc.func.id == "AssertionError"


class _NoComparisons(ast.NodeTransformer):
    """Removes ``raise AssertionError(...)`` and ``assert`` statements, and an ``if`` whose body
    only raises ``AssertionError`` (and has no ``else``) with its test: the test is a comparison
    whose outcome is dropped anyway, and computing it (``allclose`` of large arrays) was most of
    the host time of some checks. A test that launched a kernel would lose that launch, and the
    coverage test would then report the kernel as not launched."""

    def visit_If(self, node):
        if not node.orelse and all(_raises_assertion_error(statement) for statement in node.body):
            return ast.copy_location(ast.Pass(), node)
        return self.generic_visit(node)

    def visit_Raise(self, node):
        if _raises_assertion_error(node):
            return ast.copy_location(ast.Pass(), node)
        return node

    def visit_Assert(self, node):
        return ast.copy_location(ast.Pass(), node)


def _plain(nbytes):
    """Host memory for a stand-in device array: 512-byte aligned, no guard page (thousands of
    arrays are made; kernels never run)."""
    raw = np.empty(int(nbytes) + 512, np.uint8)
    start = (-raw.ctypes.data) % 512
    return raw[start:start + int(nbytes)]


def _view_new(cls, shape, dtype=float, memptr=None, strides=None, order="C"):
    """``cupy.ndarray(shape, dtype, memptr=..., strides=...)`` over the host address of ``memptr``."""
    if memptr is None:
        return emu_cupy.empty(shape, dtype, order)
    dtype = np.dtype(dtype)
    shape = (int(shape),) if np.isscalar(shape) else tuple(int(d) for d in shape)
    steps = strides if strides is not None else _c_strides(shape, dtype.itemsize)
    extent = dtype.itemsize + sum((d - 1) * abs(s) for d, s in zip(shape, steps)) if all(shape) else 0
    buffer = (ctypes.c_char * max(extent, 1)).from_address(memptr.ptr)
    return np.ndarray.__new__(cls, shape, dtype, buffer=buffer, strides=strides)


def _c_strides(shape, item):
    strides, step = [], item
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return tuple(reversed(strides))


class _Event:
    def __init__(self, *args, **kwargs):
        pass

    def record(self, *args):
        pass

    def synchronize(self):
        pass


def _get(self, stream=None, out=None, blocking=True, **kwargs):
    if out is None:
        return np.array(self)
    out[...] = np.asarray(self)
    return out


def _set(self, values, stream=None):
    np.ndarray.__setitem__(self, Ellipsis, values)


def extend_standin(ns, monkeypatch):
    """Give the NumPy stand-in for CuPy ``ns`` (``emu_cupy.namespace()``) what the self-checks'
    host code uses beyond it: ``cupy.ndarray(shape, dtype, memptr=..., strides=...)`` views,
    ``get(out=..., blocking=...)``, ``set``, pinned host memory and events (which do nothing: one
    stream)."""
    ns.cuda.alloc_pinned_memory = lambda nbytes: bytearray(max(int(nbytes), 8))
    ns.cuda.Event = _Event
    monkeypatch.setattr(emu_cupy.DeviceArray, "__new__", _view_new, raising=False)
    monkeypatch.setattr(emu_cupy.DeviceArray, "get", _get)
    monkeypatch.setattr(emu_cupy.DeviceArray, "set", _set, raising=False)
    return ns


def _minmax_keys_of(launching):
    def minmax_keys(xf):
        launching(xf)
        h = np.asarray(xf)
        if h.dtype.kind == "i":
            keys = h.astype(np.int64).view(np.uint64) ^ np.uint64(1 << 63)
        else:
            keys = h.astype(np.uint64)
        return int(keys.min()), int(keys.max())
    return minmax_keys


def _load_without_comparisons(monkeypatch, harness):
    """Every check module of ``rocarray._checks``, compiled with its comparisons removed, its
    checks registered in a fresh table (returned)."""
    import rocarray._checks as package

    registry = {}
    monkeypatch.setattr(harness, "_self_checks", registry)
    monkeypatch.setattr(harness, "_bench_cases", {})
    for info in pkgutil.iter_modules(package.__path__, prefix=package.__name__ + "."):
        spec = importlib.util.find_spec(info.name)
        with open(spec.origin, encoding="utf-8") as f:
            tree = _NoComparisons().visit(ast.parse(f.read(), spec.origin))
        module = importlib.util.module_from_spec(spec)
        exec(compile(ast.fix_missing_locations(tree), spec.origin, "exec"), module.__dict__)
    return registry


def launches_of_self_checks(fake_device, monkeypatch, name_filter=None):
    """``{check name: (kernel names launched, None or where and why the check stopped)}``."""
    from rocarray._core import backend, harness, plans, workspace

    ns = extend_standin(emu_cupy.namespace(), monkeypatch)
    monkeypatch.setattr(emu_cupy, "_guarded", _plain)
    monkeypatch.setattr(backend, "_cupy", [ns])
    monkeypatch.setattr(backend, "cupy_module", lambda: ns)
    # an H100's opt-in shared memory per block (launchfake's profile has the 48 KiB default), so
    # plans choose the kernels they choose there
    monkeypatch.setattr(backend, "shared_memory_limit", lambda device_id=None: H100_SHARED_OPTIN)
    # tensor maps are encoded by the driver, which this machine lacks: an all-zero map stands in
    from rocarray._core import tensor_maps
    monkeypatch.setattr(tensor_maps, "_encoder", lambda: lambda *args: 0)
    # unique's choice of path reads the input's minimum and maximum back from the device: the
    # launch is recorded, the keys come from the input (host memory here)
    from rocarray.prim import _unique
    monkeypatch.setattr(_unique, "_minmax_keys", _minmax_keys_of(_unique._minmax_keys))
    monkeypatch.setattr(harness, "assert_close", lambda *args, **kwargs: None)
    monkeypatch.setattr(np.testing, "assert_allclose", lambda *args, **kwargs: None)
    registry = _load_without_comparisons(monkeypatch, harness)
    record = launchfake._Function.__call__
    budget = [0]

    def counted(self, *args, **kwargs):
        budget[0] -= 1
        if budget[0] < 0:
            raise LaunchBudgetSpent(f"{LAUNCH_BUDGET} launches")
        return record(self, *args, **kwargs)

    monkeypatch.setattr(launchfake._Function, "__call__", counted)
    result = {}
    # each check's garbage is collected after it; everything older (the test session's objects:
    # in a whole-suite run, millions) is frozen out of those collections, which otherwise spent
    # most of this test's time walking it
    gc.collect()
    gc.freeze()
    try:
        for name in sorted(registry):
            if name_filter and name_filter not in name:
                continue
            result[name] = _run_one(registry[name], fake_device, budget)
            plans.cache.clear()
            workspace.free_workspaces()
            gc.collect()
    finally:
        gc.unfreeze()
    return result


def _run_one(check, fake_device, budget):
    """``(kernel names launched, None or where and why the check stopped)`` of one check."""
    from rocarray._core import harness

    first = len(fake_device.launches)
    budget[0] = LAUNCH_BUDGET
    stopped = None
    try:
        check.run(np.random.default_rng(0))
    except harness.Unavailable as exc:
        stopped = f"unavailable here: {exc}"
    except Exception as exc:  # where the host needed a device value, or the stand-in fell short
        frames = traceback.extract_tb(exc.__traceback__)[-2:]
        where = " <- ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno}" for f in reversed(frames))
        stopped = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120] if str(exc) else ''} ({where})"
    return sorted({launch.name for launch in fake_device.launches[first:]}), stopped
