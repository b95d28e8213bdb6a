"""Run rocarray's real kernel sources on the CPU, for small sizes: a test tool without a GPU.

A kernel (one name expression of one source, as the compile layer builds it) is the source's
pasted text (:func:`rocarray._core.compile.full_source`) after the host shim
``kernel_emu_shim.hpp``, compiled by g++ into a shared library (cached per text under
``$ROCARRAY_EMU_CACHE``, default ``<tmp>/rocarray-kernel-emu``) with generated C entry points:
one library per source and target for all the kernels the suite runs from it (:data:`MANIFEST`,
:func:`group`), so a cold run compiles each source's text about once per target.
What every library of a target shares is built once (:func:`_target_parts`): the shim's runtime
(scheduler, barriers, collectives, the launch loop) as an object linked into each library, which
keeps its own copy of the runtime's state, and the shim with the pasted headers as a precompiled
header, so a library's build compiles only its source and its kernel. The entry point
runs a launch: blocks one after another (a cooperative launch: all blocks together, each with its
own shared memory), a block as one fiber per GPU thread; it checks the
launch's argument count and each argument's byte width against the kernel's parameters. The shim's
header comment says what is modelled (barriers, warp collectives, atomics, shared memory) and
what is not. Two targets (:data:`TARGETS`): ``RA_CUDA`` with ``RA_CUDA_ARCH=0`` and 32-lane
warps, so every NVIDIA fast path is off and the portable paths run (inline PTX, the fp16
conversions among it, does not compile for the host and fails with :class:`Unsupported`); and
``RA_HIP`` with 64-lane wavefronts and no matrix cores, the lane groups and reductions of AMD's
CDNA GPUs.

The ``emulated_device`` fixture (``emulated_wave64_device``: the HIP target on a gfx942-like
profile) builds on ``launchfake.fake_device`` (its device profile, recorded launches, empty plan
cache and workspaces) and makes every kernel launch run here. The
library's host-side CuPy calls reach a NumPy stand-in (:mod:`emu_cupy`): device arrays are a
NumPy subclass whose ``.data.ptr`` is their host address, so CuPy's array functions, methods and
operators are NumPy's (CuPy mirrors them). What it lacks raises ``AttributeError`` naming it.

Usage::

    from kernel_emu import emulated_device  # noqa: F401 (the fixture)

    def test_scan(emulated_device):
        h = np.arange(100, dtype=np.int32)
        out = ra.prim.inclusive_scan(emulated_device.array(h))
        assert (np.asarray(out) == np.cumsum(h)).all()
"""

import contextlib
import ctypes
import dataclasses
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

import numpy as np
import pytest

from emu_cupy import DeviceArray, namespace
from launchfake import PROFILE, _Function, fake_device  # noqa: F401 (the fixture this one builds on)
from rocarray._core import backend
from rocarray._core import compile as _compile

SHIM = Path(__file__).with_name("kernel_emu_shim.hpp")
#: The defines of each target: NVIDIA's warp of 32 without any vendor fast path, and AMD's
#: wavefront of 64 (HIP's collectives, no matrix cores).
TARGETS = {"cuda32": ("-DRA_CUDA=1", "-DRA_CUDA_ARCH=0", "-DRA_WARP_SIZE=32"),
           "hip64": ("-DRA_HIP=1", "-DRA_WARP_SIZE=64")}
#: The way back to swapcontext for every switch between fibers (the shim's ``EMU_SWAPCONTEXT``);
#: by default a fiber's first run is setcontext and later switches _setjmp/_longjmp.
SWAPCONTEXT = False
# -fno-gnu-unique: each kernel library keeps its own shim state (launch, shared regions)
FLAGS = ("-std=c++17", "-O1", "-shared", "-fPIC", "-pthread", "-fno-gnu-unique", "-w") + \
    (("-DEMU_SWAPCONTEXT=1",) if SWAPCONTEXT else ())
#: The most dynamic shared memory a launch may ask for (sm_90's per-block limit).
DYNAMIC_SHARED_BYTES = 232448
#: Seconds a launch may run before the process is aborted (a spin-wait the emulator cannot serve).
TIMEOUT_S = float(os.environ.get("ROCARRAY_EMU_TIMEOUT", "120"))
#: Kernels whose grid is one thread-block cluster (``__cluster_dims__``): their launches run as
#: cooperative launches (all blocks together), with the shim's cluster model (``RA_EMU_CLUSTER``:
#: the cluster barrier and reads of another block's shared memory).
CLUSTER_KERNELS = frozenset({"ra_rocsolver_geqr2_cluster", "ra_rocsolver_getf2_cluster"})
#: Run each grid's blocks last to first: a kernel that assumes an order among independent blocks
#: gives other answers (one that spin-waits on an earlier block stops at the timeout).
REVERSE_BLOCKS = os.environ.get("ROCARRAY_EMU_REVERSE_BLOCKS", "0") == "1"


class Unsupported(RuntimeError):
    """A kernel the emulator cannot compile for the host (inline PTX, fp16 conversions)."""


class KernelFault(RuntimeError):
    """A launch the emulator stopped: a deadlock, a shuffle from a lane that did not take part,
    lanes at different collectives, an exception in a kernel thread."""


def compiler():
    """The g++ the emulator uses, or None."""
    return shutil.which(os.environ.get("ROCARRAY_EMU_CXX", "g++"))


def cache_dir():
    path = Path(os.environ.get("ROCARRAY_EMU_CACHE", Path(tempfile.gettempdir()) / "rocarray-kernel-emu"))
    path.mkdir(parents=True, exist_ok=True)
    return path


# `extern __shared__ [alignment] type name[];` (the buffer defined for it is 256-byte aligned)
_EXTERN_SHARED = re.compile(r"extern\s+__shared__\s+(?:__align__\(\d+\)\s+|alignas\(\d+\)\s+)?"
                            r"([\w:<>, ]+?)\s+(\w+)\s*\[\s*\]\s*;")


# `__shared__ type a[...], b;` (one statement, possibly several declarators)
_SHARED = re.compile(r"__shared__\s+([^;{}]+);")


def _shared_names(declaration):
    """The variable names of a ``__shared__`` statement's declarators."""
    flat = re.sub(r"\[[^\]]*\]", "", declaration)
    while re.search(r"<[^<>]*>", flat):
        flat = re.sub(r"<[^<>]*>", "", flat)
    return [re.findall(r"\w+", part)[-1] for part in flat.split(",")]


def translation_unit(source, names):
    """The host C++ text of the kernels ``names`` (``extern "C"`` names or name expressions; one
    name or a sequence) of ``source``: the shim, the pasted source with ``extern __shared__``
    arrays made plain ``extern`` ones and each ``__shared__`` statement followed by the
    registration of its variables (:func:`emu::shared_region`), the dynamic arrays' definitions,
    and per kernel ``i`` (its place in ``names``) the entry points ``emu_launch_<i>`` and
    ``emu_params_<i>``, with one ``emu_error``."""
    names = [names] if isinstance(names, str) else list(names)
    text = _compile.full_source(source)
    buffers = {}

    def plain_extern(match):
        ctype, var = match.groups()
        buffers.setdefault(var, ctype.strip())
        return f"extern {ctype} {var}[];"

    text = _EXTERN_SHARED.sub(plain_extern, text)
    sites = iter(range(1 << 30))

    def registered_shared(match):
        # the first thread to pass registers the variables: poisoned then and between blocks
        regions = " && ".join(f"emu::shared_region(&{v}, sizeof {v})" for v in _shared_names(match.group(1)))
        return f"{match.group(0)} static const bool emu_shared_{next(sites)} = {regions};"

    text = _SHARED.sub(registered_shared, text)
    defs = "".join(f"alignas(256) {t} {v}[({DYNAMIC_SHARED_BYTES} + sizeof({t}) - 1) / sizeof({t})];\n"
                   for v, t in buffers.items())
    # the dynamic arrays are registered once per library, by whichever kernel launches first
    register = "".join(f"    static const bool emu_dynamic_{v} = emu::shared_region({v}, sizeof {v});\n"
                       for v in buffers)
    entries = "".join(
        f'extern "C" int emu_launch_{i}(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,\n'
        f'                          void** args, double timeout, int reverse, int cooperative) {{\n'
        f'    emu_register_dynamic();\n'
        f'    return emu::launch(&{name}, dim3(gx, gy, gz), dim3(bx, by, bz), args, timeout, reverse,\n'
        f'                       cooperative, "{name}");\n}}\n'
        f'extern "C" int emu_params_{i}(unsigned long long* sizes) {{ return emu::param_sizes(&{name}, sizes); }}\n'
        for i, name in enumerate(names))
    return (f'#include "{SHIM}"\n{text}\n// ---- emulator entry points ----\n{defs}'
            f'static void emu_register_dynamic() {{\n{register}}}\n{entries}'
            f'extern "C" const char* emu_error() {{ return emu::error.c_str(); }}\n')


def _target_parts(defines):
    """What every kernel library of one target shares, built once in a cache folder (and
    memoized while its files exist): ``(prefix header, runtime object)``.

    * The prefix header holds :func:`prefix_text` (the shim and rocarray's pasted headers), with
      g++'s precompiled form (``.gch``) beside it. g++ uses the ``.gch`` only where the options it
      was made with match and reads the header where they do not (or it is missing), so the
      precompiled form saves time, never changes what is compiled.
    * The runtime object is the shim's ``EMU_RUNTIME`` part (the fiber scheduler, barriers, warp
      collectives, the launch loop), linked into each library: every library keeps its own copy
      of the runtime's state, and none compiles it again.
    """
    memo = (defines, str(cache_dir()))
    if memo in _parts and all(path.exists() for path in _parts[memo]):
        return _parts[memo]
    cxx = compiler()
    stamp = os.stat(cxx)
    identity = f"{cxx} {stamp.st_size} {int(stamp.st_mtime)}"
    text = prefix_text()
    key = hashlib.sha256((text + SHIM.read_text() + " ".join(defines + FLAGS) + identity).encode()).hexdigest()[:24]
    header = cache_dir() / f"prefix-{key}.hpp"
    pch = header.with_name(header.name + ".gch")
    runtime = cache_dir() / f"runtime-{key}.o"
    flags = [f for f in FLAGS if f != "-shared"]
    if not header.exists():
        tmp = header.with_name(f"{header.name}.{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, header)
    if not pch.exists():
        tmp = pch.with_name(f"{pch.name}.{os.getpid()}.tmp")
        run = subprocess.run([cxx, *flags, *defines, "-x", "c++-header", str(header), "-o", str(tmp)],
                             capture_output=True, text=True)
        if run.returncode == 0:
            os.replace(tmp, pch)
        else:  # the libraries then read the header itself, and report what fails in it
            tmp.unlink(missing_ok=True)
    if not runtime.exists():
        tmp = runtime.with_name(f"{runtime.name}.{os.getpid()}.tmp")
        run = subprocess.run([cxx, *flags, *defines, "-DEMU_RUNTIME", "-x", "c++", "-c", str(SHIM), "-o", str(tmp)],
                             capture_output=True, text=True)
        if run.returncode:
            raise Unsupported(f"g++ could not compile the emulator's runtime ({SHIM}):\n{run.stderr[-6000:]}")
        os.replace(tmp, runtime)
    _parts[memo] = header, runtime
    return _parts[memo]


_parts = {}


def prefix_text():
    """The text every kernel library's translation unit starts with: the shim and the pasted
    headers (:func:`rocarray._core.compile.header_text`), which hold no ``__shared__`` statement
    for :func:`translation_unit` to rewrite."""
    return f'#include "{SHIM}"\n{_compile.header_text()}'


def _compiler_identity(cxx):
    stamp = os.stat(cxx)
    return f"{cxx} {stamp.st_size} {int(stamp.st_mtime)}"


def _library(text, defines):
    """The shared library of one translation unit, built once per text, target, flags and g++
    (an on-disk cache every test file and process shares; a process building it holds a lock
    file, so another waits for it instead of building it too)."""
    cxx = compiler()
    if cxx is None:
        raise Unsupported("g++ is not installed")
    key = hashlib.sha256((text + SHIM.read_text() + " ".join(defines + FLAGS) + _compiler_identity(cxx))
                         .encode()).hexdigest()[:24]
    out = cache_dir() / f"{key}.so"
    if not out.exists():
        with _build_lock(cache_dir() / f"{key}.lock"):
            if not out.exists():
                _build(cxx, out, key, text, defines)
    return ctypes.CDLL(str(out))


@contextlib.contextmanager
def _build_lock(path):
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _build(cxx, out, key, text, defines):
    """Compile ``text`` into the library ``out`` (see :func:`_library`)."""
    header, runtime = _target_parts(defines)
    prefix = prefix_text()
    if text.startswith(prefix):  # the shared prefix comes from its precompiled header
        text = f'#include "{header}"\n{text[len(prefix):]}'
    src = cache_dir() / f"{key}.{os.getpid()}.cpp"
    src.write_text(text)
    tmp = out.with_suffix(f".{os.getpid()}.tmp")
    run = subprocess.run([cxx, *FLAGS, *defines, str(src), str(runtime), "-o", str(tmp)], capture_output=True,
                         text=True)
    if run.returncode:
        log = run.stderr
        if re.search(r"\basm\b|impossible constraint|no such instruction|invalid .*constraint", log):
            raise Unsupported(f"the kernel uses inline PTX (asm), which the host cannot run ({src}):\n"
                              f"{log[-3000:]}")
        raise Unsupported(f"g++ could not compile {src}:\n{log[-6000:]}")
    os.replace(tmp, out)
    src.unlink()  # kept when the compile fails, for reading


#: The kernels the test suite runs, per target and source of the package (kept current by
#: :func:`write_manifest` from a recorded run; tests/core/test_kernel_emu.py checks that every
#: name is still the source's).
MANIFEST = Path(__file__).with_name("kernel_emu_kernels.json")
#: Build one library per source and target holding every kernel :data:`MANIFEST` lists for it
#: (the first kernel asked for builds it; every later one, in any test file or process, finds
#: it in the cache): a cold run compiles each source's text once instead of once per kernel.
#: False builds one library per kernel.
GROUPED = True
_manifest_memo = []
_broken_groups = set()  # groups whose build failed in this process: their kernels build alone


def manifest():
    """:data:`MANIFEST` as ``{target: {source: [name, ...]}}`` (empty when absent)."""
    if not _manifest_memo:
        try:
            _manifest_memo.append(json.loads(MANIFEST.read_text(encoding="utf-8")))
        except FileNotFoundError:
            _manifest_memo.append({})
    return _manifest_memo[0]


def group(source, name, target):
    """The names built into one library with kernel ``name`` of ``source`` for ``target``: the
    manifest's list for the source when it holds ``name`` (and :data:`GROUPED`), else ``name``
    alone (a test-only source, or a kernel the manifest does not list yet)."""
    names = tuple(manifest().get(target, {}).get(source, ())) if GROUPED else ()
    if name in names and (source, target, names) not in _broken_groups:
        return names
    return (name,)


def _entry(source, name, target):
    """``(library, index of name's entry points)``, from the kernel's group's library; a group that
    does not build (a source edited since the manifest was written) falls back to the kernel alone."""
    names = group(source, name, target)
    try:
        return _library(translation_unit(source, names), TARGETS[target]), names.index(name)
    except Unsupported:
        if len(names) == 1:
            raise
        _broken_groups.add((source, target, names))
        return _library(translation_unit(source, name), TARGETS[target]), 0


def write_manifest(records, path=MANIFEST):
    """Write :data:`MANIFEST` from recorded runs: ``records`` are files of
    ``target<TAB>source<TAB>name`` lines (``ROCARRAY_EMU_RECORD``); test-only sources (absolute
    paths) are left out. Run every test that uses the emulator with ``ROCARRAY_EMU_RECORD`` set,
    then this."""
    out = {}
    for record in records:
        for line in Path(record).read_text(encoding="utf-8").splitlines():
            target, source, name = line.split("\t")
            if not os.path.isabs(source):
                out.setdefault(target, {}).setdefault(source, set()).add(name)
    data = {t: {s: sorted(n) for s, n in sorted(by.items())} for t, by in sorted(out.items())}
    Path(path).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    _manifest_memo.clear()


class EmulatedKernel:
    """One emulated kernel: ``kernel(grid, block, args, shared_mem)`` runs a launch (CuPy's call)."""

    def __init__(self, source, name, target):
        self.source, self.name, self.target = source, name, target
        self.library, index = _entry(source, name, target)
        lib = self.library
        self._launch = getattr(lib, f"emu_launch_{index}")
        self._launch.restype = ctypes.c_int
        self._launch.argtypes = [ctypes.c_uint] * 6 + [ctypes.c_void_p, ctypes.c_double, ctypes.c_int, ctypes.c_int]
        self._error = lib.emu_error
        self._error.restype = ctypes.c_char_p
        sizes = (ctypes.c_ulonglong * 64)()
        count = getattr(lib, f"emu_params_{index}")(sizes)
        self.param_sizes = tuple(sizes[:count])

    def _argument(self, i, value, keep):
        want = self.param_sizes[i]
        if isinstance(value, np.ndarray) and not isinstance(value, DeviceArray):
            host = np.ascontiguousarray(value)
            if host.size != 1:
                raise TypeError(f"{self.name} argument {i}: a by-value array must have one element")
        elif isinstance(value, np.generic):
            host = np.array(value)
        else:
            host = np.array(getattr(value, "data", value).ptr, np.uint64)
        if host.nbytes != want:
            raise TypeError(f"{self.name} argument {i}: the kernel's parameter has {want} bytes, the launch "
                            f"passes {host.nbytes} ({type(value).__name__} {getattr(value, 'dtype', '')})")
        keep.append(host)
        return host.ctypes.data

    def __call__(self, grid, block, args, shared_mem=0, cooperative=False):
        if len(args) != len(self.param_sizes):
            raise TypeError(f"{self.name} takes {len(self.param_sizes)} arguments, the launch passes {len(args)}")
        if shared_mem > DYNAMIC_SHARED_BYTES:
            raise KernelFault(f"{self.name}: {shared_mem} bytes of dynamic shared memory asked for")
        keep = []
        ptrs = (ctypes.c_void_p * max(1, len(args)))(*[self._argument(i, a, keep) for i, a in enumerate(args)])
        g, b = _dims(grid), _dims(block)
        cooperative = cooperative or self.name.split("<")[0].strip() in CLUSTER_KERNELS
        with _one_launch:
            if self._launch(*g, *b, ptrs, TIMEOUT_S, REVERSE_BLOCKS, int(bool(cooperative))):
                raise KernelFault(f"{self.name}: {self._error().decode()}")


_one_launch = threading.Lock()  # the shim's launch state is global: one launch at a time
_kernels = {}


def kernel(source, name, target="cuda32"):
    """The memoized emulated kernel ``name`` of ``source`` for ``target`` (compiled on first use)."""
    key = (source, name, target)
    if key not in _kernels:
        _kernels[key] = EmulatedKernel(source, name, target)
        _record(target, source, name)
    return _kernels[key]


def _record(target, source, name):
    """Append a built kernel to ``$ROCARRAY_EMU_RECORD`` (one ``target<TAB>source<TAB>name`` line),
    the raw material of :data:`MANIFEST` (:func:`write_manifest`)."""
    path = os.environ.get("ROCARRAY_EMU_RECORD")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{target}\t{source}\t{name}\n")


def _dims(v):
    t = tuple(int(x) for x in (v if isinstance(v, (tuple, list)) else (v,)))
    return t + (1,) * (3 - len(t))


class _EmulatedFunction(_Function):
    """launchfake's recording kernel stand-in that also runs the launch."""

    def __init__(self, device, source, name, target):
        super().__init__(device, name)
        self.kernel = None  # no driver handle: the launch layer calls this object
        self._emulated = kernel(source, name, target)

    def __call__(self, grid, block, args, shared_mem=0, cooperative=False):
        super().__call__(grid, block, args, shared_mem, cooperative)
        self._emulated(grid, block, args, shared_mem, cooperative)


class EmulatedDevice:
    """What the fixture returns: the recording fake device plus arrays for the emulator."""

    def __init__(self, fake):
        self.fake = fake
        self.cupy = namespace()

    @property
    def launches(self):
        return self.fake.launches

    def names(self):
        return self.fake.names()

    def array(self, values, dtype=None):
        """A device array (512-byte aligned, a guard page after it) holding a copy of ``values``."""
        return self.cupy.asarray(values, dtype=dtype)


#: The device a wave64 emulation reports (a CDNA3-like profile).
WAVE64_PROFILE = dataclasses.replace(PROFILE, name="fake gfx942", is_hip=True, arch="gfx942", warp_size=64,
                                     multiprocessors=304, shared_mem_per_block=65536, compute_capability="9.4")


def _emulate(fake, monkeypatch, target):
    if compiler() is None:
        pytest.skip("g++ is needed to run kernels on the CPU")
    device = EmulatedDevice(fake)

    def get_kernel(source, name, device_id=None):
        if "<" in name and name not in _compile.registered(source):
            raise LookupError(f"{name} is not registered for {source}")
        return _EmulatedFunction(fake, source, name, target)

    monkeypatch.setattr(_compile, "get_kernel", get_kernel)
    monkeypatch.setattr(backend, "_cupy", [device.cupy])
    monkeypatch.setattr(backend, "cupy_module", lambda: device.cupy)  # ra.asnumpy and friends reach it too
    if target == "hip64":
        monkeypatch.setattr(backend, "device_info", lambda device_id=None: WAVE64_PROFILE)
    return device


@pytest.fixture
def emulated_device(fake_device, monkeypatch):  # noqa: F811 (the imported fixture)
    """Kernels run as NVIDIA's (RA_CUDA, warp 32) on launchfake's sm_90 profile."""
    return _emulate(fake_device, monkeypatch, "cuda32")


@pytest.fixture
def emulated_wave64_device(fake_device, monkeypatch):  # noqa: F811 (the imported fixture)
    """Kernels run as AMD's (RA_HIP, wavefront 64) on a gfx942-like profile."""
    return _emulate(fake_device, monkeypatch, "hip64")


@pytest.fixture(params=["cuda32", "hip64"])
def emulated_either_device(request, fake_device, monkeypatch):  # noqa: F811 (the imported fixture)
    """Each test twice: kernels run as NVIDIA's (warp 32), then as AMD's (wavefront 64)."""
    return _emulate(fake_device, monkeypatch, request.param)


@pytest.fixture
def emulated_target_device(request, fake_device, monkeypatch):  # noqa: F811 (the imported fixture)
    """Kernels run as the target the test's parameters name (indirect parametrization, as
    :func:`spread` gives it)."""
    return _emulate(fake_device, monkeypatch, request.param)


def spread(cases, dtypes):
    """``(target, dtype, *case)`` parameters: every case on both targets, the dtypes rotating
    between cases (the AMD target half a turn behind), so that over ``len(dtypes)`` cases every
    dtype meets every target. The emulator runs a block's threads one after another, so the
    whole product of shapes, dtypes and targets costs minutes for no path this misses. Use with
    ``indirect=["emulated_target_device"]``."""
    out = []
    for i, case in enumerate(cases):
        case = case if isinstance(case, tuple) else (case,)
        out.append(("cuda32", dtypes[i % len(dtypes)], *case))
        out.append(("hip64", dtypes[(i + len(dtypes) // 2) % len(dtypes)], *case))
    return out
